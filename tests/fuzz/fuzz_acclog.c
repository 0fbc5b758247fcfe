/* tests/fuzz/fuzz_acclog.c — the acclog line parser (tracer/tracer.h) on arbitrary
 * bytes, fed line by line as the import scanner does: never crashes or leaks. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/tracer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    acclog_t x;
    char *buf = malloc(size + 1), *line, *save = NULL;

    memcpy(buf, data, size);
    buf[size] = 0;
    acclog_init(&x);
    for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        (void)acclog_line(&x, line);
    acclog_free(&x);
    free(buf);
    return 0;
}
