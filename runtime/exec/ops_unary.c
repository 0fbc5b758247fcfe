/* runtime/exec/ops_unary.c — elementwise activations and math functions.
 *
 * float32 has one vectorisable loop per op (Sigmoid and Exp use a polynomial exp,
 * within ~2 ulp of expf); double has its own loop; integer dtypes go through double
 * (enough for Clip/Relu/Neg/Abs/Sign on shape-sized tensors). */
#include "runtime/exec/kernels.h"

/* -O2 uses the "very cheap" vectoriser cost model, which skips loops needing an
 * epilogue: nearly all of ours. Without trapping math, float selects (clamps,
 * max) if-convert and vectorise. */
#pragma GCC optimize("vect-cost-model=dynamic", "no-trapping-math")

#include <float.h>
#include <math.h>
#include <string.h>

typedef unary_par un_par;

/* exp(x) for float: x = n*ln2 + r, |r| <= ln2/2, degree-7 polynomial for e^r,
 * 2^n put together in the exponent bits. Branch-free so that loops vectorise. */
static inline float exp_fast(float x)
{
    /* Written so that NaN clamps too (the result is fixed up at the end). */
    float xc = x > -87.33655f ? x : -87.33655f;
    xc = xc < 88.72283f ? xc : 88.72283f;
    float t = xc * 1.44269504088896341f + 12582912.0f; /* round to nearest */
    float nf = t - 12582912.0f;
    int32_t ni, n1;
    uint32_t b1, b2;
    float r, p, s1, s2;

    memcpy(&ni, &t, 4);
    ni -= 0x4B400000;
    r = xc - nf * 0.693145751953125f;
    r = r - nf * 1.42860682030941723e-6f;
    p = 1.0f / 5040;
    p = p * r + 1.0f / 720;
    p = p * r + 1.0f / 120;
    p = p * r + 1.0f / 24;
    p = p * r + 1.0f / 6;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    /* 2^n as two factors so that both stay normal for n in [-126, 128]. */
    n1 = ni / 2;
    b1 = (uint32_t)(n1 + 127) << 23;
    b2 = (uint32_t)(ni - n1 + 127) << 23;
    memcpy(&s1, &b1, 4);
    memcpy(&s2, &b2, 4);
    p = p * s1 * s2;
    p = x < -87.33655f ? 0.0f : p;
    p = x > 88.72283f ? INFINITY : p;
    return x != x ? x : p;
}

typedef unary_loop un_kern;

