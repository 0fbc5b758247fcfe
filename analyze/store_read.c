/* analyze/store_read.c — reading runs, layers and outputs; finding a run by id
 * or label. */
#include "analyze/store_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static void read_run(sqlite3_stmt *s, store_run *r)
{
    store_run_init(r);
    r->id = sqlite3_column_int64(s, 0);
    r->label = sq_col_text(s, 1);
    r->time = sq_col_text(s, 2);
    r->model_path = sq_col_text(s, 3);
    r->model_sha256 = sq_col_text(s, 4);
    r->model_format = sq_col_text(s, 5);
    r->platform = sq_col_text(s, 6);
    r->backend = sq_col_text(s, 7);
    r->quant = sq_col_text(s, 8);
    r->quant_algo = sq_col_text(s, 9);
    r->quant_method = sq_col_text(s, 10);
    r->threads = sq_col_i64(s, 11);
    r->iterations = sq_col_i64(s, 12);
    r->seed = sq_col_i64(s, 13);
    r->inputs_json = sq_col_text(s, 14);
    r->total_us = sq_col_dbl(s, 15);
    r->status = sq_col_text(s, 16);
    r->tool_version = sq_col_text(s, 17);
    r->extra_json = sq_col_text(s, 18);
    r->n_layers = sqlite3_column_int64(s, 19);
    r->npu_us = sq_col_dbl(s, 20);
    r->host_min_us = sq_col_dbl(s, 21);
    r->host_p90_us = sq_col_dbl(s, 22);
    r->host_stddev_us = sq_col_dbl(s, 23);
    r->warmup = sq_col_i64(s, 24);
    r->dump_dir = sq_col_text(s, 25);
    r->dump_sha256 = sq_col_text(s, 26);
    r->weight_bytes = sq_col_i64(s, 27);
    r->internal_bytes = sq_col_i64(s, 28);
    r->env_json = sq_col_text(s, 29);
    sq_read_facts(s, RUN_COL_FACTS, r);
    r->tags = sq_col_text(s, RUN_COL_TAGS);
}

void store_run_clear(store_run *r)
{
    if (!r)
        return;
    const char *strs[] = { r->label, r->time, r->model_path, r->model_sha256,
                           r->model_format, r->platform, r->backend, r->quant,
                           r->quant_algo, r->quant_method, r->inputs_json, r->status,
                           r->tool_version, r->extra_json, r->dump_dir, r->dump_sha256, r->env_json,
                           r->tags, r->import_kind, r->cost_model_fingerprint };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        free((void *)strs[i]);
    store_run_init(r);
}

void store_runs_free(store_run *runs, int n)
{
    for (int i = 0; runs && i < n; i++)
        store_run_clear(&runs[i]);
    free(runs);
}

static void read_run_row(sqlite3_stmt *s, void *row) { read_run(s, row); }
static void free_runs(void *rows, int n) { store_runs_free(rows, n); }

/* RUN_COLS_NO_TAGS in its order, without the JSON a listing does not show
 * (inputs, extra, environment). */
#define RUN_COLS_BRIEF                                                                     \
    "id, label, time, model_path, model_sha256, model_format, platform, backend, quant, " \
    "quant_algo, quant_method, threads, iterations, seed, NULL, total_us, status, "       \
    "tool_version, NULL, n_layers, "                                                      \
    "npu_us, host_min_us, host_p90_us, host_stddev_us, warmup, dump_dir, dump_sha256, "   \
    "weight_bytes, internal_bytes, "                                                      \
    "CASE WHEN import_kind IS NOT NULL THEN env_json END, "                               \
    "perf_table_us, npu_clock_mhz, ddr_clock_mhz, npu_table_layers, calib_samples, "      \
    "int8_layers, fp16_layers, cfg_params, import_kind, log_total_us, perf_run_us, "      \
    "share_compute_pct, share_ddr_pct, share_cpu_pct, cost_model_version, "               \
    "cost_model_fingerprint, (SELECT group_concat(load_pct, ',') FROM (SELECT load_pct "   \
    "FROM npu_load WHERE run_id = runs.id ORDER BY core))"

/* The tags of every run, read in (run_id, tag) order from the tags key and
 * joined here: cheaper than grouping them in SQL and joining that to runs. */
