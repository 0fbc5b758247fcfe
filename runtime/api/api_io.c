/* runtime/api/api_io.c — tensor attributes, type/layout conversion, and the general
 * inference flow: rknn_inputs_set, rknn_run, rknn_wait, rknn_outputs_get,
 * rknn_outputs_release.
 *
 * The model side is always the graph's own dense layout (NCHW for 4-D) and dtype;
 * the application side is whatever (type, fmt, strides) it declares. What the
 * attributes report follows the vendor runtime: 4-D inputs are shown as NHWC, 4-D
 * outputs as NCHW, anything else as UNDEFINED; native attributes use NC1HWC2 with
 * C2 = the chip's stroke width / element size (npu-hw.md §2). */
#include "runtime/api/api_internal.h"
#include "runtime/npu/npu.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- types ------------------------------------------------------------------- */

int api_rtype_of_dtype(int dt)
{
    switch (dt) {
    case DT_FLOAT: return RKNN_TENSOR_FLOAT32;
    case DT_FLOAT16: return RKNN_TENSOR_FLOAT16;
    case DT_INT8: return RKNN_TENSOR_INT8;
    case DT_UINT8: return RKNN_TENSOR_UINT8;
    case DT_INT16: return RKNN_TENSOR_INT16;
    case DT_UINT16: return RKNN_TENSOR_UINT16;
    case DT_INT32: return RKNN_TENSOR_INT32;
    case DT_UINT32: return RKNN_TENSOR_UINT32;
    case DT_INT64: return RKNN_TENSOR_INT64;
    case DT_BOOL: return RKNN_TENSOR_BOOL;
    case DT_BFLOAT16: return RKNN_TENSOR_BFLOAT16;
    default: return -1;
    }
}

int api_dtype_of_rtype(int rt)
{
    static const int map[] = {DT_FLOAT, DT_FLOAT16, DT_INT8, DT_UINT8, DT_INT16, DT_UINT16,
                              DT_INT32, DT_UINT32, DT_INT64, DT_BOOL, DT_UNDEFINED, DT_BFLOAT16};
    return rt >= 0 && rt < RKNN_TENSOR_TYPE_MAX ? map[rt] : DT_UNDEFINED;
}

size_t api_rtype_size(int rt)
{
    static const size_t sz[] = {4, 2, 1, 1, 2, 2, 4, 4, 8, 1, 1, 2};
    return rt >= 0 && rt < RKNN_TENSOR_TYPE_MAX ? sz[rt] : 0;
}

int api_rtype_valid(int rt)
{
    return rt >= 0 && rt < RKNN_TENSOR_TYPE_MAX && rt != RKNN_TENSOR_INT4;
}

