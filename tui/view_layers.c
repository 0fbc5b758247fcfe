/* tui/view_layers.c — one run's layers: predicted time and share of the frame,
 * NPU/DDR cycles with the bound coloured, CPU fallbacks highlighted with their
 * reason, and each layer's error vs the fp32 golden. Also loads a run (all of
 * its rows, the summary, each layer's error row). */
#define RT_TUI_INTERNAL
#include "tui/tui.h"
#include "analyze/compare_doc.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- a run and its rows ------------------------------------------------------- */

static int cmp_acc_name(const void *x, const void *y, void *ctx)
{
    const store_accuracy *acc = ctx;
    const char *a = acc[*(const int *)x].name, *b = acc[*(const int *)y].name;
    return strcmp(a ? a : "", b ? b : "");
}

/* Each layer's error row: by source tensor name, as compare aligns runs. */
static void map_accuracy(tui_run *r)
{
    int *by_name = xcalloc((size_t)(r->na ? r->na : 1), sizeof(int));
    r->layer_acc = xcalloc((size_t)(r->nl ? r->nl : 1), sizeof(int));
    for (int i = 0; i < r->na; i++)
        by_name[i] = i;
    qsort_r(by_name, (size_t)r->na, sizeof(int), cmp_acc_name, r->acc);
    for (int li = 0; li < r->nl; li++) {
        const char *name = r->layers[li].name;
        int lo = 0, hi = r->na - 1, found = -1;
        while (name && lo <= hi) {
            int mid = (lo + hi) / 2, c = strcmp(name, r->acc[by_name[mid]].name ? r->acc[by_name[mid]].name : "");
            if (!c) {
                found = by_name[mid];
                break;
            }
            if (c < 0)
                hi = mid - 1;
            else
                lo = mid + 1;
        }
        r->layer_acc[li] = found;
    }
    free(by_name);
}

int tui_run_load(tui *t, int64_t id, tui_run **out, char *err, size_t errlen)
{
    /* the one run loader (analyze/compare_doc.h), its rows moved into the view's run */
    cmp_run c;
    char ref[32];
    int rc;
    snprintf(ref, sizeof(ref), "%lld", (long long)id);
    if ((rc = cmp_run_load(t->st, ref, t->thr, &c, err, errlen))) {
        cmp_run_free(&c);
        return rc;
    }
    tui_run *r = xcalloc(1, sizeof(*r));
    r->run = c.run;
    r->layers = c.layers, r->nl = c.n_layers;
    r->outs = c.outs, r->no = c.n_outs;
    r->acc = c.acc, r->na = c.n_acc;
    r->npu = c.npu, r->nnpu = c.n_npu;
    r->sum = c.sum;
    r->sum.run = &r->run;   /* the summary borrows the run it was computed from */
    free(c.load);
    map_accuracy(r);
    *out = r;
    return RT_OK;
}

void tui_run_free(tui_run *r)
{
    if (!r)
        return;
    summary_free(&r->sum);
    store_layers_free(r->layers, r->nl);
    store_outputs_free(r->outs, r->no);
    store_accuracy_free(r->acc, r->na);
    store_npu_rows_free(r->npu, r->nnpu);
    free(r->layer_acc);
    store_run_clear(&r->run);
    free(r);
}

/* ---- the view ----------------------------------------------------------------- */

enum { C_IDX, C_ID, C_OP, C_TARGET, C_DTYPE, C_SHAPE, C_PRED, C_SHARE, C_PCT, C_NPU, C_DDR, C_BOUND,
       C_MAC, C_RW, C_SRAM, C_HOST, C_ECOS, C_EEUC, C_SCOS, C_SEUC, C_NAME, C_REASON, N_COLS };

