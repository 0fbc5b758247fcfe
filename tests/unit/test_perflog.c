/* tests/unit/test_perflog.c — the vendor perf-table parser on real logs (expected
 * values read by hand from the files in tests/fuzz/corpus/perflog), then our own
 * level-4 table printed and parsed back field by field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "runtime/npu/npu.h"
#include "tests/test.h"
#include "tracer/tracer.h"
#include "util/util.h"

#define CORPUS "tests/fuzz/corpus/perflog/"

static perflog_table_t *load(const char *name, int *n)
{
    char path[512], err[256];
    void *buf;
    size_t len;
    perflog_table_t *t = NULL;

    snprintf(path, sizeof path, CORPUS "%s", name);
    *n = 0;
    if (rt_read_file(path, &buf, &len, err, sizeof err)) {
        CHECK(0, "%s", err);
        return NULL;
    }
    if (perflog_parse(buf, len, &t, n, err, sizeof err))
        CHECK(0, "%s: %s", name, err);
    free(buf);
    return t;
}

static void real_logs(void)
{
    perflog_table_t *t;
    int n;
    const perflog_row_t *r;

    t = load("perf-perfdetail-yolov8n1920-rk3588-channy-01.txt", &n);
    CHECK(n == 1, "one table, got %d", n);
    if (t) {
        CHECK(t->generation == 'A' && t->n_rows == 108 && t->n_bad_rows == 0, "rows %d bad %d",
              t->n_rows, t->n_bad_rows);
        r = &t->rows[1];
        CHECK(r->id == 2 && !strcmp(r->optype, "ConvExSwish") && !strcmp(r->datatype, "UINT8") &&
              !strcmp(r->target, "NPU"), "row 2 %s", r->optype);
        CHECK(!strcmp(r->inshape, "(1,3,1920,1920),(16,3,3,3),(16)"), "%s", r->inshape);
        CHECK(r->ddr == 1091036 && r->npu == 8294400 && r->total == 8294400 && r->time_us == 16130,
              "cycles");
        CHECK(r->n_mac == 3 && r->mac[0] == 2.41 && r->n_wl == 3 && r->wl[0] == 100.0, "mac/wl");
        CHECK(r->rw_kb == 10802 && !strcmp(r->fullname, "Conv:/model.0/conv/Conv"), "%s", r->fullname);
        r = &t->rows[4];
        CHECK(!strcmp(r->optype, "Split") && r->n_mac == 0 && !strcmp(r->outshape, "(1,16,480,480),..."),
              "split row");
        CHECK(t->total_time_us == 128441 && t->total_rw_kb == 289739, "totals");
        CHECK(t->n_ops == 11 && !t->has_total_op, "ops %d", t->n_ops);
        CHECK(!strcmp(t->ops[0].optype, "ConvExSwish") && t->ops[0].calls == 57 &&
              t->ops[0].npu_us == 100965 && t->ops[0].ratio == 78.61, "rank 1");
        CHECK(!strcmp(t->ops[7].optype, "OutputOperator") && t->ops[7].cpu_us == 1134, "rank 8");
    }
    perflog_free(t, n);

    t = load("perf-evalperf-fp16-unet256-rk3588-tk2.3.0-triority-05.txt", &n);
    if (t) {
        CHECK(t->n_rows == 95 && t->n_bad_rows == 0, "rows %d", t->n_rows);
        CHECK(t->rows[1].fullname[0] == 0 && t->rows[1].npu == 131072, "row 2 empty FullName");
        r = &t->rows[2]; /* Pad: MacUsage blank in 2.3 */
        CHECK(!strcmp(r->optype, "Pad") && r->n_mac == 0 && r->n_wl == 3 && r->wl[0] == 100.0 &&
              r->rw_kb == 1024, "pad");
        CHECK(!strcmp(t->rows[38].fullname, "Concat:/Concat"), "padded FullName '%s'", t->rows[38].fullname);
        CHECK(t->total_time_us == 183003 && t->total_rw_kb == 407048.59, "totals");
    }
    perflog_free(t, n);

    t = load("perf-optable-total-row-fp16-unet256-rk3588-tk2.3.0-triority-06.txt", &n);
    if (t) {
        CHECK(t->n_rows == 0 && t->n_ops == 16 && t->has_total_op, "ops %d", t->n_ops);
        CHECK(t->ops[15].cpu_us == 23690 && t->ops[15].gpu_us == 0 && t->ops[15].npu_us == 159313 &&
              t->ops[15].total_us == 183003, "Total row");
        CHECK(!strcmp(t->ops[0].optype, "ConvLeakyRelu") && t->ops[0].calls == 21 &&
              t->ops[0].ratio == 27.24, "first");
    }
    perflog_free(t, n);

    t = load("perf-evalperf-oldfmt-full-yolov5s-rk3588-tk1.5.0-vendordoc-06.txt", &n);
    if (t) {
        CHECK(t->generation == 'C' && t->has_tasknumber, "old generation");
        /* 82 rows; rows 41 and 50 are wrapped over two lines in the source and
         * joined (values read off the transcript) */
        CHECK(t->n_rows == 82 && t->n_bad_rows == 0, "rows %d bad %d", t->n_rows, t->n_bad_rows);
        if (t->n_rows == 82) {
            r = &t->rows[40];
            CHECK(r->id == 41 && !strcmp(r->optype, "Concat") && r->ddr == 281551 && r->npu == 0 &&
                  r->total == 281551 && r->time_us == 203 && r->task_number == 29 &&
                  r->rw_kb == 1626.06 && !strcmp(r->fullname, "Concat:Concat_78") &&
                  !strcmp(r->outshape, "(1,1024,20,20)"), "wrapped row 41");
            r = &t->rows[49];
            CHECK(r->id == 50 && r->ddr == 149958 && r->time_us == 277 && r->rw_kb == 866.06 &&
                  !strcmp(r->fullname, "Concat:Concat_94") && t->rows[50].id == 51,
                  "wrapped row 50 (a blank line between its halves)");
        }
        r = &t->rows[2];
        CHECK(r->id == 3 && r->ddr == 416796 && r->npu == 460800 && r->total == 460800 &&
              r->time_us == 924 && r->n_mac == 1 && r->mac[0] == 49.87 && r->up == 0.0 &&
              r->task_number == 42 && r->rw_kb == 2407.16 && !strcmp(r->fullname, "Conv:Conv_2"),
              "old row 3");
        CHECK(t->rows[0].rw_kb == 4598.19, "InputOperator RW");
        CHECK(t->total_time_us == 27987 && t->total_rw_mb == 88.4914, "old totals");
    }
    perflog_free(t, n);

    t = load("perf-level4-prefixed-header-only-transformer-400-07.txt", &n);
    CHECK(t && n >= 1 && t->generation == 'A', "prefixed header");
    perflog_free(t, n);

    {   /* rows without a header line are not a table */
        void *buf;
        size_t len;
        char err[256];
        CHECK(rt_read_file(CORPUS "perf-rows-2x-int8-cpu-gather-yolo-rk3588-yolov10-115-08.txt",
                           &buf, &len, err, sizeof err) == 0, "%s", err);
        CHECK(perflog_parse(buf, len, &t, &n, err, sizeof err) == RT_EFORMAT, "headerless");
        free(buf);
    }
    {
        perflog_table_t *x;
        int k;
        char err[128];
        CHECK(perflog_parse("hello\n", 6, &x, &k, err, sizeof err) == RT_EFORMAT, "no table");
    }
}

