/* runtime/npu/npu_sram.c — the RK3588 NPU SRAM and the Internal-buffer plan.
 *
 * Two levels, as on the board (npu-hw.md §3.5, log-formats.md §4 and §7):
 *  - the driver's SRAM manager: a bitmap of 4 KiB pages over the SRAM the
 *    device tree gives the NPU (0xef000 on RK3588), first fit; printed by the
 *    debugfs `mm` node;
 *  - the runtime's Internal buffer: every tensor passed between layers gets a
 *    block, first fit in layer order with blocks reused after the last
 *    reader. The buffer's first pages are backed by the SRAM the runtime got
 *    from the driver (an SRAM GEM object is mapped [SRAM part][DDR part]), so
 *    a tensor's SramHit is its overlap with that part. The real level-3 table
 *    (sram-level3-mobilenetv1-rk3588-rkdoc-01) shows exactly this: hits are
 *    whole, partial (0x5b400 of 0x62000) or zero by address.
 *
 * Deviations from the vendor, on purpose: our blocks are 4 KiB aligned (the
 * vendor sample has 1 KiB offsets such as 0x18800); the IOVA addresses are our
 * own deterministic top-down layout below 4 GiB (the vendor's are the IOMMU's
 * choice). */
#include <stdlib.h>
#include <string.h>
#include "runtime/npu/npu.h"
#include "util/util.h"

#define PAGE NPU_SRAM_PAGE
#define IOVA_TOP 0x100000000ull

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

static int bit_get(const uint32_t *b, int64_t i)
{
    return (b[i / 32] >> (i % 32)) & 1u;
}

static void bits_set(uint32_t *b, int64_t from, int64_t n, int on)
{
    for (int64_t i = from; i < from + n; i++) {
        if (on)
            b[i / 32] |= 1u << (i % 32);
        else
            b[i / 32] &= ~(1u << (i % 32));
    }
}

/* Lowest start of n free pages; pages at or past npages count as free when
 * grow is set (the Internal buffer extends), else the run must end inside. */
static int64_t first_fit(const uint32_t *b, int64_t npages, int64_t n, int grow)
{
    int64_t run = 0, start = 0;

    for (int64_t p = 0;; p++) {
        if (p >= npages && !grow)
            return -1;
        if (p >= npages || !bit_get(b, p)) {
            if (!run)
                start = p;
            if (++run == n)
                return start;
        } else {
            run = 0;
        }
    }
}

/* ---- the driver's pool -------------------------------------------------- */

int npu_sram_pool_init(npu_sram_pool_t *sp, const npu_platform_t *p, char *err, size_t errlen)
{
    memset(sp, 0, sizeof(*sp));
    if (!p)
        return rt_err(err, errlen, RT_EINVAL, "SRAM: no platform");
    if (!p->sram_bytes)
        return rt_err(err, errlen, RT_EUNSUPPORTED,
                      "%s has no SRAM assigned to the NPU (RKNN_FLAG_ENABLE_SRAM works on "
                      "rk3588 only); internal tensors stay in DDR",
                      p->name);
    sp->plat = p;
    sp->size = p->sram_bytes;
    sp->npages = (int)(p->sram_bytes / PAGE);
    if (sp->npages > NPU_SRAM_MAX_PAGES)
        sp->npages = NPU_SRAM_MAX_PAGES;
    return 0;
}

int npu_sram_pool_alloc(npu_sram_pool_t *sp, uint32_t bytes, uint32_t *offset)
{
    int64_t n = (int64_t)align_up(bytes, PAGE) / PAGE, s;

    if (!bytes)
        return RT_EINVAL;
    s = first_fit(sp->bits, sp->npages, n, 0);
    if (s < 0)
        return RT_ENOMEM;
    bits_set(sp->bits, s, n, 1);
    *offset = (uint32_t)(s * PAGE);
    return 0;
}

void npu_sram_pool_free(npu_sram_pool_t *sp, uint32_t offset, uint32_t bytes)
{
    int64_t s = offset / PAGE, n = (int64_t)align_up(bytes, PAGE) / PAGE;

    if (s >= sp->npages)
        return;
    if (s + n > sp->npages)
        n = sp->npages - s;
    bits_set(sp->bits, s, n, 0);
}

uint32_t npu_sram_pool_free_bytes(const npu_sram_pool_t *sp)
{
    uint32_t n = 0;

    for (int i = 0; i < sp->npages; i++)
        n += !bit_get(sp->bits, i);
    return n * PAGE;
}

