/* runtime/quant/fp16.c — rounding through IEEE 754 binary16 (util/half.c).
 *
 * quant_round_f16 runs on every float16 layer output (hybrid and fp16 runs,
 * tune's evaluations): on x86 with AVX-512F or F16C it converts 16 or 8
 * values at a time by vcvtps2ph (round to nearest even, overflow to inf,
 * subnormals kept: MXCSR's DAZ is never set here) and vcvtph2ps, the same
 * bits as rt_f32_to_f16 / rt_f16_to_f32 for every non-NaN float. A NaN
 * lane is then replaced by what those give: the quiet NaN 0x7fc00000 with
 * the input's sign (the instructions would keep the payload's top bits). */
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

static void round_f16_scalar(float *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = quant_f16_to_f32(quant_f32_to_f16(v[i]));
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>

#define RNE (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

__attribute__((target("avx512f"))) static void round_f16_512(float *v, int64_t n)
{
    const __m512i sign = _mm512_set1_epi32((int)0x80000000u), qnan = _mm512_set1_epi32(0x7fc00000);
    for (int64_t i = 0; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512 x = _mm512_maskz_loadu_ps(m, v + i);
        __m512 r = _mm512_cvtph_ps(_mm512_cvtps_ph(x, RNE));
        __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
        if (nan) /* (x & sign) | qnan: 0xEA is (A & B) | C */
            r = _mm512_mask_mov_ps(r, nan, _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
                                               _mm512_castps_si512(x), sign, qnan, 0xEA)));
        _mm512_mask_storeu_ps(v + i, m, r);
    }
}

__attribute__((target("avx,f16c"))) static void round_f16_f16c(float *v, int64_t n)
{
    const __m256 sign = _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000u));
    const __m256 qnan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000));
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 x = _mm256_loadu_ps(v + i);
        __m256 r = _mm256_cvtph_ps(_mm256_cvtps_ph(x, RNE));
        __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
        r = _mm256_blendv_ps(r, _mm256_or_ps(_mm256_and_ps(x, sign), qnan), nan);
        _mm256_storeu_ps(v + i, r);
    }
    round_f16_scalar(v + i, n - i);
}

/* 2: AVX-512F, 1: F16C, 0: neither. Relaxed atomics: threads may race to set it. */
static int f16_isa(void)
{
    static int isa = -1;
    int h = __atomic_load_n(&isa, __ATOMIC_RELAXED);
    if (h < 0) {
        /* F16C by CPUID leaf 1, ECX bit 29: clang's __builtin_cpu_supports
         * does not know "f16c"; it needs AVX's YMM state, which "avx" checks */
        unsigned a, b, c = 0, d;
        int f16c = __get_cpuid(1, &a, &b, &c, &d) && (c >> 29 & 1) && __builtin_cpu_supports("avx");
        h = __builtin_cpu_supports("avx512f") ? 2 : f16c ? 1 : 0;
        __atomic_store_n(&isa, h, __ATOMIC_RELAXED);
    }
    return h;
}
#endif

void quant_round_f16(float *v, int64_t n)
{
#if defined(__x86_64__) && defined(__GNUC__)
    switch (quant_isa() == QISA_FLOAT ? 0 : f16_isa()) {
    case 2: round_f16_512(v, n); return;
    case 1: round_f16_f16c(v, n); return;
    default: break;
    }
#endif
    round_f16_scalar(v, n);
}
