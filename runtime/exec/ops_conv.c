/* runtime/exec/ops_conv.c — Conv and ConvTranspose, fp32, 1 to 3 spatial dims.
 *
 * Conv: per (batch, group, column block) one sgemm of the group's weights
 * (already row-major Mg x Cg*k) by an im2col block; pointwise convs read the
 * input directly. Depthwise convs (one input channel per group) use a direct
 * row-wise kernel instead, since their gemm would be a 1 x k product.
 * ConvTranspose: sgemm W^T * X into a column buffer, then col2im with adds.
 *
 * Geometry is kept in 3-D form (D, H, W): lower ranks get leading unit axes. */
#include "runtime/exec/kernels.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

/* Hot loops: vectorised here whatever the global -O level, with an AVX2 clone
 * on x86-64 (a board's aarch64 build takes the plain O3 loops). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HOT __attribute__((optimize("O3", "fp-contract=fast"), target_clones("arch=x86-64-v3", "default")))
#else
#define HOT __attribute__((optimize("O3", "fp-contract=fast")))
#endif

/* Depthwise convs do several times fewer multiply-adds per microsecond than
 * CONV_PAR_MIN_MACS assumes (kernels.h), hence their own bound. */
#define PAR_MIN_MACS_DW (1 << 17)

/* Convs with at most this many multiply-adds per output (Cg x kernel volume)
 * and stride 1 run the packed gemm straight over zero-padded input rows: with
 * so few input channels (a stem on a 1-channel image) writing and reading the
 * im2col matrix cost as much as the gemm itself. */
#define DIRECT_MAX_K 256

/* The planar Winograd F(2x2, 3x3) (wino_run_rows) needs this many input
 * channels: its input and output transforms are per tile, its savings per
 * channel. Below, a 3x3 conv goes direct (yolox's 12-channel stem: 2.4 ms
 * instead of 3.0), where Winograd runs over the strip, block by block in L1
 * (wino_strip_rows). */
#define WINO_MIN_C 16

/* Floats of padded input rows per direct-conv task (192 KB, within L2): a
 * strip of r output rows copies r + KH - 1 input rows, so few rows per task
 * copy the overlap often (the 12-channel stem: 16 rows, 4 at 64 KB). */
#define DIRECT_STRIP_FLOATS (48 * 1024)

/* Largest depthwise kernel side handled by the direct kernel. */
#define DW_MAXK 64

typedef struct conv_p {
    int nsp;                 /* spatial rank as given (1..3) */
    int transposed;
    int auto_pad;            /* enum auto_pad */
    int64_t N, C, M, G, Cg, Mg;
    int64_t in[3], out[3], k[3], s[3], d[3], pb[3], pe[3];
    int64_t K;               /* Cg * kernel volume (Conv) or Mg * kernel volume (ConvT) */
    int64_t kvol, Pin, Pout;
    int pointwise, depthwise;
    int64_t cols;            /* Conv: output columns per task (pointwise: conv_block) */
    int64_t nblk;            /* Conv: column blocks; ConvT: channel blocks per group */
    int64_t mhalf;           /* Conv: output channels of a task's first row half (Mg: one) */
    int64_t mb;              /* ConvT: output channels per task */
    float *wpack;            /* Conv: weights packed for gemm512_run, per group; or NULL */
    size_t wpack_group;      /* floats per group in wpack */
    float *wino;             /* Conv: Winograd-transformed weights (3x3 s1), or NULL */
    int direct;              /* Conv: wpack used on padded input rows, no im2col */
    float *wstrip;           /* direct 3x3: weights for Winograd over the strip, or NULL */
} conv_p;

/* ---- per-thread scratch ------------------------------------------------ */

static float *scratch_get(size_t n)
{
    return kernel_scratch(SCRATCH_CONV, n * sizeof(float));
}

/* ---- geometry ---------------------------------------------------------- */

/* Common input checks: X and W float, ranks 3..5, shapes known; the window
 * with auto_pad made explicit pads and the output extent when resolve is set
 * (Conv), as written otherwise (ConvTranspose pads its output instead). */
static int conv_inputs(graph_t *g, const node_t *n, conv_p *p, int resolve, tensor_t **xo,
                       tensor_t **wo, char *err, size_t errlen)
{
    int rc = check_arity(n, 2, 3, 1, err, errlen);
    if (rc)
        return rc;
    tensor_t *x = node_input(g, n, 0), *w = node_input(g, n, 1), *b = node_input(g, n, 2);
    if (x->dtype != DT_FLOAT || w->dtype != DT_FLOAT || (b && b->dtype != DT_FLOAT))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): dtype %s not supported (fp32 only)",
                      n->name, n->op, dtype_name(x->dtype != DT_FLOAT ? x->dtype : w->dtype));
    if (!tensor_shape_known(x) || !tensor_shape_known(w))
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): input shapes unknown", n->name, n->op);
    if (x->ndim < 3 || x->ndim > 5 || w->ndim != x->ndim)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): X rank %d / W rank %d not supported",
                      n->name, n->op, x->ndim, w->ndim);
    memset(p, 0, sizeof *p);
    p->nsp = x->ndim - 2;
    p->N = x->dims[0];
    p->C = x->dims[1];
    p->G = node_attr_int(n, "group", 1);
    if (p->G < 1 || p->C % p->G)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): %lld channels not divisible by group %lld",
                      n->name, n->op, (long long)p->C, (long long)p->G);
    p->Cg = p->C / p->G;
    node_window win;
    rc = node_window_read(n, p->nsp, w->dims + 2, resolve ? x->dims + 2 : NULL, &win, err, errlen);
    if (rc)
        return rc;
    window_take(&win, p->in, p->out, p->k, p->s, p->d, p->pb, p->pe);
    for (int i = 0; i < p->nsp; i++)
        p->in[3 - p->nsp + i] = x->dims[2 + i];
    p->auto_pad = win.auto_pad;
    p->kvol = p->k[0] * p->k[1] * p->k[2];
    p->Pin = p->in[0] * p->in[1] * p->in[2];
    *xo = x;
    *wo = w;
    return RT_OK;
}

static int conv_geom(graph_t *g, const node_t *n, conv_p *p, char *err, size_t errlen)
{
    tensor_t *x = NULL, *w = NULL, *b;
    int rc = conv_inputs(g, n, p, 1, &x, &w, err, errlen);
    if (rc)
        return rc;
    p->M = w->dims[0];
    if (w->dims[1] != p->Cg || p->M % p->G)
        return rt_err(err, errlen, RT_ESHAPE,
                      "node '%s' (Conv): W is %lldx%lld, needs %lld input channels per group and output channels divisible by group %lld",
                      n->name, (long long)w->dims[0], (long long)w->dims[1], (long long)p->Cg,
                      (long long)p->G);
    p->Mg = p->M / p->G;
    b = node_input(g, n, 2);
    if (b && (b->ndim != 1 || b->dims[0] != p->M))
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Conv): bias must have %lld elements",
                      n->name, (long long)p->M);
    p->K = p->Cg * p->kvol;
    p->Pout = p->out[0] * p->out[1] * p->out[2];
    p->pointwise = p->kvol == 1 && p->s[0] == 1 && p->s[1] == 1 && p->s[2] == 1 &&
                   !p->pb[0] && !p->pb[1] && !p->pb[2] && !p->pe[0] && !p->pe[1] && !p->pe[2];
    p->depthwise = p->Cg == 1 && p->G > 1 && p->nsp <= 2 && p->kvol > 1 &&
                   p->k[1] <= DW_MAXK && p->k[2] <= DW_MAXK;
    return RT_OK;
}