uint32_t npu_sram_pool_largest_free(const npu_sram_pool_t *sp)
{
    int best = 0, run = 0;

    for (int i = 0; i < sp->npages; i++) {
        run = bit_get(sp->bits, i) ? 0 : run + 1;
        if (run > best)
            best = run;
    }
    return (uint32_t)best * PAGE;
}

/* DRV rknpu_debugger.c `mm`: a legend line, rows "[%03d] [" of 32 marks, then
 * "SRAM total size: %d, used: %d, free: %d" (debugfs-mm-sram-bitmap-*). */
int npu_sram_pool_format(const npu_sram_pool_t *sp, char *buf, size_t len)
{
    size_t u = 0;
    uint32_t fr = npu_sram_pool_free_bytes(sp);

#define OUT(...)                                                               \
    do {                                                                       \
        int k_ = snprintf(buf + u, u < len ? len - u : 0, __VA_ARGS__);        \
        u += (size_t)(k_ > 0 ? k_ : 0);                                        \
    } while (0)
    OUT("SRAM bitmap: \"*\" - used, \".\" - free (1bit = 4KB)\n");
    for (int r = 0; r * 32 < sp->npages; r++) {
        char row[33];
        int n = 0;
        for (int i = r * 32; i < sp->npages && i < r * 32 + 32; i++)
            row[n++] = bit_get(sp->bits, i) ? '*' : '.';
        row[n] = 0;
        OUT("[%03d] [%s]\n", r, row);
    }
    OUT("SRAM total size: %u, used: %u, free: %u\n", (unsigned)sp->npages * PAGE,
        (unsigned)sp->npages * PAGE - fr, fr);
#undef OUT
    return u < len ? (int)u : -1;
}

int npu_sram_parse_mem_type(const char *s, uint32_t *bytes, char *err, size_t errlen)
{
    char *e;
    unsigned long kb;

    *bytes = 0;
    if (!s || !*s || !strcmp(s, "ddr"))
        return 0;
    if (strncmp(s, "sram", 4))
        return rt_err(err, errlen, RT_EINVAL, "RKNN_INTERNAL_MEM_TYPE '%s': expected sram or sram#KB",
                      s);
    if (!s[4])
        return 1;
    if (s[4] != '#')
        return rt_err(err, errlen, RT_EINVAL, "RKNN_INTERNAL_MEM_TYPE '%s': expected sram#KB", s);
    kb = strtoul(s + 5, &e, 10);
    if (e == s + 5 || *e || kb == 0 || kb > 4u * 1024 * 1024)
        return rt_err(err, errlen, RT_EINVAL, "RKNN_INTERNAL_MEM_TYPE '%s': bad size in KB", s);
    *bytes = (uint32_t)(kb * 1024);
    return 1;
}

npu_sram_pool_t *npu_sram_pool_process(const npu_platform_t *p)
{
    static npu_sram_pool_t pools[8];
    static int n;

    if (!p || !p->sram_bytes)
        return NULL;
    for (int i = 0; i < n; i++)
        if (pools[i].plat == p)
            return &pools[i];
    if (n == (int)(sizeof(pools) / sizeof(pools[0])))
        return NULL;
    if (npu_sram_pool_init(&pools[n], p, NULL, 0))
        return NULL;
    return &pools[n++];
}

/* ---- the Internal-buffer plan -------------------------------------------- */

static int is_op(const npu_layer_t *l, const char *op)
{
    return !strcmp(l->optype, op);
}

static double dt_size(const char *datatype)
{
    if (!strcmp(datatype, "FLOAT"))
        return 4;
    if (!strcmp(datatype, "FLOAT16") || !strcmp(datatype, "INT16") || !strcmp(datatype, "BFLOAT16"))
        return 2;
    return 1;
}

/* Stored shape and size: NC1HWC2 for 4-D data the NPU writes (C padded to
 * C2, or 2*C2 for a conv writing a model output), NHWC for a UINT8 image
 * input (LOG rows: (1,3,224,224) -> (1,1,224,224,3)), as is otherwise. */
