/* analyze/store_sql.c — the SQL helpers every part of the store shares:
 * errors, statements, binding missing values as NULL and reading them back. */
#include "analyze/store_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

int sq_db_status(int code)
{
    switch (code & 0xff) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
        return RT_EFORMAT;
    case SQLITE_NOMEM:
        return RT_ENOMEM;
    case SQLITE_MISUSE:
    case SQLITE_RANGE:
        return RT_EINTERNAL;
    default:
        return RT_EIO;
    }
}

int sq_db_fail(store *st, char *err, size_t errlen, const char *what)
{
    int code = sqlite3_extended_errcode(st->db);
    if ((code & 0xff) == SQLITE_NOTADB || (code & 0xff) == SQLITE_CORRUPT)
        return rt_err(err, errlen, RT_EFORMAT, "%s: not an rknn-trace database (%s)", st->path,
                      sqlite3_errmsg(st->db));
    return rt_err(err, errlen, sq_db_status(code), "%s: %s: %s", st->path, what,
                  sqlite3_errmsg(st->db));
}

int sq_db_exec(store *st, const char *sql, char *err, size_t errlen)
{
    if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return sq_db_fail(st, err, errlen, "database error");
    return 0;
}

int sq_db_prepare(store *st, const char *sql, sqlite3_stmt **s, char *err, size_t errlen)
{
    if (sqlite3_prepare_v2(st->db, sql, -1, s, NULL) != SQLITE_OK) {
        *s = NULL;
        return sq_db_fail(st, err, errlen, "database error");
    }
    return 0;
}

int sq_sql_int(store *st, const char *sql, int64_t *v, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if ((rc = sq_db_prepare(st, sql, &s, err, errlen)))
        return rc;
    if (sqlite3_step(s) == SQLITE_ROW) {
        *v = sqlite3_column_int64(s, 0);
        rc = 0;
    } else {
        rc = sq_db_fail(st, err, errlen, "database error");
    }
    sqlite3_finalize(s);
    return rc;
}

int sq_pragma_int(store *st, const char *name, int64_t *v, char *err, size_t errlen)
{
    char sql[64];

    snprintf(sql, sizeof sql, "PRAGMA %s", name);
    return sq_sql_int(st, sql, v, err, errlen);
}

int sq_row_prepare(store *st, int which, const char *sql, sqlite3_stmt **s, char *err,
                       size_t errlen)
{
    int rc;
    if (!st->row_stmt[which] && (rc = sq_db_prepare(st, sql, &st->row_stmt[which], err, errlen)))
        return rc;
    *s = st->row_stmt[which];
    return 0;
}

void sq_row_done(sqlite3_stmt *s)
{
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
}

int sq_row_exec(store *st, int which, const char *sql, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    int rc;

    if ((rc = sq_row_prepare(st, which, sql, &s, err, errlen)))
        return rc;
    if (sqlite3_step(s) != SQLITE_DONE)
        rc = sq_db_fail(st, err, errlen, "database error");
    sqlite3_reset(s);
    return rc;
}

/* A missing value is not bound at all: a parameter never bound is NULL, and
 * every statement is either fresh or had its bindings cleared by sq_row_done
 * (binding NULL over NULL cost an import a tenth of its row inserts).
 * Text is not copied: every caller steps the statement while the string
 * lives and then finalizes it or clears its bindings (sq_row_done). */
void sq_bind_text(sqlite3_stmt *s, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
}

void sq_bind_i64(sqlite3_stmt *s, int i, int64_t v)
{
    if (v != STORE_NULL_INT)
        sqlite3_bind_int64(s, i, v);
}

void sq_bind_dbl(sqlite3_stmt *s, int i, double v)
{
    if (isfinite(v))
        sqlite3_bind_double(s, i, v);
}

const char *sq_col_text(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t ? xstrdup((const char *)t) : NULL;
}

int64_t sq_col_i64(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? STORE_NULL_INT
                                                    : sqlite3_column_int64(s, i);
}

double sq_col_dbl(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

int sq_all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

int sq_check_writable(store *st, char *err, size_t errlen)
{
    if (!st)
        return rt_err(err, errlen, RT_EINVAL, "no store");
    if (st->readonly)
        return rt_err(err, errlen, RT_EINVAL, "%s: opened read-only", st->path);
    return 0;
}

int sq_check_open(store *st, int64_t run_id, char *err, size_t errlen)
{
    int rc = sq_check_writable(st, err, errlen);
    if (rc)
        return rc;
    if (!st->open_run || st->open_run != run_id)
        return rt_err(err, errlen, RT_EINVAL, "run %lld is not open for writing",
                      (long long)run_id);
    return 0;
}

int sq_query_rows(store *st, sqlite3_stmt *s, size_t size, void (*read)(sqlite3_stmt *, void *),
                      void (*release)(void *, int), const char *what, void **rows, int *n,
                      char *err, size_t errlen)
{
    char *v = NULL;
    int cnt = 0, cap = 0, rc = RT_OK, step;

    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (cnt == cap) {
            cap = cap ? cap * 2 : 16;
            v = xrealloc(v, size * (size_t)cap);
        }
        read(s, v + size * (size_t)cnt++);
    }
    if (step != SQLITE_DONE) {
        rc = sq_db_fail(st, err, errlen, what);
        release(v, cnt);
    } else {
        *rows = v;
        *n = cnt;
    }
    sqlite3_finalize(s);
    return rc;
}
