/* tests/fuzz/fuzz_vlog.c — the whole-log import scanner (tracer/vlog_scan.c)
 * on arbitrary bytes: returns 0 or RT_EFORMAT, never crashes or leaks, and
 * accounts for every line. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "tracer/tracer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vlog_t v;
    char err[256];

    if (vlog_scan((const char *)data, size, VLOG_F_ALL, &v, err, sizeof err) == 0) {
        int64_t sum = 0;
        for (int k = 0; k < VLOG_NKINDS; k++)
            sum += v.kinds[k];
        if (sum != v.n_lines)
            abort();
        vlog_free(&v);
    }
    return 0;
}