static int add_t(graph_t *g, const char *name, int nd, const int64_t *d, int kind)
{
    int i = graph_add_tensor(g, name);
    g->t[i].dtype = DT_FLOAT;
    g->t[i].ndim = nd;
    for (int k = 0; k < nd; k++)
        g->t[i].dims[k] = d[k];
    g->t[i].kind = kind;
    return i;
}

static int add_n(graph_t *g, const char *name, const char *op, int n_in, const int *in, int out)
{
    int o[1] = {out}, ni = graph_add_node(g, name, op, "", n_in, in, 1, o);
    g->t[out].producer = ni;
    return ni;
}

/* x(1,3,32,32) -> Conv 3x3 16 -> Sigmoid/Mul -> Resize (cubic: CPU) -> Conv 1x1 32 -> y */
static graph_t *small_graph(void)
{
    graph_t *g = graph_new();
    int64_t dx[4] = {1, 3, 32, 32}, dw[4] = {16, 3, 3, 3}, db[1] = {16}, d1[4] = {1, 16, 32, 32};
    int64_t d2[4] = {1, 16, 64, 64}, dw2[4] = {32, 16, 1, 1}, d3[4] = {1, 32, 64, 64}, ds[1] = {4};
    int x = add_t(g, "x", 4, dx, TK_INPUT), w = add_t(g, "w", 4, dw, TK_CONST);
    int b = add_t(g, "b", 1, db, TK_CONST), c = add_t(g, "c", 4, d1, TK_ACT);
    int s = add_t(g, "s", 4, d1, TK_ACT), m = add_t(g, "m", 4, d1, TK_ACT);
    int sc = add_t(g, "scales", 1, ds, TK_CONST), r = add_t(g, "r", 4, d2, TK_ACT);
    int w2 = add_t(g, "w2", 4, dw2, TK_CONST), y = add_t(g, "y", 4, d3, TK_ACT);
    int in3[3] = {x, w, b}, i1[1] = {c}, i2[2] = {c, s}, ir[3] = {m, -1, sc}, ic[2] = {r, w2};
    int rn;

    add_n(g, "/conv0", "Conv", 3, in3, c);
    add_n(g, "/sig", "Sigmoid", 1, i1, s);
    add_n(g, "/mul", "Mul", 2, i2, m);
    rn = add_n(g, "/up", "Resize", 3, ir, r);
    g->nodes[rn].attrs = xcalloc(1, sizeof(attr_t));
    g->nodes[rn].n_attr = 1;
    g->nodes[rn].attrs[0].name = xstrdup("mode");
    g->nodes[rn].attrs[0].type = ATTR_STRING;
    g->nodes[rn].attrs[0].s = xstrdup("cubic");
    add_n(g, "/conv1", "Conv", 2, ic, y);
    graph_set_io(g, 1, &x, 1, &y);
    return g;
}

