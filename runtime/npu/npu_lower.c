/* runtime/npu/npu_lower.c — a prepared graph into the layers the vendor runtime
 * executes: fusion into its op names, CPU fallback with a reason, and the
 * InputOperator / OutputOperator / exDataConvert rows.
 *
 * Sources: rknn-oplist.md (§2-§4: which ops each chip's NPU has and the limits
 * that force CPU fallback, SDK 2.3.2 op list), npu-hw.md §3.3 (fusion rules,
 * G:L9229-9270) and the op names seen in real logs (log-formats.md §3.1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/npu/npu.h"
#include "util/util.h"

/* op-list families (rknn-oplist.md §2) */
enum {
    F3588 = 1, F3576 = 2, F356X = 4, F3562 = 8, F1106 = 16,
    FALL = 31, FBIG = F3588 | F3576 | F356X | F3562,
};

typedef struct op_rule {
    const char *onnx;
    const char *vendor;  /* vendor OpType when not fused */
    int kind;
    unsigned npu;        /* families whose NPU has the op */
    unsigned cpu;        /* families with a CPU implementation */
    int fp16_only;       /* NPU implementation is float16 only */
} op_rule;

/* rknn-oplist.md §3 table; CPU column: the big CPU op set on every chip but
 * RV1103/RV1106, whose runtime has only Concat, DataConvert, Div, exLayerNorm,
 * Exp, Gather, ReduceL2, ReduceMax, Reshape, ScatterND, Softmax (§1). */
static const op_rule rules[] = {
    {"Conv", "Conv", NPU_K_CONV, FALL, FBIG, 0},
    {"ConvTranspose", "ConvTranspose", NPU_K_DECONV, FALL, FBIG, 0},
    {"Gemm", "Conv", NPU_K_CONV, FALL, FBIG, 0},
    {"MatMul", "exMatMul", NPU_K_MATMUL, FALL, FBIG, 0},
    {"Add", "Add", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"Sub", "Sub", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"Mul", "Mul", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"Div", "Div", NPU_K_ELTWISE, FALL, FALL, 1},
    {"Max", "Max", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"Min", "Min", NPU_K_ELTWISE, FALL & ~F3562, FBIG, 0},
    {"Pow", "Pow", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"Sqrt", "Sqrt", NPU_K_ELTWISE, 0, FBIG, 0},
    {"Exp", "Exp", NPU_K_ELTWISE, 0, FALL, 0},
    {"Log", "Log", NPU_K_ELTWISE, 0, FBIG, 0},
    {"Erf", "Erf", NPU_K_ELTWISE, 0, FBIG, 0},
    {"Floor", "Floor", NPU_K_ELTWISE, 0, FBIG, 0},
    {"Round", "Round", NPU_K_ELTWISE, 0, FBIG, 0},
    {"Mod", "Mod", NPU_K_ELTWISE, 0, FBIG, 0},
    {"Relu", "Relu", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"LeakyRelu", "LeakyRelu", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"PRelu", "PRelu", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"Clip", "Clip", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"Sigmoid", "Sigmoid", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"Tanh", "Tanh", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"Elu", "Elu", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"HardSigmoid", "HardSigmoid", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"HardSwish", "HardSwish", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"Softplus", "Softplus", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"Mish", "exMish", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"Gelu", "exGelu", NPU_K_ELTWISE, FALL, FBIG, 0},
    /* fused ops the compiler makes of written-out patterns (npu_fuse.c,
     * docs/vendor-rewrites.md); RMSNorm is exNorm's rms mode; exSDPAttention
     * is on every NPU but RK356X's and has no CPU op */
    {"Swish", "exSwish", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"RMSNormalization", "exNorm", NPU_K_OTHER, FBIG, FALL, 1},
    {"SDPAttention", "exSDPAttention", NPU_K_MATMUL, FALL & ~F356X, 0, 0},
    {"BatchNormalization", "BatchNormalization", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"LayerNormalization", "exNorm", NPU_K_OTHER, FBIG, FALL, 1},
    {"MeanVarianceNormalization", "exNorm", NPU_K_OTHER, FBIG, FBIG, 1},
    /* the op list has no NPU InstanceNormalization, but a real fp16 table runs
     * one as exNorm on the NPU (triority-05 row 63, "exNorm:/insnorm/
     * InstanceNormalization"): exNorm's mean_var mode */
    {"InstanceNormalization", "exNorm", NPU_K_OTHER, FBIG, FBIG, 1},
    {"LpNormalization", "LpNormalization", NPU_K_OTHER, 0, FBIG, 0},
    {"LRN", "LRN", NPU_K_OTHER, 0, FBIG, 0},
    {"MaxPool", "MaxPool", NPU_K_POOL, FALL, FBIG, 0},
    {"AveragePool", "AveragePool", NPU_K_POOL, FALL, FBIG, 0},
    {"GlobalAveragePool", "GlobalAveragePool", NPU_K_POOL, FALL, FBIG, 0},
    {"GlobalMaxPool", "GlobalMaxPool", NPU_K_POOL, FALL, FBIG, 0},
    {"Concat", "Concat", NPU_K_MOVE, FALL, FALL, 0},
    {"Split", "Split", NPU_K_MOVE, FALL, FBIG, 0},
    {"Slice", "Slice", NPU_K_MOVE, FALL, FBIG, 0},
    {"Reshape", "Reshape", NPU_K_MOVE, FALL, FALL, 0},
    {"Flatten", "Reshape", NPU_K_MOVE, FALL, FALL, 0},
    {"Squeeze", "Reshape", NPU_K_MOVE, FALL, FALL, 0},
    {"Unsqueeze", "Reshape", NPU_K_MOVE, FALL, FALL, 0},
    {"Transpose", "Transpose", NPU_K_MOVE, FALL & ~F356X, FBIG, 0},
    {"Softmax", "Softmax", NPU_K_OTHER, FALL & ~F356X, FALL, 0},
    {"LogSoftmax", "LogSoftmax", NPU_K_OTHER, 0, FBIG, 0},
    {"Hardmax", "Hardmax", NPU_K_OTHER, FALL & ~F356X, FBIG, 0},
    {"ArgMax", "ArgMax", NPU_K_OTHER, 0, FBIG, 0},
    {"ArgMin", "ArgMin", NPU_K_OTHER, 0, FBIG, 0},
    {"TopK", "TopK", NPU_K_OTHER, 0, FBIG, 0},
    {"Resize", "Resize", NPU_K_MOVE, FALL, FBIG, 0},
    {"Upsample", "Resize", NPU_K_MOVE, FALL, FBIG, 0},
    {"Pad", "Pad", NPU_K_MOVE, FALL, FBIG, 0},
    {"Expand", "Expand", NPU_K_MOVE, FALL, FBIG, 0},
    {"Tile", "Tile", NPU_K_MOVE, FALL, FBIG, 0},
    {"Gather", "Gather", NPU_K_MOVE, FBIG, FALL, 0},
    {"GatherElements", "GatherElements", NPU_K_MOVE, 0, FBIG, 0},
    {"ScatterND", "ScatterND", NPU_K_MOVE, 0, FALL, 0},
    {"DepthToSpace", "DepthToSpace", NPU_K_MOVE, 0, FBIG, 0},
    {"ReverseSequence", "ReverseSequence", NPU_K_MOVE, 0, FBIG, 0},
    {"MaxUnpool", "MaxUnpool", NPU_K_MOVE, 0, FBIG, 0},
    {"RoiAlign", "RoiAlign", NPU_K_OTHER, 0, FBIG, 0},
    {"MaxRoiPool", "MaxRoiPool", NPU_K_OTHER, 0, FBIG, 0},
    {"EyeLike", "EyeLike", NPU_K_MOVE, 0, FBIG, 0},
    {"SpaceToDepth", "SpaceToDepth", NPU_K_MOVE, 0, FBIG, 0},
    {"Where", "Where", NPU_K_ELTWISE, FALL, FBIG, 0},
    {"Greater", "Greater", NPU_K_ELTWISE, F3576, FBIG, 0},
    {"Equal", "Equal", NPU_K_ELTWISE, 0, FBIG, 0},
    {"Less", "Less", NPU_K_ELTWISE, 0, FBIG, 0},
    {"LessOrEqual", "LessOrEqual", NPU_K_ELTWISE, 0, FBIG, 0},
    {"GreaterOrEqual", "GreaterOrEqual", NPU_K_ELTWISE, 0, FBIG, 0},
    {"And", "And", NPU_K_ELTWISE, 0, FBIG, 0},
    {"Not", "Not", NPU_K_ELTWISE, 0, FBIG, 0},
    {"ReduceMax", "ReduceMax", NPU_K_OTHER, 0, FALL, 0},
    {"ReduceMin", "ReduceMin", NPU_K_OTHER, 0, FBIG, 0},
    {"ReduceMean", "ReduceMean", NPU_K_OTHER, 0, FBIG, 0},
    {"ReduceSum", "ReduceSum", NPU_K_OTHER, 0, FBIG, 0},
    {"ReduceL2", "ReduceL2", NPU_K_OTHER, 0, FALL, 0},
    {"LSTM", "LSTM", NPU_K_OTHER, FALL, FBIG, 0},
    {"GRU", "GRU", NPU_K_OTHER, FBIG, FBIG, 1},
    {"Cast", "DataConvert", NPU_K_CONVERT, 0, FALL, 0},
    {"Cos", "Cos", NPU_K_ELTWISE, 0, FBIG, 0},
    {"Sin", "Sin", NPU_K_ELTWISE, 0, FBIG, 0},
};

/* Activations the compiler fuses into a preceding Conv (G:L9229-9270:
 * Conv+Relu, +PRelu(LeakyRelu), +Clip, +Sigmoid(Tanh/Elu/Silu...)); Gelu
 * becomes ConvExGelu (runtime 2.3.2 table of RF-DETR, rows 71/134). */
static const struct { const char *onnx, *suffix; } fusable_act[] = {
    {"Relu", "Relu"}, {"LeakyRelu", "LeakyRelu"}, {"PRelu", "PRelu"}, {"Clip", "Clip"},
    {"Sigmoid", "Sigmoid"}, {"Tanh", "Tanh"}, {"Elu", "Elu"}, {"HardSigmoid", "HardSigmoid"},
    {"HardSwish", "HardSwish"}, {"Softplus", "Softplus"}, {"Mish", "Mish"},
    {"Gelu", "ExGelu"}, {"Swish", "ExSwish"},
};

/* CPU ops that move int8 data as it is; every other CPU op computes in float
 * and gets exDataConvert rows around it in a quantized model (inferred from
 * the INT8 CPU Gather in LOG-Y10 and the float dumps of CPU layers). */
static const char *const cpu_int8_ops[] = {
    "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Gather", "Concat",
    "Split", "Slice", "ScatterND", "DepthToSpace", "SpaceToDepth", NULL,
};

static unsigned family_bit(const npu_platform_t *p)
{
    if (!strcmp(p->family, "rk3588")) return F3588;
    if (!strcmp(p->family, "rk3576")) return F3576;
    if (!strcmp(p->family, "rk356x")) return F356X;
    if (!strcmp(p->family, "rk3562")) return F3562;
    return F1106;
}

static const op_rule *find_rule(const char *op)
{
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
        if (!strcmp(rules[i].onnx, op))
            return &rules[i];
    return NULL;
}

static int in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (!strcmp(*list, s))
            return 1;
    return 0;
}

/* ---- lowering state ---------------------------------------------------- */

typedef struct lower {
    const graph_t *g;
    const npu_platform_t *p;
    npu_graph_t *ng;
    unsigned fam;
    int *n_cons;      /* per tensor: consumers among executed nodes */
    int **cons;       /* per tensor: consumer node indices */
    int *done;        /* per node: covered by a layer */
    int *tensor_fp;   /* per tensor: 1 when held in float by a CPU layer */
    int *view_src;    /* per tensor: the 4-D tensor a dropped flatten views, else -1 */
    int unrunnable;   /* the node neither the NPU nor the CPU runs, else -1 */
    const npu_fused_t *fu;  /* the compiler's rewrites (npu_fuse) */
} lower_t;

