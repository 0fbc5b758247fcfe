/* analyze/compare_doc.c — the comparison document of N runs (contract in
 * analyze/compare_doc.h). */
#include "analyze/compare_doc.h"
#include "util/util.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- runs ---------------------------------------------------------------------- */

void cmp_run_summarize(cmp_run *r, double cos_threshold)
{
    if (r->have_sum)
        summary_free(&r->sum);
    summary_compute(&r->run, r->layers, r->n_layers, r->npu, r->n_npu, r->outs, r->n_outs, r->acc,
                    r->n_acc, cos_threshold, &r->sum);
    r->have_sum = 1;
}

int cmp_run_load(store *st, const char *ref, double cos_threshold, cmp_run *r, char *err,
                 size_t errlen)
{
    int rc;
    memset(r, 0, sizeof(*r));
    if ((rc = store_get_run(st, ref, &r->run, err, errlen)))
        return rc;
    r->have_run = 1;
    if ((rc = store_get_layers(st, r->run.id, &r->layers, &r->n_layers, err, errlen)) ||
        (rc = store_get_outputs(st, r->run.id, &r->outs, &r->n_outs, err, errlen)) ||
        (rc = store_get_accuracy(st, r->run.id, &r->acc, &r->n_acc, err, errlen)) ||
        (rc = store_get_load(st, r->run.id, &r->load, &r->n_load, err, errlen)) ||
        (rc = store_get_npu_rows(st, r->run.id, &r->npu, &r->n_npu, err, errlen)))
        return rc;
    cmp_run_summarize(r, cos_threshold);
    return RT_OK;
}

void cmp_run_free(cmp_run *r)
{
    if (r->have_sum)
        summary_free(&r->sum);
    store_layers_free(r->layers, r->n_layers);
    store_outputs_free(r->outs, r->n_outs);
    store_accuracy_free(r->acc, r->n_acc);
    free(r->load);
    store_npu_rows_free(r->npu, r->n_npu);
    if (r->have_run)
        store_run_clear(&r->run);
    memset(r, 0, sizeof(*r));
}

int cmp_run_is_board(const cmp_run *r)
{
    return store_backend_of(r->run.backend) == BACKEND_BOARD;
}

double cmp_run_layer_us(const cmp_run *r, const store_layer *l)
{
    if (cmp_run_is_board(r) && !isnan(l->time_us))
        return l->time_us;
    return !isnan(l->frame_us) ? l->frame_us : l->time_us;
}

int cmp_layer_us_prov(const cmp_doc *d, int k)
{
    const run_provenance *p = &d->runs[k].sum.prov;
    if (d->by_host)
        return p->timing;
    if (cmp_run_is_board(&d->runs[k]))
        return p->table;
    return p->layer_frame != PROV_NONE ? p->layer_frame : p->table;
}

const char *cmp_layer_us_words(const cmp_doc *d, char *buf, size_t len)
{
    int same = 1;
    size_t u = 0;
    for (int k = 1; k < d->n; k++)
        same &= cmp_layer_us_prov(d, k) == cmp_layer_us_prov(d, 0);
    buf[0] = '\0';
    for (int k = 0; k < (same ? 1 : d->n) && u < len; k++)
        u += (size_t)snprintf(buf + u, len - u, "%s%s%s%s", k ? ", " : "", same ? "" : cmp_tag(k),
                              same ? "" : " ", provenance_words(cmp_layer_us_prov(d, k)));
    return buf;
}

double cmp_row_us(const cmp_doc *d, const cmp_row *row, int k)
{
    int li = row->layer[k];
    if (li < 0) { /* a level-4 row of its own: its frame share as a layer row's, no host time */
        if (row->npu[k] < 0 || d->by_host)
            return NAN;
        const store_npu_row *x = &d->runs[k].npu[row->npu[k]];
        return !isnan(x->frame_us) ? x->frame_us : x->time_us;
    }
    const store_layer *l = &d->runs[k].layers[li];
    return d->by_host ? l->host_us : cmp_run_layer_us(&d->runs[k], l);
}

const char *cmp_tag(int k)
{
    static const char *const tags[CMP_MAX_RUNS] = { "A", "B", "C", "D", "E", "F", "G", "H",
                                                    "I", "J", "K", "L", "M", "N", "O", "P" };
    return k >= 0 && k < CMP_MAX_RUNS ? tags[k] : "?";
}

