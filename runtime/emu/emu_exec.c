/* runtime/emu/emu_exec.c — runs a vendor file's decoded NPU tasks over one
 * buffer per graph tensor, in the NPU's integer arithmetic (emu.h). What it
 * does not understand stops the run with the task, its node and the reason. */
#include "runtime/emu/emu_internal.h"
#include "dump/dump.h"
#include "runtime/model/model.h"
#include "runtime/model/rknn_file.h"
#include "util/outfile.h"
#include "util/util.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int emu_write_json(const char *dir, const char *name, json_t *doc, size_t flags, char *err,
                   size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = doc ? json_dumps(doc, flags) : NULL;
    if (!text)
        return rt_err(err, errlen, RT_ENOMEM, "%s: out of memory", path);
    int rc = outfile_write(path, text, strlen(text), 0, err, errlen);
    free(text);
    return rc;
}

int emu_write_stopped(const char *dir, int map, const uint32_t *val, const uint8_t *set, int task,
                      int node, const char *node_name, const char *lut, const char *reason,
                      char *err, size_t errlen)
{
    json_t *regs = json_array();
    for (int a = 0; regs && a < 0x10000 / 4; a++) {
        if (!set[a])
            continue;
        char hex[16];
        snprintf(hex, sizeof hex, "0x%04x", a * 4);
        json_array_append_new(regs, json_pack("{s:s, s:s?, s:I}", "addr", hex, "name",
                                              emu_reg_name(map, (uint16_t)(a * 4)), "value",
                                              (json_int_t)val[a]));
    }
    /* names are the file's bytes: json_text keeps one that is not UTF-8 */
    json_t *doc = json_pack("{s:i, s:i, s:o, s:o, s:o, s:o?}", "task", task, "node", node,
                            "node_name", json_text(node_name), "lut", json_text(lut), "reason",
                            json_text(reason), "registers", regs);
    int rc = emu_write_json(dir, "stopped_task.json", doc, JSON_INDENT(1), err, errlen);
    json_decref(doc);
    return rc;
}

/* Why input i cannot start the tasks, into why; 0 when it can. The tasks
 * compute on int8 or float16 activations (the SDK's custom-op demo,
 * dual_residual_custom.rknn, is float16). */
static int input_refused(const rknn_model *m, int i, char *why, size_t n)
{
    const rknn_io *io = &m->io[i];
    const rknn_tensor *t = io->tensor >= 0 && io->tensor < m->n_tensors
                               ? &m->tensors[io->tensor] : NULL;
    const char *name = io->name ? io->name : "?";
    if (!t) {
        snprintf(why, n, "input '%s' names no tensor of the file", name);
        return 1;
    }
    const char *dt = rknn_dtype_name(t->dtype);
    char dims[96] = "";
    size_t k = 0;
    for (int d = 0; d < t->nd && k + 24 < sizeof(dims); d++)
        k += (size_t)snprintf(dims + k, sizeof(dims) - k, "%s%lld", d ? "," : "",
                              (long long)t->shape[d]);
    const char *what = NULL;
    if (t->nd != 4 && !flat_2d(t))
        what = "is not of 4 dims (or [1, C])";
    else if (t->dtype == DT_FLOAT16 && t->has_quant)
        what = "is a quantized float16";
    else if (t->dtype != DT_FLOAT16 && (!t->has_quant || t->scale <= 0))
        what = t->dtype == DT_INT8 || t->dtype == DT_UINT8 ? "has no quantization"
                                                            : "is neither int8 nor float16";
    if (!what)
        return 0;
    snprintf(why, n, "input '%s' (%s [%s]) %s: the NPU tasks start from quantized int8 or "
             "float16 activations of 4 dims (or [1, C])", name, dt ? dt : "unknown dtype", dims,
             what);
    return 1;
}

int emu_exec_supported(const rknn_model *m, char *why, size_t n)
{
    const char *tg = m->target ? m->target : m->fb_target;
    int map = tg ? emu_map_for_target(tg) : EMU_MAP_NONE;
    const char *no = NULL;
    if (m->container == RKNN_C_LITE) {
        if (map != EMU_MAP_RV110X)
            no = "a lite file for a chip other than rv1103/rv1106";
    } else if (m->container != RKNN_C_TK2_FB) {
        no = "no compiled NPU tasks of a known kind";
    } else if (map != EMU_MAP_RK3588 && map != EMU_MAP_RK356X && !emu_layout_known(map)) {
        no = "the chip's register layout is not decoded";
    } else {
        /* every input is known at once, before any task runs */
        for (int i = 0; i < m->n_io; i++)
            if (!m->io[i].is_output && input_refused(m, i, why, n))
                return 0;
    }
    snprintf(why, n, "%s", no ? no : "");
    return !no;
}

