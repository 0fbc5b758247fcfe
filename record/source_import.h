/* record/source_import.h — an imported log's runs (record/source_import.c):
 * import_run_fill, the import_*_json columns, import_accuracy_add /
 * import_bench_outputs_add; `import` keeps option parsing, reading, dump
 * folders and rendering. Only what the log printed: a figure it did not print
 * stays missing (NULL in the store, null in the JSON columns, n/a when shown). */
#ifndef RT_RECORD_SOURCE_IMPORT_H
#define RT_RECORD_SOURCE_IMPORT_H

#include <stddef.h>
#include "analyze/store.h"
#include "tracer/tracer.h"

/* The platform a log's text names (a platform table name as a word, case
 * aside, outside '#' lines): exactly one distinct name, else "". */
void import_log_platform(const char *text, size_t len, char *out, size_t outlen);
/* The run's platform: target (--target, a table name), else the run's init
 * lines ("target platform: rk3588"), else log_platform, else the one chip
 * with as many NPU cores as the per-layer table's columns (rk3588's three), else NULL. */
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

#endif
