/* runtime/emu/emu_cpu.c — the CPU layers the emulator computes itself (the op types
 * vendor files place on the board's CPU: shared/research/rknn-oplist.md §3, ArgMax /
 * ArgMin and rk356x's Softmax "CPU"; Reshape, Flatten and Squeeze have CPU versions;
 * seen in files: mobilenet_v2's and linear_128_to_4's final Reshape, the SDK's
 * pp_human_segv2 ArgMax then Reshape) and the hook that puts them after the caller's
 * custom ops. Values are float NCHW in the tensors' original shapes (emu.h); the
 * caller stores the outputs with their tensors' types. */
#include "runtime/emu/emu.h"
#include "runtime/model/rknn_file.h"
#include "util/util.h"

#include <math.h>
#include <string.h>

enum { B_NONE, B_RESHAPE, B_ARGMAX, B_ARGMIN, B_SOFTMAX, B_SIGMOID, B_CONCAT, B_SPLIT, B_EXP };

static int builtin_kind(const char *type)
{
    static const struct {
        const char *type;
        int kind;
    } tab[] = {{"Reshape", B_RESHAPE}, {"Flatten", B_RESHAPE}, {"Squeeze", B_RESHAPE},
               {"Unsqueeze", B_RESHAPE}, {"ArgMax", B_ARGMAX}, {"ArgMin", B_ARGMIN},
               {"Softmax", B_SOFTMAX}, {"Sigmoid", B_SIGMOID}, {"Concat", B_CONCAT},
               {"Split", B_SPLIT}, {"Exp", B_EXP}};
    for (size_t i = 0; type && i < sizeof(tab) / sizeof(tab[0]); i++)
        if (!strcmp(type, tab[i].type))
            return tab[i].kind;
    return B_NONE;
}

int emu_cpu_builtin(const char *type)
{
    return builtin_kind(type) != B_NONE;
}

static int64_t prod(const int64_t *s, int from, int to)
{
    int64_t n = 1;
    for (int d = from; d < to; d++)
        n *= s[d];
    return n;
}

static int builtin_reads(const rknn_model *m, int node, int k)
{
    const rknn_node *nd = &m->nodes[node];
    if (builtin_kind(nd->type) == B_CONCAT)
        return !rknn_alias_input(m, nd, k);
    return k == 0; /* the data; a Reshape's shape constant is the output's shape */
}

typedef struct cpu_layer {
    const rknn_model *m;
    const rknn_node *nd;
    int node;
    char *err;
    size_t errlen;
} cpu_layer;

static int fail(const cpu_layer *L, const char *what)
{
    return rt_err(L->err, L->errlen, RT_EUNSUPPORTED, "node %d (%s %s) on the CPU: %s",
                  L->node + 1, L->nd->type, L->nd->name, what);
}

static const rknn_tensor *tin(const cpu_layer *L, int k) { return &L->m->tensors[L->nd->in[k]]; }
static const rknn_tensor *tout(const cpu_layer *L, int k) { return &L->m->tensors[L->nd->out[k]]; }

/* the node's axis for a tensor of rank nd (negative counts from the end), -1 none */
static int node_axis(const cpu_layer *L, int nd)
{
    int64_t a = L->nd->axis;
    if (!L->nd->has_axis)
        return -1;
    a = a < 0 ? a + nd : a;
    return a >= 0 && a < nd ? (int)a : -2;
}

/* the one dimension in which shapes a and b (same rank) differ, -1 none, -2 several */
static int differing_dim(const rknn_tensor *a, const rknn_tensor *b)
{
    int r = -1;
    for (int d = 0; d < a->nd; d++)
        if (a->shape[d] != b->shape[d])
            r = r == -1 ? d : -2;
    return r;
}

/* Reshape, Flatten, Squeeze, Unsqueeze: the same values in the same (row-major NCHW)
 * order under the output's shape */
static int run_reshape(const cpu_layer *L, const float *const *in, float *const *out)
{
    int64_t n = rknn_tensor_elems(tin(L, 0));
    if (L->nd->n_out != 1 || n < 0 || n != rknn_tensor_elems(tout(L, 0)))
        return fail(L, "input and output shapes hold different element counts");
    memcpy(out[0], in[0], sizeof(float) * (size_t)n);
    return RT_OK;
}

