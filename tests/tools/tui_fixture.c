/* tests/tools/tui_fixture.c — synthetic runs for the TUI's tests and benchmark,
 * written through the store: RUNS runs of LAYERS layers each (one import-sized
 * batch), every 5th layer a CPU fallback, every 3rd DDR-bound, an error row per
 * layer whose entire cos falls below 0.99 from layer LAYERS/2 on, and NPU load
 * samples on the last run (core 0 at 80 %, core 1 at 20 %, core 2 idle); runs
 * tagged "even" or "odd" by their index.
 * Runs are labelled PREFIX0, PREFIX1, ... (PREFIX: "fx").
 * Usage: tui_fixture DB RUNS LAYERS [PREFIX] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/store.h"
#include "util/util.h"

int main(int argc, char **argv)
{
    char err[512], name[64], node[64], label[32];
    store *st = NULL;
    int runs, layers, rc = 0;

    const char *prefix = argc > 4 ? argv[4] : "fx";
    if (argc < 4 || argc > 5 || (runs = atoi(argv[2])) < 1 || (layers = atoi(argv[3])) < 1) {
        fprintf(stderr, "usage: tui_fixture DB RUNS LAYERS [PREFIX]\n");
        return 1;
    }
    if ((rc = store_open(argv[1], &st, err, sizeof err)) || (rc = store_batch_begin(st, err, sizeof err)))
        goto out;
    for (int k = 0; k < runs && !rc; k++) {
        store_run r;
        int64_t id;
        double frame = 0;
        store_run_init(&r);
        snprintf(label, sizeof label, "%s%d", prefix, k);
        r.label = label;
        r.model_path = k % 2 ? "/models/fixture_b.onnx" : "/models/fixture_a.onnx";
        r.platform = k % 3 ? "rk3588" : "rk3566";
        r.backend = "sim";
        r.quant = "i8";
        r.quant_algo = "normal";
        r.quant_method = "channel";
        r.npu_us = 1000.0 + k;
        if ((rc = store_run_begin(st, &r, &id, err, sizeof err)))
            break;
        for (int i = 0; i < layers && !rc; i++) {
            store_layer l;
            store_accuracy a;
            int cpu = i % 5 == 4, ddr = !cpu && i % 3 == 0;
            store_layer_init(&l);
            snprintf(name, sizeof name, "t%d", i);
            snprintf(node, sizeof node, "n%d", i);
            l.idx = i;
            l.node = node;
            l.name = name;
            l.op = cpu ? "Softmax" : "Conv";
            l.target = cpu ? "CPU" : "NPU";
            l.cpu_reason = cpu ? "fixture: no NPU kernel for this axis" : NULL;
            l.bound = cpu ? "CPU" : ddr ? "DDR" : "compute";
            l.dtype = "float32";
            l.npu_dtype = "INT8";
            l.in_shapes = "[[1,16,32,32]]";
            l.out_shapes = "[[1,16,32,32]]";
            l.npu_cycles = ddr ? 1000 : 3000 + i;
            l.ddr_cycles = ddr ? 4000 + i : 800;
            l.total_cycles = l.npu_cycles + l.ddr_cycles;
            l.frame_us = 10.0 + i % 7;
            l.time_us = l.frame_us;
            l.mac_usage = 40 + i % 50;
            l.rw_kb = 64;
            l.sram_hit = 0;
            l.host_us = 5;
            frame += l.frame_us;
            rc = store_layer_add(st, id, &l, err, sizeof err);
            store_accuracy_init(&a);
            a.idx = i;
            a.layer = i;
            a.name = name;
            a.op = l.op;
            a.node = node;
            a.entire.cos = i < layers / 2 ? 0.9999 : 0.98 - 0.001 * (i - layers / 2) / (layers + 1.0);
            a.entire.euc = 0.1 * (i + 1);
            a.single.cos = 0.9995;
            a.single.euc = 0.05;
            a.entire.max_abs = a.entire.mean_abs = a.single.max_abs = a.single.mean_abs = 0.01;
            a.entire.sqnr_db = a.single.sqnr_db = 30;
            a.is_output = i == layers - 1;
            if (!rc)
                rc = store_accuracy_add(st, id, &a, err, sizeof err);
        }
        if (!rc) {
            store_output o;
            store_output_init(&o);
            o.idx = 0;
            snprintf(name, sizeof name, "t%d", layers - 1);
            o.name = name;
            o.shape = "[1,16,32,32]";
            o.dtype = "float32";
            rc = store_output_add(st, id, &o, err, sizeof err);
        }
        for (int s = 0; k == runs - 1 && s < 60 && !rc; s++)
            for (int c = 0; c < 3 && !rc; c++) {
                store_load_sample ls = { s * 1000.0, c, c == 0 ? 80 : c == 1 ? 20 : 0 };
                rc = store_load_add(st, id, &ls, err, sizeof err);
            }
        if (!rc)
            rc = store_run_commit(st, id, 2000.0 + k, err, sizeof err);
        if (!rc)
            rc = store_tag_add(st, id, k % 2 ? "odd" : "even", err, sizeof err);
    }
    if (!rc)
        rc = store_batch_commit(st, err, sizeof err);
out:
    if (rc)
        fprintf(stderr, "tui_fixture: %s\n", err);
    store_close(st);
    return rc ? 1 : 0;
}
