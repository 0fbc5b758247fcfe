/* runtime/api/api_core.c — rknn_context handles, logging, the simulated platform,
 * and rknn_init / rknn_dup_context / rknn_destroy / rknn_query.
 *
 * A handle is a counter that is never reused, so a destroyed or made-up context is
 * recognised and refused with RKNN_ERR_CTX_INVALID instead of being dereferenced. */
#include "runtime/api/api_internal.h"
#include "runtime/api/api_matmul.h"
#include "runtime/npu/npu.h"
#include "runtime/passes/passes.h"
#include "util/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

/* This library's name for itself: a symbol the vendor's runtime does not
 * export, so that librknntrace.so (and run --backend board) can tell a run of
 * the simulated runtime from a board's without calling into it. */
const char rknn_trace_simulated_runtime[] = API_VERSION;

/* ---- logging ---------------------------------------------------------------- */

/* "<L> RKNN: [HH:MM:SS.mmm] msg" (log-formats.md §1), local time as the vendor's */
static void log_emit(char level, const char *msg)
{
    char ts[32];
    struct timeval tv;
    struct tm tm;

    gettimeofday(&tv, NULL);
    localtime_r(&tv.tv_sec, &tm);
    snprintf(ts, sizeof(ts), "[%02d:%02d:%02d.%03d] ", tm.tm_hour, tm.tm_min, tm.tm_sec,
             (int)(tv.tv_usec / 1000));
    /* one write per line so that lines of concurrent contexts do not interleave */
    fprintf(stderr, "%c RKNN: %s%s\n", level, ts, msg);
}

/* RKNN_LOG_LEVEL (rknn-api.md §10.1): 0 errors (default), 1 + warnings, 2 + init
 * information, 3 + debug and the SRAM table, 4 + the per-layer table after each run,
 * 5 + per-layer .npy dumps. Negative: nothing at all (the simulator's quiet level, used
 * by tests that provoke errors). 6 (vendor: .txt NC1HWC2 dumps too) runs as 5; other
 * values get the vendor's "Unsupported log level" line once and run as 0. Read at
 * every call: the level may change between calls. */
int api_log_level(void)
{
    static int warned;
    const char *s = getenv("RKNN_LOG_LEVEL");
    char *e;
    long v;

    if (!s || !*s)
        return 0;
    v = strtol(s, &e, 10);
    if (*e == 0 && v < 0)
        return -1;
    if (*e == 0 && v <= 5)
        return (int)v;
    if (!warned) {
        warned = 1;
        char msg[160];
        if (*e == 0 && v == 6) {
            log_emit('W', "RKNN_LOG_LEVEL=6 (.txt tensors in NC1HWC2) is not simulated: "
                          "running as level 5 (.npy dumps)");
        } else {
            snprintf(msg, sizeof(msg), "Unsupported log level: %.40s (use 0..5)", s);
            log_emit('E', msg);
        }
    }
    return *e == 0 && v == 6 ? 5 : 0;
}

void api_log(char level, const char *fmt, ...)
{
    int need = level == 'E' ? 0 : level == 'W' ? 1 : level == 'I' ? 2 : 3;
    char msg[1024];
    va_list ap;

    if (api_log_level() < need)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    log_emit(level, msg);
}

/* ---- platforms ---------------------------------------------------------------- */

static const api_platform platforms[] = {
    /* name      cores stroke align  (npu-hw.md §1.1, §2.1 Table 5-1, §2.4 Table 5-2) */
    {"rk3588", 3, 16, 16},
    {"rk3576", 2, 16, 16},
    {"rk3566", 1, 8, 8},
    {"rk3568", 1, 8, 8},
    {"rk3562", 1, 16, 16},
    {"rv1103", 1, 16, 16},
    {"rv1106", 1, 16, 16},
    {"rv1103b", 1, 8, 8},
    {"rv1106b", 1, 8, 8},
    {"rv1126b", 1, 16, 16},
    {"rk2118", 1, 8, 8},
};

const api_platform *api_platform_get(const char *name)
{
    for (size_t i = 0; i < sizeof(platforms) / sizeof(platforms[0]); i++)
        if (strcasecmp(platforms[i].name, name) == 0)
            return &platforms[i];
    return NULL;
}

const char *api_platform_names(void)
{
    return "rk3588 rk3576 rk3566 rk3568 rk3562 rv1103 rv1106 rv1103b rv1106b rv1126b rk2118";
}

/* ---- handles ------------------------------------------------------------------ */

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static api_ctx **reg;
static int reg_n, reg_cap;
static rknn_context next_handle = 0x1000;

static rknn_context reg_add(api_ctx *c)
{
    rknn_context h;

    pthread_mutex_lock(&reg_lock);
    if (reg_n == reg_cap) {
        reg_cap = reg_cap ? reg_cap * 2 : 8;
        reg = xrealloc(reg, sizeof(*reg) * (size_t)reg_cap);
    }
    h = next_handle++;
    c->handle = h;
    reg[reg_n++] = c;
    pthread_mutex_unlock(&reg_lock);
    return h;
}

/* Removes the context from the registry and takes a reference on it (NULL if
 * unknown): no new call can find it, calls already under way keep it alive. */
static api_ctx *reg_remove(rknn_context h)
{
    api_ctx *c = NULL;

    pthread_mutex_lock(&reg_lock);
    for (int i = 0; i < reg_n; i++) {
        if (reg[i]->handle == h) {
            c = reg[i];
            c->refs++;
            reg[i] = reg[--reg_n];
            break;
        }
    }
    if (reg_n == 0) {
        free(reg);
        reg = NULL;
        reg_cap = 0;
    }
    pthread_mutex_unlock(&reg_lock);
    return c;
}

static void ctx_unref(api_ctx *c)
{
    pthread_mutex_lock(&reg_lock);
    if (--c->refs == 1)
        pthread_cond_broadcast(&c->idle); /* rknn_destroy may wait for the last call */
    pthread_mutex_unlock(&reg_lock);
}

