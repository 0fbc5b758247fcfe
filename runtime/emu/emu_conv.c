/* runtime/emu/emu_conv.c — a conv task of a Toolkit2 file (emu_internal.h): the
 * CNA reading the input and the weights (in their native blocks, decompressed
 * when CNA_DCOMP_CTRL says so), the DPU's bias, EW, BN and LUT stages, OUT_CVT. */
#include "runtime/emu/emu_internal.h"
#include "runtime/model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void emu_node_operands(const rknn_model *m, const rknn_node *nd, int *x, int *w, int *b, int *e)
{
    *x = *w = *b = *e = -1;
    for (int k = 0; k < nd->n_in; k++) {
        const rknn_tensor *t = &m->tensors[nd->in[k]];
        int is_const = t->data_off >= 0 && t->data_len > 0;
        if (!is_const && *x < 0)
            *x = nd->in[k];
        else if (!is_const && *e < 0)
            *e = nd->in[k];
        else if (is_const && t->nnd >= 6 && t->nnd % 6 == 0 && *w < 0)
            *w = nd->in[k];
        else if (is_const && t->dtype == DT_INT32 && *b < 0)
            *b = nd->in[k];
    }
}

int emu_lut_stage_load(const rknn_model *m, const uint8_t *file, size_t len, int lut,
                       const emu_lut *loaded, const regstate *rs, int grp, emu_lut_stage *L)
{
    const rknn_tensor *t = lut >= 0 && lut < m->n_tensors ? &m->tensors[lut] : NULL;
    emu_lut l = {0};
    if (t) {
        if (t->data_off < 0 || t->data_len < 0 || (uint64_t)t->data_off > len ||
            (uint64_t)t->data_len > len - (uint64_t)t->data_off)
            return -1;
        for (int64_t k = 0; k + 8 <= t->data_len; k += 8) {
            const uint8_t *e = file + t->data_off + k; /* model-1 entry: 0, address, value */
            emu_lut_take(&l, (uint32_t)e[2] | (uint32_t)e[3] << 8, rd_u32(e + 4));
        }
        loaded = &l;
    }
    if (loaded->n_le < LUT_N || loaded->n_lo < LUT_N)
        return -1;
    memcpy(L->le, loaded->le, sizeof L->le);
    memcpy(L->lo, loaded->lo, sizeof L->lo);
    static const uint16_t need[] = {0x4108, 0x410c, 0x4110, 0x4114, 0x4118, 0x411c,
                                    0x4120, 0x4124, 0x4128, 0x412c};
    for (size_t k = 0; k < sizeof need / sizeof need[0]; k++)
        if (!rs->set[grp][need[k] / 4])
            return -1;
#define R(a) rs->val[grp][(a) / 4]
    /* the one configuration seen (yolov8n, 127 tasks; toolkit 2.3.0's rk3588
     * ExSwish): LUT_CFG 0x68, LE index offset 0, equal index shifts, LE ending where
     * LO starts, 512 intervals each */
    if (R(0x4108) != 0x68 || (R(0x410c) & 0xff))
        return -1;
    L->le_shift = (int)(R(0x410c) >> 8 & 0xff);
    L->lo_shift = (int)(R(0x410c) >> 16 & 0xff);
    L->le_start = (int32_t)R(0x4110);
    L->le_end = (int32_t)R(0x4114);
    L->lo_start = (int32_t)R(0x4118);
    L->lo_end = (int32_t)R(0x411c);
    if (L->le_shift > 20 || L->lo_shift > 20 || L->le_end != L->lo_start ||
        L->le_end - L->le_start != (int64_t)(LUT_N - 1) << L->le_shift ||
        L->lo_end - L->lo_start != (int64_t)(LUT_N - 1) << L->lo_shift)
        return -1;
    L->uflow_scale = (int16_t)(R(0x4120) & 0xffff);
    L->uflow_shift = (int)(R(0x4124) & 0x1f);
    L->oflow_scale = (int16_t)(R(0x4128) >> 16);
    L->oflow_shift = (int)(R(0x412c) >> 5 & 0x1f);
#undef R
    return 0;
}

/* y = the table at x: linear between entries, the slopes beyond the ends */
int64_t emu_lut_eval(const emu_lut_stage *L, int64_t x)
{
    if (x < L->le_start)
        return L->le[0] + rshift_round((x - L->le_start) * L->uflow_scale, L->uflow_shift);
    if (x > L->lo_end)
        return L->lo[LUT_N - 1] + rshift_round((x - L->lo_end) * L->oflow_scale, L->oflow_shift);
    const int32_t *T = x < L->le_end ? L->le : L->lo;
    int sh = x < L->le_end ? L->le_shift : L->lo_shift;
    int64_t d = x - (x < L->le_end ? L->le_start : L->lo_start);
    int64_t i = d >> sh, f = d & (((int64_t)1 << sh) - 1);
    if (i >= LUT_N - 1)
        return T[LUT_N - 1];
    return T[i] + rshift_round((int64_t)(T[i + 1] - T[i]) * f, sh);
}