static const tui_col cols[N_COLS] = {
    [C_IDX] = {"#", 4, TCOL_NUM, 1},          [C_ID] = {"ID", 4, TCOL_NUM, 1}, /* the level-4 table's */
    [C_OP] = {"op", 14, TCOL_TEXT, 0},
    [C_TARGET] = {"tgt", 4, TCOL_TEXT, 0},    [C_DTYPE] = {"dtype", 7, TCOL_TEXT, 0},
    [C_SHAPE] = {"out shape", 16, TCOL_TEXT, 0}, [C_PRED] = {"pred us", 8, TCOL_NUM, 1},
    [C_SHARE] = {"share", 10, TCOL_BAR, 0},   /* full bar: the largest layer's share */   [C_PCT] = {"%", 5, TCOL_NUM, 1},
    [C_NPU] = {"NPU cyc", 9, TCOL_NUM, 1},    [C_DDR] = {"DDR cyc", 9, TCOL_NUM, 1},
    [C_BOUND] = {"bound", 7, TCOL_TEXT, 0},   [C_MAC] = {"MAC%", 5, TCOL_NUM, 1},
    [C_RW] = {"RW KB", 8, TCOL_NUM, 1},       [C_SRAM] = {"SRAM KB", 7, TCOL_NUM, 1},
    [C_HOST] = {"host us", 8, TCOL_NUM, 1},   [C_ECOS] = {"e.cos", 8, TCOL_NUM, 1},
    [C_EEUC] = {"e.euc", 9, TCOL_NUM, 1},     [C_SCOS] = {"s.cos", 8, TCOL_NUM, 1},
    [C_SEUC] = {"s.euc", 9, TCOL_NUM, 1},     [C_NAME] = {"tensor", 24, TCOL_TEXT, 0},
    [C_REASON] = {"CPU fallback reason", 30, TCOL_TEXT, 0},
};

static const tui_key keys[] = {
    {"Enter / double-click", "the layer's detail: every stored field, its error curve"},
    {"C", "only CPU-fallback layers (again: all)"},
    {"D", "only DDR-bound layers (again: all)"},
    {"<", "only layers whose entire cos is below a threshold (again: all)"},
    {"e", "jump to the first layer where the error starts (entire cos < threshold)"},
    {"w", "jump to the layer with the worst single cos"},
    {"i", "the run's summary (as `show` prints it)"},
    {"l", "the run's NPU load over time"},
};

typedef struct item {
    int li, ai;                 /* layer row, error row; -1 none */
} item;

typedef struct layers_view {
    tui_view v;
    tui *t;
    tui_run *r;
    item *items;
    int n;
    double frame_us;            /* what the share column divides by */
    double max_share;           /* the bar's full length: the largest layer's share */
    int only_cpu, only_ddr;
    double below;               /* cos filter, NaN off */
    tui_col cols[N_COLS];       /* the time columns say whose time they show */
    tui_table tb;
} layers_view;

static const store_layer *lay(const layers_view *lv, int row)
{
    return lv->items[row].li >= 0 ? &lv->r->layers[lv->items[row].li] : NULL;
}

static const store_accuracy *accr(const layers_view *lv, int row)
{
    return lv->items[row].ai >= 0 ? &lv->r->acc[lv->items[row].ai] : NULL;
}

static double pred_us(const store_layer *l)
{
    return !l ? NAN : !isnan(l->frame_us) ? l->frame_us : l->time_us;
}

static int is_cpu(const store_layer *l)
{
    return l && l->target && !strcasecmp(l->target, "CPU");
}

static double num(void *ctx, int row, int col)
{
    const layers_view *lv = ctx;
    const store_layer *l = lay(lv, row);
    const store_accuracy *a = accr(lv, row);
#define I(v) ((v) == STORE_NULL_INT ? NAN : (double)(v))
    switch (col) {
    case C_IDX: return l ? (double)l->idx : a ? (double)a->layer : NAN;
    case C_ID: return l ? I(l->table_id) : NAN;
    case C_PRED: case C_SHARE: return pred_us(l);
    case C_PCT: return lv->frame_us > 0 ? pred_us(l) / lv->frame_us * 100 : NAN;
    case C_NPU: return l ? I(l->npu_cycles) : NAN;
    case C_DDR: return l ? I(l->ddr_cycles) : NAN;
    case C_MAC: return l ? l->mac_usage : NAN;
    case C_RW: return l ? l->rw_kb : NAN;
    case C_SRAM: return l ? l->sram_hit / 1024 : NAN;
    case C_HOST: return l ? l->host_us : NAN;
    case C_ECOS: return a ? a->entire.cos : NAN;
    case C_EEUC: return a ? a->entire.euc : NAN;
    case C_SCOS: return a ? a->single.cos : NAN;
    case C_SEUC: return a ? a->single.euc : NAN;
    }
#undef I
    return NAN;
}

