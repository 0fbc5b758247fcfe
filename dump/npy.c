/* dump/npy.c — numpy .npy reader and writer (format versions 1.0, 2.0, 3.0).
 *
 * Layout: "\x93NUMPY", major, minor, header length (u16 LE for 1.0, u32 LE for
 * 2.0/3.0), then a Python dict literal {'descr': ..., 'fortran_order': ...,
 * 'shape': (...), } padded with spaces and ended by '\n' so that the data starts on
 * a 64-byte boundary, then the raw data. */
#include "dump/dump.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/dtype.h"
#include "util/outfile.h"
#include "util/util.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN 64
/* Headers this long are not arrays we can hold; keeps a bad length from asking
 * for a huge parse. numpy itself refuses headers above 10000 bytes by default. */
#define NPY_MAX_HEADER (64u << 20)

struct npy_type {
    int dt;
    char kind;  /* numpy kind character: f, i, u, b */
    int size;
    const char *descr; /* the name is util/dtype.h's dtype_name */
};

static const struct npy_type npy_types[] = {
    { DT_FLOAT, 'f', 4, "<f4" },
    { DT_FLOAT16, 'f', 2, "<f2" },
    { DT_DOUBLE, 'f', 8, "<f8" },
    { DT_INT8, 'i', 1, "|i1" },
    { DT_INT16, 'i', 2, "<i2" },
    { DT_INT32, 'i', 4, "<i4" },
    { DT_INT64, 'i', 8, "<i8" },
    { DT_UINT8, 'u', 1, "|u1" },
    { DT_UINT16, 'u', 2, "<u2" },
    { DT_UINT32, 'u', 4, "<u4" },
    { DT_UINT64, 'u', 8, "<u8" },
    { DT_BOOL, 'b', 1, "|b1" },
};
#define N_TYPES (sizeof(npy_types) / sizeof(npy_types[0]))

static const struct npy_type *type_by_dt(int dt)
{
    for (size_t i = 0; i < N_TYPES; i++)
        if (npy_types[i].dt == dt)
            return &npy_types[i];
    return NULL;
}

static const struct npy_type *type_by_kind(char kind, int size)
{
    for (size_t i = 0; i < N_TYPES; i++)
        if (npy_types[i].kind == kind && npy_types[i].size == size)
            return &npy_types[i];
    return NULL;
}

const char *npy_descr(int dtype)
{
    const struct npy_type *t = type_by_dt(dtype);
    return t ? t->descr : NULL;
}

const char *npy_dtype_name(int dtype)
{
    return type_by_dt(dtype) ? dtype_name(dtype) : NULL;
}

int npy_dtype_from_name(const char *name)
{
    if (!name)
        return 0;
    for (size_t i = 0; i < N_TYPES; i++)
        if (strcmp(dtype_name(npy_types[i].dt), name) == 0)
            return npy_types[i].dt;
    return 0;
}

/* count = product of dims, with overflow checks against SIZE_MAX for the byte size. */
static int dims_count(int ndim, const int64_t *dims, size_t esize, size_t *count,
                      size_t *nbytes)
{
    size_t c = 1;
    for (int i = 0; i < ndim; i++) {
        if (dims[i] < 0)
            return -1;
        if (dims[i] == 0) {
            c = 0;
            continue;
        }
        if ((uint64_t)dims[i] > SIZE_MAX || (c && (size_t)dims[i] > SIZE_MAX / c))
            return -2;
        c *= (size_t)dims[i];
    }
    /* A zero dimension makes the product 0 no matter what, but the other dims must
     * still be sane, which the loop checked. */
    if (c && c > SIZE_MAX / esize)
        return -2;
    *count = c;
    *nbytes = c * esize;
    return 0;
}

/* ------------------------------------------------------------------ writer */

