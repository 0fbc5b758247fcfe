/* analyze/accuracy.c — golden vs quantized, layer by layer (entire and single
 * error), as Toolkit2's accuracy_analysis does on its simulator. */
#include "analyze/analyze.h"
#include "dump/dump.h"
#include "runtime/exec/exec.h"
#include "runtime/quant/quant.h"
#include "util/escape.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void accuracy_opts_init(accuracy_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->type = QT_I8;
    o->algo = QA_NORMAL;
    o->method = QM_CHANNEL;
}

typedef struct ctx {
    graph_t *gf, *gq;
    quant_graph *q;
    float **golden;     /* per golden tensor index: copy of the fp32 values */
    int *q2f;           /* quantized tensor index -> golden tensor index (-1) */
    int *row_of;        /* golden tensor index -> report row (-1) */
    accuracy_report *r;
    dump_dir *dump;
    int mode;           /* 0 golden, 1 entire, 2 single, 3 golden of an eval sample */
    char err[512];
} ctx;

static int is_float_out(const graph_t *g, int t)
{
    return t >= 0 && g->t[t].dtype == DT_FLOAT && g->t[t].data && g->t[t].kind != TK_CONST;
}

static void add_row(ctx *c, int layer, const char *node, const char *op, int t)
{
    accuracy_report *r = c->r;
    r->rows = xrealloc(r->rows, sizeof(*r->rows) * (size_t)(r->n_rows + 1));
    accuracy_row *row = &r->rows[r->n_rows];
    memset(row, 0, sizeof(*row));
    row->layer = layer;
    row->node = xstrdup(node ? node : "");
    row->op = xstrdup(op);
    row->name = xstrdup(c->gf->t[t].name);
    row->entire.cos = row->single.cos = NAN;
    row->entire.euc = row->single.euc = NAN;
    row->entire.max_abs = row->single.max_abs = NAN;
    row->entire.mean_abs = row->single.mean_abs = NAN;
    row->entire.sqnr_db = row->single.sqnr_db = NAN;
    c->row_of[t] = r->n_rows++;
}

static int golden_hook(const layer_event_t *ev, void *user)
{
    ctx *c = user;
    const node_t *n = &c->gf->nodes[ev->node];
    for (int k = 0; k < n->n_out; k++) {
        int t = n->out[k];
        if (!is_float_out(c->gf, t))
            continue;
        size_t nb = tensor_nbytes(&c->gf->t[t]);
        if (c->mode == 3) { /* the rows exist: new values only */
            if (c->golden[t])
                memcpy(c->golden[t], c->gf->t[t].data, nb);
            continue;
        }
        c->golden[t] = xmalloc(nb ? nb : 1);
        memcpy(c->golden[t], c->gf->t[t].data, nb);
        add_row(c, ev->index, n->name, n->op, t);
        if (c->dump) {
            const tensor_t *x = &c->gf->t[t];
            int rc = dump_dir_add(c->dump, ev->index, n->name, n->op, x->name, x->dtype, x->ndim,
                                  x->dims, x->data, c->err, sizeof(c->err));
            if (rc)
                return rc;
        }
    }
    return 0;
}

static int quant_hook(const layer_event_t *ev, void *user)
{
    ctx *c = user;
    const node_t *n = &c->gq->nodes[ev->node];
    for (int k = 0; k < n->n_out; k++) {
        int t = n->out[k];
        if (!is_float_out(c->gq, t))
            continue;
        tensor_t *x = &c->gq->t[t];
        int ft = c->q2f[t], row = ft >= 0 ? c->row_of[ft] : -1;
        int64_t cnt = tensor_numel(x);
        if (c->mode == 1) {
            quant_graph_output(c->q, t, x->data);
            if (row >= 0) {
                metrics_compute(c->golden[ft], x->data, cnt, &c->r->rows[row].entire);
                c->r->rows[row].fused = c->q->fused[t];
            }
            if (c->dump) {
                int rc = dump_dir_add(c->dump, ev->index, n->name, n->op, x->name, x->dtype,
                                      x->ndim, x->dims, x->data, c->err, sizeof(c->err));
                if (rc)
                    return rc;
            }
        } else {
            if (row < 0 || tensor_numel(&c->gf->t[ft]) != cnt)
                continue;
            quant_graph_output(c->q, t, x->data);
            metrics_compute(c->golden[ft], x->data, cnt, &c->r->rows[row].single);
            /* The next layers read this layer's golden value, quantized. */
            memcpy(x->data, c->golden[ft], sizeof(float) * (size_t)cnt);
            quant_graph_output(c->q, t, x->data);
        }
    }
    return 0;
}

