/* tests/unit/test_store_migrate.c — a database written by schema v1 (the first
 * release) is upgraded in place when opened for writing: its runs stay readable,
 * the v2 fields read back as missing, and v2 runs can be added beside them. The v1
 * schema below is frozen history (the shipped migration step), checked with sqlite3
 * directly. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/store.h"
#include "tests/test.h"
#include "tests/test_sql.h"
#include "util/util.h"

static const char v1_schema[] =
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
    "CREATE INDEX runs_time ON runs(time);";

static const char v1_rows[] =
    "PRAGMA application_id = 1380668498; PRAGMA user_version = 1;"
    "INSERT INTO runs (id, label, time, model_path, platform, backend, quant, total_us) "
    "VALUES (1, 'old', '2026-01-02T03:04:05Z', 'm.onnx', 'rk3588', 'sim', 'fp32', 12.5);"
    "INSERT INTO layers (run_id, idx, node, op, name, host_us, time_us) "
    "VALUES (1, 0, 'n0', 'Conv', 't0', 3.0, 1.5), (1, 1, 'n1', 'Relu', 't1', 1.0, NULL);"
    /* facts a schema-1 run kept in its extra JSON, a load that is not one, keys
     * that only look like facts (inside a string, one object deep) */
    "INSERT INTO runs (id, label, time, platform, backend, extra_json) VALUES (2, 'v1x', "
    "'2026-01-02T03:04:06Z', 'rk3588', 'sim', '{\"npu_predicted_us\":812.5,"
    "\"npu_share\":{\"compute\":70,\"DDR\":20,\"CPU\":10},\"dump_dir\":\"/d/x\","
    "\"note\":\"\\\"npu_load\\\":[1,2,3]\",\"x\":{\"perf_table_us\":7},"
    "\"npu_load\":[50,101,0]}');"
    /* a schema-4 run's keys, and an extra text that is not JSON */
    "INSERT INTO runs (id, label, time, platform, backend, extra_json) VALUES (3, 'v4x', "
    "'2026-01-02T03:04:07Z', 'rk3588', 'sim', '{\"npu_load\":[61,50,50],\"quant\":"
    "{\"calibration_samples\":4,\"int8_layers\":7,\"fp16_layers\":1,\"cfg_parameters\":2},"
    "\"perf_table_us\":298,\"npu_clock_mhz\":800,\"ddr_clock_mhz\":1066,"
    "\"npu_table\":{\"layers\":9,\"rows\":[{\"at\":0,\"skip\":0,\"id\":1,\"op\":\"InputOperator\","
    "\"target\":\"CPU\",\"in\":[],\"out\":[[1,1,28,28]],\"cycles\":[0,0,0],"
    "\"time_us\":27.176870748299322,\"macs\":false,\"mac_usage\":[0,0],\"workload\":[0,0.5],"
    "\"fullname\":\"InputOperator:x\"},{\"at\":4,\"skip\":1,\"op\":\"Conv\"}]}}');"
    /* a key one object deep moves alone: the text is written back without it */
    "INSERT INTO runs (id, label, time, extra_json) VALUES (5, 'nested', "
    "'2026-01-02T03:04:08Z', '{\"quant\":{\"int8_layers\":3,\"note\":\"x\"}}');"
    /* a table whose row has a key no writer wrote: kept in the text */
    "INSERT INTO runs (id, label, time, platform, backend, extra_json) VALUES (6, 'odd', "
    "'2026-01-02T03:04:09Z', 'rk3588', 'sim', '{\"npu_table\":{\"layers\":2,\"rows\":"
    "[{\"at\":0,\"colour\":1}]}}');"
    "INSERT INTO runs (id, label, time, extra_json) VALUES (4, 'bad', '2026-01-02T03:04:08Z', "
    "'{\"npu_load\":[1,2');";

static void make_v1(const char *path)
{
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK, "create");
    CHECK(sqlite3_exec(db, v1_schema, NULL, NULL, NULL) == SQLITE_OK, "v1 schema: %s",
          sqlite3_errmsg(db));
    CHECK(sqlite3_exec(db, v1_rows, NULL, NULL, NULL) == SQLITE_OK, "v1 rows: %s",
          sqlite3_errmsg(db));
    sqlite3_close(db);
}

/* Readers (ls, show) of a v1 file: upgraded in place where they may write it;
 * as another user in a read-only folder, they read an upgraded private copy and
 * the file stays v1. */