const char *cmp_run_name(const cmp_run *r, char *buf, size_t len)
{
    snprintf(buf, len, "#%lld%s%s", (long long)r->run.id, r->run.label ? " " : "",
             r->run.label ? r->run.label : "");
    return buf;
}

/* ---- alignment ------------------------------------------------------------------ */

typedef struct entry {
    int64_t layer;   /* execution position: layer index, -1 for inputs */
    int seq;         /* order of appearance, to keep the sort stable */
    const char *name, *op;
    int li, ai, ni;  /* layer row, accuracy row, npu row */
    int unnamed;
} entry;

static int cmp_entry(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    if (a->layer != b->layer)
        return a->layer < b->layer ? -1 : 1;
    return a->seq - b->seq;
}

/* Names to indices: open addressing over FNV-1a hashes, so that aligning runs
 * of thousands of layers stays linear. get(i) gives the name of index i. */
typedef struct name_map {
    int *slot;          /* index + 1, 0: empty */
    unsigned mask;
} name_map;

static unsigned name_hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void map_init(name_map *m, int n)
{
    unsigned cap = 16;
    while (cap < (unsigned)n * 2)
        cap <<= 1;
    m->slot = xcalloc(cap, sizeof(int));
    m->mask = cap - 1;
}

/* The index named `name` among the array base (elements stride bytes apart,
 * the name pointer at offset off), or -1; with add
 * >= 0 an absent name is inserted as index add. */
static int map_find(name_map *m, const void *base, size_t stride, size_t off, const char *name,
                    int add)
{
    for (unsigned h = name_hash(name) & m->mask;; h = (h + 1) & m->mask) {
        if (!m->slot[h]) {
            if (add >= 0)
                m->slot[h] = add + 1;
            return -1;
        }
        const char *other = *(const char *const *)((const char *)base + (size_t)(m->slot[h] - 1) * stride + off);
        if (!strcmp(other, name))
            return m->slot[h] - 1;
    }
}

/* The "<op>#<n>" names of rows without one: n counts that op's unnamed rows. */
typedef struct opc { const char *op; int n; } opc;
typedef struct namer {
    name_map ops;
    opc *oc;
    int n_oc;
    char **fb;    /* the names made (malloc'd) */
    int nf;
} namer;

static const char *fallback_name(namer *nm, const char *op)
{
    int k = map_find(&nm->ops, nm->oc, sizeof(*nm->oc), offsetof(opc, op), op, nm->n_oc);
    if (k < 0)
        nm->oc[k = nm->n_oc++] = (opc){ op, 0 };
    size_t need = strlen(op) + 16;
    char *s = xmalloc(need);
    snprintf(s, need, "%s#%d", op, nm->oc[k].n++);
    return nm->fb[nm->nf++] = s;
}

/* Every distinct tensor name of one run, in execution order; layer rows
 * without a name get "<op>#<n>" (malloc'd, handed to the caller in fallback). */
