/* runtime/quant/npu_requant.c — QM_NPU: the requantization of the RV1103/RV1106
 * compiler's conv tasks, so that the int8 simulation of an ONNX model computes
 * the integers the NPU computes for the vendor's .rknn of it.
 *
 * What a conv task does (docs/rknn-format.md "Execution on RV110x", found on
 * retinaface.rv1103 and checked there layer by layer):
 *   acc = exact int32 sum over (x - zp_in)(q - zp_w) + round(b / (s_in s_w[c]))
 *   v   = acc * mul[c]                 mul[c] = round(s_w[c] / max s_w * 2^14)
 *   v   = v < 0 ? v * 1638 / 2^14 : v  (LeakyRelu 0.1; Relu clamps)
 *   y   = round(v * OUT / 2^shift) + zp_out
 * with OUT in [2^14, 2^15) and OUT / 2^shift = s_in max s_w / s_out / 2^14.
 * The product mul[c] OUT / 2^shift differs from the exact s_in s_w[c] / s_out
 * by up to 1e-4 (14-bit mul), which moves 0.1-1.3 % of a layer's values by a
 * step; over retinaface's 50 layers that alone takes the outputs from cosine
 * 0.999 to 0.966. Here each output channel's weights and bias are scaled by
 * the ratio of the two, so the float conv (QM_NPU convs run the float kernel
 * on their exact dequantized weights) gives acc * mul[c] OUT / 2^shift in
 * output units, which the output grid then rounds as the NPU does. */
#include "runtime/quant/quant.h"
#include "util/util.h"

#include <math.h>
#include <string.h>

/* n's output tensor's only consumer, or -1. */
static int sole_consumer(const graph_t *g, int t)
{
    int only = -1, count = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].folded)
            continue;
        for (int k = 0; k < g->nodes[i].n_in; k++)
            if (g->nodes[i].in[k] == t) {
                count++;
                only = i;
            }
    }
    return count == 1 && !g->t[t].is_output ? only : -1;
}

/* Times t is read, as a node input. */
static int uses(const graph_t *g, int t)
{
    int count = 0;
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; !g->nodes[i].folded && k < g->nodes[i].n_in; k++)
            count += g->nodes[i].in[k] == t;
    return count;
}

/* The 15-bit output scale and its shift for the largest channel multiplier. */
static void out_cvt(double mmax, double *out, int *shift)
{
    int s = 0;
    while (s < 62 && mmax / 16384.0 * ldexp(1.0, s) < 16384.0)
        s++;
    *shift = s;
    *out = floor(mmax / 16384.0 * ldexp(1.0, s) + 0.5);
}

/* LeakyRelu's slope in 14 bits (round(0.1 * 2^14) = 1638). */
static void slope14(node_t *act)
{
    for (int i = 0; i < act->n_attr; i++)
        if (act->attrs[i].name && !strcmp(act->attrs[i].name, "alpha") &&
            act->attrs[i].type == ATTR_FLOAT)
            act->attrs[i].f = (float)(floor(act->attrs[i].f * 16384.0 + 0.5) / 16384.0);
}

int quant_npu_requant(quant_graph *q, char *err, size_t errlen)
{
    graph_t *g = q->g;
    int done = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        node_t *n = &g->nodes[i];
        if (n->folded || strcmp(n->op, "Conv") || n->n_in < 2 || n->n_out < 1 || n->in[0] < 0 ||
            n->in[1] < 0 || n->out[0] < 0 || q->node_fp16[i])
            continue;
        int xi = n->in[0], wi = n->in[1], bi = n->n_in > 2 ? n->in[2] : -1, yo = n->out[0];
        tensor_t *w = &g->t[wi];
        if (!q->wparam[wi] || !q->has_act[xi] || w->kind != TK_CONST || !w->data ||
            w->ndim < 1 || uses(g, wi) != 1 || (bi >= 0 && uses(g, bi) != 1))
            continue;
        /* the grid the NPU rounds to: the activation's after a fused one */
        int a = q->fused[yo] ? sole_consumer(g, yo) : -1;
        node_t *act = a >= 0 ? &g->nodes[a] : NULL;
        if (act && act->n_out > 0 && act->out[0] >= 0)
            yo = act->out[0];
        if (!q->has_act[yo] || q->fused[yo])
            continue;
        int64_t M = w->dims[0], per = tensor_numel(w) / (M > 0 ? M : 1);
        if (M < 1 || (q->wparam_n[wi] != 1 && q->wparam_n[wi] != M))
            continue;
        double s_in = q->act[xi].scale, s_out = q->act[yo].scale, swmax = 0;
        for (int64_t c = 0; c < M; c++)
            swmax = fmax(swmax, q->wparam[wi][q->wparam_n[wi] > 1 ? c : 0].scale);
        if (!(swmax > 0) || !(s_in > 0) || !(s_out > 0))
            continue;
        double out;
        int shift;
        out_cvt(s_in * swmax / s_out, &out, &shift);
        float *wd = w->data;
        float *bd = bi >= 0 && g->t[bi].kind == TK_CONST && g->t[bi].dtype == DT_FLOAT &&
                            tensor_numel(&g->t[bi]) == M ? g->t[bi].data : NULL;
        for (int64_t c = 0; c < M; c++) {
            double sw = q->wparam[wi][q->wparam_n[wi] > 1 ? c : 0].scale;
            double mul = floor(sw / swmax * 16384.0 + 0.5);
            double r = mul * out / ldexp(1.0, shift) / (s_in * sw / s_out);
            for (int64_t k = 0; k < per; k++)
                wd[c * per + k] = (float)(wd[c * per + k] * r);
            if (bd) /* the bias in accumulator units, as the task's int32 word */
                bd[c] = (float)(floor(bd[c] / (s_in * sw) + 0.5) * s_in * sw * r);
        }
        if (act && !strcmp(act->op, "LeakyRelu"))
            slope14(act);
        /* the float kernel packed the weights in passes_prepare: again */
        if (n->def && n->def->prepare) {
            if (n->def->release)
                n->def->release(n);
            n->priv = NULL;
            int rc = n->def->prepare(g, n, err, errlen);
            if (rc)
                return rc;
        }
        done++;
    }
    q->n_npu_requant = done;
    return RT_OK;
}
