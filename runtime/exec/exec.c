/* runtime/exec/exec.c — runs a prepared graph node by node.
 *
 * Memory plan: every run-time tensor (graph inputs and node outputs) gets a
 * fixed offset in one arena, computed once from lifetimes (first producer,
 * last consumer) by greedy best-offset placement, largest tensors first.
 * Graph inputs and outputs live for the whole run, so that a second run may
 * reuse the inputs and outputs stay readable after it.
 *
 * Fusion: a run without a layer hook (nobody looks at intermediate tensors)
 * executes a Conv and the elementwise chain after it as one kernel, when each
 * link's input feeds only that link and is not a graph output: for a conv
 * without a bias, an Add of a constant per output channel (taken as the
 * bias), an optional multiply/add by constant scalars, an activation (Relu, Clip, LeakyRelu,
 * HardSwish, x * Sigmoid(x) as Sigmoid + Mul, x * Clip(x + 3, 0, 6) / 6 as
 * Add/Clip/Mul/Div), then another scalar multiply/add. The fused conv writes
 * the chain's last tensor, whose arena lifetime starts at the conv for that
 * reason; the chain's nodes are skipped. A residual Add of the chain's output
 * and an earlier tensor is taken in the same epilogue (match_residual), and a
 * direct conv reads an input that a Concat of Slices cut from one tensor
 * straight from that tensor (match_gather: YOLOX's Focus), the Add, Slices
 * and Concat then skipped too. A kernel that stands in for the Conv
 * (quantization's) may run the chain itself instead (node_t.chain); the Add,
 * Slices and Concat then run. A direct conv whose output (its chain's) only
 * a depthwise conv reads runs with that conv and its chain as one kernel
 * (match_pair: YOLOX's stem), its own output then never written. A stock
 * fused conv's tiles also bring the next GEMM conv's packed weights into L2
 * (fuse_t.pf): 13x13 convs read up to 0.5 MB of weights per 169 columns. A
 * Slice of a Slice's output reads the first one's input (plan_slices; through
 * node_t.chain too, for a wrapped pair).
 * Runs with a hook execute every node as the graph says. */
#include "runtime/exec/exec.h"
#include "runtime/exec/kernels.h"
#include "runtime/exec/threadpool.h"
#include "util/util.h"

#include <cblas.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

struct exec {
    graph_t *g;
    struct threadpool *pool;
    op_ctx ctx;
    char ctx_err[512];
    int *order;        /* node indices executed, in order */
    int n_order;
    uint8_t *arena;
    size_t arena_bytes;
    int *arena_tensors; /* tensors whose data points into the arena */
    int n_arena;
    const tensor_t **ev_in, **ev_out;
    int ev_cap;
    struct fuse *fuse; /* per execution position, or NULL when nothing fuses */
    int sliced;        /* every composed Slice pair still has its stock kernels (fusion_modes) */
};

/* Longest activation chain: affine, HardSwish as four nodes, affine. */
#define FUSE_MAX_CHAIN 8
/* Most nodes a gathered conv input replaces: a Concat of four Slices of Slices. */
#define FUSE_MAX_GATHER 9
/* A head's other nodes: chain, residual Add, gather. */
#define FUSE_MAX_MEMBERS (FUSE_MAX_CHAIN + 1 + FUSE_MAX_GATHER)

/* How a head runs in this run, or whether a composed Slice may (fusion_modes). */
enum { FUSE_NONE, FUSE_CONV, FUSE_CHAIN, FUSE_SLICE, FUSE_SLICE_KERNEL };

typedef struct fuse {
    int head;     /* this Conv runs fused, writing tensor out */
    int skip;     /* this node's output comes from an earlier fused Conv */
    int out;
    gemm_epi act;
    int owner;    /* a skipped chain node: its head's position + 1 */
    int n_chain;  /* a head: the positions of its chain's nodes, in order */
    int chain[FUSE_MAX_CHAIN];
    int mode;     /* a head or composed Slice: FUSE_*, as fusion_modes last found it ... */
    const op_def *seen[FUSE_MAX_MEMBERS + 1]; /* ... for these kernels (head and its
                                                 members, or the Slice and the one it
                                                 follows) */
    int res_at;   /* a head: the position + 1 of the Add of its output and an earlier
                     tensor that a stock fused conv takes in its epilogue, or 0 */
    int res, res_out; /* that Add's other input and its output */
    conv_gather *gather; /* a head: its input read in place from tensor gather_src by a
                            stock fused conv, the nodes at gmem not run; or NULL */
    int gather_src, n_gmem, gmem[FUSE_MAX_GATHER];
    int conv_of;  /* that Add, or one of those nodes: its head's position + 1 (skipped
                     only when the head runs as a stock fused conv) */
    int pair;     /* a head: the position + 1 of the depthwise conv head that reads only
                     its output and runs with it (conv_run_pair), or 0 */
    int pair_of;  /* that depthwise conv: its direct conv's position + 1 */
    const void *pf; /* a head: the packed weights of the next GEMM conv (op_fusion.weights),
                       which its tiles bring into L2 as a stock fused conv, or NULL */
    size_t pf_len;
    int slice_of; /* this Slice reads the input of the Slice at position slice_of - 1 */
    int slice_skip; /* this Slice's output only feeds such Slices */
} fuse_t;

void op_parallel_for(op_ctx *c, int64_t n, range_fn fn, void *arg)
{
    if (n <= 0)
        return;
    if (!c || c->nthreads <= 1 || !c->pool || n == 1) {
        fn(arg, 0, n);
        return;
    }
    threadpool_run(c->pool, n, fn, arg);
}

void exec_parallel_for(exec_t *x, int64_t n, range_fn fn, void *arg)
{
    op_ctx c = x->ctx; /* the whole pool, also for a small model's executor */
    c.nthreads = threadpool_size(x->pool);
    c.pool = x->pool;
    op_parallel_for(&c, n, fn, arg);
}

void exec_wake(exec_t *x)
{
    /* not the pool of a model whose runs stay on the calling thread: woken
     * for nothing, a worker took the caller's CPU (MNIST's C API frames at
     * two threads: 0.022 -> 0.26 ms) */
    if (x && x->ctx.nthreads > 1)
        threadpool_wake(x->pool);
}

typedef struct span {
    int t;
    int first, last; /* positions in the execution order, inclusive */
    size_t size, off;
} span;

static int by_size_desc(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->size != y->size)
        return x->size < y->size ? 1 : -1;
    return x->t - y->t;
}

static size_t align64(size_t n)
{
    return (n + 63) & ~(size_t)63;
}

/* Places every span at the lowest offset that does not collide with an
 * already-placed span alive at the same time. */
static size_t place_spans(span *s, int n)
{
    size_t peak = 0;
    int *live = xmalloc(sizeof(int) * (size_t)(n ? n : 1));

    qsort(s, (size_t)n, sizeof(*s), by_size_desc);
    for (int i = 0; i < n; i++) {
        int nl = 0;
        for (int j = 0; j < i; j++)
            if (s[j].first <= s[i].last && s[i].first <= s[j].last)
                live[nl++] = j;
        size_t off = 0;
        for (int moved = 1; moved;) {
            moved = 0;
            for (int k = 0; k < nl; k++) {
                span *o = &s[live[k]];
                if (off < o->off + o->size && o->off < off + s[i].size) {
                    off = align64(o->off + o->size);
                    moved = 1;
                }
            }
        }
        s[i].off = off;
        if (off + s[i].size > peak)
            peak = off + s[i].size;
    }
    free(live);
    return peak;
}

