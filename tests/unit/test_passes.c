/* tests/unit/test_passes.c — BatchNormalization folding: a Conv -> BN graph run
 * through passes_prepare and the executor equals a direct convolution followed
 * by the BN formula computed here in double; the fold happens only when it is
 * an identity (the Conv output feeds nothing else). */
#include "runtime/exec/exec.h"
#include "runtime/model/model.h"
#include "runtime/passes/passes.h"
#include "tests/test.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

enum { N = 1, C = 3, H = 7, W = 6, OC = 4, K = 3 };

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static float frand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((rng >> 40) & 0xffff) / 32768.0f - 1.0f;
}

static int add_const(graph_t *g, const char *name, int ndim, const int64_t *dims, float lo)
{
    int t = graph_add_tensor(g, name);
    tensor_t *x = &g->t[t];
    x->kind = TK_CONST;
    x->dtype = DT_FLOAT;
    x->ndim = ndim;
    memcpy(x->dims, dims, sizeof(int64_t) * (size_t)ndim);
    float *d = xaligned_alloc(tensor_nbytes(x));
    for (int64_t i = 0; i < tensor_numel(x); i++)
        d[i] = lo > 0 ? lo + (frand() + 1.0f) : frand();
    x->data = d;
    return t;
}

/* x -> Conv(pad 1) -> c -> BN -> y; with `tap`, c is also a graph output. */
static graph_t *build(int tap)
{
    graph_t *g = graph_new();
    int64_t xd[4] = {N, C, H, W}, wd[4] = {OC, C, K, K}, od[1] = {OC};
    int x = graph_add_tensor(g, "x");
    g->t[x].kind = TK_INPUT;
    g->t[x].dtype = DT_FLOAT;
    g->t[x].ndim = 4;
    memcpy(g->t[x].dims, xd, sizeof(xd));
    int w = add_const(g, "w", 4, wd, 0), b = add_const(g, "b", 1, od, 0);
    int ga = add_const(g, "gamma", 1, od, 0), be = add_const(g, "beta", 1, od, 0);
    int mu = add_const(g, "mean", 1, od, 0), va = add_const(g, "var", 1, od, 0.1f);
    int c = graph_add_tensor(g, "c"), y = graph_add_tensor(g, "y");
    int cin[3] = {x, w, b}, bin[5] = {c, ga, be, mu, va};
    int cn = graph_add_node(g, "conv", "Conv", "", 3, cin, 1, &c);
    graph_add_node(g, "bn", "BatchNormalization", "", 5, bin, 1, &y);
    node_t *n = &g->nodes[cn];
    n->attrs = xcalloc(1, sizeof(attr_t));
    n->n_attr = 1;
    n->attrs[0].name = xstrdup("pads");
    n->attrs[0].type = ATTR_INTS;
    n->attrs[0].n = 4;
    n->attrs[0].ints = xcalloc(4, sizeof(int64_t));
    for (int i = 0; i < 4; i++)
        n->attrs[0].ints[i] = 1;
    g->inputs = xmalloc(sizeof(int));
    g->inputs[g->n_inputs++] = x;
    g->outputs = xmalloc(2 * sizeof(int));
    g->outputs[g->n_outputs++] = y;
    if (tap)
        g->outputs[g->n_outputs++] = c;
    g->opset = 13;
    return g;
}

/* Direct convolution + BN in double: the oracle. */
static void reference(graph_t *g, const float *in, double *ref)
{
    const float *w = g->t[graph_find_tensor(g, "w")].data, *b = g->t[graph_find_tensor(g, "b")].data;
    const float *ga = g->t[graph_find_tensor(g, "gamma")].data;
    const float *be = g->t[graph_find_tensor(g, "beta")].data;
    const float *mu = g->t[graph_find_tensor(g, "mean")].data;
    const float *va = g->t[graph_find_tensor(g, "var")].data;
    for (int o = 0; o < OC; o++)
        for (int i = 0; i < H; i++)
            for (int j = 0; j < W; j++) {
                double s = b[o];
                for (int ci = 0; ci < C; ci++)
                    for (int ki = 0; ki < K; ki++)
                        for (int kj = 0; kj < K; kj++) {
                            int yi = i + ki - 1, xj = j + kj - 1;
                            if (yi >= 0 && yi < H && xj >= 0 && xj < W)
                                s += (double)in[(ci * H + yi) * W + xj] *
                                     w[((o * C + ci) * K + ki) * K + kj];
                        }
                ref[(o * H + i) * W + j] = (s - mu[o]) / sqrt((double)va[o] + 1e-5) * ga[o] + be[o];
            }
}

static void check(int tap)
{
    graph_t *g = build(tap);
    char err[256] = "";
    exec_t *x = NULL;
    float in[N * C * H * W];
    double ref[OC * H * W];
    exec_opts o = {.nthreads = 1};

    for (int i = 0; i < N * C * H * W; i++)
        in[i] = frand();
    reference(g, in, ref);
    int rc = passes_prepare(g, NULL, 0, err, sizeof(err));
    CHECK(rc == 0, "prepare: %s", err);
    CHECK(g->nodes[1].folded == !tap, "BN folded=%d with tap=%d", g->nodes[1].folded, tap);
    rc = rc ? rc : exec_create(g, &o, &x, err, sizeof(err));
    rc = rc ? rc : exec_set_input(x, 0, in, sizeof(in), err, sizeof(err));
    rc = rc ? rc : exec_run(x, NULL, NULL, err, sizeof(err));
    CHECK(rc == 0, "run: %s", err);
    if (!rc) {
        const float *y = exec_output(x, 0)->data;
        double worst = 0;
        for (int i = 0; i < OC * H * W; i++)
            worst = fmax(worst, fabs(y[i] - ref[i]));
        CHECK(worst < 1e-5, "max abs error %g (tap=%d)", worst, tap);
    }
    exec_free(x);
    graph_free(g);
}

int main(void)
{
    check(0);
    check(1);
    TEST_END();
}