static float bf16_to_float(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
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

static double rd(const void *p, int64_t i, int t)
{
    switch (t) {
    case RKNN_TENSOR_FLOAT32: return ((const float *)p)[i];
    case RKNN_TENSOR_FLOAT16: return rt_f16_to_f32(((const uint16_t *)p)[i]);
    case RKNN_TENSOR_BFLOAT16: return bf16_to_float(((const uint16_t *)p)[i]);
    case RKNN_TENSOR_INT8: return ((const int8_t *)p)[i];
    case RKNN_TENSOR_UINT8: return ((const uint8_t *)p)[i];
    case RKNN_TENSOR_BOOL: return ((const uint8_t *)p)[i] != 0;
    case RKNN_TENSOR_INT16: return ((const int16_t *)p)[i];
    case RKNN_TENSOR_UINT16: return ((const uint16_t *)p)[i];
    case RKNN_TENSOR_INT32: return ((const int32_t *)p)[i];
    case RKNN_TENSOR_UINT32: return ((const uint32_t *)p)[i];
    case RKNN_TENSOR_INT64: return (double)((const int64_t *)p)[i];
    default: return 0;
    }
}

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static void wr(void *p, int64_t i, int t, double v)
{
    switch (t) {
    case RKNN_TENSOR_FLOAT32: ((float *)p)[i] = (float)v; break;
    case RKNN_TENSOR_FLOAT16: ((uint16_t *)p)[i] = rt_f32_to_f16((float)v); break;
    case RKNN_TENSOR_BFLOAT16: ((uint16_t *)p)[i] = float_to_bf16((float)v); break;
    case RKNN_TENSOR_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    default:
        if (isnan(v))
            v = 0;
        v = rint(v);
        switch (t) {
        case RKNN_TENSOR_INT8: ((int8_t *)p)[i] = (int8_t)clampd(v, -128, 127); break;
        case RKNN_TENSOR_UINT8: ((uint8_t *)p)[i] = (uint8_t)clampd(v, 0, 255); break;
        case RKNN_TENSOR_INT16: ((int16_t *)p)[i] = (int16_t)clampd(v, -32768, 32767); break;
        case RKNN_TENSOR_UINT16: ((uint16_t *)p)[i] = (uint16_t)clampd(v, 0, 65535); break;
        case RKNN_TENSOR_INT32:
            ((int32_t *)p)[i] = (int32_t)clampd(v, -2147483648.0, 2147483647.0);
            break;
        case RKNN_TENSOR_UINT32: ((uint32_t *)p)[i] = (uint32_t)clampd(v, 0, 4294967295.0); break;
        case RKNN_TENSOR_INT64:
            ((int64_t *)p)[i] = (int64_t)clampd(v, -9.2233720368547748e18, 9.2233720368547748e18);
            break;
        default: break;
        }
    }
}

static int is_float_rtype(int t)
{
    return t == RKNN_TENSOR_FLOAT32 || t == RKNN_TENSOR_FLOAT16 || t == RKNN_TENSOR_BFLOAT16;
}

/* ---- attributes ------------------------------------------------------------------- */

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int64_t round_up(int64_t a, int64_t b)
{
    return ceil_div(a, b) * b;
}

int api_native_c2(const api_ctx *c, int rtype)
{
    size_t es = api_rtype_size(rtype);
    int c2 = es ? c->plat->stroke_bytes / (int)es : 1;
    return c2 > 0 ? c2 : 1;
}

/* NC1HWC2 slab count of an io: outputs of a convolution are aligned to 2*C2
 * channels (rknn-api.md §3.4, e.g. RK3588 [1,8,128,128] -> [1,2,128,128,16]). */
static int64_t native_c1(const api_io *io, int64_t c2)
{
    return io->conv_out ? ceil_div(io->dims[1], 2 * c2) * 2 : ceil_div(io->dims[1], c2);
}

static void set_dims(rknn_tensor_attr *a, int n, const int64_t *d)
{
    a->n_dims = (uint32_t)n;
    a->n_elems = 1;
    for (int i = 0; i < n; i++) {
        a->dims[i] = (uint32_t)d[i];
        a->n_elems *= (uint32_t)d[i];
    }
}

void api_fill_attr(const api_ctx *c, const api_io *io, int is_input, int cmd,
                   rknn_tensor_attr *a)
{
    const tensor_t *t = &c->g->t[io->tensor];
    uint32_t index = a->index;
    size_t es = api_rtype_size(io->rtype);
    int four = io->ndim == 4;
    int64_t n = four ? io->dims[0] : 0, ch = four ? io->dims[1] : 0;
    int64_t h = four ? io->dims[2] : 0, w = four ? io->dims[3] : 0;
    int native = cmd == RKNN_QUERY_NATIVE_INPUT_ATTR || cmd == RKNN_QUERY_NATIVE_OUTPUT_ATTR ||
                 cmd == RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR ||
                 cmd == RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR;
    int native_nhwc = cmd == RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR ||
                      cmd == RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR;

    memset(a, 0, sizeof(*a));
    a->index = index;
    snprintf(a->name, sizeof(a->name), "%s", t->name);
    a->type = (rknn_tensor_type)io->rtype;
    a->qnt_type = io->affine ? RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC : RKNN_TENSOR_QNT_NONE;
    a->zp = io->affine ? io->zp : 0;
    a->scale = io->affine ? io->scale : 1.0f;

    if (!four) {
        set_dims(a, io->ndim, io->dims);
        a->fmt = RKNN_TENSOR_UNDEFINED;
        a->size = (uint32_t)(a->n_elems * es);
        a->size_with_stride = a->size;
        if (is_input && (native || native_nhwc))
            a->size_with_stride = (uint32_t)round_up(a->size, c->plat->stroke_bytes);
        return;
    }
    if (native && !(is_input && (ch == 1 || ch == 3 || ch == 4))) {
        int64_t c2 = api_native_c2(c, io->rtype);
        int64_t d[5] = {n, is_input ? ceil_div(ch, c2) : native_c1(io, c2), h, w, c2};
        set_dims(a, 5, d);
        a->fmt = RKNN_TENSOR_NC1HWC2;
        a->size = (uint32_t)(a->n_elems * es);
        a->w_stride = is_input ? (uint32_t)w : 0;
        a->size_with_stride = a->size;
        return;
    }
    if (is_input || native_nhwc) {
        int64_t d[4] = {n, h, w, ch};
        set_dims(a, 4, d);
        a->fmt = RKNN_TENSOR_NHWC;
        a->size = (uint32_t)(a->n_elems * es);
        if (is_input) {
            /* zero-copy rows are aligned on the chip (npu-hw.md §2.4) */
            int64_t ws = native || native_nhwc ? round_up(w, c->plat->width_align) : w;
            a->w_stride = (uint32_t)ws;
            a->size_with_stride = (uint32_t)(n * h * ws * ch * (int64_t)es);
        } else {
            a->size_with_stride = a->size;
        }
        return;
    }
    set_dims(a, 4, io->dims);
    a->fmt = RKNN_TENSOR_NCHW;
    a->size = (uint32_t)(a->n_elems * es);
    a->size_with_stride = a->size;
}

size_t api_io_bytes(const api_io *io)
{
    size_t n = api_rtype_size(io->rtype);
    for (int i = 0; i < io->ndim; i++)
        n *= (size_t)io->dims[i];
    return n;
}

int api_input_is_raw(const api_io *io, api_layout *l, int pass_through)
{
    if (pass_through)
        return 0;
    if ((io->pre || io->pixels) && l->rtype == RKNN_TENSOR_UINT8) {
        l->q.affine = 0; /* pixels: the model normalises them (the zoo's zero-copy flow
                            keeps the queried INT8 attr's qnt_type and sets UINT8) */
        return 1;
    }
    return !(l->q.affine && !is_float_rtype(l->rtype));
}

void api_input_finish(const api_ctx *c, api_io *io, int raw)
{
    const tensor_t *t = &c->g->t[io->tensor];
    const simmodel_input *p = io->pre;

    if (t->dtype != DT_FLOAT || !io->data)
        return;
    if (raw && p && io->ndim == 4) {
        int64_t N = io->dims[0], C = io->dims[1], plane = io->dims[2] * io->dims[3];
        float *x = io->data, *tmp = NULL;
        if (p->n_reorder == C && C > 1) {
            tmp = xmalloc(sizeof(float) * (size_t)(C * plane));
            for (int64_t n = 0; n < N; n++) {
                float *b = x + n * C * plane;
                memcpy(tmp, b, sizeof(float) * (size_t)(C * plane));
                for (int64_t ch = 0; ch < C; ch++)
                    memcpy(b + ch * plane, tmp + p->reorder[ch] * plane,
                           sizeof(float) * (size_t)plane);
            }
            free(tmp);
        }
        for (int64_t n = 0; n < N; n++)
            for (int64_t ch = 0; ch < C; ch++) {
                /* in float, as the calibration images and numpy compute it */
                float m = p->n_mean ? p->mean[p->n_mean == 1 ? 0 : ch % p->n_mean] : 0.0f;
                float sd = p->n_std ? p->std[p->n_std == 1 ? 0 : ch % p->n_std] : 1.0f;
                float *b = x + (n * C + ch) * plane;
                for (int64_t k = 0; k < plane; k++)
                    b[k] = (b[k] - m) / sd;
            }
    }
    if (c->qg)
        quant_graph_output(c->qg, io->tensor, io->data);
}

/* ---- layout conversion -------------------------------------------------------------- */

size_t api_layout_bytes(const api_io *io, const api_layout *l)
{
    size_t es = api_rtype_size(l->rtype);
    int64_t numel = 1;

    for (int i = 0; i < io->ndim; i++)
        numel *= io->dims[i];
    if (io->ndim == 4 && l->fmt == RKNN_TENSOR_NHWC)
        return (size_t)(io->dims[0] * l->h_stride * l->w_stride * io->dims[1]) * es;
    if (io->ndim == 4 && l->fmt == RKNN_TENSOR_NC1HWC2)
        return (size_t)(io->dims[0] * l->c1 * io->dims[2] * l->w_stride * l->c2) * es;
    return (size_t)numel * es;
}

/* One strided run of n elements: src[si + k*ss] (type st) -> dst[di + k*ds] (type dt),
 * with x -> (x - zp) * scale (dequant) or x / scale + zp (quant) when q is set.
 * Converts through a double chunk so that every pair of types has one typed load and
 * one typed store loop; the common image and float cases are direct loops. */
#define CVT_CHUNK 256

typedef struct cvt_q {
    int mode; /* 0 none, 1 dequantise, 2 quantise */
    double zp, scale;
} cvt_q;

static void load_chunk(const void *p, int64_t i0, int64_t st, int n, int t, double *v)
{
    switch (t) {
    case RKNN_TENSOR_FLOAT32: {
        const float *s = (const float *)p + i0;
        for (int k = 0; k < n; k++)
            v[k] = s[k * st];
        break;
    }
    case RKNN_TENSOR_UINT8: {
        const uint8_t *s = (const uint8_t *)p + i0;
        for (int k = 0; k < n; k++)
            v[k] = s[k * st];
        break;
    }
    case RKNN_TENSOR_INT8: {
        const int8_t *s = (const int8_t *)p + i0;
        for (int k = 0; k < n; k++)
            v[k] = s[k * st];
        break;
    }
    default:
        for (int k = 0; k < n; k++)
            v[k] = rd(p, i0 + k * st, t);
        break;
    }
}

static void store_chunk(void *p, int64_t i0, int64_t st, int n, int t, const double *v)
{
    switch (t) {
    case RKNN_TENSOR_FLOAT32: {
        float *d = (float *)p + i0;
        for (int k = 0; k < n; k++)
            d[k * st] = (float)v[k];
        break;
    }
    default:
        for (int k = 0; k < n; k++)
            wr(p, i0 + k * st, t, v[k]);
        break;
    }
}

static void cvt_run(const void *src, int64_t si, int64_t ss, int sty, void *dst, int64_t di,
                    int64_t ds, int dty, int64_t n, const cvt_q *q)
{
    double v[CVT_CHUNK];

    if (!q->mode && dty == RKNN_TENSOR_FLOAT32 && sty == RKNN_TENSOR_UINT8) {
        const uint8_t *s = (const uint8_t *)src + si;
        float *d = (float *)dst + di;
        for (int64_t k = 0; k < n; k++)
            d[k * ds] = s[k * ss];
        return;
    }
    if (!q->mode && dty == sty && (dty == RKNN_TENSOR_FLOAT32 || dty == RKNN_TENSOR_INT32 ||
                                   dty == RKNN_TENSOR_UINT32)) {
        const uint32_t *s = (const uint32_t *)src + si;
        uint32_t *d = (uint32_t *)dst + di;
        for (int64_t k = 0; k < n; k++)
            d[k * ds] = s[k * ss];
        return;
    }
    for (int64_t k0 = 0; k0 < n; k0 += CVT_CHUNK) {
        int m = (int)(n - k0 < CVT_CHUNK ? n - k0 : CVT_CHUNK);
        load_chunk(src, si + k0 * ss, ss, m, sty, v);
        if (q->mode == 1)
            for (int k = 0; k < m; k++)
                v[k] = (v[k] - q->zp) * q->scale;
        else if (q->mode == 2)
            for (int k = 0; k < m; k++)
                v[k] = v[k] / q->scale + q->zp;
        store_chunk(dst, di + k0 * ds, ds, m, dty, v);
    }
}

/* NHWC rows into NCHW planes vectorise (strided loads by permutes) with O3 and an
 * AVX2 or AVX-512 clone; at -O2 the general path converts a pixel at a time. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PIXEL_HOT \
    __attribute__((optimize("O3"), target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define PIXEL_HOT __attribute__((optimize("O3")))
#endif

/* One row of W RGB pixels into three float planes (a uint8 converts exactly). */
PIXEL_HOT static void rgb_u8_row(float *restrict r, float *restrict g, float *restrict b,
                                 const uint8_t *restrict s, int64_t W)
{
    for (int64_t w = 0; w < W; w++) {
        r[w] = s[3 * w];
        g[w] = s[3 * w + 1];
        b[w] = s[3 * w + 2];
    }
}

/* The same for float32 pixels, copied as their bits. */
PIXEL_HOT static void rgb_f32_row(uint32_t *restrict r, uint32_t *restrict g,
                                  uint32_t *restrict b, const uint32_t *restrict s, int64_t W)
{
    for (int64_t w = 0; w < W; w++) {
        r[w] = s[3 * w];
        g[w] = s[3 * w + 1];
        b[w] = s[3 * w + 2];
    }
}

/* Any other channel count: one plane at a time. */
static void chan_row(void *restrict d, const uint8_t *restrict row, int u8, int64_t ch,
                     int64_t C, int64_t W)
{
    if (u8)
        for (int64_t w = 0; w < W; w++)
            ((float *)d)[w] = row[w * C + ch];
    else
        for (int64_t w = 0; w < W; w++)
            ((uint32_t *)d)[w] = ((const uint32_t *)row)[w * C + ch];
}

/* A conversion of at least this many bytes is shared out over the executor's
 * threads (a 416x416 RGB frame as floats, 2 MB: about 0.13 ms of one thread's
 * copy, out of cache, before a 6.5 ms frame); a smaller one is not worth a
 * dispatch. */
#define CVT_PAR_BYTES (512 * 1024)
/* elements per task of a flat conversion */
#define CVT_PAR_CHUNK (64 * 1024)

/* One conversion, shared out by cvt_par: a flat run of numel elements (cvt_run,
 * memcpy when the types are the same), or an NHWC image's rows (nhwc_rows). */
typedef struct cvt_job {
    const void *src;
    void *dst;
    int sty, dty;
    const cvt_q *q;
    int64_t numel;
    /* NHWC image: uint8 pixels or float32, rows w_stride pixels apart, h_stride
     * rows per image */
    int u8;
    int64_t h_stride, w_stride, C, H, W;
} cvt_job;

/* Image rows [r0, r1) (batch item r / H, row r % H) of an NHWC image into the
 * model's NCHW float32: what rknn_inputs_set does for a camera frame. The same
 * values as cvt_run's general path, with each row read once. */
static void nhwc_rows(void *arg, int64_t r0, int64_t r1)
{
    const cvt_job *j = arg;
    const int64_t C = j->C, H = j->H, W = j->W, plane = H * W;
    const size_t es = j->u8 ? 1 : 4;

    for (int64_t r = r0; r < r1; r++) {
        int64_t n = r / H, h = r % H;
        const uint8_t *row =
            (const uint8_t *)j->src + ((n * j->h_stride + h) * j->w_stride) * C * es;
        float *f = (float *)j->dst + n * C * plane + h * W;
        if (C == 3 && j->u8)
            rgb_u8_row(f, f + plane, f + 2 * plane, row, W);
        else if (C == 3)
            rgb_f32_row((uint32_t *)f, (uint32_t *)(f + plane), (uint32_t *)(f + 2 * plane),
                        (const uint32_t *)row, W);
        else
            for (int64_t ch = 0; ch < C; ch++)
                chan_row(f + ch * plane, row, j->u8, ch, C, W);
    }
}

/* Chunks [k0, k1) of CVT_PAR_CHUNK elements of a flat conversion. */
static void flat_chunks(void *arg, int64_t k0, int64_t k1)
{
    const cvt_job *j = arg;
    int64_t a = k0 * CVT_PAR_CHUNK, b = k1 * CVT_PAR_CHUNK;
    b = b < j->numel ? b : j->numel;
    if (j->sty == j->dty && !j->q->mode) {
        size_t es = api_rtype_size(j->sty);
        memcpy((char *)j->dst + a * es, (const char *)j->src + a * es, (size_t)(b - a) * es);
    } else {
        cvt_run(j->src, a, 1, j->sty, j->dst, a, 1, j->dty, b - a, j->q);
    }
}

/* fn over [0, n) on par's threads when the conversion is large, else here. */
static void cvt_par(exec_t *par, int64_t n, size_t bytes, range_fn fn, cvt_job *j)
{
    if (par && bytes >= CVT_PAR_BYTES && n > 1 && exec_threads(par) > 1)
        exec_parallel_for(par, n, fn, j);
    else
        fn(j, 0, n);
}

int api_convert(exec_t *par, const api_io *io, int model_dtype, void *model_data, void *buf,
                const api_layout *l, int to_model, const char *fn)
{
    int mt = api_rtype_of_dtype(model_dtype), bt = l->rtype;
    int64_t numel = 1;
    int affine = l->q.affine && !is_float_rtype(bt) && is_float_rtype(mt);
    cvt_q q = {0, l->q.zp, l->q.scale};
    const void *src;
    void *dst;
    int sty, dty;

    if (!api_rtype_valid(bt)) {
        API_E("%s, type %d (%s) cannot be converted: use FP32, FP16, INT8, UINT8 or another "
              "non-INT4 rknn_tensor_type", fn, bt, get_type_string((rknn_tensor_type)bt));
        return RKNN_ERR_PARAM_INVALID;
    }
    if (affine && !(q.scale > 0)) {
        API_E("%s, affine quantisation needs scale > 0 (got %g)", fn, q.scale);
        return RKNN_ERR_PARAM_INVALID;
    }
    if (affine)
        q.mode = to_model ? 1 : 2;
    for (int i = 0; i < io->ndim; i++)
        numel *= io->dims[i];
    src = to_model ? buf : model_data;
    dst = to_model ? model_data : buf;
    sty = to_model ? bt : mt;
    dty = to_model ? mt : bt;

    if (io->ndim != 4 || l->fmt == RKNN_TENSOR_NCHW || l->fmt == RKNN_TENSOR_UNDEFINED) {
        cvt_job j = {.src = src, .dst = dst, .sty = sty, .dty = dty, .q = &q, .numel = numel};
        cvt_par(par, (numel + CVT_PAR_CHUNK - 1) / CVT_PAR_CHUNK,
                (size_t)numel * api_rtype_size(bt), flat_chunks, &j);
        return RKNN_SUCC;
    }

    int64_t N = io->dims[0], C = io->dims[1], H = io->dims[2], W = io->dims[3];
    int nhwc = l->fmt == RKNN_TENSOR_NHWC;
    if (!nhwc && l->fmt != RKNN_TENSOR_NC1HWC2) {
        API_E("%s, format %d is not a tensor format: use RKNN_TENSOR_NCHW, NHWC, NC1HWC2 "
              "or UNDEFINED", fn, l->fmt);
        return RKNN_ERR_PARAM_INVALID;
    }
    if (!nhwc && (l->c2 <= 0 || l->c1 * l->c2 < C)) {
        API_E("%s, NC1HWC2 with C1=%lld C2=%lld cannot hold %lld channels: take dims from "
              "RKNN_QUERY_NATIVE_INPUT_ATTR/NATIVE_OUTPUT_ATTR", fn, (long long)l->c1,
              (long long)l->c2, (long long)C);
        return RKNN_ERR_PARAM_INVALID;
    }
    if (nhwc && to_model && !q.mode && mt == RKNN_TENSOR_FLOAT32 &&
        (bt == RKNN_TENSOR_UINT8 || bt == RKNN_TENSOR_FLOAT32)) {
        cvt_job j = {.src = buf, .dst = model_data, .u8 = bt == RKNN_TENSOR_UINT8,
                     .h_stride = l->h_stride, .w_stride = l->w_stride, .C = C, .H = H, .W = W};
        cvt_par(par, N * H, (size_t)(N * C * H * W) * sizeof(float), nhwc_rows, &j);
        return RKNN_SUCC;
    }
    if (!to_model)
        memset(buf, 0, api_layout_bytes(io, l)); /* padding lanes and stride gaps */
    /* one run per model row (along W): stride 1 in the model, C or C2 in the buffer */
    for (int64_t nn = 0; nn < N; nn++)
        for (int64_t cc = 0; cc < C; cc++)
            for (int64_t hh = 0; hh < H; hh++) {
                int64_t mi = ((nn * C + cc) * H + hh) * W, bi, bs;
                if (nhwc) {
                    bi = ((nn * l->h_stride + hh) * l->w_stride) * C + cc;
                    bs = C;
                } else {
                    bi = ((nn * l->c1 + cc / l->c2) * H + hh) * l->w_stride * l->c2 + cc % l->c2;
                    bs = l->c2;
                }
                if (to_model)
                    cvt_run(buf, bi, bs, bt, model_data, mi, 1, mt, W, &q);
                else
                    cvt_run(model_data, mi, 1, mt, buf, bi, bs, bt, W, &q);
            }
    return RKNN_SUCC;
}

/* ---- rknn_inputs_set ---------------------------------------------------------------- */

static void io_shape_str(const api_io *io, char *s, size_t len)
{
    size_t o = 0;
    o += (size_t)snprintf(s + o, len - o, "[");
    for (int i = 0; i < io->ndim && o < len; i++)
        o += (size_t)snprintf(s + o, len - o, "%s%lld", i ? "," : "", (long long)io->dims[i]);
    if (o < len)
        snprintf(s + o, len - o, "]");
}

static int input_set_one(api_ctx *c, const rknn_input *in)
{
    api_io *io = &c->in[in->index];
    const tensor_t *t = &c->g->t[io->tensor];
    api_layout l;
    size_t need;
    char shp[128];

    memset(&l, 0, sizeof(l));
    if (in->pass_through) {
        /* the data is already in the native layout and the model's type */
        rknn_tensor_attr na;
        memset(&na, 0, sizeof(na));
        api_fill_attr(c, io, 1, RKNN_QUERY_NATIVE_INPUT_ATTR, &na);
        l.fmt = na.fmt;
        l.rtype = io->rtype;
        l.q.affine = io->affine;
        l.q.zp = io->zp;
        l.q.scale = io->scale;
        l.h_stride = io->ndim == 4 ? io->dims[2] : 0;
        l.w_stride = io->ndim == 4 ? (in->size >= na.size_with_stride && na.fmt == RKNN_TENSOR_NHWC
                                          ? na.w_stride : io->dims[3]) : 0;
        if (na.fmt == RKNN_TENSOR_NC1HWC2) {
            l.c1 = na.dims[1];
            l.c2 = na.dims[4];
        }
    } else {
        l.fmt = in->fmt;
        l.rtype = in->type;
        if (!api_rtype_valid(in->type)) {
            API_E("rknn_inputs_set, inputs[%u].type = %d is not a valid rknn_tensor_type "
                  "(INT4 cannot be converted): set it to the type of buf, e.g. "
                  "RKNN_TENSOR_UINT8 for an image", in->index, (int)in->type);
            return RKNN_ERR_INPUT_INVALID;
        }
        if ((int)in->fmt < 0 || in->fmt >= RKNN_TENSOR_FORMAT_MAX) {
            API_E("rknn_inputs_set, inputs[%u].fmt = %d is not a valid rknn_tensor_format: "
                  "use RKNN_TENSOR_NHWC for images (or NCHW for data in the model's layout)",
                  in->index, (int)in->fmt);
            return RKNN_ERR_INPUT_INVALID;
        }
        if (io->ndim == 4) {
            l.h_stride = io->dims[2];
            l.w_stride = io->dims[3];
            l.c2 = api_native_c2(c, in->type);
            l.c1 = ceil_div(io->dims[1], l.c2);
        }
    }
    need = api_layout_bytes(io, &l);
    if (in->size < need) {
        io_shape_str(io, shp, sizeof(shp)); /* for the messages only: a snprintf per dim */
        API_E("rknn_inputs_set, param input size(%u) < model input size(%zu): input %u '%s' "
              "%s holds %zu bytes as %s %s%s; set inputs[%u].size to the bytes in buf and "
              ".type/.fmt to what buf holds", in->size, need, in->index, t->name, shp, need,
              get_type_string((rknn_tensor_type)l.rtype), get_format_string((rknn_tensor_format)l.fmt),
              in->pass_through ? " (pass_through: native layout and model type)" : "", in->index);
        /* -5, as librknnrt 2.3.2 returns it (rknn-toolkit2 issue 558 on RK3568,
         * rknn_model_zoo issue 298: "rknn_input_set fail! ret=-5") */
        return RKNN_ERR_PARAM_INVALID;
    }
    if (in->size > need && need && in->size % need == 0 && in->size / need <= 8 &&
        !in->pass_through) {
        io_shape_str(io, shp, sizeof(shp));
        API_W("rknn_inputs_set, input %u: size %u is %u x the %zu bytes of %s %s data: is "
              "inputs[%u].type right?", in->index, in->size, (unsigned)(in->size / need), need,
              get_type_string(in->type), shp, in->index);
    }
    int raw = api_input_is_raw(io, &l, in->pass_through);
    int ret = api_convert(c->x, io, t->dtype, io->data, in->buf, &l, 1, "rknn_inputs_set");
    if (!ret && c->vendor && !raw)
        ret = api_vendor_input_normalized(c, io, "rknn_inputs_set");
    if (!ret)
        api_input_finish(c, io, raw);
    return ret;
}

int rknn_inputs_set(rknn_context context, uint32_t n_inputs, rknn_input inputs[])
{
    api_ctx *c = api_ctx_get_any(context, "rknn_inputs_set");
    int ret = RKNN_SUCC;

    if (!c)
        return RKNN_ERR_CTX_INVALID;
    if (!inputs || n_inputs == 0 || n_inputs > (uint32_t)c->n_in) {
        API_E("rknn_inputs_set, %s: the model has %d input(s); pass an array of 1..%d "
              "rknn_input", !inputs ? "inputs == NULL" : "n_inputs out of range", c->n_in,
              c->n_in);
        ret = RKNN_ERR_PARAM_INVALID;
        goto out;
    }
    ret = api_ctx_ready(c, "rknn_inputs_set");
    if (ret)
        goto out;
    exec_wake(c->x); /* a frame starts: the threads share its conversion */
    for (uint32_t i = 0; i < n_inputs; i++) {
        if (inputs[i].index >= (uint32_t)c->n_in) {
            API_E("rknn_inputs_set, inputs[%u].index(%u) >= input_num(%d): set .index to "
                  "0..%d", i, inputs[i].index, c->n_in, c->n_in - 1);
            ret = RKNN_ERR_INPUT_INVALID;
            goto out;
        }
        if (!inputs[i].buf) {
            API_E("rknn_inputs_set, inputs[%u].buf == NULL", i);
            ret = RKNN_ERR_INPUT_INVALID;
            goto out;
        }
    }
    for (uint32_t i = 0; i < n_inputs; i++) {
        ret = c->vendor ? api_vendor_input_check(c, &inputs[i]) : RKNN_SUCC;
        if (!ret)
            ret = input_set_one(c, &inputs[i]);
        if (ret)
            goto out;
        c->in[inputs[i].index].is_set = 1;
    }
out:
    api_ctx_put(c);
    return ret;
}

/* ---- rknn_run ------------------------------------------------------------------------ */

/* The (fmt, type, strides) of an rknn_set_io_mem binding. */
static void layout_of_binding(const api_ctx *c, const api_io *io, api_layout *l)
{
    const rknn_tensor_attr *a = &io->mem_attr;

    memset(l, 0, sizeof(*l));
    l->fmt = a->fmt;
    l->rtype = a->pass_through ? io->rtype : (int)a->type;
    l->q.affine = a->pass_through ? io->affine : a->qnt_type == RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC;
    l->q.zp = a->pass_through ? io->zp : a->zp;
    l->q.scale = a->pass_through ? io->scale : a->scale;
    if (io->ndim == 4) {
        l->w_stride = a->w_stride ? a->w_stride : io->dims[3];
        l->h_stride = a->h_stride ? a->h_stride : io->dims[2];
        if (a->fmt == RKNN_TENSOR_NC1HWC2 && a->n_dims == 5) {
            l->c1 = a->dims[1];
            l->c2 = a->dims[4];
        } else {
            l->c2 = api_native_c2(c, l->rtype);
            l->c1 = ceil_div(io->dims[1], l->c2);
        }
        if (a->fmt == RKNN_TENSOR_NC1HWC2 && !a->w_stride)
            l->w_stride = io->dims[3];
    }
}

int api_binding_check(const api_ctx *c, const api_io *io, int is_input, int idx,
                         const char *fn)
{
    api_layout l;
    size_t need, have;

    layout_of_binding(c, io, &l);
    need = api_layout_bytes(io, &l);
    have = api_mem_avail(io->mem);
    if (have < need) {
        char geo[160];
        size_t es = api_rtype_size(l.rtype);
        if (io->ndim == 4 && l.fmt == RKNN_TENSOR_NHWC)
            snprintf(geo, sizeof(geo), "%lld x h_stride %lld x w_stride %lld x %lld channels x %zu B",
                     (long long)io->dims[0], (long long)l.h_stride, (long long)l.w_stride,
                     (long long)io->dims[1], es);
        else if (io->ndim == 4 && l.fmt == RKNN_TENSOR_NC1HWC2)
            snprintf(geo, sizeof(geo), "%lld x C1 %lld x %lld rows x w_stride %lld x C2 %lld x %zu B",
                     (long long)io->dims[0], (long long)l.c1, (long long)io->dims[2],
                     (long long)l.w_stride, (long long)l.c2, es);
        else
            snprintf(geo, sizeof(geo), "%zu elements x %zu B", es ? need / es : 0, es);
        API_E("%s, %s %d memory is %zu bytes but %s %s needs %zu (%s): allocate it with "
              "rknn_create_mem(ctx, attr.size_with_stride) of the attr you pass, or change "
              "attr.type/fmt to what the memory holds", fn, is_input ? "input" : "output", idx,
              have, get_type_string((rknn_tensor_type)l.rtype),
              get_format_string((rknn_tensor_format)l.fmt), need, geo);
        return RKNN_ERR_PARAM_INVALID;
    }
    return RKNN_SUCC;
}

typedef struct perf_rec {
    api_ctx *c;
    int n, cap;
    int *node;
    int dump;                 /* RKNN_LOG_LEVEL 5: dump the layers' outputs */
} perf_rec;

static int perf_hook(const layer_event_t *ev, void *user)
{
    perf_rec *p = user;
    if (p->dump)
        api_npu_dump_event(p->c, ev);
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 64;
        p->node = xrealloc(p->node, sizeof(int) * (size_t)p->cap);
        p->c->layer_us = xrealloc(p->c->layer_us, sizeof(double) * (size_t)p->cap);
    }
    p->node[p->n] = ev->node;
    p->c->layer_us[p->n] = ev->host_us;
    p->n++;
    return 0;
}

