/* runtime/exec/ops_shape.c — ops that change a tensor's shape or type but not the
 * order of its elements: Reshape Flatten Squeeze Unsqueeze Identity Dropout (a copy),
 * Shape Size ConstantOfShape Range (from shapes and scalars), Cast CastLike (conversion). */
#include "runtime/exec/kernels.h"

#include <math.h>
#include <string.h>

/* Values of constant integer input i into v (at most max); returns the count or a
 * negative status. Shapes here must be known at load time. */
/* Axes from the `axes` attribute (older opsets) or input 1 (opset 13+). Returns the
 * count, 0 when absent, or a negative status. */
static int get_axes(graph_t *g, const node_t *n, int64_t *v, char *err, size_t errlen)
{
    const int64_t *a;
    int k = node_attr_ints(n, "axes", &a);
    if (k >= 0) {
        if (k > MODEL_MAX_DIMS)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): too many axes", n->name, n->op);
        memcpy(v, a, (size_t)k * sizeof(int64_t));
        return k;
    }
    if (node_input(g, n, 1))
        return node_const_ints(g, n, 1, "axes", v, MODEL_MAX_DIMS, err, errlen);
    return 0;
}

static int copy_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *x = node_input(g, n, 0), *y = node_output(g, n, 0);
    size_t nb = tensor_nbytes(y);
    if (nb && y->data != x->data)
        memcpy(y->data, x->data, nb);
    return RT_OK;
}

/* ---- Reshape ------------------------------------------------------------- */

static int reshape_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 2, 1, err, errlen), k, neg = -1;
    int64_t s[MODEL_MAX_DIMS], known = 1, total;
    tensor_t *x;
    int allowzero = (int)node_attr_int(n, "allowzero", 0);

    if (rc)
        return rc;
    x = node_input(g, n, 0);
    if (node_input(g, n, 1)) {
        k = node_const_ints(g, n, 1, "shape", s, MODEL_MAX_DIMS, err, errlen);
    } else {
        /* Reshape-1 had a `shape` attribute. */
        const int64_t *a;
        k = node_attr_ints(n, "shape", &a);
        if (k < 0 || k > MODEL_MAX_DIMS)
            return rt_err(err, errlen, RT_EFORMAT, "node '%s' (Reshape): no shape", n->name);
        memcpy(s, a, (size_t)k * sizeof(int64_t));
    }
    if (k < 0)
        return k;
    total = tensor_numel(x);
    for (int i = 0; i < k; i++) {
        if (s[i] == 0 && !allowzero) {
            if (i >= x->ndim)
                return rt_err(err, errlen, RT_ESHAPE,
                              "node '%s' (Reshape): 0 at position %d but input has rank %d",
                              n->name, i, x->ndim);
            s[i] = x->dims[i];
        }
        if (s[i] == -1) {
            if (neg >= 0)
                return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Reshape): more than one -1",
                              n->name);
            neg = i;
        } else if (s[i] < 0) {
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Reshape): bad dimension %lld",
                          n->name, (long long)s[i]);
        } else if (__builtin_mul_overflow(known, s[i], &known)) {
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Reshape): shape too large",
                          n->name);
        }
    }
    if (neg >= 0) {
        if (known == 0 || total % known)
            return rt_err(err, errlen, RT_ESHAPE,
                          "node '%s' (Reshape): cannot infer -1 for %lld elements", n->name,
                          (long long)total);
        s[neg] = total / known;
        known *= s[neg];
    }
    if (known != total) {
        char b[128];
        return rt_err(err, errlen, RT_ESHAPE,
                      "node '%s' (Reshape): %s (%lld elements) cannot become %lld elements",
                      n->name, tensor_shape_str(x, b, sizeof(b)), (long long)total,
                      (long long)known);
    }
    tensor_set_shape(node_output(g, n, 0), x->dtype, k, s);
    return RT_OK;
}

/* ---- Flatten ------------------------------------------------------------- */

