/* tests/unit/test_store_accuracy.c — the per-layer error table of a quantized
 * run: rows written inside the run's transaction, NaN stored as SQL NULL (checked
 * with sqlite3 directly), +inf SQNR kept, an aborted run leaves no row, deleting
 * a run deletes its rows. Values are hand-picked. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/store.h"
#include "tests/test.h"
#include "util/util.h"

static char dir[] = "/tmp/test_store_acc_XXXXXX";
static char path[256];

static long long sql_int(const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    long long v = -999;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

static int add_run(store *st, int commit, int64_t *id, char *err, size_t errlen)
{
    store_run r;
    store_run_init(&r);
    r.model_path = "m.onnx";
    r.quant = "i8";
    r.quant_algo = "normal";
    r.quant_method = "channel";
    int rc = store_run_begin(st, &r, id, err, errlen);
    if (rc)
        return rc;
    store_accuracy a;
    store_accuracy_init(&a);
    a.idx = 0;
    a.layer = -1;
    a.name = "input";
    a.op = "Input";
    a.entire.cos = 0.99999;
    a.entire.euc = 0.5;
    a.entire.max_abs = 0.25;
    a.entire.mean_abs = 0.125;
    a.entire.sqnr_db = INFINITY;
    a.single = a.entire;
    if ((rc = store_accuracy_add(st, *id, &a, err, errlen)))
        return rc;
    store_accuracy_init(&a);
    a.idx = 1;
    a.layer = 0;
    a.name = "conv_out";
    a.op = "Conv";
    a.node = "conv0";
    a.fused = 1;
    a.is_output = 1;
    a.entire.cos = NAN; /* constant tensor */
    a.entire.euc = 3.0;
    a.entire.flags = METRIC_REF_CONST;
    a.single.cos = 0.5;
    if ((rc = store_accuracy_add(st, *id, &a, err, errlen)))
        return rc;
    rc = store_accuracy_add(st, *id, &a, err, errlen);
    CHECK(rc == RT_EINVAL && strstr(err, "twice"), "duplicate row refused: %s", err);
    if (!commit) {
        store_run_abort(st, *id);
        return 0;
    }
    return store_run_commit(st, *id, 1.0, err, errlen);
}

int main(void)
{
    char err[512] = "";
    store *st = NULL;
    int64_t id = 0, id2 = 0;
    store_accuracy *rows = NULL;
    int n = 0;

    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/acc.db", dir);
    CHECK(store_open(path, &st, err, sizeof err) == 0, "open: %s", err);
    CHECK(add_run(st, 1, &id, err, sizeof err) == 0, "run: %s", err);
    CHECK(add_run(st, 0, &id2, err, sizeof err) == 0, "aborted run: %s", err);
    CHECK(sql_int("SELECT COUNT(*) FROM accuracy") == 2, "only the committed run's rows");
    CHECK(sql_int("SELECT COUNT(*) FROM accuracy WHERE idx = 1 AND entire_cos IS NULL") == 1,
          "NaN cos is NULL");
    CHECK(sql_int("SELECT COUNT(*) FROM accuracy WHERE idx = 1 AND entire_sqnr_db IS NULL") == 1,
          "unset sqnr is NULL");
    CHECK(sql_int("SELECT entire_flags FROM accuracy WHERE idx = 1") == METRIC_REF_CONST, "flags");
    CHECK(sql_int("SELECT layer FROM accuracy WHERE idx = 0") == -1, "input row layer -1");

    CHECK(store_get_accuracy(st, id, &rows, &n, err, sizeof err) == 0, "read: %s", err);
    CHECK(n == 2, "two rows, got %d", n);
    if (n == 2) {
        CHECK(!strcmp(rows[0].name, "input") && !strcmp(rows[0].op, "Input") && !rows[0].node,
              "row 0 strings");
        CHECK(rows[0].entire.cos == 0.99999 && rows[0].entire.euc == 0.5 &&
              rows[0].entire.max_abs == 0.25 && rows[0].entire.mean_abs == 0.125, "row 0 metrics");
        CHECK(isinf(rows[0].entire.sqnr_db) && rows[0].entire.sqnr_db > 0, "+inf kept");
        CHECK(rows[1].layer == 0 && rows[1].fused == 1 && rows[1].is_output == 1, "row 1 flags");
        CHECK(isnan(rows[1].entire.cos) && rows[1].entire.euc == 3.0, "NaN read back");
        CHECK(rows[1].entire.flags == METRIC_REF_CONST, "flags read back");
        CHECK(rows[1].single.cos == 0.5 && isnan(rows[1].single.euc), "single read back");
        CHECK(!strcmp(rows[1].node, "conv0"), "node");
    }
    store_accuracy_free(rows, n);
    store_accuracy a;
    store_accuracy_init(&a);
    a.name = "x";
    CHECK(store_accuracy_add(st, id, &a, err, sizeof err) == RT_EINVAL, "closed run refused");
    CHECK(store_delete_run(st, id, err, sizeof err) == 0, "delete: %s", err);
    CHECK(sql_int("SELECT COUNT(*) FROM accuracy") == 0, "rows deleted with the run");
    store_close(st);
    unlink(path);
    rmdir(dir);
    TEST_END();
}
