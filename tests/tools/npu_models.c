/* tests/tools/npu_models.c — whole-model frame time of the simulated NPU against
 * the real boards (shared/research/npu-benchmarks.md).
 *
 * usage: npu_models [MODEL_DIR [PERFLOG_DIR [--table MODEL [CHIP] | --check]]]
 *        (defaults tests/data/models and tests/fuzz/corpus/perflog; --table
 *        also prints MODEL's predicted per-layer table on CHIP, rk3588 default;
 *        --check makes the lowering comparisons with the vendor's tables
 *        assertions: "N passed, N failed", exit 1 on a failure)
 *
 * The models of the rknn_model_zoo benchmark table that we can reproduce in
 * ONNX: ppocrv4_det (the same PaddleOCR network, bundled in tests/data/models)
 * and networks whose published architectures this tool builds as graphs
 * (mobilenetv2-12: torchvision MobileNetV2, ReLU6 as Clip, BN folded as in the
 * exported file; resnet50-v2-7: MXNet gluon ResNet-50 v2, pre-activation
 * BN+ReLU; YOLOv5 v6.x n/s/m with SiLU and s with ReLU, the three raw head
 * convs as outputs as the zoo exports them). Timing needs shapes only, so the
 * weights are absent. Each is lowered in int8 for every chip of the table,
 * costed, and npu_frame_us() is compared with 1000/FPS (batch 1, one core, max
 * clocks). Also printed: the frame model checked on the vendor's own
 * yolov5s_relu table (toolkit 1.5.0 per-layer rows: their NPU and DDR cycles
 * through our time model) against the same table's board FPS, and our
 * lowering of the built yolov5s_relu against that table's layers.
 *
 * Nothing here is fitted: the constants are those of npu_platform.c (one of
 * them, rk3576's DDR bandwidth, is derived from this same zoo table's
 * RK3576/RK3588 ratios over its 37 INT8 models, so its rows here are not an
 * independent check). Exit 0 (a report), 2 when a model cannot be read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/model/model.h"
#include "runtime/npu/npu.h"
#include "runtime/passes/passes.h"
#include "tracer/tracer.h"
#include "util/util.h"

/* --check: the lowering comparisons below become assertions (tests/run.sh) */
static int n_pass, n_fail;

static void check(int ok, const char *what)
{
    if (ok) {
        n_pass++;
        return;
    }
    n_fail++;
    printf("FAIL %s\n", what);
}

/* npu-benchmarks.md table A (rknn_model_zoo v2.3.2) and B (v1.6.0), ms =
 * 1000/FPS; 0 = not in the table. Column order of chips[]. */
static const char *const chips[] = {"rk3588", "rk3576", "rk3562", "rk3566", "rk3568"};
#define NCHIP 5

typedef struct bench_model {
    const char *name, *file, *input;  /* file NULL: built here */
    int64_t shape[4];
    double fps_a[NCHIP], fps_b[NCHIP];  /* rk3566 and rk3568 share one column */
} bench_model;

static const bench_model models[] = {
    {"ppocrv4_det", "ppocrv4_det.onnx", "x", {1, 3, 480, 480},
     {50.7, 64.3, 28.0, 22.1, 22.1}, {43.0, 0, 27.5, 24.4, 24.4}},
    {"mobilenetv2-12", NULL, "input", {1, 3, 224, 224},
     {450.7, 467.0, 281.3, 180.7, 180.7}, {433.0, 0, 266.8, 197.4, 197.4}},
    {"resnet50-v2-7", NULL, "data", {1, 3, 224, 224},
     {110.1, 99.0, 54.9, 37.9, 37.9}, {108.6, 0, 54.5, 40.6, 40.6}},
    {"yolov5s_relu", NULL, "images", {1, 3, 640, 640},
     {66.1, 65.0, 33.2, 25.5, 25.5}, {63.3, 0, 31.6, 26.7, 26.7}},
    {"yolov5n", NULL, "images", {1, 3, 640, 640},
     {82.5, 112.7, 47.4, 39.7, 39.7}, {68.1, 0, 43.8, 41.6, 41.6}},
    {"yolov5s", NULL, "images", {1, 3, 640, 640},
     {48.4, 57.5, 23.6, 19.3, 19.3}, {42.5, 0, 22.7, 19.9, 19.9}},
    {"yolov5m", NULL, "images", {1, 3, 640, 640},
     {20.9, 23.7, 10.8, 8.6, 8.6}, {19.3, 0, 10.6, 8.7, 8.7}},
};

