/* tests/fuzz/fuzz_perflog.c — the vendor perf-table parser on arbitrary bytes:
 * must return 0 or RT_EFORMAT and never crash or leak. */
#include <stddef.h>
#include <stdint.h>
#include "tracer/tracer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    perflog_table_t *t = NULL;
    int n = 0;
    char err[256];

    if (perflog_parse((const char *)data, size, &t, &n, err, sizeof err) == 0)
        perflog_free(t, n);
    return 0;
}
