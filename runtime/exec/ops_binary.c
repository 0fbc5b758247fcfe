/* runtime/exec/ops_binary.c — elementwise ops with numpy broadcasting:
 * arithmetic (Add Sub Mul Div Pow Mod Max Min Sum Mean), comparisons (Equal Greater
 * Less GreaterOrEqual LessOrEqual), logic (And Or Xor), PRelu and Where.
 *
 * Every op iterates over the output shape. Operand strides are coalesced so that the
 * innermost loop runs over the longest run in which each operand is either contiguous
 * or constant; the four (contiguous, constant) combinations are separate loops that
 * the compiler vectorises (same shape, scalar, per-channel all end up there). */
#include "runtime/exec/kernels.h"

/* -O2 uses the "very cheap" vectoriser cost model, which skips loops needing an
 * epilogue: nearly all of ours. Without trapping math, float selects (clamps,
 * max) if-convert and vectorise. */
#pragma GCC optimize("vect-cost-model=dynamic", "no-trapping-math")

#include <math.h>
#include <string.h>

#define MAXOP 3

/* ---- broadcast iteration ------------------------------------------------ */

typedef struct bc_iter {
    int nops;                       /* operands (inputs) */
    int nd;                         /* coalesced rank, >= 1 */
    int64_t dims[MODEL_MAX_DIMS];
    int64_t st[MAXOP][MODEL_MAX_DIMS];
    int64_t inner;                  /* dims[nd - 1] */
} bc_iter;

static void bc_init(bc_iter *it, const tensor_t *out, int nops, const tensor_t *const *in)
{
    int64_t st[MAXOP][MODEL_MAX_DIMS];
    int nd = out->ndim;

    it->nops = nops;
    for (int k = 0; k < nops; k++)
        broadcast_strides(in[k]->ndim, in[k]->dims, nd, st[k]);
    /* Drop size-1 dims, then merge dim i into the following one when every
     * operand's stride pattern stays affine across the pair. */
    it->nd = 0;
    for (int i = 0; i < nd; i++) {
        if (out->dims[i] == 1)
            continue;
        int m = it->nd;
        if (m > 0) {
            int ok = 1;
            for (int k = 0; k < nops; k++)
                if (it->st[k][m - 1] != st[k][i] * out->dims[i])
                    ok = 0;
            if (ok) {
                it->dims[m - 1] *= out->dims[i];
                for (int k = 0; k < nops; k++)
                    it->st[k][m - 1] = st[k][i];
                continue;
            }
        }
        it->dims[m] = out->dims[i];
        for (int k = 0; k < nops; k++)
            it->st[k][m] = st[k][i];
        it->nd++;
    }
    if (it->nd == 0) {
        it->nd = 1;
        it->dims[0] = 1;
        for (int k = 0; k < nops; k++)
            it->st[k][0] = 0;
    }
    it->inner = it->dims[it->nd - 1];
}

/* Offsets (in elements) of each operand for output row `row` (of length inner). */
static void bc_row(const bc_iter *it, int64_t row, int64_t *off)
{
    for (int k = 0; k < it->nops; k++)
        off[k] = 0;
    for (int d = it->nd - 2; d >= 0 && row > 0; d--) {
        int64_t idx = row % it->dims[d];
        row /= it->dims[d];
        for (int k = 0; k < it->nops; k++)
            off[k] += idx * it->st[k][d];
    }
}

/* ---- typed kernels ------------------------------------------------------ */

/* o[i] = f(a[i*sa], b[i*sb]) for i < n, with sa/sb in {0, 1}. */
typedef void (*bin_kern)(const void *a, int sa, const void *b, int sb, void *o, int64_t n);

