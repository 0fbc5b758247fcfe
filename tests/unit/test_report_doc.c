/* The report document and cells (reports/report.c) on a hand-made run: a
 * single-run document has one row per layer row (a nameless one included)
 * and then the accuracy-only tensors; missing figures print "—" (CSV: an
 * empty field, never 0); names are cut as "head…tail" to a width in code
 * points; a CSV cell a spreadsheet would read as a formula gets a ' prefix.
 * Each expectation is worked out here by hand. */
#include "reports/reports.h"
#include "tests/test.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static store_layer lay(int64_t idx, const char *name, const char *op, double time_us)
{
    store_layer l;
    store_layer_init(&l);
    l.idx = idx, l.name = name, l.op = op, l.time_us = time_us;
    return l;
}

/* field k (0-based) of CSV line s, RFC 4180 quotes removed, into buf */
static const char *csv_field(const char *s, int k, char *buf, size_t len)
{
    size_t o = 0;
    int f = 0, q = 0;
    for (; *s && *s != '\r' && *s != '\n'; s++) {
        if (q && *s == '"' && s[1] == '"') {
            if (f == k && o + 1 < len)
                buf[o++] = '"';
            s++;
        } else if (*s == '"') {
            q = !q;
        } else if (*s == ',' && !q) {
            f++;
        } else if (f == k && o + 1 < len) {
            buf[o++] = *s;
        }
    }
    buf[o] = 0;
    return buf;
}

static void cells(void)
{
    char b[64];
    CHECK(!strcmp(rep_num(b, sizeof b, NAN, "%.2f"), REP_MISSING), "NaN prints as —");
    CHECK(!strcmp(rep_num(b, sizeof b, 1.5, "%.2f"), "1.50"), "1.5: %s", b);
    CHECK(!strcmp(rep_int(b, sizeof b, STORE_NULL_INT), REP_MISSING), "null int prints as —");
    CHECK(!strcmp(rep_int(b, sizeof b, 0), "0"), "a measured 0 stays 0: %s", b);
    CHECK(!strcmp(rep_str(NULL), REP_MISSING), "NULL text prints as —");
    /* "aé—z": 4 code points in 1 + 2 + 3 + 1 bytes */
    CHECK(rep_width("a\xc3\xa9\xe2\x80\x94z") == 4, "width of a 7-byte, 4-code-point text");
    const char *name = "backbone/stage3/block17/conv2/Conv_output_0"; /* 43 code points */
    rep_short(b, sizeof b, name, 16);
    /* 16 columns: 5 of the head, the ellipsis, 10 of the tail */
    CHECK(!strcmp(b, "backb\xe2\x80\xa6v_output_0"), "cut to 16: %s", b);
    CHECK(rep_width(b) == 16, "cut width %d", rep_width(b));
    rep_short(b, sizeof b, "conv1", 16);
    CHECK(!strcmp(b, "conv1"), "a short name stays: %s", b);
    for (int k = 0; k < REPORT_NFORMATS; k++) {
        static const char *const names[] = {"md", "html", "csv", "json", "trace", "gnuplot", "png"};
        CHECK(report_format_parse(names[k]) == k, "format %s", names[k]);
        CHECK(report_format_is_folder(k) == (k == REPORT_GNUPLOT || k == REPORT_PNG),
              "folder format %s", names[k]);
    }
    CHECK(report_format_parse("pdf") == -1, "an unknown format");
    CHECK(!strcmp(rep_tag(0), "A") && !strcmp(rep_tag(2), "C"), "run tags");
}

/* Layers: conv (12.5 us), a nameless Relu (time unknown), "=HYPERLINK(1)"
 * (3 us); accuracy rows: conv's and the graph input's "images" (no layer row). */
static void single_run(void)
{
    store_layer l[3] = {lay(0, "conv", "Conv", 12.5), lay(1, NULL, "Relu", NAN),
                        lay(2, "=HYPERLINK(1)", "Add", 3)};
    store_accuracy a[2];
    memset(a, 0, sizeof a);
    a[0].idx = 0, a[0].layer = 0, a[0].name = "conv", a[0].op = "Conv";
    a[0].entire.cos = 0.75, a[0].single.cos = NAN;
    a[1].idx = 1, a[1].layer = -1, a[1].name = "images";
    a[1].entire.cos = 1, a[1].single.cos = NAN;
    report_run r;
    memset(&r, 0, sizeof r);
    store_run_init(&r.run);
    r.run.id = 7, r.run.label = "fp16", r.run.backend = "sim";
    r.layers = l, r.n_layers = 3, r.acc = a, r.n_acc = 2;
    cmp_run_summarize(&r, 0.99);

    rep_doc d;
    CHECK(rep_doc_build(&r, 1, &d) == 0, "single-run document");
    /* 3 layer rows in their order, then the tensor only accuracy has */
    CHECK(d.n_rows == 4, "rows %d", d.n_rows);
    if (d.n_rows == 4) {
        CHECK(d.rows[0].layer[0] == 0 && d.rows[1].layer[0] == 1 && d.rows[2].layer[0] == 2,
              "layer rows in order");
        CHECK(d.rows[0].acc[0] == 0, "conv's accuracy row joins its layer");
        CHECK(d.rows[3].layer[0] == -1 && d.rows[3].acc[0] == 1 &&
              !strcmp(d.rows[3].name, "images"), "the input's accuracy-only row last");
        CHECK_NEAR(rep_row_cos(&d, &d.rows[0], 0, 0), 0.75, 0, "conv entire cos");
        CHECK(isnan(rep_row_cos(&d, &d.rows[0], 0, 1)), "conv single cos unknown");
        CHECK(isnan(rep_row_cos(&d, &d.rows[1], 0, 0)), "no cos for the Relu");
    }

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f && report_csv(&d, f) == 0, "csv written");
    if (f)
        fclose(f);
    /* header, then the rows; find the columns by the header's names */
    int c_name = -1, c_time = -1, c_cos = -1;
    char h[64], v[64];
    for (int k = 0; k < 60; k++) {
        csv_field(text, k, h, sizeof h);
        c_name = !strcmp(h, "name") ? k : c_name;
        c_time = !strcmp(h, "time_us") ? k : c_time;
        c_cos = !strcmp(h, "entire_cos") ? k : c_cos;
    }
    CHECK(c_name >= 0 && c_time >= 0 && c_cos >= 0, "csv header has name, time_us, entire_cos");
    const char *line[4] = {NULL};
    const char *p = text;
    for (int i = 0; i < 4 && p && (p = strstr(p, "\r\n")); i++)
        line[i] = (p += 2);
    if (line[2] && c_name >= 0 && c_time >= 0 && c_cos >= 0) {
        CHECK(!strcmp(csv_field(line[0], c_name, v, sizeof v), "conv"), "row 1 name %s", v);
        CHECK(!strcmp(csv_field(line[0], c_time, v, sizeof v), "12.5"), "row 1 time %s", v);
        CHECK(!strcmp(csv_field(line[0], c_cos, v, sizeof v), "0.75"), "row 1 cos %s", v);
        CHECK(!strcmp(csv_field(line[1], c_time, v, sizeof v), ""), "unknown time empty: %s", v);
        CHECK(!strcmp(csv_field(line[1], c_cos, v, sizeof v), ""), "unknown cos empty: %s", v);
        CHECK(!strcmp(csv_field(line[2], c_name, v, sizeof v), "'=HYPERLINK(1)"),
              "formula-looking name prefixed: %s", v);
    }
    free(text);
    rep_doc_free(&d);
    summary_free(&r.sum);
}

int main(void)
{
    cells();
    single_run();
    TEST_END();
}
