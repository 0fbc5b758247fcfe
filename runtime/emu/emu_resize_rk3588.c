/* runtime/emu/emu_resize_rk3588.c — rk3588's bilinear Resize (mode linear,
 * half_pixel; pp_human_segv2 under toolkit 2.x), as the compiler splits it
 * (docs/rknn-format.md "Bilinear Resize on rk3588"):
 *   1. DPU-only strided copies build a padded scratch tensor (the file's
 *      "<input>_exSecondary", one pixel wider on each side): the input into its
 *      interior, then its edge rows and columns copied one pixel out (clamping);
 *   2. one 2x2 depthwise conv per output phase over a window of the scratch
 *      (the phase's bilinear weights, quantized), each written to every S-th
 *      pixel of every S-th row of the output (S the scale).
 * Every address comes from the file's address patches (which tensor, which
 * offset); the register names are the public RK3588 map's (Mesa rocket
 * registers.xml: DPU_DATA_CUBE_NOTCH_ADDR 0x4038, WDMA_SIZE_0/1 0x4058/0x405c,
 * SURFACE_ADD 0x40c0, RDMA_SRC_DMA_CFG 0x5048 with line_notch_addr at bits
 * 19..31, RDMA_SURF_NOTCH 0x504c). */
#include "runtime/emu/emu_internal.h"

#include <string.h>

#define R(a) reg_or0(s->rs, s->grp, (a))

/* The tensor the file's address patch puts at register addr of the task (its last
 * write there), *off the written value: the offset into that tensor (the patch's own
 * offset is the same number in pp_human_segv2); -1 when no patch names a tensor. */
static int patched(const emu_step *s, uint16_t addr, int64_t *off)
{
    const emu_stream *st = s->st;
    if (!st || st->entry0 < 0)
        return -1;
    for (int r = st->n_regs - 1; r >= 0; r--) {
        if (st->regs[r].addr != addr)
            continue;
        uint32_t o = 0;
        int ti = rknn_reloc_at(s->m, st->entry0 + r, &o);
        if (ti < 0 || ti >= s->m->n_tensors)
            return -1;
        *off = (int64_t)st->regs[r].value;
        return ti;
    }
    return -1;
}

/* 1 when node nd is a Resize the compiler made of copies and depthwise convs */
int emu_resize_linear(const rknn_node *nd, const emu_task *t)
{
    return t->map == EMU_MAP_RK3588 && nd->type && !strcmp(nd->type, "Resize") &&
           nd->mode && !strcmp(nd->mode, "linear") && nd->coord_mode &&
           !strcmp(nd->coord_mode, "half_pixel") &&
           (t->op == EMU_OP_ELTWISE || t->op == EMU_OP_DEPTHWISE);
}

/* the bytes of a tensor's buffer (int8, C2 lanes) as [surfaces][...] */
static int raw_of(const emu_step *s, int ti, act *a)
{
    return tensor_act(s, ti, a) || a->es != 1 ? -1 : 0;
}

/* A copy: W x H pixels of C channels from source to destination, each one C2
 * atom (16 bytes); rows W + line notch apart, surfaces (C2 channels) the RDMA's
 * rows plus RDMA_SURF_NOTCH bytes apart at the source, DST_SURF_STRIDE at the
 * destination; every DPU stage bypassed, OUT_CVT the identity: bytes pass as
 * they are. */