/* The registry lock is held only to find the context and count a reference, never
 * while waiting for the context's own lock: a thread queued on a busy context must
 * not hold up calls on any other context. */
static api_ctx *ctx_lookup(rknn_context h, const char *fn, int any);

api_ctx *api_ctx_get(rknn_context h, const char *fn)
{
    return ctx_lookup(h, fn, 0);
}

api_ctx *api_ctx_get_any(rknn_context h, const char *fn)
{
    return ctx_lookup(h, fn, 1);
}

static api_ctx *ctx_lookup(rknn_context h, const char *fn, int any)
{
    api_ctx *c = NULL;

    pthread_mutex_lock(&reg_lock);
    for (int i = 0; i < reg_n; i++) {
        if (reg[i]->handle == h) {
            c = reg[i];
            c->refs++; /* rknn_destroy frees it only once every reference is gone */
            break;
        }
    }
    pthread_mutex_unlock(&reg_lock);
    if (c) {
        pthread_mutex_lock(&c->lock);
        if (c->destroyed) { /* destroyed while this call waited for it */
            pthread_mutex_unlock(&c->lock);
            ctx_unref(c);
            c = NULL;
        } else if (c->vendor && !any) {
            API_E("%s is not available on the context of a vendor .rknn run by the NPU "
                  "emulator (custom ops, input shapes and rknn_wait are not: the file's "
                  "shapes are fixed and its custom layers are not emulated)", fn);
            api_ctx_put(c);
            return NULL;
        }
    }
    if (!c) {
        if (h == 0)
            API_E("%s, context is 0: call rknn_init(&ctx, ...) first and pass the "
                  "context it returned", fn);
        else if (api_matmul_known(h))
            API_E("%s, context 0x%llx is a matmul context (rknn_matmul_create): use it with "
                  "rknn_matmul_* and rknn_create_mem*, a model context with this call", fn,
                  (unsigned long long)h);
        else
            API_E("%s, context 0x%llx is invalid: it was destroyed by rknn_destroy or "
                  "never returned by rknn_init/rknn_dup_context", fn, (unsigned long long)h);
    }
    return c;
}

int64_t api_last_exec_us(rknn_context h)
{
    api_ctx *c = api_ctx_get(h, "api_last_exec_us");
    int64_t us;

    if (!c)
        return -1;
    us = c->last_run_us;
    api_ctx_put(c);
    return us;
}

void api_ctx_put(api_ctx *c)
{
    pthread_mutex_unlock(&c->lock);
    ctx_unref(c);
}

int api_ctx_ready(const api_ctx *c, const char *fn)
{
    if (!c->pending)
        return RKNN_SUCC;
    API_E("%s, the model's dynamic input dims are not set yet (it does not prepare with them "
          "at 1): call rknn_set_input_shapes with the shapes you run first", fn);
    return RKNN_ERR_FAIL;
}

/* ---- model preparation ---------------------------------------------------------- */

/* io[].data points into the executor's arena (not owned). */
static void io_free(api_io *io, int n)
{
    (void)n;
    free(io);
}

/* True when node `prod` is a convolution: its NC1HWC2 output is aligned to 2*C2. */
static int is_conv(const graph_t *g, int prod)
{
    if (prod < 0)
        return 0;
    const char *op = g->nodes[prod].op;
    return strcmp(op, "Conv") == 0 || strcmp(op, "ConvTranspose") == 0 ||
           strcmp(op, "ConvInteger") == 0 || strcmp(op, "QLinearConv") == 0;
}

static int is_vendor_rknn(const void *buf, size_t len)
{
    return (len >= 4 && memcmp(buf, "RKNN", 4) == 0) ||
           (len >= 8 && memcmp(buf, "CYPTRKNN", 8) == 0) ||
           (len >= 4 && memcmp(buf, "RKNX", 4) == 0);
}

/* The container's quantization, in the order `rknn-trace run` applies it to a
 * container (analyze/accuracy.c): a QDQ model's own grid, the QCFG parameters as
 * the hybrid file (fp16 layers), weights quantized before passes_prepare ... */
static int quant_begin(api_ctx *c, graph_t *g, quant_prequant *pq, quant_cfg *cfg,
                       quant_graph **q, char *err, size_t errlen)
{
    int rc = RT_OK;
    if (c->qtype == QT_I8 && quant_prequant_detect(g, NULL) == QP_QDQ)
        rc = quant_prequant_strip(g, pq, err, errlen);
    if (!rc && c->qtype == QT_I8 && c->qcfg)
        rc = quant_cfg_parse(c->qcfg, c->qcfg_len, cfg, err, errlen);
    if (!rc)
        rc = quant_graph_new_hybrid(g, c->qtype, c->qmethod,
                                    c->qtype == QT_I8 && c->qcfg ? cfg : NULL, q, err, errlen);
    if (!rc)
        quant_prequant_weights(pq, *q);
    return rc;
}

/* ... and after it the activation parameters of the build, every one of them (a run
 * of the container calibrates nothing: its QCFG holds every activation). */
static int quant_end(api_ctx *c, graph_t *g, quant_prequant *pq, quant_cfg *cfg,
                     quant_graph *q, char *err, size_t errlen)
{
    qparam_t *act = xcalloc((size_t)(g->n_t ? g->n_t : 1), sizeof(*act));
    uint8_t *has = xcalloc((size_t)(g->n_t ? g->n_t : 1), 1);
    if (c->qtype == QT_I8 && pq->n_act)
        quant_prequant_acts(pq, g, act, has, 0);
    for (int k = 0; c->qtype == QT_I8 && k < cfg->n_params; k++) {
        qparam_t p;
        int t = graph_find_tensor(g, cfg->params[k].name);
        if (t < 0 || g->t[t].kind == TK_CONST || g->t[t].dtype != DT_FLOAT ||
            quant_cfg_param_get(&cfg->params[k], &p))
            continue;
        act[t] = p;
        if (!has[t])
            has[t] = QP_HAS_CALIB;
    }
    int rc = quant_graph_finish(q, act, has, err, errlen);
    free(act);
    free(has);
    return rc;
}

