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

/* Rows of sums to outputs: row r reads x + r * ldx, writes y + r * ldy, with
 * bias[r] (bias NULL: 0) and scale[r]. Many short rows are common
 * (the planes of a depthwise conv, a 1x1 conv's channels over a block, a
 * squeeze-excite conv's one value per channel): the output grid's and the
 * table's constants are set once, not per row. */
typedef struct epi_rows {
    const float *x;
    float *y;
    int64_t ldx, ldy, rows, n;
    const int32_t *bias;
    const double *scale;
    const qparam_t *p;
    int qlo, qhi;
    uint8_t *b;          /* NULL, or each output's byte q + 128 on grid bg, */
    int64_t ldb;         /* row r at b + r * ldb */
    const qparam_t *bg;
    int nof;             /* b set and y unread: the direct paths skip y */
} epi_rows;

static inline double rows_bias(const epi_rows *r, int64_t i)
{
    return r->bias ? (double)r->bias[i] : 0.0;
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

QCLONES void quant_dq8_bytes(const uint8_t *b, int64_t n, const qparam_t *p, float *out)
{
    const int32_t z = p->zp + 128;
    const float s = p->scale;
    for (int64_t i = 0; i < n; i++)
        out[i] = (float)((int32_t)b[i] - z) * s;
}

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

QCLONES static void q8c_generic(const float *x, float *out, int64_t n, float s, float zpf,
                                int deq)
{
    int64_t i = 0;
    for (; i + QV <= n; i += QV) {
        qvf v;
        memcpy(&v, x + i, sizeof(v));
        Q8C_V(v, s, zpf, v);
        if (deq)
            v = v * s;
        memcpy(out + i, &v, sizeof(v));
    }
    for (; i < n; i++)
        out[i] = deq ? q8_centered(x[i], s, zpf) * s : q8_centered(x[i], s, zpf);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define Q8C_512 1
#include <immintrin.h>

/* AVX-512: x * (1 / scale) instead of the division (several times faster),
 * and the true division only for a vector with a lane whose quotient is
 * within 1/4096 of a half (y - rne(y) by vreduceps): below |y| = 600 (beyond,
 * both saturate) the product is within 600 * 2^-22 = 1.4e-4 of the quotient
 * (1/4096 = 2.4e-4; about 1 vector in 130 takes the division), so
 * elsewhere both round alike, and away from a half round-half-away is
 * round-to-nearest: y - (y - rne(y)), exact, from the vreduceps result in
 * hand (inf: vreduceps gives 0). Near a half, round-half-away as in
 * q8_centered (trunc by roundscale, copysign by one ternary-logic op). The
 * clamp is done on q - zp, [-128 - zp, 127 - zp] (all integers: exact); NaN
 * ends at the lower bound since max returns its second operand when the
 * first is NaN. */
#define Q512 __attribute__((target("avx512f,avx512dq")))

/* The constants of one (scale, zp), set up once per call. */
typedef struct q512c {
    __m512 vs, vinv, h, lim, lo, hi;
    __m512i sign, absm;
} q512c;

Q512 static inline void q512_init(q512c *k, float s, float zpf)
{
    k->vs = _mm512_set1_ps(s);
    k->vinv = _mm512_set1_ps(1.0f / s);
    k->h = _mm512_set1_ps(0.49999997f);
    k->lim = _mm512_set1_ps(0.5f - 1.0f / 4096);
    k->lo = _mm512_set1_ps(-128.0f - zpf);
    k->hi = _mm512_set1_ps(127.0f - zpf);
    k->sign = _mm512_set1_epi32((int32_t)0x80000000u);
    k->absm = _mm512_set1_epi32(0x7fffffff);
}

/* The clamp of q to [qlo, qhi] instead of [-128, 127], on q - zp. */
Q512 static inline void q512_bounds(q512c *k, int qlo, int qhi, float zpf)
{
    k->lo = _mm512_set1_ps((float)qlo - zpf);
    k->hi = _mm512_set1_ps((float)qhi - zpf);
}

/* q8_centered of 16 lanes by the specified operations: the division (the
 * product by 1 / scale in double, rounded to float, gives the same quotient
 * but measured slower on Emerald Rapids). */
Q512 static inline __m512 q512_div(__m512 v, const q512c *k)
{
    const int rz = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
    __m512 y = _mm512_div_ps(v, k->vs);
    /* (y & sign) | h: 0xEA is (A & B) | C */
    __m512 hs = _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
        _mm512_castps_si512(y), k->sign, _mm512_castps_si512(k->h), 0xEA));
    __m512 r = _mm512_roundscale_ps(_mm512_add_ps(y, hs), rz);
    /* + 0 turns -0 into the +0 that an integer q - zp gives */
    return _mm512_add_ps(_mm512_min_ps(_mm512_max_ps(r, k->lo), k->hi), _mm512_setzero_ps());
}

/* q8_centered of 16 lanes (see above). */
Q512 static inline __m512 q512_centered(__m512 v, const q512c *k)
{
    const int rn = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    __m512 y = _mm512_mul_ps(v, k->vinv);
    __m512 d = _mm512_reduce_ps(y, rn);
    __m512i ad = _mm512_and_epi32(_mm512_castps_si512(d), k->absm);
    if (!_mm512_cmp_ps_mask(_mm512_castsi512_ps(ad), k->lim, _CMP_GT_OQ))
        /* + 0: y = -0 gives -0 (vreduceps returns +0) */
        return _mm512_add_ps(_mm512_min_ps(_mm512_max_ps(_mm512_sub_ps(y, d), k->lo), k->hi),
                             _mm512_setzero_ps());
    return q512_div(v, k);
}

Q512 static void q8c_512(const float *x, float *out, int64_t n, float s, float zpf, int deq)
{
    q512c k;
    q512_init(&k, s, zpf);
    int64_t i = 0;

    for (; i + 16 <= n; i += 16) {
        __m512 r = q512_centered(_mm512_loadu_ps(x + i), &k);
        if (deq)
            r = _mm512_mul_ps(r, k.vs);
        _mm512_storeu_ps(out + i, r);
    }
    if (i < n) { /* the tail by masked loads and stores */
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        __m512 r = q512_centered(_mm512_maskz_loadu_ps(m, x + i), &k);
        if (deq)
            r = _mm512_mul_ps(r, k.vs);
        _mm512_mask_storeu_ps(out + i, m, r);
    }
}

/* A 256-entry float table held in 16 registers, read at the index's low 8
 * bits: eight two-register permutes look up bits 0-4, three rounds of blends
 * pick by bits 5, 6 and 7 (vgatherdps is several times slower on CPUs with
 * the GDS fix). */
typedef struct lut512 {
    __m512 t[16];
} lut512;

Q512 static inline void lut512_load(lut512 *l, const float *lut)
{
    for (int k = 0; k < 16; k++)
        l->t[k] = _mm512_loadu_ps(lut + 16 * k);
}

Q512 static inline __m512 lut512_get(const lut512 *l, __m512i ix)
{
    const __mmask16 m5 = _mm512_test_epi32_mask(ix, _mm512_set1_epi32(32));
    const __mmask16 m6 = _mm512_test_epi32_mask(ix, _mm512_set1_epi32(64));
    const __mmask16 m7 = _mm512_test_epi32_mask(ix, _mm512_set1_epi32(128));
    const __m512 *t = l->t;
    /* written out: a loop over an array of results spills them */
#define LUT64(k) _mm512_mask_blend_ps(m5, _mm512_permutex2var_ps(t[k], ix, t[k + 1]), \
                                      _mm512_permutex2var_ps(t[k + 2], ix, t[k + 3]))
    __m512 lo = _mm512_mask_blend_ps(m6, LUT64(0), LUT64(4));
    __m512 hi = _mm512_mask_blend_ps(m6, LUT64(8), LUT64(12));
