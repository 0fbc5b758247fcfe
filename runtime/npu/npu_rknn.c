/* runtime/npu/npu_rknn.c — a vendor .rknn's compiled graph as NPU layers: one
 * layer per compiled node, with the compiler's own fusion, placement, dtypes and
 * shapes (read by runtime/model/rknn_file.h), for the cost model. What
 * `rknn-trace run model.rknn` predicts (record/source_predict.c) and what a
 * librknnrt context of such a file answers (runtime/api/api_vendor.c). */
#include "runtime/npu/npu.h"
#include "runtime/model/rknn_file.h"
#include "util/dtype.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int kind_of(const char *op)
{
    static const char *const move[] = {"Concat", "Split", "Slice", "Reshape", "Transpose",
                                       "Resize", "Pad", "Gather", "Flatten", "Squeeze",
                                       "Unsqueeze", "Expand", "Tile", "DepthToSpace",
                                       "SpaceToDepth", "ReshapeTranspose", "TransposeReshape",
                                       "exPassThrough", NULL};
    if (!strcmp(op, "InputOperator") || !strcmp(op, "OutputOperator"))
        return NPU_K_IO;
    if (!strcmp(op, "exDataConvert"))
        return NPU_K_CONVERT;
    if (!strncmp(op, "ConvTranspose", 13) || !strncmp(op, "Deconv", 6))
        return NPU_K_DECONV;
    if (!strncmp(op, "Conv", 4))
        return NPU_K_CONV;
    if (strstr(op, "MatMul") || !strcmp(op, "Gemm") || !strcmp(op, "exSDPAttention"))
        return NPU_K_MATMUL;
    if (strstr(op, "Pool"))
        return NPU_K_POOL;
    for (int i = 0; move[i]; i++)
        if (!strcmp(op, move[i]))
            return NPU_K_MOVE;
    if (!strncmp(op, "cst", 3) || !strcmp(op, "CustomOperator"))
        return NPU_K_OTHER;
    return NPU_K_ELTWISE;
}

static int npu_dtype_of(int code)
{
    switch (code) {
    case 10: return NPU_FP16;
    case 5: return NPU_INT16;
    case 16: return NPU_BF16;
    case 1: return NPU_FP16; /* no fp32 on the NPU: billed like the vendor's fp16 path */
    }
    return NPU_INT8;
}

static const char *datatype_of(int code)
{
    const char *s = dtype_vendor_name(code);
    return s && code != DT_UINT16 ? s : "INT8"; /* the rest as the NPU's int8 */
}

/* How the compiler stores a 4-D activation, from its native shape: NC1HWC2
 * [N, C1, H, W, C2] holds C1 * C2 channels (an NHWC image input is
 * [1, 1, H, W, C]: C2 = C, a model output may have an extra C1 slab); a 4-D
 * native shape is the tensor unpadded ([1, 1, N, C] of RV1103 head concats).
 * As in_align / out_align: channels padded to it, -1 none, 0 unknown (C2). */
static int native_align(const rknn_tensor *t)
{
    if (t->nd != 4)
        return 0;
    if (t->nnd == 4)
        return -1;
    if (t->nnd == 5 && t->native[1] > 0 && t->native[4] > 0 &&
        t->native[1] * t->native[4] >= t->shape[1] && t->native[1] * t->native[4] <= 1 << 20)
        return t->native[1] * t->native[4] > 1 ? (int)(t->native[1] * t->native[4]) : -1;
    return 0;
}

/* A layer's tensor of more dims than an NPU layer holds: refused by name
 * rather than cut (the file may have any rank). */
/* Bounds of a tensor the NPU model takes from a file, so that the cost's
 * products of shapes (a conv's pixels x kernel x channels, bytes x 100) stay
 * inside 64 bits: a dimension of 2^24 and a tensor of 2^32 elements, far
 * beyond any model a board runs (the largest dimension of the public files we
 * read is a BERT vocabulary's 30,522 rows). Beyond them: one error naming the
 * tensor and the bound. */