/* Registers the map does not name whose non-zero values the emulator ignores:
 * on rk3566/rk3568 the block at 0x2000 (its S_POINTER 0x2004 = 0xe like every
 * block's, 0x200c = 1), CNA 0x1018 (0x24000 on the first task), DPU_RDMA
 * 0x5024 (0xf) and 0x503c (0x1fff8 on a ConvAdd). Ignoring them reproduces the
 * source model on multiple_input_demo.rk3566 (tests/cli/emulate.sh); every
 * other non-zero unnamed register stops the run. */
static int ignored_raw(int map, uint16_t addr)
{
    static const uint16_t rk356x[] = {0x2004, 0x200c, 0x1018, 0x5024, 0x503c};
    if (map == EMU_MAP_RK356X)
        for (size_t i = 0; i < sizeof(rk356x) / sizeof(rk356x[0]); i++)
            if (rk356x[i] == addr)
                return 1;
    return 0;
}

/* float NCHW of a written activation, dequantized with its tensor's quantization */
static float *dequant(const rknn_tensor *t, const act *a)
{
    float *f = malloc(sizeof(float) * (size_t)a->c * a->h * a->w);
    if (!f)
        return NULL;
    for (int c = 0; c < a->c; c++)
        for (int y = 0; y < a->h; y++)
            for (int x = 0; x < a->w; x++)
                f[((int64_t)c * a->h + y) * a->w + x] = act_value(t, a, act_off(a, c, y, x));
    return f;
}

/* 1 when the activation's values can be read as floats (int8 with a quantization,
 * or float16) */
static int readable(const rknn_tensor *t, const act *a)
{
    return a->es == 2 || t->has_quant;
}

void emu_dump_path(char *buf, size_t n, const char *dir, const char *name)
{
    size_t k = (size_t)snprintf(buf, n, "%s/", dir);
    for (const char *s = name; *s && k + 5 < n; s++)
        buf[k++] = (*s == '/' || *s == '\\' || *s == ':') ? '_' : *s;
    snprintf(buf + k, n - k, ".npy");
}

/* DIR/task_NNNN_<tensor>.npy (the rows task ti wrote, dequantized) and its
 * DIR/tasks.json entry */
static int index_task(const rknn_model *m, emu_mem *mem, int ti, const emu_task *t, int node,
                      int out_t, const int *rows, const char *dump_dir, json_t *index, char *err,
                      size_t errlen)
{
    const rknn_tensor *ot = &m->tensors[out_t];
    const char *tn = ot->name ? ot->name : "tensor";
    char name[512], path[4096];
    act a;
    snprintf(name, sizeof(name), "task_%04d_%s", ti, tn);
    emu_dump_path(path, sizeof(path), dump_dir, name);
    if (act_of(ot, mem, out_t, &a) == 0 && readable(ot, &a)) {
        int h = rows[1] - rows[0];
        float *f = malloc(sizeof(float) * (size_t)a.c * (size_t)(h > 0 ? h : 1) * a.w);
        int64_t dims[4] = {act_batch(ot), a.c / act_batch(ot), h, a.w};
        if (!f)
            return rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
        for (int c = 0; c < a.c; c++)
            for (int y = 0; y < h; y++)
                for (int x = 0; x < a.w; x++)
                    f[((int64_t)c * h + y) * a.w + x] = act_value(ot, &a, act_off(&a, c, rows[0] + y, x));
        int rc = npy_write(path, DT_FLOAT, 4, dims, f, err, errlen);
        free(f);
        if (rc)
            return rc;
    }
    /* names are the file's bytes: json_text keeps an entry whose name is not UTF-8 */
    json_array_append_new(index, json_pack("{s:i, s:o, s:s, s:o, s:[i,i], s:o}", "task", ti, "node",
                                           json_text(node_name(m, node)), "op",
                                           emu_op_name(t->op), "tensor", json_text(tn), "rows",
                                           rows[0], rows[1], "file",
                                           json_text(strrchr(path, '/') + 1)));
    return RT_OK;
}

int emu_result_alloc(const rknn_model *m, emu_result *res, char *err, size_t errlen)
{
    for (int i = 0; i < m->n_io; i++)
        res->n_out += m->io[i].is_output;
    res->out_names = calloc((size_t)res->n_out + 1, sizeof(char *));
    res->out = calloc((size_t)res->n_out + 1, sizeof(float *));
    res->out_dims = calloc((size_t)res->n_out + 1, sizeof(*res->out_dims));
    if (!res->out_names || !res->out || !res->out_dims)
        return rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
    return RT_OK;
}

