/* analyze/summary.c — the run summary, computed once from stored rows, and its
 * two renderings: the text of `run`/`show` and the JSON document (docs/json.md).
 * (The vendor's level-4 table is rebuilt from the same rows by record/rows_npu.c.) */
#include "analyze/analyze.h"
#include "runtime/npu/npu.h"
#include "util/escape.h"
#include "util/util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int known_int(int64_t v)
{
    return v != STORE_NULL_INT;
}

/* ---- provenance ------------------------------------------------------------ */

static int backend_is(const store_run *r, const char *b)
{
    return r->backend && !strcmp(r->backend, b);
}

void provenance_of(const store_run *r, run_provenance *p)
{
    memset(p, 0, sizeof(*p));
    p->imported = r->import_kind != NULL;
    /* only the NPU model writes a frame figure (npu_us): a board's PERF_RUN is perf_run_us */
    p->frame = PROV_PREDICTED;
    if (backend_is(r, "sim")) {
        p->table = PROV_PREDICTED, p->timing = PROV_HOST;
    } else if (backend_is(r, "predict")) {
        p->table = PROV_PREDICTED, p->timing = PROV_NONE;
    } else if (backend_is(r, "emulate")) {
        /* a vendor file's tasks executed on this PC: the NPU model's table, this PC's time */
        p->table = PROV_PREDICTED, p->timing = PROV_HOST;
    } else if (backend_is(r, "simlib")) {
        /* this project's runtime prints the NPU model's table */
        p->table = PROV_PREDICTED, p->timing = PROV_SIMLIB;
    } else if (backend_is(r, "board")) {
        p->table = PROV_BOARD, p->timing = PROV_BOARD;
    } else if (backend_is(r, "toolkit") && r->import_kind &&
               !strcmp(r->import_kind, "toolkit build")) {
        p->table = PROV_BUILD, p->timing = PROV_NONE;
    } else if (backend_is(r, "toolkit")) {
        p->table = PROV_TOOLKIT, p->timing = PROV_TOOLKIT;
    } else {
        p->frame = p->table = p->timing = PROV_NONE;
    }
    p->layer_frame = p->frame;
}

const char *provenance_words(int prov)
{
    switch (prov) {
    case PROV_PREDICTED: return "predicted by the NPU model";
    case PROV_BOARD: return "measured on the board";
    case PROV_HOST: return "this PC's CPU, not the board";
    case PROV_SIMLIB: return "this project's simulated librknnrt.so on this PC, not the board";
    case PROV_TOOLKIT: return "Toolkit2's simulator on a PC, not the board";
    case PROV_BUILD: return "Toolkit2's compiler while building on a PC: no timing, not the board";
    }
    return "n/a";
}

const char *provenance_tag(int prov)
{
    switch (prov) {
    case PROV_PREDICTED: return "predicted";
    case PROV_BOARD: return "board";
    case PROV_HOST: return "host";
    case PROV_SIMLIB: return "simlib";
    case PROV_TOOLKIT: return "toolkit";
    case PROV_BUILD: return "build";
    }
    return NULL;
}

const char *provenance_line(const run_provenance *p, char *buf, size_t len)
{
    const int v[3] = { p->frame, p->table, p->timing };
    static const char *const what[3] = { "frame", "table", "timing" };
    size_t u = 0;

    buf[0] = '\0';
    for (int k = 0; k < 3; k++)
        if (v[k] != PROV_NONE && u < len)
            u += (size_t)snprintf(buf + u, len - u, "%s%s %s", u ? "; " : "", what[k],
                                  provenance_words(v[k]));
    if (!u)
        snprintf(buf, len, "n/a");
    return buf;
}

/* A layer the CPU runs instead of the NPU; Input/OutputOperator rows (stored
 * for a vendor .rknn's predicted run) are the runtime's own CPU work, not a
 * fallback. */
static int is_fallback(const store_layer *l, int build)
{
    if (!l)
        return 0;
    const char *op = l->npu_op ? l->npu_op : l->op ? l->op : "";
    /* a build log's rows have no figures, yet say where each layer runs */
    return (store_layer_has_figures(l) || build) && l->target && !strcmp(l->target, "CPU") &&
           !summary_op_is_io(op);
}

/* a layer's bound as an index of share_pct (compute, DDR, CPU), -1 none */
static int bound_index(const char *bound)
{
    return !bound ? -1 : !strcmp(bound, "compute") ? 0 : !strcmp(bound, "DDR") ? 1
                       : !strcmp(bound, "CPU") ? 2 : -1;
}

/* row i of the ranking: a layer row, then a prediction's own level-4 rows */
static const store_layer *ranked(const run_summary *s, int i)
{
    return i < s->n_layers ? &s->layers[i] : &s->npu_layers[i - s->n_layers];
}

typedef struct rank {
    const run_summary *s;
    int by_frame;
} rank;

static int by_time(const void *a, const void *b, void *ctx)
{
    const rank *k = ctx;
    int x = *(const int *)a, y = *(const int *)b;
    const store_layer *p = ranked(k->s, x), *q = ranked(k->s, y);
    double u = k->by_frame ? p->frame_us : p->time_us;
    double v = k->by_frame ? q->frame_us : q->time_us;
    return u < v ? 1 : u > v ? -1 : x - y;
}

/* A prediction's level-4 row of its own (Input/OutputOperator, exDataConvert,
 * a Reshape the compiler adds) as a row of the ranking, with the figures its
 * table row prints: a vendor file's run has these operators among its layer
 * rows, and both rank them alike. The bound by the rule of a table's rows
 * (record/perf_rows.c). */
static void npu_row_layer(const store_npu_row *r, store_layer *l)
{
    store_layer_init(l);
    l->idx = STORE_NULL_INT; /* no layer row */
    l->op = l->npu_op = r->op;
    l->node = r->fullname; /* "<op>:<tensor>", as store_layer_fullname keeps it */
    const char *colon = r->fullname ? strchr(r->fullname, ':') : NULL;
    l->name = colon && colon[1] ? colon + 1 : NULL;
    l->npu_dtype = r->datatype;
    l->target = r->target;
    l->npu_cycles = r->npu_cycles, l->ddr_cycles = r->ddr_cycles, l->total_cycles = r->total_cycles;
    l->time_us = r->time_us, l->frame_us = r->frame_us, l->rw_kb = r->rw_kb;
    l->tasks = r->tasks, l->table_id = r->id;
    /* a row the table prints without MacUsage does no multiply-adds: 0, as a
     * vendor file's Input/OutputOperator layer rows hold */
    l->mac_usage = 0;
    for (int c = 0; r->macs && c < r->n_cores && c < STORE_NPU_ROW_CORES; c++)
        if (r->mac_usage[c] > l->mac_usage)
            l->mac_usage = r->mac_usage[c];
    int cycles = known_int(r->npu_cycles) && known_int(r->ddr_cycles) && (r->npu_cycles || r->ddr_cycles);
    l->bound = r->target && !strcmp(r->target, "CPU") ? "CPU"
               : r->target && cycles ? (r->npu_cycles >= r->ddr_cycles ? "compute" : "DDR") : NULL;
}

