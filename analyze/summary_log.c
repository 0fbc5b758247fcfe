/* analyze/summary_log.c — what an imported log printed that no column holds:
 * the versions it named (env_json), its error lines with their diagnosis, the
 * runtime's known warnings with what they mean, rknn_benchmark's own figures and the perf table's totals (extra_json, written
 * by `import`, record/source_import.c). Read once for the run summary, so that
 * `show`, the TUI and the run document (`show --json`, reports) say the same. */
#include "analyze/analyze.h"
#include "util/escape.h"
#include "util/util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* env_json keys, in the order and under the words every surface prints them */
static const char *const version_keys[SUMMARY_LOG_NVERSIONS][2] = {
    {"runtime_version", "runtime"},
    {"rkllm_runtime_version", "rkllm"},
    {"rknn_llm_lib_version", "rknn llm lib"},
    {"driver_version", "driver"},
    {"server_version", "rknn_server"},
    {"api_version", "API"},
    {"toolkit_version", "toolkit"},
    {"rkllm_toolkit_version", "rkllm-toolkit"},
    {"compiler_version", "compiler"}};

static char *dup_str(const json_t *v)
{
    const char *s = json_string_value(v);
    return s && *s ? xstrdup(s) : NULL;
}

static double num(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* the log's file and the versions it named (import's env_json) */
static void read_env(const char *env_json, summary_log *l)
{
    json_t *env = env_json ? json_loads(env_json, 0, NULL) : NULL;
    l->file = dup_str(json_object_get(env, "source"));
    for (int k = 0; k < SUMMARY_LOG_NVERSIONS; k++)
        l->versions[k] = dup_str(json_object_get(env, version_keys[k][0]));
    l->driver_required = dup_str(json_object_get(env, "driver_required"));
    json_decref(env);
}

/* a stored list of lines (a block's "lines" or "notes"), NULL or absent: none */
static char **read_lines(const json_t *a, int *n)
{
    size_t m = json_is_array(a) ? json_array_size(a) : 0;
    char **lines = xcalloc(m ? m : 1, sizeof(char *));
    *n = 0;
    for (size_t k = 0; k < m; k++) {
        const char *s = json_string_value(json_array_get(a, k));
        if (s)
            lines[(*n)++] = xstrdup(s);
    }
    return lines;
}

/* a stored {count, ...} block's count, -1 when the block is absent */
static int64_t block_count(const json_t *o)
{
    return json_is_object(o) ? json_integer_value(json_object_get(o, "count")) : -1;
}

static void read_extra(const store_run *run, summary_log *l)
{
    json_t *root = run->extra_json ? json_loads(run->extra_json, 0, NULL) : NULL;
    const json_t *e = json_object_get(root, "errors"), *b = json_object_get(root, "benchmark");
    const json_t *p = json_object_get(root, "perf");

    l->n_errors = block_count(e);
    l->error_lines = read_lines(json_object_get(e, "lines"), &l->n_error_lines);
    l->diagnosis = dup_str(json_object_get(e, "diagnosis"));
    const json_t *wn = json_object_get(root, "warnings");
    l->n_warnings = block_count(wn);
    l->warning_lines = read_lines(json_object_get(wn, "lines"), &l->n_warning_lines);
    l->notes = read_lines(json_object_get(wn, "notes"), &l->n_notes);
    if (json_is_object(b)) {
        const json_t *ms = json_object_get(b, "iteration_ms"), *fps = json_object_get(b, "iteration_fps");
        l->has_benchmark = 1;
        l->bench_avg_ms = num(b, "avg_ms");
        l->bench_avg_fps = num(b, "avg_fps");
        l->bench_warmup = num(b, "warmup");
        l->bench_iterations = (int)json_array_size(ms);
        l->bench_fps_min = l->bench_fps_max = NAN;
        size_t k;
        const json_t *v;
        json_array_foreach(fps, k, v) {
            double x = json_number_value(v);
            if (isnan(l->bench_fps_min) || x < l->bench_fps_min)
                l->bench_fps_min = x;
            if (isnan(l->bench_fps_max) || x > l->bench_fps_max)
                l->bench_fps_max = x;
        }
    }
    l->rw_kb = num(p, "total_rw_kb");
    l->has_totals = json_is_object(p) && (!isnan(run->log_total_us) || !isnan(l->rw_kb));
    l->operator_us = run->log_total_us;
    json_decref(root);
}

