/* runtime/quant/qgraph.c — turns a loaded graph into its quantized (int8) or
 * fp16 simulation: weights quantized before passes_prepare, int8 kernels and
 * fused outputs after it, activations quantized as each layer finishes. */
#include "runtime/quant/quant.h"
#include "runtime/exec/kernels.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_weighted(const char *op)
{
    return !strcmp(op, "Conv") || !strcmp(op, "ConvTranspose") || !strcmp(op, "Gemm") ||
           !strcmp(op, "MatMul");
}

int quant_weight_axis(const node_t *n, const tensor_t *w)
{
    if (!strcmp(n->op, "Conv"))
        return 0;
    if (!strcmp(n->op, "ConvTranspose"))
        return w->ndim > 1 ? 1 : 0;
    if (!strcmp(n->op, "Gemm"))
        return node_attr_int(n, "transB", 0) ? 0 : 1;
    return w->ndim - 1; /* MatMul: B [.., K, N] */
}

static void grow(quant_graph *q, int n_t, int old)
{
    q->act = xrealloc(q->act, sizeof(*q->act) * (size_t)n_t);
    q->has_act = xrealloc(q->has_act, (size_t)n_t);
    q->fused = xrealloc(q->fused, (size_t)n_t);
    q->wparam = xrealloc(q->wparam, sizeof(*q->wparam) * (size_t)n_t);
    q->wparam_n = xrealloc(q->wparam_n, sizeof(int) * (size_t)n_t);
    q->wparam_axis = xrealloc(q->wparam_axis, sizeof(int) * (size_t)n_t);
    for (int t = old; t < n_t; t++) {
        memset(&q->act[t], 0, sizeof(q->act[t]));
        q->has_act[t] = q->fused[t] = 0;
        q->wparam[t] = NULL;
        q->wparam_n[t] = 0;
        q->wparam_axis[t] = 0;
    }
}

/* Channels of weight w along axis (1 when per layer) and the values per
 * channel run. */
static int64_t weight_channels(const quant_graph *q, const tensor_t *w, int axis, int64_t *inner)
{
    int64_t nch = 1;
    *inner = 1;
    if (q->method != QM_LAYER && w->ndim > 0) {
        nch = w->dims[axis];
        for (int k = axis + 1; k < w->ndim; k++)
            *inner *= w->dims[k];
    }
    return nch < 1 ? 1 : nch;
}

/* The vendor's compiler rounds a weight's w / s (in float) half to even:
 * 16.5 -> 16 (retinaface's stage3.1.0, channel 81, docs/rknn-format.md). */
static int8_t q8_even(float x, const qparam_t *p)
{
    float r = rintf(x / p->scale) + (float)p->zp;
    return r >= 127.0f ? 127 : r >= -128.0f ? (int8_t)r : -128;
}

/* Puts weight ti on the grid of its nch parameters p (taken over). */
static void weight_on_grid(quant_graph *q, int ti, int axis, qparam_t *p, int64_t nch,
                           int64_t inner)
{
    tensor_t *w = &q->g->t[ti];
    float *d = w->data;
    for (int64_t i = 0, n = tensor_numel(w); i < n; i++) {
        int64_t c = nch > 1 ? (i / inner) % nch : 0;
        d[i] = quant_dq8(q->method == QM_NPU ? q8_even(d[i], &p[c]) : quant_q8(d[i], &p[c]),
                         &p[c]);
    }
    q->wparam[ti] = p;
    q->wparam_n[ti] = (int)nch;
    q->wparam_axis[ti] = nch > 1 ? axis : -1;
}

static void quantize_weight(quant_graph *q, int ti, int axis)
{
    tensor_t *w = &q->g->t[ti];
    int64_t n = tensor_numel(w), inner, nch = weight_channels(q, w, axis, &inner);
    const float *d = w->data;
    float *mx = xcalloc((size_t)nch, sizeof(float));
    for (int64_t i = 0; i < n; i++) {
        int64_t c = nch > 1 ? (i / inner) % nch : 0;
        float a = fabsf(d[i]);
        if (a > mx[c] && isfinite(a))
            mx[c] = a;
    }
    /* QM_NPU: the range of each channel, widened to 0, as the vendor's
     * compiler quantizes weights (docs/rknn-format.md "Weights") */
    float *lo = xcalloc((size_t)nch, sizeof(float)), *hi = xcalloc((size_t)nch, sizeof(float));
    for (int64_t i = 0; q->method == QM_NPU && i < n; i++) {
        int64_t c = nch > 1 ? (i / inner) % nch : 0;
        if (isfinite(d[i])) {
            lo[c] = fminf(lo[c], d[i]);
            hi[c] = fmaxf(hi[c], d[i]);
        }
    }
    qparam_t *p = xmalloc(sizeof(*p) * (size_t)nch);
    for (int64_t c = 0; c < nch; c++) {
        if (q->method == QM_NPU)
            quant_param_from_range(lo[c], hi[c], &p[c]);
        else
            quant_param_symmetric(mx[c], &p[c]);
    }
    free(mx);
    free(lo);
    free(hi);
    weight_on_grid(q, ti, axis, p, nch, inner);
}

/* A weight's parameters from a quantize_parameters entry, as Toolkit2's own
 * cfg lists them: one per output channel (qmethod channel) or one, with the
 * zero points the vendor's compiler gives weights (docs/rknn-format.md,
 * "Weights"). */
static int weight_from_cfg(quant_graph *q, int ti, int axis, const quant_cfg_param *cp,
                           char *err, size_t errlen)
{
    const tensor_t *w = &q->g->t[ti];
    int64_t inner = 1, nch = 1, n = cp->n_scale ? cp->n_scale : cp->n_min;
    if (n > 1) {
        nch = w->dims[axis];
        for (int k = axis + 1; k < w->ndim; k++)
            inner *= w->dims[k];
    }
    if (n != nch)
        return rt_err(err, errlen, RT_EFORMAT,
                      "weight '%s': %lld parameters for %lld output channels (give 1 or %lld)",
                      w->name, (long long)n, (long long)w->dims[axis], (long long)w->dims[axis]);
    qparam_t *p = xmalloc(sizeof(*p) * (size_t)nch);
    for (int64_t c = 0; c < nch; c++) {
        if (cp->n_scale) {
            p[c].scale = (float)cp->scale[c];
            p[c].zp = (int32_t)cp->zp[c];
            p[c].min = (float)((-128 - p[c].zp) * (double)p[c].scale);
            p[c].max = (float)((127 - p[c].zp) * (double)p[c].scale);
        } else {
            quant_param_from_range((float)cp->min[c], (float)cp->max[c], &p[c]);
        }
    }
    weight_on_grid(q, ti, axis, p, nch, inner);
    return RT_OK;
}


/* Activations the NPU fuses into the conv before them (the lowering's
 * ConvRelu, ConvSigmoid, ... rows; npu-hw.md §3.3). */
static int is_fused_act(const char *op)
{
    static const char *const acts[] = {"Relu", "LeakyRelu", "PRelu", "Clip", "Sigmoid", "Tanh",
                                       "Elu", "HardSigmoid", "HardSwish", "Softplus", "Mish",
                                       NULL};
    for (int i = 0; acts[i]; i++)
        if (!strcmp(op, acts[i]))
            return 1;
    return 0;
}

static int is_conv_like(const char *op)
{
    return !strcmp(op, "Conv") || !strcmp(op, "Gemm") || !strcmp(op, "MatMul") ||
           !strcmp(op, "ConvTranspose");
}

/* The node after n on a fused chain: the sole consumer of its output, -1. */
static int chain_next(const graph_t *g, int n)
{
    int only = -1, t = g->nodes[n].n_out > 0 ? g->nodes[n].out[0] : -1;
    if (t < 0 || g->t[t].is_output || quant_consumers(g, t, &only) != 1)
        return -1;
    return only;
}

/* A bias Add (one constant operand), which the passes fold into the conv. */
static int is_bias_add(const graph_t *g, int n)
{
    const node_t *a = &g->nodes[n];
    return !strcmp(a->op, "Add") && a->n_in == 2 && a->in[0] >= 0 && a->in[1] >= 0 &&
           (g->t[a->in[0]].kind == TK_CONST || g->t[a->in[1]].kind == TK_CONST);
}

/* The NPU runs Conv [+ bias Add] + activation as one layer: a hybrid entry
 * naming any node of such a chain keeps the whole chain in float16. */
static void mark_fused_chain(quant_graph *q, int named)
{
    graph_t *g = q->g;
    int head = named, chain[3], n = 0;

    /* back to the conv: act <- [bias Add] <- conv */
    for (int step = 0; step < 2 && !is_conv_like(g->nodes[head].op); step++) {
        const node_t *h = &g->nodes[head];
        int src = h->n_in > 0 && h->in[0] >= 0 ? g->t[h->in[0]].producer : -1;
        if (src < 0 || chain_next(g, src) != head)
            break;
        if (!(is_fused_act(h->op) || is_bias_add(g, head)))
            break;
        head = src;
    }
    if (!is_conv_like(g->nodes[head].op))
        return;
    chain[n++] = head;
    for (int c = chain_next(g, head); c >= 0 && n < 3; c = chain_next(g, c)) {
        if (is_bias_add(g, c) && n == 1) {
            chain[n++] = c;
            continue;
        }
        if (is_fused_act(g->nodes[c].op))
            chain[n++] = c;
        break;
    }
    if (n == 1)
        return;
    for (int i = 0; i < n; i++)
        if (!q->node_fp16[chain[i]]) {
            q->node_fp16[chain[i]] = 1;
            g->nodes[chain[i]].keep_fp16 = NODE_FP16_FUSED;
        }
}

int quant_graph_new(graph_t *g, int type, int method, quant_graph **out, char *err, size_t errlen)
{
    return quant_graph_new_hybrid(g, type, method, NULL, out, err, errlen);
}

int quant_graph_new_hybrid(graph_t *g, int type, int method, const quant_cfg *cfg,
                           quant_graph **out, char *err, size_t errlen)
{
    quant_graph *q = xcalloc(1, sizeof(*q));

    *out = NULL;
    if (type != QT_FP16 && type != QT_I8) {
        free(q);
        return rt_err(err, errlen, RT_EINVAL, "quantized graph: type must be fp16 or i8");
    }
    /* BatchNormalization is folded into its Conv before the weights are
     * quantized, as Toolkit2 optimizes the graph before quantizing: the
     * folded weights get the grid (passes_prepare would fold quantized ones);
     * a float16 model's weights are widened first, or none would get one */
    passes_widen_fp16(g);
    passes_fold_batchnorm(g);
    q->g = g;
    q->type = type;
    q->method = method;
    grow(q, g->n_t, 0);
    q->n_alloc = g->n_t;
    q->n_nodes_alloc = g->n_nodes;
    q->node_fp16 = xcalloc((size_t)(g->n_nodes ? g->n_nodes : 1), 1);
    for (int k = 0; cfg && k < cfg->n_fp16; k++) {
        int t = graph_find_tensor(g, cfg->fp16[k]), found = 0;
        for (int i = 0; t >= 0 && i < g->n_nodes; i++)
            for (int o = 0; o < g->nodes[i].n_out; o++)
                if (g->nodes[i].out[o] == t) {
                    found = 1; /* a name given twice is the same layer */
                    if (q->node_fp16[i])
                        continue;
                    q->node_fp16[i] = 1;
                    g->nodes[i].keep_fp16 = NODE_FP16_NAMED;
                    q->n_fp16_nodes++;
                }
        if (!found) {
            int rc = rt_err(err, errlen, RT_EFORMAT, "hybrid file: custom_quantize_layers names "
                            "'%s', which no layer of the model produces", cfg->fp16[k]);
            quant_graph_free(q);
            return rc;
        }
    }
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].keep_fp16 == NODE_FP16_NAMED)
            mark_fused_chain(q, i);
    if (type == QT_FP16) {
        for (int t = 0; t < g->n_t; t++)
            if (g->t[t].kind == TK_CONST && g->t[t].dtype == DT_FLOAT && g->t[t].data)
                quant_round_f16(g->t[t].data, tensor_numel(&g->t[t]));
        *out = q;
        return RT_OK;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        node_t *n = &g->nodes[i];
        if (!is_weighted(n->op) || n->n_in < 2 || n->in[1] < 0)
            continue;
        tensor_t *w = &g->t[n->in[1]];
        if (w->kind != TK_CONST || w->dtype != DT_FLOAT || !w->data || w->ndim < 1 ||
            q->wparam[n->in[1]] || tensor_numel(w) <= 0)
            continue;
        if (q->node_fp16[i]) {
            /* a layer kept in fp16: its weights and bias are halves */
            for (int k = 1; k < n->n_in; k++)
                if (n->in[k] >= 0 && g->t[n->in[k]].kind == TK_CONST &&
                    g->t[n->in[k]].dtype == DT_FLOAT && g->t[n->in[k]].data)
                    quant_round_f16(g->t[n->in[k]].data, tensor_numel(&g->t[n->in[k]]));
            continue;
        }
        const quant_cfg_param *cp = quant_cfg_find(cfg, w->name);
        int rc = cp ? weight_from_cfg(q, n->in[1], quant_weight_axis(n, w), cp, err, errlen)
                    : RT_OK;
        if (rc) {
            quant_graph_free(q);
            return rc;
        }
        if (!cp)
            quantize_weight(q, n->in[1], quant_weight_axis(n, w));
    }
    *out = q;
    return RT_OK;
}

int quant_consumers(const graph_t *g, int t, int *only)
{
    int c = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].folded)
            continue;
        for (int k = 0; k < g->nodes[i].n_in; k++)
            if (g->nodes[i].in[k] == t) {
                c++;
                *only = i;
                break;
            }
    }
    return c;
}

static int32_t bias_q(double b, double s)
{
    double v = round(b / s);
    return (int32_t)(v > 2147483647.0 ? 2147483647.0 : v < -2147483648.0 ? -2147483648.0 : v);
}

static quant_node *qnode_new(node_t *n, const qparam_t *in, int n_ch)
{
    quant_node *qn = xcalloc(1, sizeof(*qn));
    qn->in = *in;
    qn->n_ch = n_ch;
    qn->wscale = xcalloc((size_t)n_ch, sizeof(float));
    qn->orig_def = n->def;
    qn->orig_priv = n->priv;
    return qn;
}

static void qnode_install(node_t *n, quant_node *qn, const op_def *def)
{
    n->def = def;
    n->priv = qn;
}

static const qparam_t *wp(const quant_graph *q, int t, int c)
{
    return &q->wparam[t][q->wparam_n[t] > 1 ? c : 0];
}

