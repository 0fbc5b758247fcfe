/* runtime/api/api_custom.c — rknn_custom_op.h: an application's CPU custom ops.
 * rknn_register_custom_ops binds every "cst*" node of the context's graph to the
 * registered op of its type (the executor calls the node's hook, ops_custom.c):
 * init and prepare run once at registration, compute at every run, destroy with the
 * context. The registrations outlive a re-prepare (rknn_set_input_shapes):
 * api_custom_bind hooks the new graph's nodes again and runs prepare with the new
 * shapes (init for a node bound for the first time). */
#include "runtime/api/api_internal.h"
#include "runtime/api/api_custom_view.h"
#include "rknn_custom_op.h"
#include "runtime/exec/exec.h"
#include "util/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct api_custom_node {
    exec_custom_hook hook;      /* first: the executor's view of it */
    api_ctx *c;
    int node;                   /* index in c->g */
    const rknn_custom_op *op;   /* in api_custom.ops */
    rknn_custom_op_context octx;
    api_custom_ref ref;         /* octx.internal_ctx: the node, for get_op_attr */
} api_custom_node;

struct api_custom {
    rknn_custom_op *ops;
    int n_ops;
    api_custom_node **nodes;
    int n_nodes;
};

/* Calls fn (init, prepare or compute) with the node's tensors as they are now. */
static int call(api_custom_node *b, graph_t *g, api_custom_cb fn)
{
    return api_custom_call(&b->octx, &b->ref, g, &g->nodes[b->node], fn);
}

static int hook_run(exec_custom_hook *h, graph_t *g, node_t *n, char *err, size_t errlen)
{
    api_custom_node *b = (api_custom_node *)h;
    int r = call(b, g, b->op->compute);

    if (r != 0)
        return rt_err(err, errlen, RT_EINVAL, "custom op %s: the application's compute "
                      "returned %d", n->op, r);
    return 0;
}

static const rknn_custom_op *find_op(const struct api_custom *cu, const char *type)
{
    for (int i = 0; cu && i < cu->n_ops; i++)
        if (!strcmp(cu->ops[i].op_type, type))
            return &cu->ops[i];
    return NULL;
}

/* Hooks every custom node of the current graph: a node bound before (the graph was
 * prepared again) gets its binding back and prepare runs with the new shapes; a node
 * met for the first time whose type is registered gets a binding, init and prepare.
 * The context may have no graph yet (dynamic dims not set): nodes bind when it has. */
static int bind_nodes(api_ctx *c, const char *fn)
{
    struct api_custom *cu = c->custom;

    for (int ni = 0; cu && c->g && ni < c->g->n_nodes; ni++) {
        node_t *n = &c->g->nodes[ni];
        api_custom_node *b = NULL;
        const rknn_custom_op *o;
        int fresh = 0;

        /* an int8/fp16 container's graph wraps the node (its outputs requantized) */
        if (!exec_op_is_custom(n->def) && !exec_op_is_custom(n->wraps))
            continue;
        for (int i = 0; i < cu->n_nodes && !b; i++)
            if (cu->nodes[i]->node == ni)
                b = cu->nodes[i];
        if (!b) {
            if (!(o = find_op(cu, n->op)))
                continue;
            b = xcalloc(1, sizeof(*b));
            b->hook.run = hook_run;
            b->c = c;
            b->node = ni;
            b->op = o;
            b->octx.target = RKNN_TARGET_TYPE_CPU;
            b->octx.internal_ctx = (rknn_custom_op_interal_context)(uintptr_t)&b->ref;
            cu->nodes = xrealloc(cu->nodes, sizeof(*cu->nodes) * (size_t)(cu->n_nodes + 1));
            cu->nodes[cu->n_nodes++] = b;
            fresh = 1;
        }
        *quant_node_kernel_priv(n) = b;
        b->ref.node = n;
        if ((fresh && b->op->init && call(b, c->g, b->op->init) != 0) ||
            (b->op->prepare && call(b, c->g, b->op->prepare) != 0)) {
            API_E("%s, custom op %s (node '%s'): the %s callback returned an error", fn,
                  b->op->op_type, n->name, fresh ? "init or prepare" : "prepare (new shapes)");
            return RKNN_ERR_FAIL;
        }
    }
    return RKNN_SUCC;
}

void api_custom_bind(api_ctx *c)
{
    bind_nodes(c, "rknn_set_input_shapes");
}

void api_custom_free(api_ctx *c)
{
    struct api_custom *cu = c->custom;

    if (!cu)
        return;
    for (int i = 0; i < cu->n_nodes; i++) {
        api_custom_node *b = cu->nodes[i];
        if (b->op->destroy)
            b->op->destroy(&b->octx);
        if (c->g)
            *quant_node_kernel_priv(&c->g->nodes[b->node]) = NULL;
        free(b);
    }
    free(cu->nodes);
    free(cu->ops);
    free(cu);
    c->custom = NULL;
}


