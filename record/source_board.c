/* record/source_board.c — a run on a vendor runtime (`run --backend board`):
 * its timed iterations, the profiled run's PERF_DETAIL table as layer rows,
 * its level-5 dumps as output rows, the NPU load sampled while it ran and the
 * board's environment. */
#include "record/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int run_rows_board(const board_run *b, run_rows *rows, char *err, size_t errlen)
{
    const char *ext = strrchr(b->model, '.');
    time_stats ts = time_stats_of(b->times, b->iters);
    perf_layers pl;
    size_t u;

    (void)err, (void)errlen;
    memset(rows, 0, sizeof(*rows));
    store_run_init(&rows->run);
    rt_iso_time(rows->time, sizeof rows->time);
    rows->run.time = rows->time;
    rows->run.label = b->label;
    rows->run.backend = "board";
    rows->run.platform = b->platform;
    rows->run.model_path = b->model;
    rows->run.model_sha256 = b->sha256;
    rows->run.model_format = ext && !strcmp(ext, ".rknn") ? "rknn"
                             : ext && !strcmp(ext, ".onnx") ? "onnx" : NULL;
    rows->run.iterations = b->iters;
    rows->run.warmup = b->warmup;
    rows->run.seed = b->seed;
    rows->run.total_us = ts.median;
    rows->run.host_min_us = ts.min;
    rows->run.host_p90_us = ts.p90;
    rows->run.host_stddev_us = ts.stddev;
    rows->run.tool_version = RKNN_TRACE_VERSION;
    rows->run.env_json = rows->env = b->env;
    rows->run.dump_dir = b->n_dumps ? b->dump_dir : NULL;
    if (b->inputs_json)
        rows->run.inputs_json = rows->inputs_json = xstrdup(b->inputs_json);
    /* PERF_RUN is measured, not a prediction (npu_us): it goes to the extra
     * JSON, with the summary's NPU load (the mean per core) */
    rows->extra = xmalloc(256);
    u = (size_t)snprintf(rows->extra, 256, "{\"source\":\"run --backend board\"");
    if (b->perf_run_us >= 0)
        u += (size_t)snprintf(rows->extra + u, 256 - u, ",\"perf_run_us\":%lld", b->perf_run_us);
    for (int c = 0; c < b->n_load_pct && u < 256; c++)
        u += (size_t)snprintf(rows->extra + u, 256 - u, "%s%d", c ? "," : ",\"npu_load\":[",
                              b->load_pct[c]);
    if (u < 256)
        snprintf(rows->extra + u, 256 - u, "%s}", b->n_load_pct ? "]" : "");
    rows->run.extra_json = rows->extra;

    perf_layers_make(&pl, b->perf, NULL);
    rows->layers = pl.rows;
    rows->perf_text = pl.text;
    rows->n_layers = pl.n;
    rows->outs = xcalloc((size_t)(b->n_dumps ? b->n_dumps : 1), sizeof(*rows->outs));
    dump_rows_make(b->dumps, b->n_dumps, rows->outs,
                   run_rows_keep(rows, xcalloc((size_t)(b->n_dumps ? b->n_dumps : 1), 160)));
    rows->n_outs = b->n_dumps;
    rows->load = xcalloc((size_t)(b->n_load ? b->n_load : 1), sizeof(*rows->load));
    if (b->n_load)
        memcpy(rows->load, b->load, (size_t)b->n_load * sizeof(*rows->load));
    rows->n_load = b->n_load;
    return RT_OK;
}
