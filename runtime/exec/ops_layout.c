/* runtime/exec/ops_layout.c — ops that move elements around without arithmetic:
 * Concat Split Slice Transpose Gather GatherElements Expand Tile Pad DepthToSpace
 * SpaceToDepth. All work on raw bytes by element size, so every dtype is handled. */
#include "runtime/exec/kernels.h"

#include <stddef.h>
#include <string.h>

/* The strided gathers of Slice (Focus stems take every other column) and of
 * Transpose vectorise with permutes when built with O3 and an AVX2 clone. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LAYOUT_HOT __attribute__((optimize("O3"), target_clones("arch=x86-64-v3", "default")))
#else
#define LAYOUT_HOT __attribute__((optimize("O3")))
#endif

LAYOUT_HOT static void gather4_s2(uint32_t *restrict d, const uint32_t *restrict s, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        d[i] = s[2 * i];
}

static void copy_elems(char *dst, const char *src, int64_t n, int64_t sstride, size_t es)
{
    if (sstride == 1) {
        memcpy(dst, src, (size_t)n * es);
        return;
    }
    if (es == 4 && sstride == 2) {
        gather4_s2((uint32_t *)dst, (const uint32_t *)src, n);
        return;
    }
    switch (es) {
    case 1: for (int64_t i = 0; i < n; i++) dst[i] = src[i * sstride]; break;
    case 2: for (int64_t i = 0; i < n; i++) ((uint16_t *)dst)[i] = ((const uint16_t *)src)[i * sstride]; break;
    case 4: for (int64_t i = 0; i < n; i++) ((uint32_t *)dst)[i] = ((const uint32_t *)src)[i * sstride]; break;
    case 8: for (int64_t i = 0; i < n; i++) ((uint64_t *)dst)[i] = ((const uint64_t *)src)[i * sstride]; break;
    default:
        for (int64_t i = 0; i < n; i++)
            memcpy(dst + (size_t)i * es, src + (ptrdiff_t)(i * sstride) * (ptrdiff_t)es, es);
    }
}

/* ---- strided copy: the engine under Transpose, Slice, Expand ------------- */

/* dst (contiguous, shape dims) = src at offset base + sum(idx[d] * st[d]) (elements). */
typedef struct sc_job {
    int nd;
    int64_t dims[MODEL_MAX_DIMS], st[MODEL_MAX_DIMS];
    int64_t base;
    const char *src;
    char *dst;
    size_t es;
} sc_job;

/* Rows of 1 to 4 elements (a box's coordinates, a class pair): a call to
 * memcpy per row would cost more than the copy. */
static void copy_short(char *dst, const char *src, int64_t n, int64_t sstride, size_t es)
{
    if (es == 4) {
        for (int64_t i = 0; i < n; i++)
            ((uint32_t *)dst)[i] = ((const uint32_t *)src)[i * sstride];
        return;
    }
    copy_elems(dst, src, n, sstride, es);
}

static void sc_range(void *arg, int64_t b, int64_t e)
{
    const sc_job *j = arg;
    const int outer = j->nd - 1;
    int64_t inner = j->dims[outer], ist = j->st[outer];
    int64_t idx[MODEL_MAX_DIMS], off = j->base, r = b;
    /* the first row's index by division, the others by counting, because a
     * division per row costs more than a short row's copy */
    for (int d = outer - 1; d >= 0; d--) {
        idx[d] = r % j->dims[d];
        off += idx[d] * j->st[d];
        r /= j->dims[d];
    }
    char *dst = j->dst + (size_t)(b * inner) * j->es;
    size_t rb = (size_t)inner * j->es;
    if (outer == 1 && ist == 1 && (rb == 4 || rb == 8 || rb == 16)) {
        /* rows of one word, two or four with a fixed source step: copies of a
         * constant size, which the compiler turns into plain loads and stores */
        const char *src = j->src + (size_t)off * j->es;
        size_t step = (size_t)j->st[0] * j->es;
        for (int64_t row = b; row < e; row++, dst += rb, src += step) {
            if (rb == 4)
                memcpy(dst, src, 4);
            else if (rb == 8)
                memcpy(dst, src, 8);
            else
                memcpy(dst, src, 16);
        }
        return;
    }
    for (int64_t row = b; row < e; row++, dst += (size_t)inner * j->es) {
        const char *src = j->src + (size_t)off * j->es;
        if (ist == 0) {
            for (int64_t i = 0; i < inner; i++)
                memcpy(dst + (size_t)i * j->es, src, j->es);
        } else if (inner <= 4) {
            copy_short(dst, src, inner, ist, j->es);
        } else {
            copy_elems(dst, src, inner, ist, j->es);
        }
        for (int d = outer - 1; d >= 0; d--) {
            off += j->st[d];
            if (++idx[d] < j->dims[d])
                break;
            idx[d] = 0;
            off -= j->dims[d] * j->st[d];
        }
    }
}

/* Rows of the last two dims when the inner one is short and the one before it is
 * contiguous in the source (depth-to-space, pixel shuffle, NCHW -> NHWC of a few
 * channels): dst[w * R + k] = src[off + w + k * ks], 4-byte elements. Per-row
 * index arithmetic over rows of R elements would cost more than the copy. */
