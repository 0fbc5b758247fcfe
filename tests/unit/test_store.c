/* tests/unit/test_store.c — the SQLite store: create, insert, list, reopen, label
 * lookup, rollback leaves nothing, foreign/future/non-SQLite files refused, NULL
 * metrics read back as NULL. Checks against the database with sqlite3 directly
 * where the store's own readers could hide a mistake. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/store.h"
#include "tests/test.h"
#include "tests/test_sql.h"
#include "util/util.h"

static char dir[] = "/tmp/test_store_XXXXXX";

static const char *path_of(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static int add_run(store *st, const char *label, int n_layers, int64_t *id, char *err,
                   size_t errlen)
{
    store_run r;
    store_run_init(&r);
    r.label = label;
    r.model_path = "models/m.onnx";
    r.model_sha256 = "ab12";
    r.model_format = "onnx";
    r.platform = "rk3588";
    r.backend = "sim";
    r.quant = "fp32";
    r.threads = 2;
    r.iterations = 10;
    r.seed = 0;
    r.inputs_json = "[{\"name\":\"x\",\"file\":null}]";
    int rc = store_run_begin(st, &r, id, err, errlen);
    if (rc)
        return rc;
    for (int i = 0; i < n_layers; i++) {
        store_layer l;
        char name[32];
        store_layer_init(&l);
        snprintf(name, sizeof name, "t/%d", i);
        l.idx = i;
        l.node = "conv_node";
        l.op = i % 2 ? "Relu" : "Conv";
        l.name = name;
        l.in_shapes = "[[1,3,8,8]]";
        l.out_shapes = "[[1,4,8,8]]";
        l.dtype = "float32";
        l.host_us = 10.0 + i;
        if (i == 0) { /* only the first layer has NPU figures */
            l.npu_cycles = 1234;
            l.ddr_cycles = 0; /* a real zero, not missing */
            l.total_cycles = 1234;
            l.time_us = 1.5;
            l.mac_usage = 42.5;
            l.target = "NPU";
            l.sram_hit = 0.0;
            l.rw_kb = 12.25;
            l.bound = "compute";
            l.tasks = 3;
        }
        rc = store_layer_add(st, *id, &l, err, errlen);
        if (rc) {
            store_run_abort(st, *id);
            return rc;
        }
    }
    store_output o;
    store_output_init(&o);
    o.idx = 0;
    o.name = "y";
    o.shape = "[1,4,8,8]";
    o.dtype = "float32";
    rc = store_output_add(st, *id, &o, err, errlen);
    if (rc) {
        store_run_abort(st, *id);
        return rc;
    }
    return store_run_commit(st, *id, 99.5, err, errlen);
}

