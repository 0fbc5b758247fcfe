/* runtime/api/api_vendor.c — a vendor-compiled `.rknn` behind the C API: the
 * file's own tensor table answers the queries, rknn_run executes its NPU tasks
 * through the emulator (runtime/emu, as `rknn-trace run FILE --emulate`).
 *
 * Inputs are taken as the vendor runtime takes them with pass_through = 0
 * (shared/research/rknn-api.md "rknn_input": type/fmt describe buf, the runtime
 * normalises, quantises and reorders): uint8, int8, float16 or float32 values in
 * NHWC or NCHW become float NCHW, which emu_exec takes before mean/std; the
 * file's mean/std and input quantization are applied there. Outputs are the
 * emulator's dequantized NCHW floats (want_float = 1) or those values put back
 * on the output's int8 grid (want_float = 0: round(x / scale) + zp, which gives
 * back the integers the tasks computed). The attributes follow what the vendor
 * runtime prints for such files (shared/research/log-formats.md §10 and the
 * yolov5s log shared/data/logs/perf-evalperf-oldfmt-full-yolov5s-rk3588-*: the yolov5
 * demo: inputs NHWC int8 AFFINE, outputs NCHW int8 AFFINE). */
#include "runtime/api/api_internal.h"
#include "runtime/emu/emu.h"
#include "runtime/model/rknn_file.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct api_vendor {
    rknn_model *m;
    int *in_io, *out_io;   /* index into m->io of each API input / output */
    int64_t (*in_dims)[4]; /* NCHW of each input */
    float **in;            /* float NCHW per input, as emu_exec takes it */
    int *in_set;
    emu_result res;
    int has_res;
};

static const rknn_tensor *io_tensor(const api_vendor *v, int io)
{
    int t = v->m->io[io].tensor;
    return t >= 0 && t < v->m->n_tensors ? &v->m->tensors[t] : NULL;
}

static int rtype_of_file(const rknn_tensor *t)
{
    const char *n = rknn_dtype_name(t->dtype);
    if (!n)
        return RKNN_TENSOR_INT8;
    if (!strcmp(n, "uint8"))
        return RKNN_TENSOR_UINT8;
    if (!strcmp(n, "int16"))
        return RKNN_TENSOR_INT16;
    if (!strcmp(n, "float16"))
        return RKNN_TENSOR_FLOAT16;
    if (!strcmp(n, "float32"))
        return RKNN_TENSOR_FLOAT32;
    return RKNN_TENSOR_INT8;
}

static int is_affine(const rknn_tensor *t)
{
    int rt = rtype_of_file(t);
    return t->has_quant && (rt == RKNN_TENSOR_INT8 || rt == RKNN_TENSOR_UINT8 ||
                            rt == RKNN_TENSOR_INT16);
}

void api_vendor_free(api_vendor *v)
{
    if (!v)
        return;
    for (int i = 0; v->in && i < v->m->n_io; i++)
        free(v->in[i]);
    free(v->in);
    free(v->in_set);
    free(v->in_dims);
    free(v->in_io);
    free(v->out_io);
    if (v->has_res)
        emu_result_free(&v->res);
    rknn_model_free(v->m);
    free(v);
}

static int64_t elems4(const int64_t *d)
{
    return d[0] * d[1] * d[2] * d[3];
}