static void shape_paren(const tensor_t *t, char *s, size_t len)
{
    size_t o = (size_t)snprintf(s, len, "(");
    for (int i = 0; i < t->ndim && o < len; i++)
        o += (size_t)snprintf(s + o, len - o, "%s%lld", i ? "," : "", (long long)t->dims[i]);
    if (o < len)
        snprintf(s + o, len - o, ")");
}

/* The per-layer table from the NPU model (runtime/npu): the graph lowered as the chip
 * runs it (fp16 for a float model), costed in cycles, CPU layers from their work and
 * the chip's CPU; the vendor's 2.3 layout. 0, or -1 when the platform or graph has no NPU model
 * (then the host-time table is used). */
void api_perf_text_refresh(api_ctx *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f;

    if (!c->perf_stale || !c->npu)
        return;
    f = open_memstream(&buf, &len);
    if (!f)
        return;
    npu_print_perf_table(f, c->npu->ng, 0);
    fclose(f);
    free(c->perf_text);
    c->perf_text = buf;
    c->perf_stale = 0;
}

static int perf_npu(api_ctx *c, const perf_rec *p)
{
    if (!c->npu && !c->npu_failed)
        api_npu_prepare(c); /* lowered at init; again only after a failed re-prepare */
    if (!c->npu)
        return -1;
    npu_cost(c->npu->ng); /* from the work alone: host times never enter a prediction */
    c->perf_stale = 1; /* the text only when PERF_DETAIL asks: level 4 prints it anyway */
    c->n_layer_us = p->n;
    return 0;
}

