/* analyze/store_export.c — moving runs between databases: a run's content
 * hash, the JSON export format (docs/store.md, "Export"), importing such a file
 * and merging another database. Imports and merges are one transaction: a
 * file or database that cannot be read whole leaves this database unchanged. */
#include "analyze/store_int.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* ---------------------------------------------------------------- one run, whole */

/* A run with every row it owns. from_db: its strings are the store's copies
 * (freed with the rows); otherwise they point into a parsed document. */
typedef struct bundle {
    store_run run;
    store_layer *layers;
    store_output *outs;
    store_accuracy *acc;
    store_load_sample *load;
    store_npu_row *npu;  /* the level-4 rows no layer row gives back */
    const char **tags;
    int nl, no, na, nload, ntags, nnpu;
    int npu_borrowed;    /* npu points into legacy */
    int from_db;
    char *tags_text;     /* from_db: run.tags split in place */
    sq_legacy legacy;    /* a version-1 export's facts moved out of its texts */
} bundle;

static void bundle_free(bundle *b)
{
    if (b->from_db) {
        store_layers_free(b->layers, b->nl);
        store_outputs_free(b->outs, b->no);
        store_accuracy_free(b->acc, b->na);
        store_npu_rows_free(b->npu, b->nnpu);
        store_run_clear(&b->run);
    } else {
        if (!b->npu_borrowed)
            free(b->npu);
        free(b->layers);
        free(b->outs);
        free(b->acc);
    }
    free(b->load);
    free(b->tags);
    free(b->tags_text);
    sq_legacy_free(&b->legacy);
    memset(b, 0, sizeof *b);
}

static void read_acc_row(sqlite3_stmt *s, void *row) { sq_read_accuracy(s, 0, row); }

static void free_acc_rows(void *rows, int n) { store_accuracy_free(rows, n); }

