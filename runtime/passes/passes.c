/* runtime/passes/passes.c — passes_prepare(): caller shapes, op resolution,
 * shape inference with constant folding, op preparation. */
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include "runtime/passes/passes.h"
#include "runtime/exec/exec.h"
#include "util/util.h"

/* Folding a node whose output is bigger than this is left to run time: a
 * folded constant stays in memory for the life of the graph. */
#define FOLD_MAX_BYTES ((size_t)64 << 20)
/* No run-time tensor may exceed this (a guard against absurd shapes). */
#define TENSOR_MAX_BYTES ((size_t)16 << 30)

static int is_input(const graph_t *g, int t)
{
    int i;

    for (i = 0; i < g->n_inputs; i++)
        if (g->inputs[i] == t)
            return 1;
    return 0;
}

static void list_inputs(const graph_t *g, char *buf, size_t len)
{
    size_t off = 0;
    int i;

    buf[0] = 0;
    for (i = 0; i < g->n_inputs && off + 1 < len; i++) {
        int w = snprintf(buf + off, len - off, "%s'%s'", i ? ", " : "",
                         g->t[g->inputs[i]].name);
        if (w < 0)
            break;
        off += (size_t)w;
    }
    if (!g->n_inputs)
        snprintf(buf, len, "none");
}

/* "[?,3,?,?]" and a suggestion "1,3,height,width" for the error message. */
/* "[batch,3,h,w]" (symbolic names, '?' for unnamed dynamic dims) and a hint
 * that pastes into a shell: a number for every dim (batch 1, image sides 224,
 * others 1) and the name quoted when it holds characters a shell would read;
 * named lists the dims the user should size. */
