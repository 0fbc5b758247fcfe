/* cli/cmd_import.c — `rknn-trace import PATH...`: board logs, toolkit output
 * and level-5 dump folders into the run store. Every file is read and every
 * folder checked before the database is opened; a text log is scanned while
 * its runs are written (cli/import_stream.c). The whole import is one
 * transaction: a bad line anywhere leaves the database as it was. */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "dump/dump.h"
#include "runtime/npu/npu.h"
#include "tracer/tracer.h"
#include "util/escape.h"
#include "util/outfile.h"
#include "util/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

static void usage(FILE *f)
{
    fputs("usage: rknn-trace import PATH... [options]\n"
          "Reads what a board or Toolkit2 printed and records it as runs: per-layer\n"
          "performance tables (RKNN_LOG_LEVEL=4, eval_perf, perf_detail; every generation),\n"
          "the ranking table and totals, runtime/driver/toolkit version lines, SRAM tables,\n"
          "eval_memory, rknn_benchmark output, accuracy_analysis tables (the simulator half\n"
          "becomes a 'toolkit' run), its snapshot folder (error_analysis.txt, the tensors\n"
          "of simulator/ and runtime/ named by map_name_to_file.txt, golden/ recorded) and\n"
          "level-5 dumps (a folder, or the log's dump lines).\n"
          "Error lines (E RKNN, failed submits, toolkit errors) make a failed run with its\n"
          "error lines and a diagnosis of the known ones.\n"
          "A log with several runs gives several runs. Lines that are not read are counted\n"
          "by kind; a table line that cannot be read is an error.\n"
          "A FILE.json written by `rknn-trace export` is read back whole, alone (runs whose\n"
          "content is here already are skipped; a taken label becomes LABEL-2).\n"
          "Bounds (exit 2, nothing stored): a log is text from its first bytes, no line is\n"
          "longer than 64 KiB, one import holds at most 1 GiB (logs, runs, rows); an export\n"
          "file is at most 128 MiB.\n"
          "\n"
          "      --label TEXT    label of the run (the next runs: TEXT-2, TEXT-3, ...)\n"
          "      --model FILE    the model the log belongs to (path and sha256 recorded)\n"
          "      --target CHIP   the board's platform (rk3588, ...); default: the one the log\n"
          "                      names (target platform, RKNN_TARGET, device tree, rk3588, ...)\n"
          "      --format F      auto (default) or only: perf, sram, info, memory, benchmark,\n"
          "                      accuracy, dumps, errors (comma-separated)\n"
          "      --strict        any line not read (other than layout, comments, elisions) fails\n"
          "      --copy          copy dump files next to the database instead of referencing them\n"
          "      --db PATH       database (default $RKNN_TRACE_DB, else ./rknn-trace.db)\n"
          "      --json          one JSON document on stdout\n",
          f);
}

static int parse_formats(const char *s)
{
    static const struct { const char *name; int bit; } names[] = {
        {"auto", VLOG_F_ALL}, {"perf", VLOG_F_PERF}, {"sram", VLOG_F_SRAM},
        {"info", VLOG_F_INFO}, {"memory", VLOG_F_MEMORY}, {"benchmark", VLOG_F_BENCH},
        {"accuracy", VLOG_F_ACC}, {"dumps", VLOG_F_DUMPS},
        {"errors", VLOG_F_ERRORS},
    };
    int mask = 0;
    char *dup = xstrdup(s), *save = NULL;

    for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (!strcmp(t, names[i].name))
                mask |= names[i].bit, found = 1;
        if (!found) {
            mask = -1;
            break;
        }
    }
    free(dup);
    return mask;
}

/* One source: a log scanned into runs, or a dump folder. */
typedef struct source {
    const char *path;
    const char *text; /* a log's bytes, mapped or read before the database is opened */
    size_t len;
    int mapped;
    vlog_t log;
    int is_dir;
    golden_file *files;
    int n_files;
    /* an accuracy_analysis snapshot folder: log is its error_analysis.txt;
     * tensors [0] of the simulator (the toolkit run), [1] of the runtime (the
     * board run) */
    int snapshot;
    char platform[16]; /* the one platform the log's text names, "" none or several */
    char *tensor_dir[2], *golden_dir;
    vlog_dump_t *tensors[2];
    int n_tensors[2];
} source;

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

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
    for (int i = 0; i < n; i++) {
        if (v[i] < 0)
            json_write_null(w);
        else
            json_int(w, v[i]);
    }
    json_arr_close(w);
}

/* The log's own environment (docs/store.md, env_json). */
static char *env_json(const vlog_run_t *r, const char *source_path)
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
static void log_platform(const char *text, size_t len, char *out, size_t outlen)
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
            comment = ch == '#', bol = 0;
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
static int sram_join(const vlog_run_t *r, double *hit)
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

