/* cli/run_store.c — records a finished `run` in the store: one transaction. */
#include "analyze/analyze.h"
#include "cli/run_record.h"
#include "runtime/model/model.h"
#include "runtime/quant/quant.h"
#include "util/util.h"

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
    size_t u = 0;
    wl[0] = '\0';
    for (int c = 0; c < ng->plat->cores && u < wlen; c++)
        u += (size_t)snprintf(wl + u, wlen - u, "%s%.0f%%", c ? "/" : "", l->workload[c]);
    row->workload = wl;
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

int run_record_store(run_record *r, const char *db, char *err, size_t errlen)
{
    store *st = NULL;
    store_run info;
    int64_t id = 0;
    char *inj = NULL;
    void *model_bytes = NULL;
    size_t model_len = 0;
    int rc;

    rc = rt_read_file(r->model, &model_bytes, &model_len, err, errlen);
    if (rc)
        return rc;
    rt_sha256_hex(model_bytes, model_len, r->sha256);
    unsigned char model_bytes_head[SIMMODEL_MAGIC_LEN] = {0};
    size_t model_head_len = model_len < sizeof(model_bytes_head) ? model_len : sizeof(model_bytes_head);
    memcpy(model_bytes_head, model_bytes, model_head_len);
    free(model_bytes);

    rc = store_open(store_default_path(db), &st, err, errlen);
    if (rc)
        return rc;
    store_run_init(&info);
    inj = inputs_json(r);
    info.label = r->label;
    info.model_path = r->model;
    info.model_sha256 = r->sha256;
    info.model_format = simmodel_is(model_bytes_head, model_head_len) ? "rknn-sim" : "onnx";
    info.platform = r->platform;
    info.backend = r->backend;
    info.quant = r->quant;
    if (r->acc && r->acc->type == QT_I8) {
        info.quant_algo = quant_algo_name(r->acc->algo);
        info.quant_method = quant_method_name(r->acc->method);
    }
    info.threads = r->threads;
    info.iterations = r->iters;
    info.warmup = r->warmup;
    info.host_min_us = r->min_us;
    info.host_p90_us = r->p90_us;
    info.host_stddev_us = r->stddev_us;
    char *dump_abs = r->dump_dir ? realpath(r->dump_dir, NULL) : NULL;
    info.dump_dir = dump_abs ? dump_abs : r->dump_dir;
    info.dump_sha256 = r->dump_sha256[0] ? r->dump_sha256 : NULL;
    info.seed = r->seed;
    info.inputs_json = inj;
    char extra[256] = "";
    if (r->ng) {
        int pct[NPU_MAX_CORES];
        double share[3];
        size_t u;
        npu_load_percent(&r->load, pct);
        run_npu_shares(r->ng, share);
        u = (size_t)snprintf(extra, sizeof(extra),
                             "{\"npu_predicted_us\":%.3f,\"npu_share\":{\"compute\":%.2f,"
                             "\"DDR\":%.2f,\"CPU\":%.2f},\"npu_load\":[",
                             npu_frame_us(r->ng), share[0], share[1], share[2]);
        for (int c = 0; c < r->load.cores && u < sizeof(extra); c++)
            u += (size_t)snprintf(extra + u, sizeof(extra) - u, "%s%d", c ? "," : "", pct[c]);
        if (u < sizeof(extra))
            snprintf(extra + u, sizeof(extra) - u, "]}");
        info.extra_json = extra;
    }
    char *extra_dump = NULL;
    if (r->dump_dir) {
        /* the dump folder, absolute, for `rknn-trace analyze RUN --golden DIR` */
        char *abs = realpath(r->dump_dir, NULL);
        size_t el = 0;
        FILE *f = open_memstream(&extra_dump, &el);
        json_writer w;
        if (extra[0]) /* without its closing brace */
            fprintf(f, "%.*s,\"dump_dir\":", (int)strlen(extra) - 1, extra);
        else
            fputs("{\"dump_dir\":", f);
        json_begin(&w, f);
        json_str(&w, abs ? abs : r->dump_dir);
        fputc('}', f);
        fclose(f);
        free(abs);
        info.extra_json = extra_dump;
    }
    rc = store_run_begin(st, &info, &id, err, errlen);
    if (rc)
        goto out;

    const graph_t *g = r->g;
    for (int i = 0, l = 0; i < g->n_nodes && !rc; i++) {
        const node_t *n = &g->nodes[i];
        if (n->folded)
            continue;
        store_layer row;
        store_layer_init(&row);
        char *ins = shapes_json(g, n->n_in, n->in), *outs = shapes_json(g, n->n_out, n->out);
        const tensor_t *o = n->n_out && n->out[0] >= 0 ? &g->t[n->out[0]] : NULL;
        row.idx = l;
        row.node = n->name;
        row.op = n->op;
        row.name = o ? o->name : NULL;
        row.in_shapes = ins;
        row.out_shapes = outs;
        row.dtype = o ? dtype_name(o->dtype) : NULL;
        row.host_us = r->layer_us[l];
        char workload[64];
        set_npu_fields(r->ng, i, &row, workload, sizeof(workload));
        rc = store_layer_add(st, id, &row, err, errlen);
        free(ins);
        free(outs);
        l++;
    }
    for (int j = 0; j < g->n_outputs && !rc; j++) {
        const tensor_t *t = exec_output(r->x, j);
        store_output row;
        char shape[24 * MODEL_MAX_DIMS];
        store_output_init(&row);
        row.idx = j;
        row.name = t->name;
        row.shape = store_format_shape(shape, sizeof(shape), t->ndim, t->dims);
        row.dtype = dtype_name(t->dtype);
        rc = store_output_add(st, id, &row, err, errlen);
    }
    if (!rc && r->acc)
        rc = accuracy_store(r->acc, st, id, err, errlen);
    if (!rc)
        rc = store_run_commit(st, id, r->median_us, err, errlen);
    if (rc)
        store_run_abort(st, id);
    else
        r->run_id = id;
out:
    free(dump_abs);
    free(extra_dump);
    free(inj);
    store_close(st);
    return rc;
}
