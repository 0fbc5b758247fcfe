/* runtime/emu/emu_lite.c — runs an RV1103/RV1106 ("lite") file's NPU tasks
 * over one flat NPU address space (emu.h, docs/rknn-format.md "Execution on
 * RV110x"). These files hold absolute offsets: below the weights' end the
 * file's register commands and weights, above it the runtime's internal
 * buffer, so a task reads and writes memory as its registers say and the
 * graph is only needed to place the input and to name what was computed. */
#include "runtime/emu/emu.h"
#include "runtime/emu/emu_internal.h"
#include "dump/dump.h"
#include "runtime/model/model.h"
#include "runtime/model/rknn_file.h"
#include "util/util.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define C2 16 /* int8 lanes of a native activation (native shapes [1, C1, H, W, 16]) */

typedef struct lite_mem {
    uint8_t *m;
    int64_t size;
} lite_mem;

/* register values of the two ping-pong groups (last write wins; 0 unwritten) */
typedef struct lite_regs {
    uint32_t val[2][0x10000 / 4];
    uint8_t set[2][0x10000 / 4];
} lite_regs;

static __int128 rs_round128(__int128 v, int n) { return n <= 0 ? v : (v + ((__int128)1 << (n - 1))) >> n; }

static uint32_t reg(const lite_regs *r, int g, uint16_t a) { return r->val[g][a / 4]; }

static int in_mem(const lite_mem *mem, int64_t addr, int64_t n)
{
    return addr >= 0 && n >= 0 && addr <= mem->size && n <= mem->size - addr;
}

static const char *nname(const rknn_model *m, int node)
{
    return node >= 0 && node < m->n_nodes && m->nodes[node].name ? m->nodes[node].name : "?";
}

/* Registers the map does not name, and the values with which the result
 * reproduces the source model on retinaface.rv1103 (tests/cli/emulate.sh):
 * CNA 0x103c, 0x1048, 0x108c, 0x1188, 0x118c (geometry and weight sizes the
 * named fields repeat), DPU 0x401c/0x4028/0x402c/0x40dc/0x40e4/0x40ec
 * (0x7fffffff) and 0x40d8/0x40e0/0x40e8 (0x80000000 or 0): saturation bounds
 * left wide open. 0x101c is the input converter's third offset (used). Any
 * other unnamed register with a non-zero value stops the run. */
static int lite_ignored(uint16_t a, uint32_t v)
{
    switch (a) {
    case 0x103c: case 0x1048: case 0x108c: case 0x1188: case 0x118c: case 0x101c:
        return 1;
    case 0x401c: case 0x4028: case 0x402c: case 0x40dc: case 0x40e4: case 0x40ec:
        return v == 0x7fffffff;
    case 0x40d8: case 0x40e0: case 0x40e8:
        return v == 0x80000000u || v == 0;
    default:
        return v == 0;
    }
}

/* in a lite runner (with err, errlen): return the reason it is not emulated */
#define LITE_STOP(...) return rt_err(err, errlen, RT_EUNSUPPORTED, __VA_ARGS__)

/* One conv or depthwise task. Arithmetic (found on retinaface.rv1103, checked
 * layer by layer against the source model):
 *   x    input byte; an image input through the CNA converter:
 *        sat8(round((pixel * scale_c + offset_c) / 2^trunc_c))
 *   acc  = bias32[oc] + sum x * weff      exact (int64, checked to fit int32)
 *        weff: dense (q + negzp[oc]); depthwise (q + k), the byte pair (q, k),
 *        k = -zp_w as int8 (-128 stands for +128: the weight zero point -128)
 *   v    = round(acc * mul[oc] / 2^s)     per-channel multiplier, s = BS_CFG bits 9..13
 *   v    = round((v < 0 ? round(v * slope / 2^14) : v) / 2^t)   BN PReLU (LeakyRelu),
 *        t its shift field
 *   v   += round((e + EW_CVT_OFFSET) * s / 2^n)   ConvLeakyReluAdd's operand
 *   y    = sat8(round(v * OUT_CVT_SCALE / 2^OUT_CVT_SHIFT) + OUT_CVT_OFFSET) */
