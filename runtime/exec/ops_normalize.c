/* runtime/exec/ops_normalize.c — the statistics-based normalisations of
 * transformer, style-transfer and older CNN models: LayerNormalization,
 * InstanceNormalization, MeanVarianceNormalization, LpNormalization and LRN,
 * fp32 in and out with double accumulation.
 *
 * Each normalises groups of elements: a group is every element that shares the
 * coordinates of the axes that are NOT reduced. A group is described by its
 * element count and, per element, an offset computed once from the reduced
 * axes, so one loop serves contiguous (LayerNorm, InstanceNorm) and strided
 * (MVN over axes 0,2,3; LpNorm over a middle axis) groups. */
#include "runtime/exec/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Groups of a rank-r tensor reduced over the axes flagged in red[]. */
typedef struct groups {
    int64_t n_groups, group_size;
    int64_t *base;   /* n_groups offsets of each group's first element */
    int64_t *off;    /* group_size offsets within a group */
} groups;

static void groups_free(groups *g)
{
    free(g->base);
    free(g->off);
}

/* Offsets of every index combination of the reduced axes (keep = 0) or of the
 * kept ones (keep = 1), in row-major order. */
static int64_t *axis_offsets(int r, const int64_t *dims, const int *red, int keep, int64_t *count)
{
    int64_t stride[MODEL_MAX_DIMS], n = 1;
    int ax[MODEL_MAX_DIMS], na = 0;
    for (int64_t i = r - 1, s = 1; i >= 0; i--) {
        stride[i] = s;
        s *= dims[i];
    }
    for (int i = 0; i < r; i++)
        if ((red[i] == 0) == (keep != 0)) {
            ax[na++] = i;
            n *= dims[i];
        }
    int64_t *v = xmalloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t)), idx[MODEL_MAX_DIMS] = {0};
    for (int64_t k = 0; k < n; k++) {
        int64_t o = 0;
        for (int a = 0; a < na; a++)
            o += idx[a] * stride[ax[a]];
        v[k] = o;
        for (int a = na - 1; a >= 0; a--) {
            if (++idx[a] < dims[ax[a]])
                break;
            idx[a] = 0;
        }
    }
    *count = n;
    return v;
}

static void groups_make(const tensor_t *x, const int *red, groups *g)
{
    g->base = axis_offsets(x->ndim, x->dims, red, 1, &g->n_groups);
    g->off = axis_offsets(x->ndim, x->dims, red, 0, &g->group_size);
}

static int check_float(const node_t *n, const tensor_t *t, char *err, size_t errlen)
{
    if (!t || t->dtype != DT_FLOAT)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): dtype %s not supported (fp32 only)",
                      n->name, n->op, t ? dtype_name(t->dtype) : "(none)");
    return RT_OK;
}

/* ---- LayerNormalization (opset 17) ----------------------------------------
 * Normalises over axes [axis, r); Scale and B broadcast to X (usually shaped
 * X[axis:]); optional outputs Mean and InvStdDev have X's shape with the
 * normalised axes set to 1. */

static int ln_axis(const node_t *n, const tensor_t *x)
{
    return norm_axis(node_attr_int(n, "axis", -1), x->ndim);
}

static int ln_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 2, 3, 1, err, errlen);
    tensor_t *x = node_input(g, n, 0);
    if (rc || (rc = check_float(n, x, err, errlen)) ||
        (rc = check_float(n, node_input(g, n, 1), err, errlen)) ||
        (node_input(g, n, 2) && (rc = check_float(n, node_input(g, n, 2), err, errlen))))
        return rc;
    int a = ln_axis(n, x);
    if (a < 0)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (LayerNormalization): axis out of range for rank %d",
                      n->name, x->ndim);
    for (int i = 1; i < 3; i++) {
        tensor_t *p = node_input(g, n, i);
        int64_t tmp[MODEL_MAX_DIMS];
        if (p && broadcast_shape(x->ndim, x->dims, p->ndim, p->dims, tmp) != x->ndim)
            return rt_err(err, errlen, RT_ESHAPE,
                          "node '%s' (LayerNormalization): input %d does not broadcast to X", n->name, i);
    }
    tensor_set_shape(node_output(g, n, 0), DT_FLOAT, x->ndim, x->dims);
    int64_t sd[MODEL_MAX_DIMS];
    for (int i = 0; i < x->ndim; i++)
        sd[i] = i < a ? x->dims[i] : 1;
    for (int k = 1; k < 3 && k < n->n_out; k++)
        if (n->out[k] >= 0) /* stash_type 1 (fp32) is what we compute in anyway */
            tensor_set_shape(node_output(g, n, k), DT_FLOAT, x->ndim, sd);
    return RT_OK;
}

