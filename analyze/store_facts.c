/* analyze/store_facts.c — the run's typed facts (schema 5): reading and
 * binding their columns, the NPU load per core, and moving the facts that
 * schema <= 4 kept as keys of extra_json / env_json into them (the migration,
 * and importing a version-1 export). After the move no reader looks for a key
 * in those texts: what stays in them is shown, exported, never interpreted. */
#include "analyze/store_int.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* ---------------------------------------------------------------- columns */

void sq_read_facts(sqlite3_stmt *s, int c, store_run *r)
{
    r->perf_table_us = sq_col_dbl(s, c);
    r->npu_clock_mhz = sq_col_i64(s, c + 1);
    r->ddr_clock_mhz = sq_col_i64(s, c + 2);
    r->npu_table_layers = sq_col_i64(s, c + 3);
    r->calib_samples = sq_col_i64(s, c + 4);
    r->int8_layers = sq_col_i64(s, c + 5);
    r->fp16_layers = sq_col_i64(s, c + 6);
    r->cfg_params = sq_col_i64(s, c + 7);
    r->import_kind = sq_col_text(s, c + 8);
    r->log_total_us = sq_col_dbl(s, c + 9);
    r->perf_run_us = sq_col_i64(s, c + 10);
    for (int k = 0; k < 3; k++)
        r->share_pct[k] = sq_col_dbl(s, c + 11 + k);
    r->cost_model_version = sq_col_i64(s, c + 14);
    r->cost_model_fingerprint = sq_col_text(s, c + 15);
    /* "61,50,50": the store's own group_concat of integers 0..100 */
    const char *load = (const char *)sqlite3_column_text(s, c + 16);
    r->n_load = 0;
    while (load && *load && r->n_load < STORE_MAX_CORES) {
        char *end;
        long v = strtol(load, &end, 10);
        if (end == load)
            break;
        r->load_pct[r->n_load++] = (int)v;
        load = *end == ',' ? end + 1 : end;
    }
}

void sq_bind_facts(sqlite3_stmt *s, int first, const store_run *r)
{
    sq_bind_dbl(s, first, r->perf_table_us);
    sq_bind_i64(s, first + 1, r->npu_clock_mhz);
    sq_bind_i64(s, first + 2, r->ddr_clock_mhz);
    sq_bind_i64(s, first + 3, r->npu_table_layers);
    sq_bind_i64(s, first + 4, r->calib_samples);
    sq_bind_i64(s, first + 5, r->int8_layers);
    sq_bind_i64(s, first + 6, r->fp16_layers);
    sq_bind_i64(s, first + 7, r->cfg_params);
    sq_bind_text(s, first + 8, r->import_kind);
    sq_bind_dbl(s, first + 9, r->log_total_us);
    sq_bind_i64(s, first + 10, r->perf_run_us);
    for (int k = 0; k < 3; k++)
        sq_bind_dbl(s, first + 11 + k, r->share_pct[k]);
    sq_bind_i64(s, first + 14, r->cost_model_version);
    sq_bind_text(s, first + 15, r->cost_model_fingerprint);
}