static void sc_pair_range(void *arg, int64_t b, int64_t e)
{
    const sc_job *j = arg;
    const int nd = j->nd;
    const int64_t W = j->dims[nd - 2], R = j->dims[nd - 1], ks = j->st[nd - 1];
    for (int64_t row = b; row < e; row++) {
        int64_t off = j->base, r = row;
        for (int d = nd - 3; d >= 0; d--) {
            off += (r % j->dims[d]) * j->st[d];
            r /= j->dims[d];
        }
        uint32_t *dst = (uint32_t *)j->dst + row * W * R;
        const uint32_t *src = (const uint32_t *)j->src + off;
        for (int64_t k = 0; k < R; k++) {
            const uint32_t *sk = src + k * ks;
            uint32_t *dk = dst + k;
            for (int64_t w = 0; w < W; w++)
                dk[w * R] = sk[w];
        }
    }
}

static void strided_copy(op_ctx *c, char *dst, const char *src, int nd, const int64_t *dims,
                         const int64_t *st, int64_t base, size_t es)
{
    sc_job j;
    int64_t total = dims_prod(dims, 0, nd);
    if (total <= 0)
        return;
    /* Coalesce: drop size-1 dims, merge a dim into the next when the input is affine
     * across both. */
    j.nd = 0;
    for (int i = 0; i < nd; i++) {
        if (dims[i] == 1)
            continue;
        if (j.nd > 0 && j.st[j.nd - 1] == st[i] * dims[i]) {
            j.dims[j.nd - 1] *= dims[i];
            j.st[j.nd - 1] = st[i];
            continue;
        }
        j.dims[j.nd] = dims[i];
        j.st[j.nd] = st[i];
        j.nd++;
    }
    if (j.nd == 0) {
        j.nd = 1;
        j.dims[0] = 1;
        j.st[0] = 1;
    }
    j.base = base;
    j.src = src;
    j.dst = dst;
    j.es = es;
    if (es == 4 && j.nd >= 2 && j.dims[j.nd - 1] <= 8 && j.st[j.nd - 2] == 1 &&
        j.st[j.nd - 1] != 0 && j.dims[j.nd - 2] >= 16) {
        int64_t row2 = j.dims[j.nd - 2] * j.dims[j.nd - 1];
        op_parallel_for_work(c, total / row2, row2, sc_pair_range, &j);
        return;
    }
    int64_t rows = total / j.dims[j.nd - 1];
    op_parallel_for_work(c, rows, j.dims[j.nd - 1], sc_range, &j);
}

static void contig_strides(int nd, const int64_t *dims, int64_t *st)
{
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; i--) {
        st[i] = s;
        s *= dims[i];
    }
}

static void transpose_nd(op_ctx *c, char *dst, const char *src, int nd, const int64_t *idims,
                         const int64_t *perm, size_t es)
{
    int64_t ist[MODEL_MAX_DIMS], od[MODEL_MAX_DIMS], ost[MODEL_MAX_DIMS];
    contig_strides(nd, idims, ist);
    for (int i = 0; i < nd; i++) {
        od[i] = idims[perm[i]];
        ost[i] = ist[perm[i]];
    }
    strided_copy(c, dst, src, nd, od, ost, 0, es);
}

/* ---- Concat -------------------------------------------------------------- */

static int concat_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, -1, 1, err, errlen), axis;
    tensor_t *a;
    int64_t d[MODEL_MAX_DIMS];

    if (rc)
        return rc;
    a = node_input(g, n, 0);
    axis = norm_axis(node_attr_int(n, "axis", 1), a->ndim);
    if (axis < 0)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Concat): axis %lld out of range for rank %d",
                      n->name, (long long)node_attr_int(n, "axis", 1), a->ndim);
    memcpy(d, a->dims, sizeof(d));
    d[axis] = 0;
    for (int i = 0; i < n->n_in; i++) {
        tensor_t *b = node_input(g, n, i);
        if (!b)
            continue;
        if (b->ndim != a->ndim || b->dtype != a->dtype)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Concat): input %d has rank %d/%s, "
                          "expected %d/%s", n->name, i, b->ndim, dtype_name(b->dtype), a->ndim,
                          dtype_name(a->dtype));
        for (int k = 0; k < a->ndim; k++)
            if (k != axis && b->dims[k] != a->dims[k])
                return rt_err(err, errlen, RT_ESHAPE,
                              "node '%s' (Concat): input %d differs in dimension %d", n->name, i, k);
        d[axis] += b->dims[axis];
    }
    tensor_set_shape(node_output(g, n, 0), a->dtype, a->ndim, d);
    return RT_OK;
}

/* Concat as a list of copies (input i, outer row o) cut into pieces of at most
 * CAT_PIECE bytes, so that big copies spread over the pool. */
#define CAT_PIECE (64 * 1024)

typedef struct cat_job {
    int nin;
    const char *src[64];
    size_t brow[64], pos[64];  /* bytes per outer row of input i, offset in the output row */
    int64_t pieces[64];        /* pieces per outer row of input i */
    int64_t per_outer;         /* sum of pieces */
    size_t orow;
    char *dst;
} cat_job;

static void cat_range(void *arg, int64_t b, int64_t e)
{
    const cat_job *j = arg;
    int64_t o = b / j->per_outer, k = b % j->per_outer;
    int i = 0;
    while (k >= j->pieces[i])
        k -= j->pieces[i++];
    for (int64_t it = b; it < e; it++) {
        size_t off = (size_t)k * CAT_PIECE, len = j->brow[i] - off;
        if (len > CAT_PIECE)
            len = CAT_PIECE;
        memcpy(j->dst + (size_t)o * j->orow + j->pos[i] + off, j->src[i] + (size_t)o * j->brow[i] + off,
               len);
        if (++k == j->pieces[i]) {
            k = 0;
            /* next input (all have data), wrapping to the next outer row */
            if (++i == j->nin) {
                i = 0;
                o++;
            }
        }
    }
}

