/* analyze/store.c — the SQLite run store: schema, migrations, writes and queries. */
#include "analyze/store.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

/* Migration steps: migrations[i] takes schema version i to i + 1. Never edit a
 * step that has shipped; append a new one and bump STORE_SCHEMA_VERSION. */
static const char *const migrations[] = {
    /* v1 */
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO meta (key, value) VALUES ('created_by', 'rknn-trace');"
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  label TEXT UNIQUE,"
    "  time TEXT NOT NULL,"
    "  model_path TEXT, model_sha256 TEXT, model_format TEXT,"
    "  platform TEXT, backend TEXT,"
    "  quant TEXT, quant_algo TEXT, quant_method TEXT,"
    "  threads INTEGER, iterations INTEGER, seed INTEGER,"
    "  inputs_json TEXT, total_us REAL,"
    "  status TEXT NOT NULL DEFAULT 'ok',"
    "  tool_version TEXT, extra_json TEXT);"
    "CREATE TABLE layers ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL,"
    "  node TEXT, op TEXT, name TEXT, in_shapes TEXT, out_shapes TEXT, dtype TEXT,"
    "  host_us REAL,"
    "  npu_cycles INTEGER, ddr_cycles INTEGER, total_cycles INTEGER,"
    "  time_us REAL, mac_usage REAL, target TEXT, cpu_reason TEXT,"
    "  sram_hit REAL, rw_kb REAL, bound TEXT, workload TEXT, tasks INTEGER,"
    "  npu_op TEXT,"
    "  PRIMARY KEY (run_id, idx));"
    "CREATE TABLE outputs ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL,"
    "  name TEXT NOT NULL, shape TEXT, dtype TEXT, dump_file TEXT,"
    "  PRIMARY KEY (run_id, idx));"
    "CREATE TABLE accuracy ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL,"
    "  layer INTEGER, name TEXT NOT NULL, op TEXT, node TEXT,"
    "  fused INTEGER, is_output INTEGER,"
    "  entire_cos REAL, entire_euc REAL, entire_max_abs REAL, entire_mean_abs REAL,"
    "  entire_sqnr_db REAL, entire_flags INTEGER,"
    "  single_cos REAL, single_euc REAL, single_max_abs REAL, single_mean_abs REAL,"
    "  single_sqnr_db REAL, single_flags INTEGER,"
    "  source TEXT NOT NULL DEFAULT 'quant',"
    "  PRIMARY KEY (run_id, source, idx));"
    "CREATE INDEX runs_time ON runs(time);",
    /* v2: the figures the run summary needs that layer rows cannot give (host
     * statistics, memory, the dump folder and its hash), the predicted frame for
     * listing, and per layer the plain-run frame time and the compute dtype */
    "ALTER TABLE runs ADD COLUMN npu_us REAL;"
    "ALTER TABLE runs ADD COLUMN host_min_us REAL;"
    "ALTER TABLE runs ADD COLUMN host_p90_us REAL;"
    "ALTER TABLE runs ADD COLUMN host_stddev_us REAL;"
    "ALTER TABLE runs ADD COLUMN warmup INTEGER;"
    "ALTER TABLE runs ADD COLUMN dump_dir TEXT;"
    "ALTER TABLE runs ADD COLUMN dump_sha256 TEXT;"
    "ALTER TABLE runs ADD COLUMN weight_bytes INTEGER;"
    "ALTER TABLE runs ADD COLUMN internal_bytes INTEGER;"
    "ALTER TABLE runs ADD COLUMN env_json TEXT;"
    "ALTER TABLE layers ADD COLUMN frame_us REAL;"
    "ALTER TABLE layers ADD COLUMN npu_dtype TEXT;",
    /* v3: runs are managed (tags, relabelling) and carry the NPU load sampled
     * while they ran; the layer count is kept on the run so that listing many
     * runs does not count layer rows */
    "CREATE TABLE tags ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  tag TEXT NOT NULL,"
    "  PRIMARY KEY (run_id, tag));"
    "CREATE INDEX tags_tag ON tags(tag);"
    "CREATE TABLE load_samples ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL,"
    "  t_us REAL, core INTEGER, load_pct REAL,"
    "  PRIMARY KEY (run_id, idx));"
    "ALTER TABLE runs ADD COLUMN n_layers INTEGER;"
    "UPDATE runs SET n_layers = (SELECT COUNT(*) FROM layers WHERE run_id = runs.id);",
};
#define N_MIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))
_Static_assert(N_MIGRATIONS == STORE_SCHEMA_VERSION, "one migration step per schema version");

struct store {
    sqlite3 *db;
    char *path;
    char *copy_dir; /* a private copy read instead of path (open_private_copy), or NULL */
    int readonly;
    int64_t open_run; /* run whose transaction is open, 0 if none */
    int batch;        /* a batch transaction is open: runs are savepoints in it */
    sqlite3_stmt *row_stmt[3]; /* the per-row inserts, prepared once (enum row_stmt) */
};

#define RUN_COLS                                                                           \
    "id, label, time, model_path, model_sha256, model_format, platform, backend, quant, " \
    "quant_algo, quant_method, threads, iterations, seed, inputs_json, total_us, status, " \
    "tool_version, extra_json, n_layers, "                                                \
    "npu_us, host_min_us, host_p90_us, host_stddev_us, warmup, dump_dir, dump_sha256, "   \
    "weight_bytes, internal_bytes, env_json, "                                            \
    "(SELECT group_concat(tag, ',') FROM (SELECT tag FROM tags WHERE run_id = runs.id "   \
    "ORDER BY tag))"

#define LAYER_COLS                                                                         \
    "idx, node, op, name, in_shapes, out_shapes, dtype, host_us, npu_cycles, ddr_cycles, " \
    "total_cycles, time_us, mac_usage, target, cpu_reason, sram_hit, rw_kb, bound, "      \
    "workload, tasks, npu_op, frame_us, npu_dtype"

const char *store_default_path(const char *cli_db)
{
    const char *env;

    if (cli_db && *cli_db)
        return cli_db;
    env = getenv("RKNN_TRACE_DB");
    if (env && *env)
        return env;
    return "./rknn-trace.db";
}