/* node's def is the stock kernel for its op (not swapped, e.g. by quantization) */
static int stock_op(const node_t *n, const char *op)
{
    return !strcmp(n->op, op) && n->def && n->def == exec_find_op(n->domain, n->op);
}

/* node's kernel is the stock one for op, or runs it unchanged (node_t.wraps) */
static int stock_kernel(const node_t *n, const char *op)
{
    return stock_op(n, op) ||
           (!strcmp(n->op, op) && n->wraps && n->wraps == exec_find_op(n->domain, n->op));
}

/* The fusion hooks of node n's kernel, else of the stock kernel it runs
 * unchanged (node_t.wraps), or NULL. */
static const op_fusion *fusion_of(const node_t *n)
{
    const op_def *d = n->def && n->def->fusion ? n->def : n->wraps;
    return d ? d->fusion : NULL;
}

/* node n heads a fused conv-like kernel with its chain as the epilogue */
static int head_fusable(const node_t *n)
{
    const op_fusion *h = fusion_of(n);
    return h && h->fusable && h->fusable(n);
}

/* Scalar value of optional constant float input i, or def when omitted; -1 if
 * present but not a constant float scalar. */
static int const_scalar(const graph_t *g, const node_t *n, int i, float def, float *v)
{
    *v = def;
    if (i >= n->n_in || n->in[i] < 0)
        return 0;
    const tensor_t *t = &g->t[n->in[i]];
    if (t->kind != TK_CONST || !t->data || t->dtype != DT_FLOAT || tensor_numel(t) != 1)
        return -1;
    *v = *(const float *)t->data;
    return 0;
}

/* Bounds of a stock Clip: constant inputs (opset 11+) or attributes; -1 if not constant. */
static int clip_bounds(const graph_t *g, const node_t *c, float *lo, float *hi)
{
    if (c->n_in > 1)
        return const_scalar(g, c, 1, -FLT_MAX, lo) || const_scalar(g, c, 2, FLT_MAX, hi) ? -1 : 0;
    *lo = node_attr_float(c, "min", -FLT_MAX);
    *hi = node_attr_float(c, "max", FLT_MAX);
    return 0;
}

/* The activation node c applied to tensor t, as an epilogue; 0 if not fusable. */
static int act_of(const graph_t *g, const node_t *c, int t, gemm_epi *e)
{
    memset(e, 0, sizeof(*e));
    if (c->n_out != 1 || c->in[0] != t)
        return 0;
    if (stock_kernel(c, "Relu")) {
        e->act = GEMM_ACT_RELU;
    } else if (stock_kernel(c, "LeakyRelu")) {
        e->act = GEMM_ACT_LEAKY;
        e->alpha = node_attr_float(c, "alpha", 0.01f);
    } else if (stock_kernel(c, "HardSwish")) {
        e->act = GEMM_ACT_HSWISH;
    } else if (stock_kernel(c, "Clip")) {
        e->act = GEMM_ACT_CLIP;
        if (clip_bounds(g, c, &e->alpha, &e->beta))
            return 0;
    } else {
        return 0;
    }
    return 1;
}

typedef struct fuse_scan {
    const exec_t *x;
    const int *uses, *cons;
    const int *prod; /* position of each tensor's producer, or -1 */
    fuse_t *f;
} fuse_scan;

/* Position of the only consumer of tensor t (not a graph output, not yet
 * fused), or -1. */
static int only_consumer(const fuse_scan *s, int t)
{
    if (t < 0 || s->uses[t] != 1 || s->f[s->cons[2 * t]].skip || s->f[s->cons[2 * t]].head)
        return -1;
    return s->cons[2 * t];
}

static const node_t *node_at(const fuse_scan *s, int q)
{
    return &s->x->g->nodes[s->x->order[q]];
}

/* n is a stock binary op of tensor t and a constant float scalar: *v. */
static int scalar_op(const graph_t *g, const node_t *n, const char *op, int t, float *v)
{
    if (!stock_kernel(n, op) || n->n_in != 2 || n->n_out != 1 || n->out[0] < 0)
        return 0;
    int k = n->in[0] == t ? 1 : n->in[1] == t ? 0 : -1;
    if (k < 0 || n->in[k] == t || (k == 0 && !strcmp(op, "Div")))
        return 0;
    return const_scalar(g, n, k, 0, v) == 0 && n->in[k] >= 0;
}

/* Optional Mul-by-scalar then Add-scalar after tensor *t: v * s + b. */
static int match_affine(fuse_scan *s, int *t, float *sc, float *bi)
{
    const graph_t *g = s->x->g;
    int q = only_consumer(s, *t), found = 0;
    float v;
    *sc = 1.0f;
    *bi = 0.0f;
    if (q >= 0 && scalar_op(g, node_at(s, q), "Mul", *t, &v)) {
        *sc = v;
        s->f[q].skip = 1;
        *t = node_at(s, q)->out[0];
        q = only_consumer(s, *t);
        found = 1;
    }
    if (q >= 0 && scalar_op(g, node_at(s, q), "Add", *t, &v)) {
        *bi = v;
        s->f[q].skip = 1;
        *t = node_at(s, q)->out[0];
        found = 1;
    }
    return found;
}

/* A stock conv without a bias whose only consumer adds a constant per output
 * channel (CNTK's MNIST: Conv, Add [C,1,1], Relu): that constant as the conv's
 * bias, added where a bias is, *t moved to the Add's output. A kernel that
 * runs its chain itself (node_t.chain) gets the Add as the chain's first node. */
static int match_channel_add(fuse_scan *s, int p, int *t, const float **bias)
{
    const graph_t *g = s->x->g;
    const node_t *n = node_at(s, p);
    if (!(head_fusable(n) || n->chain) || (n->n_in > 2 && n->in[2] >= 0))
        return 0;
    int q = only_consumer(s, *t);
    if (q < 0)
        return 0;
    const node_t *a = node_at(s, q);
    if (!stock_kernel(a, "Add") || a->n_in != 2 || a->n_out != 1 || a->out[0] < 0 ||
        a->in[0] == a->in[1])
        return 0;
    const tensor_t *y = &g->t[*t], *b = &g->t[a->in[0] == *t ? a->in[1] : a->in[0]];
    const tensor_t *o = &g->t[a->out[0]];
    if (y->ndim != 4 || !tensor_is_const(b) || b->dtype != DT_FLOAT || b->ndim > 4 ||
        b->ndim < 3 || o->ndim != 4 || memcmp(o->dims, y->dims, sizeof(int64_t) * 4))
        return 0;
    /* right-aligned against [N, C, H, W]: C on the channel axis, 1 elsewhere */
    for (int d = 0; d < b->ndim; d++) {
        int axis = 4 - b->ndim + d;
        if (b->dims[d] != (axis == 1 ? y->dims[1] : 1))
            return 0;
    }
    *bias = b->data;
    s->f[q].skip = 1;
    *t = a->out[0];
    return 1;
}