/* Outer rows whose pieces are all short (a box's 2 + 2 coordinates): one
 * item per outer row instead of a division and a memcpy call per piece. */
#define CAT_SHORT 64

static void cat_short_range(void *arg, int64_t b, int64_t e)
{
    const cat_job *j = arg;
    for (int i = 0; i < j->nin; i++) {
        /* input by input: a constant copy size per loop, which the compiler
         * turns into plain loads and stores */
        const size_t br = j->brow[i];
        const char *s = j->src[i] + (size_t)b * br;
        char *d = j->dst + (size_t)b * j->orow + j->pos[i];
        for (int64_t o = b; o < e; o++, s += br, d += j->orow) {
            switch (br) {
            case 4: memcpy(d, s, 4); break;
            case 8: memcpy(d, s, 8); break;
            case 16: memcpy(d, s, 16); break;
            default: memcpy(d, s, br);
            }
        }
    }
}

static int concat_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *y = node_output(g, n, 0);
    int axis = norm_axis(node_attr_int(n, "axis", 1), y->ndim);
    size_t es = dtype_size(y->dtype);
    int64_t outer = dims_prod(y->dims, 0, axis), inner = dims_prod(y->dims, axis + 1, y->ndim);
    size_t orow = (size_t)(y->dims[axis] * inner) * es, pos = 0;

    if (n->n_in <= 64) {
        cat_job j = { .orow = orow, .dst = y->data };
        for (int i = 0; i < n->n_in; i++) {
            tensor_t *b = node_input(g, n, i);
            size_t brow = b ? (size_t)(b->dims[axis] * inner) * es : 0;
            /* the executor may have had the producer write it in place */
            if (brow && outer == 1 && b->data == (char *)y->data + pos)
                pos += brow, brow = 0;
            if (!brow)
                continue;
            j.src[j.nin] = b->data;
            j.brow[j.nin] = brow;
            j.pos[j.nin] = pos;
            j.pieces[j.nin] = (int64_t)((brow + CAT_PIECE - 1) / CAT_PIECE);
            j.per_outer += j.pieces[j.nin];
            j.nin++;
            pos += brow;
        }
        int short_rows = outer > 1;
        for (int i = 0; i < j.nin; i++)
            short_rows &= j.brow[i] <= CAT_SHORT;
        if (j.nin > 0 && short_rows)
            op_parallel_for_work(c, outer, (int64_t)orow, cat_short_range, &j);
        else if (j.nin > 0 && outer > 0)
            op_parallel_for_work(c, outer * j.per_outer, (int64_t)(orow / (size_t)j.per_outer / 8) + 1,
                                 cat_range, &j);
        return RT_OK;
    }
    for (int i = 0; i < n->n_in; i++) {
        tensor_t *b = node_input(g, n, i);
        if (!b)
            continue;
        size_t brow = (size_t)(b->dims[axis] * inner) * es;
        if (brow) {
            for (int64_t o = 0; o < outer; o++)
                memcpy((char *)y->data + o * orow + pos, (const char *)b->data + o * brow, brow);
        }
        pos += brow;
    }
    return RT_OK;
}

/* ---- Split --------------------------------------------------------------- */

static int split_sizes(graph_t *g, const node_t *n, const tensor_t *x, int axis, int64_t *sz,
                       char *err, size_t errlen)
{
    const int64_t *a;
    int k = node_attr_ints(n, "split", &a), no = n->n_out;
    int64_t dim = x->dims[axis], sum = 0;

    if (no > 64)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (Split): too many outputs", n->name);
    if (k < 0 && node_input(g, n, 1)) {
        int64_t v[64];
        k = node_const_ints(g, n, 1, "split", v, 64, err, errlen);
        if (k < 0)
            return k;
        memcpy(sz, v, (size_t)k * sizeof(int64_t));
    } else if (k >= 0) {
        if (k > 64)
            return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (Split): too many parts", n->name);
        memcpy(sz, a, (size_t)k * sizeof(int64_t));
    } else {
        /* Equal parts; with num_outputs (opset 18) the last one may be smaller. */
        int64_t part = (dim + no - 1) / no;
        for (int i = 0; i < no; i++) {
            int64_t left = dim - part * i;
            sz[i] = left < 0 ? 0 : (left < part ? left : part);
        }
        k = no;
    }
    if (k != no)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Split): %d sizes for %d outputs",
                      n->name, k, no);
    for (int i = 0; i < k; i++) {
        if (sz[i] < 0)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Split): negative size", n->name);
        sum += sz[i];
    }
    if (sum != dim)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Split): sizes sum to %lld, dimension is %lld",
                      n->name, (long long)sum, (long long)dim);
    return RT_OK;
}

static int split_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 2, 1, err, errlen), axis;
    int64_t sz[64];
    tensor_t *x;

    if (rc)
        return rc;
    x = node_input(g, n, 0);
    axis = norm_axis(node_attr_int(n, "axis", 0), x->ndim);
    if (axis < 0)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Split): axis out of range", n->name);
    rc = split_sizes(g, n, x, axis, sz, err, errlen);
    if (rc)
        return rc;
    for (int i = 0; i < n->n_out; i++) {
        int64_t d[MODEL_MAX_DIMS];
        tensor_t *y = node_output(g, n, i);
        if (!y)
            continue;
        memcpy(d, x->dims, sizeof(d));
        d[axis] = sz[i];
        tensor_set_shape(y, x->dtype, x->ndim, d);
    }
    return RT_OK;
}