static const tensor_t *T(const lower_t *L, int i) { return i >= 0 ? &L->g->t[i] : NULL; }

/* The reduction length of Softmax node ni: its axis's extent, or for opset <
 * 13 (input coerced to 2-D at axis) the product of the extents from it; a
 * Softmax the rewrites made of a written-out pattern has one axis. 0 when
 * the shape is not known. */
static int64_t softmax_len(const lower_t *L, int ni)
{
    const node_t *n = &L->g->nodes[ni];
    const tensor_t *x = n->n_in > 0 ? T(L, n->in[0]) : NULL;
    int fused = L->fu && L->fu->owned && ni < L->fu->n && L->fu->owned[ni];
    int old = L->g->opset < 13 && !fused;
    int64_t axis = node_attr_int(n, "axis", old ? 1 : -1), len = 1;

    if (!x || x->ndim <= 0)
        return 0;
    if (axis < 0)
        axis += x->ndim;
    if (axis < 0 || axis >= x->ndim)
        return 0;
    for (int a = (int)axis; a < (old ? x->ndim : axis + 1); a++) {
        if (x->dims[a] <= 0)
            return 0;
        len *= x->dims[a];
    }
    return len;
}

static int is_const(const lower_t *L, int ti)
{
    return ti >= 0 && L->g->t[ti].kind == TK_CONST;
}

static npu_shape_t shape_of(const tensor_t *t)
{
    npu_shape_t s = {0};
    if (!t || t->ndim < 0)
        return s;
    s.nd = t->ndim < NPU_SHAPE_MAX ? t->ndim : NPU_SHAPE_MAX;
    for (int i = 0; i < s.nd; i++)
        s.d[i] = t->dims[i];
    return s;
}

static npu_layer_t *layer_new(lower_t *L, const char *optype, int kind, int target)
{
    npu_graph_t *ng = L->ng;
    npu_layer_t *l;

    if (ng->n == ng->cap) {
        ng->cap = ng->cap ? ng->cap * 2 : 64;
        ng->l = xrealloc(ng->l, (size_t)ng->cap * sizeof(*ng->l));
    }
    l = &ng->l[ng->n++];
    memset(l, 0, sizeof(*l));
    l->id = ng->n;
    snprintf(l->optype, sizeof(l->optype), "%s", optype);
    l->kind = kind;
    l->target = target;
    l->dtype = ng->dtype;
    snprintf(l->datatype, sizeof(l->datatype), "%s", npu_dtype_name(ng->dtype));
    l->out_tensor = -1;
    l->group = 1;
    l->fullname = xstrdup("");
    return l;
}

static void add_value(int **v, int *n, int id)
{
    *v = xrealloc(*v, (size_t)(*n + 1) * sizeof(int));
    (*v)[(*n)++] = id;
}

/* v: value id of the input (-1 unknown); constants are not data flow */
static void layer_add_in(npu_layer_t *l, npu_shape_t s, int is_c, int v)
{
    if (l->n_in < NPU_MAX_IO) {
        l->in[l->n_in] = s;
        l->in_const[l->n_in] = is_c;
    }
    l->n_in++;
    if (!is_c && v >= 0)
        add_value(&l->in_v, &l->n_in_v, v);
}

static void layer_add_out(npu_layer_t *l, npu_shape_t s, int v)
{
    if (l->n_out < NPU_MAX_IO)
        l->out[l->n_out] = s;
    l->n_out++;
    if (v >= 0)
        add_value(&l->out_v, &l->n_out_v, v);
}

static void layer_cover(lower_t *L, npu_layer_t *l, int node)
{
    const node_t *n = &L->g->nodes[node];

    /* a fused op's head brings the nodes the rewrite absorbed, in graph
     * order before it: the head, which makes the layer's output, stays last */
    for (int k = 0; L->fu && k < L->fu->n; k++)
        if (L->fu->head_of[k] == node && !L->done[k]) {
            const node_t *a = &L->fu->nodes[k];
            l->src_nodes = xrealloc(l->src_nodes, (size_t)(l->n_src_nodes + 1) * sizeof(int));
            l->src_nodes[l->n_src_nodes++] = k;
            for (int i = 0; i < a->n_out; i++) {
                if (a->out[i] < 0)
                    continue;
                l->src_tensors = xrealloc(l->src_tensors,
                                          (size_t)(l->n_src_tensors + 1) * sizeof(char *));
                l->src_tensors[l->n_src_tensors++] = xstrdup(L->g->t[a->out[i]].name);
            }
            L->done[k] = 1;
            L->ng->node_layer[k] = (int)(l - L->ng->l);
        }
    l->src_nodes = xrealloc(l->src_nodes, (size_t)(l->n_src_nodes + 1) * sizeof(int));
    l->src_nodes[l->n_src_nodes++] = node;
    for (int i = 0; i < n->n_out; i++) {
        if (n->out[i] < 0)
            continue;
        l->src_tensors = xrealloc(l->src_tensors, (size_t)(l->n_src_tensors + 1) * sizeof(char *));
        l->src_tensors[l->n_src_tensors++] = xstrdup(L->g->t[n->out[i]].name);
    }
    L->done[node] = 1;
    L->ng->node_layer[node] = (int)(l - L->ng->l);
}

static void layer_set_fullname(npu_layer_t *l, const char *op, const char *name, const char *suffix)
{
    size_t len = strlen(op) + strlen(name) + (suffix ? strlen(suffix) : 0) + 2;

    free(l->fullname);
    l->fullname = xmalloc(len);
    snprintf(l->fullname, len, "%s:%s%s", op, name, suffix ? suffix : "");
}

/* The single executed consumer of tensor ti, or -1 (none, several, or a graph output). */
static int sole_consumer(const lower_t *L, int ti)
{
    if (ti < 0 || L->g->t[ti].is_output || L->n_cons[ti] != 1 || L->done[L->cons[ti][0]])
        return -1;
    return L->cons[ti][0];
}

/* ---- placement ---------------------------------------------------------- */

static int64_t dim(const tensor_t *t, int i)
{
    return t && i < t->ndim ? t->dims[i] : 1;
}

/* The window of conv or pool n (kernel from its weights, if any), pads made
 * explicit when its input shape is known; fails with the reason in why. */
static int window_of(const lower_t *L, const node_t *n, node_window *win, char *why, size_t len)
{
    const tensor_t *x = T(L, n->in[0]);
    const tensor_t *w = strstr(n->op, "Pool") || n->n_in < 2 ? NULL : T(L, n->in[1]);
    int known = x && x->ndim >= 3;

    for (int i = 0; known && i < x->ndim; i++)
        known = x->dims[i] >= 0;
    if (!x || x->ndim < 3 || (w && w->ndim != x->ndim))
        return snprintf(why, len, "window of rank %d unsupported", x ? x->ndim : -1), -1;
    return node_window_read(n, x->ndim - 2, w ? w->dims + 2 : NULL, known ? x->dims + 2 : NULL,
                            win, why, len) ? -1 : 0;
}

/* 1 (with the reason in why) when a value of the window's 3-slot array v (or
 * of v and v2, the begin and end pads) exceeds max; fmt has one %lld for it. */
static int window_exceeds(const node_window *win, const int64_t *v, const int64_t *v2,
                          int64_t max, const char *fmt, char *why, size_t len)
{
    for (int j = 0; j < (v2 ? 2 : 1); j++)
        for (int i = 3 - win->nsp; i < 3; i++)
            if ((j ? v2 : v)[i] > max) {
                snprintf(why, len, fmt, (long long)(j ? v2 : v)[i]);
                return 1;
            }
    return 0;
}

/* A patch embedding: a conv whose kernel equals its stride (no padding, no
 * dilation, not grouped) beyond the conv limits (stride > 7 or kernel > 31,
 * ViT's 16x16/16). The compiler runs it on the NPU by a rewrite (the kernel
 * windows do not overlap: a space-to-depth of the input and a 1x1 conv over
 * C*kh*kw channels); see docs/vendor-rewrites.md. */
static int is_patch_conv(const lower_t *L, const node_t *n)
{
    const tensor_t *w = n->n_in > 1 ? T(L, n->in[1]) : NULL;
    node_window win;
    char why[8];

    if (strcmp(n->op, "Conv") || !w || w->ndim != 4 || node_attr_int(n, "group", 1) != 1 ||
        window_of(L, n, &win, why, sizeof why) || win.s[1] != w->dims[2] ||
        win.s[2] != w->dims[3] ||
        (win.s[1] <= 7 && win.s[2] <= 7 && w->dims[2] <= 31 && w->dims[3] <= 31))
        return 0;
    if (win.auto_pad != AUTO_PAD_NOTSET && win.auto_pad != AUTO_PAD_VALID)
        return 0;
    for (int i = 1; i < 3; i++)
        if (win.pb[i] || win.pe[i] || win.d[i] != 1)
            return 0;
    return 1;
}

/* NPU limits of rknn-oplist.md §4; returns 1 and fills why when the node must
 * fall back to the CPU. */
/* A Transpose moves the same bytes whatever order it gives axes of size 1,
 * so the compiler can take any perm that differs from perm only there. NULL
 * when perm or one of those meets the op list's limits (npu_transpose.c),
 * else the limit perm fails. Toolkit 2.3.0's rk3588 int8 file of
 * SumedhP/Odin-CV runs its head's (1,25,1,3549) -> (1,3549,1,25) on the NPU,
 * which [0,3,2,1] fails (h1 % 16) and [2,3,0,1] meets (docs/vendor-rewrites.md). */
static const char *transpose_view_limit(const lower_t *L, const int perm[4], const int64_t d[4])
{
    const char *bad = npu_transpose_limit(L->p, perm, d, L->ng->dtype == NPU_INT8);
    for (int c = 0; bad && c < 4 * 4 * 4 * 4; c++) {
        int q[4] = {c >> 6, (c >> 4) & 3, (c >> 2) & 3, c & 3}, used = 0, same = 1;
        for (int j = 0; j < 4; j++) {
            used |= 1 << q[j];
            same &= d[perm[j]] == 1 ? d[q[j]] == 1 : q[j] == perm[j];
        }
        if (same && used == 15 && !npu_transpose_limit(L->p, q, d, L->ng->dtype == NPU_INT8))
            return NULL;
    }
    return bad;
}

/* A Transpose of rank <= 4 against the op list's limits, in the 4-D views the
 * compiler uses: lower ranks padded with 1s at the front (the [1,1,N,C] of
 * retinaface.rv1103's head Reshapes) and, for rank 3, (a,b,1,c) (the Odin-CV
 * head above, and the (1,32,1,32) of a BERT's (1,32,32) in toolkit 2.3.2's
 * rk3588 file); on the NPU when either view meets them. Ranks above 4 have no
 * limits in the list and stay on the NPU. */
static int transpose_exceeds(const lower_t *L, const node_t *n, char *why, size_t len)
{
    const tensor_t *x = T(L, n->in[0]);
    const int64_t *pv = NULL;
    int np = node_attr_ints(n, "perm", &pv), r = x ? x->ndim : 0, k, perm[4], p3[4];
    int64_t d[4], d3[4];
    const char *bad;

    if (r < 1 || r > 4 || (np && np != r))
        return 0;
    k = 4 - r;
    for (int i = 0; i < 4; i++) {
        d[i] = i < k ? 1 : x->dims[i - k];
        perm[i] = i < k ? i : k + (np ? (int)pv[i - k] : r - 1 - (i - k));
        if (d[i] <= 0 || perm[i] < 0 || perm[i] > 3)
            return 0;
    }
    bad = transpose_view_limit(L, perm, d);
    if (bad && r == 3) { /* (a,b,c) as (a,b,1,c): 3-D axes 0,1,2 at 0,1,3 */
        static const int at[3] = {0, 1, 3};
        d3[0] = x->dims[0], d3[1] = x->dims[1], d3[2] = 1, d3[3] = x->dims[2];
        p3[2] = 2;
        for (int j = 0; j < 3; j++)
            p3[at[j]] = at[perm[j + 1] - 1];
        if (!transpose_view_limit(L, p3, d3))
            return 0;
    }
    if (bad)
        snprintf(why, len, "transpose perm [%d,%d,%d,%d] of (%lld,%lld,%lld,%lld) fails the %s "
                 "limit %s%s", perm[0], perm[1], perm[2], perm[3], (long long)d[0], (long long)d[1],
                 (long long)d[2], (long long)d[3], L->p->name, bad,
                 !strstr(bad, "% a") && !strstr(bad, "a *") && !strstr(bad, "* a") ? ""
                 : L->ng->dtype == NPU_INT8 ? " (a = 16, int8)" : " (a = 8, 16-bit)");
    return bad != NULL;
}

