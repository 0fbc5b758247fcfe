/* runtime/quant/prequant.c — pre-quantized (QDQ) ONNX models simulated with
 * their own parameters: the dequantized fp32 graph, the activation parameters
 * of the Q->DQ pairs and the weights' own int8 grid (see quant.h). */
#include "runtime/quant/quant.h"
#include "runtime/exec/kernels.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_op(const node_t *n, const char *op)
{
    return !strcmp(n->op, op) && (!n->domain[0] || !strcmp(n->domain, "ai.onnx"));
}

static const tensor_t *const_in(const graph_t *g, const node_t *n, int k)
{
    if (k >= n->n_in || n->in[k] < 0)
        return NULL;
    const tensor_t *t = &g->t[n->in[k]];
    return t->kind == TK_CONST && t->data ? t : NULL;
}

/* Scale (input 1) and zero point (input 2, optional) are constants. */
static int has_const_params(const graph_t *g, const node_t *n)
{
    const tensor_t *s = const_in(g, n, 1);
    if (!s || s->dtype != DT_FLOAT)
        return 0;
    return n->n_in < 3 || n->in[2] < 0 || const_in(g, n, 2);
}

int quant_prequant_detect(const graph_t *g, const char **op)
{
    static const char *qop[] = {"QLinearConv", "QLinearMatMul", "ConvInteger", "MatMulInteger",
                                "DynamicQuantizeLinear"};
    int kind = QP_NONE;
    if (op)
        *op = NULL;
    for (int i = 0; i < g->n_nodes; i++) {
        const node_t *n = &g->nodes[i];
        int q = !strncmp(n->op, "QLinear", 7);
        for (size_t k = 0; k < sizeof(qop) / sizeof(qop[0]); k++)
            q |= !strcmp(n->op, qop[k]);
        if (q) {
            if (op)
                *op = n->op;
            return QP_QOPERATOR;
        }
        if ((is_op(n, "QuantizeLinear") || is_op(n, "DequantizeLinear")) &&
            has_const_params(g, n))
            kind = QP_QDQ;
    }
    return kind;
}

/* Per-tensor scale and zero point of a Q/DQ node; -1 when per axis or not an
 * int8/uint8 grid. *dt: the quantized type. */
static int pair_params(const graph_t *g, const node_t *n, float *s, int32_t *zp, int *dt)
{
    const tensor_t *ts = const_in(g, n, 1);
    const tensor_t *tz = n->n_in > 2 && n->in[2] >= 0 ? const_in(g, n, 2) : NULL;
    if (!has_const_params(g, n) || tensor_numel(ts) != 1 || (tz && tensor_numel(tz) != 1))
        return -1;
    if (node_attr(n, "output_dtype"))
        return -1; /* opset 21's explicit type: int8/uint8 only through zp here */
    *dt = tz ? tz->dtype : DT_UINT8;
    if (*dt != DT_INT8 && *dt != DT_UINT8)
        return -1;
    *s = ((const float *)ts->data)[0];
    *zp = tz ? (int32_t)tensor_get_int(tz, 0) : 0;
    return *s > 0 && isfinite(*s) ? 0 : -1;
}

/* The simulator's int8 convention: uint8 q - 128. */
static void to_qparam(float s, int32_t zp, int dt, qparam_t *p)
{
    p->scale = s;
    p->zp = dt == DT_UINT8 ? zp - 128 : zp;
    p->min = (float)((-128 - p->zp) * (double)s);
    p->max = (float)((127 - p->zp) * (double)s);
}

static void add_act(quant_prequant *pq, const char *name, const qparam_t *p)
{
    pq->act_name = xrealloc(pq->act_name, sizeof(char *) * (size_t)(pq->n_act + 1));
    pq->act = xrealloc(pq->act, sizeof(qparam_t) * (size_t)(pq->n_act + 1));
    pq->act_name[pq->n_act] = xstrdup(name);
    pq->act[pq->n_act++] = *p;
}

/* DequantizeLinear of a constant into an fp32 constant; 0 if not foldable
 * (left to the passes, which report a bad per-axis scale). */