int npy_encode(int dtype, int ndim, const int64_t *dims, const void *data, int version,
               size_t min_header, void **out, size_t *outlen, char *err, size_t errlen)
{
    const struct npy_type *t = type_by_dt(dtype);
    size_t count, nbytes;
    char *dict = NULL, *buf = NULL;
    size_t dlen = 0, dcap;
    int rc = RT_OK;

    *out = NULL;
    *outlen = 0;
    if (!t)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "npy: dtype %d has no .npy form", dtype);
    if (ndim < 0 || ndim > NPY_MAX_DIMS)
        return rt_err(err, errlen, RT_EINVAL, "npy: bad rank %d", ndim);
    if (version < 0 || version > 3)
        return rt_err(err, errlen, RT_EINVAL, "npy: bad format version %d", version);
    if (dims_count(ndim, dims, (size_t)t->size, &count, &nbytes) != 0)
        return rt_err(err, errlen, RT_EINVAL, "npy: bad or too large shape");
    if (nbytes && !data)
        return rt_err(err, errlen, RT_EINVAL, "npy: no data");

    dcap = 96 + (size_t)ndim * 24;
    dict = xmalloc(dcap);
    dlen = (size_t)snprintf(dict, dcap, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                            t->descr);
    for (int i = 0; i < ndim; i++)
        dlen += (size_t)snprintf(dict + dlen, dcap - dlen, "%s%lld", i ? ", " : "",
                                 (long long)dims[i]);
    dlen += (size_t)snprintf(dict + dlen, dcap - dlen, "%s), }", ndim == 1 ? "," : "");

    /* header = dict + spaces + '\n', so that prefix + header is a multiple of 64 */
    size_t body = dlen + 1 < min_header ? min_header : dlen + 1;
    size_t hlen = 0, prefix = 0;
    for (int v = version ? version : 1; v <= 3; v++) {
        prefix = v == 1 ? 10 : 12;
        hlen = body + (NPY_ALIGN - (prefix + body) % NPY_ALIGN) % NPY_ALIGN;
        if (v > 1 || hlen <= 0xffff) {
            version = v;
            break;
        }
        if (version == 1) /* forced 1.0 but does not fit */
            break;
    }
    if (version == 1 && hlen > 0xffff) {
        rc = rt_err(err, errlen, RT_EINVAL, "npy: header too long for format 1.0");
        goto out;
    }
    if (hlen > 0xffffffffu || nbytes > SIZE_MAX - prefix - hlen) {
        rc = rt_err(err, errlen, RT_EINVAL, "npy: array too large");
        goto out;
    }

    buf = xmalloc(prefix + hlen + nbytes);
    memcpy(buf, NPY_MAGIC, NPY_MAGIC_LEN);
    buf[6] = (char)version;
    buf[7] = 0;
    if (version == 1) {
        buf[8] = (char)(hlen & 0xff);
        buf[9] = (char)(hlen >> 8);
    } else {
        for (int i = 0; i < 4; i++)
            buf[8 + i] = (char)((hlen >> (8 * i)) & 0xff);
    }
    memcpy(buf + prefix, dict, dlen);
    memset(buf + prefix + dlen, ' ', hlen - dlen - 1);
    buf[prefix + hlen - 1] = '\n';
    if (nbytes)
        memcpy(buf + prefix + hlen, data, nbytes);
    *out = buf;
    *outlen = prefix + hlen + nbytes;
    buf = NULL;
out:
    free(dict);
    free(buf);
    return rc;
}

int npy_write(const char *path, int dtype, int ndim, const int64_t *dims, const void *data,
              char *err, size_t errlen)
{
    void *buf = NULL;
    size_t len = 0;
    int rc;

    rc = npy_encode(dtype, ndim, dims, data, 0, 0, &buf, &len, err, errlen);
    if (rc)
        return rc;
    rc = outfile_write(path, buf, len, OUTFILE_NOSYNC, err, errlen);  /* one of many dump files */
    free(buf);
    return rc;
}

/* ------------------------------------------------------------------ reader */

struct hdr {
    const char *p, *end;
    const char *what; /* path or "npy buffer", for messages */
    char *err;
    size_t errlen;
};

static void hdr_ws(struct hdr *h)
{
    while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\n' || *h->p == '\r'))
        h->p++;
}

static int hdr_fail(struct hdr *h, const char *msg)
{
    return rt_err(h->err, h->errlen, RT_EFORMAT, "%s: malformed .npy header: %s", h->what, msg);
}

static int hdr_expect(struct hdr *h, char c, const char *msg)
{
    hdr_ws(h);
    if (h->p >= h->end || *h->p != c)
        return hdr_fail(h, msg);
    h->p++;
    return 0;
}

/* A quoted Python string without escapes, copied into out (size outlen). */
static int hdr_string(struct hdr *h, char *out, size_t outlen, const char *msg)
{
    hdr_ws(h);
    if (h->p >= h->end || (*h->p != '\'' && *h->p != '"'))
        return hdr_fail(h, msg);
    char q = *h->p++;
    size_t n = 0;
    while (h->p < h->end && *h->p != q) {
        unsigned char c = (unsigned char)*h->p;
        if (c == '\\' || c < 0x20 || c >= 0x7f || n + 1 >= outlen)
            return hdr_fail(h, msg);
        out[n++] = (char)c;
        h->p++;
    }
    if (h->p >= h->end)
        return hdr_fail(h, "unterminated string");
    h->p++;
    out[n] = 0;
    return 0;
}

