/* tests/tools/bench_model.c — times our runtime on one model (bench/run.sh).
 *
 *   bench_model MODEL THREADS RUNS [--shape NAME=D0,D1,...]... [--warmup N]
 *               [--range LO,HI] [--profile] [--serve]
 *
 * THREADS 0: the executor's default (exec_default_threads). Loads and prepares the
 * model, fills every input with seeded uniform random values
 * in [LO,HI] (default 0,1), does N warm-up runs (default 3) and RUNS timed exec_run
 * calls. Prints one JSON line on stdout:
 *   {"median_ms", "min_ms", "cpu_ms", "peak_rss_kb", "runs", "threads", "arena_bytes",
 *    "times_ms"}
 * cpu_ms is user + system time per timed run (all threads); times_ms every timed run
 * (sorted), so that bench/run.sh can pool several rounds; peak_rss_kb is
 * getrusage()'s ru_maxrss of this process (model, weights, arena).
 * --serve: after the warm-up, for each line read from stdin until the end of input,
 * untimed runs for 5 ms (at least one), then RUNS timed runs and their JSON line:
 * bench/turns.py gives the runtimes turns of a few frames this way, so that a
 * change of load falls on all of them.
 * --profile adds a per-op-type and slowest-layer breakdown on stderr, from the
 * layer hook's host_us over separate runs. They use exec_run_timed, which keeps the
 * executor's fusion (a Conv row then holds its fused activation chain, whose nodes
 * do not appear), so the breakdown is that of the timed runs. BENCH_PROFILE_LAYERS=N lists the N
 * slowest layers instead of 10. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "runtime/exec/exec.h"
#include "runtime/model/model.h"
#include "runtime/passes/passes.h"
#include "util/util.h"

#define MAX_SHAPES 16

typedef struct prof {
    int n_nodes;
    int runs, run;     /* timed runs, the one in progress */
    double *samples;   /* [runs][n_nodes] host_us of each node in each run */
    double *node_us;   /* per graph node: the median over the runs */
    int *node_layer;   /* executed-layer index of each node, -1 if never run */
} prof_t;

typedef struct op_sum {
    const char *op;
    double us;
    int count;
} op_sum;