/* What the chip holds for float tensor t of a quantized graph. */
static void io_quant_type(const quant_graph *q, int t, api_io *io)
{
    if (q->type == QT_I8 && t < q->n_alloc && q->has_act[t] && !q->fused[t]) {
        io->rtype = RKNN_TENSOR_INT8;
        io->affine = 1;
        io->zp = q->act[t].zp;
        io->scale = q->act[t].scale;
    } else if (q->type == QT_FP16 || (q->t_fp16 && t < q->n_alloc && q->t_fp16[t])) {
        io->rtype = RKNN_TENSOR_FLOAT16;
    }
}

int api_ctx_prepare(api_ctx *c, const int64_t (*shapes)[MODEL_MAX_DIMS], const int *ndims)
{
    char err[512] = "";
    graph_t *g = NULL;
    exec_t *x = NULL;
    input_shape_t *sh = NULL;
    int64_t (*orig)[MODEL_MAX_DIMS] = NULL;
    api_io *in = NULL, *out = NULL;
    exec_opts eo = {0};
    int ret = RKNN_ERR_MODEL_INVALID, st, dynamic = 0, pending = 0;
    int64_t (*set_sh)[MODEL_MAX_DIMS] = NULL;
    int *set_nd = NULL;
    quant_prequant pq = {0};
    quant_cfg qcfg = {0};
    quant_graph *q = NULL;
    /* host threads of the simulation (default: exec_default_threads, one per core) */
    const char *thr = getenv("RKNN_TRACE_THREADS");
    if (thr && *thr) {
        char *end;
        long v = strtol(thr, &end, 10);
        if (*end || v < 1 || v > 256)
            API_W("rknn_init, RKNN_TRACE_THREADS='%s' is not a thread count in 1..256: "
                  "using one per core", thr);
        else
            eo.nthreads = (int)v;
    }

    if (c->model_path)
        st = model_load_file(c->model_path, &g, err, sizeof(err));
    else
        st = model_load_buffer(c->model_buf, c->model_len, "model buffer", &g, err, sizeof(err));
    if (st) {
        API_E("rknn_init, cannot load the model: %s", err);
        goto out;
    }
    if (c->container && (st = simmodel_opts_check(&c->opts, g, err, sizeof(err)))) {
        API_E("rknn_init, %s: the container is inconsistent; rebuild it with rknn-trace build",
              err);
        goto out;
    }
    if (c->container && c->opts.n_sets)
        graph_free_static_inputs(g); /* the set decides (docs/sim-model-format.md) */
    if (c->container && !shapes && c->opts.n_sets) { /* the first set of the container */
        set_sh = xcalloc((size_t)c->opts.set_inputs, sizeof(*set_sh));
        set_nd = xcalloc((size_t)c->opts.set_inputs, sizeof(int));
        for (int i = 0; i < c->opts.set_inputs; i++) {
            set_nd[i] = c->opts.ndim[i];
            memcpy(set_sh[i], simmodel_set_dims(&c->opts, 0, i), sizeof(set_sh[i]));
        }
        shapes = (const int64_t(*)[MODEL_MAX_DIMS])set_sh;
        ndims = set_nd;
    }
    if (c->qtype != QT_FP32 && (st = quant_begin(c, g, &pq, &qcfg, &q, err, sizeof(err)))) {
        API_E("rknn_init, cannot quantize the model as built: %s", err);
        goto out;
    }
    sh = xcalloc((size_t)(g->n_inputs ? g->n_inputs : 1), sizeof(*sh));
    orig = xcalloc((size_t)(g->n_inputs ? g->n_inputs : 1), sizeof(*orig));
    for (int i = 0; i < g->n_inputs; i++) {
        tensor_t *t = &g->t[g->inputs[i]];
        sh[i].name = t->name;
        if (t->ndim < 0) {
            API_E("rknn_init, input '%s' has no shape in the model; the RKNN API needs "
                  "ranked inputs", t->name);
            goto out;
        }
        memcpy(orig[i], t->dims, sizeof(orig[i]));
        if (c->container && c->opts.n_sets)
            for (int d = 0; d < t->ndim; d++)
                orig[i][d] = -1; /* rknn_set_input_shapes checks the set instead */
        sh[i].ndim = shapes ? ndims[i] : t->ndim;
        for (int d = 0; d < sh[i].ndim; d++) {
            if (t->dims[d] < 0)
                dynamic = 1;
            sh[i].dims[d] = shapes ? shapes[i][d] : t->dims[d] < 0 ? 1 : t->dims[d];
        }
    }
    st = passes_prepare(g, sh, g->n_inputs, err, sizeof(err));
    if (!st && q && (st = quant_end(c, g, &pq, &qcfg, q, err, sizeof(err)))) {
        API_E("rknn_init, cannot quantize the model as built: %s", err);
        goto out;
    }
    if (st && !shapes && dynamic) {
        /* free dims fixed to 1 need not make a valid model (a pooling window wider than
         * a width of 1): keep the declared shapes until rknn_set_input_shapes */
        API_W("rknn_init, the model has dynamic input dims and does not prepare with them "
              "set to 1 (%s): call rknn_set_input_shapes before rknn_inputs_set/rknn_run", err);
        graph_free(g);
        g = NULL;
        quant_graph_free(q); /* quantized again once the shapes are set */
        q = NULL;
        if (c->model_path)
            st = model_load_file(c->model_path, &g, err, sizeof(err));
        else
            st = model_load_buffer(c->model_buf, c->model_len, "model buffer", &g, err, sizeof(err));
        if (st) {
            API_E("rknn_init, cannot load the model: %s", err);
            goto out;
        }
        pending = 1;
    } else if (st) {
        API_E("rknn_init, cannot prepare the model: %s", err);
        goto out;
    }
    st = pending ? 0 : exec_create(g, &eo, &x, err, sizeof(err));
    if (st) {
        API_E("rknn_init, cannot create the executor: %s", err);
        ret = st == RT_ENOMEM ? RKNN_ERR_MALLOC_FAIL : RKNN_ERR_MODEL_INVALID;
        goto out;
    }
    in = xcalloc((size_t)(g->n_inputs ? g->n_inputs : 1), sizeof(*in));
    out = xcalloc((size_t)(g->n_outputs ? g->n_outputs : 1), sizeof(*out));
    for (int k = 0; k < g->n_inputs + g->n_outputs; k++) {
        int is_in = k < g->n_inputs;
        api_io *io = is_in ? &in[k] : &out[k - g->n_inputs];
        int ti = is_in ? g->inputs[k] : g->outputs[k - g->n_inputs];
        tensor_t *t = &g->t[ti];
        io->tensor = ti;
        io->rtype = api_rtype_of_dtype(t->dtype);
        if (q && t->dtype == DT_FLOAT)
            io_quant_type(q, ti, io);
        if (is_in && c->container && k < c->opts.n_inputs) {
            const simmodel_input *p = &c->opts.in[k];
            io->pre = p->n_mean || p->n_std || p->n_reorder ? p : NULL;
        }
        /* pending: an output's rank and type may only be known after shape inference;
         * until rknn_set_input_shapes it shows rank 0, FP32 (a float model's outputs) */
        if (pending && !is_in && t->dtype == DT_UNDEFINED)
            io->rtype = RKNN_TENSOR_FLOAT32;
        if (io->rtype < 0 || (t->ndim < 0 && !pending) || t->ndim > RKNN_MAX_DIMS) {
            API_E("rknn_init, %s '%s' has type %s / rank %d, which the RKNN API cannot "
                  "express", is_in ? "input" : "output", t->name, dtype_name(t->dtype), t->ndim);
            goto out;
        }
        io->ndim = t->ndim < 0 ? 0 : t->ndim;
        for (int d = 0; d < io->ndim; d++)
            io->dims[d] = t->dims[d] < 0 ? 0 : t->dims[d]; /* pending: 0 = not set yet */
        io->conv_out = !is_in && is_conv(g, t->producer);
        if (is_in) {
            memcpy(io->model_dims, orig[k], sizeof(io->model_dims));
            /* inputs are converted straight into the executor's input tensor: its span
             * lives for the whole run and no kernel writes it, so nothing is staged */
            io->nbytes = pending ? 0 : tensor_nbytes(t);
            io->data = pending ? NULL : t->data;
            if (!io->data && io->nbytes) {
                API_E("rknn_init, input '%s' has no buffer in the executor", t->name);
                goto out;
            }
            if (io->data)
                memset(io->data, 0, io->nbytes);
        }
    }
    /* carry io-memory bindings over a re-prepare (rknn_set_input_shapes) */
    for (int i = 0; c->in && i < c->n_in && i < g->n_inputs; i++) {
        in[i].mem = c->in[i].mem;
        in[i].mem_attr = c->in[i].mem_attr;
        in[i].conv_note = c->in[i].conv_note;
    }
    for (int i = 0; c->out && i < c->n_out && i < g->n_outputs; i++) {
        out[i].mem = c->out[i].mem;
        out[i].mem_attr = c->out[i].mem_attr;
        out[i].conv_note = c->out[i].conv_note;
    }
    api_prev_free(c); /* a previous frame of other shapes is no result */
    /* weight and internal sizes: api_npu.c (the NPU plan of these shapes) */
    if (x) {
        size_t iob = 0;
        for (int k = 0; k < g->n_inputs; k++)
            iob += api_io_bytes(&in[k]);
        for (int k = 0; k < g->n_outputs; k++)
            iob += api_io_bytes(&out[k]);
        if (iob > c->max_io)
            c->max_io = iob;
    }
    api_npu_drop(c);
    if (c->x)
        exec_free(c->x);
    quant_graph_free(c->qg);
    c->qg = q;
    q = NULL;
    if (c->g)
        graph_free(c->g);
    io_free(c->in, c->n_in);
    io_free(c->out, c->n_out);
    c->g = g;
    c->x = x;
    c->pending = pending;
    c->in = in;
    c->out = out;
    c->n_in = g->n_inputs;
    c->n_out = g->n_outputs;
    /* a container's shape set decides; one shape is a static model */
    c->dynamic = c->container && c->opts.n_sets ? c->opts.n_sets > 1 : c->dynamic || dynamic;
    c->ran = 0;
    api_custom_bind(c);
    g = NULL;
    x = NULL;
    in = out = NULL;
    ret = RKNN_SUCC;
out:
    if (in)
        io_free(in, g ? g->n_inputs : 0);
    if (out)
        io_free(out, 0);
    if (x)
        exec_free(x);
    if (g)
        graph_free(g);
    free(sh);
    free(orig);
    free(set_sh);
    free(set_nd);
    quant_graph_free(q);
    quant_prequant_free(&pq);
    quant_cfg_free(&qcfg);
    return ret;
}