static int split_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *x = node_input(g, n, 0);
    int axis = norm_axis(node_attr_int(n, "axis", 0), x->ndim);
    size_t es = dtype_size(x->dtype);
    int64_t outer = dims_prod(x->dims, 0, axis), inner = dims_prod(x->dims, axis + 1, x->ndim);
    size_t xrow = (size_t)(x->dims[axis] * inner) * es, pos = 0;

    for (int i = 0; i < n->n_out; i++) {
        tensor_t *y = node_output(g, n, i);
        int64_t d;
        if (!y) {
            int64_t sz[64];
            int rc = split_sizes(g, n, x, axis, sz, c->err, c->errlen);
            if (rc)
                return rc;
            d = sz[i];
        } else {
            d = y->dims[axis];
        }
        size_t yrow = (size_t)(d * inner) * es;
        if (y && yrow)
            for (int64_t o = 0; o < outer; o++)
                memcpy((char *)y->data + o * yrow, (const char *)x->data + o * xrow + pos, yrow);
        pos += yrow;
    }
    return RT_OK;
}

/* ---- Slice --------------------------------------------------------------- */

typedef struct slice_plan {
    int64_t start[MODEL_MAX_DIMS], step[MODEL_MAX_DIMS], len[MODEL_MAX_DIMS];
} slice_plan;

static int slice_plan_make(graph_t *g, const node_t *n, const tensor_t *x, slice_plan *p,
                           char *err, size_t errlen)
{
    int64_t st[MODEL_MAX_DIMS], en[MODEL_MAX_DIMS], ax[MODEL_MAX_DIMS], sp[MODEL_MAX_DIMS];
    int ns, ne, na, nsp, r = x->ndim;
    int seen[MODEL_MAX_DIMS] = { 0 };
    const int64_t *a;

    if (node_input(g, n, 1)) {
        ns = node_const_ints(g, n, 1, "starts", st, MODEL_MAX_DIMS, err, errlen);
        if (ns < 0)
            return ns;
        ne = node_const_ints(g, n, 2, "ends", en, MODEL_MAX_DIMS, err, errlen);
        if (ne < 0)
            return ne;
        na = node_input(g, n, 3) ? node_const_ints(g, n, 3, "axes", ax, MODEL_MAX_DIMS, err, errlen) : -1;
        if (na < -1)
            return na;
        nsp = node_input(g, n, 4) ? node_const_ints(g, n, 4, "steps", sp, MODEL_MAX_DIMS, err, errlen) : -1;
        if (nsp < -1)
            return nsp;
    } else {
        ns = node_attr_ints(n, "starts", &a);
        if (ns < 0 || ns > MODEL_MAX_DIMS)
            return rt_err(err, errlen, RT_EFORMAT, "node '%s' (Slice): no starts", n->name);
        memcpy(st, a, (size_t)ns * sizeof(int64_t));
        ne = node_attr_ints(n, "ends", &a);
        if (ne < 0 || ne > MODEL_MAX_DIMS)
            return rt_err(err, errlen, RT_EFORMAT, "node '%s' (Slice): no ends", n->name);
        memcpy(en, a, (size_t)ne * sizeof(int64_t));
        na = node_attr_ints(n, "axes", &a);
        if (na > MODEL_MAX_DIMS)
            return rt_err(err, errlen, RT_EFORMAT, "node '%s' (Slice): bad axes", n->name);
        if (na > 0)
            memcpy(ax, a, (size_t)na * sizeof(int64_t));
        nsp = -1;
    }
    if (ne != ns || (na >= 0 && na != ns) || (nsp >= 0 && nsp != ns))
        return rt_err(err, errlen, RT_ESHAPE,
                      "node '%s' (Slice): starts/ends/axes/steps lengths differ", n->name);
    for (int i = 0; i < r; i++) {
        p->start[i] = 0;
        p->step[i] = 1;
        p->len[i] = x->dims[i];
    }
    for (int i = 0; i < ns; i++) {
        int axis = norm_axis(na >= 0 ? ax[i] : i, r);
        int64_t dim, s, e, step = nsp >= 0 ? sp[i] : 1;
        if (axis < 0 || seen[axis])
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Slice): bad or repeated axis", n->name);
        if (step == 0)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Slice): step 0", n->name);
        seen[axis] = 1;
        dim = x->dims[axis];
        s = st[i];
        e = en[i];
        if (s < 0)
            s += dim;
        if (e < 0)
            e += dim;
        if (step > 0) {
            s = s < 0 ? 0 : (s > dim ? dim : s);
            e = e < 0 ? 0 : (e > dim ? dim : e);
            p->len[axis] = e > s ? (e - s + step - 1) / step : 0;
        } else {
            s = s < 0 ? 0 : (s > dim - 1 ? dim - 1 : s);
            e = e < -1 ? -1 : (e > dim - 1 ? dim - 1 : e);
            p->len[axis] = s > e ? (s - e + (-step) - 1) / (-step) : 0;
        }
        p->start[axis] = s;
        p->step[axis] = step;
    }
    return RT_OK;
}

static int slice_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 5, 1, err, errlen);
    slice_plan p;
    tensor_t *x;
    if (rc)
        return rc;
    x = node_input(g, n, 0);
    rc = slice_plan_make(g, n, x, &p, err, errlen);
    if (rc)
        return rc;
    tensor_set_shape(node_output(g, n, 0), x->dtype, x->ndim, p.len);
    return RT_OK;
}

