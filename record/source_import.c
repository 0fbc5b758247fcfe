/* record/source_import.c — a run that a board or Toolkit2 printed (a log
 * scanned by tracer/vlog_scan.c) as the store's rows: its columns, its
 * environment and extra JSON, its accuracy and output rows. Only what the log
 * says: a figure it did not print stays missing. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "record/perf_rows.h"
#include "record/source_import.h"
#include "record/timing.h"
#include "util/util.h"
#include "runtime/npu/npu_platform.h"

static void json_str_if(json_writer *w, const char *key, const char *v)
{
    if (v && *v) {
        json_key(w, key);
        json_str(w, v);
    }
}

static void json_freqs(json_writer *w, const char *key, const int64_t *v, int n)
{
    if (!n)
        return;
    json_key(w, key);
    json_arr_open(w);
    for (int i = 0; i < n; i++)
        json_int_or_null(w, v[i], -1);
    json_arr_close(w);
}

/* The log's own environment (docs/store.md, env_json). */
char *import_env_json(const vlog_run_t *r, const char *source_path)
{
    const rtinfo_t *i = &r->info;
    const benchlog_t *b = &r->bench;
    char *text;
    size_t len;
    json_writer w;

    json_begin_mem(&w);
    json_obj_open(&w);
    json_str_if(&w, "source", source_path);
    json_str_if(&w, "soc", i->soc);
    json_str_if(&w, "runtime_version", i->runtime_version[0] ? i->runtime_version : b->runtime_version);
    json_str_if(&w, "runtime_build", i->runtime_build[0] ? i->runtime_build : b->runtime_build);
    json_str_if(&w, "driver_version", i->driver_version[0] ? i->driver_version : b->driver_version);
    json_str_if(&w, "toolkit_version", i->toolkit_version);
    json_str_if(&w, "compiler_version", i->compiler_version);
    json_str_if(&w, "compiler_build", i->compiler_build);
    json_str_if(&w, "model_version", i->model_version);
    json_str_if(&w, "npu_target", i->npu_target);
    json_str_if(&w, "framework", i->framework);
    json_str_if(&w, "framework_layout", i->layout);
    json_str_if(&w, "inference_type", i->inference_type);
    json_str_if(&w, "api_version", i->api_version);
    json_str_if(&w, "server_version", i->server_version);
    json_str_if(&w, "rkllm_runtime_version", i->rkllm_version);
    json_str_if(&w, "rkllm_toolkit_version", i->rkllm_toolkit_version);
    json_str_if(&w, "rknn_llm_lib_version", i->llm_lib_version);
    json_str_if(&w, "driver_required", i->driver_required);
    if (i->npu_mhz >= 0) {
        json_key(&w, "npu_clock_mhz");
        json_int(&w, i->npu_mhz);
    }
    if (i->ddr_mhz >= 0) {
        json_key(&w, "ddr_clock_mhz");
        json_int(&w, i->ddr_mhz);
    }
    json_freqs(&w, "cpu_freq_khz", i->cpu_khz, i->n_cpu_khz);
    json_freqs(&w, "npu_freq_hz", i->npu_hz, i->n_npu_hz);
    json_freqs(&w, "ddr_freq_hz", i->ddr_hz, i->n_ddr_hz);
    json_obj_close(&w);
    text = json_take(&w, &len);
    if (len <= 2) { /* "{}" */
        free(text);
        return NULL;
    }
    while (len && text[len - 1] == '\n')
        text[--len] = 0;
    return text;
}

/* The platform a log's text names: a platform table name as a word of its
 * own, case aside ("target platform: rk3588", "RKNN_TARGET=rk3588",
 * "rockchip,rk3588-evb", "RK3588 board"), outside '#' lines (notes of whoever
 * saved the log). Exactly one distinct name, else "" (none, or several). */
void import_log_platform(const char *text, size_t len, char *out, size_t outlen)
{
    const npu_platform_t *found = NULL;
    int bol = 1, comment = 0;

    out[0] = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (ch == '\n') {
            bol = 1, comment = 0;
            continue;
        }
        if (bol && (ch == ' ' || ch == '\t'))
            continue;
        if (bol)
            comment = tracer_is_comment(text + i, len - i), bol = 0;
        if (comment || (ch != 'r' && ch != 'R') || (i && isalnum((unsigned char)text[i - 1])))
            continue;
        for (int k = 0; npu_platform_at(k); k++) {
            const npu_platform_t *p = npu_platform_at(k);
            size_t n = strlen(p->name);
            if (i + n <= len && !strncasecmp(text + i, p->name, n) &&
                (i + n == len || !isalnum((unsigned char)text[i + n]))) {
                if (found && found != p)
                    return; /* several: the log does not say which */
                found = p;
            }
        }
    }
    if (found)
        snprintf(out, outlen, "%s", found->name);
}


