/* runtime/quant/fp16.c — IEEE 754 binary16 conversions, round-to-nearest-even,
 * with subnormals, infinities and NaN handled exactly. */
#include "runtime/quant/quant.h"

#include <string.h>

uint16_t quant_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xffu;
    uint32_t man = x & 0x7fffffu;

    if (exp == 0xff) /* inf or NaN (keep NaN quiet and non-zero) */
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0));
    int32_t e = (int32_t)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        /* Subnormal half (or zero): shift the implicit-1 mantissa into place. */
        if (e < -10)
            return (uint16_t)sign;
        man |= 0x800000u;
        int shift = 14 - e; /* 24-bit mantissa down to the subnormal's 10 - (1-e) bits */
        uint32_t h = man >> shift;
        uint32_t rem = man & ((1u << shift) - 1);
        uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)e << 10) | (man >> 13);
    uint32_t rem = man & 0x1fffu;
    /* A carry out of the mantissa bumps the exponent, which is still right
     * (up to inf). */
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
        h++;
    return (uint16_t)(sign | h);
}

float quant_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    uint32_t x;

    if (exp == 0x1f) {
        x = sign | 0x7f800000u | (man << 13);
    } else if (exp == 0) {
        if (!man) {
            x = sign;
        } else {
            /* Normalise the subnormal. */
            int e = -1;
            do {
                man <<= 1;
                e++;
            } while (!(man & 0x400u));
            x = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
        }
    } else {
        x = sign | ((exp - 15 + 127) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}

void quant_round_f16(float *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = quant_f16_to_f32(quant_f32_to_f16(v[i]));
}
