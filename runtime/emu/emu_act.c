/* runtime/emu/emu_act.c — the activation stage after a conv on rk3576 (layout f2; f3
 * takes f2's words): the BS stage's shifts, the clamp, BN's PReLU and the LUT
 * (emu_internal.h; docs/rknn-format.md "Activations on f2"). Read off the vendor
 * captures of github.com/gregordinary/rocket-userspace (tests/data/rk3576-vendor-capture/
 * lut: mklut.py's Conv -> activation files beside their bare-conv control) and checked
 * against their ONNX formulas; register names after its RK3576 driver
 * (src/npu_regcmd_rk3576.c at e0677862: the LUT bank 0x4100..0x4194, the tables' window,
 * the shift word BS_BASE_ADDR1 points at). Only the words those files write are taken;
 * any other stops the run, naming it. */
#include "runtime/emu/emu_internal.h"

#include <string.h>

#define R(a) reg_or0(s->rs, s->grp, (a))

/* the LUT bank's words a task without the LUT leaves 0 (0x4100, 0x4104, 0x4120, 0x4130,
 * 0x4150, 0x4154, 0x4160 are 0 in every task: the layout's word table) */
static const uint16_t lut_words[] = {0x4108, 0x410c, 0x4110, 0x4114, 0x4118, 0x411c,
                                     0x4140, 0x4144, 0x4148, 0x414c, 0x4170, 0x4174,
                                     0x4184, 0x4188, 0x418c, 0x4190, 0x4194};

#define EW_LUT 0x01004140u    /* EW_CFG with its bypass (bit 0) and LUT bypass (bit 7) clear */
#define EW_OFF 0x010041c1u    /* EW_CFG bypassed: the plain conv's */
#define BN_NONE 0x903u
#define BN_CLAMP 0x902u
#define BN_PRELU 0x402u
#define BN_LUT 0x20u
#define NRDMA_PRELU 0x18u     /* the BN reader: a multiplier slot and a shift slot */
#define NRDMA_FULL 0x1au      /* ALU, ALU again, multiplier, shift */

/* The configuration buffer the file's address patches put at register addr of the task
 * (its own last write there, of value 0, patched with offset 0): *p its first n 16-byte
 * slots. 0 when no patch names that write, 1 found, -1 a patch that is not such a buffer. */
static int cfg_slots(const emu_step *s, uint16_t addr, const uint8_t *file, size_t len, int n,
                     const uint8_t **p, const char **name)
{
    const emu_stream *st = s->st;
    if (!st || st->entry0 < 0)
        return 0;
    for (int r = st->n_regs - 1; r >= 0; r--) {
        if (st->regs[r].addr != addr)
            continue;
        uint32_t off = 0;
        int ti = rknn_reloc_at(s->m, st->entry0 + r, &off);
        if (ti == -1)
            return 0;
        if (ti < 0 || ti >= s->m->n_tensors) /* a patch naming no tensor */
            return -1;
        const rknn_tensor *t = &s->m->tensors[ti];
        *name = t->name ? t->name : "?";
        if (off || st->regs[r].value || t->data_off < 0 ||
            t->data_len < 16 * (int64_t)n || (uint64_t)t->data_off > len ||
            (uint64_t)t->data_len > len - (uint64_t)t->data_off)
            return -1;
        *p = file + t->data_off;
        return 1;
    }
    return 0;
}

/* a shift word: bits 0..5 the right shift of a non-negative product, 8..13 of a negative
 * one (the driver's note on BS_BASE_ADDR1's word); -1 with other bits set */
static int shift_word(uint32_t w, int *pos, int *neg)
{
    if (w & ~0x3f3fu)
        return -1;
    *pos = (int)(w & 0x3f);
    *neg = (int)(w >> 8 & 0x3f);
    return 0;
}