/* "(1,32,112,112),(...)" and "(1,32,112,112)": the first shapes equal. */
static int first_shape_is(const char *list, const char *shape)
{
    size_t n = strlen(shape);
    return n > 2 && !strncmp(list, shape, n) && (list[n] == 0 || list[n] == ',');
}

/* SRAM table rows joined to the layers of the same run's per-layer table
 * (log-formats.md §4): a row is a tensor, its User the layer that reads it
 * (the first layer of that OpType, from the previous match on, whose first
 * input has the tensor's OrigShape); the tensor's SramHit bytes go to the
 * layer that wrote it (the last one before the reader whose first output has
 * that shape). hit[k]: bytes per perf row, NaN when nothing joined. Returns
 * the count of rows joined. */
int import_sram_join(const vlog_run_t *r, double *hit)
{
    const perflog_table_t *t = &r->perf;
    int joined = 0, from = 0;

    for (int k = 0; k < t->n_rows; k++)
        hit[k] = NAN;
    if (!r->has_sram || !r->has_perf || !r->sram.has_hit)
        return 0;
    for (int i = 0; i < r->sram.n_rows; i++) {
        const sramlog_row_t *x = &r->sram.rows[i];
        int reader = -1, writer = -1;
        if (x->hit < 0 || !x->origshape[0])
            continue;
        for (int k = from; k < t->n_rows && reader < 0; k++)
            if (!strcmp(t->rows[k].optype, x->user) && first_shape_is(t->rows[k].inshape, x->origshape))
                reader = k;
        for (int k = reader - 1; k >= 0 && writer < 0; k--)
            if (first_shape_is(t->rows[k].outshape, x->origshape))
                writer = k;
        if (writer < 0)
            continue;
        hit[writer] = (isnan(hit[writer]) ? 0 : hit[writer]) + (double)x->hit;
        from = reader;
        joined++;
    }
    return joined;
}

/* Figures of the run that have no column: the log's tables (perf ranking,
 * memory, SRAM, benchmark, errors), NULL when it printed none of them. */
