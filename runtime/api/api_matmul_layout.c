/* runtime/api/api_matmul_layout.c — the matmul API per chip: the types it offers,
 * the K/N alignment and limits, the native layouts of A, B and C (SDK 2.3.2 header
 * and user guide table 3-12, npu-hw.md §2.5), element access in every type, and
 * rknn_B_normal_layout_to_native_layout. */
#include "runtime/api/api_internal.h"
#include "runtime/api/api_matmul.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- types -------------------------------------------------------------------- */

int mm_types_of(int type, mm_types *t)
{
    static const struct { int type, a, b, c; } tab[] = {
        {RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_FLOAT32},
        {RKNN_INT8_MM_INT8_TO_INT32, RKNN_TENSOR_INT8, RKNN_TENSOR_INT8, RKNN_TENSOR_INT32},
        {RKNN_INT8_MM_INT8_TO_INT8, RKNN_TENSOR_INT8, RKNN_TENSOR_INT8, RKNN_TENSOR_INT8},
        {RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_FLOAT16},
        {RKNN_FLOAT16_MM_INT8_TO_FLOAT32, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_INT8, RKNN_TENSOR_FLOAT32},
        {RKNN_FLOAT16_MM_INT8_TO_FLOAT16, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_INT8, RKNN_TENSOR_FLOAT16},
        {RKNN_FLOAT16_MM_INT4_TO_FLOAT32, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_INT4, RKNN_TENSOR_FLOAT32},
        {RKNN_FLOAT16_MM_INT4_TO_FLOAT16, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_INT4, RKNN_TENSOR_FLOAT16},
        {RKNN_INT8_MM_INT8_TO_FLOAT32, RKNN_TENSOR_INT8, RKNN_TENSOR_INT8, RKNN_TENSOR_FLOAT32},
        {RKNN_INT4_MM_INT4_TO_INT16, RKNN_TENSOR_INT4, RKNN_TENSOR_INT4, RKNN_TENSOR_INT16},
        {RKNN_INT8_MM_INT4_TO_INT32, RKNN_TENSOR_INT8, RKNN_TENSOR_INT4, RKNN_TENSOR_INT32},
        {RKNN_FLOAT16_MM_INT4_TO_BFLOAT16, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_INT4, RKNN_TENSOR_BFLOAT16},
        {RKNN_INT8_MM_INT4_TO_FLOAT16, RKNN_TENSOR_INT8, RKNN_TENSOR_INT4, RKNN_TENSOR_FLOAT16},
    };
    for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
        if (tab[i].type == type) {
            t->a = tab[i].a;
            t->b = tab[i].b;
            t->c = tab[i].c;
            return 1;
        }
    }
    return 0;
}

static int type_bits(int rt)
{
    switch (rt) {
    case RKNN_TENSOR_INT4: return 4;
    case RKNN_TENSOR_INT8: return 8;
    case RKNN_TENSOR_INT16:
    case RKNN_TENSOR_FLOAT16:
    case RKNN_TENSOR_BFLOAT16: return 16;
    default: return 32;
    }
}

size_t mm_bytes(int rtype, size_t count)
{
    return rtype == RKNN_TENSOR_INT4 ? (count + 1) / 2 : count * (size_t)(type_bits(rtype) / 8);
}

/* ---- chips -------------------------------------------------------------------- */

/* Native B blocks (subN x subK) by B's type: int8, fp16, int4 (0 = no such B). The
 * K and N alignments the header states are these blocks; K <= 10240 everywhere; N
 * up to 4096 (8192 with an int4 B). RK3588 cuts a native B in 8192-row K segments,
 * RK3576 in 4096-row ones. Types: fp16 and int8 (1-4) on RK3562/RK356x, all on
 * RK3576/RK3588; the RV110x chips, RV1126B and RK2118 have no matmul API (G:L2773). */
typedef struct mm_chip {
    const char *name;
    int subn[3], subk[3];
    int seg;
    int all_types;
    int tp_norm;
} mm_chip;

