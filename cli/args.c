/* cli/args.c — small argument helpers shared by the commands. */
#include "cli/cli.h"
#include "runtime/passes/passes.h"
#include "cli/opt.h"
#include "util/escape.h"
#include "util/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_exit_code(int status)
{
    switch (status) {
    case RT_OK: return EXIT_OK;
    case RT_EINVAL: return EXIT_USAGE;
    case RT_EIO: case RT_EFORMAT: case RT_EUNSUPPORTED: case RT_ESHAPE: case RT_ENOTFOUND:
    case RT_EEXIST:
        return EXIT_INPUT;
    }
    return EXIT_INTERNAL;
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    char *msg = NULL;
    /* messages quote labels, names and paths: no control byte of theirs
     * reaches the terminal (ESC_TERM_LINES keeps the message's own lines) */
    va_start(ap, fmt);
    int n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    fputs("rknn-trace: ", stderr);
    if (n >= 0)
        esc_fput(stderr, ESC_TERM_LINES, msg);
    free(msg);
    fputc('\n', stderr);
}

int cli_not_recorded(const char *why)
{
    fflush(stdout); /* the results first, then why they are not in the database */
    cli_error("the run was NOT recorded: %s", why);
    return EXIT_NOT_RECORDED;
}

long long cli_parse_count(const char *s)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < 0)
        return -1;
    return v;
}

static int parse_shape(char *arg, const char **name, int *ndim, int64_t *dims)
{
    char *eq = strrchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        return -1;
    *eq = '\0';
    *name = arg;
    *ndim = 0;
    for (char *p = eq + 1;;) {
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (errno || end == p || v <= 0 || *ndim >= MODEL_MAX_DIMS)
            return -1;
        dims[(*ndim)++] = v;
        if (*end == '\0')
            break;
        if (*end != ',' && *end != 'x')
            return -1;
        p = end + 1;
    }
    return 0;
}

int cli_add_shape(char *arg, input_shape_t *shapes, int *n, int max)
{
    const char *shown = xstrdup(arg); /* arg is cut at '=' while parsing */
    int rc = 0;
    if (*n >= max || parse_shape(arg, &shapes[*n].name, &shapes[*n].ndim, shapes[*n].dims)) {
        cli_error("--shape takes NAME=D0,D1,... with positive sizes, got '%s'", shown);
        rc = -1;
    } else {
        (*n)++;
    }
    free((void *)shown);
    return rc;
}

int cli_opt_is(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 &&
           (arg[n] == '\0' || (name[0] == '-' && name[1] == '-' && arg[n] == '='));
}

const char *cli_opt_value(int argc, char **argv, int *i)
{
    char *eq = strchr(argv[*i], '=');
    if (argv[*i][0] == '-' && argv[*i][1] == '-' && eq)
        return eq + 1;
    if (*i + 1 >= argc) {
        cli_error("option '%s' needs a value (see --help)", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

int cli_model_arg(const char *cmd, const char *a, const char **model)
{
    if (a[0] == '-' && a[1])
        return cli_unknown_option(cmd, a);
    if (*model) {
        cli_error("%s: more than one model given ('%s', '%s')", cmd, *model, a);
        return EXIT_USAGE;
    }
    *model = a;
    return 0;
}

double cli_parse_real(const char *opt, const char *v, double lo, double hi, int *bad)
{
    char *end;
    double x = strtod(v, &end);
    if (*end || end == v || !(x >= lo && x <= hi)) {
        cli_error("%s takes a number in [%g, %g], got '%s'", opt, lo, hi, v);
        *bad = 1;
    }
    return x;
}

int cli_unknown_option(const char *cmd, const char *a)
{
    char typed[64];
    const cli_spec *spec = cli_command_spec(cmd);
    /* "--taget=rk3588": the option's name only */
    snprintf(typed, sizeof(typed), "%.*s", (int)strcspn(a, "="), a);
    const char *near = spec ? cli_opt_suggest(spec->opts, typed) : NULL;
    if (near)
        cli_error("%s: unknown option '%s'; did you mean '%s'? (see rknn-trace %s --help)", cmd,
                  typed, near, cmd);
    else
        cli_error("%s: unknown option '%s' (see rknn-trace %s --help)", cmd, typed, cmd);
    return EXIT_USAGE;
}

int cli_use_color(FILE *f)
{
    const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
    return isatty(fileno(f)) && !(no && no[0]) && !(term && !strcmp(term, "dumb"));
}

int cli_parse_mhz(const char *opt, const char *v)
{
    char *end;
    long long m = strtoll(v, &end, 10);
    if (*end || end == v || m < 10 || m > 10000) {
        cli_error("%s: bad clock '%s' (an integer MHz from 10 to 10000)", opt, v);
        return -1;
    }
    return (int)m;
}

const npu_platform_t *cli_platform_clocks(npu_platform_t *copy, const npu_platform_t *p,
                                          int npu_mhz, int ddr_mhz)
{
    if (!npu_mhz && !ddr_mhz)
        return p;
    *copy = *p;
    if (npu_mhz)
        copy->npu_mhz = npu_mhz;
    if (ddr_mhz)
        copy->ddr_mhz = ddr_mhz;
    return copy;
}

long long cli_parse_core_mask(const char *v)
{
    char *end;
    long long m = strtoll(v, &end, 0);
    if (*end || end == v || m < 0 || m > 0xffff) {
        cli_error("--core-mask: bad mask '%s'", v);
        return -1;
    }
    return m;
}
