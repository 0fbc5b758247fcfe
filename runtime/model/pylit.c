/* runtime/model/pylit.c — a tokenizer and recursive-descent parser for the
 * Python literals that RKNN-Toolkit2 writes with repr() into a model's
 * generator string, producing jansson values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/model/rknn_file.h"
#include "util/util.h"
#include <jansson.h>

#define PYLIT_MAX_DEPTH 64

typedef struct pylit {
    const char *s;
    size_t len, pos;
    char *err;
    size_t errlen;
} pylit;

static int fail(pylit *p, const char *what)
{
    return rt_err(p->err, p->errlen, RT_EFORMAT, "%s at byte %zu", what, p->pos);
}

static void skip_ws(pylit *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                               p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}

static int word_is(pylit *p, const char *w)
{
    size_t n = strlen(w);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, w, n))
        return 0;
    /* a whole word: not followed by an identifier character */
    if (p->pos + n < p->len) {
        char c = p->s[p->pos + n];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
            return 0;
    }
    p->pos += n;
    return 1;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Appends code point cp as UTF-8. */
static size_t put_utf8(char *o, unsigned long cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    } else if (cp < 0x800) {
        o[0] = (char)(0xc0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    } else if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12);
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | cp >> 18);
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

static int parse_string(pylit *p, json_t **out)
{
    char q = p->s[p->pos++];
    /* every escape shrinks or keeps the length, except \x/\u/\U to UTF-8 (<= 4 for >= 4 in) */
    char *buf = xmalloc(p->len - p->pos + 1);
    size_t n = 0;
    int ret = 0;

    for (;;) {
        if (p->pos >= p->len) {
            ret = fail(p, "unterminated string");
            goto out;
        }
        char c = p->s[p->pos++];
        if (c == q)
            break;
        if (c == '\n') {
            ret = fail(p, "newline in a string");
            goto out;
        }
        if (c != '\\') {
            buf[n++] = c;
            continue;
        }
        if (p->pos >= p->len) {
            ret = fail(p, "unterminated string");
            goto out;
        }
        c = p->s[p->pos++];
        int digits = 0;
        switch (c) {
        case 'n': buf[n++] = '\n'; break;
        case 't': buf[n++] = '\t'; break;
        case 'r': buf[n++] = '\r'; break;
        case '0': buf[n++] = '\0'; break;
        case '\\': case '\'': case '"': buf[n++] = c; break;
        case 'x': digits = 2; break;
        case 'u': digits = 4; break;
        case 'U': digits = 8; break;
        default:
            ret = fail(p, "unknown escape in a string");
            goto out;
        }
        if (digits) {
            unsigned long cp = 0;
            for (int k = 0; k < digits; k++) {
                int h = p->pos < p->len ? hexval(p->s[p->pos]) : -1;
                if (h < 0) {
                    ret = fail(p, "bad hex escape in a string");
                    goto out;
                }
                cp = cp * 16 + (unsigned long)h;
                p->pos++;
            }
            if (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) {
                ret = fail(p, "bad code point in a string");
                goto out;
            }
            n += put_utf8(buf + n, cp);
        }
    }
    *out = json_stringn(buf, n); /* NULL for invalid UTF-8 */
    if (!*out)
        ret = fail(p, "string is not valid UTF-8");
out:
    free(buf);
    return ret;
}

static int parse_number(pylit *p, json_t **out)
{
    size_t start = p->pos, n;
    int is_float = 0;
    char tmp[64], *end;

    if (p->s[p->pos] == '-' || p->s[p->pos] == '+')
        p->pos++;
    if (word_is(p, "inf") || word_is(p, "nan")) {
        /* JSON has no inf/nan: keep them as reals jansson refuses? use strings */
        *out = json_string(p->s[start] == '-' ? "-inf" : p->s[p->pos - 1] == 'f' ? "inf" : "nan");
        return 0;
    }
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c >= '0' && c <= '9')
            ;
        else if (c == '.' || c == 'e' || c == 'E' ||
                 ((c == '-' || c == '+') && (p->s[p->pos - 1] == 'e' || p->s[p->pos - 1] == 'E')))
            is_float = 1;
        else
            break;
        p->pos++;
    }
    n = p->pos - start;
    if (n == 0 || n >= sizeof(tmp))
        return fail(p, "bad number");
    memcpy(tmp, p->s + start, n);
    tmp[n] = '\0';
    if (is_float) {
        double v = strtod(tmp, &end);
        if (*end || !isfinite(v))
            return fail(p, "bad number");
        *out = json_real(v);
    } else {
        long long v = strtoll(tmp, &end, 10);
        if (*end || end == tmp || (end == tmp + 1 && (tmp[0] == '-' || tmp[0] == '+')))
            return fail(p, "bad number");
        *out = json_integer(v);
    }
    return 0;
}

