/* tests/fuzz/fuzz_goldenindex.c — fuzz target: bytes -> another tool's
 * index.json in a golden folder (golden_parse_index_map). Any status is fine;
 * a crash, a sanitizer report or a leak is a bug. Every entry kept must name
 * a tensor and a relative .npy path that stays inside the folder. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/analyze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    golden_name_map m;
    if (golden_parse_index_map((const char *)data, size, &m) == 0)
        for (int i = 0; i < m.n; i++) {
            size_t l = strlen(m.file[i]);
            if (!m.name[i][0] || l <= 4 || strcmp(m.file[i] + l - 4, ".npy") ||
                m.file[i][0] == '/' || strstr(m.file[i], ".."))
                abort();
        }
    golden_name_map_free(&m);
    return 0;
}
