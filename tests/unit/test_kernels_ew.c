/* tests/unit/test_kernels_ew.c — elementwise, activation, shape, layout, resize and
 * reduce kernels on small hand-built one-node graphs, against values computed by
 * hand (or by plain loops written here for the big threaded cases), plus the
 * shape errors that must name the node. */
#include "runtime/exec/kernels.h"
#include "runtime/exec/threadpool.h"
#include "runtime/model/model.h"
#include "tests/graph_build.h"
#include "tests/test.h"
#include "util/util.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct threadpool *g_pool;

/* ---- graph building ---------------------------------------------------- */

/* A tensor with the given dtype/shape; with data it is a constant. */
static int mk(graph_t *g, const char *name, int dt, int nd, const int64_t *dims, const void *data)
{
    int t = graph_add_tensor(g, name);
    tensor_set_shape(&g->t[t], dt, nd, dims);
    if (data) {
        size_t nb = tensor_nbytes(&g->t[t]);
        g->t[t].data = xmalloc(nb + 8);
        memcpy(g->t[t].data, data, nb);
        g->t[t].kind = TK_CONST;
    } else {
        g->t[t].kind = TK_INPUT;
    }
    return t;
}

/* Node with inputs in[] (-1 = omitted) and n_out fresh outputs; returns the node. */
static node_t *mknode(graph_t *g, const char *op, int n_in, const int *in, int n_out)
{
    int outs[4];
    char name[32];
    for (int i = 0; i < n_out; i++) {
        snprintf(name, sizeof(name), "y%d", i);
        outs[i] = graph_add_tensor(g, name);
    }
    int k = graph_add_node(g, "the_node", op, "", n_in, in, n_out, outs);
    return &g->nodes[k];
}

/* Infers and runs node 0 with the given thread count. Output buffers are left
 * in the graph (freed with it). */
static int run(graph_t *g, int nthreads, char *err, size_t errlen)
{
    node_t *n = &g->nodes[0];
    int rc;
    err[0] = 0;
    n->def = exec_find_op(n->domain, n->op);
    if (!n->def)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "no op %s", n->op);
    if ((rc = n->def->infer(g, n, err, errlen)))
        return rc;
    for (int i = 0; i < n->n_out; i++) {
        tensor_t *t = node_output(g, n, i);
        if (t)
            t->data = xcalloc(1, tensor_nbytes(t) + 8);
    }
    op_ctx c = { .nthreads = nthreads, .pool = nthreads > 1 ? g_pool : NULL, .err = err,
                 .errlen = errlen };
    return n->def->run(&c, g, n);
}

/* Frees the outputs run() allocated (the graph owns only constants), then the graph. */
static void done(graph_t *g)
{
    node_t *n = &g->nodes[0];
    for (int i = 0; i < n->n_out; i++) {
        tensor_t *t = node_output(g, n, i);
        if (t && t->kind != TK_CONST) {
            free(t->data);
            t->data = NULL;
        }
    }
    graph_free(g);
}

static tensor_t *outp(graph_t *g, int i) { return node_output(g, &g->nodes[0], i); }

static int shape_is(const tensor_t *t, int nd, const int64_t *d)
{
    if (t->ndim != nd)
        return 0;
    for (int i = 0; i < nd; i++)
        if (t->dims[i] != d[i])
            return 0;
    return 1;
}

static int floats_near(const tensor_t *t, const float *want, int64_t n, double tol)
{
    const float *p = t->data;
    if (t->dtype != DT_FLOAT || tensor_numel(t) != n)
        return 0;
    for (int64_t i = 0; i < n; i++)
        if (!(fabs((double)p[i] - want[i]) <= tol * (1 + fabs((double)want[i])))) {
            fprintf(stderr, "  element %lld: %.9g vs %.9g\n", (long long)i, p[i], want[i]);
            return 0;
        }
    return 1;
}

static int ints_eq(const tensor_t *t, const int64_t *want, int64_t n)
{
    if (tensor_numel(t) != n)
        return 0;
    for (int64_t i = 0; i < n; i++)
        if (tensor_get_int(t, i) != want[i]) {
            fprintf(stderr, "  element %lld: %lld vs %lld\n", (long long)i,
                    (long long)tensor_get_int(t, i), (long long)want[i]);
            return 0;
        }
    return 1;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static float frand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((rng >> 40) & 0xffff) / 32768.0f - 1.0f;
}

/* ---- binary --------------------------------------------------------------- */

