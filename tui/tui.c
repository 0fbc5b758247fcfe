/* tui/tui.c — the terminal and the loop: colours (none under NO_COLOR or on a
 * monochrome terminal), UTF-8 or ASCII, mouse, resize, the title and status
 * lines, prompts, the help overlay, the view stack and the key log. */
#define RT_TUI_INTERNAL
#include "tui/tui.h"
#include "util/util.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const tui_key global_keys[] = {
    {"?", "this help (any key closes it)"},
    {"q / Esc", "back to the previous view; quit from the runs list"},
    {"Q", "quit"},
    {"Ctrl-L", "redraw the screen"},
};

/* Colour pairs of the 8-colour palette (-1: the terminal's default). */
static const short pairs[TC_COUNT][2] = {
    [TC_TITLE] = {COLOR_WHITE, COLOR_BLUE},    [TC_HEADER] = {COLOR_BLACK, COLOR_GREEN},
    [TC_STATUS] = {COLOR_BLACK, COLOR_CYAN},
    [TC_ERROR] = {COLOR_WHITE, COLOR_RED},     [TC_CPU] = {COLOR_BLACK, COLOR_YELLOW},
    [TC_DDR] = {COLOR_MAGENTA, -1},            [TC_COMPUTE] = {COLOR_BLUE, -1},
    [TC_GOOD] = {COLOR_GREEN, -1},             [TC_WARN] = {COLOR_YELLOW, -1},
    [TC_BAD] = {COLOR_RED, -1},                [TC_NAN] = {COLOR_MAGENTA, -1},
    [TC_MARK] = {COLOR_YELLOW, -1},            [TC_BAR] = {COLOR_CYAN, -1},
    [TC_DIM] = {-1, -1},                       [TC_CORE0] = {COLOR_GREEN, -1},
    [TC_CORE1] = {COLOR_CYAN, -1},             [TC_CORE2] = {COLOR_MAGENTA, -1},
};

/* Without colour, what tells the same things apart. */
static const attr_t mono[TC_COUNT] = {
    [TC_TITLE] = A_REVERSE | A_BOLD, [TC_HEADER] = A_BOLD | A_UNDERLINE,
    [TC_STATUS] = A_REVERSE, [TC_ERROR] = A_REVERSE | A_BOLD, [TC_CPU] = A_BOLD | A_UNDERLINE,
    [TC_DDR] = A_BOLD, [TC_WARN] = A_BOLD, [TC_BAD] = A_BOLD | A_UNDERLINE, [TC_NAN] = A_DIM,
    [TC_MARK] = A_BOLD, [TC_DIM] = A_DIM, [TC_CORE1] = A_BOLD,
};

attr_t tui_attr(const tui *t, int color)
{
    if (color <= TC_NORMAL || color >= TC_COUNT)
        return A_NORMAL;
    if (!t->colors)
        return mono[color];
    attr_t extra = color == TC_TITLE || color == TC_MARK || color == TC_ERROR ? A_BOLD
                   : color == TC_DIM ? A_DIM : 0;
    return COLOR_PAIR(color) | extra;
}

void tui_status(tui *t, int error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->status, sizeof(t->status), fmt, ap);
    va_end(ap);
    t->status_error = error;
}

void tui_push(tui *t, tui_view *v)
{
    v->below = t->top;
    t->top = v;
}

static void pop(tui *t)
{
    tui_view *v = t->top;
    if (!v)
        return;
    t->top = v->below;
    v->destroy(v);
}

static void draw_title(tui *t)
{
    char buf[512], path[256] = "";
    int n = 0;
    for (tui_view *v = t->top; v && n < 8; v = v->below)
        n++;
    const char *names[8];
    int k = n;
    for (tui_view *v = t->top; v && k > 0; v = v->below)
        names[--k] = v->name;
    for (int i = 0; i < n; i++)
        snprintf(path + strlen(path), sizeof(path) - strlen(path), "%s%s", i ? (t->utf8 ? " › " : " > ") : "",
                 names[i]);
    snprintf(buf, sizeof(buf), " rknn-trace tui  %s  [%s]", path, t->db_path);
    tui_text(0, 0, COLS, buf, tui_attr(t, TC_TITLE), 0, 1);
}

static void draw_status(tui *t)
{
    const char *s = t->status[0] ? t->status
                                 : "? help  q back  Q quit  Enter open  / search  s sort";
    tui_text(LINES - 1, 0, COLS, s, tui_attr(t, t->status_error ? TC_ERROR : TC_STATUS), 0, 1);
}

static int help_lines(const tui_key *k, int n, int y, int x, int w, int ybottom, attr_t a)
{
    char buf[256];
    for (int i = 0; i < n && y < ybottom; i++, y++) {
        snprintf(buf, sizeof(buf), " %-24s %s", k[i].keys, k[i].what);
        tui_text(y, x, w, buf, a, 0, 1);
    }
    return y;
}