static int run_copy(const emu_step *s, const emu_task *t)
{
    int rc = 0;
    act a, b;
    int64_t so = 0, doff = 0;
    int si = patched(s, 0x5018, &so), di = patched(s, 0x4020, &doff);
    uint32_t w = (R(0x500c) & 0x1fff) + 1, h = (R(0x5010) & 0x1fff) + 1;
    uint32_t c = (R(0x5014) & 0x1fff) + 1;
    uint32_t ww = (R(0x405c) & 0xffff) + 1, wh = (R(0x405c) >> 16) + 1, wc = R(0x4058) + 1;
    uint32_t notch = R(0x4038), dma = R(0x5048);
    int64_t sln = dma >> 19, snotch = R(0x504c), dsurf = R(0x4024);
    emu_chip_words cw = emu_chip_words_of(t);
    if (R(0x400c) != cw.feature_mode || R(0x4010) != 0 || R(0x5044) != cw.rdma_mode ||
        (dma & 0x7ffff) || R(0x4040) != 0x53 || R(0x4060) != 0x53 || R(0x4070) != 0x383 ||
        R(0x4080) != 0 || R(0x4084) != 1 || R(0x4088) != 0 || (notch & 0xffff) != notch >> 16 ||
        ww != w || wh != h || wc != c || R(0x40c0) != dsurf)
        STOP("task %d (node %s): DPU-only task (FEATURE_MODE 0x%x, DATA_FORMAT 0x%x, RDMA mode "
             "0x%x, DMA 0x%x, BS 0x%x, BN 0x%x, EW 0x%x, OUT_CVT 0x%x/0x%x/%u, notch 0x%x): not "
             "a strided copy of a bilinear Resize as emulated", s->ti, s->nn, R(0x400c),
             R(0x4010), R(0x5044), dma, R(0x4040), R(0x4060), R(0x4070), R(0x4084), R(0x4080),
             R(0x4088), notch);
    if (si < 0 || di < 0 || raw_of(s, si, &a) || raw_of(s, di, &b) || a.c2 != b.c2 ||
        (int64_t)c > (int64_t)a.c2 * ((a.c + a.c2 - 1) / a.c2))
        STOP("task %d (node %s): copy source or destination is not a patched int8 activation",
             s->ti, s->nn);
    const rknn_tensor *x = &s->m->tensors[si], *y = &s->m->tensors[di];
    if (!x->has_quant || !y->has_quant || x->scale != y->scale || x->zero_point != y->zero_point)
        STOP("task %d (node %s): copy between tensors of different quantization", s->ti, s->nn);
    if (!s->mem->written[si])
        STOP("task %d (node %s): its source %s was not computed", s->ti, s->nn, x->name);
    int64_t e = a.c2, dln = notch & 0xffff;
    int64_t ssurf = (((int64_t)h - 1) * (w + sln) + w) * e + snotch;
    int ns = (int)((c + e - 1) / e);
    for (int k = 0; k < ns; k++)
        for (uint32_t yy = 0; yy < h; yy++)
            for (uint32_t xx = 0; xx < w; xx++) {
                int64_t from = so + k * ssurf + ((int64_t)yy * (w + sln) + xx) * e;
                int64_t to = doff + k * dsurf + ((int64_t)yy * (w + dln) + xx) * e;
                if (from < 0 || to < 0 || from + e > a.bytes || to + e > b.bytes)
                    STOP("task %d (node %s): copy outside its tensors", s->ti, s->nn);
                memcpy(b.p + to, a.p + from, (size_t)e);
            }
    s->mem->written[di] = 1;
    s->rows[0] = s->rows[1] = 0;
out:
    return rc;
}

/* A phase's depthwise conv: input a window of the scratch tensor (feature address:
 * surface, row, column), a kw x kh kernel per channel (the weight tensor patched at
 * CNA 0x1110, int8, its blocks as a depthwise conv's, from its start: a channel
 * group of the task's channels; pp_human_segv2's 128-channel Resize runs its two
 * 64-channel halves with the same weight and bias tensors) each plus BS_OW_OP 0x4054
 * (0x80: BS_OW_CFG 0x36c, bit 0 clear, takes the register operand where a depthwise
 * conv's 0x36d takes a per-channel word: the weights -101, -47, -47, 115 of a 2x
 * phase become 27, 81, 81, 243, in ratio 1:3:3:9), BS adds the int32 per-channel
 * word of the tensor patched at 0x5020, from its start too (BS_CFG 0x20150: ALU add
 * per channel, the multiplier bypassed), OUT_CVT requantizes; pixel (i, j) of the
 * task's surface k goes to destination + k * DST_SURF_STRIDE + i * SURFACE_ADD +
 * j * (1 + notch) C2 atoms. */
