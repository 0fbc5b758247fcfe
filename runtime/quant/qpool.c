/* runtime/quant/qpool.c — the pools of the int8 simulation on their
 * input's bytes (q + 128): MaxPool, and GlobalAveragePool (below).
 *
 * A MaxPool whose every window holds an input element copies input values,
 * and on one grid the float (q - zp) * scale grows with q: the max of a
 * window's floats is the float of the max of its bytes. So the pool runs on
 * the bytes its producer wrote (a quarter of the memory, 64 lanes to a
 * vector) and writes the output's bytes, and its floats from them where
 * someone reads the floats. Byte 0 is below every value, so padding is 0
 * and each window lies inside the padded plane; max is separable: for each
 * output row the maxima over the window's rows first, then over its columns. */
#include "runtime/quant/quant.h"
#include "runtime/exec/kernels.h"

#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define MP512 1
#endif

typedef struct mp_job {
    const node_window *w;
    int64_t Hp, Wp;       /* the padded plane: pads, input, pads to the last window */
    int pad;              /* 0: the input plane is the padded one */
    int v512;             /* AVX512-BW rows, */
    int pair;             /* and the 2x2 stride 2 window (pair_row_512) */
    const uint8_t *x;
    uint8_t *y;
    float *yf;            /* the floats too, or NULL */
    const qparam_t *grid;
} mp_job;

/* Row r's n maxima over taps k * d, at stride s: t[o] = max_k r[o * s + k * d]. */
static void row_max(const uint8_t *r, int64_t n, int64_t K, int64_t s, int64_t d, uint8_t *t)
{
    for (int64_t o = 0; o < n; o++) {
        uint8_t m = 0;
        for (int64_t k = 0; k < K; k++)
            m = m > r[o * s + k * d] ? m : r[o * s + k * d];
        t[o] = m;
    }
}

/* y[i] = max over rows r, r + ld, ... (K of them) at column i < n. */
static void col_max(const uint8_t *r, int64_t ld, int64_t K, int64_t n, uint8_t *y)
{
    memcpy(y, r, (size_t)n);
    for (int64_t k = 1; k < K; k++)
        for (int64_t i = 0; i < n; i++)
            y[i] = y[i] > r[k * ld + i] ? y[i] : r[k * ld + i];
}

#ifdef MP512
#define MPT __attribute__((target("avx512f,avx512bw"), optimize("O3")))
/* row_max for stride 1 (64 outputs a vector) and 2 (32: a tap's bytes are
 * the even bytes of 64, vpmovwb); every load masked to the row's bytes. */
MPT static int row_max_512(const uint8_t *r, int64_t n, int64_t K, int64_t s, int64_t d,
                           uint8_t *t)
{
    if (s == 1) {
        for (int64_t o = 0; o < n; o += 64) {
            __mmask64 m = n - o >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (n - o)) - 1;
            __m512i a = _mm512_maskz_loadu_epi8(m, r + o);
            for (int64_t k = 1; k < K; k++)
                a = _mm512_max_epu8(a, _mm512_maskz_loadu_epi8(m, r + o + k * d));
            _mm512_mask_storeu_epi8(t + o, m, a);
        }
        return 1;
    }
    if (s == 2) {
        for (int64_t o = 0; o < n; o += 32) {
            int64_t c = n - o >= 32 ? 32 : n - o;
            /* bytes 2 i of 2 c - 1: the last word's high byte may lie past the row */
            __mmask64 m = ((__mmask64)1 << (2 * c - 1)) - 1;
            __m256i a = _mm512_cvtepi16_epi8(_mm512_maskz_loadu_epi8(m, r + 2 * o));
            for (int64_t k = 1; k < K; k++)
                a = _mm256_max_epu8(
                    a, _mm512_cvtepi16_epi8(_mm512_maskz_loadu_epi8(m, r + 2 * o + k * d)));
            _mm512_mask_storeu_epi8(t + o, ((__mmask64)1 << c) - 1, _mm512_castsi256_si512(a));
        }
        return 1;
    }
    return 0;
}

/* The 2x2, stride 2 pool (no dilation) of output row o: the two rows' max,
 * then each 16-bit lane's two bytes', its low byte kept (vpmovwb); all in
 * registers, 32 outputs a step. */