static void ctx_free(api_ctx *c)
{
    api_outbuf *b, *nb;

    if (!c)
        return;
    api_npu_drop(c); /* before the vendor file's graph, which its plan names */
    api_vendor_free(c->vendor);
    api_custom_free(c); /* destroy callbacks while the graph is there */
    if (c->x)
        exec_free(c->x);
    if (c->g)
        graph_free(c->g);
    io_free(c->in, c->n_in);
    io_free(c->out, c->n_out);
    for (b = c->outbufs; b; b = nb) {
        nb = b->next;
        free(b->buf);
        free(b);
    }
    free(c->model_buf);
    free(c->model_path);
    quant_graph_free(c->qg);
    simmodel_opts_free(&c->opts);
    free(c->qcfg);
    free(c->perf_text);
    free(c->layer_us);
    api_prev_free(c);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->idle);
    free(c);
}

/* The three init lines of the vendor runtime (log-formats.md §2, 2.x layout), at level
 * 2. Fields that exist only on a board or in an .rknn file say that they do not exist
 * here instead of showing made-up values; "model name" is ours (the file's base name). */
static void log_model_info(const api_ctx *c)
{
    const char *prod = c->g->producer && *c->g->producer ? c->g->producer : "not recorded";
    const char *name = "(from memory)";

    if (c->model_path) {
        const char *b = strrchr(c->model_path, '/');
        name = b ? b + 1 : c->model_path;
    }
    API_I("RKNN Runtime Information, librknnrt version: %s", API_VERSION);
    API_I("RKNN Driver Information, version: %s (no rknpu driver: the NPU is simulated on the "
          "CPU, the API answers as this driver version)", API_DRV_VERSION);
    API_I("RKNN Model Information, version: none (ONNX model, not an .rknn file), toolkit "
          "version: none (not converted by RKNN-Toolkit2; ONNX producer: %s), target: RKNPU v2 "
          "(simulated), target platform: %s, framework name: ONNX, framework layout: NCHW, "
          "model inference type: %s, model name: %s", prod, c->plat->name,
          c->dynamic ? "dynamic_shape" : "static_shape", name);
}