static int set_inputs(graph_t *g, exec_t *x, const void *const *inputs, quant_graph *q,
                      char *err, size_t errlen)
{
    for (int j = 0; j < g->n_inputs; j++) {
        tensor_t *t = &g->t[g->inputs[j]];
        size_t nb = tensor_nbytes(t);
        float *buf = xmalloc(nb ? nb : 1);
        memcpy(buf, inputs[j], nb);
        if (q && t->dtype == DT_FLOAT)
            quant_graph_output(q, g->inputs[j], buf);
        int rc = exec_set_input(x, j, buf, nb, err, errlen);
        free(buf);
        if (rc)
            return rc;
    }
    return RT_OK;
}

/* The input rows: each input's own quantization. */
static void input_rows(ctx *c, const void *const *inputs)
{
    for (int j = 0; j < c->gq->n_inputs; j++) {
        int t = c->gq->inputs[j], ft = c->q2f[t];
        if (ft < 0 || c->row_of[ft] < 0)
            continue;
        int64_t cnt = tensor_numel(&c->gq->t[t]);
        float *buf = xmalloc(sizeof(float) * (size_t)(cnt ? cnt : 1)); /* rows: float inputs */
        memcpy(buf, inputs[j], sizeof(float) * (size_t)cnt);
        quant_graph_output(c->q, t, buf);
        metrics_compute(c->golden[ft], buf, cnt, &c->r->rows[c->row_of[ft]].entire);
        c->r->rows[c->row_of[ft]].single = c->r->rows[c->row_of[ft]].entire;
        free(buf);
    }
}

void eval_stat_init(eval_stat *s)
{
    s->min = s->mean = s->max = NAN;
    s->sum = 0;
    s->n = 0;
    s->worst = -1;
}

void eval_stat_add(eval_stat *s, double v, int sample, int lower_worse)
{
    if (isnan(v))
        return;
    int worse = !s->n || (lower_worse ? v < s->min : v > s->max); /* ties: the first */
    if (!s->n || v < s->min)
        s->min = v;
    if (!s->n || v > s->max)
        s->max = v;
    if (worse)
        s->worst = sample;
    s->sum += v;
    s->n++;
    s->mean = s->sum / s->n;
}

/* Every sample of the evaluation list: golden, entire and single runs as for
 * the analysed input, each row's metrics gathered into r->eval. The rows keep
 * the analysed input's metrics. */