static const mm_chip chips[] = {
    {"rk3588", {32, 16, 64}, {32, 32, 32}, 8192, 1, 1},
    {"rk3576", {32, 16, 64}, {32, 32, 32}, 4096, 1, 1},
    {"rk3562", {16, 8, 0}, {32, 32, 0}, 0, 0, 1},
    {"rk3566", {16, 8, 0}, {32, 16, 0}, 0, 0, 0},
    {"rk3568", {16, 8, 0}, {32, 16, 0}, 0, 0, 0},
};

static const mm_chip *chip_find(const char *name)
{
    for (size_t i = 0; i < sizeof(chips) / sizeof(chips[0]); i++)
        if (strcasecmp(chips[i].name, name) == 0)
            return &chips[i];
    return NULL;
}

static int b_slot(int rt)
{
    return rt == RKNN_TENSOR_INT8 ? 0 : rt == RKNN_TENSOR_FLOAT16 ? 1 : 2;
}

int mm_geom_init(mm_geom *g, const char *chip, const rknn_matmul_info *info, int32_t M, int32_t K,
                 int32_t N, const char *fn)
{
    const mm_chip *ch = chip_find(chip);
    const api_platform *ap = api_platform_get(chip);
    int slot;

    memset(g, 0, sizeof(*g));
    if (!ch || !ap) {
        API_E("%s, %s has no matmul API (RK3588, RK3576, RK3562, RK3566, RK3568 have one): "
              "set RKNN_TARGET to one of them", fn, chip);
        return RKNN_ERR_TARGET_PLATFORM_UNMATCH;
    }
    if (!mm_types_of(info->type, &g->t)) {
        API_E("%s, info.type %d is not an rknn_matmul_type (1-12, 15)", fn, (int)info->type);
        return RKNN_ERR_PARAM_INVALID;
    }
    if (!ch->all_types && info->type > RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16) {
        API_E("%s, %s offers RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32/_TO_FLOAT16 and "
              "RKNN_INT8_MM_INT8_TO_INT32/_TO_INT8, not %s (int4 and mixed types are "
              "RK3588/RK3576 only)", fn, ch->name, get_matmul_type_string(info->type));
        return RKNN_ERR_PARAM_INVALID;
    }
    if (info->B_layout < RKNN_MM_LAYOUT_NORM || info->B_layout > RKNN_MM_LAYOUT_TP_NORM ||
        (info->B_layout == RKNN_MM_LAYOUT_TP_NORM && !ch->tp_norm)) {
        API_E("%s, B_layout %d is not offered on %s: use RKNN_MM_LAYOUT_NORM (0) or "
              "RKNN_MM_LAYOUT_NATIVE (1)%s", fn, info->B_layout, ch->name,
              ch->tp_norm ? " or RKNN_MM_LAYOUT_TP_NORM (2)" : "");
        return RKNN_ERR_PARAM_INVALID;
    }
    if (info->AC_layout != RKNN_MM_LAYOUT_NORM && info->AC_layout != RKNN_MM_LAYOUT_NATIVE) {
        API_E("%s, AC_layout %d: use RKNN_MM_LAYOUT_NORM (0) or RKNN_MM_LAYOUT_NATIVE (1)", fn,
              info->AC_layout);
        return RKNN_ERR_PARAM_INVALID;
    }
    slot = b_slot(g->t.b);
    g->M = M;
    g->K = K;
    g->N = N;
    g->b_layout = info->B_layout;
    g->ac_layout = info->AC_layout;
    g->b_subn = ch->subn[slot];
    g->b_subk = ch->subk[slot];
    g->a_sub = ap->stroke_bytes * 8 / type_bits(g->t.a);
    g->c_sub = 128 / type_bits(g->t.c); /* 16-byte lines: 4 x 32-bit, 8 x 16-bit */
    g->b_seg = ch->seg && K > ch->seg ? ch->seg : K;
    {
        int nmax = g->t.b == RKNN_TENSOR_INT4 ? 8192 : 4096;
        if (M < 1 || K < 1 || N < 1 || K > 10240 || N > nmax || K % g->b_subk || N % g->b_subn) {
            API_E("%s, M=%d K=%d N=%d: %s on %s needs M >= 1, K a multiple of %d up to 10240 "
                  "and N a multiple of %d up to %d (pad the matrices with zeros)", fn, M, K, N,
                  get_matmul_type_string(info->type), ch->name, g->b_subk, g->b_subn, nmax);
            return RKNN_ERR_PARAM_INVALID;
        }
    }
    return RKNN_SUCC;
}

