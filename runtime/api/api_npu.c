/* runtime/api/api_npu.c — the simulated NPU inside librknnrt as the vendor runtime
 * shows it: a context's NPU session (runtime/npu: the graph lowered once per context,
 * the Internal-buffer plan with RK3588 SRAM (RKNN_FLAG_ENABLE_SRAM,
 * RKNN_INTERNAL_MEM_TYPE=sram[#KB]), the NPU load published in the driver's `load`
 * format after every run), the level-3 SRAM table and the level-5 per-layer .npy
 * dumps under the vendor's names. Facts: shared/research/rknn-api.md §10,
 * log-formats.md §4, §5, §7, npu-hw.md §3.5. */
#include "runtime/api/api_internal.h"
#include "dump/dump.h"
#include "runtime/npu/npu.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- lowering and the memory plan ---------------------------------------------- */

void api_npu_drop(api_ctx *c)
{
    npu_session_close(c->npu);
    c->npu = NULL;
    c->npu_failed = 0;
}

/* Whether the context asks for SRAM and how much (0 = as much as is free). */
static int sram_wanted(const api_ctx *c, uint32_t *want)
{
    const char *env = getenv("RKNN_INTERNAL_MEM_TYPE");
    char err[256];
    int st = npu_sram_parse_mem_type(env, want, err, sizeof(err));

    if (st < 0) {
        API_W("%s; ignored (internal tensors in DDR unless RKNN_FLAG_ENABLE_SRAM)", err);
        *want = 0;
        st = 0;
    }
    if ((c->flag & RKNN_FLAG_SHARE_SRAM) && !(c->flag & RKNN_FLAG_ENABLE_SRAM) && !st)
        API_W("rknn_init, RKNN_FLAG_SHARE_SRAM needs RKNN_FLAG_ENABLE_SRAM: ignored, internal "
              "tensors stay in DDR");
    return st || (c->flag & RKNN_FLAG_ENABLE_SRAM);
}

/* The NPU data type of the context's container (an fp32 model runs as fp16). */
static int npu_dtype(const api_ctx *c)
{
    return c->qtype == QT_I8 ? DT_INT8 : c->qtype == QT_FP16 ? DT_FLOAT16 : DT_FLOAT;
}

/* The weight and internal sizes of a lowered graph's plan, else (no NPU model of the
 * graph) the host's: the constants and the executor's arena, in the container's dtype
 * (float data as int8 or fp16 elements). The one computation behind
 * RKNN_QUERY_MEM_SIZE, the level-3 "allocated internal size" line and the checks of
 * rknn_set_weight_mem / rknn_set_internal_mem / rknn_run. */
static void sizes_of(const api_ctx *c, const npu_graph_t *ng, uint64_t *weight,
                     uint64_t *internal)
{
    if (ng && ng->mem) {
        *weight = ng->mem->weight_size;
        *internal = ng->mem->internal_size;
        return;
    }
    int el = c->qtype == QT_I8 ? 1 : c->qtype == QT_FP16 ? 2 : 4;
    uint64_t w = 0;
    for (int i = 0; c->g && i < c->g->n_t; i++) {
        const tensor_t *t = &c->g->t[i];
        if (t->kind == TK_CONST && t->data)
            w += t->dtype == DT_FLOAT ? (uint64_t)tensor_numel(t) * (uint64_t)el
                                      : (uint64_t)tensor_nbytes(t);
    }
    *weight = w;
    *internal = c->x ? (uint64_t)exec_arena_bytes(c->x) * (uint64_t)el / 4 : 0;
}

void api_mem_need(const api_ctx *c, uint64_t *weight, uint64_t *internal)
{
    sizes_of(c, c->npu ? c->npu->ng : NULL, weight, internal);
}

/* Adds the current shapes' sizes to the largest seen (RKNN_QUERY_MEM_SIZE covers
 * every shape the context was prepared for). */
static void note_sizes(api_ctx *c, const npu_graph_t *ng)
{
    uint64_t w, i;

    sizes_of(c, ng, &w, &i);
    if (w > c->max_weight)
        c->max_weight = w;
    if (i > c->max_internal)
        c->max_internal = i;
}

void api_npu_measure(api_ctx *c)
{
    const npu_platform_t *np = npu_platform_find(c->plat->name);
    npu_session_t *s = NULL;
    char err[512];

    if (c->pending || !c->g)
        return;
    if (np) { /* without SRAM; a failure leaves the host's figures, as api_npu_prepare */
        npu_session_opts o = {.plat = np, .dtype = npu_dtype(c)};
        npu_session_open(c->g, &o, &s, NULL, err, sizeof(err));
    }
    note_sizes(c, s ? s->ng : NULL);
    npu_session_close(s);
}