/* The hand-written 2.x tables' header; a row cut into four lines (a narrow
 * terminal: shapes, cycles and the rest each on a line), and one in two. */
#define HDR_2X                                                                             \
    "ID   OpType DataType Target InputShape OutputShape Cycles(DDR/NPU/Total) Time(us) "    \
    "MacUsage(%) WorkLoad(0/1/2) RW(KB) FullName\n"
#define ROW2_IN_FOUR                                                                       \
    "2    ConvRelu INT8   NPU\n"                                                            \
    "   (1,8,4,4),(8,8,1,1),(8)\n"                                                          \
    "   (1,8,4,4) 10/20/20 30\n"                                                            \
    "   1.00/0.00/0.00 100.0%/0.0%/0.0% 1 Conv:/model.0/conv/Conv\n"
#define ROW4_IN_TWO                                                                        \
    "4    Relu   INT8     NPU    (1,8,4,4) (1,8,4,4)\n"                                     \
    "   5/0/5 41 1.00/0.00/0.00 100.0%/0.0%/0.0% 1 Relu:c\n"

/* A row wrapped over two lines is joined; a bad row is not glued to the row
 * after it (hand-written 2.x table). */
static void wrapped_rows(void)
{
    static const char text[] =
        HDR_2X
        "2    Conv   INT8     NPU    (1,8,4,4),(8,8,1,1) (1,8,4,4) 10/20/20\n"
        "   30  1.00/0.00/0.00 100.0%/0.0%/0.0% 1 Conv:a\n"
        "3    Conv   INT8     NPU    (1,8,4,4),(8,8,1,1) (1,8,4,4) x/y/z 40 \\ 100.0%/0.0%/0.0% 1 Conv:b\n"
        "4    Relu   INT8     NPU    (1,8,4,4) (1,8,4,4) 5/0/5 41 \\ 100.0%/0.0%/0.0% 1 Relu:c\n";
    perflog_table_t *t = NULL;
    int n = 0;
    char err[128];

    CHECK(perflog_parse(text, sizeof text - 1, &t, &n, err, sizeof err) == 0 && n == 1, "%s", err);
    if (t && n == 1) {
        CHECK(t->n_rows == 2 && t->n_bad_rows == 1, "rows %d bad %d", t->n_rows, t->n_bad_rows);
        CHECK(t->n_rows > 0 && t->rows[0].id == 2 && t->rows[0].ddr == 10 &&
              t->rows[0].time_us == 30 && !strcmp(t->rows[0].fullname, "Conv:a"), "joined row");
        CHECK(t->n_rows > 1 && t->rows[1].id == 4 && t->rows[1].time_us == 41, "row after a bad one");
    }
    perflog_free(t, n);
}

