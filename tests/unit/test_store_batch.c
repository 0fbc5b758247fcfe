/* tests/unit/test_store_batch.c — several runs in one batch transaction: an
 * aborted run inside the batch leaves nothing and its neighbours stay; nothing is
 * visible to another connection before the batch commits; an aborted batch, or a
 * store closed (or a process killed) with its batch open, leaves none of its runs.
 * A batch that only adds runs skips the foreign key checks and nothing else.
 * A batch past the rows that start the kernel's writeback (store_write.c)
 * keeps every row and no file open after it. Row counts are read with sqlite3
 * directly. */
#include <dirent.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/store.h"
#include "tests/test.h"
#include "tests/test_sql.h"
#include "util/util.h"

/* One run of n layers; abort instead of commit when asked. */
static int add_run(store *st, const char *label, int n, int abort_it, char *err, size_t errlen)
{
    store_run r;
    int64_t id = 0;
    int rc;
    store_run_init(&r);
    r.label = label;
    r.backend = "board";
    if ((rc = store_run_begin(st, &r, &id, err, errlen)))
        return rc;
    for (int i = 0; i < n && !rc; i++) {
        store_layer l;
        store_layer_init(&l);
        l.idx = i;
        l.op = "Conv";
        rc = store_layer_add(st, id, &l, err, errlen);
    }
    if (rc || abort_it) {
        store_run_abort(st, id);
        return rc;
    }
    return store_run_commit(st, id, 1.0, err, errlen);
}

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