/* y = the elements of x that plan p selects */
static void slice_copy(op_ctx *c, const tensor_t *x, tensor_t *y, const slice_plan *p)
{
    int64_t ist[MODEL_MAX_DIMS], st[MODEL_MAX_DIMS], base = 0;
    if (tensor_numel(y) <= 0)
        return;
    if (x->ndim == 0) {
        memcpy(y->data, x->data, dtype_size(x->dtype));
        return;
    }
    contig_strides(x->ndim, x->dims, ist);
    for (int i = 0; i < x->ndim; i++) {
        base += p->start[i] * ist[i];
        st[i] = p->step[i] * ist[i];
    }
    strided_copy(c, y->data, x->data, x->ndim, p->len, st, base, dtype_size(x->dtype));
}

static int slice_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *x = node_input(g, n, 0);
    slice_plan p;
    int rc = slice_plan_make(g, n, x, &p, c->err, c->errlen);
    if (!rc)
        slice_copy(c, x, node_output(g, n, 0), &p);
    return rc;
}

/* n's plan on the output of inner, as one plan on inner's input: element i of
 * an axis is inner's element b.start + i * b.step, i.e. the input's
 * a.start + (b.start + i * b.step) * a.step. */
static int slice_compose(graph_t *g, const node_t *n, const node_t *inner, slice_plan *p,
                         char *err, size_t errlen)
{
    tensor_t *x = node_input(g, inner, 0), *t = node_output(g, inner, 0);
    slice_plan a;
    int rc = slice_plan_make(g, inner, x, &a, err, errlen);
    if (!rc)
        rc = slice_plan_make(g, n, t, p, err, errlen);
    if (rc)
        return rc;
    for (int i = 0; i < x->ndim; i++) {
        p->start[i] = a.start[i] + p->start[i] * a.step[i];
        p->step[i] *= a.step[i];
    }
    return RT_OK;
}

int slice_source(graph_t *g, const node_t *n, const node_t *inner, int64_t *start,
                 int64_t *step)
{
    char err[8];
    slice_plan p;
    const tensor_t *x = node_input(g, inner ? inner : n, 0);
    int rc = !x || x->ndim < 1 ? RT_ESHAPE
             : inner           ? (node_input(g, n, 0) == node_output(g, inner, 0)
                                      ? slice_compose(g, n, inner, &p, err, sizeof err)
                                      : RT_ESHAPE)
                               : slice_plan_make(g, n, x, &p, err, sizeof err);
    for (int i = 0; !rc && i < x->ndim; i++) {
        start[i] = p.start[i];
        step[i] = p.step[i];
    }
    return rc;
}

int slice_composable(graph_t *g, const node_t *n, const node_t *inner)
{
    int64_t start[MODEL_MAX_DIMS], step[MODEL_MAX_DIMS];
    return slice_source(g, n, inner, start, step) == RT_OK;
}

int slice_run_composed(op_ctx *c, graph_t *g, node_t *n, const node_t *inner)
{
    slice_plan p;
    int rc = slice_compose(g, n, inner, &p, c->err, c->errlen);
    if (!rc)
        slice_copy(c, node_input(g, inner, 0), node_output(g, n, 0), &p);
    return rc;
}

/* ---- Transpose ----------------------------------------------------------- */

static int get_perm(const node_t *n, int r, int64_t *perm, char *err, size_t errlen)
{
    const int64_t *a;
    int k = node_attr_ints(n, "perm", &a), seen[MODEL_MAX_DIMS] = { 0 };
    if (k < 0) {
        for (int i = 0; i < r; i++)
            perm[i] = r - 1 - i;
        return RT_OK;
    }
    if (k != r)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Transpose): perm has %d entries for rank %d",
                      n->name, k, r);
    for (int i = 0; i < r; i++) {
        int v = norm_axis(a[i], r);
        if (v < 0 || seen[v])
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Transpose): perm is not a permutation",
                          n->name);
        seen[v] = 1;
        perm[i] = v;
    }
    return RT_OK;
}

static int transpose_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 1, 1, err, errlen);
    int64_t perm[MODEL_MAX_DIMS], d[MODEL_MAX_DIMS];
    tensor_t *x;
    if (rc)
        return rc;
    x = node_input(g, n, 0);
    rc = get_perm(n, x->ndim, perm, err, errlen);
    if (rc)
        return rc;
    for (int i = 0; i < x->ndim; i++)
        d[i] = x->dims[perm[i]];
    tensor_set_shape(node_output(g, n, 0), x->dtype, x->ndim, d);
    return RT_OK;
}

static int transpose_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *x = node_input(g, n, 0), *y = node_output(g, n, 0);
    int64_t perm[MODEL_MAX_DIMS];
    int rc = get_perm(n, x->ndim, perm, c->err, c->errlen);
    if (rc)
        return rc;
    if (x->ndim == 0) {
        memcpy(y->data, x->data, dtype_size(x->dtype));
        return RT_OK;
    }
    transpose_nd(c, y->data, x->data, x->ndim, x->dims, perm, dtype_size(x->dtype));
    return RT_OK;
}

/* ---- DepthToSpace / SpaceToDepth ----------------------------------------- */

