/* runtime/quant/qkernels.c — int8 Conv / Gemm / MatMul with exact int32
 * accumulation (see quant.h for the numerics). Inputs arrive as float tensors
 * whose values lie on their int8 grid; they are mapped back to (q - zp) exactly,
 * multiplied by int8 weights (zp 0), summed in int32 with an int32 bias, and the
 * accumulator is scaled by s_in * s_w[c] into the float output. Conv sums
 * through BLAS (exact, see quant.h); Gemm/MatMul in simple int32 loops. */
#include "runtime/quant/quant.h"
#include "runtime/exec/kernels.h"
#include "util/util.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Input activations as int16 (q - zp), in [-255, 255]. */
static int16_t *quantize_input(const float *x, int64_t n, const qparam_t *p)
{
    int16_t *q = xmalloc(sizeof(int16_t) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++)
        q[i] = (int16_t)(quant_q8(x[i], p) - p->zp);
    return q;
}

/* ---- Conv (2-D, any group) ---- */

typedef struct conv_geom {
    int64_t N, C, H, W, M, OH, OW, KH, KW, G;
    int64_t sh, sw, dh, dw, pt, pl;
} conv_geom;

static int conv_geometry(graph_t *g, const node_t *n, conv_geom *c)
{
    const tensor_t *x = node_input(g, n, 0), *w = node_input(g, n, 1), *y = node_output(g, n, 0);
    node_window win;

    if (!x || !w || !y || x->ndim != 4 || w->ndim != 4 || y->ndim != 4 ||
        node_window_read(n, 2, w->dims + 2, x->dims + 2, &win, NULL, 0))
        return -1;
    c->N = x->dims[0], c->C = x->dims[1], c->H = x->dims[2], c->W = x->dims[3];
    c->M = w->dims[0], c->KH = w->dims[2], c->KW = w->dims[3];
    c->OH = y->dims[2], c->OW = y->dims[3];
    c->G = node_attr_int(n, "group", 1);
    c->sh = win.s[1], c->sw = win.s[2];
    c->dh = win.d[1], c->dw = win.d[2];
    c->pt = win.pb[1], c->pl = win.pb[2];
    if (c->G < 1 || c->C % c->G || c->M % c->G || w->dims[1] != c->C / c->G ||
        y->dims[1] != c->M || y->dims[0] != c->N)
        return -1;
    return 0;
}

/* The loops that touch every output: vectorised, with an AVX2 clone. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define QHOT \
    __attribute__((optimize("O3"), target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define QHOT __attribute__((optimize("O3")))
#endif

/* out[i] = q - zp of n input values as floats: from their bytes (q + 128)
 * when xb is not NULL (the integer as quant_q8_centered gives it, +0 for
 * 0), else by quantizing x. */
QHOT static void centre_bytes(const uint8_t *xb, float *out, int64_t n, int32_t zq)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = (float)((int32_t)xb[i] - zq);
}

static void centre(const float *x, const uint8_t *xb, float *out, int64_t n, const qparam_t *p)
{
    if (xb)
        centre_bytes(xb, out, n, p->zp + 128);
    else
        quant_q8_centered(x, out, n, p);
}

/* Integer sums through BLAS: inputs (q - zp) and weights are small integers,
 * so a float GEMM is exact while partial sums stay below 2^24 (checked per
 * layer when the weights are prepared, else a double GEMM is used). Tasks are
 * (batch, group, block of output positions), each with its own im2col block. */
#define QCOL_BYTES (512 * 1024)

/* A run's requantization in the byte tiles' registers (qepi_begin, see
 * "fused requantization" below): the per-channel constants, the output grid
 * and where the outputs go. */
typedef struct qepi {
    const int32_t *init;     /* per channel: the sums' start, bias - (zp + 128) sum w */
    const float *cf;         /* per channel: fl(s_in s_w / s_out) */
    const double *sc;        /* per channel: s_in s_w */
    const qparam_t *out;
    const quant_lut8 *lut8;  /* a chain's table as bytes, or NULL; */
    int lut_ch;              /* one per output channel (quant_node.lut_ch) */
    int qlo, qhi;            /* the clamp of q (a Relu or Clip), else -128, 127 */
    uint8_t *b;              /* the output's bytes beside y_run (q->ob_run), or NULL */
    const float *y_run;
    int floats;              /* 0: the floats are unread (quant_bytes.only_bytes) */
} qepi;

typedef struct conv_job {
    const conv_geom *c;
    const quant_node *q;
    const float *x;          /* (q - zp) of the input, NCHW */
    float *y;
    int64_t K, P, cols, nblk;
    int pointwise;
    int raw;                 /* x is the raw input, centred block by block */
    const uint8_t *xb;       /* the raw input's bytes (conv_in_bytes), or NULL */
    int *nobytes;            /* set when some output missed epi_scale_rows (its bytes) */
    const qepi *epi;         /* the depthwise byte tiles requantize in registers, or NULL */
} conv_job;

/* Block [p0, p0 + nc) of the output positions, one row per (ci, kh, kw):
 * walked output row by output row, so that the input row and the valid column
 * range are worked out once per row, not per element. */
#define IM2COL(T)                                                                          \
    QHOT static void im2col_##T(const conv_geom *c, const float *x, T *col, int64_t p0,        \
                           int64_t nc, int64_t cg)                                        \
    {                                                                                      \
        for (int64_t ci = 0; ci < cg; ci++)                                                \
            for (int64_t kh = 0; kh < c->KH; kh++)                                         \
                for (int64_t kw = 0; kw < c->KW; kw++) {                                   \
                    T *row = col + ((ci * c->KH + kh) * c->KW + kw) * nc;                  \
                    const float *xc = x + ci * c->H * c->W;                                \
                    int64_t offw = kw * c->dw - c->pl;                                     \
                    /* ow with 0 <= ow * sw + offw < W */                                  \
                    int64_t lo = offw >= 0 ? 0 : (-offw + c->sw - 1) / c->sw;             \
                    int64_t hi = c->W - offw <= 0 ? 0 : (c->W - offw + c->sw - 1) / c->sw; \
                    hi = hi > c->OW ? c->OW : hi;                                          \
                    lo = lo > hi ? hi : lo;                                                \
                    for (int64_t p = p0, j = 0; j < nc;) {                                 \
                        int64_t oh = p / c->OW, ow0 = p % c->OW;                           \
                        int64_t ow1 = ow0 + (nc - j) < c->OW ? ow0 + (nc - j) : c->OW;     \
                        int64_t ih = oh * c->sh - c->pt + kh * c->dh;                      \
                        T *r = row + j - ow0;                                              \
                        if (ih < 0 || ih >= c->H) {                                        \
                            for (int64_t ow = ow0; ow < ow1; ow++)                         \
                                r[ow] = 0;                                                 \
                        } else {                                                           \
                            const float *xr = xc + ih * c->W + offw;                       \
                            int64_t a = lo > ow0 ? lo : ow0, b = hi < ow1 ? hi : ow1;      \
                            a = a > ow1 ? ow1 : a;                                         \
                            b = b < a ? a : b;                                             \
                            for (int64_t ow = ow0; ow < a; ow++)                           \
                                r[ow] = 0;                                                 \
                            if (c->sw == 1)                                                \
                                for (int64_t ow = a; ow < b; ow++)                         \
                                    r[ow] = (T)xr[ow];                                     \
                            else                                                           \
                                for (int64_t ow = a; ow < b; ow++)                         \
                                    r[ow] = (T)xr[ow * c->sw];                             \
                            for (int64_t ow = b; ow < ow1; ow++)                           \
                                r[ow] = 0;                                                 \
                        }                                                                  \
                        j += ow1 - ow0;                                                    \
                        p += ow1 - ow0;                                                    \
                    }                                                                      \
                }                                                                          \
    }
IM2COL(double)

/* The float im2col (the common path), walked output row by output row with
 * no division per row: for stride 1 each input row is padded once into prow
 * (OW + (KW - 1) * dw floats), and every kw row of the block is a plain copy
 * from it; other strides gather with the valid column range worked out once
 * per kw. no-tree-loop-distribute-patterns keeps the short copies as loops. */
__attribute__((optimize("no-tree-loop-distribute-patterns")))
QHOT static void im2col_f(const conv_geom *c, const float *x, float *col, int64_t p0, int64_t nc,
                          int64_t cg, float *prow)
{
    const int64_t OW = c->OW, W = c->W, KW = c->KW, len = OW + (KW - 1) * c->dw;
    /* stride 1: prow columns [lpad, rend) come from the input row */
    int64_t lpad = c->pl < 0 ? 0 : c->pl > len ? len : c->pl;
    int64_t rend = c->pl + W < lpad ? lpad : c->pl + W > len ? len : c->pl + W;

    for (int64_t ci = 0; ci < cg; ci++) {
        const float *xc = x + ci * c->H * W;
        for (int64_t kh = 0; kh < c->KH; kh++) {
            float *rows = col + (ci * c->KH + kh) * KW * nc; /* KW rows of nc */
            int64_t oh = p0 / OW, ow0 = p0 % OW;
            for (int64_t j = 0; j < nc; oh++, ow0 = 0) {
                int64_t ow1 = ow0 + (nc - j) < OW ? ow0 + (nc - j) : OW, seg = ow1 - ow0;
                int64_t ih = oh * c->sh - c->pt + kh * c->dh;
                if (ih < 0 || ih >= c->H) {
                    for (int64_t kw = 0; kw < KW; kw++) {
                        float *r = rows + kw * nc + j;
                        for (int64_t k = 0; k < seg; k++)
                            r[k] = 0.0f;
                    }
                } else if (c->sw == 1) {
                    /* prow[i] = input column i - pl, 0 outside the row */
                    const float *src = xc + ih * W;
                    for (int64_t i = 0; i < lpad; i++)
                        prow[i] = 0.0f;
                    for (int64_t i = lpad; i < rend; i++)
                        prow[i] = src[i - c->pl];
                    for (int64_t i = rend; i < len; i++)
                        prow[i] = 0.0f;
                    for (int64_t kw = 0; kw < KW; kw++) {
                        float *r = rows + kw * nc + j;
                        const float *pr = prow + kw * c->dw + ow0;
                        for (int64_t k = 0; k < seg; k++)
                            r[k] = pr[k];
                    }
                } else {
                    const float *src = xc + ih * W;
                    for (int64_t kw = 0; kw < KW; kw++) {
                        float *r = rows + kw * nc + j - ow0;
                        int64_t offw = kw * c->dw - c->pl;
                        /* ow with 0 <= ow * sw + offw < W, within [ow0, ow1) */
                        int64_t lo = offw >= 0 ? 0 : (-offw + c->sw - 1) / c->sw;
                        int64_t hi = W - offw <= 0 ? 0 : (W - offw + c->sw - 1) / c->sw;
                        lo = lo < ow0 ? ow0 : lo > ow1 ? ow1 : lo;
                        hi = hi > ow1 ? ow1 : hi < lo ? lo : hi;
                        for (int64_t ow = ow0; ow < lo; ow++)
                            r[ow] = 0.0f;
                        if (c->sw == 2) /* a constant stride vectorises (permutes) */
                            for (int64_t ow = lo; ow < hi; ow++)
                                r[ow] = src[2 * ow + offw];
                        else
                            for (int64_t ow = lo; ow < hi; ow++)
                                r[ow] = src[ow * c->sw + offw];
                        for (int64_t ow = hi; ow < ow1; ow++)
                            r[ow] = 0.0f;
                    }
                }
                j += seg;
            }
        }
    }
}

/* A fused chain's step on finished output values (quant_node.post). */
static inline void epi_post(const quant_node *q, float *y, int64_t n)
{
    if (q->post)
        q->post(q->post_arg, y, n);
}

/* Scaling and requantization of rows of n exact sums, output channels m0,
 * m0 + 1, ...: row r from x + r * ldx to y + r * ldy (the same: in place).
 * Float in, float out, or double in (epi_row_d). The double product and the
 * narrowing to float are what the numerics specify (quant.h); the output grid
 * and the post step while the rows are in cache (a chain's table or a Relu's
 * clamp in the same register pass). */
static void epi_scale_rows(const float *x, int64_t ldx, float *y, int64_t ldy, int64_t rows,
                           int64_t n, int64_t m0, const quant_node *q)
{
    int lut = q->lut && q->out_q, clamp = q->clamp && q->out_q && !lut;
    /* the bytes beside the floats, at the same offsets (conv_bytes_begin) */
    uint8_t *b = q->ob_run ? q->ob_run + (y - q->y_run) : NULL;
    /* a table per channel: row by row, each with its own */
    for (int64_t r0 = 0, r1; r0 < rows; r0 = r1) {
        r1 = lut && q->lut_ch ? r0 + 1 : rows;
        int64_t t = lut && q->lut_ch ? m0 + r0 : 0;
        quant_epilogue_rows_bytes(x + r0 * ldx, ldx, y + r0 * ldy, ldy, r1 - r0, n,
                                  q->bias ? q->bias + m0 + r0 : NULL, q->oscale + m0 + r0,
                                  q->out_q ? &q->out : NULL, lut ? q->lut + 256 * t : NULL,
                                  lut && q->lut8 ? q->lut8 + t : NULL, clamp ? q->qlo : -128,
                                  clamp ? q->qhi : 127, b ? b + r0 * ldy : NULL, ldy,
                                  !q->no_floats);
    }
    if (!lut && !clamp && q->post)
        for (int64_t r = 0; r < rows; r++)
            epi_post(q, y + r * ldy, n);
}

QHOT static void epi_row_d(const double *a, float *y, int64_t n, double bias, double s,
                           const quant_node *q)
{
    for (int64_t k = 0; k < n; k++)
        y[k] = (float)((a[k] + bias) * s);
    if (q->out_q)
        quant_qdq(y, n, &q->out);
    epi_post(q, y, n);
}

/* Pointwise on the raw input, columns [0, nc) of x (row stride P): in
 * sub-blocks of PW_SUB columns, each centred, summed and scaled while its rows
 * are in cache; every input value is centred once over all tasks. */
#define PW_SUB (6 * GEMM_NR)

static void pw_block(const conv_job *j, int64_t gi, const float *x, float *y, int64_t nc)
{
    const quant_node *q = j->q;
    int64_t cg = j->c->C / j->c->G, mg = j->c->M / j->c->G;
    float *blkq = kernel_scratch(SCRATCH_Q_BLOCK, sizeof(float) * (size_t)(cg * PW_SUB));

    for (int64_t s0 = 0; s0 < nc; s0 += PW_SUB) {
        int64_t ns = nc - s0 < PW_SUB ? nc - s0 : PW_SUB;
        for (int64_t k = 0; k < cg; k++)
            centre(x + k * j->P + s0, j->xb ? j->xb + (x - j->x) + k * j->P + s0 : NULL,
                   blkq + k * ns, ns, &q->in);
        if (q->wpack) {
            gemm_epi e = {.act = GEMM_ACT_NONE};
            gemm512_run(q->wpack + (size_t)gi * q->wpack_group, mg, j->K, blkq, ns, ns, y + s0,
                        j->P, &e);
        } else {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)mg, (int)ns, (int)j->K,
                        1.0f, q->wf + gi * mg * j->K, (int)j->K, blkq, (int)ns, 0.0f, y + s0,
                        (int)j->P);
        }
        epi_scale_rows(y + s0, j->P, y + s0, j->P, mg, ns, gi * mg, q);
    }
}

QHOT static void conv_range(void *arg, int64_t t0, int64_t t1)
{
    const conv_job *j = arg;
    const conv_geom *c = j->c;
    const quant_node *q = j->q;
    int64_t cg = c->C / c->G, mg = c->M / c->G;

    for (int64_t t = t0; t < t1; t++) {
        int64_t blk = t % j->nblk, ng = t / j->nblk, gi = ng % c->G, ni = ng / c->G;
        int64_t p0 = blk * j->cols, nc = j->P - p0 < j->cols ? j->P - p0 : j->cols;
        const float *x = j->x + (ni * c->C + gi * cg) * c->H * c->W;
        float *y = j->y + (ni * c->M + gi * mg) * j->P + p0;
        if (!q->wd) {
            const float *b = x + p0;
            int64_t ldb = j->P;
            if (j->raw) {
                pw_block(j, gi, x + p0, y, nc);
                continue;
            }
            if (!j->pointwise) {
                int64_t len = c->OW + (c->KW - 1) * c->dw;
                float *col = kernel_scratch(SCRATCH_Q_BLOCK, sizeof(float) * (size_t)(j->K * nc + len));
                im2col_f(c, x, col, p0, nc, cg, col + j->K * nc);
                b = col;
                ldb = nc;
            }
            if (q->wpack) {
                gemm_epi e = {.act = GEMM_ACT_NONE};
                gemm512_run(q->wpack + (size_t)gi * q->wpack_group, mg, j->K, b, ldb, nc, y,
                            j->P, &e);
            } else {
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)mg, (int)nc,
                            (int)j->K, 1.0f, q->wf + gi * mg * j->K, (int)j->K, b, (int)ldb,
                            0.0f, y, (int)j->P);
            }
            epi_scale_rows(y, j->P, y, j->P, mg, nc, gi * mg, q);
        } else {
            double *col = kernel_scratch(SCRATCH_Q_BLOCK, sizeof(double) * (size_t)(j->K * nc));
            double *acc = kernel_scratch(SCRATCH_Q_ACC, sizeof(double) * (size_t)(mg * nc));
            im2col_double(c, x, col, p0, nc, cg);
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)mg, (int)nc, (int)j->K,
                        1.0, q->wd + gi * mg * j->K, (int)j->K, col, (int)nc, 0.0, acc,
                        (int)nc);
            for (int64_t m = 0; m < mg; m++) {
                int64_t mm = gi * mg + m;
                epi_row_d(acc + m * nc, y + m * j->P, nc, q->bias ? q->bias[mm] : 0,
                          q->oscale[mm], q);
            }
        }
    }
}

