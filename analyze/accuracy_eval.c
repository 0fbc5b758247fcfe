/* analyze/accuracy_eval.c — a quantized run's error over every sample of an
 * evaluation list (accuracy_opts.eval): the JSON object stored with the run
 * (the run summary reads and shows it: analyze/summary_eval.c). */
#include "analyze/analyze.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An SQNR of +inf (identical tensors) is the string "inf", as elsewhere. */
static void num_or_inf(json_writer *w, double v)
{
    if (isinf(v))
        json_str(w, v > 0 ? "inf" : "-inf");
    else
        json_num(w, v);
}

static void stat_json(json_writer *w, const char *key, const eval_stat *s)
{
    json_key(w, key);
    json_obj_open(w);
    json_key(w, "min"), num_or_inf(w, s->min);
    json_key(w, "mean"), num_or_inf(w, s->mean);
    json_key(w, "max"), num_or_inf(w, s->max);
    json_key_int(w, "worst_sample", s->worst, -1);
    json_key(w, "n"), json_int(w, s->n);
    json_obj_close(w);
}

static void row_json(json_writer *w, const accuracy_report *r, int i)
{
    const accuracy_eval_row *e = &r->eval[i];
    json_obj_open(w);
    json_key(w, "name"), json_str(w, r->rows[i].name);
    json_key(w, "op"), json_str(w, r->rows[i].op);
    json_key(w, "entire");
    json_obj_open(w);
    stat_json(w, "cos", &e->cos);
    stat_json(w, "euc", &e->euc);
    stat_json(w, "sqnr_db", &e->sqnr);
    json_obj_close(w);
    json_key(w, "single");
    json_obj_open(w);
    stat_json(w, "cos", &e->single_cos);
    json_obj_close(w);
    json_obj_close(w);
}

char *accuracy_eval_json(const accuracy_report *r)
{
    json_writer w;
    json_begin_mem(&w);
    json_obj_open(&w);
    json_key(&w, "file"), json_str(&w, r->eval_path);
    json_key(&w, "samples");
    json_arr_open(&w);
    for (int s = 0; s < r->n_eval; s++)
        json_str(&w, r->eval_files[s]);
    json_arr_close(&w);
    json_key(&w, "sample_min_output_cos");
    json_arr_open(&w);
    for (int s = 0; s < r->n_eval; s++)
        json_num(&w, r->eval_sample_cos[s]);
    json_arr_close(&w);
    json_key_int(&w, "worst_sample", r->eval_worst, -1);
    json_key(&w, "outputs");
    json_arr_open(&w);
    for (int k = 0; k < r->n_outputs; k++)
        if (r->output_rows[k] >= 0)
            row_json(&w, r, r->output_rows[k]);
    json_arr_close(&w);
    json_key(&w, "layers");
    json_arr_open(&w);
    for (int i = 0; i < r->n_rows; i++)
        row_json(&w, r, i);
    json_arr_close(&w);
    json_obj_close(&w);
    return json_take(&w, NULL);
}
