/* tests/fuzz/fuzz_store.c — fuzz target for the store's read path: bytes -> a
 * database file of this process -> store_open_readonly -> the list of runs;
 * every run by id and by label, its layers, outputs and per-layer errors, and
 * the run summary rendered from them (its JSON must be valid), its level-4
 * table rebuilt (record/rows_npu.c), its compiled
 * graph compared with itself (compare --graph). Any
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
#include "record/rows_npu.h"
#include "util/util.h"

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

/* The run's rows, rendered as `show` does (text, JSON document, level-4
 * table): whatever the file holds, the summary must not crash and its JSON
 * must stay valid. */
static void read_run(store *st, const store_run *run)
{
    char err[512];
    store_layer *l = NULL;
    store_output *o = NULL;
    store_accuracy *a = NULL;
    int nl = 0, no = 0, na = 0;

    if (store_get_layers(st, run->id, &l, &nl, err, sizeof err))
        nl = 0, l = NULL;
    if (store_get_outputs(st, run->id, &o, &no, err, sizeof err))
        no = 0, o = NULL;
    if (store_get_accuracy(st, run->id, &a, &na, err, sizeof err))
        na = 0, a = NULL;
    store_npu_row *x = NULL;
    int nx = 0;
    if (store_get_npu_rows(st, run->id, &x, &nx, err, sizeof err))
        x = NULL, nx = 0;
    FILE *null = fopen("/dev/null", "w");
    char *doc = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&doc, &len);
    if (null && mem) {
        run_summary s;
        json_writer w;
        summary_compute(run, l, nl, x, nx, o, no, a, na, 0.99, &s);
        summary_print(&s, null, 1);
        /* the trace's timeline: every layer row once, npu rows at most once */
        int nt = 0;
        const store_layer **tl = summary_timeline(&s, &nt);
        if (nt < s.n_layers || nt > s.n_layers + s.n_npu_layers)
            abort();
        for (int i = 0; i < nt; i++)
            if (!(tl[i] >= s.layers && tl[i] < s.layers + s.n_layers) &&
                !(tl[i] >= s.npu_layers && tl[i] < s.npu_layers + s.n_npu_layers))
                abort();
        free(tl);
        summary_print_accuracy(&s, null, 0);
        json_begin(&w, mem);
        summary_json_doc(&s, o, no, &w);
        fclose(mem);
        mem = NULL;
        if (!json_valid(doc))
            abort();
        npu_graph_t ng; /* show --npu-table */
        int complete;
        if (!rows_npu_graph(run, l, nl, x, nx, &ng, &complete, err, sizeof err))
            npu_print_perf_table(null, &ng, 0);
        rows_npu_graph_free(&ng);
        summary_free(&s);
        /* the run's compiled graph against itself: every layer accounted for */
        compare_side cs = { run, l, nl, a, na, 0 };
        compare_graph g;
        compare_graph_build(&cs, &cs, &g);
        if (g.n_equal + g.n_differ + g.n_only[0] != g.n[0] - g.io[0] || g.n_only[0] != g.n_only[1])
            abort();
        compare_graph_free(&g);
    }
    if (mem)
        fclose(mem);
    if (null)
        fclose(null);
    free(doc);
    store_layers_free(l, nl);
    store_outputs_free(o, no);
    store_accuracy_free(a, na);
    store_npu_rows_free(x, nx);
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
            read_run(st, &runs[i]);
        }
        store_runs_free(runs, n);
    }
    /* a name that is not there: the suggestion reads every label */
    if (store_get_run(st, "baselin", &r, err, sizeof err) == 0)
        store_run_clear(&r);
    store_close(st);
    return 0;
}