/* Depthwise (one input and one output channel per group): per plane, output
 * row by output row, taps added in float (exact: 255 * sum|w| < 2^24). Each
 * task centres its input plane itself (j->raw), while it is in cache. */
static int dwv_range(const conv_job *j, int64_t t0, int64_t t1);

QHOT static void dw_range(void *arg, int64_t t0, int64_t t1)
{
    const conv_job *j = arg;
    if (j->raw && dwv_range(j, t0, t1))
        return;
    const conv_geom *c = j->c;
    const quant_node *q = j->q;
    const int64_t HW = c->H * c->W;
    dw512_geom d = {
        .IH = c->H, .IW = c->W, .OH = c->OH, .OW = c->OW, .KH = c->KH, .KW = c->KW,
        .sy = c->sh, .sx = c->sw, .dy = c->dh, .dx = c->dw, .pt = c->pt, .pl = c->pl,
    };
    if (dw512_supported(&d)) {
        /* the fp32 AVX-512 plane kernel with bias 0: its fused multiply-adds
         * of integers stay exact (255 * sum|w| < 2^24), in any order */
        float *ph = kernel_scratch(SCRATCH_Q_ACC, sizeof(float) * dw512_scratch_floats(&d));
        dw512_begin(&d, NULL, ph);
        /* runs of planes of one batch item (up to 32, and 64 KB of input):
         * centred in one call, then the epilogue in one call while the
         * outputs are in cache (per plane, the calls' set-up showed on small
         * planes such as PP-OCR's 2 x 96) */
        int64_t run = 16384 / (HW ? HW : 1);
        run = run < 1 ? 1 : run > 32 ? 32 : run;
        float *cen = j->raw ? kernel_scratch(SCRATCH_Q_BLOCK, sizeof(float) * (size_t)(run * HW))
                            : NULL;
        for (int64_t t = t0, end; t < t1; t = end) {
            int64_t m0 = t % c->M;
            end = t + run < t1 ? t + run : t1;
            end = end - t > c->M - m0 ? t + c->M - m0 : end;
            const float *x = j->x + t * HW;
            if (cen) {
                centre(x, j->xb ? j->xb + t * HW : NULL, cen, (end - t) * HW, &q->in);
                x = cen;
            }
            for (int64_t k = 0; k < end - t; k++)
                dw512_plane(&d, x + k * HW, q->wf + (m0 + k) * c->KH * c->KW, 0.0f, NULL,
                            j->y + (t + k) * j->P, ph);
            float *y = j->y + t * j->P;
            epi_scale_rows(y, j->P, y, j->P, end - t, j->P, m0, q);
        }
        return;
    }
    float *acc = kernel_scratch(SCRATCH_Q_ACC, sizeof(float) * (size_t)(c->OW ? c->OW : 1));
    float *plane = j->raw ? kernel_scratch(SCRATCH_Q_BLOCK, sizeof(float) * (size_t)HW) : NULL;
    __atomic_store_n(j->nobytes, 1, __ATOMIC_RELAXED); /* its own epilogue */

    for (int64_t t = t0; t < t1; t++) {
        int64_t m = t % c->M;
        const float *x = j->x + t * HW, *w = q->wf + m * c->KH * c->KW;
        float *y = j->y + t * j->P;
        double s = q->oscale[m], bias = q->bias ? q->bias[m] : 0;
        if (plane) {
            centre(x, j->xb ? j->xb + t * HW : NULL, plane, HW, &q->in);
            x = plane;
        }
        for (int64_t oh = 0; oh < c->OH; oh++) {
            memset(acc, 0, sizeof(float) * (size_t)c->OW);
            for (int64_t kh = 0; kh < c->KH; kh++) {
                int64_t ih = oh * c->sh - c->pt + kh * c->dh;
                if (ih < 0 || ih >= c->H)
                    continue;
                for (int64_t kw = 0; kw < c->KW; kw++) {
                    float wv = w[kh * c->KW + kw];
                    int64_t offw = kw * c->dw - c->pl;
                    int64_t lo = offw >= 0 ? 0 : (-offw + c->sw - 1) / c->sw;
                    int64_t hi = c->W - offw <= 0 ? 0 : (c->W - offw + c->sw - 1) / c->sw;
                    hi = hi > c->OW ? c->OW : hi;
                    const float *xr = x + ih * c->W + offw;
                    if (wv == 0)
                        continue;
                    if (c->sw == 1)
                        for (int64_t ow = lo; ow < hi; ow++)
                            acc[ow] += wv * xr[ow];
                    else
                        for (int64_t ow = lo; ow < hi; ow++)
                            acc[ow] += wv * xr[ow * c->sw];
                }
            }
            float *yr = y + oh * c->OW;
            for (int64_t ow = 0; ow < c->OW; ow++)
                yr[ow] = (float)(((double)acc[ow] + bias) * s);
            if (q->out_q)
                quant_qdq(yr, c->OW, &q->out);
            epi_post(q, yr, c->OW);
        }
    }
}

/* ---- stride-1 convs without im2col (AVX-512) ----
 * The centred input is copied once into zero-padded planes Hp x Wp. Output
 * (oh, ow) is then computed at padded position p = oh * Wp + ow, and GEMM row
 * k = (ci, kh, kw) of a block of output rows is simply the plane of ci read
 * from (oh0 + kh * dh) * Wp + kw * dw onwards: every row is a pointer, no
 * copy. Columns ow >= OW of each padded row are computed and dropped. The
 * weights are gemm512_pack_a's panels (GEMM_MR rows, k-major). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define QIMPLICIT 1
#include <immintrin.h>
#define QT512 __attribute__((target("avx512f"), optimize("O3")))

#define QROW(r)                                                                  \
    do {                                                                         \
        __m512 a_ = _mm512_set1_ps(ak[r]);                                       \
        c##r##0 = _mm512_fmadd_ps(a_, b0, c##r##0);                              \
        c##r##1 = _mm512_fmadd_ps(a_, b1, c##r##1);                              \
        c##r##2 = _mm512_fmadd_ps(a_, b2, c##r##2);                              \
    } while (0)
#define QSTORE(r)                                                                \
    do {                                                                         \
        if (r < nr) {                                                            \
            _mm512_storeu_ps(c + r * ldc, c##r##0);                              \
            _mm512_storeu_ps(c + r * ldc + 16, c##r##1);                         \
            _mm512_storeu_ps(c + r * ldc + 32, c##r##2);                         \
        }                                                                        \
    } while (0)

/* c[r][0..48) = sum_k ap[k][r] * brow[k][j0..j0 + 48) for r < nr; the sums
 * are of integers below 2^24, exact in any order. c has room for 48 columns
 * (the caller's scratch is padded), brow rows are readable that far. */
QT512 static void qtile(int64_t K, const float *ap, const float *const *brow, int64_t j0,
                        float *c, int64_t ldc, int nr)
{
    __m512 z = _mm512_setzero_ps();
    __m512 c00 = z, c01 = z, c02 = z, c10 = z, c11 = z, c12 = z, c20 = z, c21 = z, c22 = z;
    __m512 c30 = z, c31 = z, c32 = z, c40 = z, c41 = z, c42 = z, c50 = z, c51 = z, c52 = z;
    __m512 c60 = z, c61 = z, c62 = z, c70 = z, c71 = z, c72 = z;
    for (int64_t k = 0; k < K; k++) {
        const float *bk = brow[k] + j0, *ak = ap + k * GEMM_MR;
        __m512 b0 = _mm512_loadu_ps(bk), b1 = _mm512_loadu_ps(bk + 16);
        __m512 b2 = _mm512_loadu_ps(bk + 32);
        QROW(0); QROW(1); QROW(2); QROW(3); QROW(4); QROW(5); QROW(6); QROW(7);
    }
    QSTORE(0); QSTORE(1); QSTORE(2); QSTORE(3); QSTORE(4); QSTORE(5); QSTORE(6); QSTORE(7);
}
#endif

typedef struct impl_job {
    const conv_geom *c;
    const quant_node *q;
    const float *xp;       /* padded centred planes, C x Hp x Wp (+ slack) */
    float *y;
    int64_t Hp, Wp, K, rows, nblk;
} impl_job;

/* Slack floats after the planes: the widest over-read of a padded row. */
#define QIMPL_SLACK(c) (((c)->KW - 1) * (c)->dw + GEMM_NR + 16)

QHOT static void impl_epilogue(const impl_job *j, const float *acc, int64_t ldc, int64_t mm,
                               int64_t oh0, int64_t nrow, float *y)
{
    const quant_node *q = j->q;
    const int64_t OW = j->c->OW;
    double s = q->oscale[mm], bias = q->bias ? q->bias[mm] : 0;
    for (int64_t r = 0; r < nrow; r++) {
        const float *a = acc + r * j->Wp;
        float *yr = y + (oh0 + r) * OW;
        for (int64_t ow = 0; ow < OW; ow++)
            yr[ow] = (float)(((double)a[ow] + bias) * s);
    }
    (void)ldc;
    if (q->out_q)
        quant_qdq(y + oh0 * OW, nrow * OW, &q->out);
    epi_post(q, y + oh0 * OW, nrow * OW);
}

static void impl_range(void *arg, int64_t t0, int64_t t1)
{
#ifdef QIMPLICIT
    const impl_job *j = arg;
    const conv_geom *c = j->c;
    const quant_node *q = j->q;
    int64_t cg = c->C / c->G, mg = c->M / c->G;
    int64_t ncol = j->rows * j->Wp, ncp = (ncol + GEMM_NR - 1) / GEMM_NR * GEMM_NR;
    const float **brow = kernel_scratch(SCRATCH_Q_ROWS, sizeof(*brow) * (size_t)j->K);
    int64_t mgp = (mg + GEMM_MR - 1) / GEMM_MR * GEMM_MR;
    float *acc = kernel_scratch(SCRATCH_Q_ACC, sizeof(float) * (size_t)(mgp * ncp));

    for (int64_t t = t0; t < t1; t++) {
        int64_t blk = t % j->nblk, ng = t / j->nblk, gi = ng % c->G, ni = ng / c->G;
        int64_t oh0 = blk * j->rows, nrow = c->OH - oh0 < j->rows ? c->OH - oh0 : j->rows;
        int64_t nc = nrow * j->Wp;
        const float *xg = j->xp + (ni * c->C + gi * cg) * j->Hp * j->Wp;
        for (int64_t ci = 0, k = 0; ci < cg; ci++)
            for (int64_t kh = 0; kh < c->KH; kh++)
                for (int64_t kw = 0; kw < c->KW; kw++, k++)
                    brow[k] = xg + ci * j->Hp * j->Wp + (oh0 + kh * c->dh) * j->Wp + kw * c->dw;
        const float *ap = q->wpack + (size_t)gi * q->wpack_group;
        float *yg = j->y + (ni * c->M + gi * mg) * c->OH * c->OW;
        /* column tiles outside: a tile's K rows of B stay in cache for every
         * panel of output channels */
        for (int64_t j0 = 0; j0 < nc; j0 += GEMM_NR)
            for (int64_t i = 0; i < mg; i += GEMM_MR) {
                int nr = mg - i < GEMM_MR ? (int)(mg - i) : GEMM_MR;
                qtile(j->K, ap + i * j->K, brow, j0, acc + i * ncp + j0, ncp, nr);
            }
        for (int64_t m = 0; m < mg; m++)
            impl_epilogue(j, acc + m * ncp, ncp, gi * mg + m, oh0, nrow,
                          yg + m * c->OH * c->OW);
    }
#else
    (void)arg, (void)t0, (void)t1;
#endif
}

typedef struct pad_job {
    const conv_geom *c;
    const quant_node *q;
    const float *x;
    const uint8_t *xb;
    float *xp;
    int64_t Hp, Wp;
} pad_job;

/* Channels [t0, t1) centred into their zero-padded planes. */
static void pad_range(void *arg, int64_t t0, int64_t t1)
{
    const pad_job *p = arg;
    const conv_geom *c = p->c;
    for (int64_t ch = t0; ch < t1; ch++) {
        float *d = p->xp + ch * p->Hp * p->Wp;
        const float *src = p->x + ch * c->H * c->W;
        memset(d, 0, sizeof(float) * (size_t)(c->pt * p->Wp));
        for (int64_t h = 0; h < c->H; h++) {
            float *dr = d + (c->pt + h) * p->Wp;
            memset(dr, 0, sizeof(float) * (size_t)c->pl);
            centre(src + h * c->W, p->xb ? p->xb + ch * c->H * c->W + h * c->W : NULL,
                   dr + c->pl, c->W, &p->q->in);
            memset(dr + c->pl + c->W, 0, sizeof(float) * (size_t)(p->Wp - c->pl - c->W));
        }
        memset(d + (c->pt + c->H) * p->Wp, 0,
               sizeof(float) * (size_t)((p->Hp - c->pt - c->H) * p->Wp));
    }
}

/* Stride-1 conv through impl_range; 0 when not taken (no AVX-512 packing,
 * double sums, or strides). */
static int impl_conv(op_ctx *ctx, const conv_geom *c, const quant_node *q, const float *x,
                     const uint8_t *xb,
                     float *y, int64_t K)
{
#ifdef QIMPLICIT
    if (!q->wpack || q->wd || c->sh != 1 || c->sw != 1 || (c->KH == 1 && c->KW == 1) ||
        (c->G > 1 && c->G == c->C && c->G == c->M))
        return 0; /* pointwise and depthwise convs have their own paths */
    impl_job j = {.c = c, .q = q, .y = y, .K = K};
    j.Hp = c->H + c->pt, j.Wp = c->W + c->pl;
    if (j.Hp < c->OH + (c->KH - 1) * c->dh)
        j.Hp = c->OH + (c->KH - 1) * c->dh;
    if (j.Wp < c->OW + (c->KW - 1) * c->dw)
        j.Wp = c->OW + (c->KW - 1) * c->dw;
    int64_t plane = j.Hp * j.Wp, nch = c->N * c->C;
    float *xp = kernel_scratch(SCRATCH_Q_INPUT, sizeof(float) * (size_t)(nch * plane + QIMPL_SLACK(c)));
    pad_job pj = {.c = c, .q = q, .x = x, .xb = xb, .xp = xp, .Hp = j.Hp, .Wp = j.Wp};
    op_parallel_for_work(ctx, nch, c->H * c->W, pad_range, &pj);
    memset(xp + nch * plane, 0, sizeof(float) * (size_t)QIMPL_SLACK(c));
    j.xp = xp;
    /* row blocks of about 1024 padded columns: the accumulators (M x 1024)
     * stay in L2 */
    j.rows = 1024 / j.Wp;
    j.rows = j.rows < 1 ? 1 : j.rows > c->OH ? c->OH : j.rows;
    j.nblk = (c->OH + j.rows - 1) / j.rows;
    int64_t macs = c->N * c->M * c->OH * c->OW * K;
    if (macs < (1 << 20))
        impl_range(&j, 0, c->N * c->G * j.nblk);
    else
        op_parallel_for(ctx, c->N * c->G * j.nblk, impl_range, &j);
    return 1;
#else
    (void)ctx, (void)c, (void)q, (void)x, (void)y, (void)K;
    return 0;
#endif
}