void emu_result_free(emu_result *r)
{
    for (int i = 0; i < r->n_out; i++) {
        free(r->out_names ? r->out_names[i] : NULL);
        free(r->out ? r->out[i] : NULL);
    }
    free(r->out_names);
    free(r->out);
    free(r->out_dims);
    memset(r, 0, sizeof(*r));
}

/* Every tensor a task or the input wrote, dequantized, as DIR/<name>.npy, and
 * DIR/tasks.json (which rows each computed task wrote). */
static int dump_computed(const rknn_model *m, emu_mem *mem, const char *dump_dir, json_t *index,
                         char *err, size_t errlen)
{
    int rc;
    for (int i = 0; i < m->n_tensors; i++) {
        const rknn_tensor *t = &m->tensors[i];
        act a;
        char path[4096];
        if (!mem->written[i])
            continue;
        emu_dump_path(path, sizeof(path), dump_dir, t->name ? t->name : "tensor");
        if (mem->fbuf[i]) { /* a CPU layer's output: its shape */
            int64_t dims[8];
            for (int d = 0; d < t->nd && d < 8; d++)
                dims[d] = t->shape[d];
            if ((rc = npy_write(path, DT_FLOAT, t->nd < 8 ? t->nd : 8, dims, mem->fbuf[i], err,
                                errlen)))
                return rc;
            continue;
        }
        if (act_of(t, mem, i, &a) || !readable(t, &a))
            continue;
        float *f = dequant(t, &a);
        int64_t dims[4] = {act_batch(t), a.c / act_batch(t), a.h, a.w};
        if (!f)
            return rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
        rc = npy_write(path, DT_FLOAT, flat_2d(t) ? 2 : 4, dims, f, err, errlen); /* [1, C] */
        free(f);
        if (rc)
            return rc;
    }
    return emu_write_json(dump_dir, "tasks.json", index, JSON_COMPACT, err, errlen);
}

/* 1 for a node the CPU computes in the emulated frame: placed on the CPU and not an
 * Input/OutputOperator (the runtime's own conversions, done here at the ends) */
static int cpu_layer(const rknn_node *nd)
{
    return nd->target == RKNN_TGT_CPU && nd->type && strcmp(nd->type, "InputOperator") &&
           strcmp(nd->type, "OutputOperator");
}

/* a task whose writes upload both LUT tables, each whole (emu_lut) */
static int lut_upload(const emu_stream *s)
{
    emu_lut l = {0};
    for (int r = 0; r < s->n_regs; r++)
        emu_lut_take(&l, s->regs[r].addr, s->regs[r].value);
    return l.n_le == LUT_N && l.n_lo == LUT_N;
}

/* v as the tensor's type stores it: a quantized int8/uint8/int16 value on its grid
 * (rounded half away from zero and saturated, as act_store quantizes), a float16
 * one rounded; other types as they are */
static float as_stored(const rknn_tensor *t, float v)
{
    if (t->dtype == DT_FLOAT16)
        return rt_f16_to_f32(rt_f32_to_f16(v));
    if ((t->dtype == DT_INT8 || t->dtype == DT_UINT8 || t->dtype == DT_INT16) && t->has_quant &&
        t->scale > 0 && isfinite(v)) {
        double lo = t->dtype == DT_INT8 ? -128 : t->dtype == DT_UINT8 ? 0 : -32768;
        double hi = t->dtype == DT_INT8 ? 127 : t->dtype == DT_UINT8 ? 255 : 32767;
        double q = llround(fmax(fmin(v / t->scale, 1e9), -1e9)) + (double)t->zero_point;
        q = q < lo ? lo : q > hi ? hi : q;
        return (float)((q - (double)t->zero_point) * t->scale);
    }
    return v;
}

/* The CPU layers before graph node upto that have not run (*next: the first of
 * them), through the chain over the caller's hook (emu_cpu.c: custom ops through
 * cpu, the built-in types there): the inputs they read as float NCHW, their outputs
 * stored in the tensors' native buffers (quantized / float16) or as floats
 * (mem->fbuf) on the tensor's type's values (as_stored). */