/* Conv: weights stay in the ONNX layout [M][C/G][KH][KW]. */
static void swap_conv(quant_graph *q, node_t *n)
{
    graph_t *g = q->g;
    int xi = n->in[0], wi = n->in[1];
    tensor_t *w = &g->t[wi];
    int64_t M = w->dims[0], per = tensor_numel(w) / M;
    /* |acc| <= K * 255 * 128 must fit int32 with room for the bias. */
    if (per * 255 * 128 > (int64_t)1 << 30)
        return;
    quant_node *qn = qnode_new(n, &q->act[xi], (int)M);
    const float *wd = w->data;
    qn->w = xmalloc((size_t)tensor_numel(w));
    qn->oscale = xmalloc(sizeof(double) * (size_t)M);
    for (int64_t m = 0; m < M; m++) {
        const qparam_t *p = wp(q, wi, (int)m);
        qn->wscale[m] = p->scale;
        qn->oscale[m] = (double)qn->in.scale * p->scale;
        for (int64_t k = 0; k < per; k++)
            qn->w[m * per + k] = quant_q8(wd[m * per + k], p);
    }
    /* the integer weights as floats for the GEMM; doubles when a float sum
     * could round (255 * sum|w| of a channel >= 2^24) */
    int exact32 = 1;
    for (int64_t m = 0; m < M; m++) {
        int64_t s = 0;
        for (int64_t k = 0; k < per; k++)
            s += qn->w[m * per + k] < 0 ? -qn->w[m * per + k] : qn->w[m * per + k];
        exact32 &= s * 255 < ((int64_t)1 << 24);
    }
    if (exact32) {
        qn->wf = xmalloc(sizeof(float) * (size_t)(M * per));
        for (int64_t i = 0; i < M * per; i++)
            qn->wf[i] = qn->w[i];
        int64_t G = node_attr_int(n, "group", 1), mg = G > 0 ? M / G : M;
        if (gemm512_available() && G > 0 && M % G == 0) {
            qn->wpack_group = gemm512_packed_floats(mg, per);
            qn->wpack = xaligned_alloc(sizeof(float) * qn->wpack_group * (size_t)G);
            for (int64_t gi = 0; gi < G; gi++)
                gemm512_pack_a(qn->wf + gi * mg * per, per, mg, per,
                               qn->wpack + (size_t)gi * qn->wpack_group);
        }
    } else {
        qn->wd = xmalloc(sizeof(double) * (size_t)(M * per));
        for (int64_t i = 0; i < M * per; i++)
            qn->wd[i] = qn->w[i];
    }
    const tensor_t *b = n->n_in > 2 && n->in[2] >= 0 ? &g->t[n->in[2]] : NULL;
    if (b && b->kind == TK_CONST && b->dtype == DT_FLOAT && b->data && tensor_numel(b) == M) {
        qn->bias = xmalloc(sizeof(int32_t) * (size_t)M);
        for (int64_t m = 0; m < M; m++)
            qn->bias[m] = bias_q(((const float *)b->data)[m], (double)qn->in.scale * qn->wscale[m]);
    }
    quant_conv_keep_geometry(g, n, qn);
    qnode_install(n, qn, &quant_op_conv);
    q->n_int8_nodes++;
}

/* Gemm (transB either way) and MatMul with a 2-D constant B: weights as [K][N]. */
static void swap_mm(quant_graph *q, node_t *n, int gemm)
{
    graph_t *g = q->g;
    int xi = n->in[0], wi = n->in[1];
    tensor_t *w = &g->t[wi], *a = &g->t[xi];
    int tb = gemm && node_attr_int(n, "transB", 0);
    if (w->ndim != 2 || a->ndim < (gemm ? 2 : 1) || (gemm && a->ndim != 2))
        return;
    int64_t K = tb ? w->dims[1] : w->dims[0], N = tb ? w->dims[0] : w->dims[1];
    if (K * 255 * 128 > (int64_t)1 << 30 || (q->wparam_n[wi] > 1 && q->wparam_n[wi] != N))
        return;
    quant_node *qn = qnode_new(n, &q->act[xi], (int)N);
    const float *wd = w->data;
    qn->w = xmalloc((size_t)(K * N));
    for (int64_t c = 0; c < N; c++)
        qn->wscale[c] = wp(q, wi, (int)c)->scale;
    for (int64_t k = 0; k < K; k++)
        for (int64_t c = 0; c < N; c++)
            qn->w[k * N + c] = quant_q8(tb ? wd[c * K + k] : wd[k * N + c], wp(q, wi, (int)c));
    const tensor_t *b = gemm && n->n_in > 2 && n->in[2] >= 0 ? &g->t[n->in[2]] : NULL;
    if (b && b->kind == TK_CONST && b->dtype == DT_FLOAT && b->data && tensor_numel(b) == N &&
        node_attr_float(n, "alpha", 1.0f) == 1.0f && node_attr_float(n, "beta", 1.0f) == 1.0f) {
        qn->bias = xmalloc(sizeof(int32_t) * (size_t)N);
        for (int64_t c = 0; c < N; c++)
            qn->bias[c] = bias_q(((const float *)b->data)[c], (double)qn->in.scale * qn->wscale[c]);
    }
    quant_mm_pack(qn, K, N);
    qnode_install(n, qn, gemm ? &quant_op_gemm : &quant_op_matmul);
    q->n_int8_nodes++;
}

/* ---- activations quantized inside the layer ----
 * Every node whose outputs go on a grid runs through a wrapper op: the layer's
 * own kernel, then quant_graph_output on its outputs split over the executor's
 * threads. So the layer time includes the requantization, as on the NPU, and a
 * layer hook sees quantized outputs (quant_graph_output is idempotent: hooks
 * may apply it again). */
typedef struct qwrap {
    op_def def;           /* the node's op with run/release replaced */
    const op_def *orig;
    void *priv;           /* the kernel's own state */
    const quant_graph *q;
    int out0_done;        /* the kernel quantizes output 0 itself (int8 Conv) */
    uint32_t on_grid;     /* bit k: output k is already on its grid (grid_kept) */
    int ew;               /* EW_*: an elementwise op run here with its requantization */
    float lo, hi;         /* Clip bounds */
    unary_loop uloop;     /* EW_UNARY: the fp32 kernel's loop and parameters */
    unary_par upar;
    const float *bn_a, *bn_b; /* EW_BN, in a chain only: its kernel's per-channel factors */
    struct chain_link *link; /* a Conv's activation chain as qwrap_chain_ok found it */
    int n_link;
    float *lut;           /* that chain as a table of the head's int8 grid, or NULL; */
    quant_lut8 *lut8;     /* that table as bytes, when its values are on one int8 grid; */
    int64_t n_tab, plane; /* one table, or one per channel (n_tab channels of plane
                             values: a per-channel constant operand), 256 floats each */
    int post;             /* POST_*: how an int8 Conv head runs its chain in its epilogue */
    int8_t qlo, qhi;      /* POST_CLAMP: the Relu or Clip bounds as q on link[0].qp */
    int cat_bytes;        /* a Concat whose output has bytes (bytes_link) */
    struct focus_cat *focus; /* a byte Concat of Slice pairs made from their source */
    int deferred;         /* a Slice whose output such a Concat makes itself */
    struct cat_table *cat_tab; /* a byte Concat: per input its last table (concat_bytes) */
    quant_convt *convt;   /* a ConvTranspose requantized in its kernel, or NULL, */
    quant_bytes *convt_ib; /* and its input's bytes (bytes_link), or NULL */
    int rz_bytes;         /* a nearest Resize on its input's grid whose input and
                             output have bytes (bytes_link): resize_bytes */
    int mp_bytes;         /* a MaxPool that copies values, run on its input's
                             bytes (bytes_link): maxpool_bytes, in window mp */
    node_window mp;
    int gap_bytes;        /* a GlobalAveragePool that can run on its input's
                             bytes (gap_from_bytes) */
    struct se_fuse *se;   /* a Mul by one value per channel run as tables, or NULL */
    struct se_fuse *se_by; /* an Add whose output such a Mul's tables make, or NULL */
} qwrap;

/* ---- a squeeze-excite scale and its residual Add, as tables ----
 * m = Mul(x, h), h one value per channel of x computed in this frame (a
 * squeeze-excite scale), and y = Add(x, m) when that Add is m's only reader
 * (PP-OCR det's FPN): in a private run each output is a function of x's
 * byte and its channel, so se_run makes per channel the 256 outputs of x's
 * grid by the ops' own kernels (ew_block, the numbers of the node-by-node
 * run) and maps x's bytes through them, one pass instead of a Mul and an Add
 * over the whole tensor. Taken where x's bytes are valid, the output is
 * bytes alone and the planes are large enough to pay for the tables. */
typedef struct se_fuse {
    int x, h, y;          /* x, the scales, the output (the Add's, else the Mul's) */
    const node_t *add;    /* the Add, or NULL */
    int64_t C, plane;
    uint8_t *tab;         /* C tables of 256 bytes */
    int ran;              /* this run's Add output is made */
} se_fuse;

/* A byte Concat input's table: each q + 128 on grid from, requantized to
 * grid to (made: from, to and tab are set). */
typedef struct cat_table {
    qparam_t from, to;
    int made;
    uint8_t tab[256];
} cat_table;

/* Elementwise ops run by the wrapper itself, block by block, each block
 * requantized while it is in cache (one memory pass instead of two). The
 * float results are those of the fp32 kernels in runtime/exec (one IEEE
 * operation per element, the same Relu/Clip expressions; the other unary ops
 * call the kernel's own loop, unary_f32_loop), so the numbers are unchanged. */
enum { EW_NONE, EW_ADD, EW_SUB, EW_MUL, EW_DIV, EW_RELU, EW_CLIP, EW_UNARY, EW_BN };

typedef struct qout_job {
    const quant_graph *q;
    int t;
    float *data;
    int64_t n;
    int req;              /* requantize (else the values are on the grid already) */
    uint8_t *b;           /* then the bytes of the values on the int8 grid, or NULL */
    int pre;              /* a tensor whose requantization comes first (a composed
                             Slice pair's inner one, qwrap_slice_run), or -1 */
} qout_job;

/* Tensors below 4 chunks stay on the calling thread: on a busy machine a pool
 * hand-off costs more than the pass over a small tensor. */
#define QOUT_CHUNK 16384

/* n values at data on tensor t's grid (int8, or float16). */
static void qout_grid(const quant_graph *q, int t, float *data, int64_t n)
{
    if (q->type == QT_FP16 || (q->t_fp16 && q->t_fp16[t]))
        quant_round_f16(data, n);
    else
        quant_qdq(data, n, &q->act[t]);
}

static void qout_range(void *arg, int64_t b, int64_t e)
{
    const qout_job *j = arg;
    int64_t lo = b * QOUT_CHUNK, hi = e * QOUT_CHUNK < j->n ? e * QOUT_CHUNK : j->n;
    if (j->pre >= 0)
        qout_grid(j->q, j->pre, j->data + lo, hi - lo);
    if (j->req)
        qout_grid(j->q, j->t, j->data + lo, hi - lo);
    if (j->b) /* while the chunk is in cache; exact: on the grid */
        quant_q8_bytes(j->data + lo, 1, hi - lo, hi - lo, &j->q->act[j->t], j->b + lo, hi - lo);
}

/* Tensor t's requantization (its int8 grid, or float16; req 0: none) of the
 * n values at data, on the executor's threads, after tensor pre's (-1: none;
 * a composed Slice pair's inner one) in the same pass over each chunk; and,
 * when an int8 Conv reads tensor t in a private run, its bytes from the
 * values on its int8 grid (quant_grid_bytes_exact). */
static void requant_bytes(op_ctx *c, const quant_graph *q, int pre, int t, float *data,
                          int64_t n, int req)
{
    quant_bytes *b = q->bytes ? q->bytes[t] : NULL;
    if (!c->private_run || !b || b->valid || b->n != n || q->type != QT_I8 ||
        (q->t_fp16 && q->t_fp16[t]) || !q->has_act[t] || q->fused[t] ||
        !quant_grid_bytes_exact(&q->act[t]))
        b = NULL;
    if (!req && !b && pre < 0)
        return;
    qout_job j = {q, t, data, n, req, b ? b->q : NULL, pre};
    op_parallel_for_work(c, (n + QOUT_CHUNK - 1) / QOUT_CHUNK, QOUT_CHUNK / 2, qout_range, &j);
    if (b)
        b->grid = q->act[t], b->valid = 1;
}

static int needs_grid(const quant_graph *q, int t)
{
    const tensor_t *x = &q->g->t[t];
    if (t < 0 || x->dtype != DT_FLOAT || x->kind == TK_CONST)
        return 0;
    if (q->type == QT_FP16 || (q->t_fp16 && q->t_fp16[t]))
        return 1;
    return q->type == QT_I8 && !q->fused[t] && q->has_act[t];
}

/* Operand of an elementwise op broadcast to the output: value index i / inner
 * (inner = 1: the full tensor; inner = n: a scalar; else a row broadcast such
 * as [N, C, 1, 1] against [N, C, H, W]). -1 when the broadcast is another. */
static int64_t ew_inner_shape(const tensor_t *x, const tensor_t *y)
{
    int64_t n = tensor_numel(y), inner = 1;
    if (!x || x->dtype != DT_FLOAT || x->ndim > y->ndim)
        return -1;
    if (tensor_numel(x) == 1)
        return n ? n : 1;
    int off = y->ndim - x->ndim, k = y->ndim;
    /* trailing axes where x is 1, then x must equal y on every axis before */
    while (k > 0 && (k - 1 < off || x->dims[k - 1 - off] == 1) && y->dims[k - 1] != 1) {
        inner *= y->dims[k - 1];
        k--;
    }
    for (int d = 0; d < k; d++) {
        int64_t xd = d < off ? 1 : x->dims[d - off];
        if (xd != y->dims[d])
            return -1;
    }
    return inner;
}

/* ew_inner_shape of an operand that has its data. */
static int64_t ew_inner(const tensor_t *x, const tensor_t *y)
{
    return x && x->data ? ew_inner_shape(x, y) : -1;
}

