/* record/rows_npu.h — the NPU-layer-to-row mapping, one, both ways
 * (record/rows_npu.c): rows_npu_fill puts a costed NPU layer's figures on a
 * layer row, and rows_npu_graph rebuilds the level-4 table from stored rows,
 * the same text `run --npu-table` printed: the layers no row carries exactly
 * (Input/OutputOperator, exDataConvert, a node lowered to several layers) are
 * kept as the run's npu_rows, with the table's total in perf_table_us
 * (docs/store.md). */
#ifndef RT_RECORD_ROWS_NPU_H
#define RT_RECORD_ROWS_NPU_H

#include "analyze/store.h"
#include "runtime/npu/npu.h"

/* The order of a simulated run's layer rows: graph order, except that the
 * nodes of a deferred NPU layer (npu_layer_t.deferred) move to just before
 * its last node, so a layer's rows stay contiguous in the order it runs.
 * Returns n_nodes node indices (free()). */
int *rows_node_order(const graph_t *g, const npu_graph_t *ng);

/* Layer l's figures on row (cycles, times, MAC usage, RW, tasks, SRAM hit,
 * workload into wl, dtype, target, OpType, bound). */
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
 * *complete: the run kept its whole table (npu_table_layers). RT_ENOTFOUND with a
 * line that says why: no rows at all (no per-layer table), no known platform, no
 * layer on the NPU. */
int rows_npu_graph(const store_run *run, const store_layer *rows, int n_rows,
                   const store_npu_row *extra, int n_extra, npu_graph_t *ng, int *complete,
                   char *err, size_t errlen);
void rows_npu_graph_free(npu_graph_t *ng);

#endif
