/* runtime/exec/ops_quant.c — ONNX quantization operators on their integer
 * tensors: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
 * QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger and the com.microsoft
 * QOperator ops onnxruntime's quantizer emits (QLinearAdd, QLinearMul,
 * QLinearGlobalAveragePool, QLinearSigmoid, QLinearLeakyRelu).
 *
 * Numerics, as ONNX specifies them:
 *  - quantize: q = saturate(round(x / scale) + zp), round half to even (rintf
 *    in the default rounding mode), saturate to the output type (int8 or
 *    uint8, the type of zp; uint8 without zp). NaN quantizes to zp.
 *  - dequantize: x = (q - zp) * scale in float (int8, uint8, int32 inputs).
 *  - scale and zp are scalars (per tensor) or 1-D along `axis` (default 1,
 *    opset 13): per axis.
 *  - integer conv/matmul: sums of (x - x_zp) * (w - w_zp) accumulated exactly
 *    (int64, reported as int32 as ONNX does), plus the int32 bias; QLinear*
 *    requantize the sum with the multiplier x_scale * w_scale / y_scale
 *    (float, as onnxruntime computes it) and quantize as above.
 *  - QLinearAdd/Mul/GlobalAveragePool/Sigmoid/LeakyRelu: the float result of
 *    the dequantized operands, quantized with the output parameters. */
#include "runtime/exec/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- common helpers ----------------------------------------------------- */

static int q_range(int dt, int32_t *lo, int32_t *hi)
{
    switch (dt) {
    case DT_INT8: *lo = -128; *hi = 127; return 0;
    case DT_UINT8: *lo = 0; *hi = 255; return 0;
    case DT_INT32: *lo = INT32_MIN; *hi = INT32_MAX; return 0;
    }
    *lo = 0;
    *hi = 0;
    return -1;
}

/* round(v) + zp saturated to [lo, hi]; v is the unrounded x / scale. */
static inline int32_t q_round_sat(float v, int32_t zp, int32_t lo, int32_t hi)
{
    if (v != v)
        v = 0;
    double r = (double)rintf(v) + zp;
    if (r < lo)
        r = lo;
    if (r > hi)
        r = hi;
    return (int32_t)r;
}

static void store_q(tensor_t *t, int64_t i, int32_t v)
{
    if (t->dtype == DT_INT8)
        ((int8_t *)t->data)[i] = (int8_t)v;
    else if (t->dtype == DT_UINT8)
        ((uint8_t *)t->data)[i] = (uint8_t)v;
    else
        ((int32_t *)t->data)[i] = v;
}

static int is_q8(int dt)
{
    return dt == DT_INT8 || dt == DT_UINT8;
}

/* Element k of a scale (float) or zero point (integer) parameter, or the
 * scalar value; a missing optional zero point is 0. */
static float par_f(const tensor_t *t, int64_t k)
{
    return ((const float *)t->data)[tensor_numel(t) == 1 ? 0 : k];
}

static int32_t par_i(const tensor_t *t, int64_t k)
{
    if (!t || !t->data)
        return 0;
    return (int32_t)tensor_get_int(t, tensor_numel(t) == 1 ? 0 : k);
}

/* A parameter must be a float (scale) or q8/int32 (zp) tensor with 1 or
 * `count` elements (count 1: scalar only). Parameters must be constant or
 * graph-fed: their values are read when the node runs. */
static int check_par(const node_t *n, const tensor_t *t, const char *what, int is_scale,
                     int64_t count, char *err, size_t errlen)
{
    int64_t m;
    if (!t)
        return RT_OK;
    if (!tensor_shape_known(t))
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): %s shape unknown", n->name, n->op,
                      what);
    if (is_scale ? t->dtype != DT_FLOAT : !(is_q8(t->dtype) || t->dtype == DT_INT32))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): %s of dtype %s", n->name,
                      n->op, what, dtype_name(t->dtype));
    m = tensor_numel(t);
    if (m != 1 && !(t->ndim == 1 && m == count))
        return rt_err(err, errlen, RT_ESHAPE,
                      "node '%s' (%s): %s has %lld values, expected 1 or %lld", n->name, n->op,
                      what, (long long)m, (long long)count);
    return RT_OK;
}

/* ---- QuantizeLinear / DequantizeLinear ---------------------------------- */

/* The per-axis geometry of x: the parameter index of element i is
 * (i / inner) % nax. */
