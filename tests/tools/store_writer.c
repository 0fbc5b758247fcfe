/* tests/tools/store_writer.c — a writer for the crash test (tests/cli/crash.sh):
 * records runs of LAYERS layers into DB through the store, one after another,
 * deleting each run's predecessor, until it is killed. Every layer carries a
 * 16 KiB text, so that a run outgrows SQLite's page cache and pages reach the
 * database file before the commit: a kill at almost any moment leaves a hot
 * journal. Usage: store_writer DB LAYERS [RUNS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/store.h"
#include "util/util.h"

int main(int argc, char **argv)
{
    static char text[16384];
    char err[512];
    store *st = NULL;
    int64_t id, prev = 0;
    int layers, runs, rc = 0;

    if (argc < 3 || (layers = atoi(argv[2])) < 1) {
        fprintf(stderr, "usage: store_writer DB LAYERS [RUNS]\n");
        return 1;
    }
    runs = argc > 3 ? atoi(argv[3]) : 1000;
    memset(text, 'w', sizeof text - 1);
    if ((rc = store_open(argv[1], &st, err, sizeof err)))
        goto out;
    for (int k = 0; k < runs && !rc; k++) {
        store_run r;
        store_run_init(&r);
        r.model_path = "store_writer";
        if ((rc = store_run_begin(st, &r, &id, err, sizeof err)))
            break;
        for (int i = 0; i < layers && !rc; i++) {
            store_layer l;
            store_layer_init(&l);
            l.idx = i;
            l.op = "Conv";
            l.cpu_reason = text;
            rc = store_layer_add(st, id, &l, err, sizeof err);
        }
        if (!rc)
            rc = store_run_commit(st, id, 1.0, err, sizeof err);
        if (!rc && prev)
            rc = store_delete_run(st, prev, err, sizeof err);
        prev = id;
    }
out:
    if (rc)
        fprintf(stderr, "store_writer: %s\n", err);
    store_close(st);
    return rc ? 1 : 0;
}