static int eval_samples(ctx *c, exec_t *xf, exec_t *xq, const quant_dataset *ev, char *err,
                        size_t errlen)
{
    accuracy_report *r = c->r;
    int n_in = c->gf->n_inputs, rc = RT_OK;
    float **bufs = xcalloc((size_t)(n_in ? n_in : 1), sizeof(*bufs));
    accuracy_row *saved = xmalloc(sizeof(*saved) * (size_t)(r->n_rows ? r->n_rows : 1));

    memcpy(saved, r->rows, sizeof(*saved) * (size_t)r->n_rows);
    for (int j = 0; j < n_in; j++) {
        size_t nb = tensor_nbytes(&c->gf->t[c->gf->inputs[j]]);
        bufs[j] = xmalloc(nb ? nb : 1);
    }
    r->n_eval = ev->n_samples;
    r->eval = xmalloc(sizeof(*r->eval) * (size_t)(r->n_rows ? r->n_rows : 1));
    r->eval_files = xcalloc((size_t)ev->n_samples, sizeof(char *));
    r->eval_sample_cos = xmalloc(sizeof(double) * (size_t)ev->n_samples);
    r->eval_worst = -1;
    for (int i = 0; i < r->n_rows; i++) {
        eval_stat_init(&r->eval[i].cos);
        eval_stat_init(&r->eval[i].euc);
        eval_stat_init(&r->eval[i].sqnr);
        eval_stat_init(&r->eval[i].single_cos);
    }
    for (int s = 0; s < ev->n_samples; s++) {
        r->eval_files[s] = xstrdup(ev->files[s * ev->n_inputs]);
        if ((rc = quant_dataset_sample(ev, s, c->gf, bufs, err, errlen)))
            goto out;
        for (int j = 0; j < n_in; j++)
            memcpy(c->golden[c->gf->inputs[j]], bufs[j],
                   tensor_nbytes(&c->gf->t[c->gf->inputs[j]]));
        c->mode = 3;
        if ((rc = set_inputs(c->gf, xf, (const void *const *)bufs, NULL, err, errlen)) ||
            (rc = exec_run(xf, golden_hook, c, err, errlen)))
            goto hook;
        input_rows(c, (const void *const *)bufs);
        c->mode = 1;
        if ((rc = set_inputs(c->gq, xq, (const void *const *)bufs, c->q, err, errlen)) ||
            (rc = exec_run(xq, quant_hook, c, err, errlen)))
            goto hook;
        c->mode = 2;
        if ((rc = set_inputs(c->gq, xq, (const void *const *)bufs, c->q, err, errlen)) ||
            (rc = exec_run(xq, quant_hook, c, err, errlen)))
            goto hook;
        for (int i = 0; i < r->n_rows; i++) {
            const accuracy_row *row = &r->rows[i];
            eval_stat_add(&r->eval[i].cos, row->entire.cos, s, 1);
            eval_stat_add(&r->eval[i].euc, row->entire.euc, s, 0);
            eval_stat_add(&r->eval[i].sqnr, row->entire.sqnr_db, s, 1);
            eval_stat_add(&r->eval[i].single_cos, row->single.cos, s, 1);
        }
        double low = NAN;
        for (int k = 0; k < c->gf->n_outputs; k++) {
            int row = c->row_of[c->gf->outputs[k]];
            double v = row >= 0 ? r->rows[row].entire.cos : NAN;
            if (!isnan(v) && (isnan(low) || v < low))
                low = v;
        }
        r->eval_sample_cos[s] = low;
        if (!isnan(low) && (r->eval_worst < 0 || low < r->eval_sample_cos[r->eval_worst]))
            r->eval_worst = s;
    }
    goto out;
hook:
    if (c->err[0])
        rt_err(err, errlen, rc, "%s", c->err);
out:
    if (rc) {
        char msg[768];
        snprintf(msg, sizeof(msg), "%s", err);
        rt_err(err, errlen, rc, "--eval %s: %s", r->eval_path, msg);
    }
    memcpy(r->rows, saved, sizeof(*saved) * (size_t)r->n_rows);
    free(saved);
    for (int j = 0; j < n_in; j++)
        free(bufs[j]);
    free(bufs);
    return rc;
}