static int output_state(const metrics_t *m)
{
    if (m->flags & METRIC_NONFINITE)
        return SUM_OUT_NONFINITE;
    if (m->flags & METRIC_X_CONST)
        return SUM_OUT_CONSTANT;
    if (m->flags & METRIC_REF_CONST)
        return SUM_OUT_REF_CONSTANT;
    if (isnan(m->cos))
        return SUM_OUT_NONFINITE;
    return SUM_OUT_OK;
}

/* what computed an emulated run's outputs (extra JSON "emulation",
 * record/source_predict.c) */
static void emulation_read(const char *extra_json, run_summary *s)
{
    s->emu_tasks = s->emu_float64 = -1;
    if (!extra_json || !strstr(extra_json, "\"emulation\""))
        return;
    json_t *root = json_loads(extra_json, 0, NULL);
    json_t *e = json_object_get(root, "emulation");
    if (json_is_integer(json_object_get(e, "tasks_computed")))
        s->emu_tasks = (int)json_integer_value(json_object_get(e, "tasks_computed"));
    if (json_is_integer(json_object_get(e, "tasks_float64")))
        s->emu_float64 = (int)json_integer_value(json_object_get(e, "tasks_float64"));
    json_decref(root);
}

void summary_compute(const store_run *run, const store_layer *layers, int n_layers,
                     const store_npu_row *npu, int n_npu, const store_output *outs, int n_outs,
                     const store_accuracy *acc, int n_acc, double thr, run_summary *s)
{
    memset(s, 0, sizeof(*s));
    s->run = run;
    s->layers = layers;
    s->n_layers = n_layers;
    s->acc = acc;
    s->n_acc = n_acc;
    s->cos_threshold = thr;
    s->worst_output = s->first_below = s->worst_single = -1;
    s->out_cos = s->out_sqnr_db = NAN;
    summary_eval_read(run->extra_json, &s->eval);
    summary_log_read(run, &s->log);
    emulation_read(run->extra_json, s);

    /* the run's typed facts (docs/store.md, schema 5) */
    provenance_of(run, &s->prov);
    s->frame_us = run->npu_us;
    s->fps = s->frame_us > 0 ? 1e6 / s->frame_us : NAN;
    const npu_platform_t *p = run->platform ? npu_platform_find(run->platform) : NULL;
    /* the clock the run recorded (run --npu-mhz), else the chip's */
    int64_t mhz = run->npu_clock_mhz;
    s->npu_mhz = mhz >= 1 && mhz <= 100000 ? (int)mhz : p ? p->npu_mhz : -1;
    s->n_cores = p ? p->cores : -1;
    s->n_load = run->n_load < 3 ? run->n_load : 3;
    for (int k = 0; k < s->n_load; k++)
        s->load_pct[k] = run->load_pct[k];
    const int64_t q[4] = { run->calib_samples, run->int8_layers, run->fp16_layers, run->cfg_params };
    int64_t *qd[4] = { &s->calib_samples, &s->int8_layers, &s->fp16_layers, &s->cfg_params };
    for (int k = 0; k < 4; k++)
        *qd[k] = q[k] >= 0 && q[k] < (int64_t)1e15 ? q[k] : -1; /* NULL is STORE_NULL_INT */

    double by_bound_t[4] = { 0, 0, 0, 0 }, sum_bound_t = 0; /* a measured table's */
    double by_bound[3] = { 0, 0, 0 }, sum_frame = 0, sum_table = 0, sram = 0, io_rows = 0;
    int n_frame = 0, n_table = 0, n_sram = 0;
    s->fallback = xcalloc((size_t)(n_layers ? n_layers : 1), sizeof(int));
    for (int i = 0; i < n_layers; i++) {
        const store_layer *l = &layers[i];
        int b = bound_index(l->bound);
        const char *lop = l->npu_op ? l->npu_op : l->op ? l->op : "";
        if (!isnan(l->frame_us)) {
            /* a vendor file's I/O operator rows are no layer's time: its ONNX
             * has none (they are io_us in both) */
            if (summary_op_is_io(lop))
                io_rows += l->frame_us;
            else if (b >= 0)
                by_bound[b] += l->frame_us;
            sum_frame += l->frame_us;
            n_frame++;
        }
        if (!isnan(l->time_us)) {
            /* NPU rows whose cycles the log printed as 0/0/0 (Concat, Split, Softmax
             * on rk3588) have no bound: their time is counted, as uncounted */
            by_bound_t[b >= 0 ? b : 3] += l->time_us, sum_bound_t += l->time_us;
        }
        if (!isnan(l->time_us)) /* whole microseconds, as the table adds them */
            sum_table += l->time_us >= 0 && l->time_us < 1e15 ? (double)(int64_t)l->time_us : 0,
            n_table++;
        if (!isnan(l->sram_hit))
            sram += l->sram_hit, n_sram++;
        if (is_fallback(l, s->prov.table == PROV_BUILD)) {
            s->fallback[s->n_fallback++] = i;
            s->fallback_us += !isnan(l->frame_us) ? l->frame_us : 0;
        }
    }
    /* the level-4 table's own total when the run kept it (its Input/OutputOperator
     * and split layers have no row): an imported log's is the Total line it
     * printed (an excerpt keeps some of the rows it adds up: the abridged
     * mobilenet of the SDK guide prints 12631 us over rows of 1515), else the rows' */
    double tab = run->perf_table_us;
    if (isnan(tab) && s->prov.imported && s->prov.table != PROV_BUILD) /* a build's are no times */
        tab = run->log_total_us;
    s->perf_table_us = !isnan(tab) ? tab : n_table ? sum_table : NAN;
    s->table_is_sum = s->prov.imported && isnan(tab) && n_table > 0;
    /* an imported log's run total is that table's (it ran rknn_run with
     * profiling on), no timed run unless a benchmark printed them */
    int total_is_table = s->prov.imported && !isnan(run->log_total_us) &&
                         run->log_total_us == run->total_us;
    s->io_us = n_frame && !isnan(s->frame_us) ? s->frame_us - sum_frame : NAN;
    /* a vendor file's Input/OutputOperator are rows of their own: counted here
     * too, so that its ONNX and the file print the same I/O figure */
    if (n_frame && !isnan(s->io_us))
        s->io_us += io_rows, s->io_rest = 1;
    if (!n_frame) { /* a measured table: the time of its own Input/OutputOperator rows */
        double io = 0;
        int n_io = 0;
        for (int i = 0; i < n_layers; i++) {
            const char *op = layers[i].npu_op ? layers[i].npu_op : layers[i].op ? layers[i].op : "";
            if (summary_op_is_io(op) && !isnan(layers[i].time_us))
                io += layers[i].time_us, n_io++;
        }
        s->io_us = n_io ? io : NAN;
    }
    /* the SramHit column counts hits in whatever on-chip buffer the chip has:
     * SRAM (rk3588), the nbuf (rk3576, rk3562), or none */
    double hit_kb = n_sram ? sram / 1024.0 : NAN;
    s->sram_saved_kb = !p || p->sram_bytes ? hit_kb : NAN;
    s->nbuf_saved_kb = p && !p->sram_bytes && p->nbuf_bytes ? hit_kb : NAN;
    int measured = !n_frame && s->prov.table == PROV_BOARD && sum_bound_t > by_bound_t[3];
    for (int b = 0; b < 3; b++)
        s->share_pct[b] = measured ? 100.0 * by_bound_t[b] / sum_bound_t
                          : n_frame && sum_frame > io_rows ? 100.0 * by_bound[b] / (sum_frame - io_rows)
                                                     : run->share_pct[b];
    s->share_uncounted_pct = measured && by_bound_t[3] > 0 ? 100.0 * by_bound_t[3] / sum_bound_t : NAN;
    double fb_total = s->frame_us;
    if (!n_frame && n_table) {
        /* no frame shares: the table's times for its CPU layers (measured on a
         * board, or the simulated library's), as the layer rows print them */
        double t = 0;
        int n_t = 0;
        for (int k = 0; k < s->n_fallback; k++)
            if (!isnan(layers[s->fallback[k]].time_us))
                t += layers[s->fallback[k]].time_us, n_t++;
        s->fallback_us = n_t ? t : NAN;
        fb_total = s->perf_table_us;
    } else if (!n_frame) {
        s->fallback_us = NAN;
    }
    s->fallback_pct = fb_total > 0 && !isnan(s->fallback_us) ? 100.0 * s->fallback_us / fb_total : NAN;
    /* an imported log's ranking table, as printed; when it was kept alone (no layer
     * rows), also its total and its op types' CPU time */
    summary_ops_read(run->extra_json, &s->ops);
    if (!n_layers) {
        double sum = 0, cpu = 0;
        for (int k = 0; k < s->ops.n; k++) {
            const summary_op *p = &s->ops.ops[k];
            sum += isnan(p->total_us) ? 0 : p->total_us;
            if (summary_op_is_fallback(p))
                cpu += p->cpu_us, s->n_fallback_ops++;
        }
        if (s->ops.n && isnan(s->perf_table_us)) {
            s->perf_table_us = !isnan(s->ops.total_us) ? s->ops.total_us : sum;
            s->table_is_sum = isnan(s->ops.total_us);
        }
        if (s->ops.n) {
            s->fallback_us = cpu;
            s->fallback_pct = s->perf_table_us > 0 ? 100.0 * cpu / s->perf_table_us : NAN;
            s->top_by_table = 1;
        }
    }
    if (s->prov.table == PROV_BUILD) /* the compiler's table: its zeros are no times */
        s->perf_table_us = s->fallback_us = s->fallback_pct = NAN;

    /* top layers: by predicted frame time, a v1 run by its table time; a
     * prediction's own level-4 rows among them */
    s->npu_layers = xcalloc((size_t)(n_npu ? n_npu : 1), sizeof(store_layer));
    for (int i = 0; i < n_npu; i++)
        if (!npu[i].skip)
            npu_row_layer(&npu[i], &s->npu_layers[s->n_npu_layers++]);
    int *idx = xcalloc((size_t)(n_layers + s->n_npu_layers + 1), sizeof(int)), n = 0;
    s->top_by_table = !n_frame;
    for (int i = 0; i < n_layers + s->n_npu_layers && s->prov.table != PROV_BUILD; i++) {
        const store_layer *l = ranked(s, i);
        if (store_layer_has_figures(l) && !isnan(n_frame ? l->frame_us : l->time_us))
            idx[n++] = i;
    }
    rank rk = { s, n_frame > 0 };
    qsort_r(idx, (size_t)n, sizeof(int), by_time, &rk);
    s->n_top = n < SUMMARY_TOP ? n : SUMMARY_TOP;
    s->top_prov = s->top_by_table ? s->prov.table : s->prov.frame;
    memcpy(s->top, idx, sizeof(int) * (size_t)s->n_top);
    free(idx);

    s->weight_bytes = known_int(run->weight_bytes) ? run->weight_bytes : -1;
    s->internal_bytes = known_int(run->internal_bytes) ? run->internal_bytes : -1;

    /* a predicted-only run (backend "predict": a vendor .rknn on a PC) ran nothing here */
    int predicted_only = store_backend_of(run->backend) == BACKEND_PREDICT;
    s->host_median_us = predicted_only || total_is_table ? NAN : run->total_us;
    s->host_p90_us = run->host_p90_us;
    s->host_min_us = run->host_min_us;
    s->host_stddev_us = run->host_stddev_us;
    s->iterations = known_int(run->iterations) ? run->iterations : -1;
    s->warmup = known_int(run->warmup) ? run->warmup : -1;
    s->threads = known_int(run->threads) ? run->threads : -1;
    /* each figure's provenance, NONE where the run has no such figure */
    if (isnan(s->frame_us))
        s->prov.frame = PROV_NONE;
    if (isnan(s->perf_table_us) && !n_table && !(s->prov.table == PROV_BUILD && n_layers))
        s->prov.table = PROV_NONE;
    if (isnan(s->host_median_us) && isnan(s->host_min_us) && isnan(s->host_p90_us))
        s->prov.timing = PROV_NONE;
    s->dump_dir = run->dump_dir;

    /* accuracy: the graph outputs first, then the findings over all rows */
    /* the output rows, then graph outputs only the accuracy rows name */
    s->outputs = xcalloc((size_t)(n_outs + n_acc ? n_outs + n_acc : 1), sizeof(*s->outputs));
    for (int k = 0; k < n_outs; k++) {
        s->outputs[k].name = outs[k].name;
        s->outputs[k].shape = outs[k].shape;
        s->outputs[k].dtype = outs[k].dtype;
    }
    s->n_outputs = n_outs;
    for (int i = 0; i < n_acc; i++) {
        int seen = !acc[i].is_output || !acc[i].name;
        for (int k = 0; k < s->n_outputs && !seen; k++)
            seen = s->outputs[k].name && !strcmp(s->outputs[k].name, acc[i].name);
        if (!seen)
            s->outputs[s->n_outputs++].name = acc[i].name;
    }
    for (int k = 0; k < s->n_outputs; k++) {
        summary_output *o = &s->outputs[k];
        o->acc = -1;
        o->cos = o->sqnr_db = o->max_abs = NAN;
        for (int i = 0; i < n_acc && o->acc < 0; i++)
            if (acc[i].is_output && acc[i].name && o->name && !strcmp(acc[i].name, o->name))
                o->acc = i;
        if (o->acc < 0)
            continue;
        const metrics_t *m = &acc[o->acc].entire;
        o->cos = m->cos;
        o->sqnr_db = m->sqnr_db;
        o->max_abs = m->max_abs;
        o->state = output_state(m);
        if (o->state != SUM_OUT_OK)
            s->n_collapsed++;
        /* the worst output: a collapsed one, else the lowest cosine */
        const summary_output *w = s->worst_output >= 0 ? &s->outputs[s->worst_output] : NULL;
        if (!w || (w->state == SUM_OUT_OK && (o->state != SUM_OUT_OK || o->cos < w->cos)))
            s->worst_output = k;
    }
    if (s->worst_output >= 0 && s->outputs[s->worst_output].state == SUM_OUT_OK) {
        s->out_cos = s->outputs[s->worst_output].cos;
        s->out_sqnr_db = s->outputs[s->worst_output].sqnr_db;
    }
    for (int i = 0; i < n_acc; i++) {
        double c = acc[i].entire.cos, sc = acc[i].single.cos;
        /* a tensor that collapsed (constant or NaN where the golden varies) is below any threshold */
        int collapsed = acc[i].entire.flags & (METRIC_X_CONST | METRIC_NONFINITE) &&
                        !(acc[i].entire.flags & METRIC_REF_CONST);
        if (s->first_below < 0 && ((!isnan(c) && c < thr) || collapsed))
            s->first_below = i;
        if (!isnan(sc) && (s->worst_single < 0 || sc < acc[s->worst_single].single.cos))
            s->worst_single = i;
    }
}

