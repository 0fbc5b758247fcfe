/* tests/unit/test_fuse.c — Conv + activation fusion in the executor: a Conv
 * followed by Relu / Clip / LeakyRelu / HardSwish / x*Sigmoid(x) run without a
 * layer hook (fused) and with one (node by node) both equal a direct convolution
 * and the activation formula computed here in double. The fused run must not
 * write the conv's own output (proof that it fused), and a conv whose output is
 * also a graph output must not fuse. Dense and depthwise convs, odd channel and
 * column counts (partial register tiles). On the real YOLOX-nano (SiLU after
 * every conv, residual Adds, a Focus stem), PP-OCR models (scalar affine +
 * decomposed HardSwish) and UltraFace (a residual Add), the fused run's output
 * equals the node-by-node run's (which tests/e2e checks against
 * onnxruntime). A residual Add (check_residual) and a Focus stem's Slices and
 * Concat (check_gather) taken by the conv, against double references. Slices
 * of a Slice's output composed (check_slices). A bias-less conv's Add of a
 * constant per channel taken as its bias (check_channel_add). A few-channel conv and the
 * depthwise conv reading it run as one kernel (check_pair): bit for bit the
 * two run apart, against double. Depthwise geometries (strides,
 * pads, dilations, planes taller than one row strip and wider than a register
 * block) against a direct convolution in double. A small model's runs stay
 * on one thread (check_threads). */
#include "runtime/exec/exec.h"
#include "runtime/exec/kernels.h"
#include "runtime/model/model.h"
#include "runtime/passes/passes.h"
#include "runtime/quant/quant.h"
#include "tests/test.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { C = 5, H = 9, W = 13, K = 3 };

/* A_AFFINE: Mul/Add by scalars; A_PADDLE: affine, HardSwish as Add 3 / Clip 0..6 /
 * Mul / Div 6, affine again (PP-LCNet's learnable affine blocks) */
enum { A_RELU, A_CLIP, A_LEAKY, A_HSWISH, A_SILU, A_AFFINE, A_PADDLE, A_HSW10, A_COUNT };
static const char *const act_names[A_COUNT] = {"Relu", "Clip", "LeakyRelu", "HardSwish", "SiLU",
                                               "affine", "affine+hswish+affine",
                                               "hswish with opset-10 Clip"};
static const int act_layers[A_COUNT] = {2, 2, 2, 2, 3, 3, 9, 5};

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static float frand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((rng >> 40) & 0xffff) / 16384.0f - 2.0f; /* [-2, 2) */
}

static int add_const(graph_t *g, const char *name, int ndim, const int64_t *dims)
{
    int t = graph_add_tensor(g, name);
    tensor_t *x = &g->t[t];
    x->kind = TK_CONST;
    x->dtype = DT_FLOAT;
    x->ndim = ndim;
    memcpy(x->dims, dims, sizeof(int64_t) * (size_t)ndim);
    float *d = xaligned_alloc(tensor_nbytes(x));
    for (int64_t i = 0; i < tensor_numel(x); i++)
        d[i] = frand();
    x->data = d;
    return t;
}

static int add_scalar(graph_t *g, const char *name, float v)
{
    int t = graph_add_tensor(g, name);
    tensor_t *x = &g->t[t];
    x->kind = TK_CONST;
    x->dtype = DT_FLOAT;
    x->ndim = 0;
    x->data = xaligned_alloc(sizeof(float));
    *(float *)x->data = v;
    return t;
}

static void set_ints(node_t *n, const char *name, int cnt, int64_t v)
{
    n->attrs = xrealloc(n->attrs, sizeof(attr_t) * (size_t)(n->n_attr + 1));
    attr_t *a = &n->attrs[n->n_attr++];
    memset(a, 0, sizeof(*a));
    a->name = xstrdup(name);
    a->type = cnt ? ATTR_INTS : ATTR_INT;
    a->i = v;
    a->n = cnt;
    if (cnt) {
        a->ints = xcalloc((size_t)cnt, sizeof(int64_t));
        for (int i = 0; i < cnt; i++)
            a->ints[i] = v;
    }
}

/* x -> Conv(pad 1) -> c -> act -> y; tap: c is a graph output too. */
static graph_t *build(int act, int oc, int group, int tap)
{
    graph_t *g = graph_new();
    int64_t xd[4] = {1, C, H, W}, wd[4] = {oc, C / group, K, K}, od[1] = {oc};
    int x = graph_add_tensor(g, "x");
    g->t[x].kind = TK_INPUT;
    g->t[x].dtype = DT_FLOAT;
    g->t[x].ndim = 4;
    memcpy(g->t[x].dims, xd, sizeof(xd));
    int w = add_const(g, "w", 4, wd), b = add_const(g, "b", 1, od);
    int c = graph_add_tensor(g, "c"), y = graph_add_tensor(g, "y");
    int cin[3] = {x, w, b};
    int cn = graph_add_node(g, "conv", "Conv", "", 3, cin, 1, &c);
    set_ints(&g->nodes[cn], "pads", 4, 1);
    if (group > 1)
        set_ints(&g->nodes[cn], "group", 0, group);
    if (act == A_HSW10) {
        int t3 = graph_add_tensor(g, "t3"), t4 = graph_add_tensor(g, "t4");
        int t5 = graph_add_tensor(g, "t5");
        int a3[2] = {c, add_scalar(g, "three", 3.0f)}, mu[2] = {c, t4};
        int dv[2] = {t5, add_scalar(g, "six", 6.0f)};
        graph_add_node(g, "add3", "Add", "", 2, a3, 1, &t3);
        int cl = graph_add_node(g, "clip", "Clip", "", 1, &t3, 1, &t4);
        graph_add_node(g, "mul", "Mul", "", 2, mu, 1, &t5);
        graph_add_node(g, "div", "Div", "", 2, dv, 1, &y);
        node_t *n = &g->nodes[cl];
        n->attrs = xcalloc(2, sizeof(attr_t));
        n->n_attr = 2;
        n->attrs[0].name = xstrdup("min");
        n->attrs[0].type = ATTR_FLOAT;
        n->attrs[0].f = 0.0f;
        n->attrs[1].name = xstrdup("max");
        n->attrs[1].type = ATTR_FLOAT;
        n->attrs[1].f = 6.0f;
        g->opset = 10;
    } else if (act == A_AFFINE || act == A_PADDLE) {
        int t1 = graph_add_tensor(g, "t1"), t2 = graph_add_tensor(g, "t2");
        int m1[2] = {add_scalar(g, "s1", 0.75f), c}, a1[2] = {t1, add_scalar(g, "b1", -0.25f)};
        graph_add_node(g, "mul1", "Mul", "", 2, m1, 1, &t1);
        graph_add_node(g, "add1", "Add", "", 2, a1, 1, act == A_AFFINE ? &y : &t2);
        if (act == A_PADDLE) {
            int t3 = graph_add_tensor(g, "t3"), t4 = graph_add_tensor(g, "t4");
            int t5 = graph_add_tensor(g, "t5"), t6 = graph_add_tensor(g, "t6");
            int t7 = graph_add_tensor(g, "t7");
            int a3[2] = {t2, add_scalar(g, "three", 3.0f)};
            int cl[3] = {t3, add_scalar(g, "zero", 0.0f), add_scalar(g, "six", 6.0f)};
            int mu[2] = {t2, t4}, dv[2] = {t5, add_scalar(g, "six2", 6.0f)};
            int m2[2] = {t6, add_scalar(g, "s2", 1.5f)}, a2[2] = {add_scalar(g, "b2", 0.125f), t7};
            graph_add_node(g, "add3", "Add", "", 2, a3, 1, &t3);
            graph_add_node(g, "clip", "Clip", "", 3, cl, 1, &t4);
            graph_add_node(g, "mul", "Mul", "", 2, mu, 1, &t5);
            graph_add_node(g, "div", "Div", "", 2, dv, 1, &t6);
            graph_add_node(g, "mul2", "Mul", "", 2, m2, 1, &t7);
            graph_add_node(g, "add2", "Add", "", 2, a2, 1, &y);
        }
    } else if (act == A_SILU) {
        int s = graph_add_tensor(g, "s");
        int min[2] = {s, c};
        graph_add_node(g, "sig", "Sigmoid", "", 1, &c, 1, &s);
        graph_add_node(g, "mul", "Mul", "", 2, min, 1, &y);
    } else if (act == A_CLIP) {
        int in[3] = {c, add_scalar(g, "lo", -0.5f), add_scalar(g, "hi", 1.25f)};
        graph_add_node(g, "act", "Clip", "", 3, in, 1, &y);
    } else {
        int an = graph_add_node(g, "act", act_names[act], "", 1, &c, 1, &y);
        if (act == A_LEAKY) {
            node_t *n = &g->nodes[an];
            n->attrs = xcalloc(1, sizeof(attr_t));
            n->n_attr = 1;
            n->attrs[0].name = xstrdup("alpha");
            n->attrs[0].type = ATTR_FLOAT;
            n->attrs[0].f = 0.125f;
        }
    }
    g->inputs = xmalloc(sizeof(int));
    g->inputs[g->n_inputs++] = x;
    g->outputs = xmalloc(2 * sizeof(int));
    g->outputs[g->n_outputs++] = y;
    if (tap)
        g->outputs[g->n_outputs++] = c;
    if (g->opset == 0)
        g->opset = 13;
    return g;
}

static double act_ref(int act, double v)
{
    switch (act) {
    case A_RELU:
        return v > 0 ? v : 0;
    case A_CLIP:
        return v < -0.5 ? -0.5 : (v > 1.25 ? 1.25 : v);
    case A_LEAKY:
        return v < 0 ? 0.125 * v : v;
    case A_HSWISH:
    case A_HSW10:
        return v * fmax(0.0, fmin(1.0, v / 6 + 0.5));
    case A_AFFINE:
        return v * 0.75 - 0.25;
    case A_PADDLE: {
        double u = v * 0.75 - 0.25;
        return u * fmin(fmax(u + 3, 0.0), 6.0) / 6 * 1.5 + 0.125;
    }
    default:
        return v / (1.0 + exp(-v));
    }
}

/* act(conv) of tensors "w" and "b", k x k with pad k / 2 (act < 0: none). */
static void reference(graph_t *g, int act, int oc, int group, int k, const float *in, double *ref)
{
    const float *w = g->t[graph_find_tensor(g, "w")].data, *b = g->t[graph_find_tensor(g, "b")].data;
    int cg = C / group, mg = oc / group;
    for (int o = 0; o < oc; o++)
        for (int i = 0; i < H; i++)
            for (int j = 0; j < W; j++) {
                double s = b[o];
                for (int ci = 0; ci < cg; ci++)
                    for (int ki = 0; ki < k; ki++)
                        for (int kj = 0; kj < k; kj++) {
                            int yi = i + ki - k / 2, xj = j + kj - k / 2, cin = (o / mg) * cg + ci;
                            if (yi >= 0 && yi < H && xj >= 0 && xj < W)
                                s += (double)in[(cin * H + yi) * W + xj] *
                                     w[((o * cg + ci) * k + ki) * k + kj];
                        }
                ref[(o * H + i) * W + j] = act < 0 ? s : act_ref(act, s);
            }
}

static int count_hook(const layer_event_t *ev, void *user)
{
    (void)ev;
    ++*(int *)user;
    return 0;
}

/* Timed runs: counts events and remembers the last event's first output. */
typedef struct timed_seen {
    int events;
    const tensor_t *last_out;
} timed_seen;

static int timed_hook(const layer_event_t *ev, void *user)
{
    timed_seen *t = user;
    t->events++;
    t->last_out = ev->out[0];
    return ev->host_us >= 0 ? 0 : 1;
}

