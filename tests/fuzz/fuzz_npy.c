/* tests/fuzz/fuzz_npy.c — fuzz target for the parsers of dump/: bytes ->
 * npy_read_buffer, and the same bytes -> dump_index_parse (a dump folder's
 * index.json). Any status is fine; a crash, a sanitizer report or a leak is a bug.
 * An accepted array must also survive a write/read round trip unchanged (else
 * abort). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dump/dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    npy_array a, b;
    char err[512];
    void *enc = NULL;
    size_t len = 0;

    dump_entry *e = NULL;
    int n = 0;
    if (dump_index_parse(data, size, "fuzz", &e, &n, err, sizeof(err)) == 0) {
        for (int i = 0; i < n; i++)
            if (!e[i].name || !e[i].file || e[i].ndim < 0 || e[i].ndim > NPY_MAX_DIMS ||
                !npy_dtype_name(e[i].dtype))
                abort();
        dump_entries_free(e, n);
    }

    if (npy_read_buffer(data, size, &a, err, sizeof(err)) != 0)
        return 0;
    if (a.nbytes > size || (a.nbytes && !a.data))
        abort();
    if (npy_encode(a.dtype, a.ndim, a.dims, a.data, 0, 0, &enc, &len, err, sizeof(err)) != 0)
        abort();
    if (npy_read_buffer(enc, len, &b, err, sizeof(err)) != 0)
        abort();
    if (b.dtype != a.dtype || b.ndim != a.ndim || b.nbytes != a.nbytes ||
        memcmp(b.dims, a.dims, sizeof(int64_t) * (size_t)a.ndim) != 0 ||
        (a.nbytes && memcmp(a.data, b.data, a.nbytes) != 0))
        abort();
    npy_free(&b);
    free(enc);
    npy_free(&a);
    return 0;
}