/* A row cut into four lines is joined; a bad row cut in two (both lines counted bad)
 * takes none of the wrapped row after it (hand-written 2.x table). */
static void wrapped_rows_narrow(void)
{
    static const char text[] =
        HDR_2X
        ROW2_IN_FOUR
        "3    Conv   INT8     NPU    (1,8,4,4),(8,8,1,1) (1,8,4,4) x/y/z\n"
        "   40 100.0%/0.0%/0.0% 1 Conv:b\n"
        ROW4_IN_TWO;
    perflog_table_t *t = NULL;
    int n = 0;
    char err[128];

    CHECK(perflog_parse(text, sizeof text - 1, &t, &n, err, sizeof err) == 0 && n == 1, "%s", err);
    if (t && n == 1) {
        CHECK(t->n_rows == 2 && t->n_bad_rows == 2, "rows %d bad %d", t->n_rows, t->n_bad_rows);
        CHECK(t->n_rows > 0 && t->rows[0].id == 2 && t->rows[0].ddr == 10 &&
                  t->rows[0].time_us == 30 && !strcmp(t->rows[0].optype, "ConvRelu") &&
                  !strcmp(t->rows[0].fullname, "Conv:/model.0/conv/Conv"),
              "row in four lines: id %d ddr %lld time %lld fullname %s",
              t->n_rows ? t->rows[0].id : -1, t->n_rows ? (long long)t->rows[0].ddr : -1,
              t->n_rows ? (long long)t->rows[0].time_us : -1, t->n_rows ? t->rows[0].fullname : "");
        CHECK(t->n_rows > 1 && t->rows[1].id == 4 && t->rows[1].time_us == 41 &&
                  !strcmp(t->rows[1].fullname, "Relu:c"),
              "wrapped row after a bad one");
    }
    perflog_free(t, n);

    /* the whole-log scanner takes every piece as its row's: the good rows'
     * ends used, the bad row's two lines bad (a pasted table without the
     * ruler above its total) */
    static const char log[] =
        HDR_2X
        ROW2_IN_FOUR
        ROW4_IN_TWO
        "Total Operator Elapsed Per Frame Time(us): 71\n";
    /* a ranking table at 70 columns (fold -s): its header's last column and
     * each row's ratio on a line of their own */
    static const char rank[] =
        "OpType             CallNumber   CPUTime(us)  GPUTime(us)  NPUTime(us)\n"
        " TotalTime(us)  TimeRatio(%)\n"
        "----------------------------------------------------------------------\n"
        "ConvExSwish        57           0            0            100965\n"
        " 100965         78.61%\n"
        "InputOperator      1            4            0            0\n"
        " 4              0.00%\n"
        "----------------------------------------------------------------------\n";
    t = NULL, n = 0;
    CHECK(perflog_parse(rank, sizeof rank - 1, &t, &n, err, sizeof err) == 0 && n == 1, "%s", err);
    if (t && n == 1)
        CHECK(t->n_ops == 2 && t->n_joined == 2 && t->ops[0].calls == 57 && t->ops[0].cpu_us == 0 &&
                  t->ops[0].gpu_us == 0 && t->ops[0].npu_us == 100965 &&
                  t->ops[0].total_us == 100965 && t->ops[0].ratio == 78.61 &&
                  t->ops[1].cpu_us == 4 && t->ops[1].total_us == 4 && t->ops[1].ratio == 0.0,
              "wrapped ranking table: %d ops, %d joined", t->n_ops, t->n_joined);
    perflog_free(t, n);

    vlog_t v;
    CHECK(vlog_scan(log, sizeof log - 1, VLOG_F_ALL, &v, err, sizeof err) == 0, "%s", err);
    CHECK(v.n_runs == 1 && v.runs[0].has_perf && v.runs[0].perf.n_rows == 2 &&
              v.kinds[VLOG_BAD] == 0 && v.kinds[VLOG_USED] == 7 && v.kinds[VLOG_LAYOUT] == 1,
          "scan: %d runs, rows %d, bad %lld used %lld layout %lld", v.n_runs,
          v.n_runs ? v.runs[0].perf.n_rows : -1, (long long)v.kinds[VLOG_BAD],
          (long long)v.kinds[VLOG_USED], (long long)v.kinds[VLOG_LAYOUT]);
    vlog_free(&v);
}

