/* int8 Conv and Gemm kernels against a direct double-precision oracle written
 * here: the same int8 values (q - zp) * q_w summed exactly, plus the int32
 * bias, times s_in * s_w. Depthwise, grouped, pointwise, 5x5 stride 2, and a
 * layer whose sums need the double GEMM. Elementwise ops with their
 * requantization, and a Conv's activation chain run after it block by block,
 * against the node-by-node run. ConvTranspose against the fp32 kernel's
 * requantized output. */
#include "runtime/exec/exec.h"
#include "runtime/passes/passes.h"
#include "runtime/quant/quant.h"
#include "tests/test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int add_const(graph_t *g, const char *name, int ndim, const int64_t *dims, const float *v)
{
    int t = graph_add_tensor(g, name);
    tensor_t *x = &g->t[t];
    x->dtype = DT_FLOAT;
    x->ndim = ndim;
    memcpy(x->dims, dims, sizeof(int64_t) * (size_t)ndim);
    x->kind = TK_CONST;
    x->data = malloc(tensor_nbytes(x));
    memcpy(x->data, v, tensor_nbytes(x));
    return t;
}

/* The graph's one input: float [dims]. */
static int add_input(graph_t *g, const int64_t *dims)
{
    int xi = graph_add_tensor(g, "x");
    g->t[xi].dtype = DT_FLOAT;
    g->t[xi].ndim = 4;
    memcpy(g->t[xi].dims, dims, sizeof(int64_t) * 4);
    g->t[xi].kind = TK_INPUT;
    g->inputs = malloc(sizeof(int));
    g->inputs[0] = xi;
    g->n_inputs = 1;
    return xi;
}

/* The graph's one output: tensor t. */
static void set_output(graph_t *g, int t)
{
    g->t[t].is_output = 1;
    g->outputs = malloc(sizeof(int));
    g->outputs[0] = t;
    g->n_outputs = 1;
    g->opset = 13;
}

static void set_ints(node_t *n, const char *name, int cnt, const int64_t *v)
{
    n->attrs = realloc(n->attrs, sizeof(attr_t) * (size_t)(n->n_attr + 1));
    attr_t *a = &n->attrs[n->n_attr++];
    memset(a, 0, sizeof(*a));
    a->name = strdup(name);
    a->type = cnt == 1 ? ATTR_INT : ATTR_INTS;
    a->i = v[0];
    a->n = cnt;
    a->ints = malloc(sizeof(int64_t) * (size_t)cnt);
    memcpy(a->ints, v, sizeof(int64_t) * (size_t)cnt);
}

/* One Conv: X [N, C, H, W] (values in [-1, 2]), W [M, C/G, K, K] (every weight
 * +-0.5 when `big`, so that 255 * sum|w| >= 2^24 and the double GEMM runs),
 * bias, pads pd (top, left, bottom, right), stride st, group G, dilation dl;
 * the int8 kernel vs the oracle. */
