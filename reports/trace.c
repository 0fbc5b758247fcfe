/* reports/trace.c — `report -f trace`: one frame of a run as Chrome
 * trace-event JSON (Perfetto, chrome://tracing). Layers run one after another:
 * each is a complete event ("X") on the track of every NPU core its workload
 * uses (core 0 when the split is unknown) or on the CPU track, and so are a
 * prediction's own level-4 rows (Input/OutputOperator, conversions: args
 * layer null) at their place in the table, so that the timeline ends at the
 * predicted frame; times are the
 * predicted frame shares, or a board run's measured table times. Counter
 * tracks: NPU load (the samples stored with the run; without them the busy
 * share each core gets from the layers) and DDR traffic (MB/s over a layer).
 * Timestamps are microseconds, rounded so that events on one track never
 * overlap. */
#include "reports/reports.h"
#include "runtime/npu/npu.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TID_CPU 100

/* Per-core shares of "30%/30%/40%" (the vendor's WorkLoad column); 0 when
 * the text gives none. */
static int workload_split(const char *w, double share[NPU_MAX_CORES])
{
    int n = 0;
    for (const char *p = w; p && *p && n < NPU_MAX_CORES;) {
        char *end;
        double v = strtod(p, &end);
        if (end == p)
            return 0;
        share[n++] = v;
        p = end + strspn(end, "% /");
    }
    return n;
}

static void str_arg(json_writer *w, const char *k, const char *v)
{
    json_key(w, k), json_str(w, v);
}

static void num_arg(json_writer *w, const char *k, double v)
{
    json_key(w, k), json_num(w, v);
}

static void meta(json_writer *w, int tid, const char *what, const char *name)
{
    json_obj_open(w);
    str_arg(w, "ph", "M");
    json_key(w, "pid"), json_int(w, 1);
    json_key(w, "tid"), json_int(w, tid);
    str_arg(w, "name", what);
    json_key(w, "args"), json_obj_open(w), str_arg(w, "name", name), json_obj_close(w);
    json_obj_close(w);
}

static double round3(double v)
{
    return round(v * 1000) / 1000;
}

static void counter(json_writer *w, const char *name, double ts, const char *key, double v)
{
    json_obj_open(w);
    str_arg(w, "ph", "C");
    json_key(w, "pid"), json_int(w, 1);
    str_arg(w, "name", name);
    num_arg(w, "ts", round3(ts));
    json_key(w, "args"), json_obj_open(w), num_arg(w, key, v), json_obj_close(w);
    json_obj_close(w);
}

