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

void quant_qdq(float *v, int64_t n, const qparam_t *p)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = quant_dq8(quant_q8(v[i], p), p);
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