static int db_status(int code)
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

static int db_fail(store *st, char *err, size_t errlen, const char *what)
{
    int code = sqlite3_extended_errcode(st->db);
    if ((code & 0xff) == SQLITE_NOTADB || (code & 0xff) == SQLITE_CORRUPT)
        return rt_err(err, errlen, RT_EFORMAT, "%s: not an rknn-trace database (%s)", st->path,
                      sqlite3_errmsg(st->db));
    return rt_err(err, errlen, db_status(code), "%s: %s: %s", st->path, what,
                  sqlite3_errmsg(st->db));
}

static int db_exec(store *st, const char *sql, char *err, size_t errlen)
{
    if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return db_fail(st, err, errlen, "database error");
    return 0;
}

static int db_prepare(store *st, const char *sql, sqlite3_stmt **s, char *err, size_t errlen)
{
    if (sqlite3_prepare_v2(st->db, sql, -1, s, NULL) != SQLITE_OK) {
        *s = NULL;
        return db_fail(st, err, errlen, "database error");
    }
    return 0;
}

/* The first column of the first row of sql. */
static int sql_int(store *st, const char *sql, int64_t *v, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if ((rc = db_prepare(st, sql, &s, err, errlen)))
        return rc;
    if (sqlite3_step(s) == SQLITE_ROW) {
        *v = sqlite3_column_int64(s, 0);
        rc = 0;
    } else {
        rc = db_fail(st, err, errlen, "database error");
    }
    sqlite3_finalize(s);
    return rc;
}

static int pragma_int(store *st, const char *name, int64_t *v, char *err, size_t errlen)
{
    char sql[64];

    snprintf(sql, sizeof sql, "PRAGMA %s", name);
    return sql_int(st, sql, v, err, errlen);
}

static int migrate(store *st, char *err, size_t errlen)
{
    char sql[160], now[32];
    int64_t ver;
    int rc;

    for (;;) {
        /* IMMEDIATE: take the write lock before looking, so that two processes
         * creating the same new file do not both run a step */
        if ((rc = db_exec(st, "BEGIN IMMEDIATE", err, errlen)))
            return rc;
        if ((rc = pragma_int(st, "user_version", &ver, err, errlen)))
            goto fail;
        if (ver >= STORE_SCHEMA_VERSION) {
            db_exec(st, "COMMIT", NULL, 0);
            return 0;
        }
        if ((rc = db_exec(st, migrations[ver], err, errlen)))
            goto fail;
        rt_iso_time(now, sizeof now);
        snprintf(sql, sizeof sql,
                 "PRAGMA application_id = %d; PRAGMA user_version = %d;"
                 "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', '%d');",
                 STORE_APPLICATION_ID, (int)ver + 1, (int)ver + 1);
        if ((rc = db_exec(st, sql, err, errlen)))
            goto fail;
        if (ver == 0) {
            snprintf(sql, sizeof sql,
                     "INSERT INTO meta (key, value) VALUES ('created_at', '%s')", now);
            if ((rc = db_exec(st, sql, err, errlen)))
                goto fail;
        }
        if ((rc = db_exec(st, "COMMIT", err, errlen)))
            goto fail;
    }
fail:
    sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* A non-empty file that does not start with SQLite's magic is refused before
 * SQLite sees it (SQLite would only complain at the first query). */
static int check_file(const char *path, int readonly, char *err, size_t errlen)
{
    static const char magic[16] = "SQLite format 3";
    char head[16];
    struct stat sb;
    FILE *f;
    size_t n;

    if (stat(path, &sb) != 0) {
        if (errno == ENOENT && !readonly)
            return 0;
        return rt_err(err, errlen, RT_EIO, "%s: %s", path, strerror(errno));
    }
    if (S_ISDIR(sb.st_mode))
        return rt_err(err, errlen, RT_EIO, "%s: is a directory", path);
    if (sb.st_size == 0)
        return 0;
    f = fopen(path, "rb");
    if (!f)
        return rt_err(err, errlen, RT_EIO, "%s: %s", path, strerror(errno));
    n = fread(head, 1, sizeof head, f);
    fclose(f);
    if (n < sizeof head || memcmp(head, magic, sizeof magic) != 0)
        return rt_err(err, errlen, RT_EFORMAT,
                      "%s: not an rknn-trace database (not an SQLite file)", path);
    return 0;
}

/* a followed by b, allocated. */
static char *concat(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *s = xmalloc(na + nb + 1);
    memcpy(s, a, na);
    memcpy(s + na, b, nb + 1);
    return s;
}

/* Opens path into st->db and sets what every handle needs. */
static int open_db(store *st, const char *path, int flags, char *err, size_t errlen)
{
    if (sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK)
        return rt_err(err, errlen, RT_EIO, "%s: cannot open database: %s", st->path,
                      st->db ? sqlite3_errmsg(st->db) : "out of memory");
    sqlite3_busy_timeout(st->db, 10000);
    sqlite3_extended_result_codes(st->db, 1);
    /* a database file is input like any other: its schema may not run
     * functions with side effects nor be edited through writable_schema */
    sqlite3_db_config(st->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(st->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    return db_exec(st, "PRAGMA foreign_keys = ON", err, errlen);
}

/* Statements run once per row (layer, output and error-row inserts) are
 * prepared once per handle: parsing their SQL cost more than the insert itself
 * when an import writes thousands of runs. */
enum row_stmt { ROW_LAYER, ROW_OUTPUT, ROW_ACC };

static int db_prepare(store *st, const char *sql, sqlite3_stmt **s, char *err, size_t errlen);

static int row_prepare(store *st, int which, const char *sql, sqlite3_stmt **s, char *err,
                       size_t errlen)
{
    int rc;
    if (!st->row_stmt[which] && (rc = db_prepare(st, sql, &st->row_stmt[which], err, errlen)))
        return rc;
    *s = st->row_stmt[which];
    return 0;
}

static void row_done(sqlite3_stmt *s)
{
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
}

static void close_db(store *st)
{
    for (size_t i = 0; i < sizeof(st->row_stmt) / sizeof(st->row_stmt[0]); i++) {
        sqlite3_finalize(st->row_stmt[i]);
        st->row_stmt[i] = NULL;
    }
    sqlite3_close(st->db);
    st->db = NULL;
}

/* Whether this process may write the file and create/delete files beside it
 * (what rolling a journal back takes). */
static int may_write(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    int ok;

    if (access(path, W_OK) != 0)
        return 0;
    dir = slash ? xstrdup(path) : xstrdup(".");
    if (slash)
        dir[slash == path ? 1 : slash - path] = 0;
    ok = access(dir, W_OK | X_OK) == 0;
    free(dir);
    return ok;
}

static int copy_file(const char *from, const char *to, int *missing)
{
    char buf[65536];
    int in, out, rc = -1;
    ssize_t n;

    *missing = 0;
    in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0) {
        *missing = errno == ENOENT;
        return -1;
    }
    out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out < 0)
        goto out;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n)
            goto out;
    rc = n == 0 ? 0 : -1;
out:
    if (out >= 0 && close(out) != 0)
        rc = -1;
    close(in);
    return rc;
}

