/* tests/unit/test_npy.c — .npy reader/writer: round trips for every dtype and
 * format version, hand-built headers (numpy's own byte layout, Fortran order,
 * big-endian), and broken files that must be refused with a one-line error. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump/dump.h"
#include "runtime/model/model.h"
#include "tests/test.h"
#include "util/util.h"

static const int all_dt[] = { DT_FLOAT, DT_FLOAT16, DT_DOUBLE, DT_INT8, DT_INT16, DT_INT32,
                              DT_INT64, DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64, DT_BOOL };
static const int all_size[] = { 4, 2, 8, 1, 2, 4, 8, 1, 2, 4, 8, 1 };
#define N_DT ((int)(sizeof(all_dt) / sizeof(all_dt[0])))

/* Builds "\x93NUMPY" + version + length + header + data, no padding. */
static void *mk(int major, const char *header, const void *data, size_t dlen, size_t *len)
{
    size_t hl = strlen(header), pre = major == 1 ? 10 : 12;
    unsigned char *b = xmalloc(pre + hl + dlen + 1);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (unsigned char)major;
    b[7] = 0;
    for (size_t i = 0; i < pre - 8; i++)
        b[8 + i] = (unsigned char)(hl >> (8 * i));
    memcpy(b + pre, header, hl);
    if (dlen)
        memcpy(b + pre + hl, data, dlen);
    *len = pre + hl + dlen;
    return b;
}

static int one_line(const char *s)
{
    return s[0] != 0 && strchr(s, '\n') == NULL;
}

/* Reads a hand-built file that must fail with status `want`. */
static void bad(int major, const char *header, const void *data, size_t dlen, int want,
                const char *needle)
{
    size_t len;
    void *b = mk(major, header, data, dlen, &len);
    npy_array a;
    char err[256] = "";
    int rc = npy_read_buffer(b, len, &a, err, sizeof err);
    CHECK(rc == want, "header %s: rc %d want %d (%s)", header, rc, want, err);
    if (want == 0) {
        npy_free(&a);
        free(b);
        return;
    }
    CHECK(one_line(err), "header %s: message '%s'", header, err);
    CHECK(!needle || strstr(err, needle), "header %s: message '%s' lacks '%s'", header, err,
          needle);
    CHECK(a.data == NULL && a.ndim == 0, "failed read leaves a zeroed array");
    free(b);
}

static void test_roundtrip(void)
{
    static const int64_t shapes[][4] = { { 0 }, { 5 }, { 2, 3 }, { 2, 0, 3 }, { 1, 2, 3, 4 } };
    static const int ranks[] = { 0, 1, 2, 3, 4 };
    char err[256];

    for (int t = 0; t < N_DT; t++) {
        for (int s = 0; s < 5; s++) {
            for (int ver = 0; ver <= 3; ver++) {
                size_t count = 1;
                for (int k = 0; k < ranks[s]; k++)
                    count *= (size_t)shapes[s][k];
                size_t nb = count * (size_t)all_size[t];
                unsigned char *data = xmalloc(nb + 1);
                for (size_t i = 0; i < nb; i++)
                    data[i] = all_dt[t] == DT_BOOL ? (unsigned char)(i % 3 == 0)
                                                   : (unsigned char)(i * 37 + 11);
                void *buf;
                size_t len;
                int rc = npy_encode(all_dt[t], ranks[s], shapes[s], data, ver, 0, &buf, &len,
                                    err, sizeof err);
                CHECK(rc == 0, "encode dt %d: %s", all_dt[t], err);
                if (rc) {
                    free(data);
                    continue;
                }
                const unsigned char *ub = buf;
                int want_ver = ver ? ver : 1;
                size_t pre = want_ver == 1 ? 10 : 12;
                size_t hl = want_ver == 1 ? (size_t)(ub[8] | ub[9] << 8)
                                          : (size_t)(ub[8] | ub[9] << 8 | ub[10] << 16);
                CHECK(ub[6] == want_ver && ub[7] == 0, "version byte %d want %d", ub[6], want_ver);
                CHECK((pre + hl) % 64 == 0, "data offset %zu not 64-aligned", pre + hl);
                CHECK(ub[pre + hl - 1] == '\n', "header ends with newline");
                CHECK(len == pre + hl + nb, "file length");

                npy_array a;
                rc = npy_read_buffer(buf, len, &a, err, sizeof err);
                CHECK(rc == 0, "read back dt %d rank %d v%d: %s", all_dt[t], ranks[s], ver, err);
                if (rc == 0) {
                    CHECK(a.dtype == all_dt[t], "dtype %d want %d", a.dtype, all_dt[t]);
                    CHECK(a.ndim == ranks[s], "ndim");
                    CHECK(memcmp(a.dims, shapes[s], sizeof(int64_t) * (size_t)ranks[s]) == 0,
                          "dims");
                    CHECK(a.count == count && a.nbytes == nb, "count %zu", a.count);
                    CHECK(nb == 0 || memcmp(a.data, data, nb) == 0, "data dt %d", all_dt[t]);
                }
                npy_free(&a);
                free(buf);
                free(data);
            }
        }
    }
}