static int d2s_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 1, 1, err, errlen);
    int64_t b = node_attr_int(n, "blocksize", 0), d[4];
    tensor_t *x;
    if (rc)
        return rc;
    x = node_input(g, n, 0);
    if (x->ndim != 4 || b <= 0)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): needs a 4-D input and blocksize > 0",
                      n->name, n->op);
    if (!strcmp(n->op, "DepthToSpace")) {
        if (x->dims[1] % (b * b))
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (DepthToSpace): channels not divisible",
                          n->name);
        d[0] = x->dims[0];
        d[1] = x->dims[1] / (b * b);
        d[2] = x->dims[2] * b;
        d[3] = x->dims[3] * b;
    } else {
        if (x->dims[2] % b || x->dims[3] % b)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (SpaceToDepth): spatial not divisible",
                          n->name);
        d[0] = x->dims[0];
        d[1] = x->dims[1] * b * b;
        d[2] = x->dims[2] / b;
        d[3] = x->dims[3] / b;
    }
    tensor_set_shape(node_output(g, n, 0), x->dtype, 4, d);
    return RT_OK;
}

static int d2s_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *x = node_input(g, n, 0), *y = node_output(g, n, 0);
    int64_t b = node_attr_int(n, "blocksize", 0);
    int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3];
    const char *mode = node_attr_str(n, "mode", "DCR");
    size_t es = dtype_size(x->dtype);

    if (!strcmp(n->op, "DepthToSpace")) {
        if (!strcmp(mode, "CRD")) {
            int64_t d[6] = { N, C / (b * b), b, b, H, W }, p[6] = { 0, 1, 4, 2, 5, 3 };
            transpose_nd(c, y->data, x->data, 6, d, p, es);
        } else {
            int64_t d[6] = { N, b, b, C / (b * b), H, W }, p[6] = { 0, 3, 4, 1, 5, 2 };
            transpose_nd(c, y->data, x->data, 6, d, p, es);
        }
    } else {
        int64_t d[6] = { N, C, H / b, b, W / b, b }, p[6] = { 0, 3, 5, 1, 2, 4 };
        transpose_nd(c, y->data, x->data, 6, d, p, es);
    }
    return RT_OK;
}

/* ---- Gather / GatherElements --------------------------------------------- */

static int gather_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 2, 2, 1, err, errlen), axis, nd = 0;
    int64_t d[MODEL_MAX_DIMS];
    tensor_t *x, *ix;
    int elems = !strcmp(n->op, "GatherElements");

    if (rc)
        return rc;
    x = node_input(g, n, 0);
    ix = node_input(g, n, 1);
    axis = norm_axis(node_attr_int(n, "axis", 0), x->ndim);
    if (axis < 0)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): axis out of range", n->name, n->op);
    if (ix->dtype != DT_INT64 && ix->dtype != DT_INT32)
        return rt_err(err, errlen, RT_EFORMAT, "node '%s' (%s): indices must be int32/int64",
                      n->name, n->op);
    if (elems) {
        if (ix->ndim != x->ndim)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (GatherElements): rank mismatch",
                          n->name);
        tensor_set_shape(node_output(g, n, 0), x->dtype, ix->ndim, ix->dims);
        return RT_OK;
    }
    if (x->ndim - 1 + ix->ndim > MODEL_MAX_DIMS)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Gather): output rank too large", n->name);
    for (int i = 0; i < axis; i++)
        d[nd++] = x->dims[i];
    for (int i = 0; i < ix->ndim; i++)
        d[nd++] = ix->dims[i];
    for (int i = axis + 1; i < x->ndim; i++)
        d[nd++] = x->dims[i];
    tensor_set_shape(node_output(g, n, 0), x->dtype, nd, d);
    return RT_OK;
}

static int gather_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *x = node_input(g, n, 0), *ix = node_input(g, n, 1), *y = node_output(g, n, 0);
    int axis = norm_axis(node_attr_int(n, "axis", 0), x->ndim);
    size_t es = dtype_size(x->dtype);
    int64_t dim = x->dims[axis], k = tensor_numel(ix);

    if (!strcmp(n->op, "GatherElements")) {
        int64_t xst[MODEL_MAX_DIMS], m = tensor_numel(y);
        contig_strides(x->ndim, x->dims, xst);
        for (int64_t i = 0; i < m; i++) {
            int64_t r = i, off = 0;
            for (int d = ix->ndim - 1; d >= 0; d--) {
                int64_t v = r % ix->dims[d];
                r /= ix->dims[d];
                if (d == axis) {
                    v = tensor_get_int(ix, i);
                    if (v < 0)
                        v += dim;
                    if (v < 0 || v >= dim)
                        return rt_err(c->err, c->errlen, RT_EFORMAT,
                                      "index %lld out of range [0, %lld)",
                                      (long long)tensor_get_int(ix, i), (long long)dim);
                }
                off += v * xst[d];
            }
            memcpy((char *)y->data + i * es, (const char *)x->data + off * es, es);
        }
        return RT_OK;
    }

    int64_t outer = dims_prod(x->dims, 0, axis);
    size_t row = (size_t)dims_prod(x->dims, axis + 1, x->ndim) * es;
    char *o = y->data;
    for (int64_t a = 0; a < outer; a++) {
        for (int64_t j = 0; j < k; j++) {
            int64_t v = tensor_get_int(ix, j);
            if (v < 0)
                v += dim;
            if (v < 0 || v >= dim)
                return rt_err(c->err, c->errlen, RT_EFORMAT, "index %lld out of range [0, %lld)",
                              (long long)tensor_get_int(ix, j), (long long)dim);
            memcpy(o, (const char *)x->data + ((size_t)(a * dim + v)) * row, row);
            o += row;
        }
    }
    return RT_OK;
}

/* ---- Expand -------------------------------------------------------------- */

