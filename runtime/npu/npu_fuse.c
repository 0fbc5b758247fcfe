/* runtime/npu/npu_fuse.c — the vendor compiler's graph rewrites, applied to a
 * view of the graph before lowering: a written-out LayerNorm, GELU, SiLU,
 * HardSwish, Mish, Softmax or attention becomes the one op the compiler
 * makes of it (exNorm, exGelu, exSwish, HardSwish, exMish, exSoftmax13,
 * exSDPAttention), a ReduceMean over H,W a GlobalAveragePool. The catalogue
 * with the evidence for each rewrite and its placement per chip is
 * docs/vendor-rewrites.md.
 *
 * Each rewrite replaces the pattern's last node (the head) in a copy of the
 * node array by the fused op reading the pattern's external inputs, and marks
 * the other nodes folded; npu_lower then places and fuses the head like the
 * real op, and covers the absorbed nodes with the head's layer. Patterns are
 * matched from the head backwards, in node order, so a rewritten head can be
 * part of a later pattern (a Softmax pattern inside an attention block, a
 * LayerNorm core growing by its scale and bias). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/npu/npu.h"
#include "util/util.h"

#define SET_MAX 48

typedef struct fz {
    graph_t *g;          /* the view: nodes are the copy */
    npu_fused_t *f;
    unsigned attention;  /* the chip's NPU has exSDPAttention */
    int *ncons;          /* per tensor: executed consumers in the view */
    int **cons;
} fz_t;

typedef struct pset {
    int n[SET_MAX];
    int cnt;
    int full;
} pset_t;

static void recount(fz_t *F)
{
    const graph_t *g = F->g;

    for (int i = 0; i < g->n_t; i++)
        F->ncons[i] = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const node_t *n = &g->nodes[i];
        if (n->folded)
            continue;
        for (int k = 0; k < n->n_in; k++) {
            int ti = n->in[k], dup = 0;
            if (ti < 0)
                continue;
            for (int j = 0; j < F->ncons[ti]; j++)
                dup |= F->cons[ti][j] == i;
            if (dup)
                continue;
            F->cons[ti] = xrealloc(F->cons[ti], (size_t)(F->ncons[ti] + 1) * sizeof(int));
            F->cons[ti][F->ncons[ti]++] = i;
        }
    }
}

static void add(pset_t *s, int ni)
{
    for (int i = 0; i < s->cnt; i++)
        if (s->n[i] == ni)
            return;
    if (s->cnt == SET_MAX) {
        s->full = 1;
        return;
    }
    s->n[s->cnt++] = ni;
}

static int in_set(const pset_t *s, int ni)
{
    for (int i = 0; i < s->cnt; i++)
        if (s->n[i] == ni)
            return 1;
    return 0;
}

static const node_t *NODE(const fz_t *F, int ni) { return &F->g->nodes[ni]; }

/* the executed node producing tensor ti, -1 for inputs and constants */
static int prod(const fz_t *F, int ti)
{
    const tensor_t *t;

    if (ti < 0)
        return -1;
    t = &F->g->t[ti];
    if (t->kind == TK_CONST || t->producer < 0 || F->g->nodes[t->producer].folded)
        return -1;
    return t->producer;
}

/* the executed node of op `op` producing ti, else -1 */
static int prod_op(const fz_t *F, int ti, const char *op)
{
    int p = prod(F, ti);
    return p >= 0 && !strcmp(NODE(F, p)->op, op) ? p : -1;
}

static int is_c(const fz_t *F, int ti)
{
    return ti >= 0 && F->g->t[ti].kind == TK_CONST && F->g->t[ti].data;
}

/* a constant holding one number (any shape of one element) */
static int cscalar(const fz_t *F, int ti, double *v)
{
    const tensor_t *t;

    if (!is_c(F, ti))
        return 0;
    t = &F->g->t[ti];
    if (tensor_numel(t) != 1)
        return 0;
    switch (t->dtype) {
    case DT_FLOAT: *v = *(const float *)t->data; return 1;
    case DT_DOUBLE: *v = *(const double *)t->data; return 1;
    case DT_INT64: *v = (double)*(const int64_t *)t->data; return 1;
    case DT_INT32: *v = *(const int32_t *)t->data; return 1;
    }
    return 0;
}

static int near(double a, double b, double rel) { return fabs(a - b) <= rel * fabs(b); }

/* the other operand of binary node ni, given one of them */
static int other(const fz_t *F, int ni, int ti)
{
    const node_t *n = NODE(F, ni);
    if (n->n_in != 2)
        return -2;
    return n->in[0] == ti ? n->in[1] : n->in[1] == ti ? n->in[0] : -2;
}