static void cell(void *ctx, int row, int col, char *buf, size_t len, int *color, double *frac)
{
    const layers_view *lv = ctx;
    const store_layer *l = lay(lv, row);
    const store_accuracy *a = accr(lv, row);
    double v = num(ctx, row, col);
    int bound_ddr = l && l->bound && !strcasecmp(l->bound, "DDR");
    int bound_compute = l && l->bound && !strcasecmp(l->bound, "compute");
    switch (col) {
    case C_IDX: case C_ID: tui_num(buf, len, v, "%.0f"); break;
    case C_OP: snprintf(buf, len, "%s", l && l->op ? l->op : a && a->op ? a->op : "-"); break;
    case C_TARGET: snprintf(buf, len, "%s", l && l->target ? l->target : "-"); break;
    case C_DTYPE:
        snprintf(buf, len, "%s", l && l->npu_dtype ? l->npu_dtype : l && l->dtype ? l->dtype : "-");
        break;
    case C_SHAPE: snprintf(buf, len, "%s", l && l->out_shapes ? l->out_shapes : "-"); break;
    case C_PRED: tui_num(buf, len, v, v < 100 ? "%.2f" : "%.1f"); break;
    case C_SHARE:
        *frac = lv->frame_us > 0 && !isnan(v) && lv->max_share > 0 ? v / lv->frame_us / lv->max_share : 0;
        *color = is_cpu(l) ? TC_NORMAL : TC_BAR;
        break;
    case C_PCT: tui_num(buf, len, v, "%.1f"); break;
    case C_NPU:
        tui_num(buf, len, v, "%.0f");
        if (bound_compute)
            *color = TC_COMPUTE;
        break;
    case C_DDR:
        tui_num(buf, len, v, "%.0f");
        if (bound_ddr)
            *color = TC_DDR;
        break;
    case C_BOUND:
        snprintf(buf, len, "%s", l && l->bound ? l->bound : "-");
        *color = bound_ddr ? TC_DDR : bound_compute ? TC_COMPUTE : TC_NORMAL;
        break;
    case C_MAC: tui_num(buf, len, v, "%.1f"); break;
    case C_RW: tui_num(buf, len, v, "%.1f"); break;
    case C_SRAM: tui_num(buf, len, v, "%.1f"); break;
    case C_HOST: tui_num(buf, len, v, "%.1f"); break;
    case C_ECOS: case C_SCOS:
        if (!a) {
            snprintf(buf, len, "-");
        } else {
            metrics_fmt_cos(v, buf, len);
            *color = tui_cos_color(v, lv->t->thr);
        }
        break;
    case C_EEUC: case C_SEUC:
        if (!a)
            snprintf(buf, len, "-");
        else
            metrics_fmt_euc(v, buf, len);
        break;
    case C_NAME: snprintf(buf, len, "%s", l && l->name ? l->name : a && a->name ? a->name : "-"); break;
    case C_REASON: snprintf(buf, len, "%s", l && l->cpu_reason ? l->cpu_reason : ""); break;
    }
}

static int row_color(void *ctx, int row)
{
    return is_cpu(lay(ctx, row)) ? TC_CPU : TC_NORMAL;
}

static int keep(void *ctx, int row)
{
    const layers_view *lv = ctx;
    const store_layer *l = lay(lv, row);
    const store_accuracy *a = accr(lv, row);
    if (lv->only_cpu && !summary_is_fallback(&lv->r->sum, l))
        return 0;
    if (lv->only_ddr && !(l && l->bound && !strcasecmp(l->bound, "DDR")))
        return 0;
    if (!isnan(lv->below) && !(a && !isnan(a->entire.cos) && a->entire.cos < lv->below))
        return 0;
    return 1;
}

static void build_items(layers_view *lv)
{
    const tui_run *r = lv->r;
    char *used = xcalloc((size_t)(r->na ? r->na : 1), 1);
    lv->items = xcalloc((size_t)(r->nl + r->na + 1), sizeof(item));
    /* graph inputs first, then the layers, then error rows no layer has */
    for (int i = 0; i < r->nl; i++)
        if (r->layer_acc[i] >= 0)
            used[r->layer_acc[i]] = 1;
    for (int i = 0; i < r->na; i++)
        if (!used[i] && r->acc[i].layer < 0)
            lv->items[lv->n++] = (item){ -1, i }, used[i] = 1;
    for (int i = 0; i < r->nl; i++)
        lv->items[lv->n++] = (item){ i, r->layer_acc[i] };
    for (int i = 0; i < r->na; i++)
        if (!used[i])
            lv->items[lv->n++] = (item){ -1, i };
    free(used);
    lv->frame_us = r->sum.frame_us;
    if (!(lv->frame_us > 0)) {
        double s = 0;
        for (int i = 0; i < r->nl; i++)
            if (!isnan(pred_us(&r->layers[i])))
                s += pred_us(&r->layers[i]);
        lv->frame_us = s > 0 ? s : NAN;
    }
    for (int i = 0; i < r->nl; i++) {
        double sh = pred_us(&r->layers[i]) / lv->frame_us;
        if (sh > lv->max_share)
            lv->max_share = sh;
    }
}

