/* record/record.h — every source of a run turned into the store's typed rows
 * (analyze/store.h), stored in one transaction.
 *
 * Contract:
 *   * One builder per source fills a run_rows: run_rows_build (sim: a graph run
 *     here with the NPU model's prediction), run_rows_predict (a vendor .rknn
 *     costed on a PC; predict_graph builds its NPU layers), run_rows_board (a
 *     vendor runtime's timed runs and its PERF_DETAIL table; board_exec makes
 *     the whole board run). The rows are complete before anything is stored,
 *     so that a command can print them whether recording works or not.
 *     An imported log's runs (record/source_import.c): import_run_fill, the
 *     import_*_json columns, import_accuracy_add / import_bench_outputs_add;
 *     `import` keeps option parsing, reading, dump folders and rendering.
 *     run_rows_attach (record/source_attach.c): a context an application
 *     made, traced by `attach` (which runs the application and stores them).
 *   * run_rows_store writes any of them in ONE transaction (nothing of the run
 *     is left on failure) and sets rows->run.id; run_rows_free frees them.
 *   * The NPU-layer-to-row mapping is one (record/rows_npu.c) and goes both
 *     ways: rows_npu_fill puts a costed NPU layer's figures on a layer row, and
 *     rows_npu_graph rebuilds the level-4 table from stored rows, the same text
 *     `run --npu-table` printed: the layers no row carries exactly (Input/
 *     OutputOperator, exDataConvert, a node lowered to several layers) are kept
 *     as the run's npu_rows, with the table's total in perf_table_us
 *     (docs/store.md).
 *   * Timing statistics of every source come from time_stats_of (median, p90,
 *     min, sample stddev), seeded random inputs from seed_input_fill: the same
 *     --seed is the same input on every backend.
 * Strings in rows are borrowed from the source's record or owned by run_rows.
 * Depends on analyze/store, runtime, tracer and dump; never on cli/, tui/ or
 * reports/. */
#ifndef RT_RECORD_H
#define RT_RECORD_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include "analyze/store.h"
#include "runtime/exec/exec.h"
#include "runtime/model/model.h"
#include "runtime/npu/npu.h"
#include "tracer/board.h"
#include "tracer/journal.h"
#include "record/version.h"
#include "util/util.h"

/* ---- timing (record/timing.c) ---------------------------------------------- */

/* Median, min, p90 (nearest rank) and sample stddev (divides by n - 1; NaN for
 * n < 2) of n times; NaN each when n is 0. v is not changed. */
typedef struct time_stats { double median, min, p90, stddev; } time_stats;
time_stats time_stats_of(const double *v, long long n);
/* The same helper under the name `attach` calls for its medians. */
static inline time_stats board_time_stats(const double *v, int n) { return time_stats_of(v, n); }

/* ---- seeded inputs (record/seed_input.c) ------------------------------------ */

/* n values of dtype (DT_*) into buf for input number `index` of a run seeded
 * with seed: splitmix64 from seed + index, uniform [0,1) for floats, [0,10)
 * for integers, {0,1} for bool. RT_EUNSUPPORTED for another dtype. The board
 * feeds the float32 values (the runtime converts), the simulator the model's
 * dtype: a float32 input is the same bytes on both. */
int seed_input_fill(int dtype, int64_t n, long long seed, int index, void *buf);
/* The "source" recorded for such an input (docs/store.md, inputs_json). */
void seed_input_source(char *buf, size_t len, long long seed, int index);

/* ---- the rows of one run ----------------------------------------------------- */

typedef struct run_rows {
    store_run run;
    store_layer *layers;
    store_output *outs;
    store_accuracy *acc;
    store_load_sample *load;
    int n_layers, n_outs, n_acc, n_load;
    /* owned text the rows point to */
    char time[32], sha[65], path[4096];
    char *extra, *inputs_json, *dump_dir, *env;
    store_npu_row *npu_rows;  /* the level-4 rows no layer row gives back */
    int n_npu_rows;
    void **text;            /* other owned allocations */
    int n_text, cap_text;
    char *perf_text;        /* board: perf_layers_make's text, */
    perflog_table_t *perf_tables; /* and the tables it points into */
    int n_perf_tables;
} run_rows;

