/* runtime/exec/ops_gemm.c — Gemm and MatMul, fp32, on OpenBLAS sgemm.
 *
 * Work is split into row blocks (or column blocks when there are few rows),
 * each thread calling single-threaded sgemm on its part. */
#include "runtime/exec/kernels.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

static int fp32_only(const node_t *n, const tensor_t *t, char *err, size_t errlen)
{
    if (t->dtype != DT_FLOAT)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): dtype %s not supported (fp32 only)",
                      n->name, n->op, dtype_name(t->dtype));
    if (!tensor_shape_known(t))
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): input shape unknown", n->name, n->op);
    return RT_OK;
}

/* One sgemm problem split into blocks: rows [r0, r0+rb) or columns. */
typedef struct mm_job {
    const float *a, *b;
    float *c;
    int64_t M, N, K;
    int ta, tb;
    int64_t lda, ldb, ldc;
    float alpha, beta;
    /* batches (MatMul) */
    int64_t nbatch;
    int nd;                        /* batch rank */
    int64_t bdims[MODEL_MAX_DIMS]; /* output batch dims */
    int64_t sa[MODEL_MAX_DIMS], sb[MODEL_MAX_DIMS]; /* batch strides in matrices */
    /* blocking */
    int64_t rblk, nrb;             /* rows per block, blocks per batch */
    int64_t cblk, ncb;             /* columns per block, blocks per batch */
} mm_job;

static void mm_block(const mm_job *j, const float *a, const float *b, float *c, int64_t rb, int64_t cb)
{
    int64_t r0 = rb * j->rblk, nr = j->M - r0 < j->rblk ? j->M - r0 : j->rblk;
    int64_t c0 = cb * j->cblk, nc = j->N - c0 < j->cblk ? j->N - c0 : j->cblk;
    const float *ap = j->ta ? a + r0 : a + r0 * j->lda;
    const float *bp = j->tb ? b + c0 * j->ldb : b + c0;
    cblas_sgemm(CblasRowMajor, j->ta ? CblasTrans : CblasNoTrans, j->tb ? CblasTrans : CblasNoTrans,
                (int)nr, (int)nc, (int)j->K, j->alpha, ap, (int)j->lda, bp, (int)j->ldb, j->beta,
                c + r0 * j->ldc + c0, (int)j->ldc);
}

static void mm_range(void *arg, int64_t t0, int64_t t1)
{
    const mm_job *j = arg;
    int64_t per = j->nrb * j->ncb;

    for (int64_t t = t0; t < t1; t++) {
        int64_t bi = t / per, blk = t % per;
        int64_t oa = 0, ob = 0, rem = bi;
        for (int d = j->nd - 1; d >= 0; d--) {
            int64_t idx = rem % j->bdims[d];
            rem /= j->bdims[d];
            oa += idx * j->sa[d];
            ob += idx * j->sb[d];
        }
        mm_block(j, j->a + oa * j->M * j->K, j->b + ob * j->K * j->N, j->c + bi * j->M * j->N,
                 blk / j->ncb, blk % j->ncb);
    }
}

/* Picks row or column blocks so that every thread gets work. */
static void mm_plan(mm_job *j, int nthreads)
{
    int64_t want = nthreads > 1 ? 2 * nthreads : 1;
    int64_t per = ceil_div(want, j->nbatch > 0 ? j->nbatch : 1);
    j->rblk = j->M;
    j->cblk = j->N;
    if (per > 1 && j->M * j->N * j->K >= (1 << 18)) {
        if (j->M >= 4 * per) {
            j->rblk = ceil_div(j->M, per);
        } else if (j->N >= 16 * per) {
            j->cblk = ceil_div(ceil_div(j->N, per), 16) * 16;
        }
    }
    if (j->rblk < 1)
        j->rblk = 1;
    if (j->cblk < 1)
        j->cblk = 1;
    j->nrb = ceil_div(j->M, j->rblk);
    j->ncb = ceil_div(j->N, j->cblk);
}

/* ---- Gemm -------------------------------------------------------------- */

