/* tests/unit/test_exec_views.c — the executor's memory plan lets Reshape, Flatten,
 * Squeeze, Unsqueeze and Identity share their input's arena block when nothing
 * else reads the input. Small graphs x -> Relu -> t1 -> VIEW -> t2 -> Neg -> y:
 * t1 and t2 share memory, and y equals -relu(x) computed here, over two runs with
 * different inputs, with and without a layer hook (whose view event must show the
 * input values). Where t1 also feeds a second node, where the view's input is the
 * graph input, or where the view's output is a graph output besides t1, each keeps
 * its own block or stays correct; a Reshape that ends the graph (its output is
 * the graph output) shares and stays readable after the run.
 * Concat: x -> Relu -> a, x -> Neg -> b, optionally Sigmoid -> d, Concat -> c ->
 * Abs -> y (and a nested Concat(Concat(a, b), d)): a and b are written in place
 * inside c when the dims before the axis are 1 and the pieces 64-byte aligned;
 * a piece with a second reader after the Concat or a misaligned start is copied
 * while the other stays in place (a second reader before the Concat leaves it
 * in place, and reads the right values), and nothing is in place when the axis
 * has an outer dim above 1; y equals the formula computed here in every case,
 * with and without a hook. */
#include "runtime/exec/exec.h"
#include "runtime/exec/kernels.h"
#include "runtime/model/model.h"
#include "runtime/passes/passes.h"
#include "tests/test.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { N = 24 };

enum { V_SHARED, V_TWO_USERS, V_FROM_INPUT, V_AT_END };

static int add_shape_const(graph_t *g, const char *name, int64_t a, int64_t b)
{
    int t = graph_add_tensor(g, name);
    int64_t d[1] = {2};
    tensor_set_shape(&g->t[t], DT_INT64, 1, d);
    g->t[t].kind = TK_CONST;
    g->t[t].data = xmalloc(2 * sizeof(int64_t));
    ((int64_t *)g->t[t].data)[0] = a;
    ((int64_t *)g->t[t].data)[1] = b;
    return t;
}

/* Input x, output y; with a second reader of tensor a, Abs(a) as a second output. */
static void finish(graph_t *g, int x, int y, int a)
{
    g->inputs = xmalloc(sizeof(int));
    g->inputs[g->n_inputs++] = x;
    g->outputs = xmalloc(2 * sizeof(int));
    g->outputs[g->n_outputs++] = y;
    if (a >= 0) {
        int z = graph_add_tensor(g, "z");
        graph_add_node(g, "abs2", "Abs", "", 1, &a, 1, &z);
        g->outputs[g->n_outputs++] = z;
    }
    g->opset = 13;
}

/* Builds the case's graph; *t1 and *t2 are the view's input and output. */
static graph_t *build(int kind, const char *view, int *t1, int *t2)
{
    graph_t *g = graph_new();
    int64_t xd[3] = {2, 3, 4};
    int x = graph_add_tensor(g, "x");
    tensor_set_shape(&g->t[x], DT_FLOAT, 3, xd);
    g->t[x].kind = TK_INPUT;
    int a = graph_add_tensor(g, "t1"), b = graph_add_tensor(g, "t2");
    int y = graph_add_tensor(g, "y");
    int src = kind == V_FROM_INPUT ? x : a;
    if (kind != V_FROM_INPUT)
        graph_add_node(g, "relu", "Relu", "", 1, &x, 1, &a);
    int vin[2] = {src, add_shape_const(g, "shape", 6, 4)};
    int nv = !strcmp(view, "Reshape") ? 2 : 1;
    graph_add_node(g, "view", view, "", nv, vin, 1, &b);
    if (kind == V_AT_END) {
        y = b;
    } else {
        graph_add_node(g, "neg", "Neg", "", 1, &b, 1, &y);
    }
    finish(g, x, y, kind == V_TWO_USERS ? a : -1);
    *t1 = src;
    *t2 = b;
    return g;
}

typedef struct seen {
    const float *x;
    int kind, bad, views;
} seen;

/* The view's event: its output holds relu(x) (or x) whatever the sharing. */
static int view_hook(const layer_event_t *ev, void *user)
{
    seen *s = user;
    if (strcmp(ev->name, "view"))
        return 0;
    s->views++;
    const float *o = ev->out[0]->data;
    for (int i = 0; i < N; i++) {
        float want = s->kind == V_FROM_INPUT || s->x[i] > 0 ? s->x[i] : 0.0f;
        s->bad += o[i] != want;
    }
    return 0;
}