typedef struct ew_job {
    const qwrap *w;
    const float *a, *b;
    int64_t ia, ib;       /* ew_inner of each operand (b unused for unary ops) */
    float *y;
    uint8_t *yb;          /* the output's bytes too (quant_bytes), or NULL, */
    int floats;           /* and whether its floats are needed */
    int64_t n;
    const qparam_t *qp;   /* requantize the output, or NULL */
    const uint8_t *ab, *bb; /* a full operand's bytes (ew_in_bytes), or NULL, */
    const qparam_t *ag, *bg; /* and their grid */
} ew_job;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define EWHOT \
    __attribute__((optimize("O3"), target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define EWHOT __attribute__((optimize("O3")))
#endif

/* y = a op b over m elements; sa/sb: 1 a full operand, 0 a scalar (a[0]). */
EWHOT static void ew_bin(int op, const float *a, int sa, const float *b, int sb, float *y,
                         int64_t m)
{
#define EW_LOOPS(EXPR)                                                  \
    if (sa && sb)                                                       \
        for (int64_t i = 0; i < m; i++) {                               \
            float x = a[i], z = b[i];                                   \
            y[i] = EXPR;                                                \
        }                                                               \
    else if (sa) {                                                      \
        const float z = b[0];                                           \
        for (int64_t i = 0; i < m; i++) {                               \
            float x = a[i];                                             \
            y[i] = EXPR;                                                \
        }                                                               \
    } else {                                                            \
        const float x = a[0];                                           \
        for (int64_t i = 0; i < m; i++) {                               \
            float z = sb ? b[i] : b[0];                                 \
            y[i] = EXPR;                                                \
        }                                                               \
    }
    switch (op) {
    case EW_ADD: EW_LOOPS(x + z) break;
    case EW_SUB: EW_LOOPS(x - z) break;
    case EW_MUL: EW_LOOPS(x * z) break;
    default: EW_LOOPS(x / z) break;
    }
#undef EW_LOOPS
}

EWHOT static void ew_un(int op, float lo, float hi, const float *x, float *y, int64_t m)
{
    if (op == EW_RELU)
        for (int64_t i = 0; i < m; i++) {
            float v = x[i];
            y[i] = v > 0 ? v : 0;
        }
    else
        for (int64_t i = 0; i < m; i++) {
            float v = x[i];
            y[i] = v < lo ? lo : (v > hi ? hi : v);
        }
}

/* y = x * a + b (a BatchNormalization's channel, as its kernel computes it:
 * a float product, then a float sum), requantized by qp (NULL: none). */
EWHOT static void ew_affine(const float *x, float a, float b, float *y, int64_t m,
                            const qparam_t *qp)
{
    for (int64_t i = 0; i < m; i++)
        y[i] = x[i] * a + b;
    if (qp)
        quant_qdq(y, m, qp);
}

#define EW_CHUNK 16384

/* quant_ew_qdq's op for w->ew (a binary op, Relu or Clip). */
static int ew_qop(int op)
{
    return op == EW_ADD ? QEW_ADD : op == EW_SUB ? QEW_SUB : op == EW_MUL ? QEW_MUL
         : op == EW_DIV ? QEW_DIV : op == EW_RELU ? QEW_RELU : QEW_CLIP;
}

/* w's op on m elements (sa / sb: 1 a full operand, 0 one value), then the
 * requantization by qp (NULL: none); the op and the requantization in one
 * pass where quant_ew_qdq can (it can for every block or none: the CPU's).
 * yb (with qp): the outputs' bytes too, from the same q or, after a separate
 * requantization, from the floats (exact on qp, quant_grid_bytes_exact).
 * in (or NULL): full operands read from their bytes (ew_in_bytes), in the
 * same pass, or made floats first for the other paths. */
static void ew_block(const qwrap *w, const float *a, int sa, const float *b, int sb,
                     const quant_ew_in *in, float *y, uint8_t *yb, int floats, int64_t m,
                     const qparam_t *qp)
{
    const int op = w->ew, qop = ew_qop(op);
    int done = 0;

    if (op == EW_RELU || op == EW_CLIP) {
        done = qp && quant_ew_qdq_in(qop, a, 1, NULL, 0, in, w->lo, w->hi, y, yb, m, qp, floats);
    } else if (op != EW_UNARY) {
        done = qp && quant_ew_qdq_in(qop, a, sa, b, sb, in, 0, 0, y, yb, m, qp, floats);
    }
    if (!done && in && (in->ab || in->bb)) { /* the operands' floats, from their bytes */
        if (in->ab) {
            float *f = kernel_scratch(SCRATCH_Q_INPUT, sizeof(float) * (size_t)m);
            quant_dq8_bytes(in->ab, m, in->ag, f);
            a = f;
        }
        if (in->bb) {
            float *f = kernel_scratch(SCRATCH_Q_BLOCK, sizeof(float) * (size_t)m);
            quant_dq8_bytes(in->bb, m, in->bg, f);
            b = f;
        }
    }
    if (op == EW_UNARY)
        w->uloop(a, y, m, &w->upar);
    else if (!done && (op == EW_RELU || op == EW_CLIP))
        ew_un(op, w->lo, w->hi, a, y, m);
    else if (!done)
        ew_bin(op, a, sa, b, sb, y, m);
    if (qp && !done)
        quant_qdq(y, m, qp);
    if (qp && yb && !done)
        quant_q8_bytes(y, 1, m, m, qp, yb, m);
}

static void ew_range(void *arg, int64_t b0, int64_t b1)
{
    const ew_job *j = arg;
    for (int64_t c = b0; c < b1; c++) { /* chunk by chunk: an operand's floats fit */
        int64_t lo = c * EW_CHUNK, hi = lo + EW_CHUNK < j->n ? lo + EW_CHUNK : j->n;
        if (j->w->ew == EW_UNARY || j->w->ew == EW_RELU || j->w->ew == EW_CLIP) {
            quant_ew_in in = {.ab = j->ab ? j->ab + lo : NULL, .ag = j->ag};
            ew_block(j->w, j->a + lo, 1, NULL, 0, &in, j->y + lo, j->yb ? j->yb + lo : NULL,
                     j->floats, hi - lo, j->qp);
            continue;
        }
        /* b one value per row (a channel's factor): the rows in one call */
        if (j->ia == 1 && j->ib > 1 && j->qp && j->w->ew != EW_UNARY) {
            quant_ew_in in = {.ab = j->ab ? j->ab + lo : NULL, .ag = j->ag, .brow = j->ib,
                              .bfirst = lo % j->ib};
            if (quant_ew_qdq_in(ew_qop(j->w->ew), j->a + lo, 1, j->b + lo / j->ib, 0, &in, 0, 0,
                                j->y + lo, j->yb ? j->yb + lo : NULL, hi - lo, j->qp, j->floats))
                continue;
        }
        /* segments on which each broadcast operand is one value or a full run */
        for (int64_t p = lo; p < hi;) {
            int64_t e = hi;
            if (j->ia > 1 && (p / j->ia + 1) * j->ia < e)
                e = (p / j->ia + 1) * j->ia;
            if (j->ib > 1 && (p / j->ib + 1) * j->ib < e)
                e = (p / j->ib + 1) * j->ib;
            const float *a = j->a + (j->ia > 1 ? p / j->ia : p);
            const float *b = j->b + (j->ib > 1 ? p / j->ib : p);
            quant_ew_in in = {.ab = j->ab && j->ia == 1 ? j->ab + p : NULL,
                              .bb = j->bb && j->ib == 1 ? j->bb + p : NULL,
                              .ag = j->ag, .bg = j->bg};
            ew_block(j->w, a, j->ia == 1, b, j->ib == 1, &in, j->y + p,
                     j->yb ? j->yb + p : NULL, j->floats, e - p, j->qp);
            p = e;
        }
    }
}

/* The requantization of w's node n's output as ew_run does it: *qp (NULL for
 * none); 0 when ew_run does not handle it (a float16 grid). */
static int ew_qparam(const qwrap *w, const node_t *n, const qparam_t **qp)
{
    *qp = needs_grid(w->q, n->out[0]) && !(w->on_grid & 1) ? &w->q->act[n->out[0]] : NULL;
    return !*qp || (w->q->type == QT_I8 && !(w->q->t_fp16 && w->q->t_fp16[n->out[0]]));
}

/* Tensor t's bytes when this private run's producer wrote them on t's grid
 * (n of them), and that grid in *grid; else NULL. */
static const uint8_t *ew_in_bytes(const op_ctx *c, const quant_graph *q, int t, int64_t n,
                                  const qparam_t **grid)
{
    if (t < 0 || !q->bytes || !needs_grid(q, t) || q->type != QT_I8 || (q->t_fp16 && q->t_fp16[t]))
        return NULL;
    *grid = &q->act[t];
    return quant_bytes_of_run(c, q->bytes[t], n, &q->act[t]);
}

/* Runs node n's elementwise op with its requantization; 1 if done, 0 when its
 * shapes are not those handled here (then the node's own kernel runs). */
static int ew_run(op_ctx *c, graph_t *g, node_t *n, const qwrap *w)
{
    const tensor_t *a = node_input(g, n, 0), *b = NULL;
    tensor_t *y = node_output(g, n, 0);
    ew_job j = {.w = w, .y = y->data, .n = tensor_numel(y), .ib = 1, .floats = 1};

    if (!a || !y->data || y->dtype != DT_FLOAT || (j.ia = ew_inner(a, y)) < 0)
        return 0;
    if (w->ew != EW_RELU && w->ew != EW_CLIP && w->ew != EW_UNARY) {
        b = node_input(g, n, 1);
        if ((j.ib = ew_inner(b, y)) < 0 || (j.ia != 1 && j.ib != 1))
            return 0;
        j.b = b->data;
    } else if (j.ia != 1) {
        return 0;
    }
    if ((j.ia != 1 && a->data == y->data) || (b && j.ib != 1 && b->data == y->data))
        return 0; /* an in-place broadcast operand would be overwritten */
    j.a = a->data;
    if (!ew_qparam(w, n, &j.qp))
        return 0;
    /* full operands whose producer wrote their bytes (ew_byte_operand) */
    if (j.ia == 1)
        j.ab = ew_in_bytes(c, w->q, n->in[0], j.n, &j.ag);
    if (b && j.ib == 1)
        j.bb = ew_in_bytes(c, w->q, n->in[1], j.n, &j.bg);
    /* an int8 Conv reads the output: its bytes in the same pass */
    quant_bytes *ob = w->q->bytes ? w->q->bytes[n->out[0]] : NULL;
    if (c->private_run && ob && j.qp && quant_grid_bytes_exact(j.qp) && ob->n == j.n) {
        j.yb = ob->q;
        /* only int8 Convs on this grid read it: bytes alone */
        j.floats = !(ob->only_bytes && quant_same_grid(&ob->rgrid, j.qp));
    }
    op_parallel_for_work(c, (j.n + EW_CHUNK - 1) / EW_CHUNK, EW_CHUNK / 2, ew_range, &j);
    if (j.yb)
        ob->grid = *j.qp, ob->valid = 1;
    return 1;
}

/* ---- a Conv's activation chain, block by block (node_t.chain) ---- */

static int qwrap_run(op_ctx *c, graph_t *g, node_t *n);
static void ew_kind(graph_t *g, const node_t *n, qwrap *w);
static int convt_run(op_ctx *c, graph_t *g, node_t *n, const qwrap *w, int yt,
                     const float *lut, const quant_lut8 *lut8, int64_t lut_n);
static int se_run(op_ctx *c, graph_t *g, const node_t *n, const qwrap *w);
static void se_free(qwrap *w);

/* Tensor t's bytes (quant_bytes) stop shadowing its floats: its producer
 * runs again (and writes them anew where it can). */
static void bytes_stale(const quant_graph *q, int t)
{
    if (q->bytes && t >= 0 && t < q->n_alloc && q->bytes[t])
        q->bytes[t]->valid = 0;
}

/* Operands of w's op: one for the unary ones (and a BatchNormalization's
 * data input), else two. */
static int ew_arity(const qwrap *w)
{
    return w->ew == EW_UNARY || w->ew == EW_RELU || w->ew == EW_CLIP || w->ew == EW_BN ? 1 : 2;
}

/* Elements per block: the chain's intermediate blocks stay in L1/L2. */
#define CHAIN_BLOCK 2048

/* Values per channel of y ([N, C, ...]): its channel planes' size. */
static int64_t channel_plane(const tensor_t *y)
{
    int64_t plane = 1;
    for (int d = 2; d < y->ndim; d++)
        plane *= y->dims[d];
    return plane;
}

/* Operand i of chain node n, whose output has the head's shape y: a tensor
 * the chain holds (its head's output or an earlier node's), a constant
 * scalar, or a constant with one value per channel of y ([C, 1, 1] against
 * [1, C, H, W]: a conv's bias as its own Add; *per_ch set), which ew_run
 * takes as one value per segment too. */
static int chain_operand(const graph_t *g, const node_t *n, int i, const int *held, int n_held,
                         const tensor_t *y, int *per_ch)
{
    int t = i < n->n_in ? n->in[i] : -1;
    if (t < 0)
        return 0;
    for (int k = 0; k < n_held; k++)
        if (held[k] == t)
            return 1;
    const tensor_t *x = &g->t[t];
    if (x->kind != TK_CONST || !x->data || x->dtype != DT_FLOAT)
        return 0;
    if (tensor_numel(x) == 1)
        return 1;
    if (y->ndim < 3 || tensor_numel(x) != y->dims[1] || ew_inner(x, y) != channel_plane(y))
        return 0;
    *per_ch = 1;
    return 1;
}

/* How a chain node runs: its wrapper's op and requantization, or, for a node
 * left with its stock fp32 kernel (no output on a grid), the same op as
 * ew_block computes it (the same expressions) and no requantization. */
typedef struct chain_link {
    qwrap stock;          /* the op of a stock node */
    const qwrap *w;
    const qparam_t *qp;
} chain_link;

/* A BatchNormalization in a chain: its kernel's own factors (y = x a + b per
 * channel of the head's channels), with its wrapper's requantization. */
static int chain_bn_link(const node_t *c, int64_t channels, chain_link *l)
{
    const qwrap *cw = c->def && c->def->run == qwrap_run ? c->priv : NULL;
    int64_t nch;
    if (!bn_channel_affine(cw ? cw->priv : c->priv, &nch, &l->stock.bn_a, &l->stock.bn_b) ||
        nch != channels)
        return 0;
    l->stock.ew = EW_BN;
    l->w = &l->stock;
    if (!cw)
        return 1;
    l->stock.q = cw->q;
    l->stock.on_grid = cw->on_grid;
    return ew_qparam(&l->stock, c, &l->qp);
}

static int chain_link_of(graph_t *g, const node_t *c, int64_t channels, chain_link *l)
{
    memset(l, 0, sizeof(*l));
    if (!strcmp(c->op, "BatchNormalization") && c->n_out == 1)
        return chain_bn_link(c, channels, l);
    if (c->def && c->def->run == qwrap_run) {
        l->w = c->priv;
        return l->w->ew && ew_qparam(l->w, c, &l->qp);
    }
    if (!c->def || c->def != exec_find_op(c->domain, c->op))
        return 0;
    ew_kind(g, c, &l->stock);
    l->w = &l->stock;
    return l->stock.ew != EW_NONE;
}

typedef struct chain_job {
    const graph_t *g;
    const node_t *const *chain;
    const chain_link *link;
    int n_chain;
    int head_out, out;
    int64_t n;
    const float *lut;     /* the chain as a table of the head's grid, or NULL */
    const qparam_t *grid;
    int64_t n_tab, plane; /* qwrap's: tables, channel planes (n_tab > 1) */
} chain_job;

/* The chain on m elements of channel ch (all in it when a per-channel
 * constant is an operand): head holds the head's values, y gets the last
 * node's, tmp has room for n_chain blocks. */
static void chain_block(const chain_job *j, const float *head, float *y, int64_t m, float *tmp,
                        int64_t ch)
{
    int held[16], n_held = 0;
    const float *ptr[16];

    held[n_held] = j->head_out;
    ptr[n_held++] = head;
    for (int k = 0; k < j->n_chain; k++) {
        const node_t *c = j->chain[k];
        const chain_link *l = &j->link[k];
        const float *in[2] = {NULL, NULL};
        int full[2] = {0, 0};
        for (int i = 0; i < ew_arity(l->w); i++) {
            const tensor_t *x = &j->g->t[c->in[i]];
            /* a constant: a scalar, or channel ch's value; unless held */
            in[i] = (const float *)x->data + (tensor_numel(x) > 1 ? ch : 0);
            for (int h = 0; h < n_held; h++)
                if (held[h] == c->in[i])
                    in[i] = ptr[h], full[i] = 1;
        }
        float *o = k == j->n_chain - 1 ? y : tmp + (size_t)k * CHAIN_BLOCK;
        if (l->w->ew == EW_BN)
            ew_affine(in[0], l->w->bn_a[ch], l->w->bn_b[ch], o, m, l->qp);
        else
            ew_block(l->w, in[0], full[0], in[1], full[1], NULL, o, NULL, 1, m, l->qp);
        held[n_held] = c->out[0];
        ptr[n_held++] = o;
    }
}

/* The chain on elements [at, at + n) of the tensor, head into y (y may be
 * head: the ops are elementwise), a channel plane at a time when there is a
 * table per channel: the table up to the first value off the head's grid
 * (none, unless the head's requantization was skipped), the ops from there;
 * *tmp is allocated when the ops need it. */
static void chain_apply(const chain_job *j, const float *head, float *y, int64_t at, int64_t n,
                        float **tmp)
{
    for (int64_t s = 0, e; s < n; s = e) {
        int64_t ch = j->n_tab > 1 ? (at + s) / j->plane % j->n_tab : 0;
        e = j->n_tab > 1 ? s + j->plane - (at + s) % j->plane : n;
        e = e < n ? e : n;
        int64_t done = j->lut ? s + quant_lut_map(head + s, e - s, j->grid, j->lut + 256 * ch,
                                                  y + s)
                              : s;
        for (int64_t o = done; o < e; o += CHAIN_BLOCK) {
            if (!*tmp)
                *tmp = xmalloc(sizeof(float) * CHAIN_BLOCK * (size_t)j->n_chain);
            chain_block(j, head + o, y + o, e - o < CHAIN_BLOCK ? e - o : CHAIN_BLOCK, *tmp, ch);
        }
    }
}

static void chain_range(void *arg, int64_t b0, int64_t b1)
{
    const chain_job *j = arg;
    float *tmp = NULL;
    const float *head = j->g->t[j->head_out].data;
    float *y = j->g->t[j->out].data;

    for (int64_t blk = b0; blk < b1; blk++) {
        int64_t lo = blk * CHAIN_BLOCK, m = j->n - lo < CHAIN_BLOCK ? j->n - lo : CHAIN_BLOCK;
        chain_apply(j, head + lo, y + lo, lo, m, &tmp);
    }
    free(tmp);
}

/* Every chain value is a function of the head's value alone (the operands are
 * held tensors or constants), so when the head's output is on an int8 grid
 * the chain is a table of its 256 values, made by the chain's own ops: the
 * numbers are those of the ops, and one lookup replaces them (SiLU's
 * Sigmoid, Mul and two requantizations). */
static void chain_table(const graph_t *g, const node_t *n, qwrap *w, const node_t *const *chain)
{
    const quant_graph *q = w->q;
    int t = n->out[0];
    free(w->lut);
    free(w->lut8);
    w->lut = NULL;
    w->lut8 = NULL;
    if (q->type != QT_I8 || !needs_grid(q, t) || (q->t_fp16 && q->t_fp16[t]))
        return;
    const qparam_t *p = &q->act[t];
    float grid[256], *tmp = xmalloc(sizeof(float) * CHAIN_BLOCK * (size_t)w->n_link);
    for (int i = 0; i < 256; i++)
        grid[i] = (float)(i - 128 - p->zp) * p->scale;
    chain_job j = {.g = g, .chain = chain, .link = w->link, .n_chain = w->n_link,
                   .head_out = t};
    w->lut = xmalloc(sizeof(float) * 256 * (size_t)w->n_tab);
    for (int64_t c = 0; c < w->n_tab; c++)
        chain_block(&j, grid, w->lut + 256 * c, 256, tmp, c);
    free(tmp);
    /* the chain's output grid, when it ends requantized: the tables as bytes */
    int u = chain[w->n_link - 1]->out[0];
    if (!needs_grid(q, u) || (q->t_fp16 && q->t_fp16[u]))
        return;
    w->lut8 = xmalloc(sizeof(quant_lut8) * (size_t)w->n_tab);
    for (int64_t c = 0; c < w->n_tab; c++)
        if (!quant_lut8_make(w->lut + 256 * c, &q->act[u], &w->lut8[c])) {
            free(w->lut8);
            w->lut8 = NULL;
            return;
        }
}

/* An int8 Conv head hands each finished part of its output to the chain in
 * its epilogue, while it is in cache, writing the chain's output directly
 * (its arena lifetime starts at the head, exec.c):
 *  - POST_LUT: the output is on its grid; the chain's table, in place;
 *  - POST_CLAMP: a lone Relu or Clip after a conv whose output is not
 *    requantized (quant_graph_finish's fused outputs): the conv requantizes
 *    by the activation's grid, then clamps to the grid values of its bounds.
 *    Exact, as quantize-dequantize q is monotonic and the conv's float
 *    results are finite (integer sums): q(min(max(v, lo), hi)) =
 *    min(max(q(v), q(lo)), q(hi)), q(0) = 0 for Relu. */
enum { POST_NONE, POST_LUT, POST_CLAMP };

/* y: a part of the chain's output, where the head writes (qwrap_run_chain). */
static void post_lut(const void *arg, float *y, int64_t n)
{
    const chain_job *j = arg;
    float *tmp = NULL;
    chain_apply(j, y, y, y - (const float *)j->g->t[j->out].data, n, &tmp);
    free(tmp);
}

static void post_clamp(const void *arg, float *y, int64_t n)
{
    const qwrap *w = arg;
    const chain_link *l = &w->link[0];
    float hi = l->w->ew == EW_RELU ? INFINITY : quant_dq8(w->qhi, l->qp);
    ew_un(EW_CLIP, quant_dq8(w->qlo, l->qp), hi, y, y, n);
}

/* w->post for head n (an int8 Conv) and its checked chain (w->link). */
static void post_mode(const node_t *n, qwrap *w, int n_chain)
{
    const quant_graph *q = w->q;
    w->post = POST_NONE;
    if (w->orig != &quant_op_conv || q->type != QT_I8)
        return;
    if (w->lut && w->out0_done) {
        w->post = POST_LUT;
        return;
    }
    const chain_link *l = &w->link[0];
    if (n_chain != 1 || w->out0_done || needs_grid(q, n->out[0]) || !l->qp ||
        (l->w->ew != EW_RELU && l->w->ew != EW_CLIP) ||
        (l->w->ew == EW_CLIP && !(l->w->lo <= l->w->hi)))
        return;
    w->qlo = quant_q8(l->w->ew == EW_RELU ? 0.0f : l->w->lo, l->qp);
    w->qhi = l->w->ew == EW_RELU ? 127 : quant_q8(l->w->hi, l->qp);
    w->post = POST_CLAMP;
}

/* Every chain node is an elementwise op ew_block computes (wrapped or stock),
 * over full operands of the head's shape or constant scalars. The links are
 * kept in the head's wrapper for qwrap_run_chain, with the chain's table. */
static int qwrap_chain_ok(graph_t *g, const node_t *n, const node_t *const *chain, int n_chain)
{
    qwrap *w = n->priv;
    chain_link link[16];
    int held[16], n_held = 0, per_ch = 0;
    const tensor_t *y = n->n_out == 1 && n->out[0] >= 0 ? &g->t[n->out[0]] : NULL;
    if (!y || y->dtype != DT_FLOAT || n_chain < 1 || n_chain > 15)
        return 0;
    held[n_held++] = n->out[0];
    for (int k = 0; k < n_chain; k++) {
        const node_t *c = chain[k];
        if (c->n_out != 1 || c->out[0] < 0 ||
            !chain_link_of(g, c, y->ndim > 1 ? y->dims[1] : 0, &link[k]))
            return 0;
        per_ch |= link[k].w->ew == EW_BN;
        const tensor_t *o = &g->t[c->out[0]];
        if (o->dtype != DT_FLOAT || o->ndim != y->ndim ||
            memcmp(o->dims, y->dims, sizeof(int64_t) * (size_t)y->ndim) ||
            !chain_operand(g, c, 0, held, n_held, y, &per_ch) ||
            (ew_arity(link[k].w) == 2 && !chain_operand(g, c, 1, held, n_held, y, &per_ch)))
            return 0;
        held[n_held++] = c->out[0];
    }
    w->link = xrealloc(w->link, sizeof(chain_link) * (size_t)n_chain);
    memcpy(w->link, link, sizeof(chain_link) * (size_t)n_chain);
    for (int k = 0; k < n_chain; k++) /* a stock node's op lives in its link */
        if (link[k].w == &link[k].stock)
            w->link[k].w = &w->link[k].stock;
    w->n_link = n_chain;
    w->n_tab = per_ch ? y->dims[1] : 1;
    w->plane = channel_plane(y);
    chain_table(g, n, w, chain);
    post_mode(n, w, n_chain);
    return 1;
}

/* The head as it runs alone (its output written and requantized as the
 * unfused run does), then the chain's nodes block by block, each as it runs
 * alone: the same numbers, and the chain's inner tensors never leave the
 * cache (SiLU: 3 passes over the conv's output size instead of 6). */
static int qwrap_run_chain(op_ctx *c, graph_t *g, node_t *n, const node_t *const *chain,
                           int n_chain, int out)
{
    const qwrap *w = n->priv;
    if (w->n_link != n_chain) /* the executor asks qwrap_chain_ok first */
        return rt_err(c->err, c->errlen, RT_EINTERNAL, "node '%s': its chain was not checked",
                      n->name);
    chain_job j = {.g = g, .chain = chain, .link = w->link, .n_chain = n_chain,
                   .head_out = n->out[0], .out = out, .n = tensor_numel(&g->t[n->out[0]]),
                   .lut = w->lut, .grid = &w->q->act[n->out[0]], .n_tab = w->n_tab,
                   .plane = w->plane};
    bytes_stale(w->q, out);
    /* an int8 ConvTranspose with the chain's tables: its blocks go through
     * them before they are scattered to the chain's output */
    if (w->convt && w->lut && c->private_run &&
        convt_run(c, g, n, w, out, w->lut, w->lut8, w->n_tab)) {
        bytes_stale(w->q, n->out[0]);
        return RT_OK;
    }
    if (w->post) { /* the conv writes the chain's output (its settings for this run) */
        quant_node *qn = w->priv, keep = *qn;
        qn->ob = w->q->bytes ? w->q->bytes[out] : NULL;
        tensor_t *h = &g->t[n->out[0]];
        void *hd = h->data;
        qn->post = w->post == POST_LUT ? post_lut : post_clamp;
        qn->lut = w->post == POST_LUT ? w->lut : NULL;
        qn->lut8 = w->post == POST_LUT ? w->lut8 : NULL;
        qn->lut_ch = w->post == POST_LUT && w->n_tab > 1;
        qn->post_arg = w->post == POST_LUT ? (const void *)&j : (const void *)w;
        if (w->post == POST_CLAMP)
            qn->out = *w->link[0].qp, qn->out_q = 1, qn->clamp = 1, qn->qlo = w->qlo,
            qn->qhi = w->qhi;
        h->data = g->t[out].data;
        int rc = qwrap_run(c, g, n);
        h->data = hd;
        *qn = keep;
        return rc;
    }
    int rc = qwrap_run(c, g, n);
    if (rc)
        return rc;
    op_parallel_for_work(c, (j.n + CHAIN_BLOCK - 1) / CHAIN_BLOCK, CHAIN_BLOCK * n_chain,
                         chain_range, &j);
    return RT_OK;
}

/* ---- a Slice of a Slice's output, composed (node_t.chain) ---- */

/* Node n runs the stock Slice, itself or under its wrapper (node_t.wraps). */
static int stock_slice(const node_t *n)
{
    const op_def *s = exec_find_op(n->domain, "Slice");
    return !strcmp(n->op, "Slice") && n->n_out == 1 && s && (n->def == s || n->wraps == s);
}

static int qwrap_slice_ok(graph_t *g, const node_t *n, const node_t *inner)
{
    (void)g;
    return stock_slice(n) && stock_slice(inner);
}

/* The tensor whose requantization n's wrapper gives n's output: -1 when n is
 * not wrapped or keeps its values' grid. */
static int slice_req_tensor(const graph_t *g, const node_t *n)
{
    if (!n->def || n->def->run != qwrap_run)
        return -1;
    const qwrap *w = n->priv;
    int t = n->out[0];
    if (!needs_grid(w->q, t) || (w->on_grid & 1) || g->t[t].dtype != DT_FLOAT)
        return -1;
    return t;
}

/* The one strided copy from inner's input, then inner's requantization and
 * n's: each value is the one inner would have put at that place, then n.
 * One pass over each chunk for both, which also writes n's bytes where an
 * int8 Conv or a byte Concat reads them (requant_bytes: YOLOX's Focus
 * Concat then maps its inputs' bytes instead of requantizing its floats). */
static int qwrap_slice_run(op_ctx *c, graph_t *g, node_t *n, const node_t *inner)
{
    if (((const qwrap *)n->priv)->deferred && c->private_run) { /* focus_run */
        bytes_stale(((const qwrap *)n->priv)->q, n->out[0]);
        return RT_OK;
    }
    int rc = slice_run_composed(c, g, n, inner);
    if (rc)
        return rc;
    const qwrap *w = n->priv;
    int t = n->out[0];
    tensor_t *y = &g->t[t];
    bytes_stale(w->q, t);
    requant_bytes(c, w->q, slice_req_tensor(g, inner), t, y->data, tensor_numel(y),
                  slice_req_tensor(g, n) >= 0);
    return RT_OK;
}

static const op_chain qwrap_chain = {qwrap_chain_ok, qwrap_run_chain, qwrap_slice_ok,
                                     qwrap_slice_run};

/* A Concat's output bytes from its inputs' bytes (a private run, each input
 * valid), laid out as the Concat copies the floats: per block before the
 * axis, each input's part in turn. An input on the output's grid is copied;
 * one on another grid goes through a table of its 256 values, each the q
 * that requantizing its float gives (quant_q8 of quant_dq8, the numbers
 * requant computes). Returns 1 when the Concat need not run (bytes written,
 * and no reader wants the floats). */
/* A Concat's byte pieces: each copied, or mapped through its table. */
#define CAT_CHUNK 65536
typedef struct cat_seg {
    const uint8_t *src;
    uint8_t *dst;
    int64_t n;
    const uint8_t *tab;   /* NULL: a copy */
} cat_seg;

typedef struct cat_job {
    cat_seg *seg;
    int nseg;
    int64_t *first;       /* the first chunk of each piece; first[nseg]: all */
} cat_job;

static void cat_range(void *arg, int64_t b, int64_t e)
{
    const cat_job *j = arg;
    int s = 0;
    for (int64_t ch = b; ch < e; ch++) {
        while (j->first[s + 1] <= ch)
            s++;
        const cat_seg *g = &j->seg[s];
        int64_t lo = (ch - j->first[s]) * CAT_CHUNK, m = g->n - lo < CAT_CHUNK ? g->n - lo : CAT_CHUNK;
        if (g->tab) /* in place too: a vector is read before it is written */
            quant_bytes_map(g->tab, g->src + lo, g->dst + lo, m);
        else if (g->src != g->dst) /* else the input's bytes lie in place (bytes_place) */
            memcpy(g->dst + lo, g->src + lo, (size_t)m);
    }
}

/* tab[q + 128] = the byte of grid to for value q of grid from, requantized */
static void grid_table(const qparam_t *from, const qparam_t *to, uint8_t tab[256])
{
    for (int v = 0; v < 256; v++)
        tab[v] = (uint8_t)(quant_q8(quant_dq8((int8_t)(v - 128), from), to) + 128);
}

/* Byte Concat input t's bytes follow from its floats: they lie on its own
 * int8 grid, whose bytes are exact (quant_grid_bytes_exact). */
static int cat_bytes_of_floats(const quant_graph *q, int t)
{
    return t >= 0 && needs_grid(q, t) && q->type == QT_I8 && !(q->t_fp16 && q->t_fp16[t]) &&
           quant_grid_bytes_exact(&q->act[t]) && q->g->t[t].dtype == DT_FLOAT;
}

/* Concat n's axis (0 .. rank - 1) when only readers of bytes on its output's
 * own grid read that output, and those bytes are exact: a byte Concat that
 * need not make floats; else -1. */
static int cat_axis_bytes_only(const quant_graph *q, const node_t *n)
{
    int t = n->out[0], nd = q->g->t[t].ndim;
    const quant_bytes *ob = q->bytes[t];
    const qparam_t *p = &q->act[t];
    int64_t axis = node_attr_int(n, "axis", 0);
    axis = axis < 0 ? axis + nd : axis;
    if (!ob || !ob->only_bytes || !quant_same_grid(&ob->rgrid, p) || !quant_grid_bytes_exact(p) ||
        axis < 0 || axis >= nd)
        return -1;
    return (int)axis;
}

static int concat_bytes(op_ctx *c, const graph_t *g, const node_t *n, qwrap *w)
{
    int t = n->out[0];
    quant_bytes *ob = w->q->bytes[t];
    const tensor_t *y = &g->t[t];
    const qparam_t *p = &w->q->act[t];
    if (!c->private_run || !ob || !quant_grid_bytes_exact(p) || n->n_in > 64)
        return 0;
    int64_t axis = node_attr_int(n, "axis", 0);
    axis = axis < 0 ? axis + y->ndim : axis;
    if (axis < 0 || axis >= y->ndim)
        return 0;
    int64_t outer = 1, inner_y = 0;
    for (int64_t d = 0; d < axis; d++)
        outer *= y->dims[d];
    uint8_t same[64];
    if (!w->cat_tab) /* the tables, kept from run to run with the grids they map */
        w->cat_tab = xcalloc((size_t)n->n_in, sizeof(cat_table));
    for (int k = 0; k < n->n_in; k++) {
        quant_bytes *b = n->in[k] >= 0 ? w->q->bytes[n->in[k]] : NULL;
        if (b && !b->valid && b->n % (outer ? outer : 1) == 0 && cat_bytes_of_floats(w->q, n->in[k])) {
            /* a producer that wrote no bytes wrote floats on the input's grid */
            quant_q8_bytes(g->t[n->in[k]].data, 1, b->n, b->n, &w->q->act[n->in[k]], b->q, b->n);
            b->grid = w->q->act[n->in[k]];
            b->valid = 1;
        }
        if (!b || !b->valid || !outer || b->n % outer)
            return 0;
        inner_y += b->n / outer;
        same[k] = quant_same_grid(&b->grid, p);
        cat_table *ct = &w->cat_tab[k];
        if (same[k] || (ct->made && !memcmp(&ct->from, &b->grid, sizeof(qparam_t)) &&
                        !memcmp(&ct->to, p, sizeof(qparam_t))))
            continue;
        grid_table(&b->grid, p, ct->tab);
        ct->from = b->grid, ct->to = *p, ct->made = 1;
    }
    if (inner_y * outer != ob->n)
        return 0;
    /* the pieces in chunks on the executor's threads */
    cat_job j = {.nseg = (int)(outer * n->n_in)};
    j.seg = xmalloc(sizeof(cat_seg) * (size_t)(j.nseg ? j.nseg : 1));
    j.first = xmalloc(sizeof(int64_t) * (size_t)(j.nseg + 1));
    j.first[0] = 0;
    for (int64_t o = 0, off = 0, s = 0; o < outer; o++)
        for (int k = 0; k < n->n_in; k++, s++) {
            const quant_bytes *b = w->q->bytes[n->in[k]];
            int64_t inner = b->n / outer;
            j.seg[s] = (cat_seg){b->q + o * inner, ob->q + off, inner,
                                 same[k] ? NULL : w->cat_tab[k].tab};
            j.first[s + 1] = j.first[s] + (inner + CAT_CHUNK - 1) / CAT_CHUNK;
            off += inner;
        }
    op_parallel_for_work(c, j.first[j.nseg], CAT_CHUNK / 4, cat_range, &j);
    for (int s = 0; s < j.nseg; s++) /* mapped in place: no longer on the input's grid */
        if (j.seg[s].tab && j.seg[s].src == j.seg[s].dst)
            w->q->bytes[n->in[s % n->n_in]]->valid = 0;
    free(j.seg);
    free(j.first);
    ob->grid = *p;
    ob->valid = 1;
    /* only int8 Convs on this grid read the output: its floats are not needed */
    return ob->only_bytes && quant_same_grid(&ob->rgrid, p);
}

/* ---- a byte Concat of Slice pairs, from their source (YOLOX's Focus) ----
 * When a byte Concat's output only feeds int8 Convs on its grid and each of
 * its inputs is a Slice of a Slice's output read by nothing else, a private
 * run makes the Concat's bytes straight from the Slices' source: per row of
 * a piece, the strided values, then the inner Slice's and the outer Slice's
 * requantizations (as qwrap_slice_run does them, in the same order on the
 * same floats), their bytes (requant_bytes') and the Concat's table of them
 * (concat_bytes'); the Slices do not run, nor does any pass over their
 * tensors. The numbers are those of the Slices and the byte Concat. */
typedef struct focus_piece {
    int src;              /* the inner Slice's input */
    int pre, req;         /* the inner Slice's requantized tensor (-1: none), the outer's (-1) */
    int t;                /* the outer Slice's output (its bytes' grid: act[t]) */
    int nd;
    int64_t len[MODEL_MAX_DIMS], step[MODEL_MAX_DIMS]; /* source elements per axis */
    int64_t base;         /* the first source element */
    int64_t rows, off;    /* rows along the last axis; its place in the output */
    int same;             /* on the Concat's grid: no table */
    uint8_t tab[256];
    /* the source's grid (has: its activation is one quant_grid_bytes takes)
     * and, for each of its q + 128, the byte that the steps above make of
     * its value: the whole piece is one lookup where the source lies on it */
    int has_src_grid;
    qparam_t src_grid;
    uint8_t src_tab[256];
    /* with an inner requantization (pre >= 0): for each byte q + 128 on its
     * grid, the byte the later steps make of its value; the first step is
     * then the only one on floats */
    uint8_t pre_tab[256];
} focus_piece;

typedef struct focus_cat {
    int n;
    focus_piece *p;
    int64_t *first;       /* first work item of each piece; first[n]: all */
    int interleave;       /* pieces of as many rows: item i is block i of every piece */
} focus_cat;

/* Rows of a piece per work item: a few thousand values in L1. The source
 * (YOLOX's 2 MB image) is read from memory once and in order: an item
 * takes its rows of every piece (focus_cat.interleave), the pieces' rows of
 * one source row after another. */
#define FOCUS_ROWS 8

typedef struct focus_job {
    const quant_graph *q;
    const focus_cat *f;
    uint8_t *out;
} focus_job;

/* Every step-th value: by the fp32 Focus conv's permutes for step 2 (the
 * compiler left the loop scalar, a value at a time) */
EWHOT static void focus_gather(const float *s, int64_t step, float *d, int64_t m)
{
    if (step == 2)
        gemm512_gather2(d, s, m);
    else
        for (int64_t i = 0; i < m; i++)
            d[i] = s[i * step];
}

/* The steps of piece p on m values: the Slices' requantizations, the
 * bytes, the Concat's table (tmp: m bytes of room). */
static void focus_steps(const quant_graph *q, const focus_piece *p, float *v, int64_t m,
                        uint8_t *o, uint8_t *tmp)
{
    if (p->pre >= 0)
        qout_grid(q, p->pre, v, m);
    if (p->req >= 0)
        qout_grid(q, p->req, v, m);
    quant_q8_bytes(v, 1, m, m, &q->act[p->t], p->same ? o : tmp, m);
    if (!p->same)
        quant_bytes_map(p->tab, tmp, o, m);
}

/* The first source element of row r of piece p: r over its leading axes. */
static int64_t focus_row_at(const focus_piece *p, const tensor_t *src, int64_t r)
{
    int64_t at = p->base, stride = 1;
    for (int d = p->nd - 1; d >= 0; d--) {
        if (d < p->nd - 1) {
            at += (r % p->len[d]) * p->step[d] * stride;
            r /= p->len[d];
        }
        stride *= src->dims[d];
    }
    return at;
}

/* Work item it: rows [r0, r1) of pieces [k0, k1) (all of them when they
 * interleave, gathered row by row in the source's order, else one). */
static void focus_range(void *arg, int64_t b, int64_t e)
{
    const focus_job *j = arg;
    const focus_cat *f = j->f;
    const quant_graph *q = j->q;
    int k = 0;
    for (int64_t it = b; it < e; it++) {
        int64_t blk;
        int k0, k1;
        if (f->interleave) {
            k0 = 0, k1 = f->n, blk = it;
        } else {
            while (f->first[k + 1] <= it)
                k++;
            k0 = k, k1 = k + 1, blk = it - f->first[k];
        }
        int64_t r0 = blk * FOCUS_ROWS, r1 = r0 + FOCUS_ROWS, need = 0;
        if (r1 > f->p[k0].rows)
            r1 = f->p[k0].rows;
        for (int i = k0; i < k1; i++)
            need += (r1 - r0) * f->p[i].len[f->p[i].nd - 1];
        /* the item's floats, then as many bytes: the thread's buffer, kept
         * from run to run */
        float *row = kernel_scratch(SCRATCH_Q_BLOCK, (sizeof(float) + 1) * (size_t)need);
        uint8_t *tmp = (uint8_t *)(row + need);
        for (int64_t r = r0; r < r1; r++) {
            int64_t at = 0;
            for (int i = k0; i < k1; i++) {
                const focus_piece *p = &f->p[i];
                const tensor_t *src = &q->g->t[p->src];
                int64_t w = p->len[p->nd - 1];
                focus_gather((const float *)src->data + focus_row_at(p, src, r),
                             p->step[p->nd - 1], row + at + (r - r0) * w, w);
                at += (r1 - r0) * w;
            }
        }
        int64_t at = 0;
        for (int i = k0; i < k1; i++) {
            const focus_piece *p = &f->p[i];
            int64_t w = p->len[p->nd - 1], m = (r1 - r0) * w;
            float *v = row + at;
            uint8_t *o = j->out + p->off + r0 * w, *t = tmp + at;
            int64_t d = p->has_src_grid ? quant_grid_bytes(v, m, &p->src_grid, t) : 0;
            if (d)
                quant_bytes_map(p->src_tab, t, o, d);
            if (d < m && p->pre >= 0) {
                quant_q8_bytes(v + d, 1, m - d, m - d, &q->act[p->pre], t + d, m - d);
                quant_bytes_map(p->pre_tab, t + d, o + d, m - d);
            } else if (d < m)
                focus_steps(q, p, v + d, m - d, o + d, t + d);
            at += m;
        }
    }
}

static void focus_run(op_ctx *c, const node_t *n, const qwrap *w)
{
    quant_bytes *ob = w->q->bytes[n->out[0]];
    focus_job j = {w->q, w->focus, ob->q};
    int64_t items = w->focus->first[w->focus->n];
    op_parallel_for_work(c, items, items ? ob->n / items : 0, focus_range, &j);
    ob->grid = w->q->act[n->out[0]];
    ob->valid = 1;
}

/* Node x is a Slice whose output only node n reads (and no graph output). */
static int sole_reader(const graph_t *g, const node_t *x, const node_t *n)
{
    int only = -1, t = x->out[0];
    return t >= 0 && !g->t[t].is_output && quant_consumers(g, t, &only) == 1 &&
           &g->nodes[only] == n;
}

/* The bytes of tensor t as requant_bytes writes them, on a grid the Concat's
 * table takes. */
static int focus_bytes_ok(const quant_graph *q, int t)
{
    return t >= 0 && !(q->t_fp16 && q->t_fp16[t]) && q->has_act[t] && !q->fused[t] &&
           quant_grid_bytes_exact(&q->act[t]);
}

static void focus_free(qwrap *w)
{
    if (w->focus) {
        free(w->focus->p);
        free(w->focus->first);
        free(w->focus);
    }
    w->focus = NULL;
}

/* Concat n (cat_bytes, its bytes only_bytes on its grid) as a focus_cat, or
 * nothing; the Slices it makes are marked deferred. */
static void focus_link(quant_graph *q, node_t *n)
{
    graph_t *g = q->g;
    qwrap *w = n->priv;
    int t = n->out[0];
    const tensor_t *y = &g->t[t];
    const quant_bytes *ob = q->bytes[t];
    const qparam_t *p = &q->act[t];
    int axis = cat_axis_bytes_only(q, n);
    if (axis < 0 || n->n_in < 1 || n->n_in > 64)
        return;
    for (int64_t d = 0; d < axis; d++)
        if (y->dims[d] != 1)
            return;
    focus_cat *f = xcalloc(1, sizeof(*f));
    f->p = xcalloc((size_t)n->n_in, sizeof(focus_piece));
    f->first = xcalloc((size_t)n->n_in + 1, sizeof(int64_t));
    node_t *outer[64];
    int64_t off = 0;
    for (int k = 0; k < n->n_in; k++) {
        focus_piece *fp = &f->p[k];
        int x = n->in[k], pi = x >= 0 ? g->t[x].producer : -1;
        node_t *s = pi >= 0 ? &g->nodes[pi] : NULL;
        int ii = s && s->n_in > 0 && s->in[0] >= 0 ? g->t[s->in[0]].producer : -1;
        const node_t *inner = ii >= 0 ? &g->nodes[ii] : NULL;
        int64_t st[MODEL_MAX_DIMS], sp[MODEL_MAX_DIMS];
        if (!inner || s->folded || inner->folded || !stock_slice(s) || !stock_slice(inner) ||
            !s->def || s->def->run != qwrap_run || !sole_reader(g, s, n) ||
            !sole_reader(g, inner, s) || inner->in[0] < 0 ||
            slice_source(g, s, inner, st, sp) != RT_OK)
            goto no;
        const tensor_t *src = &g->t[inner->in[0]], *o = &g->t[x];
        fp->src = inner->in[0];
        fp->pre = slice_req_tensor(g, inner);
        fp->req = slice_req_tensor(g, s);
        fp->t = x;
        fp->nd = src->ndim;
        if (src->dtype != DT_FLOAT || o->dtype != DT_FLOAT || o->ndim != src->ndim ||
            src->ndim < 1 || !focus_bytes_ok(q, x) || (fp->pre >= 0 && !focus_bytes_ok(q, fp->pre)))
            goto no;
        int64_t stride = 1;
        fp->base = 0;
        fp->rows = 1;
        for (int d = src->ndim - 1; d >= 0; d--) {
            if (sp[d] < 1)
                goto no;
            fp->len[d] = o->dims[d];
            fp->step[d] = sp[d];
            fp->base += st[d] * stride;
            stride *= src->dims[d];
            if (d < src->ndim - 1)
                fp->rows *= o->dims[d];
        }
        fp->off = off;
        off += tensor_numel(o);
        fp->same = quant_same_grid(&q->act[x], p);
        if (!fp->same)
            grid_table(&q->act[x], p, fp->tab);
        fp->has_src_grid = q->has_act[fp->src] && quant_grid_bytes_exact(&q->act[fp->src]);
        fp->src_grid = q->act[fp->src];
        for (int v = 0; fp->has_src_grid && v < 256; v++) {
            float val = quant_dq8((int8_t)(v - 128), &fp->src_grid);
            uint8_t tb[1];
            focus_steps(q, fp, &val, 1, &fp->src_tab[v], tb);
        }
        focus_piece later = *fp; /* the steps after the inner requantization */
        later.pre = -1;
        for (int v = 0; fp->pre >= 0 && v < 256; v++) {
            float val = quant_dq8((int8_t)(v - 128), &q->act[fp->pre]);
            uint8_t tb[1];
            focus_steps(q, &later, &val, 1, &fp->pre_tab[v], tb);
        }
        f->first[k + 1] = f->first[k] + (fp->rows + FOCUS_ROWS - 1) / FOCUS_ROWS;
        outer[k] = s;
    }
    if (off != ob->n)
        goto no;
    f->n = n->n_in;
    /* the same rows of every piece together: Slices of one source (the
     * Focus' four phases) then read it in order, each row once */
    f->interleave = 1;
    for (int k = 1; k < n->n_in; k++)
        f->interleave &= f->p[k].rows == f->p[0].rows;
    if (f->interleave)
        f->first[f->n] = (f->p[0].rows + FOCUS_ROWS - 1) / FOCUS_ROWS;
    w->focus = f;
    for (int k = 0; k < n->n_in; k++)
        ((qwrap *)outer[k]->priv)->deferred = 1;
    return;
no:
    free(f->p);
    free(f->first);
    free(f);
}

/* Row job of resize_bytes: output row r of rows (outer x oh) gathers input
 * row ih[r % oh] of its plane at columns iw (iw[o] = o / fw when fw > 0). */
typedef struct rz_job {
    const uint8_t *src;
    uint8_t *dst;
    const int64_t *ih, *iw;
    int64_t h, w, oh, ow, fw;
} rz_job;

static void rz_range(void *arg, int64_t b, int64_t e)
{
    const rz_job *j = arg;
    for (int64_t r = b; r < e; r++) {
        int64_t o = r % j->oh;
        uint8_t *d = j->dst + r * j->ow;
        if (r > b && o > 0 && j->ih[o] == j->ih[o - 1]) { /* the row just written */
            memcpy(d, d - j->ow, (size_t)j->ow);
            continue;
        }
        const uint8_t *s = j->src + (r / j->oh * j->h + j->ih[o]) * j->w;
        /* each byte repeated fw times: one word per input byte */
        if (j->fw == 2) { /* four bytes to eight: each spread to a 16-bit lane, doubled */
            int64_t i = 0;
            for (; i + 4 <= j->w; i += 4) {
                uint32_t x;
                memcpy(&x, s + i, 4);
                uint64_t t = x;
                t = (t | t << 16) & 0x0000FFFF0000FFFFu;
                t = (t | t << 8) & 0x00FF00FF00FF00FFu;
                t |= t << 8;
                memcpy(d + 2 * i, &t, 8);
            }
            for (; i < j->w; i++)
                d[2 * i] = d[2 * i + 1] = s[i];
        } else if (j->fw == 4) {
            for (int64_t i = 0; i < j->w; i++) {
                uint32_t v = s[i] * 0x01010101u;
                memcpy(d + 4 * i, &v, 4);
            }
        } else if (j->fw == 8) {
            for (int64_t i = 0; i < j->w; i++) {
                uint64_t v = s[i] * 0x0101010101010101u;
                memcpy(d + 8 * i, &v, 8);
            }
        } else {
            for (int64_t p = 0; p < j->ow; p++)
                d[p] = s[j->iw[p]];
        }
    }
}

/* A nearest Resize's output bytes (w->rz_bytes, output on its input's grid,
 * its floats written by the kernel) gathered from its input's bytes by the
 * kernel's own index tables, instead of quantizing the floats it copied:
 * each value copied is the input value whose q the input's bytes hold
 * (written in this run on the same grid), so the bytes are the same. 0 when
 * the input's bytes are not there (the caller quantizes the floats). */
static int resize_bytes(op_ctx *c, graph_t *g, node_t *n, const qwrap *w)
{
    const quant_graph *q = w->q;
    int t = n->out[0], xi = n->in[0];
    const tensor_t *x = &g->t[xi];
    quant_bytes *ob = q->bytes[t];
    const quant_bytes *ib = q->bytes[xi];
    const int64_t *ih, *iw;
    int64_t oh, ow;
    if (!ob || ob->valid || !quant_bytes_of_run(c, ib, tensor_numel(x), &q->act[t]) ||
        !resize_nearest_maps(w->priv, x, &ih, &iw, &oh, &ow))
        return 0;
    int64_t h = x->dims[x->ndim - 2], wd = x->dims[x->ndim - 1];
    int64_t outer = h > 0 && wd > 0 ? ib->n / (h * wd) : 0;
    if (ob->n != outer * oh * ow)
        return 0;
    rz_job j = {ib->q, ob->q, ih, iw, h, wd, oh, ow, ow % wd ? 0 : ow / wd};
    for (int64_t p = 0; j.fw && p < ow; p++)
        if (iw[p] != p / j.fw)
            j.fw = 0;
    op_parallel_for_work(c, outer * oh, ow, rz_range, &j);
    ob->grid = q->act[t];
    ob->valid = 1;
    return 1;
}

/* Tensor t's floats are read by no one in a private run (its bytes, on its
 * grid, by everyone: quant_bytes.only_bytes). */
static int bytes_unread_floats(const quant_graph *q, int t)
{
    const quant_bytes *b = q->bytes && t >= 0 ? q->bytes[t] : NULL;
    return b && b->only_bytes && quant_same_grid(&b->rgrid, &q->act[t]);
}

/* The floats of n's inputs that only bytes stand for in this run (their
 * readers were to take the bytes, bytes_alone), for a kernel that reads
 * floats after all: each (q - zp) * scale, the float its producer left out. */
static void floats_of_bytes(const op_ctx *c, graph_t *g, const node_t *n, const quant_graph *q)
{
    for (int k = 0; k < n->n_in; k++) {
        int t = n->in[k];
        if (t < 0 || !g->t[t].data || !bytes_unread_floats(q, t))
            continue;
        const uint8_t *b = quant_bytes_of_run(c, q->bytes[t], tensor_numel(&g->t[t]), &q->act[t]);
        if (b)
            quant_dq8_bytes(b, tensor_numel(&g->t[t]), &q->act[t], g->t[t].data);
    }
}

/* A MaxPool that copies values (w->mp_bytes) on its input's bytes, when
 * its producer wrote them in this run on the output's grid (its input's):
 * the output's bytes where an int8 Conv reads them, and its floats unless
 * only those bytes are read (qpool.c). 0 when the bytes are not there (the
 * producer wrote the floats then). */
static int maxpool_bytes(op_ctx *c, graph_t *g, node_t *n, const qwrap *w)
{
    const quant_graph *q = w->q;
    int t = n->out[0], xi = n->in[0];
    tensor_t *y = &g->t[t];
    const int64_t ny = tensor_numel(y), nx = tensor_numel(&g->t[xi]);
    const int64_t ohw = w->mp.out[1] * w->mp.out[2], planes = ohw > 0 ? ny / ohw : 0;
    const uint8_t *xb = quant_bytes_of_run(c, q->bytes[xi], nx, &q->act[t]);
    if (!xb || !y->data || planes * w->mp.in[1] * w->mp.in[2] != nx)
        return 0;
    quant_bytes *ob = q->bytes[t] && q->bytes[t]->n == ny ? q->bytes[t] : NULL;
    int floats = !(ob && ob->only_bytes && quant_same_grid(&ob->rgrid, &q->act[t]));
    uint8_t *yb = ob ? ob->q : kernel_scratch(SCRATCH_Q_ACC, (size_t)ny);
    quant_maxpool_bytes(c, &w->mp, planes, xb, yb, floats ? y->data : NULL, &q->act[t]);
    if (ob)
        ob->grid = q->act[t], ob->valid = 1;
    return 1;
}

/* A GlobalAveragePool's means (w->gap_bytes) from its input's bytes, when
 * its producer wrote them in this run on the input's grid; 0 when not (the
 * producer wrote the floats then). */
static int gap_from_bytes(op_ctx *c, graph_t *g, node_t *n, const qwrap *w)
{
    const quant_graph *q = w->q;
    int xi = n->in[0];
    const tensor_t *x = &g->t[xi];
    tensor_t *y = &g->t[n->out[0]];
    const int64_t nx = tensor_numel(x), planes = x->dims[0] * x->dims[1];
    const uint8_t *xb = quant_bytes_of_run(c, q->bytes[xi], nx, &q->act[xi]);
    if (!xb || !y->data || planes <= 0 || tensor_numel(y) != planes)
        return 0;
    quant_gap_bytes(c, xb, planes, nx / planes, &q->act[xi], y->data);
    return 1;
}

/* A ConvTranspose with its kernel (qconvt.c), into tensor yt (its output,
 * or its chain's with the chain's tables lut, lut8, lut_n; NULL: none), and
 * into yt's bytes where it can (quant_convt_run): from its
 * input's bytes when they are valid and on its input's grid bit for bit,
 * else from its floats; 0 when the kernel does not take these shapes (then
 * the input's floats, which a producer may have left unwritten for the
 * bytes, are made). */
static int convt_run(op_ctx *c, graph_t *g, node_t *n, const qwrap *w, int yt,
                     const float *lut, const quant_lut8 *lut8, int64_t lut_n)
{
    const quant_graph *q = w->q;
    int xi = n->in[0];
    tensor_t *x = &g->t[xi];
    const quant_bytes *ib = w->convt_ib;
    int use = quant_bytes_of_run(c, ib, tensor_numel(x), &q->act[xi]) != NULL;
    if (quant_convt_run(c, w->convt, x, use ? ib->q : NULL, use ? &ib->grid : NULL, &g->t[yt],
                        &q->act[n->out[0]], lut, lut8, lut_n, q->bytes ? q->bytes[yt] : NULL))
        return 1;
    if (use && ib->only_bytes) {
        float *d = x->data;
        for (int64_t i = 0; i < ib->n; i++)
            d[i] = quant_dq8((int8_t)(ib->q[i] - 128), &ib->grid);
    }
    return 0;
}

static int qwrap_run(op_ctx *c, graph_t *g, node_t *n)
{
    qwrap *w = n->priv;
    if (w->se_by && w->se_by->ran && c->private_run) { /* made by its Mul (se_run) */
        w->se_by->ran = 0;
        return RT_OK;
    }
    for (int k = 0; k < n->n_out; k++)
        bytes_stale(w->q, n->out[k]);
    if (w->se && se_run(c, g, n, w))
        return RT_OK;
    if (w->deferred && c->private_run) /* its Concat makes the bytes (focus_run) */
        return RT_OK;
    if (w->focus && c->private_run) {
        focus_run(c, n, w);
        return RT_OK;
    }
    if (w->cat_bytes && concat_bytes(c, g, n, w))
        return RT_OK;
    if (w->ew && ew_run(c, g, n, w))
        return RT_OK;
    if (w->ew) /* its kernel reads floats: those its producers left out */
        floats_of_bytes(c, g, n, w->q);
    if (w->mp_bytes && maxpool_bytes(c, g, n, w))
        return RT_OK;
    /* a Resize whose floats no one reads: its bytes alone */
    if (w->rz_bytes && c->private_run && bytes_unread_floats(w->q, n->out[0]) &&
        resize_bytes(c, g, n, w))
        return RT_OK;
    if (w->convt && convt_run(c, g, n, w, n->out[0], NULL, NULL, 0)) {
        int t = n->out[0]; /* bytes, where an int8 Conv reads them and the kernel wrote none */
        if (!w->q->bytes || !w->q->bytes[t] || !w->q->bytes[t]->valid)
            requant_bytes(c, w->q, -1, t, g->t[t].data, tensor_numel(&g->t[t]), 0);
        return RT_OK;
    }
    if (!w->gap_bytes || !gap_from_bytes(c, g, n, w)) { /* the kernel */
        n->priv = w->priv;
        int rc = w->orig->run(c, g, n);
        w->priv = n->priv;
        n->priv = w;
        if (rc)
            return rc;
    }
    /* the requantization, and the bytes where an int8 Conv reads them (an
     * int8 Conv's own output: its epilogue's) */
    for (int k = 0; k < n->n_out; k++) {
        int t = n->out[k];
        if (!needs_grid(w->q, t) || !g->t[t].data || (k == 0 && w->out0_done) ||
            (k == 0 && w->rz_bytes && resize_bytes(c, g, n, w)))
            continue;
        requant_bytes(c, w->q, -1, t, g->t[t].data, tensor_numel(&g->t[t]),
                      !(k < 32 && (w->on_grid >> k & 1)));
    }
    return RT_OK;
}

void **quant_node_kernel_priv(node_t *n)
{
    if (n->wraps && n->def && n->def->run == qwrap_run)
        return &((qwrap *)n->priv)->priv;
    return &n->priv;
}

static void qwrap_release(node_t *n)
{
    qwrap *w = n->priv;
    n->priv = w->priv;
    n->def = w->orig;
    n->wraps = NULL;
    n->chain = NULL;
    if (w->orig->release)
        w->orig->release(n);
    free(w->link);
    free(w->lut);
    free(w->lut8);
    focus_free(w);
    free(w->cat_tab);
    quant_convt_free(w->convt);
    se_free(w);
    free(w);
}

/* Clip's bounds as the fp32 kernel takes them (attributes, then constant
 * inputs, as doubles narrowed to float); not fused when an input bound is
 * computed at run time. */
static void ew_clip_bounds(graph_t *g, const node_t *n, qwrap *w)
{
    double lo = -INFINITY, hi = INFINITY;
    const tensor_t *tl = n->n_in > 1 && n->in[1] >= 0 ? &g->t[n->in[1]] : NULL;
    const tensor_t *th = n->n_in > 2 && n->in[2] >= 0 ? &g->t[n->in[2]] : NULL;

    if ((tl && !tensor_is_const(tl)) || (th && !tensor_is_const(th)))
        return;
    if (node_attr(n, "min"))
        lo = node_attr_float(n, "min", 0);
    if (node_attr(n, "max"))
        hi = node_attr_float(n, "max", 0);
    if (tl && tensor_numel(tl) > 0)
        lo = tensor_get_f64(tl, 0);
    if (th && tensor_numel(th) > 0)
        hi = tensor_get_f64(th, 0);
    w->lo = (float)lo;
    w->hi = (float)hi;
    w->ew = EW_CLIP;
}

/* A MaxPool every window of which holds an input element (no window in the
 * padding alone, where the max is -inf, off every grid): output 0 is a copy
 * of input values. */
static int maxpool_copies(graph_t *g, const node_t *n)
{
    const tensor_t *x = node_input(g, n, 0);
    node_window w;
    char err[160];
    if (strcmp(n->op, "MaxPool") || !x || x->ndim < 3 || x->ndim > 5 ||
        node_window_read(n, x->ndim - 2, NULL, x->dims + 2, &w, err, sizeof(err)))
        return 0;
    return quant_window_covered(&w);
}

/* Ops whose every output value is one of their value inputs' values (copies,
 * Relu's 0, which lies on every grid, and MaxPool where maxpool_copies). Not
 * the other max/min ops: a reduction over nothing gives -inf, off the grid. */
static int copies_values(graph_t *g, const node_t *n)
{
    static const char *const ops[] = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity",
                                      "Transpose", "Slice", "Split", "Concat", "Gather",
                                      "DepthToSpace", "SpaceToDepth", "Tile", "Expand", "Relu",
                                      NULL};
    for (int i = 0; ops[i]; i++)
        if (!strcmp(n->op, ops[i]))
            return 1;
    return (!strcmp(n->op, "Resize") && !strcmp(node_attr_str(n, "mode", "nearest"), "nearest")) ||
           maxpool_copies(g, n);
}

/* Output k of n needs no requantization pass: n only copies values of inputs
 * that a node before it has put on a grid with exactly the output's parameters,
 * and quantize-dequantize is the identity on its own grid (quant_graph_output
 * is idempotent). The numbers are those of the pass; only the time differs. */
static int grid_kept(const quant_graph *q, const node_t *n, int k)
{
    const graph_t *g = q->g;
    int t = n->out[k], nv = !strcmp(n->op, "Concat") ? n->n_in : 1;
    if (q->type != QT_I8 || !copies_values(q->g, n) || t < 0 || !needs_grid(q, t) ||
        (q->t_fp16 && q->t_fp16[t]) || nv < 1)
        return 0;
    for (int i = 0; i < nv; i++) {
        int x = n->in[i];
        if (x < 0 || g->t[x].producer < 0 || !needs_grid(q, x) || (q->t_fp16 && q->t_fp16[x]) ||
            q->act[x].scale != q->act[t].scale || q->act[x].zp != q->act[t].zp)
            return 0;
    }
    return 1;
}

/* w->ew (and its Clip bounds or unary loop) for node n's op; EW_NONE when
 * ew_block does not compute it. */
static void ew_kind(graph_t *g, const node_t *n, qwrap *w)
{
    if (n->n_out == 1 && (!strcmp(n->op, "Add") || !strcmp(n->op, "Sub") ||
                          !strcmp(n->op, "Mul") || !strcmp(n->op, "Div")) && n->n_in == 2)
        w->ew = !strcmp(n->op, "Add") ? EW_ADD : !strcmp(n->op, "Sub") ? EW_SUB
              : !strcmp(n->op, "Mul") ? EW_MUL : EW_DIV;
    else if (n->n_out == 1 && n->n_in == 1 && !strcmp(n->op, "Relu"))
        w->ew = EW_RELU;
    else if (n->n_out == 1 && !strcmp(n->op, "Clip"))
        ew_clip_bounds(g, n, w);
    else if (n->n_out == 1 && n->n_in == 1 && n->in[0] >= 0 &&
             g->t[n->in[0]].dtype == DT_FLOAT && g->t[n->out[0]].dtype == DT_FLOAT &&
             (w->uloop = unary_f32_loop(g, n, &w->upar)))
        w->ew = EW_UNARY;
}

static void wrap_node(quant_graph *q, node_t *n)
{
    qwrap *w = xcalloc(1, sizeof(*w));
    w->def = *n->def;
    w->def.run = qwrap_run;
    w->def.release = qwrap_release;
    w->orig = n->def;
    w->priv = n->priv;
    w->q = q;
    for (int k = 0; k < n->n_out && k < 32; k++)
        if (grid_kept(q, n, k))
            w->on_grid |= 1u << k;
    if (n->def == &quant_op_conv && n->n_out == 1 && needs_grid(q, n->out[0]) &&
        !(q->t_fp16 && q->t_fp16[n->out[0]]) && q->type == QT_I8) {
        quant_node *qn = n->priv;
        qn->out = q->act[n->out[0]];
        qn->out_q = 1;
        w->out0_done = 1;
    }
    ew_kind(q->g, n, w);
    if (q->type == QT_I8 && n->def == exec_find_op(n->domain, "ConvTranspose") &&
        n->n_out == 1 && n->out[0] >= 0 && needs_grid(q, n->out[0]) &&
        !(q->t_fp16 && q->t_fp16[n->out[0]]))
        w->convt = quant_convt_new(q->g, n);
    n->def = &w->def;
    n->priv = w;
    n->chain = &qwrap_chain;
    /* the fp32 kernel runs as it is, then the outputs are requantized in place
     * (ew_run does the same work for its ops): views and Concat may alias */
    n->wraps = w->orig;
}

/* Node n's int8 Conv state, wrapped or not, or NULL. */
static quant_node *conv_qnode(const node_t *n)
{
    if (n->folded || !n->def)
        return NULL;
    if (n->def == &quant_op_conv)
        return n->priv;
    if (n->def->run == qwrap_run && ((const qwrap *)n->priv)->orig == &quant_op_conv)
        return ((const qwrap *)n->priv)->priv;
    return NULL;
}

static void bytes_free(quant_graph *q)
{
    for (int t = 0; q->bytes && t < q->n_alloc; t++)
        free(q->bytes[t]);
    free(q->bytes);
    q->bytes = NULL;
    free(q->bytes_pool);
    q->bytes_pool = NULL;
}

/* Tensor t's bytes, made once (bytes_place lays them out). */
static void bytes_slot(quant_graph *q, int t)
{
    if (q->bytes[t])
        return;
    quant_bytes *b = xcalloc(1, sizeof(*b));
    b->n = tensor_numel(&q->g->t[t]);
    q->bytes[t] = b;
}

/* Bytes of a slot of n values in bytes_place's block (64-byte steps). */
static size_t slot_bytes(int64_t n)
{
    return ((size_t)(n ? n : 1) + 63) / 64 * 64;
}

static int bytes_concat(const quant_graph *q, const node_t *n);

/* Where in byte Concat n's output each input's bytes may lie (at[k], its
 * offset, or -1; returns 0 when none may): the Concat then copies nothing
 * for that input, or maps it in place (concat_bytes). Only where the pieces
 * are whole blocks of the output (nothing before the axis but ones), and
 * for an input that the Concat alone reads (no reader sees its bytes after
 * the Concat mapped them, or a later producer's bytes where they lie). */
static int cat_pieces(const quant_graph *q, const node_t *n, const int *readers, int64_t *at)
{
    const graph_t *g = q->g;
    int t = n->out[0];
    if (!bytes_concat(q, n) || !q->bytes[t] || ((const qwrap *)n->priv)->focus ||
        n->n_in > 64)
        return 0;
    int64_t axis = node_attr_int(n, "axis", 0), sum = 0;
    axis = axis < 0 ? axis + g->t[t].ndim : axis;
    if (axis < 0 || axis >= g->t[t].ndim)
        return 0;
    for (int64_t d = 0; d < axis; d++)
        if (g->t[t].dims[d] != 1)
            return 0;
    for (int k = 0; k < n->n_in; k++) {
        int x = n->in[k];
        at[k] = -1;
        if (x < 0 || !q->bytes[x] || g->t[x].dtype != DT_FLOAT)
            return 0;
        if (readers[x] == 1 && !g->t[x].is_output && x != t)
            at[k] = sum;
        sum += q->bytes[x]->n;
    }
    return sum == q->bytes[t]->n;
}

/* Every slot's bytes in one block, on 2 MB pages when it is large, as the
 * executor's arena (big_alloc): a frame walks them all, as it does its
 * floats (YOLOX-Nano's 12 MB, UltraFace's 3 MB; int8 frames, alternating
 * runs: -2.1 to -2.8 % and -0.8 %). A byte Concat's inputs lie in its
 * output where cat_pieces places them (YOLOX-Nano: 100 µs less a frame at
 * one thread). */
static void bytes_place(quant_graph *q)
{
    const graph_t *g = q->g;
    int *readers = xcalloc((size_t)(q->n_alloc ? q->n_alloc : 1), sizeof(int));
    int *into = xmalloc(sizeof(int) * (size_t)(q->n_alloc ? q->n_alloc : 1));
    int64_t *at = xmalloc(sizeof(int64_t) * (size_t)(q->n_alloc ? q->n_alloc : 1)), piece[64];
    for (int i = 0; i < g->n_nodes; i++) /* folded ones too: a chain reads for them */
        for (int k = 0; k < g->nodes[i].n_in; k++)
            if (g->nodes[i].in[k] >= 0 && g->nodes[i].in[k] < q->n_alloc)
                readers[g->nodes[i].in[k]]++;
    for (int t = 0; t < q->n_alloc; t++)
        into[t] = -1;
    for (int i = 0; i < g->n_nodes; i++)
        if (cat_pieces(q, &g->nodes[i], readers, piece))
            for (int k = 0; k < g->nodes[i].n_in; k++)
                if (piece[k] >= 0)
                    into[g->nodes[i].in[k]] = g->nodes[i].out[0], at[g->nodes[i].in[k]] = piece[k];
    size_t total = 0, off = 0;
    for (int t = 0; t < q->n_alloc; t++)
        if (q->bytes[t] && into[t] < 0)
            total += slot_bytes(q->bytes[t]->n);
    uint8_t *pool = big_alloc(total);
    if (!pool)
        pool = xaligned_alloc(total); /* which reports the lack of memory and exits */
    q->bytes_pool = pool;
    for (int t = 0; t < q->n_alloc; t++)
        if (q->bytes[t] && into[t] < 0) {
            q->bytes[t]->q = pool + off;
            off += slot_bytes(q->bytes[t]->n);
        }
    /* a Concat's output before its inputs: later Concats first (a Concat of
     * a Concat's output lies in that one's piece) */
    for (int i = g->n_nodes - 1; i >= 0; i--) {
        const node_t *n = &g->nodes[i];
        for (int k = 0; !n->folded && k < n->n_in; k++)
            if (n->in[k] >= 0 && n->in[k] < q->n_alloc && n->out[0] >= 0 &&
                into[n->in[k]] == n->out[0])
                q->bytes[n->in[k]]->q = q->bytes[n->out[0]]->q + at[n->in[k]];
    }
    free(readers);
    free(into);
    free(at);
}

/* n is a wrapped int8 Concat whose output goes on its grid (copied values
 * already on it, or requantized by qwrap_run): its output's bytes follow from
 * its inputs' (concat_bytes). */
static int bytes_concat(const quant_graph *q, const node_t *n)
{
    return !n->folded && n->def && n->def->run == qwrap_run && !strcmp(n->op, "Concat") &&
           n->n_out == 1 && n->out[0] >= 0 && n->n_in >= 1 && q->type == QT_I8 &&
           needs_grid(q, n->out[0]) && !(q->t_fp16 && q->t_fp16[n->out[0]]);
}

/* Concat n makes its output's bytes in every private run and never runs its
 * float kernel there (concat_bytes returns 1): a byte Concat whose output
 * only int8 Convs on its grid read, laid out as concat_bytes takes it, each
 * input with bytes that follow from its floats when its producer wrote
 * none. */
static int cat_bytes_only(const quant_graph *q, const node_t *n)
{
    const graph_t *g = q->g;
    if (!bytes_concat(q, n) || !((const qwrap *)n->priv)->cat_bytes || n->n_in > 64)
        return 0;
    int t = n->out[0], axis = cat_axis_bytes_only(q, n);
    const tensor_t *y = &g->t[t];
    int64_t outer = 1, inner = 0;
    if (axis < 0)
        return 0;
    for (int64_t d = 0; d < axis; d++)
        outer *= y->dims[d];
    for (int k = 0; k < n->n_in; k++) {
        const quant_bytes *b = n->in[k] >= 0 ? q->bytes[n->in[k]] : NULL;
        if (!b || !outer || b->n % outer || !cat_bytes_of_floats(q, n->in[k]))
            return 0;
        inner += b->n / outer;
    }
    return inner * outer == q->bytes[t]->n;
}

/* The int8 Conv (its node index) whose activation chain node n could join
 * (node_t.chain, chain_operand): its output of the Conv's shape, each
 * non-constant operand the Conv's output or a chain node's of it; -1 when
 * none. */
static int chain_head_of(const quant_graph *q, const node_t *n, int depth)
{
    const graph_t *g = q->g;
    int head = -1;
    for (int k = 0; k < n->n_in; k++) {
        int t = n->in[k];
        if (t < 0 || g->t[t].kind == TK_CONST)
            continue;
        int p = g->t[t].producer;
        const node_t *pn = p >= 0 && p < g->n_nodes ? &g->nodes[p] : NULL;
        /* a chain node may keep its stock kernel (no output on a grid) */
        int h = !pn ? -1 : conv_qnode(pn) ? p : depth < 8 ? chain_head_of(q, pn, depth + 1) : -1;
        if (h < 0 || (head >= 0 && h != head))
            return -1;
        head = h;
    }
    const node_t *hn = head >= 0 ? &g->nodes[head] : NULL;
    if (!hn || n->n_out < 1 || n->out[0] < 0 || hn->out[0] < 0 ||
        tensor_numel(&g->t[n->out[0]]) != tensor_numel(&g->t[hn->out[0]]))
        return -1;
    return head;
}

/* Operand k of node n is one that ew_run reads in full (the output's shape)
 * and would take as bytes: a standalone int8 elementwise op of two
 * operands that ew_run always runs (its shapes and requantization are ones
 * it handles) and that no Conv's chain can take in (that chain would read
 * no tensor). */
static int ew_byte_operand(const quant_graph *q, const node_t *n, int k)
{
    const graph_t *g = q->g;
    if (n->folded || !n->def || n->def->run != qwrap_run || q->type != QT_I8)
        return 0;
    const qwrap *w = n->priv;
    const qparam_t *qp;
    if ((w->ew != EW_ADD && w->ew != EW_SUB && w->ew != EW_MUL && w->ew != EW_DIV) || k > 1 ||
        n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0 || n->n_out != 1 || n->out[0] < 0 ||
        !ew_qparam(w, n, &qp) || chain_head_of(q, n, 0) >= 0)
        return 0;
    const tensor_t *y = &g->t[n->out[0]];
    int64_t ia = ew_inner_shape(&g->t[n->in[0]], y), ib = ew_inner_shape(&g->t[n->in[1]], y);
    if (y->dtype != DT_FLOAT || ia < 0 || ib < 0 || (ia != 1 && ib != 1))
        return 0;
    return (k == 0 ? ia : ib) == 1;
}

/* The grid on which node n reads its input k (tensor t) as bytes when its
 * producer wrote them, reading no floats then; NULL when it may read the
 * floats. An int8 Conv's data input (its input grid); on the tensor's grid: a
 * ConvTranspose with its kernel, a MaxPool or GlobalAveragePool on bytes, an
 * elementwise op's full operand (ew_byte_operand) and a byte Concat that
 * never runs its float kernel (cat_bytes_only). */
static const qparam_t *byte_reader_grid(const quant_graph *q, const node_t *n, int k, int t)
{
    const quant_node *qn = conv_qnode(n);
    if (qn)
        return k == 0 ? &qn->in : NULL;
    const qwrap *w = n->def && n->def->run == qwrap_run ? n->priv : NULL;
    if (w && k == 0 && ((w->convt_ib && w->convt_ib == q->bytes[t]) || w->mp_bytes ||
                        w->gap_bytes))
        return &q->act[t];
    if (ew_byte_operand(q, n, k) || cat_bytes_only(q, n))
        return &q->act[t];
    return NULL;
}

/* Node n (wrapped as w) is a nearest Resize on its input's grid: it can
 * gather its output's bytes from its input's (resize_bytes). */
static int rz_gathers(graph_t *g, const node_t *n, const qwrap *w)
{
    return !strcmp(n->op, "Resize") && copies_values(g, n) && n->n_out == 1 && (w->on_grid & 1);
}

/* Tensor t can be bytes alone: its producer writes them in place of its
 * floats (an int8 Conv, its chain, an elementwise op or a nearest Resize
 * that gathers them) and every reader
 * reads them, on one grid. An elementwise op's operand or a
 * GlobalAveragePool's input gets bytes only then (where the floats stay, a
 * byte pass more costs more than reading bytes saves). Called before
 * ConvTransposes and Concats take bytes: those readers do not count yet. */
static int bytes_alone(const quant_graph *q, int t)
{
    const graph_t *g = q->g;
    int pi = g->t[t].producer;
    const node_t *pn = pi >= 0 && pi < g->n_nodes ? &g->nodes[pi] : NULL;
    const qwrap *pw = pn && pn->def && pn->def->run == qwrap_run ? pn->priv : NULL;
    if (!pn || g->t[t].is_output || !needs_grid(q, t) || (q->t_fp16 && q->t_fp16[t]) ||
        !(conv_qnode(pn) || (pw && (pw->ew || rz_gathers(q->g, pn, pw)))))
        return 0;
    int seen = 0;
    const qparam_t *rg = NULL;
    for (int i = 0; i < g->n_nodes; i++) {
        const node_t *n = &g->nodes[i];
        for (int k = 0; !n->folded && k < n->n_in; k++) {
            if (n->in[k] != t)
                continue;
            const qparam_t *need = byte_reader_grid(q, n, k, t);
            if (!need || (seen++ && !quant_same_grid(need, rg)))
                return 0;
            rg = need;
        }
    }
    return seen > 0;
}

/* Values per channel below which 256 table entries a channel cost more
 * than they save. */
#define SE_MIN_PLANE 1024

static void se_free(qwrap *w)
{
    if (w->se) {
        free(w->se->tab);
        free(w->se);
    }
    w->se = NULL;
    w->se_by = NULL;
}

/* Node n's wrapper w, a Mul as se_fuse takes it: its se set (and the Add's
 * se_by). */
static void se_link_one(quant_graph *q, node_t *n, qwrap *w)
{
    graph_t *g = q->g;
    if (w->ew != EW_MUL || n->n_in != 2 || n->n_out != 1 || n->out[0] < 0 || n->in[0] < 0 ||
        n->in[1] < 0 || chain_head_of(q, n, 0) >= 0)
        return;
    const tensor_t *m = &g->t[n->out[0]];
    int k = ew_inner_shape(&g->t[n->in[0]], m) == 1 ? 0 : 1, x = n->in[k], h = n->in[1 - k];
    int64_t plane = channel_plane(m), C = m->ndim >= 3 ? m->dims[1] : 0;
    if (m->ndim < 3 || m->dims[0] != 1 || plane < SE_MIN_PLANE ||
        ew_inner_shape(&g->t[x], m) != 1 || ew_inner_shape(&g->t[h], m) != plane ||
        tensor_numel(&g->t[h]) != C || !q->bytes[x] || !needs_grid(q, x) ||
        (q->t_fp16 && q->t_fp16[x]))
        return;
    node_t *add = NULL;
    int only = -1;
    if (!m->is_output && quant_consumers(g, n->out[0], &only) == 1) {
        node_t *a = &g->nodes[only];
        const qwrap *aw = a->def && a->def->run == qwrap_run ? a->priv : NULL;
        if (aw && aw->ew == EW_ADD && a->n_in == 2 && a->n_out == 1 && a->out[0] >= 0 &&
            chain_head_of(q, a, 0) < 0 &&
            ((a->in[0] == x && a->in[1] == n->out[0]) || (a->in[1] == x && a->in[0] == n->out[0])))
            add = a;
    }
    int y = add ? add->out[0] : n->out[0];
    if (!q->bytes[y] || !needs_grid(q, y) || (q->t_fp16 && q->t_fp16[y]))
        return;
    se_fuse *s = xcalloc(1, sizeof(*s));
    *s = (se_fuse){.x = x, .h = h, .y = y, .add = add, .C = C, .plane = plane,
                   .tab = xmalloc(256 * (size_t)C)};
    w->se = s;
    if (add)
        ((qwrap *)add->priv)->se_by = s;
}

typedef struct se_job {
    const se_fuse *s;
    const uint8_t *xb;
    uint8_t *yb;
} se_job;

static void se_range(void *arg, int64_t b, int64_t e)
{
    const se_job *j = arg;
    for (int64_t ch = b; ch < e; ch++)
        quant_bytes_map(j->s->tab + 256 * ch, j->xb + ch * j->s->plane, j->yb + ch * j->s->plane,
                        j->s->plane);
}

/* The Mul (and its Add) by tables, in a private run; 0 when not taken. */
static int se_run(op_ctx *c, graph_t *g, const node_t *n, const qwrap *w)
{
    se_fuse *s = w->se;
    const quant_graph *q = w->q;
    const qparam_t *gy = &q->act[s->y], *qm = NULL, *qa = NULL;
    const tensor_t *h = &g->t[s->h];
    quant_bytes *ob = q->bytes[s->y];
    s->ran = 0;
    const uint8_t *xb = quant_bytes_of_run(c, q->bytes[s->x], s->C * s->plane, &q->act[s->x]);
    if (!xb || !ob->only_bytes || ob->n != s->C * s->plane || !quant_same_grid(&ob->rgrid, gy) ||
        !quant_grid_bytes_exact(gy) || !h->data || h->dtype != DT_FLOAT ||
        (q->bytes[s->h] && q->bytes[s->h]->only_bytes) || !ew_qparam(w, n, &qm) ||
        (s->add && !ew_qparam(s->add->priv, s->add, &qa)) || !(s->add ? qa : qm))
        return 0;
    float xs[256], ms[256], ys[256];
    for (int v = 0; v < 256; v++)
        xs[v] = quant_dq8((int8_t)(v - 128), &q->act[s->x]);
    const int xfirst = s->add && s->add->in[0] == s->x;
    for (int64_t ch = 0; ch < s->C; ch++) {
        const float hc = ((const float *)h->data)[ch];
        uint8_t *t = s->tab + 256 * ch;
        ew_block(w, xs, 1, &hc, 0, NULL, ms, s->add ? NULL : t, 1, 256, qm);
        if (s->add)
            ew_block(s->add->priv, xfirst ? xs : ms, 1, xfirst ? ms : xs, 1, NULL, ys, t, 1,
                     256, qa);
    }
    se_job j = {s, xb, ob->q};
    op_parallel_for_work(c, s->C, s->plane, se_range, &j);
    ob->grid = *gy;
    ob->valid = 1;
    s->ran = s->add != NULL;
    return 1;
}

/* The int8 activations that stay bytes between layers (quant_bytes): a
 * layer's output that an int8 Conv reads gets bytes (every path of the
 * Conv takes them: as byte quads or planes, or centred from them); an int8 Conv writes those of its output (or, running a chain in its
 * epilogue, of the chain's output, qwrap_run_chain). */
static void bytes_link(quant_graph *q)
{
    graph_t *g = q->g;
    bytes_free(q);
    q->bytes = xcalloc((size_t)(q->n_alloc ? q->n_alloc : 1), sizeof(*q->bytes));
    uint8_t *made = xcalloc((size_t)(g->n_t ? g->n_t : 1), 1);
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; !g->nodes[i].folded && k < g->nodes[i].n_out; k++)
            if (g->nodes[i].out[k] >= 0)
                made[g->nodes[i].out[k]] = 1;
    for (int i = 0; i < g->n_nodes; i++) {
        quant_node *qn = conv_qnode(&g->nodes[i]);
        int t = g->nodes[i].n_in > 0 ? g->nodes[i].in[0] : -1;
        if (!qn || t < 0 || !made[t] || g->t[t].dtype != DT_FLOAT)
            continue;
        bytes_slot(q, t);
        qn->ib = q->bytes[t];
    }
    /* a byte Concat's inputs too, later Concats first (a Concat of a
     * Concat's output: nodes are in topological order) */
    for (int i = g->n_nodes - 1; i >= 0; i--) {
        const node_t *n = &g->nodes[i];
        if (!bytes_concat(q, n) || !q->bytes[n->out[0]])
            continue;
        for (int k = 0; k < n->n_in; k++)
            if (n->in[k] >= 0 && made[n->in[k]] && g->t[n->in[k]].dtype == DT_FLOAT)
                bytes_slot(q, n->in[k]);
    }
    /* a ConvTranspose with its kernel reads its input's bytes too */
    for (int i = 0; i < g->n_nodes; i++) {
        node_t *n = &g->nodes[i];
        int x = n->n_in > 0 ? n->in[0] : -1;
        if (n->folded || !n->def || n->def->run != qwrap_run || !((qwrap *)n->priv)->convt ||
            x < 0 || !made[x] || g->t[x].dtype != DT_FLOAT || !needs_grid(q, x) ||
            (q->t_fp16 && q->t_fp16[x]))
            continue;
        bytes_slot(q, x);
        ((qwrap *)n->priv)->convt_ib = q->bytes[x];
    }
    /* a MaxPool that copies values on its input's grid: its input's bytes,
     * on which it runs (maxpool_bytes) */
    for (int i = 0; q->type == QT_I8 && i < g->n_nodes; i++) {
        node_t *n = &g->nodes[i];
        int x = n->n_in > 0 ? n->in[0] : -1;
        if (n->folded || !n->def || n->def->run != qwrap_run || strcmp(n->op, "MaxPool") ||
            n->n_out != 1 || n->out[0] < 0 || x < 0 || !made[x] || !copies_values(g, n) ||
            !needs_grid(q, x) || (q->t_fp16 && q->t_fp16[x]) || g->t[x].ndim != 4)
            continue;
        qwrap *w = n->priv;
        char err[160];
        if (!(w->on_grid & 1) ||
            node_window_read(n, 2, NULL, g->t[x].dims + 2, &w->mp, err, sizeof(err)) ||
            !quant_maxpool_bytes_ok(&w->mp))
            continue;
        bytes_slot(q, x);
        w->mp_bytes = 1;
    }
    /* a GlobalAveragePool can sum its input's bytes (gap_from_bytes) */
    for (int i = 0; i < g->n_nodes; i++) {
        node_t *n = &g->nodes[i];
        int x = n->n_in > 0 ? n->in[0] : -1;
        if (!n->folded && n->def && n->def->run == qwrap_run &&
            !strcmp(n->op, "GlobalAveragePool") && n->n_out == 1 && n->out[0] >= 0 && x >= 0 &&
            made[x] && g->t[x].ndim >= 3 && needs_grid(q, x) && !(q->t_fp16 && q->t_fp16[x]))
            ((qwrap *)n->priv)->gap_bytes = 1;
    }
    /* the operands that an elementwise op or such a pool reads as bytes,
     * when their floats can be left out (bytes_alone) */
    for (int i = 0; i < g->n_nodes; i++) {
        const node_t *n = &g->nodes[i];
        const qwrap *w = !n->folded && n->def && n->def->run == qwrap_run ? n->priv : NULL;
        for (int k = 0; k < n->n_in; k++)
            if ((ew_byte_operand(q, n, k) || (k == 0 && w && w->gap_bytes)) && made[n->in[k]] &&
                bytes_alone(q, n->in[k]))
                bytes_slot(q, n->in[k]);
    }
    /* a nearest Resize on its input's grid whose output has bytes: its
     * input's too, from which it gathers them (resize_bytes) */
    for (int i = g->n_nodes - 1; i >= 0; i--) {
        node_t *n = &g->nodes[i];
        int x = n->n_in > 0 ? n->in[0] : -1;
        if (n->folded || !n->def || n->def->run != qwrap_run || !rz_gathers(g, n, n->priv) ||
            n->out[0] < 0 || !q->bytes[n->out[0]] || x < 0 || !made[x] ||
            g->t[x].dtype != DT_FLOAT)
            continue;
        bytes_slot(q, x);
        ((qwrap *)n->priv)->rz_bytes = 1;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const node_t *n = &g->nodes[i];
        quant_node *qn = conv_qnode(n);
        if (qn && n->n_out == 1 && n->out[0] >= 0)
            qn->ob = q->bytes[n->out[0]];
    }
    for (int i = 0; i < g->n_nodes; i++)
        if (bytes_concat(q, &g->nodes[i]) && q->bytes[g->nodes[i].out[0]])
            ((qwrap *)g->nodes[i].priv)->cat_bytes = 1;
    /* tensors only int8 Convs on one input grid read: every path of such a
     * Conv takes the bytes (conv_in_bytes), none its floats (a ConvTranspose
     * requantized in its kernel, on the tensor's grid, too); and inputs of
     * byte Concats that never run their float kernel (cat_bytes_only), on
     * the input's own grid. A Concat qualifies once its output does: again
     * until nothing changes (a Concat of a Concat's output). */
    for (int changed = 1, round = 0; changed && round < 16; round++) {
        changed = 0;
        for (int t = 0; t < g->n_t; t++) {
            quant_bytes *b = q->bytes[t];
            if (!b || g->t[t].is_output || b->only_bytes)
                continue;
            int ok = 1, seen = 0;
            qparam_t rg = {0};
            for (int i = 0; ok && i < g->n_nodes; i++) {
                const node_t *n = &g->nodes[i];
                for (int k = 0; ok && !n->folded && k < n->n_in; k++) {
                    if (n->in[k] != t)
                        continue;
                    const qparam_t *need = byte_reader_grid(q, n, k, t);
                    ok = need && (!seen || quant_same_grid(need, &rg));
                    if (ok && !seen++)
                        rg = *need;
                }
            }
            if (ok && seen) {
                b->rgrid = rg;
                b->only_bytes = 1;
                changed = 1;
            }
        }
    }
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].folded && g->nodes[i].def && g->nodes[i].def->run == qwrap_run) {
            focus_free(g->nodes[i].priv);
            ((qwrap *)g->nodes[i].priv)->deferred = 0;
        }
    for (int i = 0; q->type == QT_I8 && i < g->n_nodes; i++)
        if (bytes_concat(q, &g->nodes[i]) && ((qwrap *)g->nodes[i].priv)->cat_bytes)
            focus_link(q, &g->nodes[i]);
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].folded && g->nodes[i].def && g->nodes[i].def->run == qwrap_run)
            se_free(g->nodes[i].priv);
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].folded && g->nodes[i].def && g->nodes[i].def->run == qwrap_run)
            se_link_one(q, &g->nodes[i], g->nodes[i].priv);
    bytes_place(q);
    free(made);
}