/* ---- graph builder (shapes only) ------------------------------------------ */

typedef struct gb {
    graph_t *g;
} gb;

static int act(gb *b, int64_t n, int64_t c, int64_t h, int64_t w, int nd)
{
    char name[32];
    int i;
    tensor_t *t;

    snprintf(name, sizeof name, "t%d", b->g->n_t);
    i = graph_add_tensor(b->g, name);
    t = &b->g->t[i];
    t->dtype = DT_FLOAT;
    t->ndim = nd;
    t->dims[0] = n;
    t->dims[1] = c;
    t->dims[2] = h;
    t->dims[3] = w;
    t->kind = TK_ACT;
    return i;
}

static int cst(gb *b, int nd, int64_t d0, int64_t d1, int64_t d2, int64_t d3)
{
    int i = act(b, d0, d1, d2, d3, nd);
    b->g->t[i].kind = TK_CONST;
    return i;
}

static node_t *node(gb *b, const char *op, int n_in, const int *in, int out)
{
    int o[1] = {out};
    int ni = graph_add_node(b->g, NULL, op, "", n_in, in, 1, o);

    b->g->t[out].producer = ni;
    return &b->g->nodes[ni];
}

static void attr_ints(node_t *n, const char *name, int cnt, int64_t v0, int64_t v1, int64_t v2,
                      int64_t v3)
{
    attr_t *a;

    n->attrs = xrealloc(n->attrs, (size_t)(n->n_attr + 1) * sizeof(attr_t));
    a = &n->attrs[n->n_attr++];
    memset(a, 0, sizeof(*a));
    a->name = xstrdup(name);
    if (cnt == 0) {
        a->type = ATTR_INT;
        a->i = v0;
        return;
    }
    a->type = ATTR_INTS;
    a->n = cnt;
    a->ints = xmalloc(4 * sizeof(int64_t));
    a->ints[0] = v0;
    a->ints[1] = v1;
    a->ints[2] = v2;
    a->ints[3] = v3;
}

static const tensor_t *T(gb *b, int i)
{
    return &b->g->t[i];
}

static int conv_p(gb *b, int x, int oc, int k, int s, int groups, int64_t p)
{
    const tensor_t *t = T(b, x);
    int64_t c = t->dims[1], h = t->dims[2], w = t->dims[3];
    int y = act(b, 1, oc, (h + 2 * p - k) / s + 1, (w + 2 * p - k) / s + 1, 4);
    int in[2] = {x, cst(b, 4, oc, c / groups, k, k)};
    node_t *n = node(b, "Conv", 2, in, y);

    attr_ints(n, "group", 0, groups, 0, 0, 0);
    attr_ints(n, "strides", 2, s, s, 0, 0);
    attr_ints(n, "pads", 4, p, p, p, p);
    return y;
}

static int conv(gb *b, int x, int oc, int k, int s, int groups)
{
    return conv_p(b, x, oc, k, s, groups, k / 2);
}

static int same(gb *b, const char *op, int x)
{
    const tensor_t *t = T(b, x);
    int y = act(b, t->dims[0], t->dims[1], t->dims[2], t->dims[3], t->ndim);
    int in[5] = {x, -1, -1, -1, -1}, n = 1;

    if (!strcmp(op, "Clip")) { /* ReLU6, opset 12: min/max inputs */
        in[1] = cst(b, 0, 1, 1, 1, 1);
        in[2] = cst(b, 0, 1, 1, 1, 1);
        n = 3;
    } else if (!strcmp(op, "BatchNormalization")) {
        for (int k = 1; k < 5; k++)
            in[k] = cst(b, 1, T(b, x)->dims[1], 1, 1, 1); /* t moves as tensors are added */
        n = 5;
    }
    node(b, op, n, in, y);
    return y;
}

