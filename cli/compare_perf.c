/* cli/compare_perf.c — `compare` of a board run with a predicted run of the
 * same model: the NPU model's cycles, DDR cycles, time and bound against the
 * board's, layer by layer (analyze/compare_perf.c). Runs are read by the one
 * run loader (analyze/compare_doc.h: cmp_run_load). */
#include "analyze/analyze.h"
#include "analyze/compare_doc.h"
#include "cli/cli.h"
#include "util/util.h"

#include <stdio.h>
#include <string.h>

int compare_perf_try(const char *db, const char *ref_a, const char *ref_b, int json, int gates,
                     int *exit_code)
{
    store *st = NULL;
    cmp_run s[2];
    perfcmp_result res;
    int handled = 0, kind[2];
    char err[512];

    memset(s, 0, sizeof s);
    memset(&res, 0, sizeof res);
    /* anything wrong here (no database, unknown run) the usual compare reports;
     * its gates (cos, slower) are the usual compare's */
    if (gates || store_open_readonly(store_default_path(db), &st, err, sizeof err) ||
        cmp_run_load(st, ref_a, 0.99, &s[0], err, sizeof err) ||
        cmp_run_load(st, ref_b, 0.99, &s[1], err, sizeof err))
        goto out;
    kind[0] = perfcmp_side(&s[0].run), kind[1] = perfcmp_side(&s[1].run);
    if (kind[0] < 0 || kind[1] < 0 || kind[0] == kind[1])
        goto out;
    /* b: the board side, m: the model's */
    const cmp_run *b = kind[0] == 1 ? &s[0] : &s[1], *m = kind[0] == 1 ? &s[1] : &s[0];
    /* no per-layer figures on a side (an imported accuracy table, eval_memory):
     * the usual compare still has outputs and errors to show */
    if (perfcmp_compute(&b->run, b->layers, b->n_layers, &m->run, m->layers, m->n_layers, &res, err,
                        sizeof err))
        goto out;
    if (json) {
        json_writer w;
        json_begin(&w, stdout);
        perfcmp_json(&res, &w);
        json_end(&w);
    } else {
        perfcmp_print(&res, stdout);
    }
    *exit_code = EXIT_OK;
    handled = 1;
out:
    perfcmp_free(&res);
    for (int k = 0; k < 2; k++)
        cmp_run_free(&s[k]);
    store_close(st);
    return handled;
}