/* The int8 kernels take weights of zero point 0; a weight with zero points
 * (a cfg's, a pre-quantized model's, QM_NPU's) runs the float kernel on its
 * exact dequantized values, its output rounded to the grid as any float
 * layer's. */
static int weight_has_zp(const quant_graph *q, int t)
{
    for (int c = 0; c < q->wparam_n[t]; c++)
        if (q->wparam[t][c].zp)
            return 1;
    return 0;
}

int quant_graph_finish(quant_graph *q, const qparam_t *act, const uint8_t *has, char *err,
                       size_t errlen)
{
    graph_t *g = q->g;
    /* Passes may have added tensors since quant_graph_new. */
    if (g->n_t > q->n_alloc) {
        grow(q, g->n_t, q->n_alloc);
        q->n_alloc = g->n_t;
    }
    if (g->n_nodes > q->n_nodes_alloc) {
        q->node_fp16 = xrealloc(q->node_fp16, (size_t)g->n_nodes);
        memset(q->node_fp16 + q->n_nodes_alloc, 0, (size_t)(g->n_nodes - q->n_nodes_alloc));
        q->n_nodes_alloc = g->n_nodes;
    }
    free(q->t_fp16);
    q->t_fp16 = xcalloc((size_t)(q->n_alloc ? q->n_alloc : 1), 1);
    for (int t = 0; t < g->n_t; t++) {
        q->has_act[t] = has && has[t];
        if (q->has_act[t])
            q->act[t] = act[t];
    }
    for (int i = 0; i < g->n_nodes; i++)
        for (int o = 0; q->node_fp16[i] && o < g->nodes[i].n_out; o++)
            if (g->nodes[i].out[o] >= 0)
                q->t_fp16[g->nodes[i].out[o]] = 1;
    for (int i = 0; i < g->n_nodes; i++) {
        node_t *n = &g->nodes[i];
        if (n->folded || n->n_out < 1 || n->out[0] < 0)
            continue;
        int t = n->out[0], only = -1;
        if (g->t[t].is_output || quant_consumers(g, t, &only) != 1 || (has && has[t] == QP_HAS_MODEL))
            continue;
        const char *op = g->nodes[only].op;
        if (!strcmp(op, "Relu") || !strcmp(op, "Clip") || !strcmp(op, "LeakyRelu"))
            q->fused[t] = 1;
    }
    int rc = q->type == QT_I8 && q->method == QM_NPU ? quant_npu_requant(q, err, errlen) : RT_OK;
    if (rc)
        return rc;
    for (int i = 0; i < g->n_nodes && q->type == QT_I8; i++) {
        node_t *n = &g->nodes[i];
        if (n->folded || !n->def || n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0)
            continue;
        int xi = n->in[0], wi = n->in[1];
        if (q->node_fp16[i] || !q->wparam[wi] || !q->has_act[xi] || g->t[xi].dtype != DT_FLOAT ||
            g->t[wi].kind != TK_CONST || !g->t[wi].data || weight_has_zp(q, wi) ||
            q->method == QM_NPU)
            continue;
        if (!strcmp(n->op, "Conv") && quant_conv_supported(g, n))
            swap_conv(q, n);
        else if (!strcmp(n->op, "Gemm"))
            swap_mm(q, n, 1);
        else if (!strcmp(n->op, "MatMul"))
            swap_mm(q, n, 0);
    }
    for (int i = 0; i < g->n_nodes; i++) {
        node_t *n = &g->nodes[i];
        int any = 0;
        for (int k = 0; !n->folded && n->def && n->def->run && k < n->n_out; k++)
            any |= n->out[k] >= 0 && needs_grid(q, n->out[k]);
        /* an int8 Conv also when its output stays off a grid for the Relu or
         * Clip after it: it may run that in its epilogue (qwrap_run_chain) */
        if (any || (n->def == &quant_op_conv && n->n_out == 1 && n->out[0] >= 0 &&
                    q->fused[n->out[0]]))
            wrap_node(q, n);
    }
    if (q->type == QT_I8)
        bytes_link(q);
    return RT_OK;
}

