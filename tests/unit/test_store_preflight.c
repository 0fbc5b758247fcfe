/* tests/unit/test_store_preflight.c — store_preflight: a new path becomes an
 * empty database of ours; a free label passes, a taken one is RT_EEXIST naming
 * the run, a numeric one RT_EINVAL; a foreign SQLite file, a folder and a path
 * under a regular file are refused; a database held by another writer is refused
 * once the busy timeout ends (not tested: 10 s). The preflight leaves an existing
 * file byte for byte as it was and no journal (compared here with the file read
 * before and after). Oracle: the sqlite3 library directly. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/store.h"
#include "tests/test.h"
#include "tests/test_sql.h"
#include "util/util.h"

static char dir[] = "/tmp/test_preflight_XXXXXX";

static char *path_of(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

int main(void)
{
    char err[512];
    store *st = NULL;
    int64_t id = 0;
    int rc;

    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    const char *db = path_of("runs.db");

    rc = store_preflight(db, "a", err, sizeof err);
    CHECK(rc == 0, "new database: %s", err);
    CHECK(sql_int(db, "PRAGMA application_id") == STORE_APPLICATION_ID &&
              sql_int(db, "SELECT count(*) FROM runs") == 0,
          "a new path becomes an empty database of ours");

    /* one run labelled "taken" */
    store_run r;
    store_run_init(&r);
    r.label = "taken";
    rc = store_open(db, &st, err, sizeof err);
    if (!rc)
        rc = store_run_begin(st, &r, &id, err, sizeof err);
    if (!rc)
        rc = store_run_commit(st, id, 1.0, err, sizeof err);
    store_close(st);
    CHECK(rc == 0 && id > 0, "add a run: %s", err);

    void *before = NULL, *after = NULL;
    size_t nb = 0, na = 0;
    rt_read_file(db, &before, &nb, err, sizeof err);
    rc = store_preflight(db, "free", err, sizeof err);
    CHECK(rc == 0, "free label: %s", err);
    rc = store_preflight(db, NULL, err, sizeof err);
    CHECK(rc == 0, "no label: %s", err);
    rc = store_preflight(db, "taken", err, sizeof err);
    char want[64];
    snprintf(want, sizeof want, "label 'taken' is already used by run %lld", (long long)id);
    CHECK(rc == RT_EEXIST && strstr(err, want), "taken label: %d %s", rc, err);
    rc = store_preflight(db, "42", err, sizeof err);
    CHECK(rc == RT_EINVAL && strstr(err, "bad label"), "numeric label: %d %s", rc, err);
    rt_read_file(db, &after, &na, err, sizeof err);
    CHECK(before && after && nb == na && !memcmp(before, after, nb),
          "the preflight leaves the file as it was (%zu vs %zu bytes)", nb, na);
    CHECK(access(path_of("runs.db-journal"), F_OK) != 0, "no journal left");
    free(before);
    free(after);

    /* not ours, not a file, not creatable */
    sqlite3 *o = NULL;
    sqlite3_open(path_of("other.db"), &o);
    sqlite3_exec(o, "CREATE TABLE t(x)", NULL, NULL, NULL);
    sqlite3_close(o);
    rc = store_preflight(path_of("other.db"), NULL, err, sizeof err);
    CHECK(rc == RT_EFORMAT && strstr(err, "not an rknn-trace database"), "foreign: %d %s", rc, err);
    mkdir(path_of("folder.db"), 0755);
    rc = store_preflight(path_of("folder.db"), NULL, err, sizeof err);
    CHECK(rc == RT_EIO && strstr(err, "is a directory"), "folder: %d %s", rc, err);
    FILE *f = fopen(path_of("plain"), "w");
    if (f)
        fclose(f);
    rc = store_preflight(path_of("plain/x.db"), NULL, err, sizeof err);
    CHECK(rc != 0 && strstr(err, "plain/x.db"), "under a regular file: %d %s", rc, err);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0, "cleanup");
    TEST_END();
}
