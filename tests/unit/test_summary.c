/* The JSON writer's guarantees (valid UTF-8 out, control bytes escaped, stored
 * fragments validated) against hand-written expected text, and the run summary
 * on hand-made rows whose every figure is computed here by hand. */
#include "analyze/analyze.h"
#include "tests/test.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What json_str (raw = 0) or json_raw (raw = 1) writes for s. */
static char *render(const char *s, int raw)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_writer w;
    json_begin(&w, f);
    if (raw)
        json_raw(&w, s);
    else
        json_str(&w, s);
    fclose(f);
    return buf;
}

static void str_case(const char *in, const char *want)
{
    char *got = render(in, 0);
    CHECK(!strcmp(got, want), "json_str(%s): got %s, want %s", in, got, want);
    free(got);
}

int main(void)
{
    /* ---- json_str: always valid JSON ---- */
    str_case("plain", "\"plain\"");
    str_case("caf\xc3\xa9", "\"caf\xc3\xa9\"");               /* valid UTF-8 kept */
    str_case("caf\xe9", "\"caf\\ufffd\"");                    /* Latin-1 byte replaced */
    str_case("\xc3", "\"\\ufffd\"");                          /* truncated sequence */
    str_case("\xc0\xaf", "\"\\ufffd\\ufffd\"");               /* overlong '/' */
    str_case("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");    /* UTF-16 surrogate */
    str_case("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* > U+10FFFF */
    str_case("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");     /* 4-byte emoji kept */
    str_case("a\x01\x7f\"\\\n", "\"a\\u0001\\u007f\\\"\\\\\\n\"");

    /* ---- json_valid / json_raw ---- */
    const char *good[] = { "[]", "{}", " [1, -2.5e3, 0, true, false, null] ", "{\"a\":{\"b\":[\"\\u00e9\"]}}",
                           "\"x\"", "-0.0", "[[1,3,224,224],[64,3,7,7]]" };
    const char *bad[] = { "", "[", "[1,]", "{\"a\"}", "{\"a\":1,}", "01", "1.", "nul", "[1] x",
                          "\"\x01\"", "\"caf\xe9\"", "{'a':1}", "[\"\\x\"]", "NaN", "[1,2" };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        CHECK(json_valid(good[i]), "valid: %s", good[i]);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(!json_valid(bad[i]), "invalid: %s", bad[i]);
    char *r = render("[1,2", 1);
    CHECK(!strcmp(r, "null"), "json_raw of broken text: %s", r);
    free(r);
    r = render("[1, 2]", 1);
    CHECK(!strcmp(r, "[1, 2]"), "json_raw of valid text: %s", r);
    free(r);

    /* ---- summary from hand-made rows ----
     * rk3588 (1000 MHz, 3 cores); three layer rows carry figures:
     *   0 conv  frame 60 us compute, 1 exp CPU frame 30 us (fallback), 2 add frame 10 us DDR;
     * a fused row without figures in between. Frame 100 us (npu_us) -> 10000 FPS;
     * shares compute 60 %, CPU 30 %, DDR 10 %. */
    store_run run;
    store_run_init(&run);
    run.id = 7;
    run.platform = "rk3588";
    run.npu_us = 100;
    run.total_us = 2000;
    run.weight_bytes = 4096;
    run.n_load = 3, run.load_pct[0] = 61, run.load_pct[1] = 50, run.load_pct[2] = 50;
    store_layer l[4];
    for (int i = 0; i < 4; i++)
        store_layer_init(&l[i]), l[i].idx = i;
    l[0].op = "Conv", l[0].node = "c", l[0].total_cycles = 1000, l[0].frame_us = 60, l[0].bound = "compute";
    l[0].target = "NPU", l[0].sram_hit = 2048;
    l[1].op = "Relu", l[1].node = "r", l[1].target = "NPU";                 /* fused: no figures */
    l[2].op = "Exp", l[2].node = "e", l[2].total_cycles = 0, l[2].frame_us = 30, l[2].bound = "CPU";
    l[2].target = "CPU", l[2].cpu_reason = "no NPU kernel";
    l[3].op = "Add", l[3].node = "a", l[3].total_cycles = 10, l[3].frame_us = 10, l[3].bound = "DDR";
    l[3].target = "NPU";
    store_output outs[2];
    store_output_init(&outs[0]);
    store_output_init(&outs[1]);
    outs[0].name = "boxes", outs[1].name = "scores";
    store_accuracy acc[3];
    for (int i = 0; i < 3; i++)
        store_accuracy_init(&acc[i]);
    acc[0].name = "c", acc[0].entire.cos = 0.999, acc[0].single.cos = 0.995;
    acc[1].name = "boxes", acc[1].is_output = 1, acc[1].entire.cos = 0.98, acc[1].entire.sqnr_db = 20;
    acc[1].single.cos = 0.99;
    acc[2].name = "scores", acc[2].is_output = 1, acc[2].entire.cos = NAN;
    acc[2].entire.flags = METRIC_X_CONST, acc[2].single.cos = 0.999;

    run_summary s;
    summary_compute(&run, l, 4, NULL, 0, outs, 2, acc, 3, 0.99, &s);
    CHECK_NEAR(s.frame_us, 100, 1e-12, "frame");
    CHECK_NEAR(s.fps, 10000, 1e-9, "fps");
    CHECK_NEAR(s.share_pct[0], 60, 1e-9, "compute share");
    CHECK_NEAR(s.share_pct[1], 10, 1e-9, "DDR share");
    CHECK_NEAR(s.share_pct[2], 30, 1e-9, "CPU share");
    CHECK(s.npu_mhz == 1000 && s.n_cores == 3, "clock %d cores %d", s.npu_mhz, s.n_cores);
    CHECK(s.n_load == 3 && s.load_pct[0] == 61 && s.load_pct[2] == 50, "load");
    CHECK(s.n_fallback == 1 && s.fallback[0] == 2, "fallback list");
    CHECK_NEAR(s.fallback_pct, 30, 1e-9, "fallback share");
    CHECK(s.n_top == 3 && s.top[0] == 0 && s.top[1] == 2 && s.top[2] == 3, "top order");
    CHECK_NEAR(s.sram_saved_kb, 2.0, 1e-12, "sram saved");
    CHECK(s.weight_bytes == 4096 && s.internal_bytes == -1, "memory: unknown is -1");
    CHECK(isnan(s.host_p90_us) && s.iterations == -1, "host: missing stays missing");
    /* the constant output is the worst, named, and counts as below any threshold */
    CHECK(s.worst_output == 1 && s.outputs[1].state == SUM_OUT_CONSTANT && s.n_collapsed == 1,
          "collapsed output");
    CHECK(isnan(s.out_cos), "a collapsed output has no headline cos");
    char buf[128];
    CHECK(summary_output_problem(&s.outputs[1], buf, sizeof(buf)) &&
              !strcmp(buf, "output 'scores' is constant (collapsed)"), "problem text: %s", buf);
    CHECK(!summary_output_problem(&s.outputs[0], buf, sizeof(buf)), "no problem for boxes");
    CHECK(s.first_below == 1, "first below 0.99: boxes (0.98), got %d", s.first_below);
    CHECK(s.worst_single == 1, "worst single: boxes (0.99 < 0.995 < 0.999), got %d", s.worst_single);

    /* the JSON document: nulls for what is missing */
    char *doc = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&doc, &len);
    json_writer w;
    json_begin(&w, f);
    summary_json_doc(&s, outs, 2, &w);
    fclose(f);
    CHECK(json_valid(doc), "document is valid JSON");
    CHECK(strstr(doc, "\"internal_bytes\":null") && strstr(doc, "\"p90_us\":null") &&
              strstr(doc, "\"problem\":\"output 'scores' is constant (collapsed)\"") &&
              strstr(doc, "\"schema_version\":1"), "document figures");
    free(doc);
    summary_free(&s);

    /* no rows at all: nothing crashes, everything is unknown */
    store_run empty;
    store_run_init(&empty);
    summary_compute(&empty, NULL, 0, NULL, 0, NULL, 0, NULL, 0, 0.99, &s);
    CHECK(isnan(s.frame_us) && isnan(s.fps) && isnan(s.share_pct[0]) && s.npu_mhz == -1 &&
              s.n_top == 0 && s.n_load == 0, "empty run");
    CHECK(s.prov.frame == PROV_NONE && s.prov.table == PROV_NONE && s.prov.timing == PROV_NONE,
          "empty run: no provenance");
    summary_free(&s);

    /* ---- provenance: by backend, figures present ---- */
    static const struct { const char *backend; int frame, table, timing; } pv[] = {
        { "sim", PROV_PREDICTED, PROV_PREDICTED, PROV_HOST },
        { "predict", PROV_PREDICTED, PROV_PREDICTED, PROV_NONE },
        { "board", PROV_PREDICTED, PROV_BOARD, PROV_BOARD },
        { "simlib", PROV_PREDICTED, PROV_PREDICTED, PROV_SIMLIB },
        { "toolkit", PROV_PREDICTED, PROV_TOOLKIT, PROV_TOOLKIT },
        { NULL, PROV_NONE, PROV_NONE, PROV_NONE },
    };
    for (size_t i = 0; i < sizeof(pv) / sizeof(pv[0]); i++) {
        store_run r;
        run_provenance p;
        store_run_init(&r);
        r.backend = pv[i].backend;
        provenance_of(&r, &p);
        CHECK(p.frame == pv[i].frame && p.table == pv[i].table && p.timing == pv[i].timing && !p.imported,
              "provenance of %s: %d %d %d", pv[i].backend ? pv[i].backend : "NULL", p.frame, p.table, p.timing);
    }
    CHECK(!strcmp(provenance_words(PROV_BOARD), "measured on the board") &&
              !strcmp(provenance_words(PROV_HOST), "this PC's CPU, not the board") &&
              !strcmp(provenance_words(PROV_NONE), "n/a") && !provenance_tag(PROV_NONE) &&
              !strcmp(provenance_tag(PROV_SIMLIB), "simlib"), "provenance words and tags");

    /* an imported board log: its total is its table's sum (perf.total_time_us),
     * not an rknn_run median; its CPU layer shows the time the log gave it */
    store_run imp;
    store_layer il[2];
    store_run_init(&imp);
    imp.backend = "board";
    imp.total_us = 300;
    imp.import_kind = "board log";
    imp.log_total_us = 300;
    for (int k = 0; k < 2; k++) {
        store_layer_init(&il[k]);
        il[k].idx = k;
        il[k].total_cycles = 1000;
    }
    il[0].time_us = 100, il[0].target = "NPU", il[0].bound = "compute";
    il[1].time_us = 200, il[1].target = "CPU", il[1].bound = "CPU";
    summary_compute(&imp, il, 2, NULL, 0, NULL, 0, NULL, 0, 0.99, &s);
    CHECK(s.prov.imported && s.prov.table == PROV_BOARD && s.prov.timing == PROV_NONE &&
              isnan(s.host_median_us), "import: no rknn_run median (timing %d, %g)", s.prov.timing,
          s.host_median_us);
    CHECK(s.perf_table_us == 300 && summary_layers_measured(&s) && s.top[0] == 1,
          "import: measured table, slowest first (%g)", s.perf_table_us);
    CHECK(s.n_fallback == 1 && s.fallback_us == 200 && fabs(s.fallback_pct - 100.0 * 200 / 300) < 1e-9,
          "import: the CPU layer's measured time (%g us, %g %%)", s.fallback_us, s.fallback_pct);
    CHECK(fabs(s.share_pct[0] - 100.0 / 3) < 1e-9 && fabs(s.share_pct[2] - 200.0 / 3) < 1e-9,
          "import: shares of the measured table");
    /* the lines every surface prints: the fallback's cost in its words, why no timing */
    const char *what = NULL, *why = summary_timing_missing(&s, &what, buf, sizeof(buf));
    CHECK(why && !strcmp(what, "timing") && !strncmp(why, "none: the log printed no timed runs", 35) &&
              strstr(why, "table total"),
          "import: why no timing: %s %s", what ? what : "NULL", why ? why : "NULL");
    summary_free(&s);
    /* a runtime error's log: no timed runs and no table, so no "table total" either */
    {
        store_run er;
        store_run_init(&er);
        er.backend = "board";
        er.import_kind = "board log";
        summary_compute(&er, NULL, 0, NULL, 0, NULL, 0, NULL, 0, 0.99, &s);
        why = summary_timing_missing(&s, &what, buf, sizeof(buf));
        CHECK(s.prov.imported && s.prov.table == PROV_NONE && why && !strstr(why, "table total") &&
                  !strstr(summary_timing_label(&s), "table total"),
              "import without a table: %s / %s", why ? why : "NULL", summary_timing_label(&s));
        summary_free(&s);
    }
    summary_compute(&imp, il, 2, NULL, 0, NULL, 0, NULL, 0, 0.99, &s);
    summary_fallback_head(&s, "n/a", buf, sizeof(buf));
    CHECK(!strcmp(buf, "1 layer, 66.7 % of the level-4 table total (0.200 ms, measured on the board)"), "import: %s", buf);
    summary_free(&s);
    /* the same table from this project's library (attach): its CPU layer's time
     * is the table's, in the NPU model's words */
    imp.backend = "simlib";
    imp.extra_json = NULL;
    imp.import_kind = NULL;
    summary_compute(&imp, il, 2, NULL, 0, NULL, 0, NULL, 0, 0.99, &s);
    summary_fallback_head(&s, "—", buf, sizeof(buf));
    CHECK(s.fallback_us == 200 && !strcmp(buf, "1 layer, 66.7 % of the level-4 table total (0.200 ms, predicted by the NPU model)"),
          "simlib table: %s", buf);
    CHECK(!summary_timing_missing(&s, &what, buf, sizeof(buf)), "simlib: its rknn_run times");
    summary_free(&s);
    /* no cost known: no words for it */
    imp.backend = "sim";
    il[1].time_us = NAN;
    il[0].time_us = NAN;
    summary_compute(&imp, il, 2, NULL, 0, NULL, 0, NULL, 0, 0.99, &s);
    summary_fallback_head(&s, "n/a", buf, sizeof(buf));
    CHECK(!strcmp(buf, "1 layer, n/a of the level-4 table total (n/a)"), "unknown cost: %s", buf);
    summary_free(&s);

    /* the summary reads typed facts only: keys in the extra text are not facts */
    store_run ex;
    store_run_init(&ex);
    ex.backend = "sim";
    ex.extra_json = "{\"npu_load\":[1,2,3],\"perf_table_us\":7,\"import\":\"board log\"}";
    ex.share_pct[0] = 70, ex.share_pct[1] = 20, ex.share_pct[2] = 10; /* a schema-1 run's */
    summary_compute(&ex, NULL, 0, NULL, 0, NULL, 0, NULL, 0, 0.99, &s);
    CHECK(s.n_load == 0 && isnan(s.perf_table_us) && !s.prov.imported && s.share_pct[0] == 70 &&
              s.share_pct[2] == 10, "extra text not read: load %d, table %g", s.n_load,
          s.perf_table_us);
    summary_free(&s);
    ex.n_load = 4, ex.load_pct[3] = 5;
    ex.npu_clock_mhz = 800;
    summary_compute(&ex, NULL, 0, NULL, 0, NULL, 0, NULL, 0, 0.99, &s);
    CHECK(s.n_load == 3 && s.npu_mhz == 800, "three cores of load shown (%d), the run's clock %d",
          s.n_load, s.npu_mhz);
    summary_free(&s);

    /* the one extra key the summary reads: the stored evaluation */
    ex.extra_json = "{\"perf\":{},\"eval\":{\"file\":\"ev.txt\",\"samples\":[\"a.npy\",\"b.npy\",\"c.npy\"],"
                    "\"sample_min_output_cos\":[0.9,0.5,null],\"worst_sample\":1,\"outputs\":[{\"name\":\"y\","
                    "\"entire\":{\"cos\":{\"min\":0.5,\"mean\":0.7,\"worst_sample\":1},\"euc\":{\"max\":2.5},"
                    "\"sqnr_db\":{\"min\":\"inf\",\"mean\":\"inf\"}}},{\"name\":\"z\",\"entire\":{\"cos\":"
                    "{\"min\":null,\"worst_sample\":9}}}]}}";
    summary_compute(&ex, NULL, 0, NULL, 0, NULL, 0, NULL, 0, 0.99, &s);
    const summary_eval *e = &s.eval;
    CHECK(e->n_samples == 3 && e->worst == 1 && !strcmp(e->worst_file, "b.npy") && e->worst_cos == 0.5 &&
              !strcmp(e->file, "ev.txt"), "eval: %d samples, worst %d", e->n_samples, e->worst);
    CHECK(e->n_outputs == 2 && e->outputs[0].cos_min == 0.5 && e->outputs[0].cos_worst == 1 &&
              isinf(e->outputs[0].sqnr_min_db) && e->outputs[0].euc_max == 2.5,
          "eval output y: %d outputs", e->n_outputs);
    CHECK(isnan(e->outputs[1].cos_min) && e->outputs[1].cos_worst == -1 && isnan(e->outputs[1].euc_max),
          "eval output z: missing figures and a sample outside the list are missing");
    char head[256], *txt = NULL;
    size_t tlen = 0;
    FILE *tf = open_memstream(&txt, &tlen);
    summary_print_eval(&s, tf);
    fclose(tf);
    CHECK(!strcmp(summary_eval_head(&s, head, sizeof(head)),
                  "3 samples of ev.txt; worst sample 2 (b.npy): lowest output cos 0.50000"), "%s", head);
    CHECK(!strcmp(txt, "eval      3 samples of ev.txt; worst sample 2 (b.npy): lowest output cos 0.50000\n"
                       "          output 'y': cos min 0.50000 (sample 2) mean 0.70000, SQNR min inf mean inf dB, "
                       "euc max 2.5\n          output 'z': cos min n/a mean n/a, SQNR min n/a mean n/a dB, "
                       "euc max n/a\n"), "eval text: %s", txt);
    free(txt);
    summary_free(&s);
    ex.extra_json = "{\"eval\":{\"samples\":[\"a.npy\"],\"worst_sample\":3";  /* cut short */
    summary_compute(&ex, NULL, 0, NULL, 0, NULL, 0, NULL, 0, 0.99, &s);
    CHECK(s.eval.n_samples == 0 && s.eval.worst == -1, "a malformed eval is no evaluation");
    summary_free(&s);
    TEST_END();
}