/* SQLite's readers hold a read lock on these bytes of the database file (the
 * lock-byte page of the file format); a writer needs them all to write pages. */
#define SQLITE_SHARED_FIRST (0x40000000 + 2)
#define SQLITE_SHARED_SIZE 510

/* Reads a private copy: the database and its hot journal copied into a fresh
 * directory that only this user can enter, where SQLite rolls the copy back.
 * While copying, a read lock as SQLite's readers take it keeps any other
 * process from rolling the original back or writing it, so that database and
 * journal are copied as one state. The original is not touched. */
static int open_private_copy(store *st, char *err, size_t errlen)
{
    const char *tmp = getenv("TMPDIR");
    struct flock lk = { .l_type = F_RDLCK, .l_whence = SEEK_SET,
                        .l_start = SQLITE_SHARED_FIRST, .l_len = SQLITE_SHARED_SIZE };
    char *journal = NULL, *copy = NULL, *copy_journal = NULL, *tmpl = NULL;
    int fd = -1, missing = 0, rc = RT_EIO, locked = 0;
    int64_t app;

    journal = concat(st->path, "-journal");
    tmpl = concat(tmp && *tmp ? tmp : "/tmp", "/rknn-trace-XXXXXX");
    if (!mkdtemp(tmpl))
        goto refused;
    st->copy_dir = xstrdup(tmpl);
    copy = concat(st->copy_dir, "/db");
    copy_journal = concat(copy, "-journal");
    if ((fd = open(st->path, O_RDONLY | O_CLOEXEC)) < 0)
        goto refused;
    for (int i = 0; i < 1000 && !(locked = fcntl(fd, F_SETLK, &lk) == 0); i++)
        usleep(10000); /* a writer holds it: wait as the busy timeout would */
    if (!locked || copy_file(st->path, copy, &missing) != 0 ||
        (copy_file(journal, copy_journal, &missing) != 0 && !missing))
        goto refused;
    close(fd); /* drops the lock */
    fd = -1;
    if ((rc = open_db(st, copy, SQLITE_OPEN_READWRITE, err, errlen)) ||
        (rc = pragma_int(st, "application_id", &app, err, errlen)))
        goto out;
    rc = 0;
    goto out;
refused:
    rc = rt_err(err, errlen, RT_EIO,
                "%s: an interrupted write left %s, which this user may not roll back "
                "(read-only file or folder), and no private copy could be made (%s); "
                "open the database once as a user that may write it",
                st->path, journal, strerror(errno));
out:
    if (fd >= 0)
        close(fd);
    free(journal);
    free(copy);
    free(copy_journal);
    free(tmpl);
    return rc;
}

/* Reading a database that a writer left mid-transaction (killed, out of
 * memory, power lost): its hot journal must be rolled back before any read,
 * and SQLite does that at the first read -- if it may write the file. So a
 * read-only handle opens the file read-write when this process may write it
 * and its folder: never created, never migrated; the store's API (st->readonly)
 * and PRAGMA query_only refuse every write, and the only change SQLite may make
 * is the rollback that any writer would make first. When this process may not
 * write there (read-only mount, another user's file), SQLite refuses the read
 * (SQLITE_READONLY_ROLLBACK) and the store reads a private copy rolled back in
 * a temporary folder (open_private_copy). */
static int open_reader(store *st, char *err, size_t errlen)
{
    int flags = may_write(st->path) ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
    int64_t app;
    int rc;

    if ((rc = open_db(st, st->path, flags, err, errlen)))
        return rc;
    rc = pragma_int(st, "application_id", &app, err, errlen);
    if (rc && (sqlite3_extended_errcode(st->db) & 0xff) == SQLITE_READONLY) {
        close_db(st);
        rc = open_private_copy(st, err, errlen);
    }
    if (!rc)
        rc = db_exec(st, "PRAGMA query_only = ON", err, errlen);
    return rc;
}