static int expand_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 2, 2, 1, err, errlen), k, nd;
    int64_t s[MODEL_MAX_DIMS], d[MODEL_MAX_DIMS];
    tensor_t *x;

    if (rc)
        return rc;
    x = node_input(g, n, 0);
    k = node_const_ints(g, n, 1, "shape", s, MODEL_MAX_DIMS, err, errlen);
    if (k < 0)
        return k;
    nd = broadcast_shape(x->ndim, x->dims, k, s, d);
    if (nd < 0)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Expand): shape does not broadcast",
                      n->name);
    tensor_set_shape(node_output(g, n, 0), x->dtype, nd, d);
    return RT_OK;
}

static int expand_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *x = node_input(g, n, 0), *y = node_output(g, n, 0);
    int64_t st[MODEL_MAX_DIMS];
    if (y->ndim == 0) {
        memcpy(y->data, x->data, dtype_size(x->dtype));
        return RT_OK;
    }
    broadcast_strides(x->ndim, x->dims, y->ndim, st);
    strided_copy(c, y->data, x->data, y->ndim, y->dims, st, 0, dtype_size(x->dtype));
    return RT_OK;
}

/* ---- Tile ---------------------------------------------------------------- */

static int tile_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 2, 2, 1, err, errlen), k;
    int64_t r[MODEL_MAX_DIMS], d[MODEL_MAX_DIMS];
    tensor_t *x;

    if (rc)
        return rc;
    x = node_input(g, n, 0);
    k = node_const_ints(g, n, 1, "repeats", r, MODEL_MAX_DIMS, err, errlen);
    if (k < 0)
        return k;
    if (k != x->ndim)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Tile): %d repeats for rank %d", n->name,
                      k, x->ndim);
    for (int i = 0; i < k; i++) {
        if (r[i] < 0)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Tile): negative repeat", n->name);
        d[i] = x->dims[i] * r[i];
    }
    tensor_set_shape(node_output(g, n, 0), x->dtype, k, d);
    return RT_OK;
}

static int tile_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *x = node_input(g, n, 0), *y = node_output(g, n, 0);
    int nd = x->ndim;
    int64_t m = tensor_numel(y), ist[MODEL_MAX_DIMS];
    size_t es = dtype_size(x->dtype);

    if (m <= 0)
        return RT_OK;
    if (nd == 0) {
        memcpy(y->data, x->data, es);
        return RT_OK;
    }
    contig_strides(nd, x->dims, ist);
    /* Row by row over the output's last dimension: the input row, repeated. */
    int64_t iw = x->dims[nd - 1], ow = y->dims[nd - 1], rows = m / ow;
    for (int64_t row = 0; row < rows; row++) {
        int64_t r = row, off = 0;
        for (int d = nd - 2; d >= 0; d--) {
            off += (r % y->dims[d]) % x->dims[d] * ist[d];
            r /= y->dims[d];
        }
        char *o = (char *)y->data + (size_t)(row * ow) * es;
        for (int64_t k = 0; k < ow; k += iw)
            memcpy(o + (size_t)k * es, (const char *)x->data + (size_t)off * es, (size_t)iw * es);
    }
    return RT_OK;
}

/* ---- Pad ----------------------------------------------------------------- */

enum { PAD_CONST, PAD_REFLECT, PAD_EDGE, PAD_WRAP };

typedef struct pad_plan {
    int mode;
    int64_t b[MODEL_MAX_DIMS];  /* pads at the beginning (may be negative) */
    unsigned char fill[16];     /* constant value, one element */
} pad_plan;

static int pad_plan_make(graph_t *g, const node_t *n, const tensor_t *x, const tensor_t *y,
                         pad_plan *p, int64_t *odims, char *err, size_t errlen)
{
    int r = x->ndim, k, na = -1;
    int64_t pads[2 * MODEL_MAX_DIMS], full[2 * MODEL_MAX_DIMS] = { 0 }, ax[MODEL_MAX_DIMS];
    const char *mode = node_attr_str(n, "mode", "constant");
    const int64_t *a;
    size_t es = dtype_size(x->dtype);

    memset(p, 0, sizeof(*p));
    if (!strcmp(mode, "constant"))
        p->mode = PAD_CONST;
    else if (!strcmp(mode, "reflect"))
        p->mode = PAD_REFLECT;
    else if (!strcmp(mode, "edge"))
        p->mode = PAD_EDGE;
    else if (!strcmp(mode, "wrap"))
        p->mode = PAD_WRAP;
    else
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (Pad): mode '%s'", n->name, mode);

    k = node_attr_ints(n, "pads", &a);
    if (k >= 0) {
        if (k > 2 * MODEL_MAX_DIMS)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Pad): too many pads", n->name);
        memcpy(pads, a, (size_t)k * sizeof(int64_t));
        double v = node_attr_float(n, "value", 0.0f);
        switch (x->dtype) {
        case DT_FLOAT: { float f = (float)v; memcpy(p->fill, &f, 4); break; }
        case DT_DOUBLE: memcpy(p->fill, &v, 8); break;
        default: { int64_t iv = (int64_t)v; memcpy(p->fill, &iv, es <= 8 ? es : 8); break; }
        }
    } else {
        k = node_const_ints(g, n, 1, "pads", pads, 2 * MODEL_MAX_DIMS, err, errlen);
        if (k < 0)
            return k;
        tensor_t *cv = node_input(g, n, 2);
        if (cv && tensor_numel(cv) > 0) {
            if (cv->dtype != x->dtype)
                return rt_err(err, errlen, RT_EFORMAT, "node '%s' (Pad): constant_value dtype",
                              n->name);
            /* At inference time the value may still be unknown; run() has it. */
            if (cv->data)
                memcpy(p->fill, cv->data, es <= 16 ? es : 16);
        }
        if (node_input(g, n, 3)) {
            na = node_const_ints(g, n, 3, "axes", ax, MODEL_MAX_DIMS, err, errlen);
            if (na < 0)
                return na;
        }
    }
    if (na >= 0) {
        if (k != 2 * na)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Pad): %d pads for %d axes", n->name,
                          k, na);
        for (int i = 0; i < na; i++) {
            int axis = norm_axis(ax[i], r);
            if (axis < 0)
                return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Pad): bad axis", n->name);
            full[axis] = pads[i];
            full[axis + r] = pads[i + na];
        }
    } else {
        if (k != 2 * r)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Pad): %d pads for rank %d", n->name,
                          k, r);
        memcpy(full, pads, (size_t)k * sizeof(int64_t));
    }
    for (int i = 0; i < r; i++) {
        p->b[i] = full[i];
        odims[i] = x->dims[i] + full[i] + full[i + r];
        if (odims[i] < 0)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Pad): negative output size", n->name);
        if (p->mode != PAD_CONST && x->dims[i] == 0 && odims[i] > 0)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Pad): cannot pad an empty axis",
                          n->name);
    }
    (void)y;
    return RT_OK;
}

