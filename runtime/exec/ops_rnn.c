/* runtime/exec/ops_rnn.c — the recurrent layers of speech and OCR models: RNN,
 * GRU and LSTM (opset 14: layout, every activation, clip, sequence_lens,
 * initial states, peepholes, input_forget, linear_before_reset), fp32.
 *
 * The input projection X·Wᵀ of every step is one GEMM before the loop; each
 * step then multiplies the batch's hidden states by Rᵀ (one GEMM per step and
 * direction) and applies the cell's gate equations (ONNX operator docs; gate
 * orders LSTM i,o,f,c and GRU z,r,h). A batch entry whose sequence is shorter
 * keeps its state after its last step and gets zeros in Y beyond it, as
 * onnxruntime does. */
#include "runtime/exec/kernels.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { A_SIGMOID, A_TANH, A_RELU, A_AFFINE, A_LEAKY, A_THRESH, A_SCALED_TANH, A_HARD_SIGMOID,
       A_ELU, A_SOFTSIGN, A_SOFTPLUS };

typedef struct act {
    int kind;
    float alpha, beta;
} act;

static const struct {
    const char *name;
    int kind, n_params;      /* how many of activation_alpha/beta it takes: 0, 1 (alpha), 2 */
    float alpha, beta;       /* defaults */
} act_names[] = {
    {"Sigmoid", A_SIGMOID, 0, 0, 0},         {"Tanh", A_TANH, 0, 0, 0},
    {"Relu", A_RELU, 0, 0, 0},               {"Affine", A_AFFINE, 2, 1, 0},
    {"LeakyRelu", A_LEAKY, 1, 0.01f, 0},     {"ThresholdedRelu", A_THRESH, 1, 1, 0},
    {"ScaledTanh", A_SCALED_TANH, 2, 1, 1},  {"HardSigmoid", A_HARD_SIGMOID, 2, 0.2f, 0.5f},
    {"Elu", A_ELU, 1, 1, 0},                 {"Softsign", A_SOFTSIGN, 0, 0, 0},
    {"Softplus", A_SOFTPLUS, 0, 0, 0},
};

static inline float act_apply(const act *a, float x)
{
    switch (a->kind) {
    case A_SIGMOID: return 1.0f / (1.0f + expf(-x));
    case A_TANH: return tanhf(x);
    case A_RELU: return x > 0 ? x : 0;
    case A_AFFINE: return a->alpha * x + a->beta;
    case A_LEAKY: return x >= 0 ? x : a->alpha * x;
    case A_THRESH: return x > a->alpha ? x : 0;
    case A_SCALED_TANH: return a->alpha * tanhf(a->beta * x);
    case A_HARD_SIGMOID: {
        float v = a->alpha * x + a->beta;
        return v < 0 ? 0 : v > 1 ? 1 : v;
    }
    case A_ELU: return x >= 0 ? x : a->alpha * (expf(x) - 1);
    case A_SOFTSIGN: return x / (1 + fabsf(x));
    default: return log1pf(expf(x));
    }
}

enum { CELL_RNN, CELL_GRU, CELL_LSTM };

typedef struct rnn_cfg {
    int cell, gates, n_act;      /* gates: 1, 3, 4; activations per direction: 1, 2, 3 */
    int dirs, reverse_only, layout, lbr, input_forget;
    int64_t S, B, nin, H;   /* steps, batch, input size, hidden size */
    float clip;                  /* 0: none */
    act acts[6];
} rnn_cfg;

static int cell_of(const char *op)
{
    return !strcmp(op, "LSTM") ? CELL_LSTM : !strcmp(op, "GRU") ? CELL_GRU : CELL_RNN;
}

