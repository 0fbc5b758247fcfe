/* tests/unit/test_store_fixture.c — databases written by the schema-2 and
 * schema-3 releases (tests/data/store/, see its README) are upgraded to the
 * current schema with nothing lost: row counts and sums read by sqlite3 before
 * the upgrade equal what the store returns after it. Then the schema-3 run
 * management on it: tags, relabelling, load samples, and deletion cascading to
 * them; and the schema-4 layer keys. Run from the repository root. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/store.h"
#include "tests/test.h"
#include "tests/test_sql.h"
#include "util/util.h"

#define FIXTURE "tests/data/store/v2-release.db"
#define FIXTURE_V3 "tests/data/store/v3-release.db"

static int copy(const char *from, const char *to)
{
    size_t len = 0;
    char *buf = NULL;
    FILE *f = fopen(from, "rb"), *g = NULL;
    int ok = 0;
    if (!f)
        return 0;
    buf = malloc(1 << 20);
    if (buf && (len = fread(buf, 1, 1 << 20, f)) > 0 && len < (1 << 20) && (g = fopen(to, "wb")))
        ok = fwrite(buf, 1, len, g) == len;
    if (g && fclose(g))
        ok = 0;
    fclose(f);
    free(buf);
    return ok;
}

/* the schema-3 release's file: every layer, tag and load sample survives, each
 * layer row gets its key, and deleting a run takes its layers and nothing else */
