/* runtime/exec/ops_pool.c — MaxPool, AveragePool, GlobalAveragePool,
 * GlobalMaxPool; fp32, 1 to 3 spatial dims, one (batch, channel) plane per task.
 *
 * Geometry is kept in 3-D form (D, H, W): lower ranks get leading unit axes. */
#include "runtime/exec/kernels.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

typedef struct pool_p {
    int nsp, is_max, count_pad, col_major, want_idx;
    int64_t N, C;
    int64_t in[3], out[3], k[3], s[3], d[3], pb[3], pe[3];
    int64_t Pin, Pout;
} pool_p;

/* Small tensors run on the calling thread: waking the pool costs more. */
static void par_for(op_ctx *c, int64_t n, int64_t work, range_fn fn, void *arg)
{
    if (work < (1 << 16))
        fn(arg, 0, n);
    else
        op_parallel_for(c, n, fn, arg);
}

static int input_check(graph_t *g, const node_t *n, tensor_t **xo, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 1, 1, err, errlen);
    if (rc)
        return rc;
    tensor_t *x = node_input(g, n, 0);
    if (x->dtype != DT_FLOAT)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): dtype %s not supported (fp32 only)",
                      n->name, n->op, dtype_name(x->dtype));
    if (x->ndim < 3 || x->ndim > 5)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): input rank %d not supported (3..5)",
                      n->name, n->op, x->ndim);
    for (int i = 0; i < x->ndim; i++)
        if (x->dims[i] < 0)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): input shape unknown", n->name, n->op);
    *xo = x;
    return RT_OK;
}

static int pool_geom(graph_t *g, const node_t *n, int is_max, pool_p *p, char *err, size_t errlen)
{
    tensor_t *x = NULL;
    int rc = input_check(g, n, &x, err, errlen);
    if (rc)
        return rc;
    memset(p, 0, sizeof *p);
    node_window win;
    rc = node_window_read(n, x->ndim - 2, NULL, x->dims + 2, &win, err, errlen);
    if (rc)
        return rc;
    window_take(&win, p->in, p->out, p->k, p->s, p->d, p->pb, p->pe);
    p->nsp = win.nsp;
    p->is_max = is_max;
    p->N = x->dims[0];
    p->C = x->dims[1];
    p->count_pad = node_attr_int(n, "count_include_pad", 0) != 0;
    p->col_major = node_attr_int(n, "storage_order", 0) != 0;
    p->Pin = p->in[0] * p->in[1] * p->in[2];
    p->Pout = p->out[0] * p->out[1] * p->out[2];
    return RT_OK;
}

static int pool_infer_common(graph_t *g, node_t *n, int is_max, char *err, size_t errlen)
{
    pool_p p;
    int rc = pool_geom(g, n, is_max, &p, err, errlen);
    if (rc)
        return rc;
    int64_t dims[5];
    int rank = window_out_dims(p.N, p.C, p.nsp, p.out, dims);
    tensor_set_shape(node_output(g, n, 0), DT_FLOAT, rank, dims);
    if (n->n_out > 1 && n->out[1] >= 0) {
        if (!is_max)
            return rt_err(err, errlen, RT_EFORMAT, "node '%s' (%s): too many outputs", n->name, n->op);
        tensor_set_shape(node_output(g, n, 1), DT_INT64, rank, dims);
    }
    return RT_OK;
}

static int maxpool_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    return pool_infer_common(g, n, 1, err, errlen);
}

static int avgpool_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    return pool_infer_common(g, n, 0, err, errlen);
}

typedef struct pool_job {
    const pool_p *p;
    const float *x;
    float *y;
    int64_t *idx;
} pool_job;

/* Window start and clipped range [lo, hi) on one axis, in kernel taps. */
static void taps(const pool_p *p, int a, int64_t o, int64_t *start, int64_t *lo, int64_t *hi)
{
    int64_t st = o * p->s[a] - p->pb[a];
    int64_t l = 0, h = p->k[a];
    while (l < h && st + l * p->d[a] < 0)
        l++;
    while (h > l && st + (h - 1) * p->d[a] >= p->in[a])
        h--;
    *start = st;
    *lo = l;
    *hi = h;
}