static int parse_dims(const char *s, input_shape_t *sh)
{
    char *end;

    sh->ndim = 0;
    while (*s) {
        if (sh->ndim == MODEL_MAX_DIMS)
            return -1;
        long long v = strtoll(s, &end, 10);
        if (end == s || v < 0)
            return -1;
        sh->dims[sh->ndim++] = v;
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return sh->ndim > 0 ? 0 : -1;
}

static uint32_t rnd_next(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

/* Uniform values in [lo, hi] for the input dtypes real models use. */
static int fill_random(void *buf, const tensor_t *t, double lo, double hi, uint32_t *seed)
{
    int64_t n = tensor_numel(t);

    for (int64_t i = 0; i < n; i++) {
        double u = rnd_next(seed) / 4294967296.0, v = lo + (hi - lo) * u;
        switch (t->dtype) {
        case DT_FLOAT: ((float *)buf)[i] = (float)v; break;
        case DT_DOUBLE: ((double *)buf)[i] = v; break;
        case DT_UINT8: ((uint8_t *)buf)[i] = (uint8_t)(rnd_next(seed) & 0xff); break;
        case DT_INT8: ((int8_t *)buf)[i] = (int8_t)(rnd_next(seed) & 0xff); break;
        case DT_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
        case DT_INT64: ((int64_t *)buf)[i] = (int64_t)v; break;
        default: return -1;
        }
    }
    return 0;
}

static int prof_hook(const layer_event_t *ev, void *user)
{
    prof_t *p = user;

    if (ev->node >= 0 && ev->node < p->n_nodes) {
        p->samples[(size_t)p->run * (size_t)p->n_nodes + (size_t)ev->node] = ev->host_us;
        p->node_layer[ev->node] = ev->index;
    }
    return 0;
}

/* user + system time of the process (every thread), ms */
static double cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmp_op_sum(const void *a, const void *b)
{
    double x = ((const op_sum *)a)->us, y = ((const op_sum *)b)->us;
    return x > y ? -1 : x < y;
}

static const prof_t *sort_prof; /* qsort has no user pointer */

static int cmp_node_time(const void *a, const void *b)
{
    double x = sort_prof->node_us[*(const int *)a], y = sort_prof->node_us[*(const int *)b];
    return x > y ? -1 : x < y;
}

/* Per layer, the median over the runs: on a shared machine one preemption in one
 * run would otherwise dominate the mean of a small layer. */
static void prof_reduce(prof_t *p)
{
    double *v = xmalloc(sizeof(double) * (size_t)p->runs);

    for (int i = 0; i < p->n_nodes; i++) {
        for (int r = 0; r < p->runs; r++)
            v[r] = p->samples[(size_t)r * (size_t)p->n_nodes + (size_t)i];
        qsort(v, (size_t)p->runs, sizeof(double), cmp_double);
        p->node_us[i] = p->runs % 2 ? v[p->runs / 2] : (v[p->runs / 2 - 1] + v[p->runs / 2]) / 2;
    }
    free(v);
}

static void prof_print(const graph_t *g, const prof_t *p, double median_ms)
{
    op_sum *ops = xcalloc((size_t)g->n_nodes + 1, sizeof(*ops));
    int *order = xmalloc(sizeof(int) * ((size_t)g->n_nodes + 1));
    int n_ops = 0, n_run = 0;
    double total = 0;

    for (int i = 0; i < g->n_nodes; i++) {
        if (p->node_layer[i] < 0)
            continue;
        order[n_run++] = i;
        total += p->node_us[i];
        int k = 0;
        while (k < n_ops && strcmp(ops[k].op, g->nodes[i].op))
            k++;
        if (k == n_ops)
            ops[n_ops++].op = g->nodes[i].op;
        ops[k].us += p->node_us[i];
        ops[k].count++;
    }
    qsort(ops, (size_t)n_ops, sizeof(*ops), cmp_op_sum);
    fprintf(stderr, "profile: %d layers, %.3f ms in kernels (sum of per-layer medians; "
            "median profiled run %.3f ms, fused as in the timed runs)\n", n_run,
            total / 1000.0, median_ms);
    fprintf(stderr, "  %-22s %6s %10s %6s\n", "op", "layers", "ms/run", "%");
    for (int k = 0; k < n_ops; k++)
        fprintf(stderr, "  %-22s %6d %10.3f %5.1f%%\n", ops[k].op, ops[k].count,
                ops[k].us / 1000.0, total > 0 ? 100.0 * ops[k].us / total : 0.0);
    sort_prof = p;
    qsort(order, (size_t)n_run, sizeof(int), cmp_node_time);
    fprintf(stderr, "  slowest layers:\n");
    const char *nl = getenv("BENCH_PROFILE_LAYERS");
    int n_show = nl ? atoi(nl) : 10;
    for (int k = 0; k < n_run && k < n_show; k++) {
        const node_t *n = &g->nodes[order[k]];
        const tensor_t *o = n->n_out > 0 && n->out[0] >= 0 ? &g->t[n->out[0]] : NULL;
        const tensor_t *in = n->n_in > 0 && n->in[0] >= 0 ? &g->t[n->in[0]] : NULL;
        /* A constant second input is the weight: its shape tells a 1x1 from a 3x3. */
        const tensor_t *wt = n->n_in > 1 && n->in[1] >= 0 ? &g->t[n->in[1]] : NULL;
        char si[128] = "-", so[128] = "-", sw[128] = "";
        if (in)
            tensor_shape_str(in, si, sizeof(si));
        if (o)
            tensor_shape_str(o, so, sizeof(so));
        if (wt && wt->kind == TK_CONST && wt->ndim >= 2) {
            strcpy(sw, " w ");
            tensor_shape_str(wt, sw + 3, sizeof(sw) - 3);
        }
        int64_t group = node_attr_int(n, "group", 1);
        fprintf(stderr, "  %4d %-16s %-28.28s %9.3f ms  %s -> %s%s", p->node_layer[order[k]],
                n->op, n->name, p->node_us[order[k]] / 1000.0, si, so, sw);
        if (group != 1)
            fprintf(stderr, " group %lld", (long long)group);
        fputc('\n', stderr);
    }
    free(ops);
    free(order);
}

/* Untimed runs for at least SERVE_WARM_MS, at least one: a turn's frames then
 * find the model back in the caches other programs' turns emptied, and a tiny
 * model is timed at its pace, not at that of a core just woken up. */
#define SERVE_WARM_MS 5.0

static int rewarm(exec_t *x, char *err, size_t errsz)
{
    double t0 = rt_now_us();
    int rc;
    do
        rc = exec_run(x, NULL, NULL, err, errsz);
    while (!rc && rt_now_us() - t0 < SERVE_WARM_MS * 1000);
    return rc;
}

/* RUNS timed exec_run calls and their JSON line on stdout (times sorted in place) */
static int timed_batch(exec_t *x, int runs, int threads, double *times, char *err,
                       size_t errsz)
{
    double cpu0 = cpu_ms();
    for (int i = 0; i < runs; i++) {
        double t0 = rt_now_us();
        int rc = exec_run(x, NULL, NULL, err, errsz);
        times[i] = (rt_now_us() - t0) / 1000.0;
        if (rc)
            return rc;
    }
    double cpu = (cpu_ms() - cpu0) / runs;
    qsort(times, (size_t)runs, sizeof(double), cmp_double);
    double median = runs % 2 ? times[runs / 2] : (times[runs / 2 - 1] + times[runs / 2]) / 2;

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    json_writer w;
    json_begin(&w, stdout);
    json_obj_open(&w);
    json_key(&w, "median_ms");
    json_num(&w, median);
    json_key(&w, "min_ms");
    json_num(&w, times[0]);
    json_key(&w, "cpu_ms");
    json_num(&w, cpu);
    json_key(&w, "peak_rss_kb");
    json_int(&w, ru.ru_maxrss);
    json_key(&w, "runs");
    json_int(&w, runs);
    json_key(&w, "threads"); /* the pool's size, also when THREADS is 0 */
    json_int(&w, threads ? threads : exec_default_threads());
    json_key(&w, "arena_bytes");
    json_int(&w, (int64_t)exec_arena_bytes(x));
    json_key(&w, "times_ms");
    json_arr_open(&w);
    for (int i = 0; i < runs; i++)
        json_num(&w, times[i]);
    json_arr_close(&w);
    json_obj_close(&w);
    json_end(&w);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    char err[512] = "";
    input_shape_t shapes[MAX_SHAPES];
    int n_shapes = 0, warmup = 3, profile = 0, serve = 0, rc = 0;
    double lo = 0, hi = 1;
    graph_t *g = NULL;
    exec_t *x = NULL;
    double *times = NULL;
    prof_t p = { 0 };

    if (argc < 4)
        goto usage;
    const char *model = argv[1];
    int threads = atoi(argv[2]), runs = atoi(argv[3]);
    if (threads < 0 || runs < 1)
        goto usage;
    for (int i = 4; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--shape") && i + 1 < argc) {
            char *v = argv[++i], *eq = strchr(v, '=');
            if (!eq || eq == v || n_shapes == MAX_SHAPES)
                goto usage;
            *eq = '\0';
            shapes[n_shapes].name = v;
            if (parse_dims(eq + 1, &shapes[n_shapes++]))
                goto usage;
        } else if (!strcmp(a, "--warmup") && i + 1 < argc) {
            warmup = atoi(argv[++i]);
        } else if (!strcmp(a, "--range") && i + 1 < argc) {
            if (sscanf(argv[++i], "%lf,%lf", &lo, &hi) != 2)
                goto usage;
        } else if (!strcmp(a, "--profile")) {
            profile = 1;
        } else if (!strcmp(a, "--serve")) {
            serve = 1;
        } else {
            goto usage;
        }
    }

    rc = model_load_file(model, &g, err, sizeof(err));
    if (rc)
        goto out;
    rc = passes_prepare(g, shapes, n_shapes, err, sizeof(err));
    if (rc)
        goto out;
    exec_opts o = { .nthreads = threads };
    rc = exec_create(g, &o, &x, err, sizeof(err));
    if (rc)
        goto out;
    uint32_t seed = 12345;
    for (int k = 0; k < g->n_inputs; k++) {
        tensor_t *t = &g->t[g->inputs[k]];
        size_t nb = tensor_nbytes(t);
        void *buf = xmalloc(nb + 1);
        if (fill_random(buf, t, lo, hi, &seed)) {
            free(buf);
            rc = rt_err(err, sizeof(err), RT_EUNSUPPORTED, "input '%s': dtype %s not supported",
                        t->name, dtype_name(t->dtype));
            goto out;
        }
        rc = exec_set_input(x, k, buf, nb, err, sizeof(err));
        free(buf);
        if (rc)
            goto out;
    }
    for (int i = 0; i < warmup; i++) {
        rc = exec_run(x, NULL, NULL, err, sizeof(err));
        if (rc)
            goto out;
    }
    if (profile) {
        p.n_nodes = g->n_nodes;
        p.runs = runs;
        p.samples = xcalloc((size_t)runs * (size_t)g->n_nodes + 1, sizeof(double));
        p.node_us = xcalloc((size_t)g->n_nodes + 1, sizeof(double));
        p.node_layer = xmalloc(sizeof(int) * ((size_t)g->n_nodes + 1));
        for (int i = 0; i < g->n_nodes; i++)
            p.node_layer[i] = -1;
    }
    times = xmalloc(sizeof(double) * (size_t)runs);
    if (serve) {
        char line[64];
        while (!rc && fgets(line, sizeof(line), stdin))
            if (!(rc = rewarm(x, err, sizeof(err))))
                rc = timed_batch(x, runs, threads, times, err, sizeof(err));
    } else {
        rc = timed_batch(x, runs, threads, times, err, sizeof(err));
    }
    if (rc)
        goto out;
    if (profile) {
        double *pt = xmalloc(sizeof(double) * (size_t)runs);
        for (int i = 0; i < runs && !rc; i++) {
            double t0 = rt_now_us();
            p.run = i;
            rc = exec_run_timed(x, prof_hook, &p, err, sizeof(err));
            pt[i] = (rt_now_us() - t0) / 1000.0;
        }
        if (!rc) {
            qsort(pt, (size_t)runs, sizeof(double), cmp_double);
            prof_reduce(&p);
            prof_print(g, &p, runs % 2 ? pt[runs / 2] : (pt[runs / 2 - 1] + pt[runs / 2]) / 2);
        }
        free(pt);
    }
out:
    free(times);
    free(p.samples);
    free(p.node_us);
    free(p.node_layer);
    exec_free(x);
    graph_free(g);
    if (rc) {
        fprintf(stderr, "bench_model: %s\n", err);
        return 2;
    }
    return 0;
usage:
    fprintf(stderr, "usage: bench_model MODEL THREADS RUNS [--shape NAME=D0,D1,...]... "
                    "[--warmup N] [--range LO,HI] [--profile] [--serve]\n");
    return 1;
}
