/* util/json.c — a streaming JSON writer (commas and escaping handled here). */
#include "util/util.h"

#include <jansson.h>

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* n bytes of p to the stream or the buffer */
static void put(json_writer *w, const void *p, size_t n)
{
    if (w->f) {
        fwrite(p, 1, n, w->f);
        return;
    }
    if (w->len + n + 1 > w->cap) {
        while (w->len + n + 1 > w->cap)
            w->cap = w->cap ? 2 * w->cap : 256;
        w->buf = xrealloc(w->buf, w->cap);
    }
    memcpy(w->buf + w->len, p, n);
    w->len += n;
    w->buf[w->len] = 0;
}

static void putc_(json_writer *w, char c)
{
    if (w->f)
        fputc(c, w->f);
    else
        put(w, &c, 1);
}

static void puts_(json_writer *w, const char *s)
{
    put(w, s, strlen(s));
}

static void sep(json_writer *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->need_comma[w->depth])
        putc_(w, ',');
    w->need_comma[w->depth] = 1;
}

void json_begin(json_writer *w, FILE *f)
{
    w->f = f;
    w->buf = NULL;
    w->len = w->cap = 0;
    w->depth = 0;
    w->need_comma[0] = 0;
    w->after_key = 0;
}

void json_begin_mem(json_writer *w)
{
    json_begin(w, NULL);
}

char *json_take(json_writer *w, size_t *len)
{
    char *t = w->buf ? w->buf : xstrdup("");
    if (len)
        *len = w->len;
    w->buf = NULL;
    w->len = w->cap = 0;
    return t;
}

static void open_(json_writer *w, char c)
{
    sep(w);
    putc_(w, c);
    if (w->depth < 63)
        w->depth++;
    w->need_comma[w->depth] = 0;
}

static void close_(json_writer *w, char c)
{
    if (w->depth > 0)
        w->depth--;
    putc_(w, c);
}