static void test_create_insert_list(void)
{
    const char *db = path_of("a.db");
    char err[512] = "";
    store *st = NULL;
    int64_t id1 = 0, id2 = 0;
    int rc;

    rc = store_open(db, &st, err, sizeof err);
    CHECK(rc == 0, "open new: %s", err);
    CHECK(sql_int(db, "PRAGMA application_id") == STORE_APPLICATION_ID, "application_id");
    CHECK(sql_int(db, "PRAGMA user_version") == STORE_SCHEMA_VERSION, "user_version");
    CHECK(sql_int(db, "SELECT value FROM meta WHERE key = 'schema_version'") ==
              STORE_SCHEMA_VERSION,
          "meta schema_version");

    rc = add_run(st, "base", 3, &id1, err, sizeof err);
    CHECK(rc == 0 && id1 == 1, "run 1: %s", err);
    rc = add_run(st, NULL, 2, &id2, err, sizeof err);
    CHECK(rc == 0 && id2 == 2, "run 2: %s", err);
    CHECK(sql_int(db, "SELECT COUNT(*) FROM layers") == 5, "5 layer rows");
    CHECK(sql_int(db, "SELECT COUNT(*) FROM layers WHERE npu_cycles IS NULL") == 3,
          "missing cycles stored as NULL");
    CHECK(sql_int(db, "SELECT COUNT(*) FROM layers WHERE ddr_cycles = 0") == 2,
          "real zeros stored as 0");

    /* duplicate label, numeric label, bad backend */
    int64_t id3 = 0;
    rc = add_run(st, "base", 1, &id3, err, sizeof err);
    CHECK(rc == RT_EINVAL && strstr(err, "already used by run 1"), "dup label: %s", err);
    rc = add_run(st, "42", 1, &id3, err, sizeof err);
    CHECK(rc == RT_EINVAL && strstr(err, "number"), "numeric label: %s", err);
    store_run bad;
    store_run_init(&bad);
    bad.backend = "gpu";
    rc = store_run_begin(st, &bad, &id3, err, sizeof err);
    CHECK(rc == RT_EINVAL, "bad backend: %s", err);
    /* the backends docs/store.md lists, each a round trip through the enum */
    static const char *const backends[] = {"sim", "board", "predict", "toolkit"};
    for (int k = 0; k < 4; k++)
        CHECK(store_backend_of(backends[k]) != BACKEND_UNKNOWN &&
              !strcmp(store_backend_name(store_backend_of(backends[k])), backends[k]),
              "backend %s", backends[k]);
    CHECK(store_backend_of(NULL) == BACKEND_NONE && store_backend_of("gpu") == BACKEND_UNKNOWN &&
          store_backend_of("Sim") == BACKEND_UNKNOWN && !store_backend_name(BACKEND_UNKNOWN) &&
          !store_backend_name(BACKEND_NONE), "no backend, another backend");
    CHECK(sql_int(db, "SELECT COUNT(*) FROM runs") == 2, "refused runs left nothing");

    /* list */
    store_run *runs = NULL;
    int n = 0;
    rc = store_list_runs(st, &runs, &n, err, sizeof err);
    CHECK(rc == 0 && n == 2, "list: %d %s", n, err);
    if (n == 2) {
        CHECK(runs[0].id == 1 && strcmp(runs[0].label, "base") == 0, "run 1 label");
        CHECK(runs[1].label == NULL, "run 2 has no label");
        CHECK(runs[0].n_layers == 3 && runs[1].n_layers == 2, "layer counts");
        CHECK(runs[0].total_us == 99.5 && runs[0].threads == 2 && runs[0].seed == 0,
              "numbers");
        CHECK(strcmp(runs[0].backend, "sim") == 0 && strcmp(runs[0].status, "ok") == 0,
              "backend/status");
        CHECK(runs[0].time && strlen(runs[0].time) == 20 && runs[0].time[10] == 'T',
              "time %s", runs[0].time ? runs[0].time : "(null)");
        CHECK(runs[0].quant_algo == NULL, "unset string is NULL");
    }
    store_runs_free(runs, n);
    store_close(st);

    /* reopen, lookups */
    rc = store_open(db, &st, err, sizeof err);
    CHECK(rc == 0, "reopen: %s", err);
    store_run r;
    rc = store_get_run(st, "base", &r, err, sizeof err);
    CHECK(rc == 0 && r.id == 1, "by label: %s", err);
    store_run_clear(&r);
    rc = store_get_run(st, "2", &r, err, sizeof err);
    CHECK(rc == 0 && r.id == 2, "by id: %s", err);
    store_run_clear(&r);
    rc = store_get_run(st, "7", &r, err, sizeof err);
    CHECK(rc == RT_ENOTFOUND && strstr(err, "no run '7'") && !strstr(err, "did you mean"),
          "unknown id: %s", err);
    rc = store_get_run(st, "nope", &r, err, sizeof err);
    CHECK(rc == RT_ENOTFOUND && strstr(err, "no run 'nope'") && !strstr(err, "did you mean"),
          "unknown label: %s", err);
    rc = store_get_run(st, "99999999999999999999999", &r, err, sizeof err);
    CHECK(rc == RT_ENOTFOUND, "huge id: %s", err);

    /* a label that looks like another run's id, put there by hand: ambiguous */
    sql_exec(db, "UPDATE runs SET label = '1' WHERE id = 2");
    rc = store_get_run(st, "1", &r, err, sizeof err);
    CHECK(rc == RT_EINVAL && strstr(err, "ambiguous"), "ambiguous: %s", err);
    sql_exec(db, "UPDATE runs SET label = NULL WHERE id = 2");

    /* layers: NULL metrics read back as missing, real values exactly */
    store_layer *ls = NULL;
    rc = store_get_layers(st, 1, &ls, &n, err, sizeof err);
    CHECK(rc == 0 && n == 3, "layers: %d %s", n, err);
    if (n == 3) {
        CHECK(ls[0].npu_cycles == 1234 && ls[0].ddr_cycles == 0 && ls[0].tasks == 3,
              "layer 0 ints");
        CHECK(ls[0].mac_usage == 42.5 && ls[0].sram_hit == 0.0 && ls[0].rw_kb == 12.25,
              "layer 0 reals");
        CHECK(strcmp(ls[0].target, "NPU") == 0 && strcmp(ls[0].bound, "compute") == 0,
              "layer 0 strings");
        CHECK(ls[1].npu_cycles == STORE_NULL_INT && ls[1].tasks == STORE_NULL_INT,
              "layer 1 ints NULL");
        CHECK(isnan(ls[1].time_us) && isnan(ls[1].mac_usage) && isnan(ls[1].sram_hit),
              "layer 1 reals NULL");
        CHECK(ls[1].target == NULL && ls[1].cpu_reason == NULL, "layer 1 strings NULL");
        CHECK(strcmp(ls[2].name, "t/2") == 0 && strcmp(ls[1].op, "Relu") == 0 &&
                  ls[2].host_us == 12.0,
              "layer 2");
    }
    store_layers_free(ls, n);
    store_output *os = NULL;
    rc = store_get_outputs(st, 1, &os, &n, err, sizeof err);
    CHECK(rc == 0 && n == 1 && strcmp(os[0].name, "y") == 0 && os[0].dump_file == NULL,
          "outputs: %s", err);
    store_outputs_free(os, n);

    /* delete cascades */
    rc = store_delete_run(st, 2, err, sizeof err);
    CHECK(rc == 0, "delete: %s", err);
    CHECK(sql_int(db, "SELECT COUNT(*) FROM layers WHERE run_id = 2") == 0, "cascade layers");
    CHECK(sql_int(db, "SELECT COUNT(*) FROM outputs WHERE run_id = 2") == 0, "cascade outputs");
    rc = store_delete_run(st, 2, err, sizeof err);
    CHECK(rc == RT_EINVAL, "delete twice");
    /* ids are not reused after a delete */
    rc = add_run(st, "after", 1, &id3, err, sizeof err);
    CHECK(rc == 0 && id3 == 3, "new id %lld after delete: %s", (long long)id3, err);
    store_close(st);

    /* read-only open sees the same and refuses writes */
    rc = store_open_readonly(db, &st, err, sizeof err);
    CHECK(rc == 0, "open ro: %s", err);
    rc = store_get_run(st, "after", &r, err, sizeof err);
    CHECK(rc == 0 && r.id == 3, "ro lookup");
    store_run_clear(&r);
    rc = add_run(st, "x", 1, &id3, err, sizeof err);
    CHECK(rc == RT_EINVAL && strstr(err, "read-only"), "ro write: %s", err);
    store_close(st);
    rc = store_open_readonly(path_of("missing.db"), &st, err, sizeof err);
    CHECK(rc == RT_EIO && access(path_of("missing.db"), F_OK) != 0, "ro missing: %s", err);
}

