/* tui/top.c — `rknn-trace top`'s views of the NPU: a live ncurses view of the
 * load per core over time, clock and governor, driver, SRAM map and the
 * processes holding the NPU, and the same reading as plain text. The figures
 * come from the board probe (tracer/board*.c); a node that is absent or needs
 * root shows as such, never as 0. */
#define RT_TUI_INTERNAL
#include "tui/tui.h"
#include "tracer/board.h"
#include "util/escape.h"
#include "util/util.h"

#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HIST 512

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static const char *mhz(char *buf, size_t len, int state, uint64_t hz)
{
    if (state != BOARD_OK)
        snprintf(buf, len, "%s", board_state_name(state));
    else
        snprintf(buf, len, "%.0f MHz", hz / 1e6);
    return buf;
}

static const char *str_or_state(int state, const char *v)
{
    return state == BOARD_OK ? v : board_state_name(state);
}

/* The head lines shared by the text snapshot and the live view. */
static void head_lines(const board_snapshot_t *s, char lines[4][1024])
{
    char f1[48], f2[48], drm[160];

    if (s->drm_state == BOARD_OK && s->drm_version[0])
        snprintf(drm, sizeof drm, "%s (%s %s %s)", s->drm_node, s->drm_name, s->drm_version, s->drm_date);
    else if (s->drm_state == BOARD_OK)
        snprintf(drm, sizeof drm, "%s (rknpu)", s->drm_node);
    else if (s->drm_state == BOARD_DENIED)
        snprintf(drm, sizeof drm, "%s needs permission (group video)", s->drm_node);
    else
        snprintf(drm, sizeof drm, "no rknpu device (%d DRM device%s)", s->n_drm_devices,
                 s->n_drm_devices == 1 ? "" : "s");
    snprintf(lines[0], sizeof lines[0], "source   %s%s", s->npu_dir[0] ? s->npu_dir : "-",
             s->sim ? "  (simulated NPU)" : "");
    snprintf(lines[1], sizeof lines[0], "driver   %s   drm %s", str_or_state(s->version_state, s->driver_version), drm);
    snprintf(lines[2], sizeof lines[0], "clock    %s   devfreq %s %s, governor %s   power %s",
             mhz(f1, sizeof f1, s->freq_state, s->freq_hz), s->devfreq_dir[0] ? s->devfreq_dir : "-",
             mhz(f2, sizeof f2, s->cur_state, s->cur_freq_hz), str_or_state(s->gov_state, s->governor),
             str_or_state(s->power_state, s->power));
    if (s->mm_state == BOARD_OK)
        snprintf(lines[3], sizeof lines[0], "sram     %lld of %lld KiB used (%d pages of 4 KiB)",
                 (long long)s->mm.used / 1024, (long long)s->mm.total / 1024, s->mm.pages);
    else
        snprintf(lines[3], sizeof lines[0], "sram     %s", board_state_name(s->mm_state));
}

void tui_top_print(const board_snapshot_t *s)
{
    char lines[4][1024];

    head_lines(s, lines);
    printf("%s\n%s\n%s\n", lines[0], lines[1], lines[2]);
    printf("load     ");
    if (s->load_state == BOARD_OK)
        for (int c = 0; c < s->cores; c++)
            printf("core%d %3d%%  ", c, s->load_pct[c]);
    else
        printf("%s", board_state_name(s->load_state));
    printf("\n%s\n", lines[3]);
    printf("runtime  %s%s%s\n", s->runtime_path[0] ? s->runtime_path : "no vendor librknnrt.so found",
           s->runtime_version[0] ? "  " : "", s->runtime_version);
    printf("kernel   %s   soc %s%s%s\n", str_or_state(s->kernel_state, s->kernel),
           str_or_state(s->soc_state, s->soc), s->dt_model[0] ? "   " : "", s->dt_model);
    printf("holders  ");
    if (s->procs_state != BOARD_OK)
        printf("%s", board_state_name(s->procs_state));
    for (int i = 0; i < s->n_procs; i++)
        printf("%s%d %s (%s)", i ? ", " : "", s->procs[i].pid, esc_tmp(ESC_TERM, s->procs[i].comm),
               esc_tmp(ESC_TERM, s->procs[i].node));   /* a process names itself */
    if (s->procs_state == BOARD_OK && !s->n_procs)
        printf("none");
    if (s->n_procs_denied)
        printf("   (%d processes not readable: needs root)", s->n_procs_denied);
    putchar('\n');
}

/* ---- the live view ---- */

typedef struct history {
    unsigned char v[BOARD_MAX_CORES][HIST]; /* 255: no reading */
    int n, head;
} history_t;

static void hist_push(history_t *h, const board_snapshot_t *s)
{
    for (int c = 0; c < BOARD_MAX_CORES; c++)
        h->v[c][h->head] = s->load_state == BOARD_OK && c < s->cores
                           ? (unsigned char)(s->load_pct[c] > 100 ? 100 : s->load_pct[c]) : 255;
    h->head = (h->head + 1) % HIST;
    if (h->n < HIST)
        h->n++;
}

