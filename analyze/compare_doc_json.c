/* analyze/compare_doc_json.c — the comparison document as JSON, kind
 * "comparison" (docs/json.md): the one writer behind `compare --json` and
 * `report RUN RUN... -f json`. */
#include "analyze/compare_doc.h"
#include "util/util.h"

#include <math.h>
#include <string.h>

static void metrics_obj(json_writer *w, const char *key, const metrics_t *m, int ok)
{
    json_key(w, key);
    if (!ok) {
        json_write_null(w);
        return;
    }
    json_obj_open(w);
    json_key(w, "cos"), json_num(w, m->cos);
    json_key(w, "sqnr_db");
    if (isinf(m->sqnr_db))
        json_str(w, m->sqnr_db > 0 ? "inf" : "-inf");
    else
        json_num(w, m->sqnr_db);
    json_key(w, "max_abs"), json_num(w, m->max_abs);
    json_obj_close(w);
}

static const char *speed_key(int kind)
{
    switch (kind) {
    case CMP_SPEED_PREDICTED_FRAME: return "predicted_frame";
    case CMP_SPEED_PREDICTED_TABLE: return "predicted_table";
    case CMP_SPEED_BOARD_PROFILED: return "board_profiled";
    case CMP_SPEED_HOST: return "host_median";
    default: return NULL;
    }
}

static void run_obj(json_writer *w, const cmp_doc *d, int k)
{
    const cmp_run *r = &d->runs[k];
    const run_summary *m = &r->sum;
    const cmp_speed *s = &d->speed[k];
    json_obj_open(w);
    json_key(w, "tag"), json_str(w, cmp_tag(k));
    json_key(w, "id"), json_int(w, r->run.id);
    json_key(w, "label"), json_str(w, r->run.label);
    json_key(w, "baseline"), json_bool(w, k == 0);
    json_key(w, "model"), json_str(w, r->run.model_path);
    json_key(w, "model_sha256"), json_str(w, r->run.model_sha256);
    json_key(w, "platform"), json_str(w, r->run.platform);
    json_key(w, "backend"), json_str(w, r->run.backend);
    json_key(w, "quant"), json_str(w, r->run.quant);
    json_key(w, "quant_algo"), json_str(w, r->run.quant_algo);
    json_key(w, "quant_method"), json_str(w, r->run.quant_method);
    json_key(w, "layers"), json_int(w, r->n_layers);
    json_key(w, "npu_us"), json_num(w, m->frame_us);
    json_key(w, "host_median_us"), json_num(w, m->host_median_us);
    json_key(w, "speed");
    if (k == 0) {
        json_write_null(w);
    } else {
        char t[256];
        json_obj_open(w);
        json_key(w, "kind"), json_str(w, speed_key(s->kind));
        json_key(w, "us"), json_num(w, s->us);
        json_key(w, "baseline_kind"), json_str(w, speed_key(s->base_kind));
        json_key(w, "baseline_us"), json_num(w, s->base_us);
        json_key(w, "slower_pct"), json_num(w, s->slower_pct);
        json_key(w, "text"), json_str(w, cmp_speed_text(d, k, t, sizeof(t)));
        json_obj_close(w);
    }
    json_key(w, "slower_pct"), json_num(w, k ? s->slower_pct : NAN);
    json_key(w, "layer_us_provenance"), json_str(w, provenance_tag(cmp_layer_us_prov(d, k)));
    json_key(w, "has_errors"), json_bool(w, m->n_acc > 0);
    json_key(w, "output_cos"), json_num(w, m->out_cos);
    json_key(w, "output_sqnr_db"), json_num(w, m->out_sqnr_db);
    json_key(w, "worst_output"),
        json_str(w, m->worst_output >= 0 ? m->outputs[m->worst_output].name : NULL);
    json_key(w, "first_below"), json_str(w, m->first_below >= 0 ? r->acc[m->first_below].name : NULL);
    json_key(w, "document");
    summary_json_doc(m, r->outs, r->n_outs, w);
    json_obj_close(w);
}

