/* cli/cmd_inspect.c — `rknn-trace inspect FILE [--json]`: what a vendor .rknn
 * container holds (runtime/model/rknn_file.h), without running anything. */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "cli/opt.h"
#include "runtime/emu/emu.h"
#include "runtime/model/rknn_file.h"
#include "util/escape.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct inspect_opts {
    int json, tasks;
} inspect_opts;

#define CLI_OPTS_T inspect_opts
static const cli_opt inspect_options[] = {
    CLI_OPT_FLAG("--json", 0, json, "one JSON document on stdout"),
    CLI_OPT_FLAG("--tasks", 0, tasks,
                 "also the compiled NPU tasks, decoded from their register writes\n"
                 "(op, geometry, addresses, precision, output chain; checked against\n"
                 "the graph; decode only, nothing is executed)"),
    CLI_OPT_END};
#undef CLI_OPTS_T

const cli_spec cli_spec_inspect = {
    "inspect",
    "usage: rknn-trace inspect FILE.rknn [--json] [--tasks]\n"
    "Shows what a vendor-compiled .rknn holds: target, toolkit and compiler versions,\n"
    "inputs/outputs (dtype, layout, original and native shape, quantization,\n"
    "mean/std), the compiled node list (fused op types, FullName, CPU/NPU,\n"
    "parameters) and counts per op type and target.\n",
    inspect_options, NULL};

/* Counting op types in first-seen order (a model has a few dozen at most). */
typedef struct op_count {
    const char *op;
    int n;
} op_count;

static int count_ops(const rknn_model *m, op_count **out)
{
    op_count *c = xcalloc((size_t)m->n_nodes + 1, sizeof(*c));
    int n = 0;

    for (int i = 0; i < m->n_nodes; i++) {
        int k;
        for (k = 0; k < n && strcmp(c[k].op, m->nodes[i].type); k++)
            ;
        if (k == n)
            c[n++].op = m->nodes[i].type;
        c[k].n++;
    }
    *out = c;
    return n;
}

static const char *io_dtype(const rknn_model *m, const rknn_io *io)
{
    const rknn_tensor *t = io->tensor >= 0 ? &m->tensors[io->tensor] : NULL;
    if (io->native_dtype[0])
        return io->native_dtype;
    if (t && t->dtype_name[0])
        return t->dtype_name;
    return t ? rknn_dtype_name(t->dtype) : "?";
}

static void print_nums(FILE *f, const char *label, const double *v, int n)
{
    if (!n)
        return;
    fprintf(f, " %s [", label);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%g", i ? "," : "", v[i]);
    fputc(']', f);
}

static void print_io_text(const rknn_model *m, FILE *f)
{
    char a[160], b[320];

    for (int pass = 0; pass < 2; pass++) {
        fprintf(f, "%s:\n", pass ? "outputs" : "inputs");
        for (int i = 0; i < m->n_io; i++) {
            const rknn_io *io = &m->io[i];
            const rknn_tensor *t = &m->tensors[io->tensor];
            if (io->is_output != pass)
                continue;
            fprintf(f, "  %-12s %-8s layout %s", io->name[0] ? io->name : "(unnamed)",
                    io_dtype(m, io), io->native_layout[0] ? io->native_layout : "?");
            if (io->layout[0])
                fprintf(f, " (framework %s)", io->layout);
            fprintf(f, " shape %s", store_format_shape(a, sizeof(a), t->nd, t->shape));
            if (t->nnd)
                fprintf(f, " native %s", store_format_shape(b, sizeof(b), t->nnd, t->native));
            if (t->has_quant)
                fprintf(f, " scale %.9g zp %lld", t->scale, (long long)t->zero_point);
            if (t->has_quant && !isnan(t->min) && (t->min != 0 || t->max != 0))
                fprintf(f, " range [%g,%g]", t->min, t->max);
            if (t->qmethod[0])
                fprintf(f, " (%s)", t->qmethod);
            print_nums(f, "mean", io->mean, io->n_mean);
            print_nums(f, "std", io->std, io->n_std);
            if (io->n_reorder) {
                fputs(" reorder [", f);
                for (int k = 0; k < io->n_reorder; k++)
                    fprintf(f, "%s%d", k ? "," : "", io->reorder[k]);
                fputc(']', f);
            }
            if (io->rgb2bgr >= 0)
                fprintf(f, " rgb2bgr %s", io->rgb2bgr ? "yes" : "no");
            fputc('\n', f);
        }
    }
}