static void native_of(const npu_graph_t *ng, const npu_layer_t *prod, npu_mem_tensor_t *t)
{
    const npu_shape_t *s = &t->shape;
    double es = dt_size(t->datatype);
    int64_t n = 1;

    t->native = *s;
    for (int i = 0; i < s->nd; i++)
        n *= s->d[i] > 0 ? s->d[i] : 0;
    if (s->nd == 4 && n > 0 && is_op(prod, "InputOperator") && !strcmp(t->datatype, "UINT8")) {
        t->native.nd = 5;
        t->native.d[0] = s->d[0];
        t->native.d[1] = 1;
        t->native.d[2] = s->d[2];
        t->native.d[3] = s->d[3];
        t->native.d[4] = s->d[1];
    } else if (s->nd == 4 && n > 0 && strcmp(t->datatype, "FLOAT") &&
               (prod->target == NPU_TGT_NPU || is_op(prod, "InputOperator"))) {
        int c2 = ng->plat->c2[prod->dtype] > 0 ? ng->plat->c2[prod->dtype] : 1;
        int a = npu_out_align(ng, prod);
        int64_t c = (int64_t)align_up((uint64_t)s->d[1], (uint64_t)(a > 1 ? a : c2));
        t->native.nd = 5;
        t->native.d[0] = s->d[0];
        t->native.d[1] = c / c2;
        t->native.d[2] = s->d[2];
        t->native.d[3] = s->d[3];
        t->native.d[4] = c2;
        n = s->d[0] * c * s->d[2] * s->d[3];
    }
    t->bytes = (uint64_t)((double)n * es + 0.5);
}

void npu_mem_release(npu_graph_t *ng)
{
    npu_mem_plan_t *mp = ng ? ng->mem : NULL;

    if (!mp || !mp->pool)
        return;
    if (mp->sram_size)
        npu_sram_pool_free(mp->pool, mp->sram_offset, mp->sram_size);
    mp->pool = NULL;
}

void npu_mem_plan_drop(npu_graph_t *ng)
{
    npu_mem_plan_t *mp = ng->mem;

    if (!mp)
        return;
    npu_mem_release(ng);
    for (int i = 0; i < mp->n; i++)
        free(mp->t[i].name);
    free(mp->t);
    free(mp);
    ng->mem = NULL;
    ng->sram_used = 0;
    ng->cost_valid = 0;
    for (int i = 0; i < ng->n; i++)
        ng->l[i].sram_hit = ng->l[i].sram_rd = 0;
}

/* Visits the data flow in layer order: for every layer, its distinct input
 * values resolved to the plan entry that holds them (out = -1), then its
 * outputs (out = index among the layer's outputs; a new entry each, numbered
 * in visiting order). */
typedef void (*flow_fn)(npu_mem_plan_t *mp, int layer, int entry, int out, void *ctx);

static void flow_walk(const npu_graph_t *ng, npu_mem_plan_t *mp, int *cur, flow_fn fn, void *ctx)
{
    int next = 0;

    for (int v = 0; v < ng->n_values; v++)
        cur[v] = -1;
    for (int i = 0; i < ng->n; i++) {
        const npu_layer_t *l = &ng->l[i];
        for (int k = 0; k < l->n_in_v; k++) {
            int v = l->in_v[k], dup = 0;
            if (v < 0 || v >= ng->n_values || cur[v] < 0)
                continue;
            for (int j = 0; j < k; j++)
                dup |= l->in_v[j] == v;
            if (!dup)
                fn(mp, i, cur[v], -1, ctx);
        }
        for (int k = 0; k < l->n_out_v; k++) {
            int v = l->out_v[k];
            if (v < 0 || v >= ng->n_values)
                continue;
            fn(mp, i, next, k, ctx);
            cur[v] = next++;
        }
    }
}

typedef struct build_ctx {
    const npu_graph_t *ng;
    const graph_t *g;
    int cap;
} build_ctx;