static int exceeds_limits(const lower_t *L, const node_t *n, char *why, size_t len)
{
    const graph_t *g = L->g;

    if (!strcmp(n->op, "Conv")) {
        const tensor_t *w = n->n_in > 1 ? T(L, n->in[1]) : NULL;
        const tensor_t *x = T(L, n->in[0]);
        int64_t group = node_attr_int(n, "group", 1);
        int dw = w && group > 1 && group == dim(x, 1) && dim(w, 1) == 1;
        int kmax = dw ? 8 : 31;
        if (is_patch_conv(L, n))
            return 0;
        if (w && w->ndim == 4 && (dim(w, 2) > kmax || dim(w, 3) > kmax)) {
            snprintf(why, len, "%s kernel %lldx%lld exceeds 1..%d", dw ? "depthwise" : "conv",
                     (long long)dim(w, 2), (long long)dim(w, 3), kmax);
            return 1;
        }
        node_window win;
        if (window_of(L, n, &win, why, len))
            return 1;
        if (window_exceeds(&win, win.s, NULL, 7, "stride %lld exceeds 1..7", why, len))
            return 1;
        if (window_exceeds(&win, win.pb, win.pe, 15, "pad %lld exceeds 0..15", why, len))
            return 1;
        if (window_exceeds(&win, win.d, NULL, (dw ? 32 : 31), "dilation %lld exceeds limit", why,
                           len))
            return 1;
        return 0;
    }
    if (!strcmp(n->op, "ConvTranspose")) {
        const tensor_t *w = n->n_in > 1 ? T(L, n->in[1]) : NULL;
        int strict = L->fam & (F3588 | F356X); /* stride only 1,2,4,8 there */
        if (w && w->ndim == 4 && (dim(w, 2) > 31 || dim(w, 3) > 31)) {
            snprintf(why, len, "deconv kernel exceeds 1..31");
            return 1;
        }
        node_window win;
        if (window_of(L, n, &win, why, len))
            return 1;
        for (int i = 3 - win.nsp; i < 3; i++) {
            int64_t st = win.s[i];
            if (st > 8 || (strict && st != 1 && st != 2 && st != 4 && st != 8)) {
                snprintf(why, len, "deconv stride %lld not supported on %s", (long long)st,
                         L->p->name);
                return 1;
            }
        }
        return 0;
    }
    if (!strcmp(n->op, "MaxPool") || !strcmp(n->op, "AveragePool")) {
        node_window win;
        if (window_of(L, n, &win, why, len))
            return 1;
        if (win.ceil_mode) {
            snprintf(why, len, "ceil_mode unsupported on NPU");
            return 1;
        }
        if (win.auto_pad != AUTO_PAD_NOTSET) {
            snprintf(why, len, "auto_pad %s unsupported (explicit pads only)", win.auto_pad_name);
            return 1;
        }
        if (window_exceeds(&win, win.k, NULL, 7, "pool kernel %lld exceeds 7", why, len))
            return 1;
        if (window_exceeds(&win, win.s, NULL, 8, "pool stride %lld exceeds 8", why, len))
            return 1;
        if (window_exceeds(&win, win.pb, win.pe, 7, "pool pad %lld exceeds 7", why, len))
            return 1;
        return 0;
    }
    if (!strcmp(n->op, "Resize") || !strcmp(n->op, "Upsample")) {
        const tensor_t *x = T(L, n->in[0]), *y = T(L, n->out[0]);
        const char *mode = node_attr_str(n, "mode", "nearest");
        const char *ct = node_attr_str(n, "coordinate_transformation_mode", "half_pixel");
        if (strcmp(mode, "nearest") && strcmp(mode, "linear") && strcmp(mode, "bilinear")) {
            snprintf(why, len, "resize mode %s unsupported", mode);
            return 1;
        }
        if (strcmp(mode, "nearest") && strcmp(ct, "half_pixel") && strcmp(ct, "pytorch_half_pixel") &&
            strcmp(ct, "align_corners")) {
            snprintf(why, len, "resize coordinate mode %s unsupported", ct);
            return 1;
        }
        if (x && y && x->ndim == 4 && y->ndim == 4) {
            for (int a = 2; a < 4; a++) {
                int64_t in = x->dims[a], out = y->dims[a];
                if (in <= 0 || out == in)
                    continue;
                if (out % in || out / in < 2 || out / in > 8) {
                    snprintf(why, len, "resize scale %lld/%lld not an integer 2..8",
                             (long long)out, (long long)in);
                    return 1;
                }
            }
        }
        return 0;
    }
    if (!strcmp(n->op, "Gather")) {
        /* op list (rknn-oplist.md, Gather row): indices of rank 1, axis 0..3. A
         * BERT's embedding lookups by [1, L] token ids run on the CPU in the
         * vendor's own file (emapco/rk-transformers' random_bert, toolkit 2.3.2) */
        const tensor_t *x = T(L, n->in[0]), *ix = n->n_in > 1 ? T(L, n->in[1]) : NULL;
        int64_t axis = node_attr_int(n, "axis", 0);
        if (axis < 0 && x)
            axis += x->ndim;
        if (ix && ix->ndim != 1) {
            snprintf(why, len, "gather indices of rank %d, the NPU takes rank 1", ix->ndim);
            return 1;
        }
        if (axis < 0 || axis > 3) {
            snprintf(why, len, "gather axis %lld not 0..3", (long long)axis);
            return 1;
        }
        return 0;
    }
    if (!strcmp(n->op, "Softmax")) {
        const tensor_t *x = T(L, n->in[0]);
        int64_t axis = node_attr_int(n, "axis", g->opset >= 13 ? -1 : 1);
        int rank = x ? x->ndim : 4;
        if (axis < 0)
            axis += rank;
        /* axis 1 or 3 of the 4-D view (ranks < 4 are padded at the front) */
        axis += 4 - rank;
        if (axis != 1 && axis != 3) {
            snprintf(why, len, "softmax axis not 1 or 3 of the 4-D view");
            return 1;
        }
        return 0;
    }
    if (!strcmp(n->op, "Pow") && n->n_in > 1 && is_const(L, n->in[1])) {
        const tensor_t *e = T(L, n->in[1]);
        if (tensor_numel(e) == 1 && e->data && e->dtype == DT_FLOAT) {
            float x = *(const float *)e->data;
            if (x != 0 && x != 1 && x != 2 && x != 3 && x != 0.5f && x != -0.5f) {
                snprintf(why, len, "pow exponent %g not in {0,1,2,3,0.5,-0.5}", x);
                return 1;
            }
        }
        return 0;
    }
    if (!strcmp(n->op, "MatMul") || !strcmp(n->op, "Gemm")) {
        const tensor_t *a = T(L, n->in[0]);
        int64_t k = a && a->ndim > 0 ? a->dims[a->ndim - 1] : 0;
        if (!strcmp(n->op, "Gemm") && node_attr_int(n, "transA", 0) && a && a->ndim == 2)
            k = a->dims[0];
        if (k > 8192) {
            snprintf(why, len, "matmul k=%lld exceeds 8192", (long long)k);
            return 1;
        }
        return 0;
    }
    if (!strcmp(n->op, "Pad")) {
        const char *mode = node_attr_str(n, "mode", "constant");
        const tensor_t *x = T(L, n->in[0]);
        if (!strcmp(mode, "edge")) {
            snprintf(why, len, "pad mode edge unsupported");
            return 1;
        }
        if (!strcmp(mode, "reflect") && x && x->ndim == 4 &&
            (x->dims[1] > 8192 || x->dims[2] > 8192 || x->dims[3] > 8176)) {
            snprintf(why, len, "reflect pad larger than C,H<=8192, W<=8176");
            return 1;
        }
        return 0;
    }
    if (!strcmp(n->op, "Transpose") && (L->fam & F356X)) {
        /* RK356X: identity only here; the four supported perms need size checks
         * we do not model (rknn-oplist.md §3) */
        return 0;
    }
    if (!strcmp(n->op, "Transpose"))
        return transpose_exceeds(L, n, why, len);
    return 0;
}

/* exNorm in a model of another dtype: the compiler keeps it on the NPU in
 * float16 between two exDataConverts (int8 ViT of rknn-toolkit2 issue 217:
 * "exDataConvert ..._2layer_norm__cvt_int8_float16", "exLayerNorm FLOAT16
 * NPU ...ReduceMean_38_2layer_norm", "..._cvt_float16_int8"), where the NPU
 * has float16 at all (not RV1106). */
static int norm_fp16(const lower_t *L, const op_rule *r)
{
    return r && !strcmp(r->vendor, "exNorm") && L->ng->dtype != NPU_FP16 &&
           npu_peak_macs(L->p, NPU_FP16) > 0;
}

/* Decides target; why gets the CPU reason. */
static int place(const lower_t *L, const node_t *n, const op_rule *r, char *why, size_t len)
{
    const char *chip = L->p->name;

    if (!r && !strncmp(n->op, "cst", 3)) {
        snprintf(why, len, "%s is a custom op: the CPU callbacks the application registered "
                 "(rknn_register_custom_ops)", n->op);
        return NPU_TGT_CPU;
    }
    if (!r) {
        snprintf(why, len, "%s has no NPU or CPU implementation in the %s op list "
                 "(the vendor converter would reject it)", n->op, chip);
        return NPU_TGT_CPU;
    }
    if (!(r->npu & L->fam)) {
        snprintf(why, len, "%s is not in the %s NPU op list", n->op, chip);
        return NPU_TGT_CPU;
    }
    if (r->fp16_only && L->ng->dtype != NPU_FP16 && !n->keep_fp16 && !norm_fp16(L, r)) {
        snprintf(why, len, "%s runs on the NPU in float16 only", n->op);
        return NPU_TGT_CPU;
    }
    if (exceeds_limits(L, n, why, len))
        return NPU_TGT_CPU;
    return NPU_TGT_NPU;
}

/* The rule a node is placed by: the converter turns a division by a
 * constant into a multiplication (node "<Div>_2mul" in the rknn-toolkit2
 * build log of airockchip/rknn-toolkit2#13), so it never meets the NPU's
 * float16-only Div. */
static const op_rule *rule_for(const lower_t *L, const node_t *n)
{
    if (!strcmp(n->op, "Div") && n->n_in > 1 && is_const(L, n->in[1]))
        return find_rule("Mul");
    return find_rule(n->op);
}

/* ---- layer construction ------------------------------------------------- */

/* a conv producer stored tensor ti (the layer's last input) with its own
 * channel padding */
static void set_in_align(lower_t *L, npu_layer_t *l, int ti)
{
    const tensor_t *t = T(L, ti);

    if (l->n_in <= NPU_MAX_IO && t->producer >= 0 && t->producer < L->ng->n_nodes &&
        L->ng->node_layer[t->producer] >= 0) {
        const npu_layer_t *pl = &L->ng->l[L->ng->node_layer[t->producer]];
        if (pl->out_tensor == ti)
            l->in_align[l->n_in - 1] = npu_out_align(L->ng, pl);
    }
}

static void add_node_inputs(lower_t *L, npu_layer_t *l, const node_t *n, int dw)
{
    for (int i = 0; i < n->n_in; i++) {
        int ti = n->in[i] >= 0 && L->view_src[n->in[i]] >= 0 ? L->view_src[n->in[i]] : n->in[i];
        const tensor_t *t = T(L, ti);
        npu_shape_t s;
        if (!t)
            continue;
        s = shape_of(t);
        /* the vendor prints depthwise weights as (1,C,kh,kw) */
        if (dw && i == 1 && s.nd == 4) {
            int64_t c = s.d[0];
            s.d[0] = 1;
            s.d[1] = c;
        }
        layer_add_in(l, s, is_const(L, ti), ti);
        set_in_align(L, l, ti);
    }
}