/* x(1,3,8,8) -> Conv 1x1 4 -> OP(conv, k) -> Relu -> y: whether the
 * lowering absorbs OP into the conv (one ConvRelu of 3 nodes) or keeps it. */
static int folds(const char *op, int k_first, int knd, const int64_t *kd)
{
    graph_t *g = graph_new();
    npu_graph_t *ng = NULL;
    int64_t dx[4] = {1, 3, 8, 8}, dw[4] = {4, 3, 1, 1}, dc[4] = {1, 4, 8, 8};
    int x = add_t(g, "x", 4, dx, TK_INPUT), w = add_t(g, "w", 4, dw, TK_CONST);
    int c = add_t(g, "c", 4, dc, TK_ACT), k = add_t(g, "k", knd, kd, TK_CONST);
    int a = add_t(g, "a", 4, dc, TK_ACT), y = add_t(g, "y", 4, dc, TK_ACT);
    int ic[2] = {x, w}, ia[2] = {k_first ? k : c, k_first ? c : k}, ir[1] = {a};
    char err[256];
    int r = -1;

    add_n(g, "/conv", "Conv", 2, ic, c);
    add_n(g, "/op", op, 2, ia, a);
    add_n(g, "/relu", "Relu", 1, ir, y);
    graph_set_io(g, 1, &x, 1, &y);
    if (npu_lower(g, npu_platform_find("rk3588"), DT_INT8, &ng, err, sizeof err) == 0) {
        r = ng->n == 3 && !strcmp(ng->l[1].optype, "ConvRelu") && ng->l[1].n_src_nodes == 3;
        npu_graph_free(ng);
    }
    graph_free(g);
    return r;
}

/* A per-channel affine by a constant goes into the conv as BatchNormalization
 * does; anything else stays a layer of its own. */
static void affine_fold(void)
{
    int64_t one[1] = {1}, ch4[4] = {1, 4, 1, 1}, ch3[3] = {4, 1, 1}, sp[4] = {1, 1, 8, 8};

    CHECK(folds("Mul", 0, 1, one) == 1, "x * scalar");
    CHECK(folds("Add", 1, 4, ch4) == 1, "[1,C,1,1] + x");
    CHECK(folds("Sub", 1, 3, ch3) == 1, "[C,1,1] - x");
    CHECK(folds("Div", 0, 1, one) == 1, "x / scalar");
    CHECK(folds("Div", 1, 1, one) == 0, "scalar / x is not affine");
    CHECK(folds("Mul", 0, 4, sp) == 0, "a [1,1,H,W] factor is not per channel");
    CHECK(folds("Pow", 0, 1, one) == 0, "Pow");
}