/* A product tree: multiplies Mul nodes (and divisions by a constant) below
 * tensor ti into its non-constant factors and one constant coefficient; the
 * nodes walked go into s. Stops at a node that is the pattern's own input x
 * or not a Mul/Div. Returns the factor count (<= 4). */
static int factors(const fz_t *F, int ti, int x, int depth, int *fac, int nfac, double *coef,
                   pset_t *s)
{
    int p = ti == x ? -1 : prod(F, ti);
    double v;

    if (cscalar(F, ti, &v)) {
        *coef *= v;
        return nfac;
    }
    /* an intermediate product is read by this product only */
    if (p >= 0 && depth < 4 && NODE(F, p)->n_in == 2 &&
        (depth == 0 || (F->ncons[ti] == 1 && !F->g->t[ti].is_output))) {
        const node_t *n = NODE(F, p);
        if (!strcmp(n->op, "Mul")) {
            add(s, p);
            nfac = factors(F, n->in[0], x, depth + 1, fac, nfac, coef, s);
            return nfac < 0 ? nfac : factors(F, n->in[1], x, depth + 1, fac, nfac, coef, s);
        }
        if (!strcmp(n->op, "Div") && cscalar(F, n->in[1], &v) && v != 0) {
            add(s, p);
            *coef /= v;
            return factors(F, n->in[0], x, depth + 1, fac, nfac, coef, s);
        }
    }
    if (nfac >= 4)
        return -1;
    fac[nfac] = ti;
    return nfac + 1;
}

/* ti is x * c (c a constant: Mul or Div by it), or x itself (c = 1) */
static int scaled_x(const fz_t *F, int ti, int *x, double *c, pset_t *s)
{
    int p = prod(F, ti);
    double v;

    if (p >= 0 && (!strcmp(NODE(F, p)->op, "Mul") || !strcmp(NODE(F, p)->op, "Div")) &&
        NODE(F, p)->n_in == 2 && F->ncons[ti] == 1 && !F->g->t[ti].is_output) {
        const node_t *n = NODE(F, p);
        if (cscalar(F, n->in[1], &v) && (v != 0 || !strcmp(n->op, "Mul"))) {
            *x = n->in[0];
            *c = !strcmp(n->op, "Mul") ? v : 1.0 / v;
            add(s, p);
            return 1;
        }
        if (!strcmp(n->op, "Mul") && cscalar(F, n->in[0], &v)) {
            *x = n->in[1];
            *c = v;
            add(s, p);
            return 1;
        }
    }
    *x = ti;
    *c = 1;
    return 1;
}

/* Every tensor a node of s (but the head) makes is read inside s only and
 * is no model output: the pattern can go away as a whole. */
static int closed(const fz_t *F, const pset_t *s, int head)
{
    if (s->full)
        return 0;
    for (int i = 0; i < s->cnt; i++) {
        const node_t *n = NODE(F, s->n[i]);
        if (s->n[i] == head)
            continue;
        if (n->folded)
            return 0;
        for (int k = 0; k < n->n_out; k++) {
            int ti = n->out[k];
            if (ti < 0)
                continue;
            if (F->g->t[ti].is_output)
                return 0;
            for (int c = 0; c < F->ncons[ti]; c++)
                if (!in_set(s, F->cons[ti][c]))
                    return 0;
        }
    }
    return 1;
}

/* Replaces the head by op(ins...) covering s (ins -1: an omitted input);
 * has_axis gives it an "axis" attribute; name: the vendor's full name of the
 * layer (taken over), NULL to keep an absorbed head's. */
static void rewrite(fz_t *F, const pset_t *s, int head, const char *op, const int *ins, int nin,
                    int has_axis, int64_t axis, char *name)
{
    npu_fused_t *f = F->f;
    node_t *h = &F->g->nodes[head];

    if (f->owned[head]) {
        free(h->op);
        free(h->in);
        for (int i = 0; i < h->n_attr; i++)
            free(h->attrs[i].name);
        free(h->attrs);
    }
    f->owned[head] = 1;
    h->op = xstrdup(op);
    h->in = xmalloc((size_t)(nin > 0 ? nin : 1) * sizeof(int));
    memcpy(h->in, ins, (size_t)nin * sizeof(int));
    h->n_in = nin;
    h->n_attr = 0;
    h->attrs = NULL;
    if (has_axis) {
        h->attrs = xcalloc(1, sizeof(attr_t));
        h->attrs[0].name = xstrdup("axis");
        h->attrs[0].type = ATTR_INT;
        h->attrs[0].i = axis;
        h->n_attr = 1;
    }
    for (int i = 0; i < s->cnt; i++) {
        int k = s->n[i];
        if (k == head)
            continue;
        F->g->nodes[k].folded = 1;
        f->head_of[k] = head;
        /* an absorbed head hands its own nodes over */
        for (int j = 0; j < F->g->n_nodes; j++)
            if (f->head_of[j] == k)
                f->head_of[j] = head;
        if (f->fullname[k]) { /* a grown head keeps the core's name */
            if (!name)
                name = f->fullname[k];
            else
                free(f->fullname[k]);
            f->fullname[k] = NULL;
        }
    }
    if (name) {
        free(f->fullname[head]);
        f->fullname[head] = name;
    }
    recount(F);
}

