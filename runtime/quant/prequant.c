/* runtime/quant/prequant.c — pre-quantized ONNX models simulated with their
 * own parameters: the dequantized fp32 graph, the activation parameters of the
 * Q->DQ pairs and the weights' own int8 grid (see quant.h). A QOperator model
 * (QLinearConv/MatMul, com.microsoft QLinearAdd/Mul/GlobalAveragePool/Sigmoid/
 * LeakyRelu) is first rewritten into the QDQ form. */
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

/* ---- QOperator -> QDQ ---------------------------------------------------
 * Each QLinear* node becomes DequantizeLinear of its operands -> the float op
 * -> QuantizeLinear with its own output parameters; the strip below then
 * handles the model as a QDQ one. A node's output tensor keeps its name on the
 * float side (the name the accuracy rows are matched by), the quantized side
 * is a new "<name>_quantized" (a graph output stays quantized under its name). */
typedef struct qop_form {
    const char *op, *fop;
    int n_ops;   /* (x, scale, zp) triples from input 0; output (scale, zp) next */
    int keep;    /* the float op takes the node's attributes */
} qop_form;

static const qop_form qop_forms[] = {
    {"QLinearConv", "Conv", 2, 1},
    {"QLinearMatMul", "MatMul", 2, 0},
    {"QLinearAdd", "Add", 2, 0},
    {"QLinearMul", "Mul", 2, 0},
    {"QLinearGlobalAveragePool", "GlobalAveragePool", 1, 0},
    {"QLinearSigmoid", "Sigmoid", 1, 0},
    {"QLinearLeakyRelu", "LeakyRelu", 1, 1},
};

static int is_qop(const node_t *n)
{
    static const char *qop[] = {"ConvInteger", "MatMulInteger", "DynamicQuantizeLinear"};
    if (!strncmp(n->op, "QLinear", 7))
        return 1;
    for (size_t k = 0; k < sizeof(qop) / sizeof(qop[0]); k++)
        if (!strcmp(n->op, qop[k]))
            return 1;
    return 0;
}

static const qop_form *qop_form_of(const node_t *n)
{
    if (n->domain[0] && strcmp(n->domain, "ai.onnx") && strcmp(n->domain, "com.microsoft"))
        return NULL;
    for (size_t k = 0; k < sizeof(qop_forms) / sizeof(qop_forms[0]); k++)
        if (!strcmp(n->op, qop_forms[k].op))
            return &qop_forms[k];
    return NULL;
}

static const tensor_t *in_t(const graph_t *g, const node_t *n, int k)
{
    return k < n->n_in && n->in[k] >= 0 ? &g->t[n->in[k]] : NULL;
}

/* Constant scale (float, > 0) of ns values and optional zp (int8/uint8). */
static int qop_params_ok(const graph_t *g, const node_t *n, int k, int64_t ns)
{
    const tensor_t *s = const_in(g, n, k), *z = in_t(g, n, k + 1);
    if (!s || s->dtype != DT_FLOAT || tensor_numel(s) != ns)
        return 0;
    for (int64_t c = 0; c < ns; c++)
        if (!(((const float *)s->data)[c] > 0) || !isfinite(((const float *)s->data)[c]))
            return 0;
    if (z && (z->kind != TK_CONST || !z->data || tensor_numel(z) != ns ||
              (z->dtype != DT_INT8 && z->dtype != DT_UINT8)))
        return 0;
    return 1;
}

/* The per-channel axis of a constant weight operand (Conv: 0, MatMul: last). */
static int qop_w_axis(const qop_form *f, const tensor_t *w)
{
    return !strcmp(f->fop, "Conv") ? 0 : w->ndim - 1;
}