static int run_cpu_layers(const rknn_model *m, emu_mem *mem, int upto, int *next,
                          emu_cpu_hook *cpu, char *err, size_t errlen)
{
    emu_cpu_chain chain;
    emu_cpu_hook *h = emu_cpu_chain_init(&chain, cpu);
    for (; *next < upto && *next < m->n_nodes; (*next)++) {
        const rknn_node *nd = &m->nodes[*next];
        int ni = *next, rc = 0, n_in = nd->n_in, n_out = nd->n_out;
        if (!cpu_layer(nd))
            continue;
        if (!emu_cpu_runs(&chain, m, ni))
            return emu_cpu_refuse(m, ni, err, errlen);
        float **in = calloc((size_t)n_in + 1, sizeof(float *));
        float **out = calloc((size_t)n_out + 1, sizeof(float *));
        if (!in || !out) {
            free(in);
            free(out);
            return rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
        }
        for (int k = 0; k < n_in && !rc; k++) {
            const rknn_tensor *t = &m->tensors[nd->in[k]];
            int64_t n = rknn_tensor_elems(t);
            act a;
            if (!h->reads(h, m, ni, k))
                continue;
            if (!mem->written[nd->in[k]])
                rc = rt_err(err, errlen, RT_EUNSUPPORTED, "node %d (%s %s): input %s was not "
                            "computed before it", ni + 1, nd->type, nd->name, t->name);
            else if (mem->fbuf[nd->in[k]]) {
                if ((in[k] = malloc(sizeof(float) * (size_t)n)))
                    memcpy(in[k], mem->fbuf[nd->in[k]], sizeof(float) * (size_t)n);
            } else if (act_of(t, mem, nd->in[k], &a) || !readable(t, &a))
                rc = rt_err(err, errlen, RT_EUNSUPPORTED, "node %d (%s %s): input %s is not an "
                            "activation the emulator holds", ni + 1, nd->type, nd->name, t->name);
            else if (n != (int64_t)a.c * a.h * a.w) /* a batch beyond 1 */
                rc = rt_err(err, errlen, RT_EUNSUPPORTED, "node %d (%s %s): input %s holds "
                            "%lld values, its shape %lld", ni + 1, nd->type, nd->name, t->name,
                            (long long)a.c * a.h * a.w, (long long)n);
            else
                in[k] = dequant(t, &a);
            if (!rc && !in[k])
                rc = rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
        }
        for (int k = 0; k < n_out && !rc; k++) {
            int64_t n = rknn_tensor_elems(&m->tensors[nd->out[k]]);
            if (n < 0)
                rc = rt_err(err, errlen, RT_EUNSUPPORTED, "node %d (%s %s): output %s has no "
                            "shape", ni + 1, nd->type, nd->name, m->tensors[nd->out[k]].name);
            else if (!(out[k] = calloc((size_t)n + 1, sizeof(float))))
                rc = rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
        }
        if (!rc)
            rc = h->run(h, m, ni, (const float *const *)in, out, err, errlen);
        for (int k = 0; k < n_out && !rc; k++) {
            int oi = nd->out[k];
            const rknn_tensor *t = &m->tensors[oi];
            act a;
            if (act_of(t, mem, oi, &a) == 0 && readable(t, &a)) {
                for (int c = 0; c < a.c; c++)
                    for (int y = 0; y < a.h; y++)
                        for (int x = 0; x < a.w; x++)
                            act_store(t, &a, act_off(&a, c, y, x),
                                      out[k][((int64_t)c * a.h + y) * a.w + x]);
            } else {
                for (int64_t i = 0, n = rknn_tensor_elems(t); i < n; i++)
                    out[k][i] = as_stored(t, out[k][i]);
                free(mem->fbuf[oi]);
                mem->fbuf[oi] = out[k];
                out[k] = NULL;
            }
            mem->written[oi] = 1;
        }
        for (int k = 0; k < n_in; k++)
            free(in[k]);
        for (int k = 0; k < n_out; k++)
            free(out[k]);
        free(in);
        free(out);
        if (rc)
            return rc;
    }
    return RT_OK;
}

/* the task-less layers before graph node upto, in graph order: views, CPU layers */
static int run_between(const rknn_model *m, const emu_program *prog, emu_mem *mem, int upto,
                       int *next_view, int *next_cpu, emu_cpu_hook *cpu, char *err, size_t errlen)
{
    int rc = RT_OK;
    for (int k = *next_view < *next_cpu ? *next_view : *next_cpu; k < upto && !rc; k++)
        if (!(rc = emu_run_views(m, prog, mem, k + 1, next_view, err, errlen)))
            rc = run_cpu_layers(m, mem, k + 1, next_cpu, cpu, err, errlen);
    return rc;
}

