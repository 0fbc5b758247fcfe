/* cli/cmd_report.c — `rknn-trace report RUN [RUN...] -f FORMAT [-o OUT]`: one
 * run, or a comparison (the first run is the baseline), exported through
 * reports/ (which reads the store only). */
#include "analyze/store.h"
#include "cli/cli.h"
#include "cli/opt.h"
#include "reports/reports.h"
#include "util/util.h"

#include <stdio.h>
#include <string.h>

typedef struct report_opts {
    const char *db, *fmt, *out;
    double thr;
} report_opts;

#define CLI_OPTS_T report_opts
static const cli_opt report_options[] = {
    CLI_OPT_STR("--format", 'f', "FORMAT", fmt,
                REPORT_FORMAT_NAMES "\n"
                "md: for a GitHub issue (tables <= 120 columns)\n"
                "html: one self-contained file, sortable/filterable tables, charts\n"
                "csv: one row per layer, every stored field (RFC 4180)\n"
                "json: the document of `show --json` (docs/json.md)\n"
                "trace: Chrome trace-event JSON (Perfetto), one run\n"
                "gnuplot: a folder of .dat and .gp files (cd DIR; gnuplot X.gp)\n"
                "png: a folder of charts (layer times, error curve, SRAM map)"),
    CLI_OPT_STR("--output", 'o', "OUT", out,
                "file to write (default, or -: stdout); the folder for gnuplot and png"),
    CLI_OPT_REAL("--cos-threshold", 0, "X", thr, -1, 1, "first layer with entire cos < X (0.99)"),
    CLI_OPT_DB(db),
    CLI_OPT_END};
#undef CLI_OPTS_T

const cli_spec cli_spec_report = {
    "report",
    "usage: rknn-trace report RUN [RUN...] -f FORMAT [-o OUT] [options]\n"
    "Exports one recorded run (RUN: id or label), or a comparison of several (the first\n"
    "is the baseline; layers aligned by source tensor name, deltas, one \"verdict:\" line\n"
    "per run). Every format renders the run summary and the per-layer rows; a figure\n"
    "nobody measured is \"—\" (an empty CSV field, null in JSON), never 0.\n"
    "\n",
    report_options, "exit: 0 ok, 1 usage, 2 unknown run or unwritable output\n"};

/* The runs left in argv[1..n] and the format: n; -1 after --help; 0 after a
 * usage error. */
static int parse_report(int argc, char **argv, report_opts *o, int *format)
{
    memset(o, 0, sizeof(*o));
    o->thr = 0.99;
    int nr = cli_parse(&cli_spec_report, argc, argv, o);
    if (nr == CLI_PARSE_HELP)
        return -1;
    if (nr < 0)
        return 0;
    if (nr > REPORT_MAX_RUNS) {
        cli_error("report takes at most %d runs", REPORT_MAX_RUNS);
        return 0;
    }
    if (!nr) {
        cli_error("report: which run? (rknn-trace report RUN -f FORMAT; rknn-trace ls lists them)");
        return 0;
    }
    if (!o->fmt) {
        cli_error("report: which format? -f %s", report_format_names());
        return 0;
    }
    if ((*format = report_format_parse(o->fmt)) < 0) {
        cli_error("report: unknown format '%s' (%s)", o->fmt, report_format_names());
        return 0;
    }
    if (o->out && !strcmp(o->out, "-") && !report_format_is_folder(*format))
        o->out = NULL; /* as export: - is stdout */
    if (report_format_is_folder(*format) && !o->out) {
        cli_error("report -f %s writes a folder: name it with -o DIR", o->fmt);
        return 0;
    }
    if (nr > 1 && *format == REPORT_TRACE) {
        cli_error("report -f trace shows one run's timeline: give one run (compare runs in md, html, "
                  "csv, json, gnuplot or png)");
        return 0;
    }
    return nr;
}

int cmd_report(int argc, char **argv)
{
    report_opts o;
    int nr, rc = RT_OK, format = 0;
    report_run runs[REPORT_MAX_RUNS];
    store *st = NULL;
    char err[512] = "";

    if ((nr = parse_report(argc, argv, &o, &format)) <= 0)
        return nr < 0 ? EXIT_OK : EXIT_USAGE;
    const char *const *ref = (const char *const *)argv + 1;
    memset(runs, 0, sizeof(runs));
    rc = store_open_readonly(store_default_path(o.db), &st, err, sizeof(err));
    for (int k = 0; k < nr && !rc; k++)
        rc = report_run_load(st, ref[k], o.thr, &runs[k], err, sizeof(err));
    if (!rc)
        /* a comparison's verdicts also go where a CI log sees them */
        rc = report_write(runs, nr, format, o.out, o.out ? stdout : stderr, err, sizeof(err));
    if (rc)
        cli_error("%s", err);
    for (int k = 0; k < nr; k++)
        report_run_free(&runs[k]);
    store_close(st);
    return cli_exit_code(rc);
}