/* A 64 KiB string: a run of many such layers outgrows SQLite's page cache, so
 * pages are written to the database before the commit and the journal is hot. */
static char *big_text(void)
{
    char *t = malloc(65536);
    memset(t, 'x', 65535);
    t[65535] = 0;
    return t;
}

/* Forks a writer that dies by SIGKILL in the middle of a large run labelled
 * label: it leaves a hot journal beside db. */
static int crash_writer(const char *db, const char *label)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        store *cs = NULL;
        store_run r;
        int64_t cid;
        char e[256];
        char *t = big_text();
        store_run_init(&r);
        r.label = label;
        if (store_open(db, &cs, e, sizeof e) || store_run_begin(cs, &r, &cid, e, sizeof e))
            _exit(3);
        for (int i = 0; i < 64; i++) {
            store_layer l;
            store_layer_init(&l);
            l.idx = i;
            l.cpu_reason = t;
            if (store_layer_add(cs, cid, &l, e, sizeof e))
                _exit(4);
        }
        kill(getpid(), SIGKILL);
        _exit(5);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

static void test_rollback(void)
{
    const char *db = path_of("rb.db");
    char err[512] = "";
    store *st = NULL;
    int64_t id = 0;
    int rc;

    rc = store_open(db, &st, err, sizeof err);
    CHECK(rc == 0, "open: %s", err);
    rc = add_run(st, "kept", 2, &id, err, sizeof err);
    CHECK(rc == 0, "first run: %s", err);

    /* abort */
    store_run r;
    store_run_init(&r);
    r.label = "dropped";
    rc = store_run_begin(st, &r, &id, err, sizeof err);
    CHECK(rc == 0 && id == 2, "begin: %s", err);
    store_layer l;
    store_layer_init(&l);
    l.idx = 0;
    rc = store_layer_add(st, id, &l, err, sizeof err);
    CHECK(rc == 0, "layer: %s", err);
    rc = store_layer_add(st, id, &l, err, sizeof err);
    CHECK(rc == RT_EINVAL && strstr(err, "twice"), "duplicate layer: %s", err);
    int64_t other;
    rc = store_run_begin(st, &r, &other, err, sizeof err);
    CHECK(rc == RT_EINVAL && strstr(err, "still open"), "nested begin: %s", err);
    l.idx = 1;
    l.target = "GPU";
    rc = store_layer_add(st, id, &l, err, sizeof err);
    CHECK(rc == RT_EINVAL, "bad target: %s", err);
    store_run_abort(st, id);
    rc = store_layer_add(st, id, &l, err, sizeof err);
    CHECK(rc == RT_EINVAL && strstr(err, "not open"), "add after abort: %s", err);
    CHECK(sql_int(db, "SELECT COUNT(*) FROM runs") == 1, "aborted run left no run row");
    CHECK(sql_int(db, "SELECT COUNT(*) FROM layers") == 2, "aborted run left no layers");

    /* close with a run open */
    rc = store_run_begin(st, &r, &id, err, sizeof err);
    CHECK(rc == 0, "begin again: %s", err);
    store_close(st);
    CHECK(sql_int(db, "SELECT COUNT(*) FROM runs") == 1, "close rolled back");

    /* a process killed mid-ingest leaves nothing */
    CHECK(crash_writer(db, r.label), "writer killed");
    CHECK(sql_int(db, "SELECT COUNT(*) FROM runs") == 1, "crash left no run");
    CHECK(sql_int(db, "SELECT COUNT(*) FROM layers") == 2, "crash left no layers");
    rc = store_open(db, &st, err, sizeof err);
    CHECK(rc == 0, "open after crash: %s", err);
    rc = store_run_begin(st, &r, &id, err, sizeof err);
    CHECK(rc == 0, "label free again after crash: %s", err);
    rc = store_run_commit(st, id, NAN, err, sizeof err);
    CHECK(rc == 0, "commit: %s", err);
    rc = store_get_run(st, "dropped", &r, err, sizeof err);
    CHECK(rc == 0 && isnan(r.total_us) && r.threads == STORE_NULL_INT, "NULL run figures");
    store_run_clear(&r);
    store_close(st);
}