void run_rows_free(run_rows *rows);
/* s (malloc'd, may be NULL) kept until run_rows_free; returns s. */
void *run_rows_keep(run_rows *rows, void *s);
/* One transaction; sets rows->run.id. A run without env_json gets this host's
 * environment (the tool, CPU, OS; the cost model's version for a prediction). */
int run_rows_store(run_rows *rows, const char *db, char *err, size_t errlen);

/* ---- sim: a graph run here (record/source_sim.c) ----------------------------- */

typedef struct run_input {
    const char *name;
    const char *file; /* NULL: seeded random */
    const void *data; /* the bytes fed (hashed into inputs_json), or NULL */
    size_t nbytes;
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

/* ---- predict: a vendor .rknn costed on a PC (record/source_predict.c) -------- */

struct rknn_model;
/* The compiled graph as NPU layers, one per compiled node, and a graph_t with
 * its tensors' names and shapes (for the memory plan). */
int predict_graph(const struct rknn_model *m, const npu_platform_t *p, npu_graph_t **out,
                  graph_t **gout, char *err, size_t errlen);
/* One run (backend "predict") and a layer row per compiled node of the costed ng. */
int run_rows_predict(const char *path, const char *label, const struct rknn_model *m,
                     const npu_graph_t *ng, run_rows *rows, char *err, size_t errlen);

/* ---- board: a vendor runtime's run (record/source_board.c) ------------------- */

typedef struct board_run {
    const char *model, *label, *platform, *runtime;
    const char *sha256;
    long long iters, warmup, seed;
    const double *times;            /* rknn_run wall time per timed iteration */
    const perflog_table_t *perf;    /* the profiled run's PERF_DETAIL table */
    long long perf_run_us;          /* RKNN_QUERY_PERF_RUN, -1 unknown */
    const vlog_dump_t *dumps;       /* the profiled run's level-5 dumps */
    int n_dumps;
    const char *dump_dir;
    const store_load_sample *load;  /* sampled during the runs */
    int n_load;
    const int *load_pct;            /* mean per core */
    int n_load_pct;
    char *env;                      /* env_json, taken by the rows */
    const char *inputs_json;        /* the inputs fed, or NULL */
} board_run;
int run_rows_board(const board_run *b, run_rows *rows, char *err, size_t errlen);

/* The whole board run: the runtime loaded (dlopen), -i files or the seeded
 * inputs fed, warmup + iters timed rknn_run calls while the NPU load is
 * sampled under root, one profiled run (its dumps into dump with RKNN_LOG_LEVEL
 * 5, the runtime's stdout sent to stderr meanwhile), and its rows. db: checked
 * with store_preflight before the runs (NULL: not recorded). RT_EIO for a
 * runtime or model that fails (err says which), a preflight's status. */
typedef struct board_exec_opts {
    const char *model, *runtime, *root, *target, *label, *db;
    long long iters, warmup, seed;   /* iters 0: 10; warmup -1: 2 */
    const char *const *in_name, *const *in_file; /* -i NAME=FILE.npy */
    int n_in;
    const char *dump;                /* --dump DIR, or NULL */
} board_exec_opts;
typedef struct board_exec_out {
    long long iters, perf_run_us;    /* perf_run_us -1: unknown */
    time_stats times;                /* of rknn_run */
    int n_layers, n_load;
    int no_dumps;                    /* --dump given, the runtime wrote none */
    char dump_dir[4096];
} board_exec_out;
int board_exec(const board_exec_opts *o, run_rows *rows, board_exec_out *res, char *err,
               size_t errlen);
/* The vendor runtime to load: given, else $RKNN_TRACE_RUNTIME, else the first
 * of the standard paths that exists; NULL when none. */
const char *board_runtime_find(const char *given);
/* An rknpu device under root: a DRM device of driver rknpu, or /dev/rknpu. */
int board_npu_present(const char *root);
/* JSON list of the inputs fed: name, dtype, shape, and a file or the seeded
 * source, with the sha256 of the bytes of each (malloc'd). */
typedef struct run_input_fed {
    const char *name, *dtype, *file; /* file NULL: seeded */
    int ndim;
    const int64_t *dims;
    const void *data;
    size_t nbytes;
} run_input_fed;
char *inputs_json_of(const run_input_fed *in, int n, long long seed);

/* ---- the NPU layer <-> row mapping (record/rows_npu.c) ----------------------- */

/* Layer l's figures on row (cycles, times, MAC usage, RW, tasks, SRAM hit,
 * workload into wl, dtype, target, OpType, bound). */
/* The order of a simulated run's layer rows: graph order, except that the
 * nodes of a deferred NPU layer (npu_layer_t.deferred) move to just before
 * its last node, so a layer's rows stay contiguous in the order it runs.
 * Returns n_nodes node indices (free()). */
int *rows_node_order(const graph_t *g, const npu_graph_t *ng);
void rows_npu_fill(const npu_graph_t *ng, const npu_layer_t *l, store_layer *row, char *wl,
                   size_t wlen);
/* The level-4 rows the carrier rows (those with total_cycles) do not rebuild
 * exactly, as the run's npu_rows (*n of them; free with rows_npu_rows_free);
 * sets run's perf_table_us (the table's total), npu_table_layers and the
 * clocks the prediction used. carrier[i]: the row carrying layer i, -1 none. */
store_npu_row *rows_npu_table(const npu_graph_t *ng, const store_layer *rows, int n_rows,
                              const int *carrier, store_run *run, int *n);
void rows_npu_rows_free(store_npu_row *rows, int n);
/* The level-4 table of stored rows (layer rows and the run's npu_rows) as an
 * NPU graph for npu_print_perf_table (free with rows_npu_graph_free);
 * *complete: the run kept its whole table (npu_table_layers). */
int rows_npu_graph(const store_run *run, const store_layer *rows, int n_rows,
                   const store_npu_row *extra, int n_extra, npu_graph_t *ng, int *complete,
                   char *err, size_t errlen);
void rows_npu_graph_free(npu_graph_t *ng);

/* ---- vendor tables and dumps as rows (record/perf_rows.c) -------------------- */

/* The vendor's per-layer performance table as layer rows of run id,
 * with each row's SRAM hit bytes from sram_hit[row] (NULL: none);
 * its dtype names in numpy's words; "(1,3,224,224),(64,3,7,7)" as a JSON list of
 * shapes (single: the first shape alone), NULL when nothing is readable. */
int perf_layers_store(store *st, int64_t id, const perflog_table_t *t, const double *sram_hit,
                      char *err, size_t errlen);
/* The same in two steps: the rows made (their strings point into t and into
 * text), then added; an import makes them while the previous run is written. */
typedef struct perf_layers {
    store_layer *rows;
    char *text;
    int n;
} perf_layers;
void perf_layers_make(perf_layers *pl, const perflog_table_t *t, const double *sram_hit);
int perf_layers_add(store *st, int64_t id, const perf_layers *pl, char *err, size_t errlen);
void perf_layers_free(perf_layers *pl);
const char *perf_numpy_dtype(const char *vendor);
/* Level-5 dump files (vendor-named) as the run's output rows, in order. */
int dump_rows_store(store *st, int64_t id, const vlog_dump_t *d, int n, char *err,
                    size_t errlen);
/* The same rows into o[0..n) (shape text into shape[k], 160 bytes each). */
void dump_rows_make(const vlog_dump_t *d, int n, store_output *o, char (*shape)[160]);
char *perf_shapes_json(const char *s, int single);

/* ---- NPU load sampled on a thread (record/load_sampler.c) -------------------- */

/* rows[0..n) once stopped, t_us since t0 (rt_now_us at the start); free(rows). */
typedef struct load_sampler {
    pthread_t th;
    int running, stop;
    pthread_mutex_t mu;
    board_snapshot_t snap;
    double t0;
    store_load_sample *rows;
    int n, cap;
} load_sampler;
void load_sampler_start(load_sampler *s, const char *root);
void load_sampler_stop(load_sampler *s);
/* Mean load per core of the samples taken between t0 and t1 (rt_now_us); returns
 * the core count (0: none). */
int load_sampler_mean(const load_sampler *s, double t0, double t1, int pct[BOARD_MAX_CORES]);

/* ---- attach: an application's context (record/source_attach.c) -------------- */

typedef struct attach_run {
    const trace_ctx *ctx;           /* the context: its runs, tables, queries */
    const trace_journal *journal;   /* the process: its runtime, warnings, every call */
    char *const *app;               /* the application's argv */
    int status, sig, perf_every;    /* its exit status or signal; --perf N (0: none) */
    const char *label;              /* NULL: none; context k > 0 gets "LABEL-(k+1)" */
    int k;
    const char *root, *model_dir;   /* the board's /sys and /proc; the models saved */
    const char *log;                /* the runtime's log lines captured, or NULL */
    int single;                     /* the only context: a level-4 table in log is its */
    const load_sampler *smp;        /* the NPU load sampled while the application ran */
} attach_run;
/* The context's rows (backend "board", "simlib" on this project's library). */
int run_rows_attach(const attach_run *a, run_rows *rows, char *err, size_t errlen);

/* ---- what a board run records besides its rows (record/board_facts.c) -------- */

/* ---- an imported log's runs (record/source_import.c) ---------------------
 * Only what the log printed: a figure it did not print stays missing (NULL in
 * the store, null in the JSON columns, n/a when shown). */
/* The platform a log's text names (a platform table name as a word, case
 * aside, outside '#' lines): exactly one distinct name, else "". */
void import_log_platform(const char *text, size_t len, char *out, size_t outlen);
/* The run's platform: target (--target, a table name), else the run's init
 * lines ("target platform: rk3588"), else log_platform, else NULL. */
const char *import_run_platform(const vlog_run_t *r, const char *target, const char *log_platform);
/* store_run_init, then the run's columns from the log: backend, platform,
 * status ("failed" when an error line ends the run), memory, warm-up (only
 * when a warm-up section was printed), iterations, min, total_us (the table's
 * total, else the median of the timed iterations, else the Avg line). */
void import_run_fill(store_run *run, const vlog_run_t *r, const char *target,
                     const char *log_platform);
/* The env_json and extra_json columns (docs/store.md), malloc'd; env NULL
 * when the log says nothing of its environment, extra NULL when the log
 * printed no table the columns do not hold. */
char *import_env_json(const vlog_run_t *r, const char *source_path);
char *import_extra_json(const vlog_run_t *r, const char *golden_dir);
/* The typed facts of an imported log's run: what made it (import_kind), its
 * table's total (log_total_us). */
void import_run_facts(store_run *run, const vlog_run_t *r);
/* SRAM table rows joined to the run's per-layer rows: hit[k] bytes per row
 * (NaN: none); returns the count joined (log-formats.md §4). */
int import_sram_join(const vlog_run_t *r, double *hit);
/* The accuracy rows of the run's side, the benchmark's output tensors. */
int import_accuracy_add(store *st, int64_t id, const vlog_run_t *r, char *err, size_t errlen);
int import_bench_outputs_add(store *st, int64_t id, const vlog_run_t *r, char *err, size_t errlen);

/* The runtime (path, SDK_VERSION's api/driver strings) and, for a vendor .rknn,
 * its target chip, toolkit and compiler (board_model_facts). NULL or "":
 * unknown, left out. */
typedef struct board_facts {
    const char *runtime, *api_version, *drv_version;
    char model_target[32], toolkit[64], compiler[96];
} board_facts;
void board_model_facts(board_facts *f, const void *model, size_t len);
/* The board's environment (board_env_json) with those facts, malloc'd. */
char *run_env_json(const char *root, const board_facts *bf);
/* The run's platform: given (-t), else the .rknn's target, else the SoC of the
 * board's device tree (in buf), else NULL. */
const char *board_platform(const char *given, const board_facts *bf, const char *root, char *buf,
                           size_t len);
/* The version string a runtime library carries ("librknnrt version: 1.5.2 (hash@date)",
 * the same text RKNN_QUERY_SDK_VERSION answers), read from the file itself; 1 when found. */
int board_runtime_version(const char *path, char *out, size_t len);

#endif
