/* cli/run_rknn.c — `rknn-trace run model.rknn` on a PC: the compiled graph
 * of a vendor file (the compiler's own fusion, placement, dtypes and shapes,
 * read by runtime/model/rknn_file.h) costed by the NPU model, stored as a run
 * with backend "predict". No numeric output is computed. */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "cli/run_record.h"
#include "runtime/model/rknn_file.h"
#include "runtime/npu/npu.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void usage(FILE *f)
{
    fputs("usage: rknn-trace run MODEL.rknn [options]   (vendor-compiled file, on a PC)\n"
          "Predicts the profile of the graph Rockchip's compiler built (its fusion, CPU/NPU\n"
          "placement, dtypes and shapes) with the NPU model, and records it (backend predict).\n"
          "No numeric outputs are computed.\n"
          "  -t, --target NAME       must match the file's target if given\n"
          "      --core-mask M       NPU cores as RKNN_NPU_CORE_*: 0 auto (default), 1, 2, 4, 3, 7\n"
          "      --sram              plan the internal buffer into SRAM (rk3588 only)\n"
          "      --npu-table         print the level-4 per-layer table this file would produce\n"
          "      --label TEXT        label of the stored run\n"
          "      --db PATH           database (default $RKNN_TRACE_DB, else ./rknn-trace.db)\n"
          "      --no-db             do not record the run\n"
          "      --json              one JSON document on stdout\n",
          f);
}

int run_rknn_is(const char *path)
{
    unsigned char head[8];
    FILE *f = fopen(path, "rb");
    size_t n;

    if (!f)
        return 0;
    n = fread(head, 1, sizeof(head), f);
    fclose(f);
    return rknn_file_is(head, n);
}

static int kind_of(const char *op)
{
    static const char *const move[] = {"Concat", "Split", "Slice", "Reshape", "Transpose",
                                       "Resize", "Pad", "Gather", "Flatten", "Squeeze",
                                       "Unsqueeze", "Expand", "Tile", "DepthToSpace",
                                       "SpaceToDepth", "ReshapeTranspose", "TransposeReshape",
                                       "exPassThrough", NULL};
    if (!strcmp(op, "InputOperator") || !strcmp(op, "OutputOperator"))
        return NPU_K_IO;
    if (!strcmp(op, "exDataConvert"))
        return NPU_K_CONVERT;
    if (!strncmp(op, "ConvTranspose", 13) || !strncmp(op, "Deconv", 6))
        return NPU_K_DECONV;
    if (!strncmp(op, "Conv", 4))
        return NPU_K_CONV;
    if (strstr(op, "MatMul") || !strcmp(op, "Gemm"))
        return NPU_K_MATMUL;
    if (strstr(op, "Pool"))
        return NPU_K_POOL;
    for (int i = 0; move[i]; i++)
        if (!strcmp(op, move[i]))
            return NPU_K_MOVE;
    if (!strncmp(op, "cst", 3) || !strcmp(op, "CustomOperator"))
        return NPU_K_OTHER;
    return NPU_K_ELTWISE;
}

static int is_const_kind(int kind)
{
    return kind == 4 || kind == 5 || kind == 8;
}

/* regcmd/task/buffer blobs: not data the layer computes on */
static int is_blob_kind(int kind)
{
    return kind == 6 || kind == 7 || kind == 9 || kind == 10;
}

static int npu_dtype_of(int code)
{
    switch (code) {
    case 10: return NPU_FP16;
    case 5: return NPU_INT16;
    case 16: return NPU_BF16;
    case 1: return NPU_FP16; /* no fp32 on the NPU: billed like the vendor's fp16 path */
    }
    return NPU_INT8;
}

static const char *datatype_of(int code)
{
    switch (code) {
    case 2: return "UINT8";
    case 3: return "INT8";
    case 5: return "INT16";
    case 6: return "INT32";
    case 7: return "INT64";
    case 10: return "FLOAT16";
    case 16: return "BFLOAT16";
    case 1: return "FLOAT";
    }
    return "INT8";
}