static void round_trip(unsigned mask, int flags)
{
    graph_t *g = small_graph();
    npu_graph_t *ng;
    char err[256], *text = NULL;
    size_t len = 0;
    FILE *f;
    perflog_table_t *t = NULL;
    int n = 0;

    CHECK(npu_lower(g, npu_platform_find("rk3588"), DT_INT8, &ng, err, sizeof err) == 0, "%s", err);
    CHECK(npu_set_core_mask(ng, mask, err, sizeof err) == 0, "%s", err);
    npu_cost(ng);
    /* hand-checked lowering: Input, ConvExSwish, exDataConvert, Resize (CPU),
     * exDataConvert, Conv, Output */
    CHECK(ng->n == 7, "layers %d", ng->n);
    if (ng->n == 7) {
        CHECK(!strcmp(ng->l[1].optype, "ConvExSwish") && ng->l[1].n_src_nodes == 3, "silu");
        CHECK(!strcmp(ng->l[3].optype, "Resize") && ng->l[3].target == NPU_TGT_CPU &&
              strstr(ng->l[3].reason, "cubic"), "resize fallback: %s", ng->l[3].reason);
        CHECK(!strcmp(ng->l[2].optype, "exDataConvert") && !strcmp(ng->l[4].optype, "exDataConvert"),
              "converts");
        /* 1x1 16->32 int8 over 4096 px: max(1*1*1*1, 32/8) = 4 cycles/px */
        CHECK(ng->l[5].npu_cycles == 4096 * 4, "conv1 cycles %llu", (unsigned long long)ng->l[5].npu_cycles);
        /* 3x3 3->16 over 1024 px: max(9, 32/8) = 9 */
        CHECK(ng->l[1].npu_cycles == 1024 * 9, "conv0 cycles");
    }
    f = open_memstream(&text, &len);
    npu_print_perf_table(f, ng, flags);
    fclose(f);
    CHECK(perflog_parse(text, len, &t, &n, err, sizeof err) == 0 && n == 1, "parse back: %s", err);
    if (t && n == 1) {
        CHECK(t->n_rows == ng->n && t->n_bad_rows == 0, "rows %d bad %d", t->n_rows, t->n_bad_rows);
        CHECK(t->has_tasknumber == !!(flags & NPU_PRINT_TASKNUMBER), "task column");
        for (int i = 0; i < t->n_rows && i < ng->n; i++) {
            const perflog_row_t *r = &t->rows[i];
            const npu_layer_t *l = &ng->l[i];
            CHECK(r->id == l->id && !strcmp(r->optype, l->optype) && !strcmp(r->datatype, l->datatype) &&
                  !strcmp(r->target, l->target == NPU_TGT_NPU ? "NPU" : "CPU"), "row %d ids", i);
            CHECK(r->ddr == (int64_t)l->ddr_cycles && r->npu == (int64_t)l->npu_cycles &&
                  r->total == (int64_t)l->total_cycles, "row %d cycles", i);
            CHECK(r->time_us == (int64_t)l->time_us && r->rw_kb == (double)(int64_t)l->rw_kb,
                  "row %d time/rw", i);
            CHECK(!strcmp(r->fullname, l->fullname), "row %d name '%s' '%s'", i, r->fullname, l->fullname);
            CHECK(r->n_mac == (l->macs && l->target == NPU_TGT_NPU ? 3 : 0), "row %d mac n", i);
            for (int c = 0; c < r->n_mac; c++)
                CHECK_NEAR(r->mac[c], l->mac_usage[c], 0.0051, "mac");
            CHECK(r->n_wl == 3, "wl");
            for (int c = 0; c < 3; c++)
                CHECK_NEAR(r->wl[c], l->target == NPU_TGT_NPU ? l->workload[c] : 0, 0.051, "wl");
            if (flags & NPU_PRINT_TASKNUMBER)
                CHECK(r->task_number == (l->target == NPU_TGT_NPU ? l->task_number : 0), "task");
        }
        CHECK(!strcmp(t->rows[1].inshape, "(1,3,32,32),(16,3,3,3),(16)"), "%s", t->rows[1].inshape);
        CHECK(!strcmp(t->rows[0].inshape, "\\") && !strcmp(t->rows[6].outshape, "\\"), "IO shapes");
        CHECK(t->total_time_us == (int64_t)ng->total_us, "total us");
        CHECK(t->has_total_op, "Total row");
        {
            int64_t sum = 0;
            for (int i = 0; i < t->n_ops - 1; i++)
                sum += t->ops[i].total_us;
            CHECK(t->n_ops >= 2 && sum == t->ops[t->n_ops - 1].total_us && sum == t->total_time_us,
                  "ranking sums");
        }
    }
    /* with the prefix every line starts "I RKNN: [" */
    if (flags & NPU_PRINT_PREFIX)
        CHECK(!strncmp(text, "I RKNN: [", 9) && text[21] == ']', "prefix");
    /* printed again 2 ms later (from the cached text): the same lines, each
     * with the new time in its prefix, and as debug lines when asked */
    if (flags & NPU_PRINT_PREFIX) {
        char *again = NULL, *a, *b, *sa, *sb;
        size_t alen = 0;
        int lines = 0, same = 1, stamped = 1;
        struct timespec ms2 = {0, 2000000};
        nanosleep(&ms2, NULL);
        f = open_memstream(&again, &alen);
        npu_print_perf_table(f, ng, flags | NPU_PRINT_DEBUG);
        fclose(f);
        CHECK(alen == len && strncmp(again + 9, text + 9, 12) != 0, "reprint length, new time %zu/%zu", alen, len);
        for (a = strtok_r(text, "\n", &sa), b = strtok_r(again, "\n", &sb); a && b;
             a = strtok_r(NULL, "\n", &sa), b = strtok_r(NULL, "\n", &sb), lines++) {
            same &= !strcmp(a + 23, b + 23);
            stamped &= !strncmp(b, "D RKNN: [", 9) && !strncmp(b + 9, again + 9, 13);
        }
        CHECK(!a && !b && lines > 10 && same && stamped, "reprint: %d lines, same %d, stamped %d",
              lines, same, stamped);
        free(again);
    }
    perflog_free(t, n);
    free(text);
    /* multi-core: the plain 1x1 Conv splits by rows 22/21/21 of 64 */
    if (mask == 7)
        CHECK_NEAR(ng->l[5].workload[0], 100.0 * 22 / 64, 1e-9, "split");
    npu_graph_free(ng);
    graph_free(g);
}

