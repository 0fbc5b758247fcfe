/* tests/fuzz/fuzz_sramlog.c — the level-3 SRAM table parser and the debugfs
 * `mm` parser on arbitrary bytes: 0 or RT_EFORMAT, never a crash or a leak. */
#include <stddef.h>
#include <stdint.h>
#include "tracer/tracer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sramlog_table_t *t = NULL;
    sramlog_mm_t mm;
    int n = 0;
    char err[256];

    if (sramlog_parse((const char *)data, size, &t, &n, err, sizeof err) == 0)
        sramlog_free(t, n);
    sramlog_parse_mm((const char *)data, size, &mm, err, sizeof err);
    return 0;
}
