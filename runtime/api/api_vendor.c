/* runtime/api/api_vendor.c — a vendor-compiled `.rknn` behind the C API: rknn_run
 * executes its NPU tasks through the emulator (runtime/emu, as `rknn-trace run FILE
 * --emulate`); everything else is the context as for any model. Its inputs and
 * outputs become api_io entries over a graph of those tensors alone (the file's
 * names, dtypes, zero points and scales), so that rknn_query (the NATIVE_* attrs
 * too), rknn_create_mem / rknn_set_io_mem and the memory calls are the common
 * ones; its compiled graph is costed by the NPU model (npu_graph_of_rknn) as the
 * context's NPU session: RKNN_QUERY_PERF_RUN / PERF_DETAIL / MEM_SIZE, the level-4
 * table and the NPU load are the predicted board's, as for a `rknn-trace build`
 * container. The SDK's demos query all of these on the SDK's own compiled models
 * (rknn_multiple_input_demo: CUSTOM_STRING; rknn_benchmark: MEM_SIZE; the model
 * zoo's yolov8_zero_copy: NATIVE_INPUT_ATTR/NATIVE_OUTPUT_ATTR and zero-copy
 * memory), and a board answers them.
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
#include "runtime/exec/exec.h"
#include "runtime/model/rknn_file.h"
#include "runtime/npu/npu.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct api_vendor {
    rknn_model *m;
    graph_t *pg;           /* the compiled graph's tensors, for the NPU session's plan */
    int *in_io, *out_io;   /* index into m->io of each API input / output */
    float **in;            /* float NCHW per input, as emu_exec takes it */
    int *cpu_node;         /* per file node: its custom op's node in c->g, -1 none */
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
    free(v->cpu_node);
    free(v->in_io);
    free(v->out_io);
    if (v->has_res)
        emu_result_free(&v->res);
    graph_free(v->pg);
    rknn_model_free(v->m);
    free(v);
}

static int64_t elems4(const int64_t *d)
{
    return d[0] * d[1] * d[2] * d[3];
}

static void io_tables(api_ctx *c);
static void cost_session(api_ctx *c);
static int custom_nodes(api_ctx *c);

int api_vendor_load(api_ctx *c)
{
    char err[1024];
    char why[320];
    rknn_model *m = NULL;
    api_vendor *v;

    if (rknn_model_parse(c->model_buf, c->model_len, c->model_path ? c->model_path : "model",
                         &m, err, sizeof(err))) {
        API_E("rknn_init, a vendor-compiled .rknn model that cannot be read: %s", err);
        return RKNN_ERR_MODEL_INVALID;
    }
    if (!emu_exec_supported(m, why, sizeof(why))) {
        API_E("rknn_init, vendor-compiled .rknn for %s (%s): not run by the NPU emulator: %s",
              m->target ? m->target : "an unknown chip", rknn_container_name(m->container), why);
        rknn_model_free(m);
        return RKNN_ERR_MODEL_INVALID;
    }
    /* the chip the file was compiled for is the one emulated */
    const api_platform *fp = m->target ? api_platform_get(m->target) : NULL;
    if (fp && fp != c->plat && getenv("RKNN_TARGET") && *getenv("RKNN_TARGET"))
        API_W("rknn_init, RKNN_TARGET=%s, but the vendor .rknn was compiled for %s: running it "
              "as %s", getenv("RKNN_TARGET"), fp->name, fp->name);
    if (fp)
        c->plat = fp;
    v = xcalloc(1, sizeof(*v));
    v->m = m;
    v->in_io = xcalloc((size_t)m->n_io + 1, sizeof(int));
    v->out_io = xcalloc((size_t)m->n_io + 1, sizeof(int));
    v->in = xcalloc((size_t)m->n_io + 1, sizeof(float *));
    c->vendor = v;
    c->n_in = c->n_out = 0;
    for (int i = 0; i < m->n_io; i++) {
        const rknn_tensor *t = io_tensor(v, i);
        if (m->io[i].is_output) {
            v->out_io[c->n_out++] = i;
            continue;
        }
        if (!t || (t->nd != 4 && !(t->nd == 2 && t->shape[0] == 1))) {
            API_E("rknn_init, vendor .rknn input %s is neither 4-D nor [1, C]: the NPU "
                  "emulator takes those inputs only", m->io[i].name);
            return RKNN_ERR_MODEL_INVALID;
        }
        v->in_io[c->n_in++] = i;
    }
    /* a task the emulator does not understand stops rknn_run with its reason
     * (task, registers): found there, not by a whole trial frame at init */
    io_tables(c);
    if (custom_nodes(c) != RKNN_SUCC)
        return RKNN_ERR_MODEL_INVALID;
    cost_session(c);
    API_I("RKNN Model Information, version: %d, toolkit version: %s, target: %s, target "
          "platform: %s (vendor .rknn, run by the NPU emulator)", m->model_version,
          m->toolkit ? m->toolkit : "unknown", m->npu_gen ? m->npu_gen : "unknown",
          m->target ? m->target : "unknown");
    return RKNN_SUCC;
}