static void pool_range(void *arg, int64_t t0, int64_t t1)
{
    const pool_job *j = arg;
    const pool_p *p = j->p;
    const int64_t IH = p->in[1], IW = p->in[2];

    for (int64_t t = t0; t < t1; t++) {
        const float *x = j->x + t * p->Pin;
        float *y = j->y + t * p->Pout;
        int64_t *ix = j->idx ? j->idx + t * p->Pout : NULL;
        int64_t q = 0;
        for (int64_t oz = 0; oz < p->out[0]; oz++) {
            int64_t sz, z0, z1;
            taps(p, 0, oz, &sz, &z0, &z1);
            for (int64_t oy = 0; oy < p->out[1]; oy++) {
                int64_t sy, y0, y1;
                taps(p, 1, oy, &sy, &y0, &y1);
                for (int64_t ox = 0; ox < p->out[2]; ox++, q++) {
                    int64_t sx, x0, x1;
                    taps(p, 2, ox, &sx, &x0, &x1);
                    if (p->is_max) {
                        float m = -FLT_MAX;
                        int64_t best = -1;
                        for (int64_t kz = z0; kz < z1; kz++)
                        for (int64_t ky = y0; ky < y1; ky++) {
                            int64_t iz = sz + kz * p->d[0], iy = sy + ky * p->d[1];
                            const float *row = x + (iz * IH + iy) * IW;
                            for (int64_t kx = x0; kx < x1; kx++) {
                                int64_t xx = sx + kx * p->d[2];
                                if (row[xx] > m || best < 0) {
                                    m = row[xx];
                                    best = (iz * IH + iy) * IW + xx;
                                }
                            }
                        }
                        y[q] = m;
                        if (ix) {
                            int64_t bz = best / (IH * IW), by = best / IW % IH, bx = best % IW;
                            int64_t flat = p->col_major ? (bx * IH + by) * p->in[0] + bz : best;
                            ix[q] = t * p->Pin + flat;
                        }
                    } else {
                        float s = 0.0f;
                        for (int64_t kz = z0; kz < z1; kz++)
                        for (int64_t ky = y0; ky < y1; ky++) {
                            int64_t iz = sz + kz * p->d[0], iy = sy + ky * p->d[1];
                            const float *row = x + (iz * IH + iy) * IW;
                            for (int64_t kx = x0; kx < x1; kx++)
                                s += row[sx + kx * p->d[2]];
                        }
                        int64_t cnt;
                        if (p->count_pad) {
                            /* taps inside input + pads; windows may run past the end pad in ceil mode */
                            cnt = 1;
                            for (int a = 0; a < 3; a++) {
                                int64_t o = a == 0 ? oz : a == 1 ? oy : ox;
                                int64_t st = o * p->s[a] - p->pb[a];
                                int64_t c = 0;
                                for (int64_t k = 0; k < p->k[a]; k++) {
                                    int64_t pos = st + k * p->d[a];
                                    if (pos >= -p->pb[a] && pos < p->in[a] + p->pe[a])
                                        c++;
                                }
                                cnt *= c;
                            }
                        } else {
                            cnt = (z1 - z0) * (y1 - y0) * (x1 - x0);
                        }
                        y[q] = cnt > 0 ? s / (float)cnt : 0.0f;
                    }
                }
            }
        }
    }
}