/* Largest |y - ref| / (1 + |ref|) over n values. */
static double max_rel_err(const float *y, const double *ref, int64_t n)
{
    double worst = 0;
    for (int64_t i = 0; i < n; i++)
        worst = fmax(worst, fabs(y[i] - ref[i]) / (1.0 + fabs(ref[i])));
    return worst;
}

/* One run: hooked 0 without a hook, 1 with every layer's event (nothing
 * fused, *layers counted), 2 with timing-only events (fusion kept, *ts). */
static int run_hooked(exec_t *x, int hooked, int *layers, timed_seen *ts, char *err,
                      size_t errlen)
{
    return hooked == 2 ? exec_run_timed(x, timed_hook, ts, err, errlen)
                       : exec_run(x, hooked ? count_hook : NULL, layers, err, errlen);
}

/* The CPU has the AVX-512 subsets of the byte paths (quant_byte_paths) and
 * of the fused fp32 kernels (gemm512_available). Without them the runs give the same numbers by other
 * paths, which write the floats the checks of what is skipped expect unwritten. */
static int cpu_has_byte_paths(void)
{
    return gemm512_available() && quant_byte_paths();
}

/* The integer paths every int8 case runs on, in turn. */
static const int i8_isas[3] = {QISA_VNNI, QISA_AVX2, QISA_FLOAT};

/* An int8 case's end: the CPU's own path again, and its graph, runtime and
 * buffers freed. */
static void i8_case_free(exec_t *ex, quant_graph *qg, graph_t *g, float *in, float *ref)
{
    quant_isa_force(QISA_AUTO);
    exec_free(ex);
    quant_graph_free(qg);
    graph_free(g);
    free(in);
    free(ref);
}

/* An int8 case's runs for one value of hooked: the hooked run writes its
 * output 0 (n floats) to ref; else the unhooked run and the timed one (its
 * events in *ts) each give ref bit for bit. what names the case. */
static int runs_vs_hooked(exec_t *ex, int hooked, float *ref, int64_t n, timed_seen *ts,
                          const char *what)
{
    char err[256] = "";
    int rc = 0;
    for (int timed = 0; timed < 1 + !hooked && !rc; timed++) {
        rc = run_hooked(ex, timed ? 2 : hooked, &(int){0}, ts, err, sizeof(err));
        CHECK(rc == 0, "%s run: %s", what, err);
        const float *out = exec_output(ex, 0)->data;
        if (!rc && hooked)
            memcpy(ref, out, sizeof(float) * (size_t)n);
        else if (!rc)
            CHECK(!memcmp(out, ref, sizeof(float) * (size_t)n),
                  "%s timed=%d: the fused run differs from node by node", what, timed);
    }
    return rc;
}

static void check(int act, int oc, int group, int tap, int nthreads)
{
    graph_t *g = build(act, oc, group, tap);
    char err[256] = "";
    exec_t *x = NULL;
    float in[C * H * W];
    double *ref = xmalloc(sizeof(double) * (size_t)(oc * H * W));
    exec_opts o = {.nthreads = nthreads, .exact_threads = 1};
    const char *an = act_names[act];

    for (int i = 0; i < C * H * W; i++)
        in[i] = frand();
    reference(g, act, oc, group, K, in, ref);
    int rc = passes_prepare(g, NULL, 0, err, sizeof(err));
    CHECK(rc == 0, "prepare: %s", err);
    rc = rc ? rc : exec_create(g, &o, &x, err, sizeof(err));
    rc = rc ? rc : exec_set_input(x, 0, in, sizeof(in), err, sizeof(err));
    /* hooked: 0 none, 1 full events, 2 timing-only events (fusion kept) */
    for (int hooked = 0; !rc && hooked < 3; hooked++) {
        tensor_t *ct = &g->t[graph_find_tensor(g, "c")];
        float *cd = ct->data;
        for (int64_t i = 0; i < tensor_numel(ct); i++)
            cd[i] = NAN;
        int layers = 0;
        timed_seen ts = {0};
        rc = run_hooked(x, hooked, &layers, &ts, err, sizeof(err));
        CHECK(rc == 0, "run: %s", err);
        if (rc)
            break;
        double worst = max_rel_err(exec_output(x, 0)->data, ref, oc * H * W);
        CHECK(worst < 1e-5, "%s oc=%d group=%d tap=%d hooked=%d threads=%d: max rel error %g", an,
              oc, group, tap, hooked, nthreads, worst);
        /* fused exactly when not fully hooked and c is not an output: c stays unwritten */
        int c_written = !isnan(cd[0]) && !isnan(cd[tensor_numel(ct) - 1]);
        CHECK(c_written == (hooked == 1 || tap),
              "%s oc=%d group=%d tap=%d hooked=%d: conv output %s", an, oc, group, tap, hooked,
              c_written ? "written (not fused)" : "not written (fused)");
        if (hooked == 1)
            CHECK(layers == act_layers[act], "%s: %d layer events with a hook", an, layers);
        if (hooked == 2) /* fused: one event, for the conv, whose output is the chain's */
            CHECK(tap ? ts.events == act_layers[act]
                      : ts.events == 1 && ts.last_out == exec_output(x, 0),
                  "%s tap=%d: %d timed events", an, tap, ts.events);
    }
    exec_free(x);
    graph_free(g);
    free(ref);
}

/* Conv of a chans x h x w input to mo channels in groups, kernel k, stride s,
 * symmetric pad, dilation dil, against a direct convolution in double. */
static void check_conv(int chans, int mo, int grp, int h, int w, int k, int st, int pad, int dil)
{
    graph_t *g = graph_new();
    int cg = chans / grp, mg = mo / grp;
    int64_t xd[4] = {1, chans, h, w}, wd[4] = {mo, cg, k, k}, od[1] = {mo};
    int x = graph_add_tensor(g, "x");
    g->t[x].kind = TK_INPUT;
    g->t[x].dtype = DT_FLOAT;
    g->t[x].ndim = 4;
    memcpy(g->t[x].dims, xd, sizeof(xd));
    int wt = add_const(g, "w", 4, wd), b = add_const(g, "b", 1, od);
    int y = graph_add_tensor(g, "y");
    int cin[3] = {x, wt, b};
    int cn = graph_add_node(g, "conv", "Conv", "", 3, cin, 1, &y);
    set_ints(&g->nodes[cn], "pads", 4, pad);
    set_ints(&g->nodes[cn], "strides", 2, st);
    set_ints(&g->nodes[cn], "dilations", 2, dil);
    set_ints(&g->nodes[cn], "group", 0, grp);
    g->inputs = xmalloc(sizeof(int));
    g->inputs[g->n_inputs++] = x;
    g->outputs = xmalloc(sizeof(int));
    g->outputs[g->n_outputs++] = y;
    g->opset = 13;

    int oh = (h + 2 * pad - dil * (k - 1) - 1) / st + 1, ow = (w + 2 * pad - dil * (k - 1) - 1) / st + 1;
    size_t nin = (size_t)chans * h * w, nout = (size_t)mo * oh * ow;
    float *in = xmalloc(sizeof(float) * nin);
    double *ref = xmalloc(sizeof(double) * nout);
    for (size_t i = 0; i < nin; i++)
        in[i] = frand();
    const float *wv = g->t[wt].data, *bv = g->t[b].data;
    for (int o = 0; o < mo; o++)
        for (int i = 0; i < oh; i++)
            for (int j = 0; j < ow; j++) {
                double acc = bv[o];
                for (int ci = 0; ci < cg; ci++) {
                    int c = (o / mg) * cg + ci;
                    for (int ki = 0; ki < k; ki++)
                        for (int kj = 0; kj < k; kj++) {
                            int yi = i * st - pad + ki * dil, xj = j * st - pad + kj * dil;
                            if (yi >= 0 && yi < h && xj >= 0 && xj < w)
                                acc += (double)in[((size_t)c * h + yi) * w + xj] *
                                       wv[((o * cg + ci) * k + ki) * k + kj];
                        }
                }
                ref[((size_t)o * oh + i) * ow + j] = acc;
            }
    char err[256] = "";
    exec_t *ex = NULL;
    exec_opts o = {.nthreads = 2, .exact_threads = 1};
    int rc = passes_prepare(g, NULL, 0, err, sizeof(err));
    rc = rc ? rc : exec_create(g, &o, &ex, err, sizeof(err));
    rc = rc ? rc : exec_set_input(ex, 0, in, sizeof(float) * nin, err, sizeof(err));
    rc = rc ? rc : exec_run(ex, NULL, NULL, err, sizeof(err));
    CHECK(rc == 0, "conv %d->%d/%d %dx%d k%d s%d p%d d%d: %s", chans, mo, grp, h, w, k, st, pad, dil, err);
    if (!rc) {
        const tensor_t *yt = exec_output(ex, 0);
        CHECK(tensor_numel(yt) == (int64_t)nout, "conv output size %lld, expected %zu",
              (long long)tensor_numel(yt), nout);
        double worst = tensor_numel(yt) == (int64_t)nout
                           ? max_rel_err(yt->data, ref, (int64_t)nout) : INFINITY;
        /* relative to the sum of |terms|: Winograd rounds differently */
        CHECK(worst < 1e-5 * sqrt((double)(cg * k * k)), "conv %d->%d/%d %dx%d k%d s%d p%d d%d: max rel error %g",
              chans, mo, grp, h, w, k, st, pad, dil, worst);
    }
    exec_free(ex);
    graph_free(g);
    free(in);
    free(ref);
}

/* ConvTranspose with kernel == stride k (no padding): the k x k block of each
 * input pixel, against the definition in double. */
static void check_convt(int chans, int mo, int h, int w, int k)
{
    graph_t *g = graph_new();
    int64_t xd[4] = {1, chans, h, w}, wd[4] = {chans, mo, k, k}, od[1] = {mo};
    int x = graph_add_tensor(g, "x");
    g->t[x].kind = TK_INPUT;
    g->t[x].dtype = DT_FLOAT;
    g->t[x].ndim = 4;
    memcpy(g->t[x].dims, xd, sizeof(xd));
    int wt = add_const(g, "w", 4, wd), b = add_const(g, "b", 1, od);
    int y = graph_add_tensor(g, "y");
    int cin[3] = {x, wt, b};
    int cn = graph_add_node(g, "convt", "ConvTranspose", "", 3, cin, 1, &y);
    set_ints(&g->nodes[cn], "strides", 2, k);
    g->inputs = xmalloc(sizeof(int));
    g->inputs[g->n_inputs++] = x;
    g->outputs = xmalloc(sizeof(int));
    g->outputs[g->n_outputs++] = y;
    g->opset = 13;

    int oh = h * k, ow = w * k;
    size_t nin = (size_t)chans * h * w, nout = (size_t)mo * oh * ow;
    float *in = xmalloc(sizeof(float) * nin);
    double *ref = xmalloc(sizeof(double) * nout);
    for (size_t i = 0; i < nin; i++)
        in[i] = frand();
    const float *wv = g->t[wt].data, *bv = g->t[b].data;
    for (int o = 0; o < mo; o++)
        for (int i = 0; i < oh; i++)
            for (int j = 0; j < ow; j++) {
                double acc = bv[o];
                for (int c = 0; c < chans; c++)
                    acc += (double)in[((size_t)c * h + i / k) * w + j / k] *
                           wv[((c * mo + o) * k + i % k) * k + j % k];
                ref[((size_t)o * oh + i) * ow + j] = acc;
            }
    char err[256] = "";
    exec_t *ex = NULL;
    exec_opts o = {.nthreads = 2, .exact_threads = 1};
    int rc = passes_prepare(g, NULL, 0, err, sizeof(err));
    rc = rc ? rc : exec_create(g, &o, &ex, err, sizeof(err));
    rc = rc ? rc : exec_set_input(ex, 0, in, sizeof(float) * nin, err, sizeof(err));
    rc = rc ? rc : exec_run(ex, NULL, NULL, err, sizeof(err));
    CHECK(rc == 0, "convT %d->%d %dx%d k%d: %s", chans, mo, h, w, k, err);
    if (!rc) {
        const tensor_t *yt = exec_output(ex, 0);
        CHECK(tensor_numel(yt) == (int64_t)nout, "convT output size %lld, expected %zu",
              (long long)tensor_numel(yt), nout);
        double worst = tensor_numel(yt) == (int64_t)nout
                           ? max_rel_err(yt->data, ref, (int64_t)nout) : INFINITY;
        CHECK(worst < 1e-5, "convT %d->%d %dx%d k%d: max rel error %g", chans, mo, h, w, k, worst);
    }
    exec_free(ex);
    graph_free(g);
    free(in);
    free(ref);
}

