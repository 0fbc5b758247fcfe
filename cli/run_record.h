/* cli/run_record.h — private to cli/: what `run` learned, and how it is stored
 * and printed (human text or the --json document). */
#ifndef RT_RUN_RECORD_H
#define RT_RUN_RECORD_H

#include <stdint.h>
#include <stdio.h>
#include "runtime/exec/exec.h"
#include "runtime/npu/npu.h"
#include "util/util.h"
#include "analyze/analyze.h"

typedef struct run_input {
    const char *name;
    const char *file; /* NULL: seeded random */
} run_input;

/* Statistics of a layer's first output over one pass (NAN: not computed). */
typedef struct run_layer_stats {
    double min, max, mean, std; /* std: population */
} run_layer_stats;

/* Of the float32 values v[0..n) (n 0 or another dtype: all NAN). */
void run_layer_stats_of(const tensor_t *t, run_layer_stats *s);

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
    const struct quant_graph *qg; /* -q i8/fp16: the run's quantization, or NULL */
    const run_layer_stats *stats; /* per executed layer, or NULL: not computed */
    int64_t run_id;         /* set by run_record_store, 0 when not stored */
    char sha256[65];
    char dump_sha256[65];      /* hash over the --dump folder's files, "" if none */
} run_record;

/* The run's rows as the store keeps them (built from the record; strings
 * borrowed from it or owned here). */
typedef struct run_rows {
    store_run run;
    store_layer *layers;
    store_output *outs;
    store_accuracy *acc;
    int n_layers, n_outs, n_acc;
    store_load_sample load[NPU_MAX_CORES]; /* the predicted busy share per core (t 0) */
    int n_load;
    /* owned text the rows point to */
    char time[32], extra[256];
    char *inputs_json, *dump_dir;
    struct { char *ins, *outs; char workload[64]; } *layer_text;
    struct { char shape[24 * MODEL_MAX_DIMS]; char *file; } *out_text;
} run_rows;

int run_rows_build(run_record *r, run_rows *rows, char *err, size_t errlen);
void run_rows_free(run_rows *rows);
/* One transaction; sets rows->run.id. */
int run_rows_store(run_rows *rows, const char *db, char *err, size_t errlen);
/* The run summary of stored rows (text with the per-layer error table, or the
 * docs/json.md document): what `run` prints and `show` prints again. */
void run_rows_print(const store_run *run, const store_layer *layers, int nl,
                    const store_output *outs, int no, const store_accuracy *acc, int na,
                    int json, double cos_threshold, FILE *f);
/* After the run: builds the rows, records them unless record is 0 (--no-db), prints
 * the summary (also when recording failed, saying so). Returns an exit code. */
int run_record_finish(run_record *r, int record, const char *db, int json,
                      double cos_threshold);

#endif