/* Column blocking: enough tasks for the threads, blocks that fit in cache. */
static void conv_plan(conv_p *p, int nthreads)
{
    int64_t cols = p->Pout;
    if (!p->pointwise) {
        int64_t lim = CONV_COL_BLOCK_FLOATS / (p->K > 0 ? p->K : 1);
        if (lim < 64)
            lim = 64;
        if (cols > lim)
            cols = lim;
    }
    int64_t want = nthreads > 1 ? 2 * nthreads : 1;
    int64_t have = p->N * p->G * ceil_div(p->Pout, cols);
    if (have < want) {
        int64_t per = ceil_div(want, p->N * p->G);
        int64_t c2 = ceil_div(p->Pout, per);
        if (c2 >= 16)
            cols = c2;
    }
    if (cols < p->Pout)
        cols = p->wpack ? (cols + GEMM_NR - 1) / GEMM_NR * GEMM_NR : (cols + 15) / 16 * 16;
    if (cols > p->Pout)
        cols = p->Pout;
    p->cols = cols;
    p->nblk = ceil_div(p->Pout, cols);
    /* A pointwise product of few columns (13x13: 11 vectors for four tasks)
     * cannot be cut evenly by columns: its tasks take halves of the rows too,
     * and each packs the column block again (YOLOX's 512 -> 256 at 13x13, two
     * threads: 0.236 -> 0.222 ms). */
    p->mhalf = p->Mg;
    if (p->pointwise && p->wpack && nthreads > 1 && ceil_div(p->Pout, 16) < 4 * want &&
        p->Mg >= 4 * GEMM_MR) {
        p->mhalf = ceil_div(p->Mg, 2 * GEMM_MR) * GEMM_MR;
        p->nblk = ceil_div(p->nblk, 2);
    }
}

/* Tasks of conv_gemm_range. */
static int64_t conv_tasks(const conv_p *p)
{
    return p->N * p->G * p->nblk * (p->mhalf < p->Mg ? 2 : 1);
}

/* Columns [*c0, *c0 + *nc) of block blk. Pointwise blocks share the columns
 * out evenly in 16-column vectors: blocks of cols (a multiple of 48) left the
 * last one short, and a thread that drew it idled (26x26 at two threads: 384
 * against 292 columns). The others keep their cols, whose im2col rows and
 * cache blocking assume them. */
static void conv_block(const conv_p *p, int64_t blk, int64_t *c0, int64_t *nc)
{
    if (p->pointwise) {
        int64_t v = ceil_div(p->Pout, 16);
        int64_t a = blk * v / p->nblk * 16, b = (blk + 1) * v / p->nblk * 16;
        *c0 = a;
        *nc = (b < p->Pout ? b : p->Pout) - a;
        return;
    }
    *c0 = blk * p->cols;
    *nc = p->Pout - *c0 < p->cols ? p->Pout - *c0 : p->cols;
}

typedef int (*conv_geom_fn)(graph_t *g, const node_t *n, conv_p *p, char *err, size_t errlen);

/* Output 0's shape from geom's geometry (conv_geom or convt_geom). */
static int conv_infer_by(conv_geom_fn geom, graph_t *g, node_t *n, char *err, size_t errlen)
{
    conv_p p;
    int rc = geom(g, n, &p, err, errlen);
    if (rc)
        return rc;
    int64_t dims[5];
    tensor_set_shape(node_output(g, n, 0), DT_FLOAT, window_out_dims(p.N, p.M, p.nsp, p.out, dims),
                     dims);
    return RT_OK;
}

static int conv_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    return conv_infer_by(conv_geom, g, n, err, errlen);
}

static void conv_release(node_t *n)
{
    conv_p *p = n->priv;
    if (p) {
        free(p->wpack);
        free(p->wino);
        free(p->wstrip);
    }
    free(p);
    n->priv = NULL;
}

static int conv_prepare(graph_t *g, node_t *n, char *err, size_t errlen)
{
    conv_p *p = xcalloc(1, sizeof *p);
    int rc = conv_geom(g, n, p, err, errlen);
    if (rc) {
        free(p);
        return rc;
    }
    /* Constant weights of a gemm-shaped conv are packed once for the AVX-512 gemm. */
    const tensor_t *w = node_input(g, n, 1);
    if (!p->depthwise && w->kind == TK_CONST && w->data && p->K > 0 && p->Mg > 0 &&
        gemm512_available() && p->nsp == 2 && p->G == 1 && p->k[1] == 3 && p->k[2] == 3 &&
        p->s[1] == 1 && p->s[2] == 1 && p->d[1] == 1 && p->d[2] == 1 && p->Cg >= WINO_MIN_C &&
        p->Mg >= 8) {
        /* 3x3 stride-1 convs with some channels: Winograd F(2x2, 3x3) */
        p->wino = xaligned_alloc(sizeof(float) * wino_packed_floats(p->M, p->C));
        wino_pack_weights(w->data, p->M, p->C, p->wino);
    } else if (!p->depthwise && w->kind == TK_CONST && w->data && p->K > 0 && p->Mg > 0 &&
               gemm512_available()) {
        p->wpack_group = gemm512_packed_floats(p->Mg, p->K);
        p->wpack = xaligned_alloc(sizeof(float) * p->wpack_group * (size_t)p->G);
        for (int64_t gi = 0; gi < p->G; gi++)
            gemm512_pack_a((const float *)w->data + gi * p->Mg * p->K, p->K, p->Mg, p->K,
                           p->wpack + (size_t)gi * p->wpack_group);
        p->direct = p->G == 1 && p->nsp == 2 && !p->pointwise && p->K <= DIRECT_MAX_K &&
                    p->s[1] == 1 && p->s[2] == 1;
        if (p->direct && p->k[1] == 3 && p->k[2] == 3 && p->d[1] == 1 && p->d[2] == 1) {
            p->wstrip = xaligned_alloc(sizeof(float) * wino_strip_floats(p->M, p->C));
            wino_strip_pack(w->data, p->M, p->C, p->wstrip);
        }
    }
    conv_release(n);
    n->priv = p;
    return RT_OK;
}

/* ---- im2col ------------------------------------------------------------ */

/* Copies or zeroes n floats without a libc call: most segments here are one
 * short output row, where the call costs more than the copy. */
static inline void copy_short(float *d, const float *s, int64_t n)
{
    if (n > 64) {
        memcpy(d, s, (size_t)n * sizeof(float));
        return;
    }
    for (int64_t i = 0; i < n; i++)
        d[i] = s[i];
}

static inline void zero_short(float *d, int64_t n)
{
    if (n > 64) {
        memset(d, 0, (size_t)n * sizeof(float));
        return;
    }
    for (int64_t i = 0; i < n; i++)
        d[i] = 0.0f;
}

/* n floats from s, step floats apart (a Focus phase: step 2, in permutes). */
static inline void gather_row(float *d, const float *s, int64_t n, int64_t step)
{
    if (step == 1)
        copy_short(d, s, n);
    else if (step == 2)
        gemm512_gather2(d, s, n);
    else
        for (int64_t i = 0; i < n; i++)
            d[i] = s[i * step];
}

/* Stride-1 2-D im2col of whole output rows [oy0, oy1): each input row is
 * padded once into prow, then every kx row of the column matrix is a plain
 * copy from it (no per-segment bounds logic, which dominated small convs). */
__attribute__((optimize("no-tree-loop-distribute-patterns")))
HOT static void im2col_rows(const conv_p *p, const float *x, float *col, int64_t oy0, int64_t oy1,
                            int64_t ncol, float *prow)
{
    const int64_t OW = p->out[2], IH = p->in[1], IW = p->in[2];
    const int64_t KH = p->k[1], KW = p->k[2], dy = p->d[1], dx = p->d[2];
    const int64_t pt = p->pb[1], pl = p->pb[2];
    const int64_t len = OW + (KW - 1) * dx;

    for (int64_t c = 0; c < p->Cg; c++) {
        const float *xc = x + c * p->Pin;
        for (int64_t ky = 0; ky < KH; ky++) {
            float *rows = col + (c * KH + ky) * KW * ncol; /* KW rows of ncol */
            for (int64_t oy = oy0; oy < oy1; oy++) {
                int64_t iy = oy - pt + ky * dy, off = (oy - oy0) * OW;
                if (iy < 0 || iy >= IH) {
                    for (int64_t kx = 0; kx < KW; kx++)
                        zero_short(rows + kx * ncol + off, OW);
                    continue;
                }
                const float *src = xc + iy * IW;
                for (int64_t i = 0; i < len; i++) {
                    int64_t ix = i - pl;
                    prow[i] = ix >= 0 && ix < IW ? src[ix] : 0.0f;
                }
                for (int64_t kx = 0; kx < KW; kx++)
                    copy_short(rows + kx * ncol + off, prow + kx * dx, OW);
            }
        }
    }
}

