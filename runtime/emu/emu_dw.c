/* runtime/emu/emu_dw.c — an int8 depthwise conv task of an rk3576 (layout f2)
 * Toolkit2 file: CNA mode code 1, the CORE, DPU and DPU_RDMA depthwise words
 * (docs/rknn-format.md "Depthwise on f2"). Read off rocket-userspace's vendor
 * captures (tests/data/rk3576-vendor-capture/dw, mkdw.py) and its RK3576 driver's
 * notes (src/npu_regcmd_rk3576.c at e0677862: the depthwise per-channel group of
 * 48 bytes, an int32 bias and an int16 multiplier per channel; the weights' zero
 * points ride in the weight cube instead). Per channel c and output pixel:
 *   acc = A[c] + sum over the window of x * (w - zp_w[c])   (x the input bytes,
 *         the pad value 0x1084 outside the tensor: the input's zero point)
 *   v   = round(acc * C[c] / 2^14)      (BN_CFG 0x903: no clamp; 0x902: the clamp pair,
 *                                        a fused Clip: emu_f2_clamp)
 *   y   = sat8(round(v * OUT_CVT_SCALE / 2^OUT_CVT_SHIFT) + OUT_CVT_OFFSET)
 * A task that is not one whole plane of every channel, or any stage beyond that,
 * stops the run. */
#include "runtime/emu/emu_internal.h"

#include <stdlib.h>

#define DW_GROUP 8          /* channels per group of per-channel words */
#define DW_GROUP_BYTES 48   /* 8 int32 biases, then 8 int16 multipliers */
#define DW_MUL_SHIFT 14     /* the BS multiplier's shift, as the f2 convs' */

/* A weight's zero point, negated, as its second byte holds it: -zp lies in
 * [-127, 128], so the byte 0x80 is +128 (a channel of weights all >= 0: zp -128) */
static int nzp(int8_t b)
{
    return b == -128 ? 128 : b;
}

