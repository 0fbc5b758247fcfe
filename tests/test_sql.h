/* tests/test_sql.h — raw SQL for the store's tests: an oracle that bypasses the
 * store. The file is opened read-write but never created, so that SQLite itself
 * rolls back a journal a killed writer left, as any reader of a real database
 * would see it. Include after tests/test.h. */
#ifndef RT_TEST_SQL_H
#define RT_TEST_SQL_H

#include <sqlite3.h>

/* One integer, -999 when the query fails. */
static inline long long sql_int(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    long long v = -999;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

/* Runs statements, counted as one check. */
static inline void sql_exec(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open(path, &db);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    CHECK(rc == SQLITE_OK, "raw sql %s: %s", sql, sqlite3_errmsg(db));
    sqlite3_close(db);
}

#endif