/* Fills col (K rows x ncol) for output positions [p0, p0 + ncol) of one group.
 * no-tree-loop-distribute-patterns: keeps the short copy loops as loops. */
__attribute__((optimize("no-tree-loop-distribute-patterns")))
HOT static void im2col(const conv_p *p, const float *x, float *col, int64_t p0, int64_t ncol)
{
    const int64_t OH = p->out[1], OW = p->out[2];
    const int64_t ID = p->in[0], IH = p->in[1], IW = p->in[2];
    /* output coordinates of p0, stepped row by row below (no divisions) */
    const int64_t oz0 = p0 / (OH * OW), oy0 = p0 % (OH * OW) / OW, ox0 = p0 % OW;
    int64_t row = 0;

    for (int64_t c = 0; c < p->Cg; c++) {
        const float *xc = x + c * p->Pin;
        for (int64_t kz = 0; kz < p->k[0]; kz++)
        for (int64_t ky = 0; ky < p->k[1]; ky++)
        for (int64_t kx = 0; kx < p->k[2]; kx++, row++) {
            float *dst = col + row * ncol;
            int64_t offx = kx * p->d[2] - p->pb[2];
            /* valid ox: 0 <= ox*s + offx < IW */
            int64_t lo = offx >= 0 ? 0 : ceil_div(-offx, p->s[2]);
            int64_t hi = IW - offx <= 0 ? 0 : ceil_div(IW - offx, p->s[2]);
            if (hi > OW)
                hi = OW;
            if (lo > hi)
                lo = hi;
            int64_t pos = p0, end = p0 + ncol, oz = oz0, oy = oy0, ox = ox0;
            while (pos < end) {
                int64_t seg = OW - ox;
                if (seg > end - pos)
                    seg = end - pos;
                int64_t iz = oz * p->s[0] - p->pb[0] + kz * p->d[0];
                int64_t iy = oy * p->s[1] - p->pb[1] + ky * p->d[1];
                if (iz < 0 || iz >= ID || iy < 0 || iy >= IH) {
                    zero_short(dst, seg);
                } else {
                    const float *src = xc + (iz * IH + iy) * IW + offx;
                    int64_t a = ox, b = ox + seg;
                    int64_t vlo = lo > a ? lo : a, vhi = hi < b ? hi : b;
                    if (vlo >= vhi) {
                        zero_short(dst, seg);
                    } else {
                        if (vlo > a)
                            zero_short(dst, vlo - a);
                        if (p->s[2] == 1) {
                            copy_short(dst + (vlo - a), src + vlo, vhi - vlo);
                        } else if (p->s[2] == 2) {
                            /* constant stride: vectorises (even/odd permutes) */
                            float *dd = dst + (vlo - a);
                            const float *ss = src + 2 * vlo;
                            for (int64_t q = 0; q < vhi - vlo; q++)
                                dd[q] = ss[2 * q];
                        } else {
                            int64_t s = p->s[2];
                            for (int64_t q = vlo; q < vhi; q++)
                                dst[q - a] = src[q * s];
                        }
                        if (b > vhi)
                            zero_short(dst + (vhi - a), b - vhi);
                    }
                }
                dst += seg;
                pos += seg;
                ox = 0;
                if (++oy == OH) {
                    oy = 0;
                    oz++;
                }
            }
        }
    }
}

/* ---- Conv run ---------------------------------------------------------- */

typedef struct conv_job {
    const conv_p *p;
    const float *x, *w, *b;
    float *y;
    const gemm_epi *act;     /* fused activation, or NULL; its res is NULL */
    const float *res;        /* residual added after it (laid out as y), or NULL */
    const conv_gather *src;  /* the input read through this (direct kernel), or NULL */
} conv_job;

static void conv_gemm_range(void *arg, int64_t t0, int64_t t1)
{
    const conv_job *j = arg;
    const conv_p *p = j->p;

    const int64_t halves = p->mhalf < p->Mg ? 2 : 1;
    for (int64_t t = t0; t < t1; t++) {
        int64_t h = t % halves, blk = t / halves % p->nblk, ng = t / halves / p->nblk;
        int64_t gi = ng % p->G, ni = ng / p->G;
        int64_t m0 = h * p->mhalf, mn = h ? p->Mg - p->mhalf : p->mhalf;
        int64_t c0, nc;
        conv_block(p, blk, &c0, &nc);
        const float *x = j->x + (ni * p->C + gi * p->Cg) * p->Pin;
        const float *w = j->w + gi * p->Mg * p->K;
        float *y = j->y + (ni * p->M + gi * p->Mg + m0) * p->Pout + c0;
        const float *bm;
        int64_t ldb;

        if (p->pointwise) {
            bm = x + c0;
            ldb = p->Pin;
        } else {
            int64_t OW = p->out[2], len = OW + (p->k[2] - 1) * p->d[2];
            float *col = scratch_get((size_t)(p->K * nc + len));
            if (p->nsp == 2 && p->s[1] == 1 && p->s[2] == 1 && c0 % OW == 0 &&
                (nc % OW == 0 || c0 + nc == p->Pout))
                im2col_rows(p, x, col, c0 / OW, (c0 + nc + OW - 1) / OW, nc, col + p->K * nc);
            else
                im2col(p, x, col, c0, nc);
            bm = col;
            ldb = nc;
        }
        if (p->wpack) {
            gemm_epi e = {.act = GEMM_ACT_NONE};
            if (j->act)
                e = *j->act;
            e.bias = j->b ? j->b + gi * p->Mg + m0 : NULL;
            if (e.pf) { /* this task's share of what is to be prefetched */
                int64_t nt = conv_tasks(p);
                size_t a = e.pf_len * (size_t)t / (size_t)nt;
                size_t z = e.pf_len * (size_t)(t + 1) / (size_t)nt;
                e.pf += a;
                e.pf_len = z - a;
            }
            e.res = j->res ? j->res + (y - j->y) : NULL;
            gemm512_run(p->wpack + (size_t)gi * p->wpack_group + m0 * p->K, mn, p->K, bm, ldb,
                        nc, y, p->Pout, &e);
            continue;
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)p->Mg, (int)nc, (int)p->K,
                    1.0f, w, (int)p->K, bm, (int)ldb, 0.0f, y, (int)p->Pout);
        if (j->b) {
            const float *bias = j->b + gi * p->Mg;
            for (int64_t m = 0; m < p->Mg; m++) {
                float bv = bias[m];
                float *yr = y + m * p->Pout;
                for (int64_t q = 0; q < nc; q++)
                    yr[q] += bv;
            }
        }
        if (j->act)
            for (int64_t m = 0; m < p->Mg; m++)
                gemm_act_apply(y + m * p->Pout, nc, j->act);
    }
}

/* ---- direct conv (few input channels, stride 1) ---------------------- */

/* Padded row width and output rows per task of the direct conv. */
static void direct_geom(const conv_p *p, int nthreads, int64_t *wp, int64_t *rows)
{
    const int64_t span = (p->k[1] - 1) * p->d[1];
    *wp = p->in[2] + p->pb[2] + p->pe[2];
    int64_t r = DIRECT_STRIP_FLOATS / (p->Cg * *wp) - span;
    if (p->wstrip)
        r &= ~(int64_t)1; /* whole Winograd tiles */
    if (r < 1)
        r = 1;
    if (nthreads > 1) {
        int64_t per = ceil_div(p->out[1], 2 * nthreads);
        if (r > per)
            r = per;
    }
    *rows = r < p->out[1] ? r : p->out[1];
}