static void draw_help(tui *t)
{
    tui_view *v = t->top;
    int n = 3 + (int)(sizeof(global_keys) / sizeof(global_keys[0])) + tui_table_n_keys + (v ? v->n_keys : 0) + 3;
    int w = COLS - 4 < 92 ? COLS - 4 : 92, h = n + 2 < LINES - 2 ? n + 2 : LINES - 2;
    int x = (COLS - w) / 2, y = (LINES - h) / 2, yb = y + h - 1;
    attr_t a = tui_attr(t, TC_STATUS), hd = a | A_BOLD;
    char title[128];
    if (w < 20 || h < 4)
        return;
    for (int i = 0; i < h; i++)
        tui_text(y + i, x, w, "", a, 0, 1);
    snprintf(title, sizeof(title), " keys of the %s view (any key closes this help)", v ? v->name : "");
    tui_text(y + 1, x, w, title, hd, 0, 1);
    int yy = y + 2;
    if (v && v->n_keys)
        yy = help_lines(v->keys, v->n_keys, yy, x, w, yb, a);
    if (v && v->table)
        yy = help_lines(tui_table_keys, tui_table_n_keys, yy, x, w, yb, a);
    yy = help_lines(global_keys, (int)(sizeof(global_keys) / sizeof(global_keys[0])), yy, x, w, yb, a);
    if (yy < yb)
        tui_text(yy + 1 < yb ? yy + 1 : yy, x, w,
                 " colours: CPU fallback rows highlighted; cos green >= threshold, yellow within 0.04, red below",
                 a, 0, 1);
}

/* Composes the screen, then sends it; returns the µs spent sending (doupdate). */
static double draw(tui *t)
{
    erase();
    if (COLS < 40 || LINES < 8) {
        tui_text(0, 0, COLS, "terminal too small (40x8 at least)", A_BOLD, 0, 1);
        refresh();
        return 0;
    }
    draw_title(t);
    if (t->top)
        t->top->draw(t, t->top, 1, LINES - 2);
    draw_status(t);
    if (t->help)
        draw_help(t);
    wnoutrefresh(stdscr);
    double t0 = rt_now_us();
    doupdate();
    return rt_now_us() - t0;
}

int tui_prompt(tui *t, const char *question, char *buf, size_t len)
{
    size_t n = strlen(buf);
    int ok = 0;
    curs_set(1);
    for (;;) {
        char line[640];
        snprintf(line, sizeof(line), "%s%s", question, buf);
        tui_text(LINES - 1, 0, COLS, line, tui_attr(t, TC_STATUS), 0, 1);
        move(LINES - 1, (int)strlen(line) < COLS ? (int)strlen(line) : COLS - 1);
        refresh();
        int ch = getch();
        if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
            ok = 1;
            break;
        } else if (ch == 27) {
            break;
        } else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
            /* a whole UTF-8 character */
            while (n > 0 && ((unsigned char)buf[n - 1] & 0xC0) == 0x80)
                n--;
            if (n > 0)
                n--;
            buf[n] = '\0';
        } else if (ch == 21) { /* Ctrl-U */
            n = 0;
            buf[0] = '\0';
        } else if (ch >= 32 && ch < 256 && n + 1 < len) {
            buf[n++] = (char)ch;
            buf[n] = '\0';
        } else if (ch == KEY_RESIZE) {
            draw(t);
        }
    }
    curs_set(0);
    t->status[0] = '\0';
    return ok;
}

void tui_busy(tui *t, const char *msg)
{
    tui_text(LINES - 1, 0, COLS, msg, tui_attr(t, TC_STATUS), 0, 1);
    refresh();
}

int tui_confirm(tui *t, const char *question)
{
    char line[640];
    snprintf(line, sizeof(line), "%s [y/N] ", question);
    tui_text(LINES - 1, 0, COLS, line, tui_attr(t, TC_ERROR), 0, 1);
    refresh();
    int ch;
    while ((ch = getch()) == KEY_RESIZE || ch == KEY_MOUSE)
        ;
    t->status[0] = '\0';
    return ch == 'y' || ch == 'Y';
}

int tui_store_writable(tui *t, store **out, char *err, size_t errlen)
{
    return store_open(t->db_path, out, err, errlen);
}

static void init_colors(tui *t)
{
    const char *nc = getenv("NO_COLOR");
    t->colors = 0;
    if ((nc && *nc) || !has_colors() || start_color() == ERR || COLORS < 8)
        return;
    use_default_colors();
    t->colors = COLORS >= 256 ? 256 : 8;
    for (int c = 1; c < TC_COUNT; c++)
        init_pair((short)c, pairs[c][0], pairs[c][1]);
}

/* CPU time of the process, µs: a key's cost without the machine's other load. */
static double cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void log_key(tui *t, int ch, const char *view, double us, double out_us, double cpu)
{
    if (!t->keylog)
        return;
    const char *name = ch == KEY_MOUSE ? "MOUSE" : ch == KEY_RESIZE ? "RESIZE" : keyname(ch);
    fprintf(t->keylog, "key %s %s %.3f out %.3f cpu %.3f\n", name ? name : "?", view, us / 1e3,
            out_us / 1e3, cpu / 1e3);
    fflush(t->keylog);
}

