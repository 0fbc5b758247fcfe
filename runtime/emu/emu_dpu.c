/* runtime/emu/emu_dpu.c — the DPU-only tasks of a Toolkit2 file (emu_internal.h):
 * a Split or Concat channel-slice copy, an Add, a nearest 2x Resize. Each takes
 * only the register words the sample files write; anything else stops. */
#include "runtime/emu/emu_internal.h"

#include <string.h>

/* a register of the task's group (its write or an earlier task's, else 0) */
#define R(a) reg_or0(s->rs, s->grp, (a))

/* A DPU-only task of a Split or Concat node (yolov8n): one whole channel slice
 * copied between the node's input and output tensors, requantized on the way:
 * y = sat8(round((x + BS ALU operand) * OUT_CVT_SCALE / 2^OUT_CVT_SHIFT) + OUT_CVT_OFFSET).
 * Addresses are offsets into the tensors: the source's (Split) or the
 * destination's (Concat) offset picks the slice, whole C2 surfaces. Only the
 * register words yolov8n's copies write are taken; anything else stops. */
int emu_run_copy(const emu_step *s, const emu_task *t)
{
    int split = !strcmp(s->nd->type, "Split"), rc = 0;
    act src, dst;
    emu_chip_words w = emu_chip_words_of(t);
    if (R(0x400c) != w.feature_mode || R(0x4010) != 0 || R(0x5044) != w.rdma_mode || R(0x4070) != 0x383 ||
        R(0x4060) != 0x53 || (R(0x4040) != 0x53 && R(0x4040) != w.add) || t->ew_present < 0 ||
        t->rdma_src_addr < 0 || t->dst_addr < 0 || t->out_cvt_shift < 0 || t->out_cvt_shift > 40)
        STOP("task %d (node %s): DPU-only task (FEATURE_MODE 0x%x, DATA_FORMAT 0x%x, RDMA mode "
             "0x%x, EW 0x%x, BN 0x%x, BS 0x%x): not a channel-slice copy as emulated", s->ti, s->nn,
             R(0x400c), R(0x4010), R(0x5044), R(0x4070), R(0x4060), R(0x4040));
    int64_t add = R(0x4040) == w.add ? (int32_t)R(0x4044) : 0;
    /* the one tensor on the node's other side: the slice's start channel says which.
     * A batch of N (act_of: N x C channels) is copied one image at a time (yolov10n's
     * attention Split: tasks 140/141 take channels 0..31 of images 0 and 1): the one
     * tensor's offset names image n and channel cs in it, the other's offset must
     * name the same image of the picked tensor */
    int one = split ? s->nd->in[0] : s->nd->out[0], many_n = split ? s->nd->n_out : s->nd->n_in;
    const int *many = split ? s->nd->out : s->nd->in;
    if (tensor_act(s, one, split ? &src : &dst))
        STOP("task %d (node %s): %s is not a 4-D activation", s->ti, s->nn,
             s->m->tensors[one].name);
    act *big = split ? &src : &dst, *small = split ? &dst : &src;
    int nb = act_batch(&s->m->tensors[one]), cb = big->c / nb;
    int64_t surf = (int64_t)big->h * big->w * big->c2, off = split ? t->rdma_src_addr : t->dst_addr;
    int64_t soff = split ? t->dst_addr : t->rdma_src_addr;
    if (surf <= 0 || off % surf)
        STOP("task %d (node %s): source 0x%llx, destination 0x%llx: not whole surfaces", s->ti,
             s->nn, (long long)t->rdma_src_addr, (long long)t->dst_addr);
    int c0 = (int)(off / surf) * big->c2, n = c0 / cb, start = 0, pick = -1;
    for (int k = 0; k < many_n && pick < 0; k++) {
        const rknn_tensor *x = &s->m->tensors[many[k]];
        int ch = x->nd == 4 ? (int)x->shape[1] : -1;
        if (start == c0 % cb && ch == t->out_c)
            pick = many[k];
        start += ch;
    }
    if (pick < 0 || tensor_act(s, pick, small) || small->h != big->h ||
        small->w != big->w || t->out_w != big->w || t->out_h != big->h ||
        act_batch(&s->m->tensors[pick]) != nb || c0 % cb + t->out_c > cb ||
        (n + 1) * t->out_c > small->c)
        STOP("task %d (node %s): no %s of %d channels at channel %d (cube %dx%dx%d)", s->ti, s->nn,
             split ? "output" : "input", t->out_c, c0 % cb, t->out_w, t->out_h, t->out_c);
    int64_t ssurf = (int64_t)small->h * small->w * small->c2;
    int d0 = n * t->out_c; /* the picked tensor's first channel of image n */
    if (soff < 0 || soff % ssurf || soff / ssurf * small->c2 != d0)
        STOP("task %d (node %s): source 0x%llx, destination 0x%llx: not image %d of %s", s->ti,
             s->nn, (long long)t->rdma_src_addr, (long long)t->dst_addr, n,
             s->m->tensors[pick].name);
    if (!s->mem->written[split ? one : pick])
        STOP("task %d (node %s): its source was not computed", s->ti, s->nn);
    for (int c = 0; c < t->out_c; c++)
        for (int y = 0; y < big->h; y++)
            for (int x = 0; x < big->w; x++) {
                int64_t v = split ? src.p[act_off(&src, c0 + c, y, x)] : src.p[act_off(&src, d0 + c, y, x)];
                v = rshift_round((v + add) * t->out_cvt_scale, t->out_cvt_shift) + t->out_cvt_offset;
                if (split)
                    dst.p[act_off(&dst, d0 + c, y, x)] = sat8(v);
                else
                    dst.p[act_off(&dst, c0 + c, y, x)] = sat8(v);
            }
    wrote(s, split ? pick : one, 0, big->h);
    s->mem->copy_out = split ? pick : one;
out:
    return rc;
}