int sq_write_load(store *st, int64_t run_id, const store_run *r, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if (r->n_load < 0 || r->n_load > STORE_MAX_CORES)
        return rt_err(err, errlen, RT_EINVAL, "NPU load of %d cores (at most %d)", r->n_load,
                      STORE_MAX_CORES);
    for (int c = 0; c < r->n_load; c++)
        if (r->load_pct[c] < 0 || r->load_pct[c] > 100)
            return rt_err(err, errlen, RT_EINVAL, "NPU load %d %% on core %d (0 to 100)",
                          r->load_pct[c], c);
    if (!r->n_load)
        return 0;
    if ((rc = sq_db_prepare(st, "INSERT INTO npu_load (run_id, core, load_pct) VALUES (?,?,?)",
                            &s, err, errlen)))
        return rc;
    for (int c = 0; c < r->n_load && !rc; c++) {
        sqlite3_bind_int64(s, 1, run_id);
        sqlite3_bind_int(s, 2, c);
        sqlite3_bind_int(s, 3, r->load_pct[c]);
        if (sqlite3_step(s) != SQLITE_DONE)
            rc = sq_db_fail(st, err, errlen, "cannot add the NPU load");
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    return rc;
}

int sq_samples_repeat_load(const store_run *r, const store_load_sample *rows, int n)
{
    if (!r->n_load || n != r->n_load)
        return 0;
    for (int i = 0; i < n; i++)
        if (rows[i].t_us != 0 || rows[i].core != i || rows[i].load_pct != r->load_pct[i])
            return 0;
    return 1;
}

/* ---------------------------------------------------------------- the old keys */

/* The shortest digits that read back as v: the writers wrote %.9g, hundredths
 * or %.17g, and each comes back as it was. */
static void real_out(json_writer *w, double v)
{
    char d[40];
    if (!isfinite(v)) {
        json_write_null(w);
        return;
    }
    for (int p = 1; p <= 17; p++) {
        snprintf(d, sizeof d, "%.*g", p, v);
        if (strtod(d, NULL) == v)
            break;
    }
    if (!strpbrk(d, ".eEn")) /* a whole real stays a real */
        strcat(d, ".0");
    json_raw(w, d);
}

/* v written back as compact JSON the way the project's writers (util/json.c)
 * wrote it: what stays of a text reads the same after the move. */
static void write_value(json_writer *w, json_t *v)
{
    const char *k;
    json_t *x;
    size_t i;

    switch (json_typeof(v)) {
    case JSON_OBJECT:
        json_obj_open(w);
        json_object_foreach(v, k, x) {
            json_key(w, k);
            write_value(w, x);
        }
        json_obj_close(w);
        break;
    case JSON_ARRAY:
        json_arr_open(w);
        json_array_foreach(v, i, x)
            write_value(w, x);
        json_arr_close(w);
        break;
    case JSON_STRING: json_str(w, json_string_value(v)); break;
    case JSON_INTEGER: json_int(w, json_integer_value(v)); break;
    case JSON_REAL: real_out(w, json_real_value(v)); break;
    case JSON_TRUE: json_bool(w, 1); break;
    case JSON_FALSE: json_bool(w, 0); break;
    default: json_write_null(w); break;
    }
}

static char *dump_value(json_t *v)
{
    json_writer w;
    size_t n;
    json_begin_mem(&w);
    write_value(&w, v);
    char *text = json_take(&w, &n);
    while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
        text[--n] = 0;
    return text;
}

/* An integer key of o in [lo, hi], taken out of o into *dst if *dst is missing. */
static void take_int(json_t *o, const char *key, int64_t lo, int64_t hi, int64_t *dst)
{
    json_t *v = json_object_get(o, key);
    if (json_is_null(v) && *dst == STORE_NULL_INT) { /* missing as the column says it */
        json_object_del(o, key);
        return;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return;
    if (*dst == STORE_NULL_INT)
        *dst = json_integer_value(v);
    if (*dst == json_integer_value(v))
        json_object_del(o, key);
}

/* A number key of o, taken out of o into *dst if *dst is missing. */
static void take_real(json_t *o, const char *key, double *dst)
{
    json_t *v = json_object_get(o, key);
    if (json_is_null(v) && isnan(*dst)) {
        json_object_del(o, key);
        return;
    }
    if (!json_is_number(v))
        return;
    if (isnan(*dst))
        *dst = json_number_value(v);
    if (*dst == json_number_value(v))
        json_object_del(o, key);
}

static void take_text(json_t *o, const char *key, const char **dst, char **owned)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v))
        return;
    if (!*dst)
        *dst = *owned = xstrdup(json_string_value(v));
    if (!strcmp(*dst, json_string_value(v)))
        json_object_del(o, key);
}