/* Real logs cut (tests/fuzz/corpus/perflog/broken-cut-*.txt, from the files of
 * the same names in shared/data/logs): a ranking row cut in half is a bad row
 * named by its own line (read by hand: the cut line), not the table's end; a
 * ranking table cut at a line boundary is unclosed; a measured level-4 table
 * without its totals line is noted. The uncut logs have none of these. */
static void cut_tables(void)
{
    static const struct { const char *name; int bad_line; int unclosed, untotalled; } cut[] = {
        {"broken-cut-ranking-row-oldfmt-tasksize.txt", 21, 0, 0},
        {"broken-cut-ranking-row-total-unet256.txt", 16, 0, 0},
        {"broken-cut-ranking-row-yolov8n.txt", 15, 0, 0},
        {"broken-cut-ranking-at-line-unet256.txt", 0, 1, 0},
        {"broken-cut-level4-at-line-lenet.txt", 0, 0, 1},
        {"perf-evalperf-oldfmt-tasksize-mobilenetv2-rk3588-tk1.5.2-rkdoc-01.txt", 0, 0, 0},
        {"perf-evalperf-oldfmt-full-yolov5s-rk3588-tk1.5.0-vendordoc-06.txt", 0, 0, 0},
        {"perf-evalperf-2xfmt-abridged-mobilenet-rk3588-sdk2.3.0-rkguide-10.txt", 0, 0, 0},
    };
    for (size_t k = 0; k < sizeof cut / sizeof cut[0]; k++) {
        char path[512], err[256];
        void *buf;
        size_t len;
        vlog_t v;
        int n = 0, bad = 0;
        perflog_table_t *t = load(cut[k].name, &n);

        for (int i = 0; i < n; i++)
            if (t[i].first_bad_line && !bad)
                bad = t[i].first_bad_line;
        CHECK(bad == cut[k].bad_line, "%s: parser's bad line %d, want %d", cut[k].name, bad,
              cut[k].bad_line);
        perflog_free(t, n);
        snprintf(path, sizeof path, CORPUS "%s", cut[k].name);
        if (rt_read_file(path, &buf, &len, err, sizeof err)) {
            CHECK(0, "%s", err);
            continue;
        }
        CHECK(vlog_scan(buf, len, VLOG_F_ALL, &v, err, sizeof err) == 0, "%s: %s", cut[k].name, err);
        CHECK(v.first_bad == cut[k].bad_line && (v.kinds[VLOG_BAD] > 0) == (cut[k].bad_line > 0),
              "%s: scan's bad line %lld (%lld bad), want %d", cut[k].name, (long long)v.first_bad,
              (long long)v.kinds[VLOG_BAD], cut[k].bad_line);
        CHECK((v.unclosed_ranking == v.n_lines + 1) == cut[k].unclosed && (v.unclosed_ranking > 0) ==
                  cut[k].unclosed, "%s: unclosed ranking at %lld of %lld lines", cut[k].name,
              (long long)v.unclosed_ranking, (long long)v.n_lines);
        CHECK((v.untotalled_layers > 0) == cut[k].untotalled, "%s: untotalled %lld", cut[k].name,
              (long long)v.untotalled_layers);
        vlog_free(&v);
        free(buf);
    }
}

int main(void)
{
    real_logs();
    cut_tables();
    wrapped_rows();
    wrapped_rows_narrow();
    affine_fold();
    round_trip(0, 0);
    round_trip(7, NPU_PRINT_PREFIX);
    round_trip(1, NPU_PRINT_TASKNUMBER | NPU_PRINT_PREFIX);
    TEST_END();
}
