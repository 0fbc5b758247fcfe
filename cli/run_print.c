/* cli/run_print.c — the run summary, as text for people and as JSON for tools. */
#include "cli/run_record.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOP_LAYERS 10

typedef struct out_stats {
    double min, max, mean;
    int64_t argmax;
    int numeric;
} out_stats;

static out_stats stats_of(const tensor_t *t)
{
    out_stats s = {0};
    int64_t n = tensor_numel(t);
    if (t->dtype != DT_FLOAT || n <= 0 || !t->data)
        return s;
    const float *v = t->data;
    s.numeric = 1;
    s.min = s.max = v[0];
    double sum = 0;
    for (int64_t i = 0; i < n; i++) {
        if (v[i] < s.min)
            s.min = v[i];
        if (v[i] > s.max) {
            s.max = v[i];
            s.argmax = i;
        }
        sum += v[i];
    }
    s.mean = sum / (double)n;
    return s;
}

/* Node index of executed layer l (layers are the non-folded nodes in order). */
static int layer_node(const graph_t *g, int l)
{
    for (int i = 0, k = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].folded)
            continue;
        if (k++ == l)
            return i;
    }
    return -1;
}

static int by_time_desc(const void *a, const void *b, void *ctx)
{
    const double *us = ctx;
    int x = *(const int *)a, y = *(const int *)b;
    return us[x] < us[y] ? 1 : us[x] > us[y] ? -1 : x - y;
}

void run_record_print_text(const run_record *r, FILE *f)
{
    const graph_t *g = r->g;
    char shape[128];
    double layers_sum = 0;

    fprintf(f, "model     %s\n", r->model);
    fprintf(f, "target    %s (backend %s, %s)\n", r->platform, r->backend, r->quant);
    for (int j = 0; j < g->n_inputs; j++) {
        const tensor_t *t = &g->t[g->inputs[j]];
        fprintf(f, "input     %s %s %s  %s", t->name, dtype_name(t->dtype),
                tensor_shape_str(t, shape, sizeof(shape)),
                r->inputs[j].file ? r->inputs[j].file : "random");
        if (!r->inputs[j].file)
            fprintf(f, " (seed %lld)", r->seed + j);
        fputc('\n', f);
    }
    for (int l = 0; l < r->n_layers; l++)
        layers_sum += r->layer_us[l];
    fprintf(f, "layers    %d executed (%d nodes, %d folded at load)\n", r->n_layers, g->n_nodes,
            g->n_nodes - r->n_layers);
    fprintf(f, "time      %.3f ms median of %lld run%s (min %.3f ms), host CPU, %d thread%s\n",
            r->median_us / 1e3, r->iters, r->iters > 1 ? "s" : "", r->min_us / 1e3,
            r->threads, r->threads == 1 ? "" : "s");

    int *idx = xmalloc(sizeof(int) * (size_t)(r->n_layers ? r->n_layers : 1));
    for (int l = 0; l < r->n_layers; l++)
        idx[l] = l;
    qsort_r(idx, (size_t)r->n_layers, sizeof(int), by_time_desc, (void *)r->layer_us);
    int top = r->n_layers < TOP_LAYERS ? r->n_layers : TOP_LAYERS;
    if (top) {
        fprintf(f, "\nslowest layers (host time)\n  %5s  %-18s %10s %6s  %s\n", "layer", "op", "us",
                "share", "node -> output shape");
    }
    for (int k = 0; k < top; k++) {
        int l = idx[k], ni = layer_node(g, l);
        const node_t *n = &g->nodes[ni];
        const tensor_t *o = n->n_out && n->out[0] >= 0 ? &g->t[n->out[0]] : NULL;
        fprintf(f, "  %5d  %-18s %10.1f %5.1f%%  %s -> %s\n", l, n->op, r->layer_us[l],
                layers_sum > 0 ? 100.0 * r->layer_us[l] / layers_sum : 0.0, n->name,
                o ? tensor_shape_str(o, shape, sizeof(shape)) : "-");
    }
    free(idx);

    fputs("\noutputs\n", f);
    for (int j = 0; j < g->n_outputs; j++) {
        const tensor_t *t = exec_output(r->x, j);
        out_stats s = stats_of(t);
        fprintf(f, "  %s %s %s", t->name, dtype_name(t->dtype),
                tensor_shape_str(t, shape, sizeof(shape)));
        if (s.numeric)
            fprintf(f, "  min %.6g max %.6g mean %.6g argmax %lld", s.min, s.max, s.mean,
                    (long long)s.argmax);
        fputc('\n', f);
    }
    run_npu_print_text(r, f);
    if (r->dump_dir)
        fprintf(f, "\ndump      %s/index.json (%d layers)\n", r->dump_dir, r->n_layers);
    if (r->run_id)
        fprintf(f, "run       #%lld%s%s  (rknn-trace show %lld)\n", (long long)r->run_id,
                r->label ? " " : "", r->label ? r->label : "", (long long)r->run_id);
}

