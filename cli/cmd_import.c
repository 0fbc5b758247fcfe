/* cli/cmd_import.c — `rknn-trace import PATH...`: board logs, toolkit output
 * and level-5 dump folders into the run store. Every file is read and checked
 * before anything is written; each run is one transaction, and a failure
 * removes the runs this import already committed. */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "dump/dump.h"
#include "tracer/tracer.h"
#include "util/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fputs("usage: rknn-trace import PATH... [options]\n"
          "Reads what a board or Toolkit2 printed and records it as runs: per-layer\n"
          "performance tables (RKNN_LOG_LEVEL=4, eval_perf, perf_detail; every generation),\n"
          "the ranking table and totals, runtime/driver/toolkit version lines, SRAM tables,\n"
          "eval_memory, rknn_benchmark output, accuracy_analysis tables (the simulator half\n"
          "becomes a 'toolkit' run) and level-5 dumps (a folder, or the log's dump lines).\n"
          "A log with several runs gives several runs. Lines that are not read are counted\n"
          "by kind; a table line that cannot be read is an error.\n"
          "A FILE.json written by `rknn-trace export` is read back whole, alone (runs whose\n"
          "content is here already are skipped; a taken label becomes LABEL-2).\n"
          "\n"
          "      --label TEXT    label of the run (the next runs: TEXT-2, TEXT-3, ...)\n"
          "      --model FILE    the model the log belongs to (path and sha256 recorded)\n"
          "      --format F      auto (default) or only: perf, sram, info, memory, benchmark,\n"
          "                      accuracy, dumps (comma-separated)\n"
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
    vlog_t log;
    int is_dir;
    golden_file *files;
    int n_files;
} source;

