/* cli/run_store.c — a finished `run` as the rows the store keeps (built first,
 * so that printing never depends on recording), recorded in one transaction,
 * and printed through the one run summary (analyze/summary.c). */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "cli/run_record.h"
#include "dump/dump.h"
#include "runtime/model/model.h"
#include "runtime/quant/quant.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* JSON list of the shapes of n tensor indices ("null" for an omitted one). */
static char *shapes_json(const graph_t *g, int n, const int *idx)
{
    size_t cap = 64 + (size_t)n * 24 * MODEL_MAX_DIMS, len = 0;
    char *s = xmalloc(cap);
    s[len++] = '[';
    for (int k = 0; k < n; k++) {
        char one[24 * MODEL_MAX_DIMS];
        if (idx[k] >= 0)
            store_format_shape(one, sizeof(one), g->t[idx[k]].ndim, g->t[idx[k]].dims);
        else
            strcpy(one, "null");
        len += (size_t)snprintf(s + len, cap - len, "%s%s", k ? "," : "", one);
    }
    snprintf(s + len, cap - len, "]");
    return s;
}

/* The NPU layer covering node i: every covered node gets its target, OpType
 * and bound; the figures go on the node that produces the layer's output. */
static void set_npu_fields(const npu_graph_t *ng, int i, store_layer *row, char *wl, size_t wlen)
{
    if (!ng || i >= ng->n_nodes || ng->node_layer[i] < 0)
        return;
    const npu_layer_t *l = &ng->l[ng->node_layer[i]];
    row->target = l->target == NPU_TGT_CPU ? "CPU" : "NPU";
    row->npu_op = l->optype;
    row->bound = npu_bound_name(l->bound);
    row->cpu_reason = l->reason;
    if (!l->n_src_nodes || l->src_nodes[l->n_src_nodes - 1] != i)
        return;
    row->npu_cycles = (int64_t)l->npu_cycles;
    row->ddr_cycles = (int64_t)l->ddr_cycles;
    row->total_cycles = (int64_t)l->total_cycles;
    row->time_us = l->time_us;
    row->mac_usage = l->mac_usage[0];
    row->rw_kb = l->rw_kb;
    row->tasks = l->task_number;
    row->sram_hit = l->sram_hit;
    row->frame_us = l->frame_us;
    row->npu_dtype = l->datatype;
    size_t u = 0;
    wl[0] = '\0';
    for (int c = 0; c < ng->plat->cores && u < wlen; c++)
        u += (size_t)snprintf(wl + u, wlen - u, "%s%.0f%%", c ? "/" : "", l->workload[c]);
    row->workload = wl;
}

void run_layer_stats_of(const tensor_t *t, run_layer_stats *s)
{
    int64_t n = t && t->data && t->dtype == DT_FLOAT ? tensor_numel(t) : 0;
    const float *v = n > 0 ? t->data : NULL;
    double lo, hi, sum = 0, dev = 0;

    s->min = s->max = s->mean = s->std = NAN;
    if (!v)
        return;
    lo = hi = v[0];
    for (int64_t i = 0; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
        sum += v[i];
    }
    s->mean = sum / (double)n;
    /* a second pass: sum of squares minus the squared mean cancels badly */
    for (int64_t i = 0; i < n; i++)
        dev += ((double)v[i] - s->mean) * ((double)v[i] - s->mean);
    s->min = lo;
    s->max = hi;
    s->std = sqrt(dev / (double)n);
}

static char *inputs_json(const run_record *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_writer w;
    json_begin(&w, f);
    json_arr_open(&w);
    for (int j = 0; j < r->g->n_inputs; j++) {
        const tensor_t *t = &r->g->t[r->g->inputs[j]];
        char shape[24 * MODEL_MAX_DIMS];
        json_obj_open(&w);
        json_key(&w, "name");
        json_str(&w, t->name);
        json_key(&w, "dtype");
        json_str(&w, dtype_name(t->dtype));
        json_key(&w, "shape");
        json_raw(&w, store_format_shape(shape, sizeof(shape), t->ndim, t->dims));
        json_key(&w, "source");
        if (r->inputs[j].file) {
            json_str(&w, r->inputs[j].file);
        } else {
            char src[64];
            snprintf(src, sizeof(src), "random:uniform01:splitmix64:seed=%lld", r->seed + j);
            json_str(&w, src);
        }
        json_obj_close(&w);
    }
    json_arr_close(&w);
    fclose(f);
    return buf;
}