int emu_weight_blocks(const rknn_tensor *w, int kh, int kw, int in_c, int out_c,
                      weight_blocks *b)
{
    if (!w->native || w->nnd < 6 || w->nnd % 6)
        return -1;
    memset(b, 0, sizeof(*b));
    const int64_t *s = w->native;
    int nt = w->nnd / 6;
    /* the input blocks: the leading run of one OC1 and OC2; the output blocks repeat them */
    int n = 1;
    while (n < nt && s[6 * n] == s[0] && s[6 * n + 4] == s[4])
        n++;
    if (n > WB_MAX || nt % n || nt / n > WB_MAX)
        return -1;
    b->n = n;
    b->no = nt / n;
    b->kh = kh;
    b->kw = kw;
    b->ocp = (int)s[4];
    /* sizes past 2^22 channels or kernels are no file's: refused before they overflow */
    const int64_t lim = (int64_t)1 << 22;
    int64_t ic = 0, nk = 0;
    for (int k = 0; k < n; k++) {
        const int64_t *t = s + 6 * k;
        if (t[1] < 1 || t[5] < 1 || t[1] > lim || t[5] > lim || ic + t[1] * t[5] > lim)
            return -1;
        b->ib[k] = (int)t[1];
        b->icp[k] = (int)t[5];
        b->ic0[k] = (int)ic;
        ic += t[1] * t[5];
    }
    b->per_kernel = (int64_t)kh * kw * ic;
    for (int j = 0; j < b->no; j++) {
        const int64_t *o = s + 6 * n * j;
        if (o[0] < 1 || o[4] < 1 || o[0] > lim || o[4] > lim || nk + o[0] * o[4] > lim)
            return -1;
        for (int k = 0; k < n; k++) {
            const int64_t *t = o + 6 * k;
            if (t[0] != o[0] || t[4] != o[4] || t[2] != kh || t[3] != kw || t[1] != b->ib[k] ||
                t[5] != b->icp[k])
                return -1;
        }
        b->ob[j] = (int)o[0];
        b->ocb[j] = (int)o[4];
        b->oc0[j] = (int)nk;
        b->ooff[j] = b->bytes;
        nk += o[0] * o[4];
        b->bytes += o[0] * o[4] * b->per_kernel;
    }
    b->kernels = (int)nk;
    b->block_bytes = b->per_kernel * b->ocp;
    /* every channel covered; only the last block's lanes may pad, and the last
     * output block's kernels */
    if (ic < in_c || (b->n > 1 && b->ic0[b->n - 1] >= in_c) || b->kernels < out_c ||
        (b->no > 1 && b->oc0[b->no - 1] >= out_c))
        return -1;
    return 0;
}

/* rv1126b's pixel conv (layout f3, docs/rknn-format.md): one block, each
 * kernel row of kw taps x IC2 lanes padded to row bytes (CNA 0x1020 / kh),
 * laid out [kh][OC2][row] per OC1 block */
static int weight_rows_of(weight_blocks *b, int64_t per_kernel)
{
    if (b->n != 1 || b->no != 1 || per_kernel <= 0 || per_kernel % b->kh)
        return -1;
    int64_t oc1 = b->ob[0];
    b->row = per_kernel / b->kh;
    if (b->ib[0] != 1 || b->row < (int64_t)b->kw * b->icp[0])
        return -1;
    b->block_bytes = b->kh * b->ocp * b->row;
    b->bytes = b->block_bytes * oc1;
    b->per_kernel = b->block_bytes / b->ocp;
    return 0;
}

/* the output block of kernel oc (the last one for a kernel past them all) */
static int out_block(const weight_blocks *b, int oc)
{
    int j = b->no - 1;
    while (j > 0 && oc < b->oc0[j])
        j--;
    return j;
}

/* the element of kernel oc, input channel ic, tap (ky, kx) (a byte for int8) */
int64_t emu_weight_elem(const weight_blocks *b, int oc, int ic, int ky, int kx)
{
    if (b->row)
        return (int64_t)(oc / b->ocp) * b->block_bytes +
               ((int64_t)ky * b->ocp + oc % b->ocp) * b->row + (int64_t)kx * b->icp[0] + ic;
    int j = out_block(b, oc), o = oc - b->oc0[j], ocp = b->ocb[j];
    int k = b->n - 1;
    while (k > 0 && ic < b->ic0[k])
        k--;
    int c = ic - b->ic0[k], i1 = c / b->icp[k], i2 = c % b->icp[k];
    return b->ooff[j] + (int64_t)(o / ocp) * ocp * b->per_kernel +
           (int64_t)b->ic0[k] * b->kh * b->kw * ocp +
           ((((int64_t)i1 * b->kh + ky) * b->kw + kx) * ocp + o % ocp) * b->icp[k] + i2;
}

int64_t emu_weight_tile(const weight_blocks *b, int oc)
{
    int j = out_block(b, oc), o = oc - b->oc0[j];
    if (oc < 0 || o % b->ocb[j] || o / b->ocb[j] >= b->ob[j])
        return -1;
    return b->row ? (int64_t)(oc / b->ocp) * b->block_bytes
                  : b->ooff[j] + (int64_t)o * b->per_kernel;
}

/* The tile a conv task computes, from its offsets into the node's tensors: input row
 * y0i (an image input's rows are its aligned width apart, act_row_bytes), output row
 * y0o and first output channel oc0 (a whole C2 surface of the destination). */