static int gemm_dims(graph_t *g, const node_t *n, int64_t *M, int64_t *N, int64_t *K, char *err,
                     size_t errlen)
{
    int rc = check_arity(n, 2, 3, 1, err, errlen);
    if (rc)
        return rc;
    tensor_t *a = node_input(g, n, 0), *b = node_input(g, n, 1), *c = node_input(g, n, 2);
    if ((rc = fp32_only(n, a, err, errlen)) || (rc = fp32_only(n, b, err, errlen)) ||
        (c && (rc = fp32_only(n, c, err, errlen))))
        return rc;
    if (a->ndim != 2 || b->ndim != 2)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Gemm): A and B must be 2-D (got %d-D, %d-D)",
                      n->name, a->ndim, b->ndim);
    int ta = node_attr_int(n, "transA", 0) != 0, tb = node_attr_int(n, "transB", 0) != 0;
    *M = ta ? a->dims[1] : a->dims[0];
    *K = ta ? a->dims[0] : a->dims[1];
    int64_t kb = tb ? b->dims[1] : b->dims[0];
    *N = tb ? b->dims[0] : b->dims[1];
    if (kb != *K)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Gemm): inner dimensions %lld and %lld differ",
                      n->name, (long long)*K, (long long)kb);
    if (c) {
        int64_t out[2] = {*M, *N}, bc[2];
        if (c->ndim > 2 || broadcast_shape(2, out, c->ndim, c->dims, bc) != 2 || bc[0] != *M ||
            bc[1] != *N)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Gemm): C does not broadcast to %lldx%lld",
                          n->name, (long long)*M, (long long)*N);
    }
    return RT_OK;
}

static int gemm_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int64_t d[2], k;
    int rc = gemm_dims(g, n, &d[0], &d[1], &k, err, errlen);
    if (rc)
        return rc;
    tensor_set_shape(node_output(g, n, 0), DT_FLOAT, 2, d);
    return RT_OK;
}

static int gemm_run(op_ctx *ctx, graph_t *g, node_t *n)
{
    int64_t M, N, K;
    int rc = gemm_dims(g, n, &M, &N, &K, ctx->err, ctx->errlen);
    if (rc)
        return rc;
    tensor_t *a = node_input(g, n, 0), *b = node_input(g, n, 1), *c = node_input(g, n, 2);
    float *y = node_output(g, n, 0)->data;
    float alpha = node_attr_float(n, "alpha", 1.0f), beta = node_attr_float(n, "beta", 1.0f);
    mm_job j = {
        .a = a->data, .b = b->data, .c = y, .M = M, .N = N, .K = K,
        .ta = node_attr_int(n, "transA", 0) != 0, .tb = node_attr_int(n, "transB", 0) != 0,
        .ldc = N, .alpha = alpha, .beta = 0.0f, .nbatch = 1, .nd = 0,
    };
    j.lda = a->dims[1];
    j.ldb = b->dims[1];
    if (M == 0 || N == 0)
        return RT_OK;
    if (c && beta != 0.0f) {
        /* Y starts as beta * C broadcast, then sgemm accumulates into it. */
        const float *cv = c->data;
        int64_t cr = c->ndim == 2 ? c->dims[0] : 1;
        int64_t cc = c->ndim >= 1 ? c->dims[c->ndim - 1] : 1;
        for (int64_t i = 0; i < M; i++) {
            const float *crow = cv + (cr == 1 ? 0 : i) * cc;
            float *yr = y + i * N;
            if (cc == 1) {
                for (int64_t q = 0; q < N; q++)
                    yr[q] = beta * crow[0];
            } else {
                for (int64_t q = 0; q < N; q++)
                    yr[q] = beta * crow[q];
            }
        }
        j.beta = 1.0f;
    }
    if (K == 0) {
        if (j.beta == 0.0f)
            memset(y, 0, (size_t)(M * N) * sizeof(float));
        return RT_OK;
    }
    mm_plan(&j, ctx->nthreads);
    op_parallel_for(ctx, j.nrb * j.ncb, mm_range, &j);
    return RT_OK;
}

/* ---- MatMul ------------------------------------------------------------ */

typedef struct mm_shape {
    int64_t M, N, K;
    int nd;                         /* output batch rank */
    int64_t bdims[MODEL_MAX_DIMS];
    int64_t sa[MODEL_MAX_DIMS], sb[MODEL_MAX_DIMS];
    int out_nd;
    int64_t out[MODEL_MAX_DIMS];
} mm_shape;