static void check(int kind, const char *view)
{
    int t1, t2;
    graph_t *g = build(kind, view, &t1, &t2);
    char err[256] = "";
    exec_t *x = NULL;
    exec_opts o = {.nthreads = 1};
    int rc = passes_prepare(g, NULL, 0, err, sizeof(err));
    rc = rc ? rc : exec_create(g, &o, &x, err, sizeof(err));
    CHECK(rc == 0, "%s case %d: %s", view, kind, err);
    if (rc) {
        graph_free(g);
        return;
    }
    int shared = g->t[t1].data == g->t[t2].data;
    int want_shared = kind == V_SHARED || kind == V_AT_END;
    CHECK(shared == want_shared, "%s case %d: view output %s its input's block", view, kind,
          shared ? "shares" : "does not share");
    for (int r = 0; r < 4; r++) {
        float in[N];
        for (int i = 0; i < N; i++)
            in[i] = (float)((i * 7 + r * 5) % 11) - 5.0f + 0.25f * (float)r;
        seen s = {.x = in, .kind = kind};
        rc = exec_set_input(x, 0, in, sizeof(in), err, sizeof(err));
        rc = rc ? rc : exec_run(x, r % 2 ? view_hook : NULL, &s, err, sizeof(err));
        CHECK(rc == 0, "%s case %d run %d: %s", view, kind, r, err);
        if (rc)
            break;
        const float *y = exec_output(x, 0)->data;
        int bad = 0;
        for (int i = 0; i < N; i++) {
            float v = kind == V_FROM_INPUT || in[i] > 0 ? in[i] : 0.0f;
            bad += y[i] != (kind == V_AT_END ? v : -v);
        }
        if (kind == V_TWO_USERS) {
            const float *z = exec_output(x, 1)->data;
            for (int i = 0; i < N; i++)
                bad += z[i] != (in[i] > 0 ? in[i] : 0.0f);
        }
        CHECK(bad == 0, "%s case %d run %d: %d wrong outputs", view, kind, r, bad);
        if (r % 2)
            CHECK(s.views == 1 && s.bad == 0, "%s case %d run %d: view event %d, %d wrong",
                  view, kind, r, s.views, s.bad);
    }
    exec_free(x);
    graph_free(g);
}

enum { C_PLACE, C_NESTED, C_TWO_USERS, C_READ_BEFORE, C_MISALIGNED, C_OUTER, C_COUNT };