static void test_refused(void)
{
    char err[512] = "";
    store *st = NULL;
    int rc;

    /* another application's SQLite database */
    const char *other = path_of("other.db");
    sql_exec(other, "CREATE TABLE photos (id INTEGER, path TEXT)");
    rc = store_open(other, &st, err, sizeof err);
    CHECK(rc == RT_EFORMAT && strstr(err, "not an rknn-trace database") && strstr(err, other),
          "foreign db: %s", err);
    CHECK(sql_int(other, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'runs'") == 0,
          "foreign db untouched");

    /* another application id, even with our table names */
    const char *app = path_of("app.db");
    sql_exec(app, "PRAGMA application_id = 1234; CREATE TABLE runs (id INTEGER);");
    rc = store_open(app, &st, err, sizeof err);
    CHECK(rc == RT_EFORMAT && strstr(err, "not an rknn-trace database"), "other app id: %s",
          err);

    /* no application id, but tables: someone else's */
    const char *noid = path_of("noid.db");
    sql_exec(noid, "CREATE VIEW v AS SELECT 1");
    rc = store_open_readonly(noid, &st, err, sizeof err);
    CHECK(rc == RT_EFORMAT && strstr(err, "not an rknn-trace database"), "no app id: %s", err);

    /* from the future */
    const char *future = path_of("future.db");
    rc = store_open(future, &st, err, sizeof err);
    CHECK(rc == 0, "create: %s", err);
    store_close(st);
    sql_exec(future, "PRAGMA user_version = 7");
    rc = store_open(future, &st, err, sizeof err);
    CHECK(rc == RT_EUNSUPPORTED && strstr(err, "newer rknn-trace (schema 7 > ") &&
              atoi(strstr(err, "> ") + 2) == STORE_SCHEMA_VERSION,
          "future: %s", err);
    rc = store_open_readonly(future, &st, err, sizeof err);
    CHECK(rc == RT_EUNSUPPORTED, "future ro: %s", err);

    /* text file, short file, directory */
    const char *txt = path_of("notes.txt");
    FILE *f = fopen(txt, "w");
    fputs("this is not a database, it is a long enough text file\n", f);
    fclose(f);
    rc = store_open(txt, &st, err, sizeof err);
    CHECK(rc == RT_EFORMAT && strstr(err, "not an SQLite file") && strchr(err, '\n') == NULL,
          "text: %s", err);
    f = fopen(txt, "w");
    fputs("SQLite", f);
    fclose(f);
    rc = store_open(txt, &st, err, sizeof err);
    CHECK(rc == RT_EFORMAT, "short: %s", err);
    rc = store_open(dir, &st, err, sizeof err);
    CHECK(rc == RT_EIO && strstr(err, "directory"), "dir: %s", err);

    /* SQLite magic but garbage after: SQLite's own check */
    f = fopen(txt, "wb");
    fwrite("SQLite format 3", 1, 16, f);
    for (int i = 0; i < 4096; i++)
        fputc(0x5a, f);
    fclose(f);
    rc = store_open(txt, &st, err, sizeof err);
    CHECK(rc == RT_EFORMAT && strstr(err, "not an rknn-trace database"), "garbage: %s", err);

    /* an empty file becomes a database */
    const char *empty = path_of("empty.db");
    f = fopen(empty, "w");
    fclose(f);
    rc = store_open_readonly(empty, &st, err, sizeof err);
    CHECK(rc == RT_EFORMAT && strstr(err, "empty"), "ro empty: %s", err);
    rc = store_open(empty, &st, err, sizeof err);
    CHECK(rc == 0, "empty file: %s", err);
    store_close(st);
    CHECK(sql_int(empty, "PRAGMA application_id") == STORE_APPLICATION_ID, "empty -> ours");
}

static void test_helpers(void)
{
    char buf[64];
    int64_t d[4] = { 1, 3, 224, 224 };
    CHECK(strcmp(store_format_shape(buf, sizeof buf, 4, d), "[1,3,224,224]") == 0, "shape");
    CHECK(strcmp(store_format_shape(buf, sizeof buf, 0, d), "[]") == 0, "scalar shape");
    CHECK(strcmp(store_format_shape(buf, 6, 4, d), "[1,3,") == 0, "truncated shape '%s'", buf);

    unsetenv("RKNN_TRACE_DB");
    CHECK(strcmp(store_default_path(NULL), "./rknn-trace.db") == 0, "default");
    setenv("RKNN_TRACE_DB", "/tmp/x.db", 1);
    CHECK(strcmp(store_default_path(NULL), "/tmp/x.db") == 0, "env");
    CHECK(strcmp(store_default_path("cli.db"), "cli.db") == 0, "cli wins");
    setenv("RKNN_TRACE_DB", "", 1);
    CHECK(strcmp(store_default_path(""), "./rknn-trace.db") == 0, "empty env");
    unsetenv("RKNN_TRACE_DB");
}

/* The FullName every surface gives a layer row (store_layer_fullname), worked
 * out by hand: a fused layer by its first node, past a Linear's Flatten it
 * took in; not past a node no layer covers (no OpType: a dropped zero Pad); a
 * log's name with colons of its own; a vendor .rknn's "<op>:<name>". */
static void test_fullname(void)
{
    store_layer r[6];
    char nm[128];
    const char *op[6] = {"Conv", "Flatten", "Gemm", "Pad", "Conv", "OutputOperator"};
    const char *node[6] = {"pool", "flat", "fc", "pad", "c2", "onnx::ReduceSum_330"};
    for (int i = 0; i < 6; i++) {
        store_layer_init(&r[i]);
        r[i].op = op[i];
        r[i].node = node[i];
    }
    r[0].total_cycles = r[2].total_cycles = r[4].total_cycles = r[5].total_cycles = 10;
    r[1].npu_op = r[2].npu_op = "Conv"; /* the Flatten's row shows the Linear's layer */
    CHECK(!strcmp(store_layer_fullname(r, 2, nm, sizeof nm), "Gemm:fc"), "%s", nm);
    CHECK(!strcmp(store_layer_fullname(r, 4, nm, sizeof nm), "Conv:c2"), "%s", nm);
    r[3].npu_op = "Conv"; /* had the Pad been fused into it, it would name the layer */
    CHECK(!strcmp(store_layer_fullname(r, 4, nm, sizeof nm), "Pad:pad"), "%s", nm);
    CHECK(!strcmp(store_layer_fullname(r, 5, nm, sizeof nm), "OutputOperator:onnx::ReduceSum_330"),
          "%s", nm);
    r[0].node = "Conv:pool";
    CHECK(!strcmp(store_layer_fullname(r, 0, nm, sizeof nm), "Conv:pool"), "%s", nm);
    /* a table's row with a time and no cycles is a layer of its own */
    r[3].npu_op = "Pad";
    r[3].time_us = 5;
    CHECK(!strcmp(store_layer_fullname(r, 4, nm, sizeof nm), "Conv:c2"), "%s", nm);
}

/* A user's own table, view, index and trigger in a database of ours: still ours,
 * for reading and for writing. */
static void test_user_objects(void)
{
    const char *db = path_of("mine.db");
    char err[512] = "";
    store *st = NULL;
    int64_t id = 0;
    int rc, n = 0;

    rc = store_open(db, &st, err, sizeof err);
    CHECK(rc == 0 && add_run(st, "base", 2, &id, err, sizeof err) == 0, "create: %s", err);
    store_close(st);
    sql_exec(db, "CREATE TABLE notes (run_id INTEGER, text TEXT);"
                 "INSERT INTO notes VALUES (1, 'good one');"
                 "CREATE VIEW slow AS SELECT id FROM runs WHERE total_us > 1;"
                 "CREATE INDEX notes_run ON notes(run_id);");
    store_run *runs = NULL;
    rc = store_open_readonly(db, &st, err, sizeof err);
    CHECK(rc == 0, "ro with user objects: %s", err);
    rc = rc ? rc : store_list_runs(st, &runs, &n, err, sizeof err);
    CHECK(rc == 0 && n == 1 && runs[0].n_layers == 2, "list: %s", err);
    store_runs_free(runs, n);
    store_close(st);
    rc = store_open(db, &st, err, sizeof err);
    CHECK(rc == 0, "rw with user objects: %s", err);
    rc = rc ? rc : add_run(st, "second", 3, &id, err, sizeof err);
    CHECK(rc == 0 && id == 2, "write with user objects: %s", err);
    store_close(st);
    CHECK(sql_int(db, "SELECT COUNT(*) FROM notes") == 1, "user table kept");
    CHECK(sql_int(db, "SELECT COUNT(*) FROM slow") == 2, "user view sees both runs");
}

/* Unknown runs: RT_ENOTFOUND, with a close label suggested. */
static void test_not_found(void)
{
    const char *db = path_of("names.db");
    char err[512] = "";
    store *st = NULL;
    store_run r;
    int64_t id;
    int rc;

    rc = store_open(db, &st, err, sizeof err);
    CHECK(rc == 0, "open: %s", err);
    const char *labels[] = { "baseline", "fp16", "i8-kl", "a" };
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
        CHECK(add_run(st, labels[i], 1, &id, err, sizeof err) == 0, "add %s: %s", labels[i],
              err);
    /* ref, expected suggestion (NULL: none) */
    const char *cases[][2] = {
        { "baselin", "baseline" },   /* one deletion */
        { "basleine", "baseline" },  /* two edits */
        { "base", "baseline" },      /* a prefix */
        { "baseline-2", "baseline" },/* the label is a prefix of it */
        { "i8-k1", "i8-kl" },        /* a substitution */
        { "fp32", NULL },            /* two edits of four letters: too far */
        { "b", "baseline" },         /* prefix of a single label */
        { "zzz", NULL },
        { "9", NULL },               /* an id; "a" is one edit away but a third too far */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char want[128];
        err[0] = 0;
        rc = store_get_run(st, cases[i][0], &r, err, sizeof err);
        if (cases[i][1])
            snprintf(want, sizeof want, "no run '%s' (did you mean '%s'?)", cases[i][0],
                     cases[i][1]);
        else
            snprintf(want, sizeof want, "no run '%s'", cases[i][0]);
        CHECK(rc == RT_ENOTFOUND && strstr(err, want) &&
                  (cases[i][1] || !strstr(err, "did you mean")) && !strchr(err, '\n'),
              "'%s': rc %d, %s", cases[i][0], rc, err);
    }
    CHECK(store_get_run(st, "baseline", &r, err, sizeof err) == 0 && r.id == 1, "exact");
    store_run_clear(&r);
    store_close(st);
}

/* SQLite's own verdict on the file: a plain read-only open sees the hot journal. */
static int sqlite_refuses_ro(const char *db)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *s = NULL;
    int rc;
    sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL);
    sqlite3_extended_result_codes(h, 1);
    rc = sqlite3_prepare_v2(h, "SELECT COUNT(*) FROM runs", -1, &s, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    sqlite3_finalize(s);
    sqlite3_close(h);
    return rc == SQLITE_READONLY_ROLLBACK;
}

