/* Predicted vs measured (analyze/compare_perf.c) on hand-made rows whose
 * pairing, errors, medians and ranking are worked out here by hand. */
#include "analyze/analyze.h"
#include "tests/test.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static store_layer row(const char *op, const char *node, const char *npu_op, const char *out,
                       int64_t npu, int64_t ddr, double us, const char *bound)
{
    store_layer l;
    store_layer_init(&l);
    l.op = op, l.node = node, l.npu_op = npu_op, l.out_shapes = out;
    if (npu >= 0)
        l.npu_cycles = npu, l.total_cycles = npu;
    if (ddr >= 0)
        l.ddr_cycles = ddr;
    l.time_us = us;
    l.bound = bound;
    return l;
}

/* The 4-D view of stored shapes, by hand (the vendor's tables: a Linear's
 * (1,128) printed (1,128,1,1), a (1,25,3549) as (1,25,1,3549)); and a board's
 * 4-D row pairs with the model's 2-D row by it. */
static void test_view4(void)
{
    char b[64];
    CHECK(!strcmp(compare_shapes_4d("[[1,128]]", b, sizeof b), "[[1,128,1,1]]"), "%s", b);
    CHECK(!strcmp(compare_shapes_4d("[[1,25,3549],[7]]", b, sizeof b), "[[1,25,1,3549],[1,7,1,1]]"),
          "%s", b);
    CHECK(!strcmp(compare_shapes_4d("[[1,3,8,8]]", b, sizeof b), "[[1,3,8,8]]"), "%s", b);
    CHECK(!strcmp(compare_shapes_4d("[[1,2,3,4,5]]", b, sizeof b), "[[1,2,3,4,5]]"), "%s", b);
    CHECK(!strcmp(compare_shapes_4d("[[1,2", b, sizeof b), "[[1,2"), "broken: %s", b);
    CHECK(!strcmp(compare_shapes_4d("[[1,25,3549]]", b, 12), "[[1,25,3549"), "short buffer: %s", b);
    CHECK(!strcmp(compare_shapes_4d(NULL, b, sizeof b), ""), "none: %s", b);

    store_run br, mr;
    store_run_init(&br), store_run_init(&mr);
    br.id = 1, br.backend = "board";
    mr.id = 2, mr.backend = "sim";
    store_layer bl[1] = {row("Conv", "Conv:fc#2", "ConvElu", "[[1,128,1,1]]", 512, 1358, 40, "DDR")};
    store_layer ml[1] = {row("Gemm", "fc", "ConvElu", "[[1,128]]", 512, 1358, 40, "DDR")};
    perfcmp_result r;
    char err[256];
    CHECK(perfcmp_compute(&br, bl, 1, &mr, ml, 1, &r, err, sizeof err) == 0 && r.n_by_shape == 1,
          "4-D row vs 2-D row: %d by shape", r.n_by_shape);
    perfcmp_free(&r);

    /* compare --graph: a vendor file's 4-D layers against our 2-D and 3-D
     * rows, no name shared: paired by OpType and shape, equal */
    store_layer va[2] = {row("Conv", "Conv:fc#2", "ConvElu", "[[1,128,1,1]]", 512, 1358, 40, "DDR"),
                         row("Concat", "Concat:cat", "Concat", "[[1,25,1,3549]]", 0, 9603, 50, "DDR")};
    store_layer oa[2] = {row("Gemm", "fc", "ConvElu", "[[1,128]]", 512, 1358, 40, "DDR"),
                         row("Concat", "cat2", "Concat", "[[1,25,3549]]", 0, 7502, 48, "DDR")};
    compare_side sa = {.run = &mr, .layers = oa, .n_layers = 2};
    compare_side sb = {.run = &br, .layers = va, .n_layers = 2};
    compare_graph g;
    compare_graph_build(&sa, &sb, &g);
    CHECK(!g.by_name && g.n_equal == 2 && g.n_differ == 0, "graph: %d equal, %d differ",
          g.n_equal, g.n_differ);
    compare_graph_free(&g);
}