static int attach_tags(store *st, store_run *runs, int n, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc, step, i = 0;

    if ((rc = sq_db_prepare(st, "SELECT run_id, tag FROM tags ORDER BY run_id, tag", &s, err,
                            errlen)))
        return rc;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(s, 0);
        const char *tag = (const char *)sqlite3_column_text(s, 1);
        while (i < n && runs[i].id < id)
            i++;
        if (i == n)
            break;
        if (runs[i].id != id || !tag)
            continue;
        size_t had = runs[i].tags ? strlen(runs[i].tags) : 0, k = strlen(tag);
        char *t = xrealloc((char *)runs[i].tags, had + k + 2);
        if (had)
            t[had++] = ',';
        memcpy(t + had, tag, k + 1);
        runs[i].tags = t;
    }
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        rc = sq_db_fail(st, err, errlen, "cannot read tags");
    sqlite3_finalize(s);
    return rc;
}

static int list_runs(store *st, const char *cols, store_run **runs, int *n, char *err,
                     size_t errlen)
{
    char sql[2048];
    sqlite3_stmt *s = NULL;
    int rc;

    *runs = NULL;
    *n = 0;
    /* one read transaction (unless the caller has one open): the runs and
     * their tags seen at one moment */
    int own_tx = sqlite3_get_autocommit(st->db);
    if (own_tx && (rc = sq_db_exec(st, "BEGIN", err, errlen)))
        return rc;
    snprintf(sql, sizeof sql, "SELECT %s, NULL FROM runs ORDER BY id", cols);
    if (!(rc = sq_db_prepare(st, sql, &s, err, errlen)))
        rc = sq_query_rows(st, s, sizeof(store_run), read_run_row, free_runs, "cannot list runs",
                           (void **)runs, n, err, errlen);
    if (!rc && (rc = attach_tags(st, *runs, *n, err, errlen))) {
        store_runs_free(*runs, *n);
        *runs = NULL;
        *n = 0;
    }
    if (own_tx)
        sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
    return rc;
}

int store_list_runs(store *st, store_run **runs, int *n, char *err, size_t errlen)
{
    return list_runs(st, RUN_COLS_NO_TAGS, runs, n, err, errlen);
}

int store_list_runs_brief(store *st, store_run **runs, int *n, char *err, size_t errlen)
{
    return list_runs(st, RUN_COLS_BRIEF, runs, n, err, errlen);
}

/* Runs matching "id = ?" or "label = ?": the count, and the first into *r. */
static int find_runs(store *st, const char *where, const char *ref, store_run *r, int *count,
                     char *err, size_t errlen)
{
    char sql[2048];
    sqlite3_stmt *s = NULL;
    int rc, step;

    *count = 0;
    snprintf(sql, sizeof sql, "SELECT " RUN_COLS " FROM runs WHERE %s ORDER BY id", where);
    if ((rc = sq_db_prepare(st, sql, &s, err, errlen)))
        return rc;
    if (strcmp(where, "id = ?") == 0)
        sqlite3_bind_int64(s, 1, strtoll(ref, NULL, 10));
    else
        sq_bind_text(s, 1, ref);
    while ((step = sqlite3_step(s)) == SQLITE_ROW)
        if ((*count)++ == 0)
            read_run(s, r);
    if (step != SQLITE_DONE) {
        rc = sq_db_fail(st, err, errlen, "cannot read runs");
        if (*count)
            store_run_clear(r);
        *count = 0;
    }
    sqlite3_finalize(s);
    return rc;
}

