/* The int8 conv's integer paths against each other and against an exact
 * oracle, on random shapes: byte quads by vpdpbusd (QISA_VNNI), the same by
 * 16-bit multiply-adds (QISA_AVX2) and the float GEMM (QISA_FLOAT), each
 * forced with quant_isa_force. Every path must give the outputs the oracle
 * computes here bit for bit: the sum of (q_x - zp) * q_w over the taps in
 * int64, plus the int32 bias, times s_in * s_w[m] in double, narrowed to
 * float (then, when the output has a grid, quantized and dequantized). Shapes:
 * batch 1-2, channels 1-19 (not multiples of 4), strides 1-3, dilation 1-2,
 * unequal pads, kernels 1-5 (not square), some grouped (float only, as a
 * control) and depthwise (tap quads on AVX512-VNNI + VBMI + VBMI2 when at least 4
 * wide, else float), 1 and 2 threads; and a few whose outputs lie exactly on
 * halves of the output grid (the VNNI tiles' requantization then takes its
 * exact path). On a CPU without AVX512-VNNI or AVX2
 * the forced path is lowered to what it has (quant_isa), and those checks
 * compare that path with itself. */
#include "runtime/exec/exec.h"
#include "runtime/passes/passes.h"
#include "runtime/quant/quant.h"
#include "tests/test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static int rint_in(int lo, int hi) /* [lo, hi] */
{
    return lo + (int)(rnd() % (uint32_t)(hi - lo + 1));
}