static void draw(const board_snapshot_t *s, const history_t *h, int utf8, int interval_ms)
{
    static const char *const bars[] = {" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585",
                                       "\u2586", "\u2587", "\u2588"};
    static const char ascii[] = " .:-=+*#@";
    char lines[4][1024];
    int rows, cols, y = 0;

    getmaxyx(stdscr, rows, cols);
    erase();
    head_lines(s, lines);
    attron(A_BOLD);
    mvprintw(y++, 0, "rknn-trace top   root %s   every %d ms   q quits", s->root, interval_ms);
    attroff(A_BOLD);
    for (int i = 0; i < 3 && y < rows; i++)
        mvaddnstr(y++, 0, lines[i], cols);
    if (y < rows)
        mvprintw(y++, 0, "runtime  %s  %s", s->runtime_path[0] ? s->runtime_path : "no vendor librknnrt.so found",
                 s->runtime_version);
    y++;
    if (s->load_state != BOARD_OK && y < rows) {
        mvprintw(y++, 0, "load     %s", board_state_name(s->load_state));
    }
    for (int c = 0; s->load_state == BOARD_OK && c < s->cores && y < rows; c++, y++) {
        int w = cols - 22 > 0 ? cols - 22 : 0;
        mvprintw(y, 0, "core%d %3d%% ", c, s->load_pct[c]);
        /* newest on the right, one column per refresh */
        int n = h->n < w ? h->n : w;
        move(y, 11 + (w - n));
        for (int k = n; k > 0; k--) {
            int v = h->v[c][(h->head - k + HIST) % HIST];
            if (v == 255)
                addch('?');
            else if (utf8)
                addstr(bars[(v * 8 + 50) / 100]);
            else
                addch((chtype)ascii[(v * 8 + 50) / 100]);
        }
    }
    y++;
    if (y < rows)
        mvaddnstr(y++, 0, lines[3], cols);
    if (s->mm_state == BOARD_OK && y < rows) {
        int len = (int)strlen(s->mm.map);
        for (int off = 0; off < len && y < rows; off += 64)
            mvprintw(y++, 9, "%.64s", s->mm.map + off);
    }
    y++;
    if (y < rows) {
        attron(A_BOLD);
        mvprintw(y++, 0, "%7s  %-16s %s", "PID", "COMMAND", "NODE");
        attroff(A_BOLD);
    }
    if (s->procs_state != BOARD_OK && y < rows)
        mvprintw(y++, 0, "processes: %s", board_state_name(s->procs_state));
    for (int i = 0; i < s->n_procs && y < rows; i++)
        mvprintw(y++, 0, "%7d  %-16s %s", s->procs[i].pid, esc_tmp(ESC_TERM, s->procs[i].comm),
                 esc_tmp(ESC_TERM, s->procs[i].node));
    if (s->procs_state == BOARD_OK && !s->n_procs && y < rows)
        mvprintw(y++, 0, "%7s  none holds the NPU", "-");
    if (s->n_procs_denied && y < rows)
        mvprintw(y++, 0, "%d processes not readable (needs root)", s->n_procs_denied);
    refresh();
}

int tui_top_live(const char *root, int sim, const char *runtime, const char *runtime_version,
                 int interval_ms, long long count, char *err, size_t errlen)
{
    board_snapshot_t *s = xcalloc(1, sizeof(*s));
    history_t *h = xcalloc(1, sizeof(*h));
    int utf8, per_s = interval_ms > 0 && interval_ms < 1000 ? 1000 / interval_ms : 1;

    setlocale(LC_ALL, "");
    utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    if (!initscr()) {
        free(s);
        free(h);
        return rt_err(err, errlen, RT_EINVAL, "cannot start the terminal view (TERM=%s)",
                      getenv("TERM") ? getenv("TERM") : "");
    }
    cbreak();
    noecho();
    curs_set(0);
    timeout(interval_ms);
    board_snapshot(s, root, sim, BOARD_SNAP_ALL);
    snprintf(s->runtime_path, sizeof s->runtime_path, "%s", runtime ? runtime : "");
    snprintf(s->runtime_version, sizeof s->runtime_version, "%s", runtime_version ? runtime_version : "");
    for (long long tick = 1; !stop_requested; tick++) {
        /* load every refresh; the driver's other nodes once a second, the processes
         * every 2 s (the /proc walk is the costly part), the DRM device every 10 s */
        if (tick % (10 * per_s) == 0)
            board_snapshot_update(s, BOARD_SNAP_DRM | BOARD_SNAP_PROCS);
        else if (tick % (2 * per_s) == 0)
            board_snapshot_update(s, BOARD_SNAP_PROCS);
        else if (tick % per_s == 0)
            board_snapshot_update(s, 0);
        else
            board_snapshot_load(s);
        hist_push(h, s);
        draw(s, h, utf8, interval_ms);
        if (count && tick >= count)
            break;
        int ch = getch();
        if (ch == 'q' || ch == 'Q')
            break;
    }
    endwin();
    free(s);
    free(h);
    return RT_OK;
}

