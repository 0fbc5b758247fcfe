/* runtime/quant/npu_requant.c — QM_NPU: a conv computes the integers the
 * RV1103/RV1106 compiler's conv task computes for it, so that the int8
 * simulation of an ONNX model gives what the NPU gives for the vendor's
 * .rknn of it.
 *
 * What a conv task does (docs/rknn-format.md "Execution on RV110x", found on
 * retinaface.rv1103 and checked there layer by layer):
 *   acc = sum (x - zp_in)(q - zp_w) + round(b / (s_in s_w[c]))   exact int32
 *   v   = acc * mul[c]              mul[c] = round(s_w[c] / max s_w * 2^14)
 *                                  (in float, halves to even)
 *   v   = v < 0 ? round(v * slope / 2^14) : v   (LeakyRelu; Relu: 0)
 *   y   = sat8(round(v * OUT / 2^shift) + zp_out)
 * with OUT in [2^14, 2^15) and OUT / 2^shift = s_in max s_w / s_out / 2^14; a
 * plain Conv rounds acc * mul / 2^14 first and scales by OUT / 2^(shift-14).
 * mul[c] OUT / 2^shift differs from s_in s_w[c] / s_out by up to 1e-4, which
 * moves 0.1-1.3 % of a layer's values by a step against exact rounding.
 *
 * The conv runs here in integers and writes the activated values on the
 * output grid; the LeakyRelu after it becomes the identity (slope 1). A
 * LeakyRelu feeding an Add of a same-shaped operand joins the task as the
 * compiler's ConvLeakyReluAdd: the Add adds the operand to the conv's v. */
#include "runtime/quant/quant.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { ACT_NONE, ACT_LEAKY, ACT_RELU };

typedef struct npu_conv {
    int64_t C, H, W, M, OH, OW, KH, KW, G, sh, sw, dh, dw, pt, pl;
    int16_t *w;      /* q - zp_w, [M][C/G][KH][KW] */
    int32_t *bias;   /* round(b / (s_in s_w[c])) */
    int32_t *mul;    /* per output channel */
    int64_t out;     /* OUT_CVT scale and shift */
    int shift, act;
    int bs_shift;    /* ConvLeakyReluAdd: the product's shift before the activation */
    int32_t slope;   /* LeakyRelu's, in 14 bits */
    qparam_t in, y;  /* input and output grids */
    const op_def *orig;
    int64_t *v;      /* ConvLeakyReluAdd: v after the BN shift, for the Add */
} npu_conv;

/* The Add of a ConvLeakyReluAdd, on the conv's v: operand e (input ei) joins
 * as v += round((e - zp_e) escale / 2^eshift) before the output scale. */
typedef struct npu_add {
    const npu_conv *conv;
    const op_def *orig;
    int ei;
    qparam_t e;
    int64_t escale;
    int eshift;
} npu_add;

/* BN_CFG's shift on a ConvLeakyReluAdd and the largest OUT_CVT_SHIFT (8 and
 * 28 on both of retinaface's) */
#define ADD_BN_SHIFT 8
#define ADD_OUT_SHIFT 28

/* Tensor t's only consumer, or -1. */
static int sole_consumer(const graph_t *g, int t)
{
    int only = -1;
    return !g->t[t].is_output && quant_consumers(g, t, &only) == 1 ? only : -1;
}

/* round(v / 2^s), halves up, as the DPU's shifts */
static int64_t rshift(__int128 v, int s)
{
    return s <= 0 ? (int64_t)v : (int64_t)((v + ((__int128)1 << (s - 1))) >> s);
}

/* a[k] += x[k * stride] w for k < n: one tap over an output row. The widening
 * multiply-add vectorizes; stride 1, the common case, has its own loop. */