static void test_binary(void)
{
    char err[256];
    graph_t *g;
    int rc;

    /* Per-channel Add: [1,2,2,2] + [2,1,1]. */
    {
        g = graph_new();
        float x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, b[2] = { 10, 100 };
        int in[2] = { mk(g, "x", DT_FLOAT, 4, (int64_t[]){ 1, 2, 2, 2 }, x),
                      mk(g, "b", DT_FLOAT, 3, (int64_t[]){ 2, 1, 1 }, b) };
        mknode(g, "Add", 2, in, 1);
        rc = run(g, 1, err, sizeof(err));
        float want[8] = { 11, 12, 13, 14, 105, 106, 107, 108 };
        CHECK(rc == 0 && shape_is(outp(g, 0), 4, (int64_t[]){ 1, 2, 2, 2 }) &&
              floats_near(outp(g, 0), want, 8, 0), "per-channel Add: %s", err);
        done(g);
    }
    /* Scalar first operand: 10 - [1,2,3]; and a row/column outer broadcast. */
    {
        g = graph_new();
        float a = 10, b[3] = { 1, 2, 3 };
        int in[2] = { mk(g, "a", DT_FLOAT, 0, NULL, &a), mk(g, "b", DT_FLOAT, 1, (int64_t[]){ 3 }, b) };
        mknode(g, "Sub", 2, in, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && floats_near(outp(g, 0), (float[]){ 9, 8, 7 }, 3, 0), "scalar Sub: %s", err);
        done(g);

        g = graph_new();
        float c[2] = { 1, 2 }, r[3] = { 10, 20, 30 };
        int in2[2] = { mk(g, "c", DT_FLOAT, 2, (int64_t[]){ 2, 1 }, c),
                       mk(g, "r", DT_FLOAT, 2, (int64_t[]){ 1, 3 }, r) };
        mknode(g, "Mul", 2, in2, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && shape_is(outp(g, 0), 2, (int64_t[]){ 2, 3 }) &&
              floats_near(outp(g, 0), (float[]){ 10, 20, 30, 20, 40, 60 }, 6, 0),
              "outer Mul: %s", err);
        done(g);
    }
    /* Big same-shape and broadcast Mul on two threads vs a plain loop. */
    {
        int64_t N = 3 * 64 * 40 * 40;
        float *x = xmalloc((size_t)N * 4), *s = xmalloc(64 * 4);
        for (int64_t i = 0; i < N; i++)
            x[i] = frand();
        for (int i = 0; i < 64; i++)
            s[i] = frand();
        g = graph_new();
        int in[2] = { mk(g, "x", DT_FLOAT, 4, (int64_t[]){ 3, 64, 40, 40 }, x),
                      mk(g, "s", DT_FLOAT, 4, (int64_t[]){ 1, 64, 1, 1 }, s) };
        mknode(g, "Mul", 2, in, 1);
        rc = run(g, 2, err, sizeof(err));
        int ok = rc == 0;
        const float *y = outp(g, 0)->data;
        for (int64_t i = 0; ok && i < N; i++)
            ok = y[i] == x[i] * s[(i / 1600) % 64];
        CHECK(ok, "threaded per-channel Mul: %s", err);
        done(g);

        g = graph_new();
        int in2[2] = { mk(g, "x", DT_FLOAT, 1, (int64_t[]){ N }, x),
                       mk(g, "x2", DT_FLOAT, 1, (int64_t[]){ N }, x) };
        mknode(g, "Add", 2, in2, 1);
        rc = run(g, 2, err, sizeof(err));
        ok = rc == 0;
        y = outp(g, 0)->data;
        for (int64_t i = 0; ok && i < N; i++)
            ok = y[i] == x[i] + x[i];
        CHECK(ok, "threaded same-shape Add: %s", err);
        done(g);
        free(x);
        free(s);
    }
    /* int64 shape arithmetic, Equal to bool, Mod both ways. */
    {
        g = graph_new();
        int64_t a[3] = { 6, 12, 7 }, b = 4;
        int in[2] = { mk(g, "a", DT_INT64, 1, (int64_t[]){ 3 }, a), mk(g, "b", DT_INT64, 0, NULL, &b) };
        mknode(g, "Div", 2, in, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && outp(g, 0)->dtype == DT_INT64 && ints_eq(outp(g, 0), (int64_t[]){ 1, 3, 1 }, 3),
              "int64 Div: %s", err);
        done(g);

        g = graph_new();
        int64_t c[3] = { 4, 5, 4 };
        int in2[2] = { mk(g, "a", DT_INT64, 1, (int64_t[]){ 3 }, c), mk(g, "b", DT_INT64, 0, NULL, &b) };
        mknode(g, "Equal", 2, in2, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && outp(g, 0)->dtype == DT_BOOL && ints_eq(outp(g, 0), (int64_t[]){ 1, 0, 1 }, 3),
              "int64 Equal: %s", err);
        done(g);

        for (int fm = 0; fm < 2; fm++) {
            g = graph_new();
            int32_t m1[4] = { -7, 7, -7, 7 }, m2[4] = { 3, -3, -3, 3 };
            int in3[2] = { mk(g, "a", DT_INT32, 1, (int64_t[]){ 4 }, m1),
                           mk(g, "b", DT_INT32, 1, (int64_t[]){ 4 }, m2) };
            node_t *n = mknode(g, "Mod", 2, in3, 1);
            set_int(n, "fmod", fm);
            rc = run(g, 1, err, sizeof(err));
            /* Python-style mod takes the divisor's sign; fmod the dividend's. */
            int64_t want[2][4] = { { 2, -2, -1, 1 }, { -1, 1, -1, 1 } };
            CHECK(rc == 0 && ints_eq(outp(g, 0), want[fm], 4), "Mod fmod=%d: %s", fm, err);
            done(g);
        }
    }
    /* Pow with scalar exponents (fast paths) and mixed types. */
    {
        float x[3] = { 4, 9, 2 };
        float ex[3] = { 2, 0.5f, 3 };
        float want[3][3] = { { 16, 81, 4 }, { 2, 3, 1.41421356f }, { 64, 729, 8 } };
        for (int k = 0; k < 3; k++) {
            g = graph_new();
            int in[2] = { mk(g, "x", DT_FLOAT, 1, (int64_t[]){ 3 }, x), mk(g, "e", DT_FLOAT, 0, NULL, &ex[k]) };
            mknode(g, "Pow", 2, in, 1);
            rc = run(g, 1, err, sizeof(err));
            CHECK(rc == 0 && floats_near(outp(g, 0), want[k], 3, 1e-5), "Pow ^%g: %s", ex[k], err);
            done(g);
        }
        g = graph_new();
        int64_t e = 3;
        int in[2] = { mk(g, "x", DT_FLOAT, 1, (int64_t[]){ 3 }, x), mk(g, "e", DT_INT64, 0, NULL, &e) };
        mknode(g, "Pow", 2, in, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && floats_near(outp(g, 0), want[2], 3, 1e-4), "Pow float^int64: %s", err);
        done(g);
    }
    /* PRelu with a per-channel slope. */
    {
        g = graph_new();
        float x[4] = { -1, 2, -3, 4 }, s[2] = { 0.5f, 0.25f };
        int in[2] = { mk(g, "x", DT_FLOAT, 3, (int64_t[]){ 2, 1, 2 }, x),
                      mk(g, "s", DT_FLOAT, 3, (int64_t[]){ 2, 1, 1 }, s) };
        mknode(g, "PRelu", 2, in, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && floats_near(outp(g, 0), (float[]){ -0.5f, 2, -0.75f, 4 }, 4, 0), "PRelu: %s", err);
        done(g);
    }
    /* Where with a three-way broadcast. */
    {
        g = graph_new();
        uint8_t c[2] = { 1, 0 };
        float x[3] = { 1, 2, 3 }, y = -1;
        int in[3] = { mk(g, "c", DT_BOOL, 2, (int64_t[]){ 2, 1 }, c),
                      mk(g, "x", DT_FLOAT, 2, (int64_t[]){ 1, 3 }, x), mk(g, "y", DT_FLOAT, 0, NULL, &y) };
        mknode(g, "Where", 3, in, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && shape_is(outp(g, 0), 2, (int64_t[]){ 2, 3 }) &&
              floats_near(outp(g, 0), (float[]){ 1, 2, 3, -1, -1, -1 }, 6, 0), "Where: %s", err);
        done(g);

        g = graph_new();
        int64_t xi[2] = { 5, 6 }, yi[2] = { -5, -6 };
        uint8_t c2[2] = { 0, 1 };
        int in2[3] = { mk(g, "c", DT_BOOL, 1, (int64_t[]){ 2 }, c2),
                       mk(g, "x", DT_INT64, 1, (int64_t[]){ 2 }, xi), mk(g, "y", DT_INT64, 1, (int64_t[]){ 2 }, yi) };
        mknode(g, "Where", 3, in2, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && ints_eq(outp(g, 0), (int64_t[]){ -5, 6 }, 2), "Where int64: %s", err);
        done(g);
    }
    /* Variadic Max over three broadcast inputs; Mean. */
    {
        g = graph_new();
        float a[2] = { 1, 5 }, b = 3, c[2] = { 0, 0 };
        int in[3] = { mk(g, "a", DT_FLOAT, 2, (int64_t[]){ 1, 2 }, a), mk(g, "b", DT_FLOAT, 0, NULL, &b),
                      mk(g, "c", DT_FLOAT, 2, (int64_t[]){ 2, 1 }, c) };
        mknode(g, "Max", 3, in, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && shape_is(outp(g, 0), 2, (int64_t[]){ 2, 2 }) &&
              floats_near(outp(g, 0), (float[]){ 3, 5, 3, 5 }, 4, 0), "Max x3: %s", err);
        done(g);

        g = graph_new();
        int in2[3] = { mk(g, "a", DT_FLOAT, 1, (int64_t[]){ 2 }, a), mk(g, "b", DT_FLOAT, 0, NULL, &b),
                       mk(g, "c", DT_FLOAT, 1, (int64_t[]){ 2 }, c) };
        mknode(g, "Mean", 3, in2, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && floats_near(outp(g, 0), (float[]){ 4.0f / 3, 8.0f / 3 }, 2, 1e-6), "Mean: %s", err);
        done(g);
    }
    /* Incompatible shapes: RT_ESHAPE naming the node. */
    {
        g = graph_new();
        int in[2] = { mk(g, "a", DT_FLOAT, 1, (int64_t[]){ 3 }, NULL), mk(g, "b", DT_FLOAT, 1, (int64_t[]){ 4 }, NULL) };
        mknode(g, "Add", 2, in, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == RT_ESHAPE && strstr(err, "the_node"), "bad broadcast: rc %d '%s'", rc, err);
        done(g);
    }
}