/* Absolute path of graph output `name`'s file in the run's dump folder. */
static char *output_dump_file(const char *dir, const dump_entry *e, int n, const char *name)
{
    for (int k = 0; k < n; k++) {
        if (e[k].layer < 0 || !e[k].name || strcmp(e[k].name, name))
            continue;
        size_t len = strlen(dir) + strlen(e[k].file) + 2;
        char *path = xmalloc(len);
        snprintf(path, len, "%s/%s", dir, e[k].file);
        return path;
    }
    return NULL;
}

int run_rows_build(run_record *r, run_rows *rows, char *err, size_t errlen)
{
    store_run *info = &rows->run;
    const graph_t *g = r->g;
    void *model_bytes = NULL;
    size_t model_len = 0;
    int rc;

    memset(rows, 0, sizeof(*rows));
    store_run_init(info);
    rc = rt_read_file(r->model, &model_bytes, &model_len, err, errlen);
    if (rc)
        return rc;
    rt_sha256_hex(model_bytes, model_len, r->sha256);
    info->model_format = simmodel_is(model_bytes, model_len) ? "rknn-sim" : "onnx";
    free(model_bytes);

    rt_iso_time(rows->time, sizeof(rows->time));
    info->time = rows->time;
    info->status = "ok";
    info->tool_version = RKNN_TRACE_VERSION;
    info->label = r->label;
    info->model_path = r->model;
    info->model_sha256 = r->sha256;
    info->platform = r->platform;
    info->backend = r->backend;
    info->quant = r->quant;
    if (r->acc && r->acc->type == QT_I8) {
        info->quant_algo = quant_algo_name(r->acc->algo);
        info->quant_method = quant_method_name(r->acc->method);
    }
    info->threads = r->threads;
    info->iterations = r->iters;
    info->seed = r->seed;
    info->inputs_json = rows->inputs_json = inputs_json(r);
    info->total_us = r->median_us;
    info->host_min_us = r->min_us;
    info->host_p90_us = r->p90_us;
    info->host_stddev_us = r->stddev_us;
    info->warmup = r->warmup;
    info->dump_sha256 = r->dump_sha256[0] ? r->dump_sha256 : NULL;
    if (r->dump_dir) {
        /* absolute, for `rknn-trace analyze RUN --golden DIR` from anywhere */
        char *abs = realpath(r->dump_dir, NULL);
        info->dump_dir = rows->dump_dir = abs ? abs : xstrdup(r->dump_dir);
    }
    if (r->ng) {
        npu_mem_sizes_t mem;
        int pct[NPU_MAX_CORES];
        size_t u;
        info->npu_us = npu_frame_us(r->ng);
        npu_mem_query(r->ng, NULL, &mem);
        info->weight_bytes = (int64_t)mem.total_weight_size;
        info->internal_bytes = (int64_t)mem.total_internal_size;
        /* the load has no column: the run's busy share per core */
        npu_load_percent(&r->load, pct);
        u = (size_t)snprintf(rows->extra, sizeof(rows->extra), "{\"npu_load\":[");
        for (int c = 0; c < r->load.cores && u < sizeof(rows->extra); c++) {
            u += (size_t)snprintf(rows->extra + u, sizeof(rows->extra) - u, "%s%d", c ? "," : "", pct[c]);
            /* and as load samples, the table a board's sampled load goes to */
            if (rows->n_load < NPU_MAX_CORES)
                rows->load[rows->n_load++] = (store_load_sample){0, c, pct[c]};
        }
        if (u < sizeof(rows->extra))
            u += (size_t)snprintf(rows->extra + u, sizeof(rows->extra) - u, "]");
        /* what the quantization did, which no row holds */
        if (r->acc && u < sizeof(rows->extra))
            u += (size_t)snprintf(rows->extra + u, sizeof(rows->extra) - u,
                                  ",\"quant\":{\"calibration_samples\":%d,\"int8_layers\":%d,"
                                  "\"fp16_layers\":%d,\"cfg_parameters\":%d}",
                                  r->acc->n_samples, r->acc->n_int8_nodes, r->acc->n_fp16_nodes,
                                  r->acc->n_cfg_params);
        if (u < sizeof(rows->extra))
            snprintf(rows->extra + u, sizeof(rows->extra) - u, "}");
        info->extra_json = rows->extra;
    }

    rows->layers = xcalloc((size_t)(r->n_layers ? r->n_layers : 1), sizeof(*rows->layers));
    rows->layer_text = xcalloc((size_t)(r->n_layers ? r->n_layers : 1), sizeof(*rows->layer_text));
    for (int i = 0, l = 0; i < g->n_nodes && l < r->n_layers; i++) {
        const node_t *n = &g->nodes[i];
        if (n->folded)
            continue;
        store_layer *row = &rows->layers[l];
        store_layer_init(row);
        const tensor_t *o = n->n_out && n->out[0] >= 0 ? &g->t[n->out[0]] : NULL;
        row->idx = l;
        row->node = n->name;
        row->op = n->op;
        row->name = o ? o->name : NULL;
        row->in_shapes = rows->layer_text[l].ins = shapes_json(g, n->n_in, n->in);
        row->out_shapes = rows->layer_text[l].outs = shapes_json(g, n->n_out, n->out);
        row->dtype = o ? dtype_name(o->dtype) : NULL;
        row->host_us = r->layer_us[l];
        set_npu_fields(r->ng, i, row, rows->layer_text[l].workload,
                       sizeof(rows->layer_text[l].workload));
        if (r->qg && o) {
            qparam_t qp;
            row->out_qtype = quant_graph_tensor_qtype(r->qg, n->out[0], &qp);
            if (row->out_qtype && !strcmp(row->out_qtype, "asymmetric_quantized-8")) {
                row->out_scale = qp.scale;
                row->out_zp = qp.zp;
            }
        }
        if (r->stats) {
            row->out_min = r->stats[l].min;
            row->out_max = r->stats[l].max;
            row->out_mean = r->stats[l].mean;
            row->out_std = r->stats[l].std;
        }
        l++;
        rows->n_layers = l;
    }

    dump_entry *idx = NULL;
    int n_idx = 0;
    if (rows->dump_dir && dump_dir_load_index(rows->dump_dir, &idx, &n_idx, err, errlen))
        idx = NULL, n_idx = 0; /* the files stay listed in the folder's index only */
    rows->outs = xcalloc((size_t)(g->n_outputs ? g->n_outputs : 1), sizeof(*rows->outs));
    rows->out_text = xcalloc((size_t)(g->n_outputs ? g->n_outputs : 1), sizeof(*rows->out_text));
    for (int j = 0; j < g->n_outputs; j++) {
        const tensor_t *t = exec_output(r->x, j);
        store_output *row = &rows->outs[j];
        store_output_init(row);
        row->idx = j;
        row->name = t->name;
        row->shape = store_format_shape(rows->out_text[j].shape, sizeof(rows->out_text[j].shape),
                                        t->ndim, t->dims);
        row->dtype = dtype_name(t->dtype);
        row->dump_file = rows->out_text[j].file =
            rows->dump_dir ? output_dump_file(rows->dump_dir, idx, n_idx, t->name) : NULL;
        rows->n_outs = j + 1;
    }
    dump_entries_free(idx, n_idx);
    if (r->acc) {
        rows->acc = accuracy_store_rows(r->acc);
        rows->n_acc = r->acc->n_rows;
    }
    return RT_OK;
}

