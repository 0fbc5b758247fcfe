/* cli/compare_perf.c — `compare` of a board run with a predicted run of the
 * same model: the NPU model's cycles, DDR cycles, time and bound against the
 * board's, layer by layer (analyze/compare_perf.c). */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "util/util.h"

#include <stdio.h>
#include <string.h>

typedef struct side {
    store_run run;
    int have_run;
    store_layer *layers;
    int n;
} side;

int compare_perf_try(const char *db, const char *ref_a, const char *ref_b, int json, int gates,
                     int *exit_code)
{
    store *st = NULL;
    side s[2];
    perfcmp_result res;
    int handled = 0, kind[2];
    char err[512];

    memset(s, 0, sizeof s);
    memset(&res, 0, sizeof res);
    /* anything wrong here (no database, unknown run) the usual compare reports;
     * its gates (cos, slower) are the usual compare's */
    if (gates || store_open_readonly(store_default_path(db), &st, err, sizeof err) ||
        store_get_run(st, ref_a, &s[0].run, err, sizeof err))
        goto out;
    s[0].have_run = 1;
    if (store_get_run(st, ref_b, &s[1].run, err, sizeof err))
        goto out;
    s[1].have_run = 1;
    kind[0] = perfcmp_side(&s[0].run), kind[1] = perfcmp_side(&s[1].run);
    if (kind[0] < 0 || kind[1] < 0 || kind[0] == kind[1])
        goto out;
    /* s[0] becomes the board side */
    if (kind[1] == 1) {
        side t = s[0];
        s[0] = s[1], s[1] = t;
    }
    for (int k = 0; k < 2; k++)
        if (store_get_layers(st, s[k].run.id, &s[k].layers, &s[k].n, err, sizeof err))
            goto out;
    /* no per-layer figures on a side (an imported accuracy table, eval_memory):
     * the usual compare still has outputs and errors to show */
    if (perfcmp_compute(&s[0].run, s[0].layers, s[0].n, &s[1].run, s[1].layers, s[1].n, &res, err,
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
    for (int k = 0; k < 2; k++) {
        store_layers_free(s[k].layers, s[k].n);
        if (s[k].have_run)
            store_run_clear(&s[k].run);
    }
    store_close(st);
    return handled;
}