/* A node of op `op` whose data input is t (feeding only it) in the chain of
 * a kernel that runs its chain itself (node_t.chain), *t moved to its
 * output: a BatchNormalization (a stock conv has it folded into its
 * weights, passes/fold_bn.c; PP-OCR det's head: ConvTranspose, bias Add,
 * BatchNormalization, Relu) or a Sigmoid ending it (that head's score map:
 * ConvTranspose, bias Add, Sigmoid). */
static int match_kernel_link(fuse_scan *s, int p, int *t, const char *op)
{
    int q = only_consumer(s, *t);
    if (!node_at(s, p)->chain || head_fusable(node_at(s, p)) || q < 0)
        return 0;
    const node_t *b = node_at(s, q);
    if (!stock_kernel(b, op) || b->n_out != 1 || b->out[0] < 0 || b->in[0] != *t)
        return 0;
    s->f[q].skip = 1;
    *t = b->out[0];
    return 1;
}

/* x * Sigmoid(x), or PaddlePaddle's HardSwish x * Clip(x + 3, 0, 6) / 6, on
 * tensor t (which feeds exactly the two branches). */
static int match_two_branch(fuse_scan *s, int *t, gemm_epi *e)
{
    const graph_t *g = s->x->g;
    int tt = *t;
    if (tt < 0 || s->uses[tt] != 2 || s->cons[2 * tt] == s->cons[2 * tt + 1])
        return 0;
    int qa = s->cons[2 * tt], qb = s->cons[2 * tt + 1];
    for (int swap = 0; swap < 2; swap++, qa ^= qb, qb ^= qa, qa ^= qb) {
        const node_t *a = node_at(s, qa), *m = node_at(s, qb);
        if (s->f[qa].skip || s->f[qb].skip || s->f[qa].head || s->f[qb].head ||
            !stock_kernel(m, "Mul") || m->n_in != 2 || m->n_out != 1 || m->out[0] < 0)
            continue;
        float v, lo, hi;
        if (stock_kernel(a, "Sigmoid") && a->n_out == 1 && a->in[0] == tt && a->out[0] >= 0) {
            int so = a->out[0];
            if (s->uses[so] != 1 ||
                !((m->in[0] == tt && m->in[1] == so) || (m->in[0] == so && m->in[1] == tt)))
                continue;
            s->f[qa].skip = s->f[qb].skip = 1;
            e->act = GEMM_ACT_SILU;
            *t = m->out[0];
            return 1;
        }
        if (!scalar_op(g, a, "Add", tt, &v) || v != 3.0f)
            continue;
        int qc = only_consumer(s, a->out[0]);
        if (qc < 0)
            continue;
        const node_t *c = node_at(s, qc);
        if (!stock_kernel(c, "Clip") || c->in[0] != a->out[0] || c->n_out != 1 || c->out[0] < 0 ||
            clip_bounds(g, c, &lo, &hi) || lo != 0.0f || hi != 6.0f)
            continue;
        int co = c->out[0];
        if (s->uses[co] != 1 ||
            !((m->in[0] == tt && m->in[1] == co) || (m->in[0] == co && m->in[1] == tt)))
            continue;
        int qd = only_consumer(s, m->out[0]);
        if (qd < 0 || !scalar_op(g, node_at(s, qd), "Div", m->out[0], &v) || v != 6.0f)
            continue;
        s->f[qa].skip = s->f[qb].skip = s->f[qc].skip = s->f[qd].skip = 1;
        e->act = GEMM_ACT_HSWISH;
        *t = node_at(s, qd)->out[0];
        return 1;
    }
    return 0;
}

/* An Add of tensor t (the chain's output, feeding only it) and a tensor of
 * the same shape made before position p (the shortcut of a residual block):
 * its position, or -1. */
static int match_residual(fuse_scan *s, int p, int t, int *res)
{
    const graph_t *g = s->x->g;
    int q = only_consumer(s, t);
    if (q < 0 || s->f[q].conv_of)
        return -1;
    const node_t *a = node_at(s, q);
    if (!stock_kernel(a, "Add") || a->n_in != 2 || a->n_out != 1 || a->out[0] < 0 ||
        a->in[0] == a->in[1])
        return -1;
    int r = a->in[0] == t ? a->in[1] : a->in[0];
    if (r < 0 || s->prod[r] >= p)
        return -1;
    const tensor_t *rt = &g->t[r], *tt = &g->t[t];
    if (rt->dtype != DT_FLOAT || rt->ndim != tt->ndim)
        return -1;
    for (int d = 0; d < tt->ndim; d++)
        if (rt->dims[d] != tt->dims[d])
            return -1;
    *res = r;
    return q;
}

/* Slice q (or the Slice it reads, at *qi, whose output feeds only it) cuts
 * from tensor *src: the Slice pair's source plan; 0 if not a stock Slice. */
static int gather_slice(fuse_scan *s, int q, int *qi, int *src, int64_t *start, int64_t *step)
{
    graph_t *g = s->x->g;
    const node_t *n = node_at(s, q), *inner = NULL;
    if (!stock_kernel(n, "Slice") || n->n_out != 1 || n->in[0] < 0)
        return 0;
    int t = n->in[0];
    *qi = s->prod[t] >= 0 && s->uses[t] == 1 ? s->prod[t] : -1;
    if (*qi >= 0 && stock_kernel(node_at(s, *qi), "Slice") && node_at(s, *qi)->n_out == 1)
        inner = node_at(s, *qi);
    else
        *qi = -1;
    *src = inner ? inner->in[0] : t;
    return *src >= 0 && fusion_of(n) && fusion_of(n)->source &&
           fusion_of(n)->source(g, n, inner, start, step) == RT_OK;
}

/* The input of the conv at position p made by a Concat on the channel axis of
 * Slices of one tensor, whole batch items and channels in order, any phase and
 * positive step in rows and columns (YOLOX's Focus: every other row and
 * column, four phases): the conv reads those elements in place and the
 * Slices and the Concat do not run. */
