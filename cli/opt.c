/* cli/opt.c — argv, --help and "did you mean" from one option table (cli/opt.h). */
#include "cli/opt.h"
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

/* the help text starts in this column unless an option's name is wider */
#define HELP_COL_MAX 26

static int is_help(const char *a)
{
    return !strcmp(a, "-h") || !strcmp(a, "--help");
}

/* The option a names ("--db", "--db=x", "-t"); *inline_value: the part after
 * '=' of a long one, else NULL. */
static const cli_opt *find_opt(const cli_opt *opts, const char *a, const char **inline_value)
{
    *inline_value = NULL;
    for (const cli_opt *o = opts; o->name; o++) {
        if (o->short_name && a[0] == '-' && a[1] == o->short_name && !a[2])
            return o;
        size_t n = strlen(o->name);
        if (strncmp(a, o->name, n))
            continue;
        if (!a[n])
            return o;
        if (a[n] == '=') {
            *inline_value = a + n + 1;
            return o;
        }
    }
    return NULL;
}

static int store_value(const cli_opt *o, const char *shown, const char *v, void *target)
{
    int bad = 0;
    switch (o->kind) {
    case CLI_FLAG:
        *(int *)target = o->set ? o->set : 1;
        return 0;
    case CLI_STR:
        *(const char **)target = v;
        return 0;
    case CLI_LIST: {
        cli_list *l = target;
        int max = o->max ? o->max : CLI_LIST_MAX;
        if (l->n >= max) {
            cli_error("at most %d %s options", max, o->name);
            return -1;
        }
        l->v[l->n++] = v;
        return 0;
    }
    case CLI_COUNT: {
        long long n = cli_parse_count(v);
        if (n < 0 || n < o->lo || (o->hi > 0 && n > o->hi)) {
            if (o->hi > 0)
                cli_error("%s takes a count from %.0f to %.0f, got '%s'", shown, o->lo, o->hi, v);
            else
                cli_error("%s takes a count, got '%s'", shown, v);
            return -1;
        }
        *(long long *)target = n;
        return 0;
    }
    case CLI_REAL:
        *(double *)target = cli_parse_real(shown, v, o->lo, o->hi, &bad);
        return bad ? -1 : 0;
    case CLI_CALL:
        return o->parse(shown, v, target);
    }
    return -1;
}

int cli_parse(const cli_spec *spec, int argc, char **argv, void *opts)
{
    return cli_parse_at(spec, argc, argv, opts, NULL);
}

int cli_parse_at(const cli_spec *spec, int argc, char **argv, void *opts, int *at)
{
    int n_operands = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (is_help(a)) {
            cli_help(spec, stdout);
            return CLI_PARSE_HELP;
        }
        if (a[0] != '-' || !a[1]) {
            argv[++n_operands] = argv[i]; /* never ahead of i */
            continue;
        }
        const cli_opt *o = find_opt(spec->opts, a, &v);
        if (!o) {
            cli_unknown_option(spec->name, a);
            return CLI_PARSE_ERROR;
        }
        if (at && !at[o - spec->opts])
            at[o - spec->opts] = i;
        if (o->kind == CLI_FLAG) {
            if (v) {
                cli_error("%s: %s takes no value (see rknn-trace %s --help)", spec->name,
                          o->name, spec->name);
                return CLI_PARSE_ERROR;
            }
        } else if (!v) {
            if (i + 1 >= argc) {
                cli_error("option '%s' needs a value (see --help)", a);
                return CLI_PARSE_ERROR;
            }
            v = argv[++i];
        }
        if (store_value(o, a[1] == '-' ? o->name : a, v, (char *)opts + o->offset))
            return CLI_PARSE_ERROR;
    }
    return n_operands;
}

/* "  -t, --target P" or "      --db PATH" ("  --db PATH" in a table
 * without short names) */
static int opt_lhs(const cli_opt *o, int shorts, char *buf, size_t len)
{
    char shrt[8] = "    ";
    if (!shorts)
        shrt[0] = '\0';
    else if (o->short_name)
        snprintf(shrt, sizeof shrt, "-%c, ", o->short_name);
    return snprintf(buf, len, "  %s%s%s%s", shrt, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

void cli_help(const cli_spec *spec, FILE *f)
{
    char lhs[128];
    int col = 0, shorts = 0;

    fputs(spec->usage, f);
    for (const cli_opt *o = spec->opts; o->name; o++)
        shorts |= o->short_name != 0;
    for (const cli_opt *o = spec->opts; o->name; o++) {
        if (!o->help)
            continue;
        int w = opt_lhs(o, shorts, lhs, sizeof lhs) + 2;
        if (w <= HELP_COL_MAX && w > col)
            col = w;
    }
    for (const cli_opt *o = spec->opts; o->name; o++) {
        if (!o->help) /* parsed, suggested, not listed */
            continue;
        int w = opt_lhs(o, shorts, lhs, sizeof lhs);
        fputs(lhs, f);
        if (w + 2 > col) /* too wide: the help goes below */
            fprintf(f, "\n%*s", col, "");
        else
            fprintf(f, "%*s", col - w, "");
        for (const char *h = o->help; *h; h++) {
            fputc(*h, f);
            if (*h == '\n' && h[1])
                fprintf(f, "%*s", col, "");
        }
        fputc('\n', f);
    }
    if (spec->footer)
        fputs(spec->footer, f);
}

const char *cli_opt_suggest(const cli_opt *opts, const char *typed)
{
    /* short names as strings "-t": one slot per letter */
    static char shorts[128][3];
    const char *names[256];
    int n = 0;

    for (const cli_opt *o = opts; o->name && n + 2 <= (int)(sizeof names / sizeof *names); o++) {
        names[n++] = o->name;
        if (o->short_name > 0) {
            char *s = shorts[(unsigned char)o->short_name];
            s[0] = '-';
            s[1] = o->short_name;
            names[n++] = s;
        }
    }
    return cli_suggest(typed, names, n);
}
