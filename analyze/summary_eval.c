/* analyze/summary_eval.c — the evaluation a quantized run stored (extra_json
 * "eval", written by accuracy_eval_json), read once for the run summary, and
 * its lines in the summary's text and JSON document. */
#include "analyze/analyze.h"
#include "util/escape.h"
#include "util/util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A stored figure: a number, "inf"/"-inf" (an SQNR of identical tensors), else NaN. */
static double num_of(const json_t *v)
{
    const char *s = json_string_value(v);
    if (s)
        return !strcmp(s, "inf") ? INFINITY : !strcmp(s, "-inf") ? -INFINITY : NAN;
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A sample index, -1 when missing or outside the list. */
static int sample_of(const json_t *v, int n)
{
    json_int_t k = json_is_integer(v) ? json_integer_value(v) : -1;
    return k >= 0 && k < n ? (int)k : -1;
}

static double stat_of(const json_t *row, const char *metric, const char *key)
{
    return num_of(json_object_get(json_object_get(json_object_get(row, "entire"), metric), key));
}

void summary_eval_read(const char *extra_json, summary_eval *e)
{
    memset(e, 0, sizeof(*e));
    e->worst = -1;
    e->worst_cos = NAN;
    /* most runs have no evaluation: no parse for them (ls reads every run) */
    if (!extra_json || !strstr(extra_json, "\"eval\""))
        return;
    json_t *root = json_loads(extra_json, 0, NULL);
    json_t *ev = json_object_get(root, "eval");
    json_t *samples = json_object_get(ev, "samples"), *outs = json_object_get(ev, "outputs");
    int n = json_is_array(samples) ? (int)json_array_size(samples) : 0;
    if (n > 0 && n < (1 << 30)) {
        const char *file = json_string_value(json_object_get(ev, "file"));
        e->n_samples = n;
        e->file = file ? xstrdup(file) : NULL;
        e->worst = sample_of(json_object_get(ev, "worst_sample"), n);
        if (e->worst >= 0) {
            const char *wf = json_string_value(json_array_get(samples, (size_t)e->worst));
            e->worst_file = wf ? xstrdup(wf) : NULL;
            e->worst_cos = num_of(json_array_get(json_object_get(ev, "sample_min_output_cos"),
                                                 (size_t)e->worst));
        }
        size_t no = json_is_array(outs) ? json_array_size(outs) : 0;
        e->outputs = xcalloc(no ? no : 1, sizeof(*e->outputs));
        for (size_t k = 0; k < no; k++) {
            const json_t *row = json_array_get(outs, k);
            const char *name = json_string_value(json_object_get(row, "name"));
            summary_eval_output *o = &e->outputs[e->n_outputs++];
            o->name = name ? xstrdup(name) : NULL;
            o->cos_min = stat_of(row, "cos", "min");
            o->cos_mean = stat_of(row, "cos", "mean");
            o->cos_worst = sample_of(json_object_get(json_object_get(json_object_get(row, "entire"), "cos"),
                                                     "worst_sample"), n);
            o->sqnr_min_db = stat_of(row, "sqnr_db", "min");
            o->sqnr_mean_db = stat_of(row, "sqnr_db", "mean");
            o->euc_max = stat_of(row, "euc", "max");
        }
    }
    json_decref(root);
}

void summary_eval_free(summary_eval *e)
{
    for (int k = 0; k < e->n_outputs; k++)
        free(e->outputs[k].name);
    free(e->outputs);
    free(e->file);
    free(e->worst_file);
    memset(e, 0, sizeof(*e));
    e->worst = -1;
    e->worst_cos = NAN;
}

const char *summary_fmt_inf(char *buf, size_t len, double v, const char *fmt)
{
    if (isinf(v))
        snprintf(buf, len, "%sinf", v < 0 ? "-" : "");
    else
        summary_fmt(buf, len, v, fmt);
    return buf;
}

const char *summary_eval_head(const run_summary *s, char *buf, size_t len)
{
    const summary_eval *e = &s->eval;
    char a[48];
    int n = snprintf(buf, len, "%d sample%s of %s", e->n_samples, e->n_samples == 1 ? "" : "s",
                     e->file ? e->file : "n/a");
    if (n < 0 || (size_t)n >= len)
        return buf;
    if (e->worst >= 0)
        snprintf(buf + n, len - (size_t)n, "; worst sample %d (%s): lowest output cos %s", e->worst + 1,
                 e->worst_file ? e->worst_file : "n/a", summary_fmt(a, sizeof(a), e->worst_cos, "%.5f"));
    else
        snprintf(buf + n, len - (size_t)n, "; no output has a defined cosine");
    return buf;
}

void summary_print_eval(const run_summary *s, FILE *f)
{
    const summary_eval *e = &s->eval;
    char a[48], b[48], c[48], d[48], g[48], x[48], head[8192];
    if (!e->n_samples)
        return;
    fprintf(f, "eval      %s\n", esc_tmp(ESC_TERM, summary_eval_head(s, head, sizeof(head))));
    for (int k = 0; k < e->n_outputs; k++) {
        const summary_eval_output *o = &e->outputs[k];
        if (o->cos_worst >= 0)
            snprintf(x, sizeof(x), " (sample %d)", o->cos_worst + 1);
        else
            x[0] = 0;
        fprintf(f, "          output '%s': cos min %s%s mean %s, SQNR min %s mean %s dB, euc max %s\n",
                esc_tmp(ESC_TERM, o->name ? o->name : "?"), summary_fmt(a, sizeof(a), o->cos_min, "%.5f"), x,
                summary_fmt(b, sizeof(b), o->cos_mean, "%.5f"),
                summary_fmt_inf(c, sizeof(c), o->sqnr_min_db, "%.2f"),
                summary_fmt_inf(d, sizeof(d), o->sqnr_mean_db, "%.2f"),
                summary_fmt(g, sizeof(g), o->euc_max, "%.5g"));
    }
}

/* A figure of the document: "inf" for an SQNR of identical tensors, as stored. */
static void num_or_inf(json_writer *w, const char *key, double v)
{
    json_key(w, key);
    if (isinf(v))
        json_str(w, v > 0 ? "inf" : "-inf");
    else
        json_num(w, v);
}

void summary_eval_json(const summary_eval *e, json_writer *w)
{
    if (!e->n_samples) {
        json_write_null(w);
        return;
    }
    json_obj_open(w);
    json_key(w, "file"), json_str(w, e->file);
    json_key(w, "samples"), json_int(w, e->n_samples);
    json_key_int(w, "worst_sample", e->worst, -1);
    json_key(w, "worst_file"), json_str(w, e->worst_file);
    num_or_inf(w, "worst_min_output_cos", e->worst_cos);
    json_key(w, "outputs");
    json_arr_open(w);
    for (int k = 0; k < e->n_outputs; k++) {
        const summary_eval_output *o = &e->outputs[k];
        json_obj_open(w);
        json_key(w, "name"), json_str(w, o->name);
        num_or_inf(w, "cos_min", o->cos_min);
        num_or_inf(w, "cos_mean", o->cos_mean);
        json_key_int(w, "cos_worst_sample", o->cos_worst, -1);
        num_or_inf(w, "sqnr_min_db", o->sqnr_min_db);
        num_or_inf(w, "sqnr_mean_db", o->sqnr_mean_db);
        num_or_inf(w, "euc_max", o->euc_max);
        json_obj_close(w);
    }
    json_arr_close(w);
    json_obj_close(w);
}