/* Every error row of a run, of every source (store_get_accuracy gives one). */
static int get_accuracy_all(store *st, int64_t run_id, store_accuracy **rows, int *n,
                            char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    *rows = NULL;
    *n = 0;
    if ((rc = sq_db_prepare(st, "SELECT " ACC_COLS " FROM accuracy WHERE run_id = ? "
                            "ORDER BY source <> '" STORE_ACC_QUANT "', source, idx",
                            &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    return sq_query_rows(st, s, sizeof(store_accuracy), read_acc_row, free_acc_rows,
                         "cannot read the per-layer errors", (void **)rows, n, err, errlen);
}

static int bundle_read(store *st, int64_t run_id, bundle *b, char *err, size_t errlen)
{
    char ref[32];
    int rc;

    memset(b, 0, sizeof *b);
    b->from_db = 1;
    snprintf(ref, sizeof ref, "%lld", (long long)run_id);
    if ((rc = store_get_run(st, ref, &b->run, err, errlen)))
        return rc;
    if ((rc = store_get_layers(st, run_id, &b->layers, &b->nl, err, errlen)) ||
        (rc = store_get_outputs(st, run_id, &b->outs, &b->no, err, errlen)) ||
        (rc = get_accuracy_all(st, run_id, &b->acc, &b->na, err, errlen)) ||
        (rc = sq_get_samples(st, run_id, &b->load, &b->nload, err, errlen)) ||
        (rc = store_get_npu_rows(st, run_id, &b->npu, &b->nnpu, err, errlen)))
        goto fail;
    if (b->run.tags) {
        b->tags_text = xstrdup(b->run.tags);
        b->tags = xcalloc(strlen(b->tags_text) + 1, sizeof *b->tags);
        for (char *p = strtok(b->tags_text, ","); p; p = strtok(NULL, ","))
            b->tags[b->ntags++] = p;
    }
    return 0;
fail:
    bundle_free(b);
    return rc;
}

/* ---------------------------------------------------------------- fields */

enum kind { K_TEXT, K_I64, K_REAL, K_INT };

typedef struct field {
    const char *key;
    int kind;
    size_t off;
} field;

#define RF(k, t, m) { k, t, offsetof(store_run, m) }
static const field run_fields[] = {
    RF("time", K_TEXT, time), RF("model_path", K_TEXT, model_path),
    RF("model_sha256", K_TEXT, model_sha256), RF("model_format", K_TEXT, model_format),
    RF("platform", K_TEXT, platform), RF("backend", K_TEXT, backend),
    RF("quant", K_TEXT, quant), RF("quant_algo", K_TEXT, quant_algo),
    RF("quant_method", K_TEXT, quant_method), RF("threads", K_I64, threads),
    RF("iterations", K_I64, iterations), RF("seed", K_I64, seed),
    RF("inputs_json", K_TEXT, inputs_json), RF("total_us", K_REAL, total_us),
    RF("status", K_TEXT, status), RF("tool_version", K_TEXT, tool_version),
    RF("extra_json", K_TEXT, extra_json), RF("npu_us", K_REAL, npu_us),
    RF("host_min_us", K_REAL, host_min_us), RF("host_p90_us", K_REAL, host_p90_us),
    RF("host_stddev_us", K_REAL, host_stddev_us), RF("warmup", K_I64, warmup),
    RF("dump_dir", K_TEXT, dump_dir), RF("dump_sha256", K_TEXT, dump_sha256),
    RF("weight_bytes", K_I64, weight_bytes), RF("internal_bytes", K_I64, internal_bytes),
    RF("env_json", K_TEXT, env_json),
    /* schema 5 (export version 2): from N_RUN_FIELDS_V1 on */
    RF("perf_table_us", K_REAL, perf_table_us), RF("npu_clock_mhz", K_I64, npu_clock_mhz),
    RF("ddr_clock_mhz", K_I64, ddr_clock_mhz), RF("npu_table_layers", K_I64, npu_table_layers),
    RF("calib_samples", K_I64, calib_samples), RF("int8_layers", K_I64, int8_layers),
    RF("fp16_layers", K_I64, fp16_layers), RF("cfg_params", K_I64, cfg_params),
    RF("import_kind", K_TEXT, import_kind), RF("log_total_us", K_REAL, log_total_us),
    RF("perf_run_us", K_I64, perf_run_us), RF("share_compute_pct", K_REAL, share_pct[0]),
    RF("share_ddr_pct", K_REAL, share_pct[1]), RF("share_cpu_pct", K_REAL, share_pct[2]),
    RF("cost_model_version", K_I64, cost_model_version),
    RF("cost_model_fingerprint", K_TEXT, cost_model_fingerprint),
};

#define N_RUN_FIELDS_V1 27 /* the fields of an export version 1 */

#define LF(k, t, m) { k, t, offsetof(store_layer, m) }
static const field layer_fields[] = {
    LF("idx", K_I64, idx), LF("node", K_TEXT, node), LF("op", K_TEXT, op),
    LF("name", K_TEXT, name), LF("in_shapes", K_TEXT, in_shapes),
    LF("out_shapes", K_TEXT, out_shapes), LF("dtype", K_TEXT, dtype),
    LF("host_us", K_REAL, host_us), LF("npu_cycles", K_I64, npu_cycles),
    LF("ddr_cycles", K_I64, ddr_cycles), LF("total_cycles", K_I64, total_cycles),
    LF("time_us", K_REAL, time_us), LF("mac_usage", K_REAL, mac_usage),
    LF("target", K_TEXT, target), LF("cpu_reason", K_TEXT, cpu_reason),
    LF("sram_hit", K_REAL, sram_hit), LF("rw_kb", K_REAL, rw_kb), LF("bound", K_TEXT, bound),
    LF("workload", K_TEXT, workload), LF("tasks", K_I64, tasks), LF("npu_op", K_TEXT, npu_op),
    LF("frame_us", K_REAL, frame_us), LF("npu_dtype", K_TEXT, npu_dtype),
    LF("out_scale", K_REAL, out_scale), LF("out_zp", K_I64, out_zp),
    LF("out_qtype", K_TEXT, out_qtype), LF("out_min", K_REAL, out_min),
    LF("out_max", K_REAL, out_max), LF("out_mean", K_REAL, out_mean),
    LF("out_std", K_REAL, out_std),
    /* export version 2 */
    LF("workload_cores", K_INT, n_workload), LF("workload0", K_REAL, workload_pct[0]),
    LF("workload1", K_REAL, workload_pct[1]), LF("workload2", K_REAL, workload_pct[2]),
};

#define OF(k, t, m) { k, t, offsetof(store_output, m) }
static const field output_fields[] = {
    OF("idx", K_I64, idx), OF("name", K_TEXT, name), OF("shape", K_TEXT, shape),
    OF("dtype", K_TEXT, dtype), OF("dump_file", K_TEXT, dump_file),
};

#define AF(k, t, m) { k, t, offsetof(store_accuracy, m) }
static const field acc_fields[] = {
    AF("idx", K_I64, idx), AF("layer", K_I64, layer), AF("name", K_TEXT, name),
    AF("op", K_TEXT, op), AF("node", K_TEXT, node), AF("fused", K_INT, fused),
    AF("is_output", K_INT, is_output), AF("entire_cos", K_REAL, entire.cos),
    AF("entire_euc", K_REAL, entire.euc), AF("entire_max_abs", K_REAL, entire.max_abs),
    AF("entire_mean_abs", K_REAL, entire.mean_abs), AF("entire_sqnr_db", K_REAL, entire.sqnr_db),
    AF("entire_flags", K_INT, entire.flags), AF("single_cos", K_REAL, single.cos),
    AF("single_euc", K_REAL, single.euc), AF("single_max_abs", K_REAL, single.max_abs),
    AF("single_mean_abs", K_REAL, single.mean_abs), AF("single_sqnr_db", K_REAL, single.sqnr_db),
    AF("single_flags", K_INT, single.flags), AF("source", K_TEXT, source),
};

#define NF_(k, t, m) { k, t, offsetof(store_npu_row, m) }
static const field npu_row_fields[] = {
    NF_("at", K_I64, at), NF_("skip", K_INT, skip), NF_("id", K_I64, id), NF_("op", K_TEXT, op),
    NF_("datatype", K_TEXT, datatype), NF_("dtype", K_I64, dtype),
    NF_("target", K_TEXT, target), NF_("n_in", K_I64, n_in), NF_("n_out", K_I64, n_out),
    NF_("in_shapes", K_TEXT, in_shapes), NF_("out_shapes", K_TEXT, out_shapes),
    NF_("ddr_cycles", K_I64, ddr_cycles), NF_("npu_cycles", K_I64, npu_cycles),
    NF_("total_cycles", K_I64, total_cycles), NF_("time_us", K_REAL, time_us), NF_("frame_us", K_REAL, frame_us),
    NF_("rw_kb", K_REAL, rw_kb), NF_("macs", K_INT, macs), NF_("n_cores", K_INT, n_cores),
    NF_("mac_usage0", K_REAL, mac_usage[0]), NF_("mac_usage1", K_REAL, mac_usage[1]),
    NF_("mac_usage2", K_REAL, mac_usage[2]), NF_("workload0", K_REAL, workload[0]),
    NF_("workload1", K_REAL, workload[1]), NF_("workload2", K_REAL, workload[2]),
    NF_("tasks", K_I64, tasks), NF_("fullname", K_TEXT, fullname), NF_("note", K_TEXT, note),
};
_Static_assert(STORE_NPU_ROW_CORES == 3, "npu_row_fields name three cores");

#define SF(k, t, m) { k, t, offsetof(store_load_sample, m) }
static const field load_fields[] = {
    SF("t_us", K_REAL, t_us), SF("core", K_I64, core), SF("load_pct", K_REAL, load_pct),
};

#define NF(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------- to JSON */

/* Missing is null; a text that is not UTF-8 has U+FFFD (json_text), the same
 * in the content hash, so that stays stable; a real that is infinite (an SQNR
 * of identical tensors) is the string "inf" or "-inf", which JSON numbers
 * cannot say. */
static json_t *value_json(const void *row, const field *f)
{
    const char *p = (const char *)row + f->off;
    switch (f->kind) {
    case K_TEXT:
        return json_text(*(const char *const *)p);
    case K_I64: {
        int64_t v = *(const int64_t *)p;
        return v == STORE_NULL_INT ? json_null() : json_integer(v);
    }
    case K_INT:
        return json_integer(*(const int *)p);
    default: {
        double v = *(const double *)p;
        if (isnan(v))
            return json_null();
        if (isinf(v))
            return json_string(v > 0 ? "inf" : "-inf");
        return json_real(v);
    }
    }
}

static json_t *row_json(const void *row, const field *fields, size_t nf)
{
    json_t *o = json_object();
    for (size_t i = 0; i < nf; i++)
        json_object_set_new(o, fields[i].key, value_json(row, &fields[i]));
    return o;
}

static json_t *rows_json(const void *rows, size_t size, int n, const field *fields, size_t nf)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, row_json((const char *)rows + size * (size_t)i, fields, nf));
    return a;
}

/* The run's content: everything but its id, label and tags (which a user
 * changes, and which a merge may have to change). */
static json_t *content_json(const bundle *b)
{
    json_t *o = row_json(&b->run, run_fields, NF(run_fields)), *load = json_null();
    if (b->run.n_load) {
        load = json_array();
        for (int c = 0; c < b->run.n_load; c++)
            json_array_append_new(load, json_integer(b->run.load_pct[c]));
    }
    json_object_set_new(o, "npu_load", load);
    json_object_set_new(o, "layers", rows_json(b->layers, sizeof *b->layers, b->nl, layer_fields,
                                               NF(layer_fields)));
    json_object_set_new(o, "outputs", rows_json(b->outs, sizeof *b->outs, b->no, output_fields,
                                                NF(output_fields)));
    json_object_set_new(o, "accuracy", rows_json(b->acc, sizeof *b->acc, b->na, acc_fields,
                                                 NF(acc_fields)));
    json_object_set_new(o, "load_samples", rows_json(b->load, sizeof *b->load, b->nload,
                                                     load_fields, NF(load_fields)));
    json_object_set_new(o, "npu_rows", rows_json(b->npu, sizeof *b->npu, b->nnpu,
                                                 npu_row_fields, NF(npu_row_fields)));
    return o;
}

/* SHA-256 of the content as compact JSON with sorted keys. */
static int content_hash(const bundle *b, char hex[65], char *err, size_t errlen)
{
    json_t *o = content_json(b);
    char *text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    json_decref(o);
    if (!text)
        return rt_err(err, errlen, RT_ENOMEM, "cannot hash a run: out of memory");
    rt_sha256_hex(text, strlen(text), hex);
    free(text);
    return 0;
}

int store_run_content_hash(store *st, int64_t run_id, char hex[65], char *err, size_t errlen)
{
    bundle b;
    int rc = bundle_read(st, run_id, &b, err, errlen);
    if (rc)
        return rc;
    rc = content_hash(&b, hex, err, errlen);
    bundle_free(&b);
    return rc;
}

/* ---------------------------------------------------------------- export */

int store_export(store *st, const int64_t *ids, int n, FILE *out, char *err, size_t errlen)
{
    int rc = 0;

    fprintf(out, "{\"format\":\"" STORE_EXPORT_FORMAT "\",\"version\":%d,\"store_schema\":%d,"
            "\"runs\":[", STORE_EXPORT_VERSION, STORE_SCHEMA_VERSION);
    for (int i = 0; i < n && !rc; i++) {
        bundle b;
        char hex[65];
        if ((rc = bundle_read(st, ids[i], &b, err, errlen)))
            break;
        if (!(rc = content_hash(&b, hex, err, errlen))) {
            /* identity first, then the content in the order of the columns */
            json_t *o = json_object(), *c = content_json(&b), *tags = json_array();
            const char *key;
            json_t *v;
            json_object_set_new(o, "content_sha256", json_string(hex));
            json_object_set_new(o, "label", json_text(b.run.label));
            for (int k = 0; k < b.ntags; k++)
                json_array_append_new(tags, json_text(b.tags[k]));
            json_object_set_new(o, "tags", tags);
            json_object_foreach(c, key, v)
                json_object_set(o, key, v);
            fputs(i ? ",\n" : "\n", out);
            if (json_dumpf(o, out, JSON_COMPACT | JSON_REAL_PRECISION(17)) != 0)
                rc = rt_err(err, errlen, RT_EIO, "cannot write the export");
            json_decref(c);
            json_decref(o);
        }
        bundle_free(&b);
    }
    if (!rc) {
        fputs("\n]}\n", out);
        if (fflush(out) != 0 || ferror(out))
            rc = rt_err(err, errlen, RT_EIO, "cannot write the export");
    }
    return rc;
}

int store_is_export(const void *head, size_t len)
{
    static const char magic[] = "{\"format\":\"" STORE_EXPORT_FORMAT "\"";
    const char *p = head;
    size_t i = 0;

    /* ours writes the format first; a reformatted file (spaces, newlines)
     * still starts with '{' and names the format near the top */
    while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
        i++;
    if (len - i >= sizeof magic - 1 && !memcmp(p + i, magic, sizeof magic - 1))
        return 1;
    if (i >= len || p[i] != '{')
        return 0;
    return memmem(p + i, len - i < 512 ? len - i : 512, "\"" STORE_EXPORT_FORMAT "\"",
                  sizeof(STORE_EXPORT_FORMAT) + 1) != NULL;
}

/* ---------------------------------------------------------------- from JSON */

/* Fills one row from object o: every key must be a field (absent is missing). */
static int row_from_json(json_t *o, void *row, const field *fields, size_t nf, const char *what,
                         int idx, char *err, size_t errlen)
{
    const char *key;
    json_t *v;

    if (!json_is_object(o))
        return rt_err(err, errlen, RT_EFORMAT, "%s %d is not an object", what, idx);
    json_object_foreach(o, key, v) {
        const field *f = NULL;
        for (size_t i = 0; i < nf && !f; i++)
            if (!strcmp(fields[i].key, key))
                f = &fields[i];
        if (!f) {
            if (!strcmp(what, "run") && (!strcmp(key, "content_sha256") || !strcmp(key, "label") ||
                                         !strcmp(key, "tags") || !strcmp(key, "layers") ||
                                         !strcmp(key, "outputs") || !strcmp(key, "accuracy") ||
                                         !strcmp(key, "load_samples") ||
                                         !strcmp(key, "npu_load") ||
                                         !strcmp(key, "npu_rows")))
                continue;
            return rt_err(err, errlen, RT_EFORMAT, "%s %d: unknown field '%s'", what, idx, key);
        }
        char *p = (char *)row + f->off;
        int ok = 1;
        switch (f->kind) {
        case K_TEXT:
            if (json_is_null(v))
                *(const char **)p = NULL;
            else if (json_is_string(v))
                *(const char **)p = json_string_value(v);
            else
                ok = 0;
            break;
        case K_I64:
            if (json_is_null(v))
                *(int64_t *)p = STORE_NULL_INT;
            else if (json_is_integer(v) && json_integer_value(v) != STORE_NULL_INT)
                *(int64_t *)p = json_integer_value(v);
            else
                ok = 0;
            break;
        case K_INT:
            if (json_is_integer(v) && json_integer_value(v) >= -2147483647 - 1 &&
                json_integer_value(v) <= 2147483647)
                *(int *)p = (int)json_integer_value(v);
            else
                ok = 0;
            break;
        default:
            if (json_is_null(v))
                *(double *)p = NAN;
            else if (json_is_number(v))
                *(double *)p = json_number_value(v);
            else if (json_is_string(v) && !strcmp(json_string_value(v), "inf"))
                *(double *)p = INFINITY;
            else if (json_is_string(v) && !strcmp(json_string_value(v), "-inf"))
                *(double *)p = -INFINITY;
            else
                ok = 0;
        }
        if (!ok)
            return rt_err(err, errlen, RT_EFORMAT, "%s %d: field '%s' has the wrong type", what,
                          idx, key);
    }
    return 0;
}

/* The rows of array key of run object o (absent: none). */
static int rows_from_json(json_t *o, const char *key, void **rows, int *n, size_t size,
                          void (*init)(void *), const field *fields, size_t nf, int run_idx,
                          char *err, size_t errlen)
{
    json_t *a = json_object_get(o, key), *v;
    size_t i;
    char what[64];

    *rows = NULL;
    *n = 0;
    if (!a || json_is_null(a))
        return 0;
    if (!json_is_array(a))
        return rt_err(err, errlen, RT_EFORMAT, "run %d: '%s' is not a list", run_idx, key);
    if (json_array_size(a) > 100000000)
        return rt_err(err, errlen, RT_EFORMAT, "run %d: too many %s", run_idx, key);
    *rows = xcalloc(json_array_size(a) + 1, size);
    snprintf(what, sizeof what, "run %d: %s row", run_idx, key);
    json_array_foreach(a, i, v) {
        void *row = (char *)*rows + size * i;
        int rc;
        init(row);
        if ((rc = row_from_json(v, row, fields, nf, what, (int)i, err, errlen))) {
            free(*rows);
            *rows = NULL;
            return rc;
        }
        *n = (int)i + 1;
    }
    return 0;
}

static void init_layer(void *r) { store_layer_init(r); }
static void init_output(void *r) { store_output_init(r); }
static void init_acc(void *r) { store_accuracy_init(r); }
static void init_npu_row(void *r) { store_npu_row_init(r); }
static void init_load(void *r)
{
    store_load_sample *s = r;
    s->t_us = s->load_pct = NAN;
    s->core = STORE_NULL_INT;
}

/* The run's "npu_load" (version 2): null, or whole percents per core. */
static int load_from_json(json_t *o, int idx, store_run *r, char *err, size_t errlen)
{
    json_t *a = json_object_get(o, "npu_load"), *v;
    size_t i;

    if (!a || json_is_null(a))
        return 0;
    if (!json_is_array(a) || json_array_size(a) > STORE_MAX_CORES)
        return rt_err(err, errlen, RT_EFORMAT, "run %d: 'npu_load' is not a list of up to %d "
                      "percents", idx, STORE_MAX_CORES);
    json_array_foreach(a, i, v) {
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 100)
            return rt_err(err, errlen, RT_EFORMAT, "run %d: 'npu_load' holds a value that is "
                          "not a percent", idx);
        r->load_pct[i] = (int)json_integer_value(v);
    }
    r->n_load = (int)json_array_size(a);
    return 0;
}

