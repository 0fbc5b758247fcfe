/* record/source_attach.h — a context an application made, traced by
 * `attach` (which runs the application and stores them), as a run's rows
 * (record/source_attach.c). */
#ifndef RT_RECORD_SOURCE_ATTACH_H
#define RT_RECORD_SOURCE_ATTACH_H

#include "record/load_sampler.h"
#include "record/rows.h"
#include "tracer/journal.h"

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

#endif