static void json_shape(json_writer *w, const tensor_t *t)
{
    json_arr_open(w);
    for (int d = 0; d < t->ndim; d++)
        json_int(w, t->dims[d]);
    json_arr_close(w);
}

void run_record_print_json(const run_record *r, FILE *f)
{
    const graph_t *g = r->g;
    json_writer w;

    json_begin(&w, f);
    json_obj_open(&w);
    json_key(&w, "run_id");
    if (r->run_id)
        json_int(&w, r->run_id);
    else
        json_write_null(&w);
    json_key(&w, "label");
    json_str(&w, r->label);
    json_key(&w, "model");
    json_str(&w, r->model);
    json_key(&w, "model_sha256");
    json_str(&w, r->sha256[0] ? r->sha256 : NULL);
    json_key(&w, "platform");
    json_str(&w, r->platform);
    json_key(&w, "backend");
    json_str(&w, r->backend);
    json_key(&w, "quant");
    json_str(&w, r->quant);
    json_key(&w, "iterations");
    json_int(&w, r->iters);
    json_key(&w, "median_us");
    json_num(&w, r->median_us);
    json_key(&w, "min_us");
    json_num(&w, r->min_us);
    json_key(&w, "layer_count");
    json_int(&w, r->n_layers);
    json_key(&w, "dump");
    json_str(&w, r->dump_dir);

    run_npu_print_json(r, &w);
    json_key(&w, "inputs");
    json_arr_open(&w);
    for (int j = 0; j < g->n_inputs; j++) {
        const tensor_t *t = &g->t[g->inputs[j]];
        json_obj_open(&w);
        json_key(&w, "name");
        json_str(&w, t->name);
        json_key(&w, "dtype");
        json_str(&w, dtype_name(t->dtype));
        json_key(&w, "shape");
        json_shape(&w, t);
        json_key(&w, "file");
        json_str(&w, r->inputs[j].file);
        json_key(&w, "seed");
        if (r->inputs[j].file)
            json_write_null(&w);
        else
            json_int(&w, r->seed + j);
        json_obj_close(&w);
    }
    json_arr_close(&w);

    json_key(&w, "outputs");
    json_arr_open(&w);
    for (int j = 0; j < g->n_outputs; j++) {
        const tensor_t *t = exec_output(r->x, j);
        out_stats s = stats_of(t);
        json_obj_open(&w);
        json_key(&w, "name");
        json_str(&w, t->name);
        json_key(&w, "dtype");
        json_str(&w, dtype_name(t->dtype));
        json_key(&w, "shape");
        json_shape(&w, t);
        if (s.numeric) {
            json_key(&w, "min");
            json_num(&w, s.min);
            json_key(&w, "max");
            json_num(&w, s.max);
            json_key(&w, "mean");
            json_num(&w, s.mean);
        }
        json_obj_close(&w);
    }
    json_arr_close(&w);

    json_key(&w, "layers");
    json_arr_open(&w);
    for (int l = 0; l < r->n_layers; l++) {
        const node_t *n = &g->nodes[layer_node(g, l)];
        json_obj_open(&w);
        json_key(&w, "index");
        json_int(&w, l);
        json_key(&w, "node");
        json_str(&w, n->name);
        json_key(&w, "op");
        json_str(&w, n->op);
        json_key(&w, "outputs");
        json_arr_open(&w);
        for (int k = 0; k < n->n_out; k++)
            if (n->out[k] >= 0)
                json_str(&w, g->t[n->out[k]].name);
        json_arr_close(&w);
        json_key(&w, "shape");
        if (n->n_out && n->out[0] >= 0)
            json_shape(&w, &g->t[n->out[0]]);
        else
            json_write_null(&w);
        json_key(&w, "host_us");
        json_num(&w, r->layer_us[l]);
        json_obj_close(&w);
    }
    json_arr_close(&w);
    json_obj_close(&w);
    json_end(&w);
}