static void match_gather(fuse_scan *s, int p)
{
    graph_t *g = s->x->g;
    const node_t *n = node_at(s, p);
    int t = n->in[0], qc = t >= 0 ? s->prod[t] : -1;
    if (qc < 0 || s->uses[t] != 1)
        return;
    const node_t *cat = node_at(s, qc);
    const tensor_t *tt = &g->t[t];
    if (!stock_kernel(cat, "Concat") || cat->n_out != 1 || tt->ndim != 4 ||
        tt->dtype != DT_FLOAT || !fusion_of(n)->gather_ok ||
        !fusion_of(n)->gather_ok(n, tt->dims[1]) ||
        (node_attr_int(cat, "axis", 1) + 4) % 4 != 1)
        return;
    conv_gather gt = {0};
    int src = -1, mem[FUSE_MAX_GATHER], nm = 0;
    int64_t ch = 0;
    mem[nm++] = qc;
    for (int k = 0; k < cat->n_in; k++) {
        int ti = cat->in[k], qs = ti >= 0 ? s->prod[ti] : -1, qi, sk;
        int64_t st[MODEL_MAX_DIMS], sp[MODEL_MAX_DIMS];
        if (qs < 0 || s->uses[ti] != 1 || nm + 2 > FUSE_MAX_GATHER ||
            !gather_slice(s, qs, &qi, &sk, st, sp) || (src >= 0 && sk != src))
            return;
        src = sk;
        const tensor_t *x = &g->t[src], *ct = &g->t[ti];
        if (x->ndim != 4 || x->dtype != DT_FLOAT || x->dims[0] != tt->dims[0] || st[0] != 0 ||
            sp[0] != 1 || sp[1] != 1 || sp[2] < 1 || sp[3] < 1 || ct->ndim != 4)
            return;
        for (int64_t c = 0; c < ct->dims[1]; c++, ch++) {
            gt.off[ch] = ((st[1] + c) * x->dims[2] + st[2]) * x->dims[3] + st[3];
            gt.rstep[ch] = sp[2] * x->dims[3];
            gt.cstep[ch] = sp[3];
        }
        gt.item = x->dims[1] * x->dims[2] * x->dims[3];
        mem[nm++] = qs;
        if (qi >= 0)
            mem[nm++] = qi;
    }
    for (int k = 0; k < nm; k++)
        if (s->f[mem[k]].head || s->f[mem[k]].skip || s->f[mem[k]].conv_of)
            return;
    if (ch != tt->dims[1])
        return;
    if (!s->f[p].head)
        s->f[p] = (fuse_t){.head = 1, .out = n->out[0]};
    s->f[p].gather = xmalloc(sizeof(conv_gather));
    *s->f[p].gather = gt;
    s->f[p].gather_src = src;
    s->f[p].n_gmem = nm;
    for (int k = 0; k < nm; k++) {
        s->f[p].gmem[k] = mem[k];
        s->f[mem[k]].conv_of = p + 1;
    }
}

/* A direct conv head at position p whose output (its chain's) only a
 * depthwise conv reads: the two run as one kernel (conv_run_pair), a's output
 * made in cache band by band (YOLOX's stem, 2.8 MB, and the stride-2
 * depthwise conv after it). Neither may take a residual Add. */
static void match_pair(fuse_scan *s, int p)
{
    fuse_t *f = s->f;
    const node_t *a = node_at(s, p);
    int t = f[p].head ? f[p].out : a->out[0];
    if (f[p].skip || f[p].res_at || a->n_out != 1 || t < 0 || s->uses[t] != 1)
        return;
    int q = s->cons[2 * t];
    const node_t *b = node_at(s, q);
    if (q <= p || f[q].skip || f[q].res_at || f[q].gather || f[q].pair || b->in[0] != t ||
        b->n_out != 1 || b->out[0] < 0 || !fusion_of(a)->pair_ok ||
        !fusion_of(a)->pair_ok(a, b))
        return;
    /* a conv without a chain runs as a head of its own */
    if (!f[p].head)
        f[p] = (fuse_t){.head = 1, .out = t};
    if (!f[q].head)
        f[q] = (fuse_t){.head = 1, .out = b->out[0]};
    f[p].pair = q + 1;
    f[q].pair_of = p + 1;
}

/* The epilogue chain after the conv at position p: [affine] [activation]
 * [affine after an activation] [residual Add]; every link's input feeds only
 * that link. */
static void match_chain(fuse_scan *s, int p)
{
    const graph_t *g = s->x->g;
    const node_t *n = node_at(s, p);
    int t = n->out[0], matched = 0;
    gemm_epi e;
    memset(&e, 0, sizeof(e));

    matched |= match_channel_add(s, p, &t, &e.bias);
    matched |= match_kernel_link(s, p, &t, "BatchNormalization");
    e.pre = match_affine(s, &t, &e.s1, &e.b1);
    matched |= e.pre;
    int q = only_consumer(s, t);
    gemm_epi a;
    if (q >= 0 && act_of(g, node_at(s, q), t, &a)) {
        e.act = a.act;
        e.alpha = a.alpha;
        e.beta = a.beta;
        s->f[q].skip = 1;
        t = node_at(s, q)->out[0];
    } else {
        match_two_branch(s, &t, &e);
    }
    if (e.act != GEMM_ACT_NONE) {
        matched = 1;
        e.post = match_affine(s, &t, &e.s2, &e.b2);
    } else {
        matched |= match_kernel_link(s, p, &t, "Sigmoid");
    }
    int res = -1, qa = match_residual(s, p, t, &res);
    if (!matched && qa < 0)
        return;
    s->f[p] = (fuse_t){.head = 1, .out = t, .act = e};
    if (qa >= 0) {
        s->f[p].res_at = qa + 1;
        s->f[p].res = res;
        s->f[p].res_out = node_at(s, qa)->out[0];
        s->f[qa].conv_of = p + 1;
    }
    /* the nodes this match marked skipped, in order: the chain (also for
     * kernels that run it themselves, node_t.chain) */
    for (int q = p + 1; q < s->x->n_order; q++)
        if (s->f[q].skip && !s->f[q].owner) {
            s->f[q].owner = p + 1;
            if (s->f[p].n_chain < FUSE_MAX_CHAIN)
                s->f[p].chain[s->f[p].n_chain] = q;
            s->f[p].n_chain++;
        }
    if (s->f[p].n_chain > FUSE_MAX_CHAIN) { /* no pattern is that long: not fused */
        for (int q = p + 1; q < s->x->n_order; q++)
            if (s->f[q].owner == p + 1 || s->f[q].conv_of == p + 1)
                s->f[q] = (fuse_t){0};
        s->f[p] = (fuse_t){0};
    }
}

/* A Slice of a Slice's output (YOLOX's Focus stem takes every other row, then
 * every other column of those) reads the first one's input directly, and a
 * Slice whose output only feeds such Slices is skipped: half the copying. */
static int plan_slices(exec_t *x, const int *uses, const int *prod, fuse_t *f)
{
    graph_t *g = x->g;
    int nt = g->n_t ? g->n_t : 1, any = 0;
    int *composed = xcalloc((size_t)nt, sizeof(int));

    for (int p = 0; p < x->n_order; p++) {
        node_t *n = &g->nodes[x->order[p]];
        int t = n->n_in > 0 ? n->in[0] : -1, q = t >= 0 ? prod[t] : -1;
        if (q < 0 || f[p].skip || f[p].head || !stock_kernel(n, "Slice") || n->n_out != 1 ||
            n->out[0] < 0 || f[q].skip || f[q].head || f[q].slice_of)
            continue;
        const node_t *inner = &g->nodes[x->order[q]];
        if (!stock_kernel(inner, "Slice") || inner->n_out != 1 || !fusion_of(n)->composable ||
            !fusion_of(n)->composable(g, n, inner))
            continue;
        f[p].slice_of = q + 1;
        composed[t]++;
        any = 1;
    }
    for (int q = 0; q < x->n_order; q++) {
        const node_t *n = &g->nodes[x->order[q]];
        /* a graph output counts as three more uses: never skipped */
        if (stock_kernel(n, "Slice") && n->n_out == 1 && n->out[0] >= 0 && composed[n->out[0]] &&
            composed[n->out[0]] == uses[n->out[0]])
            f[q].slice_skip = 1;
    }
    free(composed);
    return any;
}