static int zero_run(op_ctx *c, graph_t *g, node_t *n)
{
    (void)c;
    tensor_t *y = node_output(g, n, 0);
    memset(y->data, 0, tensor_nbytes(y));
    return 0;
}

/* A conv kernel swapped after exec_create (as quantization does) must not run
 * fused: the swapped kernel and then the activation node run. */
static void check_swapped(void)
{
    graph_t *g = build(A_CLIP, 11, 1, 0);
    char err[256] = "";
    exec_t *x = NULL;
    float in[C * H * W];
    exec_opts o = {.nthreads = 1};
    for (int i = 0; i < C * H * W; i++)
        in[i] = frand();
    int rc = passes_prepare(g, NULL, 0, err, sizeof(err));
    rc = rc ? rc : exec_create(g, &o, &x, err, sizeof(err));
    rc = rc ? rc : exec_set_input(x, 0, in, sizeof(in), err, sizeof(err));
    CHECK(rc == 0, "swapped: %s", err);
    if (!rc) {
        node_t *cn = &g->nodes[0];
        const op_def *orig = cn->def;
        op_def zero = *orig;
        zero.run = zero_run;
        zero.release = NULL;
        cn->def = &zero;
        rc = exec_run(x, NULL, NULL, err, sizeof(err));
        CHECK(rc == 0, "swapped run: %s", err);
        const float *y = exec_output(x, 0)->data;
        int nonzero = 0;
        for (int i = 0; i < 11 * H * W; i++)
            nonzero += y[i] != 0.0f;
        CHECK(nonzero == 0, "swapped conv kernel: %d outputs are not Clip(0) = 0 (ran fused)", nonzero);
        cn->def = orig;
    }
    exec_free(x);
    graph_free(g);
}

static int nop_hook(const layer_event_t *ev, void *user)
{
    (void)ev;
    (void)user;
    return 0;
}

static void check_model(const char *path, const char *input, int64_t hh, int64_t hw, float lo,
                        float hi)
{
    graph_t *g = NULL;
    exec_t *x = NULL;
    char err[256] = "";
    input_shape_t sh = {.name = input, .ndim = 4, .dims = {1, 3, hh, hw}};
    exec_opts o = {.nthreads = 2, .exact_threads = 1};
    int rc = model_load_file(path, &g, err, sizeof(err));
    CHECK(rc == 0, "%s: %s", path, err);
    rc = rc ? rc : passes_prepare(g, &sh, 1, err, sizeof(err));
    rc = rc ? rc : exec_create(g, &o, &x, err, sizeof(err));
    CHECK(rc == 0, "%s: %s", path, err);
    if (!rc) {
        int64_t n = 3 * hh * hw;
        float *in = xmalloc(sizeof(float) * (size_t)n);
        for (int64_t i = 0; i < n; i++)
            in[i] = lo + (frand() + 2.0f) * 0.25f * (hi - lo);
        rc = exec_set_input(x, 0, in, sizeof(float) * (size_t)n, err, sizeof(err));
        rc = rc ? rc : exec_run(x, nop_hook, NULL, err, sizeof(err));
        const tensor_t *out = exec_output(x, 0);
        int64_t on = tensor_numel(out);
        float *ref = xmalloc(sizeof(float) * (size_t)(on > 0 ? on : 1));
        if (!rc)
            memcpy(ref, out->data, sizeof(float) * (size_t)on);
        rc = rc ? rc : exec_run(x, NULL, NULL, err, sizeof(err));
        CHECK(rc == 0, "%s: %s", path, err);
        if (!rc) {
            double worst = 0, range = 0;
            const float *y = out->data;
            for (int64_t i = 0; i < on; i++) {
                worst = fmax(worst, fabs(y[i] - ref[i]));
                range = fmax(range, fabs(ref[i]));
            }
            CHECK(worst <= 1e-5 * range + 1e-7, "%s: fused vs node-by-node max abs diff %g (range %g)",
                  path, worst, range);
        }
        free(ref);
        free(in);
    }
    exec_free(x);
    graph_free(g);
}

static int add_i64(graph_t *g, const char *name, int64_t v)
{
    int t = graph_add_tensor(g, name);
    tensor_t *x = &g->t[t];
    x->kind = TK_CONST;
    x->dtype = DT_INT64;
    x->ndim = 1;
    x->dims[0] = 1;
    x->data = xaligned_alloc(sizeof(int64_t));
    *(int64_t *)x->data = v;
    return t;
}

/* Slice(in) on one axis, the parameters as constant inputs (opset 10+). */
static int add_slice(graph_t *g, const char *name, int in, int64_t start, int64_t end, int64_t axis,
                     int64_t step)
{
    char nm[64];
    int out = graph_add_tensor(g, name);
    int ins[5];
    ins[0] = in;
    snprintf(nm, sizeof nm, "%s_s", name);
    ins[1] = add_i64(g, nm, start);
    snprintf(nm, sizeof nm, "%s_e", name);
    ins[2] = add_i64(g, nm, end);
    snprintf(nm, sizeof nm, "%s_a", name);
    ins[3] = add_i64(g, nm, axis);
    snprintf(nm, sizeof nm, "%s_p", name);
    ins[4] = add_i64(g, nm, step);
    graph_add_node(g, name, "Slice", "", 5, ins, 1, &out);
    return out;
}

/* Slices of a Slice's output (a Focus stem, a reversed slice, one on the same
 * axis) read the first Slice's input when nothing looks at its output: the
 * fused run equals the node-by-node one bit for bit and a hand-indexed
 * element; the first Slice is skipped (no timed event) only when every
 * consumer of its output is such a Slice. Its input is an intermediate whose
 * memory a later node could take if its lifetime were not stretched to the
 * composed Slices. int8: every tensor on a grid of its own, so that the
 * composed Slice requantizes as both Slices would (their wrappers). */
static void check_slices(int int8)
{
    graph_t *g = graph_new();
    int64_t xd[4] = {1, 3, 10, 12};
    int x = graph_add_tensor(g, "x");
    g->t[x].kind = TK_INPUT;
    g->t[x].dtype = DT_FLOAT;
    g->t[x].ndim = 4;
    memcpy(g->t[x].dims, xd, sizeof(xd));
    int r = graph_add_tensor(g, "r"), m = graph_add_tensor(g, "m"), q = graph_add_tensor(g, "q");
    graph_add_node(g, "relu", "Relu", "", 1, &x, 1, &r);
    int rows = add_slice(g, "rows", r, 0, INT64_MAX, 2, 2);        /* skipped */
    int rev = add_slice(g, "rev", r, -1, -100, 3, -3);             /* also read by Neg */
    graph_add_node(g, "neg", "Neg", "", 1, &x, 1, &m);             /* may take r's memory */
    graph_add_node(g, "negrev", "Neg", "", 1, &rev, 1, &q);
    int out[6] = {add_slice(g, "even", rows, 0, INT64_MAX, 3, 2),
                  add_slice(g, "odd", rows, 1, INT64_MAX, 3, 2),
                  add_slice(g, "again", rows, 1, 4, 2, 2),
                  add_slice(g, "revrows", rev, 7, 1, 2, -2), m, q};
    g->inputs = xmalloc(sizeof(int));
    g->inputs[g->n_inputs++] = x;
    g->outputs = xmalloc(sizeof(out));
    for (int i = 0; i < 6; i++)
        g->outputs[g->n_outputs++] = out[i];
    g->opset = 13;

    char err[256] = "";
    exec_t *ex = NULL;
    exec_opts o = {.nthreads = 1};
    float in[3 * 10 * 12];
    for (int i = 0; i < 3 * 10 * 12; i++)
        in[i] = frand();
    quant_graph *qg = NULL;
    int rc = int8 ? quant_graph_new(g, QT_I8, QM_CHANNEL, &qg, err, sizeof(err)) : 0;
    rc = rc ? rc : passes_prepare(g, NULL, 0, err, sizeof(err));
    if (!rc && int8) {
        qparam_t *act = xcalloc((size_t)g->n_t, sizeof(*act));
        uint8_t *has = xcalloc((size_t)g->n_t, 1);
        for (int t = 0, k = 0; t < g->n_t; t++)
            if (g->t[t].kind != TK_CONST) {
                quant_param_from_range(-2.0f + 0.05f * (float)k, 2.0f - 0.07f * (float)k, &act[t]);
                has[t] = 1;
                k++;
            }
        for (int i = 0; i < 3 * 10 * 12; i++) /* the input on its grid */
            in[i] = quant_dq8(quant_q8(in[i], &act[x]), &act[x]);
        rc = quant_graph_finish(qg, act, has, err, sizeof(err));
        free(act);
        free(has);
    }
    rc = rc ? rc : exec_create(g, &o, &ex, err, sizeof(err));
    rc = rc ? rc : exec_set_input(ex, 0, in, sizeof(in), err, sizeof(err));
    CHECK(rc == 0, "slices: %s", err);
    if (rc) {
        quant_graph_free(qg);
        graph_free(g);
        return;
    }
    float *ref[6];
    int64_t n[6];
    int events = 0;
    rc = exec_run(ex, count_hook, &events, err, sizeof(err)); /* node by node */
    CHECK(rc == 0 && events == 9, "slices node by node: %d events: %s", events, err);
    for (int i = 0; i < 6; i++) {
        const tensor_t *t = exec_output(ex, i);
        n[i] = tensor_numel(t);
        ref[i] = xmalloc(sizeof(float) * (size_t)n[i]);
        memcpy(ref[i], t->data, sizeof(float) * (size_t)n[i]);
    }
    /* hand-indexed: odd[0, c, i, j] = relu(x[0, c, 2i, 2j + 1]); revrows takes
     * rows 7, 5, 3 of rev, whose column j is column 11 - 3j of x */
    CHECK(int8 || (n[1] == 3 * 5 * 6 &&
                   ref[1][(2 * 5 + 3) * 6 + 4] == fmaxf(in[(2 * 10 + 6) * 12 + 9], 0.0f)),
          "odd[0,2,3,4] by hand");
    CHECK(int8 || (n[3] == 3 * 3 * 4 &&
                   ref[3][(1 * 3 + 2) * 4 + 1] == fmaxf(in[(1 * 10 + 3) * 12 + 8], 0.0f)),
          "revrows[0,1,2,1] by hand");
    timed_seen ts = {0};
    for (int pass = 0; pass < 2 && !rc; pass++) {
        for (int i = 0; i < 4; i++) /* what the composed Slices write */
            for (int64_t k = 0; k < n[i]; k++)
                ((float *)exec_output(ex, i)->data)[k] = NAN;
        rc = pass ? exec_run(ex, NULL, NULL, err, sizeof(err))
                  : exec_run_timed(ex, timed_hook, &ts, err, sizeof(err));
        CHECK(rc == 0, "slices fused: %s", err);
        for (int i = 0; i < 6 && !rc; i++)
            CHECK(!memcmp(exec_output(ex, i)->data, ref[i], sizeof(float) * (size_t)n[i]),
                  "slice output %d%s: fused run differs from node by node (pass %d)", i,
                  int8 ? " (int8)" : "", pass);
    }
    CHECK(ts.events == 8, "timed events %d%s: only 'rows' skipped ('rev' also feeds Neg)",
          ts.events, int8 ? " (int8)" : "");
    for (int i = 0; i < 6; i++)
        free(ref[i]);
    exec_free(ex);
    quant_graph_free(qg);
    graph_free(g);
}

