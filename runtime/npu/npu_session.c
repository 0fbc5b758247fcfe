/* runtime/npu/npu_session.c — one prepared graph on the simulated NPU: lowering,
 * cores, memory plan, cost, and the NPU load its runs publish. What `rknn-trace run`
 * and librknnrt's contexts both drive (npu.h).
 *
 * One process-wide lock guards what sessions share: the chip's SRAM pool (the
 * driver has one per board) and the load window. Facts: shared/research/rknn-api.md
 * §10, log-formats.md §7, npu-hw.md §3.5. */
#include "runtime/npu/npu.h"
#include "util/util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t session_lock = PTHREAD_MUTEX_INITIALIZER;

/* Lowering; on a failure, the node the chip cannot run at all, also when the
 * dtype the chip lacks (fp32 ONNX on rv1106) hid it: asked again in int8. */
static int lower(const graph_t *g, const npu_session_opts *o, npu_graph_t **ng, int *bad,
                 char *err, size_t errlen)
{
    int st = npu_lower_at(g, o->plat, o->dtype, ng, bad, err, errlen);

    if (st && *bad < 0 && o->dtype != DT_INT8 && !npu_peak_macs(o->plat, NPU_FP16)) {
        npu_graph_t *g8 = NULL;
        char e8[512];
        if (npu_lower_at(g, o->plat, DT_INT8, &g8, bad, e8, sizeof(e8)) == 0)
            npu_graph_free(g8);
    }
    return st;
}

/* The memory plan, under the lock: SRAM from the process's pool when asked. */
static int plan(npu_session_t *s, const graph_t *g, char *err, size_t errlen)
{
    const npu_session_opts *o = &s->o;
    npu_sram_pool_t *pool;
    int st;

    pthread_mutex_lock(&session_lock);
    pool = o->sram ? npu_sram_pool_process(o->plat) : NULL;
    st = npu_mem_plan(s->ng, g, pool, o->sram_want, err, errlen);
    if (st && pool && o->context)
        st = npu_mem_plan(s->ng, g, NULL, 0, err, errlen);
    npu_mem_query(s->ng, pool, &s->mem);
    if (pool && o->context) {
        char e[256];
        npu_sram_pool_publish(pool, e, sizeof(e)); /* debugfs `mm`, best effort */
    }
    pthread_mutex_unlock(&session_lock);
    return st;
}

int npu_session_open(const graph_t *g, const npu_session_opts *o, npu_session_t **out,
                     int *unrunnable, char *err, size_t errlen)
{
    npu_graph_t *ng = NULL;
    int bad = -1, st;

    *out = NULL;
    st = lower(g, o, &ng, &bad, err, errlen);
    if (unrunnable)
        *unrunnable = bad;
    if (st)
        return st;
    return npu_session_adopt(ng, g, o, out, err, errlen);
}

int npu_session_adopt(npu_graph_t *ng, const graph_t *g, const npu_session_opts *o,
                      npu_session_t **out, char *err, size_t errlen)
{
    npu_session_t *s;
    int st;

    *out = NULL;
    s = xcalloc(1, sizeof(*s));
    s->ng = ng;
    s->o = *o;
    st = npu_set_core_mask(ng, o->core_mask, err, errlen);
    if (st && o->context)
        st = npu_set_core_mask(ng, 0 /* RKNN_NPU_CORE_AUTO */, err, errlen);
    if (!st)
        st = plan(s, g, err, errlen);
    if (st && o->context) {
        s->plan_rc = st;
        st = 0;
    }
    if (st) {
        npu_session_close(s);
        return st;
    }
    npu_cost(ng);
    *out = s;
    return 0;
}

void npu_session_close(npu_session_t *s)
{
    if (!s)
        return;
    npu_sram_pool_t *pool = s->ng && s->ng->mem ? s->ng->mem->pool : NULL;
    pthread_mutex_lock(&session_lock); /* gives its SRAM back to the shared pool */
    npu_graph_free(s->ng);
    if (pool && s->o.context) {
        char err[256];
        npu_sram_pool_publish(pool, err, sizeof(err)); /* debugfs `mm`, best effort */
    }
    pthread_mutex_unlock(&session_lock);
    free(s);
}

void npu_session_mem_sizes(const npu_platform_t *p, const npu_graph_t *ng,
                           npu_mem_sizes_t *out)
{
    pthread_mutex_lock(&session_lock);
    npu_mem_query(ng, p ? npu_sram_pool_process(p) : NULL, out);
    pthread_mutex_unlock(&session_lock);
}

