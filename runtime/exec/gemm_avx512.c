/* runtime/exec/gemm_avx512.c — an fp32 GEMM for conv layers on AVX-512 CPUs.
 *
 * C[M x N] = A[M x K] * B[K x N], then per-row bias and an activation, with A
 * packed once (weights, at prepare time) into panels of GEMM_MR rows stored
 * k-major, and B read in place with any row stride. One register tile is
 * GEMM_MR rows x GEMM_NR columns (24 zmm accumulators); the A values are
 * broadcast from the packed panel, B comes in three 16-float vectors per k.
 * Partial column tiles use masked loads and stores, partial row tiles come
 * from the zero padding of the packed panel and are not stored. When several
 * row tiles share a column panel of 128 or more rows, gemm512_run first copies the panel's K rows
 * (GEMM_NR floats each, from rows ldb apart) into one contiguous per-thread
 * buffer: the row tiles then stream it instead of K short runs a plane apart.
 *
 * Why not BLAS: the system OpenBLAS may be pinned to AVX2 kernels
 * (OPENBLAS_CORETYPE), and the epilogue here runs while the tile is in
 * registers. Callers check gemm512_available() and keep BLAS otherwise. */
#include "runtime/exec/kernels.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HAVE_GEMM512 1
#include <immintrin.h>
#else
#define HAVE_GEMM512 0
#endif

int gemm512_available(void)
{
#if HAVE_GEMM512
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") ? 1 : 0;
    }
    return cached;
#else
    return 0;
#endif
}

size_t gemm512_packed_floats(int64_t M, int64_t K)
{
    int64_t panels = (M + GEMM_MR - 1) / GEMM_MR;
    return (size_t)(panels * GEMM_MR * K);
}

void gemm512_pack_a(const float *a, int64_t lda, int64_t M, int64_t K, float *dst)
{
    for (int64_t i0 = 0; i0 < M; i0 += GEMM_MR) {
        float *d = dst + i0 * K;
        for (int64_t k = 0; k < K; k++)
            for (int r = 0; r < GEMM_MR; r++)
                d[k * GEMM_MR + r] = i0 + r < M ? a[(i0 + r) * lda + k] : 0.0f;
    }
}

#if HAVE_GEMM512

#define T512 __attribute__((target("avx512f,avx512dq,avx2,fma"), optimize("O3")))

/* x * sigmoid(x) = x / (1 + e^-x) in 11 vector operations: the epilogue of
 * every SiLU conv, where at K = 64 it costs as much as a third of the tile's
 * multiply-adds. x is first raised to -88 (below, x * sigmoid(x) is under
 * 2e-36; NaN passes through max's second operand). e^-x = 2^y, y = -x log2 e
 * rounded to float: vreduceps gives f = y - floor(y) in [0, 1), a degree-5
 * polynomial fitted here for the least relative error on [0, 1) (8.6e-8)
 * gives 2^f, and vscalefps multiplies in 2^floor(y), +inf and 0 included;
 * then one division, x / (1 + e^-x): the divider runs beside the FMA units,
 * where a 14-bit reciprocal with a Newton step and the product took three
 * more of their slots (a SiLU pass over 2048 floats in L1: 2.86 against
 * 3.39 ns a vector, minimum of 400 alternating passes). The rounding of
 * y costs up to 1.23 |x| ulp on negative x, whose SiLU is then small: within
 * 4.5 + 1.25 max(0, -x) ulp of the double reference (test_kernels_nn.c).
 * The 17-operation form with an exact Cody-Waite reduction took 20 % longer
 * over a buffer in L1 (8.95 against 7.45 TSC ticks a vector). */
T512 static inline __attribute__((always_inline)) __m512 silu512(__m512 x)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 xm = _mm512_max_ps(_mm512_set1_ps(-88.0f), x);
    __m512 y = _mm512_mul_ps(xm, _mm512_set1_ps(-1.44269504088896341f));
    __m512 f = _mm512_reduce_ps(y, 0x01); /* rounding down, no fraction bits kept */
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(1.876232913e-03f), f, _mm512_set1_ps(8.992584422e-03f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(5.582360551e-02f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(2.401545346e-01f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(6.931529641e-01f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(9.999999404e-01f));
    __m512 d = _mm512_add_ps(one, _mm512_scalef_ps(p, y));
    return _mm512_div_ps(xm, d);
}

T512 static inline __m512 act512_only(__m512 v, const gemm_epi *e)
{
    __m512 zero = _mm512_setzero_ps();
    switch (e->act) {
    case GEMM_ACT_RELU:
        return _mm512_max_ps(v, zero);
    case GEMM_ACT_CLIP:
        return _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(e->alpha)), _mm512_set1_ps(e->beta));
    case GEMM_ACT_LEAKY: {
        __mmask16 neg = _mm512_cmp_ps_mask(v, zero, _CMP_LT_OQ);
        return _mm512_mask_mul_ps(v, neg, v, _mm512_set1_ps(e->alpha));
    }
    case GEMM_ACT_SILU:
        return silu512(v);
    case GEMM_ACT_HSWISH: {
        __m512 t = _mm512_fmadd_ps(v, _mm512_set1_ps(1.0f / 6), _mm512_set1_ps(0.5f));
        t = _mm512_min_ps(_mm512_max_ps(t, zero), _mm512_set1_ps(1.0f));
        return _mm512_mul_ps(v, t);
    }
    default:
        return v;
    }
}

/* pre-affine, activation, post-affine */
T512 static inline __m512 act512(__m512 v, const gemm_epi *e)
{
    if (e->pre)
        v = _mm512_fmadd_ps(v, _mm512_set1_ps(e->s1), _mm512_set1_ps(e->b1));
    v = act512_only(v, e);
    if (e->post)
        v = _mm512_fmadd_ps(v, _mm512_set1_ps(e->s2), _mm512_set1_ps(e->b2));
    return v;
}

/* The activation of a depthwise block's eight accumulators (a0 .. a7 in
 * scope): SiLU inline, the eight evaluations side by side (one call per
 * vector left each SiLU chain on its own; through epi_row's array
 * the stride-2 blocks ran 10 % slower); other activations by epi_row. */
#define DW_ACT8(e)                                                                   \
    do {                                                                             \
        if ((e)->act == GEMM_ACT_SILU && !(e)->pre && !(e)->post) {                  \
            a0 = silu512(a0), a1 = silu512(a1), a2 = silu512(a2), a3 = silu512(a3); \
            a4 = silu512(a4), a5 = silu512(a5), a6 = silu512(a6), a7 = silu512(a7); \
        } else if ((e)->act != GEMM_ACT_NONE || (e)->pre || (e)->post) {             \
            __m512 v_[8] = {a0, a1, a2, a3, a4, a5, a6, a7};                         \
            epi_row(v_, 8, e);                                                       \
            a0 = v_[0], a1 = v_[1], a2 = v_[2], a3 = v_[3];                          \
            a4 = v_[4], a5 = v_[5], a6 = v_[6], a7 = v_[7];                          \
        }                                                                            \
    } while (0)

/* Applies the activation to the first nv vectors of one row. The switch is
 * taken once per row, not per vector (an indirect jump and reloads of e's
 * fields per vector): paired medians of 400 alternating GEMMs 1 % lower for
 * 64x64 by 64x2704 with SiLU, 3 % for 32x32 by 32x10816, 5 % without an
 * activation; a SiLU pass over a buffer 16.5 -> 14 cycles a vector. */
T512 static inline __attribute__((always_inline)) void epi_row(__m512 *v, int nv, const gemm_epi *e)
{
    if (!e->pre && !e->post) {
        switch (e->act) {
        case GEMM_ACT_NONE:
            return;
        case GEMM_ACT_SILU:
            for (int q = 0; q < nv; q++)
                v[q] = silu512(v[q]);
            return;
        case GEMM_ACT_RELU:
            for (int q = 0; q < nv; q++)
                v[q] = _mm512_max_ps(v[q], _mm512_setzero_ps());
            return;
        default:
            break;
        }
    }
    for (int q = 0; q < nv; q++)
        v[q] = act512(v[q], e);
}

/* The 24 accumulators are named variables: an array indexed in loops is kept
 * in memory by GCC. NV (1..3, a constant after inlining) is the number of
 * 16-column vectors the tile uses; the others are dead code. */
#define ROW_FMA(r)                                                                 \
    do {                                                                           \
        __m512 a = _mm512_set1_ps(ak[r]);                                          \
        c##r##0 = _mm512_fmadd_ps(a, b0, c##r##0);                                 \
        if (NV > 1)                                                                \
            c##r##1 = _mm512_fmadd_ps(a, b1, c##r##1);                             \
        if (NV > 2)                                                                \
            c##r##2 = _mm512_fmadd_ps(a, b2, c##r##2);                             \
    } while (0)
#define ALL_ROWS_FMA                                                               \
    do {                                                                           \
        const float *ak = ap + k * GEMM_MR;                                        \
        ROW_FMA(0); ROW_FMA(1); ROW_FMA(2); ROW_FMA(3);                            \
        ROW_FMA(4); ROW_FMA(5); ROW_FMA(6); ROW_FMA(7);                            \
    } while (0)
