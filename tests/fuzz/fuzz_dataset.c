/* tests/fuzz/fuzz_dataset.c — fuzz target: bytes -> dataset.txt parser
 * (quant_dataset_parse) for 1 to 4 model inputs (first byte). Any status is
 * fine; a crash, a sanitizer report or a leak is a bug. On success every
 * parsed path must be non-empty and free of whitespace. */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/quant/quant.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    quant_dataset ds;
    char err[512];
    int n_inputs = size ? 1 + data[0] % 4 : 1;

    if (quant_dataset_parse((const char *)data, size, size > 1 && data[1] & 1 ? "base" : NULL,
                            n_inputs, &ds, err, sizeof(err)) != 0)
        return 0;
    for (int i = 0; i < ds.n_samples * ds.n_inputs; i++) {
        const char *p = ds.files[i];
        if (!p || !p[0])
            abort();
        for (; *p; p++)
            if (isspace((unsigned char)*p))
                abort();
    }
    quant_dataset_free(&ds);
    return 0;
}