static char *vname(const char *optype, const node_t *n, const char *suffix)
{
    size_t len = strlen(optype) + strlen(n->name) + strlen(suffix) + 2;
    char *s = xmalloc(len);
    snprintf(s, len, "%s:%s%s", optype, n->name, suffix);
    return s;
}

/* reduction axes, made non-negative, from the attribute or a constant second
 * input (opset 18); their count, -1 if none or more than max */
static int red_axes(const fz_t *F, const node_t *n, int64_t *ax, int max)
{
    const int64_t *v = NULL;
    int cnt = node_attr_ints(n, "axes", &v);

    if (n->n_in < 1 || n->in[0] < 0)
        return -1;
    if (cnt <= 0 && n->n_in > 1 && is_c(F, n->in[1]) && F->g->t[n->in[1]].dtype == DT_INT64) {
        v = F->g->t[n->in[1]].data;
        cnt = (int)tensor_numel(&F->g->t[n->in[1]]);
    }
    if (cnt <= 0 || cnt > max)
        return -1;
    for (int i = 0; i < cnt; i++) {
        int rank = F->g->t[n->in[0]].ndim;
        ax[i] = v[i] < 0 && rank > 0 ? v[i] + rank : v[i];
    }
    return cnt;
}

static int same_axes(const fz_t *F, const node_t *a, const node_t *b)
{
    int64_t x[8], y[8];
    int n = red_axes(F, a, x, 8), m = red_axes(F, b, y, 8);

    if (n <= 0 || n != m || node_attr_int(a, "keepdims", 1) != 1 ||
        node_attr_int(b, "keepdims", 1) != 1)
        return 0;
    for (int i = 0; i < n; i++)
        if (x[i] != y[i])
            return 0;
    return 1;
}

/* ---- normalization ------------------------------------------------------ */

/* s = sqrt(v + eps) as Sqrt(Add) or Pow(Add, 0.5); returns v */
static int sqrt_of_var(const fz_t *F, int ti, pset_t *s)
{
    int p = prod(F, ti), a;
    double e;

    if (p < 0)
        return -1;
    if (!strcmp(NODE(F, p)->op, "Sqrt"))
        ;
    else if (!strcmp(NODE(F, p)->op, "Pow") && NODE(F, p)->n_in == 2 &&
             cscalar(F, NODE(F, p)->in[1], &e) && e == 0.5)
        ;
    else
        return -1;
    add(s, p);
    a = prod_op(F, NODE(F, p)->in[0], "Add");
    if (a < 0)
        return NODE(F, p)->in[0]; /* no epsilon */
    add(s, a);
    if (cscalar(F, NODE(F, a)->in[1], &e))
        return NODE(F, a)->in[0];
    if (cscalar(F, NODE(F, a)->in[0], &e))
        return NODE(F, a)->in[1];
    return -1;
}

/* a is d, or a second Sub of the same operands (TF's SquaredDifference
 * exports its own x - mean) */
static int same_value(const fz_t *F, int a, int d, pset_t *s)
{
    int pa = prod_op(F, a, "Sub"), pd = prod_op(F, d, "Sub");

    if (a == d)
        return 1;
    if (pa < 0 || pd < 0 || NODE(F, pa)->in[0] != NODE(F, pd)->in[0] ||
        NODE(F, pa)->in[1] != NODE(F, pd)->in[1])
        return 0;
    add(s, pa);
    return 1;
}

/* d squared: Pow(d, 2) or Mul(d, d) */
static int is_square_of(const fz_t *F, int ti, int d, pset_t *s)
{
    int p = prod(F, ti);
    double e;

    if (p < 0)
        return 0;
    if (!strcmp(NODE(F, p)->op, "Pow") && same_value(F, NODE(F, p)->in[0], d, s) &&
        cscalar(F, NODE(F, p)->in[1], &e) && e == 2) {
        add(s, p);
        return 1;
    }
    if (!strcmp(NODE(F, p)->op, "Mul") && same_value(F, NODE(F, p)->in[0], d, s) &&
        same_value(F, NODE(F, p)->in[1], d, s)) {
        add(s, p);
        return 1;
    }
    return 0;
}

