/* runtime/emu/emu_dw_rk3588.c — rk3588's BN-stage ReLUX (ReLU6 of a ConvClip) and
 * its int8 depthwise conv tasks (docs/rknn-format.md "ReLUX and depthwise on
 * rk3588"). Read off a toolkit 2.3.2 mobilenet_v2.rk3588 file; the register names
 * are the public RK3588 map's (Mesa rocket registers.xml: DPU_BN_CFG 0x4060 with
 * bn_relux_en at bit 7, DPU_BN_RELUX_CMP_VALUE 0x406c). */
#include "runtime/emu/emu_internal.h"

#include <stdlib.h>

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