static entry *entries_of(const cmp_run *r, int *out_n, char ***fallback, int *n_fallback)
{
    int cap = r->n_layers + r->n_acc + r->n_npu, rows = r->n_layers + r->n_npu, n = 0, seq = 0;
    entry *e = xcalloc((size_t)(cap ? cap : 1), sizeof(*e));
    namer nm = { .oc = xcalloc((size_t)(rows ? rows : 1), sizeof(opc)),
                 .fb = xcalloc((size_t)(rows ? rows : 1), sizeof(char *)) };
    name_map m;
    map_init(&m, cap);
    map_init(&nm.ops, rows);
    for (int i = 0; i < r->n_acc; i++) {
        const store_accuracy *a = &r->acc[i];
        if (!a->name)
            continue;
        e[n] = (entry){ a->layer == STORE_NULL_INT ? -1 : a->layer, seq, a->name, a->op, -1, i, -1,
                        0 };
        if (map_find(&m, e, sizeof(*e), offsetof(entry, name), a->name, n) < 0)
            n++, seq++;
    }
    for (int i = 0; i < r->n_layers; i++) {
        const store_layer *l = &r->layers[i];
        const char *name = l->name;
        int unnamed = !name || !name[0];
        if (unnamed)
            name = fallback_name(&nm, l->op ? l->op : "?");
        e[n] = (entry){ l->idx, seq, name, l->op, i, -1, -1, unnamed };
        int k = map_find(&m, e, sizeof(*e), offsetof(entry, name), name, n);
        if (k >= 0) {
            if (e[k].li < 0)   /* the first layer row of a name wins */
                e[k].li = i;
        } else {
            n++, seq++;
        }
    }
    /* a prediction's level-4 rows of their own, named as a vendor file's rows
     * are (an InputOperator by its tensor, an OutputOperator not at all, the
     * rest by their FullName's tensor), just after the layer row that comes
     * before them in the table (after its acc and layer rows: a later seq) */
    for (int i = 0; i < r->n_npu; i++) {
        const store_npu_row *x = &r->npu[i];
        if (x->skip)
            continue;
        const char *op = x->op ? x->op : "?", *fn = x->fullname ? strchr(x->fullname, ':') : NULL;
        const char *name = strcmp(op, "OutputOperator") && fn && fn[1] ? fn + 1 : NULL;
        int unnamed = !name;
        if (unnamed)
            name = fallback_name(&nm, op);
        int64_t at = -1;
        for (int j = 0; j < r->n_layers; j++)
            if (r->layers[j].table_id != STORE_NULL_INT && r->layers[j].table_id < x->id &&
                r->layers[j].idx > at)
                at = r->layers[j].idx;
        e[n] = (entry){ at, seq, name, op, -1, -1, i, unnamed };
        int k = map_find(&m, e, sizeof(*e), offsetof(entry, name), name, n);
        if (k >= 0) {
            if (e[k].li < 0 && e[k].ni < 0)
                e[k].ni = i;
        } else {
            n++, seq++;
        }
    }
    free(m.slot);
    free(nm.ops.slot);
    free(nm.oc);
    qsort(e, (size_t)n, sizeof(*e), cmp_entry);
    *out_n = n;
    *fallback = nm.fb;
    *n_fallback = nm.nf;
    return e;
}

/* For a board run against a prediction (either way round): run k's layer row
 * -> the baseline's layer row it pairs with (analyze/compare_perf.c: FullName,
 * then op type and shape), -1 none; NULL when the pair is not board vs
 * prediction. A board table names its rows by FullName, a prediction by
 * tensor: by name alone they would never meet. */
static int *perf_pairs(const cmp_run *base, const cmp_run *r)
{
    int sb = perfcmp_side(&base->run), sr = perfcmp_side(&r->run);
    if (sb < 0 || sr < 0 || sb == sr)
        return NULL;
    const cmp_run *board = sb ? base : r, *model = sb ? r : base;
    perfcmp_result pr;
    char err[256];
    if (perfcmp_compute(&board->run, board->layers, board->n_layers, &model->run, model->layers,
                        model->n_layers, &pr, err, sizeof(err))) {
        perfcmp_free(&pr);
        return NULL;
    }
    int *map = xmalloc((size_t)(r->n_layers ? r->n_layers : 1) * sizeof(int));
    for (int i = 0; i < r->n_layers; i++)
        map[i] = -1;
    int kb = sb ? 0 : 1;   /* the baseline's side in pr.rows[].layer */
    for (int i = 0; i < pr.n_rows; i++) {
        const perfcmp_row *w = &pr.rows[i];
        if (w->layer[0] >= 0 && w->layer[1] >= 0 && w->layer[1 - kb] < r->n_layers)
            map[w->layer[1 - kb]] = w->layer[kb];
    }
    perfcmp_free(&pr);
    return map;
}