/* ---- unary ---------------------------------------------------------------- */

static graph_t *unary_graph(const char *op, int dt, int64_t n, const void *x, node_t **np)
{
    graph_t *g = graph_new();
    int in[1] = { mk(g, "x", dt, 1, &n, x) };
    node_t *nd = mknode(g, op, 1, in, 1);
    if (np)
        *np = nd;
    return g;
}

static void test_unary(void)
{
    char err[256];
    graph_t *g;
    node_t *n;
    int rc;
    float x[6] = { -3, -1, -0.25f, 0, 0.5f, 4 };

    struct { const char *op; float want[6]; } cases[] = {
        { "Relu", { 0, 0, 0, 0, 0.5f, 4 } },
        { "Neg", { 3, 1, 0.25f, 0, -0.5f, -4 } },
        { "Abs", { 3, 1, 0.25f, 0, 0.5f, 4 } },
        { "Floor", { -3, -1, -1, 0, 0, 4 } },
        { "Ceil", { -3, -1, -0.0f, 0, 1, 4 } },
        { "HardSwish", { 0, -1.0f / 3, -0.25f * 2.75f / 6, 0, 0.5f * 3.5f / 6, 4 } },
        { "HardSigmoid", { 0, 0.3f, 0.45f, 0.5f, 0.6f, 1 } },
        { "Sigmoid", { 0.0474258732f, 0.268941421f, 0.437823499f, 0.5f, 0.622459331f, 0.982013790f } },
        { "Exp", { 0.0497870684f, 0.367879441f, 0.778800783f, 1, 1.64872127f, 54.5981500f } },
        { "Tanh", { -0.995054754f, -0.761594156f, -0.244918662f, 0, 0.462117157f, 0.999329300f } },
        { "Erf", { -0.999977910f, -0.842700793f, -0.276326390f, 0, 0.520499878f, 1.0f } },
        { "Softplus", { 0.0485873516f, 0.313261687f, 0.575939421f, 0.693147181f, 0.974076984f, 4.01814993f } },
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        g = unary_graph(cases[k].op, DT_FLOAT, 6, x, NULL);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && floats_near(outp(g, 0), cases[k].want, 6, 2e-6), "%s: %s", cases[k].op, err);
        done(g);
    }

    g = unary_graph("LeakyRelu", DT_FLOAT, 6, x, &n);
    set_float(n, "alpha", 0.1f);
    rc = run(g, 1, err, sizeof(err));
    CHECK(rc == 0 && floats_near(outp(g, 0), (float[]){ -0.3f, -0.1f, -0.025f, 0, 0.5f, 4 }, 6, 1e-7),
          "LeakyRelu: %s", err);
    done(g);

    /* Clip, opset 11 style: bounds as inputs, one omitted. */
    {
        g = graph_new();
        float lo = -0.5f;
        int in[3] = { mk(g, "x", DT_FLOAT, 1, (int64_t[]){ 6 }, x), mk(g, "lo", DT_FLOAT, 0, NULL, &lo), -1 };
        mknode(g, "Clip", 3, in, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && floats_near(outp(g, 0), (float[]){ -0.5f, -0.5f, -0.25f, 0, 0.5f, 4 }, 6, 0),
              "Clip min only: %s", err);
        done(g);

        g = unary_graph("Clip", DT_FLOAT, 6, x, &n);
        set_float(n, "min", -1);
        set_float(n, "max", 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && floats_near(outp(g, 0), (float[]){ -1, -1, -0.25f, 0, 0.5f, 1 }, 6, 0),
              "Clip attrs: %s", err);
        done(g);

        g = graph_new();
        int8_t xi[4] = { -100, -3, 3, 100 }, l8 = -5, h8 = 5;
        int in2[3] = { mk(g, "x", DT_INT8, 1, (int64_t[]){ 4 }, xi), mk(g, "lo", DT_INT8, 0, NULL, &l8),
                       mk(g, "hi", DT_INT8, 0, NULL, &h8) };
        mknode(g, "Clip", 3, in2, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && outp(g, 0)->dtype == DT_INT8 && ints_eq(outp(g, 0), (int64_t[]){ -5, -3, 3, 5 }, 4),
              "Clip int8: %s", err);
        done(g);
    }

    /* The polynomial exp over its whole normal range, against libm, threaded. */
    {
        int64_t N = 200000;
        float *v = xmalloc((size_t)N * 4);
        for (int64_t i = 0; i < N; i++)
            v[i] = -87.0f + 175.5f * (float)i / (float)N;
        g = unary_graph("Exp", DT_FLOAT, N, v, NULL);
        rc = run(g, 2, err, sizeof(err));
        const float *y = outp(g, 0)->data;
        double worst = 0;
        for (int64_t i = 0; rc == 0 && i < N; i++) {
            double r = fabs((double)y[i] - exp((double)v[i])) / exp((double)v[i]);
            if (!(r <= worst))
                worst = r;
        }
        CHECK(rc == 0 && worst < 4e-7, "Exp relative error %g: %s", worst, err);
        done(g);

        g = unary_graph("Sigmoid", DT_FLOAT, N, v, NULL);
        rc = run(g, 2, err, sizeof(err));
        y = outp(g, 0)->data;
        worst = 0;
        for (int64_t i = 0; rc == 0 && i < N; i++) {
            double ref = 1.0 / (1.0 + exp(-(double)v[i]));
            double r = fabs((double)y[i] - ref) / ref;
            if (!(r <= worst))
                worst = r;
        }
        CHECK(rc == 0 && worst < 1e-6, "Sigmoid relative error %g: %s", worst, err);
        done(g);
        free(v);

        float ext[4] = { -1000, 1000, INFINITY, NAN };
        g = unary_graph("Exp", DT_FLOAT, 4, ext, NULL);
        rc = run(g, 1, err, sizeof(err));
        y = outp(g, 0)->data;
        CHECK(rc == 0 && y[0] == 0 && isinf(y[1]) && isinf(y[2]) && isnan(y[3]), "Exp extremes");
        done(g);
    }
}

/* ---- shape ------------------------------------------------------------------ */

