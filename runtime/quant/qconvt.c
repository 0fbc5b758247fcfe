/* runtime/quant/qconvt.c — ConvTranspose of the int8 simulation with its
 * requantization in the kernel.
 *
 * A ConvTranspose keeps the float semantics of the ops without an int8
 * kernel (quant.h): the fp32 kernel on the dequantized input and weights,
 * then quantize-dequantize. Those floats are not integer sums: the
 * dequantized values (q - zp) * s are not integers and the kernel's float
 * sum of their products rounds at each of its K fused multiply-adds, so an
 * output whose exact value lies near a rounding half of the output grid can
 * take another q than the exact integer sum would give (the sums of PP-OCR's
 * det head are up to 5e-5 of a grid step from the exact ones). An integer
 * kernel would therefore change the numbers; this one keeps them: for a
 * ConvTranspose whose kernel equals its stride (no padding, dilation or
 * groups, 2-D) on a CPU with AVX-512, whose fp32 kernel is the blocky GEMM
 * of ops_conv.c, it runs that kernel's GEMM calls on the same packed weights
 * over the same row blocks, and requantizes each block while it is in cache,
 * before it is scattered to the output: one pass over the output instead of
 * two (9.8 MB at 320x320 in the det head). Its input may come as bytes
 * (quant_bytes, written by its producer beside or instead of the floats):
 * each block's floats are then made from them, (q - zp) * scale as every
 * producer writes them, a quarter of the memory read. Its output goes out as
 * bytes too (through a chain's byte table), and as bytes alone where only
 * byte readers take it: PP-OCR det's two ConvTransposes pass 2.5 MB of
 * bytes instead of 9.8 MB of floats. */
#include "runtime/quant/quant.h"
#include "runtime/exec/kernels.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

struct quant_convt {
    float *wpack;         /* W^T, rows (m, ky, kx), packed for gemm512_run */
    const float *bias;    /* M values, or NULL */
    int64_t N, C, M, IH, IW, kh, kw, R; /* R = M * kh * kw */
};

/* An attribute of ints that is absent or every value v. */
static int ints_all(const node_t *n, const char *name, int64_t v)
{
    const int64_t *a;
    int cnt = node_attr_ints(n, name, &a);
    for (int i = 0; i < cnt; i++)
        if (a[i] != v)
            return 0;
    return 1;
}

quant_convt *quant_convt_new(graph_t *g, const node_t *n)
{
    if (!gemm512_available() || strcmp(n->op, "ConvTranspose") || n->n_in < 2 ||
        n->n_out != 1 || n->in[0] < 0 || n->in[1] < 0 || n->out[0] < 0)
        return NULL;
    const tensor_t *x = node_input(g, n, 0), *w = node_input(g, n, 1);
    const tensor_t *b = n->n_in > 2 && n->in[2] >= 0 ? node_input(g, n, 2) : NULL;
    const tensor_t *y = &g->t[n->out[0]];
    if (x->dtype != DT_FLOAT || w->dtype != DT_FLOAT || y->dtype != DT_FLOAT || x->ndim != 4 ||
        w->ndim != 4 || y->ndim != 4 || w->kind != TK_CONST || !w->data ||
        node_attr_int(n, "group", 1) != 1 || !ints_all(n, "dilations", 1) ||
        !ints_all(n, "pads", 0) || !ints_all(n, "output_padding", 0))
        return NULL;
    int64_t N = x->dims[0], C = x->dims[1], IH = x->dims[2], IW = x->dims[3];
    int64_t M = w->dims[1], kh = w->dims[2], kw = w->dims[3];
    const int64_t *s;
    if (node_attr_ints(n, "strides", &s) != 2 || s[0] != kh || s[1] != kw || w->dims[0] != C ||
        y->dims[0] != N || y->dims[1] != M || y->dims[2] != IH * kh || y->dims[3] != IW * kw ||
        N < 1 || C < 1 || M < 1 || IH < 1 || IW < 1 || kh < 1 || kw < 1)
        return NULL;
    if (b && (b->dtype != DT_FLOAT || !b->data || tensor_numel(b) != M || b->kind != TK_CONST))
        return NULL;
    quant_convt *k = xcalloc(1, sizeof(*k));
    *k = (quant_convt){.bias = b ? b->data : NULL, .N = N, .C = C, .M = M, .IH = IH, .IW = IW,
                       .kh = kh, .kw = kw, .R = M * kh * kw};
    /* W is [C][M][kh][kw], packed as the fp32 kernel packs it */
    k->wpack = xaligned_alloc(sizeof(float) * gemm512_packed_floats(k->R, C));
    convt_pack_weights(w->data, C, k->R, k->wpack);
    return k;
}

void quant_convt_free(quant_convt *k)
{
    if (!k)
        return;
    free(k->wpack);
    free(k);
}