static void plan_fusion(exec_t *x)
{
    graph_t *g = x->g;
    int nt = g->n_t ? g->n_t : 1;
    int *uses = xcalloc((size_t)nt, sizeof(int));
    int *cons = xmalloc(sizeof(int) * 2 * (size_t)nt); /* first two consuming positions */
    int *prod = xmalloc(sizeof(int) * (size_t)nt);
    fuse_t *f = xcalloc((size_t)(x->n_order ? x->n_order : 1), sizeof(fuse_t));
    fuse_scan sc = {.x = x, .uses = uses, .cons = cons, .prod = prod, .f = f};
    int any = 0;

    for (int t = 0; t < nt; t++)
        prod[t] = -1;
    for (int p = 0; p < x->n_order; p++) {
        const node_t *n = &g->nodes[x->order[p]];
        for (int k = 0; k < n->n_out; k++)
            if (n->out[k] >= 0)
                prod[n->out[k]] = p;
        for (int k = 0; k < n->n_in; k++) {
            int t = n->in[k];
            if (t < 0)
                continue;
            if (uses[t] < 2)
                cons[2 * t + uses[t]] = p;
            uses[t]++;
        }
    }
    for (int i = 0; i < g->n_outputs; i++)
        uses[g->outputs[i]] += 3;
    for (int p = 0; p < x->n_order; p++) {
        node_t *n = &g->nodes[x->order[p]];
        /* a stock fp32 Conv, or a kernel standing in for one that runs the chain
         * itself (fusion_modes decides at each run) */
        if (f[p].skip ||
            !(head_fusable(n) ||
              (n->chain && (!strcmp(n->op, "Conv") || !strcmp(n->op, "ConvTranspose")))) ||
            n->n_out != 1 || n->out[0] < 0 || g->t[n->out[0]].dtype != DT_FLOAT)
            continue;
        match_chain(&sc, p);
        if (head_fusable(n))
            match_gather(&sc, p);
        any |= f[p].head;
    }
    for (int p = 0; p < x->n_order; p++)
        if (head_fusable(&g->nodes[x->order[p]])) {
            match_pair(&sc, p);
            any |= f[p].pair;
        }
    /* each head's next GEMM conv's weights, from the end */
    const void *next = NULL;
    size_t next_len = 0;
    for (int p = x->n_order - 1; any && p >= 0; p--) {
        if (f[p].head) {
            f[p].pf = next;
            f[p].pf_len = next_len;
        }
        const node_t *n = &g->nodes[x->order[p]];
        const op_fusion *h = fusion_of(n);
        size_t len = 0;
        const void *w = h && h->weights ? h->weights(n, &len) : NULL;
        if (w)
            next = w, next_len = len;
    }
    any |= plan_slices(x, uses, prod, f);
    free(uses);
    free(cons);
    free(prod);
    if (any)
        x->fuse = f;
    else
        free(f);
}

size_t exec_default_memory_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t lim = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : SIZE_MAX;
    /* under `ulimit -v` or -d an allocation fails long before physical memory */
    static const int res[] = {RLIMIT_AS, RLIMIT_DATA};
    for (size_t i = 0; i < sizeof res / sizeof res[0]; i++) {
        struct rlimit rl;
        if (getrlimit(res[i], &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < lim)
            lim = (size_t)rl.rlim_cur;
    }
    return lim;
}

