/* runtime/exec/ops_reduce.c — reductions (Reduce*), ArgMax/ArgMin and the
 * softmax family (Softmax, LogSoftmax, Hardmax).
 *
 * Reductions accumulate in double: they are rare in CNNs, and it keeps sums of
 * large tensors and int64 shape arithmetic exact enough. */
#include "runtime/exec/kernels.h"

#include <float.h>
#include <math.h>
#include <string.h>

static void contig_strides(int nd, const int64_t *dims, int64_t *st)
{
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; i--) {
        st[i] = s;
        s *= dims[i];
    }
}

static inline double ldv(const void *p, int dt, int64_t i)
{
    switch (dt) {
    case DT_FLOAT: return ((const float *)p)[i];
    case DT_DOUBLE: return ((const double *)p)[i];
    case DT_INT64: return (double)((const int64_t *)p)[i];
    case DT_INT32: return ((const int32_t *)p)[i];
    case DT_INT8: return ((const int8_t *)p)[i];
    case DT_UINT8: case DT_BOOL: return ((const uint8_t *)p)[i];
    case DT_INT16: return ((const int16_t *)p)[i];
    case DT_UINT16: return ((const uint16_t *)p)[i];
    case DT_UINT32: return ((const uint32_t *)p)[i];
    case DT_UINT64: return (double)((const uint64_t *)p)[i];
    }
    return 0;
}

static void stv(void *p, int dt, int64_t i, double v)
{
    switch (dt) {
    case DT_FLOAT: ((float *)p)[i] = (float)v; break;
    case DT_DOUBLE: ((double *)p)[i] = v; break;
    case DT_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
    case DT_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case DT_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case DT_UINT8: case DT_BOOL: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case DT_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case DT_UINT16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case DT_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case DT_UINT64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    }
}

static int numeric(int dt)
{
    return dt == DT_FLOAT || dt == DT_DOUBLE || dt == DT_INT64 || dt == DT_INT32 ||
           dt == DT_INT8 || dt == DT_UINT8 || dt == DT_INT16 || dt == DT_UINT16 ||
           dt == DT_UINT32 || dt == DT_UINT64;
}

/* ---- Reduce* ------------------------------------------------------------- */

enum { R_SUM, R_MEAN, R_MAX, R_MIN, R_PROD, R_L1, R_L2, R_LOGSUM, R_LOGSUMEXP, R_SUMSQ };

static const struct { const char *op; int kind; } rkinds[] = {
    { "ReduceSum", R_SUM }, { "ReduceMean", R_MEAN }, { "ReduceMax", R_MAX },
    { "ReduceMin", R_MIN }, { "ReduceProd", R_PROD }, { "ReduceL1", R_L1 },
    { "ReduceL2", R_L2 }, { "ReduceLogSum", R_LOGSUM }, { "ReduceLogSumExp", R_LOGSUMEXP },
    { "ReduceSumSquare", R_SUMSQ },
};

static int rkind(const char *op)
{
    for (size_t i = 0; i < sizeof(rkinds) / sizeof(rkinds[0]); i++)
        if (!strcmp(rkinds[i].op, op))
            return rkinds[i].kind;
    return -1;
}

/* Which axes are reduced (red[]), or *noop when the op is the identity.
 * Axes come from the attribute (older opsets) or constant input 1. */
static int reduce_axes(graph_t *g, const node_t *n, int r, int *red, int *noop, char *err,
                       size_t errlen)
{
    const int64_t *a;
    int64_t v[MODEL_MAX_DIMS];
    int k = node_attr_ints(n, "axes", &a);
    tensor_t *t = node_input(g, n, 1);

    *noop = 0;
    if (k >= 0) {
        if (k > MODEL_MAX_DIMS)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): too many axes", n->name, n->op);
        memcpy(v, a, (size_t)k * sizeof(int64_t));
    } else if (t) {
        int64_t m = tensor_numel(t);
        if (t->kind != TK_CONST || (!t->data && m > 0))
            return rt_err(err, errlen, RT_EUNSUPPORTED,
                          "node '%s' (%s): axes input is not constant", n->name, n->op);
        if (m > MODEL_MAX_DIMS)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): too many axes", n->name, n->op);
        k = (int)m;
        for (int i = 0; i < k; i++)
            v[i] = tensor_get_int(t, i);
    } else {
        k = 0;
    }
    for (int i = 0; i < r; i++)
        red[i] = k == 0;
    if (k == 0 && node_attr_int(n, "noop_with_empty_axes", 0)) {
        *noop = 1;
        for (int i = 0; i < r; i++)
            red[i] = 0;
        return RT_OK;
    }
    for (int i = 0; i < k; i++) {
        int ax = norm_axis(v[i], r);
        if (ax < 0)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): axis %lld out of range for rank %d",
                          n->name, n->op, (long long)v[i], r);
        red[ax] = 1;
    }
    return RT_OK;
}