/* ---- one-group convs on byte quads: AVX512-VNNI, or AVX2 ----
 * The input is quantized to q + 128 (0..255, unsigned bytes), four channels
 * per 32-bit word, into zero-point-padded planes: padding holds zp + 128,
 * whose centred value is 0. A stride (sh, sw) conv reads padded position
 * (oh * sh + kh * dh, ow * sw + kw * dw); written as (oh + kh * dh / sh) * sh +
 * kh * dh % sh (the same for columns), it is position (oh + kh * dh / sh, ow +
 * kw * dw / sw) of the phase plane (kh * dh % sh, kw * dw % sw), which holds
 * padded positions (a * sh + py, b * sw + px). So every conv is a stride-1
 * one on sh * sw phase planes (one plane at stride 1) of Hq x Wq each, and as
 * in impl_range, GEMM row (c4, kh, kw) of a block of output rows is a phase
 * plane of c4 read from (oh0 + kh * dh / sh) * Wq + kw * dw / sw on, each word
 * giving four channels' bytes; columns ow >= OW of each row are computed and
 * dropped. At stride 1 the rows share their side padding (Wq = W + max(pl,
 * pr)): a read past a row's end is a read of the next row's left padding.
 * The int32 sums are exact (|sum| <= K * 255 * 128 < 2^30), and sum
 * (q + 128) w - (zp + 128) sum w = sum (q - zp) w: the same integers as the
 * float paths, below 2^24 (exact32), so the same floats go into the same
 * epilogue. The byte products: vpdpbusd on AVX512-VNNI (4 per 32-bit lane),
 * else on AVX2 the even and odd bytes widened to 16 bits and summed in pairs
 * by vpmaddwd (exact: 255 * 128 fits 16 bits signed products' operands). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define QVNNI 1
#define QTV __attribute__((target("avx512f,avx512bw,avx512vnni"), optimize("O3")))
#define QT2 __attribute__((target("avx2"), optimize("O3")))
#define QTB                                                                                   \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi,avx512vbmi2"),   \
                   optimize("O3")))

/* What the CPU has, probed once (relaxed atomics: threads may race to set
 * it, to the same value): QISA_VNNI, QISA_AVX2 or QISA_FLOAT, plus CPU_VBMI
 * for AVX512-VBMI and VBMI2 (and VL) beside VNNI, which the depthwise tiles'
 * byte permutes, the fused requantization's tables and byte packing use. */
#define CPU_VBMI 0x100

static int cpu_features(void)
{
    static int feat = -1;
    int h = __atomic_load_n(&feat, __ATOMIC_RELAXED);
    if (h < 0) {
        __builtin_cpu_init();
        h = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                    __builtin_cpu_supports("avx512vnni")
                ? QISA_VNNI
            : __builtin_cpu_supports("avx2") ? QISA_AVX2
                                             : QISA_FLOAT;
        if (__builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vbmi2") &&
            __builtin_cpu_supports("avx512vl"))
            h |= CPU_VBMI;
        __atomic_store_n(&feat, h, __ATOMIC_RELAXED);
    }
    return h;
}

static int cpu_isa(void)
{
    return cpu_features() & ~CPU_VBMI;
}

static int have_vbmi(void)
{
    return (cpu_features() & CPU_VBMI) != 0;
}
#else
static int cpu_isa(void)
{
    return QISA_FLOAT;
}

static int have_vbmi(void)
{
    return 0;
}
#endif

static int isa_forced = -1; /* -1: RT_QISA not read yet */

static int isa_from_env(void)
{
    const char *e = getenv("RT_QISA");
    if (!e || !*e)
        return QISA_AUTO;
    return !strcmp(e, "vnni") ? QISA_VNNI : !strcmp(e, "avx2") ? QISA_AVX2
                                          : !strcmp(e, "float") ? QISA_FLOAT
                                                                : QISA_AUTO;
}

int quant_isa(void)
{
    int f = __atomic_load_n(&isa_forced, __ATOMIC_RELAXED);
    if (f < 0) {
        f = isa_from_env();
        __atomic_store_n(&isa_forced, f, __ATOMIC_RELAXED);
    }
    int hw = cpu_isa();
    return f == QISA_AUTO || f > hw ? hw : f;
}

int quant_isa_force(int isa)
{
    __atomic_store_n(&isa_forced, isa, __ATOMIC_RELAXED);
    return quant_isa();
}

int quant_byte_paths(void)
{
#ifdef QVNNI
    return cpu_isa() == QISA_VNNI && have_vbmi() && __builtin_cpu_supports("avx512dq");
#else
    return 0;
#endif
}

#ifdef QVNNI
#define VROW(r)                                                                  \
    do {                                                                         \
        __m512i a_ = _mm512_set1_epi32(ak[r]);                                   \
        c##r##0 = _mm512_dpbusd_epi32(c##r##0, b0, a_);                          \
        c##r##1 = _mm512_dpbusd_epi32(c##r##1, b1, a_);                          \
        c##r##2 = _mm512_dpbusd_epi32(c##r##2, b2, a_);                          \
    } while (0)
#define VSTORE(r)                                                                \
    do {                                                                         \
        if (r < nr) {                                                            \
            __m512i z_ = _mm512_set1_epi32(zc[r]);                               \
            _mm512_storeu_ps(c + r * ldc, _mm512_cvtepi32_ps(                    \
                                              _mm512_sub_epi32(c##r##0, z_)));   \
            _mm512_storeu_ps(c + r * ldc + 16, _mm512_cvtepi32_ps(               \
                                                   _mm512_sub_epi32(c##r##1, z_))); \
            _mm512_storeu_ps(c + r * ldc + 32, _mm512_cvtepi32_ps(               \
                                                   _mm512_sub_epi32(c##r##2, z_))); \
        }                                                                        \
    } while (0)

/* c[r][0..48) = sum_k (bytes of brow[k][j0..j0 + 48)) . (bytes of ap[k][r])
 * - zc[r] for r < nr, GEMM_MR rows of weight quads per k: the centred sums,
 * as floats (exact: below 2^24). */
QTV static void vtile(int64_t K, const int32_t *ap, const uint32_t *const *brow, int64_t j0,
                      const int32_t *zc, float *c, int64_t ldc, int nr)
{
    __m512i z = _mm512_setzero_si512();
    __m512i c00 = z, c01 = z, c02 = z, c10 = z, c11 = z, c12 = z, c20 = z, c21 = z, c22 = z;
    __m512i c30 = z, c31 = z, c32 = z, c40 = z, c41 = z, c42 = z, c50 = z, c51 = z, c52 = z;
    __m512i c60 = z, c61 = z, c62 = z, c70 = z, c71 = z, c72 = z;
    for (int64_t k = 0; k < K; k++) {
        const uint32_t *bk = brow[k] + j0;
        const int32_t *ak = ap + k * GEMM_MR;
        __m512i b0 = _mm512_loadu_si512(bk), b1 = _mm512_loadu_si512(bk + 16);
        __m512i b2 = _mm512_loadu_si512(bk + 32);
        VROW(0); VROW(1); VROW(2); VROW(3); VROW(4); VROW(5); VROW(6); VROW(7);
    }
    VSTORE(0); VSTORE(1); VSTORE(2); VSTORE(3); VSTORE(4); VSTORE(5); VSTORE(6); VSTORE(7);
}

/* vpdpbusd on AVX2: b's bytes are unsigned, a's signed; the even bytes of
 * each 16-bit half (b & 0xff, a sign-extended from its low byte) and the odd
 * ones (b >> 8, a >> 8 arithmetic), each pair of halves summed by vpmaddwd. */
#define V2ROW(r)                                                                 \
    do {                                                                         \
        __m256i a_ = _mm256_set1_epi32(ak[r]);                                   \
        __m256i ae_ = _mm256_srai_epi16(_mm256_slli_epi16(a_, 8), 8);            \
        __m256i ao_ = _mm256_srai_epi16(a_, 8);                                  \
        c##r##0 = _mm256_add_epi32(c##r##0, _mm256_add_epi32(                    \
                                                _mm256_madd_epi16(be0, ae_),     \
                                                _mm256_madd_epi16(bo0, ao_)));   \
        c##r##1 = _mm256_add_epi32(c##r##1, _mm256_add_epi32(                    \
                                                _mm256_madd_epi16(be1, ae_),     \
                                                _mm256_madd_epi16(bo1, ao_)));   \
    } while (0)
#define V2STORE(r)                                                               \
    do {                                                                         \
        if (r0 + r < nr) {                                                       \
            __m256i z_ = _mm256_set1_epi32(zc[r0 + r]);                          \
            float *cr_ = c + (r0 + r) * ldc + j;                                 \
            _mm256_storeu_ps(cr_, _mm256_cvtepi32_ps(_mm256_sub_epi32(c##r##0, z_))); \
            _mm256_storeu_ps(cr_ + 8, _mm256_cvtepi32_ps(_mm256_sub_epi32(c##r##1, z_))); \
        }                                                                        \
    } while (0)

/* vtile's sums on AVX2: 16 columns by 4 rows at a time (14 registers). */
QT2 static void vtile2(int64_t K, const int32_t *ap, const uint32_t *const *brow, int64_t j0,
                       const int32_t *zc, float *c, int64_t ldc, int nr)
{
    const __m256i lo = _mm256_set1_epi16(0xff);
    for (int j = 0; j < GEMM_NR; j += 16)
        for (int r0 = 0; r0 < nr; r0 += 4) {
            __m256i z = _mm256_setzero_si256();
            __m256i c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z;
            for (int64_t k = 0; k < K; k++) {
                const uint32_t *bk = brow[k] + j0 + j;
                const int32_t *ak = ap + k * GEMM_MR + r0;
                __m256i b0 = _mm256_loadu_si256((const __m256i *)bk);
                __m256i b1 = _mm256_loadu_si256((const __m256i *)(bk + 8));
                __m256i be0 = _mm256_and_si256(b0, lo), bo0 = _mm256_srli_epi16(b0, 8);
                __m256i be1 = _mm256_and_si256(b1, lo), bo1 = _mm256_srli_epi16(b1, 8);
                V2ROW(0); V2ROW(1); V2ROW(2); V2ROW(3);
            }
            V2STORE(0); V2STORE(1); V2STORE(2); V2STORE(3);
        }
}
#endif

/* ---- fused requantization (AVX512-VNNI + VBMI + VBMI2) ----
 * The byte tiles' int32 sums go to the output in registers, not through
 * floats in memory and epi_scale_rows. A channel's sums start at init =
 * bias - (zp + 128) sum w (int32 arithmetic wraps, so only the final v, the
 * centred sum plus the bias, has to fit: |v| < 2^24 + 2^30). Then
 *   y = RN(fl(v) * cf + A) (one FMA), cf = fl(s / s_out), s = s_in s_w,
 *   A = 768 - 1/2 + 2^-14,
 * clamped to [lo, hi] + A, lo and hi = qlo and qhi - zp (integers: the
 * clamp before the rounding is the clamp after it). Only lo + A is a max on
 * y (so y >= 512); the bound hi is applied to the bytes (vpminub: they keep
 * the order of the ys), and a y of 1024 or more gives bits that make at
 * least 256 below (no int32 overflow up to infinity), which the packs
 * saturate to 255 before that. In [512, 1024) a
 * float's step is 2^-14, so y - A = G / 2^14, G the nearest integer to 2^14
 * P, P = fl(v) * cf, and bits(y) = bits(768) + G - 8191. Wherever G mod 2^14
 * is not 8191..8194, which (bits(y) & 0x3ffc) != 0 tells, P is not within
 * 2^-14 of a half, and round(P) = ceil(y - 768): q + 128 = (bits(y) -
 * bits(768) + 2^14 - 1 + 2^14 (zp + 128)) >> 14 (never negative).
 * Exact: the numerics ask for round-half-away of the float quotient Q =
 * fl(fl(v s) / s_out), clamped. P is within 2 * 2^-24 of the true v s /
 * s_out and Q within 2 * 2^-24 + 2^-52 (relative; the checked ranges of s,
 * s_out and cf keep subnormals out): for P within the bounds (|P| <= 255)
 * they are less than 2^-14 apart, and G / 2^14 is within 2^-15 of P. Out of
 * the window G / 2^14 is at least 2^-13 from every half, so Q lies on the
 * same side of every half and rounds to the same integer; beyond a bound
 * both saturate alike. A vector with a lane in the window (about 1 in 250)
 * takes the specified operations (qe_exact). The floats are (q - zp) s_out
 * as quant_dq8 gives them, or a chain table's bytes and their grid as the
 * epilogue's table path (rows_512_grid8) gives them. */
#ifdef QVNNI
typedef struct qev {
    __m512 lo, ca, c768, so, vs;
    __m512i kadd, frac, zq, ord, hib; /* hib: the bytes' bound qhi + 128 */
    __m512 elo, ehi;     /* qe_exact: the bounds of q - zp */
    const qepi *p;
    const quant_lut8 *tabs; /* with QE_LUT: the table, or one per channel (lut_ch) */
    int per_ch;
} qev;

QTB static void qev_init(qev *e, const qepi *p)
{
    const qparam_t *o = p->out, *fg = p->lut8 ? &p->lut8->grid : p->out;
    const float f768 = 768.0f, a = 767.5f + 0x1p-14f;
    int32_t b768;
    memcpy(&b768, &f768, sizeof(b768));
    e->p = p;
    e->ca = _mm512_set1_ps(a);
    e->c768 = _mm512_set1_ps(f768);
    e->lo = _mm512_set1_ps((float)(p->qlo - o->zp) + a);
    e->hib = _mm512_set1_epi8((char)(uint8_t)(p->qhi + 128));
    e->kadd = _mm512_set1_epi32(16383 + 16384 * (o->zp + 128) - b768);
    e->frac = _mm512_set1_epi32(0x3ffc);
    e->so = _mm512_set1_ps(o->scale);
    e->zq = _mm512_set1_epi32(fg->zp + 128);
    e->vs = _mm512_set1_ps(fg->scale);
    e->elo = _mm512_set1_ps((float)(p->qlo - o->zp));
    e->ehi = _mm512_set1_ps((float)(p->qhi - o->zp));
    /* after two packs, dword 4 L + j holds lanes 4 L.. 4 L + 3 of vector j */
    e->ord = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    e->tabs = p->lut8;
    e->per_ch = p->lut8 && p->lut_ch;
}

/* y[0..16) = 768 + q - zp of 16 sums v by the specified operations (an
 * integer: y's form without the window): f = (float)(v * s) in double, then
 * quant_q8(f) = round-half-away(f / s_out) + zp (the division, and
 * round-half-away as q8_centered in qparams.c does it: trunc(y + copysign(0.5
 * - 2^-25, y)), equal to roundf for every float), clamped to [qlo, qhi]
 * (within [-128, 127]). Out of line: rare, and the tiles' copies stay small. */
__attribute__((noinline, cold)) QTB static void qe_exact(const qev *e, const int32_t *v, double sc,
                                                        float *out)
{
    const __m512d s = _mm512_set1_pd(sc);
    const __m512i vi = _mm512_loadu_si512(v);
    __m256 fa = _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_cvtepi32_pd(_mm512_castsi512_si256(vi)), s));
    __m256 fb =
        _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(vi, 1)), s));
    __m512 f = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(fa)),
                                                   _mm256_castps_pd(fb), 1));
    __m512 y = _mm512_div_ps(f, e->so);
    /* (y & sign) | (0.5 - 2^-25): 0xEA is (A & B) | C */
    __m512 h = _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
        _mm512_castps_si512(y), _mm512_set1_epi32((int32_t)0x80000000u),
        _mm512_castps_si512(_mm512_set1_ps(0.49999997f)), 0xEA));
    __m512 r = _mm512_roundscale_ps(_mm512_add_ps(y, h), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    _mm512_storeu_ps(out, _mm512_add_ps(_mm512_min_ps(_mm512_max_ps(r, e->elo), e->ehi), e->c768));
}

/* y of 16 sums v of one channel (scale cf), at least lo + A; exact unless
 * qe_win finds a lane in the window. */
QTB static inline __attribute__((always_inline)) __m512 qe_y(const qev *e, __m512i v, __m512 cf)
{
    return _mm512_max_ps(_mm512_fmadd_ps(_mm512_cvtepi32_ps(v), cf, e->ca), e->lo);
}

/* The lanes of y (qe_y) in the window, of those kept (the others are
 * dropped later): tested for several vectors at once, one branch. */
QTB static inline __attribute__((always_inline)) __mmask16 qe_win(const qev *e, __m512 y,
                                                                  __mmask16 keep)
{
    return _mm512_mask_testn_epi32_mask(keep, _mm512_castps_si512(y), e->frac);
}

/* y of 16 sums v by the specified operations (qe_exact), for a vector
 * qe_win flagged. */
__attribute__((noinline, cold)) QTB static __m512 qe_redo(const qev *e, __m512i v, double sc)
{
    int32_t sv[16];
    float r[16];
    _mm512_storeu_si512(sv, v);
    qe_exact(e, sv, sc, r);
    return _mm512_loadu_ps(r);
}

/* What a fused run writes (qev_kind), a constant in each specialised copy;
 * QE_PACK: the kept lanes of a vector need not be a run from lane 0 (a conv
 * whose padded rows have dropped columns). */
enum { QE_LUT = 1, QE_FLOATS = 2, QE_BYTES = 4, QE_PACK = 8 };

/* Output channel m's table (QE_LUT). */
QTB static inline __attribute__((always_inline)) const uint8_t *qe_tab(const qev *e, int64_t m)
{
    return e->tabs ? e->tabs[e->per_ch ? m : 0].q : NULL;
}

QTB static int qev_kind(const qepi *p)
{
    return (p->lut8 ? QE_LUT : 0) | (p->floats || !p->b ? QE_FLOATS : 0) | (p->b ? QE_BYTES : 0);
}

/* A table's 256 bytes in registers (qe_tabv: loaded once for a plane, as
 * stores to uint8_t outputs would make the compiler load them again). */
typedef struct qtab {
    __m512i t0, t1, t2, t3;
} qtab;

QTB static inline __attribute__((always_inline)) qtab qe_tabv(const uint8_t *tab, const int F)
{
    qtab t = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
              _mm512_setzero_si512()};
    if (F & QE_LUT)
        t = (qtab){_mm512_loadu_si512(tab), _mm512_loadu_si512(tab + 64),
                   _mm512_loadu_si512(tab + 128), _mm512_loadu_si512(tab + 192)};
    return t;
}

/* The bytes of four vectors y (qe_y) in order, vector i in bytes 16 i ..
 * 16 i + 15: q + 128, or with QE_LUT the byte at q + 128 of the table tv
 * (qe_tab: one lookup for all four). */
QTB static inline __attribute__((always_inline)) __m512i
qe_bytes4(const qev *e, __m512 y0, __m512 y1, __m512 y2, __m512 y3, qtab tv, const int F)
{
#define QE_Q(y) _mm512_srli_epi32(_mm512_add_epi32(_mm512_castps_si512(y), e->kadd), 14)
    /* 0..255: the packs saturate nothing */
    __m512i p = _mm512_packus_epi16(_mm512_packus_epi32(QE_Q(y0), QE_Q(y1)),
                                    _mm512_packus_epi32(QE_Q(y2), QE_Q(y3)));
#undef QE_Q
    p = _mm512_min_epu8(_mm512_permutexvar_epi32(e->ord, p), e->hib);
    if (F & QE_LUT)
        p = _mm512_mask_blend_epi8(
            _mm512_movepi8_mask(p),
            _mm512_permutex2var_epi8(tv.t0, p, tv.t1), _mm512_permutex2var_epi8(tv.t2, p, tv.t3));
    return p;
}

/* The float of bytes 16 i .. 16 i + 15 of p (qe_bytes4): (b - zq) s. */
QTB static inline __attribute__((always_inline)) __m512 qe_float16(const qev *e, __m512i p,
                                                                   const int i)
{
    __m512i b = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(p, i));
    return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(b, e->zq)), e->vs);
}

