/* record/source_attach.c — an application traced by `attach`: one context of
 * the interposer's journal as one run's rows (backend "board", or "simlib" for
 * an application on this project's librknnrt.so), its facts in the extra JSON
 * (docs/store.md). cli/cmd_attach.c runs the application and stores the rows. */
#include "record/board_facts.h"
#include "record/load_sampler.h"
#include "record/perf_rows.h"
#include "record/rows.h"
#include "record/source_attach.h"
#include "record/timing.h"
#include "record/version.h"
#include "util/util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int count_log_lines(const char *log)
{
    int n = 0;

    for (const char *l = log; l && *l;) {
        const char *e = strchr(l, '\n');
        if (strstr(l, " RKNN: ") && (!e || strstr(l, " RKNN: ") < e))
            n++;
        l = e ? e + 1 : NULL;
    }
    return n;
}

static char *extra_json(const trace_ctx *c, char *const *app, int status, int sig, int perf_every,
                        const trace_journal *j, int log_lines)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    json_writer w;
    if (!m)
        return NULL;
    json_begin(&w, m);
    json_obj_open(&w);
    json_key(&w, "source"); json_str(&w, "attach");
    json_key(&w, "app");
    json_arr_open(&w);
    for (int i = 0; app[i]; i++)
        json_str(&w, app[i]);
    json_arr_close(&w);
    json_key(&w, "exit_status"); sig ? json_write_null(&w) : json_int(&w, status);
    json_key(&w, "signal"); sig ? json_int(&w, sig) : json_write_null(&w);
    json_key(&w, "init_flags"); json_int(&w, c->flags);
    json_key(&w, "model_bytes"); json_int(&w, (int64_t)c->size);
    json_key_int(&w, "n_inputs", c->n_in, -1);
    json_key_int(&w, "n_outputs", c->n_out, -1);
    json_key(&w, "inputs_set_median_us"); json_num(&w, board_time_stats(c->set_us, c->n_set).median);
    json_key(&w, "outputs_get_median_us"); json_num(&w, board_time_stats(c->get_us, c->n_get).median);
    json_key(&w, "perf_every"); perf_every ? json_int(&w, perf_every) : json_write_null(&w);
    json_key(&w, "perf_tables"); json_int(&w, c->n_perf);
    json_key(&w, "tensors");
    if (c->attrs) {
        char *list = xmalloc(c->attrs_len + 3);
        snprintf(list, c->attrs_len + 3, "[%s]", c->attrs);
        json_raw(&w, list);
        free(list);
    } else {
        json_write_null(&w);
    }
    json_key(&w, "warnings");
    json_arr_open(&w);
    char prefix[48];
    snprintf(prefix, sizeof prefix, "context %llu: ", c->id);
    for (int i = 0; i < j->n_warn; i++)
        if (!strncmp(j->warn[i], prefix, strlen(prefix)))
            json_str(&w, j->warn[i] + strlen(prefix));
    json_arr_close(&w);
    json_key(&w, "log_lines"); json_int(&w, log_lines);
    /* every iteration's times, in order (the first 10000) */
    const struct { const char *key; const double *v; int n; } lists[] = {
        {"run_us", c->run_us, c->n_run}, {"inputs_set_us", c->set_us, c->n_set},
        {"outputs_get_us", c->get_us, c->n_get}};
    for (int l = 0; l < 3; l++) {
        json_key(&w, lists[l].key);
        json_arr_open(&w);
        for (int i = 0; i < lists[l].n && i < 10000; i++)
            json_num(&w, round(lists[l].v[i] * 1000) / 1000);
        json_arr_close(&w);
    }
    /* the process's calls of every rknn_* function (all contexts together) */
    json_key(&w, "process_calls");
    json_obj_open(&w);
    for (int i = 0; i < j->n_fn; i++) {
        json_key(&w, j->fn[i].name);
        json_obj_open(&w);
        json_key(&w, "calls"); json_int(&w, j->fn[i].calls);
        json_key(&w, "total_us"); json_num(&w, j->fn[i].ns / 1e3);
        json_obj_close(&w);
    }
    json_obj_close(&w);
    json_obj_close(&w);
    fclose(m);
    return text;
}

/* One context as one run's rows: the last per-layer table read after a run
 * (else a level-4 table in the log of the only context), the board's facts
 * (a vendor .rknn by its path or the copy the interposer saved), the samples
 * taken while the context ran. */
