/* tests/tools/bench_capi.c — times the per-frame C API flow of librknnrt on one
 * model, as an application does it (bench/run.sh's "C API" column).
 *
 *   bench_capi MODEL THREADS RUNS [NAME=D0,D1,...]... [--warmup N] [--range LO,HI]
 *              [--sdk] [--serve | --level4]
 *
 * An application of rknn_api.h only, linked against the shared library: rknn_init
 * from the file with RKNN_TRACE_THREADS=THREADS (the runtime's host thread count;
 * THREADS 0 leaves the variable unset: the runtime's default),
 * rknn_set_input_shapes when shapes are given, float32 NCHW inputs of seeded uniform
 * random values in [LO,HI] (default 0,1); then N warm-up frames (default 3) and RUNS
 * timed frames of rknn_inputs_set + rknn_run + rknn_outputs_get (want_float) +
 * rknn_outputs_release.
 * --sdk: the flow of the SDK's samples (tests/samples/sample_general.c) instead:
 * rknn_init from the model's bytes, rknn_set_input_shapes only for an input whose
 * queried dims differ from the given ones, and every 4-D input of 1, 3 or 4 channels
 * set as a uint8 NHWC image (the same random draw, [LO,HI] mapped onto 0..255; its
 * float conversion is part of rknn_inputs_set, as on a board's NPU input stage).
 * Prints one JSON line on stdout, as bench_model does:
 *   {"median_ms", "min_ms", "cpu_ms", "peak_rss_kb", "runs", "threads", "times_ms"}
 * cpu_ms is the process's user + system time per timed frame (all threads).
 * --serve: per line read from stdin, untimed frames for 5 ms (at least one), then
 * RUNS timed frames and their JSON line, until the end of input (see bench_model).
 * --level4 (bench/level4.sh): RUNS pairs of frames, one at RKNN_LOG_LEVEL=0 and one at
 * 4, in alternating order (the runtime reads the level at every call), after warm-up
 * frames at both levels; prints {"level0_ms", "level4_ms", "runs"}, the medians. Frame
 * by frame, a slow spell of the machine falls on both levels alike. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "rknn_api.h"

#define MAX_IN 8
#define MAX_OUT 16

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The whole file in a malloc'd buffer (rknn_init from memory, as the SDK samples do). */
static unsigned char *load_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        *len = (size_t)n;
    fclose(f);
    return buf;
}

/* NAME=D0,D1,... into attr (name, n_dims, dims); 0 or -1 */
static int parse_spec(const char *s, rknn_tensor_attr *a)
{
    const char *eq = strchr(s, '=');
    if (!eq || eq == s || (size_t)(eq - s) >= sizeof(a->name))
        return -1;
    memset(a, 0, sizeof(*a));
    memcpy(a->name, s, (size_t)(eq - s));
    for (const char *p = eq + 1; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || a->n_dims >= RKNN_MAX_DIMS)
            return -1;
        a->dims[a->n_dims++] = (uint32_t)v;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return a->n_dims ? 0 : -1;
}

static int frame(rknn_context ctx, uint32_t nin, rknn_input *in, uint32_t nout,
                 rknn_output *out)
{
    if (rknn_inputs_set(ctx, nin, in) || rknn_run(ctx, NULL))
        return -1;
    for (uint32_t i = 0; i < nout; i++) {
        memset(&out[i], 0, sizeof(out[i]));
        out[i].index = i;
        out[i].want_float = 1;
    }
    if (rknn_outputs_get(ctx, nout, out, NULL))
        return -1;
    return rknn_outputs_release(ctx, nout, out) ? -1 : 0;
}

/* Untimed frames for at least SERVE_WARM_MS, at least one (see bench_model). */
#define SERVE_WARM_MS 5.0

static int rewarm(rknn_context ctx, const rknn_input_output_num *io, rknn_input *in,
                  rknn_output *out)
{
    double t0 = now_ms();
    do
        if (frame(ctx, io->n_input, in, io->n_output, out)) {
            fprintf(stderr, "bench_capi: a warm-up frame failed\n");
            return -1;
        }
    while (now_ms() - t0 < SERVE_WARM_MS);
    return 0;
}