static int fold_const_dq(graph_t *g, node_t *n, quant_prequant *pq)
{
    const tensor_t *x = const_in(g, n, 0), *ts = const_in(g, n, 1);
    const tensor_t *tz = n->n_in > 2 && n->in[2] >= 0 ? const_in(g, n, 2) : NULL;
    if (!x || !has_const_params(g, n) || n->n_out < 1 || n->out[0] < 0 ||
        (x->dtype != DT_INT8 && x->dtype != DT_UINT8 && x->dtype != DT_INT32) ||
        (tz && tz->dtype != x->dtype) || x->ndim < 0)
        return 0;
    int64_t numel = tensor_numel(x), ns = tensor_numel(ts), inner = 1, nch = 1;
    int axis = -1;
    if (numel < 0 || ns < 1 || (tz && tensor_numel(tz) != ns))
        return 0;
    if (ns > 1) {
        axis = norm_axis(node_attr_int(n, "axis", 1), x->ndim);
        if (axis < 0 || x->dims[axis] != ns || ts->ndim != 1)
            return 0;
        nch = ns;
        inner = dims_prod(x->dims, axis + 1, x->ndim);
    }
    tensor_t *y = &g->t[n->out[0]];
    if (y->is_output || y->kind == TK_INPUT)
        return 0;
    float *d = xmalloc(sizeof(float) * (size_t)(numel ? numel : 1));
    const float *s = ts->data;
    for (int64_t i = 0; i < numel; i++) {
        int64_t c = nch > 1 ? (i / inner) % nch : 0;
        int64_t z = tz ? tensor_get_int(tz, c) : 0;
        d[i] = (float)(tensor_get_int(x, i) - z) * s[c];
    }
    if (x->dtype != DT_INT32) {
        quant_prequant_w *w;
        pq->w = xrealloc(pq->w, sizeof(*pq->w) * (size_t)(pq->n_w + 1));
        w = &pq->w[pq->n_w++];
        w->name = xstrdup(y->name);
        w->n = (int)nch;
        w->axis = axis;
        w->p = xmalloc(sizeof(qparam_t) * (size_t)nch);
        for (int64_t c = 0; c < nch; c++)
            to_qparam(s[c], tz ? (int32_t)tensor_get_int(tz, c) : 0, x->dtype, &w->p[c]);
        w->numel = numel;
        w->data = xmalloc(sizeof(float) * (size_t)(numel ? numel : 1));
        memcpy(w->data, d, sizeof(float) * (size_t)numel);
    }
    free(y->data);
    y->data = d;
    y->kind = TK_CONST;
    y->dtype = DT_FLOAT;
    y->ndim = x->ndim;
    for (int k = 0; k < x->ndim; k++)
        y->dims[k] = x->dims[k];
    pq->n_folded++;
    return 1;
}

static void replace_inputs(graph_t *g, const uint8_t *del, int from, int to)
{
    for (int j = 0; j < g->n_nodes; j++)
        for (int k = 0; !del[j] && k < g->nodes[j].n_in; k++)
            if (g->nodes[j].in[k] == from)
                g->nodes[j].in[k] = to;
}