MPT static void pair_row_512(const uint8_t *r, int64_t ld, int64_t n, uint8_t *y)
{
    for (int64_t o = 0; o < n; o += 32) {
        int64_t c = n - o >= 32 ? 32 : n - o;
        __mmask64 m = ((__mmask64)1 << (2 * c - 1) << 1) - 1; /* 2 c bytes */
        __m512i a = _mm512_max_epu8(_mm512_maskz_loadu_epi8(m, r + 2 * o),
                                    _mm512_maskz_loadu_epi8(m, r + ld + 2 * o));
        a = _mm512_max_epu8(a, _mm512_srli_epi16(a, 8));
        _mm512_mask_storeu_epi8(y + o, ((__mmask64)1 << c) - 1,
                                _mm512_castsi256_si512(_mm512_cvtepi16_epi8(a)));
    }
}

MPT static void col_max_512(const uint8_t *r, int64_t ld, int64_t K, int64_t n, uint8_t *y)
{
    for (int64_t i = 0; i < n; i += 64) {
        __mmask64 m = n - i >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (n - i)) - 1;
        __m512i a = _mm512_maskz_loadu_epi8(m, r + i);
        for (int64_t k = 1; k < K; k++)
            a = _mm512_max_epu8(a, _mm512_maskz_loadu_epi8(m, r + k * ld + i));
        _mm512_mask_storeu_epi8(y + i, m, a);
    }
}
#endif

/* Plane x into the padded plane P (zeros around it). */
static void pad_plane(const mp_job *j, const uint8_t *x, uint8_t *P)
{
    const node_window *w = j->w;
    const int64_t H = w->in[1], W = w->in[2], pt = w->pb[1], pl = w->pb[2];
    memset(P, 0, (size_t)(j->Hp * j->Wp));
    for (int64_t h = 0; h < H; h++)
        memcpy(P + (pt + h) * j->Wp + pl, x + h * W, (size_t)W);
}

static void mp_range(void *arg, int64_t p0, int64_t p1)
{
    const mp_job *j = arg;
    const node_window *w = j->w;
    const int64_t HW = w->in[1] * w->in[2], OH = w->out[1], OW = w->out[2], OHW = OH * OW;
    const int64_t Wp = j->Wp, K = w->k[2], s = w->s[2], d = w->d[2];
    uint8_t *P = kernel_scratch(SCRATCH_Q_BLOCK, (size_t)((j->Hp + OH) * Wp + 64));
    uint8_t *t = P + j->Hp * Wp; /* the rows' column maxima, OH x Wp */
    for (int64_t p = p0; p < p1; p++) {
        const uint8_t *src = j->x + p * HW;
        uint8_t *y = j->y + p * OHW;
        if (j->pad) {
            pad_plane(j, src, P);
            src = P;
        }
#ifdef MP512
        if (j->v512 && j->pair) {
            for (int64_t o = 0; o < OH; o++)
                pair_row_512(src + 2 * o * Wp, Wp, OW, y + o * OW);
        } else if (j->v512) {
            /* every row's column maxima before the taps read them back (a
             * load right after the store that it overlaps would wait) */
            for (int64_t o = 0; o < OH; o++)
                col_max_512(src + o * w->s[1] * Wp, w->d[1] * Wp, w->k[1], Wp, t + o * Wp);
            for (int64_t o = 0; o < OH; o++)
                if (!row_max_512(t + o * Wp, OW, K, s, d, y + o * OW))
                    row_max(t + o * Wp, OW, K, s, d, y + o * OW);
        } else
#endif
        {
            for (int64_t o = 0; o < OH; o++) {
                col_max(src + o * w->s[1] * Wp, w->d[1] * Wp, w->k[1], Wp, t + o * Wp);
                row_max(t + o * Wp, OW, K, s, d, y + o * OW);
            }
        }
    }
    if (j->yf)
        quant_dq8_bytes(j->y + p0 * OHW, (p1 - p0) * OHW, j->grid, j->yf + p0 * OHW);
}