/* An ONNX model (or a container built without a shape set) whose inputs have free
 * dims: no shape set to choose from. Says which dims are free and how to fix them. */
static void warn_free_dims(const api_ctx *c)
{
    char msg[600];
    size_t o = 0;

    if (c->opts.n_sets)
        return;
    for (int i = 0; i < c->n_in; i++) {
        const api_io *io = &c->in[i];
        for (int d = 0; d < io->ndim && o < sizeof(msg) - 80; d++) {
            if (io->model_dims[d] >= 0)
                continue;
            const char *p = c->g->t[io->tensor].dim_param[d];
            o += (size_t)snprintf(msg + o, sizeof(msg) - o, "%s'%s' dim %d%s%s%s", o ? ", " : "",
                                  c->g->t[io->tensor].name, d, p ? " (" : "", p ? p : "",
                                  p ? ")" : "");
        }
    }
    if (o)
        API_W("rknn_init, free input dims: %s; they run as %s until rknn_set_input_shapes sets "
              "them (INPUT_DYNAMIC_RANGE lists no shapes; rknn-trace build --shape or "
              "--dynamic-input fixes them in the model)", msg,
              c->pending ? "unset (the model does not prepare at 1)" : "1");
}

/* A `rknn-trace build` container: its target (a board of another chip refuses it),
 * quantization and options. RKNN_SUCC for any other model. */
static int container_load(api_ctx *c, const char *target_env)
{
    simmodel m;
    char err[512] = "", val[64];

    if (!simmodel_is(c->model_buf, c->model_len))
        return RKNN_SUCC;
    c->container = 1;
    c->qtype = QT_FP32;
    if (simmodel_parse(c->model_buf, c->model_len, &m, err, sizeof(err)) ||
        simmodel_opts_parse(&m, &c->opts, err, sizeof(err))) {
        API_E("rknn_init, %s: rebuild it with rknn-trace build", err);
        return RKNN_ERR_MODEL_INVALID;
    }
    if (!simmodel_meta_str(&m, "target", val, sizeof(val))) {
        const api_platform *p = api_platform_get(val);
        if (!p) {
            API_E("rknn_init, the model was built for '%s', which this runtime does not know; "
                  "rebuild it with rknn-trace build -t one of: %s", val, api_platform_names());
            return RKNN_ERR_TARGET_PLATFORM_UNMATCH;
        }
        if (target_env && *target_env && strcasecmp(target_env, p->name)) {
            API_E("rknn_init, the target platform of the model is %s but the current platform "
                  "is %s (RKNN_TARGET): rebuild it with rknn-trace build -t %s", p->name,
                  c->plat->name, c->plat->name);
            return RKNN_ERR_TARGET_PLATFORM_UNMATCH;
        }
        c->plat = p;
    }
    if (!simmodel_meta_str(&m, "quant", val, sizeof(val)) && quant_type_parse(val) >= 0)
        c->qtype = quant_type_parse(val);
    c->qmethod = !simmodel_meta_str(&m, "quant_method", val, sizeof(val)) &&
                 quant_method_parse(val) >= 0 ? quant_method_parse(val) : QM_CHANNEL;
    const simmodel_section *cfg = simmodel_find(&m, "QCFG");
    if (cfg && c->qtype == QT_I8) {
        c->qcfg = xmalloc(cfg->len + 1);
        memcpy(c->qcfg, cfg->data, cfg->len);
        c->qcfg[cfg->len] = 0;
        c->qcfg_len = cfg->len;
    }
    return RKNN_SUCC;
}

/* The container's largest shape set: the most elements over all inputs together
 * (Toolkit2's "largest resolution", the set whose input sizes sum highest), the
 * first of equals. */
static int largest_set(const api_ctx *c)
{
    int best = 0;
    double best_n = -1;

    for (int s = 0; s < c->opts.n_sets; s++) {
        double sum = 0;
        for (int i = 0; i < c->opts.set_inputs; i++) {
            const int64_t *d = simmodel_set_dims(&c->opts, s, i);
            double n = 1;
            for (int k = 0; k < c->opts.ndim[(size_t)s * (size_t)c->opts.set_inputs + i]; k++)
                n *= (double)d[k];
            sum += n;
        }
        if (sum > best_n) {
            best_n = sum;
            best = s;
        }
    }
    return best;
}

/* Every set of the container prepared once at init, so that RKNN_QUERY_MEM_SIZE
 * covers the largest; the context is left on the largest set: the SDK guide's
 * dynamic-shape chapter has INPUT_ATTR/OUTPUT_ATTR, before rknn_set_input_shapes,
 * give the largest shapes, from which a zero-copy application sizes its input and
 * output memory for every set. */
static int sets_measure(api_ctx *c)
{
    int n = c->opts.set_inputs, ret = RKNN_SUCC, big = largest_set(c);
    int64_t (*sh)[MODEL_MAX_DIMS] = xcalloc((size_t)n, sizeof(*sh));

    for (int s = 1; s <= c->opts.n_sets && !ret; s++) {
        int k = (big + s) % c->opts.n_sets; /* the largest set last */
        for (int i = 0; i < n; i++)
            memcpy(sh[i], simmodel_set_dims(&c->opts, k, i), sizeof(sh[i]));
        ret = api_ctx_prepare(c, (const int64_t(*)[MODEL_MAX_DIMS])sh,
                              c->opts.ndim + (size_t)k * (size_t)n);
        if (!ret)
            api_npu_measure(c);
    }
    free(sh);
    c->set_index = big;
    return ret;
}

