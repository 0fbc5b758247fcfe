/* tests/tools/npu_models.c — whole-model frame time of the simulated NPU against
 * the real boards (shared/research/npu-benchmarks.md).
 *
 * usage: npu_models [MODEL_DIR [PERFLOG_DIR]]
 *        (defaults tests/data/models and tests/fuzz/corpus/perflog)
 *
 * The models of the rknn_model_zoo benchmark table that we can reproduce in
 * ONNX: ppocrv4_det (the same PaddleOCR network, bundled in tests/data/models)
 * and two classic classifiers whose published architectures this tool builds
 * as graphs (mobilenetv2-12: torchvision MobileNetV2, ReLU6 as Clip, BN folded
 * as in the exported file; resnet50-v2-7: MXNet gluon ResNet-50 v2,
 * pre-activation BN+ReLU). Timing needs shapes only, so the weights are
 * absent. Each is lowered in int8 for every chip of the table, costed, and
 * npu_frame_us() is compared with 1000/FPS (batch 1, one core, max clocks).
 * Also printed: the frame model checked on the vendor's own yolov5s_relu
 * table (toolkit 1.5.0 per-layer rows: their NPU and DDR cycles through our
 * time model), against the same table's board FPS.
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

static int conv(gb *b, int x, int oc, int k, int s, int groups)
{
    const tensor_t *t = T(b, x);
    int64_t c = t->dims[1], h = t->dims[2], w = t->dims[3], p = k / 2;
    int y = act(b, 1, oc, (h + 2 * p - k) / s + 1, (w + 2 * p - k) / s + 1, 4);
    int in[2] = {x, cst(b, 4, oc, c / groups, k, k)};
    node_t *n = node(b, "Conv", 2, in, y);

    attr_ints(n, "group", 0, groups, 0, 0, 0);
    attr_ints(n, "strides", 2, s, s, 0, 0);
    attr_ints(n, "pads", 4, p, p, p, p);
    return y;
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
            in[k] = cst(b, 1, t->dims[1], 1, 1, 1);
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

static graph_t *finish(gb *b, int x, int y)
{
    graph_t *g = b->g;

    g->t[x].kind = TK_INPUT;
    g->t[y].is_output = 1;
    g->inputs = xmalloc(sizeof(int));
    g->inputs[0] = x;
    g->n_inputs = 1;
    g->outputs = xmalloc(sizeof(int));
    g->outputs[0] = y;
    g->n_outputs = 1;
    return g;
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

/* ---- the vendor's yolov5s_relu table through our time model -------------- */

static void yolov5_check(const char *dir)
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
    perflog_free(t, n);
    free(buf);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/data/models";
    const char *logs = argc > 2 ? argv[2] : "tests/fuzz/corpus/perflog";
    char err[512];
    int bad = 0, n_in = 0, n_20 = 0;
    double sum_abs = 0;

    printf("%-15s %-7s %-5s %8s %8s %9s %8s %8s %10s %8s\n", "model", "chip", "src", "board_ms",
           "(1.6.0)", "pred_ms", "err", "(1.6.0)", "perfsum_ms", "npu/cpu");
    for (size_t m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
        const bench_model *bm = &models[m];
        graph_t *g = NULL;
        int rc = 0;

        if (bm->file) {
            char path[1024];
            input_shape_t sh = {.name = bm->input, .ndim = 4};
            memcpy(sh.dims, bm->shape, sizeof bm->shape);
            snprintf(path, sizeof path, "%s/%s", dir, bm->file);
            rc = model_load_file(path, &g, err, sizeof err);
            if (!rc)
                rc = passes_prepare(g, &sh, 1, err, sizeof err);
        } else {
            g = !strcmp(bm->name, "mobilenetv2-12") ? build_mobilenetv2() : build_resnet50v2();
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
            npu_graph_free(ng);
        }
        graph_free(g);
    }
    printf("\n%d model/chip pairs; within +-20%% of the 2.3.2 board time: %d; mean |err| %.1f%%\n"
           "(rk3566 and rk3568 are one column of the zoo table; which board was used is not stated;\n"
           " rk3576's DDR bandwidth is derived from the same table's RK3576/RK3588 ratios)\n",
           n_in, n_20, n_in ? 100 * sum_abs / n_in : 0);
    yolov5_check(logs);
    return bad ? 2 : 0;
}
