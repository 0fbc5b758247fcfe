/* runtime/model/rknn_file.c — the vendor .rknn container: header, model-data
 * blob (Toolkit2 FlatBuffer, RV110x task table, Toolkit1 NBG), JSON trailer.
 * Slot numbers of the FlatBuffer tables are documented in docs/rknn-format.md. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/model/rknn_file.h"
#include "util/dtype.h"
#include "util/util.h"
#include <jansson.h>

/* A tensor or node costs at least its 4-byte offset in the table vector and
 * a 4-byte table (vtables may be shared): more than len / 8 of them in a
 * FlatBuffer of len bytes means tables shared between entries, which no
 * writer does and which would multiply memory. */
#define FB_MIN_ENTRY 8

/* model-data blob of RV1103/RV1106 files: 64-byte header, then 40-byte task records */
#define LITE_HDR 64
#define LITE_TASK 40

typedef struct ctx {
    const char *what;
    char *err;
    size_t errlen;
    rknn_model *m;
    fb_buf fb;
    int lite;       /* the RV1103/RV1106 FlatBuffer: other slot numbers */
    uint64_t budget; /* 4-byte values the FlatBuffer can still hold (see take) */
} ctx;

static int bad(ctx *c, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(ctx *c, const char *field, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return rt_err(c->err, c->errlen, RT_EFORMAT, "%s: %s: %s", c->what, field, msg);
}

static uint64_t rd_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t rd_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float u32_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

/* A copy of n bytes with NULs and control bytes replaced, so that names print on one line. */
static char *dup_clean(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);
    for (size_t i = 0; i < n; i++)
        d[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    d[n] = '\0';
    return d;
}

/* A string field set to n bytes of the file (as long as they are), cleaned. */
static void set_field(char **dst, const char *s, size_t n)
{
    free(*dst);
    *dst = dup_clean(s, n);
}

int64_t rknn_tensor_elems(const rknn_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->nd; d++) {
        if (t->shape[d] <= 0 || t->shape[d] > ((int64_t)1 << 31) / n)
            return -1;
        n *= t->shape[d];
    }
    return n;
}

int rknn_alias_input(const rknn_model *m, const rknn_node *n, int k)
{
    static const char sfx[] = "_exSecondary";
    const char *name = m->tensors[n->in[k]].name;
    size_t len = name ? strlen(name) : 0, sl = sizeof(sfx) - 1;

    if (len <= sl || strcmp(name + len - sl, sfx))
        return 0;
    for (int j = 0; j < n->n_in; j++) {
        const char *o = m->tensors[n->in[j]].name;
        if (j != k && o && strlen(o) == len - sl && !strncmp(o, name, len - sl))
            return 1;
    }
    return 0;
}

const char *rknn_container_name(int c)
{
    static const char *const names[] = {"Toolkit2 FlatBuffer", "RV1103/RV1106 lite",
                                        "Toolkit1 OpenVX NBG", "Toolkit1 JSON-only",
                                        "encrypted (CYPTRKNN)", "RKNN3 (RKNX)", "unknown data"};
    return c >= 0 && c <= RKNN_C_UNKNOWN_DATA ? names[c] : "?";
}

const char *rknn_target_name(int t)
{
    return t == RKNN_TGT_NPU ? "NPU" : t == RKNN_TGT_GPU ? "GPU" : t == RKNN_TGT_CPU ? "CPU" : "?";
}

const char *rknn_dtype_name(int code)
{
    return dtype_name_or_null(code); /* the file numbers types as ONNX does */
}

int rknn_file_is(const void *buf, size_t len)
{
    const uint8_t *p = buf;
    return (len >= 8 && !memcmp(p, "CYPTRKNN", 8)) || (len >= 4 && !memcmp(p, "RKNN", 4)) ||
           (len >= 4 && !memcmp(p, "RKNX", 4));
}

/* ---- JSON trailer ------------------------------------------------------- */

static char *json_dup_str(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? dup_clean(json_string_value(v), json_string_length(v)) : NULL;
}

static int json_int_or(json_t *o, const char *key, int def)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (int)json_integer_value(v) : def;
}

/* A tensor from a Toolkit1/RV110x norm_tensor entry (I/O seen by the JSON only). */
static int add_json_tensor(ctx *c, json_t *nt, int kind)
{
    rknn_model *m = c->m;
    rknn_tensor *t;
    json_t *size = json_object_get(nt, "size"), *dt = json_object_get(nt, "dtype"), *v;
    size_t k;

    m->tensors = xrealloc(m->tensors, sizeof(*m->tensors) * (size_t)(m->n_tensors + 1));
    t = &m->tensors[m->n_tensors];
    memset(t, 0, sizeof(*t));
    t->name = json_dup_str(nt, "url");
    if (!t->name)
        t->name = xstrdup("");
    t->kind = kind;
    t->size = -1;
    t->task_node = t->task_lut = -1;
    if (json_is_array(size) && json_array_size(size)) {
        /* as many dims as the JSON has: jansson holds them already */
        t->shape = xmalloc(sizeof(*t->shape) * json_array_size(size));
        json_array_foreach(size, k, v) t->shape[t->nd++] = json_integer_value(v);
    }
    if (json_is_object(dt)) {
        const char *vx = json_string_value(json_object_get(dt, "vx_type"));
        const char *qm = json_string_value(json_object_get(dt, "qnt_method"));
        json_t *sc = json_object_get(dt, "scale"), *zp = json_object_get(dt, "zero_point");
        if (vx) {
            /* "int8" (Toolkit2) or "VSI_NN_TYPE_UINT8" (Toolkit1) */
            const char *s = strncmp(vx, "VSI_NN_TYPE_", 12) ? vx : vx + 12;
            for (int d = 0; d <= 16; d++)
                if (!strcasecmp(s, rknn_dtype_name(d)) ||
                    (d == 10 && !strcasecmp(s, "FLOAT16")) || (d == 1 && !strcasecmp(s, "FLOAT32")))
                    t->dtype = d;
            set_field(&t->dtype_name, s, strlen(s));
            for (char *q = t->dtype_name; *q; q++)
                *q = (char)tolower((unsigned char)*q);
        }
        if (qm)
            set_field(&t->qmethod, qm, strlen(qm));
        if (json_is_number(sc) && json_is_integer(zp)) {
            t->has_quant = 1;
            t->scale = json_number_value(sc);
            t->zero_point = json_integer_value(zp);
            t->min = t->max = 0;
        }
    }
    m->n_tensors++;
    return 0;
}