/* The per-layer table of RKNN_QUERY_PERF_DETAIL: the NPU model's, else the vendor's 2.x
 * columns with host CPU time. */
static void perf_build(api_ctx *c, const perf_rec *p)
{
    if (perf_npu(c, p) == 0)
        return;

    size_t cap = 4096 + (size_t)p->n * 256, o = 0;
    char *s = xmalloc(cap);
    double total = 0;

    o += (size_t)snprintf(s + o, cap - o,
                          "---------------------------------------------------------------------"
                          "------------------------------\n"
                          "                 Network Layer Information Table (rknn-trace "
                          "simulator, %s, host CPU time)\n"
                          "---------------------------------------------------------------------"
                          "------------------------------\n"
                          "%-5s %-22s %-9s %-7s %-28s %-20s %-22s %-10s %-12s %-16s %-8s %s\n",
                          c->plat->name, "ID", "OpType", "DataType", "Target", "InputShape",
                          "OutputShape", "Cycles(DDR/NPU/Total)", "Time(us)", "MacUsage(%)",
                          "WorkLoad(0/1/2)", "RW(KB)", "FullName");
    for (int i = 0; i < p->n; i++) {
        const node_t *nd = &c->g->nodes[p->node[i]];
        char ins[160] = "", outs[64] = "", one[64];
        size_t io = 0;
        for (int k = 0; k < nd->n_in && io < sizeof(ins); k++) {
            if (nd->in[k] < 0)
                continue;
            shape_paren(&c->g->t[nd->in[k]], one, sizeof(one));
            io += (size_t)snprintf(ins + io, sizeof(ins) - io, "%s%s", io ? "," : "", one);
        }
        if (nd->n_out > 0 && nd->out[0] >= 0)
            shape_paren(&c->g->t[nd->out[0]], outs, sizeof(outs));
        int rt = nd->n_out > 0 && nd->out[0] >= 0 ? api_rtype_of_dtype(c->g->t[nd->out[0]].dtype)
                                                   : -1;
        total += c->layer_us[i];
        if (cap - o < 1024) {
            cap *= 2;
            s = xrealloc(s, cap);
        }
        o += (size_t)snprintf(s + o, cap - o,
                              "%-5d %-22s %-9s %-7s %-28s %-20s %-22s %-10.0f %-12s %-16s %-8s "
                              "%s:%s\n",
                              i + 1, nd->op, get_type_string((rknn_tensor_type)rt), "CPU", ins,
                              outs, "-/-/-", c->layer_us[i], "-", "-", "-", nd->op, nd->name);
    }
    snprintf(s + o, cap - o,
             "---------------------------------------------------------------------"
             "------------------------------\n"
             "Total Operator Elapsed Time(us): %.0f\n"
             "---------------------------------------------------------------------"
             "------------------------------\n",
             total);
    free(c->perf_text);
    c->perf_text = s;
    c->perf_stale = 0;
    c->n_layer_us = p->n;
}