/* Max over a window is separable: a max along x for every input row, then a
 * max along y of those rows. Far fewer compares for big windows (SPP). Each
 * row is first copied into a buffer padded with -FLT_MAX (the value of an
 * all-padding window, as in pool_range), so that both passes are plain loops
 * over the output columns, which vectorise. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define POOL_HOT __attribute__((optimize("O3"), target_clones("arch=x86-64-v3", "default")))
#else
#define POOL_HOT
#endif

POOL_HOT static void maxpool_sep_range(void *arg, int64_t t0, int64_t t1)
{
    const pool_job *j = arg;
    const pool_p *p = j->p;
    const int64_t IH = p->in[1], IW = p->in[2], OH = p->out[1], OW = p->out[2];
    const int64_t sx = p->s[2], dx = p->d[2], kx = p->k[2], pl = p->pb[2];
    int64_t len = (OW - 1) * sx + (kx - 1) * dx + 1;
    if (len < pl + IW)
        len = pl + IW;
    float *tmp = xmalloc((size_t)(IH * OW + len + 1) * sizeof(float));
    float *prow = tmp + IH * OW;

    for (int64_t t = t0; t < t1; t++) {
        const float *x = j->x + t * p->Pin;
        float *y = j->y + t * p->Pout;
        for (int64_t iy = 0; iy < IH; iy++) {
            const float *row = x + iy * IW;
            float *tr = tmp + iy * OW;
            for (int64_t i = 0; i < len; i++)
                prow[i] = i >= pl && i < pl + IW ? row[i - pl] : -FLT_MAX;
            for (int64_t ox = 0; ox < OW; ox++)
                tr[ox] = -FLT_MAX;
            for (int64_t k = 0; k < kx; k++) {
                const float *src = prow + k * dx;
                if (sx == 1) {
                    for (int64_t ox = 0; ox < OW; ox++)
                        tr[ox] = src[ox] > tr[ox] ? src[ox] : tr[ox];
                } else {
                    for (int64_t ox = 0; ox < OW; ox++)
                        tr[ox] = src[ox * sx] > tr[ox] ? src[ox * sx] : tr[ox];
                }
            }
        }
        for (int64_t oy = 0; oy < OH; oy++) {
            int64_t st, lo, hi;
            taps(p, 1, oy, &st, &lo, &hi);
            float *yr = y + oy * OW;
            for (int64_t ox = 0; ox < OW; ox++)
                yr[ox] = -FLT_MAX;
            for (int64_t k = lo; k < hi; k++) {
                const float *tr = tmp + (st + k * p->d[1]) * OW;
                for (int64_t ox = 0; ox < OW; ox++)
                    yr[ox] = tr[ox] > yr[ox] ? tr[ox] : yr[ox];
            }
        }
    }
    free(tmp);
}

/* Floats of maxpool_block_range's buffer (the maxes down rows of windows). */
#define POOL_BLOCK_ROW 4096

/* Windows that tile the plane (kernel = stride, no padding, dilation 1, none
 * past the edge: LeNet's and VGG's 2x2 pools): the max down each row of
 * windows, kh contiguous rows at once, then across each window's kw columns.
 * The padded copies and the allocation of maxpool_sep_range cost more than
 * the compares on planes this small (MNIST's 8x28x28: 7 us -> 3). Rows of
 * windows are taken as many at a time as the buffer holds, across planes
 * (their outputs follow each other), so that the pass across runs once over
 * all their outputs instead of once per row of a few outputs. */
POOL_HOT static void maxpool_block_range(void *arg, int64_t t0, int64_t t1)
{
    const pool_job *j = arg;
    const pool_p *p = j->p;
    const int64_t IW = p->in[2], OH = p->out[1], OW = p->out[2], kh = p->k[1], kw = p->k[2];
    const int64_t len = OW * kw, rows = POOL_BLOCK_ROW / len, r1 = t1 * OH;
    float m[POOL_BLOCK_ROW];

    for (int64_t r0 = t0 * OH; r0 < r1; r0 += rows) {
        int64_t nr = r1 - r0 < rows ? r1 - r0 : rows;
        for (int64_t r = 0; r < nr; r++) {
            int64_t t = (r0 + r) / OH, oy = (r0 + r) % OH;
            const float *x = j->x + t * p->Pin + oy * kh * IW;
            float *mr = m + r * len;
            if (kh == 1) {
                memcpy(mr, x, (size_t)len * sizeof(float));
                continue;
            }
            for (int64_t i = 0; i < len; i++)
                mr[i] = x[IW + i] > x[i] ? x[IW + i] : x[i];
            for (int64_t ky = 2; ky < kh; ky++)
                for (int64_t i = 0; i < len; i++)
                    mr[i] = x[ky * IW + i] > mr[i] ? x[ky * IW + i] : mr[i];
        }
        float *y = j->y + r0 * OW;
        const int64_t nq = nr * OW;
        if (kw == 2) {
            for (int64_t q = 0; q < nq; q++)
                y[q] = m[2 * q + 1] > m[2 * q] ? m[2 * q + 1] : m[2 * q];
        } else if (kw == 3) {
            for (int64_t q = 0; q < nq; q++) {
                float v = m[3 * q + 1] > m[3 * q] ? m[3 * q + 1] : m[3 * q];
                y[q] = m[3 * q + 2] > v ? m[3 * q + 2] : v;
            }
        } else {
            for (int64_t q = 0; q < nq; q++) {
                float v = m[q * kw];
                for (int64_t kx = 1; kx < kw; kx++)
                    v = m[q * kw + kx] > v ? m[q * kw + kx] : v;
                y[q] = v;
            }
        }
    }
}