static int axis_geom(const node_t *n, const tensor_t *x, const tensor_t *s, int64_t *nax,
                     int64_t *inner, char *err, size_t errlen)
{
    *nax = 1;
    *inner = 1;
    if (tensor_numel(s) == 1 && s->ndim <= 1)
        return RT_OK;
    int ax = norm_axis(node_attr_int(n, "axis", 1), x->ndim);
    if (ax < 0 || s->ndim != 1 || s->dims[0] != x->dims[ax])
        return rt_err(err, errlen, RT_ESHAPE,
                      "node '%s' (%s): per-axis scale of %lld values does not match axis %lld",
                      n->name, n->op, (long long)tensor_numel(s),
                      (long long)node_attr_int(n, "axis", 1));
    *nax = x->dims[ax];
    *inner = dims_prod(x->dims, ax + 1, x->ndim);
    return RT_OK;
}

static int qdq_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 2, 3, 1, err, errlen);
    int quant = !strcmp(n->op, "QuantizeLinear");
    tensor_t *x, *s, *z;
    int64_t nax, inner;
    int32_t lo, hi;

    if (rc)
        return rc;
    x = node_input(g, n, 0);
    s = node_input(g, n, 1);
    z = node_input(g, n, 2);
    if (!tensor_shape_known(x))
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): input shape unknown", n->name,
                      n->op);
    if (quant ? x->dtype != DT_FLOAT : !(is_q8(x->dtype) || x->dtype == DT_INT32))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): input dtype %s", n->name,
                      n->op, dtype_name(x->dtype));
    if (!tensor_shape_known(s))
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): scale shape unknown", n->name,
                      n->op);
    rc = axis_geom(n, x, s, &nax, &inner, err, errlen);
    if (rc)
        return rc;
    rc = check_par(n, s, "scale", 1, nax, err, errlen);
    if (!rc)
        rc = check_par(n, z, "zero point", 0, nax, err, errlen);
    if (rc)
        return rc;
    if (z && (quant ? !is_q8(z->dtype) : z->dtype != x->dtype))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): zero point dtype %s",
                      n->name, n->op, dtype_name(z->dtype));
    if (quant && q_range(z ? z->dtype : DT_UINT8, &lo, &hi))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s': output dtype", n->name);
    tensor_set_shape(node_output(g, n, 0), quant ? (z ? z->dtype : DT_UINT8) : DT_FLOAT, x->ndim,
                     x->dims);
    return RT_OK;
}

typedef struct qdq_job {
    const tensor_t *x, *s, *z;
    tensor_t *y;
    int64_t nax, inner;
    int32_t lo, hi;
} qdq_job;

static void quant_range(void *arg, int64_t b, int64_t e)
{
    const qdq_job *j = arg;
    const float *x = j->x->data;
    for (int64_t i = b; i < e; i++) {
        int64_t k = (i / j->inner) % j->nax;
        store_q(j->y, i, q_round_sat(x[i] / par_f(j->s, k), par_i(j->z, k), j->lo, j->hi));
    }
}

static void dequant_range(void *arg, int64_t b, int64_t e)
{
    const qdq_job *j = arg;
    float *y = j->y->data;
    for (int64_t i = b; i < e; i++) {
        int64_t k = (i / j->inner) % j->nax;
        /* int32 inputs: the difference is formed in 64 bits (no overflow). */
        y[i] = (float)(tensor_get_int(j->x, i) - (int64_t)par_i(j->z, k)) * par_f(j->s, k);
    }
}

static int qdq_run(op_ctx *c, graph_t *g, node_t *n)
{
    qdq_job j;
    int quant = !strcmp(n->op, "QuantizeLinear");
    int rc;

    j.x = node_input(g, n, 0);
    j.s = node_input(g, n, 1);
    j.z = node_input(g, n, 2);
    j.y = node_output(g, n, 0);
    rc = axis_geom(n, j.x, j.s, &j.nax, &j.inner, c->err, c->errlen);
    if (rc)
        return rc;
    if (quant)
        q_range(j.y->dtype, &j.lo, &j.hi);
    op_parallel_for_work(c, tensor_numel(j.y), 8, quant ? quant_range : dequant_range, &j);
    return RT_OK;
}

/* ---- DynamicQuantizeLinear ---------------------------------------------- */

static int dynq_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 1, 3, err, errlen);
    tensor_t *x;
    if (rc)
        return rc;
    x = node_input(g, n, 0);
    if (!tensor_shape_known(x) || x->dtype != DT_FLOAT)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): float input of known shape "
                      "required", n->name, n->op);
    tensor_set_shape(node_output(g, n, 0), DT_UINT8, x->ndim, x->dims);
    tensor_set_shape(node_output(g, n, 1), DT_FLOAT, 0, NULL);
    tensor_set_shape(node_output(g, n, 2), DT_UINT8, 0, NULL);
    return RT_OK;
}

/* Range widened to contain 0, scale = range / 255, zp = saturate(round(-min /
 * scale)), then quantized as QuantizeLinear does. */