/* Padded input rows of a strip for rows output rows: one more with Winograd,
 * whose tiles pair the rows (2k, 2k + 1) of the whole output, so that a strip
 * starting on an odd row begins one row higher (the sums of every row are
 * then the same however the rows are split into tasks and bands). */
static int64_t strip_height(const conv_p *p, int64_t rows)
{
    return rows + (p->k[1] - 1) * p->d[1] + (p->wstrip ? 1 : 0);
}

typedef struct direct_job {
    const conv_job *j;
    int64_t wp, rows, ntask;
} direct_job;

/* A direct conv task's epilogue (j's activation and bias) and the taps of its
 * kernel over a strip of hp padded rows wp floats wide: fixed offsets into it
 * (koff, K of them). */
static void direct_begin(const conv_job *j, int64_t hp, int64_t wp, gemm_epi *e, int64_t *koff)
{
    const conv_p *p = j->p;
    *e = j->act ? *j->act : (gemm_epi){.act = GEMM_ACT_NONE};
    e->bias = j->b;
    e->pf = NULL; /* one gemm per output row: each would start the prefetch over */
    for (int64_t c = 0, k = 0; c < p->Cg; c++)
        for (int64_t ky = 0; ky < p->k[1]; ky++)
            for (int64_t kx = 0; kx < p->k[2]; kx++)
                koff[k++] = (c * hp + ky * p->d[1]) * wp + kx * p->d[2];
}

/* Output rows [oy0, oy0 + nrows) of batch item ni into y (row oy0 there,
 * channels ldc floats apart): their input rows are copied once, zero-padded,
 * into the strip (one per channel, hp rows of wp); every output row is then
 * one gemm of the packed weights by rows of the strip. e: the epilogue (its
 * res set here when j has one, y then inside j->y). */
__attribute__((optimize("no-tree-loop-distribute-patterns")))
HOT static void direct_rows(const conv_job *j, float *strip, int64_t hp, int64_t wp,
                        const int64_t *koff, gemm_epi *e, int64_t ni, int64_t oy0,
                        int64_t nrows, float *y, int64_t ldc)
{
    const conv_p *p = j->p;
    const int64_t IH = p->in[1], IW = p->in[2], OW = p->out[2], pl = p->pb[2];
    const int64_t lead = p->wstrip ? oy0 & 1 : 0; /* the row above, for its tile */
    const int64_t used = lead + nrows + (p->k[1] - 1) * p->d[1];
    const float *x = j->x + ni * p->C * p->Pin;
    const conv_gather *sg = j->src;
    /* a gathered input by rows, then channels: a Focus source's rows are then
     * read in order (row phases 0 and 1 of each colour in turn), which the
     * hardware prefetcher follows; by channel it saw every other row */
    for (int64_t i = 0; i < p->Cg * used; i++) {
        int64_t c = sg ? i % p->Cg : i / used, r = sg ? i / p->Cg : i % used;
        float *d = strip + (c * hp + r) * wp;
        int64_t iy = oy0 - lead + r - p->pb[1];
        if (iy < 0 || iy >= IH) {
            zero_short(d, wp);
            continue;
        }
        zero_short(d, pl);
        if (sg)
            gather_row(d + pl, sg->base + ni * sg->item + sg->off[c] + iy * sg->rstep[c], IW,
                       sg->cstep[c]);
        else
            copy_short(d + pl, x + c * p->Pin + iy * IW, IW);
        zero_short(d + pl + IW, wp - pl - IW);
    }
    if (p->wstrip) {
        e->res = j->res ? j->res + (y - j->y) : NULL;
        size_t scn = wino_strip_scratch_floats(p->Cg);
        float *sc = kernel_scratch(SCRATCH_GEMM, sizeof(float) * scn);
        wino_strip_rows(p->wstrip, p->M, p->Cg, strip, hp, wp, (int)lead, nrows, OW, y, ldc, e,
                        sc);
        return;
    }
    for (int64_t r = 0; r < nrows; r++) {
        e->res = j->res ? j->res + (y - j->y) + r * OW : NULL;
        gemm512_run_offsets(p->wpack, p->M, p->K, strip + r * wp, koff, OW, y + r * OW, ldc, e);
    }
}

/* Task t: output rows [oy0, oy0 + rows) of batch item t / ntask. */
static void conv_direct_range(void *arg, int64_t t0, int64_t t1)
{
    const direct_job *dj = arg;
    const conv_job *j = dj->j;
    const conv_p *p = j->p;
    const int64_t OH = p->out[1], OW = p->out[2];
    const int64_t hp = strip_height(p, dj->rows);
    float *strip = scratch_get((size_t)(p->Cg * hp * dj->wp));
    int64_t koff[DIRECT_MAX_K];
    gemm_epi e;

    direct_begin(j, hp, dj->wp, &e, koff);
    for (int64_t t = t0; t < t1; t++) {
        int64_t ni = t / dj->ntask, oy0 = t % dj->ntask * dj->rows;
        int64_t nrows = OH - oy0 < dj->rows ? OH - oy0 : dj->rows;
        direct_rows(j, strip, hp, dj->wp, koff, &e, ni, oy0, nrows,
                    j->y + ni * p->M * p->Pout + oy0 * OW, p->Pout);
    }
}

static void conv_direct(op_ctx *c, const conv_job *j, int nth)
{
    const conv_p *p = j->p;
    direct_job dj = {.j = j};
    direct_geom(p, nth, &dj.wp, &dj.rows);
    dj.ntask = ceil_div(p->out[1], dj.rows);
    if (nth == 1)
        conv_direct_range(&dj, 0, p->N * dj.ntask);
    else
        op_parallel_for(c, p->N * dj.ntask, conv_direct_range, &dj);
}

/* ---- direct conv into a depthwise conv -------------------------------- */

/* A direct conv (a) whose output only a depthwise conv (b) reads, as one
 * kernel (YOLOX's stem and the stride-2 depthwise conv after it: 2.8 MB that
 * went out to L3 and came back). A task makes b's output rows [o0, o1) of one
 * batch item band by band: the rows of a's output that a band of b's rows
 * reads are made into a small buffer (the rows the next band reads again are
 * moved up, not made twice), then b runs over that buffer as a plane of those
 * rows. Both kernels and their sums are the unfused ones'. */
typedef struct pair_job {
    const conv_job *a, *b;   /* a's y and b's x are not used */
    int64_t wp;              /* a's padded input row */
    int64_t band;            /* b's output rows per band */
    int64_t cap;             /* a's output rows a band reads, at most */
    int64_t rows, ntask;     /* b's output rows per task, tasks per batch item */
    size_t strip_n, buf_n, dw_n; /* scratch floats: a's input strip, the buffer, b's own */
} pair_job;

/* b's plane geometry over its input's rows [r0, r0 + h), output rows [o, o + n). */
static dw512_geom pair_geom(const conv_p *b, int64_t r0, int64_t h, int64_t o, int64_t n)
{
    return (dw512_geom){
        .IH = h, .IW = b->in[2], .OH = n, .OW = b->out[2], .KH = b->k[1], .KW = b->k[2],
        .sy = b->s[1], .sx = b->s[2], .dy = b->d[1], .dx = b->d[2],
        .pt = b->pb[1] - o * b->s[1] + r0, .pl = b->pb[2],
    };
}

/* The rows [lo, hi) of a's output that b's output rows [o, o + n) read. */
static void pair_rows(const conv_p *b, int64_t o, int64_t n, int64_t *lo, int64_t *hi)
{
    int64_t first = o * b->s[1] - b->pb[1];
    int64_t last = (o + n - 1) * b->s[1] - b->pb[1] + (b->k[1] - 1) * b->d[1];
    *lo = first > 0 ? first : 0;
    *hi = last + 1 < b->in[1] ? last + 1 : b->in[1];
}