void run_rows_free(run_rows *rows)
{
    for (int l = 0; rows->layer_text && l < rows->n_layers; l++) {
        free(rows->layer_text[l].ins);
        free(rows->layer_text[l].outs);
    }
    for (int j = 0; rows->out_text && j < rows->n_outs; j++)
        free(rows->out_text[j].file);
    free(rows->layer_text);
    free(rows->out_text);
    free(rows->layers);
    free(rows->outs);
    free(rows->acc);
    free(rows->inputs_json);
    free(rows->dump_dir);
    memset(rows, 0, sizeof(*rows));
}

/* The value of the first "KEY<spaces>: value" line of a /proc-style file
 * (KEY=value with '=': /etc/os-release, quotes removed), or "" if none. */
static void file_value(const char *path, const char *key, char sep, char *out, size_t len)
{
    char line[512];
    size_t kl = strlen(key);
    FILE *f = fopen(path, "r");

    out[0] = 0;
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *v = line + kl;
        if (strncmp(line, key, kl) != 0)
            continue;
        while (*v == ' ' || *v == '\t')
            v++;
        if (*v != sep)
            continue;
        for (v++; *v == ' ' || *v == '"'; v++)
            ;
        v[strcspn(v, "\"\n")] = 0;
        snprintf(out, len, "%s", v);
        break;
    }
    fclose(f);
}

/* The environment of a run made here (docs/store.md, env_json): the tool, the
 * host (CPU model, cores, OS), and for a prediction the cost model's version. */