static void test_file_io(void)
{
    char dir[] = "/tmp/test_npy_XXXXXX", path[256], err[256];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/a.npy", dir);

    int64_t dims[2] = { 3, 4 };
    float v[12];
    for (int i = 0; i < 12; i++)
        v[i] = (float)i * 0.5f - 2.0f;
    int rc = npy_write(path, DT_FLOAT, 2, dims, v, err, sizeof err);
    CHECK(rc == 0, "npy_write: %s", err);
    npy_array a;
    rc = npy_read(path, &a, err, sizeof err);
    CHECK(rc == 0, "npy_read: %s", err);
    CHECK(rc == 0 && a.dtype == DT_FLOAT && a.ndim == 2 && a.dims[0] == 3 && a.dims[1] == 4,
          "shape back");
    CHECK(rc == 0 && memcmp(a.data, v, sizeof v) == 0, "values back");
    npy_free(&a);

    /* npy_map: the same array, used in place from the mapping */
    rc = npy_map(path, &a, err, sizeof err);
    CHECK(rc == 0 && a.borrowed && a.map && a.dtype == DT_FLOAT && a.count == 12 &&
          memcmp(a.data, v, sizeof v) == 0, "npy_map: %d %s", rc, err);
    npy_free(&a);
    CHECK(a.data == NULL && a.map == NULL, "npy_free clears a mapped array");
    {   /* data needing conversion (big-endian) is copied, with the same result as npy_read */
        char be[256];
        snprintf(be, sizeof be, "%s/be.npy", dir);
        FILE *bf = fopen(be, "wb");
        const char hdr[] = "\x93NUMPY\x01\x00\x76\x00{'descr': '>i4', 'fortran_order': False, "
                           "'shape': (2,), }";
        const unsigned char data[8] = {0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfe};
        char pad[128];
        size_t hl = sizeof(hdr) - 1; /* 10-byte prefix + 57-byte dict, padded to 128 */
        memset(pad, ' ', sizeof pad);
        fwrite(hdr, 1, hl, bf);
        fwrite(pad, 1, 128 - hl - 1, bf);
        fputc('\n', bf);
        fwrite(data, 1, sizeof data, bf);
        fclose(bf);
        rc = npy_map(be, &a, err, sizeof err);
        CHECK(rc == 0 && !a.borrowed && a.dtype == DT_INT32 && ((int32_t *)a.data)[0] == 258 &&
              ((int32_t *)a.data)[1] == -2, "npy_map big-endian: %d %s", rc, err);
        npy_free(&a);
        unlink(be);
    }

    /* exact bytes numpy writes for np.zeros((2,3), np.float32) header (numpy 1.24) */
    void *buf;
    size_t len;
    rc = rt_read_file(path, &buf, &len, err, sizeof err);
    CHECK(rc == 0, "reread");
    const char *want = "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (3, 4), }";
    CHECK(rc == 0 && len == 128 + 48 && memcmp(buf, want, strlen(want)) == 0,
          "header bytes as numpy writes them");
    free(buf);

    /* errors name the file */
    snprintf(path, sizeof path, "%s/missing.npy", dir);
    rc = npy_read(path, &a, err, sizeof err);
    CHECK(rc == RT_EIO && strstr(err, "missing.npy"), "missing file: %d %s", rc, err);
    snprintf(path, sizeof path, "%s/text.npy", dir);
    FILE *f = fopen(path, "w");
    fputs("hello, world\n", f);
    fclose(f);
    rc = npy_read(path, &a, err, sizeof err);
    CHECK(rc == RT_EFORMAT && strstr(err, "text.npy") && strstr(err, "magic"), "text: %s", err);
    rc = npy_map(path, &a, err, sizeof err);
    CHECK(rc == RT_EFORMAT && strstr(err, "text.npy") && a.map == NULL, "text mapped: %s", err);
    unlink(path);
    snprintf(path, sizeof path, "%s/a.npy", dir);
    unlink(path);

    /* unwritable path */
    rc = npy_write("/nonexistent-dir/x.npy", DT_FLOAT, 2, dims, v, err, sizeof err);
    CHECK(rc == RT_EIO && one_line(err), "unwritable: %d %s", rc, err);
    rmdir(dir);
}

