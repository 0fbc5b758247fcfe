/* runtime/emu/emu_dcomp.c — the RK3588 CNA weight decompressor's input
 * (CNA_DCOMP_CTRL 1, toolkit 1.3.4 files), decoded into the native weight
 * bytes [kh][kw][OC2 8][IC2 16]. The format was read off the rk3588 tk134
 * sample against the toolkit 1.6.2 file's native bytes of the same weights
 * (docs/rknn-format.md "Weights"); anything outside what that showed stops
 * with a reason instead of guessing. */
#include <stdio.h>
#include <string.h>
#include "runtime/emu/emu.h"

#define BLOCKS 16
#define OC2 8
#define IC2 16
#define LANES 4 /* input lanes of one block row */

typedef struct bitrd {
    const uint8_t *p;
    size_t nbits, pos;
} bitrd;

/* the stream is read LSB first; reading past the block's lines fails */
static int bit(bitrd *r, int *b)
{
    if (r->pos >= r->nbits)
        return -1;
    *b = (r->p[r->pos >> 3] >> (r->pos & 7)) & 1;
    r->pos++;
    return 0;
}

static int bits(bitrd *r, int n, int *v)
{
    *v = 0;
    for (int k = 0, b; k < n; k++) {
        if (bit(r, &b))
            return -1;
        *v |= b << k;
    }
    return 0;
}

/* the mode's prefix code (stream order): 00 -> width 0, 10 -> 1, 111 -> 2,
 * 110 -> 3, 011 -> 4, 0101 -> 5, 01001 -> 6, 01000 -> 7 */
static int mode(bitrd *r, int *m)
{
    int a, b, c, d, e;
    if (bit(r, &a) || bit(r, &b))
        return -1;
    if (!b) {
        *m = a;
        return 0;
    }
    if (bit(r, &c))
        return -1;
    if (a) {
        *m = c ? 2 : 3;
        return 0;
    }
    if (c) {
        *m = 4;
        return 0;
    }
    if (bit(r, &d))
        return -1;
    if (d) {
        *m = 5;
        return 0;
    }
    if (bit(r, &e))
        return -1;
    *m = e ? 6 : 7;
    return 0;
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

static int block(const uint8_t *h, const uint8_t *payload, size_t pbytes, int blk, int positions,
                 int in_c, uint8_t *dst, char *err, size_t errlen)
{
    /* byte 0: 0x11 sign-magnitude, width 7 with 7 explicit bits (-0 = -128);
     * 0x00: negatives -(m + 1), every width with its top bit implied */
    int kind = h[0];
    if ((kind != 0x11 && kind != 0x00) || h[3])
        FAIL("block %d: header bytes 0x%02x .. 0x%02x not seen (0x11 or 0x00, then a 16-bit "
             "base, then 0)", blk, h[0], h[3]);
    int base = (int16_t)(h[1] | h[2] << 8), width[8];
    for (int k = 0; k < 8; k++)
        width[k] = (h[4 + k / 2] >> (4 * (k & 1))) & 15;
    int g = blk / 4, lane0 = LANES * (blk % 4);
    bitrd r = {payload, pbytes * 8, 0};
    int n = positions * 2 * LANES;
    for (int k = 0; k < n;) {
        int m, sign, mag, d;
        if (mode(&r, &m) || bit(&r, &sign))
            FAIL("block %d: stream ends at value %d of %d", blk, k, n);
        int t = width[m];
        if (t == 0) {
            if (sign && kind == 0x11)
                FAIL("block %d: width-0 code with the sign set at value %d (not seen)", blk, k);
            d = sign ? -1 : 0;
        } else if (t > 7) {
            FAIL("block %d: width %d at value %d (not seen)", blk, t, k);
        } else if (t == 7 && kind == 0x11) {
            if (bits(&r, 7, &mag))
                FAIL("block %d: stream ends at value %d of %d", blk, k, n);
            d = sign ? (mag ? -mag : -128) : mag;
        } else {
            if (bits(&r, t - 1, &mag))
                FAIL("block %d: stream ends at value %d of %d", blk, k, n);
            mag += 1 << (t - 1);
            d = sign ? (kind == 0x11 ? -mag : -mag - 1) : mag;
        }
        /* a base value (width 0, sign clear) on a padding lane fills the row */
        int fill = t == 0 && !sign && lane0 + k % LANES >= in_c;
        do {
            int pos = k / (2 * LANES), oc = g + (k / LANES % 2) * (OC2 / 2), ln = lane0 + k % LANES;
            dst[((size_t)pos * OC2 + oc) * IC2 + ln] = (uint8_t)(int8_t)(base + d);
            k++;
        } while (fill && k % LANES);
    }
    /* the stream fills exactly its last line, the rest zero */
    if ((r.pos + 127) / 128 != pbytes / 16)
        FAIL("block %d: %zu bits of stream for %zu lines", blk, r.pos, pbytes / 16);
    for (size_t q = r.pos; q < r.nbits; q++)
        if ((payload[q >> 3] >> (q & 7)) & 1)
            FAIL("block %d: nonzero bits after the stream's end (bit %zu)", blk, q);
    return 0;
}

int emu_dcomp_decode(const uint8_t *src, size_t len, const uint32_t amount[16], int positions,
                     int in_c, uint8_t *dst, size_t dst_len, char *err, size_t errlen)
{
    if (positions < 1 || positions > 64 || in_c < 1 || in_c > IC2 ||
        dst_len != (size_t)positions * OC2 * IC2)
        FAIL("%d kernel positions, %d input channels, %zu bytes: only the seen layout "
             "(8 output, 16 input lanes) is decoded", positions, in_c, dst_len);
    size_t off = 0;
    for (int b = 0; b < BLOCKS; b++) {
        if (amount[b] > 4096)
            FAIL("block %d: DCOMP_AMOUNT %u", b, amount[b]);
        size_t body = 16 + (size_t)amount[b] * 16, span = (body + 63) / 64 * 64;
        if (off + span > len)
            FAIL("block %d at byte %zu: %zu bytes beyond the buffer's %zu", b, off, span, len);
        if (block(src + off, src + off + 16, body - 16, b, positions, in_c, dst, err, errlen))
            return -1;
        for (size_t q = off + body; q < off + span; q++)
            if (src[q])
                FAIL("block %d: padding byte %zu is not zero", b, q);
        off += span;
    }
    if (off != len)
        FAIL("the 16 blocks end at byte %zu of %zu", off, len);
    return 0;
}