__attribute__((optimize("O3"), target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
static void row_madd(int64_t *a, const int32_t *x, int64_t stride, int64_t n, int32_t w)
{
    if (stride == 1)
        for (int64_t k = 0; k < n; k++)
            a[k] += (int64_t)x[k] * w;
    else
        for (int64_t k = 0; k < n; k++)
            a[k] += (int64_t)x[k * stride] * w;
}

static int npu_conv_run(struct op_ctx *ctx, graph_t *g, node_t *n)
{
    (void)ctx;
    const npu_conv *c = n->priv;
    const float *x = node_input(g, n, 0)->data;
    float *y = node_output(g, n, 0)->data;
    int64_t cg = c->C / c->G, mg = c->M / c->G, plane = c->H * c->W;
    int32_t *xi = xmalloc(sizeof(int32_t) * (size_t)(c->C * plane));
    for (int64_t i = 0; i < c->C * plane; i++) /* on the input grid: the centred integer */
        xi[i] = (int32_t)lrintf(x[i] / c->in.scale);
    int64_t *accs = xmalloc(sizeof(int64_t) * (size_t)(c->OH * c->OW));
    for (int64_t m = 0; m < c->M; m++) {
        int64_t g0 = m / mg * cg;
        const int16_t *wm = c->w + m * cg * c->KH * c->KW;
        for (int64_t i = 0; i < c->OH * c->OW; i++)
            accs[i] = c->bias[m];
        /* tap by tap over whole output rows (row_madd vectorises) */
        for (int64_t ic = 0; ic < cg; ic++)
            for (int64_t ky = 0; ky < c->KH; ky++)
                for (int64_t kx = 0; kx < c->KW; kx++) {
                    int64_t wv = wm[(ic * c->KH + ky) * c->KW + kx], off = kx * c->dw - c->pl;
                    if (!wv)
                        continue;
                    /* columns whose input ox * sw + off lies in [0, W) */
                    int64_t ox0 = off >= 0 ? 0 : (-off + c->sw - 1) / c->sw;
                    int64_t ox1 = c->W - 1 - off < 0 ? 0 : (c->W - 1 - off) / c->sw + 1;
                    if (ox1 > c->OW)
                        ox1 = c->OW;
                    for (int64_t oy = 0; oy < c->OH; oy++) {
                        int64_t iy = oy * c->sh - c->pt + ky * c->dh;
                        if (iy < 0 || iy >= c->H)
                            continue;
                        const int32_t *row = xi + (g0 + ic) * plane + iy * c->W + off;
                        row_madd(accs + oy * c->OW + ox0, row + ox0 * c->sw, c->sw, ox1 - ox0,
                                 (int32_t)wv);
                    }
                }
        for (int64_t oy = 0; oy < c->OH; oy++)
            for (int64_t ox = 0; ox < c->OW; ox++) {
                int64_t acc = accs[oy * c->OW + ox];
                int64_t q, at = (m * c->OH + oy) * c->OW + ox;
                if (c->v) {
                    int64_t v = rshift((__int128)acc * c->mul[m], c->bs_shift);
                    if (v < 0)
                        v = c->act == ACT_RELU ? 0 : rshift((__int128)v * c->slope, 14);
                    c->v[at] = rshift(v, ADD_BN_SHIFT);
                    /* the activation before the add, in float, for the dumps */
                    y[at] = (float)((double)c->v[at] * c->out / ldexp(1.0, c->shift) * c->y.scale);
                    continue;
                }
                if (c->act == ACT_NONE) {
                    q = rshift((__int128)rshift((__int128)acc * c->mul[m], 14) * c->out,
                               c->shift - 14);
                } else {
                    int64_t v = acc * c->mul[m];
                    if (v < 0)
                        v = c->act == ACT_RELU ? 0 : rshift((__int128)v * c->slope, 14);
                    q = rshift((__int128)v * c->out, c->shift);
                }
                q += c->y.zp;
                q = q < -128 ? -128 : q > 127 ? 127 : q;
                y[at] = (float)((q - c->y.zp) * (double)c->y.scale);
            }
    }
    free(accs);
    free(xi);
    return RT_OK;
}

static int npu_add_run(struct op_ctx *ctx, graph_t *g, node_t *n)
{
    (void)ctx;
    const npu_add *a = n->priv;
    const npu_conv *c = a->conv;
    const float *e = node_input(g, n, a->ei)->data;
    float *y = node_output(g, n, 0)->data;
    for (int64_t m = 0, i = 0; m < c->M; m++)
        for (int64_t k = 0; k < c->OH * c->OW; k++, i++) {
            int64_t ec = lrintf(e[i] / a->e.scale); /* e - zp_e */
            int64_t v = c->v[i] + rshift((__int128)ec * a->escale, a->eshift);
            int64_t q = rshift((__int128)v * c->out, c->shift) + c->y.zp;
            q = q < -128 ? -128 : q > 127 ? 127 : q;
            y[i] = (float)((q - c->y.zp) * (double)c->y.scale);
        }
    return RT_OK;
}

static void npu_add_release(node_t *n)
{
    free(n->priv);
    n->priv = NULL;
}

static int npu_add_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    return ((const npu_add *)n->priv)->orig->infer(g, n, err, errlen);
}

static const op_def npu_add_def = {
    "Add", "", npu_add_infer, NULL, npu_add_run, npu_add_release, NULL,
};

static void npu_conv_release(node_t *n)
{
    npu_conv *c = n->priv;
    if (c) {
        free(c->v);
        free(c->w);
        free(c->bias);
        free(c->mul);
        free(c);
    }
    n->priv = NULL;
}

static int npu_conv_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    return ((const npu_conv *)n->priv)->orig->infer(g, n, err, errlen);
}