/* Checks the array before anything is kept: one E line for the first problem. */
static int check_ops(const api_ctx *c, const rknn_custom_op *op, uint32_t num)
{
    static const char *const fn = "rknn_register_custom_ops";

    for (uint32_t i = 0; i < num; i++) {
        const rknn_custom_op *o = &op[i];
        if (!memchr(o->op_type, 0, sizeof(o->op_type)) || !o->op_type[0]) {
            API_E("%s, op[%u].op_type is empty or not terminated: set it to the model's op "
                  "type (\"cst...\")", fn, i);
            return RKNN_ERR_PARAM_INVALID;
        }
        if (o->target != RKNN_TARGET_TYPE_CPU) {
            API_E("%s, op %s: target %d is not simulated (GPU/OpenCL custom ops run on a "
                  "board only): use RKNN_TARGET_TYPE_CPU", fn, o->op_type, (int)o->target);
            return RKNN_ERR_PARAM_INVALID;
        }
        if (!o->compute) {
            API_E("%s, op %s has no compute callback: it is required", fn, o->op_type);
            return RKNN_ERR_PARAM_INVALID;
        }
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(op[j].op_type, o->op_type)) {
                API_E("%s, op type %s appears twice in the array: register each type once",
                      fn, o->op_type);
                return RKNN_ERR_PARAM_INVALID;
            }
        if (find_op(c->custom, o->op_type)) {
            API_E("%s, op type %s is already registered on this context: register each type "
                  "once per context (rknn_init again to change it)", fn, o->op_type);
            return RKNN_ERR_PARAM_INVALID;
        }
    }
    return RKNN_SUCC;
}

int rknn_register_custom_ops(rknn_context ctx, rknn_custom_op *op, uint32_t custom_op_num)
{
    static const char *const fn = "rknn_register_custom_ops";
    api_ctx *c = api_ctx_get_any(ctx, fn); /* a vendor file's custom ops too (api_vendor.c) */
    struct api_custom *cu;
    int st = RKNN_ERR_PARAM_INVALID;

    if (!c)
        return RKNN_ERR_CTX_INVALID;
    if (!op || custom_op_num == 0 || custom_op_num > 1024) {
        API_E("%s, op is NULL or custom_op_num (%u) is 0 or too large", fn, custom_op_num);
        goto out;
    }
    if ((st = check_ops(c, op, custom_op_num)) != RKNN_SUCC)
        goto out;
    if (!c->custom)
        c->custom = xcalloc(1, sizeof(*c->custom));
    cu = c->custom;
    /* bindings point into ops: keep them where they are, grow by a fresh copy */
    {
        rknn_custom_op *ops = xmalloc(sizeof(*ops) * (size_t)(cu->n_ops + (int)custom_op_num));
        if (cu->n_ops)
            memcpy(ops, cu->ops, sizeof(*ops) * (size_t)cu->n_ops);
        memcpy(ops + cu->n_ops, op, sizeof(*ops) * custom_op_num);
        for (int i = 0; i < cu->n_nodes; i++)
            cu->nodes[i]->op = ops + (cu->nodes[i]->op - cu->ops);
        free(cu->ops);
        cu->ops = ops;
        cu->n_ops += (int)custom_op_num;
    }
    if ((st = bind_nodes(c, fn)) != RKNN_SUCC)
        goto out;
    for (uint32_t i = 0; c->g && i < custom_op_num; i++) { /* no graph yet: binds later */
        int used = 0;
        for (int k = 0; k < cu->n_nodes; k++)
            used |= !strcmp(cu->nodes[k]->op->op_type, op[i].op_type);
        if (!used)
            API_W("%s, the model has no node of op type %s: it will never be called", fn,
                  op[i].op_type);
    }
    st = RKNN_SUCC;
out:
    api_ctx_put(c);
    return st;
}

void rknn_custom_op_get_op_attr(rknn_custom_op_context *op_ctx, const char *attr_name,
                                rknn_custom_op_attr *op_attr)
{
    const api_custom_ref *ref;
    const attr_t *a;

    if (!op_attr)
        return;
    memset(op_attr, 0, sizeof(*op_attr));
    if (!op_ctx || !attr_name || !op_ctx->internal_ctx)
        return;
    /* a context's binding, or `rknn-trace build --custom-op` calibrating through a
     * plugin library: both hand out an api_custom_ref */
    ref = (const api_custom_ref *)(uintptr_t)op_ctx->internal_ctx;
    snprintf(op_attr->name, sizeof(op_attr->name), "%s", attr_name);
    if (!ref->node || !(a = node_attr(ref->node, attr_name)))
        return;
    switch (a->type) {
    case ATTR_FLOAT:
        op_attr->dtype = RKNN_TENSOR_FLOAT32;
        op_attr->n_elems = 1;
        op_attr->data = (void *)&a->f;
        break;
    case ATTR_INT:
        op_attr->dtype = RKNN_TENSOR_INT64;
        op_attr->n_elems = 1;
        op_attr->data = (void *)&a->i;
        break;
    case ATTR_FLOATS:
        op_attr->dtype = RKNN_TENSOR_FLOAT32;
        op_attr->n_elems = (uint32_t)a->n;
        op_attr->data = a->floats;
        break;
    case ATTR_INTS:
        op_attr->dtype = RKNN_TENSOR_INT64;
        op_attr->n_elems = (uint32_t)a->n;
        op_attr->data = a->ints;
        break;
    case ATTR_STRING:
        op_attr->dtype = RKNN_TENSOR_UINT8;
        op_attr->n_elems = (uint32_t)strlen(a->s);
        op_attr->data = a->s;
        break;
    default:
        break;
    }
}