static int add(gb *b, int x, int r)
{
    const tensor_t *t = T(b, x);
    int y = act(b, 1, t->dims[1], t->dims[2], t->dims[3], 4);
    int in[2] = {x, r};

    node(b, "Add", 2, in, y);
    return y;
}

static int maxpool(gb *b, int x)
{
    const tensor_t *t = T(b, x);
    int y = act(b, 1, t->dims[1], (t->dims[2] - 1) / 2 + 1, (t->dims[3] - 1) / 2 + 1, 4);
    node_t *n = node(b, "MaxPool", 1, &x, y);

    attr_ints(n, "kernel_shape", 2, 3, 3, 0, 0);
    attr_ints(n, "strides", 2, 2, 2, 0, 0);
    attr_ints(n, "pads", 4, 1, 1, 1, 1);
    return y;
}

/* GlobalAveragePool, Flatten, Gemm to `classes`: the classifier head */
static int head(gb *b, int x, int classes)
{
    int64_t c = T(b, x)->dims[1];
    int p = act(b, 1, c, 1, 1, 4), f = act(b, 1, c, 0, 0, 2), y = act(b, 1, classes, 0, 0, 2);
    int in[3] = {f, cst(b, 2, classes, c, 0, 0), cst(b, 1, classes, 0, 0, 0)};

    node(b, "GlobalAveragePool", 1, &x, p);
    node(b, "Flatten", 1, &p, f);
    node(b, "Gemm", 3, in, y);
    return y;
}

static graph_t *finish_n(gb *b, int x, int n_out, const int *y)
{
    graph_t *g = b->g;

    g->t[x].kind = TK_INPUT;
    g->inputs = xmalloc(sizeof(int));
    g->inputs[0] = x;
    g->n_inputs = 1;
    g->outputs = xmalloc(sizeof(int) * (size_t)n_out);
    for (int i = 0; i < n_out; i++) {
        g->t[y[i]].is_output = 1;
        g->outputs[i] = y[i];
    }
    g->n_outputs = n_out;
    return g;
}

static graph_t *finish(gb *b, int x, int y)
{
    return finish_n(b, x, 1, &y);
}

/* torchvision MobileNetV2 1.0: t,c,n,s = (1,16,1,1) (6,24,2,2) (6,32,3,2)
 * (6,64,4,2) (6,96,3,1) (6,160,3,2) (6,320,1,1); 32 stem, 1280 last. */