static int dynq_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *x = node_input(g, n, 0), *y = node_output(g, n, 0);
    const float *xv = x->data;
    int64_t m = tensor_numel(x);
    float mn = 0, mx = 0, s;
    int32_t zp;

    (void)c;
    for (int64_t i = 0; i < m; i++) {
        mn = xv[i] < mn ? xv[i] : mn;
        mx = xv[i] > mx ? xv[i] : mx;
    }
    s = (mx - mn) / 255.0f;
    zp = s > 0 ? q_round_sat((0.0f - mn) / s, 0, 0, 255) : 0;
    for (int64_t i = 0; i < m; i++)
        ((uint8_t *)y->data)[i] = (uint8_t)(s > 0 ? q_round_sat(xv[i] / s, zp, 0, 255) : zp);
    *(float *)node_output(g, n, 1)->data = s;
    *(uint8_t *)node_output(g, n, 2)->data = (uint8_t)zp;
    return RT_OK;
}

/* ---- integer convolution (QLinearConv, ConvInteger) --------------------- */

typedef struct iconv_geom {
    int nsp;
    int64_t N, C, M, G, Cg, Mg;
    int64_t in[3], k[3], s[3], d[3], pb[3], out[3];
    int64_t kvol, Pin, Pout;
} iconv_geom;

static int iconv_geom_get(graph_t *g, const node_t *n, iconv_geom *p, char *err, size_t errlen)
{
    int lin = !strcmp(n->op, "QLinearConv");
    const tensor_t *x = node_input(g, n, 0), *w = node_input(g, n, lin ? 3 : 1);
    node_window win;
    int64_t pe[3]; /* the kernels read the begin pads only */

    memset(p, 0, sizeof(*p));
    if (!tensor_shape_known(x) || !tensor_shape_known(w))
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): input shapes unknown", n->name,
                      n->op);
    if (!is_q8(x->dtype) || !is_q8(w->dtype))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): X %s / W %s (int8/uint8 only)",
                      n->name, n->op, dtype_name(x->dtype), dtype_name(w->dtype));
    if (x->ndim < 3 || x->ndim > 5 || w->ndim != x->ndim)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): X rank %d / W rank %d", n->name,
                      n->op, x->ndim, w->ndim);
    p->nsp = x->ndim - 2;
    p->N = x->dims[0];
    p->C = x->dims[1];
    p->M = w->dims[0];
    p->G = node_attr_int(n, "group", 1);
    if (p->G < 1 || p->C % p->G || p->M % p->G || w->dims[1] != p->C / p->G)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): channels %lld, W %lldx%lld, group "
                      "%lld do not fit", n->name, n->op, (long long)p->C, (long long)w->dims[0],
                      (long long)w->dims[1], (long long)p->G);
    p->Cg = p->C / p->G;
    p->Mg = p->M / p->G;
    int rc = node_window_read(n, p->nsp, w->dims + 2, x->dims + 2, &win, err, errlen);
    if (rc)
        return rc;
    window_take(&win, p->in, p->out, p->k, p->s, p->d, p->pb, pe);
    p->kvol = p->k[0] * p->k[1] * p->k[2];
    p->Pin = p->in[0] * p->in[1] * p->in[2];
    p->Pout = p->out[0] * p->out[1] * p->out[2];
    return RT_OK;
}

static int iconv_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int lin = !strcmp(n->op, "QLinearConv");
    iconv_geom p;
    int64_t dims[5];
    int rc = check_arity(n, lin ? 8 : 2, lin ? 9 : 4, 1, err, errlen);
    int odt = DT_INT32;

    if (!rc)
        rc = iconv_geom_get(g, n, &p, err, errlen);
    if (rc)
        return rc;
    if (lin) {
        const tensor_t *b = node_input(g, n, 8), *yz = node_input(g, n, 7);
        rc = check_par(n, node_input(g, n, 1), "x_scale", 1, 1, err, errlen);
        if (!rc)
            rc = check_par(n, node_input(g, n, 2), "x_zero_point", 0, 1, err, errlen);
        if (!rc)
            rc = check_par(n, node_input(g, n, 4), "w_scale", 1, p.M, err, errlen);
        if (!rc)
            rc = check_par(n, node_input(g, n, 5), "w_zero_point", 0, p.M, err, errlen);
        if (!rc)
            rc = check_par(n, node_input(g, n, 6), "y_scale", 1, 1, err, errlen);
        if (!rc)
            rc = check_par(n, yz, "y_zero_point", 0, 1, err, errlen);
        if (rc)
            return rc;
        if (b && (!tensor_shape_known(b) || b->dtype != DT_INT32 || tensor_numel(b) != p.M))
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): B must be int32 with %lld "
                          "values", n->name, n->op, (long long)p.M);
        odt = yz ? yz->dtype : node_input(g, n, 0)->dtype;
        if (!is_q8(odt))
            return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): output dtype %s",
                          n->name, n->op, dtype_name(odt));
    } else {
        rc = check_par(n, node_input(g, n, 2), "x_zero_point", 0, 1, err, errlen);
        if (!rc)
            rc = check_par(n, node_input(g, n, 3), "w_zero_point", 0, p.M, err, errlen);
        if (rc)
            return rc;
    }
    tensor_set_shape(node_output(g, n, 0), odt, window_out_dims(p.N, p.M, p.nsp, p.out, dims),
                     dims);
    return RT_OK;
}

