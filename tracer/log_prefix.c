/* tracer/log_prefix.c — the logger prefix every vendor log line may carry, where it
 * starts a line and where a paste glued it to the text before it. */
#include "tracer/tracer.h"

#include <ctype.h>
#include <string.h>

char *tracer_strip_prefix(char *s)
{
    if (s[0] && strchr("EWIDT", s[0]) && !strncmp(s + 1, " RKNN: ", 7)) {
        s += 8;
        if (s[0] == '[') {
            char *e = strchr(s, ']');
            if (e && e - s <= 16) {
                s = e + 1;
                if (*s == ' ')
                    s++;
            }
        }
    }
    if (!strncmp(s, "---> ", 5))
        s += 5;
    return s;
}

const char *tracer_after_tag(const char *k, int pid)
{
    while (*k == ' ')
        k++;
    if (pid && *k == '(' && strchr(k, ')'))
        k = strchr(k, ')') + 1;
    return *k == ':' ? k + 1 : NULL;
}

/* U+FF1A FULLWIDTH COLON, as a browser's translation writes the prefixes' ':' */
static const char fw_colon[] = "\xef\xbc\x9a";

size_t tracer_vendor_prefix_at(const char *s, int *fullwidth)
{
    static const struct {
        const char *levels, *tag;
    } tags[] = {{"EWIDT", " RKNN"}, {"EWID", " RKNNAPI"}, {"IWED", " rkllm"}};

    for (size_t k = 0; k < sizeof tags / sizeof tags[0]; k++) {
        size_t n = strlen(tags[k].tag);
        if (!s[0] || !strchr(tags[k].levels, s[0]) || strncmp(s + 1, tags[k].tag, n))
            continue;
        if (s[1 + n] == ':') {
            *fullwidth = 0;
            return n + 2;
        }
        if (!strncmp(s + 1 + n, fw_colon, 3)) {
            *fullwidth = 1;
            return n + 4;
        }
    }
    return 0;
}

/* Replaces what starts at s (old bytes) by rep, in a text of *len bytes that does
 * not grow (rep is not longer). */
static void put(char *text, size_t *len, char *s, size_t old, const char *rep)
{
    size_t r = strlen(rep), tail = *len - (size_t)(s - text) - old;
    memcpy(s, rep, r);
    memmove(s + r, s + old, tail + 1);
    *len -= old - r;
}

size_t tracer_fullwidth_prefixes(char *s, size_t len)
{
    if (!memchr(s, 0xef, len))
        return len;
    for (char *p = s; *p; p++) {
        int fw;
        size_t n = tracer_vendor_prefix_at(p, &fw);
        if (!n || !fw || (p > s && isalpha((unsigned char)p[-1])))
            continue;
        /* "I RKNN：" is "I RKNN: " (the full-width colon holds its own spacing) */
        char *c = p + n - 3;
        const char *rep = c[3] == ' ' ? ":" : ": ";
        put(s, &len, c, 3, rep);
        /* and its "[01：19：04.510]" stamp, "[01:19:04.510]" */
        char *b = c + strlen(rep);
        if (*b == ' ')
            b++;
        if (*b == '[') {
            char *e = strchr(b, ']');
            for (char *q = b; e && e - b <= 32 && q < e; q++)
                if (!strncmp(q, fw_colon, 3)) {
                    put(s, &len, q, 3, ":");
                    e -= 2;
                }
        }
    }
    return len;
}

/* digits at p (exactly n of them, or 1..n with n < 0), the position after */
static size_t digits(const char *s, size_t len, size_t p, int n)
{
    size_t q = p, most = (size_t)(n < 0 ? -n : n);
    while (q < len && q - p < most && isdigit((unsigned char)s[q]))
        q++;
    return (n < 0 ? q > p : q - p == most) ? q : 0;
}

/* "HH:MM:SS" and an optional ".frac" at p; the position after, 0 if none */
static size_t clock_at(const char *s, size_t len, size_t p)
{
    if (!(p = digits(s, len, p, 2)) || p >= len || s[p] != ':' ||
        !(p = digits(s, len, p + 1, 2)) || p >= len || s[p] != ':' ||
        !(p = digits(s, len, p + 1, 2)))
        return 0;
    if (p < len && s[p] == '.' && digits(s, len, p + 1, -9))
        p = digits(s, len, p + 1, -9);
    return p;
}