static void align(cmp_doc *d, char ***owned_names, int *n_owned)
{
    int cap = 0, nn = 0;
    for (int k = 0; k < d->n; k++)
        cap += d->runs[k].n_layers + d->runs[k].n_acc + d->runs[k].n_npu;
    d->rows = xcalloc((size_t)(cap ? cap : 1), sizeof(*d->rows));
    char **names = NULL;
    name_map m;
    map_init(&m, cap);
    int *base_row = xmalloc((size_t)(d->runs[0].n_layers ? d->runs[0].n_layers : 1) * sizeof(int));
    for (int i = 0; i < d->runs[0].n_layers; i++)
        base_row[i] = -1;
    for (int k = 0; k < d->n; k++) {
        int ne = 0, nf = 0;
        int *pairs = k ? perf_pairs(&d->runs[0], &d->runs[k]) : NULL;
        char **fb = NULL;
        entry *e = entries_of(&d->runs[k], &ne, &fb, &nf);
        names = xrealloc(names, (size_t)(nn + nf + 1) * sizeof(*names));
        memcpy(names + nn, fb, (size_t)nf * sizeof(*names));
        nn += nf;
        free(fb);
        for (int i = 0; i < ne; i++) {
            int r = -1;
            /* board vs prediction: the performance pairing, else the name */
            if (pairs && e[i].li >= 0 && pairs[e[i].li] >= 0 && base_row[pairs[e[i].li]] >= 0 &&
                !(d->rows[base_row[pairs[e[i].li]]].runs & (1u << k)))
                r = base_row[pairs[e[i].li]];
            else
                r = map_find(&m, d->rows, sizeof(*d->rows), offsetof(cmp_row, name), e[i].name, d->n_rows);
            cmp_row *row;
            if (r < 0) {
                row = &d->rows[d->n_rows++];
                row->name = e[i].name;
                row->op = e[i].op;
                row->unnamed = e[i].unnamed;
                for (int j = 0; j < CMP_MAX_RUNS; j++)
                    row->layer[j] = row->acc[j] = row->npu[j] = -1;
            } else {
                row = &d->rows[r];
            }
            if (row->runs & (1u << k))
                continue;
            row->runs |= 1u << k;
            row->layer[k] = e[i].li;
            row->acc[k] = e[i].ai;
            row->npu[k] = e[i].ni;
            if (!row->op)
                row->op = e[i].op;
            if (k == 0 && e[i].li >= 0)
                base_row[e[i].li] = (int)(row - d->rows);
        }
        free(pairs);
        free(e);
    }
    free(base_row);
    free(m.slot);
    for (int i = 0; i < d->n_rows; i++) {
        const cmp_row *row = &d->rows[i];
        int in_base = row->runs & 1u;
        d->n_unnamed += row->unnamed;
        for (int k = 1; k < d->n; k++) {
            int in_k = (row->runs >> k) & 1u;
            d->only_base[k] += in_base && !in_k;
            d->only_run[k] += in_k && !in_base;
            d->matched[k] += in_k && in_base;
        }
    }
    *owned_names = names;
    *n_owned = nn;
}

/* ---- speed ---------------------------------------------------------------------- */

const char *cmp_speed_kind_name(int kind)
{
    switch (kind) {
    case CMP_SPEED_PREDICTED_FRAME: return "predicted NPU frame";
    case CMP_SPEED_PREDICTED_TABLE: return "predicted level-4 table total";
    case CMP_SPEED_BOARD_PROFILED: return "board level-4 table total";
    case CMP_SPEED_HOST: return "host median (this PC)";
    default: return "none";
    }
}

/* The figure of run r when it is compared with a run that is (other_board) a board. */
static double speed_of(const cmp_run *r, int other_board, int by_host, int *kind)
{
    if (by_host) {
        *kind = CMP_SPEED_HOST;
        return r->sum.host_median_us;
    }
    /* a board's profile is the level-4 run: its table total, as `show` prints
     * it, against the prediction's level-4 total */
    if (cmp_run_is_board(r) || other_board) {
        *kind = cmp_run_is_board(r) ? CMP_SPEED_BOARD_PROFILED : CMP_SPEED_PREDICTED_TABLE;
        return r->sum.perf_table_us;
    }
    *kind = CMP_SPEED_PREDICTED_FRAME;
    return r->sum.frame_us;
}

static void speeds(cmp_doc *d)
{
    const cmp_run *a = &d->runs[0];
    for (int k = 0; k < d->n; k++) {
        const cmp_run *b = &d->runs[k];
        cmp_speed *s = &d->speed[k];
        s->base_us = speed_of(a, cmp_run_is_board(b), d->by_host, &s->base_kind);
        s->us = speed_of(b, cmp_run_is_board(a), d->by_host, &s->kind);
        s->slower_pct = compare_slower_pct(s->base_us, s->us);
    }
}

