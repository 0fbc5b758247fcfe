/* tests/tools/npy_tool.c — the C side of the numpy cross-check (tests/numpy/run.sh).
 *
 *   npy_tool write DIR   writes .npy files of every dtype with known contents and a
 *                        dump folder (DIR/dump) for tests/numpy/check_npy.py to load
 *   npy_tool read DIR    reads the files numpy wrote into DIR (listed in
 *                        DIR/manifest.txt) and checks dtype, shape and every byte
 *
 * Contents follow one rule shared with check_npy.py: element i (C order) holds the
 * low bytes of mix(i) (see below), bool holds mix(i) >> 63. */
#include <stdlib.h>
#include <string.h>

#include "dump/dump.h"
#include "runtime/model/model.h"
#include "tests/test.h"
#include "util/util.h"

static const char *const dt_names[] = { "float32", "float16", "float64", "int8",
                                        "int16",   "int32",   "int64",   "uint8",
                                        "uint16",  "uint32",  "uint64",  "bool" };
#define N_DT ((int)(sizeof(dt_names) / sizeof(dt_names[0])))

static const int64_t shapes[][5] = { { 0 }, { 0 }, { 7 }, { 2, 3, 4 }, { 1, 1, 5, 1, 2 },
                                     { 3, 0, 2 } };
static const int ranks[] = { 0, 1, 1, 3, 5, 3 };
#define N_SHAPES ((int)(sizeof(ranks) / sizeof(ranks[0])))

static uint64_t mix(uint64_t i)
{
    uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

static size_t esize(int dt)
{
    switch (dt) {
    case DT_FLOAT16: case DT_INT16: case DT_UINT16: return 2;
    case DT_FLOAT: case DT_INT32: case DT_UINT32: return 4;
    case DT_DOUBLE: case DT_INT64: case DT_UINT64: return 8;
    default: return 1;
    }
}

static void fill(uint8_t *p, int dt, size_t count)
{
    size_t es = esize(dt);
    for (size_t i = 0; i < count; i++) {
        uint64_t h = mix(i);
        if (dt == DT_BOOL) {
            p[i] = (uint8_t)(h >> 63);
            continue;
        }
        for (size_t b = 0; b < es; b++)
            p[i * es + b] = (uint8_t)(h >> (8 * b));
    }
}

static size_t numel(int ndim, const int64_t *dims)
{
    size_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= (size_t)dims[i];
    return n;
}

static int write_bytes(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(buf, 1, len, f);
    return (fclose(f) == 0 && w == len) ? 0 : -1;
}

static int do_write(const char *dir)
{
    char path[1024], err[256], sub[1024];
    int fails = 0;

    for (int t = 0; t < N_DT; t++) {
        int dt = npy_dtype_from_name(dt_names[t]);
        for (int s = 0; s < N_SHAPES; s++) {
            size_t n = numel(ranks[s], shapes[s]);
            uint8_t *buf = xmalloc(n * esize(dt) + 1);
            fill(buf, dt, n);
            snprintf(path, sizeof path, "%s/bits_%s_%d.npy", dir, dt_names[t], s);
            if (npy_write(path, dt, ranks[s], shapes[s], buf, err, sizeof err)) {
                fprintf(stderr, "npy_tool: %s\n", err);
                fails++;
            }
            free(buf);
        }
    }

    /* a header above 64 KiB (format 2.0), a forced 3.0, a forced 2.0 */
    int64_t d4[2] = { 3, 5 };
    uint8_t buf[15 * 8];
    static const struct { const char *name; int dt, version; size_t min_header; } extra[] = {
        { "v2_long_int32", DT_INT32, 0, 70000 },
        { "v3_float64", DT_DOUBLE, 3, 0 },
        { "v2_uint16", DT_UINT16, 2, 0 },
    };
    for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++) {
        void *enc;
        size_t len;
        fill(buf, extra[k].dt, 15);
        snprintf(path, sizeof path, "%s/%s.npy", dir, extra[k].name);
        if (npy_encode(extra[k].dt, 2, d4, buf, extra[k].version, extra[k].min_header, &enc,
                       &len, err, sizeof err) ||
            write_bytes(path, enc, len)) {
            fprintf(stderr, "npy_tool: %s: %s\n", path, err);
            fails++;
        }
        free(enc);
    }

    /* a dump folder */
    dump_dir *d;
    snprintf(sub, sizeof sub, "%s/dump", dir);
    if (dump_dir_open(sub, &d, err, sizeof err)) {
        fprintf(stderr, "npy_tool: %s\n", err);
        return 1;
    }
    static const char *const names[] = { "input:0", "conv/out", "conv/out", "weird name!*" };
    static const int layers[] = { -1, 0, 1, 2 };
    static const int dts[] = { DT_FLOAT, DT_FLOAT16, DT_INT64, DT_BOOL };
    for (int k = 0; k < 4; k++) {
        fill(buf, dts[k], 15);
        if (dump_dir_add(d, layers[k], layers[k] < 0 ? NULL : "node", layers[k] < 0 ? NULL : "Op",
                         names[k], dts[k], 2, d4, buf, err, sizeof err)) {
            fprintf(stderr, "npy_tool: %s\n", err);
            fails++;
        }
    }
    if (dump_dir_close(d, err, sizeof err)) {
        fprintf(stderr, "npy_tool: %s\n", err);
        fails++;
    }
    return fails ? 1 : 0;
}