const char *exec_format_bytes(char *buf, size_t len, size_t bytes)
{
    static const char *unit[] = {"KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = -1;
    while (v >= 1024.0 && u < 3) {
        v /= 1024.0;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%zu B", bytes);
    else
        snprintf(buf, len, "%.1f %s", v, unit[u]);
    return buf;
}

/* The plan's arena plus what the caller holds must fit the limit. */
static int check_memory(const exec_opts *o, size_t arena, char *err, size_t errlen)
{
    size_t lim = o && o->max_memory ? o->max_memory : exec_default_memory_limit();
    size_t held = o ? o->held_bytes : 0;
    char a[32], h[32], l[32];

    if (arena <= lim && held <= lim - arena)
        return RT_OK;
    exec_format_bytes(a, sizeof a, arena);
    exec_format_bytes(l, sizeof l, lim);
    if (!strcmp(a, l)) { /* the rounded figures would look equal */
        snprintf(a, sizeof a, "%zu B", arena);
        snprintf(l, sizeof l, "%zu B", lim);
    }
    if (!held)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "the model needs %s of activations, limit %s",
                      a, l);
    exec_format_bytes(h, sizeof h, held);
    return rt_err(err, errlen, RT_EUNSUPPORTED,
                  "the model needs %s of activations plus %s of inputs, limit %s", a, h, l);
}

/* Tensors that live inside another one's arena block instead of their own:
 * - Reshape, Flatten, Squeeze, Unsqueeze and Identity keep the bytes of their
 *   input, so the output is the input's block and the node's copy finds source
 *   and destination equal;
 * - the inputs of a Concat whose dims before the axis are all 1 are consecutive
 *   pieces of its output, so their producers write there and the Concat copies
 *   only the pieces that could not be given away.
 * Only when the tensor given away (the view's input, the Concat's inputs) is not a
 * graph input or output and feeds that node alone, so that nothing else reads it
 * once a hook may have looked at or rewritten the result; a Concat piece may also
 * have readers that all run before the Concat (a backbone feature read by the
 * next stage, then concatenated in the neck: YOLOX's 0.7 MB at 52x52). Concat
 * pieces also start 64-byte aligned. parent[t] / off[t] (bytes) say where t lives; a tensor
 * is its own parent when it has its own block. Views point to earlier tensors and
 * Concat inputs to later ones, and a view output is never a Concat output, so the
 * parent links form no cycle. */
static int alias_candidate(const graph_t *g, const int *uses, const int *first,
                           const int *parent, int t)
{
    return t >= 0 && uses[t] == 1 && first[t] != -2 && parent[t] == t &&
           g->t[t].kind != TK_CONST;
}

/* Tensor t, read by the Concat at position p, can be a piece of its output:
 * alias_candidate, or other readers that all run before p (t read once by the
 * Concat, its last reader; never a graph input or output, which live to the end). */
static int piece_candidate(const graph_t *g, const node_t *cat, int p, const int *uses,
                           const int *first, const int *last, const int *parent, int t)
{
    if (alias_candidate(g, uses, first, parent, t))
        return 1;
    int once = 0;
    for (int k = 0; k < cat->n_in; k++)
        once += cat->in[k] == t;
    return t >= 0 && once == 1 && last[t] == p && first[t] != -2 && first[t] < p &&
           parent[t] == t && g->t[t].kind != TK_CONST && g->t[t].kind != TK_INPUT;
}

static void plan_aliases(const exec_t *x, const int *first, const int *last, int *parent,
                         size_t *off)
{
    static const char *const views[] = {"Reshape", "Flatten", "Squeeze", "Unsqueeze",
                                        "Identity"};
    const graph_t *g = x->g;
    int *uses = xcalloc((size_t)g->n_t + 1, sizeof(int));

    for (int t = 0; t < g->n_t; t++) {
        parent[t] = t;
        off[t] = 0;
    }
    for (int p = 0; p < x->n_order; p++) {
        const node_t *n = &g->nodes[x->order[p]];
        for (int k = 0; k < n->n_in; k++)
            if (n->in[k] >= 0)
                uses[n->in[k]]++;
    }
    for (int i = 0; i < g->n_inputs; i++)
        uses[g->inputs[i]] += 2;
    for (int i = 0; i < g->n_outputs; i++)
        uses[g->outputs[i]] += 2;
    for (int p = 0; p < x->n_order; p++) {
        const node_t *n = &g->nodes[x->order[p]];
        if (n->n_out != 1 || n->out[0] < 0 || n->n_in < 1)
            continue;
        int to = n->out[0];
        const tensor_t *y = &g->t[to];
        if (first[to] == -2 || y->kind == TK_CONST)
            continue;
        int view = 0;
        for (size_t v = 0; v < sizeof views / sizeof views[0]; v++)
            view |= stock_kernel(n, views[v]);
        if (view) {
            int ti = n->in[0];
            if (alias_candidate(g, uses, first, parent, ti) &&
                tensor_nbytes(&g->t[ti]) == tensor_nbytes(y))
                parent[to] = ti;
            continue;
        }
        if (!stock_kernel(n, "Concat") || y->ndim < 1)
            continue;
        int axis = (int)node_attr_int(n, "axis", 1);
        if (axis < 0)
            axis += y->ndim;
        int ok = axis >= 0 && axis < y->ndim;
        for (int d = 0; ok && d < axis; d++)
            ok = y->dims[d] == 1;
        size_t pos = 0;
        for (int k = 0; ok && k < n->n_in; k++) {
            ok = n->in[k] >= 0 && g->t[n->in[k]].dtype == y->dtype;
            if (ok)
                pos += tensor_nbytes(&g->t[n->in[k]]);
        }
        if (!ok || pos != tensor_nbytes(y))
            continue;
        /* each piece that may is written in place (Concat copies the others):
         * e.g. an upsampled map beside a shortcut that other nodes also read */
        pos = 0;
        for (int k = 0; k < n->n_in; k++) {
            int ti = n->in[k];
            if (piece_candidate(g, n, p, uses, first, last, parent, ti) && pos % 64 == 0) {
                parent[ti] = to;
                off[ti] = pos;
            }
            pos += tensor_nbytes(&g->t[ti]);
        }
    }
    free(uses);
}

/* The tensor whose block t lives in, and t's byte offset in it. */
static int alias_root(const int *parent, const size_t *off, int n_t, int t, size_t *at)
{
    size_t o = 0;
    for (int steps = 0; parent[t] != t && steps < n_t; steps++) {
        o += off[t];
        t = parent[t];
    }
    *at = o;
    return t;
}

static int plan_memory(exec_t *x, const exec_opts *o, char *err, size_t errlen)
{
    graph_t *g = x->g;
    int *first = xmalloc(sizeof(int) * (size_t)g->n_t);
    int *last = xmalloc(sizeof(int) * (size_t)g->n_t);
    int *parent = xmalloc(sizeof(int) * (size_t)g->n_t);
    size_t *off = xmalloc(sizeof(size_t) * (size_t)g->n_t);
    span *s = xcalloc((size_t)g->n_t, sizeof(span));
    int ns = 0, nv = 0, end = x->n_order, rc = RT_OK;

    for (int i = 0; i < g->n_t; i++)
        first[i] = last[i] = -2;
    for (int i = 0; i < g->n_inputs; i++)
        first[g->inputs[i]] = 0, last[g->inputs[i]] = end;
    for (int p = 0; p < x->n_order; p++) {
        const node_t *n = &g->nodes[x->order[p]];
        for (int k = 0; k < n->n_in; k++) {
            int t = n->in[k];
            if (t >= 0 && g->t[t].kind != TK_CONST && last[t] < p)
                last[t] = p;
        }
        for (int k = 0; k < n->n_out; k++) {
            int t = n->out[k];
            if (t < 0 || g->t[t].kind == TK_CONST)
                continue;
            first[t] = p;
            if (last[t] < p)
                last[t] = p;
        }
    }
    for (int i = 0; i < g->n_outputs; i++)
        if (first[g->outputs[i]] != -2)
            last[g->outputs[i]] = end;
    /* a fused conv writes its activation's output early; a composed Slice
     * reads the input of the Slice it follows */
    for (int p = 0; x->fuse && p < x->n_order; p++) {
        if (x->fuse[p].head && first[x->fuse[p].out] > p)
            first[x->fuse[p].out] = p;
        if (x->fuse[p].res_at && first[x->fuse[p].res_out] > p)
            first[x->fuse[p].res_out] = p;
        if (x->fuse[p].pair && first[x->fuse[x->fuse[p].pair - 1].out] > p)
            first[x->fuse[x->fuse[p].pair - 1].out] = p;
        int gs = x->fuse[p].gather ? x->fuse[p].gather_src : -1;
        if (gs >= 0 && g->t[gs].kind != TK_CONST && last[gs] < p)
            last[gs] = p;
        if (x->fuse[p].slice_of) {
            int src = g->nodes[x->order[x->fuse[p].slice_of - 1]].in[0];
            if (g->t[src].kind != TK_CONST && last[src] < p)
                last[src] = p;
        }
    }
    /* a block lives as long as any tensor inside it */
    plan_aliases(x, first, last, parent, off);
    for (int t = 0; t < g->n_t; t++) {
        size_t at;
        int r = alias_root(parent, off, g->n_t, t, &at);
        if (r == t || first[t] == -2)
            continue;
        if (first[t] < first[r])
            first[r] = first[t];
        if (last[t] > last[r])
            last[r] = last[t];
    }
    for (int t = 0; t < g->n_t; t++) {
        if (first[t] == -2 || parent[t] != t)
            continue;
        if (tensor_numel(&g->t[t]) < 0) {
            rc = rt_err(err, errlen, RT_EINTERNAL, "tensor '%s' has no known shape at plan time",
                        g->t[t].name);
            goto out;
        }
        s[ns].t = t;
        s[ns].first = first[t];
        s[ns].last = last[t];
        s[ns].size = align64(tensor_nbytes(&g->t[t]));
        ns++;
    }
    x->arena_bytes = place_spans(s, ns);
    if ((rc = check_memory(o, x->arena_bytes, err, errlen)))
        goto out;
    /* on 2 MB pages when large (fastest fp32 frames at one thread,
     * alternating runs: PP-OCR det -5 %, YOLOX-Nano -0.6 %) */
    x->arena = big_alloc(x->arena_bytes);
    if (!x->arena) {
        char a[32];
        x->arena = NULL;
        rc = rt_err(err, errlen, RT_ENOMEM, "cannot allocate %s of activations",
                    exec_format_bytes(a, sizeof a, x->arena_bytes));
        goto out;
    }
    for (int t = 0; t < g->n_t; t++)
        nv += first[t] != -2 && parent[t] != t;
    x->arena_tensors = xmalloc(sizeof(int) * (size_t)(ns + nv ? ns + nv : 1));
    x->n_arena = ns;
    for (int i = 0; i < ns; i++) {
        x->arena_tensors[i] = s[i].t;
        g->t[s[i].t].data = x->arena + s[i].off;
    }
    /* aliases after the blocks: a root is always a placed tensor */
    for (int t = 0; t < g->n_t; t++)
        if (first[t] != -2 && parent[t] != t) {
            size_t at;
            int r = alias_root(parent, off, g->n_t, t, &at);
            g->t[t].data = (uint8_t *)g->t[r].data + at;
            x->arena_tensors[x->n_arena++] = t;
        }
out:
    free(first);
    free(last);
    free(parent);
    free(off);
    free(s);
    return rc;
}

/* A model of fewer multiply-adds than this (about 0.3 ms of one core) runs on
 * the calling thread whatever thread count was asked for: its layers are a few
 * microseconds each, so a second thread saves little (ppocr's 16M-MAC
 * direction classifier: 0.59 against 0.66 ms on an idle machine) and every
 * layer's split waits for a worker that another process may have preempted
 * on a shared machine (its 2-thread frames then took 0.65 or 1.0 ms, bimodal). */
#define SMALL_MODEL_MACS (32LL << 20)

static int64_t dim_or1(const tensor_t *t, int i)
{
    return t && i >= 0 && i < t->ndim && t->dims[i] > 0 ? t->dims[i] : 1;
}

/* Multiply-adds of one run: Conv, ConvTranspose, Gemm and MatMul by their
 * shapes, one per output element for every other node. */
static int64_t graph_work(const graph_t *g, const int *order, int n_order)
{
    int64_t work = 0;
    for (int k = 0; k < n_order; k++) {
        const node_t *n = &g->nodes[order[k]];
        const tensor_t *a = n->n_in > 0 && n->in[0] >= 0 ? &g->t[n->in[0]] : NULL;
        const tensor_t *w = n->n_in > 1 && n->in[1] >= 0 ? &g->t[n->in[1]] : NULL;
        for (int i = 0; i < n->n_out; i++) {
            if (n->out[i] < 0)
                continue;
            int64_t y = tensor_numel(&g->t[n->out[i]]), per = 1;
            if (y < 0)
                continue;
            if (w && (!strcmp(n->op, "Conv") || !strcmp(n->op, "ConvTranspose"))) {
                int64_t wn = tensor_numel(w);
                /* Conv: Cg x kernel per output; ConvTranspose: (M/G) x kernel per input */
                if (!strcmp(n->op, "Conv"))
                    per = wn > 0 ? wn / dim_or1(w, 0) : 1;
                else if (a && tensor_numel(a) > 0 && wn > 0)
                    y = tensor_numel(a), per = wn / dim_or1(w, 0);
            } else if (a && !strcmp(n->op, "MatMul")) {
                per = dim_or1(a, a->ndim - 1);
            } else if (a && !strcmp(n->op, "Gemm")) {
                per = dim_or1(a, node_attr_int(n, "transA", 0) ? 0 : 1);
            }
            work += y * per;
        }
    }
    return work;
}

int exec_create(graph_t *g, const exec_opts *o, exec_t **out, char *err, size_t errlen)
{
    exec_t *x = xcalloc(1, sizeof(*x));
    int nthreads = o && o->nthreads > 0 ? o->nthreads : exec_default_threads();
    int rc;

    *out = NULL;
    if (nthreads < 1)
        nthreads = 1;
    x->g = g;
    x->order = xmalloc(sizeof(int) * (size_t)(g->n_nodes ? g->n_nodes : 1));
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].folded)
            continue;
        if (!g->nodes[i].def) {
            rc = rt_err(err, errlen, RT_EINTERNAL, "node '%s' was not prepared", g->nodes[i].name);
            goto fail;
        }
        x->order[x->n_order++] = i;
        if (g->nodes[i].n_in > x->ev_cap)
            x->ev_cap = g->nodes[i].n_in;
        if (g->nodes[i].n_out > x->ev_cap)
            x->ev_cap = g->nodes[i].n_out;
    }
    x->ev_in = xcalloc((size_t)x->ev_cap + 1, sizeof(*x->ev_in));
    x->ev_out = xcalloc((size_t)x->ev_cap + 1, sizeof(*x->ev_out));
    plan_fusion(x);
    rc = plan_memory(x, o, err, errlen);
    if (rc)
        goto fail;
    /* Kernels split work on our pool and call BLAS single-threaded inside it. */
    openblas_set_num_threads(1);
    /* a small model's runs stay on the calling thread; exec_parallel_for
     * (calibration's range searches between runs) still has the pool */
    int serial = !(o && o->exact_threads) &&
                 graph_work(g, x->order, x->n_order) < SMALL_MODEL_MACS;
    x->pool = nthreads > 1 ? threadpool_new(nthreads) : NULL;
    x->ctx.nthreads = serial ? 1 : threadpool_size(x->pool);
    x->ctx.pool = serial ? NULL : x->pool;
    x->ctx.err = x->ctx_err;
    x->ctx.errlen = sizeof(x->ctx_err);
    *out = x;
    return RT_OK;
