/* runtime/exec/ops_custom.c — custom ops ("cst*" op types): the executor's side. The
 * implementation belongs to whoever set the node's hook (the C API's
 * rknn_register_custom_ops) or the process's default hook (`rknn-trace build
 * --custom-op`); shapes come from the model or follow input 0. */
#include "runtime/exec/exec.h"
#include "util/util.h"

#include <string.h>

static int custom_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    const tensor_t *x = n->n_in > 0 ? node_input(g, n, 0) : NULL;

    for (int i = 0; i < n->n_out; i++) {
        tensor_t *t = node_output(g, n, i);
        int declared = t && t->ndim >= 0 && t->dtype != DT_UNDEFINED;

        for (int d = 0; declared && d < t->ndim; d++)
            declared = t->dims[d] > 0;
        if (!t || declared)
            continue;
        if (!x)
            return rt_err(err, errlen, RT_ESHAPE,
                          "custom op %s: output '%s' has no declared shape and no input to "
                          "take one from: declare it in the model", n->op, t->name);
        t->dtype = x->dtype;
        t->ndim = x->ndim;
        memcpy(t->dims, x->dims, sizeof(t->dims));
    }
    return 0;
}

static exec_custom_hook *default_hook;

void exec_custom_set_default(exec_custom_hook *h)
{
    default_hook = h;
}

static int custom_run(op_ctx *c, graph_t *g, node_t *n)
{
    exec_custom_hook *h = n->priv ? n->priv : default_hook;

    if (!h)
        return rt_err(c->err, c->errlen, RT_EUNSUPPORTED,
                      "custom op %s has no implementation: register op_type \"%s\" with "
                      "rknn_register_custom_ops after rknn_init", n->op, n->op);
    return h->run(h, g, n, c->err, c->errlen);
}

const op_def exec_op_custom = {"cst*", "", custom_infer, NULL, custom_run, NULL, NULL};

int exec_op_is_custom(const op_def *d)
{
    return d == &exec_op_custom;
}