/* int8 Relu then MaxPool (kernel kw along W, stride kw, pads pe at W's end;
 * 1 x 2 x 3 x 7 input on its grid, every tensor on the same grid as
 * calibration gives a MaxPool): each output is its window's largest input, by hand, and a window of
 * padding alone is the grid's lowest value (the quantized -inf), with the
 * requantization that a window over input values does not need. */
static void check_maxpool_i8(int kw, int pe)
{
    graph_t *g = graph_new();
    int64_t xd[4] = {1, 2, 3, 7};
    int x = graph_add_tensor(g, "x"), r = graph_add_tensor(g, "r"), y = graph_add_tensor(g, "y");
    g->t[x].kind = TK_INPUT;
    g->t[x].dtype = DT_FLOAT;
    g->t[x].ndim = 4;
    memcpy(g->t[x].dims, xd, sizeof(xd));
    graph_add_node(g, "relu", "Relu", "", 1, &x, 1, &r); /* a made input, as in a model */
    int pn = graph_add_node(g, "pool", "MaxPool", "", 1, &r, 1, &y);
    set_ints(&g->nodes[pn], "kernel_shape", 2, 1);
    g->nodes[pn].attrs[g->nodes[pn].n_attr - 1].ints[1] = kw;
    set_ints(&g->nodes[pn], "strides", 2, 1);
    g->nodes[pn].attrs[g->nodes[pn].n_attr - 1].ints[1] = kw;
    set_ints(&g->nodes[pn], "pads", 4, 0);
    g->nodes[pn].attrs[g->nodes[pn].n_attr - 1].ints[3] = pe;
    g->inputs = xmalloc(sizeof(int));
    g->inputs[g->n_inputs++] = x;
    g->outputs = xmalloc(sizeof(int));
    g->outputs[g->n_outputs++] = y;
    g->opset = 13;
    char err[256] = "";
    float in[2 * 3 * 7];
    qparam_t p;
    quant_param_from_range(-1.0f, 1.5f, &p);
    for (int i = 0; i < 2 * 3 * 7; i++)
        in[i] = quant_dq8(quant_q8(frand(), &p), &p);
    quant_graph *qg = NULL;
    exec_t *ex = NULL;
    exec_opts o = {.nthreads = 1};
    int rc = quant_graph_new(g, QT_I8, QM_CHANNEL, &qg, err, sizeof(err));
    rc = rc ? rc : passes_prepare(g, NULL, 0, err, sizeof(err));
    if (!rc) {
        qparam_t act[3] = {p, p, p};
        uint8_t has[3] = {1, 1, 1};
        rc = quant_graph_finish(qg, act, has, err, sizeof(err));
    }
    rc = rc ? rc : exec_create(g, &o, &ex, err, sizeof(err));
    rc = rc ? rc : exec_set_input(ex, 0, in, sizeof(in), err, sizeof(err));
    for (int hooked = 0; hooked < 2 && !rc; hooked++) {
        rc = run_hooked(ex, hooked, &(int){0}, NULL, err, sizeof(err));
        const tensor_t *yt = exec_output(ex, 0);
        int64_t ow = (7 + pe - kw) / kw + 1, bad = 0;
        CHECK(rc == 0 && yt->dims[3] == ow, "int8 maxpool: %s", err);
        for (int64_t row = 0; !rc && row < 2 * 3; row++)
            for (int64_t c = 0; c < ow; c++) {
                float m = -INFINITY;
                for (int64_t j = c * kw; j < c * kw + kw && j < 7; j++)
                    m = fmaxf(m, fmaxf(in[row * 7 + j], 0.0f));
                float want = isinf(m) ? quant_dq8(-128, &p) : m;
                bad += ((const float *)yt->data)[row * ow + c] != want;
            }
        CHECK(!rc && bad == 0, "int8 maxpool kw=%d pe=%d hooked=%d: %lld outputs not the "
              "window's max (or the lowest grid value for padding alone)", kw, pe, hooked,
              (long long)bad);
    }
    exec_free(ex);
    quant_graph_free(qg);
    graph_free(g);
}

/* A graph input of shape 1 x ch x H x W. */
static int add_input(graph_t *g, const char *name, int ch)
{
    int t = graph_add_tensor(g, name);
    int64_t d[4] = {1, ch, H, W};
    g->t[t].kind = TK_INPUT;
    g->t[t].dtype = DT_FLOAT;
    g->t[t].ndim = 4;
    memcpy(g->t[t].dims, d, sizeof(d));
    g->inputs[g->n_inputs++] = t;
    return t;
}

/* x -> Conv(k x k, pad k/2, groups) -> c [-> act] -> a; y = Add(a, r) (or
 * Add(r, a)): the shortcut of a residual block. r is a graph input, or (late)
 * Relu of one made by a node after the conv, which the conv cannot wait for.
 * y against the double reference act(conv) + r; the fused run must write
 * neither c nor a (one kernel made y) unless r is late, and then y is still
 * right. Pointwise (the GEMM's epilogue), 3x3 on few channels (direct rows)
 * and depthwise (added after the kernel). */
static void check_residual(int act, int k, int oc, int group, int late, int swap, int nthreads)
{
    graph_t *g = graph_new();
    char err[256] = "";
    int64_t wd[4] = {oc, C / group, k, k}, od[1] = {oc};
    g->inputs = xmalloc(2 * sizeof(int));
    int x = add_input(g, "x", C), r0 = add_input(g, "r0", oc);
    int w = add_const(g, "w", 4, wd), b = add_const(g, "b", 1, od);
    int c = graph_add_tensor(g, "c"), a = c, y = graph_add_tensor(g, "y"), r = r0;
    int cin[3] = {x, w, b};
    int cn = graph_add_node(g, "conv", "Conv", "", 3, cin, 1, &c);
    set_ints(&g->nodes[cn], "pads", 4, k / 2);
    if (group > 1)
        set_ints(&g->nodes[cn], "group", 0, group);
    if (act == A_SILU) {
        int s = graph_add_tensor(g, "s"), min[2] = {c, s};
        a = graph_add_tensor(g, "a");
        graph_add_node(g, "sig", "Sigmoid", "", 1, &c, 1, &s);
        graph_add_node(g, "mul", "Mul", "", 2, min, 1, &a);
    } else if (act == A_RELU) {
        a = graph_add_tensor(g, "a");
        graph_add_node(g, "act", "Relu", "", 1, &c, 1, &a);
    }
    if (late) {
        r = graph_add_tensor(g, "r");
        graph_add_node(g, "late", "Relu", "", 1, &r0, 1, &r);
    }
    int ain[2] = {swap ? r : a, swap ? a : r};
    graph_add_node(g, "res", "Add", "", 2, ain, 1, &y);
    g->outputs = xmalloc(sizeof(int));
    g->outputs[g->n_outputs++] = y;
    g->opset = 13;

    int64_t nx = C * H * W, ny = oc * H * W;
    float *in = xmalloc(sizeof(float) * (size_t)nx), *rin = xmalloc(sizeof(float) * (size_t)ny);
    double *ref = xmalloc(sizeof(double) * (size_t)ny);
    for (int64_t i = 0; i < nx; i++)
        in[i] = frand();
    for (int64_t i = 0; i < ny; i++)
        rin[i] = frand();
    reference(g, act, oc, group, k, in, ref);
    for (int64_t i = 0; i < ny; i++)
        ref[i] += late ? fmax(rin[i], 0.0) : rin[i];

    exec_t *ex = NULL;
    exec_opts o = {.nthreads = nthreads, .exact_threads = 1};
    int rc = passes_prepare(g, NULL, 0, err, sizeof(err));
    rc = rc ? rc : exec_create(g, &o, &ex, err, sizeof(err));
    rc = rc ? rc : exec_set_input(ex, 0, in, sizeof(float) * (size_t)nx, err, sizeof(err));
    rc = rc ? rc : exec_set_input(ex, 1, rin, sizeof(float) * (size_t)ny, err, sizeof(err));
    CHECK(rc == 0, "residual: %s", err);
    for (int hooked = 0; !rc && hooked < 2; hooked++) {
        float *ad = g->t[a].data, *cd = g->t[c].data;
        for (int64_t i = 0; i < ny; i++)
            ad[i] = cd[i] = NAN;
        rc = run_hooked(ex, hooked, &(int){0}, NULL, err, sizeof(err));
        CHECK(rc == 0, "residual run: %s", err);
        if (rc)
            break;
        double worst = max_rel_err(exec_output(ex, 0)->data, ref, ny);
        CHECK(worst < 1e-5, "residual act=%d k=%d oc=%d group=%d late=%d swap=%d hooked=%d "
              "threads=%d: max rel error %g", act, k, oc, group, late, swap, hooked, nthreads,
              worst);
        int a_written = !isnan(ad[0]) && !isnan(ad[ny - 1]);
        CHECK(a_written == (hooked || late),
              "residual act=%d k=%d group=%d late=%d hooked=%d: the Add's input %s", act, k,
              group, late, hooked, a_written ? "written (Add not fused)" : "not written (fused)");
    }
    exec_free(ex);
    graph_free(g);
    free(in);
    free(rin);
    free(ref);
}

/* x -> Conv(k x k, pad k / 2, groups, no bias) -> c; a = Add(c, B) with B
 * [oc, 1, 1] (bnd 3) or [1, oc, 1, 1] (bnd 4), a constant per output channel
 * (CNTK's MNIST) -> [act] -> y. The fused run takes B as the conv's bias: it
 * writes neither c nor a. With own_bias the conv has a bias "b" of its own
 * and adds B ("b2") apart: not fused, still right. y against the double
 * reference act(conv + B). */