static int flatten_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 1, 1, err, errlen);
    int64_t axis = node_attr_int(n, "axis", 1), d[2] = { 1, 1 };
    tensor_t *x;

    if (rc)
        return rc;
    x = node_input(g, n, 0);
    if (axis < 0)
        axis += x->ndim;
    if (axis < 0 || axis > x->ndim)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Flatten): axis out of range for rank %d",
                      n->name, x->ndim);
    for (int i = 0; i < x->ndim; i++)
        d[i < axis ? 0 : 1] *= x->dims[i];
    tensor_set_shape(node_output(g, n, 0), x->dtype, 2, d);
    return RT_OK;
}

/* ---- Squeeze / Unsqueeze ------------------------------------------------- */

static int squeeze_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 2, 1, err, errlen), k, nd = 0;
    int64_t ax[MODEL_MAX_DIMS], d[MODEL_MAX_DIMS];
    int drop[MODEL_MAX_DIMS] = { 0 };
    tensor_t *x;

    if (rc)
        return rc;
    x = node_input(g, n, 0);
    k = get_axes(g, n, ax, err, errlen);
    if (k < 0)
        return k;
    for (int i = 0; i < k; i++) {
        int a = norm_axis(ax[i], x->ndim);
        if (a < 0)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Squeeze): axis %lld out of range",
                          n->name, (long long)ax[i]);
        if (x->dims[a] != 1)
            return rt_err(err, errlen, RT_ESHAPE,
                          "node '%s' (Squeeze): dimension %d is %lld, not 1", n->name, a,
                          (long long)x->dims[a]);
        drop[a] = 1;
    }
    for (int i = 0; i < x->ndim; i++) {
        if (k == 0 ? x->dims[i] == 1 : drop[i])
            continue;
        d[nd++] = x->dims[i];
    }
    tensor_set_shape(node_output(g, n, 0), x->dtype, nd, d);
    return RT_OK;
}

static int unsqueeze_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 2, 1, err, errlen), k, nd, j = 0;
    int64_t ax[MODEL_MAX_DIMS], d[MODEL_MAX_DIMS];
    int ins[MODEL_MAX_DIMS] = { 0 };
    tensor_t *x;

    if (rc)
        return rc;
    x = node_input(g, n, 0);
    k = get_axes(g, n, ax, err, errlen);
    if (k < 0)
        return k;
    nd = x->ndim + k;
    if (k == 0 || nd > MODEL_MAX_DIMS)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Unsqueeze): %d axes for rank %d",
                      n->name, k, x->ndim);
    for (int i = 0; i < k; i++) {
        int a = norm_axis(ax[i], nd);
        if (a < 0 || ins[a])
            return rt_err(err, errlen, RT_ESHAPE,
                          "node '%s' (Unsqueeze): axis %lld out of range or repeated", n->name,
                          (long long)ax[i]);
        ins[a] = 1;
    }
    for (int i = 0; i < nd; i++)
        d[i] = ins[i] ? 1 : x->dims[j++];
    tensor_set_shape(node_output(g, n, 0), x->dtype, nd, d);
    return RT_OK;
}

/* ---- Identity / Dropout -------------------------------------------------- */

static int identity_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, !strcmp(n->op, "Dropout") ? 3 : 1, 1, err, errlen);
    tensor_t *x;
    if (rc)
        return rc;
    x = node_input(g, n, 0);
    if (!strcmp(n->op, "Dropout")) {
        /* Training mode drops at random: refuse rather than compute the wrong thing. */
        tensor_t *r = node_input(g, n, 1), *tm = node_input(g, n, 2);
        double ratio = r && tensor_is_const(r) ? tensor_get_f64(r, 0) : 0.5;
        if (tm && (!tensor_is_const(tm) || tensor_get_int(tm, 0)) && ratio != 0)
            return rt_err(err, errlen, RT_EUNSUPPORTED,
                          "node '%s' (Dropout): training mode is not supported", n->name);
    }
    tensor_set_shape(node_output(g, n, 0), x->dtype, x->ndim, x->dims);
    if (n->n_out > 1 && n->out[1] >= 0)
        tensor_set_shape(node_output(g, n, 1), DT_BOOL, x->ndim, x->dims);
    return RT_OK;
}

