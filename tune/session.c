/* tune/session.c — the tune session: golden outputs of every evaluation
 * sample, calibrations per algorithm, and one configuration's score and
 * predicted frame (tune.h). */
#include "tune/tune.h"
#include "analyze/analyze.h"
#include "dump/dump.h"
#include "runtime/exec/exec.h"
#include "runtime/quant/quant.h"
#include "util/util.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct tune_session {
    tune_opts o;
    graph_t *gf;
    exec_t *xf;
    quant_dataset calib, ev;
    quant_preproc pp;
    int ns, n_in, n_out;
    input_shape_t *shapes;    /* dynamic inputs fixed by the first evaluation sample */
    int n_shapes;
    float ***in;          /* [sample][input] */
    float ***golden;      /* [sample][output] */
    int64_t *out_n;
    qparam_t *act[3];
    uint8_t *has[3];
    tune_cand *cand;
    int n_cand;
};

int tune_n_samples(const tune_session *s) { return s->ns; }
int tune_n_cands(const tune_session *s) { return s->n_cand; }
const tune_opts *tune_options(const tune_session *s) { return &s->o; }
tune_cand *tune_cands(tune_session *s) { return s->cand; }

static int calibrated(tune_session *s, int algo, char *err, size_t errlen)
{
    if (s->act[algo])
        return RT_OK;
    return quant_calibrate(s->gf, s->xf, algo, &s->calib, NULL, 0, &s->act[algo], &s->has[algo],
                           NULL, err, errlen);
}

/* One configuration's graph, prepared and ready to run. */
typedef struct built {
    graph_t *g;
    quant_graph *q;
    exec_t *x;
    volatile sig_atomic_t *stop;
} built;

static void built_free(built *b)
{
    exec_free(b->x);
    quant_graph_free(b->q);
    graph_free(b->g);
    memset(b, 0, sizeof(*b));
}

static int build(tune_session *s, int algo, int method, char **names, int n,
                 const char *write_cfg, int nthreads, built *b, char *err, size_t errlen)
{
    quant_cfg cfg = {.n_fp16 = n, .fp16 = names};
    qparam_t *act = NULL;
    uint8_t *has = NULL;
    exec_opts eo = {.nthreads = nthreads};
    int rc;

    memset(b, 0, sizeof(*b));
    b->stop = s->o.stop;
    if ((rc = calibrated(s, algo, err, errlen)) ||
        (rc = model_load_file(s->o.model, &b->g, err, errlen)) ||
        (rc = quant_graph_new_hybrid(b->g, QT_I8, method, n ? &cfg : NULL, &b->q, err, errlen)) ||
        (rc = passes_prepare(b->g, s->shapes, s->n_shapes, err, errlen)))
        goto out;
    act = xcalloc((size_t)b->g->n_t + 1, sizeof(*act));
    has = xcalloc((size_t)b->g->n_t + 1, 1);
    for (int t = 0; t < b->g->n_t; t++) {
        int ft = t < s->gf->n_t && !strcmp(s->gf->t[t].name, b->g->t[t].name)
                     ? t : graph_find_tensor(s->gf, b->g->t[t].name);
        if (ft >= 0 && s->has[algo][ft]) {
            act[t] = s->act[algo][ft];
            has[t] = QP_HAS_CALIB;
        }
    }
    if ((rc = quant_graph_finish(b->q, act, has, err, errlen)) ||
        (write_cfg && (rc = quant_cfg_write(b->q, write_cfg, err, errlen))) ||
        (rc = exec_create(b->g, &eo, &b->x, err, errlen)))
        goto out;
out:
    free(act);
    free(has);
    if (rc)
        built_free(b);
    return rc;
}

/* Sample k's inputs, as the quantized graph takes them, into b's executor. */
static int set_quant_inputs(const tune_session *s, const built *b, int k, char *err, size_t errlen)
{
    int rc = RT_OK;
    for (int j = 0; j < s->n_in && !rc; j++) {
        int t = b->g->inputs[j];
        size_t nb = tensor_nbytes(&b->g->t[t]);
        float *buf = xmalloc(nb + 1);
        memcpy(buf, s->in[k][j], nb);
        quant_graph_output(b->q, t, buf);
        rc = exec_set_input(b->x, j, buf, nb, err, errlen);
        free(buf);
    }
    return rc;
}

