/* tests/fuzz/fuzz_store.c — fuzz target for the store's read path: bytes -> a
 * database file of this process -> store_open_readonly -> the list of runs;
 * every run by id and by label, its layers, outputs and per-layer errors. Any
 * status is fine; a crash, a sanitizer report or a leak is a bug. A run found
 * by its id must be that run (else abort). */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/analyze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/fuzz_store_XXXXXX";
static char db[64];
static const char *const side[] = { "-journal", "-wal", "-shm" };

/* The database and whatever SQLite left beside it. */
static void remove_files(void)
{
    char p[96];
    for (size_t i = 0; i < sizeof side / sizeof side[0]; i++) {
        snprintf(p, sizeof p, "%s%s", db, side[i]);
        unlink(p);
    }
    unlink(db);
}

static void cleanup(void)
{
    remove_files();
    rmdir(dir);
}

static int write_db(const uint8_t *data, size_t size)
{
    int fd = open(db, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -1;
    while (size) {
        ssize_t n = write(fd, data, size);
        if (n <= 0) {
            close(fd);
            return -1;
        }
        data += n;
        size -= (size_t)n;
    }
    return close(fd);
}

static void read_run(store *st, int64_t id)
{
    char err[512];
    store_layer *l = NULL;
    store_output *o = NULL;
    store_accuracy *a = NULL;
    int n = 0;

    if (store_get_layers(st, id, &l, &n, err, sizeof err) == 0)
        store_layers_free(l, n);
    if (store_get_outputs(st, id, &o, &n, err, sizeof err) == 0)
        store_outputs_free(o, n);
    if (store_get_accuracy(st, id, &a, &n, err, sizeof err) == 0)
        store_accuracy_free(a, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512], ref[32];
    store *st = NULL;
    store_run *runs = NULL, r;
    int n = 0;

    if (!db[0]) {
        if (!mkdtemp(dir))
            abort();
        snprintf(db, sizeof db, "%s/fuzz.db", dir);
        atexit(cleanup);
    }
    remove_files();
    if (write_db(data, size) != 0)
        abort();
    if (store_open_readonly(db, &st, err, sizeof err) != 0)
        return 0;
    if (store_list_runs(st, &runs, &n, err, sizeof err) == 0) {
        for (int i = 0; i < n && i < 16; i++) {
            snprintf(ref, sizeof ref, "%lld", (long long)runs[i].id);
            if (store_get_run(st, ref, &r, err, sizeof err) == 0) {
                if (runs[i].id >= 0 && r.id != runs[i].id)
                    abort();
                store_run_clear(&r);
            }
            if (runs[i].label && store_get_run(st, runs[i].label, &r, err, sizeof err) == 0)
                store_run_clear(&r);
            read_run(st, runs[i].id);
        }
        store_runs_free(runs, n);
    }
    /* a name that is not there: the suggestion reads every label */
    if (store_get_run(st, "baselin", &r, err, sizeof err) == 0)
        store_run_clear(&r);
    store_close(st);
    return 0;
}
