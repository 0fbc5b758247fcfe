/* analyze/store_open.c — opening a database: the schema and its migration steps,
 * refusing what is not ours, reading a crashed writer's file, preflight. */
#include "analyze/store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
     * while they ran; the layer count is kept on the run, and the graph outputs'
     * error rows have an index of their own, so that listing many runs reads
     * neither layer rows nor every error row */
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
    "CREATE INDEX accuracy_outputs ON accuracy(run_id, source, idx) WHERE is_output = 1;"
    "ALTER TABLE runs ADD COLUMN n_layers INTEGER;"
    "UPDATE runs SET n_layers = (SELECT COUNT(*) FROM layers WHERE run_id = runs.id);"
    /* per layer, the output tensor's quantization and the statistics of its values */
    "ALTER TABLE layers ADD COLUMN out_scale REAL;"
    "ALTER TABLE layers ADD COLUMN out_zp INTEGER;"
    "ALTER TABLE layers ADD COLUMN out_qtype TEXT;"
    "ALTER TABLE layers ADD COLUMN out_min REAL;"
    "ALTER TABLE layers ADD COLUMN out_max REAL;"
    "ALTER TABLE layers ADD COLUMN out_mean REAL;"
    "ALTER TABLE layers ADD COLUMN out_std REAL;",
    /* v4: a layer row is keyed by run id * 2^20 + index, the table's rowid, so
     * adding one writes one b-tree instead of the table and its (run_id, idx)
     * index. No foreign key, whose cascade would scan the table: a trigger
     * deletes a deleted run's layers by key range, whoever deletes it. */
    "CREATE TABLE layers_v4 ("
    "  key INTEGER PRIMARY KEY,"
    "  run_id INTEGER NOT NULL,"
    "  idx INTEGER NOT NULL,"
    "  node TEXT, op TEXT, name TEXT, in_shapes TEXT, out_shapes TEXT, dtype TEXT,"
    "  host_us REAL,"
    "  npu_cycles INTEGER, ddr_cycles INTEGER, total_cycles INTEGER,"
    "  time_us REAL, mac_usage REAL, target TEXT, cpu_reason TEXT,"
    "  sram_hit REAL, rw_kb REAL, bound TEXT, workload TEXT, tasks INTEGER,"
    "  npu_op TEXT, frame_us REAL, npu_dtype TEXT,"
    "  out_scale REAL, out_zp INTEGER, out_qtype TEXT,"
    "  out_min REAL, out_max REAL, out_mean REAL, out_std REAL,"
    /* a row added by hand without its key is refused, not lost to its run */
    "  CHECK (key = run_id * 1048576 + idx));"
    "INSERT INTO layers_v4 SELECT run_id * 1048576 + idx, run_id, idx, node, op, name,"
    "  in_shapes, out_shapes, dtype, host_us, npu_cycles, ddr_cycles, total_cycles, time_us,"
    "  mac_usage, target, cpu_reason, sram_hit, rw_kb, bound, workload, tasks, npu_op,"
    "  frame_us, npu_dtype, out_scale, out_zp, out_qtype, out_min, out_max, out_mean, out_std"
    "  FROM layers ORDER BY run_id, idx;"
    "DROP TABLE layers;"
    "ALTER TABLE layers_v4 RENAME TO layers;"
    "CREATE TRIGGER runs_delete_layers AFTER DELETE ON runs BEGIN"
    "  DELETE FROM layers WHERE key BETWEEN old.id * 1048576 AND old.id * 1048576 + 1048575;"
    "END;",
    /* v5: the facts extra_json and env_json carried that a reader needs, typed
     * (the rows move in sq_migrate_facts, in this step's transaction) */
    "ALTER TABLE layers ADD COLUMN workload_cores INTEGER;"
    "ALTER TABLE layers ADD COLUMN workload0 REAL;"
    "ALTER TABLE layers ADD COLUMN workload1 REAL;"
    "ALTER TABLE layers ADD COLUMN workload2 REAL;"
    "ALTER TABLE runs ADD COLUMN perf_table_us REAL;"
    "ALTER TABLE runs ADD COLUMN npu_clock_mhz INTEGER;"
    "ALTER TABLE runs ADD COLUMN ddr_clock_mhz INTEGER;"
    "ALTER TABLE runs ADD COLUMN npu_table_layers INTEGER;"
    "ALTER TABLE runs ADD COLUMN calib_samples INTEGER;"
    "ALTER TABLE runs ADD COLUMN int8_layers INTEGER;"
    "ALTER TABLE runs ADD COLUMN fp16_layers INTEGER;"
    "ALTER TABLE runs ADD COLUMN cfg_params INTEGER;"
    "ALTER TABLE runs ADD COLUMN import_kind TEXT;"
    "ALTER TABLE runs ADD COLUMN log_total_us REAL;"
    "ALTER TABLE runs ADD COLUMN perf_run_us INTEGER;"
    "ALTER TABLE runs ADD COLUMN share_compute_pct REAL;"
    "ALTER TABLE runs ADD COLUMN share_ddr_pct REAL;"
    "ALTER TABLE runs ADD COLUMN share_cpu_pct REAL;"
    "ALTER TABLE runs ADD COLUMN cost_model_version INTEGER;"
    "ALTER TABLE runs ADD COLUMN cost_model_fingerprint TEXT;"
    "CREATE TABLE npu_load ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  core INTEGER NOT NULL,"
    "  load_pct INTEGER NOT NULL CHECK (load_pct BETWEEN 0 AND 100),"
    "  PRIMARY KEY (run_id, core));"
    "CREATE TABLE npu_rows ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  at INTEGER NOT NULL, skip INTEGER NOT NULL, id INTEGER, op TEXT, datatype TEXT,"
    "  dtype INTEGER, target TEXT, n_in INTEGER, n_out INTEGER, in_shapes TEXT, out_shapes TEXT,"
    "  ddr_cycles INTEGER, npu_cycles INTEGER, total_cycles INTEGER, time_us REAL, rw_kb REAL,"
    "  macs INTEGER NOT NULL, n_cores INTEGER NOT NULL,"
    "  mac_usage0 REAL, mac_usage1 REAL, mac_usage2 REAL,"
    "  workload0 REAL, workload1 REAL, workload2 REAL,"
    "  tasks INTEGER, fullname TEXT, note TEXT,"
    "  PRIMARY KEY (run_id, at));",
    /* v6: a level-4 row's share of the predicted frame, so that `compare`
     * gives a prediction's Input/OutputOperator the time a vendor file's have */
    "ALTER TABLE npu_rows ADD COLUMN frame_us REAL;",
};
#define N_MIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))
_Static_assert(N_MIGRATIONS == STORE_SCHEMA_VERSION, "one migration step per schema version");

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