int summary_layers_measured(const run_summary *s)
{
    return s->top_by_table && s->top_prov == PROV_BOARD;
}

double summary_layer_us(const run_summary *s, const store_layer *l)
{
    if (s->prov.table == PROV_BUILD) /* a build log's zeros are no times */
        return NAN;
    return s->top_by_table ? l->time_us : l->frame_us;
}

/* " (33.0 % in rows with no cycle counts)" after the shares, or "" */
const char *summary_uncounted_note(const run_summary *s, char *buf, size_t n)
{
    if (isnan(s->share_uncounted_pct))
        return "";
    snprintf(buf, n, " (%.1f %% in rows with no cycle counts)", s->share_uncounted_pct);
    return buf;
}

const char *summary_io_label(const run_summary *s)
{
    return s->io_rest ? "I/O, conversions, split layers" : "I/O operators";
}

const char *summary_table_note(const run_summary *s)
{
    return s->table_is_sum ? ", the sum of the rows the log kept: it printed no total" : "";
}

const char *summary_frame_label(const run_summary *s)
{
    return isnan(s->frame_us) && s->prov.table == PROV_BOARD ? "frame" : "predicted frame";
}

const char *summary_frame_missing(const run_summary *s)
{
    return s->prov.table == PROV_BOARD ? "no NPU prediction: the table was measured on the board"
                                       : "no NPU prediction recorded";
}