static void conv_case_pads(int N, int C, int M, int G, int H, int W, int K, int st,
                           const int pd[4], int big, int dl)
{
    char err[512];
    int OH = (H + pd[0] + pd[2] - dl * (K - 1) - 1) / st + 1;
    int OW = (W + pd[1] + pd[3] - dl * (K - 1) - 1) / st + 1, cg = C / G, mg = M / G;
    int nx = N * C * H * W, nw = M * cg * K * K;
    float *x = malloc(sizeof(float) * (size_t)nx), *w = malloc(sizeof(float) * (size_t)nw);
    float *b = malloc(sizeof(float) * (size_t)M);
    for (int i = 0; i < nx; i++)
        x[i] = (float)((i * 7919 % 97) / 97.0 * 3.0 - 1.0); /* [-1, 2] */
    for (int i = 0; i < nw; i++)
        w[i] = big ? (i % 2 ? 0.5f : -0.5f)
                   : (float)(((i * 31) % 17) / 17.0 - 0.45) * (i < nw / 2 ? 1.0f : 0.1f);
    for (int m = 0; m < M; m++)
        b[m] = (float)(0.37 - 0.29 * m);

    graph_t *g = graph_new();
    int64_t xd[4] = {N, C, H, W}, wd[4] = {M, cg, K, K}, bd[1] = {M};
    int xi = add_input(g, xd);
    int wi = add_const(g, "w", 4, wd, w), bi = add_const(g, "b", 1, bd, b);
    int yi = graph_add_tensor(g, "y");
    int in[3] = {xi, wi, bi};
    int ni = graph_add_node(g, "conv", "Conv", "", 3, in, 1, &yi);
    int64_t pads[4] = {pd[0], pd[1], pd[2], pd[3]}, strides[2] = {st, st}, group = G;
    set_ints(&g->nodes[ni], "pads", 4, pads);
    set_ints(&g->nodes[ni], "strides", 2, strides);
    set_ints(&g->nodes[ni], "group", 1, &group);
    int64_t dils[2] = {dl, dl};
    set_ints(&g->nodes[ni], "dilations", 2, dils);
    set_output(g, yi);

    quant_graph *q = NULL;
    CHECK(quant_graph_new(g, QT_I8, QM_CHANNEL, &q, err, sizeof(err)) == 0, "%s", err);
    /* weights are now on their grid: keep the parameters for the oracle */
    qparam_t *wp = malloc(sizeof(qparam_t) * (size_t)M);
    memcpy(wp, q->wparam[wi], sizeof(qparam_t) * (size_t)M);
    int rc = passes_prepare(g, NULL, 0, err, sizeof(err));
    CHECK(rc == 0, "prepare: %s", err);
    qparam_t *act = calloc((size_t)g->n_t, sizeof(*act));
    uint8_t *has = calloc((size_t)g->n_t, 1);
    quant_param_from_range(-1.0f, 2.0f, &act[xi]);
    has[xi] = 1;
    CHECK(quant_graph_finish(q, act, has, err, sizeof(err)) == 0, "%s", err);
    CHECK(q->n_int8_nodes == 1, "int8 nodes %d", q->n_int8_nodes);
    const quant_node *qn = g->nodes[ni].priv;
    CHECK(!!big == !!(qn && qn->wd), "case C%d M%d G%d: double GEMM %d, want %d", C, M, G,
          qn && qn->wd, big);

    exec_t *x_ = NULL;
    exec_opts eo = {.nthreads = 2, .exact_threads = 1};
    CHECK(exec_create(g, &eo, &x_, err, sizeof(err)) == 0, "%s", err);
    CHECK(exec_set_input(x_, 0, x, sizeof(float) * (size_t)nx, err, sizeof(err)) == 0, "%s", err);
    CHECK(exec_run(x_, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
    const float *y = exec_output(x_, 0)->data;

    /* Oracle. */
    double maxerr = 0;
    for (int n = 0; n < N; n++)
    for (int m = 0; m < M; m++) {
        double s = (double)act[xi].scale * wp[m].scale;
        int64_t bq = llround(b[m] / s);
        int grp = m / mg;
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++) {
                int64_t acc = bq;
                for (int ci = 0; ci < cg; ci++)
                    for (int kh = 0; kh < K; kh++)
                        for (int kw = 0; kw < K; kw++) {
                            int ih = oh * st - pd[0] + kh * dl, iw = ow * st - pd[1] + kw * dl;
                            if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                                continue;
                            int c = grp * cg + ci;
                            int xq = quant_q8(x[((n * C + c) * H + ih) * W + iw], &act[xi]) -
                                     act[xi].zp;
                            int wq = quant_q8(w[((m * cg + ci) * K + kh) * K + kw], &wp[m]);
                            acc += (int64_t)xq * wq;
                        }
                double want = (double)acc * s, got = y[((n * M + m) * OH + oh) * OW + ow];
                double e = fabs(want - got) / (fabs(want) > 1 ? fabs(want) : 1);
                if (e > maxerr)
                    maxerr = e;
            }
    }
    CHECK(maxerr < 1e-6, "int8 conv C%d M%d G%d K%d s%d vs oracle: max rel error %g", C, M, G, K,
          st, maxerr);
    exec_free(x_);
    quant_graph_free(q);
    graph_free(g);
    free(act);
    free(has);
    free(wp);
    free(x);
    free(w);
    free(b);
}

static void conv_case_nd(int N, int C, int M, int G, int H, int W, int K, int st, int p, int big,
                         int dl)
{
    const int pd[4] = {p, p, p, p};
    conv_case_pads(N, C, M, G, H, W, K, st, pd, big, dl);
}

static void conv_case_d(int C, int M, int G, int H, int W, int K, int st, int p, int big, int dl)
{
    conv_case_nd(1, C, M, G, H, W, K, st, p, big, dl);
}

static void conv_case(int C, int M, int G, int H, int W, int K, int st, int p, int big)
{
    conv_case_d(C, M, G, H, W, K, st, p, big, 1);
}

/* Elementwise ops with their requantization (run block by block by the
 * quantized graph's wrapper): Add with a per-channel constant, Relu, Clip,
 * Mul by a scalar, Div by a full tensor, Sub from a scalar; every output is a
 * graph output (so none is fused) and must equal, bit for bit, the oracle
 * dq8(q8(op(inputs))) computed here value by value. The tensor is big enough
 * for several blocks and both threads. */
static void ew_case(void)
{
    char err[512];
    enum { C = 4, H = 61, W = 129, NX = C * H * W };
    static float x[NX], want[6][NX];
    float cc[C] = {0.3f, -0.7f, 1.1f, 0.05f}, two = 1.7f, lo = 0.1f, hi = 1.3f, k = 0.9f;
    for (int i = 0; i < NX; i++)
        x[i] = (float)((i * 7919 % 1013) / 1013.0 * 3.0 - 1.0) + (i % 3 ? 0.0f : 1e-3f);

    graph_t *g = graph_new();
    int64_t xd[4] = {1, C, H, W}, cd[4] = {1, C, 1, 1}, sd[1] = {1};
    int xi = add_input(g, xd);
    int ci = add_const(g, "c", 4, cd, cc), si = add_const(g, "s", 1, sd, &two);
    int li = add_const(g, "lo", 0, sd, &lo), hii = add_const(g, "hi", 0, sd, &hi);
    int ki = add_const(g, "k", 1, sd, &k);
    const char *ops[6] = {"Add", "Relu", "Clip", "Mul", "Div", "Sub"};
    int t[6];
    for (int o = 0; o < 6; o++) {
        char name[16];
        snprintf(name, sizeof(name), "y%d", o);
        t[o] = graph_add_tensor(g, name);
    }
    int in0[2] = {xi, ci}, in1[1] = {t[0]}, in2[3] = {t[1], li, hii}, in3[2] = {t[2], si};
    int in4[2] = {t[3], xi}, in5[2] = {ki, t[4]};
    graph_add_node(g, "add", "Add", "", 2, in0, 1, &t[0]);
    graph_add_node(g, "relu", "Relu", "", 1, in1, 1, &t[1]);
    graph_add_node(g, "clip", "Clip", "", 3, in2, 1, &t[2]);
    graph_add_node(g, "mul", "Mul", "", 2, in3, 1, &t[3]);
    graph_add_node(g, "div", "Div", "", 2, in4, 1, &t[4]);
    graph_add_node(g, "sub", "Sub", "", 2, in5, 1, &t[5]);
    g->outputs = malloc(sizeof(int) * 6);
    for (int o = 0; o < 6; o++) {
        g->t[t[o]].is_output = 1;
        g->outputs[o] = t[o];
    }
    g->n_outputs = 6;
    g->opset = 13;

    quant_graph *q = NULL;
    CHECK(quant_graph_new(g, QT_I8, QM_CHANNEL, &q, err, sizeof(err)) == 0, "%s", err);
    CHECK(passes_prepare(g, NULL, 0, err, sizeof(err)) == 0, "prepare: %s", err);
    qparam_t *act = calloc((size_t)g->n_t, sizeof(*act));
    uint8_t *has = calloc((size_t)g->n_t, 1);
    const float rng[7][2] = {{-1, 2}, {-1, 3}, {0, 3}, {0, 1.3f}, {0, 2.3f}, {-40, 40}, {-40, 40}};
    quant_param_from_range(rng[0][0], rng[0][1], &act[xi]);
    has[xi] = 1;
    for (int o = 0; o < 6; o++) {
        quant_param_from_range(rng[o + 1][0], rng[o + 1][1], &act[t[o]]);
        has[t[o]] = 1;
    }
    CHECK(quant_graph_finish(q, act, has, err, sizeof(err)) == 0, "%s", err);

    /* oracle: the input on its grid, then each op in float and requantized */
    static float xq[NX];
    for (int i = 0; i < NX; i++) {
        xq[i] = quant_dq8(quant_q8(x[i], &act[xi]), &act[xi]);
        float v[6];
        v[0] = xq[i] + cc[i / (H * W)];
        v[0] = quant_dq8(quant_q8(v[0], &act[t[0]]), &act[t[0]]);
        v[1] = v[0] > 0 ? v[0] : 0;
        v[1] = quant_dq8(quant_q8(v[1], &act[t[1]]), &act[t[1]]);
        v[2] = v[1] < lo ? lo : v[1] > hi ? hi : v[1];
        v[2] = quant_dq8(quant_q8(v[2], &act[t[2]]), &act[t[2]]);
        v[3] = quant_dq8(quant_q8(v[2] * two, &act[t[3]]), &act[t[3]]);
        v[4] = quant_dq8(quant_q8(v[3] / xq[i], &act[t[4]]), &act[t[4]]);
        v[5] = quant_dq8(quant_q8(k - v[4], &act[t[5]]), &act[t[5]]);
        for (int o = 0; o < 6; o++)
            want[o][i] = v[o];
    }
    exec_t *x_ = NULL;
    exec_opts eo = {.nthreads = 2, .exact_threads = 1};
    CHECK(exec_create(g, &eo, &x_, err, sizeof(err)) == 0, "%s", err);
    CHECK(exec_set_input(x_, 0, xq, sizeof(xq), err, sizeof(err)) == 0, "%s", err);
    CHECK(exec_run(x_, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
    for (int o = 0; o < 6; o++) {
        const float *y = exec_output(x_, o)->data;
        int bad = 0;
        for (int i = 0; i < NX; i++)
            bad += memcmp(&y[i], &want[o][i], sizeof(float)) != 0;
        CHECK(bad == 0, "int8 %s: %d of %d values differ from the oracle", ops[o], bad, NX);
    }
    exec_free(x_);
    quant_graph_free(q);
    graph_free(g);
    free(act);
    free(has);
}

static int count_events(const layer_event_t *ev, void *user)
{
    (void)ev;
    ++*(int *)user;
    return 0;
}

/* A Conv's activation chain in the int8 graph: x * Sigmoid(x) (CH_SILU),
 * PP-LCNet's x * Clip(x + 3, 0, 6) / 6 (CH_HSWISH), Relu, Clip(-1, 1.5) or a
 * Clip whose min exceeds its max (CH_CLIP_INV, which the fp32 kernel maps to
 * its min below it and its max elsewhere), with every tensor given a grid. A
 * run without a hook runs the chain with the conv (node_t.chain: from its
 * epilogue, as a table of its grid or by the ops; its nodes report no event)
 * and its output, a graph output on its grid, equals bit for bit the
 * node-by-node run's. Conv geometry as in conv_case_d, over every kernel path
 * (`big`: the double GEMM). */
enum { CH_SILU, CH_HSWISH, CH_RELU, CH_CLIP, CH_CLIP_INV };

static void chain_case(int act, int C, int M, int G, int H, int W, int K, int st, int p, int big)
{
    static const char *const names[] = {"silu", "hswish", "relu", "clip", "clip min > max"};
    char err[512];
    int OH = (H + 2 * p - K) / st + 1, OW = (W + 2 * p - K) / st + 1, cg = C / G;
    int nx = C * H * W, ny = M * OH * OW, nw = M * cg * K * K;
    float *x = malloc(sizeof(float) * (size_t)nx), *w = malloc(sizeof(float) * (size_t)nw);
    float *ref = malloc(sizeof(float) * (size_t)ny), *b = malloc(sizeof(float) * (size_t)M);
    float three = 3.0f, zero = 0.0f, six = 6.0f, clo = act == CH_CLIP ? -1.0f : 1.5f;
    float chi = act == CH_CLIP ? 1.5f : -1.0f;
    for (int i = 0; i < nx; i++)
        x[i] = (float)((i * 7919 % 1013) / 1013.0 * 3.0 - 1.0);
    for (int i = 0; i < nw; i++)
        w[i] = big ? (i % 2 ? 0.5f : -0.5f) : (float)(((i * 31) % 17) / 17.0 - 0.45);
    for (int m = 0; m < M; m++)
        b[m] = (float)(0.37 - 0.29 * m);

    graph_t *g = graph_new();
    int64_t xd[4] = {1, C, H, W}, wd[4] = {M, cg, K, K}, bd[1] = {M}, sd[1] = {1};
    int xi = add_input(g, xd);
    int wi = add_const(g, "w", 4, wd, w), bi = add_const(g, "b", 1, bd, b);
    int t[5], nt = act == CH_HSWISH ? 5 : act == CH_SILU ? 3 : 2;
    for (int k = 0; k < nt; k++) {
        char name[16];
        snprintf(name, sizeof name, "t%d", k);
        t[k] = graph_add_tensor(g, name);
    }
    int cin[3] = {xi, wi, bi};
    int64_t pads[4] = {p, p, p, p}, strides[2] = {st, st}, group = G;
    int cn = graph_add_node(g, "conv", "Conv", "", 3, cin, 1, &t[0]);
    set_ints(&g->nodes[cn], "pads", 4, pads);
    set_ints(&g->nodes[cn], "strides", 2, strides);
    set_ints(&g->nodes[cn], "group", 1, &group);
    if (act == CH_HSWISH) {
        int a[2] = {t[0], add_const(g, "three", 0, sd, &three)};
        int c[3] = {t[1], add_const(g, "zero", 0, sd, &zero), add_const(g, "six", 0, sd, &six)};
        int m[2] = {t[0], t[2]}, d[2] = {t[3], add_const(g, "six2", 0, sd, &six)};
        graph_add_node(g, "add3", "Add", "", 2, a, 1, &t[1]);
        graph_add_node(g, "clip", "Clip", "", 3, c, 1, &t[2]);
        graph_add_node(g, "mul", "Mul", "", 2, m, 1, &t[3]);
        graph_add_node(g, "div6", "Div", "", 2, d, 1, &t[4]);
    } else if (act == CH_SILU) {
        int m[2] = {t[0], t[1]};
        graph_add_node(g, "sig", "Sigmoid", "", 1, &t[0], 1, &t[1]);
        graph_add_node(g, "mul", "Mul", "", 2, m, 1, &t[2]);
    } else if (act == CH_RELU) {
        graph_add_node(g, "relu", "Relu", "", 1, &t[0], 1, &t[1]);
    } else {
        int c[3] = {t[0], add_const(g, "lo", 0, sd, &clo), add_const(g, "hi", 0, sd, &chi)};
        graph_add_node(g, "clip", "Clip", "", 3, c, 1, &t[1]);
    }
    int yi = t[nt - 1];
    set_output(g, yi);

    quant_graph *q = NULL;
    CHECK(quant_graph_new(g, QT_I8, QM_CHANNEL, &q, err, sizeof(err)) == 0, "%s", err);
    CHECK(passes_prepare(g, NULL, 0, err, sizeof(err)) == 0, "prepare: %s", err);
    qparam_t *act_p = calloc((size_t)g->n_t, sizeof(*act_p));
    uint8_t *has = calloc((size_t)g->n_t, 1);
    quant_param_from_range(-1, 2, &act_p[xi]);
    has[xi] = 1;
    for (int k = 0; k < nt; k++) {
        quant_param_from_range(-3.0f - k, 4.0f + k, &act_p[t[k]]);
        has[t[k]] = 1;
    }
    CHECK(quant_graph_finish(q, act_p, has, err, sizeof(err)) == 0, "%s", err);
    CHECK(q->n_int8_nodes == 1, "%s: int8 nodes %d", names[act], q->n_int8_nodes);
    for (int i = 0; i < nx; i++)
        x[i] = quant_dq8(quant_q8(x[i], &act_p[xi]), &act_p[xi]);

    exec_t *ex = NULL;
    exec_opts eo = {.nthreads = 2, .exact_threads = 1};
    int events = 0, timed = 0;
    size_t bytes = sizeof(float) * (size_t)ny;
    CHECK(exec_create(g, &eo, &ex, err, sizeof(err)) == 0, "%s", err);
    CHECK(exec_set_input(ex, 0, x, sizeof(float) * (size_t)nx, err, sizeof(err)) == 0, "%s", err);
    CHECK(exec_run(ex, count_events, &events, err, sizeof(err)) == 0, "%s", err);
    memcpy(ref, exec_output(ex, 0)->data, bytes);
    memset(exec_output(ex, 0)->data, 0xff, bytes); /* NaN until written again */
    CHECK(exec_run_timed(ex, count_events, &timed, err, sizeof(err)) == 0, "%s", err);
    CHECK(events == nt && timed == 1, "%s: %d events node by node, %d fused (want %d and 1)",
          names[act], events, timed, nt);
    int bad = 0, off = 0;
    const float *y = exec_output(ex, 0)->data;
    for (int i = 0; i < ny; i++) {
        bad += memcmp(&y[i], &ref[i], sizeof(float)) != 0;
        off += quant_dq8(quant_q8(ref[i], &act_p[yi]), &act_p[yi]) != ref[i];
    }
    CHECK(bad == 0, "%s chain, conv C%d M%d G%d K%d s%d%s: %d of %d values differ from the "
          "node-by-node run", names[act], C, M, G, K, st, big ? " (double)" : "", bad, ny);
    CHECK(off == 0, "%s chain: %d outputs off their grid", names[act], off);
    exec_free(ex);
    quant_graph_free(q);
    graph_free(g);
    free(act_p);
    free(has);
    free(x);
    free(w);
    free(ref);
    free(b);
}

/* int8 activations handed on as bytes (quant_bytes): x -> conv A (C -> M1,
 * K1, its activation: none, Relu (the Relu's grid clamps in A's epilogue) or
 * SiLU (a table, on its own grid), or a Concat of A's output with itself on
 * another grid (a table) or on A's (copies)) -> conv B (M1 or 2 M1 -> M2, K2,
 * stride s2, group G2: byte quads, depthwise on byte planes or centred
 * floats, grouped) -> output. A run without a hook reads
 * A's bytes in B (checked: the bytes are valid after it, and are the
 * floats' q + 128 on B's input grid), and its output equals bit for bit the
 * node-by-node run's, which quantizes A's floats; A's floats and B's output
 * are those of the AVX2 path too (its epilogue is not the VNNI tiles'). */
enum { HB_NONE, HB_RELU, HB_SILU, HB_CAT, HB_CAT_SAME };

static void bytes_case(int act, int C, int M1, int K1, int M2, int K2, int s2, int G2, int H,
                       int W)
{
    static const char *const names[] = {"none", "relu", "silu", "concat", "concat, one grid"};
    char err[512];
    int nx = C * H * W, OH = (H - 1) / s2 + 1, OW = (W - 1) / s2 + 1;
    int Mb = act >= HB_CAT ? 2 * M1 : M1; /* B's input channels */
    int na = Mb * H * W, ny = M2 * OH * OW, nw1 = M1 * C * K1 * K1, nw2 = M2 * (Mb / G2) * K2 * K2;
    float *x = malloc(sizeof(float) * (size_t)nx), *w1 = malloc(sizeof(float) * (size_t)nw1);
    float *w2 = malloc(sizeof(float) * (size_t)nw2), *ref = malloc(sizeof(float) * (size_t)ny);
    float *b1 = malloc(sizeof(float) * (size_t)M1), *b2 = malloc(sizeof(float) * (size_t)M2);
    for (int i = 0; i < nx; i++)
        x[i] = (float)((i * 7919 % 1013) / 1013.0 * 3.0 - 1.0);
    for (int i = 0; i < nw1; i++)
        w1[i] = (float)(((i * 31) % 17) / 17.0 - 0.45);
    for (int i = 0; i < nw2; i++)
        w2[i] = (float)(((i * 13) % 23) / 23.0 - 0.5);
    for (int m = 0; m < M1; m++)
        b1[m] = (float)(0.37 - 0.029 * m);
    for (int m = 0; m < M2; m++)
        b2[m] = (float)(-0.1 + 0.013 * m);

    graph_t *g = graph_new();
    int64_t xd[4] = {1, C, H, W}, wd1[4] = {M1, C, K1, K1}, wd2[4] = {M2, Mb / G2, K2, K2};
    int64_t bd1[1] = {M1}, bd2[1] = {M2};
    int xi = add_input(g, xd);
    int ta = graph_add_tensor(g, "a"), tr = graph_add_tensor(g, "r"), ts = graph_add_tensor(g, "s");
    int tm = graph_add_tensor(g, "m"), ty = graph_add_tensor(g, "y");
    int in1[3] = {xi, add_const(g, "w1", 4, wd1, w1), add_const(g, "b1", 1, bd1, b1)};
    int64_t p1 = K1 / 2, p2 = K2 / 2, pads1[4] = {p1, p1, p1, p1}, pads2[4] = {p2, p2, p2, p2};
    int64_t one[2] = {1, 1}, st2[2] = {s2, s2}, grp = G2;
    int c1 = graph_add_node(g, "convA", "Conv", "", 3, in1, 1, &ta);
    set_ints(&g->nodes[c1], "pads", 4, pads1);
    set_ints(&g->nodes[c1], "strides", 2, one);
    int tb = ta; /* B's input */
    if (act == HB_RELU) {
        graph_add_node(g, "relu", "Relu", "", 1, &ta, 1, &tr);
        tb = tr;
    } else if (act == HB_SILU) {
        int m[2] = {ta, ts};
        graph_add_node(g, "sig", "Sigmoid", "", 1, &ta, 1, &ts);
        graph_add_node(g, "mul", "Mul", "", 2, m, 1, &tm);
        tb = tm;
    } else if (act >= HB_CAT) {
        int two[2] = {ta, ta};
        int64_t axis = 1;
        int cn = graph_add_node(g, "cat", "Concat", "", 2, two, 1, &tm);
        set_ints(&g->nodes[cn], "axis", 1, &axis);
        tb = tm;
    }
    int in2[3] = {tb, add_const(g, "w2", 4, wd2, w2), add_const(g, "b2", 1, bd2, b2)};
    int c2 = graph_add_node(g, "convB", "Conv", "", 3, in2, 1, &ty);
    set_ints(&g->nodes[c2], "pads", 4, pads2);
    set_ints(&g->nodes[c2], "strides", 2, st2);
    set_ints(&g->nodes[c2], "group", 1, &grp);
    set_output(g, ty);

    quant_graph *q = NULL;
    CHECK(quant_graph_new(g, QT_I8, QM_CHANNEL, &q, err, sizeof(err)) == 0, "%s", err);
    CHECK(passes_prepare(g, NULL, 0, err, sizeof(err)) == 0, "prepare: %s", err);
    qparam_t *ap = calloc((size_t)g->n_t, sizeof(*ap));
    uint8_t *has = calloc((size_t)g->n_t, 1);
    int ts_all[6] = {xi, ta, tr, ts, tm, ty};
    for (int k = 0; k < 6; k++) {
        quant_param_from_range(-1.5f - 0.25f * k, 2.5f + 0.5f * k, &ap[ts_all[k]]);
        has[ts_all[k]] = 1;
    }
    if (act == HB_CAT_SAME)
        ap[tm] = ap[ta];
    CHECK(quant_graph_finish(q, ap, has, err, sizeof(err)) == 0, "%s", err);
    for (int i = 0; i < nx; i++)
        x[i] = quant_dq8(quant_q8(x[i], &ap[xi]), &ap[xi]);

    exec_t *ex = NULL;
    exec_opts eo = {.nthreads = 2, .exact_threads = 1};
    int events = 0;
    size_t bytes = sizeof(float) * (size_t)ny;
    CHECK(exec_create(g, &eo, &ex, err, sizeof(err)) == 0, "%s", err);
    CHECK(exec_set_input(ex, 0, x, sizeof(float) * (size_t)nx, err, sizeof(err)) == 0, "%s", err);
    float *fa = malloc(sizeof(float) * (size_t)na); /* B's input, node by node */
    for (int rep = 0; rep < 2; rep++) { /* a hooked run after a private one reads floats */
        CHECK(exec_run(ex, count_events, &events, err, sizeof(err)) == 0, "%s", err);
        memcpy(ref, exec_output(ex, 0)->data, bytes);
        memcpy(fa, g->t[tb].data, sizeof(float) * (size_t)na);
        memset(exec_output(ex, 0)->data, 0xff, bytes); /* NaN until written again */
        CHECK(exec_run(ex, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
        const float *y = exec_output(ex, 0)->data;
        int bad = 0;
        for (int i = 0; i < ny; i++)
            bad += memcmp(&y[i], &ref[i], sizeof(float)) != 0;
        CHECK(bad == 0, "bytes (%s), conv B M%d K%d s%d G%d: %d of %d values differ from the "
              "node-by-node run", names[act], M2, K2, s2, G2, bad, ny);
    }
    /* A wrote the bytes B read (a 3x3 A on RT_QISA=float runs the implicit
     * GEMM, whose epilogue writes none) */
    const quant_bytes *qb = q->bytes ? q->bytes[tb] : NULL;
    CHECK(qb && (qb->valid || (K1 > 1 && quant_isa() < QISA_AVX2)), "bytes (%s): %s",
          names[act], !qb ? "B's input has no bytes" : "not written");
    /* B alone reads them: A may leave its floats unwritten */
    CHECK(qb && qb->only_bytes, "bytes (%s): B's input not marked bytes-only", names[act]);
    if (qb && qb->valid) {
        int bad = 0;
        for (int i = 0; i < na; i++)
            bad += qb->q[i] != (uint8_t)(quant_q8(fa[i], &ap[tb]) + 128);
        CHECK(bad == 0, "bytes (%s): %d of %d bytes are not the floats' q + 128", names[act], bad,
              na);
    }
    /* the AVX2 path requantizes through the epilogue over rows of sums in
     * memory, the VNNI one in its tiles' registers: the same floats of A and
     * of B's output */
    quant_isa_force(QISA_AVX2);
    CHECK(exec_run(ex, count_events, &events, err, sizeof(err)) == 0, "%s", err);
    int bad2 = 0, bada = 0;
    for (int i = 0; i < ny; i++)
        bad2 += memcmp(&((const float *)exec_output(ex, 0)->data)[i], &ref[i], sizeof(float)) != 0;
    for (int i = 0; i < na; i++)
        bada += memcmp(&((const float *)g->t[tb].data)[i], &fa[i], sizeof(float)) != 0;
    CHECK(bad2 == 0 && bada == 0, "bytes (%s), conv B M%d K%d s%d G%d: the AVX2 path differs in "
          "%d of %d outputs, %d of %d of A's", names[act], M2, K2, s2, G2, bad2, ny, bada, na);
    quant_isa_force(QISA_AUTO);
    free(fa);
    exec_free(ex);
    quant_graph_free(q);
    graph_free(g);
    free(ap);
    free(has);
    free(x);
    free(w1);
    free(w2);
    free(ref);
    free(b1);
    free(b2);
}

/* The graph of one ConvTranspose: X [1, C, H, W] in [0, 2] (a Relu's
 * output: zp -128, many zeros), W [C, M, k, k] (per output channel), stride
 * s, with a bias when `bias`; the fp32 graph gets the int8 graph's weights.
 * Returns the node's output tensor. */
static int convt_graph(graph_t *g, int C, int M, int H, int W, int k, int s, int bias,
                       const float *wv, const float *bv)
{
    int64_t xd[4] = {1, C, H, W}, wd[4] = {C, M, k, k}, bd[1] = {M};
    int in[3] = {add_input(g, xd), add_const(g, "w", 4, wd, wv), -1};
    if (bias)
        in[2] = add_const(g, "b", 1, bd, bv);
    int y = graph_add_tensor(g, "y");
    int ni = graph_add_node(g, "ct", "ConvTranspose", "", bias ? 3 : 2, in, 1, &y);
    int64_t ks[2] = {k, k}, st[2] = {s, s};
    set_ints(&g->nodes[ni], "kernel_shape", 2, ks);
    set_ints(&g->nodes[ni], "strides", 2, st);
    set_output(g, y);
    return y;
}

/* An int8 ConvTranspose keeps the float semantics of its fp32 kernel (its
 * sums are not exact integers, qconvt.c): its output equals bit for bit the
 * fp32 graph's run on the dequantized input and the int8 graph's weights,
 * each value then quantized and dequantized by the output grid. Kernel ==
 * stride (requantized in the kernel on AVX-512 CPUs: 4 and 96 GEMM rows, two
 * threads over several row blocks) and kernel != stride (the fp32 kernel,
 * then the requantization). */
static void convt_case(int C, int M, int H, int W, int k, int s, int bias)
{
    char err[512];
    int nw = C * M * k * k, nx = C * H * W;
    float *wv = malloc(sizeof(float) * (size_t)nw), bv[64], *x = malloc(sizeof(float) * (size_t)nx);
    for (int i = 0; i < nw; i++)
        wv[i] = (float)(((int64_t)i * 7919 % 1013) / 1013.0 - 0.5) * (1.0f + (float)(i % 5));
    for (int i = 0; i < M && i < 64; i++)
        bv[i] = 0.37f * (float)(i % 7) - 1.1f;
    for (int i = 0; i < nx; i++)
        x[i] = i % 3 ? (float)(((int64_t)i * 104729 % 2039) / 2039.0 * 2.0) : 0.0f;

    graph_t *g = graph_new();
    int y = convt_graph(g, C, M, H, W, k, s, bias, wv, bv), xi = g->inputs[0];
    quant_graph *q = NULL;
    CHECK(quant_graph_new(g, QT_I8, QM_CHANNEL, &q, err, sizeof(err)) == 0, "%s", err);
    CHECK(passes_prepare(g, NULL, 0, err, sizeof(err)) == 0, "prepare: %s", err);
    qparam_t *act = calloc((size_t)g->n_t, sizeof(*act));
    uint8_t *has = calloc((size_t)g->n_t, 1);
    quant_param_from_range(0, 2, &act[xi]);

    /* oracle: the fp32 graph on the input's grid values, requantized */
    graph_t *f = graph_new();
    int fy = convt_graph(f, C, M, H, W, k, s, bias, g->t[g->nodes[0].in[1]].data, bv);
    CHECK(passes_prepare(f, NULL, 0, err, sizeof(err)) == 0, "prepare: %s", err);
    float *xq = malloc(sizeof(float) * (size_t)nx);
    for (int i = 0; i < nx; i++)
        xq[i] = quant_dq8(quant_q8(x[i], &act[xi]), &act[xi]);
    exec_opts eo = {.nthreads = 2, .exact_threads = 1};
    exec_t *ef = NULL, *eq = NULL;
    CHECK(exec_create(f, &eo, &ef, err, sizeof(err)) == 0, "%s", err);
    CHECK(exec_set_input(ef, 0, xq, sizeof(float) * (size_t)nx, err, sizeof(err)) == 0, "%s", err);
    CHECK(exec_run(ef, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
    /* the output's grid: 90 % of its range, so that few values saturate */
    float mn = 0, mx = 0;
    quant_min_max(exec_output(ef, 0)->data, tensor_numel(exec_output(ef, 0)), &mn, &mx);
    quant_param_from_range(0.9f * mn, 0.9f * mx, &act[y]);
    has[xi] = has[y] = 1;
    CHECK(quant_graph_finish(q, act, has, err, sizeof(err)) == 0, "%s", err);
    CHECK(exec_create(g, &eo, &eq, err, sizeof(err)) == 0, "%s", err);
    CHECK(exec_set_input(eq, 0, xq, sizeof(float) * (size_t)nx, err, sizeof(err)) == 0, "%s", err);
    CHECK(exec_run(eq, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
    const tensor_t *want = exec_output(ef, 0), *got = exec_output(eq, 0);
    int64_t n = tensor_numel(got), bad = 0, inside = 0;
    CHECK(n == tensor_numel(want) && f->t[fy].ndim == 4, "convt output shape");
    for (int64_t i = 0; i < n && n == tensor_numel(want); i++) {
        int8_t qv = quant_q8(((const float *)want->data)[i], &act[y]);
        float w = quant_dq8(qv, &act[y]);
        bad += memcmp(&w, &((const float *)got->data)[i], sizeof(float)) != 0;
        inside += qv > -128 && qv < 127;
    }
    CHECK(bad == 0 && inside > n / 2, "int8 ConvTranspose C%d M%d k%d s%d: %lld of %lld values "
          "differ from the fp32 kernel's requantized (%lld not saturated)", C, M, k, s,
          (long long)bad, (long long)n, (long long)inside);
    exec_free(ef);
    exec_free(eq);
    quant_graph_free(q);
    graph_free(g);
    graph_free(f);
    free(act);
    free(has);
    free(wv);
    free(x);
    free(xq);
}

int main(void)
{
    convt_case(24, 24, 40, 33, 2, 2, 0); /* PP-OCR's 24 -> 24 upsampling (96 rows) */
    convt_case(24, 1, 37, 41, 2, 2, 1);  /* its 24 -> 1 head (4 rows), a bias */
    convt_case(5, 3, 17, 23, 3, 3, 1);   /* k = s = 3 */
    convt_case(6, 4, 9, 11, 3, 2, 1);    /* overlapping: the fp32 kernel, then requantized */
    /* byte quads (3x3, 1x1 with channels not a multiple of 4, stride 2) and
     * depthwise byte planes after every kind of producer epilogue */
    for (int a = HB_NONE; a <= HB_CAT_SAME; a++) {
        bytes_case(a, 3, 8, 3, 12, 3, 1, 1, 19, 23);
        bytes_case(a, 5, 7, 1, 9, 1, 1, 1, 16, 16);
        bytes_case(a, 4, 8, 3, 6, 3, 2, 1, 21, 17);
        bytes_case(a, 4, 16, 3, 16, 3, 1, 16, 24, 40); /* depthwise 3x3 */
        bytes_case(a, 4, 16, 3, 16, 5, 2, 16, 24, 40); /* depthwise 5x5 */
        bytes_case(a, 4, 8, 3, 12, 3, 1, 2, 13, 15);   /* two groups */
        bytes_case(a, 9, 13, 1, 7, 1, 1, 1, 1, 1);     /* 1x1 maps: one vector of quads */
    }
    ew_case();
    /* every chain on each conv path: byte quads (stride 1), im2col (stride
     * 2), depthwise, grouped, pointwise, the double GEMM */
    static const int geo[][9] = {{3, 5, 1, 37, 83, 3, 1, 1, 0}, {6, 8, 1, 21, 19, 3, 2, 1, 0},
                                 {16, 16, 16, 23, 29, 3, 1, 1, 0}, {8, 6, 2, 15, 17, 3, 1, 1, 0},
                                 {12, 10, 1, 14, 15, 1, 1, 0, 0}, {64, 3, 1, 9, 11, 3, 1, 1, 1},
                                 {22, 9, 1, 1, 1, 1, 1, 0, 0}};
    for (int a = CH_SILU; a <= CH_CLIP_INV; a++)
        for (size_t k = 0; k < sizeof(geo) / sizeof(geo[0]); k++)
            chain_case(a, geo[k][0], geo[k][1], geo[k][2], geo[k][3], geo[k][4], geo[k][5],
                       geo[k][6], geo[k][7], geo[k][8]);
    conv_case(2, 2, 2, 5, 5, 3, 2, 1, 0);      /* depthwise, stride 2, padding */
    conv_case(4, 6, 2, 9, 7, 3, 1, 1, 0);      /* grouped GEMM, 3 outputs per group */
    conv_case(3, 5, 1, 6, 6, 1, 1, 0, 0);      /* pointwise: the input is the GEMM's B */
    conv_case(5, 4, 1, 11, 13, 5, 2, 2, 0);    /* 5x5 stride 2 */
    conv_case(3, 16, 1, 9, 71, 3, 2, 1, 0);    /* an RGB stride-2 conv: rows of 36 phase words */
    conv_case(64, 2, 1, 6, 5, 3, 1, 1, 1);     /* 255 * sum|w| >= 2^24: double GEMM */
    conv_case(48, 48, 48, 40, 40, 3, 1, 1, 0); /* a real depthwise size, 2 threads */
    /* depthwise planes of a few rows (PP-OCR cls's 5x5 over 2 and 3 rows):
     * kernel rows that reach only padding are skipped */
    conv_case(16, 16, 16, 2, 96, 5, 1, 2, 0);
    conv_case(8, 8, 8, 3, 40, 5, 1, 2, 0);
    conv_case(8, 8, 8, 1, 33, 7, 1, 3, 0);
    conv_case(6, 6, 6, 5, 20, 5, 2, 2, 0);
    /* depthwise on byte planes: exactly one 16-column block; 16 < OW < 32
     * at stride 2 with an odd row count (the last row alone) */
    conv_case(8, 8, 8, 7, 16, 3, 1, 1, 0);
    conv_case(24, 24, 24, 19, 45, 3, 2, 1, 0);
    /* depthwise on small planes in runs (up to 32 per call): two batch items,
     * runs that must stop at the second item's first channel */
    conv_case_nd(2, 40, 40, 40, 3, 96, 5, 1, 2, 0, 1);
    conv_case_nd(3, 7, 7, 7, 2, 9, 3, 1, 1, 0, 1);
    conv_case_d(6, 8, 1, 13, 17, 3, 1, 2, 0, 2); /* dilation 2, stride 1 (padded-row im2col) */
    conv_case_d(6, 8, 2, 13, 17, 3, 2, 1, 0, 2); /* dilation 2, stride 2 */
    conv_case(16, 32, 1, 40, 56, 3, 1, 1, 0);  /* several column blocks, 2 threads */
    /* stride 1, one group: byte quads on AVX512-VNNI CPUs (channels not a
     * multiple of 4, outputs not of 8, > 128 outputs: shorter row blocks) */
    conv_case(1, 64, 1, 20, 24, 5, 1, 2, 0);   /* 5x5 on one channel */
    conv_case(1, 9, 1, 15, 21, 7, 1, 3, 0);    /* 7x7: 7 row quads, 3 x 2 column quads */
    conv_case_nd(3, 1, 5, 1, 6, 10, 5, 1, 1, 0, 1); /* three batch items, two planes each */
    /* rows sharing their side padding at stride 1 (Wq = W + max(pl, pr)):
     * more on the left, more on the right, a dilated read past the row */
    static const int asym[][4] = {{2, 2, 0, 0}, {0, 0, 2, 2}, {1, 2, 0, 1}, {0, 1, 3, 3}};
    for (int k = 0; k < 4; k++) {
        conv_case_pads(1, 8, 16, 1, 14, 14, 5, 1, asym[k], 0, 1);
        conv_case_pads(2, 1, 9, 1, 11, 13, 5, 1, asym[k], 0, 1);
        conv_case_pads(1, 6, 8, 1, 9, 12, 3, 1, asym[k], 0, 2);
    }
    conv_case(13, 137, 1, 9, 30, 3, 1, 1, 0);  /* 137 outputs */
    conv_case(7, 9, 1, 13, 13, 1, 1, 0, 0);    /* pointwise, 13x13 rows */
    /* 1x1 convs of a 1x1 map (squeeze-and-excite): one vector of quads on
     * AVX512-VNNI; an odd quad count and outputs not a multiple of 8, and
     * PP-OCR cls's 200 -> 50 -> 200 */
    conv_case(10, 13, 1, 1, 1, 1, 1, 0, 0);
    conv_case(200, 50, 1, 1, 1, 1, 1, 0, 0);
    conv_case(50, 200, 1, 1, 1, 1, 1, 0, 0);
    conv_case_nd(2, 10, 13, 1, 1, 1, 1, 1, 0, 0, 1); /* two batch items: the plane path */
    TEST_END();
}
