/* util/half.c — IEEE 754 binary16 <-> binary32, shared by the kernels (Cast,
 * float16 tensors), the C API (float16 inputs/outputs) and fp16 simulation. */
#include "util/util.h"

#include <math.h>
#include <string.h>

float rt_f16_to_f32(uint16_t h)
{
    uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, u;
    float f;
    if (e == 0) {
        f = ldexpf((float)m, -24);
        return s ? -f : f;
    }
    if (e == 31)
        u = s | 0x7f800000u | (m << 13);
    else
        u = s | ((e + 112) << 23) | (m << 13);
    memcpy(&f, &u, 4);
    return f;
}

/* Round to nearest even, overflow to inf, subnormals kept, NaN stays NaN. */
uint16_t rt_f32_to_f16(float f)
{
    uint32_t u, s, m;
    int e;
    memcpy(&u, &f, 4);
    s = (u >> 16) & 0x8000;
    e = (int)((u >> 23) & 0xff) - 127 + 15;
    m = u & 0x7fffff;
    if (((u >> 23) & 0xff) == 0xff)
        return (uint16_t)(s | 0x7c00 | (m ? 0x200 : 0));
    if (e >= 31)
        return (uint16_t)(s | 0x7c00);
    if (e <= 0) {
        if (e < -10)
            return (uint16_t)s;
        m |= 0x800000;
        int shift = 14 - e;
        uint32_t hm = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (hm & 1)))
            hm++;
        return (uint16_t)(s | hm);
    }
    uint32_t hm = m >> 13, rem = m & 0x1fff;
    uint32_t r = s | ((uint32_t)e << 10) | hm;
    if (rem > 0x1000 || (rem == 0x1000 && (hm & 1)))
        r++; /* may carry into the exponent, up to inf: still correct */
    return (uint16_t)r;
}