/* ArgMax / ArgMin over the node's axis: the first index of the extreme (ONNX
 * select_last_index 0), as a float; keepdims from the output's rank. Without an axis
 * in the file, the one the shapes tell (the only reduced dimension longer than 1). */
static int run_arg(const cpu_layer *L, const float *const *in, float *const *out, int is_max)
{
    const rknn_tensor *x = tin(L, 0), *y = tout(L, 0);
    int r = x->nd, a = node_axis(L, r), keep = y->nd == r;
    if (L->nd->n_out != 1 || rknn_tensor_elems(x) < 0 || (y->nd != r && y->nd != r - 1))
        return fail(L, "output rank is neither the input's nor one less");
    if (a == -2)
        return fail(L, "axis outside the input's rank");
    if (a == -1) { /* candidates: dimensions longer than 1 the output drops or keeps as 1 */
        int n_cand = 0, first1 = -1;
        for (int d = 0; d < r; d++) {
            int ok = 1;
            for (int e = 0, o = 0; e < r && ok; e++) {
                if (e == d) {
                    ok = !keep || y->shape[e] == 1;
                    o += keep;
                } else {
                    ok = y->shape[o++] == x->shape[e];
                }
            }
            if (ok && x->shape[d] > 1)
                a = d, n_cand++;
            else if (ok && first1 < 0)
                first1 = d;
        }
        if (n_cand > 1 || (n_cand == 0 && first1 < 0))
            return fail(L, "the file gives no axis and the shapes do not tell it");
        if (n_cand == 0)
            a = first1;
    }
    for (int e = 0, o = 0; e < r; e++) {
        int64_t want = e == a ? 1 : x->shape[e];
        if (e == a && !keep)
            continue;
        if (y->shape[o++] != want)
            return fail(L, "output shape is not the input's reduced over the axis");
    }
    int64_t outer = prod(x->shape, 0, a), len = x->shape[a], inner = prod(x->shape, a + 1, r);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            const float *p = in[0] + o * len * inner + i;
            int64_t best = 0;
            for (int64_t k = 1; k < len; k++)
                if (is_max ? p[k * inner] > p[best * inner] : p[k * inner] < p[best * inner])
                    best = k;
            out[0][o * inner + i] = (float)best;
        }
    return RT_OK;
}

/* Softmax over the node's axis (without one in the file: the input's only dimension
 * longer than 1), in double, the row's maximum subtracted first */
static int run_softmax(const cpu_layer *L, const float *const *in, float *const *out)
{
    const rknn_tensor *x = tin(L, 0);
    int r = x->nd, a = node_axis(L, r);
    int64_t n = rknn_tensor_elems(x);
    if (L->nd->n_out != 1 || n < 0 || n != rknn_tensor_elems(tout(L, 0)))
        return fail(L, "input and output shapes hold different element counts");
    if (a == -2)
        return fail(L, "axis outside the input's rank");
    if (a == -1) {
        for (int d = 0; d < r; d++)
            if (x->shape[d] > 1)
                a = a == -1 ? d : -3;
        if (a == -3 || (a == -1 && r == 0))
            return fail(L, "the file gives no axis and the shapes do not tell it");
        a = a < 0 ? r - 1 : a;
    }
    int64_t outer = prod(x->shape, 0, a), len = x->shape[a], inner = prod(x->shape, a + 1, r);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            const float *p = in[0] + o * len * inner + i;
            float *q = out[0] + o * len * inner + i;
            double mx = p[0], sum = 0;
            for (int64_t k = 1; k < len; k++)
                mx = p[k * inner] > mx ? p[k * inner] : mx;
            for (int64_t k = 0; k < len; k++)
                sum += exp((double)p[k * inner] - mx);
            for (int64_t k = 0; k < len; k++)
                q[k * inner] = (float)(exp((double)p[k * inner] - mx) / sum);
        }
    return RT_OK;
}