typedef struct ln_job {
    const float *x, *scale, *bias;
    float *y, *mean, *inv;
    int64_t m;                        /* normalised size */
    int64_t s_str[MODEL_MAX_DIMS], b_str[MODEL_MAX_DIMS], dims[MODEL_MAX_DIMS];
    int nd, s_full, b_full;           /* scale/bias have exactly m values in order */
    float eps;
} ln_job;

/* Offset into a broadcast parameter of element e (flat index in X). */
static int64_t bcast_off(const ln_job *j, const int64_t *str, int64_t e)
{
    int64_t o = 0;
    for (int i = j->nd - 1; i >= 0; i--) {
        o += (e % j->dims[i]) * str[i];
        e /= j->dims[i];
    }
    return o;
}

static void ln_range(void *arg, int64_t g0, int64_t g1)
{
    const ln_job *j = arg;
    for (int64_t gi = g0; gi < g1; gi++) {
        const float *x = j->x + gi * j->m;
        float *y = j->y + gi * j->m;
        double s = 0, q = 0;
        for (int64_t i = 0; i < j->m; i++)
            s += x[i];
        double mu = s / (double)j->m;
        for (int64_t i = 0; i < j->m; i++)
            q += (x[i] - mu) * (x[i] - mu);
        double inv = 1.0 / sqrt(q / (double)j->m + j->eps);
        for (int64_t i = 0; i < j->m; i++) {
            int64_t e = gi * j->m + i;
            float sc = j->s_full ? j->scale[i] : j->scale[bcast_off(j, j->s_str, e)];
            float b = !j->bias ? 0.0f : j->b_full ? j->bias[i] : j->bias[bcast_off(j, j->b_str, e)];
            y[i] = (float)((x[i] - mu) * inv) * sc + b;
        }
        if (j->mean)
            j->mean[gi] = (float)mu;
        if (j->inv)
            j->inv[gi] = (float)inv;
    }
}

static int ln_run(op_ctx *c, graph_t *g, node_t *n)
{
    const tensor_t *x = node_input(g, n, 0), *sc = node_input(g, n, 1), *b = node_input(g, n, 2);
    int a = ln_axis(n, x);
    ln_job j = {.x = x->data, .scale = sc->data, .bias = b ? b->data : NULL,
                .y = node_output(g, n, 0)->data, .nd = x->ndim,
                .eps = node_attr_float(n, "epsilon", 1e-5f)};
    j.m = dims_prod(x->dims, a, x->ndim);
    memcpy(j.dims, x->dims, sizeof(int64_t) * (size_t)x->ndim);
    broadcast_strides(sc->ndim, sc->dims, x->ndim, j.s_str);
    j.s_full = tensor_numel(sc) == j.m && sc->ndim <= x->ndim - a;
    if (b) {
        broadcast_strides(b->ndim, b->dims, x->ndim, j.b_str);
        j.b_full = tensor_numel(b) == j.m && b->ndim <= x->ndim - a;
    }
    if (n->n_out > 1 && n->out[1] >= 0)
        j.mean = node_output(g, n, 1)->data;
    if (n->n_out > 2 && n->out[2] >= 0)
        j.inv = node_output(g, n, 2)->data;
    int64_t groups_n = dims_prod(x->dims, 0, a);
    if (j.m > 0 && groups_n > 0)
        op_parallel_for_work(c, groups_n, j.m * 6, ln_range, &j);
    return RT_OK;
}

/* ---- InstanceNormalization: per (n, c) over the spatial axes --------------- */

static int in_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 3, 3, 1, err, errlen);
    tensor_t *x = node_input(g, n, 0);
    if (rc || (rc = check_float(n, x, err, errlen)))
        return rc;
    if (x->ndim < 3)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (InstanceNormalization): input rank %d < 3",
                      n->name, x->ndim);
    for (int i = 1; i < 3; i++) {
        tensor_t *p = node_input(g, n, i);
        if ((rc = check_float(n, p, err, errlen)))
            return rc;
        if (tensor_numel(p) != x->dims[1])
            return rt_err(err, errlen, RT_ESHAPE,
                          "node '%s' (InstanceNormalization): input %d has %lld values for %lld channels",
                          n->name, i, (long long)tensor_numel(p), (long long)x->dims[1]);
    }
    tensor_set_shape(node_output(g, n, 0), DT_FLOAT, x->ndim, x->dims);
    return RT_OK;
}