#define NPU_RKNN_MAX_DIM (1LL << 24)
#define NPU_RKNN_MAX_ELEMS (1LL << 32)

static int too_many_dims(const rknn_tensor *t, int i, const rknn_node *n, char *err, size_t errlen)
{
    if (t->nd > NPU_SHAPE_MAX)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node %d (%s): tensor '%s' has %d dims, the "
                      "NPU model's layers take at most %d", i + 1, n->name, t->name, t->nd,
                      NPU_SHAPE_MAX);
    int64_t e = 1;
    for (int k = 0; k < t->nd; k++) {
        if (t->shape[k] > NPU_RKNN_MAX_DIM)
            return rt_err(err, errlen, RT_EFORMAT, "node %d (%s): tensor '%s' dim %d is %lld, "
                          "beyond %lld", i + 1, n->name, t->name, k, (long long)t->shape[k],
                          (long long)NPU_RKNN_MAX_DIM);
        e *= t->shape[k] > 0 ? t->shape[k] : 1;
        if (e > NPU_RKNN_MAX_ELEMS)
            return rt_err(err, errlen, RT_EFORMAT, "node %d (%s): tensor '%s' holds more than "
                          "%lld elements", i + 1, n->name, t->name, (long long)NPU_RKNN_MAX_ELEMS);
    }
    return 0;
}

static void to_shape(const rknn_tensor *t, npu_shape_t *s)
{
    s->nd = t->nd < NPU_SHAPE_MAX ? t->nd : NPU_SHAPE_MAX;
    for (int k = 0; k < s->nd; k++)
        s->d[k] = t->shape[k];
}

