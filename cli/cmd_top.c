/* cli/cmd_top.c — `rknn-trace top`: the NPU's load per core over time, its
 * clock and governor, the driver, SRAM use and the processes holding it; a
 * live ncurses view, or one snapshot (--snapshot [--json]). Reads only the
 * board probe (tracer/board*.c). */
#include "cli/cli.h"
#include "tracer/tracer.h"
#include "tui/tui.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *f)
{
    fputs("usage: rknn-trace top [--root DIR] [--sim] [--snapshot [--json]] [--interval MS] [--count N]\n"
          "The NPU live: load per core over time, clock and governor, driver version, SRAM use\n"
          "and the processes holding the NPU, from the rknpu driver's debugfs (or procfs) nodes,\n"
          "devfreq, the DRM devices and /proc. Reading debugfs needs root: a node that is absent\n"
          "or needs root is shown as such, never as 0.\n"
          "  --root DIR      read /sys and /proc under DIR (a copy of a board's), default /\n"
          "  --sim           read the simulator's published load and SRAM map\n"
          "                  ($RKNN_TRACE_SYSFS/rknpu; used by default when the root is / and\n"
          "                  there is no rknpu node)\n"
          "  --snapshot      print one reading and exit (text, or --json: docs/json.md \"top\")\n"
          "  --json          with --snapshot: one JSON document\n"
          "  --interval MS   refresh period of the live view (default 100 = 10 Hz): the load\n"
          "                  every refresh, the other nodes each second, processes every 2 s\n"
          "  --count N       stop after N refreshes (default: until q)\n", f);
}

/* The runtime a board run would load and its version, into the snapshot. */
static void runtime_facts(board_snapshot_t *s)
{
    const char *rt = board_runtime_find(NULL);

    if (!rt)
        return;
    snprintf(s->runtime_path, sizeof s->runtime_path, "%s", rt);
    board_runtime_version(rt, s->runtime_version, sizeof s->runtime_version);
}

int cmd_top(int argc, char **argv)
{
    const char *root = "/";
    int sim = -1, snapshot = 0, as_json = 0, rc = EXIT_OK;
    long long interval = 100, count = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return EXIT_OK;
        } else if (cli_opt_is(a, "--root")) {
            if (!(v = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
            root = v;
        } else if (!strcmp(a, "--sim")) {
            sim = 1;
        } else if (!strcmp(a, "--snapshot")) {
            snapshot = 1;
        } else if (!strcmp(a, "--json")) {
            as_json = 1;
        } else if (cli_opt_is(a, "--interval") || cli_opt_is(a, "--count")) {
            int is_count = cli_opt_is(a, "--count");
            if (!(v = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
            long long n = cli_parse_count(v);
            if (n < (is_count ? 0 : 10) || n > 3600000) {
                cli_error("top: %s wants %s, not '%s'", is_count ? "--count" : "--interval",
                          is_count ? "a count" : "milliseconds from 10", v);
                return EXIT_USAGE;
            }
            *(is_count ? &count : &interval) = n;
        } else {
            return cli_unknown_option("top", a);
        }
    }
    struct stat st;
    if (stat(root, &st) || !S_ISDIR(st.st_mode)) {
        cli_error("top: --root %s is not a directory", root);
        return EXIT_INPUT;
    }
    if (as_json && !snapshot) {
        cli_error("top: --json goes with --snapshot (the live view is a terminal's)");
        return EXIT_USAGE;
    }
    if (snapshot) {
        board_snapshot_t *s = xcalloc(1, sizeof(*s));
        board_snapshot(s, root, sim, BOARD_SNAP_ALL);
        runtime_facts(s);
        if (as_json) {
            json_writer w;
            json_begin(&w, stdout);
            board_snapshot_json(s, &w);
            json_end(&w);
        } else {
            tui_top_print(s);
        }
        free(s);
        return rc;
    }
    char err[256];
    board_snapshot_t *facts = xcalloc(1, sizeof(*facts));
    runtime_facts(facts);
    rc = tui_top_live(root, sim, facts->runtime_path, facts->runtime_version, (int)interval,
                      count, err, sizeof err);
    free(facts);
    if (rc) {
        cli_error("top: %s", err);
        return EXIT_INTERNAL;
    }
    return EXIT_OK;
}