int report_trace(const rep_doc *d, FILE *f)
{
    const report_run *r = &d->runs[0];
    const npu_platform_t *p = npu_platform_find(r->run.platform);
    int cores = p ? p->cores : 1, board = rep_is_board(r), skipped = 0;
    double t = 0;
    char nm[160], title[256];
    json_writer w;

    for (int i = 0; i < r->n_layers; i++) {
        double share[NPU_MAX_CORES];
        int n = workload_split(r->layers[i].workload, share);
        if (n > cores)
            cores = n;
    }
    json_begin(&w, f);
    json_obj_open(&w);
    str_arg(&w, "displayTimeUnit", "ns");
    json_key(&w, "otherData");
    json_obj_open(&w);
    str_arg(&w, "run", rep_run_name(r, nm, sizeof(nm)));
    str_arg(&w, "model", r->run.model_path);
    str_arg(&w, "platform", r->run.platform);
    str_arg(&w, "backend", r->run.backend);
    str_arg(&w, "times", board ? "measured (board)" : "predicted (NPU model)");
    json_obj_close(&w);
    json_key(&w, "traceEvents");
    json_arr_open(&w);
    snprintf(title, sizeof(title), "rknn-trace run %s (%s, %s)", nm, rep_str(r->run.platform),
             board ? "measured" : "predicted");
    meta(&w, 0, "process_name", title);
    for (int c = 0; c < cores; c++) {
        char tn[32];
        snprintf(tn, sizeof(tn), "NPU core %d", c);
        meta(&w, c + 1, "thread_name", tn);
    }
    meta(&w, TID_CPU, "thread_name", "CPU");

    double busy_prev[NPU_MAX_CORES] = { -1, -1, -1 };
    double ddr_prev = -1;
    /* the frame's rows in table order: a prediction's Input/OutputOperator and
     * conversions (npu_layers) take their place on the timeline */
    int n_rows;
    const store_layer **rows = summary_timeline(&r->sum, &n_rows);
    for (int i = 0; i < n_rows; i++) {
        const store_layer *l = rows[i];
        double us = rep_layer_us(r, l);
        if (isnan(us) || us < 0) {
            skipped++;
            continue;
        }
        double ts = round3(t), dur = round3(t + us) - ts;
        int cpu = (l->target && !strcmp(l->target, "CPU")) || (l->bound && !strcmp(l->bound, "CPU"));
        double share[NPU_MAX_CORES] = { 0 };
        int ns = cpu ? 0 : workload_split(l->workload, share);
        if (!cpu && !ns)
            share[0] = 100, ns = 1;
        for (int c = 0; c < (cpu ? 1 : ns); c++) {
            if (!cpu && share[c] <= 0)
                continue;
            json_obj_open(&w);
            str_arg(&w, "ph", "X");
            json_key(&w, "pid"), json_int(&w, 1);
            json_key(&w, "tid"), json_int(&w, cpu ? TID_CPU : c + 1);
            str_arg(&w, "name", l->npu_op ? l->npu_op : l->op ? l->op : "?");
            str_arg(&w, "cat", cpu ? "CPU" : "NPU");
            num_arg(&w, "ts", ts);
            num_arg(&w, "dur", dur);
            json_key(&w, "args");
            json_obj_open(&w);
            json_key_int(&w, "layer", l->idx, STORE_NULL_INT); /* null: an npu row */
            json_key_int(&w, "table_id", l->table_id, STORE_NULL_INT);
            str_arg(&w, "node", l->node);
            str_arg(&w, "op", l->op);
            str_arg(&w, "name", l->name);
            json_key(&w, "in_shapes"), json_raw(&w, l->in_shapes);
            json_key(&w, "out_shapes"), json_raw(&w, l->out_shapes);
            str_arg(&w, "dtype", l->npu_dtype ? l->npu_dtype : l->dtype);
            json_key_int(&w, "npu_cycles", l->npu_cycles, STORE_NULL_INT);
            json_key_int(&w, "ddr_cycles", l->ddr_cycles, STORE_NULL_INT);
            json_key_int(&w, "total_cycles", l->total_cycles, STORE_NULL_INT);
            num_arg(&w, "mac_usage_pct", l->mac_usage);
            str_arg(&w, "bound", l->bound);
            num_arg(&w, "rw_kb", l->rw_kb);
            num_arg(&w, "sram_hit_bytes", l->sram_hit);
            str_arg(&w, "workload", l->workload);
            str_arg(&w, "cpu_reason", l->cpu_reason);
            num_arg(&w, "time_us", l->time_us);
            num_arg(&w, "frame_us", l->frame_us);
            json_obj_close(&w);
            json_obj_close(&w);
        }
        /* counters change only where a value changes */
        if (!r->n_load)
            for (int c = 0; c < cores && c < NPU_MAX_CORES; c++) {
                double busy = cpu ? 0 : share[c];
                if (busy != busy_prev[c]) {
                    char name[48];
                    snprintf(name, sizeof(name), "NPU busy %% core %d (from layers)", c);
                    counter(&w, name, ts, "busy", busy);
                    busy_prev[c] = busy;
                }
            }
        double mbs = !isnan(l->rw_kb) && dur > 0 ? l->rw_kb * 1024 / dur : 0;
        if (mbs != ddr_prev) {
            counter(&w, "DDR traffic MB/s", ts, "MB/s", mbs);
            ddr_prev = mbs;
        }
        t += us;
    }
    free(rows);
    if (!r->n_load)
        for (int c = 0; c < cores && c < NPU_MAX_CORES; c++) {
            char name[48];
            snprintf(name, sizeof(name), "NPU busy %% core %d (from layers)", c);
            counter(&w, name, t, "busy", 0);
        }
    counter(&w, "DDR traffic MB/s", t, "MB/s", 0);
    for (int i = 0; i < r->n_load; i++) {
        const store_load_sample *s = &r->load[i];
        if (isnan(s->t_us) || isnan(s->load_pct))
            continue;
        char name[48];
        snprintf(name, sizeof(name), "NPU load %% core %lld (sampled)",
                 s->core == STORE_NULL_INT ? 0LL : (long long)s->core);
        counter(&w, name, s->t_us, "load", s->load_pct);
    }
    json_arr_close(&w);
    json_key(&w, "layers_without_time"), json_int(&w, skipped);
    json_obj_close(&w);
    json_end(&w);
    return RT_OK;
}