const char *summary_timing_label(const run_summary *s)
{
    switch (s->prov.timing) {
    case PROV_BOARD: return "rknn_run (measured on the board)";
    case PROV_SIMLIB: return "rknn_run (this project's simulated librknnrt.so on this PC, not the board)";
    case PROV_TOOLKIT: return "timing (Toolkit2's simulator on a PC, not the board)";
    }
    if (s->prov.imported) /* a runtime error, an accuracy or memory dump: no table either */
        return s->prov.table != PROV_NONE
                   ? "timed runs (none in the log: its table total is not an rknn_run median)"
                   : "timed runs (none in the log, and no per-layer table)";
    return "host (this PC's CPU, not the board)";
}

const char *summary_timing_missing(const run_summary *s, const char **what, char *buf, size_t len)
{
    const char *backend = s->run && s->run->backend ? s->run->backend : "";
    int kind = store_backend_of(backend);
    if (s->prov.timing != PROV_NONE || kind == BACKEND_SIM)
        return NULL;
    *what = s->prov.imported ? "timing" : "host";
    if (s->prov.table == PROV_BUILD)
        return "none: a build log (the compiler's layer table; nothing ran)";
    if (s->prov.imported && s->prov.table != PROV_NONE)
        return "none: the log printed no timed runs (its table total is the profiled layers' sum, "
               "not an rknn_run median)";
    if (s->prov.imported)
        return "none: the log printed no timed runs and no per-layer table";
    if (kind == BACKEND_PREDICT)
        return "not executed: a vendor .rknn holds NPU machine code, so its profile is predicted "
               "and no numeric outputs were computed (run it with --emulate for the NPU emulator's "
               "outputs, run its source ONNX model, or the file on a board)";
    if (kind == BACKEND_EMULATE && s->emu_tasks >= 0) {
        int n = snprintf(buf, len, "not executed on this PC: the outputs are the NPU emulator's, "
                         "%d of the file's NPU tasks computed", s->emu_tasks);
        if (s->emu_float64 > 0 && n > 0 && (size_t)n < len)
            snprintf(buf + n, len - (size_t)n, "; %d tasks not run, their attention nodes "
                     "computed from their meaning in float64 (RKNN_TRACE_EMU_ATTN=float)",
                     s->emu_float64);
        return buf;
    }
    snprintf(buf, len, "not executed on this PC (backend %s)", *backend ? backend : "unknown");
    return buf;
}

const char *summary_fallback_head(const run_summary *s, const char *missing, char *buf, size_t len)
{
    char pct[32], us[32];
    int known = !isnan(s->fallback_us);
    snprintf(pct, sizeof(pct), "%.1f %%", s->fallback_pct);
    snprintf(us, sizeof(us), "%.3f ms", s->fallback_us / 1e3);
    /* a table's times are a share of the table's total, frame shares of the frame */
    if (s->ops.n && !s->n_layers) { /* no layer rows: the ranking table's op types */
        snprintf(buf, len, "%d op type%s, %s of the level-4 table total (%s%s%s; the log's ranking "
                 "table)", s->n_fallback_ops, s->n_fallback_ops == 1 ? "" : "s",
                 isnan(s->fallback_pct) ? missing : pct, known ? us : missing, known ? ", " : "",
                 known ? provenance_words(s->prov.table) : "");
        return buf;
    }
    snprintf(buf, len, "%d layer%s, %s of the %s (%s%s%s)", s->n_fallback, s->n_fallback == 1 ? "" : "s",
             isnan(s->fallback_pct) ? missing : pct, s->top_by_table ? "level-4 table total" : "frame",
             known ? us : missing, known ? ", " : "", known ? provenance_words(s->top_prov) : "");
    return buf;
}

const char *summary_top_title(const run_summary *s, char *buf, size_t len)
{
    snprintf(buf, len, "Slowest %s layers (%s%s)",
             s->top_prov == PROV_BOARD ? "measured" : s->top_prov == PROV_PREDICTED ? "predicted" : "",
             s->top_by_table ? "level-4 table time, " : "", provenance_words(s->top_prov));
    if (s->top_prov != PROV_BOARD && s->top_prov != PROV_PREDICTED)
        memmove(buf + 8, buf + 9, strlen(buf + 9) + 1); /* "Slowest  layers" */
    return buf;
}

const store_layer **summary_timeline(const run_summary *s, int *n)
{
    const store_layer **out = xcalloc((size_t)(s->n_layers + s->n_npu_layers + 1), sizeof(*out));
    int k = 0, j = 0;
    /* an npu row joins with the figure the layers are timed by, as in the
     * ranking (a run recorded before npu rows had frame shares: none) */
#define NPU_TIMED(l) (!isnan(s->top_by_table ? (l)->time_us : (l)->frame_us))
    for (int i = 0; i < s->n_layers; i++) {
        int64_t id = s->layers[i].table_id;
        /* the table's rows of its own before this layer's row */
        for (; j < s->n_npu_layers && id != STORE_NULL_INT && s->npu_layers[j].table_id != STORE_NULL_INT &&
               s->npu_layers[j].table_id < id; j++)
            if (NPU_TIMED(&s->npu_layers[j]))
                out[k++] = &s->npu_layers[j];
        out[k++] = &s->layers[i];
    }
    for (; j < s->n_npu_layers; j++)
        if (NPU_TIMED(&s->npu_layers[j]))
            out[k++] = &s->npu_layers[j];
#undef NPU_TIMED
    *n = k;
    return out;
}

int summary_is_fallback(const run_summary *s, const store_layer *l)
{
    return is_fallback(l, s->prov.table == PROV_BUILD);
}

const store_layer *summary_top_row(const run_summary *s, int k)
{
    return ranked(s, s->top[k]);
}