static int reduce_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 2, 1, err, errlen), red[MODEL_MAX_DIMS], noop, nd = 0;
    int keep = (int)node_attr_int(n, "keepdims", 1);
    int64_t d[MODEL_MAX_DIMS];
    tensor_t *x;

    if (rc)
        return rc;
    x = node_input(g, n, 0);
    if (!numeric(x->dtype))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): dtype %s", n->name, n->op,
                      dtype_name(x->dtype));
    rc = reduce_axes(g, n, x->ndim, red, &noop, err, errlen);
    if (rc)
        return rc;
    for (int i = 0; i < x->ndim; i++) {
        if (!red[i])
            d[nd++] = x->dims[i];
        else if (keep)
            d[nd++] = 1;
    }
    tensor_set_shape(node_output(g, n, 0), x->dtype, nd, d);
    return RT_OK;
}

static int reduce_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *x = node_input(g, n, 0), *y = node_output(g, n, 0);
    int red[MODEL_MAX_DIMS], noop, r = x->ndim, kind = rkind(n->op), dt = x->dtype;
    int64_t ist[MODEL_MAX_DIMS], kd[MODEL_MAX_DIMS], ks[MODEL_MAX_DIMS];
    int64_t rd[MODEL_MAX_DIMS], rs[MODEL_MAX_DIMS], nk = 0, nr = 0, R = 1;
    int64_t m = tensor_numel(y);
    int rc = reduce_axes(g, n, r, red, &noop, c->err, c->errlen);

    if (rc)
        return rc;
    if (noop) {
        memcpy(y->data, x->data, tensor_nbytes(y));
        return RT_OK;
    }
    contig_strides(r, x->dims, ist);
    for (int i = 0; i < r; i++) {
        if (red[i]) {
            rd[nr] = x->dims[i];
            rs[nr++] = ist[i];
            R *= x->dims[i];
        } else {
            kd[nk] = x->dims[i];
            ks[nk++] = ist[i];
        }
    }
    /* Merge reduced dims that are contiguous so the inner loop is long. */
    int64_t md[MODEL_MAX_DIMS], ms[MODEL_MAX_DIMS];
    int mn = 0;
    for (int i = 0; i < nr; i++) {
        if (mn > 0 && ms[mn - 1] == rs[i] * rd[i]) {
            md[mn - 1] *= rd[i];
            ms[mn - 1] = rs[i];
        } else {
            md[mn] = rd[i];
            ms[mn++] = rs[i];
        }
    }
    int64_t L = mn ? md[mn - 1] : 1, Ls = mn ? ms[mn - 1] : 0, outer_r = L ? R / L : 0;

    for (int64_t o = 0; o < m; o++) {
        int64_t base = 0, t = o;
        for (int i = (int)nk - 1; i >= 0; i--) {
            base += (t % kd[i]) * ks[i];
            t /= kd[i];
        }
        double acc, mx = -INFINITY;
        switch (kind) {
        case R_PROD: acc = 1; break;
        case R_MAX: acc = -INFINITY; break;
        case R_MIN: acc = INFINITY; break;
        default: acc = 0;
        }
        for (int pass = 0; pass < (kind == R_LOGSUMEXP ? 2 : 1); pass++) {
            for (int64_t q = 0; q < outer_r; q++) {
                int64_t off = base, u = q;
                for (int i = mn - 2; i >= 0; i--) {
                    off += (u % md[i]) * ms[i];
                    u /= md[i];
                }
                for (int64_t l = 0; l < L; l++) {
                    double v = ldv(x->data, dt, off + l * Ls);
                    switch (kind) {
                    case R_SUM: case R_MEAN: acc += v; break;
                    case R_MAX: if (v > acc || v != v) acc = v; break;
                    case R_MIN: if (v < acc || v != v) acc = v; break;
                    case R_PROD: acc *= v; break;
                    case R_L1: acc += fabs(v); break;
                    case R_L2: case R_SUMSQ: acc += v * v; break;
                    case R_LOGSUM: acc += v; break;
                    case R_LOGSUMEXP:
                        if (pass == 0) {
                            if (v > mx)
                                mx = v;
                        } else {
                            acc += exp(v - mx);
                        }
                        break;
                    }
                }
            }
            if (kind == R_LOGSUMEXP && pass == 0 && isinf(mx))
                mx = 0;
        }
        switch (kind) {
        case R_MEAN: acc = R ? acc / (double)R : NAN; break;
        case R_L2: acc = sqrt(acc); break;
        case R_LOGSUM: acc = log(acc); break;
        case R_LOGSUMEXP: acc = mx + log(acc); break;
        }
        stv(y->data, y->dtype, o, acc);
    }
    return RT_OK;
}