/* Figures of the run that have no column: totals, memory, SRAM, benchmark. */
static char *extra_json(const vlog_run_t *r, const char *golden_dir)
{
    char *text;
    size_t len;
    json_writer w;
    int any = 0;

    json_begin_mem(&w);
    json_obj_open(&w);
    json_key(&w, "import");
    json_str(&w, r->toolkit ? "accuracy_analysis simulator" : "board log");
    if (golden_dir) {
        /* the float model's tensors: `analyze RUN --golden DIR` */
        char *g = realpath(golden_dir, NULL);
        json_key(&w, "golden_dir");
        json_str(&w, g ? g : golden_dir);
        free(g);
    }
    if (r->has_perf) {
        json_key(&w, "perf");
        json_obj_open(&w);
        json_key(&w, "generation");
        if (r->perf.generation)
            json_str(&w, (char[]){r->perf.generation, 0});
        else
            json_write_null(&w);
        json_key(&w, "total_time_us");
        if (r->perf.total_time_us >= 0) json_int(&w, r->perf.total_time_us); else json_write_null(&w);
        json_key(&w, "total_rw_kb");
        json_num(&w, r->perf.total_rw_kb >= 0 ? r->perf.total_rw_kb : NAN);
        json_key(&w, "total_rw_mb");
        json_num(&w, r->perf.total_rw_mb >= 0 ? r->perf.total_rw_mb : NAN);
        if (r->perf.n_ops) {
            json_key(&w, "ops");
            json_arr_open(&w);
            for (int k = 0; k < r->perf.n_ops; k++) {
                const perflog_op_t *o = &r->perf.ops[k];
                json_obj_open(&w);
                json_key(&w, "op"); json_str(&w, o->optype);
                json_key(&w, "calls"); if (o->calls >= 0) json_int(&w, o->calls); else json_write_null(&w);
                json_key(&w, "cpu_us"); if (o->cpu_us >= 0) json_int(&w, o->cpu_us); else json_write_null(&w);
                json_key(&w, "gpu_us"); if (o->gpu_us >= 0) json_int(&w, o->gpu_us); else json_write_null(&w);
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
        json_key(&w, "size"); if (s->alloc_size >= 0) json_int(&w, s->alloc_size); else json_write_null(&w);
        json_key(&w, "tensors"); json_int(&w, s->n_rows);
        json_key(&w, "hit_bytes"); if (s->has_hit) json_int(&w, hit); else json_write_null(&w);
        json_key(&w, "rw_sram_hit"); if (s->rw_sram_hit >= 0) json_int(&w, s->rw_sram_hit); else json_write_null(&w);
        if (r->has_perf) {
            double *hit = xmalloc((size_t)(r->perf.n_rows ? r->perf.n_rows : 1) * sizeof(double));
            json_key(&w, "joined"); json_int(&w, sram_join(r, hit));
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
        json_key(&w, "dma_bytes"); if (b->dma_size >= 0) json_int(&w, b->dma_size); else json_write_null(&w);
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
        /* the error lines as printed, and what the known ones mean */
        const char *dx = NULL;
        int n = r->n_errors < VLOG_MAX_ERRORS ? r->n_errors : VLOG_MAX_ERRORS;
        json_key(&w, "errors");
        json_obj_open(&w);
        json_key(&w, "count"); json_int(&w, r->n_errors);
        json_key(&w, "lines");
        json_arr_open(&w);
        for (int k = 0; k < n; k++) {
            json_str(&w, r->errors[k]);
            if (!dx)
                dx = errlog_diagnosis(r->errors[k], NULL);
        }
        json_arr_close(&w);
        json_key(&w, "diagnosis");
        json_str(&w, dx ? dx : "not a known error: read the lines");
        json_obj_close(&w);
        any = 1;
    }
    json_obj_close(&w);
    text = json_take(&w, &len);
    (void)any;
    while (len && text[len - 1] == '\n')
        text[--len] = 0;
    return text;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int add_accuracy(store *st, int64_t id, const vlog_run_t *r, char *err, size_t errlen)
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

static char *dirname_of(const char *path)
{
    const char *s = strrchr(path, '/');
    char *d;

    if (!s)
        return NULL;
    d = xstrdup(path);
    d[s - path] = 0;
    return d;
}

static int copy_file(const char *from, const char *to, char *err, size_t errlen)
{
    void *data = NULL;
    size_t len = 0;
    int rc = rt_read_file(from, &data, &len, err, errlen);

    if (rc)
        return rc;
    rc = outfile_write(to, data, len, OUTFILE_NOSYNC, err, errlen);  /* one of many dump files */
    free(data);
    return rc;
}

/* The dump folder's files as vlog_dump_t rows (copied into copy_dir when set). */
static int folder_rows(const source *src, const char *copy_dir, vlog_dump_t **rows, int *n,
                       char *err, size_t errlen)
{
    vlog_dump_t *d = xcalloc((size_t)(src->n_files ? src->n_files : 1), sizeof(*d));
    int m = 0, rc = 0;

    for (int k = 0; k < src->n_files; k++) {
        const golden_file *g = &src->files[k];
        vlog_dump_t x;
        char path[512];
        if (vlog_parse_dump_name(g->path, &x) != 0) {
            memset(&x, 0, sizeof x);
            x.index = g->index;
            snprintf(x.name, sizeof x.name, "%s", g->name);
            snprintf(x.path, sizeof x.path, "%s", g->path);
        }
        if (copy_dir) {
            const char *base = strrchr(g->path, '/');
            snprintf(path, sizeof path, "%s/%s", copy_dir, base ? base + 1 : g->path);
            if ((rc = copy_file(g->path, path, err, errlen)))
                break;
            snprintf(x.path, sizeof x.path, "%s", path);
        }
        d[m++] = x;
    }
    if (rc) {
        free(d);
        return rc;
    }
    *rows = d;
    *n = m;
    return 0;
}

/* ---- accuracy_analysis snapshot folders (log-formats.md §8) ---- */

static char *path_join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = xmalloc(n);
    snprintf(p, n, "%s/%s", a, b);
    return p;
}

static int is_file(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* DIR/SUB/npy when it exists (newer toolkits), else DIR/SUB, else NULL. */
static char *tensor_folder(const char *dir, const char *sub)
{
    char *d = path_join(dir, sub), *npy = path_join(d, "npy");
    if (is_dir(npy)) {
        free(d);
        return npy;
    }
    free(npy);
    if (is_dir(d))
        return d;
    free(d);
    return NULL;
}

static int tensor_file(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return n > 4 && (!strcmp(e->d_name + n - 4, ".npy") || !strcmp(e->d_name + n - 4, ".txt"));
}

/* The folder's tensor files, sorted by name, as rows: the layer name from the
 * map (file -> name), else the file's stem; shape and dtype from .npy headers
 * (NULL for the text tensors of old toolkits). */
static int snapshot_tensors(const char *dir, char **map, int n_map, vlog_dump_t **out, int *n,
                            char *err, size_t errlen)
{
    struct dirent **list = NULL;
    int m = scandir(dir, &list, tensor_file, alphasort), rc = 0, k;
    vlog_dump_t *d;

    if (m < 0)
        return rt_err(err, errlen, RT_EIO, "cannot read %s: %s", dir, strerror(errno));
    d = xcalloc((size_t)(m ? m : 1), sizeof(*d));
    for (k = 0; k < m && !rc; k++) {
        const char *file = list[k]->d_name, *name = NULL;
        size_t fl = strlen(file);
        for (int j = 0; j < n_map && !name; j++)
            if (!strcmp(map[2 * j + 1], file))
                name = map[2 * j];
        d[k].index = k;
        if (name)
            snprintf(d[k].name, sizeof d[k].name, "%s", name);
        else
            snprintf(d[k].name, sizeof d[k].name, "%.*s", (int)(fl - 4), file);
        if ((size_t)snprintf(d[k].path, sizeof d[k].path, "%s/%s", dir, file) >= sizeof d[k].path)
            rc = rt_err(err, errlen, RT_EINVAL, "%s/%s: path too long", dir, file);
        else if (!strcmp(file + fl - 4, ".npy")) {
            npy_array a;
            char e2[256];
            if (npy_map(d[k].path, &a, e2, sizeof e2)) {
                rc = rt_err(err, errlen, RT_EFORMAT, "%s", e2);
            } else {
                d[k].n_dims = a.ndim < 8 ? a.ndim : 8;
                for (int j = 0; j < d[k].n_dims; j++)
                    d[k].dims[j] = a.dims[j];
                snprintf(d[k].dtype, sizeof d[k].dtype, "%s",
                         npy_dtype_name(a.dtype) ? npy_dtype_name(a.dtype) : "");
                npy_free(&a);
            }
        }
    }
    for (k = 0; k < m; k++)
        free(list[k]);
    free(list);
    if (rc) {
        free(d);
        return rc;
    }
    *out = d;
    *n = m;
    return 0;
}

/* n rows of size each, read from a folder, against what the import may hold. */
static int charge_rows(const char *dir, size_t n, size_t each, size_t *budget, char *err,
                       size_t errlen)
{
    if (n > *budget / each)
        return rt_err(err, errlen, RT_ENOMEM, "%s: %zu files, more than the %zu MiB left of "
                      "what one import may hold (%d MiB) can list", dir, n, *budget >> 20,
                      (int)(IMPORT_MAX_BYTES >> 20));
    *budget -= n * each;
    return 0;
}

/* An import's failure to read as an exit code: anything it read is bad input. */
static int input_exit(int rc)
{
    int ex = cli_exit_code(rc);
    return ex == EXIT_USAGE || rc == RT_ENOMEM ? EXIT_INPUT : ex;
}

/* DIR/error_analysis.txt through the log scanner, map_name_to_file.txt line
 * by line (lines that are no pair count as unread), the tensor folders. */
static int read_snapshot(source *x, int formats, size_t *budget, char *err, size_t errlen)
{
    char *table = path_join(x->path, "error_analysis.txt");
    char *mapf = path_join(x->path, "map_name_to_file.txt");
    char **map = NULL, *text = NULL;
    const char *data = NULL;
    size_t len = 0;
    int n_map = 0, mapped = 0, rc;
    vlog_t *v = &x->log;

    x->snapshot = 1;
    /* its text files under the bounds of a log; each text is let go once read */
    rc = import_read_log(table, budget, &data, &len, &mapped, err, errlen);
    if (!rc)
        rc = vlog_scan_bounded(data, len, formats, budget, NULL, NULL, v, err, errlen);
    if (data)
        *budget += len;
    mapped ? rt_unmap_file(data, len) : free((void *)data);
    if (rc)
        goto out;
    if (is_file(mapf)) {
        char *line, *save = NULL, name[256], file[256];
        int64_t lineno = 0;
        if ((rc = import_read_log(mapf, budget, &data, &len, &mapped, err, errlen)))
            goto out;
        text = xmalloc(len + 1); /* strtok_r writes: a copy of the mapped text */
        memcpy(text, data, len);
        text[len] = 0;
        mapped ? rt_unmap_file(data, len) : free((void *)data);
        data = NULL;
        for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            const char *t = line;
            lineno++;
            while (*t == ' ' || *t == '\t' || *t == '\r')
                t++;
            if (!*t) {
                v->kinds[VLOG_LAYOUT]++;
            } else if (snapmap_line(line, name, sizeof name, file, sizeof file)) {
                map = xrealloc(map, (size_t)(n_map + 1) * 2 * sizeof(*map));
                map[2 * n_map] = xstrdup(name);
                map[2 * n_map + 1] = xstrdup(file);
                n_map++;
                v->kinds[VLOG_USED]++;
            } else {
                v->kinds[VLOG_APP]++;
            }
        }
    }
    x->golden_dir = tensor_folder(x->path, "golden");
    x->tensor_dir[0] = tensor_folder(x->path, "simulator");
    x->tensor_dir[1] = tensor_folder(x->path, "runtime");
    for (int k = 0; k < 2 && !rc; k++)
        if (x->tensor_dir[k] &&
            !(rc = snapshot_tensors(x->tensor_dir[k], map, n_map, &x->tensors[k],
                                    &x->n_tensors[k], err, errlen)))
            rc = charge_rows(x->tensor_dir[k], (size_t)x->n_tensors[k], sizeof(vlog_dump_t),
                             budget, err, errlen);
out:
    for (int k = 0; k < 2 * n_map; k++)
        free(map[k]);
    free(map);
    free(text);
    free(table);
    free(mapf);
    return rc;
}

static void source_text_free(source *x)
{
    if (x->mapped)
        rt_unmap_file(x->text, x->len);
    else
        free((void *)x->text);
    x->text = NULL;
}

static void source_free(source *x)
{
    source_text_free(x);
    vlog_free(&x->log);
    golden_files_free(x->files, x->n_files);
    for (int k = 0; k < 2; k++) {
        free(x->tensor_dir[k]);
        free(x->tensors[k]);
    }
    free(x->golden_dir);
}

/* A log with a table line it cannot read is refused; with --strict, one with
 * any line it did not read. Returns the exit code (0: accepted). */
static int check_lines(const source *x, int strict)
{
    const vlog_t *l = &x->log;

    if (l->kinds[VLOG_BAD]) {
        cli_error("import: %s:%lld: a table line that cannot be read (%lld such lines): '%.60s'",
                  x->path, (long long)l->first_bad, (long long)l->kinds[VLOG_BAD], l->first_bad_text);
        return EXIT_INPUT;
    }
    if (strict && (l->kinds[VLOG_APP] || l->kinds[VLOG_RUNTIME] || l->kinds[VLOG_TOOLKIT])) {
        cli_error("import: %s: --strict: %lld lines not read (runtime %lld, toolkit %lld, "
                  "other text %lld; first at line %lld)", x->path,
                  (long long)(l->kinds[VLOG_APP] + l->kinds[VLOG_RUNTIME] + l->kinds[VLOG_TOOLKIT]),
                  (long long)l->kinds[VLOG_RUNTIME], (long long)l->kinds[VLOG_TOOLKIT],
                  (long long)l->kinds[VLOG_APP], (long long)l->first_app);
        return EXIT_INPUT;
    }
    return 0;
}

/* What a run's rows need that does not touch the database, made before it is
 * written (on the scanning thread of a text log): its JSON columns and its
 * layer rows. */
typedef struct run_prep {
    char *env, *extra;
    perf_layers layers;
} run_prep;

static void prepare_run(const source *src, const vlog_run_t *r, run_prep *p)
{
    memset(p, 0, sizeof(*p));
    if (src->is_dir)
        return;
    p->env = env_json(r, src->path);
    p->extra = extra_json(r, src->snapshot ? src->golden_dir : NULL);
    if (r->has_perf) { /* the per-layer table, the SRAM table's hits joined to it */
        double *hit = xmalloc((size_t)(r->perf.n_rows ? r->perf.n_rows : 1) * sizeof(double));
        sram_join(r, hit);
        perf_layers_make(&p->layers, &r->perf, hit);
        free(hit);
    }
}

static void run_prep_free(run_prep *p)
{
    free(p->env);
    free(p->extra);
    perf_layers_free(&p->layers);
}

/* The run's platform: --target, else the run's own init lines ("target
 * platform: rk3588", "target set by user is"), else the one the log names;
 * a table name when the table knows it. */
static const char *run_platform(const source *src, const vlog_run_t *r, const char *target)
{
    const npu_platform_t *p;

    if (target)
        return target;
    if (r->info.soc[0])
        return (p = npu_platform_find(r->info.soc)) ? p->name : r->info.soc;
    return src->platform[0] ? src->platform : NULL;
}

/* One run of a source into the store. */
static int write_run(store *st, const source *src, const vlog_run_t *r, const run_prep *prep,
                     const char *label, const char *model, const char *model_sha, int copy,
                     const char *db, const char *time, const char *target, int64_t *id,
                     char *err, size_t errlen)
{
    store_run run;
    char *copy_dir = NULL, *dump_dir = NULL, *abs = NULL;
    vlog_dump_t *rows = NULL;
    int n_rows = 0, rc;
    double total = NAN;

    store_run_init(&run);
    run.label = label;
    run.time = time;
    run.backend = r->toolkit ? "toolkit" : "board";
    run.platform = run_platform(src, r, target);
    run.status = r->failed ? "failed" : NULL;
    run.model_path = model;
    run.model_sha256 = model_sha;
    if (model) {
        const char *ext = strrchr(model, '.');
        run.model_format = ext && !strcmp(ext, ".rknn") ? "rknn" : ext && !strcmp(ext, ".onnx") ? "onnx" : NULL;
    }
    run.env_json = prep->env;
    run.extra_json = prep->extra;
    if (r->has_mem) {
        if (r->mem.weight >= 0) run.weight_bytes = (int64_t)llround(r->mem.weight);
        if (r->mem.internal >= 0) run.internal_bytes = (int64_t)llround(r->mem.internal);
    } else if (r->has_bench && r->bench.weight_size >= 0) {
        run.weight_bytes = r->bench.weight_size;
        run.internal_bytes = r->bench.internal_size;
    } else if (r->has_sram) {
        if (r->sram.total_weight >= 0) run.weight_bytes = r->sram.total_weight;
        if (r->sram.total_internal >= 0) run.internal_bytes = r->sram.total_internal;
    }
    if (r->has_perf && r->perf.total_time_us >= 0)
        total = (double)r->perf.total_time_us;
    if (r->has_bench) {
        if (r->bench.has_warmup) /* no warm-up section: the log does not say */
            run.warmup = r->bench.n_warmup;
        if (r->bench.n_perf) {
            double *t = xmalloc((size_t)r->bench.n_perf * sizeof(double));
            memcpy(t, r->bench.perf_ms, (size_t)r->bench.n_perf * sizeof(double));
            qsort(t, (size_t)r->bench.n_perf, sizeof(double), cmp_dbl);
            run.iterations = r->bench.n_perf;
            run.host_min_us = t[0] * 1000.0;
            if (isnan(total))
                total = (r->bench.n_perf & 1 ? t[r->bench.n_perf / 2]
                                             : (t[r->bench.n_perf / 2 - 1] + t[r->bench.n_perf / 2]) / 2) * 1000.0;
            free(t);
        }
        if (isnan(total) && r->bench.avg_ms >= 0)
            total = r->bench.avg_ms * 1000.0;
    }
    if (r->n_dumps) {
        dump_dir = dirname_of(r->dumps[0].path);
        run.dump_dir = dump_dir;
    }
    if (src->snapshot && src->tensor_dir[!r->toolkit]) {
        abs = realpath(src->tensor_dir[!r->toolkit], NULL);
        run.dump_dir = abs ? abs : src->tensor_dir[!r->toolkit];
    }
    if (src->is_dir) {
        abs = realpath(src->path, NULL);
        run.dump_dir = abs ? abs : src->path;
    }
    /* both known before the rows: the run's row is written once */
    run.total_us = total;
    run.n_layers = !src->is_dir && r->has_perf ? prep->layers.n : 0;
    if ((rc = store_run_begin(st, &run, id, err, errlen)))
        goto out;
    if (src->is_dir) {
        if (copy) {
            size_t n = strlen(db) + 64;
            copy_dir = xmalloc(n);
            snprintf(copy_dir, n, "%s.dumps", db);
            mkdir(copy_dir, 0777);
            snprintf(copy_dir, n, "%s.dumps/run-%lld", db, (long long)*id);
            if (mkdir(copy_dir, 0777) && errno != EEXIST) {
                rc = rt_err(err, errlen, RT_EIO, "cannot create %s: %s", copy_dir, strerror(errno));
                goto abort;
            }
        }
        if ((rc = folder_rows(src, copy_dir, &rows, &n_rows, err, errlen)) ||
            (rc = dump_rows_store(st, *id, rows, n_rows, err, errlen)))
            goto abort;
    } else {
        if ((r->has_perf && (rc = perf_layers_add(st, *id, &prep->layers, err, errlen))) ||
            (rc = add_accuracy(st, *id, r, err, errlen)) ||
            (rc = dump_rows_store(st, *id, r->dumps, r->n_dumps, err, errlen)) ||
            (src->snapshot && (rc = dump_rows_store(st, *id, src->tensors[!r->toolkit],
                                                  src->n_tensors[!r->toolkit], err, errlen))))
            goto abort;
        if (r->has_bench)
            for (int k = 0, o = 0; k < r->bench.n_tensors; k++) {
                const benchlog_tensor_t *t = &r->bench.tensors[k];
                store_output so;
                char shape[160];
                if (!t->is_output)
                    continue;
                store_output_init(&so);
                so.idx = o++;
                so.name = t->name;
                so.shape = store_format_shape(shape, sizeof shape, t->n_dims, t->dims);
                so.dtype = perf_numpy_dtype(t->type);
                if ((rc = store_output_add(st, *id, &so, err, errlen)))
                    goto abort;
            }
    }
    rc = store_run_commit(st, *id, total, err, errlen);
    goto out;
abort:
    store_run_abort(st, *id);
    if (copy_dir) {
        for (int k = 0; k < n_rows; k++)
            unlink(rows[k].path);
        rmdir(copy_dir);
    }
out:
    free(rows);
    free(copy_dir);
    free(dump_dir);
    free(abs);
    return rc;
}

/* What writing a source's runs needs, on whichever thread writes them. */
typedef struct import_ctx {
    store *st;
    const source *src;
    const char *label, *model, *model_sha, *db, *target;
    char time[32];   /* the import's: every run it adds has the same */
    int copy;
    int64_t *ids;
    int n_ids;
} import_ctx;

static void prepare_one(void *ctx, const vlog_run_t *r, void **prep)
{
    const import_ctx *c = ctx;
    run_prep *p = xmalloc(sizeof(*p));

    prepare_run(c->src, r, p);
    *prep = p;
}

static void discard_one(void *prep)
{
    if (prep)
        run_prep_free(prep);
    free(prep);
}

static int write_one(void *ctx, const vlog_run_t *r, void *prep, char *err, size_t errlen)
{
    import_ctx *c = ctx;
    char lab[256];
    int64_t id = 0;
    int rc;

    if (c->label && c->n_ids)
        snprintf(lab, sizeof lab, "%s-%d", c->label, c->n_ids + 1);
    else if (c->label)
        snprintf(lab, sizeof lab, "%s", c->label);
    rc = write_run(c->st, c->src, r, prep, c->label ? lab : NULL, c->model,
                   c->model_sha, c->copy, c->db, c->time, c->target, &id, err, errlen);
    if (rc)
        return rc;
    c->ids = xrealloc(c->ids, (size_t)(c->n_ids + 1) * sizeof(*c->ids));
    c->ids[c->n_ids++] = id;
    return 0;
}


int cmd_import(int argc, char **argv)
{
    const char *label = NULL, *model = NULL, *db = NULL, *target = NULL;
    int formats = VLOG_F_ALL, strict = 0, json = 0, copy = 0, n_src = 0, ex = EXIT_OK;
    int64_t kinds[VLOG_NKINDS] = {0};
    int created = 0;
    size_t budget = IMPORT_MAX_BYTES; /* what the import may still hold (cli/import_read.c) */
    import_ctx ic = {0};
    source *src = xcalloc((size_t)argc, sizeof(*src));
    store *st = NULL;
    char err[512], model_sha[65], *model_sha_p = NULL;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            goto out;
        } else if (cli_opt_is(a, "--label")) {
            if (!(label = cli_opt_value(argc, argv, &i))) { ex = EXIT_USAGE; goto out; }
        } else if (cli_opt_is(a, "--model")) {
            if (!(model = cli_opt_value(argc, argv, &i))) { ex = EXIT_USAGE; goto out; }
        } else if (cli_opt_is(a, "--target")) {
            const npu_platform_t *p;
            if (!(target = cli_opt_value(argc, argv, &i))) { ex = EXIT_USAGE; goto out; }
            if (!(p = npu_platform_find(target))) {
                cli_error("import: --target %s: unknown platform (known: %s)", target,
                          npu_platform_names());
                ex = EXIT_USAGE;
                goto out;
            }
            target = p->name;
        } else if (cli_opt_is(a, "--db")) {
            if (!(db = cli_opt_value(argc, argv, &i))) { ex = EXIT_USAGE; goto out; }
        } else if (cli_opt_is(a, "--format")) {
            const char *f = cli_opt_value(argc, argv, &i);
            if (!f || (formats = parse_formats(f)) <= 0) {
                if (f)
                    cli_error("import: unknown --format '%s' (auto, perf, sram, info, memory, "
                              "benchmark, accuracy, dumps)", f);
                ex = EXIT_USAGE;
                goto out;
            }
        } else if (!strcmp(a, "--strict")) {
            strict = 1;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--copy")) {
            copy = 1;
        } else if (a[0] == '-' && a[1]) {
            ex = cli_unknown_option("import", a);
            goto out;
        } else {
            src[n_src++].path = a;
        }
    }
    if (!n_src) {
        usage(stderr);
        ex = EXIT_USAGE;
        goto out;
    }
    if (cli_is_export_file(src[0].path)) { /* runs written by `rknn-trace export` */
        struct stat sb;
        if (stat(src[0].path, &sb) == 0 && (uint64_t)sb.st_size > IMPORT_MAX_EXPORT) {
            cli_error("import: %s: an export of %lld MiB, over the %d MiB one import reads (its "
                      "JSON takes about 8 times its size in memory); export fewer runs per file",
                      src[0].path, (long long)(sb.st_size >> 20), (int)(IMPORT_MAX_EXPORT >> 20));
            ex = EXIT_INPUT;
            goto out;
        }
        ex = cli_import_export(src[0].path, n_src, db, label || model || strict || copy ||
                               json || target || formats != VLOG_F_ALL);
        goto out;
    }
    if (model) {
        void *data = NULL;
        size_t len = 0;
        if (rt_read_file(model, &data, &len, err, sizeof err)) {
            cli_error("import: %s", err);
            ex = EXIT_INPUT;
            goto out;
        }
        rt_sha256_hex(data, len, model_sha);
        model_sha_p = model_sha;
        free(data);
    }
    /* read every source and check the folders before the database is touched;
     * text logs are checked while they are read, inside the transaction */
    for (int s = 0; s < n_src; s++) {
        source *x = &src[s];
        if (is_dir(x->path)) {
            char *table = path_join(x->path, "error_analysis.txt");
            int snap = is_file(table);
            free(table);
            if (snap) {
                int rc = read_snapshot(x, formats, &budget, err, sizeof err);
                if (rc) {
                    cli_error("import: %s: %s", x->path, err);
                    ex = input_exit(rc);
                    goto out;
                }
                if ((ex = check_lines(x, strict)))
                    goto out;
                continue;
            }
            x->is_dir = 1;
            if (golden_scan(x->path, &x->files, &x->n_files, err, sizeof err) || !x->n_files ||
                charge_rows(x->path, (size_t)x->n_files, sizeof(golden_file), &budget, err,
                            sizeof err)) {
                cli_error("import: %s: %s", x->path, x->n_files ? err : "no .npy dump in the folder");
                ex = EXIT_INPUT;
                goto out;
            }
            continue;
        }
        int rc = import_read_log(x->path, &budget, &x->text, &x->len, &x->mapped, err, sizeof err);
        if (rc) {
            cli_error("import: %s", err); /* the reader names the file */
            ex = EXIT_INPUT;
            goto out;
        }
        log_platform(x->text, x->len, x->platform, sizeof x->platform);
    }
    db = store_default_path(db);
    created = access(db, F_OK) != 0;
    if (store_open(db, &st, err, sizeof err)) {
        cli_error("%s", err);
        ex = EXIT_INPUT;
        goto out;
    }
    /* the whole import is one transaction: all its runs, or none */
    if (store_batch_begin_adding(st, err, sizeof err)) {
        cli_error("%s", err);
        ex = EXIT_INPUT;
        goto out;
    }
    ic.st = st;
    ic.label = label;
    ic.model = model;
    ic.model_sha = model_sha_p;
    ic.target = target;
    ic.copy = copy;
    ic.db = db;
    rt_iso_time(ic.time, sizeof ic.time);
    for (int s = 0; s < n_src && !ex; s++) {
        source *x = &src[s];
        int rc = 0;
        ic.src = x;
        if (x->text) {
            import_stage stage = {prepare_one, write_one, discard_one, &ic, &budget};
            rc = import_stream(x->text, x->len, formats, &x->log, &stage, err, sizeof err);
            if (rc == RT_ENOMEM) { /* the scan passed the bound: name it */
                size_t n = strlen(err);
                snprintf(err + n, sizeof err - n, " (one import holds at most %d MiB: its logs' "
                         "text and what is read from them); split the log",
                         (int)(IMPORT_MAX_BYTES >> 20));
            }
            budget += x->len; /* the text is let go */
            source_text_free(x);
            if (!rc && (ex = check_lines(x, strict)))
                break;
        } else {
            static const vlog_run_t none;
            int nr = x->is_dir ? 1 : x->log.n_runs;
            for (int k = 0; k < nr && !rc; k++) {
                const vlog_run_t *r = x->is_dir ? &none : &x->log.runs[k];
                run_prep p;
                prepare_run(x, r, &p);
                rc = write_one(&ic, r, &p, err, sizeof err);
                run_prep_free(&p);
            }
        }
        if (rc) {
            cli_error("import: %s: %s", x->path, err);
            ex = input_exit(rc);
        }
    }
    if (ex) {
        store_batch_abort(st);
        goto out;
    }
    for (int s = 0; s < n_src; s++)
        for (int k = 0; k < VLOG_NKINDS; k++)
            kinds[k] += src[s].log.kinds[k];
    if (store_batch_commit(st, err, sizeof err)) {
        cli_error("import: %s", err);
        ex = cli_exit_code(RT_EIO);
        goto out;
    }
    if (json) {
        json_writer w;
        size_t len;
        char *text;
        json_begin_mem(&w); /* one write: 17,000 runs took 20 ms through stdio */
        json_obj_open(&w);
        json_key(&w, "runs");
        json_arr_open(&w);
        for (int s = 0, j = 0; s < n_src; s++) {
            int nr = src[s].is_dir ? 1 : src[s].log.n_runs;
            for (int k = 0; k < nr; k++, j++) {
                const vlog_run_t *r = src[s].is_dir ? NULL : &src[s].log.runs[k];
                json_obj_open(&w);
                json_key(&w, "run_id"); json_int(&w, ic.ids[j]);
                json_key(&w, "source"); json_str(&w, src[s].path);
                json_key(&w, "backend"); json_str(&w, r && r->toolkit ? "toolkit" : "board");
                json_key(&w, "platform"); json_str(&w, r ? run_platform(&src[s], r, target) : target);
                json_key(&w, "status"); json_str(&w, r && r->failed ? "failed" : "ok");
                json_key(&w, "layers"); json_int(&w, r && r->has_perf ? r->perf.n_rows : 0);
                json_key(&w, "accuracy"); json_int(&w, r ? r->n_acc : 0);
                json_key(&w, "tensors");
                json_int(&w, !r ? src[s].n_files : r->n_dumps + (src[s].snapshot ? src[s].n_tensors[!r->toolkit] : 0));
                json_key(&w, "total_us");
                if (r && r->has_perf && r->perf.total_time_us >= 0) json_int(&w, r->perf.total_time_us); else json_write_null(&w);
                json_obj_close(&w);
            }
        }
        json_arr_close(&w);
        json_key(&w, "lines");
        json_obj_open(&w);
        for (int k = 0; k < VLOG_NKINDS; k++) {
            json_key(&w, vlog_kind_names[k]);
            json_int(&w, kinds[k]);
        }
        json_obj_close(&w);
        json_obj_close(&w);
        json_end(&w);
        text = json_take(&w, &len);
        fwrite(text, 1, len, stdout);
        free(text);
    } else {
        for (int s = 0, j = 0; s < n_src; s++) {
            int nr = src[s].is_dir ? 1 : src[s].log.n_runs;
            for (int k = 0; k < nr; k++, j++) {
                const vlog_run_t *r = src[s].is_dir ? NULL : &src[s].log.runs[k];
                printf("run %lld  %-7s  %s", (long long)ic.ids[j], r && r->toolkit ? "toolkit" : "board",
                       esc_tmp(ESC_TERM, src[s].path));
                if (r && r->has_perf)
                    printf("  %d layers", r->perf.n_rows);
                if (r && r->n_acc)
                    printf("  %d accuracy rows", r->n_acc);
                if (r && r->n_errors)
                    printf("  %s, %d error line%s", r->failed ? "failed" : "ok", r->n_errors,
                           r->n_errors == 1 ? "" : "s");
                if (!r || r->n_dumps || (src[s].snapshot && src[s].n_tensors[!r->toolkit]))
                    printf("  %d tensors", !r ? src[s].n_files
                                              : r->n_dumps + (src[s].snapshot ? src[s].n_tensors[!r->toolkit] : 0));
                putchar('\n');
            }
        }
        printf("lines:");
        for (int k = 0; k < VLOG_NKINDS; k++)
            if (kinds[k])
                printf(" %s %lld", vlog_kind_names[k], (long long)kinds[k]);
        putchar('\n');
    }
out:
    for (int s = 0; s < n_src; s++)
        source_free(&src[s]);
    free(src);
    free(ic.ids);
    store_close(st);
    if (ex && created)
        unlink(db); /* a database this import created holds nothing */
    return ex;
}