static void test_v3(const char *dir)
{
    char path[300], err[512] = "";
    store *st = NULL;
    store_run *runs = NULL;
    int n_runs = 0;
    static const char sums[] =
        "SELECT SUM(idx * 7 + COALESCE(total_cycles, 0) + COALESCE(npu_cycles, 0)"
        " + length(COALESCE(name, '')) + COALESCE(out_zp, 0) + CAST(COALESCE(out_scale, 0) * 1e6 AS INTEGER)"
        " + CAST(COALESCE(out_mean, 0) * 1e6 AS INTEGER)) FROM layers";

    snprintf(path, sizeof path, "%s/v3.db", dir);
    CHECK(copy(FIXTURE_V3, path), "copy of " FIXTURE_V3);
    CHECK(sql_int(path, "PRAGMA user_version") == 3, "the fixture is schema 3");
    long long want_layers = sql_int(path, "SELECT COUNT(*) FROM layers");
    long long want_sum = sql_int(path, sums);
    long long want_tags = sql_int(path, "SELECT COUNT(*) FROM tags");
    long long want_load = sql_int(path, "SELECT COUNT(*) FROM load_samples");
    long long want_quant = sql_int(path, "SELECT COUNT(*) FROM layers WHERE out_scale IS NOT NULL");
    long long run2 = sql_int(path, "SELECT COUNT(*) FROM layers WHERE run_id = 2");
    CHECK(want_layers > 40 && want_tags == 3 && want_load > 0 && want_quant > 0 && run2 > 0,
          "fixture rows: %lld layers, %lld tags, %lld load samples, %lld quantized",
          want_layers, want_tags, want_load, want_quant);

    CHECK(store_open(path, &st, err, sizeof err) == 0, "v3 upgrades: %s", err);
    CHECK(sql_int(path, "PRAGMA user_version") == STORE_SCHEMA_VERSION, "current schema");
    CHECK(sql_int(path, "SELECT COUNT(*) FROM layers") == want_layers && sql_int(path, sums) == want_sum,
          "every layer row and value kept (sqlite3)");
    CHECK(sql_int(path, "SELECT COUNT(*) FROM layers WHERE key <> run_id * 1048576 + idx") == 0,
          "each row keyed by run id and index");
    /* schema 5: a prediction's samples (its load repeated at t 0) are its
     * npu_load rows, read back as those samples */
    CHECK(sql_int(path, "SELECT COUNT(*) FROM tags") == want_tags &&
              sql_int(path, "SELECT COUNT(*) FROM load_samples") +
                      sql_int(path, "SELECT COUNT(*) FROM npu_load WHERE run_id NOT IN "
                                    "(SELECT run_id FROM load_samples)") == want_load,
          "tags and load samples kept");
    CHECK(store_list_runs(st, &runs, &n_runs, err, sizeof err) == 0 && n_runs == 7, "7 runs: %s", err);
    long long layers = 0, load = 0;
    for (int i = 0; i < n_runs; i++) {
        store_layer *l = NULL;
        int nl = 0;
        CHECK(store_get_layers(st, runs[i].id, &l, &nl, err, sizeof err) == 0 &&
                  nl == runs[i].n_layers,
              "run %lld: %d layers, n_layers %lld", (long long)runs[i].id, nl,
              (long long)runs[i].n_layers);
        for (int k = 1; k < nl; k++)
            if (l[k].idx <= l[k - 1].idx)
                CHECK(0, "run %lld: layers out of order", (long long)runs[i].id);
        layers += nl;
        store_layers_free(l, nl);
        store_load_sample *ls = NULL;
        int nls = 0;
        CHECK(store_get_load(st, runs[i].id, &ls, &nls, err, sizeof err) == 0, "%s", err);
        load += nls;
        free(ls);
    }
    CHECK(layers == want_layers, "layers read %lld of %lld", layers, want_layers);
    CHECK(load == want_load, "load samples read %lld of %lld", load, want_load);
    store_runs_free(runs, n_runs);
    CHECK(store_delete_run(st, 2, err, sizeof err) == 0, "delete run 2: %s", err);
    CHECK(sql_int(path, "SELECT COUNT(*) FROM layers WHERE run_id = 2") == 0 &&
              sql_int(path, "SELECT COUNT(*) FROM layers") == want_layers - run2 &&
              sql_int(path, "SELECT COUNT(*) FROM tags WHERE run_id = 2") == 0,
          "deleting a run deletes its layers and tags, no other row");
    CHECK(store_delete_run(st, 2, err, sizeof err) == RT_EINVAL &&
              sql_int(path, "SELECT COUNT(*) FROM layers") == want_layers - run2,
          "deleting it again: an error, nothing else deleted");
    store_close(st);
    /* by hand with sqlite3: a deleted run takes its layers along (the trigger);
     * a layer row without its key is refused */
    long long run1 = sql_int(path, "SELECT COUNT(*) FROM layers WHERE run_id = 1");
    sql_exec(path, "DELETE FROM runs WHERE id = 1");
    CHECK(run1 > 0 && sql_int(path, "SELECT COUNT(*) FROM layers WHERE run_id = 1") == 0 &&
              sql_int(path, "SELECT COUNT(*) FROM layers") == want_layers - run2 - run1,
          "a run deleted by hand takes its %lld layers and no others", run1);
    sqlite3 *db = NULL;
    int rc = sqlite3_open(path, &db);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "INSERT INTO layers (run_id, idx, op) VALUES (3, 999, 'Conv')",
                          NULL, NULL, NULL);
    sqlite3_close(db);
    CHECK(rc == SQLITE_CONSTRAINT && sql_int(path, "SELECT COUNT(*) FROM layers WHERE idx = 999") == 0,
          "a layer row added by hand without its key is refused (%d)", rc);
    unlink(path);
}