static int maxpool_block_ok(const pool_p *p)
{
    return p->nsp <= 2 && p->k[1] == p->s[1] && p->k[2] == p->s[2] && p->d[1] == 1 &&
           p->d[2] == 1 && p->pb[1] == 0 && p->pb[2] == 0 && p->out[1] * p->k[1] <= p->in[1] &&
           p->out[2] * p->k[2] <= p->in[2] && p->out[2] * p->k[2] <= POOL_BLOCK_ROW;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define WMAX_HOT __attribute__((optimize("O3"), target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define WMAX_HOT
#endif

/* dst[i] = max src[i + j st], j < k, for i < n, from windows of 1, 2, 4, ...
 * (a window of 13 costs 6 passes, not 13). a and b hold n + (k - 1) st floats. */
WMAX_HOT static void wmax(float *restrict dst, const float *src, int64_t n, int64_t k, int64_t st,
                          float *a, float *b)
{
    const float *cur = src;
    int64_t len = n + (k - 1) * st, o = 0;
    int first = 1;
    for (int64_t w = 1; w <= k; w <<= 1) {
        if (k & w) {
            const float *c = cur + o * st;
            if (first)
                memcpy(dst, c, (size_t)n * sizeof(float));
            else
                for (int64_t i = 0; i < n; i++)
                    dst[i] = c[i] > dst[i] ? c[i] : dst[i];
            first = 0;
            o += w;
        }
        if (2 * w <= k) {
            float *nx = cur == a ? b : a;
            const float *c2 = cur + w * st;
            len -= w * st;
            for (int64_t i = 0; i < len; i++)
                nx[i] = c2[i] > cur[i] ? c2[i] : cur[i];
            cur = nx;
        }
    }
}

/* Stride-1, dilation-1 max pools (the SPP blocks) on whole planes: padded to
 * (OH + KH - 1) x (OW + KW - 1) with -FLT_MAX, the max along x and then along y
 * each run as one flat loop over the padded plane (positions that straddle a
 * row end are computed and dropped), so short rows like 13 columns still fill
 * whole vectors. */
POOL_HOT static void maxpool_flat_range(void *arg, int64_t t0, int64_t t1)
{
    const pool_job *j = arg;
    const pool_p *p = j->p;
    const int64_t IH = p->in[1], IW = p->in[2], OH = p->out[1], OW = p->out[2];
    const int64_t kh = p->k[1], kw = p->k[2], pt = p->pb[1], pl = p->pb[2];
    const int64_t Hp = OH + kh - 1, Wp = OW + kw - 1, np = Hp * Wp;
    float *q = xmalloc((size_t)(4 * np) * sizeof(float)), *r = q + np, *a = r + np, *b = a + np;

    for (int64_t t = t0; t < t1; t++) {
        const float *x = j->x + t * p->Pin;
        float *y = j->y + t * p->Pout;
        /* row by row: a test per element cost more than both max passes */
        for (int64_t py = 0; py < Hp; py++) {
            int64_t iy = py - pt, px = 0;
            float *qr = q + py * Wp;
            if (iy >= 0 && iy < IH) {
                /* columns [lo, hi) of the padded row come from the input */
                int64_t lo = pl > 0 ? pl : 0, hi = pl + IW < Wp ? pl + IW : Wp;
                for (; px < lo; px++)
                    qr[px] = -FLT_MAX;
                if (hi > lo)
                    memcpy(qr + lo, x + iy * IW + (lo - pl), (size_t)(hi - lo) * sizeof(float));
                px = hi > lo ? hi : lo;
            }
            for (; px < Wp; px++)
                qr[px] = -FLT_MAX;
        }
        /* along x: r[i] = max q[i .. i + kw) */
        int64_t nx = np - (kw - 1);
        wmax(r, q, nx, kw, 1, a, b);
        for (int64_t i = nx; i < np; i++)
            r[i] = -FLT_MAX;
        /* along y, into q: q[i] = max r[i + k Wp], k < kh */
        wmax(q, r, OH * Wp, kh, Wp, a, b);
        for (int64_t oy = 0; oy < OH; oy++)
            memcpy(y + oy * OW, q + oy * Wp, (size_t)OW * sizeof(float));
    }
    free(q);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define HAVE_POOL512 1
#define P512 __attribute__((target("avx512f"), optimize("O3")))
#define POOL_NARROW_MAXH 64 /* rows of maxpool_narrow_range's planes */

/* Lane i of the result is lane i + s of v (s may be negative); lanes from
 * outside [0, 16) are -FLT_MAX. idx[s + 15] and msk[s + 15] are made once. */
typedef struct lane_shifts {
    __m512i idx[31];
    __mmask16 msk[31];
} lane_shifts;

P512 static void lane_shifts_init(lane_shifts *t)
{
    __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (int s = -15; s <= 15; s++) {
        t->idx[s + 15] = _mm512_add_epi32(iota, _mm512_set1_epi32(s));
        t->msk[s + 15] = (__mmask16)(s >= 0 ? 0xFFFFu >> s : (0xFFFFu << -s) & 0xFFFFu);
    }
}

P512 static inline __m512 lane_shift(const lane_shifts *t, __m512 v, int s)
{
    if (s <= -16 || s >= 16)
        return _mm512_set1_ps(-FLT_MAX);
    return _mm512_mask_permutexvar_ps(_mm512_set1_ps(-FLT_MAX), t->msk[s + 15], t->idx[s + 15], v);
}

/* Lane i: the max of lanes i, i + dir, ..., i + (n - 1) dir of v, by doubling. */
P512 static inline __m512 lane_window(const lane_shifts *t, __m512 v, int64_t n, int dir)
{
    int64_t w = 1;
    for (; 2 * w <= n; w *= 2)
        v = _mm512_max_ps(v, lane_shift(t, v, (int)(dir * w)));
    if (n > w)
        v = _mm512_max_ps(v, lane_shift(t, v, (int)(dir * (n - w))));
    return v;
}

/* Stride-1 max pools on planes at most 16 wide (the 13x13 SPP block of YOLO
 * models): one vector per row. Along x, output x is the max of the window
 * ending at x (pl + 1 lanes) and the one starting at x (kw - pl lanes), each
 * by doubling lane shifts; along y, three maxes per row whatever kh. The
 * padded-plane passes cost several times more on planes this small. */
P512 static void maxpool_narrow_range(void *arg, int64_t t0, int64_t t1)
{
    const pool_job *j = arg;
    const pool_p *p = j->p;
    const int64_t IH = p->in[1], IW = p->in[2], OH = p->out[1], OW = p->out[2];
    const int64_t kh = p->k[1], kw = p->k[2], pt = p->pb[1], pl = p->pb[2];
    const __mmask16 mi = (__mmask16)((1u << IW) - 1), mo = (__mmask16)((1u << OW) - 1);
    const __m512 lowest = _mm512_set1_ps(-FLT_MAX);
    lane_shifts t;
    __m512 rows[POOL_NARROW_MAXH], pre[POOL_NARROW_MAXH], suf[POOL_NARROW_MAXH];

    lane_shifts_init(&t);
    /* output row oy covers rows [a, b]: across two blocks (mode 2), the start
     * of one (1: clipped at the top, or a whole block), the end of one (0:
     * clipped at the bottom), or none (-1) */
    struct {
        int a, b, mode;
    } win[POOL_NARROW_MAXH];
    unsigned char first[POOL_NARROW_MAXH]; /* rows that start a block */
    for (int64_t iy = 0; iy < IH; iy++)
        first[iy] = iy % kh == 0;
    for (int64_t oy = 0; oy < OH; oy++) {
        int64_t a = oy - pt, b = a + kh;
        a = a < 0 ? 0 : a;
        b = (b > IH ? IH : b) - 1;
        win[oy].a = (int)a;
        win[oy].b = (int)b;
        win[oy].mode = a > b ? -1 : a / kh != b / kh ? 2 : a % kh == 0 ? 1 : 0;
    }
    for (int64_t pi = t0; pi < t1; pi++) {
        const float *x = j->x + pi * p->Pin;
        float *y = j->y + pi * p->Pout;
        for (int64_t iy = 0; iy < IH; iy++) {
            __m512 r = _mm512_mask_loadu_ps(lowest, mi, x + iy * IW);
            rows[iy] = _mm512_max_ps(lane_window(&t, r, pl + 1, -1), lane_window(&t, r, kw - pl, 1));
        }
        /* along y, van Herk: maxes from the start and to the end of blocks of
         * kh rows (the last block ends at IH); a window spans at most two */
        for (int64_t iy = 0; iy < IH; iy++)
            pre[iy] = first[iy] ? rows[iy] : _mm512_max_ps(pre[iy - 1], rows[iy]);
        suf[IH - 1] = rows[IH - 1];
        for (int64_t iy = IH - 2; iy >= 0; iy--)
            suf[iy] = first[iy + 1] ? rows[iy] : _mm512_max_ps(suf[iy + 1], rows[iy]);
        for (int64_t oy = 0; oy < OH; oy++) {
            __m512 m = lowest;
            if (win[oy].mode == 2)
                m = _mm512_max_ps(suf[win[oy].a], pre[win[oy].b]);
            else if (win[oy].mode == 1)
                m = pre[win[oy].b];
            else if (win[oy].mode == 0)
                m = suf[win[oy].a];
            _mm512_mask_storeu_ps(y + oy * OW, mo, m);
        }
    }
}

static int maxpool_narrow_ok(const pool_p *p)
{
    return __builtin_cpu_supports("avx512f") && p->in[1] >= 1 && p->in[2] >= 1 &&
           p->in[2] <= 16 && p->out[2] <= 16 &&
           p->in[1] <= POOL_NARROW_MAXH && p->out[1] <= POOL_NARROW_MAXH && p->pb[2] < p->k[2];
}
#else
#define HAVE_POOL512 0
#endif

static int pool_run_common(op_ctx *c, graph_t *g, node_t *n, int is_max)
{
    pool_p p;
    int rc = pool_geom(g, n, is_max, &p, c->err, c->errlen);
    if (rc)
        return rc;
    pool_job j = {.p = &p, .x = node_input(g, n, 0)->data, .y = node_output(g, n, 0)->data};
    if (is_max && n->n_out > 1 && n->out[1] >= 0)
        j.idx = node_output(g, n, 1)->data;
    int stride1 = is_max && !j.idx && p.nsp <= 2 && p.s[1] == 1 && p.s[2] == 1 &&
                  p.d[1] == 1 && p.d[2] == 1;
#if HAVE_POOL512
    if (stride1 && maxpool_narrow_ok(&p)) {
        par_for(c, p.N * p.C, p.N * p.C * p.Pout * p.k[1], maxpool_narrow_range, &j);
        return RT_OK;
    }
#endif
    if (is_max && !j.idx && maxpool_block_ok(&p))
        par_for(c, p.N * p.C, p.N * p.C * p.Pout * p.k[1] * p.k[2], maxpool_block_range, &j);
    else if (stride1 && p.k[1] * p.k[2] >= 9)
        par_for(c, p.N * p.C, p.N * p.C * p.Pout * (p.k[1] + p.k[2]), maxpool_flat_range, &j);
    else if (is_max && !j.idx && p.nsp <= 2)
        par_for(c, p.N * p.C, p.N * p.C * p.Pout * p.k[1] * p.k[2], maxpool_sep_range, &j);
    else
        par_for(c, p.N * p.C, p.N * p.C * p.Pout * p.k[0] * p.k[1] * p.k[2], pool_range, &j);
    return RT_OK;
}

static int maxpool_run(op_ctx *c, graph_t *g, node_t *n)
{
    return pool_run_common(c, g, n, 1);
}

static int avgpool_run(op_ctx *c, graph_t *g, node_t *n)
{
    return pool_run_common(c, g, n, 0);
}

/* ---- global pools ------------------------------------------------------ */

static int global_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    tensor_t *x;
    int rc = check_arity(n, 1, 1, 1, err, errlen);
    if (rc)
        return rc;
    x = node_input(g, n, 0);
    if (x->dtype != DT_FLOAT)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): dtype %s not supported (fp32 only)",
                      n->name, n->op, dtype_name(x->dtype));
    if (x->ndim < 2)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): input rank %d, needs N x C x ...",
                      n->name, n->op, x->ndim);
    int64_t dims[MODEL_MAX_DIMS];
    for (int i = 0; i < x->ndim; i++) {
        if (x->dims[i] < 0)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): input shape unknown", n->name, n->op);
        dims[i] = i < 2 ? x->dims[i] : 1;
    }
    tensor_set_shape(node_output(g, n, 0), DT_FLOAT, x->ndim, dims);
    return RT_OK;
}

