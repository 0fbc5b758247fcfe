/* cli/cmd_report.c — `rknn-trace report RUN [RUN...] -f FORMAT [-o OUT]`: one
 * run, or a comparison (the first run is the baseline), exported through
 * reports/ (which reads the store only). */
#include "analyze/store.h"
#include "cli/cli.h"
#include "reports/reports.h"
#include "util/util.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rknn-trace report RUN [RUN...] -f FORMAT [-o OUT] [options]\n"
            "Exports one recorded run (RUN: id or label), or a comparison of several (the first\n"
            "is the baseline; layers aligned by source tensor name, deltas, one \"verdict:\" line\n"
            "per run). Every format renders the run summary and the per-layer rows; a figure\n"
            "nobody measured is \"—\" (an empty CSV field, null in JSON), never 0.\n"
            "\n"
            "  -f, --format FORMAT    %s\n"
            "                         md: for a GitHub issue (tables <= 120 columns)\n"
            "                         html: one self-contained file, sortable/filterable tables, charts\n"
            "                         csv: one row per layer, every stored field (RFC 4180)\n"
            "                         json: the document of `show --json` (docs/json.md)\n"
            "                         trace: Chrome trace-event JSON (Perfetto), one run\n"
            "                         gnuplot: a folder of .dat and .gp files (cd DIR; gnuplot X.gp)\n"
            "                         png: a folder of charts (layer times, error curve, SRAM map)\n"
            "  -o, --output OUT       file to write (default, or -: stdout); the folder for gnuplot and png\n"
            "      --cos-threshold X  first layer with entire cos < X (0.99)\n"
            "      --db PATH          database (default $RKNN_TRACE_DB, else ./rknn-trace.db)\n"
            "exit: 0 ok, 1 usage, 2 unknown run or unwritable output\n",
            report_format_names());
}

int cmd_report(int argc, char **argv)
{
    const char *db = NULL, *fmt = NULL, *out = NULL, *ref[REPORT_MAX_RUNS];
    double thr = 0.99;
    int nr = 0, bad = 0, rc = RT_OK, format;
    report_run runs[REPORT_MAX_RUNS];
    store *st = NULL;
    char err[512] = "";

    memset(runs, 0, sizeof(runs));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return EXIT_OK;
        } else if (cli_opt_is(a, "-f") || cli_opt_is(a, "--format")) {
            if (!(fmt = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if (cli_opt_is(a, "-o") || cli_opt_is(a, "--output")) {
            if (!(out = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if (cli_opt_is(a, "--db")) {
            if (!(db = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if (cli_opt_is(a, "--cos-threshold")) {
            if (!(v = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
            thr = cli_parse_real("--cos-threshold", v, -1, 1, &bad);
            if (bad)
                return EXIT_USAGE;
        } else if (a[0] == '-' && a[1]) {
            return cli_unknown_option("report", a);
        } else if (nr < REPORT_MAX_RUNS) {
            ref[nr++] = a;
        } else {
            cli_error("report takes at most %d runs", REPORT_MAX_RUNS);
            return EXIT_USAGE;
        }
    }
    if (!nr) {
        cli_error("report: which run? (rknn-trace report RUN -f FORMAT; rknn-trace ls lists them)");
        return EXIT_USAGE;
    }
    if (!fmt) {
        cli_error("report: which format? -f %s", report_format_names());
        return EXIT_USAGE;
    }
    if ((format = report_format_parse(fmt)) < 0) {
        cli_error("report: unknown format '%s' (%s)", fmt, report_format_names());
        return EXIT_USAGE;
    }
    if (out && !strcmp(out, "-") && !report_format_is_folder(format))
        out = NULL;  /* as export: - is stdout */
    if (report_format_is_folder(format) && !out) {
        cli_error("report -f %s writes a folder: name it with -o DIR", fmt);
        return EXIT_USAGE;
    }
    if (nr > 1 && format == REPORT_TRACE) {
        cli_error("report -f trace shows one run's timeline: give one run (compare runs in md, html, "
                  "csv, json, gnuplot or png)");
        return EXIT_USAGE;
    }
    rc = store_open_readonly(store_default_path(db), &st, err, sizeof(err));
    for (int k = 0; k < nr && !rc; k++)
        rc = report_run_load(st, ref[k], thr, &runs[k], err, sizeof(err));
    if (!rc)
        /* a comparison's verdicts also go where a CI log sees them */
        rc = report_write(runs, nr, format, out, out ? stdout : stderr, err, sizeof(err));
    if (rc)
        cli_error("%s", err);
    for (int k = 0; k < nr; k++)
        report_run_free(&runs[k]);
    store_close(st);
    return cli_exit_code(rc);
}