static int dropout_run(op_ctx *c, graph_t *g, node_t *n)
{
    /* Inference: the output is the input, the mask keeps everything. */
    copy_run(c, g, n);
    if (n->n_out > 1 && n->out[1] >= 0) {
        tensor_t *m = node_output(g, n, 1);
        memset(m->data, 1, tensor_nbytes(m));
    }
    return RT_OK;
}

/* ---- Shape / Size -------------------------------------------------------- */

static void shape_range(const node_t *n, int r, int64_t *start, int64_t *end)
{
    int64_t s = node_attr_int(n, "start", 0), e = node_attr_int(n, "end", r);
    if (s < 0)
        s += r;
    if (e < 0)
        e += r;
    s = s < 0 ? 0 : (s > r ? r : s);
    e = e < 0 ? 0 : (e > r ? r : e);
    *start = s;
    *end = e < s ? s : e;
}

static int shape_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 1, 1, err, errlen);
    int64_t s, e, d;
    tensor_t *x;
    if (rc)
        return rc;
    x = node_input(g, n, 0);
    if (!strcmp(n->op, "Size")) {
        tensor_set_shape(node_output(g, n, 0), DT_INT64, 0, NULL);
        return RT_OK;
    }
    shape_range(n, x->ndim, &s, &e);
    d = e - s;
    tensor_set_shape(node_output(g, n, 0), DT_INT64, 1, &d);
    return RT_OK;
}

static int shape_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *x = node_input(g, n, 0), *y = node_output(g, n, 0);
    int64_t *o = y->data, s, e;
    if (!strcmp(n->op, "Size")) {
        o[0] = tensor_numel(x);
        return RT_OK;
    }
    shape_range(n, x->ndim, &s, &e);
    for (int64_t i = s; i < e; i++)
        o[i - s] = x->dims[i];
    return RT_OK;
}

/* ---- ConstantOfShape ----------------------------------------------------- */

static int cos_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 1, 1, err, errlen), k;
    int64_t d[MODEL_MAX_DIMS];
    const attr_t *v = node_attr(n, "value");
    int dt = DT_FLOAT;

    if (rc)
        return rc;
    k = node_const_ints(g, n, 0, "shape", d, MODEL_MAX_DIMS, err, errlen);
    if (k < 0)
        return k;
    for (int i = 0; i < k; i++)
        if (d[i] < 0)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (ConstantOfShape): negative dimension",
                          n->name);
    if (v && v->type == ATTR_TENSOR && v->t) {
        if (tensor_numel(v->t) != 1 || !v->t->data)
            return rt_err(err, errlen, RT_EFORMAT,
                          "node '%s' (ConstantOfShape): value must hold one element", n->name);
        dt = v->t->dtype;
    }
    tensor_set_shape(node_output(g, n, 0), dt, k, d);
    return RT_OK;
}

static int cos_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *y = node_output(g, n, 0);
    const attr_t *v = node_attr(n, "value");
    int64_t m = tensor_numel(y);
    size_t es = dtype_size(y->dtype);
    char *o = y->data;

    if (!v || !v->t) {
        memset(o, 0, (size_t)m * es);
        return RT_OK;
    }
    for (int64_t i = 0; i < m; i++)
        memcpy(o + (size_t)i * es, v->t->data, es);
    return RT_OK;
}

/* ---- Cast ---------------------------------------------------------------- */