int run_rows_attach(const attach_run *a, run_rows *rows, char *err, size_t errlen)
{
    const trace_ctx *c = a->ctx;
    const load_sampler *smp = a->smp;
    perflog_table_t *tables = NULL;
    int n_tables = 0;
    time_stats ts = time_stats_of(c->run_us, c->n_run);

    memset(rows, 0, sizeof(*rows));
    /* layers: the last table read after a run, else a level-4 table in the log */
    if (c->perf)
        perflog_parse(c->perf, c->perf_len, &tables, &n_tables, err, errlen);
    else if (a->single && a->log)
        perflog_parse(a->log, strlen(a->log), &tables, &n_tables, err, errlen);
    board_facts bf = {.api_version = c->api, .drv_version = c->drv};
    if (!strcmp(c->kind, "rknn")) {
        /* the model: by its path, or the copy the interposer saved under its hash */
        void *data = NULL;
        size_t n = 0;
        char saved[PATH_MAX + 80], e2[128];
        snprintf(saved, sizeof saved, "%s/%s.rknn", a->model_dir, c->sha);
        if (!rt_read_file(c->path[0] ? c->path : saved, &data, &n, e2, sizeof e2))
            board_model_facts(&bf, data, n);
        free(data);
    }
    store_run_init(&rows->run);
    rows->run.env_json = rows->env = run_env_json(a->root, &bf);
    rows->run.extra_json = rows->extra =
        extra_json(c, a->app, a->status, a->sig, a->perf_every, a->journal,
                   a->log ? count_log_lines(a->log) : 0);
    if (a->label) {
        char lab[256];
        if (a->k)
            snprintf(lab, sizeof lab, "%s-%d", a->label, a->k + 1);
        else
            snprintf(lab, sizeof lab, "%s", a->label);
        rows->run.label = run_rows_keep(rows, xstrdup(lab));
    }
    /* an application on this project's simulated runtime ran nothing on a board */
    rows->run.backend = !strcmp(a->journal->runtime, "simlib") ? "simlib" : "board";
    rows->run.model_path = c->path[0] ? c->path : NULL;
    rows->run.model_sha256 = strcmp(c->sha, "") ? c->sha : NULL;
    rows->run.model_format = !strcmp(c->kind, "rknn") ? "rknn" : !strcmp(c->kind, "onnx") ? "onnx"
                           : !strcmp(c->kind, "sim") ? "rknn-sim" : NULL;
    rows->run.iterations = c->n_run;
    rows->run.warmup = 0;
    rows->run.total_us = ts.median;
    rows->run.host_min_us = ts.min;
    rows->run.host_p90_us = ts.p90;
    rows->run.host_stddev_us = ts.stddev;
    char platbuf[32];
    const char *plat = board_platform(NULL, &bf, a->root, platbuf, sizeof platbuf);
    rows->run.platform = plat ? run_rows_keep(rows, xstrdup(plat)) : NULL;
    if (c->weight >= 0) {
        rows->run.weight_bytes = c->weight;
        rows->run.internal_bytes = c->internal;
    }
    rows->run.tool_version = RKNN_TRACE_VERSION;
    /* RKNN_QUERY_PERF_RUN of the last profiled run: measured, not a prediction */
    if (c->perf_run_us >= 0)
        rows->run.perf_run_us = c->perf_run_us;
    /* the summary's NPU load: mean per core while the context ran */
    int lp[BOARD_MAX_CORES], nl = load_sampler_mean(smp, c->first_t, c->last_t + 100e3, lp);
    for (int core = 0; core < nl && core < STORE_MAX_CORES; core++)
        rows->run.load_pct[rows->run.n_load++] = lp[core];
    if (n_tables) {
        perf_layers pl;
        perf_layers_make(&pl, &tables[n_tables - 1], NULL);
        rows->layers = pl.rows;
        rows->perf_text = pl.text;
        rows->n_layers = pl.n;
    }
    rows->perf_tables = tables;
    rows->n_perf_tables = n_tables;
    /* the samples taken while this context ran, from its first run on */
    rows->load = xcalloc((size_t)(smp->n ? smp->n : 1), sizeof(*rows->load));
    for (int i = 0; i < smp->n; i++) {
        store_load_sample s = smp->rows[i];
        double at = smp->t0 + s.t_us;
        if (c->n_run && (at < c->first_t - 100e3 || at > c->last_t + 100e3))
            continue;
        s.t_us = at - c->first_t;
        rows->load[rows->n_load++] = s;
    }
    return RT_OK;
}