int emu_fb_exec(const rknn_model *m, const uint8_t *file, size_t len, const emu_program *prog,
                const float *const *inputs, int n_inputs, const char *dump_dir,
                emu_cpu_hook *cpu, emu_result *res, char *err, size_t errlen)
{
    int next_cpu = 0; /* the first graph node whose CPU layer has not run */
    int next_view = 0; /* and whose task-less view (emu_view.c) */
    emu_task *tasks = NULL;
    regstate *rs = NULL;
    emu_mem mem = {0};
    int rc = 0, k = 0, cur = -1; /* cur: the task being run */
    /* DIR/tasks.json: which rows of which tensor each computed task wrote, so that a
     * tensor differing from the source model points at its tasks */
    json_t *index = dump_dir ? json_array() : NULL;

    memset(res, 0, sizeof(*res));
    int unbound = prog->source != EMU_SRC_FB_TASKS && prog->source != EMU_SRC_FB_BLOBS;
    for (int i = 0; !unbound && i < prog->n_tasks; i++)
        unbound = prog->tasks[i].node < 0; /* a model-1 blob no node's task list names */
    if (unbound) {
        rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                    "not emulated: %s: tasks without graph node indices cannot be bound to tensors",
                    emu_source_name(prog->source));
        goto out;
    }
    tasks = calloc((size_t)prog->n_tasks + 1, sizeof(*tasks));
    rs = calloc(1, sizeof(*rs));
    mem.buf = calloc((size_t)m->n_tensors + 1, sizeof(*mem.buf));
    mem.fbuf = calloc((size_t)m->n_tensors + 1, sizeof(*mem.fbuf));
    mem.bytes = calloc((size_t)m->n_tensors + 1, sizeof(*mem.bytes));
    mem.written = calloc((size_t)m->n_tensors + 1, 1);
    mem.ew_delta = calloc((size_t)m->n_nodes + 1, sizeof(*mem.ew_delta));
    mem.ew_seen = calloc((size_t)m->n_nodes + 1, 1);
    if (!tasks || !rs || !mem.buf || !mem.fbuf || !mem.bytes || !mem.written || !mem.ew_delta || !mem.ew_seen) {
        rc = rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
        goto out;
    }
    emu_program_decode(prog, tasks);
    /* one buffer per activation tensor, its native bytes */
    for (int i = 0; i < m->n_tensors; i++) {
        const rknn_tensor *t = &m->tensors[i];
        if (t->data_off >= 0 || !t->native || (t->nnd != 5 && !flat_2d(t)))
            continue;
        int64_t n = tensor_es(t);
        for (int d = 0; d < t->nnd; d++)
            n *= t->native[d] > 0 ? t->native[d] : 1;
        if (n <= 0 || n > ((int64_t)1 << 31) || !(mem.buf[i] = calloc((size_t)n, 1))) {
            rc = rt_err(err, errlen, RT_ENOMEM, "emulate: tensor %s: %lld bytes", t->name,
                        (long long)n);
            goto out;
        }
        mem.bytes[i] = n;
    }
    /* inputs as rknn_inputs_set takes them: float, (x - mean) / std, quantized */
    for (int i = 0; i < m->n_io; i++) {
        const rknn_io *io = &m->io[i];
        act a;
        if (io->is_output)
            continue;
        if (k >= n_inputs || io->tensor < 0 || act_of(&m->tensors[io->tensor], &mem, io->tensor, &a) ||
            (a.es == 1 && (!m->tensors[io->tensor].has_quant || m->tensors[io->tensor].scale <= 0))) {
            rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                        "emulate: input %s: not a quantized or float16 activation of 4 dims "
                        "or [1, C] (or not given)", io->name);
            goto out;
        }
        for (int r = 0; r < io->n_reorder; r++)
            if (io->reorder[r] != r) {
                rc = rt_err(err, errlen, RT_EUNSUPPORTED, "emulate: input %s: channel reorder",
                            io->name);
                goto out;
            }
        const rknn_tensor *t = &m->tensors[io->tensor];
        for (int c = 0; c < a.c; c++) {
            double mean = c < io->n_mean ? io->mean[c] : 0, sd = c < io->n_std ? io->std[c] : 1;
            for (int y = 0; y < a.h; y++)
                for (int x = 0; x < a.w; x++) {
                    double v = (inputs[k][((int64_t)c * a.h + y) * a.w + x] - mean) / sd;
                    act_store(t, &a, act_off(&a, c, y, x), v);
                }
        }
        mem.written[io->tensor] = 1;
        k++;
    }
    /* the tasks, in the file's order */
    for (int i = 0; i < prog->n_tasks; i++) {
        const emu_stream *s = &prog->tasks[i];
        const emu_task *t = &tasks[i];
        int g = i & 1;
        cur = i;
        for (int r = 0; r < s->n_regs; r++) {
            rs->val[g][s->regs[r].addr / 4] = s->regs[r].value;
            rs->set[g][s->regs[r].addr / 4] = 1;
        }
        if (s->node < 0 || s->node >= m->n_nodes) {
            rc = rt_err(err, errlen, RT_EUNSUPPORTED, "task %d: no graph node index", i);
            goto out;
        }
        const rknn_node *nd = &m->nodes[s->node];
        if ((rc = run_between(m, prog, &mem, s->node, &next_view, &next_cpu, cpu, err, errlen))) {
            cur = -1;
            goto out;
        }
        if (nd->type && !strcmp(nd->type, "OutputOperator")) {
            res->tasks_output_op++; /* reformatting for the CPU: done below from its input */
            continue;
        }
        int rows[2] = {0, 0}, out_t = nd->n_out ? nd->out[0] : -1;
        emu_step st = {.m = m, .ti = i, .node = s->node, .grp = g, .rs = rs, .st = s, .nd = nd,
                       .nn = node_name(m, s->node), .mem = &mem, .rows = rows, .err = err,
                       .errlen = errlen};
        /* an exSDPAttention's tasks (float16 matmuls, transposes, an exp LUT) are not
         * decoded: they stop the run, or the node is computed from its meaning */
        if (nd->type && !strcmp(nd->type, "exSDPAttention")) {
            if (!emu_attn_float_on()) {
                rc = rt_err(err, errlen, RT_EUNSUPPORTED, "task %d (node %s): an "
                            "exSDPAttention's tasks are not decoded (RKNN_TRACE_EMU_ATTN=float "
                            "computes the node from its meaning in float64 instead)", i,
                            node_name(m, s->node));
                goto out;
            }
            if ((out_t < 0 || !mem.written[out_t]) &&
                (rc = emu_run_attn_float(m, &mem, s->node, err, errlen)))
                goto out;
            res->tasks_float++;
            continue;
        }
        /* a DPU-only task that uploads the LUT (toolkit 2.3.0 writes one before each
         * LUT conv on rk3588, its stages bypassed and a 1x1 output): its tables are
         * kept for the convs after it, nothing else is computed */
        if (t->op == EMU_OP_ELTWISE && lut_upload(s)) {
            for (int r = 0; r < s->n_regs; r++)
                emu_lut_take(&mem.lut, s->regs[r].addr, s->regs[r].value);
            res->tasks_lut++;
            continue;
        }
        if (t->op == EMU_OP_POOL) {
            /* one pixel copied onto itself (4 per ConvAdd on rk3588): changes nothing when its
             * source and destination are the same buffer; anything else stops */
            if (t->pool_kw == 1 && t->pool_kh == 1 && t->pool_sx == 1 && t->pool_sy == 1 &&
                t->pool_in_w == 1 && t->pool_in_h == 1 && t->pool_out_w == 1 && t->pool_out_h == 1 &&
                t->pool_src_addr == t->pool_dst_addr) {
                res->tasks_copy++;
                continue;
            }
            /* MaxPool; rk3576's AveragePool (its PPU words read off the vendor's files) */
            if (nd->type && (!strcmp(nd->type, "MaxPool") ||
                             (t->map == EMU_MAP_F2 && !strcmp(nd->type, "AveragePool")))) {
                if ((rc = emu_run_pool(&st, t)))
                    goto out;
                res->tasks_run++;
                if (index && (rc = index_task(m, &mem, i, t, s->node, nd->out[0], rows, dump_dir,
                                              index, err, errlen)))
                    goto out;
                continue;
            }
            rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                        "task %d (node %s): pooling (method %d kernel %dx%d stride %dx%d in %dx%dx%d) "
                        "is not emulated", i, node_name(m, s->node), t->pool_method, t->pool_kw,
                        t->pool_kh, t->pool_sx, t->pool_sy, t->pool_in_w, t->pool_in_h, t->pool_in_c);
            goto out;
        }
        if (emu_layout_known(prog->map)) {
            /* the register state the task runs with (its writes and what earlier
             * tasks of its group left): each decoded, left aside or a sample's value */
            int form = t->in_prec == 2 && t->proc_prec == 2 ? EMU_WORDS_FP16
                       : t->op == EMU_OP_ELTWISE && reg_or0(rs, g, 0x400c) == 5 ? EMU_WORDS_DPU
                                                                                : EMU_WORDS_INT8;
            for (int r = 0; r < 0x10000 / 4; r++) {
                uint16_t a = (uint16_t)(4 * r);
                if (!rs->set[g][r] || emu_layout_check(prog->map, a, rs->val[g][r], form))
                    continue;
                rc = rt_err(err, errlen, RT_EUNSUPPORTED, "task %d (node %s): register 0x%04x = 0x%08x: %s",
                            i, node_name(m, s->node), a, rs->val[g][r],
                            emu_reg_name(prog->map, a) ? "a value the sample files do not write (not decoded)"
                                                      : "not in the chip's register table");
                goto out;
            }
        } else if (t->n_unknown > EMU_MAX_UNKNOWN) {
            rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                        "task %d (node %s): %d registers not in the map", i, node_name(m, s->node),
                        t->n_unknown);
            goto out;
        }
        if (t->n_unknown > 0) {
            for (int u = 0; u < t->n_unknown; u++)
                if (t->unknown_val[u] != 0 && !ignored_raw(prog->map, t->unknown_addr[u])) {
                    rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                                "task %d (node %s): register 0x%04x = 0x%08x has no known meaning",
                                i, node_name(m, s->node), t->unknown_addr[u], t->unknown_val[u]);
                    goto out;
                }
        }
        if (t->op == EMU_OP_ELTWISE && (!strcmp(nd->type, "Split") || !strcmp(nd->type, "Concat"))) {
            if ((rc = emu_run_copy(&st, t)))
                goto out;
            out_t = mem.copy_out;
        } else if (emu_resize_linear(nd, t)) {
            if ((rc = emu_run_resize_linear(&st, t, file, len)))
                goto out;
        } else if (t->op == EMU_OP_ELTWISE && !strcmp(nd->type, "Resize")) {
            if ((rc = emu_run_resize(&st, t)))
                goto out;
        } else if (t->op == EMU_OP_ELTWISE && emu_view_type(nd->type)) {
            if ((rc = emu_run_view_copy(&st, t)))
                goto out;
        } else if (t->op == EMU_OP_ELTWISE && t->map == EMU_MAP_F2 &&
                   (nd->n_in == 1 || !strcmp(nd->type, "Clip"))) { /* an activation alone */
            if ((rc = emu_run_f2_dpu_act(&st, t, file, len)))
                goto out;
        } else if (t->op == EMU_OP_ELTWISE && t->map == EMU_MAP_F2 && nd->n_in == 2) {
            if ((rc = emu_run_f2_ew(&st, t, file, len)))
                goto out;
        } else if (t->op == EMU_OP_ELTWISE && (!strcmp(nd->type, "Add") || !strcmp(nd->type, "AddRelu"))) {
            if ((rc = emu_run_add(&st, t)))
                goto out;
        } else if (t->op == EMU_OP_DEPTHWISE) {
            if ((rc = t->map == EMU_MAP_RK3588 ? emu_run_dw_rk3588(&st, t, file, len)
                                               : emu_run_dw(&st, t, file, len)))
                goto out;
        } else if ((rc = emu_run_conv(&st, t, file, len, s->lut))) {
            goto out;
        }
        res->tasks_run++;
        if (index && (rc = index_task(m, &mem, i, t, s->node, out_t, rows, dump_dir, index, err,
                                      errlen)))
            goto out;
    }
    cur = -1;
    if ((rc = run_between(m, prog, &mem, m->n_nodes, &next_view, &next_cpu, cpu, err, errlen)))
        goto out;
    /* outputs: dequantized NCHW from the output tensors (the CPU's OutputOperator) */
    if ((rc = emu_result_alloc(m, res, err, errlen)))
        goto out;
    k = 0;
    for (int i = 0; i < m->n_io; i++) {
        const rknn_io *io = &m->io[i];
        act a;
        if (!io->is_output)
            continue;
        if (io->tensor >= 0 && mem.fbuf[io->tensor]) { /* a CPU layer's: its shape, as 4-D */
            const rknn_tensor *t = &m->tensors[io->tensor];
            int64_t n = rknn_tensor_elems(t);
            res->out_names[k] = strdup(io->name ? io->name : "");
            res->out[k] = malloc(sizeof(float) * (size_t)n);
            if (!res->out_names[k] || !res->out[k] || t->nd > 4) {
                rc = rt_err(err, errlen, t->nd > 4 ? RT_EUNSUPPORTED : RT_ENOMEM,
                            "emulate: output %s: %s", io->name,
                            t->nd > 4 ? "more than 4 dims" : "out of memory");
                goto out;
            }
            memcpy(res->out[k], mem.fbuf[io->tensor], sizeof(float) * (size_t)n);
            for (int d = 0; d < 4; d++)
                res->out_dims[k][d] = d < 4 - t->nd ? 1 : t->shape[d - (4 - t->nd)];
            k++;
            continue;
        }
        if (io->tensor < 0 || act_of(&m->tensors[io->tensor], &mem, io->tensor, &a) ||
            !mem.written[io->tensor]) {
            rc = rt_err(err, errlen, RT_EUNSUPPORTED, "emulate: output %s was not computed",
                        io->name);
            goto out;
        }
        res->out_names[k] = strdup(io->name ? io->name : "");
        res->out[k] = dequant(&m->tensors[io->tensor], &a);
        if (!res->out_names[k] || !res->out[k]) {
            rc = rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
            goto out;
        }
        res->out_dims[k][0] = act_batch(&m->tensors[io->tensor]);
        res->out_dims[k][1] = a.c / act_batch(&m->tensors[io->tensor]);
        res->out_dims[k][2] = a.h;
        res->out_dims[k][3] = a.w;
        if (flat_2d(&m->tensors[io->tensor])) { /* [1, C] as a CPU layer's: front-padded */
            res->out_dims[k][1] = res->out_dims[k][2] = 1;
            res->out_dims[k][3] = a.c;
        }
        k++;
    }
    /* every computed tensor, dequantized, by its graph name */
    if (dump_dir && (rc = dump_computed(m, &mem, dump_dir, index, err, errlen)))
        goto out;