static int bundle_from_json(json_t *o, int idx, int version, bundle *b, char *err, size_t errlen)
{
    json_t *label, *tags, *v;
    size_t i;
    int rc;

    memset(b, 0, sizeof *b);
    store_run_init(&b->run);
    if ((rc = row_from_json(o, &b->run, run_fields, NF(run_fields), "run", idx, err, errlen)))
        return rc;
    if (version >= 2 && (rc = load_from_json(o, idx, &b->run, err, errlen)))
        return rc;
    if (version < 2) {
        /* what a schema-4 database would hold after its upgrade */
        int v2 = json_object_get(o, "npu_load") || json_object_get(o, "npu_rows");
        for (size_t k = N_RUN_FIELDS_V1; k < NF(run_fields); k++)
            v2 |= json_object_get(o, run_fields[k].key) != NULL;
        if (v2)
            return rt_err(err, errlen, RT_EFORMAT, "run %d: a version-1 export with fields of "
                          "version 2", idx);
        sq_facts_from_legacy(&b->run, &b->legacy);
    }
    label = json_object_get(o, "label");
    if (label && !json_is_null(label) && !json_is_string(label))
        return rt_err(err, errlen, RT_EFORMAT, "run %d: 'label' is not a string", idx);
    b->run.label = label ? json_string_value(label) : NULL;
    if (!b->run.time)
        return rt_err(err, errlen, RT_EFORMAT, "run %d has no time", idx);
    tags = json_object_get(o, "tags");
    if (tags && !json_is_null(tags)) {
        if (!json_is_array(tags))
            return rt_err(err, errlen, RT_EFORMAT, "run %d: 'tags' is not a list", idx);
        b->tags = xcalloc(json_array_size(tags) + 1, sizeof *b->tags);
        json_array_foreach(tags, i, v) {
            if (!json_is_string(v))
                return rt_err(err, errlen, RT_EFORMAT, "run %d: a tag is not a string", idx);
            b->tags[b->ntags++] = json_string_value(v);
        }
    }
    if ((rc = rows_from_json(o, "layers", (void **)&b->layers, &b->nl, sizeof *b->layers,
                             init_layer, layer_fields, NF(layer_fields), idx, err, errlen)) ||
        (rc = rows_from_json(o, "outputs", (void **)&b->outs, &b->no, sizeof *b->outs,
                             init_output, output_fields, NF(output_fields), idx, err, errlen)) ||
        (rc = rows_from_json(o, "accuracy", (void **)&b->acc, &b->na, sizeof *b->acc, init_acc,
                             acc_fields, NF(acc_fields), idx, err, errlen)) ||
        (rc = rows_from_json(o, "load_samples", (void **)&b->load, &b->nload, sizeof *b->load,
                             init_load, load_fields, NF(load_fields), idx, err, errlen)))
        return rc;
    if (version < 2 && sq_samples_repeat_load(&b->run, b->load, b->nload))
        b->nload = 0; /* they only repeated the load, now the run's own */
    if (version < 2) {
        /* the layers' split as numbers, as the upgrade reads them */
        for (int k = 0; k < b->nl; k++)
            if (json_object_get(json_array_get(json_object_get(o, "layers"), (size_t)k), "workload_cores"))
                return rt_err(err, errlen, RT_EFORMAT, "run %d: a version-1 export with fields "
                              "of version 2", idx);
            else
                b->layers[k].n_workload = store_workload_parse(b->layers[k].workload,
                                                               b->layers[k].workload_pct,
                                                               STORE_NPU_ROW_CORES);
        b->npu = b->legacy.npu_rows, b->nnpu = b->legacy.n_npu_rows;
        b->npu_borrowed = 1;
    } else if ((rc = rows_from_json(o, "npu_rows", (void **)&b->npu, &b->nnpu, sizeof *b->npu,
                                    init_npu_row, npu_row_fields, NF(npu_row_fields), idx, err,
                                    errlen))) {
        return rc;
    }
    for (int k = 0; k < b->nnpu; k++)
        if (b->npu[k].n_cores < 0 || b->npu[k].n_cores > STORE_NPU_ROW_CORES)
            return rt_err(err, errlen, RT_EFORMAT, "run %d: level-4 row %d: n_cores %d", idx, k,
                          b->npu[k].n_cores);
    return 0;
}