static void outputs(json_writer *w, const cmp_doc *d)
{
    json_key(w, "outputs");
    json_arr_open(w);
    for (int j = 0; j < d->n_outs; j++) {
        json_obj_open(w);
        json_key(w, "name"), json_str(w, d->out_names[j]);
        json_key(w, "runs");
        json_arr_open(w);
        for (int k = 0; k < d->n; k++) {
            const cmp_out_cell *c = &d->oc[j * d->n + k];
            const summary_output *o = c->out >= 0 ? &d->runs[k].sum.outputs[c->out] : NULL;
            metrics_t g = { .cos = o ? o->cos : NAN, .sqnr_db = o ? o->sqnr_db : NAN,
                            .max_abs = o ? o->max_abs : NAN };
            json_obj_open(w);
            json_key(w, "run"), json_int(w, d->runs[k].run.id);
            metrics_obj(w, "vs_golden", &g, o && o->acc >= 0);
            metrics_obj(w, "vs_baseline", &c->vs, c->vs_ok);
            json_key(w, "problem"), json_str(w, c->problem[0] ? c->problem : NULL);
            json_key(w, "warning"), json_str(w, c->warn[0] ? c->warn : NULL);
            json_obj_close(w);
        }
        json_arr_close(w);
        json_obj_close(w);
    }
    json_arr_close(w);
}

static void layers(json_writer *w, const cmp_doc *d)
{
    json_key(w, "layers");
    json_arr_open(w);
    for (int i = 0; i < d->n_rows; i++) {
        const cmp_row *row = &d->rows[i];
        double base_us = cmp_row_us(d, row, 0);
        json_obj_open(w);
        json_key(w, "name"), json_str(w, row->name);
        json_key(w, "op"), json_str(w, row->op);
        json_key(w, "unnamed"), json_bool(w, row->unnamed);
        json_key(w, "in_runs");
        json_arr_open(w);
        for (int k = 0; k < d->n; k++)
            if (row->runs & (1u << k))
                json_str(w, cmp_tag(k));
        json_arr_close(w);
        json_key(w, "runs");
        json_arr_open(w);
        for (int k = 0; k < d->n; k++) {
            int li = row->layer[k], ai = row->acc[k];
            if (li < 0 && ai < 0 && row->npu[k] < 0) {
                json_write_null(w);
                continue;
            }
            const cmp_run *r = &d->runs[k];
            double us = cmp_row_us(d, row, k);
            json_obj_open(w);
            json_key(w, "layer");
            if (li >= 0)
                json_int(w, r->layers[li].idx);
            else
                json_write_null(w);
            json_key(w, "us"), json_num(w, us);
            json_key(w, "delta_us"), json_num(w, k ? us - base_us : NAN);
            json_key(w, "host_us"), json_num(w, li >= 0 ? r->layers[li].host_us : NAN);
            json_key(w, "entire_cos"), json_num(w, ai >= 0 ? r->acc[ai].entire.cos : NAN);
            json_key(w, "entire_euc"), json_num(w, ai >= 0 ? r->acc[ai].entire.euc : NAN);
            json_key(w, "single_cos"), json_num(w, ai >= 0 ? r->acc[ai].single.cos : NAN);
            json_key(w, "single_euc"), json_num(w, ai >= 0 ? r->acc[ai].single.euc : NAN);
            json_obj_close(w);
        }
        json_arr_close(w);
        json_obj_close(w);
    }
    json_arr_close(w);
}

static void verdicts(json_writer *w, const cmp_doc *d)
{
    json_key(w, "verdicts");
    json_arr_open(w);
    for (int k = 1; k < d->n; k++) {
        char v[1024];
        cmp_verdict(d, k, v, sizeof(v));
        json_obj_open(w);
        json_key(w, "run"), json_int(w, d->runs[k].run.id);
        json_key(w, "tag"), json_str(w, cmp_tag(k));
        json_key(w, "matched"), json_int(w, d->matched[k]);
        json_key(w, "only_in_baseline"), json_int(w, d->only_base[k]);
        json_key(w, "only_in_run"), json_int(w, d->only_run[k]);
        json_key(w, "line"), json_str(w, v);
        json_obj_close(w);
    }
    json_arr_close(w);
}