static int is_float_out(const graph_t *g, int t)
{
    return t >= 0 && g->t[t].dtype == DT_FLOAT && g->t[t].data && g->t[t].kind != TK_CONST;
}

static double score_of(int metric, const metrics_t *m)
{
    if (metric == TUNE_ATOL)
        return isnan(m->max_abs) ? INFINITY : m->max_abs;
    double v = metric == TUNE_COS ? m->cos : m->sqnr_db;
    return isnan(v) ? -INFINITY : v;
}

/* a worse than b in the metric's direction */
static int worse(int metric, double a, double b)
{
    return metric == TUNE_ATOL ? a > b : a < b;
}

int tune_better(const tune_session *s, const tune_point *a, const tune_point *b)
{
    if (a->meets != b->meets)
        return a->meets;
    if (a->worst != b->worst)
        return worse(s->o.metric, b->worst, a->worst);
    return worse(s->o.metric, b->mean, a->mean);
}

/* Every output tensor of p's fp16 candidates (borrowed), malloc'd array. */
static char **cand_names(const tune_session *s, const tune_point *p, int *n)
{
    int total = 0;
    for (int i = 0; i < p->n_fp16; i++)
        total += s->cand[p->fp16[i]].n_names;
    char **v = xcalloc((size_t)total + 1, sizeof(char *));
    *n = 0;
    for (int i = 0; i < p->n_fp16; i++)
        for (int k = 0; k < s->cand[p->fp16[i]].n_names; k++)
            v[(*n)++] = s->cand[p->fp16[i]].names[k];
    return v;
}

/* One sample's score: its worst output. */
static int eval_sample(tune_session *s, built *b, int k, double *score, char *err, size_t errlen)
{
    int metric = s->o.metric, rc;
    /* a run without a layer hook, as `run -q i8` makes it (fused convs and
     * their chains' tables): the outputs of a run node by node, bit for bit
     * (none differed over 3,000 sample runs of YOLOX-Nano and PP-OCR cls
     * searches); a stop request is taken between samples */
    if (s->o.stop && *s->o.stop)
        return rt_err(err, errlen, RT_EINVAL, "interrupted");
    if ((rc = set_quant_inputs(s, b, k, err, errlen)) ||
        (rc = exec_run(b->x, NULL, NULL, err, errlen)))
        return rc;
    double ks = metric == TUNE_ATOL ? -INFINITY : INFINITY;
    for (int o = 0; o < s->n_out; o++) {
        metrics_t m;
        metrics_compute(s->golden[k][o], exec_output(b->x, o)->data, s->out_n[o], &m);
        double v = score_of(metric, &m);
        if (worse(metric, v, ks))
            ks = v;
    }
    *score = ks;
    return RT_OK;
}

/* A worker of tune_eval: its own graph and one-thread executor, samples
 * first, first + step, ... (a sample's run is the same on any thread count:
 * the kernels split outputs, never a sum). */
typedef struct eval_worker {
    tune_session *s;
    built b;
    int first, step, rc, stopped_at; /* stopped_at: the failed sample, else ns */
    int started;                     /* on a thread of its own */
    double *score;
    pthread_t tid;
    char err[512];
} eval_worker;

static void *eval_worker_run(void *arg)
{
    eval_worker *w = arg;
    for (int k = w->first; k < w->s->ns; k += w->step)
        if ((w->rc = eval_sample(w->s, &w->b, k, &w->score[k], w->err, sizeof(w->err)))) {
            w->stopped_at = k;
            break;
        }
    return NULL;
}

/* The workers of an evaluation: --threads, or one per physical core the
 * process may run on (as the executor counts them, so taskset and cpusets are
 * honoured), at most one per sample. */
static int eval_workers(const tune_session *s)
{
    long n = s->o.threads > 0 ? s->o.threads : exec_default_threads();
    n = n < 1 ? 1 : n > s->ns ? s->ns : n;
    return n > 64 ? 64 : (int)n;
}