int emu_f2_bs_shifts(const emu_step *s, const uint8_t *file, size_t len, int *pos, int *neg)
{
    int rc = 0;
    const uint8_t *c = NULL;
    const char *nm = "";
    *pos = *neg = 14; /* 0x4050's meaning where no buffer is patched in (docs) */
    int k = cfg_slots(s, 0x5024, file, len, 1, &c, &nm);
    if (k < 0 || (k > 0 && shift_word(rd_u32(c), pos, neg)))
        STOP("task %d (node %s): BS configuration buffer %s (patched at 0x5024): not a shift "
             "word at offset 0 of a constant tensor (bits 0..5 and 8..13 only)", s->ti, s->nn, nm);
out:
    return rc;
}

static int lut_word_set(const emu_step *s)
{
    for (size_t k = 0; k < sizeof lut_words / sizeof lut_words[0]; k++)
        if (R(lut_words[k]))
            return lut_words[k];
    return 0;
}

/* the words of a task without BN (0x903, 0x902): no BN reader, no LUT */
static int no_bn_words(const emu_step *s)
{
    int rc = 0, w = lut_word_set(s);
    if (w || R(0x5028) || R(0x407c) == EW_LUT)
        STOP("task %d (node %s): BN_CFG 0x%x with NRDMA_CFG 0x%x, EW_CFG 0x%x, LUT word 0x%04x = "
             "0x%x: a BN reader or the LUT without BN in use is not emulated", s->ti, s->nn,
             R(0x4060), R(0x5028), R(0x407c), w, w ? R((uint16_t)w) : 0);
out:
    return rc;
}

int emu_f2_clamp(const emu_step *s, const emu_task *t, int64_t *lo, int64_t *hi)
{
    int rc = 0;
    uint32_t bn = R(0x4060);
    int32_t l = (int32_t)R(0x406c), h = (int32_t)R(0x4070);
    int pairs = R(0x4074) == (uint32_t)l && R(0x4078) == (uint32_t)h;
    int full = l == INT32_MIN && h == INT32_MAX;
    if (!pairs || (bn == BN_NONE && !full) || (bn == BN_CLAMP && (full || l > h)) ||
        (bn == BN_CLAMP && t->ew_present && !t->ew_bypass) || (bn != BN_CLAMP && bn != BN_NONE))
        STOP("task %d (node %s): BN_CFG 0x%x with clamps [0x%x, 0x%x] / [0x%x, 0x%x]: only "
             "a plain conv (0x903, no clamp) or a clamped one without an EW add (0x902) is "
             "emulated", s->ti, s->nn, bn, (unsigned)l, (unsigned)h, R(0x4074), R(0x4078));
    if ((rc = no_bn_words(s)))
        goto out;
    *lo = l;
    *hi = h;
out:
    return rc;
}

/* float16's clamp pairs: float32 bits, the lower +0.0 (ReLU, ReLU6) and the upper
 * 0x7fffffff (none: above every float) or a positive finite float (6.0 = 0x40c00000) */
static int clamp_f(const emu_step *s, const emu_task *t, emu_f2_act *a)
{
    int rc = 0;
    uint32_t bn = R(0x4060), l = R(0x406c), h = R(0x4070);
    int pairs = R(0x4074) == l && R(0x4078) == h;
    int full = l == 0x80000000u && h == 0x7fffffffu;
    int upper = h == 0x7fffffffu || (h > 0 && h < 0x7f800000u);
    if (!pairs || (bn == BN_NONE && !full) || (bn == BN_CLAMP && (l != 0 || !upper)) ||
        (bn == BN_CLAMP && t->ew_present && !t->ew_bypass))
        STOP("task %d (node %s): float16 conv with BN_CFG 0x%x, clamps [0x%x, 0x%x] / [0x%x, "
             "0x%x]: only none (0x903) or a clamp from +0.0 to a positive float or to "
             "0x7fffffff (0x902) without an EW add is emulated", s->ti, s->nn, bn, l, h,
             R(0x4074), R(0x4078));
    if ((rc = no_bn_words(s)))
        goto out;
    if (bn == BN_CLAMP) {
        a->kind = EMU_ACT_CLAMP;
        a->flo = 0.0f;
        if (h != 0x7fffffffu)
            memcpy(&a->fhi, &h, sizeof a->fhi);
    }
out:
    return rc;
}

