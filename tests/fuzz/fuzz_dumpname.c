/* tests/fuzz/fuzz_dumpname.c — fuzz target: bytes -> a board's level-5 dump file
 * name (golden_parse_dump_name). Any status is fine; a crash, a sanitizer
 * report or a leak is a bug. On success the parts must be what the name says:
 * the index its leading digits, the op a non-empty run without '_', the tensor
 * non-empty and followed by "_shape_" in the name. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/analyze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *name = malloc(size + 1), *op = NULL, *tensor = NULL;
    int index = -1, dtype = -1;

    memcpy(name, data, size);
    name[size] = '\0';
    if (golden_parse_dump_name(name, &index, &op, &tensor, &dtype) == 0) {
        size_t ol = strlen(op), tl = strlen(tensor);
        const char *p = name;
        int idx = 0;
        while (*p >= '0' && *p <= '9')
            idx = idx * 10 + (*p++ - '0');
        if (index != idx || index < 0 || *p != '_' || !ol || strchr(op, '_') ||
            strncmp(p + 1, op, ol) || p[1 + ol] != '_' || !tl ||
            strncmp(p + 2 + ol, tensor, tl) || strncmp(p + 2 + ol + tl, "_shape_", 7) ||
            dtype < 0)
            abort();
    }
    free(op);
    free(tensor);
    free(name);
    return 0;
}