static void handle(tui *t, int ch)
{
    if (t->help) {
        t->help = 0;
        return;
    }
    if (ch == KEY_RESIZE || ch == 12) {
        clearok(curscr, TRUE);
        return;
    }
    t->status[0] = '\0';
    if (ch == '?') {
        t->help = 1;
        return;
    }
    if (ch == 'Q') {
        t->quit = 1;
        return;
    }
    if (ch == KEY_MOUSE) {
        MEVENT ev;
        if (getmouse(&ev) == OK && t->top && t->top->mouse)
            t->top->mouse(t, t->top, &ev);
        return;
    }
    int r = t->top ? t->top->key(t, t->top, ch) : TUI_BACK;
    if (r == TUI_UNHANDLED && (ch == 'q' || ch == 27))
        r = TUI_BACK;
    if (r == TUI_BACK) {
        if (t->top && t->top->below)
            pop(t);
        else
            t->quit = 1;
    } else if (r == TUI_UNHANDLED) {
        tui_status(t, 1, "key '%s' does nothing here (? lists the keys)", keyname(ch) ? keyname(ch) : "?");
    }
}

int tui_main(const tui_opts *o, char *err, size_t errlen)
{
    tui t;
    SCREEN *scr = NULL;
    int rc = RT_OK;
    double t0 = rt_now_us(), c0 = cpu_us();

    memset(&t, 0, sizeof(t));
    t.db_path = o->db;
    t.thr = o->cos_threshold;
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return rt_err(err, errlen, RT_EINVAL, "tui needs a terminal on stdin and stdout "
                      "(for text: rknn-trace ls, rknn-trace show RUN)");
    if (access(o->db, F_OK) != 0 && errno == ENOENT)
        return rt_err(err, errlen, RT_ENOTFOUND, "no database '%s' (rknn-trace run MODEL records one; "
                      "--db PATH picks another)", o->db);
    if ((rc = store_open_readonly(o->db, &t.st, err, errlen)))
        return rc;
    /* Everything that can fail on the store fails here, before the screen changes. */
    if ((rc = tui_runs_view(&t, &t.top, err, errlen)))
        goto out;
    double list_us = rt_now_us() - t0;
    if (o->run) {
        store_run r;
        tui_run *tr = NULL;
        if ((rc = store_get_run(t.st, o->run, &r, err, errlen)))
            goto out;
        int64_t id = r.id;
        store_run_clear(&r);
        if ((rc = tui_run_load(&t, id, &tr, err, errlen)))
            goto out;
        tui_push(&t, tui_layers_view(&t, tr));
    }
    if (o->keylog && !(t.keylog = fopen(o->keylog, "a"))) {
        rc = rt_err(err, errlen, RT_EIO, "cannot write the key log '%s'", o->keylog);
        goto out;
    }

    setlocale(LC_ALL, "");
    t.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
    if (!(scr = newterm(NULL, stdout, stdin))) {
        rc = rt_err(err, errlen, RT_EINVAL, "cannot drive terminal '%s' (TERM)",
                    getenv("TERM") ? getenv("TERM") : "");
        goto out;
    }
    /* a terminal that cannot place the cursor (TERM=dumb) would get a garbled screen */
    const char *cup = tigetstr("cup");
    if (!cup || cup == (char *)-1) {
        endwin();
        delscreen(scr);
        scr = NULL;
        rc = rt_err(err, errlen, RT_EINVAL, "terminal '%s' cannot place the cursor (TERM); the tui "
                    "needs one that can, e.g. xterm-256color", getenv("TERM") ? getenv("TERM") : "");
        goto out;
    }
    set_escdelay(25);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    curs_set(0);
    mousemask(BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
              | BUTTON5_PRESSED
#endif
              , NULL);
    mouseinterval(200);
    init_colors(&t);

    draw(&t);
    if (t.keylog) {
        fprintf(t.keylog, "open %.3f list %.3f cpu %.3f\n", (rt_now_us() - t0) / 1e3, list_us / 1e3,
                (cpu_us() - c0) / 1e3);
        fflush(t.keylog);
    }
    while (!t.quit) {
        int ch = getch();
        if (ch == ERR)
            continue;
        double k0 = rt_now_us(), c0 = cpu_us();
        const char *view = t.top ? t.top->name : "-";
        handle(&t, ch);
        if (t.quit)
            break;
        double out_us = draw(&t);
        log_key(&t, ch, view, rt_now_us() - k0, out_us, cpu_us() - c0);
    }
out:
    if (scr) {
        endwin();
        delscreen(scr);
    }
    while (t.top)
        pop(&t);
    if (t.keylog)
        fclose(t.keylog);
    store_close(t.st);
    return rc;
}