static const op_def npu_conv_def = {
    "Conv", "", npu_conv_infer, NULL, npu_conv_run, npu_conv_release, NULL,
};

/* The geometry of a 2-D Conv of batch 1, or -1. */
static int geometry(graph_t *g, const node_t *n, npu_conv *c)
{
    const tensor_t *x = node_input(g, n, 0), *w = node_input(g, n, 1), *y = node_output(g, n, 0);
    node_window win;
    if (!x || !w || !y || x->ndim != 4 || w->ndim != 4 || y->ndim != 4 || x->dims[0] != 1 ||
        node_window_read(n, 2, w->dims + 2, x->dims + 2, &win, NULL, 0))
        return -1;
    c->C = x->dims[1], c->H = x->dims[2], c->W = x->dims[3];
    c->M = w->dims[0], c->KH = w->dims[2], c->KW = w->dims[3];
    c->OH = y->dims[2], c->OW = y->dims[3];
    c->G = node_attr_int(n, "group", 1);
    c->sh = win.s[1], c->sw = win.s[2], c->dh = win.d[1], c->dw = win.d[2];
    c->pt = win.pb[1], c->pl = win.pb[2];
    return c->G >= 1 && c->C % c->G == 0 && c->M % c->G == 0 && w->dims[1] == c->C / c->G &&
                   y->dims[1] == c->M && y->dims[0] == 1 ? 0 : -1;
}

/* Node n (a Conv whose weight is on its per-channel grid) as the NPU's conv,
 * rounding to the grid of tensor yo; act the activation node after it or
 * NULL. 0, or -1 when it does not fit (n keeps its float kernel). */
static int install(quant_graph *q, node_t *n, node_t *act, int yo, node_t *addn)
{
    graph_t *g = q->g;
    int xi = n->in[0], wi = n->in[1], bi = n->n_in > 2 ? n->in[2] : -1;
    const tensor_t *w = &g->t[wi];
    const tensor_t *b = bi >= 0 ? &g->t[bi] : NULL;
    npu_conv c;
    memset(&c, 0, sizeof(c));
    if (geometry(g, n, &c) || (b && (b->kind != TK_CONST || b->dtype != DT_FLOAT || !b->data ||
                                     tensor_numel(b) != c.M)) ||
        (q->wparam_n[wi] != 1 && q->wparam_n[wi] != c.M))
        return -1;
    c.in = q->act[xi];
    c.y = q->act[yo];
    double swmax = 0;
    for (int64_t m = 0; m < c.M; m++)
        swmax = fmax(swmax, q->wparam[wi][q->wparam_n[wi] > 1 ? m : 0].scale);
    double mmax = c.in.scale * swmax / c.y.scale;
    if (!(mmax > 0) || !isfinite(mmax))
        return -1;
    while (c.shift < 62 && mmax / 16384.0 * ldexp(1.0, c.shift) < 16384.0)
        c.shift++;
    c.out = (int64_t)floor(mmax / 16384.0 * ldexp(1.0, c.shift) + 0.5);
    if (c.shift < 14 + (addn ? ADD_BN_SHIFT : 0))
        return -1;
    npu_add *ad = NULL;
    if (addn) {
        /* the BN stage shifts v by 8, OUT_CVT_SHIFT takes at most 28 (both of
         * retinaface's ConvLeakyReluAdd), BS_CFG's shift the rest */
        c.shift -= ADD_BN_SHIFT;
        c.bs_shift = c.shift > ADD_OUT_SHIFT ? c.shift - ADD_OUT_SHIFT : 0;
        c.shift -= c.bs_shift;
        ad = xcalloc(1, sizeof(*ad));
        ad->ei = addn->in[0] == act->out[0] ? 1 : 0;
        ad->e = q->act[addn->in[ad->ei]];
        /* the operand's step in units of v, 15 bits (EW_CVT_SCALE) */
        double r = (double)ad->e.scale / c.y.scale * ldexp(1.0, c.shift) / (double)c.out;
        while (ad->eshift < 62 && r * ldexp(1.0, ad->eshift) < 16384.0)
            ad->eshift++;
        ad->escale = (int64_t)floor(r * ldexp(1.0, ad->eshift) + 0.5);
        c.v = xmalloc(sizeof(int64_t) * (size_t)(c.M * c.OH * c.OW));
    }
    c.act = !act ? ACT_NONE : !strcmp(act->op, "Relu") ? ACT_RELU : ACT_LEAKY;
    c.slope = (int32_t)floor(node_attr_float(act ? act : n, "alpha", 0.01f) * 16384.0 + 0.5);
    int64_t per = tensor_numel(w) / c.M;
    c.w = xmalloc(sizeof(int16_t) * (size_t)tensor_numel(w));
    c.bias = xmalloc(sizeof(int32_t) * (size_t)c.M);
    c.mul = xmalloc(sizeof(int32_t) * (size_t)c.M);
    const float *wd = w->data;
    for (int64_t m = 0; m < c.M; m++) {
        const qparam_t *p = &q->wparam[wi][q->wparam_n[wi] > 1 ? m : 0];
        for (int64_t k = 0; k < per; k++) /* the weights are on the grid already */
            c.w[m * per + k] = (int16_t)(quant_q8(wd[m * per + k], p) - p->zp);
        double bs = (double)c.in.scale * p->scale;
        c.bias[m] = b ? (int32_t)floor(((const float *)b->data)[m] / bs + 0.5) : 0;
        /* in float, halves to even: 8858.5 -> 8858 (stage3.1.3, channel 245) */
        c.mul[m] = (int32_t)rintf(p->scale / (float)swmax * 16384.0f);
    }
    c.orig = n->def;
    if (n->def->release)
        n->def->release(n);
    n->priv = xmalloc(sizeof(c));
    memcpy(n->priv, &c, sizeof(c));
    n->def = &npu_conv_def;
    if (ad) {
        ad->conv = n->priv;
        ad->orig = addn->def;
        if (addn->def->release)
            addn->def->release(addn);
        addn->priv = ad;
        addn->def = &npu_add_def;
        q->fused[addn->out[0]] = 1; /* written on its grid already */
    }
    /* the activated values are written here: the activation passes them on */
    for (int i = 0; act && c.act == ACT_LEAKY && i < act->n_attr; i++)
        if (act->attrs[i].name && !strcmp(act->attrs[i].name, "alpha"))
            act->attrs[i].f = 1.0f;
    return 0;
}