static void to_shape(const rknn_tensor *t, npu_shape_t *s)
{
    s->nd = t->nd < NPU_SHAPE_MAX ? t->nd : NPU_SHAPE_MAX;
    for (int k = 0; k < s->nd; k++)
        s->d[k] = t->shape[k];
}

/* The decoded graph as NPU layers, one per compiled node, and a graph_t
 * holding its tensors' names and shapes (for the memory plan). */
static int build_layers(const rknn_model *m, const npu_platform_t *p, npu_graph_t **out,
                        graph_t **gout, char *err, size_t errlen)
{
    npu_graph_t *ng = xcalloc(1, sizeof(*ng));
    graph_t *g = graph_new();
    int dt_count[NPU_NDTYPE] = {0};

    ng->plat = p;
    ng->cores = 1;
    ng->n = ng->cap = m->n_nodes;
    ng->l = xcalloc((size_t)(m->n_nodes ? m->n_nodes : 1), sizeof(*ng->l));
    ng->n_nodes = m->n_nodes;
    ng->node_layer = xmalloc(sizeof(int) * (size_t)(m->n_nodes ? m->n_nodes : 1));
    ng->n_values = m->n_tensors;
    for (int i = 0; i < m->n_tensors; i++) {
        const rknn_tensor *t = &m->tensors[i];
        char name[64];
        const char *use = t->name;
        if (!use[0] || graph_find_tensor(g, use) >= 0) {
            snprintf(name, sizeof(name), "#%d", i);
            use = name;
        }
        int idx = graph_add_tensor(g, use);
        tensor_t *gt = &g->t[idx];
        gt->dtype = t->dtype;
        gt->ndim = t->nd < MODEL_MAX_DIMS ? t->nd : MODEL_MAX_DIMS;
        for (int k = 0; k < gt->ndim; k++)
            gt->dims[k] = t->shape[k];
        gt->is_output = t->kind == 2;
    }
    for (int i = 0; i < m->n_nodes; i++) {
        const rknn_node *n = &m->nodes[i];
        npu_layer_t *l = &ng->l[i];
        const rknn_tensor *first_out = NULL, *weight = NULL, *data_in = NULL;
        int dcode = -1;

        l->id = i + 1;
        snprintf(l->optype, sizeof(l->optype), "%s", n->type);
        l->fullname = xstrdup(n->name);
        l->target = n->target == RKNN_TGT_NPU ? NPU_TGT_NPU : NPU_TGT_CPU;
        l->kind = kind_of(n->type);
        if (l->target == NPU_TGT_CPU && l->kind != NPU_K_IO)
            l->reason = xstrdup("placed on the CPU by the vendor compiler");
        l->src_nodes = xmalloc(sizeof(int));
        l->src_nodes[0] = i;
        l->n_src_nodes = 1;
        ng->node_layer[i] = i;
        l->in_v = xmalloc(sizeof(int) * (size_t)(n->n_in + 1));
        l->out_v = xmalloc(sizeof(int) * (size_t)(n->n_out + 1));
        l->src_tensors = xcalloc((size_t)n->n_out + 1, sizeof(char *));
        l->out_tensor = -1;
        for (int k = 0; k < n->n_in; k++) {
            const rknn_tensor *t = &m->tensors[n->in[k]];
            if (is_blob_kind(t->kind))
                continue;
            if (l->n_in < NPU_MAX_IO) {
                to_shape(t, &l->in[l->n_in]);
                l->in_const[l->n_in] = is_const_kind(t->kind);
            }
            l->n_in++;
            if (is_const_kind(t->kind)) {
                if (!weight && t->nd == 4)
                    weight = t;
            } else {
                l->in_v[l->n_in_v++] = n->in[k];
                if (!data_in)
                    data_in = t;
            }
        }
        for (int k = 0; k < n->n_out; k++) {
            const rknn_tensor *t = &m->tensors[n->out[k]];
            if (is_blob_kind(t->kind))
                continue;
            if (l->n_out < NPU_MAX_IO)
                to_shape(t, &l->out[l->n_out]);
            l->n_out++;
            l->out_v[l->n_out_v++] = n->out[k];
            l->src_tensors[l->n_src_tensors++] = xstrdup(t->name);
            if (!first_out) {
                first_out = t;
                l->out_tensor = n->out[k];
                l->out_is_graph_output = t->kind == 2;
            }
        }
        /* the layer's data type: its output's (OutputOperator: its input's) */
        dcode = first_out ? first_out->dtype : data_in ? data_in->dtype : 3;
        l->dtype = npu_dtype_of(dcode);
        snprintf(l->datatype, sizeof(l->datatype), "%s", datatype_of(dcode));
        if (l->target == NPU_TGT_NPU && p->mac_ic[l->dtype] == 0) {
            rt_err(err, errlen, RT_EUNSUPPORTED,
                   "node %d (%s): dtype %s is not supported by the %s NPU; the file does not fit "
                   "this chip", i + 1, n->name, npu_dtype_name(l->dtype), p->name);
            goto fail;
        }
        if (l->target == NPU_TGT_NPU)
            dt_count[l->dtype]++;
        /* MAC geometry of the conv family, from the compiler's shapes */
        if ((l->kind == NPU_K_CONV || l->kind == NPU_K_DECONV) && data_in && first_out &&
            data_in->nd == 4 && first_out->nd == 4) {
            l->ic = (int)data_in->shape[1];
            l->oc = (int)first_out->shape[1];
            l->kh = n->n_kernel == 2 ? (int)n->kernel[0] : weight ? (int)weight->shape[2] : 1;
            l->kw = n->n_kernel == 2 ? (int)n->kernel[1] : weight ? (int)weight->shape[3] : 1;
            l->group = weight && weight->shape[1] > 0 && l->ic % weight->shape[1] == 0
                           ? (int)(l->ic / weight->shape[1]) : 1;
            if (l->kind == NPU_K_CONV && l->group > 1 && l->group == l->ic && l->oc == l->ic)
                l->kind = NPU_K_DWCONV;
            l->out_pixels = first_out->shape[0] * first_out->shape[2] * first_out->shape[3];
            if (l->kind == NPU_K_DECONV)
                l->out_pixels = data_in->shape[0] * data_in->shape[2] * data_in->shape[3];
            if (l->ic <= 0 || l->oc <= 0 || l->kh <= 0 || l->kw <= 0 || l->out_pixels <= 0) {
                rt_err(err, errlen, RT_EFORMAT, "node %d (%s): shapes do not describe a "
                       "convolution", i + 1, n->name);
                goto fail;
            }
        } else if (l->kind == NPU_K_MATMUL && data_in && first_out && data_in->nd >= 2 &&
                   first_out->nd >= 2) {
            l->ic = (int)data_in->shape[data_in->nd - 1];
            l->oc = (int)first_out->shape[first_out->nd - 1];
            l->out_pixels = 1;
            for (int k = 0; k < first_out->nd - 1; k++)
                l->out_pixels *= first_out->shape[k];
            l->kh = l->kw = 1;
        } else if (l->kind == NPU_K_CONV || l->kind == NPU_K_DECONV || l->kind == NPU_K_MATMUL) {
            l->kind = NPU_K_OTHER; /* no geometry: costed by its data only */
        }
    }
    /* the model's dtype: what most NPU layers compute in */
    ng->dtype = NPU_INT8;
    for (int d = 0; d < NPU_NDTYPE; d++)
        if (dt_count[d] > dt_count[ng->dtype])
            ng->dtype = d;
    *out = ng;
    *gout = g;
    return 0;
fail:
    npu_graph_free(ng);
    graph_free(g);
    return RT_EUNSUPPORTED;
}

