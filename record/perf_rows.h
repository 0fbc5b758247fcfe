/* record/perf_rows.h — a vendor's per-layer performance table and level-5
 * dumps as a run's rows (record/perf_rows.c). */
#ifndef RT_RECORD_PERF_ROWS_H
#define RT_RECORD_PERF_ROWS_H

#include "analyze/store.h"
#include "tracer/tracer.h"

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

#endif
