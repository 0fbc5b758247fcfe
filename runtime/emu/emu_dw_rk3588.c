/* runtime/emu/emu_dw_rk3588.c — rk3588's BN-stage ReLUX (ReLU6 of a ConvClip) and
 * its int8 depthwise conv tasks (docs/rknn-format.md "ReLUX and depthwise on
 * rk3588"). Read off a toolkit 2.3.2 mobilenet_v2.rk3588 file; the register names
 * are the public RK3588 map's (Mesa rocket registers.xml: DPU_BN_CFG 0x4060 with
 * bn_relux_en at bit 7, DPU_BN_RELUX_CMP_VALUE 0x406c). */
#include "runtime/emu/emu_internal.h"

#include <stdlib.h>
#include <string.h>

/* BN_CFG 0x92: BN's ALU (bit 1) and multiplier (bit 4) bypassed, its ReLU on (bit 6
 * clear) with ReLUX (bit 7): v = min(max(v, 0), cmp) on the BS stage's result, cmp
 * in the same units (6.0 / (s_in * max s_w): 0x1cc2a = 117802 on mobilenet_v2's
 * Conv_0, whose OUT_CVT 22018 / 2^23 maps it to 309.2 output steps = 6.0 / 0.019405).
 * BN's ALU and MUL words must be 0 and no EW add beside it (whose order with the
 * clamp no file shows). */
int emu_rk3588_relux(const emu_step *s, const emu_task *t, int64_t *lo, int64_t *hi)
{
    int rc = 0;
    uint32_t bn = reg_or0(s->rs, s->grp, 0x4060), alu = reg_or0(s->rs, s->grp, 0x4064);
    uint32_t mul = reg_or0(s->rs, s->grp, 0x4068), cmp = reg_or0(s->rs, s->grp, 0x406c);
    if (t->map != EMU_MAP_RK3588 || bn != 0x92 || alu || mul || cmp == 0 || cmp > INT32_MAX ||
        (t->ew_present && !t->ew_bypass) || t->lut_used)
        STOP("task %d (node %s): BN stage in use (BN_CFG 0x%x, ALU 0x%x, MUL 0x%x, ReLUX "
             "compare 0x%x%s): only a ReLU alone (0x12) or ReLUX at a positive compare value "
             "(0x92) without an EW add is emulated", s->ti, s->nn, bn, alu, mul, cmp,
             t->ew_present && !t->ew_bypass ? ", beside an EW add" : "");
    *lo = 0;
    *hi = (int64_t)cmp;
out:
    return rc;
}

/* A depthwise weight's blocks [1, IC1, kh, kw, 1, IC2] (IC1 may be 0: mobilenet_v2's
 * 32 channels are [1,0,3,3,1,64, 1,1,3,3,1,32]), one byte an element, laid out
 * [IC1][kh][kw][IC2] one block after the other. */
int dw_blocks_of(const rknn_tensor *w, int kh, int kw, int channels, dw_blocks *b)
{
    if (!w->native || w->nnd < 6 || w->nnd % 6 || w->nnd / 6 > 8)
        return -1;
    memset(b, 0, sizeof *b);
    b->kh = kh;
    b->kw = kw;
    int64_t ic = 0;
    for (int k = 0; k < w->nnd / 6; k++) {
        const int64_t *s = w->native + 6 * k;
        if (s[0] != 1 || s[4] != 1 || s[2] != kh || s[3] != kw || s[1] < 0 || s[5] < 1 ||
            s[1] > 1 << 16 || s[5] > 1 << 16)
            return -1;
        if (!s[1])
            continue;
        b->ib[b->n] = (int)s[1];
        b->icp[b->n] = (int)s[5];
        b->ic0[b->n] = (int)ic;
        b->off[b->n] = b->bytes;
        b->bytes += s[1] * s[5] * kh * kw;
        ic += s[1] * s[5];
        b->n++;
    }
    return b->n && ic >= channels ? 0 : -1;
}