static int store_open_mode(const char *path, int readonly, store **out, char *err,
                           size_t errlen)
{
    store *st = NULL;
    int64_t app, ver, objects;
    int rc;

    *out = NULL;
    if (!path || !*path)
        return rt_err(err, errlen, RT_EINVAL, "no database path");
    if ((rc = check_file(path, readonly, err, errlen)))
        return rc;
    st = xcalloc(1, sizeof *st);
    st->path = xstrdup(path);
    st->readonly = readonly;
    rc = readonly ? open_reader(st, err, errlen)
                  : open_db(st, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, err, errlen);
    if (rc ||
        (rc = pragma_int(st, "application_id", &app, err, errlen)) ||
        (rc = pragma_int(st, "user_version", &ver, err, errlen)) ||
        (rc = sql_int(st, "SELECT COUNT(*) FROM sqlite_master", &objects, err, errlen)))
        goto fail;

    /* Ours is decided by the application id alone: a user may add tables,
     * views or indexes of their own to a database of ours. */
    if (app == 0 && ver == 0 && objects == 0) {
        /* a new (or empty) file */
        if (readonly) {
            rc = rt_err(err, errlen, RT_EFORMAT, "%s: empty database (no runs yet)", path);
            goto fail;
        }
    } else if (app != STORE_APPLICATION_ID) {
        rc = rt_err(err, errlen, RT_EFORMAT, "%s: not an rknn-trace database", path);
        goto fail;
    } else if (ver > STORE_SCHEMA_VERSION) {
        rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                    "%s: created by a newer rknn-trace (schema %lld > %d)", path,
                    (long long)ver, STORE_SCHEMA_VERSION);
        goto fail;
    } else if (ver < 1) {
        rc = rt_err(err, errlen, RT_EFORMAT, "%s: not an rknn-trace database (schema %lld)",
                    path, (long long)ver);
        goto fail;
    }
    if (ver < STORE_SCHEMA_VERSION) {
        /* A reader of an older file upgrades it as a writer would, so that `ls`
         * right after an upgrade of rknn-trace works; where it may not write the
         * file, it upgrades a private copy instead and leaves the original as is. */
        if (readonly && !st->copy_dir && !may_write(path)) {
            close_db(st);
            if ((rc = open_private_copy(st, err, errlen)))
                goto fail;
        }
        if (readonly && (rc = db_exec(st, "PRAGMA query_only = OFF", err, errlen)))
            goto fail;
        if ((rc = migrate(st, err, errlen)))
            goto fail;
        if (readonly && (rc = db_exec(st, "PRAGMA query_only = ON", err, errlen)))
            goto fail;
    }
    *out = st;
    return 0;
fail:
    store_close(st);
    return rc;
}

int store_open(const char *path, store **out, char *err, size_t errlen)
{
    return store_open_mode(path, 0, out, err, errlen);
}

int store_open_readonly(const char *path, store **out, char *err, size_t errlen)
{
    return store_open_mode(path, 1, out, err, errlen);
}

void store_close(store *st)
{
    if (!st)
        return;
    if (st->open_run || st->batch)
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    close_db(st);
    if (st->copy_dir) {
        char *copy = concat(st->copy_dir, "/db");
        char *journal = concat(copy, "-journal");
        unlink(journal);
        unlink(copy);
        rmdir(st->copy_dir);
        free(journal);
        free(copy);
        free(st->copy_dir);
    }
    free(st->path);
    free(st);
}

void store_run_init(store_run *r)
{
    memset(r, 0, sizeof *r);
    r->threads = r->iterations = r->seed = r->warmup = STORE_NULL_INT;
    r->weight_bytes = r->internal_bytes = STORE_NULL_INT;
    r->total_us = r->npu_us = r->host_min_us = r->host_p90_us = r->host_stddev_us = NAN;
    r->n_layers = 0;
}

void store_layer_init(store_layer *l)
{
    memset(l, 0, sizeof *l);
    l->npu_cycles = l->ddr_cycles = l->total_cycles = l->tasks = STORE_NULL_INT;
    l->host_us = l->time_us = l->mac_usage = l->sram_hit = l->rw_kb = l->frame_us = NAN;
}

void store_output_init(store_output *o)
{
    memset(o, 0, sizeof *o);
}

/* ---------------------------------------------------------------- binding */

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, i);
}

static void bind_i64(sqlite3_stmt *s, int i, int64_t v)
{
    if (v == STORE_NULL_INT)
        sqlite3_bind_null(s, i);
    else
        sqlite3_bind_int64(s, i, v);
}

static void bind_dbl(sqlite3_stmt *s, int i, double v)
{
    if (isfinite(v))
        sqlite3_bind_double(s, i, v);
    else
        sqlite3_bind_null(s, i);
}

static const char *col_text(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t ? xstrdup((const char *)t) : NULL;
}

static int64_t col_i64(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? STORE_NULL_INT
                                                    : sqlite3_column_int64(s, i);
}