#undef LUT64
    return _mm512_mask_blend_ps(m7, lo, hi);
}

/* The 16 centred values c = q - zp (integers as floats) as output: c * s
 * (+ 0: q = zp gives +0, whatever the sign of c), or lut[c + zp + 128] with
 * a table. */
Q512 static inline __m512 q512_out(__m512 c, const q512c *k, const lut512 *l, __m512i off)
{
    if (!l)
        return _mm512_fmadd_ps(c, k->vs, _mm512_setzero_ps());
    return lut512_get(l, _mm512_add_epi32(_mm512_cvtps_epi32(c), off));
}

/* The epilogue's scaling on 16 lanes at a time: the same double operations, each
 * lane's float rounded from its double as the scalar cast does. */
Q512 static inline __m512 scale16_exact(__m512 v, __m512d vb, __m512d vsc)
{
    __m512d a = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
    __m512d b = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
    __m256 fa = _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_add_pd(a, vb), vsc));
    __m256 fb = _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_add_pd(b, vb), vsc));
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(fa)),
                                               _mm256_castps_pd(fb), 1));
}

/* With an output grid the double result f is only quantized: q - zp =
 * round(fl(f / s_out)), clamped. In float, t = fl(fl(y + bias) * c), c =
 * fl(s / s_out) (bias a float: the sum is the exact one rounded once), is
 * within 3 * 2^-24 relative of the exact (y + bias) * s / s_out, and
 * fl(f / s_out) within 2 * 2^-24 (plus 2^-53): below |t| = 600 they are less
 * than 1.8e-4 apart, so where t is not within 1/4096 (2.4e-4) of a half both
 * round alike (beyond, both saturate). Lanes near a half send their vector
 * through the exact double path. s and s_out of at least 2^-100 keep
 * subnormal results (values that round to 0 either way) out of the bound. */
typedef struct grid512 {
    q512c k;
    __m512d vb, vsc;
    __m512 vbf, vc;
} grid512;

/* The constants of the output grid, set once for many rows. */
Q512 static inline void grid512_tensor(grid512 *g, const qparam_t *p, int qlo, int qhi)
{
    q512_init(&g->k, p->scale, (float)p->zp);
    q512_bounds(&g->k, qlo, qhi, (float)p->zp);
}

/* The constants of one row (bias, scale); 0 where the bound above does not
 * hold. */
Q512 static inline int grid512_row(grid512 *g, double bias, double sc, const qparam_t *p)
{
    const double tiny = 0x1p-100;
    float bf = (float)bias, cf = (float)(sc / p->scale);
    if ((double)bf != bias || !(sc >= tiny && sc <= 0x1p40) || !(p->scale >= tiny) ||
        !(cf >= 0x1p-100f && cf <= 0x1p60f))
        return 0;
    g->vb = _mm512_set1_pd(bias), g->vsc = _mm512_set1_pd(sc);
    g->vbf = _mm512_set1_ps(bf), g->vc = _mm512_set1_ps(cf);
    return 1;
}

/* t of 16 sums and its distance d to the nearest integer; 0 when a lane is
 * near a half (the vector then takes the exact path). */
Q512 static inline int grid512_t(const grid512 *g, __m512 v, __m512 *t, __m512 *d)
{
    const int rn = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    *t = _mm512_mul_ps(_mm512_add_ps(v, g->vbf), g->vc);
    *d = _mm512_reduce_ps(*t, rn);
    __m512i ad = _mm512_and_epi32(_mm512_castps_si512(*d), g->k.absm);
    return !_mm512_cmp_ps_mask(_mm512_castsi512_ps(ad), g->k.lim, _CMP_GT_OQ);
}

/* q - zp of 16 sums, clamped (-0 where t is -0: the outputs drop the sign). */
Q512 static inline __m512 grid512_centred(const grid512 *g, __m512 v)
{
    __m512 t, d;
    if (grid512_t(g, v, &t, &d))
        return _mm512_min_ps(_mm512_max_ps(_mm512_sub_ps(t, d), g->k.lo), g->k.hi);
    return q512_centered(scale16_exact(v, g->vb, g->vsc), &g->k);
}

/* q + 128 of 16 sums as int32 (a table's index). Clamping t before rounding
 * is the same as after (the bounds are integers); NaN takes lo as above. */
Q512 static inline __m512i grid512_index(const grid512 *g, __m512 v, __m512i off)
{
    __m512 t, d, c;
    if (grid512_t(g, v, &t, &d))
        c = _mm512_min_ps(_mm512_max_ps(t, g->k.lo), g->k.hi);
    else
        c = q512_centered(scale16_exact(v, g->vb, g->vsc), &g->k);
    return _mm512_add_epi32(_mm512_cvtps_epi32(c), off);
}

/* The outputs of 16 sums with a float table or none (q512_out). */
Q512 static inline __m512 grid512_out(const grid512 *g, __m512 v, const lut512 *tab,
                                      __m512i off)
{
    return q512_out(grid512_centred(g, v), &g->k, tab, off);
}

/* The CPU's AVX-512 subsets this file uses: bit 0 F and DQ, bit 1 also BW and
 * VBMI. Probed once; relaxed atomics: threads may race to set it. */
