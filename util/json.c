/* util/json.c — a streaming JSON writer (commas and escaping handled here). */
#include "util/util.h"

#include <inttypes.h>
#include <math.h>

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

static void put_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
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

void json_raw(json_writer *w, const char *text)
{
    sep(w);
    fputs(text, w->f);
}

void json_end(json_writer *w)
{
    fputc('\n', w->f);
    fflush(w->f);
}
