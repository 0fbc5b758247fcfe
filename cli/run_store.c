/* cli/run_store.c — a finished `run`: its rows (record/, built first, so that
 * printing never depends on recording), recorded in one transaction, and
 * printed through the one run summary (analyze/summary.c). */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "record/rows.h"
#include "record/source_sim.h"
#include "record/store_run.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>

int run_record_finish(run_record *r, int record, const char *db, int json, double cos_threshold)
{
    run_rows rows;
    char err[1024] = "";
    int rc = run_rows_build(r, &rows, err, sizeof(err)), ret = EXIT_OK;

    if (rc) {
        cli_error("%s", err);
        return cli_exit_code(rc);
    }
    rows.run.n_layers = rows.n_layers;
    if (record && (rc = run_rows_store(&rows, db, err, sizeof(err))) == RT_OK)
        r->run_id = rows.run.id;
    /* a failure to record does not throw the results away: they are printed,
     * and the exit code says that the run is not in the database */
    run_rows_print(&rows.run, rows.layers, rows.n_layers, rows.npu_rows, rows.n_npu_rows, rows.outs, rows.n_outs, rows.acc,
                   rows.n_acc, json, cos_threshold, stdout);
    if (rc)
        ret = cli_not_recorded(err[0] ? err : rt_status_str(rc));
    run_rows_free(&rows);
    return ret;
}

void run_rows_print(const store_run *run, const store_layer *layers, int nl,
                    const store_npu_row *npu, int n_npu, const store_output *outs, int no,
                    const store_accuracy *acc, int na, int json, double cos_threshold, FILE *f)
{
    run_summary sum;
    summary_compute(run, layers, nl, npu, n_npu, outs, no, acc, na, cos_threshold, &sum);
    run_summary_render(&sum, outs, no, json, f);
    summary_free(&sum);
}

void run_summary_render(const run_summary *sum, const store_output *outs, int no, int json,
                        FILE *f)
{
    if (json) {
        json_writer w;
        json_begin(&w, f);
        summary_json_doc(sum, outs, no, &w);
        json_end(&w);
    } else {
        int color = cli_use_color(f);
        summary_print(sum, f, color);
        summary_print_accuracy(sum, f, color);
    }
}