int emu_conv_tile(const emu_step *s, const emu_task *t, const rknn_tensor *xt, const act *in,
                  const act *out, int *y0i, int *y0o, int *oc0)
{
    int ti = s->ti, rc = 0;
    const char *nn = s->nn;
    int64_t in_row = act_row_bytes(xt, in), out_row = (int64_t)out->w * out->c2 * out->es;
    int64_t out_surf = out_row * out->h;
    if (t->feature_addr < 0 || t->dst_addr < 0 || t->feature_addr % in_row ||
        (t->dst_addr % out_surf) % out_row)
        STOP("task %d (node %s): feature 0x%llx / destination 0x%llx are not row offsets into the "
             "node's tensors", ti, nn, (long long)t->feature_addr, (long long)t->dst_addr);
    *y0i = (int)(t->feature_addr / in_row), *y0o = (int)(t->dst_addr % out_surf / out_row);
    *oc0 = (int)(t->dst_addr / out_surf) * out->c2;
    /* kernels may round the last channels up to a whole C2 surface (padding lanes) */
    if (*y0i + t->in_h > in->h || *y0o + t->out_h > out->h ||
        *oc0 + t->kernels > (out->c + out->c2 - 1) / out->c2 * out->c2)
        STOP("task %d (node %s): tile rows %d+%d or channels %d+%d beyond the tensor", ti, nn, *y0o,
             t->out_h, *oc0, t->kernels);
out:
    return rc;
}

/* A conv's dot products, EMU_DOT_PIX outputs at a time: col holds their n
 * int16 taps one output after the other, w one kernel's; int32 sums as the
 * CNA's (emu_run_conv bounds n so that they cannot overflow). The widening
 * multiply-add vectorizes; the sanitizers' per-access checks would keep it
 * scalar (yolov8n under ASan: 9.3 s instead of 1.5), and it reads only
 * col[0, 4n) and w[0, n), which emu_run_conv sizes for exactly that. */
