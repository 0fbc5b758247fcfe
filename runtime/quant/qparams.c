/* runtime/quant/qparams.c — int8 asymmetric parameters and (de)quantization,
 * with the formulas of the RKNN SDK guide (see quant.h). */
#include "runtime/quant/quant.h"

#include <math.h>
#include <string.h>

void quant_param_from_range(float min, float max, qparam_t *p)
{
    /* Widen to contain 0, so that zero padding and ReLU's 0 are exact. */
    if (min > 0)
        min = 0;
    if (max < 0)
        max = 0;
    p->min = min;
    p->max = max;
    /* In double, so that the formula decides, not float rounding. */
    double scale = ((double)max - (double)min) / 255.0;
    if (!(scale > 0) || !isfinite(scale))
        scale = 1.0; /* constant-zero tensor: any scale represents it */
    p->scale = (float)scale;
    double zp = round(-(double)min / scale) - 128;
    p->zp = (int32_t)(zp < -128 ? -128 : zp > 127 ? 127 : zp);
}

void quant_param_symmetric(float maxabs, qparam_t *p)
{
    maxabs = fabsf(maxabs);
    p->min = -maxabs;
    p->max = maxabs;
    p->scale = maxabs > 0 && isfinite(maxabs) ? (float)(2.0 * maxabs / 255.0) : 1.0f;
    p->zp = 0;
}

int8_t quant_q8(float x, const qparam_t *p)
{
    float r = roundf(x / p->scale) + (float)p->zp;
    if (!(r >= -128.0f)) /* also NaN -> -128 */
        return -128;
    if (r > 127.0f)
        return 127;
    return (int8_t)r;
}

float quant_dq8(int8_t q, const qparam_t *p)
{
    return (float)(q - p->zp) * p->scale;
}

/* quant_q8 value by value, minus zp, as float, in a form that vectorises:
 * the same IEEE division x / scale, then round-half-away as
 * trunc(y + copysign(0.5 - 2^-25, y)), which equals roundf(y) for every float
 * (checked exhaustively over all 2^32 inputs; the sum rounds to nearest even,
 * so exact halves still go up and values just below a half stay down); then
 * + zp and the clamp, NaN failing every compare and ending at -128 as in
 * quant_q8. Clones for AVX-512 and AVX2 where the CPU has them. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define QCLONES \
    __attribute__((optimize("O3"), target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define QCLONES __attribute__((optimize("O3")))
#endif

static inline float q8_centered(float x, float s, float zpf)
{
    float y = x / s;
    /* |y| > 512 saturates whatever zp is: clamping there first changes
     * nothing, keeps the int conversion (truncation) in range, and sends NaN
     * to -512, hence -128 */
    y = y >= -512.0f ? y : -512.0f;
    y = y > 512.0f ? 512.0f : y;
    float r = (float)(int32_t)(y + copysignf(0.49999997f, y)) + zpf;
    r = r < -128.0f ? -128.0f : r;
    r = r > 127.0f ? 127.0f : r;
    return r - zpf;
}

/* The same on QV lanes, written with vector types: GCC does not vectorise the
 * scalar form under a function-level optimize attribute. */
typedef float qvf __attribute__((vector_size(64)));
typedef int32_t qvi __attribute__((vector_size(64)));
#define QV 16
#define Q0 ((qvf){0}) /* zeros, broadcast against scalars below */
#define qsel(m, a, b) ((qvf)(((qvi)(a) & (m)) | ((qvi)(b) & ~(m))))

/* r = q8_centered of the QV lanes of x (a macro: no vector crosses a call,
 * whatever the clone's ABI). */
#define Q8C_V(x, s, zpf, r)                                                              \
    do {                                                                                 \
        const qvf vs_ = Q0 + (s), zp_ = Q0 + (zpf), c512_ = Q0 + 512.0f; \
        const qvf lo_ = Q0 - 128.0f, hi_ = Q0 + 127.0f;                        \
        const qvi h_ = (qvi)(Q0 + 0.49999997f), sign_ = (qvi){0} + INT32_MIN;\
        qvf y_ = (x) / vs_;                                                              \
        y_ = qsel(y_ >= -c512_, y_, -c512_);                                             \
        y_ = qsel(y_ > c512_, c512_, y_);                                                \
        qvf r_ = __builtin_convertvector(                                                \
                     __builtin_convertvector(y_ + (qvf)(((qvi)y_ & sign_) | h_), qvi),   \
                     qvf) + zp_;                                                         \
        r_ = qsel(r_ < lo_, lo_, r_);                                                    \
        r_ = qsel(r_ > hi_, hi_, r_);                                                    \
        (r) = r_ - zp_;                                                                  \
    } while (0)

QCLONES void quant_qdq(float *v, int64_t n, const qparam_t *p)
{
    const float s = p->scale, zpf = (float)p->zp;
    int64_t i = 0;
    for (; i + QV <= n; i += QV) {
        qvf x;
        memcpy(&x, v + i, sizeof(x));
        Q8C_V(x, s, zpf, x);
        x = x * s;
        memcpy(v + i, &x, sizeof(x));
    }
    for (; i < n; i++)
        v[i] = q8_centered(v[i], s, zpf) * s;
}

QCLONES void quant_q8_centered(const float *x, float *out, int64_t n, const qparam_t *p)
{
    const float s = p->scale, zpf = (float)p->zp;
    int64_t i = 0;
    for (; i + QV <= n; i += QV) {
        qvf v;
        memcpy(&v, x + i, sizeof(v));
        Q8C_V(v, s, zpf, v);
        memcpy(out + i, &v, sizeof(v));
    }
    for (; i < n; i++)
        out[i] = q8_centered(x[i], s, zpf);
}

static const char *const type_names[] = {"fp32", "fp16", "i8"};
static const char *const algo_names[] = {"normal", "kl_divergence", "mmse"};
static const char *const method_names[] = {"channel", "layer"};

int quant_type_parse(const char *s)
{
    if (!strcmp(s, "fp32") || !strcmp(s, "float32"))
        return QT_FP32;
    if (!strcmp(s, "fp16") || !strcmp(s, "float16"))
        return QT_FP16;
    if (!strcmp(s, "i8") || !strcmp(s, "int8") || !strcmp(s, "asymmetric_quantized-8"))
        return QT_I8;
    return -1;
}

int quant_algo_parse(const char *s)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, algo_names[i]))
            return i;
    return -1;
}

int quant_method_parse(const char *s)
{
    for (int i = 0; i < 2; i++)
        if (!strcmp(s, method_names[i]))
            return i;
    return -1;
}

const char *quant_type_name(int t) { return t >= 0 && t < 3 ? type_names[t] : "?"; }
const char *quant_algo_name(int a) { return a >= 0 && a < 3 ? algo_names[a] : "?"; }
const char *quant_method_name(int m) { return m >= 0 && m < 2 ? method_names[m] : "?"; }