/* manifest line: FILE DTYPE NDIM D0 D1 ...   or   FILE REFUSE */
static int do_read(const char *dir)
{
    char path[1024], line[1024], err[256];
    FILE *m;

    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    m = fopen(path, "r");
    if (!m) {
        fprintf(stderr, "npy_tool: cannot open %s\n", path);
        return 1;
    }
    while (fgets(line, sizeof line, m)) {
        char *tok[40];
        int nt = 0;
        for (char *s = strtok(line, " \n"); s && nt < 40; s = strtok(NULL, " \n"))
            tok[nt++] = s;
        if (nt < 2)
            continue;
        npy_array a;
        snprintf(path, sizeof path, "%s/%s", dir, tok[0]);
        int rc = npy_read(path, &a, err, sizeof err);
        if (strcmp(tok[1], "REFUSE") == 0) {
            CHECK(rc != 0 && err[0] && !strchr(err, '\n'), "%s should be refused", tok[0]);
            if (rc == 0)
                npy_free(&a);
            continue;
        }
        CHECK(rc == 0, "%s: %s", tok[0], err);
        if (rc)
            continue;
        int dt = npy_dtype_from_name(tok[1]);
        int ndim = nt >= 3 ? atoi(tok[2]) : -1;
        CHECK(a.dtype == dt, "%s: dtype %d want %s", tok[0], a.dtype, tok[1]);
        CHECK(a.ndim == ndim, "%s: ndim %d want %d", tok[0], a.ndim, ndim);
        int same = a.ndim == ndim && nt == 3 + ndim;
        for (int k = 0; same && k < ndim; k++)
            same = a.dims[k] == atoll(tok[3 + k]);
        CHECK(same, "%s: shape differs", tok[0]);
        if (a.dtype == dt && same) {
            size_t nb = a.count * esize(dt);
            uint8_t *want = xmalloc(nb + 1);
            fill(want, dt, a.count);
            CHECK(memcmp(a.data, want, nb) == 0, "%s: contents differ", tok[0]);
            free(want);
        }
        npy_free(&a);
    }
    fclose(m);
    TEST_END();
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "write") == 0)
        return do_write(argv[2]);
    if (argc == 3 && strcmp(argv[1], "read") == 0)
        return do_read(argv[2]);
    fprintf(stderr, "usage: npy_tool write|read DIR\n");
    return 2;
}
