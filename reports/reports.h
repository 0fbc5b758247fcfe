/* reports/reports.h — exporters: one stored run, or a comparison of several,
 * written as Markdown, HTML, CSV, JSON, a Chrome trace-event file, a gnuplot
 * folder or PNG charts (`rknn-trace report`).
 *
 * Reports read the store only (analyze/store.h) and render the one run summary
 * (analyze/analyze.h: summary_compute; `-f json` is summary_json_doc, the
 * document of `show --json`). Missing is not zero: a figure nobody measured
 * prints "—" in text (Markdown, HTML, PNG labels), an empty cell in CSV, null
 * in JSON, "?" in gnuplot data; it never prints 0. Every name (label, model,
 * layer, tensor, op, log string) is written through util/escape.h's format
 * for its output, never raw.
 *
 * A comparison renders the one comparison document (analyze/compare_doc.h:
 * the union of the runs' layers aligned by source tensor name, the first run
 * the baseline), shows per-layer deltas, lists the layers only some runs have,
 * and ends with one "verdict:" line per run against the baseline (cmp_verdict,
 * the line `compare` prints too) that a CI job can grep. */
#ifndef RT_REPORTS_H
#define RT_REPORTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "analyze/analyze.h"
#include "analyze/compare_doc.h"
#include "util/outfile.h"

#define REPORT_MAX_RUNS CMP_MAX_RUNS

enum report_format {
    REPORT_MD, REPORT_HTML, REPORT_CSV, REPORT_JSON, REPORT_TRACE, REPORT_GNUPLOT, REPORT_PNG,
    REPORT_NFORMATS
};

/* One run as the store gives it, and its summary: analyze/compare_doc.h's run. */
typedef cmp_run report_run;

/* "md", "html", ... -> enum report_format; -1 when unknown. */
int report_format_parse(const char *name);
/* "md, html, csv, json, trace, gnuplot, png" */
/* the formats as report_format_names() lists them (a literal: option tables use it) */
#define REPORT_FORMAT_NAMES "md, html, csv, json, trace, gnuplot, png"
const char *report_format_names(void);
/* 1: the format writes a folder (gnuplot, png), 0: one file (or stdout). */
int report_format_is_folder(int format);

/* Reads run ref (id or label) with its rows; RT_ENOTFOUND names an unknown run.
 * report_run_free is safe on a partly loaded run. */
int report_run_load(store *st, const char *ref, double cos_threshold, report_run *r, char *err,
                    size_t errlen);
void report_run_free(report_run *r);

/* Writes the report of runs[0..n) (n >= 2: a comparison, runs[0] the baseline)
 * to out: a file (NULL: stdout) or, for a folder format, a folder that is
 * created when missing (required). RT_EIO names a path that cannot be written;
 * RT_EUNSUPPORTED a comparison in a format that has none (trace). A
 * comparison's verdict lines also go to verdicts (NULL: nowhere). */
int report_write(const report_run *runs, int n, int format, const char *out, FILE *verdicts,
                 char *err, size_t errlen);

/* ---- Internal to the reports module ------------------------------------------------ */

/* The comparison document (analyze/compare_doc.h): rows aligned over the runs
 * by its one rule, speed pairs, verdicts. n == 1: a single-run report, one row
 * per layer row (also those without a name), then the accuracy-only tensors. */
typedef cmp_row rep_row;
typedef cmp_doc rep_doc;

int rep_doc_build(const report_run *runs, int n, rep_doc *d);
void rep_doc_free(rep_doc *d);

#define REP_MISSING "\xe2\x80\x94"   /* "—": a figure nobody measured */

/* Cells: v printed with fmt, or "—". */
const char *rep_num(char *buf, size_t len, double v, const char *fmt);
const char *rep_int(char *buf, size_t len, int64_t v);   /* STORE_NULL_INT -> "—" */
const char *rep_str(const char *s);                       /* NULL -> "—" */
/* An imported log's own block (summary_log_print: the words `show` prints),
 * without its leading blank line; malloc'd, NULL for a run not imported. */
char *rep_log_text(const run_summary *s);
/* A long name cut to width characters (code points) as "head…tail"; the same
 * name and width always give the same text. */
const char *rep_short(char *buf, size_t len, const char *name, int width);
/* Columns of a text cell: UTF-8 code points. */
int rep_width(const char *s);
/* The layer's time the report draws: a board run's measured table time, else
 * the predicted frame share, else the table time; NaN when none. */
double rep_layer_us(const report_run *r, const store_layer *l);
int rep_is_board(const report_run *r);
/* "#3 i8-mmse" */
const char *rep_run_name(const report_run *r, char *buf, size_t len);
/* "A", "B", ... */
const char *rep_tag(int k);
/* The verdict line of run k (k >= 1) against the baseline, no newline. */
void rep_verdict(const rep_doc *d, int k, char *buf, size_t len);
/* The runs that have an aligned row ("A, C") into buf; 1 when every run has it. */
int rep_row_runs(const rep_doc *d, const rep_row *row, char *buf, size_t len);
/* Entire / single cos of an aligned row in run k, NaN none. */
double rep_row_cos(const rep_doc *d, const rep_row *row, int k, int single);
double rep_row_us(const rep_doc *d, const rep_row *row, int k);
/* Where those times come from, in the words `compare` prints (cmp_layer_us_words). */
const char *rep_layer_us_words(const rep_doc *d, char *buf, size_t len);
/* The colour of a bound ("compute", "DDR", "CPU", other) as 0xRRGGBB. */
uint32_t rep_bound_rgb(const char *bound);
/* Creates folder dir (and its parents) if missing; RT_EIO when it cannot. */
int rep_mkdir(const char *dir, char *err, size_t errlen);
/* Opens dir/name (dir NULL: name) for writing through util/outfile.h (the
 * previous file stays whole until rep_fclose); RT_EIO names the path. */
int rep_fopen(const char *dir, const char *name, outfile **o, FILE **f, char *err,
              size_t errlen);
/* Commits o (NULL: f is stdout, flushed), reporting a write error (full disk)
 * on path; the previous file is intact when it fails. */
int rep_fclose(outfile *o, FILE *f, const char *path, char *err, size_t errlen);

int report_md(const rep_doc *d, FILE *f);
int report_html(const rep_doc *d, FILE *f);
int report_csv(const rep_doc *d, FILE *f);
int report_json(const rep_doc *d, FILE *f);
int report_trace(const rep_doc *d, FILE *f);
int report_gnuplot(const rep_doc *d, const char *dir, char *err, size_t errlen);
int report_png(const rep_doc *d, const char *dir, char *err, size_t errlen);

/* PNG drawing (reports/png_canvas.c): an RGB canvas, a 5x7 bitmap font. */
typedef struct rep_canvas {
    int w, h;
    uint8_t *px;                 /* w*h*3 */
} rep_canvas;

int rep_canvas_init(rep_canvas *c, int w, int h, uint32_t bg);
void rep_canvas_free(rep_canvas *c);
void rep_fill(rep_canvas *c, int x, int y, int w, int h, uint32_t rgb);
void rep_line(rep_canvas *c, int x0, int y0, int x1, int y1, uint32_t rgb);
/* Text at (x, y) top-left, scale 1: 6x9 pixels per character; returns its width. */
int rep_text(rep_canvas *c, int x, int y, const char *s, int scale, uint32_t rgb);
int rep_canvas_write(const rep_canvas *c, const char *path, char *err, size_t errlen);

#endif