/* ---- attributes and indices ----------------------------------------------------- */

static void attr_set(rknn_matmul_tensor_attr *a, const char *name, int rt, int nd, const uint32_t *d)
{
    size_t n = 1;

    memset(a, 0, sizeof(*a));
    snprintf(a->name, sizeof(a->name), "%s", name);
    a->n_dims = (uint32_t)nd;
    for (int i = 0; i < nd; i++) {
        a->dims[i] = d[i];
        n *= d[i];
    }
    a->type = (rknn_tensor_type)rt;
    a->size = (uint32_t)mm_bytes(rt, n);
}

void mm_fill_attrs(const mm_geom *g, rknn_matmul_io_attr *io)
{
    uint32_t M = (uint32_t)g->M, K = (uint32_t)g->K, N = (uint32_t)g->N;

    if (g->ac_layout == RKNN_MM_LAYOUT_NATIVE) {
        uint32_t a[3] = {K / (uint32_t)g->a_sub, M, (uint32_t)g->a_sub};
        uint32_t c[3] = {N / (uint32_t)g->c_sub, M, (uint32_t)g->c_sub};
        attr_set(&io->A, "A", g->t.a, 3, a);
        attr_set(&io->C, "C", g->t.c, 3, c);
    } else {
        uint32_t a[2] = {M, K}, c[2] = {M, N};
        attr_set(&io->A, "A", g->t.a, 2, a);
        attr_set(&io->C, "C", g->t.c, 2, c);
    }
    if (g->b_layout == RKNN_MM_LAYOUT_NATIVE) {
        uint32_t b[4] = {N / (uint32_t)g->b_subn, K / (uint32_t)g->b_subk, (uint32_t)g->b_subn,
                         (uint32_t)g->b_subk};
        attr_set(&io->B, "B", g->t.b, 4, b);
    } else if (g->b_layout == RKNN_MM_LAYOUT_TP_NORM) {
        uint32_t b[2] = {N, K};
        attr_set(&io->B, "B", g->t.b, 2, b);
    } else {
        uint32_t b[2] = {K, N};
        attr_set(&io->B, "B", g->t.b, 2, b);
    }
}

size_t mm_a_index(const mm_geom *g, int32_t m, int32_t k)
{
    if (g->ac_layout == RKNN_MM_LAYOUT_NATIVE)
        return ((size_t)(k / g->a_sub) * (size_t)g->M + (size_t)m) * (size_t)g->a_sub +
               (size_t)(k % g->a_sub);
    return (size_t)m * (size_t)g->K + (size_t)k;
}

size_t mm_b_index(const mm_geom *g, int32_t k, int32_t n)
{
    if (g->b_layout == RKNN_MM_LAYOUT_TP_NORM)
        return (size_t)n * (size_t)g->K + (size_t)k;
    if (g->b_layout == RKNN_MM_LAYOUT_NATIVE) {
        /* segment t holds rows [t*seg, t*seg + kt) of B, blocked on its own */
        int32_t t = k / g->b_seg, k0 = t * g->b_seg, kk = k - k0;
        int32_t kt = g->K - k0 < g->b_seg ? g->K - k0 : g->b_seg;
        size_t base = (size_t)k0 * (size_t)g->N;
        return base + ((size_t)(n / g->b_subn) * (size_t)(kt / g->b_subk) + (size_t)(kk / g->b_subk)) *
                          (size_t)g->b_subn * (size_t)g->b_subk +
               (size_t)(n % g->b_subn) * (size_t)g->b_subk + (size_t)(kk % g->b_subk);
    }
    return (size_t)k * (size_t)g->N + (size_t)n;
}

size_t mm_c_index(const mm_geom *g, int32_t m, int32_t n)
{
    if (g->ac_layout == RKNN_MM_LAYOUT_NATIVE)
        return ((size_t)(n / g->c_sub) * (size_t)g->M + (size_t)m) * (size_t)g->c_sub +
               (size_t)(n % g->c_sub);
    return (size_t)m * (size_t)g->N + (size_t)n;
}