int npu_graph_of_rknn(const rknn_model *m, const npu_platform_t *p, npu_graph_t **out,
                  graph_t **gout, char *err, size_t errlen)
{
    npu_graph_t *ng = xcalloc(1, sizeof(*ng));
    graph_t *g = graph_new();
    int dt_count[NPU_NDTYPE] = {0};

    ng->plat = p;
    ng->cores = 1;
    ng->n = ng->cap = m->n_nodes;
    ng->l = xcalloc((size_t)(m->n_nodes ? m->n_nodes : 1), sizeof(*ng->l));
    ng->n_nodes = m->n_nodes;
    ng->node_layer = xmalloc(sizeof(int) * (size_t)(m->n_nodes ? m->n_nodes : 1));
    ng->n_values = m->n_tensors;
    for (int i = 0; i < m->n_tensors; i++) {
        const rknn_tensor *t = &m->tensors[i];
        char name[64];
        const char *use = t->name;
        if (!use[0] || graph_find_tensor(g, use) >= 0) {
            snprintf(name, sizeof(name), "#%d", i);
            use = name;
        }
        int idx = graph_add_tensor(g, use);
        tensor_t *gt = &g->t[idx];
        gt->dtype = t->dtype;
        gt->ndim = t->nd < MODEL_MAX_DIMS ? t->nd : MODEL_MAX_DIMS;
        for (int k = 0; k < gt->ndim; k++)
            gt->dims[k] = t->shape[k];
        gt->is_output = t->kind == RKNN_TK_OUTPUT;
    }
    for (int i = 0; i < m->n_nodes; i++) {
        const rknn_node *n = &m->nodes[i];
        npu_layer_t *l = &ng->l[i];
        const rknn_tensor *first_out = NULL, *weight = NULL, *data_in = NULL, *data_in2 = NULL;
        int dcode = -1;

        l->id = i + 1;
        snprintf(l->optype, sizeof(l->optype), "%s", n->type);
        l->fullname = xstrdup(n->name);
        l->target = n->target == RKNN_TGT_NPU ? NPU_TGT_NPU : NPU_TGT_CPU;
        l->kind = kind_of(n->type);
        if (l->target == NPU_TGT_CPU && l->kind != NPU_K_IO)
            l->reason = xstrdup("placed on the CPU by the vendor compiler");
        l->src_nodes = xmalloc(sizeof(int));
        l->src_nodes[0] = i;
        l->n_src_nodes = 1;
        ng->node_layer[i] = i;
        l->in_v = xmalloc(sizeof(int) * (size_t)(n->n_in + 1));
        l->out_v = xmalloc(sizeof(int) * (size_t)(n->n_out + 1));
        l->src_tensors = xcalloc((size_t)n->n_out + 1, sizeof(char *));
        l->out_tensor = -1;
        for (int k = 0; k < n->n_in; k++) {
            const rknn_tensor *t = &m->tensors[n->in[k]];
            if (rknn_kind_is_blob(t->kind) || rknn_alias_input(m, n, k))
                continue;
            if (too_many_dims(t, i, n, err, errlen))
                goto fail;
            if (l->n_in < NPU_MAX_IO) {
                to_shape(t, &l->in[l->n_in]);
                l->in_const[l->n_in] = rknn_kind_is_const(t->kind);
                /* Input/OutputOperator convert as our lowering costs them (C2) */
                l->in_align[l->n_in] = l->kind == NPU_K_IO ? 0 : native_align(t);
            }
            l->n_in++;
            if (rknn_kind_is_const(t->kind)) {
                if (!weight && t->nd == 4)
                    weight = t;
            } else {
                l->in_v[l->n_in_v++] = n->in[k];
                if (!data_in)
                    data_in = t;
                else if (!data_in2)
                    data_in2 = t;
            }
        }
        for (int k = 0; k < n->n_out; k++) {
            const rknn_tensor *t = &m->tensors[n->out[k]];
            if (rknn_kind_is_blob(t->kind))
                continue;
            if (too_many_dims(t, i, n, err, errlen))
                goto fail;
            if (l->n_out < NPU_MAX_IO) {
                to_shape(t, &l->out[l->n_out]);
                l->out_align[l->n_out] = l->kind == NPU_K_IO ? 0 : native_align(t);
            }
            l->n_out++;
            l->out_v[l->n_out_v++] = n->out[k];
            l->src_tensors[l->n_src_tensors++] = xstrdup(t->name);
            if (!first_out) {
                first_out = t;
                l->out_tensor = n->out[k];
                l->out_is_graph_output = t->kind == RKNN_TK_OUTPUT;
            }
        }
        /* an exSoftmax13's constant (k, L, 1, 1) is sized by its reduction
         * length L (toolkit 2.3.2: (1,2,1,1) over RetinaFace's (1,4200,1,2);
         * a real rk3588 table: (1,17,1,1) over (4,80,80,17)), C-aligned when
         * the reduction is over C (1008 for 1001 classes: rows rounded up) */
        if ((!strcmp(n->type, "exSoftmax13") || !strcmp(n->type, "Softmax")) && weight &&
            weight->shape[2] == 1 && weight->shape[3] == 1 && weight->shape[1] > 0 && first_out) {
            int64_t e = 1;
            for (int k = 0; k < first_out->nd; k++)
                e *= first_out->shape[k] > 0 ? first_out->shape[k] : 0;
            l->softmax_rows = (e + weight->shape[1] - 1) / weight->shape[1];
        }
        /* an exSDPAttention's output is (heads, dv, 1, Lq) (RF-DETR rows
         * 130/190: (24,64,1,257)): heads x Lq query rows */
        if (!strcmp(n->type, "exSDPAttention") && first_out && first_out->nd == 4)
            l->softmax_rows = first_out->shape[0] * first_out->shape[2] * first_out->shape[3];
        /* the layer's data type: its output's (OutputOperator: its input's) */
        dcode = first_out ? first_out->dtype : data_in ? data_in->dtype : 3;
        l->dtype = npu_dtype_of(dcode);
        snprintf(l->datatype, sizeof(l->datatype), "%s", datatype_of(dcode));
        if (l->target == NPU_TGT_NPU && p->mac_ic[l->dtype] == 0) {
            rt_err(err, errlen, RT_EUNSUPPORTED,
                   "node %d (%s): dtype %s is not supported by the %s NPU; the file does not fit "
                   "this chip", i + 1, n->name, npu_dtype_name(l->dtype), p->name);
            goto fail;
        }
        if (l->target == NPU_TGT_NPU)
            dt_count[l->dtype]++;
        /* MAC geometry of the conv family, from the compiler's shapes */
        if ((l->kind == NPU_K_CONV || l->kind == NPU_K_DECONV) && data_in && first_out &&
            data_in->nd == 4 && first_out->nd == 4) {
            l->ic = (int)data_in->shape[1];
            l->oc = (int)first_out->shape[1];
            l->kh = n->n_kernel == 2 ? (int)n->kernel[0] : weight ? (int)weight->shape[2] : 1;
            l->kw = n->n_kernel == 2 ? (int)n->kernel[1] : weight ? (int)weight->shape[3] : 1;
            l->group = weight && weight->shape[1] > 0 && l->ic % weight->shape[1] == 0
                           ? (int)(l->ic / weight->shape[1]) : 1;
            /* toolkit 2.3.2's RK35xx files store a depthwise weight as
             * (1, C, kh, kw), RV1103's as (C, 1, kh, kw): a dense conv with
             * C outputs would have C rows, so one row and C = ic = oc > 1 is
             * the depthwise one */
            if (weight && weight->shape[0] == 1 && weight->shape[1] == l->ic && l->ic > 1 &&
                l->oc == l->ic)
                l->group = l->ic;
            if (l->kind == NPU_K_CONV && l->group > 1 && l->group == l->ic && l->oc == l->ic)
                l->kind = NPU_K_DWCONV;
            l->out_pixels = first_out->shape[0] * first_out->shape[2] * first_out->shape[3];
            if (l->kind == NPU_K_DECONV)
                l->out_pixels = data_in->shape[0] * data_in->shape[2] * data_in->shape[3];
            if (l->ic <= 0 || l->oc <= 0 || l->kh <= 0 || l->kw <= 0 || l->out_pixels <= 0) {
                rt_err(err, errlen, RT_EFORMAT, "node %d (%s): shapes do not describe a "
                       "convolution", i + 1, n->name);
                goto fail;
            }
        } else if (!strcmp(n->type, "exSDPAttention") && data_in && data_in2 && first_out &&
                   data_in->nd == 4 && data_in2->nd == 4 && first_out->nd == 4) {
            /* Q (heads, d, 1, Lq), K (heads, d, 1, Lk), output (heads, dv, 1, Lq)
             * (random_bert.rk3588: (4,8,1,32) each; RF-DETR rows (24,64,1,257)):
             * Q K^T then P V, as the ONNX lowering bills it (npu_lower.c) */
            l->ic = (int)data_in->shape[1];
            l->oc = (int)data_in2->shape[3];
            l->attn_dv = (int)first_out->shape[1];
            l->out_pixels = first_out->shape[0] * first_out->shape[2] * first_out->shape[3];
            l->px_batch = first_out->shape[0];
            l->kh = l->kw = 1;
        } else if (l->kind == NPU_K_MATMUL && data_in && first_out && data_in->nd >= 2 &&
                   first_out->nd >= 2) {
            l->ic = (int)data_in->shape[data_in->nd - 1];
            l->oc = (int)first_out->shape[first_out->nd - 1];
            l->out_pixels = 1;
            for (int k = 0; k < first_out->nd - 1; k++)
                l->out_pixels *= first_out->shape[k];
            l->kh = l->kw = 1;
        } else if (l->kind == NPU_K_CONV || l->kind == NPU_K_DECONV || l->kind == NPU_K_MATMUL) {
            l->kind = NPU_K_OTHER; /* no geometry: costed by its data only */
        }
    }
    /* the model's dtype: what most NPU layers compute in */
    ng->dtype = NPU_INT8;
    for (int d = 0; d < NPU_NDTYPE; d++)
        if (dt_count[d] > dt_count[ng->dtype])
            ng->dtype = d;
    *out = ng;
    *gout = g;
    return 0;
fail:
    npu_graph_free(ng);
    graph_free(g);
    return RT_EUNSUPPORTED;
}