static const char *numpy_dtype(const char *vendor)
{
    static const struct { const char *v, *np; } map[] = {
        {"INT8", "int8"}, {"UINT8", "uint8"}, {"INT16", "int16"}, {"UINT16", "uint16"},
        {"INT32", "int32"}, {"INT64", "int64"}, {"FLOAT16", "float16"}, {"FP16", "float16"},
        {"FLOAT", "float32"}, {"FLOAT32", "float32"}, {"BFLOAT16", "bfloat16"},
        {"float", "float32"}, {"uint8", "uint8"}, {"int8", "int8"}, {"float16", "float16"},
        {"int32", "int32"}, {"int64", "int64"}, {"int16", "int16"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(vendor, map[i].v))
            return map[i].np;
    return NULL;
}

/* "(1,3,224,224),(64,3,7,7),..." -> "[[1,3,224,224],[64,3,7,7]]"; NULL for "\" or
 * nothing readable. A truncated list (",...") keeps the shapes printed. */
static char *shapes_json(const char *s, int single)
{
    size_t n = strlen(s);
    char *out = xmalloc(2 * n + 8), *o = out;
    int shapes = 0;

    if (!single)
        *o++ = '[';
    for (const char *p = s; *p;) {
        if (*p != '(') {
            p++;
            continue;
        }
        const char *c = strchr(p, ')');
        if (!c)
            break;
        if (single && shapes)
            break;
        if (shapes)
            *o++ = ',';
        *o++ = '[';
        for (const char *q = p + 1; q < c; q++)
            if ((*q >= '0' && *q <= '9') || *q == ',' || *q == '-')
                *o++ = *q;
        *o++ = ']';
        shapes++;
        p = c + 1;
    }
    if (!single)
        *o++ = ']';
    *o = 0;
    if (!shapes) {
        free(out);
        return NULL;
    }
    return out;
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
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    json_writer w;

    json_begin(&w, f);
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
    fclose(f);
    if (len <= 3) { /* "{}\n" */
        free(text);
        return NULL;
    }
    while (len && text[len - 1] == '\n')
        text[--len] = 0;
    return text;
}

/* Figures of the run that have no column: totals, memory, SRAM, benchmark. */
static char *extra_json(const vlog_run_t *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    json_writer w;
    int any = 0;

    json_begin(&w, f);
    json_obj_open(&w);
    json_key(&w, "import");
    json_str(&w, r->toolkit ? "accuracy_analysis simulator" : "board log");
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
        json_obj_close(&w);
        any = 1;
    }
    if (r->has_bench) {
        json_key(&w, "benchmark");
        json_obj_open(&w);
        json_key(&w, "avg_ms"); json_num(&w, r->bench.avg_ms >= 0 ? r->bench.avg_ms : NAN);
        json_key(&w, "avg_fps"); json_num(&w, r->bench.avg_fps >= 0 ? r->bench.avg_fps : NAN);
        json_key(&w, "dma_bytes"); if (r->bench.dma_size >= 0) json_int(&w, r->bench.dma_size); else json_write_null(&w);
        json_obj_close(&w);
        any = 1;
    }
    json_obj_close(&w);
    fclose(f);
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

static int add_layers(store *st, int64_t id, const vlog_run_t *r, char *err, size_t errlen)
{
    for (int k = 0; k < r->perf.n_rows; k++) {
        const perflog_row_t *p = &r->perf.rows[k];
        store_layer l;
        char wl[64] = "", op[48] = "", *colon;
        char *in = NULL, *out = NULL;
        int rc;

        store_layer_init(&l);
        l.idx = p->id;
        l.name = p->fullname[0] ? p->fullname : NULL;
        /* FullName is "<ONNX op>:<node>" */
        if ((colon = strchr(p->fullname, ':')) != NULL && colon > p->fullname) {
            snprintf(op, sizeof op, "%.*s", (int)(colon - p->fullname), p->fullname);
            l.op = op;
            l.node = colon[1] ? colon + 1 : NULL;
        }
        l.npu_op = p->optype;
        l.npu_dtype = p->datatype[0] ? p->datatype : NULL;
        l.dtype = numpy_dtype(p->datatype);
        if (!strcmp(p->target, "NPU") || !strcmp(p->target, "CPU"))
            l.target = p->target;
        in = strcmp(p->inshape, "\\") && p->inshape[0] ? shapes_json(p->inshape, 0) : NULL;
        out = strcmp(p->outshape, "\\") && p->outshape[0] ? shapes_json(p->outshape, 0) : NULL;
        l.in_shapes = in;
        l.out_shapes = out;
        if (p->npu >= 0) l.npu_cycles = p->npu;
        if (p->ddr >= 0) l.ddr_cycles = p->ddr;
        if (p->total >= 0) l.total_cycles = p->total;
        if (p->time_us >= 0) l.time_us = (double)p->time_us;
        if (p->n_mac) {
            double m = p->mac[0];
            for (int c = 1; c < p->n_mac; c++)
                m = p->mac[c] > m ? p->mac[c] : m;
            l.mac_usage = m;
        }
        if (p->n_wl) {
            size_t u = 0;
            for (int c = 0; c < p->n_wl; c++)
                u += (size_t)snprintf(wl + u, sizeof wl - u, "%s%.1f%%", c ? "/" : "", p->wl[c]);
            l.workload = wl;
        }
        if (p->task_number >= 0) l.tasks = p->task_number;
        if (p->rw_kb >= 0) l.rw_kb = p->rw_kb;
        if (l.target && !strcmp(l.target, "CPU"))
            l.bound = "CPU";
        else if (l.target && p->npu >= 0 && p->ddr >= 0 && (p->npu || p->ddr))
            l.bound = p->npu >= p->ddr ? "compute" : "DDR";
        rc = store_layer_add(st, id, &l, err, errlen);
        free(in);
        free(out);
        if (rc)
            return rc;
    }
    return 0;
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
        if ((rc = store_accuracy_add(st, id, &s, err, errlen)))
            return rc;
    }
    return 0;
}