static void node_params_text(const rknn_node *n, char *buf, size_t len)
{
    char a[64];
    size_t o = 0;

    buf[0] = '\0';
    if (n->n_kernel)
        o += (size_t)snprintf(buf + o, len - o, "kernel %s ", store_format_shape(a, sizeof(a), n->n_kernel, n->kernel));
    if (n->n_stride && o < len)
        o += (size_t)snprintf(buf + o, len - o, "stride %s ", store_format_shape(a, sizeof(a), n->n_stride, n->stride));
    if (n->n_pad && o < len)
        o += (size_t)snprintf(buf + o, len - o, "pad %s ", store_format_shape(a, sizeof(a), n->n_pad, n->pad));
    if (n->n_dilation && o < len)
        o += (size_t)snprintf(buf + o, len - o, "dilation %s ", store_format_shape(a, sizeof(a), n->n_dilation, n->dilation));
    if (n->auto_pad[0] && strcmp(n->auto_pad, "NOTSET") && o < len)
        o += (size_t)snprintf(buf + o, len - o, "auto_pad %s ", n->auto_pad);
    if (n->mode[0] && o < len)
        o += (size_t)snprintf(buf + o, len - o, "mode %s ", n->mode);
    if (n->coord_mode[0] && o < len)
        o += (size_t)snprintf(buf + o, len - o, "coord %s ", n->coord_mode);
    if (n->has_axis && o < len)
        snprintf(buf + o, len - o, "axis %lld ", (long long)n->axis);
}

static void print_text(const char *path, const rknn_model *m, FILE *f)
{
    op_count *oc = NULL;
    int nop, per_tgt[3] = {0, 0, 0};
    char params[256], a[160];

    fprintf(f, "file: %s\ncontainer: %s", path, rknn_container_name(m->container));
    if (m->container == RKNN_C_ENCRYPTED || m->container == RKNN_C_RKNX) {
        fprintf(f, "\n%s\n", m->container == RKNN_C_ENCRYPTED
                ? "encrypted model (rknn.export_encrypted_rknn_model): only the board runtime can "
                  "decrypt it; inspect the unencrypted .rknn instead"
                : "RKNN3 model for RK182x coprocessors: not an RKNPU2 model; not decoded");
        return;
    }
    fprintf(f, ", version 0x%llx; model data %llu bytes at %zu, JSON %llu bytes, %zu bytes after\n",
            (unsigned long long)m->version, (unsigned long long)m->data_size, m->data_off,
            (unsigned long long)m->json_size, m->extra_bytes);
    fprintf(f, "target: %s", m->target ? m->target : m->fb_target ? m->fb_target : "(not stated)");
    if (m->npu_gen)
        fprintf(f, " (%s)", m->npu_gen);
    fprintf(f, "\ntoolkit: %s\n", m->toolkit ? m->toolkit : "?");
    if (m->compiler)
        fprintf(f, "compiler: %s (code %d)\n", m->compiler, m->compiler_code);
    if (m->model_version >= 0)
        fprintf(f, "model version: %d\n", m->model_version);
    fprintf(f, "framework: %s", m->framework ? m->framework : "?");
    if (m->ori_framework && (!m->framework || strcmp(m->ori_framework, m->framework)))
        fprintf(f, " (converted from %s)", m->ori_framework);
    fputc('\n', f);
    if (m->infer_type)
        fprintf(f, "inference: %s\n", m->infer_type);
    if (m->container == RKNN_C_TK2_FB)
        fprintf(f, "dynamic shapes: %s\n", m->dyn_json ? m->dyn_json : "none");
    if (m->n_tilings) {
        fputs("tilings: tasks start [", f);
        for (int k = 0; k < m->n_tilings; k++)
            fprintf(f, "%s%u", k ? "," : "", m->tiling_start[k]);
        fputs("] (one core first; --emulate runs that one)\n", f);
    }
    print_io_text(m, f);
    if (m->json_pre)
        fprintf(f, "preprocessing (JSON): %s\n", m->json_pre);
    switch (m->container) {
    case RKNN_C_LITE:
        fprintf(f, "%stask table: %u NPU tasks, %llu register writes; header words %u %u %u %u %u %u\n",
                m->lite_graph ? "" : "graph: not decoded (no FlatBuffer config section found)\n",
                m->lite_tasks, (unsigned long long)m->lite_regcfg_total, m->lite_words[0], m->lite_words[1],
                m->lite_words[2], m->lite_words[3], m->lite_words[4], m->lite_words[5]);
        if (!m->lite_graph)
            return;
        break;
    case RKNN_C_VPMN:
        fprintf(f, "graph: OpenVX NBG v%d.%d '%s', %d node%s (NPU machine code, not decoded)\n",
                m->nbg_major, m->nbg_minor, m->nbg_name, m->nbg_nodes, m->nbg_nodes == 1 ? "" : "s");
        return;
    case RKNN_C_JSON_ONLY:
        fprintf(f, "graph (JSON, %d node%s):", m->n_tk1_ops, m->n_tk1_ops == 1 ? "" : "s");
        for (int i = 0; i < m->n_tk1_ops; i++)
            fprintf(f, " %s", m->tk1_ops[i]);
        fputc('\n', f);
        return;
    case RKNN_C_UNKNOWN_DATA:
        fprintf(f, "graph: model data of an unknown kind\n");
        return;
    }
    fprintf(f, "nodes (%d, %d tensors):\n  %4s %-18s %-4s %-40s %-28s %s\n", m->n_nodes,
            m->n_tensors, "id", "op", "on", "FullName", "output shape", "parameters");
    for (int i = 0; i < m->n_nodes; i++) {
        const rknn_node *n = &m->nodes[i];
        const rknn_tensor *o = n->n_out ? &m->tensors[n->out[0]] : NULL;
        node_params_text(n, params, sizeof(params));
        fprintf(f, "  %4d %-18s %-4s %-40s %-28s %s\n", i + 1, n->type, rknn_target_name(n->target),
                n->name, o ? store_format_shape(a, sizeof(a), o->nd, o->shape) : "-", params);
        per_tgt[n->target]++;
    }
    nop = count_ops(m, &oc);
    fputs("per op type:", f);
    for (int k = 0; k < nop; k++)
        fprintf(f, " %s %d%s", oc[k].op, oc[k].n, k + 1 < nop ? "," : "");
    fprintf(f, "\nper target: NPU %d, CPU %d", per_tgt[RKNN_TGT_NPU], per_tgt[RKNN_TGT_CPU]);
    if (per_tgt[RKNN_TGT_GPU])
        fprintf(f, ", GPU %d", per_tgt[RKNN_TGT_GPU]);
    fputc('\n', f);
    free(oc);
}