/* Reading checks for the hot-journal tests: one committed run of 2 layers. */
static int read_committed(const char *db, char *err, size_t errlen)
{
    store *st = NULL;
    store_run *runs = NULL, r;
    int n = 0, rc;

    if ((rc = store_open_readonly(db, &st, err, errlen)))
        return rc;
    rc = store_list_runs(st, &runs, &n, err, errlen);
    if (!rc && (n != 1 || runs[0].n_layers != 2))
        rc = rt_err(err, errlen, RT_EINTERNAL, "%d runs, %lld layers", n,
                    n ? (long long)runs[0].n_layers : -1LL);
    store_runs_free(runs, n);
    if (!rc && store_get_run(st, "killed", &r, err, errlen) != RT_ENOTFOUND)
        rc = rt_err(err, errlen, RT_EINTERNAL, "the killed run is visible");
    store_close(st);
    return rc;
}

static int dir_is_empty(const char *path)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", path);
    return system(cmd) == 0;
}

static void test_hot_journal(void)
{
    char sub[64], db[128], journal[160], tmpdir[128], err[512] = "";
    store *st = NULL;
    int64_t id;
    int rc;

    /* the database in a folder of its own, so that it can be made read-only */
    snprintf(sub, sizeof sub, "%s/hot", dir);
    snprintf(db, sizeof db, "%s/runs.db", sub);
    snprintf(journal, sizeof journal, "%s-journal", db);
    snprintf(tmpdir, sizeof tmpdir, "%s/tmp", dir);
    chmod(dir, 0755); /* for the reader that is not root, below */
    CHECK(mkdir(sub, 0755) == 0 && mkdir(tmpdir, 0777) == 0 && chmod(tmpdir, 01777) == 0,
          "mkdir");
    rc = store_open(db, &st, err, sizeof err);
    CHECK(rc == 0 && add_run(st, "kept", 2, &id, err, sizeof err) == 0, "seed: %s", err);
    store_close(st);

    /* 1. a reader that may write the file rolls the journal back */
    CHECK(crash_writer(db, "killed"), "writer killed");
    CHECK(access(journal, F_OK) == 0 && sqlite_refuses_ro(db),
          "the crash left a hot journal");
    rc = read_committed(db, err, sizeof err);
    CHECK(rc == 0, "read after crash: %s", err);
    CHECK(access(journal, F_OK) != 0, "journal rolled back");
    CHECK(sql_int(db, "SELECT COUNT(*) FROM pragma_integrity_check "
                      "WHERE integrity_check <> 'ok'") == 0,
          "integrity");
    CHECK(sql_int(db, "SELECT COUNT(*) FROM layers") == 2, "no layer of the killed run");

    /* 2. a reader that may not write the file or its folder reads a private copy
     * and leaves the original as it was */
    CHECK(crash_writer(db, "killed"), "writer killed again");
    CHECK(sqlite_refuses_ro(db), "hot journal again");
    char before[128], cmd[1024];
    snprintf(before, sizeof before, "%s/before.db", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && cp '%s' '%s-journal'", db, before, journal,
             before);
    CHECK(system(cmd) == 0, "keep a copy");
    chmod(db, 0444);
    chmod(journal, 0444);
    chmod(sub, 0555);
    setenv("TMPDIR", tmpdir, 1);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        /* root may write anything: read as nobody */
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(10);
        if (access(db, W_OK) == 0)
            _exit(11);
        char e[512];
        int r = read_committed(db, e, sizeof e);
        if (r)
            fprintf(stderr, "read-only reader: %s\n", e);
        if (r)
            _exit(12);
        /* no temporary folder: the error names the journal and says what to do */
        setenv("TMPDIR", "/nonexistent/dir", 1);
        r = store_open_readonly(db, &st, e, sizeof e);
        if (r != RT_EIO || !strstr(e, journal) || !strstr(e, "may write") || strchr(e, '\n')) {
            fprintf(stderr, "no private copy: %d %s\n", r, e);
            _exit(13);
        }
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "read-only reader: status %d",
          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    unsetenv("TMPDIR");
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s' && cmp -s '%s' '%s-journal'", db, before,
             journal, before);
    CHECK(system(cmd) == 0, "original database and journal untouched");
    CHECK(dir_is_empty(tmpdir), "private copy removed");
    chmod(sub, 0755);
    chmod(db, 0644);
    rc = read_committed(db, err, sizeof err);
    CHECK(rc == 0 && access(journal, F_OK) != 0, "writable again: rolled back: %s", err);
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* store_list_runs_brief: every field of the full list but the JSON a listing
 * does not show; the typed facts (schema 5) written are read back, in both */