/* The api_io of the file's io i, over a tensor of c->g named as it: the file's dtype
 * and affine parameters; inputs NCHW (api_fill_attr shows them NHWC, the file's
 * layout). An output whose native shape pads C to 2 x C2, as a conv's output is
 * padded, says so (conv_out): NATIVE_OUTPUT_ATTR then gives the file's C1. */
static void io_entry(api_ctx *c, api_io *a, int i, int is_in)
{
    const api_vendor *v = c->vendor;
    const rknn_tensor *t = io_tensor(v, i);
    tensor_t *gt;
    int k = graph_add_tensor(c->g, v->m->io[i].name);

    gt = &c->g->t[k];
    gt->dtype = DT_FLOAT;
    a->tensor = k;
    a->rtype = t ? rtype_of_file(t) : RKNN_TENSOR_FLOAT32;
    a->affine = t && is_affine(t);
    a->zp = a->affine ? (int32_t)t->zero_point : 0;
    a->scale = a->affine ? (float)t->scale : 1.0f;
    a->ndim = t ? (t->nd < MODEL_MAX_DIMS ? t->nd : MODEL_MAX_DIMS) : 0;
    for (int d = 0; d < a->ndim; d++)
        a->dims[d] = t->shape[d];
    memcpy(a->model_dims, a->dims, sizeof(a->dims));
    gt->ndim = a->ndim;
    memcpy(gt->dims, a->dims, sizeof(gt->dims));
    if (!is_in && t && a->ndim == 4 && t->nnd == 5) {
        int64_t c2 = api_native_c2(c, a->rtype), ch = a->dims[1];
        a->conv_out = t->native[4] == c2 && t->native[1] == (ch + 2 * c2 - 1) / (2 * c2) * 2;
    }
    a->nbytes = (size_t)tensor_numel(gt) * sizeof(float);
}

/* The file's custom ops (CPU layers of a "cst" op type) as custom nodes of c->g,
 * with float32 NCHW tensors of the file's shapes and the file's attributes, so that
 * rknn_register_custom_ops binds the application's callbacks to them as for a
 * built container (api_custom.c), and the emulator calls them in their place in
 * the frame (vendor_cpu_run). */
static int custom_nodes(api_ctx *c)
{
    api_vendor *v = c->vendor;
    char err[512];

    v->cpu_node = xmalloc(sizeof(int) * (size_t)(v->m->n_nodes + 1));
    if (rknn_custom_nodes(v->m, c->model_buf, c->model_len, c->g, v->cpu_node, err, sizeof(err))) {
        API_E("rknn_init, vendor .rknn custom op: %s", err);
        return RKNN_ERR_MODEL_INVALID;
    }
    for (int i = 0; i < v->m->n_nodes; i++)
        if (v->cpu_node[i] >= 0)
            c->g->nodes[v->cpu_node[i]].def = &exec_op_custom;
    return RKNN_SUCC;
}

typedef struct vendor_cpu {
    emu_cpu_hook h;
    api_ctx *c;
} vendor_cpu;

/* The emulator's CPU layer node: the application's compute for a custom op, over
 * the emulator's float buffers (the node's tensors in c->g, borrowed for the call). */