int accuracy_run(const char *model_path, const input_shape_t *shapes, int n_shapes,
                 const void *const *inputs, const accuracy_opts *o, accuracy_report **out,
                 char *err, size_t errlen)
{
    ctx c = {0};
    accuracy_report *r = xcalloc(1, sizeof(*r));
    exec_t *xf = NULL, *xq = NULL;
    quant_dataset ds = {0}, ev = {0};
    float **own = NULL;         /* the first eval sample when no input was given */
    quant_cfg cfg = {0};
    quant_prequant pq = {0}, pq2 = {0};
    int prequant = 0;
    qparam_t *act_f = NULL, *act_q = NULL;
    uint8_t *has_f = NULL, *has_q = NULL;
    exec_opts eo = {.nthreads = o->nthreads, .max_memory = o->max_memory};
    int rc;
    double t0;

    *out = NULL;
    c.r = r;
    r->model = xstrdup(model_path);
    r->type = o->type;
    r->algo = o->algo;
    r->method = o->method;
    if (o->type != QT_I8 && o->type != QT_FP16) {
        rc = rt_err(err, errlen, RT_EINVAL, "accuracy analysis needs -q i8 or fp16");
        goto out;
    }
    rc = model_load_file(model_path, &c.gf, err, errlen);
    if (rc)
        goto out;
    if (o->resize_static)
        graph_free_static_inputs(c.gf);
    /* a pre-quantized model: the golden is its dequantized graph */
    const char *qop;
    prequant = quant_prequant_detect(c.gf, &qop);
    if (prequant == QP_QOPERATOR) {
        rc = rt_err(err, errlen, RT_EUNSUPPORTED, "%s: QOperator model (%s): -q %s takes QDQ "
                    "models (QuantizeLinear/DequantizeLinear pairs); run this one with -q fp32",
                    model_path, qop, quant_type_name(o->type));
        goto out;
    }
    if (prequant == QP_QDQ && (rc = quant_prequant_strip(c.gf, &pq, err, errlen)))
        goto out;
    rc = passes_prepare(c.gf, shapes, n_shapes, err, errlen);
    if (rc)
        goto out;
    if (o->eval) {
        r->eval_path = xstrdup(o->eval);
        rc = quant_dataset_load(o->eval, c.gf->n_inputs, &ev, err, errlen);
        if (rc) {
            char msg[768];
            snprintf(msg, sizeof(msg), "%s", err);
            rt_err(err, errlen, rc, "--eval: %s", msg);
            goto out;
        }
        if (o->preproc)
            ev.pp = *o->preproc;
        if (!inputs) {
            own = xcalloc((size_t)(c.gf->n_inputs ? c.gf->n_inputs : 1), sizeof(*own));
            for (int j = 0; j < c.gf->n_inputs; j++)
                own[j] = xmalloc(tensor_nbytes(&c.gf->t[c.gf->inputs[j]]) + 1);
            rc = quant_dataset_sample(&ev, 0, c.gf, own, err, errlen);
            if (rc) {
                char msg[768];
                snprintf(msg, sizeof(msg), "%s", err);
                rt_err(err, errlen, rc, "--eval %s: %s", o->eval, msg);
                goto out;
            }
            inputs = (const void *const *)own;
        }
    }
    if (!inputs) {
        rc = rt_err(err, errlen, RT_EINVAL, "accuracy analysis: no input");
        goto out;
    }
    rc = exec_create(c.gf, &eo, &xf, err, errlen);
    if (rc)
        goto out;

    /* Calibration (int8 only). */
    if (o->type == QT_I8 && !(pq.n_act && !o->dataset)) {
        if (o->dataset) {
            rc = quant_dataset_load(o->dataset, c.gf->n_inputs, &ds, err, errlen);
            if (rc)
                goto out;
            if (o->preproc)
                ds.pp = *o->preproc;
        }
        t0 = rt_now_us();
        rc = quant_calibrate(c.gf, xf, o->algo, o->dataset ? &ds : NULL, inputs, o->progress,
                             &act_f, &has_f, &r->n_samples, err, errlen);
        r->calib_us = rt_now_us() - t0;
        if (rc)
            goto out;
    }

    /* Golden run. */
    c.golden = xcalloc((size_t)c.gf->n_t, sizeof(float *));
    c.row_of = xmalloc(sizeof(int) * (size_t)c.gf->n_t);
    for (int t = 0; t < c.gf->n_t; t++)
        c.row_of[t] = -1;
    if (o->dump_golden) {
        rc = dump_dir_open(o->dump_golden, &c.dump, err, errlen);
        if (rc)
            goto out;
    }
    for (int j = 0; j < c.gf->n_inputs; j++) {
        int t = c.gf->inputs[j];
        size_t nb = tensor_nbytes(&c.gf->t[t]);
        c.golden[t] = xmalloc(nb ? nb : 1);
        memcpy(c.golden[t], inputs[j], nb);
        if (c.gf->t[t].dtype == DT_FLOAT) /* token ids, masks: never quantized, no row */
            add_row(&c, -1, NULL, "Input", t);
        if (c.dump) {
            const tensor_t *x = &c.gf->t[t];
            rc = dump_dir_add(c.dump, -1, NULL, NULL, x->name, x->dtype, x->ndim, x->dims,
                              inputs[j], err, errlen);
            if (rc)
                goto out;
        }
    }
    rc = set_inputs(c.gf, xf, inputs, NULL, err, errlen);
    if (rc)
        goto out;
    t0 = rt_now_us();
    c.mode = 0;
    rc = exec_run(xf, golden_hook, &c, err, errlen);
    r->golden_us = rt_now_us() - t0;
    if (rc)
        goto fail_hook;
    if (c.dump) {
        rc = dump_dir_close(c.dump, err, errlen);
        c.dump = NULL;
        if (rc)
            goto out;
    }
    if (!o->eval) {
        exec_free(xf); /* the golden values are copied: free the arena */
        xf = NULL;
    }

    /* The quantized graph: its own instance of the model. */
    rc = model_load_file(model_path, &c.gq, err, errlen);
    if (!rc && o->resize_static)
        graph_free_static_inputs(c.gq);
    if (!rc && prequant == QP_QDQ)
        rc = quant_prequant_strip(c.gq, &pq2, err, errlen);
    if (rc)
        goto out;
    if (o->hybrid) {
        if (o->type != QT_I8) {
            rc = rt_err(err, errlen, RT_EINVAL, "--hybrid needs -q i8");
            goto out;
        }
        if (o->hybrid_text) {
            rc = quant_cfg_parse(o->hybrid_text, o->hybrid_len, &cfg, err, errlen);
            if (rc) {
                char msg[512];
                snprintf(msg, sizeof(msg), "%s", err);
                rt_err(err, errlen, rc, "%s: %s", o->hybrid, msg);
            }
        } else {
            rc = quant_cfg_load(o->hybrid, &cfg, err, errlen);
        }
        if (rc)
            goto out;
        /* every name must be a tensor of the model, as it was loaded and
         * its BatchNormalizations folded (quant_graph_new folds them: the
         * folded weights are named in the cfg this tool writes) */
        passes_widen_fp16(c.gq);
        passes_fold_batchnorm(c.gq);
        for (int k = 0; k < cfg.n_params; k++)
            if (graph_find_tensor(c.gq, cfg.params[k].name) < 0) {
                rc = rt_err(err, errlen, RT_EFORMAT, "%s: quantize_parameters names '%s', which "
                            "is no tensor of the model", o->hybrid, cfg.params[k].name);
                goto out;
            }
    }
    rc = quant_graph_new_hybrid(c.gq, o->type, o->method, o->hybrid ? &cfg : NULL, &c.q, err,
                                errlen);
    if (rc) {
        if (o->hybrid) {
            char msg[512];
            snprintf(msg, sizeof(msg), "%s", err);
            rt_err(err, errlen, rc, "%s: %s", o->hybrid, msg);
        }
        goto out;
    }
    r->n_fp16_nodes = c.q->n_fp16_nodes;
    quant_prequant_weights(&pq, c.q);
    rc = passes_prepare(c.gq, shapes, n_shapes, err, errlen);
    if (rc)
        goto out;
    c.q2f = xmalloc(sizeof(int) * (size_t)c.gq->n_t);
    act_q = xcalloc((size_t)c.gq->n_t, sizeof(*act_q));
    has_q = xcalloc((size_t)c.gq->n_t, 1);
    for (int t = 0; t < c.gq->n_t; t++) {
        /* Same file, same passes: the indices agree; names decide otherwise. */
        int ft = t < c.gf->n_t && !strcmp(c.gf->t[t].name, c.gq->t[t].name)
                     ? t : graph_find_tensor(c.gf, c.gq->t[t].name);
        c.q2f[t] = ft;
        if (ft >= 0 && has_f && has_f[ft]) {
            act_q[t] = act_f[ft];
            has_q[t] = QP_HAS_CALIB;
        }
    }
    /* the model's own parameters; without a dataset the rest stays float */
    if (o->type == QT_I8 && prequant == QP_QDQ)
        quant_prequant_acts(&pq, c.gq, act_q, has_q, act_f != NULL);
    /* fixed activation parameters from the hybrid file */
    for (int k = 0; k < cfg.n_params; k++) {
        qparam_t p;
        int t = graph_find_tensor(c.gq, cfg.params[k].name);
        if (t < 0 || (!has_q[t] && (!pq.n_act || c.gq->t[t].dtype != DT_FLOAT ||
                                    c.gq->t[t].kind == TK_CONST)) ||
            quant_cfg_param_get(&cfg.params[k], &p))
            continue;
        act_q[t] = p;
        if (!has_q[t])
            has_q[t] = QP_HAS_CALIB; /* a grid the model gave stays the model's */
        r->n_cfg_params++;
    }
    rc = quant_graph_finish(c.q, act_q, has_q, err, errlen);
    if (rc)
        goto out;
    if (o->write_cfg) {
        rc = quant_cfg_write(c.q, o->write_cfg, err, errlen);
        if (rc)
            goto out;
    }
    r->n_int8_nodes = c.q->n_int8_nodes;
    rc = exec_create(c.gq, &eo, &xq, err, errlen);
    if (rc)
        goto out;

    /* Input rows: the input's own quantization. */
    input_rows(&c, inputs);

    /* Entire run. */
    if (o->dump_quant) {
        rc = dump_dir_open(o->dump_quant, &c.dump, err, errlen);
        if (rc)
            goto out;
        for (int j = 0; j < c.gq->n_inputs; j++) {
            const tensor_t *x = &c.gq->t[c.gq->inputs[j]];
            size_t nb = tensor_nbytes(x);
            float *buf = xmalloc(nb ? nb : 1);
            memcpy(buf, inputs[j], nb);
            if (x->dtype == DT_FLOAT)
                quant_graph_output(c.q, c.gq->inputs[j], buf);
            rc = dump_dir_add(c.dump, -1, NULL, NULL, x->name, x->dtype, x->ndim, x->dims, buf,
                              err, errlen);
            free(buf);
            if (rc)
                goto out;
        }
    }
    rc = set_inputs(c.gq, xq, inputs, c.q, err, errlen);
    if (rc)
        goto out;
    c.mode = 1;
    t0 = rt_now_us();
    rc = exec_run(xq, quant_hook, &c, err, errlen);
    r->quant_us = rt_now_us() - t0;
    if (rc)
        goto fail_hook;
    if (c.dump) {
        rc = dump_dir_close(c.dump, err, errlen);
        c.dump = NULL;
        if (rc)
            goto out;
    }

    /* Single run. */
    rc = set_inputs(c.gq, xq, inputs, c.q, err, errlen);
    if (rc)
        goto out;
    c.mode = 2;
    rc = exec_run(xq, quant_hook, &c, err, errlen);
    if (rc)
        goto fail_hook;

    r->n_outputs = c.gf->n_outputs;
    r->output_rows = xmalloc(sizeof(int) * (size_t)(r->n_outputs ? r->n_outputs : 1));
    for (int k = 0; k < r->n_outputs; k++)
        r->output_rows[k] = c.row_of[c.gf->outputs[k]];
    if (o->eval && (rc = eval_samples(&c, xf, xq, &ev, err, errlen)))
        goto out;
    if (o->keep_graph) {
        r->qgraph = c.gq;
        r->qg = c.q;
        c.gq = NULL;
        c.q = NULL;
    }
    *out = r;
    r = NULL;
    goto out;

fail_hook:
    if (c.err[0])
        rt_err(err, errlen, rc, "%s", c.err);
out:
    if (c.dump)
        dump_dir_discard(c.dump);
    exec_free(xf);
    exec_free(xq);
    if (c.golden)
        for (int t = 0; t < c.gf->n_t; t++)
            free(c.golden[t]);
    free(c.golden);
    free(c.row_of);
    free(c.q2f);
    quant_graph_free(c.q);
    graph_free(c.gq);
    graph_free(c.gf);
    quant_dataset_free(&ds);
    for (int j = 0; own && j < ev.n_inputs; j++)
        free(own[j]);
    free(own);
    quant_dataset_free(&ev);
    quant_cfg_free(&cfg);
    quant_prequant_free(&pq);
    quant_prequant_free(&pq2);
    free(act_f);
    free(has_f);
    free(act_q);
    free(has_q);
    accuracy_report_free(r);
    return rc;
}