static char *host_env_json(int predicted)
{
    char cpu[256], os[256], buf[64], *text = NULL;
    size_t len = 0;
    struct utsname u;
    FILE *f = open_memstream(&text, &len);
    json_writer w;

    json_begin(&w, f);
    json_obj_open(&w);
    json_key(&w, "tool");
    json_str(&w, "rknn-trace " RKNN_TRACE_VERSION);
    json_key(&w, "host");
    json_obj_open(&w);
    file_value("/proc/cpuinfo", "model name", ':', cpu, sizeof cpu);
    if (!cpu[0]) /* ARM kernels name the board or SoC instead */
        file_value("/proc/cpuinfo", "Hardware", ':', cpu, sizeof cpu);
    if (!cpu[0])
        file_value("/proc/device-tree/model", "", 0, cpu, sizeof cpu);
    if (cpu[0]) {
        json_key(&w, "cpu");
        json_str(&w, cpu);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 0) {
        json_key(&w, "cores");
        json_int(&w, cores);
    }
    file_value("/etc/os-release", "PRETTY_NAME", '=', os, sizeof os);
    if (os[0]) {
        json_key(&w, "os");
        json_str(&w, os);
    }
    if (uname(&u) == 0) {
        char kernel[3 * sizeof(u.release)];
        snprintf(kernel, sizeof kernel, "%s %s %s", u.sysname, u.release, u.machine);
        json_key(&w, "kernel");
        json_str(&w, kernel);
    }
    json_obj_close(&w);
    if (predicted) {
        json_key(&w, "npu_cost_model");
        json_obj_open(&w);
        json_key(&w, "version");
        json_int(&w, NPU_COST_MODEL_VERSION);
        snprintf(buf, sizeof buf, "%016llx", (unsigned long long)npu_cost_model_fingerprint());
        json_key(&w, "fingerprint");
        json_str(&w, buf);
        json_obj_close(&w);
    }
    json_obj_close(&w);
    json_end(&w);
    fclose(f);
    while (len && text[len - 1] == '\n')
        text[--len] = 0;
    return text;
}

int run_rows_store(run_rows *rows, const char *db, char *err, size_t errlen)
{
    store *st = NULL;
    int64_t id = 0;
    char *env = NULL;
    const char *caller_env = rows->run.env_json;
    int rc;

    /* every run made here says which tool and host made it, unless the
     * caller already recorded its own environment */
    if (!rows->run.tool_version)
        rows->run.tool_version = RKNN_TRACE_VERSION;
    if (!rows->run.env_json)
        rows->run.env_json = env = host_env_json(isfinite(rows->run.npu_us));
    rc = store_open(store_default_path(db), &st, err, errlen);
    if (rc)
        goto out;
    rc = store_run_begin(st, &rows->run, &id, err, errlen);
    if (rc)
        goto out;
    for (int i = 0; i < rows->n_layers && !rc; i++)
        rc = store_layer_add(st, id, &rows->layers[i], err, errlen);
    for (int j = 0; j < rows->n_outs && !rc; j++)
        rc = store_output_add(st, id, &rows->outs[j], err, errlen);
    for (int i = 0; i < rows->n_acc && !rc; i++)
        rc = store_accuracy_add(st, id, &rows->acc[i], err, errlen);
    for (int i = 0; i < rows->n_load && !rc; i++)
        rc = store_load_add(st, id, &rows->load[i], err, errlen);
    if (!rc)
        rc = store_run_commit(st, id, rows->run.total_us, err, errlen);
    if (rc)
        store_run_abort(st, id);
    else
        rows->run.id = id;
out:
    store_close(st);
    rows->run.env_json = caller_env;
    free(env);
    return rc;
}

int run_record_finish(run_record *r, int record, const char *db, int json, double cos_threshold)
{
    run_rows rows;
    char err[1024] = "";
    int rc = run_rows_build(r, &rows, err, sizeof(err)), ret = EXIT_OK;

    if (rc) {
        cli_error("%s", err);
        return cli_exit_code(rc);
    }
    rows.run.n_layers = rows.n_layers;
    if (record && (rc = run_rows_store(&rows, db, err, sizeof(err))) == RT_OK)
        r->run_id = rows.run.id;
    /* a failure to record does not throw the results away: they are printed,
     * and the exit code says that the run is not in the database */
    run_rows_print(&rows.run, rows.layers, rows.n_layers, rows.outs, rows.n_outs, rows.acc,
                   rows.n_acc, json, cos_threshold, stdout);
    if (rc)
        ret = cli_not_recorded(err[0] ? err : rt_status_str(rc));
    run_rows_free(&rows);
    return ret;
}

void run_rows_print(const store_run *run, const store_layer *layers, int nl,
                    const store_output *outs, int no, const store_accuracy *acc, int na,
                    int json, double cos_threshold, FILE *f)
{
    run_summary sum;
    summary_compute(run, layers, nl, outs, no, acc, na, cos_threshold, &sum);
    if (json) {
        json_writer w;
        json_begin(&w, f);
        summary_json_doc(&sum, outs, no, &w);
        json_end(&w);
    } else {
        int color = cli_use_color(f);
        summary_print(&sum, f, color);
        summary_print_accuracy(&sum, f, color);
    }
    summary_free(&sum);
}
