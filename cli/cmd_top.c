/* cli/cmd_top.c — `rknn-trace top`: the NPU's load per core over time, its
 * clock and governor, the driver, SRAM use and the processes holding it; a
 * live ncurses view, or one snapshot (--snapshot [--json]). Reads only the
 * board probe (tracer/board*.c). */
#include "cli/cli.h"
#include "record/board_facts.h"
#include "cli/opt.h"
#include "tracer/board.h"
#include "tui/tui.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct top_opts {
    const char *root;
    int sim, snapshot, json;
    long long interval, count;
} top_opts;

#define CLI_OPTS_T top_opts
static const cli_opt top_options[] = {
    CLI_OPT_STR("--root", 0, "DIR", root, "read /sys and /proc under DIR (a copy of a board's), default /"),
    CLI_OPT_FLAG("--sim", 0, sim,
                 "read the simulator's published load and SRAM map\n"
                 "($RKNN_TRACE_SYSFS/rknpu; used by default when the root is / and\n"
                 "there is no rknpu node)"),
    CLI_OPT_FLAG("--snapshot", 0, snapshot,
                 "print one reading and exit (text, or --json: docs/json.md \"top\")"),
    CLI_OPT_FLAG("--json", 0, json, "with --snapshot: one JSON document"),
    CLI_OPT_COUNT("--interval", 0, "MS", interval, 10, 3600000,
                  "refresh period of the live view (default 100 = 10 Hz): the load\n"
                  "every refresh, the other nodes each second, processes every 2 s"),
    CLI_OPT_COUNT("--count", 0, "N", count, 0, 3600000,
                  "stop after N refreshes (default: until q)"),
    CLI_OPT_END};
#undef CLI_OPTS_T

const cli_spec cli_spec_top = {
    "top",
    "usage: rknn-trace top [--root DIR] [--sim] [--snapshot [--json]] [--interval MS] [--count N]\n"
    "The NPU live: load per core over time, clock and governor, driver version, SRAM use\n"
    "and the processes holding the NPU, from the rknpu driver's debugfs (or procfs) nodes,\n"
    "devfreq, the DRM devices and /proc. Reading debugfs needs root: a node that is absent\n"
    "or needs root is shown as such, never as 0.\n",
    top_options, NULL};

/* The runtime a board run would load and its version, into the snapshot. */
static void runtime_facts(board_snapshot_t *s)
{
    const char *rt = board_runtime_find(NULL);

    if (!rt)
        return;
    snprintf(s->runtime_path, sizeof s->runtime_path, "%s", rt);
    board_runtime_version(rt, s->runtime_version, sizeof s->runtime_version);
}

static int top_snapshot(const top_opts *o)
{
    board_snapshot_t *s = xcalloc(1, sizeof(*s));

    board_snapshot(s, o->root, o->sim, BOARD_SNAP_ALL);
    runtime_facts(s);
    if (o->json) {
        json_writer w;
        json_begin(&w, stdout);
        board_snapshot_json(s, &w);
        json_end(&w);
    } else {
        tui_top_print(s);
    }
    free(s);
    return EXIT_OK;
}

static int top_live(const top_opts *o)
{
    char err[256];
    board_snapshot_t *facts = xcalloc(1, sizeof(*facts));

    runtime_facts(facts);
    int rc = tui_top_live(o->root, o->sim, facts->runtime_path, facts->runtime_version,
                          (int)o->interval, o->count, err, sizeof err);
    free(facts);
    if (rc) {
        cli_error("top: %s", err);
        return EXIT_INTERNAL;
    }
    return EXIT_OK;
}

int cmd_top(int argc, char **argv)
{
    top_opts o = {.root = "/", .sim = -1, .interval = 100};
    int n = cli_parse(&cli_spec_top, argc, argv, &o);
    struct stat st;

    if (n < 0)
        return n == CLI_PARSE_HELP ? EXIT_OK : EXIT_USAGE;
    if (n > 0)
        return cli_unknown_option("top", argv[1]);
    if (stat(o.root, &st) || !S_ISDIR(st.st_mode)) {
        cli_error("top: --root %s is not a directory", o.root);
        return EXIT_INPUT;
    }
    if (o.json && !o.snapshot) {
        cli_error("top: --json goes with --snapshot (the live view is a terminal's)");
        return EXIT_USAGE;
    }
    return o.snapshot ? top_snapshot(&o) : top_live(&o);
}