int quant_npu_requant(quant_graph *q, char *err, size_t errlen)
{
    graph_t *g = q->g;
    (void)err;
    (void)errlen;
    q->n_npu_requant = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        node_t *n = &g->nodes[i];
        if (n->folded || strcmp(n->op, "Conv") || n->n_in < 2 || n->n_out < 1 || n->in[0] < 0 ||
            n->in[1] < 0 || n->out[0] < 0 || q->node_fp16[i])
            continue;
        int xi = n->in[0], wi = n->in[1], yo = n->out[0];
        const tensor_t *w = &g->t[wi];
        if (!q->wparam[wi] || !q->has_act[xi] || w->kind != TK_CONST || !w->data)
            continue;
        /* the grid the NPU rounds to: the activation's after a fused one */
        int a = q->fused[yo] ? sole_consumer(g, yo) : -1;
        node_t *act = a >= 0 && (!strcmp(g->nodes[a].op, "LeakyRelu") ||
                                 !strcmp(g->nodes[a].op, "Relu")) ? &g->nodes[a] : NULL;
        if (q->fused[yo] && !act)
            continue;
        if (act && act->n_out > 0 && act->out[0] >= 0)
            yo = act->out[0];
        /* ConvLeakyReluAdd: the activation's sole consumer an Add of an operand
         * of the same shape on its own grid */
        int s = act ? sole_consumer(g, yo) : -1;
        node_t *addn = s >= 0 ? &g->nodes[s] : NULL;
        if (addn && (!addn->def || strcmp(addn->op, "Add") || addn->n_in != 2 ||
                     addn->n_out != 1 || addn->out[0] < 0 || strcmp(act->op, "LeakyRelu")))
            addn = NULL;
        if (addn) {
            int e = addn->in[0] == yo ? addn->in[1] : addn->in[0], ao = addn->out[0];
            if (e < 0 || !q->has_act[e] || q->fused[e] || !q->has_act[ao] || q->fused[ao] ||
                tensor_numel(&g->t[e]) != tensor_numel(&g->t[yo]) ||
                g->t[e].ndim != g->t[yo].ndim ||
                memcmp(g->t[e].dims, g->t[yo].dims, sizeof(g->t[e].dims[0]) * (size_t)g->t[e].ndim))
                addn = NULL;
            else
                yo = ao;
        }
        if (!q->has_act[yo] || q->fused[yo])
            continue;
        if (!install(q, n, act, yo, addn))
            q->n_npu_requant++;
    }
    return RT_OK;
}
