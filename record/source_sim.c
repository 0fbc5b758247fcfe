/* record/source_sim.c — a graph run on this PC (`run MODEL`, backend sim) as
 * the rows the store keeps: one layer row per executed node with this PC's
 * time, the NPU model's figures (record/rows_npu.c), the output's statistics
 * and quantization; the graph outputs; the error rows of a quantized run; the
 * predicted load per core. */
#include "record/inputs.h"
#include "record/rows.h"
#include "record/rows_npu.h"
#include "record/source_sim.h"
#include "record/timing.h"
#include "record/version.h"
#include "dump/dump.h"
#include "runtime/quant/quant.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Eight lanes of sums and bounds, each its own chain, which the compiler
 * keeps in vectors (one sum in order forbids that): a 640x640 model's
 * layers are a quarter of a one-frame run's work otherwise. */
#define SL 8
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SHOT __attribute__((optimize("O3"), target_clones("arch=x86-64-v3", "default")))
#else
#define SHOT __attribute__((optimize("O3")))
#endif

SHOT void run_layer_stats_of(const tensor_t *t, run_layer_stats *s)
{
    int64_t n = t && t->data && t->dtype == DT_FLOAT ? tensor_numel(t) : 0;
    const float *v = n > 0 ? t->data : NULL;
    double sum[SL] = {0}, dev[SL] = {0}, mean = 0, d2 = 0;
    float lo[SL], hi[SL];

    s->min = s->max = s->mean = s->std = NAN;
    if (!v)
        return;
    /* x < lo ? x : lo keeps a NaN out unless v[0] is one, as in order */
    for (int l = 0; l < SL; l++)
        lo[l] = hi[l] = v[0];
    int64_t full = n / SL * SL;
    for (int64_t i = 0; i < full; i += SL)
        for (int l = 0; l < SL; l++) {
            float x = v[i + l];
            lo[l] = x < lo[l] ? x : lo[l];
            hi[l] = x > hi[l] ? x : hi[l];
            sum[l] += x;
        }
    for (int64_t i = full; i < n; i++) {
        float x = v[i];
        lo[0] = x < lo[0] ? x : lo[0];
        hi[0] = x > hi[0] ? x : hi[0];
        sum[0] += x;
    }
    for (int l = 0; l < SL; l++)
        mean += sum[l];
    mean /= (double)n;
    /* a second pass: sum of squares minus the squared mean cancels badly */
    for (int64_t i = 0; i < full; i += SL)
        for (int l = 0; l < SL; l++)
            dev[l] += ((double)v[i + l] - mean) * ((double)v[i + l] - mean);
    for (int64_t i = full; i < n; i++)
        dev[0] += ((double)v[i] - mean) * ((double)v[i] - mean);
    s->min = s->max = v[0];
    for (int l = 0; l < SL; l++) {
        s->min = lo[l] < s->min ? lo[l] : s->min;
        s->max = hi[l] > s->max ? hi[l] : s->max;
        d2 += dev[l];
    }
    s->mean = mean;
    s->std = sqrt(d2 / (double)n);
}

char *inputs_json_of(const run_input_fed *in, int n, long long seed)
{
    json_writer w;

    json_begin_mem(&w);
    json_arr_open(&w);
    for (int j = 0; j < n; j++) {
        char shape[24 * MODEL_MAX_DIMS], src[64], sha[65];
        json_obj_open(&w);
        json_key(&w, "name");
        json_str(&w, in[j].name);
        json_key(&w, "dtype");
        json_str(&w, in[j].dtype);
        json_key(&w, "shape");
        json_raw(&w, store_format_shape(shape, sizeof(shape), in[j].ndim, in[j].dims));
        json_key(&w, "source");
        if (in[j].file) {
            json_str(&w, in[j].file);
        } else {
            seed_input_source(src, sizeof src, seed, j, in[j].below);
            json_str(&w, src);
        }
        if (in[j].data) { /* the bytes fed: the same seed gives the same hash on every backend */
            rt_sha256_hex(in[j].data, in[j].nbytes, sha);
            json_key(&w, "sha256");
            json_str(&w, sha);
        }
        json_obj_close(&w);
    }
    json_arr_close(&w);
    char *text = json_take(&w, NULL);
    size_t len = strlen(text);
    while (len && text[len - 1] == '\n')
        text[--len] = '\0';
    return text;
}