static int lite_conv(const rknn_model *m, const emu_task *t, const lite_regs *rs, int g, int ti,
                     int node, lite_mem *mem, char *err, size_t errlen)
{
    const char *nn = nname(m, node);
    int dw = t->op == EMU_OP_DEPTHWISE;
    if (t->in_prec != 0 || t->proc_prec != 0 || t->out_prec != 0)
        LITE_STOP("task %d (node %s): precisions in %s proc %s out %s: only int8 is emulated", ti, nn,
             emu_prec_name(t->in_prec), emu_prec_name(t->proc_prec), emu_prec_name(t->out_prec));
    if (t->in_w <= 0 || t->in_h <= 0 || t->in_c_real <= 0 || t->kw <= 0 || t->kh <= 0 ||
        t->kernels <= 0 || t->out_w <= 0 || t->out_h <= 0 || t->out_c_orig <= 0 ||
        t->stride_x <= 0 || t->stride_y <= 0 || t->feature_addr < 0 || t->weight_addr < 0 ||
        t->dst_addr < 0 || t->bs_addr < 0 || t->dst_surf_stride < 0 || t->pad_top < 0 ||
        t->pad_left < 0 || t->weight_bytes <= 0 || t->weight_bytes_per_kernel <= 0)
        LITE_STOP("task %d (node %s): geometry or addresses incomplete", ti, nn);
    uint32_t bs_cfg = reg(rs, g, 0x4040), bn_cfg = reg(rs, g, 0x4060), brdma = reg(rs, g, 0x501c);
    /* the exact words seen: dense BS per-channel add and multiply (BRDMA data 7: bias,
     * -zp_w, multiplier), depthwise BS "bypassed" with bias and multiplier read (data 5) */
    /* bits 9..13 of BS_CFG: a right shift after the per-channel multiply (0 before a
     * PReLU, 14 where BN is bypassed); the sizes of the results say so, the public
     * RK3588 descriptions leave these bits unnamed */
    int bs_shift = !dw ? (int)(bs_cfg >> 9 & 0x1f) : 0;
    if (!dw && ((bs_cfg & ~(0x1fu << 9)) != 0x120180 || brdma != 0xe || t->bs.mul_shift != 0))
        LITE_STOP("task %d (node %s): DPU_BS_CFG 0x%x, BRDMA_CFG 0x%x, BS shift %d: only 0x120180 / 0xe "
             "/ 0 (per-channel add and multiply) are understood for a conv", ti, nn, bs_cfg, brdma,
             t->bs.mul_shift);
    if (dw && (bs_cfg != 0x100092 || brdma != 0xa))
        LITE_STOP("task %d (node %s): DPU_BS_CFG 0x%x, BRDMA_CFG 0x%x: only 0x100092 / 0xa are "
             "understood for a depthwise conv", ti, nn, bs_cfg, brdma);
    int prelu = 0, slope = 0;
    int bn_shift = 0;
    if (bn_cfg == 0x22 && t->bn.mul_prelu && !t->bn.mul_src) {
        prelu = 1;
        slope = t->bn.mul_operand;
        bn_shift = t->bn.mul_shift; /* on both branches: OUT_CVT_SHIFT is that much smaller */
    } else if (!(bn_cfg & 1)) {
        LITE_STOP("task %d (node %s): DPU_BN_CFG 0x%x: only bypass (bit 0) and 0x22 with a register "
             "PReLU slope are understood", ti, nn, bn_cfg);
    }
    /* the element-wise add of a ConvLeakyReluAdd: a native operand at DPU_RDMA_EW_BASE_ADDR
     * (surface stride EW_SURF_STRIDE), v += round((e + EW_CVT_OFFSET) * scale / 2^shift),
     * scale and shift in EW_CVT_SCALE bits 0..15 and 16..21; only the words seen */
    uint32_t ew_cfg = reg(rs, g, 0x4070), fmt = reg(rs, g, 0x4010);
    int use_ew = !t->ew_present ? 0 : !t->ew_bypass;
    int32_t ew_off = (int32_t)reg(rs, g, 0x4074);
    uint32_t ew_cvt = reg(rs, g, 0x4078);
    int64_t ew_addr = reg(rs, g, 0x5038), ew_surf = reg(rs, g, 0x5040);
    if (use_ew && (ew_cfg != 0x8002c0c0 || fmt != 0x802000 || reg(rs, g, 0x5034) != 0x40000004 ||
                   ew_cvt >> 22))
        LITE_STOP("task %d (node %s): element-wise stage DPU_EW_CFG 0x%x (DATA_FORMAT 0x%x, ERDMA_CFG "
             "0x%x, EW_CVT_SCALE 0x%x): only the add of a memory operand (0x8002c0c0) is emulated "
             "on RV110x", ti, nn, ew_cfg, fmt, reg(rs, g, 0x5034), ew_cvt);
    if (!use_ew && fmt != 0x800000)
        LITE_STOP("task %d (node %s): DPU_DATA_FORMAT 0x%x not understood", ti, nn, fmt);
    if (!t->ew_present)
        LITE_STOP("task %d (node %s): no DPU_EW_CFG", ti, nn);
    /* bit 16 of OUT_CVT_SCALE comes with the element-wise add (and on every DPU-only task) */
    if (reg(rs, g, 0x4084) >> 16 != (uint32_t)use_ew || t->out_cvt_shift > 62)
        LITE_STOP("task %d (node %s): DPU_OUT_CVT_SCALE 0x%x / shift %d not understood", ti, nn,
             reg(rs, g, 0x4084), t->out_cvt_shift);
    /* input: the image through the converter, or native NC1HWC2 */
    int image = t->cvt_bypass == 0;
    int ic_n = t->in_c_real;
    int64_t line = (int64_t)(reg(rs, g, 0x107c) & 0xfffffff) * 4,
            surf = (int64_t)(reg(rs, g, 0x1080) & 0xfffffff) * 16;
    int cscale[3] = {0}, ctrunc[3] = {0};
    int64_t coff[3] = {0};
    if (image) {
        uint32_t c0 = reg(rs, g, 0x104c);
        if (ic_n > 3 || (c0 & 0xe) != 0)
            LITE_STOP("task %d (node %s): CNA input converter 0x%x with %d channels: only the 3-channel "
                 "image form is understood", ti, nn, c0, ic_n);
        uint32_t s01 = reg(rs, g, 0x1050), s23 = reg(rs, g, 0x1054);
        cscale[0] = (int)(s01 & 0xffff);
        cscale[1] = (int)(s01 >> 16);
        cscale[2] = (int)(s23 & 0xffff);
        coff[0] = (int32_t)reg(rs, g, 0x1058);
        coff[1] = (int32_t)reg(rs, g, 0x105c);
        coff[2] = (int32_t)reg(rs, g, 0x101c);
        for (int c = 0; c < 3; c++)
            ctrunc[c] = (int)(c0 >> (4 + 6 * c) & 0x3f);
        line = (int64_t)t->in_w * ic_n;
    } else if (line != (int64_t)t->in_w * C2 || surf < (int64_t)t->in_h * line) {
        LITE_STOP("task %d (node %s): feature strides line %lld surface %lld for width %d: not the "
             "native %d-lane layout", ti, nn, (long long)line, (long long)surf, t->in_w, C2);
    }
    int oc_n = dw ? t->out_c_orig : t->kernels;
    if (dw && (t->in_c_real != oc_n))
        LITE_STOP("task %d (node %s): depthwise with %d input and %d output channels", ti, nn,
             t->in_c_real, oc_n);
    if (!dw && t->out_c_orig != oc_n)
        LITE_STOP("task %d (node %s): %d kernels for %d output channels", ti, nn, t->kernels,
             t->out_c_orig);
    int kh = t->kh, kw = t->kw;
    int64_t wpk = t->weight_bytes_per_kernel, wtot = t->weight_bytes;
    int64_t per_tap = wtot / (kh * kw);
    int icp = (int)(wpk / (kh * kw)), ic2 = icp < 32 ? icp : 32;
    if (dw ? (per_tap * kh * kw != wtot || per_tap < 2 * oc_n)
           : (wpk % (kh * kw) || icp < ic_n || icp % ic2 || wtot != wpk * oc_n))
        LITE_STOP("task %d (node %s): weight sizes %lld (%lld per kernel) do not fit %d kernels of "
             "%dx%dx%d", ti, nn, (long long)wtot, (long long)wpk, oc_n, kh, kw, ic_n);
    /* depthwise: 32 lanes a tap for up to 16 channels, else blocks of 32 channels of 64 */
    int dw_tap = oc_n <= 16 ? 32 : 64;
    if (dw && wtot != (oc_n <= 16 ? 32 : (int64_t)(oc_n + 31) / 32 * 64) * kh * kw)
        LITE_STOP("task %d (node %s): depthwise weights of %lld bytes for %d channels of %dx%d", ti, nn,
             (long long)wtot, oc_n, kh, kw);
    int64_t chw = dw ? 24 : 32; /* bytes of per-channel words per group of 4 */
    int64_t in_span = image ? (int64_t)t->in_h * line
                            : (int64_t)((ic_n + C2 - 1) / C2 - 1) * surf + (int64_t)t->in_h * line;
    int64_t dsurf = t->dst_surf_stride * 16, oline = (int64_t)t->out_w * C2;
    int64_t out_span = (int64_t)((oc_n + C2 - 1) / C2 - 1) * dsurf + (int64_t)t->out_h * oline;
    if (!in_mem(mem, t->feature_addr, in_span) || !in_mem(mem, t->weight_addr, wtot) ||
        !in_mem(mem, t->bs_addr, (oc_n + 3) / 4 * chw) || !in_mem(mem, t->dst_addr, out_span) ||
        (oc_n > C2 && dsurf < (int64_t)t->out_h * oline))
        LITE_STOP("task %d (node %s): feature 0x%llx, weights 0x%llx, per-channel words 0x%llx or "
             "destination 0x%llx outside the %lld-byte NPU memory", ti, nn,
             (long long)t->feature_addr, (long long)t->weight_addr, (long long)t->bs_addr,
             (long long)t->dst_addr, (long long)mem->size);
    if (use_ew && (!in_mem(mem, ew_addr, (int64_t)((oc_n + C2 - 1) / C2 - 1) * ew_surf +
                                          (int64_t)t->out_h * oline) ||
                   (oc_n > C2 && ew_surf < (int64_t)t->out_h * oline)))
        LITE_STOP("task %d (node %s): element-wise operand at 0x%llx (surface stride %lld) outside the "
             "NPU memory", ti, nn, (long long)ew_addr, (long long)ew_surf);
    int padv = t->has_pad_value ? t->pad_value : 0; /* unwritten: the register's reset 0 */
    /* the input tile padded on every side the kernel reaches, [y][x][c] as int16 so that
     * each tap is one contiguous dot product; weights likewise, weff = w + nzp per kernel */
    int ih = t->in_h, iw = t->in_w, sy = t->stride_y, sx = t->stride_x;
    int dy = t->dil_y > 0 ? t->dil_y : 1, dx = t->dil_x > 0 ? t->dil_x : 1;
    int ph = (t->out_h - 1) * sy + (kh - 1) * dy + 1, pw = (t->out_w - 1) * sx + (kw - 1) * dx + 1;
    int16_t *x = malloc(sizeof(int16_t) * (size_t)ph * pw * ic_n);
    int16_t *wk = malloc(sizeof(int16_t) * (size_t)kh * kw * ic_n);
    if (!x || !wk) {
        free(x);
        free(wk);
        return rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
    }
    const uint8_t *fb = mem->m + t->feature_addr;
    for (int y = 0; y < ph; y++)
        for (int xx = 0; xx < pw; xx++) {
            int iy = y - t->pad_top, ix = xx - t->pad_left;
            int inside = iy >= 0 && iy < ih && ix >= 0 && ix < iw;
            int16_t *px = x + ((int64_t)y * pw + xx) * ic_n;
            for (int c = 0; c < ic_n; c++) {
                int v = padv;
                if (inside && image)
                    v = sat8(rshift_round((int64_t)fb[(int64_t)iy * line + (int64_t)ix * ic_n + c] *
                                          cscale[c] + coff[c], ctrunc[c]));
                else if (inside)
                    v = (int8_t)fb[(c / C2) * surf + (int64_t)iy * line + (int64_t)ix * C2 + c % C2];
                px[c] = (int16_t)v;
            }
        }
    const uint8_t *W = mem->m + t->weight_addr, *B = mem->m + t->bs_addr;
    int rc = 0;
    for (int oc = 0; oc < oc_n && !rc; oc++) {
        const uint8_t *gw = B + (int64_t)(oc / 4) * chw;
        int j = oc % 4;
        int64_t bias = rd_i32(gw + 4 * j);
        int nzp = dw ? 0 : rd_i16(gw + 16 + 2 * j);
        int mul = rd_i16(gw + (dw ? 16 : 24) + 2 * j);
        if (dw) {
            /* blocks of 32 channels, [kh][kw][32 x (q, k)] each; k is -zp_w as int8:
             * -(-128) wraps to -128, which stands for +128 */
            for (int tap = 0; tap < kh * kw; tap++) {
                const int8_t *wp = (const int8_t *)W + (int64_t)(oc / 32) * kh * kw * 64 +
                                   tap * dw_tap + 2 * (oc % 32);
                wk[tap] = (int16_t)(wp[0] + (wp[1] == -128 ? 128 : wp[1]));
            }
        } else {
            /* dense weights: blocks of 16 kernels, [IC1][kh][kw][kernels in block][IC2] */
            int ob = oc_n - oc / 16 * 16 < 16 ? oc_n - oc / 16 * 16 : 16;
            const int8_t *wb = (const int8_t *)W + (int64_t)(oc / 16) * 16 * wpk;
            for (int tap = 0; tap < kh * kw; tap++)
                for (int ic = 0; ic < ic_n; ic++)
                    wk[(int64_t)tap * ic_n + ic] = (int16_t)(
                        wb[(((int64_t)(ic / ic2) * kh * kw + tap) * ob + oc % 16) * ic2 + ic % ic2] + nzp);
        }
        for (int oy = 0; oy < t->out_h && !rc; oy++)
            for (int ox = 0; ox < t->out_w; ox++) {
                int64_t acc = bias;
                for (int ky = 0; ky < kh; ky++)
                    for (int kx = 0; kx < kw; kx++) {
                        const int16_t *px = x + ((int64_t)(oy * sy + ky * dy) * pw + ox * sx + kx * dx) * ic_n;
                        if (dw) {
                            acc += (int64_t)px[oc] * wk[ky * kw + kx];
                            continue;
                        }
                        const int16_t *wt = wk + (int64_t)(ky * kw + kx) * ic_n;
                        int32_t part = 0; /* |x * w| <= 128 * 255, ic_n <= 16384: fits */
                        for (int ic = 0; ic < ic_n; ic++)
                            part += (int32_t)px[ic] * wt[ic];
                        acc += part;
                    }
                if (acc < INT32_MIN || acc > INT32_MAX) {
                    rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                                "task %d (node %s): accumulator %lld overflows int32 (channel %d, "
                                "row %d, column %d)", ti, nn, (long long)acc, oc, oy, ox);
                    break;
                }
                int64_t v = rshift_round(acc * mul, bs_shift);
                if (prelu) {
                    if (v < 0)
                        v = rshift_round(v * slope, 14);
                    v = rshift_round(v, bn_shift);
                }
                int64_t at = (oc / C2) * dsurf + (int64_t)oy * oline + (int64_t)ox * C2 + oc % C2;
                if (use_ew) {
                    int64_t e = (int8_t)mem->m[ew_addr + (oc / C2) * ew_surf +
                                              ((int64_t)oy * t->out_w + ox) * C2 + oc % C2];
                    v += rshift_round((e + ew_off) * (int64_t)(ew_cvt & 0xffff), (int)(ew_cvt >> 16));
                }
                int64_t y = (int64_t)rs_round128((__int128)v * t->out_cvt_scale, t->out_cvt_shift) +
                            t->out_cvt_offset;
                mem->m[t->dst_addr + at] = (uint8_t)sat8(y);
            }
    }
    free(x);
    free(wk);
    return rc;
}