int main(void)
{
    test_view4();
    store_run br, mr;
    store_run_init(&br), store_run_init(&mr);
    br.id = 1, br.backend = "board";
    mr.id = 2, mr.backend = "sim";
    CHECK(perfcmp_side(&br) == 1 && perfcmp_side(&mr) == 0, "sides");

    /* board: a table (each row a layer, FullName op:node) */
    store_layer b[5] = {
        row("InputOperator", "in", "InputOperator", "[[1,3,8,8]]", 0, 0, 10, "CPU"),
        row("Conv", "c1", "ConvRelu", "[[1,4,8,8]]", 1000, 500, 100, "compute"),
        row("Conv", "c2", "ConvRelu", "[[1,4,8,8]]", 1000, 400, 80, "compute"),
        row("Add", "a1", "Add", "[[1,4,8,8]]", 0, 300, 50, "DDR"),
        row("Concat", "x", "Concat", "[[1,8,8,8]]", 0, 0, 0, "DDR"),
    };
    /* model: c1 fused over two nodes (Conv c1 has no figures but its layer's
     * OpType, Relu r1 carries the layer's figures), c2 under another name
     * (paired by OpType and shape), a1 and x by name, an extra Softmax */
    store_layer m[6] = {
        row("Conv", "c1", "ConvRelu", "[[1,4,8,8]]", -1, -1, NAN, NULL),
        row("Relu", "r1", "ConvRelu", "[[1,4,8,8]]", 1100, 400, 120, "compute"),
        row("Conv", "renamed", "ConvRelu", "[[1,4,8,8],[2]]", 900, 400, 60, "compute"),
        row("Add", "a1", "Add", "[[1,4,8,8]]", 0, 330, 55, "DDR"),
        row("Concat", "x", "Concat", "[[1,8,8,8]]", 0, 10, 5, "DDR"),
        row("Softmax", "s", "Softmax", "[[1,10]]", 0, 20, 7, "CPU"),
    };
    perfcmp_result r;
    char err[256];
    int rc = perfcmp_compute(&br, b, 5, &mr, m, 6, &r, err, sizeof err);
    CHECK(rc == 0, "compute: %s", err);
    CHECK(r.n_board == 5 && r.n_model == 5, "layers %d %d", r.n_board, r.n_model);
    /* by name: Conv:c1 (first covered node), Add:a1, Concat:x; by shape: c2 */
    CHECK(r.n_by_name == 3 && r.n_by_shape == 1, "pairs %d %d", r.n_by_name, r.n_by_shape);
    CHECK(r.n_board_only == 1 && r.n_model_only == 1 && r.n_rows == 6, "only %d %d rows %d",
          r.n_board_only, r.n_model_only, r.n_rows);
    CHECK(r.rows[1].layer[1] == 1 && !strcmp(r.rows[1].fullname, "Conv:c1"), "c1 pair");
    CHECK(r.rows[2].layer[1] == 2 && r.rows[2].by_shape, "c2 by shape");
    CHECK(r.rows[0].layer[1] < 0 && r.rows[5].layer[0] < 0 && !strcmp(r.rows[5].op, "Softmax"),
          "one side only");
    /* errors: c1 time +20 %, npu +10 %, ddr -20 %; c2 -25 %, -10 %, 0 %;
     * a1 +10 %, npu 0/0 -> null, ddr +10 %; x: board 0 -> null everywhere */
    CHECK_NEAR(r.rows[1].err_pct[PERFCMP_TIME], 20, 1e-9, "c1 time");
    CHECK_NEAR(r.rows[1].err_pct[PERFCMP_NPU], 10, 1e-9, "c1 npu");
    CHECK_NEAR(r.rows[1].err_pct[PERFCMP_DDR], -20, 1e-9, "c1 ddr");
    CHECK_NEAR(r.rows[2].err_pct[PERFCMP_TIME], -25, 1e-9, "c2 time");
    CHECK(isnan(r.rows[3].err_pct[PERFCMP_NPU]) && isnan(r.rows[4].err_pct[PERFCMP_TIME]), "null errors");
    CHECK_NEAR(r.rows[4].err_us, 5, 1e-9, "x err us");
    /* medians of |err|: time {20, 25, 10} -> 20; npu {10, 10} -> 10; ddr {20, 0, 10} -> 10 */
    CHECK_NEAR(r.median_abs_pct[PERFCMP_TIME], 20, 1e-9, "median time");
    CHECK_NEAR(r.median_abs_pct[PERFCMP_NPU], 10, 1e-9, "median npu");
    CHECK_NEAR(r.median_abs_pct[PERFCMP_DDR], 10, 1e-9, "median ddr");
    CHECK(r.worst[PERFCMP_TIME] == 2 && r.worst[PERFCMP_DDR] == 1, "worst %d %d", r.worst[0], r.worst[2]);
    /* sums over paired layers the board counts (x's board time is 0, left
     * out on both sides): time 100+80+50 vs 120+60+55; DDR 500+400+300 vs
     * 400+400+330 (x: board 0) */
    CHECK_NEAR(r.sum[0][PERFCMP_TIME], 230, 1e-9, "board time sum");
    CHECK_NEAR(r.sum[1][PERFCMP_TIME], 235, 1e-9, "model time sum");
    CHECK_NEAR(r.total_err_pct[PERFCMP_TIME], (235.0 / 230 - 1) * 100, 1e-9, "total time err");
    CHECK_NEAR(r.sum[1][PERFCMP_DDR], 1130, 1e-9, "model ddr sum");
    CHECK(!r.has_factor[PERFCMP_TIME] && !r.has_factor[PERFCMP_DDR], "no factor on 3 layers");
    /* ranking by |err_us|: c1 and c2 20 (row order breaks the tie), a1 and x 5 */
    CHECK(r.n_top == 4 && r.top[0] == 1 && r.top[1] == 2 && r.top[2] == 3 && r.top[3] == 4,
          "top %d %d %d %d", r.top[0], r.top[1], r.top[2], r.top[3]);
    CHECK(r.bound_known == 4 && r.bound_agree == 4, "bounds %d/%d", r.bound_agree, r.bound_known);
    perfcmp_free(&r);

    /* nothing to compare: one line, no rows */
    store_layer none = row("Conv", "c", "Conv", NULL, -1, -1, NAN, NULL);
    rc = perfcmp_compute(&br, b, 5, &mr, &none, 1, &r, err, sizeof err);
    CHECK(rc == RT_EINVAL && strstr(err, "#2") && !r.rows, "empty side: %s", err);
    perfcmp_free(&r);
    TEST_END();
}