static void add_node_outputs(lower_t *L, npu_layer_t *l, const node_t *n)
{
    for (int i = 0; i < n->n_out; i++)
        if (n->out[i] >= 0) {
            layer_add_out(l, shape_of(T(L, n->out[i])), n->out[i]);
            if (l->out_tensor < 0)
                l->out_tensor = n->out[i];
        }
}

static void conv_geometry(lower_t *L, npu_layer_t *l, const node_t *n)
{
    const tensor_t *x = T(L, n->in[0]), *w = n->n_in > 1 ? T(L, n->in[1]) : NULL;
    const tensor_t *y = T(L, n->out[0]);
    int64_t group = node_attr_int(n, "group", 1);

    l->ic = (int)dim(x, 1);
    l->oc = (int)dim(y, 1);
    l->kh = w && w->ndim >= 3 ? (int)w->dims[2] : 1;
    l->kw = w && w->ndim >= 4 ? (int)w->dims[3] : 1;
    l->group = (int)group;
    l->out_pixels = dim(y, 0) * (y && y->ndim >= 3 ? y->dims[2] : 1) *
                    (y && y->ndim >= 4 ? y->dims[3] : 1);
    l->px_batch = dim(y, 0);
    if (group > 1 && group == l->ic && l->oc == l->ic)
        l->kind = NPU_K_DWCONV;
    if (is_patch_conv(L, n)) { /* the 1x1 conv over the space-to-depth input */
        l->ic *= l->kh * l->kw;
        l->kh = l->kw = 1;
    }
}

static void gemm_geometry(lower_t *L, npu_layer_t *l, const node_t *n)
{
    const tensor_t *a = T(L, n->in[0]), *y = T(L, n->out[0]);
    int64_t m = 1;

    if (a && a->ndim >= 1)
        l->ic = (int)a->dims[a->ndim - 1];
    if (!strcmp(n->op, "Gemm") && node_attr_int(n, "transA", 0) && a && a->ndim == 2)
        l->ic = (int)a->dims[0];
    l->oc = y && y->ndim >= 1 ? (int)y->dims[y->ndim - 1] : 1;
    for (int i = 0; y && i < y->ndim - 1; i++)
        m *= y->dims[i];
    l->kh = l->kw = 1;
    l->out_pixels = m;
    /* [..., M, N]: the leading dims are images, M their rows */
    l->px_batch = y && y->ndim >= 3 && y->dims[y->ndim - 2] > 0 ? m / y->dims[y->ndim - 2] : 1;
}

/* An exSDPAttention from its two products as the model writes them (its
 * operands may come through folded head-split Transposes, npu_fuse.c):
 * Q [.., Lq, d] x K [.., d, Lk] (ic = d, oc = Lk), then P [.., Lq, Lk] x
 * V [.., Lk, dv] (attn_dv); one softmax row a query. */
static void attention_geometry(lower_t *L, npu_layer_t *l, int ni)
{
    const node_t *qk = NULL, *pv = NULL;
    for (int k = 0; L->fu && k < L->fu->n; k++) {
        const node_t *a = &L->fu->nodes[k];
        if (L->fu->head_of[k] != ni || strcmp(a->op, "MatMul") || a->n_in != 2)
            continue;
        const tensor_t *x = T(L, a->in[0]);
        int px = x ? x->producer : -1;
        if (px >= 0 && !strcmp(L->g->nodes[px].op, "Softmax"))
            pv = a;
        else
            qk = a;
    }
    const tensor_t *q = qk ? T(L, qk->in[0]) : NULL, *k = qk ? T(L, qk->in[1]) : NULL;
    /* P x V is the head itself when no Transpose merges the heads after it */
    const tensor_t *y = T(L, pv ? pv->out[0] : L->g->nodes[ni].out[0]);
    if (!q || !k || !y || q->ndim < 2 || k->ndim < 2 || y->ndim < 2)
        return; /* gemm_geometry's reading of the fused node stands */
    int64_t lq = y->dims[y->ndim - 2], px = 1;
    for (int i = 0; i < y->ndim - 1; i++)
        px *= y->dims[i];
    l->ic = (int)q->dims[q->ndim - 1];
    l->oc = (int)k->dims[k->ndim - 1];
    l->attn_dv = (int)y->dims[y->ndim - 1];
    l->out_pixels = px;
    l->px_batch = lq > 0 ? px / lq : 1;
    l->softmax_rows = px;
}

/* A MatMul by a constant B: the compiler's 1x1 conv (LOG-Y8 "MatMul#2") */
static int is_matmul_conv(const lower_t *L, const node_t *n)
{
    if (!strcmp(n->op, "Gemm")) /* a Linear: toolkit 2.3.2's rk3576 MLP file (fold_bn.c) has
                                   its Elu fused, "ConvElu Conv:.../actor.0/Gemm#2" */
        return n->n_in > 1 && is_const(L, n->in[1]) && !node_attr_int(n, "transA", 0);
    return !strcmp(n->op, "MatMul") && n->n_in > 1 && is_const(L, n->in[1]);
}

/* Node c computes y = a*x + b per channel from the conv output x with a
 * constant (Mul, Add, Sub, Div by a scalar or a [1,C,1,1]-broadcast tensor):
 * the compiler absorbs it into the conv's weights and bias as it absorbs a
 * BatchNormalization, which is the same per-channel affine ("BatchNormalization
 * (usually folded into conv)", rknn-oplist.md §3; that the converter also
 * folds the Mul/Add form is our reading, UNVERIFIED: PP-LCNetV3's learnable
 * scale/bias after every conv, ppocrv4_det in bench/npu_models.sh). */
static int is_channel_affine(const lower_t *L, int c, int x, int last)
{
    const node_t *n = &L->g->nodes[c];
    const tensor_t *k, *y = T(L, x);
    int ki;

    if (n->n_in != 2 || n->n_out < 1 || (n->in[0] != x && n->in[1] != x) ||
        (strcmp(n->op, "Mul") && strcmp(n->op, "Add") && strcmp(n->op, "Sub") &&
         strcmp(n->op, "Div")))
        return 0;
    ki = n->in[0] == x ? n->in[1] : n->in[0];
    if (!is_const(L, ki) || (!strcmp(n->op, "Div") && n->in[1] != ki))
        return 0; /* c / x is not affine in x */
    k = T(L, ki);
    if (tensor_numel(k) == 1)
        return 1;
    if (last) { /* a MatMul's output [..., C]: a bias [C] or [1, .., 1, C] */
        if (!y || y->ndim < 1 || k->ndim < 1 || k->ndim > y->ndim)
            return 0;
        for (int i = 0; i < k->ndim; i++)
            if (k->dims[i] != (i == k->ndim - 1 ? y->dims[y->ndim - 1] : 1))
                return 0;
        return 1;
    }
    if (!y || y->ndim != 4 || k->ndim < 3 || k->ndim > 4)
        return 0;
    for (int i = 0; i < k->ndim; i++) {
        int64_t want = i == k->ndim - 3 ? y->dims[1] : 1; /* C at the channel position */
        if (k->dims[i] != want)
            return 0;
    }
    return 1;
}

/* The activation the compiler fuses into the conv-type layer l whose output
 * is cur (G:L9229-9270): SiLU as x * Sigmoid(x) becomes ExSwish, the others
 * keep their names; appends the suffix to name and returns the new output. */
static int fuse_activation(lower_t *L, npu_layer_t *l, int cur, char *name, size_t len)
{
    const graph_t *g = L->g;
    int c;

    /* SiLU: x feeds exactly the Sigmoid and the Mul */
    if (!g->t[cur].is_output && L->n_cons[cur] == 2) {
        int a = L->cons[cur][0], b = L->cons[cur][1], s = -1, m = -1;
        if (!strcmp(g->nodes[a].op, "Sigmoid") && !strcmp(g->nodes[b].op, "Mul")) s = a, m = b;
        if (!strcmp(g->nodes[b].op, "Sigmoid") && !strcmp(g->nodes[a].op, "Mul")) s = b, m = a;
        if (s >= 0 && sole_consumer(L, g->nodes[s].out[0]) == m) {
            layer_cover(L, l, s);
            layer_cover(L, l, m);
            strncat(name, "ExSwish", len - strlen(name) - 1);
            return g->nodes[m].out[0];
        }
    }
    c = sole_consumer(L, cur);
    if (c < 0)
        return cur;
    for (size_t i = 0; i < sizeof(fusable_act) / sizeof(fusable_act[0]); i++)
        if (!strcmp(g->nodes[c].op, fusable_act[i].onnx)) {
            layer_cover(L, l, c);
            strncat(name, fusable_act[i].suffix, len - strlen(name) - 1);
            return g->nodes[c].out[0];
        }
    return cur;
}

/* The conv-type layer that takes an Add: the compiler fuses Add(a, b) into
 * the conv that makes a, its FIRST operand, and runs that conv after b's
 * producer when b comes later in the graph. The vendor files say so:
 * multiple_input_demo (all seven, toolkits 1.3.4-2.3.2), Add_2(Conv_0,
 * Conv_1) as "Conv Conv:Conv_1" then "ConvAdd Conv:Conv_0"; retinaface.rv1103,
 * both FPN Adds (conv, Resize) as ConvLeakyReluAdd after the Resize. For an
 * NPU conv ni whose chain (BatchNormalization / per-channel affine, one
 * activation, as lower_conv fuses them) ends in such an Add with b not yet
 * computed: returns b's producer, which ni waits for, and the chain's nodes
 * in chain[]; else -1 (lower_conv fuses the Add now when b is ready). */
static int add_first_operand_wait(const lower_t *L, int ni, int *chain, int *n_chain, int cap)
{
    const graph_t *g = L->g;
    const node_t *n = &g->nodes[ni];
    const tensor_t *o, *y;
    char why[200];
    int cur, c, other, prod;

    *n_chain = 0;
    if (strcmp(n->op, "Conv") || n->n_out < 1 || n->out[0] < 0 ||
        place(L, n, rule_for(L, n), why, sizeof(why)) != NPU_TGT_NPU)
        return -1;
    cur = n->out[0];
    for (;;) {
        c = sole_consumer(L, cur);
        if (c < 0 || (strcmp(g->nodes[c].op, "BatchNormalization") &&
                      !is_channel_affine(L, c, cur, 0)))
            break;
        if (*n_chain >= cap)
            return -1;
        chain[(*n_chain)++] = c;
        cur = g->nodes[c].out[0];
    }
    /* SiLU (ExSwish) takes no Add (lower_conv) */
    if (!g->t[cur].is_output && L->n_cons[cur] == 2 &&
        (!strcmp(g->nodes[L->cons[cur][0]].op, "Sigmoid") ||
         !strcmp(g->nodes[L->cons[cur][1]].op, "Sigmoid")))
        return -1;
    c = sole_consumer(L, cur);
    for (size_t i = 0; c >= 0 && i < sizeof(fusable_act) / sizeof(fusable_act[0]); i++)
        if (!strcmp(g->nodes[c].op, fusable_act[i].onnx)) {
            if (strstr(fusable_act[i].suffix, "ExSwish") || *n_chain >= cap)
                return -1;
            chain[(*n_chain)++] = c;
            cur = g->nodes[c].out[0];
            c = sole_consumer(L, cur);
            break;
        }
    if (c < 0 || strcmp(g->nodes[c].op, "Add") || g->nodes[c].n_in != 2 ||
        g->nodes[c].in[0] != cur || g->nodes[c].in[1] == cur)
        return -1;
    other = g->nodes[c].in[1];
    o = T(L, other);
    y = T(L, cur);
    if (!o || !y || is_const(L, other) || o->ndim != y->ndim)
        return -1;
    for (int i = 0; i < o->ndim; i++)
        if (o->dims[i] != y->dims[i])
            return -1;
    prod = o->producer;
    return prod >= 0 && prod != ni && !L->done[prod] ? prod : -1;
}

