/* runtime/quant/qkernels.c — int8 Conv / Gemm / MatMul with exact int32
 * accumulation (see quant.h for the numerics). Inputs arrive as float tensors
 * whose values lie on their int8 grid; they are mapped back to (q - zp) exactly,
 * multiplied by int8 weights (zp 0), summed in int32 with an int32 bias, and the
 * accumulator is scaled by s_in * s_w[c] into the float output. Simple loops:
 * correctness first; the work is split over output channels. */
#include "runtime/quant/quant.h"
#include "util/util.h"

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
    const int64_t *v;
    int cnt;

    if (!x || !w || !y || x->ndim != 4 || w->ndim != 4 || y->ndim != 4)
        return -1;
    c->N = x->dims[0], c->C = x->dims[1], c->H = x->dims[2], c->W = x->dims[3];
    c->M = w->dims[0], c->KH = w->dims[2], c->KW = w->dims[3];
    c->OH = y->dims[2], c->OW = y->dims[3];
    c->G = node_attr_int(n, "group", 1);
    c->sh = c->sw = c->dh = c->dw = 1;
    c->pt = c->pl = 0;
    if ((cnt = node_attr_ints(n, "strides", &v)) == 2)
        c->sh = v[0], c->sw = v[1];
    if ((cnt = node_attr_ints(n, "dilations", &v)) == 2)
        c->dh = v[0], c->dw = v[1];
    const char *ap = node_attr_str(n, "auto_pad", "NOTSET");
    if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
        int64_t th = (c->OH - 1) * c->sh + (c->KH - 1) * c->dh + 1 - c->H;
        int64_t tw = (c->OW - 1) * c->sw + (c->KW - 1) * c->dw + 1 - c->W;
        th = th < 0 ? 0 : th;
        tw = tw < 0 ? 0 : tw;
        int upper = !strcmp(ap, "SAME_UPPER");
        c->pt = upper ? th / 2 : th - th / 2;
        c->pl = upper ? tw / 2 : tw - tw / 2;
    } else if (strcmp(ap, "VALID") != 0) {
        if ((cnt = node_attr_ints(n, "pads", &v)) == 4)
            c->pt = v[0], c->pl = v[1];
    }
    if (c->G < 1 || c->C % c->G || c->M % c->G || w->dims[1] != c->C / c->G ||
        y->dims[1] != c->M || y->dims[0] != c->N)
        return -1;
    return 0;
}

typedef struct conv_job {
    const conv_geom *c;
    const quant_node *q;
    const int16_t *x;
    float *y;
    int err;
} conv_job;

static void conv_range(void *arg, int64_t begin, int64_t end)
{
    conv_job *j = arg;
    const conv_geom *c = j->c;
    int64_t plane = c->OH * c->OW, cg = c->C / c->G, mg = c->M / c->G;
    int32_t *acc = xmalloc(sizeof(int32_t) * (size_t)(plane ? plane : 1));

    for (int64_t nm = begin; nm < end; nm++) {
        int64_t b = nm / c->M, m = nm % c->M, grp = m / mg;
        int32_t bias = j->q->bias ? j->q->bias[m] : 0;
        for (int64_t i = 0; i < plane; i++)
            acc[i] = bias;
        for (int64_t ci = 0; ci < cg; ci++) {
            const int16_t *xc = j->x + ((b * c->C) + grp * cg + ci) * c->H * c->W;
            const int8_t *wc = j->q->w + ((m * cg) + ci) * c->KH * c->KW;
            for (int64_t kh = 0; kh < c->KH; kh++) {
                for (int64_t kw = 0; kw < c->KW; kw++) {
                    int32_t wv = wc[kh * c->KW + kw];
                    if (!wv)
                        continue;
                    int64_t offw = kw * c->dw - c->pl;
                    /* ow range with 0 <= ow*sw + offw < W */
                    int64_t lo = offw >= 0 ? 0 : (-offw + c->sw - 1) / c->sw;
                    int64_t hi = c->W - offw <= 0 ? 0 : (c->W - offw + c->sw - 1) / c->sw;
                    hi = hi > c->OW ? c->OW : hi;
                    for (int64_t oh = 0; oh < c->OH; oh++) {
                        int64_t ih = oh * c->sh - c->pt + kh * c->dh;
                        if (ih < 0 || ih >= c->H)
                            continue;
                        const int16_t *xr = xc + ih * c->W;
                        int32_t *ar = acc + oh * c->OW;
                        if (c->sw == 1)
                            for (int64_t ow = lo; ow < hi; ow++)
                                ar[ow] += wv * xr[ow + offw];
                        else
                            for (int64_t ow = lo; ow < hi; ow++)
                                ar[ow] += wv * xr[ow * c->sw + offw];
                    }
                }
            }
        }
        double s = (double)j->q->in.scale * j->q->wscale[m];
        float *yp = j->y + nm * plane;
        for (int64_t i = 0; i < plane; i++)
            yp[i] = (float)(acc[i] * s);
    }
    free(acc);
}

static int qconv_run(op_ctx *ctx, graph_t *g, node_t *n)
{
    const quant_node *q = n->priv;
    conv_geom c;
    if (conv_geometry(g, n, &c))
        return rt_err(ctx->err, ctx->errlen, RT_EINTERNAL, "int8 conv: bad geometry");
    const tensor_t *x = node_input(g, n, 0);
    int16_t *xq = quantize_input(x->data, tensor_numel(x), &q->in);
    conv_job j = {.c = &c, .q = q, .x = xq, .y = node_output(g, n, 0)->data};
    op_parallel_for(ctx, c.N * c.M, conv_range, &j);
    free(xq);
    return RT_OK;
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

static void mm_range(void *arg, int64_t begin, int64_t end)
{
    mm_job *j = arg;
    int32_t *acc = xmalloc(sizeof(int32_t) * (size_t)(j->N ? j->N : 1));
    for (int64_t r = begin; r < end; r++) {
        for (int64_t k = 0; k < j->N; k++)
            acc[k] = j->q->bias ? j->q->bias[k] : 0;
        const int16_t *ar = j->a + r * j->K;
        for (int64_t k = 0; k < j->K; k++) {
            int32_t av = ar[k];
            if (!av)
                continue;
            const int8_t *br = j->q->w + k * j->N;
            for (int64_t c = 0; c < j->N; c++)
                acc[c] += av * br[c];
        }
        float *yr = j->y + r * j->N;
        for (int64_t c = 0; c < j->N; c++) {
            double v = acc[c] * ((double)j->q->in.scale * j->q->wscale[c]) * j->alpha;
            if (j->c)
                v += (double)j->beta * j->c[r * j->c_rs + c * j->c_cs];
            yr[c] = (float)v;
        }
    }
    free(acc);
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
    free(q->w);
    free(q->bias);
    free(q);
}

/* infer is never called (the swap happens after shape inference); the fp32
 * op's infer is kept for completeness through quant_graph_finish. */
const op_def quant_op_conv = {"Conv", "", NULL, NULL, qconv_run, q_release};
const op_def quant_op_gemm = {"Gemm", "", NULL, NULL, qgemm_run, q_release};
const op_def quant_op_matmul = {"MatMul", "", NULL, NULL, qmatmul_run, q_release};

/* Used by qgraph.c: checks that Conv node n fits the int8 kernel. */
int quant_conv_supported(graph_t *g, const node_t *n)
{
    conv_geom c;
    return conv_geometry(g, n, &c) == 0;
}