/* Source coordinate for output coordinate o along a dim of size d, or -1 for fill. */
static int64_t pad_src(int mode, int64_t o, int64_t d)
{
    if (o >= 0 && o < d)
        return o;
    switch (mode) {
    case PAD_EDGE:
        return o < 0 ? 0 : d - 1;
    case PAD_WRAP:
        o %= d;
        return o < 0 ? o + d : o;
    case PAD_REFLECT:
        if (d == 1)
            return 0;
        {
            int64_t per = 2 * (d - 1);
            o %= per;
            if (o < 0)
                o += per;
            return o < d ? o : per - o;
        }
    }
    return -1;
}

static int pad_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 4, 1, err, errlen);
    pad_plan p;
    int64_t d[MODEL_MAX_DIMS];
    tensor_t *x;
    if (rc)
        return rc;
    x = node_input(g, n, 0);
    rc = pad_plan_make(g, n, x, NULL, &p, d, err, errlen);
    if (rc)
        return rc;
    tensor_set_shape(node_output(g, n, 0), x->dtype, x->ndim, d);
    return RT_OK;
}

static int pad_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *x = node_input(g, n, 0), *y = node_output(g, n, 0);
    pad_plan p;
    int64_t d[MODEL_MAX_DIMS], ist[MODEL_MAX_DIMS], m = tensor_numel(y);
    int r = x->ndim, rc = pad_plan_make(g, n, x, y, &p, d, c->err, c->errlen);
    size_t es = dtype_size(x->dtype);

    if (rc)
        return rc;
    if (m <= 0)
        return RT_OK;
    if (r == 0) {
        memcpy(y->data, x->data, es);
        return RT_OK;
    }
    contig_strides(r, x->dims, ist);
    int64_t ow = y->dims[r - 1], iw = x->dims[r - 1], rows = m / ow, pb = p.b[r - 1];
    for (int64_t row = 0; row < rows; row++) {
        int64_t rr = row, off = 0;
        int fill = 0;
        char *o = (char *)y->data + (size_t)(row * ow) * es;
        for (int k = r - 2; k >= 0; k--) {
            int64_t s = pad_src(p.mode, rr % y->dims[k] - p.b[k], x->dims[k]);
            rr /= y->dims[k];
            if (s < 0)
                fill = 1;
            else
                off += s * ist[k];
        }
        const char *src = (const char *)x->data + (size_t)off * es;
        /* Inner range that maps straight onto the input row. */
        int64_t lo = pb < 0 ? 0 : pb, hi = pb + iw < ow ? pb + iw : ow;
        for (int64_t j = 0; j < ow; j++) {
            if (!fill && j == lo && hi > lo) {
                memcpy(o + (size_t)j * es, src + (size_t)(j - pb) * es, (size_t)(hi - lo) * es);
                j = hi - 1;
                continue;
            }
            int64_t s = fill ? -1 : pad_src(p.mode, j - pb, iw);
            if (s < 0)
                memcpy(o + (size_t)j * es, p.fill, es);
            else
                memcpy(o + (size_t)j * es, src + (size_t)s * es, es);
        }
    }
    return RT_OK;
}

static const op_fusion slice_fusion = {
    .composable = slice_composable,
    .source = slice_source,
    .run_composed = slice_run_composed,
};

const op_def exec_ops_layout[] = {
    { "Concat", "", concat_infer, NULL, concat_run, NULL, NULL },
    { "Split", "", split_infer, NULL, split_run, NULL, NULL },
    { "Slice", "", slice_infer, NULL, slice_run, NULL, &slice_fusion },
    { "Transpose", "", transpose_infer, NULL, transpose_run, NULL, NULL },
    { "Gather", "", gather_infer, NULL, gather_run, NULL, NULL },
    { "GatherElements", "", gather_infer, NULL, gather_run, NULL, NULL },
    { "Expand", "", expand_infer, NULL, expand_run, NULL, NULL },
    { "Tile", "", tile_infer, NULL, tile_run, NULL, NULL },
    { "Pad", "", pad_infer, NULL, pad_run, NULL, NULL },
    { "DepthToSpace", "", d2s_infer, NULL, d2s_run, NULL, NULL },
    { "SpaceToDepth", "", d2s_infer, NULL, d2s_run, NULL, NULL },
    { NULL, NULL, NULL, NULL, NULL, NULL, NULL },
};