static void test_reader_upgrades(const char *dir)
{
    char sub[300], path[400], err[512] = "";
    store *st = NULL;
    store_run r;

    snprintf(sub, sizeof sub, "%s/ro", dir);
    mkdir(sub, 0755);
    snprintf(path, sizeof path, "%s/v1.db", sub);
    make_v1(path);
    CHECK(store_open_readonly(path, &st, err, sizeof err) == 0, "reader of v1: %s", err);
    CHECK(store_get_run(st, "old", &r, err, sizeof err) == 0 && r.n_layers == 2,
          "reader reads the v1 run: %s", err);
    store_run_clear(&r);
    store_close(st);
    CHECK(sql_int(path, "PRAGMA user_version") == STORE_SCHEMA_VERSION, "upgraded in place by a reader");

    unlink(path);
    make_v1(path);
    chmod(path, 0444);
    chmod(sub, 0555);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(10);
        if (access(path, W_OK) == 0)
            _exit(11);
        char e[512];
        store *s2 = NULL;
        store_run r2;
        if (store_open_readonly(path, &s2, e, sizeof e)) {
            fprintf(stderr, "v1 reader without write access: %s\n", e);
            _exit(12);
        }
        int ok = store_get_run(s2, "old", &r2, e, sizeof e) == 0 && r2.n_layers == 2;
        store_run_clear(&r2);
        store_close(s2);
        _exit(ok ? 0 : 13);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "reader without write access: %d",
          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    CHECK(sql_int(path, "PRAGMA user_version") == 1, "a file it may not write stays v1");
    chmod(sub, 0755);
    chmod(path, 0644);
    unlink(path);
    rmdir(sub);
}