QTB static inline __attribute__((always_inline)) void qe_store16(float *y, __mmask16 m, __m512 f)
{
    if (m == 0xffff)
        _mm512_storeu_ps(y, f);
    else
        _mm512_mask_storeu_ps(y, m, f);
}

/* One output channel's 48 columns of a vtile_q tile: vector k of them keeps
 * the lanes keep[k]; the kept columns of a block are consecutive outputs,
 * the first at at[k] of the first vector that keeps any. */
QTB static inline __attribute__((always_inline)) void
qe_row48(const qev *e, __m512i a0, __m512i a1, __m512i a2, float cf, double sc, float *y,
         uint8_t *b, const uint16_t *keep, const int32_t *at, qtab tab, const int F)
{
    const __m512 c = _mm512_set1_ps(cf);
    __m512 y0 = qe_y(e, a0, c), y1 = qe_y(e, a1, c), y2 = qe_y(e, a2, c);
    __mmask16 w0 = qe_win(e, y0, keep[0]), w1 = qe_win(e, y1, keep[1]);
    __mmask16 w2 = qe_win(e, y2, keep[2]);
    if (__builtin_expect((w0 | w1 | w2) != 0, 0)) {
        y0 = w0 ? qe_redo(e, a0, sc) : y0;
        y1 = w1 ? qe_redo(e, a1, sc) : y1;
        y2 = w2 ? qe_redo(e, a2, sc) : y2;
    }
    __m512i p = qe_bytes4(e, y0, y1, y2, y2, tab, F);
    __mmask64 k = (__mmask64)keep[0] | (__mmask64)keep[1] << 16 | (__mmask64)keep[2] << 32;
    int64_t o = at[0];
    if (F & QE_PACK) { /* the kept bytes to the front */
        o = keep[0] ? at[0] : keep[1] ? at[1] : at[2];
        p = _mm512_maskz_compress_epi8(k, p);
        k = ((__mmask64)1 << __builtin_popcountll(k)) - 1; /* at most 48 */
    }
    if (F & QE_BYTES)
        _mm512_mask_storeu_epi8(b + o, k, p);
    if (F & QE_FLOATS) {
        qe_store16(y + o, (__mmask16)k, qe_float16(e, p, 0));
        if ((__mmask16)(k >> 16))
            qe_store16(y + o + 16, (__mmask16)(k >> 16), qe_float16(e, p, 1));
        if ((__mmask16)(k >> 32))
            qe_store16(y + o + 32, (__mmask16)(k >> 32), qe_float16(e, p, 2));
    }
}

#define VINIT(r) (r < nr ? _mm512_set1_epi32(init[r]) : z)
#define VPUT(r)                                                                         \
    do {                                                                                \
        if (r < nr)                                                                     \
            qe_row48(e, c##r##0, c##r##1, c##r##2, cf[r], sc[r], y + r * ldy,          \
                     F & QE_BYTES ? b + r * ldy : NULL, keep, at,                       \
                     e->per_ch ? qe_tabv(qe_tab(e, cf + r - e->p->cf), F) : tab1, F);   \
    } while (0)

/* vtile's sums for channels init[r] (r < nr) from their start, then
 * requantized in registers: row r to y + r * ldy (floats) and b + r * ldy
 * (bytes), the tile's column vectors by keep and at (qe_row48). */
typedef void vtile_q_fn(int64_t K, const int32_t *ap, const uint32_t *const *brow, int64_t j0,
                        int nr, const qev *e, const int32_t *init, const float *cf,
                        const double *sc, float *y, uint8_t *b, int64_t ldy,
                        const uint16_t *keep, const int32_t *at);

/* R: the rows computed, GEMM_MR, or 4 for a panel of at most four channels
 * (a detection head's few outputs: half the byte products). */
QTB static inline __attribute__((always_inline)) void
vtile_qt(int64_t K, const int32_t *ap, const uint32_t *const *brow, int64_t j0, int nr,
         const qev *e, const int32_t *init, const float *cf, const double *sc, float *y,
         uint8_t *b, int64_t ldy, const uint16_t *keep, const int32_t *at, const int F,
         const int R)
{
    const __m512i z = _mm512_setzero_si512();
    __m512i c00 = VINIT(0), c01 = c00, c02 = c00, c10 = VINIT(1), c11 = c10, c12 = c10;
    __m512i c20 = VINIT(2), c21 = c20, c22 = c20, c30 = VINIT(3), c31 = c30, c32 = c30;
    __m512i c40 = VINIT(4), c41 = c40, c42 = c40, c50 = VINIT(5), c51 = c50, c52 = c50;
    __m512i c60 = VINIT(6), c61 = c60, c62 = c60, c70 = VINIT(7), c71 = c70, c72 = c70;
    for (int64_t k = 0; k < K; k++) {
        const uint32_t *bk = brow[k] + j0;
        const int32_t *ak = ap + k * GEMM_MR;
        __m512i b0 = _mm512_loadu_si512(bk), b1 = _mm512_loadu_si512(bk + 16);
        __m512i b2 = _mm512_loadu_si512(bk + 32);
        VROW(0); VROW(1); VROW(2); VROW(3);
        if (R > 4) {
            VROW(4); VROW(5); VROW(6); VROW(7);
        }
    }
    /* the sums in registers here, and nothing of the epilogue (its
     * constants) scheduled into the loop, where every register is taken */
    __asm__ volatile("" : "+v"(c00), "+v"(c01), "+v"(c02), "+v"(c10), "+v"(c11), "+v"(c12),
                     "+v"(c20), "+v"(c21), "+v"(c22), "+v"(c30), "+v"(c31), "+v"(c32)
                     : : "memory");
    __asm__ volatile("" : "+v"(c40), "+v"(c41), "+v"(c42), "+v"(c50), "+v"(c51), "+v"(c52),
                     "+v"(c60), "+v"(c61), "+v"(c62), "+v"(c70), "+v"(c71), "+v"(c72)
                     : : "memory");
    const qtab tab1 = qe_tabv(qe_tab(e, 0), F); /* one table for every channel */
    VPUT(0); VPUT(1); VPUT(2); VPUT(3); VPUT(4); VPUT(5); VPUT(6); VPUT(7);
}
#undef VINIT
#undef VPUT

/* The copies of vtile_qt for each kind of output (qev_kind, QE_PACK). */
#define VTILE_Q(F)                                                                         \
    QTB static void vtile_q##F(int64_t K, const int32_t *ap, const uint32_t *const *brow,   \
                               int64_t j0, int nr, const qev *e, const int32_t *init,       \
                               const float *cf, const double *sc, float *y, uint8_t *b,     \
                               int64_t ldy, const uint16_t *keep, const int32_t *at)        \
    {                                                                                      \
        if (nr <= 4)                                                                       \
            vtile_qt(K, ap, brow, j0, nr, e, init, cf, sc, y, b, ldy, keep, at, F, 4);     \
        else                                                                               \
            vtile_qt(K, ap, brow, j0, nr, e, init, cf, sc, y, b, ldy, keep, at, F, GEMM_MR); \
    }
VTILE_Q(2)
VTILE_Q(3)
VTILE_Q(4)
VTILE_Q(5)
VTILE_Q(6)
VTILE_Q(7)
VTILE_Q(10)
VTILE_Q(11)
VTILE_Q(12)
VTILE_Q(13)
VTILE_Q(14)
VTILE_Q(15)
#undef VTILE_Q

static vtile_q_fn *const vtile_q[16] = {
    NULL,      NULL,      vtile_q2,  vtile_q3,  vtile_q4,  vtile_q5,  vtile_q6,  vtile_q7,
    NULL,      NULL,      vtile_q10, vtile_q11, vtile_q12, vtile_q13, vtile_q14, vtile_q15};
#endif

/* Word g of a row of KW taps: bytes row[4 g + t], t < 4 (0 past KW); the
 * tap quads of one-channel (vnni_pack) and depthwise (dwv_pack) convs. */
static uint32_t tap_word(const int8_t *row, int64_t KW, int64_t g)
{
    uint32_t w = 0;
    for (int64_t t = 0; t < 4 && 4 * g + t < KW; t++)
        w |= (uint32_t)(uint8_t)row[4 * g + t] << (8 * t);
    return w;
}

/* The fused requantization's constants that do not depend on the output
 * grid, made once the weights are packed: each channel's start bias - (zp +
 * 128) sum w, wrapped to int32 (the sums wrap alike), and epi_ok when every
 * bias and scale is in the checked range; cf (qepi_begin) marked unmade. */
static void epi_start(const conv_geom *c, quant_node *q)
{
    const int64_t zq = q->in.zp + 128;
    q->epi_init = xmalloc(sizeof(int32_t) * (size_t)c->M);
    q->epi_cf = xmalloc(sizeof(float) * (size_t)(c->M + 1));
    memset(q->epi_cf + c->M, 0xff, sizeof(float));
    q->epi_ok = 1;
    for (int64_t m = 0; m < c->M; m++) {
        int64_t bias = q->bias ? q->bias[m] : 0;
        double sc = q->oscale[m];
        if (bias < -(1 << 30) || bias > (1 << 30) || !(sc >= 0x1p-100 && sc <= 0x1p40))
            q->epi_ok = 0;
        q->epi_init[m] = (int32_t)(uint32_t)(uint64_t)(bias - zq * q->wsum[m]);
    }
}

/* Weight quads for vtile: panel i, quad row k = (c4, kh, kw), row r holds
 * bytes w[m][4 c4 + j][kh][kw] (0 past C), m = i * GEMM_MR + r (0 past M).
 * A one-channel conv at stride and dilation 1 (MNIST's first) would leave
 * three bytes of every word padding: its quads hold four taps of a row
 * instead (wq_tap), quad row k = (kh, g) with bytes w[m][0][kh][4 g + j] (0
 * past KW), against input words of four consecutive columns (vn_tap_plane):
 * KH * ceil(KW / 4) quad rows instead of KH * KW. When fewer, the last KW % 4
 * columns take quads of four taps of a column (wq_vcols), quad rows (r, h4)
 * after the rows' with bytes w[m][0][4 h4 + j][4 (KW / 4) + r] (0 past KH),
 * against words of four rows: a 5x5 kernel in 7 quad rows, not 10. */
static void vnni_pack(const conv_geom *c, quant_node *q)
{
    int64_t C4 = (c->C + 3) / 4, KK = c->KH * c->KW, K = c->C * KK;
    int64_t panels = (c->M + GEMM_MR - 1) / GEMM_MR, G4 = (c->KW + 3) / 4;
    q->wq_tap = c->C == 1 && c->sh == 1 && c->sw == 1 && c->dh == 1 && c->dw == 1 && c->KW > 1;
    q->wq_k = q->wq_tap ? c->KH * G4 : C4 * KK;
    int64_t rem = c->KW % 4, H4 = (c->KH + 3) / 4;
    if (q->wq_tap && rem && c->KH * (c->KW / 4) + rem * H4 < q->wq_k) {
        q->wq_vcols = (int)rem;
        G4 = c->KW / 4;
        q->wq_k = c->KH * G4 + rem * H4;
    }
    q->wq = xaligned_alloc(sizeof(int32_t) * (size_t)(panels * q->wq_k * GEMM_MR));
    q->wsum = xmalloc(sizeof(int32_t) * (size_t)c->M);
    for (int64_t m = 0; q->wq_tap && m < panels * GEMM_MR; m++) {
        int32_t *wm = q->wq + (m / GEMM_MR) * q->wq_k * GEMM_MR + m % GEMM_MR;
        const int8_t *w = q->w + (m < c->M ? m : 0) * K;
        for (int64_t kh = 0; kh < c->KH; kh++)
            for (int64_t g = 0; g < G4; g++)
                wm[(kh * G4 + g) * GEMM_MR] =
                    m < c->M ? (int32_t)tap_word(w + kh * c->KW, c->KW, g) : 0;
        for (int64_t r = 0, k = c->KH * G4; r < q->wq_vcols; r++)
            for (int64_t h4 = 0; h4 < H4; h4++, k++) {
                uint32_t v = 0;
                for (int64_t t = 0; t < 4 && 4 * h4 + t < c->KH && m < c->M; t++)
                    v |= (uint32_t)(uint8_t)w[(4 * h4 + t) * c->KW + 4 * G4 + r] << (8 * t);
                wm[k * GEMM_MR] = (int32_t)v;
            }
    }
    for (int64_t m = 0; !q->wq_tap && m < panels * GEMM_MR; m++)
        for (int64_t c4 = 0; c4 < C4; c4++)
            for (int64_t kk = 0; kk < KK; kk++) {
                uint32_t w = 0;
                for (int64_t j = 0; j < 4 && m < c->M; j++)
                    if (4 * c4 + j < c->C)
                        w |= (uint32_t)(uint8_t)q->w[m * K + (4 * c4 + j) * KK + kk] << (8 * j);
                q->wq[((m / GEMM_MR) * q->wq_k + c4 * KK + kk) * GEMM_MR + m % GEMM_MR] =
                    (int32_t)w;
            }
    for (int64_t m = 0; m < c->M; m++) {
        int32_t sum = 0;
        for (int64_t k = 0; k < K; k++)
            sum += q->w[m * K + k];
        q->wsum[m] = sum;
    }
    epi_start(c, q);
}

typedef struct vn_job vn_job;
struct vn_job {
    const conv_geom *c;
    const quant_node *q;
    const float *x;
    const uint8_t *xb;     /* x's bytes (conv_in_bytes), or NULL */
    uint32_t *xp;          /* N x C4 x (sh x sw phases) planes of quads (+ slack) */
    float *y;
    int64_t C4, Hq, Wq;
    int64_t rows, nblk, ncp; /* output rows in nblk blocks of at most rows (vn_task_rows),
                                ncp columns of sums for the largest */
    int64_t pad_chunks;     /* vn_pad_range's row chunks per plane */
    int64_t msplit, mchunk; /* output channels in msplit tasks of mchunk (GEMM_MR-aligned) */
    int isa;
    const qepi *epi;       /* requantized in the tiles' registers (vn_range_q), or NULL */
    int pack;              /* pointwise on byte planes: each task packs the quads of
                              its columns itself (vn_pack_cols), no padded planes */
};

/* Four channels' bytes as quads (quant_q8_quads' words from bytes that are
 * already q + 128). */
QHOT static void bytes_quads(const uint8_t *const *b, int nch, int64_t n, uint8_t pad,
                             uint32_t *out)
{
    const uint8_t *b0 = b[0], *b1 = nch > 1 ? b[1] : NULL, *b2 = nch > 2 ? b[2] : NULL,
                  *b3 = nch > 3 ? b[3] : NULL;
    if (nch == 4) { /* the common case: one loop that vectorises */
        for (int64_t i = 0; i < n; i++)
            out[i] = (uint32_t)b0[i] | (uint32_t)b1[i] << 8 | (uint32_t)b2[i] << 16 |
                     (uint32_t)b3[i] << 24;
        return;
    }
    for (int64_t i = 0; i < n; i++)
        out[i] = (uint32_t)b0[i] | (uint32_t)(b1 ? b1[i] : pad) << 8 |
                 (uint32_t)(b2 ? b2[i] : pad) << 16 | (uint32_t)(b3 ? b3[i] : pad) << 24;
}