/* I/O of a file without a FlatBuffer: the JSON's graph list maps input/output
 * positions to norm_tensor entries. */
static int io_from_json(ctx *c, json_t *root)
{
    rknn_model *m = c->m;
    json_t *graph = json_object_get(root, "graph"), *norm = json_object_get(root, "norm_tensor");
    json_t *e;
    size_t i;
    int ret;

    if (!json_is_array(graph) || !json_is_array(norm))
        return 0;
    for (int pass = 0; pass < 2; pass++) {  /* inputs first, then outputs */
        const char *want = pass ? "output" : "input";
        json_array_foreach(graph, i, e) {
            const char *left = json_string_value(json_object_get(e, "left"));
            json_t *rid = json_object_get(e, "right_tensor_id");
            json_t *nt = NULL, *x;
            size_t k;
            if (!left || strcmp(left, want) || !json_is_integer(rid))
                continue;
            json_array_foreach(norm, k, x)
                if (json_integer_value(json_object_get(x, "tensor_id")) == json_integer_value(rid))
                    nt = x;
            if (!json_is_object(nt))
                return bad(c, "JSON trailer graph.right_tensor_id", "no norm_tensor %lld",
                           (long long)json_integer_value(rid));
            if ((ret = add_json_tensor(c, nt, pass ? 2 : 1)))
                return ret;
            m->io = xrealloc(m->io, sizeof(*m->io) * (size_t)(m->n_io + 1));
            rknn_io *io = &m->io[m->n_io++];
            memset(io, 0, sizeof(*io));
            io->name = xstrdup(m->tensors[m->n_tensors - 1].name);
            io->tensor = m->n_tensors - 1;
            io->is_output = pass;
            io->rgb2bgr = -1;
        }
    }
    return 0;
}

static int parse_json(ctx *c, const uint8_t *p, size_t n, json_t **out)
{
    rknn_model *m = c->m;
    json_error_t je;
    json_t *root = json_loadb((const char *)p, n, JSON_REJECT_DUPLICATES, &je), *tp, *nodes, *nd;
    size_t i;

    *out = NULL;
    if (!root)
        return bad(c, "JSON trailer", "%s (line %d, column %d)", je.text, je.line, je.column);
    if (!json_is_object(root)) {
        json_decref(root);
        return bad(c, "JSON trailer", "not an object");
    }
    tp = json_object_get(root, "target_platform");
    if (json_is_array(tp) && json_is_string(json_array_get(tp, 0))) {
        json_t *s = json_array_get(tp, 0);
        m->target = dup_clean(json_string_value(s), json_string_length(s));
        for (char *q = m->target; *q; q++)
            *q = (char)tolower((unsigned char)*q);
    }
    m->toolkit = json_dup_str(root, "version");
    m->framework = json_dup_str(root, "network_platform");
    m->ori_framework = json_dup_str(root, "ori_network_platform");
    m->json_name = json_dup_str(root, "name");
    m->json_inputs = json_int_or(root, "input_num", -1);
    m->json_outputs = json_int_or(root, "output_num", -1);
    {
        json_t *pre = json_object(), *v;
        static const char *const keys[] = {"mean_value", "std_value", "reorder"};
        for (int k = 0; k < 3; k++)
            if ((v = json_object_get(root, keys[k])))
                json_object_set(pre, keys[k], v);
        if (json_object_size(pre))
            m->json_pre = json_dumps(pre, JSON_COMPACT);
        json_decref(pre);
    }
    nodes = json_object_get(root, "nodes");
    if (json_is_array(nodes)) {
        m->tk1_ops = xcalloc(json_array_size(nodes) + 1, sizeof(char *));
        json_array_foreach(nodes, i, nd) {
            char *op = json_dup_str(nd, "op");
            m->tk1_ops[m->n_tk1_ops++] = op ? op : xstrdup("?");
        }
    }
    *out = root;
    return 0;
}

/* ---- FlatBuffer --------------------------------------------------------- */

static int fb_fail(ctx *c, const char *table, long idx, const char *field)
{
    char f[96];
    if (idx >= 0)
        snprintf(f, sizeof(f), "FlatBuffer %s[%ld].%s", table, idx, field);
    else
        snprintf(f, sizeof(f), "FlatBuffer %s.%s", table, field);
    return bad(c, f, "offset or length outside the model data");
}

static int get_str(ctx *c, const fb_table *t, int slot, const char *table, long idx,
                   const char *field, char **out)
{
    const char *s;
    uint32_t n;
    int r = fb_str(t, slot, &s, &n);

    if (r < 0)
        return fb_fail(c, table, idx, field);
    *out = r ? dup_clean(s, n) : NULL;
    return 0;
}

/* n 4-byte values of a vector taken from the budget: all vectors decoded
 * from one FlatBuffer fit in its bytes unless they overlap, so the budget
 * (len / 4) bounds what a file can make us allocate by its own size. */
static int take(ctx *c, const char *table, long idx, const char *field, uint32_t n)
{
    char f[96];

    if (n <= c->budget) {
        c->budget -= n;
        return 0;
    }
    if (idx >= 0)
        snprintf(f, sizeof(f), "FlatBuffer %s[%ld].%s", table, idx, field);
    else
        snprintf(f, sizeof(f), "FlatBuffer %s.%s", table, field);
    return bad(c, f, "%u values, more than the %zu-byte model data holds besides the "
               "values read before (at most %llu left): vectors overlap", n, c->fb.len,
               (unsigned long long)c->budget);
}

/* A vector of 4-byte ints: *dst allocated with as many values as it has
 * (NULL when empty). */
static int get_ints(ctx *c, const fb_table *t, int slot, const char *table, long idx,
                    const char *field, int64_t **dst, int *n)
{
    fb_vec v;
    int r = fb_vector(t, slot, 4, &v);

    *n = 0;
    *dst = NULL;
    if (r < 0)
        return fb_fail(c, table, idx, field);
    if ((r = take(c, table, idx, field, v.n)))
        return r;
    if (!v.n)
        return 0;
    *dst = xmalloc(sizeof(**dst) * v.n);
    for (uint32_t i = 0; i < v.n; i++)
        (*dst)[i] = (int32_t)fb_vec_u32(&v, i);
    *n = (int)v.n;
    return 0;
}