#define EMU_DOT_PIX 4
#if defined(__clang__) /* (the fuzz build: clang takes no clones beside no_sanitize) */
#define EMU_DOT_HOT __attribute__((no_sanitize("address", "undefined")))
#else
#define EMU_DOT_HOT                                                            \
    __attribute__((optimize("O3"), no_sanitize("address", "undefined"),       \
                   target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
EMU_DOT_HOT static void emu_dot_pix(const int16_t *col, int64_t n, const int16_t *w, int32_t *dot)
{
    const int16_t *c0 = col, *c1 = col + n, *c2 = col + 2 * n, *c3 = col + 3 * n;
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int64_t k = 0; k < n; k++) {
        s0 += c0[k] * w[k];
        s1 += c1[k] * w[k];
        s2 += c2[k] * w[k];
        s3 += c3[k] * w[k];
    }
    dot[0] = s0, dot[1] = s1, dot[2] = s2, dot[3] = s3;
}

int emu_run_conv(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len, int lut)
{
    const rknn_model *m = s->m;
    const regstate *rs = s->rs;
    const rknn_node *nd = s->nd;
    const char *nn = s->nn;
    emu_mem *mem = s->mem;
    int ti = s->ti, node = s->node, grp = s->grp, *rows = s->rows;
    const char *tg = m->target ? m->target : m->fb_target;
    int G = emu_channel_group(tg);
    int xi, wi, bi, ei, rc = 0;
    uint8_t *dcw = NULL; /* decompressed weights (CNA_DCOMP_CTRL) */
    emu_f2_act *fa = NULL; /* f2/f3: the activation stage (emu_act.c) */
    act in, out, ew = {0};
    emu_node_operands(m, nd, &xi, &wi, &bi, &ei);
    if (t->op != EMU_OP_CONV)
        STOP("task %d (node %s): %s tasks are not emulated", ti, nn, emu_op_name(t->op));
    if (t->in_prec == 2 || t->proc_prec == 2 || t->out_prec == 2)
        return emu_run_conv16(s, t, file, len);
    if (nd->n_out != 1 || xi < 0 || wi < 0 || bi < 0)
        STOP("task %d (node %s): the node's input, weight, bias and output tensors are not all found",
             ti, nn);
    if (act_of(&m->tensors[xi], mem, xi, &in) || act_of(&m->tensors[nd->out[0]], mem, nd->out[0], &out))
        STOP("task %d (node %s): input or output tensor not a 4-D NC1HWC2/NHWC activation", ti, nn);
    /* rv1126b's pixel input (layout f3): the image tensor's bytes read as 8-bit
     * pixels u = q - zp, which are bytes only for the zero point -128 (the
     * uint8 image the runtime feeds); x = u - pixel_off[c], pad u = the pad value */
    const rknn_tensor *xt = &m->tensors[xi];
    if (t->pixel_in < 0)
        STOP("task %d (node %s): pixel input (CNA mode code 6) with CNA 0x1028 / 0x1084 words the "
             "sample file does not write: not emulated", ti, nn);
    if (t->pixel_in && (!xt->has_quant || xt->zero_point != -128 || in.c > 4 || in.c2 != in.c))
        STOP("task %d (node %s): pixel input from %s (zero point %lld, %d channels): only an "
             "int8 image of zero point -128 (its bytes the uint8 pixels) and up to 4 packed "
             "channels are emulated", ti, nn, xt->name, (long long)xt->zero_point, in.c);
    if (t->in_prec != 0 || t->proc_prec != 0 || t->out_prec != 0)
        STOP("task %d (node %s): precisions in %s proc %s out %s: only int8 is emulated", ti, nn,
             emu_prec_name(t->in_prec), emu_prec_name(t->proc_prec), emu_prec_name(t->out_prec));
    /* in_c is the aligned count, in_c_real the tensor's; a task computes all
     * output channels or a tile of them (kernels, out_c_orig: the tile's) */
    /* ... or all of them from a kernel count rounded up past the tensor's channels
     * (yolov5n-seg's 255-channel head conv on rk3588: 256 kernels, the last one
     * padding, out_c_orig 255), whose padding channels are not stored */
    int whole_padded = t->out_c_orig == out.c && t->kernels > out.c &&
                       t->kernels <= (out.c + out.c2 - 1) / out.c2 * out.c2;
    if (t->in_w != in.w || t->in_c_real != in.c || t->out_w != out.w || t->kernels < 1 ||
        ((t->out_c_orig != t->kernels || t->kernels > out.c) && !whole_padded))
        STOP("task %d (node %s): a tile of the width or the input channels (in %dx%d, out %dx%d, "
             "%d kernels; tensors %dx%d, %dx%d) is not emulated", ti, nn, t->in_w, t->in_c_real,
             t->out_w, t->out_c_orig, t->kernels, in.w, in.c, out.w, out.c);
    int32_t pad_value = t->pad_value;
    if (!t->has_pad_value) {
        /* rk3566/rk3568 write no CNA_PAD_CON1; CNA_PAD_CON0's upper half holds the
         * input's zero point there (0xff80 = -128 above the top/left pads) */
        if (t->map != EMU_MAP_RK356X || !rs->set[grp][0x1068 / 4])
            STOP("task %d (node %s): no CNA pad value", ti, nn);
        pad_value = (int16_t)(rs->val[grp][0x1068 / 4] >> 16);
    }
    /* rk3566/rk3568 encode the add otherwise (BS_CFG 0x148, EW_CFG 0x900002d0 where
     * rk3588 writes 0x20140, 0x904202c0: algo 0 and bits 3 / 4 set); only those
     * exact words are taken there */
    uint32_t bs_cfg = reg_or0(rs, grp, 0x4040);
    uint32_t ew_cfg = reg_or0(rs, grp, 0x4070);
    int rk356x = t->map == EMU_MAP_RK356X;
    emu_chip_words cw = emu_chip_words_of(t);
    /* table layouts: their stage words were checked against the values the
     * sample files write (emu_layout_check), one meaning each */
    int table = emu_layout_known(t->map);
    if (table && (!t->bs.present || !t->bs.alu_src || !t->bs.mul_src || !t->bs.relu_bypass))
        STOP("task %d (node %s): BS stage other than per-channel add and multiply without ReLU",
             ti, nn);
    if (!table && rk356x && bs_cfg != 0x148)
        STOP("task %d (node %s): DPU_BS_CFG 0x%x: on rk356x only 0x148 (per-channel add and "
             "multiply) is understood", ti, nn, bs_cfg);
    /* rk3588's weight offset from a register (yolov10n's ReduceSum convs): DPU_BS_OW_CFG
     * bit 0 clear (0x124; a conv with the per-channel -zp_w writes 0x125, OW_OP 0) adds
     * DPU_BS_OW_OP (0x4054, int16: 0x80 there, the weights' 127 read as 255 = 127 + 128,
     * the bias words' zero-point fold) to every weight, as the public driver's
     * "OW_OP = 0x80 - weight_zp" says (gregordinary/rocket-userspace e0677862,
     * include/npu_dpu.h); the per-channel words are then the bias alone (BRDMA data
     * use 1: one int32 a channel), the BS multiplier bypassed (BS_CFG 0x20150) */
    uint32_t ow_cfg = reg_or0(rs, grp, 0x4050), ow_op = reg_or0(rs, grp, 0x4054);
    int ow_reg = t->map == EMU_MAP_RK3588 && !(ow_cfg & 1);
    if (ow_reg && (ow_cfg != 0x124 || bs_cfg != 0x20150 || t->brdma_use != 1 || (ow_op >> 16)))
        STOP("task %d (node %s): a weight offset from DPU_BS_OW_OP (BS_OW_CFG 0x%x, OW_OP 0x%x, "
             "BS_CFG 0x%x, BRDMA data use %d): only 0x124 with BS 0x20150 and the bias alone is "
             "emulated", ti, nn, ow_cfg, ow_op, bs_cfg, t->brdma_use);
    if (t->map == EMU_MAP_RK3588 && !ow_reg && ow_op)
        STOP("task %d (node %s): DPU_BS_OW_OP 0x%x beside per-channel weight offsets (BS_OW_CFG "
             "0x%x): not emulated", ti, nn, ow_op, ow_cfg);
    int pcw = ow_reg ? 4 : 8; /* per-channel bytes: bias, or bias, -zp_w and multiplier */
    if (!table && (!t->bs.present || t->bs.bypass || t->bs.alu_bypass || t->bs.alu_algo != (rk356x ? 0 : 2) ||
        !t->bs.alu_src || (ow_reg ? !t->bs.mul_bypass : (t->bs.mul_bypass || !t->bs.mul_src)) ||
        t->bs.mul_prelu || !t->bs.relu_bypass || t->bs.relux_en))
        STOP("task %d (node %s): BS stage other than per-channel add and multiply without ReLU "
             "(bypass %d alu %d/%d/src %d mul %d/src %d/prelu %d relu bypass %d)", ti, nn,
             t->bs.bypass, t->bs.alu_bypass, t->bs.alu_algo, t->bs.alu_src, t->bs.mul_bypass,
             t->bs.mul_src, t->bs.mul_prelu, t->bs.relu_bypass);
    /* a LUT task (yolov8n's ConvExSwish, ConvSigmoid) scales in BN first, then
     * interpolates the file's two tables (docs/rknn-format.md); BN's ALU adds 0
     * (the add is ALU algo 0 on rk356x, 2 on rk3588, as in BS and EW) */
    emu_lut_stage L;
    int relu = 0;
    int64_t clamp_lo = INT32_MIN, clamp_hi = INT32_MAX;
    if (t->lut_used) {
        uint32_t bn_cfg = reg_or0(rs, grp, 0x4060);
        if (ew_cfg != 0x302 || bn_cfg != cw.add_mul || !t->bn.present || t->bn.bypass ||
            (!t->bn.alu_bypass && (t->bn.alu_src || t->bn.alu_operand)) || t->bn.mul_bypass ||
            t->bn.mul_src || t->bn.mul_prelu || !t->bn.relu_bypass || t->bn.mul_shift < 0 ||
            t->bn.mul_shift > 31)
            STOP("task %d (node %s %s): LUT activation with EW_CFG 0x%x, BN_CFG 0x%x: only a BN "
                 "register multiplier before the LUT (0x48 on rk356x, 0x20040 on rk3588, EW "
                 "0x302) is emulated", ti, nd->type,
                 nn, ew_cfg, bn_cfg);
        if (emu_lut_stage_load(m, file, len, lut, &s->mem->lut, rs, grp, &L))
            STOP("task %d (node %s %s): LUT activation: its table (tensor %d) or LUT registers "
                 "are not the form emulated (two 513-entry tables, LUT_CFG 0x68)", ti, nd->type,
                 nn, lut);
    } else if (t->bn.present && !t->bn.bypass) {
        /* a ReLU alone in BN (ConvRelu on rk3588: BN_CFG 0x12, its ALU and multiplier
         * bypassed): v = max(v, 0) after BS; before an EW add it would differ from the
         * add-then-ReLU a ConvAddRelu means, so only without EW */
        relu = t->map == EMU_MAP_RK3588 && t->bn.alu_bypass && t->bn.mul_bypass &&
               !t->bn.relu_bypass && !t->bn.relux_en && !t->bn.mul_prelu &&
               !(t->ew_present && !t->ew_bypass);
        /* else ReLUX (ReLU6): a clamp at BN_RELUX_CMP_VALUE, emu_dw_rk3588.c */
        if (!relu && t->map == EMU_MAP_RK3588 && (rc = emu_rk3588_relux(s, t, &clamp_lo, &clamp_hi)))
            goto out;
        if (!relu && t->map != EMU_MAP_RK3588)
            STOP("task %d (node %s): BN stage in use (PReLU, ReLUX, a second operand, or ReLU "
                 "beside EW): not emulated", ti, nn);
    }
    /* f2/f3: BS's shifts, then the clamp, BN's PReLU or the LUT (emu_act.c) */
    int f2 = t->map == EMU_MAP_F2 || t->map == EMU_MAP_F3;
    if (f2) {
        uint32_t bs = reg_or0(rs, grp, 0x4050);
        /* the word table lets bits 8..9 of BS_CFG through for the depthwise form */
        if (bs != 0x80011011 && bs != 0x80011111)
            STOP("task %d (node %s): DPU_BS_CFG 0x%x: a conv's 0x80011011 or 0x80011111 is "
                 "emulated", ti, nn, bs);
        if (!(fa = malloc(sizeof *fa)))
            STOP("task %d (node %s): out of memory", ti, nn);
        if ((rc = emu_f2_act_load(s, t, file, len, fa)))
            goto out;
    }
    int use_ew = t->ew_present && !t->ew_bypass && !t->lut_used && !(fa && fa->kind == EMU_ACT_LUT);
    if (use_ew && !table && rk356x && ew_cfg != cw.ew_add)
        STOP("task %d (node %s): DPU_EW_CFG 0x%x: on rk356x only 0x%x (add of a memory "
             "operand) is understood", ti, nn, ew_cfg, cw.ew_add);
    if (use_ew && !table && (t->ew_alu_algo != (rk356x ? 0 : 2) || !t->ew_op_src || !t->ew_lut_bypass || t->ew_op_type ||
                   t->ew_binary))
        STOP("task %d (node %s): EW stage other than the add of a memory operand (algo %d src %d "
             "lut bypass %d type %d binary %d)", ti, nn, t->ew_alu_algo, t->ew_op_src,
             t->ew_lut_bypass, t->ew_op_type, t->ew_binary);
    if (use_ew && (ei < 0 || act_of(&m->tensors[ei], mem, ei, &ew) || ew.c != out.c ||
                   ew.h != out.h || ew.w != out.w))
        STOP("task %d (node %s): the element-wise operand is not a second activation input of the "
             "output's shape", ti, nn);
    /* DPU_DATA_FORMAT bits 4..9 / 10..15: the BS / BN multipliers' shifts for a
     * negative product (BS/BN_MUL_SHIFT_VALUE_NEG in the public register
     * descriptions); taken only where they equal the shifts for a positive one */
    uint32_t fmt = reg_or0(rs, grp, 0x4010);
    if (!table && ((int)(fmt >> 4 & 0x3f) != t->bs.mul_shift || (fmt >> 16 & 0x3ff) || (fmt & 0xf) ||
                   (t->lut_used && (int)(fmt >> 10 & 0x3f) != t->bn.mul_shift) ||
                   (!t->lut_used && (fmt >> 10 & 0x3f))))
        STOP("task %d (node %s): DPU_DATA_FORMAT 0x%x: negative-product shifts %d (BS) and %d (BN) "
             "other than the positive ones (%d, %d), or EW truncation / surface bits set: not "
             "emulated", ti, nn, fmt, (int)(fmt >> 4 & 0x3f), (int)(fmt >> 10 & 0x3f),
             t->bs.mul_shift, t->lut_used ? t->bn.mul_shift : 0);
    if (t->out_cvt_shift < 0 || t->out_cvt_shift > 40 || t->bs.mul_shift < 0 || t->bs.mul_shift > 31)
        STOP("task %d (node %s): shifts out of range (out %d, bs %d)", ti, nn, t->out_cvt_shift,
             t->bs.mul_shift);
    if (G <= 0)
        STOP("task %d (node %s): the chip's per-channel group size is unknown", ti, nn);
    /* tiles: rows from the offsets into the tensors; an output-channel tile
     * starts at a whole C2 surface of the destination */
    int y0i, y0o, oc0, noc = t->kernels;
    if ((rc = emu_conv_tile(s, t, &m->tensors[xi], &in, &out, &y0i, &y0o, &oc0)))
        goto out;
    rows[0] = y0o;
    rows[1] = y0o + t->out_h;
    /* the EW operand sits at the output's position: one offset for the whole node */
    uint32_t ew_cvt_off = 0, ew_cvt = 0;
    if (use_ew) {
        int64_t delta = t->ew_addr - t->dst_addr;
        if (!mem->ew_seen[node]) {
            mem->ew_seen[node] = 1;
            mem->ew_delta[node] = delta;
        } else if (mem->ew_delta[node] != delta) {
            STOP("task %d (node %s): EW operand at 0x%llx for the destination 0x%llx: not at the "
                 "offset the node's first tile used (0x%llx)", ti, nn, (long long)t->ew_addr,
                 (long long)t->dst_addr, (long long)mem->ew_delta[node]);
        }
        if (t->ew_cvt_offset == INT64_MIN || t->ew_cvt_scale < 0)
            STOP("task %d (node %s): EW converter registers not written", ti, nn);
        ew_cvt_off = (uint32_t)t->ew_cvt_offset;
        ew_cvt = (uint32_t)t->ew_cvt_scale;
        if (ew_cvt >> 22)
            STOP("task %d (node %s): EW_CVT_SCALE 0x%x has bits above 21 set", ti, nn, ew_cvt);
    }
    /* weights and per-channel words from the file */
    const rknn_tensor *wt = &m->tensors[wi], *bt = &m->tensors[bi];
    int kh = t->kh, kw = t->kw;
    weight_blocks wb;
    if (kh < 1 || kw < 1 || t->stride_x < 1 || t->stride_y < 1 || t->pad_top < 0 || t->pad_left < 0 ||
        emu_weight_blocks(wt, kh, kw, in.c, out.c, &wb) ||
        (t->pixel_in && weight_rows_of(&wb, t->weight_bytes_per_kernel)))
        STOP("task %d (node %s): weight %s: native shape of %d values does not fit the task's "
             "kernel %dx%d, %d to %d channels (blocks [OC1, IC1, kh, kw, OC2, IC2]: input "
             "blocks, the same for each output block)", ti, nn, wt->name, wt->nnd, kh, kw, in.c, out.c);
    /* the CNA's weight decompressor (CNA_DCOMP_CTRL, "weight decompress
     * control" in the RK3588 TRM's register list; Mesa rocket writes 0):
     * toolkit 1.3.4's rk3588 files turn it on and store the compressed
     * stream (emu_dcomp.c); it is decoded into the native bytes first */
    if (!table && reg_or0(rs, grp, 0x1100)) {
        uint32_t am[16];
        char why[200], al[160] = "";
        for (int k = 0; k < 16; k++) {
            am[k] = reg_or0(rs, grp, (uint32_t)(0x1140 + 4 * k));
            size_t n = strlen(al);
            snprintf(al + n, sizeof al - n, "%s%u", k ? " " : "", am[k]);
        }
        if (reg_or0(rs, grp, 0x1100) != 1 || reg_or0(rs, grp, 0x1104) != 0x55555555u ||
            wb.n != 1 || wb.no != 1 || wb.ib[0] != 1 || wb.ocp != 8 || wb.icp[0] != 16 || wb.row ||
            wb.bytes != (int64_t)kh * kw * 128)
            STOP("task %d (node %s): CNA weight decompression (CNA_DCOMP_CTRL 0x%x, DCOMP_REGNUM "
                 "0x%x, DCOMP_AMOUNT0..15 %s) for weight %s of %lld native bytes: only control 1, "
                 "REGNUM 0x55555555 and one [1, 1, kh, kw, 8, 16] block are decoded: not emulated",
                 ti, nn, reg_or0(rs, grp, 0x1100), reg_or0(rs, grp, 0x1104), al, wt->name,
                 (long long)wb.bytes);
        if (wt->data_off < 0 || wt->data_len < 0 ||
            (uint64_t)wt->data_off + (uint64_t)wt->data_len > len)
            STOP("task %d (node %s): compressed weight %s outside the file", ti, nn, wt->name);
        dcw = malloc((size_t)wb.bytes);
        if (!dcw)
            STOP("task %d (node %s): out of memory", ti, nn);
        if (emu_dcomp_decode(file + wt->data_off, (size_t)wt->data_len, am, kh * kw, in.c, dcw,
                             (size_t)wb.bytes, why, sizeof why))
            STOP("task %d (node %s): CNA weight decompression (DCOMP_AMOUNT0..15 %s), weight %s "
                 "(%lld bytes): %s: not emulated", ti, nn, al, wt->name, (long long)wt->data_len,
                 why);
    }
    int64_t groups = (noc + G - 1) / G;
    /* more bytes than the native shape has, without the decompressor: another
     * layout (rk3588 toolkit 1.3.4's compressed buffers are decoded above) */
    /* rv1126b's pixel conv: 1536 bytes for its 768 (the rest zero, not read) */
    if (t->pixel_in && wt->data_len > wb.bytes && wt->data_off >= 0 &&
        (uint64_t)wt->data_off + (uint64_t)wt->data_len <= len) {
        for (int64_t k = wb.bytes; k < wt->data_len; k++)
            if (file[wt->data_off + k])
                STOP("task %d (node %s): weight tensor %s: byte %lld beyond the %lld bytes the "
                     "pixel conv's rows hold is not zero: not emulated", ti, nn, wt->name,
                     (long long)k, (long long)wb.bytes);
    } else if (!dcw && wt->data_len > wb.bytes)
        STOP("task %d (node %s): weight tensor %s holds %lld bytes for its %lld-byte native "
             "layout (another layout, not decoded): not emulated", ti, nn, wt->name,
             (long long)wt->data_len, (long long)wb.bytes);
    /* every kernel the task runs, padding ones included, has its weights */
    if ((int64_t)wb.kernels < (int64_t)oc0 + noc)
        STOP("task %d (node %s): %d kernels from channel %d, the weight %s holds %d", ti, nn,
             noc, oc0, wt->name, wb.kernels);
    /* an output-channel tile's weights start at its OC1 block, its per-channel
     * words at its group: both addresses must say the channel the destination says */
    int64_t tile = emu_weight_tile(&wb, oc0);
    if (tile < 0 || oc0 % G || t->weight_addr != tile || t->bs_addr != (int64_t)oc0 * pcw)
        STOP("task %d (node %s): output-channel tile at channel %d: weight address 0x%llx, "
             "per-channel words at 0x%llx do not start at its block (0x%llx, 0x%llx)", ti, nn, oc0,
             (long long)t->weight_addr, (long long)t->bs_addr, (long long)tile, (long long)oc0 * pcw);
    /* CNA_WEIGHT_SIZE0 / SIZE1: the tile's bytes and one kernel's, as the blocks say */
    int64_t per_kernel = wb.per_kernel;
    if ((t->weight_bytes >= 0 && t->weight_bytes != per_kernel * noc) ||
        (t->weight_bytes_per_kernel >= 0 && t->weight_bytes_per_kernel != per_kernel))
        STOP("task %d (node %s): CNA weight sizes %lld (%lld a kernel) are not the %d kernels of "
             "%lld bytes the weight's blocks hold", ti, nn, (long long)t->weight_bytes,
             (long long)t->weight_bytes_per_kernel, noc, (long long)per_kernel);
    if ((!dcw && (wt->data_len < wb.bytes || (uint64_t)wt->data_off + (uint64_t)wb.bytes > len)) ||
        bt->data_len < t->bs_addr + groups * G * pcw ||
        (uint64_t)bt->data_off + (uint64_t)bt->data_len > len)
        STOP("task %d (node %s): weight or per-channel data outside its tensor", ti, nn);
    const int8_t *W = dcw ? (const int8_t *)dcw : (const int8_t *)file + wt->data_off;
    const uint8_t *B = file + bt->data_off + t->bs_addr;
    int sx = t->stride_x, sy = t->stride_y, dx = t->dil_x > 0 ? t->dil_x : 1,
        dy = t->dil_y > 0 ? t->dil_y : 1;
    /* every product fits 16 x 9 bits; an int32 sum of up to 65000 of them cannot overflow */
    int64_t taps = (int64_t)kh * kw * in.c;
    if (taps > 65000)
        STOP("task %d (node %s): %lld taps per output: not emulated", ti, nn, (long long)taps);
    /* the tile's input rows gathered as [row][column][channel] int16 with the
     * pad value around them, and each kernel's effective weights w - zp_w in the
     * same tap order, so that each output is one contiguous dot product */
    int ph = (t->out_h - 1) * sy + (kh - 1) * dy + 1, pw = (t->out_w - 1) * sx + (kw - 1) * dx + 1;
    int16_t *X = malloc(sizeof(int16_t) * (size_t)ph * pw * in.c);
    int16_t *Wk = malloc(sizeof(int16_t) * (size_t)noc * taps);
    int16_t *col = malloc(sizeof(int16_t) * (size_t)taps * EMU_DOT_PIX);
    if (!X || !Wk || !col) {
        free(X); free(Wk); free(col);
        STOP("task %d (node %s): out of memory", ti, nn);
    }
    int8_t padv = sat8(pad_value);
    for (int py = 0; py < ph; py++)
        for (int px = 0; px < pw; px++) {
            int iy = py - t->pad_top, ix = px - t->pad_left;
            int inside = iy >= 0 && iy < t->in_h && ix >= 0 && ix < t->in_w;
            int16_t *xp = X + ((int64_t)py * pw + px) * in.c;
            for (int ic = 0; ic < in.c; ic++)
                if (t->pixel_in)
                    xp[ic] = (int16_t)((inside ? in.p[act_off(&in, ic, y0i + iy, ix)] + 128 : pad_value) -
                                       t->pixel_off[ic]);
                else
                    xp[ic] = inside ? in.p[act_off(&in, ic, y0i + iy, ix)] : padv;
        }
    for (int o = 0; o < noc; o++) {
        int nzp = ow_reg ? (int16_t)ow_op : rd_i16(B + (int64_t)(o / G) * G * 8 + 4 * G + 2 * (o % G));
        for (int ky = 0; ky < kh; ky++)
            for (int kx = 0; kx < kw; kx++)
                for (int ic = 0; ic < in.c; ic++)
                    Wk[(int64_t)o * taps + ((int64_t)ky * kw + kx) * in.c + ic] =
                        (int16_t)(W[emu_weight_elem(&wb, oc0 + o, ic, ky, kx)] + nzp);
    }
    /* EMU_DOT_PIX outputs at a time (the last block repeats its last output), so
     * that each kernel's taps are read once for all of them */
    int64_t npix = (int64_t)t->out_h * t->out_w;
    for (int64_t p0 = 0; p0 < npix; p0 += EMU_DOT_PIX) {
        int oys[EMU_DOT_PIX], oxs[EMU_DOT_PIX];
        for (int p = 0; p < EMU_DOT_PIX; p++) {
            int64_t q = p0 + p < npix ? p0 + p : npix - 1;
            int oy = oys[p] = (int)(q / t->out_w), ox = oxs[p] = (int)(q % t->out_w);
            /* the taps of this output, in the weights' order */
            for (int ky = 0; ky < kh; ky++)
                for (int kx = 0; kx < kw; kx++)
                    memcpy(col + p * taps + ((int64_t)ky * kw + kx) * in.c,
                           X + ((int64_t)(oy * sy + ky * dy) * pw + ox * sx + kx * dx) * in.c,
                           sizeof(int16_t) * (size_t)in.c);
        }
        int np = npix - p0 < EMU_DOT_PIX ? (int)(npix - p0) : EMU_DOT_PIX;
        for (int o = 0; o < noc && oc0 + o < out.c; o++) {
            const uint8_t *g = B + (int64_t)(o / G) * G * pcw;
            int j = o % G, oc = oc0 + o;
            int mul = ow_reg ? 1 : rd_i16(g + 6 * G + 2 * j); /* bypassed: shift 0 */
            int32_t dot[EMU_DOT_PIX];
            emu_dot_pix(col, taps, Wk + (int64_t)o * taps, dot);
            for (int p = 0; p < np; p++) {
                int oy = oys[p], ox = oxs[p];
                int64_t acc = (int64_t)rd_i32(g + 4 * j) + dot[p];
                if (acc < INT32_MIN || acc > INT32_MAX) {
                    free(X); free(Wk); free(col);
                    STOP("task %d (node %s): accumulator %lld overflows int32 (channel %d, row %d, "
                         "column %d)", ti, nn, (long long)acc, oc, oy, ox);
                }
                int64_t v = fa ? emu_f2_act_int(fa, emu_f2_bs(fa, acc * mul))
                               : rshift_round(acc * mul, t->bs.mul_shift);
                if (relu && v < 0)
                    v = 0;
                v = v < clamp_lo ? clamp_lo : v > clamp_hi ? clamp_hi : v; /* rk3588's ReLUX */
                int64_t pos = act_off(&out, oc, y0o + oy, ox);
                if (use_ew) {
                    int64_t e = ew.p[act_off(&ew, oc, y0o + oy, ox)];
                    v += rshift_round((e + (int32_t)ew_cvt_off) * (int64_t)(ew_cvt & 0xffff),
                                      (int)(ew_cvt >> 16 & 0x3f));
                }
                if (t->lut_used) /* BN: a register multiplier, then the LUT */
                    v = emu_lut_eval(&L, rshift_round(v * t->bn.mul_operand, t->bn.mul_shift));
                int64_t y = rshift_round(v * t->out_cvt_scale, t->out_cvt_shift) + t->out_cvt_offset;
                out.p[pos] = sat8(y);
            }
        }
    }
    free(X);
    free(Wk);
    free(col);
    mem->written[nd->out[0]] = 1;
out:
    free(dcw);
    free(fa);
    return rc;
}