int tune_eval(tune_session *s, int algo, int method, const int *fp16, int n, int all_but,
              const char *write_cfg, tune_point *p, char *err, size_t errlen)
{
    int nn = 0, rc = RT_OK, nw = eval_workers(s);
    npu_graph_t *ng = NULL;

    memset(p, 0, sizeof(*p));
    p->algo = algo;
    p->method = method;
    p->fp16 = xcalloc((size_t)s->n_cand + 1, sizeof(int));
    if (all_but >= 0) {
        for (int c = 0; c < s->n_cand; c++)
            if (c != all_but)
                p->fp16[nn++] = c;
    } else {
        for (int i = 0; i < n; i++)
            p->fp16[nn++] = fp16[i];
    }
    p->n_fp16 = nn;
    int n_names;
    char **names = cand_names(s, p, &n_names);
    eval_worker *w = xcalloc((size_t)nw, sizeof(*w));
    double *score = xcalloc((size_t)s->ns + 1, sizeof(double));
    /* samples in parallel, a graph each: a run of one small frame spread over
     * the cores waits at every layer; the quantization.cfg from the first */
    for (int i = 0; i < nw && !rc; i++)
        rc = build(s, algo, method, names, n_names, i ? NULL : write_cfg, nw > 1 ? 1 : s->o.threads,
                   &w[i].b, err, errlen);
    free(names);
    for (int i = 0; i < nw && !rc; i++) {
        w[i].s = s, w[i].first = i, w[i].step = nw, w[i].score = score, w[i].stopped_at = s->ns;
        w[i].started = i > 0 && !pthread_create(&w[i].tid, NULL, eval_worker_run, &w[i]);
    }
    if (!rc) /* the first share on this thread, and any share no thread took */
        for (int i = 0; i < nw; i++)
            if (!w[i].started)
                eval_worker_run(&w[i]);
    for (int i = 0; i < nw; i++)
        if (w[i].started)
            pthread_join(w[i].tid, NULL);
    /* the error of the earliest failed sample, as a run in order reports it */
    for (int i = 0, at = s->ns; i < nw && !rc; i++)
        if (w[i].rc && w[i].stopped_at < at)
            at = w[i].stopped_at, rc = w[i].rc;
    for (int i = 0, at = s->ns + 1; i < nw && rc; i++)
        if (w[i].rc && w[i].stopped_at < at)
            at = w[i].stopped_at, rt_err(err, errlen, w[i].rc, "%s", w[i].err);
    if (rc)
        goto out;
    int metric = s->o.metric;
    double sum = 0;
    p->worst = metric == TUNE_ATOL ? -INFINITY : INFINITY;
    p->worst_sample = -1;
    for (int k = 0; k < s->ns; k++) { /* in sample order: the same sum as one thread's */
        double ks = score[k];
        sum += ks;
        if (p->worst_sample < 0 || worse(metric, ks, p->worst))
            p->worst = ks, p->worst_sample = k;
    }
    p->mean = sum / s->ns;
    p->meets = metric == TUNE_ATOL ? p->worst <= s->o.target : p->worst >= s->o.target;
    if ((rc = npu_lower(w[0].b.g, s->o.plat, DT_INT8, &ng, err, errlen)) ||
        (rc = npu_mem_plan(ng, w[0].b.g, NULL, 0, err, errlen)))
        goto out;
    npu_cost(ng);
    p->npu_us = npu_frame_us(ng);
out:
    npu_graph_free(ng);
    for (int i = 0; i < nw; i++)
        built_free(&w[i].b);
    free(w);
    free(score);
    if (rc) /* a failed or stopped evaluation is no point: nothing for the caller to free */
        tune_point_free(p);
    return rc;
}

int tune_write_cfg(tune_session *s, const tune_point *p, const char *path, char *err,
                   size_t errlen)
{
    built b;
    int n_names;
    char **names = cand_names(s, p, &n_names);
    int rc = build(s, p->algo, p->method, names, n_names, path, s->o.threads, &b, err, errlen);
    free(names);
    if (!rc)
        built_free(&b);
    return rc;
}

const char *tune_shape_args(const tune_session *s, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < s->n_shapes && n < len; i++) {
        n += (size_t)snprintf(buf + n, len - n, " --shape %s=", s->shapes[i].name);
        for (int d = 0; d < s->shapes[i].ndim && n < len; d++)
            n += (size_t)snprintf(buf + n, len - n, "%s%lld", d ? "," : "",
                                  (long long)s->shapes[i].dims[d]);
    }
    return buf;
}