void json_obj_open(json_writer *w) { open_(w, '{'); }
void json_obj_close(json_writer *w) { close_(w, '}'); }
void json_arr_open(json_writer *w) { open_(w, '['); }
void json_arr_close(json_writer *w) { close_(w, ']'); }

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF), 0 if it is not one. */
static int utf8_len(const unsigned char *p)
{
    int n;
    uint32_t cp, min;

    if (p[0] < 0x80)
        return 1;
    if ((p[0] & 0xe0) == 0xc0)
        n = 2, cp = p[0] & 0x1f, min = 0x80;
    else if ((p[0] & 0xf0) == 0xe0)
        n = 3, cp = p[0] & 0x0f, min = 0x800;
    else if ((p[0] & 0xf8) == 0xf0)
        n = 4, cp = p[0] & 0x07, min = 0x10000;
    else
        return 0;
    for (int k = 1; k < n; k++) {
        if ((p[k] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[k] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

/* Always valid JSON: a byte that does not start a well-formed UTF-8 sequence
 * (a label typed in Latin-1, a truncated name) becomes U+FFFD. */
/* The common case of a string with nothing to escape, into the buffer in one
 * step (keys and most values; each put does its own bookkeeping). tail: a
 * character written after the closing quote, or 0. Returns 0 when s needs the
 * general path. */
static int put_plain(json_writer *w, const char *s, char tail)
{
    size_t n = 0;

    if (w->f)
        return 0;
    for (const unsigned char *p = (const unsigned char *)s; p[n]; n++)
        if (p[n] < 0x20 || p[n] >= 0x7f || p[n] == '"' || p[n] == '\\')
            return 0;
    if (w->len + n + 4 > w->cap) {
        while (w->len + n + 4 > w->cap)
            w->cap = w->cap ? 2 * w->cap : 256;
        w->buf = xrealloc(w->buf, w->cap);
    }
    char *o = w->buf + w->len;
    *o++ = '"';
    memcpy(o, s, n);
    o += n;
    *o++ = '"';
    if (tail)
        *o++ = tail;
    *o = 0;
    w->len = (size_t)(o - w->buf);
    return 1;
}

static void put_str(json_writer *w, const char *s)
{
    if (put_plain(w, s, 0))
        return;
    putc_(w, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        /* a run of printable ASCII that needs no escape: one write */
        const unsigned char *q = p;
        while (*q >= 0x20 && *q < 0x7f && *q != '"' && *q != '\\')
            q++;
        if (q > p) {
            put(w, p, (size_t)(q - p));
            p = q;
            continue;
        }
        int n = utf8_len(p);
        if (!n) {
            puts_(w, "\\ufffd");
            p++;
            continue;
        }
        switch (*p) {
        case '"': puts_(w, "\\\""); break;
        case '\\': puts_(w, "\\\\"); break;
        case '\n': puts_(w, "\\n"); break;
        case '\r': puts_(w, "\\r"); break;
        case '\t': puts_(w, "\\t"); break;
        default:
            if (*p < 0x20 || *p == 0x7f) {
                char u[8];
                snprintf(u, sizeof u, "\\u%04x", *p);
                puts_(w, u);
            } else {
                put(w, p, (size_t)n);
            }
        }
        p += n;
    }
    putc_(w, '"');
}

void json_key(json_writer *w, const char *key)
{
    sep(w);
    if (!put_plain(w, key, ':')) {
        put_str(w, key);
        putc_(w, ':');
    }
    w->after_key = 1;
}

void json_str(json_writer *w, const char *s)
{
    sep(w);
    if (s)
        put_str(w, s);
    else
        puts_(w, "null");
}

static void put_int(json_writer *w, int64_t v)
{
    char d[24];
    size_t n = sizeof d;
    /* digits from the end, as unsigned so that INT64_MIN negates */
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

    do
        d[--n] = (char)('0' + u % 10);
    while ((u /= 10) > 0);
    if (v < 0)
        d[--n] = '-';
    put(w, d + n, sizeof d - n);
}

void json_int(json_writer *w, int64_t v)
{
    sep(w);
    put_int(w, v);
}

void json_num(json_writer *w, double v)
{
    sep(w);
    long long c = v > -1e7 && v < 1e7 ? llround(v * 100) : 0;
    if (v > -1e9 && v < 1e9 && v == (double)(int32_t)v && (v != 0 || !signbit(v))) {
        put_int(w, (int32_t)v); /* what %.9g prints for a whole number of <= 9 digits */
    } else if (c && (double)c / 100 == v) {
        /* hundredths (the vendor's tables print two decimals): the nearest double
         * to a decimal of <= 9 digits, which %.9g prints back, trailing 0 cut */
        char d[24];
        size_t n = sizeof d;
        unsigned long long u = c < 0 ? (unsigned long long)-c : (unsigned long long)c;
        if (u % 100) {
            if (u % 10)
                d[--n] = (char)('0' + u % 10);
            d[--n] = (char)('0' + u / 10 % 10);
            d[--n] = '.';
        }
        u /= 100;
        do
            d[--n] = (char)('0' + u % 10);
        while ((u /= 10) > 0);
        if (c < 0)
            d[--n] = '-';
        put(w, d + n, sizeof d - n);
    } else if (isfinite(v)) {
        char d[32];
        int n = snprintf(d, sizeof d, "%.9g", v);
        put(w, d, (size_t)n);
    } else {
        puts_(w, "null");
    }
}

void json_bool(json_writer *w, int v)
{
    sep(w);
    puts_(w, v ? "true" : "false");
}

void json_write_null(json_writer *w)
{
    sep(w);
    puts_(w, "null");
}

void json_int_or_null(json_writer *w, int64_t v, int64_t missing)
{
    if (v <= missing)
        json_write_null(w);
    else
        json_int(w, v);
}

void json_key_int(json_writer *w, const char *key, int64_t v, int64_t missing)
{
    json_key(w, key);
    json_int_or_null(w, v, missing);
}

struct json_t *json_text(const char *s)
{
    json_t *v = s ? json_string(s) : json_null();
    if (!v) {
        json_writer w;
        json_begin_mem(&w);
        json_str(&w, s);
        char *t = json_take(&w, NULL);
        v = json_loads(t, JSON_DECODE_ANY, NULL);
        free(t);
    }
    return v;
}

/* Stored JSON text is checked by Debian's jansson (RFC 8259, UTF-8) before it
 * is emitted raw. */
int json_valid(const char *text)
{
    json_error_t e;
    json_t *v = text ? json_loads(text, JSON_DECODE_ANY, &e) : NULL;
    int ok = v != NULL;
    json_decref(v);
    return ok;
}

void json_raw(json_writer *w, const char *text)
{
    sep(w);
    puts_(w, text && json_valid(text) ? text : "null");
}

void json_end(json_writer *w)
{
    putc_(w, '\n');
    if (w->f)
        fflush(w->f);
}
