/* util/json.c — a streaming JSON writer (commas and escaping handled here). */
#include "util/util.h"

#include <jansson.h>

#include <inttypes.h>
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
        /* a run of printable ASCII that needs no escape: one write */
        const unsigned char *q = p;
        while (*q >= 0x20 && *q < 0x7f && *q != '"' && *q != '\\')
            q++;
        if (q > p) {
            fwrite(p, 1, (size_t)(q - p), f);
            p = q;
            continue;
        }
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

void json_write_null(json_writer *w)
{
    sep(w);
    fputs("null", w->f);
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
    fputs(text && json_valid(text) ? text : "null", w->f);
}

void json_end(json_writer *w)
{
    fputc('\n', w->f);
    fflush(w->f);
}