/* Removes an activation pair X -> Q -> DQ.. -> Y..; 0 if it is not one. */
static int strip_pair(graph_t *g, int qi, uint8_t *del, quant_prequant *pq)
{
    node_t *q = &g->nodes[qi];
    float s, s2;
    int32_t zp, zp2;
    int dt, dt2, n_dq = 0, out_dq = -1, prod = -1;
    if (pair_params(g, q, &s, &zp, &dt) || q->n_in < 1 || q->in[0] < 0 || q->n_out < 1 ||
        q->out[0] < 0)
        return 0;
    int x = q->in[0], z = q->out[0];
    if (g->t[x].kind == TK_CONST || g->t[z].is_output)
        return 0; /* a quantized constant: left to constant folding */
    for (int j = 0; j < g->n_nodes; j++) {
        const node_t *n = &g->nodes[j];
        for (int o = 0; o < n->n_out; o++)
            if (n->out[o] == x)
                prod = j;
        int reads = 0;
        for (int k = 0; k < n->n_in; k++)
            reads |= n->in[k] == z;
        if (!reads || del[j])
            continue;
        if (!is_op(n, "DequantizeLinear") || n->in[0] != z || n->n_out < 1 || n->out[0] < 0 ||
            pair_params(g, n, &s2, &zp2, &dt2) || s2 != s || zp2 != zp || dt2 != dt)
            return 0;
        if (g->t[n->out[0]].is_output) {
            if (out_dq >= 0)
                return 0;
            out_dq = j;
        }
        n_dq++;
    }
    if (!n_dq)
        return 0;
    int keep = x;
    if (out_dq >= 0) {
        /* a graph output keeps its name: X's producer now writes it */
        if (prod < 0 || del[prod] || g->t[x].is_output || g->t[x].kind == TK_INPUT)
            return 0;
        keep = g->nodes[out_dq].out[0];
        for (int o = 0; o < g->nodes[prod].n_out; o++)
            if (g->nodes[prod].out[o] == x)
                g->nodes[prod].out[o] = keep;
    }
    del[qi] = 1;
    for (int j = 0; j < g->n_nodes; j++) {
        const node_t *n = &g->nodes[j];
        if (!del[j] && n->n_in > 0 && n->in[0] == z && is_op(n, "DequantizeLinear"))
            del[j] = 1;
    }
    if (keep != x)
        replace_inputs(g, del, x, keep);
    for (int j = 0; j < g->n_nodes; j++) {
        const node_t *n = &g->nodes[j];
        if (del[j] && n->n_in > 0 && n->in[0] == z && n->n_out > 0 && n->out[0] != keep)
            replace_inputs(g, del, n->out[0], keep);
    }
    qparam_t p;
    to_qparam(s, zp, dt, &p);
    add_act(pq, g->t[keep].name, &p);
    pq->n_pairs++;
    return 1;
}

static void node_clear(node_t *n)
{
    free(n->name);
    free(n->op);
    free(n->domain);
    free(n->in);
    free(n->out);
    for (int j = 0; j < n->n_attr; j++) {
        attr_t *a = &n->attrs[j];
        free(a->name);
        free(a->s);
        free(a->floats);
        free(a->ints);
        for (int k = 0; a->strings && k < a->n; k++)
            free(a->strings[k]);
        free(a->strings);
        if (a->t) {
            free(a->t->name);
            for (int k = 0; k < MODEL_MAX_DIMS; k++)
                free(a->t->dim_param[k]);
            free(a->t->data);
            free(a->t);
        }
    }
    free(n->attrs);
}

int quant_prequant_strip(graph_t *g, quant_prequant *pq, char *err, size_t errlen)
{
    uint8_t *del = xcalloc((size_t)(g->n_nodes ? g->n_nodes : 1), 1);
    int m = 0;

    memset(pq, 0, sizeof(*pq));
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].def) {
            free(del);
            return rt_err(err, errlen, RT_EINVAL, "pre-quantized graph: strip before passes");
        }
    for (int i = 0; i < g->n_nodes; i++)
        if (is_op(&g->nodes[i], "DequantizeLinear") && fold_const_dq(g, &g->nodes[i], pq))
            del[i] = 1;
    for (int i = 0; i < g->n_nodes; i++)
        if (!del[i] && is_op(&g->nodes[i], "QuantizeLinear"))
            strip_pair(g, i, del, pq);
    for (int i = 0; i < g->n_nodes; i++) {
        if (del[i])
            node_clear(&g->nodes[i]);
        else
            g->nodes[m++] = g->nodes[i];
    }
    g->n_nodes = m;
    for (int t = 0; t < g->n_t; t++)
        g->t[t].producer = -1;
    for (int i = 0; i < g->n_nodes; i++)
        for (int o = 0; o < g->nodes[i].n_out; o++)
            if (g->nodes[i].out[o] >= 0)
                g->t[g->nodes[i].out[o]].producer = i;
    free(del);
    return RT_OK;
}