/* A DPU-only task of an Add node (yolov8n on rk3566, yolov5n-seg on rk3588): its
 * first input through the BS stage, the second as the EW operand, both whole
 * tensors of the output's shape:
 *   v = round((a + BS_ALU) * BS_MUL / 2^s) + round((b + EW_CVT_OFFSET) * scale / 2^t)
 *   y = sat8(round(v * OUT_CVT_SCALE / 2^OUT_CVT_SHIFT) + OUT_CVT_OFFSET)
 * (BS_MUL_CFG: operand bits 16..31, shift bits 8..13; EW_CVT_SCALE as ConvAdd's).
 * Only the register words those Adds write are taken (emu_chip_words); anything
 * else stops. */
int emu_run_add(const emu_step *s, const emu_task *t)
{
    int rc = 0;
    act a, b, o;
    uint32_t mul = R(0x4048), ewc = R(0x4078);
    emu_chip_words w = emu_chip_words_of(t);
    /* an AddRelu (pp_human_segv2 on rk3588): EW_CFG's EW_RELU_BYPASS (bit 9, rocket
     * registers.xml) clear, v = max(v, 0) before OUT_CVT */
    int relu = strcmp(s->nd->type, "AddRelu") == 0;
    if (R(0x400c) != w.feature_mode || R(0x4010) != (mul >> 8 & 0x3f) << 4 || R(0x5044) != w.rdma_mode ||
        R(0x4070) != (relu ? w.ew_add & ~0x200u : w.ew_add) ||
        R(0x4060) != 0x53 || R(0x4040) != w.add_mul || (mul & 0xc0ff) || R(0x5034) != w.erdma_add ||
        (ewc >> 22) || t->rdma_src_addr != 0 || t->dst_addr != 0 || t->ew_addr != 0 ||
        t->out_cvt_shift < 0 || t->out_cvt_shift > 40)
        STOP("task %d (node %s): DPU-only task (DATA_FORMAT 0x%x, EW 0x%x, BS 0x%x, BS_MUL 0x%x, "
             "ERDMA 0x%x, addresses 0x%llx 0x%llx 0x%llx): not a whole-tensor add as emulated",
             s->ti, s->nn, R(0x4010), R(0x4070), R(0x4040), mul, R(0x5034),
             (long long)t->rdma_src_addr, (long long)t->ew_addr, (long long)t->dst_addr);
    int64_t alu = (int32_t)R(0x4044), ewoff = (int32_t)R(0x4074);
    if (s->nd->n_in != 2 || in_out_acts(s, &a, &o) || tensor_act(s, s->nd->in[1], &b) ||
        a.c != o.c || b.c != o.c ||
        a.h != o.h || b.h != o.h || a.w != o.w || b.w != o.w || t->out_c != o.c ||
        t->out_h != o.h || t->out_w != o.w)
        STOP("task %d (node %s): not two inputs of the output's shape (cube %dx%dx%d)", s->ti,
             s->nn, t->out_w, t->out_h, t->out_c);
    if (!s->mem->written[s->nd->in[0]] || !s->mem->written[s->nd->in[1]])
        STOP("task %d (node %s): an input was not computed", s->ti, s->nn);
    int ms = (int)(mul >> 8 & 0x3f), es = (int)(ewc >> 16 & 0x3f);
    int64_t mo = (int16_t)(mul >> 16), es_mul = ewc & 0xffff;
    for (int c = 0; c < o.c; c++)
        for (int y = 0; y < o.h; y++)
            for (int x = 0; x < o.w; x++) {
                int64_t v = rshift_round((a.p[act_off(&a, c, y, x)] + alu) * mo, ms) +
                            rshift_round((b.p[act_off(&b, c, y, x)] + ewoff) * es_mul, es);
                if (relu && v < 0)
                    v = 0;
                o.p[act_off(&o, c, y, x)] =
                    sat8(rshift_round(v * t->out_cvt_scale, t->out_cvt_shift) + t->out_cvt_offset);
            }
    wrote(s, s->nd->out[0], 0, o.h);
out:
    return rc;
}