static int rnn_config(graph_t *g, const node_t *n, rnn_cfg *c, char *err, size_t errlen)
{
    static const char *const defaults[3][3] = {{"Tanh"}, {"Sigmoid", "Tanh"},
                                               {"Sigmoid", "Tanh", "Tanh"}};
    const tensor_t *x = node_input(g, n, 0), *w = node_input(g, n, 1);
    memset(c, 0, sizeof *c);
    c->cell = cell_of(n->op);
    c->gates = c->cell == CELL_LSTM ? 4 : c->cell == CELL_GRU ? 3 : 1;
    c->n_act = c->cell == CELL_LSTM ? 3 : c->cell == CELL_GRU ? 2 : 1;
    const char *dir = node_attr_str(n, "direction", "forward");
    if (strcmp(dir, "forward") && strcmp(dir, "reverse") && strcmp(dir, "bidirectional"))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "unsupported attribute direction=%s of op %s", dir, n->op);
    c->dirs = strcmp(dir, "bidirectional") ? 1 : 2;
    c->reverse_only = !strcmp(dir, "reverse");
    c->layout = (int)node_attr_int(n, "layout", 0);
    c->lbr = (int)node_attr_int(n, "linear_before_reset", 0);
    c->input_forget = (int)node_attr_int(n, "input_forget", 0);
    c->clip = node_attr_float(n, "clip", 0);
    if (c->layout != 0 && c->layout != 1)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "unsupported attribute layout=%d of op %s", c->layout,
                      n->op);
    if (x->dtype != DT_FLOAT || w->dtype != DT_FLOAT || x->ndim != 3 || w->ndim != 3)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): needs fp32 X and W of rank 3", n->name,
                      n->op);
    c->S = x->dims[c->layout ? 1 : 0];
    c->B = x->dims[c->layout ? 0 : 1];
    c->nin = x->dims[2];
    c->H = node_attr_int(n, "hidden_size", w->dims[1] / c->gates);
    if (w->dims[0] != c->dirs || w->dims[1] != c->gates * c->H || w->dims[2] != c->nin)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): W shape does not match hidden_size %lld",
                      n->name, n->op, (long long)c->H);
    const tensor_t *r = node_input(g, n, 2), *b = node_input(g, n, 3), *p = node_input(g, n, 7);
    if (!r || r->dtype != DT_FLOAT || tensor_numel(r) != c->dirs * c->gates * c->H * c->H)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): R shape does not match", n->name, n->op);
    if (b && (b->dtype != DT_FLOAT || tensor_numel(b) != c->dirs * 2 * c->gates * c->H))
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): B shape does not match", n->name, n->op);
    for (int i = 5; i <= 6; i++) {
        const tensor_t *s = node_input(g, n, i);
        if (s && (s->dtype != DT_FLOAT || tensor_numel(s) != c->dirs * c->B * c->H))
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): initial state shape does not match",
                          n->name, n->op);
    }
    if (c->cell == CELL_LSTM && p && (p->dtype != DT_FLOAT || tensor_numel(p) != c->dirs * 3 * c->H))
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (LSTM): P shape does not match", n->name);
    const tensor_t *sl = node_input(g, n, 4);
    if (sl && ((sl->dtype != DT_INT32 && sl->dtype != DT_INT64) || tensor_numel(sl) != c->B))
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): sequence_lens needs one int per batch entry",
                      n->name, n->op);

    /* activations: n_act per direction; alpha/beta consumed in list order */
    const attr_t *an = node_attr(n, "activations");
    const float *al = NULL, *be = NULL;
    int nal = node_attr_floats(n, "activation_alpha", &al), nbe = node_attr_floats(n, "activation_beta", &be);
    int ia = 0, ib = 0, want = c->n_act * c->dirs;
    if (an && (an->type != ATTR_STRINGS || an->n != want))
        return rt_err(err, errlen, RT_EINVAL, "node '%s' (%s): activations needs %d names", n->name, n->op,
                      want);
    for (int k = 0; k < want; k++) {
        const char *name = an ? an->strings[k] : defaults[c->cell == CELL_LSTM ? 2 : c->cell][k % c->n_act];
        size_t m = 0;
        while (m < sizeof act_names / sizeof act_names[0] && strcasecmp(act_names[m].name, name))
            m++;
        if (m == sizeof act_names / sizeof act_names[0])
            return rt_err(err, errlen, RT_EUNSUPPORTED, "unsupported attribute activations=%s of op %s", name,
                          n->op);
        c->acts[k].kind = act_names[m].kind;
        c->acts[k].alpha = act_names[m].alpha;
        c->acts[k].beta = act_names[m].beta;
        if (act_names[m].n_params >= 1 && ia < nal)
            c->acts[k].alpha = al[ia++];
        if (act_names[m].n_params >= 2 && ib < nbe)
            c->acts[k].beta = be[ib++];
    }
    return RT_OK;
}

static int rnn_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    rnn_cfg c;
    int rc = check_arity(n, 3, cell_of(n->op) == CELL_LSTM ? 8 : 6, 0, err, errlen);
    if (rc || (rc = rnn_config(g, n, &c, err, errlen)))
        return rc;
    int64_t y[4] = {c.S, c.dirs, c.B, c.H}, yl[4] = {c.B, c.S, c.dirs, c.H};
    int64_t h[3] = {c.dirs, c.B, c.H}, hl[3] = {c.B, c.dirs, c.H};
    for (int k = 0; k < n->n_out && k < 3; k++) {
        if (n->out[k] < 0)
            continue;
        if (k == 2 && c.cell != CELL_LSTM)
            return rt_err(err, errlen, RT_EINVAL, "node '%s' (%s): too many outputs", n->name, n->op);
        if (k == 0)
            tensor_set_shape(node_output(g, n, 0), DT_FLOAT, 4, c.layout ? yl : y);
        else
            tensor_set_shape(node_output(g, n, k), DT_FLOAT, 3, c.layout ? hl : h);
    }
    return RT_OK;
}

