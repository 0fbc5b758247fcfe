/* cli/cmd_run.c — `rknn-trace run MODEL`: load, prepare, feed inputs, execute
 * layer by layer, dump and record the run. */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "cli/custom_op.h"
#include "cli/input_file.h"
#include "cli/quant_cli.h"
#include "cli/run_cli.h"
#include "record/inputs.h"
#include "record/source_sim.h"
#include "dump/dump.h"
#include "runtime/exec/exec.h"
#include "runtime/npu/npu.h"
#include "runtime/passes/passes.h"
#include "runtime/quant/quant.h"
#include "util/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct run_state {
    graph_t *g;
    dump_dir *dump;     /* set for the one untimed pass that writes the dumps */
    double *layer_us;   /* per executed layer, median over the timed iterations */
    int n_layers;
    float *sample;      /* this timed pass's row of per-layer times, or NULL */
    run_layer_stats *stats; /* set for the one untimed pass that computes them */
    char err[512];
} run_state;

static int on_layer(const layer_event_t *ev, void *user)
{
    run_state *s = user;
    if (ev->index >= s->n_layers)
        return RT_EINTERNAL;
    if (s->sample)
        s->sample[ev->index] = (float)ev->host_us;
    if (s->stats)
        run_layer_stats_of(ev->n_out ? ev->out[0] : NULL, &s->stats[ev->index]);
    if (!s->dump)
        return RT_OK;
    for (int k = 0; k < ev->n_out; k++) {
        const tensor_t *t = ev->out[k];
        if (!t)
            continue;
        int rc = dump_dir_add(s->dump, ev->index, ev->name, ev->op, t->name, t->dtype, t->ndim,
                              t->dims, t->data, s->err, sizeof(s->err));
        if (rc)
            return rc;
    }
    return RT_OK;
}