static int cpu_512(void)
{
    static int have = -1;
    int h = __atomic_load_n(&have, __ATOMIC_RELAXED);
    if (h < 0) {
        h = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
        if (h && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi"))
            h |= 2;
        __atomic_store_n(&have, h, __ATOMIC_RELAXED);
    }
    return h;
}

static int have_vbmi(void)
{
    return cpu_512() >> 1;
}

/* q8_centered with q clamped to [qlo, qhi] (within [-128, 127]). */
static inline float q8_centered_in(float x, float s, float zpf, int qlo, int qhi)
{
    float c = q8_centered(x, s, zpf), lo = (float)qlo - zpf, hi = (float)qhi - zpf;
    return c < lo ? lo : c > hi ? hi : c;
}

/* One row by the exact double path (any output, or none). */
Q512 static void row_512_exact(const float *x, float *y, int64_t n, double bias, double sc,
                               const qparam_t *p, const float *lut, int qlo, int qhi)
{
    q512c k;
    const float s = p ? p->scale : 1.0f, zpf = p ? (float)p->zp : 0.0f;
    const __m512d vb = _mm512_set1_pd(bias), vsc = _mm512_set1_pd(sc);
    q512_init(&k, s, zpf);
    q512_bounds(&k, qlo, qhi, zpf);
    lut512 tab;
    const __m512i off = _mm512_set1_epi32(p ? p->zp + 128 : 0);
    if (lut)
        lut512_load(&tab, lut);
    int64_t i = 0;

    for (; i + 16 <= n; i += 16) {
        __m512 v = scale16_exact(_mm512_loadu_ps(x + i), vb, vsc);
        if (p)
            v = q512_out(q512_centered(v, &k), &k, lut ? &tab : NULL, off);
        _mm512_storeu_ps(y + i, v);
    }
    for (; i < n; i++) {
        float v = (float)(((double)x[i] + bias) * sc);
        if (p)
            v = q8_centered_in(v, s, zpf, qlo, qhi);
        y[i] = !p ? v : lut ? lut[(int32_t)v + p->zp + 128] : v * s;
    }
}

/* Row row's constants into g; 0 when the grid's bound does not hold for it,
 * the row then done by the exact path. */
Q512 static inline int rows_512_row(const epi_rows *r, int64_t row, grid512 *g, const float *lut)
{
    double bias = rows_bias(r, row);
    if (grid512_row(g, bias, r->scale[row], r->p))
        return 1;
    row_512_exact(r->x + row * r->ldx, r->y + row * r->ldy, r->n, bias, r->scale[row], r->p, lut,
                  r->qlo, r->qhi);
    if (r->b) /* its floats lie on bg: their bytes by the exact round trip */
        quant_q8_bytes(r->y + row * r->ldy, 1, r->n, r->n, r->bg, r->b + row * r->ldb, r->n);
    return 0;
}

/* The rows of r (n, m, g and lut in scope), 16 outputs at a time by
 * STEP(i, mask, full) (x, y and b, the row's bytes or NULL, in scope), the
 * tail of a row one masked vector; HASB a constant 0 when r has no bytes (the
 * loop then has no byte or float-skipping tests). */
#define ROWS_512(STEP, HASB)                                                           \
    for (int64_t row = 0; row < r->rows; row++) {                                      \
        const float *x = r->x + row * r->ldx;                                          \
        float *y = r->y + row * r->ldy;                                                \
        uint8_t *b = HASB ? r->b + row * r->ldb : NULL;                                \
        if (!rows_512_row(r, row, &g, lut))                                            \
            continue;                                                                  \
        int64_t i = 0;                                                                 \
        for (; i + 16 <= n; i += 16)                                                   \
            STEP(i, (__mmask16)0xffff, 1);                                             \
        if (i < n)                                                                     \
            STEP(i, m, 0);                                                             \
    }

/* 16 floats: a full vector by a plain load or store, the tail masked. */
Q512 static inline __m512 load16(const float *x, __mmask16 mk, int full)
{
    return full ? _mm512_loadu_ps(x) : _mm512_maskz_loadu_ps(mk, x);
}

Q512 static inline void store16(float *y, __mmask16 mk, int full, __m512 v)
{
    if (full)
        _mm512_storeu_ps(y, v);
    else
        _mm512_mask_storeu_ps(y, mk, v);
}

/* 16 int32 lanes (values 0..255) as bytes at b: a full vector by a plain
 * 16-byte store (the masked vpmovdb to memory is several times slower). */
Q512 static inline void bytes16(uint8_t *b, __mmask16 mk, int full, __m512i v)
{
    if (full)
        _mm_storeu_si128((__m128i *)b, _mm512_cvtepi32_epi8(v));
    else
        _mm512_mask_cvtepi32_storeu_epi8(b, mk, v);
}

/* With an output grid and a float table or none. */
Q512 static void rows_512_grid(const epi_rows *r, const float *lut)
{
    grid512 g;
    grid512_tensor(&g, r->p, r->qlo, r->qhi);
    lut512 tab;
    const __m512i off = _mm512_set1_epi32(r->p->zp + 128);
    if (lut)
        lut512_load(&tab, lut);
    const lut512 *tp = lut ? &tab : NULL;
    const int64_t n = r->n;
    const __mmask16 m = (__mmask16)((1u << (n % 16)) - 1);
    /* the bytes (no table: the caller asks for them only then) from the
     * same q - zp as the floats */
#define GRID_STEP(i, mk, full)                                                             \
    do {                                                                                   \
        __m512 c_ = grid512_centred(&g, load16(x + (i), mk, full));                        \
        if (!nof)                                                                          \
            store16(y + (i), mk, full, q512_out(c_, &g.k, tp, off));                       \
        if (b)                                                                             \
            bytes16(b + (i), mk, full, _mm512_add_epi32(_mm512_cvtps_epi32(c_), off));     \
    } while (0)
    /* bytes alone: q + 128 straight from t (grid512_index: clamping
     * before the rounding, as the bounds are integers), no t - d */
#define INDEX_STEP(i, mk, full)                                                            \
    do {                                                                                   \
        (void)y;                                                                           \
        bytes16(b + (i), mk, full, grid512_index(&g, load16(x + (i), mk, full), off));     \
    } while (0)
    if (r->b && r->nof && !lut) {
        ROWS_512(INDEX_STEP, 1);
    } else if (r->b) {
        const int nof = r->nof && !lut;
        ROWS_512(GRID_STEP, 1);
    } else {
        const int nof = 0;
        ROWS_512(GRID_STEP, 0);
    }
#undef INDEX_STEP
#undef GRID_STEP
}

/* The same with a chain's table as bytes: the entry at q + 128 by two byte
 * permutes over the table's two halves and a blend by the index's top bit
 * (q + 128 of the chain), dequantized by the table's grid as quant_dq8 does;
 * in place of lut512_get's eight float permutes and seven blends. */
#define QVBMI __attribute__((target("avx512f,avx512dq,avx512bw,avx512vbmi")))
typedef struct lut8c {
    __m512i t0, t1, t2, t3, off, top, zq;
    __m512 vs; /* the table's grid */
} lut8c;

/* The permutes write only each lane's low byte (the rest zero). */
#define LUT8_LOW 0x1111111111111111ull

/* The table's bytes of 16 sums (one per 32-bit lane). */
QVBMI static inline __m512i lut8_bytes(const grid512 *g, const lut8c *l, __m512 v)
{
    __m512i ix = grid512_index(g, v, l->off);
    __m512i lo = _mm512_maskz_permutex2var_epi8(LUT8_LOW, l->t0, ix, l->t1);
    __m512i hi = _mm512_maskz_permutex2var_epi8(LUT8_LOW, l->t2, ix, l->t3);
    return _mm512_mask_blend_epi8(_mm512_test_epi8_mask(ix, l->top), lo, hi);
}

QVBMI static inline __m512 lut8_float(const lut8c *l, __m512i b)
{
    return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(b, l->zq)), l->vs);
}

QVBMI static void rows_512_grid8(const epi_rows *r, const float *lut, const quant_lut8 *t)
{
    grid512 g;
    grid512_tensor(&g, r->p, r->qlo, r->qhi);
    lut8c l = {
        .t0 = _mm512_loadu_si512(t->q), .t1 = _mm512_loadu_si512(t->q + 64),
        .t2 = _mm512_loadu_si512(t->q + 128), .t3 = _mm512_loadu_si512(t->q + 192),
        .off = _mm512_set1_epi32(r->p->zp + 128), .top = _mm512_set1_epi8((char)0x80),
        .zq = _mm512_set1_epi32(t->grid.zp + 128), .vs = _mm512_set1_ps(t->grid.scale),
    };
    const int64_t n = r->n;
    const __mmask16 m = (__mmask16)((1u << (n % 16)) - 1);

#define LUT8_STEP(i, mk, full)                                                   \
    do {                                                                         \
        __m512i b_ = lut8_bytes(&g, &l, load16(x + (i), mk, full));              \
        if (!nof)                                                                \
            store16(y + (i), mk, full, lut8_float(&l, b_));                      \
        if (b)                                                                   \
            bytes16(b + (i), mk, full, b_);                                      \
    } while (0)
    if (r->b) {
        const int nof = r->nof;
        ROWS_512(LUT8_STEP, 1);
    } else {
        const int nof = 0;
        ROWS_512(LUT8_STEP, 0);
    }
#undef LUT8_STEP
}