#define KERN(name, T, TO, EXPR)                                                     \
    static void name(const void *pa, int sa, const void *pb, int sb, void *po,      \
                     int64_t n)                                                     \
    {                                                                               \
        const T *a = pa, *b = pb;                                                   \
        TO *o = po;                                                                 \
        if (sa && sb) {                                                             \
            for (int64_t i = 0; i < n; i++) {                                       \
                T x = a[i], y = b[i];                                               \
                o[i] = (TO)(EXPR);                                                  \
            }                                                                       \
        } else if (sa) {                                                            \
            T y = b[0];                                                             \
            for (int64_t i = 0; i < n; i++) {                                       \
                T x = a[i];                                                         \
                o[i] = (TO)(EXPR);                                                  \
            }                                                                       \
        } else if (sb) {                                                            \
            T x = a[0];                                                             \
            for (int64_t i = 0; i < n; i++) {                                       \
                T y = b[i];                                                         \
                o[i] = (TO)(EXPR);                                                  \
            }                                                                       \
        } else {                                                                    \
            T x = a[0], y = b[0];                                                   \
            TO v = (TO)(EXPR);                                                      \
            for (int64_t i = 0; i < n; i++)                                         \
                o[i] = v;                                                           \
        }                                                                           \
    }

/* One kernel per numeric dtype; FEXPR for floating types, IEXPR for integers. */
#define KERN_NUM(op, FEXPR, IEXPR)                                                  \
    KERN(op##_f32, float, float, FEXPR)                                             \
    KERN(op##_f64, double, double, FEXPR)                                           \
    KERN(op##_i8, int8_t, int8_t, IEXPR)                                            \
    KERN(op##_u8, uint8_t, uint8_t, IEXPR)                                          \
    KERN(op##_i16, int16_t, int16_t, IEXPR)                                         \
    KERN(op##_u16, uint16_t, uint16_t, IEXPR)                                       \
    KERN(op##_i32, int32_t, int32_t, IEXPR)                                         \
    KERN(op##_u32, uint32_t, uint32_t, IEXPR)                                       \
    KERN(op##_i64, int64_t, int64_t, IEXPR)                                         \
    KERN(op##_u64, uint64_t, uint64_t, IEXPR)                                       \
    static const bin_kern op##_tab[DT_UINT64 + 1] = {                               \
        [DT_FLOAT] = op##_f32, [DT_DOUBLE] = op##_f64, [DT_INT8] = op##_i8,         \
        [DT_UINT8] = op##_u8, [DT_INT16] = op##_i16, [DT_UINT16] = op##_u16,        \
        [DT_INT32] = op##_i32, [DT_UINT32] = op##_u32, [DT_INT64] = op##_i64,       \
        [DT_UINT64] = op##_u64,                                                     \
    };

/* Comparisons: any numeric input, bool output. */
#define KERN_CMP(op, EXPR)                                                          \
    KERN(op##_f32, float, uint8_t, EXPR)                                            \
    KERN(op##_f64, double, uint8_t, EXPR)                                           \
    KERN(op##_i8, int8_t, uint8_t, EXPR)                                            \
    KERN(op##_u8, uint8_t, uint8_t, EXPR)                                           \
    KERN(op##_i16, int16_t, uint8_t, EXPR)                                          \
    KERN(op##_u16, uint16_t, uint8_t, EXPR)                                         \
    KERN(op##_i32, int32_t, uint8_t, EXPR)                                          \
    KERN(op##_u32, uint32_t, uint8_t, EXPR)                                         \
    KERN(op##_i64, int64_t, uint8_t, EXPR)                                          \
    KERN(op##_u64, uint64_t, uint8_t, EXPR)                                         \
    static const bin_kern op##_tab[DT_UINT64 + 1] = {                               \
        [DT_FLOAT] = op##_f32, [DT_DOUBLE] = op##_f64, [DT_INT8] = op##_i8,         \
        [DT_UINT8] = op##_u8, [DT_INT16] = op##_i16, [DT_UINT16] = op##_u16,        \
        [DT_INT32] = op##_i32, [DT_UINT32] = op##_u32, [DT_INT64] = op##_i64,       \
        [DT_UINT64] = op##_u64, [DT_BOOL] = op##_u8,                                \
    };

/* Integer modulo with the sign of the divisor (ONNX Mod, fmod=0). */
static int64_t imod(int64_t x, int64_t y)
{
    if (y == 0)
        return 0;
    int64_t r = x % y;
    if (r != 0 && ((r < 0) != (y < 0)))
        r += y;
    return r;
}

static double fmod_py(double x, double y)
{
    double r = fmod(x, y);
    if (r != 0 && ((r < 0) != (y < 0)))
        r += y;
    return r;
}

static double ipow(double x, double y) { return pow(x, y); }

KERN_NUM(add, x + y, x + y)
KERN_NUM(sub, x - y, x - y)
KERN_NUM(mul, x * y, x * y)
KERN_NUM(div, x / y, y ? x / y : 0)
KERN_NUM(max, x > y || x != x ? x : y, x > y ? x : y)
KERN_NUM(min, x < y || x != x ? x : y, x < y ? x : y)
KERN_NUM(pow, y == 2 ? x * x : (y == 0.5 ? sqrt(x) : pow(x, y)), ipow((double)x, (double)y))
KERN_NUM(mod, fmod_py(x, y), imod((int64_t)x, (int64_t)y))
KERN_NUM(fmod, fmod(x, y), y ? x % y : 0)
KERN_CMP(eq, x == y)
KERN_CMP(gt, x > y)
KERN_CMP(lt, x < y)
KERN_CMP(ge, x >= y)
KERN_CMP(le, x <= y)
KERN(and_b, uint8_t, uint8_t, x && y)
KERN(or_b, uint8_t, uint8_t, x || y)
KERN(xor_b, uint8_t, uint8_t, (!x) != (!y))
KERN(prelu_f32, float, float, x < 0 ? x * y : x)
KERN(prelu_f64, double, double, x < 0 ? x * y : x)
KERN(prelu_i32, int32_t, int32_t, x < 0 ? x * y : x)
KERN(prelu_i64, int64_t, int64_t, x < 0 ? x * y : x)

/* float pow in single precision: pow() in double is slow on big tensors. */
KERN(powf_f32, float, float, y == 2 ? x * x : (y == 0.5f ? sqrtf(x) : powf(x, y)))

static const bin_kern and_tab[DT_UINT64 + 1] = { [DT_BOOL] = and_b };
static const bin_kern or_tab[DT_UINT64 + 1] = { [DT_BOOL] = or_b };
static const bin_kern xor_tab[DT_UINT64 + 1] = { [DT_BOOL] = xor_b };
static const bin_kern prelu_tab[DT_UINT64 + 1] = {
    [DT_FLOAT] = prelu_f32, [DT_DOUBLE] = prelu_f64, [DT_INT32] = prelu_i32,
    [DT_INT64] = prelu_i64,
};

/* ---- generic driver ----------------------------------------------------- */

typedef struct bin_job {
    bc_iter it;
    bin_kern k;
    const char *a, *b;
    char *o;
    size_t ea, eb, eo;  /* element sizes */
} bin_job;

static void bin_range(void *arg, int64_t begin, int64_t end)
{
    const bin_job *j = arg;
    int64_t inner = j->it.inner;
    int sa = j->it.st[0][j->it.nd - 1] != 0, sb = j->it.st[1][j->it.nd - 1] != 0;
    int64_t i = begin;

    while (i < end) {
        int64_t row = i / inner, col = i % inner, off[MAXOP];
        int64_t cnt = inner - col;
        if (cnt > end - i)
            cnt = end - i;
        bc_row(&j->it, row, off);
        j->k(j->a + (size_t)(off[0] + col * sa) * j->ea, sa,
             j->b + (size_t)(off[1] + col * sb) * j->eb, sb, j->o + (size_t)i * j->eo, cnt);
        i += cnt;
    }
}

/* out = k(a, b) over out's shape (a and b broadcast to it). */
static void bin_apply(op_ctx *c, bin_kern k, const tensor_t *a, const tensor_t *b, tensor_t *out)
{
    bin_job j;
    const tensor_t *in[2] = { a, b };
    int64_t n = tensor_numel(out);

    if (n <= 0)
        return;
    bc_init(&j.it, out, 2, in);
    j.k = k;
    j.a = a->data;
    j.b = b->data;
    j.o = out->data;
    j.ea = dtype_size(a->dtype);
    j.eb = dtype_size(b->dtype);
    j.eo = dtype_size(out->dtype);
    op_parallel_for_work(c, n, 1, bin_range, &j);
}

/* ---- half precision, for the generic path ------------------------------- */

static double ld_f64(const tensor_t *t, int64_t i)
{
    if (t->dtype == DT_FLOAT16)
        return rt_f16_to_f32(((const uint16_t *)t->data)[i]);
    return tensor_get_f64(t, i);
}

static void st_f64(tensor_t *t, int64_t i, double v)
{
    void *p = t->data;
    switch (t->dtype) {
    case DT_FLOAT: ((float *)p)[i] = (float)v; break;
    case DT_DOUBLE: ((double *)p)[i] = v; break;
    case DT_FLOAT16: ((uint16_t *)p)[i] = rt_f32_to_f16((float)v); break;
    case DT_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case DT_UINT8: case DT_BOOL: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case DT_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case DT_UINT16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case DT_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case DT_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case DT_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
    case DT_UINT64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    }
}

/* Slow path for dtypes without typed kernels (float16, mixed-type Pow):
 * element by element in double. */
static void bin_generic(double (*f)(double, double), const tensor_t *a, const tensor_t *b,
                        tensor_t *out)
{
    bc_iter it;
    const tensor_t *in[2] = { a, b };
    int64_t n = tensor_numel(out);
    if (n <= 0)
        return;
    bc_init(&it, out, 2, in);
    for (int64_t i = 0; i < n; i++) {
        int64_t off[MAXOP], row = i / it.inner, col = i % it.inner;
        bc_row(&it, row, off);
        off[0] += col * it.st[0][it.nd - 1];
        off[1] += col * it.st[1][it.nd - 1];
        st_f64(out, i, f(ld_f64(a, off[0]), ld_f64(b, off[1])));
    }
}

static double g_add(double x, double y) { return x + y; }
static double g_sub(double x, double y) { return x - y; }
static double g_mul(double x, double y) { return x * y; }
static double g_div(double x, double y) { return x / y; }
static double g_max(double x, double y) { return x > y || x != x ? x : y; }
static double g_min(double x, double y) { return x < y || x != x ? x : y; }
static double g_pow(double x, double y) { return pow(x, y); }
static double g_mod(double x, double y) { return fmod_py(x, y); }
static double g_fmod(double x, double y) { return fmod(x, y); }
static double g_eq(double x, double y) { return x == y; }
static double g_gt(double x, double y) { return x > y; }
static double g_lt(double x, double y) { return x < y; }
static double g_ge(double x, double y) { return x >= y; }
static double g_le(double x, double y) { return x <= y; }
static double g_prelu(double x, double y) { return x < 0 ? x * y : x; }

/* ---- op descriptions ---------------------------------------------------- */

enum { K_ARITH, K_CMP, K_LOGIC };

typedef struct bin_desc {
    const char *op;
    const bin_kern *tab;
    double (*gen)(double, double);
    int kind;
} bin_desc;

static const bin_desc descs[] = {
    { "Add", add_tab, g_add, K_ARITH },
    { "Sub", sub_tab, g_sub, K_ARITH },
    { "Mul", mul_tab, g_mul, K_ARITH },
    { "Div", div_tab, g_div, K_ARITH },
    { "Pow", pow_tab, g_pow, K_ARITH },
    { "Mod", mod_tab, g_mod, K_ARITH },
    { "Max", max_tab, g_max, K_ARITH },
    { "Min", min_tab, g_min, K_ARITH },
    { "Sum", add_tab, g_add, K_ARITH },
    { "Mean", add_tab, g_add, K_ARITH },
    { "PRelu", prelu_tab, g_prelu, K_ARITH },
    { "Equal", eq_tab, g_eq, K_CMP },
    { "Greater", gt_tab, g_gt, K_CMP },
    { "Less", lt_tab, g_lt, K_CMP },
    { "GreaterOrEqual", ge_tab, g_ge, K_CMP },
    { "LessOrEqual", le_tab, g_le, K_CMP },
    { "And", and_tab, NULL, K_LOGIC },
    { "Or", or_tab, NULL, K_LOGIC },
    { "Xor", xor_tab, NULL, K_LOGIC },
};

static const bin_desc *find_desc(const char *op)
{
    for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
        if (!strcmp(descs[i].op, op))
            return &descs[i];
    return NULL;
}

static int is_variadic(const char *op)
{
    return !strcmp(op, "Max") || !strcmp(op, "Min") || !strcmp(op, "Sum") ||
           !strcmp(op, "Mean");
}

static int binary_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    const bin_desc *d = find_desc(n->op);
    int var = is_variadic(n->op), rc, nd;
    int64_t dims[MODEL_MAX_DIMS];
    tensor_t *a;

    if (!d)
        return rt_err(err, errlen, RT_EINTERNAL, "node '%s': no binary op %s", n->name, n->op);
    rc = check_arity(n, var ? 1 : 2, var ? -1 : 2, 1, err, errlen);
    if (rc)
        return rc;
    a = node_input(g, n, 0);
    if (!a)
        return rt_err(err, errlen, RT_EFORMAT, "node '%s' (%s): input 0 missing", n->name, n->op);
    nd = a->ndim;
    memcpy(dims, a->dims, sizeof(dims));
    for (int i = 1; i < n->n_in; i++) {
        tensor_t *b = node_input(g, n, i);
        int64_t tmp[MODEL_MAX_DIMS];
        if (!b)
            continue;
        if (b->dtype != a->dtype && strcmp(n->op, "Pow"))
            return rt_err(err, errlen, RT_EFORMAT, "node '%s' (%s): input dtypes differ (%s, %s)",
                          n->name, n->op, dtype_name(a->dtype), dtype_name(b->dtype));
        nd = broadcast_shape(nd, dims, b->ndim, b->dims, tmp);
        if (nd < 0) {
            char s1[128], s2[128];
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): shapes %s and %s do not broadcast",
                          n->name, n->op, tensor_shape_str(a, s1, sizeof(s1)),
                          tensor_shape_str(b, s2, sizeof(s2)));
        }
        memcpy(dims, tmp, sizeof(dims));
    }
    if (!strcmp(n->op, "PRelu")) {
        /* The slope broadcasts to X, never the other way. */
        if (nd != a->ndim || memcmp(dims, a->dims, (size_t)nd * sizeof(int64_t)))
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (PRelu): slope does not broadcast to X",
                          n->name);
    }
    if (d->kind == K_LOGIC && a->dtype != DT_BOOL)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): inputs must be bool, not %s",
                      n->name, n->op, dtype_name(a->dtype));
    if (d->kind != K_LOGIC && !(a->dtype <= DT_UINT64 && d->tab[a->dtype]) &&
        a->dtype != DT_FLOAT16)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): dtype %s not supported",
                      n->name, n->op, dtype_name(a->dtype));
    tensor_set_shape(node_output(g, n, 0), d->kind == K_ARITH ? a->dtype : DT_BOOL, nd, dims);
    return RT_OK;
}

static int binary_run(op_ctx *c, graph_t *g, node_t *n)
{
    const bin_desc *d = find_desc(n->op);
    tensor_t *out = node_output(g, n, 0);
    tensor_t *a = node_input(g, n, 0), *b;
    int dt = a->dtype, first = 1, cnt = 0;
    const bin_kern *tab = d->tab;
    double (*gen)(double, double) = d->gen;
    bin_kern k;

    if (!strcmp(n->op, "Mod") && node_attr_int(n, "fmod", 0)) {
        tab = fmod_tab;
        gen = g_fmod;
    }
    k = dt <= DT_UINT64 ? tab[dt] : NULL;
    if (!strcmp(n->op, "Pow") && dt == DT_FLOAT)
        k = powf_f32;

    for (int i = 1; i < n->n_in; i++) {
        b = node_input(g, n, i);
        if (!b)
            continue;
        cnt++;
        const tensor_t *x = first ? a : out;
        if (k && b->dtype == dt)
            bin_apply(c, k, x, b, out);
        else if (gen)
            bin_generic(gen, x, b, out);
        else
            return rt_err(c->err, c->errlen, RT_EUNSUPPORTED, "node '%s' (%s): dtype %s",
                          n->name, n->op, dtype_name(dt));
        first = 0;
    }
    if (first) {
        /* A variadic op with a single input: a copy. */
        memcpy(out->data, a->data, tensor_nbytes(out));
    }
    if (!strcmp(n->op, "Mean") && cnt > 0) {
        int64_t m = tensor_numel(out);
        for (int64_t i = 0; i < m; i++)
            st_f64(out, i, ld_f64(out, i) / (cnt + 1));
    }
    return RT_OK;
}

/* ---- Where -------------------------------------------------------------- */

typedef struct where_job {
    bc_iter it;
    const uint8_t *c;
    const char *x, *y;
    char *o;
    size_t es;
} where_job;

#define WHERE_LOOP(T)                                                              \
    do {                                                                           \
        const T *x = (const T *)xp, *y = (const T *)yp;                            \
        T *o = (T *)op;                                                            \
        for (int64_t e = 0; e < cnt; e++)                                          \
            o[e] = cp[e * sc] ? x[e * sx] : y[e * sy];                             \
    } while (0)

static void where_range(void *arg, int64_t begin, int64_t end)
{
    const where_job *j = arg;
    int64_t inner = j->it.inner, last = j->it.nd - 1;
    int64_t sc = j->it.st[0][last], sx = j->it.st[1][last], sy = j->it.st[2][last];
    int64_t i = begin;

    while (i < end) {
        int64_t row = i / inner, col = i % inner, off[MAXOP];
        int64_t cnt = inner - col;
        if (cnt > end - i)
            cnt = end - i;
        bc_row(&j->it, row, off);
        const uint8_t *cp = j->c + off[0] + col * sc;
        const char *xp = j->x + (size_t)(off[1] + col * sx) * j->es;
        const char *yp = j->y + (size_t)(off[2] + col * sy) * j->es;
        char *op = j->o + (size_t)i * j->es;
        switch (j->es) {
        case 1: WHERE_LOOP(uint8_t); break;
        case 2: WHERE_LOOP(uint16_t); break;
        case 4: WHERE_LOOP(uint32_t); break;
        default: WHERE_LOOP(uint64_t); break;
        }
        i += cnt;
    }
}

static int where_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 3, 3, 1, err, errlen), nd;
    int64_t d1[MODEL_MAX_DIMS], d2[MODEL_MAX_DIMS];
    tensor_t *c, *x, *y;

    if (rc)
        return rc;
    c = node_input(g, n, 0);
    x = node_input(g, n, 1);
    y = node_input(g, n, 2);
    if (c->dtype != DT_BOOL)
        return rt_err(err, errlen, RT_EFORMAT, "node '%s' (Where): condition is %s, not bool",
                      n->name, dtype_name(c->dtype));
    if (x->dtype != y->dtype)
        return rt_err(err, errlen, RT_EFORMAT, "node '%s' (Where): X is %s but Y is %s",
                      n->name, dtype_name(x->dtype), dtype_name(y->dtype));
    size_t es = dtype_size(x->dtype);
    if (es != 1 && es != 2 && es != 4 && es != 8)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (Where): dtype %s",
                      n->name, dtype_name(x->dtype));
    nd = broadcast_shape(c->ndim, c->dims, x->ndim, x->dims, d1);
    if (nd >= 0)
        nd = broadcast_shape(nd, d1, y->ndim, y->dims, d2);
    if (nd < 0)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Where): inputs do not broadcast", n->name);
    tensor_set_shape(node_output(g, n, 0), x->dtype, nd, d2);
    return RT_OK;
}

static int where_run(op_ctx *c, graph_t *g, node_t *n)
{
    where_job j;
    tensor_t *out = node_output(g, n, 0);
    const tensor_t *in[3] = { node_input(g, n, 0), node_input(g, n, 1), node_input(g, n, 2) };
    int64_t m = tensor_numel(out);

    if (m <= 0)
        return RT_OK;
    bc_init(&j.it, out, 3, in);
    j.c = in[0]->data;
    j.x = in[1]->data;
    j.y = in[2]->data;
    j.o = out->data;
    j.es = dtype_size(out->dtype);
    op_parallel_for_work(c, m, 1, where_range, &j);
    return RT_OK;
}

const op_def exec_ops_binary[] = {
    { "Add", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "Sub", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "Mul", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "Div", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "Pow", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "Mod", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "Max", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "Min", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "Sum", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "Mean", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "PRelu", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "Equal", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "Greater", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "Less", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "GreaterOrEqual", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "LessOrEqual", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "And", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "Or", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "Xor", "", binary_infer, NULL, binary_run, NULL, NULL },
    { "Where", "", where_infer, NULL, where_run, NULL, NULL },
    { NULL, NULL, NULL, NULL, NULL, NULL, NULL },
};
