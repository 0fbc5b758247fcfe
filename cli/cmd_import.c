/* cli/cmd_import.c — `rknn-trace import PATH...`: board logs, toolkit output
 * and level-5 dump folders into the run store. Every file is read and every
 * folder checked before the database is opened; a text log is scanned while
 * its runs are written (record/import_stream.c). The whole import is one
 * transaction: a bad line anywhere leaves the database as it was. */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "record/import_stream.h"
#include "cli/opt.h"
#include "record/perf_rows.h"
#include "record/source_import.h"
#include "dump/dump.h"
#include "runtime/npu/npu.h"
#include "tracer/tracer.h"
#include "util/escape.h"
#include "util/outfile.h"
#include "util/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

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
        cli_error("import: %s:%lld: a table line that cannot be read (%lld such lines): '%s'",
                  x->path, (long long)l->first_bad, (long long)l->kinds[VLOG_BAD],
                  esc_tmp(ESC_TERM, l->first_bad_text));
        return EXIT_INPUT;
    }
    /* an operator ranking table without the ruler or Total row under it: an excerpt
     * (a pasted log cut after a row). Its whole rows are kept, with a word, as a
     * per-layer table without totals is; --strict refuses it. */
    if (l->unclosed_ranking && strict) {
        cli_error("import: %s:%lld: --strict: an operator ranking table ends %s without the "
                  "ruler or Total row under its rows: the log may be cut", x->path,
                  (long long)(l->unclosed_ranking > l->n_lines ? l->n_lines : l->unclosed_ranking),
                  l->unclosed_ranking > l->n_lines ? "at the end of the log" : "here");
        return EXIT_INPUT;
    }
    if (l->unclosed_ranking)
        fprintf(stderr, "rknn-trace: warning: import: %s:%lld: an operator ranking table ends %s "
                "without the ruler or Total row under its rows: it may be cut (its whole rows "
                "are kept)\n", x->path,
                (long long)(l->unclosed_ranking > l->n_lines ? l->n_lines : l->unclosed_ranking),
                l->unclosed_ranking > l->n_lines ? "at the end of the log" : "here");
    if (strict && (l->kinds[VLOG_APP] || l->kinds[VLOG_RUNTIME] || l->kinds[VLOG_TOOLKIT])) {
        cli_error("import: %s: --strict: %lld lines not read (runtime %lld, toolkit %lld, "
                  "other text %lld; first at line %lld)", x->path,
                  (long long)(l->kinds[VLOG_APP] + l->kinds[VLOG_RUNTIME] + l->kinds[VLOG_TOOLKIT]),
                  (long long)l->kinds[VLOG_RUNTIME], (long long)l->kinds[VLOG_TOOLKIT],
                  (long long)l->kinds[VLOG_APP], (long long)l->first_app);
        return EXIT_INPUT;
    }
    /* excerpts of real logs end a per-layer table without its totals: kept, with a word */
    if (l->untotalled_layers)
        fprintf(stderr, "rknn-trace: warning: import: %s:%lld: a per-layer table ends %s without "
                "its 'Total Operator Elapsed' line: it may be cut\n", x->path,
                (long long)(l->untotalled_layers > l->n_lines ? l->n_lines : l->untotalled_layers),
                l->untotalled_layers > l->n_lines ? "at the end of the log" : "here");
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
    /* the log's whole path: show and ls name it from any folder */
    char *abs = realpath(src->path, NULL);
    p->env = import_env_json(r, abs ? abs : src->path);
    free(abs);
    p->extra = import_extra_json(r, src->snapshot ? src->golden_dir : NULL);
    if (r->has_perf) { /* the per-layer table, the SRAM table's hits joined to it */
        double *hit = xmalloc((size_t)(r->perf.n_rows ? r->perf.n_rows : 1) * sizeof(double));
        import_sram_join(r, hit);
        perf_layers_make(&p->layers, &r->perf, hit);
        free(hit);
        /* a build log's table: its zero times are no times (PROV_BUILD); its cycle
         * columns stay as printed (0), which keeps each row its own layer */
        for (int k = 0; r->build && k < p->layers.n; k++)
            p->layers.rows[k].time_us = NAN;
    }
}

static void run_prep_free(run_prep *p)
{
    free(p->env);
    free(p->extra);
    perf_layers_free(&p->layers);
}