static void test_list_brief(void)
{
    const char *db = path_of("brief.db");
    store *st = NULL;
    char err[512];
    int64_t id[2] = { 0, 0 };
    int rc = store_open(db, &st, err, sizeof err);
    CHECK(rc == 0, "open: %s", err);
    for (int k = 0; k < 2 && !rc; k++) {
        store_run r;
        store_run_init(&r);
        r.label = k ? "v1" : "v2";
        r.model_path = "m.onnx";
        r.platform = "rk3588";
        r.backend = "sim";
        r.inputs_json = "[{\"name\":\"x\"}]";
        r.extra_json = "{\"npu_predicted_us\":12.5}"; /* a key like any other now */
        r.env_json = "{\"host\":\"h\"}";
        r.npu_us = k ? NAN : 10.0;
        r.perf_table_us = k ? NAN : 298;
        r.npu_clock_mhz = k ? STORE_NULL_INT : 800;
        r.ddr_clock_mhz = 1066;
        r.npu_table_layers = k ? STORE_NULL_INT : 9;
        r.int8_layers = k ? 5 : STORE_NULL_INT;
        r.import_kind = k ? "board log" : NULL;
        r.log_total_us = k ? 12631 : NAN;
        r.perf_run_us = k ? 160 : STORE_NULL_INT;
        r.share_pct[1] = k ? 25.5 : NAN;
        r.cost_model_version = k ? STORE_NULL_INT : 3;
        r.cost_model_fingerprint = k ? NULL : "6de66a0ad26ec7aa";
        r.n_load = k ? 0 : 3;
        r.load_pct[0] = 91, r.load_pct[1] = 0, r.load_pct[2] = 100;
        rc = store_run_begin(st, &r, &id[k], err, sizeof err) ||
             store_run_commit(st, id[k], 20.0, err, sizeof err) ||
             store_tag_add(st, id[k], k ? "old" : "new", err, sizeof err);
        CHECK(rc == 0, "run %d: %s", k, err);
    }
    store_run *full = NULL, *brief = NULL;
    int nf = 0, nb = 0;
    rc = store_list_runs(st, &full, &nf, err, sizeof err);
    rc = rc ? rc : store_list_runs_brief(st, &brief, &nb, err, sizeof err);
    CHECK(rc == 0 && nf == 2 && nb == 2, "lists: %d %d %s", nf, nb, err);
    for (int i = 0; i < nb && nb == nf; i++) {
        const store_run *f = &full[i], *b = &brief[i];
        CHECK(b->id == f->id && same_str(b->label, f->label) && same_str(b->time, f->time) &&
                  same_str(b->model_path, f->model_path) &&
                  same_str(b->platform, f->platform) && same_str(b->backend, f->backend) &&
                  same_str(b->status, f->status) && same_str(b->tags, f->tags) &&
                  b->total_us == f->total_us && b->n_layers == f->n_layers &&
                  b->threads == f->threads && b->weight_bytes == f->weight_bytes &&
                  (b->npu_us == f->npu_us || (isnan(b->npu_us) && isnan(f->npu_us))),
              "run %d: the brief list's fields are the full list's", i);
        CHECK(f->inputs_json && f->env_json && f->extra_json &&
                  same_str(f->extra_json, "{\"npu_predicted_us\":12.5}") &&
                  isnan(f->npu_us) == (i == 1), "full list has the JSON, as written");
        CHECK(!b->inputs_json && !b->extra_json &&
                  (f->import_kind ? same_str(b->env_json, f->env_json) : !b->env_json),
              "brief list leaves inputs and extra out, env but for an import (its log's file)");
        CHECK(f->npu_table_layers == b->npu_table_layers &&
                  f->npu_table_layers == (i ? STORE_NULL_INT : 9), "run %d: level-4 table rows", i);
        for (int v = 0; v < 2; v++) {
            const store_run *x = v ? b : f;
            CHECK(i == 0 ? x->perf_table_us == 298 && x->npu_clock_mhz == 800 &&
                               x->ddr_clock_mhz == 1066 && x->int8_layers == STORE_NULL_INT &&
                               !x->import_kind && isnan(x->log_total_us) &&
                               x->perf_run_us == STORE_NULL_INT && isnan(x->share_pct[1]) &&
                               x->cost_model_version == 3 &&
                               same_str(x->cost_model_fingerprint, "6de66a0ad26ec7aa") &&
                               x->n_load == 3 && x->load_pct[0] == 91 && x->load_pct[1] == 0 &&
                               x->load_pct[2] == 100
                         : isnan(x->perf_table_us) && x->npu_clock_mhz == STORE_NULL_INT &&
                               x->int8_layers == 5 && same_str(x->import_kind, "board log") &&
                               x->log_total_us == 12631 && x->perf_run_us == 160 &&
                               x->share_pct[1] == 25.5 && isnan(x->share_pct[0]) &&
                               x->cost_model_version == STORE_NULL_INT && x->n_load == 0,
                  "run %d, %s list: the typed facts read back", i, v ? "brief" : "full");
        }
    }
    CHECK(nb == 2 && same_str(brief[1].tags, "old"), "tags read in the brief list");
    /* a layer's per-core split: kept as printed and as numbers, read once by the
     * store when the writer gives only the text */
    {
        static const char *const texts[] = { "50%/30%/20%", "100.0%/0.0%/0.0%", "100%", "n/a", NULL };
        static const int want_n[] = { 3, 3, 1, 0, 0 };
        static const double want0[] = { 50, 100, 100, NAN, NAN }, want2[] = { 20, 0, NAN, NAN, NAN };
        store_run r;
        int64_t wid = 0;
        store_run_init(&r);
        int rc2 = store_run_begin(st, &r, &wid, err, sizeof err);
        for (int k = 0; k < 6 && !rc2; k++) {
            store_layer l;
            store_layer_init(&l);
            l.idx = k;
            if (k < 5) {
                l.workload = texts[k];
            } else { /* the writer's numbers win over its text */
                l.workload = "1%/2%";
                l.n_workload = 2, l.workload_pct[0] = 60, l.workload_pct[1] = 40;
            }
            rc2 = store_layer_add(st, wid, &l, err, sizeof err);
        }
        rc2 = rc2 ? rc2 : store_run_commit(st, wid, 1.0, err, sizeof err);
        store_layer *ls2 = NULL;
        int nl2 = 0;
        CHECK(rc2 == 0 && store_get_layers(st, wid, &ls2, &nl2, err, sizeof err) == 0 && nl2 == 6,
              "workload rows: %s", err);
        for (int k = 0; k < 5 && nl2 == 6; k++)
            CHECK(ls2[k].n_workload == want_n[k] && same_str(ls2[k].workload, texts[k]) &&
                      (!want_n[k] || ls2[k].workload_pct[0] == want0[k]) &&
                      (want_n[k] < 3 || ls2[k].workload_pct[2] == want2[k]),
                  "workload '%s': %d cores", texts[k] ? texts[k] : "NULL", ls2[k].n_workload);
        CHECK(nl2 == 6 && ls2[5].n_workload == 2 && ls2[5].workload_pct[0] == 60 &&
                  ls2[5].workload_pct[1] == 40 && same_str(ls2[5].workload, "1%/2%"),
              "the writer's numbers kept");
        store_layers_free(ls2, nl2);
    }
    /* the load is stored once: a run without samples reads it as one per core at t 0 */
    store_load_sample *ls = NULL;
    int nls = 0;
    CHECK(store_get_load(st, id[0], &ls, &nls, err, sizeof err) == 0 && nls == 3 &&
              ls[0].t_us == 0 && ls[0].core == 0 && ls[0].load_pct == 91 && ls[2].core == 2 &&
              ls[2].load_pct == 100, "load as samples: %d %s", nls, err);
    free(ls);
    CHECK(store_get_load(st, id[1], &ls, &nls, err, sizeof err) == 0 && nls == 0, "no load");
    free(ls);
    CHECK(sql_int(db, "SELECT COUNT(*) FROM load_samples") == 0 &&
              sql_int(db, "SELECT COUNT(*) FROM npu_load") == 3, "stored once");
    {
        store_run r;
        int64_t bad_id = 0;
        store_run_init(&r);
        r.n_load = 1, r.load_pct[0] = 101;
        CHECK(store_run_begin(st, &r, &bad_id, err, sizeof err) == RT_EINVAL &&
                  strstr(err, "101") && bad_id == 0, "a load over 100 %% refused: %s", err);
        r.n_load = 0;
        CHECK(store_run_begin(st, &r, &bad_id, err, sizeof err) == 0 &&
                  store_run_commit(st, bad_id, 1.0, err, sizeof err) == 0, "the handle still writes: %s", err);
    }
    store_runs_free(full, nf);
    store_runs_free(brief, nb);
    store_close(st);
}

