/* analyze/compare_perf.c — predicted vs measured: a board run's per-layer table
 * against the NPU model's prediction of the same model, layer by layer. */
#include "analyze/analyze.h"
#include "analyze/compare_doc.h"
#include "runtime/npu/npu.h"
#include "util/escape.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int known(int64_t v)
{
    return v != STORE_NULL_INT;
}

int perfcmp_side(const store_run *run)
{
    int b = store_backend_of(run->backend);
    return b == BACKEND_BOARD ? 1 : b == BACKEND_SIM || b == BACKEND_PREDICT ? 0 : -1;
}

/* One side's layers: rows with figures, each named by the first row it covers
 * (a predicted run keeps a fused layer's figures on its last node). */
typedef struct layer_ref {
    int row;                 /* the row with the figures */
    char *fullname;          /* NULL: unnamed */
    const char *op;
    char shape[64];          /* first output shape in the 4-D view, "" unknown */
    int pair;                /* the other side's layer_ref, -1 none */
    int by_shape;
} layer_ref;

static char *full_name(const store_layer *l)
{
    size_t n, k;
    char *s;

    if (!l->op || !l->node)
        return l->name && strchr(l->name, ':') ? xstrdup(l->name) : NULL;
    /* a vendor .rknn's rows hold "<op>:<name>" in node already */
    k = strlen(l->op);
    if (!strncmp(l->node, l->op, k) && l->node[k] == ':')
        return xstrdup(l->node);
    n = k + strlen(l->node) + 2;
    s = xmalloc(n);
    snprintf(s, n, "%s:%s", l->op, l->node);
    return s;
}

/* "[[1,32,320,320],[...]]" -> "1,32,320,320" */
static void first_shape(const char *json, char *buf, size_t len)
{
    const char *a, *b;

    buf[0] = 0;
    if (!json || !(a = strchr(json, '[')))
        return;
    if (a[1] == '[')
        a++;
    if (!(b = strchr(a + 1, ']')) || (size_t)(b - a) >= len)
        return;
    snprintf(buf, len, "%.*s", (int)(b - a - 1), a + 1);
}

static layer_ref *collect(const store_layer *rows, int n, int *count)
{
    layer_ref *r = xcalloc((size_t)(n ? n : 1), sizeof(*r));
    int m = 0;
    char nm[512];

    for (int i = 0; i < n; i++) {
        const store_layer *l = &rows[i];
        if (!store_layer_has_cycles_or_time(l))
            continue;
        r[m].row = i;
        /* the name every surface gives the layer (store_layer_fullname) */
        r[m].fullname = l->op && l->node ? xstrdup(store_layer_fullname(rows, i, nm, sizeof nm))
                                         : full_name(l);
        r[m].op = l->npu_op ? l->npu_op : l->op;
        /* in the compiler's 4-D view: a board's table prints (1,128,1,1) where
         * the model's row holds the ONNX (1,128) */
        char v4[160];
        first_shape(compare_shapes_4d(l->out_shapes, v4, sizeof v4), r[m].shape, sizeof(r[m].shape));
        r[m].pair = -1;
        m++;
    }
    *count = m;
    return r;
}

static void refs_free(layer_ref *r, int n)
{
    for (int i = 0; r && i < n; i++)
        free(r[i].fullname);
    free(r);
}

/* ---- a string -> layer index hash (chained through next[]) ---- */

static uint32_t hash_str(const char *a, const char *b)
{
    uint32_t h = 2166136261u;
    for (; *a; a++)
        h = (h ^ (unsigned char)*a) * 16777619u;
    h = (h ^ 0xff) * 16777619u;
    for (; b && *b; b++)
        h = (h ^ (unsigned char)*b) * 16777619u;
    return h;
}

typedef struct index {
    int *head, *next;
    uint32_t mask;
} index_t;

static void index_init(index_t *x, int n)
{
    uint32_t size = 16;
    while (size < (uint32_t)n * 2)
        size <<= 1;
    x->mask = size - 1;
    x->head = xmalloc(size * sizeof(int));
    memset(x->head, 0xff, size * sizeof(int));
    x->next = xmalloc((size_t)(n ? n : 1) * sizeof(int));
}