static int migrate(store *st, char *err, size_t errlen)
{
    char sql[160], now[32];
    int64_t ver;
    int rc;

    /* a new file gets 16 KiB pages (an existing one keeps its own): a 100 MB
     * import writes a quarter of the pages, each one system call */
    if ((rc = sq_db_exec(st, "PRAGMA page_size = 16384", err, errlen)))
        return rc;
    for (;;) {
        /* IMMEDIATE: take the write lock before looking, so that two processes
         * creating the same new file do not both run a step */
        if ((rc = sq_db_exec(st, "BEGIN IMMEDIATE", err, errlen)))
            return rc;
        if ((rc = sq_pragma_int(st, "user_version", &ver, err, errlen)))
            goto fail;
        if (ver >= STORE_SCHEMA_VERSION) {
            sq_db_exec(st, "COMMIT", NULL, 0);
            return 0;
        }
        if ((rc = sq_db_exec(st, migrations[ver], err, errlen)))
            goto fail;
        if (ver == 4 && (rc = sq_migrate_facts(st, err, errlen)))
            goto fail;
        rt_iso_time(now, sizeof now);
        snprintf(sql, sizeof sql,
                 "PRAGMA application_id = %d; PRAGMA user_version = %d;"
                 "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', '%d');",
                 STORE_APPLICATION_ID, (int)ver + 1, (int)ver + 1);
        if ((rc = sq_db_exec(st, sql, err, errlen)))
            goto fail;
        if (ver == 0) {
            snprintf(sql, sizeof sql,
                     "INSERT INTO meta (key, value) VALUES ('created_at', '%s')", now);
            if ((rc = sq_db_exec(st, sql, err, errlen)))
                goto fail;
        }
        if ((rc = sq_db_exec(st, "COMMIT", err, errlen)))
            goto fail;
    }
fail:
    sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* How store_open_mode opens: creating a missing file, reading only, or
 * changing a database that must exist. */
enum { OPEN_CREATE, OPEN_READONLY, OPEN_EXISTING };

/* A non-empty file that does not start with SQLite's magic is refused before
 * SQLite sees it (SQLite would only complain at the first query). */
static int check_file(const char *path, int mode, char *err, size_t errlen)
{
    static const char magic[16] = "SQLite format 3";
    char head[16];
    struct stat sb;
    FILE *f;
    size_t n;

    if (stat(path, &sb) != 0) {
        if (errno == ENOENT && mode == OPEN_CREATE)
            return 0;
        /* reading a database that is not there: most often no run was recorded
         * yet, or it was recorded elsewhere */
        if (errno == ENOENT)
            return rt_err(err, errlen, RT_EIO, "%s: no such database: no run recorded there "
                          "yet (rknn-trace run MODEL records one; --db PATH or "
                          "$RKNN_TRACE_DB names another)", path);
        return rt_err(err, errlen, RT_EIO, "%s: %s", path, strerror(errno));
    }
    /* a device, FIFO or folder is refused before SQLite opens it: SQLite
     * would write PATH-journal beside it, block on a FIFO, or replace nothing
     * it could read back */
    if (!S_ISREG(sb.st_mode))
        return rt_err(err, errlen, RT_EIO, "%s: is %s, not a database file", path,
                      S_ISDIR(sb.st_mode) ? "a directory" : S_ISCHR(sb.st_mode) ? "a character device"
                      : S_ISBLK(sb.st_mode) ? "a block device" : S_ISFIFO(sb.st_mode) ? "a FIFO"
                      : "a socket");
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

/* SQLite's memory statistics take a process-wide mutex on every allocation;
 * nothing reads them. Set before SQLite initialises (a later call is refused
 * harmlessly). */
static void sqlite_setup(void)
{
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/* Opens path into st->db and sets what every handle needs. A handle is used by
 * one thread at a time (store.h), so SQLite's per-call mutex is left out. */
static int open_db(store *st, const char *path, int flags, char *err, size_t errlen)
{
    static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

    pthread_once(&setup_once, sqlite_setup);
    if (sqlite3_open_v2(path, &st->db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        return rt_err(err, errlen, RT_EIO, "%s: cannot open database: %s", st->path,
                      st->db ? sqlite3_errmsg(st->db) : "out of memory");
    sqlite3_busy_timeout(st->db, 10000);
    sqlite3_extended_result_codes(st->db, 1);
    /* a database file is input like any other: its schema may not run
     * functions with side effects nor be edited through writable_schema */
    sqlite3_db_config(st->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(st->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    return sq_db_exec(st, "PRAGMA foreign_keys = ON", err, errlen);
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
        (rc = sq_pragma_int(st, "application_id", &app, err, errlen)))
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
    rc = sq_pragma_int(st, "application_id", &app, err, errlen);
    if (rc && (sqlite3_extended_errcode(st->db) & 0xff) == SQLITE_READONLY) {
        close_db(st);
        rc = open_private_copy(st, err, errlen);
    }
    if (!rc)
        rc = sq_db_exec(st, "PRAGMA query_only = ON", err, errlen);
    return rc;
}

static int store_open_mode(const char *path, int mode, store **out, char *err,
                           size_t errlen)
{
    store *st = NULL;
    int64_t app, ver, objects;
    int rc;

    *out = NULL;
    if (!path || !*path)
        return rt_err(err, errlen, RT_EINVAL, "no database path");
    if ((rc = check_file(path, mode, err, errlen)))
        return rc;
    const int readonly = mode == OPEN_READONLY;
    st = xcalloc(1, sizeof *st);
    st->path = xstrdup(path);
    st->readonly = readonly;
    rc = readonly ? open_reader(st, err, errlen)
                  : open_db(st, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, err, errlen);
    if (rc ||
        (rc = sq_pragma_int(st, "application_id", &app, err, errlen)) ||
        (rc = sq_pragma_int(st, "user_version", &ver, err, errlen)) ||
        (rc = sq_sql_int(st, "SELECT COUNT(*) FROM sqlite_master", &objects, err, errlen)))
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
        if (readonly && (rc = sq_db_exec(st, "PRAGMA query_only = OFF", err, errlen)))
            goto fail;
        if ((rc = migrate(st, err, errlen)))
            goto fail;
        if (readonly && (rc = sq_db_exec(st, "PRAGMA query_only = ON", err, errlen)))
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
    return store_open_mode(path, OPEN_CREATE, out, err, errlen);
}

int store_open_readonly(const char *path, store **out, char *err, size_t errlen)
{
    return store_open_mode(path, OPEN_READONLY, out, err, errlen);
}

int store_open_existing(const char *path, store **out, char *err, size_t errlen)
{
    return store_open_mode(path, OPEN_EXISTING, out, err, errlen);
}

void store_close(store *st)
{
    if (!st)
        return;
    if (st->open_run || st->batch)
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    if (st->batch && st->batch_fd >= 0)
        close(st->batch_fd);
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
    r->perf_table_us = r->log_total_us = NAN;
    r->share_pct[0] = r->share_pct[1] = r->share_pct[2] = NAN;
    r->npu_clock_mhz = r->ddr_clock_mhz = r->perf_run_us = r->cost_model_version = STORE_NULL_INT;
    r->npu_table_layers = STORE_NULL_INT;
    r->calib_samples = r->int8_layers = r->fp16_layers = r->cfg_params = STORE_NULL_INT;
}

void store_layer_init(store_layer *l)
{
    memset(l, 0, sizeof *l);
    l->npu_cycles = l->ddr_cycles = l->total_cycles = l->tasks = l->out_zp = STORE_NULL_INT;
    l->table_id = STORE_NULL_INT;
    l->host_us = l->time_us = l->mac_usage = l->sram_hit = l->rw_kb = l->frame_us = NAN;
    l->out_scale = l->out_min = l->out_max = l->out_mean = l->out_std = NAN;
    for (int c = 0; c < STORE_NPU_ROW_CORES; c++)
        l->workload_pct[c] = NAN;
}

void store_output_init(store_output *o)
{
    memset(o, 0, sizeof *o);
}

void store_npu_row_init(store_npu_row *r)
{
    memset(r, 0, sizeof *r);
    r->id = r->dtype = r->n_in = r->n_out = r->tasks = STORE_NULL_INT;
    r->ddr_cycles = r->npu_cycles = r->total_cycles = STORE_NULL_INT;
    r->time_us = r->rw_kb = r->frame_us = NAN;
    for (int c = 0; c < STORE_NPU_ROW_CORES; c++)
        r->mac_usage[c] = r->workload[c] = NAN;
}

/* -------------------------------------------------------------- preflight */

int store_preflight(const char *path, const char *label, char *err, size_t errlen)
{
    store *st = NULL;
    sqlite3_stmt *s = NULL;
    char sql[64];
    int64_t ver;
    int rc, in_tx = 0;

    if (label && (!*label || sq_all_digits(label)))
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
    if ((rc = sq_db_exec(st, "BEGIN IMMEDIATE", err, errlen)))
        goto out;
    in_tx = 1;
    if ((rc = sq_pragma_int(st, "user_version", &ver, err, errlen)))
        goto out;
    snprintf(sql, sizeof sql, "PRAGMA user_version = %lld", (long long)ver);
    if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        rc = rt_err(err, errlen, RT_EIO,
                    "%s: cannot write to the database: %s (its folder must be writable too, "
                    "for the journal)", path, sqlite3_errmsg(st->db));
        goto out;
    }
    if (label) {
        if ((rc = sq_db_prepare(st, "SELECT id FROM runs WHERE label = ?", &s, err, errlen)))
            goto out;
        sq_bind_text(s, 1, label);
        int step = sqlite3_step(s);
        if (step == SQLITE_ROW)
            rc = rt_err(err, errlen, RT_EEXIST, "label '%s' is already used by run %lld",
                        label, (long long)sqlite3_column_int64(s, 0));
        else if (step != SQLITE_DONE)
            rc = sq_db_fail(st, err, errlen, "cannot read runs");
    }
out:
    sqlite3_finalize(s);
    if (in_tx)
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    store_close(st);
    return rc;
}

