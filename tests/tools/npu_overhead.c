/* tests/tools/npu_overhead.c — what RKNN_LOG_LEVEL=4 costs on top of a plain
 * fp32 run of the bundled models.
 *
 * usage: npu_overhead [MODEL_DIR [MODELS_TXT [RUNS [THREADS]]]]
 *        (defaults tests/data/models, tests/e2e/models.txt, 20, 0 = all CPUs)
 *
 * Per model (shapes from models.txt, seeded random inputs in its range):
 *   level 0 run   exec_run without a hook;
 *   level 4 run   exec_run without a hook (npu_cost takes no host time, CPU
 *                 layers included), then npu_cost() and npu_print_perf_table()
 *                 (to /dev/null: the text is written);
 * interleaved, RUNS each (more for fast models: at least 0.5 s of level-0 runs, so
 * that a 30 us model's median is not 20 samples of a noisy machine) after 4
 * warm-ups; medians. Reported: the level-4
 * work alone (hook-free part: cost + print, timed directly), the A/B
 * difference of the two runs, and the one-time lowering (rknn_init) — all as
 * a share of the level-0 run. Target: level-4 per-run cost <= 5 %. Exit 0 when
 * every model meets it, 1 otherwise, 2 on unreadable input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/exec/exec.h"
#include "runtime/model/model.h"
#include "runtime/npu/npu.h"
#include "runtime/passes/passes.h"
#include "util/util.h"

#define MAX_IN 8

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* "NAME=D0,D1,...;NAME=..." into shapes (names point into spec) */
static int parse_shapes(char *spec, input_shape_t *sh, int max)
{
    int n = 0;
    char *save = NULL;

    for (char *s = strtok_r(spec, ";", &save); s && n < max; s = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(s, '='), *p;
        if (!eq)
            return -1;
        *eq = 0;
        memset(&sh[n], 0, sizeof(sh[n]));
        sh[n].name = s;
        for (p = eq + 1; *p && sh[n].ndim < MODEL_MAX_DIMS;) {
            sh[n].dims[sh[n].ndim++] = strtoll(p, &p, 10);
            if (*p == ',')
                p++;
        }
        n++;
    }
    return n;
}

static int fill_inputs(graph_t *g, exec_t *x, double lo, double hi, char *err, size_t errlen)
{
    uint32_t seed = 7;

    for (int k = 0; k < g->n_inputs; k++) {
        tensor_t *t = &g->t[g->inputs[k]];
        int64_t n = tensor_numel(t);
        float *buf;
        int rc;
        if (t->dtype != DT_FLOAT || n < 0)
            return rt_err(err, errlen, RT_EUNSUPPORTED, "input %s: only float inputs", t->name);
        buf = xmalloc((size_t)n * sizeof(float) + 1);
        for (int64_t i = 0; i < n; i++) {
            seed = seed * 1664525u + 1013904223u;
            buf[i] = (float)(lo + (hi - lo) * (seed >> 8) / 16777216.0);
        }
        rc = exec_set_input(x, k, buf, (size_t)n * sizeof(float), err, errlen);
        free(buf);
        if (rc)
            return rc;
    }
    return 0;
}