int api_vendor_load(api_ctx *c)
{
    char err[1024];
    const char *why = NULL;
    rknn_model *m = NULL;
    api_vendor *v;

    if (rknn_model_parse(c->model_buf, c->model_len, c->model_path ? c->model_path : "model",
                         &m, err, sizeof(err))) {
        API_E("rknn_init, a vendor-compiled .rknn model that cannot be read: %s", err);
        return RKNN_ERR_MODEL_INVALID;
    }
    if (!emu_exec_supported(m, &why)) {
        API_E("rknn_init, vendor-compiled .rknn for %s (%s): not run by the NPU emulator: %s",
              m->target ? m->target : "an unknown chip", rknn_container_name(m->container), why);
        rknn_model_free(m);
        return RKNN_ERR_MODEL_INVALID;
    }
    v = xcalloc(1, sizeof(*v));
    v->m = m;
    v->in_io = xcalloc((size_t)m->n_io + 1, sizeof(int));
    v->out_io = xcalloc((size_t)m->n_io + 1, sizeof(int));
    v->in_dims = xcalloc((size_t)m->n_io + 1, sizeof(*v->in_dims));
    v->in = xcalloc((size_t)m->n_io + 1, sizeof(float *));
    v->in_set = xcalloc((size_t)m->n_io + 1, sizeof(int));
    c->vendor = v;
    c->n_in = c->n_out = 0;
    for (int i = 0; i < m->n_io; i++) {
        const rknn_tensor *t = io_tensor(v, i);
        if (m->io[i].is_output) {
            v->out_io[c->n_out++] = i;
            continue;
        }
        if (!t || t->nd != 4) {
            API_E("rknn_init, vendor .rknn input %s is not a 4-D tensor: the NPU emulator "
                  "takes 4-D inputs only", m->io[i].name);
            return RKNN_ERR_MODEL_INVALID;
        }
        memcpy(v->in_dims[c->n_in], t->shape, sizeof(v->in_dims[0]));
        v->in_io[c->n_in++] = i;
    }
    /* a task the emulator does not understand stops rknn_run with its reason
     * (task, registers): found there, not by a whole trial frame at init */
    for (int i = 0; i < c->n_in; i++)
        v->in[i] = xcalloc((size_t)elems4(v->in_dims[i]), sizeof(float));
    API_I("RKNN Model Information, version: %d, toolkit version: %s, target: %s, target "
          "platform: %s (vendor .rknn, run by the NPU emulator)", m->model_version,
          m->toolkit ? m->toolkit : "unknown", m->npu_gen ? m->npu_gen : "unknown",
          m->target ? m->target : "unknown");
    return RKNN_SUCC;
}

static void attr_dims(rknn_tensor_attr *a, int n, const int64_t *d)
{
    a->n_dims = (uint32_t)n;
    a->n_elems = 1;
    for (int i = 0; i < n && i < RKNN_MAX_DIMS; i++) {
        a->dims[i] = (uint32_t)d[i];
        a->n_elems *= (uint32_t)d[i];
    }
}

static size_t rtype_bytes(int rt)
{
    return rt == RKNN_TENSOR_FLOAT32 ? 4 : rt == RKNN_TENSOR_FLOAT16 || rt == RKNN_TENSOR_INT16 ? 2 : 1;
}

/* RKNN_QUERY_INPUT_ATTR / OUTPUT_ATTR from the file's tensor table: inputs NHWC
 * (the file's input layout), outputs NCHW, int8 AFFINE with the file's zp/scale */
static int fill_attr(const api_ctx *c, int is_in, rknn_tensor_attr *a)
{
    const api_vendor *v = c->vendor;
    uint32_t index = a->index;
    int n = is_in ? c->n_in : c->n_out;

    if (index >= (uint32_t)n) {
        API_E("rknn_query, %s, p_attr->index(%u) >= %s_num(%d)!",
              is_in ? "RKNN_QUERY_INPUT_ATTR" : "RKNN_QUERY_OUTPUT_ATTR", index,
              is_in ? "input" : "output", n);
        return RKNN_ERR_PARAM_INVALID;
    }
    const rknn_io *io = &v->m->io[is_in ? v->in_io[index] : v->out_io[index]];
    const rknn_tensor *t = io_tensor(v, (int)(io - v->m->io));
    memset(a, 0, sizeof(*a));
    a->index = index;
    snprintf(a->name, sizeof(a->name), "%s", io->name);
    if (!t)
        return RKNN_SUCC;
    a->type = (rknn_tensor_type)rtype_of_file(t);
    a->qnt_type = is_affine(t) ? RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC : RKNN_TENSOR_QNT_NONE;
    a->zp = is_affine(t) ? (int32_t)t->zero_point : 0;
    a->scale = is_affine(t) ? (float)t->scale : 1.0f;
    if (t->nd == 4 && is_in) {
        int64_t d[4] = {t->shape[0], t->shape[2], t->shape[3], t->shape[1]};
        attr_dims(a, 4, d);
        a->fmt = RKNN_TENSOR_NHWC;
        a->w_stride = (uint32_t)t->shape[3];
    } else {
        attr_dims(a, t->nd, t->shape);
        a->fmt = t->nd == 4 ? RKNN_TENSOR_NCHW : RKNN_TENSOR_UNDEFINED;
    }
    a->size = (uint32_t)(a->n_elems * rtype_bytes(a->type));
    a->size_with_stride = a->size;
    return RKNN_SUCC;
}

