/* tests/unit/test_emu_decode.c — two decode rules of rk3588 conv tasks, on register
 * lists written here (hand-computed expectations):
 *  - a task's input channels: DATAIN_CHANNEL_REAL (CNA 0x1024 bits 16..29) holds 63
 *    for every input of 128 channels or more in toolkit 2.3.0's files, while a
 *    kernel's weight bytes (CNA 0x1034) count them all: 128 channels when a 1x1
 *    kernel has 128 int8 weight bytes (or 2x2 kernels 512), 64 when it has 64;
 *    toolkit 2.3.2 writes (C - 1) mod 64 for any count (31 for 96 channels);
 *  - a later tile that writes no CORE register takes its register group's when its
 *    enable mask runs CORE (0x1d), and is not a conv when the mask does not (0x18). */
#include <string.h>
#include "runtime/emu/emu.h"
#include "tests/test.h"

/* an int8 conv's CNA words: aligned channels ic, field real (the count - 1), kw x kh
 * kernels of 16, wbpk weight bytes a kernel; plus CORE and DPU words when core */
static int conv_regs(emu_reg *r, int ic, int real, int k, int wbpk, int core)
{
    int n = 0;
    r[n++] = (emu_reg){0x0201, 0x100c, 0};                               /* conv, int8 */
    r[n++] = (emu_reg){0x0201, 0x1020, 40u << 16 | 40};                  /* 40 x 40 */
    r[n++] = (emu_reg){0x0201, 0x1024, (uint32_t)real << 16 | (uint32_t)ic};
    r[n++] = (emu_reg){0x0201, 0x1034, (uint32_t)wbpk};
    r[n++] = (emu_reg){0x0201, 0x1038, (uint32_t)k << 24 | (uint32_t)k << 16 | 16};
    if (core) {
        r[n++] = (emu_reg){0x0801, 0x3010, 1};
        r[n++] = (emu_reg){0x0801, 0x3014, 39u << 16 | 39};
        r[n++] = (emu_reg){0x0801, 0x3018, 15};
    }
    r[n++] = (emu_reg){0x1001, 0x4030, 39};
    r[n++] = (emu_reg){0x1001, 0x4034, 39};
    r[n++] = (emu_reg){0x1001, 0x403c, 15u << 16 | 15};
    return n;
}

static int channels(int ic, int real, int k, int wbpk)
{
    emu_reg r[16];
    emu_task t;
    emu_decode(EMU_MAP_RK3588, r, conv_regs(r, ic, real, k, wbpk, 1), &t);
    return t.in_c_real;
}

int main(void)
{
    CHECK(channels(128, 63, 1, 128) == 128, "128 channels, 1x1, 128 weight bytes: %d",
          channels(128, 63, 1, 128));
    CHECK(channels(256, 63, 2, 1024) == 256, "256 channels, 2x2, 1024 weight bytes: %d",
          channels(256, 63, 2, 1024));
    CHECK(channels(128, 63, 1, 64) == 64, "a kernel of 64 weight bytes: %d", channels(128, 63, 1, 64));
    CHECK(channels(64, 63, 1, 64) == 64, "64 channels: %d", channels(64, 63, 1, 64));
    CHECK(channels(32, 15, 1, 32) == 16, "the field when it is not 63: %d", channels(32, 15, 1, 32));
    /* toolkit 2.3.2 (mobilenet_v2.rk3588): (C - 1) mod 64 for 96, 576, 960 channels */
    CHECK(channels(96, 31, 1, 96) == 96, "96 channels, field 31, 96 weight bytes: %d",
          channels(96, 31, 1, 96));
    CHECK(channels(576, 63, 1, 576) == 576, "576 channels: %d", channels(576, 63, 1, 576));
    CHECK(channels(960, 63, 1, 960) == 960, "960 channels: %d", channels(960, 63, 1, 960));
    CHECK(channels(96, 31, 1, 32) == 32, "96 aligned, a kernel of 32 weight bytes: %d",
          channels(96, 31, 1, 32));
    CHECK(channels(96, 15, 1, 96) == 16, "a field that is not (C - 1) mod 64: %d",
          channels(96, 15, 1, 96));

    /* task 0 writes everything; task 2 (same group) no CORE word */
    emu_reg a[16], b[16], c[16];
    emu_stream s[3] = {0};
    emu_task out[3];
    s[0].regs = a, s[0].n_regs = conv_regs(a, 16, 15, 1, 16, 1), s[0].enable_mask = 0x1d;
    s[1].regs = c, s[1].n_regs = conv_regs(c, 16, 15, 1, 16, 1), s[1].enable_mask = 0x1d;
    s[2].regs = b, s[2].n_regs = conv_regs(b, 16, 15, 1, 16, 0), s[2].enable_mask = 0x1d;
    emu_program p = {.map = EMU_MAP_RK3588, .tasks = s, .n_tasks = 3};
    emu_program_decode(&p, out);
    CHECK(out[2].op == EMU_OP_CONV && out[2].core_w == 40 && out[2].core_c == 16,
          "a tile without CORE words, mask 0x1d: op %d, core %dx%d", out[2].op, out[2].core_w,
          out[2].core_c);
    s[2].enable_mask = 0x18;
    emu_program_decode(&p, out);
    CHECK(out[2].op != EMU_OP_CONV, "the same tile with mask 0x18 (no CORE run): op %d", out[2].op);
    TEST_END();
}