/* ---------------------------------------------------------------- adding runs */

typedef struct adder {
    store *st;
    store_note_fn note;
    void *ctx;
    store_import_stats *stats;
} adder;

static void say(const adder *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const adder *a, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    if (!a->note)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    a->note(a->ctx, line);
}

/* A run already here with the same content: only runs of the same time and
 * model can have it, so only those are hashed. *dup = its id, or 0. */
static int find_duplicate(store *st, const bundle *b, const char *hex, int64_t *dup, char *err,
                          size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int64_t *ids = NULL;
    int n = 0, cap = 0, rc, step;

    *dup = 0;
    if ((rc = sq_db_prepare(st, "SELECT id FROM runs WHERE time = ? AND model_sha256 IS ? "
                                "ORDER BY id", &s, err, errlen)))
        return rc;
    sq_bind_text(s, 1, b->run.time);
    sq_bind_text(s, 2, b->run.model_sha256);
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (n == cap)
            ids = xrealloc(ids, sizeof *ids * (size_t)(cap = cap ? 2 * cap : 8));
        ids[n++] = sqlite3_column_int64(s, 0);
    }
    if (step != SQLITE_DONE)
        rc = sq_db_fail(st, err, errlen, "cannot read runs");
    sqlite3_finalize(s);
    for (int i = 0; i < n && !rc && !*dup; i++) {
        char have[65];
        if (!(rc = store_run_content_hash(st, ids[i], have, err, errlen)) && !strcmp(have, hex))
            *dup = ids[i];
    }
    free(ids);
    return rc;
}