static double median_sorted(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* RUNS frames at level 0 and RUNS at level 4, interleaved; the medians on stdout */
static int level_pairs(rknn_context ctx, const rknn_input_output_num *io, rknn_input *in,
                       rknn_output *out, int runs, int warmup, double *times)
{
    double *t4 = malloc(sizeof(double) * (size_t)runs);
    int ret = -1;
    if (!t4)
        return -1;
    for (int r = -warmup; r < runs; r++)
        for (int k = 0; k < 2; k++) {
            int four = (r & 1) ^ k;
            setenv("RKNN_LOG_LEVEL", four ? "4" : "0", 1);
            double t0 = now_ms();
            if (frame(ctx, io->n_input, in, io->n_output, out)) {
                fprintf(stderr, "bench_capi: a frame at level %d failed\n", four ? 4 : 0);
                goto out;
            }
            if (r >= 0)
                (four ? t4 : times)[r] = now_ms() - t0;
        }
    printf("{\"level0_ms\":%.6f,\"level4_ms\":%.6f,\"runs\":%d}\n",
           median_sorted(times, runs), median_sorted(t4, runs), runs);
    ret = 0;
out:
    free(t4);
    return ret;
}

/* RUNS timed frames and their JSON line on stdout (times sorted in place) */
static int timed_batch(rknn_context ctx, const rknn_input_output_num *io, rknn_input *in,
                       rknn_output *out, int runs, int threads, double *times)
{
    double c0 = cpu_ms();
    for (int r = 0; r < runs; r++) {
        double t0 = now_ms();
        if (frame(ctx, io->n_input, in, io->n_output, out)) {
            fprintf(stderr, "bench_capi: frame %d failed\n", r);
            return -1;
        }
        times[r] = now_ms() - t0;
    }
    double cpu = (cpu_ms() - c0) / runs;
    double med = median_sorted(times, runs);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("{\"median_ms\":%.6f,\"min_ms\":%.6f,\"cpu_ms\":%.6f,\"peak_rss_kb\":%ld,"
           "\"runs\":%d,\"threads\":%d,\"times_ms\":[", med, times[0], cpu, ru.ru_maxrss,
           runs, threads);
    for (int r = 0; r < runs; r++)
        printf("%s%.6f", r ? "," : "", times[r]);
    printf("]}\n");
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    rknn_tensor_attr spec[MAX_IN], ia[MAX_IN];
    rknn_input in[MAX_IN];
    rknn_output out[MAX_OUT];
    rknn_input_output_num io;
    rknn_context ctx = 0;
    int reshape = 0;
    int nspec = 0, warmup = 3, serve = 0, level4 = 0, sdk = 0, ret = 2;
    double lo = 0, hi = 1, *times = NULL;
    void *data[MAX_IN] = {0};
    unsigned char *bytes = NULL;
    size_t nbytes = 0;

    if (argc < 4) {
        fprintf(stderr, "usage: bench_capi MODEL THREADS RUNS [NAME=D0,D1,...]... "
                        "[--warmup N] [--range LO,HI] [--sdk] [--serve | --level4]\n");
        return 1;
    }
    const char *model = argv[1];
    int threads = atoi(argv[2]), runs = atoi(argv[3]);
    for (int i = 4; i < argc; i++) {
        if (!strcmp(argv[i], "--warmup") && i + 1 < argc)
            warmup = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--range") && i + 1 < argc &&
                 sscanf(argv[++i], "%lf,%lf", &lo, &hi) == 2)
            ;
        else if (!strcmp(argv[i], "--serve"))
            serve = 1;
        else if (!strcmp(argv[i], "--level4"))
            level4 = 1;
        else if (!strcmp(argv[i], "--sdk"))
            sdk = 1;
        else if (nspec < MAX_IN && !parse_spec(argv[i], &spec[nspec]))
            nspec++;
        else {
            fprintf(stderr, "bench_capi: bad argument '%s'\n", argv[i]);
            return 1;
        }
    }
    if (threads < 0 || runs < 1 || warmup < 0) {
        fprintf(stderr, "bench_capi: THREADS must be >= 0 and RUNS >= 1\n");
        return 1;
    }
    if (threads) {
        char tv[16];
        snprintf(tv, sizeof(tv), "%d", threads);
        setenv("RKNN_TRACE_THREADS", tv, 1);
    } else {
        unsetenv("RKNN_TRACE_THREADS");
    }
    if (sdk && !(bytes = load_file(model, &nbytes))) {
        fprintf(stderr, "bench_capi: cannot read %s\n", model);
        return 2;
    }

    if (rknn_init(&ctx, sdk ? (void *)bytes : (void *)model, (uint32_t)nbytes, 0, NULL) ||
        rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof(io)) || io.n_input > MAX_IN ||
        io.n_output > MAX_OUT) {
        fprintf(stderr, "bench_capi: %s: rknn_init or its in/out query failed\n", model);
        goto out;
    }
    for (uint32_t i = 0; i < io.n_input; i++) {
        memset(&ia[i], 0, sizeof(ia[i]));
        ia[i].index = i;
        if (rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &ia[i], sizeof(ia[i]))) {
            fprintf(stderr, "bench_capi: input %u: attr query failed\n", i);
            goto out;
        }
        /* the queried dims in NCHW order (4-D inputs are reported NHWC) */
        uint32_t q[RKNN_MAX_DIMS];
        memcpy(q, ia[i].dims, sizeof(q));
        if (ia[i].fmt == RKNN_TENSOR_NHWC && ia[i].n_dims == 4) {
            q[1] = ia[i].dims[3];
            q[2] = ia[i].dims[1];
            q[3] = ia[i].dims[2];
        }
        ia[i].fmt = RKNN_TENSOR_NCHW;
        for (int s = 0; s < nspec; s++)
            if (!strcmp(spec[s].name, ia[i].name)) {
                reshape |= !sdk || ia[i].n_dims != spec[s].n_dims ||
                           memcmp(q, spec[s].dims, sizeof(uint32_t) * spec[s].n_dims);
                ia[i].n_dims = spec[s].n_dims;
                memcpy(ia[i].dims, spec[s].dims, sizeof(ia[i].dims));
            }
    }
    if (reshape && rknn_set_input_shapes(ctx, io.n_input, ia)) {
        fprintf(stderr, "bench_capi: rknn_set_input_shapes failed\n");
        goto out;
    }
    uint64_t seed = 12345;
    for (uint32_t i = 0; i < io.n_input; i++) {
        size_t n = 1;
        for (uint32_t d = 0; d < ia[i].n_dims; d++)
            n *= ia[i].dims[d];
        /* an image: NCHW dims, the buffer NHWC (random values: the order is moot) */
        int image = sdk && ia[i].n_dims == 4 &&
                    (ia[i].dims[1] == 1 || ia[i].dims[1] == 3 || ia[i].dims[1] == 4);
        data[i] = malloc(n * (image ? 1 : sizeof(float)));
        if (!data[i])
            goto out;
        for (size_t k = 0; k < n; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            double v = lo + (hi - lo) * (double)(seed >> 40) / (double)(1 << 24);
            if (image) /* the same draw as a pixel: [LO,HI] onto 0..255 */
                ((uint8_t *)data[i])[k] = hi > lo ? (uint8_t)((v - lo) / (hi - lo) * 255.0 + 0.5) : 0;
            else
                ((float *)data[i])[k] = (float)v;
        }
        memset(&in[i], 0, sizeof(in[i]));
        in[i].index = i;
        in[i].buf = data[i];
        in[i].size = (uint32_t)(n * (image ? 1 : sizeof(float)));
        in[i].type = image ? RKNN_TENSOR_UINT8 : RKNN_TENSOR_FLOAT32;
        in[i].fmt = image ? RKNN_TENSOR_NHWC : RKNN_TENSOR_NCHW;
    }
    times = malloc(sizeof(double) * (size_t)runs);
    if (!times)
        goto out;
    if (level4) {
        ret = level_pairs(ctx, &io, in, out, runs, warmup, times) ? 2 : 0;
        goto out;
    }
    for (int r = 0; r < warmup; r++)
        if (frame(ctx, io.n_input, in, io.n_output, out)) {
            fprintf(stderr, "bench_capi: a warm-up frame failed\n");
            goto out;
        }
    if (serve) {
        char line[64];
        while (fgets(line, sizeof(line), stdin))
            if (rewarm(ctx, &io, in, out) || timed_batch(ctx, &io, in, out, runs, threads, times))
                goto out;
    } else if (timed_batch(ctx, &io, in, out, runs, threads, times)) {
        goto out;
    }
    ret = 0;
out:
    if (ctx)
        rknn_destroy(ctx);
    for (int i = 0; i < MAX_IN; i++)
        free(data[i]);
    free(times);
    free(bytes);
    return ret;
}