static int add_dump_rows(store *st, int64_t id, const vlog_dump_t *d, int n, char *err,
                         size_t errlen)
{
    for (int k = 0; k < n; k++) {
        store_output o;
        int64_t dims[8];
        char shape[160];
        int rc;

        store_output_init(&o);
        for (int j = 0; j < d[k].n_dims; j++)
            dims[j] = d[k].dims[j];
        o.idx = k;
        o.name = d[k].name;
        o.shape = store_format_shape(shape, sizeof shape, d[k].n_dims, dims);
        o.dtype = numpy_dtype(d[k].dtype);
        o.dump_file = d[k].path;
        if ((rc = store_output_add(st, id, &o, err, errlen)))
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
    FILE *f;
    int rc = rt_read_file(from, &data, &len, err, errlen);

    if (rc)
        return rc;
    f = fopen(to, "wb");
    if (!f || fwrite(data, 1, len, f) != len) {
        rc = rt_err(err, errlen, RT_EIO, "cannot write %s: %s", to, strerror(errno));
    }
    if (f && fclose(f) && !rc)
        rc = rt_err(err, errlen, RT_EIO, "cannot write %s: %s", to, strerror(errno));
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

static int write_run(store *st, const source *src, const vlog_run_t *r, const char *label,
                     const char *model, const char *model_sha, int copy, const char *db,
                     int64_t *id, char *err, size_t errlen)
{
    store_run run;
    char *env = src->is_dir ? NULL : env_json(r, src->path), *extra = src->is_dir ? NULL : extra_json(r);
    char *copy_dir = NULL, *dump_dir = NULL, *abs = NULL;
    vlog_dump_t *rows = NULL;
    int n_rows = 0, rc;
    double total = NAN;

    store_run_init(&run);
    run.label = label;
    run.backend = r->toolkit ? "toolkit" : "board";
    run.platform = r->info.soc[0] ? r->info.soc : NULL;
    run.model_path = model;
    run.model_sha256 = model_sha;
    if (model) {
        const char *ext = strrchr(model, '.');
        run.model_format = ext && !strcmp(ext, ".rknn") ? "rknn" : ext && !strcmp(ext, ".onnx") ? "onnx" : NULL;
    }
    run.env_json = env;
    run.extra_json = extra;
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
    if (src->is_dir) {
        abs = realpath(src->path, NULL);
        run.dump_dir = abs ? abs : src->path;
    }
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
            (rc = add_dump_rows(st, *id, rows, n_rows, err, errlen)))
            goto abort;
    } else {
        if ((r->has_perf && (rc = add_layers(st, *id, r, err, errlen))) ||
            (rc = add_accuracy(st, *id, r, err, errlen)) ||
            (rc = add_dump_rows(st, *id, r->dumps, r->n_dumps, err, errlen)))
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
                so.dtype = numpy_dtype(t->type);
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
    free(env);
    free(extra);
    return rc;
}

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int cmd_import(int argc, char **argv)
{
    const char *label = NULL, *model = NULL, *db = NULL;
    int formats = VLOG_F_ALL, strict = 0, json = 0, copy = 0, n_src = 0, ex = EXIT_OK;
    int64_t *ids = NULL, kinds[VLOG_NKINDS] = {0};
    int n_ids = 0;
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
        ex = cli_import_export(src[0].path, n_src, db, label || model || strict || copy ||
                               json || formats != VLOG_F_ALL);
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
    /* read and check everything before writing anything */
    for (int s = 0; s < n_src; s++) {
        source *x = &src[s];
        if (is_dir(x->path)) {
            x->is_dir = 1;
            if (golden_scan(x->path, &x->files, &x->n_files, err, sizeof err) || !x->n_files) {
                cli_error("import: %s: %s", x->path, x->n_files ? err : "no .npy dump in the folder");
                ex = EXIT_INPUT;
                goto out;
            }
            continue;
        }
        void *data = NULL;
        size_t len = 0;
        int rc = rt_read_file(x->path, &data, &len, err, sizeof err);
        if (!rc)
            rc = vlog_scan(data, len, formats, &x->log, err, sizeof err);
        free(data);
        if (rc) {
            cli_error("import: %s: %s", x->path, err);
            ex = cli_exit_code(rc);
            goto out;
        }
        if (x->log.kinds[VLOG_BAD]) {
            cli_error("import: %s:%lld: a table line that cannot be read (%lld such lines): '%.60s'",
                      x->path, (long long)x->log.first_bad, (long long)x->log.kinds[VLOG_BAD],
                      x->log.first_bad_text);
            ex = EXIT_INPUT;
            goto out;
        }
        if (strict && (x->log.kinds[VLOG_APP] || x->log.kinds[VLOG_RUNTIME] ||
                       x->log.kinds[VLOG_TOOLKIT])) {
            cli_error("import: %s: --strict: %lld lines not read (runtime %lld, toolkit %lld, "
                      "other text %lld; first at line %lld)", x->path,
                      (long long)(x->log.kinds[VLOG_APP] + x->log.kinds[VLOG_RUNTIME] +
                                  x->log.kinds[VLOG_TOOLKIT]),
                      (long long)x->log.kinds[VLOG_RUNTIME], (long long)x->log.kinds[VLOG_TOOLKIT],
                      (long long)x->log.kinds[VLOG_APP], (long long)x->log.first_app);
            ex = EXIT_INPUT;
            goto out;
        }
        for (int k = 0; k < VLOG_NKINDS; k++)
            kinds[k] += x->log.kinds[k];
    }
    db = store_default_path(db);
    if (store_open(db, &st, err, sizeof err)) {
        cli_error("%s", err);
        ex = EXIT_INPUT;
        goto out;
    }
    /* the whole import is one transaction: all its runs, or none */
    if (store_batch_begin(st, err, sizeof err)) {
        cli_error("%s", err);
        ex = EXIT_INPUT;
        goto out;
    }
    for (int s = 0; s < n_src; s++) {
        int nr = src[s].is_dir ? 1 : src[s].log.n_runs;
        for (int k = 0; k < nr; k++) {
            static const vlog_run_t none;
            const vlog_run_t *r = src[s].is_dir ? &none : &src[s].log.runs[k];
            char lab[256];
            int64_t id = 0;
            int rc;
            if (label && n_ids)
                snprintf(lab, sizeof lab, "%s-%d", label, n_ids + 1);
            else if (label)
                snprintf(lab, sizeof lab, "%s", label);
            rc = write_run(st, &src[s], r, label ? lab : NULL, model, model_sha_p, copy, db, &id,
                           err, sizeof err);
            if (rc) {
                cli_error("import: %s: %s", src[s].path, err);
                store_batch_abort(st);
                ex = cli_exit_code(rc) == EXIT_USAGE ? EXIT_INPUT : cli_exit_code(rc);
                goto out;
            }
            ids = xrealloc(ids, (size_t)(n_ids + 1) * sizeof(*ids));
            ids[n_ids++] = id;
        }
    }
    if (store_batch_commit(st, err, sizeof err)) {
        cli_error("import: %s", err);
        ex = cli_exit_code(RT_EIO);
        goto out;
    }
    if (json) {
        json_writer w;
        json_begin(&w, stdout);
        json_obj_open(&w);
        json_key(&w, "runs");
        json_arr_open(&w);
        for (int s = 0, j = 0; s < n_src; s++) {
            int nr = src[s].is_dir ? 1 : src[s].log.n_runs;
            for (int k = 0; k < nr; k++, j++) {
                const vlog_run_t *r = src[s].is_dir ? NULL : &src[s].log.runs[k];
                json_obj_open(&w);
                json_key(&w, "run_id"); json_int(&w, ids[j]);
                json_key(&w, "source"); json_str(&w, src[s].path);
                json_key(&w, "backend"); json_str(&w, r && r->toolkit ? "toolkit" : "board");
                json_key(&w, "platform"); json_str(&w, r && r->info.soc[0] ? r->info.soc : NULL);
                json_key(&w, "layers"); json_int(&w, r && r->has_perf ? r->perf.n_rows : 0);
                json_key(&w, "accuracy"); json_int(&w, r ? r->n_acc : 0);
                json_key(&w, "tensors"); json_int(&w, r ? r->n_dumps : src[s].n_files);
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
    } else {
        for (int s = 0, j = 0; s < n_src; s++) {
            int nr = src[s].is_dir ? 1 : src[s].log.n_runs;
            for (int k = 0; k < nr; k++, j++) {
                const vlog_run_t *r = src[s].is_dir ? NULL : &src[s].log.runs[k];
                printf("run %lld  %-7s  %s", (long long)ids[j], r && r->toolkit ? "toolkit" : "board",
                       src[s].path);
                if (r && r->has_perf)
                    printf("  %d layers", r->perf.n_rows);
                if (r && r->n_acc)
                    printf("  %d accuracy rows", r->n_acc);
                if (!r || r->n_dumps)
                    printf("  %d tensors", r ? r->n_dumps : src[s].n_files);
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
    for (int s = 0; s < n_src; s++) {
        vlog_free(&src[s].log);
        golden_files_free(src[s].files, src[s].n_files);
    }
    free(src);
    free(ids);
    store_close(st);
    return ex;
}