void accuracy_report_free(accuracy_report *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n_rows; i++) {
        free(r->rows[i].node);
        free(r->rows[i].op);
        free(r->rows[i].name);
    }
    free(r->rows);
    free(r->output_rows);
    free(r->model);
    for (int s = 0; r->eval_files && s < r->n_eval; s++)
        free(r->eval_files[s]);
    free(r->eval_files);
    free(r->eval);
    free(r->eval_sample_cos);
    free(r->eval_path);
    quant_graph_free(r->qg);
    graph_free(r->qgraph);
    free(r);
}

/* The report's rows as store rows (strings borrowed), so that a fresh report
 * and a stored run print through the same code. */
store_accuracy *accuracy_store_rows(const accuracy_report *r)
{
    store_accuracy *v = xcalloc((size_t)(r->n_rows ? r->n_rows : 1), sizeof(*v));
    for (int i = 0; i < r->n_rows; i++) {
        const accuracy_row *row = &r->rows[i];
        store_accuracy_init(&v[i]);
        v[i].idx = i;
        v[i].layer = row->layer;
        v[i].name = row->name;
        v[i].op = row->op;
        v[i].node = row->node && row->node[0] ? row->node : NULL;
        v[i].fused = row->fused;
        v[i].entire = row->entire;
        v[i].single = row->single;
    }
    for (int k = 0; k < r->n_outputs; k++)
        if (r->output_rows[k] >= 0)
            v[r->output_rows[k]].is_output = 1;
    return v;
}