int emu_run_dw(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len)
{
    const rknn_model *m = s->m;
    const rknn_node *nd = s->nd;
    const char *nn = s->nn;
    int ti = s->ti, rc = 0, xi, wi, bi, ei;
    act in, out;

    if (t->map != EMU_MAP_F2)
        STOP("task %d (node %s): depthwise tasks of this chip's files are not emulated", ti, nn);
    emu_node_operands(m, nd, &xi, &wi, &bi, &ei);
    if (nd->n_out != 1 || xi < 0 || wi < 0 || bi < 0 || ei >= 0 || tensor_act(s, xi, &in) ||
        tensor_act(s, nd->out[0], &out) || in.es != 1 || out.es != 1 || in.c != out.c)
        STOP("task %d (node %s): a depthwise conv whose input, weight, bias and output are not "
             "int8 activations of one channel count, an int8 weight and an int32 bias", ti, nn);
    if (t->in_prec != 0 || t->proc_prec != 0 || t->out_prec != 0)
        STOP("task %d (node %s): depthwise precisions in %s proc %s out %s: only int8 is "
             "emulated", ti, nn, emu_prec_name(t->in_prec), emu_prec_name(t->proc_prec),
             emu_prec_name(t->out_prec));
    /* the depthwise words (rocket-userspace's R76_*_DW): CORE 0xa, DPU feature mode
     * 0xc, WDMA 0x310, BS_CFG 0x13033 with the 16-channel group count - 1 (mod 4) in
     * bits 8..9, BRDMA 0x510, RDMA mode 0x12; the BS ALU word 0 */
    uint32_t bs_cfg = reg_or0(s->rs, s->grp, 0x4050);
    int groups16 = (in.c + 15) / 16;
    if (reg_or0(s->rs, s->grp, 0x3018) != 0x1000000a || reg_or0(s->rs, s->grp, 0x400c) != 0x4000000c ||
        (reg_or0(s->rs, s->grp, 0x4030) & 0xffff) != 0x310 || reg_or0(s->rs, s->grp, 0x4044) != 0 ||
        bs_cfg != (0x13033u | (uint32_t)((groups16 - 1) & 3) << 8) ||
        reg_or0(s->rs, s->grp, 0x501c) != 0x510 || reg_or0(s->rs, s->grp, 0x5044) != 0x40000012 ||
        (reg_or0(s->rs, s->grp, 0x4060) != 0x903 && reg_or0(s->rs, s->grp, 0x4060) != 0x902) ||
        (t->ew_present && !t->ew_bypass) || t->lut_used)
        STOP("task %d (node %s): depthwise words (CORE 0x%x, DPU mode 0x%x, BS_CFG 0x%x, BN_CFG "
             "0x%x, BRDMA 0x%x) or a stage in use: only a plain depthwise conv is emulated", ti, nn,
             reg_or0(s->rs, s->grp, 0x3018), reg_or0(s->rs, s->grp, 0x400c), bs_cfg,
             reg_or0(s->rs, s->grp, 0x4060), reg_or0(s->rs, s->grp, 0x501c));
    int kh = t->kh, kw = t->kw, sx = t->stride_x, sy = t->stride_y;
    int dx = t->dil_x > 0 ? t->dil_x : 1, dy = t->dil_y > 0 ? t->dil_y : 1;
    if (kh < 1 || kw < 1 || sx < 1 || sy < 1 || t->pad_top < 0 || t->pad_left < 0 ||
        t->in_w != in.w || t->in_h != in.h || t->out_w != out.w || t->out_h != out.h ||
        t->in_c_real != in.c || t->feature_addr != 0 || t->dst_addr != 0 || t->bs_addr != 0 ||
        t->out_cvt_shift < 0 || t->out_cvt_shift > 40 ||
        (out.h - 1) * sy + (kh - 1) * dy + 1 > in.h + t->pad_top + kh ||
        (out.w - 1) * sx + (kw - 1) * dx + 1 > in.w + t->pad_left + kw)
        STOP("task %d (node %s): a depthwise tile (in %dx%dx%d, out %dx%d, kernel %dx%d, "
             "stride %dx%d; tensors %dx%dx%d, %dx%d) is not emulated: only the whole plane", ti,
             nn, t->in_w, t->in_h, t->in_c_real, t->out_w, t->out_h, kw, kh, sx, sy, in.w, in.h,
             in.c, out.w, out.h);
    const rknn_tensor *wt = &m->tensors[wi], *bt = &m->tensors[bi];
    weight_blocks wb;
    int64_t groups = (in.c + DW_GROUP - 1) / DW_GROUP;
    /* the weight: blocks [1, IC1, kh, kw, 1, IC2] (up to 64 lanes: 112 channels are
     * 64 + 48), each weight in two bytes: a tap's channels in pairs, 4 bytes a pair,
     * the pair's two weights then their two channels' -zp_w (dw_c8_k3, zp 0: -128 -42
     * 0 0 42 127 0 0 ...; dw_c32_k1, one weight a channel: -128 -128 -127 -127 for zero
     * points 127), so element e of the blocks is byte 2e - e % 2, its -zp_w 2 on */
    if (emu_weight_blocks(wt, kh, kw, in.c, 1, &wb) || wb.ocp != 1 || wb.no != 1 ||
        wt->data_off < 0 || wt->data_len < 2 * wb.bytes ||
        (uint64_t)wt->data_off + 2 * (uint64_t)wb.bytes > len ||
        bt->data_off < 0 || bt->data_len < groups * DW_GROUP_BYTES ||
        (uint64_t)bt->data_off + (uint64_t)bt->data_len > len)
        STOP("task %d (node %s): depthwise weight %s or per-channel data %s does not hold %d "
             "channels of %dx%d", ti, nn, wt->name, bt->name, in.c, kw, kh);
    if (!s->mem->written[xi])
        STOP("task %d (node %s): its input was not computed", ti, nn);
    const int8_t *W = (const int8_t *)file + wt->data_off;
    const uint8_t *B = file + bt->data_off;
    int64_t lo, hi; /* BN_CFG 0x903: the full range; 0x902 the clamp, checked as the conv's */
    if ((rc = emu_f2_clamp(s, t, &lo, &hi)))
        goto out;
    /* the shift word of its BS configuration buffer (0x5024): 14 either sign, as taken */
    int pos, neg;
    if ((rc = emu_f2_bs_shifts(s, file, len, &pos, &neg)))
        goto out;
    if (pos != DW_MUL_SHIFT || neg != DW_MUL_SHIFT)
        STOP("task %d (node %s): depthwise BS shifts %d / %d (its configuration buffer): only "
             "%d is emulated", ti, nn, pos, neg, DW_MUL_SHIFT);
    int8_t padv = sat8(t->pad_value);
    for (int c = 0; c < in.c; c++) {
        const uint8_t *g = B + (int64_t)(c / DW_GROUP) * DW_GROUP_BYTES;
        int64_t bias = rd_i32(g + 4 * (c % DW_GROUP));
        int64_t mul = rd_i16(g + 4 * DW_GROUP + 2 * (c % DW_GROUP));
        for (int oy = 0; oy < out.h; oy++)
            for (int ox = 0; ox < out.w; ox++) {
                int64_t acc = bias;
                for (int ky = 0; ky < kh; ky++)
                    for (int kx = 0; kx < kw; kx++) {
                        int iy = oy * sy + ky * dy - t->pad_top, ix = ox * sx + kx * dx - t->pad_left;
                        int x = iy >= 0 && iy < in.h && ix >= 0 && ix < in.w
                                    ? in.p[act_off(&in, c, iy, ix)] : padv;
                        int64_t e = emu_weight_elem(&wb, 0, c, ky, kx), at = 2 * e - e % 2;
                        acc += (int64_t)x * (W[at] + nzp(W[at + 2]));
                    }
                int64_t v = rshift_round(acc * mul, DW_MUL_SHIFT);
                v = v < lo ? lo : v > hi ? hi : v;
                out.p[act_off(&out, c, oy, ox)] =
                    sat8(rshift_round(v * t->out_cvt_scale, t->out_cvt_shift) + t->out_cvt_offset);
            }
    }
    wrote(s, nd->out[0], 0, out.h);
out:
    return rc;
}