void quant_graph_output(const quant_graph *q, int t, float *data)
{
    int64_t n = tensor_numel(&q->g->t[t]);
    if (q->type == QT_FP16 || (q->t_fp16 && q->t_fp16[t])) {
        quant_round_f16(data, n);
        return;
    }
    if (q->type == QT_I8 && !q->fused[t] && q->has_act[t])
        quant_qdq(data, n, &q->act[t]);
}

const char *quant_graph_tensor_qtype(const quant_graph *q, int t, qparam_t *p)
{
    if (t < 0 || t >= q->n_alloc)
        return NULL;
    if (q->type == QT_FP16 || (q->t_fp16 && q->t_fp16[t]))
        return "float16";
    if (q->type == QT_I8 && !q->fused[t] && q->has_act[t]) {
        *p = q->act[t];
        return "asymmetric_quantized-8";
    }
    return NULL;
}

void quant_graph_free(quant_graph *q)
{
    if (!q)
        return;
    for (int t = 0; t < q->n_alloc; t++)
        free(q->wparam[t]);
    free(q->act);
    free(q->has_act);
    free(q->fused);
    free(q->wparam);
    free(q->wparam_n);
    free(q->wparam_axis);
    free(q->node_fp16);
    free(q->t_fp16);
    bytes_free(q);
    free(q);
}