static const char *quant_of(int npu_dtype)
{
    return npu_dtype == NPU_INT8 ? "i8" : npu_dtype == NPU_FP16 ? "fp16"
           : npu_dtype == NPU_INT16 ? "i16" : npu_dtype == NPU_BF16 ? "bf16" : "?";
}

static char *shapes_json(const npu_shape_t *s, int n)
{
    size_t cap = 16 + (size_t)n * 24 * NPU_SHAPE_MAX, len = 0;
    char *out = xmalloc(cap), one[24 * NPU_SHAPE_MAX];

    out[len++] = '[';
    for (int k = 0; k < n && k < NPU_MAX_IO; k++) {
        store_format_shape(one, sizeof(one), s[k].nd, s[k].d);
        len += (size_t)snprintf(out + len, cap - len, "%s%s", k ? "," : "", one);
    }
    snprintf(out + len, cap - len, "]");
    return out;
}

/* One store_layer per compiled node, from the costed graph. */
static void fill_layer_row(const rknn_model *m, const npu_graph_t *ng, int i, store_layer *row,
                           char *op, size_t oplen, char *wl, size_t wlen)
{
    const npu_layer_t *l = &ng->l[i];
    const char *colon = strchr(l->fullname, ':');
    size_t u = 0;

    store_layer_init(row);
    row->idx = i;
    row->node = l->fullname;
    /* the source op is the FullName's prefix ("Conv:Conv_0"), else the vendor op */
    snprintf(op, oplen, "%.*s", colon ? (int)(colon - l->fullname) : (int)strlen(l->optype),
             colon ? l->fullname : l->optype);
    row->op = op;
    row->name = l->n_src_tensors ? l->src_tensors[0] : NULL;
    row->dtype = l->out_tensor >= 0 ? rknn_dtype_name(m->tensors[l->out_tensor].dtype) : NULL;
    row->npu_cycles = (int64_t)l->npu_cycles;
    row->ddr_cycles = (int64_t)l->ddr_cycles;
    row->total_cycles = (int64_t)l->total_cycles;
    row->time_us = l->time_us;
    row->frame_us = l->frame_us;
    row->mac_usage = l->mac_usage[0];
    row->target = l->target == NPU_TGT_CPU ? "CPU" : "NPU";
    row->cpu_reason = l->reason;
    row->sram_hit = l->sram_hit;
    row->rw_kb = l->rw_kb;
    row->bound = npu_bound_name(l->bound);
    row->tasks = l->task_number;
    row->npu_op = l->optype;
    row->npu_dtype = l->datatype;
    wl[0] = '\0';
    for (int c = 0; c < ng->plat->cores && c < NPU_MAX_CORES && u < wlen; c++)
        u += (size_t)snprintf(wl + u, wlen - u, "%s%.0f%%", c ? "/" : "", l->workload[c]);
    row->workload = wl;
}

