/* record/source_sim.h — a graph run here, with the NPU model's prediction, as
 * a run's rows (record/source_sim.c). */
#ifndef RT_RECORD_SOURCE_SIM_H
#define RT_RECORD_SOURCE_SIM_H

#include "analyze/store.h"
#include "record/rows.h"
#include "runtime/exec/exec.h"
#include "runtime/model/model.h"
#include "runtime/npu/npu.h"

typedef struct run_input {
    const char *name;
    const char *file; /* NULL: seeded random */
    const void *data; /* the bytes fed (hashed into inputs_json), or NULL */
    size_t nbytes;
    int64_t below;    /* seeded integers' bound (seed_input_fill_below), 0 none */
} run_input;

/* Statistics of a layer's first output over one pass (NAN: not computed). */
typedef struct run_layer_stats {
    double min, max, mean, std; /* std: population */
} run_layer_stats;

/* Of the float32 values v[0..n) (n 0 or another dtype: all NAN). */
void run_layer_stats_of(const tensor_t *t, run_layer_stats *s);

struct quant_graph;
typedef struct run_record {
    const char *model, *platform, *backend, *quant, *label, *dump_dir;
    long long seed, iters;
    int threads;
    const double *iter_us;     /* this PC's frame time per timed iteration (n: iters) */
    long long warmup;          /* untimed iterations before the timed ones */
    const double *layer_us; /* per executed layer, median over iterations */
    int n_layers;
    run_input *inputs;      /* one per graph input */
    graph_t *g;
    exec_t *x;
    npu_graph_t *ng;        /* predicted NPU execution (costed) */
    npu_load_t load;        /* busy time per core over the run's iterations */
    /* -q i8/fp16: what the quantization did (quant_algo NULL: not int8) */
    int quantized;
    const char *quant_algo, *quant_method;
    int calib_samples, int8_layers, fp16_layers, cfg_params;
    store_accuracy *acc_rows; /* per-layer error vs fp32 (taken by the rows), or NULL */
    int n_acc;
    const struct quant_graph *qg; /* -q i8/fp16: the run's quantization, or NULL */
    const run_layer_stats *stats; /* per executed layer, or NULL: not computed */
    const char *eval_json;  /* --eval: accuracy_eval_json's object (extra_json "eval"), or NULL */
    int64_t run_id;         /* set by run_record_finish, 0 when not stored */
    char sha256[65];
    char dump_sha256[65];      /* hash over the --dump folder's files, "" if none */
} run_record;

/* The sim run's rows (strings borrowed from r or owned by rows). */
int run_rows_build(run_record *r, run_rows *rows, char *err, size_t errlen);

#endif