static int label_taken(store *st, const char *label, int64_t *by, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    *by = 0;
    if ((rc = sq_db_prepare(st, "SELECT id FROM runs WHERE label = ?", &s, err, errlen)))
        return rc;
    sq_bind_text(s, 1, label);
    if (sqlite3_step(s) == SQLITE_ROW)
        *by = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return 0;
}

/* Adds one run unless a run with its content is here; a label another run
 * has becomes LABEL-2 (-3, ...: the first free). Inside the caller's batch. */
static int add_bundle(const adder *a, bundle *b, const char *name, char *err, size_t errlen)
{
    store *st = a->st;
    char hex[65], *label = NULL;
    int64_t dup, by = 0, id = 0;
    int rc;

    if ((rc = content_hash(b, hex, err, errlen)) ||
        (rc = find_duplicate(st, b, hex, &dup, err, errlen)))
        return rc;
    if (dup) {
        a->stats->skipped++;
        say(a, "%s%s%s%s: already here as run %lld (same content), skipped", name,
            b->run.label ? " '" : "", b->run.label ? b->run.label : "", b->run.label ? "'" : "",
            (long long)dup);
        return 0;
    }
    const char *want = b->run.label;
    if (want && (rc = label_taken(st, want, &by, err, errlen)))
        return rc;
    if (by) {
        size_t len = strlen(want) + 24;
        label = xmalloc(len);
        for (int k = 2; !rc; k++) {
            int64_t other;
            snprintf(label, len, "%s-%d", want, k);
            if ((rc = label_taken(st, label, &other, err, errlen)) || !other)
                break;
        }
        if (rc)
            goto out;
        b->run.label = label;
    }
    if ((rc = store_run_begin(st, &b->run, &id, err, errlen)))
        goto out;
    for (int i = 0; i < b->nl && !rc; i++)
        rc = store_layer_add(st, id, &b->layers[i], err, errlen);
    for (int i = 0; i < b->no && !rc; i++)
        rc = store_output_add(st, id, &b->outs[i], err, errlen);
    for (int i = 0; i < b->na && !rc; i++)
        rc = store_accuracy_add(st, id, &b->acc[i], err, errlen);
    for (int i = 0; i < b->nload && !rc; i++)
        rc = store_load_add(st, id, &b->load[i], err, errlen);
    for (int i = 0; i < b->nnpu && !rc; i++)
        rc = store_npu_row_add(st, id, &b->npu[i], err, errlen);
    if (!rc)
        rc = store_run_commit(st, id, b->run.total_us, err, errlen);
    else
        store_run_abort(st, id);
    for (int i = 0; i < b->ntags && !rc; i++)
        rc = store_tag_add(st, id, b->tags[i], err, errlen);
    if (rc)
        goto out;
    a->stats->added++;
    if (!a->stats->first_id)
        a->stats->first_id = id;
    a->stats->last_id = id;
    if (label) {
        a->stats->relabelled++;
        say(a, "%s: label '%s' is taken by run %lld here: added as run %lld '%s'", name, want, (long long)by, (long long)id, label);
    }
out:
    if (label)
        b->run.label = want;
    free(label);
    return rc;
}