/* Conv (+BatchNormalization | constant per-channel affine)... (+activation | SiLU)
 * (+Add (+Relu)); a MatMul by a constant (a 1x1 conv, LOG-Y8 "MatMul#2") takes
 * the same chain over its last axis: toolkit 2.3.2's BERT file (emapco/
 * rk-transformers' random_bert.rk3588) has each Linear's bias Add in its Conv,
 * the residual Add as ConvAdd and the GELU as ConvExGelu. */
static void lower_conv(lower_t *L, int ni, npu_layer_t *l)
{
    const graph_t *g = L->g;
    const node_t *n = &g->nodes[ni];
    const int mm = is_matmul_conv(L, n);
    int cur = n->out[0], c;
    char name[40] = "Conv";

    add_node_inputs(L, l, n, 0);
    if (mm) {
        gemm_geometry(L, l, n);
        if (L->view_src[n->in[0]] >= 0) /* the dropped Flatten's row shows this layer */
            layer_cover(L, l, T(L, n->in[0])->producer);
    } else {
        conv_geometry(L, l, n);
        if (l->kind == NPU_K_DWCONV) { /* redo inputs with the vendor's weight shape */
            l->n_in = 0;
            l->n_in_v = 0;
            add_node_inputs(L, l, n, 1);
        }
    }
    layer_cover(L, l, ni);
    layer_set_fullname(l, n->op, n->name, NULL);

    for (;;) {
        c = sole_consumer(L, cur);
        if (c < 0 ||
            (strcmp(g->nodes[c].op, "BatchNormalization") && !is_channel_affine(L, c, cur, mm)))
            break;
        layer_cover(L, l, c);
        cur = g->nodes[c].out[0];
    }
    cur = fuse_activation(L, l, cur, name, sizeof(name));
    /* Conv(+Act)+Add with a same-shape activation operand (G:L9229 "Conv+Add",
     * "Conv+Activation+Add"); not after SiLU: LOG-Y8's yolov8n keeps its six
     * bottleneck Adds as Add rows after ConvExSwish */
    c = sole_consumer(L, cur);
    if (c >= 0 && !strcmp(g->nodes[c].op, "Add") && g->nodes[c].n_in == 2 &&
        !strstr(name, "ExSwish")) {
        const node_t *ad = &g->nodes[c];
        int other = ad->in[0] == cur ? ad->in[1] : ad->in[0];
        const tensor_t *o = T(L, other), *y = T(L, cur);
        /* the operand must exist when the fused layer runs; a conv making
         * the Add's first operand waited for it (add_first_operand_wait), a
         * conv making the second takes the Add only when the first is ready */
        int ready = o && (o->producer < 0 || L->done[o->producer]);
        int same = o && y && ready && o->ndim == y->ndim && !is_const(L, other) && other != cur;
        for (int i = 0; same && i < o->ndim; i++)
            same = o->dims[i] == y->dims[i];
        if (same && strlen(name) < 20) {
            layer_cover(L, l, c);
            layer_add_in(l, shape_of(o), 0, other);
            cur = ad->out[0];
            strcat(name, "Add");
            c = sole_consumer(L, cur);
            if (c >= 0 && !strcmp(g->nodes[c].op, "Relu")) {
                layer_cover(L, l, c);
                cur = g->nodes[c].out[0];
                strcat(name, "Relu");
            }
        }
    }
    snprintf(l->optype, sizeof(l->optype), "%s", name);
    layer_add_out(l, shape_of(T(L, cur)), cur);
    l->out_tensor = cur;
}

/* Integers node n takes as an attribute (older opsets) or as its constant
 * 1-D int64 input k (newer ones: ReduceSum's and ReduceMean's axes, Pad's
 * pads) into *v; their count, 0 when it has neither. */
static int attr_or_input_ints(const lower_t *L, const node_t *n, const char *name, int k,
                              const int64_t **v)
{
    int cnt = node_attr_ints(n, name, v);
    if (cnt <= 0 && n->n_in > k && is_const(L, n->in[k])) {
        const tensor_t *c = &L->g->t[n->in[k]];
        if (c->data && c->ndim == 1 && c->dtype == DT_INT64 && c->dims[0] > 0) {
            *v = c->data;
            cnt = (int)c->dims[0];
        }
    }
    return cnt > 0 && *v ? cnt : 0;
}

/* 1 when n is a ReduceSum over the channels of a 4-D tensor keeping the
 * dimension: axes from the attribute (opset < 13) or a constant input. */
static int is_channel_sum(const lower_t *L, const node_t *n)
{
    const tensor_t *x = n->n_in > 0 ? T(L, n->in[0]) : NULL;
    const int64_t *v = NULL;

    if (strcmp(n->op, "ReduceSum") || !x || x->ndim != 4 || !node_attr_int(n, "keepdims", 1))
        return 0;
    int cnt = attr_or_input_ints(L, n, "axes", 1, &v);
    return cnt == 1 && (v[0] == 1 || v[0] == -3);
}

/* ReduceSum over the channels becomes a 1x1 conv to one channel named
 * <node>_2conv, a following activation fused: LOG-Y8 rows 78/96/107, yolov8's
 * class-score sum "Conv:/model.22/ReduceSum_2conv" as ConvClip
 * (1,3,240,240),(1,3,1,1),(1) -> (1,1,240,240). */
static void lower_channel_sum(lower_t *L, int ni)
{
    const node_t *n = &L->g->nodes[ni];
    const tensor_t *x = T(L, n->in[0]);
    npu_layer_t *l = layer_new(L, "Conv", NPU_K_CONV, NPU_TGT_NPU);
    npu_shape_t s = shape_of(x);
    char name[40] = "Conv";
    int cur;

    layer_add_in(l, s, 0, n->in[0]);
    set_in_align(L, l, n->in[0]);
    s = (npu_shape_t){4, {1, dim(x, 1), 1, 1}};
    layer_add_in(l, s, 1, -1);
    s = (npu_shape_t){1, {1}};
    layer_add_in(l, s, 1, -1);
    l->ic = (int)dim(x, 1);
    l->oc = l->group = l->kh = l->kw = 1;
    l->out_pixels = dim(x, 0) * dim(x, 2) * dim(x, 3);
    l->px_batch = dim(x, 0);
    layer_cover(L, l, ni);
    layer_set_fullname(l, "Conv", n->name, "_2conv");
    cur = fuse_activation(L, l, n->out[0], name, sizeof(name));
    snprintf(l->optype, sizeof(l->optype), "%s", name);
    layer_add_out(l, shape_of(T(L, cur)), cur);
    l->out_tensor = cur;
}

/* GlobalAveragePool becomes depthwise convs: over more than 7x7 a cascade
 * with 7x7 kernels (out = ceil(in/7)), then a last whole-plane kernel, named
 * <node>_2conv<i> (triority-05 rows 52-54: 256->37->6->1); a plane of 7x7 or
 * less is that last conv alone (the SDK guide's mobilenet table counts 9 Conv
 * rows: 8 convs of the network and its 7x7 pool, perf-evalperf-2xfmt-
 * abridged-mobilenet-rk3588-sdk2.3.0-rkguide-10). */
static void lower_gap_cascade(lower_t *L, int ni)
{
    const node_t *n = &L->g->nodes[ni];
    const tensor_t *x = T(L, n->in[0]);
    int64_t N = dim(x, 0), C = dim(x, 1), H = dim(x, 2), W = dim(x, 3);
    char suf[24];
    int v_in = n->in[0];

    for (int i = 0;; i++) {
        int last = H <= 7 && W <= 7;
        int64_t kh = last ? H : 7, kw = last ? W : 7;
        int64_t oh = last ? 1 : (H + 6) / 7, ow = last ? 1 : (W + 6) / 7;
        npu_layer_t *l = layer_new(L, "Conv", NPU_K_DWCONV, NPU_TGT_NPU);
        npu_shape_t s = {4, {N, C, H, W}};
        /* intermediate planes are values of their own, past the graph's tensors */
        int v_out = last ? n->out[0] : L->ng->n_values++;
        layer_add_in(l, s, 0, v_in);
        s = (npu_shape_t){4, {1, C, kh, kw}};
        layer_add_in(l, s, 1, -1);
        s = (npu_shape_t){1, {C}};
        layer_add_in(l, s, 1, -1);
        s = (npu_shape_t){4, {N, C, oh, ow}};
        layer_add_out(l, s, v_out);
        v_in = v_out;
        l->ic = l->oc = l->group = (int)C;
        l->kh = (int)kh;
        l->kw = (int)kw;
        l->out_pixels = N * oh * ow;
        l->px_batch = N;
        snprintf(suf, sizeof(suf), "_2conv%d", i);
        layer_set_fullname(l, "Conv", n->name, suf);
        layer_cover(L, l, ni);
        if (last) {
            l->out_tensor = n->out[0];
            break;
        }
        H = oh;
        W = ow;
    }
}

/* A conv of 1 < group channel groups that is not depthwise: the NPU runs
 * group 1 and depthwise convs only (rknn-oplist.md: "Conv (group=1)"), and
 * the compiler splits it: Split named after the conv, one conv per group
 * "<conv>_group_<i>", a Concat named after the conv, and what followed the
 * conv (its activation) as layers of their own (toolkit 2.3.0's rk3588 file
 * of SumedhP/Odin-CV, its ONNX beside it: each head pconv of group 2 as
 * Split, Conv_group_0, Conv_group_1, Concat, Relu). */
static int is_group_conv(const lower_t *L, const node_t *n)
{
    const tensor_t *x = n->n_in > 0 ? T(L, n->in[0]) : NULL, *y = T(L, n->out[0]);
    int64_t g = node_attr_int(n, "group", 1);
    /* one input channel a group (depthwise, or with a channel multiplier) is
     * the depthwise engine's, not split */
    /* (at most 256 groups: a layer each; more stays one grouped conv) */
    return !strcmp(n->op, "Conv") && g > 1 && g <= 256 && x && y && x->ndim == 4 &&
           y->ndim == 4 && g < x->dims[1] && x->dims[1] % g == 0 && y->dims[1] % g == 0;
}

static void lower_group_conv(lower_t *L, int ni)
{
    const node_t *n = &L->g->nodes[ni];
    const tensor_t *x = T(L, n->in[0]), *y = T(L, n->out[0]);
    const int64_t g = node_attr_int(n, "group", 1), N = dim(x, 0);
    const int64_t cg = dim(x, 1) / g, mg = dim(y, 1) / g;
    int *part = xmalloc(sizeof(int) * (size_t)g), *conv = xmalloc(sizeof(int) * (size_t)g);
    char suf[32];

    npu_layer_t *sp = layer_new(L, "Split", NPU_K_MOVE, NPU_TGT_NPU);
    layer_add_in(sp, shape_of(x), 0, n->in[0]);
    set_in_align(L, sp, n->in[0]);
    for (int64_t i = 0; i < g; i++) {
        part[i] = L->ng->n_values++;
        layer_add_out(sp, (npu_shape_t){4, {N, cg, dim(x, 2), dim(x, 3)}}, part[i]);
    }
    layer_set_fullname(sp, "Split", n->name, NULL);
    for (int64_t i = 0; i < g; i++) {
        npu_layer_t *l = layer_new(L, "Conv", NPU_K_CONV, NPU_TGT_NPU);
        conv_geometry(L, l, n);
        l->ic = (int)cg, l->oc = (int)mg, l->group = 1;
        layer_add_in(l, (npu_shape_t){4, {N, cg, dim(x, 2), dim(x, 3)}}, 0, part[i]);
        layer_add_in(l, (npu_shape_t){4, {mg, cg, l->kh, l->kw}}, 1, -1);
        if (n->n_in > 2 && n->in[2] >= 0)
            layer_add_in(l, (npu_shape_t){1, {mg}}, 1, -1);
        conv[i] = L->ng->n_values++;
        layer_add_out(l, (npu_shape_t){4, {N, mg, dim(y, 2), dim(y, 3)}}, conv[i]);
        snprintf(suf, sizeof(suf), "_group_%lld", (long long)i);
        layer_set_fullname(l, "Conv", n->name, suf);
    }
    npu_layer_t *cat = layer_new(L, "Concat", NPU_K_MOVE, NPU_TGT_NPU);
    for (int64_t i = 0; i < g; i++)
        layer_add_in(cat, (npu_shape_t){4, {N, mg, dim(y, 2), dim(y, 3)}}, 0, conv[i]);
    layer_add_out(cat, shape_of(y), n->out[0]);
    cat->out_tensor = n->out[0];
    layer_set_fullname(cat, "Concat", n->name, NULL);
    layer_cover(L, cat, ni);
    free(part);
    free(conv);
}

