/* util/json.c — a streaming JSON writer (commas and escaping handled here). */
#include "util/util.h"

#include <inttypes.h>
#include <ctype.h>
#include <math.h>
#include <string.h>

static void sep(json_writer *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->need_comma[w->depth])
        fputc(',', w->f);
    w->need_comma[w->depth] = 1;
}

void json_begin(json_writer *w, FILE *f)
{
    w->f = f;
    w->depth = 0;
    w->need_comma[0] = 0;
    w->after_key = 0;
}

static void open_(json_writer *w, char c)
{
    sep(w);
    fputc(c, w->f);
    if (w->depth < 63)
        w->depth++;
    w->need_comma[w->depth] = 0;
}

static void close_(json_writer *w, char c)
{
    if (w->depth > 0)
        w->depth--;
    fputc(c, w->f);
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
static void put_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = utf8_len(p);
        if (!n) {
            fputs("\\ufffd", f);
            p++;
            continue;
        }
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                fprintf(f, "\\u%04x", *p);
            else
                fwrite(p, 1, (size_t)n, f);
        }
        p += n;
    }
    fputc('"', f);
}

void json_key(json_writer *w, const char *key)
{
    sep(w);
    put_str(w->f, key);
    fputc(':', w->f);
    w->after_key = 1;
}

void json_str(json_writer *w, const char *s)
{
    sep(w);
    if (s)
        put_str(w->f, s);
    else
        fputs("null", w->f);
}

void json_int(json_writer *w, int64_t v)
{
    sep(w);
    fprintf(w->f, "%" PRId64, v);
}

void json_num(json_writer *w, double v)
{
    sep(w);
    if (isfinite(v))
        fprintf(w->f, "%.9g", v);
    else
        fputs("null", w->f);
}

void json_bool(json_writer *w, int v)
{
    sep(w);
    fputs(v ? "true" : "false", w->f);
}

void json_null(json_writer *w)
{
    sep(w);
    fputs("null", w->f);
}

/* ---- validation of stored JSON text (RFC 8259) before it is emitted raw ---- */

typedef struct scan {
    const unsigned char *p;
    int depth;
} scan;

static void ws(scan *s)
{
    while (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')
        s->p++;
}

static int value(scan *s);

static int string_(scan *s)
{
    if (*s->p++ != '"')
        return 0;
    while (*s->p != '"') {
        if (*s->p < 0x20)
            return 0; /* control byte, or the end of the text */
        if (*s->p == '\\') {
            s->p++;
            if (*s->p == 'u') {
                for (int k = 1; k <= 4; k++)
                    if (!isxdigit(s->p[k]))
                        return 0;
                s->p += 5;
            } else if (*s->p && strchr("\"\\/bfnrt", *s->p)) {
                s->p++;
            } else {
                return 0;
            }
            continue;
        }
        int n = utf8_len(s->p);
        if (!n)
            return 0;
        s->p += n;
    }
    s->p++;
    return 1;
}

static int number(scan *s)
{
    const unsigned char *p = s->p;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (isdigit(*p))
            p++;
    else
        return 0;
    if (*p == '.') {
        if (!isdigit(*++p))
            return 0;
        while (isdigit(*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit(*p))
            return 0;
        while (isdigit(*p))
            p++;
    }
    s->p = p;
    return 1;
}

static int word(scan *s, const char *w)
{
    size_t n = strlen(w);
    if (strncmp((const char *)s->p, w, n))
        return 0;
    s->p += n;
    return 1;
}

static int container(scan *s, char close)
{
    if (++s->depth > 64)
        return 0; /* deeper than anything we write */
    s->p++;
    ws(s);
    if (*s->p == (unsigned char)close) {
        s->p++;
        s->depth--;
        return 1;
    }
    for (;;) {
        if (close == '}') {
            if (!string_(s))
                return 0;
            ws(s);
            if (*s->p++ != ':')
                return 0;
        }
        if (!value(s))
            return 0;
        ws(s);
        if (*s->p == ',') {
            s->p++;
            ws(s);
            continue;
        }
        if (*s->p++ != (unsigned char)close)
            return 0;
        s->depth--;
        return 1;
    }
}

static int value(scan *s)
{
    ws(s);
    switch (*s->p) {
    case '{': return container(s, '}');
    case '[': return container(s, ']');
    case '"': return string_(s);
    case 't': return word(s, "true");
    case 'f': return word(s, "false");
    case 'n': return word(s, "null");
    default: return number(s);
    }
}

int json_valid(const char *text)
{
    scan s = { (const unsigned char *)(text ? text : ""), 0 };
    if (!value(&s))
        return 0;
    ws(&s);
    return *s.p == '\0';
}

void json_raw(json_writer *w, const char *text)
{
    sep(w);
    fputs(text && json_valid(text) ? text : "null", w->f);
}

void json_end(json_writer *w)
{
    fputc('\n', w->f);
    fflush(w->f);
}