static int matmul_shape(graph_t *g, const node_t *n, mm_shape *s, char *err, size_t errlen)
{
    int rc = check_arity(n, 2, 2, 1, err, errlen);
    if (rc)
        return rc;
    tensor_t *a = node_input(g, n, 0), *b = node_input(g, n, 1);
    if ((rc = fp32_only(n, a, err, errlen)) || (rc = fp32_only(n, b, err, errlen)))
        return rc;
    if (a->ndim < 1 || b->ndim < 1)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (MatMul): scalar operand", n->name);
    /* 1-D operands: A gets a leading 1, B a trailing 1, both removed afterwards. */
    int64_t ad[MODEL_MAX_DIMS + 1], bd[MODEL_MAX_DIMS + 1];
    int na = a->ndim, nb = b->ndim;
    if (na == 1) {
        ad[0] = 1;
        ad[1] = a->dims[0];
        na = 2;
    } else {
        memcpy(ad, a->dims, na * sizeof(int64_t));
    }
    if (nb == 1) {
        bd[0] = b->dims[0];
        bd[1] = 1;
        nb = 2;
    } else {
        memcpy(bd, b->dims, nb * sizeof(int64_t));
    }
    s->M = ad[na - 2];
    s->K = ad[na - 1];
    s->N = bd[nb - 1];
    if (bd[nb - 2] != s->K)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (MatMul): inner dimensions %lld and %lld differ",
                      n->name, (long long)s->K, (long long)bd[nb - 2]);
    s->nd = broadcast_shape(na - 2, ad, nb - 2, bd, s->bdims);
    if (s->nd < 0 || s->nd + 2 > MODEL_MAX_DIMS)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (MatMul): batch dimensions do not broadcast",
                      n->name);
    broadcast_strides(na - 2, ad, s->nd, s->sa);
    broadcast_strides(nb - 2, bd, s->nd, s->sb);
    s->out_nd = 0;
    for (int i = 0; i < s->nd; i++)
        s->out[s->out_nd++] = s->bdims[i];
    if (a->ndim > 1)
        s->out[s->out_nd++] = s->M;
    if (b->ndim > 1)
        s->out[s->out_nd++] = s->N;
    return RT_OK;
}

static int matmul_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    mm_shape s;
    int rc = matmul_shape(g, n, &s, err, errlen);
    if (rc)
        return rc;
    tensor_set_shape(node_output(g, n, 0), DT_FLOAT, s.out_nd, s.out);
    return RT_OK;
}

static int matmul_run(op_ctx *ctx, graph_t *g, node_t *n)
{
    mm_shape s;
    int rc = matmul_shape(g, n, &s, ctx->err, ctx->errlen);
    if (rc)
        return rc;
    mm_job j = {
        .a = node_input(g, n, 0)->data, .b = node_input(g, n, 1)->data,
        .c = node_output(g, n, 0)->data,
        .M = s.M, .N = s.N, .K = s.K, .lda = s.K, .ldb = s.N, .ldc = s.N,
        .alpha = 1.0f, .beta = 0.0f, .nd = s.nd,
    };
    j.nbatch = 1;
    for (int i = 0; i < s.nd; i++) {
        j.bdims[i] = s.bdims[i];
        j.sa[i] = s.sa[i];
        j.sb[i] = s.sb[i];
        j.nbatch *= s.bdims[i];
    }
    if (j.nbatch == 0 || s.M == 0 || s.N == 0)
        return RT_OK;
    if (s.K == 0) {
        memset(j.c, 0, (size_t)(j.nbatch * s.M * s.N) * sizeof(float));
        return RT_OK;
    }
    /* B shared by every batch and A not broadcast: one tall product. */
    int b_shared = 1, a_full = 1;
    for (int i = 0; i < s.nd; i++) {
        if (s.sb[i] != 0)
            b_shared = 0;
        if (s.sa[i] == 0 && s.bdims[i] != 1)
            a_full = 0;
    }
    if (s.nd > 0 && b_shared && a_full) {
        j.M = s.M * j.nbatch;
        j.nbatch = 1;
        j.nd = 0;
    }
    mm_plan(&j, ctx->nthreads);
    op_parallel_for(ctx, j.nbatch * j.nrb * j.ncb, mm_range, &j);
    return RT_OK;
}

const op_def exec_ops_gemm[] = {
    {"Gemm", "", gemm_infer, NULL, gemm_run, NULL, NULL},
    {"MatMul", "", matmul_infer, NULL, matmul_run, NULL, NULL},
    {0},
};