#define ROW_STORE(r)                                                               \
    do {                                                                           \
        if (r < nr) {                                                              \
            __m512 v[3] = {c##r##0, c##r##1, c##r##2};                             \
            float *cr = c + r * ldc;                                               \
            epi_row(v, NV, e);                                                     \
            if (res)                                                               \
                res_row(v, NV, res + r * ldc, m0, m1, m2);                         \
            _mm512_mask_storeu_ps(cr, m0, v[0]);                                   \
            if (NV > 1)                                                            \
                _mm512_mask_storeu_ps(cr + 16, m1, v[1]);                          \
            if (NV > 2)                                                            \
                _mm512_mask_storeu_ps(cr + 32, m2, v[2]);                          \
        }                                                                          \
    } while (0)

/* Adds a residual row to the first nv vectors of a row (masked like the store). */
T512 static inline __attribute__((always_inline)) void res_row(__m512 *v, int nv, const float *r, __mmask16 m0, __mmask16 m1,
                                __mmask16 m2)
{
    v[0] = _mm512_add_ps(v[0], _mm512_maskz_loadu_ps(m0, r));
    if (nv > 1)
        v[1] = _mm512_add_ps(v[1], _mm512_maskz_loadu_ps(m1, r + 16));
    if (nv > 2)
        v[2] = _mm512_add_ps(v[2], _mm512_maskz_loadu_ps(m2, r + 32));
}

/* One GEMM_MR x (16 NV) tile: rows < nr and columns < nc are stored. A tile of
 * 16 or 32 columns has 8 or 16 accumulators, not 24 of which a third or two
 * are wasted (the right edge of every plane whose width is not a multiple of
 * GEMM_NR, e.g. Winograd's 112 tiles per row). OFF (a constant): row k of B
 * is at b + koff[k] instead of b + k * ldb. pf: the next panel's B, asked for
 * as the tile goes; pk (a whole panel): B's rows also stored there, packed. */
T512 static inline __attribute__((always_inline)) void
tile_nv(int64_t K, const float *restrict ap, const float *restrict b, int64_t ldb,
        const int64_t *restrict koff, const float *pf, float *restrict pk, float *restrict c,
        int64_t ldc, int nr, int nc, const float *bias, const float *res, const gemm_epi *e,
        const int NV, const int OFF)
{
    __mmask16 m0 = nc >= 16 ? 0xFFFF : (__mmask16)((1u << nc) - 1);
    __mmask16 m1 = nc >= 32 ? 0xFFFF : nc <= 16 ? 0 : (__mmask16)((1u << (nc - 16)) - 1);
    __mmask16 m2 = nc >= 48 ? 0xFFFF : nc <= 32 ? 0 : (__mmask16)((1u << (nc - 32)) - 1);
    /* the sums start from the bias: one add fewer per output vector */
    __m512 z = _mm512_setzero_ps();
#define BIAS_ROW(r) const __m512 b##r = bias && r < nr ? _mm512_set1_ps(bias[r]) : z;
    BIAS_ROW(0) BIAS_ROW(1) BIAS_ROW(2) BIAS_ROW(3)
    BIAS_ROW(4) BIAS_ROW(5) BIAS_ROW(6) BIAS_ROW(7)
#undef BIAS_ROW
    __m512 c00 = b0, c01 = b0, c02 = b0, c10 = b1, c11 = b1, c12 = b1, c20 = b2, c21 = b2;
    __m512 c22 = b2, c30 = b3, c31 = b3, c32 = b3, c40 = b4, c41 = b4, c42 = b4, c50 = b5;
    __m512 c51 = b5, c52 = b5, c60 = b6, c61 = b6, c62 = b6, c70 = b7, c71 = b7, c72 = b7;

    if (!OFF && pk) {
        /* the first row tile of a packed panel (run512_packed) packs it as it
         * goes, B's rows read once, and asks for the next panel's rows */
        for (int64_t k = 0; k < K; k++) {
            const float *bk = b + k * ldb, *qk = pf + k * ldb;
            __m512 b0 = _mm512_loadu_ps(bk), b1 = _mm512_loadu_ps(bk + 16);
            __m512 b2 = _mm512_loadu_ps(bk + 32);
            _mm512_store_ps(pk + k * GEMM_NR, b0);
            _mm512_store_ps(pk + k * GEMM_NR + 16, b1);
            _mm512_store_ps(pk + k * GEMM_NR + 32, b2);
            _mm_prefetch((const char *)qk, _MM_HINT_T0);
            _mm_prefetch((const char *)(qk + 16), _MM_HINT_T0);
            _mm_prefetch((const char *)(qk + 32), _MM_HINT_T0);
            _mm_prefetch((const char *)(qk + 47), _MM_HINT_T0);
            ALL_ROWS_FMA;
        }
    } else if (!OFF && pf) {
        /* the first row tile of a column panel: its B rows come from far away
         * and ldb apart (no hardware prefetch across pages), so it asks for
         * the next panel's rows while it works */
        for (int64_t k = 0; k < K; k++) {
            const float *bk = b + k * ldb, *pk = pf + k * ldb;
            __m512 b0 = _mm512_loadu_ps(bk), b1 = _mm512_loadu_ps(bk + 16);
            __m512 b2 = _mm512_loadu_ps(bk + 32);
            _mm_prefetch((const char *)pk, _MM_HINT_T0);
            _mm_prefetch((const char *)(pk + 16), _MM_HINT_T0);
            _mm_prefetch((const char *)(pk + 32), _MM_HINT_T0);
            _mm_prefetch((const char *)(pk + 47), _MM_HINT_T0);
            ALL_ROWS_FMA;
        }
    } else if (nc == 16 * NV) {
        for (int64_t k = 0; k < K; k++) {
            const float *bk = OFF ? b + koff[k] : b + k * ldb;
            __m512 b0 = _mm512_loadu_ps(bk), b1 = z, b2 = z;
            if (NV > 1)
                b1 = _mm512_loadu_ps(bk + 16);
            if (NV > 2)
                b2 = _mm512_loadu_ps(bk + 32);
            ALL_ROWS_FMA;
        }
    } else {
        for (int64_t k = 0; k < K; k++) {
            const float *bk = OFF ? b + koff[k] : b + k * ldb;
            __m512 b0 = _mm512_maskz_loadu_ps(m0, bk), b1 = z, b2 = z;
            if (NV > 1)
                b1 = _mm512_maskz_loadu_ps(m1, bk + 16);
            if (NV > 2)
                b2 = _mm512_maskz_loadu_ps(m2, bk + 32);
            ALL_ROWS_FMA;
        }
    }
    ROW_STORE(0); ROW_STORE(1); ROW_STORE(2); ROW_STORE(3);
    ROW_STORE(4); ROW_STORE(5); ROW_STORE(6); ROW_STORE(7);
}

/* One tile of nc columns with the fewest vectors; row k of B at b + koff[k]
 * when koff is given, else at b + k * ldb. */
T512 static void tile(int64_t K, const float *restrict ap, const float *restrict b, int64_t ldb,
                      const int64_t *koff, const float *pf, float *restrict c, int64_t ldc,
                      int nr, int nc, const float *bias, const float *res, const gemm_epi *e)
{
    if (koff) {
        if (nc > 32)
            tile_nv(K, ap, b, 0, koff, NULL, NULL, c, ldc, nr, nc, bias, res, e, 3, 1);
        else if (nc > 16)
            tile_nv(K, ap, b, 0, koff, NULL, NULL, c, ldc, nr, nc, bias, res, e, 2, 1);
        else
            tile_nv(K, ap, b, 0, koff, NULL, NULL, c, ldc, nr, nc, bias, res, e, 1, 1);
    } else {
        if (nc == GEMM_NR && pf)
            tile_nv(K, ap, b, ldb, NULL, pf, NULL, c, ldc, nr, nc, bias, res, e, 3, 0);
        else if (nc > 32)
            tile_nv(K, ap, b, ldb, NULL, NULL, NULL, c, ldc, nr, nc, bias, res, e, 3, 0);
        else if (nc > 16)
            tile_nv(K, ap, b, ldb, NULL, NULL, NULL, c, ldc, nr, nc, bias, res, e, 2, 0);
        else
            tile_nv(K, ap, b, ldb, NULL, NULL, NULL, c, ldc, nr, nc, bias, res, e, 1, 0);
    }
}

/* GEMMs of at most four rows (a detection head's 1, 3 or 4 output channels)
 * in tiles of NR rows x 96 columns: the 8-row tile would multiply the packed
 * panel's zero rows too, up to eight times the work. Only whole tiles; the
 * caller leaves the columns past the last one to tile(). */
#define SMALL_NV 6
#define SMALL_FMA(r)                                                               \
    do {                                                                           \
        __m512 a = _mm512_set1_ps(ak[r]);                                          \
        c##r##0 = _mm512_fmadd_ps(a, b0, c##r##0);                                 \
        c##r##1 = _mm512_fmadd_ps(a, b1, c##r##1);                                 \
        c##r##2 = _mm512_fmadd_ps(a, b2, c##r##2);                                 \
        c##r##3 = _mm512_fmadd_ps(a, b3, c##r##3);                                 \
        c##r##4 = _mm512_fmadd_ps(a, b4, c##r##4);                                 \
        c##r##5 = _mm512_fmadd_ps(a, b5, c##r##5);                                 \
    } while (0)
#define SMALL_STORE(r)                                                             \
    do {                                                                           \
        __m512 v[SMALL_NV] = {c##r##0, c##r##1, c##r##2, c##r##3, c##r##4, c##r##5}; \
        float *cr = c + r * ldc;                                                   \
        epi_row(v, SMALL_NV, e);                                                   \
        for (int q = 0; q < SMALL_NV; q++) {                                       \
            if (res)                                                               \
                v[q] = _mm512_add_ps(v[q], _mm512_loadu_ps(res + r * ldc + 16 * q)); \
            _mm512_storeu_ps(cr + 16 * q, v[q]);                                   \
        }                                                                          \
    } while (0)

T512 static inline __attribute__((always_inline)) void
tile_small(int64_t K, const float *restrict ap, const float *restrict b, int64_t ldb,
           float *restrict c, int64_t ldc, const float *bias, const float *res,
           const gemm_epi *e, const int NR)
{
#define SMALL_INIT(r)                                                              \
    const __m512 i##r = bias && r < NR ? _mm512_set1_ps(bias[r]) : _mm512_setzero_ps(); \
    __m512 c##r##0 = i##r, c##r##1 = i##r, c##r##2 = i##r, c##r##3 = i##r, c##r##4 = i##r, \
           c##r##5 = i##r;
    SMALL_INIT(0) SMALL_INIT(1) SMALL_INIT(2) SMALL_INIT(3)
#undef SMALL_INIT
    for (int64_t k = 0; k < K; k++) {
        const float *bk = b + k * ldb, *ak = ap + k * GEMM_MR;
        __m512 b0 = _mm512_loadu_ps(bk), b1 = _mm512_loadu_ps(bk + 16);
        __m512 b2 = _mm512_loadu_ps(bk + 32), b3 = _mm512_loadu_ps(bk + 48);
        __m512 b4 = _mm512_loadu_ps(bk + 64), b5 = _mm512_loadu_ps(bk + 80);
        /* in registers: for three rows GCC would otherwise fold each B load
         * into every row's multiply-add (18 loads per k instead of 6) */
        __asm__("" : "+v"(b0), "+v"(b1), "+v"(b2), "+v"(b3), "+v"(b4), "+v"(b5));
        SMALL_FMA(0);
        if (NR > 1)
            SMALL_FMA(1);
        if (NR > 2)
            SMALL_FMA(2);
        if (NR > 3)
            SMALL_FMA(3);
    }
    SMALL_STORE(0);
    if (NR > 1)
        SMALL_STORE(1);
    if (NR > 2)
        SMALL_STORE(2);
    if (NR > 3)
        SMALL_STORE(3);
}

/* Columns [0, return value) of a GEMM of M <= 4 rows, in small tiles. */
T512 static int64_t run512_small(const float *ap, int64_t M, int64_t K, const float *b,
                                 int64_t ldb, int64_t N, float *c, int64_t ldc,
                                 const gemm_epi *e)
{
    const int64_t W = 16 * SMALL_NV, done = N / W * W;
    for (int64_t j = 0; j < done; j += W) {
        const float *res = e->res ? e->res + j : NULL;
        if (M == 1)
            tile_small(K, ap, b + j, ldb, c + j, ldc, e->bias, res, e, 1);
        else if (M == 2)
            tile_small(K, ap, b + j, ldb, c + j, ldc, e->bias, res, e, 2);
        else if (M == 3)
            tile_small(K, ap, b + j, ldb, c + j, ldc, e->bias, res, e, 3);
        else
            tile_small(K, ap, b + j, ldb, c + j, ldc, e->bias, res, e, 4);
    }
    return done;
}

/* e->pf spread over the register tiles of an M x N product: where the next
 * lines start, how many per tile. */
typedef struct pf_cursor {
    const char *at, *end;
    int64_t per;
} pf_cursor;

static pf_cursor pf_begin(const gemm_epi *e, int64_t M, int64_t N)
{
    int64_t ntiles = (N + GEMM_NR - 1) / GEMM_NR * ((M + GEMM_MR - 1) / GEMM_MR);
    pf_cursor p = {e->pf, e->pf ? e->pf + e->pf_len : NULL, 0};
    if (e->pf && ntiles > 0)
        p.per = ((int64_t)(e->pf_len + 63) / 64 + ntiles - 1) / ntiles;
    return p;
}

T512 static inline void pf_step(pf_cursor *p)
{
    for (int64_t q = 0; q < p->per && p->at < p->end; q++, p->at += 64)
        _mm_prefetch(p->at, _MM_HINT_T1);
}

T512 static void run512(const float *ap, int64_t M, int64_t K, const float *b, int64_t ldb,
                        const int64_t *koff, int64_t N, float *c, int64_t ldc, const gemm_epi *e)
{
    pf_cursor pf = pf_begin(e, M, N);
    for (int64_t j = 0, nc; j < N; j += nc) {
        nc = N - j < GEMM_NR ? N - j : GEMM_NR;
        /* 49 to 64 columns left: two tiles of up to 32 (16 accumulators each),
         * not 48 and a one-vector tile whose 8 chains wait on the FMA latency
         * (a 208-wide stem row: 4 x 48 + 16) */
        if (N - j > GEMM_NR && N - j <= GEMM_NR + 16)
            nc = N - j - 32;
        const float *next = !koff && j + nc < N ? b + j + nc : NULL;
        for (int64_t i = 0; i < M; i += GEMM_MR) {
            int nr = M - i < GEMM_MR ? (int)(M - i) : GEMM_MR;
            pf_step(&pf);
            tile(K, ap + i * K, b + j, ldb, koff, i == 0 ? next : NULL, c + i * ldc + j, ldc,
                 nr, nc, e->bias ? e->bias + i : NULL, e->res ? e->res + i * ldc + j : NULL, e);
        }
    }
}

/* K rows of nc <= GEMM_NR floats, ldb apart, into rows of GEMM_NR (zero padded). */
T512 static void pack_panel(const float *b, int64_t ldb, int64_t K, int nc, float *d)
{
    __mmask16 m0 = nc >= 16 ? 0xFFFF : (__mmask16)((1u << nc) - 1);
    __mmask16 m1 = nc >= 32 ? 0xFFFF : nc <= 16 ? 0 : (__mmask16)((1u << (nc - 16)) - 1);
    __mmask16 m2 = nc >= 48 ? 0xFFFF : nc <= 32 ? 0 : (__mmask16)((1u << (nc - 32)) - 1);
    for (int64_t k = 0; k < K; k++) {
        const float *bk = b + k * ldb;
        float *dk = d + k * GEMM_NR;
        _mm512_store_ps(dk, _mm512_maskz_loadu_ps(m0, bk));
        _mm512_store_ps(dk + 16, _mm512_maskz_loadu_ps(m1, bk + 16));
        _mm512_store_ps(dk + 32, _mm512_maskz_loadu_ps(m2, bk + 32));
    }
}

T512 static void run512_packed(const float *ap, int64_t M, int64_t K, const float *b,
                               int64_t ldb, int64_t N, float *c, int64_t ldc, const gemm_epi *e,
                               float *panel)
{
    pf_cursor pf = pf_begin(e, M, N);
    for (int64_t j = 0; j < N; j += GEMM_NR) {
        int nc = N - j < GEMM_NR ? (int)(N - j) : GEMM_NR;
        int64_t i = 0;
        if (nc == GEMM_NR) { /* the first row tile packs the panel */
            const float *next = j + 2 * GEMM_NR <= N ? b + j + GEMM_NR : b + j;
            pf_step(&pf);
            tile_nv(K, ap, b + j, ldb, NULL, next, panel, c + j, ldc, GEMM_MR, nc, e->bias,
                    e->res ? e->res + j : NULL, e, 3, 0);
            i = GEMM_MR;
        } else {
            pack_panel(b + j, ldb, K, nc, panel);
        }
        for (; i < M; i += GEMM_MR) {
            int nr = M - i < GEMM_MR ? (int)(M - i) : GEMM_MR;
            pf_step(&pf);
            tile(K, ap + i * K, panel, GEMM_NR, NULL, NULL, c + i * ldc + j, ldc, nr, nc,
                 e->bias ? e->bias + i : NULL, e->res ? e->res + i * ldc + j : NULL, e);
        }
    }
}

T512 static void act512_buf(float *y, int64_t n, const gemm_epi *e)
{
    int64_t i = 0;
    for (; i + 128 <= n; i += 128) { /* eight at a time: epi_row's switch once */
        __m512 v[8];
        for (int q = 0; q < 8; q++)
            v[q] = _mm512_loadu_ps(y + i + 16 * q);
        epi_row(v, 8, e);
        for (int q = 0; q < 8; q++)
            _mm512_storeu_ps(y + i + 16 * q, v[q]);
    }
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(y + i, act512(_mm512_loadu_ps(y + i), e));
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(y + i, m, act512(_mm512_maskz_loadu_ps(m, y + i), e));
    }
}

#endif

/* Portable activation, for CPUs without AVX-512. */
static void act_scalar(float *y, int64_t n, const gemm_epi *e)
{
    for (int64_t i = 0; i < n; i++) {
        float v = y[i];
        if (e->pre)
            v = v * e->s1 + e->b1;
        switch (e->act) {
        case GEMM_ACT_RELU:
            v = v > 0 ? v : 0;
            break;
        case GEMM_ACT_CLIP:
            v = v < e->alpha ? e->alpha : (v > e->beta ? e->beta : v);
            break;
        case GEMM_ACT_LEAKY:
            v = v < 0 ? v * e->alpha : v;
            break;
        case GEMM_ACT_SILU:
            v = v / (1.0f + expf(-v));
            break;
        case GEMM_ACT_HSWISH: {
            float t = v * (1.0f / 6) + 0.5f;
            v = v * (t < 0 ? 0 : (t > 1 ? 1 : t));
            break;
        }
        default:
            break;
        }
        if (e->post)
            v = v * e->s2 + e->b2;
        y[i] = v;
    }
}

void gemm_act_apply(float *y, int64_t n, const gemm_epi *e)
{
    if (!e || (e->act == GEMM_ACT_NONE && !e->pre && !e->post))
        return;
#if HAVE_GEMM512
    if (gemm512_available()) {
        act512_buf(y, n, e);
        return;
    }
#endif
    act_scalar(y, n, e);
}

#if HAVE_GEMM512
T512 static void gather2_512(float *d, const float *s, int64_t n)
{
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        /* s[2 i + 31] is past s[2 (n - 1)] in the last vector: load 31 floats */
        __m512 lo = _mm512_loadu_ps(s + 2 * i), hi = _mm512_maskz_loadu_ps(0x7FFF, s + 2 * i + 16);
        _mm512_storeu_ps(d + i, _mm512_permutex2var_ps(lo, even, hi));
    }
    if (i < n) {
        int64_t left = 2 * (n - i) - 1; /* floats to read, at most 31 */
        __mmask16 mlo = left >= 16 ? 0xFFFF : (__mmask16)((1u << left) - 1);
        __mmask16 mhi = left > 16 ? (__mmask16)((1u << (left - 16)) - 1) : 0;
        __m512 lo = _mm512_maskz_loadu_ps(mlo, s + 2 * i), hi = _mm512_maskz_loadu_ps(mhi, s + 2 * i + 16);
        _mm512_mask_storeu_ps(d + i, (__mmask16)((1u << (n - i)) - 1),
                              _mm512_permutex2var_ps(lo, even, hi));
    }
}
#endif