static double col_dbl(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* ---------------------------------------------------------------- writing */

static int check_writable(store *st, char *err, size_t errlen)
{
    if (!st)
        return rt_err(err, errlen, RT_EINVAL, "no store");
    if (st->readonly)
        return rt_err(err, errlen, RT_EINVAL, "%s: opened read-only", st->path);
    return 0;
}

/* Undoes the open run: its savepoint inside a batch, else its transaction. */
static void run_rollback(store *st)
{
    if (st->batch)
        sqlite3_exec(st->db, "ROLLBACK TO run; RELEASE run", NULL, NULL, NULL);
    else
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_run_begin(store *st, const store_run *r, int64_t *run_id, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    char now[32];
    int rc;

    *run_id = 0;
    if ((rc = check_writable(st, err, errlen)))
        return rc;
    if (st->open_run)
        return rt_err(err, errlen, RT_EINVAL, "run %lld is still open", (long long)st->open_run);
    if (r->label && (!*r->label || all_digits(r->label)))
        return rt_err(err, errlen, RT_EINVAL,
                      "bad label '%s': a label must not be empty or a number", r->label);
    if (r->backend && strcmp(r->backend, "sim") != 0 && strcmp(r->backend, "board") != 0 &&
        strcmp(r->backend, "predict") != 0 && strcmp(r->backend, "toolkit") != 0)
        return rt_err(err, errlen, RT_EINVAL, "bad backend '%s' (sim, board, predict or toolkit)",
                      r->backend);
    if ((rc = db_exec(st, st->batch ? "SAVEPOINT run" : "BEGIN IMMEDIATE", err, errlen)))
        return rc;

    if (r->label) {
        if ((rc = db_prepare(st, "SELECT id FROM runs WHERE label = ?", &s, err, errlen)))
            goto fail;
        bind_text(s, 1, r->label);
        if (sqlite3_step(s) == SQLITE_ROW) {
            rc = rt_err(err, errlen, RT_EINVAL, "label '%s' is already used by run %lld",
                        r->label, (long long)sqlite3_column_int64(s, 0));
            goto fail;
        }
        sqlite3_finalize(s);
        s = NULL;
    }
    if ((rc = db_prepare(st,
                         "INSERT INTO runs (label, time, model_path, model_sha256, "
                         "model_format, platform, backend, quant, quant_algo, quant_method, "
                         "threads, iterations, seed, inputs_json, total_us, status, "
                         "tool_version, extra_json, npu_us, host_min_us, host_p90_us, "
                         "host_stddev_us, warmup, dump_dir, dump_sha256, weight_bytes, "
                         "internal_bytes, env_json) "
                         "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         &s, err, errlen)))
        goto fail;
    if (!r->time)
        rt_iso_time(now, sizeof now);
    bind_text(s, 1, r->label);
    bind_text(s, 2, r->time ? r->time : now);
    bind_text(s, 3, r->model_path);
    bind_text(s, 4, r->model_sha256);
    bind_text(s, 5, r->model_format);
    bind_text(s, 6, r->platform);
    bind_text(s, 7, r->backend);
    bind_text(s, 8, r->quant);
    bind_text(s, 9, r->quant_algo);
    bind_text(s, 10, r->quant_method);
    bind_i64(s, 11, r->threads);
    bind_i64(s, 12, r->iterations);
    bind_i64(s, 13, r->seed);
    bind_text(s, 14, r->inputs_json);
    bind_dbl(s, 15, r->total_us);
    bind_text(s, 16, r->status ? r->status : "ok");
    bind_text(s, 17, r->tool_version);
    bind_text(s, 18, r->extra_json);
    bind_dbl(s, 19, r->npu_us);
    bind_dbl(s, 20, r->host_min_us);
    bind_dbl(s, 21, r->host_p90_us);
    bind_dbl(s, 22, r->host_stddev_us);
    bind_i64(s, 23, r->warmup);
    bind_text(s, 24, r->dump_dir);
    bind_text(s, 25, r->dump_sha256);
    bind_i64(s, 26, r->weight_bytes);
    bind_i64(s, 27, r->internal_bytes);
    bind_text(s, 28, r->env_json);
    if (sqlite3_step(s) != SQLITE_DONE) {
        rc = db_fail(st, err, errlen, "cannot add the run");
        goto fail;
    }
    sqlite3_finalize(s);
    *run_id = sqlite3_last_insert_rowid(st->db);
    st->open_run = *run_id;
    return 0;
fail:
    sqlite3_finalize(s);
    run_rollback(st);
    return rc;
}

static int check_open(store *st, int64_t run_id, char *err, size_t errlen)
{
    int rc = check_writable(st, err, errlen);
    if (rc)
        return rc;
    if (!st->open_run || st->open_run != run_id)
        return rt_err(err, errlen, RT_EINVAL, "run %lld is not open for writing",
                      (long long)run_id);
    return 0;
}

int store_layer_add(store *st, int64_t run_id, const store_layer *l, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if ((rc = check_open(st, run_id, err, errlen)))
        return rc;
    if (l->target && strcmp(l->target, "NPU") != 0 && strcmp(l->target, "CPU") != 0)
        return rt_err(err, errlen, RT_EINVAL, "layer %lld: bad target '%s' (NPU or CPU)",
                      (long long)l->idx, l->target);
    if ((rc = row_prepare(st, ROW_LAYER,
                         "INSERT INTO layers (run_id, " LAYER_COLS ") VALUES "
                         "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_int64(s, 2, l->idx);
    bind_text(s, 3, l->node);
    bind_text(s, 4, l->op);
    bind_text(s, 5, l->name);
    bind_text(s, 6, l->in_shapes);
    bind_text(s, 7, l->out_shapes);
    bind_text(s, 8, l->dtype);
    bind_dbl(s, 9, l->host_us);
    bind_i64(s, 10, l->npu_cycles);
    bind_i64(s, 11, l->ddr_cycles);
    bind_i64(s, 12, l->total_cycles);
    bind_dbl(s, 13, l->time_us);
    bind_dbl(s, 14, l->mac_usage);
    bind_text(s, 15, l->target);
    bind_text(s, 16, l->cpu_reason);
    bind_dbl(s, 17, l->sram_hit);
    bind_dbl(s, 18, l->rw_kb);
    bind_text(s, 19, l->bound);
    bind_text(s, 20, l->workload);
    bind_i64(s, 21, l->tasks);
    bind_text(s, 22, l->npu_op);
    bind_dbl(s, 23, l->frame_us);
    bind_text(s, 24, l->npu_dtype);
    if (sqlite3_step(s) != SQLITE_DONE) {
        if ((sqlite3_extended_errcode(st->db) & 0xff) == SQLITE_CONSTRAINT)
            rc = rt_err(err, errlen, RT_EINVAL, "layer %lld added twice", (long long)l->idx);
        else
            rc = db_fail(st, err, errlen, "cannot add a layer");
    }
    row_done(s);
    return rc;
}

int store_output_add(store *st, int64_t run_id, const store_output *o, char *err,
                     size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if ((rc = check_open(st, run_id, err, errlen)))
        return rc;
    if (!o->name)
        return rt_err(err, errlen, RT_EINVAL, "output %lld has no name", (long long)o->idx);
    if ((rc = row_prepare(st, ROW_OUTPUT,
                         "INSERT INTO outputs (run_id, idx, name, shape, dtype, dump_file) "
                         "VALUES (?,?,?,?,?,?)",
                         &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_int64(s, 2, o->idx);
    bind_text(s, 3, o->name);
    bind_text(s, 4, o->shape);
    bind_text(s, 5, o->dtype);
    bind_text(s, 6, o->dump_file);
    if (sqlite3_step(s) != SQLITE_DONE) {
        if ((sqlite3_extended_errcode(st->db) & 0xff) == SQLITE_CONSTRAINT)
            rc = rt_err(err, errlen, RT_EINVAL, "output %lld added twice", (long long)o->idx);
        else
            rc = db_fail(st, err, errlen, "cannot add an output");
    }
    row_done(s);
    return rc;
}

int store_run_commit(store *st, int64_t run_id, double total_us, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if ((rc = check_open(st, run_id, err, errlen)))
        return rc;
    if ((rc = db_prepare(st,
                         "UPDATE runs SET total_us = ?, n_layers = (SELECT COUNT(*) FROM "
                         "layers WHERE run_id = runs.id) WHERE id = ?",
                         &s, err, errlen)))
        goto fail;
    bind_dbl(s, 1, total_us);
    sqlite3_bind_int64(s, 2, run_id);
    if (sqlite3_step(s) != SQLITE_DONE) {
        rc = db_fail(st, err, errlen, "cannot finish the run");
        goto fail;
    }
    if ((rc = db_exec(st, st->batch ? "RELEASE run" : "COMMIT", err, errlen)))
        goto fail;
    sqlite3_finalize(s);
    st->open_run = 0;
    return 0;
fail:
    sqlite3_finalize(s);
    store_run_abort(st, run_id);
    return rc;
}

void store_run_abort(store *st, int64_t run_id)
{
    if (!st || !st->open_run || st->open_run != run_id)
        return;
    run_rollback(st);
    st->open_run = 0;
}

int store_batch_begin(store *st, char *err, size_t errlen)
{
    int rc = check_writable(st, err, errlen);
    if (rc)
        return rc;
    if (st->open_run || st->batch)
        return rt_err(err, errlen, RT_EINVAL, "a run or batch is still open");
    if ((rc = db_exec(st, "BEGIN IMMEDIATE", err, errlen)))
        return rc;
    st->batch = 1;
    return 0;
}

int store_batch_commit(store *st, char *err, size_t errlen)
{
    int rc;
    if (!st || !st->batch || st->open_run)
        return rt_err(err, errlen, RT_EINVAL, "no batch to commit, or a run is still open");
    if ((rc = db_exec(st, "COMMIT", err, errlen))) {
        store_batch_abort(st);
        return rc;
    }
    st->batch = 0;
    return 0;
}

void store_batch_abort(store *st)
{
    if (!st || !st->batch)
        return;
    sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    st->batch = 0;
    st->open_run = 0;
}

int store_delete_run(store *st, int64_t run_id, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if ((rc = check_writable(st, err, errlen)))
        return rc;
    if (st->open_run)
        return rt_err(err, errlen, RT_EINVAL, "run %lld is still open", (long long)st->open_run);
    if ((rc = db_prepare(st, "DELETE FROM runs WHERE id = ?", &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    if (sqlite3_step(s) != SQLITE_DONE)
        rc = db_fail(st, err, errlen, "cannot delete the run");
    else if (sqlite3_changes(st->db) == 0)
        rc = rt_err(err, errlen, RT_EINVAL, "no run with id %lld", (long long)run_id);
    sqlite3_finalize(s);
    return rc;
}

/* ---------------------------------------------------------------- reading */

/* Runs a prepared SELECT and collects its rows: read() fills one row of
 * `size` bytes; on a failed step the rows read so far go to release(). */
static int query_rows(store *st, sqlite3_stmt *s, size_t size, void (*read)(sqlite3_stmt *, void *),
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
        rc = db_fail(st, err, errlen, what);
        release(v, cnt);
    } else {
        *rows = v;
        *n = cnt;
    }
    sqlite3_finalize(s);
    return rc;
}

static void read_run(sqlite3_stmt *s, store_run *r)
{
    store_run_init(r);
    r->id = sqlite3_column_int64(s, 0);
    r->label = col_text(s, 1);
    r->time = col_text(s, 2);
    r->model_path = col_text(s, 3);
    r->model_sha256 = col_text(s, 4);
    r->model_format = col_text(s, 5);
    r->platform = col_text(s, 6);
    r->backend = col_text(s, 7);
    r->quant = col_text(s, 8);
    r->quant_algo = col_text(s, 9);
    r->quant_method = col_text(s, 10);
    r->threads = col_i64(s, 11);
    r->iterations = col_i64(s, 12);
    r->seed = col_i64(s, 13);
    r->inputs_json = col_text(s, 14);
    r->total_us = col_dbl(s, 15);
    r->status = col_text(s, 16);
    r->tool_version = col_text(s, 17);
    r->extra_json = col_text(s, 18);
    r->n_layers = sqlite3_column_int64(s, 19);
    r->npu_us = col_dbl(s, 20);
    r->host_min_us = col_dbl(s, 21);
    r->host_p90_us = col_dbl(s, 22);
    r->host_stddev_us = col_dbl(s, 23);
    r->warmup = col_i64(s, 24);
    r->dump_dir = col_text(s, 25);
    r->dump_sha256 = col_text(s, 26);
    r->weight_bytes = col_i64(s, 27);
    r->internal_bytes = col_i64(s, 28);
    r->env_json = col_text(s, 29);
    r->tags = col_text(s, 30);
}

void store_run_clear(store_run *r)
{
    if (!r)
        return;
    const char *strs[] = { r->label, r->time, r->model_path, r->model_sha256,
                           r->model_format, r->platform, r->backend, r->quant,
                           r->quant_algo, r->quant_method, r->inputs_json, r->status,
                           r->tool_version, r->extra_json, r->dump_dir, r->dump_sha256, r->env_json,
                           r->tags };
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

int store_list_runs(store *st, store_run **runs, int *n, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    *runs = NULL;
    *n = 0;
    if ((rc = db_prepare(st, "SELECT " RUN_COLS " FROM runs ORDER BY id", &s, err, errlen)))
        return rc;
    return query_rows(st, s, sizeof(store_run), read_run_row, free_runs, "cannot list runs",
                      (void **)runs, n, err, errlen);
}

/* Runs matching "id = ?" or "label = ?": the count, and the first into *r. */
static int find_runs(store *st, const char *where, const char *ref, store_run *r, int *count,
                     char *err, size_t errlen)
{
    char sql[512];
    sqlite3_stmt *s = NULL;
    int rc, step;

    *count = 0;
    snprintf(sql, sizeof sql, "SELECT " RUN_COLS " FROM runs WHERE %s ORDER BY id", where);
    if ((rc = db_prepare(st, sql, &s, err, errlen)))
        return rc;
    if (strcmp(where, "id = ?") == 0)
        sqlite3_bind_int64(s, 1, strtoll(ref, NULL, 10));
    else
        bind_text(s, 1, ref);
    while ((step = sqlite3_step(s)) == SQLITE_ROW)
        if ((*count)++ == 0)
            read_run(s, r);
    if (step != SQLITE_DONE) {
        rc = db_fail(st, err, errlen, "cannot read runs");
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
    if (all_digits(ref) && strlen(ref) <= 18) {
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
    l->node = col_text(s, 1);
    l->op = col_text(s, 2);
    l->name = col_text(s, 3);
    l->in_shapes = col_text(s, 4);
    l->out_shapes = col_text(s, 5);
    l->dtype = col_text(s, 6);
    l->host_us = col_dbl(s, 7);
    l->npu_cycles = col_i64(s, 8);
    l->ddr_cycles = col_i64(s, 9);
    l->total_cycles = col_i64(s, 10);
    l->time_us = col_dbl(s, 11);
    l->mac_usage = col_dbl(s, 12);
    l->target = col_text(s, 13);
    l->cpu_reason = col_text(s, 14);
    l->sram_hit = col_dbl(s, 15);
    l->rw_kb = col_dbl(s, 16);
    l->bound = col_text(s, 17);
    l->workload = col_text(s, 18);
    l->tasks = col_i64(s, 19);
    l->npu_op = col_text(s, 20);
    l->frame_us = col_dbl(s, 21);
    l->npu_dtype = col_text(s, 22);
}

void store_layers_free(store_layer *rows, int n)
{
    for (int i = 0; rows && i < n; i++) {
        store_layer *l = &rows[i];
        const char *strs[] = { l->node, l->op, l->name, l->in_shapes, l->out_shapes,
                               l->dtype, l->target, l->cpu_reason, l->bound, l->workload,
                               l->npu_op, l->npu_dtype };
        for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++)
            free((void *)strs[k]);
    }
    free(rows);
}

static void read_layer_row(sqlite3_stmt *s, void *row) { read_layer(s, row); }
static void free_layers(void *rows, int n) { store_layers_free(rows, n); }

int store_get_layers(store *st, int64_t run_id, store_layer **rows, int *n, char *err,
                     size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    *rows = NULL;
    *n = 0;
    if ((rc = db_prepare(st, "SELECT " LAYER_COLS " FROM layers WHERE run_id = ? ORDER BY idx",
                         &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    return query_rows(st, s, sizeof(store_layer), read_layer_row, free_layers,
                      "cannot read layers", (void **)rows, n, err, errlen);
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
    o->name = col_text(s, 1);
    o->shape = col_text(s, 2);
    o->dtype = col_text(s, 3);
    o->dump_file = col_text(s, 4);
}
static void free_outputs(void *rows, int n) { store_outputs_free(rows, n); }

int store_get_outputs(store *st, int64_t run_id, store_output **rows, int *n, char *err,
                      size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    *rows = NULL;
    *n = 0;
    if ((rc = db_prepare(st,
                         "SELECT idx, name, shape, dtype, dump_file FROM outputs "
                         "WHERE run_id = ? ORDER BY idx",
                         &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    return query_rows(st, s, sizeof(store_output), read_output_row, free_outputs,
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

/* ---------------------------------------------------------------- accuracy */

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
    m->cos = col_dbl(s, i);
    m->euc = col_dbl(s, i + 1);
    m->max_abs = col_dbl(s, i + 2);
    m->mean_abs = col_dbl(s, i + 3);
    m->sqnr_db = col_dbl(s, i + 4);
    m->flags = sqlite3_column_int(s, i + 5);
    m->n = -1;
}

#define ACC_COLS                                                                          \
    "idx, layer, name, op, node, fused, is_output, entire_cos, entire_euc, "             \
    "entire_max_abs, entire_mean_abs, entire_sqnr_db, entire_flags, single_cos, "         \
    "single_euc, single_max_abs, single_mean_abs, single_sqnr_db, single_flags, source"

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
    if ((rc = row_prepare(st, ROW_ACC,
                         "INSERT INTO accuracy (run_id, " ACC_COLS ") VALUES "
                         "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_int64(s, 2, a->idx);
    bind_i64(s, 3, a->layer);
    bind_text(s, 4, a->name);
    bind_text(s, 5, a->op);
    bind_text(s, 6, a->node);
    sqlite3_bind_int(s, 7, a->fused != 0);
    sqlite3_bind_int(s, 8, a->is_output != 0);
    bind_metrics(s, 9, &a->entire);
    bind_metrics(s, 15, &a->single);
    bind_text(s, 21, a->source ? a->source : STORE_ACC_QUANT);
    if (sqlite3_step(s) != SQLITE_DONE) {
        if ((sqlite3_extended_errcode(st->db) & 0xff) == SQLITE_CONSTRAINT)
            rc = rt_err(err, errlen, RT_EINVAL, "error row %lld added twice", (long long)a->idx);
        else
            rc = db_fail(st, err, errlen, "cannot add a per-layer error row");
    }
    row_done(s);
    return rc;
}

int store_accuracy_add(store *st, int64_t run_id, const store_accuracy *a, char *err,
                       size_t errlen)
{
    int rc = check_open(st, run_id, err, errlen);
    return rc ? rc : acc_insert(st, run_id, a, err, errlen);
}

int store_accuracy_replace_golden(store *st, int64_t run_id, const char *source,
                                  const store_accuracy *rows, int n, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if ((rc = check_writable(st, err, errlen)))
        return rc;
    if (st->open_run)
        return rt_err(err, errlen, RT_EINVAL, "run %lld is open for writing",
                      (long long)st->open_run);
    if (!source || !strncmp(source, STORE_ACC_QUANT, sizeof(STORE_ACC_QUANT)))
        return rt_err(err, errlen, RT_EINVAL, "an external golden needs its own source name");
    if ((rc = db_exec(st, "BEGIN IMMEDIATE", err, errlen)))
        return rc;
    if ((rc = db_prepare(st, "SELECT 1 FROM runs WHERE id = ?", &s, err, errlen)))
        goto fail;
    sqlite3_bind_int64(s, 1, run_id);
    if (sqlite3_step(s) != SQLITE_ROW)
        rc = rt_err(err, errlen, RT_EINVAL, "no run %lld", (long long)run_id);
    sqlite3_finalize(s);
    s = NULL;
    if (rc)
        goto fail;
    if ((rc = db_prepare(st, "DELETE FROM accuracy WHERE run_id = ? AND source <> '"
                         STORE_ACC_QUANT "'", &s, err, errlen)))
        goto fail;
    sqlite3_bind_int64(s, 1, run_id);
    if (sqlite3_step(s) != SQLITE_DONE)
        rc = db_fail(st, err, errlen, "cannot replace the per-layer errors");
    sqlite3_finalize(s);
    if (rc)
        goto fail;
    for (int i = 0; i < n; i++) {
        store_accuracy a = rows[i];
        a.source = source;
        if ((rc = acc_insert(st, run_id, &a, err, errlen)))
            goto fail;
    }
    if ((rc = db_exec(st, "COMMIT", err, errlen)))
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

static void read_accuracy_row(sqlite3_stmt *s, void *row)
{
    store_accuracy *a = row;
    store_accuracy_init(a);
    a->idx = sqlite3_column_int64(s, 0);
    a->layer = col_i64(s, 1);
    a->name = col_text(s, 2);
    a->op = col_text(s, 3);
    a->node = col_text(s, 4);
    a->fused = sqlite3_column_int(s, 5);
    a->is_output = sqlite3_column_int(s, 6);
    read_metrics(s, 7, &a->entire);
    read_metrics(s, 13, &a->single);
    a->source = col_text(s, 19);
}
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
    if ((rc = db_prepare(st, "SELECT " ACC_COLS " FROM accuracy WHERE run_id = ?1 AND source = "
                         "(SELECT source FROM accuracy WHERE run_id = ?1 ORDER BY source = '"
                         STORE_ACC_QUANT "' LIMIT 1) ORDER BY idx",
                         &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    return query_rows(st, s, sizeof(store_accuracy), read_accuracy_row, free_accuracy,
                      "cannot read the per-layer errors", (void **)rows, n, err, errlen);
}

/* -------------------------------------------------------------- preflight */

int store_preflight(const char *path, const char *label, char *err, size_t errlen)
{
    store *st = NULL;
    sqlite3_stmt *s = NULL;
    char sql[64];
    int64_t ver;
    int rc, in_tx = 0;

    if (label && (!*label || all_digits(label)))
        return rt_err(err, errlen, RT_EINVAL,
                      "bad label '%s': a label must not be empty or a number", label);
    if ((rc = store_open(path, &st, err, errlen)))
        return rc;
    if (sqlite3_db_readonly(st->db, "main") == 1) {
        rc = rt_err(err, errlen, RT_EIO, "%s: the database file is read-only", path);
        goto out;
    }
    /* Take the write lock and change a page (to the same value), so that the
     * journal is created as recording will need it; then undo. */
    if ((rc = db_exec(st, "BEGIN IMMEDIATE", err, errlen)))
        goto out;
    in_tx = 1;
    if ((rc = pragma_int(st, "user_version", &ver, err, errlen)))
        goto out;
    snprintf(sql, sizeof sql, "PRAGMA user_version = %lld", (long long)ver);
    if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        rc = rt_err(err, errlen, RT_EIO,
                    "%s: cannot write to the database: %s (its folder must be writable too, "
                    "for the journal)", path, sqlite3_errmsg(st->db));
        goto out;
    }
    if (label) {
        if ((rc = db_prepare(st, "SELECT id FROM runs WHERE label = ?", &s, err, errlen)))
            goto out;
        bind_text(s, 1, label);
        int step = sqlite3_step(s);
        if (step == SQLITE_ROW)
            rc = rt_err(err, errlen, RT_EEXIST, "label '%s' is already used by run %lld",
                        label, (long long)sqlite3_column_int64(s, 0));
        else if (step != SQLITE_DONE)
            rc = db_fail(st, err, errlen, "cannot read runs");
    }
out:
    sqlite3_finalize(s);
    if (in_tx)
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    store_close(st);
    return rc;
}

/* ---------------------------------------------------------------- managing runs (v3) */

/* Runs one statement with up to two bound values (an id, then text) and expects
 * it to change `want` rows (-1: any number). */
static int exec_bound(store *st, const char *sql, int64_t id, const char *text, int want,
                      const char *what, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if ((rc = check_writable(st, err, errlen)))
        return rc;
    if (st->open_run)
        return rt_err(err, errlen, RT_EINVAL, "run %lld is still open", (long long)st->open_run);
    if ((rc = db_prepare(st, sql, &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, id);
    bind_text(s, 2, text);
    if (sqlite3_step(s) != SQLITE_DONE)
        rc = db_fail(st, err, errlen, what);
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
    if ((rc = sql_int(st, sql, &n, err, errlen)))
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

    if (label && (!*label || all_digits(label)))
        return rt_err(err, errlen, RT_EINVAL,
                      "bad label '%s': a label must not be empty or a number", label);
    if (label) {
        if ((rc = db_prepare(st, "SELECT id FROM runs WHERE label = ? AND id <> ?", &s, err,
                             errlen)))
            return rc;
        bind_text(s, 1, label);
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

    if ((rc = check_open(st, run_id, err, errlen)))
        return rc;
    if ((rc = db_prepare(st,
                         "INSERT INTO load_samples (run_id, idx, t_us, core, load_pct) VALUES "
                         "(?1, (SELECT COUNT(*) FROM load_samples WHERE run_id = ?1), ?2, ?3, ?4)",
                         &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    bind_dbl(s, 2, ls->t_us);
    bind_i64(s, 3, ls->core);
    bind_dbl(s, 4, ls->load_pct);
    if (sqlite3_step(s) != SQLITE_DONE)
        rc = db_fail(st, err, errlen, "cannot add the load sample");
    sqlite3_finalize(s);
    return rc;
}

static void read_load_row(sqlite3_stmt *s, void *row)
{
    store_load_sample *l = row;
    l->t_us = col_dbl(s, 0);
    l->core = col_i64(s, 1);
    l->load_pct = col_dbl(s, 2);
}

static void free_load(void *rows, int n) { (void)n; free(rows); }

int store_get_load(store *st, int64_t run_id, store_load_sample **rows, int *n, char *err,
                   size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    *rows = NULL;
    *n = 0;
    if ((rc = db_prepare(st, "SELECT t_us, core, load_pct FROM load_samples WHERE run_id = ? "
                             "ORDER BY idx", &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    return query_rows(st, s, sizeof(store_load_sample), read_load_row, free_load,
                      "cannot read the load samples", (void **)rows, n, err, errlen);
}
