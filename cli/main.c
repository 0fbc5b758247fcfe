/* cli/main.c — `rknn-trace` command dispatch. */
#include "cli/cli.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    {"tune", cmd_tune, "the fewest fp16 layers for an int8 model to meet an accuracy target"},
    {"compare", cmd_compare, "two runs side by side: per-layer error and times, CI gates"},
    {"import", cmd_import, "board logs, toolkit output and level-5 dump folders into runs"},
    {"rm", cmd_rm, "delete runs (asks first; -y in scripts)"},
    {"tag", cmd_tag, "put tags on a run (ls --tag filters by them)"},
    {"untag", cmd_untag, "take tags off a run"},
    {"label", cmd_label, "give a run a new label"},
    {"export", cmd_export, "runs, whole, to a JSON file that import reads back"},
    {"merge", cmd_merge, "add the runs of another database (deduplicated, ids remapped)"},
    {"tui", cmd_tui, "browse runs, layers, errors and comparisons in the terminal (ncurses)"},
    {"inspect", cmd_inspect, "what a vendor .rknn holds: target, versions, I/O, compiled nodes"},
    {"report", cmd_report, "export runs or a comparison: md, html, csv, json, trace, gnuplot, png"},
    {"attach", cmd_attach, "trace an unmodified application's rknn_* calls (LD_PRELOAD) into runs"},
    {"top", cmd_top, "the NPU live: load per core, clock, driver, SRAM, processes holding it"},
    {"info", cmd_info, "this build: version, supported ops, platforms, runtime library"},
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

/* The command's --help text, captured from its stdout: the options it lists
 * are the ones it takes, so that suggestions never drift from the help. */
static char *command_help(const struct command *c)
{
    char *av[] = {(char *)c->name, "--help", NULL}, *text = NULL;
    FILE *tmp = tmpfile();
    int saved = -1;
    long len;

    if (!tmp)
        return NULL;
    fflush(stdout);
    if ((saved = dup(STDOUT_FILENO)) < 0 || dup2(fileno(tmp), STDOUT_FILENO) < 0)
        goto out;
    c->fn(2, av);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    if ((len = ftell(tmp)) < 0 || fseek(tmp, 0, SEEK_SET))
        goto out;
    text = calloc(1, (size_t)len + 1);
    if (text && fread(text, 1, (size_t)len, tmp) != (size_t)len) {
        free(text);
        text = NULL;
    }
out:
    if (saved >= 0)
        close(saved);
    fclose(tmp);
    return text;
}

char **cli_command_options(const char *cmd, int *n)
{
    const struct command *c = find_command(cmd);
    char *text = c ? command_help(c) : NULL, **v = NULL;
    int cap = 0;

    *n = 0;
    for (char *p = text; p && *p; p++) {
        /* an option starts a word: "-t", "--target", "[--seed" ... */
        if (*p != '-' || (p > text && !strchr(" \t\n[,|(", p[-1])))
            continue;
        size_t k = 1;
        while (isalnum((unsigned char)p[k]) || p[k] == '-')
            k++;
        if (k < 2 || (p[1] == '-' ? k < 4 : k != 2) || !isalpha((unsigned char)p[p[1] == '-' ? 2 : 1]))
            continue;
        int dup = 0;
        for (int i = 0; i < *n && !dup; i++)
            dup = strlen(v[i]) == k && !strncmp(v[i], p, k);
        if (!dup) {
            if (*n == cap && !(v = realloc(v, sizeof(*v) * (size_t)(cap = cap ? 2 * cap : 32))))
                break;
            v[(*n)++] = strndup(p, k);
        }
        p += k - 1;
    }
    free(text);
    return v;
}

void cli_strings_free(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
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