int api_npu_prepare(api_ctx *c)
{
    const npu_platform_t *np;
    npu_session_t *s = NULL;
    char err[512] = "";
    uint32_t want = 0;
    int sram, st, bad = -1, ncpu = 0;

    api_npu_drop(c);
    if (c->pending || !c->g)
        return 0;
    sram = sram_wanted(c, &want);
    np = npu_platform_find(c->plat->name);
    if (np) {
        npu_session_opts o = {.plat = np, .dtype = npu_dtype(c),
                              .core_mask = (unsigned)c->core_mask,
                              .sram = sram && np->sram_bytes, .sram_want = want, .context = 1};
        st = npu_session_open(c->g, &o, &s, &bad, err, sizeof(err));
    } else {
        st = RT_EUNSUPPORTED;
    }
    if (bad >= 0) {
        /* a board: "E RKNN: unsupport cpu OP op ...", "rknn fallback cpu failed",
         * rknn_init returns -1 (rknn-toolkit2 issues 145, 482, 557) */
        npu_unrunnable_msg(c->g, np, bad, err, sizeof(err));
        API_E("%s", err);
        return RKNN_ERR_FAIL;
    }
    if (st) {
        API_D("no NPU cost model for %s (%s): PERF_DETAIL shows host CPU time, no NPU load "
              "and no SRAM", c->plat->name, np ? err : "platform not in runtime/npu");
        if (sram)
            API_W("rknn_init, RKNN_FLAG_ENABLE_SRAM: no NPU model of this graph on %s, so no "
                  "SRAM plan: running with internal tensors in DDR", c->plat->name);
        c->npu_failed = 1;
        note_sizes(c, NULL);
        return 0;
    }
    npu_graph_t *ng = s->ng;
    if (sram && !np->sram_bytes) {
        /* the vendor runtime allocates with an SRAM size of 0 when the driver has none */
        API_W("rknn_init, RKNN_FLAG_ENABLE_SRAM: %s has no NPU SRAM (only rk3588 has, 956 KB): "
              "running with internal tensors in DDR, as without the flag", np->name);
        sram = 0;
    }
    if (sram && (c->flag & RKNN_FLAG_SHARE_SRAM))
        API_W("rknn_init, RKNN_FLAG_SHARE_SRAM is not implemented (by the vendor runtime "
              "either): this context gets its own part of the SRAM");
    if (s->plan_rc)
        API_D("no Internal-buffer plan for this graph: %s", err);
    note_sizes(c, ng);
    for (int i = 0; i < ng->n; i++)
        ncpu += ng->l[i].target == NPU_TGT_CPU && ng->l[i].kind != NPU_K_IO;
    API_D("simulated NPU %s: %d layers (%d on the CPU), model data type %s, %d MHz", np->name,
          ng->n, ncpu, npu_dtype_name(ng->dtype), np->npu_mhz);
    if (ng->mem) {
        /* the 1.5.2 runtime's line (log-formats.md §4): the size RKNN_QUERY_MEM_SIZE
         * answers (the largest over the shapes prepared, a shape set's largest) */
        API_D("allocated internal size: %llu with sram size: %u, total sram size: %u, free "
              "sram size: %u", (unsigned long long)c->max_internal, ng->mem->sram_size,
              s->mem.total_sram_size, s->mem.free_sram_size);
        if (sram && ng->mem->sram_size == 0 && ng->mem->internal_size)
            API_W("rknn_init, RKNN_FLAG_ENABLE_SRAM: no free SRAM left on %s (%u of %u bytes "
                  "free, used by other contexts): internal tensors stay in DDR", np->name,
                  s->mem.free_sram_size, s->mem.total_sram_size);
        if (sram && api_log_level() >= 3)
            npu_print_sram_table(stderr, ng, NPU_PRINT_PREFIX | NPU_PRINT_DEBUG);
    }
    c->npu = s;
    return 0;
}

void api_npu_mem_sizes(const api_ctx *c, uint32_t *total_sram, uint32_t *free_sram)
{
    npu_mem_sizes_t ms;

    npu_session_mem_sizes(npu_platform_find(c->plat->name), c->npu ? c->npu->ng : NULL, &ms);
    *total_sram = ms.total_sram_size;
    *free_sram = ms.free_sram_size;
}

int api_npu_core_mask(api_ctx *c, unsigned mask, const char *fn)
{
    const npu_platform_t *np = npu_platform_find(c->plat->name);
    unsigned cores;
    char err[256];
    int st;

    if (c->npu)
        st = npu_set_core_mask(c->npu->ng, mask, err, sizeof(err));
    else if (np)
        st = npu_core_mask_check(np, mask, &cores, err, sizeof(err));
    else
        st = 0;
    if (st) {
        API_E("%s, %s: use a mask of the chip's cores (RKNN_NPU_CORE_AUTO or _ALL always work)",
              fn, err);
        return RKNN_ERR_PARAM_INVALID;
    }
    return RKNN_SUCC;
}

/* ---- level 5: per-layer dumps --------------------------------------------------- */