int main(void)
{
    char dir[] = "/tmp/test_store_fixture_XXXXXX", path[300], err[512] = "";
    store *st = NULL;
    store_run *runs = NULL, r;
    int n_runs = 0;

    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/v2.db", dir);
    CHECK(copy(FIXTURE, path), "copy of " FIXTURE);
    CHECK(sql_int(path, "PRAGMA user_version") == 2, "the fixture is schema 2");
    long long want_runs = sql_int(path, "SELECT COUNT(*) FROM runs");
    long long want_layers = sql_int(path, "SELECT COUNT(*) FROM layers");
    long long want_outputs = sql_int(path, "SELECT COUNT(*) FROM outputs");
    long long want_acc = sql_int(path, "SELECT COUNT(*) FROM accuracy");
    long long want_cycles = sql_int(path, "SELECT SUM(total_cycles) FROM layers");
    long long want_cos = sql_int(path, "SELECT CAST(SUM(entire_cos) * 1e6 AS INTEGER) FROM accuracy");
    long long want_npu = sql_int(path, "SELECT CAST(SUM(npu_us) * 1000 AS INTEGER) FROM runs");
    CHECK(want_runs == 7 && want_layers > 0 && want_acc > 0, "fixture rows %lld %lld %lld",
          want_runs, want_layers, want_acc);

    CHECK(store_open(path, &st, err, sizeof err) == 0, "open upgrades: %s", err);
    CHECK(sql_int(path, "PRAGMA user_version") == STORE_SCHEMA_VERSION, "current schema");
    CHECK(store_list_runs(st, &runs, &n_runs, err, sizeof err) == 0 && n_runs == want_runs,
          "%d runs listed: %s", n_runs, err);
    long long layers = 0, outputs = 0, acc = 0, cycles = 0, missing_bad = 0;
    double cos = 0, npu = 0;
    for (int i = 0; i < n_runs; i++) {
        store_layer *l = NULL;
        store_output *o = NULL;
        store_accuracy *a = NULL;
        int nl = 0, no = 0, na = 0;
        CHECK(store_get_layers(st, runs[i].id, &l, &nl, err, sizeof err) == 0 &&
                  nl == runs[i].n_layers,
              "run %lld: %d layers, n_layers %lld", (long long)runs[i].id, nl,
              (long long)runs[i].n_layers);
        CHECK(store_get_outputs(st, runs[i].id, &o, &no, err, sizeof err) == 0, "outputs");
        CHECK(store_get_accuracy(st, runs[i].id, &a, &na, err, sizeof err) == 0, "accuracy");
        CHECK(runs[i].tags == NULL, "no tags after the upgrade");
        for (int k = 0; k < nl; k++) {
            if (l[k].total_cycles != STORE_NULL_INT)
                cycles += l[k].total_cycles;
            /* schema 2 had no output quantization or statistics: missing, not 0 */
            if (!isnan(l[k].out_scale) || l[k].out_zp != STORE_NULL_INT || l[k].out_qtype ||
                !isnan(l[k].out_min) || !isnan(l[k].out_max) || !isnan(l[k].out_mean) ||
                !isnan(l[k].out_std))
                missing_bad++;
        }
        for (int k = 0; k < na; k++)
            if (!isnan(a[k].entire.cos))
                cos += a[k].entire.cos;
        if (!isnan(runs[i].npu_us))
            npu += runs[i].npu_us;
        layers += nl, outputs += no, acc += na;
        store_layers_free(l, nl);
        store_outputs_free(o, no);
        store_accuracy_free(a, na);
    }
    CHECK(layers == want_layers && outputs == want_outputs && acc == want_acc,
          "rows %lld/%lld %lld/%lld %lld/%lld", layers, want_layers, outputs, want_outputs, acc,
          want_acc);
    CHECK(cycles == want_cycles, "cycles %lld, sqlite3 %lld", cycles, want_cycles);
    CHECK(missing_bad == 0, "%lld upgraded layers with output quantization/statistics", missing_bad);
    CHECK(sql_int(path, "SELECT COUNT(*) FROM pragma_table_info('layers') WHERE name IN "
                        "('out_scale','out_zp','out_qtype','out_min','out_max','out_mean','out_std')") == 7,
          "the seven v3 layer columns, as sqlite3 lists them");
    CHECK((long long)(cos * 1e6) == want_cos, "cosine sum %f", cos);
    CHECK((long long)(npu * 1000) == want_npu, "npu_us sum %f", npu);
    store_runs_free(runs, n_runs);

    /* tags */
    CHECK(store_tag_add(st, 2, "nightly", err, sizeof err) == 0, "tag: %s", err);
    CHECK(store_tag_add(st, 2, "baseline", err, sizeof err) == 0, "tag: %s", err);
    CHECK(store_tag_add(st, 2, "nightly", err, sizeof err) == 0, "a tag twice is not an error");
    CHECK(store_tag_add(st, 2, "a,b", err, sizeof err) == RT_EINVAL, "comma refused");
    CHECK(store_tag_add(st, 2, "", err, sizeof err) == RT_EINVAL, "empty refused");
    CHECK(store_tag_add(st, 99, "x", err, sizeof err) == RT_ENOTFOUND, "unknown run");
    CHECK(sql_int(path, "SELECT COUNT(*) FROM tags WHERE run_id = 2") == 2, "two tag rows");
    CHECK(store_get_run(st, "2", &r, err, sizeof err) == 0 && r.tags &&
              strcmp(r.tags, "baseline,nightly") == 0,
          "tags sorted: %s", r.tags ? r.tags : "(null)");
    store_run_clear(&r);
    CHECK(store_tag_remove(st, 2, "nightly", err, sizeof err) == 0, "untag: %s", err);
    CHECK(store_tag_remove(st, 2, "never", err, sizeof err) == 0, "untag a missing tag");
    CHECK(sql_int(path, "SELECT COUNT(*) FROM tags WHERE run_id = 2") == 1, "one tag left");

    /* labels */
    CHECK(store_set_label(st, 3, "mnist-fp16", err, sizeof err) == 0, "label: %s", err);
    CHECK(store_set_label(st, 3, "mnist-i8", err, sizeof err) == RT_EEXIST &&
              strstr(err, "run 2"),
          "a taken label names its run: %s", err);
    CHECK(store_set_label(st, 3, "42", err, sizeof err) == RT_EINVAL, "all digits refused");
    CHECK(store_get_run(st, "mnist-fp16", &r, err, sizeof err) == 0 && r.id == 3,
          "found by its new label");
    store_run_clear(&r);
    CHECK(store_set_label(st, 1, NULL, err, sizeof err) == 0 &&
              sql_int(path, "SELECT COUNT(*) FROM runs WHERE id = 1 AND label IS NULL") == 1,
          "label removed");

    /* load samples ride in a run's transaction */
    store_run nr;
    int64_t id = 0;
    store_run_init(&nr);
    nr.backend = "board";
    CHECK(store_run_begin(st, &nr, &id, err, sizeof err) == 0, "begin: %s", err);
    for (int k = 0; k < 6; k++) {
        store_load_sample s = { .t_us = 1000.0 * (k / 3), .core = k % 3, .load_pct = 10.0 * k };
        if (k == 5)
            s.load_pct = NAN;
        CHECK(store_load_add(st, id, &s, err, sizeof err) == 0, "load sample %d: %s", k, err);
    }
    CHECK(store_run_commit(st, id, NAN, err, sizeof err) == 0, "commit: %s", err);
    store_load_sample *ls = NULL;
    int nls = 0;
    CHECK(store_get_load(st, id, &ls, &nls, err, sizeof err) == 0 && nls == 6, "6 samples");
    if (nls == 6)
        CHECK(ls[4].core == 1 && ls[4].t_us == 1000 && ls[4].load_pct == 40 && isnan(ls[5].load_pct),
              "sample values and a missing load");
    free(ls);
    CHECK(sql_int(path, "SELECT COUNT(*) FROM load_samples WHERE load_pct IS NULL") == 1,
          "missing load is NULL");
    CHECK(store_tag_add(st, id, "board", err, sizeof err) == 0, "tag the new run");
    CHECK(store_delete_run(st, id, err, sizeof err) == 0, "delete: %s", err);
    CHECK(sql_int(path, "SELECT COUNT(*) FROM load_samples") == 0 &&
              sql_int(path, "SELECT COUNT(*) FROM tags WHERE tag = 'board'") == 0,
          "deleting a run deletes its load samples and tags");
    store_close(st);

    unlink(path);
    test_v3(dir);
    rmdir(dir);
    TEST_END();
}