/* A DPU-only task of a Resize node (yolov8n's nearest 2x upsamples, one task
 * per C2 surface): the DPU_RDMA reads one input surface (cube W x H x 4 at
 * input precision int16: each 8-byte pixel as 4 int16), unpools it 2x (SRC_DMA_CFG
 * 0x1249, as on RV110x), the DPU writes W' = 2W columns per row with
 * DST_SURF_STRIDE one output row and SURFACE_ADD one output surface, each
 * source row twice. The bytes pass unchanged (every stage bypassed, OUT_CVT
 * scale 1, shift 0, offset 0): out[c][y][x] = in[c][y / 2][x / 2]. The source
 * and destination offsets pick the same surface of the node's input and
 * output. Only the register words yolov8n's (rk3566) and yolov5n-seg's (rk3588)
 * Resizes write are taken. */
int emu_run_resize(const emu_step *s, const emu_task *t)
{
    int rc = 0;
    act in, out;
    uint32_t sw = (R(0x500c) & 0x1fff) + 1, sh = (R(0x5010) & 0x1fff) + 1, sc = (R(0x5014) & 0x1fff) + 1;
    uint32_t dw = (R(0x4030) & 0x1fff) + 1, dh = (R(0x4034) & 0x1fff) + 1, dc = (R(0x403c) & 0x1fff) + 1;
    int64_t src = R(0x5018), dst = R(0x4020), dsurf = R(0x4024), sadd = R(0x40c0);
    emu_chip_words w = emu_chip_words_of(t);
    /* the chip's DPU-only feature and RDMA modes, the RDMA's with bit 15 (0xc001 on
     * rk3566's yolov8n, 0xf801 on rk3588's yolov5n-seg) */
    if (R(0x400c) != w.feature_mode || R(0x4010) != 0x4000000 ||
        R(0x5044) != (w.rdma_mode | 0x8000) || R(0x5048) != 0x1249 ||
        R(0x4040) != 0x53 || R(0x4060) != 0x53 || R(0x4070) != 0x383 || R(0x4080) != 0 ||
        R(0x4084) != 1 || R(0x4088) != 0 || R(0x5034) != 1 || R(0x4038) != dw * 0x10001u ||
        R(0x4050) != 0x126)
        STOP("task %d (node %s): DPU-only task (FEATURE_MODE 0x%x, DATA_FORMAT 0x%x, RDMA mode 0x%x, "
             "DMA 0x%x, BS 0x%x, BN 0x%x, EW 0x%x, OUT_CVT 0x%x/0x%x/%u, notch 0x%x): not a 2x "
             "nearest upsample as emulated", s->ti, s->nn, R(0x400c), R(0x4010), R(0x5044), R(0x5048),
             R(0x4040), R(0x4060), R(0x4070), R(0x4084), R(0x4080), R(0x4088), R(0x4038));
    if (in_out_acts(s, &in, &out))
        STOP("task %d (node %s): input or output not a 4-D activation", s->ti, s->nn);
    const rknn_tensor *a = &s->m->tensors[s->nd->in[0]], *b = &s->m->tensors[s->nd->out[0]];
    int64_t isurf = (int64_t)in.w * in.h * in.c2, osurf = (int64_t)out.w * out.h * out.c2;
    if (sw != (uint32_t)in.w || sh != (uint32_t)in.h || 2 * sc != (uint32_t)in.c2 ||
        dw != 2 * sw || dh != sh || out.w != 2 * in.w || out.h != 2 * in.h || out.c != in.c ||
        dc != (uint32_t)out.c2 || in.c2 != out.c2 || dsurf != (int64_t)dw * out.c2 ||
        sadd != osurf || src % isurf || dst % osurf || src / isurf != dst / osurf ||
        (src / isurf + 1) * in.c2 > in.c + in.c2 - 1)
        STOP("task %d (node %s): source %ux%ux%u at 0x%llx, destination %ux%ux%u at 0x%llx "
             "(surface stride %lld, add %lld) do not make a 2x upsample of one surface of "
             "%dx%dx%d", s->ti, s->nn, sw, sh, sc, (long long)src, dw, dh, dc, (long long)dst,
             (long long)dsurf, (long long)sadd, in.w, in.h, in.c);
    if (!a->has_quant || !b->has_quant || a->scale != b->scale || a->zero_point != b->zero_point)
        STOP("task %d (node %s): input and output quantization differ", s->ti, s->nn);
    if (!s->mem->written[s->nd->in[0]])
        STOP("task %d (node %s): its input was not computed", s->ti, s->nn);
    const int8_t *from = in.p + src;
    int8_t *d = out.p + dst;
    for (int y = 0; y < out.h; y++)
        for (int x = 0; x < out.w; x++)
            memcpy(d + ((int64_t)y * out.w + x) * out.c2,
                   from + ((int64_t)(y / 2) * in.w + x / 2) * in.c2, (size_t)out.c2);
    wrote(s, s->nd->out[0], 0, out.h);
out:
    return rc;
}