static int vendor_cpu_run(emu_cpu_hook *h, const rknn_model *m, int node, const float *const *in,
                          float *const *out, char *err, size_t errlen)
{
    api_ctx *c = ((vendor_cpu *)h)->c;
    int gi = c->vendor->cpu_node[node], rc;
    node_t *n;
    exec_custom_hook *x;

    if (gi < 0)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node %s (%s) runs on the CPU: the "
                      "emulator runs custom ops (cst*) there, not this op", m->nodes[node].name,
                      m->nodes[node].type);
    n = &c->g->nodes[gi];
    if (!(x = n->priv))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "custom op %s (node %s) has no "
                      "implementation: register op_type \"%s\" with rknn_register_custom_ops "
                      "after rknn_init", n->op, n->name, n->op);
    for (int k = 0; k < n->n_in; k++)
        c->g->t[n->in[k]].data = (void *)in[k];
    for (int k = 0; k < n->n_out; k++)
        c->g->t[n->out[k]].data = out[k];
    rc = x->run(x, c->g, n, err, errlen);
    for (int k = 0; k < n->n_in; k++)
        c->g->t[n->in[k]].data = NULL;
    for (int k = 0; k < n->n_out; k++)
        c->g->t[n->out[k]].data = NULL;
    return rc;
}

/* c->g (the io tensors alone), c->in and c->out; the inputs' data are v->in, the
 * float NCHW buffers emu_exec takes. */
static void io_tables(api_ctx *c)
{
    api_vendor *v = c->vendor;
    size_t io = 0;

    c->g = graph_new();
    c->in = xcalloc((size_t)c->n_in + 1, sizeof(api_io));
    c->out = xcalloc((size_t)c->n_out + 1, sizeof(api_io));
    for (int i = 0; i < c->n_in; i++) {
        io_entry(c, &c->in[i], v->in_io[i], 1);
        c->in[i].data = v->in[i] = xcalloc(c->in[i].nbytes / sizeof(float), sizeof(float));
        c->in[i].pixels = 1; /* the file's mean/std normalise them (emu_exec) */
        io += api_io_bytes(&c->in[i]);
    }
    for (int i = 0; i < c->n_out; i++) {
        io_entry(c, &c->out[i], v->out_io[i], 0);
        io += api_io_bytes(&c->out[i]);
    }
    c->max_io = io;
}

/* The compiled graph on the NPU model as the context's session (no SRAM, the
 * automatic core mask) and the MEM_SIZE figures of its plan; without a session (a
 * chip or a layer the model does not cost) PERF_RUN gives the emulator's host time
 * and MEM_SIZE the file's weight bytes. */
static void cost_session(api_ctx *c)
{
    api_vendor *v = c->vendor;
    const npu_platform_t *np = npu_platform_find(c->plat->name);
    npu_graph_t *ng = NULL;
    char err[512] = "";
    int st = np ? npu_graph_of_rknn(v->m, np, &ng, &v->pg, err, sizeof(err)) : RT_EUNSUPPORTED;

    if (!st) {
        npu_session_opts o = {.plat = np, .dtype = DT_INT8, .context = 1};
        st = npu_session_adopt(ng, v->pg, &o, &c->npu, err, sizeof(err));
    }
    if (st) {
        API_D("no NPU cost model of this vendor .rknn on %s (%s): PERF_RUN gives the "
              "emulator's host time, PERF_DETAIL no table", c->plat->name,
              np ? err : "platform not in runtime/npu");
        c->npu_failed = 1;
    } else {
        API_D("simulated NPU %s: the vendor .rknn's %d compiled layers, model data type %s",
              np->name, c->npu->ng->n, npu_dtype_name(c->npu->ng->dtype));
    }
    if (c->npu && c->npu->ng->mem) {
        c->max_weight = c->npu->ng->mem->weight_size;
        c->max_internal = c->npu->ng->mem->internal_size;
        return;
    }
    for (int i = 0; i < v->m->n_tensors; i++)
        if (rknn_kind_is_const(v->m->tensors[i].kind) && v->m->tensors[i].data_len > 0)
            c->max_weight += (uint64_t)v->m->tensors[i].data_len;
}