char *import_extra_json(const vlog_run_t *r, const char *golden_dir)
{
    char *text;
    size_t len;
    json_writer w;
    int any = 0;

    json_begin_mem(&w);
    json_obj_open(&w);
    if (golden_dir) {
        /* the float model's tensors: `analyze RUN --golden DIR` */
        char *g = realpath(golden_dir, NULL);
        json_key(&w, "golden_dir");
        json_str(&w, g ? g : golden_dir);
        free(g);
        any = 1;
    }
    if (r->has_perf) {
        json_key(&w, "perf");
        json_obj_open(&w);
        json_key(&w, "generation");
        if (r->perf.generation)
            json_str(&w, (char[]){r->perf.generation, 0});
        else
            json_write_null(&w);
        json_key(&w, "total_rw_kb");
        json_num(&w, r->perf.total_rw_kb >= 0 ? r->perf.total_rw_kb : NAN);
        json_key(&w, "total_rw_mb");
        json_num(&w, r->perf.total_rw_mb >= 0 ? r->perf.total_rw_mb : NAN);
        /* a layer row keeps one MacUsage (the largest core's): whether the log printed
         * that figure on every core (1.6.0: "0.77/0.77/0.77" under 100%/0%/0%) or per
         * core, so that a rebuilt table prints it as the log did; null: one core */
        {
            int multi = 0, same = 1;
            for (int k = 0; k < r->perf.n_rows; k++) {
                const perflog_row_t *x = &r->perf.rows[k];
                multi |= x->n_mac > 1;
                for (int c = 1; c < x->n_mac; c++)
                    same &= x->mac[c] == x->mac[0];
            }
            json_key(&w, "mac_on_every_core");
            if (multi)
                json_bool(&w, same);
            else
                json_write_null(&w);
        }
        if (r->perf.n_ops) {
            json_key(&w, "ops");
            json_arr_open(&w);
            for (int k = 0; k < r->perf.n_ops; k++) {
                const perflog_op_t *o = &r->perf.ops[k];
                json_obj_open(&w);
                json_key(&w, "op"); json_str(&w, o->optype);
                json_key_int(&w, "calls", o->calls, -1);
                json_key_int(&w, "cpu_us", o->cpu_us, -1);
                json_key_int(&w, "gpu_us", o->gpu_us, -1);
                json_key(&w, "npu_us"); json_int(&w, o->npu_us);
                json_key(&w, "total_us"); json_int(&w, o->total_us);
                json_key(&w, "ratio"); json_num(&w, o->ratio >= 0 ? o->ratio : NAN);
                json_obj_close(&w);
            }
            json_arr_close(&w);
        }
        json_obj_close(&w);
        any = 1;
    }
    if (r->has_mem) {
        json_key(&w, "memory");
        json_obj_open(&w);
        json_key(&w, "weight_bytes"); json_num(&w, r->mem.weight >= 0 ? r->mem.weight : NAN);
        json_key(&w, "internal_bytes"); json_num(&w, r->mem.internal >= 0 ? r->mem.internal : NAN);
        json_key(&w, "other_bytes"); json_num(&w, r->mem.other >= 0 ? r->mem.other : NAN);
        json_key(&w, "total_bytes"); json_num(&w, r->mem.total >= 0 ? r->mem.total : NAN);
        json_key(&w, "model_bytes"); json_num(&w, r->mem.model_size >= 0 ? r->mem.model_size : NAN);
        /* the sizes as the log printed them (MiB with 2 decimals: the bytes
         * above are those figures times 2^20, not exact byte counts) */
        json_key(&w, "printed");
        json_obj_open(&w);
        static const char *const mem_keys[5] = {"weight", "internal", "other", "total", "model"};
        for (int k = 0; k < 5; k++) {
            json_key(&w, mem_keys[k]);
            json_str(&w, r->mem.text[k][0] ? r->mem.text[k] : NULL);
        }
        json_obj_close(&w);
        json_obj_close(&w);
        any = 1;
    }
    if (r->has_sram) {
        const sramlog_table_t *s = &r->sram;
        int64_t hit = 0;
        for (int k = 0; k < s->n_rows; k++)
            if (s->rows[k].hit > 0)
                hit += s->rows[k].hit;
        json_key(&w, "sram");
        json_obj_open(&w);
        json_key(&w, "kind"); json_str(&w, s->alloc_kind[0] ? s->alloc_kind : NULL);
        json_key_int(&w, "size", s->alloc_size, -1);
        json_key(&w, "tensors"); json_int(&w, s->n_rows);
        json_key(&w, "hit_bytes"); if (s->has_hit) json_int(&w, hit); else json_write_null(&w);
        json_key_int(&w, "rw_sram_hit", s->rw_sram_hit, -1);
        if (r->has_perf) {
            double *hit = xmalloc((size_t)(r->perf.n_rows ? r->perf.n_rows : 1) * sizeof(double));
            json_key(&w, "joined"); json_int(&w, import_sram_join(r, hit));
            free(hit);
        }
        json_obj_close(&w);
        any = 1;
    }
    if (r->has_bench) {
        const benchlog_t *b = &r->bench;
        int nw = b->n_warmup < BENCHLOG_MAX_WARMUP ? b->n_warmup : BENCHLOG_MAX_WARMUP;
        json_key(&w, "benchmark");
        json_obj_open(&w);
        /* as printed: the Avg line (null when the log has none), every timed
         * iteration's time and FPS, the warm-up's (null: no warm-up section) */
        json_key(&w, "avg_ms"); json_num(&w, b->avg_ms >= 0 ? b->avg_ms : NAN);
        json_key(&w, "avg_fps"); json_num(&w, b->avg_fps >= 0 ? b->avg_fps : NAN);
        json_key_int(&w, "dma_bytes", b->dma_size, -1);
        json_key(&w, "iteration_ms");
        json_arr_open(&w);
        for (int k = 0; k < b->n_perf; k++)
            json_num(&w, b->perf_ms[k]);
        json_arr_close(&w);
        json_key(&w, "iteration_fps");
        json_arr_open(&w);
        for (int k = 0; k < b->n_perf; k++)
            json_num(&w, b->perf_fps[k]);
        json_arr_close(&w);
        json_key(&w, "warmup");
        if (b->has_warmup) json_int(&w, b->n_warmup); else json_write_null(&w);
        json_key(&w, "warmup_ms");
        json_arr_open(&w);
        for (int k = 0; k < nw; k++)
            json_num(&w, b->warmup_ms[k]);
        json_arr_close(&w);
        json_key(&w, "warmup_fps");
        json_arr_open(&w);
        for (int k = 0; k < nw; k++)
            json_num(&w, b->warmup_fps[k]);
        json_arr_close(&w);
        json_obj_close(&w);
        any = 1;
    }
    if (r->n_errors) {
        /* the error lines as printed, and what the known ones mean: each meaning once,
         * in the order the lines first say it (an allocation failure, then the
         * file-descriptor limit behind the next ones) */
        const char *dx[3] = {NULL, NULL, NULL};
        int n = r->n_errors < VLOG_MAX_ERRORS ? r->n_errors : VLOG_MAX_ERRORS, n_dx = 0;
        json_key(&w, "errors");
        json_obj_open(&w);
        json_key(&w, "count"); json_int(&w, r->n_errors);
        json_key(&w, "lines");
        json_arr_open(&w);
        for (int k = 0; k < n; k++) {
            const char *d = errlog_diagnosis(r->errors[k], NULL);
            json_str(&w, r->errors[k]);
            for (int j = 0; d && j < n_dx; j++)
                if (!strncmp(dx[j], d, strcspn(d, "(:;")))
                    d = NULL; /* the same meaning (its words before any detail) */
            if (d && n_dx < 3)
                dx[n_dx++] = d;
        }
        json_arr_close(&w);
        json_key(&w, "diagnosis");
        if (!n_dx) {
            json_str(&w, "not a known error: read the lines");
        } else {
            size_t cap = 1;
            for (int j = 0; j < n_dx; j++)
                cap += strlen(dx[j]) + 7;
            char *all = xcalloc(cap, 1);
            for (int j = 0, at = 0; j < n_dx; j++)
                at += snprintf(all + at, cap - (size_t)at, "%s%s", j ? "; then " : "", dx[j]);
            json_str(&w, all);
            free(all);
        }
        json_obj_close(&w);
        any = 1;
    }
    if (r->n_warnings) {
        /* the known warning lines as printed, and what each kind means */
        int n = r->n_warnings < VLOG_MAX_ERRORS ? r->n_warnings : VLOG_MAX_ERRORS;
        json_key(&w, "warnings");
        json_obj_open(&w);
        json_key(&w, "count"); json_int(&w, r->n_warnings);
        json_key(&w, "lines");
        json_arr_open(&w);
        for (int k = 0; k < n; k++)
            json_str(&w, r->warnings[k]);
        json_arr_close(&w);
        json_key(&w, "notes");
        json_arr_open(&w);
        for (int k = 0; k < n; k++) {
            const char *m = errlog_warning(r->warnings[k]);
            int seen = 0;
            for (int j = 0; j < k && !seen; j++)
                seen = errlog_warning(r->warnings[j]) == m;
            if (m && !seen)
                json_str(&w, m);
        }
        json_arr_close(&w);
        json_obj_close(&w);
        any = 1;
    }
    json_obj_close(&w);
    text = json_take(&w, &len);
    if (!any) { /* nothing beyond the columns */
        free(text);
        return NULL;
    }
    while (len && text[len - 1] == '\n')
        text[--len] = 0;
    return text;
}