static int rows_first_below(const store_accuracy *v, int n, double thr)
{
    for (int i = 0; i < n; i++)
        if (!isnan(v[i].entire.cos) && v[i].entire.cos < thr)
            return i;
    return -1;
}

static int rows_worst_single(const store_accuracy *v, int n)
{
    int w = -1;
    for (int i = 0; i < n; i++) {
        double c = v[i].single.cos;
        if (!isnan(c) && (w < 0 || c < v[w].single.cos))
            w = i;
    }
    return w;
}

int accuracy_first_below(const accuracy_report *r, double threshold)
{
    for (int i = 0; i < r->n_rows; i++)
        if (!isnan(r->rows[i].entire.cos) && r->rows[i].entire.cos < threshold)
            return i;
    return -1;
}

int accuracy_worst_single(const accuracy_report *r)
{
    int w = -1;
    for (int i = 0; i < r->n_rows; i++) {
        double c = r->rows[i].single.cos;
        if (!isnan(c) && (w < 0 || c < r->rows[w].single.cos))
            w = i;
    }
    return w;
}

static const char *cos_color(double c, double thr, int color)
{
    static const char *const by_grade[] = { "\033[32m", "\033[33m", "\033[31m", "\033[35m" };
    return color ? by_grade[metrics_cos_grade(c, thr)] : "";
}

