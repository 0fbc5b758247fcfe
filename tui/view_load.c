/* tui/view_load.c — the NPU load sampled while a run ran (store_get_load): one
 * band per core, time left to right, each column the mean load of its samples. */
#define RT_TUI_INTERNAL
#include "tui/tui.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CORES 8

static const tui_key keys[] = {
    {"(none)", "the chart follows the window's size"},
};

typedef struct load_view {
    tui_view v;
    store_load_sample *s;
    int n, n_cores;
    int64_t core_id[MAX_CORES];
    double t_max, mean[MAX_CORES], peak[MAX_CORES];
    char title[256];
} load_view;

static int core_index(const load_view *lv, int64_t core)
{
    for (int c = 0; c < lv->n_cores; c++)
        if (lv->core_id[c] == core)
            return c;
    return -1;
}

static void draw(tui *t, tui_view *v, int y0, int h)
{
    static const char *const blocks[] = { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
    static const char ascii[] = " ..::||##";
    load_view *lv = (load_view *)v;
    char buf[256];
    tui_text(y0, 0, COLS, lv->title, A_BOLD, 0, 1);
    int band = lv->n_cores ? (h - 2) / lv->n_cores - 1 : 0;
    if (band > 8)
        band = 8;
    int x0 = 16, w = COLS - x0 - 1;
    if (band < 1 || w < 4)
        return;
    double *sum = xcalloc((size_t)w, sizeof(double));
    int *cnt = xcalloc((size_t)w, sizeof(int));
    for (int c = 0; c < lv->n_cores; c++) {
        int yb = y0 + 1 + c * (band + 1);
        memset(sum, 0, sizeof(double) * (size_t)w);
        memset(cnt, 0, sizeof(int) * (size_t)w);
        for (int i = 0; i < lv->n; i++) {
            if (core_index(lv, lv->s[i].core) != c || isnan(lv->s[i].load_pct))
                continue;
            int x = lv->t_max > 0 ? (int)(lv->s[i].t_us / lv->t_max * (w - 1)) : 0;
            x = x < 0 ? 0 : x >= w ? w - 1 : x;
            sum[x] += lv->s[i].load_pct;
            cnt[x]++;
        }
        snprintf(buf, sizeof(buf), "core %lld", (long long)lv->core_id[c]);
        tui_text(yb, 0, x0 - 1, buf, A_BOLD, 0, 1);
        snprintf(buf, sizeof(buf), "mean %3.0f%%", lv->mean[c]);
        tui_text(yb + 1, 0, x0 - 1, buf, A_NORMAL, 0, 1);
        snprintf(buf, sizeof(buf), "peak %3.0f%%", lv->peak[c]);
        if (band > 2)
            tui_text(yb + 2, 0, x0 - 1, buf, A_NORMAL, 0, 1);
        attr_t a = tui_attr(t, TC_CORE0 + c % 3);
        double last = NAN;
        for (int x = 0; x < w; x++) {
            /* a column without a sample holds the last value (the load did not change) */
            double pct = cnt[x] ? sum[x] / cnt[x] : last;
            last = pct;
            int eighths = isnan(pct) ? 0 : (int)lround(pct / 100.0 * band * 8);
            for (int r = 0; r < band; r++) {
                int e = eighths - (band - 1 - r) * 8;
                e = e < 0 ? 0 : e > 8 ? 8 : e;
                move(yb + r, x0 + x);
                attron(a);
                if (t->utf8)
                    addstr(blocks[e]);
                else
                    addch((chtype)(unsigned char)ascii[e]);
                attroff(a);
            }
        }
    }
    free(sum);
    free(cnt);
    int yl = y0 + 1 + lv->n_cores * (band + 1);
    if (yl < y0 + h) {
        snprintf(buf, sizeof(buf), "0 ms%*s%.1f ms", w > 20 ? w - 12 : 1, "", lv->t_max / 1e3);
        tui_text(yl, x0, w, buf, tui_attr(t, TC_DIM), 0, 1);
    }
}

static int key(tui *t, tui_view *v, int ch)
{
    return TUI_UNHANDLED;
}

static void destroy(tui_view *v)
{
    load_view *lv = (load_view *)v;
    free(lv->s);
    free(lv);
}

int tui_load_view(tui *t, const tui_run *r, tui_view **out, char *err, size_t errlen)
{
    load_view *lv = xcalloc(1, sizeof(*lv));
    int rc = store_get_load(t->st, r->run.id, &lv->s, &lv->n, err, errlen);
    int cnt[MAX_CORES] = { 0 };
    if (!rc && !lv->n)
        rc = rt_err(err, errlen, RT_ENOTFOUND, "run #%lld has no NPU load samples", (long long)r->run.id);
    if (rc) {
        destroy(&lv->v);
        return rc;
    }
    lv->v = (tui_view){ .name = "load", .draw = draw, .key = key, .destroy = destroy, .keys = keys,
                        .n_keys = (int)(sizeof(keys) / sizeof(keys[0])) };
    for (int i = 0; i < lv->n; i++) {
        const store_load_sample *s = &lv->s[i];
        int c = core_index(lv, s->core);
        if (c < 0 && lv->n_cores < MAX_CORES)
            lv->core_id[c = lv->n_cores++] = s->core;
        if (c < 0 || isnan(s->load_pct))
            continue;
        if (s->t_us > lv->t_max)
            lv->t_max = s->t_us;
        lv->mean[c] += s->load_pct;
        if (s->load_pct > lv->peak[c])
            lv->peak[c] = s->load_pct;
        cnt[c]++;
    }
    for (int c = 0; c < lv->n_cores; c++)
        lv->mean[c] = cnt[c] ? lv->mean[c] / cnt[c] : NAN;
    snprintf(lv->title, sizeof(lv->title), " NPU load of run #%lld%s%s: %d samples over %.1f ms, %d core%s",
             (long long)r->run.id, r->run.label ? " " : "", r->run.label ? r->run.label : "", lv->n,
             lv->t_max / 1e3, lv->n_cores, lv->n_cores == 1 ? "" : "s");
    *out = &lv->v;
    return RT_OK;
}