typedef struct in_job {
    const float *x, *scale, *bias;
    float *y;
    int64_t C, inner;
    double eps;
} in_job;

static void in_range(void *arg, int64_t t0, int64_t t1)
{
    const in_job *j = arg;
    for (int64_t t = t0; t < t1; t++) {
        const float *x = j->x + t * j->inner;
        float *y = j->y + t * j->inner;
        double s = 0, q = 0;
        for (int64_t i = 0; i < j->inner; i++)
            s += x[i];
        double mu = s / (double)j->inner;
        for (int64_t i = 0; i < j->inner; i++)
            q += (x[i] - mu) * (x[i] - mu);
        double a = j->scale[t % j->C] / sqrt(q / (double)j->inner + j->eps);
        double b = j->bias[t % j->C] - mu * a;
        for (int64_t i = 0; i < j->inner; i++)
            y[i] = (float)(x[i] * a + b);
    }
}

static int in_run(op_ctx *c, graph_t *g, node_t *n)
{
    const tensor_t *x = node_input(g, n, 0);
    in_job j = {.x = x->data, .scale = node_input(g, n, 1)->data, .bias = node_input(g, n, 2)->data,
                .y = node_output(g, n, 0)->data, .C = x->dims[1],
                .inner = dims_prod(x->dims, 2, x->ndim), .eps = node_attr_float(n, "epsilon", 1e-5f)};
    int64_t nc = x->dims[0] * x->dims[1];
    if (nc > 0 && j.inner > 0)
        op_parallel_for_work(c, nc, j.inner * 6, in_range, &j);
    return RT_OK;
}

/* ---- MeanVarianceNormalization and LpNormalization: strided groups -------- */

/* MVN's function body: (X - mean) / (sqrt(E[X^2] - mean^2) + 1e-9) over `axes`
 * (default 0, 2, 3). LpNormalization: X / ||X||_p along `axis` (p 1 or 2). */
static int group_axes(const node_t *n, const tensor_t *x, int *red, char *err, size_t errlen)
{
    memset(red, 0, sizeof(int) * MODEL_MAX_DIMS);
    if (!strcmp(n->op, "LpNormalization")) {
        int a = norm_axis(node_attr_int(n, "axis", -1), x->ndim);
        if (a < 0)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (LpNormalization): axis out of range for rank %d",
                          n->name, x->ndim);
        red[a] = 1;
        return RT_OK;
    }
    static const int64_t def[] = {0, 2, 3};
    const int64_t *axes = def;
    int na = node_attr_ints(n, "axes", &axes);
    if (na < 0) {
        axes = def;
        na = 3;
    }
    for (int i = 0; i < na; i++) {
        int a = norm_axis(axes[i], x->ndim);
        if (a < 0)
            return rt_err(err, errlen, RT_ESHAPE,
                          "node '%s' (MeanVarianceNormalization): axis %lld out of range for rank %d",
                          n->name, (long long)axes[i], x->ndim);
        red[a] = 1;
    }
    return RT_OK;
}

static int grp_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int red[MODEL_MAX_DIMS];
    int rc = check_arity(n, 1, 1, 1, err, errlen);
    tensor_t *x = node_input(g, n, 0);
    if (rc || (rc = check_float(n, x, err, errlen)) || (rc = group_axes(n, x, red, err, errlen)))
        return rc;
    if (!strcmp(n->op, "LpNormalization")) {
        int64_t p = node_attr_int(n, "p", 2);
        if (p != 1 && p != 2)
            return rt_err(err, errlen, RT_EUNSUPPORTED,
                          "unsupported attribute p=%lld of op LpNormalization (1 or 2)", (long long)p);
    }
    tensor_set_shape(node_output(g, n, 0), DT_FLOAT, x->ndim, x->dims);
    return RT_OK;
}

typedef struct grp_job {
    const groups *gr;
    const float *x;
    float *y;
    int kind;   /* 0 MVN, 1 L1, 2 L2 */
} grp_job;