/* float16's BS words: the bias added (0x4044 2, BS_CFG 0x21011, BRDMA 0x100; the SDK
 * demo's bias-free convs no BRDMA word), or then a PReLU (0x4044 6, BS_CFG 0x1011,
 * BRDMA 0x108: its multiplier a float16 in the slot at 0x5024, the word's upper half the
 * sign repeated: 0x00002e66 is 0.1, 0xffffbc00 -1.0) */
static int bs_f(const emu_step *s, const uint8_t *file, size_t len, emu_f2_act *a)
{
    int rc = 0;
    uint32_t w44 = R(0x4044), w50 = R(0x4050) & ~0x100u, br = R(0x501c);
    if (w44 == 2 && w50 == 0x21011 && (br == 0x100 || br == 0))
        goto out;
    if (w44 != 6 || w50 != 0x1011 || br != 0x108)
        STOP("task %d (node %s): float16 BS words 0x4044 = 0x%x, BS_CFG 0x%x, BRDMA_CFG 0x%x: "
             "only the bias (2, 0x21011, 0x100) or the bias and a PReLU (6, 0x1011, 0x108) "
             "are emulated", s->ti, s->nn, w44, R(0x4050), br);
    const uint8_t *c = NULL;
    const char *nm = "(none)";
    uint32_t v = cfg_slots(s, 0x5024, file, len, 1, &c, &nm) > 0 ? rd_u32(c) : 0x10000u;
    if (v >> 16 != ((v & 0x8000) ? 0xffffu : 0))
        STOP("task %d (node %s): float16 PReLU: its BS configuration buffer %s (patched at "
             "0x5024) does not hold a float16 multiplier", s->ti, s->nn, nm);
    a->bs_prelu = 1;
    a->bs_alpha = rt_f16_to_f32((uint16_t)v);
out:
    return rc;
}

/* the LUT's registers (the conv task's: every LUT capture writes these values, the
 * tables alone differ): LUT_CFG 0x02000006; 0x410c the index step 2^sel twice (bits
 * 8..15, 16..23); four lanes of the low table's start (0x4110..0x411c) and of the high
 * table's end (0x4140..0x414c), -512 and 512 steps: the low table covers [start, 0],
 * the high one [0, end); the overflow slope (0x4170 / 0x4174, four 16-bit lanes) and its
 * shift (0x4184, four bytes); the values below the start (0x4188 upper half, 0x418c both)
 * and at or above the end (0x4190, 0x4194 alike) */
