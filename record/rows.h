/* record/rows.h — the rows of one run: every source of a run (record/source_*.h)
 * fills a run_rows with the store's typed rows (analyze/store.h) before anything
 * is stored, so that a command can print them whether recording works or not;
 * record/store_run.h stores them.
 * Strings in rows are borrowed from the source's record or owned by run_rows.
 * record/ depends on analyze/store, runtime, tracer and dump; never on cli/,
 * tui/ or reports/. */
#ifndef RT_RECORD_ROWS_H
#define RT_RECORD_ROWS_H

#include "analyze/store.h"
#include "tracer/tracer.h" /* perflog_table_t */

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

#endif