#ifdef QVNNI
/* Four channels' 64 bytes b0..b3 as 64 quads to out: byte and word unpacks
 * interleave the planes within each 128-bit lane (block j of u[k] holds
 * positions 16 j + 4 k ..), two rounds of 128-bit shuffles put the blocks in
 * order. */
__attribute__((target("avx512f,avx512bw"))) static inline __attribute__((always_inline)) void
quads64(__m512i b0, __m512i b1, __m512i b2, __m512i b3, uint32_t *out)
{
    __m512i t0 = _mm512_unpacklo_epi8(b0, b1), t1 = _mm512_unpackhi_epi8(b0, b1);
    __m512i t2 = _mm512_unpacklo_epi8(b2, b3), t3 = _mm512_unpackhi_epi8(b2, b3);
    __m512i u0 = _mm512_unpacklo_epi16(t0, t2), u1 = _mm512_unpackhi_epi16(t0, t2);
    __m512i u2 = _mm512_unpacklo_epi16(t1, t3), u3 = _mm512_unpackhi_epi16(t1, t3);
    /* the 4 x 4 blocks transposed: out block 4 j + k = block j of u[k] */
    __m512i v0 = _mm512_shuffle_i32x4(u0, u1, 0x44), v1 = _mm512_shuffle_i32x4(u0, u1, 0xee);
    __m512i v2 = _mm512_shuffle_i32x4(u2, u3, 0x44), v3 = _mm512_shuffle_i32x4(u2, u3, 0xee);
    _mm512_storeu_si512(out, _mm512_shuffle_i32x4(v0, v2, 0x88));
    _mm512_storeu_si512(out + 16, _mm512_shuffle_i32x4(v0, v2, 0xdd));
    _mm512_storeu_si512(out + 32, _mm512_shuffle_i32x4(v1, v3, 0x88));
    _mm512_storeu_si512(out + 48, _mm512_shuffle_i32x4(v1, v3, 0xdd));
}

/* bytes_quads of four channels on AVX512-BW, 64 positions a step (quads64);
 * the tail by bytes_quads. */
__attribute__((target("avx512f,avx512bw"), optimize("O3"))) static int64_t
bytes_quads_512(const uint8_t *const *b, int64_t n, uint32_t *out)
{
    int64_t i = 0;
    for (; i + 64 <= n; i += 64)
        quads64(_mm512_loadu_si512(b[0] + i), _mm512_loadu_si512(b[1] + i),
                _mm512_loadu_si512(b[2] + i), _mm512_loadu_si512(b[3] + i), out + i);
    return i;
}
#endif

/* Words i < n of bytes b[0][i] .. b[3][i] (bytes_quads of four). */
static void quads_of(const uint8_t *const *b, int64_t n, uint32_t *out)
{
    int64_t d = 0;
#ifdef QVNNI
    if (n >= 64 && cpu_isa() == QISA_VNNI)
        d = bytes_quads_512(b, n, out);
#endif
    const uint8_t *r[4] = {b[0] + d, b[1] + d, b[2] + d, b[3] + d};
    bytes_quads(r, 4, n - d, 0, out + d);
}

/* n positions from offset o of the four channel planes src (srcb: their
 * bytes, or NULL) as quads. */
static void in_quads(const struct vn_job *j, const float *const *src,
                     const uint8_t *const *srcb, int64_t o, int nch, int64_t n, uint32_t *out)
{
    if (j->xb) {
        const uint8_t *b[4] = {srcb[0] + o, srcb[1] + o, srcb[2] + o, srcb[3] + o};
        if (nch == 4)
            quads_of(b, n, out);
        else
            bytes_quads(b, nch, n, (uint8_t)(j->q->in.zp + 128), out);
        return;
    }
    const float *rows[4] = {src[0] + o, src[1] + o, src[2] + o, src[3] + o};
    quant_q8_quads(rows, nch, n, &j->q->in, out);
}

/* Plane t (a batch item) of a one-channel conv on tap quads (wq_tap): the
 * padded plane's bytes P (Hq rows of Wq that share their side padding,
 * padding zp + 128), then word i of the plane holds P[i .. i + 3], four
 * columns of a row (a read past a row's end reads padding, or is multiplied
 * by zero weights or dropped), and with wq_vcols word i of a second plane
 * P[i], P[i + Wq], P[i + 2 Wq], P[i + 3 Wq], four rows of a column. */
static void vn_tap_plane(const vn_job *j, int64_t t)
{
    const conv_geom *c = j->c;
    const int64_t Wq = j->Wq, n = j->Hq * Wq, ncol = c->W < Wq - c->pl ? c->W : Wq - c->pl;
    const size_t nb = (size_t)(n + 3 * Wq + 3);
    uint8_t *P = kernel_scratch(SCRATCH_Q_BLOCK, nb);
    memset(P, j->q->in.zp + 128, nb);
    for (int64_t h = 0; h < c->H && ncol > 0 && c->pt + h < j->Hq; h++) {
        int64_t off = (t * c->H + h) * c->W;
        uint8_t *row = P + (c->pt + h) * Wq + c->pl;
        if (j->xb)
            memcpy(row, j->xb + off, (size_t)ncol);
        else
            quant_q8_bytes(j->x + off, 1, ncol, ncol, &j->q->in, row, ncol);
    }
    uint32_t *d = j->xp + t * (j->q->wq_vcols ? 2 : 1) * n;
    const uint8_t *rowq[4] = {P, P + 1, P + 2, P + 3}, *colq[4] = {P, P + Wq, P + 2 * Wq, P + 3 * Wq};
    quads_of(rowq, n, d);
    if (j->q->wq_vcols)
        quads_of(colq, n, d + n);
}

/* d[b] = s[2 b] for the first b < n, 16 words a step on AVX-512 (reading
 * s up to s[2 b + 31]); returns how many it dealt. */
#ifdef QVNNI
__attribute__((target("avx512f"), optimize("O3"))) static int64_t
deal2_512(const uint32_t *s, int64_t n, uint32_t *d)
{
    const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28,
                                         30);
    int64_t b = 0;
    for (; b + 16 <= n; b += 16)
        _mm512_storeu_si512(d + b, _mm512_permutex2var_epi32(_mm512_loadu_si512(s + 2 * b), ev,
                                                             _mm512_loadu_si512(s + 2 * b + 16)));
    return b;
}
#endif

static int64_t deal2(const uint32_t *s, int64_t n, uint32_t *d)
{
#ifdef QVNNI
    if (cpu_isa() == QISA_VNNI)
        return deal2_512(s, n, d);
#endif
    (void)s, (void)n, (void)d;
    return 0;
}

/* Padded rows [a0, a1) of plane t (batch, c4) in every phase plane of the
 * stride: padding and the quantized quads. */
static void vn_pad_rows(const vn_job *j, int64_t t, int64_t a0, int64_t a1)
{
    const conv_geom *c = j->c;
    const uint32_t pad = (uint32_t)(j->q->in.zp + 128) * 0x01010101u;
    const int64_t sh = c->sh, sw = c->sw, Hq = j->Hq, Wq = j->Wq, PQ = Hq * Wq;
    int64_t ni = t / j->C4, c4 = t % j->C4;
    int nch = c->C - 4 * c4 < 4 ? (int)(c->C - 4 * c4) : 4;
    uint32_t *d = j->xp + t * sh * sw * PQ;
    const float *src[4];
    const uint8_t *srcb[4];
    for (int k = 0; k < 4; k++) {
        int64_t off = (ni * c->C + 4 * c4 + (k < nch ? k : 0)) * c->H * c->W;
        src[k] = j->x + off;
        srcb[k] = j->xb ? j->xb + off : NULL;
    }
    if (sh * sw == 1) {
        /* the input rows among them: h0 .. h1 */
        int64_t h0 = a0 - c->pt > 0 ? a0 - c->pt : 0, h1 = a1 - c->pt < c->H ? a1 - c->pt : c->H;
        for (int64_t a = a0; a < a1; a++)
            if (a - c->pt < 0 || a - c->pt >= c->H)
                for (int64_t b = 0; b < Wq; b++)
                    d[a * Wq + b] = pad;
        if (h0 >= h1)
            return;
        if (c->pl == 0 && Wq == c->W) { /* rows without side padding: one run */
            in_quads(j, src, srcb, h0 * c->W, nch, (h1 - h0) * c->W, d + (c->pt + h0) * Wq);
            return;
        }
        int64_t ncol = c->W < Wq - c->pl ? c->W : Wq - c->pl;
        for (int64_t h = h0; h < h1; h++) {
            uint32_t *dr = d + (c->pt + h) * Wq;
            for (int64_t i = 0; i < c->pl && i < Wq; i++)
                dr[i] = pad;
            if (ncol > 0)
                in_quads(j, src, srcb, h * c->W, nch, ncol, dr + c->pl);
            for (int64_t i = c->pl + (ncol > 0 ? ncol : 0); i < Wq; i++)
                dr[i] = pad;
        }
        return;
    }
    /* stride > 1: a row's quads, then dealt to the phases (16 words of
     * slack for deal2's last load) */
    uint32_t *rowq = kernel_scratch(SCRATCH_Q_BLOCK, sizeof(uint32_t) * (size_t)(c->W + 16));
    for (int64_t py = 0; py < sh; py++)
        for (int64_t a = a0; a < a1; a++) {
            int64_t ih = a * sh + py - c->pt;
            if (ih < 0 || ih >= c->H) {
                for (int64_t px = 0; px < sw; px++) {
                    uint32_t *dr = d + (py * sw + px) * PQ + a * Wq;
                    for (int64_t b = 0; b < Wq; b++)
                        dr[b] = pad;
                }
                continue;
            }
            in_quads(j, src, srcb, ih * c->W, nch, c->W, rowq);
            for (int64_t px = 0; px < sw; px++) {
                uint32_t *dr = d + (py * sw + px) * PQ + a * Wq;
                /* b with 0 <= b * sw + px - pl < W */
                int64_t off = px - c->pl;
                int64_t lo = off >= 0 ? 0 : (-off + sw - 1) / sw;
                int64_t hi = c->W - off <= 0 ? 0 : (c->W - off + sw - 1) / sw;
                hi = hi > Wq ? Wq : hi;
                lo = lo > hi ? hi : lo;
                for (int64_t b = 0; b < lo; b++)
                    dr[b] = pad;
                if (sw == 2)
                    for (int64_t b = lo + deal2(rowq + 2 * lo + off, hi - lo, dr + lo); b < hi;
                         b++)
                        dr[b] = rowq[2 * b + off];
                else
                    for (int64_t b = lo; b < hi; b++)
                        dr[b] = rowq[b * sw + off];
                for (int64_t b = hi; b < Wq; b++)
                    dr[b] = pad;
            }
        }
}

/* Tasks [t0, t1) of the padding: task t is row chunk t % pad_chunks of plane
 * t / pad_chunks (a plane of the input's, or of a channel quad's). */
static void vn_pad_range(void *arg, int64_t t0, int64_t t1)
{
    const vn_job *j = arg;
    for (int64_t t = t0; t < t1; t++) {
        if (j->q->wq_tap) {
            vn_tap_plane(j, t);
            continue;
        }
        int64_t k = t % j->pad_chunks, rows = (j->Hq + j->pad_chunks - 1) / j->pad_chunks;
        int64_t a0 = k * rows, a1 = a0 + rows < j->Hq ? a0 + rows : j->Hq;
        if (a0 < a1)
            vn_pad_rows(j, t / j->pad_chunks, a0, a1);
    }
}

/* Task t of j: its output rows [oh0, oh0 + nrow), channels [m0, m1), batch
 * item ni, and brow[k], quad row k's start in the phase planes. */
typedef struct vn_task {
    int64_t oh0, nrow, nc, m0, m1, ni;
} vn_task;

static void vn_task_rows(const vn_job *j, int64_t t, const uint32_t **brow, vn_task *k)
{
    const conv_geom *c = j->c;
    const int64_t KK = c->KH * c->KW, sh = c->sh, sw = c->sw, PQ = j->Hq * j->Wq;
    int64_t mp = t % j->msplit, blk = t / j->msplit % j->nblk;
    k->ni = t / j->msplit / j->nblk;
    k->oh0 = blk * c->OH / j->nblk;
    k->nrow = (blk + 1) * c->OH / j->nblk - k->oh0;
    k->nc = k->nrow * j->Wq;
    k->m0 = mp * j->mchunk;
    k->m1 = k->m0 + j->mchunk < c->M ? k->m0 + j->mchunk : c->M;
    if (j->pack) /* the task's own packed columns (vn_range_q) */
        return;
    const uint32_t *xn = j->xp + k->ni * j->C4 * sh * sw * PQ;
    if (j->q->wq_tap) {
        /* quad row (kh, g): row oh0 + kh from column 4 g on; then (r, h4):
         * the column quads' row oh0 + 4 h4 from column 4 G4 + r on */
        const int64_t vc = j->q->wq_vcols, G4 = vc ? c->KW / 4 : (c->KW + 3) / 4;
        xn = j->xp + k->ni * (vc ? 2 : 1) * PQ;
        int64_t r = 0;
        for (int64_t kh = 0; kh < c->KH; kh++)
            for (int64_t g = 0; g < G4; g++)
                brow[r++] = xn + (k->oh0 + kh) * j->Wq + 4 * g;
        for (int64_t v = 0; v < vc; v++)
            for (int64_t h4 = 0; 4 * h4 < c->KH; h4++)
                brow[r++] = xn + PQ + (k->oh0 + 4 * h4) * j->Wq + 4 * G4 + v;
        return;
    }
    for (int64_t c4 = 0, r = 0; c4 < j->C4; c4++)
        for (int64_t kk = 0; kk < KK; kk++, r++) {
            int64_t ry = kk / c->KW * c->dh, rx = kk % c->KW * c->dw;
            brow[r] = xn + ((c4 * sh + ry % sh) * sw + rx % sw) * PQ +
                      (k->oh0 + ry / sh) * j->Wq + rx / sw;
        }
}

/* The padded columns of a block of nrow rows of Wq as nv vectors of 16:
 * vector v keeps the lanes of output columns (ow < OW), and as the dropped
 * columns end each row, the kept ones of a vector are consecutive outputs,
 * from at[v] (relative to the block's first output row) on. */
static void vn_map(int64_t nrow, int64_t Wq, int64_t OW, int64_t nv, uint16_t *keep, int32_t *at)
{
    memset(keep, 0, sizeof(uint16_t) * (size_t)nv);
    for (int64_t r = 0; r < nrow; r++) {
        int64_t p0 = r * Wq, p1 = p0 + OW;
        for (int64_t v = p0 / 16; v * 16 < p1; v++) {
            int64_t lo = v * 16 > p0 ? v * 16 : p0, hi = v * 16 + 16 < p1 ? v * 16 + 16 : p1;
            if (!keep[v])
                at[v] = (int32_t)(r * OW + lo - p0);
            keep[v] |= (uint16_t)(((1u << (hi - lo)) - 1) << (lo - v * 16));
        }
    }
}

#ifdef QVNNI
/* Columns a pointwise task packs at a time (vn_pack_cols): four tiles, and a
 * multiple of 64. */
#define VN_PACK (4 * GEMM_NR)

/* The quads of block positions [p0, p0 + n) (n <= VN_PACK) of every channel
 * quad of batch item ni, from the input's byte planes, to tq (quad row k at
 * k * VN_PACK): in L1 for the tiles that read them, where the padded planes
 * of a large map (vn_pad_range) went through memory. Columns past n get
 * zero bytes: their outputs are dropped. */
QTB static void vn_pack_cols(const vn_job *j, int64_t ni, int64_t p0, int64_t n, uint32_t *tq)
{
    const conv_geom *c = j->c;
    const int64_t HW = c->H * c->W;
    const __m512i pad = _mm512_set1_epi8((char)(j->q->in.zp + 128));
    for (int64_t k = 0; k < j->C4; k++) {
        const int nch = c->C - 4 * k < 4 ? (int)(c->C - 4 * k) : 4;
        const uint8_t *b = j->xb + (ni * c->C + 4 * k) * HW + p0;
        for (int64_t i = 0; i < n; i += 64) {
            __mmask64 m = n - i >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (n - i)) - 1;
            __m512i v[4];
            for (int t = 0; t < 4; t++)
                v[t] = t < nch ? _mm512_maskz_loadu_epi8(m, b + t * HW + i) : pad;
            quads64(v[0], v[1], v[2], v[3], tq + k * VN_PACK + i);
        }
    }
}

/* vn_range with the requantization in the tiles (vtile_q): no sums in
 * memory. */