typedef struct iconv_job {
    const iconv_geom *p;
    const int32_t *x, *w; /* centred: x - x_zp, w - w_zp[m] */
    const tensor_t *bias;
    tensor_t *y;
    int lin;
    const float *mult;    /* per output channel (QLinearConv) */
    int32_t yzp, lo, hi;
} iconv_job;

/* One (image, output channel) plane per item. */
static void iconv_range(void *arg, int64_t b, int64_t e)
{
    const iconv_job *j = arg;
    const iconv_geom *p = j->p;
    for (int64_t it = b; it < e; it++) {
        int64_t nb = it / p->M, m = it % p->M, grp = m / p->Mg;
        const int32_t *wm = j->w + m * p->Cg * p->kvol;
        int64_t bias = j->bias ? par_i(j->bias, m) : 0;
        int64_t opos = 0;
        for (int64_t o0 = 0; o0 < p->out[0]; o0++)
            for (int64_t o1 = 0; o1 < p->out[1]; o1++)
                for (int64_t o2 = 0; o2 < p->out[2]; o2++, opos++) {
                    int64_t acc = bias;
                    for (int64_t c = 0; c < p->Cg; c++) {
                        const int32_t *xc = j->x + (nb * p->C + grp * p->Cg + c) * p->Pin;
                        const int32_t *wc = wm + c * p->kvol;
                        for (int64_t k0 = 0; k0 < p->k[0]; k0++) {
                            int64_t i0 = o0 * p->s[0] - p->pb[0] + k0 * p->d[0];
                            if (i0 < 0 || i0 >= p->in[0])
                                continue;
                            for (int64_t k1 = 0; k1 < p->k[1]; k1++) {
                                int64_t i1 = o1 * p->s[1] - p->pb[1] + k1 * p->d[1];
                                if (i1 < 0 || i1 >= p->in[1])
                                    continue;
                                const int32_t *xr = xc + (i0 * p->in[1] + i1) * p->in[2];
                                const int32_t *wr = wc + (k0 * p->k[1] + k1) * p->k[2];
                                for (int64_t k2 = 0; k2 < p->k[2]; k2++) {
                                    int64_t i2 = o2 * p->s[2] - p->pb[2] + k2 * p->d[2];
                                    if (i2 >= 0 && i2 < p->in[2])
                                        acc += (int64_t)xr[i2] * wr[k2];
                                }
                            }
                        }
                    }
                    int64_t oi = it * p->Pout + opos;
                    if (j->lin)
                        store_q(j->y, oi, q_round_sat((float)acc * j->mult[m], j->yzp, j->lo,
                                                      j->hi));
                    else
                        ((int32_t *)j->y->data)[oi] = (int32_t)(uint32_t)acc; /* int32 wrap */
                }
    }
}

static int iconv_run(op_ctx *c, graph_t *g, node_t *n)
{
    int lin = !strcmp(n->op, "QLinearConv");
    iconv_geom p;
    iconv_job j;
    const tensor_t *x = node_input(g, n, 0), *w = node_input(g, n, lin ? 3 : 1);
    const tensor_t *xz = node_input(g, n, 2), *wz = node_input(g, n, lin ? 5 : 3);
    int32_t *xc = NULL, *wc = NULL;
    float *mult = NULL;
    int64_t nx, nw, per;
    int rc = iconv_geom_get(g, n, &p, c->err, c->errlen);

    if (rc)
        return rc;
    memset(&j, 0, sizeof(j));
    nx = tensor_numel(x);
    nw = tensor_numel(w);
    xc = xmalloc((size_t)(nx > 0 ? nx : 1) * sizeof(*xc));
    wc = xmalloc((size_t)(nw > 0 ? nw : 1) * sizeof(*wc));
    for (int64_t i = 0; i < nx; i++)
        xc[i] = (int32_t)tensor_get_int(x, i) - par_i(xz, 0);
    per = p.M ? nw / p.M : 0;
    for (int64_t i = 0; i < nw; i++)
        wc[i] = (int32_t)tensor_get_int(w, i) - par_i(wz, i / per);
    j.p = &p;
    j.x = xc;
    j.w = wc;
    j.y = node_output(g, n, 0);
    j.lin = lin;
    if (lin) {
        const tensor_t *xs = node_input(g, n, 1), *ws = node_input(g, n, 4);
        const tensor_t *ys = node_input(g, n, 6);
        mult = xmalloc((size_t)(p.M > 0 ? p.M : 1) * sizeof(*mult));
        for (int64_t m = 0; m < p.M; m++)
            mult[m] = par_f(xs, 0) * par_f(ws, m) / par_f(ys, 0);
        j.mult = mult;
        j.bias = node_input(g, n, 8);
        j.yzp = par_i(node_input(g, n, 7), 0);
        q_range(j.y->dtype, &j.lo, &j.hi);
    }
    op_parallel_for_work(c, p.N * p.M, p.Cg * p.kvol * p.Pout + 1, iconv_range, &j);
    free(xc);
    free(wc);
    free(mult);
    return RT_OK;
}