static void check_channel_add(int act, int k, int oc, int group, int bnd, int own_bias,
                              int nthreads)
{
    graph_t *g = graph_new();
    char err[256] = "";
    int64_t wd[4] = {oc, C / group, k, k}, bd[4] = {1, oc, 1, 1}, od[1] = {oc};
    g->inputs = xmalloc(sizeof(int));
    int x = add_input(g, "x", C), w = add_const(g, "w", 4, wd);
    int b = own_bias ? add_const(g, "b", 1, od) : -1;
    int bc = add_const(g, own_bias ? "b2" : "b", bnd, bd + 4 - bnd);
    int c = graph_add_tensor(g, "c"), a = graph_add_tensor(g, "a"), y = a;
    int cin[3] = {x, w, b}, ain[2] = {c, bc};
    int cn = graph_add_node(g, "conv", "Conv", "", own_bias ? 3 : 2, cin, 1, &c);
    set_ints(&g->nodes[cn], "pads", 4, k / 2);
    if (group > 1)
        set_ints(&g->nodes[cn], "group", 0, group);
    graph_add_node(g, "bias", "Add", "", 2, ain, 1, &a);
    if (act == A_RELU) {
        y = graph_add_tensor(g, "y");
        graph_add_node(g, "act", "Relu", "", 1, &a, 1, &y);
    }
    g->outputs = xmalloc(sizeof(int));
    g->outputs[g->n_outputs++] = y;
    g->opset = 13;

    int64_t nx = C * H * W, ny = oc * H * W;
    float *in = xmalloc(sizeof(float) * (size_t)nx);
    double *ref = xmalloc(sizeof(double) * (size_t)ny);
    for (int64_t i = 0; i < nx; i++)
        in[i] = frand();
    reference(g, -1, oc, group, k, in, ref);
    const float *b2 = g->t[bc].data;
    for (int64_t i = 0; i < ny; i++) {
        ref[i] += own_bias ? b2[i / (H * W)] : 0;
        ref[i] = act < 0 ? ref[i] : act_ref(act, ref[i]);
    }

    exec_t *ex = NULL;
    exec_opts o = {.nthreads = nthreads, .exact_threads = 1};
    int rc = passes_prepare(g, NULL, 0, err, sizeof(err));
    rc = rc ? rc : exec_create(g, &o, &ex, err, sizeof(err));
    rc = rc ? rc : exec_set_input(ex, 0, in, sizeof(float) * (size_t)nx, err, sizeof(err));
    CHECK(rc == 0, "channel add: %s", err);
    for (int hooked = 0; !rc && hooked < 2; hooked++) {
        float *cd = g->t[c].data;
        for (int64_t i = 0; i < ny; i++)
            cd[i] = NAN;
        rc = run_hooked(ex, hooked, &(int){0}, NULL, err, sizeof(err));
        CHECK(rc == 0, "channel add run: %s", err);
        if (rc)
            break;
        double worst = max_rel_err(exec_output(ex, 0)->data, ref, ny);
        CHECK(worst < 1e-5, "channel add act=%d k=%d oc=%d group=%d bnd=%d own_bias=%d "
              "hooked=%d threads=%d: max rel error %g", act, k, oc, group, bnd, own_bias, hooked,
              nthreads, worst);
        int c_written = !isnan(cd[0]) && !isnan(cd[ny - 1]);
        CHECK(c_written == (hooked || own_bias),
              "channel add k=%d group=%d own_bias=%d hooked=%d: the conv's output %s", k, group,
              own_bias, hooked, c_written ? "written (Add not taken)" : "not written (taken)");
    }
    exec_free(ex);
    graph_free(g);
    free(in);
    free(ref);
}

/* g as an int8 graph (per-channel weights) whose every activation has a
 * range of its own (a Resize's output its input's), ready to run on nthreads with in (nx values of graph
 * input x, made here on x's grid). */
static int quant_setup(graph_t *g, int x, float *in, int64_t nx, int nthreads, quant_graph **qg,
                       exec_t **ex, char *err, size_t errlen)
{
    int rc = quant_graph_new(g, QT_I8, QM_CHANNEL, qg, err, errlen);
    rc = rc ? rc : passes_prepare(g, NULL, 0, err, errlen);
    if (rc)
        return rc;
    qparam_t *act = xcalloc((size_t)g->n_t, sizeof(*act));
    uint8_t *has = xcalloc((size_t)g->n_t, 1);
    for (int t = 0, i = 0; t < g->n_t; t++)
        if (g->t[t].kind != TK_CONST) {
            quant_param_from_range(-1.5f - 0.3f * (float)i, 1.2f + 0.4f * (float)i, &act[t]);
            has[t] = 1;
            i++;
        }
    /* a nearest Resize's output takes its input's, as calibration gives it */
    for (int i = 0; i < g->n_nodes; i++)
        if (!strcmp(g->nodes[i].op, "Resize") && g->nodes[i].in[0] >= 0)
            act[g->nodes[i].out[0]] = act[g->nodes[i].in[0]];
    for (int64_t i = 0; i < nx; i++) /* the input on its grid */
        in[i] = quant_dq8(quant_q8(frand(), &act[x]), &act[x]);
    rc = quant_graph_finish(*qg, act, has, err, errlen);
    free(act);
    free(has);
    exec_opts o = {.nthreads = nthreads, .exact_threads = 1};
    rc = rc ? rc : exec_create(g, &o, ex, err, errlen);
    return rc ? rc : exec_set_input(*ex, 0, in, sizeof(float) * (size_t)nx, err, errlen);
}

/* int8: x (ci channels) -> Conv (k x k, pad k/2, groups, no bias), or
 * ConvTranspose (kernel and stride k: PP-OCR det's head) -> c -> Add [1, oc,
 * 1, 1] -> a [-> BatchNormalization] [-> Relu (act 1) or Sigmoid (2)] -> y,
 * every tensor on a grid
 * of its own: the Add's constant (and the BatchNormalization's factors) are
 * one value per channel of the chain (a table per channel, in the conv's
 * epilogue or the ConvTranspose's blocks), and the fused run (unhooked, and
 * timed) gives the node-by-node run's outputs bit for bit, on each integer
 * path (VNNI, AVX2, float), without writing c where the kernel takes the
 * tables. */
static void check_channel_add_i8(int act, int ci, int k, int oc, int group, int nthreads,
                                 int convt, int bn)
{
    graph_t *g = graph_new();
    char err[256] = "";
    int64_t wd[4] = {oc, ci / group, k, k}, bd[4] = {1, oc, 1, 1}, pd[1] = {oc};
    if (convt)
        wd[0] = ci, wd[1] = oc;
    g->inputs = xmalloc(sizeof(int));
    int x = add_input(g, "x", ci), w = add_const(g, "w", 4, wd), bc = add_const(g, "b", 4, bd);
    int c = graph_add_tensor(g, "c"), a = graph_add_tensor(g, "a"), y = a;
    int cin[2] = {x, w}, ain[2] = {c, bc};
    int cn = graph_add_node(g, "conv", convt ? "ConvTranspose" : "Conv", "", 2, cin, 1, &c);
    if (convt)
        set_ints(&g->nodes[cn], "strides", 2, k);
    else
        set_ints(&g->nodes[cn], "pads", 4, k / 2);
    if (group > 1)
        set_ints(&g->nodes[cn], "group", 0, group);
    graph_add_node(g, "bias", "Add", "", 2, ain, 1, &a);
    if (bn) {
        int bin[5] = {a, add_const(g, "s", 1, pd), add_const(g, "o", 1, pd),
                      add_const(g, "mu", 1, pd), add_const(g, "var", 1, pd)};
        float *var = g->t[bin[4]].data;
        for (int i = 0; i < oc; i++)
            var[i] = fabsf(var[i]) + 0.25f;
        y = graph_add_tensor(g, "n");
        graph_add_node(g, "bn", "BatchNormalization", "", 5, bin, 1, &y);
    }
    if (act) {
        int r = graph_add_tensor(g, "y");
        graph_add_node(g, "act", act == 1 ? "Relu" : "Sigmoid", "", 1, &y, 1, &r);
        y = r;
    }
    g->outputs = xmalloc(sizeof(int));
    g->outputs[g->n_outputs++] = y;
    g->opset = 13;

    int64_t nx = (int64_t)ci * H * W, ny = (int64_t)oc * H * W * (convt ? k * k : 1);
    float *in = xmalloc(sizeof(float) * (size_t)nx), *ref = xmalloc(sizeof(float) * (size_t)ny);
    quant_graph *qg = NULL;
    exec_t *ex = NULL;
    int rc = quant_setup(g, x, in, nx, nthreads, &qg, &ex, err, sizeof(err));
    CHECK(rc == 0, "int8 channel add: %s", err);
    for (int i = 0; i < 3 && !rc; i++) {
        quant_isa_force(i8_isas[i]);
        for (int hooked = 1; hooked >= 0 && !rc; hooked--) {
            float *cd = g->t[c].data;
            for (int64_t e = 0; e < ny; e++)
                cd[e] = NAN;
            timed_seen ts = {0};
            char what[160];
            snprintf(what, sizeof what, "int8 channel add act=%d ci=%d k=%d oc=%d group=%d "
                     "threads=%d isa=%d", act, ci, k, oc, group, nthreads, quant_isa());
            rc = runs_vs_hooked(ex, hooked, ref, ny, &ts, what);
            /* the ConvTranspose takes the tables on AVX-512 (quant_convt_new) */
            int c_written = !isnan(cd[0]) && !isnan(cd[ny - 1]);
            CHECK(c_written == (hooked || (convt && !gemm512_available())),
                  "int8 channel add convt=%d k=%d oc=%d group=%d hooked=%d: the conv's output %s",
                  convt, k, oc, group, hooked,
                  c_written ? "written (chain not taken)" : "not written (taken)");
            CHECK(hooked || ts.events == 1, "int8 channel add convt=%d bn=%d: %d timed events "
                  "(the conv alone)", convt, bn, ts.events);
        }
    }
    i8_case_free(ex, qg, g, in, ref);
}

/* int8: x -> ConvTranspose (kernel and stride 2, oc channels) -> c [-> Add
 * [1, oc, 1, 1] -> Relu -> r] -> ConvTranspose (2, one channel) -> Sigmoid
 * -> y, PP-OCR det's head: the first kernel writes the bytes of its output
 * (or of its chain's) in place of floats, which the second reads (on
 * AVX-512, where quant_convt_new takes them); the unhooked and timed runs
 * against the hooked one bit for bit, the mid tensor's floats unwritten. */
static void check_convt_pair_i8(int chain, int oc, int nthreads)
{
    graph_t *g = graph_new();
    char err[256] = "";
    int64_t w1[4] = {C, oc, 2, 2}, w2[4] = {oc, 1, 2, 2}, bd[4] = {1, oc, 1, 1};
    g->inputs = xmalloc(sizeof(int));
    int x = add_input(g, "x", C), c = graph_add_tensor(g, "c"), m = c;
    int in1[2] = {x, add_const(g, "w1", 4, w1)};
    int n1 = graph_add_node(g, "convt1", "ConvTranspose", "", 2, in1, 1, &c);
    set_ints(&g->nodes[n1], "strides", 2, 2);
    if (chain) {
        int a = graph_add_tensor(g, "a"), ain[2] = {c, add_const(g, "b", 4, bd)};
        graph_add_node(g, "bias", "Add", "", 2, ain, 1, &a);
        m = graph_add_tensor(g, "r");
        graph_add_node(g, "relu", "Relu", "", 1, &a, 1, &m);
    }
    int z = graph_add_tensor(g, "z"), y = graph_add_tensor(g, "y");
    int in2[2] = {m, add_const(g, "w2", 4, w2)};
    int n2 = graph_add_node(g, "convt2", "ConvTranspose", "", 2, in2, 1, &z);
    set_ints(&g->nodes[n2], "strides", 2, 2);
    graph_add_node(g, "sig", "Sigmoid", "", 1, &z, 1, &y);
    g->outputs = xmalloc(sizeof(int));
    g->outputs[g->n_outputs++] = y;
    g->opset = 13;

    int64_t nx = (int64_t)C * H * W, nm = (int64_t)oc * H * W * 4, ny = (int64_t)H * W * 16;
    float *in = xmalloc(sizeof(float) * (size_t)nx), *ref = xmalloc(sizeof(float) * (size_t)ny);
    quant_graph *qg = NULL;
    exec_t *ex = NULL;
    int rc = quant_setup(g, x, in, nx, nthreads, &qg, &ex, err, sizeof(err));
    CHECK(rc == 0, "int8 ConvTranspose pair: %s", err);
    for (int hooked = 1; hooked >= 0 && !rc; hooked--) {
        float *md = g->t[m].data;
        for (int64_t e = 0; e < nm; e++)
            md[e] = NAN;
        timed_seen ts = {0};
        char what[96];
        snprintf(what, sizeof what, "int8 ConvTranspose pair chain=%d oc=%d threads=%d", chain,
                 oc, nthreads);
        rc = runs_vs_hooked(ex, hooked, ref, ny, &ts, what);
        int m_written = !isnan(md[0]) && !isnan(md[nm - 1]);
        CHECK(m_written == (hooked || !gemm512_available()),
              "int8 ConvTranspose pair chain=%d hooked=%d: the mid tensor's floats %s", chain,
              hooked, m_written ? "written" : "not written");
    }
    i8_case_free(ex, qg, g, in, ref);
}