QTB static void vn_range_q(const vn_job *j, int64_t t0, int64_t t1)
{
    const conv_geom *c = j->c;
    const quant_node *q = j->q;
    const qepi *p = j->epi;
    const int64_t OW = c->OW, ldy = c->OH * OW, nv = j->ncp / 16;
    const uint32_t **brow = kernel_scratch(SCRATCH_Q_ROWS, sizeof(*brow) * (size_t)q->wq_k);
    int32_t *at = kernel_scratch(SCRATCH_Q_ACC, (sizeof(int32_t) + sizeof(uint16_t)) * (size_t)nv);
    uint16_t *keep = (uint16_t *)(at + nv);
    qev e;
    qev_init(&e, p);
    vtile_q_fn *tile = vtile_q[qev_kind(p) | (j->Wq != OW ? QE_PACK : 0)];
    int64_t mapped = -1; /* the rows the map was made for */

    uint32_t *tq = j->pack ? kernel_scratch(SCRATCH_Q_BLOCK,
                                            sizeof(uint32_t) * (size_t)(j->C4 * VN_PACK))
                           : NULL;
    for (int64_t t = t0; t < t1; t++) {
        vn_task k;
        vn_task_rows(j, t, brow, &k);
        for (int64_t r = 0; tq && r < j->C4; r++)
            brow[r] = tq + r * VN_PACK;
        if (k.nrow != mapped)
            vn_map(k.nrow, j->Wq, OW, nv, keep, at);
        mapped = k.nrow;
        float *ym = j->y + (k.ni * c->M + k.m0) * ldy + k.oh0 * OW;
        uint8_t *bm = p->b ? p->b + (ym - p->y_run) : NULL;
        for (int64_t j0 = 0; j0 < k.nc; j0 += GEMM_NR) {
            int64_t g0 = tq ? j0 / VN_PACK * VN_PACK : 0; /* the packed group's first */
            if (tq && j0 == g0)
                vn_pack_cols(j, k.ni, k.oh0 * c->W + g0,
                             k.nc - g0 < VN_PACK ? k.nc - g0 : VN_PACK, tq);
            for (int64_t i = k.m0; i < k.m1; i += GEMM_MR) {
                int nr = k.m1 - i < GEMM_MR ? (int)(k.m1 - i) : GEMM_MR;
                int64_t o = (i - k.m0) * ldy;
                tile(q->wq_k, q->wq + i * q->wq_k, brow, j0 - g0, nr, &e, p->init + i,
                     p->cf + i, p->sc + i, ym + o, bm ? bm + o : NULL, ldy, keep + j0 / 16,
                     at + j0 / 16);
            }
        }
    }
}
#endif

QHOT static void vn_range(void *arg, int64_t t0, int64_t t1)
{
#ifdef QVNNI
    const vn_job *j = arg;
    if (j->epi) {
        vn_range_q(j, t0, t1);
        return;
    }
    const conv_geom *c = j->c;
    const quant_node *q = j->q;
    const int64_t OW = c->OW;
    const int32_t zq = q->in.zp + 128;
    const uint32_t **brow = kernel_scratch(SCRATCH_Q_ROWS, sizeof(*brow) * (size_t)q->wq_k);
    int64_t mgp = (c->M + GEMM_MR - 1) / GEMM_MR * GEMM_MR;
    float *acc = kernel_scratch(SCRATCH_Q_ACC, sizeof(float) * (size_t)(mgp * j->ncp));

    for (int64_t t = t0; t < t1; t++) {
        vn_task k;
        vn_task_rows(j, t, brow, &k);
        const int64_t oh0 = k.oh0, nrow = k.nrow, nc = k.nc, m0 = k.m0, m1 = k.m1, ni = k.ni;
        /* column tiles outside: a tile's rows of B stay in cache for every
         * panel of output channels */
        for (int64_t j0 = 0; j0 < nc; j0 += GEMM_NR)
            for (int64_t i = m0; i < m1; i += GEMM_MR) {
                int nr = m1 - i < GEMM_MR ? (int)(m1 - i) : GEMM_MR;
                int32_t zc[GEMM_MR]; /* (zp + 128) sum w: the sums' centring */
                for (int r = 0; r < nr; r++)
                    zc[r] = zq * q->wsum[i + r];
                if (j->isa == QISA_VNNI)
                    vtile(q->wq_k, q->wq + i * q->wq_k, brow, j0, zc, acc + i * j->ncp + j0,
                          j->ncp, nr);
                else
                    vtile2(q->wq_k, q->wq + i * q->wq_k, brow, j0, zc, acc + i * j->ncp + j0,
                           j->ncp, nr);
            }
        float *ym = j->y + (ni * c->M + m0) * c->OH * OW + oh0 * OW;
        const int64_t ldy = c->OH * OW;
        if (j->Wq == OW) { /* no dropped columns: straight from the sums */
            epi_scale_rows(acc + m0 * j->ncp, j->ncp, ym, ldy, m1 - m0, nrow * OW, m0, q);
            continue;
        }
        /* output row by output row, the kept columns read from the sums */
        for (int64_t r = 0; r < nrow; r++)
            epi_scale_rows(acc + m0 * j->ncp + r * j->Wq, j->ncp, ym + r * OW, ldy, m1 - m0, OW,
                           m0, q);
    }
#else
    (void)arg, (void)t0, (void)t1;
#endif
}

#ifdef QVNNI
/* A 1x1 conv of one 1x1 map (a squeeze-and-excite block's): the input's
 * quads times each panel's weight words, two quads a 512-bit step (lanes
 * 0-7 quad k, 8-15 quad k + 1; the halves added at the end), then centred
 * and scaled by epi_scale_rows as vn_range's sums are. vn_range would spend
 * a whole column tile and a padded plane per channel quad on one column. */
QTV static void vn_vector(const conv_geom *c, const quant_node *q, const float *x,
                          const uint8_t *xb, float *y)
{
    const int64_t K4 = q->wq_k, panels = (c->M + GEMM_MR - 1) / GEMM_MR;
    const int32_t zq = q->in.zp + 128;
    uint32_t *xq = kernel_scratch(SCRATCH_Q_INPUT, sizeof(uint32_t) * (size_t)(K4 + 1));
    uint8_t *xbq = (uint8_t *)xq;
    memset(xbq + c->C, zq, (size_t)(4 * (K4 + 1) - c->C)); /* zero weights read these */
    if (xb)
        memcpy(xbq, xb, (size_t)c->C);
    else
        quant_q8_bytes(x, 1, c->C, c->C, &q->in, xbq, c->C);
    float *acc = kernel_scratch(SCRATCH_Q_ACC, sizeof(float) * (size_t)(panels * GEMM_MR));
    const __m512i pair = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    for (int64_t p = 0; p < panels; p++) {
        const int32_t *w = q->wq + p * K4 * GEMM_MR;
        __m512i s = _mm512_setzero_si512();
        for (int64_t k = 0; k < K4; k += 2) { /* an odd last quad: weights 0 above */
            __m512i xv = _mm512_permutexvar_epi32(
                pair, _mm512_castsi128_si512(_mm_loadl_epi64((const __m128i *)(xq + k))));
            __mmask16 kw = k + 1 < K4 ? 0xffff : 0x00ff;
            s = _mm512_dpbusd_epi32(s, xv, _mm512_maskz_loadu_epi32(kw, w + k * GEMM_MR));
        }
        s = _mm512_add_epi32(s, _mm512_shuffle_i64x2(s, s, 0x4e)); /* lanes 0-7 */
        int64_t m0 = p * GEMM_MR, nm = c->M - m0 < GEMM_MR ? c->M - m0 : GEMM_MR;
        __m512i zc = _mm512_mullo_epi32(
            _mm512_set1_epi32(zq), _mm512_maskz_loadu_epi32((__mmask16)((1u << nm) - 1), q->wsum + m0));
        _mm512_mask_storeu_ps(acc + m0, 0x00ff, _mm512_cvtepi32_ps(_mm512_sub_epi32(s, zc)));
    }
    epi_scale_rows(acc, 1, y, 1, c->M, 1, 0, q);
}
#endif

/* A one-group conv through vn_range; 0 when not taken. */
static int vnni_conv(op_ctx *ctx, const conv_geom *c, const quant_node *q, const float *x,
                     const uint8_t *xb, float *y, const qepi *epi)
{
    int isa = quant_isa();
    if (!q->wq || q->wq_dw || isa < QISA_AVX2)
        return 0;
#ifdef QVNNI
    if (isa == QISA_VNNI && !q->wq_tap && c->N == 1 && c->H * c->W == 1 && c->OH * c->OW == 1 &&
        c->KH * c->KW == 1 && c->pt == 0 && c->pl == 0) {
        vn_vector(c, q, x, xb, y);
        return 1;
    }
#endif
    vn_job j = {.c = c, .q = q, .x = x, .xb = xb, .y = y, .C4 = (c->C + 3) / 4, .isa = isa,
                .epi = isa == QISA_VNNI ? epi : NULL};
    /* every phase plane as large as the widest read: output (oh, ow) at tap
     * (kh, kw) reads (oh + kh * dh / sh, ow + kw * dw / sw) */
    j.Hq = c->OH + (c->KH - 1) * c->dh / c->sh;
    j.Wq = c->OW + (c->KW - 1) * c->dw / c->sw;
    /* at stride 1, a row's right padding can be the next row's left: reads
     * past a row's end then land in pad words (one pad row more ends the
     * plane), and a small map computes fewer dropped columns (MNIST's 14
     * wide 5x5: 16 columns a row, not 18) */
    int64_t pr = j.Wq - c->W - c->pl, shared = c->W + (c->pl > pr ? c->pl : pr);
    if (c->sh == 1 && c->sw == 1 && shared < j.Wq)
        j.Wq = shared, j.Hq++;
    /* a pointwise conv on bytes with the tiles' requantization: its tasks
     * pack their own columns */
    j.pack = j.epi && xb && !q->wq_tap && c->KH == 1 && c->KW == 1 && c->sh == 1 &&
             c->sw == 1 && c->pt == 0 && c->pl == 0 && c->OH == c->H && c->OW == c->W &&
             have_vbmi();
    int64_t planes = c->N * j.C4, slack = (c->KW - 1) * c->dw + GEMM_NR;
    int64_t words = planes * c->sh * c->sw * j.Hq * j.Wq * (q->wq_vcols ? 2 : 1);
    if (!j.pack) {
        uint32_t *xp = kernel_scratch(SCRATCH_Q_INPUT, sizeof(uint32_t) * (size_t)(words + slack));
        memset(xp + words, 0, sizeof(uint32_t) * (size_t)slack);
        j.xp = xp;
        /* fewer planes than threads (an RGB input is one quad plane): the
         * planes' rows are split too */
        j.pad_chunks = 1;
        if (!q->wq_tap && planes < 2 * ctx->nthreads)
            j.pad_chunks = (2 * ctx->nthreads + planes - 1) / planes;
        j.pad_chunks = j.pad_chunks > j.Hq ? j.Hq : j.pad_chunks;
        op_parallel_for_work(ctx, planes * j.pad_chunks, 4 * c->H * c->W / j.pad_chunks,
                             vn_pad_range, &j);
    }
    /* row blocks of about 1024 padded columns (fewer for many channels): the
     * int32 sums (M x columns) stay in L2 */
    int64_t want = c->M > 128 ? 1024 * 128 / c->M : 1024;
    j.rows = want / j.Wq;
    j.rows = j.rows < 1 ? 1 : j.rows > c->OH ? c->OH : j.rows;
    j.nblk = (c->OH + j.rows - 1) / j.rows;
    int64_t macs = c->N * c->M * c->OH * c->OW * c->C * c->KH * c->KW;
    int inl = macs < (1 << 20) || ctx->nthreads < 2;
    /* several row blocks: as many as make whole rounds of the pool's chunks,
     * their rows shared out evenly (vn_task_rows), so that no thread draws
     * one more (52x52 at two threads: 19, 19 and 14 rows, times two halves of
     * the channels, for four chunks; now four blocks of 13) */
    if (!inl && j.nblk > 1) {
        int64_t per = 2 * ctx->nthreads;
        int64_t nb = ((c->N * j.nblk + per - 1) / per * per + c->N - 1) / c->N;
        j.nblk = nb < c->OH ? nb : c->OH;
    }
    j.rows = (c->OH + j.nblk - 1) / j.nblk;
    j.ncp = (j.rows * j.Wq + GEMM_NR - 1) / GEMM_NR * GEMM_NR;
    /* a small map has few row blocks: its output channels are split too, so
     * that every thread gets two tasks */
    int64_t panels = (c->M + GEMM_MR - 1) / GEMM_MR, tasks = c->N * j.nblk;
    j.msplit = inl || tasks >= 2 * ctx->nthreads ? 1 : (2 * ctx->nthreads + tasks - 1) / tasks;
    j.msplit = j.msplit > panels ? panels : j.msplit;
    j.mchunk = (panels + j.msplit - 1) / j.msplit * GEMM_MR;
    j.msplit = (c->M + j.mchunk - 1) / j.mchunk;
    if (inl)
        vn_range(&j, 0, tasks * j.msplit);
    else
        op_parallel_for(ctx, tasks * j.msplit, vn_range, &j);
    return 1;
}

/* ---- depthwise convs on AVX512-VNNI + VBMI (+ VBMI2, have_vbmi) ----
 * Each input plane is quantized to bytes q + 128 in a zero-point-padded byte
 * plane (rows (OH - 1) * sh + KH, padding zp + 128, as in vn_pad_range). A
 * channel's taps go four columns to a word: word (kh, g) holds w[kh][4 g + t]
 * (0 past KW). Output (oh, ow) is sum over kh, g of the bytes at padded (oh *
 * sh + kh, ow * sw + 4 g + t), t < 4, times that word: for 16 outputs in a
 * row, one 64-byte load from the padded row, one byte permute (vpermb) that
 * lays out each output's four bytes, one vpdpbusd. Less (zp + 128) sum w, the
 * int32 sums are the centred ones of the float path, exact below 2^24. */
#if defined(QVNNI)
/* The padded byte plane's row length for c: every 32-column block of a row
 * reads 64 bytes from ow0 * sw + 4 g. */
static int64_t dwv_row_bytes(const conv_geom *c)
{
    int64_t G4 = (c->KW + 3) / 4;
    int64_t need = (c->OW + 31) / 32 * 32 * c->sw + 4 * G4 + 64;
    int64_t have = c->pl + c->W;
    need = need > have ? need : have;
    return (need + 63) / 64 * 64;
}

/* The padding of P (Hp rows of Wb bytes): the same for every plane of a
 * conv, so written once per task and left alone by dwv_fill. */
static void dwv_pad(const conv_geom *c, const qparam_t *p, uint8_t *P, int64_t Hp, int64_t Wb)
{
    const uint8_t pad = (uint8_t)(p->zp + 128);
    int64_t r0 = c->pt < Hp ? c->pt : Hp, r1 = c->pt + c->H < Hp ? c->pt + c->H : Hp;
    memset(P, pad, (size_t)(r0 * Wb));
    for (int64_t r = r0; r < r1; r++) {
        memset(P + r * Wb, pad, (size_t)c->pl);
        memset(P + r * Wb + c->pl + c->W, pad, (size_t)(Wb - c->pl - c->W));
    }
    memset(P + r1 * Wb, pad, (size_t)((Hp - r1) * Wb));
}

/* Plane x (H x W floats, or its bytes xb) into the inside of P; the bytes'
 * short rows by vector moves, the tail masked (a memcpy call a row cost more
 * than the copy). */
QTB static void dwv_fill(const conv_geom *c, const qparam_t *p, const float *x, const uint8_t *xb,
                         uint8_t *P, int64_t Hp, int64_t Wb)
{
    int64_t r0 = c->pt < Hp ? c->pt : Hp, r1 = c->pt + c->H < Hp ? c->pt + c->H : Hp;
    const int64_t W = c->W;
    const __mmask64 tail = W % 64 ? ((__mmask64)1 << (W % 64)) - 1 : 0;
    if (r1 > r0 && xb) /* already q + 128 */
        for (int64_t r = r0; r < r1; r++) {
            uint8_t *d = P + r * Wb + c->pl;
            const uint8_t *s = xb + (r - r0) * W;
            int64_t i = 0;
            for (; i + 64 <= W; i += 64)
                _mm512_storeu_si512(d + i, _mm512_loadu_si512(s + i));
            if (tail)
                _mm512_mask_storeu_epi8(d + i, tail, _mm512_maskz_loadu_epi8(tail, s + i));
        }
    else if (r1 > r0)
        quant_q8_bytes(x, r1 - r0, c->W, c->W, p, P + r0 * Wb + c->pl, Wb);
}

/* Outputs (oh, ow0 ...) and, when two, (oh + 1, ow0 ...) of one channel: 32
 * columns, or 16 when not wide; G4 a constant in the specialised copies.
 * The sums start at a0; with e (fused), they are requantized in registers
 * (scale cf, sc) to y and b, else written less zc as floats to y. */