static int run_sigmoid(const cpu_layer *L, const float *const *in, float *const *out)
{
    int64_t n = rknn_tensor_elems(tin(L, 0));
    if (L->nd->n_out != 1 || n < 0 || n != rknn_tensor_elems(tout(L, 0)))
        return fail(L, "input and output shapes hold different element counts");
    for (int64_t i = 0; i < n; i++) {
        double v = in[0][i], e = exp(-fabs(v)); /* never exp of a large positive */
        out[0][i] = (float)(v >= 0 ? 1 / (1 + e) : e / (1 + e));
    }
    return RT_OK;
}

/* Exp (ONNX; rk3576's Toolkit2 puts it on the CPU: rocket-userspace's lut/conv_exp_*):
 * the function of each element, in double. Not Erf: the same files' "Erf" CPU node
 * (conv_gelu_*) outputs the whole Gelu, x/2 (1 + erf(x / sqrt 2)), under that name */
static int run_unary(const cpu_layer *L, const float *const *in, float *const *out,
                     double (*f)(double))
{
    int64_t n = rknn_tensor_elems(tin(L, 0));
    if (L->nd->n_out != 1 || n < 0 || n != rknn_tensor_elems(tout(L, 0)))
        return fail(L, "input and output shapes hold different element counts");
    for (int64_t i = 0; i < n; i++)
        out[0][i] = (float)f(in[0][i]);
    return RT_OK;
}

/* Concat / Split: the slices along the axis (the node's; without one, the only
 * dimension in which the first input and the output differ) one after the other */
static int slice_axis(const cpu_layer *L, const rknn_tensor *whole, const rknn_tensor *part)
{
    int a = node_axis(L, whole->nd);
    if (a == -1 && part->nd == whole->nd)
        a = differing_dim(whole, part) >= 0 ? differing_dim(whole, part) : -1;
    return a;
}

static int run_concat(const cpu_layer *L, const float *const *in, float *const *out)
{
    const rknn_tensor *y = tout(L, 0);
    int r = y->nd, a = -1, first = -1;
    int64_t sum = 0;
    for (int k = 0; k < L->nd->n_in; k++)
        if (in[k] && first < 0)
            first = k;
    if (L->nd->n_out != 1 || first < 0 || rknn_tensor_elems(y) < 0)
        return fail(L, "not one output and at least one input");
    if ((a = slice_axis(L, y, tin(L, first))) < 0)
        return fail(L, a == -1 ? "the file gives no axis and the shapes do not tell it"
                               : "axis outside the output's rank");
    for (int k = 0; k < L->nd->n_in; k++) {
        const rknn_tensor *x = tin(L, k);
        if (!in[k])
            continue;
        if (x->nd != r || rknn_tensor_elems(x) < 0)
            return fail(L, "an input's rank is not the output's");
        for (int d = 0; d < r; d++)
            if (d != a && x->shape[d] != y->shape[d])
                return fail(L, "an input differs from the output off the axis");
        sum += x->shape[a];
    }
    if (sum != y->shape[a])
        return fail(L, "the inputs' lengths along the axis do not add up to the output's");
    int64_t outer = prod(y->shape, 0, a), inner = prod(y->shape, a + 1, r), at = 0;
    for (int k = 0; k < L->nd->n_in; k++) {
        if (!in[k])
            continue;
        int64_t len = tin(L, k)->shape[a];
        for (int64_t o = 0; o < outer; o++)
            memcpy(out[0] + (o * y->shape[a] + at) * inner, in[k] + o * len * inner,
                   sizeof(float) * (size_t)(len * inner));
        at += len;
    }
    return RT_OK;
}