/* One run of a source into the store. */
static int write_run(store *st, const source *src, const vlog_run_t *r, const run_prep *prep,
                     const char *label, const char *model, const char *model_sha, int copy,
                     const char *db, const char *time, const char *target, int64_t *id,
                     double *total_out, char *err, size_t errlen)
{
    store_run run;
    char *copy_dir = NULL, *dump_dir = NULL, *abs = NULL;
    vlog_dump_t *rows = NULL;
    int n_rows = 0, rc;
    double total = NAN;

    /* the run's figures from the log (record/source_import.c) */
    import_run_fill(&run, r, target, src->platform);
    run.label = label;
    run.time = time;
    run.model_path = model;
    run.model_sha256 = model_sha;
    if (model) {
        const char *ext = strrchr(model, '.');
        run.model_format = ext && !strcmp(ext, ".rknn") ? "rknn" : ext && !strcmp(ext, ".onnx") ? "onnx" : NULL;
    }
    run.env_json = prep->env;
    run.extra_json = prep->extra;
    if (!src->is_dir)
        import_run_facts(&run, r);
    total = run.total_us;
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
            (rc = import_accuracy_add(st, *id, r, err, errlen)) ||
            (rc = dump_rows_store(st, *id, r->dumps, r->n_dumps, err, errlen)) ||
            (src->snapshot && (rc = dump_rows_store(st, *id, src->tensors[!r->toolkit],
                                                  src->n_tensors[!r->toolkit], err, errlen))))
            goto abort;
        if (r->has_bench && (rc = import_bench_outputs_add(st, *id, r, err, errlen)))
            goto abort;
    }
    rc = store_run_commit(st, *id, total, err, errlen);
    *total_out = total;
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
    double *totals;    /* each run's stored total (NaN none), for --json */
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
    double total = NAN;
    int rc;

    if (c->label && c->n_ids)
        snprintf(lab, sizeof lab, "%s-%d", c->label, c->n_ids + 1);
    else if (c->label)
        snprintf(lab, sizeof lab, "%s", c->label);
    rc = write_run(c->st, c->src, r, prep, c->label ? lab : NULL, c->model,
                   c->model_sha, c->copy, c->db, c->time, c->target, &id, &total, err, errlen);
    if (rc)
        return rc;
    c->ids = xrealloc(c->ids, (size_t)(c->n_ids + 1) * sizeof(*c->ids));
    c->totals = xrealloc(c->totals, (size_t)(c->n_ids + 1) * sizeof(*c->totals));
    c->totals[c->n_ids] = total;
    c->ids[c->n_ids++] = id;
    return 0;
}


/* ---- options ------------------------------------------------------------------------ */

typedef struct import_opts {
    const char *label, *model, *db, *target;
    int formats, strict, json, copy;
} import_opts;

static int opt_target(const char *opt, const char *v, void *target)
{
    const npu_platform_t *p = npu_platform_find(v);
    if (!p) {
        cli_error("import: --target %s: unknown platform (known: %s)", v, npu_platform_names());
        return -1;
    }
    *(const char **)target = p->name;
    return 0;
}

static int opt_format(const char *opt, const char *v, void *target)
{
    if ((*(int *)target = parse_formats(v)) <= 0) {
        cli_error("import: unknown --format '%s' (auto, perf, sram, info, memory, "
                  "benchmark, accuracy, dumps)", v);
        return -1;
    }
    return 0;
}

#define CLI_OPTS_T import_opts
static const cli_opt import_options[] = {
    CLI_OPT_STR("--label", 0, "TEXT", label, "label of the run (the next runs: TEXT-2, TEXT-3, ...)"),
    CLI_OPT_STR("--model", 0, "FILE", model, "the model the log belongs to (path and sha256 recorded)"),
    CLI_OPT_CALL("--target", 0, "CHIP", target, opt_target,
                 "the board's platform (rk3588, ...); default: the one the log\n"
                 "names (target platform, RKNN_TARGET, device tree, rk3588, ...)"),
    CLI_OPT_CALL("--format", 0, "F", formats, opt_format,
                 "auto (default) or only: perf, sram, info, memory, benchmark,\n"
                 "accuracy, dumps, errors (comma-separated)"),
    CLI_OPT_FLAG("--strict", 0, strict,
                 "any line not read (other than layout, comments, elisions) fails"),
    CLI_OPT_FLAG("--copy", 0, copy,
                 "copy dump files next to the database instead of referencing them"),
    CLI_OPT_DB(db),
    CLI_OPT_FLAG("--json", 0, json, "one JSON document on stdout"),
    CLI_OPT_END};