static void conv_pair_range(void *arg, int64_t t0, int64_t t1)
{
    const pair_job *pj = arg;
    const conv_job *ja = pj->a, *jb = pj->b;
    const conv_p *a = ja->p, *b = jb->p;
    const int64_t AW = a->out[2], OHb = b->out[1], OWb = b->out[2];
    const int64_t hp = strip_height(a, pj->cap), plane = pj->cap * AW;
    float *strip = scratch_get(pj->strip_n + pj->buf_n + pj->dw_n);
    float *buf = strip + pj->strip_n, *dws = buf + pj->buf_n;
    int64_t koff[DIRECT_MAX_K];
    gemm_epi e;

    direct_begin(ja, hp, pj->wp, &e, koff);
    for (int64_t t = t0; t < t1; t++) {
        int64_t ni = t / pj->ntask, o = t % pj->ntask * pj->rows;
        int64_t o1 = OHb - o < pj->rows ? OHb : o + pj->rows;
        int64_t b0 = 0, b1 = 0; /* a's rows in buf */
        for (int64_t n; o < o1; o += n) {
            int64_t lo, hi;
            n = o1 - o < pj->band ? o1 - o : pj->band;
            pair_rows(b, o, n, &lo, &hi);
            if (lo < b0 || lo >= b1) { /* nothing to keep */
                b0 = b1 = lo;
            } else if (lo > b0) {
                for (int64_t m = 0; m < a->M; m++)
                    memmove(buf + m * plane, buf + m * plane + (lo - b0) * AW,
                            sizeof(float) * (size_t)((b1 - lo) * AW));
                b0 = lo;
            }
            if (hi > b1)
                direct_rows(ja, strip, hp, pj->wp, koff, &e, ni, b1, hi - b1,
                            buf + (b1 - b0) * AW, plane);
            b1 = hi;
            dw512_geom d = pair_geom(b, b0, b1 - b0, o, n);
            dw512_begin(&d, jb->act, dws);
            for (int64_t m = 0; m < b->M; m++)
                dw512_plane(&d, buf + m / b->Mg * plane, jb->w + m * b->kvol,
                            jb->b ? jb->b[m] : 0.0f, jb->act,
                            jb->y + (ni * b->M + m) * b->Pout + o * OWb, dws);
        }
    }
}

/* Depthwise: one (batch, channel) plane per task. Strided convs first split
 * every input row into s phase rows (phase r holds columns r, r+s, ...), so
 * that every tap reads contiguous floats. The interior columns, where every
 * horizontal tap is inside the input, run in registers 16 or 8 outputs at a
 * time over all taps; the few border columns take a checked scalar loop. */
typedef float v8f __attribute__((vector_size(32), aligned(4), may_alias));

static int64_t dw_scratch(const conv_p *p)
{
    int64_t sx = p->s[2];
    return sx > 1 ? sx * p->in[1] * ((p->in[2] + sx - 1) / sx) : 0;
}

HOT static void dw_plane(const conv_p *p, const float *restrict x, const float *restrict wk,
                         float bias, float *restrict y, float *restrict ph)
{
    const int64_t IH = p->in[1], IW = p->in[2], OH = p->out[1], OW = p->out[2];
    const int64_t KH = p->k[1], KW = p->k[2], sx = p->s[2], sy = p->s[1], dy = p->d[1];
    const float *base = x;
    int64_t pw = IW, toff[DW_MAXK], tlo[DW_MAXK], thi[DW_MAXK];
    int64_t ilo = 0, ihi = OW;

    if (sx > 1) {
        pw = (IW + sx - 1) / sx;
        for (int64_t r = 0; r < sx; r++) {
            int64_t wr = (IW - r + sx - 1) / sx;
            for (int64_t iy = 0; iy < IH; iy++) {
                float *dst = ph + (r * IH + iy) * pw;
                const float *src = x + iy * IW + r;
                for (int64_t j = 0; j < wr; j++)
                    dst[j] = src[j * sx];
            }
        }
        base = ph;
    }
    for (int64_t kx = 0; kx < KW; kx++) {
        int64_t off = kx * p->d[2] - p->pb[2];
        int64_t r = ((off % sx) + sx) % sx, jo = (off - r) / sx;
        int64_t width = (IW - r + sx - 1) / sx;
        int64_t lo = jo < 0 ? -jo : 0, hi = width - jo < OW ? width - jo : OW;
        if (hi < lo)
            hi = lo;
        toff[kx] = r * IH * pw + jo;
        tlo[kx] = lo;
        thi[kx] = hi;
        ilo = lo > ilo ? lo : ilo;
        ihi = hi < ihi ? hi : ihi;
    }
    if (ihi < ilo)
        ihi = ilo;

    for (int64_t oy = 0; oy < OH; oy++) {
        float *yr = y + oy * OW;
        const float *rows[DW_MAXK];
        const float *wrows[DW_MAXK];
        int nr = 0;
        for (int64_t ky = 0; ky < KH; ky++) {
            int64_t iy = oy * sy - p->pb[1] + ky * dy;
            if (iy < 0 || iy >= IH)
                continue;
            rows[nr] = base + iy * pw;
            wrows[nr++] = wk + ky * KW;
        }
        /* border columns */
        for (int64_t ox = 0; ox < OW; ox++) {
            if (ox == ilo && ihi > ilo)
                ox = ihi;
            if (ox >= OW)
                break;
            float s = bias;
            for (int i = 0; i < nr; i++)
                for (int64_t kx = 0; kx < KW; kx++)
                    if (ox >= tlo[kx] && ox < thi[kx])
                        s += wrows[i][kx] * rows[i][toff[kx] + ox];
            yr[ox] = s;
        }
        /* interior */
        int64_t ox = ilo;
        for (; ox + 16 <= ihi; ox += 16) {
            v8f a0 = (v8f){0} + bias, a1 = a0;
            for (int i = 0; i < nr; i++) {
                const float *rw = rows[i] + ox;
                for (int64_t kx = 0; kx < KW; kx++) {
                    float w = wrows[i][kx];
                    a0 += w * *(const v8f *)(rw + toff[kx]);
                    a1 += w * *(const v8f *)(rw + toff[kx] + 8);
                }
            }
            *(v8f *)(yr + ox) = a0;
            *(v8f *)(yr + ox + 8) = a1;
        }
        for (; ox + 8 <= ihi; ox += 8) {
            v8f a0 = (v8f){0} + bias;
            for (int i = 0; i < nr; i++) {
                const float *rw = rows[i] + ox;
                for (int64_t kx = 0; kx < KW; kx++)
                    a0 += wrows[i][kx] * *(const v8f *)(rw + toff[kx]);
            }
            *(v8f *)(yr + ox) = a0;
        }
        for (; ox < ihi; ox++) {
            float s = bias;
            for (int i = 0; i < nr; i++)
                for (int64_t kx = 0; kx < KW; kx++)
                    s += wrows[i][kx] * rows[i][toff[kx] + ox];
            yr[ox] = s;
        }
    }
}