/* LayerNorm / RMSNorm core at head: y = d / sqrt(mean(d^2) + eps) (or d *
 * 1/sqrt(...) through Reciprocal) with d = x - mean(x) (layer) or d = x
 * (rms); the two means over the same axes. */
static int match_norm(fz_t *F, int head)
{
    const node_t *h = NODE(F, head);
    pset_t s = {.cnt = 0};
    int d, sq, v, var, m, x, rms = 0;

    add(&s, head);
    if (!strcmp(h->op, "Div") && h->n_in == 2) {
        d = h->in[0];
        var = sqrt_of_var(F, h->in[1], &s);
    } else if (!strcmp(h->op, "Mul") && h->n_in == 2) {
        /* d * Reciprocal(sqrt(...)) or d * Pow(v + eps, -0.5) */
        int k, r = -1;
        double e;
        for (k = 1; k >= 0 && r < 0; k--) {
            int q = prod(F, h->in[k]);
            if (q >= 0 && (!strcmp(NODE(F, q)->op, "Reciprocal") ||
                           (!strcmp(NODE(F, q)->op, "Pow") && NODE(F, q)->n_in == 2 &&
                            cscalar(F, NODE(F, q)->in[1], &e) && e == -0.5)))
                r = q;
        }
        if (r < 0)
            return 0;
        k++;
        add(&s, r);
        d = h->in[1 - k];
        if (!strcmp(NODE(F, r)->op, "Reciprocal")) {
            var = sqrt_of_var(F, NODE(F, r)->in[0], &s);
        } else {
            int a = prod_op(F, NODE(F, r)->in[0], "Add");
            var = NODE(F, r)->in[0];
            if (a >= 0 && (cscalar(F, NODE(F, a)->in[1], &e) || cscalar(F, NODE(F, a)->in[0], &e))) {
                add(&s, a);
                var = cscalar(F, NODE(F, a)->in[1], &e) ? NODE(F, a)->in[0] : NODE(F, a)->in[1];
            }
        }
    } else {
        return 0;
    }
    if (var < 0 || (v = prod_op(F, var, "ReduceMean")) < 0 ||
        node_attr_int(NODE(F, v), "keepdims", 1) != 1)
        return 0;
    add(&s, v);
    sq = NODE(F, v)->in[0];
    if (!is_square_of(F, sq, d, &s))
        return 0;
    x = d;
    if ((m = prod_op(F, d, "Sub")) >= 0) {
        int mm = prod_op(F, NODE(F, m)->in[1], "ReduceMean");
        if (mm >= 0 && NODE(F, mm)->in[0] == NODE(F, m)->in[0] && same_axes(F, NODE(F, mm), NODE(F, v))) {
            add(&s, m);
            add(&s, mm);
            x = NODE(F, m)->in[0];
        } else {
            rms = 1;
        }
    } else {
        int64_t ax[8];
        if (red_axes(F, NODE(F, v), ax, 8) <= 0 || node_attr_int(NODE(F, v), "keepdims", 1) != 1)
            return 0;
        rms = 1;
    }
    if (!closed(F, &s, head))
        return 0;
    {
        int ins[1] = {x};
        /* the vendor names the layer after the first ReduceMean: "ReduceMean_2ln" */
        int first = rms ? v : prod_op(F, NODE(F, prod_op(F, d, "Sub"))->in[1], "ReduceMean");
        int64_t ax[8], lo = INT64_MAX;
        int na = red_axes(F, NODE(F, v), ax, 8);
        for (int i = 0; i < na; i++)
            lo = ax[i] < lo ? ax[i] : lo;
        /* axis: the first normalized axis, which the scale and bias may vary along */
        rewrite(F, &s, head, rms ? "RMSNormalization" : "LayerNormalization", ins, 1, 1, lo,
                vname("exNorm", NODE(F, first), "_2ln"));
    }
    return 1;
}

/* a normalization head followed by Mul(gamma) / Add(beta) with constants:
 * the scale and bias go into exNorm (its (1,C,1,1) inputs in the real table) */