static int lut_regs(const emu_step *s, emu_f2_act *a)
{
    int rc = 0;
    uint32_t info = R(0x410c), sl = R(0x4170), sh = R(0x4184);
    uint32_t u = R(0x418c) & 0xffff, o = R(0x4194) & 0xffff;
    a->sel = (int)(info >> 8 & 0xff);
    a->lut_lo = (int32_t)R(0x4110);
    a->lut_hi = (int32_t)R(0x4140);
    int lanes = 1;
    for (uint16_t k = 4; k < 16; k += 4)
        lanes &= R(0x4110 + k) == R(0x4110) && R(0x4140 + k) == R(0x4140);
    if (R(0x4108) != 0x02000006 || info != ((uint32_t)a->sel << 16 | (uint32_t)a->sel << 8) ||
        a->sel > 16 || !lanes || a->lut_hi != (int64_t)512 << a->sel || a->lut_lo != -a->lut_hi ||
        R(0x4174) != sl || sl >> 16 != (sl & 0xffff) || sh != (sh & 0xff) * 0x01010101u ||
        (sh & 0xff) > 31 || R(0x4188) != u << 16 || R(0x418c) != (u | u << 16) ||
        R(0x4190) != o << 16 || R(0x4194) != (o | o << 16))
        STOP("task %d (node %s): LUT words LUT_CFG 0x%x, 0x410c 0x%x, window 0x%x..0x%x, "
             "overflow slope 0x%x >> 0x%x, ends 0x%x 0x%x / 0x%x 0x%x: not the form emulated "
             "(two 513-entry tables of 512 steps either side of 0)", s->ti, s->nn, R(0x4108),
             info, R(0x4110), R(0x4140), sl, sh, R(0x4188), R(0x418c), R(0x4190), R(0x4194));
    /* the underflow slope (0x4150 / 0x4154, its shift 0x4160: 0 in every conv task, set in
     * the DPU-only sigmoid and softplus, whose LUT clamp 0x4088 then holds the value >= 0) */
    uint32_t us = R(0x4150), ush = R(0x4160);
    if (R(0x4154) != us || us >> 16 != (us & 0xffff) || ush != (ush & 0xff) * 0x01010101u ||
        (ush & 0xff) > 31)
        STOP("task %d (node %s): LUT underflow slope 0x%x / 0x%x >> 0x%x: not four equal "
             "16-bit lanes and four equal shift bytes", s->ti, s->nn, us, R(0x4154), ush);
    a->uslope = (int16_t)(us & 0xffff);
    a->uslope_shift = (int)(ush & 0xff);
    a->slope = (int16_t)(sl & 0xffff);
    a->slope_shift = (int)(sh & 0xff);
    a->under = (int16_t)u;
    a->over = (int16_t)o;
    if (s->mem->lut.n_le != LUT_N || s->mem->lut.n_lo != LUT_N)
        STOP("task %d (node %s): LUT activation with no table uploaded before it (a DPU-only "
             "task writing 513 entries of each through 0x4100 / 0x4104)", s->ti, s->nn);
    memcpy(a->le, s->mem->lut.le, sizeof a->le);
    memcpy(a->lo_tab, s->mem->lut.lo, sizeof a->lo_tab);
out:
    return rc;
}