void gemm512_gather2(float *d, const float *s, int64_t n)
{
#if HAVE_GEMM512
    if (gemm512_available()) {
        gather2_512(d, s, n);
        return;
    }
#endif
    for (int64_t i = 0; i < n; i++)
        d[i] = s[2 * i];
}

void gemm512_run(const float *ap, int64_t M, int64_t K, const float *b, int64_t ldb, int64_t N,
                 float *c, int64_t ldc, const gemm_epi *e)
{
#if HAVE_GEMM512
    /* measured on yolox_nano's 1x1 convs: the copy pays from K = 128 on (-10 %),
     * costs at K <= 64, and a panel read by one row tile is not worth it */
    if (M > GEMM_MR && K >= 128 && N > 0) {
        run512_packed(ap, M, K, b, ldb, N, c, ldc, e, kernel_scratch(SCRATCH_GEMM, sizeof(float) * (size_t)K * GEMM_NR));
    } else if (M >= 1 && M <= 4) {
        int64_t j = run512_small(ap, M, K, b, ldb, N, c, ldc, e);
        gemm_epi rest = *e;
        rest.res = e->res ? e->res + j : NULL;
        run512(ap, M, K, b + j, ldb, NULL, N - j, c + j, ldc, &rest);
    } else {
        run512(ap, M, K, b, ldb, NULL, N, c, ldc, e);
    }
#else
    (void)ap, (void)M, (void)K, (void)b, (void)ldb, (void)N, (void)c, (void)ldc, (void)e;
#endif
}

void gemm512_run_offsets(const float *ap, int64_t M, int64_t K, const float *b,
                         const int64_t *koff, int64_t N, float *c, int64_t ldc, const gemm_epi *e)
{
#if HAVE_GEMM512
    run512(ap, M, K, b, 0, koff, N, c, ldc, e);
#else
    (void)ap, (void)M, (void)K, (void)b, (void)koff, (void)N, (void)c, (void)ldc, (void)e;
#endif
}

/* ---- depthwise plane --------------------------------------------------- */

/* Geometry of dw512_plane's zero-padded phase planes. */
static void dw_geom(const dw512_geom *d, int64_t *hp, int64_t *wph)
{
    *hp = (d->OH - 1) * d->sy + (d->KH - 1) * d->dy + 1;
    /* columns of one phase plane: outputs plus the widest tap shift, rounded
     * up so that rows start 64-byte aligned */
    int64_t w = d->OW + ((d->KW - 1) * d->dx) / d->sx + 1;
    *wph = (w + 15) / 16 * 16;
}

/* Padded rows the direct kernels address: output rows rounded up to whole
 * blocks of eight (rows past the input read the zero row). */
static int64_t dwd_rows(const dw512_geom *d)
{
    return ((d->OH + 7) / 8 * 8 - 1) * d->sy + (d->KH - 1) * d->dy + 1;
}

#define DWF_MAXW 96  /* widest plane dwf_plane takes */
#define DWF_MAXEDGE 4 /* blocks of the first and last rows: 1 + at most 3 */

/* dwf_plane's lane masks, made by dw512_begin once per scratch and geometry:
 * made per plane or per vector, they cost more than the lanes save (26x26
 * planes 28 -> 36 us and 42 us instead of 26). */