/* Shared by rknn_init and rknn_dup_context. */
static int ctx_create(rknn_context *out, const void *buf, size_t len, const char *path,
                      uint32_t flag, const api_platform *plat)
{
    api_ctx *c = xcalloc(1, sizeof(*c));
    int ret;

    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->idle, NULL);
    c->flag = flag;
    c->plat = plat;
    c->model_buf = xmalloc(len ? len : 1);
    memcpy(c->model_buf, buf, len);
    c->model_len = len;
    c->model_path = path ? xstrdup(path) : NULL;
    if (is_vendor_rknn(buf, len)) {
        if ((ret = api_vendor_load(c)) != 0) {
            ctx_free(c);
            return ret;
        }
        *out = reg_add(c);
        return RKNN_SUCC;
    }
    ret = container_load(c, getenv("RKNN_TARGET"));
    if (!ret)
        ret = api_ctx_prepare(c, NULL, NULL);
    if (!ret && c->opts.n_sets > 1)
        ret = sets_measure(c);
    if (!ret)
        warn_free_dims(c);
    if (ret) {
        ctx_free(c);
        return ret;
    }
    log_model_info(c);
    if ((ret = api_npu_prepare(c)) != 0) {
        ctx_free(c);
        return ret;
    }
    *out = reg_add(c);
    return RKNN_SUCC;
}

int rknn_init(rknn_context *context, void *model, uint32_t size, uint32_t flag,
              rknn_init_extend *extend)
{
    const char *target = getenv("RKNN_TARGET");
    const api_platform *plat;
    void *data = NULL;
    size_t len = size;
    const char *path = NULL;
    char err[512];
    int ret;

    if (!context || !model) {
        API_E("rknn_init, %s is NULL: pass &ctx and the model (bytes with size > 0, or a "
              "path with size 0)", context ? "model" : "context");
        return RKNN_ERR_PARAM_INVALID;
    }
    *context = 0;
    plat = api_platform_get(target && *target ? target : "rk3588");
    if (!plat) {
        API_E("rknn_init, RKNN_TARGET=%s is not a known platform; use one of: %s", target,
              api_platform_names());
        return RKNN_ERR_TARGET_PLATFORM_UNMATCH;
    }
    if (flag & RKNN_FLAG_SHARE_WEIGHT_MEM) {
        rknn_context src = extend ? extend->ctx : 0;
        api_ctx *s = api_ctx_get(src, "rknn_init(RKNN_FLAG_SHARE_WEIGHT_MEM, extend->ctx)");
        if (!s)
            return RKNN_ERR_CTX_INVALID;
        api_ctx_put(s); /* weights are not shared in the simulator: each context loads its own */
    }
    if (flag & RKNN_FLAG_MODEL_BUFFER_ZERO_COPY) {
        /* the model bytes start at real_model_offset inside the rknn_create_mem buffer */
        if (!extend) {
            API_E("rknn_init, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY needs rknn_init_extend with "
                  "real_model_offset/real_model_size");
            return RKNN_ERR_PARAM_INVALID;
        }
        /* the buffer is `size` bytes: the model must lie inside it */
        uint64_t off = (uint64_t)(int64_t)extend->real_model_offset,
                 msize = extend->real_model_size ? extend->real_model_size
                                                 : size - (off < size ? off : size);
        if (extend->real_model_offset < 0 || size == 0 || off >= size ||
            msize > (uint64_t)size - off) {
            API_E("rknn_init, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY: real_model_offset %d + "
                  "real_model_size %u do not lie inside the model buffer of size %u; pass the "
                  "rknn_create_mem buffer's size and an offset/size within it",
                  extend->real_model_offset, extend->real_model_size, size);
            return RKNN_ERR_PARAM_INVALID;
        }
        model = (uint8_t *)model + off;
        len = (size_t)msize;
    }
    if (len == 0) {
        path = model;
        ret = rt_read_file(path, &data, &len, err, sizeof(err));
        if (ret) {
            API_E("rknn_init, size is 0 so model is taken as a path, and it cannot be read: %s",
                  err);
            return RKNN_ERR_MODEL_INVALID;
        }
        model = data;
    }
    ret = ctx_create(context, model, len, path, flag, plat);
    free(data);
    return ret;
}

int rknn_dup_context(rknn_context *context_in, rknn_context *context_out)
{
    api_ctx *s;
    void *buf;
    size_t len;
    char *path;
    uint32_t flag;
    const api_platform *plat;
    int ret;

    if (!context_in || !context_out) {
        API_E("rknn_dup_context, %s is NULL", context_in ? "context_out" : "context_in");
        return RKNN_ERR_PARAM_INVALID;
    }
    s = api_ctx_get_any(*context_in, "rknn_dup_context");
    if (!s)
        return RKNN_ERR_CTX_INVALID;
    /* copy what is needed, then build the new context without holding the source */
    len = s->model_len;
    buf = xmalloc(len ? len : 1);
    memcpy(buf, s->model_buf, len);
    path = s->model_path ? xstrdup(s->model_path) : NULL;
    flag = s->flag;
    plat = s->plat;
    api_ctx_put(s);
    ret = ctx_create(context_out, buf, len, path, flag, plat);
    free(buf);
    free(path);
    return ret;
}

int rknn_destroy(rknn_context context)
{
    api_ctx *c = reg_remove(context);

    if (!c) {
        API_E("rknn_destroy, context 0x%llx is invalid: %s", (unsigned long long)context,
              context ? "already destroyed, or never returned by rknn_init" : "it is 0");
        return RKNN_ERR_CTX_INVALID;
    }
    /* wait for a call still running on another thread; calls that are queued on the
     * context see it destroyed and drop their reference */
    pthread_mutex_lock(&c->lock);
    c->destroyed = 1;
    pthread_mutex_unlock(&c->lock);
    pthread_mutex_lock(&reg_lock);
    while (c->refs > 1)
        pthread_cond_wait(&c->idle, &reg_lock);
    pthread_mutex_unlock(&reg_lock);
    ctx_free(c);
    api_npu_load_flush(); /* the last frames' load (writes are throttled) */
    return RKNN_SUCC;
}

