/* The comparison document (analyze/compare_doc.c) on hand-made runs: the
 * union alignment of three runs with disjoint layers, speed pairs of one kind,
 * verdict lines, gates and the near-constant factor, each expectation worked
 * out here by hand. */
#include "analyze/compare_doc.h"
#include "tests/test.h"
#include "util/util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static store_layer lay(int64_t idx, const char *name, const char *op, double time_us)
{
    store_layer l;
    store_layer_init(&l);
    l.idx = idx, l.name = name, l.op = op, l.time_us = time_us;
    return l;
}

static void mk(cmp_run *r, int64_t id, const char *label, const char *backend, double npu_us,
               store_layer *l, int nl, store_accuracy *a, int na)
{
    memset(r, 0, sizeof(*r));
    store_run_init(&r->run);
    r->run.id = id, r->run.label = label, r->run.backend = backend, r->run.npu_us = npu_us;
    r->layers = l, r->n_layers = nl, r->acc = a, r->n_acc = na;
    cmp_run_summarize(r, 0.99);
}

static int row_of(const cmp_doc *d, const char *name)
{
    for (int i = 0; i < d->n_rows; i++)
        if (!strcmp(d->rows[i].name, name))
            return i;
    return -1;
}

int main(void)
{
    /* A (prediction): x, y and an unnamed Conv; B (prediction): y, z (z a graph
     * output with an error row); C (board table): w, x and an unnamed Conv */
    store_layer la[3] = { lay(0, "x", "Conv", 400), lay(1, "y", "Relu", 450), lay(2, NULL, "Conv", 200) };
    store_layer lb[2] = { lay(0, "y", "Relu", NAN), lay(1, "z", "Add", NAN) };
    store_layer lc[3] = { lay(0, "w", "Mul", 300), lay(1, "x", "Conv", 400), lay(2, NULL, "Conv", 100) };
    store_accuracy ab;
    store_accuracy_init(&ab);
    ab.idx = 0, ab.layer = 1, ab.name = "z", ab.op = "Add", ab.is_output = 1;
    ab.entire.cos = 0.95, ab.entire.sqnr_db = 20, ab.entire.max_abs = 0.5, ab.entire.flags = 0;
    cmp_run runs[3];
    mk(&runs[0], 1, "a", "sim", 1000, la, 3, NULL, 0);
    mk(&runs[1], 2, "b", "sim", 1100, lb, 2, &ab, 1);
    mk(&runs[2], 3, "c", "board", NAN, lc, 3, NULL, 0);

    cmp_doc d;
    char err[256], buf[512];
    CHECK(cmp_doc_build(runs, 3, 0, 0, &d, err, sizeof err) == 0, "build: %s", err);
    /* the union: A's names in order, then B's only (z), then C's only (w) */
    const char *want[] = { "x", "y", "Conv#0", "z", "w" };
    const unsigned want_runs[] = { 05, 03, 05, 02, 04 };
    CHECK(d.n_rows == 5, "rows %d", d.n_rows);
    for (int i = 0; i < d.n_rows && i < 5; i++)
        CHECK(!strcmp(d.rows[i].name, want[i]) && d.rows[i].runs == want_runs[i], "row %d: %s %o", i,
              d.rows[i].name, d.rows[i].runs);
    int x = row_of(&d, "x"), cv = row_of(&d, "Conv#0"), z = row_of(&d, "z");
    CHECK(x >= 0 && d.rows[x].layer[0] == 0 && d.rows[x].layer[1] == -1 && d.rows[x].layer[2] == 1,
          "x rows");
    CHECK(cv >= 0 && d.rows[cv].unnamed && d.rows[cv].layer[0] == 2 && d.rows[cv].layer[2] == 2, "fallback");
    CHECK(z >= 0 && d.rows[z].layer[1] == 1 && d.rows[z].acc[1] == 0, "z rows");
    CHECK(d.n_unnamed == 1, "unnamed %d", d.n_unnamed);
    /* B shares y; A alone has x and Conv#0; B alone z. C shares x and Conv#0. */
    CHECK(d.matched[1] == 1 && d.only_base[1] == 2 && d.only_run[1] == 1, "B counts %d %d %d",
          d.matched[1], d.only_base[1], d.only_run[1]);
    CHECK(d.matched[2] == 2 && d.only_base[2] == 1 && d.only_run[2] == 1, "C counts %d %d %d",
          d.matched[2], d.only_base[2], d.only_run[2]);
    CHECK(!cmp_row_runs(&d, &d.rows[x], buf, sizeof buf) && !strcmp(buf, "A, C"), "runs text %s", buf);

    /* speed: B vs A predicted frames 1100 vs 1000 us; C (board) vs A: the
     * board's profiled 300+400+100 = 800 us vs A's level-4 400+450+200 = 1050 us */
    CHECK(d.speed[1].kind == CMP_SPEED_PREDICTED_FRAME && d.speed[1].base_kind == CMP_SPEED_PREDICTED_FRAME,
          "B kinds");
    CHECK_NEAR(d.speed[1].slower_pct, 10.0, 1e-9, "B +10%");
    CHECK(d.speed[2].kind == CMP_SPEED_BOARD_PROFILED && d.speed[2].base_kind == CMP_SPEED_PREDICTED_TABLE,
          "C kinds %d %d", d.speed[2].kind, d.speed[2].base_kind);
    CHECK_NEAR(d.speed[2].us, 800, 1e-9, "C profiled");
    CHECK_NEAR(d.speed[2].base_us, 1050, 1e-9, "A level-4");
    CHECK_NEAR(d.speed[2].slower_pct, (800.0 / 1050 - 1) * 100, 1e-9, "C pct");
    cmp_verdict(&d, 1, buf, sizeof buf);
    CHECK(!strcmp(buf, "verdict: B #2 b vs A #1 a: predicted NPU frame +10.0% (slower), output cos 0.95000, "
                       "layers 1 matched, 2 only in A, 1 only in B"), "%s", buf);
    cmp_verdict(&d, 2, buf, sizeof buf);
    CHECK(!strcmp(buf, "verdict: C #3 c vs A #1 a: board level-4 table total 0.800 ms vs predicted level-4 table total "
                       "1.050 ms -23.8% (faster), output cos n/a, layers 2 matched, 1 only in A, 1 only in C"),
          "%s", buf);

    /* gates: B is 10 % slower (> 5), C faster; B's output cos 0.95 < 0.99 */
    cmp_gates g = { .fail_cos = 0.99, .fail_slower = 5 };
    CHECK(cmp_gates_eval(&d, &g, err, sizeof err) == 0, "gates: %s", err);
    CHECK(g.failed && g.slow_failed[1] && !g.slow_failed[2] && !g.slow_failed[0], "slow gates");
    CHECK(g.cos_failed[1] && !g.cos_failed[0] && !g.cos_failed[2], "cos gates");
    CHECK_NEAR(g.cos_value[1], 0.95, 1e-12, "cos value");
    CHECK(isnan(g.cos_value[0]), "A has no cos");

    /* the JSON document of this comparison, read back with jansson */
    json_writer w;
    json_begin_mem(&w);
    cmp_json_opts jo = { .gates = &g, .graph = NULL };
    cmp_doc_json(&d, &jo, &w);
    char *text = json_take(&w, NULL);
    json_t *j = json_loads(text, 0, NULL);
    CHECK(j && !strcmp(json_string_value(json_object_get(j, "kind")), "comparison") &&
          json_integer_value(json_object_get(j, "schema_version")) == 1, "kind");
    json_t *jl = json_object_get(j, "layers"), *jx = json_array_get(jl, 0);
    CHECK(json_array_size(jl) == 5, "json layers %zu", json_array_size(jl));
    for (size_t i = 0; i < json_array_size(jl) && i < 5; i++)
        CHECK(!strcmp(json_string_value(json_object_get(json_array_get(jl, i), "name")), want[i]), "json row %zu", i);
    json_t *in = json_object_get(jx, "in_runs");
    CHECK(json_array_size(in) == 2 && !strcmp(json_string_value(json_array_get(in, 0)), "A") &&
          !strcmp(json_string_value(json_array_get(in, 1)), "C"), "x in A, C");
    /* x: A's table time 400 (no frame share), C's measured 400: delta 0; B lacks it */
    json_t *xr = json_object_get(jx, "runs");
    CHECK(json_number_value(json_object_get(json_array_get(xr, 0), "us")) == 400 &&
          json_is_null(json_object_get(json_array_get(xr, 0), "delta_us")) &&
          json_is_null(json_array_get(xr, 1)) &&
          json_number_value(json_object_get(json_array_get(xr, 2), "delta_us")) == 0, "x cells");
    CHECK(json_is_true(json_object_get(json_array_get(jl, 2), "unnamed")), "Conv#0 unnamed");
    json_t *sp = json_object_get(json_array_get(json_object_get(j, "runs"), 2), "speed");
    CHECK(!strcmp(json_string_value(json_object_get(sp, "kind")), "board_profiled") &&
          !strcmp(json_string_value(json_object_get(sp, "baseline_kind")), "predicted_table") &&
          json_number_value(json_object_get(sp, "us")) == 800 &&
          json_number_value(json_object_get(sp, "baseline_us")) == 1050, "C speed");
    CHECK(json_is_null(json_object_get(json_array_get(json_object_get(j, "runs"), 0), "speed")), "A speed");
    json_t *jv = json_object_get(j, "verdicts");
    cmp_verdict(&d, 2, buf, sizeof buf);
    CHECK(json_array_size(jv) == 2 && !strcmp(json_string_value(json_object_get(json_array_get(jv, 1), "line")), buf) &&
          json_integer_value(json_object_get(json_array_get(jv, 1), "matched")) == 2, "verdict C");
    CHECK(json_is_true(json_object_get(j, "failed")) && json_array_size(json_object_get(j, "gates")) == 5 &&
          json_is_null(json_object_get(j, "graph")), "gates: 3 cos + 2 slower, no graph");
    json_decref(j);
    free(text);
    g = (cmp_gates){ .fail_cos = 0.9, .fail_slower = 20 };
    CHECK(cmp_gates_eval(&d, &g, err, sizeof err) == 0 && !g.failed, "gates pass");
    cmp_doc_free(&d);

    /* a cos gate with nothing to act on, a speed gate on a run without a figure */
    cmp_run ac[2] = { runs[0], runs[2] };
    CHECK(cmp_doc_build(ac, 2, 0, 0, &d, err, sizeof err) == 0, "build 2");
    g = (cmp_gates){ .fail_cos = 0.99, .fail_slower = NAN };
    CHECK(cmp_gates_eval(&d, &g, err, sizeof err) == RT_EINVAL && strstr(err, "--fail-if-cos-below"), "%s", err);
    cmp_doc_free(&d);
    CHECK(cmp_doc_build(runs, 3, 1, 0, &d, err, sizeof err) == 0, "build by host");
    g = (cmp_gates){ .fail_cos = NAN, .fail_slower = 5 };
    CHECK(cmp_gates_eval(&d, &g, err, sizeof err) == RT_EINVAL && strstr(err, "recorded host time"), "%s", err);
    CHECK(d.speed[1].kind == CMP_SPEED_HOST, "host kind");
    cmp_doc_free(&d);
    CHECK(cmp_doc_build(runs, 0, 0, 0, &d, err, sizeof err) == RT_EINVAL, "0 runs");

    /* factor: 2x on 4 of 5 rows (the median ratio), the fifth 3x */
    double a[5] = { 100, 200, 300, 400, 500 }, b[5] = { 200, 400, 900, 800, 1000 }, f, share;
    CHECK(cmp_factor(a, b, 5, 0.05, &f, &share) == 1, "factor found");
    CHECK_NEAR(f, 2.0, 1e-12, "factor");
    CHECK_NEAR(share, 0.8, 1e-12, "share");
    double c[5] = { 101, 199, 300, 402, 500 };
    CHECK(cmp_factor(a, c, 5, 0.05, &f, &share) == 0 && fabs(f - 1) < 0.01, "no factor: %g", f);
    CHECK(cmp_factor(a, b, 3, 0.05, &f, &share) == 0, "too few pairs");
    double e[5] = { 200, 600, 300, 1200, 1000 };   /* scattered: 2,3,1,3,2 */
    CHECK(cmp_factor(a, e, 5, 0.05, &f, &share) == 0 && share < 0.8, "scattered");
    /* 1066 MHz DDR in the model against the board's 2112: DDR cycles x0.505 */
    int npu[2] = { 1000, 1000 }, ddr[2] = { 2112, 1066 }, cores[2] = { 3, 3 };
    cmp_factor_hint("DDR cycles", 0.505, npu, ddr, cores, buf, sizeof buf);
    CHECK(strstr(buf, "the DDR clock (1066 vs 2112 MHz)") && strstr(buf, "--ddr-mhz 2112"), "%s", buf);
    int npu2[2] = { 1000, 800 }, ddr2[2] = { 2112, 2112 };
    cmp_factor_hint("NPU cycles", 0.8, npu2, ddr2, cores, buf, sizeof buf);
    CHECK(strstr(buf, "the NPU clock (800 vs 1000 MHz)"), "%s", buf);
    int cores2[2] = { 3, 1 };
    cmp_factor_hint("time", 3.0, npu, ddr2, cores2, buf, sizeof buf);
    CHECK(strstr(buf, "core count (1 vs 3 cores)"), "%s", buf);

    for (int k = 0; k < 3; k++)
        summary_free(&runs[k].sum);
    TEST_END();
}