static void conv_dw_range(void *arg, int64_t t0, int64_t t1)
{
    const conv_job *j = arg;
    const conv_p *p = j->p;
    dw512_geom d = {
        .IH = p->in[1], .IW = p->in[2], .OH = p->out[1], .OW = p->out[2],
        .KH = p->k[1], .KW = p->k[2], .sy = p->s[1], .sx = p->s[2],
        .dy = p->d[1], .dx = p->d[2], .pt = p->pb[1], .pl = p->pb[2],
    };

    if (dw512_supported(&d)) {
        float *ph = scratch_get(dw512_scratch_floats(&d));
        dw512_begin(&d, j->act, ph);
        for (int64_t t = t0; t < t1; t++) {
            int64_t m = t % p->M, ni = t / p->M;
            dw512_plane(&d, j->x + (ni * p->C + m / p->Mg) * p->Pin, j->w + m * p->kvol,
                        j->b ? j->b[m] : 0.0f, j->act, j->y + (ni * p->M + m) * p->Pout, ph);
        }
        return;
    }
    int64_t sc = dw_scratch(p);
    float *ph = sc > 0 ? scratch_get((size_t)sc) : NULL;

    for (int64_t t = t0; t < t1; t++) {
        int64_t m = t % p->M, ni = t / p->M;
        int64_t c = m / p->Mg;
        const float *xc = j->x + (ni * p->C + c) * p->Pin;
        const float *wk = j->w + m * p->kvol;
        float bias = j->b ? j->b[m] : 0.0f;
        float *y = j->y + (ni * p->M + m) * p->Pout;
        dw_plane(p, xc, wk, bias, y, ph);
        if (j->act)
            gemm_act_apply(y, p->Pout, j->act);
    }
}

/* ---- Winograd ---------------------------------------------------------- */

typedef struct wino_job {
    const conv_p *p;
    wino_geom g;
    const float *x, *b;
    const gemm_epi *act;
    float *y;
    int64_t rows, ntask;
} wino_job;

static void wino_range(void *arg, int64_t t0, int64_t t1)
{
    const wino_job *j = arg;
    const int64_t TH = (j->g.OH + 1) / 2;
    float *sc = scratch_get(wino_scratch_floats(&j->g, j->rows));
    for (int64_t t = t0; t < t1; t++) {
        int64_t ni = t / j->ntask, th0 = (t % j->ntask) * j->rows;
        int64_t nr = TH - th0 < j->rows ? TH - th0 : j->rows;
        wino_run_rows(&j->g, j->p->wino, j->x + ni * j->p->C * j->p->Pin, j->b, j->act,
                      j->y + ni * j->p->M * j->p->Pout, th0, nr, sc);
    }
}

static void conv_wino(op_ctx *c, const conv_p *p, const float *x, const float *b,
                      const gemm_epi *act, float *y, int nth)
{
    wino_job j = {
        .p = p, .x = x, .b = b, .act = act, .y = y,
        .g = {.C = p->C, .M = p->M, .IH = p->in[1], .IW = p->in[2], .OH = p->out[1],
              .OW = p->out[2], .pt = p->pb[1], .pl = p->pb[2]},
    };
    j.rows = wino_rows_per_task(&j.g, nth);
    j.ntask = ((j.g.OH + 1) / 2 + j.rows - 1) / j.rows;
    if (nth == 1)
        wino_range(&j, 0, p->N * j.ntask);
    else
        op_parallel_for(c, p->N * j.ntask, wino_range, &j);
}

static int conv_exec(op_ctx *c, graph_t *g, node_t *n, const gemm_epi *act,
                     const conv_gather *src, float *out)
{
    conv_p local, *p = n->priv;
    if (!p) {
        int rc = conv_geom(g, n, &local, c->err, c->errlen);
        if (rc)
            return rc;
        p = &local;
    }
    conv_p plan = *p;
    tensor_t *b = node_input(g, n, 2);
    gemm_epi a = act ? *act : (gemm_epi){.act = GEMM_ACT_NONE};
    a.res = NULL;
    conv_job j = {
        .p = &plan,
        .x = node_input(g, n, 0)->data,
        .w = node_input(g, n, 1)->data,
        .b = b ? b->data : act ? act->bias : NULL, /* a channel Add taken (exec.c) */
        .y = out,
        .act = act ? &a : NULL,
    };
    if (plan.N == 0 || plan.M == 0 || plan.Pout == 0)
        return RT_OK;
    int64_t macs = plan.N * plan.M * plan.Pout * plan.K;
    int nth = macs < (plan.depthwise ? PAR_MIN_MACS_DW : CONV_PAR_MIN_MACS) ? 1 : c->nthreads;
    if (plan.depthwise) {
        if (nth == 1)
            conv_dw_range(&j, 0, plan.N * plan.M);
        else
            op_parallel_for(c, plan.N * plan.M, conv_dw_range, &j);
    } else if (plan.wino) {
        conv_wino(c, &plan, j.x, j.b, j.act, out, nth);
    } else if (plan.direct) {
        j.res = act ? act->res : NULL;
        j.src = src;
        conv_direct(c, &j, nth);
    } else {
        conv_plan(&plan, nth);
        j.res = act && plan.wpack ? act->res : NULL;
        if (nth == 1)
            conv_gemm_range(&j, 0, conv_tasks(&plan));
        else
            op_parallel_for(c, conv_tasks(&plan), conv_gemm_range, &j);
    }
    /* a residual the kernel did not take in its epilogue */
    if (act && act->res && !j.res)
        for (int64_t i = 0, len = plan.N * plan.M * plan.Pout; i < len; i++)
            out[i] += act->res[i];
    return RT_OK;
}

static int conv_run(op_ctx *c, graph_t *g, node_t *n)
{
    return conv_exec(c, g, n, NULL, NULL, node_output(g, n, 0)->data);
}

int conv_fusable(const node_t *n)
{
    const conv_p *p = n->priv;
    return n->def && n->def->run == conv_run && p && !p->transposed;
}

int conv_gather_ok(const node_t *n, int64_t channels)
{
    const conv_p *p = n->priv;
    return conv_fusable(n) && p->direct && p->C == channels && channels <= CONV_GATHER_MAXC;
}

int conv_run_fused(op_ctx *c, graph_t *g, node_t *n, const gemm_epi *act,
                   const conv_gather *src, int out)
{
    if (src && !conv_gather_ok(n, node_input(g, n, 0)->dims[1]))
        return rt_err(c->err, c->errlen, RT_EINTERNAL, "conv input gathered on another path");
    return conv_exec(c, g, n, act, src, g->t[out].data);
}

const void *conv_weights(const node_t *n, size_t *len)
{
    const conv_p *p = n->priv;
    *len = 0;
    if (!conv_fusable(n) || !p->wpack)
        return NULL;
    *len = sizeof(float) * p->wpack_group * (size_t)p->G;
    return p->wpack;
}

int conv_pair_ok(const node_t *na, const node_t *nb)
{
    if (!conv_fusable(na) || !conv_fusable(nb))
        return 0;
    const conv_p *a = na->priv, *b = nb->priv;
    dw512_geom d = pair_geom(b, 0, b->in[1], 0, b->out[1]);
    return a->direct && b->depthwise && b->nsp == 2 && b->N == a->N && b->C == a->M &&
           b->in[1] == a->out[1] && b->in[2] == a->out[2] && dw512_supported(&d);
}

static size_t round16(size_t n)
{
    return (n + 15) / 16 * 16;
}

