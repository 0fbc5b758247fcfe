/* cli/run_record.h — private to cli/: what `run` learned, and how it is stored
 * and printed (human text or the --json document). */
#ifndef RT_RUN_RECORD_H
#define RT_RUN_RECORD_H

#include <stdint.h>
#include <stdio.h>
#include "runtime/exec/exec.h"
#include "runtime/npu/npu.h"
#include "util/util.h"

typedef struct run_input {
    const char *name;
    const char *file; /* NULL: seeded random */
} run_input;

typedef struct run_record {
    const char *model, *platform, *backend, *quant, *label, *dump_dir;
    long long seed, iters;
    int threads;
    double median_us, min_us;  /* this PC's frame time over the timed iterations */
    double p90_us, stddev_us;  /* likewise (NaN when unknown) */
    long long warmup;          /* untimed iterations before the timed ones */
    const double *layer_us; /* per executed layer, mean over iterations */
    int n_layers;
    run_input *inputs;      /* one per graph input */
    graph_t *g;
    exec_t *x;
    npu_graph_t *ng;        /* predicted NPU execution (costed) */
    npu_load_t load;        /* busy time per core over the run's iterations */
    const struct accuracy_report *acc; /* -q i8/fp16: per-layer error vs fp32, or NULL */
    int64_t run_id;         /* set by run_record_store, 0 when not stored */
    char sha256[65];
    char dump_sha256[65];      /* hash over the --dump folder's files, "" if none */
} run_record;

int run_record_store(run_record *r, const char *db, char *err, size_t errlen);
void run_record_print_text(const run_record *r, FILE *f);
void run_record_print_json(const run_record *r, FILE *f);

/* The NPU model's part of the summary (cli/run_npu.c). share[] is indexed by
 * enum npu_bound: percent of the predicted frame time. */
void run_npu_shares(const npu_graph_t *ng, double share[3]);
void run_npu_print_text(const run_record *r, FILE *f);
void run_npu_print_json(const run_record *r, json_writer *w);

#endif