/* Levenshtein distance of a and b, or cap + 1 when it exceeds cap. */
static int edit_distance(const char *a, const char *b, int cap)
{
    size_t na = strlen(a), nb = strlen(b);
    int *row, d;

    if ((na > nb ? na - nb : nb - na) > (size_t)cap || na > 256 || nb > 256)
        return cap + 1;
    row = xmalloc((nb + 1) * sizeof *row);
    for (size_t j = 0; j <= nb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    d = row[nb];
    free(row);
    return d > cap ? cap + 1 : d;
}

/* "no run 'REF'", with the nearest stored label when one is close: at most two
 * edits (and no more than a third of REF's characters, so that "x" does not
 * suggest "y"), else the shortest label that REF begins or that begins REF. */
static int not_found(store *st, const char *ref, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    char *best = NULL;
    int best_d = 3, best_prefix = 0, rc;
    size_t nref = strlen(ref);

    if (sqlite3_prepare_v2(st->db, "SELECT label FROM runs WHERE label IS NOT NULL ORDER BY id",
                           -1, &s, NULL) == SQLITE_OK) {
        while (sqlite3_step(s) == SQLITE_ROW) {
            const char *label = (const char *)sqlite3_column_text(s, 0);
            size_t nl = label ? strlen(label) : 0;
            int d, prefix;
            if (!label || !*label)
                continue;
            d = edit_distance(ref, label, 2);
            if (d * 3 > (int)nref)
                d = 3;
            prefix = !strncmp(ref, label, nref < nl ? nref : nl);
            if (d < best_d || (best_d == 3 && prefix &&
                               (!best_prefix || nl < strlen(best)))) {
                free(best);
                best = xstrdup(label);
                best_d = d;
                best_prefix = prefix;
            }
        }
    }
    sqlite3_finalize(s);
    if (best)
        rc = rt_err(err, errlen, RT_ENOTFOUND, "%s: no run '%s' (did you mean '%s'?)",
                    st->path, ref, best);
    else
        rc = rt_err(err, errlen, RT_ENOTFOUND, "%s: no run '%s'", st->path, ref);
    free(best);
    return rc;
}

int store_get_run(store *st, const char *ref, store_run *out, char *err, size_t errlen)
{
    store_run by_label;
    int n_id = 0, n_label = 0, rc;

    store_run_init(out);
    if (!ref || !*ref)
        return rt_err(err, errlen, RT_EINVAL, "no run given");
    if (sq_all_digits(ref) && strlen(ref) <= 18) {
        if ((rc = find_runs(st, "id = ?", ref, out, &n_id, err, errlen)))
            return rc;
    }
    if ((rc = find_runs(st, "label = ?", ref, &by_label, &n_label, err, errlen))) {
        if (n_id)
            store_run_clear(out);
        return rc;
    }
    if (n_id && n_label && by_label.id != out->id) {
        rc = rt_err(err, errlen, RT_EINVAL,
                    "run '%s' is ambiguous: run id %lld and the label of run %lld", ref,
                    (long long)out->id, (long long)by_label.id);
        store_run_clear(out);
        store_run_clear(&by_label);
        return rc;
    }
    if (n_id) {
        if (n_label)
            store_run_clear(&by_label);
        return 0;
    }
    if (n_label) {
        *out = by_label;
        return 0;
    }
    return not_found(st, ref, err, errlen);
}

static void read_layer(sqlite3_stmt *s, store_layer *l)
{
    store_layer_init(l);
    l->idx = sqlite3_column_int64(s, 0);
    l->node = sq_col_text(s, 1);
    l->op = sq_col_text(s, 2);
    l->name = sq_col_text(s, 3);
    l->in_shapes = sq_col_text(s, 4);
    l->out_shapes = sq_col_text(s, 5);
    l->dtype = sq_col_text(s, 6);
    l->host_us = sq_col_dbl(s, 7);
    l->npu_cycles = sq_col_i64(s, 8);
    l->ddr_cycles = sq_col_i64(s, 9);
    l->total_cycles = sq_col_i64(s, 10);
    l->time_us = sq_col_dbl(s, 11);
    l->mac_usage = sq_col_dbl(s, 12);
    l->target = sq_col_text(s, 13);
    l->cpu_reason = sq_col_text(s, 14);
    l->sram_hit = sq_col_dbl(s, 15);
    l->rw_kb = sq_col_dbl(s, 16);
    l->bound = sq_col_text(s, 17);
    l->workload = sq_col_text(s, 18);
    l->tasks = sq_col_i64(s, 19);
    l->npu_op = sq_col_text(s, 20);
    l->frame_us = sq_col_dbl(s, 21);
    l->npu_dtype = sq_col_text(s, 22);
    l->out_scale = sq_col_dbl(s, 23);
    l->out_zp = sq_col_i64(s, 24);
    l->out_qtype = sq_col_text(s, 25);
    l->out_min = sq_col_dbl(s, 26);
    l->out_max = sq_col_dbl(s, 27);
    l->out_mean = sq_col_dbl(s, 28);
    l->out_std = sq_col_dbl(s, 29);
    int nw = sqlite3_column_int(s, 30);
    l->n_workload = nw > 0 && nw <= STORE_NPU_ROW_CORES ? nw : 0; /* a row edited by hand */
    for (int c = 0; c < l->n_workload; c++)
        l->workload_pct[c] = sq_col_dbl(s, 31 + c);
}

void store_layers_free(store_layer *rows, int n)
{
    for (int i = 0; rows && i < n; i++) {
        store_layer *l = &rows[i];
        const char *strs[] = { l->node, l->op, l->name, l->in_shapes, l->out_shapes,
                               l->dtype, l->target, l->cpu_reason, l->bound, l->workload,
                               l->npu_op, l->npu_dtype, l->out_qtype };
        for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++)
            free((void *)strs[k]);
    }
    free(rows);
}