static int match_norm_affine(fz_t *F, int head)
{
    const node_t *h = NODE(F, head);
    pset_t s = {.cnt = 0};
    int p, k, ins[3];

    if ((strcmp(h->op, "Mul") && strcmp(h->op, "Add")) || h->n_in != 2)
        return 0;
    k = is_c(F, h->in[1]) ? 1 : is_c(F, h->in[0]) ? 0 : -1;
    if (k < 0)
        return 0;
    p = prod(F, h->in[1 - k]);
    if (p < 0 || !F->f->owned[p] ||
        (strcmp(NODE(F, p)->op, "LayerNormalization") && strcmp(NODE(F, p)->op, "RMSNormalization")))
        return 0;
    /* a scale or bias varies along the normalized axes only (a [1,T,C]
     * positional embedding added after the norm is no bias) */
    {
        const tensor_t *x = &F->g->t[NODE(F, p)->in[0]], *cst = &F->g->t[h->in[k]];
        int64_t axis = node_attr_int(NODE(F, p), "axis", -1);
        if (x->ndim <= 0 || cst->ndim > x->ndim)
            return 0;
        for (int i = 0; i < cst->ndim; i++) {
            int xa = x->ndim - cst->ndim + i; /* right-aligned broadcast */
            if (xa < axis && cst->dims[i] != 1)
                return 0;
        }
    }
    /* scale first, then bias, once each */
    if (!strcmp(h->op, "Mul") && NODE(F, p)->n_in != 1)
        return 0;
    if (!strcmp(h->op, "Add") && NODE(F, p)->n_in > 2)
        return 0;
    add(&s, head);
    add(&s, p);
    if (!closed(F, &s, head))
        return 0;
    memcpy(ins, NODE(F, p)->in, (size_t)NODE(F, p)->n_in * sizeof(int));
    if (!strcmp(h->op, "Mul")) {
        ins[1] = h->in[k];
        rewrite(F, &s, head, NODE(F, p)->op, ins, 2, 1, node_attr_int(NODE(F, p), "axis", -1),
                NULL);
    } else {
        int n = NODE(F, p)->n_in;
        if (n == 1) /* bias without a scale: an empty scale slot */
            ins[n++] = -1;
        ins[n++] = h->in[k];
        rewrite(F, &s, head, NODE(F, p)->op, ins, n, 1, node_attr_int(NODE(F, p), "axis", -1),
                NULL);
    }
    return 1;
}

/* ---- activations -------------------------------------------------------- */

/* y = x * Sigmoid(x) (SiLU / Swish; also Sigmoid(1.0 * x), Paddle's swish with beta 1) */
static int match_swish(fz_t *F, int head)
{
    const node_t *h = NODE(F, head);
    pset_t s = {.cnt = 0};

    if (strcmp(h->op, "Mul") || h->n_in != 2)
        return 0;
    for (int k = 0; k < 2; k++) {
        int sg = prod_op(F, h->in[k], "Sigmoid"), x = h->in[1 - k], sx;
        double c;
        if (sg < 0)
            continue;
        s.cnt = 0;
        add(&s, head);
        add(&s, sg);
        scaled_x(F, NODE(F, sg)->in[0], &sx, &c, &s);
        if (sx != x || c != 1 || !closed(F, &s, head))
            continue;
        rewrite(F, &s, head, "Swish", &x, 1, 0, 0, vname("exSwish", NODE(F, sg), "_2swish"));
        return 1;
    }
    return 0;
}

/* y = x * f(x) * c with f one of: 1 + erf(x / sqrt 2) (c = 1/2, GELU),
 * 1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)) (c = 1/2, tanh GELU),
 * clip(x + 3, 0, 6) (c = 1/6, HardSwish), HardSigmoid(x) with alpha 1/6 and
 * beta 1/2 (c = 1, HardSwish), tanh(softplus(x)) (c = 1, Mish). */
static int cubic_inner(const fz_t *F, int ti, int x, pset_t *s)
{
    /* sqrt(2/pi) * (x + 0.044715 * x^3) */
    int fac[4], nf, a, o, fac2[4], nf2, pw = 0;
    double c = 1, c2 = 1;

    nf = factors(F, ti, x, 0, fac, 0, &c, s);
    if (nf != 1 || !near(c, sqrt(2.0 / M_PI), 1e-3) || (a = prod_op(F, fac[0], "Add")) < 0)
        return 0;
    add(s, a);
    o = other(F, a, x);
    if (o < 0)
        return 0;
    nf2 = factors(F, o, x, 0, fac2, 0, &c2, s);
    if (nf2 < 1 || !near(c2, 0.044715, 1e-3))
        return 0;
    for (int i = 0; i < nf2; i++) {
        int p = prod_op(F, fac2[i], "Pow");
        double e;
        if (fac2[i] == x)
            pw += 1;
        else if (p >= 0 && NODE(F, p)->in[0] == x && cscalar(F, NODE(F, p)->in[1], &e)) {
            add(s, p);
            pw += (int)e;
        } else
            return 0;
    }
    return pw == 3;
}