/* x -> Conv 3x3 -> a and x -> Conv 1x1 -> b, y = op(a, b) (Add, Sub, Mul or
 * Div), z = Conv 1x1 (y), int8: the op reads a's and b's bytes, which their
 * convs write in place of floats (only byte readers), and writes y's bytes
 * alone. op "SE": b = GlobalAveragePool(a), y = Mul(a, b) (squeeze and
 * excite), the pool summing a's bytes; "UP": b = nearest Resize of a
 * stride-2 conv's output, gathering its bytes and skipping its kernel (its
 * floats unread). The unhooked run (bytes) against the
 * hooked one (floats, node by node) bit for bit on each integer path; a's
 * and b's floats stay unwritten unless a is a graph output too (tap), then
 * a's are (b, the pool's means, always are). */
static void check_ew_bytes_i8(const char *op, int tap, int nthreads)
{
    enum { M = 7 };
    graph_t *g = graph_new();
    char err[256] = "";
    int64_t w3[4] = {M, C, 3, 3}, w1[4] = {M, C, 1, 1}, wz[4] = {3, M, 1, 1};
    int x = graph_add_tensor(g, "x");
    int a = graph_add_tensor(g, "a"), b = graph_add_tensor(g, "b"), y = graph_add_tensor(g, "y");
    int64_t xd[4] = {1, C, H, W};
    tensor_set_shape(&g->t[x], DT_FLOAT, 4, xd);
    g->t[x].kind = TK_INPUT;
    int z = graph_add_tensor(g, "z");
    int ain[2] = {x, add_const(g, "wa", 4, w3)}, bin[2] = {x, add_const(g, "wb", 4, w1)};
    int yin[2] = {a, b}, zin[2] = {y, add_const(g, "wz", 4, wz)};
    int an = graph_add_node(g, "conv_a", "Conv", "", 2, ain, 1, &a);
    set_ints(&g->nodes[an], "pads", 4, 1);
    const int se = !strcmp(op, "SE"); /* b = GlobalAveragePool(a), y = Mul(a, b) */
    const int up = !strcmp(op, "UP"); /* b = Resize(Conv 1x1 stride 2 (x)), y = Add(a, b) */
    if (se) {
        graph_add_node(g, "gap", "GlobalAveragePool", "", 1, &a, 1, &b);
    } else if (up) {
        int h = graph_add_tensor(g, "h"), sz = graph_add_tensor(g, "sizes");
        int bn = graph_add_node(g, "conv_b", "Conv", "", 2, bin, 1, &h);
        set_ints(&g->nodes[bn], "strides", 2, 2);
        tensor_set_shape(&g->t[sz], DT_INT64, 1, (int64_t[]){4});
        g->t[sz].kind = TK_CONST;
        g->t[sz].data = xmalloc(4 * sizeof(int64_t));
        memcpy(g->t[sz].data, (int64_t[]){1, M, H, W}, 4 * sizeof(int64_t));
        int rin[4] = {h, -1, -1, sz};
        graph_add_node(g, "up", "Resize", "", 4, rin, 1, &b);
    } else {
        graph_add_node(g, "conv_b", "Conv", "", 2, bin, 1, &b);
    }
    graph_add_node(g, "op", se ? "Mul" : up ? "Add" : op, "", 2, yin, 1, &y);
    graph_add_node(g, "conv_z", "Conv", "", 2, zin, 1, &z);
    graph_set_io(g, 1, &x, 1 + tap, (int[]){z, a});
    g->opset = 13;

    int64_t nx = (int64_t)C * H * W, na = (int64_t)M * H * W, nz = 3 * H * W;
    float *in = xmalloc(sizeof(float) * (size_t)nx), *ref = xmalloc(sizeof(float) * (size_t)nz);
    quant_graph *qg = NULL;
    exec_t *ex = NULL;
    int rc = quant_setup(g, x, in, nx, nthreads, &qg, &ex, err, sizeof(err));
    CHECK(rc == 0, "int8 %s on bytes: %s", op, err);
    for (int i = 0; i < 3 && !rc; i++) {
        quant_isa_force(i8_isas[i]);
        for (int hooked = 1; hooked >= 0 && !rc; hooked--) {
            float *ad = g->t[a].data, *bd = g->t[b].data;
            const int64_t nb = se ? M : na;
            for (int64_t e = 0; e < na; e++)
                ad[e] = NAN;
            for (int64_t e = 0; e < nb; e++)
                bd[e] = NAN;
            rc = run_hooked(ex, hooked, &(int){0}, NULL, err, sizeof(err));
            CHECK(rc == 0, "int8 %s on bytes run: %s", op, err);
            if (rc)
                break;
            const float *out = exec_output(ex, 0)->data;
            if (hooked)
                memcpy(ref, out, sizeof(float) * (size_t)nz);
            else
                CHECK(!memcmp(out, ref, sizeof(float) * (size_t)nz),
                      "int8 %s on bytes tap=%d threads=%d isa=%d: differs from node by node", op,
                      tap, nthreads, quant_isa());
            /* the float GEMMs write no bytes: their floats are read */
            int a_written = !isnan(ad[0]) && !isnan(ad[na - 1]);
            int b_written = !isnan(bd[0]) && !isnan(bd[nb - 1]), fl = i8_isas[i] == QISA_FLOAT;
            /* (the stride-2 conv under UP writes bytes on every path) */
            if (cpu_has_byte_paths())
                CHECK(a_written == (hooked || tap || fl) &&
                          b_written == (hooked || (fl && !up) || se),
                      "int8 %s on bytes tap=%d hooked=%d isa=%d: a %s, b %s", op, tap, hooked,
                      quant_isa(), a_written ? "written" : "not written",
                      b_written ? "written" : "not written");
        }
    }
    i8_case_free(ex, qg, g, in, ref);
}

/* A squeeze-excite scale and its residual Add, int8 (PP-OCR det's FPN): x ->
 * Conv 3x3 -> a; h = HardSigmoid(Conv 1x1 (GlobalAveragePool (a))); m =
 * Mul(a, h) (h first: hfirst); y = Add(a, m) (add; m first: hfirst too), or
 * y = m; z = Conv 1x1 (y). On maps of 32 x 40 the Mul and the Add run as one
 * table per channel of a's bytes (se_run): the unhooked and timed runs
 * against the hooked one bit for bit on each integer path, and with the Add
 * (where the conv writes bytes) m is never made. */
static void check_se_tables_i8(int add, int hfirst, int nthreads)
{
    enum { SH = 32, SW = 40, SM = 6 };
    graph_t *g = graph_new();
    char err[256] = "";
    int64_t xd[4] = {1, C, SH, SW}, w3[4] = {SM, C, 3, 3}, w1[4] = {SM, SM, 1, 1};
    int64_t wz[4] = {3, SM, 1, 1};
    int x = graph_add_tensor(g, "x"), a = graph_add_tensor(g, "a"), p = graph_add_tensor(g, "p");
    int e = graph_add_tensor(g, "e"), h = graph_add_tensor(g, "h"), m = graph_add_tensor(g, "m");
    int z = graph_add_tensor(g, "z"), y = m;
    tensor_set_shape(&g->t[x], DT_FLOAT, 4, xd);
    g->t[x].kind = TK_INPUT;
    int ain[2] = {x, add_const(g, "wa", 4, w3)}, ein[2] = {p, add_const(g, "we", 4, w1)};
    int an = graph_add_node(g, "conv_a", "Conv", "", 2, ain, 1, &a);
    set_ints(&g->nodes[an], "pads", 4, 1);
    graph_add_node(g, "gap", "GlobalAveragePool", "", 1, &a, 1, &p);
    graph_add_node(g, "conv_e", "Conv", "", 2, ein, 1, &e);
    graph_add_node(g, "hsig", "HardSigmoid", "", 1, &e, 1, &h);
    int min[2] = {hfirst ? h : a, hfirst ? a : h};
    graph_add_node(g, "scale", "Mul", "", 2, min, 1, &m);
    if (add) {
        y = graph_add_tensor(g, "y");
        int yin[2] = {hfirst ? m : a, hfirst ? a : m};
        graph_add_node(g, "res", "Add", "", 2, yin, 1, &y);
    }
    int zin[2] = {y, add_const(g, "wz", 4, wz)};
    graph_add_node(g, "conv_z", "Conv", "", 2, zin, 1, &z);
    graph_set_io(g, 1, &x, 1, &z);
    g->opset = 13;

    int64_t nx = (int64_t)C * SH * SW, nz = 3 * SH * SW;
    float *in = xmalloc(sizeof(float) * (size_t)nx), *ref = xmalloc(sizeof(float) * (size_t)nz);
    quant_graph *qg = NULL;
    exec_t *ex = NULL;
    int rc = quant_setup(g, x, in, nx, nthreads, &qg, &ex, err, sizeof(err));
    CHECK(rc == 0, "int8 SE tables: %s", err);
    for (int i = 0; i < 3 && !rc; i++) {
        quant_isa_force(i8_isas[i]);
        for (int hooked = 1; hooked >= 0 && !rc; hooked--) {
            timed_seen ts = {0};
            char what[96];
            snprintf(what, sizeof what, "int8 SE tables add=%d hfirst=%d threads=%d isa=%d", add,
                     hfirst, nthreads, quant_isa());
            rc = runs_vs_hooked(ex, hooked, ref, nz, &ts, what);
            /* with the Add, the product's bytes (which the Add reads when it runs
             * in a private run) are not made */
            const quant_bytes *mb = qg->bytes ? qg->bytes[m] : NULL;
            if (!rc && !hooked && add && cpu_has_byte_paths() && i8_isas[i] != QISA_FLOAT)
                CHECK(mb && !mb->valid, "%s: the product's bytes %s", what,
                      mb ? "made (no tables)" : "without a slot");
        }
    }
    i8_case_free(ex, qg, g, in, ref);
}

/* YOLOX's Focus stem: x (1 x 3 x 12 x 18) -> four phases of every other row and
 * column (a Slice of rows then one of columns, or one Slice of both when
 * single) -> Concat (12 channels) -> Conv 3x3 pad 1 to 8 -> SiLU. The fused
 * run reads the phases straight from x: its timed events are the conv's
 * alone, unless the Concat's output is a graph output too (tap). Output
 * against Focus and conv in double, unhooked, hooked and timed. */