static void check_concat(int kind)
{
    graph_t *g = graph_new();
    /* 1x2x4x4 pieces are 128 bytes; 1x1x3x3 are 36; 2x1x4x4 have an outer dim */
    int64_t xd[4] = {1, 2, 4, 4};
    if (kind == C_MISALIGNED)
        xd[1] = 1, xd[2] = xd[3] = 3;
    if (kind == C_OUTER)
        xd[0] = 2, xd[1] = 1;
    int64_t n = xd[0] * xd[1] * xd[2] * xd[3];
    int x = graph_add_tensor(g, "x");
    tensor_set_shape(&g->t[x], DT_FLOAT, 4, xd);
    g->t[x].kind = TK_INPUT;
    int a = graph_add_tensor(g, "a"), b = graph_add_tensor(g, "b"), c = graph_add_tensor(g, "c");
    int d = graph_add_tensor(g, "d"), y = graph_add_tensor(g, "y");
    graph_add_node(g, "relu", "Relu", "", 1, &x, 1, &a);
    graph_add_node(g, "neg", "Neg", "", 1, &x, 1, &b);
    int z = -1;
    if (kind == C_READ_BEFORE) { /* a's other reader runs before the Concat */
        z = graph_add_tensor(g, "z");
        graph_add_node(g, "abs2", "Abs", "", 1, &a, 1, &z);
    }
    int cin[2] = {a, b};
    if (kind == C_NESTED) {
        int c1 = graph_add_tensor(g, "c1");
        graph_add_node(g, "sig", "Sigmoid", "", 1, &x, 1, &d);
        graph_add_node(g, "cat1", "Concat", "", 2, cin, 1, &c1);
        cin[0] = c1;
        cin[1] = d;
    }
    int cn = graph_add_node(g, "cat", "Concat", "", 2, cin, 1, &c);
    node_t *nn = &g->nodes[cn];
    for (int k = 0; k < g->n_nodes; k++)
        if (!strcmp(g->nodes[k].op, "Concat")) {
            nn = &g->nodes[k];
            nn->attrs = xcalloc(1, sizeof(attr_t));
            nn->n_attr = 1;
            nn->attrs[0].name = xstrdup("axis");
            nn->attrs[0].type = ATTR_INT;
            nn->attrs[0].i = 1;
        }
    graph_add_node(g, "abs", "Abs", "", 1, &c, 1, &y);
    finish(g, x, y, kind == C_TWO_USERS ? a : -1);
    if (z >= 0)
        g->outputs[g->n_outputs++] = z;

    char err[256] = "";
    exec_t *ex = NULL;
    exec_opts o = {.nthreads = 2, .exact_threads = 1};
    int rc = passes_prepare(g, NULL, 0, err, sizeof(err));
    rc = rc ? rc : exec_create(g, &o, &ex, err, sizeof(err));
    CHECK(rc == 0, "concat case %d: %s", kind, err);
    if (rc) {
        graph_free(g);
        return;
    }
    const char *cd = g->t[c].data;
    /* piece by piece: the one with a second reader after the Concat, or not
     * 64-byte aligned (b, after 36 bytes), is copied, the others are written
     * in place */
    int a_in = g->t[a].data == cd, b_in = g->t[b].data == cd + n * 4;
    int a_want = kind != C_TWO_USERS && kind != C_OUTER;
    int b_want = kind != C_MISALIGNED && kind != C_OUTER;
    CHECK(a_in == a_want && b_in == b_want, "concat case %d: a %s, b %s in place", kind,
          a_in ? "is" : "is not", b_in ? "is" : "is not");
    if (kind == C_NESTED)
        CHECK(g->t[d].data == cd + 2 * n * 4, "nested concat: d not in place");
    int parts = kind == C_NESTED ? 3 : 2;
    for (int r = 0; r < 2; r++) {
        float *in = xmalloc(sizeof(float) * (size_t)n);
        for (int64_t i = 0; i < n; i++)
            in[i] = (float)((i * 5 + r * 3) % 9) - 4.0f;
        seen s = {.x = in, .kind = -1};
        rc = exec_set_input(ex, 0, in, sizeof(float) * (size_t)n, err, sizeof(err));
        rc = rc ? rc : exec_run(ex, r ? view_hook : NULL, &s, err, sizeof(err));
        CHECK(rc == 0, "concat case %d run %d: %s", kind, r, err);
        if (!rc) {
            /* c[o][piece][rest]: the outer dim is xd[0], each piece xd[1] channels */
            const float *yv = exec_output(ex, 0)->data;
            int64_t per = n / xd[0];
            int bad = 0;
            for (int64_t oi = 0; oi < xd[0]; oi++)
                for (int pc = 0; pc < parts; pc++)
                    for (int64_t i = 0; i < per; i++) {
                        float v = in[oi * per + i];
                        float want_v = pc == 0 ? (v > 0 ? v : 0.0f)
                                     : pc == 1 ? -v
                                               : 1.0f / (1.0f + expf(-v));
                        want_v = fabsf(want_v);
                        float got = yv[(oi * parts + pc) * per + i];
                        bad += fabsf(got - want_v) > 1e-6f;
                    }
            if (z >= 0) /* the other reader saw a before the Concat took it */
                for (int64_t i = 0; i < n; i++)
                    bad += ((const float *)exec_output(ex, 1)->data)[i] != (in[i] > 0 ? in[i] : 0.0f);
            CHECK(bad == 0, "concat case %d run %d: %d wrong outputs", kind, r, bad);
        }
        free(in);
    }
    exec_free(ex);
    graph_free(g);
}

int main(void)
{
    for (int kind = 0; kind < C_COUNT; kind++)
        check_concat(kind);
    static const char *const views[] = {"Reshape", "Identity"};
    for (int v = 0; v < 2; v++)
        for (int kind = V_SHARED; kind <= V_AT_END; kind++)
            check(kind, views[v]);
    TEST_END();
}