/* Offset of [t][d][b] rows of Y (H floats each) and of [d][b] rows of a state. */
static int64_t y_row(const rnn_cfg *c, int64_t t, int d, int64_t b)
{
    return c->layout ? (b * c->S + t) * c->dirs + d : (t * c->dirs + d) * c->B + b;
}

static int64_t state_row(const rnn_cfg *c, int d, int64_t b)
{
    return c->layout ? b * c->dirs + d : d * c->B + b;
}

static float clipv(const rnn_cfg *c, float v)
{
    return c->clip > 0 ? (v < -c->clip ? -c->clip : v > c->clip ? c->clip : v) : v;
}

/* One direction d over the whole sequence. xw: [S*B rows in X's order][G*H]
 * input projections; h, cs: [B][H] states (updated); rh: scratch [B][G*H]. */
static void run_direction(const rnn_cfg *c, int d, int reverse, const float *xw, const float *R,
                          const float *Wb, const float *Rb, const float *P, const int64_t *len,
                          float *h, float *cs, float *rh, float *rg, float *Y)
{
    const int64_t G = c->gates, H = c->H, GH = G * H;
    const act *f = &c->acts[d * c->n_act], *gact = f + (c->n_act > 1), *hact = f + (c->n_act > 2 ? 2 : 0);
    for (int64_t s = 0; s < c->S; s++) {
        /* recurrent part for the whole batch: rh = h · Rᵀ (GRU with lbr=0 does
         * its h gate below, after the reset gate) */
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)c->B, (int)GH, (int)H, 1.0f, h, (int)H, R,
                    (int)H, 0.0f, rh, (int)GH);
        for (int64_t b = 0; b < c->B; b++) {
            if (s >= len[b])
                continue;
            int64_t t = reverse ? len[b] - 1 - s : s;
            const float *xp = xw + (c->layout ? b * c->S + t : t * c->B + b) * GH;
            const float *rp = rh + b * GH;
            float *hb = h + b * H;
            if (c->cell == CELL_RNN) {
                for (int64_t i = 0; i < H; i++)
                    hb[i] = act_apply(f, clipv(c, xp[i] + rp[i] + Wb[i] + Rb[i]));
            } else if (c->cell == CELL_LSTM) {
                float *cb = cs + b * H;
                for (int64_t i = 0; i < H; i++) {
                    float pre[4];
                    for (int k = 0; k < 4; k++)
                        pre[k] = xp[k * H + i] + rp[k * H + i] + Wb[k * H + i] + Rb[k * H + i];
                    float ig = act_apply(f, clipv(c, pre[0] + (P ? P[i] * cb[i] : 0)));
                    float fg = c->input_forget ? 1.0f - ig
                                               : act_apply(f, clipv(c, pre[2] + (P ? P[2 * H + i] * cb[i] : 0)));
                    float cg = act_apply(gact, clipv(c, pre[3]));
                    cb[i] = fg * cb[i] + ig * cg;
                    float og = act_apply(f, clipv(c, pre[1] + (P ? P[H + i] * cb[i] : 0)));
                    rg[i] = og * act_apply(hact, cb[i]);
                }
                memcpy(hb, rg, sizeof(float) * (size_t)H);
            } else { /* GRU */
                float *z = rg, *r = rg + H;
                for (int64_t i = 0; i < H; i++) {
                    z[i] = act_apply(f, clipv(c, xp[i] + rp[i] + Wb[i] + Rb[i]));
                    r[i] = act_apply(f, clipv(c, xp[H + i] + rp[H + i] + Wb[H + i] + Rb[H + i]));
                }
                float *hh = rg + 2 * H;
                if (c->lbr) {
                    for (int64_t i = 0; i < H; i++)
                        hh[i] = xp[2 * H + i] + r[i] * (rp[2 * H + i] + Rb[2 * H + i]) + Wb[2 * H + i];
                } else {
                    /* (r ⊙ h) · Rhᵀ: Rh is the last H rows of R */
                    float *rx = rg + 3 * H;
                    for (int64_t i = 0; i < H; i++)
                        rx[i] = r[i] * hb[i];
                    cblas_sgemv(CblasRowMajor, CblasNoTrans, (int)H, (int)H, 1.0f, R + 2 * H * H, (int)H, rx, 1,
                                0.0f, hh, 1);
                    for (int64_t i = 0; i < H; i++)
                        hh[i] += xp[2 * H + i] + Rb[2 * H + i] + Wb[2 * H + i];
                }
                for (int64_t i = 0; i < H; i++) {
                    float ht = act_apply(gact, clipv(c, hh[i]));
                    hb[i] = (1 - z[i]) * ht + z[i] * hb[i];
                }
            }
            if (Y)
                memcpy(Y + y_row(c, t, d, b) * H, hb, sizeof(float) * (size_t)H);
        }
    }
}