/* ---------------------------------------------------------------- import, merge */

int store_import_export(store *st, const char *path, store_note_fn note, void *ctx,
                        store_import_stats *stats, char *err, size_t errlen)
{
    json_error_t je;
    json_t *doc = NULL, *v, *runs;
    bundle *b = NULL;
    size_t n = 0, i;
    adder a = { st, note, ctx, stats };
    int rc = 0, in_batch = 0, version;

    memset(stats, 0, sizeof *stats);
    if ((rc = sq_check_writable(st, err, errlen)))
        return rc;
    doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        if (je.position == 0 && je.line <= 1 && strstr(je.text, "unable to open"))
            return rt_err(err, errlen, RT_EIO, "%s: %s", path, je.text);
        return rt_err(err, errlen, RT_EFORMAT, "%s: not a complete JSON document (line %d: %s)",
                      path, je.line, je.text);
    }
    v = json_object_get(doc, "format");
    if (!json_is_object(doc) || !json_is_string(v) ||
        strcmp(json_string_value(v), STORE_EXPORT_FORMAT) != 0) {
        rc = rt_err(err, errlen, RT_EFORMAT, "%s: not an rknn-trace export (no \"format\": \""
                    STORE_EXPORT_FORMAT "\")", path);
        goto out;
    }
    v = json_object_get(doc, "version");
    if (!json_is_integer(v) || json_integer_value(v) < 1) {
        rc = rt_err(err, errlen, RT_EFORMAT, "%s: rknn-trace export without a valid version",
                    path);
        goto out;
    }
    if (json_integer_value(v) > STORE_EXPORT_VERSION) {
        rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                    "%s: written by a newer rknn-trace (export version %lld > %d)", path,
                    (long long)json_integer_value(v), STORE_EXPORT_VERSION);
        goto out;
    }
    version = (int)json_integer_value(v);
    runs = json_object_get(doc, "runs");
    if (!json_is_array(runs)) {
        rc = rt_err(err, errlen, RT_EFORMAT, "%s: rknn-trace export without a list of runs", path);
        goto out;
    }
    /* every run is read before anything is written */
    n = json_array_size(runs);
    b = xcalloc(n + 1, sizeof *b);
    json_array_foreach(runs, i, v) {
        if ((rc = bundle_from_json(v, (int)i + 1, version, &b[i], err, errlen))) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", err);
            rc = rt_err(err, errlen, rc, "%s: %s", path, msg);
            goto out;
        }
    }
    if ((rc = store_batch_begin(st, err, errlen)))
        goto out;
    in_batch = 1;
    for (i = 0; i < n && !rc; i++) {
        char name[64];
        snprintf(name, sizeof name, "run %zu of the file", i + 1);
        if ((rc = add_bundle(&a, &b[i], name, err, errlen))) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", err);
            /* a row the store refuses (a label that is a number, a bad tag) is bad input */
            rc = rt_err(err, errlen, rc == RT_EINVAL ? RT_EFORMAT : rc, "%s: run %zu: %s", path,
                        i + 1, msg);
        }
    }
    if (!rc)
        rc = store_batch_commit(st, err, errlen);
    in_batch = 0;
