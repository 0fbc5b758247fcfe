/* analyze/metrics.c — per-tensor error metrics (cosine, Euclidean, max/mean abs,
 * SQNR), with the explicit NaN marker of Toolkit2 for constant tensors. */
#include "analyze/analyze.h"
#include "runtime/model/model.h"
#include "runtime/quant/quant.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>

typedef double (*getter)(const void *p, int64_t i);

static double get_f32(const void *p, int64_t i) { return ((const float *)p)[i]; }
static double get_f64(const void *p, int64_t i) { return ((const double *)p)[i]; }
static double get_f16(const void *p, int64_t i) { return quant_f16_to_f32(((const uint16_t *)p)[i]); }
static double get_i8(const void *p, int64_t i) { return ((const int8_t *)p)[i]; }
static double get_u8(const void *p, int64_t i) { return ((const uint8_t *)p)[i]; }
static double get_i16(const void *p, int64_t i) { return ((const int16_t *)p)[i]; }
static double get_u16(const void *p, int64_t i) { return ((const uint16_t *)p)[i]; }
static double get_i32(const void *p, int64_t i) { return ((const int32_t *)p)[i]; }
static double get_u32(const void *p, int64_t i) { return ((const uint32_t *)p)[i]; }
static double get_i64(const void *p, int64_t i) { return (double)((const int64_t *)p)[i]; }
static double get_u64(const void *p, int64_t i) { return (double)((const uint64_t *)p)[i]; }

static getter getter_for(int dt)
{
    switch (dt) {
    case DT_FLOAT: return get_f32;
    case DT_DOUBLE: return get_f64;
    case DT_FLOAT16: return get_f16;
    case DT_INT8: return get_i8;
    case DT_UINT8: case DT_BOOL: return get_u8;
    case DT_INT16: return get_i16;
    case DT_UINT16: return get_u16;
    case DT_INT32: return get_i32;
    case DT_UINT32: return get_u32;
    case DT_INT64: return get_i64;
    case DT_UINT64: return get_u64;
    default: return NULL;
    }
}

static void finish(metrics_t *m, int64_t n, double dot, double rr, double xx, double ee,
                   double sum_abs, double max_abs, int nonfinite, int ref_const, int x_const)
{
    m->n = n;
    m->flags = 0;
    m->ref_nonfinite = m->x_nonfinite = 0;
    if (n == 0) {
        m->flags = METRIC_EMPTY;
        m->cos = m->euc = m->max_abs = m->mean_abs = m->sqnr_db = NAN;
        return;
    }
    if (nonfinite) {
        m->flags = METRIC_NONFINITE;
        m->cos = m->euc = m->max_abs = m->mean_abs = m->sqnr_db = NAN;
        return;
    }
    m->flags |= ref_const ? METRIC_REF_CONST : 0;
    m->flags |= x_const ? METRIC_X_CONST : 0;
    m->euc = sqrt(ee);
    m->max_abs = max_abs;
    m->mean_abs = sum_abs / (double)n;
    if (ref_const || x_const) {
        m->cos = m->sqnr_db = NAN;
        return;
    }
    double c = dot / (sqrt(rr) * sqrt(xx));
    /* Rounding can push |c| a hair past 1. */
    m->cos = c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c;
    m->sqnr_db = ee > 0 ? 10.0 * log10(rr / ee) : INFINITY;
}

static void compute(getter gr, const void *ref, getter gx, const void *x, int64_t n, metrics_t *m)
{
    double dot = 0, rr = 0, xx = 0, ee = 0, sum_abs = 0, max_abs = 0;
    int nonfinite = 0, ref_const = 1, x_const = 1;
    double r0 = n ? gr(ref, 0) : 0, x0 = n ? gx(x, 0) : 0;

    for (int64_t i = 0; i < n; i++) {
        double r = gr(ref, i), v = gx(x, i), d = r - v, a = fabs(d);
        if (!isfinite(r) || !isfinite(v))
            nonfinite = 1;
        ref_const &= r == r0;
        x_const &= v == x0;
        dot += r * v;
        rr += r * r;
        xx += v * v;
        ee += d * d;
        sum_abs += a;
        if (a > max_abs)
            max_abs = a;
    }
    finish(m, n, dot, rr, xx, ee, sum_abs, max_abs, nonfinite, ref_const, x_const);
}

/* 8 independent lanes of every sum, so that the loop is not one long chain of
 * dependent additions and vectorises (AVX2 clone where the CPU has it). The
 * lanes are added at the end: the order of the additions differs from a plain
 * loop by the usual double rounding (~1e-16 relative), nothing more. */
#define ML 8
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MHOT __attribute__((optimize("O3"), target_clones("arch=x86-64-v3", "default")))
#else
#define MHOT __attribute__((optimize("O3")))
#endif

static int64_t count_nonfinite(getter get, const void *p, int64_t n)
{
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        k += !isfinite(get(p, i));
    return k;
}

/* Which side holds the NaN/inf: a second pass, only when there are some. */
static void count_sides(getter gr, const void *ref, getter gx, const void *x, int64_t n,
                        metrics_t *m)
{
    if (!(m->flags & METRIC_NONFINITE))
        return;
    m->ref_nonfinite = count_nonfinite(gr, ref, n);
    m->x_nonfinite = count_nonfinite(gx, x, n);
}