int main(void)
{
    char dir[] = "/tmp/test_store_batch_XXXXXX", path[300], err[512] = "";
    store *st = NULL;

    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/b.db", dir);
    CHECK(store_open(path, &st, err, sizeof err) == 0, "open: %s", err);
    CHECK(add_run(st, "before", 2, 0, err, sizeof err) == 0, "a run outside a batch: %s", err);

    /* a batch: a, (b aborted), c; invisible until committed */
    CHECK(store_batch_begin(st, err, sizeof err) == 0, "batch: %s", err);
    CHECK(store_batch_begin(st, err, sizeof err) == RT_EINVAL, "no batch inside a batch");
    CHECK(add_run(st, "a", 3, 0, err, sizeof err) == 0, "a: %s", err);
    CHECK(add_run(st, "b", 4, 1, err, sizeof err) == 0, "b aborted: %s", err);
    CHECK(add_run(st, "c", 5, 0, err, sizeof err) == 0, "c: %s", err);
    CHECK(add_run(st, "a", 1, 0, err, sizeof err) != 0, "a label taken inside the batch");
    CHECK(sql_int(path, "SELECT COUNT(*) FROM runs") == 1, "nothing visible before the commit");
    CHECK(store_batch_commit(st, err, sizeof err) == 0, "commit: %s", err);
    CHECK(sql_int(path, "SELECT COUNT(*) FROM runs") == 3, "before, a, c");
    CHECK(sql_int(path, "SELECT COUNT(*) FROM runs WHERE label = 'b'") == 0, "b left nothing");
    CHECK(sql_int(path, "SELECT COUNT(*) FROM layers") == 2 + 3 + 5, "layers of before, a, c");

    /* a batch that only adds: the same rows, no delete inside it, and the run
     * references checked again after it (a delete cascades to the layers) */
    CHECK(store_batch_begin_adding(st, err, sizeof err) == 0, "adding batch: %s", err);
    CHECK(add_run(st, "f", 4, 0, err, sizeof err) == 0, "f: %s", err);
    CHECK(add_run(st, "g", 3, 1, err, sizeof err) == 0, "g aborted: %s", err);
    CHECK(store_delete_run(st, 1, err, sizeof err) == RT_EINVAL, "no delete in an adding batch");
    CHECK(store_batch_commit(st, err, sizeof err) == 0, "adding commit: %s", err);
    CHECK(sql_int(path, "SELECT COUNT(*) FROM layers WHERE run_id = "
                        "(SELECT id FROM runs WHERE label = 'f')") == 4, "f's 4 layers");
    CHECK(sql_int(path, "SELECT COUNT(*) FROM runs WHERE label = 'g'") == 0 &&
              sql_int(path, "SELECT COUNT(*) FROM layers") == 2 + 3 + 5 + 4,
          "g left nothing");
    {
        store_run r;
        CHECK(store_get_run(st, "f", &r, err, sizeof err) == 0, "f: %s", err);
        CHECK(store_delete_run(st, r.id, err, sizeof err) == 0, "delete f: %s", err);
        store_run_clear(&r);
    }
    CHECK(sql_int(path, "SELECT COUNT(*) FROM layers") == 2 + 3 + 5,
          "deleting f after the batch took its layers (foreign keys on again)");
    CHECK(sql_int(path, "SELECT COUNT(*) FROM pragma_foreign_key_check") == 0, "no dangling row");

    /* a batch long enough for several writeback hints (one per 16,384 rows) */
    {
        int fds = open_fds(), rc = 0;
        CHECK(store_batch_begin_adding(st, err, sizeof err) == 0, "long batch: %s", err);
        for (int k = 0; k < 40 && !rc; k++) {
            char lab[32];
            snprintf(lab, sizeof lab, "long-%d", k);
            rc = add_run(st, lab, 1000, 0, err, sizeof err);
        }
        CHECK(rc == 0, "40 runs of 1,000 layers: %s", err);
        CHECK(store_batch_commit(st, err, sizeof err) == 0, "long commit: %s", err);
        CHECK(open_fds() == fds, "no file left open by the long batch (%d, was %d)", open_fds(), fds);
        CHECK(sql_int(path, "SELECT COUNT(*) FROM layers WHERE run_id IN "
                            "(SELECT id FROM runs WHERE label LIKE 'long-%')") == 40000,
              "the long batch's 40,000 layers");
        sql_exec(path, "DELETE FROM runs WHERE label LIKE 'long-%'");
        CHECK(sql_int(path, "SELECT COUNT(*) FROM runs") == 3 &&
                  sql_int(path, "SELECT COUNT(*) FROM layers") == 2 + 3 + 5,
              "long batch removed");
    }

    /* an aborted batch, and a store closed with its batch open */
    CHECK(store_batch_begin(st, err, sizeof err) == 0, "batch 2: %s", err);
    CHECK(add_run(st, "d", 2, 0, err, sizeof err) == 0, "d: %s", err);
    store_batch_abort(st);
    CHECK(sql_int(path, "SELECT COUNT(*) FROM runs WHERE label = 'd'") == 0, "aborted batch");
    CHECK(store_batch_begin(st, err, sizeof err) == 0, "batch 3: %s", err);
    CHECK(add_run(st, "e", 2, 0, err, sizeof err) == 0, "e: %s", err);
    store_close(st);
    CHECK(sql_int(path, "SELECT COUNT(*) FROM runs WHERE label = 'e'") == 0, "closed mid-batch");

    /* a process killed with its batch open: none of the batch, the rest intact */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        store *s2 = NULL;
        char e[512];
        if (store_open(path, &s2, e, sizeof e) || store_batch_begin(s2, e, sizeof e))
            _exit(2);
        for (int k = 0; k < 100; k++) { /* 20,000 layers: past a writeback */
            char lab[32];
            snprintf(lab, sizeof lab, "killed-%d", k);
            if (add_run(s2, lab, 200, 0, e, sizeof e))
                _exit(3);
        }
        kill(getpid(), SIGKILL);
        _exit(4);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "writer killed mid-batch");
    CHECK(store_open_readonly(path, &st, err, sizeof err) == 0, "read after the kill: %s", err);
    store_close(st);
    CHECK(sql_int(path, "SELECT COUNT(*) FROM runs") == 3 &&
              sql_int(path, "SELECT COUNT(*) FROM runs WHERE label LIKE 'killed-%'") == 0,
          "none of the killed batch");
    CHECK(sql_int(path, "SELECT COUNT(*) FROM pragma_integrity_check WHERE integrity_check <> 'ok'") == 0,
          "integrity");

    unlink(path);
    rmdir(dir);
    TEST_END();
}