fail:
    exec_free(x);
    return rc;
}

int exec_threads(const exec_t *x)
{
    return x ? x->ctx.nthreads : 1;
}

void exec_free(exec_t *x)
{
    if (!x)
        return;
    for (int i = 0; i < x->n_arena; i++)
        x->g->t[x->arena_tensors[i]].data = NULL;
    threadpool_free(x->pool);
    free(x->arena);
    free(x->arena_tensors);
    free(x->order);
    free(x->ev_in);
    free(x->ev_out);
    for (int p = 0; x->fuse && p < x->n_order; p++)
        free(x->fuse[p].gather);
    free(x->fuse);
    free(x);
}

int exec_set_input(exec_t *x, int i, const void *data, size_t nbytes, char *err, size_t errlen)
{
    if (i < 0 || i >= x->g->n_inputs)
        return rt_err(err, errlen, RT_EINVAL, "input index %d out of range (model has %d inputs)",
                      i, x->g->n_inputs);
    tensor_t *t = &x->g->t[x->g->inputs[i]];
    size_t want = tensor_nbytes(t);
    if (nbytes != want) {
        char shape[128];
        return rt_err(err, errlen, RT_ESHAPE,
                      "input '%s': got %zu bytes, expected %zu (%s %s)", t->name, nbytes, want,
                      dtype_name(t->dtype), tensor_shape_str(t, shape, sizeof(shape)));
    }
    memcpy(t->data, data, nbytes);
    return RT_OK;
}

/* The nodes of head f's chain. */
static void chain_nodes(const exec_t *x, const fuse_t *f, const node_t **chain)
{
    for (int k = 0; k < f->n_chain; k++)
        chain[k] = &x->g->nodes[x->order[f->chain[k]]];
}

/* How each head runs now (a caller may swap node kernels after exec_create,
 * as quantization does): its stock fp32 kernel with the chain as an epilogue
 * (chain nodes stock too), the kernel that replaced it running the chain
 * itself, or not fused (its chain's nodes then run). The composed Slices run
 * while every pair keeps its stock kernels or the wrapping kernel composes
 * them itself (quantization's, node_t.chain).
 * Decided again only for kernels not seen before. */