typedef struct gpool_job {
    const float *x;
    float *y;
    int64_t plane;
    int is_max;
} gpool_job;

/* GlobalAveragePool sums a plane in four partial sums, s[k] over x[4i + k],
 * the tail into s[0], then takes ((s0 + s1) + (s2 + s3)) / plane. Summed one
 * plane at a time that is a single chain of dependent adds, bound by their
 * latency; here the four sums are one vector and GAVG_PLANES planes are summed
 * side by side. Every sum sees the same adds in the same order, so the result
 * is the same to the bit (adds only: nothing for -ffp-contract to fuse). */
#define GAVG_PLANES 8

typedef float gavg_v4 __attribute__((vector_size(16)));
typedef float gavg_v4u __attribute__((vector_size(16), aligned(4), may_alias));

/* np (a constant once inlined) planes of n floats from x, their means to y */
static inline __attribute__((always_inline)) void gavg_planes(const float *x, int64_t n, float *y,
                                                              int np)
{
    gavg_v4 s[GAVG_PLANES];
    for (int c = 0; c < np; c++)
        s[c] = (gavg_v4){0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int c = 0; c < np; c++)
            s[c] += *(const gavg_v4u *)(x + c * n + i);
    for (int c = 0; c < np; c++) {
        float s0 = s[c][0];
        for (int64_t k = i; k < n; k++)
            s0 += x[c * n + k];
        y[c] = ((s0 + s[c][1]) + (s[c][2] + s[c][3])) / (float)n;
    }
}