static void grp_range(void *arg, int64_t g0, int64_t g1)
{
    const grp_job *j = arg;
    const int64_t m = j->gr->group_size, *off = j->gr->off;
    for (int64_t gi = g0; gi < g1; gi++) {
        const float *x = j->x + j->gr->base[gi];
        float *y = j->y + j->gr->base[gi];
        if (j->kind == 0) {
            double s = 0, q = 0;
            for (int64_t i = 0; i < m; i++) {
                s += x[off[i]];
                q += (double)x[off[i]] * x[off[i]];
            }
            double mu = s / (double)m, var = q / (double)m - mu * mu;
            double den = sqrt(var > 0 ? var : 0) + 1e-9;
            for (int64_t i = 0; i < m; i++)
                y[off[i]] = (float)((x[off[i]] - mu) / den);
        } else {
            double nrm = 0;
            for (int64_t i = 0; i < m; i++)
                nrm += j->kind == 1 ? fabs(x[off[i]]) : (double)x[off[i]] * x[off[i]];
            if (j->kind == 2)
                nrm = sqrt(nrm);
            for (int64_t i = 0; i < m; i++)
                y[off[i]] = (float)(x[off[i]] / nrm);
        }
    }
}

static int grp_run(op_ctx *c, graph_t *g, node_t *n)
{
    int red[MODEL_MAX_DIMS];
    const tensor_t *x = node_input(g, n, 0);
    groups gr;
    if (tensor_numel(x) <= 0)
        return RT_OK;
    group_axes(n, x, red, c->err, c->errlen);
    groups_make(x, red, &gr);
    grp_job j = {.gr = &gr, .x = x->data, .y = node_output(g, n, 0)->data,
                 .kind = !strcmp(n->op, "LpNormalization") ? (int)node_attr_int(n, "p", 2) : 0};
    op_parallel_for_work(c, gr.n_groups, gr.group_size * 6, grp_range, &j);
    groups_free(&gr);
    return RT_OK;
}

/* ---- LRN: across channels, y = x / (bias + alpha / size * sum x^2)^beta ---- */

static int lrn_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 1, 1, err, errlen);
    tensor_t *x = node_input(g, n, 0);
    if (rc || (rc = check_float(n, x, err, errlen)))
        return rc;
    if (x->ndim < 3)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (LRN): input rank %d < 3", n->name, x->ndim);
    if (node_attr_int(n, "size", 0) < 1)
        return rt_err(err, errlen, RT_EINVAL, "node '%s' (LRN): attribute size must be >= 1", n->name);
    tensor_set_shape(node_output(g, n, 0), DT_FLOAT, x->ndim, x->dims);
    return RT_OK;
}

typedef struct lrn_job {
    const float *x;
    float *y;
    int64_t C, inner, size;
    double alpha, beta, bias;
} lrn_job;

static void lrn_range(void *arg, int64_t t0, int64_t t1)
{
    const lrn_job *j = arg;
    int64_t lo = (j->size - 1) / 2, hi = j->size - 1 - lo; /* floor below, ceil above */
    for (int64_t t = t0; t < t1; t++) {
        int64_t b = t / j->C, ch = t % j->C;
        int64_t c0 = ch - lo < 0 ? 0 : ch - lo, c1 = ch + hi >= j->C ? j->C - 1 : ch + hi;
        const float *xb = j->x + b * j->C * j->inner;
        for (int64_t i = 0; i < j->inner; i++) {
            double s = 0;
            for (int64_t k = c0; k <= c1; k++)
                s += (double)xb[k * j->inner + i] * xb[k * j->inner + i];
            j->y[t * j->inner + i] =
                (float)(xb[ch * j->inner + i] / pow(j->bias + j->alpha / (double)j->size * s, j->beta));
        }
    }
}

static int lrn_run(op_ctx *c, graph_t *g, node_t *n)
{
    const tensor_t *x = node_input(g, n, 0);
    lrn_job j = {.x = x->data, .y = node_output(g, n, 0)->data, .C = x->dims[1],
                 .inner = dims_prod(x->dims, 2, x->ndim), .size = node_attr_int(n, "size", 1),
                 .alpha = node_attr_float(n, "alpha", 1e-4f), .beta = node_attr_float(n, "beta", 0.75f),
                 .bias = node_attr_float(n, "bias", 1.0f)};
    int64_t nc = x->dims[0] * x->dims[1];
    if (nc > 0 && j.inner > 0)
        op_parallel_for_work(c, nc, j.inner * j.size * 4, lrn_range, &j);
    return RT_OK;
}

const op_def exec_ops_normalize[] = {
    {"LayerNormalization", "", ln_infer, NULL, ln_run, NULL, NULL},
    {"InstanceNormalization", "", in_infer, NULL, in_run, NULL, NULL},
    {"MeanVarianceNormalization", "", grp_infer, NULL, grp_run, NULL, NULL},
    {"LpNormalization", "", grp_infer, NULL, grp_run, NULL, NULL},
    {"LRN", "", lrn_infer, NULL, lrn_run, NULL, NULL},
    {0},
};
