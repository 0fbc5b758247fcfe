/* runtime/passes/fold_bn.c — folds an inference BatchNormalization into the Conv
 * or Gemm (a Linear) that feeds it, as the vendor toolchain and onnxruntime do:
 *   W'[oc] = W[oc] * s[oc],  B'[oc] = (B[oc] - mean[oc]) * s[oc] + beta[oc],
 *   s = gamma / sqrt(var + eps).
 * The Conv then produces the BatchNormalization's output tensor, so layer
 * events, dumps and golden matching see the BN output under its own name.
 * A Gemm's output channel is its column n (BatchNorm1d after a Linear): Toolkit
 * 2.3.2's rk3576 file of an MLP policy (qin-yuhao/mit_deploy's model.rknn, its
 * model.onnx beside it) has one `Gemm#2` conv per Gemm + BatchNormalization,
 * with the Elu after them fused (`ConvElu`). */
#include "runtime/passes/passes.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_const_f32(const graph_t *g, int t)
{
    return t >= 0 && g->t[t].kind == TK_CONST && g->t[t].dtype == DT_FLOAT && g->t[t].data;
}

/* A new constant float tensor named after base; returns its index. */
static int new_const(graph_t *g, const char *base, int ndim, const int64_t *dims)
{
    char name[512];
    int idx;
    for (int k = 0;; k++) {
        snprintf(name, sizeof(name), "%s_bnfold%s%.0d", base, k ? "_" : "", k);
        if (graph_find_tensor(g, name) < 0)
            break;
    }
    idx = graph_add_tensor(g, name);
    tensor_t *t = &g->t[idx];
    t->kind = TK_CONST;
    t->dtype = DT_FLOAT;
    t->ndim = ndim;
    memcpy(t->dims, dims, sizeof(int64_t) * (size_t)ndim);
    t->data = xaligned_alloc(tensor_nbytes(t));
    return idx;
}

/* Conv weights [oc, ...]: channel o holds a run of `per` values; a Gemm's B is
 * [N, K] with transB, else [K, N] (channel n every N values). */
static int fold_one(graph_t *g, int ci, int bi)
{
    node_t *bn = &g->nodes[bi];
    const node_t *cv = &g->nodes[ci];
    int w = cv->in[1], b = cv->n_in > 2 ? cv->in[2] : -1;
    const attr_t *eps_a = node_attr(bn, "epsilon");
    double eps = eps_a ? eps_a->f : 1e-5;
    int cols = !strcmp(cv->op, "Gemm") && !node_attr_int(cv, "transB", 0);
    int64_t oc = g->t[w].dims[cols ? 1 : 0], per = tensor_numel(&g->t[w]) / (oc ? oc : 1);

    for (int k = 1; k <= 4; k++)
        if (!is_const_f32(g, bn->in[k]) || tensor_numel(&g->t[bn->in[k]]) != oc)
            return 0;
    if (b >= 0 && (!is_const_f32(g, b) || tensor_numel(&g->t[b]) != oc))
        return 0;

    int64_t wdims[MODEL_MAX_DIMS], bdims[1] = {oc};
    int wnd = g->t[w].ndim;
    memcpy(wdims, g->t[w].dims, sizeof(wdims));
    int nw = new_const(g, g->t[w].name, wnd, wdims);
    int nb = new_const(g, b >= 0 ? g->t[b].name : g->t[w].name, 1, bdims);
    /* g->t may have moved: take pointers only now. */
    const float *gamma = g->t[bn->in[1]].data, *beta = g->t[bn->in[2]].data;
    const float *mean = g->t[bn->in[3]].data, *var = g->t[bn->in[4]].data;
    const float *W = g->t[w].data, *B = b >= 0 ? g->t[b].data : NULL;
    float *W2 = g->t[nw].data, *B2 = g->t[nb].data;
    for (int64_t o = 0; o < oc; o++) {
        double s = gamma[o] / sqrt((double)var[o] + eps);
        for (int64_t i = 0; i < per; i++) {
            int64_t at = cols ? i * oc + o : o * per + i;
            W2[at] = (float)(W[at] * s);
        }
        B2[o] = (float)(((B ? B[o] : 0.0) - mean[o]) * s + beta[o]);
    }

    node_t *c = &g->nodes[ci];
    if (c->n_in < 3) {
        c->in = xrealloc(c->in, sizeof(int) * 3);
        c->n_in = 3;
    }
    c->in[1] = nw;
    c->in[2] = nb;
    g->t[c->out[0]].producer = -1;
    c->out[0] = g->nodes[bi].out[0];
    g->t[c->out[0]].producer = ci;
    g->nodes[bi].folded = 1;
    return 1;
}

/* A Gemm whose output is alpha A B + C as a Linear writes it (alpha and beta 1,
 * so the folded bias is C's place): BN's channel is then B's column. */
static int gemm_foldable(const node_t *n)
{
    const attr_t *al = node_attr(n, "alpha"), *be = node_attr(n, "beta");
    return !strcmp(n->op, "Gemm") && (!al || al->f == 1.0f) && (!be || be->f == 1.0f);
}

int passes_fold_batchnorm(graph_t *g)
{
    int *uses = xcalloc((size_t)(g->n_t ? g->n_t : 1), sizeof(int));
    int folded = 0;

    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].folded)
            continue;
        for (int k = 0; k < g->nodes[i].n_in; k++)
            if (g->nodes[i].in[k] >= 0)
                uses[g->nodes[i].in[k]]++;
    }
    for (int i = 0; i < g->n_outputs; i++)
        uses[g->outputs[i]]++;
    for (int bi = 0; bi < g->n_nodes; bi++) {
        node_t *bn = &g->nodes[bi];
        if (bn->folded || strcmp(bn->op, "BatchNormalization") || bn->n_in < 5 || bn->in[0] < 0)
            continue;
        int live_outs = 0;
        for (int k = 0; k < bn->n_out; k++)
            live_outs += bn->out[k] >= 0 && (k == 0 || uses[bn->out[k]]);
        if (live_outs != 1 || node_attr_int(bn, "training_mode", 0))
            continue;
        int x = bn->in[0], ci = g->t[x].producer;
        /* before shape inference (quantization folds first) x may have no
         * dtype yet: a Conv with float weights makes floats */
        if (ci < 0 || uses[x] != 1 || (g->t[x].dtype != DT_FLOAT && g->t[x].dtype != DT_UNDEFINED))
            continue;
        const node_t *cv = &g->nodes[ci];
        if (cv->folded || cv->n_out != 1 || cv->n_in < 2 || !is_const_f32(g, cv->in[1]))
            continue;
        if (strcmp(cv->op, "Conv") ? !gemm_foldable(cv) || g->t[cv->in[1]].ndim != 2
                                   : g->t[cv->in[1]].ndim < 3)
            continue;
        folded += fold_one(g, ci, bi);
    }
    free(uses);
    return folded;
}
