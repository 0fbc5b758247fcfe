/* runtime/exec/ops_index.c — ops that place elements by index: EyeLike,
 * ReverseSequence, ScatterND and MaxUnpool. They move values without
 * arithmetic (ScatterND's reductions aside), so they work on any fixed-size
 * dtype through memcpy of element-sized blocks. */
#include "runtime/exec/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Element i of a numeric tensor set from a double (the dtypes ScatterND
 * reduces and EyeLike writes). */
static void put_f64(tensor_t *t, int64_t i, double v)
{
    void *p = t->data;
    switch (t->dtype) {
    case DT_FLOAT: ((float *)p)[i] = (float)v; break;
    case DT_DOUBLE: ((double *)p)[i] = v; break;
    case DT_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
    case DT_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case DT_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case DT_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case DT_UINT8: case DT_BOOL: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case DT_UINT16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case DT_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case DT_UINT64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    }
}

static int numeric(int dt)
{
    return dt == DT_FLOAT || dt == DT_DOUBLE || dt == DT_INT64 || dt == DT_INT32 ||
           dt == DT_INT16 || dt == DT_INT8 || dt == DT_UINT8 || dt == DT_BOOL ||
           dt == DT_UINT16 || dt == DT_UINT32 || dt == DT_UINT64;
}

/* ---- EyeLike: ones on diagonal k of a 2-D tensor --------------------------- */

static int eye_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 1, 1, err, errlen);
    tensor_t *x = node_input(g, n, 0);
    if (rc)
        return rc;
    if (x->ndim != 2)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (EyeLike): input rank %d, must be 2",
                      n->name, x->ndim);
    int dt = (int)node_attr_int(n, "dtype", x->dtype);
    if (!numeric(dt))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "unsupported attribute dtype=%d of op EyeLike", dt);
    tensor_set_shape(node_output(g, n, 0), dt, 2, x->dims);
    return RT_OK;
}

static int eye_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *y = node_output(g, n, 0);
    int64_t k = node_attr_int(n, "k", 0), R = y->dims[0], C = y->dims[1];
    memset(y->data, 0, tensor_nbytes(y));
    for (int64_t r = 0; r < R; r++)
        if (r + k >= 0 && r + k < C)
            put_f64(y, r * C + r + k, 1);
    return RT_OK;
}

/* ---- ReverseSequence: the first seq_lens[b] steps of each batch reversed --- */

static int rs_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 2, 2, 1, err, errlen);
    tensor_t *x = node_input(g, n, 0), *l = node_input(g, n, 1);
    if (rc)
        return rc;
    int64_t ba = node_attr_int(n, "batch_axis", 1), ta = node_attr_int(n, "time_axis", 0);
    if (!((ba == 0 && ta == 1) || (ba == 1 && ta == 0)))
        return rt_err(err, errlen, RT_EUNSUPPORTED,
                      "unsupported attribute batch_axis=%lld, time_axis=%lld of op ReverseSequence "
                      "(0 and 1, either way)", (long long)ba, (long long)ta);
    if (x->ndim < 2 || !dtype_size(x->dtype))
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (ReverseSequence): input rank %d < 2",
                      n->name, x->ndim);
    if (l->dtype != DT_INT64 || tensor_numel(l) != x->dims[ba])
        return rt_err(err, errlen, RT_ESHAPE,
                      "node '%s' (ReverseSequence): sequence_lens must be int64 with one value per batch",
                      n->name);
    tensor_set_shape(node_output(g, n, 0), x->dtype, x->ndim, x->dims);
    return RT_OK;
}

static int rs_run(op_ctx *c, graph_t *g, node_t *n)
{
    const tensor_t *x = node_input(g, n, 0), *l = node_input(g, n, 1);
    tensor_t *y = node_output(g, n, 0);
    int ba = (int)node_attr_int(n, "batch_axis", 1), ta = 1 - ba;
    int64_t B = x->dims[ba], T = x->dims[ta];
    size_t blk = dtype_size(x->dtype) * (size_t)dims_prod(x->dims, 2, x->ndim);
    /* block (t, b) starts at (t * B + b) or (b * T + t) blocks */
    for (int64_t b = 0; b < B; b++) {
        int64_t len = ((const int64_t *)l->data)[b];
        if (len < 0 || len > T)
            return rt_err(c->err, c->errlen, RT_EINVAL,
                          "node '%s' (ReverseSequence): sequence_lens[%lld] = %lld outside [0, %lld]",
                          n->name, (long long)b, (long long)len, (long long)T);
        for (int64_t t = 0; t < T; t++) {
            int64_t from = t < len ? len - 1 - t : t;
            int64_t dst = ta == 0 ? t * B + b : b * T + t, src = ta == 0 ? from * B + b : b * T + from;
            memcpy((char *)y->data + (size_t)dst * blk, (const char *)x->data + (size_t)src * blk, blk);
        }
    }
    return RT_OK;
}