static void json_shape(json_writer *w, int nd, const int64_t *d)
{
    json_arr_open(w);
    for (int i = 0; i < nd; i++)
        json_int(w, d[i]);
    json_arr_close(w);
}

static void json_nums(json_writer *w, const double *v, int n)
{
    json_arr_open(w);
    for (int i = 0; i < n; i++)
        json_num(w, v[i]);
    json_arr_close(w);
}

/* The "inputs" (pass 0) or "outputs" (pass 1) list. */
static void json_io_list(json_writer *w, const rknn_model *m, int pass)
{
    json_key(w, pass ? "outputs" : "inputs");
    json_arr_open(w);
    for (int i = 0; i < m->n_io; i++) {
        const rknn_io *io = &m->io[i];
        const rknn_tensor *t = &m->tensors[io->tensor];
        if (io->is_output != pass)
            continue;
        json_obj_open(w);
        json_key(w, "name");
        json_str(w, io->name);
        json_key(w, "dtype");
        json_str(w, io_dtype(m, io));
        json_key(w, "layout");
        json_str(w, io->native_layout[0] ? io->native_layout : NULL);
        json_key(w, "framework_layout");
        json_str(w, io->layout[0] ? io->layout : NULL);
        json_key(w, "shape");
        json_shape(w, t->nd, t->shape);
        json_key(w, "native_shape");
        json_shape(w, t->nnd, t->native);
        json_key(w, "qmethod");
        json_str(w, t->qmethod[0] ? t->qmethod : NULL);
        json_key(w, "scale");
        if (t->has_quant)
            json_num(w, t->scale);
        else
            json_write_null(w);
        json_key(w, "zero_point");
        if (t->has_quant)
            json_int(w, t->zero_point);
        else
            json_write_null(w);
        json_key(w, "mean");
        json_nums(w, io->mean, io->n_mean);
        json_key(w, "std");
        json_nums(w, io->std, io->n_std);
        json_key(w, "reorder");
        json_arr_open(w);
        for (int k = 0; k < io->n_reorder; k++)
            json_int(w, io->reorder[k]);
        json_arr_close(w);
        json_obj_close(w);
    }
    json_arr_close(w);
}