static float bf16_to_float(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint16_t float_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

static int is_float_dt(int dt)
{
    return dt == DT_FLOAT || dt == DT_DOUBLE || dt == DT_FLOAT16 || dt == DT_BFLOAT16;
}

static int cast_ok(int dt)
{
    return dt != DT_STRING && dtype_size(dt) > 0 && dt != DT_UNDEFINED;
}

static double ld_f(const void *p, int dt, int64_t i)
{
    switch (dt) {
    case DT_FLOAT: return ((const float *)p)[i];
    case DT_DOUBLE: return ((const double *)p)[i];
    case DT_FLOAT16: return rt_f16_to_f32(((const uint16_t *)p)[i]);
    case DT_BFLOAT16: return bf16_to_float(((const uint16_t *)p)[i]);
    }
    return 0;
}

static int64_t ld_i(const void *p, int dt, int64_t i)
{
    switch (dt) {
    case DT_INT8: return ((const int8_t *)p)[i];
    case DT_UINT8: case DT_BOOL: return ((const uint8_t *)p)[i];
    case DT_INT16: return ((const int16_t *)p)[i];
    case DT_UINT16: return ((const uint16_t *)p)[i];
    case DT_INT32: return ((const int32_t *)p)[i];
    case DT_UINT32: return ((const uint32_t *)p)[i];
    case DT_INT64: return ((const int64_t *)p)[i];
    case DT_UINT64: return (int64_t)((const uint64_t *)p)[i];
    }
    return 0;
}

static void st_i(void *p, int dt, int64_t i, int64_t v)
{
    switch (dt) {
    case DT_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case DT_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case DT_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    case DT_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case DT_UINT16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case DT_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case DT_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case DT_INT64: ((int64_t *)p)[i] = v; break;
    case DT_UINT64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    case DT_FLOAT: ((float *)p)[i] = (float)v; break;
    case DT_DOUBLE: ((double *)p)[i] = (double)v; break;
    case DT_FLOAT16: ((uint16_t *)p)[i] = rt_f32_to_f16((float)v); break;
    case DT_BFLOAT16: ((uint16_t *)p)[i] = float_to_bf16((float)v); break;
    }
}

static void st_f(void *p, int dt, int64_t i, double v)
{
    switch (dt) {
    case DT_FLOAT: ((float *)p)[i] = (float)v; break;
    case DT_DOUBLE: ((double *)p)[i] = v; break;
    case DT_FLOAT16: ((uint16_t *)p)[i] = rt_f32_to_f16((float)v); break;
    case DT_BFLOAT16: ((uint16_t *)p)[i] = float_to_bf16((float)v); break;
    case DT_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    default:
        /* Float to integer truncates toward zero; NaN/inf and out-of-range values
         * are undefined in ONNX: saturate rather than invoke C undefined behaviour. */
        if (v != v)
            v = 0;
        if (v > 9.2e18)
            v = 9.2e18;
        if (v < -9.2e18)
            v = -9.2e18;
        st_i(p, dt, i, (int64_t)v);
        break;
    }
}

static int cast_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int like = !strcmp(n->op, "CastLike");
    int rc = check_arity(n, like ? 2 : 1, like ? 2 : 1, 1, err, errlen), to;
    tensor_t *x;

    if (rc)
        return rc;
    x = node_input(g, n, 0);
    to = like ? node_input(g, n, 1)->dtype : (int)node_attr_int(n, "to", 0);
    if (!cast_ok(x->dtype) || !cast_ok(to))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): cast %s to %s not supported",
                      n->name, n->op, dtype_name(x->dtype), dtype_name(to));
    tensor_set_shape(node_output(g, n, 0), to, x->ndim, x->dims);
    return RT_OK;
}

static int cast_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *x = node_input(g, n, 0), *y = node_output(g, n, 0);
    int64_t m = tensor_numel(y);
    int sd = x->dtype, dd = y->dtype;

    if (sd == dd)
        return copy_run(c, g, n);
    if (sd == DT_FLOAT && dd == DT_FLOAT16) {
        const float *s = x->data;
        uint16_t *d = y->data;
        for (int64_t i = 0; i < m; i++)
            d[i] = rt_f32_to_f16(s[i]);
    } else if (is_float_dt(sd)) {
        for (int64_t i = 0; i < m; i++)
            st_f(y->data, dd, i, ld_f(x->data, sd, i));
    } else {
        /* Integer source: through int64 so that large values stay exact. */
        for (int64_t i = 0; i < m; i++)
            st_i(y->data, dd, i, ld_i(x->data, sd, i));
    }
    return RT_OK;
}