/* ---- ScatterND: data with slices replaced (or reduced) at index tuples ----- */

enum { SR_NONE, SR_ADD, SR_MUL, SR_MAX, SR_MIN };

static int sn_reduction(const node_t *n, int *r)
{
    const char *s = node_attr_str(n, "reduction", "none");
    static const char *names[] = {"none", "add", "mul", "max", "min"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(s, names[i])) {
            *r = i;
            return 0;
        }
    return -1;
}

static int sn_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 3, 3, 1, err, errlen), red;
    tensor_t *d = node_input(g, n, 0), *ix = node_input(g, n, 1), *u = node_input(g, n, 2);
    if (rc)
        return rc;
    if (sn_reduction(n, &red))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "unsupported attribute reduction=%s of op ScatterND",
                      node_attr_str(n, "reduction", ""));
    if (!dtype_size(d->dtype) || (red != SR_NONE && !numeric(d->dtype)))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (ScatterND): dtype %s", n->name,
                      dtype_name(d->dtype));
    if (ix->dtype != DT_INT64 || ix->ndim < 1)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (ScatterND): indices must be int64, rank >= 1",
                      n->name);
    int64_t k = ix->dims[ix->ndim - 1];
    /* updates: indices.shape[:-1] + data.shape[k:] */
    if (k < 1 || k > d->ndim || u->dtype != d->dtype || u->ndim != ix->ndim - 1 + d->ndim - (int)k)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (ScatterND): updates shape does not match",
                      n->name);
    for (int i = 0; i < ix->ndim - 1; i++)
        if (u->dims[i] != ix->dims[i])
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (ScatterND): updates shape does not match",
                          n->name);
    for (int i = (int)k; i < d->ndim; i++)
        if (u->dims[ix->ndim - 1 + i - (int)k] != d->dims[i])
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (ScatterND): updates shape does not match",
                          n->name);
    tensor_set_shape(node_output(g, n, 0), d->dtype, d->ndim, d->dims);
    return RT_OK;
}

static int sn_run(op_ctx *c, graph_t *g, node_t *n)
{
    const tensor_t *d = node_input(g, n, 0), *ix = node_input(g, n, 1), *u = node_input(g, n, 2);
    tensor_t *y = node_output(g, n, 0);
    int red = SR_NONE;
    sn_reduction(n, &red);
    int64_t k = ix->dims[ix->ndim - 1], slice = dims_prod(d->dims, (int)k, d->ndim);
    int64_t n_ix = tensor_numel(ix) / k;
    size_t es = dtype_size(d->dtype);
    memcpy(y->data, d->data, tensor_nbytes(y));
    for (int64_t q = 0; q < n_ix; q++) {
        int64_t off = 0;
        for (int64_t a = 0; a < k; a++) {
            int64_t v = ((const int64_t *)ix->data)[q * k + a], dim = d->dims[a];
            if (v < 0)
                v += dim;
            if (v < 0 || v >= dim)
                return rt_err(c->err, c->errlen, RT_EINVAL,
                              "node '%s' (ScatterND): index %lld out of range for axis %lld of size %lld",
                              n->name, (long long)((const int64_t *)ix->data)[q * k + a], (long long)a,
                              (long long)dim);
            off = off * dim + v;
        }
        off *= slice;
        if (red == SR_NONE) {
            memcpy((char *)y->data + (size_t)off * es, (const char *)u->data + (size_t)(q * slice) * es,
                   (size_t)slice * es);
            continue;
        }
        for (int64_t e = 0; e < slice; e++) {
            double a = tensor_get_f64(y, off + e), b = tensor_get_f64(u, q * slice + e);
            double r = red == SR_ADD ? a + b : red == SR_MUL ? a * b : red == SR_MAX ? fmax(a, b) : fmin(a, b);
            put_f64(y, off + e, r);
        }
    }
    return RT_OK;
}

