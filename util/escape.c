/* util/escape.c — the escaping of names for each output format (util/escape.h
 * holds the rules). */
#include "util/escape.h"
#include "util/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Where escaped text goes: a stream, or a buffer filled up to the first piece
 * that does not fit (n counts everything, so a caller can size a buffer). */
typedef struct sink {
    FILE *f;
    char *buf;
    size_t len, used, n;
    int full;
} sink;

static void emit(sink *k, const char *p, size_t n)
{
    k->n += n;
    if (k->f) {
        fwrite(p, 1, n, k->f);
        return;
    }
    if (k->full || !k->buf || k->used + n >= k->len) {
        k->full = 1;
        return;
    }
    memcpy(k->buf + k->used, p, n);
    k->used += n;
}

/* ASCII that may be cut anywhere: as much as fits. */
static void emit_cut(sink *k, const char *p, size_t n)
{
    if (!k->f && !k->full && k->buf && k->used + n >= k->len) {
        size_t room = k->len - 1 - k->used;
        memcpy(k->buf + k->used, p, room);
        k->used += room;
        k->full = 1;
        k->n += n;
        return;
    }
    emit(k, p, n);
}

static void emits(sink *k, const char *s)
{
    emit(k, s, strlen(s));
}

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF) with its code point, 0 if none. */
static int utf8_cp(const unsigned char *p, uint32_t *cp)
{
    int n;
    uint32_t c, min;

    if (p[0] < 0x80) {
        *cp = p[0];
        return 1;
    }
    if ((p[0] & 0xe0) == 0xc0)
        n = 2, c = p[0] & 0x1f, min = 0x80;
    else if ((p[0] & 0xf0) == 0xe0)
        n = 3, c = p[0] & 0x0f, min = 0x800;
    else if ((p[0] & 0xf8) == 0xf0)
        n = 4, c = p[0] & 0x07, min = 0x10000;
    else
        return 0;
    for (int k = 1; k < n; k++) {
        if ((p[k] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (p[k] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return n;
}

/* Code points a reader must see rather than have the terminal (or a
 * renderer) act on: controls, and those that reorder or break the line. */
static int hidden(uint32_t c)
{
    return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == 0x061c || c == 0x200e ||
           c == 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
           c == 0x2028 || c == 0x2029;
}

/* \xNN for a byte (ASCII control, or not UTF-8), \uXXXX for a code point;
 * in a gnuplot string the backslash itself is escaped so the text shows. */
static void visible(sink *k, int format, uint32_t v, int is_cp)
{
    char t[16];
    snprintf(t, sizeof(t), "%s%s%0*x", format == ESC_GNUPLOT ? "\\\\" : "\\",
             is_cp && v >= 0x80 ? "u" : "x", is_cp && v >= 0x80 ? 4 : 2, (unsigned)v);
    emits(k, t);
}

static const char VIS[] = "";   /* an ASCII byte shown as \xNN */

/* The rule of a text format for an ASCII byte: NULL passes it, VIS shows it,
 * else its replacement. */
static const char *ascii_rule(int format, unsigned char c)
{
    static const char md[] = "\\|`*_[]<>#";
    static const char *const md_out[] = { "\\\\", "\\|", "\\`", "\\*", "\\_", "\\[", "\\]", "\\<", "\\>", "\\#" };
    int ctl = c < 0x20 || c == 0x7f;
    switch (format) {
    case ESC_TERM_LINES:
        if (c == '\n' || c == '\t')
            return NULL;
        /* fall through */
    case ESC_TERM:
        return ctl ? VIS : NULL;
    case ESC_MD:
        if (c == '\n' || c == '\r' || c == '\t')
            return " ";
        if (ctl)
            return VIS;
        if (c && strchr(md, c))
            return md_out[strchr(md, c) - md];
        return NULL;
    case ESC_HTML:
        switch (c) {
        case '&': return "&amp;";
        case '<': return "&lt;";
        case '>': return "&gt;";
        case '"': return "&quot;";
        case '\'': return "&#39;";
        case '\n': case '\r': case '\t': return " ";
        }
        return ctl ? VIS : NULL;
    case ESC_GNUPLOT:
        switch (c) {
        case '"': return "\\\"";
        case '\\': return "\\\\";
        case '`': return "\\140";
        case '@': return "\\100";
        case '\n': case '\r': case '\t': return " ";
        }
        return ctl ? VIS : NULL;
    }
    return NULL;
}

static int alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void text(sink *k, int format, const unsigned char *s)
{
    const unsigned char *start = s;
    if (format == ESC_GNUPLOT)
        emit(k, "\"", 1);
    while (*s) {
        /* a run that passes unchanged: one write */
        const unsigned char *q = s;
        while (*q && *q < 0x80 && !ascii_rule(format, *q))
            q++;
        if (q > s) {
            emit_cut(k, (const char *)s, (size_t)(q - s));
            s = q;
            continue;
        }
        uint32_t cp;
        int n = utf8_cp(s, &cp);
        if (!n) {
            visible(k, format, *s, 0);
            s++;
        } else if (n == 1) {
            const char *r = ascii_rule(format, *s);
            /* CommonMark: a _ between two letters or digits neither opens nor
             * closes emphasis (snake_case names stay as they are) */
            if (format == ESC_MD && *s == '_' && s > start && alnum(s[-1]) && alnum(s[1]))
                emit(k, "_", 1);
            else if (r == VIS)
                visible(k, format, *s, 0);
            else
                emits(k, r);
            s++;
        } else {
            if (hidden(cp))
                visible(k, format, cp, 1);
            else
                emit(k, (const char *)s, (size_t)n);
            s += n;
        }
    }
    if (format == ESC_GNUPLOT)
        emit(k, "\"", 1);
}

static void csv(sink *k, const char *s)
{
    /* OWASP's rule against formula injection; ' itself too, so one leading '
     * always reads back as the prefix */
    int prefix = *s && strchr("=+-@\t\r'", *s), quote = strpbrk(s, ",\"\r\n") != NULL;
    if (quote)
        emit(k, "\"", 1);
    if (prefix)
        emit(k, "'", 1);
    for (const char *p = s; *p;) {
        const char *q = strchr(p, '"');
        size_t n = q ? (size_t)(q - p) + 1 : strlen(p);
        emit(k, p, n);
        if (q)
            emit(k, "\"", 1);
        p += n;
    }
    if (quote)
        emit(k, "\"", 1);
}

static void dat(sink *k, const unsigned char *s)
{
    if (!*s)
        emit(k, "_", 1);
    while (*s) {
        uint32_t cp;
        int n = utf8_cp(s, &cp);
        if (n == 1 && (*s <= ' ' || *s == 0x7f || strchr("#\"'`@\\?", *s)))
            emit(k, "_", 1);
        else if (n == 0 || hidden(cp))
            emit(k, "_", 1);
        else
            emit(k, (const char *)s, (size_t)n);
        s += n ? n : 1;
    }
}

static void json(sink *k, const char *s)
{
    json_writer w;
    size_t n;
    json_begin_mem(&w);
    json_str(&w, s);
    char *t = json_take(&w, &n);
    emit(k, t, n);
    free(t);
}

static void escape(sink *k, int format, const char *s)
{
    if (format == ESC_JSON) {
        json(k, s);
        return;
    }
    if (!s)
        s = "";
    switch (format) {
    case ESC_CSV: csv(k, s); break;
    case ESC_GNUPLOT_DAT: dat(k, (const unsigned char *)s); break;
    default: text(k, format, (const unsigned char *)s); break;
    }
}

size_t esc_buf(int format, const char *s, char *buf, size_t len)
{
    sink k = { .buf = len ? buf : NULL, .len = len };
    escape(&k, format, s);
    if (len)
        buf[k.used] = '\0';
    return k.n;
}

int esc_fput(FILE *f, int format, const char *s)
{
    sink k = { .f = f };
    escape(&k, format, s);
    return ferror(f) ? RT_EIO : RT_OK;
}

const char *esc_tmp(int format, const char *s)
{
    static struct { char *p; size_t cap; } ring[16];
    static unsigned next;
    if (format == ESC_TERM || format == ESC_TERM_LINES) {
        /* the common case, printable ASCII, as it is (ls prints many) */
        const unsigned char *p = (const unsigned char *)(s ? s : "");
        while (*p >= 0x20 && *p < 0x7f)
            p++;
        if (!*p)
            return s ? s : "";
    }
    unsigned i = next++ % 16;
    size_t n = esc_buf(format, s, NULL, 0) + 1;
    if (ring[i].cap < n) {
        ring[i].p = xrealloc(ring[i].p, n);
        ring[i].cap = n;
    }
    esc_buf(format, s, ring[i].p, n);
    return ring[i].p;
}