/* On x86-64 the float loops also get an AVX2/FMA clone, picked at load time. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HOT_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define HOT_CLONES
#endif

#define UN_KERN(name, EXPRF, EXPRD)                                                 \
    HOT_CLONES static void name##_f32(const void *px, void *py, int64_t n, const un_par *p)    \
    {                                                                               \
        const float *x = px;                                                        \
        float *y = py;                                                              \
        float alpha = p->alpha, beta = p->beta, gamma = p->gamma;                   \
        float lo = (float)p->lo, hi = (float)p->hi;                                 \
        (void)alpha; (void)beta; (void)gamma; (void)lo; (void)hi;                   \
        for (int64_t i = 0; i < n; i++) {                                           \
            float v = x[i];                                                         \
            y[i] = (EXPRF);                                                         \
        }                                                                           \
    }                                                                               \
    static void name##_f64(const void *px, void *py, int64_t n, const un_par *p)    \
    {                                                                               \
        const double *x = px;                                                       \
        double *y = py;                                                             \
        double alpha = p->alpha, beta = p->beta, gamma = p->gamma;                  \
        double lo = p->lo, hi = p->hi;                                              \
        (void)alpha; (void)beta; (void)gamma; (void)lo; (void)hi;                   \
        for (int64_t i = 0; i < n; i++) {                                           \
            double v = x[i];                                                        \
            y[i] = (EXPRD);                                                         \
        }                                                                           \
    }

UN_KERN(relu, v > 0 ? v : 0, v > 0 ? v : 0)
UN_KERN(leaky, v < 0 ? v * alpha : v, v < 0 ? v * alpha : v)
UN_KERN(clip, v < lo ? lo : (v > hi ? hi : v), v < lo ? lo : (v > hi ? hi : v))
UN_KERN(sigmoid, 1.0f / (1.0f + exp_fast(-v)), 1.0 / (1.0 + exp(-v)))
UN_KERN(tanh, tanhf(v), tanh(v))
UN_KERN(hsig, fmaxf(0.0f, fminf(1.0f, alpha * v + beta)), fmax(0.0, fmin(1.0, alpha * v + beta)))
UN_KERN(hswish, v * fmaxf(0.0f, fminf(1.0f, v * (1.0f / 6) + 0.5f)),
        v * fmax(0.0, fmin(1.0, v / 6 + 0.5)))
UN_KERN(sqrt, sqrtf(v), sqrt(v))
UN_KERN(exp, exp_fast(v), exp(v))
UN_KERN(log, logf(v), log(v))
UN_KERN(erf, erff(v), erf(v))
UN_KERN(neg, -v, -v)
UN_KERN(abs, fabsf(v), fabs(v))
UN_KERN(recip, 1.0f / v, 1.0 / v)
UN_KERN(floor, floorf(v), floor(v))
UN_KERN(ceil, ceilf(v), ceil(v))
UN_KERN(round, rintf(v), rint(v))
UN_KERN(softplus, v > 20.0f ? v : log1pf(expf(v)), v > 40.0 ? v : log1p(exp(v)))
UN_KERN(softsign, v / (1.0f + fabsf(v)), v / (1.0 + fabs(v)))
UN_KERN(elu, v < 0 ? alpha * expm1f(v) : v, v < 0 ? alpha * expm1(v) : v)
UN_KERN(selu, v <= 0 ? gamma * (alpha * expf(v) - alpha) : gamma * v,
        v <= 0 ? gamma * (alpha * exp(v) - alpha) : gamma * v)
UN_KERN(celu, fmaxf(0.0f, v) + fminf(0.0f, alpha * expm1f(v / alpha)),
        fmax(0.0, v) + fmin(0.0, alpha * expm1(v / alpha)))
UN_KERN(thrrelu, v > alpha ? v : 0, v > alpha ? v : 0)
UN_KERN(shrink, v < -lo ? v + beta : (v > lo ? v - beta : 0),
        v < -lo ? v + beta : (v > lo ? v - beta : 0))
UN_KERN(sign, (float)((v > 0) - (v < 0)), (double)((v > 0) - (v < 0)))
UN_KERN(sin, sinf(v), sin(v))
UN_KERN(cos, cosf(v), cos(v))
UN_KERN(tan, tanf(v), tan(v))
UN_KERN(asin, asinf(v), asin(v))
UN_KERN(acos, acosf(v), acos(v))
UN_KERN(atan, atanf(v), atan(v))
UN_KERN(sinh, sinhf(v), sinh(v))
UN_KERN(cosh, coshf(v), cosh(v))
UN_KERN(asinh, asinhf(v), asinh(v))
UN_KERN(acosh, acoshf(v), acosh(v))
UN_KERN(atanh, atanhf(v), atanh(v))
UN_KERN(mish, v * tanhf(log1pf(expf(v))), v * tanh(log1p(exp(v))))

typedef struct un_desc {
    const char *op;
    un_kern f32, f64;
    int int_ok; /* meaningful on integer tensors */
} un_desc;

#define D(op, k, i) { op, k##_f32, k##_f64, i }
static const un_desc descs[] = {
    D("Relu", relu, 1), D("LeakyRelu", leaky, 0), D("Clip", clip, 1),
    D("Sigmoid", sigmoid, 0), D("Tanh", tanh, 0), D("HardSigmoid", hsig, 0),
    D("HardSwish", hswish, 0), D("Sqrt", sqrt, 0), D("Exp", exp, 0), D("Log", log, 0),
    D("Erf", erf, 0), D("Neg", neg, 1), D("Abs", abs, 1), D("Reciprocal", recip, 0),
    D("Floor", floor, 0), D("Ceil", ceil, 0), D("Round", round, 0),
    D("Softplus", softplus, 0), D("Softsign", softsign, 0), D("Elu", elu, 0),
    D("Selu", selu, 0), D("Celu", celu, 0), D("ThresholdedRelu", thrrelu, 0),
    D("Shrink", shrink, 0), D("Sign", sign, 1), D("Sin", sin, 0), D("Cos", cos, 0),
    D("Tan", tan, 0), D("Asin", asin, 0), D("Acos", acos, 0), D("Atan", atan, 0),
    D("Sinh", sinh, 0), D("Cosh", cosh, 0), D("Asinh", asinh, 0), D("Acosh", acosh, 0),
    D("Atanh", atanh, 0), D("Mish", mish, 0),
};
#undef D