static int qop_rewritable(const graph_t *g, const node_t *n)
{
    const qop_form *f = qop_form_of(n);
    if (!f || n->n_out != 1 || n->out[0] < 0 || n->n_in < 3 * f->n_ops + 1)
        return 0;
    for (int k = 0; k < f->n_ops; k++) {
        const tensor_t *x = in_t(g, n, 3 * k);
        int64_t ns = 1;
        if (!x)
            return 0;
        /* a constant weight of Conv/MatMul may have a scale per output channel */
        if (k == 1 && (!strcmp(f->fop, "Conv") || !strcmp(f->fop, "MatMul")) &&
            x->kind == TK_CONST && x->data && x->ndim > 0) {
            const tensor_t *s = const_in(g, n, 3 * k + 1);
            if (s && tensor_numel(s) > 1) {
                ns = x->dims[qop_w_axis(f, x)];
                if (s->ndim != 1)
                    return 0;
            }
        }
        if (!qop_params_ok(g, n, 3 * k + 1, ns))
            return 0;
    }
    if (!qop_params_ok(g, n, 3 * f->n_ops, 1))
        return 0;
    if (!strcmp(n->op, "QLinearGlobalAveragePool") && node_attr_int(n, "channels_last", 0))
        return 0;
    if (!strcmp(n->op, "QLinearConv") && n->n_in > 8 && n->in[8] >= 0) {
        const tensor_t *b = const_in(g, n, 8), *w = in_t(g, n, 3);
        if (!b || b->dtype != DT_INT32 || w->ndim < 1 || tensor_numel(b) != w->dims[0])
            return 0;
    } else if (n->n_in > 3 * f->n_ops + 2) {
        return 0;
    }
    return 1;
}

/* A new tensor named base + suffix (made unique). */
static int qop_new_tensor(graph_t *g, const char *base, const char *suffix)
{
    size_t len = strlen(base) + strlen(suffix) + 16;
    char *name = xmalloc(len);
    snprintf(name, len, "%s%s", base, suffix);
    for (int k = 1; graph_find_tensor(g, name) >= 0; k++)
        snprintf(name, len, "%s%s_%d", base, suffix, k);
    int t = graph_add_tensor(g, name);
    free(name);
    return t;
}

static int qop_new_const(graph_t *g, const char *base, const char *suffix, int dt, int ndim,
                         const int64_t *dims, void *data)
{
    int t = qop_new_tensor(g, base, suffix);
    tensor_t *x = &g->t[t];
    x->kind = TK_CONST;
    x->dtype = dt;
    x->ndim = ndim;
    for (int k = 0; k < ndim; k++)
        x->dims[k] = dims[k];
    x->data = data;
    return t;
}

static int qop_add_node(graph_t *g, const char *base, const char *op, int n_in, const int *in,
                        int out, int axis)
{
    size_t len = strlen(base) + 32;
    char *name = xmalloc(len);
    snprintf(name, len, "%s/%s", base, op);
    int i = graph_add_node(g, name, op, "", n_in, in, 1, &out);
    free(name);
    if (axis >= 0) {
        node_t *n = &g->nodes[i];
        n->attrs = xcalloc(1, sizeof(attr_t));
        n->n_attr = 1;
        n->attrs[0].name = xstrdup("axis");
        n->attrs[0].type = ATTR_INT;
        n->attrs[0].i = axis;
    }
    return i;
}

static void qop_drop_attrs(node_t *n)
{
    node_t tmp = {0};
    tmp.attrs = n->attrs;
    tmp.n_attr = n->n_attr;
    node_clear(&tmp);
    n->attrs = NULL;
    n->n_attr = 0;
}

/* Output y of node i: the float op now writes a float tensor, a
 * QuantizeLinear(scale s, zp z) the quantized one its readers take. */