/* a FullName the log printed none of, in a text column */
static const char *or_dash(const char *full)
{
    return full && *full ? full : "-";
}

const char *summary_top_fullname(const run_summary *s, int k, char *buf, size_t len)
{
    return s->top[k] < s->n_layers ? store_layer_fullname(s->layers, s->top[k], buf, len)
                                   : store_layer_fullname(s->npu_layers, s->top[k] - s->n_layers, buf, len);
}

void summary_free(run_summary *s)
{
    summary_ops_free(&s->ops);
    free(s->fallback);
    free(s->npu_layers);
    free(s->outputs);
    free(s->owned);
    summary_eval_free(&s->eval);
    summary_log_free(&s->log);
    memset(s, 0, sizeof(*s));
}

const char *summary_output_problem(const summary_output *o, char *buf, size_t len)
{
    const char *what = o->state == SUM_OUT_CONSTANT      ? "is constant (collapsed)"
                       : o->state == SUM_OUT_NONFINITE   ? "has NaN/inf values"
                       : o->state == SUM_OUT_REF_CONSTANT ? "has a constant fp32 golden (cos undefined)"
                                                         : NULL;
    if (!what)
        return NULL;
    snprintf(buf, len, "output '%s' %s", o->name ? o->name : "?", what);
    return buf;
}

/* ---- text ---------------------------------------------------------------- */

/* "%.<d>f" of v without printf when that is exact: the scaled value is small
 * enough that v * 10^d is off by far less than the 1e-6 kept from a rounding
 * tie, so rounding it gives printf's digits. 0 when printf must do it. A
 * listing of many runs formats five figures per run. */
static int fmt_fixed(char *buf, size_t len, double v, const char *fmt)
{
    static const double pow10[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};
    char digits[32];
    size_t n = 0, o = 0;
    int d;

    if (fmt[0] != '%' || fmt[1] != '.' || fmt[2] < '0' || fmt[2] > '6' || fmt[3] != 'f' ||
        fmt[4] || !isfinite(v) || len < 24)
        return 0;
    d = fmt[2] - '0';
    double t = fabs(v) * pow10[d];
    if (!(t < 1e9))
        return 0;
    double fl = floor(t);
    if (fabs(t - fl - 0.5) < 1e-6)
        return 0;
    long long k = (long long)fl + (t - fl > 0.5);
    for (int i = 0; i < d; i++, k /= 10)
        digits[n++] = (char)('0' + k % 10);
    if (d)
        digits[n++] = '.';
    do
        digits[n++] = (char)('0' + k % 10);
    while ((k /= 10) > 0);
    if (signbit(v))
        buf[o++] = '-';
    while (n)
        buf[o++] = digits[--n];
    buf[o] = 0;
    return 1;
}

const char *summary_fmt(char *buf, size_t len, double v, const char *fmt)
{
    if (isnan(v) && len >= 4)
        memcpy(buf, "n/a", 4);
    else if (isnan(v))
        snprintf(buf, len, "n/a");
    else if (!fmt_fixed(buf, len, v, fmt))
        snprintf(buf, len, fmt, v);
    return buf;
}

const char *summary_onchip(const run_summary *s, char *buf, size_t len)
{
    const npu_platform_t *p = s->run && s->run->platform ? npu_platform_find(s->run->platform) : NULL;
    char v[64];
    if (p && !p->sram_bytes && !p->nbuf_bytes)
        snprintf(buf, len, "no SRAM or nbuf on %s", p->name);
    else
        snprintf(buf, len, "%s saves %s of DDR traffic per frame", p && !p->sram_bytes ? "nbuf" : "SRAM",
                 summary_fmt(v, sizeof(v), p && !p->sram_bytes ? s->nbuf_saved_kb : s->sram_saved_kb,
                             "%.1f KB"));
    return buf;
}

static const char *bytes_str(char *buf, size_t len, int64_t b)
{
    if (b < 0)
        snprintf(buf, len, "n/a");
    else if (b >= 1 << 20)
        snprintf(buf, len, "%.2f MiB", (double)b / (1 << 20)); /* eval_memory prints MiB */
    else
        snprintf(buf, len, "%.1f KiB", (double)b / 1024);
    return buf;
}

/* Stored text on a terminal line (a label or an imported name may hold any byte). */
static const char *tt(const char *s)
{
    return esc_tmp(ESC_TERM, s);
}

/* a listed layer's level-4 table ID as text, "-" none */
static const char *id_str(const store_layer *l, char *buf, size_t len)
{
    snprintf(buf, len, known_int(l->table_id) ? "%lld" : "-", (long long)l->table_id);
    return buf;
}