/* First element of a vector of 4-byte floats/ints (per-layer quantization); 0 if empty. */
static int get_first4(ctx *c, const fb_table *t, int slot, long idx, const char *field,
                      uint32_t *out)
{
    fb_vec v;
    int r = fb_vector(t, slot, 4, &v);

    *out = 0;
    if (r < 0)
        return fb_fail(c, "tensor", idx, field);
    if (v.n)
        *out = fb_vec_u32(&v, 0);
    return v.n ? 1 : 0;
}

static int decode_tensor(ctx *c, const fb_table *t, long i, rknn_tensor *dt)
{
    uint8_t code, kind;
    fb_vec qv;
    uint32_t mn, mx, sc, zp;
    int32_t size;
    int r, nq = 0;

    dt->size = -1;
    dt->buffer = -1;
    dt->task_node = dt->task_lut = -1;
    dt->data_off = dt->data_len = -1;
    if (fb_u8(t, 0, 0, &code) < 0 || fb_u8(t, 2, 0, &kind) < 0)
        return fb_fail(c, "tensor", i, "data_type");
    if (!rknn_dtype_name(code))
        return bad(c, "FlatBuffer tensor.data_type", "unknown dtype code %u (tensor %ld)", code, i);
    dt->dtype = code;
    dt->kind = kind;
    if ((r = get_ints(c, t, 3, "tensor", i, "native_shape", &dt->native, &dt->nnd)) ||
        (r = get_ints(c, t, 4, "tensor", i, "shape", &dt->shape, &dt->nd)) ||
        (r = get_str(c, t, 5, "tensor", i, "name", &dt->name)))
        return r;
    if (!dt->name)
        dt->name = xstrdup("");
    if (c->lite) { /* scale 6, zero point 7, bytes 8; no min/max, method or dtype name */
        if ((r = get_first4(c, t, 6, i, "scale", &sc)) < 0 || (nq = get_first4(c, t, 7, i, "zero_point", &zp)) < 0)
            return r < 0 ? r : nq;
        if (r || nq) {
            dt->has_quant = 1;
            dt->min = dt->max = NAN;
            dt->scale = u32_float(sc);
            dt->zero_point = (int32_t)zp;
        }
        if (fb_i32(t, 8, -1, &size) < 0)
            return fb_fail(c, "tensor", i, "size");
        dt->size = size;
        return 0;
    }
    if (fb_vector(t, 6, 1, &qv) < 0)
        return fb_fail(c, "tensor", i, "quant_method");
    set_field(&dt->qmethod, (const char *)qv.b->p + qv.pos, qv.n);
    {
        const char *s;
        uint32_t n;
        if (fb_str(t, 7, &s, &n) < 0)
            return fb_fail(c, "tensor", i, "dtype_name");
        set_field(&dt->dtype_name, s, n);
    }
    {
        static const char *const qf[4] = {"min", "max", "scale", "zero_point"};
        uint32_t *qv4[4] = {&mn, &mx, &sc, &zp};
        for (int k = 0; k < 4; k++) {
            if ((r = get_first4(c, t, 8 + k, i, qf[k], qv4[k])) < 0)
                return r;
            nq += r;
        }
    }
    if (nq) {
        dt->has_quant = 1;
        dt->min = u32_float(mn);
        dt->max = u32_float(mx);
        dt->scale = u32_float(sc);
        dt->zero_point = (int32_t)zp;
    }
    if ((r = fb_i32(t, 12, -1, &size)) < 0)
        return fb_fail(c, "tensor", i, "size");
    dt->size = size;
    if ((r = fb_i32(t, 18, -1, &size)) < 0) /* its data buffer (model slot 20) */
        return fb_fail(c, "tensor", i, "buffer");
    dt->buffer = size < 0 ? -1 : size;
    return 0;
}

/* Model slot 20 (4 in model version 1): the data buffers (a table each,
 * bytes in slot 0) that tensors name by index (tensor slot 18): where a
 * weight's bytes are. */
static int resolve_buffers(ctx *c, const fb_table *root)
{
    rknn_model *m = c->m;
    fb_vec bufs, bytes;
    fb_table bt;

    /* model version 6: slot 20; version 1 files keep them in slot 4 */
    if (fb_vector(root, c->m->model_version >= 6 ? 20 : 4, 4, &bufs) < 0)
        return fb_fail(c, "model", -1, "buffers");
    for (int i = 0; i < m->n_tensors; i++) {
        rknn_tensor *t = &m->tensors[i];
        if (t->buffer < 0)
            continue;
        if ((uint32_t)t->buffer >= bufs.n)
            return bad(c, "FlatBuffer tensor.buffer", "buffer %d of %u (tensor %d)", t->buffer,
                       bufs.n, i);
        if (fb_vec_table(&bufs, (uint32_t)t->buffer, &bt) || fb_vector(&bt, 0, 1, &bytes) < 0)
            return fb_fail(c, "buffer", t->buffer, "bytes");
        t->data_off = (int64_t)(m->data_off + bytes.pos);
        t->data_len = bytes.n;
    }
    return 0;
}

static int decode_params(ctx *c, const fb_table *nt, long i, rknn_node *n)
{
    fb_table p;
    int r = fb_subtable(nt, 8, &p), tmp;
    const char *s;
    uint32_t len;
    int32_t axis;

    if (r < 0)
        return fb_fail(c, "node", i, "params");
    if (r == 0)
        return 0;
    switch (n->param_tag) {
    case 1: /* convolution family */
    case 3: /* pooling */
        if (fb_str(&p, 0, &s, &len) < 0)
            return fb_fail(c, "node", i, "params.auto_pad");
        set_field(&n->auto_pad, s, len);
        if ((r = get_ints(c, &p, 3, "node", i, "params.kernel", &n->kernel, &n->n_kernel)) ||
            (r = get_ints(c, &p, 4, "node", i, "params.pads", &n->pad, &n->n_pad)) ||
            (r = get_ints(c, &p, n->param_tag == 1 ? 5 : 6, "node", i, "params.strides",
                          &n->stride, &n->n_stride)))
            return r;
        if (n->param_tag == 1 &&
            (r = get_ints(c, &p, 1, "node", i, "params.dilations", &n->dilation, &n->n_dilation)))
            return r;
        break;
    case 26: /* resize */
        if (fb_str(&p, 0, &s, &len) < 0)
            return fb_fail(c, "node", i, "params.coordinate_mode");
        set_field(&n->coord_mode, s, len);
        if (fb_str(&p, 4, &s, &len) < 0)
            return fb_fail(c, "node", i, "params.mode");
        set_field(&n->mode, s, len);
        break;
    case 19: /* concat */
    case 20: /* split */
    case 51: /* argmax (pp_human_segv2's CPU ArgMax: axis 1) */
        if ((tmp = fb_i32(&p, 0, 0, &axis)) < 0)
            return fb_fail(c, "node", i, "params.axis");
        n->axis = axis;
        n->has_axis = tmp;
        break;
    default:
        break;
    }
    return 0;
}