static void qop_requantize(graph_t *g, int i, int s, int z, int zdt)
{
    int y = g->nodes[i].out[0], yf, yq;
    const char *nname = g->nodes[i].name;
    char *base = xstrdup(nname);
    if (z < 0) {
        int64_t none = 0;
        z = qop_new_const(g, g->t[y].name, "_zero_point", zdt, 0, &none, xcalloc(1, 1));
    }
    zdt = g->t[z].dtype;
    if (g->t[y].is_output) {
        yq = y;
        yf = qop_new_tensor(g, g->t[y].name, "_float");
    } else {
        yf = y;
        yq = qop_new_tensor(g, g->t[y].name, "_quantized");
        for (int j = 0; j < g->n_nodes; j++)
            for (int k = 0; j != i && k < g->nodes[j].n_in; k++)
                if (g->nodes[j].in[k] == y)
                    g->nodes[j].in[k] = yq;
    }
    g->t[yq].dtype = zdt;
    g->t[yf].dtype = DT_FLOAT;
    g->t[yq].ndim = g->t[yf].ndim = g->t[y].ndim;
    for (int k = 0; k < MODEL_MAX_DIMS; k++)
        g->t[yq].dims[k] = g->t[yf].dims[k] = g->t[y].dims[k];
    g->nodes[i].out[0] = yf;
    g->t[yf].producer = i;
    int qin[3] = {yf, s, z};
    qop_add_node(g, base, "QuantizeLinear", 3, qin, yq, -1);
    free(base);
}

/* DequantizeLinear(x, s, z) into a new float tensor. */
static int qop_dequantize(graph_t *g, const char *base, int x, int s, int z, int axis)
{
    int xf = qop_new_tensor(g, g->t[x].name, "_dequantized");
    int in[3] = {x, s, z};
    g->t[xf].dtype = DT_FLOAT;
    qop_add_node(g, base, "DequantizeLinear", z >= 0 ? 3 : 2, in, xf, axis);
    return xf;
}

