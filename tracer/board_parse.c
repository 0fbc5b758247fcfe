/* tracer/board_parse.c — parsers of the text the rknpu driver, devfreq, sysfs
 * and procfs print (shared/research/log-formats.md §7, npu-hw.md §4.5). Pure
 * functions over a NUL-terminated text; fuzzed (fuzz_debugfs.c, fuzz_procfs.c). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/board.h"
#include "util/util.h"

const char *board_state_name(int state)
{
    switch (state) {
    case BOARD_OK: return "ok";
    case BOARD_ABSENT: return "absent";
    case BOARD_DENIED: return "needs root";
    case BOARD_UNREADABLE: return "unreadable";
    default: return "unexpected text";
    }
}

/* Only blanks left from p on. */
static int rest_blank(const char *p)
{
    while (*p && isspace((unsigned char)*p))
        p++;
    return *p == '\0';
}

int board_parse_version(const char *text, char *ver, size_t len, char *err, size_t errlen)
{
    /* "%s: v%d.%d.%d\n" with DRIVER_DESC "RKNPU driver" */
    const char *p = strstr(text, ": v");
    unsigned a, b, c;
    int n = 0;

    ver[0] = '\0';
    if (!p || sscanf(p + 3, "%u.%u.%u%n", &a, &b, &c, &n) != 3 || !rest_blank(p + 3 + n))
        return rt_err(err, errlen, RT_EFORMAT, "not a driver version line (\"RKNPU driver: vX.Y.Z\")");
    snprintf(ver, len, "%u.%u.%u", a, b, c);
    return 0;
}

int board_parse_u64(const char *text, uint64_t *v, char *err, size_t errlen)
{
    const char *p = text;
    char *e;

    while (*p == ' ' || *p == '\t')
        p++;
    if (!isdigit((unsigned char)*p))
        return rt_err(err, errlen, RT_EFORMAT, "not a decimal number");
    errno = 0;
    unsigned long long x = strtoull(p, &e, 10);
    if (errno || !rest_blank(e))
        return rt_err(err, errlen, RT_EFORMAT, "not one decimal number");
    *v = x;
    return 0;
}

int board_parse_freqs(const char *text, uint64_t *f, int max, char *err, size_t errlen)
{
    const char *p = text;
    int n = 0;

    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        char *e;
        if (!isdigit((unsigned char)*p))
            return rt_err(err, errlen, RT_EFORMAT, "not a list of frequencies");
        errno = 0;
        unsigned long long x = strtoull(p, &e, 10);
        if (errno || (*e && !isspace((unsigned char)*e)))
            return rt_err(err, errlen, RT_EFORMAT, "not a list of frequencies");
        if (n < max)
            f[n++] = x;
        p = e;
    }
    if (n == 0)
        return rt_err(err, errlen, RT_EFORMAT, "empty frequency list");
    return n;
}

int board_parse_word(const char *text, char *w, size_t len, char *err, size_t errlen)
{
    size_t n = 0;
    const char *p = text;

    w[0] = '\0';
    while (*p == ' ' || *p == '\t')
        p++;
    while (p[n] && !isspace((unsigned char)p[n]))
        n++;
    if (n == 0 || n >= len || !rest_blank(p + n))
        return rt_err(err, errlen, RT_EFORMAT, "not one word");
    for (size_t i = 0; i < n; i++)
        if (!isprint((unsigned char)p[i]))
            return rt_err(err, errlen, RT_EFORMAT, "not printable text");
    memcpy(w, p, n);
    w[n] = '\0';
    return 0;
}

/* The value after "key<sep>" at the start of a line of text, cut at the end of
 * the line and of blanks; 1 when found. */
static int line_value(const char *text, const char *key, char sep, char *val, size_t len)
{
    size_t kl = strlen(key);

    val[0] = '\0';
    for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        if (strncmp(l, key, kl) || l[kl] != sep)
            continue;
        const char *v = l + kl + 1, *e;
        while (*v == ' ' || *v == '\t')
            v++;
        e = v;
        while (*e && *e != '\n')
            e++;
        while (e > v && isspace((unsigned char)e[-1]))
            e--;
        size_t n = (size_t)(e - v) < len ? (size_t)(e - v) : len - 1;
        memcpy(val, v, n);
        val[n] = '\0';
        return 1;
    }
    return 0;
}

int board_uevent_get(const char *text, const char *key, char *val, size_t len)
{
    return line_value(text, key, '=', val, len);
}

int board_fdinfo_driver(const char *text, char *drv, size_t len)
{
    return line_value(text, "drm-driver", ':', drv, len);
}

int board_dt_soc(const char *data, size_t len, char *soc, size_t soclen)
{
    /* "radxa,rock-5b\0rockchip,rk3588\0": the first "rockchip,rk*" / "rockchip,rv*" */
    size_t i = 0;

    soc[0] = '\0';
    while (i < len) {
        const char *s = data + i;
        size_t n = strnlen(s, len - i);
        if (n > 11 && !strncmp(s, "rockchip,r", 10) && (s[10] == 'k' || s[10] == 'v')) {
            size_t m = n - 9 < soclen ? n - 9 : soclen - 1;
            int ok = 1;
            for (size_t k = 0; k < m; k++)
                ok &= isalnum((unsigned char)s[9 + k]) || s[9 + k] == '-';
            if (ok) {
                memcpy(soc, s + 9, m);
                soc[m] = '\0';
                return 1;
            }
        }
        i += n + 1;
    }
    return 0;
}