/* The dtype the NPU model lowers a run of quantization type quant to. */
static int run_npu_dtype(const char *quant)
{
    return !strcmp(quant, "i8") ? DT_INT8 : !strcmp(quant, "fp16") ? DT_FLOAT16 : DT_FLOAT;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define AUTO_MIN_ITERS 10        /* default timed runs: at least this many ... */
#define AUTO_MIN_US 1e6          /* ... and at least this long */
#define SLOW_RUN_US 1e6          /* a run over this: 1 warm-up, 3 timed runs */
#define SLOW_MIN_ITERS 3
#define AUTO_MAX_ITERS 100000LL  /* bounds the default on tiny models */
#define MAX_SAMPLES (8LL << 20)  /* per-layer times kept (32 MiB): the first
                                    MAX_SAMPLES / layers timed runs give the medians */

/* One pass over the graph; *us is its wall time. A pass that only times runs
 * fused as an application's would (a conv with its activation chain: the
 * chain's time is the conv's, its other layers get none, NaN); the passes
 * that dump or take statistics see every layer's output. */
static int run_pass(exec_t *x, run_state *st, double *us, char *err, size_t errlen)
{
    int timing = !st->dump && !st->stats;
    if (st->sample)
        for (int l = 0; l < st->n_layers; l++)
            st->sample[l] = NAN;
    double t0 = rt_now_us();
    int rc = timing ? exec_run_timed(x, on_layer, st, err, errlen)
                    : exec_run(x, on_layer, st, err, errlen);
    *us = rt_now_us() - t0;
    if (rc && st->err[0])
        snprintf(err, errlen, "%s", st->err);
    return rc;
}

enum { PROGRESS_OFF, PROGRESS_TTY, PROGRESS_LINES };

/* On a terminal "\rwarm-up 1/2" / "\rrun 37 (0.4 s)" at most ten times a
 * second; elsewhere (a CI log, a pipe) one plain line every five seconds, so
 * that a long run shows it is alive without filling the log. */
static void progress(int mode, double *last, const char *what, long long i, long long n,
                     double elapsed_us)
{
    double now = rt_now_us();
    if (mode == PROGRESS_OFF || now - *last < (mode == PROGRESS_TTY ? 1e5 : 5e6))
        return;
    if (mode == PROGRESS_LINES && *last == 0) { /* the first line after 5 s, not at once */
        *last = now;
        return;
    }
    *last = now;
    const char *cr = mode == PROGRESS_TTY ? "\r" : "rknn-trace: ";
    const char *end = mode == PROGRESS_TTY ? "   " : "\n";
    if (n > 0)
        fprintf(stderr, "%s%s %lld/%lld%s", cr, what, i, n, end);
    else
        fprintf(stderr, "%s%s %lld (%.1f s)%s", cr, what, i, elapsed_us / 1e6, end);
}

/* What `run` was asked, once its options are read. */
typedef struct run_opts {
    const char *model, *target, *quant, *dump, *label, *db;
    const char **in_name, **in_file; /* RUN_MAX_ARGS slots: the dataset's first sample may add */
    int n_in;
    input_shape_t *shapes;
    int n_shapes;
    int json, no_db, npu_table, sram, dump_overwrite;
    long long seed, iters, warmup, threads, core_mask;
    size_t max_memory;
    const npu_platform_t *plat;
    quant_cli *qc;
} run_opts;

/* What a simulated run holds until it is recorded (sim_free releases it). */
typedef struct run_sim {
    graph_t *g;
    exec_t *x;
    exec_opts eo;
    npu_session_t *npu;
    npy_array *given;
    void **bufs;
    float *qin;
    double *iter_us;
    float *samples;
    long long warm, iters;
    run_state st;
    run_record rec;
    quant_dataset ds0;
    accuracy_report *acc;
    quant_graph *qg;
    run_layer_stats *stats;
    int stats_done;
    char *eval_json;
    size_t in_bytes;
    char err[1024];
} run_sim;

/* The inputs held here count against the memory limit, checked before
 * allocating them (a huge symbolic shape, a 2^31-element input). */
static int sim_memory_check(run_sim *r, const run_opts *o)
{
    graph_t *g = r->g;
    size_t mem_limit = o->max_memory ? o->max_memory : exec_default_memory_limit();
    for (int j = 0; j < g->n_inputs; j++) {
        size_t nb = tensor_nbytes(&g->t[g->inputs[j]]);
        r->in_bytes = nb > SIZE_MAX - r->in_bytes ? SIZE_MAX : r->in_bytes + nb;
    }
    /* the arena holds every input and output for the whole run: a lower bound */
    size_t out_bytes = 0;
    for (int j = 0; j < g->n_outputs; j++) {
        const tensor_t *t = &g->t[g->outputs[j]];
        int is_input = 0;
        for (int k = 0; k < g->n_inputs; k++)
            is_input |= g->inputs[k] == g->outputs[j];
        if (!is_input && t->kind != TK_CONST)
            out_bytes += tensor_nbytes(t);
    }
    if (r->in_bytes > mem_limit || out_bytes > mem_limit ||
        r->in_bytes > (mem_limit - out_bytes) / 2) {
        char a[32], b[32], c[32];
        return rt_err(r->err, sizeof(r->err), RT_EUNSUPPORTED,
                      "the model needs at least %s of inputs (held twice) and %s of outputs, "
                      "limit %s (--max-memory SIZE sets it)",
                      exec_format_bytes(a, sizeof(a), r->in_bytes),
                      exec_format_bytes(b, sizeof(b), out_bytes),
                      exec_format_bytes(c, sizeof(c), mem_limit));
    }
    r->eo = (exec_opts){.nthreads = (int)o->threads, .max_memory = mem_limit,
                        .held_bytes = r->in_bytes};
    return RT_OK;
}

/* Each input's buffer: the file given for it, else random data from --seed. */
static int sim_inputs(run_sim *r, const run_opts *o)
{
    graph_t *g = r->g;
    char *err = r->err;
    size_t errlen = sizeof(r->err);
    int rc;

    r->bufs = xcalloc((size_t)(g->n_inputs ? g->n_inputs : 1), sizeof(*r->bufs));
    r->rec.inputs = xcalloc((size_t)(g->n_inputs ? g->n_inputs : 1), sizeof(*r->rec.inputs));
    for (int j = 0; j < g->n_inputs; j++) {
        tensor_t *t = &g->t[g->inputs[j]];
        const char *file = NULL;
        size_t nbytes = tensor_nbytes(t);
        char shape[128];
        for (int k = 0; k < o->n_in; k++) {
            if (strcmp(o->in_name[k], t->name))
                continue;
            if (t->dtype == DT_FLOAT) /* float16 data widened, exactly */
                npy_widen_f16(&r->given[k]);
            if (r->given[k].dtype != t->dtype)
                return rt_err(err, errlen, RT_EFORMAT,
                              "%s: dtype %s, but input '%s' is %s (convert it, e.g. "
                              "a.astype(np.%s))", o->in_file[k], dtype_name(r->given[k].dtype),
                              t->name, dtype_name(t->dtype), dtype_name(t->dtype));
            if (r->given[k].nbytes != nbytes)
                return rt_err(err, errlen, RT_ESHAPE, "%s: %zu bytes, input '%s' needs %s %s",
                              o->in_file[k], r->given[k].nbytes, t->name, dtype_name(t->dtype),
                              tensor_shape_str(t, shape, sizeof(shape)));
            r->bufs[j] = r->given[k].data;
            file = o->in_file[k];
        }
        if (!r->bufs[j]) {
            if (posix_memalign(&r->bufs[j], 64, nbytes ? nbytes : 64)) {
                char a[32];
                r->bufs[j] = NULL;
                return rt_err(err, errlen, RT_ENOMEM, "cannot allocate %s for input '%s'",
                              exec_format_bytes(a, sizeof(a), nbytes), t->name);
            }
            r->rec.inputs[j].below = seed_input_bound(g, g->inputs[j]);
            if ((rc = seed_input_fill_below(t->dtype, tensor_numel(t), o->seed, j,
                                            r->rec.inputs[j].below, r->bufs[j]))) {
                rt_err(err, errlen, rc, "input '%s': no random generator for dtype %s; "
                       "give -i %s=FILE.npy", t->name, dtype_name(t->dtype), t->name);
                return rc;
            }
        }
        r->rec.inputs[j].file = file;
        r->rec.inputs[j].data = r->bufs[j];
        r->rec.inputs[j].nbytes = nbytes;
    }
    return RT_OK;
}

/* The executor of the graph to time, its inputs set (quantized for a quantized
 * graph), the dump folder opened with the inputs in it. */
static int sim_exec_prepare(run_sim *r, const run_opts *o)
{
    graph_t *g = r->g;
    char *err = r->err;
    size_t errlen = sizeof(r->err);
    int rc = exec_create(g, &r->eo, &r->x, err, errlen);

    if (rc == RT_EUNSUPPORTED) { /* over the memory limit */
        size_t n = strlen(err);
        snprintf(err + n, errlen - n, " (--max-memory SIZE sets it)");
    }
    if (rc)
        return rc;
    if (o->dump && (rc = dump_dir_open(o->dump, &r->st.dump, err, errlen)))
        return rc;
    for (int j = 0; j < g->n_inputs; j++) {
        tensor_t *t = &g->t[g->inputs[j]];
        size_t nbytes = tensor_nbytes(t);
        const void *in = r->bufs[j];
        r->rec.inputs[j].name = t->name;
        if (r->qg && t->dtype == DT_FLOAT) {
            free(r->qin);
            r->qin = xmalloc(nbytes ? nbytes : 1);
            memcpy(r->qin, r->bufs[j], nbytes);
            quant_graph_output(r->qg, g->inputs[j], r->qin);
            in = r->qin;
        }
        if ((rc = exec_set_input(r->x, j, in, nbytes, err, errlen)))
            return rc;
        if (r->st.dump && (rc = dump_dir_add(r->st.dump, -1, NULL, NULL, t->name, t->dtype,
                                             t->ndim, t->dims, in, err, errlen)))
            return rc;
    }
    return RT_OK;
}

/* The passes over the graph: the dumps' (with the layer statistics), the
 * warm-ups, the timed runs and each layer's median time. */
static int sim_timing(run_sim *r, const run_opts *o)
{
    run_state *st = &r->st;
    char *err = r->err;
    size_t errlen = sizeof(r->err);
    int rc;

    st->g = r->g;
    for (int i = 0; i < r->g->n_nodes; i++)
        st->n_layers += !r->g->nodes[i].folded;
    st->layer_us = xcalloc((size_t)(st->n_layers ? st->n_layers : 1), sizeof(double));
    long long sample_runs = MAX_SAMPLES / (st->n_layers ? st->n_layers : 1);
    if (sample_runs < 1)
        sample_runs = 1;
    int tty = o->qc->no_progress ? PROGRESS_OFF
              : isatty(STDERR_FILENO) ? PROGRESS_TTY : PROGRESS_LINES;
    double us, last_progress = 0;

    /* The layer output statistics come from the first untimed pass (the dumps'
     * or the first warm-up), never from a timed one. */
    r->stats = xmalloc(sizeof(*r->stats) * (size_t)(st->n_layers ? st->n_layers : 1));
    for (int l = 0; l < st->n_layers; l++)
        run_layer_stats_of(NULL, &r->stats[l]);
    st->stats = r->stats;
    /* The dumps come from a pass of their own: no file I/O in a timed run. */
    if (st->dump) {
        rc = run_pass(r->x, st, &us, err, errlen);
        r->stats_done = !rc;
        st->stats = NULL;
        if (!rc)
            rc = dump_dir_close(st->dump, err, errlen);  /* frees it either way */
        else
            dump_dir_discard(st->dump);
        st->dump = NULL;
        if (!rc)
            rc = dump_dir_hash(o->dump, r->rec.dump_sha256, err, errlen);
        if (rc)
            return rc;
    }
    /* Warm-ups: caches, page faults of the arena, the thread pool. */
    long long warmup = o->warmup;
    double first_us = 0;
    while (warmup >= 0 ? r->warm < warmup
                       : r->warm < 2 && !(r->warm == 1 && first_us > SLOW_RUN_US)) {
        progress(tty, &last_progress, "warm-up", r->warm + 1, warmup >= 0 ? warmup : 2, 0);
        if ((rc = run_pass(r->x, st, &us, err, errlen)))
            return rc;
        r->stats_done |= st->stats != NULL;
        st->stats = NULL;
        if (r->warm++ == 0)
            first_us = us;
    }
    st->stats = NULL;
    /* Timed runs: -n of them, else a budget (see usage). */
    long long iters = o->iters, n = 0, cap = iters ? iters : AUTO_MIN_ITERS;
    double t_start = rt_now_us(), sum_us = 0;
    r->iter_us = xmalloc(sizeof(double) * (size_t)cap);
    long long scap = 0; /* rows of samples */
    for (;;) {
        double elapsed = rt_now_us() - t_start;
        if (iters ? n >= iters
                  : (n >= AUTO_MIN_ITERS && elapsed >= AUTO_MIN_US) ||
                        (n >= SLOW_MIN_ITERS && sum_us / (double)n > SLOW_RUN_US) ||
                        n >= AUTO_MAX_ITERS)
            break;
        progress(tty, &last_progress, "run", n + 1, iters, elapsed);
        if (n == cap) {
            cap *= 2;
            r->iter_us = xrealloc(r->iter_us, sizeof(double) * (size_t)cap);
        }
        if (n < sample_runs && n == scap) {
            scap = scap ? 2 * scap : AUTO_MIN_ITERS;
            scap = scap < sample_runs ? scap : sample_runs;
            r->samples = xrealloc(r->samples,
                                  sizeof(float) * (size_t)scap * (size_t)(st->n_layers + 1));
        }
        st->sample = n < sample_runs ? r->samples + n * st->n_layers : NULL;
        if ((rc = run_pass(r->x, st, &r->iter_us[n], err, errlen)))
            return rc;
        sum_us += r->iter_us[n++];
    }
    st->sample = NULL;
    if (tty == PROGRESS_TTY && last_progress > 0)
        fputs("\r\033[K", stderr);
    r->iters = n;
    /* Per layer, the median: one preempted run does not move it (a mean would). */
    long long ns = n < sample_runs ? n : sample_runs;
    double *col = xmalloc(sizeof(double) * (size_t)ns);
    for (int l = 0; l < st->n_layers; l++) {
        for (long long k = 0; k < ns; k++)
            col[k] = r->samples[k * st->n_layers + l];
        qsort(col, (size_t)ns, sizeof(double), cmp_double);
        st->layer_us[l] = ns % 2 ? col[ns / 2] : (col[ns / 2 - 1] + col[ns / 2]) / 2;
    }
    free(col);
    return RT_OK;
}

/* The NPU model: the graph as the chip would run it, costed per layer, its
 * frames' load published. */
static int sim_npu(run_sim *r, const run_opts *o)
{
    npu_session_opts so = {.plat = o->plat, .dtype = run_npu_dtype(o->quant),
                           .core_mask = (unsigned)o->core_mask, .sram = o->sram};
    int rc = npu_session_open(r->g, &so, &r->npu, NULL, r->err, sizeof(r->err));

    if (rc)
        return rc;
    /* Frames back to back: the window is the predicted time of all of them. */
    if (npu_session_load_frames(r->npu, r->iters, &r->rec.load, r->err, sizeof(r->err)))
        fprintf(stderr, "rknn-trace: warning: NPU load not published: %s\n", r->err);
    if (o->npu_table && !o->json) {
        if (o->sram)
            npu_print_sram_table(stdout, r->npu->ng, 0);
        npu_print_perf_table(stdout, r->npu->ng, 0);
    }
    return RT_OK;
}

/* The run's rows: recorded (unless --no-db) and printed. An exit code. */
static int sim_record(run_sim *r, const run_opts *o)
{
    run_record *rec = &r->rec;
    accuracy_report *acc = r->acc;

    rec->iter_us = r->iter_us;
    rec->model = o->model;
    rec->platform = o->target;
    rec->backend = store_backend_name(BACKEND_SIM);
    rec->quant = o->quant;
    rec->label = o->label;
    rec->seed = o->seed;
    rec->iters = r->iters;
    rec->warmup = r->warm;
    /* the count the frames ran on: a small model runs on one whatever was asked */
    rec->threads = exec_threads(r->x);
    rec->layer_us = r->st.layer_us;
    rec->n_layers = r->st.n_layers;
    rec->dump_dir = o->dump;
    rec->g = r->g;
    rec->x = r->x;
    rec->ng = r->npu->ng;
    if (acc) {
        rec->quantized = 1;
        if (acc->type == QT_I8) {
            rec->quant_algo = quant_algo_name(acc->algo);
            rec->quant_method = quant_method_name(acc->method);
        }
        rec->calib_samples = acc->n_samples;
        rec->int8_layers = acc->n_int8_nodes;
        rec->fp16_layers = acc->n_fp16_nodes;
        rec->cfg_params = acc->n_cfg_params;
        rec->acc_rows = accuracy_store_rows(acc);
        rec->n_acc = acc->n_rows;
        if (acc->n_eval)
            rec->eval_json = r->eval_json = accuracy_eval_json(acc);
    }
    rec->qg = r->qg;
    rec->stats = r->stats_done ? r->stats : NULL;
    return run_record_finish(rec, !o->no_db, o->db, o->json, o->qc->cos_threshold);
}

static void sim_free(run_sim *r, const run_opts *o)
{
    if (r->st.dump)
        dump_dir_discard(r->st.dump);
    if (r->bufs) {
        for (int j = 0; j < r->g->n_inputs; j++) {
            int owned = 1;
            for (int k = 0; k < o->n_in; k++)
                owned &= r->bufs[j] != r->given[k].data;
            if (owned)
                free(r->bufs[j]);
        }
    }
    for (int k = 0; r->given && k < o->n_in; k++)
        npy_free(&r->given[k]);
    free(r->given);
    quant_dataset_free(&r->ds0);
    free(r->bufs);
    free(r->rec.inputs);
    free(r->rec.acc_rows); /* not taken by rows that failed to build */
    free(r->st.layer_us);
    free(r->samples);
    npu_session_close(r->npu);
    free(r->iter_us);
    exec_free(r->x);
    graph_free(r->g);
    free(r->qin);
    quant_graph_free(r->qg);
    free(r->stats);
    accuracy_report_free(r->acc);
    free(r->eval_json);
}

/* Loads and prepares the model with its inputs; -q i8/fp16 calibrate and
 * analyse against the fp32 golden, then the run (its layer times, dumps,
 * stored layers) is the quantized graph's. An exit code, or EXIT_INTERNAL
 * with rc set on an error still to be printed. */
static int sim_load(run_sim *r, run_opts *o, int *rc)
{
    char *err = r->err;
    size_t errlen = sizeof(r->err);
    quant_cli *qc = o->qc;
    int ret;

    if ((*rc = model_load_file(o->model, &r->g, err, errlen)))
        return EXIT_INTERNAL;
    /* -q with --dataset and no -i: the accuracy check (and the timed run) feed
     * the dataset's first sample, not random noise */
    if (!o->n_in && (qc->dataset || qc->eval) && strcmp(o->quant, "fp32")) {
        if ((*rc = quant_dataset_load(qc->dataset ? qc->dataset : qc->eval, r->g->n_inputs,
                                      &r->ds0, err, errlen)))
            return EXIT_INTERNAL;
        for (int j = 0; j < r->g->n_inputs && o->n_in < RUN_MAX_ARGS; j++) {
            o->in_name[o->n_in] = r->g->t[r->g->inputs[j]].name;
            o->in_file[o->n_in++] = r->ds0.files[j];
        }
    }
    /* Given inputs: read them first, so that their shapes fix dynamic dims. */
    r->given = xcalloc((size_t)(o->n_in ? o->n_in : 1), sizeof(*r->given));
    if ((*rc = cli_inputs_read(r->g, o->in_name, o->in_file, o->n_in, qc->mean, qc->std,
                               r->given, o->shapes, &o->n_shapes, RUN_MAX_ARGS, err, errlen)) ||
        (*rc = passes_prepare(r->g, o->shapes, o->n_shapes, err, errlen)))
        return EXIT_INTERNAL;
    /* a custom node runs through a --custom-op library: none, refused before any work */
    int nc = custom_op_unprovided(r->g);
    if (nc >= 0) {
        *rc = rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' is custom op %s: give --custom-op "
                     "LIB.so, a library exporting get_rknn_custom_op() with the application's "
                     "callbacks", r->g->nodes[nc].name, r->g->nodes[nc].op);
        return EXIT_INTERNAL;
    }
    /* a model the chip cannot run (an op neither its NPU nor its runtime's CPU
     * has) is refused before calibration and timing, not after them */
    npu_graph_t *ng = NULL;
    *rc = npu_lower(r->g, o->plat, run_npu_dtype(o->quant), &ng, err, errlen);
    npu_graph_free(ng);
    if (*rc || (*rc = sim_memory_check(r, o)) || (*rc = sim_inputs(r, o)))
        return EXIT_INTERNAL;
    if (strcmp(o->quant, "fp32") != 0) {
        qc->threads = (int)o->threads;
        qc->max_memory = r->eo.max_memory;
        ret = quant_cli_analyse(qc, o->quant, o->model, r->g, (const void *const *)r->bufs,
                                o->json, &r->acc);
        if (ret != EXIT_OK)
            return ret;
        if (r->ds0.n_samples) /* said once the dataset has been read without error */
            fprintf(stderr, "rknn-trace: input: the first %s sample (%s%s)\n",
                    qc->dataset ? "--dataset" : "--eval", r->ds0.files[0],
                    r->ds0.n_inputs > 1 ? ", ..." : "");
        r->qg = r->acc->qg;
        graph_free(r->g);
        r->g = r->acc->qgraph;
        r->acc->qg = NULL;
        r->acc->qgraph = NULL;
    }
    return EXIT_OK;
}