/* ---- ArgMax / ArgMin ----------------------------------------------------- */

static int arg_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 1, 1, err, errlen), axis, nd = 0;
    int keep = (int)node_attr_int(n, "keepdims", 1);
    int64_t d[MODEL_MAX_DIMS];
    tensor_t *x;

    if (rc)
        return rc;
    x = node_input(g, n, 0);
    axis = norm_axis(node_attr_int(n, "axis", 0), x->ndim);
    if (axis < 0 || !numeric(x->dtype))
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): bad axis or dtype", n->name, n->op);
    for (int i = 0; i < x->ndim; i++) {
        if (i != axis)
            d[nd++] = x->dims[i];
        else if (keep)
            d[nd++] = 1;
    }
    tensor_set_shape(node_output(g, n, 0), DT_INT64, nd, d);
    return RT_OK;
}

static int arg_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *x = node_input(g, n, 0), *y = node_output(g, n, 0);
    int axis = norm_axis(node_attr_int(n, "axis", 0), x->ndim);
    int last = (int)node_attr_int(n, "select_last_index", 0), mx = !strcmp(n->op, "ArgMax");
    int64_t outer = dims_prod(x->dims, 0, axis), L = x->dims[axis], inner = dims_prod(x->dims, axis + 1, x->ndim);
    int64_t *o = y->data;

    for (int64_t a = 0; a < outer; a++)
        for (int64_t i = 0; i < inner; i++) {
            int64_t best = 0;
            double bv = ldv(x->data, x->dtype, a * L * inner + i);
            for (int64_t l = 1; l < L; l++) {
                double v = ldv(x->data, x->dtype, (a * L + l) * inner + i);
                int better = mx ? (last ? v >= bv : v > bv) : (last ? v <= bv : v < bv);
                if (better) {
                    bv = v;
                    best = l;
                }
            }
            o[a * inner + i] = best;
        }
    return RT_OK;
}

/* ---- Softmax / LogSoftmax / Hardmax -------------------------------------- */

typedef struct sm_job {
    const tensor_t *x;
    tensor_t *y;
    int64_t L, inner;
    int kind; /* 0 softmax, 1 log-softmax, 2 hardmax */
} sm_job;

static void sm_range(void *arg, int64_t b, int64_t e)
{
    const sm_job *j = arg;
    int64_t L = j->L, in = j->inner;
    for (int64_t t = b; t < e; t++) {
        /* rows along the last axis (in == 1) need no division */
        int64_t base = in == 1 ? t * L : (t / in) * L * in + t % in;
        if (j->x->dtype == DT_FLOAT) {
            const float *x = (const float *)j->x->data + base;
            float *y = (float *)j->y->data + base;
            float mx = x[0];
            int64_t arg = 0;
            for (int64_t l = 1; l < L; l++)
                if (x[l * in] > mx) {
                    mx = x[l * in];
                    arg = l;
                }
            if (j->kind == 2) {
                for (int64_t l = 0; l < L; l++)
                    y[l * in] = l == arg;
                continue;
            }
            double s = 0;
            for (int64_t l = 0; l < L; l++) {
                float v = expf(x[l * in] - mx);
                if (j->kind == 0)
                    y[l * in] = v;
                s += v;
            }
            if (j->kind == 0) {
                float inv = (float)(1.0 / s);
                for (int64_t l = 0; l < L; l++)
                    y[l * in] *= inv;
            } else {
                float ls = (float)log(s);
                for (int64_t l = 0; l < L; l++)
                    y[l * in] = x[l * in] - mx - ls;
            }
        } else {
            const double *x = (const double *)j->x->data + base;
            double *y = (double *)j->y->data + base;
            double mx = x[0], s = 0;
            int64_t arg = 0;
            for (int64_t l = 1; l < L; l++)
                if (x[l * in] > mx) {
                    mx = x[l * in];
                    arg = l;
                }
            for (int64_t l = 0; l < L; l++)
                s += exp(x[l * in] - mx);
            for (int64_t l = 0; l < L; l++)
                y[l * in] = j->kind == 2 ? (l == arg)
                          : j->kind == 0 ? exp(x[l * in] - mx) / s
                                         : x[l * in] - mx - log(s);
        }
    }
}