static void draw(tui *t, tui_view *v, int y0, int h)
{
    layers_view *lv = (layers_view *)v;
    const tui_run *r = lv->r;
    const run_summary *s = &r->sum;
    char buf[1024], a[32], b[32], c[32], d[32];
    snprintf(buf, sizeof(buf), " run #%lld%s%s  %s  %s  %s  %d layers  predicted frame %s ms  "
             "(compute %s%%, DDR %s%%, CPU %s%%)  %d CPU fallback%s",
             (long long)r->run.id, r->run.label ? " " : "", r->run.label ? r->run.label : "",
             r->run.model_path ? r->run.model_path : "-", r->run.platform ? r->run.platform : "-",
             r->run.quant ? r->run.quant : "-", r->nl, tui_num(a, sizeof(a), s->frame_us / 1e3, "%.3f"),
             tui_num(b, sizeof(b), s->share_pct[0], "%.0f"), tui_num(c, sizeof(c), s->share_pct[1], "%.0f"),
             tui_num(d, sizeof(d), s->share_pct[2], "%.0f"), s->n_fallback, s->n_fallback == 1 ? "" : "s");
    tui_text(y0, 0, COLS, buf, A_BOLD, 0, 1);
    snprintf(buf, sizeof(buf), " %d of %d rows%s%s%s", lv->tb.n_shown, lv->n,
             lv->only_cpu ? "  [CPU fallbacks only]" : "", lv->only_ddr ? "  [DDR-bound only]" : "",
             lv->tb.search[0] ? "  [search]" : "");
    if (!isnan(lv->below))
        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "  [entire cos < %g]", lv->below);
    if (s->n_acc && s->first_below >= 0)
        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "  error starts at %s (e)",
                 r->acc[s->first_below].name);
    tui_text(y0 + 1, 0, COLS, buf, tui_attr(t, TC_DIM), 0, 1);
    tui_table_draw(t, &lv->tb, y0 + 2, h - 3);

    /* the current row, in words */
    int row = tui_table_current(&lv->tb);
    buf[0] = '\0';
    if (row >= 0) {
        const store_layer *l = lay(lv, row);
        const store_accuracy *ac = accr(lv, row);
        if (summary_is_fallback(&lv->r->sum, l))
            snprintf(buf, sizeof(buf), " CPU fallback [%s]: %s  (%s us, %s%% of the frame)  %s",
                     l->op ? l->op : "-", l->cpu_reason ? l->cpu_reason : "no reason recorded",
                     tui_num(a, sizeof(a), pred_us(l), "%.1f"),
                     tui_num(b, sizeof(b), lv->frame_us > 0 ? pred_us(l) / lv->frame_us * 100 : NAN, "%.1f"),
                     l->name ? l->name : "-");
        else if (l)
            snprintf(buf, sizeof(buf), " [%s] %s  on %s%s%s, %s-bound  in %s  out %s", l->op ? l->op : "-",
                     l->name ? l->name : "-", l->target ? l->target : "-", l->npu_op ? " as " : "",
                     l->npu_op ? l->npu_op : "", l->bound ? l->bound : "-", l->in_shapes ? l->in_shapes : "-",
                     l->out_shapes ? l->out_shapes : "-");
        else if (ac)
            snprintf(buf, sizeof(buf), " [%s] %s  entire cos %s  single cos %s", ac->op ? ac->op : "-",
                     ac->name, metrics_fmt_cos(ac->entire.cos, a, sizeof(a)),
                     metrics_fmt_cos(ac->single.cos, b, sizeof(b)));
    }
    int cpu = row >= 0 && summary_is_fallback(&lv->r->sum, lay(lv, row));
    tui_text(y0 + h - 1, 0, COLS, buf, cpu ? tui_attr(t, TC_CPU) : A_BOLD, 0, 1);
}

static int layer_row_of_acc(const layers_view *lv, int ai)
{
    for (int i = 0; i < lv->n; i++)
        if (lv->items[i].ai == ai)
            return i;
    return -1;
}

static void jump_to(tui *t, layers_view *lv, int row, const char *what)
{
    if (row < 0) {
        tui_status(t, 0, "no %s in this run", what);
        return;
    }
    if (!keep(lv, row) || lv->tb.search[0]) {
        lv->only_cpu = lv->only_ddr = 0;
        lv->below = NAN;
        lv->tb.search[0] = '\0';
        tui_table_refresh(&lv->tb);
    }
    tui_table_goto_row(&lv->tb, row);
    tui_status(t, 0, "%s", what);
}