static void dyn_dims_text(const tensor_t *t, char *shape, size_t slen, char *hint, size_t hlen,
                          char *named, size_t nlen)
{
    size_t so = 0, ho = 0, no = 0;
    int image = t->ndim == 4 && (t->dims[1] == 1 || t->dims[1] == 3);
    const char *q = "";

    for (const char *p = t->name; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_.-/:", *p))
            q = "'";
    if (strchr(t->name, '\''))
        q = "\"";
    so += (size_t)snprintf(shape, slen, "[");
    ho += (size_t)snprintf(hint, hlen, "%s%s=", q, t->name);
    named[0] = 0;
    for (int i = 0; i < t->ndim && i < MODEL_MAX_DIMS; i++) {
        const char *sep = i ? "," : "";
        long long v = t->dims[i] >= 0 ? t->dims[i] : i == 0 ? 1 : image && i >= 2 ? 224 : 1;
        int w;

        if (so < slen) {
            w = t->dims[i] >= 0 ? snprintf(shape + so, slen - so, "%s%lld", sep, v)
                                : snprintf(shape + so, slen - so, "%s%s", sep,
                                           t->dim_param[i] ? t->dim_param[i] : "?");
            so += w > 0 ? (size_t)w : 0;
        }
        if (ho < hlen) {
            w = snprintf(hint + ho, hlen - ho, "%s%lld", sep, v);
            ho += w > 0 ? (size_t)w : 0;
        }
        if (t->dims[i] < 0 && i > 0 && no < nlen) {
            w = snprintf(named + no, nlen - no, "%s%s", no ? ", " : "",
                         t->dim_param[i] ? t->dim_param[i] : "?");
            no += w > 0 ? (size_t)w : 0;
        }
    }
    if (so < slen)
        snprintf(shape + so, slen - so, "]");
    if (ho < hlen)
        snprintf(hint + ho, hlen - ho, "%s", q);
}

static int apply_shapes(graph_t *g, const input_shape_t *shapes, int n_shapes, char *err,
                        size_t errlen)
{
    char buf[512], hint[512], named[256];
    int i, j;

    for (i = 0; i < n_shapes; i++) {
        const input_shape_t *s = &shapes[i];
        int idx = s->name ? graph_find_tensor(g, s->name) : -1;
        tensor_t *t;

        if (idx < 0 || !is_input(g, idx)) {
            list_inputs(g, buf, sizeof(buf));
            return rt_err(err, errlen, RT_EINVAL, "the model has no input named '%s' (inputs: %s)",
                          s->name ? s->name : "(null)", buf);
        }
        t = &g->t[idx];
        if (s->ndim < 0 || s->ndim > MODEL_MAX_DIMS)
            return rt_err(err, errlen, RT_EINVAL, "input '%s': bad rank %d", s->name, s->ndim);
        if (t->ndim >= 0 && t->ndim != s->ndim)
            return rt_err(err, errlen, RT_ESHAPE,
                          "input '%s' has %d dims in the model, the given shape has %d",
                          s->name, t->ndim, s->ndim);
        for (j = 0; j < s->ndim; j++) {
            if (s->dims[j] < 0)
                return rt_err(err, errlen, RT_EINVAL, "input '%s': dim %d is negative", s->name,
                              j);
            if (t->ndim >= 0 && t->dims[j] >= 0 && t->dims[j] != s->dims[j])
                return rt_err(err, errlen, RT_ESHAPE,
                              "input '%s': dim %d is fixed to %lld in the model, the given "
                              "shape has %lld", s->name, j, (long long)t->dims[j],
                              (long long)s->dims[j]);
        }
        t->ndim = s->ndim;
        for (j = 0; j < s->ndim; j++)
            t->dims[j] = s->dims[j];
    }
    for (i = 0; i < g->n_inputs; i++) {
        tensor_t *t = &g->t[g->inputs[i]];

        if (t->ndim < 0)
            return rt_err(err, errlen, RT_ESHAPE,
                          "input '%s' has no shape in the model; give it with --shape %s=D0,D1,...",
                          t->name, t->name);
        for (j = 0; j < t->ndim && t->dims[j] >= 0; j++)
            ;
        if (j == t->ndim && tensor_numel(t) < 0)
            return rt_err(err, errlen, RT_ESHAPE, "input '%s' is too large", t->name);
        if (tensor_numel(t) < 0) {
            dyn_dims_text(t, buf, sizeof(buf), hint, sizeof(hint), named, sizeof(named));
            return rt_err(err, errlen, RT_ESHAPE, "input '%s' has dynamic dims %s; give e.g. "
                          "--shape %s%s%s%s", t->name, buf, hint, named[0] ? " (your sizes for " : "",
                          named, named[0] ? ")" : "");
        }
        if (dtype_size(t->dtype) == 0)
            return rt_err(err, errlen, RT_EUNSUPPORTED, "input '%s' has unsupported type %s (%d)",
                          t->name, dtype_name(t->dtype), t->dtype);
        if (tensor_nbytes(t) > TENSOR_MAX_BYTES)
            return rt_err(err, errlen, RT_ESHAPE, "input '%s' is too large (%zu bytes)",
                          t->name, tensor_nbytes(t));
    }
    return 0;
}

/* Resolves every node's op; the message names each unsupported op once. */
static int resolve_ops(graph_t *g, char *err, size_t errlen)
{
    char msg[1024];
    size_t off = 0;
    int i, j, n_bad = 0, n_listed = 0;

    msg[0] = 0;
    for (i = 0; i < g->n_nodes; i++) {
        node_t *n = &g->nodes[i];
        int seen = 0;

        n->def = exec_find_op(n->domain, n->op);
        if (n->def)
            continue;
        n_bad++;
        for (j = 0; j < i; j++)
            if (!g->nodes[j].def && strcmp(g->nodes[j].op, n->op) == 0 &&
                strcmp(g->nodes[j].domain, n->domain) == 0)
                seen = 1;
        if (seen)
            continue;
        if (off < sizeof(msg) - 200) {
            int w = snprintf(msg + off, sizeof(msg) - off, "%s'%s%s%s' (node '%.80s')",
                             n_listed ? ", " : "", n->domain, *n->domain ? "." : "", n->op,
                             n->name);
            off += w > 0 ? (size_t)w : 0;
        } else if (n_listed && msg[off - 1] != '.') {
            snprintf(msg + off, sizeof(msg) - off, ", ...");
            off = sizeof(msg) - 1;
        }
        n_listed++;
    }
    if (!n_bad)
        return 0;
    return rt_err(err, errlen, RT_EUNSUPPORTED, "unsupported op%s %s", n_listed > 1 ? "s" : "",
                  msg);
}

/* A node can be computed now if it has inputs and all are constants. Shape and
 * Size only look at the (now static) shape of their input. */
static int foldable(const graph_t *g, const node_t *n)
{
    int i, have = 0;

    if (!*n->domain && (strcmp(n->op, "Shape") == 0 || strcmp(n->op, "Size") == 0))
        return 1;
    if (exec_op_is_custom(n->def)) /* computed by the application, at run time */
        return 0;
    for (i = 0; i < n->n_in; i++) {
        int t = n->in[i];

        if (t < 0)
            continue;
        if (g->t[t].kind != TK_CONST || !g->t[t].data)
            return 0;
        have = 1;
    }
    return have;
}

static int check_outputs(graph_t *g, node_t *n, size_t *total, char *err, size_t errlen)
{
    char sh[128];
    int i;

    *total = 0;
    for (i = 0; i < n->n_out; i++) {
        tensor_t *t = node_output(g, n, i);
        size_t nb;

        if (!t)
            continue;
        if (tensor_numel(t) < 0)
            return rt_err(err, errlen, RT_ESHAPE,
                          "node '%s' (%s): the shape of output '%s' is not known (%s)", n->name,
                          n->op, t->name, tensor_shape_str(t, sh, sizeof(sh)));
        if (dtype_size(t->dtype) == 0)
            return rt_err(err, errlen, RT_EUNSUPPORTED,
                          "node '%s' (%s): output '%s' has unsupported type %s", n->name, n->op,
                          t->name, dtype_name(t->dtype));
        nb = tensor_nbytes(t);
        if (nb > TENSOR_MAX_BYTES || (nb == 0 && tensor_numel(t) > 0))
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): output '%s' is too large (%s)",
                          n->name, n->op, t->name, tensor_shape_str(t, sh, sizeof(sh)));
        *total += nb;
    }
    return 0;
}