static int run_phase(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len)
{
    int rc = 0;
    act a, b;
    int64_t fo = 0, doff = 0, wo = 0, bo = 0;
    int xi = patched(s, 0x1070, &fo), di = patched(s, 0x4020, &doff);
    int wi = patched(s, 0x1110, &wo), bi = patched(s, 0x5020, &bo);
    uint32_t notch = R(0x4038), pw = R(0x1184);
    int64_t dsurf = R(0x4024), sadd = R(0x40c0);
    if ((R(0x100c) & 0xf) != 3 || R(0x3010) != 3 || R(0x400c) != 0x1fc || R(0x5044) != 0x7816 ||
        R(0x4040) != 0x20150 || R(0x501c) != 2 || R(0x4050) != 0x36c || (R(0x4054) >> 16) ||
        R(0x4060) != 0x53 || R(0x4070) != 0x383 ||
        (notch & 0xffff) != notch >> 16 || t->stride_x != 1 || t->stride_y != 1 ||
        t->pad_top || t->pad_left || t->in_prec || t->proc_prec || t->out_prec ||
        t->out_cvt_shift < 0 || t->out_cvt_shift > 40 || (pw & 0xffff) != (pw & 0xff) * 0x101u)
        STOP("task %d (node %s): depthwise words (CNA 0x%x, CORE 0x%x, DPU mode 0x%x, RDMA mode "
             "0x%x, BS 0x%x, BRDMA 0x%x, BN 0x%x, EW 0x%x, notch 0x%x): not a bilinear Resize "
             "phase as emulated", s->ti, s->nn, R(0x100c), R(0x3010), R(0x400c), R(0x5044),
             R(0x4040), R(0x501c), R(0x4060), R(0x4070), notch);
    if (xi < 0 || di < 0 || wi < 0 || bi < 0 || raw_of(s, xi, &a) || raw_of(s, di, &b) ||
        a.c2 != b.c2 || di != s->nd->out[0] || wo || bo)
        STOP("task %d (node %s): phase input, output, weight or bias not patched as emulated",
             s->ti, s->nn);
    const rknn_tensor *wt = &s->m->tensors[wi], *bt = &s->m->tensors[bi];
    int kh = t->kh, kw = t->kw, e = a.c2, nc = t->in_c_real;
    int64_t in_row = (int64_t)a.w * e, in_surf = in_row * a.h;
    if (in_surf <= 0 || fo / in_surf * e >= a.c)
        STOP("task %d (node %s): phase feature 0x%llx outside %s", s->ti, s->nn, (long long)fo,
             s->m->tensors[xi].name);
    int k0 = (int)(fo / in_surf), wy = (int)(fo % in_surf / in_row), wx = (int)(fo % in_row / e);
    int c0 = k0 * e;
    dw_blocks wb;
    if (fo % e || kh < 1 || kw < 1 || nc < 1 || c0 + nc > a.c || wx + t->in_w > a.w ||
        t->line_stride != a.w ||
        wy + t->in_h > a.h || t->out_w != t->in_w - kw + 1 || t->out_h != t->in_h - kh + 1 ||
        dw_blocks_of(wt, kh, kw, nc, &wb) || wt->data_off < 0 || wt->data_len < wb.bytes ||
        (uint64_t)wt->data_off + (uint64_t)wb.bytes > len || t->weight_addr != 0 ||
        bt->data_off < 0 || bt->data_len < 4LL * nc ||
        (uint64_t)bt->data_off + (uint64_t)bt->data_len > len || t->bs_addr != 0)
        STOP("task %d (node %s): a phase (window %d,%d of %s, channels %d+%d, in %dx%d, out "
             "%dx%d, kernel %dx%d, weight 0x%llx, bias 0x%llx) is not emulated", s->ti, s->nn,
             wy, wx, s->m->tensors[xi].name, c0, nc, t->in_w, t->in_h, t->out_w, t->out_h, kw,
             kh, (long long)t->weight_addr, (long long)t->bs_addr);
    if (!s->mem->written[xi])
        STOP("task %d (node %s): its input %s was not computed", s->ti, s->nn,
             s->m->tensors[xi].name);
    const int8_t *W = (const int8_t *)file + wt->data_off;
    const uint8_t *B = file + bt->data_off;
    int64_t wofs = (int16_t)R(0x4054);
    for (int c = c0; c < c0 + nc; c++) {
        int64_t bias = rd_i32(B + 4 * (c - c0));
        for (int i = 0; i < t->out_h; i++)
            for (int j = 0; j < t->out_w; j++) {
                int64_t acc = bias;
                for (int ky = 0; ky < kh; ky++)
                    for (int kx = 0; kx < kw; kx++)
                        acc += (int64_t)a.p[act_off(&a, c, wy + i + ky, wx + j + kx)] *
                               (W[dw_elem(&wb, c - c0, ky, kx)] + wofs);
                int64_t to = doff + (int64_t)(c / e - k0) * dsurf + i * sadd +
                             (int64_t)j * (1 + (notch & 0xffff)) * e + c % e;
                if (to < 0 || to >= b.bytes)
                    STOP("task %d (node %s): phase output outside its tensor", s->ti, s->nn);
                b.p[to] = sat8(rshift_round(acc * t->out_cvt_scale, t->out_cvt_shift) +
                               t->out_cvt_offset);
            }
    }
    wrote(s, di, 0, b.h);
out:
    return rc;
}

int emu_run_resize_linear(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len)
{
    return t->op == EMU_OP_ELTWISE ? run_copy(s, t) : run_phase(s, t, file, len);
}