/* "npu_load": [61, 50, 50], each a whole percent: the run's load per core. */
static void take_load(json_t *o, store_run *r)
{
    json_t *ld = json_object_get(o, "npu_load"), *v;
    size_t k;
    if (!json_is_array(ld) || json_array_size(ld) > STORE_MAX_CORES || r->n_load)
        return;
    json_array_foreach(ld, k, v) {
        double p = json_is_number(v) ? json_number_value(v) : -1;
        if (!(p >= 0 && p <= 100) || p != floor(p))
            return; /* not a load: it stays where it was */
    }
    json_array_foreach(ld, k, v)
        r->load_pct[k] = (int)json_number_value(v);
    r->n_load = (int)json_array_size(ld);
    json_object_del(o, "npu_load");
}

/* ---- "npu_table": {"layers": N, "rows": [{...}]}, as record/rows_npu.c wrote it */

static const char *text_of(json_t *o, const char *key, int *ok)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return NULL;
    if (!json_is_string(v))
        *ok = 0;
    return json_string_value(v);
}

static int64_t int_of(json_t *o, const char *key, int *ok)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return STORE_NULL_INT;
    if (!json_is_integer(v) || json_integer_value(v) == STORE_NULL_INT)
        *ok = 0;
    return json_integer_value(v);
}

static double real_of(json_t *v, int *ok)
{
    if (!v)
        return NAN;
    if (!json_is_number(v))
        *ok = 0;
    return json_number_value(v);
}

/* A list of shapes (lists of integers), as its text, or NULL (*ok 0) if it is not one. */
static char *shapes_of(json_t *a, int *ok)
{
    json_t *sh, *d;
    size_t i, k;
    if (!a)
        return NULL;
    if (!json_is_array(a)) {
        *ok = 0;
        return NULL;
    }
    json_array_foreach(a, i, sh) {
        if (!json_is_array(sh))
            *ok = 0;
        json_array_foreach(sh, k, d) if (!json_is_integer(d)) *ok = 0;
    }
    return *ok ? dump_value(a) : NULL;
}

/* One row of "rows": every key known and of its type, else 0. */
static int npu_row_of(json_t *o, store_npu_row *r)
{
    static const char *const keys[] = {"at", "skip", "id", "op", "datatype", "dtype", "target",
                                       "n_in", "in", "n_out", "out", "cycles", "time_us", "macs",
                                       "mac_usage", "workload", "tasks", "rw_kb", "fullname", "note"};
    const char *k;
    json_t *v, *cy, *mu, *wl;
    int ok = json_is_object(o);

    store_npu_row_init(r);
    if (!ok)
        return 0;
    json_object_foreach(o, k, v) {
        size_t i = 0;
        while (i < sizeof keys / sizeof keys[0] && strcmp(keys[i], k))
            i++;
        if (i == sizeof keys / sizeof keys[0])
            ok = 0;
    }
    r->at = int_of(o, "at", &ok);
    int64_t skip = int_of(o, "skip", &ok);
    r->skip = skip == 1;
    ok = ok && r->at >= 0 && r->at < (int64_t)1 << 31 && (skip == 0 || skip == 1);
    r->id = int_of(o, "id", &ok);
    r->op = text_of(o, "op", &ok);
    r->datatype = text_of(o, "datatype", &ok);
    r->dtype = int_of(o, "dtype", &ok);
    r->target = text_of(o, "target", &ok);
    ok = ok && (!r->target || !strcmp(r->target, "NPU") || !strcmp(r->target, "CPU"));
    r->n_in = int_of(o, "n_in", &ok);
    r->n_out = int_of(o, "n_out", &ok);
    r->in_shapes = shapes_of(json_object_get(o, "in"), &ok);
    r->out_shapes = shapes_of(json_object_get(o, "out"), &ok);
    if ((cy = json_object_get(o, "cycles"))) {
        int64_t *dst[3] = {&r->ddr_cycles, &r->npu_cycles, &r->total_cycles};
        ok = ok && json_is_array(cy) && json_array_size(cy) == 3;
        for (size_t i = 0; ok && i < 3; i++) {
            v = json_array_get(cy, i);
            ok = json_is_integer(v) && json_integer_value(v) != STORE_NULL_INT;
            *dst[i] = json_integer_value(v);
        }
    }
    r->time_us = real_of(json_object_get(o, "time_us"), &ok);
    r->rw_kb = real_of(json_object_get(o, "rw_kb"), &ok);
    v = json_object_get(o, "macs");
    ok = ok && (!v || json_is_boolean(v));
    r->macs = json_is_true(v);
    mu = json_object_get(o, "mac_usage");
    wl = json_object_get(o, "workload");
    ok = ok && (!mu || (json_is_array(mu) && json_array_size(mu) <= STORE_NPU_ROW_CORES)) &&
         (!wl || (json_is_array(wl) && json_array_size(wl) <= STORE_NPU_ROW_CORES)) &&
         json_array_size(mu) == json_array_size(wl);
    r->n_cores = ok ? (int)json_array_size(mu) : 0;
    for (int c = 0; ok && c < r->n_cores; c++) {
        r->mac_usage[c] = real_of(json_array_get(mu, (size_t)c), &ok);
        r->workload[c] = real_of(json_array_get(wl, (size_t)c), &ok);
    }
    r->tasks = int_of(o, "tasks", &ok);
    r->fullname = text_of(o, "fullname", &ok);
    r->note = text_of(o, "note", &ok);
    /* the strings move with the row (the object goes) */
    const char **str[5] = {&r->op, &r->datatype, &r->target, &r->fullname, &r->note};
    for (int i = 0; i < 5; i++)
        *str[i] = *str[i] ? xstrdup(*str[i]) : NULL;
    return ok;
}