/* A stride-1 MaxPool of a kernel beyond the NPU's 7 that keeps its input's
 * size (pads (k - 1) / 2, a spatial pyramid's 9x9 and 13x13): the compiler
 * chains pools of a small kernel q, each growing the window by q - 1.
 * Toolkit 2.3.0's rk3588 file of SumedhP/Odin-CV (its ONNX beside it): 9x9 as
 * four 3x3 (pads 1), 13x13 as four 4x4 (pads 2, 1, 2, 1: the map grows by one
 * and shrinks back), named "<output>_0_1", "_0", "_1" and the output. That
 * the compiler takes the largest q <= 4 whose q - 1 divides k - 1 fits both
 * and is our reading. q and the chain's length (steps), or 0 when n is no
 * such pool. */
static int pool_chain_kernel(const lower_t *L, const node_t *n, int *steps)
{
    node_window win;
    char why[160];
    if (strcmp(n->op, "MaxPool") || window_of(L, n, &win, why, sizeof(why)) || win.ceil_mode ||
        win.auto_pad != AUTO_PAD_NOTSET || win.nsp != 2 || win.k[1] != win.k[2] ||
        win.k[1] <= 7 || win.k[1] > 31 || win.k[1] % 2 == 0)
        return 0; /* (a kernel up to 31, a conv's: at most 15 pools) */
    for (int d = 1; d < 3; d++) /* H, W: the last two of the window's three slots */
        if (win.s[d] != 1 || win.d[d] != 1 || win.pb[d] != win.k[1] / 2 || win.pe[d] != win.k[1] / 2)
            return 0;
    for (int q = 4; q >= 2; q--)
        if ((win.k[1] - 1) % (q - 1) == 0) {
            *steps = (int)((win.k[1] - 1) / (q - 1));
            return q;
        }
    return 0;
}

static void lower_pool_chain(lower_t *L, int ni, int q, int steps)
{
    const node_t *n = &L->g->nodes[ni];
    const tensor_t *x = T(L, n->in[0]);
    const int64_t N = dim(x, 0), C = dim(x, 1);
    int64_t h = dim(x, 2), w = dim(x, 3);
    int v_in = n->in[0];
    for (int i = 0; i < steps; i++) {
        /* an even q pads q / 2 then q / 2 - 1: the size returns every second pool
         * (k odd makes (k - 1) / (q - 1) even for q = 4) */
        int64_t dv = q % 2 ? 0 : i % 2 ? -1 : 1, oh = h + dv, ow = w + dv;
        int last = i == steps - 1, v_out = last ? n->out[0] : L->ng->n_values++;
        npu_layer_t *l = layer_new(L, "MaxPool", NPU_K_POOL, NPU_TGT_NPU);
        layer_add_in(l, (npu_shape_t){4, {N, C, h, w}}, 0, v_in);
        if (i == 0)
            set_in_align(L, l, v_in);
        layer_add_out(l, (npu_shape_t){4, {N, C, oh, ow}}, v_out);
        l->kh = l->kw = q;
        /* the vendor's names count down to the output's: _0_1, _0, _1, (none) */
        static const char *const tail[] = {"_0_1", "_0", "_1"};
        int back = steps - 1 - i;
        const char *sfx = back == 0 ? NULL : back <= 3 ? tail[3 - back] : "_0_1";
        layer_set_fullname(l, "MaxPool", L->g->t[n->out[0]].name, sfx);
        if (last) {
            l->out_tensor = n->out[0];
            layer_cover(L, l, ni);
        }
        v_in = v_out, h = oh, w = ow;
    }
}

static int is_fp_cpu_layer(const lower_t *L, const npu_layer_t *l, const node_t *n)
{
    return L->ng->dtype == NPU_INT8 && l->target == NPU_TGT_CPU &&
           !in_list(cpu_int8_ops, n->op);
}

static npu_layer_t *add_convert(lower_t *L, int ti, const char *dir)
{
    npu_layer_t *l = layer_new(L, "exDataConvert", NPU_K_CONVERT, NPU_TGT_NPU);
    char suf[32];

    snprintf(suf, sizeof(suf), "_%s", dir);
    layer_add_in(l, shape_of(T(L, ti)), 0, ti);
    layer_add_out(l, shape_of(T(L, ti)), ti);
    layer_set_fullname(l, "exDataConvert", L->g->t[ti].name, suf);
    l->out_tensor = ti;
    return l;
}

/* Where the OutputOperator of int8 output ti runs when an NPU layer made it.
 * The vendor files: on rk3562 and rk3566 (toolkits 1.3.4 and 1.6.2) the
 * [1,8,128,128] output of multiple_input_demo is converted on the NPU
 * (node target 2, rknn-format.md), on rk3576, rk3588 and rv1126b on the CPU;
 * yolov8n.rk3566 (toolkit 1.5.0) converts its six [1,64|80,H,W] outputs on the
 * CPU. Read as: rk3562 and rk356x take the NC1HWC2-to-NCHW move of an output
 * whose channels fit one C2 group (8 <= C2 16 on rk3562, 8 on rk356x; 64 and
 * 80 do not) on the NPU. One chip family pair and one shape each way: the
 * boundary between 8 and 64 channels is not pinned by any file. */
static int output_on_npu(const lower_t *L, int ti, int producer_on_npu)
{
    const tensor_t *t = T(L, ti);
    int c2 = L->p->c2[NPU_INT8];

    if (!producer_on_npu || L->ng->dtype != NPU_INT8 || L->tensor_fp[ti] || !t ||
        t->ndim != 4 || (strcmp(L->p->family, "rk3562") && strcmp(L->p->family, "rk356x")))
        return 0;
    return c2 > 0 && t->dims[1] > 0 && t->dims[1] <= c2;
}

/* An output of rank < 4 that an NPU layer other than a Reshape makes: the
 * compiler's layers are 4-D, and its files reshape such an output back
 * before the OutputOperator, an NPU Reshape from the 4-D view ((a,b,c) as
 * (a,b,1,c), (a,b) as (a,b,1,1)) costed as a move: "Reshape
 * (1,32,1,32)->(1,32,32) last_hidden_state-rs" (toolkit 2.3.2, rk3588, a
 * BERT), "(1,12,1,1)->(1,12) action_mm_tp_rs" (2.3.2, rk3576, an MLP),
 * "(1,1,16800,4)->(1,16800,4) /Concat_2_0_unsqueeze1" (retinaface.rv1103).
 * Toolkit 2.3.0's rk3588 int8 files put it on the CPU ("output-rs" of
 * Odin-CV, the SDK guide's mobilenet row 56); 2.3.2 is the version modelled
 * (docs/vendor-rewrites.md). */
static void add_output_reshape(lower_t *L, int ti, int producer_on_npu)
{
    const tensor_t *t = T(L, ti);
    int pn = t ? t->producer : -1;
    int pl = pn >= 0 && pn < L->ng->n_nodes ? L->ng->node_layer[pn] : -1;
    if (!producer_on_npu || !t || t->ndim < 1 || t->ndim >= 4 || pl < 0 ||
        !strcmp(L->ng->l[pl].optype, "Reshape"))
        return;
    int dtype = L->ng->l[pl].dtype;
    npu_shape_t v4 = {.nd = 4, .d = {1, 1, 1, 1}};
    if (t->ndim == 1)
        v4.d[1] = t->dims[0];
    else
        v4.d[0] = t->dims[0], v4.d[1] = t->dims[1], v4.d[3] = t->ndim == 3 ? t->dims[2] : 1;
    npu_layer_t *r = layer_new(L, "Reshape", NPU_K_MOVE, NPU_TGT_NPU);
    r->dtype = dtype;
    snprintf(r->datatype, sizeof(r->datatype), "%s", npu_dtype_name(dtype));
    layer_add_in(r, v4, 0, ti);
    layer_add_in(r, (npu_shape_t){1, {t->ndim}}, 1, -1); /* its shape, as a Reshape reads it */
    /* it writes the output anew, as an exDataConvert does: the level-5 dump of
     * the output is its too (the vendor's mobilenet dumps "054_Conv_output_mm_
     * shape_1_1000_1_1", "055_Reshape_output_shape_1_1000", log-formats.md) */
    layer_add_out(r, shape_of(t), ti);
    r->out_tensor = ti;
    layer_set_fullname(r, "Reshape", t->name, "-rs");
}

static void add_output_ops(lower_t *L, const node_t *n, int producer_on_npu)
{
    for (int i = 0; i < n->n_out; i++) {
        int ti = n->out[i];
        if (ti < 0 || !L->g->t[ti].is_output)
            continue;
        for (int k = 0; k < L->g->n_outputs; k++)
            if (L->g->outputs[k] == ti) {
                int tgt = output_on_npu(L, ti, producer_on_npu) ? NPU_TGT_NPU : NPU_TGT_CPU;
                add_output_reshape(L, ti, producer_on_npu);
                npu_layer_t *l = layer_new(L, "OutputOperator", NPU_K_IO, tgt);
                layer_add_in(l, shape_of(T(L, ti)), 0, ti);
                if (tgt == NPU_TGT_NPU && !strcmp(L->p->family, "rk3562")) {
                    /* rk3562's file reads "<out>_exSecondary0" too, the output
                     * staged as [N,H,W,C2] (multiple_input_demo.rk3562.rknn) */
                    const tensor_t *t = T(L, ti);
                    npu_shape_t st = {.nd = 4, .d = {t->dims[0], t->dims[2], t->dims[3],
                                                     L->p->c2[NPU_INT8]}};
                    layer_add_in(l, st, 0, -1);
                }
                layer_set_fullname(l, "OutputOperator", L->g->t[ti].name, NULL);
                l->out_tensor = ti;
                if (L->tensor_fp[ti]) {
                    l->dtype = NPU_FP32;
                    snprintf(l->datatype, sizeof(l->datatype), "FLOAT");
                }
                break;
            }
    }
}

/* A Pad of no padding (pads all 0, as an attribute or a constant input): the
 * compiler drops it, its consumer reading the Pad's input (toolkit 1.6.0's
 * rk3568 file of Kori-Sama/license-recognize's LPRNet, its ONNX beside it: the
 * AveragePools after its three Pad nodes of zero pads read the convs' outputs) */
static int is_noop_pad(const lower_t *L, const node_t *n)
{
    const int64_t *v = NULL;
    if (strcmp(n->op, "Pad") || n->n_in < 1 || n->in[0] < 0 || n->n_out < 1)
        return 0;
    int cnt = attr_or_input_ints(L, n, "pads", 1, &v);
    if (!cnt)
        return 0;
    for (int i = 0; i < cnt; i++)
        if (v[i])
            return 0;
    return 1;
}

/* A ReduceMean over H or W alone of a 4-D tensor, that axis at most the pool
 * kernel's 7: the compiler's AveragePool "<node>_2avgpool" over that axis, and
 * without keepdims a CPU Reshape "<node>_2avgpool_after" to the node's shape
 * (the LPRNet file of is_noop_pad: ReduceMean_62 over H = 4 of (1,68,4,18) as
 * an NPU AveragePool to (1,68,1,18) and a CPU Reshape to (1,68,18); its
 * AveragePool of a kernel beyond 7 is a CPU layer). The axis, or -1. */
static int mean_axis_pool(const lower_t *L, const node_t *n)
{
    const tensor_t *x = n->n_in > 0 ? T(L, n->in[0]) : NULL;
    const int64_t *v = NULL;
    if (strcmp(n->op, "ReduceMean") || !x || x->ndim != 4 || n->n_out < 1 || n->out[0] < 0 ||
        attr_or_input_ints(L, n, "axes", 1, &v) != 1)
        return -1;
    int ax = (int)(v[0] < 0 ? v[0] + 4 : v[0]);
    return (ax == 2 || ax == 3) && x->dims[ax] >= 1 && x->dims[ax] <= 7 ? ax : -1;
}