static void test_shape(void)
{
    char err[256];
    graph_t *g;
    node_t *n;
    int rc;
    float x24[24];
    for (int i = 0; i < 24; i++)
        x24[i] = (float)i;

    /* Reshape with 0 (copy) and -1 (infer). */
    {
        g = graph_new();
        int64_t s[2] = { 0, -1 };
        int in[2] = { mk(g, "x", DT_FLOAT, 3, (int64_t[]){ 2, 3, 4 }, x24), mk(g, "s", DT_INT64, 1, (int64_t[]){ 2 }, s) };
        mknode(g, "Reshape", 2, in, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && shape_is(outp(g, 0), 2, (int64_t[]){ 2, 12 }) && floats_near(outp(g, 0), x24, 24, 0),
              "Reshape 0,-1: %s", err);
        done(g);

        /* allowzero: a 0 stays 0, so 24 elements cannot fit. */
        g = graph_new();
        int64_t s2[3] = { 0, 4, -1 };
        int in2[2] = { mk(g, "x", DT_FLOAT, 3, (int64_t[]){ 2, 3, 4 }, x24), mk(g, "s", DT_INT64, 1, (int64_t[]){ 3 }, s2) };
        n = mknode(g, "Reshape", 2, in2, 1);
        set_int(n, "allowzero", 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == RT_ESHAPE && strstr(err, "the_node"), "Reshape allowzero: rc %d %s", rc, err);
        done(g);

        /* A shape that is not constant is refused with a message. */
        g = graph_new();
        int in3[2] = { mk(g, "x", DT_FLOAT, 3, (int64_t[]){ 2, 3, 4 }, x24), mk(g, "s", DT_INT64, 1, (int64_t[]){ 2 }, NULL) };
        mknode(g, "Reshape", 2, in3, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == RT_EUNSUPPORTED && strstr(err, "not constant"), "Reshape dynamic: %s", err);
        done(g);
    }
    /* Flatten, Squeeze (axes input), Unsqueeze (axes attribute, negative). */
    {
        g = graph_new();
        int in[1] = { mk(g, "x", DT_FLOAT, 4, (int64_t[]){ 2, 3, 2, 2 }, x24) };
        n = mknode(g, "Flatten", 1, in, 1);
        set_int(n, "axis", -2);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && shape_is(outp(g, 0), 2, (int64_t[]){ 6, 4 }), "Flatten: %s", err);
        done(g);

        g = graph_new();
        int64_t ax = -1;
        int in2[2] = { mk(g, "x", DT_FLOAT, 3, (int64_t[]){ 1, 24, 1 }, x24), mk(g, "a", DT_INT64, 1, (int64_t[]){ 1 }, &ax) };
        mknode(g, "Squeeze", 2, in2, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && shape_is(outp(g, 0), 2, (int64_t[]){ 1, 24 }), "Squeeze: %s", err);
        done(g);

        g = graph_new();
        int in3[1] = { mk(g, "x", DT_FLOAT, 2, (int64_t[]){ 4, 6 }, x24) };
        n = mknode(g, "Unsqueeze", 1, in3, 1);
        set_ints(n, "axes", 2, (int64_t[]){ -1, 0 });
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && shape_is(outp(g, 0), 4, (int64_t[]){ 1, 4, 6, 1 }) && floats_near(outp(g, 0), x24, 24, 0),
              "Unsqueeze: %s", err);
        done(g);

        g = graph_new();
        int in4[1] = { mk(g, "x", DT_FLOAT, 2, (int64_t[]){ 4, 6 }, x24) };
        n = mknode(g, "Squeeze", 1, in4, 1);
        set_ints(n, "axes", 1, (int64_t[]){ 0 });
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == RT_ESHAPE && strstr(err, "the_node"), "Squeeze non-1 axis: %s", err);
        done(g);
    }
    /* Shape with start/end, ConstantOfShape. */
    {
        g = graph_new();
        int in[1] = { mk(g, "x", DT_FLOAT, 4, (int64_t[]){ 1, 3, 224, 200 }, NULL) };
        n = mknode(g, "Shape", 1, in, 1);
        set_int(n, "start", 1);
        set_int(n, "end", -1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && outp(g, 0)->dtype == DT_INT64 && ints_eq(outp(g, 0), (int64_t[]){ 3, 224 }, 2),
              "Shape start/end: %s", err);
        done(g);

        g = graph_new();
        int64_t s[2] = { 2, 3 };
        int in2[1] = { mk(g, "s", DT_INT64, 1, (int64_t[]){ 2 }, s) };
        n = mknode(g, "ConstantOfShape", 1, in2, 1);
        attr_t *a = new_attr(n, "value", ATTR_TENSOR);
        a->t = xcalloc(1, sizeof(tensor_t));
        int64_t one = 1, seven = 7;
        tensor_set_shape(a->t, DT_INT64, 1, &one);
        a->t->data = xmalloc(8);
        memcpy(a->t->data, &seven, 8);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && outp(g, 0)->dtype == DT_INT64 && shape_is(outp(g, 0), 2, s) &&
              ints_eq(outp(g, 0), (int64_t[]){ 7, 7, 7, 7, 7, 7 }, 6), "ConstantOfShape: %s", err);
        done(g);
    }
    /* Range: int64 with a negative delta, and a dynamic start refused. */
    {
        g = graph_new();
        int64_t st = 10, lim = 3, dl = -3;
        int in[3] = { mk(g, "s", DT_INT64, 0, NULL, &st), mk(g, "l", DT_INT64, 0, NULL, &lim),
                      mk(g, "d", DT_INT64, 0, NULL, &dl) };
        mknode(g, "Range", 3, in, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && shape_is(outp(g, 0), 1, (int64_t[]){ 3 }) &&
              ints_eq(outp(g, 0), (int64_t[]){ 10, 7, 4 }, 3), "Range: %s", err);
        done(g);

        g = graph_new();
        int in2[3] = { mk(g, "s", DT_INT64, 0, NULL, NULL), mk(g, "l", DT_INT64, 0, NULL, &lim),
                       mk(g, "d", DT_INT64, 0, NULL, &dl) };
        mknode(g, "Range", 3, in2, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == RT_EUNSUPPORTED && strstr(err, "the_node"), "Range dynamic: %s", err);
        done(g);
    }
    /* Cast: float -> int64 truncates, -> float16 -> float round trip, -> bool. */
    {
        float v[5] = { -2.7f, -0.5f, 0, 1.9f, 65504 };
        g = unary_graph("Cast", DT_FLOAT, 5, v, &n);
        set_int(n, "to", DT_INT64);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && ints_eq(outp(g, 0), (int64_t[]){ -2, 0, 0, 1, 65504 }, 5), "Cast to int64: %s", err);
        done(g);

        g = unary_graph("Cast", DT_FLOAT, 5, v, &n);
        set_int(n, "to", DT_FLOAT16);
        rc = run(g, 1, err, sizeof(err));
        const uint16_t *h = outp(g, 0)->data;
        /* -2.7 -> 0xC166 (-2.69922), -0.5 -> 0xB800, 0, 1.9 -> 0x3F9A, 65504 -> 0x7BFF */
        CHECK(rc == 0 && h[0] == 0xC166 && h[1] == 0xB800 && h[2] == 0 && h[3] == 0x3F9A && h[4] == 0x7BFF,
              "Cast to float16: %04x %04x %04x %04x %04x", h[0], h[1], h[2], h[3], h[4]);
        done(g);

        g = unary_graph("Cast", DT_FLOAT, 5, v, &n);
        set_int(n, "to", DT_BOOL);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && ints_eq(outp(g, 0), (int64_t[]){ 1, 1, 0, 1, 1 }, 5), "Cast to bool: %s", err);
        done(g);

        int64_t big[2] = { (int64_t)1 << 60, -3 };
        g = unary_graph("Cast", DT_INT64, 2, big, &n);
        set_int(n, "to", DT_INT32);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && ints_eq(outp(g, 0), (int64_t[]){ 0, -3 }, 2), "Cast int64->int32 wraps: %s", err);
        done(g);
    }
}