/* quant_ew_qdq on 16 lanes at a time: the op by one IEEE operation per
 * element as the scalar expressions give it (Relu and Clip by compares, so
 * that NaN passes through as it does there), requantized in registers. One
 * loop per op (OP a constant after inlining), the last partial vector
 * masked.
 * The requantization rounds v / s by the FMA t = RN(v * fl(1 / s) + A), A
 * = 768 - 1/2 + 2^-14, clamped to [-128 - zp, 127 - zp] + A (integers: the
 * clamp before the rounding is the clamp after it; NaN takes the lower
 * bound, as quant_q8 gives it): in [512, 1024) a float's step is 2^-14, so t
 * - A = G / 2^14, G the nearest integer to 2^14 v / s (as computed), and
 * bits(t) = bits(768) + G - 8191. Where G mod 2^14 is not 8191..8194, which
 * (bits(t) & 0x3ffc) != 0 tells, the product is not within 2^-14 of a half,
 * and the quotient fl(v / s) that quant_q8 rounds is on the same side of
 * every half (for |q - zp| <= 255 the two are less than 2^-15 apart: each
 * within 2^-24 relative of the true quotient, and the grid's scale in
 * [2^-100, 2^100]); beyond a bound both saturate. So q - zp = ceil(t) -
 * 768 and q + 128 = (bits(t) - bits(768) + 2^14 - 1 + 2^14 (zp + 128)) >>
 * 14. A vector with a lane in the window takes q512_centered, and its
 * result is put in the same form (768 + q - zp). */
typedef struct ewc {
    q512c k;
    __m512 a0, b0, lo, hi;
    __m512 ca, tlo, thi, c768; /* A, the bounds + A, 768 */
    __m512i kadd, frac;
    int nof;     /* bytes only: no float stores */
} ewc;

/* Full operands read as bytes (quant_ew_in): each NULL or its bytes, zp +
 * 128 and scale. */
typedef struct ewb {
    const uint8_t *ab, *bb;
    __m512i az, bz;
    __m512 as, bs;
} ewb;

/* 16 operand values from bytes q + 128 (16, or the first m of them): (q -
 * zp) * scale, as quant_dq8_bytes makes them. */
Q512 static inline __m512 ew_deq16(const uint8_t *b, __m512i z, __m512 s, int64_t m)
{
    __m128i v;
    if (m >= 16) {
        v = _mm_loadu_si128((const __m128i *)b);
    } else {
        uint8_t t[16] = {0};
        memcpy(t, b, (size_t)m);
        v = _mm_loadu_si128((const __m128i *)t);
    }
    return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_cvtepu8_epi32(v), z)), s);
}

/* The op's 16 results. */
Q512 static inline __attribute__((always_inline)) __m512
ew16(const ewc *e, __m512 x, __m512 w, const int OP)
{
    __m512 v;
    switch (OP) {
    case QEW_ADD: v = _mm512_add_ps(x, w); break;
    case QEW_SUB: v = _mm512_sub_ps(x, w); break;
    case QEW_MUL: v = _mm512_mul_ps(x, w); break;
    case QEW_DIV: v = _mm512_div_ps(x, w); break;
    case QEW_RELU: /* v > 0 ? v : 0 */
        v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ), x);
        break;
    default: /* v < lo ? lo : (v > hi ? hi : v) */
        v = _mm512_mask_mov_ps(x, _mm512_cmp_ps_mask(x, e->hi, _CMP_GT_OQ), e->hi);
        v = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(x, e->lo, _CMP_LT_OQ), e->lo);
        break;
    }
    return v;
}

/* t of 16 results v before the window test: the FMA, clamped below, and
 * above when HI. Without the upper bound (outputs made bytes alone) a t of
 * 1024 or more gives 256 or more in ew_bytes16 (bits grow with t, and up to
 * infinity the sum does not overflow), which vpmovusdb saturates to 255, the
 * bound's byte (127 - zp + A is below 1024). */
Q512 static inline __attribute__((always_inline)) __m512 ew_tq(const ewc *e, __m512 v,
                                                               const int HI)
{
    __m512 t = _mm512_max_ps(_mm512_fmadd_ps(v, e->k.vinv, e->ca), e->tlo);
    return HI ? _mm512_min_ps(t, e->thi) : t;
}

/* The lanes of t (ew_tq) in the window. */
Q512 static inline __attribute__((always_inline)) __mmask16 ew_win(const ewc *e, __m512 t)
{
    return _mm512_testn_epi32_mask(_mm512_castps_si512(t), e->frac);
}

/* t of 16 results v (768 + q - zp, or within 1 of it, see above): ew_tq,
 * or the specified operations for a vector in the window. */
Q512 static inline __attribute__((always_inline)) __m512 ew_tb(const ewc *e, __m512 v,
                                                               const int HI)
{
    __m512 t = ew_tq(e, v, HI);
    if (__builtin_expect(ew_win(e, t) != 0, 0))
        return _mm512_add_ps(q512_centered(v, &e->k), e->c768);
    return t;
}

Q512 static inline __attribute__((always_inline)) __m512 ew_t16(const ewc *e, __m512 v)
{
    return ew_tb(e, v, 1);
}

/* The outputs of t: (q - zp) * s and q + 128. */
Q512 static inline __m512 ew_float16(const ewc *e, __m512 t)
{
    return _mm512_mul_ps(
        _mm512_sub_ps(_mm512_roundscale_ps(t, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC), e->c768),
        e->k.vs);
}

Q512 static inline __m512i ew_bytes16(const ewc *e, __m512 t)
{
    return _mm512_srli_epi32(_mm512_add_epi32(_mm512_castps_si512(t), e->kadd), 14);
}

/* Pairs of vectors a pass of ew_pairs covers before it writes again those
 * with a lane in the window. */
#define EW_PAIRS_MAX 256

/* The outputs of two vectors t (ew_tq's form or 768 + q - zp): bytes, and
 * floats when FL. */
Q512 static inline __attribute__((always_inline)) void ew_put2(const ewc *e, __m512 t0, __m512 t1,
                                                               float *y, uint8_t *yb, const int FL)
{
    if (FL) {
        _mm512_storeu_ps(y, ew_float16(e, t0));
        _mm512_storeu_ps(y + 16, ew_float16(e, t1));
    }
    _mm_storeu_si128((__m128i *)yb, _mm512_cvtusepi32_epi8(ew_bytes16(e, t0)));
    _mm_storeu_si128((__m128i *)(yb + 16), _mm512_cvtusepi32_epi8(ew_bytes16(e, t1)));
}

/* ew_loop's outputs with bytes, two vectors a step with one window branch,
 * floats too when FL (else no upper bound on t, ew_tq); returns the
 * elements done. */
Q512 static inline __attribute__((always_inline)) int64_t
ew_pairs(const ewc *e, const ewb *in, const float *a, int sa, const float *b, int sb, float *y,
         uint8_t *yb, int64_t n, const int OP, const int BY, const int FL)
{
    const int two = OP <= QEW_DIV;
    int64_t i = 0;
#define EW_V(j)                                                                             \
    ew16(e, BY && in->ab ? ew_deq16(in->ab + (j), in->az, in->as, 16)                      \
            : sa         ? _mm512_loadu_ps(a + (j))                                        \
                         : e->a0,                                                          \
         two && BY && in->bb ? ew_deq16(in->bb + (j), in->bz, in->bs, 16)                  \
         : two && sb         ? _mm512_loadu_ps(b + (j))                                    \
                             : e->b0,                                                      \
         OP)
    /* pairs with a lane in the window are written as the others, noted
     * without a branch, and written again after (as many as they may be:
     * the sum of two tensors on one grid, on a grid of twice its step,
     * lies on a half wherever one operand is at its zero point) */
    int32_t redo[EW_PAIRS_MAX];
    int nredo = 0;
    for (int64_t s0 = 0; s0 + 32 <= n; s0 = i) {
        int64_t end = s0 + 32 * (int64_t)EW_PAIRS_MAX < n ? s0 + 32 * (int64_t)EW_PAIRS_MAX : n;
        for (i = s0; i + 32 <= end; i += 32) {
            __m512 v0 = EW_V(i), v1 = EW_V(i + 16);
            __m512 t0 = ew_tq(e, v0, FL), t1 = ew_tq(e, v1, FL);
            redo[nredo] = (int32_t)(i - s0);
            nredo += (ew_win(e, t0) | ew_win(e, t1)) != 0;
            ew_put2(e, t0, t1, y + i, yb + i, FL);
        }
        for (int r = 0; r < nredo; r++) {
            int64_t k = s0 + redo[r];
            ew_put2(e, _mm512_add_ps(q512_div(EW_V(k), &e->k), e->c768),
                    _mm512_add_ps(q512_div(EW_V(k + 16), &e->k), e->c768), y + k, yb + k, FL);
        }
        nredo = 0;
    }
#undef EW_V
    return i;
}