typedef struct convt_job {
    const quant_convt *k;
    const float *x;
    const uint8_t *xb;    /* or the input's bytes q + 128 on grid xg */
    qparam_t xg;
    float *y;
    const qparam_t *p;
    const float *lut;     /* a chain's tables (quant_convt_run), or NULL, */
    const quant_lut8 *lut8; /* as bytes, or NULL */
    int64_t lut_n;
    uint8_t *yb;          /* y's bytes q + 128 (on lut8's grid, else p), or NULL */
    int floats;           /* 0: y is not written (its bytes are all that is read) */
    int64_t per, ntask;
} convt_job;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CTHOT \
    __attribute__((optimize("O3"), target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define CTHOT __attribute__((optimize("O3")))
#endif

/* Rows a[0..kw) of n values each (one per kx), interleaved: d[i * kw + kx]. */
CTHOT static void scatter_row(float *restrict d, const float *restrict a, int64_t lda, int64_t kw,
                              int64_t n)
{
    if (kw == 2) {
        const float *a1 = a + lda;
        for (int64_t i = 0; i < n; i++) {
            d[2 * i] = a[i];
            d[2 * i + 1] = a1[i];
        }
        return;
    }
    for (int64_t kx = 0; kx < kw; kx++)
        for (int64_t i = 0; i < n; i++)
            d[i * kw + kx] = a[kx * lda + i];
}

/* The same for bytes. */
CTHOT static void scatter_bytes(uint8_t *restrict d, const uint8_t *restrict a, int64_t lda,
                                int64_t kw, int64_t n)
{
    if (kw == 2) { /* a byte of each row to one 16-bit word (x86: low byte first) */
        const uint8_t *a1 = a + lda;
        for (int64_t i = 0; i < n; i++) {
            uint16_t v = (uint16_t)(a[i] | a1[i] << 8);
            memcpy(d + 2 * i, &v, 2);
        }
        return;
    }
    for (int64_t kx = 0; kx < kw; kx++)
        for (int64_t i = 0; i < n; i++)
            d[i * kw + kx] = a[kx * lda + i];
}

/* rows of n bytes q + 128 (ld apart) to the floats (q - zp) * scale: the
 * values the input's floats hold on its grid. */
static void convt_dequant(const uint8_t *b, int64_t ld, int64_t rows, int64_t n,
                          const qparam_t *g, float *x)
{
    for (int64_t r = 0; r < rows; r++)
        quant_dq8_bytes(b + r * ld, n, g, x + r * n);
}

static void convt_range(void *arg, int64_t t0, int64_t t1)
{
    const convt_job *j = arg;
    const quant_convt *k = j->k;
    const int64_t IW = k->IW, OW = IW * k->kw, OH = k->IH * k->kh, kvol = k->kh * k->kw;

    for (int64_t t = t0; t < t1; t++) {
        int64_t ni = t / j->ntask, r0 = (t % j->ntask) * j->per;
        int64_t nr = k->IH - r0 < j->per ? k->IH - r0 : j->per, ncol = nr * IW;
        float *tmp = kernel_scratch(SCRATCH_CONV, sizeof(float) * (size_t)(k->R * ncol));
        gemm_epi e = {.act = GEMM_ACT_NONE};
        if (j->xb) { /* the block's input values from its bytes, then the same GEMM */
            float *xs = kernel_scratch(SCRATCH_Q_INPUT, sizeof(float) * (size_t)(k->C * ncol));
            convt_dequant(j->xb + (ni * k->C * k->IH + r0) * IW, k->IH * IW, k->C, ncol, &j->xg,
                          xs);
            gemm512_run(k->wpack, k->R, k->C, xs, ncol, ncol, tmp, ncol, &e);
        } else {
            gemm512_run(k->wpack, k->R, k->C, j->x + (ni * k->C * k->IH + r0) * IW, k->IH * IW,
                        ncol, tmp, ncol, &e);
        }
        /* y = sum + bias (one float add, as the fp32 kernel: + 0 without a
         * bias), requantized, in one pass over the block; with yb, the bytes
         * of every row kept for the scatter (rows R x ncol after ncol of room) */
        size_t qrows = j->yb ? (size_t)k->R + 1 : 2;
        uint8_t *qb =
            j->lut8 || j->yb ? kernel_scratch(SCRATCH_Q_BLOCK, qrows * (size_t)ncol) : NULL;
        for (int64_t r = 0; r < k->R; r++) {
            float bv = k->bias ? k->bias[r / kvol] : 0.0f, *row = tmp + r * ncol;
            const quant_lut8 *t8 = j->lut8 ? j->lut8 + (j->lut_n > 1 ? r / kvol : 0) : NULL;
            uint8_t *rb = qb ? qb + (j->yb ? r + 1 : 1) * ncol : NULL; /* the row's bytes */
            /* with the chain's byte table: q + 128, its byte, its value */
            if (t8 && !j->yb && quant_add_lut8(row, bv, ncol, j->p, t8, row))
                continue;
            if (t8 && quant_ew_qdq_bytes(QEW_ADD, row, 1, &bv, 0, 0, 0, row, qb, ncol, j->p, 0)) {
                quant_bytes_map(t8->q, qb, rb, ncol);
                if (j->floats)
                    convt_dequant(rb, ncol, 1, ncol, &t8->grid, row);
                continue;
            }
            if (j->yb) { /* quant_convt_run checked that this call takes p */
                quant_ew_qdq_bytes(QEW_ADD, row, 1, &bv, 0, 0, 0, row, rb, ncol, j->p, j->floats);
                continue;
            }
            if (!quant_ew_qdq(QEW_ADD, row, 1, &bv, 0, 0, 0, row, ncol, j->p)) {
                for (int64_t i = 0; i < ncol; i++)
                    row[i] = row[i] + bv;
                quant_qdq(row, ncol, j->p);
            }
            /* on p's grid: every value is in the table */
            if (j->lut)
                quant_lut_map(row, ncol, j->p, j->lut + 256 * (j->lut_n > 1 ? r / kvol : 0), row);
        }
        for (int64_t m = 0; m < k->M; m++)
            for (int64_t ky = 0; ky < k->kh; ky++) {
                int64_t at = (m * kvol + ky * k->kw) * ncol, to = ((ni * k->M + m) * OH + ky) * OW;
                for (int64_t q = 0; j->floats && q < nr; q++)
                    scatter_row(j->y + to + (r0 + q) * k->kh * OW, tmp + at + q * IW, ncol,
                                k->kw, IW);
                for (int64_t q = 0; j->yb && q < nr; q++)
                    scatter_bytes(j->yb + to + (r0 + q) * k->kh * OW, qb + ncol + at + q * IW,
                                  ncol, k->kw, IW);
            }
    }
}

/* The grid of the bytes the kernel can write for y (lut8's, else p when
 * there is no table), or NULL: another table, or a CPU or grid the byte
 * calls do not take. */
static const qparam_t *convt_byte_grid(const qparam_t *p, const float *lut,
                                       const quant_lut8 *lut8, int64_t lut_n)
{
    if (!quant_ew_qdq_bytes(QEW_ADD, NULL, 1, NULL, 0, 0, 0, NULL, NULL, 0, p, 0))
        return NULL;
    if (!lut)
        return p;
    for (int64_t i = 1; lut8 && i < lut_n; i++)
        if (!quant_same_grid(&lut8[i].grid, &lut8[0].grid))
            return NULL;
    return lut8 ? &lut8[0].grid : NULL;
}

int quant_convt_run(op_ctx *c, const quant_convt *k, const tensor_t *xt, const uint8_t *xb,
                    const qparam_t *xg, tensor_t *yt, const qparam_t *p, const float *lut,
                    const quant_lut8 *lut8, int64_t lut_n, quant_bytes *ob)
{
    const int64_t xd[4] = {k->N, k->C, k->IH, k->IW};
    if (!xt->data || !yt->data || xt->ndim != 4 || memcmp(xt->dims, xd, sizeof(xd)) ||
        tensor_numel(yt) != k->N * k->M * k->IH * k->kh * k->IW * k->kw ||
        (lut && lut_n != 1 && lut_n != k->M))
        return 0;
    const float *x = xt->data;
    float *y = yt->data;
    const int64_t rows = k->IH;
    int nth = k->N * k->R * k->C * k->IH * k->IW < CONV_PAR_MIN_MACS ? 1 : c->nthreads;
    int64_t per = CONV_COL_BLOCK_FLOATS / (k->R * k->IW);
    if (per < 1)
        per = 1;
    /* from bytes: blocks whose input floats stay in L2 too (each output's
     * sum is the same FMA chain over the channels whatever the block) */
    if (xb && per * k->IW * (k->C + k->R) > CONV_COL_BLOCK_FLOATS / 2)
        per = CONV_COL_BLOCK_FLOATS / 2 / (k->IW * (k->C + k->R));
    if (per < 1)
        per = 1;
    if (nth > 1 && per > (rows + 2 * nth - 1) / (2 * nth))
        per = (rows + 2 * nth - 1) / (2 * nth);
    convt_job j = {.k = k, .x = x, .xb = xb, .y = y, .p = p, .lut = lut,
                   .lut8 = lut && quant_grid_bytes_exact(p) ? lut8 : NULL, .lut_n = lut_n,
                   .floats = 1, .per = per, .ntask = (rows + per - 1) / per};
    if (xb)
        j.xg = *xg;
    const qparam_t *bg = NULL;
    if (ob) {
        ob->valid = 0;
        bg = c->private_run && ob->n == tensor_numel(yt) ? convt_byte_grid(p, lut, j.lut8, lut_n)
                                                         : NULL;
    }
    if (bg) {
        j.yb = ob->q;
        j.floats = !(ob->only_bytes && quant_same_grid(&ob->rgrid, bg));
    }
    if (nth == 1)
        convt_range(&j, 0, k->N * j.ntask);
    else
        op_parallel_for(c, k->N * j.ntask, convt_range, &j);
    if (bg) {
        ob->grid = *bg;
        ob->valid = 1;
    }
    return 1;
}