/* ---- integer matmul (QLinearMatMul, MatMulInteger) ---------------------- */

typedef struct imm_geom {
    int64_t M, K, N;
    int ndim;                 /* output rank */
    int64_t odims[MODEL_MAX_DIMS];
    int nb;                   /* batch rank */
    int64_t bdims[MODEL_MAX_DIMS], sa[MODEL_MAX_DIMS], sb[MODEL_MAX_DIMS];
    int64_t nbatch;
} imm_geom;

/* numpy matmul shapes: a 1-D A is a row, a 1-D B a column (dropped again). */
static int imm_geom_get(const node_t *n, const tensor_t *a, const tensor_t *b, imm_geom *q,
                        char *err, size_t errlen)
{
    int64_t ad[MODEL_MAX_DIMS], bd[MODEL_MAX_DIMS];
    int na, nbd, k = 0;

    memset(q, 0, sizeof(*q));
    if (!tensor_shape_known(a) || !tensor_shape_known(b) || a->ndim < 1 || b->ndim < 1)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): input shapes unknown or scalar",
                      n->name, n->op);
    if (!is_q8(a->dtype) || !is_q8(b->dtype))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): A %s / B %s (int8/uint8 only)",
                      n->name, n->op, dtype_name(a->dtype), dtype_name(b->dtype));
    q->M = a->ndim == 1 ? 1 : a->dims[a->ndim - 2];
    q->K = a->dims[a->ndim - 1];
    q->N = b->ndim == 1 ? 1 : b->dims[b->ndim - 1];
    if ((b->ndim == 1 ? b->dims[0] : b->dims[b->ndim - 2]) != q->K)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): inner dimensions differ", n->name,
                      n->op);
    na = a->ndim > 2 ? a->ndim - 2 : 0;
    nbd = b->ndim > 2 ? b->ndim - 2 : 0;
    memcpy(ad, a->dims, sizeof(int64_t) * (size_t)na);
    memcpy(bd, b->dims, sizeof(int64_t) * (size_t)nbd);
    q->nb = broadcast_shape(na, ad, nbd, bd, q->bdims);
    if (q->nb < 0 || q->nb + 2 > MODEL_MAX_DIMS)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): batch dimensions do not broadcast",
                      n->name, n->op);
    broadcast_strides(na, ad, q->nb, q->sa);
    broadcast_strides(nbd, bd, q->nb, q->sb);
    q->nbatch = dims_prod(q->bdims, 0, q->nb);
    for (int i = 0; i < q->nb; i++)
        q->odims[k++] = q->bdims[i];
    if (a->ndim > 1)
        q->odims[k++] = q->M;
    if (b->ndim > 1)
        q->odims[k++] = q->N;
    q->ndim = k;
    return RT_OK;
}