void import_run_facts(store_run *run, const vlog_run_t *r)
{
    run->import_kind = r->toolkit ? "accuracy_analysis simulator"
                       : r->build ? "toolkit build" : "board log";
    if (r->has_perf && r->perf.total_time_us >= 0)
        run->log_total_us = (double)r->perf.total_time_us;
}



int import_accuracy_add(store *st, int64_t id, const vlog_run_t *r, char *err, size_t errlen)
{
    for (int k = 0; k < r->n_acc; k++) {
        const acclog_row_t *a = &r->acc[k];
        store_accuracy s;
        int rc;

        store_accuracy_init(&s);
        s.idx = k;
        s.layer = !strcmp(a->op, "Input") ? -1 : k;
        s.name = a->name;
        s.op = a->op;
        s.fused = r->toolkit && a->n_cells == 0;
        s.is_output = k == r->n_acc - 1;
        s.entire.cos = a->cos[0], s.entire.euc = a->euc[0];
        s.single.cos = a->cos[1], s.single.euc = a->euc[1];
        s.entire.max_abs = s.entire.mean_abs = s.entire.sqnr_db = NAN;
        s.single.max_abs = s.single.mean_abs = s.single.sqnr_db = NAN;
        /* a cos the log printed as 'nan' beside a euc it printed: Toolkit2's
         * constant tensor; a cos it did not print stays missing (n/a) */
        if (isnan(s.entire.cos) && !isnan(s.entire.euc))
            s.entire.flags = METRIC_X_CONST;
        if (isnan(s.single.cos) && !isnan(s.single.euc))
            s.single.flags = METRIC_X_CONST;
        if ((rc = store_accuracy_add(st, id, &s, err, errlen)))
            return rc;
    }
    return 0;
}