static int get_index_list(ctx *c, const fb_table *t, int slot, long i, const char *field,
                          int **out, int *n)
{
    fb_vec v;
    int r;

    *out = NULL;
    *n = 0;
    if (fb_vector(t, slot, 4, &v) < 0)
        return fb_fail(c, "node", i, field);
    if ((r = take(c, "node", i, field, v.n)))
        return r;
    *out = xmalloc(sizeof(int) * (v.n ? v.n : 1));
    for (uint32_t k = 0; k < v.n; k++) {
        uint32_t x = fb_vec_u32(&v, k);
        if (x >= (uint32_t)c->m->n_tensors) {
            char f[64];
            snprintf(f, sizeof(f), "FlatBuffer node[%ld].%s", i, field);
            return bad(c, f, "tensor index %u, the graph has %d", x, c->m->n_tensors);
        }
        (*out)[k] = (int)x;
    }
    *n = (int)v.n;
    return 0;
}

/* Model-1 files (toolkit <= 1.5): node slot 6 lists the node's NPU tasks,
 * each a table: slot 0 its register blob (a kind-7 tensor), 1 the LUT table
 * tensor, 3 the enable mask, 4 the interrupt mask (docs/rknn-format.md,
 * "Which node a model-1 task belongs to"). Each blob belongs to one node. */
static int decode_node_tasks(ctx *c, const fb_table *t, long i)
{
    fb_vec v;
    char f[80];

    if (fb_vector(t, 6, 4, &v) < 0)
        return fb_fail(c, "node", i, "tasks");
    snprintf(f, sizeof(f), "FlatBuffer node[%ld].tasks", i);
    for (uint32_t k = 0; k < v.n; k++) {
        fb_table e;
        int32_t blob, lut, en, im;
        if (fb_vec_table(&v, k, &e) || fb_i32(&e, 0, -1, &blob) < 0 ||
            fb_i32(&e, 1, -1, &lut) < 0 || fb_i32(&e, 3, 0, &en) < 0 || fb_i32(&e, 4, 0, &im) < 0)
            return fb_fail(c, "node", i, "tasks");
        if (blob < 0 || blob >= c->m->n_tensors || c->m->tensors[blob].kind != RKNN_TK_TASK1)
            return bad(c, f, "task %u: tensor %d is not a task blob of the %d tensors", k, blob,
                       c->m->n_tensors);
        if (lut < -1 || lut >= c->m->n_tensors)
            return bad(c, f, "task %u: LUT tensor %d, the graph has %d", k, lut, c->m->n_tensors);
        rknn_tensor *b = &c->m->tensors[blob];
        if (b->task_node >= 0)
            return bad(c, f, "task %u: tensor %d is node %d's task already", k, blob,
                       b->task_node);
        b->task_node = (int)i;
        b->task_lut = lut;
        b->task_enable = (uint32_t)en;
        b->task_int_mask = (uint32_t)im;
    }
    return 0;
}

static int decode_node(ctx *c, const fb_table *t, long i, rknn_node *n)
{
    uint8_t tgt, tag;
    int r;

    n->tasks = -1;
    n->attr_off = n->attr_len = -1;

    if ((r = get_str(c, t, 1, "node", i, "type", &n->type)) ||
        (r = get_str(c, t, 2, "node", i, "name", &n->name)))
        return r;
    if (!n->type || !n->type[0])
        return bad(c, "FlatBuffer node.type", "empty op type (node %ld)", i);
    if (!n->name)
        n->name = xstrdup("");
    if (fb_u8(t, 3, 0, &tgt) < 0 || fb_u8(t, 7, 0, &tag) < 0)
        return fb_fail(c, "node", i, "target");
    if (c->lite) /* no parameter union: slot 7 is unused there */
        tag = 0;
    if (tgt > RKNN_TGT_NPU)
        return bad(c, "FlatBuffer node.target", "unknown target %u (node %ld)", tgt, i);
    n->target = tgt;
    n->param_tag = tag;
    if ((r = get_index_list(c, t, 4, i, "inputs", &n->in, &n->n_in)) ||
        (r = get_index_list(c, t, 5, i, "outputs", &n->out, &n->n_out)))
        return r;
    if (c->lite) { /* its NPU tasks in the task table: slot 9 */
        uint32_t tn;
        if ((r = get_first4(c, t, 9, i, "task_number", &tn)) < 0)
            return r;
        if (r && tn > c->m->lite_tasks) {
            char f[64];
            snprintf(f, sizeof(f), "FlatBuffer node[%ld].task_number", i);
            return bad(c, f, "%u tasks, the task table has %u", tn, c->m->lite_tasks);
        }
        if (r)
            n->tasks = (int)tn;
        return 0;
    }
    if (c->m->model_version >= 0 && c->m->model_version < 6 && (r = decode_node_tasks(c, t, i)))
        return r;
    if (c->m->model_version >= 6) { /* slot 9: its attributes, a BSON document (rknn_attr.c) */
        fb_vec a;
        if (fb_vector(t, 9, 1, &a) < 0)
            return fb_fail(c, "node", i, "attributes");
        if (a.n) {
            n->attr_off = (int64_t)(c->m->data_off + a.pos);
            n->attr_len = a.n;
        }
    }
    return decode_params(c, t, i, n);
}