Q512 static inline __attribute__((always_inline)) void
ew_loop(const ewc *e, const ewb *in, const float *a, int sa, const float *b, int sb, float *y,
        uint8_t *yb, int64_t n, const int OP, const int BY)
{
    const int two = OP <= QEW_DIV;
    if (!yb) { /* without bytes: a loop without their tests */
        int64_t i = 0;
        for (; i + 16 <= n; i += 16) {
            __m512 x = BY && in->ab ? ew_deq16(in->ab + i, in->az, in->as, 16) : sa ? _mm512_loadu_ps(a + i) : e->a0;
            __m512 w = two && BY && in->bb ? ew_deq16(in->bb + i, in->bz, in->bs, 16)
                    : two && sb ? _mm512_loadu_ps(b + i) : e->b0;
            _mm512_storeu_ps(y + i, ew_float16(e, ew_t16(e, ew16(e, x, w, OP))));
        }
        if (i < n) {
            __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
            __m512 x = BY && in->ab ? ew_deq16(in->ab + i, in->az, in->as, n - i)
                  : sa ? _mm512_maskz_loadu_ps(m, a + i) : e->a0;
            __m512 w = two && BY && in->bb ? ew_deq16(in->bb + i, in->bz, in->bs, n - i)
                    : two && sb ? _mm512_maskz_loadu_ps(m, b + i) : e->b0;
            _mm512_mask_storeu_ps(y + i, m, ew_float16(e, ew_t16(e, ew16(e, x, w, OP))));
        }
        return;
    }
    int64_t i = e->nof ? ew_pairs(e, in, a, sa, b, sb, y, yb, n, OP, BY, 0)
                       : ew_pairs(e, in, a, sa, b, sb, y, yb, n, OP, BY, 1);
    for (; i + 16 <= n; i += 16) {
        __m512 x = BY && in->ab ? ew_deq16(in->ab + i, in->az, in->as, 16) : sa ? _mm512_loadu_ps(a + i) : e->a0;
        __m512 w = two && BY && in->bb ? ew_deq16(in->bb + i, in->bz, in->bs, 16)
                    : two && sb ? _mm512_loadu_ps(b + i) : e->b0;
        __m512 t = ew_t16(e, ew16(e, x, w, OP));
        if (!e->nof)
            _mm512_storeu_ps(y + i, ew_float16(e, t));
        _mm_storeu_si128((__m128i *)(yb + i), _mm512_cvtepi32_epi8(ew_bytes16(e, t)));
    }
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        __m512 x = BY && in->ab ? ew_deq16(in->ab + i, in->az, in->as, n - i)
                  : sa ? _mm512_maskz_loadu_ps(m, a + i) : e->a0;
        __m512 w = two && BY && in->bb ? ew_deq16(in->bb + i, in->bz, in->bs, n - i)
                    : two && sb ? _mm512_maskz_loadu_ps(m, b + i) : e->b0;
        __m512 t = ew_t16(e, ew16(e, x, w, OP));
        if (!e->nof)
            _mm512_mask_storeu_ps(y + i, m, ew_float16(e, t));
        _mm512_mask_cvtepi32_storeu_epi8(yb + i, m, ew_bytes16(e, t));
    }
}

/* The loop's constants for grid p and the op's scalars. */
Q512 static inline __attribute__((always_inline)) void
ewc_init(ewc *e, const float *a, const float *b, float lo, float hi, const qparam_t *p, int nof)
{
    const float f768 = 768.0f, A = 767.5f + 0x1p-14f;
    int32_t b768;
    memcpy(&b768, &f768, sizeof(b768));
    e->nof = nof;
    q512_init(&e->k, p->scale, (float)p->zp);
    e->a0 = _mm512_set1_ps(a ? a[0] : 0.0f), e->b0 = _mm512_set1_ps(b ? b[0] : 0.0f);
    e->lo = _mm512_set1_ps(lo), e->hi = _mm512_set1_ps(hi);
    e->ca = _mm512_set1_ps(A), e->c768 = _mm512_set1_ps(f768);
    e->tlo = _mm512_set1_ps((float)(-128 - p->zp) + A);
    e->thi = _mm512_set1_ps((float)(127 - p->zp) + A);
    e->kadd = _mm512_set1_epi32(16383 + 16384 * (p->zp + 128) - b768);
    e->frac = _mm512_set1_epi32(0x3ffc);
}

/* q + 128 (int32 lanes) of 16 values as quant_q8 gives them: by ew_t16's
 * rounding (one FMA, the specified operations for a vector in its window)
 * where the grid takes it (F, quant_grid_bytes_exact), else by
 * q512_centered. */
Q512 static inline __attribute__((always_inline)) __m512i q8_16(const ewc *e, __m512 v,
                                                                __m512 bias, const int F)
{
    if (F)
        return ew_bytes16(e, ew_t16(e, v));
    return _mm512_cvttps_epi32(_mm512_add_ps(q512_centered(v, &e->k), bias));
}

/* quant_q8_quads on 16 positions at a time: q + 128 of each channel
 * (q8_16), one byte per channel; the last partial group of 16 by masked
 * loads and stores (rows of a small feature map are short). */
Q512 static inline __attribute__((always_inline)) __m512i
quads16(const float *const *x, int nch, int64_t i, __mmask16 m, const ewc *e, __m512 bias,
        __m512i pad, const int F)
{
    __m512i u[4];
    for (int j = 0; j < 4; j++)
        u[j] = j < nch ? q8_16(e, _mm512_maskz_loadu_ps(m, x[j] + i), bias, F) : pad;
    return _mm512_or_si512(_mm512_or_si512(u[0], _mm512_slli_epi32(u[1], 8)),
                           _mm512_or_si512(_mm512_slli_epi32(u[2], 16), _mm512_slli_epi32(u[3], 24)));
}

Q512 static inline __attribute__((always_inline)) void
quads_rows(const float *const *x, int nch, int64_t n, const ewc *e, __m512 bias, __m512i pad,
           uint32_t *out, const int F)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_si512(out + i, quads16(x, nch, i, 0xffff, e, bias, pad, F));
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_epi32(out + i, m, quads16(x, nch, i, m, e, bias, pad, F));
    }
}

Q512 static void quads_512(const float *const *x, int nch, int64_t n, const qparam_t *p,
                           uint32_t *out)
{
    ewc e;
    ewc_init(&e, NULL, NULL, 0, 0, p, 1);
    const __m512 bias = _mm512_set1_ps((float)p->zp + 128.0f);
    const __m512i pad = _mm512_set1_epi32(p->zp + 128);
    if (quant_grid_bytes_exact(p))
        quads_rows(x, nch, n, &e, bias, pad, out, 1);
    else
        quads_rows(x, nch, n, &e, bias, pad, out, 0);
}

/* quant_q8_bytes on 16 values at a time (q8_16), the constants set once for
 * all rows; the row's tail by a masked load and store. */