/* ---- rknn_query --------------------------------------------------------------------- */

static const char *cmd_name(int cmd)
{
    static const char *const names[] = {
        "RKNN_QUERY_IN_OUT_NUM", "RKNN_QUERY_INPUT_ATTR", "RKNN_QUERY_OUTPUT_ATTR",
        "RKNN_QUERY_PERF_DETAIL", "RKNN_QUERY_PERF_RUN", "RKNN_QUERY_SDK_VERSION",
        "RKNN_QUERY_MEM_SIZE", "RKNN_QUERY_CUSTOM_STRING", "RKNN_QUERY_NATIVE_INPUT_ATTR",
        "RKNN_QUERY_NATIVE_OUTPUT_ATTR", "RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR",
        "RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR", "RKNN_QUERY_DEVICE_MEM_INFO",
        "RKNN_QUERY_INPUT_DYNAMIC_RANGE", "RKNN_QUERY_CURRENT_INPUT_ATTR",
        "RKNN_QUERY_CURRENT_OUTPUT_ATTR", "RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR",
        "RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR",
    };
    return cmd >= 0 && cmd < RKNN_QUERY_CMD_MAX ? names[cmd] : "?";
}

static size_t cmd_struct_size(int cmd, const char **sname)
{
    switch (cmd) {
    case RKNN_QUERY_IN_OUT_NUM: *sname = "rknn_input_output_num"; return sizeof(rknn_input_output_num);
    case RKNN_QUERY_PERF_DETAIL: *sname = "rknn_perf_detail"; return sizeof(rknn_perf_detail);
    case RKNN_QUERY_PERF_RUN: *sname = "rknn_perf_run"; return sizeof(rknn_perf_run);
    case RKNN_QUERY_SDK_VERSION: *sname = "rknn_sdk_version"; return sizeof(rknn_sdk_version);
    case RKNN_QUERY_MEM_SIZE: *sname = "rknn_mem_size"; return sizeof(rknn_mem_size);
    case RKNN_QUERY_CUSTOM_STRING: *sname = "rknn_custom_string"; return sizeof(rknn_custom_string);
    case RKNN_QUERY_DEVICE_MEM_INFO: *sname = "rknn_tensor_mem"; return sizeof(rknn_tensor_mem);
    case RKNN_QUERY_INPUT_DYNAMIC_RANGE: *sname = "rknn_input_range"; return sizeof(rknn_input_range);
    default: *sname = "rknn_tensor_attr"; return sizeof(rknn_tensor_attr);
    }
}

static void query_range(const api_ctx *c, rknn_input_range *r)
{
    const api_io *io = &c->in[r->index];
    const tensor_t *t = &c->g->t[io->tensor];
    rknn_tensor_attr a;

    memset(&a, 0, sizeof(a));
    a.index = r->index;
    api_fill_attr(c, io, 1, RKNN_QUERY_INPUT_ATTR, &a);
    memset(r->dyn_range, 0, sizeof(r->dyn_range));
    r->fmt = a.fmt;
    snprintf(r->name, sizeof(r->name), "%s", t->name);
    r->n_dims = a.n_dims;
    /* A static input has exactly one shape; an ONNX input with free dimensions has no
     * discrete list (any shape given to rknn_set_input_shapes is prepared on demand). */
    r->shape_number = c->dynamic ? 0 : 1;
    if (!c->dynamic)
        memcpy(r->dyn_range[0], a.dims, sizeof(a.dims));
    if (!c->opts.n_sets)
        return;
    /* the container's shape set, in the attr's layout (NHWC for a 4-D input) */
    r->shape_number = (uint32_t)c->opts.n_sets;
    for (int s = 0; s < c->opts.n_sets && s < RKNN_MAX_DYNAMIC_SHAPE_NUM; s++) {
        const int64_t *d = simmodel_set_dims(&c->opts, s, (int)r->index);
        int nd = c->opts.ndim[(size_t)s * (size_t)c->opts.set_inputs + r->index];
        for (int k = 0; k < nd && k < RKNN_MAX_DIMS; k++)
            r->dyn_range[s][k] = (uint32_t)d[k];
        if (nd == 4 && a.fmt == RKNN_TENSOR_NHWC) {
            r->dyn_range[s][1] = (uint32_t)d[2];
            r->dyn_range[s][2] = (uint32_t)d[3];
            r->dyn_range[s][3] = (uint32_t)d[1];
        }
    }
}