static void check_gather(int single, int tap, int nthreads)
{
    enum { GH = 12, GW = 18, GC = 12, GM = 8 };
    graph_t *g = graph_new();
    int64_t xd[4] = {1, 3, GH, GW}, wd[4] = {GM, GC, 3, 3}, od[1] = {GM};
    int x = graph_add_tensor(g, "x");
    g->t[x].kind = TK_INPUT;
    g->t[x].dtype = DT_FLOAT;
    g->t[x].ndim = 4;
    memcpy(g->t[x].dims, xd, sizeof(xd));
    int ph[4];
    static const int ro[4] = {0, 1, 0, 1}, co[4] = {0, 0, 1, 1};
    char nm[16];
    for (int k = 0; k < 4; k++) {
        snprintf(nm, sizeof nm, "r%d", k);
        if (single) { /* one Slice over both axes, steps 2 */
            int t = graph_add_tensor(g, nm), ins[5];
            int64_t v[4][2] = {{ro[k], co[k]}, {INT64_MAX, INT64_MAX}, {2, 3}, {2, 2}};
            const char *what[4] = {"s", "e", "a", "p"};
            ins[0] = x;
            for (int i = 0; i < 4; i++) {
                char cn[24];
                snprintf(cn, sizeof cn, "%s_%s", nm, what[i]);
                int c = graph_add_tensor(g, cn);
                g->t[c].dtype = DT_INT64;
                g->t[c].ndim = 1;
                g->t[c].dims[0] = 2;
                g->t[c].kind = TK_CONST;
                g->t[c].data = xaligned_alloc(2 * sizeof(int64_t));
                memcpy(g->t[c].data, v[i], sizeof(v[i]));
                ins[1 + i] = c;
            }
            graph_add_node(g, nm, "Slice", "", 5, ins, 1, &t);
            ph[k] = t;
        } else {
            int rows = add_slice(g, nm, x, ro[k], INT64_MAX, 2, 2);
            snprintf(nm, sizeof nm, "c%d", k);
            ph[k] = add_slice(g, nm, rows, co[k], INT64_MAX, 3, 2);
        }
    }
    int cat = graph_add_tensor(g, "cat"), c = graph_add_tensor(g, "c");
    int cn = graph_add_node(g, "focus", "Concat", "", 4, ph, 1, &cat);
    set_ints(&g->nodes[cn], "axis", 0, 1);
    int w = add_const(g, "w", 4, wd), b = add_const(g, "b", 1, od);
    int cin[3] = {cat, w, b}, s = graph_add_tensor(g, "s"), y = graph_add_tensor(g, "y");
    int conv = graph_add_node(g, "stem", "Conv", "", 3, cin, 1, &c);
    set_ints(&g->nodes[conv], "pads", 4, 1);
    int min[2] = {c, s};
    graph_add_node(g, "sig", "Sigmoid", "", 1, &c, 1, &s);
    graph_add_node(g, "mul", "Mul", "", 2, min, 1, &y);
    g->inputs = xmalloc(sizeof(int));
    g->inputs[g->n_inputs++] = x;
    g->outputs = xmalloc(2 * sizeof(int));
    g->outputs[g->n_outputs++] = y;
    if (tap)
        g->outputs[g->n_outputs++] = cat;
    g->opset = 13;

    const int FH = GH / 2, FW = GW / 2;
    float in[3 * GH * GW];
    double foc[GC * FH * FW], ref[GM * FH * FW];
    for (int i = 0; i < 3 * GH * GW; i++)
        in[i] = frand();
    for (int k = 0; k < 4; k++) /* channel 3k + ci: phase k of input channel ci */
        for (int ci = 0; ci < 3; ci++)
            for (int i = 0; i < FH; i++)
                for (int j = 0; j < FW; j++)
                    foc[((3 * k + ci) * FH + i) * FW + j] =
                        in[(ci * GH + 2 * i + ro[k]) * GW + 2 * j + co[k]];
    const float *wv = g->t[w].data, *bv = g->t[b].data;
    for (int o = 0; o < GM; o++)
        for (int i = 0; i < FH; i++)
            for (int j = 0; j < FW; j++) {
                double sum = bv[o];
                for (int ci = 0; ci < GC; ci++)
                    for (int ki = 0; ki < 3; ki++)
                        for (int kj = 0; kj < 3; kj++) {
                            int yi = i + ki - 1, xj = j + kj - 1;
                            if (yi >= 0 && yi < FH && xj >= 0 && xj < FW)
                                sum += foc[(ci * FH + yi) * FW + xj] * wv[((o * GC + ci) * 3 + ki) * 3 + kj];
                        }
                ref[(o * FH + i) * FW + j] = act_ref(A_SILU, sum);
            }

    char err[256] = "";
    exec_t *ex = NULL;
    exec_opts o = {.nthreads = nthreads, .exact_threads = 1};
    int rc = passes_prepare(g, NULL, 0, err, sizeof(err));
    rc = rc ? rc : exec_create(g, &o, &ex, err, sizeof(err));
    rc = rc ? rc : exec_set_input(ex, 0, in, sizeof(in), err, sizeof(err));
    CHECK(rc == 0, "gather: %s", err);
    /* hooked: 0 none, 1 every layer (nothing fused), 2 timing-only events */
    for (int hooked = 0; !rc && hooked < 3; hooked++) {
        timed_seen ts = {0};
        int layers = 0;
        memset(exec_output(ex, 0)->data, 0, sizeof(float) * GM * FH * FW);
        rc = run_hooked(ex, hooked, &layers, &ts, err, sizeof(err));
        CHECK(rc == 0, "gather run: %s", err);
        if (rc)
            break;
        double worst = max_rel_err(exec_output(ex, 0)->data, ref, GM * FH * FW);
        CHECK(worst < 1e-5, "gather single=%d tap=%d hooked=%d threads=%d: max rel error %g",
              single, tap, hooked, nthreads, worst);
        if (hooked == 1)
            CHECK(layers == (single ? 4 : 8) + 4, "gather single=%d: %d layer events", single,
                  layers);
        /* gathered: the conv's event alone (SiLU fused too); else also the
         * four (outer) Slices and the Concat */
        if (hooked == 2 && gemm512_available())
            CHECK(ts.events == (tap ? 6 : 1), "gather single=%d tap=%d: %d timed events", single,
                  tap, ts.events);
    }
    exec_free(ex);
    graph_free(g);
}

/* The activation node(s) of act (A_SILU, A_RELU, or -1: none) after tensor t:
 * their output. */
static int add_act(graph_t *g, const char *name, int act, int t)
{
    char nm[32];
    if (act < 0)
        return t;
    snprintf(nm, sizeof nm, "%s_out", name);
    int y = graph_add_tensor(g, nm);
    if (act == A_RELU) {
        graph_add_node(g, name, "Relu", "", 1, &t, 1, &y);
        return y;
    }
    snprintf(nm, sizeof nm, "%s_sig", name);
    int sg = graph_add_tensor(g, nm), min[2] = {t, sg};
    graph_add_node(g, nm, "Sigmoid", "", 1, &t, 1, &sg);
    graph_add_node(g, name, "Mul", "", 2, min, 1, &y);
    return y;
}

/* x (ci channels, h x w) -> 3x3 Conv, pad 1 (the direct kernel: few input
 * channels) [-> act_a] -> a -> depthwise kb x kb Conv, stride sb, pad pb
 * [-> act_b] -> y: the two convs run as one kernel (conv_run_pair) unless a
 * is also a graph output (tap). Returns the fused run's y (seed: rng before
 * the weights) after checking every run (fused, node by node, timed) against
 * act_b(dw(act_a(conv))) in double, that the fused and timed runs do not
 * write a unless tapped, and the timed run's events: the pair's one, or two. */
static float *run_pair(uint64_t seed, int ci, int mid, int h, int w, int kb, int sb, int pb,
                       int act_a, int act_b, int tap, int nthreads)
{
    rng = seed;
    graph_t *g = graph_new();
    int64_t xd[4] = {1, ci, h, w}, wa[4] = {mid, ci, 3, 3}, wb[4] = {mid, 1, kb, kb};
    int64_t bd[1] = {mid};
    int x = graph_add_tensor(g, "x");
    g->t[x].kind = TK_INPUT;
    g->t[x].dtype = DT_FLOAT;
    g->t[x].ndim = 4;
    memcpy(g->t[x].dims, xd, sizeof(xd));
    int ain[3] = {x, add_const(g, "wa", 4, wa), add_const(g, "ba", 1, bd)};
    int c = graph_add_tensor(g, "c");
    int cn = graph_add_node(g, "conv", "Conv", "", 3, ain, 1, &c);
    set_ints(&g->nodes[cn], "pads", 4, 1);
    int a = add_act(g, "act_a", act_a, c);
    int bin[3] = {a, add_const(g, "wb", 4, wb), add_const(g, "bb", 1, bd)};
    int d = graph_add_tensor(g, "d");
    int dn = graph_add_node(g, "dw", "Conv", "", 3, bin, 1, &d);
    set_ints(&g->nodes[dn], "pads", 4, pb);
    set_ints(&g->nodes[dn], "strides", 2, sb);
    set_ints(&g->nodes[dn], "group", 0, mid);
    int y = add_act(g, "act_b", act_b, d);
    g->inputs = xmalloc(sizeof(int));
    g->inputs[g->n_inputs++] = x;
    g->outputs = xmalloc(2 * sizeof(int));
    g->outputs[g->n_outputs++] = y;
    if (tap)
        g->outputs[g->n_outputs++] = a;
    g->opset = 13;

    const int oh = (h + 2 * pb - kb) / sb + 1, ow = (w + 2 * pb - kb) / sb + 1;
    const int64_t na = (int64_t)mid * h * w, ny = (int64_t)mid * oh * ow;
    float *in = xmalloc(sizeof(float) * (size_t)ci * h * w);
    double *ra = xmalloc(sizeof(double) * (size_t)na), *ref = xmalloc(sizeof(double) * (size_t)ny);
    float *fused = xmalloc(sizeof(float) * (size_t)ny);
    for (int64_t i = 0; i < (int64_t)ci * h * w; i++)
        in[i] = frand();
    const float *wav = g->t[ain[1]].data, *bav = g->t[ain[2]].data;
    const float *wbv = g->t[bin[1]].data, *bbv = g->t[bin[2]].data;
    for (int o = 0; o < mid; o++)
        for (int i = 0; i < h; i++)
            for (int j = 0; j < w; j++) {
                double sum = bav[o];
                for (int q = 0; q < ci; q++)
                    for (int ki = 0; ki < 3; ki++)
                        for (int kj = 0; kj < 3; kj++) {
                            int yi = i + ki - 1, xj = j + kj - 1;
                            if (yi >= 0 && yi < h && xj >= 0 && xj < w)
                                sum += (double)in[(q * h + yi) * w + xj] *
                                       wav[((o * ci + q) * 3 + ki) * 3 + kj];
                        }
                ra[(o * h + i) * w + j] = act_a < 0 ? sum : act_ref(act_a, sum);
            }
    for (int o = 0; o < mid; o++)
        for (int i = 0; i < oh; i++)
            for (int j = 0; j < ow; j++) {
                double sum = bbv[o];
                for (int ki = 0; ki < kb; ki++)
                    for (int kj = 0; kj < kb; kj++) {
                        int yi = i * sb + ki - pb, xj = j * sb + kj - pb;
                        if (yi >= 0 && yi < h && xj >= 0 && xj < w)
                            sum += ra[(o * h + yi) * w + xj] * wbv[(o * kb + ki) * kb + kj];
                    }
                ref[(o * oh + i) * ow + j] = act_b < 0 ? sum : act_ref(act_b, sum);
            }

    char err[256] = "";
    exec_t *ex = NULL;
    exec_opts o = {.nthreads = nthreads, .exact_threads = 1};
    int rc = passes_prepare(g, NULL, 0, err, sizeof(err));
    rc = rc ? rc : exec_create(g, &o, &ex, err, sizeof(err));
    rc = rc ? rc : exec_set_input(ex, 0, in, sizeof(float) * (size_t)ci * h * w, err, sizeof(err));
    CHECK(rc == 0, "pair: %s", err);
    for (int hooked = 0; !rc && hooked < 3; hooked++) {
        timed_seen ts = {0};
        float *ad = g->t[a].data, *yd = g->t[y].data;
        for (int64_t i = 0; i < na; i++)
            ad[i] = NAN;
        for (int64_t i = 0; i < ny; i++)
            yd[i] = NAN;
        rc = run_hooked(ex, hooked, &(int){0}, &ts, err, sizeof(err));
        CHECK(rc == 0, "pair run: %s", err);
        if (rc)
            break;
        /* the sums of a are up to ~40 and b's of ~20 of them: float's error
         * relative to that magnitude, not to an output near 0 */
        double worst = max_rel_err(yd, ref, ny);
        CHECK(worst < 1e-4, "pair ci=%d mid=%d %dx%d k=%d s=%d p=%d acts %d/%d tap=%d hooked=%d "
              "threads=%d: max rel error %g", ci, mid, h, w, kb, sb, pb, act_a, act_b, tap,
              hooked, nthreads, worst);
        if (hooked == 0)
            memcpy(fused, yd, sizeof(float) * (size_t)ny);
        if (hooked == 2)
            CHECK(!memcmp(fused, yd, sizeof(float) * (size_t)ny),
                  "pair %dx%d k=%d s=%d tap=%d threads=%d: the timed run differs from the fused "
                  "one", h, w, kb, sb, tap, nthreads);
        int a_written = !isnan(ad[0]) && !isnan(ad[na - 1]);
        if (gemm512_available())
            CHECK(a_written == (hooked == 1 || tap), "pair %dx%d s=%d tap=%d hooked=%d: a %s", h,
                  w, sb, tap, hooked, a_written ? "written" : "not written");
        if (hooked == 2 && gemm512_available())
            CHECK(ts.events == (tap ? 2 : 1), "pair tap=%d: %d timed events", tap, ts.events);
    }
    free(ref);
    free(ra);
    free(in);
    exec_free(ex);
    graph_free(g);
    return fused;
}