static char *inputs_json(const run_record *r)
{
    run_input_fed *in = xcalloc((size_t)(r->g->n_inputs ? r->g->n_inputs : 1), sizeof(*in));
    for (int j = 0; j < r->g->n_inputs; j++) {
        const tensor_t *t = &r->g->t[r->g->inputs[j]];
        in[j] = (run_input_fed){t->name, dtype_name(t->dtype), r->inputs[j].file, t->ndim, t->dims,
                                r->inputs[j].data, r->inputs[j].nbytes, r->inputs[j].below};
    }
    char *s = inputs_json_of(in, r->g->n_inputs, r->seed);
    free(in);
    return s;
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
    info->quant_algo = r->quant_algo;
    info->quant_method = r->quant_method;
    info->threads = r->threads;
    info->iterations = r->iters;
    info->seed = r->seed;
    info->inputs_json = rows->inputs_json = inputs_json(r);
    /* --eval: the error over every sample (analyze's object), the one key left */
    if (r->eval_json) {
        json_writer w;
        json_begin_mem(&w);
        json_obj_open(&w);
        json_key(&w, "eval"), json_raw(&w, r->eval_json);
        json_obj_close(&w);
        info->extra_json = run_rows_keep(rows, json_take(&w, NULL));
    }
    time_stats ts = time_stats_of(r->iter_us, r->iters);
    info->total_us = ts.median;
    info->host_min_us = ts.min;
    info->host_p90_us = ts.p90;
    info->host_stddev_us = ts.stddev;
    info->warmup = r->warmup;
    info->dump_sha256 = r->dump_sha256[0] ? r->dump_sha256 : NULL;
    if (r->dump_dir) {
        /* absolute, for `rknn-trace analyze RUN --golden DIR` from anywhere */
        char *abs = realpath(r->dump_dir, NULL);
        info->dump_dir = rows->dump_dir = abs ? abs : xstrdup(r->dump_dir);
    }

    int nl = r->n_layers ? r->n_layers : 1;
    rows->layers = xcalloc((size_t)nl, sizeof(*rows->layers));
    char (*wl)[64] = run_rows_keep(rows, xcalloc((size_t)nl, 64));
    int *row_of = xmalloc(sizeof(int) * (size_t)(g->n_nodes ? g->n_nodes : 1));
    int *exec_of = xmalloc(sizeof(int) * (size_t)(g->n_nodes ? g->n_nodes : 1));
    int *order = rows_node_order(g, r->ng);
    /* the executor's index of each node (host_us, stats), graph order */
    for (int i = 0, e = 0; i < g->n_nodes; i++)
        exec_of[i] = g->nodes[i].folded ? -1 : e++;
    for (int oi = 0, rl = 0; oi < g->n_nodes; oi++) {
        int i = order[oi], l = exec_of[i];
        const node_t *n = &g->nodes[i];
        row_of[i] = -1;
        if (n->folded || l >= r->n_layers || rl >= r->n_layers)
            continue;
        store_layer *row = &rows->layers[rl];
        store_layer_init(row);
        const tensor_t *o = n->n_out && n->out[0] >= 0 ? &g->t[n->out[0]] : NULL;
        row_of[i] = rl;
        row->idx = rl;
        row->node = n->name;
        row->op = n->op;
        row->name = o ? o->name : NULL;
        row->in_shapes = run_rows_keep(rows, shapes_json(g, n->n_in, n->in));
        row->out_shapes = run_rows_keep(rows, shapes_json(g, n->n_out, n->out));
        row->dtype = o ? dtype_name(o->dtype) : NULL;
        row->host_us = r->layer_us[l];
        /* the NPU layer covering the node: every covered node gets its target,
         * OpType and bound; the figures go on the node producing its output */
        const npu_graph_t *ng = r->ng;
        if (ng && i < ng->n_nodes && ng->node_layer[i] >= 0) {
            const npu_layer_t *nl_ = &ng->l[ng->node_layer[i]];
            if (nl_->n_src_nodes && nl_->src_nodes[nl_->n_src_nodes - 1] == i) {
                rows_npu_fill(ng, nl_, row, wl[rl], sizeof wl[rl]);
            } else {
                row->target = nl_->target == NPU_TGT_CPU ? "CPU" : "NPU";
                row->npu_op = nl_->optype;
                row->bound = npu_bound_name(nl_->bound);
                row->cpu_reason = nl_->reason;
            }
        }
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
        rl++;
        rows->n_layers = rl;
    }
    free(order);
    free(exec_of);
    if (r->ng) {
        const npu_graph_t *ng = r->ng;
        npu_mem_sizes_t mem;
        int pct[NPU_MAX_CORES], *carrier = xmalloc(sizeof(int) * (size_t)(ng->n ? ng->n : 1));
        info->npu_us = npu_frame_us(ng);
        npu_mem_query(r->ng, NULL, &mem);
        info->weight_bytes = (int64_t)mem.total_weight_size;
        info->internal_bytes = (int64_t)mem.total_internal_size;
        /* the run's busy share per core: computed, not sampled, so no load
         * samples (the store reads it as one sample per core at t 0) */
        npu_load_percent(&r->load, pct);
        for (int c = 0; c < r->load.cores && c < NPU_MAX_CORES && c < STORE_MAX_CORES; c++)
            info->load_pct[info->n_load++] = pct[c];
        /* the row carrying each NPU layer: its last covered node's, if that
         * node's layer is this one */
        for (int k = 0; k < ng->n; k++) {
            const npu_layer_t *L = &ng->l[k];
            int last = L->n_src_nodes ? L->src_nodes[L->n_src_nodes - 1] : -1;
            carrier[k] = last >= 0 && last < g->n_nodes && last < ng->n_nodes &&
                         ng->node_layer[last] == k ? row_of[last] : -1;
        }
        rows->npu_rows = rows_npu_table(ng, rows->layers, rows->n_layers, carrier, info,
                                        &rows->n_npu_rows);
        store_layers_number(rows->layers, rows->n_layers, rows->npu_rows, rows->n_npu_rows,
                            info->npu_table_layers, 0);
        free(carrier);
    }
    free(row_of);

    dump_entry *idx = NULL;
    int n_idx = 0;
    if (rows->dump_dir && dump_dir_load_index(rows->dump_dir, &idx, &n_idx, err, errlen))
        idx = NULL, n_idx = 0; /* the files stay listed in the folder's index only */
    rows->outs = xcalloc((size_t)(g->n_outputs ? g->n_outputs : 1), sizeof(*rows->outs));
    for (int j = 0; j < g->n_outputs; j++) {
        const tensor_t *t = exec_output(r->x, j);
        store_output *row = &rows->outs[j];
        char *shape = run_rows_keep(rows, xmalloc(24 * MODEL_MAX_DIMS));
        store_output_init(row);
        row->idx = j;
        row->name = t->name;
        row->shape = store_format_shape(shape, 24 * MODEL_MAX_DIMS, t->ndim, t->dims);
        row->dtype = dtype_name(t->dtype);
        row->dump_file = rows->dump_dir ? run_rows_keep(rows, output_dump_file(rows->dump_dir, idx,
                                                                               n_idx, t->name))
                                        : NULL;
        rows->n_outs = j + 1;
    }
    dump_entries_free(idx, n_idx);
    if (r->quantized && r->ng) {
        info->calib_samples = r->calib_samples;
        info->int8_layers = r->int8_layers;
        info->fp16_layers = r->fp16_layers;
        info->cfg_params = r->cfg_params;
    }
    rows->acc = r->acc_rows;
    rows->n_acc = r->n_acc;
    r->acc_rows = NULL;
    rows->run.n_layers = rows->n_layers;
    return RT_OK;
}