int api_vendor_input_check(const api_ctx *c, const rknn_input *in)
{
    /* the RV110x mini runtime has no pass-through (shared/research/rknn-api.md,
     * rknn_inputs_set); the full runtime takes the model's own values */
    if (in->pass_through && c->vendor->m->container == RKNN_C_LITE) {
        API_E("rknn_inputs_set, inputs[%u].pass_through = 1 on an RV1103/RV1106 .rknn: its "
              "runtime (librknnmrt) has no pass-through; pass the image with pass_through = 0",
              in->index);
        return RKNN_ERR_INPUT_INVALID;
    }
    /* any type converts as for every model (api_convert); UNDEFINED is the
     * framework's order, what RKNN_QUERY_INPUT_ATTR gives a tensor that is not
     * 4-D and what clients copy from it (sherpa-onnx sets fmt = attr.fmt) */
    if (!in->pass_through && in->fmt != RKNN_TENSOR_NHWC && in->fmt != RKNN_TENSOR_NCHW &&
        in->fmt != RKNN_TENSOR_UNDEFINED) {
        API_E("rknn_inputs_set, inputs[%u].fmt = %s: a vendor .rknn run by the NPU emulator "
              "takes NHWC, NCHW or UNDEFINED (the framework's order) unless pass_through",
              in->index, get_format_string(in->fmt));
        return RKNN_ERR_INPUT_INVALID;
    }
    return RKNN_SUCC;
}

int api_vendor_input_normalized(const api_ctx *c, const api_io *io, const char *call)
{
    const api_vendor *v = c->vendor;
    const int k = (int)(io - c->in);
    const rknn_io *fio = &v->m->io[v->in_io[k]];

    if (v->m->container == RKNN_C_LITE) { /* its converter reads the image itself */
        API_E("%s, input %d of an RV1103/RV1106 .rknn is bound as the model's quantized values: "
              "bind UINT8 pixels with pass_through = 0, as its runtime (librknnmrt) takes them",
              call, k);
        return RKNN_ERR_INPUT_INVALID;
    }
    if (io->ndim != 4 || !io->data)
        return RKNN_SUCC;
    /* emu_exec takes the values before the file's mean and std, (x - mean) / std,
     * and quantizes them: x = v std + mean gives back the same integers */
    const int64_t N = io->dims[0], C = io->dims[1], plane = io->dims[2] * io->dims[3];
    float *x = io->data;
    for (int64_t n = 0; n < N; n++)
        for (int64_t ch = 0; ch < C; ch++) {
            double mean = ch < fio->n_mean ? fio->mean[ch] : 0, sd = ch < fio->n_std ? fio->std[ch] : 1;
            float *b = x + (n * C + ch) * plane;
            for (int64_t i = 0; i < plane; i++)
                b[i] = (float)(b[i] * sd + mean);
        }
    return RKNN_SUCC;
}

/* The emulator's dump of file tensor ti (emu_dump_path), moved to dir under the
 * vendor's level-5 name: the index and OpType of the compiled layer that wrote it
 * (npu_dump_name), its shape; float32, as the emulator dequantizes. 1 if moved. */
static int dump_move(const api_vendor *v, const npu_layer_t *l, int ti, const char *tmp,
                     const char *dir)
{
    const rknn_tensor *t = &v->m->tensors[ti];
    const char *tn = t->name ? t->name : "tensor";
    char src[1600], name[512], dst[1600];
    npu_shape_t s = {.nd = t->nd < NPU_SHAPE_MAX ? t->nd : NPU_SHAPE_MAX};

    emu_dump_path(src, sizeof(src), tmp, tn);
    for (int d = 0; d < s.nd; d++)
        s.d[d] = t->shape[d];
    if (access(src, F_OK) != 0 ||
        npu_dump_name(name, sizeof(name), l->id - 1, l->optype, tn, &s, "float"))
        return 0;
    snprintf(dst, sizeof(dst), "%s/%s", dir, name);
    API_D("dump npy tensor to: %s", dst);
    if (rename(src, dst) != 0) {
        API_E("failed open dump path: %s (%s)", dst, strerror(errno));
        return 0;
    }
    return 1;
}

/* Level 5 on a vendor file: the emulator dumps every tensor it computed into a
 * folder of its own inside the dump folder; those a compiled layer writes take
 * the vendor's names there, and the rest (per-task rows, tasks.json) goes. */