static void open_detail(tui *t, layers_view *lv)
{
    int row = tui_table_current(&lv->tb);
    if (row >= 0)
        tui_push(t, tui_detail_view(t, lv->r, lv->items[row].li, lv->items[row].ai));
}

static int key(tui *t, tui_view *v, int ch)
{
    layers_view *lv = (layers_view *)v;
    char buf[64], err[512];
    if (tui_table_key(t, &lv->tb, ch) == TUI_HANDLED)
        return TUI_HANDLED;
    switch (ch) {
    case '\n': case '\r': case KEY_ENTER:
        open_detail(t, lv);
        return TUI_HANDLED;
    case 'C':
        lv->only_cpu = !lv->only_cpu;
        tui_table_refresh(&lv->tb);
        if (lv->only_cpu && !lv->tb.n_shown)
            tui_status(t, 0, "no CPU-fallback layer in this run");
        return TUI_HANDLED;
    case 'D':
        lv->only_ddr = !lv->only_ddr;
        tui_table_refresh(&lv->tb);
        return TUI_HANDLED;
    case '<':
        if (!isnan(lv->below)) {
            lv->below = NAN;
        } else {
            snprintf(buf, sizeof(buf), "%g", lv->t->thr);
            if (!tui_prompt(t, "entire cos below: ", buf, sizeof(buf)))
                return TUI_HANDLED;
            char *end;
            double x = strtod(buf, &end);
            if (end == buf || *end || x < -1 || x > 1) {
                tui_status(t, 1, "a cosine is a number in [-1, 1], got '%s'", buf);
                return TUI_HANDLED;
            }
            lv->below = x;
        }
        tui_table_refresh(&lv->tb);
        return TUI_HANDLED;
    case 'e':
        if (!lv->r->na) {
            tui_status(t, 0, "this run has no per-layer error (record one with -q i8|fp16)");
            return TUI_HANDLED;
        }
        snprintf(err, sizeof(err), "the error starts here: first layer with entire cos < %g", t->thr);
        jump_to(t, lv, lv->r->sum.first_below >= 0 ? layer_row_of_acc(lv, lv->r->sum.first_below) : -1,
                lv->r->sum.first_below >= 0 ? err : "layer below the threshold");
        return TUI_HANDLED;
    case 'w':
        jump_to(t, lv, lv->r->sum.worst_single >= 0 ? layer_row_of_acc(lv, lv->r->sum.worst_single) : -1,
                lv->r->sum.worst_single >= 0 ? "worst single cos" : "per-layer error");
        return TUI_HANDLED;
    case 'i':
        tui_push(t, tui_summary_view(t, lv->r));
        return TUI_HANDLED;
    case 'l': {
        tui_view *ld = NULL;
        if (tui_load_view(t, lv->r, &ld, err, sizeof(err)))
            tui_status(t, 1, "%s", err);
        else
            tui_push(t, ld);
        return TUI_HANDLED;
    }
    }
    return TUI_UNHANDLED;
}

static void mouse(tui *t, tui_view *v, const MEVENT *ev)
{
    layers_view *lv = (layers_view *)v;
    if (tui_table_mouse(t, &lv->tb, ev) == 2)
        open_detail(t, lv);
}

static void destroy(tui_view *v)
{
    layers_view *lv = (layers_view *)v;
    tui_table_free(&lv->tb);
    free(lv->items);
    tui_run_free(lv->r);
    free(lv);
}

tui_view *tui_layers_view(tui *t, tui_run *r)
{
    layers_view *lv = xcalloc(1, sizeof(*lv));
    lv->v = (tui_view){ .name = "layers", .draw = draw, .key = key, .mouse = mouse, .destroy = destroy,
                        .keys = keys, .n_keys = (int)(sizeof(keys) / sizeof(keys[0])),
                        .table = 1 };
    lv->t = t;
    lv->r = r;
    lv->below = NAN;
    build_items(lv);
    /* a board's table holds measured times; a simulated run's (the simulated
     * library's too), the NPU model's: the summary's provenance says which */
    int board = r->sum.prov.table == PROV_BOARD;
    memcpy(lv->cols, cols, sizeof(cols));
    lv->cols[C_PRED].title = board ? "board us" : "pred us";
    tui_table_init(&lv->tb, lv->cols, N_COLS, 3, lv->n, lv); /* #, ID and op stay */
    lv->tb.cell = cell;
    lv->tb.num = num;
    lv->tb.keep = keep;
    lv->tb.row_color = row_color;
    tui_table_refresh(&lv->tb);
    return &lv->v;
}