void summary_print(const run_summary *s, FILE *f, int color)
{
    const store_run *r = s->run;
    char a[48], b[48], c[48], d[48], nm[512];
    const char *hi = color ? "\033[1m" : "", *lo = color ? "\033[0m" : "";
    const char *red = color ? "\033[31m" : "";

    if (r->id > 0)
        fprintf(f, "run       #%lld%s%s  %s\n", (long long)r->id, r->label ? " " : "",
                tt(r->label), tt(r->time));
    else
        fprintf(f, "run       not recorded%s%s\n", r->label ? ", label " : "", tt(r->label));
    fprintf(f, "model     %s (%s)\n", r->model_path ? tt(r->model_path) : "n/a",
            r->model_format ? tt(r->model_format) : "n/a");
    fprintf(f, "target    %s, backend %s, %s%s%s%s%s\n", r->platform ? tt(r->platform) : "n/a",
            r->backend ? tt(r->backend) : "n/a", r->quant ? tt(r->quant) : "n/a",
            r->quant_algo ? " " : "", tt(r->quant_algo), r->quant_method ? " " : "", tt(r->quant_method));

    fprintf(f, "figures   %s\n", provenance_line(&s->prov, nm, sizeof(nm)));

    /* NPU first: the figures a board user acts on */
    if (isnan(s->frame_us) && s->prov.table == PROV_BOARD) {
        fprintf(f, "\nframe     n/a (no NPU prediction: the table below was %s)\n",
                provenance_words(s->prov.table));
    } else if (isnan(s->frame_us)) {
        fprintf(f, "\npredicted n/a (no NPU prediction recorded)\n");
    } else {
        fprintf(f, "\n%spredicted %.3f ms per frame, %.1f FPS%s on %s NPU at %s MHz (NPU model)\n",
                hi, s->frame_us / 1e3, s->fps, lo, r->platform ? tt(r->platform) : "n/a",
                s->npu_mhz > 0 ? (snprintf(a, sizeof(a), "%d", s->npu_mhz), a) : "n/a");
        fprintf(f, "          expected error: mean |err| %.1f %%, %d of %d model/chip pairs within "
                "+-%.0f %% (%s)\n", SUMMARY_BAND_MEAN_PCT, SUMMARY_BAND_WITHIN, SUMMARY_BAND_PAIRS,
                SUMMARY_BAND_LIMIT_PCT, SUMMARY_BAND_SOURCE);
    }
    if (!isnan(s->frame_us) || !isnan(s->perf_table_us))
        fprintf(f, "          level-4 table total %s ms (layer by layer, %s)%s\n",
                summary_fmt(a, sizeof(a), s->perf_table_us / 1e3, "%.3f"),
                provenance_words(s->prov.table != PROV_NONE ? s->prov.table : s->prov.frame),
                summary_table_note(s));
    fprintf(f, "bottleneck compute %s, DDR %s, CPU %s of the layers' time%s; %s %s us\n",
            summary_fmt(a, sizeof(a), s->share_pct[0], "%.1f %%"), summary_fmt(b, sizeof(b), s->share_pct[1], "%.1f %%"),
            summary_fmt(c, sizeof(c), s->share_pct[2], "%.1f %%"), summary_uncounted_note(s, nm, sizeof(nm)),
            summary_io_label(s), summary_fmt(d, sizeof(d), s->io_us, "%.1f"));
    fprintf(f, "memory    weights %s, internal %s; %s\n", bytes_str(a, sizeof(a), s->weight_bytes),
            bytes_str(b, sizeof(b), s->internal_bytes), summary_onchip(s, c, sizeof(c)));
    if (s->n_load) {
        fprintf(f, "NPU load ");
        for (int k = 0; k < s->n_load; k++)
            fprintf(f, " Core%d %d%%%s", k, s->load_pct[k], k + 1 < s->n_load ? "," : "\n");
    } else {
        fprintf(f, "NPU load  n/a\n");
    }
    if (s->n_fallback) {
        fprintf(f, "%sCPU fallback:%s %s\n", red, lo, summary_fallback_head(s, "n/a", nm, sizeof(nm)));
        for (int k = 0; k < s->n_fallback; k++) {
            const store_layer *l = &s->layers[s->fallback[k]];
            fprintf(f, "  %5s %-16s %9s us  %s  (%s)\n", id_str(l, b, sizeof(b)),
                    tt(l->npu_op ? l->npu_op : l->op ? l->op : "?"),
                    summary_fmt(a, sizeof(a), summary_layer_us(s, l), "%.1f"),
                    tt(or_dash(store_layer_fullname(s->layers, s->fallback[k], nm, sizeof(nm)))),
                    l->cpu_reason ? tt(l->cpu_reason) : "reason n/a");
        }
    } else if (s->n_fallback_ops) {
        fprintf(f, "%sCPU fallback:%s %s\n", red, lo, summary_fallback_head(s, "n/a", nm, sizeof(nm)));
        for (int k = 0; k < s->ops.n; k++) {
            const summary_op *p = &s->ops.ops[k];
            if (summary_op_is_fallback(p))
                fprintf(f, "  %-16s %9s us on the CPU, %s calls\n", tt(p->op),
                        summary_fmt(a, sizeof(a), p->cpu_us, "%.0f"),
                        summary_fmt(b, sizeof(b), p->calls, "%.0f"));
        }
    } else {
        fprintf(f, "CPU fallback: none\n");
    }
    summary_ops_print(&s->ops, f);
    if (s->n_top) {
        summary_top_title(s, nm, sizeof(nm));
        nm[0] = 's';
        fprintf(f, "%s\n  %5s %-16s %-7s %-7s %10s %6s %7s %9s  %s\n", nm,
                "ID", "OpType", "dtype", "bound", "time us", "share", "MAC%", "RW KB", "FullName");
        for (int k = 0; k < s->n_top; k++) {
            const store_layer *l = summary_top_row(s, k);
            double t = s->top_by_table ? l->time_us : l->frame_us;
            double tot = s->top_by_table ? s->perf_table_us : s->frame_us;
            fprintf(f, "  %5s %-16s %-7s %-7s %10.1f %6s %7s %9s  %s\n", id_str(l, d, sizeof(d)),
                    tt(l->npu_op ? l->npu_op : l->op ? l->op : "?"), l->npu_dtype ? tt(l->npu_dtype) : "n/a",
                    l->bound ? tt(l->bound) : "n/a", t,
                    summary_fmt(a, sizeof(a), tot > 0 ? 100 * t / tot : NAN, "%.1f%%"),
                    summary_fmt(b, sizeof(b), l->mac_usage, "%.2f"), summary_fmt(c, sizeof(c), l->rw_kb, "%.1f"),
                    tt(or_dash(summary_top_fullname(s, k, nm, sizeof(nm)))));
        }
    }

    /* timed runs: this PC's CPU (sim), the board's rknn_run (board, attach), or
     * this project's library (simlib); a predicted vendor file or a log that
     * printed no timed runs has none */
    const char *what, *why = summary_timing_missing(s, &what, nm, sizeof(nm));
    if (why) {
        fprintf(f, "\n%-9s %s\n", what, tt(why));
    } else {
        fprintf(f, "\n%s %s: median %s ms, p90 %s ms, min %s ms, stddev %s ms\n",
                s->prov.timing == PROV_HOST || s->prov.timing == PROV_NONE ? "host     " : "timing    rknn_run,",
                provenance_words(s->prov.timing != PROV_NONE ? s->prov.timing : PROV_HOST),
                summary_fmt(a, sizeof(a), s->host_median_us / 1e3, "%.3f"),
                summary_fmt(b, sizeof(b), s->host_p90_us / 1e3, "%.3f"), summary_fmt(c, sizeof(c), s->host_min_us / 1e3, "%.3f"),
                summary_fmt(d, sizeof(d), s->host_stddev_us / 1e3, "%.3f"));
        fprintf(f, "          %s timed run%s after %s warm-up, %s thread%s\n",
                s->iterations >= 0 ? (snprintf(a, sizeof(a), "%lld", (long long)s->iterations), a) : "n/a",
                s->iterations == 1 ? "" : "s",
                s->warmup >= 0 ? (snprintf(b, sizeof(b), "%lld", (long long)s->warmup), b) : "n/a",
                s->threads >= 0 ? (snprintf(c, sizeof(c), "%lld", (long long)s->threads), c) : "n/a",
                s->threads == 1 ? "" : "s");
    }

    /* accuracy headline, when the run has per-layer errors */
    if (s->n_acc) {
        fprintf(f, "\naccuracy  vs the fp32 golden");
        if (s->worst_output >= 0) {
            const summary_output *o = &s->outputs[s->worst_output];
            const char *pb = summary_output_problem(o, nm, sizeof(nm));
            if (pb)
                fprintf(f, ": %s%s%s", red, tt(pb), lo);
            else
                fprintf(f, ": output '%s' cos %.5f, SQNR %s", tt(o->name), o->cos,
                        summary_fmt(a, sizeof(a), o->sqnr_db, "%.1f dB"));
        }
        fputc('\n', f);
        if (s->first_below >= 0)
            fprintf(f, "          first layer with cos < %g: %s (%s)\n", s->cos_threshold,
                    tt(s->acc[s->first_below].name), tt(s->acc[s->first_below].op ? s->acc[s->first_below].op : "?"));
        else
            fprintf(f, "          every layer keeps cos >= %g\n", s->cos_threshold);
        if (s->worst_single >= 0)
            fprintf(f, "          worst single layer: %s (%s), cos %.5f\n", tt(s->acc[s->worst_single].name),
                    tt(s->acc[s->worst_single].op ? s->acc[s->worst_single].op : "?"),
                    s->acc[s->worst_single].single.cos);
    }
    summary_print_eval(s, f);
    if (s->n_outputs) /* a log keeps none */
        fputs("\noutputs\n", f);
    for (int k = 0; k < s->n_outputs; k++) {
        const summary_output *o = &s->outputs[k];
        fprintf(f, "  %s %s %s", o->name ? tt(o->name) : "?", o->dtype ? tt(o->dtype) : "n/a",
                o->shape ? tt(o->shape) : "n/a");
        if (o->acc >= 0)
            fprintf(f, "  cos %s SQNR %s max|err| %s", summary_fmt(a, sizeof(a), o->cos, "%.5f"),
                    summary_fmt(b, sizeof(b), o->sqnr_db, "%.1f dB"), summary_fmt(c, sizeof(c), o->max_abs, "%.4g"));
        if (summary_output_problem(o, nm, sizeof(nm)))
            fprintf(f, "  %s%s%s", red, tt(nm), lo);
        fputc('\n', f);
    }
    if (s->dump_dir)
        fprintf(f, "dump      %s\n", tt(s->dump_dir));
    summary_log_print(&s->log, r->status, f);
}