/* `run` on the simulated runtime: load, prepare, time, predict, record. */
static int run_sim_model(run_opts *o)
{
    run_sim r = {0};
    int rc = RT_OK, ret;

    /* What can be checked before a long computation: the database can take the
     * run under its label, the dump folder is ours to write. */
    if ((!o->no_db && (rc = store_preflight(store_default_path(o->db), o->label, r.err,
                                            sizeof(r.err)))) ||
        (o->dump && (rc = dump_dir_prepare(o->dump, o->dump_overwrite, r.err, sizeof(r.err)))))
        goto fail;
    if ((ret = sim_load(&r, o, &rc)) != EXIT_OK) {
        if (rc)
            goto fail;
        goto out;
    }
    if ((rc = sim_exec_prepare(&r, o)) || (rc = sim_timing(&r, o)) || (rc = sim_npu(&r, o)))
        goto fail;
    ret = sim_record(&r, o);
    goto out;

fail:
    cli_error("%s", r.err[0] ? r.err : rt_status_str(rc));
    ret = cli_exit_code(rc);
out:
    sim_free(&r, o);
    return ret;
}

static int run_model(run_cli *c, const char *model);

int cmd_run(int argc, char **argv)
{
    run_cli c;
    int ret;

    const char *model = run_cli_parse(argc, argv, &c, &ret);
    if (!model)
        return ret;
    ret = run_model(&c, model);
    custom_op_free();
    return ret;
}

