/* runtime/api/api_matmul.c — rknn_matmul_* (include/rknn_matmul_api.h): matmul
 * contexts, their memory bindings, quantization parameters, shapes, the computation
 * and the NPU model's cost of each run (a level-4 row at RKNN_LOG_LEVEL >= 4).
 *
 * A matmul handle lives in this file's own registry (handles from 0x4d4d0000), so
 * rknn_create_mem* accept it (api_mem.c asks api_matmul_known) while the model calls
 * refuse it. The registry has one lock, held only to find, add or remove a handle; each
 * context has its own lock, so contexts run side by side (as on a board, where an app
 * drives several matmul contexts from its threads) and calls on one context queue.
 * A context found by a call stays alive until that call leaves, even if another thread
 * destroys it meanwhile (refs). */
#include "runtime/api/api_internal.h"
#include "runtime/api/api_matmul.h"
#include "runtime/npu/npu.h"
#include "util/util.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mm_ctx {
    rknn_matmul_ctx handle;
    rknn_matmul_info info;
    char chip[16];
    int n_shapes, cur;
    rknn_matmul_shape *shapes;
    mm_geom g;                  /* of the current shape */
    rknn_matmul_io_attr attr;   /* of the current shape */
    rknn_tensor_mem *mem[3];    /* A, B, C */
    /* quantization: A and C per layer; B per layer, channel (N) or group ([K/G][N]) */
    float a_scale, c_scale;
    int32_t a_zp, c_zp;
    float *b_scale;
    int32_t *b_zp;
    int b_len;
    unsigned core_mask;
    npu_graph_t *cost;          /* the NPU model's layer for the current shape */
    pthread_mutex_t lock;       /* held by the call using the context */
    int refs;                   /* calls between enter() and leave(); under mm_lock */
    int destroyed;              /* unlinked; the last leave() frees it */
    struct mm_ctx *next;
} mm_ctx;

static pthread_mutex_t mm_lock = PTHREAD_MUTEX_INITIALIZER;
static mm_ctx *mm_list;
static rknn_matmul_ctx mm_next = 0x4d4d0000;

static mm_ctx *find(rknn_matmul_ctx h, const char *fn)
{
    for (mm_ctx *c = mm_list; c; c = c->next)
        if (c->handle == h)
            return c;
    API_E("%s, matmul context 0x%llx is invalid: use the context rknn_matmul_create returned, "
          "before rknn_matmul_destroy", fn, (unsigned long long)h);
    return NULL;
}