static const un_desc *find_desc(const char *op)
{
    for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
        if (!strcmp(descs[i].op, op))
            return &descs[i];
    return NULL;
}

static int is_int_dtype(int dt)
{
    switch (dt) {
    case DT_INT8: case DT_UINT8: case DT_INT16: case DT_UINT16: case DT_INT32:
    case DT_UINT32: case DT_INT64: case DT_UINT64:
        return 1;
    }
    return 0;
}

static int unary_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    const un_desc *d = find_desc(n->op);
    int rc = check_arity(n, 1, !strcmp(n->op, "Clip") ? 3 : 1, 1, err, errlen);
    tensor_t *x;

    if (rc)
        return rc;
    if (!d)
        return rt_err(err, errlen, RT_EINTERNAL, "node '%s': no unary op %s", n->name, n->op);
    x = node_input(g, n, 0);
    if (x->dtype != DT_FLOAT && x->dtype != DT_DOUBLE && !(d->int_ok && is_int_dtype(x->dtype)))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): dtype %s not supported",
                      n->name, n->op, dtype_name(x->dtype));
    tensor_set_shape(node_output(g, n, 0), x->dtype, x->ndim, x->dims);
    return RT_OK;
}

static void set_params(graph_t *g, const node_t *n, un_par *p)
{
    const char *op = n->op;
    memset(p, 0, sizeof(*p));
    if (!strcmp(op, "LeakyRelu"))
        p->alpha = node_attr_float(n, "alpha", 0.01f);
    else if (!strcmp(op, "HardSigmoid")) {
        p->alpha = node_attr_float(n, "alpha", 0.2f);
        p->beta = node_attr_float(n, "beta", 0.5f);
    } else if (!strcmp(op, "Elu") || !strcmp(op, "Celu") || !strcmp(op, "ThresholdedRelu"))
        p->alpha = node_attr_float(n, "alpha", 1.0f);
    else if (!strcmp(op, "Selu")) {
        p->alpha = node_attr_float(n, "alpha", 1.67326319217681884765625f);
        p->gamma = node_attr_float(n, "gamma", 1.05070102214813232421875f);
    } else if (!strcmp(op, "Shrink")) {
        p->lo = node_attr_float(n, "lambd", 0.5f);
        p->beta = node_attr_float(n, "bias", 0.0f);
    } else if (!strcmp(op, "Clip")) {
        tensor_t *lo = node_input(g, n, 1), *hi = node_input(g, n, 2);
        p->lo = -INFINITY;
        p->hi = INFINITY;
        if (node_attr(n, "min"))
            p->lo = node_attr_float(n, "min", 0);
        if (node_attr(n, "max"))
            p->hi = node_attr_float(n, "max", 0);
        if (lo && lo->data && tensor_numel(lo) > 0)
            p->lo = tensor_get_f64(lo, 0);
        if (hi && hi->data && tensor_numel(hi) > 0)
            p->hi = tensor_get_f64(hi, 0);
    }
}

static int unary_run(op_ctx *c, graph_t *g, node_t *n);

unary_loop unary_f32_loop(graph_t *g, const node_t *n, unary_par *p)
{
    const un_desc *d = find_desc(n->op);
    if (!d || !n->def || n->def->run != unary_run) /* another domain's op of that name */
        return NULL;
    set_params(g, n, p);
    return d->f32;
}

typedef struct un_job {
    un_kern k;
    const char *x;
    char *y;
    size_t es;
    un_par p;
} un_job;

static void un_range(void *arg, int64_t b, int64_t e)
{
    const un_job *j = arg;
    j->k(j->x + (size_t)b * j->es, j->y + (size_t)b * j->es, e - b, &j->p);
}

