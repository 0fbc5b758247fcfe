/* runtime/quant/fp16.c — rounding through IEEE 754 binary16 (util/half.c). */
#include "runtime/quant/quant.h"

#include "util/util.h"

/* util/half.c is the one conversion; these names stay for the quantizer's callers */
uint16_t quant_f32_to_f16(float f)
{
    return rt_f32_to_f16(f);
}

float quant_f16_to_f32(uint16_t h)
{
    return rt_f16_to_f32(h);
}

void quant_round_f16(float *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = quant_f16_to_f32(quant_f32_to_f16(v[i]));
}