static void index_free(index_t *x)
{
    free(x->head);
    free(x->next);
}

/* Inserted in reverse order so that chains list the earliest layer first. */
static void index_add(index_t *x, int i, uint32_t h)
{
    uint32_t b = h & x->mask;
    x->next[i] = x->head[b];
    x->head[b] = i;
}

static int pair_by_name(layer_ref *b, int nb, layer_ref *m, int nm)
{
    index_t x;
    int pairs = 0;

    index_init(&x, nb);
    for (int i = nb - 1; i >= 0; i--)
        if (b[i].fullname)
            index_add(&x, i, hash_str(b[i].fullname, NULL));
    for (int j = 0; j < nm; j++) {
        if (!m[j].fullname)
            continue;
        for (int i = x.head[hash_str(m[j].fullname, NULL) & x.mask]; i >= 0; i = x.next[i])
            if (b[i].pair < 0 && !strcmp(b[i].fullname, m[j].fullname)) {
                b[i].pair = j, m[j].pair = i;
                pairs++;
                break;
            }
    }
    index_free(&x);
    return pairs;
}

/* The layers left, as the k-th unpaired (OpType, shape) of one side with the
 * k-th of the other, in execution order. */
static int pair_by_shape(layer_ref *b, int nb, layer_ref *m, int nm)
{
    index_t x;
    int pairs = 0;

    index_init(&x, nb);
    for (int i = nb - 1; i >= 0; i--)
        if (b[i].pair < 0 && b[i].op && b[i].shape[0])
            index_add(&x, i, hash_str(b[i].op, b[i].shape));
    for (int j = 0; j < nm; j++) {
        if (m[j].pair >= 0 || !m[j].op || !m[j].shape[0])
            continue;
        for (int i = x.head[hash_str(m[j].op, m[j].shape) & x.mask]; i >= 0; i = x.next[i])
            if (b[i].pair < 0 && !strcmp(b[i].op, m[j].op) && !strcmp(b[i].shape, m[j].shape)) {
                b[i].pair = j, m[j].pair = i;
                b[i].by_shape = m[j].by_shape = 1;
                pairs++;
                break;
            }
    }
    index_free(&x);
    return pairs;
}

static void figures(const store_layer *l, double f[PERFCMP_NFIG])
{
    f[PERFCMP_TIME] = l->time_us;
    f[PERFCMP_NPU] = known(l->npu_cycles) ? (double)l->npu_cycles : NAN;
    f[PERFCMP_DDR] = known(l->ddr_cycles) ? (double)l->ddr_cycles : NAN;
}