/* BN in use (0x402, 0x20): its reader's slots at 0x5030, no clamp, no EW add */
static int bn_stage(const emu_step *s, const uint8_t *file, size_t len, emu_f2_act *a)
{
    int rc = 0;
    uint32_t bn = R(0x4060), nrdma = R(0x5028), ew = R(0x407c);
    int lut = bn == BN_LUT, f = a->fp16;
    int full = R(0x406c) == 0x80000000u && R(0x4070) == 0x7fffffffu &&
               R(0x4074) == 0x80000000u && R(0x4078) == 0x7fffffffu;
    if ((bn != BN_LUT && bn != BN_PRELU) || (bn == BN_PRELU && f) ||
        nrdma != (lut ? NRDMA_FULL : NRDMA_PRELU) || ew != (lut ? EW_LUT : EW_OFF) || !full ||
        (!lut && lut_word_set(s)))
        STOP("task %d (node %s): %s BN_CFG 0x%x, NRDMA_CFG 0x%x, EW_CFG 0x%x: only a BN PReLU "
             "(0x402, 0x18, EW bypassed, int8) or BN into the LUT (0x20, 0x1a, 0x%x) with the "
             "clamps open is emulated", s->ti, s->nn, f ? "float16" : "int8", bn, nrdma, ew,
             EW_LUT);
    const uint8_t *c = NULL;
    const char *nm = "(none)";
    int n = lut ? 4 : 2, k = cfg_slots(s, 0x5030, file, len, n, &c, &nm);
    if (k <= 0)
        STOP("task %d (node %s): BN configuration buffer %s (patched at 0x5030): not %d "
             "16-byte slots of a constant tensor", s->ti, s->nn, nm, n);
    /* the slots: [ALU, ALU, multiplier, shift] (0x1a) or [multiplier, shift] (0x18) */
    uint32_t alu = rd_u32(c), alu2 = rd_u32(c + 16), mul = rd_u32(c + 16 * (n - 2));
    uint32_t shw = rd_u32(c + 16 * (n - 1));
    int mul_ok = f ? (mul >> 16) == ((mul & 0x8000) ? 0xffffu : 0)
                   : (int32_t)mul == (int16_t)(mul & 0xffff);
    if ((lut && alu2 != alu) || !mul_ok || (f ? shw != 0 : shift_word(shw, &a->bn_pos, &a->bn_neg)) ||
        (!lut && (a->bn_pos || a->bn_neg)))
        STOP("task %d (node %s): BN configuration buffer %s: ALU 0x%x / 0x%x, multiplier 0x%x, "
             "shift word 0x%x: not the form emulated (%s)", s->ti, s->nn, nm, alu, alu2, mul, shw,
             lut ? "two equal ALU slots, an int16 or float16 multiplier, a shift word" :
                   "an int16 multiplier, shift word 0");
    if (f) {
        memcpy(&a->bn_falu, &alu, sizeof a->bn_falu);
        a->bn_fmul = rt_f16_to_f32((uint16_t)mul);
    } else {
        a->bn_alu = lut ? (int32_t)alu : 0;
        a->bn_mul = (int16_t)(mul & 0xffff);
    }
    a->kind = lut ? EMU_ACT_LUT : EMU_ACT_PRELU;
    if (lut && (rc = lut_regs(s, a)))
        goto out;
    /* float16 out of the LUT: OUT_CVT scale with the float conversion (bit 16) and a
     * shift whose bits 12..15 hold 0xf, the entries' 2^-15; its offset word 1 (every
     * float16 LUT capture; not applied: at most 2^-15 of an entry's scale) */
    if (lut && f) {
        uint32_t sc = R(0x40b0), shf = R(0x40b4);
        if (R(0x40ac) != 1 || sc >> 16 != 1 || (shf & 0xfffff000u) != 0xf000u || (shf & 0xfff) > 40)
            STOP("task %d (node %s): float16 LUT output words OUT_CVT 0x%x / 0x%x / 0x%x: only "
                 "offset 1, scale with bit 16 and shift 0xf00N are emulated", s->ti, s->nn,
                 R(0x40ac), sc, shf);
        a->out_mul = (double)(sc & 0xffff) / (double)((int64_t)1 << (shf & 0xfff)) / 32768.0;
    }
out:
    return rc;
}

int emu_f2_act_load(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len,
                    emu_f2_act *a)
{
    int rc = 0;
    uint32_t bn = R(0x4060);
    memset(a, 0, sizeof *a);
    a->fp16 = t->out_prec == 2;
    a->lo = a->out_lo = INT32_MIN;
    a->hi = INT32_MAX;
    a->flo = -INFINITY;
    a->fhi = INFINITY;
    if ((rc = a->fp16 ? bs_f(s, file, len, a) : emu_f2_bs_shifts(s, file, len, &a->bs_pos, &a->bs_neg)))
        goto out;
    if (bn == BN_NONE || bn == BN_CLAMP) {
        if (a->fp16)
            rc = clamp_f(s, t, a);
        else if (!(rc = emu_f2_clamp(s, t, &a->lo, &a->hi)))
            a->kind = bn == BN_CLAMP ? EMU_ACT_CLAMP : EMU_ACT_NONE;
    } else {
        rc = bn_stage(s, file, len, a);
    }
    /* float16 without the LUT: OUT_CVT's shift word without the LUT's 0xf (its offset,
     * scale and shift are the identity: emu_run_conv16) */
    if (!rc && a->fp16 && a->kind != EMU_ACT_LUT && (R(0x40b4) & 0xf000))
        STOP("task %d (node %s): float16 OUT_CVT shift word 0x%x: bits 12..15 only with the "
             "LUT", s->ti, s->nn, R(0x40b4));
out:
    return rc;
}