static void qop_rewrite(graph_t *g, int i)
{
    const qop_form *f = qop_form_of(&g->nodes[i]);
    node_t *n = &g->nodes[i];
    int in[9], fin[3], nf = 0, zdt = DT_UINT8;
    char *base = xstrdup(n->name);
    int is_conv = !strcmp(f->fop, "Conv");

    for (int k = 0; k < 9; k++)
        in[k] = k < n->n_in ? n->in[k] : -1;
    /* an omitted output zp takes the operands' type (uint8 without any) */
    for (int k = f->n_ops - 1; k >= 0; k--)
        if (in[3 * k + 2] >= 0)
            zdt = g->t[in[3 * k + 2]].dtype;
    for (int k = 0; k < f->n_ops; k++) {
        int x = in[3 * k], s = in[3 * k + 1], axis = -1;
        if (tensor_numel(&g->t[s]) > 1)
            axis = qop_w_axis(f, &g->t[x]);
        fin[nf++] = qop_dequantize(g, base, x, s, in[3 * k + 2], axis);
    }
    n = &g->nodes[i];
    if (is_conv && in[8] >= 0) {
        /* int32 bias -> B * x_scale * w_scale per output channel, in float */
        const tensor_t *b = &g->t[in[8]], *ws = &g->t[in[4]];
        float xs = ((const float *)g->t[in[1]].data)[0];
        int64_t m = tensor_numel(b), nws = tensor_numel(ws);
        float *d = xmalloc(sizeof(float) * (size_t)(m ? m : 1));
        for (int64_t c = 0; c < m; c++)
            d[c] = (float)((const int32_t *)b->data)[c] *
                   (xs * ((const float *)ws->data)[nws > 1 ? c : 0]);
        fin[nf++] = qop_new_const(g, g->t[in[8]].name, "_float", DT_FLOAT, 1, &m, d);
        n = &g->nodes[i];
    }
    free(n->op);
    free(n->domain);
    n->op = xstrdup(f->fop);
    n->domain = xstrdup("");
    n->n_in = nf;
    for (int k = 0; k < nf; k++)
        n->in[k] = fin[k];
    if (!f->keep)
        qop_drop_attrs(n);
    qop_requantize(g, i, in[3 * f->n_ops], in[3 * f->n_ops + 1], zdt);
    free(base);
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

static int qop_producer(const graph_t *g, int t)
{
    for (int j = 0; t >= 0 && j < g->n_nodes; j++)
        for (int o = 0; o < g->nodes[j].n_out; o++)
            if (g->nodes[j].out[o] == t)
                return j;
    return -1;
}

/* A data-movement op on a quantized tensor (the output of a QuantizeLinear)
 * runs on the dequantized values and is quantized again with the same
 * parameters, so that the strip sees pairs around it. */
static void qop_wrap_move(graph_t *g, int i)
{
    node_t *n = &g->nodes[i];
    float s;
    int32_t zp;
    int dt, used = 0;
    for (int o = 0; o < n->n_out; o++)
        used += n->out[o] >= 0;
    if (!moves_data(n) || n->n_in < 1 || n->in[0] < 0 || used != 1 || n->out[0] < 0)
        return;
    int p = qop_producer(g, n->in[0]);
    if (p < 0 || !is_op(&g->nodes[p], "QuantizeLinear") ||
        pair_params(g, &g->nodes[p], &s, &zp, &dt))
        return;
    int qs = g->nodes[p].in[1], qz = g->nodes[p].n_in > 2 ? g->nodes[p].in[2] : -1;
    char *base = xstrdup(n->name);
    int xf = qop_dequantize(g, base, g->nodes[i].in[0], qs, qz, -1);
    g->nodes[i].in[0] = xf;
    qop_requantize(g, i, qs, qz, dt);
    free(base);
}

/* Rewrites a QOperator model whose QOperator nodes all have a float form;
 * returns the number rewritten (0: none, or some QOperator node has none). */
static int qop_to_qdq(graph_t *g, char *err, size_t errlen)
{
    int n0 = g->n_nodes, n_qop = 0;
    for (int i = 0; i < n0; i++) {
        if (!is_qop(&g->nodes[i]))
            continue;
        if (!qop_rewritable(g, &g->nodes[i]))
            return 0;
        n_qop++;
    }
    if (!n_qop)
        return 0;
    /* in the file's (topological) order: a data-movement op finds the
     * QuantizeLinear its input now comes from */
    for (int i = 0; i < n0; i++) {
        if (is_qop(&g->nodes[i]))
            qop_rewrite(g, i);
        else
            qop_wrap_move(g, i);
    }
    int rc = graph_toposort(g, err, errlen);
    return rc ? rc : n_qop;
}

int quant_prequant_detect(const graph_t *g, const char **op)
{
    int kind = QP_NONE;
    if (op)
        *op = NULL;
    for (int i = 0; i < g->n_nodes; i++) {
        const node_t *n = &g->nodes[i];
        if (is_qop(n)) {
            /* rewritten into QDQ by quant_prequant_strip */
            if (qop_rewritable(g, n)) {
                kind = QP_QDQ;
                continue;
            }
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

int quant_prequant_strip(graph_t *g, quant_prequant *pq, char *err, size_t errlen)
{
    uint8_t *del;
    int m = 0, rc;

    memset(pq, 0, sizeof(*pq));
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].def)
            return rt_err(err, errlen, RT_EINVAL, "pre-quantized graph: strip before passes");
    rc = qop_to_qdq(g, err, errlen);
    if (rc < 0)
        return rc;
    del = xcalloc((size_t)(g->n_nodes ? g->n_nodes : 1), 1);
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
        /* one scale per output channel, on the axis the kernels take it (a
         * weight with zero points runs the float kernel, qgraph.c) */
        for (int i = 0; ok && w->n > 1 && i < g->n_nodes; i++) {
            const node_t *n = &g->nodes[i];
            if (n->n_in > 1 && n->in[1] == t && quant_weight_axis(n, &g->t[t]) != w->axis)
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
        has[t] = QP_HAS_MODEL;
        from[t] = 1;
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
            has[t] = QP_HAS_MODEL;
            from[t] = 1;
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