static graph_t *build_mobilenetv2(void)
{
    static const int cfg[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                                  {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    gb b = {graph_new()};
    int x = act(&b, 1, 3, 224, 224, 4), y, in_c = 32;

    y = same(&b, "Clip", conv(&b, x, 32, 3, 2, 1));
    for (int s = 0; s < 7; s++)
        for (int i = 0; i < cfg[s][2]; i++) {
            int stride = i ? 1 : cfg[s][3], hid = in_c * cfg[s][0], z = y;
            if (cfg[s][0] != 1)
                z = same(&b, "Clip", conv(&b, z, hid, 1, 1, 1));
            z = same(&b, "Clip", conv(&b, z, hid, 3, stride, hid));
            z = conv(&b, z, cfg[s][1], 1, 1, 1);
            if (stride == 1 && in_c == cfg[s][1])
                z = add(&b, z, y);
            y = z;
            in_c = cfg[s][1];
        }
    y = same(&b, "Clip", conv(&b, y, 1280, 1, 1, 1));
    return finish(&b, x, head(&b, y, 1000));
}

/* gluon ResNet-50 v2: BN on the input, 7x7/2 conv, BN+ReLU, 3x3/2 max pool,
 * BottleneckV2 x [3,4,6,3] (BN+ReLU, 1x1, BN+ReLU, 3x3 with the stride,
 * BN+ReLU, 1x1, + shortcut: a 1x1 strided conv of the pre-activated input in
 * the first block of each stage), BN+ReLU, head. */
static graph_t *build_resnet50v2(void)
{
    static const int layers[4] = {3, 4, 6, 3}, ch[4] = {256, 512, 1024, 2048};
    gb b = {graph_new()};
    int x = act(&b, 1, 3, 224, 224, 4), y;

    y = conv(&b, same(&b, "BatchNormalization", x), 64, 7, 2, 1);
    y = maxpool(&b, same(&b, "Relu", same(&b, "BatchNormalization", y)));
    for (int s = 0; s < 4; s++)
        for (int i = 0; i < layers[s]; i++) {
            int stride = (s > 0 && i == 0) ? 2 : 1, c = ch[s];
            int pre = same(&b, "Relu", same(&b, "BatchNormalization", y));
            int sc = i == 0 ? conv(&b, pre, c, 1, stride, 1) : y;
            int z = conv(&b, pre, c / 4, 1, 1, 1);
            z = conv(&b, same(&b, "Relu", same(&b, "BatchNormalization", z)), c / 4, 3, stride, 1);
            z = conv(&b, same(&b, "Relu", same(&b, "BatchNormalization", z)), c, 1, 1, 1);
            y = add(&b, z, sc);
        }
    y = same(&b, "Relu", same(&b, "BatchNormalization", y));
    return finish(&b, x, head(&b, y, 1000));
}

/* ---- YOLOv5 v6.x (ultralytics yolov5s.yaml et al.; the zoo's export keeps
 * the three raw head convs as outputs) ------------------------------------ */

typedef struct y5 {
    gb b;
    double width;
    int silu;
} y5;

static int y5_ch(const y5 *m, int c) /* make_divisible(c * width, 8) */
{
    return (int)ceil(c * m->width / 8) * 8;
}

/* Conv = conv + BN (folded in the export) + activation: ReLU in yolov5s_relu,
 * else SiLU as x * Sigmoid(x) */
static int y5_conv(y5 *m, int x, int oc, int k, int s)
{
    int y = conv_p(&m->b, x, oc, k, s, 1, k == 6 ? 2 : k / 2);
    if (!m->silu)
        return same(&m->b, "Relu", y);
    {
        int sg = same(&m->b, "Sigmoid", y), o = act(&m->b, 1, oc, T(&m->b, y)->dims[2],
                                                     T(&m->b, y)->dims[3], 4);
        int in[2] = {y, sg};
        node(&m->b, "Mul", 2, in, o);
        return o;
    }
}

static int concat(gb *b, int n, const int *x)
{
    int64_t c = 0;
    int y;
    node_t *nd;

    for (int i = 0; i < n; i++)
        c += T(b, x[i])->dims[1];
    y = act(b, 1, c, T(b, x[0])->dims[2], T(b, x[0])->dims[3], 4);
    nd = node(b, "Concat", n, x, y);
    attr_ints(nd, "axis", 0, 1, 0, 0, 0);
    return y;
}

/* C3: cv1 -> n Bottlenecks (1x1, 3x3, + input when shortcut), cv2, concat, cv3 */
static int y5_c3(y5 *m, int x, int oc, int n, int shortcut)
{
    int h = oc / 2, a = y5_conv(m, x, h, 1, 1), c2 = y5_conv(m, x, h, 1, 1), cat[2];

    for (int i = 0; i < n; i++) {
        int z = y5_conv(m, y5_conv(m, a, h, 1, 1), h, 3, 1);
        a = shortcut ? add(&m->b, z, a) : z;
    }
    cat[0] = a;
    cat[1] = c2;
    return y5_conv(m, concat(&m->b, 2, cat), oc, 1, 1);
}

static int maxpool5(gb *b, int x)
{
    const tensor_t *t = T(b, x);
    int y = act(b, 1, t->dims[1], t->dims[2], t->dims[3], 4);
    node_t *n = node(b, "MaxPool", 1, &x, y);

    attr_ints(n, "kernel_shape", 2, 5, 5, 0, 0);
    attr_ints(n, "strides", 2, 1, 1, 0, 0);
    attr_ints(n, "pads", 4, 2, 2, 2, 2);
    return y;
}

static int upsample2(gb *b, int x) /* Resize nearest, scales (1,1,2,2) */
{
    const tensor_t *t = T(b, x);
    int y = act(b, 1, t->dims[1], 2 * t->dims[2], 2 * t->dims[3], 4);
    int in[3] = {x, -1, cst(b, 1, 4, 0, 0, 0)};

    node(b, "Resize", 3, in, y);
    return y;
}

static graph_t *build_yolov5(double depth, double width, int silu)
{
    y5 m = {{graph_new()}, width, silu};
    int x = act(&m.b, 1, 3, 640, 640, 4), p3, p4, p5, h10, h14, y, cat[4], out[3];
    int n3 = (int)fmax(round(3 * depth), 1), n6 = (int)fmax(round(6 * depth), 1);
    int n9 = (int)fmax(round(9 * depth), 1);

    y = y5_conv(&m, x, y5_ch(&m, 64), 6, 2);
    y = y5_c3(&m, y5_conv(&m, y, y5_ch(&m, 128), 3, 2), y5_ch(&m, 128), n3, 1);
    p3 = y5_c3(&m, y5_conv(&m, y, y5_ch(&m, 256), 3, 2), y5_ch(&m, 256), n6, 1);
    p4 = y5_c3(&m, y5_conv(&m, p3, y5_ch(&m, 512), 3, 2), y5_ch(&m, 512), n9, 1);
    y = y5_c3(&m, y5_conv(&m, p4, y5_ch(&m, 1024), 3, 2), y5_ch(&m, 1024), n3, 1);
    /* SPPF: cv1, three chained 5x5 max pools, concat, cv2 */
    y = y5_conv(&m, y, y5_ch(&m, 512), 1, 1);
    cat[0] = y;
    for (int i = 1; i < 4; i++)
        cat[i] = maxpool5(&m.b, cat[i - 1]);
    p5 = y5_conv(&m, concat(&m.b, 4, cat), y5_ch(&m, 1024), 1, 1);
    /* PANet head */
    h10 = y5_conv(&m, p5, y5_ch(&m, 512), 1, 1);
    cat[0] = upsample2(&m.b, h10);
    cat[1] = p4;
    y = y5_c3(&m, concat(&m.b, 2, cat), y5_ch(&m, 512), n3, 0);
    h14 = y5_conv(&m, y, y5_ch(&m, 256), 1, 1);
    cat[0] = upsample2(&m.b, h14);
    cat[1] = p3;
    p3 = y5_c3(&m, concat(&m.b, 2, cat), y5_ch(&m, 256), n3, 0);
    cat[0] = y5_conv(&m, p3, y5_ch(&m, 256), 3, 2);
    cat[1] = h14;
    p4 = y5_c3(&m, concat(&m.b, 2, cat), y5_ch(&m, 512), n3, 0);
    cat[0] = y5_conv(&m, p4, y5_ch(&m, 512), 3, 2);
    cat[1] = h10;
    p5 = y5_c3(&m, concat(&m.b, 2, cat), y5_ch(&m, 1024), n3, 0);
    /* Detect: 3 anchors x (80 classes + 5) per scale */
    out[0] = conv(&m.b, p3, 255, 1, 1, 1);
    out[1] = conv(&m.b, p4, 255, 1, 1, 1);
    out[2] = conv(&m.b, p5, 255, 1, 1, 1);
    return finish_n(&m.b, x, 3, out);
}

static graph_t *build(const char *name)
{
    if (!strcmp(name, "mobilenetv2-12"))
        return build_mobilenetv2();
    if (!strcmp(name, "resnet50-v2-7"))
        return build_resnet50v2();
    if (!strcmp(name, "yolov5s_relu"))
        return build_yolov5(0.33, 0.50, 0);
    if (!strcmp(name, "yolov5n"))
        return build_yolov5(0.33, 0.25, 1);
    if (!strcmp(name, "yolov5s"))
        return build_yolov5(0.33, 0.50, 1);
    return build_yolov5(0.67, 0.75, 1); /* yolov5m */
}

/* ---- the vendor's yolov5s_relu table through our time model -------------- */

static void shape_text(const npu_shape_t *sh, char *buf, size_t len)
{
    size_t o = (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < sh->nd && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%lld", i ? "," : "", (long long)sh->d[i]);
    if (o < len)
        snprintf(buf + o, len - o, ")");
}

/* Our lowering of the built yolov5s_relu (rk3588) against the vendor's rows
 * of the same network: NPU layers matched as (OpType, output shape) pairs in
 * any order, and the total DDR bytes (the table's cycles x 5.914). */
static void yolov5_lowering(const perflog_table_t *t, const npu_graph_t *ng, double old_bpc)
{
    int ours = 0, theirs = 0, matched = 0, listed = 0;
    char *used = xcalloc((size_t)t->n_rows + 1, 1), out[128];
    double b_ours = 0, b_theirs = 0;

    for (int i = 0; i < t->n_rows; i++)
        if (!strcmp(t->rows[i].target, "NPU")) {
            theirs++;
            b_theirs += (double)t->rows[i].ddr * old_bpc;
        }
    for (int i = 0; i < ng->n; i++) {
        const npu_layer_t *l = &ng->l[i];
        if (l->target != NPU_TGT_NPU)
            continue;
        ours++;
        b_ours += (double)l->ddr_cycles * npu_ddr_bytes_per_cycle(ng->plat);
        shape_text(&l->out[0], out, sizeof out);
        for (int k = 0; k < t->n_rows; k++)
            if (!used[k] && !strcmp(t->rows[k].target, "NPU") &&
                !strcmp(t->rows[k].optype, l->optype) && !strcmp(t->rows[k].outshape, out)) {
                used[k] = 1;
                matched++;
                break;
            }
    }
    printf("  our lowering of the built network: %d NPU layers, the vendor's %d; %d equal in OpType\n"
           "  and output shape (the vendor lowers the 2 nearest Resizes to ConvTranspose)\n",
           ours, theirs, matched);
    printf("  DDR bytes of the network: ours %.1f MB, the vendor's %.1f MB (%+.1f%%)\n",
           b_ours / 1e6, b_theirs / 1e6, 100 * (b_ours / b_theirs - 1));
    /* the ranking table lists every NPU layer, the wrapped rows too */
    for (int i = 0; i < t->n_ops; i++)
        if (t->ops[i].calls > 0 && strcmp(t->ops[i].optype, "InputOperator") &&
            strcmp(t->ops[i].optype, "OutputOperator"))
            listed += t->ops[i].calls;
    check(ours == listed, "yolov5s_relu: as many NPU layers as the vendor's ranking table");
    check(matched == theirs - 2, "yolov5s_relu: every row read but the 2 ConvTranspose matched");
    check(fabs(b_ours / b_theirs - 1) <= 0.02, "yolov5s_relu: network DDR bytes within 2 %");
    free(used);
}

static void yolov5_check(const char *dir, const npu_graph_t *built)
{
    char path[1024], err[256], *buf = NULL;
    size_t len = 0;
    perflog_table_t *t = NULL;
    int n = 0, rows = 0;
    const npu_platform_t *p = npu_platform_find("rk3588");
    double frame = 0, perf = 0;
    /* that runtime (1.5.0) billed DDR cycles at 5.914 bytes per cycle
     * (npu-benchmarks.md D1: every row's RW bytes / DDR cycles) */
    const double old_bpc = 5.914;

    snprintf(path, sizeof path, "%s/perf-evalperf-oldfmt-full-yolov5s-rk3588-tk1.5.0-vendordoc-06.txt", dir);
    if (rt_read_file(path, (void **)&buf, &len, err, sizeof err) ||
        perflog_parse(buf, len, &t, &n, err, sizeof err)) {
        printf("yolov5s_relu check skipped: %s\n", err);
        check(0, "yolov5s_relu table read");
        free(buf);
        return;
    }
    for (int i = 0; i < t[0].n_rows; i++) {
        const perflog_row_t *r = &t[0].rows[i];
        perf += (double)(r->time_us > 0 ? r->time_us : 0);
        if (strcmp(r->target, "NPU")) {
            frame += (double)(r->time_us > 0 ? r->time_us : 0);
            continue;
        }
        {
            double ddr = (double)r->ddr * old_bpc / npu_ddr_bytes_per_cycle(p);
            frame += fmax((double)r->npu * p->t_npu[NPU_INT8], ddr * p->t_ddr[NPU_INT8]) / p->npu_mhz;
            rows++;
        }
    }
    printf("\nframe model on the vendor's own rows: yolov5s_relu 640, rk3588 1 core, toolkit 1.5.0 table\n"
           "(%d NPU rows, their NPU cycles and DDR bytes through our t_npu/t_ddr, CPU rows as logged):\n"
           "  predicted %.2f ms; board %.2f ms (zoo 2.3.2) %+.1f%%, %.2f ms (zoo 1.6.0) %+.1f%%;\n"
           "  the same table's perf_debug sum %.2f ms (%+.1f%%)\n",
           rows, frame / 1e3, 1000 / 66.1, 100 * (frame / 1e3 / (1000 / 66.1) - 1), 1000 / 63.3,
           100 * (frame / 1e3 / (1000 / 63.3) - 1), perf / 1e3, 100 * (perf / 1e3 / (1000 / 66.1) - 1));
    if (built)
        yolov5_lowering(&t[0], built, old_bpc);
    perflog_free(t, n);
    free(buf);
}

/* The SDK guide's own mobilenet eval_perf (2.3.0, RK3588; rows elided by
 * Rockchip, totals kept) against our lowering of the built mobilenetv2-12. */
static void mobilenet_check(const char *dir, const npu_graph_t *ng)
{
    char path[1024], err[256], *buf = NULL;
    size_t len = 0;
    perflog_table_t *t = NULL;
    int n = 0, last = 0;
    double rw = 0;

    snprintf(path, sizeof path, "%s/perf-evalperf-2xfmt-abridged-mobilenet-rk3588-sdk2.3.0-rkguide-10.txt",
             dir);
    if (!ng || rt_read_file(path, (void **)&buf, &len, err, sizeof err) ||
        perflog_parse(buf, len, &t, &n, err, sizeof err) || n < 1) {
        printf("mobilenet check skipped: %s\n", ng ? err : "no lowering");
        check(0, "mobilenet table read");
        free(buf);
        return;
    }
    for (int i = 0; i < t[0].n_rows; i++)
        last = t[0].rows[i].id > last ? t[0].rows[i].id : last;
    for (int i = 0; i < ng->n; i++)
        rw += ng->l[i].rw_kb;
    printf("\nlowering on the SDK guide's mobilenet eval_perf (2.3.0, rk3588; rows elided, totals kept):\n"
           "  layers: ours %d, the guide's %d; Total Memory Read/Write Per Frame Size(KB): ours %.1f,\n"
           "  the guide's %.0f (%+.2f%%)\n",
           ng->n, last, rw, t[0].total_rw_kb, 100 * (rw / t[0].total_rw_kb - 1));
    check(ng->n == last, "mobilenet: as many layers as the guide's table");
    check(fabs(rw / t[0].total_rw_kb - 1) <= 0.01, "mobilenet: total RW(KB) within 1 %");
    perflog_free(t, n);
    free(buf);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/data/models";
    const char *logs = argc > 2 ? argv[2] : "tests/fuzz/corpus/perflog";
    const char *table = argc > 4 && !strcmp(argv[3], "--table") ? argv[4] : NULL;
    int check_mode = argc > 3 && !strcmp(argv[3], "--check");
    const char *table_chip = argc > 5 ? argv[5] : "rk3588";
    char err[512];
    int bad = 0, n_in = 0, n_20 = 0;
    double sum_abs = 0;
    /* rk3588 lowerings compared with the vendor's tables below: [0]
     * yolov5s_relu, [1] mobilenetv2-12 */
    static const char *const kept_name[2] = {"yolov5s_relu", "mobilenetv2-12"};
    npu_graph_t *kept[2] = {NULL, NULL};
    graph_t *kept_g[2] = {NULL, NULL};
    int chip_n[NCHIP] = {0}, chip_20[NCHIP] = {0};

    printf("%-15s %-7s %-5s %8s %8s %9s %8s %8s %10s %8s\n", "model", "chip", "src", "board_ms",
           "(1.6.0)", "pred_ms", "err", "(1.6.0)", "perfsum_ms", "npu/cpu");
    for (size_t m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
        const bench_model *bm = &models[m];
        graph_t *g = NULL;
        int rc = 0;

        if (table && strcmp(table, bm->name))
            continue;

        if (bm->file) {
            char path[1024];
            input_shape_t sh = {.name = bm->input, .ndim = 4};
            memcpy(sh.dims, bm->shape, sizeof bm->shape);
            snprintf(path, sizeof path, "%s/%s", dir, bm->file);
            rc = model_load_file(path, &g, err, sizeof err);
            if (!rc)
                rc = passes_prepare(g, &sh, 1, err, sizeof err);
        } else {
            g = build(bm->name);
        }
        if (rc) {
            fprintf(stderr, "npu_models: %s: %s\n", bm->name, err);
            graph_free(g);
            bad = 1;
            continue;
        }
        for (int c = 0; c < NCHIP; c++) {
            npu_graph_t *ng = NULL;
            double a = bm->fps_a[c] > 0 ? 1000 / bm->fps_a[c] : 0;
            double b16 = bm->fps_b[c] > 0 ? 1000 / bm->fps_b[c] : 0, pred;
            int nn = 0, nc = 0;
            char eb[16] = "-";

            if (npu_lower(g, npu_platform_find(chips[c]), DT_INT8, &ng, err, sizeof err)) {
                printf("%-15s %-7s lowering failed: %s\n", bm->name, chips[c], err);
                continue;
            }
            /* the Internal buffer plan: on chips with an nbuf its start is on chip */
            if (npu_mem_plan(ng, g, NULL, 0, err, sizeof err))
                fprintf(stderr, "npu_models: %s %s: no memory plan: %s\n", bm->name,
                        chips[c], err);
            npu_cost(ng, NULL);
            pred = npu_frame_us(ng) / 1e3;
            if (table && !strcmp(chips[c], table_chip))
                npu_print_perf_table(stdout, ng, 0);
            for (int i = 0; i < ng->n; i++) {
                if (ng->l[i].kind == NPU_K_IO)
                    continue;
                if (ng->l[i].target == NPU_TGT_NPU)
                    nn++;
                else
                    nc++;
            }
            if (b16 > 0)
                snprintf(eb, sizeof eb, "%+.1f%%", 100 * (pred / b16 - 1));
            printf("%-15s %-7s %-5s %8.2f %8.2f %9.2f %+7.1f%% %8s %10.2f %4d/%d\n", bm->name, chips[c],
                   bm->file ? "onnx" : "built", a, b16, pred, 100 * (pred / a - 1), eb,
                   ng->total_us / 1e3, nn, nc);
            sum_abs += fabs(pred / a - 1);
            n_in++;
            n_20 += fabs(pred / a - 1) <= 0.20;
            chip_n[c]++;
            chip_20[c] += fabs(pred / a - 1) <= 0.20;
            for (int k = 0; k < 2 && ng; k++)
                if (!strcmp(bm->name, kept_name[k]) && c == 0 && !kept[k]) {
                    kept[k] = ng;
                    ng = NULL;
                }
            npu_graph_free(ng);
        }
        for (int k = 0; k < 2 && g; k++)
            if (kept[k] && !kept_g[k] && !strcmp(bm->name, kept_name[k])) {
                kept_g[k] = g;
                g = NULL;
            }
        graph_free(g);
    }
    printf("\n%d model/chip pairs; within +-20%% of the 2.3.2 board time: %d; mean |err| %.1f%%\n"
           "(rk3566 and rk3568 are one column of the zoo table; which board was used is not stated;\n"
           " rk3576's DDR bandwidth is derived from the same table's RK3576/RK3588 ratios)\n",
           n_in, n_20, n_in ? 100 * sum_abs / n_in : 0);
    printf("per chip, within +-20%%:");
    for (int c = 0; c < NCHIP; c++)
        printf(" %s %d/%d%s", chips[c], chip_20[c], chip_n[c], c + 1 < NCHIP ? "," : "\n");
    yolov5_check(logs, kept[0]);
    mobilenet_check(logs, kept[1]);
    for (int k = 0; k < 2; k++) {
        npu_graph_free(kept[k]);
        graph_free(kept_g[k]);
    }
    if (check_mode) {
        printf("\n%d passed, %d failed\n", n_pass, n_fail);
        return bad ? 2 : n_fail ? 1 : 0;
    }
    return bad ? 2 : 0;
}