static double err_pct(double board, double model)
{
    if (isnan(board) || isnan(model) || board == 0)
        return NAN;
    return (model - board) / board * 100.0;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int by_err_us(const void *a, const void *b, void *ctx)
{
    const perfcmp_row *r = ctx;
    double x = fabs(r[*(const int *)a].err_us), y = fabs(r[*(const int *)b].err_us);
    if (x != y)
        return x < y ? 1 : -1;
    return *(const int *)a - *(const int *)b;
}

static void summarize(perfcmp_result *r)
{
    double *v = xmalloc((size_t)(r->n_rows ? r->n_rows : 1) * sizeof(double));
    int *order = xmalloc((size_t)(r->n_rows ? r->n_rows : 1) * sizeof(int)), n_order = 0;
    double *fa = xmalloc((size_t)(r->n_rows ? r->n_rows : 1) * sizeof(double));
    double *fb = xmalloc((size_t)(r->n_rows ? r->n_rows : 1) * sizeof(double));

    for (int k = 0; k < PERFCMP_NFIG; k++) {
        int n = 0;
        double worst = -1;
        r->worst[k] = -1;
        r->sum[0][k] = r->sum[1][k] = 0;
        for (int i = 0; i < r->n_rows; i++) {
            const perfcmp_row *w = &r->rows[i];
            if (w->layer[0] < 0 || w->layer[1] < 0 || isnan(w->fig[0][k]) || isnan(w->fig[1][k]))
                continue;
            /* totals only over layers the board counts: a board prints 0
             * for what it does not measure (DDR cycles of a non-conv layer) */
            if (isnan(w->err_pct[k]))
                continue;
            r->sum[0][k] += w->fig[0][k];
            r->sum[1][k] += w->fig[1][k];
            fa[n] = w->fig[0][k], fb[n] = w->fig[1][k];
            v[n++] = fabs(w->err_pct[k]);
            if (fabs(w->err_pct[k]) > worst)
                worst = fabs(w->err_pct[k]), r->worst[k] = i;
        }
        r->n_err[k] = n;
        qsort(v, (size_t)n, sizeof(double), cmp_dbl);
        r->median_abs_pct[k] = !n ? NAN : n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        r->total_err_pct[k] = err_pct(r->sum[0][k], r->sum[1][k]);
        r->has_factor[k] = cmp_factor(fa, fb, n, 0.05, &r->factor[k], &r->factor_share[k]);
    }
    free(fa);
    free(fb);
    for (int i = 0; i < r->n_rows; i++) {
        const perfcmp_row *w = &r->rows[i];
        if (w->layer[0] >= 0 && w->layer[1] >= 0 && w->bound[0] && w->bound[1]) {
            r->bound_known++;
            r->bound_agree += !strcmp(w->bound[0], w->bound[1]);
        }
        if (!isnan(w->err_us))
            order[n_order++] = i;
    }
    qsort_r(order, (size_t)n_order, sizeof(int), by_err_us, r->rows);
    r->n_top = n_order < PERFCMP_TOP ? n_order : PERFCMP_TOP;
    memcpy(r->top, order, (size_t)r->n_top * sizeof(int));
    free(order);
    free(v);
}

static void fill_row(perfcmp_row *w, const layer_ref *b, const store_layer *bl, const layer_ref *m,
                     const store_layer *ml)
{
    w->layer[0] = b ? b->row : -1;
    w->layer[1] = m ? m->row : -1;
    w->fullname = b && b->fullname ? b->fullname : m ? m->fullname : NULL;
    w->op = b && b->op ? b->op : m ? m->op : NULL;
    w->by_shape = b ? b->by_shape : 0;
    for (int s = 0; s < 2; s++) {
        const store_layer *l = s == 0 ? (b ? &bl[b->row] : NULL) : (m ? &ml[m->row] : NULL);
        for (int k = 0; k < PERFCMP_NFIG; k++)
            w->fig[s][k] = NAN;
        w->bound[s] = NULL;
        w->idx[s] = l ? l->idx : -1;
        if (l) {
            figures(l, w->fig[s]);
            w->bound[s] = l->bound;
        }
    }
    for (int k = 0; k < PERFCMP_NFIG; k++)
        w->err_pct[k] = err_pct(w->fig[0][k], w->fig[1][k]);
    w->err_us = isnan(w->fig[0][PERFCMP_TIME]) || isnan(w->fig[1][PERFCMP_TIME])
                    ? NAN : w->fig[1][PERFCMP_TIME] - w->fig[0][PERFCMP_TIME];
}

/* A clock the run recorded (the clocks its prediction used), else the
 * chip's (what the model assumes), else -1. */
static int run_clock(const store_run *r, int ddr)
{
    int64_t v = ddr ? r->ddr_clock_mhz : r->npu_clock_mhz;
    if (v >= 0 && v <= INT32_MAX)
        return (int)v;
    const npu_platform_t *p = r->platform ? npu_platform_find(r->platform) : NULL;
    return p ? (ddr ? p->ddr_mhz : p->npu_mhz) : -1;
}

static void factor_hints(perfcmp_result *r)
{
    static const char *const cols[PERFCMP_NFIG] = { "time", "NPU cycles", "DDR cycles" };
    int npu[2], ddr[2], cores[2];
    for (int s = 0; s < 2; s++) {
        const npu_platform_t *p = r->run[s]->platform ? npu_platform_find(r->run[s]->platform) : NULL;
        npu[s] = run_clock(r->run[s], 0);
        ddr[s] = run_clock(r->run[s], 1);
        cores[s] = p ? p->cores : -1;
    }
    for (int k = 0; k < PERFCMP_NFIG; k++)
        if (r->has_factor[k])
            cmp_factor_hint(cols[k], r->factor[k], npu, ddr, cores, r->factor_hint[k],
                            sizeof(r->factor_hint[k]));
}

int perfcmp_compute(const store_run *board, const store_layer *bl, int nb,
                    const store_run *model, const store_layer *ml, int nm, perfcmp_result *out,
                    char *err, size_t errlen)
{
    layer_ref *b = NULL, *m = NULL;
    int n_b = 0, n_m = 0, rc = RT_OK;

    memset(out, 0, sizeof(*out));
    out->run[0] = board, out->run[1] = model;
    b = collect(bl, nb, &n_b);
    m = collect(ml, nm, &n_m);
    if (!n_b || !n_m) {
        const store_run *r = !n_b ? board : model;
        rc = rt_err(err, errlen, RT_EINVAL, "run #%lld has no per-layer cycles or times to compare",
                    (long long)r->id);
        goto out;
    }
    out->n_board = n_b, out->n_model = n_m;
    out->n_by_name = pair_by_name(b, n_b, m, n_m);
    out->n_by_shape = pair_by_shape(b, n_b, m, n_m);
    out->rows = xcalloc((size_t)(n_b + n_m), sizeof(*out->rows));
    for (int i = 0; i < n_b; i++) {
        fill_row(&out->rows[out->n_rows++], &b[i], bl, b[i].pair >= 0 ? &m[b[i].pair] : NULL, ml);
        out->n_board_only += b[i].pair < 0;
    }
    for (int j = 0; j < n_m; j++)
        if (m[j].pair < 0) {
            fill_row(&out->rows[out->n_rows++], NULL, bl, &m[j], ml);
            out->n_model_only++;
        }
    /* the rows borrow the names: hand them over */
    for (int i = 0; i < out->n_rows; i++) {
        perfcmp_row *w = &out->rows[i];
        w->fullname = w->fullname ? xstrdup(w->fullname) : NULL;
    }
    summarize(out);
    factor_hints(out);
out:
    refs_free(b, n_b);
    refs_free(m, n_m);
    return rc;
}

void perfcmp_free(perfcmp_result *r)
{
    for (int i = 0; r->rows && i < r->n_rows; i++)
        free((char *)r->rows[i].fullname);
    free(r->rows);
    memset(r, 0, sizeof(*r));
}

/* ---- rendering ---- */

/* A stored name on a terminal line (util/escape.h). */
static const char *tt(const char *s)
{
    return esc_tmp(ESC_TERM, s);
}

/* "board  run #3 label (model path, platform)" */
static void print_run(FILE *f, const char *side, const store_run *r)
{
    fprintf(f, "%-6s run #%lld%s%s (%s, %s)\n", side, (long long)r->id, r->label ? " " : "",
            tt(r->label), r->model_path ? tt(r->model_path) : "model not recorded",
            r->platform ? tt(r->platform) : "platform not recorded");
}

static const char *const fig_names[PERFCMP_NFIG] = {"time", "NPU cycles", "DDR cycles"};

void perfcmp_print(const perfcmp_result *r, FILE *f)
{
    char a[32], b[32], c[32], d[32], e[32], g[32], h[32], i9[32], j[32];

    print_run(f, "board", r->run[0]);
    print_run(f, "model", r->run[1]);
    fprintf(f, "layers: board %d, model %d; paired by FullName %d, by OpType and shape %d; "
            "board only %d, model only %d\n\n", r->n_board, r->n_model, r->n_by_name, r->n_by_shape,
            r->n_board_only, r->n_model_only);
    fprintf(f, "%-4s %-16s %-40s %10s %10s %7s %10s %10s %7s %9s %9s %7s %-7s %-7s\n", "ID", "OpType",
            "FullName", "NPU board", "NPU model", "err%", "DDR board", "DDR model", "err%",
            "us board", "us model", "err%", "bound B", "bound M");
    for (int k = 0; k < r->n_rows; k++) {
        const perfcmp_row *w = &r->rows[k];
        char id[16];
        if (w->layer[0] >= 0)
            snprintf(id, sizeof id, "%lld", (long long)w->idx[0]);
        else
            snprintf(id, sizeof id, "-");
        fprintf(f, "%-4s %-16.16s %-40.40s %10s %10s %7s %10s %10s %7s %9s %9s %7s %-7s %-7s%s\n",
                id, w->op ? tt(w->op) : "-", w->fullname ? tt(w->fullname) : "-",
                summary_fmt(a, sizeof a, w->fig[0][PERFCMP_NPU], "%.0f"),
                summary_fmt(b, sizeof b, w->fig[1][PERFCMP_NPU], "%.0f"),
                summary_fmt(c, sizeof c, w->err_pct[PERFCMP_NPU], "%+.1f"),
                summary_fmt(d, sizeof d, w->fig[0][PERFCMP_DDR], "%.0f"),
                summary_fmt(e, sizeof e, w->fig[1][PERFCMP_DDR], "%.0f"),
                summary_fmt(g, sizeof g, w->err_pct[PERFCMP_DDR], "%+.1f"),
                summary_fmt(h, sizeof h, w->fig[0][PERFCMP_TIME], "%.0f"),
                summary_fmt(i9, sizeof i9, w->fig[1][PERFCMP_TIME], "%.1f"),
                summary_fmt(j, sizeof j, w->err_pct[PERFCMP_TIME], "%+.1f"),
                w->bound[0] ? tt(w->bound[0]) : "-", w->bound[1] ? tt(w->bound[1]) : "-",
                w->layer[0] < 0 ? "  (model only)" : w->layer[1] < 0 ? "  (board only)"
                : w->by_shape ? "  (by shape)" : "");
    }
    fprintf(f, "\nerror of the model vs the board over %d paired layers:\n", r->n_by_name + r->n_by_shape);
    for (int k = 0; k < PERFCMP_NFIG; k++) {
        const perfcmp_row *w = r->worst[k] >= 0 ? &r->rows[r->worst[k]] : NULL;
        fprintf(f, "  %-10s median |err| %s%%, worst %s%% (%s), total %s%% (board %s, model %s; %d layers)\n",
                fig_names[k], summary_fmt(a, sizeof a, r->median_abs_pct[k], "%.1f"),
                summary_fmt(b, sizeof b, w ? w->err_pct[k] : NAN, "%+.1f"),
                w && w->fullname ? tt(w->fullname) : "-",
                summary_fmt(c, sizeof c, r->total_err_pct[k], "%+.1f"),
                summary_fmt(d, sizeof d, r->n_err[k] ? r->sum[0][k] : NAN, "%.0f"),
                summary_fmt(e, sizeof e, r->n_err[k] ? r->sum[1][k] : NAN, "%.0f"), r->n_err[k]);
    }
    for (int k = 0; k < PERFCMP_NFIG; k++)
        if (r->has_factor[k])
            fprintf(f, "  note: %s (%.0f%% of %d layers within 5%% of x%.3g)\n", r->factor_hint[k],
                    r->factor_share[k] * 100, r->n_err[k], r->factor[k]);
    if (r->bound_known)
        fprintf(f, "  bound      the same on %d of %d layers\n", r->bound_agree, r->bound_known);
    if (r->n_top) {
        fprintf(f, "layers the model gets most wrong (time):\n");
        for (int k = 0; k < r->n_top; k++) {
            const perfcmp_row *w = &r->rows[r->top[k]];
            fprintf(f, "  %-16s %-40s board %s us, model %s us (%s us, %s%%)\n", w->op ? tt(w->op) : "-",
                    w->fullname ? tt(w->fullname) : "-", summary_fmt(a, sizeof a, w->fig[0][PERFCMP_TIME], "%.0f"),
                    summary_fmt(b, sizeof b, w->fig[1][PERFCMP_TIME], "%.0f"),
                    summary_fmt(c, sizeof c, w->err_us, "%+.0f"),
                    summary_fmt(d, sizeof d, w->err_pct[PERFCMP_TIME], "%+.1f"));
        }
    }
}

static void json_run(json_writer *w, const store_run *r)
{
    json_obj_open(w);
    json_key(w, "id"), json_int(w, r->id);
    json_key(w, "label"), json_str(w, r->label);
    json_key(w, "backend"), json_str(w, r->backend);
    json_key(w, "model"), json_str(w, r->model_path);
    json_key(w, "platform"), json_str(w, r->platform);
    json_obj_close(w);
}

static const char *const fig_keys[PERFCMP_NFIG] = {"time_us", "npu_cycles", "ddr_cycles"};

void perfcmp_json(const perfcmp_result *r, json_writer *w)
{
    json_obj_open(w);
    json_key(w, "schema_version"), json_int(w, SUMMARY_SCHEMA_VERSION);
    json_key(w, "kind"), json_str(w, "compare_perf");
    json_key(w, "board"), json_run(w, r->run[0]);
    json_key(w, "model"), json_run(w, r->run[1]);
    json_key(w, "layers");
    json_arr_open(w);
    for (int i = 0; i < r->n_rows; i++) {
        const perfcmp_row *x = &r->rows[i];
        json_obj_open(w);
        json_key(w, "fullname"), json_str(w, x->fullname);
        json_key(w, "op"), json_str(w, x->op);
        json_key(w, "paired_by"), json_str(w, x->layer[0] < 0 || x->layer[1] < 0 ? NULL
                                              : x->by_shape ? "shape" : "name");
        for (int s = 0; s < 2; s++) {
            json_key(w, s ? "model" : "board");
            if (x->layer[s] < 0) {
                json_write_null(w);
                continue;
            }
            json_obj_open(w);
            json_key(w, "row"), json_int(w, x->layer[s]);
            for (int k = 0; k < PERFCMP_NFIG; k++)
                json_key(w, fig_keys[k]), json_num(w, x->fig[s][k]);
            json_key(w, "bound"), json_str(w, x->bound[s]);
            json_obj_close(w);
        }
        json_key(w, "err_pct");
        json_obj_open(w);
        for (int k = 0; k < PERFCMP_NFIG; k++)
            json_key(w, fig_keys[k]), json_num(w, x->err_pct[k]);
        json_obj_close(w);
        json_key(w, "err_us"), json_num(w, x->err_us);
        json_obj_close(w);
    }
    json_arr_close(w);
    json_key(w, "summary");
    json_obj_open(w);
    json_key(w, "board_layers"), json_int(w, r->n_board);
    json_key(w, "model_layers"), json_int(w, r->n_model);
    json_key(w, "paired_by_name"), json_int(w, r->n_by_name);
    json_key(w, "paired_by_shape"), json_int(w, r->n_by_shape);
    json_key(w, "board_only"), json_int(w, r->n_board_only);
    json_key(w, "model_only"), json_int(w, r->n_model_only);
    for (int k = 0; k < PERFCMP_NFIG; k++) {
        const perfcmp_row *x = r->worst[k] >= 0 ? &r->rows[r->worst[k]] : NULL;
        json_key(w, fig_keys[k]);
        json_obj_open(w);
        json_key(w, "layers"), json_int(w, r->n_err[k]);
        json_key(w, "median_abs_err_pct"), json_num(w, r->median_abs_pct[k]);
        json_key(w, "worst_err_pct"), json_num(w, x ? x->err_pct[k] : NAN);
        json_key(w, "worst_layer"), json_str(w, x ? x->fullname : NULL);
        json_key(w, "board_sum"), json_num(w, r->n_err[k] ? r->sum[0][k] : NAN);
        json_key(w, "model_sum"), json_num(w, r->n_err[k] ? r->sum[1][k] : NAN);
        json_key(w, "total_err_pct"), json_num(w, r->total_err_pct[k]);
        json_key(w, "factor"), json_num(w, r->has_factor[k] ? r->factor[k] : NAN);
        json_key(w, "factor_hint"), json_str(w, r->has_factor[k] ? r->factor_hint[k] : NULL);
        json_obj_close(w);
    }
    json_key(w, "bound_known"), json_int(w, r->bound_known);
    json_key(w, "bound_agree"), json_int(w, r->bound_agree);
    json_key(w, "most_wrong");
    json_arr_open(w);
    for (int k = 0; k < r->n_top; k++)
        json_int(w, r->top[k]);
    json_arr_close(w);
    json_obj_close(w);
    json_obj_close(w);
}
