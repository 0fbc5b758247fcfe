/* tui/view_text.c — scrolling text: the run summary as `show` prints it
 * (summary_print into memory), and a layer's detail with its error curve. */
#define RT_TUI_INTERNAL
#include "tui/tui.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const tui_key text_keys[] = {
    {"Up/Down j/k PgUp/PgDn", "scroll (mouse wheel too)"},
    {"g / G", "top / bottom"},
};

typedef struct text_view {
    tui_view v;
    char *text;
    char **lines;
    int n, top;
    /* detail: the error curve (entire cos of every error row) and this layer on it */
    double *curve;
    int n_curve, mark;
    double lo;
    int cpu;                    /* the layer is a CPU fallback: its title highlighted */
} text_view;

static void split(text_view *tv)
{
    int cap = 16;
    tv->lines = xcalloc((size_t)cap, sizeof(char *));
    for (char *p = tv->text; p && *p;) {
        if (tv->n == cap)
            tv->lines = xrealloc(tv->lines, sizeof(char *) * (size_t)(cap *= 2));
        tv->lines[tv->n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
}

static void draw(tui *t, tui_view *v, int y0, int h)
{
    text_view *tv = (text_view *)v;
    int y = y0;
    if (tv->curve) {
        char buf[256];
        snprintf(buf, sizeof(buf), " error curve: entire cos of every compared tensor, %.5f .. 1; %s",
                 tv->lo, tv->mark >= 0 ? "this layer marked" : "this layer has no error row");
        tui_text(y++, 0, COLS, buf, A_BOLD, 0, 1);
        tui_sparkline(t, y++, 1, COLS - 2, tv->curve, tv->n_curve, tv->lo, 1.0, tv->mark,
                      tui_attr(t, TC_BAR), tui_attr(t, TC_ERROR));
        h -= 2;
    }
    int rows = h;
    if (tv->top > tv->n - rows)
        tv->top = tv->n - rows > 0 ? tv->n - rows : 0;
    for (int i = 0; i < rows && tv->top + i < tv->n; i++) {
        const char *line = tv->lines[tv->top + i];
        attr_t a = A_NORMAL;
        if (tv->cpu && !strncmp(line, "target", 6))
            a = tui_attr(t, TC_CPU);
        else if (line[0] && line[0] != ' ' && strchr(line, ':') == NULL)
            a = A_BOLD;
        tui_text(y + i, 0, COLS, line, a, 0, 1);
    }
}

static int key(tui *t, tui_view *v, int ch)
{
    text_view *tv = (text_view *)v;
    int page = LINES - 4;
    switch (ch) {
    case KEY_UP: case 'k': tv->top--; break;
    case KEY_DOWN: case 'j': tv->top++; break;
    case KEY_PPAGE: tv->top -= page; break;
    case KEY_NPAGE: case ' ': tv->top += page; break;
    case KEY_HOME: case 'g': tv->top = 0; break;
    case KEY_END: case 'G': tv->top = tv->n; break;
    default: return TUI_UNHANDLED;
    }
    if (tv->top < 0)
        tv->top = 0;
    if (tv->top > tv->n - 1)
        tv->top = tv->n > 0 ? tv->n - 1 : 0;
    return TUI_HANDLED;
}

static void mouse(tui *t, tui_view *v, const MEVENT *ev)
{
    if (ev->bstate & BUTTON4_PRESSED)
        key(t, v, KEY_UP), key(t, v, KEY_UP), key(t, v, KEY_UP);
#ifdef BUTTON5_PRESSED
    else if (ev->bstate & BUTTON5_PRESSED)
        key(t, v, KEY_DOWN), key(t, v, KEY_DOWN), key(t, v, KEY_DOWN);
#endif
}

static void destroy(tui_view *v)
{
    text_view *tv = (text_view *)v;
    free(tv->text);
    free(tv->lines);
    free(tv->curve);
    free(tv);
}

static text_view *text_new(const char *name, char *text)
{
    text_view *tv = xcalloc(1, sizeof(*tv));
    tv->v = (tui_view){ .name = name, .draw = draw, .key = key, .mouse = mouse, .destroy = destroy,
                        .keys = text_keys, .n_keys = (int)(sizeof(text_keys) / sizeof(text_keys[0])) };
    tv->text = text;
    tv->mark = -1;
    split(tv);
    return tv;
}

tui_view *tui_text_view(tui *t, const char *title, char *text)
{
    return &text_new(title, text)->v;
}

tui_view *tui_summary_view(tui *t, const tui_run *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        summary_print(&r->sum, f, 0);
        summary_print_accuracy(&r->sum, f, 0);
        fclose(f);
    }
    return &text_new("summary", text ? text : xstrdup("(no summary)"))->v;
}

/* ---- layer detail ------------------------------------------------------------- */

/* A missing value is none: an em dash where UTF-8 is allowed, else "-". */
static void field(FILE *f, const char *none, const char *k, const char *v)
{
    fprintf(f, "  %-22s %s\n", k, v && *v ? v : none);
}

static void field_num(FILE *f, const char *none, const char *k, double v, const char *fmt)
{
    char buf[64];
    field(f, none, k, isnan(v) ? NULL : tui_num(buf, sizeof(buf), v, fmt));
}

static void field_int(FILE *f, const char *none, const char *k, int64_t v)
{
    char buf[64];
    field(f, none, k, v == STORE_NULL_INT ? NULL : tui_int(buf, sizeof(buf), v));
}

static void metrics_lines(FILE *f, const char *what, const metrics_t *m)
{
    char a[32], b[32], c[32], d[32], e[32];
    fprintf(f, "  %-22s cos %s  euc %s  max-abs %s  mean-abs %s  SQNR %s dB%s%s%s%s\n", what,
            metrics_fmt_cos(m->cos, a, sizeof(a)), metrics_fmt_euc(m->euc, b, sizeof(b)),
            metrics_fmt_euc(m->max_abs, c, sizeof(c)), metrics_fmt_euc(m->mean_abs, d, sizeof(d)),
            isinf(m->sqnr_db) ? "inf" : tui_num(e, sizeof(e), m->sqnr_db, "%.2f"),
            m->flags & METRIC_REF_CONST ? "  (golden constant)" : "",
            m->flags & METRIC_X_CONST ? "  (output constant: collapsed)" : "",
            m->flags & METRIC_NONFINITE ? "  (NaN/inf values)" : "",
            m->flags & METRIC_EMPTY ? "  (empty)" : "");
}

tui_view *tui_detail_view(tui *t, const tui_run *r, int li, int ai)
{
    char *text = NULL, buf[64];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    const store_layer *l = li >= 0 ? &r->layers[li] : NULL;
    const store_accuracy *a = ai >= 0 ? &r->acc[ai] : NULL;
    const run_summary *s = &r->sum;
    int cpu = summary_is_fallback(s, l);
    const char *none = t->utf8 ? "—" : "-";

    if (!f)
        return tui_text_view(t, "detail", xstrdup("(out of memory)"));
    fprintf(f, "layer %s  [%s] %s\n", l ? tui_int(buf, sizeof(buf), l->idx) : "-",
            l && l->op ? l->op : a && a->op ? a->op : "-", l && l->name ? l->name : a ? a->name : "-");
    if (l) {
        double us = !isnan(l->frame_us) ? l->frame_us : l->time_us;
        field_int(f, none, "level-4 table ID", l->table_id);
        field(f, none, "node", l->node);
        field(f, none, "op", l->op);
        field(f, none, "tensor (source name)", l->name);
        field(f, none, "target", l->target);
        if (cpu) {
            char cost[128], p[32];
            field(f, none, "CPU fallback reason", l->cpu_reason ? l->cpu_reason : "no reason recorded");
            snprintf(cost, sizeof(cost), "%s us predicted, %s %% of the frame",
                     tui_num(buf, sizeof(buf), us, "%.2f"),
                     tui_num(p, sizeof(p), s->frame_us > 0 ? us / s->frame_us * 100 : NAN, "%.1f"));
            field(f, none, "CPU fallback cost", cost);
        }
        field(f, none, "NPU layer (vendor op)", l->npu_op);
        field(f, none, "input shapes", l->in_shapes);
        field(f, none, "output shapes", l->out_shapes);
        field(f, none, "output dtype", l->dtype);
        field(f, none, "computes in", l->npu_dtype);
        field_num(f, none, "predicted frame us", l->frame_us, "%.3f");
        field_num(f, none, "table time us", l->time_us, "%.3f");
        field_num(f, none, "share of the frame %", s->frame_us > 0 ? us / s->frame_us * 100 : NAN, "%.2f");
        field_int(f, none, "NPU cycles", l->npu_cycles);
        field_int(f, none, "DDR cycles", l->ddr_cycles);
        field_int(f, none, "total cycles", l->total_cycles);
        field(f, none, "bound", l->bound);
        field_num(f, none, "MAC usage %", l->mac_usage, "%.2f");
        field_num(f, none, "RW KB", l->rw_kb, "%.2f");
        field_num(f, none, "SRAM hit KB", l->sram_hit / 1024, "%.2f");
        field(f, none, "workload (per core)", l->workload);
        field_int(f, none, "tasks", l->tasks);
        field_num(f, none, "host us (this PC)", l->host_us, "%.2f");
    }
    fprintf(f, "\nquantization\n");
    field(f, none, "run quant", r->run.quant);
    field(f, none, "algorithm", r->run.quant_algo);
    field(f, none, "method", r->run.quant_method);
    field(f, none, "layer computes in", l ? l->npu_dtype : NULL);
    field(f, none, "output qtype", l ? l->out_qtype : NULL);
    field_num(f, none, "output scale", l ? l->out_scale : NAN, "%.9g");
    field_int(f, none, "output zero point", l ? l->out_zp : STORE_NULL_INT);
    fprintf(f, "\noutput statistics (this run)\n");
    field_num(f, none, "min", l ? l->out_min : NAN, "%.9g");
    field_num(f, none, "max", l ? l->out_max : NAN, "%.9g");
    field_num(f, none, "mean", l ? l->out_mean : NAN, "%.9g");
    field_num(f, none, "std", l ? l->out_std : NAN, "%.9g");
    fprintf(f, "\nerror vs the %s\n", a && a->source && strcmp(a->source, STORE_ACC_QUANT) ? "external golden" : "fp32 golden");
    if (a) {
        field(f, none, "source", a->source);
        field_int(f, none, "error row", a->idx);
        field(f, none, "fused (not quantized)", a->fused ? "yes" : "no");
        field(f, none, "graph output", a->is_output ? "yes" : "no");
        metrics_lines(f, "entire", &a->entire);
        metrics_lines(f, "single", &a->single);
        if (s->first_below >= 0)
            field(f, none, "error starts at", r->acc[s->first_below].name);
    } else {
        fprintf(f, "  (no error row: an unquantized run, or a tensor the analysis does not compare)\n");
    }
    fclose(f);

    text_view *tv = text_new("detail", text);
    tv->cpu = cpu;
    if (r->na) {
        tv->curve = xcalloc((size_t)r->na, sizeof(double));
        tv->n_curve = r->na;
        tv->lo = 1;
        for (int i = 0; i < r->na; i++) {
            tv->curve[i] = r->acc[i].entire.cos;
            if (!isnan(tv->curve[i]) && tv->curve[i] < tv->lo)
                tv->lo = tv->curve[i];
        }
        if (tv->lo > 0.999)
            tv->lo = 0.999;
        tv->mark = ai;
    }
    return &tv->v;
}
