/* cli/cmd_tui.c — `rknn-trace tui [--db PATH] [RUN]`: the ncurses browser (tui/). */
#include "cli/cli.h"
#include "tui/tui.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fputs("usage: rknn-trace tui [--db PATH] [RUN] [--cos-threshold X]\n"
          "Browses the recorded runs in the terminal: runs (sort, search, filter, mark,\n"
          "compare, relabel, delete), a run's layers (CPU fallbacks and their reasons,\n"
          "bound, share of the frame, error vs golden), a layer's detail, the run\n"
          "summary as `show` prints it, two or more runs compared, the NPU load.\n"
          "RUN (an id or a label) opens that run's layers first. Press ? for the keys.\n"
          "Read-only, except a delete or a new label the user confirms.\n"
          "\n"
          "      --db PATH          database (default $RKNN_TRACE_DB, else ./rknn-trace.db)\n"
          "      --cos-threshold X  colours and the first layer with entire cos < X (0.99)\n"
          "environment: NO_COLOR (monochrome), RKNN_TRACE_TUI_KEYLOG=FILE (time of each key)\n"
          "exit: 0 ok, 1 usage or no terminal, 2 missing or foreign database, unknown run\n",
          f);
}

int cmd_tui(int argc, char **argv)
{
    const char *db = NULL, *run = NULL;
    double thr = 0.99;
    int bad = 0;
    char err[512] = "";

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return EXIT_OK;
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
            return cli_unknown_option("tui", a);
        } else if (!run) {
            run = a;
        } else {
            cli_error("tui takes one run, got a second: '%s'", a);
            return EXIT_USAGE;
        }
    }
    tui_opts o = { .db = store_default_path(db), .run = run, .cos_threshold = thr,
                   .keylog = getenv("RKNN_TRACE_TUI_KEYLOG") };
    if (o.keylog && !*o.keylog)
        o.keylog = NULL;
    int rc = tui_main(&o, err, sizeof(err));
    if (rc) {
        cli_error("%s", err);
        /* no terminal is a usage error; the rest is about the database or the run */
        return rc == RT_EINVAL ? EXIT_USAGE : cli_exit_code(rc);
    }
    return EXIT_OK;
}