void summary_print_accuracy(const run_summary *s, FILE *f, int color)
{
    const store_run *r = s->run;
    if (!s->n_acc)
        return;
    fprintf(f, "\n# quantization: %s", r->quant ? tt(r->quant) : "n/a");
    if (r->quant_algo)
        fprintf(f, " (asymmetric_quantized-8), algo %s, method %s", tt(r->quant_algo),
                r->quant_method ? tt(r->quant_method) : "n/a");
    if (s->calib_samples >= 0)
        fprintf(f, ", %lld calibration sample%s", (long long)s->calib_samples,
                s->calib_samples == 1 ? "" : "s");
    if (s->int8_layers >= 0 && r->quant_algo)
        fprintf(f, ", %lld int8 layers", (long long)s->int8_layers);
    if (s->fp16_layers > 0 || s->cfg_params > 0)
        fprintf(f, "; hybrid: %lld layer%s in fp16, %lld activation parameter%s from the file",
                (long long)s->fp16_layers, s->fp16_layers == 1 ? "" : "s", (long long)s->cfg_params,
                s->cfg_params == 1 ? "" : "s");
    fputc('\n', f);
    accuracy_print_stored(s->acc, s->n_acc, f, s->cos_threshold, color,
                          r->import_kind && r->backend && !strcmp(r->backend, "board"));
}

/* ---- JSON (docs/json.md) --------------------------------------------------- */

static void j_num(json_writer *w, const char *k, double v)
{
    json_key(w, k);
    json_num(w, v);
}

static void j_str(json_writer *w, const char *k, const char *v)
{
    json_key(w, k);
    json_str(w, v);
}

static void j_raw(json_writer *w, const char *k, const char *v)
{
    json_key(w, k);
    json_raw(w, v);
}

/* us: the layer's cost as the text and the reports print it (summary_layer_us) */
static void j_layer_ref(json_writer *w, const run_summary *s, const store_layer *l,
                        const char *full_name, double us)
{
    double frame = s->frame_us;
    json_obj_open(w);
    json_key_int(w, "layer", l->idx, STORE_NULL_INT);
    json_key_int(w, "table_id", l->table_id, STORE_NULL_INT);
    j_str(w, "op_type", l->npu_op ? l->npu_op : l->op);
    j_str(w, "full_name", full_name && *full_name ? full_name : NULL);
    j_str(w, "name", l->name);
    j_str(w, "dtype", l->npu_dtype);
    j_str(w, "bound", l->bound);
    j_str(w, "reason", l->cpu_reason);
    j_num(w, "frame_us", l->frame_us);
    j_num(w, "pct", frame > 0 ? 100.0 * l->frame_us / frame : NAN);
    j_num(w, "us", us);
    json_obj_close(w);
}

static const char *state_name(int st)
{
    switch (st) {
    case SUM_OUT_OK: return "ok";
    case SUM_OUT_CONSTANT: return "constant";
    case SUM_OUT_NONFINITE: return "nonfinite";
    case SUM_OUT_REF_CONSTANT: return "golden_constant";
    }
    return NULL;
}