static int parse_value(pylit *p, int depth, json_t **out);

/* '[' or '(' ... up to the closing bracket */
static int parse_seq(pylit *p, int depth, char close, json_t **out)
{
    json_t *arr = json_array(), *v;
    int ret;

    p->pos++;
    for (;;) {
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == close) {
            p->pos++;
            break;
        }
        if ((ret = parse_value(p, depth + 1, &v)))
            goto fail;
        json_array_append_new(arr, v);
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == close) {
            p->pos++;
            break;
        }
        ret = fail(p, "expected ',' or a closing bracket");
        goto fail;
    }
    *out = arr;
    return 0;
fail:
    json_decref(arr);
    return ret;
}

static int parse_dict(pylit *p, int depth, json_t **out)
{
    json_t *obj = json_object(), *k = NULL, *v;
    int ret;

    p->pos++;
    for (;;) {
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == '}') {
            p->pos++;
            break;
        }
        if ((ret = parse_value(p, depth + 1, &k)))
            goto fail;
        skip_ws(p);
        if (p->pos >= p->len || p->s[p->pos] != ':') {
            ret = fail(p, "expected ':' in a dict");
            goto fail;
        }
        p->pos++;
        if ((ret = parse_value(p, depth + 1, &v)))
            goto fail;
        /* keys: strings as they are, numbers as their text (JSON keys are strings) */
        if (json_is_string(k)) {
            json_object_setn_new_nocheck(obj, json_string_value(k), json_string_length(k), v);
        } else if (json_is_integer(k)) {
            char kb[32];
            snprintf(kb, sizeof(kb), "%lld", (long long)json_integer_value(k));
            json_object_set_new_nocheck(obj, kb, v);
        } else {
            json_decref(v);
            ret = fail(p, "dict key is not a string or an integer");
            goto fail;
        }
        json_decref(k);
        k = NULL;
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == '}') {
            p->pos++;
            break;
        }
        ret = fail(p, "expected ',' or '}' in a dict");
        goto fail;
    }
    *out = obj;
    return 0;
fail:
    json_decref(k);
    json_decref(obj);
    return ret;
}

static int parse_value(pylit *p, int depth, json_t **out)
{
    char c;

    *out = NULL;
    if (depth > PYLIT_MAX_DEPTH)
        return fail(p, "nested too deeply");
    skip_ws(p);
    if (p->pos >= p->len)
        return fail(p, "unexpected end");
    c = p->s[p->pos];
    if (c == '{')
        return parse_dict(p, depth, out);
    if (c == '[')
        return parse_seq(p, depth, ']', out);
    if (c == '(')
        return parse_seq(p, depth, ')', out);
    if (c == '\'' || c == '"')
        return parse_string(p, out);
    if (c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9') || c == 'i' || c == 'n')
        if (c != 'n' || (p->len - p->pos >= 3 && !memcmp(p->s + p->pos, "nan", 3)))
            if (c != 'i' || (p->len - p->pos >= 3 && !memcmp(p->s + p->pos, "inf", 3)))
                return parse_number(p, out);
    if (word_is(p, "True")) {
        *out = json_true();
        return 0;
    }
    if (word_is(p, "False")) {
        *out = json_false();
        return 0;
    }
    if (word_is(p, "None")) {
        *out = json_null();
        return 0;
    }
    return fail(p, "unexpected character");
}

int pylit_parse(const char *s, size_t len, void **out, char *err, size_t errlen)
{
    pylit p = {.s = s, .len = len, .pos = 0, .err = err, .errlen = errlen};
    json_t *v = NULL;
    int ret;

    *out = NULL;
    ret = parse_value(&p, 0, &v);
    if (!ret) {
        skip_ws(&p);
        if (p.pos != p.len) {
            ret = fail(&p, "text after the value");
            json_decref(v);
            v = NULL;
        }
    }
    *out = v;
    return ret;
}