/* RV1103/RV1106 files store a depthwise conv's weight of C channels as
 * (1, C, kh, kw), its native shape as [1, C1, kh, kw, 1, 32] (one output
 * channel per block, the channels in the input-channel lanes), where a
 * regular conv has (OC, IC, kh, kw) and [OC1, IC1, kh, kw, 16, 32]. What says
 * depthwise is the weight's single output channel against the node's C
 * output channels, with C input channels: read as it is, it would be a dense
 * conv of C x C x kh x kw MACs. Rewritten to the framework's (C, 1, kh, kw),
 * group C. A weight (1, C, kh, kw) of a node with one output channel is a
 * dense conv and stays. */
static void lite_depthwise(rknn_model *m)
{
    for (int i = 0; i < m->n_nodes; i++) {
        rknn_node *n = &m->nodes[i];
        const rknn_tensor *data = NULL, *out = NULL;
        rknn_tensor *w = NULL;
        if (strncmp(n->type, "Conv", 4) || !strncmp(n->type, "ConvTranspose", 13))
            continue;
        for (int k = 0; k < n->n_in; k++) {
            rknn_tensor *t = &m->tensors[n->in[k]];
            int is_const = rknn_kind_is_const(t->kind);
            if (!is_const && !data && !rknn_kind_is_blob(t->kind))
                data = t;
            else if (is_const && !w && t->nd == 4)
                w = t;
        }
        if (n->n_out)
            out = &m->tensors[n->out[0]];
        if (!data || !w || !out || data->nd != 4 || out->nd != 4)
            continue;
        int64_t ch = out->shape[1];
        if (ch > 1 && w->shape[0] == 1 && w->shape[1] == ch && data->shape[1] == ch) {
            w->shape[0] = ch;
            w->shape[1] = 1;
            n->group = (int)(ch > INT32_MAX ? INT32_MAX : ch);
        }
    }
}

static rknn_io *find_io(rknn_model *m, const char *name)
{
    for (int i = 0; i < m->n_io; i++)
        if (!strcmp(m->io[i].name, name))
            return &m->io[i];
    return NULL;
}

/* One value per channel, as many as the list has (jansson holds them already). */
static void fill_nums(json_t *arr, double **dst, int *n)
{
    size_t k;
    json_t *v;

    *n = 0;
    if (!json_is_array(arr) || !json_array_size(arr))
        return;
    free(*dst);
    *dst = xmalloc(sizeof(**dst) * json_array_size(arr));
    json_array_foreach(arr, k, v) {
        if (json_is_number(v))
            (*dst)[(*n)++] = json_number_value(v);
    }
}

/* The generator string: a Python dict literal with per-I/O attributes. */
static int decode_generator(ctx *c, const char *s, uint32_t n)
{
    rknn_model *m = c->m;
    char perr[160];
    void *pv;
    json_t *root, *attrs, *dyn;
    const char *key;
    json_t *a;

    if (pylit_parse(s, n, &pv, perr, sizeof(perr)))
        return bad(c, "FlatBuffer model.generator", "%s", perr);
    root = pv;
    attrs = json_object_get(root, "attrs");
    json_object_foreach(attrs, key, a) {
        rknn_io *io = find_io(m, key);
        const char *l;
        if (!io || !json_is_object(a))
            continue;
        if ((l = json_string_value(json_object_get(a, "layout"))))
            set_field(&io->layout, l, strlen(l));
        if ((l = json_string_value(json_object_get(a, "layout_ori"))))
            set_field(&io->layout_ori, l, strlen(l));
        if (json_is_boolean(json_object_get(a, "rgb2bgr")))
            io->rgb2bgr = json_is_true(json_object_get(a, "rgb2bgr"));
        if (!io->n_mean)
            fill_nums(json_object_get(a, "mean"), &io->mean, &io->n_mean);
        if (!io->n_std)
            fill_nums(json_object_get(a, "std"), &io->std, &io->n_std);
    }
    dyn = json_object_get(root, "dynamic_shapes");
    if ((json_is_object(dyn) && json_object_size(dyn)) || (json_is_array(dyn) && json_array_size(dyn))) {
        m->dyn_json = json_dumps(dyn, JSON_COMPACT);
        m->n_dyn = (int)(json_is_object(dyn) ? json_object_size(dyn) : json_array_size(dyn));
    }
    json_decref(root);
    return 0;
}

/* input_json / output_json: {"name": {"dtype": "int8", "layout": "NHWC"}} */
static int decode_native_io(ctx *c, const char *s, uint32_t n, const char *field)
{
    json_error_t je;
    json_t *root = json_loadb(s, n, 0, &je), *v;
    const char *key;

    if (!root)
        return bad(c, field, "%s", je.text);
    json_object_foreach(root, key, v) {
        rknn_io *io = find_io(c->m, key);
        const char *d = json_string_value(json_object_get(v, "dtype"));
        const char *l = json_string_value(json_object_get(v, "layout"));
        if (!io)
            continue;
        if (d)
            set_field(&io->native_dtype, d, strlen(d));
        if (l)
            set_field(&io->native_layout, l, strlen(l));
    }
    json_decref(root);
    return 0;
}

