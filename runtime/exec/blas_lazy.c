/* runtime/exec/blas_lazy.c — the BLAS functions the runtime calls: OpenBLAS
 * is loaded on the first call instead of when the program starts, in
 * librknnrt.so and in the CLI alike.
 *
 * Why: OpenBLAS pulls in libgfortran and libquadmath, whose constructor
 * registers printf handlers for %f/%g/%e (register_printf_specifier). From
 * then on glibc formats every printf of the process on its slow path, the
 * application's included, and OpenBLAS starts worker threads that spin for a
 * while. Most models never reach a BLAS call here (the AVX-512 kernels cover
 * conv and gemm), and most CLI commands (ls, show, import, ...) multiply no
 * matrix. The runtime runs its own threads, so every BLAS call is
 * single-threaded (openblas_set_num_threads, applied when the library loads).
 * The tests link -lopenblas too; these definitions come first and load the
 * same library. */
#include <cblas.h>
#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*sgemm_fn)(const enum CBLAS_ORDER, const enum CBLAS_TRANSPOSE,
                         const enum CBLAS_TRANSPOSE, const blasint, const blasint, const blasint,
                         const float, const float *, const blasint, const float *,
                         const blasint, const float, float *, const blasint);
typedef void (*dgemm_fn)(const enum CBLAS_ORDER, const enum CBLAS_TRANSPOSE,
                         const enum CBLAS_TRANSPOSE, const blasint, const blasint, const blasint,
                         const double, const double *, const blasint, const double *,
                         const blasint, const double, double *, const blasint);
typedef void (*sgemv_fn)(const enum CBLAS_ORDER, const enum CBLAS_TRANSPOSE, const blasint,
                         const blasint, const float, const float *, const blasint,
                         const float *, const blasint, const float, float *, const blasint);
typedef void (*threads_fn)(int);

static struct {
    sgemm_fn sgemm;
    dgemm_fn dgemm;
    sgemv_fn sgemv;
    threads_fn set_threads;
} blas;

static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static int blas_threads = 1; /* the count asked for, applied at load */
static int blas_loaded;      /* set once blas is filled in */

/* OpenBLAS picks its kernels by the CPU's model number, and one it does not
 * know gets its oldest, SSE3 kernels: Debian's 0.3.21 on Intel's Emerald
 * Rapids (family 6, model 207) runs "Prescott". Those are slower and sum in
 * another order, so the same model gave other fp32 MatMul outputs there, and
 * from them other int8 grids. The kernels are chosen by the CPU's features
 * instead, before the library loads (its constructor reads
 * OPENBLAS_CORETYPE); a value the user set is kept. The variable is added to
 * the environment once, at the first BLAS call: glibc's first setenv copies
 * the environment's array and frees nothing that a getenv elsewhere could be
 * reading. */
static void blas_pin_kernels(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (getenv("OPENBLAS_CORETYPE"))
        return;
    __builtin_cpu_init();
    const char *core = NULL;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512cd"))
        core = "SkylakeX";
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        core = "Haswell";
    if (core)
        setenv("OPENBLAS_CORETYPE", core, 0);
#endif
}

/* The library is a dependency of the package: missing, the program cannot
 * compute and says so in one line (exit code 4, internal). */
static void blas_load(void)
{
    blas_pin_kernels();
    /* every call is single-threaded: without this its constructor starts a
     * worker per core, which spins on sched_yield for about 0.2 s at load
     * (9 % of a profiled int8 run); a count the user set is kept */
    setenv("OPENBLAS_NUM_THREADS", "1", 0);
    void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);

    if (h) {
        blas.sgemm = (sgemm_fn)dlsym(h, "cblas_sgemm");
        blas.dgemm = (dgemm_fn)dlsym(h, "cblas_dgemm");
        blas.sgemv = (sgemv_fn)dlsym(h, "cblas_sgemv");
        blas.set_threads = (threads_fn)dlsym(h, "openblas_set_num_threads");
    }
    if (!blas.sgemm || !blas.dgemm || !blas.sgemv || !blas.set_threads) {
        fprintf(stderr, "%s: cannot load OpenBLAS (libopenblas.so.0): %s\n",
                program_invocation_short_name, h ? "a function is missing" : dlerror());
        exit(4);
    }
    /* loaded first, count read after (and the reverse in the setter): a count
     * set meanwhile is applied by one of the two, or both */
    __atomic_store_n(&blas_loaded, 1, __ATOMIC_SEQ_CST);
    blas.set_threads(__atomic_load_n(&blas_threads, __ATOMIC_SEQ_CST));
}

void cblas_sgemm(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE ta,
                 const enum CBLAS_TRANSPOSE tb, const blasint m, const blasint n,
                 const blasint k, const float alpha, const float *a, const blasint lda,
                 const float *b, const blasint ldb, const float beta, float *c,
                 const blasint ldc)
{
    pthread_once(&blas_once, blas_load);
    blas.sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemm(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE ta,
                 const enum CBLAS_TRANSPOSE tb, const blasint m, const blasint n,
                 const blasint k, const double alpha, const double *a, const blasint lda,
                 const double *b, const blasint ldb, const double beta, double *c,
                 const blasint ldc)
{
    pthread_once(&blas_once, blas_load);
    blas.dgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_sgemv(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE t, const blasint m,
                 const blasint n, const float alpha, const float *a, const blasint lda,
                 const float *x, const blasint incx, const float beta, float *y,
                 const blasint incy)
{
    pthread_once(&blas_once, blas_load);
    blas.sgemv(order, t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

/* Before the first BLAS call only recorded: it does not load the library. */
void openblas_set_num_threads(int n)
{
    __atomic_store_n(&blas_threads, n, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&blas_loaded, __ATOMIC_SEQ_CST))
        blas.set_threads(n);
}