MHOT void metrics_compute(const float *ref, const float *x, int64_t n, metrics_t *m)
{
    double dot[ML] = {0}, rr[ML] = {0}, xx[ML] = {0}, ee[ML] = {0}, sa[ML] = {0}, mx[ML] = {0};
    int rc[ML], xc[ML];
    float r0 = n ? ref[0] : 0, x0 = n ? x[0] : 0;
    int64_t i = 0;

    for (int l = 0; l < ML; l++)
        rc[l] = xc[l] = 1;
    for (; i + ML <= n; i += ML)
        for (int l = 0; l < ML; l++) {
            double r = ref[i + l], v = x[i + l], d = r - v, a = fabs(d);
            rc[l] &= ref[i + l] == r0;
            xc[l] &= x[i + l] == x0;
            dot[l] += r * v;
            rr[l] += r * r;
            xx[l] += v * v;
            ee[l] += d * d;
            sa[l] += a;
            mx[l] = a > mx[l] ? a : mx[l];
        }
    for (int l = 0; i < n; i++, l++) {
        double r = ref[i], v = x[i], d = r - v, a = fabs(d);
        rc[l] &= ref[i] == r0;
        xc[l] &= x[i] == x0;
        dot[l] += r * v;
        rr[l] += r * r;
        xx[l] += v * v;
        ee[l] += d * d;
        sa[l] += a;
        mx[l] = a > mx[l] ? a : mx[l];
    }
    double D = 0, R = 0, X = 0, E = 0, S = 0, MX = 0;
    int ref_const = 1, x_const = 1;
    for (int l = 0; l < ML; l++) {
        D += dot[l], R += rr[l], X += xx[l], E += ee[l], S += sa[l];
        MX = mx[l] > MX ? mx[l] : MX;
        ref_const &= rc[l];
        x_const &= xc[l];
    }
    /* A NaN or inf anywhere makes the sums non-finite. */
    int nonfinite = !isfinite(D) || !isfinite(R) || !isfinite(X) || !isfinite(E);
    finish(m, n, D, R, X, E, S, MX, nonfinite, ref_const, x_const);
    count_sides(get_f32, ref, get_f32, x, n, m);
}

int metrics_compute_typed(int ref_dtype, const void *ref, int x_dtype, const void *x, int64_t n,
                          metrics_t *m, char *err, size_t errlen)
{
    getter gr = getter_for(ref_dtype), gx = getter_for(x_dtype);
    if (!gr || !gx)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "no error metrics for dtype %s",
                      dtype_name(gr ? x_dtype : ref_dtype));
    if (ref_dtype == DT_FLOAT && x_dtype == DT_FLOAT)
        metrics_compute(ref, x, n, m);
    else {
        compute(gr, ref, gx, x, n, m);
        count_sides(gr, ref, gx, x, n, m);
    }
    return RT_OK;
}

/* The float/float case without the per-element getter calls (the generic
 * loop below costs three times the metrics pass on large dumps): the same
 * comparisons, the same first-worst element. */
static void tolerance_f32(const float *ref, const float *x, int64_t n, double atol,
                          double rtol, tol_t *t)
{
    double worst = -1;
    for (int64_t i = 0; i < n; i++) {
        double r = ref[i], d = fabs((double)x[i] - r);
        t->fail += !(d <= atol + rtol * fabs(r));
        double rank = d < INFINITY ? d : INFINITY; /* NaN ranks as inf */
        if (rank > worst) {
            worst = rank;
            t->worst = i;
        }
    }
    if (t->worst >= 0) {
        t->x = x[t->worst];
        t->ref = ref[t->worst];
    }
}

int metrics_tolerance(int ref_dtype, const void *ref, int x_dtype, const void *x, int64_t n,
                      double atol, double rtol, tol_t *t, char *err, size_t errlen)
{
    getter gr = getter_for(ref_dtype), gx = getter_for(x_dtype);
    double worst = -1;
    if (!gr || !gx)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "no tolerance check for dtype %s",
                      dtype_name(gr ? x_dtype : ref_dtype));
    *t = (tol_t){ 0, -1, NAN, NAN };
    if (ref_dtype == DT_FLOAT && x_dtype == DT_FLOAT) {
        tolerance_f32(ref, x, n, atol, rtol, t);
        return RT_OK;
    }
    for (int64_t i = 0; i < n; i++) {
        double r = gr(ref, i), v = gx(x, i), d = fabs(v - r);
        /* written so that a NaN difference fails */
        if (!(d <= atol + rtol * fabs(r)))
            t->fail++;
        double rank = isnan(d) || isinf(d) ? INFINITY : d;
        if (t->worst < 0 || rank > worst) {
            worst = rank;
            t->worst = i;
            t->x = v;
            t->ref = r;
        }
    }
    return RT_OK;
}

const char *metrics_fmt_cos(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "nan");
    else
        snprintf(buf, len, "%.5f", v);
    return buf;
}

const char *metrics_fmt_euc(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "nan");
    else if (isinf(v))
        snprintf(buf, len, "inf");
    else if (v == 0)
        snprintf(buf, len, "0.0");
    else if (v >= 1e5)
        snprintf(buf, len, "%.4e", v);
    else {
        /* 5 significant digits, as Toolkit2 (2.0599, 64.548, 0.2290). */
        int before = v >= 1 ? (int)floor(log10(v)) + 1 : 1;
        int dec = 5 - before;
        snprintf(buf, len, "%.*f", dec < 1 ? 1 : dec, v);
    }
    return buf;
}

int metrics_cos_grade(double c, double thr)
{
    if (isnan(c))
        return METRIC_GRADE_NAN;
    return c >= thr ? METRIC_GRADE_OK : c >= thr - 0.04 ? METRIC_GRADE_NEAR : METRIC_GRADE_BAD;
}