/* The chip a per-layer table's own columns name: MacUsage and WorkLoad print a
 * value per NPU core, and a core count that one chip alone has names it (3:
 * rk3588, 2: rk3576; one core is every other chip's). NULL otherwise. */
static const char *platform_of_cores(const perflog_table_t *t)
{
    const npu_platform_t *found = NULL;
    int cores = t->cores; /* the rows may be gone: a streamed run's are written and freed */

    if (cores < 2)
        return NULL;
    for (int k = 0; npu_platform_at(k); k++)
        if (npu_platform_at(k)->cores == cores) {
            if (found)
                return NULL;
            found = npu_platform_at(k);
        }
    return found ? found->name : NULL;
}

const char *import_run_platform(const vlog_run_t *r, const char *target, const char *log_platform)
{
    const npu_platform_t *p;

    if (target)
        return target;
    if (r->info.soc[0])
        return (p = npu_platform_find(r->info.soc)) ? p->name : r->info.soc;
    if (log_platform && log_platform[0])
        return log_platform;
    return r->has_perf ? platform_of_cores(&r->perf) : NULL;
}

void import_run_fill(store_run *run, const vlog_run_t *r, const char *target,
                     const char *log_platform)
{
    double total = NAN;

    store_run_init(run);
    run->backend = r->toolkit || r->build ? "toolkit" : "board";
    run->platform = import_run_platform(r, target, log_platform);
    run->status = r->failed ? "failed" : NULL;
    if (r->has_mem) {
        if (r->mem.weight >= 0) run->weight_bytes = (int64_t)llround(r->mem.weight);
        if (r->mem.internal >= 0) run->internal_bytes = (int64_t)llround(r->mem.internal);
    } else if (r->has_bench && r->bench.weight_size >= 0) {
        run->weight_bytes = r->bench.weight_size;
        run->internal_bytes = r->bench.internal_size;
    } else if (r->has_sram) {
        if (r->sram.total_weight >= 0) run->weight_bytes = r->sram.total_weight;
        if (r->sram.total_internal >= 0) run->internal_bytes = r->sram.total_internal;
    }
    if (r->has_perf && r->perf.total_time_us >= 0)
        total = (double)r->perf.total_time_us;
    if (r->has_bench) {
        if (r->bench.has_warmup) /* no warm-up section: the log does not say */
            run->warmup = r->bench.n_warmup;
        if (r->bench.n_perf) { /* the timed iterations: the statistics every source keeps */
            double *t = xmalloc((size_t)r->bench.n_perf * sizeof(double));
            for (int k = 0; k < r->bench.n_perf; k++)
                t[k] = r->bench.perf_ms[k] * 1000.0;
            time_stats ts = time_stats_of(t, r->bench.n_perf);
            run->iterations = r->bench.n_perf;
            run->host_min_us = ts.min;
            run->host_p90_us = ts.p90;
            run->host_stddev_us = ts.stddev;
            if (isnan(total))
                total = ts.median;
            free(t);
        }
        if (isnan(total) && r->bench.avg_ms >= 0)
            total = r->bench.avg_ms * 1000.0;
    }
    run->total_us = total;
}

int import_bench_outputs_add(store *st, int64_t id, const vlog_run_t *r, char *err, size_t errlen)
{
    for (int k = 0, o = 0; k < r->bench.n_tensors; k++) {
        const benchlog_tensor_t *t = &r->bench.tensors[k];
        store_output so;
        char shape[160];
        int rc;
        if (!t->is_output)
            continue;
        store_output_init(&so);
        so.idx = o++;
        so.name = t->name;
        so.shape = store_format_shape(shape, sizeof shape, t->n_dims, t->dims);
        so.dtype = perf_numpy_dtype(t->type);
        if ((rc = store_output_add(st, id, &so, err, errlen)))
            return rc;
    }
    return 0;
}
