/* tests/fuzz/fuzz_journal.c — the reader of librknntrace.so's journal on
 * arbitrary bytes (a journal cut anywhere by a killed application, or any other
 * file): contexts or nothing, never a crash, an overflow or a leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    trace_journal j;

    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    memset(&j, 0, sizeof j);
    trace_journal_parse(buf, size, &j);
    trace_journal_free(&j);
    free(buf);
    return 0;
}