void api_prev_free(api_ctx *c)
{
    for (int i = 0; c->prev_out && i < c->n_out; i++)
        free(c->prev_out[i]);
    free(c->prev_out);
    c->prev_out = NULL;
}

/* Async mode: keep the outputs of the run that is about to be overwritten. */
static void prev_save(api_ctx *c)
{
    if (!c->prev_out)
        c->prev_out = xcalloc((size_t)(c->n_out ? c->n_out : 1), sizeof(void *));
    for (int i = 0; i < c->n_out; i++) {
        const tensor_t *t = exec_output(c->x, i);
        size_t nb = tensor_nbytes(t);
        c->prev_out[i] = xrealloc(c->prev_out[i], nb ? nb : 1);
        memcpy(c->prev_out[i], t->data, nb);
    }
    c->prev_frame = c->frame_id;
}

/* The measured cost of a non-native rknn_set_io_mem binding, once per binding. */
static void conv_report(api_io *io, int is_input, int idx, double us)
{
    if (io->conv_note != 1)
        return;
    io->conv_note = 2;
    API_W("rknn_run, %s %d: converting the non-native rknn_set_io_mem binding took %.0f us "
          "of CPU time (RKNN_QUERY_NATIVE_%s_ATTR avoids it)", is_input ? "input" : "output",
          idx, us, is_input ? "INPUT" : "OUTPUT");
}

