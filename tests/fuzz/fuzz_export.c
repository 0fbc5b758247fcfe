/* tests/fuzz/fuzz_export.c — fuzz target: bytes -> `import FILE.json` of an
 * export of runs (store_import_export) into a fresh database. Any status is
 * fine; a crash, a sanitizer report or a leak is a bug. A refused file must
 * leave the database without a run and say why; an accepted one must have
 * added exactly the runs it reports, and export them again. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_runs(store *st)
{
    store_run *runs = NULL;
    int n = 0;
    char err[256];
    if (store_list_runs(st, &runs, &n, err, sizeof err))
        abort();
    store_runs_free(runs, n);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char json[64], err[512] = "";
    store_import_stats stats;
    store *st = NULL;
    FILE *f;
    int rc;

    snprintf(json, sizeof json, "/tmp/fuzz_export_%d.json", (int)getpid());
    if (!(f = fopen(json, "wb")) || fwrite(data, 1, size, f) != size || fclose(f))
        abort();
    /* a database in memory: a file would cost a sync per input */
    if (store_open(":memory:", &st, err, sizeof err))
        abort();
    rc = store_import_export(st, json, NULL, NULL, &stats, err, sizeof err);
    if (rc) {
        if (!err[0] || count_runs(st) != 0)
            abort(); /* a failure says why and leaves nothing */
    } else {
        store_run *runs = NULL;
        int n = 0;
        if (count_runs(st) != stats.added)
            abort();
        if (store_list_runs(st, &runs, &n, err, sizeof err))
            abort();
        int64_t *ids = calloc((size_t)n + 1, sizeof *ids);
        for (int i = 0; i < n; i++)
            ids[i] = runs[i].id;
        FILE *out = fopen("/dev/null", "w");
        if (!out || store_export(st, ids, n, out, err, sizeof err))
            abort();
        fclose(out);
        free(ids);
        store_runs_free(runs, n);
    }
    store_close(st);
    unlink(json);
    return 0;
}