typedef struct dwf_tab {
    int64_t P;             /* the masks of vector v are those of v % P */
    int64_t nhead, btail;  /* blocks [0, nhead) and [btail, ..) are edge blocks */
    uint16_t lt[DWF_MAXW + 8], rt[DWF_MAXW + 8]; /* lanes off column 0 / W - 1, per v % P */
    uint16_t in[DWF_MAXEDGE][8], mk[DWF_MAXEDGE][9][8]; /* edge blocks: in the plane, per tap */
} dwf_tab;

/* Blocks of eight vectors [0, nhead) and [btail, nblk) have lanes without a
 * row above or below: edge blocks, at most DWF_MAXEDGE. The others lie in
 * vectors [vlo, vhi), whose unmasked loads, -W - 1 .. W + 16 floats from
 * their first lane, stay inside the plane (W is not a multiple of 16). */
static void dwf_layout(const dw512_geom *d, int64_t *nhead, int64_t *btail, int64_t *nblk)
{
    const int64_t W = d->IW, HW = d->IH * W;
    const int64_t vlo = (W + 15) / 16, vhi = HW - W - 17 >= 0 ? (HW - W - 17) / 16 + 1 : 0;
    *nhead = (vlo + 7) / 8;
    *btail = vhi >= 8 ? (vhi - 8) / 8 + 1 : 0;
    *btail = *btail < *nhead ? *nhead : *btail;
    *nblk = ((HW + 15) / 16 + 7) / 8;
}

static int dwf_geom_ok(const dw512_geom *d)
{
    int64_t lanes = (d->OW + 15) / 16 * 16, nhead, btail, nblk;
    if (!(d->KH == 3 && d->KW == 3 && d->sy == 1 && d->sx == 1 && d->dy == 1 && d->dx == 1 &&
          d->pt == 1 && d->pl == 1 && d->OH == d->IH && d->OW == d->IW && d->IW >= 16 &&
          d->IW <= DWF_MAXW && 100 * d->OW < 85 * lanes))
        return 0;
    dwf_layout(d, &nhead, &btail, &nblk);
    return nhead + nblk - btail <= DWF_MAXEDGE; /* W <= 96 keeps it so */
}

/* with an activation: without one, the nine loads cost more than the lanes save */
static int dwf_supported(const dw512_geom *d, const gemm_epi *act)
{
    return act && (act->act != GEMM_ACT_NONE || act->pre || act->post) && dwf_geom_ok(d);
}

size_t dw512_scratch_floats(const dw512_geom *d)
{
    int64_t hp, wph;
    dw_geom(d, &hp, &wph);
    /* phase planes, plus one padded source row for the deinterleave; or the
     * direct kernel's row pointers (two floats each) and zero row */
    size_t padded = (size_t)(d->sx * hp * wph + d->sx * wph + 64);
    size_t direct = (size_t)(2 * dwd_rows(d) + 16 + d->IW + 16);
    size_t n = padded > direct ? padded : direct;
    /* dwf_plane's masks (dw512_begin) */
    size_t tab = (sizeof(dwf_tab) + sizeof(float) - 1) / sizeof(float);
    return dwf_geom_ok(d) && tab > n ? tab : n;
}

#if HAVE_GEMM512

/* Fills the sx phase planes (hp rows apart) for padded rows [py0, py0 + nrows):
 * phase r, row py - py0, column j holds padded input (py, j * sx + r), zero
 * outside the input. */
T512 static void dw_fill(const dw512_geom *d, const float *x, float *ph, int64_t py0,
                         int64_t nrows, int64_t hp, int64_t wph)
{
    const int64_t sx = d->sx, wp = sx * wph;
    float *row = ph + sx * hp * wph; /* padded source row, wp floats + slack */
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);

    for (int64_t py = 0; py < nrows; py++) {
        int64_t iy = py0 + py - d->pt;
        if (iy < 0 || iy >= d->IH) {
            for (int64_t r = 0; r < sx; r++)
                memset(ph + (r * hp + py) * wph, 0, sizeof(float) * (size_t)wph);
            continue;
        }
        const float *src = x + iy * d->IW;
        float *dst = sx == 1 ? ph + py * wph : row;
        /* padded column px holds input column px - pl, or 0: masked loads
         * never touch the masked-off lanes (calls to memcpy per row cost more
         * than the copy on these short rows) */
        const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        const __m512i iw = _mm512_set1_epi32((int)d->IW);
        for (int64_t px = 0; px < wp; px += 16) {
            int64_t ix = px - d->pl;
            if (ix >= 0 && ix + 16 <= d->IW) {
                _mm512_storeu_ps(dst + px, _mm512_loadu_ps(src + ix));
                continue;
            }
            __m512i v = _mm512_add_epi32(iota, _mm512_set1_epi32((int)ix));
            __mmask16 m = _mm512_cmpge_epi32_mask(v, _mm512_setzero_si512()) &
                          _mm512_cmplt_epi32_mask(v, iw);
            _mm512_storeu_ps(dst + px, _mm512_maskz_loadu_ps(m, src + ix));
        }
        if (sx == 1)
            continue;
        if (sx == 2) {
            float *p0 = ph + py * wph, *p1 = ph + (hp + py) * wph;
            for (int64_t j = 0; j < wph; j += 16) {
                __m512 a = _mm512_loadu_ps(row + 2 * j), b = _mm512_loadu_ps(row + 2 * j + 16);
                _mm512_storeu_ps(p0 + j, _mm512_permutex2var_ps(a, even, b));
                _mm512_storeu_ps(p1 + j, _mm512_permutex2var_ps(a, odd, b));
            }
        } else {
            for (int64_t r = 0; r < sx; r++) {
                float *pr = ph + (r * hp + py) * wph;
                for (int64_t j = 0; j < wph; j++)
                    pr[j] = row[j * sx + r];
            }
        }
    }
}

#define DW_MAXTAPS DW_MAXTAPS_PUBLIC

T512 static void dw_plane512(const dw512_geom *d, const float *x, const float *wk, float bias,
                             const gemm_epi *e, float *y, float *ph)
{
    int64_t hpall, wph;
    dw_geom(d, &hpall, &wph);
    /* Strips of output rows whose padded rows stay in L1 (about 24 KB). */
    const int64_t span = (d->KH - 1) * d->dy + 1;
    int64_t rs = ((6144 / (wph * d->sx)) - span) / d->sy + 1;
    if (rs < 1)
        rs = 1;
    if (rs > d->OH)
        rs = d->OH;
    const int64_t hp = (rs - 1) * d->sy + span;
    int64_t toff[DW_MAXTAPS];
    /* column kx * dx is phase (kx * dx) % sx, column (kx * dx) / sx of it,
     * stepped without a division (one per tap cost more than a small plane's
     * multiply-adds) */
    for (int64_t kx = 0, ph0 = 0, col = 0; kx < d->KW; kx++) {
        for (int64_t ky = 0; ky < d->KH; ky++)
            toff[ky * d->KW + kx] = (ph0 * hp + ky * d->dy) * wph + col;
        for (int64_t k = 0; k < d->dx; k++)
            if (++ph0 == d->sx)
                ph0 = 0, col++;
    }
    const __m512 bv = _mm512_set1_ps(bias);
    const int64_t OW = d->OW, nc = (OW + 15) / 16;
    const __mmask16 tail = OW % 16 ? (__mmask16)((1u << (OW % 16)) - 1) : 0xFFFF;
    (void)hpall;

    /* Eight independent vectors of 16 outputs per block, taken in order over the
     * strip's rows and 16-column chunks (a block may span rows): a row's one to
     * four chunks alone would leave the FMA chains latency-bound. Lanes past the
     * row end load slack columns and are not stored; a last short block repeats
     * its first vector with nothing stored. */
    for (int64_t oy0 = 0; oy0 < d->OH; oy0 += rs) {
        int64_t rows = d->OH - oy0 < rs ? d->OH - oy0 : rs;
        dw_fill(d, x, ph, oy0 * d->sy, (rows - 1) * d->sy + span, hp, wph);
        const int64_t nvec = rows * nc;
        int64_t r = 0, c = 0;
        for (int64_t v0 = 0; v0 < nvec; v0 += 8) {
            int64_t io[8];
            float *yo[8];
            __mmask16 sm[8];
            /* kernel rows [ky0, ky1): those that reach an input row for one of
             * the block's output rows r .. last; the others read only padding
             * (PP-OCR's 5x5 convs over 2-row maps: 10 taps of 25) */
            const int64_t last = r + (c + 7) / nc < rows ? r + (c + 7) / nc : rows - 1;
            int64_t ky0 = d->pt - (oy0 + last) * d->sy, ky1 = d->IH + d->pt - (oy0 + r) * d->sy;
            ky0 = ky0 <= 0 ? 0 : (ky0 + d->dy - 1) / d->dy;
            ky1 = ky1 <= 0 ? 0 : (ky1 + d->dy - 1) / d->dy;
            ky1 = ky1 < d->KH ? ky1 : d->KH;
            for (int v = 0; v < 8; v++) {
                if (v0 + v < nvec) {
                    io[v] = r * d->sy * wph + c * 16;
                    yo[v] = y + (oy0 + r) * OW + c * 16;
                    sm[v] = c == nc - 1 ? tail : 0xFFFF;
                    if (++c == nc) {
                        c = 0;
                        r++;
                    }
                } else {
                    io[v] = io[0];
                    yo[v] = yo[0];
                    sm[v] = 0;
                }
            }
            __m512 a0 = bv, a1 = bv, a2 = bv, a3 = bv, a4 = bv, a5 = bv, a6 = bv, a7 = bv;
            if (nvec - v0 <= 4) {
                /* a last block of four vectors or fewer (2 rows of 96: 12
                 * vectors) leaves the other four chains idle */
                for (int64_t t = ky0 * d->KW; t < ky1 * d->KW; t++) {
                    const float *s = ph + toff[t];
                    __m512 w = _mm512_set1_ps(wk[t]);
                    a0 = _mm512_fmadd_ps(w, _mm512_loadu_ps(s + io[0]), a0);
                    a1 = _mm512_fmadd_ps(w, _mm512_loadu_ps(s + io[1]), a1);
                    a2 = _mm512_fmadd_ps(w, _mm512_loadu_ps(s + io[2]), a2);
                    a3 = _mm512_fmadd_ps(w, _mm512_loadu_ps(s + io[3]), a3);
                }
            } else {
                for (int64_t t = ky0 * d->KW; t < ky1 * d->KW; t++) {
                    const float *s = ph + toff[t];
                    __m512 w = _mm512_set1_ps(wk[t]);
                    a0 = _mm512_fmadd_ps(w, _mm512_loadu_ps(s + io[0]), a0);
                    a1 = _mm512_fmadd_ps(w, _mm512_loadu_ps(s + io[1]), a1);
                    a2 = _mm512_fmadd_ps(w, _mm512_loadu_ps(s + io[2]), a2);
                    a3 = _mm512_fmadd_ps(w, _mm512_loadu_ps(s + io[3]), a3);
                    a4 = _mm512_fmadd_ps(w, _mm512_loadu_ps(s + io[4]), a4);
                    a5 = _mm512_fmadd_ps(w, _mm512_loadu_ps(s + io[5]), a5);
                    a6 = _mm512_fmadd_ps(w, _mm512_loadu_ps(s + io[6]), a6);
                    a7 = _mm512_fmadd_ps(w, _mm512_loadu_ps(s + io[7]), a7);
                }
            }
            DW_ACT8(e);
            _mm512_mask_storeu_ps(yo[0], sm[0], a0);
            _mm512_mask_storeu_ps(yo[1], sm[1], a1);
            _mm512_mask_storeu_ps(yo[2], sm[2], a2);
            _mm512_mask_storeu_ps(yo[3], sm[3], a3);
            _mm512_mask_storeu_ps(yo[4], sm[4], a4);
            _mm512_mask_storeu_ps(yo[5], sm[5], a5);
            _mm512_mask_storeu_ps(yo[6], sm[6], a6);
            _mm512_mask_storeu_ps(yo[7], sm[7], a7);
        }
    }
}

