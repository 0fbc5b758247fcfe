/* record/source_predict.h — a vendor .rknn costed on a PC as a run's rows
 * (record/source_predict.c; backend "predict"). */
#ifndef RT_RECORD_SOURCE_PREDICT_H
#define RT_RECORD_SOURCE_PREDICT_H

#include "record/rows.h"
#include "runtime/model/model.h"
#include "runtime/emu/emu.h"
#include "runtime/npu/npu.h"

struct rknn_model;
/* One run (backend "predict") and a layer row per compiled node of the costed ng. */
int run_rows_predict(const char *path, const char *label, const struct rknn_model *m,
                     const npu_graph_t *ng, run_rows *rows, char *err, size_t errlen);
/* The same run once its NPU tasks were emulated (backend "emulate"): extra_json says the
 * outputs are numeric and what computed them (er's task counts). */
void run_rows_emulated(run_rows *rows, const struct rknn_model *m, const emu_result *er);

#endif