int conv_run_pair(op_ctx *c, graph_t *g, node_t *na, const gemm_epi *act_a,
                  const conv_gather *src, node_t *nb, const gemm_epi *act_b, int out)
{
    if (!conv_pair_ok(na, nb) || (src && !conv_gather_ok(na, node_input(g, na, 0)->dims[1])))
        return rt_err(c->err, c->errlen, RT_EINTERNAL, "conv pair run on another path");
    const conv_p *a = na->priv, *b = nb->priv;
    const tensor_t *bias_a = node_input(g, na, 2), *bias_b = node_input(g, nb, 2);
    gemm_epi ea = act_a ? *act_a : (gemm_epi){.act = GEMM_ACT_NONE};
    gemm_epi eb = act_b ? *act_b : (gemm_epi){.act = GEMM_ACT_NONE};
    ea.res = eb.res = NULL;
    conv_job ja = {.p = a, .x = node_input(g, na, 0)->data, .w = node_input(g, na, 1)->data,
                   .b = bias_a ? bias_a->data : act_a ? act_a->bias : NULL,
                   .act = act_a ? &ea : NULL, .src = src};
    conv_job jb = {.p = b, .w = node_input(g, nb, 1)->data,
                   .b = bias_b ? bias_b->data : act_b ? act_b->bias : NULL,
                   .y = g->t[out].data, .act = act_b ? &eb : NULL};
    if (a->N == 0 || a->Pout == 0 || b->Pout == 0)
        return RT_OK;
    pair_job pj = {.a = &ja, .b = &jb};
    int64_t arows, kb = (b->k[1] - 1) * b->d[1];
    /* bands of about the rows of a's strip alone (within L2) */
    direct_geom(a, 1, &pj.wp, &arows);
    pj.band = arows > kb + 1 ? (arows - kb - 1) / b->s[1] + 1 : 1;
    pj.cap = (pj.band - 1) * b->s[1] + kb + 1;
    int nth = a->N * a->M * a->Pout * a->K < CONV_PAR_MIN_MACS ? 1 : c->nthreads;
    /* one task per batch item alone; else two per thread, each making again
     * the rows of a that the one before it also read */
    pj.rows = nth == 1 ? b->out[1] : ceil_div(b->out[1], 2 * nth);
    pj.ntask = ceil_div(b->out[1], pj.rows);
    pj.strip_n = round16((size_t)(a->Cg * strip_height(a, pj.cap) * pj.wp));
    pj.buf_n = round16((size_t)(a->M * pj.cap * a->out[2]));
    dw512_geom d = pair_geom(b, 0, pj.cap, 0, pj.band);
    pj.dw_n = dw512_scratch_floats(&d); /* the same for every band of at most band rows */
    if (nth == 1)
        conv_pair_range(&pj, 0, a->N * pj.ntask);
    else
        op_parallel_for(c, a->N * pj.ntask, conv_pair_range, &pj);
    return RT_OK;
}

/* ---- ConvTranspose ----------------------------------------------------- */

static int convt_geom(graph_t *g, const node_t *n, conv_p *p, char *err, size_t errlen)
{
    tensor_t *x = NULL, *w = NULL, *b;
    int rc = conv_inputs(g, n, p, 0, &x, &w, err, errlen);
    if (rc)
        return rc;
    int nsp = p->nsp, off = 3 - nsp;
    p->transposed = 1;
    if (w->dims[0] != p->C)
        return rt_err(err, errlen, RT_ESHAPE,
                      "node '%s' (ConvTranspose): W has %lld input channels, X has %lld",
                      n->name, (long long)w->dims[0], (long long)p->C);
    p->Mg = w->dims[1];
    p->M = p->Mg * p->G;
    b = node_input(g, n, 2);
    if (b && (b->ndim != 1 || b->dims[0] != p->M))
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (ConvTranspose): bias must have %lld elements",
                      n->name, (long long)p->M);

    int64_t opad[3] = {0, 0, 0}, oshape[3] = {0, 0, 0};
    const int64_t *v;
    int cnt = node_attr_ints(n, "output_padding", &v);
    if (cnt >= 0) {
        if (cnt != nsp)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (ConvTranspose): output_padding length",
                          n->name);
        for (int i = 0; i < nsp; i++)
            opad[off + i] = v[i];
    }
    int have_os = 0;
    cnt = node_attr_ints(n, "output_shape", &v);
    if (cnt >= 0) {
        if (cnt != nsp && cnt != nsp + 2)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (ConvTranspose): output_shape length",
                          n->name);
        for (int i = 0; i < nsp; i++)
            oshape[off + i] = v[cnt - nsp + i];
        have_os = 1;
    }
    int same = p->auto_pad == AUTO_PAD_SAME_UPPER || p->auto_pad == AUTO_PAD_SAME_LOWER;
    for (int i = 0; i < 3; i++) {
        int64_t ext = (p->k[i] - 1) * p->d[i] + 1;
        int64_t full = p->s[i] * (p->in[i] - 1) + opad[i] + ext;
        if (i < off) {
            p->out[i] = 1;
            continue;
        }
        if (have_os || same) {
            int64_t want = have_os ? oshape[i] : p->in[i] * p->s[i];
            int64_t tot = full - want;
            if (tot < 0)
                tot = 0; /* the extra output is never written: zero-padded at the end */
            if (p->auto_pad == AUTO_PAD_SAME_UPPER) {
                p->pb[i] = tot / 2;
                p->pe[i] = tot - tot / 2;
            } else {
                p->pb[i] = tot - tot / 2;
                p->pe[i] = tot / 2;
            }
            p->out[i] = want;
        } else {
            if (p->auto_pad == AUTO_PAD_VALID)
                p->pb[i] = p->pe[i] = 0;
            p->out[i] = full - p->pb[i] - p->pe[i];
        }
        if (p->out[i] < 1)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (ConvTranspose): empty output",
                          n->name);
    }
    p->K = p->Mg * p->kvol;
    p->Pout = p->out[0] * p->out[1] * p->out[2];
    return RT_OK;
}

static int convt_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    return conv_infer_by(convt_geom, g, n, err, errlen);
}

/* Kernel == stride, no padding or dilation, output exactly in * stride: every
 * input pixel writes its own k x k output block (PP-OCR's k2 s2 upsampling). */
static int convt_blocky(const conv_p *p)
{
    for (int i = 0; i < 3; i++)
        if (p->k[i] != p->s[i] || p->d[i] != 1 || p->pb[i] || p->pe[i] ||
            p->out[i] != p->in[i] * p->s[i])
            return 0;
    return p->G == 1;
}

void convt_pack_weights(const float *w, int64_t C, int64_t R, float *dst)
{
    float *wt = xmalloc(sizeof(float) * (size_t)(R * C));
    for (int64_t ci = 0; ci < C; ci++)
        for (int64_t r = 0; r < R; r++)
            wt[r * C + ci] = w[ci * R + r];
    gemm512_pack_a(wt, C, R, C, dst);
    free(wt);
}

static int convt_prepare(graph_t *g, node_t *n, char *err, size_t errlen)
{
    conv_p *p = xcalloc(1, sizeof *p);
    int rc = convt_geom(g, n, p, err, errlen);
    if (rc) {
        free(p);
        return rc;
    }
    /* Blocky ConvTranspose on AVX-512: W^T (rows (m, kz, ky, kx), columns c)
     * packed once for the GEMM, whose rows are then scattered to y. */
    const tensor_t *w = node_input(g, n, 1);
    if (convt_blocky(p) && w->kind == TK_CONST && w->data && p->K > 0 && p->C > 0 &&
        gemm512_available()) {
        int64_t rows = p->K; /* Mg * kvol, G == 1 */
        p->wpack_group = gemm512_packed_floats(rows, p->C);
        p->wpack = xaligned_alloc(sizeof(float) * p->wpack_group);
        convt_pack_weights(w->data, p->C, rows, p->wpack);
    }
    conv_release(n);
    n->priv = p;
    return RT_OK;
}

/* Adds col (rows for output channels [0, mcount) of this block) into y. */
HOT static void col2im(const conv_p *p, const float *col, int64_t mcount, float *y)
{
    const int64_t ID = p->in[0], IH = p->in[1], IW = p->in[2];
    const int64_t OD = p->out[0], OH = p->out[1], OW = p->out[2];
    const int64_t sx = p->s[2];
    int64_t row = 0;

    for (int64_t m = 0; m < mcount; m++) {
        float *ym = y + m * p->Pout;
        for (int64_t kz = 0; kz < p->k[0]; kz++)
        for (int64_t ky = 0; ky < p->k[1]; ky++)
        for (int64_t kx = 0; kx < p->k[2]; kx++, row++) {
            const float *cr = col + row * p->Pin;
            int64_t offx = kx * p->d[2] - p->pb[2];
            /* valid ix: 0 <= ix*s + offx < OW */
            int64_t lo = offx >= 0 ? 0 : ceil_div(-offx, sx);
            int64_t hi = OW - offx <= 0 ? 0 : ceil_div(OW - offx, sx);
            if (hi > IW)
                hi = IW;
            if (lo >= hi)
                continue;
            for (int64_t iz = 0; iz < ID; iz++) {
                int64_t oz = iz * p->s[0] - p->pb[0] + kz * p->d[0];
                if (oz < 0 || oz >= OD)
                    continue;
                for (int64_t iy = 0; iy < IH; iy++) {
                    int64_t oy = iy * p->s[1] - p->pb[1] + ky * p->d[1];
                    if (oy < 0 || oy >= OH)
                        continue;
                    const float *src = cr + (iz * IH + iy) * IW;
                    float *dst = ym + (oz * OH + oy) * OW + offx;
                    for (int64_t ix = lo; ix < hi; ix++)
                        dst[ix * sx] += src[ix];
                }
            }
        }
    }
}

