/* tests/fuzz/fuzz_emu_dcomp.c — fuzz target: bytes -> the RK3588 CNA weight
 * decompressor's decoder (runtime/emu/emu_dcomp.c). Input: byte 0 the kernel
 * positions (1 + b % 9), byte 1 the input channels (1 + b % 16), bytes 2..17
 * the sixteen DCOMP_AMOUNT values, the rest the compressed buffer. Any status
 * is fine; a crash, a sanitizer report, a read outside the buffer or a leak is
 * a bug. A decode that succeeds must have written every output byte. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/emu/emu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 18)
        return 0;
    int positions = 1 + data[0] % 9, in_c = 1 + data[1] % 16;
    uint32_t amount[16];
    for (int k = 0; k < 16; k++)
        amount[k] = data[2 + k];
    size_t n = (size_t)positions * 128, len = size - 18;
    /* the buffer on the heap, exactly its size, so ASan sees any overread */
    uint8_t *src = malloc(len ? len : 1), *a = malloc(n), *b = malloc(n);
    char err[256];
    if (!src || !a || !b)
        abort();
    memcpy(src, data + 18, len);
    memset(a, 0x00, n);
    memset(b, 0xff, n);
    int ra = emu_dcomp_decode(src, len, amount, positions, in_c, a, n, err, sizeof err);
    int rb = emu_dcomp_decode(src, len, amount, positions, in_c, b, n, err, sizeof err);
    if (ra != rb || (ra == 0 && memcmp(a, b, n)))
        abort();   /* a success leaves no byte unwritten */
    free(src);
    free(a);
    free(b);
    return 0;
}
