/* cli/main.c — `rknn-trace` command dispatch. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#define RKNN_TRACE_VERSION "0.1.0"

static const struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} commands[] = {
    {"run", cmd_run, "run a model on the simulated runtime, layer by layer, and record it"},
    {"ls", cmd_ls, "list recorded runs"},
    {"show", cmd_show, "show one run and its layers"},
    {"build", cmd_build, "write a simulator model (ONNX + quantization + target) for run/rknn_init"},
    {"analyze", cmd_analyze, "a run's layer outputs vs an external golden folder (.npy by tensor name)"},
    {"compare", cmd_compare, "two runs side by side: per-layer error and times, CI gates"},
    {"import", cmd_import, "board logs, toolkit output and level-5 dump folders into runs"},
    {"info", cmd_info, "this build: version, supported ops, platforms, runtime library"},
};

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
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    cli_error("unknown command '%s' (rknn-trace --help lists the commands)", argv[1]);
    return EXIT_USAGE;
}