static void build_fn(npu_mem_plan_t *mp, int li, int e, int k, void *vctx)
{
    build_ctx *c = vctx;
    const npu_layer_t *l = &c->ng->l[li];
    npu_mem_tensor_t *t;
    int v;

    if (k < 0) {
        t = &mp->t[e];
        if (!t->n_reads++) {
            snprintf(t->user, sizeof(t->user), "%s", l->optype);
            /* the row of a model output shows the OutputOperator's type */
            if (is_op(l, "OutputOperator"))
                snprintf(t->datatype, sizeof(t->datatype), "%s", l->datatype);
        }
        if (is_op(l, "OutputOperator"))
            t->internal = 0;
        t->last_use = li;
        return;
    }
    if (mp->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        mp->t = xrealloc(mp->t, (size_t)c->cap * sizeof(*mp->t));
    }
    t = &mp->t[mp->n++];
    memset(t, 0, sizeof(*t));
    v = l->out_v[k];
    t->value = v;
    t->producer = li;
    t->last_use = li;
    t->internal = !is_op(l, "InputOperator");
    if (v < c->g->n_t && c->g->t[v].name) {
        t->name = xstrdup(c->g->t[v].name);
    } else {
        char nm[300];
        snprintf(nm, sizeof nm, "%s_out", l->fullname && *l->fullname ? l->fullname : l->optype);
        t->name = xstrdup(nm);
    }
    snprintf(t->datatype, sizeof(t->datatype), "%s", l->datatype);
    snprintf(t->user, sizeof(t->user), "%s", l->optype); /* until a reader shows up */
    if (k < NPU_MAX_IO && k < l->n_out) {
        t->shape = l->out[k];
    } else if (v < c->g->n_t && c->g->t[v].ndim > 0) {
        const tensor_t *gt = &c->g->t[v];
        t->shape.nd = gt->ndim < NPU_SHAPE_MAX ? gt->ndim : NPU_SHAPE_MAX;
        for (int d = 0; d < t->shape.nd; d++)
            t->shape.d[d] = gt->dims[d];
    }
    (void)e;
}

typedef struct hit_ctx {
    npu_graph_t *ng;
} hit_ctx;

static void hit_fn(npu_mem_plan_t *mp, int li, int e, int out, void *vctx)
{
    hit_ctx *c = vctx;
    npu_layer_t *l = &c->ng->l[li];
    uint64_t h = mp->t[e].hit;

    if (out < 0)
        l->sram_rd = (uint32_t)(l->sram_rd + h);
    else
        l->sram_hit = (uint32_t)(l->sram_hit + h);
}

