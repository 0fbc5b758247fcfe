/* reports/json.c — `report -f json`: one run is the run document of
 * `show --json` (summary_json_doc, docs/json.md); a comparison holds each run's
 * document and the aligned layers with their deltas. */
#include "reports/reports.h"
#include "util/util.h"

#include <math.h>

int report_json(const rep_doc *d, FILE *f)
{
    json_writer w;
    json_begin(&w, f);
    if (d->n == 1) {
        const report_run *r = &d->runs[0];
        summary_json_doc(&r->sum, r->outs, r->n_outs, &w);
        json_end(&w);
        return RT_OK;
    }
    json_obj_open(&w);
    json_key(&w, "schema_version"), json_int(&w, SUMMARY_SCHEMA_VERSION);
    json_key(&w, "kind"), json_str(&w, "report_compare");
    json_key(&w, "runs");
    json_arr_open(&w);
    for (int k = 0; k < d->n; k++)
        summary_json_doc(&d->runs[k].sum, d->runs[k].outs, d->runs[k].n_outs, &w);
    json_arr_close(&w);
    json_key(&w, "layers");
    json_arr_open(&w);
    for (int i = 0; i < d->n_rows; i++) {
        const rep_row *row = &d->rows[i];
        double base_us = rep_row_us(d, row, 0);
        json_obj_open(&w);
        json_key(&w, "name"), json_str(&w, row->name);
        json_key(&w, "op"), json_str(&w, row->op);
        json_key(&w, "runs");
        json_arr_open(&w);
        for (int k = 0; k < d->n; k++) {
            if (row->layer[k] < 0 && row->acc[k] < 0) {
                json_write_null(&w);
                continue;
            }
            double us = rep_row_us(d, row, k);
            json_obj_open(&w);
            json_key(&w, "layer");
            if (row->layer[k] >= 0)
                json_int(&w, d->runs[k].layers[row->layer[k]].idx);
            else
                json_write_null(&w);
            json_key(&w, "us"), json_num(&w, us);
            json_key(&w, "delta_us"), json_num(&w, k ? us - base_us : NAN);
            json_key(&w, "entire_cos"), json_num(&w, rep_row_cos(d, row, k, 0));
            json_key(&w, "single_cos"), json_num(&w, rep_row_cos(d, row, k, 1));
            json_obj_close(&w);
        }
        json_arr_close(&w);
        json_obj_close(&w);
    }
    json_arr_close(&w);
    json_key(&w, "verdicts");
    json_arr_open(&w);
    for (int k = 1; k < d->n; k++) {
        char v[1024];
        rep_verdict(d, k, v, sizeof(v));
        json_obj_open(&w);
        json_key(&w, "run"), json_int(&w, d->runs[k].run.id);
        json_key(&w, "only_in_baseline"), json_int(&w, d->only_base[k]);
        json_key(&w, "only_in_run"), json_int(&w, d->only_run[k]);
        json_key(&w, "line"), json_str(&w, v);
        json_obj_close(&w);
    }
    json_arr_close(&w);
    json_obj_close(&w);
    json_end(&w);
    return RT_OK;
}