char *summary_log_file(const store_run *run)
{
    summary_log l = { 0 };
    if (!run->import_kind)
        return NULL;
    read_env(run->env_json, &l); /* the versions beside it: one small object */
    char *file = l.file;
    l.file = NULL;
    summary_log_free(&l);
    return file;
}

void summary_log_read(const store_run *run, summary_log *l)
{
    memset(l, 0, sizeof(*l));
    l->n_errors = l->n_warnings = -1;
    l->operator_us = l->rw_kb = NAN;
    if (!run->import_kind)
        return;
    l->present = 1;
    l->kind = run->import_kind;
    read_env(run->env_json, l);
    read_extra(run, l);
}

void summary_log_free(summary_log *l)
{
    free(l->file);
    for (int k = 0; k < SUMMARY_LOG_NVERSIONS; k++)
        free(l->versions[k]);
    free(l->driver_required);
    for (int k = 0; k < l->n_error_lines; k++)
        free(l->error_lines[k]);
    free(l->error_lines);
    free(l->diagnosis);
    for (int k = 0; k < l->n_warning_lines; k++)
        free(l->warning_lines[k]);
    free(l->warning_lines);
    for (int k = 0; k < l->n_notes; k++)
        free(l->notes[k]);
    free(l->notes);
    memset(l, 0, sizeof(*l));
}

static const char *tt(const char *s)
{
    return esc_tmp(ESC_TERM, s);
}

static void print_num(FILE *f, const char *fmt, double v)
{
    if (isnan(v))
        fputs("n/a", f);
    else
        fprintf(f, fmt, v);
}

/* the stored lines, then how many more the log had (the store keeps the first ones) */
static void print_lines(FILE *f, char *const *lines, int n, int64_t count)
{
    for (int k = 0; k < n; k++)
        fprintf(f, "  %s\n", tt(lines[k]));
    if (count > n)
        fprintf(f, "  ... %lld more\n", (long long)(count - n));
}

void summary_log_print(const summary_log *l, const char *status, FILE *f)
{
    if (!l->present)
        return;
    if (l->file)
        fprintf(f, "\nimported  %s (%s)\n", tt(l->file), l->kind ? tt(l->kind) : "log");
    int any = 0;
    for (int k = 0; k < SUMMARY_LOG_NVERSIONS; k++) {
        int drv = !strcmp(version_keys[k][0], "driver_version");
        if (!l->versions[k] && !(drv && l->driver_required))
            continue;
        fprintf(f, "%s %s %s", any ? "," : "\nversions ", version_keys[k][1],
                l->versions[k] ? tt(l->versions[k]) : "n/a");
        /* RKLLM's warning: the driver it asks for, kept beside the one it found */
        if (drv && l->driver_required)
            fprintf(f, " (the runtime asks for %s or later)", tt(l->driver_required));
        any = 1;
    }
    if (any)
        fputc('\n', f);
    if (l->n_errors >= 0) {
        fprintf(f, "\nstatus    %s: %lld error line%s in the log\n", status ? tt(status) : "ok",
                (long long)l->n_errors, l->n_errors == 1 ? "" : "s");
        print_lines(f, l->error_lines, l->n_error_lines, l->n_errors);
        if (l->diagnosis)
            fprintf(f, "diagnosis %s\n", tt(l->diagnosis));
    }
    if (l->n_warnings >= 0) {
        fprintf(f, "\nwarnings  %lld known warning line%s in the log\n", (long long)l->n_warnings,
                l->n_warnings == 1 ? "" : "s");
        print_lines(f, l->warning_lines, l->n_warning_lines, l->n_warnings);
        for (int k = 0; k < l->n_notes; k++)
            fprintf(f, "note      %s\n", tt(l->notes[k]));
    }
    if (l->has_benchmark) {
        fputs("\nbenchmark avg ", f);
        print_num(f, "%.2f ms", l->bench_avg_ms);
        fputs(", avg FPS ", f);
        print_num(f, "%.2f", l->bench_avg_fps);
        fprintf(f, " (the log's Avg line); %d timed iteration%s", l->bench_iterations,
                l->bench_iterations == 1 ? "" : "s");
        if (!isnan(l->bench_fps_min))
            fprintf(f, ", FPS %.2f..%.2f", l->bench_fps_min, l->bench_fps_max);
        fputs(", warm-up ", f);
        print_num(f, "%.0f", l->bench_warmup);
        fputc('\n', f);
    }
    if (l->has_totals) {
        fputs("\nlog total operator time ", f);
        print_num(f, "%.0f us", l->operator_us);
        fputs(" per frame, memory read/write ", f);
        print_num(f, "%.2f KB", l->rw_kb);
        fputs(" per frame\n", f);
    }
}