int npu_mem_plan(npu_graph_t *ng, const graph_t *g, npu_sram_pool_t *pool, uint32_t want,
                 char *err, size_t errlen)
{
    npu_mem_plan_t *mp;
    build_ctx bc = {ng, g, 0};
    hit_ctx hc = {ng};
    int *cur = NULL, *order = NULL, *nfree = NULL;
    uint32_t *bits = NULL;
    int64_t cap_pages = 0;
    uint64_t top = IOVA_TOP;

    if (!ng || !g)
        return rt_err(err, errlen, RT_EINVAL, "npu_mem_plan: no graph");
    if (pool && !ng->plat->sram_bytes)
        return rt_err(err, errlen, RT_EUNSUPPORTED,
                      "%s has no SRAM assigned to the NPU (RKNN_FLAG_ENABLE_SRAM works on "
                      "rk3588 only); internal tensors stay in DDR",
                      ng->plat->name);
    if (pool && pool->plat != ng->plat)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "SRAM pool of %s used for a %s model",
                      pool->plat ? pool->plat->name : "no chip", ng->plat->name);
    npu_mem_plan_drop(ng);
    mp = xcalloc(1, sizeof(*mp));
    cur = xmalloc((size_t)(ng->n_values > 0 ? ng->n_values : 1) * sizeof(int));

    /* entries, readers and lifetimes */
    flow_walk(ng, mp, cur, build_fn, &bc);
    for (int i = 0; i < mp->n; i++)
        native_of(ng, &ng->l[mp->t[i].producer], &mp->t[i]);

    /* first fit in layer order: a layer's outputs are placed while its
     * inputs are still held; blocks come back after their last reader */
    order = xmalloc((size_t)(mp->n > 0 ? mp->n : 1) * sizeof(int));
    nfree = xcalloc((size_t)ng->n + 2, sizeof(int));
    for (int i = 0; i < mp->n; i++)
        nfree[mp->t[i].last_use + 1]++;
    for (int i = 1; i <= ng->n + 1; i++)
        nfree[i] += nfree[i - 1];
    {
        int *pos = xmalloc((size_t)(ng->n + 2) * sizeof(int));
        memcpy(pos, nfree, (size_t)(ng->n + 2) * sizeof(int));
        for (int i = 0; i < mp->n; i++)
            order[pos[mp->t[i].last_use]++] = i;
        free(pos);
    }
    {
        int e = 0;
        for (int li = 0; li < ng->n; li++) {
            for (; e < mp->n && mp->t[e].producer == li; e++) {
                npu_mem_tensor_t *t = &mp->t[e];
                int64_t np = (int64_t)(align_up(t->bytes, PAGE) / PAGE), s;
                if (!t->internal || !np)
                    continue;
                s = first_fit(bits, cap_pages, np, 1);
                if (s + np > cap_pages) {
                    int64_t nc = (s + np + 31) / 32 * 32 * 2;
                    bits = xrealloc(bits, (size_t)(nc / 32) * sizeof(uint32_t));
                    memset(bits + cap_pages / 32, 0, (size_t)((nc - cap_pages) / 32) * sizeof(uint32_t));
                    cap_pages = nc;
                }
                bits_set(bits, s, np, 1);
                t->offset = (uint64_t)s * PAGE;
                if (t->offset + t->bytes > mp->internal_size)
                    mp->internal_size = t->offset + t->bytes;
            }
            for (int k = nfree[li]; k < nfree[li + 1]; k++) {
                npu_mem_tensor_t *t = &mp->t[order[k]];
                if (t->internal && t->bytes)
                    bits_set(bits, (int64_t)(t->offset / PAGE),
                             (int64_t)(align_up(t->bytes, PAGE) / PAGE), 0);
            }
        }
    }

    /* the SRAM part: as much of the buffer as asked and free in one run */
    if (pool && mp->internal_size) {
        uint64_t req = align_up(mp->internal_size, PAGE);
        uint32_t got;
        if (want && align_up(want, PAGE) < req)
            req = align_up(want, PAGE);
        if (req > npu_sram_pool_largest_free(pool))
            req = npu_sram_pool_largest_free(pool);
        if (req && npu_sram_pool_alloc(pool, (uint32_t)req, &got) == 0) {
            mp->sram_size = (uint32_t)req;
            mp->sram_offset = got;
            mp->pool = pool;
        }
    }

    /* no SRAM: the chip's nbuf backs the start of the buffer (npu.h) */
    if (!mp->sram_size && ng->plat->nbuf_bytes && mp->internal_size) {
        uint64_t req = align_up(mp->internal_size, PAGE);
        mp->nbuf_size = req < ng->plat->nbuf_bytes ? (uint32_t)req : ng->plat->nbuf_bytes;
    }

    /* weights, IOVA (ours: top-down below 4 GiB, page aligned), hits, RW */
    for (int i = 0; i < ng->n; i++)
        if (ng->l[i].target == NPU_TGT_NPU)
            mp->rw_weight += npu_weight_bytes(ng, &ng->l[i]);
    mp->weight_size = align_up(mp->rw_weight, 64); /* inferred: 4260832 -> 4260864 */
    top -= align_up(mp->weight_size, PAGE);
    mp->iova_weight = top;
    top -= align_up(mp->internal_size, PAGE);
    mp->iova_internal = top;
    for (int i = 0; i < mp->n; i++) {
        npu_mem_tensor_t *t = &mp->t[i];
        uint64_t nr = (uint64_t)t->n_reads;
        if (t->internal) {
            t->addr = mp->iova_internal + t->offset;
            uint64_t fast = mp->sram_size ? mp->sram_size : mp->nbuf_size;
            if (t->offset < fast)
                t->hit = (t->offset + t->bytes < fast ? t->offset + t->bytes : fast) - t->offset;
            mp->rw_internal += t->bytes * (1 + nr);
            mp->rw_sram_hit += t->hit * (1 + nr);
        } else {
            top -= align_up(t->bytes ? t->bytes : 1, PAGE);
            t->addr = top;
            if (is_op(&ng->l[t->producer], "InputOperator"))
                mp->rw_internal += t->bytes * nr;  /* read by its consumers */
            else
                mp->rw_internal += t->bytes;       /* written once, copied out by the CPU */
        }
    }
    ng->mem = mp;
    ng->sram_used = mp->sram_size;
    ng->cost_valid = 0;
    flow_walk(ng, mp, cur, hit_fn, &hc);

    free(bits);
    free(order);
    free(nfree);
    free(cur);
    return 0;
}

void npu_mem_query(const npu_graph_t *ng, const npu_sram_pool_t *pool, npu_mem_sizes_t *out)
{
    memset(out, 0, sizeof(*out));
    if (ng && ng->mem) {
        out->total_weight_size = ng->mem->weight_size;
        out->total_internal_size = ng->mem->internal_size;
        if (!pool)
            pool = ng->mem->pool;
    }
    if (pool) {
        out->total_sram_size = (uint32_t)pool->npages * PAGE;
        out->free_sram_size = npu_sram_pool_free_bytes(pool);
    } else if (ng && ng->plat->sram_bytes) {
        out->total_sram_size = out->free_sram_size = ng->plat->sram_bytes;
    }
}