const char *cmp_speed_text(const cmp_doc *d, int k, char *buf, size_t len)
{
    const cmp_speed *s = &d->speed[k];
    if (isnan(s->slower_pct)) {
        const char *what = isnan(s->us) ? cmp_speed_kind_name(s->kind) : cmp_speed_kind_name(s->base_kind);
        snprintf(buf, len, "speed n/a (no %s to compare)", what);
        return buf;
    }
    const char *how = fabs(s->slower_pct) < 0.05 ? "same" : s->slower_pct > 0 ? "slower" : "faster";
    if (s->kind == s->base_kind)
        snprintf(buf, len, "%s %+.1f%% (%s)", cmp_speed_kind_name(s->kind), s->slower_pct, how);
    else
        snprintf(buf, len, "%s %.3f ms vs %s %.3f ms %+.1f%% (%s)", cmp_speed_kind_name(s->kind),
                 s->us / 1e3, cmp_speed_kind_name(s->base_kind), s->base_us / 1e3, s->slower_pct, how);
    return buf;
}

void cmp_verdict(const cmp_doc *d, int k, char *buf, size_t len)
{
    const cmp_run *a = &d->runs[0], *b = &d->runs[k];
    char na[96], nb[96], t[200], c[64];
    cmp_speed_text(d, k, t, sizeof(t));
    if (b->sum.n_collapsed)
        snprintf(c, sizeof(c), "%d output%s collapsed", b->sum.n_collapsed,
                 b->sum.n_collapsed > 1 ? "s" : "");
    else if (isnan(b->sum.out_cos))
        snprintf(c, sizeof(c), "output cos n/a");
    else
        snprintf(c, sizeof(c), "output cos %.5f", b->sum.out_cos);
    snprintf(buf, len, "verdict: %s %s vs %s %s: %s, %s, layers %d matched, %d only in %s, %d only in %s%s",
             cmp_tag(k), cmp_run_name(b, nb, sizeof(nb)), cmp_tag(0), cmp_run_name(a, na, sizeof(na)), t,
             c, d->matched[k], d->only_base[k], cmp_tag(0), d->only_run[k], cmp_tag(k),
             a->run.model_sha256 && b->run.model_sha256 && strcmp(a->run.model_sha256, b->run.model_sha256)
                 ? ", different models" : "");
}

int cmp_row_runs(const cmp_doc *d, const cmp_row *row, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int k = 0; k < d->n; k++)
        if (row->runs & (1u << k))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "", cmp_tag(k));
    return row->runs == (d->n >= 32 ? ~0u : (1u << d->n) - 1);
}

/* ---- outputs -------------------------------------------------------------------- */

static int find_out(const cmp_run *r, const char *name)
{
    for (int i = 0; i < r->n_outs; i++)
        if (r->outs[i].name && name && !strcmp(r->outs[i].name, name))
            return i;
    return -1;
}

static int find_sum_out(const cmp_run *r, const char *name)
{
    for (int i = 0; i < r->sum.n_outputs; i++)
        if (r->sum.outputs[i].name && name && !strcmp(r->sum.outputs[i].name, name))
            return i;
    return -1;
}

static void outputs(cmp_doc *d, int files)
{
    int cap = 0, n = d->n;
    for (int k = 0; k < n; k++)
        cap += d->runs[k].sum.n_outputs;
    d->out_names = xcalloc((size_t)(cap ? cap : 1), sizeof(*d->out_names));
    for (int k = 0; k < n; k++)
        for (int j = 0; j < d->runs[k].sum.n_outputs; j++) {
            const char *name = d->runs[k].sum.outputs[j].name;
            int seen = !name;
            for (int i = 0; i < d->n_outs && !seen; i++)
                seen = !strcmp(d->out_names[i], name);
            if (!seen)
                d->out_names[d->n_outs++] = name;
        }
    d->oc = xcalloc((size_t)(d->n_outs ? d->n_outs : 1) * (size_t)n, sizeof(*d->oc));
    for (int j = 0; j < d->n_outs; j++) {
        const char *name = d->out_names[j];
        int base = find_out(&d->runs[0], name);
        for (int k = 0; k < n; k++) {
            const cmp_run *r = &d->runs[k];
            cmp_out_cell *c = &d->oc[j * n + k];
            char nm[128], tmp[256];
            c->row = find_out(r, name);
            c->out = find_sum_out(r, name);
            const char *fa = base >= 0 ? d->runs[0].outs[base].dump_file : NULL;
            const char *fb = c->row >= 0 ? r->outs[c->row].dump_file : NULL;
            if (files && k > 0 && fa && fb) {
                char e2[300];
                c->vs_ok = !compare_output_files(fa, fb, &c->vs, e2, sizeof(e2));
                if (!c->vs_ok)
                    snprintf(c->warn, sizeof(c->warn), "%s", e2);
            }
            /* its own collapse vs the golden, else a constant/non-finite tensor
             * seen against the baseline */
            if (c->out >= 0 && summary_output_problem(&r->sum.outputs[c->out], tmp, sizeof(tmp)))
                snprintf(c->problem, sizeof(c->problem), "run %s: %.200s",
                         cmp_run_name(r, nm, sizeof(nm)), tmp);
            else if (c->vs_ok && (c->vs.flags & METRIC_NONFINITE))
                snprintf(c->problem, sizeof(c->problem), "run %s: output '%.200s' has NaN/inf values",
                         cmp_run_name(r, nm, sizeof(nm)), name);
            else if (c->vs_ok && (c->vs.flags & METRIC_X_CONST))
                snprintf(c->problem, sizeof(c->problem), "run %s: output '%.200s' is constant (collapsed)",
                         cmp_run_name(r, nm, sizeof(nm)), name);
        }
    }
}

