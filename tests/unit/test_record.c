/* tests/unit/test_record.c — record/: the timing statistics (hand-computed),
 * the seeded inputs (splitmix64 values computed with Python), and the NPU
 * layer <-> row mapping: a table of layers no row carries (I/O operators, a
 * node lowered to two layers, three cores) printed from the costed layers and
 * from the rows rebuilt, byte for byte. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record/inputs.h"
#include "record/rows_npu.h"
#include "record/timing.h"
#include "tests/test.h"
#include "util/util.h"

static void timing(void)
{
    const double v[] = {4, 1, 10, 3, 2}, w[] = {4, 3, 2, 1};
    time_stats t = time_stats_of(v, 5);

    CHECK(t.median == 3 && t.min == 1 && t.p90 == 10, "%g %g %g", t.median, t.min, t.p90);
    /* mean 4, squares 0+9+36+1+4 = 50, sample variance 50/4 */
    CHECK_NEAR(t.stddev, 3.5355339059327378, 1e-15, "stddev of 5");
    t = time_stats_of(w, 4);
    CHECK(t.median == 2.5 && t.p90 == 4 && v[0] == 4, "%g %g", t.median, t.p90);
    CHECK_NEAR(t.stddev, 1.2909944487358056, 1e-15, "stddev of 4 (sqrt(5/3))");
    t = time_stats_of(v, 1);
    CHECK(t.median == 4 && isnan(t.stddev), "one sample: %g %g", t.median, t.stddev);
    t = time_stats_of(v, 0);
    CHECK(isnan(t.median) && isnan(t.min) && isnan(t.p90) && isnan(t.stddev), "none");
}

static void seeded(void)
{
    float f[3], g[3];
    int8_t i8[3];
    int32_t i32[3];
    char src[64];

    CHECK(seed_input_fill(DT_FLOAT, 3, 11, 0, f) == RT_OK, "float");
    CHECK(f[0] == 0.3162443935871124f && f[1] == 0.2623651623725891f && f[2] == 0.6380423307418823f,
          "%.9g %.9g %.9g", f[0], f[1], f[2]);
    /* input j of seed s draws from s + j */
    seed_input_fill(DT_FLOAT, 3, 10, 1, g);
    CHECK(!memcmp(f, g, sizeof f), "seed + index");
    seed_input_fill(DT_INT8, 3, 11, 0, i8);
    CHECK(i8[0] == -47 && i8[1] == -60 && i8[2] == 35, "%d %d %d", i8[0], i8[1], i8[2]);
    seed_input_fill(DT_INT32, 3, 11, 0, i32);
    CHECK(i32[0] == 3 && i32[1] == 2 && i32[2] == 6, "%d %d %d", i32[0], i32[1], i32[2]);
    /* bounded below 2 (an index into 2 rows): floor(2 u) of the same draws */
    seed_input_fill_below(DT_INT32, 3, 11, 0, 2, i32);
    CHECK(i32[0] == 0 && i32[1] == 0 && i32[2] == 1, "below 2: %d %d %d", i32[0], i32[1], i32[2]);
    /* a bound of 10 or more changes nothing */
    seed_input_fill_below(DT_INT32, 3, 11, 0, 30522, i32);
    CHECK(i32[0] == 3 && i32[1] == 2 && i32[2] == 6, "below 30522: %d %d %d", i32[0], i32[1],
          i32[2]);
    CHECK(seed_input_fill(DT_STRING, 3, 11, 0, f) == RT_EUNSUPPORTED, "string");
    seed_input_source(src, sizeof src, 11, 2, 0);
    CHECK(!strcmp(src, "random:uniform01:splitmix64:seed=13"), "%s", src);
    seed_input_source(src, sizeof src, 11, 2, 30522);
    CHECK(!strcmp(src, "random:uniform01:splitmix64:seed=13"), "%s", src);
    seed_input_source(src, sizeof src, 11, 2, 2);
    CHECK(!strcmp(src, "random:uniform01:splitmix64:seed=13:below=2"), "%s", src);
}

static void layer(npu_layer_t *l, const char *op, int cpu, const char *full, double us)
{
    static int id;
    l->id = ++id;
    snprintf(l->optype, sizeof l->optype, "%s", op);
    snprintf(l->datatype, sizeof l->datatype, "INT8");
    l->target = cpu ? NPU_TGT_CPU : NPU_TGT_NPU;
    l->fullname = (char *)full;
    l->time_us = us;
    l->n_out = 1;
    l->out[0] = (npu_shape_t){4, {1, 8, 4, 4}};
    if (!cpu) {
        l->n_in = 1;
        l->in[0] = (npu_shape_t){4, {1, 8, 8, 8}};
        l->ddr_cycles = 100, l->npu_cycles = 900, l->total_cycles = 900;
        l->macs = 1234;
        l->mac_usage[0] = 12.345, l->mac_usage[1] = 11.2, l->mac_usage[2] = 10.01;
        l->workload[0] = 33.4, l->workload[1] = 33.3, l->workload[2] = 33.3;
        l->task_number = 2;
        l->rw_kb = 10.125;
    }
}

static char *table(const npu_graph_t *ng)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    npu_print_perf_table(f, ng, 0);
    fclose(f);
    return buf;
}