int npu_session_load_frames(const npu_session_t *s, long long frames, npu_load_t *ld,
                            char *err, size_t errlen)
{
    npu_load_init(ld, s->ng->plat);
    for (long long it = 0; it < frames; it++)
        npu_load_add_run(ld, s->ng);
    ld->window_us = (double)frames * s->ng->total_us;
    return npu_load_publish(ld, err, errlen);
}

/* ---- the process's load window (rknn_run) ----------------------------------------- */

/* The driver adds each job's busy time per core and reads the sum over an interval of
 * RKNPU_LOAD_INTERVAL = 1 s (log-formats.md §7); here: the predicted busy time of
 * every rknn_run of the process within the last second of wall time. The file is
 * rewritten at most every LOAD_PUBLISH_US (a rename on a disk file system costs ~1.5
 * ms: too much for every frame of a small model) and at rknn_destroy, so the last
 * frames are never missing from it. */
#define LOAD_WINDOW_US 1e6
#define LOAD_PUBLISH_US 100e3

typedef struct load_ent {
    double t_us;
    double busy[NPU_MAX_CORES];
} load_ent;

static load_ent *load_ring;
static int load_n, load_cap, load_warned, load_dirty;
static double load_published_us = -1e18;
static const npu_platform_t *load_plat;

/* Drops runs older than the window. Under the lock. */
static void load_trim(double now)
{
    int k = 0;

    for (int i = 0; i < load_n; i++)
        if (load_ring[i].t_us > now - LOAD_WINDOW_US)
            load_ring[k++] = load_ring[i];
    load_n = k;
}

/* Publishes the sum over the window; the first failure's status. Under the lock. */
static int load_publish(double now, char *err, size_t errlen)
{
    npu_load_t ld;
    int st;

    load_trim(now);
    npu_load_init(&ld, load_plat);
    ld.window_us = LOAD_WINDOW_US;
    for (int i = 0; i < load_n; i++)
        for (int j = 0; j < NPU_MAX_CORES; j++)
            ld.busy_us[j] += load_ring[i].busy[j];
    st = npu_load_publish(&ld, err, errlen);
    load_published_us = now;
    load_dirty = 0;
    if (st && !load_warned) {
        load_warned = 1;
        return st;
    }
    return 0;
}

int npu_session_account_run(npu_session_t *s, int perf_debug, char *err, size_t errlen)
{
    npu_graph_t *ng = s->ng;
    npu_load_t one;
    double now;
    int st = 0;

    if (!ng->cost_valid)
        npu_cost(ng); /* depends only on lowering, cores and SRAM: no host time */
    npu_load_init(&one, ng->plat);
    if (perf_debug) {
        /* layer by layer, each paying the per-layer submission (the level-4 times) */
        npu_load_add_run(&one, ng);
    } else {
        /* one job of many tasks: the frame model's layer times, as npu_frame_us */
        for (int i = 0; i < ng->n; i++) {
            const npu_layer_t *l = &ng->l[i];
            double t = l->frame_us;
            if (l->target != NPU_TGT_NPU || t <= 0)
                continue;
            for (int k = 0; k < one.cores; k++)
                one.busy_us[k] += t * l->workload[k] / 100.0;
        }
    }
    pthread_mutex_lock(&session_lock);
    now = rt_now_us();
    if (load_n == load_cap)
        load_trim(now);
    if (load_n == load_cap) {
        load_cap = load_cap ? load_cap * 2 : 64;
        load_ring = xrealloc(load_ring, sizeof(*load_ring) * (size_t)load_cap);
    }
    load_ring[load_n].t_us = now;
    memcpy(load_ring[load_n].busy, one.busy_us, sizeof(one.busy_us));
    load_n++;
    load_plat = ng->plat; /* the chip of the last run names the cores */
    load_dirty = 1;
    if (now - load_published_us >= LOAD_PUBLISH_US)
        st = load_publish(now, err, errlen);
    pthread_mutex_unlock(&session_lock);
    return st;
}

int npu_session_load_flush(char *err, size_t errlen)
{
    int st = 0;

    pthread_mutex_lock(&session_lock);
    if (load_dirty)
        st = load_publish(rt_now_us(), err, errlen);
    pthread_mutex_unlock(&session_lock);
    return st;
}