/* ---- MaxUnpool: Y[I[i]] = X[i] over a zeroed output ----------------------- */

/* The output shape pooling would have come from (`inferred`), and the output's:
 * output_shape when given, else the same. Indices are flat positions in the
 * inferred shape; a larger output_shape keeps their coordinates (onnx's
 * reference and onnxruntime agree: the extra rows and columns stay zero). */
static int mu_shapes(graph_t *g, const node_t *n, int64_t *inferred, int64_t *out, char *err,
                     size_t errlen)
{
    const tensor_t *x = node_input(g, n, 0);
    int sp = x->ndim - 2;
    node_window w;
    int rc = node_window_read(n, sp, NULL, NULL, &w, err, errlen);
    if (rc)
        return rc;
    inferred[0] = x->dims[0];
    inferred[1] = x->dims[1];
    for (int i = 0; i < sp; i++) {
        int a = 3 - sp + i;
        inferred[2 + i] = (x->dims[2 + i] - 1) * w.s[a] - (w.pb[a] + w.pe[a]) + w.k[a];
    }
    memcpy(out, inferred, sizeof(int64_t) * (size_t)x->ndim);
    if (node_input(g, n, 2)) {
        int m = node_const_ints(g, n, 2, "output_shape", out, MODEL_MAX_DIMS, err, errlen);
        if (m < 0)
            return m;
        if (m != x->ndim)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (MaxUnpool): output_shape has %d values for rank %d",
                          n->name, m, x->ndim);
        for (int i = 0; i < m; i++)
            if (out[i] < inferred[i])
                return rt_err(err, errlen, RT_ESHAPE,
                              "node '%s' (MaxUnpool): output_shape is smaller than the pooled input's",
                              n->name);
    }
    return RT_OK;
}

static int mu_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int64_t inf[MODEL_MAX_DIMS], out[MODEL_MAX_DIMS];
    int rc = check_arity(n, 2, 3, 1, err, errlen);
    tensor_t *x = node_input(g, n, 0), *ix = node_input(g, n, 1);
    if (rc)
        return rc;
    if (x->ndim < 3 || !dtype_size(x->dtype))
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (MaxUnpool): input rank %d < 3", n->name, x->ndim);
    if (ix->dtype != DT_INT64 || tensor_numel(ix) != tensor_numel(x))
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (MaxUnpool): indices must be int64 shaped as X",
                      n->name);
    if ((rc = mu_shapes(g, n, inf, out, err, errlen)))
        return rc;
    tensor_set_shape(node_output(g, n, 0), x->dtype, x->ndim, out);
    return RT_OK;
}

static int mu_run(op_ctx *c, graph_t *g, node_t *n)
{
    const tensor_t *x = node_input(g, n, 0), *ix = node_input(g, n, 1);
    tensor_t *y = node_output(g, n, 0);
    int64_t inf[MODEL_MAX_DIMS], out[MODEL_MAX_DIMS];
    int64_t total, cnt = tensor_numel(x);
    size_t es = dtype_size(x->dtype);
    int rc = mu_shapes(g, n, inf, out, c->err, c->errlen);
    if (rc)
        return rc;
    total = dims_prod(inf, 0, x->ndim);
    memset(y->data, 0, tensor_nbytes(y));
    for (int64_t i = 0; i < cnt; i++) {
        int64_t at = ((const int64_t *)ix->data)[i], to = 0, rest = at;
        if (at < 0 || at >= total)
            return rt_err(c->err, c->errlen, RT_EINVAL,
                          "node '%s' (MaxUnpool): index %lld outside the pooled shape's %lld elements",
                          n->name, (long long)at, (long long)total);
        /* coordinates in the inferred shape, position in the output's */
        int64_t mul = 1;
        for (int d = x->ndim - 1; d >= 0; d--) {
            to += (rest % inf[d]) * mul;
            rest /= inf[d];
            mul *= out[d];
        }
        memcpy((char *)y->data + (size_t)to * es, (const char *)x->data + (size_t)i * es, es);
    }
    return RT_OK;
}

const op_def exec_ops_index[] = {
    {"EyeLike", "", eye_infer, NULL, eye_run, NULL, NULL},
    {"ReverseSequence", "", rs_infer, NULL, rs_run, NULL, NULL},
    {"ScatterND", "", sn_infer, NULL, sn_run, NULL, NULL},
    {"MaxUnpool", "", mu_infer, NULL, mu_run, NULL, NULL},
    {0},
};