static void dump_layers(api_ctx *c, const char *tmp, const char *dir)
{
    const api_vendor *v = c->vendor;
    int moved = 0;
    DIR *d;
    struct dirent *e;

    for (int i = 0; c->npu && i < c->npu->ng->n; i++) {
        const npu_layer_t *l = &c->npu->ng->l[i];
        for (int k = 0; k < l->n_out_v; k++)
            if (l->out_v[k] >= 0 && l->out_v[k] < v->m->n_tensors)
                moved += dump_move(v, l, l->out_v[k], tmp, dir);
    }
    if (!c->npu)
        API_W("no level-5 dumps of this vendor .rknn on %s: no NPU model of its layers names "
              "them", c->plat->name);
    API_D("level 5: %d tensors of the emulated frame dumped to %s", moved, dir);
    if ((d = opendir(tmp))) {
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                char p[1600];
                snprintf(p, sizeof(p), "%s/%s", tmp, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(tmp);
}

int api_vendor_run(api_ctx *c, int dump)
{
    api_vendor *v = c->vendor;
    const char *dir = dump ? api_dump_dir() : NULL;
    char err[1024], tmp[1200] = "";

    if (v->has_res) {
        emu_result_free(&v->res);
        v->has_res = 0;
    }
    if (dir && (snprintf(tmp, sizeof(tmp), "%s/.emulated-XXXXXX", dir) >= (int)sizeof(tmp) ||
                !mkdtemp(tmp))) {
        API_E("cannot create a folder in the dump directory %s: %s", dir, strerror(errno));
        tmp[0] = 0;
    }
    vendor_cpu cpu = {.h.run = vendor_cpu_run, .c = c};
    int st = emu_exec(v->m, c->model_buf, c->model_len, (const float *const *)v->in, c->n_in,
                      tmp[0] ? tmp : NULL, &cpu.h, &v->res, err, sizeof(err));
    if (tmp[0])
        dump_layers(c, tmp, dir); /* a stopped run still leaves the layers it computed */
    if (st) {
        API_E("rknn_run, the NPU emulator stopped: %s", err);
        c->ran = 0;
        return RKNN_ERR_FAIL;
    }
    if (v->res.tasks_float > 0)
        API_W("rknn_run, %d NPU tasks not run: their attention nodes computed from their "
              "meaning in float64 (RKNN_TRACE_EMU_ATTN=float), not from the file's tasks",
              v->res.tasks_float);
    v->has_res = 1;
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

const float *api_vendor_output(const api_ctx *c, int i)
{
    const api_vendor *v = c->vendor;
    int j = v->has_res ? res_index(v, (uint32_t)i) : -1;
    return j >= 0 ? v->res.out[j] : NULL;
}

/* Bytes an element of output index in the file's own type, as want_float = 0 returns
 * it ("native quantised / float16 data", shared/research/rknn-api.md §5.7): 1 for
 * int8, 2 for float16; 0 for a type the emulator's results do not stand for */
static size_t raw_bytes(const api_vendor *v, uint32_t index)
{
    const rknn_tensor *t = io_tensor(v, v->out_io[index]);
    if (t && is_affine(t) && rtype_of_file(t) == RKNN_TENSOR_INT8)
        return 1;
    return t && rtype_of_file(t) == RKNN_TENSOR_FLOAT16 ? 2 : 0;
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
        if (!o->want_float && !raw_bytes(v, o->index)) {
            API_E("rknn_outputs_get, outputs[%u].want_float = 0: output %u is neither int8 nor "
                  "float16 in the file; ask for floats (want_float = 1)", i, o->index);
            return RKNN_ERR_OUTPUT_INVALID;
        }
        if (j < 0) {
            API_E("rknn_outputs_get, output %u has no result from the NPU emulator", o->index);
            return RKNN_ERR_OUTPUT_INVALID;
        }
        size_t need = (size_t)elems4(v->res.out_dims[j]) * (o->want_float ? 4 : raw_bytes(v, o->index));
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
        size_t need = (size_t)n * (o->want_float ? 4 : raw_bytes(v, o->index));
        const float *src = v->res.out[j];
        if (!o->is_prealloc)
            api_output_alloc(c, o, need);
        if (o->want_float) {
            memcpy(o->buf, src, need);
            continue;
        }
        if (raw_bytes(v, o->index) == 2) { /* the float16 values the tasks computed */
            uint16_t *h = o->buf;
            for (int64_t k = 0; k < n; k++)
                h[k] = rt_f32_to_f16(src[k]);
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