int api_vendor_query(api_ctx *c, int cmd, void *info)
{
    switch (cmd) {
    case RKNN_QUERY_IN_OUT_NUM: {
        rknn_input_output_num *n = info;
        n->n_input = (uint32_t)c->n_in;
        n->n_output = (uint32_t)c->n_out;
        return RKNN_SUCC;
    }
    case RKNN_QUERY_INPUT_ATTR:
    case RKNN_QUERY_CURRENT_INPUT_ATTR:
        return fill_attr(c, 1, info);
    case RKNN_QUERY_OUTPUT_ATTR:
    case RKNN_QUERY_CURRENT_OUTPUT_ATTR:
        return fill_attr(c, 0, info);
    case RKNN_QUERY_SDK_VERSION: {
        rknn_sdk_version *s = info;
        memset(s, 0, sizeof(*s));
        snprintf(s->api_version, sizeof(s->api_version), "%s", API_VERSION);
        snprintf(s->drv_version, sizeof(s->drv_version), "%s", API_DRV_VERSION);
        return RKNN_SUCC;
    }
    default:
        API_E("rknn_query, cmd %d on a vendor .rknn run by the NPU emulator: only "
              "IN_OUT_NUM, INPUT_ATTR, OUTPUT_ATTR, CURRENT_INPUT/OUTPUT_ATTR and SDK_VERSION "
              "are answered", cmd);
        return RKNN_ERR_PARAM_INVALID;
    }
}

static double rd(const void *p, int64_t i, int t)
{
    switch (t) {
    case RKNN_TENSOR_UINT8: return ((const uint8_t *)p)[i];
    case RKNN_TENSOR_INT8: return ((const int8_t *)p)[i];
    case RKNN_TENSOR_FLOAT16: return rt_f16_to_f32(((const uint16_t *)p)[i]);
    default: return ((const float *)p)[i];
    }
}

static int input_set_one(api_ctx *c, const rknn_input *in)
{
    api_vendor *v = c->vendor;
    const int64_t *d = v->in_dims[in->index];
    int64_t n = elems4(d), C = d[1], H = d[2], W = d[3];
    size_t need;

    if (in->pass_through) {
        API_E("rknn_inputs_set, inputs[%u].pass_through = 1 on a vendor .rknn run by the NPU "
              "emulator: pass the values (uint8/int8/float16/float32, NHWC or NCHW) with "
              "pass_through = 0", in->index);
        return RKNN_ERR_INPUT_INVALID;
    }
    if (in->type != RKNN_TENSOR_UINT8 && in->type != RKNN_TENSOR_INT8 &&
        in->type != RKNN_TENSOR_FLOAT16 && in->type != RKNN_TENSOR_FLOAT32) {
        API_E("rknn_inputs_set, inputs[%u].type = %s: a vendor .rknn run by the NPU emulator "
              "takes UINT8, INT8, FLOAT16 or FLOAT32", in->index, get_type_string(in->type));
        return RKNN_ERR_INPUT_INVALID;
    }
    if (in->fmt != RKNN_TENSOR_NHWC && in->fmt != RKNN_TENSOR_NCHW) {
        API_E("rknn_inputs_set, inputs[%u].fmt = %s: a vendor .rknn run by the NPU emulator "
              "takes NHWC or NCHW", in->index, get_format_string(in->fmt));
        return RKNN_ERR_INPUT_INVALID;
    }
    need = (size_t)n * rtype_bytes(in->type);
    if (in->size < need) {
        API_E("rknn_inputs_set, param input size(%u) < model input size(%zu): input %u '%s' "
              "[%lld,%lld,%lld,%lld] as %s %s", in->size, need, in->index,
              v->m->io[v->in_io[in->index]].name, (long long)d[0], (long long)C, (long long)H,
              (long long)W, get_type_string(in->type), get_format_string(in->fmt));
        return RKNN_ERR_INPUT_INVALID;
    }
    float *dst = v->in[in->index];
    for (int64_t b = 0; b < d[0]; b++)
        for (int64_t ch = 0; ch < C; ch++)
            for (int64_t y = 0; y < H; y++)
                for (int64_t x = 0; x < W; x++) {
                    int64_t o = ((b * C + ch) * H + y) * W + x;
                    int64_t s = in->fmt == RKNN_TENSOR_NCHW ? o : ((b * H + y) * W + x) * C + ch;
                    dst[o] = (float)rd(in->buf, s, in->type);
                }
    v->in_set[in->index] = 1;
    return RKNN_SUCC;
}

