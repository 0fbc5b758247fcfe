/* The external-golden reader and analysis (analyze/golden.c) on folders made
 * here: the board's level-5 dump names, another tool's index.json, the three
 * layouts a folder is read in, and the metrics of a run folder against a
 * golden one, each expectation worked out by hand. */
#include "analyze/analyze.h"
#include "dump/dump.h"
#include "tests/test.h"
#include "util/dtype.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[] = "/tmp/rt_test_golden_XXXXXX";

static void put_npy(const char *dir, const char *file, const float *v, int64_t n)
{
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/%s/%s", root, dir, file);
    int64_t dims[2] = {1, n};
    CHECK(npy_write(path, DT_FLOAT, 2, dims, v, err, sizeof err) == 0, "%s: %s", path, err);
}

static void put_text(const char *dir, const char *file, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s", root, dir, file);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "%s", path);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void sub(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, dir);
    CHECK(mkdir(path, 0700) == 0, "mkdir %s", path);
}

static const golden_row *row_of(const golden_report *r, const char *name)
{
    for (int i = 0; i < r->n_rows; i++)
        if (!strcmp(r->rows[i].name, name))
            return &r->rows[i];
    return NULL;
}

static void dump_names(void)
{
    int idx, dt;
    char *op, *tensor;
    /* the tensor name keeps its '_'; the last "_shape_" ends it */
    CHECK(golden_parse_dump_name("007_Conv_conv_1_out_shape_1_8_4_4_float32.npy", &idx, &op,
                                 &tensor, &dt) == 0, "a level-5 name");
    CHECK(idx == 7 && !strcmp(op, "Conv") && !strcmp(tensor, "conv_1_out") && dt == DT_FLOAT,
          "007: %d %s %s %d", idx, op, tensor, dt);
    free(op), free(tensor);
    CHECK(golden_parse_dump_name("012_Add_y_shape_3_int8.npy", &idx, &op, &tensor, &dt) == 0,
          "int8");
    CHECK(idx == 12 && !strcmp(op, "Add") && !strcmp(tensor, "y") && dt == DT_INT8, "012");
    free(op), free(tensor);
    /* not such names: two digits, no shape, no op, not .npy, dims with letters */
    const char *bad[] = {"07_Conv_x_shape_1_float32.npy", "007_Conv_x_float32.npy",
                         "007__x_shape_1_float32.npy", "007_Conv_x_shape_1_float32.bin",
                         "007_Conv_x_shape_1a_2_float32.npy", "conv.npy"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(golden_parse_dump_name(bad[i], &idx, &op, &tensor, &dt) == -1, "%s taken", bad[i]);
}

static void index_maps(void)
{
    golden_name_map m;
    const char *flat = "{\"/conv1/Conv_output_0\": \"conv1_out.npy\", \"up\": \"../x.npy\", "
                       "\"abs\": \"/etc/x.npy\", \"n\": 3}";
    CHECK(golden_parse_index_map(flat, strlen(flat), &m) == 0, "flat map");
    /* only relative .npy paths inside the folder; a number is another form */
    CHECK(m.n == 1 && !strcmp(m.name[0], "/conv1/Conv_output_0") &&
          !strcmp(m.file[0], "conv1_out.npy"), "flat map: %d entries", m.n);
    golden_name_map_free(&m);
    const char *lists = "{\"tensors\": [{\"name\": \"a\", \"file\": \"t/a.npy\"}, {\"name\": \"b\"}]}";
    CHECK(golden_parse_index_map(lists, strlen(lists), &m) == 0, "list map");
    CHECK(m.n == 1 && !strcmp(m.name[0], "a") && !strcmp(m.file[0], "t/a.npy"),
          "list map: %d entries", m.n);
    golden_name_map_free(&m);
    CHECK(golden_parse_index_map("[1, 2]", 6, &m) == -1, "a list is not a map");
}

/* run/x = [1,2,2], golden/x = [2,4,4]: cos 1, euc |(1,2,2)| = 3, max_abs 2,
 * mean_abs 5/3; run/y = [1,0], golden/y = [0,1]: cos 0, euc sqrt 2 */
static void analysis(void)
{
    char err[256], run[512], gold[512];
    static const float x[] = {1, 2, 2}, gx[] = {2, 4, 4}, y[] = {1, 0}, gy[] = {0, 1};
    sub("run"), sub("gold"), sub("gold/deep");
    put_npy("run", "x.npy", x, 3);
    put_npy("run", "y.npy", y, 2);
    put_npy("gold", "x.npy", gx, 3);
    put_npy("gold/deep", "y.npy", gy, 2);
    /* the run folder is ours: its index.json (the form dump/dump_dir.c writes) */
    put_text("run", "index.json",
             "[{\"layer\": -1, \"node\": null, \"op\": null, \"name\": \"x\", \"file\": "
             "\"x.npy\", \"shape\": [1, 3], \"dtype\": \"float32\"},\n"
             " {\"layer\": 0, \"node\": \"n0\", \"op\": \"Relu\", \"name\": \"y\", "
             "\"file\": \"y.npy\", \"shape\": [1, 2], \"dtype\": \"float32\"}]\n");
    /* another tool's index: y lives in a subfolder; the run folder is read by name */
    put_text("gold", "index.json", "{\"y\": \"deep/y.npy\"}");
    snprintf(run, sizeof run, "%s/run", root);
    snprintf(gold, sizeof gold, "%s/gold", root);

    golden_file *f;
    int n;
    const char *layout = NULL;
    CHECK(golden_scan_layout(gold, &f, &n, &layout, err, sizeof err) == 0, "scan: %s", err);
    CHECK(n == 2 && layout && !strcmp(layout, "by-name"), "scan: %d files, layout %s", n,
          layout ? layout : "(null)");
    golden_files_free(f, n);

    golden_report *r = NULL;
    CHECK(golden_analyze(run, gold, &r, err, sizeof err) == 0, "analyze: %s", err);
    if (!r)
        return;
    CHECK(r->n_rows == 2 && r->n_matched == 2, "rows %d matched %d", r->n_rows, r->n_matched);
    const golden_row *rx = row_of(r, "x"), *ry = row_of(r, "y");
    CHECK(rx && ry, "rows x and y");
    if (rx && ry) {
        CHECK_NEAR(rx->m.cos, 1.0, 1e-12, "x cos");
        CHECK_NEAR(rx->m.euc, 3.0, 1e-12, "x euc");
        CHECK_NEAR(rx->m.max_abs, 2.0, 1e-12, "x max_abs");
        CHECK_NEAR(rx->m.mean_abs, 5.0 / 3, 1e-12, "x mean_abs");
        CHECK(rx->count == 3 && rx->layer == -1 && ry->layer == 0, "x count, layers");
        CHECK_NEAR(ry->m.cos, 0.0, 1e-12, "y cos");
        CHECK_NEAR(ry->m.euc, sqrt(2.0), 1e-12, "y euc");
    }
    golden_report_free(r);

    /* a golden with a different element count: one error, nothing compared */
    put_npy("gold", "x.npy", y, 2);
    r = NULL;
    CHECK(golden_analyze(run, gold, &r, err, sizeof err) == RT_ESHAPE, "count mismatch: %s", err);
    golden_report_free(r);
}

/* A Toolkit2 accuracy_analysis snapshot: golden/ beside simulator/; the
 * golden is golden/, never the quantized simulator/ values */
static void snapshot(void)
{
    char err[256], dir[512];
    static const float g[] = {1, 1}, s[] = {9, 9};
    sub("snap"), sub("snap/golden"), sub("snap/simulator");
    put_npy("snap/golden", "out.npy", g, 2);
    put_npy("snap/simulator", "out.npy", s, 2);
    put_npy("snap/simulator", "only_sim.npy", s, 2);
    snprintf(dir, sizeof dir, "%s/snap", root);
    golden_file *f;
    int n;
    const char *layout = NULL;
    CHECK(golden_scan_layout(dir, &f, &n, &layout, err, sizeof err) == 0, "snapshot: %s", err);
    CHECK(layout && !strcmp(layout, "toolkit2-snapshot"), "layout %s", layout ? layout : "(null)");
    CHECK(n == 1 && !strcmp(f[0].name, "out") && strstr(f[0].path, "/golden/"),
          "snapshot: %d files, %s", n, n ? f[0].path : "");
    golden_files_free(f, n);
}

int main(void)
{
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    dump_names();
    index_maps();
    analysis();
    snapshot();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    TEST_END();
}
