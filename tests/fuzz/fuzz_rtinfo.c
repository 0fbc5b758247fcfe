/* tests/fuzz/fuzz_rtinfo.c — the rtinfo line parser (tracer/tracer.h) on arbitrary
 * bytes, fed line by line as the import scanner does (a translated line in English
 * first, its full-width prefixes in ASCII): never crashes or leaks. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/tracer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtinfo_t x;
    char *buf = malloc(size + 1), *line, *save = NULL;

    memcpy(buf, data, size);
    buf[size] = 0;
    rtinfo_init(&x);
    for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char tr[512];
        size_t n = tracer_fullwidth_prefixes(line, strlen(line));
        if (n != strlen(line))
            abort(); /* the length it returns is the line's */
        (void)rtinfo_line(&x, rtinfo_translated(line, tr, sizeof tr) ? tr : line);
    }

    free(buf);
    return 0;
}
