/* tests/fuzz/fuzz_snapmap.c — the snapshot folder's map_name_to_file.txt line
 * reader (tracer/tracer.h) on arbitrary bytes, line by line as the import
 * reads it: never crashes, and a pair it returns fits its buffers. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/tracer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1), *line, *save = NULL, name[64], file[48];

    memcpy(buf, data, size);
    buf[size] = 0;
    for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        if (snapmap_line(line, name, sizeof name, file, sizeof file) &&
            (strlen(name) >= sizeof name || strlen(file) >= sizeof file || !name[0] || !file[0]))
            abort();
    free(buf);
    return 0;
}
