/* record/source_board.h — a vendor runtime's timed runs and its PERF_DETAIL
 * table as a run's rows (record/source_board.c); board_exec makes the whole
 * board run. */
#ifndef RT_RECORD_SOURCE_BOARD_H
#define RT_RECORD_SOURCE_BOARD_H

#include "analyze/store.h"
#include "record/rows.h"
#include "record/timing.h"
#include "tracer/tracer.h"

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

#endif