/* Direct depthwise kernel for column strides 1 and 2 (KW <= 16): reads the
 * input in place, with masked loads where a tap crosses the left or right
 * edge and a zero row standing in for rows above and below the input, so no
 * padded copy of the plane is made. A block is one 16-column chunk of eight
 * output rows (eight independent FMA chains); a stride-2 tap loads 32 input
 * columns and keeps the even ones. Taps run in the same order as in
 * dw_plane512, so both give the same sums. */
#define DWD_MAXKW 16

#define DWD_ACC(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

T512 static inline __mmask16 dwd_mask(int64_t start, int64_t IW)
{
    /* lanes j with 0 <= start + j < IW */
    int64_t lo = start < 0 ? -start : 0, hi = IW - start;
    if (hi > 16)
        hi = 16;
    if (hi <= lo)
        return 0;
    return (__mmask16)(((1u << hi) - 1) & ~((1u << lo) - 1));
}

T512 static inline __attribute__((always_inline)) void
dwd_plane(const dw512_geom *d, const float *wk, __m512 bv, const gemm_epi *e, float *y,
          const float *const *rowp, const int KH, const int KW, const int sx)
{
    const int64_t OH = d->OH, OW = d->OW, IW = d->IW, sy = d->sy, dy = d->dy, dx = d->dx;
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    __mmask16 mlo[DWD_MAXKW], mhi[DWD_MAXKW];

    for (int64_t oy0 = 0; oy0 < OH; oy0 += 8) {
        const int64_t nr = OH - oy0 < 8 ? OH - oy0 : 8;
        /* rows past the plane repeat its last row and are not stored */
#define DWD_ROWP(v) const float *const *rp##v = rowp + (oy0 + (v < nr ? v : nr - 1)) * sy;
        DWD_ACC(DWD_ROWP)
#undef DWD_ROWP
        for (int64_t ox0 = 0; ox0 < OW; ox0 += 16) {
            const int64_t cb = ox0 * sx - d->pl;
            const __mmask16 sm = OW - ox0 >= 16 ? 0xFFFF : (__mmask16)((1u << (OW - ox0)) - 1);
            for (int kx = 0; kx < KW; kx++) {
                mlo[kx] = dwd_mask(cb + kx * dx, IW);
                if (sx == 2)
                    mhi[kx] = dwd_mask(cb + kx * dx + 16, IW);
            }
#define DWD_INIT(v) __m512 a##v = bv;
            DWD_ACC(DWD_INIT)
#undef DWD_INIT
            for (int ky = 0; ky < KH; ky++) {
#define DWD_ROW(v) const float *r##v = rp##v[ky * dy] + cb;
                DWD_ACC(DWD_ROW)
#undef DWD_ROW
                for (int kx = 0; kx < KW; kx++) {
                    const __m512 w = _mm512_set1_ps(wk[ky * KW + kx]);
                    const int64_t o = kx * dx;
                    const __mmask16 ml = mlo[kx];
                    if (sx == 1) {
#define DWD_FMA1(v) a##v = _mm512_fmadd_ps(w, _mm512_maskz_loadu_ps(ml, r##v + o), a##v);
                        DWD_ACC(DWD_FMA1)
#undef DWD_FMA1
                    } else {
                        const __mmask16 mh = mhi[kx];
#define DWD_FMA2(v)                                                                           \
    a##v = _mm512_fmadd_ps(w, _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(ml, r##v + o), even, \
                                                     _mm512_maskz_loadu_ps(mh, r##v + o + 16)), \
                           a##v);
                        DWD_ACC(DWD_FMA2)
#undef DWD_FMA2
                    }
                }
            }
#define DWD_STORE(v)                                                                   \
    if (v < nr)                                                                        \
        _mm512_mask_storeu_ps(y + (oy0 + v) * OW + ox0, sm, a##v);
            DW_ACT8(e);
            DWD_ACC(DWD_STORE)
#undef DWD_STORE
        }
    }
}

/* 3x3 depthwise, dilation 1, stride 1 or 2 in both axes: R output rows of one
 * 16-column chunk per block, each input row loaded once per block and added
 * into every output row it reaches (3 loads per row instead of 9 per output
 * row); a stride-2 row gives its three taps from two permutes of 32 loaded
 * columns and one shift. Per output the taps still add in (ky, kx) order. */
#define DWR_ACC_FMA(ro, wv, tv)                                                   \
    do {                                                                          \
        switch (ro) {                                                             \
        case 0: a0 = _mm512_fmadd_ps(wv, tv, a0); break;                          \
        case 1: a1 = _mm512_fmadd_ps(wv, tv, a1); break;                          \
        case 2: a2 = _mm512_fmadd_ps(wv, tv, a2); break;                          \
        case 3: a3 = _mm512_fmadd_ps(wv, tv, a3); break;                          \
        case 4: a4 = _mm512_fmadd_ps(wv, tv, a4); break;                          \
        case 5: a5 = _mm512_fmadd_ps(wv, tv, a5); break;                          \
        case 6: a6 = _mm512_fmadd_ps(wv, tv, a6); break;                          \
        default: a7 = _mm512_fmadd_ps(wv, tv, a7); break;                         \
        }                                                                         \
    } while (0)

T512 static inline __attribute__((always_inline)) void
dwr_block(const float *const *rp, int64_t cb, __mmask16 m0, __mmask16 m1, __mmask16 m2,
          const __m512 *w, __m512 bv, const gemm_epi *e, float *yb, int64_t OW, __mmask16 sm,
          int nr, const int R, const int s)
{
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    __m512 a0 = bv, a1 = bv, a2 = bv, a3 = bv, a4 = bv, a5 = bv, a6 = bv, a7 = bv;
#pragma GCC unroll 32
    for (int i = 0; i < (R - 1) * s + 3; i++) {
        const float *r = rp[i] + cb;
        __m512 t[3];
        if (s == 1) {
            t[0] = _mm512_maskz_loadu_ps(m0, r);
            t[1] = _mm512_maskz_loadu_ps(m1, r + 1);
            t[2] = _mm512_maskz_loadu_ps(m2, r + 2);
        } else {
            __m512 lo = _mm512_maskz_loadu_ps(m0, r), hi = _mm512_maskz_loadu_ps(m1, r + 16);
            /* column 32 broadcast: a masked load of its one lane still
             * crossed a cache line (52x52x64 -> 26x26: 39.7 -> 37.2 us) */
            __m512 nx = _mm512_set1_ps(m2 ? r[32] : 0.0f);
            t[0] = _mm512_permutex2var_ps(lo, even, hi);
            t[1] = _mm512_permutex2var_ps(lo, odd, hi);
            t[2] = _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(nx),
                                                           _mm512_castps_si512(t[0]), 1));
        }
#pragma GCC unroll 3
        for (int ky = 0; ky < 3; ky++) {
            const int d = i - ky;
            if (d < 0 || d % s || d / s >= R)
                continue;
#pragma GCC unroll 3
            for (int kx = 0; kx < 3; kx++)
                DWR_ACC_FMA(d / s, w[ky * 3 + kx], t[kx]);
        }
    }
    DW_ACT8(e); /* for R = 4, a4 .. a7 are dead code */
    _mm512_mask_storeu_ps(yb, sm, a0);
    if (nr > 1)
        _mm512_mask_storeu_ps(yb + OW, sm, a1);
    if (nr > 2)
        _mm512_mask_storeu_ps(yb + 2 * OW, sm, a2);
    if (nr > 3)
        _mm512_mask_storeu_ps(yb + 3 * OW, sm, a3);
    if (R > 4) {
        if (nr > 4)
            _mm512_mask_storeu_ps(yb + 4 * OW, sm, a4);
        if (nr > 5)
            _mm512_mask_storeu_ps(yb + 5 * OW, sm, a5);
        if (nr > 6)
            _mm512_mask_storeu_ps(yb + 6 * OW, sm, a6);
        if (nr > 7)
            _mm512_mask_storeu_ps(yb + 7 * OW, sm, a7);
    }
}

T512 static inline __attribute__((always_inline)) void
dwr_plane(const dw512_geom *d, const float *wk, __m512 bv, const gemm_epi *e, float *y,
          const float *const *rowp, const int s)
{
    const int64_t OH = d->OH, OW = d->OW, IW = d->IW;
    __m512 w[9];
    for (int t = 0; t < 9; t++)
        w[t] = _mm512_set1_ps(wk[t]);
    for (int64_t oy0 = 0; oy0 < OH; oy0 += 8) {
        const int nr = OH - oy0 < 8 ? (int)(OH - oy0) : 8;
        const float *const *rp = rowp + oy0 * s;
        for (int64_t ox0 = 0; ox0 < OW; ox0 += 16) {
            const int64_t cb = ox0 * s - d->pl;
            const __mmask16 sm = OW - ox0 >= 16 ? 0xFFFF : (__mmask16)((1u << (OW - ox0)) - 1);
            __mmask16 m0, m1, m2;
            if (s == 1) {
                m0 = dwd_mask(cb, IW);
                m1 = dwd_mask(cb + 1, IW);
                m2 = dwd_mask(cb + 2, IW);
            } else {
                m0 = dwd_mask(cb, IW);
                m1 = dwd_mask(cb + 16, IW);
                m2 = dwd_mask(cb + 32, IW) & 1;
            }
            float *yb = y + oy0 * OW + ox0;
            if (nr > 4)
                dwr_block(rp, cb, m0, m1, m2, w, bv, e, yb, OW, sm, nr, 8, s);
            else
                dwr_block(rp, cb, m0, m1, m2, w, bv, e, yb, OW, sm, nr, 4, s);
        }
    }
}

