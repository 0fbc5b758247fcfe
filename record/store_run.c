/* record/store_run.c — the rows of any source stored in one transaction, with
 * this host's environment when the source brought none; and their memory. */
#include "record/rows.h"
#include "record/rows_npu.h"
#include "record/store_run.h"
#include "record/version.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* the commit of this build (Makefile: build/gen/build_id.h), "" unknown */
#if defined(__has_include)
#if __has_include("build_id.h")
#include "build_id.h"
#endif
#endif
#ifndef RKNN_TRACE_BUILD
#define RKNN_TRACE_BUILD ""
#endif
#include <unistd.h>

void *run_rows_keep(run_rows *rows, void *s)
{
    if (!s)
        return NULL;
    if (rows->n_text == rows->cap_text) {
        rows->cap_text = rows->cap_text ? 2 * rows->cap_text : 64;
        rows->text = xrealloc(rows->text, (size_t)rows->cap_text * sizeof(*rows->text));
    }
    rows->text[rows->n_text++] = s;
    return s;
}

void run_rows_free(run_rows *rows)
{
    for (int i = 0; i < rows->n_text; i++)
        free(rows->text[i]);
    free(rows->text);
    free(rows->layers);
    free(rows->outs);
    free(rows->acc);
    free(rows->load);
    free(rows->extra);
    rows_npu_rows_free(rows->npu_rows, rows->n_npu_rows);
    free(rows->inputs_json);
    free(rows->dump_dir);
    free(rows->env);
    free(rows->perf_text);
    if (rows->perf_tables)
        perflog_free(rows->perf_tables, rows->n_perf_tables);
    memset(rows, 0, sizeof(*rows));
}

/* The value of the first "KEY<spaces>: value" line of a /proc-style file
 * (KEY=value with '=': /etc/os-release, quotes removed), or "" if none. */
static void file_value(const char *path, const char *key, char sep, char *out, size_t len)
{
    char line[512];
    size_t kl = strlen(key);
    FILE *f = fopen(path, "r");

    out[0] = 0;
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *v = line + kl;
        if (strncmp(line, key, kl) != 0)
            continue;
        while (*v == ' ' || *v == '\t')
            v++;
        if (*v != sep)
            continue;
        for (v++; *v == ' ' || *v == '"'; v++)
            ;
        v[strcspn(v, "\"\n")] = 0;
        snprintf(out, len, "%s", v);
        break;
    }
    fclose(f);
}

/* The environment of a run made here (docs/store.md, env_json): the tool and
 * the host (CPU model, cores, OS). */
static char *host_env_json(void)
{
    char cpu[256], os[256], *text = NULL;
    size_t len = 0;
    struct utsname u;
    FILE *f = open_memstream(&text, &len);
    json_writer w;

    json_begin(&w, f);
    json_obj_open(&w);
    json_key(&w, "tool");
    json_str(&w, "rknn-trace " RKNN_TRACE_VERSION);
    if (RKNN_TRACE_BUILD[0]) {
        json_key(&w, "build");
        json_str(&w, RKNN_TRACE_BUILD);
    }
    json_key(&w, "host");
    json_obj_open(&w);
    file_value("/proc/cpuinfo", "model name", ':', cpu, sizeof cpu);
    if (!cpu[0]) /* ARM kernels name the board or SoC instead */
        file_value("/proc/cpuinfo", "Hardware", ':', cpu, sizeof cpu);
    if (!cpu[0])
        file_value("/proc/device-tree/model", "", 0, cpu, sizeof cpu);
    if (cpu[0]) {
        json_key(&w, "cpu");
        json_str(&w, cpu);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 0) {
        json_key(&w, "cores");
        json_int(&w, cores);
    }
    file_value("/etc/os-release", "PRETTY_NAME", '=', os, sizeof os);
    if (os[0]) {
        json_key(&w, "os");
        json_str(&w, os);
    }
    if (uname(&u) == 0) {
        char kernel[3 * sizeof(u.release)];
        snprintf(kernel, sizeof kernel, "%s %s %s", u.sysname, u.release, u.machine);
        json_key(&w, "kernel");
        json_str(&w, kernel);
    }
    json_obj_close(&w);
    json_obj_close(&w);
    json_end(&w);
    fclose(f);
    while (len && text[len - 1] == '\n')
        text[--len] = 0;
    return text;
}

int run_rows_store(run_rows *rows, const char *db, char *err, size_t errlen)
{
    store *st = NULL;
    int64_t id = 0;
    char *env = NULL;
    const char *caller_env = rows->run.env_json;
    int rc;

    /* every run made here says which tool and host made it, unless the
     * caller already recorded its own environment */
    if (!rows->run.tool_version)
        rows->run.tool_version = RKNN_TRACE_VERSION;
    if (!rows->run.env_json)
        rows->run.env_json = env = host_env_json();
    /* a prediction names the cost model it was made with */
    char fp[24];
    if (!caller_env && isfinite(rows->run.npu_us)) {
        snprintf(fp, sizeof fp, "%016llx", (unsigned long long)npu_cost_model_fingerprint());
        rows->run.cost_model_version = NPU_COST_MODEL_VERSION;
        rows->run.cost_model_fingerprint = fp;
    }
    rc = store_open(store_default_path(db), &st, err, errlen);
    if (rc)
        goto out;
    rc = store_run_begin(st, &rows->run, &id, err, errlen);
    if (rc)
        goto out;
    for (int i = 0; i < rows->n_layers && !rc; i++)
        rc = store_layer_add(st, id, &rows->layers[i], err, errlen);
    for (int j = 0; j < rows->n_outs && !rc; j++)
        rc = store_output_add(st, id, &rows->outs[j], err, errlen);
    for (int i = 0; i < rows->n_acc && !rc; i++)
        rc = store_accuracy_add(st, id, &rows->acc[i], err, errlen);
    for (int i = 0; i < rows->n_load && !rc; i++)
        rc = store_load_add(st, id, &rows->load[i], err, errlen);
    for (int i = 0; i < rows->n_npu_rows && !rc; i++)
        rc = store_npu_row_add(st, id, &rows->npu_rows[i], err, errlen);
    if (!rc)
        rc = store_run_commit(st, id, rows->run.total_us, err, errlen);
    if (rc)
        store_run_abort(st, id);
    else
        rows->run.id = id;
out:
    store_close(st);
    rows->run.env_json = caller_env;
    if (rows->run.cost_model_fingerprint == fp)
        rows->run.cost_model_fingerprint = NULL;
    free(env);
    return rc;
}