/* The prediction as the store keeps it: one run (backend "predict") and a layer
 * row per compiled node, built once; recorded unless --no-db, and printed by the
 * run summary that `show` prints again. */
typedef struct prediction {
    store_run run;
    store_layer *rows;
    int n;
    char sha[65], extra[256], time[32], path[4096];
    char (*op)[48], (*wl)[96];
    char **ins, **outs;
} prediction;

static int prediction_build(const char *path, const char *label, const rknn_model *m,
                            const npu_graph_t *ng, prediction *p, char *err, size_t errlen)
{
    void *buf = NULL;
    size_t len = 0, n = (size_t)(ng->n ? ng->n : 1);
    int rc;

    memset(p, 0, sizeof(*p));
    if ((rc = rt_read_file(path, &buf, &len, err, errlen)))
        return rc;
    rt_sha256_hex(buf, len, p->sha);
    free(buf);
    /* what has no column: the file's versions, and that no outputs were computed */
    snprintf(p->extra, sizeof(p->extra), "{\"toolkit\":\"%.60s\",\"compiler\":\"%.60s\","
             "\"numeric_outputs\":false}", m->toolkit ? m->toolkit : "",
             m->compiler ? m->compiler : "");
    for (char *c = p->extra; *c; c++) /* versions are plain text: keep the JSON valid */
        if (*c == '\\' || (unsigned char)*c < 0x20)
            *c = '?';
    rt_iso_time(p->time, sizeof(p->time));
    store_run_init(&p->run);
    p->run.label = label;
    p->run.time = p->time;
    p->run.model_path = realpath(path, p->path) ? p->path : path;
    p->run.model_sha256 = p->sha;
    p->run.model_format = "rknn";
    p->run.platform = ng->plat->name;
    p->run.backend = "predict";
    p->run.quant = quant_of(ng->dtype);
    p->run.iterations = 0;
    p->run.extra_json = p->extra;
    p->run.npu_us = npu_frame_us(ng);
    if (ng->mem) {
        p->run.weight_bytes = (int64_t)ng->mem->weight_size;
        p->run.internal_bytes = (int64_t)ng->mem->internal_size;
    }
    p->n = ng->n;
    p->rows = xcalloc(n, sizeof(*p->rows));
    p->op = xcalloc(n, sizeof(*p->op));
    p->wl = xcalloc(n, sizeof(*p->wl));
    p->ins = xcalloc(n, sizeof(*p->ins));
    p->outs = xcalloc(n, sizeof(*p->outs));
    for (int i = 0; i < ng->n; i++) {
        fill_layer_row(m, ng, i, &p->rows[i], p->op[i], sizeof(p->op[i]), p->wl[i],
                       sizeof(p->wl[i]));
        p->rows[i].in_shapes = p->ins[i] = shapes_json(ng->l[i].in, ng->l[i].n_in);
        p->rows[i].out_shapes = p->outs[i] = shapes_json(ng->l[i].out, ng->l[i].n_out);
    }
    return 0;
}