static void npu_row_strings_free(store_npu_row *r)
{
    const char *str[7] = {r->op, r->datatype, r->target, r->fullname, r->note, r->in_shapes,
                          r->out_shapes};
    for (int i = 0; i < 7; i++)
        free((void *)str[i]);
}

/* The rows of table t into own, in order of "at"; 0 (nothing taken) unless
 * every row is one as record/rows_npu.c writes them. */
static int npu_table_rows(json_t *t, sq_legacy *own)
{
    json_t *rows = json_object_get(t, "rows"), *layers = json_object_get(t, "layers"), *v;
    size_t i;
    int ok = json_is_array(rows) && json_is_integer(layers) && json_integer_value(layers) >= 0 &&
             json_integer_value(layers) < (int64_t)1 << 31 && json_object_size(t) == 2;
    if (!ok)
        return 0;
    store_npu_row *r = xcalloc(json_array_size(rows) + 1, sizeof *r);
    json_array_foreach(rows, i, v) {
        ok = npu_row_of(v, &r[i]) && (i == 0 || r[i].at > r[i - 1].at);
        if (!ok) {
            for (size_t k = 0; k <= i; k++)
                npu_row_strings_free(&r[k]);
            free(r);
            return 0;
        }
    }
    own->npu_rows = r;
    own->n_npu_rows = (int)json_array_size(rows);
    return 1;
}