Q512 __attribute__((target("avx512bw"))) static inline __attribute__((always_inline)) void
bytes_rows(const float *x, int64_t rows, int64_t n, int64_t ldx, const ewc *e, __m512 bias,
           uint8_t *out, int64_t ldo, const int F)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * ldx;
        uint8_t *o = out + r * ldo;
        int64_t i = 0;
        for (; i + 16 <= n; i += 16)
            _mm_storeu_si128((__m128i *)(o + i),
                             _mm512_cvtepi32_epi8(q8_16(e, _mm512_loadu_ps(xr + i), bias, F)));
        if (i < n) {
            __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
            _mm512_mask_cvtepi32_storeu_epi8(
                o + i, m, q8_16(e, _mm512_maskz_loadu_ps(m, xr + i), bias, F));
        }
    }
}

Q512 __attribute__((target("avx512bw"))) static void bytes_512(const float *x, int64_t rows,
                                                               int64_t n, int64_t ldx,
                                                               const qparam_t *p, uint8_t *out,
                                                               int64_t ldo)
{
    ewc e;
    ewc_init(&e, NULL, NULL, 0, 0, p, 1);
    const __m512 bias = _mm512_set1_ps((float)p->zp + 128.0f);
    if (quant_grid_bytes_exact(p))
        bytes_rows(x, rows, n, ldx, &e, bias, out, ldo, 1);
    else
        bytes_rows(x, rows, n, ldx, &e, bias, out, ldo, 0);
}

/* ew_loop, or with brow > 0 (sb 0) b one value per row of brow elements,
 * element i taking b[(bfirst + i) / brow]: a loop per row, the constants set
 * up once. */
Q512 static inline __attribute__((always_inline)) void
ew_rows(ewc *e, const ewb *in, const float *a, int sa, const float *b, int sb, int64_t brow,
        int64_t bfirst, float *y, uint8_t *yb, int64_t n, const int OP, const int BY)
{
    if (brow <= 0 || sb) {
        ew_loop(e, in, a, sa, b, sb, y, yb, n, OP, BY);
        return;
    }
    ewb r;
    if (BY)
        r = *in;
    for (int64_t i = 0, m, row = bfirst / brow, k = bfirst % brow; i < n; i += m, row++, k = 0) {
        m = brow - k < n - i ? brow - k : n - i;
        e->b0 = _mm512_set1_ps(b[row]);
        if (BY)
            r.ab = in->ab ? in->ab + i : NULL;
        ew_loop(e, BY ? &r : NULL, sa ? a + i : a, sa, b, 0, y + i, yb ? yb + i : NULL, m, OP,
                BY);
    }
}

#define EW_SWITCH(BY, V)                                                                    \
    switch (op) {                                                                          \
    case QEW_ADD: ew_rows(&e, V, a, sa, b, sb, brow, bfirst, y, yb, n, QEW_ADD, BY); break; \
    case QEW_SUB: ew_rows(&e, V, a, sa, b, sb, brow, bfirst, y, yb, n, QEW_SUB, BY); break; \
    case QEW_MUL: ew_rows(&e, V, a, sa, b, sb, brow, bfirst, y, yb, n, QEW_MUL, BY); break; \
    case QEW_DIV: ew_rows(&e, V, a, sa, b, sb, brow, bfirst, y, yb, n, QEW_DIV, BY); break; \
    case QEW_RELU: ew_rows(&e, V, a, sa, b, sb, brow, bfirst, y, yb, n, QEW_RELU, BY); break; \
    default: ew_rows(&e, V, a, sa, b, sb, brow, bfirst, y, yb, n, QEW_CLIP, BY); break;     \
    }

Q512 static void ew_qdq_512(int op, const float *a, int sa, const float *b, int sb, int64_t brow,
                            int64_t bfirst, float lo, float hi, float *y, uint8_t *yb, int64_t n,
                            const qparam_t *p, int floats)
{
    ewc e;
    ewc_init(&e, a, b, lo, hi, p, yb && !floats);
    EW_SWITCH(0, NULL)
}

/* ew_qdq_512 with operands from bytes: a copy of its loops (the float ones
 * stay as they were). */
Q512 static void ew_qdq_512_in(int op, const float *a, int sa, const float *b, int sb,
                               const quant_ew_in *in, float lo, float hi, float *y, uint8_t *yb,
                               int64_t n, const qparam_t *p, int floats)
{
    ewc e;
    ewb v;
    const int64_t brow = in->brow, bfirst = in->bfirst;
    v.ab = sa ? in->ab : NULL, v.bb = sb ? in->bb : NULL;
    v.az = _mm512_set1_epi32(v.ab ? in->ag->zp + 128 : 0);
    v.as = _mm512_set1_ps(v.ab ? in->ag->scale : 0.0f);
    v.bz = _mm512_set1_epi32(v.bb ? in->bg->zp + 128 : 0);
    v.bs = _mm512_set1_ps(v.bb ? in->bg->scale : 0.0f);
    ewc_init(&e, v.ab ? NULL : a, v.bb ? NULL : b, lo, hi, p, yb && !floats);
    EW_SWITCH(1, &v)
}
#undef EW_SWITCH

/* x + bias requantized by p (ew_t16, as ew_qdq_512 with QEW_ADD), its
 * q + 128 through a chain's byte table (the permutes of lut8_bytes) and the
 * entry dequantized by the table's grid: in registers, 16 values a step. */
QVBMI static void add_lut8_512(const float *x, float bias, int64_t n, const qparam_t *p,
                               const quant_lut8 *t, float *y)
{
    ewc e;
    ewc_init(&e, NULL, &bias, 0, 0, p, 0);
    const lut8c l = {
        .t0 = _mm512_loadu_si512(t->q), .t1 = _mm512_loadu_si512(t->q + 64),
        .t2 = _mm512_loadu_si512(t->q + 128), .t3 = _mm512_loadu_si512(t->q + 192),
        .top = _mm512_set1_epi8((char)0x80), .zq = _mm512_set1_epi32(t->grid.zp + 128),
        .vs = _mm512_set1_ps(t->grid.scale),
    };
    for (int64_t i = 0; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512 t16 = ew_t16(&e, ew16(&e, _mm512_maskz_loadu_ps(m, x + i), e.b0, QEW_ADD));
        __m512i ix = ew_bytes16(&e, t16);
        __m512i lo = _mm512_maskz_permutex2var_epi8(LUT8_LOW, l.t0, ix, l.t1);
        __m512i hi = _mm512_maskz_permutex2var_epi8(LUT8_LOW, l.t2, ix, l.t3);
        __m512i b = _mm512_mask_blend_epi8(_mm512_test_epi8_mask(ix, l.top), lo, hi);
        _mm512_mask_storeu_ps(y + i, m, lut8_float(&l, b));
    }
}

/* The grid test of lut_map_512 and grid_bytes_512: lanes m of v as q - zp
 * (rounded, clamped), and *eq the lanes whose (q - zp) * s is v bit for bit. */
typedef struct ongrid512 {
    __m512 s, inv;
    __m512i lo, hi;
} ongrid512;

Q512 static inline void ongrid512_init(ongrid512 *k, const qparam_t *p)
{
    k->s = _mm512_set1_ps(p->scale);
    k->inv = _mm512_set1_ps(1.0f / p->scale);
    k->lo = _mm512_set1_epi32(-128 - p->zp);
    k->hi = _mm512_set1_epi32(127 - p->zp);
}

Q512 static inline __m512i ongrid512_q(const ongrid512 *k, __m512 v, __mmask16 m,
                                       __mmask16 *eq)
{
    const int rn = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    __m512i c = _mm512_cvt_roundps_epi32(_mm512_mul_ps(v, k->inv), rn);
    c = _mm512_min_epi32(_mm512_max_epi32(c, k->lo), k->hi);
    __m512 g = _mm512_mul_ps(_mm512_cvtepi32_ps(c), k->s);
    *eq = _mm512_mask_cmpeq_epi32_mask(m, _mm512_castps_si512(g), _mm512_castps_si512(v));
    return c;
}