static int match_act(fz_t *F, int head)
{
    const node_t *h = NODE(F, head);
    pset_t s = {.cnt = 0};
    int fac[4], nf;
    double c = 1;

    if ((strcmp(h->op, "Mul") && strcmp(h->op, "Div")) || h->n_in != 2)
        return 0;
    add(&s, head);
    nf = factors(F, h->out[0], -1, 0, fac, 0, &c, &s);
    if (nf != 2)
        return 0;
    for (int k = 0; k < 2; k++) {
        int cand = fac[k], fn = fac[1 - k], p = prod(F, fn);
        pset_t t = s;
        double v;
        if (p < 0)
            continue;
        const node_t *n = NODE(F, p);
        if (!strcmp(n->op, "Add") && n->n_in == 2) {
            int one = cscalar(F, n->in[1], &v) && v == 1 ? 1 : cscalar(F, n->in[0], &v) && v == 1 ? 0 : -1;
            int e, ex;
            double sc;
            if (one < 0)
                continue;
            add(&t, p);
            if ((e = prod_op(F, n->in[1 - one], "Erf")) >= 0 && near(c, 0.5, 1e-3)) {
                add(&t, e);
                scaled_x(F, NODE(F, e)->in[0], &ex, &sc, &t);
                if (ex == cand && near(sc, M_SQRT1_2, 1e-3) && closed(F, &t, head)) {
                    rewrite(F, &t, head, "Gelu", &cand, 1, 0, 0, vname("exGelu", NODE(F, e), "_2gelu"));
                    return 1;
                }
            } else if ((e = prod_op(F, n->in[1 - one], "Tanh")) >= 0 && near(c, 0.5, 1e-3)) {
                add(&t, e);
                if (cubic_inner(F, NODE(F, e)->in[0], cand, &t) && closed(F, &t, head)) {
                    rewrite(F, &t, head, "Gelu", &cand, 1, 0, 0, vname("exGelu", NODE(F, e), "_2gelu"));
                    return 1;
                }
            }
        } else if (!strcmp(n->op, "Clip") && near(c, 1.0 / 6, 1e-3)) {
            /* Relu6(x + 3), Paddle's export: the compiler fuses it (toolkit
             * 2.3.2's compiled ppocrv4_det has ConvHardSwish where the ONNX
             * has Conv-Add-Clip-Mul-Div; docs/vendor-rewrites.md). Bounds from
             * inputs (opset >= 11) or attributes */
            double lo = node_attr_float(n, "min", -INFINITY), hi = node_attr_float(n, "max", INFINITY);
            int a = prod_op(F, n->in[0], "Add");
            if (n->n_in > 1 && !cscalar(F, n->in[1], &lo))
                continue;
            if (n->n_in > 2 && !cscalar(F, n->in[2], &hi))
                continue;
            if (lo != 0 || hi != 6 || a < 0 || other(F, a, cand) < 0 ||
                !cscalar(F, other(F, a, cand), &v) || v != 3)
                continue;
            add(&t, p);
            add(&t, a);
            if (closed(F, &t, head)) {
                rewrite(F, &t, head, "HardSwish", &cand, 1, 0, 0, vname("HardSwish", n, "_2hswish"));
                return 1;
            }
        } else if (!strcmp(n->op, "HardSigmoid") && c == 1 && n->in[0] == cand &&
                   near(node_attr_float(n, "alpha", 0.2f), 1.0 / 6, 1e-3) &&
                   near(node_attr_float(n, "beta", 0.5f), 0.5, 1e-6)) {
            add(&t, p);
            if (closed(F, &t, head)) {
                rewrite(F, &t, head, "HardSwish", &cand, 1, 0, 0, vname("HardSwish", n, "_2hswish"));
                return 1;
            }
        } else if (!strcmp(n->op, "Tanh") && c == 1) {
            int sp = prod_op(F, n->in[0], "Softplus");
            if (sp < 0 || NODE(F, sp)->in[0] != cand)
                continue;
            add(&t, p);
            add(&t, sp);
            if (closed(F, &t, head)) {
                rewrite(F, &t, head, "Mish", &cand, 1, 0, 0, vname("exMish", n, "_2mish"));
                return 1;
            }
        }
    }
    return 0;
}

/* ---- softmax, attention, pooling --------------------------------------- */