/* Moves the keys of the extra object x into r. */
static void extra_facts(json_t *x, store_run *r, sq_legacy *own)
{
    static const char *const quant_keys[4] = {"calibration_samples", "int8_layers",
                                              "fp16_layers", "cfg_parameters"};
    static const char *const share_keys[3] = {"compute", "DDR", "CPU"};
    json_t *v;

    take_load(x, r);
    take_real(x, "perf_table_us", &r->perf_table_us);
    take_int(x, "npu_clock_mhz", 0, INT32_MAX, &r->npu_clock_mhz);
    take_int(x, "ddr_clock_mhz", 0, INT32_MAX, &r->ddr_clock_mhz);
    take_int(x, "perf_run_us", INT64_MIN + 1, INT64_MAX, &r->perf_run_us);
    take_real(x, "npu_predicted_us", &r->npu_us); /* schema 1 */
    /* an import's table total, before "import" itself goes */
    if (json_is_object(v = json_object_get(x, "perf")) && json_is_string(json_object_get(x, "import")))
        take_real(v, "total_time_us", &r->log_total_us);
    take_text(x, "import", &r->import_kind, &own->import_kind);
    if (json_is_object(v = json_object_get(x, "quant"))) {
        int64_t *dst[4] = {&r->calib_samples, &r->int8_layers, &r->fp16_layers, &r->cfg_params};
        for (int k = 0; k < 4; k++)
            take_int(v, quant_keys[k], 0, (int64_t)1e15 - 1, dst[k]);
        if (!json_object_size(v))
            json_object_del(x, "quant");
    }
    if (json_is_object(v = json_object_get(x, "npu_share"))) { /* schema 1 */
        for (int k = 0; k < 3; k++)
            take_real(v, share_keys[k], &r->share_pct[k]);
        if (!json_object_size(v))
            json_object_del(x, "npu_share");
    }
    if (json_is_object(v = json_object_get(x, "npu_table")) && r->npu_table_layers == STORE_NULL_INT &&
        npu_table_rows(v, own)) {
        r->npu_table_layers = json_integer_value(json_object_get(v, "layers"));
        json_object_del(x, "npu_table");
    }
    take_text(x, "dump_dir", &r->dump_dir, &own->dump_dir); /* schema 1 */
}

/* Moves the keys of the environment object e into r. */
static void env_facts(json_t *e, store_run *r, sq_legacy *own)
{
    json_t *cm = json_object_get(e, "npu_cost_model");
    if (!json_is_object(cm))
        return;
    take_int(cm, "version", 0, 999999, &r->cost_model_version);
    take_text(cm, "fingerprint", &r->cost_model_fingerprint, &own->fingerprint);
    if (!json_object_size(cm))
        json_object_del(e, "npu_cost_model");
}

/* text as an object to take keys from, or NULL (not JSON, not an object). */
static json_t *object_of(const char *text)
{
    json_t *o = text ? json_loads(text, JSON_REJECT_DUPLICATES, NULL) : NULL;
    if (o && !json_is_object(o)) {
        json_decref(o);
        o = NULL;
    }
    return o;
}

void sq_facts_from_legacy(store_run *r, sq_legacy *own)
{
    json_t *x = object_of(r->extra_json), *e = object_of(r->env_json);

    memset(own, 0, sizeof *own);
    if (x) {
        json_t *had = json_deep_copy(x); /* a key may go from one object deep */
        extra_facts(x, r, own);
        if (!json_equal(had, x)) {
            own->extra = json_object_size(x) ? dump_value(x) : NULL;
            r->extra_json = own->extra;
            own->extra_changed = 1;
        }
        json_decref(had);
        json_decref(x);
    }
    if (e) {
        json_t *had = json_deep_copy(e);
        env_facts(e, r, own);
        if (!json_equal(had, e)) {
            own->env = json_object_size(e) ? dump_value(e) : NULL;
            r->env_json = own->env;
            own->env_changed = 1;
        }
        json_decref(had);
        json_decref(e);
    }
}

void sq_legacy_free(sq_legacy *own)
{
    free(own->extra);
    free(own->env);
    for (int i = 0; i < own->n_npu_rows; i++)
        npu_row_strings_free(&own->npu_rows[i]);
    free(own->npu_rows);
    free(own->fingerprint);
    free(own->import_kind);
    free(own->dump_dir);
    memset(own, 0, sizeof *own);
}

int store_workload_parse(const char *text, double *pct, int max)
{
    int n = 0;
    for (const char *p = text; p && *p && n < max;) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v))
            return 0;
        pct[n++] = v;
        p = end + strspn(end, "% /");
    }
    return n;
}

