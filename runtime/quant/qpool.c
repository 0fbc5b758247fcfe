/* runtime/quant/qpool.c — MaxPool of the int8 simulation on its input's
 * bytes (q + 128).
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

/* The taps of window axis a at output i that reach an input element. */
static int64_t axis_taps(const node_window *w, int a, int64_t i)
{
    int64_t n = 0, at = i * w->s[a] - w->pb[a];
    for (int64_t k = 0; k < w->k[a]; k++)
        n += at + k * w->d[a] >= 0 && at + k * w->d[a] < w->in[a];
    return n;
}

int quant_maxpool_bytes_ok(const node_window *w)
{
    if (w->nsp != 2 || w->k[0] != 1 || w->out[0] != 1 || w->in[0] != 1)
        return 0;
    for (int a = 1; a < 3; a++) {
        /* up to 3 taps: YOLOX's SPP pools (5 to 13 taps at stride 1) ran
         * slower on bytes than the fp32 kernel on floats */
        if (w->k[a] < 1 || w->k[a] > 3 || w->s[a] < 1 || w->d[a] < 1 || w->in[a] < 1 ||
            w->out[a] < 1 || w->pb[a] < 0 || w->s[a] > 4096 || w->d[a] > 4096)
            return 0;
        for (int64_t i = 0; i < w->out[a]; i++)
            if (!axis_taps(w, a, i))
                return 0;
    }
    return 1;
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