static void st_int(tensor_t *t, int64_t i, double v)
{
    void *p = t->data;
    switch (t->dtype) {
    case DT_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case DT_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case DT_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case DT_UINT16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case DT_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case DT_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case DT_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
    case DT_UINT64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    }
}

static int unary_run(op_ctx *c, graph_t *g, node_t *n)
{
    const un_desc *d = find_desc(n->op);
    tensor_t *x = node_input(g, n, 0), *y = node_output(g, n, 0);
    int64_t m = tensor_numel(y);
    un_job j;

    if (m <= 0)
        return RT_OK;
    set_params(g, n, &j.p);
    if (x->dtype == DT_FLOAT || x->dtype == DT_DOUBLE) {
        j.k = x->dtype == DT_FLOAT ? d->f32 : d->f64;
        j.x = x->data;
        j.y = y->data;
        j.es = dtype_size(x->dtype);
        op_parallel_for_work(c, m, 4, un_range, &j);
        return RT_OK;
    }
    /* Integers: through a double buffer, in chunks. */
    double buf[256];
    for (int64_t i = 0; i < m; i += 256) {
        int64_t cnt = m - i < 256 ? m - i : 256;
        for (int64_t k = 0; k < cnt; k++)
            buf[k] = tensor_get_f64(x, i + k);
        d->f64(buf, buf, cnt, &j.p);
        for (int64_t k = 0; k < cnt; k++)
            st_int(y, i + k, buf[k]);
    }
    return RT_OK;
}

/* ---- ops with a bool side: Not, IsNaN, IsInf ---------------------------- */

static int pred_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 1, 1, err, errlen);
    tensor_t *x;
    if (rc)
        return rc;
    x = node_input(g, n, 0);
    if (!strcmp(n->op, "Not") ? x->dtype != DT_BOOL
                              : (x->dtype != DT_FLOAT && x->dtype != DT_DOUBLE))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): dtype %s not supported",
                      n->name, n->op, dtype_name(x->dtype));
    tensor_set_shape(node_output(g, n, 0), DT_BOOL, x->ndim, x->dims);
    return RT_OK;
}

static int pred_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *x = node_input(g, n, 0), *y = node_output(g, n, 0);
    int64_t m = tensor_numel(y);
    uint8_t *o = y->data;
    int pos = (int)node_attr_int(n, "detect_positive", 1);
    int neg = (int)node_attr_int(n, "detect_negative", 1);

    for (int64_t i = 0; i < m; i++) {
        if (!strcmp(n->op, "Not")) {
            o[i] = !((const uint8_t *)x->data)[i];
            continue;
        }
        double v = tensor_get_f64(x, i);
        if (!strcmp(n->op, "IsNaN"))
            o[i] = v != v;
        else
            o[i] = isinf(v) && ((v > 0 && pos) || (v < 0 && neg));
    }
    return RT_OK;
}

#define U(op) { op, "", unary_infer, NULL, unary_run, NULL, NULL }
const op_def exec_ops_unary[] = {
    U("Relu"), U("LeakyRelu"), U("Clip"), U("Sigmoid"), U("Tanh"), U("HardSigmoid"),
    U("HardSwish"), U("Sqrt"), U("Exp"), U("Log"), U("Erf"), U("Neg"), U("Abs"),
    U("Reciprocal"), U("Floor"), U("Ceil"), U("Round"), U("Softplus"), U("Softsign"),
    U("Elu"), U("Selu"), U("Celu"), U("ThresholdedRelu"), U("Shrink"), U("Sign"),
    U("Sin"), U("Cos"), U("Tan"), U("Asin"), U("Acos"), U("Atan"), U("Sinh"), U("Cosh"),
    U("Asinh"), U("Acosh"), U("Atanh"), U("Mish"),
    { "Not", "", pred_infer, NULL, pred_run, NULL, NULL },
    { "IsNaN", "", pred_infer, NULL, pred_run, NULL, NULL },
    { "IsInf", "", pred_infer, NULL, pred_run, NULL, NULL },
    { NULL, NULL, NULL, NULL, NULL, NULL, NULL },
};
#undef U