/* A DPU-only task (enable 0x18): the DPU_RDMA reads a native cube, the DPU
 * writes it again. These forms are understood, each only with the exact
 * configuration words seen on retinaface.rv1103 (checked against the source
 * model by tests/oracle/emu_layers.py):
 *  - copy (Concat inputs into their channel slices, Relu, the head's row
 *    Concats into one surface, the final Reshapes): source and destination
 *    cubes equal, surfaces contiguous; per value
 *      y = sat8(round((x + IN_OFFSET) * OUT_CVT_SCALE / 2^OUT_CVT_SHIFT) + OUT_CVT_OFFSET)
 *    IN_OFFSET is DPU 0x4018 (minus the source's zero point); a ReLU is the
 *    destination's range (zero point -128), not a stage;
 *  - nearest 2x upsample of one 16-channel surface (Resize): DPU_RDMA
 *    SRC_DMA_CFG 0x1249, the destination twice as wide, written a row pair
 *    per source row (DST_SURF_STRIDE one output row, SURFACE_ADD its surface);
 *  - Transpose NCHW -> NHWC in two passes: the C1 surfaces interleaved per
 *    pixel (DATA_FORMAT 0x81000004), then each pixel's first C bytes written
 *    compactly (DPU_FEATURE_MODE_CFG bits 9..29); see below.
 * *scratch is set for a task whose output is an intermediate buffer. */