int rknn_run(rknn_context context, rknn_run_extend *extend)
{
    api_ctx *c = api_ctx_get_any(context, "rknn_run");
    perf_rec p = {0};
    char err[512] = "";
    double t0;
    int ret = RKNN_SUCC, st;

    if (!c)
        return RKNN_ERR_CTX_INVALID;
    p.c = c;
    ret = api_ctx_ready(c, "rknn_run");
    if (ret)
        goto out;
    if (c->flag & RKNN_FLAG_COLLECT_MODEL_INFO_ONLY) {
        API_E("rknn_run is denied if set RKNN_FLAG_COLLECT_MODEL_INFO_ONLY flag! Create the "
              "context without that flag to run the model");
        ret = RKNN_ERR_FAIL;
        goto out;
    }
    exec_wake(c->x);
    uint64_t need_w, need_i;
    api_mem_need(c, &need_w, &need_i);
    if ((c->flag & RKNN_FLAG_MEM_ALLOC_OUTSIDE) && !c->weight_mem && need_w) {
        API_E("rknn_run, RKNN_FLAG_MEM_ALLOC_OUTSIDE is set but no weight memory was given: "
              "call rknn_set_weight_mem with RKNN_QUERY_MEM_SIZE.total_weight_size bytes");
        ret = RKNN_ERR_FAIL;
        goto out;
    }
    if ((c->flag & (RKNN_FLAG_MEM_ALLOC_OUTSIDE | RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE)) &&
        !c->internal_mem && need_i) {
        API_E("rknn_run, RKNN_FLAG_%s is set but no internal memory was given: call "
              "rknn_set_internal_mem with RKNN_QUERY_MEM_SIZE.total_internal_size bytes",
              (c->flag & RKNN_FLAG_MEM_ALLOC_OUTSIDE) ? "MEM_ALLOC_OUTSIDE" : "INTERNAL_ALLOC_OUTSIDE");
        ret = RKNN_ERR_FAIL;
        goto out;
    }
    if (c->internal_mem && api_mem_avail(c->internal_mem) < need_i) {
        /* sized before rknn_set_input_shapes chose larger shapes */
        API_E("rknn_run, the internal memory has %zu bytes but the current input shapes need "
              "%zu: allocate RKNN_QUERY_MEM_SIZE.total_internal_size as queried after "
              "rknn_init", api_mem_avail(c->internal_mem), (size_t)need_i);
        ret = RKNN_ERR_MALLOC_FAIL;
        goto out;
    }
    for (int i = 0; i < c->n_in; i++) {
        api_io *io = &c->in[i];
        if (io->mem) {
            api_layout l;
            uint8_t *src = api_mem_ptr(io->mem);
            if (!api_mem_alive(io->mem) || !src) {
                API_E("rknn_run, input %d is bound to an rknn_tensor_mem that was destroyed; "
                      "bind a live one with rknn_set_io_mem", i);
                ret = RKNN_ERR_INPUT_INVALID;
                goto out;
            }
            ret = api_binding_check(c, io, 1, i, "rknn_run");
            if (ret)
                goto out;
            layout_of_binding(c, io, &l);
            int raw = api_input_is_raw(io, &l, io->mem_attr.pass_through);
            double tc = rt_now_us();
            ret = api_convert(c->x, io, c->g->t[io->tensor].dtype, io->data, src, &l, 1,
                              "rknn_run");
            if (!ret && c->vendor && !raw)
                ret = api_vendor_input_normalized(c, io, "rknn_run");
            if (ret)
                goto out;
            api_input_finish(c, io, raw);
            conv_report(io, 1, i, rt_now_us() - tc);
        } else if (!io->is_set && !c->warned_unset) {
            API_W("rknn_run, input %d was never set (rknn_inputs_set or rknn_set_io_mem): "
                  "running on zeros", i);
            c->warned_unset = 1;
        }
        if (c->vendor) /* io->data is the emulator's input */
            continue;
        /* io->data is the executor's own input buffer; a copy only if that changed */
        st = io->data == c->g->t[io->tensor].data
                 ? 0 : exec_set_input(c->x, i, io->data, io->nbytes, err, sizeof(err));
        if (st) {
            API_E("rknn_run, input %d: %s", i, err);
            ret = RKNN_ERR_INPUT_INVALID;
            goto out;
        }
    }
    if ((c->flag & RKNN_FLAG_ASYNC_MASK) && c->ran && !c->vendor)
        prev_save(c);
    /* per-layer events only when asked for; times alone keep the executor's
     * Conv+activation fusion, level-5 dumps need every node's own output */
    int level = api_log_level();
    int layers = (c->flag & RKNN_FLAG_COLLECT_PERF_MASK) || level >= 4;
    p.dump = level >= 5 && c->npu && !c->vendor;
    if (p.dump)
        api_npu_dump_begin(c);
    t0 = rt_now_us();
    if (c->vendor) {
        ret = api_vendor_run(c, level >= 5);
        if (ret)
            goto out;
        st = 0;
    } else {
        st = !layers ? exec_run(c->x, NULL, NULL, err, sizeof(err))
             : p.dump ? exec_run(c->x, perf_hook, &p, err, sizeof(err))
                      : exec_run_timed(c->x, perf_hook, &p, err, sizeof(err));
    }
    c->last_run_us = (int64_t)(rt_now_us() - t0 + 0.5);
    if (st) {
        API_E("rknn_run, execution failed: %s", err);
        ret = RKNN_ERR_FAIL;
        goto out;
    }
    if (layers && c->vendor)
        c->perf_stale = c->npu != NULL; /* the compiled graph's table, as predicted */
    else if (layers)
        perf_build(c, &p);
    if (level >= 4 && c->npu)
        npu_print_perf_table(stderr, c->npu->ng, NPU_PRINT_PREFIX); /* as the vendor at level 4 */
    else if (level >= 4 && c->perf_text)
        fputs(c->perf_text, stderr);
    api_npu_account_run(c, layers);
    /* PERF_RUN answers what a board's plain rknn_run would take: the predicted frame
     * (costed by api_npu_account_run), not this host's time */
    c->perf_run_us = c->npu ? (int64_t)(npu_frame_us(c->npu->ng) + 0.5) : c->last_run_us;
    for (int i = 0; i < c->n_out; i++) {
        api_io *io = &c->out[i];
        api_layout l;
        uint8_t *dst;
        if (!io->mem)
            continue;
        const tensor_t *t = c->vendor ? NULL : exec_output(c->x, i);
        void *src = c->vendor ? (void *)api_vendor_output(c, i) : t->data;
        dst = api_mem_ptr(io->mem);
        if (!api_mem_alive(io->mem) || !dst) {
            API_E("rknn_run, output %d is bound to an rknn_tensor_mem that was destroyed; "
                  "bind a live one with rknn_set_io_mem", i);
            ret = RKNN_ERR_OUTPUT_INVALID;
            goto out;
        }
        ret = api_binding_check(c, io, 0, i, "rknn_run");
        if (ret)
            goto out;
        layout_of_binding(c, io, &l);
        double tc = rt_now_us();
        ret = api_convert(c->x, io, t ? t->dtype : DT_FLOAT, src, dst, &l, 0, "rknn_run");
        if (ret)
            goto out;
        conv_report(io, 0, i, rt_now_us() - tc);
    }
    c->ran = 1;
    c->frame_id++;
    if (extend)
        extend->frame_id = c->frame_id;
out:
    free(p.node);
    api_ctx_put(c);
    return ret;
}