/* rk3576's DPU-only Add, Sub and Mul (layout f2, DPU FEATURE_MODE 5; rocket-userspace's
 * add/bare_add, asym_add, sub, subrev, mul captures and the inverted residual's Add,
 * docs/rknn-format.md "Elementwise tasks on f2"): the node's first input through the
 * DPU_RDMA (0x5018) and the BS stage (emu_f2_dpu_bs: its slots at 0x5024), the second
 * through the ERDMA (0x5038, ERDMA_CFG 0x40000044) into the EW stage, its converter
 * signed: EW_CVT_SCALE bits 0..15 an int16 (negative for a Sub), bits 16..21 the shift,
 * EW_CVT_OFFSET the operand's -zero point; EW_CFG 0x8002c0c0 adds (as a conv's fused
 * add), 0x810f4094 multiplies:
 *   e = round((b + EW_CVT_OFFSET) * scale / 2^shift)
 *   v = BS(a) + e, or BS(a) * e
 *   y = sat8(round(v * OUT_CVT_SCALE / 2^OUT_CVT_SHIFT) + OUT_CVT_OFFSET) */
#define F2_EW_ADD 0x8002c0c0u
#define F2_EW_MUL 0x810f4094u
/* a constant int8 operand (addconst's k [1,32,16,16]): its bytes in the file, laid out as
 * an activation's native [1, C1, H, W, C2] (checked against mkadd.py's linspace, whose
 * every element differs); -1 when it is not such a tensor */