/* Padded-row pointers of the direct kernel: input row py - pt, or the zero row. */
T512 static void dwd_run(const dw512_geom *d, const float *x, const float *wk, float bias,
                         const gemm_epi *e, float *y, float *scratch)
{
    const int64_t hp = dwd_rows(d);
    const float **rowp = (const float **)(void *)scratch;
    float *zero = scratch + 2 * hp + 16;
    int zeroed = 0;
    for (int64_t py = 0; py < hp; py++) {
        int64_t iy = py - d->pt;
        if (iy >= 0 && iy < d->IH) {
            rowp[py] = x + iy * d->IW;
        } else {
            if (!zeroed)
                memset(zero, 0, sizeof(float) * (size_t)d->IW);
            zeroed = 1;
            rowp[py] = zero;
        }
    }
    const __m512 bv = _mm512_set1_ps(bias);
    const int k3 = d->KH == 3 && d->KW == 3 && d->dy == 1 && d->dx == 1 && d->sy == d->sx;
    if (k3 && d->sx == 1)
        dwr_plane(d, wk, bv, e, y, rowp, 1);
    else if (k3 && d->sx == 2)
        dwr_plane(d, wk, bv, e, y, rowp, 2);
    else if (d->sx == 1)
        dwd_plane(d, wk, bv, e, y, rowp, (int)d->KH, (int)d->KW, 1);
    else
        dwd_plane(d, wk, bv, e, y, rowp, (int)d->KH, (int)d->KW, 2);
}

/* 3x3 depthwise, stride 1, pad 1, an activation after, on planes whose rows
 * fill 16-lane vectors badly (52 columns take 64 lanes, 26 take 32): the
 * plane as one row of H * W outputs, 16 to a vector, every tap one load at
 * a fixed offset (-W - 1 .. W + 1). A tap left of column 0 or right of
 * column W - 1 would read the next row's value and is masked off, as are
 * taps above the first row and below the last. Nine loads per vector, not
 * the row blocks' four, but every lane is used: with SiLU on 52x52x64 planes
 * 21.5 TSC ticks a vector against the row blocks' 26. Inside the plane the
 * side taps are plain loads into a masked multiply-add: a zero-masking load
 * cost more than its load (52x52x64 planes 94 -> 88 us, paired medians 5-8 %
 * lower); the edge blocks keep masked loads, which read nothing outside the
 * plane. Taps add in (ky, kx) order, as in dwr_block: the same sums. */
T512 static void dwf_begin(const dw512_geom *d, dwf_tab *tb)
{
    const int64_t W = d->IW, HW = d->IH * W;
    int64_t nblk, ga = W, gb = 16;
    while (gb) {
        int64_t r = ga % gb;
        ga = gb;
        gb = r;
    }
    tb->P = W / ga;
    dwf_layout(d, &tb->nhead, &tb->btail, &nblk);
    for (int64_t q = 0, xc = 0; q < tb->P + 8; q++) {
        /* xc: column of the vector's first lane; W >= 16 puts at most one
         * lane of each edge column in a vector (dwd_mask(s, 1): lane -s) */
        tb->lt[q] = (__mmask16)~dwd_mask(xc ? xc - W : 0, 1);
        tb->rt[q] = (__mmask16)~dwd_mask(xc - (W - 1), 1);
        xc += 16;
        xc -= xc >= W ? W : 0;
    }
    for (int64_t b = 0, eb = 0; b < nblk; b++) {
        if (b >= tb->nhead && b < tb->btail)
            continue;
        for (int v = 0; v < 8; v++) {
            int64_t p = 16 * (8 * b + v), q = (8 * b + v) % tb->P;
            /* lanes whose output, row above, row below is in the plane */
            __mmask16 in = dwd_mask(p, HW);
            __mmask16 row[3] = {(__mmask16)(in & dwd_mask(p - W, HW)), in, dwd_mask(p + W, HW)};
            tb->in[eb][v] = in;
            for (int t = 0; t < 9; t++)
                tb->mk[eb][t][v] = row[t / 3] & (t % 3 == 0   ? tb->lt[q]
                                                 : t % 3 == 2 ? tb->rt[q]
                                                              : 0xFFFF);
        }
        eb++;
    }
}

/* A lane mask straight from memory into a mask register: GCC loads it into a
 * general register first, and that kmovw runs on port 5 with the FMAs.
 * volatile keeps one load per use: hoisted out of the row loop, a block's 16
 * masks did not fit the 7 mask registers and went through general ones. */
T512 static inline __mmask16 kload(const uint16_t *p)
{
    __mmask16 k;
    __asm__ volatile("kmovw %1, %0" : "=Yk"(k) : "m"(*p));
    return k;
}

T512 static void dwf_plane(const dw512_geom *d, const float *x, const float *wk, float bias,
                           const gemm_epi *e, float *y, const dwf_tab *tb)
{
    const int64_t W = d->IW, HW = d->IH * W, nvec = (HW + 15) / 16;
    const __m512 bv = _mm512_set1_ps(bias);
    __m512 w[9];
    int64_t off[9];
    for (int t = 0; t < 9; t++) {
        w[t] = _mm512_set1_ps(wk[t]);
        off[t] = (t / 3 - 1) * W + t % 3 - 1;
    }
    for (int64_t v0 = 0, b = 0, q = 0; v0 < nvec; v0 += 8, b++, q = (q + 8) % tb->P) {
        const float *xb = x + 16 * v0;
        __m512 a0 = bv, a1 = bv, a2 = bv, a3 = bv, a4 = bv, a5 = bv, a6 = bv, a7 = bv;
        if (b >= tb->nhead && b < tb->btail) {
            const uint16_t *lm = tb->lt + q, *rm = tb->rt + q;
            for (int ky = 0; ky < 3; ky++) {
                const float *s = xb + (ky - 1) * W;
                const __m512 wl = w[3 * ky], wc = w[3 * ky + 1], wr = w[3 * ky + 2];
#define DWF_L(v) a##v = _mm512_mask3_fmadd_ps(wl, _mm512_loadu_ps(s + 16 * v - 1), a##v, kload(lm + v));
#define DWF_C(v) a##v = _mm512_fmadd_ps(wc, _mm512_loadu_ps(s + 16 * v), a##v);
#define DWF_R(v) a##v = _mm512_mask3_fmadd_ps(wr, _mm512_loadu_ps(s + 16 * v + 1), a##v, kload(rm + v));
                DWD_ACC(DWF_L)
                DWD_ACC(DWF_C)
                DWD_ACC(DWF_R)
#undef DWF_L
#undef DWF_C
#undef DWF_R
            }
            DW_ACT8(e);
#define DWF_ST(v) _mm512_storeu_ps(y + 16 * (v0 + v), a##v);
            DWD_ACC(DWF_ST)
#undef DWF_ST
        } else {
            const int64_t eb = b < tb->nhead ? b : tb->nhead + b - tb->btail;
            for (int t = 0; t < 9; t++) {
                const float *s = xb + off[t];
                const uint16_t *m = tb->mk[eb][t];
#define DWF_G(v) a##v = _mm512_fmadd_ps(w[t], _mm512_maskz_loadu_ps(m[v], s + 16 * v), a##v);
                DWD_ACC(DWF_G)
#undef DWF_G
            }
            DW_ACT8(e);
#define DWF_STM(v) _mm512_mask_storeu_ps(y + 16 * (v0 + v), tb->in[eb][v], a##v);
            DWD_ACC(DWF_STM)
#undef DWF_STM
        }
    }
}

/* The direct kernels take blocks of eight output rows: a plane whose last
 * block would leave more than a quarter of them unused (2 or 3 rows, as in
 * PP-OCR's 5x5 convs over 2x96 maps, computed 8 for 2) goes to dw_plane512,
 * whose blocks also run along the columns. */
static int dwd_supported(const dw512_geom *d)
{
    int64_t rows = (d->OH + 7) / 8 * 8;
    return (d->sx == 1 || d->sx == 2) && d->KW <= DWD_MAXKW && 4 * (rows - d->OH) <= rows;
}

#endif

int dw512_supported(const dw512_geom *d)
{
    return gemm512_available() && d->KH * d->KW <= DW_MAXTAPS_PUBLIC && d->sx >= 1 && d->sy >= 1;
}

void dw512_begin(const dw512_geom *d, const gemm_epi *act, float *scratch)
{
#if HAVE_GEMM512
    if (dwf_supported(d, act))
        dwf_begin(d, (dwf_tab *)(void *)scratch);
#else
    (void)d, (void)act, (void)scratch;
#endif
}

void dw512_plane(const dw512_geom *d, const float *x, const float *w, float bias,
                 const gemm_epi *act, float *y, float *scratch)
{
#if HAVE_GEMM512
    gemm_epi none = {0};
    if (dwf_supported(d, act))
        dwf_plane(d, x, w, bias, act, y, (const dwf_tab *)(void *)scratch);
    else if (dwd_supported(d))
        dwd_run(d, x, w, bias, act ? act : &none, y, scratch);
    else
        dw_plane512(d, x, w, bias, act ? act : &none, y, scratch);
#else
    (void)d, (void)x, (void)w, (void)bias, (void)act, (void)y, (void)scratch;
#endif
}

/* ---- Winograd F(2x2, 3x3) ---------------------------------------------- */

/* 3x3, stride 1 convs as 16 GEMMs over 4x4 input tiles (2.25x fewer
 * multiplies): U = G g G^T per (m, c), V = B^T d B per (c, tile), Y = A^T M A
 * with M = U (x) V; the transforms only add and halve, so rounding stays
 * close to the direct conv's. Tiles are processed one block of tile rows per
 * task, 16 tiles per vector (stride-2 columns split by an even/odd permute). */

size_t wino_packed_floats(int64_t M, int64_t C)
{
    return 16 * gemm512_packed_floats(M, C);
}

/* U = G g G^T of one 3x3 kernel g, row-major 4x4 (in double: only the
 * rounding to float at the end). */
static void wino_weight_tile(const float *g, double r[16])
{
    double t[4][3];
    for (int j = 0; j < 3; j++) { /* G g */
        t[0][j] = g[j];
        t[1][j] = 0.5 * (g[j] + g[3 + j] + g[6 + j]);
        t[2][j] = 0.5 * (g[j] - g[3 + j] + g[6 + j]);
        t[3][j] = g[6 + j];
    }
    for (int i = 0; i < 4; i++) { /* (G g) G^T */
        r[i * 4 + 0] = t[i][0];
        r[i * 4 + 1] = 0.5 * (t[i][0] + t[i][1] + t[i][2]);
        r[i * 4 + 2] = 0.5 * (t[i][0] - t[i][1] + t[i][2]);
        r[i * 4 + 3] = t[i][2];
    }
}

void wino_pack_weights(const float *w, int64_t M, int64_t C, float *dst)
{
    size_t per = gemm512_packed_floats(M, C);
    float *u = xmalloc(sizeof(float) * 16 * (size_t)(M * C));
    for (int64_t m = 0; m < M; m++)
        for (int64_t c = 0; c < C; c++) {
            double r[16];
            wino_weight_tile(w + (m * C + c) * 9, r);
            for (int xi = 0; xi < 16; xi++)
                u[((size_t)xi * M + m) * C + c] = (float)r[xi];
        }
    for (int xi = 0; xi < 16; xi++)
        gemm512_pack_a(u + (size_t)xi * M * C, C, M, C, dst + xi * per);
    free(u);
}