static void read_layer_row(sqlite3_stmt *s, void *row) { read_layer(s, row); }
static void free_layers(void *rows, int n) { store_layers_free(rows, n); }

/* What numbering the run's rows takes (store_layers_number): *own, they are a
 * printed table's (every backend but the three whose rows our NPU model made);
 * *n_table, the rows of the table it printed (STORE_NULL_INT unknown) */
static int numbering_of(store *st, int64_t run_id, int *own, int64_t *n_table, char *err,
                        size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc = sq_db_prepare(st, "SELECT backend, npu_table_layers FROM runs WHERE id = ?", &s, err,
                           errlen);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        int b = store_backend_of((const char *)sqlite3_column_text(s, 0));
        *own = b != BACKEND_SIM && b != BACKEND_PREDICT && b != BACKEND_EMULATE;
        *n_table = sqlite3_column_type(s, 1) == SQLITE_NULL ? STORE_NULL_INT
                                                            : sqlite3_column_int64(s, 1);
    }
    rc = step == SQLITE_ROW || step == SQLITE_DONE ? RT_OK : sq_db_fail(st, err, errlen, "cannot read the run");
    sqlite3_finalize(s);
    return rc;
}

int store_get_layers(store *st, int64_t run_id, store_layer **rows, int *n, char *err,
                     size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    *rows = NULL;
    *n = 0;
    if ((rc = sq_db_prepare(st, "SELECT " LAYER_COLS " FROM layers WHERE " LAYER_KEY_RANGE
                            " ORDER BY key",
                         &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    if ((rc = sq_query_rows(st, s, sizeof(store_layer), read_layer_row, free_layers,
                            "cannot read layers", (void **)rows, n, err, errlen)))
        return rc;
    /* the rows' IDs in the level-4 table, which the kept rows take part in */
    store_npu_row *x = NULL;
    int nx = 0, own = 0;
    int64_t n_table = STORE_NULL_INT;
    if ((rc = numbering_of(st, run_id, &own, &n_table, err, errlen)) ||
        (rc = store_get_npu_rows(st, run_id, &x, &nx, err, errlen))) {
        store_layers_free(*rows, *n);
        *rows = NULL;
        *n = 0;
        return rc;
    }
    store_layers_number(*rows, *n, x, nx, n_table, own);
    store_npu_rows_free(x, nx);
    return RT_OK;
}

void store_outputs_free(store_output *rows, int n)
{
    for (int i = 0; rows && i < n; i++) {
        free((void *)rows[i].name);
        free((void *)rows[i].shape);
        free((void *)rows[i].dtype);
        free((void *)rows[i].dump_file);
    }
    free(rows);
}

static void read_output_row(sqlite3_stmt *s, void *row)
{
    store_output *o = row;
    store_output_init(o);
    o->idx = sqlite3_column_int64(s, 0);
    o->name = sq_col_text(s, 1);
    o->shape = sq_col_text(s, 2);
    o->dtype = sq_col_text(s, 3);
    o->dump_file = sq_col_text(s, 4);
}
static void free_outputs(void *rows, int n) { store_outputs_free(rows, n); }

int store_get_outputs(store *st, int64_t run_id, store_output **rows, int *n, char *err,
                      size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    *rows = NULL;
    *n = 0;
    if ((rc = sq_db_prepare(st,
                         "SELECT idx, name, shape, dtype, dump_file FROM outputs "
                         "WHERE run_id = ? ORDER BY idx",
                         &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    return sq_query_rows(st, s, sizeof(store_output), read_output_row, free_outputs,
                      "cannot read outputs", (void **)rows, n, err, errlen);
}

const char *store_format_shape(char *buf, size_t len, int ndim, const int64_t *dims)
{
    size_t n = 0;

    if (!len)
        return buf;
    buf[0] = 0;
    n += (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < ndim && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? "," : "", (long long)dims[i]);
    if (n < len)
        snprintf(buf + n, len - n, "]");
    return buf;
}


/* ---------------------------------------------------------------- listing many runs */

/* Where run_id is, or belongs, in rows[0..n) (ordered by run id). */
static int lower_bound(const store_run_outputs *rows, int n, int64_t run_id)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (rows[mid].run_id < run_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The entry of run_id in rows[0..*n), inserted in id order when new. */
static store_run_outputs *entry_of(store_run_outputs **rows, int *n, int *cap, int64_t run_id)
{
    int lo = lower_bound(*rows, *n, run_id);
    if (lo < *n && (*rows)[lo].run_id == run_id)
        return &(*rows)[lo];
    if (*n == *cap)
        *rows = xrealloc(*rows, sizeof **rows * (size_t)(*cap = *cap ? 2 * *cap : 64));
    memmove(&(*rows)[lo + 1], &(*rows)[lo], sizeof **rows * (size_t)(*n - lo));
    memset(&(*rows)[lo], 0, sizeof **rows);
    (*rows)[lo].run_id = run_id;
    (*n)++;
    return &(*rows)[lo];
}

static int by_idx(const void *x, const void *y)
{
    const store_accuracy *a = x, *b = y;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

void store_run_outputs_free(store_run_outputs *rows, int n)
{
    for (int i = 0; rows && i < n; i++) {
        store_outputs_free(rows[i].outs, rows[i].n_outs);
        store_accuracy_free(rows[i].acc, rows[i].n_acc);
    }
    free(rows);
}

int store_list_run_outputs(store *st, store_run_outputs **out, int *nout, char *err,
                           size_t errlen)
{
    store_run_outputs *rows = NULL, *e;
    sqlite3_stmt *s = NULL;
    char **picked = NULL; /* parallel to rows while only runs with error rows are there */
    int n = 0, cap = 0, rc = 0, step;

    *out = NULL;
    *nout = 0;
    /* one read transaction: one lock for the three queries, one consistent view */
    if ((rc = sq_db_exec(st, "BEGIN", err, errlen)))
        return rc;
    /* Per run, the source store_get_accuracy picks (an external golden's, else
     * the run's own), found by three index seeks at most */
    if ((rc = sq_db_prepare(st,
            "SELECT id, COALESCE("
            "(SELECT source FROM accuracy WHERE run_id = runs.id AND source < '" STORE_ACC_QUANT
            "' LIMIT 1), "
            "(SELECT source FROM accuracy WHERE run_id = runs.id AND source > '" STORE_ACC_QUANT
            "' LIMIT 1), "
            "(SELECT source FROM accuracy WHERE run_id = runs.id AND source = '" STORE_ACC_QUANT
            "' LIMIT 1)) FROM runs ORDER BY id",
            &s, err, errlen)))
        goto out;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (sqlite3_column_type(s, 1) == SQLITE_NULL)
            continue;
        e = entry_of(&rows, &n, &cap, sqlite3_column_int64(s, 0)); /* appended: ids ascend */
        e->has_acc_rows = 1;
        picked = xrealloc(picked, sizeof *picked * (size_t)cap);
        picked[n - 1] = (char *)sq_col_text(s, 1);
    }
    if (step != SQLITE_DONE && (rc = sq_db_fail(st, err, errlen, "cannot read error rows")))
        goto out;
    sqlite3_finalize(s);
    /* the graph-output rows of the picked source: only the columns a listing
     * shows, read in table order (no sort), put in idx order per run below */
    if ((rc = sq_db_prepare(st, "SELECT run_id, source, idx, name, entire_cos, entire_sqnr_db, "
                                "entire_max_abs, entire_flags FROM accuracy WHERE is_output = 1",
                            &s, err, errlen)))
        goto out;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(s, 0);
        const char *src = (const char *)sqlite3_column_text(s, 1);
        int lo = lower_bound(rows, n, id);
        if (lo == n || rows[lo].run_id != id || !src || strcmp(src, picked[lo]))
            continue;
        e = &rows[lo];
        e->acc = xrealloc(e->acc, sizeof *e->acc * (size_t)(e->n_acc + 1));
        store_accuracy *a = &e->acc[e->n_acc++];
        store_accuracy_init(a);
        a->idx = sqlite3_column_int64(s, 2);
        a->name = sq_col_text(s, 3);
        a->is_output = 1;
        a->entire.cos = sq_col_dbl(s, 4);
        a->entire.sqnr_db = sq_col_dbl(s, 5);
        a->entire.max_abs = sq_col_dbl(s, 6);
        a->entire.flags = sqlite3_column_int(s, 7);
        a->entire.n = a->single.n = -1;
        a->source = xstrdup(src);
    }
    if (step != SQLITE_DONE && (rc = sq_db_fail(st, err, errlen, "cannot read error rows")))
        goto out;
    sqlite3_finalize(s);
    for (int k = 0; k < n; k++)
        if (rows[k].n_acc > 1)
            qsort(rows[k].acc, (size_t)rows[k].n_acc, sizeof *rows[k].acc, by_idx);
    for (int k = 0; k < n; k++)
        free(picked[k]);
    free(picked);
    picked = NULL;
    if ((rc = sq_db_prepare(st, "SELECT run_id, idx, name, shape, dtype, dump_file FROM outputs "
                                "ORDER BY run_id, idx", &s, err, errlen)))
        goto out;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        e = entry_of(&rows, &n, &cap, sqlite3_column_int64(s, 0));
        e->outs = xrealloc(e->outs, sizeof *e->outs * (size_t)(e->n_outs + 1));
        store_output *o = &e->outs[e->n_outs++];
        store_output_init(o);
        o->idx = sqlite3_column_int64(s, 1);
        o->name = sq_col_text(s, 2);
        o->shape = sq_col_text(s, 3);
        o->dtype = sq_col_text(s, 4);
        o->dump_file = sq_col_text(s, 5);
    }
    if (step != SQLITE_DONE)
        rc = sq_db_fail(st, err, errlen, "cannot read outputs");
out:
    sqlite3_finalize(s);
    sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
    for (int k = 0; picked && k < n; k++)
        free(picked[k]);
    free(picked);
    if (rc) {
        store_run_outputs_free(rows, n);
        return rc;
    }
    *out = rows;
    *nout = n;
    return 0;
}

int store_layer_has_figures(const store_layer *l)
{
    return l->total_cycles != STORE_NULL_INT || !isnan(l->frame_us);
}

int store_layer_has_cycles_or_time(const store_layer *l)
{
    return l->total_cycles != STORE_NULL_INT || l->npu_cycles != STORE_NULL_INT ||
           l->ddr_cycles != STORE_NULL_INT || !isnan(l->time_us);
}

/* ops that only move or scale an operand a fused layer takes in (an
 * attention's head split and scale, a Linear's Flatten): the layer is not
 * named by them */
static int operand_move(const char *op)
{
    return op && (!strcmp(op, "Transpose") || !strcmp(op, "Reshape") || !strcmp(op, "Flatten") ||
                  !strcmp(op, "Squeeze") || !strcmp(op, "Mul") || !strcmp(op, "Div"));
}

const char *store_layer_fullname(const store_layer *rows, int i, char *buf, size_t len)
{
    int first = i;
    /* back over the rows of the nodes fused into it: no figure of their own
     * (a table's row with a time alone is a layer), its OpType (a node no
     * layer covers, a zero Pad the compiler drops, has none) */
    while (first > 0 && !store_layer_has_figures(&rows[first - 1]) &&
           !store_layer_has_cycles_or_time(&rows[first - 1]) && rows[first - 1].npu_op)
        first--;
    while (first < i && !operand_move(rows[i].npu_op) && operand_move(rows[first].op))
        first++;
    const store_layer *l = &rows[first];
    size_t k = l->op ? strlen(l->op) : 0;
    /* already "<op>:<name>" (a vendor .rknn's rows); a name may hold colons of
     * its own ("OutputOperator:onnx::ReduceSum_330" of a log: node "onnx::...") */
    if (l->node && k && !strncmp(l->node, l->op, k) && l->node[k] == ':')
        snprintf(buf, len, "%s", l->node);
    else if (!l->op && !l->node) /* a log's row without one (cut), as the log printed it */
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "%s:%s", l->op ? l->op : "?", l->node ? l->node : "?");
    return buf;
}