/* A run whose total and layer count are given at its begin: right whether they
 * hold at the commit (its row written once) or not (the commit corrects them). */
static void test_figures_given_at_begin(void)
{
    char db[600], err[512];
    store *st = NULL;
    snprintf(db, sizeof db, "%s/given.db", dir);
    CHECK(store_open(db, &st, err, sizeof err) == 0, "open: %s", err);
    for (int c = 0; c < 3; c++) {
        store_run r;
        int64_t id = 0;
        store_run_init(&r);
        r.total_us = c == 2 ? NAN : 250.5;
        r.n_layers = 3;
        CHECK(store_run_begin(st, &r, &id, err, sizeof err) == 0, "begin: %s", err);
        for (int i = 0; i < (c == 1 ? 2 : 3); i++) { /* case 1: fewer than said */
            store_layer l;
            store_layer_init(&l);
            l.idx = i;
            CHECK(store_layer_add(st, id, &l, err, sizeof err) == 0, "layer: %s", err);
        }
        CHECK(store_run_commit(st, id, c == 2 ? 99.0 : 250.5, err, sizeof err) == 0, "commit: %s", err);
        char q[200];
        snprintf(q, sizeof q, "SELECT n_layers * 10000 + CAST(total_us * 10 AS INTEGER) FROM runs WHERE id = %lld",
                 (long long)id);
        long long want = c == 0 ? 32505 : c == 1 ? 22505 : 30990;
        CHECK(sql_int(db, q) == want, "case %d: n_layers/total_us %lld, want %lld", c, sql_int(db, q), want);
    }
    store_close(st);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_create_insert_list();
    test_rollback();
    test_refused();
    test_user_objects();
    test_not_found();
    test_hot_journal();
    test_helpers();
    test_fullname();
    test_list_brief();
    test_figures_given_at_begin();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", dir);
    TEST_END();
}