static int imm_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int lin = !strcmp(n->op, "QLinearMatMul");
    imm_geom q;
    int rc = check_arity(n, lin ? 8 : 2, lin ? 8 : 4, 1, err, errlen);
    const tensor_t *a, *b;
    int odt = DT_INT32;

    if (rc)
        return rc;
    a = node_input(g, n, 0);
    b = node_input(g, n, lin ? 3 : 1);
    rc = imm_geom_get(n, a, b, &q, err, errlen);
    if (rc)
        return rc;
    if (lin) {
        const tensor_t *yz = node_input(g, n, 7);
        rc = check_par(n, node_input(g, n, 1), "a_scale", 1, q.M, err, errlen);
        if (!rc)
            rc = check_par(n, node_input(g, n, 2), "a_zero_point", 0, q.M, err, errlen);
        if (!rc)
            rc = check_par(n, node_input(g, n, 4), "b_scale", 1, q.N, err, errlen);
        if (!rc)
            rc = check_par(n, node_input(g, n, 5), "b_zero_point", 0, q.N, err, errlen);
        if (!rc)
            rc = check_par(n, node_input(g, n, 6), "y_scale", 1, q.N, err, errlen);
        if (!rc)
            rc = check_par(n, yz, "y_zero_point", 0, q.N, err, errlen);
        if (rc)
            return rc;
        odt = yz->dtype;
        if (!is_q8(odt))
            return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): output dtype %s",
                          n->name, n->op, dtype_name(odt));
    } else {
        rc = check_par(n, node_input(g, n, 2), "a_zero_point", 0, q.M, err, errlen);
        if (!rc)
            rc = check_par(n, node_input(g, n, 3), "b_zero_point", 0, q.N, err, errlen);
        if (rc)
            return rc;
    }
    tensor_set_shape(node_output(g, n, 0), odt, q.ndim, q.odims);
    return RT_OK;
}

typedef struct imm_job {
    const imm_geom *q;
    const int32_t *a, *b; /* centred */
    int64_t *aoff, *boff; /* per output batch: offset of its A and B matrices */
    tensor_t *y;
    int lin;
    const tensor_t *as, *bs, *ys, *yz;
    int32_t lo, hi;
} imm_job;

/* One output row (batch, m) per item. */
static void imm_range(void *arg, int64_t b, int64_t e)
{
    const imm_job *j = arg;
    const imm_geom *q = j->q;
    for (int64_t it = b; it < e; it++) {
        int64_t bt = it / q->M, m = it % q->M;
        const int32_t *ar = j->a + j->aoff[bt] + m * q->K;
        const int32_t *bm = j->b + j->boff[bt];
        for (int64_t nn = 0; nn < q->N; nn++) {
            int64_t acc = 0;
            for (int64_t k = 0; k < q->K; k++)
                acc += (int64_t)ar[k] * bm[k * q->N + nn];
            int64_t oi = it * q->N + nn;
            if (j->lin) {
                float mult = par_f(j->as, m) * par_f(j->bs, nn) / par_f(j->ys, nn);
                store_q(j->y, oi, q_round_sat((float)acc * mult, par_i(j->yz, nn), j->lo, j->hi));
            } else {
                ((int32_t *)j->y->data)[oi] = (int32_t)(uint32_t)acc;
            }
        }
    }
}

static int imm_run(op_ctx *c, graph_t *g, node_t *n)
{
    int lin = !strcmp(n->op, "QLinearMatMul");
    const tensor_t *a = node_input(g, n, 0), *b = node_input(g, n, lin ? 3 : 1);
    const tensor_t *az = node_input(g, n, 2), *bz = node_input(g, n, lin ? 5 : 3);
    imm_geom q;
    imm_job j;
    int64_t na, nb, idx[MODEL_MAX_DIMS] = {0};
    int32_t *ac, *bc;
    int rc = imm_geom_get(n, a, b, &q, c->err, c->errlen);

    if (rc)
        return rc;
    memset(&j, 0, sizeof(j));
    na = tensor_numel(a);
    nb = tensor_numel(b);
    ac = xmalloc((size_t)(na > 0 ? na : 1) * sizeof(*ac));
    bc = xmalloc((size_t)(nb > 0 ? nb : 1) * sizeof(*bc));
    for (int64_t i = 0; i < na; i++)
        ac[i] = (int32_t)tensor_get_int(a, i) - par_i(az, (i / q.K) % q.M);
    for (int64_t i = 0; i < nb; i++)
        bc[i] = (int32_t)tensor_get_int(b, i) - par_i(bz, i % q.N);
    j.aoff = xmalloc((size_t)(q.nbatch > 0 ? q.nbatch : 1) * sizeof(int64_t));
    j.boff = xmalloc((size_t)(q.nbatch > 0 ? q.nbatch : 1) * sizeof(int64_t));
    for (int64_t bt = 0; bt < q.nbatch; bt++) {
        int64_t oa = 0, ob = 0;
        for (int i = 0; i < q.nb; i++) {
            oa += idx[i] * q.sa[i];
            ob += idx[i] * q.sb[i];
        }
        j.aoff[bt] = oa * q.M * q.K;
        j.boff[bt] = ob * q.K * q.N;
        for (int i = q.nb - 1; i >= 0; i--) {
            if (++idx[i] < q.bdims[i])
                break;
            idx[i] = 0;
        }
    }
    j.q = &q;
    j.a = ac;
    j.b = bc;
    j.y = node_output(g, n, 0);
    j.lin = lin;
    if (lin) {
        j.as = node_input(g, n, 1);
        j.bs = node_input(g, n, 4);
        j.ys = node_input(g, n, 6);
        j.yz = node_input(g, n, 7);
        q_range(j.y->dtype, &j.lo, &j.hi);
    }
    op_parallel_for_work(c, q.nbatch * q.M, q.K * q.N + 1, imm_range, &j);
    free(ac);
    free(bc);
    free(j.aoff);
    free(j.boff);
    return RT_OK;
}

