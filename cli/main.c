/* cli/main.c — `rknn-trace` command dispatch. */
#include "cli/cli.h"
#include "cli/opt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
    const cli_spec *spec; /* its options */
} commands[] = {
    {"run", cmd_run, "run a model on the simulated runtime, layer by layer, and record it",
     &cli_spec_run},
    {"ls", cmd_ls, "list recorded runs",
     &cli_spec_ls},
    {"show", cmd_show, "show one run and its layers",
     &cli_spec_show},
    {"build", cmd_build, "write a simulator model (ONNX + quantization + target) for run/rknn_init",
     &cli_spec_build},
    {"analyze", cmd_analyze, "a run's layer outputs vs an external golden folder (.npy by tensor name)",
     &cli_spec_analyze},
    {"tune", cmd_tune, "the fewest fp16 layers for an int8 model to meet an accuracy target",
     &cli_spec_tune},
    {"compare", cmd_compare, "two runs side by side: per-layer error and times, CI gates",
     &cli_spec_compare},
    {"import", cmd_import, "board logs, toolkit output and level-5 dump folders into runs",
     &cli_spec_import},
    {"rm", cmd_rm, "delete runs (asks first; -y in scripts)",
     &cli_spec_rm},
    {"tag", cmd_tag, "put tags on a run (ls --tag filters by them)",
     &cli_spec_tag},
    {"untag", cmd_untag, "take tags off a run",
     &cli_spec_untag},
    {"label", cmd_label, "give a run a new label",
     &cli_spec_label},
    {"export", cmd_export, "runs, whole, to a JSON file that import reads back",
     &cli_spec_export},
    {"merge", cmd_merge, "add the runs of another database (deduplicated, ids remapped)",
     &cli_spec_merge},
    {"tui", cmd_tui, "browse runs, layers, errors and comparisons in the terminal (ncurses)",
     &cli_spec_tui},
    {"inspect", cmd_inspect, "what a vendor .rknn holds: target, versions, I/O, compiled nodes",
     &cli_spec_inspect},
    {"report", cmd_report, "export runs or a comparison: md, html, csv, json, trace, gnuplot, png",
     &cli_spec_report},
    {"attach", cmd_attach, "trace an unmodified application's rknn_* calls (LD_PRELOAD) into runs",
     &cli_spec_attach},
    {"top", cmd_top, "the NPU live: load per core, clock, driver, SRAM, processes holding it",
     &cli_spec_top},
    {"info", cmd_info, "this build: version, supported ops, platforms, runtime library",
     &cli_spec_info},
};

#define N_COMMANDS ((int)(sizeof(commands) / sizeof(commands[0])))

/* OpenBLAS (pthread build) starts its worker threads as it loads, before
 * main, and each spins on a core for some 80 ms before it sleeps, even in a
 * process that never multiplies a matrix. The commands that only read or write
 * the store, print or browse stop them at once; should BLAS be called after
 * all, it starts them again. Weak: another BLAS has no such function. */
extern int blas_thread_shutdown_(void) __attribute__((weak));

static void blas_threads_stop(const char *cmd)
{
    static const char *const no_compute[] = {"ls",     "show",   "compare", "import",
                                             "rm",     "tag",    "untag",   "label",
                                             "export", "merge",  "tui",     "report",
                                             "inspect", "top",   "info"};
    if (!blas_thread_shutdown_)
        return;
    for (size_t i = 0; i < sizeof no_compute / sizeof no_compute[0]; i++)
        if (!strcmp(cmd, no_compute[i])) {
            blas_thread_shutdown_();
            return;
        }
}

static const struct command *find_command(const char *name)
{
    for (int i = 0; i < N_COMMANDS; i++)
        if (!strcmp(name, commands[i].name))
            return &commands[i];
    return NULL;
}

const cli_spec *cli_command_spec(const char *cmd)
{
    const struct command *c = find_command(cmd);
    return c ? c->spec : NULL;
}

static void usage(FILE *f)
{
    fputs("usage: rknn-trace COMMAND [options]   (rknn-trace COMMAND --help for its options)\n\n"
          "commands:\n", f);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
    fputs("\nexit codes: 0 ok, 1 usage error, 2 bad input, 3 a gate failed, 4 internal error\n"
          "database: --db PATH, else $RKNN_TRACE_DB, else ./rknn-trace.db\n", f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("rknn-trace %s\n", RKNN_TRACE_VERSION);
        return EXIT_OK;
    }
    const struct command *c = find_command(argv[1]);
    if (c) {
        blas_threads_stop(c->name);
        return c->fn(argc - 1, argv + 1);
    }
    const char *names[N_COMMANDS];
    for (int i = 0; i < N_COMMANDS; i++)
        names[i] = commands[i].name;
    const char *near = cli_suggest(argv[1], names, N_COMMANDS);
    if (near)
        cli_error("unknown command '%s'; did you mean '%s'? (rknn-trace --help lists the "
                  "commands)", argv[1], near);
    else
        cli_error("unknown command '%s' (rknn-trace --help lists the commands)", argv[1]);
    return EXIT_USAGE;
}