static int hdr_word(struct hdr *h, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(h->end - h->p) >= n && memcmp(h->p, w, n) == 0) {
        const char *q = h->p + n;
        /* the word must end here: "Truely" is not True */
        if (q < h->end && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
                           (*q >= '0' && *q <= '9') || *q == '_'))
            return 0;
        h->p = q;
        return 1;
    }
    return 0;
}

static int hdr_shape(struct hdr *h, int *ndim, int64_t *dims)
{
    int n = 0, comma = 0;

    hdr_ws(h);
    if (h->p < h->end && *h->p == '[')
        return hdr_fail(h, "'shape' is a list, not a tuple");
    if (hdr_expect(h, '(', "'shape' is not a tuple"))
        return RT_EFORMAT;
    for (;;) {
        hdr_ws(h);
        if (h->p < h->end && *h->p == ')') {
            h->p++;
            break;
        }
        if (h->p >= h->end || *h->p < '0' || *h->p > '9')
            return hdr_fail(h, "'shape' holds something that is not a non-negative integer");
        int64_t v = 0;
        while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
            int d = *h->p - '0';
            if (v > (INT64_MAX - d) / 10)
                return hdr_fail(h, "dimension too large");
            v = v * 10 + d;
            h->p++;
        }
        if (h->p < h->end && (*h->p == 'L' || *h->p == 'l')) /* Python 2 longs */
            h->p++;
        if (n >= NPY_MAX_DIMS)
            return rt_err(h->err, h->errlen, RT_EUNSUPPORTED,
                          "%s: .npy array has more than %d dimensions", h->what, NPY_MAX_DIMS);
        dims[n++] = v;
        hdr_ws(h);
        comma = 0;
        if (h->p < h->end && *h->p == ',') {
            h->p++;
            comma = 1;
            continue;
        }
        hdr_ws(h);
        if (h->p >= h->end || *h->p != ')')
            return hdr_fail(h, "bad 'shape' tuple");
    }
    /* "(5)" is the integer 5 in Python, not a tuple */
    if (n == 1 && !comma)
        return hdr_fail(h, "'shape' is not a tuple");
    *ndim = n;
    return 0;
}

/* descr like "<f4", ">i8", "|u1", "|b1" or "?" */
static int hdr_descr(struct hdr *h, const struct npy_type **type, int *swap)
{
    char d[64];
    int rc;

    hdr_ws(h);
    if (h->p < h->end && (*h->p == '[' || *h->p == '{'))
        return rt_err(h->err, h->errlen, RT_EUNSUPPORTED,
                      "%s: structured .npy dtypes are not supported", h->what);
    rc = hdr_string(h, d, sizeof d, "bad 'descr'");
    if (rc)
        return rc;
    char order = d[0], kind;
    const char *num;
    if (strcmp(d, "?") == 0 || strcmp(d, "b1") == 0) {
        *type = type_by_kind('b', 1);
        *swap = 0;
        return 0;
    }
    if (order == '<' || order == '>' || order == '|' || order == '=') {
        kind = d[1];
        num = d + 2;
    } else {
        order = '=';
        kind = d[0];
        num = d + 1;
    }
    if (kind == '?' && *num == 0) {
        kind = 'b';
        num = "1";
    }
    int size = 0;
    if (*num < '1' || *num > '9' || strlen(num) > 2)
        goto unsupported;
    for (const char *c = num; *c; c++) {
        if (*c < '0' || *c > '9')
            goto unsupported;
        size = size * 10 + (*c - '0');
    }
    *type = type_by_kind(kind, size);
    if (!*type)
        goto unsupported;
    /* '|' means "byte order not applicable": only right for one-byte types */
    if (order == '|' && size != 1)
        return rt_err(h->err, h->errlen, RT_EFORMAT,
                      "%s: malformed .npy header: byte order '|' on a %d-byte dtype '%s'",
                      h->what, size, d);
    *swap = order == '>' && size > 1;
    return 0;
unsupported:
    return rt_err(h->err, h->errlen, RT_EUNSUPPORTED, "%s: unsupported .npy dtype '%s'",
                  h->what, d);
}

