/* tests/tools/store_fill.c — fills a database with synthetic runs through the
 * store, in one batch: RUNS runs of LAYERS layers each (and 2 outputs, 4 error
 * rows, 3 load samples). Values vary with the run and layer (deterministic), and
 * every kind of value appears: NULL (missing) integers, reals and strings,
 * infinite and NaN metrics, an external-golden error source, text with quotes,
 * backslashes, newlines and non-ASCII, tags, no label. For the store's export,
 * import and merge tests (tests/cli/manage.sh) and the ls/show benchmark
 * (bench/store.sh). Usage: store_fill DB RUNS LAYERS [FIRST] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/store.h"
#include "util/util.h"

#define NULL_IF(cond, v) ((cond) ? STORE_NULL_INT : (v))
#define NAN_IF(cond, v) ((cond) ? NAN : (v))

static int fill_run(store *st, int k, int layers, char *err, size_t errlen)
{
    static const char *const ops[] = { "Conv", "Relu", "Add", "Concat", "MaxPool", "Resize" };
    char label[64], time[32], sha[65], node[64], name[96], shapes[64], wl[32], extra[128];
    store_run r;
    int64_t id;
    int rc;

    store_run_init(&r);
    snprintf(label, sizeof label, k % 3 == 2 ? "run-%d" : "r%d \"quoted\" \\ é", k);
    r.label = k % 5 == 4 ? NULL : label;
    snprintf(time, sizeof time, "2026-%02d-%02dT%02d:%02d:%02dZ", 1 + k % 12, 1 + k % 28,
             k % 24, k % 60, (k / 60) % 60);
    r.time = time;
    snprintf(sha, sizeof sha, "%064x", k * 2654435761u);
    r.model_path = k % 7 == 6 ? NULL : "/models/yolo\nv5.onnx";
    r.model_sha256 = sha;
    r.model_format = "onnx";
    r.platform = k % 2 ? "rk3588" : "rk3576";
    r.backend = k % 4 == 3 ? "board" : "sim";
    r.quant = k % 2 ? "i8" : "fp16";
    r.quant_algo = k % 2 ? "normal" : NULL;
    r.threads = NULL_IF(k % 4 == 3, 2);
    r.iterations = 10 + k % 7;
    r.seed = k;
    r.inputs_json = "[{\"name\":\"images\",\"shape\":[1,3,640,640]}]";
    r.total_us = NAN_IF(k % 4 == 3, 1000.0 / 3.0 + k);
    r.tool_version = "0.1.0";
    snprintf(extra, sizeof extra, "{\"note\":\"run %d\"}", k);
    r.extra_json = extra;
    r.n_load = 3, r.load_pct[0] = k % 100, r.load_pct[1] = 0, r.load_pct[2] = 7;
    r.perf_table_us = NAN_IF(k % 3 == 2, 300.0 + k);
    r.npu_clock_mhz = NULL_IF(k % 5 == 4, 1000);
    r.npu_us = 12345.678901234567 + k * 0.1;
    r.host_min_us = 0.1 + k;
    r.host_p90_us = 1e-300;
    r.host_stddev_us = NAN_IF(k % 2, 3.25);
    r.warmup = NULL_IF(k % 2, 1);
    r.weight_bytes = (int64_t)1 << 40;
    r.env_json = "{\"tool\":\"rknn-trace 0.1.0\"}";
    r.cost_model_version = 1;
    if ((rc = store_run_begin(st, &r, &id, err, errlen)))
        return rc;
    for (int i = 0; i < layers && !rc; i++) {
        store_layer l;
        store_layer_init(&l);
        snprintf(node, sizeof node, "%s_%d", ops[i % 6], i);
        snprintf(name, sizeof name, "/model.%d/%s/output_0", i, ops[i % 6]);
        snprintf(shapes, sizeof shapes, "[[1,%d,80,80],[%d,%d,3,3]]", 16 << (i % 4), i, k);
        snprintf(wl, sizeof wl, "%d%%/%d%%/0%%", 50 + i % 50, 50 - i % 50);
        l.idx = i;
        l.node = node;
        l.op = ops[i % 6];
        l.name = name;
        l.in_shapes = shapes;
        l.out_shapes = "[[1,64,80,80]]";
        l.dtype = "float32";
        l.host_us = 10.0 + i * 0.001 + k;
        l.npu_cycles = NULL_IF(i % 6 == 5, 100000 + i * 37 + k);
        l.ddr_cycles = 5000 + i;
        l.total_cycles = NULL_IF(i % 6 == 5, 105000 + i * 38 + k);
        l.time_us = NAN_IF(i % 6 == 5, 41.5 + i);
        l.mac_usage = 12.5;
        l.target = i % 6 == 5 ? "CPU" : "NPU";
        l.cpu_reason = i % 6 == 5 ? "Resize mode not supported" : NULL;
        l.sram_hit = NAN_IF(i % 3, 4096);
        l.rw_kb = 123.456;
        l.bound = i % 6 == 5 ? "CPU" : i % 2 ? "DDR" : "compute";
        l.workload = wl;
        l.tasks = NULL_IF(i % 6 == 5, 1 + i % 3);
        l.npu_op = i % 6 == 5 ? NULL : "ConvRelu";
        l.frame_us = NAN_IF(i % 6 == 5, 20.0 + i / 7.0);
        l.npu_dtype = "INT8";
        rc = store_layer_add(st, id, &l, err, errlen);
    }
    for (int j = 0; j < 2 && !rc; j++) {
        store_output o;
        store_output_init(&o);
        o.idx = j;
        o.name = j ? "boxes" : "scores";
        o.shape = "[1,8400,85]";
        o.dtype = "float32";
        o.dump_file = j ? NULL : "/tmp/dump/scores.npy";
        rc = store_output_add(st, id, &o, err, errlen);
    }
    for (int j = 0; j < 3 && !rc; j++) {
        store_accuracy a;
        store_accuracy_init(&a);
        a.idx = j;
        a.layer = j ? j : -1;
        a.name = j == 2 ? "scores" : "images";
        a.op = j ? "Conv" : NULL;
        a.fused = j == 1;
        a.is_output = j == 2;
        a.entire.cos = j == 0 ? NAN : 0.999 - j * 1e-4;
        a.entire.sqnr_db = j == 0 ? INFINITY : 35.5;
        a.entire.euc = 0.5;
        a.entire.flags = j == 0 ? METRIC_REF_CONST : 0;
        a.single.cos = 0.9999;
        a.single.max_abs = 1e-7;
        rc = store_accuracy_add(st, id, &a, err, errlen);
    }
    if (k % 4 == 1 && !rc) { /* an external golden's rows beside the quantized run's own */
        store_accuracy g;
        store_accuracy_init(&g);
        g.name = "scores";
        g.layer = layers - 1;
        g.is_output = 1;
        g.entire.cos = 0.98;
        g.entire.sqnr_db = -INFINITY;
        g.source = "golden:/data/golden";
        rc = store_accuracy_add(st, id, &g, err, errlen);
    }
    for (int j = 0; j < 3 && !rc; j++) {
        store_load_sample s = { .t_us = j * 1000.0, .core = j == 2 ? STORE_NULL_INT : j,
                                .load_pct = j == 1 ? NAN : 37.5 };
        rc = store_load_add(st, id, &s, err, errlen);
    }
    if (rc) {
        store_run_abort(st, id);
        return rc;
    }
    if ((rc = store_run_commit(st, id, r.total_us, err, errlen)))
        return rc;
    if (k % 2 == 0 && (rc = store_tag_add(st, id, "even", err, errlen)))
        return rc;
    if (k % 3 == 0 && (rc = store_tag_add(st, id, "nightly:2026", err, errlen)))
        return rc;
    return rc;
}

int main(int argc, char **argv)
{
    char err[512];
    store *st = NULL;
    int runs, layers, first, rc;

    if (argc < 4 || (runs = atoi(argv[2])) < 0 || (layers = atoi(argv[3])) < 0) {
        fprintf(stderr, "usage: store_fill DB RUNS LAYERS [FIRST]\n");
        return 1;
    }
    first = argc > 4 ? atoi(argv[4]) : 0;
    if ((rc = store_open(argv[1], &st, err, sizeof err)))
        goto out;
    if ((rc = store_batch_begin(st, err, sizeof err)))
        goto out;
    for (int k = first; k < first + runs && !rc; k++)
        rc = fill_run(st, k, layers, err, sizeof err);
    if (!rc)
        rc = store_batch_commit(st, err, sizeof err);
out:
    if (rc)
        fprintf(stderr, "store_fill: %s\n", err);
    store_close(st);
    return rc ? 1 : 0;
}
