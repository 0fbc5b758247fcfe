/* cli/blas_lazy.c — the BLAS functions the runtime calls, for the CLI only:
 * OpenBLAS is loaded on the first call instead of when the program starts.
 *
 * Why: OpenBLAS pulls in libgfortran and libquadmath, whose constructor
 * registers printf handlers for %f/%g/%e (register_printf_specifier). From
 * then on glibc formats every printf of the process on its slow path, and
 * OpenBLAS starts its worker threads. Most commands (ls, show, import,
 * compare, ...) never multiply a matrix and paid both. The rknn-trace link
 * leaves -lopenblas out (Makefile); librknnrt.so and the tests still link it
 * directly. */
#include <cblas.h>
#include <dlfcn.h>
#include <pthread.h>
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

/* The library is a dependency of the package: missing, the program cannot
 * compute and says so in one line (exit code 4, internal). */
static void blas_load(void)
{
    void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);

    if (h) {
        blas.sgemm = (sgemm_fn)dlsym(h, "cblas_sgemm");
        blas.dgemm = (dgemm_fn)dlsym(h, "cblas_dgemm");
        blas.sgemv = (sgemv_fn)dlsym(h, "cblas_sgemv");
        blas.set_threads = (threads_fn)dlsym(h, "openblas_set_num_threads");
    }
    if (!blas.sgemm || !blas.dgemm || !blas.sgemv || !blas.set_threads) {
        fprintf(stderr, "rknn-trace: cannot load OpenBLAS (libopenblas.so.0): %s\n",
                h ? "a function is missing" : dlerror());
        exit(4);
    }
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

void openblas_set_num_threads(int n)
{
    pthread_once(&blas_once, blas_load);
    blas.set_threads(n);
}
