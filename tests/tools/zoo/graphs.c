/* tests/tools/zoo/graphs.c — networks of the rknn_model_zoo benchmark table
 * built from their published architectures as shape-only graphs (no weights:
 * the NPU cost model needs shapes only), for bench/npu_models.sh. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tools/zoo/graphs.h"
#include "util/util.h"

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
    int ni = graph_add_node(b->g, NULL, op, "", n_in, in, 1, o); /* may move nodes */

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
    /* the weight is (classes, c), as both exports store it: transB */
    attr_ints(node(b, "Gemm", 3, in, y), "transB", 0, 1, 0, 0, 0);
    return y;
}

static graph_t *finish_n(gb *b, int x, int n_out, const int *y)
{
    b->g->t[x].kind = TK_INPUT;
    graph_set_io(b->g, 1, &x, n_out, y);
    return b->g;
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

/* ---- YOLOv8 (ultralytics yolov8.yaml; the zoo's RKNN export moves the DFL
 * out and adds a clipped class-score sum per scale: per scale the box conv
 * (64 channels), the class scores after Sigmoid and clip(sum(scores), 0, 1),
 * nine outputs) ------------------------------------------------------------ */

typedef struct y8 {
    y5 m;     /* conv + SiLU as in YOLOv5 */
    int maxc; /* max_channels of the scale */
} y8;

static int y8_ch(const y8 *v, int c) /* make_divisible(min(c, max_channels) * width, 8) */
{
    return (int)ceil((c < v->maxc ? c : v->maxc) * v->m.width / 8) * 8;
}

/* x split in two along the channels (torch chunk(2, 1) exports as Split) */
static void split2(gb *b, int x, int *y0, int *y1)
{
    const tensor_t *t = T(b, x);
    int64_t h = t->dims[1] / 2, H = t->dims[2], W = t->dims[3];
    int o[2], ni;

    o[0] = act(b, 1, h, H, W, 4);
    o[1] = act(b, 1, h, H, W, 4);
    ni = graph_add_node(b->g, NULL, "Split", "", 1, &x, 2, o);
    attr_ints(&b->g->nodes[ni], "axis", 0, 1, 0, 0, 0);
    attr_ints(&b->g->nodes[ni], "split", 2, h, h, 0, 0);
    *y0 = o[0];
    *y1 = o[1];
}

/* C2f: cv1 to 2c, split, n Bottlenecks (two 3x3, + input when shortcut) on
 * the last part, concat of all parts, cv2 */
static int y8_c2f(y8 *v, int x, int oc, int n, int shortcut)
{
    int c = oc / 2, parts[8], np = 2;

    split2(&v->m.b, y5_conv(&v->m, x, 2 * c, 1, 1), &parts[0], &parts[1]);
    for (int i = 0; i < n && np < 8; i++) {
        int a = parts[np - 1], z = y5_conv(&v->m, y5_conv(&v->m, a, c, 3, 1), c, 3, 1);
        parts[np++] = shortcut ? add(&v->m.b, z, a) : z;
    }
    return y5_conv(&v->m, concat(&v->m.b, np, parts), oc, 1, 1);
}

/* one scale of the Detect head: box branch (two 3x3 convs, 1x1 to 64) and
 * class branch (two 3x3 convs, 1x1 to the classes, Sigmoid, clipped channel
 * sum) */
static void y8_detect(y8 *v, int x, int c2, int c3, int classes, int *out)
{
    gb *b = &v->m.b;
    int s, r;
    node_t *nd;
    const tensor_t *t;

    out[0] = conv(b, y5_conv(&v->m, y5_conv(&v->m, x, c2, 3, 1), c2, 3, 1), 64, 1, 1, 1);
    s = same(b, "Sigmoid", conv(b, y5_conv(&v->m, y5_conv(&v->m, x, c3, 3, 1), c3, 3, 1), classes,
                                1, 1, 1));
    t = T(b, s);
    r = act(b, 1, 1, t->dims[2], t->dims[3], 4);
    nd = node(b, "ReduceSum", 1, &s, r);
    attr_ints(nd, "axes", 1, 1, 0, 0, 0);
    attr_ints(nd, "keepdims", 0, 1, 0, 0, 0);
    out[1] = s;
    out[2] = same(b, "Clip", r);
}

static graph_t *build_yolov8(double depth, double width, int maxc, int size, int classes)
{
    y8 v = {{{graph_new()}, width, 1}, maxc};
    y5 *m = &v.m;
    int x = act(&m->b, 1, 3, size, size, 4), p3, p4, p5, h12, y, cat[4], out[9], c2, c3;
    int n3 = (int)fmax(round(3 * depth), 1), n6 = (int)fmax(round(6 * depth), 1);

    y = y5_conv(m, y5_conv(m, x, y8_ch(&v, 64), 3, 2), y8_ch(&v, 128), 3, 2);
    y = y8_c2f(&v, y, y8_ch(&v, 128), n3, 1);
    p3 = y8_c2f(&v, y5_conv(m, y, y8_ch(&v, 256), 3, 2), y8_ch(&v, 256), n6, 1);
    p4 = y8_c2f(&v, y5_conv(m, p3, y8_ch(&v, 512), 3, 2), y8_ch(&v, 512), n6, 1);
    y = y8_c2f(&v, y5_conv(m, p4, y8_ch(&v, 1024), 3, 2), y8_ch(&v, 1024), n3, 1);
    /* SPPF: cv1 to half, three chained 5x5 max pools, concat, cv2 */
    y = y5_conv(m, y, y8_ch(&v, 1024) / 2, 1, 1);
    cat[0] = y;
    for (int i = 1; i < 4; i++)
        cat[i] = maxpool5(&m->b, cat[i - 1]);
    p5 = y5_conv(m, concat(&m->b, 4, cat), y8_ch(&v, 1024), 1, 1);
    /* PAN head: no convs before the upsamplings, C2f without shortcut */
    cat[0] = upsample2(&m->b, p5);
    cat[1] = p4;
    h12 = y8_c2f(&v, concat(&m->b, 2, cat), y8_ch(&v, 512), n3, 0);
    cat[0] = upsample2(&m->b, h12);
    cat[1] = p3;
    p3 = y8_c2f(&v, concat(&m->b, 2, cat), y8_ch(&v, 256), n3, 0);
    cat[0] = y5_conv(m, p3, y8_ch(&v, 256), 3, 2);
    cat[1] = h12;
    p4 = y8_c2f(&v, concat(&m->b, 2, cat), y8_ch(&v, 512), n3, 0);
    cat[0] = y5_conv(m, p4, y8_ch(&v, 512), 3, 2);
    cat[1] = p5;
    p5 = y8_c2f(&v, concat(&m->b, 2, cat), y8_ch(&v, 1024), n3, 0);
    /* Detect widths: c2 = max(16, ch0 / 4, 4 * reg_max 16),
     * c3 = max(ch0, min(classes, 100)) */
    c2 = (int)fmax(fmax(16, y8_ch(&v, 256) / 4), 64);
    c3 = (int)fmax(y8_ch(&v, 256), classes < 100 ? classes : 100);
    y8_detect(&v, p3, c2, c3, classes, out);
    y8_detect(&v, p4, c2, c3, classes, out + 3);
    y8_detect(&v, p5, c2, c3, classes, out + 6);
    return finish_n(&m->b, x, 9, out);
}

/* ---- RetinaFace (biubug6/Pytorch_Retinaface, the zoo's
 * RetinaFace_resnet50_320: torchvision ResNet-50 body, cfg_re50 in_channel
 * 256 / out_channel 256, exported with phase 'test', so the class output is
 * Softmax(dim=-1)) ---------------------------------------------------------- */

/* conv_bn / conv_bn1X1 of net.py (BN folded in the export) with
 * LeakyReLU(leaky); leaky is 0 when out_channels > 64, which exports as
 * LeakyRelu all the same */
static int rf_conv(gb *b, int x, int oc, int k)
{
    int y = same(b, "LeakyRelu", conv(b, x, oc, k, 1, 1));
    return y;
}

/* torchvision Bottleneck (v1.5: the stride on the 3x3), ReLU after the add */
static int rn_bottleneck(gb *b, int x, int width, int stride, int down)
{
    int sc = down ? conv(b, x, width * 4, 1, stride, 1) : x;
    int z = same(b, "Relu", conv(b, x, width, 1, 1, 1));
    z = same(b, "Relu", conv(b, z, width, 3, stride, 1));
    z = conv(b, z, width * 4, 1, 1, 1);
    return same(b, "Relu", add(b, z, sc));
}

/* SSH(in, out): 3x3 to out/2 (no activation); 3x3 to out/4 (+act), 3x3
 * (no act); from that 3x3 (+act), 3x3 (no act); concat, ReLU */
static int rf_ssh(gb *b, int x, int oc)
{
    int cat[3], c5;

    cat[0] = conv(b, x, oc / 2, 3, 1, 1);
    c5 = rf_conv(b, x, oc / 4, 3);
    cat[1] = conv(b, c5, oc / 4, 3, 1, 1);
    cat[2] = conv(b, rf_conv(b, c5, oc / 4, 3), oc / 4, 3, 1, 1);
    return same(b, "Relu", concat(b, 3, cat));
}

/* a head of one level: 1x1 conv to 2 anchors x k, permute to NHWC, view
 * (1, H*W*2, k) */
static int rf_head(gb *b, int x, int k)
{
    int y = conv(b, x, 2 * k, 1, 1, 1);
    const tensor_t *t = T(b, y);
    int64_t h = t->dims[2], w = t->dims[3];
    int p = act(b, 1, h, w, 2 * k, 4), r = act(b, 1, h * w * 2, k, 0, 3);
    int in[2] = {p, cst(b, 1, 3, 0, 0, 0)};
    node_t *n = node(b, "Transpose", 1, &y, p);

    attr_ints(n, "perm", 4, 0, 2, 3, 1);
    node(b, "Reshape", 2, in, r);
    return r;
}

static graph_t *build_retinaface_r50(int size)
{
    static const int blocks[4] = {3, 4, 6, 3};
    gb b = {graph_new()};
    int x = act(&b, 1, 3, size, size, 4), y, lv[3], f[3], out[3];

    y = maxpool(&b, same(&b, "Relu", conv(&b, x, 64, 7, 2, 1)));
    for (int s = 0; s < 4; s++)
        for (int i = 0; i < blocks[s]; i++) {
            y = rn_bottleneck(&b, y, 64 << s, s > 0 && i == 0 ? 2 : 1, i == 0);
            if (s > 0 && i == blocks[s] - 1)
                lv[s - 1] = y;
        }
    /* FPN: 1x1 per level, the coarser one upsampled (nearest) and added,
     * then the 3x3 merge */
    for (int i = 0; i < 3; i++)
        f[i] = rf_conv(&b, lv[i], 256, 1);
    f[1] = rf_conv(&b, add(&b, f[1], upsample2(&b, f[2])), 256, 3);
    f[0] = rf_conv(&b, add(&b, f[0], upsample2(&b, f[1])), 256, 3);
    for (int i = 0; i < 3; i++)
        f[i] = rf_ssh(&b, f[i], 256);
    /* outputs: boxes (4), classes (2, Softmax over the last axis), landmarks (10) */
    for (int o = 0; o < 3; o++) {
        static const int k[3] = {4, 2, 10};
        int part[3], n = 0;
        int64_t rows = 0;
        node_t *nd;
        for (int i = 0; i < 3; i++) {
            part[i] = rf_head(&b, f[i], k[o]);
            rows += T(&b, part[i])->dims[1];
        }
        out[o] = act(&b, 1, rows, k[o], 0, 3);
        nd = node(&b, "Concat", 3, part, out[o]);
        attr_ints(nd, "axis", 0, 1, 0, 0, 0);
        if (k[o] == 2) {
            n = act(&b, 1, rows, k[o], 0, 3);
            nd = node(&b, "Softmax", 1, &out[o], n);
            attr_ints(nd, "axis", 0, -1, 0, 0, 0);
            out[o] = n;
        }
    }
    return finish_n(&b, x, 3, out);
}

graph_t *zoo_yolov8(char scale, int size, int classes)
{
    switch (scale) {
    case 'n': return build_yolov8(0.33, 0.25, 1024, size, classes);
    case 's': return build_yolov8(0.33, 0.50, 1024, size, classes);
    case 'm': return build_yolov8(0.67, 0.75, 768, size, classes);
    default: return NULL;
    }
}

graph_t *zoo_graph(const char *name)
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
    if (!strcmp(name, "yolov5m"))
        return build_yolov5(0.67, 0.75, 1);
    if (!strncmp(name, "yolov8", 6))
        return zoo_yolov8(name[6], 640, 80);
    if (!strcmp(name, "retinaface_r50"))
        return build_retinaface_r50(320);
    return NULL;
}