/* One compiled node (id: its 1-based position). */
static void json_node(json_writer *w, const rknn_model *m, const rknn_node *n, int i)
{
    json_obj_open(w);
    json_key(w, "id");
    json_int(w, i + 1);
    json_key(w, "op");
    json_str(w, n->type);
    json_key(w, "name");
    json_str(w, n->name);
    json_key(w, "target");
    json_str(w, rknn_target_name(n->target));
    for (int io = 0; io < 2; io++) {
        json_key(w, io ? "outputs" : "inputs");
        json_arr_open(w);
        for (int k = 0; k < (io ? n->n_out : n->n_in); k++) {
            const rknn_tensor *t = &m->tensors[io ? n->out[k] : n->in[k]];
            json_obj_open(w);
            json_key(w, "name");
            json_str(w, t->name);
            json_key(w, "dtype");
            json_str(w, rknn_dtype_name(t->dtype));
            json_key(w, "shape");
            json_shape(w, t->nd, t->shape);
            json_key(w, "native_shape");
            json_shape(w, t->nnd, t->native);
            if (t->has_quant) { /* the tensor's own grid (an activation's, per tensor) */
                json_key(w, "scale");
                json_num(w, t->scale);
                json_key(w, "zero_point");
                json_int(w, t->zero_point);
            }
            if (t->data_off >= 0) {
                json_key(w, "data_offset");
                json_int(w, t->data_off);
                json_key(w, "data_bytes");
                json_int(w, t->data_len);
            }
            json_obj_close(w);
        }
        json_arr_close(w);
    }
    if (n->n_kernel) {
        json_key(w, "kernel");
        json_shape(w, n->n_kernel, n->kernel);
    }
    if (n->n_stride) {
        json_key(w, "stride");
        json_shape(w, n->n_stride, n->stride);
    }
    if (n->n_pad) {
        json_key(w, "pad");
        json_shape(w, n->n_pad, n->pad);
    }
    if (n->n_dilation) {
        json_key(w, "dilation");
        json_shape(w, n->n_dilation, n->dilation);
    }
    if (n->mode[0]) {
        json_key(w, "mode");
        json_str(w, n->mode);
    }
    if (n->coord_mode[0]) {
        json_key(w, "coord_mode");
        json_str(w, n->coord_mode);
    }
    if (n->has_axis) {
        json_key(w, "axis");
        json_int(w, n->axis);
    }
    if (n->tasks >= 0) {
        json_key(w, "tasks");
        json_int(w, n->tasks);
    }
    json_obj_close(w);
}

/* "op_counts" and "target_counts". */
static void json_counts(json_writer *w, const rknn_model *m)
{
    op_count *oc = NULL;
    int nop, per_tgt[3] = {0, 0, 0};

    for (int i = 0; i < m->n_nodes; i++)
        per_tgt[m->nodes[i].target]++;
    nop = count_ops(m, &oc);
    json_key(w, "op_counts");
    json_obj_open(w);
    for (int k = 0; k < nop; k++) {
        json_key(w, oc[k].op);
        json_int(w, oc[k].n);
    }
    json_obj_close(w);
    json_key(w, "target_counts");
    json_obj_open(w);
    json_key(w, "NPU");
    json_int(w, per_tgt[RKNN_TGT_NPU]);
    json_key(w, "CPU");
    json_int(w, per_tgt[RKNN_TGT_CPU]);
    json_key(w, "GPU");
    json_int(w, per_tgt[RKNN_TGT_GPU]);
    json_obj_close(w);
    free(oc);
}