static void prediction_free(prediction *p)
{
    for (int i = 0; i < p->n; i++) {
        free(p->ins[i]);
        free(p->outs[i]);
    }
    free(p->rows);
    free(p->op);
    free(p->wl);
    free(p->ins);
    free(p->outs);
}

/* One transaction, as any run's rows are stored; sets p->run.id. */
static int prediction_store(const char *db, prediction *p, char *err, size_t errlen)
{
    run_rows rows = { .run = p->run, .layers = p->rows, .n_layers = p->n };
    int rc = run_rows_store(&rows, db, err, errlen);
    p->run.id = rows.run.id;
    return rc;
}

int cmd_run_rknn(int argc, char **argv)
{
    const char *model = NULL, *target = NULL, *label = NULL, *db = NULL, *v;
    int json = 0, no_db = 0, npu_table = 0, sram = 0, rc, ret = EXIT_INPUT;
    long long core_mask = 0;
    const npu_platform_t *plat;
    rknn_model *m = NULL;
    npu_graph_t *ng = NULL;
    graph_t *g = NULL;
    prediction pred;
    int built = 0;
    char err[1024];

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "-t") || cli_opt_is(a, "--target")) {
            if (!(target = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if (cli_opt_is(a, "--label")) {
            if (!(label = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if (cli_opt_is(a, "--db")) {
            if (!(db = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if (cli_opt_is(a, "--core-mask")) {
            if (!(v = cli_opt_value(argc, argv, &i)) || (core_mask = cli_parse_core_mask(v)) < 0)
                return EXIT_USAGE;
        } else if (!strcmp(a, "--npu-table")) {
            npu_table = 1;
        } else if (!strcmp(a, "--sram")) {
            sram = 1;
        } else if (!strcmp(a, "--no-db")) {
            no_db = 1;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (a[0] == '-' && a[1]) {
            cli_error("run: %s does not apply to a vendor .rknn on a PC (%s; see run --help)", a,
                      "only its profile is predicted");
            return EXIT_USAGE;
        } else if (cli_model_arg("run", a, &model)) {
            return EXIT_USAGE;
        }
    }
    if (!model) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if ((rc = rknn_model_read(model, &m, err, sizeof(err)))) {
        cli_error("%s", err);
        return cli_exit_code(rc);
    }
    if (m->container != RKNN_C_TK2_FB && !(m->container == RKNN_C_LITE && m->lite_graph)) {
        cli_error("%s: %s file: %s; `rknn-trace inspect %s` shows what it holds", model,
                  rknn_container_name(m->container),
                  m->container == RKNN_C_LITE
                      ? "no FlatBuffer graph found after its weights, so no layer list to predict "
                        "from (only the task table is read)"
                  : m->container == RKNN_C_ENCRYPTED ? "encrypted, nothing to predict from"
                  : "no compiled layer list (Toolkit1/RKNPU1 formats are not predicted)",
                  model);
        goto out;
    }
    {
        const char *ft = m->target ? m->target : m->fb_target;
        if (!ft || !(plat = npu_platform_find(ft))) {
            cli_error("%s: compiled for %s, a chip the NPU model does not know (known: %s); "
                      "`rknn-trace inspect` shows the file, no profile is predicted", model,
                      ft ? ft : "an unstated target", npu_platform_names());
            goto out;
        }
        if (target && !npu_platform_find(target)) {
            cli_error("-t %s: unknown platform (known: %s)", target, npu_platform_names());
            ret = EXIT_USAGE;
            goto out;
        }
        if (target && npu_platform_find(target) != plat) {
            cli_error("%s: compiled for %s; it cannot run on %s (-t)", model, plat->name, target);
            ret = EXIT_USAGE;
            goto out;
        }
    }
    if (sram && !plat->sram_bytes) {
        cli_error("--sram: %s has no NPU SRAM (only rk3588 has)", plat->name);
        ret = EXIT_USAGE;
        goto out;
    }
    /* as `run` does: the database can take the run, checked before it is computed */
    if (!no_db && (rc = store_preflight(store_default_path(db), label, err, sizeof(err)))) {
        cli_error("%s", err);
        ret = cli_exit_code(rc);
        goto out;
    }
    if ((rc = build_layers(m, plat, &ng, &g, err, sizeof(err)))) {
        cli_error("%s: %s", model, err);
        ret = cli_exit_code(rc);
        goto out;
    }
    if ((rc = npu_set_core_mask(ng, (unsigned)core_mask, err, sizeof(err)))) {
        cli_error("--core-mask: %s", err);
        ret = EXIT_USAGE;
        goto out;
    }
    if ((rc = npu_mem_plan(ng, g, sram ? npu_sram_pool_process(plat) : NULL, 0, err, sizeof(err)))) {
        cli_error("%s: memory plan: %s", model, err);
        ret = EXIT_INTERNAL;
        goto out;
    }
    npu_cost(ng);
    if ((rc = prediction_build(model, label, m, ng, &pred, err, sizeof(err)))) {
        cli_error("%s", err);
        ret = cli_exit_code(rc);
        goto out;
    }
    built = 1;
    /* a failure to record keeps the results: printed, then why they are not stored */
    rc = no_db ? 0 : prediction_store(store_default_path(db), &pred, err, sizeof(err));
    if (npu_table) {
        npu_print_perf_table(json ? stderr : stdout, ng, NPU_PRINT_PREFIX);
        if (sram)
            npu_print_sram_table(json ? stderr : stdout, ng, NPU_PRINT_PREFIX);
    }
    if (!json)
        printf("%s: %s file for %s (toolkit %s), %d compiled layers\n", model,
               rknn_container_name(m->container), ng->plat->name, m->toolkit ? m->toolkit : "?",
               ng->n);
    run_rows_print(&pred.run, pred.rows, pred.n, NULL, 0, NULL, 0, json, 0.99, stdout);
    ret = rc ? cli_not_recorded(err) : EXIT_OK;
out:
    if (built)
        prediction_free(&pred);
    npu_graph_free(ng);
    graph_free(g);
    rknn_model_free(m);
    return ret;
}