POOL_HOT static void gavg_range(const float *x, int64_t n, float *y, int64_t t0, int64_t t1)
{
    int64_t t = t0;
    if (n <= 0) {
        for (; t < t1; t++)
            y[t] = 0.0f;
        return;
    }
    for (; t + GAVG_PLANES <= t1; t += GAVG_PLANES)
        gavg_planes(x + t * n, n, y + t, GAVG_PLANES);
    if (t + 4 <= t1) {
        gavg_planes(x + t * n, n, y + t, 4);
        t += 4;
    }
    if (t + 2 <= t1) {
        gavg_planes(x + t * n, n, y + t, 2);
        t += 2;
    }
    if (t < t1)
        gavg_planes(x + t * n, n, y + t, 1);
}

static void gpool_range(void *arg, int64_t t0, int64_t t1)
{
    const gpool_job *j = arg;
    if (!j->is_max) {
        gavg_range(j->x, j->plane, j->y, t0, t1);
        return;
    }
    for (int64_t t = t0; t < t1; t++) {
        const float *x = j->x + t * j->plane;
        float m = j->plane > 0 ? x[0] : 0.0f;
        for (int64_t i = 1; i < j->plane; i++)
            m = x[i] > m ? x[i] : m;
        j->y[t] = m;
    }
}

static int global_run(op_ctx *c, graph_t *g, node_t *n, int is_max)
{
    tensor_t *x = node_input(g, n, 0);
    gpool_job j = {.x = x->data, .y = node_output(g, n, 0)->data, .plane = 1, .is_max = is_max};
    for (int i = 2; i < x->ndim; i++)
        j.plane *= x->dims[i];
    par_for(c, x->dims[0] * x->dims[1], x->dims[0] * x->dims[1] * j.plane, gpool_range, &j);
    return RT_OK;
}

static int gavg_run(op_ctx *c, graph_t *g, node_t *n)
{
    return global_run(c, g, n, 0);
}

static int gmax_run(op_ctx *c, graph_t *g, node_t *n)
{
    return global_run(c, g, n, 1);
}

const op_def exec_ops_pool[] = {
    {"MaxPool", "", maxpool_infer, NULL, maxpool_run, NULL, NULL},
    {"AveragePool", "", avgpool_infer, NULL, avgpool_run, NULL, NULL},
    {"GlobalAveragePool", "", global_infer, NULL, gavg_run, NULL, NULL},
    {"GlobalMaxPool", "", global_infer, NULL, gmax_run, NULL, NULL},
    {0},
};