/* ---- layout ----------------------------------------------------------------- */

static void test_layout(void)
{
    char err[256];
    graph_t *g;
    node_t *n;
    int rc;
    float x24[24];
    for (int i = 0; i < 24; i++)
        x24[i] = (float)i;

    /* Concat on axis 1 of [2,1] and [2,2]. */
    {
        g = graph_new();
        float a[2] = { 1, 2 }, b[4] = { 3, 4, 5, 6 };
        int in[2] = { mk(g, "a", DT_FLOAT, 2, (int64_t[]){ 2, 1 }, a), mk(g, "b", DT_FLOAT, 2, (int64_t[]){ 2, 2 }, b) };
        n = mknode(g, "Concat", 2, in, 1);
        set_int(n, "axis", -1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && floats_near(outp(g, 0), (float[]){ 1, 3, 4, 2, 5, 6 }, 6, 0), "Concat: %s", err);
        done(g);
    }
    /* Split with a split input into 1 and 2 columns. */
    {
        g = graph_new();
        float x[6] = { 1, 2, 3, 4, 5, 6 };
        int64_t sp[2] = { 1, 2 };
        int in[2] = { mk(g, "x", DT_FLOAT, 2, (int64_t[]){ 2, 3 }, x), mk(g, "s", DT_INT64, 1, (int64_t[]){ 2 }, sp) };
        n = mknode(g, "Split", 2, in, 2);
        set_int(n, "axis", 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && floats_near(outp(g, 0), (float[]){ 1, 4 }, 2, 0) &&
              floats_near(outp(g, 1), (float[]){ 2, 3, 5, 6 }, 4, 0), "Split: %s", err);
        done(g);
    }
    /* Slice: negative step with clamped out-of-range start, plus a second axis. */
    {
        g = graph_new();
        int64_t st[2] = { 100, 1 }, en[2] = { -100, 3 }, ax[2] = { 1, 0 }, stp[2] = { -2, 1 };
        int in[5] = { mk(g, "x", DT_FLOAT, 2, (int64_t[]){ 4, 6 }, x24), mk(g, "s", DT_INT64, 1, (int64_t[]){ 2 }, st),
                      mk(g, "e", DT_INT64, 1, (int64_t[]){ 2 }, en), mk(g, "a", DT_INT64, 1, (int64_t[]){ 2 }, ax),
                      mk(g, "p", DT_INT64, 1, (int64_t[]){ 2 }, stp) };
        mknode(g, "Slice", 5, in, 1);
        rc = run(g, 1, err, sizeof(err));
        /* rows 1..2, columns 5,3,1 */
        CHECK(rc == 0 && shape_is(outp(g, 0), 2, (int64_t[]){ 2, 3 }) &&
              floats_near(outp(g, 0), (float[]){ 11, 9, 7, 17, 15, 13 }, 6, 0), "Slice: %s", err);
        done(g);

        g = graph_new();
        int64_t st2 = 7, en2 = 9;
        int in2[3] = { mk(g, "x", DT_FLOAT, 1, (int64_t[]){ 6 }, x24), mk(g, "s", DT_INT64, 1, (int64_t[]){ 1 }, &st2),
                       mk(g, "e", DT_INT64, 1, (int64_t[]){ 1 }, &en2) };
        mknode(g, "Slice", 3, in2, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && shape_is(outp(g, 0), 1, (int64_t[]){ 0 }), "Slice empty: %s", err);
        done(g);
    }
    /* Transpose 6-D with the pixel-shuffle perm, against index arithmetic: rows of 5
     * take the generic strided copy, rows of 20 (contiguous in the source, inner dim
     * of 2) the interleaving one. */
    for (int64_t W = 5; W <= 20; W += 15) {
        int64_t d[6] = { 1, 2, 3, 2, 4, W }, N = 48 * W, perm[6] = { 0, 1, 4, 2, 5, 3 };
        float *x = xmalloc((size_t)N * 4);
        for (int64_t i = 0; i < N; i++)
            x[i] = (float)i;
        for (int th = 1; th <= 2; th++) {
            g = graph_new();
            int in[1] = { mk(g, "x", DT_FLOAT, 6, d, x) };
            n = mknode(g, "Transpose", 1, in, 1);
            set_ints(n, "perm", 6, perm);
            rc = run(g, th, err, sizeof(err));
            int ok = rc == 0 && shape_is(outp(g, 0), 6, (int64_t[]){ 1, 2, 4, 3, W, 2 });
            const float *y = outp(g, 0)->data;
            int64_t k = 0;
            for (int64_t a = 0; ok && a < 2; a++)
                for (int64_t b = 0; b < 4; b++)
                    for (int64_t c = 0; c < 3; c++)
                        for (int64_t e = 0; e < W; e++)
                            for (int64_t f = 0; f < 2; f++)
                                ok &= y[k++] == x[((a * 3 + c) * 2 + f) * 4 * W + b * W + e];
            CHECK(ok, "Transpose 6-D, rows of %lld, %d threads: %s", (long long)W, th, err);
            done(g);
        }
        free(x);
    }
    {
        g = graph_new();
        int in2[1] = { mk(g, "x", DT_FLOAT, 2, (int64_t[]){ 4, 6 }, x24) };
        n = mknode(g, "Transpose", 1, in2, 1);
        set_ints(n, "perm", 2, (int64_t[]){ 0, 0 });
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == RT_ESHAPE && strstr(err, "the_node"), "bad perm: %s", err);
        done(g);
    }
    /* Gather with negative indices on axis 1; int64 data (shape arithmetic). */
    {
        g = graph_new();
        int64_t ix[2] = { -1, 0 };
        int in[2] = { mk(g, "x", DT_FLOAT, 2, (int64_t[]){ 4, 6 }, x24), mk(g, "i", DT_INT64, 1, (int64_t[]){ 2 }, ix) };
        n = mknode(g, "Gather", 2, in, 1);
        set_int(n, "axis", 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && shape_is(outp(g, 0), 2, (int64_t[]){ 4, 2 }) &&
              floats_near(outp(g, 0), (float[]){ 5, 0, 11, 6, 17, 12, 23, 18 }, 8, 0), "Gather: %s", err);
        done(g);

        g = graph_new();
        int64_t shp[4] = { 1, 3, 224, 224 }, i0 = 2;
        int in2[2] = { mk(g, "x", DT_INT64, 1, (int64_t[]){ 4 }, shp), mk(g, "i", DT_INT64, 0, NULL, &i0) };
        mknode(g, "Gather", 2, in2, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && outp(g, 0)->ndim == 0 && ints_eq(outp(g, 0), (int64_t[]){ 224 }, 1),
              "Gather scalar index: %s", err);
        done(g);
    }
    /* Expand and Tile. */
    {
        g = graph_new();
        float a[3] = { 1, 2, 3 };
        int64_t s[2] = { 2, 1 };
        int in[2] = { mk(g, "a", DT_FLOAT, 1, (int64_t[]){ 3 }, a), mk(g, "s", DT_INT64, 1, (int64_t[]){ 2 }, s) };
        mknode(g, "Expand", 2, in, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && shape_is(outp(g, 0), 2, (int64_t[]){ 2, 3 }) &&
              floats_near(outp(g, 0), (float[]){ 1, 2, 3, 1, 2, 3 }, 6, 0), "Expand: %s", err);
        done(g);

        g = graph_new();
        float b[4] = { 1, 2, 3, 4 };
        int64_t r[2] = { 2, 2 };
        int in2[2] = { mk(g, "b", DT_FLOAT, 2, (int64_t[]){ 2, 2 }, b), mk(g, "r", DT_INT64, 1, (int64_t[]){ 2 }, r) };
        mknode(g, "Tile", 2, in2, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && shape_is(outp(g, 0), 2, (int64_t[]){ 4, 4 }) &&
              floats_near(outp(g, 0), (float[]){ 1, 2, 1, 2, 3, 4, 3, 4, 1, 2, 1, 2, 3, 4, 3, 4 }, 16, 0),
              "Tile: %s", err);
        done(g);
    }
    /* Pad in the three modes on [1,3] with pads (0,2) before and (0,1) after. */
    {
        const char *modes[3] = { "constant", "reflect", "edge" };
        float want[3][6] = { { 9, 9, 1, 2, 3, 9 }, { 3, 2, 1, 2, 3, 2 }, { 1, 1, 1, 2, 3, 3 } };
        for (int m = 0; m < 3; m++) {
            g = graph_new();
            float a[3] = { 1, 2, 3 }, cv = 9;
            int64_t pads[4] = { 0, 2, 0, 1 };
            int in[3] = { mk(g, "a", DT_FLOAT, 2, (int64_t[]){ 1, 3 }, a),
                          mk(g, "p", DT_INT64, 1, (int64_t[]){ 4 }, pads), mk(g, "v", DT_FLOAT, 0, NULL, &cv) };
            n = mknode(g, "Pad", 3, in, 1);
            set_str(n, "mode", modes[m]);
            rc = run(g, 1, err, sizeof(err));
            CHECK(rc == 0 && shape_is(outp(g, 0), 2, (int64_t[]){ 1, 6 }) &&
                  floats_near(outp(g, 0), want[m], 6, 0), "Pad %s: %s", modes[m], err);
            done(g);
        }
        /* Negative pads crop; an outer-dim pad fills whole rows. */
        g = graph_new();
        float a[4] = { 1, 2, 3, 4 };
        int64_t pads[4] = { 1, -1, 0, 0 };
        int in[2] = { mk(g, "a", DT_FLOAT, 2, (int64_t[]){ 2, 2 }, a), mk(g, "p", DT_INT64, 1, (int64_t[]){ 4 }, pads) };
        mknode(g, "Pad", 2, in, 1);
        rc = run(g, 1, err, sizeof(err));
        CHECK(rc == 0 && shape_is(outp(g, 0), 2, (int64_t[]){ 3, 1 }) &&
              floats_near(outp(g, 0), (float[]){ 0, 2, 4 }, 3, 0), "Pad negative: %s", err);
        done(g);
    }
}