/* ---- com.microsoft QLinearAdd / QLinearMul ------------------------------ */

/* Inputs A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp (zps optional);
 * scalar parameters. */
static int qbin_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 7, 8, 1, err, errlen);
    const tensor_t *a, *b;
    int64_t od[MODEL_MAX_DIMS];
    int nd;
    static const char *const what[] = {"", "A_scale", "A_zero_point", "", "B_scale",
                                       "B_zero_point", "C_scale", "C_zero_point"};

    if (rc)
        return rc;
    a = node_input(g, n, 0);
    b = node_input(g, n, 3);
    if (!tensor_shape_known(a) || !tensor_shape_known(b) || !is_q8(a->dtype) || b->dtype != a->dtype)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): A and B must be int8 or "
                      "uint8 of one dtype and known shape", n->name, n->op);
    for (int i = 1; i < 8; i++) {
        if (i == 3)
            continue;
        rc = check_par(n, node_input(g, n, i), what[i], i == 1 || i == 4 || i == 6, 1, err,
                       errlen);
        if (rc)
            return rc;
    }
    nd = broadcast_shape(a->ndim, a->dims, b->ndim, b->dims, od);
    if (nd < 0)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): shapes do not broadcast", n->name,
                      n->op);
    tensor_set_shape(node_output(g, n, 0), a->dtype, nd, od);
    return RT_OK;
}

static int qbin_run(op_ctx *c, graph_t *g, node_t *n)
{
    const tensor_t *a = node_input(g, n, 0), *b = node_input(g, n, 3);
    tensor_t *y = node_output(g, n, 0);
    int mul = !strcmp(n->op, "QLinearMul");
    float as = par_f(node_input(g, n, 1), 0), bs = par_f(node_input(g, n, 4), 0);
    float cs = par_f(node_input(g, n, 6), 0);
    int32_t az = par_i(node_input(g, n, 2), 0), bz = par_i(node_input(g, n, 5), 0);
    int32_t cz = par_i(node_input(g, n, 7), 0), lo, hi;
    int64_t sa[MODEL_MAX_DIMS], sb[MODEL_MAX_DIMS], idx[MODEL_MAX_DIMS] = {0};
    int64_t m = tensor_numel(y), ia = 0, ib = 0;
    int nd = y->ndim;

    (void)c;
    q_range(y->dtype, &lo, &hi);
    broadcast_strides(a->ndim, a->dims, nd, sa);
    broadcast_strides(b->ndim, b->dims, nd, sb);
    for (int64_t i = 0; i < m; i++) {
        float va = as * (float)(tensor_get_int(a, ia) - az);
        float vb = bs * (float)(tensor_get_int(b, ib) - bz);
        store_q(y, i, q_round_sat((mul ? va * vb : va + vb) / cs, cz, lo, hi));
        for (int d = nd - 1; d >= 0; d--) {
            ia += sa[d];
            ib += sb[d];
            if (++idx[d] < y->dims[d])
                break;
            ia -= sa[d] * y->dims[d];
            ib -= sb[d] * y->dims[d];
            idx[d] = 0;
        }
    }
    return RT_OK;
}

/* ---- com.microsoft QLinearGlobalAveragePool ----------------------------- */

static int qgap_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 4, 5, 1, err, errlen);
    const tensor_t *x;
    int64_t od[MODEL_MAX_DIMS];
    int last = (int)node_attr_int(n, "channels_last", 0);

    if (rc)
        return rc;
    x = node_input(g, n, 0);
    if (!tensor_shape_known(x) || !is_q8(x->dtype) || x->ndim < 3)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): int8/uint8 input of rank "
                      ">= 3 required", n->name, n->op);
    for (int i = 1; i < 5; i++) {
        rc = check_par(n, node_input(g, n, i), i & 1 ? "scale" : "zero point", i & 1, 1, err,
                       errlen);
        if (rc)
            return rc;
    }
    for (int i = 0; i < x->ndim; i++)
        od[i] = 1;
    od[0] = x->dims[0];
    od[last ? x->ndim - 1 : 1] = x->dims[last ? x->ndim - 1 : 1];
    tensor_set_shape(node_output(g, n, 0), x->dtype, x->ndim, od);
    return RT_OK;
}

