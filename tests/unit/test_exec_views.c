/* tests/unit/test_exec_views.c — the executor's memory plan lets Reshape, Flatten,
 * Squeeze, Unsqueeze and Identity share their input's arena block when nothing
 * else reads the input. Small graphs x -> Relu -> t1 -> VIEW -> t2 -> Neg -> y:
 * t1 and t2 share memory, and y equals -relu(x) computed here, over two runs with
 * different inputs, with and without a layer hook (whose view event must show the
 * input values). Where t1 also feeds a second node, where the view's input is the
 * graph input, or where the view's output is a graph output besides t1, each keeps
 * its own block or stays correct; a Reshape that ends the graph (its output is
 * the graph output) shares and stays readable after the run. */
#include "runtime/exec/exec.h"
#include "runtime/exec/kernels.h"
#include "runtime/model/model.h"
#include "runtime/passes/passes.h"
#include "tests/test.h"
#include "util/util.h"

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

/* Builds the case's graph; *t1 and *t2 are the view's input and output. */
static graph_t *build(int kind, const char *view, int *t1, int *t2)
{
    graph_t *g = graph_new();
    int64_t xd[3] = {2, 3, 4};
    int x = graph_add_tensor(g, "x");
    tensor_set_shape(&g->t[x], DT_FLOAT, 3, xd);
    g->t[x].kind = TK_INPUT;
    int a = graph_add_tensor(g, "t1"), b = graph_add_tensor(g, "t2");
    int y = graph_add_tensor(g, "y"), z = -1;
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
    if (kind == V_TWO_USERS) {
        z = graph_add_tensor(g, "z");
        graph_add_node(g, "abs", "Abs", "", 1, &a, 1, &z);
    }
    g->inputs = xmalloc(sizeof(int));
    g->inputs[g->n_inputs++] = x;
    g->outputs = xmalloc(2 * sizeof(int));
    g->outputs[g->n_outputs++] = y;
    if (z >= 0)
        g->outputs[g->n_outputs++] = z;
    g->opset = 13;
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

int main(void)
{
    static const char *const views[] = {"Reshape", "Identity"};
    for (int v = 0; v < 2; v++)
        for (int kind = V_SHARED; kind <= V_AT_END; kind++)
            check(kind, views[v]);
    TEST_END();
}
