/* tests/unit/test_json_writer.c — util/json.c's shortcuts write what its
 * general paths write: a number as printf's "%.9g" (whole numbers and
 * hundredths take a digit loop), a key or string as jansson reads it back, and byte for byte as
 * jansson writes it when nothing needs escaping (those take one copy). Values: edges, and 200,000 seeded random ones.
 * Unknown values (NULL, NaN, infinities, the missing integer) are null. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/test.h"
#include "util/util.h"

static char *one_num(double v)
{
    json_writer w;
    size_t len;
    json_begin_mem(&w);
    json_arr_open(&w);
    json_num(&w, v);
    json_num(&w, v);
    json_arr_close(&w);
    return json_take(&w, &len);
}

static int num_ok(double v)
{
    char want[96], *got = one_num(v);
    if (isfinite(v))
        snprintf(want, sizeof want, "[%.9g,%.9g]", v, v);
    else
        snprintf(want, sizeof want, "[null,null]");
    size_t n = strlen(got);
    while (n && got[n - 1] == '\n')
        got[--n] = 0;
    int ok = !strcmp(got, want);
    if (!ok)
        fprintf(stderr, "json_num(%.17g): %s, printf %s\n", v, got, want);
    free(got);
    return ok;
}

/* {"<s>":"<s>"} against jansson's encoding of the same object */
static int str_ok(const char *s)
{
    json_writer w;
    size_t len;
    json_begin_mem(&w);
    json_obj_open(&w);
    json_key(&w, s);
    json_str(&w, s);
    json_obj_close(&w);
    char *got = json_take(&w, &len);
    while (len && got[len - 1] == '\n')
        got[--len] = 0;
    /* read back by jansson: the same key and value */
    json_t *back = json_loads(got, 0, NULL);
    const char *k = back && json_object_size(back) == 1 ? json_object_iter_key(json_object_iter(back)) : NULL;
    int ok = k && !strcmp(k, s) && json_is_string(json_object_get(back, k)) &&
             !strcmp(json_string_value(json_object_get(back, k)), s);
    /* nothing to escape: byte for byte what jansson writes */
    int plain = 1;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        plain &= *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\';
    json_t *o = json_object();
    json_object_set_new(o, s, json_string(s));
    char *want = json_dumps(o, JSON_COMPACT);
    if (plain)
        ok &= want && !strcmp(got, want);
    if (!ok)
        fprintf(stderr, "string '%s': %s, jansson %s\n", s, got, want ? want : "(null)");
    free(want);
    json_decref(o);
    json_decref(back);
    free(got);
    return ok;
}

int main(void)
{
    static const double edges[] = {0.0, -0.0, 1, -1, 7, 42, 999999999, -999999999, 1e9, -1e9,
                                   1e9 + 1, 2147483647.0, 2147483648.0, -2147483648.0,
                                   4294967296.0, 1e15, 0.5, -0.5, 68.96, 1e-7, 123456789.5,
                                   NAN, INFINITY, -INFINITY, 5e-324, 1.7976931348623157e308,
                                   0.01, -0.01, 0.1, 0.05, 9999999.99, -9999999.99, 1e7 - 0.5,
                                   7329546.24, 19042140.2, 100.5, 0.005, 1.255, 2.675};
    int bad = 0;

    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        bad += !num_ok(edges[i]);
    CHECK(bad == 0, "%d edge numbers differ from printf", bad);

    srand(7);
    bad = 0;
    for (int i = 0; i < 200000; i++) {
        double v;
        switch (i % 4) {
        case 0: v = (double)(rand() % 2000000001 - 1000000000); break;   /* whole, around the limit */
        case 1: v = (double)(rand() % 20001 - 10000) / 100.0; break;      /* table percentages */
        case 2: v = ldexp((double)rand() / RAND_MAX, rand() % 80 - 40); break;
        default: v = (double)rand() * (double)rand(); break;               /* large whole */
        }
        bad += !num_ok(v);
    }
    CHECK(bad == 0, "%d of 200000 random numbers differ from printf", bad);

    static const char *const strs[] = {"", "op", "total_time_us", "ConvRelu:Conv_0",
                                       "a \"quoted\" name", "back\\slash", "tab\there",
                                       "new\nline", "ctl\x01", "del\x7f", "utf-8 \xc3\xa9t\xc3\xa9",
                                       "/path/to/model.rknn", "[1,3,224,224]"};
    bad = 0;
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        bad += !str_ok(strs[i]);
    CHECK(bad == 0, "%d strings encoded unlike jansson", bad);

    /* unknown values: null, never "(null)", NaN or a sentinel number; the text
     * written out by hand, and jansson (strict: no NaN) must read it */
    json_writer w;
    json_begin_mem(&w);
    json_obj_open(&w);
    json_key(&w, "s"), json_str(&w, NULL);
    json_key(&w, "nan"), json_num(&w, NAN);
    json_key(&w, "inf"), json_num(&w, -INFINITY);
    json_key_int(&w, "col", INT64_MIN, INT64_MIN);    /* STORE_NULL_INT */
    json_key_int(&w, "col_min", INT64_MIN + 1, INT64_MIN);
    json_key_int(&w, "neg", -7, INT64_MIN);           /* a zero point: negative is known */
    json_key(&w, "counts"), json_arr_open(&w);
    static const int64_t counts[] = {-1, -5, INT64_MIN, 0, 7};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        json_int_or_null(&w, counts[i], -1);
    json_arr_close(&w);
    json_key(&w, "latin1"), json_str(&w, "caf\xe9");
    json_obj_close(&w);
    char *doc = json_take(&w, NULL);
    const char *want = "{\"s\":null,\"nan\":null,\"inf\":null,\"col\":null,"
                       "\"col_min\":-9223372036854775807,\"neg\":-7,"
                       "\"counts\":[null,null,null,0,7],\"latin1\":\"caf\\ufffd\"}";
    CHECK(!strcmp(doc, want), "unknowns written as %s, want %s", doc, want);
    json_error_t e;
    json_t *back = json_loads(doc, 0, &e);
    CHECK(back && json_is_null(json_object_get(back, "nan")) &&
              !strcmp(json_string_value(json_object_get(back, "latin1")), "caf\xef\xbf\xbd"),
          "jansson reads the unknowns back: %s", back ? "values differ" : e.text);
    json_decref(back);
    free(doc);
    TEST_END();
}