#undef CLI_OPTS_T

const cli_spec cli_spec_import = {
    "import",
    "usage: rknn-trace import PATH... [options]\n"
    "Reads what an RKNPU2 board (librknnrt, librknnmrt) or Toolkit2 printed and records\n"
    "it as runs: per-layer performance tables (RKNN_LOG_LEVEL=4, eval_perf, perf_detail;\n"
    "every runtime generation; a build log's table is the compiler's, no timing), the\n"
    "ranking table alone or with totals, eval_perf's whole-model Total Time (1.x:\n"
    "Average inference Time), runtime/driver/rknn_server/toolkit version lines (a\n"
    "toolkit's version line opens a session: a run), SRAM tables and memory totals,\n"
    "eval_memory, rknn_benchmark and the SDK demos' timing lines, accuracy_analysis\n"
    "tables (the simulator half becomes a 'toolkit' run), its snapshot folder\n"
    "(error_analysis.txt, the tensors of simulator/ and runtime/ named by\n"
    "map_name_to_file.txt, golden/ recorded) and level-5 dumps (a folder, or the log's\n"
    "dump lines). Logger prefixes, Android logcat forms, Markdown fences and quotes,\n"
    "lines pasted as inline code, lines a paste glued together (read as the vendor\n"
    "lines they hold, counted as one line) and a translation's full-width colons in\n"
    "the prefixes are taken; an RKNN-Toolkit 1.x table or the galcore driver's lines\n"
    "alone (RKNPU1) are refused by name. A log may be UTF-16 with its byte-order mark\n"
    "(Windows PowerShell's >) or gzip-compressed; terminal colours are read past.\n"
    "The kernel driver's dmesg lines give its version and its job errors.\n"
    "Error lines (E RKNN, failed submits, toolkit and adb errors) and, in a run, the\n"
    "process's death (Aborted, Segmentation fault, a fatal error, a gdb frame in\n"
    "rkllm_init) make a failed run with its error lines and a diagnosis of the\n"
    "known ones.\n"
    "A log with several runs gives several runs. Lines that are not read are counted\n"
    "by kind; a table line that cannot be read is an error.\n"
    "A FILE.json written by `rknn-trace export` is read back whole, alone (runs whose\n"
    "content is here already are skipped; a taken label becomes LABEL-2).\n"
    "Bounds (exit 2, nothing stored): a log is text from its first bytes, no line is\n"
    "longer than 64 KiB, one import holds at most 1 GiB (logs, runs, rows); an export\n"
    "file is at most 128 MiB.\n"
    "\n",
    import_options, NULL};

/* ---- the import, step by step --------------------------------------------------------- */

typedef struct import_job {
    const import_opts *o;
    source *src;
    int n_src;
    size_t budget;   /* what the import may still hold (cli/import_read.c) */
    char err[512];
} import_job;

/* `import FILE.json` of an export, within its bound. */
static int import_export_file(const char *path, int n_paths, const import_opts *o)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && (uint64_t)sb.st_size > IMPORT_MAX_EXPORT) {
        cli_error("import: %s: an export of %lld MiB, over the %d MiB one import reads (its "
                  "JSON takes about 8 times its size in memory); export fewer runs per file",
                  path, (long long)(sb.st_size >> 20), (int)(IMPORT_MAX_EXPORT >> 20));
        return EXIT_INPUT;
    }
    return cli_import_export(path, n_paths, o->db, o->label || o->model || o->strict ||
                             o->copy || o->json || o->target || o->formats != VLOG_F_ALL);
}

/* Every source read and the folders checked before the database is touched;
 * text logs are checked while they are read, inside the transaction. */
