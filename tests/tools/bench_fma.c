/* tests/tools/bench_fma.c — this machine's fp32 peak: independent FMA chains
 * (enough accumulators to cover the FMA latency on every port), per thread,
 * in the widest vector ISA the CPU has (AVX-512F, AVX2+FMA, else the
 * compiler's generic 16-byte vectors).
 *
 * usage: bench_fma [THREADS] [REPS]   (defaults: every online CPU, 5)
 * Prints, for 1 thread and for THREADS threads, the best of REPS runs in
 * GFLOP/s (an FMA counts 2 FLOPs). On a machine shared with other jobs the
 * best run is the closest to the peak; the spread of the runs is printed too. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define ITERS 100000000L
#define NACC 12

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One kernel per vector width; returns FLOPs done, sink keeps the result live. */
#define FMA_KERNEL(name, attr, W)                                                  \
    typedef float name##_v __attribute__((vector_size(W * 4)));                     \
    attr static double name(long iters, volatile float *sink)                       \
    {                                                                               \
        name##_v acc[NACC], a, b;                                                   \
        for (int k = 0; k < W; k++) {                                               \
            a[k] = 0.999999f;                                                       \
            b[k] = 1e-7f;                                                           \
        }                                                                           \
        for (int i = 0; i < NACC; i++)                                              \
            for (int k = 0; k < W; k++)                                             \
                acc[i][k] = (float)(i + k);                                         \
        for (long it = 0; it < iters; it++)                                         \
            _Pragma("GCC unroll 12") for (int i = 0; i < NACC; i++)                 \
                acc[i] = acc[i] * a + b;                                            \
        for (int i = 1; i < NACC; i++)                                              \
            acc[0] += acc[i];                                                       \
        *sink = acc[0][0];                                                          \
        return 2.0 * W * NACC * (double)iters;                                      \
    }

#if defined(__x86_64__) || defined(__i386__)
/* -std=c11 turns contraction off: the kernels ask for fused multiply-adds */
FMA_KERNEL(fma512, __attribute__((target("avx512f"), optimize("fp-contract=fast"))), 16)
FMA_KERNEL(fma256, __attribute__((target("avx2,fma"), optimize("fp-contract=fast"))), 8)
#endif
FMA_KERNEL(fma128, __attribute__((optimize("fp-contract=fast"))), 4)

typedef double (*kernel_fn)(long, volatile float *);

static kernel_fn kernel;
static const char *isa = "generic 128-bit";

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct {
    double flops, cpu;
} work_t;

static void *worker(void *arg)
{
    volatile float sink;
    work_t *w = arg;
    double c0 = cpu_s();
    w->flops = kernel(ITERS, &sink);
    w->cpu = cpu_s() - c0;
    return NULL;
}

/* GFLOP/s of the wall time; *per_cpu: GFLOP per second of CPU time each
 * thread got (what a core does when it runs, whatever else the machine runs) */
static double run(int threads, double *per_cpu)
{
    pthread_t th[256];
    work_t w[256];
    double t0, t1, sum = 0, cpu = 0;

    t0 = now_s();
    for (int i = 0; i < threads; i++)
        pthread_create(&th[i], NULL, worker, &w[i]);
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    t1 = now_s();
    for (int i = 0; i < threads; i++) {
        sum += w[i].flops;
        cpu += w[i].cpu;
    }
    *per_cpu = sum / (cpu > 0 ? cpu : 1e-9) / 1e9;
    return sum / (t1 - t0) / 1e9;
}

int main(int argc, char **argv)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = argc > 1 ? atoi(argv[1]) : (int)(ncpu > 0 ? ncpu : 1);
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    int counts[2] = {1, threads};

    if (threads < 1 || threads > 256 || reps < 1) {
        fprintf(stderr, "usage: bench_fma [THREADS 1..256] [REPS >= 1]\n");
        return 1;
    }
    kernel = fma128;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        kernel = fma512;
        isa = "AVX-512F";
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        kernel = fma256;
        isa = "AVX2+FMA";
    }
#endif
    printf("fp32 FMA peak, %s, %d accumulators, best of %d runs:\n", isa, NACC, reps);
    for (int c = 0; c < (threads > 1 ? 2 : 1); c++) {
        double best = 0, worst = 1e300, core = 0;
        for (int r = 0; r < reps; r++) {
            double pc, g = run(counts[c], &pc);
            best = g > best ? g : best;
            worst = g < worst ? g : worst;
            core = pc > core ? pc : core;
        }
        printf("threads %d: %.1f GFLOP/s wall (worst run %.1f); %.1f GFLOP/s per CPU-second "
               "of a thread (x %d threads = %.1f)\n",
               counts[c], best, worst, core, counts[c], core * counts[c]);
    }
    return 0;
}