out:
    if (rc == RT_EUNSUPPORTED && cur >= 0) {
        /* a task stopped the run: what ran before it is dumped, with the task's registers */
        char msg[1024];
        const emu_stream *s = &prog->tasks[cur];
        snprintf(msg, sizeof msg, "%s", err);
        if (dump_dir) {
            char e2[512];
            int g = cur & 1;
            const char *lut = s->lut >= 0 ? m->tensors[s->lut].name : NULL;
            if (emu_write_stopped(dump_dir, prog->map, rs->val[g], rs->set[g], cur, s->node,
                                  node_name(m, s->node), lut, msg, e2, sizeof e2) ||
                dump_computed(m, &mem, dump_dir, index, e2, sizeof e2))
                rc = rt_err(err, errlen, RT_EIO, "%s", e2);
            else
                rt_err(err, errlen, RT_EUNSUPPORTED, "%s (%d of %d tasks ran; their tensors and "
                       "stopped_task.json are dumped)", msg, cur, prog->n_tasks);
        } else {
            rt_err(err, errlen, RT_EUNSUPPORTED, "%s (%d of %d tasks ran)", msg, cur, prog->n_tasks);
        }
    } else if (rc == RT_EUNSUPPORTED && dump_dir && index) {
        /* a CPU layer stopped it: what the tasks computed is still dumped */
        char msg[1024], e2[512];
        snprintf(msg, sizeof msg, "%s", err);
        if (dump_computed(m, &mem, dump_dir, index, e2, sizeof e2))
            rc = rt_err(err, errlen, RT_EIO, "%s", e2);
        else
            rt_err(err, errlen, RT_EUNSUPPORTED, "%s (the tensors computed before it are dumped)",
                   msg);
    }
    json_decref(index);
    if (rc)
        emu_result_free(res);
    for (int i = 0; mem.buf && i < m->n_tensors; i++)
        free(mem.buf[i]);
    for (int i = 0; mem.fbuf && i < m->n_tensors; i++)
        free(mem.fbuf[i]);
    free(mem.buf);
    free(mem.fbuf);
    free(mem.bytes);
    free(mem.written);
    free(mem.ew_delta);
    free(mem.ew_seen);
    free(rs);
    free(tasks);
    return rc;
}