static void ctx_free(mm_ctx *c)
{
    npu_graph_free(c->cost);
    free(c->shapes);
    free(c->b_scale);
    free(c->b_zp);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* Finds h and takes its context's lock; NULL (E line) if unknown. leave() ends the call. */
static mm_ctx *enter(rknn_matmul_ctx h, const char *fn)
{
    mm_ctx *c;

    pthread_mutex_lock(&mm_lock);
    if ((c = find(h, fn)))
        c->refs++;
    pthread_mutex_unlock(&mm_lock);
    if (c)
        pthread_mutex_lock(&c->lock);
    return c;
}

static void leave(mm_ctx *c)
{
    int last;

    pthread_mutex_unlock(&c->lock);
    pthread_mutex_lock(&mm_lock);
    last = --c->refs == 0 && c->destroyed;
    pthread_mutex_unlock(&mm_lock);
    if (last)
        ctx_free(c);
}

int api_matmul_known(rknn_context h)
{
    int found = 0;

    pthread_mutex_lock(&mm_lock);
    for (mm_ctx *c = mm_list; c && !found; c = c->next)
        found = c->handle == h;
    pthread_mutex_unlock(&mm_lock);
    return found;
}

static int b_groups(const mm_ctx *c)
{
    int q = c->info.B_quant_type;
    if (q == RKNN_QUANT_TYPE_PER_CHANNEL_SYM || q == RKNN_QUANT_TYPE_PER_CHANNEL_ASYM)
        return -1; /* per column */
    if (q == RKNN_QUANT_TYPE_PER_GROUP_SYM || q == RKNN_QUANT_TYPE_PER_GROUP_ASYM)
        return c->g.K / c->info.group_size;
    return 0; /* per layer */
}

static int b_params_len(const mm_ctx *c)
{
    int gr = b_groups(c);
    return gr < 0 ? c->g.N : gr == 0 ? 1 : gr * c->g.N;
}

static void b_params_reset(mm_ctx *c)
{
    free(c->b_scale);
    free(c->b_zp);
    c->b_len = b_params_len(c);
    c->b_scale = xmalloc(sizeof(float) * (size_t)c->b_len);
    c->b_zp = xcalloc((size_t)c->b_len, sizeof(int32_t));
    for (int i = 0; i < c->b_len; i++)
        c->b_scale[i] = 1.0f;
}

/* ---- the NPU model ------------------------------------------------------------------ */

static int npu_dtype_of(int rt)
{
    return rt == RKNN_TENSOR_INT8 ? NPU_INT8 : rt == RKNN_TENSOR_INT4 ? NPU_INT4 : NPU_FP16;
}

/* One exMatMul layer: A (M,K) and B (K,N) read, C (M,N) written, costed as the
 * runtime costs a MatMul of two activations (npu_cost.c). B is read every run. */
static void cost_build(mm_ctx *c)
{
    const npu_platform_t *p = npu_platform_find(c->chip);
    npu_graph_t *ng;
    npu_layer_t *l;
    char err[256];

    npu_graph_free(c->cost);
    c->cost = NULL;
    if (!p)
        return;
    ng = xcalloc(1, sizeof(*ng));
    ng->plat = p;
    ng->dtype = npu_dtype_of(c->g.t.a);
    ng->cores = 1;
    ng->l = xcalloc(1, sizeof(*ng->l));
    ng->n = ng->cap = 1;
    l = &ng->l[0];
    l->id = 1;
    snprintf(l->optype, sizeof(l->optype), "exMatMul");
    l->fullname = xstrdup("MatMul:rknn_matmul");
    l->target = NPU_TGT_NPU;
    l->kind = NPU_K_MATMUL;
    l->dtype = ng->dtype;
    snprintf(l->datatype, sizeof(l->datatype), "%s", npu_dtype_name(l->dtype));
    l->n_in = 2;
    l->n_out = 1;
    l->in[0] = (npu_shape_t){2, {c->g.M, c->g.K}};
    l->in[1] = (npu_shape_t){2, {c->g.K, c->g.N}};
    l->in_const[1] = 1;
    l->out[0] = (npu_shape_t){2, {c->g.M, c->g.N}};
    l->out_tensor = -1;
    l->ic = c->g.K;
    l->oc = c->g.N;
    l->kh = l->kw = l->group = 1;
    l->out_pixels = c->g.M;
    if (c->core_mask && npu_set_core_mask(ng, c->core_mask, err, sizeof(err)) != 0)
        npu_set_core_mask(ng, RKNN_NPU_CORE_AUTO, err, sizeof(err));
    npu_cost(ng);
    c->cost = ng;
}

/* ---- creation ---------------------------------------------------------------------- */

static int shape_select(mm_ctx *c, int i, const char *fn)
{
    int st = mm_geom_init(&c->g, c->chip, &c->info, c->shapes[i].M, c->shapes[i].K,
                          c->shapes[i].N, fn);
    if (st != RKNN_SUCC)
        return st;
    c->cur = i;
    mm_fill_attrs(&c->g, &c->attr);
    cost_build(c);
    return RKNN_SUCC;
}

static int create(rknn_matmul_ctx *out, rknn_matmul_info *info, int n, const rknn_matmul_shape *shapes,
                  rknn_matmul_io_attr *io, const char *fn)
{
    const char *target = getenv("RKNN_TARGET");
    mm_ctx *c = NULL;
    int st = RKNN_ERR_PARAM_INVALID;

    if (!out || !info || !io || n < 1 || !shapes) {
        API_E("%s, ctx, info, the shapes and io_attr must not be NULL (and shape_num >= 1)", fn);
        goto out;
    }
    c = xcalloc(1, sizeof(*c));
    pthread_mutex_init(&c->lock, NULL);
    c->info = *info;
    snprintf(c->chip, sizeof(c->chip), "%s", target && *target ? target : "rk3588");
    c->a_scale = c->c_scale = 1.0f;
    c->n_shapes = n;
    c->shapes = xmalloc(sizeof(*c->shapes) * (size_t)n);
    memcpy(c->shapes, shapes, sizeof(*c->shapes) * (size_t)n);
    for (int i = 0; i < n; i++) {
        if (shapes[i].K != shapes[0].K || shapes[i].N != shapes[0].N) {
            API_E("%s, dynamic_shapes[%d] is %dx%dx%d but [0] is %dx%dx%d: only M may change "
                  "between shapes (K and N are B's)", fn, i, shapes[i].M, shapes[i].K,
                  shapes[i].N, shapes[0].M, shapes[0].K, shapes[0].N);
            st = RKNN_ERR_PARAM_INVALID;
            goto out;
        }
        /* every shape is checked (and described) now, as the vendor does */
        if ((st = shape_select(c, i, fn)) != RKNN_SUCC)
            goto out;
        io[i] = c->attr;
    }
    {
        int q = info->B_quant_type;
        st = RKNN_ERR_PARAM_INVALID;
        if (q < RKNN_QUANT_TYPE_PER_LAYER_SYM || q > RKNN_QUANT_TYPE_PER_GROUP_ASYM ||
            info->AC_quant_type != 0) {
            API_E("%s, B_quant_type %d / AC_quant_type %d: B takes 0-5 "
                  "(rknn_matmul_quant_type), A and C only per layer (0)", fn, q, info->AC_quant_type);
            goto out;
        }
        if ((q == RKNN_QUANT_TYPE_PER_GROUP_SYM || q == RKNN_QUANT_TYPE_PER_GROUP_ASYM) &&
            (info->group_size <= 0 || shapes[0].K % info->group_size)) {
            API_E("%s, per-group B needs group_size > 0 dividing K=%d (got %d)", fn, shapes[0].K,
                  info->group_size);
            goto out;
        }
    }
    if ((st = shape_select(c, 0, fn)) != RKNN_SUCC)
        goto out;
    b_params_reset(c);
    pthread_mutex_lock(&mm_lock);
    c->handle = mm_next++;
    c->next = mm_list;
    mm_list = c;
    pthread_mutex_unlock(&mm_lock);
    *out = c->handle;
    c = NULL;
    st = RKNN_SUCC;
out:
    if (c)
        ctx_free(c);
    return st;
}

int rknn_matmul_create(rknn_matmul_ctx *ctx, rknn_matmul_info *info, rknn_matmul_io_attr *io_attr)
{
    rknn_matmul_shape s;

    if (!info) {
        API_E("rknn_matmul_create, info is NULL");
        return RKNN_ERR_PARAM_INVALID;
    }
    s = (rknn_matmul_shape){info->M, info->K, info->N};
    return create(ctx, info, 1, &s, io_attr, "rknn_matmul_create");
}

int rknn_matmul_create_dynamic_shape(rknn_matmul_ctx *ctx, rknn_matmul_info *info, int shape_num,
                                     rknn_matmul_shape dynamic_shapes[],
                                     rknn_matmul_io_attr io_attrs[])
{
    return create(ctx, info, shape_num, dynamic_shapes, io_attrs,
                  "rknn_matmul_create_dynamic_shape");
}

int rknn_matmul_destroy(rknn_matmul_ctx ctx)
{
    mm_ctx **pp, *c = NULL;
    int now = 0;

    pthread_mutex_lock(&mm_lock);
    for (pp = &mm_list; *pp; pp = &(*pp)->next) {
        if ((*pp)->handle == ctx) {
            c = *pp;
            *pp = c->next;
            c->destroyed = 1;
            now = c->refs == 0; /* else the call still using it frees it as it leaves */
            break;
        }
    }
    pthread_mutex_unlock(&mm_lock);
    if (!c) {
        API_E("rknn_matmul_destroy, matmul context 0x%llx is invalid (destroyed twice, or not "
              "made by rknn_matmul_create)", (unsigned long long)ctx);
        return RKNN_ERR_CTX_INVALID;
    }
    if (now)
        ctx_free(c);
    return RKNN_SUCC;
}

/* ---- settings ------------------------------------------------------------------------- */

int rknn_matmul_set_io_mem(rknn_matmul_ctx ctx, rknn_tensor_mem *mem, rknn_matmul_tensor_attr *attr)
{
    static const char *const fn = "rknn_matmul_set_io_mem";
    const rknn_matmul_tensor_attr *want[3];
    mm_ctx *c;
    int st = RKNN_ERR_PARAM_INVALID, which = -1;

    if (!(c = enter(ctx, fn)))
        return RKNN_ERR_CTX_INVALID;
    if (!mem || !attr || !api_mem_alive(mem)) {
        API_E("%s, mem must be a live rknn_tensor_mem from rknn_create_mem* and attr one of the "
              "io attributes rknn_matmul_create filled", fn);
        goto out;
    }
    want[0] = &c->attr.A;
    want[1] = &c->attr.B;
    want[2] = &c->attr.C;
    for (int i = 0; i < 3; i++)
        if (strncmp(attr->name, want[i]->name, sizeof(attr->name)) == 0)
            which = i;
    if (which < 0) {
        API_E("%s, attr->name '%.32s' is none of A, B, C: pass &io_attr.A, .B or .C", fn, attr->name);
        goto out;
    }
    if (api_mem_avail(mem) < want[which]->size) {
        API_E("%s, %s needs %u bytes in the current shape (M=%d K=%d N=%d), mem holds %zu: "
              "allocate io_attr.%s.size of the largest shape", fn, want[which]->name,
              want[which]->size, c->g.M, c->g.K, c->g.N, api_mem_avail(mem), want[which]->name);
        goto out;
    }
    c->mem[which] = mem;
    st = RKNN_SUCC;
out:
    leave(c);
    return st;
}

int rknn_matmul_set_core_mask(rknn_matmul_ctx context, rknn_core_mask core_mask)
{
    static const char *const fn = "rknn_matmul_set_core_mask";
    const npu_platform_t *p;
    unsigned cores;
    char err[256];
    mm_ctx *c;
    int st = RKNN_ERR_PARAM_INVALID;

    if (!(c = enter(context, fn)))
        return RKNN_ERR_CTX_INVALID;
    p = npu_platform_find(c->chip);
    if (!p || p->cores < 2) {
        API_E("%s, %s has one NPU core: a core mask applies to RK3588 and RK3576 only", fn, c->chip);
        st = RKNN_ERR_FAIL;
        goto out;
    }
    if (npu_core_mask_check(p, (unsigned)core_mask, &cores, err, sizeof(err)) != 0) {
        API_E("%s, %s", fn, err);
        goto out;
    }
    c->core_mask = (unsigned)core_mask;
    cost_build(c);
    st = RKNN_SUCC;
out:
    leave(c);
    return st;
}

static int quantized(int rt)
{
    return rt == RKNN_TENSOR_INT8 || rt == RKNN_TENSOR_INT4;
}

int rknn_matmul_set_quant_params(rknn_matmul_ctx context, rknn_quant_params *params)
{
    static const char *const fn = "rknn_matmul_set_quant_params";
    mm_ctx *c;
    int st = RKNN_ERR_PARAM_INVALID;

    if (!(c = enter(context, fn)))
        return RKNN_ERR_CTX_INVALID;
    if (!params || !params->scale || params->scale_len < 1 || (params->zp_len > 0 && !params->zp)) {
        API_E("%s, params needs a name, scale[scale_len >= 1] and, if zp_len > 0, zp[zp_len]", fn);
        goto out;
    }
    if (!strcmp(params->name, "B")) {
        int want = b_params_len(c);
        if (!quantized(c->g.t.b)) {
            API_E("%s, B is %s in %s: it takes no quantization parameters", fn,
                  get_type_string(c->g.t.b), get_matmul_type_string(c->info.type));
            goto out;
        }
        if (params->scale_len != want || (params->zp_len != 0 && params->zp_len != want)) {
            API_E("%s, B's %s parameters take %d scale(s) and 0 or %d zero point(s) (got %d, %d)",
                  fn, b_groups(c) < 0 ? "per-channel" : b_groups(c) ? "per-group" : "per-layer",
                  want, want, params->scale_len, params->zp_len);
            goto out;
        }
        memcpy(c->b_scale, params->scale, sizeof(float) * (size_t)want);
        if (params->zp_len)
            memcpy(c->b_zp, params->zp, sizeof(int32_t) * (size_t)want);
        else
            memset(c->b_zp, 0, sizeof(int32_t) * (size_t)want);
    } else if (!strcmp(params->name, "A") || !strcmp(params->name, "C")) {
        int is_a = params->name[0] == 'A';
        int rt = is_a ? c->g.t.a : c->g.t.c;
        if (!quantized(rt) || params->scale_len != 1 || params->zp_len > 1) {
            API_E("%s, %s is %s in %s: %s", fn, params->name, get_type_string(rt),
                  get_matmul_type_string(c->info.type),
                  quantized(rt) ? "it is per layer: one scale, 0 or 1 zero point"
                                : "it takes no quantization parameters");
            goto out;
        }
        if (is_a) {
            c->a_scale = params->scale[0];
            c->a_zp = params->zp_len ? params->zp[0] : 0;
        } else {
            c->c_scale = params->scale[0];
            c->c_zp = params->zp_len ? params->zp[0] : 0;
        }
    } else {
        API_E("%s, params->name '%.32s' is none of A, B, C: copy io_attr.A/B/C.name into it", fn,
              params->name);
        goto out;
    }
    if (!(params->scale[0] > 0)) {
        API_E("%s, %s's scale must be > 0", fn, params->name);
        goto out;
    }
    st = RKNN_SUCC;
out:
    leave(c);
    return st;
}

int rknn_matmul_get_quant_params(rknn_matmul_ctx ctx, rknn_quant_params *params, float *scale)
{
    static const char *const fn = "rknn_matmul_get_quant_params";
    mm_ctx *c;
    int st = RKNN_ERR_PARAM_INVALID;

    if (!(c = enter(ctx, fn)))
        return RKNN_ERR_CTX_INVALID;
    if (!params || !scale || c->info.type != RKNN_INT8_MM_INT8_TO_INT32 ||
        (params->scale_len > 0 && !params->scale) || (params->zp_len > 0 && !params->zp)) {
        API_E("%s, works on an RKNN_INT8_MM_INT8_TO_INT32 context with params (scale/zp arrays "
              "of scale_len/zp_len) and scale not NULL", fn);
        goto out;
    }
    for (int i = 0; i < params->scale_len && i < c->b_len; i++)
        params->scale[i] = c->b_scale[i];
    for (int i = 0; i < params->zp_len && i < c->b_len; i++)
        params->zp[i] = c->b_zp[i];
    snprintf(params->name, sizeof(params->name), "B");
    *scale = c->a_scale;
    st = RKNN_SUCC;
out:
    leave(c);
    return st;
}

int rknn_matmul_set_dynamic_shape(rknn_matmul_ctx ctx, rknn_matmul_shape *shape)
{
    static const char *const fn = "rknn_matmul_set_dynamic_shape";
    mm_ctx *c;
    int st = RKNN_ERR_PARAM_INVALID;

    if (!(c = enter(ctx, fn)))
        return RKNN_ERR_CTX_INVALID;
    for (int i = 0; shape && i < c->n_shapes; i++) {
        if (c->shapes[i].M == shape->M && c->shapes[i].K == shape->K && c->shapes[i].N == shape->N) {
            st = i == c->cur ? RKNN_SUCC : shape_select(c, i, fn);
            goto out;
        }
    }
    {
        char list[512] = "";
        size_t len = 0;
        for (int i = 0; i < c->n_shapes && len < sizeof(list) - 40; i++)
            len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%dx%dx%d", i ? ", " : "",
                                    c->shapes[i].M, c->shapes[i].K, c->shapes[i].N);
        if (shape)
            API_E("%s, M=%d K=%d N=%d is not one of the context's shapes (MxKxN: %s): pass one "
                  "given to rknn_matmul_create_dynamic_shape", fn, shape->M, shape->K, shape->N, list);
        else
            API_E("%s, shape is NULL (shapes MxKxN: %s)", fn, list);
    }
out:
    leave(c);
    return st;
}