static void test_hand_built(void)
{
    char err[256];
    size_t len;
    npy_array a;
    void *b;
    int rc;

    /* Fortran order 2x3 float32: memory holds columns, so [0,3,1,4,2,5] in the file is
     * [[0,1,2],[3,4,5]] */
    float fd[6] = { 0, 3, 1, 4, 2, 5 };
    b = mk(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }\n", fd, sizeof fd,
           &len);
    rc = npy_read_buffer(b, len, &a, err, sizeof err);
    CHECK(rc == 0, "fortran 2d: %s", err);
    for (int i = 0; rc == 0 && i < 6; i++)
        CHECK(((float *)a.data)[i] == (float)i, "fortran 2d [%d] = %g", i,
              ((float *)a.data)[i]);
    npy_free(&a);
    free(b);

    /* Fortran order 2x3x2 int16: element (i,j,k) at i + 2*j + 6*k; value 100i+10j+k */
    int16_t f3[12];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 2; k++)
                f3[i + 2 * j + 6 * k] = (int16_t)(100 * i + 10 * j + k);
    b = mk(1, "{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3, 2), }\n", f3, sizeof f3,
           &len);
    rc = npy_read_buffer(b, len, &a, err, sizeof err);
    CHECK(rc == 0, "fortran 3d: %s", err);
    for (int i = 0, n = 0; rc == 0 && i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 2; k++, n++)
                CHECK(((int16_t *)a.data)[n] == 100 * i + 10 * j + k, "fortran 3d %d", n);
    npy_free(&a);
    free(b);

    /* big-endian int32 and float64 */
    unsigned char be[8] = { 0x00, 0x00, 0x01, 0x02, 0xff, 0xff, 0xff, 0xfe };
    b = mk(1, "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }\n", be, 8, &len);
    rc = npy_read_buffer(b, len, &a, err, sizeof err);
    CHECK(rc == 0 && ((int32_t *)a.data)[0] == 258 && ((int32_t *)a.data)[1] == -2,
          "big-endian i4: %s", err);
    npy_free(&a);
    free(b);
    unsigned char bd[8] = { 0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18 }; /* pi */
    b = mk(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (), }\n", bd, 8, &len);
    rc = npy_read_buffer(b, len, &a, err, sizeof err);
    CHECK(rc == 0 && ((double *)a.data)[0] == 3.141592653589793, "big-endian f8 scalar: %s",
          err);
    CHECK(rc == 0 && a.ndim == 0 && a.count == 1, "scalar shape");
    npy_free(&a);
    free(b);

    /* accepted variants: key order, double quotes, no trailing comma, Python 2 longs,
     * '?' for bool (nonzero bytes normalized to 1), versions 2.0 and 3.0 */
    unsigned char bo[4] = { 0, 1, 7, 0 };
    b = mk(2, "{\"shape\": (2L, 2L), \"fortran_order\": False, \"descr\": \"?\"}", bo, 4, &len);
    rc = npy_read_buffer(b, len, &a, err, sizeof err);
    CHECK(rc == 0 && a.dtype == DT_BOOL && a.dims[0] == 2 && a.dims[1] == 2, "variants: %s",
          err);
    CHECK(rc == 0 && memcmp(a.data, "\0\1\1\0", 4) == 0, "bool normalized");
    npy_free(&a);
    free(b);
    uint16_t u16[3] = { 1, 2, 65535 };
    b = mk(3, "{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }   \n", u16, 6, &len);
    rc = npy_read_buffer(b, len, &a, err, sizeof err);
    CHECK(rc == 0 && ((uint16_t *)a.data)[2] == 65535, "v3: %s", err);
    npy_free(&a);
    free(b);

    /* a header longer than 64 KiB makes the writer switch to 2.0 */
    int64_t d1 = 4;
    int32_t i4[4] = { -1, 0, 1, 2147483647 };
    rc = npy_encode(DT_INT32, 1, &d1, i4, 0, 70000, &b, &len, err, sizeof err);
    CHECK(rc == 0 && ((unsigned char *)b)[6] == 2, "long header -> v2");
    CHECK(rc == 0 && (len - 16) % 64 == 0 && len > 70000, "v2 long header size %zu", len);
    rc = npy_read_buffer(b, len, &a, err, sizeof err);
    CHECK(rc == 0 && a.count == 4 && ((int32_t *)a.data)[3] == 2147483647, "read v2: %s", err);
    npy_free(&a);
    free(b);
    rc = npy_encode(DT_INT32, 1, &d1, i4, 1, 70000, &b, &len, err, sizeof err);
    CHECK(rc == RT_EINVAL, "forced v1 with a long header refused");

    /* dtype names */
    CHECK(strcmp(npy_dtype_name(DT_FLOAT16), "float16") == 0, "name f16");
    CHECK(strcmp(npy_descr(DT_INT64), "<i8") == 0, "descr i8");
    CHECK(npy_dtype_from_name("uint32") == DT_UINT32, "from name");
    CHECK(npy_dtype_name(DT_BFLOAT16) == NULL && npy_dtype_from_name("foo") == 0, "unknowns");
    rc = npy_encode(DT_STRING, 1, &d1, i4, 0, 0, &b, &len, err, sizeof err);
    CHECK(rc == RT_EUNSUPPORTED, "string dtype refused");
}