static int qgap_run(op_ctx *c, graph_t *g, node_t *n)
{
    const tensor_t *x = node_input(g, n, 0);
    tensor_t *y = node_output(g, n, 0);
    int last = (int)node_attr_int(n, "channels_last", 0);
    int64_t N = x->dims[0], C = x->dims[last ? x->ndim - 1 : 1];
    int64_t HW = last ? dims_prod(x->dims, 1, x->ndim - 1) : dims_prod(x->dims, 2, x->ndim);
    float xs = par_f(node_input(g, n, 1), 0), ys = par_f(node_input(g, n, 3), 0);
    int32_t xz = par_i(node_input(g, n, 2), 0), yz = par_i(node_input(g, n, 4), 0), lo, hi;

    (void)c;
    q_range(y->dtype, &lo, &hi);
    for (int64_t b = 0; b < N; b++)
        for (int64_t ch = 0; ch < C; ch++) {
            int64_t sum = 0;
            for (int64_t p = 0; p < HW; p++)
                sum += tensor_get_int(x, last ? (b * HW + p) * C + ch : (b * C + ch) * HW + p) -
                       xz;
            double mean = HW ? (double)sum / (double)HW : 0;
            store_q(y, b * C + ch, q_round_sat((float)(mean * xs / ys), yz, lo, hi));
        }
    return RT_OK;
}

/* ---- com.microsoft QLinearSigmoid / QLinearLeakyRelu -------------------- */

static int qun_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 4, 5, 1, err, errlen);
    const tensor_t *x;

    if (rc)
        return rc;
    x = node_input(g, n, 0);
    if (!tensor_shape_known(x) || !is_q8(x->dtype))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): int8/uint8 input required",
                      n->name, n->op);
    for (int i = 1; i < 5; i++) {
        rc = check_par(n, node_input(g, n, i), i & 1 ? "scale" : "zero point", i & 1, 1, err,
                       errlen);
        if (rc)
            return rc;
    }
    tensor_set_shape(node_output(g, n, 0), x->dtype, x->ndim, x->dims);
    return RT_OK;
}

/* A table over the 256 input codes, as the function is only ever evaluated there. */
static int qun_run(op_ctx *c, graph_t *g, node_t *n)
{
    const tensor_t *x = node_input(g, n, 0);
    tensor_t *y = node_output(g, n, 0);
    int sig = !strcmp(n->op, "QLinearSigmoid");
    float alpha = node_attr_float(n, "alpha", 0.01f);
    float xs = par_f(node_input(g, n, 1), 0), ys = par_f(node_input(g, n, 3), 0);
    int32_t xz = par_i(node_input(g, n, 2), 0), yz = par_i(node_input(g, n, 4), 0), lo, hi;
    int32_t tab[256];
    int off = x->dtype == DT_INT8 ? 128 : 0;
    int64_t m = tensor_numel(x);

    (void)c;
    q_range(y->dtype, &lo, &hi);
    for (int q = 0; q < 256; q++) {
        float v = xs * (float)(q - off - xz);
        v = sig ? 1.0f / (1.0f + expf(-v)) : (v < 0 ? v * alpha : v);
        tab[q] = q_round_sat(v / ys, yz, lo, hi);
    }
    for (int64_t i = 0; i < m; i++)
        store_q(y, i, tab[tensor_get_int(x, i) + off]);
    return RT_OK;
}

#define MS "com.microsoft"
const op_def exec_ops_quant[] = {
    { "QuantizeLinear", "", qdq_infer, NULL, qdq_run, NULL, NULL },
    { "DequantizeLinear", "", qdq_infer, NULL, qdq_run, NULL, NULL },
    { "DynamicQuantizeLinear", "", dynq_infer, NULL, dynq_run, NULL, NULL },
    { "QLinearConv", "", iconv_infer, NULL, iconv_run, NULL, NULL },
    { "ConvInteger", "", iconv_infer, NULL, iconv_run, NULL, NULL },
    { "QLinearMatMul", "", imm_infer, NULL, imm_run, NULL, NULL },
    { "MatMulInteger", "", imm_infer, NULL, imm_run, NULL, NULL },
    { "QLinearAdd", MS, qbin_infer, NULL, qbin_run, NULL, NULL },
    { "QLinearMul", MS, qbin_infer, NULL, qbin_run, NULL, NULL },
    { "QLinearGlobalAveragePool", MS, qgap_infer, NULL, qgap_run, NULL, NULL },
    { "QLinearSigmoid", MS, qun_infer, NULL, qun_run, NULL, NULL },
    { "QLinearLeakyRelu", MS, qun_infer, NULL, qun_run, NULL, NULL },
    { NULL, NULL, NULL, NULL, NULL, NULL, NULL },
};
#undef MS