int rknn_wait(rknn_context context, rknn_run_extend *extend)
{
    api_ctx *c = api_ctx_get(context, "rknn_wait");

    if (!c)
        return RKNN_ERR_CTX_INVALID;
    /* runs are synchronous here: the last one has finished */
    if (extend)
        extend->frame_id = c->frame_id;
    api_ctx_put(c);
    return RKNN_SUCC;
}

/* ---- outputs ------------------------------------------------------------------------ */

/* a buffer the runtime owns for output o until rknn_outputs_release */
void api_output_alloc(api_ctx *c, rknn_output *o, size_t need)
{
    api_outbuf *b = xcalloc(1, sizeof(*b));
    b->buf = xmalloc(need ? need : 1);
    b->next = c->outbufs;
    c->outbufs = b;
    o->buf = b->buf;
    o->size = (uint32_t)need;
}

int rknn_outputs_get(rknn_context context, uint32_t n_outputs, rknn_output outputs[],
                     rknn_output_extend *extend)
{
    api_ctx *c = api_ctx_get_any(context, "rknn_outputs_get");
    int ret = RKNN_SUCC;

    if (!c)
        return RKNN_ERR_CTX_INVALID;
    if (!outputs || n_outputs == 0 || n_outputs > (uint32_t)c->n_out) {
        API_E("rknn_outputs_get, %s: the model has %d output(s); pass an array of 1..%d "
              "rknn_output", !outputs ? "outputs == NULL" : "n_outputs out of range",
              c->n_out, c->n_out);
        ret = RKNN_ERR_PARAM_INVALID;
        goto out;
    }
    if (!c->ran) {
        API_E("rknn_outputs_get, no result yet: call rknn_run before rknn_outputs_get%s",
              c->frame_id ? " (the model was re-prepared by rknn_set_input_shapes since)" : "");
        ret = RKNN_ERR_FAIL;
        goto out;
    }
    if (c->vendor) {
        ret = api_vendor_outputs_get(c, n_outputs, outputs);
        if (!ret && extend)
            extend->frame_id = c->frame_id;
        goto out;
    }
    /* validate everything before allocating anything */
    for (uint32_t i = 0; i < n_outputs; i++) {
        rknn_output *o = &outputs[i];
        if (o->index >= (uint32_t)c->n_out) {
            API_E("rknn_outputs_get, param output index(%u) is out of range(%d): set "
                  "outputs[%u].index to 0..%d", o->index, c->n_out, i, c->n_out - 1);
            ret = RKNN_ERR_OUTPUT_INVALID;
            goto out;
        }
        if (o->is_prealloc) {
            const api_io *io = &c->out[o->index];
            int rt = o->want_float ? RKNN_TENSOR_FLOAT32 : io->rtype;
            size_t need = api_io_bytes(io) / api_rtype_size(io->rtype) * api_rtype_size(rt);
            if (!o->buf || o->size < need) {
                API_E("rknn_outputs_get, outputs[%u] is_prealloc: buf %s, size %u < %zu "
                      "needed for output %u as %s; allocate at least %zu bytes (want_float=%d)",
                      i, o->buf ? "given" : "NULL", o->size, need, o->index,
                      get_type_string((rknn_tensor_type)rt), need, o->want_float);
                ret = RKNN_ERR_OUTPUT_INVALID;
                goto out;
            }
        }
    }
    for (uint32_t i = 0; i < n_outputs; i++) {
        rknn_output *o = &outputs[i];
        api_io *io = &c->out[o->index];
        const tensor_t *t = exec_output(c->x, (int)o->index);
        api_layout l;
        memset(&l, 0, sizeof(l));
        l.fmt = RKNN_TENSOR_NCHW;
        l.rtype = o->want_float ? RKNN_TENSOR_FLOAT32 : io->rtype;
        /* want_float = 0: the chip's own values (int8 on the output's grid) */
        l.q.affine = !o->want_float && io->affine;
        l.q.zp = io->zp;
        l.q.scale = io->scale;
        size_t need = api_layout_bytes(io, &l);
        if (!o->is_prealloc)
            api_output_alloc(c, o, need);
        /* async: the previous frame once there is one (the first frame has none) */
        void *src = (c->flag & RKNN_FLAG_ASYNC_MASK) && c->prev_out ? c->prev_out[o->index]
                                                                    : t->data;
        ret = api_convert(c->x, io, t->dtype, src, o->buf, &l, 0, "rknn_outputs_get");
        if (ret)
            goto out;
    }
    if (extend)
        extend->frame_id = (c->flag & RKNN_FLAG_ASYNC_MASK) && c->prev_out ? c->prev_frame
                                                                           : c->frame_id;
out:
    api_ctx_put(c);
    return ret;
}