static void test_broken(void)
{
    char err[256];
    npy_array a;
    unsigned char d24[24] = { 0 };
    int rc;

    rc = npy_read_buffer("", 0, &a, err, sizeof err);
    CHECK(rc == RT_EFORMAT && one_line(err), "empty: %s", err);
    rc = npy_read_buffer("\x93NUM", 4, &a, err, sizeof err);
    CHECK(rc == RT_EFORMAT && strstr(err, "truncated"), "short magic: %s", err);
    rc = npy_read_buffer("\x93NUMPY\x01", 7, &a, err, sizeof err);
    CHECK(rc == RT_EFORMAT && strstr(err, "truncated"), "no version: %s", err);
    rc = npy_read_buffer("PK\x03\x04 this is a zip", 20, &a, err, sizeof err);
    CHECK(rc == RT_EFORMAT && strstr(err, "magic"), "zip: %s", err);
    rc = npy_read_buffer("\x93NUMPY\x01\x00\xff", 9, &a, err, sizeof err);
    CHECK(rc == RT_EFORMAT && strstr(err, "truncated"), "half a length: %s", err);
    rc = npy_read_buffer("\x93NUMPY\x01\x00\xff\x00{", 11, &a, err, sizeof err);
    CHECK(rc == RT_EFORMAT && strstr(err, "truncated .npy header"), "header cut: %s", err);
    rc = npy_read_buffer("\x93NUMPY\x02\x00\xff\xff\xff\xff{", 13, &a, err, sizeof err);
    CHECK(rc == RT_EFORMAT && one_line(err), "huge v2 length: %s", err);

    const char *ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n";
    bad(4, ok, d24, 24, RT_EUNSUPPORTED, "version 4.0");
    bad(1, ok, d24, 20, RT_EFORMAT, "truncated .npy data");
    bad(1, ok, d24, 24, 0, NULL); /* control: the same header is fine */
    {
        size_t len;
        unsigned char d28[28] = { 0 };
        void *b = mk(1, ok, d28, 28, &len);
        rc = npy_read_buffer(b, len, &a, err, sizeof err);
        CHECK(rc == RT_EFORMAT && strstr(err, "mismatch"), "extra data: %s", err);
        free(b);
    }
    bad(1, "{'descr': '<f4', 'fortran_order': False}", d24, 24, RT_EFORMAT, "shape");
    bad(1, "{'descr': '<f4', 'shape': (2, 3)}", d24, 24, RT_EFORMAT, "fortran_order");
    bad(1, "{'fortran_order': False, 'shape': (2, 3)}", d24, 24, RT_EFORMAT, "descr");
    bad(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", d24, 24,
        RT_EFORMAT, "'x'");
    bad(1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", d24,
        24, RT_EFORMAT, "repeated");
    bad(1, "{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}", d24, 24, RT_EFORMAT,
        "list");
    bad(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (24)}", d24, 24, RT_EFORMAT,
        "tuple");
    bad(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-24,)}", d24, 24, RT_EFORMAT,
        NULL);
    bad(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}", d24, 24, RT_EFORMAT,
        NULL);
    bad(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,,3)}", d24, 24, RT_EFORMAT,
        NULL);
    bad(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", d24,
        24, RT_EFORMAT, "too large");
    bad(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 2)}",
        d24, 24, RT_EFORMAT, "too large");
    bad(1, "{'descr': '<f4', 'fortran_order': 1, 'shape': (2, 3)}", d24, 24, RT_EFORMAT,
        "fortran_order");
    bad(1, "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2, 3)}", d24, 24, RT_EFORMAT,
        "fortran_order");
    bad(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)", d24, 24, RT_EFORMAT,
        NULL);
    bad(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)} x", d24, 24, RT_EFORMAT,
        "trailing");
    bad(1, "{'descr': '<f4\0', 'fortran_order': False, 'shape': (2, 3)}", d24, 24, RT_EFORMAT,
        NULL);
    bad(1, "{'descr': '|f4', 'fortran_order': False, 'shape': (2, 3)}", d24, 24, RT_EFORMAT,
        "byte order");
    bad(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (3,)}", d24, 24, RT_EUNSUPPORTED,
        "'<c8'");
    bad(1, "{'descr': '|O', 'fortran_order': False, 'shape': (3,)}", d24, 24, RT_EUNSUPPORTED,
        NULL);
    bad(1, "{'descr': '<f3', 'fortran_order': False, 'shape': (3,)}", d24, 24, RT_EUNSUPPORTED,
        NULL);
    bad(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (6,)}", d24, 24,
        RT_EUNSUPPORTED, "structured");
    bad(1, "{'descr': <f4, 'fortran_order': False, 'shape': (6,)}", d24, 24, RT_EFORMAT,
        NULL);
    bad(1, "['descr', '<f4']", d24, 24, RT_EFORMAT, "dictionary");
    bad(1, "", d24, 24, RT_EFORMAT, NULL);
    bad(1, "{'descr': '<f4', 'fortran_order': False, 'shape': "
           "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,6)}",
        d24, 24, RT_EUNSUPPORTED, "dimensions");
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_dump_dir(void)
{
    char root[] = "/tmp/test_dump_XXXXXX", dir[256], path[512], err[256];
    dump_dir *d = NULL;
    int rc;

    CHECK(mkdtemp(root) != NULL, "mkdtemp");
    snprintf(dir, sizeof dir, "%s/a/b/c", root);
    rc = dump_dir_open(dir, &d, err, sizeof err);
    CHECK(rc == 0 && access(dir, W_OK) == 0, "mkdir -p: %s", err);

    int64_t dims[2] = { 2, 3 };
    float v[6] = { 1, 2, 3, 4, 5, 6 };
    uint16_t bf[2] = { 0x3f80, 0xc040 }; /* bfloat16 1.0, -3.0 */
    int64_t d2 = 2;
    rc = dump_dir_add(d, -1, NULL, NULL, "x", DT_FLOAT, 2, dims, v, err, sizeof err);
    CHECK(rc == 0, "input: %s", err);
    rc = dump_dir_add(d, 0, "conv1", "Conv", "conv1/out:0", DT_FLOAT, 2, dims, v, err,
                      sizeof err);
    CHECK(rc == 0, "layer 0: %s", err);
    rc = dump_dir_add(d, 0, "conv1", "Conv", "conv1/out:0", DT_FLOAT, 2, dims, v, err,
                      sizeof err);
    CHECK(rc == 0, "same name again: %s", err);
    rc = dump_dir_add(d, 7, "n7", "Cast", "../../etc/passwd", DT_BFLOAT16, 1, &d2, bf, err,
                      sizeof err);
    CHECK(rc == 0, "bf16: %s", err);
    rc = dump_dir_add(d, 8, "n8", "Weird", "", DT_STRING, 1, &d2, bf, err, sizeof err);
    CHECK(rc == RT_EUNSUPPORTED, "string dtype refused: %s", err);
    rc = dump_dir_add(d, 9, "n\"9", "Op", "t\xc3\xa9\n", DT_INT8, 1, &d2, "\x01\xff", err,
                      sizeof err);
    CHECK(rc == 0, "odd names: %s", err);
    rc = dump_dir_close(d, err, sizeof err);
    CHECK(rc == 0, "close: %s", err);

    dump_entry *e = NULL;
    int n = 0;
    rc = dump_dir_load_index(dir, &e, &n, err, sizeof err);
    CHECK(rc == 0 && n == 5, "index back: %d %s", n, err);
    if (n == 5) {
        CHECK(e[0].layer == -1 && e[0].node == NULL && e[0].op == NULL &&
                  strcmp(e[0].file, "input_x.npy") == 0,
              "input entry %s", e[0].file);
        CHECK(strcmp(e[1].file, "0000_Conv_conv1_out_0.npy") == 0, "file 1 %s", e[1].file);
        CHECK(strcmp(e[2].file, "0000_Conv_conv1_out_0_2.npy") == 0, "file 2 %s", e[2].file);
        CHECK(strcmp(e[1].name, "conv1/out:0") == 0 && strcmp(e[1].node, "conv1") == 0 &&
                  strcmp(e[1].op, "Conv") == 0,
              "names kept in the index");
        CHECK(e[1].ndim == 2 && e[1].dims[0] == 2 && e[1].dims[1] == 3 &&
                  e[1].dtype == DT_FLOAT,
              "shape/dtype");
        CHECK(strcmp(e[3].file, "0007_Cast_.._.._etc_passwd.npy") == 0 &&
                  e[3].dtype == DT_FLOAT,
              "sanitized %s", e[3].file);
        CHECK(strcmp(e[4].node, "n\"9") == 0 && strcmp(e[4].name, "t\xc3\xa9\n") == 0,
              "escaped strings round trip");
        npy_array a;
        snprintf(path, sizeof path, "%s/%s", dir, e[3].file);
        rc = npy_read(path, &a, err, sizeof err);
        CHECK(rc == 0 && a.dtype == DT_FLOAT && ((float *)a.data)[0] == 1.0f &&
                  ((float *)a.data)[1] == -3.0f,
              "bf16 dumped as float32: %s", err);
        npy_free(&a);
    }
    dump_entries_free(e, n);

    /* hand-written indexes: unknown members skipped, escapes decoded, errors caught */
    snprintf(dir, sizeof dir, "%s/h", root);
    rc = dump_dir_open(dir, &d, err, sizeof err);
    dump_dir_discard(d);
    snprintf(path, sizeof path, "%s/index.json", dir);
    write_text(path, " [ {\"layer\": 3, \"extra\": {\"a\": [1, 2.5e3, {\"b\": null}], "
                     "\"c\": true}, \"node\": \"\\u00e9\\ud83d\\ude00\", \"op\": null, "
                     "\"name\": \"a\\/b\\\\c\", \"file\": \"f.npy\", \"shape\": [], "
                     "\"dtype\": \"uint64\"} ]\n");
    rc = dump_dir_load_index(dir, &e, &n, err, sizeof err);
    CHECK(rc == 0 && n == 1, "hand index: %s", err);
    if (rc == 0 && n == 1) {
        CHECK(strcmp(e[0].node, "\xc3\xa9\xf0\x9f\x98\x80") == 0, "unicode escapes");
        CHECK(strcmp(e[0].name, "a/b\\c") == 0 && e[0].ndim == 0 && e[0].dtype == DT_UINT64 &&
                  e[0].layer == 3,
              "hand entry");
    }
    dump_entries_free(e, n);
    write_text(path, "[]");
    rc = dump_dir_load_index(dir, &e, &n, err, sizeof err);
    CHECK(rc == 0 && n == 0, "empty list: %s", err);

    static const char *broken[] = {
        "",
        "{}",
        "[",
        "[{\"layer\": 1}]",
        "[{\"layer\": 1, \"name\": \"a\", \"file\": \"../x.npy\", \"shape\": [1], "
        "\"dtype\": \"float32\"}]",
        "[{\"layer\": 1, \"name\": \"a\", \"file\": \"x.npy\", \"shape\": [1], "
        "\"dtype\": \"complex64\"}]",
        "[{\"layer\": 1, \"name\": \"a\\q\", \"file\": \"x.npy\", \"shape\": [1], "
        "\"dtype\": \"float32\"}]",
        "[{\"layer\": 1, \"name\": \"a\", \"file\": \"x.npy\", \"shape\": [-1], "
        "\"dtype\": \"float32\"}]",
        "[{\"layer\": 1.5, \"name\": \"a\", \"file\": \"x.npy\", \"shape\": [1], "
        "\"dtype\": \"float32\"}]",
        "[{\"layer\": 1, \"name\": \"\\ud800\", \"file\": \"x.npy\", \"shape\": [1], "
        "\"dtype\": \"float32\"}]",
        "[{\"layer\": 1, \"name\": \"a\", \"file\": \"x.npy\", \"shape\": [1], "
        "\"dtype\": \"float32\"}] x",
        "[{\"layer\": 1, \"name\": \"a\", \"name\": \"b\", \"file\": \"x.npy\", \"shape\": [1], "
        "\"dtype\": \"float32\"}]",
    };
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        write_text(path, broken[i]);
        rc = dump_dir_load_index(dir, &e, &n, err, sizeof err);
        CHECK(rc == RT_EFORMAT && e == NULL && n == 0 && one_line(err), "broken index %zu: %d %s",
              i, rc, err);
        if (rc == 0)
            dump_entries_free(e, n);
    }
    /* nesting deeper than the JSON reader allows is refused (no stack overflow) */
    {
        size_t depth = 100000, m;
        char *deep = xmalloc(2 * depth + 200);
        m = (size_t)sprintf(deep, "[{\"layer\": 1, \"name\": \"a\", \"file\": \"x.npy\", "
                            "\"shape\": [1], \"dtype\": \"float32\", \"z\": ");
        memset(deep + m, '[', depth);
        memset(deep + m + depth, ']', depth);
        strcpy(deep + m + 2 * depth, "}]");
        write_text(path, deep);
        free(deep);
        rc = dump_dir_load_index(dir, &e, &n, err, sizeof err);
        CHECK(rc == RT_EFORMAT && e == NULL && n == 0 && one_line(err), "deep nesting: %d %s",
              rc, err);
    }
    unlink(path);
    rc = dump_dir_load_index(dir, &e, &n, err, sizeof err);
    CHECK(rc == RT_EIO, "missing index: %s", err);

    /* a dump folder where a file is in the way */
    snprintf(path, sizeof path, "%s/file", root);
    write_text(path, "x");
    snprintf(dir, sizeof dir, "%s/file/sub", root);
    rc = dump_dir_open(dir, &d, err, sizeof err);
    CHECK(rc == RT_EIO && d == NULL, "dir under a file: %s", err);

    snprintf(path, sizeof path, "rm -rf '%s'", root);
    CHECK(system(path) == 0, "cleanup");
}

int main(void)
{
    test_roundtrip();
    test_file_io();
    test_hand_built();
    test_broken();
    test_dump_dir();
    TEST_END();
}