/* ---- the run ----------------------------------------------------------------------------- */

/* C(m,n) = sum over K groups g of sB(g,n) * sum_{k in g} (A(m,k) - zpA)(B(k,n) - zpB(g,n)),
 * times sA / sC (+ zpC) for a quantized C, times sA for a float C from an int8 A. The
 * group sums are one BLAS dgemm each: integer products and sums stay exact in double
 * (|sum| < 2^53). */
static void compute(const mm_ctx *c, const void *A, const void *B, void *C)
{
    const mm_geom *g = &c->g;
    int gr = b_groups(c), ng = gr > 0 ? gr : 1, gk = g->K / ng;
    int int_a = g->t.a != RKNN_TENSOR_FLOAT16, int_b = g->t.b != RKNN_TENSOR_FLOAT16;
    int int_c = g->t.c == RKNN_TENSOR_INT32 || g->t.c == RKNN_TENSOR_INT16;
    size_t M = (size_t)g->M, K = (size_t)g->K, N = (size_t)g->N;
    double *a = xmalloc(sizeof(double) * M * K);
    double *b = xmalloc(sizeof(double) * K * N);
    double *s = xmalloc(sizeof(double) * M * N);
    double *v = xcalloc(M * N, sizeof(double));
    double sa = int_a ? c->a_scale : 1.0;

    for (int32_t m = 0; m < g->M; m++)
        for (int32_t k = 0; k < g->K; k++)
            a[m * K + k] = mm_get(A, g->t.a, mm_a_index(g, m, k)) - (int_a ? c->a_zp : 0);
    for (int32_t k = 0; k < g->K; k++)
        for (int32_t n = 0; n < g->N; n++) {
            int pi = gr < 0 ? n : gr > 0 ? (k / gk) * g->N + n : 0;
            b[k * N + n] = mm_get(B, g->t.b, mm_b_index(g, k, n)) - (int_b ? c->b_zp[pi] : 0);
        }
    for (int q = 0; q < ng; q++) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, g->M, g->N, gk, 1.0,
                    a + (size_t)q * gk, g->K, b + (size_t)q * gk * N, g->N, 0.0, s, g->N);
        for (size_t i = 0; i < M * N; i++)
            v[i] += int_c || gr <= 0 ? s[i] : s[i] * (double)c->b_scale[q * g->N + i % N];
    }
    for (int32_t m = 0; m < g->M; m++)
        for (int32_t n = 0; n < g->N; n++) {
            double x = v[m * N + n];
            if (!int_c) {
                double sb = !int_b || gr > 0 ? 1.0 : c->b_scale[gr < 0 ? n : 0];
                x = gr > 0 ? x * sa : x * (sa * sb);
                if (g->t.c == RKNN_TENSOR_INT8)
                    x = x / (double)c->c_scale + c->c_zp;
            }
            mm_set(C, g->t.c, mm_c_index(g, m, n), x);
        }
    free(a);
    free(b);
    free(s);
    free(v);
}