/* ---- Range ---------------------------------------------------------------- */

/* The length depends on the values, so all three inputs must be constant. */
static int range_len(graph_t *g, const node_t *n, int64_t *len, char *err, size_t errlen)
{
    tensor_t *t[3];
    for (int i = 0; i < 3; i++) {
        t[i] = node_input(g, n, i);
        if (!tensor_is_const(t[i]) || tensor_numel(t[i]) != 1)
            return rt_err(err, errlen, RT_EUNSUPPORTED,
                          "node '%s' (Range): input %d must be a constant scalar; dynamic shapes "
                          "are not supported", n->name, i);
        if (t[i]->dtype != t[0]->dtype)
            return rt_err(err, errlen, RT_EFORMAT, "node '%s' (Range): input dtypes differ", n->name);
    }
    double st = tensor_get_f64(t[0], 0), lim = tensor_get_f64(t[1], 0), d = tensor_get_f64(t[2], 0);
    if (d == 0)
        return rt_err(err, errlen, RT_EFORMAT, "node '%s' (Range): delta is 0", n->name);
    double c = ceil((lim - st) / d);
    *len = c > 0 ? (int64_t)c : 0;
    return RT_OK;
}

static int range_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 3, 3, 1, err, errlen), dt;
    int64_t len;
    if (rc)
        return rc;
    dt = node_input(g, n, 0)->dtype;
    if (dt != DT_FLOAT && dt != DT_DOUBLE && dt != DT_INT16 && dt != DT_INT32 && dt != DT_INT64)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (Range): dtype %s", n->name,
                      dtype_name(dt));
    rc = range_len(g, n, &len, err, errlen);
    if (rc)
        return rc;
    tensor_set_shape(node_output(g, n, 0), dt, 1, &len);
    return RT_OK;
}

static int range_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *y = node_output(g, n, 0), *s = node_input(g, n, 0), *d = node_input(g, n, 2);
    int64_t m = tensor_numel(y);
    if (is_float_dt(y->dtype)) {
        /* start + i * delta, computed in the input type like the reference. */
        for (int64_t i = 0; i < m; i++)
            st_f(y->data, y->dtype, i, ld_f(s->data, s->dtype, 0) + (double)i * ld_f(d->data, d->dtype, 0));
    } else {
        int64_t v = tensor_get_int(s, 0), dv = tensor_get_int(d, 0);
        for (int64_t i = 0; i < m; i++, v += dv)
            st_i(y->data, y->dtype, i, v);
    }
    return RT_OK;
}

const op_def exec_ops_shape[] = {
    { "Reshape", "", reshape_infer, NULL, copy_run, NULL, NULL },
    { "Flatten", "", flatten_infer, NULL, copy_run, NULL, NULL },
    { "Squeeze", "", squeeze_infer, NULL, copy_run, NULL, NULL },
    { "Unsqueeze", "", unsqueeze_infer, NULL, copy_run, NULL, NULL },
    { "Identity", "", identity_infer, NULL, copy_run, NULL, NULL },
    { "Dropout", "", identity_infer, NULL, dropout_run, NULL, NULL },
    { "Shape", "", shape_infer, NULL, shape_run, NULL, NULL },
    { "Size", "", shape_infer, NULL, shape_run, NULL, NULL },
    { "ConstantOfShape", "", cos_infer, NULL, cos_run, NULL, NULL },
    { "Cast", "", cast_infer, NULL, cast_run, NULL, NULL },
    { "CastLike", "", cast_infer, NULL, cast_run, NULL, NULL },
    { "Range", "", range_infer, NULL, range_run, NULL, NULL },
    { NULL, NULL, NULL, NULL, NULL, NULL, NULL },
};