static int const_act(const emu_step *s, int idx, const uint8_t *file, size_t len, act *a)
{
    const rknn_tensor *t = &s->m->tensors[idx];
    if (t->nd != 4 || t->nnd != 5 || !t->shape || !t->native || t->shape[0] != 1 ||
        t->native[0] != 1 || t->native[2] != t->shape[2] || t->native[3] != t->shape[3] ||
        t->native[4] <= 0 || t->native[1] * t->native[4] < t->shape[1] || tensor_es(t) != 1 ||
        t->data_off < 0 || t->shape[1] > 1 << 16 || t->native[2] > 1 << 16 || t->native[3] > 1 << 16)
        return -1;
    int64_t need = t->native[1] * t->native[2] * t->native[3] * t->native[4];
    if (t->data_len < need || (uint64_t)t->data_off > len || (uint64_t)need > len - (uint64_t)t->data_off)
        return -1;
    a->c = (int)t->shape[1];
    a->h = (int)t->native[2];
    a->w = (int)t->native[3];
    a->c2 = (int)t->native[4];
    a->p = (int8_t *)(uintptr_t)(file + t->data_off); /* read only */
    a->bytes = need;
    a->es = 1;
    return 0;
}

int emu_run_f2_ew(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len)
{
    int rc = 0;
    act a, b, o;
    emu_f2_dpu_bs bs;
    uint32_t ewc = R(0x4084);
    int cw = (int)(R(0x4020) & 0x1fff) + 1, ch = (int)(R(0x4024) & 0x1fff) + 1;
    int cc = (int)(R(0x402c) & 0x1fff) + 1;
    int mul = R(0x407c) == F2_EW_MUL;
    if (R(0x400c) != 5 || R(0x4010) != 0 || R(0x5044) != 9 || (R(0x407c) != F2_EW_ADD && !mul) ||
        R(0x5034) != 0x40000044u || R(0x4060) != 0x903 || R(0x5028) != 0 || (ewc >> 22) ||
        R(0x5018) != 0 || R(0x5038) != 0 || t->dst_addr != 0 || t->out_cvt_shift < 0 ||
        t->out_cvt_shift > 40)
        STOP("task %d (node %s): DPU-only task (FEATURE_MODE 0x%x, DATA_FORMAT 0x%x, EW 0x%x, "
             "ERDMA 0x%x, BN 0x%x, EW_CVT_SCALE 0x%x): not an int8 elementwise add or multiply "
             "as emulated",
             s->ti, s->nn, R(0x400c), R(0x4010), R(0x407c), R(0x5034), R(0x4060), ewc);
    if ((rc = emu_f2_dpu_bs_load(s, file, len, &bs)))
        goto out;
    /* the second operand an activation, or a constant of the file (an Add of a constant) */
    int k = s->nd->n_in == 2 ? s->nd->in[1] : -1, kc = k >= 0 && !s->mem->buf[k];
    if (s->nd->n_in != 2 || in_out_acts(s, &a, &o) ||
        (kc ? const_act(s, k, file, len, &b) : tensor_act(s, k, &b)) ||
        a.c != o.c || b.c != o.c || a.h != o.h || b.h != o.h || a.w != o.w || b.w != o.w ||
        cc != o.c || ch != o.h || cw != o.w)
        STOP("task %d (node %s): not two inputs of the output's shape (cube %dx%dx%d)", s->ti,
             s->nn, cw, ch, cc);
    if (!s->mem->written[s->nd->in[0]] || (!kc && !s->mem->written[k]))
        STOP("task %d (node %s): an input was not computed", s->ti, s->nn);
    int es = (int)(ewc >> 16 & 0x3f);
    int64_t ewoff = (int16_t)(R(0x4080) & 0xffff), es_mul = (int16_t)(ewc & 0xffff);
    for (int c = 0; c < o.c; c++)
        for (int y = 0; y < o.h; y++)
            for (int x = 0; x < o.w; x++) {
                int64_t u = emu_f2_dpu_bs_at(&bs, a.p[act_off(&a, c, y, x)]);
                int64_t e = rshift_round((b.p[act_off(&b, c, y, x)] + ewoff) * es_mul, es);
                int64_t v = mul ? u * e : u + e;
                /* far out of int8's reach either way: held where v * OUT_CVT_SCALE fits */
                v = v > ((int64_t)1 << 46) ? (int64_t)1 << 46 : v < -((int64_t)1 << 46) ? -((int64_t)1 << 46) : v;
                o.p[act_off(&o, c, y, x)] =
                    sat8(rshift_round(v * t->out_cvt_scale, t->out_cvt_shift) + t->out_cvt_offset);
            }
    wrote(s, s->nd->out[0], 0, o.h);
out:
    return rc;
}