QTB static inline __attribute__((always_inline)) void
dwv_tile(const conv_geom *c, const int32_t *wq, const uint8_t *P, int64_t Wb, __m512i idx,
         __m512i a0, __m512i zc, int64_t oh, int64_t ow0, int two, int64_t G4, int wide,
         float *y, const qev *e, __m512 cf, double sc, uint8_t *b, qtab tab,
         int64_t nkh, const int F)
{
    const int64_t sh = c->sh, OW = c->OW, step = 16 * c->sw;
    __m512i a00 = a0, a01 = a00, a10 = a00, a11 = a00;
    for (int64_t kh = 0; kh < nkh; kh++) {
        const uint8_t *r0 = P + (oh * sh + kh) * Wb + ow0 * c->sw;
        const uint8_t *r1 = two ? r0 + sh * Wb : r0;
        for (int64_t g = 0; g < G4; g++) {
            __m512i wv = _mm512_set1_epi32(wq[kh * G4 + g]);
            a00 = _mm512_dpbusd_epi32(
                a00, _mm512_permutexvar_epi8(idx, _mm512_loadu_si512(r0 + 4 * g)), wv);
            if (two)
                a10 = _mm512_dpbusd_epi32(
                    a10, _mm512_permutexvar_epi8(idx, _mm512_loadu_si512(r1 + 4 * g)), wv);
            if (wide) {
                a01 = _mm512_dpbusd_epi32(
                    a01, _mm512_permutexvar_epi8(idx, _mm512_loadu_si512(r0 + step + 4 * g)),
                    wv);
                if (two)
                    a11 = _mm512_dpbusd_epi32(
                        a11,
                        _mm512_permutexvar_epi8(idx, _mm512_loadu_si512(r1 + step + 4 * g)),
                        wv);
            }
        }
    }
    int64_t n0 = OW - ow0 < 16 ? OW - ow0 : 16, n1 = OW - ow0 - 16;
    n1 = n1 < 0 ? 0 : n1 > 16 ? 16 : n1;
    __mmask16 k0 = (__mmask16)((1u << n0) - 1), k1 = (__mmask16)((1u << n1) - 1);
    float *y0 = y + oh * OW + ow0;
    if (F) { /* row oh in bytes 0..31, row oh + 1 in 32..63 */
        __m512 y00 = qe_y(e, a00, cf), y01 = y00, y10 = y00, y11 = y00;
        __mmask16 w00 = qe_win(e, y00, k0), w01 = 0, w10 = 0, w11 = 0;
        if (wide)
            y01 = qe_y(e, a01, cf), w01 = qe_win(e, y01, k1);
        if (two)
            y10 = qe_y(e, a10, cf), w10 = qe_win(e, y10, k0);
        if (two && wide)
            y11 = qe_y(e, a11, cf), w11 = qe_win(e, y11, k1);
        if (__builtin_expect((w00 | w01 | w10 | w11) != 0, 0)) {
            y00 = w00 ? qe_redo(e, a00, sc) : y00;
            y01 = w01 ? qe_redo(e, a01, sc) : y01;
            y10 = w10 ? qe_redo(e, a10, sc) : y10;
            y11 = w11 ? qe_redo(e, a11, sc) : y11;
        }
        __m512i p = qe_bytes4(e, y00, y01, y10, y11, tab, F);
        const __mmask32 k = (__mmask32)k0 | (wide ? (__mmask32)k1 << 16 : 0);
        if (F & QE_BYTES) {
            uint8_t *b0 = b + oh * OW + ow0;
            _mm256_mask_storeu_epi8(b0, k, _mm512_castsi512_si256(p));
            if (two)
                _mm256_mask_storeu_epi8(b0 + OW, k, _mm512_extracti64x4_epi64(p, 1));
        }
        if (F & QE_FLOATS) {
            qe_store16(y0, k0, qe_float16(e, p, 0));
            if (wide)
                qe_store16(y0 + 16, k1, qe_float16(e, p, 1));
            if (two) {
                qe_store16(y0 + OW, k0, qe_float16(e, p, 2));
                if (wide)
                    qe_store16(y0 + OW + 16, k1, qe_float16(e, p, 3));
            }
        }
        return;
    }
    _mm512_mask_storeu_ps(y0, k0, _mm512_cvtepi32_ps(_mm512_sub_epi32(a00, zc)));
    if (wide)
        _mm512_mask_storeu_ps(y0 + 16, k1, _mm512_cvtepi32_ps(_mm512_sub_epi32(a01, zc)));
    if (two) {
        _mm512_mask_storeu_ps(y0 + OW, k0, _mm512_cvtepi32_ps(_mm512_sub_epi32(a10, zc)));
        if (wide)
            _mm512_mask_storeu_ps(y0 + OW + 16, k1,
                                  _mm512_cvtepi32_ps(_mm512_sub_epi32(a11, zc)));
    }
}

/* Some pair of output rows of c has kernel rows over padding alone (padding
 * of more than a stride, or fewer input rows than kernel rows): its planes
 * take dwv_plane_t's skipping copy, the others the plain one. */
static int dwv_may_skip(const conv_geom *c)
{
    return c->pt > c->sh || c->H < c->KH || (c->OH - 1) * c->sh + c->KH - c->pt - c->H > c->sh;
}

/* One channel m's plane from P into y (OH x OW floats, the centred sums;
 * with e, the outputs, and their bytes to b): two rows and 32 columns a
 * step, 16 where at most 16 are left (a narrow plane's second half would be
 * all waste); 3- to 8-wide kernels with their word count a constant (the tap
 * loop unrolled). S (dwv_may_skip): kernel rows that reach only padding rows
 * for both output rows are skipped: each would add (zp + 128) times its weights' sum, which
 * the sums then start with instead (PP-OCR's 5x5 over 2-row maps: 2 of 5
 * rows; the int32 sums wrap alike). */
QTB static inline __attribute__((always_inline)) void
dwv_plane_t(const conv_geom *c, const quant_node *q, int64_t m, const uint8_t *P, int64_t Wb,
            __m512i idx, float *y, const qev *e, uint8_t *b, const int F, const int S)
{
    const int64_t G4 = (c->KW + 3) / 4, OW = c->OW;
    const int32_t *wq = q->wq + m * q->wq_k;
    const __m512i zc = _mm512_set1_epi32((q->in.zp + 128) * q->wsum[m]);
    const __m512i a0 = F ? _mm512_set1_epi32(e->p->init[m]) : _mm512_setzero_si512();
    const __m512 cf = _mm512_set1_ps(F ? e->p->cf[m] : 0.0f);
    const double sc = F ? e->p->sc[m] : 0.0;
    const qtab tab = qe_tabv(F ? qe_tab(e, m) : NULL, F);
    const int32_t *wrow = q->wrow + m * c->KH, zq = q->in.zp + 128;
#define DWV_TILE(G, W)                                                                     \
    do {                                                                                   \
        if (S)                                                                             \
            dwv_tile(c, wq + kh0 * G4, P + kh0 * Wb, Wb, idx, as, zc, oh, ow0, two, G, W, \
                     y, e, cf, sc, b, tab, kh1 - kh0, F);                                  \
        else if (two)                                                                      \
            dwv_tile(c, wq, P, Wb, idx, a0, zc, oh, ow0, 1, G, W, y, e, cf, sc, b, tab,   \
                     c->KH, F);                                                            \
        else                                                                               \
            dwv_tile(c, wq, P, Wb, idx, a0, zc, oh, ow0, 0, G, W, y, e, cf, sc, b, tab,   \
                     c->KH, F);                                                            \
    } while (0)
    for (int64_t oh = 0; oh < c->OH; oh += 2) {
        int two = oh + 1 < c->OH;
        /* S: the kernel rows that reach an input row for oh or oh + 1 */
        int64_t kh0 = 0, kh1 = c->KH;
        __m512i as = a0;
        if (S) {
            kh0 = c->pt - (oh + two) * c->sh, kh1 = c->pt - oh * c->sh + c->H;
            kh0 = kh0 < 0 ? 0 : kh0;
            kh1 = kh1 > c->KH ? c->KH : kh1;
            if (kh0 >= kh1)
                kh0 = 0, kh1 = c->KH;
            uint32_t skip = 0;
            for (int64_t kh = 0; kh < c->KH; kh++)
                skip += kh < kh0 || kh >= kh1 ? (uint32_t)zq * (uint32_t)wrow[kh] : 0u;
            as = _mm512_add_epi32(a0, _mm512_set1_epi32((int32_t)skip));
        }
        for (int64_t ow0 = 0; ow0 < OW; ow0 += 32) {
            int wide = OW - ow0 > 16;
            if (G4 == 1 && wide)
                DWV_TILE(1, 1);
            else if (G4 == 1)
                DWV_TILE(1, 0);
            else if (G4 == 2 && wide)
                DWV_TILE(2, 1);
            else if (G4 == 2)
                DWV_TILE(2, 0);
            else
                DWV_TILE(G4, 1);
        }
    }
#undef DWV_TILE
}

/* The byte permute of dwv_tile for stride sw: output b of 16 reads bytes
 * b * sw + t, t < 4. */
QTB static __m512i dwv_index(int64_t sw)
{
    uint8_t ib[64];
    for (int b = 0; b < 16; b++)
        for (int t = 0; t < 4; t++)
            ib[4 * b + t] = (uint8_t)(b * sw + t);
    return _mm512_loadu_si512(ib);
}

QTB static void dwv_plane(const conv_geom *c, const quant_node *q, int64_t m, const uint8_t *P,
                          int64_t Wb, __m512i idx, float *y)
{
    if (dwv_may_skip(c))
        dwv_plane_t(c, q, m, P, Wb, idx, y, NULL, NULL, 0, 1);
    else
        dwv_plane_t(c, q, m, P, Wb, idx, y, NULL, NULL, 0, 0);
}

/* The copies for each kind of fused output (qev_kind). */
typedef void dwv_plane_q_fn(const conv_geom *c, const quant_node *q, int64_t m, const uint8_t *P,
                            int64_t Wb, __m512i idx, float *y, const qev *e, uint8_t *b);
#define DWV_PLANE_Q(F)                                                                     \
    QTB static void dwv_plane_q##F(const conv_geom *c, const quant_node *q, int64_t m,      \
                                   const uint8_t *P, int64_t Wb, __m512i idx, float *y,     \
                                   const qev *e, uint8_t *b)                                \
    {                                                                                      \
        if (dwv_may_skip(c))                                                               \
            dwv_plane_t(c, q, m, P, Wb, idx, y, e, b, F, 1);                               \
        else                                                                               \
            dwv_plane_t(c, q, m, P, Wb, idx, y, e, b, F, 0);                               \
    }
DWV_PLANE_Q(2)
DWV_PLANE_Q(3)
DWV_PLANE_Q(4)
DWV_PLANE_Q(5)
DWV_PLANE_Q(6)
DWV_PLANE_Q(7)
#undef DWV_PLANE_Q

/* dwv_range's planes as centred sums, then epi_scale_rows on runs of planes
 * of one batch item (up to 32), in one call. */
QTB static void dwv_range_f(const conv_job *j, int64_t t0, int64_t t1, uint8_t *P, int64_t Hp,
                            int64_t Wb)
{
    const conv_geom *c = j->c;
    const quant_node *q = j->q;
    const int64_t HW = c->H * c->W;
    const __m512i idx = dwv_index(c->sw);
    for (int64_t t = t0, end; t < t1; t = end) {
        int64_t m0 = t % c->M;
        end = t + 32 < t1 ? t + 32 : t1;
        end = end - t > c->M - m0 ? t + c->M - m0 : end;
        for (int64_t k = 0; k < end - t; k++) {
            dwv_fill(c, &q->in, j->x + (t + k) * HW, j->xb ? j->xb + (t + k) * HW : NULL, P, Hp,
                     Wb);
            dwv_plane(c, q, m0 + k, P, Wb, idx, j->y + (t + k) * j->P);
        }
        float *y = j->y + t * j->P;
        epi_scale_rows(y, j->P, y, j->P, end - t, j->P, m0, q);
    }
}

/* dwv_range's planes requantized in the tiles (dwv_plane_q). */
QTB static void dwv_range_q(const conv_job *j, int64_t t0, int64_t t1, uint8_t *P, int64_t Hp,
                            int64_t Wb)
{
    static dwv_plane_q_fn *const planes[8] = {NULL,           NULL,           dwv_plane_q2,
                                              dwv_plane_q3,   dwv_plane_q4,   dwv_plane_q5,
                                              dwv_plane_q6,   dwv_plane_q7};
    const conv_geom *c = j->c;
    const quant_node *q = j->q;
    const qepi *p = j->epi;
    const int64_t HW = c->H * c->W;
    const __m512i idx = dwv_index(c->sw);
    qev e;
    qev_init(&e, p);
    dwv_plane_q_fn *plane = planes[qev_kind(p)];
    for (int64_t t = t0; t < t1; t++) {
        float *y = j->y + t * j->P;
        dwv_fill(c, &q->in, j->x + t * HW, j->xb ? j->xb + t * HW : NULL, P, Hp, Wb);
        plane(c, q, t % c->M, P, Wb, idx, y, &e, p->b ? p->b + (y - p->y_run) : NULL);
    }
}
#endif

/* Depthwise planes [t0, t1) of j (raw input) on VNNI; 0 when not taken. */
static int dwv_range(const conv_job *j, int64_t t0, int64_t t1)
{
#if defined(QVNNI)
    const conv_geom *c = j->c;
    const quant_node *q = j->q;
    if (!q->wq || !q->wq_dw || quant_isa() < QISA_VNNI || !have_vbmi())
        return 0;
    const int64_t Hp = (c->OH - 1) * c->sh + c->KH + 1, Wb = dwv_row_bytes(c);
    uint8_t *P = kernel_scratch(SCRATCH_Q_BLOCK, (size_t)(Hp * Wb + 64));
    dwv_pad(c, &q->in, P, Hp, Wb);
    if (j->epi)
        dwv_range_q(j, t0, t1, P, Hp, Wb);
    else
        dwv_range_f(j, t0, t1, P, Hp, Wb);
    return 1;
#else
    (void)j, (void)t0, (void)t1;
    return 0;
#endif
}

/* Tap quads for dwv_plane: channel m, word kh * G4 + g = w[m][kh][4 g + t]. */
static void dwv_pack(const conv_geom *c, quant_node *q)
{
    int64_t G4 = (c->KW + 3) / 4, KK = c->KH * c->KW;
    q->wq_k = c->KH * G4;
    q->wq = xaligned_alloc(sizeof(int32_t) * (size_t)(c->M * q->wq_k));
    q->wsum = xmalloc(sizeof(int32_t) * (size_t)c->M);
    q->wq_dw = 1;
    q->wrow = xcalloc((size_t)(c->M * c->KH), sizeof(int32_t));
    for (int64_t m = 0; m < c->M; m++) {
        int32_t sum = 0;
        for (int64_t kh = 0; kh < c->KH; kh++)
            for (int64_t g = 0; g < G4; g++)
                q->wq[m * q->wq_k + kh * G4 + g] =
                    (int32_t)tap_word(q->w + m * KK + kh * c->KW, c->KW, g);
        for (int64_t k = 0; k < KK; k++) {
            sum += q->w[m * KK + k];
            q->wrow[m * c->KH + k / c->KW] += q->w[m * KK + k];
        }
        q->wsum[m] = sum;
    }
    epi_start(c, q);
}

/* The input centred on the executor's threads, in chunks. */
#define QCEN_CHUNK 16384
typedef struct cen_job {
    const float *x;
    const uint8_t *xb;
    float *xq;
    int64_t n;
    const qparam_t *p;
} cen_job;

static void cen_range(void *arg, int64_t b, int64_t e)
{
    const cen_job *j = arg;
    int64_t lo = b * QCEN_CHUNK, hi = e * QCEN_CHUNK < j->n ? e * QCEN_CHUNK : j->n;
    centre(j->x + lo, j->xb ? j->xb + lo : NULL, j->xq + lo, hi - lo, j->p);
}

const uint8_t *quant_bytes_of_run(const op_ctx *ctx, const quant_bytes *b, int64_t n,
                                  const qparam_t *grid)
{
    if (!ctx->private_run || !b || !b->valid || b->n != n || !quant_same_grid(&b->grid, grid))
        return NULL;
    return b->q;
}

/* The input's bytes when this run's producer wrote them on q's input grid
 * (the very bytes quantizing its floats would give), else NULL. */
static const uint8_t *conv_in_bytes(const op_ctx *ctx, const quant_node *q, const tensor_t *x)
{
    return quant_bytes_of_run(ctx, q->ib, tensor_numel(x), &q->in);
}

/* Starts the output's bytes for this run when the epilogue can write them:
 * a private run, an output grid, no double GEMM, no post step outside it. */
static int conv_bytes_begin(const op_ctx *ctx, quant_node *q, const float *y)
{
    if (q->ob)
        q->ob->valid = 0;
    const qparam_t *bg = q->out_q ? quant_epilogue_byte_grid(&q->out, q->lut, q->lut8) : NULL;
    if (!ctx->private_run || !q->ob || !bg || q->wd || (q->post && !q->lut && !q->clamp))
        return 0;
    q->ob->grid = *bg;
    q->ob_run = q->ob->q;
    q->y_run = y;
    q->no_floats = q->ob->only_bytes && quant_same_grid(bg, &q->ob->rgrid);
    return 1;
}

/* Ends them: valid when every output went through epi_scale_rows. */
static int conv_bytes_end(quant_node *q, int on)
{
    if (q->ob)
        q->ob->valid = on && q->ob_run;
    q->ob_run = NULL;
    q->y_run = NULL;
    q->no_floats = 0;
    return RT_OK;
}