int64_t wino_rows_per_task(const wino_geom *g, int nthreads)
{
    int64_t th = (g->OH + 1) / 2, tw = (g->OW + 1) / 2;
    int64_t rows = 16384 / ((g->C + g->M) * tw);
    if (rows < 1)
        rows = 1;
    if (nthreads > 1) {
        int64_t per = (th + 2 * nthreads - 1) / (2 * nthreads);
        if (rows > per)
            rows = per;
    }
    return rows < th ? rows : th;
}

/* The 16 planes of V (C x TB) and of the products (M x TB) are 16 floats
 * further apart than their size: strides that are multiples of 4 KB would put
 * all 16 streams in the same L1 sets. */
static int64_t plane_stride(int64_t rows, int64_t tb)
{
    return rows * tb + 16;
}

size_t wino_scratch_floats(const wino_geom *g, int64_t rows)
{
    int64_t tb = rows * ((g->OW + 1) / 2);
    return (size_t)(16 * (plane_stride(g->C, tb) + plane_stride(g->M, tb)) + 64);
}

#if HAVE_GEMM512

/* 16 consecutive floats of row r starting at column s, zero outside [0, n). */
T512 static inline __m512 load_row(const float *r, int64_t s, int64_t n)
{
    const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    __m512i v = _mm512_add_epi32(iota, _mm512_set1_epi32((int)s));
    __mmask16 m = _mm512_cmpge_epi32_mask(v, _mm512_setzero_si512()) &
                  _mm512_cmplt_epi32_mask(v, _mm512_set1_epi32((int)n));
    return _mm512_maskz_loadu_ps(m, r + s);
}

/* B^T d on one input row of 16 tiles: a0 a1 hold the row's columns
 * x0 .. x0 + 31, b0 b1 columns x0 + 2 .. x0 + 33 (tile t starts at x0 + 2t);
 * e[j] is column j of the tiles' transform, split even/odd by permutes. */
T512 static inline void wino_row(__m512 a0, __m512 a1, __m512 b0, __m512 b1, __m512 *e)
{
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    __m512 d0 = _mm512_permutex2var_ps(a0, even, a1);
    __m512 d1 = _mm512_permutex2var_ps(a0, odd, a1);
    __m512 d2 = _mm512_permutex2var_ps(b0, even, b1);
    __m512 d3 = _mm512_permutex2var_ps(b0, odd, b1);
    e[0] = _mm512_sub_ps(d0, d2);
    e[1] = _mm512_add_ps(d1, d2);
    e[2] = _mm512_sub_ps(d2, d1);
    e[3] = _mm512_sub_ps(d1, d3);
}

T512 static void wino_input(const wino_geom *g, const float *x, int64_t th0, int64_t nrows, float *v)
{
    const int64_t TW = (g->OW + 1) / 2, TB = nrows * TW, C = g->C, VS = plane_stride(C, TB);

    /* input rows this block reads, per channel */
    int64_t py0 = 2 * th0 - g->pt, py1 = py0 + 2 * nrows + 2;
    if (py0 < 0)
        py0 = 0;
    if (py1 > g->IH)
        py1 = g->IH;
    for (int64_t c = 0; c < C; c++) {
        const float *xc = x + c * g->IH * g->IW;
        /* The next channel's rows are short runs 1 plane away: the hardware
         * prefetcher misses them, so ask for them one channel ahead. */
        if (c + 1 < C && py1 > py0) {
            const char *a = (const char *)(xc + g->IH * g->IW + py0 * g->IW);
            const char *b = (const char *)(xc + g->IH * g->IW + py1 * g->IW);
            for (; a < b; a += 64)
                _mm_prefetch(a, _MM_HINT_T0);
        }
        for (int64_t r = 0; r < nrows; r++) {
            int64_t iy0 = 2 * (th0 + r) - g->pt;
            for (int64_t tw0 = 0; tw0 < TW; tw0 += 16) {
                int64_t ix = 2 * tw0 - g->pl;
                __m512 e[4][4];
                for (int i = 0; i < 4; i++) {
                    int64_t iy = iy0 + i;
                    if (iy < 0 || iy >= g->IH) {
                        e[i][0] = e[i][1] = e[i][2] = e[i][3] = _mm512_setzero_ps();
                        continue;
                    }
                    const float *row = xc + iy * g->IW;
                    wino_row(load_row(row, ix, g->IW), load_row(row, ix + 16, g->IW),
                             load_row(row, ix + 2, g->IW), load_row(row, ix + 18, g->IW), e[i]);
                }
                int64_t n = TW - tw0;
                __mmask16 m = n >= 16 ? 0xFFFF : (__mmask16)((1u << n) - 1);
                float *dst = v + c * TB + r * TW + tw0;
                for (int j = 0; j < 4; j++) {
                    _mm512_mask_storeu_ps(dst + (0 * 4 + j) * VS, m, _mm512_sub_ps(e[0][j], e[2][j]));
                    _mm512_mask_storeu_ps(dst + (1 * 4 + j) * VS, m, _mm512_add_ps(e[1][j], e[2][j]));
                    _mm512_mask_storeu_ps(dst + (2 * 4 + j) * VS, m, _mm512_sub_ps(e[2][j], e[1][j]));
                    _mm512_mask_storeu_ps(dst + (3 * 4 + j) * VS, m, _mm512_sub_ps(e[1][j], e[3][j]));
                }
            }
        }
    }
}

T512 static void wino_output(const wino_geom *g, const float *mx, int64_t th0, int64_t nrows,
                             const float *bias, const gemm_epi *e, float *y)
{
    const int64_t TW = (g->OW + 1) / 2, TB = nrows * TW, M = g->M, OW = g->OW;
    const int64_t MS = plane_stride(M, TB);
    const __m512i lo = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    const __m512i hi = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);

    for (int64_t m = 0; m < M; m++) {
        __m512 bv = _mm512_set1_ps(bias ? bias[m] : 0.0f);
        float *ym = y + m * g->OH * OW;
        for (int64_t r = 0; r < nrows; r++) {
            int64_t oy = 2 * (th0 + r);
            for (int64_t tw0 = 0; tw0 < TW; tw0 += 16) {
                const float *src = mx + m * TB + r * TW + tw0;
                __m512 s[2][4];
                for (int i = 0; i < 4; i++) {
                    __m512 m0 = _mm512_loadu_ps(src + (i * 4 + 0) * MS);
                    __m512 m1 = _mm512_loadu_ps(src + (i * 4 + 1) * MS);
                    __m512 m2 = _mm512_loadu_ps(src + (i * 4 + 2) * MS);
                    __m512 m3 = _mm512_loadu_ps(src + (i * 4 + 3) * MS);
                    s[0][i] = _mm512_add_ps(_mm512_add_ps(m0, m1), m2);
                    s[1][i] = _mm512_sub_ps(_mm512_sub_ps(m1, m2), m3);
                }
                __m512 v[4]; /* output rows oy (v[0], v[1]) and oy + 1 (v[2], v[3]) */
                for (int j = 0; j < 2; j++) {
                    v[j] = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(s[j][0], s[j][1]), s[j][2]), bv);
                    v[2 + j] = _mm512_add_ps(_mm512_sub_ps(_mm512_sub_ps(s[j][1], s[j][2]), s[j][3]), bv);
                }
                epi_row(v, 4, e);
                const __m512 *y0 = v, *y1 = v + 2;
                int64_t ox = 2 * tw0, n = OW - ox;
                __mmask16 k0 = dwd_mask(0, n), k1 = dwd_mask(16, n);
                float *d0 = ym + oy * OW + ox;
                _mm512_mask_storeu_ps(d0, k0, _mm512_permutex2var_ps(y0[0], lo, y0[1]));
                _mm512_mask_storeu_ps(d0 + 16, k1, _mm512_permutex2var_ps(y0[0], hi, y0[1]));
                if (oy + 1 < g->OH) {
                    _mm512_mask_storeu_ps(d0 + OW, k0, _mm512_permutex2var_ps(y1[0], lo, y1[1]));
                    _mm512_mask_storeu_ps(d0 + OW + 16, k1, _mm512_permutex2var_ps(y1[0], hi, y1[1]));
                }
            }
        }
    }
}

#endif

void wino_run_rows(const wino_geom *g, const float *upack, const float *x, const float *bias,
                   const gemm_epi *act, float *y, int64_t th0, int64_t nrows, float *scratch)
{
#if HAVE_GEMM512
    const int64_t TB = nrows * ((g->OW + 1) / 2);
    size_t per = gemm512_packed_floats(g->M, g->C);
    const int64_t VS = plane_stride(g->C, TB), MS = plane_stride(g->M, TB);
    float *v = scratch, *mx = scratch + 16 * VS;
    gemm_epi none = {0};
    wino_input(g, x, th0, nrows, v);
    for (int xi = 0; xi < 16; xi++)
        run512(upack + xi * per, g->M, g->C, v + xi * VS, TB, NULL, TB, mx + xi * MS, TB,
               &none);
    wino_output(g, mx, th0, nrows, bias, act ? act : &none, y);
#else
    (void)g, (void)upack, (void)x, (void)bias, (void)act, (void)y, (void)th0, (void)nrows;
    (void)scratch;
#endif
}

/* ---- Winograd F(2x2, 3x3) over a direct conv's strip ---------------------- */

/* The direct conv's zero-padded input strip (few channels: yolox's 12-channel
 * stem), as Winograd tiles without the planar passes of wino_run_rows: a
 * block of 32 tiles (64 output columns of two rows) is transformed into
 * V (16 x C x 2 vectors, L1), multiplied per xi by 8 output channels at a
 * time with the weights broadcast (16 accumulators), and transformed back
 * with the bias and the epilogue. 2.25x fewer multiply-adds than the direct
 * GEMM, less what the transforms cost: the 12-channel stem's 16-row strip into
 * 16 channels with SiLU takes 0.81-0.85 of the direct GEMM's time (medians of
 * 3000 alternating runs); the multiply-adds here run at the FMA units' rate,
 * the transforms at about half of theirs. */

#define WS_MB 8 /* output channels per multiply pass */

/* Multiply passes for M output channels (the last one zero-padded). */
static int64_t ws_passes(int64_t M)
{
    return (M + WS_MB - 1) / WS_MB;
}

size_t wino_strip_floats(int64_t M, int64_t C)
{
    return (size_t)(16 * ws_passes(M) * C * WS_MB);
}

void wino_strip_pack(const float *w, int64_t M, int64_t C, float *dst)
{
    const int64_t nmc = ws_passes(M);
    memset(dst, 0, sizeof(float) * wino_strip_floats(M, C));
    for (int64_t m = 0; m < M; m++)
        for (int64_t c = 0; c < C; c++) {
            double r[16];
            wino_weight_tile(w + (m * C + c) * 9, r);
            for (int xi = 0; xi < 16; xi++)
                dst[((xi * nmc + m / WS_MB) * C + c) * WS_MB + m % WS_MB] = (float)r[xi];
        }
}

