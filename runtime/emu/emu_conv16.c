/* runtime/emu/emu_conv16.c — a float16 conv task of a Toolkit2 file (CNA input,
 * processing and DPU output precision fp16, code 2): the form the SDK's custom-op
 * demo (dual_residual_custom.rknn, rk3588) compiles its two 1x1 convs to, with
 * every DPU stage bypassed (BS, BN, EW) and OUT_CVT the identity (scale 1, shift 0,
 * offset 0). Per output: y = fp16(sum x * w), the products of float16 values
 * summed in float32 (the accumulation width is our reading; the demo's identity
 * weights make its outputs exact either way). On rk3576 (f2) a conv over a cube
 * adds its float32 bias in the BS stage (read by the DPU_RDMA's BS reader, the
 * bias tensor at the BS base address, 4 bytes a channel: rocket-userspace's
 * float captures; on rk3588 the BS stage's per-channel add, the same float32 bias):
 * y = fp16(sum x * w + b), then f2's activation stage (emu_act.c: a PReLU in BS, a
 * clamp, the LUT). Another stage or converter stops the run with the stage it met. */
#include "runtime/emu/emu_internal.h"

#include <stdlib.h>
#include <string.h>

int emu_run_conv16(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len)
{
    const rknn_model *m = s->m;
    const rknn_node *nd = s->nd;
    const char *nn = s->nn;
    int ti = s->ti, rc = 0;
    int xi = -1, wi = -1, bi = -1;
    act in, out;
    float *Wk = NULL;
    emu_f2_act *fa = NULL; /* f2/f3: the activation stage (emu_act.c) */

    for (int k = 0; k < nd->n_in; k++) {
        const rknn_tensor *x = &m->tensors[nd->in[k]];
        int is_const = x->data_off >= 0 && x->data_len > 0;
        if (!is_const && xi < 0)
            xi = nd->in[k];
        else if (is_const && x->nnd >= 6 && x->nnd % 6 == 0 && wi < 0)
            wi = nd->in[k];
        else if (is_const && x->dtype == DT_FLOAT && x->nd == 1 && bi < 0)
            bi = nd->in[k];
        else
            STOP("task %d (node %s): a float16 conv with an operand other than its input, "
                 "weight and float32 bias (%s: a second input) is not emulated", ti, nn, x->name);
    }
    /* the bias is read where the DPU_RDMA's BS reader is on (f2's float programs:
     * BRDMA_CFG 0x100; the demo's bias-free convs write no DPU_RDMA word) */
    uint32_t brdma = reg_or0(s->rs, s->grp, 0x501c);
    int f2 = t->map == EMU_MAP_F2 || t->map == EMU_MAP_F3;
    /* rk3588 (toolkit 2.3.2's float16 Linear, linear_128_to_4.rknn): the BS stage adds
     * it, BS_CFG 0x20150 (ALU add of a per-channel operand; multiplier and ReLU
     * bypassed) with BRDMA_CFG 0x2 (the reader fetches the ALU operand alone) and no
     * register operand or multiplier */
    int bs_bias = t->map == EMU_MAP_RK3588 && brdma == 0x2 &&
                  reg_or0(s->rs, s->grp, 0x4040) == 0x20150 && !reg_or0(s->rs, s->grp, 0x4044) &&
                  !reg_or0(s->rs, s->grp, 0x4048);
    int add_bias = (t->map == EMU_MAP_F2 && (brdma == 0x100 || brdma == 0x108)) || bs_bias;
    if (add_bias != (bi >= 0))
        STOP("task %d (node %s): float16 conv %s a bias tensor with DPU_RDMA BRDMA_CFG 0x%x: "
             "only a float32 bias read by f2's float BS reader (0x100, 0x108) or added by "
             "rk3588's BS stage (0x2, BS_CFG 0x20150) is emulated", ti,
             nn, bi >= 0 ? "with" : "without", brdma);
    if (nd->n_out != 1 || xi < 0 || wi < 0 || tensor_act(s, xi, &in) ||
        tensor_act(s, nd->out[0], &out) || in.es != 2 || out.es != 2)
        STOP("task %d (node %s): a float16 conv whose input, weight and output are not float16 "
             "activations and a weight of native blocks", ti, nn);
    /* rk3566/rk3568 write CNA processing code 4 in the demo's fp16 convs, CORE fp16 */
    int proc16 = t->proc_prec == 2 || (t->map == EMU_MAP_RK356X && t->proc_prec == 4);
    if (t->in_prec != 2 || !proc16 || t->out_prec != 2)
        STOP("task %d (node %s): precisions in %s proc %s out %s: float16 throughout is the "
             "mixed form emulated", ti, nn, emu_prec_name(t->in_prec),
             emu_prec_name(t->proc_prec), emu_prec_name(t->out_prec));
    /* f2/f3: the BS PReLU, the clamp and the LUT (emu_act.c), which checks their words */
    if (f2) {
        if (!(fa = malloc(sizeof *fa)))
            STOP("task %d (node %s): out of memory", ti, nn);
        if ((rc = emu_f2_act_load(s, t, file, len, fa)))
            goto out;
    }
    int lut = fa && fa->kind == EMU_ACT_LUT;
    if (t->lut_used || (t->bs.present && !t->bs.bypass && !bs_bias) ||
        (t->bn.present && !t->bn.bypass) ||
        (t->ew_present && !t->ew_bypass && !lut) ||
        (!lut && (t->out_cvt_scale != 1 || t->out_cvt_shift != 0 || t->out_cvt_offset != 0)))
        STOP("task %d (node %s): float16 conv with a DPU stage in use (BS %d, BN %d, EW %d, "
             "LUT %d, OUT_CVT scale %lld shift %d offset %lld): only every stage bypassed is "
             "emulated", ti, nn, t->bs.present && !t->bs.bypass, t->bn.present && !t->bn.bypass,
             t->ew_present && !t->ew_bypass, t->lut_used, (long long)t->out_cvt_scale,
             t->out_cvt_shift, (long long)t->out_cvt_offset);
    /* f2's surface add: the next channel group's jump (0x64 = 2 x 100 - 10 x 10 on the
     * rk3576 demo's whole 10x10 plane, 0x96 on its 5-row tiles; the int8 samples' too) */
    if (t->surface_add >= 0 && t->surface_add != 2 * t->dst_surf_stride - (int64_t)t->out_w * t->out_h)
        STOP("task %d (node %s): DPU surface add %lld for a %dx%d tile of a surface of %lld: "
             "not the layout the run writes", ti, nn, (long long)t->surface_add, t->out_w,
             t->out_h, (long long)t->dst_surf_stride);
    if (t->has_pad_value && t->pad_value != 0)
        STOP("task %d (node %s): float16 pad value 0x%x: only 0 is emulated", ti, nn,
             (unsigned)t->pad_value);
    if (t->in_w != in.w || t->in_c_real != in.c || t->out_w != out.w || t->kernels < 1 ||
        t->out_c_orig != t->kernels || t->kernels > out.c)
        STOP("task %d (node %s): a tile of the width or the input channels (in %dx%d, out %dx%d, "
             "%d kernels; tensors %dx%d, %dx%d) is not emulated", ti, nn, t->in_w, t->in_c_real,
             t->out_w, t->out_c_orig, t->kernels, in.w, in.c, out.w, out.c);
    int kh = t->kh, kw = t->kw;
    const rknn_tensor *wt = &m->tensors[wi];
    weight_blocks wb; /* in elements (2 bytes each) */
    if (kh < 1 || kw < 1 || t->stride_x < 1 || t->stride_y < 1 || t->pad_top < 0 ||
        t->pad_left < 0 || emu_weight_blocks(wt, kh, kw, in.c, out.c, &wb))
        STOP("task %d (node %s): weight %s: native shape does not fit the task's kernel %dx%d, "
             "%d to %d channels", ti, nn, wt->name, kh, kw, in.c, out.c);
    int y0i, y0o, oc0, noc = t->kernels;
    if ((rc = emu_conv_tile(s, t, &m->tensors[xi], &in, &out, &y0i, &y0o, &oc0)))
        goto out;
    int64_t per_kernel = wb.per_kernel * 2, tile = emu_weight_tile(&wb, oc0);
    if (tile < 0 || t->weight_addr != tile * 2 ||
        (t->weight_bytes >= 0 && t->weight_bytes != per_kernel * noc) ||
        (t->weight_bytes_per_kernel >= 0 && t->weight_bytes_per_kernel != per_kernel))
        STOP("task %d (node %s): weight address 0x%llx and sizes %lld (%lld a kernel) are not the "
             "%d kernels from channel %d of the float16 blocks", ti, nn,
             (long long)t->weight_addr, (long long)t->weight_bytes,
             (long long)t->weight_bytes_per_kernel, noc, oc0);
    if (wt->data_off < 0 || wt->data_len < wb.bytes * 2 ||
        (uint64_t)wt->data_off + (uint64_t)wb.bytes * 2 > len)
        STOP("task %d (node %s): weight %s outside the file", ti, nn, wt->name);
    const uint8_t *W = file + wt->data_off, *B = NULL;
    if (bi >= 0) {
        const rknn_tensor *bt = &m->tensors[bi];
        if (bt->shape[0] < out.c || t->bs_addr < 0 || t->bs_addr % 4 ||
            bt->data_len < t->bs_addr + 4 * (int64_t)noc ||
            (uint64_t)bt->data_off + (uint64_t)bt->data_len > len)
            STOP("task %d (node %s): bias %s (%lld bytes) does not hold the %d channels from "
                 "the BS base address 0x%llx", ti, nn, bt->name, (long long)bt->data_len, noc,
                 (long long)t->bs_addr);
        B = file + bt->data_off + t->bs_addr;
    }
    int64_t taps = (int64_t)kh * kw * in.c;
    Wk = malloc(sizeof(float) * (size_t)(noc * taps + 1));
    if (!Wk)
        STOP("task %d (node %s): out of memory", ti, nn);
    for (int o = 0; o < noc; o++)
        for (int ky = 0; ky < kh; ky++)
            for (int kx = 0; kx < kw; kx++)
                for (int ic = 0; ic < in.c; ic++) {
                    const uint8_t *e = W + 2 * emu_weight_elem(&wb, oc0 + o, ic, ky, kx);
                    Wk[(int64_t)o * taps + ((int64_t)ky * kw + kx) * in.c + ic] =
                        rt_f16_to_f32((uint16_t)(e[0] | e[1] << 8));
                }
    int dx = t->dil_x > 0 ? t->dil_x : 1, dy = t->dil_y > 0 ? t->dil_y : 1;
    for (int oy = 0; oy < t->out_h; oy++)
        for (int ox = 0; ox < t->out_w; ox++)
            for (int o = 0; o < noc && oc0 + o < out.c; o++) {
                const float *wk = Wk + (int64_t)o * taps;
                float acc = 0;
                for (int ky = 0; ky < kh; ky++)
                    for (int kx = 0; kx < kw; kx++) {
                        int iy = oy * t->stride_y + ky * dy - t->pad_top;
                        int ix = ox * t->stride_x + kx * dx - t->pad_left;
                        if (iy < 0 || iy >= t->in_h || ix < 0 || ix >= t->in_w)
                            continue; /* the pad value, 0 */
                        for (int ic = 0; ic < in.c; ic++)
                            acc += rt_f16_to_f32(act_f16(&in)[act_off(&in, ic, y0i + iy, ix)]) *
                                   wk[((int64_t)ky * kw + kx) * in.c + ic];
                    }
                if (B) { /* the BS stage after the MAC array */
                    uint32_t u = rd_u32(B + 4 * (int64_t)o);
                    float b;
                    memcpy(&b, &u, sizeof b);
                    acc += b;
                }
                if (fa)
                    acc = emu_f2_act_float(fa, acc);
                act_f16(&out)[act_off(&out, oc0 + o, y0o + oy, ox)] = rt_f32_to_f16(acc);
            }
    wrote(s, nd->out[0], y0o, y0o + t->out_h);
out:
    free(Wk);
    free(fa);
    return rc;
}