static void mapping(void)
{
    npu_layer_t l[4];
    npu_graph_t ng = {0}, back;
    store_layer rows[2];
    store_run run;
    char wl[2][64], err[256], *a, *b;
    int carrier[4] = {-1, -1, 1, -1}, complete = 0;

    memset(l, 0, sizeof l);
    ng.plat = npu_platform_find("rk3588");
    ng.l = l;
    ng.n = 4;
    layer(&l[0], "InputOperator", 1, "InputOperator:x", 17.9);
    layer(&l[1], "Conv", 0, "Conv:pool_2conv0", 45.88);
    layer(&l[2], "Conv", 0, "Conv:pool_2conv1", 35.07);
    layer(&l[3], "OutputOperator", 1, "OutputOperator:y", 10.9);
    /* the one node row (the pool) carries its last layer; the row before it
     * has no figures but the layer's OpType (the fused layer's first node: its
     * name) */
    for (int i = 0; i < 2; i++) {
        store_layer_init(&rows[i]);
        rows[i].idx = i;
        rows[i].op = i ? "GlobalAveragePool" : "Relu";
        rows[i].node = i ? "pool" : "relu";
        rows[i].in_shapes = "[[1,8,8,8]]";
        rows[i].out_shapes = "[[1,8,4,4]]";
    }
    rows[0].npu_op = "Conv";
    rows[0].target = "NPU";
    rows_npu_fill(&ng, &l[2], &rows[1], wl[1], sizeof wl[1]);
    CHECK(rows[1].total_cycles == 900 && !strcmp(rows[1].workload, "33%/33%/33%") &&
          rows[1].tasks == 2 && !strcmp(rows[1].npu_op, "Conv"), "fill: %s", rows[1].workload);

    store_run_init(&run);
    int nx = 0;
    store_npu_row *x = rows_npu_table(&ng, rows, 2, carrier, &run, &nx);
    CHECK(run.perf_table_us == 107, "total %g", run.perf_table_us); /* 17+45+35+10 */
    CHECK(run.npu_clock_mhz == ng.plat->npu_mhz && run.ddr_clock_mhz == ng.plat->ddr_mhz,
          "clocks %lld %lld", (long long)run.npu_clock_mhz, (long long)run.ddr_clock_mhz);
    /* no layer is given back by the one carrier exactly (its name is the pool's):
     * all four kept, the second conv standing for the carrier (skip) */
    CHECK(run.npu_table_layers == 4 && nx == 4 && x[0].at == 0 && x[1].at == 1 && x[2].at == 2 &&
              x[2].skip == 1 && !x[1].skip && x[3].at == 3 &&
              !strcmp(x[0].op, "InputOperator") && !strcmp(x[0].target, "CPU") &&
              x[1].n_cores == 3 && x[1].time_us == 45.88 && !strcmp(x[1].fullname, "Conv:pool_2conv0"),
          "level-4 rows: %d", nx);
    run.platform = "rk3588";
    CHECK(rows_npu_graph(&run, rows, 2, x, nx, &back, &complete, err, sizeof err) == RT_OK, "%s", err);
    CHECK(complete && back.n == 4, "%d layers", back.n);
    /* the carrier's ID is the one its layer has in the rebuilt table */
    store_layers_number(rows, 2, x, nx, run.npu_table_layers, 0);
    CHECK(rows[0].table_id == STORE_NULL_INT && rows[1].table_id == 3 && back.l[2].id == 3 &&
              !strcmp(back.l[2].fullname, "Conv:pool_2conv1"),
          "IDs %lld %lld", (long long)rows[0].table_id, (long long)rows[1].table_id);
    a = table(&ng);
    b = table(&back);
    CHECK(!strcmp(a, b), "tables differ:\n%s\n%s", a, b);
    CHECK(strstr(a, "33.4%/33.3%/33.3%") && strstr(a, "12.35/11.20/10.01"), "%s", a);
    free(b);
    rows_npu_graph_free(&back);

    /* a run stored without the extra rows: its carrier only, as before, numbered
     * as the store reads it */
    run.npu_table_layers = STORE_NULL_INT;
    store_layers_number(rows, 2, NULL, 0, STORE_NULL_INT, 0);
    CHECK(rows_npu_graph(&run, rows, 2, NULL, 0, &back, &complete, err, sizeof err) == RT_OK && !complete &&
          back.n == 1 && !strcmp(back.l[0].fullname, "Relu:relu"), "old run");
    CHECK(rows[1].table_id == 1 && back.l[0].id == 1, "old run's ID %lld", (long long)rows[1].table_id);
    rows_npu_graph_free(&back);
    /* a printed table's rows (a log's excerpt): their own IDs, in the rebuilt table too */
    rows[1].idx = 128;
    store_layers_number(rows, 2, NULL, 0, STORE_NULL_INT, 1);
    CHECK(rows_npu_graph(&run, rows, 2, NULL, 0, &back, &complete, err, sizeof err) == RT_OK &&
              rows[1].table_id == 128 && back.n == 1 && back.l[0].id == 128,
          "a log's ID %lld", (long long)rows[1].table_id);
    rows_npu_graph_free(&back);
    rows[1].idx = 1;
    run.platform = "nochip";
    CHECK(rows_npu_graph(&run, rows, 2, NULL, 0, &back, &complete, err, sizeof err) == RT_ENOTFOUND, "chip");
    rows_npu_graph_free(&back);
    free(a);
    rows_npu_rows_free(x, nx);
}

int main(void)
{
    timing();
    seeded();
    mapping();
    TEST_END();
}
