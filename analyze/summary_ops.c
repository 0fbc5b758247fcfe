/* analyze/summary_ops.c — the Operator Time Consuming Ranking Table of an imported
 * log (extra_json "perf.ops", log-formats.md §3.2), read for the run summary: its
 * rows in the summary's text and JSON document, and, when the run has no per-layer
 * rows (a log that printed, or a paste that kept, the ranking table alone), its
 * total and the CPU time of its op types. */
#include "analyze/analyze.h"
#include "util/escape.h"
#include "util/util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double num(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

void summary_ops_read(const char *extra_json, summary_ops *o)
{
    memset(o, 0, sizeof(*o));
    o->total_us = NAN;
    /* most runs print no ranking table: no parse for them (ls reads every run) */
    if (!extra_json || !strstr(extra_json, "\"ops\""))
        return;
    json_t *root = json_loads(extra_json, 0, NULL);
    json_t *ops = json_object_get(json_object_get(root, "perf"), "ops");
    size_t n = json_is_array(ops) ? json_array_size(ops) : 0;
    o->ops = xcalloc(n ? n : 1, sizeof(*o->ops));
    for (size_t k = 0; k < n; k++) {
        const json_t *row = json_array_get(ops, k);
        const char *name = json_string_value(json_object_get(row, "op"));
        if (!name)
            continue;
        if (!strcmp(name, "Total")) { /* the table's own Total row */
            o->total_us = num(row, "total_us");
            continue;
        }
        summary_op *p = &o->ops[o->n++];
        p->op = xstrdup(name);
        p->calls = num(row, "calls");
        p->cpu_us = num(row, "cpu_us");
        p->gpu_us = num(row, "gpu_us");
        p->npu_us = num(row, "npu_us");
        p->total_us = num(row, "total_us");
        p->ratio_pct = num(row, "ratio");
        /* a copied table may leave its CPU column out ("CallNumber ... NPUTime(us)"):
         * the row's time off the NPU is then its total less the columns printed */
        if (isnan(p->cpu_us) && !isnan(p->npu_us) && !isnan(p->total_us) && p->total_us >= p->npu_us) {
            p->cpu_us = p->total_us - p->npu_us - (isnan(p->gpu_us) ? 0 : p->gpu_us);
            p->cpu_us = p->cpu_us < 0 ? 0 : p->cpu_us;
            o->cpu_is_rest = 1;
        }
    }
    json_decref(root);
}

void summary_ops_free(summary_ops *o)
{
    for (int k = 0; k < o->n; k++)
        free(o->ops[k].op);
    free(o->ops);
    memset(o, 0, sizeof(*o));
}

/* the runtime's own CPU work (input and output conversion), not a fallback */
int summary_op_is_io(const char *op)
{
    return !strcmp(op, "InputOperator") || !strcmp(op, "OutputOperator");
}

int summary_op_is_fallback(const summary_op *p)
{
    return !summary_op_is_io(p->op) && p->cpu_us > 0;
}

const char *summary_ops_title(const summary_ops *o)
{
    return o->cpu_is_rest ? "the log's Operator Time Consuming Ranking Table, measured on the board; "
                            "CPU us is total less NPU: the log left its CPU column out"
                          : "the log's Operator Time Consuming Ranking Table, measured on the board";
}

void summary_ops_print(const summary_ops *o, FILE *f)
{
    if (!o->n)
        return;
    fprintf(f, "op ranking (%s)\n"
               "  %-20s %7s %12s %12s %12s %8s\n", summary_ops_title(o), "OpType", "calls", "CPU us", "NPU us", "total us",
            "ratio");
    for (int k = 0; k < o->n; k++) {
        const summary_op *p = &o->ops[k];
        char r[32];
        snprintf(r, sizeof r, isnan(p->ratio_pct) ? "n/a" : "%.2f%%", p->ratio_pct);
        fprintf(f, "  %-20s %7.0f %12.0f %12.0f %12.0f %8s\n", esc_tmp(ESC_TERM, p->op), p->calls,
                p->cpu_us, p->npu_us, p->total_us, r);
    }
}

void summary_ops_json(const summary_ops *o, struct json_writer *w)
{
    json_key(w, "op_ranking");
    if (!o->n) {
        json_write_null(w);
        return;
    }
    json_arr_open(w);
    for (int k = 0; k < o->n; k++) {
        const summary_op *p = &o->ops[k];
        json_obj_open(w);
        json_key(w, "op"); json_str(w, p->op);
        json_key(w, "calls"); json_num(w, p->calls);
        json_key(w, "cpu_us"); json_num(w, p->cpu_us);
        json_key(w, "gpu_us"); json_num(w, p->gpu_us);
        json_key(w, "npu_us"); json_num(w, p->npu_us);
        json_key(w, "total_us"); json_num(w, p->total_us);
        json_key(w, "ratio_pct"); json_num(w, p->ratio_pct);
        json_obj_close(w);
    }
    json_arr_close(w);
}
