/* analyze/store_accuracy.c — the per-layer error rows of a run. */
#include "analyze/store_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* Metrics: NaN is SQL NULL; +-inf (SQNR of identical tensors) stays a REAL. */
static void bind_metric(sqlite3_stmt *s, int i, double v)
{
    if (isnan(v))
        sqlite3_bind_null(s, i);
    else
        sqlite3_bind_double(s, i, v);
}

static void bind_metrics(sqlite3_stmt *s, int i, const metrics_t *m)
{
    bind_metric(s, i, m->cos);
    bind_metric(s, i + 1, m->euc);
    bind_metric(s, i + 2, m->max_abs);
    bind_metric(s, i + 3, m->mean_abs);
    bind_metric(s, i + 4, m->sqnr_db);
    sqlite3_bind_int(s, i + 5, m->flags);
}

static void read_metrics(sqlite3_stmt *s, int i, metrics_t *m)
{
    memset(m, 0, sizeof(*m));
    m->cos = sq_col_dbl(s, i);
    m->euc = sq_col_dbl(s, i + 1);
    m->max_abs = sq_col_dbl(s, i + 2);
    m->mean_abs = sq_col_dbl(s, i + 3);
    m->sqnr_db = sq_col_dbl(s, i + 4);
    m->flags = sqlite3_column_int(s, i + 5);
    m->n = -1;
}

void store_accuracy_init(store_accuracy *a)
{
    memset(a, 0, sizeof(*a));
    a->layer = STORE_NULL_INT;
    a->entire.cos = a->entire.euc = a->entire.max_abs = a->entire.mean_abs = NAN;
    a->entire.sqnr_db = NAN;
    a->single = a->entire;
}

/* One row into the open transaction (the caller checked it is writable). */
static int acc_insert(store *st, int64_t run_id, const store_accuracy *a, char *err,
                      size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if (!a->name)
        return rt_err(err, errlen, RT_EINVAL, "error row %lld has no tensor name",
                      (long long)a->idx);
    if ((rc = sq_row_prepare(st, ROW_ACC,
                         "INSERT INTO accuracy (run_id, " ACC_COLS ") VALUES "
                         "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_int64(s, 2, a->idx);
    sq_bind_i64(s, 3, a->layer);
    sq_bind_text(s, 4, a->name);
    sq_bind_text(s, 5, a->op);
    sq_bind_text(s, 6, a->node);
    sqlite3_bind_int(s, 7, a->fused != 0);
    sqlite3_bind_int(s, 8, a->is_output != 0);
    bind_metrics(s, 9, &a->entire);
    bind_metrics(s, 15, &a->single);
    sq_bind_text(s, 21, a->source ? a->source : STORE_ACC_QUANT);
    if (sqlite3_step(s) != SQLITE_DONE) {
        if ((sqlite3_extended_errcode(st->db) & 0xff) == SQLITE_CONSTRAINT)
            rc = rt_err(err, errlen, RT_EINVAL, "error row %lld added twice", (long long)a->idx);
        else
            rc = sq_db_fail(st, err, errlen, "cannot add a per-layer error row");
    }
    sq_row_done(s);
    return rc;
}

int store_accuracy_add(store *st, int64_t run_id, const store_accuracy *a, char *err,
                       size_t errlen)
{
    int rc = sq_check_open(st, run_id, err, errlen);
    return rc ? rc : acc_insert(st, run_id, a, err, errlen);
}

int store_accuracy_replace_golden(store *st, int64_t run_id, const char *source,
                                  const store_accuracy *rows, int n, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if ((rc = sq_check_writable(st, err, errlen)))
        return rc;
    if (st->open_run)
        return rt_err(err, errlen, RT_EINVAL, "run %lld is open for writing",
                      (long long)st->open_run);
    if (!source || !strncmp(source, STORE_ACC_QUANT, sizeof(STORE_ACC_QUANT)))
        return rt_err(err, errlen, RT_EINVAL, "an external golden needs its own source name");
    if ((rc = sq_db_exec(st, "BEGIN IMMEDIATE", err, errlen)))
        return rc;
    if ((rc = sq_db_prepare(st, "SELECT 1 FROM runs WHERE id = ?", &s, err, errlen)))
        goto fail;
    sqlite3_bind_int64(s, 1, run_id);
    if (sqlite3_step(s) != SQLITE_ROW)
        rc = rt_err(err, errlen, RT_EINVAL, "no run %lld", (long long)run_id);
    sqlite3_finalize(s);
    s = NULL;
    if (rc)
        goto fail;
    if ((rc = sq_db_prepare(st, "DELETE FROM accuracy WHERE run_id = ? AND source <> '"
                         STORE_ACC_QUANT "'", &s, err, errlen)))
        goto fail;
    sqlite3_bind_int64(s, 1, run_id);
    if (sqlite3_step(s) != SQLITE_DONE)
        rc = sq_db_fail(st, err, errlen, "cannot replace the per-layer errors");
    sqlite3_finalize(s);
    if (rc)
        goto fail;
    for (int i = 0; i < n; i++) {
        store_accuracy a = rows[i];
        a.source = source;
        if ((rc = acc_insert(st, run_id, &a, err, errlen)))
            goto fail;
    }
    if ((rc = sq_db_exec(st, "COMMIT", err, errlen)))
        goto fail;
    return RT_OK;
fail:
    sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

void store_accuracy_free(store_accuracy *rows, int n)
{
    for (int i = 0; rows && i < n; i++) {
        free((void *)rows[i].source);
        free((void *)rows[i].name);
        free((void *)rows[i].op);
        free((void *)rows[i].node);
    }
    free(rows);
}

void sq_read_accuracy(sqlite3_stmt *s, int c, store_accuracy *a)
{
    store_accuracy_init(a);
    a->idx = sqlite3_column_int64(s, c);
    a->layer = sq_col_i64(s, c + 1);
    a->name = sq_col_text(s, c + 2);
    a->op = sq_col_text(s, c + 3);
    a->node = sq_col_text(s, c + 4);
    a->fused = sqlite3_column_int(s, c + 5);
    a->is_output = sqlite3_column_int(s, c + 6);
    read_metrics(s, c + 7, &a->entire);
    read_metrics(s, c + 13, &a->single);
    a->source = sq_col_text(s, c + 19);
    /* required when written; a damaged file or a table edited by hand may
     * still hold a NULL */
    if (!a->name)
        a->name = xstrdup("");
}

static void read_accuracy_row(sqlite3_stmt *s, void *row) { sq_read_accuracy(s, 0, row); }
static void free_accuracy(void *rows, int n) { store_accuracy_free(rows, n); }

int store_get_accuracy(store *st, int64_t run_id, store_accuracy **rows, int *n, char *err,
                       size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    *rows = NULL;
    *n = 0;
    /* One source: an external golden's rows when the run has them (the latest
     * `analyze --golden`), else the quantized run's own. */
    if ((rc = sq_db_prepare(st, "SELECT " ACC_COLS " FROM accuracy WHERE run_id = ?1 AND source = "
                         "(SELECT source FROM accuracy WHERE run_id = ?1 ORDER BY source = '"
                         STORE_ACC_QUANT "' LIMIT 1) ORDER BY idx",
                         &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    return sq_query_rows(st, s, sizeof(store_accuracy), read_accuracy_row, free_accuracy,
                      "cannot read the per-layer errors", (void **)rows, n, err, errlen);
}