int rknn_query(rknn_context context, rknn_query_cmd cmd, void *info, uint32_t size)
{
    api_ctx *c = api_ctx_get_any(context, "rknn_query");
    const char *sname;
    size_t need;
    int ret = RKNN_SUCC;

    if (!c)
        return RKNN_ERR_CTX_INVALID;
    if ((int)cmd < 0 || cmd >= RKNN_QUERY_CMD_MAX) {
        API_E("rknn_query, cmd = %d is not in [0, %d]!", (int)cmd, RKNN_QUERY_CMD_MAX - 1);
        ret = RKNN_ERR_PARAM_INVALID;
        goto out;
    }
    if (!info) {
        API_E("rknn_query, info == nullptr! (%s needs a %s)", cmd_name(cmd),
              (cmd_struct_size(cmd, &sname), sname));
        ret = RKNN_ERR_PARAM_INVALID;
        goto out;
    }
    need = cmd_struct_size(cmd, &sname);
    if (size < need) {
        API_E("rknn_query, info_len(%u) < sizeof(%s)(%zu)! Pass sizeof(%s) for %s; an "
              "application built against an older rknn_api.h must be rebuilt", size, sname, need,
              sname, cmd_name(cmd));
        ret = RKNN_ERR_PARAM_INVALID;
        goto out;
    }
    if ((c->flag & RKNN_FLAG_COLLECT_MODEL_INFO_ONLY) && cmd != RKNN_QUERY_MEM_SIZE &&
        cmd != RKNN_QUERY_IN_OUT_NUM && cmd != RKNN_QUERY_SDK_VERSION) {
        API_W("rknn_query, %s on a RKNN_FLAG_COLLECT_MODEL_INFO_ONLY context: only "
              "RKNN_QUERY_MEM_SIZE is meaningful there", cmd_name(cmd));
    }

    switch (cmd) {
    case RKNN_QUERY_IN_OUT_NUM: {
        rknn_input_output_num *n = info;
        n->n_input = (uint32_t)c->n_in;
        n->n_output = (uint32_t)c->n_out;
        break;
    }
    case RKNN_QUERY_INPUT_ATTR:
    case RKNN_QUERY_OUTPUT_ATTR:
    case RKNN_QUERY_NATIVE_INPUT_ATTR:
    case RKNN_QUERY_NATIVE_OUTPUT_ATTR:
    case RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR:
    case RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR:
    case RKNN_QUERY_CURRENT_INPUT_ATTR:
    case RKNN_QUERY_CURRENT_OUTPUT_ATTR:
    case RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR:
    case RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR: {
        rknn_tensor_attr *a = info;
        int is_in = cmd == RKNN_QUERY_INPUT_ATTR || cmd == RKNN_QUERY_NATIVE_INPUT_ATTR ||
                    cmd == RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR ||
                    cmd == RKNN_QUERY_CURRENT_INPUT_ATTR ||
                    cmd == RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR;
        int n = is_in ? c->n_in : c->n_out;
        if (a->index >= (uint32_t)n) {
            API_E("rknn_query, %s, p_attr->index(%u) >= %s_num(%d)! Set attr.index to 0..%d",
                  cmd_name(cmd), a->index, is_in ? "input" : "output", n, n - 1);
            ret = RKNN_ERR_PARAM_INVALID;
            goto out;
        }
        api_fill_attr(c, is_in ? &c->in[a->index] : &c->out[a->index], is_in, cmd, a);
        break;
    }
    case RKNN_QUERY_PERF_DETAIL: {
        rknn_perf_detail *p = info;
        if (!(c->flag & RKNN_FLAG_COLLECT_PERF_MASK)) {
            /* a board answers success with an empty detail (Toolkit2 then prints "Get
             * model perf detail success, but detail is empty!", rknn-toolkit2 issue 437),
             * and the SDK's custom-op demo, which inits with flag 0, prints perf_data with
             * %s: an empty string, not NULL */
            static char empty[1];
            API_W("rknn_query, RKNN_QUERY_PERF_DETAIL: the per-layer detail is collected "
                  "only with RKNN_FLAG_COLLECT_PERF_MASK in the flag of rknn_init; returning "
                  "an empty detail");
            p->perf_data = empty;
            p->data_len = 0;
            break;
        }
        api_perf_text_refresh(c);
        if (!c->perf_text) {
            API_E("rknn_query, RKNN_QUERY_PERF_DETAIL is valid after rknn_run (and "
                  "rknn_outputs_get): no run yet");
            ret = RKNN_ERR_FAIL;
            goto out;
        }
        p->perf_data = c->perf_text;
        p->data_len = strlen(c->perf_text);
        break;
    }
    case RKNN_QUERY_PERF_RUN: {
        rknn_perf_run *p = info;
        p->run_duration = c->perf_run_us;
        break;
    }
    case RKNN_QUERY_SDK_VERSION: {
        rknn_sdk_version *v = info;
        memset(v, 0, sizeof(*v));
        snprintf(v->api_version, sizeof(v->api_version), "%s", API_VERSION);
        snprintf(v->drv_version, sizeof(v->drv_version), "%s (rknn-trace simulated NPU, %s)",
                 API_DRV_VERSION, c->plat->name);
        break;
    }
    case RKNN_QUERY_MEM_SIZE: {
        rknn_mem_size *m = info;
        size_t io = 0;
        memset(m, 0, sizeof(*m));
        for (int i = 0; i < c->n_in && !c->pending; i++)
            io += api_io_bytes(&c->in[i]);
        for (int i = 0; i < c->n_out && !c->pending; i++)
            io += api_io_bytes(&c->out[i]);
        if (io < c->max_io) /* the largest of the shapes prepared so far */
            io = c->max_io;
        /* the NPU plan in the container's dtype, the largest over the shapes prepared:
         * the level-3 "allocated internal size" line's number (api_npu.c) */
        m->total_weight_size = c->pending ? 0 : (uint32_t)c->max_weight;
        m->total_internal_size = c->pending ? 0 : (uint32_t)c->max_internal;
        m->total_dma_allocated_size =
            (uint64_t)m->total_weight_size + m->total_internal_size + io;
        api_npu_mem_sizes(c, &m->total_sram_size, &m->free_sram_size);
        break;
    }
    case RKNN_QUERY_CUSTOM_STRING:
        memset(info, 0, sizeof(rknn_custom_string));
        break;
    case RKNN_QUERY_DEVICE_MEM_INFO: {
        rknn_tensor_mem *m = info;
        memset(m, 0, sizeof(*m));
        m->virt_addr = c->model_buf;
        m->fd = -1;
        m->size = (uint32_t)c->model_len;
        break;
    }
    case RKNN_QUERY_INPUT_DYNAMIC_RANGE: {
        rknn_input_range *r = info;
        if (r->index >= (uint32_t)c->n_in) {
            API_E("rknn_query, RKNN_QUERY_INPUT_DYNAMIC_RANGE, index(%u) >= input_num(%d)!",
                  r->index, c->n_in);
            ret = RKNN_ERR_PARAM_INVALID;
            goto out;
        }
        query_range(c, r);
        break;
    }
    default:
        ret = RKNN_ERR_PARAM_INVALID;
        break;
    }
out:
    api_ctx_put(c);
    return ret;
}