/* The pair's result equals, bit for bit, that of the two convs run apart
 * (each with its chain fused: a tapped). Tall planes: several bands per task. */
static void check_pair(int ci, int mid, int h, int w, int kb, int sb, int pb, int act_a,
                       int act_b, int nthreads)
{
    uint64_t seed = rng;
    float *y0 = run_pair(seed, ci, mid, h, w, kb, sb, pb, act_a, act_b, 0, nthreads);
    float *y1 = run_pair(seed, ci, mid, h, w, kb, sb, pb, act_a, act_b, 1, nthreads);
    int64_t ny = (int64_t)mid * ((h + 2 * pb - kb) / sb + 1) * ((w + 2 * pb - kb) / sb + 1);
    CHECK(!memcmp(y0, y1, sizeof(float) * (size_t)ny),
          "pair ci=%d mid=%d %dx%d k=%d s=%d p=%d threads=%d: differs from the convs apart", ci,
          mid, h, w, kb, sb, pb, nthreads);
    free(y0);
    free(y1);
}

/* A model of under 32M multiply-adds runs on one thread unless exact_threads:
 * PP-OCR's direction classifier has 16.3M (its convs' output sizes times
 * their weights per output channel), YOLOX-nano 504M. */
static void check_threads(const char *path, const char *input, int64_t hh, int64_t hw, int exact,
                          int want)
{
    graph_t *g = NULL;
    exec_t *x = NULL;
    char err[256] = "";
    input_shape_t sh = {.name = input, .ndim = 4, .dims = {1, 3, hh, hw}};
    exec_opts o = {.nthreads = 2, .exact_threads = exact};
    int rc = model_load_file(path, &g, err, sizeof(err));
    rc = rc ? rc : passes_prepare(g, &sh, 1, err, sizeof(err));
    rc = rc ? rc : exec_create(g, &o, &x, err, sizeof(err));
    CHECK(rc == 0, "%s: %s", path, err);
    if (!rc)
        CHECK(exec_threads(x) == want, "%s, 2 threads asked, exact %d: %d threads, expected %d",
              path, exact, exec_threads(x), want);
    exec_free(x);
    graph_free(g);
}

int main(void)
{
    check_threads("tests/data/models/ppocr_mobile_v2.0_cls.onnx", "x", 48, 192, 0, 1);
    check_threads("tests/data/models/ppocr_mobile_v2.0_cls.onnx", "x", 48, 192, 1, 2);
    check_threads("tests/data/models/yolox_nano.onnx", "images", 416, 416, 0, 2);

    for (int act = 0; act < A_COUNT; act++) {
        check(act, 11, 1, 0, 1);   /* dense: partial row and column tiles */
        check(act, 16, 1, 0, 2);
        check(act, 5, 5, 0, 1);    /* depthwise */
        check(act, 11, 1, 1, 1);   /* conv output is a graph output: no fusion */
    }
    for (int t = 0; t < 2; t++) {
        check_residual(A_SILU, 1, 11, 1, 0, t, 1 + t); /* pointwise: GEMM epilogue */
        check_residual(-1, 1, 16, 1, 0, !t, 1 + t);    /* no activation */
        check_residual(A_RELU, 3, 11, 1, 0, t, 1 + t); /* direct rows (Winograd) */
        check_residual(A_SILU, 3, 20, 1, 0, !t, 1 + t); /* 8-channel passes, the last of 4 */
        check_residual(A_SILU, 3, 5, 5, 0, t, 1 + t);  /* depthwise: added after */
        check_residual(A_SILU, 1, 11, 1, 1, t, 1 + t); /* shortcut made later: not fused */
        check_residual(A_SILU, 1, 3, 1, 0, t, 1 + t);  /* a head's few channels: small tiles */
        check_residual(A_RELU, 1, 4, 1, 0, !t, 1 + t);
    }
    for (int t = 0; t < 2; t++) {
        check_channel_add(A_RELU, 5, 16, 1, 3, 0, 1 + t); /* MNIST's: direct rows */
        check_channel_add(-1, 1, 11, 1, 4, 0, 1 + t);     /* pointwise: GEMM epilogue */
        check_channel_add(A_RELU, 3, 5, 5, 3, 0, 1 + t);  /* depthwise */
        check_channel_add(A_RELU, 3, 11, 1, 3, 0, 1 + t); /* Winograd */
        check_channel_add(A_RELU, 3, 11, 1, 4, 1, 1 + t); /* a bias of its own: apart */
        check_channel_add_i8(1, 1, 5, 8, 1, 1 + t, 0, 0);   /* MNIST's first: one channel */
        check_channel_add_i8(1, C, 5, 16, 1, 1 + t, 0, 0);  /* MNIST's second: byte tiles */
        check_channel_add_i8(0, C, 1, 11, 1, 1 + t, 0, 0);  /* pointwise, the Add an output */
        check_channel_add_i8(1, C, 3, 5, 5, 1 + t, 0, 0);   /* depthwise */
        check_channel_add_i8(1, 12, 3, 24, 3, 1 + t, 0, 0); /* grouped */
        check_channel_add_i8(1, 24, 2, 24, 1, 1 + t, 1, 1); /* PP-OCR det's head */
        check_channel_add_i8(2, C, 2, 1, 1, 1 + t, 1, 0);   /* its last: one channel, Sigmoid */
        check_channel_add_i8(1, C, 3, 7, 1, 1 + t, 1, 0);   /* stride 3 */
        check_channel_add_i8(0, C, 1, 6, 1, 1 + t, 0, 1);   /* a conv and its unfolded BN */
        check_convt_pair_i8(1, 24, 1 + t); /* PP-OCR det's head: bytes between its kernels */
        check_convt_pair_i8(0, 7, 1 + t);  /* no chain: the first kernel's own output */
        check_se_tables_i8(1, t, 1 + t);   /* a squeeze-excite scale and its residual Add */
        check_se_tables_i8(0, !t, 1 + t);  /* the scale alone */
    }
    for (int t = 0; t < 2; t++) {
        check_gather(0, 0, 1 + t); /* Slices of Slices, as YOLOX exports them */
        check_gather(1, 0, 1 + t); /* one Slice per phase */
        check_gather(t, 1, 1);     /* the Concat is also an output: not gathered */
    }
    for (int t = 1; t <= 2; t++) {
        check_pair(12, 16, 61, 150, 3, 2, 1, A_SILU, A_SILU, t); /* YOLOX's stem shape */
        check_pair(12, 5, 64, 151, 3, 1, 1, -1, A_RELU, t);      /* stride 1, no act_a */
        check_pair(12, 8, 47, 133, 5, 2, 2, A_RELU, -1, t);      /* 5x5, odd rows */
        check_pair(3, 4, 9, 13, 3, 2, 0, A_SILU, A_SILU, t);     /* one band, no pad */
    }
    check_conv(3, 3, 3, 61, 150, 3, 2, 1, 1);  /* stride 2, odd sizes, many row strips */
    check_conv(3, 3, 3, 40, 99, 3, 1, 1, 1);
    check_conv(2, 2, 2, 37, 83, 5, 1, 2, 1);
    check_conv(2, 2, 2, 30, 70, 5, 2, 2, 1);
    check_conv(2, 2, 2, 25, 66, 3, 1, 2, 2);   /* dilation */
    check_conv(2, 2, 2, 23, 47, 3, 3, 0, 1);   /* stride 3, no padding */
    check_conv(2, 2, 2, 9, 5, 7, 1, 3, 1);     /* kernel wider than the input */
    /* planes of a few rows (PP-OCR's 5x5 over 2x96 maps): kernel rows that
     * reach only padding are skipped, per block of eight vectors */
    check_conv(4, 4, 4, 2, 96, 5, 1, 2, 1);
    check_conv(3, 3, 3, 3, 50, 5, 1, 2, 1);
    check_conv(2, 2, 2, 3, 45, 5, 2, 2, 1);
    check_conv(2, 2, 2, 1, 40, 5, 1, 4, 2);    /* one row, dilated: taps 2 rows apart */
    check_conv(2, 2, 2, 5, 21, 3, 1, 1, 1);
    /* dense 3x3 stride 1 (Winograd on AVX-512): odd sizes, pads 0..2, tails */
    check_conv(16, 11, 1, 37, 45, 3, 1, 1, 1);
    check_conv(24, 8, 1, 20, 33, 3, 1, 0, 1);
    check_conv(9, 40, 1, 7, 70, 3, 1, 2, 1);
    check_conv(64, 16, 1, 52, 52, 3, 1, 1, 1);
    check_conv(16, 16, 2, 19, 21, 3, 1, 1, 1); /* grouped: not Winograd */
    /* dense stride 1, not Winograd: row-wise im2col, and blocks split mid-row */
    check_conv(6, 10, 1, 15, 23, 5, 1, 2, 1);
    check_conv(6, 10, 1, 15, 23, 3, 1, 2, 2);
    check_conv(64, 8, 1, 50, 70, 5, 1, 2, 1);
    check_convt(24, 24, 37, 53, 2);  /* PP-OCR head shape, odd sizes */
    check_convt(5, 3, 9, 20, 2);
    check_convt(4, 6, 11, 7, 3);     /* stride 3: not the paired path */
    check_swapped();
    check_slices(0);
    check_slices(1);
    static const char *const ew_ops[] = {"Add", "Sub", "Mul", "Div"};
    for (int i = 0; i < 4; i++)
        check_ew_bytes_i8(ew_ops[i], 0, 1 + i % 2);
    check_ew_bytes_i8("Add", 1, 2);
    check_ew_bytes_i8("SE", 0, 2);
    check_ew_bytes_i8("UP", 0, 2);
    check_ew_bytes_i8("SE", 1, 1);
    check_maxpool_i8(2, 1);  /* the last window: one input value and padding */
    check_maxpool_i8(2, 3);  /* the last window: padding alone */
    /* input ranges as tests/e2e/models.txt */
    check_model("tests/data/models/yolox_nano.onnx", "images", 416, 416, 0.0f, 255.0f);
    check_model("tests/data/models/ppocrv4_det.onnx", "x", 320, 320, -2.1f, 2.6f);
    check_model("tests/data/models/ppocr_mobile_v2.0_cls.onnx", "x", 48, 192, -1.0f, 1.0f);
    /* a residual Add fused in an RFB block */
    check_model("tests/data/models/ultraface_version-RFB-320.onnx", "input", 240, 320, -1.0f, 1.0f);
    TEST_END();
}