static void byteswap(void *data, size_t count, int size)
{
    uint8_t *p = data;
    for (size_t i = 0; i < count; i++, p += size)
        for (int a = 0, b = size - 1; a < b; a++, b--) {
            uint8_t t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}

/* Fortran order -> C order. */
static void fortran_to_c(uint8_t *dst, const uint8_t *src, int ndim, const int64_t *dims,
                         size_t count, size_t es)
{
    size_t fstride[NPY_MAX_DIMS], idx[NPY_MAX_DIMS] = { 0 };
    size_t off = 0;

    for (int k = 0; k < ndim; k++)
        fstride[k] = k ? fstride[k - 1] * (size_t)dims[k - 1] : 1;
    for (size_t i = 0; i < count; i++) {
        memcpy(dst + i * es, src + off * es, es);
        /* next C-order index: the last dimension runs fastest */
        for (int k = ndim - 1; k >= 0; k--) {
            if (++idx[k] < (size_t)dims[k]) {
                off += fstride[k];
                break;
            }
            off -= (idx[k] - 1) * fstride[k];
            idx[k] = 0;
        }
    }
}

static uint32_t rd_le(const uint8_t *p, int n)
{
    uint32_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* borrow: when the data needs no conversion (C order, host byte order, not
 * bool, aligned), a->data points into buf instead of a copy (a->borrowed = 1). */
static int npy_parse(const void *buf, size_t len, const char *what, int borrow, npy_array *a,
                     char *err, size_t errlen)
{
    const uint8_t *b = buf;
    struct hdr h = { .what = what, .err = err, .errlen = errlen };
    const struct npy_type *type = NULL;
    int have_descr = 0, have_fortran = 0, have_shape = 0, fortran = 0, swap = 0, rc;
    int64_t dims[NPY_MAX_DIMS];
    int ndim = 0;
    size_t prefix, hlen, count, nbytes;

    memset(a, 0, sizeof *a);
    if (len == 0)
        return rt_err(err, errlen, RT_EFORMAT, "%s: not a .npy file (empty)", what);
    if (memcmp(b, NPY_MAGIC, len < NPY_MAGIC_LEN ? len : NPY_MAGIC_LEN) != 0)
        return rt_err(err, errlen, RT_EFORMAT, "%s: not a .npy file (bad magic)", what);
    if (len < 8)
        return rt_err(err, errlen, RT_EFORMAT, "%s: truncated .npy file (%zu bytes)", what, len);
    if (b[7] != 0 || b[6] < 1 || b[6] > 3)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "%s: unsupported .npy format version %u.%u",
                      what, b[6], b[7]);
    prefix = b[6] == 1 ? 10 : 12;
    if (len < prefix)
        return rt_err(err, errlen, RT_EFORMAT, "%s: truncated .npy file (%zu bytes)", what, len);
    hlen = rd_le(b + 8, b[6] == 1 ? 2 : 4);
    if (hlen > NPY_MAX_HEADER)
        return rt_err(err, errlen, RT_EFORMAT, "%s: .npy header length %zu is implausible",
                      what, hlen);
    if (hlen > len - prefix)
        return rt_err(err, errlen, RT_EFORMAT,
                      "%s: truncated .npy header (%zu bytes announced, %zu present)", what, hlen,
                      len - prefix);

    h.p = (const char *)b + prefix;
    h.end = h.p + hlen;
    if ((rc = hdr_expect(&h, '{', "no dictionary")))
        return rc;
    for (;;) {
        char key[32];
        hdr_ws(&h);
        if (h.p < h.end && *h.p == '}') {
            h.p++;
            break;
        }
        if (h.p >= h.end)
            return hdr_fail(&h, "unterminated dictionary");
        if ((rc = hdr_string(&h, key, sizeof key, "bad key")))
            return rc;
        if ((rc = hdr_expect(&h, ':', "missing ':'")))
            return rc;
        hdr_ws(&h);
        if (strcmp(key, "descr") == 0 && !have_descr) {
            if ((rc = hdr_descr(&h, &type, &swap)))
                return rc;
            have_descr = 1;
        } else if (strcmp(key, "fortran_order") == 0 && !have_fortran) {
            if (hdr_word(&h, "True"))
                fortran = 1;
            else if (hdr_word(&h, "False"))
                fortran = 0;
            else
                return hdr_fail(&h, "'fortran_order' is not True or False");
            have_fortran = 1;
        } else if (strcmp(key, "shape") == 0 && !have_shape) {
            if ((rc = hdr_shape(&h, &ndim, dims)))
                return rc;
            have_shape = 1;
        } else {
            return rt_err(err, errlen, RT_EFORMAT,
                          "%s: malformed .npy header: unexpected or repeated key '%s'", what,
                          key);
        }
        hdr_ws(&h);
        if (h.p < h.end && *h.p == ',') {
            h.p++;
            continue;
        }
        if ((rc = hdr_expect(&h, '}', "expected ',' or '}'")))
            return rc;
        break;
    }
    hdr_ws(&h);
    if (h.p != h.end)
        return hdr_fail(&h, "trailing characters after the dictionary");
    if (!have_descr || !have_fortran || !have_shape)
        return rt_err(err, errlen, RT_EFORMAT, "%s: malformed .npy header: missing '%s'", what,
                      !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape");

    if (dims_count(ndim, dims, (size_t)type->size, &count, &nbytes) != 0)
        return rt_err(err, errlen, RT_EFORMAT, "%s: .npy shape is too large", what);
    size_t avail = len - prefix - hlen;
    if (avail < nbytes)
        return rt_err(err, errlen, RT_EFORMAT,
                      "%s: truncated .npy data (%zu bytes expected, %zu present)", what, nbytes,
                      avail);
    if (avail > nbytes)
        return rt_err(err, errlen, RT_EFORMAT,
                      "%s: .npy data size mismatch (%zu bytes expected, %zu present)", what,
                      nbytes, avail);

    const uint8_t *src = b + prefix + hlen;
    if (borrow && !(fortran && ndim > 1) && !swap && type->dt != DT_BOOL &&
        (uintptr_t)src % (uintptr_t)type->size == 0) {
        a->data = (void *)src;
        a->borrowed = 1;
        goto done;
    }
    a->data = xaligned_alloc(nbytes);
    if (fortran && ndim > 1)
        fortran_to_c(a->data, src, ndim, dims, count, (size_t)type->size);
    else if (nbytes)
        memcpy(a->data, src, nbytes);
    if (swap)
        byteswap(a->data, count, type->size);
    if (type->dt == DT_BOOL) { /* keep the runtime's 0/1 invariant */
        uint8_t *p = a->data;
        for (size_t i = 0; i < count; i++)
            p[i] = p[i] != 0;
    }
done:
    a->dtype = type->dt;
    a->ndim = ndim;
    memcpy(a->dims, dims, sizeof(int64_t) * (size_t)ndim);
    a->count = count;
    a->nbytes = nbytes;
    return 0;
}

int npy_read_buffer(const void *buf, size_t len, npy_array *a, char *err, size_t errlen)
{
    if (!buf && len)
        return rt_err(err, errlen, RT_EINVAL, "npy: no buffer");
    if (!buf)
        buf = "";
    return npy_parse(buf, len, "npy buffer", 0, a, err, errlen);
}

int npy_read(const char *path, npy_array *a, char *err, size_t errlen)
{
    void *buf = NULL;
    size_t len = 0;
    int rc;

    memset(a, 0, sizeof *a);
    rc = rt_read_file(path, &buf, &len, err, errlen);
    if (rc)
        return rc;
    rc = npy_parse(buf, len, path, 0, a, err, errlen);
    free(buf);
    return rc;
}

int npy_map(const char *path, npy_array *a, char *err, size_t errlen)
{
    const void *map;
    size_t len;
    int rc;

    memset(a, 0, sizeof *a);
    if ((rc = rt_map_file(path, 1, &map, &len, err, errlen)))
        return rc == RT_EIO ? rc : npy_read(path, a, err, errlen); /* the plain reader says why */
    rc = npy_parse(map, len, path, 1, a, err, errlen);
    if (!rc && a->borrowed) {
        a->map = (void *)map;
        a->map_len = len;
    } else {
        rt_unmap_file(map, len);
    }
    return rc;
}

void npy_free(npy_array *a)
{
    if (a->map) {
        rt_unmap_file(a->map, a->map_len);
        memset(a, 0, sizeof *a);
        return;
    }
    if (!a)
        return;
    free(a->data);
    memset(a, 0, sizeof *a);
}

void npy_widen_f16(npy_array *a)
{
    if (a->dtype != DT_FLOAT16)
        return;
    float *f = xaligned_alloc(sizeof(float) * (a->count ? a->count : 1));
    for (size_t i = 0; i < a->count; i++)
        f[i] = rt_f16_to_f32(((const uint16_t *)a->data)[i]);
    if (a->map)
        rt_unmap_file(a->map, a->map_len);
    else
        free(a->data);
    a->map = NULL, a->map_len = 0, a->borrowed = 0;
    a->data = f;
    a->dtype = DT_FLOAT;
    a->nbytes = a->count * sizeof(float);
}
