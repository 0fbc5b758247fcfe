/* analyze/store_manage.c — managing runs: tags, labels, and the NPU load
 * samples of a run. */
#include "analyze/store_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* Runs one statement with up to two bound values (an id, then text) and expects
 * it to change `want` rows (-1: any number). */
static int exec_bound(store *st, const char *sql, int64_t id, const char *text, int want,
                      const char *what, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if ((rc = sq_check_writable(st, err, errlen)))
        return rc;
    if (st->open_run)
        return rt_err(err, errlen, RT_EINVAL, "run %lld is still open", (long long)st->open_run);
    if ((rc = sq_db_prepare(st, sql, &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, id);
    sq_bind_text(s, 2, text);
    if (sqlite3_step(s) != SQLITE_DONE)
        rc = sq_db_fail(st, err, errlen, what);
    else if (want >= 0 && sqlite3_changes(st->db) != want)
        rc = rt_err(err, errlen, RT_ENOTFOUND, "no run with id %lld", (long long)id);
    sqlite3_finalize(s);
    return rc;
}

static int run_exists(store *st, int64_t run_id, char *err, size_t errlen)
{
    int64_t n = 0;
    char sql[96];
    int rc;

    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM runs WHERE id = %lld", (long long)run_id);
    if ((rc = sq_sql_int(st, sql, &n, err, errlen)))
        return rc;
    return n ? 0 : rt_err(err, errlen, RT_ENOTFOUND, "no run with id %lld", (long long)run_id);
}

/* A tag is a short word: letters, digits and . _ - + : / @ = only, so that a
 * comma-separated list and a shell argument both stay unambiguous. */
static int check_tag(const char *tag, char *err, size_t errlen)
{
    size_t n = tag ? strlen(tag) : 0;

    if (n == 0 || n > 64)
        return rt_err(err, errlen, RT_EINVAL, "bad tag '%s': 1 to 64 characters",
                      tag ? tag : "");
    for (const char *p = tag; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("._-+:/@=", *p))
            return rt_err(err, errlen, RT_EINVAL,
                          "bad tag '%s': letters, digits and . _ - + : / @ = only", tag);
    return 0;
}

int store_tag_add(store *st, int64_t run_id, const char *tag, char *err, size_t errlen)
{
    int rc;

    if ((rc = check_tag(tag, err, errlen)) || (rc = run_exists(st, run_id, err, errlen)))
        return rc;
    return exec_bound(st, "INSERT OR IGNORE INTO tags (run_id, tag) VALUES (?, ?)", run_id, tag,
                      -1, "cannot tag the run", err, errlen);
}

int store_tag_remove(store *st, int64_t run_id, const char *tag, char *err, size_t errlen)
{
    int rc;

    if ((rc = run_exists(st, run_id, err, errlen)))
        return rc;
    return exec_bound(st, "DELETE FROM tags WHERE run_id = ? AND tag = ?", run_id, tag, -1,
                      "cannot untag the run", err, errlen);
}

int store_set_label(store *st, int64_t run_id, const char *label, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if (label && (!*label || sq_all_digits(label)))
        return rt_err(err, errlen, RT_EINVAL,
                      "bad label '%s': a label must not be empty or a number", label);
    if (label) {
        if ((rc = sq_db_prepare(st, "SELECT id FROM runs WHERE label = ? AND id <> ?", &s, err,
                             errlen)))
            return rc;
        sq_bind_text(s, 1, label);
        sqlite3_bind_int64(s, 2, run_id);
        rc = sqlite3_step(s) == SQLITE_ROW
                 ? rt_err(err, errlen, RT_EEXIST, "label '%s' is already used by run %lld",
                          label, (long long)sqlite3_column_int64(s, 0))
                 : 0;
        sqlite3_finalize(s);
        if (rc)
            return rc;
    }
    /* label is bound second: exec_bound binds (id, text) in that order */
    return exec_bound(st, "UPDATE runs SET label = ?2 WHERE id = ?1", run_id, label, 1,
                      "cannot label the run", err, errlen);
}

int store_load_add(store *st, int64_t run_id, const store_load_sample *ls, char *err,
                   size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if ((rc = sq_check_open(st, run_id, err, errlen)))
        return rc;
    /* prepared once per handle like the other per-row inserts; the next idx
     * comes from the (run_id, idx) key, not from counting the run's samples */
    if ((rc = sq_row_prepare(st, ROW_LOAD,
                         "INSERT INTO load_samples (run_id, idx, t_us, core, load_pct) VALUES "
                         "(?1, COALESCE((SELECT MAX(idx) FROM load_samples WHERE run_id = ?1), -1) + 1, "
                         "?2, ?3, ?4)",
                         &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    sq_bind_dbl(s, 2, ls->t_us);
    sq_bind_i64(s, 3, ls->core);
    sq_bind_dbl(s, 4, ls->load_pct);
    if (sqlite3_step(s) != SQLITE_DONE)
        rc = sq_db_fail(st, err, errlen, "cannot add the load sample");
    sq_row_done(s);
    return rc;
}

static void read_load_row(sqlite3_stmt *s, void *row)
{
    store_load_sample *l = row;
    l->t_us = sq_col_dbl(s, 0);
    l->core = sq_col_i64(s, 1);
    l->load_pct = sq_col_dbl(s, 2);
}

static void free_load(void *rows, int n) { (void)n; free(rows); }

int sq_get_samples(store *st, int64_t run_id, store_load_sample **rows, int *n, char *err,
                   size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    *rows = NULL;
    *n = 0;
    if ((rc = sq_db_prepare(st, "SELECT t_us, core, load_pct FROM load_samples WHERE run_id = ? "
                             "ORDER BY idx", &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    return sq_query_rows(st, s, sizeof(store_load_sample), read_load_row, free_load,
                      "cannot read the load samples", (void **)rows, n, err, errlen);
}

int store_get_load(store *st, int64_t run_id, store_load_sample **rows, int *n, char *err,
                   size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc = sq_get_samples(st, run_id, rows, n, err, errlen);

    if (rc || *n)
        return rc;
    /* no samples: the run's load per core, if it has one, at t 0 */
    free(*rows);
    *rows = NULL;
    if ((rc = sq_db_prepare(st, "SELECT 0.0, core, load_pct FROM npu_load WHERE run_id = ? "
                             "ORDER BY core", &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    return sq_query_rows(st, s, sizeof(store_load_sample), read_load_row, free_load,
                      "cannot read the NPU load", (void **)rows, n, err, errlen);
}


int store_run_set_eval(store *st, int64_t run_id, const char *json, char *err, size_t errlen)
{
    if (!json || !json_valid(json))
        return rt_err(err, errlen, RT_EINVAL, "the evaluation is not a JSON object");
    /* one statement: the run's other extra_json keys stay as they are */
    return exec_bound(st, "UPDATE runs SET extra_json = json_set(CASE WHEN json_valid(extra_json) "
                      "THEN extra_json ELSE '{}' END, '$.eval', json(?2)) WHERE id = ?1",
                      run_id, json, 1, "cannot store the evaluation", err, errlen);
}