/* ---- the document --------------------------------------------------------------- */

typedef struct owned {
    char **names;
    int n;
} owned;

int cmp_doc_build(const cmp_run *runs, int n, int by_host, int flags, cmp_doc *d, char *err,
                  size_t errlen)
{
    memset(d, 0, sizeof(*d));
    if (n < 1 || n > CMP_MAX_RUNS)
        return rt_err(err, errlen, RT_EINVAL, "a comparison takes 1 to %d runs, got %d",
                      CMP_MAX_RUNS, n);
    d->runs = runs;
    d->n = n;
    d->by_host = by_host;
    owned *o = xcalloc(1, sizeof(*o));
    align(d, &o->names, &o->n);
    d->owned = (char *)o;
    speeds(d);
    outputs(d, flags & CMP_OUTPUT_FILES);
    return RT_OK;
}

void cmp_doc_free(cmp_doc *d)
{
    owned *o = (owned *)d->owned;
    if (o) {
        for (int i = 0; i < o->n; i++)
            free(o->names[i]);
        free(o->names);
        free(o);
    }
    free(d->rows);
    free(d->out_names);
    free(d->oc);
    memset(d, 0, sizeof(*d));
}

/* ---- the compiled graphs -------------------------------------------------------- */

/* r's Input/OutputOperator that only its npu rows hold */
static int io_rows(const cmp_run *r)
{
    int n = 0;
    for (int i = 0; i < r->n_npu; i++)
        n += !r->npu[i].skip && r->npu[i].op && summary_op_is_io(r->npu[i].op);
    return n;
}

int cmp_doc_graph(const cmp_doc *d, int force, compare_graph *g)
{
    memset(g, 0, sizeof(*g));
    if (d->n < 2)
        return 0;
    const cmp_run *a = &d->runs[0], *b = &d->runs[1];
    if (!force && store_backend_of(a->run.backend) != BACKEND_PREDICT &&
        store_backend_of(b->run.backend) != BACKEND_PREDICT)
        return 0;
    compare_side ca = { &a->run, a->layers, a->n_layers, a->acc, a->n_acc, io_rows(a) };
    compare_side cb = { &b->run, b->layers, b->n_layers, b->acc, b->n_acc, io_rows(b) };
    compare_graph_build(&ca, &cb, g);
    return 1;
}

/* ---- gates ---------------------------------------------------------------------- */