void tune_point_free(tune_point *p)
{
    free(p->fp16);
    p->fp16 = NULL;
}

void tune_point_copy(tune_point *dst, const tune_point *src)
{
    *dst = *src;
    dst->fp16 = xmalloc(sizeof(int) * (size_t)(src->n_fp16 + 1));
    memcpy(dst->fp16, src->fp16, sizeof(int) * (size_t)src->n_fp16);
}

/* Single-layer error (accuracy.c's "single"): each layer of the int8 graph
 * fed with the quantized golden values of its inputs, against its golden. */
typedef struct single_ctx {
    tune_session *s;
    built *b;
    float **gold;        /* per golden tensor: this sample's values */
    int *map;            /* quantized graph tensor -> golden tensor */
    double *sum;         /* per quantized graph tensor: cos summed over samples */
    int *cnt;
} single_ctx;

static int golden_copy_hook(const layer_event_t *ev, void *user)
{
    single_ctx *c = user;
    const graph_t *g = c->s->gf;
    const node_t *n = &g->nodes[ev->node];
    for (int k = 0; k < n->n_out; k++) {
        int t = n->out[k];
        if (!is_float_out(g, t))
            continue;
        size_t nb = tensor_nbytes(&g->t[t]);
        if (!c->gold[t])
            c->gold[t] = xmalloc(nb + 1);
        memcpy(c->gold[t], g->t[t].data, nb);
    }
    return c->s->o.stop && *c->s->o.stop ? RT_EINVAL : 0;
}

static int single_hook(const layer_event_t *ev, void *user)
{
    single_ctx *c = user;
    graph_t *g = c->b->g;
    const node_t *n = &g->nodes[ev->node];
    for (int k = 0; k < n->n_out; k++) {
        int t = n->out[k], ft = c->map[t];
        if (!is_float_out(g, t) || ft < 0 || !c->gold[ft] ||
            tensor_numel(&c->s->gf->t[ft]) != tensor_numel(&g->t[t]))
            continue;
        int64_t cnt = tensor_numel(&g->t[t]);
        metrics_t m;
        quant_graph_output(c->b->q, t, g->t[t].data);
        metrics_compute(c->gold[ft], g->t[t].data, cnt, &m);
        if (!isnan(m.cos))
            c->sum[t] += m.cos, c->cnt[t]++;
        memcpy(g->t[t].data, c->gold[ft], sizeof(float) * (size_t)cnt);
        quant_graph_output(c->b->q, t, g->t[t].data);
    }
    return c->s->o.stop && *c->s->o.stop ? RT_EINVAL : 0;
}

int tune_single(tune_session *s, int algo, int method, char *err, size_t errlen)
{
    built b;
    int rc = build(s, algo, method, NULL, 0, NULL, s->o.threads, &b, err, errlen);
    if (rc)
        return rc;
    single_ctx c = {.s = s, .b = &b};
    c.gold = xcalloc((size_t)s->gf->n_t + 1, sizeof(float *));
    c.map = xmalloc(sizeof(int) * ((size_t)b.g->n_t + 1));
    c.sum = xcalloc((size_t)b.g->n_t + 1, sizeof(double));
    c.cnt = xcalloc((size_t)b.g->n_t + 1, sizeof(int));
    for (int t = 0; t < b.g->n_t; t++)
        c.map[t] = t < s->gf->n_t && !strcmp(s->gf->t[t].name, b.g->t[t].name)
                       ? t : graph_find_tensor(s->gf, b.g->t[t].name);
    for (int k = 0; k < s->ns && !rc; k++) {
        for (int j = 0; j < s->n_in && !rc; j++)
            rc = exec_set_input(s->xf, j, s->in[k][j],
                                tensor_nbytes(&s->gf->t[s->gf->inputs[j]]), err, errlen);
        if (!rc)
            rc = exec_run(s->xf, golden_copy_hook, &c, err, errlen);
        if (!rc)
            rc = set_quant_inputs(s, &b, k, err, errlen);
        if (!rc)
            rc = exec_run(b.x, single_hook, &c, err, errlen);
    }
    if (rc && s->o.stop && *s->o.stop)
        rc = rt_err(err, errlen, RT_EINVAL, "interrupted");
    for (int i = 0; !rc && i < s->n_cand; i++) {
        s->cand[i].single_cos = NAN; /* the lowest of its outputs' means */
        for (int k = 0; k < s->cand[i].n_names; k++) {
            int t = graph_find_tensor(b.g, s->cand[i].names[k]);
            double v = t >= 0 && c.cnt[t] ? c.sum[t] / c.cnt[t] : NAN;
            if (!isnan(v) && (isnan(s->cand[i].single_cos) || v < s->cand[i].single_cos))
                s->cand[i].single_cos = v;
        }
    }
    for (int t = 0; t < s->gf->n_t; t++)
        free(c.gold[t]);
    free(c.gold);
    free(c.map);
    free(c.sum);
    free(c.cnt);
    built_free(&b);
    return rc;
}