static int import_read_sources(import_job *j)
{
    char *err = j->err;
    size_t errlen = sizeof(j->err);

    for (int s = 0; s < j->n_src; s++) {
        source *x = &j->src[s];
        if (is_dir(x->path)) {
            char *table = path_join(x->path, "error_analysis.txt");
            int snap = is_file(table), ex;
            free(table);
            if (snap) {
                int rc = read_snapshot(x, j->o->formats, &j->budget, err, errlen);
                if (rc) {
                    cli_error("import: %s: %s", x->path, err);
                    return input_exit(rc);
                }
                if ((ex = check_lines(x, j->o->strict)))
                    return ex;
                continue;
            }
            x->is_dir = 1;
            if (golden_scan(x->path, &x->files, &x->n_files, err, errlen) || !x->n_files ||
                charge_rows(x->path, (size_t)x->n_files, sizeof(golden_file), &j->budget, err,
                            errlen)) {
                cli_error("import: %s: %s", x->path, x->n_files ? err : "no .npy dump in the folder");
                return EXIT_INPUT;
            }
            continue;
        }
        int rc = import_read_log(x->path, &j->budget, &x->text, &x->len, &x->mapped, err, errlen);
        if (rc) {
            cli_error("import: %s", err); /* the reader names the file */
            return EXIT_INPUT;
        }
        import_log_platform(x->text, x->len, x->platform, sizeof x->platform);
    }
    return EXIT_OK;
}

/* One source's runs through ic (inside the transaction). */
static int import_write_source(import_job *j, source *x, import_ctx *ic)
{
    char *err = j->err;
    size_t errlen = sizeof(j->err);
    int rc = 0, ex;

    ic->src = x;
    if (x->text) {
        import_stage stage = {prepare_one, write_one, discard_one, ic, &j->budget};
        rc = import_stream(x->text, x->len, j->o->formats, &x->log, &stage, err, errlen);
        if (rc == RT_ENOMEM) { /* the scan passed the bound: name it */
            size_t n = strlen(err);
            snprintf(err + n, errlen - n, " (one import holds at most %d MiB: its logs' "
                     "text and what is read from them); split the log",
                     (int)(IMPORT_MAX_BYTES >> 20));
        }
        j->budget += x->len; /* the text is let go */
        source_text_free(x);
        if (!rc && (ex = check_lines(x, j->o->strict)))
            return ex;
    } else {
        static const vlog_run_t none;
        int nr = x->is_dir ? 1 : x->log.n_runs;
        for (int k = 0; k < nr && !rc; k++) {
            const vlog_run_t *r = x->is_dir ? &none : &x->log.runs[k];
            run_prep p;
            prepare_run(x, r, &p);
            rc = write_one(ic, r, &p, err, errlen);
            run_prep_free(&p);
        }
    }
    if (rc) {
        cli_error("import: %s: %s", x->path, err);
        return input_exit(rc);
    }
    return EXIT_OK;
}

/* The "tensors" figure of a run (r NULL: a dump folder). */
static int import_tensors(const source *x, const vlog_run_t *r)
{
    return !r ? x->n_files : r->n_dumps + (x->snapshot ? x->n_tensors[!r->toolkit] : 0);
}