/* Floats between the xi planes of V: one line more than their 32 C floats
 * (a plane stride of 1536 bytes at C = 12 puts the 16 stores of a channel on
 * 8 offsets mod 4 KB, where the strip's loads wait behind them: 3 % of the
 * stem's time in a paired microbenchmark). */
static int64_t ws_vstride(int64_t C)
{
    return C * 32 + 16;
}

size_t wino_strip_scratch_floats(int64_t C)
{
    return (size_t)(16 * ws_vstride(C) + 16 * WS_MB * 32);
}

#if HAVE_GEMM512

/* V for the tiles of one 16-tile vector (column x0 of the strip rows r, the
 * first nr of them there, the rest zero), channel by channel into v (32
 * floats between channels, ws_vstride() between xi planes). */
T512 static void ws_input(const float *r, int64_t rs, int nr, int64_t C, int64_t x0, int64_t wp,
                          float *v)
{
    const __mmask16 ka0 = dwd_mask(x0, wp), ka1 = dwd_mask(x0 + 16, wp);
    const __mmask16 kb0 = dwd_mask(x0 + 2, wp), kb1 = dwd_mask(x0 + 18, wp);
    const int64_t vs = ws_vstride(C);
    for (int64_t c = 0; c < C; c++, r += rs, v += 32) {
        __m512 e[4][4];
        for (int i = 0; i < 4; i++) {
            if (i >= nr) {
                e[i][0] = e[i][1] = e[i][2] = e[i][3] = _mm512_setzero_ps();
                continue;
            }
            const float *row = r + i * wp + x0;
            wino_row(_mm512_maskz_loadu_ps(ka0, row), _mm512_maskz_loadu_ps(ka1, row + 16),
                     _mm512_maskz_loadu_ps(kb0, row + 2), _mm512_maskz_loadu_ps(kb1, row + 18),
                     e[i]);
        }
        for (int j = 0; j < 4; j++) {
            _mm512_storeu_ps(v + (0 * 4 + j) * vs, _mm512_sub_ps(e[0][j], e[2][j]));
            _mm512_storeu_ps(v + (1 * 4 + j) * vs, _mm512_add_ps(e[1][j], e[2][j]));
            _mm512_storeu_ps(v + (2 * 4 + j) * vs, _mm512_sub_ps(e[2][j], e[1][j]));
            _mm512_storeu_ps(v + (3 * 4 + j) * vs, _mm512_sub_ps(e[1][j], e[3][j]));
        }
    }
}

/* mx[xi][mm][h] = sum over c of V[xi][c][h] * U[xi][mc + mm][c], NV (1 or 2)
 * tile vectors h (V's xi planes vs floats apart); the bias is the start of
 * xi = 5, which every output sums with weight 1 (A^T M A). */
#define WS_MUL(NV)                                                                     \
    for (int xi = 0; xi < 16; xi++) {                                                  \
        __m512 acc[WS_MB][2];                                                          \
        for (int mm = 0; mm < WS_MB; mm++)                                             \
            for (int h = 0; h < NV; h++)                                               \
                acc[mm][h] = xi == 5 ? _mm512_set1_ps(bb[mm]) : _mm512_setzero_ps();   \
        const float *uk = u + (xi * nmc + mc) * C * WS_MB, *vk = v + xi * vs;      \
        for (int64_t c = 0; c < C; c++, uk += WS_MB, vk += 32) {                       \
            __m512 v0 = _mm512_loadu_ps(vk), v1 = NV > 1 ? _mm512_loadu_ps(vk + 16) : v0; \
            for (int mm = 0; mm < WS_MB; mm++) {                                       \
                __m512 w = _mm512_set1_ps(uk[mm]);                                     \
                acc[mm][0] = _mm512_fmadd_ps(v0, w, acc[mm][0]);                       \
                if (NV > 1)                                                            \
                    acc[mm][1] = _mm512_fmadd_ps(v1, w, acc[mm][1]);                   \
            }                                                                          \
        }                                                                              \
        for (int mm = 0; mm < WS_MB; mm++)                                             \
            for (int h = 0; h < NV; h++)                                               \
                _mm512_storeu_ps(mx + (xi * WS_MB + mm) * 32 + h * 16, acc[mm][h]);    \
    }

/* Output rows oy and oy + 1 of channel m from mx[.][mm][h] for the nv tile
 * vectors h of a block (nt tiles from column ow0): the inverse transform, the
 * epilogue over all of them at once (the SiLU chains side by side: 3 % less
 * time than per tile vector), the even and odd columns interleaved. Row oy is
 * stored when top, row oy + 1 when two; y and res point at the first of them. */
T512 static inline void ws_output(const float *mx, int mm, int nv, int64_t nt, const gemm_epi *e,
                                  float *y, const float *res, int64_t ow0, int64_t OW, int top,
                                  int two)
{
    const __m512i lo = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    const __m512i hi = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
    __m512 v[8]; /* per h: row oy even, odd columns, row oy + 1 even, odd */
    for (int h = 0; h < nv; h++) {
        const float *src = mx + mm * 32 + h * 16;
        __m512 s[2][4];
        for (int i = 0; i < 4; i++) {
            __m512 m0 = _mm512_loadu_ps(src + (i * 4 + 0) * WS_MB * 32);
            __m512 m1 = _mm512_loadu_ps(src + (i * 4 + 1) * WS_MB * 32);
            __m512 m2 = _mm512_loadu_ps(src + (i * 4 + 2) * WS_MB * 32);
            __m512 m3 = _mm512_loadu_ps(src + (i * 4 + 3) * WS_MB * 32);
            s[0][i] = _mm512_add_ps(_mm512_add_ps(m0, m1), m2);
            s[1][i] = _mm512_sub_ps(_mm512_sub_ps(m1, m2), m3);
        }
        for (int j = 0; j < 2; j++) {
            v[4 * h + j] = _mm512_add_ps(_mm512_add_ps(s[j][0], s[j][1]), s[j][2]);
            v[4 * h + 2 + j] = _mm512_sub_ps(_mm512_sub_ps(s[j][1], s[j][2]), s[j][3]);
        }
    }
    epi_row(v, 4 * nv, e);
    for (int h = 0; h < nv; h++) {
        int64_t ow = ow0 + 32 * h, ht = nt - 16 * h > 16 ? 16 : nt - 16 * h;
        int64_t n = OW - ow < 2 * ht ? OW - ow : 2 * ht;
        __mmask16 k0 = dwd_mask(0, n), k1 = dwd_mask(16, n);
        for (int r = 1 - top; r < 1 + two; r++) {
            __m512 o0 = _mm512_permutex2var_ps(v[4 * h + 2 * r], lo, v[4 * h + 2 * r + 1]);
            __m512 o1 = _mm512_permutex2var_ps(v[4 * h + 2 * r], hi, v[4 * h + 2 * r + 1]);
            int64_t at = (r - 1 + top) * OW + ow;
            if (res) {
                o0 = _mm512_add_ps(o0, _mm512_maskz_loadu_ps(k0, res + at));
                o1 = _mm512_add_ps(o1, _mm512_maskz_loadu_ps(k1, res + at + 16));
            }
            _mm512_mask_storeu_ps(y + at, k0, o0);
            _mm512_mask_storeu_ps(y + at + 16, k1, o1);
        }
    }
}

T512 static void ws_run(const float *u, int64_t M, int64_t C, const float *strip, int64_t hp,
                        int64_t wp, int first, int64_t nrows, int64_t OW, float *y, int64_t ldc,
                        const gemm_epi *e, float *scratch)
{
    const int64_t TW = (OW + 1) / 2, nmc = ws_passes(M), rs = hp * wp;
    const int64_t vs = ws_vstride(C);
    float *v = scratch, *mx = scratch + 16 * vs;
    gemm_epi ep = *e;
    ep.bias = NULL, ep.res = NULL;
    for (int64_t oy = -first; oy < nrows; oy += 2) {
        /* strip row oy + first is the tile's first input row */
        int64_t left = nrows + 2 - oy;
        int nr = left < 4 ? (int)left : 4;
        int top = oy >= 0, two = oy + 1 < nrows;
        for (int64_t t0 = 0; t0 < TW; t0 += 32) {
            int64_t nt = TW - t0 < 32 ? TW - t0 : 32;
            int nv = nt > 16 ? 2 : 1;
            for (int h = 0; h < nv; h++)
                ws_input(strip + (oy + first) * wp, rs, nr, C, 2 * (t0 + 16 * h), wp, v + 16 * h);
            for (int64_t mc = 0; mc < nmc; mc++) {
                float bb[WS_MB];
                for (int mm = 0; mm < WS_MB; mm++)
                    bb[mm] = e->bias && mc * WS_MB + mm < M ? e->bias[mc * WS_MB + mm] : 0.0f;
                if (nv == 2) {
                    WS_MUL(2)
                } else {
                    WS_MUL(1)
                }
                for (int mm = 0; mm < WS_MB && mc * WS_MB + mm < M; mm++) {
                    int64_t off = (mc * WS_MB + mm) * ldc + (oy + 1 - top) * OW;
                    ws_output(mx, mm, nv, nt, &ep, y + off, e->res ? e->res + off : NULL, 2 * t0,
                              OW, top, two);
                }
            }
        }
    }
}

#endif

void wino_strip_rows(const float *u, int64_t M, int64_t C, const float *strip, int64_t hp,
                     int64_t wp, int first, int64_t nrows, int64_t OW, float *y, int64_t ldc,
                     const gemm_epi *e, float *scratch)
{
#if HAVE_GEMM512
    ws_run(u, M, C, strip, hp, wp, first, nrows, OW, y, ldc, e, scratch);
#else
    (void)u, (void)M, (void)C, (void)strip, (void)hp, (void)wp, (void)first, (void)nrows, (void)OW;
    (void)y, (void)ldc, (void)e, (void)scratch;
#endif
}

/* ---- stride-2 interleave ------------------------------------------------ */

#if HAVE_GEMM512
T512 static void interleave2_512(float *d, const float *a, const float *b, int64_t n, float bias)
{
    const __m512i lo = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    const __m512i hi = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
    const __m512 bv = _mm512_set1_ps(bias);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 va = _mm512_add_ps(_mm512_loadu_ps(a + i), bv);
        __m512 vb = _mm512_add_ps(_mm512_loadu_ps(b + i), bv);
        _mm512_storeu_ps(d + 2 * i, _mm512_permutex2var_ps(va, lo, vb));
        _mm512_storeu_ps(d + 2 * i + 16, _mm512_permutex2var_ps(va, hi, vb));
    }
    for (; i < n; i++) {
        d[2 * i] = a[i] + bias;
        d[2 * i + 1] = b[i] + bias;
    }
}
#endif

void interleave2_bias(float *d, const float *a, const float *b, int64_t n, float bias)
{
#if HAVE_GEMM512
    if (gemm512_available()) {
        interleave2_512(d, a, b, n, bias);
        return;
    }
#endif
    for (int64_t i = 0; i < n; i++) {
        d[2 * i] = a[i] + bias;
        d[2 * i + 1] = b[i] + bias;
    }
}
