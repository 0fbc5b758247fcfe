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

/* quant_q8 for 8 values at a time, with the same results, minus zp (as float).
 * x / scale is taken as x * (1 / scale), which is within 2 ulp of the true
 * quotient: that changes the rounding only when the quotient is within a hair
 * of a half-integer, so such blocks (rare: activations lie on their grid, far
 * from halves) are redone with the true division, as quant_q8 divides. |x/scale| > 512 lands outside
 * the int8 range whatever zp is, so clamping there first changes nothing; below
 * it the int conversion truncates exactly and the fraction decides the
 * half-away rounding; NaN fails every compare and ends at -128 as in quant_q8. */
typedef float qv8 __attribute__((vector_size(32)));
typedef int32_t qv8i __attribute__((vector_size(32)));
#define QV 8
/* x86-64-v3 (AVX2) clone where the CPU has it: the 8-lane vectors are then
 * one register each */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define QCLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define QCLONES
#endif

/* m ? a : b, lane by lane (m: a compare's all-ones / all-zeros lanes) */
#define qsel(m, a, b) ((qv8)(((qv8i)(a) & (m)) | ((qv8i)(b) & ~(m))))

/* r = q - zp of the QV values at src, with x * inv (div 0: ok set to 0 when a
 * lane is near a half) or x / sc (div 1, always ok) (a macro: no vector crosses a call, whatever the clone's ABI). */
#define Q8_BLOCK(src, inv, sc, div, zpf, r, ok)                                         \
    do {                                                                                \
        qv8 vinv_ = {inv, inv, inv, inv, inv, inv, inv, inv};                           \
        qv8 vsc_ = {sc, sc, sc, sc, sc, sc, sc, sc};                                    \
        qv8 zp_ = {zpf, zpf, zpf, zpf, zpf, zpf, zpf, zpf};                             \
        qv8 one_ = vinv_ * 0 + 1, c512_ = one_ * 512, half_ = one_ * 0.5f;              \
        qv8 zero_ = one_ * 0, eps_ = one_ * (1.0f / 512), lo_ = one_ * -128;            \
        qv8 hi_ = one_ * 127, y_;                                                       \
        memcpy(&y_, (src), sizeof(y_));                                                 \
        y_ = (div) ? y_ / vsc_ : y_ * vinv_;                                            \
        y_ = qsel(y_ > c512_, c512_, qsel(y_ >= -c512_, y_, -c512_));                   \
        qv8 t_ = __builtin_convertvector(__builtin_convertvector(y_, qv8i), qv8);       \
        qv8 d_ = y_ - t_;                                                               \
        qv8 ad_ = qsel(d_ < zero_, -d_, d_) - half_;                                    \
        qv8i near_ = (ad_ < eps_) & (ad_ > -eps_);                                      \
        qv8i any_ = near_;                                                              \
        (ok) = (div) || !(any_[0] | any_[1] | any_[2] | any_[3] | any_[4] | any_[5] |   \
                          any_[6] | any_[7]);                                           \
        qv8 r_ = t_ + qsel(d_ >= half_, one_, qsel(d_ <= -half_, -one_, zero_)) + zp_;  \
        (r) = qsel(r_ < lo_, lo_, qsel(r_ > hi_, hi_, r_)) - zp_;                       \
    } while (0)

QCLONES void quant_qdq(float *v, int64_t n, const qparam_t *p)
{
    const float inv = 1.0f / p->scale, zpf = (float)p->zp, s = p->scale;
    const qv8 scale = {s, s, s, s, s, s, s, s};
    int64_t i = 0;
    for (; i + QV <= n; i += QV) {
        qv8 r;
        int ok;
        Q8_BLOCK(v + i, inv, s, 0, zpf, r, ok);
        if (!ok) /* a quotient near a half: the true division decides */
            Q8_BLOCK(v + i, inv, s, 1, zpf, r, ok);
        r = r * scale;
        memcpy(v + i, &r, sizeof(r));
    }
    for (; i < n; i++)
        v[i] = quant_dq8(quant_q8(v[i], p), p);
}

QCLONES void quant_q8_centered(const float *x, float *out, int64_t n, const qparam_t *p)
{
    const float inv = 1.0f / p->scale, zpf = (float)p->zp;
    int64_t i = 0;
    for (; i + QV <= n; i += QV) {
        qv8 r;
        int ok;
        Q8_BLOCK(x + i, inv, p->scale, 0, zpf, r, ok);
        if (!ok)
            Q8_BLOCK(x + i, inv, p->scale, 1, zpf, r, ok);
        memcpy(out + i, &r, sizeof(r));
    }
    for (; i < n; i++)
        out[i] = (float)(quant_q8(x[i], p) - p->zp);
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