int64_t emu_f2_bs(const emu_f2_act *a, int64_t prod)
{
    return rshift_round(prod, prod >= 0 ? a->bs_pos : a->bs_neg);
}

/* the LUT at w (int8: the BN output; float16: its float): below the low table's start
 * the under value, from the high table's end the over value plus the slope, between
 * them linear between the entries either side (the step 2^sel) */
static double lut_at(const emu_f2_act *a, double w)
{
    if (w != w)
        return w;
    if (w < (double)a->lut_lo)
        return (double)a->under + (w - (double)a->lut_lo) * (double)a->uslope /
                                      (double)((int64_t)1 << a->uslope_shift);
    if (w >= (double)a->lut_hi)
        return a->slope ? (double)a->over + (w - (double)a->lut_hi) * (double)a->slope /
                                                (double)((int64_t)1 << a->slope_shift)
                        : (double)a->over;
    const int32_t *T = w < 0 ? a->le : a->lo_tab;
    double q = (w < 0 ? w - (double)a->lut_lo : w) / (double)((int64_t)1 << a->sel);
    int i = (int)q;
    if (i > LUT_N - 2)
        i = LUT_N - 2;
    return T[i] + ((double)T[i + 1] - T[i]) * (q - i);
}

/* the integer form: the interpolation and the slope rounded as every other product
 * (half up), a result the model's own arithmetic, not compared bit for bit */
static int64_t lut_at_int(const emu_f2_act *a, int64_t w)
{
    if (w < a->lut_lo) /* far below the start the int8 output saturates whatever the width */
        return a->under + rshift_round((a->lut_lo - w < ((int64_t)1 << 46) ? w - a->lut_lo
                                                                            : -((int64_t)1 << 46)) *
                                               a->uslope,
                                       a->uslope_shift);
    if (w >= a->lut_hi) /* far beyond the end the int8 output saturates whatever the width */
        return a->over + rshift_round((w - a->lut_hi < ((int64_t)1 << 46) ? w - a->lut_hi
                                                                           : (int64_t)1 << 46) *
                                              a->slope,
                                      a->slope_shift);
    const int32_t *T = w < 0 ? a->le : a->lo_tab;
    int64_t d = w < 0 ? w - a->lut_lo : w, i = d >> a->sel, f = d & (((int64_t)1 << a->sel) - 1);
    return T[i] + rshift_round(((int64_t)T[i + 1] - T[i]) * f, a->sel);
}

int64_t emu_f2_act_int(const emu_f2_act *a, int64_t v)
{
    switch (a->kind) {
    case EMU_ACT_CLAMP:
        return v < a->lo ? a->lo : v > a->hi ? a->hi : v;
    case EMU_ACT_PRELU:
        return v < 0 ? rshift_round(v * a->bn_mul, a->bn_neg) : v;
    case EMU_ACT_LUT: {
        int64_t p = (v + a->bn_alu) * a->bn_mul, y;
        y = lut_at_int(a, rshift_round(p, p >= 0 ? a->bn_pos : a->bn_neg));
        return y < a->out_lo ? a->out_lo : y;
    }
    default:
        return v;
    }
}

float emu_f2_act_float(const emu_f2_act *a, float x)
{
    if (a->bs_prelu && x < 0)
        x *= a->bs_alpha;
    if (a->kind == EMU_ACT_CLAMP)
        return x < a->flo ? a->flo : x > a->fhi ? a->fhi : x;
    if (a->kind == EMU_ACT_LUT)
        return (float)(lut_at(a, (double)((x + a->bn_falu) * a->bn_fmul)) * a->out_mul);
    return x;
}