static void lower_mean_axis_pool(lower_t *L, int ni, int ax)
{
    const node_t *n = &L->g->nodes[ni];
    const tensor_t *x = T(L, n->in[0]), *y = T(L, n->out[0]);
    const int keep = (int)node_attr_int(n, "keepdims", 1);
    npu_shape_t ps = shape_of(x);
    ps.d[ax] = 1;
    npu_layer_t *l = layer_new(L, "AveragePool", NPU_K_POOL, NPU_TGT_NPU);
    layer_add_in(l, shape_of(x), 0, n->in[0]);
    set_in_align(L, l, n->in[0]);
    int v = keep ? n->out[0] : L->ng->n_values++;
    layer_add_out(l, keep ? shape_of(y) : ps, v);
    l->kh = ax == 2 ? (int)x->dims[2] : 1;
    l->kw = ax == 3 ? (int)x->dims[3] : 1;
    layer_set_fullname(l, "AveragePool", n->name, "_2avgpool");
    if (keep) {
        l->out_tensor = n->out[0];
        layer_cover(L, l, ni);
        return;
    }
    npu_layer_t *r = layer_new(L, "Reshape", NPU_K_MOVE, NPU_TGT_CPU);
    layer_add_in(r, ps, 0, v);
    layer_add_in(r, (npu_shape_t){1, {y->ndim}}, 1, -1); /* its shape, as a Reshape reads it */
    layer_add_out(r, shape_of(y), n->out[0]);
    r->out_tensor = n->out[0];
    layer_set_fullname(r, "Reshape", n->name, "_2avgpool_after");
    r->reason = xstrdup("the Reshape after a ReduceMean's pool: a CPU layer in the vendor's "
                        "files (docs/vendor-rewrites.md)");
    layer_cover(L, r, ni);
}

/* A Flatten (or Reshape, Squeeze) of (N,C,H,W) to (N,C*H*W) that only a Gemm
 * the NPU runs as a conv reads: the compiler's conv reads the 4-D tensor, and
 * its tables have no layer for it: the SDK guide's mobilenet (toolkit 2.3.0,
 * rk3588) ends "55 Conv, 56 Reshape, 57 OutputOperator", the Reshape after the
 * classifier (add_output_reshape), and its lenet goes from "5 MaxPool" to "6
 * ConvRelu", the first Linear, with no Reshape between. The conv is costed as
 * the 1x1 conv over C*H*W channels (gemm_geometry), the same multiply-adds. */
static int is_view_flatten(const lower_t *L, const node_t *n)
{
    const tensor_t *x = n->n_in > 0 ? T(L, n->in[0]) : NULL;
    const tensor_t *y = n->n_out > 0 ? T(L, n->out[0]) : NULL;
    if ((strcmp(n->op, "Flatten") && strcmp(n->op, "Reshape") && strcmp(n->op, "Squeeze")) ||
        !x || !y || x->ndim != 4 || y->ndim != 2 || x->dims[1] <= 0 || x->dims[2] <= 0 ||
        x->dims[3] <= 0 || y->dims[0] != x->dims[0] ||
        y->dims[1] != x->dims[1] * x->dims[2] * x->dims[3])
        return 0;
    int c = sole_consumer(L, n->out[0]);
    char why[200];
    return c >= 0 && is_matmul_conv(L, &L->g->nodes[c]) && L->g->nodes[c].in[0] == n->out[0] &&
           place(L, &L->g->nodes[c], rule_for(L, &L->g->nodes[c]), why, sizeof why) == NPU_TGT_NPU;
}

static int lower_node(lower_t *L, int ni, char *err, size_t errlen)
{
    const graph_t *g = L->g;
    const node_t *n = &g->nodes[ni];
    const op_rule *r = rule_for(L, n);
    char why[200] = "";
    int target, kind = r ? r->kind : NPU_K_OTHER;
    npu_layer_t *l;
    int fp_cpu = 0, cvt_out = 0, main_idx = -1;

    if (is_view_flatten(L, n)) {
        L->done[ni] = 1; /* its Gemm reads the 4-D tensor */
        L->view_src[n->out[0]] = n->in[0];
        L->tensor_fp[n->out[0]] = L->tensor_fp[n->in[0]];
        return 0;
    }
    if (!strcmp(n->op, "Identity") || !strcmp(n->op, "Dropout") || is_noop_pad(L, n)) {
        L->done[ni] = 1; /* folded by the converter */
        if (n->n_in > 0 && n->in[0] >= 0 && n->out[0] >= 0)
            L->tensor_fp[n->out[0]] = L->tensor_fp[n->in[0]];
        return 0;
    }
    if (is_channel_sum(L, n)) {
        lower_channel_sum(L, ni);
        goto outputs;
    }
    int steps = 0, ax = mean_axis_pool(L, n), q = pool_chain_kernel(L, n, &steps);
    if (ax >= 0) {
        lower_mean_axis_pool(L, ni, ax);
        goto outputs;
    }
    if (q) {
        lower_pool_chain(L, ni, q, steps);
        goto outputs;
    }
    target = place(L, n, r, why, sizeof(why));
    /* no CPU op either: the vendor runtime refuses the model, no fallback */
    if (target == NPU_TGT_CPU && r && !(r->cpu & L->fam)) {
        L->unrunnable = ni;
        return rt_err(err, errlen, RT_EUNSUPPORTED,
                      "the model cannot run on %s: %s '%s': %s, and its runtime has no CPU %s "
                      "(rknn-oplist.md)", L->p->name, n->op, n->name, why, n->op);
    }

    if (target == NPU_TGT_NPU && !strcmp(n->op, "GlobalAveragePool") && T(L, n->in[0])->ndim == 4) {
        lower_gap_cascade(L, ni);
        goto outputs;
    }

    /* A float CPU layer in a quantized model: its NPU-produced inputs are
     * converted first. */
    {
        npu_layer_t probe = {.target = target};
        fp_cpu = is_fp_cpu_layer(L, &probe, n);
    }
    if (fp_cpu)
        for (int i = 0; i < n->n_in; i++) {
            int ti = n->in[i];
            if (ti >= 0 && !is_const(L, ti) && !L->tensor_fp[ti])
                add_convert(L, ti, "tofp");
        }

    if (target == NPU_TGT_NPU && is_group_conv(L, n)) {
        lower_group_conv(L, ni);
        goto outputs;
    }
    if (target == NPU_TGT_NPU && (!strcmp(n->op, "Conv") || is_matmul_conv(L, n))) {
        l = layer_new(L, "Conv", NPU_K_CONV, NPU_TGT_NPU);
        lower_conv(L, ni, l);
        goto outputs;
    }

    if (target == NPU_TGT_NPU && norm_fp16(L, r) && !n->keep_fp16 && n->n_in > 0 && n->in[0] >= 0) {
        add_convert(L, n->in[0], "cvt_int8_float16");
        cvt_out = 1;
    }
    l = layer_new(L, r ? r->vendor : n->op, kind, target);
    if (cvt_out) {
        l->dtype = NPU_FP16;
        snprintf(l->datatype, sizeof(l->datatype), "%s", npu_dtype_name(NPU_FP16));
        l->dtype_note = xstrdup("exNorm runs in float16 only: the compiler converts its input "
                                "and output (docs/vendor-rewrites.md)");
    }
    if (r && !strcmp(n->op, "Softmax") && g->opset >= 13)
        snprintf(l->optype, sizeof(l->optype), "exSoftmax13");
    if (!strcmp(n->op, "Softmax") && softmax_len(L, ni) > 0 &&
        tensor_numel(T(L, n->in[0])) > 0)
        l->softmax_rows = tensor_numel(T(L, n->in[0])) / softmax_len(L, ni);
    /* a Cast keeps its name in the RK35xx files: toolkit 2.3.2's BERT for rk3588
     * (emapco/rk-transformers' random_bert) lists "Cast CPU Cast:/Cast"; the op
     * list's DataConvert is RV1103/RV1106's CPU op (rknn-oplist.md §1) */
    if (r && !strcmp(n->op, "Cast"))
        snprintf(l->optype, sizeof(l->optype), "%s", L->fam & F1106 ? "DataConvert" : "Cast");
    add_node_inputs(L, l, n, 0);
    add_node_outputs(L, l, n);
    layer_set_fullname(l, n->op, n->name, NULL);
    layer_cover(L, l, ni);
    if (target == NPU_TGT_CPU)
        l->reason = xstrdup(why);
    /* the CPU's op is exLayerNorm (op list ch. 4, RV1106's CPU op set) */
    if (target == NPU_TGT_CPU && !strcmp(l->optype, "exNorm"))
        snprintf(l->optype, sizeof(l->optype), "exLayerNorm");
    if (fp_cpu) {
        l->dtype = NPU_FP32;
        snprintf(l->datatype, sizeof(l->datatype), "FLOAT");
        for (int i = 0; i < n->n_out; i++)
            if (n->out[i] >= 0)
                L->tensor_fp[n->out[i]] = 1;
    }
    if (l->kind == NPU_K_CONV && (!strcmp(n->op, "Gemm") || !strcmp(n->op, "MatMul")))
        gemm_geometry(L, l, n);
    if (!strcmp(n->op, "MatMul") && n->n_in > 1 && is_const(L, n->in[1])) {
        snprintf(l->optype, sizeof(l->optype), "Conv"); /* const B: a 1x1 conv (LOG-Y8 "MatMul#2") */
        l->kind = NPU_K_CONV;
        gemm_geometry(L, l, n);
    } else if (l->kind == NPU_K_MATMUL) {
        gemm_geometry(L, l, n);
        if (!strcmp(n->op, "SDPAttention"))
            attention_geometry(L, l, ni);
    }
    if (l->kind == NPU_K_DECONV) {
        const tensor_t *x = T(L, n->in[0]), *w = n->n_in > 1 ? T(L, n->in[1]) : NULL;
        l->ic = (int)dim(x, 1);
        l->oc = (int)dim(T(L, n->out[0]), 1);
        l->kh = w && w->ndim >= 3 ? (int)w->dims[2] : 1;
        l->kw = w && w->ndim >= 4 ? (int)w->dims[3] : 1;
        l->group = (int)node_attr_int(n, "group", 1);
        l->out_pixels = dim(x, 0) * dim(x, 2) * dim(x, 3); /* billed per input pixel */
        l->px_batch = dim(x, 0);
    }
    /* Add/Mul + Relu -> AddRelu / MulRelu (rknn-oplist.md §2 common set) */
    if (target == NPU_TGT_NPU && (!strcmp(n->op, "Add") || !strcmp(n->op, "Mul"))) {
        int c = sole_consumer(L, n->out[0]);
        if (c >= 0 && !strcmp(g->nodes[c].op, "Relu")) {
            layer_cover(L, l, c);
            strcat(l->optype, "Relu");
            l->n_out = 0;
            l->n_out_v = 0;
            layer_add_out(l, shape_of(T(L, g->nodes[c].out[0])), g->nodes[c].out[0]);
            l->out_tensor = g->nodes[c].out[0];
        }
    }
    if (cvt_out && n->n_out > 0 && n->out[0] >= 0) {
        npu_layer_t *cv;
        main_idx = L->ng->n - 1;
        cv = add_convert(L, n->out[0], "cvt_float16_int8");
        cv->dtype = NPU_FP16;
        snprintf(cv->datatype, sizeof(cv->datatype), "%s", npu_dtype_name(NPU_FP16));
    }
outputs:
    {
        /* back to int8 for NPU consumers of a float CPU layer's outputs */
        int last = main_idx >= 0 ? main_idx : L->ng->n - 1; /* by index: add_output_ops may move ng->l */
        int on_npu = L->ng->l[last].target == NPU_TGT_NPU;
        for (int k = 0; k < L->ng->l[last].n_src_nodes; k++) {
            const node_t *sn = &g->nodes[L->ng->l[last].src_nodes[k]];
            add_output_ops(L, sn, on_npu);
        }
        if (fp_cpu)
            for (int i = 0; i < n->n_out; i++) {
                int ti = n->out[i], need = 0;
                if (ti < 0)
                    continue;
                for (int c = 0; c < L->n_cons[ti]; c++) {
                    const node_t *cn = &g->nodes[L->cons[ti][c]];
                    const op_rule *cr = rule_for(L, cn);
                    char w2[200];
                    if (place(L, cn, cr, w2, sizeof(w2)) == NPU_TGT_NPU)
                        need = 1;
                }
                if (need) {
                    add_convert(L, ti, "toint8");
                    L->tensor_fp[ti] = 0;
                }
            }
    }
    return 0;
}

