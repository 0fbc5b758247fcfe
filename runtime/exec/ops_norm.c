/* runtime/exec/ops_norm.c — BatchNormalization in inference mode, fp32.
 *
 * y = x * a + b with a = scale / sqrt(var + eps), b = bias - mean * a, computed
 * once in prepare when the parameters are constant. Parameters hold one value
 * per channel, or (opset 7-8 spatial=0) one per element of a sample. */
#include "runtime/exec/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The per-channel loop vectorised whatever the global -O level, with an AVX2 clone. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NORM_HOT __attribute__((optimize("O3"), target_clones("arch=x86-64-v3", "default")))
#else
#define NORM_HOT
#endif

typedef struct bn_p {
    int64_t N, C, inner; /* inner: elements per channel plane */
    int64_t np;          /* parameter count: C or C * inner */
    float *a, *b;        /* folded factors, np each */
    int folded;          /* a and b made in prepare (constant parameters) */
} bn_p;

static int bn_check(graph_t *g, const node_t *n, bn_p *p, char *err, size_t errlen)
{
    int rc = check_arity(n, 5, 5, 1, err, errlen);
    if (rc)
        return rc;
    for (int i = 1; i < n->n_out; i++)
        if (n->out[i] >= 0)
            return rt_err(err, errlen, RT_EUNSUPPORTED,
                          "node '%s' (BatchNormalization): training-mode outputs not supported", n->name);
    if (node_attr_int(n, "training_mode", 0))
        return rt_err(err, errlen, RT_EUNSUPPORTED,
                      "node '%s' (BatchNormalization): training_mode not supported", n->name);
    tensor_t *x = node_input(g, n, 0);
    for (int i = 0; i < 5; i++) {
        tensor_t *t = node_input(g, n, i);
        if (t->dtype != DT_FLOAT)
            return rt_err(err, errlen, RT_EUNSUPPORTED,
                          "node '%s' (BatchNormalization): dtype %s not supported (fp32 only)",
                          n->name, dtype_name(t->dtype));
        if (tensor_numel(t) < 0)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (BatchNormalization): input shape unknown",
                          n->name);
    }
    if (x->ndim < 2)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (BatchNormalization): input rank %d < 2",
                      n->name, x->ndim);
    p->N = x->dims[0];
    p->C = x->dims[1];
    p->inner = 1;
    for (int i = 2; i < x->ndim; i++)
        p->inner *= x->dims[i];
    p->np = tensor_numel(node_input(g, n, 1));
    if (p->np != p->C && !(p->np == p->C * p->inner && p->inner > 1))
        return rt_err(err, errlen, RT_ESHAPE,
                      "node '%s' (BatchNormalization): scale has %lld values for %lld channels",
                      n->name, (long long)p->np, (long long)p->C);
    for (int i = 2; i < 5; i++)
        if (tensor_numel(node_input(g, n, i)) != p->np)
            return rt_err(err, errlen, RT_ESHAPE,
                          "node '%s' (BatchNormalization): parameter %d has a different size than scale",
                          n->name, i);
    return RT_OK;
}

static int bn_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    bn_p p;
    int rc = bn_check(g, n, &p, err, errlen);
    if (rc)
        return rc;
    tensor_t *x = node_input(g, n, 0);
    tensor_set_shape(node_output(g, n, 0), DT_FLOAT, x->ndim, x->dims);
    return RT_OK;
}

static void bn_fold(graph_t *g, const node_t *n, bn_p *p)
{
    const float *sc = node_input(g, n, 1)->data, *bi = node_input(g, n, 2)->data;
    const float *mu = node_input(g, n, 3)->data, *va = node_input(g, n, 4)->data;
    float eps = node_attr_float(n, "epsilon", 1e-5f);
    for (int64_t i = 0; i < p->np; i++) {
        float a = sc[i] / sqrtf(va[i] + eps);
        p->a[i] = a;
        p->b[i] = bi[i] - mu[i] * a;
    }
}

static int bn_params_const(graph_t *g, const node_t *n)
{
    for (int i = 1; i < 5; i++)
        if (node_input(g, n, i)->kind != TK_CONST)
            return 0;
    return 1;
}

static int bn_prepare(graph_t *g, node_t *n, char *err, size_t errlen)
{
    bn_p *p = xcalloc(1, sizeof *p);
    int rc = bn_check(g, n, p, err, errlen);
    if (rc) {
        free(p);
        return rc;
    }
    p->a = xmalloc((size_t)p->np * sizeof(float) + 1);
    p->b = xmalloc((size_t)p->np * sizeof(float) + 1);
    if (bn_params_const(g, n)) {
        bn_fold(g, n, p);
        p->folded = 1;
    }
    if (n->priv) {
        bn_p *old = n->priv;
        free(old->a);
        free(old->b);
        free(old);
    }
    n->priv = p;
    return RT_OK;
}

static void bn_release(node_t *n)
{
    bn_p *p = n->priv;
    if (p) {
        free(p->a);
        free(p->b);
        free(p);
    }
    n->priv = NULL;
}

typedef struct bn_job {
    const bn_p *p;
    const float *x;
    float *y;
} bn_job;

NORM_HOT static void bn_range(void *arg, int64_t t0, int64_t t1)
{
    const bn_job *j = arg;
    const bn_p *p = j->p;
    int per_elem = p->np != p->C;

    for (int64_t t = t0; t < t1; t++) {
        int64_t c = t % p->C;
        const float *x = j->x + t * p->inner;
        float *y = j->y + t * p->inner;
        if (per_elem) {
            const float *a = p->a + c * p->inner, *b = p->b + c * p->inner;
            for (int64_t i = 0; i < p->inner; i++)
                y[i] = x[i] * a[i] + b[i];
        } else {
            float a = p->a[c], b = p->b[c];
            for (int64_t i = 0; i < p->inner; i++)
                y[i] = x[i] * a + b;
        }
    }
}

static int bn_run(op_ctx *c, graph_t *g, node_t *n)
{
    bn_p local = {0}, *p = n->priv;
    int rc = RT_OK;
    if (!p) {
        rc = bn_check(g, n, &local, c->err, c->errlen);
        if (rc)
            return rc;
        local.a = xmalloc((size_t)local.np * sizeof(float) + 1);
        local.b = xmalloc((size_t)local.np * sizeof(float) + 1);
        bn_fold(g, n, &local);
        p = &local;
    } else if (!bn_params_const(g, n)) {
        bn_fold(g, n, p);
    }
    bn_job j = {.p = p, .x = node_input(g, n, 0)->data, .y = node_output(g, n, 0)->data};
    if (p->N * p->C * p->inner < (1 << 16))
        bn_range(&j, 0, p->N * p->C); /* small: waking the pool costs more */
    else
        op_parallel_for(c, p->N * p->C, bn_range, &j);
    if (p == &local) {
        free(local.a);
        free(local.b);
    }
    return rc;
}

int bn_channel_affine(const void *priv, int64_t *channels, const float **a, const float **b)
{
    const bn_p *p = priv;
    if (!p || !p->folded || p->np != p->C)
        return 0;
    *channels = p->C;
    *a = p->a;
    *b = p->b;
    return 1;
}

const op_def exec_ops_norm[] = {
    {"BatchNormalization", "", bn_infer, bn_prepare, bn_run, bn_release, NULL},
    {0},
};