/* ---- an activation alone: a DPU-only task (DPU FEATURE_MODE 5) ---------------
 * rocket-userspace's lut/bare_*_i8 captures: the DPU_RDMA reads the node's int8 input
 * (0x5044 9, 0x5018 the input tensor), then BS, BN (or the LUT) and OUT_CVT as after a
 * conv, with the input byte q in place of the accumulator:
 *   BS 0x4050 0x20000, 0x4044 2: v = q + ALU (BRDMA 0x501c 2: the ALU slot of the
 *     buffer at 0x5024; 0: no reader, 0), then held to BS's clamp pair 0x4048 / 0x404c
 *     (0x4058 / 0x405c alike): ReLU [0, 0x7fffffff], ReLU6 [0, 255]
 *   BS 0x4050 0, 0x4044 0, BRDMA 0x1a: v = (q + ALU) * multiplier >> the shift word's
 *     shift by the product's sign (the four slots at 0x5024), clamp pair open
 *   BN 0x903, 0x402 (PReLU), 0x20 (the LUT) as after a conv; the LUT's value held
 *   >= 0 where 0x4088 / 0x40a4 say 0 (0x80000000: open)
 *   y = sat8(round(v * OUT_CVT_SCALE / 2^OUT_CVT_SHIFT) + OUT_CVT_OFFSET) */
int emu_f2_dpu_bs_load(const emu_step *s, const uint8_t *file, size_t len, emu_f2_dpu_bs *b)
{
    int rc = 0;
    uint32_t w50 = R(0x4050), w44 = R(0x4044), br = R(0x501c);
    int32_t lo = (int32_t)R(0x4048), hi = (int32_t)R(0x404c);
    const uint8_t *c = NULL;
    const char *nm = "(none)";
    int alu_only = w50 == 0x20000 && w44 == 2 && (br == 0 || br == 2);
    int four = w50 == 0 && w44 == 0 && br == 0x1a;
    if ((!alu_only && !four) || R(0x4058) != (uint32_t)lo || R(0x405c) != (uint32_t)hi || lo > hi ||
        (four && (lo != INT32_MIN || hi != INT32_MAX)))
        STOP("task %d (node %s): DPU-only BS words 0x4044 0x%x, BS_CFG 0x%x, BRDMA 0x%x, "
             "clamps [0x%x, 0x%x] / [0x%x, 0x%x]: only the ALU with a clamp (2, 0x20000, 0 or 2) "
             "or ALU, multiplier and shift (0, 0, 0x1a) are emulated", s->ti, s->nn, w44, w50,
             br, (unsigned)lo, (unsigned)hi, R(0x4058), R(0x405c));
    b->alu = 0;
    b->mul = 1;
    b->pos = b->neg = 0;
    b->lo = lo;
    b->hi = hi;
    if (br == 0)
        goto out;
    int n = br == 2 ? 1 : 4;
    if (cfg_slots(s, 0x5024, file, len, n, &c, &nm) <= 0)
        STOP("task %d (node %s): BS configuration buffer %s (patched at 0x5024): not %d "
             "16-byte slots of a constant tensor", s->ti, s->nn, nm, n);
    b->alu = (int32_t)rd_u32(c);
    if (n == 4) {
        uint32_t alu2 = rd_u32(c + 16), mul = rd_u32(c + 32);
        if (alu2 != rd_u32(c) || (int32_t)mul != (int16_t)(mul & 0xffff) ||
            shift_word(rd_u32(c + 48), &b->pos, &b->neg))
            STOP("task %d (node %s): BS configuration buffer %s: ALU 0x%x / 0x%x, multiplier "
                 "0x%x, shift word 0x%x: not two equal ALU slots, an int16 multiplier and a "
                 "shift word", s->ti, s->nn, nm, rd_u32(c), alu2, mul, rd_u32(c + 48));
        b->mul = (int16_t)(mul & 0xffff);
    }
out:
    return rc;
}

/* BN of a DPU-only task: none (0x903, its clamp pairs open), or bn_stage's forms; the
 * LUT's output clamp 0x4088 (0x40a4 alike): 0 or open */