/* Sets e up for this run of q when its byte tiles can requantize in
 * registers (fused requantization): AVX512-VNNI, VBMI and VBMI2 taken, an output
 * grid with no post step outside the epilogue (a clamp or a byte table
 * only), and every channel in the ranges the exactness argument needs, the
 * epilogue's own (grid512_row in qparams.c) and |bias| <= 2^30. 0: not. */
static int qepi_begin(const quant_node *q, const conv_geom *c, float *y, qepi *e)
{
#ifdef QVNNI
    const int lut = q->lut && q->out_q, clamp = q->clamp && q->out_q && !lut;
    if (!q->wq || !q->epi_init || !q->epi_ok || !q->out_q || (lut && !q->lut8) ||
        (q->post && !lut && !clamp) || quant_isa() != QISA_VNNI || !have_vbmi() ||
        !(q->out.scale >= 0x1p-100f) || !isfinite(1.0f / q->out.scale))
        return 0;
    /* the scales, unless made for this output grid last time (a chain
     * sets its grid per run: the mark lives with them, not in q) */
    float *mark = q->epi_cf + c->M;
    if (memcmp(mark, &q->out.scale, sizeof(float))) {
        memset(mark, 0xff, sizeof(float));
        for (int64_t m = 0; m < c->M; m++) {
            float cf = (float)(q->oscale[m] / q->out.scale);
            if (!(cf >= 0x1p-100f && cf <= 0x1p60f))
                return 0;
            q->epi_cf[m] = cf;
        }
        memcpy(mark, &q->out.scale, sizeof(float));
    }
    *e = (qepi){.init = q->epi_init, .cf = q->epi_cf, .sc = q->oscale, .out = &q->out,
                .lut8 = lut ? q->lut8 : NULL, .lut_ch = lut && q->lut_ch,
                .qlo = clamp ? q->qlo : -128, .qhi = clamp ? q->qhi : 127, .b = q->ob_run, .y_run = y,
                .floats = !q->no_floats};
    return 1;
#else
    (void)q, (void)c, (void)y, (void)e;
    return 0;
#endif
}

static int qconv_run(op_ctx *ctx, graph_t *g, node_t *n)
{
    quant_node *q = n->priv;
    conv_geom c;
    if (q->geom)
        c = *(const conv_geom *)q->geom;
    else if (conv_geometry(g, n, &c))
        return rt_err(ctx->err, ctx->errlen, RT_EINTERNAL, "int8 conv: bad geometry");
    const tensor_t *x = node_input(g, n, 0);
    const uint8_t *xb = conv_in_bytes(ctx, q, x);
    float *yd = node_output(g, n, 0)->data;
    int bytes = conv_bytes_begin(ctx, q, yd);
    qepi epi;
    const qepi *ep = qepi_begin(q, &c, yd, &epi) ? &epi : NULL;
    if (vnni_conv(ctx, &c, q, x->data, xb, yd, ep))
        return conv_bytes_end(q, bytes);
    /* the implicit GEMM's epilogue is its own (no bytes) */
    if (impl_conv(ctx, &c, q, x->data, xb, yd, c.C / c.G * c.KH * c.KW))
        return conv_bytes_end(q, 0);
    int nobytes = 0;
    conv_job j = {.c = &c, .q = q, .x = x->data, .y = yd, .xb = xb, .nobytes = &nobytes,
                  .epi = ep};
    j.K = c.C / c.G * c.KH * c.KW;
    j.P = c.OH * c.OW;
    j.pointwise = c.KH == 1 && c.KW == 1 && c.sh == 1 && c.sw == 1 && c.pt == 0 && c.pl == 0 &&
                  c.OH == c.H && c.OW == c.W;
    int dw = c.G > 1 && c.G == c.C && c.G == c.M && q->wf && !q->wd;
    /* depthwise and pointwise tasks centre their own part of the input; the
     * others read a centred copy (im2col repeats each value KH * KW times) */
    j.raw = dw || (j.pointwise && !q->wd);
    if (!j.raw) {
        int64_t nx = tensor_numel(x);
        float *xq = kernel_scratch(SCRATCH_Q_INPUT, sizeof(float) * (size_t)(nx ? nx : 1));
        cen_job cj = {.x = x->data, .xb = xb, .xq = xq, .n = nx, .p = &q->in};
        op_parallel_for_work(ctx, (nx + QCEN_CHUNK - 1) / QCEN_CHUNK, QCEN_CHUNK / 2, cen_range,
                             &cj);
        j.x = xq;
    }
    /* small convs stay on the calling thread, as the fp32 ones do: waking the
     * pool costs more than the work */
    int64_t macs = c.N * c.M * j.P * j.K;
    int inl = macs < (dw ? (1 << 17) : (1 << 20));
    int nth = inl ? 1 : ctx->nthreads;
    /* column blocks whose B part fits in cache, and at least two tasks per
     * thread (as conv_plan does for fp32) */
    j.cols = QCOL_BYTES / (int64_t)(q->wd ? sizeof(double) : sizeof(float)) / (j.K ? j.K : 1);
    j.cols = j.cols < 64 ? 64 : j.cols;
    int64_t want = nth > 1 ? 2 * nth : 1, groups = c.N * c.G;
    if (groups * ((j.P + j.cols - 1) / j.cols) < want) {
        int64_t per = (want + groups - 1) / groups, c2 = (j.P + per - 1) / per;
        if (c2 >= 16)
            j.cols = c2 < j.cols ? c2 : j.cols;
    }
    if (j.cols < j.P)
        j.cols = (j.cols + GEMM_NR - 1) / GEMM_NR * GEMM_NR;
    j.cols = j.cols > j.P ? j.P : j.cols;
    j.nblk = j.P && j.cols ? (j.P + j.cols - 1) / j.cols : 0;
    if (dw && nth == 1)
        dw_range(&j, 0, c.N * c.M);
    else if (dw)
        op_parallel_for(ctx, c.N * c.M, dw_range, &j);
    else if (j.nblk && nth == 1)
        conv_range(&j, 0, c.N * c.G * j.nblk);
    else if (j.nblk)
        op_parallel_for(ctx, c.N * c.G * j.nblk, conv_range, &j);
    return conv_bytes_end(q, bytes && !__atomic_load_n(&nobytes, __ATOMIC_RELAXED));
}

/* ---- Gemm / MatMul: rows of A times int8 B[K][N] ---- */

typedef struct mm_job {
    const quant_node *q;
    const int16_t *a;  /* [rows][K] */
    float *y;          /* [rows][N] */
    int64_t K, N;
    const float *c;    /* float bias added after scaling (Gemm C), or NULL */
    int64_t c_rs, c_cs;/* C strides (broadcast) */
    float alpha, beta;
} mm_job;

/* A row's int32 sums on AVX512-VNNI: acc[n] = sum_k a[k] * w[k][n], from
 * the row as bytes a + zp + 128 (four to a word) times the weight quads
 * (quant_mm_pack), less (zp + 128) * sum_k w[k][n]: exact, the same integers
 * as the scalar loop. 64 columns at a time (four independent sums). */
#ifdef QVNNI
QTV static void mm_row_vnni(const quant_node *q, const int16_t *a, int64_t K, int64_t N,
                            uint32_t *aq, int32_t *acc)
{
    const int32_t off = q->in.zp + 128;
    const int64_t K4 = q->wq_k, Np = (N + 15) / 16 * 16;
    for (int64_t k4 = 0; k4 < K4; k4++) {
        uint32_t w = 0;
        for (int64_t t = 0; t < 4 && 4 * k4 + t < K; t++)
            w |= (uint32_t)(uint8_t)(a[4 * k4 + t] + off) << (8 * t);
        aq[k4] = w;
    }
    for (int64_t n0 = 0; n0 < Np; n0 += 64) {
        int nb = Np - n0 < 64 ? (int)((Np - n0) / 16) : 4;
        __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
        const int32_t *wk = q->wq + n0;
        for (int64_t k4 = 0; k4 < K4; k4++, wk += Np) {
            __m512i av = _mm512_set1_epi32((int32_t)aq[k4]);
            s0 = _mm512_dpbusd_epi32(s0, av, _mm512_loadu_si512(wk));
            if (nb > 1)
                s1 = _mm512_dpbusd_epi32(s1, av, _mm512_loadu_si512(wk + 16));
            if (nb > 2)
                s2 = _mm512_dpbusd_epi32(s2, av, _mm512_loadu_si512(wk + 32));
            if (nb > 3)
                s3 = _mm512_dpbusd_epi32(s3, av, _mm512_loadu_si512(wk + 48));
        }
        __m512i sv[4] = {s0, s1, s2, s3};
        for (int b = 0; b < nb; b++) {
            int64_t c0 = n0 + 16 * b;
            __mmask16 m = N - c0 >= 16 ? 0xffff : (__mmask16)((1u << (N - c0)) - 1);
            __m512i z = _mm512_mullo_epi32(_mm512_set1_epi32(off),
                                           _mm512_maskz_loadu_epi32(m, q->wsum + c0));
            _mm512_mask_storeu_epi32(acc + c0, m, _mm512_sub_epi32(sv[b], z));
        }
    }
}
#endif

static void mm_range(void *arg, int64_t begin, int64_t end)
{
    mm_job *j = arg;
    int32_t *acc = xmalloc(sizeof(int32_t) * (size_t)(j->N ? j->N : 1));
    int vnni = 0;
    uint32_t *aq = NULL;
#ifdef QVNNI
    vnni = j->q->wq && quant_isa() == QISA_VNNI;
    if (vnni)
        aq = xmalloc(sizeof(uint32_t) * (size_t)(j->q->wq_k ? j->q->wq_k : 1));
#endif
    for (int64_t r = begin; r < end; r++) {
        const int16_t *ar = j->a + r * j->K;
#ifdef QVNNI
        if (vnni) {
            mm_row_vnni(j->q, ar, j->K, j->N, aq, acc);
            if (j->q->bias)
                for (int64_t k = 0; k < j->N; k++)
                    acc[k] += j->q->bias[k];
        }
#endif
        if (!vnni) {
            for (int64_t k = 0; k < j->N; k++)
                acc[k] = j->q->bias ? j->q->bias[k] : 0;
            for (int64_t k = 0; k < j->K; k++) {
                int32_t av = ar[k];
                if (!av)
                    continue;
                const int8_t *br = j->q->w + k * j->N;
                for (int64_t c = 0; c < j->N; c++)
                    acc[c] += av * br[c];
            }
        }
        float *yr = j->y + r * j->N;
        for (int64_t c = 0; c < j->N; c++) {
            double v = acc[c] * ((double)j->q->in.scale * j->q->wscale[c]) * j->alpha;
            if (j->c)
                v += (double)j->beta * j->c[r * j->c_rs + c * j->c_cs];
            yr[c] = (float)v;
        }
    }
    free(aq);
    free(acc);
}

/* Weight quads for mm_row_vnni: word k4 * Np + n holds w[4 k4 + t][n] (0
 * past K or N), Np = N rounded up to 16; wsum[n] = sum_k w[k][n] (Np). */
void quant_mm_pack(quant_node *q, int64_t K, int64_t N)
{
    if (cpu_isa() < QISA_VNNI || K < 1 || N < 1)
        return;
    int64_t K4 = (K + 3) / 4, Np = (N + 15) / 16 * 16;
    q->wq_k = K4;
    q->wq = xaligned_alloc(sizeof(int32_t) * (size_t)(K4 * Np));
    q->wsum = xcalloc((size_t)Np, sizeof(int32_t));
    for (int64_t k4 = 0; k4 < K4; k4++)
        for (int64_t n = 0; n < Np; n++) {
            uint32_t w = 0;
            for (int64_t t = 0; t < 4 && 4 * k4 + t < K && n < N; t++)
                w |= (uint32_t)(uint8_t)q->w[(4 * k4 + t) * N + n] << (8 * t);
            q->wq[k4 * Np + n] = (int32_t)w;
        }
    for (int64_t k = 0; k < K; k++)
        for (int64_t n = 0; n < N; n++)
            q->wsum[n] += q->w[k * N + n];
}

static int qgemm_run(op_ctx *ctx, graph_t *g, node_t *n)
{
    const quant_node *q = n->priv;
    const tensor_t *a = node_input(g, n, 0), *c = node_input(g, n, 2);
    tensor_t *y = node_output(g, n, 0);
    int ta = (int)node_attr_int(n, "transA", 0);
    int64_t M = y->dims[0], N = y->dims[1], K = ta ? a->dims[0] : a->dims[1];
    const float *ad = a->data;
    float *at = NULL;

    if (ta) { /* rows of A^T */
        at = xmalloc(sizeof(float) * (size_t)(M * K));
        for (int64_t i = 0; i < M; i++)
            for (int64_t k = 0; k < K; k++)
                at[i * K + k] = ad[k * M + i];
        ad = at;
    }
    int16_t *aq = quantize_input(ad, M * K, &q->in);
    mm_job j = {.q = q, .a = aq, .y = y->data, .K = K, .N = N,
                .alpha = node_attr_float(n, "alpha", 1.0f),
                .beta = node_attr_float(n, "beta", 1.0f)};
    if (c && !q->bias) {
        /* C broadcast to [M, N]: a scalar, [N], [1, N], [M, 1] or [M, N]. */
        int64_t cr = c->ndim == 2 ? c->dims[0] : 1, cc = c->ndim >= 1 ? c->dims[c->ndim - 1] : 1;
        j.c = c->data;
        j.c_rs = cr == 1 ? 0 : cc;
        j.c_cs = cc == 1 ? 0 : 1;
    }
    op_parallel_for(ctx, M, mm_range, &j);
    free(aq);
    free(at);
    return RT_OK;
}

static int qmatmul_run(op_ctx *ctx, graph_t *g, node_t *n)
{
    const quant_node *q = n->priv;
    const tensor_t *a = node_input(g, n, 0);
    tensor_t *y = node_output(g, n, 0);
    int64_t K = a->dims[a->ndim - 1], N = y->dims[y->ndim - 1];
    int64_t rows = tensor_numel(a) / (K ? K : 1);
    int16_t *aq = quantize_input(a->data, rows * K, &q->in);
    mm_job j = {.q = q, .a = aq, .y = y->data, .K = K, .N = N, .alpha = 1, .beta = 0};
    op_parallel_for(ctx, rows, mm_range, &j);
    free(aq);
    return RT_OK;
}

static void q_release(node_t *n)
{
    quant_node *q = n->priv;
    if (!q)
        return;
    n->priv = q->orig_priv;
    if (q->orig_def && q->orig_def->release)
        q->orig_def->release(n);
    n->priv = NULL;
    free(q->wscale);
    free(q->oscale);
    free(q->geom);
    free(q->w);
    free(q->wf);
    free(q->wd);
    free(q->wpack);
    free(q->wq);
    free(q->wsum);
    free(q->wrow);
    free(q->epi_init);
    free(q->epi_cf);
    free(q->bias);
    free(q);
}

/* infer is never called (the swap happens after shape inference); the fp32
 * op's infer is kept for completeness through quant_graph_finish. */
const op_def quant_op_conv = {"Conv", "", NULL, NULL, qconv_run, q_release, NULL};
const op_def quant_op_gemm = {"Gemm", "", NULL, NULL, qgemm_run, q_release, NULL};
const op_def quant_op_matmul = {"MatMul", "", NULL, NULL, qmatmul_run, q_release, NULL};

/* Used by qgraph.c: checks that Conv node n fits the int8 kernel. */
int quant_conv_supported(graph_t *g, const node_t *n)
{
    conv_geom c;
    return conv_geometry(g, n, &c) == 0;
}

/* The geometry read once (shapes are fixed once the graph is prepared), not
 * from the attributes on every run. */
void quant_conv_keep_geometry(graph_t *g, const node_t *n, quant_node *q)
{
    conv_geom c;
    if (conv_geometry(g, n, &c) == 0) {
        q->geom = xmalloc(sizeof(c));
        memcpy(q->geom, &c, sizeof(c));
        /* one group, float-exact sums, padding on the top/left only as the
         * padded planes hold it; packed whenever the CPU has a byte-quad
         * path, which quant_isa picks per run */
        if (cpu_isa() >= QISA_AVX2 && q->wf && !q->wd && c.G == 1 && c.pt >= 0 && c.pl >= 0)
            vnni_pack(&c, q);
        /* depthwise, dilation 1, strides up to 4 (16 outputs' bytes within
         * one 64-byte load), kernels at least 3 wide (a 3-wide row fills
         * three bytes of a word; once the input came as bytes, the padding
         * was written once a task and narrow planes took 16 columns a step,
         * 3x3 ran faster here than on dw512_plane) */
        else if (cpu_isa() >= QISA_VNNI && q->wf && !q->wd && c.G > 1 && c.G == c.C &&
                 c.G == c.M && c.dh == 1 && c.dw == 1 && c.sw <= 4 && c.KW >= 3 &&
                 c.pt >= 0 && c.pl >= 0)
            dwv_pack(&c, q);
    }
}