static int add_tensor(graph_t *g, const char *name, int ndim, const int64_t *dims, int kind,
                      const float *v)
{
    int t = graph_add_tensor(g, name);
    tensor_t *x = &g->t[t];
    x->dtype = DT_FLOAT;
    x->ndim = ndim;
    memcpy(x->dims, dims, sizeof(int64_t) * (size_t)ndim);
    x->kind = kind;
    if (v) {
        x->data = malloc(tensor_nbytes(x));
        memcpy(x->data, v, tensor_nbytes(x));
    }
    return t;
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

typedef struct shape {
    int N, C, M, G, H, W, KH, KW, sh, sw, dh, dw, pt, pl, pb, pr, outq, threads;
    int halves; /* outputs on halves of the output grid (see one_case) */
} shape;

static int n_quads; /* cases that took the byte-quad packing */

static void one_case(const shape *s, int idx)
{
    char err[512];
    int OH = (s->H + s->pt + s->pb - s->dh * (s->KH - 1) - 1) / s->sh + 1;
    int OW = (s->W + s->pl + s->pr - s->dw * (s->KW - 1) - 1) / s->sw + 1;
    int cg = s->C / s->G, mg = s->M / s->G;
    int nx = s->N * s->C * s->H * s->W, nw = s->M * cg * s->KH * s->KW;
    int ny = s->N * s->M * OH * OW;
    float *x = malloc(sizeof(float) * (size_t)nx), *w = malloc(sizeof(float) * (size_t)nw);
    float *b = malloc(sizeof(float) * (size_t)s->M);
    for (int i = 0; i < nx; i++)
        x[i] = (float)(rnd() % 100000) / 100000.0f * 3.5f - 1.2f; /* past [-1, 2]: clamps */
    for (int i = 0; i < nw; i++)
        w[i] = (float)((int)(rnd() % 2001) - 1000) / 1000.0f;
    for (int m = 0; m < s->M; m++)
        b[m] = (float)((int)(rnd() % 2001) - 1000) / 500.0f;
    if (s->halves) {
        /* s_in 1/4, s_w 1 (each channel's largest |w| is 127.5), s_out 1/2:
         * every output is an integer sum times 1/2, half of them exactly on
         * a half, which the rounding must send away from zero */
        for (int i = 0; i < nx; i++)
            x[i] = (float)((int)(rnd() % 7) - 3) * 0.25f; /* q - zp in [-3, 3] */
        for (int i = 0; i < nw; i++)
            w[i] = i % (nw / s->M) ? (float)((int)(rnd() % 7) - 3) : (rnd() % 2 ? 127.5f : -127.5f);
        for (int m = 0; m < s->M; m++)
            b[m] = (float)((int)(rnd() % 41) - 20) * 0.25f;
    }

    graph_t *g = graph_new();
    int64_t xd[4] = {s->N, s->C, s->H, s->W}, wd[4] = {s->M, cg, s->KH, s->KW}, bd[1] = {s->M};
    int xi = add_tensor(g, "x", 4, xd, TK_INPUT, NULL);
    g->inputs = malloc(sizeof(int));
    g->inputs[0] = xi;
    g->n_inputs = 1;
    int wi = add_tensor(g, "w", 4, wd, TK_CONST, w), bi = add_tensor(g, "b", 1, bd, TK_CONST, b);
    int yi = graph_add_tensor(g, "y");
    int in[3] = {xi, wi, bi};
    int ni = graph_add_node(g, "conv", "Conv", "", 3, in, 1, &yi);
    int64_t pads[4] = {s->pt, s->pl, s->pb, s->pr}, strides[2] = {s->sh, s->sw};
    int64_t dils[2] = {s->dh, s->dw}, group = s->G;
    set_ints(&g->nodes[ni], "pads", 4, pads);
    set_ints(&g->nodes[ni], "strides", 2, strides);
    set_ints(&g->nodes[ni], "dilations", 2, dils);
    set_ints(&g->nodes[ni], "group", 1, &group);
    g->t[yi].is_output = 1;
    g->outputs = malloc(sizeof(int));
    g->outputs[0] = yi;
    g->n_outputs = 1;
    g->opset = 13;

    quant_graph *q = NULL;
    CHECK(quant_graph_new(g, QT_I8, QM_CHANNEL, &q, err, sizeof(err)) == 0, "%s", err);
    qparam_t *wp = malloc(sizeof(qparam_t) * (size_t)s->M);
    memcpy(wp, q->wparam[wi], sizeof(qparam_t) * (size_t)s->M);
    CHECK(passes_prepare(g, NULL, 0, err, sizeof(err)) == 0, "prepare: %s", err);
    qparam_t *act = calloc((size_t)g->n_t, sizeof(*act));
    uint8_t *has = calloc((size_t)g->n_t, 1);
    quant_param_from_range(-1.0f, 2.0f, &act[xi]);
    has[xi] = 1;
    if (s->outq) { /* an output grid: the epilogue requantizes */
        quant_param_from_range(-30.0f, 45.0f, &act[yi]);
        has[yi] = 1;
    }
    if (s->halves) {
        act[xi].scale = 0.25f, act[xi].zp = -8;
        act[yi].scale = 0.5f, act[yi].zp = 5;
        for (int m = 0; m < s->M; m++)
            CHECK(wp[m].scale == 1.0f, "halves: weight scale %g", (double)wp[m].scale);
    }
    CHECK(quant_graph_finish(q, act, has, err, sizeof(err)) == 0, "%s", err);
    CHECK(q->n_int8_nodes == 1, "case %d: %d int8 nodes", idx, q->n_int8_nodes);
    /* without an output grid the node is the kernel's own (not wrapped) */
    if (!s->outq)
        n_quads += ((const quant_node *)g->nodes[ni].priv)->wq != NULL;

    /* the oracle: bias b / s rounded (half away from zero), s = s_in * s_w
     * in double */
    float *want = malloc(sizeof(float) * (size_t)ny), *raw = malloc(sizeof(float) * (size_t)ny);
    for (int n = 0; n < s->N; n++)
        for (int m = 0; m < s->M; m++) {
            int grp = m / mg;
            double sc = (double)act[xi].scale * wp[m].scale, bq = round(b[m] / sc);
            for (int oh = 0; oh < OH; oh++)
                for (int ow = 0; ow < OW; ow++) {
                    int64_t acc = 0;
                    for (int ci = 0; ci < cg; ci++)
                        for (int kh = 0; kh < s->KH; kh++)
                            for (int kw = 0; kw < s->KW; kw++) {
                                int ih = oh * s->sh - s->pt + kh * s->dh;
                                int iw = ow * s->sw - s->pl + kw * s->dw;
                                if (ih < 0 || ih >= s->H || iw < 0 || iw >= s->W)
                                    continue;
                                int c = grp * cg + ci;
                                int xq = quant_q8(x[((n * s->C + c) * s->H + ih) * s->W + iw],
                                                  &act[xi]) - act[xi].zp;
                                int wq = quant_q8(w[((m * cg + ci) * s->KH + kh) * s->KW + kw],
                                                  &wp[m]);
                                acc += (int64_t)xq * wq;
                            }
                    float v = (float)(((double)acc + bq) * sc);
                    raw[((n * s->M + m) * OH + oh) * OW + ow] = v;
                    if (s->outq)
                        v = quant_dq8(quant_q8(v, &act[yi]), &act[yi]);
                    want[((n * s->M + m) * OH + oh) * OW + ow] = v;
                }
        }

    exec_t *ex = NULL;
    exec_opts eo = {.nthreads = s->threads, .exact_threads = 1};
    CHECK(exec_create(g, &eo, &ex, err, sizeof(err)) == 0, "%s", err);
    CHECK(exec_set_input(ex, 0, x, sizeof(float) * (size_t)nx, err, sizeof(err)) == 0, "%s", err);
    static const int isas[3] = {QISA_VNNI, QISA_AVX2, QISA_FLOAT};
    static const char *const names[3] = {"vnni", "avx2", "float"};
    for (int k = 0; k < 3; k++) {
        int got_isa = quant_isa_force(isas[k]);
        CHECK(got_isa <= isas[k], "forced %s, got path %d", names[k], got_isa);
        CHECK(exec_run(ex, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
        const float *y = exec_output(ex, 0)->data;
        int bad = -1;
        for (int i = 0; i < ny && bad < 0; i++)
            if (memcmp(&y[i], &want[i], sizeof(float)))
                bad = i;
        CHECK(bad < 0,
              "case %d %s: N%d C%d M%d G%d %dx%d K%dx%d s%d,%d d%d,%d pads %d,%d,%d,%d outq %d "
              "t%d: output %d is %.9g, oracle %.9g",
              idx, names[k], s->N, s->C, s->M, s->G, s->H, s->W, s->KH, s->KW, s->sh, s->sw,
              s->dh, s->dw, s->pt, s->pl, s->pb, s->pr, s->outq, s->threads, bad,
              bad < 0 ? 0.0 : y[bad], bad < 0 ? 0.0 : want[bad]);
    }
    /* another output grid between runs (as a chain sets its own per run):
     * the fused requantization's scales follow it */
    if (s->outq && !s->halves) {
        quant_node *qn = *quant_node_kernel_priv(&g->nodes[ni]);
        qparam_t o2;
        quant_param_from_range(-20.0f, 70.0f, &o2);
        qn->out = o2;
        quant_isa_force(QISA_VNNI);
        CHECK(exec_run(ex, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
        const float *y = exec_output(ex, 0)->data;
        int bad = -1;
        for (int i = 0; i < ny && bad < 0; i++)
            if (y[i] != quant_dq8(quant_q8(raw[i], &o2), &o2))
                bad = i;
        CHECK(bad < 0, "case %d: after a new output grid, output %d is %.9g, oracle %.9g", idx,
              bad, bad < 0 ? 0.0 : y[bad], bad < 0 ? 0.0 : quant_dq8(quant_q8(raw[bad], &o2), &o2));
    }
    quant_isa_force(QISA_AUTO);
    exec_free(ex);
    free(want);
    free(raw);
    quant_graph_free(q);
    graph_free(g);
    free(act);
    free(has);
    free(wp);
    free(x);
    free(w);
    free(b);
}

/* MatMul [R, K] x constant [K, N]: the VNNI row kernel (forced) and the
 * scalar loop (forced float) against the oracle sum (q_x - zp) q_w times
 * s_in * s_w[n], bit for bit. */
static void mm_case(int R, int K, int N, int threads)
{
    char err[512];
    float *x = malloc(sizeof(float) * (size_t)(R * K)), *w = malloc(sizeof(float) * (size_t)(K * N));
    for (int i = 0; i < R * K; i++)
        x[i] = (float)(rnd() % 100000) / 100000.0f * 3.5f - 1.2f;
    for (int i = 0; i < K * N; i++)
        w[i] = (float)((int)(rnd() % 2001) - 1000) / 1000.0f;
    graph_t *g = graph_new();
    int64_t xd[2] = {R, K}, wd[2] = {K, N};
    int xi = add_tensor(g, "x", 2, xd, TK_INPUT, NULL);
    g->inputs = malloc(sizeof(int));
    g->inputs[0] = xi;
    g->n_inputs = 1;
    int wi = add_tensor(g, "w", 2, wd, TK_CONST, w);
    int yi = graph_add_tensor(g, "y");
    int in[2] = {xi, wi};
    graph_add_node(g, "mm", "MatMul", "", 2, in, 1, &yi);
    g->t[yi].is_output = 1;
    g->outputs = malloc(sizeof(int));
    g->outputs[0] = yi;
    g->n_outputs = 1;
    g->opset = 13;
    quant_graph *q = NULL;
    CHECK(quant_graph_new(g, QT_I8, QM_CHANNEL, &q, err, sizeof(err)) == 0, "%s", err);
    int nw = q->wparam_n[wi];
    qparam_t *wp = malloc(sizeof(qparam_t) * (size_t)nw);
    memcpy(wp, q->wparam[wi], sizeof(qparam_t) * (size_t)nw);
    CHECK(passes_prepare(g, NULL, 0, err, sizeof(err)) == 0, "prepare: %s", err);
    qparam_t *act = calloc((size_t)g->n_t, sizeof(*act));
    uint8_t *has = calloc((size_t)g->n_t, 1);
    quant_param_from_range(-1.0f, 2.0f, &act[xi]);
    has[xi] = 1;
    CHECK(quant_graph_finish(q, act, has, err, sizeof(err)) == 0, "%s", err);
    CHECK(q->n_int8_nodes == 1, "matmul: %d int8 nodes", q->n_int8_nodes);
    float *want = malloc(sizeof(float) * (size_t)(R * N));
    for (int r = 0; r < R; r++)
        for (int n = 0; n < N; n++) {
            const qparam_t *p = &wp[nw > 1 ? n : 0];
            int64_t acc = 0;
            for (int k = 0; k < K; k++)
                acc += (int64_t)(quant_q8(x[r * K + k], &act[xi]) - act[xi].zp) *
                       quant_q8(w[k * N + n], p);
            want[r * N + n] = (float)((double)acc * ((double)act[xi].scale * p->scale) * 1.0f);
        }
    exec_t *ex = NULL;
    exec_opts eo = {.nthreads = threads, .exact_threads = 1};
    CHECK(exec_create(g, &eo, &ex, err, sizeof(err)) == 0, "%s", err);
    CHECK(exec_set_input(ex, 0, x, sizeof(float) * (size_t)(R * K), err, sizeof(err)) == 0, "%s",
          err);
    static const int isas[2] = {QISA_VNNI, QISA_FLOAT};
    for (int k = 0; k < 2; k++) {
        quant_isa_force(isas[k]);
        CHECK(exec_run(ex, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
        const float *y = exec_output(ex, 0)->data;
        int bad = -1;
        for (int i = 0; i < R * N && bad < 0; i++)
            if (memcmp(&y[i], &want[i], sizeof(float)))
                bad = i;
        CHECK(bad < 0, "matmul %dx%dx%d path %d: output %d is %.9g, oracle %.9g", R, K, N,
              isas[k], bad, bad < 0 ? 0.0 : y[bad], bad < 0 ? 0.0 : want[bad]);
    }
    quant_isa_force(QISA_AUTO);
    exec_free(ex);
    quant_graph_free(q);
    graph_free(g);
    free(act);
    free(has);
    free(wp);
    free(want);
    free(x);
    free(w);
}

int main(void)
{
    /* the paths exist on this CPU, or are lowered to what it has */
    int best = quant_isa_force(QISA_AUTO);
    CHECK(best >= QISA_FLOAT && best <= QISA_VNNI, "path %d", best);
    CHECK(quant_isa_force(QISA_FLOAT) == QISA_FLOAT, "float is always there");
    quant_isa_force(QISA_AUTO);

    int cases = 0;
    for (int idx = 0; cases < 60; idx++) {
        shape s = {0};
        s.N = rint_in(1, 4) == 1 ? 2 : 1;
        s.C = rint_in(1, 19);
        s.M = rint_in(1, 37);
        s.G = 1;
        int kind = rint_in(0, 9);
        if (kind == 0 && s.C % 2 == 0 && s.M % 2 == 0)
            s.G = 2; /* grouped: the float path */
        else if (kind == 1)
            s.G = s.M = s.C; /* depthwise: the float path */
        s.KH = rint_in(1, 5);
        s.KW = rnd() % 3 ? s.KH : rint_in(1, 5);
        s.sh = rint_in(1, 3);
        s.sw = rnd() % 4 ? s.sh : rint_in(1, 3);
        s.dh = rnd() % 5 ? 1 : 2;
        s.dw = s.dh;
        s.H = rint_in(1, 40);
        s.W = rint_in(1, 53);
        s.pt = rint_in(0, s.KH - 1);
        s.pb = rint_in(0, s.KH - 1);
        s.pl = rint_in(0, s.KW - 1);
        s.pr = rint_in(0, s.KW - 1);
        s.outq = rnd() % 2;
        s.threads = rnd() % 2 ? 2 : 1;
        if (s.H + s.pt + s.pb < s.dh * (s.KH - 1) + 1 || s.W + s.pl + s.pr < s.dw * (s.KW - 1) + 1)
            continue;
        one_case(&s, idx);
        cases++;
    }
    /* fixed shapes of the bundled models' kinds: a stem (3 channels, 3x3
     * stride 2), a pointwise conv with many outputs at stride 2, one channel
     * 5x5 */
    static const shape fixed[] = {
        {1, 3, 16, 1, 48, 64, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 2, 0},
        {1, 24, 136, 1, 13, 15, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 0, 2, 0},
        {1, 1, 64, 1, 30, 28, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1, 2, 0},
        {1, 64, 32, 1, 20, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 0},
        /* depthwise (tap quads on AVX512-VNNI + VBMI(2) when at least 4 wide,
         * else the float path): PP-OCR's 5x5 at stride (2, 1), 5x4 stride 2
         * in two batch items, 4x5 stride 1 with rows of 40, a 7-wide kernel
         * (two tap words) at stride 3, a 3x3 (float); two tap words sharing
         * one quad plane: a 5x6 at stride (1, 2) over 3 rows (kernel rows
         * over padding only skipped), a 3x8 at stride 4 */
        {1, 24, 24, 24, 12, 96, 5, 5, 2, 1, 1, 1, 2, 2, 2, 2, 1, 2, 0},
        {2, 16, 16, 16, 26, 26, 5, 4, 2, 2, 1, 1, 1, 1, 1, 1, 0, 1, 0},
        {1, 8, 8, 8, 13, 40, 4, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 0},
        {1, 5, 5, 5, 9, 33, 3, 7, 1, 3, 1, 1, 1, 3, 0, 2, 0, 2, 0},
        {1, 8, 8, 8, 13, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 0},
        {1, 8, 8, 8, 3, 50, 5, 6, 1, 2, 1, 1, 2, 2, 2, 2, 1, 1, 0},
        {1, 4, 4, 4, 10, 70, 3, 8, 1, 4, 1, 1, 1, 3, 1, 3, 0, 2, 0},
        /* outputs on halves: a 3x3 (dropped padded columns), a pointwise
         * conv, a depthwise 5x5 at stride 2 */
        {1, 7, 19, 1, 11, 37, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1},
        {1, 12, 9, 1, 9, 20, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},
        {1, 6, 6, 6, 20, 35, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 1, 2, 1},
    };
    for (size_t k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++)
        one_case(&fixed[k], 1000 + (int)k);
    /* MatMul: K and N not multiples of 4 or 16, more than 64 columns, one row */
    mm_case(5, 7, 3, 1);
    mm_case(33, 130, 77, 2);
    mm_case(1, 256, 10, 1);
    mm_case(17, 4, 64, 2);
    /* most of them took the byte quads (when the CPU has AVX2) */
    if (quant_isa_force(QISA_AUTO) >= QISA_AVX2)
        CHECK(n_quads >= 20, "%d cases packed as byte quads", n_quads);
    TEST_END();
}