static int dpu_bn_load(const emu_step *s, const uint8_t *file, size_t len, emu_f2_act *a)
{
    int rc = 0;
    uint32_t bn = R(0x4060), cl = R(0x4088);
    if (bn == BN_NONE) {
        int64_t lo, hi;
        if ((rc = emu_f2_clamp(s, &(emu_task){0}, &lo, &hi)))
            goto out;
    } else if ((rc = bn_stage(s, file, len, a))) {
        goto out;
    }
    if (R(0x40a4) != cl || R(0x408c) != 0x7fffffffu || R(0x40a8) != 0x7fffffffu ||
        (cl != 0x80000000u && (cl != 0 || a->kind != EMU_ACT_LUT)))
        STOP("task %d (node %s): LUT clamps [0x%x, 0x%x] / [0x%x, 0x%x]: only open or from 0 "
             "after the LUT are emulated", s->ti, s->nn, cl, R(0x408c), R(0x40a4), R(0x40a8));
    if (cl == 0)
        a->out_lo = 0;
out:
    return rc;
}

int emu_run_f2_dpu_act(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len)
{
    int rc = 0;
    act in, o;
    emu_f2_dpu_bs b = {0};
    emu_f2_act a;
    memset(&a, 0, sizeof a);
    a.lo = a.out_lo = INT32_MIN;
    a.hi = INT32_MAX;
    if (R(0x400c) != 5 || R(0x4010) != 0 || R(0x5044) != 9 ||
        (R(0x407c) != EW_OFF && R(0x407c) != EW_LUT) ||
        R(0x5018) != 0 || t->dst_addr != 0 || t->out_prec != 0 ||
        t->out_cvt_shift < 0 || t->out_cvt_shift > 40)
        STOP("task %d (node %s): DPU-only task (FEATURE_MODE 0x%x, DATA_FORMAT 0x%x, RDMA mode "
             "0x%x, EW 0x%x, source 0x%llx, destination 0x%llx): not an int8 activation of a "
             "whole tensor as emulated", s->ti, s->nn, R(0x400c), R(0x4010), R(0x5044),
             R(0x407c), (long long)R(0x5018), (long long)t->dst_addr);
    /* the cube: DPU 0x4020 / 0x4024 / 0x402c, each size - 1 (the DPU_RDMA's 0x500c..0x5014
     * alike) */
    int cw = (int)(R(0x4020) & 0x1fff) + 1, ch = (int)(R(0x4024) & 0x1fff) + 1;
    int cc = (int)(R(0x402c) & 0x1fff) + 1;
    if (in_out_acts(s, &in, &o) || in.c != o.c || in.h != o.h || in.w != o.w || cc != o.c ||
        ch != o.h || cw != o.w || R(0x500c) != R(0x4020) || R(0x5010) != R(0x4024) ||
        R(0x5014) != R(0x402c))
        STOP("task %d (node %s): input and output not two activations of the cube %dx%dx%d",
             s->ti, s->nn, cw, ch, cc);
    if (!s->mem->written[s->nd->in[0]])
        STOP("task %d (node %s): its input was not computed", s->ti, s->nn);
    if ((rc = emu_f2_dpu_bs_load(s, file, len, &b)) || (rc = dpu_bn_load(s, file, len, &a)))
        goto out;
    for (int c = 0; c < o.c; c++)
        for (int y = 0; y < o.h; y++)
            for (int x = 0; x < o.w; x++) {
                int64_t v = emu_f2_act_int(&a, emu_f2_dpu_bs_at(&b, in.p[act_off(&in, c, y, x)]));
                o.p[act_off(&o, c, y, x)] =
                    sat8(rshift_round(v * t->out_cvt_scale, t->out_cvt_shift) + t->out_cvt_offset);
            }
    wrote(s, s->nd->out[0], 0, o.h);
out:
    return rc;
}

int64_t emu_f2_dpu_bs_at(const emu_f2_dpu_bs *b, int64_t q)
{
    int64_t p = (q + b->alu) * b->mul, v = rshift_round(p, p >= 0 ? b->pos : b->neg);
    return v < b->lo ? b->lo : v > b->hi ? b->hi : v;
}