static int lite_dpu(const rknn_model *m, const emu_task *t, const lite_regs *rs, int g, int ti,
                    int node, lite_mem *mem, int *scratch, char *err, size_t errlen)
{
    const char *nn = nname(m, node);
    uint32_t sw = (reg(rs, g, 0x500c) & 0x1fff) + 1, sh = (reg(rs, g, 0x5010) & 0x1fff) + 1,
             sc = (reg(rs, g, 0x5014) & 0x1fff) + 1;
    uint32_t dw = (reg(rs, g, 0x4030) & 0x1fff) + 1, dh = (reg(rs, g, 0x4034) & 0x1fff) + 1,
             dc = (reg(rs, g, 0x403c) & 0x1fff) + 1;
    uint32_t feat = reg(rs, g, 0x5044), dma = reg(rs, g, 0x5048), fmt = reg(rs, g, 0x4010);
    uint32_t mode = reg(rs, g, 0x400c), notch = reg(rs, g, 0x4038), cvt = reg(rs, g, 0x4084);
    uint32_t bs = reg(rs, g, 0x4040), bn = reg(rs, g, 0x4060), ew = reg(rs, g, 0x4070);
    int64_t src = reg(rs, g, 0x5018), dst = reg(rs, g, 0x4020);
    int64_t dsurf = reg(rs, g, 0x4024), sadd = reg(rs, g, 0x40c0);
    int32_t in_off = (int32_t)reg(rs, g, 0x4018), out_off = (int32_t)reg(rs, g, 0x4080);
    int shift = (int)(reg(rs, g, 0x4088) & 0xfff);
    *scratch = 0;
    /* the compacting write (bits 9..24 of the mode: output bytes / 16, bit 25, bits 28..29 the
     * channel granularity 4 or 8 bytes) is checked below; everything else as the copies */
    uint32_t mode_lo = mode & 0x1ff, n16 = mode >> 9 & 0xffff, gran = mode >> 28;
    int compact = mode != 0x1e5 && mode_lo == 0x1e5 && (mode >> 25 & 7) == 1 && (gran == 1 || gran == 2);
    if ((mode != 0x1e5 && !compact) || (bs != 0x53 && bs != 0x100012) || !(bn & 1) || !(ew & 1) ||
        (cvt >> 16) != 1 || shift > 40)
        LITE_STOP("task %d (node %s): DPU-only task with DPU_FEATURE_MODE_CFG 0x%x, BS 0x%x, BN 0x%x, "
             "EW 0x%x, OUT_CVT_SCALE 0x%x: not a form emulated on RV110x", ti, nn, mode, bs, bn,
             ew, cvt);
    int scale = (int)(cvt & 0xffff);
    int identity = in_off == 0 && out_off == 0 && scale == 1 && shift == 0;
    int64_t plane = (int64_t)dw * dh * C2;
    /* one surface (the head's Concats of [1, 1, N, C] rows): the destination's surface stride
     * is the whole output; the notch then is 0 or what is left of it in 16-byte units */
    int one_surf = dc <= C2 && dsurf > plane && sadd == dsurf &&
                   (notch == 0 || notch == (uint32_t)(dsurf / C2 - (int64_t)dw * dh) * 0x10001u);
    if (!compact && fmt == 0x800000 && feat == 0x907809 && dma == 0 && sw == dw && sh == dh &&
        sc == dc && ((notch == 0 && dsurf == plane && sadd == dsurf) || one_surf)) {
        int64_t span = one_surf ? plane : (int64_t)(dc + C2 - 1) / C2 * dsurf;
        if (!in_mem(mem, src, span) || !in_mem(mem, dst, span))
            LITE_STOP("task %d (node %s): copy of %lld bytes from 0x%llx to 0x%llx outside the NPU "
                 "memory", ti, nn, (long long)span, (long long)src, (long long)dst);
        /* in place (Relu) and overlapping slices read whole before writing */
        uint8_t *tmp = malloc((size_t)span);
        if (!tmp)
            return rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
        memcpy(tmp, mem->m + src, (size_t)span);
        for (uint32_t c = 0; c < dc; c++)
            for (int64_t p = 0; p < (int64_t)dw * dh; p++) {
                int64_t o = (int64_t)(c / C2) * dsurf + p * C2 + c % C2;
                int64_t v = (int64_t)(int8_t)tmp[o] + in_off;
                mem->m[dst + o] = (uint8_t)sat8(rshift_round(v * scale, shift) + out_off);
            }
        free(tmp);
        return 0;
    }
    /* first pass of a Transpose to NHWC: the C1 surfaces of a native tensor interleaved per
     * pixel, [C1][pixels][16] -> [pixels][C1][16]. The source is read as 4-byte words, 8 to
     * a pixel pair (cube W 8, H C1, C pixels / 2), SRC_DMA_CFG bits 22.. pixels / 8 - 1, the
     * RDMA surface notch minus one surface (pixels * 16 bytes) when C1 > 1; the destination
     * a pixel (16 * C1 bytes) per DST_SURF_STRIDE, SURFACE_ADD a pair of them in 4-byte words */
    uint32_t snotch = reg(rs, g, 0x504c);
    int64_t pixels = 2 * (int64_t)sc, c1 = sh;
    if (!compact && fmt == 0x81000004 && feat == 0x927889 && identity && sw == 8 && dw == 8 &&
        (c1 == 1 || c1 == 2) && dh == sh && dc == sc && pixels % 8 == 0 &&
        dma == (uint32_t)(pixels / 8 - 1) << 22 &&
        snotch == (c1 > 1 ? (uint32_t)(-(pixels * C2)) : 0) && dsurf == C2 * c1 &&
        sadd == 128 * c1 && notch == (uint32_t)(7 * c1) * 0x10001u) {
        int64_t span = pixels * C2 * c1;
        if (!in_mem(mem, src, span) || !in_mem(mem, dst, span) || (src < dst + span && dst < src + span))
            LITE_STOP("task %d (node %s): interleave of %lld bytes from 0x%llx to 0x%llx outside the "
                 "NPU memory or overlapping", ti, nn, (long long)span, (long long)src, (long long)dst);
        for (int64_t s = 0; s < c1; s++)
            for (int64_t p = 0; p < pixels; p++)
                memcpy(mem->m + dst + (p * c1 + s) * C2, mem->m + src + (s * pixels + p) * C2, C2);
        *scratch = 1; /* an intermediate: the node's output is the second pass's */
        return 0;
    }
    /* second pass: a native cube (W C1, H image width, C image height x 16) written compactly,
     * of each row of W x 16 lanes (one pixel) only its first cout bytes, the real channels:
     * cout = (mode bits 9..24) * 16 / rows, a multiple of 8 exactly when bits 28..29 are 2 */
    if (compact && fmt == 0x800000 && feat == 0x907809 && dma == 0 && notch == 0 && identity &&
        sw == dw && sh == dh && sc == dc && sc % C2 == 0 && dsurf == 0 && sadd == 0) {
        int64_t rows = (int64_t)sh * (sc / C2), out = (int64_t)n16 * C2, cout = rows ? out / rows : 0;
        if (cout <= 0 || cout * rows != out || cout > (int64_t)sw * C2 || cout % 4 ||
            (cout % 8 == 0) != (gran == 2))
            LITE_STOP("task %d (node %s): compacting write of %lld bytes from %lld rows of %u lanes "
                 "(granularity %u): not understood", ti, nn, (long long)out, (long long)rows,
                 sw * C2, gran);
        if (!in_mem(mem, src, rows * sw * C2) || !in_mem(mem, dst, out) ||
            (src < dst + out && dst < src + rows * sw * C2))
            LITE_STOP("task %d (node %s): compacting write from 0x%llx to 0x%llx outside the NPU "
                 "memory or overlapping", ti, nn, (long long)src, (long long)dst);
        for (int64_t r = 0; r < rows; r++)
            memcpy(mem->m + dst + r * cout, mem->m + src + r * sw * C2, (size_t)cout);
        return 0;
    }
    if (!compact && fmt == 0x1000000 && feat == 0x927809 && dma == 0x1249 && dw == 2 * sw && dh == sh &&
        dc == C2 && dsurf == (int64_t)dw * C2 && sadd == 4 * (int64_t)sw * sh * C2 && in_off == 0 &&
        out_off == 0 && scale == 1 && shift == 0) {
        if (!in_mem(mem, src, (int64_t)sw * sh * C2) || !in_mem(mem, dst, sadd))
            LITE_STOP("task %d (node %s): upsample from 0x%llx to 0x%llx outside the NPU memory", ti,
                 nn, (long long)src, (long long)dst);
        for (uint32_t y = 0; y < 2 * sh; y++)
            for (uint32_t x = 0; x < dw; x++)
                memcpy(mem->m + dst + ((int64_t)y * dw + x) * C2,
                       mem->m + src + ((int64_t)(y / 2) * sw + x / 2) * C2, C2);
        return 0;
    }
    LITE_STOP("task %d (node %s): DPU-only task: source %ux%ux%u at 0x%llx, destination %ux%ux%u at "
         "0x%llx (surface stride %lld, add %lld, notch 0x%x), DATA_FORMAT 0x%x, mode 0x%x, RDMA mode "
         "0x%x / DMA 0x%x: not a copy, 2x upsample or transpose pass as emulated on RV110x", ti,
         nn, sw, sh, sc, (long long)src, dw, dh, dc, (long long)dst, (long long)dsurf,
         (long long)sadd, notch, fmt, mode, feat, dma);
}