/* ---- elements ------------------------------------------------------------------ */

static float bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

static uint16_t f32_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40); /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);         /* to nearest even */
    return (uint16_t)(u >> 16);
}

double mm_get(const void *buf, int rt, size_t i)
{
    switch (rt) {
    case RKNN_TENSOR_INT4: {
        uint8_t byte = ((const uint8_t *)buf)[i / 2];
        int v = i % 2 ? byte >> 4 : byte & 0xf;
        return v >= 8 ? v - 16 : v;
    }
    case RKNN_TENSOR_INT8: return ((const int8_t *)buf)[i];
    case RKNN_TENSOR_INT16: return ((const int16_t *)buf)[i];
    case RKNN_TENSOR_INT32: return ((const int32_t *)buf)[i];
    case RKNN_TENSOR_FLOAT16: return rt_f16_to_f32(((const uint16_t *)buf)[i]);
    case RKNN_TENSOR_BFLOAT16: return bf16_to_f32(((const uint16_t *)buf)[i]);
    default: return ((const float *)buf)[i];
    }
}

static double round_sat(double v, double lo, double hi)
{
    v = v < 0 ? -floor(-v + 0.5) : floor(v + 0.5);
    return v < lo ? lo : v > hi ? hi : v;
}

void mm_set(void *buf, int rt, size_t i, double v)
{
    if (isnan(v) && (rt == RKNN_TENSOR_INT4 || rt == RKNN_TENSOR_INT8 || rt == RKNN_TENSOR_INT16 ||
                     rt == RKNN_TENSOR_INT32))
        v = 0;
    switch (rt) {
    case RKNN_TENSOR_INT4: {
        uint8_t *p = (uint8_t *)buf + i / 2;
        int q = (int)round_sat(v, -8, 7) & 0xf;
        *p = i % 2 ? (uint8_t)((*p & 0x0f) | (q << 4)) : (uint8_t)((*p & 0xf0) | q);
        break;
    }
    case RKNN_TENSOR_INT8: ((int8_t *)buf)[i] = (int8_t)round_sat(v, -128, 127); break;
    case RKNN_TENSOR_INT16: ((int16_t *)buf)[i] = (int16_t)round_sat(v, -32768, 32767); break;
    case RKNN_TENSOR_INT32:
        ((int32_t *)buf)[i] = (int32_t)round_sat(v, -2147483648.0, 2147483647.0);
        break;
    case RKNN_TENSOR_FLOAT16: ((uint16_t *)buf)[i] = rt_f32_to_f16((float)v); break;
    case RKNN_TENSOR_BFLOAT16: ((uint16_t *)buf)[i] = f32_to_bf16((float)v); break;
    default: ((float *)buf)[i] = (float)v; break;
    }
}

/* ---- the SDK's B converter --------------------------------------------------------- */

int rknn_B_normal_layout_to_native_layout(void *B_input, void *B_output, int K, int N,
                                          rknn_matmul_info *info)
{
    const char *target = getenv("RKNN_TARGET");
    rknn_matmul_info ni;
    mm_geom src, dst;
    int st;

    if (!B_input || !B_output || !info) {
        API_E("rknn_B_normal_layout_to_native_layout, B_input, B_output and info must not be NULL");
        return RKNN_ERR_PARAM_INVALID;
    }
    ni = *info;
    ni.B_layout = RKNN_MM_LAYOUT_NATIVE;
    st = mm_geom_init(&dst, target && *target ? target : "rk3588", &ni, 1, K, N,
                      "rknn_B_normal_layout_to_native_layout");
    if (st != RKNN_SUCC)
        return st;
    src = dst;
    src.b_layout = RKNN_MM_LAYOUT_NORM;
    /* int4 nibbles are rewritten one by one: clear the output first */
    memset(B_output, 0, mm_bytes(dst.t.b, (size_t)K * (size_t)N));
    for (int32_t k = 0; k < K; k++)
        for (int32_t n = 0; n < N; n++)
            mm_set(B_output, dst.t.b, mm_b_index(&dst, k, n),
                   mm_get(B_input, src.t.b, mm_b_index(&src, k, n)));
    return RKNN_SUCC;
}