static int rnn_run(op_ctx *oc, graph_t *g, node_t *n)
{
    rnn_cfg c;
    int rc = rnn_config(g, n, &c, oc->err, oc->errlen);
    if (rc)
        return rc;
    const tensor_t *x = node_input(g, n, 0), *w = node_input(g, n, 1), *r = node_input(g, n, 2);
    const tensor_t *bias = node_input(g, n, 3), *sl = node_input(g, n, 4), *h0 = node_input(g, n, 5);
    const tensor_t *c0 = c.cell == CELL_LSTM ? node_input(g, n, 6) : NULL;
    const tensor_t *peep = c.cell == CELL_LSTM ? node_input(g, n, 7) : NULL;
    tensor_t *Y = n->n_out > 0 && n->out[0] >= 0 ? node_output(g, n, 0) : NULL;
    tensor_t *Yh = n->n_out > 1 && n->out[1] >= 0 ? node_output(g, n, 1) : NULL;
    tensor_t *Yc = n->n_out > 2 && n->out[2] >= 0 ? node_output(g, n, 2) : NULL;
    const int64_t G = c.gates, H = c.H, GH = G * H, SB = c.S * c.B;
    int64_t *len = xmalloc(sizeof(int64_t) * (size_t)(c.B + 1));
    float *xw = xmalloc(sizeof(float) * (size_t)(SB * GH + 1));
    float *h = xmalloc(sizeof(float) * (size_t)(c.B * H + 1)), *cs = xcalloc((size_t)(c.B * H + 1), sizeof(float));
    float *rh = xmalloc(sizeof(float) * (size_t)(c.B * GH + 1)), *rg = xmalloc(sizeof(float) * (size_t)(4 * H + 1));
    float *zero_b = xcalloc((size_t)(2 * GH + 1), sizeof(float));

    for (int64_t b = 0; b < c.B; b++) {
        len[b] = sl ? tensor_get_int(sl, b) : c.S;
        if (len[b] < 0 || len[b] > c.S) {
            rc = rt_err(oc->err, oc->errlen, RT_EINVAL, "node '%s' (%s): sequence_lens[%lld] = %lld outside [0, %lld]",
                        n->name, n->op, (long long)b, (long long)len[b], (long long)c.S);
            goto out;
        }
    }
    if (Y)
        memset(Y->data, 0, tensor_nbytes(Y));
    for (int d = 0; d < c.dirs; d++) {
        const float *W = (const float *)w->data + d * GH * c.nin, *R = (const float *)r->data + d * GH * H;
        const float *Wb = bias ? (const float *)bias->data + d * 2 * GH : zero_b, *Rb = Wb == zero_b ? zero_b : Wb + GH;
        const float *P = peep ? (const float *)peep->data + d * 3 * H : NULL;
        if (SB > 0)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)SB, (int)GH, (int)c.nin, 1.0f, x->data,
                        (int)c.nin, W, (int)c.nin, 0.0f, xw, (int)GH);
        for (int64_t b = 0; b < c.B; b++) {
            const float *hs = h0 ? (const float *)h0->data + state_row(&c, d, b) * H : NULL;
            const float *csrc = c0 ? (const float *)c0->data + state_row(&c, d, b) * H : NULL;
            for (int64_t i = 0; i < H; i++) {
                h[b * H + i] = hs ? hs[i] : 0;
                cs[b * H + i] = csrc ? csrc[i] : 0;
            }
        }
        run_direction(&c, d, d == 1 || c.reverse_only, xw, R, Wb, Rb, P, len, h, cs, rh, rg,
                      Y ? Y->data : NULL);
        for (int64_t b = 0; b < c.B; b++) {
            if (Yh)
                memcpy((float *)Yh->data + state_row(&c, d, b) * H, h + b * H, sizeof(float) * (size_t)H);
            if (Yc)
                memcpy((float *)Yc->data + state_row(&c, d, b) * H, cs + b * H, sizeof(float) * (size_t)H);
        }
    }
out:
    free(len), free(xw), free(h), free(cs), free(rh), free(rg), free(zero_b);
    return rc;
}

const op_def exec_ops_rnn[] = {
    {"RNN", "", rnn_infer, NULL, rnn_run, NULL, NULL},
    {"GRU", "", rnn_infer, NULL, rnn_run, NULL, NULL},
    {"LSTM", "", rnn_infer, NULL, rnn_run, NULL, NULL},
    {0},
};