/* Big Concat and stride-2 Slice (the copies cut into pieces for the pool), on 1
 * and 2 threads, against the index formulas. */
static void test_layout_big(void)
{
    enum { O = 3, A0 = 5, A1 = 1, A2 = 7, IN = 20011 };
    static float x0[O * A0 * IN], x1[O * A1 * IN], x2[O * A2 * IN];
    const int64_t a[3] = { A0, A1, A2 }, at = A0 + A1 + A2;
    float *xs[3] = { x0, x1, x2 };
    char err[256];
    for (int k = 0; k < 3; k++)
        for (int64_t i = 0; i < O * a[k] * IN; i++)
            xs[k][i] = (float)(k * 1000003 + i);
    for (int nth = 1; nth <= 2; nth++) {
        graph_t *g = graph_new();
        int in[3];
        for (int k = 0; k < 3; k++) {
            char name[16];
            snprintf(name, sizeof(name), "x%d", k);
            in[k] = mk(g, name, DT_FLOAT, 3, (int64_t[]){ O, a[k], IN }, xs[k]);
        }
        node_t *n = mknode(g, "Concat", 3, in, 1);
        set_int(n, "axis", 1);
        int rc = run(g, nth, err, sizeof(err));
        const tensor_t *y = outp(g, 0);
        int64_t bad = 0;
        for (int64_t o = 0; rc == 0 && o < O; o++)
            for (int64_t c = 0, k = 0, c0 = 0; c < at; c++) {
                if (c - c0 >= a[k])
                    c0 += a[k++];
                for (int64_t i = 0; i < IN; i++)
                    bad += ((const float *)y->data)[(o * at + c) * IN + i] !=
                           xs[k][(o * a[k] + c - c0) * IN + i];
            }
        CHECK(rc == 0 && shape_is(y, 3, (int64_t[]){ O, at, IN }) && bad == 0,
              "big Concat, %d threads: %s, %lld wrong", nth, err, (long long)bad);
        done(g);

        /* x0[:, 1::2, 0::2] */
        g = graph_new();
        int sin[5] = { mk(g, "x", DT_FLOAT, 3, (int64_t[]){ O, A0, IN }, x0),
                       mk(g, "st", DT_INT64, 1, (int64_t[]){ 2 }, (int64_t[]){ 1, 0 }),
                       mk(g, "en", DT_INT64, 1, (int64_t[]){ 2 }, (int64_t[]){ A0, IN }),
                       mk(g, "ax", DT_INT64, 1, (int64_t[]){ 2 }, (int64_t[]){ 1, 2 }),
                       mk(g, "sp", DT_INT64, 1, (int64_t[]){ 2 }, (int64_t[]){ 2, 2 }) };
        mknode(g, "Slice", 5, sin, 1);
        rc = run(g, nth, err, sizeof(err));
        y = outp(g, 0);
        int64_t oc = A0 / 2, ow = (IN + 1) / 2;
        bad = 0;
        for (int64_t o = 0; rc == 0 && o < O; o++)
            for (int64_t c = 0; c < oc; c++)
                for (int64_t i = 0; i < ow; i++)
                    bad += ((const float *)y->data)[(o * oc + c) * ow + i] !=
                           x0[(o * A0 + 1 + 2 * c) * IN + 2 * i];
        CHECK(rc == 0 && shape_is(y, 3, (int64_t[]){ O, oc, ow }) && bad == 0,
              "stride-2 Slice, %d threads: %s, %lld wrong", nth, err, (long long)bad);
        done(g);
    }
}