int64_t dw_elem(const dw_blocks *b, int c, int ky, int kx)
{
    int k = b->n - 1;
    while (k > 0 && c < b->ic0[k])
        k--;
    int i = c - b->ic0[k], i1 = i / b->icp[k], i2 = i % b->icp[k];
    return b->off[k] + (((int64_t)i1 * b->kh + ky) * b->kw + kx) * b->icp[k] + i2;
}

int emu_run_dw_rk3588(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len)
{
    const rknn_model *m = s->m;
    const rknn_node *nd = s->nd;
    const char *nn = s->nn;
    int ti = s->ti, rc = 0, xi, wi, bi, ei;
    act in, out;
    const int G = 8; /* per-channel words: the conv's groups of 8 (bias, -zp_w, multiplier) */
    emu_lut_stage *L = NULL; /* a LUT activation's tables and registers */

    emu_node_operands(m, nd, &xi, &wi, &bi, &ei);
    if (nd->n_out != 1 || xi < 0 || wi < 0 || bi < 0 || ei >= 0 || tensor_act(s, xi, &in) ||
        tensor_act(s, nd->out[0], &out) || in.es != 1 || out.es != 1 || in.c != out.c ||
        in.c2 != out.c2 || in.c2 < 1)
        STOP("task %d (node %s): a depthwise conv whose input, weight, bias and output are not "
             "int8 activations of one channel count, an int8 weight and an int32 bias", ti, nn);
    if (t->in_prec != 0 || t->proc_prec != 0 || t->out_prec != 0)
        STOP("task %d (node %s): depthwise precisions in %s proc %s out %s: only int8 is "
             "emulated", ti, nn, emu_prec_name(t->in_prec), emu_prec_name(t->proc_prec),
             emu_prec_name(t->out_prec));
    /* the depthwise words against a conv's (public RK3588 fields): CNA_CONV_CON1
     * conv_mode 3, CORE_MISC_CFG 3 (bit 1 DW_EN beside QD_EN; a conv writes 1),
     * DPU_FEATURE_MODE_CFG 0x1fc (conv_mode 3 at bits 3..4; a conv 0x1e4),
     * DPU_BS_OW_CFG 0x36d (size_e_0/1/2 3; a conv 0x125), DPU_RDMA_FEATURE_MODE_CFG
     * 0x7816 (conv_mode 3 at bits 1..2; a conv 0x7810); BS as a conv's: 0x20140 (ALU
     * add and multiplier per channel), BS_MUL_CFG 0xe01 (shift 14), BRDMA 0xe */
    uint32_t cna = reg_or0(s->rs, s->grp, 0x100c), core = reg_or0(s->rs, s->grp, 0x3010);
    uint32_t fm = reg_or0(s->rs, s->grp, 0x400c), ow = reg_or0(s->rs, s->grp, 0x4050);
    uint32_t rdma = reg_or0(s->rs, s->grp, 0x5044), bs = reg_or0(s->rs, s->grp, 0x4040);
    uint32_t bsm = reg_or0(s->rs, s->grp, 0x4048), brdma = reg_or0(s->rs, s->grp, 0x501c);
    uint32_t fmt = reg_or0(s->rs, s->grp, 0x4010), bn = reg_or0(s->rs, s->grp, 0x4060);
    uint32_t ew = reg_or0(s->rs, s->grp, 0x4070);
    /* with a LUT activation (yolov10n's depthwise ConvExSwish): the dense LUT conv's
     * BN and EW words (BN_CFG 0x20040: an ALU add of 0, then the register multiplier;
     * EW_CFG 0x302: the LUT) and DATA_FORMAT's BN shift for a negative product in bits
     * 10..15, equal to the positive one (0x40e0: 16) */
    int lut = t->lut_used;
    uint32_t bnmul = reg_or0(s->rs, s->grp, 0x4068);
    if ((cna & 0xf) != 3 || core != 3 || fm != 0x1fc || ow != 0x36d || rdma != 0x7816 ||
        bs != 0x20140 || bsm != 0xe01 || brdma != 0xe || reg_or0(s->rs, s->grp, 0x4044) != 0 ||
        reg_or0(s->rs, s->grp, 0x4054) != 0 || /* BS_OW_OP: the per-channel -zp_w alone */
        t->bs.mul_shift != 14 ||
        (!lut && (fmt != 0xe0 || ew != 0x383)) ||
        (lut && (ew != 0x302 || bn != 0x20040 || reg_or0(s->rs, s->grp, 0x4064) != 0 ||
                 (bnmul & 0xc0ff) != 0 || (bnmul >> 8 & 0x3f) < 1 ||
                 fmt != (0xe0 | (bnmul >> 8 & 0x3f) << 10))))
        STOP("task %d (node %s): depthwise words (CNA 0x%x, CORE 0x%x, DPU mode 0x%x, BS_OW "
             "0x%x, RDMA mode 0x%x, BS 0x%x / 0x%x, BRDMA 0x%x, DATA_FORMAT 0x%x, EW 0x%x): "
             "only mobilenet_v2.rk3588's and yolov10n's LUT form are emulated (BN 0x%x, BN_MUL "
             "0x%x)", ti, nn, cna, core, fm, ow, rdma, bs, bsm, brdma, fmt, ew, bn, bnmul);
    int64_t lo = INT32_MIN, hi = INT32_MAX;
    int64_t lmul = (int16_t)(bnmul >> 16);
    int lsh = (int)(bnmul >> 8 & 0x3f);
    if (lut) {
        if (!(L = malloc(sizeof *L)))
            STOP("task %d (node %s): out of memory", ti, nn);
        if (emu_lut_stage_load(m, file, len, s->st->lut, &s->mem->lut, s->rs, s->grp, L))
            STOP("task %d (node %s): LUT activation: its tables or LUT registers are not the "
                 "form emulated (two 513-entry tables, LUT_CFG 0x68)", ti, nn);
    } else if (bn == 0x12 && !reg_or0(s->rs, s->grp, 0x4064) && !reg_or0(s->rs, s->grp, 0x4068))
        lo = 0; /* a ReLU alone */
    else if (bn != 0x53 && (rc = emu_rk3588_relux(s, t, &lo, &hi)))
        goto out;
    /* a tile: the channels from the first whole C2 surface the feature and destination
     * addresses name (the same for both), its rows from the remainder */
    int kh = t->kh, kw = t->kw, sx = t->stride_x, sy = t->stride_y, nc = t->in_c_real;
    int dx = t->dil_x > 0 ? t->dil_x : 1, dy = t->dil_y > 0 ? t->dil_y : 1;
    int64_t in_row = (int64_t)in.w * in.c2, in_surf = in_row * in.h;
    int64_t out_row = (int64_t)out.w * out.c2, out_surf = out_row * out.h;
    if (in_surf <= 0 || out_surf <= 0 || t->feature_addr < 0 || t->dst_addr < 0 ||
        t->feature_addr % in_surf % in_row || t->dst_addr % out_surf % out_row ||
        t->feature_addr / in_surf > in.c || t->dst_addr / out_surf > out.c)
        STOP("task %d (node %s): depthwise feature 0x%llx / destination 0x%llx are not row "
             "offsets into the node's tensors", ti, nn, (long long)t->feature_addr,
             (long long)t->dst_addr);
    int c0 = (int)(t->feature_addr / in_surf) * in.c2;
    int y0i = (int)(t->feature_addr % in_surf / in_row);
    int y0o = (int)(t->dst_addr % out_surf / out_row);
    if (kh < 1 || kw < 1 || sx < 1 || sy < 1 || t->pad_top < 0 || t->pad_left < 0 || nc < 1 ||
        (int)(t->dst_addr / out_surf) * out.c2 != c0 || c0 % G || c0 + nc > in.c ||
        t->in_w != in.w || t->out_w != out.w || t->in_h < 1 || t->out_h < 1 ||
        y0i + t->in_h > in.h || y0o + t->out_h > out.h || t->out_cvt_shift < 0 ||
        t->out_cvt_shift > 40 || t->bs_addr != (int64_t)c0 * 8)
        STOP("task %d (node %s): a depthwise tile (channels %d+%d, rows %d+%d of %d, in %dx%d, "
             "out %dx%d, kernel %dx%d, stride %dx%d, per-channel words at 0x%llx) is not "
             "emulated", ti, nn, c0, nc, y0o, t->out_h, out.h, t->in_w, t->in_h, t->out_w,
             t->out_h, kw, kh, sx, sy, (long long)t->bs_addr);
    const rknn_tensor *wt = &m->tensors[wi], *bt = &m->tensors[bi];
    dw_blocks wb;
    int64_t groups = (in.c + G - 1) / G;
    if (dw_blocks_of(wt, kh, kw, in.c, &wb) || wt->data_off < 0 || wt->data_len < wb.bytes ||
        (uint64_t)wt->data_off + (uint64_t)wb.bytes > len || bt->data_off < 0 ||
        bt->data_len < groups * G * 8 || (uint64_t)bt->data_off + (uint64_t)bt->data_len > len ||
        t->weight_addr != dw_elem(&wb, c0, 0, 0))
        STOP("task %d (node %s): depthwise weight %s (at 0x%llx) or per-channel data %s does "
             "not hold %d channels of %dx%d from channel %d", ti, nn, wt->name,
             (long long)t->weight_addr, bt->name, in.c, kw, kh, c0);
    if (!s->mem->written[xi])
        STOP("task %d (node %s): its input was not computed", ti, nn);
    const int8_t *W = (const int8_t *)file + wt->data_off;
    const uint8_t *B = file + bt->data_off;
    /* CNA_PAD_CON1 of a depthwise task: the int8 pad value in both bytes of the low
     * half, sign-extended (0xffff8787 for zero point -121, 0x00000a0a for +10; a conv
     * writes 0xffffff87) */
    uint32_t pw = reg_or0(s->rs, s->grp, 0x1184);
    int8_t padv = (int8_t)(pw & 0xff);
    if (!t->has_pad_value || (pw & 0xffff) != (pw & 0xff) * 0x101u ||
        (pw >> 16) != (padv < 0 ? 0xffffu : 0))
        STOP("task %d (node %s): depthwise pad value 0x%x: the pad byte twice, sign-extended, "
             "is the form emulated", ti, nn, pw);
    for (int c = c0; c < c0 + nc; c++) {
        const uint8_t *g = B + (int64_t)(c / G) * G * 8;
        int j = c % G;
        int64_t bias = rd_i32(g + 4 * j), nzp = rd_i16(g + 4 * G + 2 * j);
        int64_t mul = rd_i16(g + 6 * G + 2 * j);
        for (int oy = 0; oy < t->out_h; oy++)
            for (int ox = 0; ox < out.w; ox++) {
                int64_t acc = bias;
                for (int ky = 0; ky < kh; ky++)
                    for (int kx = 0; kx < kw; kx++) {
                        /* rows of the tile: the pad value outside them */
                        int ly = oy * sy + ky * dy - t->pad_top;
                        int ix = ox * sx + kx * dx - t->pad_left;
                        int x = ly >= 0 && ly < t->in_h && ix >= 0 && ix < in.w
                                    ? in.p[act_off(&in, c, y0i + ly, ix)] : padv;
                        acc += (int64_t)x * (W[dw_elem(&wb, c, ky, kx)] + nzp);
                    }
                if (acc < INT32_MIN || acc > INT32_MAX)
                    STOP("task %d (node %s): accumulator %lld overflows int32 (channel %d)", ti,
                         nn, (long long)acc, c);
                int64_t v = rshift_round(acc * mul, 14);
                if (L) /* BN: the register multiplier, then the LUT (as a dense LUT conv) */
                    v = emu_lut_eval(L, rshift_round(v * lmul, lsh));
                else
                    v = v < lo ? lo : v > hi ? hi : v;
                out.p[act_off(&out, c, y0o + oy, ox)] =
                    sat8(rshift_round(v * t->out_cvt_scale, t->out_cvt_shift) + t->out_cvt_offset);
            }
    }
    /* the output counts as written once a tile ran (as a conv's row tiles) */
    wrote(s, nd->out[0], y0o, y0o + t->out_h);
out:
    free(L);
    return rc;
}