static const char *fmt_sqnr(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "nan");
    else if (isinf(v))
        snprintf(buf, len, "%sinf", v < 0 ? "-" : "");
    else
        snprintf(buf, len, "%.2f", v);
    return buf;
}

/* A value missing from a row (an imported log that did not print it) is
 * "n/a"; "nan" is kept for what the metrics define as NaN: cos and SQNR of a
 * constant tensor, any metric of one that is not finite (flags METRIC_*). */
static const char *cell_cos(double v, int flags, char *buf, size_t len)
{
    if (isnan(v) && !(flags & (METRIC_REF_CONST | METRIC_X_CONST | METRIC_NONFINITE))) {
        snprintf(buf, len, "n/a");
        return buf;
    }
    return metrics_fmt_cos(v, buf, len);
}

static const char *cell_dist(double v, int flags, char *buf, size_t len)
{
    if (isnan(v) && !(flags & METRIC_NONFINITE)) {
        snprintf(buf, len, "n/a");
        return buf;
    }
    return metrics_fmt_euc(v, buf, len);
}

static const char *cell_sqnr(double v, int flags, char *buf, size_t len)
{
    if (isnan(v) && !(flags & (METRIC_REF_CONST | METRIC_X_CONST | METRIC_NONFINITE))) {
        snprintf(buf, len, "n/a");
        return buf;
    }
    return fmt_sqnr(v, buf, len);
}

/* A stored name on a terminal line (util/escape.h). */
static const char *tt(const char *s)
{
    return esc_tmp(ESC_TERM, s);
}

