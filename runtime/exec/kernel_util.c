/* runtime/exec/kernel_util.c — helpers shared by the kernel files (kernels.h). */
#include "runtime/exec/kernels.h"

#include "util/util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct scratch {
    void *p[SCRATCH_SLOTS];
    size_t cap[SCRATCH_SLOTS];
} scratch_t;

static _Thread_local scratch_t tl_scratch;
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_dtor(void *v)
{
    scratch_t *s = v;
    for (int i = 0; i < SCRATCH_SLOTS; i++) {
        free(s->p[i]);
        s->p[i] = NULL;
        s->cap[i] = 0;
    }
}

static void scratch_init(void)
{
    pthread_key_create(&scratch_key, scratch_dtor);
}

void *kernel_scratch(int slot, size_t bytes)
{
    scratch_t *s = &tl_scratch;
    if (s->cap[slot] >= bytes && s->p[slot])
        return s->p[slot];
    pthread_once(&scratch_once, scratch_init);
    free(s->p[slot]);
    s->p[slot] = xaligned_alloc(bytes ? bytes : 64);
    s->cap[slot] = bytes;
    pthread_setspecific(scratch_key, s);
    return s->p[slot];
}

void tensor_set_shape(tensor_t *t, int dtype, int ndim, const int64_t *dims)
{
    RT_ASSERT(ndim >= 0 && ndim <= MODEL_MAX_DIMS);
    t->dtype = dtype;
    t->ndim = ndim;
    for (int i = 0; i < ndim; i++)
        t->dims[i] = dims[i];
}

/* Saturating: a float beyond int64 (or NaN, as 0) is no valid count, axis or
 * index either, and every caller checks the range of what it gets. */
static int64_t f64_to_i64(double v)
{
    if (v != v)
        return 0;
    if (v >= 9223372036854775808.0)
        return INT64_MAX;
    return v <= -9223372036854775808.0 ? INT64_MIN : (int64_t)v;
}

int64_t tensor_get_int(const tensor_t *t, int64_t i)
{
    const void *p = t->data;
    switch (t->dtype) {
    case DT_INT64: return ((const int64_t *)p)[i];
    case DT_INT32: return ((const int32_t *)p)[i];
    case DT_INT16: return ((const int16_t *)p)[i];
    case DT_INT8: return ((const int8_t *)p)[i];
    case DT_UINT8: case DT_BOOL: return ((const uint8_t *)p)[i];
    case DT_UINT16: return ((const uint16_t *)p)[i];
    case DT_UINT32: return ((const uint32_t *)p)[i];
    case DT_UINT64: return (int64_t)((const uint64_t *)p)[i];
    case DT_FLOAT: return f64_to_i64(((const float *)p)[i]);
    case DT_DOUBLE: return f64_to_i64(((const double *)p)[i]);
    }
    return 0;
}

double tensor_get_f64(const tensor_t *t, int64_t i)
{
    switch (t->dtype) {
    case DT_FLOAT: return ((const float *)t->data)[i];
    case DT_DOUBLE: return ((const double *)t->data)[i];
    case DT_UINT64: return (double)((const uint64_t *)t->data)[i];
    }
    return (double)tensor_get_int(t, i);
}

int broadcast_shape(int na, const int64_t *a, int nb, const int64_t *b, int64_t *out)
{
    int n = na > nb ? na : nb;
    if (n > MODEL_MAX_DIMS)
        return -1;
    for (int i = 0; i < n; i++) {
        int64_t da = i < n - na ? 1 : a[i - (n - na)];
        int64_t db = i < n - nb ? 1 : b[i - (n - nb)];
        if (da == db || db == 1)
            out[i] = da;
        else if (da == 1)
            out[i] = db;
        else
            return -1;
    }
    return n;
}

void broadcast_strides(int nd_in, const int64_t *dims_in, int nd_out, int64_t *strides)
{
    int64_t s = 1;
    for (int i = nd_out - 1; i >= 0; i--) {
        int j = i - (nd_out - nd_in);
        if (j < 0 || dims_in[j] == 1) {
            strides[i] = 0;
        } else {
            strides[i] = s;
        }
        if (j >= 0)
            s *= dims_in[j];
    }
}

int norm_axis(int64_t axis, int ndim)
{
    if (axis < 0)
        axis += ndim;
    if (axis < 0 || axis >= ndim)
        return -1;
    return (int)axis;
}

int check_arity(const node_t *n, int min_in, int max_in, int min_out, char *err, size_t errlen)
{
    int have = n->n_in;
    while (have > 0 && n->in[have - 1] < 0)
        have--;
    if (have < min_in || (max_in >= 0 && have > max_in))
        return rt_err(err, errlen, RT_EFORMAT, "node '%s' (%s): %d inputs, expected %d..%d",
                      n->name, n->op, have, min_in, max_in);
    for (int i = 0; i < min_in; i++)
        if (n->in[i] < 0)
            return rt_err(err, errlen, RT_EFORMAT, "node '%s' (%s): required input %d is missing",
                          n->name, n->op, i);
    if (n->n_out < min_out)
        return rt_err(err, errlen, RT_EFORMAT, "node '%s' (%s): %d outputs, expected at least %d",
                      n->name, n->op, n->n_out, min_out);
    return RT_OK;
}

void op_parallel_for_work(op_ctx *c, int64_t n, int64_t per_item, range_fn fn, void *arg)
{
    if (n <= 0)
        return;
    if (!c || n * per_item < 32768)
        fn(arg, 0, n);
    else
        op_parallel_for(c, n, fn, arg);
}

int tensor_is_const(const tensor_t *t)
{
    return t && t->kind == TK_CONST && t->data;
}

int node_const_ints(graph_t *g, const node_t *n, int i, const char *what, int64_t *v, int max,
                    char *err, size_t errlen)
{
    tensor_t *t = node_input(g, n, i);
    int64_t m;
    if (!tensor_is_const(t))
        return rt_err(err, errlen, RT_EUNSUPPORTED,
                      "node '%s' (%s): input '%s' (%s) is not constant; dynamic shapes are not "
                      "supported", n->name, n->op, t ? t->name : "?", what);
    m = tensor_numel(t);
    if (m < 0 || m > max)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): %s has %lld values (max %d)",
                      n->name, n->op, what, (long long)m, max);
    for (int64_t k = 0; k < m; k++)
        v[k] = tensor_get_int(t, k);
    return (int)m;
}

int64_t dims_prod(const int64_t *d, int from, int to)
{
    int64_t p = 1;
    for (int i = from; i < to; i++)
        p *= d[i];
    return p;
}

int tensor_shape_known(const tensor_t *t)
{
    if (!t || t->ndim < 0)
        return 0;
    for (int i = 0; i < t->ndim; i++)
        if (t->dims[i] < 0)
            return 0;
    return 1;
}

void window_take(const node_window *w, int64_t *in, int64_t *out, int64_t *k, int64_t *s,
                 int64_t *d, int64_t *pb, int64_t *pe)
{
    for (int i = 0; i < 3; i++) {
        in[i] = w->in[i];
        out[i] = w->out[i];
        k[i] = w->k[i];
        s[i] = w->s[i];
        d[i] = w->d[i];
        pb[i] = w->pb[i];
        pe[i] = w->pe[i];
    }
}

int window_out_dims(int64_t n, int64_t c, int nsp, const int64_t *out, int64_t *dims)
{
    dims[0] = n;
    dims[1] = c;
    for (int i = 0; i < nsp; i++)
        dims[2 + i] = out[3 - nsp + i];
    return nsp + 2;
}
