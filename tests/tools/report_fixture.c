/* tests/tools/report_fixture.c — records a synthetic run for the report tests
 * and benchmark (tests/reports/run.sh, bench/report.sh): LAYERS layers with
 * long names, every op kind, CPU fallbacks with reasons, multi-core splits,
 * SRAM hits, per-layer errors, outputs and NPU load samples, all derived from
 * the layer index (so a test can recompute any value).
 *
 *   report_fixture DB LABEL LAYERS [--missing] [--board] [--no-acc] [--variant]
 *
 *   --missing  every third layer has no figures, the run no prediction, no host
 *              times, no memory sizes: missing values must print as missing
 *   --board    backend "board": a report uses the measured table times
 *   --no-acc   no per-layer error rows (an fp32 run)
 *   --variant  another model: every tenth layer renamed, the last five dropped,
 *              times 10 % slower (a comparison with unmatched layers) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/store.h"
#include "util/util.h"

static const char *const ops[] = { "Conv", "Relu", "Add", "MaxPool", "Concat", "Sigmoid", "Exp", "Gemm" };
static const char *const npu_ops[] = { "ConvRelu", "ConvRelu", "Add", "MaxPool", "Concat", "ConvSigmoid",
                                       "Exp", "FullyConnected" };

int main(int argc, char **argv)
{
    char err[512];
    store *st = NULL;
    int64_t id;
    int n, missing = 0, board = 0, acc = 1, variant = 0, rc = 0;

    if (argc < 4 || (n = atoi(argv[3])) < 1) {
        fprintf(stderr, "usage: report_fixture DB LABEL LAYERS [--missing] [--board] [--no-acc] [--variant]\n");
        return 1;
    }
    for (int i = 4; i < argc; i++) {
        if (!strcmp(argv[i], "--missing"))
            missing = 1;
        else if (!strcmp(argv[i], "--board"))
            board = 1;
        else if (!strcmp(argv[i], "--no-acc"))
            acc = 0;
        else if (!strcmp(argv[i], "--variant"))
            variant = 1;
        else {
            fprintf(stderr, "report_fixture: unknown option '%s'\n", argv[i]);
            return 1;
        }
    }
    if ((rc = store_open(argv[1], &st, err, sizeof err)))
        goto out;
    store_run r;
    store_run_init(&r);
    r.label = argv[2];
    r.model_path = variant ? "/models/fixture-variant.onnx" : "/models/fixture.onnx";
    r.model_sha256 = variant ? "bbbb" : "aaaa";
    r.model_format = "onnx";
    r.platform = "rk3588";
    r.backend = board ? "board" : "sim";
    r.quant = acc ? "i8" : "fp32";
    r.quant_algo = acc ? "normal" : NULL;
    r.quant_method = acc ? "channel" : NULL;
    if (!missing) {
        r.threads = 2, r.iterations = 10, r.seed = 0, r.warmup = 2;
        r.host_min_us = 900, r.host_p90_us = 1100, r.host_stddev_us = 50;
        r.weight_bytes = 1 << 20, r.internal_bytes = 2 << 20;
    }
    double frame = 0, slow = variant ? 1.1 : 1.0;
    int kept = variant ? n - 5 : n;
    if (kept < 1)
        kept = 1;
    for (int i = 0; i < kept; i++)
        if (!(missing && i % 3 == 1))
            frame += (8 + i % 11) * slow;
    /* the run's predicted frame: the layers' frame shares plus the I/O operators */
    r.npu_us = missing ? NAN : frame + 50;
    if ((rc = store_run_begin(st, &r, &id, err, sizeof err)))
        goto out;
    for (int i = 0; i < kept && !rc; i++) {
        char node[128], name[160], ins[64], outs[64], reason[96];
        int k = i % 8;
        store_layer l;
        store_layer_init(&l);
        l.idx = i;
        snprintf(node, sizeof node, "%s_%d", ops[k], i);
        /* long, path-like names as exporters produce them */
        snprintf(name, sizeof name, "/backbone/stage%d/block%d/%s%s/%s_output_%d", i / 100, (i / 10) % 10,
                 variant && i % 10 == 5 ? "renamed/" : "", ops[k], ops[k], i);
        snprintf(ins, sizeof ins, "[[1,%d,40,40]]", 16 + k);
        snprintf(outs, sizeof outs, "[[1,%d,40,40]]", 16 + k);
        l.node = node, l.op = ops[k], l.name = name, l.in_shapes = ins, l.out_shapes = outs;
        l.dtype = "float32";
        l.host_us = 5 + i % 7;
        if (!(missing && i % 3 == 1)) {
            int cpu = k == 6;
            l.npu_op = npu_ops[k];
            l.target = cpu ? "CPU" : "NPU";
            l.npu_dtype = cpu ? "FLOAT" : "INT8";
            l.npu_cycles = cpu ? 0 : 1000 + 37 * i;
            l.ddr_cycles = cpu ? 0 : 800 + 53 * (i % 50);
            l.total_cycles = l.npu_cycles > l.ddr_cycles ? l.npu_cycles : l.ddr_cycles;
            l.time_us = (10 + i % 13) * slow * (board ? 1.3 : 1.0);
            l.frame_us = (8 + i % 11) * slow;
            l.mac_usage = cpu ? 0 : (i % 100) + 0.25;
            l.rw_kb = 20 + i % 40;
            l.bound = cpu ? "CPU" : l.npu_cycles > l.ddr_cycles ? "compute" : "DDR";
            l.workload = cpu ? NULL : i % 4 == 0 ? "34%/33%/33%" : "100%/0%/0%";
            l.tasks = 1 + i % 3;
            l.sram_hit = i % 5 == 0 ? 4096.0 * (1 + i % 37) : 0;
            if (cpu) {
                snprintf(reason, sizeof reason, "%s is not in the rk3588 NPU op list", ops[k]);
                l.cpu_reason = reason;
            }
        }
        if ((rc = store_layer_add(st, id, &l, err, sizeof err)))
            break;
        if (acc) {
            store_accuracy a;
            store_accuracy_init(&a);
            a.idx = i, a.layer = i, a.name = name, a.op = ops[k], a.node = node;
            a.is_output = i >= kept - 2;
            a.entire.cos = 1.0 - 1e-5 * i * slow;
            a.entire.euc = 0.01 * i, a.entire.max_abs = 0.001 * (i % 17), a.entire.mean_abs = 1e-4 * (i % 17);
            a.entire.sqnr_db = 60 - 0.01 * i;
            a.single.cos = 1.0 - 1e-6 * (i % 23), a.single.euc = 0.001 * i;
            a.single.max_abs = 0.0005 * (i % 17), a.single.mean_abs = 5e-5 * (i % 17);
            a.single.sqnr_db = i == 7 ? INFINITY : 70 - 0.01 * (i % 23);
            if (missing && i % 3 == 1)
                a.entire.sqnr_db = NAN, a.single.cos = NAN;
            rc = store_accuracy_add(st, id, &a, err, sizeof err);
        }
    }
    for (int o = 0; o < 2 && !rc; o++) {
        store_output out;
        char oname[160];
        store_output_init(&out);
        int i = kept - 2 + o;
        snprintf(oname, sizeof oname, "/backbone/stage%d/block%d/%s%s/%s_output_%d", i / 100, (i / 10) % 10,
                 variant && i % 10 == 5 ? "renamed/" : "", ops[i % 8], ops[i % 8], i);
        out.idx = o, out.name = oname, out.shape = "[1,16,40,40]", out.dtype = "float32";
        rc = store_output_add(st, id, &out, err, sizeof err);
    }
    for (int s = 0; s < 30 && !rc; s++)
        for (int c = 0; c < 3 && !rc; c++) {
            store_load_sample ls = { 1000.0 * s, c, c == 0 ? 50 + s % 40 : 10 * c };
            rc = store_load_add(st, id, &ls, err, sizeof err);
        }
    if (!rc)
        rc = store_run_commit(st, id, missing ? NAN : 1000, err, sizeof err);
out:
    if (rc)
        fprintf(stderr, "report_fixture: %s\n", err);
    store_close(st);
    return rc ? 1 : 0;
}