static int is_head(const char *op)
{
    return !strcmp(op, "Conv") || !strcmp(op, "Gemm") || !strcmp(op, "MatMul") ||
           !strcmp(op, "ConvTranspose");
}

/* elementwise ops the NPU runs after a conv as part of it */
static int is_act(const char *op)
{
    static const char *const ops[] = {"Relu", "Clip", "LeakyRelu", "PRelu", "Sigmoid", "Tanh",
                                      "HardSigmoid", "HardSwish", "Mul", "Add", "Sub", "Div", "Elu",
                                      "Softplus", "Mish", "Gelu", NULL};
    for (int i = 0; ops[i]; i++)
        if (!strcmp(op, ops[i]))
            return 1;
    return 0;
}

/* The candidates (tune.h): layers in graph order, each with every output
 * tensor of its nodes. */
static int find_cands(tune_session *s, char *err, size_t errlen)
{
    built b;
    int rc = build(s, QA_NORMAL, QM_CHANNEL, NULL, 0, NULL, s->o.threads, &b, err, errlen);
    if (rc)
        return rc;
    const graph_t *g = b.g;
    int *group = xmalloc(sizeof(int) * ((size_t)g->n_nodes + 1)), *quantized;
    quantized = xcalloc((size_t)g->n_nodes + 1, sizeof(int));
    for (int i = 0; i < g->n_nodes; i++) {
        const node_t *n = &g->nodes[i];
        group[i] = i;
        if (n->folded || is_head(n->op) || !is_act(n->op))
            continue;
        int gid = -1, ok = 1;
        for (int k = 0; k < n->n_in && ok; k++) {
            int t = n->in[k];
            if (t < 0 || g->t[t].kind == TK_CONST)
                continue;
            int p = g->t[t].producer;
            if (p < 0 || !is_head(g->nodes[group[p]].op) || (gid >= 0 && group[p] != gid))
                ok = 0;
            else
                gid = group[p];
        }
        if (ok && gid >= 0)
            group[i] = gid;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const node_t *n = &g->nodes[i];
        qparam_t qp;
        int t = n->n_out ? n->out[0] : -1;
        const char *qt = t >= 0 && !n->folded ? quant_graph_tensor_qtype(b.q, t, &qp) : NULL;
        if (qt && !strcmp(qt, "asymmetric_quantized-8"))
            quantized[group[i]] = 1;
    }
    s->cand = xcalloc((size_t)g->n_nodes + 1, sizeof(*s->cand));
    for (int h = 0; h < g->n_nodes; h++) {
        if (group[h] != h || !quantized[h] || g->nodes[h].folded)
            continue;
        tune_cand *c = &s->cand[s->n_cand++];
        char ops[96] = "";
        c->names = xcalloc((size_t)g->n_nodes + 1, sizeof(char *));
        for (int i = h; i < g->n_nodes; i++) {
            const node_t *n = &g->nodes[i];
            if (group[i] != h || n->folded)
                continue;
            size_t l = strlen(ops);
            snprintf(ops + l, sizeof ops - l, "%s%s", l ? "+" : "", n->op);
            for (int k = 0; k < n->n_out; k++) {
                int t = n->out[k];
                if (t >= 0 && g->t[t].name && g->t[t].name[0] && g->t[t].dtype == DT_FLOAT &&
                    g->t[t].kind != TK_CONST)
                    c->names[c->n_names++] = xstrdup(g->t[t].name);
            }
        }
        if (!c->n_names) {
            free(c->names);
            s->n_cand--;
            continue;
        }
        c->name = xstrdup(c->names[c->n_names - 1]);
        c->op = xstrdup(ops);
        c->single_cos = c->alone_fp16 = c->alone_i8 = NAN;
    }
    free(group);
    free(quantized);
    built_free(&b);
    if (!s->n_cand)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "%s: no layer is quantized to int8: "
                      "nothing to tune", s->o.model);
    return RT_OK;
}