int rknn_matmul_run(rknn_matmul_ctx ctx)
{
    static const char *const fn = "rknn_matmul_run";
    static const char *const nm[3] = {"A", "B", "C"};
    const rknn_matmul_tensor_attr *at[3];
    void *p[3];
    mm_ctx *c;
    int st = RKNN_ERR_PARAM_INVALID;

    if (!(c = enter(ctx, fn)))
        return RKNN_ERR_CTX_INVALID;
    at[0] = &c->attr.A;
    at[1] = &c->attr.B;
    at[2] = &c->attr.C;
    for (int i = 0; i < 3; i++) {
        if (!c->mem[i] || !api_mem_alive(c->mem[i]) || !(p[i] = api_mem_ptr(c->mem[i]))) {
            API_E("%s, %s has no live memory: rknn_create_mem(ctx, io_attr.%s.size) and "
                  "rknn_matmul_set_io_mem(ctx, mem, &io_attr.%s) first", fn, nm[i], nm[i], nm[i]);
            goto out;
        }
        if (api_mem_avail(c->mem[i]) < at[i]->size) {
            API_E("%s, %s's memory holds %zu bytes, the current shape (M=%d) needs %u: bind "
                  "memory of the largest shape", fn, nm[i], api_mem_avail(c->mem[i]), c->g.M,
                  at[i]->size);
            goto out;
        }
    }
    compute(c, p[0], p[1], p[2]);
    if (c->cost && api_log_level() >= 4)
        npu_print_perf_table(stderr, c->cost, NPU_PRINT_PREFIX); /* as a model's run does */
    st = RKNN_SUCC;
out:
    leave(c);
    return st;
}