/* quant_lut_map on 16 lanes at a time: q - zp by one rounding of x / s (on
 * the grid x = (q - zp) * s, so the product is within 2^-15 of an integer),
 * clamped, and accepted only if it gives x back bit for bit (-0 and NaN do
 * not). */
Q512 static int64_t lut_map_512(const float *x, int64_t n, const qparam_t *p, const float *lut,
                                float *y)
{
    const __m512i off = _mm512_set1_epi32(128 + p->zp);
    ongrid512 k;
    ongrid512_init(&k, p);
    lut512 tab;
    lut512_load(&tab, lut);

    for (int64_t i = 0; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1), eq;
        __m512i c = ongrid512_q(&k, _mm512_maskz_loadu_ps(m, x + i), m, &eq);
        const int stop = eq != m;
        if (stop) /* the lanes before the first one off the grid, then stop */
            m = (__mmask16)((1u << __builtin_ctz(~(unsigned)eq & m)) - 1);
        _mm512_mask_storeu_ps(y + i, m, lut512_get(&tab, _mm512_add_epi32(c, off)));
        if (stop)
            return i + __builtin_popcount(m);
    }
    return n;
}

/* quant_grid_bytes on 16 lanes at a time, as lut_map_512 finds q - zp. */
Q512 __attribute__((target("avx512bw"))) static int64_t grid_bytes_512(const float *x,
                                                                       int64_t n,
                                                                       const qparam_t *p,
                                                                       uint8_t *out)
{
    const __m512i off = _mm512_set1_epi32(128 + p->zp);
    ongrid512 k;
    ongrid512_init(&k, p);

    int64_t i = 0;
    /* whole vectors: a plain 16-byte store (a masked narrowing store is
     * microcoded on some CPUs) */
    for (; i + 16 <= n; i += 16) {
        __mmask16 eq;
        __m512i c = ongrid512_q(&k, _mm512_loadu_ps(x + i), 0xffff, &eq);
        if (eq != 0xffff)
            break;
        _mm_storeu_si128((__m128i *)(out + i), _mm512_cvtepi32_epi8(_mm512_add_epi32(c, off)));
    }
    for (; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1), eq;
        __m512i c = ongrid512_q(&k, _mm512_maskz_loadu_ps(m, x + i), m, &eq);
        const int stop = eq != m;
        if (stop) /* the lanes before the first one off the grid, then stop */
            m = (__mmask16)((1u << __builtin_ctz(~(unsigned)eq & m)) - 1);
        _mm512_mask_cvtepi32_storeu_epi8(out + i, m, _mm512_add_epi32(c, off));
        if (stop)
            return i + __builtin_popcount(m);
    }
    return n;
}
#endif

static int have_512(void)
{
#ifdef Q8C_512
    return cpu_512() & 1;
#else
    return 0;
#endif
}

static void q8c(const float *x, float *out, int64_t n, const qparam_t *p, int deq)
{
    const float s = p->scale, zpf = (float)p->zp;
#ifdef Q8C_512
    if (have_512() && isfinite(1.0f / s)) {
        q8c_512(x, out, n, s, zpf, deq);
        return;
    }
#endif
    q8c_generic(x, out, n, s, zpf, deq);
}

/* r's bytes from its finished floats, each on grid bg: quantizing such a
 * value gives back its q exactly (quant_grid_bytes_exact). */
static void rows_bytes(const epi_rows *r)
{
    if (r->b)
        quant_q8_bytes(r->y, r->rows, r->n, r->ldy, r->bg, r->b, r->ldb);
}

/* The rows of r with out (p, may be NULL), a float table or its bytes. */
static void rows_run(const epi_rows *r, const float *lut, const quant_lut8 *lut8)
{
    const qparam_t *out = r->p;
#ifdef Q8C_512
    if (have_512() && (!out || isfinite(1.0f / out->scale))) {
        if (out && lut && lut8 && have_vbmi())
            rows_512_grid8(r, lut, lut8);
        else if (out && (!lut || !r->b))
            rows_512_grid(r, lut);
        else if (out) { /* a float table: the bytes from its floats */
            epi_rows f = *r;
            f.b = NULL;
            rows_512_grid(&f, lut);
            rows_bytes(r);
        } else
            for (int64_t k = 0; k < r->rows; k++)
                row_512_exact(r->x + k * r->ldx, r->y + k * r->ldy, r->n, rows_bias(r, k),
                              r->scale[k], NULL, NULL, -128, 127);
        return;
    }
#else
    (void)lut8;
#endif
    for (int64_t row = 0; row < r->rows; row++) {
        const float *x = r->x + row * r->ldx;
        float *y = r->y + row * r->ldy;
        double bias = rows_bias(r, row), s = r->scale[row];
        for (int64_t k = 0; k < r->n; k++)
            y[k] = (float)(((double)x[k] + bias) * s);
        if (!out)
            continue;
        if (!lut && r->qlo == -128 && r->qhi == 127) { /* vectorised */
            quant_qdq(y, r->n, out);
            continue;
        }
        for (int64_t k = 0; k < r->n; k++) {
            int q = quant_q8(y[k], out);
            q = q < r->qlo ? r->qlo : q > r->qhi ? r->qhi : q;
            y[k] = lut ? lut[q + 128] : quant_dq8((int8_t)q, out);
        }
    }
    rows_bytes(r);
}

void quant_epilogue_rows_bytes(const float *x, int64_t ldx, float *y, int64_t ldy, int64_t rows,
                               int64_t n, const int32_t *bias, const double *scale,
                               const qparam_t *out, const float *lut, const quant_lut8 *lut8,
                               int qlo, int qhi, uint8_t *b, int64_t ldb, int floats)
{
    epi_rows r = {.x = x, .y = y, .ldx = ldx, .ldy = ldy, .rows = rows, .n = n, .bias = bias,
                 .scale = scale, .p = out, .qlo = qlo < -128 ? -128 : qlo,
                 .qhi = qhi > 127 ? 127 : qhi};
    const qparam_t *bg = b ? quant_epilogue_byte_grid(out, lut, lut8) : NULL;
    if (bg)
        r.b = b, r.ldb = ldb, r.bg = bg, r.nof = !floats;
    rows_run(&r, out ? lut : NULL, out ? lut8 : NULL);
}

void quant_epilogue_rows(const float *x, int64_t ldx, float *y, int64_t ldy, int64_t rows,
                         int64_t n, const int32_t *bias, const double *scale,
                         const qparam_t *out, const float *lut, const quant_lut8 *lut8, int qlo,
                         int qhi)
{
    quant_epilogue_rows_bytes(x, ldx, y, ldy, rows, n, bias, scale, out, lut, lut8, qlo, qhi,
                              NULL, 0, 1);
}

const qparam_t *quant_epilogue_byte_grid(const qparam_t *out, const float *lut,
                                         const quant_lut8 *lut8)
{
    const qparam_t *bg = out && lut ? (lut8 ? &lut8->grid : NULL) : out;
    return bg && quant_grid_bytes_exact(bg) ? bg : NULL;
}

int quant_grid_bytes_exact(const qparam_t *p)
{
    /* (q - zp) * scale then stays a normal float for every q != zp, and 1 /
     * scale finite: the quotient is within 255 * 2^-23 of q - zp */
    return p->scale >= 0x1p-100f && p->scale <= 0x1p100f && p->zp >= -128 && p->zp <= 127;
}

void quant_epilogue_row(const float *x, float *y, int64_t n, int32_t bias, double s,
                        const qparam_t *out, const float *lut, const quant_lut8 *lut8, int qlo,
                        int qhi)
{
    quant_epilogue_rows(x, 0, y, 0, 1, n, &bias, &s, out, lut, lut8, qlo, qhi);
}