void accuracy_print_stored(const store_accuracy *v, int n, FILE *f, double thr, int color,
                           int board)
{
    int w = 24;
    char label[512], a[32], b[32], d[32], e[32], m[32], s[32];
    const char *rs = color ? "\033[0m" : "";

    for (int i = 0; i < n; i++) {
        int l = (int)strlen(tt(v[i].op ? v[i].op : "-")) + (int)strlen(tt(v[i].name)) + 3;
        if (l > w)
            w = l < 120 ? l : 120;
    }
    /* an imported board half (Toolkit2's runtime_error columns: entire, single_sim) */
    if (board)
        fputs("# entire: error of each layer between 'golden' (fp32) and the board's runtime, "
              "accumulated layer by layer.\n"
              "# single: the board's layer against the simulator's, fed the same inputs "
              "(Toolkit2's single_sim).\n", f);
    else
        fputs("# entire: error of each layer between 'golden' (fp32) and the quantized simulation, "
              "accumulated layer by layer.\n"
              "# single: error of the layer alone, fed with the golden inputs.\n", f);
    fputs("# ('nan': the tensor is constant (all zeros or all equal) or not finite; 'n/a': "
          "not given (a log that did not print it); '-': fused into the next activation, not "
          "quantized itself)\n\n", f);
    fprintf(f, "%-*s %-26s %-26s %-12s %s\n", w, "layer_name", "         entire", "         single",
            "max_abs", "sqnr_db");
    fprintf(f, "%-*s %-26s %-26s\n", w, "", "    cos      euc", "    cos      euc");
    for (int i = 0; i < w + 70; i++)
        fputc('-', f);
    fputc('\n', f);
    for (int i = 0; i < n; i++) {
        const store_accuracy *row = &v[i];
        snprintf(label, sizeof(label), "[%s] %s%s", tt(row->op ? row->op : "-"), tt(row->name),
                 row->fused ? " -" : "");
        cell_cos(row->entire.cos, row->entire.flags, a, sizeof(a));
        cell_dist(row->entire.euc, row->entire.flags, b, sizeof(b));
        cell_cos(row->single.cos, row->single.flags, d, sizeof(d));
        cell_dist(row->single.euc, row->single.flags, e, sizeof(e));
        cell_dist(row->entire.max_abs, row->entire.flags, m, sizeof(m));
        fprintf(f, "%-*s %s%-8s%s | %-12s  %s%-8s%s | %-12s  %-12s %s\n", w, label,
                cos_color(row->entire.cos, thr, color), a, rs, b,
                cos_color(row->single.cos, thr, color), d, rs, e, m,
                cell_sqnr(row->entire.sqnr_db, row->entire.flags, s, sizeof(s)));
    }
    fputc('\n', f);
    int fb = rows_first_below(v, n, thr), ws = rows_worst_single(v, n);
    if (fb >= 0)
        fprintf(f, "first layer with entire cos < %g: [%s] %s  (cos %.5f, layer %lld)\n", thr,
                tt(v[fb].op ? v[fb].op : "-"), tt(v[fb].name), v[fb].entire.cos, (long long)v[fb].layer);
    else
        fprintf(f, "every layer keeps entire cos >= %g\n", thr);
    if (ws >= 0)
        fprintf(f, "worst single-layer error: [%s] %s  (single cos %.5f, euc %s)\n",
                tt(v[ws].op ? v[ws].op : "-"), tt(v[ws].name), v[ws].single.cos,
                cell_dist(v[ws].single.euc, v[ws].single.flags, e, sizeof(e)));
    for (int i = 0; i < n; i++) {
        if (!v[i].is_output)
            continue;
        const metrics_t *me = &v[i].entire;
        fprintf(f, "output %s: cos %s  euc %s  max_abs %s  mean_abs %s  sqnr %s%s\n",
                tt(v[i].name), cell_cos(me->cos, me->flags, a, sizeof(a)),
                cell_dist(me->euc, me->flags, b, sizeof(b)),
                cell_dist(me->max_abs, me->flags, m, sizeof(m)),
                isnan(me->mean_abs) && !(me->flags & METRIC_NONFINITE) ? "n/a"
                    : (snprintf(d, sizeof(d), "%.6g", me->mean_abs), d),
                cell_sqnr(me->sqnr_db, me->flags, s, sizeof(s)), isnan(me->sqnr_db) ? "" : " dB");
    }
}


/* SQNR +inf (identical tensors) is the string "inf": JSON has no infinity. */
static void json_metrics(json_writer *w, const char *key, const metrics_t *m)
{
    json_key(w, key);
    json_obj_open(w);
    json_key(w, "cos"), json_num(w, m->cos);
    json_key(w, "euc"), json_num(w, m->euc);
    json_key(w, "max_abs"), json_num(w, m->max_abs);
    json_key(w, "mean_abs"), json_num(w, m->mean_abs);
    json_key(w, "sqnr_db");
    if (isinf(m->sqnr_db))
        json_str(w, m->sqnr_db > 0 ? "inf" : "-inf");
    else
        json_num(w, m->sqnr_db);
    json_obj_close(w);
}

void accuracy_json_stored(const store_accuracy *v, int n, json_writer *w)
{
    json_arr_open(w);
    for (int i = 0; i < n; i++) {
        const store_accuracy *row = &v[i];
        json_obj_open(w);
        json_key_int(w, "layer", row->layer, STORE_NULL_INT);
        json_key(w, "node"), json_str(w, row->node);
        json_key(w, "op"), json_str(w, row->op);
        json_key(w, "name"), json_str(w, row->name);
        json_key(w, "fused"), json_bool(w, row->fused);
        json_key(w, "output"), json_bool(w, row->is_output);
        json_metrics(w, "entire", &row->entire);
        json_metrics(w, "single", &row->single);
        json_obj_close(w);
    }
    json_arr_close(w);
}

void accuracy_json_outputs(const store_accuracy *v, int n, json_writer *w)
{
    json_arr_open(w);
    for (int i = 0; i < n; i++) {
        if (!v[i].is_output)
            continue;
        json_obj_open(w);
        json_key(w, "name"), json_str(w, v[i].name);
        json_metrics(w, "entire", &v[i].entire);
        json_obj_close(w);
    }
    json_arr_close(w);
}

