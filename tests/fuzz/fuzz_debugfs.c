/* tests/fuzz/fuzz_debugfs.c — the parsers of the rknpu driver's debugfs/procfs
 * nodes and of devfreq (`load`, `version`, `freq`/`volt`, `mm`, governor,
 * available_frequencies) on arbitrary bytes: a value or RT_EFORMAT, never a
 * crash, an overflow or a leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/npu/npu.h"
#include "tracer/board.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), err[128], ver[32], word[16];
    int pct[NPU_MAX_CORES];
    uint64_t v, freqs[BOARD_MAX_FREQS];
    sramlog_mm_t mm;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    board_parse_version(text, ver, sizeof ver, err, sizeof err);
    board_parse_u64(text, &v, err, sizeof err);
    board_parse_freqs(text, freqs, BOARD_MAX_FREQS, err, sizeof err);
    board_parse_word(text, word, sizeof word, err, sizeof err);
    npu_load_parse(text, pct, err, sizeof err);
    sramlog_parse_mm(text, strlen(text), &mm, err, sizeof err);
    free(text);
    return 0;
}