int emu_exec(const rknn_model *m, const uint8_t *file, size_t len, const float *const *inputs,
             int n_inputs, const char *dump_dir, emu_cpu_hook *cpu, emu_result *res, char *err,
             size_t errlen)
{
    emu_program prog = {0};
    char why[320];
    int rc;

    memset(res, 0, sizeof(*res));
    if (!emu_exec_supported(m, why, sizeof(why)))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "not emulated: %s", why);
    if ((rc = emu_program_load(m, file, len, &prog, err, errlen)))
        return rc;
    emu_program_one_core(&prog, m);
    if (prog.source == EMU_SRC_LITE) {
        emu_task *tasks = calloc((size_t)prog.n_tasks + 1, sizeof(*tasks));
        if (!tasks) {
            rc = rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
        } else {
            emu_program_decode(&prog, tasks);
            rc = emu_lite_exec(m, file, len, &prog, tasks, inputs, n_inputs, dump_dir, res, err,
                               errlen);
        }
        free(tasks);
    } else {
        rc = emu_fb_exec(m, file, len, &prog, inputs, n_inputs, dump_dir, cpu, res, err, errlen);
    }
    res->tasks_tiling = prog.n_tasks;
    res->tasks_file = prog.n_file_tasks;
    emu_program_free(&prog);
    return rc;
}