/* The simulator's output-channel axis of weight input 1 (as qgraph.c). */
static int weight_axis(const node_t *n, const tensor_t *w)
{
    if (!strcmp(n->op, "Conv"))
        return 0;
    if (!strcmp(n->op, "ConvTranspose"))
        return w->ndim > 1 ? 1 : 0;
    if (!strcmp(n->op, "Gemm"))
        return node_attr_int(n, "transB", 0) ? 0 : 1;
    return w->ndim - 1;
}

int quant_prequant_weights(const quant_prequant *pq, quant_graph *q)
{
    graph_t *g = q->g;
    int done = 0;
    for (int k = 0; q->type == QT_I8 && k < pq->n_w; k++) {
        const quant_prequant_w *w = &pq->w[k];
        int t = graph_find_tensor(g, w->name), ok = 1;
        if (t < 0 || t >= q->n_alloc || !q->wparam[t] || g->t[t].dtype != DT_FLOAT ||
            tensor_numel(&g->t[t]) != w->numel)
            continue;
        for (int c = 0; c < w->n; c++)
            ok &= w->p[c].zp == 0;
        /* the kernels take one scale per output channel, zp 0 */
        for (int i = 0; ok && w->n > 1 && i < g->n_nodes; i++) {
            const node_t *n = &g->nodes[i];
            if (n->n_in > 1 && n->in[1] == t && weight_axis(n, &g->t[t]) != w->axis)
                ok = 0;
        }
        if (!ok)
            continue;
        qparam_t *p = xmalloc(sizeof(qparam_t) * (size_t)w->n);
        memcpy(p, w->p, sizeof(qparam_t) * (size_t)w->n);
        free(q->wparam[t]);
        q->wparam[t] = p;
        q->wparam_n[t] = w->n;
        q->wparam_axis[t] = w->n > 1 ? w->axis : -1;
        memcpy(g->t[t].data, w->data, sizeof(float) * (size_t)w->numel);
        done++;
    }
    return done;
}

/* Ops whose output values are input values: the input's grid carries over. */
static int moves_data(const node_t *n)
{
    static const char *ops[] = {"Flatten", "Reshape", "Transpose", "Squeeze", "Unsqueeze",
                                "Identity", "MaxPool", "Slice"};
    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
        if (is_op(n, ops[k]))
            return 1;
    return 0;
}

int quant_prequant_acts(const quant_prequant *pq, const graph_t *g, qparam_t *act, uint8_t *has,
                        int calibrated)
{
    uint8_t *from = xcalloc((size_t)(g->n_t ? g->n_t : 1), 1);
    int n = 0;
    for (int k = 0; k < pq->n_act; k++) {
        int t = graph_find_tensor(g, pq->act_name[k]);
        if (t < 0 || g->t[t].dtype != DT_FLOAT)
            continue;
        act[t] = pq->act[k];
        has[t] = from[t] = 1;
        n++;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const node_t *nd = &g->nodes[i];
        if (nd->folded || !moves_data(nd) || nd->n_in < 1 || nd->in[0] < 0 || !from[nd->in[0]])
            continue;
        for (int o = 0; o < nd->n_out; o++) {
            int t = nd->out[o];
            if (t < 0 || from[t] || g->t[t].dtype != DT_FLOAT)
                continue;
            act[t] = act[nd->in[0]];
            has[t] = from[t] = 1;
        }
    }
    if (!calibrated)
        for (int t = 0; t < g->n_t; t++)
            if (!from[t])
                has[t] = 0;
    free(from);
    return n;
}

void quant_prequant_free(quant_prequant *pq)
{
    if (!pq)
        return;
    for (int k = 0; k < pq->n_act; k++)
        free(pq->act_name[k]);
    free(pq->act_name);
    free(pq->act);
    for (int k = 0; k < pq->n_w; k++) {
        free(pq->w[k].name);
        free(pq->w[k].p);
        free(pq->w[k].data);
    }
    free(pq->w);
    memset(pq, 0, sizeof(*pq));
}