static void import_print_json(const import_job *j, const int64_t *ids, const double *totals,
                              const int64_t *kinds)
{
    const char *target = j->o->target;
    json_writer w;
    size_t len;
    char *text;

    json_begin_mem(&w); /* one write: 17,000 runs took 20 ms through stdio */
    json_obj_open(&w);
    json_key(&w, "runs");
    json_arr_open(&w);
    for (int s = 0, i = 0; s < j->n_src; s++) {
        const source *x = &j->src[s];
        int nr = x->is_dir ? 1 : x->log.n_runs;
        for (int k = 0; k < nr; k++, i++) {
            const vlog_run_t *r = x->is_dir ? NULL : &x->log.runs[k];
            json_obj_open(&w);
            json_key(&w, "run_id"); json_int(&w, ids[i]);
            json_key(&w, "source"); json_str(&w, x->path);
            json_key(&w, "backend"); json_str(&w, r && (r->toolkit || r->build) ? "toolkit" : "board");
            json_key(&w, "platform"); json_str(&w, r ? import_run_platform(r, target, x->platform) : target);
            json_key(&w, "status"); json_str(&w, r && r->failed ? "failed" : "ok");
            json_key(&w, "layers"); json_int(&w, r && r->has_perf ? r->perf.n_rows : 0);
            json_key(&w, "accuracy"); json_int(&w, r ? r->n_acc : 0);
            json_key(&w, "tensors");
            json_int(&w, import_tensors(x, r));
            /* the stored run's total (the table's, else the timed runs' median, else
             * the Avg line), as `show` prints it */
            json_key(&w, "total_us");
            json_num(&w, totals[i]);
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
}

static void import_print_text(const import_job *j, const int64_t *ids, const int64_t *kinds)
{
    for (int s = 0, i = 0; s < j->n_src; s++) {
        const source *x = &j->src[s];
        int nr = x->is_dir ? 1 : x->log.n_runs;
        for (int k = 0; k < nr; k++, i++) {
            const vlog_run_t *r = x->is_dir ? NULL : &x->log.runs[k];
            printf("run %lld  %-7s  %s", (long long)ids[i], r && (r->toolkit || r->build) ? "toolkit" : "board",
                   esc_tmp(ESC_TERM, x->path));
            if (r && r->has_perf)
                printf("  %d layers", r->perf.n_rows);
            if (r && r->n_acc)
                printf("  %d accuracy rows", r->n_acc);
            if (r && r->n_errors)
                printf("  %s, %d error line%s", r->failed ? "failed" : "ok", r->n_errors,
                       r->n_errors == 1 ? "" : "s");
            if (!r || r->n_dumps || (x->snapshot && x->n_tensors[!r->toolkit]))
                printf("  %d tensors", import_tensors(x, r));
            putchar('\n');
        }
    }
    printf("lines:");
    for (int k = 0; k < VLOG_NKINDS; k++)
        if (kinds[k])
            printf(" %s %lld", vlog_kind_names[k], (long long)kinds[k]);
    putchar('\n');
}

/* The sources read, every run written in one transaction (all or none), the
 * runs listed. */
static int import_logs(import_job *j)
{
    const import_opts *o = j->o;
    int64_t kinds[VLOG_NKINDS] = {0};
    import_ctx ic = {0};
    store *st = NULL;
    char model_sha[65];
    const char *db = NULL;
    int ex, created = 0;

    if (o->model) {
        void *data = NULL;
        size_t len = 0;
        if (rt_read_file(o->model, &data, &len, j->err, sizeof j->err)) {
            cli_error("import: %s", j->err);
            return EXIT_INPUT;
        }
        rt_sha256_hex(data, len, model_sha);
        free(data);
    }
    if ((ex = import_read_sources(j)))
        return ex;
    db = store_default_path(o->db);
    created = access(db, F_OK) != 0;
    if (store_open(db, &st, j->err, sizeof j->err) ||
        /* the whole import is one transaction: all its runs, or none */
        store_batch_begin_adding(st, j->err, sizeof j->err)) {
        cli_error("%s", j->err);
        ex = EXIT_INPUT;
        goto out;
    }
    ic = (import_ctx){.st = st, .label = o->label, .model = o->model,
                      .model_sha = o->model ? model_sha : NULL, .target = o->target,
                      .copy = o->copy, .db = db};
    rt_iso_time(ic.time, sizeof ic.time);
    for (int s = 0; s < j->n_src && !ex; s++)
        ex = import_write_source(j, &j->src[s], &ic);
    if (ex) {
        store_batch_abort(st);
        goto out;
    }
    for (int s = 0; s < j->n_src; s++)
        for (int k = 0; k < VLOG_NKINDS; k++)
            kinds[k] += j->src[s].log.kinds[k];
    if (store_batch_commit(st, j->err, sizeof j->err)) {
        cli_error("import: %s", j->err);
        ex = cli_exit_code(RT_EIO);
        goto out;
    }
    if (o->json)
        import_print_json(j, ic.ids, ic.totals, kinds);
    else
        import_print_text(j, ic.ids, kinds);
out:
    free(ic.ids);
    free(ic.totals);
    store_close(st);
    if (ex && created)
        unlink(db); /* a database this import created holds nothing */
    return ex;
}

int cmd_import(int argc, char **argv)
{
    import_opts o = {.formats = VLOG_F_ALL};
    import_job j = {.o = &o, .budget = IMPORT_MAX_BYTES};
    int n = cli_parse(&cli_spec_import, argc, argv, &o), ex;

    if (n < 0)
        return n == CLI_PARSE_HELP ? EXIT_OK : EXIT_USAGE;
    if (!n) {
        cli_help(&cli_spec_import, stderr);
        return EXIT_USAGE;
    }
    if (cli_is_export_file(argv[1])) /* runs written by `rknn-trace export` */
        return import_export_file(argv[1], n, &o);
    j.n_src = n;
    j.src = xcalloc((size_t)n, sizeof(*j.src));
    for (int s = 0; s < n; s++)
        j.src[s].path = argv[1 + s];
    ex = import_logs(&j);
    for (int s = 0; s < n; s++)
        source_free(&j.src[s]);
    free(j.src);
    return ex;
}