/* $RKNN_DUMP_DIR, else "dumps" in the working directory: the vendor's literal default
 * (a board's runtime writes /userdata/dumps, /data/dumps on Android). */
static const char *dump_path(void)
{
    const char *d = getenv("RKNN_DUMP_DIR");
    return d && *d ? d : "dumps";
}

static int mkdir_p(const char *dir)
{
    char tmp[1024];

    if (snprintf(tmp, sizeof(tmp), "%s", dir) >= (int)sizeof(tmp))
        return -1;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(tmp, 0755) && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(tmp, 0755) && errno != EEXIST ? -1 : 0;
}

/* One tensor under layer l's index and OpType. */
static void dump_one(const api_ctx *c, const npu_layer_t *l, int ti)
{
    const tensor_t *t = &c->g->t[ti];
    const char *dt = npu_dump_dtype(t->dtype);
    char name[512], path[1600], err[256];
    npu_shape_t s = {0};

    if (!t->data || t->ndim < 0)
        return;
    if (!dt) {
        API_D("no dump of %s: %s has no .npy form", t->name, dtype_name(t->dtype));
        return;
    }
    s.nd = t->ndim < NPU_SHAPE_MAX ? t->ndim : NPU_SHAPE_MAX;
    for (int i = 0; i < s.nd; i++)
        s.d[i] = t->dims[i];
    if (npu_dump_name(name, sizeof(name), l->id - 1, l->optype, t->name, &s, dt)) {
        API_W("no dump of %s: its file name is longer than %zu bytes", t->name, sizeof(name));
        return;
    }
    snprintf(path, sizeof(path), "%s/%s", dump_path(), name);
    API_D("dump npy tensor to: %s", path);
    if (npy_write(path, t->dtype, t->ndim, t->dims, t->data, err, sizeof(err)))
        API_E("failed open dump path: %s (%s)", path, err);
}

static int is_graph_input(const graph_t *g, int ti)
{
    for (int i = 0; i < g->n_inputs; i++)
        if (g->inputs[i] == ti)
            return 1;
    return 0;
}

const char *api_dump_dir(void)
{
    const char *dir = dump_path();

    if (mkdir_p(dir)) {
        API_E("cannot create the dump directory %s (RKNN_DUMP_DIR): %s", dir, strerror(errno));
        return NULL;
    }
    return dir;
}

void api_npu_dump_begin(api_ctx *c)
{
    if (!c->npu)
        return;
    const npu_graph_t *ng = c->npu->ng;
    API_D("Get NPU frequency: %dMHz (the simulator's cost-model clock, no board)",
          ng->plat->npu_mhz);
    API_D("Get DDR frequency: %dMHz (the simulator's cost-model clock, no board)",
          ng->plat->ddr_mhz);
    api_dump_dir();
    /* graph inputs: the InputOperator's output and every layer reading one (vendor
     * dumps "001_ConvClip_input_..." next to "001_ConvClip_317_...") */
    for (int i = 0; i < ng->n; i++) {
        const npu_layer_t *l = &ng->l[i];
        for (int k = 0; k < l->n_out_v; k++)
            if (l->out_v[k] < c->g->n_t && is_graph_input(c->g, l->out_v[k]))
                dump_one(c, l, l->out_v[k]);
        for (int k = 0; k < l->n_in_v; k++)
            if (l->in_v[k] < c->g->n_t && is_graph_input(c->g, l->in_v[k]))
                dump_one(c, l, l->in_v[k]);
    }
}

void api_npu_dump_event(api_ctx *c, const layer_event_t *ev)
{
    const node_t *n;

    if (!c->npu || ev->node < 0 || ev->node >= c->g->n_nodes)
        return;
    n = &c->g->nodes[ev->node];
    /* every layer that writes one of this node's outputs: the fused layer ending here,
     * an exDataConvert of it, the OutputOperator of a model output */
    for (int k = 0; k < n->n_out; k++) {
        int ti = n->out[k];
        if (ti < 0)
            continue;
        for (int i = 0; i < c->npu->ng->n; i++) {
            const npu_layer_t *l = &c->npu->ng->l[i];
            int hit = l->kind == NPU_K_IO && l->n_out_v == 0 && l->out_tensor == ti;
            for (int j = 0; j < l->n_out_v && !hit; j++)
                hit = l->out_v[j] == ti;
            if (hit)
                dump_one(c, l, ti);
        }
    }
}

/* ---- NPU load ------------------------------------------------------------------- */

void api_npu_account_run(api_ctx *c, int perf_debug)
{
    char err[512];

    if (c->npu && npu_session_account_run(c->npu, perf_debug, err, sizeof(err)))
        API_W("NPU load not published (RKNN_TRACE_SYSFS): %s", err);
}

void api_npu_load_flush(void)
{
    char err[512];

    if (npu_session_load_flush(err, sizeof(err)))
        API_W("NPU load not published (RKNN_TRACE_SYSFS): %s", err);
}