static void fusion_modes(exec_t *x)
{
    graph_t *g = x->g;
    x->sliced = 1;
    for (int p = 0; p < x->n_order; p++) {
        fuse_t *f = &x->fuse[p];
        if (!f->head && !f->slice_of)
            continue;
        node_t *n = &g->nodes[x->order[p]];
        /* the chain first (what a kernel running it itself is given), then
         * the residual Add and the gathered nodes */
        const node_t *chain[FUSE_MAX_MEMBERS];
        int m = 1;
        if (f->head)
            chain_nodes(x, f, chain), m += f->n_chain;
        else
            chain[0] = &g->nodes[x->order[f->slice_of - 1]];
        if (f->res_at)
            chain[m++ - 1] = &g->nodes[x->order[f->res_at - 1]];
        for (int k = 0; k < f->n_gmem; k++)
            chain[m++ - 1] = &g->nodes[x->order[f->gmem[k]]];
        int same = f->seen[0] == n->def;
        for (int k = 1; k < m; k++)
            same &= f->seen[k] == chain[k - 1]->def;
        if (!same) { /* not the kernels it was decided for */
            f->seen[0] = n->def;
            for (int k = 1; k < m; k++)
                f->seen[k] = chain[k - 1]->def;
            if (f->slice_of) {
                f->mode = stock_op(n, "Slice") && stock_op(chain[0], "Slice") ? FUSE_SLICE
                        : n->chain && n->chain->slice_ok &&
                                  n->chain->slice_ok(g, n, chain[0]) ? FUSE_SLICE_KERNEL
                                                                     : FUSE_NONE;
            } else {
                int stock = head_fusable(n);
                for (int k = 0; k < m - 1; k++)
                    stock &= stock_op(chain[k], chain[k]->op);
                /* a kernel running the chain itself leaves the Add to run */
                f->mode = stock ? FUSE_CONV
                        : f->n_chain && n->chain && n->chain->ok(g, n, chain, f->n_chain)
                                ? FUSE_CHAIN
                                : FUSE_NONE;
            }
        }
        if (f->slice_of && f->mode != FUSE_SLICE && f->mode != FUSE_SLICE_KERNEL)
            x->sliced = 0;
    }
}

/* Head f's gathered input, or NULL: the source's data may have moved since
 * the plan (inputs). */
static const conv_gather *gather_now(exec_t *x, const fuse_t *f)
{
    if (f->gather)
        f->gather->base = x->g->t[f->gather_src].data;
    return f->gather;
}

static int run_conv(exec_t *x, node_t *n, const fuse_t *f, int out)
{
    gemm_epi e = f->act;
    e.pf = f->pf;
    e.pf_len = f->pf_len;
    if (f->res_at)
        e.res = x->g->t[f->res].data;
    return fusion_of(n)->run_fused(&x->ctx, x->g, n, &e, gather_now(x, f), out);
}

/* Head f runs with the depthwise conv head that reads its output (both stock
 * fused convs now): then the latter does not run itself. */
static const fuse_t *paired(const exec_t *x, const fuse_t *f)
{
    const fuse_t *b = f->pair ? &x->fuse[f->pair - 1] : NULL;
    return b && f->mode == FUSE_CONV && b->mode == FUSE_CONV ? b : NULL;
}

static int run_pair(exec_t *x, node_t *n, const fuse_t *f, const fuse_t *b)
{
    return fusion_of(n)->run_pair(&x->ctx, x->g, n, &f->act, gather_now(x, f),
                         &x->g->nodes[x->order[f->pair - 1]], &b->act, b->out);
}

static int run_chain(exec_t *x, node_t *n, const fuse_t *f)
{
    const node_t *chain[FUSE_MAX_CHAIN];
    chain_nodes(x, f, chain);
    return n->chain->run(&x->ctx, x->g, n, chain, f->n_chain, f->out);
}

static int run_slice(exec_t *x, node_t *n, const fuse_t *f)
{
    const node_t *inner = &x->g->nodes[x->order[f->slice_of - 1]];
    return f->mode == FUSE_SLICE_KERNEL ? n->chain->slice_run(&x->ctx, x->g, n, inner)
                                        : fusion_of(n)->run_composed(&x->ctx, x->g, n, inner);
}

/* A kernel's error, prefixed once with its node: kernel helpers shared with
 * shape inference already name the node themselves. */
static int node_error(const node_t *n, const char *msg, int rc, char *err, size_t errlen)
{
    char prefix[256];
    int len = snprintf(prefix, sizeof(prefix), "node '%s' (", n->name);
    if (!msg[0])
        msg = rt_status_str(rc);
    if (len > 0 && (size_t)len < sizeof(prefix) && !strncmp(msg, prefix, (size_t)len))
        return rt_err(err, errlen, rc, "%s", msg);
    return rt_err(err, errlen, rc, "node '%s' (%s): %s", n->name, n->op, msg);
}

static int run(exec_t *x, layer_hook hook, int timing_only, void *user, char *err,
               size_t errlen)
{
    graph_t *g = x->g;
    int any = (!hook || timing_only) && x->fuse;

    x->ctx.private_run = !hook || timing_only;
    if (any)
        fusion_modes(x);
    int sliced = any && x->sliced;
    for (int p = 0; p < x->n_order; p++) {
        node_t *n = &g->nodes[x->order[p]];
        const fuse_t *f = any ? &x->fuse[p] : NULL, *sf = sliced ? f : NULL;
        if ((f && f->owner && x->fuse[f->owner - 1].mode) || (sf && sf->slice_skip) ||
            (f && f->conv_of && x->fuse[f->conv_of - 1].mode == FUSE_CONV) ||
            (f && f->pair_of && paired(x, &x->fuse[f->pair_of - 1])))
            continue;
        int mode = f && f->head ? f->mode : FUSE_NONE;
        const fuse_t *pb = f && f->head ? paired(x, f) : NULL;
        int out = pb ? pb->out : mode == FUSE_CONV && f->res_at ? f->res_out : f ? f->out : -1;
        double t0 = rt_now_us();
        x->ctx_err[0] = '\0';
        int rc = pb                   ? run_pair(x, n, f, pb)
                 : mode == FUSE_CONV  ? run_conv(x, n, f, out)
                 : mode == FUSE_CHAIN ? run_chain(x, n, f)
                 : sf && sf->slice_of ? run_slice(x, n, sf)
                                      : n->def->run(&x->ctx, g, n);
        double t1 = rt_now_us();
        if (rc)
            return node_error(n, x->ctx_err, rc, err, errlen);
        if (!hook)
            continue;
        for (int k = 0; k < n->n_in; k++)
            x->ev_in[k] = n->in[k] >= 0 ? &g->t[n->in[k]] : NULL;
        for (int k = 0; k < n->n_out; k++)
            x->ev_out[k] = n->out[k] >= 0 ? &g->t[n->out[k]] : NULL;
        if (mode) /* the chain's (or the Add's) output is what the fused conv wrote */
            x->ev_out[0] = &g->t[out];
        layer_event_t ev = {
            .index = p, .node = x->order[p], .name = n->name, .op = n->op,
            .n_in = n->n_in, .n_out = n->n_out, .in = x->ev_in, .out = x->ev_out,
            .host_us = t1 - t0,
        };
        rc = hook(&ev, user);
        if (rc)
            return rc;
    }
    return RT_OK;
}

int exec_run(exec_t *x, layer_hook hook, void *user, char *err, size_t errlen)
{
    return run(x, hook, 0, user, err, errlen);
}

int exec_run_timed(exec_t *x, layer_hook hook, void *user, char *err, size_t errlen)
{
    return run(x, hook, 1, user, err, errlen);
}

const tensor_t *exec_output(const exec_t *x, int i)
{
    if (i < 0 || i >= x->g->n_outputs)
        return NULL;
    return &x->g->t[x->g->outputs[i]];
}

size_t exec_arena_bytes(const exec_t *x)
{
    return x->arena_bytes;
}