static void json_lines(json_writer *w, const char *key, char *const *lines, int n)
{
    json_key(w, key);
    json_arr_open(w);
    for (int k = 0; k < n; k++)
        json_str(w, lines[k]);
    json_arr_close(w);
}

void summary_log_json(const summary_log *l, json_writer *w)
{
    if (!l->present) {
        json_write_null(w);
        return;
    }
    json_obj_open(w);
    json_key(w, "kind");
    json_str(w, l->kind);
    json_key(w, "file");
    json_str(w, l->file);
    json_key(w, "versions");
    json_obj_open(w);
    for (int k = 0; k < SUMMARY_LOG_NVERSIONS; k++) {
        json_key(w, version_keys[k][0]);
        json_str(w, l->versions[k]);
    }
    json_key(w, "driver_required");
    json_str(w, l->driver_required);
    json_obj_close(w);
    json_key(w, "errors");
    if (l->n_errors < 0) {
        json_write_null(w);
    } else {
        json_obj_open(w);
        json_key(w, "count");
        json_int(w, l->n_errors);
        json_lines(w, "lines", l->error_lines, l->n_error_lines);
        json_key(w, "diagnosis");
        json_str(w, l->diagnosis);
        json_obj_close(w);
    }
    json_key(w, "warnings");
    if (l->n_warnings < 0) {
        json_write_null(w);
    } else {
        json_obj_open(w);
        json_key(w, "count");
        json_int(w, l->n_warnings);
        json_lines(w, "lines", l->warning_lines, l->n_warning_lines);
        json_lines(w, "notes", l->notes, l->n_notes);
        json_obj_close(w);
    }
    json_key(w, "benchmark");
    if (!l->has_benchmark) {
        json_write_null(w);
    } else {
        json_obj_open(w);
        json_key(w, "avg_ms");
        json_num(w, l->bench_avg_ms);
        json_key(w, "avg_fps");
        json_num(w, l->bench_avg_fps);
        json_key(w, "iterations");
        json_int(w, l->bench_iterations);
        json_key(w, "fps_min");
        json_num(w, l->bench_fps_min);
        json_key(w, "fps_max");
        json_num(w, l->bench_fps_max);
        json_key(w, "warmup");
        json_num(w, l->bench_warmup);
        json_obj_close(w);
    }
    json_key(w, "totals");
    if (!l->has_totals) {
        json_write_null(w);
    } else {
        json_obj_open(w);
        json_key(w, "operator_us");
        json_num(w, l->operator_us);
        json_key(w, "rw_kb");
        json_num(w, l->rw_kb);
        json_obj_close(w);
    }
    json_obj_close(w);
}