static int one_model(const char *dir, char *file, char *shapes, double lo, double hi, int runs,
                     int threads, FILE *devnull, int *ok)
{
    char path[1024], err[512];
    input_shape_t sh[MAX_IN];
    int n_sh = parse_shapes(shapes, sh, MAX_IN), rc;
    graph_t *g = NULL;
    exec_t *x = NULL;
    npu_graph_t *ng = NULL;
    exec_opts o = {.nthreads = threads};
    double *t0 = NULL, *t4 = NULL, *tw = NULL, lower_ms;

    snprintf(path, sizeof path, "%s/%s", dir, file);
    rc = n_sh < 0 ? rt_err(err, sizeof err, RT_EFORMAT, "bad shapes") :
                    model_load_file(path, &g, err, sizeof err);
    if (!rc)
        rc = passes_prepare(g, sh, n_sh, err, sizeof err);
    if (!rc)
        rc = exec_create(g, &o, &x, err, sizeof err);
    if (!rc)
        rc = fill_inputs(g, x, lo, hi, err, sizeof err);
    if (rc)
        goto out;
    {
        double a = rt_now_us();
        rc = npu_lower(g, npu_platform_find("rk3588"), DT_FLOAT, &ng, err, sizeof err);
        lower_ms = (rt_now_us() - a) / 1e3;
        if (rc)
            goto out;
    }
    double w0 = 0;
    for (int i = 0; i < 4; i++) {
        w0 = rt_now_us();
        if ((rc = exec_run(x, NULL, NULL, err, sizeof err)))
            goto out;
    }
    w0 = (rt_now_us() - w0) / 1e3; /* the last warm-up's ms */
    if (w0 > 0 && 500 / w0 > runs)
        runs = 500 / w0 < 20000 ? (int)(500 / w0) : 20000;
    t0 = xcalloc((size_t)runs, sizeof(double));
    t4 = xcalloc((size_t)runs, sizeof(double));
    tw = xcalloc((size_t)runs, sizeof(double));
    for (int i = 0; i < runs; i++) {
        double a = rt_now_us(), b, c;
        if ((rc = exec_run(x, NULL, NULL, err, sizeof err)))
            goto out;
        b = rt_now_us();
        if ((rc = exec_run(x, NULL, NULL, err, sizeof err)))
            goto out;
        c = rt_now_us();
        npu_cost(ng);
        npu_print_perf_table(devnull, ng, NPU_PRINT_PREFIX);
        fflush(devnull);
        t0[i] = (b - a) / 1e3;
        tw[i] = (rt_now_us() - c) / 1e3;
        t4[i] = (rt_now_us() - b) / 1e3;
    }
    {
        double m0 = median(t0, runs), m4 = median(t4, runs), mw = median(tw, runs);
        double direct = 100 * mw / m0, ab = 100 * (m4 - m0) / m0;
        int pass = direct <= 5.0;
        *ok &= pass;
        printf("%-32s %6d %9.2f %9.3f %9.3f %8.2f%% %8.2f%% %8.2f%%  %s\n", file, ng->n,
               m0, mw, lower_ms, direct, ab, 100 * lower_ms / m0,
               pass ? "ok" : "OVER 5%");
    }
out:
    if (rc) {
        fprintf(stderr, "npu_overhead: %s: %s\n", file, err);
        *ok = 0;
    }
    npu_graph_free(ng);
    exec_free(x);
    graph_free(g);
    free(t0);
    free(t4);
    free(tw);
    return rc;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/data/models";
    const char *list = argc > 2 ? argv[2] : "tests/e2e/models.txt";
    int runs = argc > 3 ? atoi(argv[3]) : 20, threads = argc > 4 ? atoi(argv[4]) : 0;
    char *text = NULL, *line, *save = NULL, err[256];
    size_t len = 0;
    int ok = 1, bad = 0;
    FILE *devnull = fopen("/dev/null", "w");

    if (runs < 1 || !devnull || rt_read_file(list, (void **)&text, &len, err, sizeof err)) {
        fprintf(stderr, "npu_overhead: %s\n", devnull ? err : "cannot open /dev/null");
        return 2;
    }
    printf("level-4 instrumentation (rk3588 table, fp32 model lowered as fp16) vs a level-0 fp32 run;\n"
           "%d or more interleaved runs per model (0.5 s of level-0 runs), medians, %s threads\n\n", runs,
           threads ? argv[4] : "all");
    printf("%-32s %6s %9s %9s %9s %9s %9s %9s\n", "model", "layers", "run_ms", "l4_ms",
           "lower_ms", "l4/run", "A/B", "lower/run");
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char file[256], shapes[512], range[64];
        double lo, hi;
        if (line[0] == '#' || sscanf(line, "%255s %511s %63s", file, shapes, range) != 3)
            continue;
        if (sscanf(range, "%lf,%lf", &lo, &hi) != 2)
            continue;
        if (one_model(dir, file, shapes, lo, hi, runs, threads, devnull, &ok))
            bad = 1;
    }
    printf("\nl4/run: cost + table print per run (the level-4 work, timed alone); A/B: level-4 run\n"
           "minus level-0 run, noisier; lower/run: npu_lower, once\n"
           "per rknn_init, not per run. Target: l4/run <= 5%%.\n");
    free(text);
    fclose(devnull);
    return bad ? 2 : ok ? 0 : 1;
}