int quant_lut8_make(const float *lut, const qparam_t *grid, quant_lut8 *t)
{
    for (int i = 0; i < 256; i++) {
        float r = roundf(lut[i] / grid->scale) + (float)grid->zp;
        if (!(r >= -128.0f && r <= 127.0f))
            return 0;
        float back = quant_dq8((int8_t)r, grid);
        if (memcmp(&back, &lut[i], sizeof(float)) != 0)
            return 0;
        t->q[i] = (uint8_t)((int)r + 128);
    }
    t->grid = *grid;
    return 1;
}

void quant_qdq(float *v, int64_t n, const qparam_t *p)
{
    q8c(v, v, n, p, 1);
}

void quant_q8_centered(const float *x, float *out, int64_t n, const qparam_t *p)
{
    q8c(x, out, n, p, 0);
}

int quant_ew_qdq_in(int op, const float *a, int sa, const float *b, int sb,
                    const quant_ew_in *in, float lo, float hi, float *y, uint8_t *yb, int64_t n,
                    const qparam_t *p, int floats)
{
#ifdef Q8C_512
    /* the grid ew_qdq_512's rounding needs (quant_grid_bytes_exact's) */
    if (have_512() && quant_grid_bytes_exact(p)) {
        if (n > 0 && in && ((sa && in->ab) || (sb && in->bb)))
            ew_qdq_512_in(op, a, sa, b, sb, in, lo, hi, y, yb, n, p, floats);
        else if (n > 0)
            ew_qdq_512(op, a, sa, b, sb, in ? in->brow : 0, in ? in->bfirst : 0, lo, hi, y, yb,
                       n, p, floats);
        return 1;
    }
#endif
    (void)op, (void)a, (void)sa, (void)b, (void)sb, (void)in, (void)lo, (void)hi, (void)y;
    (void)yb, (void)n, (void)floats;
    return 0;
}

int quant_add_lut8(const float *x, float bias, int64_t n, const qparam_t *p,
                   const quant_lut8 *t, float *y)
{
#ifdef Q8C_512
    if (have_512() && have_vbmi() && quant_grid_bytes_exact(p)) {
        if (n > 0)
            add_lut8_512(x, bias, n, p, t, y);
        return 1;
    }
#endif
    (void)x, (void)bias, (void)n, (void)p, (void)t, (void)y;
    return 0;
}

int quant_ew_qdq_bytes(int op, const float *a, int sa, const float *b, int sb, float lo,
                       float hi, float *y, uint8_t *yb, int64_t n, const qparam_t *p,
                       int floats)
{
    return quant_ew_qdq_in(op, a, sa, b, sb, NULL, lo, hi, y, yb, n, p, floats);
}

int quant_ew_qdq(int op, const float *a, int sa, const float *b, int sb, float lo, float hi,
                 float *y, int64_t n, const qparam_t *p)
{
    return quant_ew_qdq_bytes(op, a, sa, b, sb, lo, hi, y, NULL, n, p, 1);
}

/* x as q - zp in *c when (q - zp) * s gives x back bit for bit, q in int8 */
static int on_grid(float x, const qparam_t *p, float inv, int32_t *c)
{
    float r = rintf(x * inv), g;
    if (!(r >= (float)(-128 - p->zp) && r <= (float)(127 - p->zp)))
        return 0;
    *c = (int32_t)r;
    g = (float)*c * p->scale;
    return !memcmp(&g, &x, sizeof(g));
}

int64_t quant_lut_map(const float *x, int64_t n, const qparam_t *p, const float *lut, float *y)
{
    if (!isfinite(1.0f / p->scale))
        return 0;
#ifdef Q8C_512
    if (have_512())
        return lut_map_512(x, n, p, lut, y);
#endif
    const float inv = 1.0f / p->scale;
    for (int64_t i = 0; i < n; i++) {
        int32_t c;
        if (!on_grid(x[i], p, inv, &c))
            return i;
        y[i] = lut[c + 128 + p->zp];
    }
    return n;
}

int64_t quant_grid_bytes(const float *x, int64_t n, const qparam_t *p, uint8_t *out)
{
    if (!isfinite(1.0f / p->scale))
        return 0;
#ifdef Q8C_512
    if (have_512() && (cpu_512() & 2))
        return grid_bytes_512(x, n, p, out);
#endif
    const float inv = 1.0f / p->scale;
    for (int64_t i = 0; i < n; i++) {
        int32_t c;
        if (!on_grid(x[i], p, inv, &c))
            return i;
        out[i] = (uint8_t)(c + 128 + p->zp);
    }
    return n;
}

void quant_q8_quads(const float *const *x, int nch, int64_t n, const qparam_t *p, uint32_t *out)
{
#ifdef Q8C_512
    if (have_512() && isfinite(1.0f / p->scale)) {
        quads_512(x, nch, n, p, out);
        return;
    }
#endif
    for (int64_t i = 0; i < n; i++) {
        uint32_t w = 0;
        for (int j = 0; j < 4; j++)
            w |= (uint32_t)(j < nch ? quant_q8(x[j][i], p) + 128 : p->zp + 128) << (8 * j);
        out[i] = w;
    }
}

#ifdef Q8C_512
/* 64 bytes at a time: the index's low 7 bits pick from each 128-byte half
 * (two-register permutes), its top bit the half. */
QVBMI static void bytes_map_512(const uint8_t *tab, const uint8_t *src, uint8_t *dst, int64_t n)
{
    const __m512i t0 = _mm512_loadu_si512(tab), t1 = _mm512_loadu_si512(tab + 64);
    const __m512i t2 = _mm512_loadu_si512(tab + 128), t3 = _mm512_loadu_si512(tab + 192);
    for (int64_t i = 0; i < n; i += 64) {
        __mmask64 m = n - i >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (n - i)) - 1);
        __m512i ix = _mm512_maskz_loadu_epi8(m, src + i);
        __m512i lo = _mm512_permutex2var_epi8(t0, ix, t1), hi = _mm512_permutex2var_epi8(t2, ix, t3);
        _mm512_mask_storeu_epi8(dst + i, m, _mm512_mask_blend_epi8(_mm512_movepi8_mask(ix), lo, hi));
    }
}
#endif

void quant_bytes_map(const uint8_t *tab, const uint8_t *src, uint8_t *dst, int64_t n)
{
#ifdef Q8C_512
    if (have_512() && have_vbmi()) {
        bytes_map_512(tab, src, dst, n);
        return;
    }
#endif
    for (int64_t i = 0; i < n; i++)
        dst[i] = tab[src[i]];
}

void quant_q8_bytes(const float *x, int64_t rows, int64_t n, int64_t ldx, const qparam_t *p,
                    uint8_t *out, int64_t ldo)
{
#ifdef Q8C_512
    if (have_512() && (cpu_512() & 2) && isfinite(1.0f / p->scale)) {
        bytes_512(x, rows, n, ldx, p, out, ldo);
        return;
    }
#endif
    for (int64_t r = 0; r < rows; r++)
        for (int64_t i = 0; i < n; i++)
            out[r * ldo + i] = (uint8_t)(quant_q8(x[r * ldx + i], p) + 128);
}

static const char *const type_names[] = {"fp32", "fp16", "i8"};
static const char *const algo_names[] = {"normal", "kl_divergence", "mmse"};
static const char *const method_names[] = {"channel", "layer", "npu"};

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
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, method_names[i]))
            return i;
    return -1;
}

const char *quant_type_name(int t) { return t >= 0 && t < 3 ? type_names[t] : "?"; }
const char *quant_algo_name(int a) { return a >= 0 && a < 3 ? algo_names[a] : "?"; }
const char *quant_method_name(int m) { return m >= 0 && m < 3 ? method_names[m] : "?"; }