static void glayer(json_writer *w, const compare_graph *g, int k, int i)
{
    if (i < 0) {
        json_write_null(w);
        return;
    }
    const compare_glayer *l = &g->gl[k][i];
    json_obj_open(w);
    json_key(w, "op"), json_str(w, l->op);
    json_key(w, "full_name"), json_str(w, l->full);
    json_key(w, "target"), json_str(w, l->target);
    json_key(w, "dtype"), json_str(w, l->dtype);
    json_key(w, "out_shapes"), json_str(w, l->out_shape);
    json_key(w, "in_shape"), json_str(w, l->in_shape[0] ? l->in_shape : NULL);
    json_obj_close(w);
}

static void graph(json_writer *w, const compare_graph *g)
{
    json_key(w, "graph");
    if (!g) {
        json_write_null(w);
        return;
    }
    json_obj_open(w);
    json_key(w, "aligned_by"), json_str(w, g->by_name ? "name" : "op_shape");
    json_key(w, "layers"), json_arr_open(w);
    for (int k = 0; k < 2; k++)
        json_int(w, g->n[k] - g->io[k]);
    json_arr_close(w);
    json_key(w, "io_operators"), json_arr_open(w);
    for (int k = 0; k < 2; k++)
        json_int(w, g->io[k] + g->io_rows[k]);
    json_arr_close(w);
    json_key(w, "equal"), json_int(w, g->n_equal);
    json_key(w, "differ"), json_int(w, g->n_differ);
    json_key(w, "only"), json_arr_open(w);
    json_int(w, g->n_only[0]);
    json_int(w, g->n_only[1]);
    json_arr_close(w);
    json_key(w, "pairs"), json_arr_open(w);
    for (int i = 0; i < g->n_pairs; i++) {
        const compare_gpair *p = &g->pairs[i];
        json_obj_open(w);
        json_key(w, "a"), glayer(w, g, 0, p->l[0]);
        json_key(w, "b"), glayer(w, g, 1, p->l[1]);
        json_key(w, "differ"), json_arr_open(w);
        for (int bit = 0; bit < 5; bit++)
            if (p->diff & (1 << bit))
                json_str(w, compare_graph_diff_name(1 << bit));
        json_arr_close(w);
        json_key(w, "note"), json_str(w, p->note[0] ? p->note : NULL);
        json_obj_close(w);
    }
    json_arr_close(w);
    json_obj_close(w);
}

static void gates(json_writer *w, const cmp_doc *d, const cmp_gates *g)
{
    json_key(w, "gates");
    json_arr_open(w);
    for (int k = 0; g && k < d->n && !isnan(g->fail_cos); k++) {
        json_obj_open(w);
        json_key(w, "gate"), json_str(w, "cos");
        json_key(w, "run"), json_int(w, d->runs[k].run.id);
        json_key(w, "threshold"), json_num(w, g->fail_cos);
        json_key(w, "value"), json_num(w, g->cos_value[k]);
        json_key(w, "failed"), json_bool(w, g->cos_failed[k]);
        json_obj_close(w);
    }
    for (int k = 1; g && k < d->n && !isnan(g->fail_slower); k++) {
        json_obj_open(w);
        json_key(w, "gate"), json_str(w, "slower");
        json_key(w, "by"), json_str(w, d->by_host ? "host" : "npu");
        json_key(w, "run"), json_int(w, d->runs[k].run.id);
        json_key(w, "threshold"), json_num(w, g->fail_slower);
        json_key(w, "value"), json_num(w, d->speed[k].slower_pct);
        json_key(w, "failed"), json_bool(w, g->slow_failed[k]);
        json_obj_close(w);
    }
    json_arr_close(w);
    json_key(w, "failed"), json_bool(w, g && g->failed);
}

void cmp_doc_json(const cmp_doc *d, const cmp_json_opts *o, json_writer *w)
{
    json_obj_open(w);
    json_key(w, "schema_version"), json_int(w, CMP_JSON_SCHEMA_VERSION);
    json_key(w, "kind"), json_str(w, "comparison");
    json_key(w, "by"), json_str(w, d->by_host ? "host" : "npu");
    json_key(w, "cos_threshold"), json_num(w, d->runs[0].sum.cos_threshold);
    json_key(w, "runs");
    json_arr_open(w);
    for (int k = 0; k < d->n; k++)
        run_obj(w, d, k);
    json_arr_close(w);
    outputs(w, d);
    layers(w, d);
    verdicts(w, d);
    graph(w, o->graph);
    gates(w, d, o->gates);
    json_obj_close(w);
}