static int run_split(const cpu_layer *L, const float *const *in, float *const *out)
{
    const rknn_tensor *x = tin(L, 0);
    int r = x->nd, a;
    int64_t sum = 0;
    if (L->nd->n_out < 1 || rknn_tensor_elems(x) < 0)
        return fail(L, "no output");
    if ((a = slice_axis(L, x, tout(L, 0))) < 0)
        return fail(L, a == -1 ? "the file gives no axis and the shapes do not tell it"
                               : "axis outside the input's rank");
    for (int k = 0; k < L->nd->n_out; k++) {
        const rknn_tensor *y = tout(L, k);
        if (y->nd != r)
            return fail(L, "an output's rank is not the input's");
        for (int d = 0; d < r; d++)
            if (d != a && y->shape[d] != x->shape[d])
                return fail(L, "an output differs from the input off the axis");
        sum += y->shape[a];
    }
    if (sum != x->shape[a])
        return fail(L, "the outputs' lengths along the axis do not add up to the input's");
    int64_t outer = prod(x->shape, 0, a), inner = prod(x->shape, a + 1, r), at = 0;
    for (int k = 0; k < L->nd->n_out; k++) {
        int64_t len = tout(L, k)->shape[a];
        for (int64_t o = 0; o < outer; o++)
            memcpy(out[k] + o * len * inner, in[0] + (o * x->shape[a] + at) * inner,
                   sizeof(float) * (size_t)(len * inner));
        at += len;
    }
    return RT_OK;
}

int emu_cpu_builtin_run(const rknn_model *m, int node, const float *const *in, float *const *out,
                        char *err, size_t errlen)
{
    const rknn_node *nd = &m->nodes[node];
    cpu_layer L = {m, nd, node, err, errlen};
    int kind = builtin_kind(nd->type);
    if (kind != B_CONCAT && (nd->n_in < 1 || !in[0]))
        return fail(&L, "no input");
    switch (kind) {
    case B_RESHAPE: return run_reshape(&L, in, out);
    case B_ARGMAX: return run_arg(&L, in, out, 1);
    case B_ARGMIN: return run_arg(&L, in, out, 0);
    case B_SOFTMAX: return run_softmax(&L, in, out);
    case B_SIGMOID: return run_sigmoid(&L, in, out);
    case B_CONCAT: return run_concat(&L, in, out);
    case B_SPLIT: return run_split(&L, in, out);
    case B_EXP: return run_unary(&L, in, out, exp);
    default: return emu_cpu_refuse(m, node, err, errlen);
    }
}

int emu_cpu_refuse(const rknn_model *m, int node, char *err, size_t errlen)
{
    const rknn_node *nd = &m->nodes[node];
    return rt_err(err, errlen, RT_EUNSUPPORTED, "node %d (%s %s) runs on the CPU: not emulated%s",
                  node + 1, nd->type, nd->name,
                  !strncmp(nd->type, "cst", 3)
                      ? " here (a custom op: give run --custom-op LIB.so with its callbacks, or "
                        "register it with rknn_register_custom_ops through librknnrt)"
                      : "");
}

/* the chain: the caller's hook for custom ops (cst*), the built-ins, then the
 * caller's hook again for anything else (its own refusal), else the refusal */
static int chain_user(const emu_cpu_chain *c, const rknn_model *m, int node)
{
    const char *type = m->nodes[node].type;
    return c->user && (!strncmp(type, "cst", 3) || !emu_cpu_builtin(type));
}

static int chain_run(emu_cpu_hook *h, const rknn_model *m, int node, const float *const *in,
                     float *const *out, char *err, size_t errlen)
{
    emu_cpu_chain *c = (emu_cpu_chain *)h;
    if (chain_user(c, m, node))
        return c->user->run(c->user, m, node, in, out, err, errlen);
    return emu_cpu_builtin_run(m, node, in, out, err, errlen);
}

static int chain_reads(emu_cpu_hook *h, const rknn_model *m, int node, int k)
{
    emu_cpu_chain *c = (emu_cpu_chain *)h;
    if (chain_user(c, m, node))
        return c->user->reads ? c->user->reads(c->user, m, node, k) : 1;
    return emu_cpu_builtin(m->nodes[node].type) ? builtin_reads(m, node, k) : 1;
}

emu_cpu_hook *emu_cpu_chain_init(emu_cpu_chain *c, emu_cpu_hook *user)
{
    c->h.run = chain_run;
    c->h.reads = chain_reads;
    c->user = user;
    return &c->h;
}

int emu_cpu_runs(const emu_cpu_chain *c, const rknn_model *m, int node)
{
    return chain_user(c, m, node) || emu_cpu_builtin(m->nodes[node].type);
}