size_t tracer_syslog_prefix(const char *s, size_t len)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    size_t p = 0, stamp = 0; /* stamp: after "Dec 07 10:00:00 " (moreutils' ts) */

    if (len >= 15 && s[3] == ' ' && isupper((unsigned char)s[0])) {
        int m = 0;
        for (int k = 0; k < 12 && !m; k++)
            m = !memcmp(s, months + 3 * k, 3);
        p = 4 + (s[4] == ' ');
        if (!m || !(p = digits(s, len, p, -2)) || p >= len || s[p] != ' ' ||
            !(p = clock_at(s, len, p + 1)))
            return 0;
        if (p == len) /* a stamp on a line of its own (a blank line under ts) */
            return p;
        stamp = s[p] == ' ' ? p + 1 : 0;
    } else if (len > 20 && (p = digits(s, len, 0, 4)) && s[4] == '-' && s[7] == '-' &&
               s[10] == 'T' && digits(s, len, 5, 2) && digits(s, len, 8, 2) &&
               (p = clock_at(s, len, 11))) {
        if (p < len && (s[p] == '+' || s[p] == '-') && digits(s, len, p + 1, 4))
            p += 5; /* the zone, +0000 */
        else if (p < len && s[p] == 'Z')
            p++;
    } else {
        return 0;
    }
    /* " HOST IDENT: ", IDENT with its "[PID]" */
    if (p >= len || s[p] != ' ')
        return 0;
    size_t host = ++p;
    while (p < len && s[p] != ' ' && s[p] != ':')
        p++;
    if (p == host || p >= len || s[p] != ' ')
        return stamp;
    size_t ident = ++p;
    while (p < len && s[p] != ' ' && s[p] != ':')
        p++;
    if (p == ident || p >= len || s[p] != ':')
        return stamp;
    p++;
    return p < len && s[p] == ' ' ? p + 1 : p;
}

size_t tracer_strip_ansi(char *s, size_t len)
{
    if (!memchr(s, 0x1b, len))
        return len;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        if (s[i] != 0x1b) {
            s[o++] = s[i++];
            continue;
        }
        i++;
        if (i < len && s[i] == '[') { /* CSI: parameters, intermediates, a final byte */
            i++;
            while (i < len && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] <= 0x3f)
                i++;
            if (i < len && (unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e)
                i++;
        } else if (i < len && (unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x5f) {
            i++; /* ESC and one byte */
        }
    }
    s[o] = 0;
    return o;
}

const char *tracer_kernel_body(const char *s)
{
    const char *p = s;

    /* dmesg's stamp "[   11.688653] ", dmesg -T's "[Wed Apr  1 10:09:24 2026] " */
    if (*p == '[' && strncmp(p, "[drm] ", 6)) {
        const char *e = strchr(p, ']');
        if (!e || e - p > 40 || e[1] != ' ')
            return NULL;
        for (const char *q = p + 1; q < e; q++)
            if (!isalnum((unsigned char)*q) && !strchr(" :.", *q))
                return NULL;
        for (p = e + 1; *p == ' ';)
            p++;
    }
    /* the DRM core's line for the driver: "[drm] Initialized rknpu 0.9.8 20240828 for ..." */
    if (!strncmp(p, "[drm] ", 6))
        return !strncmp(p + 6, "Initialized rknpu ", 18) ? p + 6 : NULL;
    if (strncmp(p, "RKNPU", 5))
        return NULL;
    p += 5;
    if (*p == ' ') { /* dev_info's "RKNPU fdab0000.npu: " (a device name, with its '.') */
        size_t n = strcspn(p + 1, " :");
        if (!n || p[1 + n] != ':' || !memchr(p + 1, '.', n))
            return NULL;
        p += 1 + n;
    }
    if (*p++ != ':')
        return NULL;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!strncmp(p, "RKNPU: ", 7)) /* the driver's own tag after dev_info's */
        p += 7;
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

int tracer_gdb_frame(const char *t, size_t n, const char **fn)
{
    size_t i = 1, d;

    if (n < 4 || t[0] != '#')
        return 0;
    for (d = 0; i < n && d < 5 && isdigit((unsigned char)t[i]); i++)
        d++;
    if (!d || i >= n || t[i] != ' ')
        return 0;
    while (i < n && t[i] == ' ')
        i++;
    /* "0x<hex> in NAME (": a frame with its address */
    if (i + 2 < n && t[i] == '0' && t[i + 1] == 'x') {
        size_t h = i + 2;
        while (h < n && isxdigit((unsigned char)t[h]))
            h++;
        if (h == i + 2 || h + 4 > n || strncmp(t + h, " in ", 4))
            return 0;
        i = h + 4;
    }
    /* then a function name and its argument list */
    size_t f = i;
    while (i < n && (isalnum((unsigned char)t[i]) || t[i] == '_' || t[i] == ':' || t[i] == '?' ||
                     t[i] == '.' || t[i] == '<' || t[i] == '>' || t[i] == '~'))
        i++;
    if (i == f || i + 1 >= n || t[i] != ' ' || t[i + 1] != '(')
        return 0;
    if (fn)
        *fn = t + f;
    return 1;
}