static int load_list(const char *path, const char *what, int n_in, const quant_preproc *pp,
                     quant_dataset *d, char *err, size_t errlen)
{
    int rc = quant_dataset_load(path, n_in, d, err, errlen);
    if (rc) {
        char msg[768];
        snprintf(msg, sizeof(msg), "%s", err);
        return rt_err(err, errlen, rc, "%s: %s", what, msg);
    }
    d->pp = *pp;
    return RT_OK;
}

int tune_open(const tune_opts *o, tune_session **out, char *err, size_t errlen)
{
    tune_session *s = xcalloc(1, sizeof(*s));
    int rc;
    const char *qop;

    *out = NULL;
    s->o = *o;
    if (!npu_peak_macs(o->plat, NPU_FP16)) {
        rc = rt_err(err, errlen, RT_EUNSUPPORTED, "%s has no float16 NPU mode (int8 only): no "
                    "layer can be moved to fp16 there", o->plat->name);
        goto fail;
    }
    if (!npu_peak_macs(o->plat, NPU_INT8)) {
        rc = rt_err(err, errlen, RT_EUNSUPPORTED, "%s runs float16 models only: nothing to "
                    "quantize", o->plat->name);
        goto fail;
    }
    if ((rc = quant_preproc_parse(o->mean, o->std, &s->pp, err, errlen)) ||
        (rc = model_load_file(o->model, &s->gf, err, errlen)))
        goto fail;
    if (quant_prequant_detect(s->gf, &qop) != QP_NONE) {
        rc = rt_err(err, errlen, RT_EUNSUPPORTED, "%s is pre-quantized (Q/DQ nodes): its own "
                    "scales decide, not a calibration; tune takes float models", o->model);
        goto fail;
    }
    s->n_in = s->gf->n_inputs;
    s->n_out = s->gf->n_outputs;
    if ((rc = load_list(o->dataset, "--dataset", s->n_in, &s->pp, &s->calib, err, errlen)) ||
        (rc = load_list(o->eval ? o->eval : o->dataset, o->eval ? "--eval" : "--dataset",
                        s->n_in, &s->pp, &s->ev, err, errlen)))
        goto fail;
    /* a dynamic input takes the first evaluation sample's shape (.npy) */
    s->shapes = xcalloc((size_t)s->n_in + 1, sizeof(*s->shapes));
    for (int j = 0; j < s->n_in; j++) {
        const tensor_t *t = &s->gf->t[s->gf->inputs[j]];
        int dyn = 0;
        for (int d = 0; d < t->ndim; d++)
            dyn |= t->dims[d] < 0;
        if (!dyn || quant_file_kind(s->ev.files[j]) != QF_NPY)
            continue;
        npy_array a = {0};
        if ((rc = npy_read(s->ev.files[j], &a, err, errlen)))
            goto fail;
        input_shape_t *sh = &s->shapes[s->n_shapes++];
        sh->name = t->name;
        sh->ndim = a.ndim < MODEL_MAX_DIMS ? a.ndim : MODEL_MAX_DIMS;
        for (int d = 0; d < sh->ndim; d++)
            sh->dims[d] = a.dims[d];
        npy_free(&a);
    }
    if ((rc = passes_prepare(s->gf, s->shapes, s->n_shapes, err, errlen)))
        goto fail;
    for (int k = 0; k < s->n_out; k++)
        if (s->gf->t[s->gf->outputs[k]].dtype != DT_FLOAT) {
            rc = rt_err(err, errlen, RT_EUNSUPPORTED, "output '%s' is not float32: its error "
                        "cannot be scored", s->gf->t[s->gf->outputs[k]].name);
            goto fail;
        }
    exec_opts eo = {.nthreads = o->threads};
    if ((rc = exec_create(s->gf, &eo, &s->xf, err, errlen)))
        goto fail;
    /* every calibration sample must fit the model too, before any long work */
    {
        float **tmp = xcalloc((size_t)s->n_in + 1, sizeof(float *));
        for (int j = 0; j < s->n_in; j++)
            tmp[j] = xmalloc(tensor_nbytes(&s->gf->t[s->gf->inputs[j]]) + 1);
        for (int k = 0; k < s->calib.n_samples && !rc; k++)
            if ((rc = quant_dataset_sample(&s->calib, k, s->gf, tmp, err, errlen))) {
                char msg[768];
                snprintf(msg, sizeof(msg), "%s", err);
                rt_err(err, errlen, rc, "--dataset %s: %s", o->dataset, msg);
            }
        for (int j = 0; j < s->n_in; j++)
            free(tmp[j]);
        free(tmp);
        if (rc)
            goto fail;
    }
    s->ns = s->ev.n_samples;
    s->in = xcalloc((size_t)s->ns, sizeof(*s->in));
    s->golden = xcalloc((size_t)s->ns, sizeof(*s->golden));
    s->out_n = xcalloc((size_t)s->n_out + 1, sizeof(int64_t));
    for (int k = 0; k < s->ns; k++) {
        s->in[k] = xcalloc((size_t)s->n_in + 1, sizeof(float *));
        for (int j = 0; j < s->n_in; j++)
            s->in[k][j] = xmalloc(tensor_nbytes(&s->gf->t[s->gf->inputs[j]]) + 1);
        if ((rc = quant_dataset_sample(&s->ev, k, s->gf, s->in[k], err, errlen))) {
            char msg[768];
            snprintf(msg, sizeof(msg), "%s", err);
            rt_err(err, errlen, rc, "%s %s: %s", o->eval ? "--eval" : "--dataset",
                   o->eval ? o->eval : o->dataset, msg);
            goto fail;
        }
        for (int j = 0; j < s->n_in && !rc; j++)
            rc = exec_set_input(s->xf, j, s->in[k][j],
                                tensor_nbytes(&s->gf->t[s->gf->inputs[j]]), err, errlen);
        if (rc || (rc = exec_run(s->xf, NULL, NULL, err, errlen)))
            goto fail;
        s->golden[k] = xcalloc((size_t)s->n_out + 1, sizeof(float *));
        for (int o2 = 0; o2 < s->n_out; o2++) {
            const tensor_t *t = exec_output(s->xf, o2);
            s->out_n[o2] = tensor_numel(t);
            s->golden[k][o2] = xmalloc(tensor_nbytes(t) + 1);
            memcpy(s->golden[k][o2], t->data, tensor_nbytes(t));
        }
    }
    if ((rc = find_cands(s, err, errlen)))
        goto fail;
    *out = s;
    return RT_OK;
fail:
    tune_close(s);
    return rc;
}

void tune_close(tune_session *s)
{
    if (!s)
        return;
    for (int k = 0; k < s->ns; k++) {
        for (int j = 0; s->in && s->in[k] && j < s->n_in; j++)
            free(s->in[k][j]);
        for (int o = 0; s->golden && s->golden[k] && o < s->n_out; o++)
            free(s->golden[k][o]);
        if (s->in)
            free(s->in[k]);
        if (s->golden)
            free(s->golden[k]);
    }
    free(s->in);
    free(s->golden);
    free(s->out_n);
    free(s->shapes);
    for (int a = 0; a < 3; a++) {
        free(s->act[a]);
        free(s->has[a]);
    }
    for (int c = 0; c < s->n_cand; c++) {
        free(s->cand[c].name);
        free(s->cand[c].op);
        for (int k = 0; k < s->cand[c].n_names; k++)
            free(s->cand[c].names[k]);
        free(s->cand[c].names);
    }
    free(s->cand);
    exec_free(s->xf);
    graph_free(s->gf);
    quant_dataset_free(&s->calib);
    quant_dataset_free(&s->ev);
    free(s);
}
