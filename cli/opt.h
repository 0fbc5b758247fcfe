/* cli/opt.h — a command's options as one table: it drives the parsing of argv,
 * the option lines of `--help` and the "did you mean" of a mistyped option, so
 * the three never drift apart.
 *
 * A table is static const and names its targets by offset into the command's
 * own options struct (CLI_OPT_* below), so that it can be read without running
 * the command (suggestions, tests). An option is "--name VALUE", "--name=VALUE"
 * or, with a short letter, "-x VALUE"; a flag takes no value. Every table gets
 * -h/--help for free. What is not an option (a word not starting with '-', or
 * "-" alone) is an operand, kept in order. */
#ifndef RT_CLI_OPT_H
#define RT_CLI_OPT_H

#include <stddef.h>
#include <stdio.h>

typedef enum cli_opt_kind {
    CLI_FLAG,   /* int = set (1 when set is 0) */
    CLI_STR,    /* const char * = the value (a pointer into argv) */
    CLI_LIST,   /* cli_list: the value appended (repeatable, at most max) */
    CLI_COUNT,  /* long long = a non-negative integer, within [lo, hi] when hi > 0 */
    CLI_REAL,   /* double = a number in [lo, hi] */
    CLI_CALL,   /* parse(opt, value, target): 0, or -1 after printing a usage error */
} cli_opt_kind;

#define CLI_LIST_MAX 64
typedef struct cli_list {
    const char *v[CLI_LIST_MAX];
    int n;
} cli_list;

typedef struct cli_opt {
    const char *name;       /* "--target" */
    char short_name;        /* 't' for "-t", or 0 */
    cli_opt_kind kind;
    const char *arg;        /* the value's name in --help ("PATH"); NULL for a flag */
    const char *help;       /* its --help text; '\n' starts an indented line; NULL:
                             * parsed and suggested, not listed */
    size_t offset;          /* of its target in the command's options struct */
    int set;                /* CLI_FLAG: the value stored (0: 1) */
    int max;                /* CLI_LIST: at most this many (0: CLI_LIST_MAX) */
    double lo, hi;          /* CLI_COUNT, CLI_REAL: the range */
    int (*parse)(const char *opt, const char *value, void *target); /* CLI_CALL */
} cli_opt;

/* A command: its --help is `usage`, the option lines, then `footer`. */
typedef struct cli_spec {
    const char *name;       /* "ls" */
    const char *usage;      /* "usage: rknn-trace ls [options]\n" and what it does */
    const cli_opt *opts;    /* ends with a {NULL} entry */
    const char *footer;     /* printed after the options, or NULL */
} cli_spec;

#define CLI_OPT_FLAG(n, s, field, help) \
    {n, s, CLI_FLAG, NULL, help, offsetof(CLI_OPTS_T, field), 0, 0, 0, 0, NULL}
#define CLI_OPT_SET(n, s, field, value, help) \
    {n, s, CLI_FLAG, NULL, help, offsetof(CLI_OPTS_T, field), value, 0, 0, 0, NULL}
#define CLI_OPT_STR(n, s, arg, field, help) \
    {n, s, CLI_STR, arg, help, offsetof(CLI_OPTS_T, field), 0, 0, 0, 0, NULL}
#define CLI_OPT_LIST(n, s, arg, field, max, help) \
    {n, s, CLI_LIST, arg, help, offsetof(CLI_OPTS_T, field), 0, max, 0, 0, NULL}
#define CLI_OPT_COUNT(n, s, arg, field, lo, hi, help) \
    {n, s, CLI_COUNT, arg, help, offsetof(CLI_OPTS_T, field), 0, 0, lo, hi, NULL}
#define CLI_OPT_REAL(n, s, arg, field, lo, hi, help) \
    {n, s, CLI_REAL, arg, help, offsetof(CLI_OPTS_T, field), 0, 0, lo, hi, NULL}
#define CLI_OPT_CALL(n, s, arg, field, fn, help) \
    {n, s, CLI_CALL, arg, help, offsetof(CLI_OPTS_T, field), 0, 0, 0, 0, fn}
/* --db PATH, the same line in every command that reads or writes the store */
#define CLI_OPT_DB(field) \
    CLI_OPT_STR("--db", 0, "PATH", field, "database (default $RKNN_TRACE_DB, else ./rknn-trace.db)")
#define CLI_OPT_END {NULL, 0, CLI_FLAG, NULL, NULL, 0, 0, 0, 0, 0, NULL}

/* cli_parse's answers besides an operand count */
enum { CLI_PARSE_HELP = -2, CLI_PARSE_ERROR = -1 };

/* Parses argv[1..argc) into opts (the struct the table's offsets are of; what
 * is not given keeps its value). The operands are moved, in order, to
 * argv[1..n] and n is returned; CLI_PARSE_HELP after printing --help on
 * stdout; CLI_PARSE_ERROR after printing a usage error (an unknown option
 * with the table's closest, a missing or bad value). */
int cli_parse(const cli_spec *spec, int argc, char **argv, void *opts);
/* cli_parse that also notes in at[k] (one slot per table entry, zeroed by the
 * caller) the argv index where entry k was first given: for a command that
 * takes only some of its options in some cases. */
int cli_parse_at(const cli_spec *spec, int argc, char **argv, void *opts, int *at);
/* The --help text: usage, one line (or more) per option, footer. */
void cli_help(const cli_spec *spec, FILE *f);
/* The table's closest option to typed ("--taget"), or NULL. */
const char *cli_opt_suggest(const cli_opt *opts, const char *typed);

#endif