int api_vendor_inputs_set(api_ctx *c, uint32_t n_inputs, const rknn_input *inputs)
{
    for (uint32_t i = 0; i < n_inputs; i++) {
        int ret = input_set_one(c, &inputs[i]);
        if (ret)
            return ret;
    }
    return RKNN_SUCC;
}

int api_vendor_run(api_ctx *c)
{
    api_vendor *v = c->vendor;
    char err[1024];
    double t0 = rt_now_us();

    for (int i = 0; i < c->n_in; i++)
        if (!v->in_set[i] && !c->warned_unset) {
            API_W("rknn_run, input %d '%s' was never set: it runs as zeros", i,
                  v->m->io[v->in_io[i]].name);
            c->warned_unset = 1;
        }
    if (v->has_res) {
        emu_result_free(&v->res);
        v->has_res = 0;
    }
    if (emu_exec(v->m, c->model_buf, c->model_len, (const float *const *)v->in, c->n_in, NULL,
                 &v->res, err, sizeof(err))) {
        API_E("rknn_run, the NPU emulator stopped: %s", err);
        c->ran = 0;
        return RKNN_ERR_FAIL;
    }
    v->has_res = 1;
    c->ran = 1;
    c->frame_id++;
    c->last_run_us = c->perf_run_us = (int64_t)(rt_now_us() - t0);
    return RKNN_SUCC;
}

/* the emulator's output j for API output index */
static int res_index(const api_vendor *v, uint32_t index)
{
    const char *name = v->m->io[v->out_io[index]].name;
    for (int j = 0; j < v->res.n_out; j++)
        if (v->res.out_names[j] && !strcmp(v->res.out_names[j], name))
            return j;
    return (int)index < v->res.n_out ? (int)index : -1;
}

int api_vendor_outputs_get(api_ctx *c, uint32_t n_outputs, rknn_output *outputs)
{
    api_vendor *v = c->vendor;

    for (uint32_t i = 0; i < n_outputs; i++) {
        rknn_output *o = &outputs[i];
        if (o->index >= (uint32_t)c->n_out) {
            API_E("rknn_outputs_get, param output index(%u) is out of range(%d)", o->index,
                  c->n_out);
            return RKNN_ERR_OUTPUT_INVALID;
        }
        int j = res_index(v, o->index);
        const rknn_tensor *t = io_tensor(v, v->out_io[o->index]);
        if (!o->want_float && !(t && is_affine(t) && rtype_of_file(t) == RKNN_TENSOR_INT8)) {
            API_E("rknn_outputs_get, outputs[%u].want_float = 0: output %u is not int8 in the "
                  "file; ask for floats (want_float = 1)", i, o->index);
            return RKNN_ERR_OUTPUT_INVALID;
        }
        if (j < 0) {
            API_E("rknn_outputs_get, output %u has no result from the NPU emulator", o->index);
            return RKNN_ERR_OUTPUT_INVALID;
        }
        size_t need = (size_t)elems4(v->res.out_dims[j]) * (o->want_float ? 4 : 1);
        if (o->is_prealloc && (!o->buf || o->size < need)) {
            API_E("rknn_outputs_get, outputs[%u] is_prealloc: buf %s, size %u < %zu needed "
                  "(want_float=%d)", i, o->buf ? "given" : "NULL", o->size, need, o->want_float);
            return RKNN_ERR_OUTPUT_INVALID;
        }
    }
    for (uint32_t i = 0; i < n_outputs; i++) {
        rknn_output *o = &outputs[i];
        int j = res_index(v, o->index);
        int64_t n = elems4(v->res.out_dims[j]);
        size_t need = (size_t)n * (o->want_float ? 4 : 1);
        const float *src = v->res.out[j];
        if (!o->is_prealloc)
            api_output_alloc(c, o, need);
        if (o->want_float) {
            memcpy(o->buf, src, need);
            continue;
        }
        /* the int8 grid the tasks computed on: the values are (q - zp) * scale */
        const rknn_tensor *t = io_tensor(v, v->out_io[o->index]);
        double s = t && is_affine(t) && t->scale > 0 ? t->scale : 1.0;
        int64_t zp = t && is_affine(t) ? t->zero_point : 0;
        int8_t *dst = o->buf;
        for (int64_t k = 0; k < n; k++) {
            double q = nearbyint((double)src[k] / s) + (double)zp;
            dst[k] = (int8_t)(q < -128 ? -128 : q > 127 ? 127 : q);
        }
    }
    return RKNN_SUCC;
}