/* The layers' WorkLoad texts as numbers, one UPDATE per distinct text. */
static int migrate_workload(store *st, char *err, size_t errlen)
{
    sqlite3_stmt *q = NULL, *up = NULL;
    int rc, step;

    if ((rc = sq_db_prepare(st, "SELECT DISTINCT workload FROM layers WHERE workload IS NOT NULL",
                            &q, err, errlen)) ||
        (rc = sq_db_prepare(st, "UPDATE layers SET workload_cores = ?, workload0 = ?, "
                                "workload1 = ?, workload2 = ? WHERE workload = ?",
                            &up, err, errlen)))
        goto out;
    while (!rc && (step = sqlite3_step(q)) == SQLITE_ROW) {
        const char *w = (const char *)sqlite3_column_text(q, 0);
        double pct[STORE_NPU_ROW_CORES];
        int n = store_workload_parse(w, pct, STORE_NPU_ROW_CORES);
        if (!n)
            continue;
        sqlite3_bind_int(up, 1, n);
        for (int c = 0; c < n; c++)
            sq_bind_dbl(up, 2 + c, pct[c]);
        sqlite3_bind_text(up, 5, w, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(up) != SQLITE_DONE)
            rc = sq_db_fail(st, err, errlen, "cannot read the layers' workload");
        sqlite3_reset(up);
        sqlite3_clear_bindings(up);
    }
    if (!rc && step != SQLITE_DONE)
        rc = sq_db_fail(st, err, errlen, "cannot read the layers' workload");
out:
    sqlite3_finalize(q);
    sqlite3_finalize(up);
    return rc;
}

/* ---------------------------------------------------------------- migration */

/* Every run of a schema-4 file: its facts moved into the new columns and its
 * load into npu_load, the samples that only repeated that load dropped. One
 * transaction with the step's ALTERs (the caller's): a crash leaves the
 * schema-4 file as it was. */
int sq_migrate_facts(store *st, char *err, size_t errlen)
{
    store_run *runs = NULL;
    sqlite3_stmt *up = NULL;
    int n = 0, rc;

    if ((rc = store_list_runs(st, &runs, &n, err, errlen)))
        return rc;
    rc = sq_db_prepare(st, "UPDATE runs SET extra_json = ?, env_json = ?, npu_us = ?, "
                           "dump_dir = ?, perf_table_us = ?, npu_clock_mhz = ?, "
                           "ddr_clock_mhz = ?, npu_table_layers = ?, calib_samples = ?, "
                           "int8_layers = ?, fp16_layers = ?, cfg_params = ?, import_kind = ?, "
                           "log_total_us = ?, perf_run_us = ?, share_compute_pct = ?, "
                           "share_ddr_pct = ?, share_cpu_pct = ?, cost_model_version = ?, "
                           "cost_model_fingerprint = ? WHERE id = ?",
                       &up, err, errlen);
    for (int i = 0; i < n && !rc; i++) {
        store_run r = runs[i]; /* borrows runs[i]'s strings */
        sq_legacy own;
        store_load_sample *smp = NULL;
        int ns = 0;

        sq_facts_from_legacy(&r, &own);
        sq_bind_text(up, 1, r.extra_json);
        sq_bind_text(up, 2, r.env_json);
        sq_bind_dbl(up, 3, r.npu_us);
        sq_bind_text(up, 4, r.dump_dir);
        sq_bind_facts(up, 5, &r);
        sqlite3_bind_int64(up, 21, r.id);
        if (sqlite3_step(up) != SQLITE_DONE)
            rc = sq_db_fail(st, err, errlen, "cannot move a run's facts");
        sq_row_done(up);
        if (!rc)
            rc = sq_write_load(st, r.id, &r, err, errlen);
        if (!rc)
            rc = sq_add_npu_rows(st, r.id, own.npu_rows, own.n_npu_rows, 0, err, errlen);
        if (!rc)
            rc = sq_get_samples(st, r.id, &smp, &ns, err, errlen);
        if (!rc && sq_samples_repeat_load(&r, smp, ns)) {
            char sql[96];
            snprintf(sql, sizeof sql, "DELETE FROM load_samples WHERE run_id = %lld",
                     (long long)r.id);
            rc = sq_db_exec(st, sql, err, errlen);
        }
        free(smp);
        sq_legacy_free(&own);
    }
    sqlite3_finalize(up);
    store_runs_free(runs, n);
    return rc ? rc : migrate_workload(st, err, errlen);
}
