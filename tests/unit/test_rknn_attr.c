/* tests/unit/test_rknn_attr.c — a Toolkit2 node's attributes (rknn_node_attrs): the
 * BSON document of node slot 9 read into graph attributes. The documents are
 * written here from the BSON specification (bsonspec.org: int32 size, elements of
 * type byte, key, value; 0x01 double, 0x02 string, 0x03 document, 0x04 array, 0x10
 * int32), in the layout the SDK's custom-op demo file stores, {alpha: {dtype: "f",
 * value: 0.5}}: a float "alpha" of 0.5 (a value checked by hand); an int list and a
 * string; a broken length is refused with a message, an attribute outside the form
 * left out. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/model/model.h"
#include "runtime/model/rknn_file.h"
#include "tests/test.h"

typedef struct buf {
    uint8_t b[512];
    size_t n;
} buf;

static void put(buf *o, const void *p, size_t n) { memcpy(o->b + o->n, p, n); o->n += n; }
static void u8(buf *o, int v) { uint8_t c = (uint8_t)v; put(o, &c, 1); }
static void i32(buf *o, int32_t v) { uint8_t c[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)}; put(o, c, 4); }
static void key(buf *o, int type, const char *k) { u8(o, type); put(o, k, strlen(k) + 1); }
static void str(buf *o, const char *k, const char *v) { key(o, 2, k); i32(o, (int32_t)strlen(v) + 1); put(o, v, strlen(v) + 1); }
static void dbl(buf *o, const char *k, double v) { uint64_t u; memcpy(&u, &v, 8); key(o, 1, k); for (int i = 0; i < 8; i++) u8(o, (int)(u >> (8 * i) & 0xff)); }
static size_t open_doc(buf *o) { size_t at = o->n; i32(o, 0); return at; }
static void close_doc(buf *o, size_t at) { u8(o, 0); int32_t n = (int32_t)(o->n - at); memcpy(o->b + at, &n, 4); }

/* a one-node model whose node's attribute document is d (at offset 0 of the "file") */
static void model_of(rknn_model *m, rknn_node *nd, const buf *d)
{
    static char name[] = "cstDualResidual:cstDualResidual_0", type[] = "cstDualResidual";
    memset(m, 0, sizeof(*m));
    memset(nd, 0, sizeof(*nd));
    nd->name = name;
    nd->type = type;
    nd->attr_off = 0;
    nd->attr_len = (int64_t)d->n;
    m->nodes = nd;
    m->n_nodes = 1;
}

static const attr_t *find(const attr_t *a, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(a[i].name, name))
            return &a[i];
    return NULL;
}

static void free_attrs(attr_t *a, int n)
{
    for (int i = 0; i < n; i++) {
        free(a[i].name);
        free(a[i].s);
        free(a[i].floats);
        free(a[i].ints);
    }
    free(a);
}

int main(void)
{
    buf d = {0};
    rknn_model m;
    rknn_node nd;
    attr_t *a = NULL;
    int n = 0;
    char err[256] = "";

    /* {alpha: {dtype: "f", value: 0.5}, axes: {dtype: "i", value: [2, 3]},
     *  mode: {dtype: "s", value: "nearest"}, loose: 7} */
    size_t top = open_doc(&d), sub;
    key(&d, 3, "alpha");
    sub = open_doc(&d);
    str(&d, "dtype", "f");
    dbl(&d, "value", 0.5);
    close_doc(&d, sub);
    key(&d, 3, "axes");
    sub = open_doc(&d);
    str(&d, "dtype", "i");
    key(&d, 4, "value");
    size_t arr = open_doc(&d);
    key(&d, 0x10, "0");
    i32(&d, 2);
    key(&d, 0x10, "1");
    i32(&d, 3);
    close_doc(&d, arr);
    close_doc(&d, sub);
    key(&d, 3, "mode");
    sub = open_doc(&d);
    str(&d, "dtype", "s");
    str(&d, "value", "nearest");
    close_doc(&d, sub);
    key(&d, 0x10, "loose");
    i32(&d, 7);
    close_doc(&d, top);

    model_of(&m, &nd, &d);
    CHECK(rknn_node_attrs(&m, d.b, d.n, 0, &a, &n, err, sizeof err) == 0, "parse: %s", err);
    CHECK(n == 3, "three attributes of the {dtype, value} form, got %d", n);
    const attr_t *x = find(a, n, "alpha");
    CHECK(x && x->type == ATTR_FLOAT && x->f == 0.5f, "alpha: float 0.5");
    x = find(a, n, "axes");
    CHECK(x && x->type == ATTR_INTS && x->n == 2 && x->ints[0] == 2 && x->ints[1] == 3,
          "axes: ints [2, 3]");
    x = find(a, n, "mode");
    CHECK(x && x->type == ATTR_STRING && !strcmp(x->s, "nearest"), "mode: string nearest");
    CHECK(!find(a, n, "loose"), "an attribute not of the {dtype, value} form is left out");
    free_attrs(a, n);

    /* the length word says more bytes than the document holds */
    buf bad = d;
    int32_t big = (int32_t)d.n + 8;
    memcpy(bad.b, &big, 4);
    model_of(&m, &nd, &d);
    CHECK(rknn_node_attrs(&m, bad.b, bad.n, 0, &a, &n, err, sizeof err) != 0 && strstr(err, "BSON"),
          "a broken length word: %s", err);
    /* the document runs past the file */
    model_of(&m, &nd, &d);
    CHECK(rknn_node_attrs(&m, d.b, d.n - 4, 0, &a, &n, err, sizeof err) != 0 &&
          strstr(err, "outside the file"), "past the file's end: %s", err);
    /* no attributes */
    nd.attr_off = nd.attr_len = -1;
    CHECK(rknn_node_attrs(&m, d.b, d.n, 0, &a, &n, err, sizeof err) == 0 && n == 0 && !a,
          "a node without attributes");
    TEST_END();
}