/* ---- resize ----------------------------------------------------------------- */

static graph_t *resize_graph(const float *x, int64_t h, int64_t w, const float *scales,
                             const int64_t *sizes, node_t **np)
{
    graph_t *g = graph_new();
    int in[4] = { mk(g, "x", DT_FLOAT, 4, (int64_t[]){ 1, 1, h, w }, x), -1, -1, -1 };
    if (scales)
        in[2] = mk(g, "scales", DT_FLOAT, 1, (int64_t[]){ 4 }, scales);
    if (sizes)
        in[3] = mk(g, "sizes", DT_INT64, 1, (int64_t[]){ 4 }, sizes);
    *np = mknode(g, "Resize", 4, in, 1);
    g->opset = 13;
    return g;
}

static void test_resize(void)
{
    char err[256];
    graph_t *g;
    node_t *n;
    int rc;
    float x[4] = { 1, 2, 3, 4 };
    float sc[4] = { 1, 1, 2, 2 };

    /* nearest, asymmetric, floor: every pixel doubled. */
    g = resize_graph(x, 2, 2, sc, NULL, &n);
    set_str(n, "coordinate_transformation_mode", "asymmetric");
    set_str(n, "nearest_mode", "floor");
    rc = run(g, 1, err, sizeof(err));
    CHECK(rc == 0 && shape_is(outp(g, 0), 4, (int64_t[]){ 1, 1, 4, 4 }) &&
          floats_near(outp(g, 0), (float[]){ 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4 }, 16, 0),
          "Resize nearest: %s", err);
    done(g);

    /* linear, half_pixel: source coords -0.25, 0.25, 0.75, 1.25 (clamped). */
    g = resize_graph(x, 2, 2, sc, NULL, &n);
    set_str(n, "mode", "linear");
    rc = run(g, 1, err, sizeof(err));
    float row0[4] = { 1, 1.25f, 1.75f, 2 };
    float want[16];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            float fy = i == 0 ? 0 : i == 1 ? 0.25f : i == 2 ? 0.75f : 1;
            want[i * 4 + j] = row0[j] + 2 * fy;
        }
    CHECK(rc == 0 && floats_near(outp(g, 0), want, 16, 1e-6), "Resize linear half_pixel: %s", err);
    done(g);

    /* linear, align_corners, sizes 3x3: corners kept, centre is the mean. */
    g = resize_graph(x, 2, 2, NULL, (int64_t[]){ 1, 1, 3, 3 }, &n);
    set_str(n, "mode", "linear");
    set_str(n, "coordinate_transformation_mode", "align_corners");
    rc = run(g, 1, err, sizeof(err));
    CHECK(rc == 0 && floats_near(outp(g, 0), (float[]){ 1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4 }, 9, 1e-6),
          "Resize align_corners: %s", err);
    done(g);

    /* Upsample (opset 9): scales as input, nearest. */
    g = graph_new();
    int in[2] = { mk(g, "x", DT_FLOAT, 4, (int64_t[]){ 1, 1, 1, 2 }, x), mk(g, "s", DT_FLOAT, 1, (int64_t[]){ 4 }, (float[]){ 1, 1, 2, 3 }) };
    mknode(g, "Upsample", 2, in, 1);
    g->opset = 9;
    rc = run(g, 1, err, sizeof(err));
    CHECK(rc == 0 && shape_is(outp(g, 0), 4, (int64_t[]){ 1, 1, 2, 6 }) &&
          floats_near(outp(g, 0), (float[]){ 1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2 }, 12, 0), "Upsample: %s", err);
    done(g);
}

/* Resize of larger 4-D tensors through every path (one pass over H and W for
 * nearest and bilinear, per-axis passes otherwise), with and without prepare,
 * on 1 and 2 threads, against values computed here from the ONNX formulas. */
static double rz_src_half_pixel(int64_t o, double s, int64_t in)
{
    double v = (o + 0.5) / s - 0.5;
    return v < 0 ? 0 : v > in - 1 ? in - 1 : v;
}

static void test_resize_paths(void)
{
    enum { C = 4, H = 48, W = 64 };
    static float x[C * H * W];
    static const float cases[][4] = {
        { 1, 1, 2, 2 },       /* nearest x2: one pass, integer factor */
        { 1, 1, 8, 8 },       /* nearest x8 */
        { 1, 1, 1.5f, 2.5f }, /* nearest, gathered columns */
        { 1, 2, 1, 3 },       /* nearest along C and W: per-axis passes */
        { 1, 1, 2, 2 },       /* linear x2 (mode set below) */
        { 1, 1, 0.5f, 1.5f }, /* linear, down along H */
        { 1, 2, 2, 1 },       /* linear along C and H: per-axis passes */
    };
    char err[256];
    for (int i = 0; i < C * H * W; i++)
        x[i] = (float)((i * 37) % 101) - 50.0f;
    for (int k = 0; k < (int)(sizeof(cases) / sizeof(cases[0])); k++) {
        const float *sc = cases[k];
        int linear = k >= 4;
        for (int variant = 0; variant < 4; variant++) {
            int nth = variant & 1 ? 2 : 1, prep = variant >> 1;
            graph_t *g = graph_new();
            int in[4] = { mk(g, "x", DT_FLOAT, 4, (int64_t[]){ 1, C, H, W }, x), -1,
                          mk(g, "scales", DT_FLOAT, 1, (int64_t[]){ 4 }, sc), -1 };
            node_t *n = mknode(g, "Resize", 4, in, 1);
            g->opset = 13;
            if (linear) {
                set_str(n, "mode", "linear");
            } else {
                set_str(n, "coordinate_transformation_mode", "asymmetric");
                set_str(n, "nearest_mode", "floor");
            }
            int rc = 0;
            if (prep) {
                n->def = exec_find_op("", "Resize");
                rc = n->def->infer(g, n, err, sizeof(err));
                if (!rc)
                    rc = n->def->prepare(g, n, err, sizeof(err));
            }
            if (!rc)
                rc = run(g, nth, err, sizeof(err));
            int64_t oc = (int64_t)(C * sc[1]), oh = (int64_t)(H * sc[2]), ow = (int64_t)(W * sc[3]);
            const tensor_t *y = outp(g, 0);
            int ok = rc == 0 && shape_is(y, 4, (int64_t[]){ 1, oc, oh, ow });
            double maxerr = 0;
            for (int64_t c = 0; ok && c < oc; c++)
                for (int64_t h = 0; h < oh; h++)
                    for (int64_t w = 0; w < ow; w++) {
                        double want, got = ((const float *)y->data)[(c * oh + h) * ow + w];
                        if (!linear) {
                            int64_t ic = (int64_t)floor(c / (double)sc[1]);
                            int64_t ih = (int64_t)floor(h / (double)sc[2]);
                            int64_t iw = (int64_t)floor(w / (double)sc[3]);
                            want = x[(ic * H + ih) * W + iw];
                        } else {
                            double pc = rz_src_half_pixel(c, sc[1], C);
                            double ph = rz_src_half_pixel(h, sc[2], H);
                            double pw = rz_src_half_pixel(w, sc[3], W);
                            int64_t c0 = (int64_t)pc, h0 = (int64_t)ph, w0 = (int64_t)pw;
                            int64_t c1 = c0 + 1 < C ? c0 + 1 : c0, h1 = h0 + 1 < H ? h0 + 1 : h0;
                            int64_t w1 = w0 + 1 < W ? w0 + 1 : w0;
                            double fc = pc - c0, fh = ph - h0, fw = pw - w0;
                            want = 0;
                            for (int a = 0; a < 2; a++)
                                for (int b = 0; b < 2; b++)
                                    for (int d = 0; d < 2; d++)
                                        want += (a ? fc : 1 - fc) * (b ? fh : 1 - fh) *
                                                (d ? fw : 1 - fw) *
                                                x[((a ? c1 : c0) * H + (b ? h1 : h0)) * W + (d ? w1 : w0)];
                        }
                        if (fabs(got - want) > maxerr)
                            maxerr = fabs(got - want);
                    }
            CHECK(ok && maxerr <= 1e-4, "Resize case %d (%s, scales %g %g %g, %d threads, %s): %s "
                  "max err %g", k, linear ? "linear" : "nearest", sc[1], sc[2], sc[3], nth,
                  prep ? "prepared" : "unprepared", err, maxerr);
            done(g);
        }
    }
}