/* Exp(x [- ReduceMax(x)]) / ReduceSum(Exp(...)) over one axis -> Softmax(axis) */
static int match_softmax(fz_t *F, int head)
{
    const node_t *h = NODE(F, head);
    pset_t s = {.cnt = 0};
    int e, r, x, sb;
    int64_t ax[2];

    if (strcmp(h->op, "Div") || h->n_in != 2 || (e = prod_op(F, h->in[0], "Exp")) < 0 ||
        (r = prod_op(F, h->in[1], "ReduceSum")) < 0 || NODE(F, r)->in[0] != h->in[0] ||
        red_axes(F, NODE(F, r), ax, 1) != 1 || node_attr_int(NODE(F, r), "keepdims", 1) != 1)
        return 0;
    add(&s, head);
    add(&s, e);
    add(&s, r);
    x = NODE(F, e)->in[0];
    if ((sb = prod_op(F, x, "Sub")) >= 0) {
        int mx = prod_op(F, NODE(F, sb)->in[1], "ReduceMax");
        int64_t mxa[1];
        /* the max must be over the softmax's axis: constant along it */
        if (mx >= 0 && NODE(F, mx)->in[0] == NODE(F, sb)->in[0] &&
            red_axes(F, NODE(F, mx), mxa, 1) == 1 && mxa[0] == ax[0] &&
            node_attr_int(NODE(F, mx), "keepdims", 1) == 1) {
            pset_t t = s;
            add(&t, sb);
            add(&t, mx);
            if (closed(F, &t, head)) {
                s = t;
                x = NODE(F, sb)->in[0];
            }
        }
    }
    if (!closed(F, &s, head))
        return 0;
    rewrite(F, &s, head, "Softmax", &x, 1, 1, ax[0], NULL);
    return 1;
}

/* An attention operand as the export feeds it: through the head split or
 * K's transpose (a Transpose) and a constant scale (Mul or Div), each read by
 * the attention only. Toolkit 2.3.2 folds them into exSDPAttention: its
 * rk3588 file of a BERT (emapco/rk-transformers' random_bert) has no Transpose
 * or Mul around the op, whose Q, K, V are the Reshapes of the head split. */
static int operand(fz_t *F, int ti, pset_t *s)
{
    for (int k = 0; k < 4; k++) {
        int p = prod(F, ti);
        double v;
        if (p < 0 || F->ncons[ti] != 1 || F->g->t[ti].is_output)
            break;
        const node_t *n = NODE(F, p);
        if (!strcmp(n->op, "Transpose") && n->n_in == 1) {
            ti = n->in[0];
        } else if ((!strcmp(n->op, "Mul") || !strcmp(n->op, "Div")) && n->n_in == 2 &&
                   cscalar(F, n->in[1], &v)) {
            ti = n->in[0];
        } else if (!strcmp(n->op, "Mul") && n->n_in == 2 && cscalar(F, n->in[0], &v)) {
            ti = n->in[1];
        } else {
            break;
        }
        add(s, p);
    }
    return ti;
}

/* MatMul(Softmax(MatMul(Q, K) [* or / scale] [+ mask]), V) over the last axis
 * -> exSDPAttention, on the chips whose NPU has it (not RK356X); with the
 * operands' head split and scale (operand) and the Transpose that merges the
 * heads after it, which the same file folds too */
static int match_attention(fz_t *F, int head)
{
    const node_t *h = NODE(F, head);
    pset_t s = {.cnt = 0};
    int sm, cur, p, qk, ins[3];
    int64_t axis;

    if (!F->attention || strcmp(h->op, "MatMul") || h->n_in != 2 || is_c(F, h->in[1]) ||
        (sm = prod_op(F, h->in[0], "Softmax")) < 0)
        return 0;
    {
        const tensor_t *t = &F->g->t[NODE(F, sm)->in[0]];
        axis = node_attr_int(NODE(F, sm), "axis", F->g->opset >= 13 ? -1 : 1);
        if (t->ndim < 2 || (axis != -1 && axis != t->ndim - 1))
            return 0;
    }
    add(&s, head);
    add(&s, sm);
    cur = NODE(F, sm)->in[0];
    for (;;) {
        double v;
        p = prod(F, cur);
        if (p < 0)
            return 0;
        if (!strcmp(NODE(F, p)->op, "MatMul"))
            break;
        if ((!strcmp(NODE(F, p)->op, "Mul") || !strcmp(NODE(F, p)->op, "Div")) &&
            NODE(F, p)->n_in == 2 && cscalar(F, NODE(F, p)->in[1], &v)) {
            add(&s, p);
            cur = NODE(F, p)->in[0];
        } else if (!strcmp(NODE(F, p)->op, "Add") && NODE(F, p)->n_in == 2) {
            add(&s, p); /* the mask: an input of the fused op the real row shows as "..." */
            cur = prod(F, NODE(F, p)->in[0]) >= 0 &&
                  !strcmp(NODE(F, prod(F, NODE(F, p)->in[0]))->op, "MatMul")
                      ? NODE(F, p)->in[0] : NODE(F, p)->in[1];
        } else {
            return 0;
        }
        if (s.cnt > 6)
            return 0;
    }
    qk = p;
    if (is_c(F, NODE(F, qk)->in[1]))
        return 0;
    add(&s, qk);
    ins[0] = operand(F, NODE(F, qk)->in[0], &s);
    ins[1] = operand(F, NODE(F, qk)->in[1], &s);
    ins[2] = operand(F, h->in[1], &s);
    /* the heads merged back: the layer's output is that Transpose's */
    int last = head, y = h->out[0];
    if (y >= 0 && F->ncons[y] == 1 && !F->g->t[y].is_output &&
        !strcmp(NODE(F, F->cons[y][0])->op, "Transpose")) {
        last = F->cons[y][0];
        add(&s, last);
    }
    if (!closed(F, &s, last))
        return 0;
    rewrite(F, &s, last, "SDPAttention", ins, 3, 0, 0, vname("exSDPAttention", h, "_2sdpa"));
    return 1;
}