int quant_window_covered(const node_window *w)
{
    for (int a = 0; a < 3; a++)
        for (int64_t i = 0; i < w->out[a]; i++) {
            int64_t j = 0, at = i * w->s[a] - w->pb[a];
            while (j < w->k[a] && (at + j * w->d[a] < 0 || at + j * w->d[a] >= w->in[a]))
                j++;
            if (j == w->k[a])
                return 0;
        }
    return 1;
}

int quant_maxpool_bytes_ok(const node_window *w)
{
    if (w->nsp != 2 || w->k[0] != 1 || w->out[0] != 1 || w->in[0] != 1)
        return 0;
    for (int a = 1; a < 3; a++)
        /* up to 3 taps: YOLOX's SPP pools (5 to 13 taps at stride 1) ran
         * slower on bytes than the fp32 kernel on floats */
        if (w->k[a] < 1 || w->k[a] > 3 || w->s[a] < 1 || w->d[a] < 1 || w->in[a] < 1 ||
            w->out[a] < 1 || w->pb[a] < 0 || w->s[a] > 4096 || w->d[a] > 4096)
            return 0;
    return quant_window_covered(w);
}

void quant_maxpool_bytes(op_ctx *c, const node_window *w, int64_t planes, const uint8_t *x,
                         uint8_t *y, float *yf, const qparam_t *grid)
{
    mp_job j = {.w = w, .x = x, .y = y, .yf = yf, .grid = grid};
    /* rows and columns up to the last window's last tap */
    int64_t need[3];
    for (int a = 1; a < 3; a++) {
        need[a] = (w->out[a] - 1) * w->s[a] + (w->k[a] - 1) * w->d[a] + 1;
        int64_t have = w->pb[a] + w->in[a];
        need[a] = need[a] > have ? need[a] : have;
    }
    j.Hp = need[1], j.Wp = need[2];
    j.pad = w->pb[1] || w->pb[2] || j.Hp != w->in[1] || j.Wp != w->in[2];
#ifdef MP512
    j.v512 = quant_isa() == QISA_VNNI; /* AVX512-BW with it; RT_QISA lowers it */
#endif
    j.pair = w->k[1] == 2 && w->k[2] == 2 && w->s[1] == 2 && w->s[2] == 2 && w->d[1] == 1 &&
             w->d[2] == 1;
    int64_t work = w->out[1] * (w->k[1] * j.Wp + w->out[2] * w->k[2]);
    op_parallel_for_work(c, planes, work, mp_range, &j);
}

/* ---- GlobalAveragePool on bytes ----
 * The fp32 kernel (ops_pool.c) sums a plane in four partial sums, s[k] over
 * x[4 i + k], the tail into s[0], then takes ((s0 + s1) + (s2 + s3)) / n.
 * Here each x is made from its byte, (q - zp) * scale (the float its
 * producer writes beside it), and summed by the same adds in the same
 * order: the same means to the bit, from a quarter of the memory. */
