/* tests/fuzz/fuzz_benchlog.c — the benchlog line parser (tracer/tracer.h) on arbitrary
 * bytes, fed line by line as the import scanner does: never crashes or leaks. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/tracer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    benchlog_t x;
    char *buf = malloc(size + 1), *line, *save = NULL;

    memcpy(buf, data, size);
    buf[size] = 0;
    benchlog_init(&x);
    for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        (void)benchlog_line(&x, line);
    benchlog_free(&x);
    free(buf);
    return 0;
}