static int fold_node(graph_t *g, node_t *n, char *err, size_t errlen)
{
    op_ctx c;
    char cerr[512];
    int i, ret;

    for (i = 0; i < n->n_out; i++) {
        tensor_t *t = node_output(g, n, i);
        size_t nb;

        if (!t)
            continue;
        nb = tensor_nbytes(t);
        free(t->data);
        t->data = xaligned_alloc(nb ? nb : 64);
        memset(t->data, 0, nb ? nb : 64);
    }
    memset(&c, 0, sizeof(c));
    cerr[0] = 0;
    c.nthreads = 1;
    c.err = cerr;
    c.errlen = sizeof(cerr);
    ret = n->def->run(&c, g, n);
    if (ret) {
        for (i = 0; i < n->n_out; i++) {
            tensor_t *t = node_output(g, n, i);

            if (t)
                tensor_free_data(t);
        }
        return rt_err(err, errlen, ret < 0 ? ret : RT_EINTERNAL,
                      "node '%s' (%s): constant folding failed: %s", n->name, n->op,
                      cerr[0] ? cerr : rt_status_str(ret));
    }
    for (i = 0; i < n->n_out; i++) {
        tensor_t *t = node_output(g, n, i);

        if (t)
            t->kind = TK_CONST;
    }
    n->folded = 1;
    return 0;
}

static int infer_all(graph_t *g, char *err, size_t errlen)
{
    char sh[128];
    int i, j, ret;

    for (i = 0; i < g->n_nodes; i++) {
        node_t *n = &g->nodes[i];
        size_t total;

        if (n->folded)
            continue;
        for (j = 0; j < n->n_in; j++) {
            tensor_t *t = node_input(g, n, j);

            if (t && (tensor_numel(t) < 0 || dtype_size(t->dtype) == 0))
                return rt_err(err, errlen, RT_ESHAPE,
                              "node '%s' (%s): input '%s' has no known shape/type (%s %s)",
                              n->name, n->op, t->name, dtype_name(t->dtype),
                              tensor_shape_str(t, sh, sizeof(sh)));
        }
        /* kernels rely on output 0; only the RNN family may omit it */
        if ((n->n_out < 1 || n->out[0] < 0) && strcmp(n->op, "LSTM") && strcmp(n->op, "GRU") &&
            strcmp(n->op, "RNN"))
            return rt_err(err, errlen, RT_EFORMAT, "node '%s' (%s) has no output", n->name,
                          n->op);
        if (!n->def->infer)
            return rt_err(err, errlen, RT_EINTERNAL, "op %s has no shape inference", n->op);
        err[0] = 0;
        ret = n->def->infer(g, n, err, errlen);
        if (ret) {
            if (!err[0])
                rt_err(err, errlen, ret, "node '%s' (%s): shape inference failed", n->name,
                       n->op);
            return ret;
        }
        ret = check_outputs(g, n, &total, err, errlen);
        if (ret)
            return ret;
        if (n->def->run && total <= FOLD_MAX_BYTES && foldable(g, n)) {
            ret = fold_node(g, n, err, errlen);
            if (ret)
                return ret;
        }
    }
    return 0;
}

int passes_prepare(graph_t *g, const input_shape_t *shapes, int n_shapes, char *err,
                   size_t errlen)
{
    char dummy[8];
    int i, ret;

    if (!err || !errlen) {
        err = dummy;
        errlen = sizeof(dummy);
    }
    err[0] = 0;
    passes_widen_fp16(g);
    ret = apply_shapes(g, shapes, n_shapes, err, errlen);
    if (ret)
        return ret;
    ret = resolve_ops(g, err, errlen);
    if (ret)
        return ret;
    ret = infer_all(g, err, errlen);
    if (ret)
        return ret;
    passes_fold_batchnorm(g);
    for (i = 0; i < g->n_nodes; i++) {
        node_t *n = &g->nodes[i];

        if (n->folded || !n->def->prepare)
            continue;
        ret = n->def->prepare(g, n, err, errlen);
        if (ret) {
            if (!err[0])
                rt_err(err, errlen, ret, "node '%s' (%s): prepare failed", n->name, n->op);
            return ret;
        }
    }
    return 0;
}