#define GAPB_PLANES 8

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GAPHOT \
    __attribute__((optimize("O3"), target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define GAPHOT __attribute__((optimize("O3")))
#endif

typedef float gapb_v4 __attribute__((vector_size(16)));

typedef struct gapb_job {
    const uint8_t *x;
    int64_t n;
    const qparam_t *grid;
    float *y;
} gapb_job;

static inline __attribute__((always_inline)) gapb_v4 gapb_quad(const uint8_t *b, float z,
                                                              float s)
{
    gapb_v4 v = {(float)b[0] - z, (float)b[1] - z, (float)b[2] - z, (float)b[3] - z};
    return v * s;
}

/* np (a constant once inlined) planes of n bytes from x, their means to y */
static inline __attribute__((always_inline)) void gapb_planes(const uint8_t *x, int64_t n,
                                                              float z, float sc, float *y,
                                                              int np)
{
    gapb_v4 s[GAPB_PLANES];
    for (int c = 0; c < np; c++)
        s[c] = (gapb_v4){0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int c = 0; c < np; c++)
            s[c] += gapb_quad(x + c * n + i, z, sc);
    for (int c = 0; c < np; c++) {
        float s0 = s[c][0];
        for (int64_t k = i; k < n; k++)
            s0 += ((float)x[c * n + k] - z) * sc;
        y[c] = ((s0 + s[c][1]) + (s[c][2] + s[c][3])) / (float)n;
    }
}

#ifdef MP512
/* Four planes' sums side by side: 128-bit lane p of s holds plane p's four
 * partial sums. Sixteen bytes of each plane (four quads) are a 4 x 4
 * transpose of 32-bit words from vectors of one quad of every plane; each
 * of those is made floats and added in turn, quad after quad, as the fp32
 * kernel adds them. The sums to part (plane p's at 4 p); returns the
 * values done (n rounded down to 16). */
__attribute__((target("avx512f"), optimize("O3"))) static int64_t
gapb_four(const uint8_t *x, int64_t n, float z, float sc, float *part)
{
    const __m512i vz = _mm512_set1_epi32((int32_t)z);
    const __m512 vs = _mm512_set1_ps(sc);
    __m512 acc = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i r0 = _mm_loadu_si128((const __m128i *)(x + i));
        __m128i r1 = _mm_loadu_si128((const __m128i *)(x + n + i));
        __m128i r2 = _mm_loadu_si128((const __m128i *)(x + 2 * n + i));
        __m128i r3 = _mm_loadu_si128((const __m128i *)(x + 3 * n + i));
        __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpackhi_epi32(r0, r1);
        __m128i t2 = _mm_unpacklo_epi32(r2, r3), t3 = _mm_unpackhi_epi32(r2, r3);
        __m128i q[4] = {_mm_unpacklo_epi64(t0, t2), _mm_unpackhi_epi64(t0, t2),
                        _mm_unpacklo_epi64(t1, t3), _mm_unpackhi_epi64(t1, t3)};
        for (int k = 0; k < 4; k++)
            acc = _mm512_add_ps(
                acc, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_cvtepu8_epi32(q[k]), vz)),
                                   vs));
    }
    _mm512_storeu_ps(part, acc);
    return i;
}
#endif

GAPHOT static void gapb_range(void *arg, int64_t t0, int64_t t1)
{
    const gapb_job *j = arg;
    /* (q + 128) - (zp + 128) is exact in float, as q - zp is */
    const float z = (float)(j->grid->zp + 128), sc = j->grid->scale;
    const int64_t n = j->n;
    int64_t t = t0;
#ifdef MP512
    if (quant_isa() == QISA_VNNI) /* AVX-512 with it; RT_QISA lowers it */
        for (; t + 4 <= t1; t += 4) {
            float part[16];
            int64_t i = gapb_four(j->x + t * n, n, z, sc, part);
            for (int p = 0; p < 4; p++) { /* the rest of each plane as gapb_planes does */
                const uint8_t *x = j->x + (t + p) * n;
                gapb_v4 v = {part[4 * p], part[4 * p + 1], part[4 * p + 2], part[4 * p + 3]};
                int64_t k = i;
                for (; k + 4 <= n; k += 4)
                    v += gapb_quad(x + k, z, sc);
                float s0 = v[0];
                for (; k < n; k++)
                    s0 += ((float)x[k] - z) * sc;
                j->y[t + p] = ((s0 + v[1]) + (v[2] + v[3])) / (float)n;
            }
        }
#endif
    for (; t + GAPB_PLANES <= t1; t += GAPB_PLANES)
        gapb_planes(j->x + t * n, n, z, sc, j->y + t, GAPB_PLANES);
    if (t + 4 <= t1) {
        gapb_planes(j->x + t * n, n, z, sc, j->y + t, 4);
        t += 4;
    }
    if (t + 2 <= t1) {
        gapb_planes(j->x + t * n, n, z, sc, j->y + t, 2);
        t += 2;
    }
    if (t < t1)
        gapb_planes(j->x + t * n, n, z, sc, j->y + t, 1);
}

void quant_gap_bytes(op_ctx *c, const uint8_t *x, int64_t planes, int64_t n, const qparam_t *grid,
                     float *y)
{
    if (n <= 0) {
        memset(y, 0, sizeof(float) * (size_t)(planes > 0 ? planes : 0));
        return;
    }
    gapb_job j = {x, n, grid, y};
    op_parallel_for_work(c, planes, n, gapb_range, &j);
}