out:
    if (in_batch)
        store_batch_abort(st);
    if (rc)
        memset(stats, 0, sizeof *stats);
    for (i = 0; b && i < n; i++)
        bundle_free(&b[i]);
    free(b);
    json_decref(doc);
    return rc;
}

int store_merge(store *st, const char *other_path, store_note_fn note, void *ctx,
                store_import_stats *stats, char *err, size_t errlen)
{
    store *other = NULL;
    store_run *runs = NULL;
    adder a = { st, note, ctx, stats };
    int n = 0, rc;

    memset(stats, 0, sizeof *stats);
    if ((rc = sq_check_writable(st, err, errlen)))
        return rc;
    if ((rc = store_open_readonly(other_path, &other, err, errlen)))
        return rc;
    if ((rc = store_list_runs(other, &runs, &n, err, errlen)))
        goto out;
    if ((rc = store_batch_begin(st, err, errlen)))
        goto out;
    for (int i = 0; i < n && !rc; i++) {
        bundle b;
        if ((rc = bundle_read(other, runs[i].id, &b, err, errlen)))
            break;
        char name[64];
        snprintf(name, sizeof name, "run %lld there", (long long)runs[i].id);
        if ((rc = add_bundle(&a, &b, name, err, errlen))) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", err);
            rc = rt_err(err, errlen, rc == RT_EINVAL ? RT_EFORMAT : rc, "%s: run %lld: %s",
                        other_path, (long long)runs[i].id, msg);
        }
        bundle_free(&b);
    }
    if (rc)
        store_batch_abort(st);
    else
        rc = store_batch_commit(st, err, errlen);
out:
    if (rc)
        memset(stats, 0, sizeof *stats);
    store_runs_free(runs, n);
    store_close(other);
    return rc;
}

/* ---------------------------------------------------------------- environment */

const char *store_run_build(const store_run *r, char *buf, size_t len)
{
    json_t *env = r && r->env_json ? json_loads(r->env_json, 0, NULL) : NULL;
    const char *b = json_string_value(json_object_get(env, "build"));
    snprintf(buf, len, "%s", b ? b : "");
    json_decref(env);
    return buf;
}

int store_run_cost_model(const store_run *r)
{
    if (!r || r->cost_model_version == STORE_NULL_INT || r->cost_model_version < 0 ||
        r->cost_model_version >= 1000000)
        return -1;
    return (int)r->cost_model_version;
}