int main(void)
{
    char dir[] = "/tmp/test_store_migrate_XXXXXX", path[300], err[512] = "";
    store *st = NULL;
    store_run r, back;
    store_layer *rows = NULL;
    int n = 0;
    int64_t id = 0;

    if (!mkdtemp(dir))
        return 1;
    chmod(dir, 0755);
    snprintf(path, sizeof path, "%s/v1.db", dir);
    make_v1(path);
    CHECK(STORE_APPLICATION_ID == 1380668498, "application id as in v1_rows");

    CHECK(store_open(path, &st, err, sizeof err) == 0, "open for writing upgrades: %s", err);
    CHECK(sql_int(path, "PRAGMA user_version") == STORE_SCHEMA_VERSION, "current user_version after the upgrade");
    CHECK(sql_int(path, "SELECT COUNT(*) FROM pragma_table_info('runs') WHERE name IN "
                        "('npu_us','host_min_us','host_p90_us','host_stddev_us','warmup',"
                        "'dump_dir','dump_sha256','weight_bytes','internal_bytes','env_json')") == 10,
          "ten run columns added");
    CHECK(sql_int(path, "SELECT COUNT(*) FROM pragma_table_info('layers') WHERE name IN "
                        "('frame_us','npu_dtype')") == 2, "two layer columns added");

    CHECK(store_get_run(st, "old", &r, err, sizeof err) == 0, "old run readable: %s", err);
    CHECK(r.id == 1 && r.total_us == 12.5 && r.n_layers == 2, "old run fields");
    CHECK(isnan(r.npu_us) && isnan(r.host_p90_us) && r.warmup == STORE_NULL_INT &&
              !r.dump_dir && !r.dump_sha256 && r.weight_bytes == STORE_NULL_INT,
          "v2 fields of a v1 run are missing, not zero");
    store_run_clear(&r);
    /* the facts of the extra texts in their columns, what only looks like one left */
    CHECK(store_get_run(st, "v1x", &r, err, sizeof err) == 0 && r.npu_us == 812.5 &&
              r.share_pct[0] == 70 && r.share_pct[1] == 20 && r.share_pct[2] == 10 &&
              r.dump_dir && !strcmp(r.dump_dir, "/d/x") && r.n_load == 0 &&
              isnan(r.perf_table_us) && r.extra_json &&
              !strcmp(r.extra_json, "{\"note\":\"\\\"npu_load\\\":[1,2,3]\",\"x\":"
                                    "{\"perf_table_us\":7},\"npu_load\":[50,101,0]}"),
          "schema-1 facts moved: %s", r.extra_json ? r.extra_json : "NULL");
    store_run_clear(&r);
    CHECK(store_get_run(st, "v4x", &r, err, sizeof err) == 0 && !r.extra_json && r.n_load == 3 &&
              r.load_pct[0] == 61 && r.load_pct[2] == 50 && r.calib_samples == 4 &&
              r.int8_layers == 7 && r.fp16_layers == 1 && r.cfg_params == 2 &&
              r.perf_table_us == 298 && r.npu_clock_mhz == 800 && r.ddr_clock_mhz == 1066 &&
              r.npu_table_layers == 9,
          "schema-4 facts moved");
    {
        store_npu_row *x = NULL;
        int nx = 0;
        CHECK(store_get_npu_rows(st, r.id, &x, &nx, err, sizeof err) == 0 && nx == 2 &&
                  x[0].at == 0 && x[0].skip == 0 && x[0].id == 1 && !strcmp(x[0].op, "InputOperator") &&
                  !strcmp(x[0].target, "CPU") && !strcmp(x[0].in_shapes, "[]") &&
                  !strcmp(x[0].out_shapes, "[[1,1,28,28]]") && x[0].total_cycles == 0 &&
                  x[0].time_us == 27.176870748299322 && !x[0].macs && x[0].n_cores == 2 &&
                  x[0].workload[1] == 0.5 && !strcmp(x[0].fullname, "InputOperator:x") &&
                  !x[0].note && x[0].n_in == STORE_NULL_INT && x[1].at == 4 && x[1].skip == 1 &&
                  isnan(x[1].time_us) && x[1].n_cores == 0,
              "level-4 rows moved, every digit kept: %d rows %s", nx, err);
        store_npu_rows_free(x, nx);
    }
    store_run_clear(&r);
    CHECK(store_get_run(st, "nested", &r, err, sizeof err) == 0 && r.int8_layers == 3 &&
              r.extra_json && !strcmp(r.extra_json, "{\"quant\":{\"note\":\"x\"}}"),
          "a nested key moved alone: %s", r.extra_json ? r.extra_json : "NULL");
    store_run_clear(&r);
    CHECK(store_get_run(st, "odd", &r, err, sizeof err) == 0 && r.npu_table_layers == STORE_NULL_INT &&
              r.extra_json && strstr(r.extra_json, "\"colour\":1"),
          "a table no writer wrote stays in the text: %s", r.extra_json ? r.extra_json : "NULL");
    store_run_clear(&r);
    CHECK(store_get_run(st, "bad", &r, err, sizeof err) == 0 && r.extra_json &&
              !strcmp(r.extra_json, "{\"npu_load\":[1,2") && r.n_load == 0,
          "a text that is not JSON stays as it was");
    store_run_clear(&r);
    CHECK(store_get_layers(st, 1, &rows, &n, err, sizeof err) == 0 && n == 2, "old layers");
    if (n == 2)
        CHECK(isnan(rows[0].frame_us) && !rows[0].npu_dtype && rows[0].time_us == 1.5 &&
                  isnan(rows[1].time_us), "old layer rows, v2 fields missing");
    store_layers_free(rows, n);

    store_run_init(&r);
    r.label = "new";
    r.platform = "rk3566";
    r.npu_us = 2500.25;
    r.host_min_us = 900;
    r.host_p90_us = 1100;
    r.host_stddev_us = 50.5;
    r.warmup = 3;
    r.dump_dir = "/tmp/d";
    r.dump_sha256 = "00ff";
    r.weight_bytes = 4096;
    r.internal_bytes = 8192;
    r.env_json = "{\"host\":{\"cores\":2}}";
    CHECK(store_run_begin(st, &r, &id, err, sizeof err) == 0, "v2 run: %s", err);
    store_layer l;
    store_layer_init(&l);
    l.idx = 0;
    l.op = "Conv";
    l.frame_us = 17.25;
    l.npu_dtype = "FP16";
    l.out_scale = 0.125;
    l.out_zp = -128;
    l.out_qtype = "asymmetric_quantized-8";
    l.out_min = -1.5, l.out_max = 2.5, l.out_mean = 0.25, l.out_std = 0.75;
    CHECK(store_layer_add(st, id, &l, err, sizeof err) == 0, "v2 layer: %s", err);
    CHECK(store_run_commit(st, id, 1000, err, sizeof err) == 0, "commit: %s", err);
    CHECK(store_get_run(st, "new", &back, err, sizeof err) == 0, "read back: %s", err);
    CHECK(back.npu_us == 2500.25 && back.host_min_us == 900 && back.host_p90_us == 1100 &&
              back.host_stddev_us == 50.5 && back.warmup == 3 && back.weight_bytes == 4096 &&
              back.internal_bytes == 8192 && back.dump_dir && !strcmp(back.dump_dir, "/tmp/d") &&
              back.dump_sha256 && !strcmp(back.dump_sha256, "00ff") && back.env_json &&
              !strcmp(back.env_json, "{\"host\":{\"cores\":2}}"),
          "v2 run fields round trip");
    store_run_clear(&back);
    CHECK(id == 7 && sql_int(path, "SELECT frame_us * 4 FROM layers WHERE run_id = 7") == 69 &&
              sql_int(path, "SELECT npu_dtype = 'FP16' FROM layers WHERE run_id = 7") == 1,
          "v2 layer columns as written (sqlite3)");
    CHECK(sql_int(path, "SELECT out_scale * 8 + out_zp * 10 + (out_qtype = 'asymmetric_quantized-8') "
                        "+ out_min * 100 + out_max * 1000 + out_mean * 4e4 + out_std * 4e5 "
                        "FROM layers WHERE run_id = 7") == 1 - 1280 + 1 - 150 + 2500 + 10000 + 300000,
          "v3 layer output quantization and statistics as written (sqlite3)");
    {
        store_layer *rows = NULL;
        int n = 0;
        CHECK(store_get_layers(st, id, &rows, &n, err, sizeof err) == 0 && n == 1 &&
                  rows[0].out_scale == 0.125 && rows[0].out_zp == -128 && rows[0].out_qtype &&
                  !strcmp(rows[0].out_qtype, "asymmetric_quantized-8") && rows[0].out_min == -1.5 &&
                  rows[0].out_max == 2.5 && rows[0].out_mean == 0.25 && rows[0].out_std == 0.75,
              "v3 layer fields read back");
        store_layers_free(rows, n);
    }
    store_close(st);

    unlink(path);
    test_reader_upgrades(dir);
    rmdir(dir);
    TEST_END();
}