static int run_model(run_cli *c, const char *model)
{
    const npu_platform_t *plat = NULL;
    npu_platform_t plat_clk; /* the platform at --npu-mhz/--ddr-mhz */
    char err[1024] = "";
    int ret;

    const char *target = c->target ? c->target : "rk3588", *quant = c->quant ? c->quant : "fp32";
    /* --emulate: a vendor .rknn's NPU tasks on a PC, not a board run */
    if (!c->emulate) {
        if (strcmp(c->backend, "auto") && strcmp(c->backend, "sim") && strcmp(c->backend, "board")) {
            cli_error("--backend takes auto, sim or board, got '%s'", c->backend);
            return EXIT_USAGE;
        }
        if (run_board_pick(c, model, &ret))
            return ret;
    }
    /* after the board's pick: its librknnrt must not meet ours, which a plugin loads */
    for (int k = 0; k < c->plugins.n; k++)
        if ((ret = custom_op_load(c->plugins.v[k], err, sizeof(err)))) {
            cli_error("%s", err);
            return cli_exit_code(ret);
        }
    if (c->emulate || run_rknn_is(model)) /* vendor file: predicted profile, or emulated */
        return cmd_run_rknn(c, model);
    /* a `rknn-trace build` container brings its target and quantization */
    if ((ret = quant_cli_container(model, &quant, c->quant != NULL, &target, c->target != NULL,
                                   &c->qc)))
        return ret;
    if (npu_platform_get(target, &plat, err, sizeof(err))) {
        cli_error("%s", err);
        return EXIT_USAGE;
    }
    plat = cli_platform_clocks(&plat_clk, plat, c->npu_mhz, c->ddr_mhz);
    if (c->sram && !plat->sram_bytes) {
        cli_error("--sram: %s has no NPU SRAM (only rk3588 has)", plat->name);
        return EXIT_USAGE;
    }
    unsigned cores;
    if (npu_core_mask_check(plat, (unsigned)c->core_mask, &cores, err, sizeof(err))) {
        cli_error("--core-mask: %s", err);
        return EXIT_USAGE;
    }
    quant_cli_inputs(&c->qc, c->in.file, c->in.n);
    if ((ret = quant_cli_check(&quant, &c->qc)) != EXIT_OK)
        return ret;

    run_opts o = {.model = model, .target = target, .quant = quant, .dump = c->dump,
                  .label = c->label, .db = c->db, .in_name = c->in.name, .in_file = c->in.file,
                  .n_in = c->in.n, .shapes = c->shapes.v, .n_shapes = c->shapes.n, .json = c->json,
                  .no_db = c->no_db, .npu_table = c->npu_table, .sram = c->sram,
                  .dump_overwrite = c->dump_overwrite, .seed = c->seed, .iters = c->iters,
                  .warmup = c->warmup, .threads = c->threads, .core_mask = c->core_mask,
                  .max_memory = c->max_memory, .plat = plat, .qc = &c->qc};
    ret = run_sim_model(&o);
    free(c->qc.c_cfg);
    return ret;
}
