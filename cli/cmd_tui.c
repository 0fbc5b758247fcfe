/* cli/cmd_tui.c — `rknn-trace tui [--db PATH] [RUN]`: the ncurses browser (tui/). */
#include "cli/cli.h"
#include "cli/opt.h"
#include "tui/tui.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tui_cli_opts {
    const char *db;
    double cos_threshold;
} tui_cli_opts;

#define CLI_OPTS_T tui_cli_opts
static const cli_opt tui_options[] = {
    CLI_OPT_DB(db),
    CLI_OPT_REAL("--cos-threshold", 0, "X", cos_threshold, -1, 1,
                 "colours and the first layer with entire cos < X (0.99)"),
    CLI_OPT_END};
#undef CLI_OPTS_T

const cli_spec cli_spec_tui = {
    "tui",
    "usage: rknn-trace tui [--db PATH] [RUN] [--cos-threshold X]\n"
    "Browses the recorded runs in the terminal: runs (sort, search, filter, mark,\n"
    "compare, relabel, delete), a run's layers (CPU fallbacks and their reasons,\n"
    "bound, share of the frame, error vs golden), a layer's detail, the run\n"
    "summary as `show` prints it, two or more runs compared, the NPU load.\n"
    "RUN (an id or a label) opens that run's layers first. Press ? for the keys.\n"
    "Read-only, except a delete or a new label the user confirms.\n"
    "\n",
    tui_options,
    "environment: NO_COLOR (monochrome), RKNN_TRACE_TUI_KEYLOG=FILE (time of each key)\n"
    "exit: 0 ok, 1 usage or no terminal, 2 missing or foreign database, unknown run\n"};

int cmd_tui(int argc, char **argv)
{
    tui_cli_opts c = {.cos_threshold = 0.99};
    char err[512] = "";
    int n = cli_parse(&cli_spec_tui, argc, argv, &c);

    if (n < 0)
        return n == CLI_PARSE_HELP ? EXIT_OK : EXIT_USAGE;
    if (n > 1) {
        cli_error("tui takes one run, got a second: '%s'", argv[2]);
        return EXIT_USAGE;
    }
    tui_opts o = { .db = store_default_path(c.db), .run = n ? argv[1] : NULL,
                   .cos_threshold = c.cos_threshold, .keylog = getenv("RKNN_TRACE_TUI_KEYLOG") };
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