/* ReduceMean over H and W of a 4-D tensor: a global average pool */
static int match_mean_hw(fz_t *F, int head)
{
    const node_t *h = NODE(F, head);
    const tensor_t *x;
    pset_t s = {.cnt = 0};
    int64_t ax[3];
    int n;

    if (strcmp(h->op, "ReduceMean") || h->n_in < 1 || h->in[0] < 0)
        return 0;
    x = &F->g->t[h->in[0]];
    if (x->ndim != 4 || (n = red_axes(F, h, ax, 3)) != 2 ||
        !((ax[0] == 2 && ax[1] == 3) || (ax[0] == 3 && ax[1] == 2)))
        return 0;
    add(&s, head);
    rewrite(F, &s, head, "GlobalAveragePool", &h->in[0], 1, 0, 0, NULL);
    return 1;
}

/* ---- driver ------------------------------------------------------------- */

int npu_fuse(const graph_t *g, const npu_platform_t *p, npu_fused_t *f, graph_t *view)
{
    fz_t F = {0};

    memset(f, 0, sizeof(*f));
    *view = *g;
    f->n = g->n_nodes;
    f->nodes = xmalloc((size_t)(g->n_nodes > 0 ? g->n_nodes : 1) * sizeof(node_t));
    if (g->n_nodes)
        memcpy(f->nodes, g->nodes, (size_t)g->n_nodes * sizeof(node_t));
    f->head_of = xmalloc((size_t)(g->n_nodes + 1) * sizeof(int));
    for (int i = 0; i < g->n_nodes; i++)
        f->head_of[i] = -1;
    f->fullname = xcalloc((size_t)g->n_nodes + 1, sizeof(char *));
    f->owned = xcalloc((size_t)g->n_nodes + 1, sizeof(int));
    view->nodes = f->nodes;

    F.g = view;
    F.f = f;
    /* exSDPAttention: RK3588, RK3562, RV1103/RV1106, RK3576 (rknn-oplist.md §2) */
    F.attention = strcmp(p->family, "rk356x") != 0;
    F.ncons = xcalloc((size_t)g->n_t + 1, sizeof(int));
    F.cons = xcalloc((size_t)g->n_t + 1, sizeof(int *));
    recount(&F);
    for (int i = 0; i < g->n_nodes; i++) {
        if (view->nodes[i].folded)
            continue;
        if (match_norm(&F, i) || match_norm_affine(&F, i) || match_softmax(&F, i) ||
            match_attention(&F, i) || match_mean_hw(&F, i) || match_swish(&F, i) ||
            match_act(&F, i))
            f->n_rewrites++;
        /* a head may grow again (scale, then bias) */
    }
    for (int i = 0; i < g->n_t; i++)
        free(F.cons[i]);
    free(F.cons);
    free(F.ncons);
    return 0;
}

void npu_fuse_free(npu_fused_t *f)
{
    if (!f || !f->nodes)
        return;
    for (int i = 0; i < f->n; i++) {
        if (f->owned[i]) {
            node_t *h = &f->nodes[i];
            free(h->op);
            free(h->in);
            for (int k = 0; k < h->n_attr; k++)
                free(h->attrs[k].name);
            free(h->attrs);
        }
        free(f->fullname[i]);
    }
    free(f->nodes);
    free(f->head_of);
    free(f->fullname);
    free(f->owned);
    memset(f, 0, sizeof(*f));
}