void summary_json_doc(const run_summary *s, const store_output *outs, int n_outs, json_writer *w)
{
    const store_run *r = s->run;
    char buf[256], nm[256];

    json_obj_open(w);
    json_key(w, "schema_version"), json_int(w, SUMMARY_SCHEMA_VERSION);
    j_str(w, "kind", "run");
    json_key(w, "id");
    if (r->id > 0)
        json_int(w, r->id);
    else
        json_write_null(w);
    json_key(w, "run_id");
    if (r->id > 0)
        json_int(w, r->id);
    else
        json_write_null(w);
    j_str(w, "label", r->label);
    j_str(w, "time", r->time);
    j_str(w, "status", r->status);
    j_str(w, "model", r->model_path);
    j_str(w, "model_sha256", r->model_sha256);
    j_str(w, "model_format", r->model_format);
    j_str(w, "platform", r->platform);
    j_str(w, "backend", r->backend);
    j_str(w, "quant", r->quant);
    j_str(w, "quant_algo", r->quant_algo);
    j_str(w, "quant_method", r->quant_method);
    json_key_int(w, "seed", r->seed, STORE_NULL_INT);
    j_str(w, "tool_version", r->tool_version);
    j_str(w, "dump_dir", s->dump_dir);
    j_str(w, "dump_sha256", r->dump_sha256);
    j_raw(w, "inputs", r->inputs_json);
    json_key_int(w, "layer_count", s->n_layers, -1);

    json_key(w, "provenance");
    json_obj_open(w);
    j_str(w, "frame", provenance_tag(s->prov.frame));
    j_str(w, "table", provenance_tag(s->prov.table));
    j_str(w, "timing", provenance_tag(s->prov.timing));
    j_str(w, "top", provenance_tag(s->top_prov));
    json_key(w, "imported");
    json_bool(w, s->prov.imported);
    json_key(w, "words");
    json_str(w, provenance_line(&s->prov, buf, sizeof(buf)));
    json_obj_close(w);

    json_key(w, "npu");
    json_obj_open(w);
    j_str(w, "provenance", provenance_tag(s->prov.frame));
    j_str(w, "perf_table_provenance", provenance_tag(s->prov.table));
    j_num(w, "predicted_us", s->frame_us);
    j_num(w, "fps", s->fps);
    j_num(w, "perf_table_us", s->perf_table_us);
    json_key(w, "perf_table_is_sum");
    json_bool(w, s->table_is_sum);
    j_num(w, "io_us", s->io_us);
    json_key(w, "clock_mhz");
    if (s->npu_mhz > 0)
        json_int(w, s->npu_mhz);
    else
        json_write_null(w);
    json_key(w, "error_band");
    json_obj_open(w);
    j_num(w, "mean_abs_pct", SUMMARY_BAND_MEAN_PCT);
    j_num(w, "limit_pct", SUMMARY_BAND_LIMIT_PCT);
    json_key(w, "pairs_within"), json_int(w, SUMMARY_BAND_WITHIN);
    json_key(w, "pairs"), json_int(w, SUMMARY_BAND_PAIRS);
    j_str(w, "source", SUMMARY_BAND_SOURCE);
    json_obj_close(w);
    json_key(w, "share");
    json_obj_open(w);
    j_num(w, "compute", s->share_pct[0]);
    j_num(w, "DDR", s->share_pct[1]);
    j_num(w, "CPU", s->share_pct[2]);
    j_num(w, "uncounted", s->share_uncounted_pct);
    json_obj_close(w);
    json_key(w, "load");
    if (s->n_load) {
        json_arr_open(w);
        for (int k = 0; k < s->n_load; k++)
            json_int(w, s->load_pct[k]);
        json_arr_close(w);
    } else {
        json_write_null(w);
    }
    json_key_int(w, "cores", s->n_cores, -1);
    json_key_int(w, "weight_bytes", s->weight_bytes, -1);
    json_key_int(w, "internal_bytes", s->internal_bytes, -1);
    j_num(w, "sram_saved_kb", s->sram_saved_kb);
    j_num(w, "nbuf_saved_kb", s->nbuf_saved_kb);
    json_key(w, "fallback");
    json_obj_open(w);
    json_key_int(w, "count", s->n_fallback, STORE_NULL_INT);
    json_key_int(w, "op_types", s->ops.n && !s->n_layers ? s->n_fallback_ops : STORE_NULL_INT,
                 STORE_NULL_INT);
    j_num(w, "us", s->fallback_us);
    j_num(w, "pct", s->fallback_pct);
    j_str(w, "provenance", isnan(s->fallback_us) ? NULL : provenance_tag(s->top_prov));
    json_key(w, "layers");
    json_arr_open(w);
    for (int k = 0; k < s->n_fallback; k++)
        j_layer_ref(w, s, &s->layers[s->fallback[k]],
                    store_layer_fullname(s->layers, s->fallback[k], nm, sizeof(nm)),
                    summary_layer_us(s, &s->layers[s->fallback[k]]));
    json_arr_close(w);
    json_obj_close(w);
    j_str(w, "top_by", s->top_by_table ? "time_us" : "frame_us");
    json_key(w, "top");
    json_arr_open(w);
    for (int k = 0; k < s->n_top; k++)
        j_layer_ref(w, s, summary_top_row(s, k), summary_top_fullname(s, k, nm, sizeof(nm)),
                    summary_layer_us(s, summary_top_row(s, k)));
    json_arr_close(w);
    summary_ops_json(&s->ops, w);
    json_key(w, "op_ranking_cpu_is_rest");
    json_bool(w, s->ops.cpu_is_rest);
    json_obj_close(w);

    json_key(w, "host");
    json_obj_open(w);
    j_str(w, "provenance", provenance_tag(s->prov.timing));
    j_str(w, "note", provenance_words(s->prov.timing != PROV_NONE ? s->prov.timing : PROV_HOST));
    {
        char miss[512];
        const char *what;
        j_str(w, "missing", summary_timing_missing(s, &what, miss, sizeof(miss)));
    }
    j_num(w, "median_us", s->host_median_us);
    j_num(w, "p90_us", s->host_p90_us);
    j_num(w, "min_us", s->host_min_us);
    j_num(w, "stddev_us", s->host_stddev_us);
    json_key_int(w, "iterations", s->iterations, -1);
    json_key_int(w, "warmup", s->warmup, -1);
    json_key_int(w, "threads", s->threads, -1);
    json_obj_close(w);

    json_key(w, "accuracy");
    if (!s->n_acc) {
        json_write_null(w);
    } else {
        json_obj_open(w);
        j_str(w, "quant", r->quant);
        j_str(w, "quant_algo", r->quant_algo);
        j_str(w, "quant_method", r->quant_method);
        json_key_int(w, "calibration_samples", s->calib_samples, -1);
        json_key_int(w, "int8_layers", s->int8_layers, -1);
        json_key_int(w, "fp16_layers", s->fp16_layers, -1);
        json_key_int(w, "cfg_parameters", s->cfg_params, -1);
        j_num(w, "cos_threshold", s->cos_threshold);
        j_str(w, "worst_output", s->worst_output >= 0 ? s->outputs[s->worst_output].name : NULL);
        j_num(w, "output_cos", s->out_cos);
        j_num(w, "output_sqnr_db", s->out_sqnr_db);
        json_key_int(w, "collapsed_outputs", s->n_collapsed, STORE_NULL_INT);
        j_str(w, "first_below", s->first_below >= 0 ? s->acc[s->first_below].name : NULL);
        j_str(w, "worst_single", s->worst_single >= 0 ? s->acc[s->worst_single].name : NULL);
        json_key(w, "layers");
        accuracy_json_stored(s->acc, s->n_acc, w);
        json_key(w, "outputs");
        accuracy_json_outputs(s->acc, s->n_acc, w);
        json_obj_close(w);
    }
    json_key(w, "eval");
    summary_eval_json(&s->eval, w);
    json_key(w, "log");
    summary_log_json(&s->log, w);

    json_key(w, "outputs");
    json_arr_open(w);
    for (int k = 0; k < s->n_outputs; k++) {
        const summary_output *o = &s->outputs[k];
        json_obj_open(w);
        j_str(w, "name", o->name);
        j_raw(w, "shape", o->shape);
        j_str(w, "dtype", o->dtype);
        j_str(w, "dump_file", k < n_outs ? outs[k].dump_file : NULL);
        j_num(w, "cos", o->cos);
        j_num(w, "sqnr_db", o->sqnr_db);
        j_num(w, "max_abs", o->max_abs);
        j_str(w, "state", state_name(o->state));
        j_str(w, "problem", summary_output_problem(o, buf, sizeof(buf)));
        json_obj_close(w);
    }
    json_arr_close(w);

    json_key(w, "layers");
    json_arr_open(w);
    for (int i = 0; i < s->n_layers; i++) {
        const store_layer *l = &s->layers[i];
        json_obj_open(w);
        json_key_int(w, "index", l->idx, STORE_NULL_INT);
        json_key_int(w, "table_id", l->table_id, STORE_NULL_INT);
        j_str(w, "node", l->node);
        j_str(w, "op", l->op);
        j_str(w, "name", l->name);
        j_raw(w, "in_shapes", l->in_shapes);
        j_raw(w, "out_shapes", l->out_shapes);
        j_str(w, "dtype", l->dtype);
        j_num(w, "host_us", l->host_us);
        j_str(w, "target", l->target);
        j_str(w, "npu_op", l->npu_op);
        j_str(w, "npu_dtype", l->npu_dtype);
        j_str(w, "bound", l->bound);
        j_str(w, "cpu_reason", l->cpu_reason);
        json_key_int(w, "npu_cycles", l->npu_cycles, STORE_NULL_INT);
        json_key_int(w, "ddr_cycles", l->ddr_cycles, STORE_NULL_INT);
        json_key_int(w, "total_cycles", l->total_cycles, STORE_NULL_INT);
        j_num(w, "time_us", l->time_us);
        j_num(w, "frame_us", l->frame_us);
        j_num(w, "mac_usage", l->mac_usage);
        j_num(w, "rw_kb", l->rw_kb);
        j_num(w, "sram_hit", l->sram_hit);
        j_str(w, "workload", l->workload);
        json_key_int(w, "tasks", l->tasks, STORE_NULL_INT);
        j_num(w, "out_scale", l->out_scale);
        json_key_int(w, "out_zp", l->out_zp, STORE_NULL_INT);
        j_str(w, "out_qtype", l->out_qtype);
        j_num(w, "out_min", l->out_min);
        j_num(w, "out_max", l->out_max);
        j_num(w, "out_mean", l->out_mean);
        j_num(w, "out_std", l->out_std);
        json_obj_close(w);
    }
    json_arr_close(w);
    json_obj_close(w);
}