static int reloc_cmp(const void *a, const void *b)
{
    const rknn_reloc *x = a, *y = b;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Graph slot 7 (model 6): the address patches the runtime applies to the register
 * commands at load time, one table per buffer: slot 0 the tensor's name, slot 1 a
 * vector of 8-byte structs {offset, entry} (the regcmd entry that gets the tensor's
 * address + offset), slot 2 one word per patch (rk3576's 1, 0, 1, 1: not read). */
static int decode_relocs(ctx *c, const fb_table *g)
{
    rknn_model *m = c->m;
    fb_vec rv;
    int r, cap = 0;

    if (fb_vector(g, 7, 4, &rv) < 0)
        return fb_fail(c, "graph", 0, "relocations");
    if ((r = take(c, "graph", 0, "relocations", rv.n)))
        return r;
    for (uint32_t k = 0; k < rv.n; k++) {
        fb_table e;
        fb_vec pv;
        const char *s;
        uint32_t sl = 0;
        if (fb_vec_table(&rv, k, &e) || fb_str(&e, 0, &s, &sl) < 0 || fb_vector(&e, 1, 8, &pv) < 0)
            return fb_fail(c, "relocation", (long)k, "table");
        if ((r = take(c, "relocation", (long)k, "patches", pv.n)) ||
            (r = take(c, "relocation", (long)k, "patches", pv.n)))
            return r;
        int tensor = -1;
        for (int i = 0; i < m->n_tensors && tensor < 0 && sl; i++)
            if (m->tensors[i].name && strlen(m->tensors[i].name) == sl &&
                !memcmp(m->tensors[i].name, s, sl))
                tensor = i;
        for (uint32_t j = 0; j < pv.n; j++) {
            const uint8_t *q = pv.b->p + pv.pos + 8 * (size_t)j;
            if (m->n_relocs == cap) {
                cap = cap ? 2 * cap : 16;
                m->relocs = xrealloc(m->relocs, sizeof(*m->relocs) * (size_t)cap);
            }
            m->relocs[m->n_relocs++] = (rknn_reloc){tensor, rd_u32(q), rd_u32(q + 4)};
        }
    }
    if (m->n_relocs > 1)
        qsort(m->relocs, (size_t)m->n_relocs, sizeof(*m->relocs), reloc_cmp);
    return 0;
}

int rknn_reloc_at(const rknn_model *m, int64_t entry, uint32_t *offset)
{
    int lo = 0, hi = m->n_relocs;
    if (entry < 0 || entry > UINT32_MAX)
        return -1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (m->relocs[mid].entry < (uint32_t)entry)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == m->n_relocs || m->relocs[lo].entry != (uint32_t)entry)
        return -1;
    if (offset)
        *offset = m->relocs[lo].offset;
    return m->relocs[lo].tensor < 0 ? -2 : m->relocs[lo].tensor;
}


static int decode_flatbuffer(ctx *c, const uint8_t *p, size_t n)
{
    rknn_model *m = c->m;
    fb_table root, g, t;
    fb_vec graphs, tv, nv, iv, ov, normv;
    int32_t v;
    const char *s;
    uint32_t sl;
    int r;

    c->fb.p = p;
    c->fb.len = n;
    c->budget = n / 4;
    if (n < 8 || memcmp(p + 4, "RKNN", 4))
        return bad(c, "FlatBuffer", "no RKNN file identifier");
    if (fb_root(&c->fb, &root))
        return fb_fail(c, "model", -1, "root");
    if (fb_i32(&root, 0, -1, &v) < 0)
        return fb_fail(c, "model", -1, "version");
    m->model_version = v;
    /* RV1103/RV1106 lack slots 4, 5 (and everything from 10): code, compiler,
     * platform, framework are 2 lower */
    const int sh = c->lite ? 2 : 0;
    if (fb_i32(&root, 6 - sh, -1, &v) < 0)
        return fb_fail(c, "model", -1, "compiler_code");
    m->compiler_code = v;
    if ((r = get_str(c, &root, 1, "model", -1, "npu", &m->npu_gen)) ||
        (r = get_str(c, &root, 7 - sh, "model", -1, "compiler", &m->compiler)) ||
        (r = get_str(c, &root, 8 - sh, "model", -1, "platform", &m->fb_target)) ||
        (!c->lite && (r = get_str(c, &root, 16, "model", -1, "inference_type", &m->infer_type))))
        return r;
    {
        char *fw = NULL;
        if ((r = get_str(c, &root, 9 - sh, "model", -1, "framework", &fw)))
            return r;
        if (fw && !m->framework)
            m->framework = fw;
        else
            free(fw);
    }
    if (fb_vector(&root, 2, 4, &graphs) < 0)
        return fb_fail(c, "model", -1, "graphs");
    if (graphs.n < 1)
        return bad(c, "FlatBuffer model.graphs", "no graph");
    if (fb_vec_table(&graphs, 0, &g))
        return fb_fail(c, "graph", 0, "table");
    if (fb_vector(&g, 0, 4, &tv) < 0)
        return fb_fail(c, "graph", 0, "tensors");
    if (fb_vector(&g, 1, 4, &nv) < 0)
        return fb_fail(c, "graph", 0, "nodes");
    if ((uint64_t)tv.n + nv.n > n / FB_MIN_ENTRY)
        return bad(c, "FlatBuffer graph[0].tensors", "%u tensors and %u nodes, a %zu-byte model "
                   "data holds at most %zu (%d bytes each)", tv.n, nv.n, n, n / FB_MIN_ENTRY,
                   FB_MIN_ENTRY);
    m->tensors = xcalloc(tv.n ? tv.n : 1, sizeof(*m->tensors));
    for (uint32_t i = 0; i < tv.n; i++) {
        if (fb_vec_table(&tv, i, &t))
            return fb_fail(c, "tensor", (long)i, "table");
        m->n_tensors = (int)i + 1;
        if ((r = decode_tensor(c, &t, (long)i, &m->tensors[i])))
            return r;
    }
    m->nodes = xcalloc(nv.n ? nv.n : 1, sizeof(*m->nodes));
    for (uint32_t i = 0; i < nv.n; i++) {
        if (fb_vec_table(&nv, i, &t))
            return fb_fail(c, "node", (long)i, "table");
        m->n_nodes = (int)i + 1;
        if ((r = decode_node(c, &t, (long)i, &m->nodes[i])))
            return r;
    }
    if (!c->lite && (r = resolve_buffers(c, &root)))
        return r;
    if (c->lite)
        lite_depthwise(m);
    /* graph inputs and outputs: tensor indices */
    if (fb_vector(&g, 2, 4, &iv) < 0 || fb_vector(&g, 3, 4, &ov) < 0)
        return fb_fail(c, "graph", 0, "inputs");
    if ((r = take(c, "graph", 0, "inputs", iv.n)) || (r = take(c, "graph", 0, "outputs", ov.n)))
        return r;
    m->io = xcalloc((size_t)iv.n + ov.n + 1, sizeof(*m->io));
    for (uint32_t k = 0; k < iv.n + ov.n; k++) {
        uint32_t x = k < iv.n ? fb_vec_u32(&iv, k) : fb_vec_u32(&ov, k - iv.n);
        rknn_io *io = &m->io[m->n_io];
        if (x >= (uint32_t)m->n_tensors)
            return bad(c, k < iv.n ? "FlatBuffer graph.inputs" : "FlatBuffer graph.outputs",
                       "tensor index %u, the graph has %d", x, m->n_tensors);
        memset(io, 0, sizeof(*io));
        io->name = xstrdup(m->tensors[x].name);
        io->tensor = (int)x;
        io->is_output = k >= iv.n;
        io->rgb2bgr = -1;
        m->n_io++;
    }
    /* graph slot 10: where each core selection's tiling starts in the task table;
     * its first entry is 0, the one-core tiling, which ends at the first larger
     * entry (rk3588 [0,0,0,S2,S3]: S2 the two-core tiling, S3 the three-core
     * one; rk3576 [0,2,4]: core 1's own copy at 2; rv1126b [0]; rk356x none) */
    {
        fb_vec cv;
        if (fb_vector(&g, 10, 4, &cv) < 0)
            return fb_fail(c, "graph", 0, "tilings");
        if ((r = take(c, "graph", 0, "tilings", cv.n)))
            return r;
        m->tiling_start = xmalloc(sizeof(*m->tiling_start) * ((size_t)cv.n + 1));
        for (uint32_t k = 0; k < cv.n; k++)
            m->tiling_start[m->n_tilings++] = fb_vec_u32(&cv, k);
    }
    if (!c->lite && m->model_version >= 6 && (r = decode_relocs(c, &g)))
        return r;
    /* per-input normalisation: mean, std (float bits), channel reorder */
    if (fb_vector(&g, 4, 4, &normv) < 0)
        return fb_fail(c, "graph", 0, "normalizations");
    for (uint32_t k = 0; k < normv.n && k < iv.n; k++) {
        fb_table nt;
        fb_vec mv, sv, rv;
        rknn_io *io = &m->io[k];
        if (fb_vec_table(&normv, k, &nt) || fb_vector(&nt, 0, 4, &mv) < 0 ||
            fb_vector(&nt, 1, 4, &sv) < 0 || fb_vector(&nt, 2, 4, &rv) < 0)
            return fb_fail(c, "normalization", (long)k, "table");
        if ((r = take(c, "normalization", (long)k, "mean", mv.n)) ||
            (r = take(c, "normalization", (long)k, "std", sv.n)) ||
            (r = take(c, "normalization", (long)k, "reorder", rv.n)))
            return r;
        /* one value per channel, as many as the file has */
        io->mean = xmalloc(sizeof(*io->mean) * (mv.n + 1));
        io->std = xmalloc(sizeof(*io->std) * (sv.n + 1));
        io->reorder = xmalloc(sizeof(*io->reorder) * (rv.n + 1));
        for (uint32_t e = 0; e < mv.n; e++)
            io->mean[io->n_mean++] = u32_float(fb_vec_u32(&mv, e));
        for (uint32_t e = 0; e < sv.n; e++)
            io->std[io->n_std++] = u32_float(fb_vec_u32(&sv, e));
        for (uint32_t e = 0; e < rv.n; e++)
            io->reorder[io->n_reorder++] = (int)fb_vec_u32(&rv, e);
    }
    r = fb_str(&root, 3, &s, &sl);
    if (r < 0)
        return fb_fail(c, "model", -1, "generator");
    if (r > 0 && (r = decode_generator(c, s, sl)))
        return r;
    for (int k = 12; k <= 13 && !c->lite; k++) {
        r = fb_str(&root, k, &s, &sl);
        if (r < 0)
            return fb_fail(c, "model", -1, k == 12 ? "input_json" : "output_json");
        if (r > 0 && sl && (r = decode_native_io(c, s, sl, k == 12 ? "FlatBuffer model.input_json"
                                                                  : "FlatBuffer model.output_json")))
            return r;
    }
    return 0;
}

/* ---- RV1103/RV1106 and Toolkit1 blobs ------------------------------------ */

static int decode_lite(ctx *c, const uint8_t *p, size_t n)
{
    rknn_model *m = c->m;

    if (n < LITE_HDR)
        return bad(c, "lite header", "model data of %zu bytes, %d needed", n, LITE_HDR);
    for (int i = 0; i < 6; i++)
        m->lite_words[i] = rd_u32(p + 4 * i);
    m->lite_tasks = m->lite_words[2];
    if ((uint64_t)m->lite_tasks * LITE_TASK > n - LITE_HDR)
        return bad(c, "lite task table", "%u tasks need %llu bytes, the model data has %zu",
                   m->lite_tasks, (unsigned long long)m->lite_tasks * LITE_TASK, n - LITE_HDR);
    for (uint32_t t = 0; t < m->lite_tasks; t++)
        m->lite_regcfg_total += rd_u32(p + LITE_HDR + (size_t)t * LITE_TASK + 24);
    /* header word 0: the size of the config section that ends the model data,
     * a FlatBuffer ("RKNN" identifier) of the Toolkit2 graph with other slot
     * numbers (docs/rknn-format.md); older or other files: not decoded */
    size_t cfg = m->lite_words[0];
    if (cfg < 8 || cfg > n - LITE_HDR - (size_t)m->lite_tasks * LITE_TASK ||
        memcmp(p + n - cfg + 4, "RKNN", 4))
        return 0;
    c->lite = 1;
    int r = decode_flatbuffer(c, p + n - cfg, cfg);
    c->lite = 0;
    if (r)
        return r;
    m->lite_graph = 1;
    return 0;
}

static int decode_vpmn(ctx *c, const uint8_t *p, size_t n)
{
    rknn_model *m = c->m;

    if (n < 80)
        return bad(c, "NBG header", "model data of %zu bytes, 80 needed", n);
    m->nbg_major = p[4] | p[5] << 8;
    m->nbg_minor = p[6] | p[7] << 8;
    {   /* the NBG header's name field: 64 bytes */
        size_t n = strnlen((const char *)p + 12, 64);
        for (size_t i = 0; i < n; i++)
            m->nbg_name[i] = p[12 + i] < 0x20 || p[12 + i] == 0x7f ? '?' : (char)p[12 + i];
        m->nbg_name[n] = '\0';
    }
    m->nbg_nodes = (int)rd_u32(p + 76);
    return 0;
}

/* ---- container ------------------------------------------------------------ */

static void empty_if_null(char **s)
{
    if (!*s)
        *s = xstrdup("");
}

/* A parsed model's string fields are never NULL: "" where the file has none. */
static void fill_empty(rknn_model *m)
{
    for (int i = 0; i < m->n_tensors; i++) {
        empty_if_null(&m->tensors[i].qmethod);
        empty_if_null(&m->tensors[i].dtype_name);
    }
    for (int i = 0; i < m->n_nodes; i++) {
        empty_if_null(&m->nodes[i].auto_pad);
        empty_if_null(&m->nodes[i].mode);
        empty_if_null(&m->nodes[i].coord_mode);
    }
    for (int i = 0; i < m->n_io; i++) {
        empty_if_null(&m->io[i].layout);
        empty_if_null(&m->io[i].layout_ori);
        empty_if_null(&m->io[i].native_dtype);
        empty_if_null(&m->io[i].native_layout);
    }
}

int rknn_model_parse(const void *buf, size_t len, const char *what, rknn_model **out, char *err,
                     size_t errlen)
{
    const uint8_t *p = buf;
    rknn_model *m = xcalloc(1, sizeof(*m));
    ctx c = {.what = what, .err = err, .errlen = errlen, .m = m};
    json_t *json = NULL;
    int ret = 0;

    *out = NULL;
    m->model_version = m->compiler_code = -1;
    m->json_inputs = m->json_outputs = -1;
    if (len >= 8 && !memcmp(p, "CYPTRKNN", 8)) {
        m->container = RKNN_C_ENCRYPTED;
        goto out;
    }
    if (len >= 4 && !memcmp(p, "RKNX", 4)) {
        m->container = RKNN_C_RKNX;
        goto out;
    }
    if (len < 8 || memcmp(p, "RKNN", 4)) {
        ret = bad(&c, "magic", "not an .rknn file (no RKNN/CYPTRKNN/RKNX signature)");
        goto out;
    }
    if (len < 24) {
        ret = bad(&c, "header", "%zu bytes, 24 needed", len);
        goto out;
    }
    m->version = rd_u64(p + 8);
    m->data_size = rd_u64(p + 16);
    if ((m->version >> 8) != 0 && (m->version >> 8) != 0x10) {
        ret = bad(&c, "version", "unknown container version 0x%llx", (unsigned long long)m->version);
        goto out;
    }
    m->data_off = ((m->version & 0xff) > 1 && m->data_size > 0) ? 64 : 24;
    if (m->data_off > len || m->data_size > len - m->data_off) {
        ret = bad(&c, "data_size", "%llu bytes of model data at offset %zu, the file has %zu",
                  (unsigned long long)m->data_size, m->data_off, len);
        goto out;
    }
    {
        size_t jpos = m->data_off + (size_t)m->data_size;
        if (len - jpos < 8) {
            ret = bad(&c, "json_size", "missing (file ends at the model data)");
            goto out;
        }
        m->json_size = rd_u64(p + jpos);
        m->json_off = jpos + 8;
        if (m->json_size > len - m->json_off) {
            ret = bad(&c, "json_size", "%llu bytes of JSON at offset %zu, the file has %zu",
                      (unsigned long long)m->json_size, m->json_off, len);
            goto out;
        }
        m->extra_bytes = len - m->json_off - (size_t)m->json_size;
    }
    if ((ret = parse_json(&c, p + m->json_off, (size_t)m->json_size, &json)))
        goto out;

    const uint8_t *d = p + m->data_off;
    size_t dn = (size_t)m->data_size;
    if (dn == 0) {
        m->container = RKNN_C_JSON_ONLY;
    } else if ((m->version >> 8) == 0x10) {
        m->container = RKNN_C_LITE;
        ret = decode_lite(&c, d, dn);
    } else if (dn >= 4 && !memcmp(d, "VPMN", 4)) {
        m->container = RKNN_C_VPMN;
        ret = decode_vpmn(&c, d, dn);
    } else if (dn >= 8 && !memcmp(d + 4, "RKNN", 4)) {
        m->container = RKNN_C_TK2_FB;
        ret = decode_flatbuffer(&c, d, dn);
    } else {
        m->container = RKNN_C_UNKNOWN_DATA;
    }
    if (!ret && m->container != RKNN_C_TK2_FB && !m->lite_graph)
        ret = io_from_json(&c, json);
out:
    json_decref(json);
    if (ret) {
        rknn_model_free(m);
    } else {
        fill_empty(m);
        *out = m;
    }
    return ret;
}

int rknn_model_read(const char *path, rknn_model **out, char *err, size_t errlen)
{
    void *buf = NULL;
    size_t len = 0;
    int ret;

    *out = NULL;
    ret = rt_read_file(path, &buf, &len, err, errlen);
    if (ret)
        return ret;
    ret = rknn_model_parse(buf, len, path, out, err, errlen);
    free(buf);
    return ret;
}

void rknn_model_free(rknn_model *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->n_tensors; i++) {
        free(m->tensors[i].name);
        free(m->tensors[i].shape);
        free(m->tensors[i].native);
        free(m->tensors[i].qmethod);
        free(m->tensors[i].dtype_name);
    }
    for (int i = 0; i < m->n_nodes; i++) {
        rknn_node *n = &m->nodes[i];
        free(n->type);
        free(n->name);
        free(n->in);
        free(n->out);
        free(n->kernel);
        free(n->stride);
        free(n->pad);
        free(n->dilation);
        free(n->auto_pad);
        free(n->mode);
        free(n->coord_mode);
    }
    for (int i = 0; i < m->n_io; i++) {
        free(m->io[i].name);
        free(m->io[i].mean);
        free(m->io[i].std);
        free(m->io[i].reorder);
        free(m->io[i].layout);
        free(m->io[i].layout_ori);
        free(m->io[i].native_dtype);
        free(m->io[i].native_layout);
    }
    for (int i = 0; i < m->n_tk1_ops; i++)
        free(m->tk1_ops[i]);
    free(m->tk1_ops);
    free(m->tensors);
    free(m->nodes);
    free(m->io);
    free(m->dyn_json);
    free(m->tiling_start);
    free(m->relocs);
    free(m->json_pre);
    free(m->target);
    free(m->toolkit);
    free(m->framework);
    free(m->ori_framework);
    free(m->json_name);
    free(m->npu_gen);
    free(m->compiler);
    free(m->fb_target);
    free(m->infer_type);
    free(m);
}