int rknn_outputs_release(rknn_context context, uint32_t n_ouputs, rknn_output outputs[])
{
    api_ctx *c = api_ctx_get_any(context, "rknn_outputs_release");
    int ret = RKNN_SUCC;

    if (!c)
        return RKNN_ERR_CTX_INVALID;
    if (!outputs && n_ouputs) {
        API_E("rknn_outputs_release, outputs == NULL");
        ret = RKNN_ERR_PARAM_INVALID;
        goto out;
    }
    /* rknn_outputs_get fills at most n_out entries: more would read past the array */
    if (n_ouputs > (uint32_t)c->n_out) {
        API_E("rknn_outputs_release, n_outputs(%u) > output_num(%d): pass the count given to "
              "rknn_outputs_get", n_ouputs, c->n_out);
        ret = RKNN_ERR_PARAM_INVALID;
        goto out;
    }
    for (uint32_t i = 0; i < n_ouputs; i++) {
        api_outbuf **pp, *b = NULL;
        /* the caller's own buffer; or nothing: a zeroed array released without a
         * rknn_outputs_get (itlab-vision/dl-benchmark's launcher does so at every
         * teardown), which frees nothing, as free(NULL) */
        if (outputs[i].is_prealloc || !outputs[i].buf)
            continue;
        for (pp = &c->outbufs; *pp; pp = &(*pp)->next) {
            if ((*pp)->buf == outputs[i].buf) {
                b = *pp;
                *pp = b->next;
                break;
            }
        }
        if (!b) {
            API_E("rknn_outputs_release, outputs[%u].buf %p was not returned by "
                  "rknn_outputs_get or was already released (double release): call "
                  "rknn_outputs_release once per rknn_outputs_get", i, outputs[i].buf);
            ret = RKNN_ERR_OUTPUT_INVALID;
            continue;
        }
        free(b->buf);
        free(b);
    }
out:
    api_ctx_put(c);
    return ret;
}