/* ---- reduce ----------------------------------------------------------------- */

static void test_reduce(void)
{
    char err[256];
    graph_t *g;
    node_t *n;
    int rc;
    float x[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 }; /* [1,3,2,2] */

    g = graph_new();
    int in[1] = { mk(g, "x", DT_FLOAT, 4, (int64_t[]){ 1, 3, 2, 2 }, x) };
    n = mknode(g, "ReduceMean", 1, in, 1);
    set_ints(n, "axes", 2, (int64_t[]){ 2, 3 });
    rc = run(g, 1, err, sizeof(err));
    CHECK(rc == 0 && shape_is(outp(g, 0), 4, (int64_t[]){ 1, 3, 1, 1 }) &&
          floats_near(outp(g, 0), (float[]){ 2.5f, 6.5f, 10.5f }, 3, 1e-6), "ReduceMean: %s", err);
    done(g);

    /* ReduceSum (opset 13): axes as input, keepdims 0, middle axis. */
    g = graph_new();
    int64_t ax = 1;
    int in2[2] = { mk(g, "x", DT_FLOAT, 4, (int64_t[]){ 1, 3, 2, 2 }, x), mk(g, "a", DT_INT64, 1, (int64_t[]){ 1 }, &ax) };
    n = mknode(g, "ReduceSum", 2, in2, 1);
    set_int(n, "keepdims", 0);
    rc = run(g, 1, err, sizeof(err));
    CHECK(rc == 0 && shape_is(outp(g, 0), 3, (int64_t[]){ 1, 2, 2 }) &&
          floats_near(outp(g, 0), (float[]){ 15, 18, 21, 24 }, 4, 0), "ReduceSum axis 1: %s", err);
    done(g);

    /* Empty axes: all reduced, or the identity with noop_with_empty_axes. */
    for (int noop = 0; noop < 2; noop++) {
        g = graph_new();
        int in3[2] = { mk(g, "x", DT_FLOAT, 2, (int64_t[]){ 3, 4 }, x), mk(g, "a", DT_INT64, 1, (int64_t[]){ 0 }, &ax) };
        n = mknode(g, "ReduceMax", 2, in3, 1);
        set_int(n, "noop_with_empty_axes", noop);
        rc = run(g, 1, err, sizeof(err));
        if (noop)
            CHECK(rc == 0 && shape_is(outp(g, 0), 2, (int64_t[]){ 3, 4 }) && floats_near(outp(g, 0), x, 12, 0),
                  "Reduce noop: %s", err);
        else
            CHECK(rc == 0 && shape_is(outp(g, 0), 2, (int64_t[]){ 1, 1 }) &&
                  floats_near(outp(g, 0), (float[]){ 12 }, 1, 0), "ReduceMax all: %s", err);
        done(g);
    }

    /* ArgMax with ties: first or last index. */
    for (int last = 0; last < 2; last++) {
        g = graph_new();
        float t[6] = { 1, 5, 5, 2, 0, 2 };
        int in4[1] = { mk(g, "x", DT_FLOAT, 2, (int64_t[]){ 2, 3 }, t) };
        n = mknode(g, "ArgMax", 1, in4, 1);
        set_int(n, "axis", 1);
        set_int(n, "keepdims", 0);
        set_int(n, "select_last_index", last);
        rc = run(g, 1, err, sizeof(err));
        int64_t want[2][2] = { { 1, 0 }, { 2, 2 } };
        CHECK(rc == 0 && shape_is(outp(g, 0), 1, (int64_t[]){ 2 }) && ints_eq(outp(g, 0), want[last], 2),
              "ArgMax last=%d: %s", last, err);
        done(g);
    }

    /* Softmax: opset 13 along the last axis; opset 11 coerces [2,2,2] at axis 1 to [2,4]. */
    {
        float s[8] = { 0, 1, 2, 3, 0, 0, 1000, 1000 };
        g = graph_new();
        int in5[1] = { mk(g, "x", DT_FLOAT, 3, (int64_t[]){ 2, 2, 2 }, s) };
        mknode(g, "Softmax", 1, in5, 1);
        g->opset = 13;
        rc = run(g, 1, err, sizeof(err));
        float e1 = 1 / (1 + expf(1)), e2 = 1 - e1;
        CHECK(rc == 0 && floats_near(outp(g, 0), (float[]){ e1, e2, e1, e2, 0.5f, 0.5f, 0.5f, 0.5f }, 8, 1e-6),
              "Softmax opset 13: %s", err);
        done(g);

        g = graph_new();
        int in6[1] = { mk(g, "x", DT_FLOAT, 3, (int64_t[]){ 2, 2, 2 }, s) };
        mknode(g, "Softmax", 1, in6, 1);
        g->opset = 11;
        rc = run(g, 1, err, sizeof(err));
        double z = 1 + exp(1) + exp(2) + exp(3);
        float p0 = (float)(1 / z), p1 = (float)(exp(1) / z), p2 = (float)(exp(2) / z), p3 = (float)(exp(3) / z);
        CHECK(rc == 0 && floats_near(outp(g, 0), (float[]){ p0, p1, p2, p3, 0, 0, 0.5f, 0.5f }, 8, 1e-6),
              "Softmax opset 11: %s", err);
        done(g);
    }
}

int main(void)
{
    g_pool = threadpool_new(2);
    test_binary();
    test_unary();
    test_shape();
    test_layout();
    test_layout_big();
    test_resize();
    test_resize_paths();
    test_reduce();
    threadpool_free(g_pool);
    TEST_END();
}