static void print_json(const char *path, const rknn_model *m, const emu_program *tasks, FILE *f)
{
    json_writer w;

    json_begin(&w, f);
    json_obj_open(&w);
    json_key(&w, "schema");
    json_int(&w, 1);
    json_key(&w, "file");
    json_str(&w, path);
    json_key(&w, "container");
    json_str(&w, rknn_container_name(m->container));
    json_key(&w, "encrypted");
    json_bool(&w, m->container == RKNN_C_ENCRYPTED);
    json_key(&w, "container_version");
    json_int(&w, (int64_t)m->version);
    json_key(&w, "target");
    json_str(&w, m->target ? m->target : m->fb_target);
    json_key(&w, "npu");
    json_str(&w, m->npu_gen);
    json_key(&w, "toolkit");
    json_str(&w, m->toolkit);
    json_key(&w, "compiler");
    json_str(&w, m->compiler);
    json_key(&w, "compiler_code");
    if (m->compiler_code >= 0)
        json_int(&w, m->compiler_code);
    else
        json_write_null(&w);
    json_key(&w, "model_version");
    if (m->model_version >= 0)
        json_int(&w, m->model_version);
    else
        json_write_null(&w);
    json_key(&w, "framework");
    json_str(&w, m->framework);
    json_key(&w, "inference");
    json_str(&w, m->infer_type);
    json_key(&w, "dynamic_shapes");
    if (m->dyn_json)
        json_raw(&w, m->dyn_json);
    else
        json_write_null(&w);
    json_key(&w, "tiling_starts");
    json_arr_open(&w);
    for (int k = 0; k < m->n_tilings; k++)
        json_int(&w, m->tiling_start[k]);
    json_arr_close(&w);
    json_io_list(&w, m, 0);
    json_io_list(&w, m, 1);
    if (m->container == RKNN_C_LITE) {
        json_key(&w, "lite");
        json_obj_open(&w);
        json_key(&w, "tasks");
        json_int(&w, m->lite_tasks);
        json_key(&w, "register_writes");
        json_int(&w, (int64_t)m->lite_regcfg_total);
        json_key(&w, "graph_decoded");
        json_bool(&w, m->lite_graph);
        json_obj_close(&w);
    }
    if (m->container == RKNN_C_VPMN) {
        json_key(&w, "nbg");
        json_obj_open(&w);
        json_key(&w, "version");
        json_int(&w, m->nbg_major);
        json_key(&w, "name");
        json_str(&w, m->nbg_name);
        json_key(&w, "nodes");
        json_int(&w, m->nbg_nodes);
        json_obj_close(&w);
    }
    json_key(&w, "preprocessing");
    if (m->json_pre)
        json_raw(&w, m->json_pre);
    else
        json_write_null(&w);
    if (m->n_tk1_ops && m->container != RKNN_C_TK2_FB) {
        json_key(&w, "json_ops");
        json_arr_open(&w);
        for (int i = 0; i < m->n_tk1_ops; i++)
            json_str(&w, m->tk1_ops[i]);
        json_arr_close(&w);
    }
    json_key(&w, "tensors");
    json_int(&w, m->container == RKNN_C_TK2_FB || m->lite_graph ? m->n_tensors : 0);
    json_key(&w, "nodes");
    json_arr_open(&w);
    for (int i = 0; i < m->n_nodes; i++)
        json_node(&w, m, &m->nodes[i], i);
    json_arr_close(&w);
    json_counts(&w, m);
    if (tasks)
        inspect_tasks_json(&w, m, tasks);
    json_obj_close(&w);
    json_end(&w);
}

/* The text, every name in it from the file: the whole text through
 * ESC_TERM_LINES (its own lines kept, no control byte of the file's). */
static void print_text_escaped(const char *path, const rknn_model *m, const emu_program *tasks)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&text, &len);

    if (mf) {
        print_text(path, m, mf);
        if (tasks)
            inspect_tasks_text(mf, m, tasks);
        fclose(mf);
        esc_fput(stdout, ESC_TERM_LINES, text);
    } else {
        print_text(path, m, stdout);
        if (tasks)
            inspect_tasks_text(stdout, m, tasks);
    }
    free(text);
}

int cmd_inspect(int argc, char **argv)
{
    inspect_opts o = {0};
    const char *path;
    int n = cli_parse(&cli_spec_inspect, argc, argv, &o), rc;
    rknn_model *m = NULL;
    emu_program tasks = {0};
    char err[512];

    if (n < 0)
        return n == CLI_PARSE_HELP ? EXIT_OK : EXIT_USAGE;
    if (n > 1) {
        cli_error("inspect: more than one model given ('%s', '%s')", argv[1], argv[2]);
        return EXIT_USAGE;
    }
    if (!n) {
        cli_help(&cli_spec_inspect, stderr);
        return EXIT_USAGE;
    }
    path = argv[1];
    rc = rknn_model_read(path, &m, err, sizeof(err));
    if (rc) {
        cli_error("%s", err);
        return cli_exit_code(rc);
    }
    if (o.tasks && (rc = inspect_tasks_load(path, m, &tasks, err, sizeof(err)))) {
        cli_error("%s: %s", path, err);
        rknn_model_free(m);
        return cli_exit_code(rc);
    }
    if (o.json)
        print_json(path, m, o.tasks ? &tasks : NULL, stdout);
    else
        print_text_escaped(path, m, o.tasks ? &tasks : NULL);
    emu_program_free(&tasks);
    rknn_model_free(m);
    return EXIT_OK;
}