/* a graph tensor at NPU address base, dequantized: a native activation as NCHW (nd 4), a
 * tensor whose native shape is its shape (the head's NHWC Transposes, [1, 1, N, C] rows,
 * the outputs) as its row-major bytes (nd its rank, at most 4) */
static float *lite_tensor(const rknn_tensor *t, const lite_mem *mem, int64_t base, int64_t dims[4],
                          int *nd)
{
    int same = t->shape && t->native && t->nd == t->nnd && t->nd >= 1 && t->nd <= 4 && t->has_quant;
    for (int i = 0; same && i < t->nd; i++)
        same = t->shape[i] == t->native[i] && t->shape[i] > 0 && t->shape[i] <= ((int64_t)1 << 30);
    if (same) {
        int64_t n = 1;
        for (int i = 0; i < t->nd; i++)
            n *= t->shape[i];
        if (n > ((int64_t)1 << 30) || !in_mem(mem, base, n))
            return NULL;
        float *f = malloc(sizeof(float) * (size_t)n);
        if (!f)
            return NULL;
        for (int64_t i = 0; i < n; i++)
            f[i] = (float)(((int8_t)mem->m[base + i] - t->zero_point) * t->scale);
        for (int i = 0; i < 4; i++)
            dims[i] = i < t->nd ? t->shape[i] : 1;
        *nd = t->nd;
        return f;
    }
    *nd = 4;
    if (t->nd != 4 || !t->shape || t->nnd != 5 || !t->native || t->native[4] != C2 || !t->has_quant)
        return NULL;
    int64_t c = t->shape[1], h = t->shape[2], w = t->shape[3];
    int64_t surf = h * w * C2;
    if (c <= 0 || h <= 0 || w <= 0 || !in_mem(mem, base, ((c + C2 - 1) / C2) * surf))
        return NULL;
    float *f = malloc(sizeof(float) * (size_t)(c * h * w));
    if (!f)
        return NULL;
    for (int64_t ch = 0; ch < c; ch++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                f[(ch * h + y) * w + x] = (float)(
                    ((int8_t)mem->m[base + (ch / C2) * surf + (y * w + x) * C2 + ch % C2] -
                     t->zero_point) * t->scale);
    dims[0] = 1;
    dims[1] = c;
    dims[2] = h;
    dims[3] = w;
    return f;
}

/* DIR/<tensor>.npy of a node's output at base, when it is a native activation */
static int lite_dump_node(const rknn_model *m, int node, const lite_mem *mem, int64_t base,
                          const char *dir, char *err, size_t errlen)
{
    const rknn_node *nd = &m->nodes[node];
    int64_t dims[4];
    int rank = 4;
    char path[4096];
    if (nd->n_out < 1)
        return 0;
    const rknn_tensor *ot = &m->tensors[nd->out[0]];
    float *f = lite_tensor(ot, mem, base, dims, &rank);
    if (!f)
        return 0;
    emu_dump_path(path, sizeof path, dir, ot->name ? ot->name : "tensor");
    int rc = npy_write(path, DT_FLOAT, rank, dims, f, err, errlen);
    free(f);
    return rc;
}

int emu_lite_exec(const rknn_model *m, const uint8_t *file, size_t len, const emu_program *prog,
                  const emu_task *tasks, const float *const *inputs, int n_inputs,
                  const char *dump_dir, emu_result *res, char *err, size_t errlen)
{
    lite_mem mem = {0};
    lite_regs *rs = calloc(1, sizeof(*rs));
    int64_t *node_base = calloc((size_t)m->n_nodes + 1, sizeof(int64_t));
    uint8_t *node_done = calloc((size_t)m->n_nodes + 1, 1);
    int64_t *tensor_base = calloc((size_t)m->n_tensors + 1, sizeof(int64_t)); /* +1; 0 unset */
    int *node_left = calloc((size_t)m->n_nodes + 1, sizeof(int));
    json_t *index = dump_dir ? json_array() : NULL;
    int rc = 0, stop = -1, k = 0;
    char stop_msg[1024] = "";

    if (!rs || !node_base || !node_done || !node_left || !tensor_base) {
        rc = rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
        goto out;
    }
    /* the address space: the file's register commands and weights, then the internal buffer */
    mem.size = prog->file_limit + (int64_t)m->lite_words[4];
    if (prog->file_base < 0 || (uint64_t)prog->file_base + (uint64_t)prog->file_limit > len ||
        mem.size > ((int64_t)1 << 31) || !(mem.m = calloc((size_t)mem.size, 1))) {
        rc = rt_err(err, errlen, RT_ENOMEM, "emulate: NPU memory of %lld bytes", (long long)mem.size);
        goto out;
    }
    memcpy(mem.m, file + prog->file_base, (size_t)prog->file_limit);
    for (int i = 0; i < prog->n_tasks; i++)
        if (prog->tasks[i].node >= 0)
            node_left[prog->tasks[i].node]++;
    /* inputs: the uint8 image the CNA's converter reads (mean, std and quantization are
     * its registers), NHWC at the feature address of the first task reading it */
    for (int i = 0; i < m->n_io; i++) {
        const rknn_io *io = &m->io[i];
        if (io->is_output)
            continue;
        const rknn_tensor *t = io->tensor >= 0 ? &m->tensors[io->tensor] : NULL;
        int64_t base = -1;
        for (int ti = 0; ti < prog->n_tasks && base < 0 && t; ti++) {
            int nd = prog->tasks[ti].node;
            if (nd >= 0 && m->nodes[nd].n_in > 0 && m->nodes[nd].in[0] == io->tensor &&
                tasks[ti].cvt_bypass == 0 && tasks[ti].pad_top > 0)
                base = tasks[ti].feature_addr;
        }
        if (k >= n_inputs || !t || t->nd != 4 || !t->shape || t->shape[1] > 3 || base < 0 ||
            !in_mem(&mem, base, t->shape[1] * t->shape[2] * t->shape[3])) {
            rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                        "emulate: input %s: not an image of at most 3 channels read through the "
                        "CNA's input converter by a first tile", io->name);
            goto out;
        }
        int64_t C = t->shape[1], H = t->shape[2], W = t->shape[3];
        for (int64_t c = 0; c < C; c++)
            for (int64_t y = 0; y < H; y++)
                for (int64_t x = 0; x < W; x++) {
                    double v = nearbyint(inputs[k][(c * H + y) * W + x]);
                    mem.m[base + (y * W + x) * C + c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
                }
        k++;
    }
    for (int i = 0; i < prog->n_tasks; i++) {
        const emu_stream *s = &prog->tasks[i];
        const emu_task *t = &tasks[i];
        int g = i & 1, node = s->node;
        for (int r = 0; r < s->n_regs; r++) {
            rs->val[g][s->regs[r].addr / 4] = s->regs[r].value;
            rs->set[g][s->regs[r].addr / 4] = 1;
        }
        if (node < 0 || node >= m->n_nodes) {
            snprintf(stop_msg, sizeof stop_msg, "task %d: no graph node index", i);
            stop = i;
            break;
        }
        if (t->n_unknown > EMU_MAX_UNKNOWN) {
            snprintf(stop_msg, sizeof stop_msg, "task %d (node %s): %d registers not in the map", i,
                     nname(m, node), t->n_unknown);
            stop = i;
            break;
        }
        for (int u = 0; u < t->n_unknown && stop < 0; u++)
            if (!lite_ignored(t->unknown_addr[u], t->unknown_val[u]) &&
                !(s->enable_mask == 0x18 && t->unknown_addr[u] == 0x4018)) { /* its input offset */
                snprintf(stop_msg, sizeof stop_msg,
                         "task %d (node %s): register 0x%04x = 0x%08x has no known meaning", i,
                         nname(m, node), t->unknown_addr[u], t->unknown_val[u]);
                stop = i;
            }
        if (stop >= 0)
            break;
        int scratch = 0;
        if (s->enable_mask == 0x18 && t->op == EMU_OP_ELTWISE) {
            if ((rc = lite_dpu(m, t, rs, g, i, node, &mem, &scratch, stop_msg, sizeof stop_msg))) {
                if (rc != RT_EUNSUPPORTED)
                    goto out;
                rc = 0;
                stop = i;
                break;
            }
        } else if (t->op != EMU_OP_CONV && t->op != EMU_OP_DEPTHWISE) {
            snprintf(stop_msg, sizeof stop_msg,
                     "task %d (node %s, %s): %s tasks are not emulated on RV110x (enable 0x%x; "
                     "DPU_BS_CFG 0x%x, DPU_RDMA source 0x%llx, destination 0x%llx)", i,
                     nname(m, node), m->nodes[node].type ? m->nodes[node].type : "?",
                     emu_op_name(t->op), s->enable_mask, reg(rs, g, 0x4040),
                     (long long)t->rdma_src_addr, (long long)t->dst_addr);
            stop = i;
            break;
        } else if ((rc = lite_conv(m, t, rs, g, i, node, &mem, stop_msg, sizeof stop_msg))) {
            if (rc != RT_EUNSUPPORTED)
                goto out;
            rc = 0;
            stop = i;
            break;
        }
        if (!node_base[node] && !node_done[node] && !scratch)
            node_base[node] = t->dst_addr + 1; /* +1: 0 means unset */
        if (--node_left[node] == 0) {
            /* dumped now: the compiler reuses the internal buffer for later layers */
            node_done[node] = 1;
            if (m->nodes[node].n_out > 0 && m->nodes[node].out[0] >= 0 &&
                m->nodes[node].out[0] < m->n_tensors)
                tensor_base[m->nodes[node].out[0]] = node_base[node];
            if (dump_dir && (rc = lite_dump_node(m, node, &mem, node_base[node] - 1, dump_dir, err,
                                                  errlen)))
                goto out;
        }
        if (index) {
            const rknn_node *nd = &m->nodes[node];
            const rknn_tensor *ot = nd->n_out > 0 ? &m->tensors[nd->out[0]] : NULL;
            /* names are the file's bytes (json_text: null when none, kept when not UTF-8) */
            json_array_append_new(index, json_pack("{s:i, s:o, s:s, s:o, s:I}", "task", i, "node",
                                                   json_text(nname(m, node)), "op",
                                                   emu_op_name(t->op), "tensor",
                                                   json_text(ot ? ot->name : NULL),
                                                   "dst", (json_int_t)t->dst_addr));
        }
    }
    if (dump_dir) {
        if (!rc)
            rc = emu_write_json(dump_dir, "tasks.json", index, JSON_COMPACT, err, errlen);
        if (rc)
            goto out;
    }
    if (stop >= 0) {
        /* DIR/stopped_task.json: the reason and every register the task sees (its own
         * writes and what its group's earlier tasks left), by address and name */
        if (dump_dir &&
            (rc = emu_write_stopped(dump_dir, prog->map, rs->val[stop & 1], rs->set[stop & 1],
                                    stop, prog->tasks[stop].node, nname(m, prog->tasks[stop].node),
                                    NULL, stop_msg, err, errlen)))
            goto out;
        rc = rt_err(err, errlen, RT_EUNSUPPORTED, "%s (%d of %d tasks ran%s)", stop_msg, stop,
                    prog->n_tasks, dump_dir ? "; their layers and stopped_task.json are dumped" : "");
        goto out;
    }
    /* outputs: what the tasks left at each output tensor's address, dequantized */
    if ((rc = emu_result_alloc(m, res, err, errlen)))
        goto out;
    k = 0;
    for (int i = 0; i < m->n_io; i++) {
        const rknn_io *io = &m->io[i];
        if (!io->is_output)
            continue;
        int rank = 4;
        int64_t dims[4];
        float *f = io->tensor >= 0 && io->tensor < m->n_tensors && tensor_base[io->tensor]
                       ? lite_tensor(&m->tensors[io->tensor], &mem, tensor_base[io->tensor] - 1,
                                     dims, &rank)
                       : NULL;
        if (!f) {
            rc = rt_err(err, errlen, RT_EUNSUPPORTED, "emulate: output %s was not computed",
                        io->name ? io->name : "?");
            goto out;
        }
        /* [1, N, C] as [1, 1, N, C]: the result's dims are 4 */
        for (int d = 3; d >= 0; d--)
            res->out_dims[k][d] = d - (4 - rank) >= 0 ? dims[d - (4 - rank)] : 1;
        res->out[k] = f;
        if (!(res->out_names[k] = strdup(io->name ? io->name : ""))) {
            rc = rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
            goto out;
        }
        k++;
    }
    res->tasks_run = prog->n_tasks;
out:
    if (rc)
        emu_result_free(res);
    json_decref(index);
    free(mem.m);
    free(rs);
    free(node_base);
    free(node_done);
    free(node_left);
    free(tensor_base);
    return rc;
}
