/* runtime/api/api_custom_view.h — what a custom op's callbacks are handed: shared by
 * librknnrt (rknn_register_custom_ops, api_custom.c) and `rknn-trace build
 * --custom-op` (calibration through the application's callbacks in a plugin library,
 * cli/cmd_build.c), so that one set of callbacks sees the same tensors and attributes
 * in both. Header-only: the CLI does not link librknnrt's objects. */
#ifndef RT_API_CUSTOM_VIEW_H
#define RT_API_CUSTOM_VIEW_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_custom_op.h"
#include "runtime/model/model.h"

/* What rknn_custom_op_context.internal_ctx points to: the node whose attributes
 * rknn_custom_op_get_op_attr reads. Whoever calls the callbacks keeps node current
 * (a re-prepared graph has new nodes). A plugin library's get_op_attr calls resolve
 * to librknnrt's, which needs nothing else. */
typedef struct api_custom_ref {
    const node_t *node;
} api_custom_ref;

/* The rknn_tensor_type of a model dtype and its element size; FLOAT32 (4) for a
 * dtype the API has no name for. */
static inline int api_custom_rtype(int dt, size_t *esize)
{
    switch (dt) {
    case DT_FLOAT16: *esize = 2; return RKNN_TENSOR_FLOAT16;
    case DT_INT8: *esize = 1; return RKNN_TENSOR_INT8;
    case DT_UINT8: *esize = 1; return RKNN_TENSOR_UINT8;
    case DT_INT16: *esize = 2; return RKNN_TENSOR_INT16;
    case DT_UINT16: *esize = 2; return RKNN_TENSOR_UINT16;
    case DT_INT32: *esize = 4; return RKNN_TENSOR_INT32;
    case DT_UINT32: *esize = 4; return RKNN_TENSOR_UINT32;
    case DT_INT64: *esize = 8; return RKNN_TENSOR_INT64;
    case DT_BOOL: *esize = 1; return RKNN_TENSOR_BOOL;
    case DT_BFLOAT16: *esize = 2; return RKNN_TENSOR_BFLOAT16;
    default: *esize = 4; return RKNN_TENSOR_FLOAT32;
    }
}

/* The tensor as the callbacks see it: model layout and type, NCHW for 4-D, the
 * executor's buffer as mem.virt_addr (fd -1, offset 0). */
static inline void api_custom_view(const tensor_t *t, rknn_custom_op_tensor *v)
{
    size_t n = 1, es;

    memset(v, 0, sizeof(*v));
    snprintf(v->attr.name, sizeof(v->attr.name), "%s", t->name);
    v->attr.n_dims = (uint32_t)(t->ndim > 0 ? t->ndim : 0);
    for (int d = 0; d < t->ndim && d < RKNN_MAX_DIMS; d++) {
        v->attr.dims[d] = (uint32_t)t->dims[d];
        n *= (size_t)t->dims[d];
    }
    v->attr.n_elems = (uint32_t)n;
    v->attr.type = (rknn_tensor_type)api_custom_rtype(t->dtype, &es);
    v->attr.size = (uint32_t)(n * es);
    v->attr.size_with_stride = v->attr.size;
    v->attr.fmt = t->ndim == 4 ? RKNN_TENSOR_NCHW : RKNN_TENSOR_UNDEFINED;
    v->attr.qnt_type = RKNN_TENSOR_QNT_NONE;
    v->attr.scale = 1.0f;
    v->mem.virt_addr = t->data;
    v->mem.fd = -1;
    v->mem.size = v->attr.size;
}

/* Views of node n's present inputs then outputs into io (n_in + n_out entries);
 * the number of inputs viewed into *n_inputs, the total returned. */
static inline int api_custom_views(const graph_t *g, const node_t *n,
                                   rknn_custom_op_tensor *io, uint32_t *n_inputs)
{
    int k = 0;

    for (int i = 0; i < n->n_in; i++)
        if (n->in[i] >= 0)
            api_custom_view(&g->t[n->in[i]], &io[k++]);
    *n_inputs = (uint32_t)k;
    for (int i = 0; i < n->n_out; i++)
        if (n->out[i] >= 0)
            api_custom_view(&g->t[n->out[i]], &io[k++]);
    return k;
}

typedef int (*api_custom_cb)(rknn_custom_op_context *, rknn_custom_op_tensor *, uint32_t,
                             rknn_custom_op_tensor *, uint32_t);

/* One callback on node n of g as the runtime hands it: the node's tensors viewed,
 * ref (what octx's internal_ctx points to) made current for get_op_attr. */
static inline int api_custom_call(rknn_custom_op_context *octx, api_custom_ref *ref, graph_t *g,
                                  const node_t *n, api_custom_cb fn)
{
    rknn_custom_op_tensor *io = (rknn_custom_op_tensor *)calloc((size_t)(n->n_in + n->n_out) + 1,
                                                                sizeof(*io));
    uint32_t n_in;
    int k, r;

    if (!io)
        return -1;
    k = api_custom_views(g, n, io, &n_in);
    ref->node = n;
    r = fn(octx, io, n_in, io + n_in, (uint32_t)k - n_in);
    free(io);
    return r;
}

#endif