int cmp_gates_eval(const cmp_doc *d, cmp_gates *g, char *err, size_t errlen)
{
    int n = d->n, gated = 0;
    g->failed = 0;
    for (int k = 0; k < n; k++) {
        g->cos_value[k] = NAN;
        g->cos_failed[k] = g->slow_failed[k] = 0;
    }
    if (!isnan(g->fail_slower))
        for (int k = 0; k < n; k++)
            if (isnan(k ? d->speed[k].us : d->speed[k].base_us)) {
                char nm[128];
                return rt_err(err, errlen, RT_EINVAL, "--fail-if-slower: run %s has no %s%s",
                              cmp_run_name(&d->runs[k], nm, sizeof(nm)),
                              d->by_host ? "recorded host time" : cmp_speed_kind_name(d->speed[k].kind),
                              d->by_host ? "" : " (try --by host)");
            }
    if (!isnan(g->fail_cos)) {
        for (int k = 0; k < n; k++) {
            const cmp_run *r = &d->runs[k];
            /* vs the golden when the run has it, else vs the baseline's outputs */
            int has = r->sum.n_acc > 0;
            for (int j = 0; j < d->n_outs; j++) {
                const cmp_out_cell *c = &d->oc[j * n + k];
                double v = c->out >= 0 && r->sum.outputs[c->out].acc >= 0 ? r->sum.outputs[c->out].cos
                           : c->vs_ok ? c->vs.cos : NAN;
                if (c->problem[0])
                    has = 1, g->cos_failed[k] = 1;
                if (!isnan(v)) {
                    has = 1;
                    if (isnan(g->cos_value[k]) || v < g->cos_value[k])
                        g->cos_value[k] = v;
                }
            }
            if (!isnan(g->cos_value[k]) && g->cos_value[k] < g->fail_cos)
                g->cos_failed[k] = 1;
            gated += has;
            g->failed |= g->cos_failed[k];
        }
        if (!gated)
            return rt_err(err, errlen, RT_EINVAL,
                          "--fail-if-cos-below: no run has per-layer errors or dumped outputs to "
                          "compare (record one with rknn-trace run MODEL -q i8|fp16, or --dump)");
    }
    for (int k = 1; k < n && !isnan(g->fail_slower); k++)
        if (!isnan(d->speed[k].slower_pct) && d->speed[k].slower_pct > g->fail_slower)
            g->slow_failed[k] = g->failed = 1;
    return RT_OK;
}

/* ---- near-constant factor ------------------------------------------------------- */

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

int cmp_factor(const double *a, const double *b, int n, double tol, double *factor,
               double *within_share)
{
    double *r = xcalloc((size_t)(n ? n : 1), sizeof(*r));
    int m = 0, within = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(a[i]) && isfinite(b[i]) && a[i] > 0 && b[i] > 0)
            r[m++] = b[i] / a[i];
    *factor = NAN;
    *within_share = NAN;
    if (!m) {
        free(r);
        return 0;
    }
    qsort(r, (size_t)m, sizeof(*r), cmp_dbl);
    double f = m % 2 ? r[m / 2] : (r[m / 2 - 1] + r[m / 2]) / 2;
    for (int i = 0; i < m; i++)
        within += fabs(r[i] / f - 1) <= tol;
    free(r);
    *factor = f;
    *within_share = (double)within / m;
    return m >= 4 && within * 5 >= m * 4 && fabs(f - 1) > tol;
}

/* 1 when ratio x/y matches f within 5 % */
static int explains(double f, double x, double y)
{
    return x > 0 && y > 0 && fabs(f / (x / y) - 1) <= 0.05;
}

const char *cmp_factor_hint(const char *column, double factor, int npu_mhz[2], int ddr_mhz[2],
                            int cores[2], char *buf, size_t len)
{
    /* cycles scale with the clock of the unit that counts them (b over a); a
     * time scales inversely with a clock or the core count */
    int is_time = column && !strcmp(column, "time");
    double f = is_time ? 1 / factor : factor;
    if (explains(f, ddr_mhz[1], ddr_mhz[0]))
        snprintf(buf, len, "%s off by x%.3g: the DDR clock (%d vs %d MHz); re-predict with "
                 "--ddr-mhz %d", column, factor, ddr_mhz[1], ddr_mhz[0], ddr_mhz[0]);
    else if (explains(f, npu_mhz[1], npu_mhz[0]))
        snprintf(buf, len, "%s off by x%.3g: the NPU clock (%d vs %d MHz); re-predict with "
                 "--npu-mhz %d", column, factor, npu_mhz[1], npu_mhz[0], npu_mhz[0]);
    else if (explains(f, cores[1], cores[0]))
        snprintf(buf, len, "%s off by x%.3g: the NPU core count (%d vs %d cores)", column, factor,
                 cores[1], cores[0]);
    else
        snprintf(buf, len, "%s off by x%.3g on nearly every layer: a clock (DDR for DDR cycles, "
                 "NPU for NPU cycles) or core count that differs between the board and the model",
                 column, factor);
    return buf;
}