/* Softmax before opset 13 coerces the input to 2-D at `axis` (default 1);
 * from 13 it works along `axis` (default -1). */
static int sm_layout(const graph_t *g, const node_t *n, const tensor_t *x, int64_t *outer,
                     int64_t *L, int64_t *inner)
{
    int old = g->opset > 0 && g->opset < 13;
    int r = x->ndim;
    int64_t ax = node_attr_int(n, "axis", old ? 1 : -1);
    if (r == 0) {
        *outer = *L = *inner = 1;
        return 0;
    }
    if (old) {
        if (ax < 0)
            ax += r;
        if (ax < 0 || ax > r)
            return -1;
        *outer = dims_prod(x->dims, 0, (int)ax);
        *L = dims_prod(x->dims, (int)ax, r);
        *inner = 1;
        return 0;
    }
    int a = norm_axis(ax, r);
    if (a < 0)
        return -1;
    *outer = dims_prod(x->dims, 0, a);
    *L = x->dims[a];
    *inner = dims_prod(x->dims, a + 1, r);
    return 0;
}

static int sm_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 1, 1, err, errlen);
    int64_t o, l, i;
    tensor_t *x;
    if (rc)
        return rc;
    x = node_input(g, n, 0);
    if (x->dtype != DT_FLOAT && x->dtype != DT_DOUBLE)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): dtype %s", n->name, n->op,
                      dtype_name(x->dtype));
    if (sm_layout(g, n, x, &o, &l, &i))
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): axis out of range for rank %d",
                      n->name, n->op, x->ndim);
    tensor_set_shape(node_output(g, n, 0), x->dtype, x->ndim, x->dims);
    return RT_OK;
}

static int sm_run(op_ctx *c, graph_t *g, node_t *n)
{
    sm_job j;
    int64_t outer;
    j.x = node_input(g, n, 0);
    j.y = node_output(g, n, 0);
    sm_layout(g, n, j.x, &outer, &j.L, &j.inner);
    j.kind = !strcmp(n->op, "Softmax") ? 0 : !strcmp(n->op, "LogSoftmax") ? 1 : 2;
    if (tensor_numel(j.y) <= 0 || j.L <= 0)
        return RT_OK;
    op_parallel_for_work(c, outer * j.inner, j.L * 8, sm_range, &j);
    return RT_OK;
}

#define R(op) { op, "", reduce_infer, NULL, reduce_run, NULL, NULL }
const op_def exec_ops_reduce[] = {
    R("ReduceSum"), R("ReduceMean"), R("ReduceMax"), R("ReduceMin"), R("ReduceProd"),
    R("ReduceL1"), R("ReduceL2"), R("ReduceLogSum"), R("ReduceLogSumExp"),
    R("ReduceSumSquare"),
    { "ArgMax", "", arg_infer, NULL, arg_run, NULL, NULL },
    { "ArgMin", "", arg_infer, NULL, arg_run, NULL, NULL },
    { "Softmax", "", sm_infer, NULL, sm_run, NULL, NULL },
    { "LogSoftmax", "", sm_infer, NULL, sm_run, NULL, NULL },
    { "Hardmax", "", sm_infer, NULL, sm_run, NULL, NULL },
    { NULL, NULL, NULL, NULL, NULL, NULL, NULL },
};
#undef R