static void convt_range(void *arg, int64_t t0, int64_t t1)
{
    const conv_job *j = arg;
    const conv_p *p = j->p;

    for (int64_t t = t0; t < t1; t++) {
        int64_t blk = t % p->nblk, ng = t / p->nblk;
        int64_t gi = ng % p->G, ni = ng / p->G;
        int64_t m0 = blk * p->mb, mc = p->Mg - m0 < p->mb ? p->Mg - m0 : p->mb;
        const float *x = j->x + (ni * p->C + gi * p->Cg) * p->Pin;
        /* W is C x (Mg*kvol); this block is columns [m0*kvol, (m0+mc)*kvol) of the group's rows */
        const float *w = j->w + gi * p->Cg * p->K + m0 * p->kvol;
        float *y = j->y + (ni * p->M + gi * p->Mg + m0) * p->Pout;
        int64_t rows = mc * p->kvol;
        float *col = scratch_get((size_t)(rows * p->Pin));

        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)rows, (int)p->Pin, (int)p->Cg,
                    1.0f, w, (int)p->K, x, (int)p->Pin, 0.0f, col, (int)p->Pin);
        for (int64_t m = 0; m < mc; m++) {
            float bv = j->b ? j->b[gi * p->Mg + m0 + m] : 0.0f;
            float *ym = y + m * p->Pout;
            for (int64_t q = 0; q < p->Pout; q++)
                ym[q] = bv;
        }
        col2im(p, col, mc, y);
    }
}

/* Blocky path: a task is a run of input rows (all planes of one batch item):
 * GEMM into a small buffer, then each row (m, kz, ky, kx) lands at stride s. */
typedef struct convt_job {
    const conv_p *p;
    const float *x, *b;
    float *y;
    int64_t rows_per_task, ntask;
} convt_job;

static void convt_blocky_range(void *arg, int64_t t0, int64_t t1)
{
    const convt_job *j = arg;
    const conv_p *p = j->p;
    const int64_t R = p->K, IW = p->in[2], IH = p->in[1], ID = p->in[0];
    const int64_t OH = p->out[1], OW = p->out[2], sx = p->s[2], sy = p->s[1], sz = p->s[0];
    const int64_t rows_total = ID * IH; /* input rows of one plane */

    for (int64_t t = t0; t < t1; t++) {
        int64_t ni = t / j->ntask, r0 = (t % j->ntask) * j->rows_per_task;
        int64_t nr = rows_total - r0 < j->rows_per_task ? rows_total - r0 : j->rows_per_task;
        int64_t ncol = nr * IW;
        float *tmp = scratch_get((size_t)(R * ncol));
        gemm_epi e = {.act = GEMM_ACT_NONE};
        gemm512_run(p->wpack, R, p->C, j->x + ni * p->C * p->Pin + r0 * IW, p->Pin, ncol, tmp,
                    ncol, &e);
        /* with a 2-wide kernel the kx = 0, 1 rows are adjacent: interleave them */
        int pair = sx == 2;
        for (int64_t r = 0; r < R; r += pair ? 2 : 1) {
            int64_t m = r / p->kvol, kk = r % p->kvol;
            int64_t kz = kk / (p->k[1] * p->k[2]), ky = kk / p->k[2] % p->k[1], kx = kk % p->k[2];
            float bv = j->b ? j->b[m] : 0.0f;
            float *ym = j->y + (ni * p->M + m) * p->Pout;
            const float *src = tmp + r * ncol;
            for (int64_t q = 0; q < nr; q++) {
                int64_t iz = (r0 + q) / IH, iy = (r0 + q) % IH;
                float *d = ym + ((iz * sz + kz) * OH + iy * sy + ky) * OW + kx;
                const float *sr = src + q * IW;
                if (pair) {
                    interleave2_bias(d, sr, sr + ncol, IW, bv);
                    continue;
                }
                for (int64_t ix = 0; ix < IW; ix++)
                    d[ix * sx] = sr[ix] + bv;
            }
        }
    }
}

static int convt_run(op_ctx *c, graph_t *g, node_t *n)
{
    conv_p local, *p = n->priv;
    if (!p) {
        int rc = convt_geom(g, n, &local, c->err, c->errlen);
        if (rc)
            return rc;
        p = &local;
    }
    conv_p plan = *p;
    tensor_t *b = node_input(g, n, 2);
    conv_job j = {
        .p = &plan,
        .x = node_input(g, n, 0)->data,
        .w = node_input(g, n, 1)->data,
        .b = b ? b->data : NULL,
        .y = node_output(g, n, 0)->data,
    };
    if (plan.N == 0 || plan.M == 0)
        return RT_OK;
    int nth = plan.N * plan.G * plan.K * plan.Cg * plan.Pin < CONV_PAR_MIN_MACS ? 1 : c->nthreads;
    if (plan.wpack) {
        convt_job cj = {.p = &plan, .x = j.x, .b = j.b, .y = j.y};
        int64_t rows = plan.in[0] * plan.in[1];
        /* about CONV_COL_BLOCK_FLOATS of GEMM output per task, and work for every thread */
        int64_t kin = plan.K * plan.in[2] > 0 ? plan.K * plan.in[2] : 1;
        int64_t per = CONV_COL_BLOCK_FLOATS / kin;
        if (per < 1)
            per = 1;
        if (nth > 1 && per > ceil_div(rows, 2 * nth))
            per = ceil_div(rows, 2 * nth);
        cj.rows_per_task = per;
        cj.ntask = ceil_div(rows, per);
        if (nth == 1)
            convt_blocky_range(&cj, 0, plan.N * cj.ntask);
        else
            op_parallel_for(c, plan.N * cj.ntask, convt_blocky_range, &cj);
        return RT_OK;
    }
    /* Channel blocks: bounded scratch, and work for every thread. */
    int64_t mb = plan.Mg;
    int64_t lim = (4 * CONV_COL_BLOCK_FLOATS) / (plan.kvol * (plan.Pin > 0 ? plan.Pin : 1));
    if (lim < 1)
        lim = 1;
    if (mb > lim)
        mb = lim;
    int64_t want = nth > 1 ? 2 * nth : 1;
    if (plan.N * plan.G * ceil_div(plan.Mg, mb) < want) {
        int64_t per = ceil_div(want, plan.N * plan.G);
        mb = ceil_div(plan.Mg, per);
    }
    plan.mb = mb;
    plan.nblk = ceil_div(plan.Mg, mb);
    if (nth == 1)
        convt_range(&j, 0, plan.N * plan.G * plan.nblk);
    else
        op_parallel_for(c, plan.N * plan.G * plan.nblk, convt_range, &j);
    return RT_OK;
}

static const op_fusion conv_fusion = {
    .fusable = conv_fusable,
    .run_fused = conv_run_fused,
    .gather_ok = conv_gather_ok,
    .pair_ok = conv_pair_ok,
    .run_pair = conv_run_pair,
    .weights = conv_weights,
};

const op_def exec_ops_conv[] = {
    {"Conv", "", conv_infer, conv_prepare, conv_run, conv_release, &conv_fusion},
    {"ConvTranspose", "", convt_infer, convt_prepare, convt_run, conv_release, NULL},
    {0},
};