/* A layer covering a node a hybrid file keeps in float16 computes in
 * float16 (the whole fused layer: the file may name the conv or its
 * activation); dtype_note says why. */
static int hybrid_dtypes(lower_t *L, char *err, size_t errlen)
{
    npu_graph_t *ng = L->ng;

    for (int i = 0; i < ng->n; i++) {
        npu_layer_t *l = &ng->l[i];
        const node_t *named = NULL;
        int any = 0;
        for (int k = 0; k < l->n_src_nodes; k++) {
            const node_t *n = &L->g->nodes[l->src_nodes[k]];
            any |= n->keep_fp16 != 0;
            if (n->keep_fp16 == NODE_FP16_NAMED && !named)
                named = n;
        }
        if (!any || l->target != NPU_TGT_NPU || l->dtype == NPU_FP16)
            continue;
        if (!npu_peak_macs(L->p, NPU_FP16))
            return rt_err(err, errlen, RT_EUNSUPPORTED, "%s NPU has no float16 for the "
                          "hybrid layer %s", L->p->name, l->fullname);
        l->dtype = NPU_FP16;
        snprintf(l->datatype, sizeof(l->datatype), "%s", npu_dtype_name(NPU_FP16));
        {
            char note[200];
            const char *tn = named && named->n_out > 0 && named->out[0] >= 0
                                 ? L->g->t[named->out[0]].name : named ? named->name : NULL;
            if (tn && l->n_src_nodes > 1)
                snprintf(note, sizeof(note), "the hybrid file names %s, fused into this %s",
                         tn, l->optype);
            else if (tn)
                snprintf(note, sizeof(note), "the hybrid file names %s", tn);
            else
                snprintf(note, sizeof(note), "fused with a layer the hybrid file names");
            l->dtype_note = xstrdup(note);
        }
    }
    return 0;
}

static int dtype_to_npu(int dt)
{
    switch (dt) {
    case DT_INT8: case DT_UINT8: return NPU_INT8;
    case DT_FLOAT16: case DT_FLOAT: return NPU_FP16;
    case DT_INT16: return NPU_INT16;
    case DT_BFLOAT16: return NPU_BF16;
    }
    return -1;
}

int npu_lower(const graph_t *g, const npu_platform_t *p, int dtype, npu_graph_t **out,
              char *err, size_t errlen)
{
    return npu_lower_at(g, p, dtype, out, NULL, err, errlen);
}

int npu_lower_at(const graph_t *g, const npu_platform_t *p, int dtype, npu_graph_t **out,
                 int *unrunnable, char *err, size_t errlen)
{
    lower_t L = {.unrunnable = -1};
    npu_graph_t *ng = NULL;
    npu_fused_t fu = {0};
    graph_t view;
    int ndt = dtype_to_npu(dtype), ret = 0;
    int *wait = NULL, pending = 0;

    *out = NULL;
    if (unrunnable)
        *unrunnable = -1;
    if (!g || !p)
        return rt_err(err, errlen, RT_EINVAL, "npu_lower: no graph or platform");
    if (ndt < 0)
        return rt_err(err, errlen, RT_EINVAL, "npu_lower: dtype %s has no NPU mode",
                      dtype_name(dtype));
    if (!npu_peak_macs(p, ndt)) {
        char dts[64];
        return rt_err(err, errlen, RT_EUNSUPPORTED, "%s NPU has no %s (supported: %s)",
                      p->name, npu_dtype_name(ndt), npu_platform_dtypes(p, dts, sizeof dts));
    }

    ng = xcalloc(1, sizeof(*ng));
    ng->plat = p;
    ng->dtype = ndt;
    ng->cores = 0x1;
    ng->n_nodes = g->n_nodes;
    ng->n_values = g->n_t;
    ng->node_layer = xmalloc((size_t)(g->n_nodes > 0 ? g->n_nodes : 1) * sizeof(int));
    for (int i = 0; i < g->n_nodes; i++)
        ng->node_layer[i] = -1;

    /* from here on the graph is the compiler's rewritten view (same node
     * and tensor indices) */
    npu_fuse(g, p, &fu, &view);
    g = &view;
    L.fu = &fu;
    L.g = g;
    L.p = p;
    L.ng = ng;
    L.fam = family_bit(p);
    L.n_cons = xcalloc((size_t)g->n_t + 1, sizeof(int));
    L.cons = xcalloc((size_t)g->n_t + 1, sizeof(int *));
    L.done = xcalloc((size_t)g->n_nodes + 1, sizeof(int));
    L.tensor_fp = xcalloc((size_t)g->n_t + 1, sizeof(int));
    L.view_src = xmalloc(sizeof(int) * ((size_t)g->n_t + 1));
    for (int i = 0; i <= g->n_t; i++)
        L.view_src[i] = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        const node_t *n = &g->nodes[i];
        if (n->folded)
            continue;
        for (int k = 0; k < n->n_in; k++) {
            int ti = n->in[k];
            int dup = 0;
            if (ti < 0)
                continue;
            for (int j = 0; j < L.n_cons[ti]; j++)
                dup |= L.cons[ti][j] == i;
            if (dup)
                continue;
            L.cons[ti] = xrealloc(L.cons[ti], (size_t)(L.n_cons[ti] + 1) * sizeof(int));
            L.cons[ti][L.n_cons[ti]++] = i;
        }
    }

    /* InputOperator rows; a quantized model takes 1/3/4-channel 4-D inputs as
     * UINT8 NHWC (LOG-Y8 row 1 and its first conv are UINT8). */
    for (int i = 0; i < g->n_inputs; i++) {
        const tensor_t *t = &g->t[g->inputs[i]];
        npu_layer_t *l = layer_new(&L, "InputOperator", NPU_K_IO, NPU_TGT_CPU);
        layer_add_out(l, shape_of(t), g->inputs[i]);
        layer_set_fullname(l, "InputOperator", t->name, NULL);
        l->out_tensor = g->inputs[i];
        if (ndt == NPU_INT8 && t->ndim == 4 &&
            (t->dims[1] == 1 || t->dims[1] == 3 || t->dims[1] == 4))
            snprintf(l->datatype, sizeof(l->datatype), "UINT8");
    }

    /* graph order, except a conv that takes an Add after its other operand
     * (add_first_operand_wait): it and its chain wait for that operand's
     * producer, and run as soon as it is done */
    wait = xmalloc((size_t)(g->n_nodes > 0 ? g->n_nodes : 1) * sizeof(int));
    for (int i = 0; i < g->n_nodes; i++)
        wait[i] = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        int chain[16], nc = 0, w;
        if (g->nodes[i].folded || L.done[i] || wait[i] != -1)
            continue;
        w = add_first_operand_wait(&L, i, chain, &nc, 16);
        if (w >= 0) {
            wait[i] = w;
            pending++;
            for (int k = 0; k < nc; k++)
                wait[chain[k]] = -2; /* covered by the conv's layer */
            continue;
        }
        ret = lower_node(&L, i, err, errlen);
        for (int j = 0; !ret && pending && j < g->n_nodes; j++)
            if (wait[j] >= 0 && !L.done[j] && L.done[wait[j]]) {
                wait[j] = -3; /* lowered after its wait */
                pending--;
                ret = lower_node(&L, j, err, errlen);
                j = -1; /* one may free another */
            }
        if (ret)
            goto out;
    }
    for (int i = 0; i < g->n_nodes; i++)
        if (wait[i] == -3 && ng->node_layer[i] >= 0)
            ng->l[ng->node_layer[i]].deferred = 1;
    /* a wait that never ended (its operand's producer folded away): in order */
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].folded || L.done[i])
            continue;
        ret = lower_node(&L, i, err, errlen);
        if (ret)
            goto out;
    }
    for (int i = 0; i < ng->n; i++)
        if (ng->l[i].out_tensor >= 0 && ng->l[i].kind != NPU_K_IO)
            ng->l[i].out_is_graph_output = g->t[ng->l[i].out_tensor].is_output;
    /* layers reading a UINT8 image input print UINT8 too */
    for (int i = 0; i < ng->n; i++) {
        npu_layer_t *l = &ng->l[i];
        if (l->kind == NPU_K_IO || !l->n_src_nodes)
            continue;
        const node_t *n = &g->nodes[l->src_nodes[0]];
        for (int k = 0; k < g->n_inputs; k++)
            if (n->n_in > 0 && n->in[0] == g->inputs[k] &&
                !strcmp(ng->l[k].datatype, "UINT8"))
                snprintf(l->datatype, sizeof(l->datatype), "UINT8");
    }
    /* fused layers carry the vendor's names ("exNorm:<ReduceMean>_2ln") */
    for (int i = 0; i < ng->n; i++) {
        npu_layer_t *l = &ng->l[i];
        int first = -1; /* the first node the layer covers of its own */
        for (int k = 0; k < l->n_src_nodes && first < 0; k++)
            if (fu.head_of[l->src_nodes[k]] < 0)
                first = l->src_nodes[k];
        if (first >= 0 && fu.fullname[first]) {
            free(l->fullname);
            l->fullname = xstrdup(fu.fullname[first]);
        }
    }
    ret = hybrid_dtypes(&L, err, errlen);
    if (ret)
        goto out;
    /* graph outputs that are graph inputs or constants never got an OutputOperator */
    ng->row_cache = xcalloc((size_t)ng->n + 1, sizeof(*ng->row_cache)); /* + the whole table */
out:
    for (int i = 0; i < g->n_t; i++)
        free(L.cons[i]);
    free(L.cons);
    free(L.n_cons);
    free(L.done);
    free(L.tensor_fp);
    free(L.view_src);
    free(wait);
    npu_fuse_free(&fu);
    if (ret && unrunnable)
        *unrunnable = L.unrunnable;
    if (ret) {
        npu_graph_free(ng);
        return ret;
    }
    *out = ng;
    return 0;
}

void npu_unrunnable_msg(const graph_t *g, const npu_platform_t *p, int node, char *buf,
                        size_t len)
{
    const node_t *n = &g->nodes[node];
    snprintf(buf, len, "unsupport cpu %s op, op name: %s:%s in current: %s runs %s neither on "
             "its NPU nor on its runtime's CPU (rknn-oplist.md); replace the op or choose "
             "another chip", n->op, n->op, n->name, p->name, n->op);
}

void npu_graph_free(npu_graph_t *ng)
{
    if (!ng)
        return;
    for (int i = 0; i < ng->n; i++) {
        npu_layer_t *l = &ng->l[i];
        free(l->fullname);
        free(l->reason);
        free(l->dtype_note);
        free(l->src_nodes);
        for (int k = 0; k < l->n_src_tensors; k++)
            free(l->src_tensors[k]);
        free(l->src_tensors);
        free(l->in_v);
        free(l->out_v);
    }
    npu_mem_plan_drop(ng);
    for (int i = 0; ng->row_cache && i <= ng->n; i++) {
        free(ng->row_cache[i].text);
        free(ng->row_cache[i].ptext);
    }
    free(ng->row_cache);
    free(ng->l);
    free(ng->node_layer);
    free(ng);
}

int npu_set_core_mask(npu_graph_t *ng, unsigned mask, char *err, size_t errlen)
{
    unsigned cores;
    int ret = npu_core_mask_check(ng->plat, mask, &cores, err, errlen);

    if (ret)
        return ret;
    ng->cores = cores;
    ng->cost_valid = 0;
    return 0;
}
