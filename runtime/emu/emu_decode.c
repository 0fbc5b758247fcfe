/* runtime/emu/emu_decode.c — one task's register writes -> emu_task.
 * Field positions: the RK3588 register descriptions (see emu_map.c); sizes
 * the hardware takes as N-1 (CORE/DPU/PPU cubes, DATAIN_CHANNEL_REAL, pool
 * kernels) are given back as N. Precision codes: 0 int8, 2 fp16, 4 int32,
 * 5 fp32 (mtx512/rk3588-npu), 1 int16 (NVDLA's order; not seen yet). */
#include <stdio.h>
#include <string.h>
#include "runtime/emu/emu.h"
#include "util/util.h"
#include <stdlib.h>

/* A register file of one task: its own writes (the last write of an address
 * wins: the vendor writes CNA_CBUF_CON0 twice), then what earlier tasks of
 * its register group left (one entry per address, sorted; none: nbase 0). */
typedef struct regfile {
    const emu_reg *r;
    int n;
    const emu_reg *base;
    int nbase;
    int own_blocks; /* EMU_BLK_* the task writes: only those inherit */
    int *inherited; /* set when a value read comes from the base */
} regfile;

static int block_of(uint16_t addr);

/* Index of the last entry of r[0..n) (sorted by address) with address
 * addr, -1 none. */
static int find_last(const emu_reg *r, int n, uint16_t addr)
{
    int lo = 0, hi = n;
    while (lo < hi) { /* first entry above addr */
        int mid = (lo + hi) / 2;
        if (r[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && r[lo - 1].addr == addr ? lo - 1 : -1;
}

/* f->r sorted by address, and by position within an address (sort_own):
 * the last of equal addresses is the last write. */
static int get(const regfile *f, uint16_t addr, uint32_t *v)
{
    int i = find_last(f->r, f->n, addr);
    if (i >= 0) {
        *v = f->r[i].value;
        return 1;
    }
    if ((block_of(addr) & f->own_blocks) && (i = find_last(f->base, f->nbase, addr)) >= 0) {
        *v = f->base[i].value;
        *f->inherited = 1;
        return 1;
    }
    return 0;
}

static int get_cb(const void *ctx, uint16_t addr, uint32_t *v)
{
    return get(ctx, addr, v);
}

static uint32_t bits(uint32_t v, int lo, int hi)
{
    return (v >> lo) & (uint32_t)((1ull << (hi - lo + 1)) - 1);
}

static void note(emu_task *t, const char *s)
{
    size_t l = strlen(t->notes);
    snprintf(t->notes + l, sizeof(t->notes) - l, "%s%s", l ? "; " : "", s);
}

static void check_prec(emu_task *t, int p, const char *what)
{
    char buf[64];
    if (p >= 0 && !strncmp(emu_prec_name(p), "prec", 4)) {
        snprintf(buf, sizeof buf, "%s precision code %d unknown", what, p);
        note(t, buf);
    }
}

const char *emu_prec_name(int prec)
{
    static const char *const n[8] = {"int8", "int16", "fp16", "prec3", "int32", "fp32", "prec6",
                                     "prec7"};
    return prec >= 0 && prec < 8 ? n[prec] : "none";
}

const char *emu_op_name(int op)
{
    static const char *const n[] = {"undecoded", "unknown", "conv", "depthwise", "pool",
                                    "eltwise", "matmul"};
    return op >= 0 && op < (int)(sizeof n / sizeof n[0]) ? n[op] : "?";
}

void emu_regs_parse(const uint8_t *p, size_t n, int fmt, emu_reg *out)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t e = 0;
        for (int b = 7; b >= 0; b--)
            e = e << 8 | p[8 * i + (size_t)b];
        if (fmt == EMU_FMT_VR) {
            out[i].target = (uint16_t)(e & 0xffff);
            out[i].addr = (uint16_t)(e >> 16);
            out[i].value = (uint32_t)(e >> 32);
        } else {
            out[i].target = (uint16_t)(e >> 48);
            out[i].addr = (uint16_t)(e & 0xffff);
            out[i].value = (uint32_t)(e >> 16);
        }
    }
}

static void stage(const regfile *f, uint16_t base, emu_dpu_stage *s)
{
    uint32_t cfg, alu = 0, mul = 0, cmp = 0;
    if (!get(f, base, &cfg))
        return;
    s->present = 1;
    s->bypass = (int)bits(cfg, 0, 0);
    s->alu_bypass = (int)bits(cfg, 1, 1);
    s->mul_bypass = (int)bits(cfg, 4, 4);
    s->mul_prelu = (int)bits(cfg, 5, 5);
    s->relu_bypass = (int)bits(cfg, 6, 6);
    s->relux_en = (int)bits(cfg, 7, 7);
    s->alu_src = (int)bits(cfg, 8, 8);
    s->alu_algo = (int)bits(cfg, 16, 19);
    get(f, (uint16_t)(base + 4), &alu);
    get(f, (uint16_t)(base + 8), &mul);
    get(f, (uint16_t)(base + 12), &cmp);
    s->alu_operand = (int32_t)alu;
    s->mul_src = (int)bits(mul, 0, 0);
    s->truncate_src = (int)bits(mul, 1, 1);
    s->mul_shift = (int)bits(mul, 8, 13);
    s->mul_operand = (int)(int16_t)bits(mul, 16, 31);
    s->relux_cmp = cmp;
}

static void init(emu_task *t, int map, int n)
{
    memset(t, 0, sizeof *t);
    t->map = map;
    t->n_regs = n;
    /* -1: the task does not write it */
    t->ew_cvt_offset = INT64_MIN; /* any int32 is a valid offset */
    t->ew_cvt_scale = -1;
    int *ints[] = {&t->conv_mode, &t->in_w, &t->in_h, &t->in_c, &t->in_c_real, &t->kw, &t->kh,
                   &t->kernels, &t->stride_x, &t->stride_y, &t->dil_x, &t->dil_y, &t->pad_top,
                   &t->pad_left, &t->in_prec, &t->proc_prec,
                   &t->cvt_bypass, &t->core_w, &t->core_h, &t->core_c, &t->clip_truncate,
                   &t->out_w, &t->out_h, &t->out_c, &t->out_c_orig, &t->out_prec, &t->dpu_in_prec,
                   &t->dpu_conv_mode, &t->dpu_output_mode, &t->dpu_flying, &t->ew_bypass,
                   &t->ew_op_type, &t->ew_lut_bypass, &t->ew_alu_algo, &t->ew_op_src,
                   &t->ew_binary, &t->out_cvt_scale, &t->out_cvt_shift, &t->brdma_use,
                   &t->nrdma_use, &t->erdma_disable, &t->mrdma_disable, &t->pool_method,
                   &t->pool_kw, &t->pool_kh, &t->pool_sx, &t->pool_sy, &t->pool_in_w,
                   &t->pool_in_h, &t->pool_in_c, &t->pool_out_w, &t->pool_out_h,
                   &t->pool_out_c};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        *ints[i] = -1;
    int64_t *l[] = {&t->feature_addr, &t->weight_addr, &t->line_stride, &t->surf_stride,
                    &t->weight_bytes, &t->weight_bytes_per_kernel, &t->dst_addr,
                    &t->dst_surf_stride, &t->surface_add, &t->out_cvt_offset, &t->bs_addr, &t->bn_addr,
                    &t->ew_addr, &t->rdma_src_addr, &t->pool_src_addr, &t->pool_dst_addr};
    for (size_t i = 0; i < sizeof l / sizeof l[0]; i++)
        *l[i] = -1;
    for (int i = 0; i < 4; i++)
        t->pool_pad[i] = -1;
}

static void decode_cna(const regfile *f, emu_task *t)
{
    uint32_t v;
    if (get(f, 0x100c, &v)) {
        t->conv_mode = (int)bits(v, 0, 3);
        t->in_prec = (int)bits(v, 4, 6);
        t->proc_prec = (int)bits(v, 7, 9);
        if (bits(v, 16, 16))
            note(t, "deconvolution bit set (not interpreted)");
        if (t->conv_mode != 0 && t->conv_mode != 3) {
            char b[48];
            snprintf(b, sizeof b, "CNA conv mode %d unknown", t->conv_mode);
            note(t, b);
        }
        check_prec(t, t->in_prec, "CNA input");
        check_prec(t, t->proc_prec, "CNA processing");
    }
    if (get(f, 0x1014, &v)) {
        t->stride_x = (int)bits(v, 0, 2);
        t->stride_y = (int)bits(v, 3, 5);
        /* the atrous fields hold dilation - 1 */
        t->dil_x = (int)bits(v, 16, 20) + 1;
        t->dil_y = (int)bits(v, 21, 25) + 1;
    }
    if (get(f, 0x1020, &v)) {
        t->in_w = (int)bits(v, 16, 26);
        t->in_h = (int)bits(v, 0, 10);
    }
    if (get(f, 0x1024, &v)) {
        t->in_c = (int)bits(v, 0, 15);
        t->in_c_real = (int)bits(v, 16, 29) + 1;
    }
    if (get(f, 0x1030, &v))
        t->weight_bytes = v;
    if (get(f, 0x1034, &v))
        t->weight_bytes_per_kernel = bits(v, 0, 18);
    if (get(f, 0x1038, &v)) {
        t->kw = (int)bits(v, 24, 28);
        t->kh = (int)bits(v, 16, 20);
        t->kernels = (int)bits(v, 0, 13);
    }
    if (get(f, 0x104c, &v))
        t->cvt_bypass = (int)bits(v, 0, 0);
    for (int i = 0; i < 4; i++)
        if (get(f, (uint16_t)(0x1050 + 4 * i), &v)) {
            t->cvt_scale[i] = (int)bits(v, 16, 31);
            t->cvt_offset[i] = (int)(int16_t)bits(v, 0, 15);
        }
    if (get(f, 0x1068, &v)) {
        t->pad_top = (int)bits(v, 0, 3);
        /* RV110x: left at 8..11 (its tiles write 0x101, 0x100, 0: top/left
         * pads of 1 give symmetric bottom/right pads that way) */
        t->pad_left = t->map == EMU_MAP_RV110X ? (int)bits(v, 8, 11) : (int)bits(v, 4, 7);
    }
    if (get(f, 0x1070, &v))
        t->feature_addr = v;
    if (get(f, 0x1110, &v))
        t->weight_addr = v;
    if (get(f, 0x107c, &v))
        t->line_stride = bits(v, 0, 27);
    if (get(f, 0x1080, &v))
        t->surf_stride = bits(v, 0, 27);
    /* DATAIN_CHANNEL_REAL holds 63 (64 channels) for every input of 128 channels or
     * more in toolkit 2.3.0's rk3588 files (yolov5n-seg's 128, 256 and 512; the SDK's
     * pp_human_segv2: 128), while a kernel's weight bytes (0x1034) count every
     * channel: the channels are then the aligned count, when the weights say so.
     * Toolkit 2.3.2 writes the same low 6 bits for other counts (mobilenet_v2.rk3588:
     * 0x1f, 32 channels, for 96; 576 and 960 too): (C - 1) mod 64 in both */
    if (t->in_c > 64 && t->in_c_real == ((t->in_c - 1) & 0x3f) + 1 && t->kw > 0 && t->kh > 0 &&
        t->weight_bytes_per_kernel == (int64_t)t->in_c * t->kw * t->kh * (t->proc_prec == 2 ? 2 : 1))
        t->in_c_real = t->in_c;
    if (get(f, 0x1184, &v)) {
        /* RV110x writes the pad value as 16 bits (0xffad = -83, the input's zero point) */
        t->pad_value = t->map == EMU_MAP_RV110X ? (int32_t)(int16_t)v : (int32_t)v;
        t->has_pad_value = 1;
    }
}

static void decode_core(const regfile *f, emu_task *t)
{
    uint32_t v;
    int rk3588 = t->map != EMU_MAP_RK356X;
    uint16_t misc = rk3588 ? 0x3010 : 0x300c, size0 = rk3588 ? 0x3014 : 0x3010,
             size1 = rk3588 ? 0x3018 : 0x3014;
    if (get(f, misc, &v)) {
        int p = (int)bits(v, 8, 10);
        if (bits(v, 1, 1) && t->conv_mode != 3)
            note(t, "CORE depthwise bit without CNA depthwise mode");
        if (bits(v, 1, 1))
            t->conv_mode = 3;
        if (p != t->proc_prec && t->proc_prec >= 0)
            note(t, "CORE and CNA processing precisions differ");
    }
    if (get(f, size0, &v)) {
        t->core_h = (int)bits(v, 16, 31) + 1;
        t->core_w = (int)bits(v, 0, 15) + 1;
    }
    if (get(f, size1, &v))
        t->core_c = (int)bits(v, 0, 15) + 1;
    if (rk3588 && get(f, 0x301c, &v))
        t->clip_truncate = (int)bits(v, 0, 4);
}

static void decode_dpu(const regfile *f, emu_task *t)
{
    uint32_t v;
    if (get(f, 0x400c, &v)) {
        t->dpu_flying = (int)bits(v, 0, 0);
        t->dpu_output_mode = (int)bits(v, 1, 2);
        t->dpu_conv_mode = (int)bits(v, 3, 4);
    }
    if (get(f, 0x4010, &v)) {
        t->out_prec = (int)bits(v, 29, 31);
        t->dpu_in_prec = (int)bits(v, 26, 28);
        check_prec(t, t->out_prec, "DPU output");
        check_prec(t, t->dpu_in_prec, "DPU input");
    }
    if (get(f, 0x4020, &v))
        t->dst_addr = v;
    if (get(f, 0x4024, &v))
        t->dst_surf_stride = bits(v, 4, 31);
    if (get(f, 0x4030, &v))
        t->out_w = (int)bits(v, 0, 12) + 1;
    if (get(f, 0x4034, &v))
        t->out_h = (int)bits(v, 0, 12) + 1;
    if (get(f, 0x403c, &v)) {
        t->out_c = (int)bits(v, 0, 12) + 1;
        t->out_c_orig = (int)bits(v, 16, 28) + 1;
    }
    stage(f, 0x4040, &t->bs);
    stage(f, 0x4060, &t->bn);
    if (get(f, 0x4070, &v)) {
        t->ew_present = 1;
        t->ew_bypass = (int)bits(v, 0, 0);
        t->ew_op_type = (int)bits(v, 2, 2);
        t->ew_op_src = (int)bits(v, 6, 6);
        t->ew_lut_bypass = (int)bits(v, 7, 7);
        t->ew_alu_algo = (int)bits(v, 16, 19);
        t->ew_binary = (int)bits(v, 20, 20);
        if (!t->ew_bypass && !t->ew_lut_bypass)
            t->lut_used = 1;
    }
    if (get(f, 0x4074, &v))
        t->ew_cvt_offset = (int32_t)v;
    if (get(f, 0x4078, &v))
        t->ew_cvt_scale = v;
    if (get(f, 0x4080, &v))
        t->out_cvt_offset = (int32_t)v;
    if (get(f, 0x4084, &v))
        t->out_cvt_scale = (int)bits(v, 0, 15);
    if (get(f, 0x4088, &v))
        t->out_cvt_shift = (int)bits(v, 0, 11);
}

static void decode_rdma(const regfile *f, emu_task *t)
{
    uint32_t v;
    if (get(f, 0x5018, &v))
        t->rdma_src_addr = v;
    if (get(f, 0x501c, &v))
        t->brdma_use = (int)bits(v, 1, 4);
    if (get(f, 0x5020, &v))
        t->bs_addr = v;
    if (get(f, 0x5028, &v))
        t->nrdma_use = (int)bits(v, 1, 4);
    if (get(f, 0x502c, &v))
        t->bn_addr = v;
    if (get(f, 0x5034, &v))
        t->erdma_disable = (int)bits(v, 0, 0);
    if (get(f, 0x5038, &v))
        t->ew_addr = v;
    if (get(f, 0x5044, &v))
        t->mrdma_disable = (int)bits(v, 4, 4);
}

static void decode_ppu(const regfile *f, emu_task *t)
{
    uint32_t v;
    int *cube[] = {&t->pool_in_w, &t->pool_in_h, &t->pool_in_c, &t->pool_out_w, &t->pool_out_h,
                   &t->pool_out_c};
    for (int i = 0; i < 6; i++)
        if (get(f, (uint16_t)(0x600c + 4 * i), &v))
            *cube[i] = (int)bits(v, 0, 12) + 1;
    if (get(f, 0x6024, &v))
        t->pool_method = (int)bits(v, 0, 1);
    if (get(f, 0x6034, &v)) {
        t->pool_kw = (int)bits(v, 0, 3) + 1;
        t->pool_kh = (int)bits(v, 8, 11) + 1;
        t->pool_sx = (int)bits(v, 16, 19) + 1;
        t->pool_sy = (int)bits(v, 20, 23) + 1;
    }
    if (get(f, 0x6040, &v)) {
        t->pool_pad[0] = (int)bits(v, 4, 6);
        t->pool_pad[1] = (int)bits(v, 12, 14);
        t->pool_pad[2] = (int)bits(v, 0, 2);
        t->pool_pad[3] = (int)bits(v, 8, 10);
    }
    if (get(f, 0x6070, &v))
        t->pool_dst_addr = v & ~0xfu;
    if (get(f, 0x701c, &v))
        t->pool_src_addr = v;
}

static void classify(emu_task *t)
{
    int cna = t->blocks & EMU_BLK_CNA, core = t->blocks & EMU_BLK_CORE;
    int dpu = t->blocks & EMU_BLK_DPU, ppu = t->blocks & EMU_BLK_PPU;
    if (cna && core && dpu && t->conv_mode >= 0 && t->kw > 0)
        t->op = t->conv_mode == 3 ? EMU_OP_DEPTHWISE : t->conv_mode == 0 ? EMU_OP_CONV
                                                                         : EMU_OP_UNKNOWN;
    else if (ppu && !cna && t->pool_method >= 0) {
        t->op = EMU_OP_POOL;
        if (t->pool_kw == 1 && t->pool_kh == 1 && t->pool_sx == 1 && t->pool_sy == 1)
            note(t, "1x1 pooling with stride 1: a copy");
    }
    else if (dpu && !cna && !ppu && t->out_w > 0)
        t->op = EMU_OP_ELTWISE;
    else {
        t->op = EMU_OP_UNKNOWN;
        if (cna || dpu || ppu)
            note(t, "configuration incomplete: registers set by an earlier task are not resolved");
    }
    if (t->op == EMU_OP_CONV || t->op == EMU_OP_DEPTHWISE) {
        /* bottom/right pads: what the output size needs beyond the top/left pad */
        int ow = t->core_w > 0 ? t->core_w : t->out_w, oh = t->core_h > 0 ? t->core_h : t->out_h;
        if (ow > 0 && t->stride_x > 0 && t->in_w > 0 && t->pad_left >= 0 && t->dil_x > 0) {
            int need = (ow - 1) * t->stride_x + (t->kw - 1) * t->dil_x + 1;
            t->pad_right = need - t->in_w - t->pad_left;
            t->has_pad_right = 1;
        }
        if (oh > 0 && t->stride_y > 0 && t->in_h > 0 && t->pad_top >= 0 && t->dil_y > 0) {
            int need = (oh - 1) * t->stride_y + (t->kh - 1) * t->dil_y + 1;
            t->pad_bottom = need - t->in_h - t->pad_top;
            t->has_pad_bottom = 1;
        }
    }
}

static int block_of(uint16_t addr)
{
    static const int blk[16] = {0, EMU_BLK_CNA, 0, EMU_BLK_CORE, EMU_BLK_DPU, EMU_BLK_DPU_RDMA,
                                EMU_BLK_PPU, EMU_BLK_PPU_RDMA, EMU_BLK_DDMA};
    return blk[addr >> 12];
}

typedef struct pos_reg {
    emu_reg r;
    int pos;
} pos_reg;

static int cmp_pos_reg(const void *a, const void *b)
{
    const pos_reg *x = a, *y = b;
    if (x->r.addr != y->r.addr)
        return x->r.addr < y->r.addr ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* A copy of the writes sorted by address, stable: lookups in O(log n). */
static emu_reg *sort_own(const emu_reg *regs, int n)
{
    pos_reg *p = xcalloc((size_t)n + 1, sizeof *p);
    emu_reg *out = xcalloc((size_t)n + 1, sizeof *out);
    for (int i = 0; i < n; i++) {
        p[i].r = regs[i];
        p[i].pos = i;
    }
    qsort(p, (size_t)n, sizeof *p, cmp_pos_reg);
    for (int i = 0; i < n; i++)
        out[i] = p[i].r;
    free(p);
    return out;
}

/* The blocks a task's enable mask runs (the task record's enable_mask: 0x1d on
 * a conv, 0x0d without DPU_RDMA, 0x18 an eltwise, 0x60 a pool in every file read,
 * research/rknn-format.md): bits 0 and 2 the CNA and CORE pair, 3 DPU, 4 DPU_RDMA,
 * 5 PPU, 6 PPU_RDMA. */
static int mask_blocks(uint32_t mask)
{
    return ((mask & 0x5) == 0x5 ? EMU_BLK_CNA | EMU_BLK_CORE : 0) | (mask & 0x8 ? EMU_BLK_DPU : 0) |
           (mask & 0x10 ? EMU_BLK_DPU_RDMA : 0) | (mask & 0x20 ? EMU_BLK_PPU : 0) |
           (mask & 0x40 ? EMU_BLK_PPU_RDMA : 0);
}

/* Decodes regs[0..n) over base (its register group's state); a block inherits
 * when the task writes it or its enable mask runs it (toolkit 2.3.0's later row
 * tiles of a conv write the CNA and a few DPU addresses, and run CORE with the
 * group's). Returns the writes sorted by address. */
static emu_reg *decode_from(int map, const emu_reg *regs, int n, const emu_reg *base, int nbase,
                            uint32_t mask, emu_task *t)
{
    int inherited = 0;
    if (n < 0)
        n = 0;
    emu_reg *sorted = sort_own(regs, n);
    regfile f = {sorted, n, base, nbase, 0, &inherited};
    init(t, map, f.n);
    for (int i = 0; i < f.n; i++) {
        uint16_t a = regs[i].addr;
        t->blocks |= block_of(a);
        if (!emu_reg_name(map, a)) { /* every write when the map is not verified */
            int seen = 0;
            for (int k = 0; k < t->n_unknown && k < EMU_MAX_UNKNOWN; k++)
                seen |= t->unknown_addr[k] == a;
            if (!seen) {
                if (t->n_unknown < EMU_MAX_UNKNOWN) {
                    t->unknown_addr[t->n_unknown] = a;
                    t->unknown_val[t->n_unknown] = regs[i].value;
                }
                t->n_unknown++;
            }
        }
    }
    int ran = 0;
    for (int i = 0; i < nbase; i++)
        ran |= block_of(base[i].addr);
    t->blocks |= mask_blocks(mask) & ran;
    f.own_blocks = t->blocks;
    if (map == EMU_MAP_NONE) {
        t->op = EMU_OP_UNDECODED;
        note(t, "register layout of this chip not verified: raw writes only");
        return sorted;
    }
    if (emu_layout_known(map)) {
        emu_layout_decode(map, get_cb, &f, t);
        decode_ppu(&f, t); /* the PPU and its RDMA at RK3588's words (rk3576's pools) */
    } else {
        decode_cna(&f, t);
        decode_core(&f, t);
        decode_dpu(&f, t);
        decode_rdma(&f, t);
        decode_ppu(&f, t);
    }
    classify(t);
    if (inherited)
        note(t, "registers it does not write come from earlier tasks of its register group");
    if (t->n_unknown) {
        char b[64];
        snprintf(b, sizeof b, "%d register%s not in the map (kept raw)", t->n_unknown,
                 t->n_unknown == 1 ? "" : "s");
        note(t, b);
    }
    return sorted;
}

void emu_decode(int map, const emu_reg *regs, int n, emu_task *t)
{
    free(decode_from(map, regs, n, NULL, 0, 0, t));
}

/* base (unique, sorted) updated by the sorted writes w[0..n): a new array. */
static emu_reg *merge(const emu_reg *base, int nb, const emu_reg *w, int n, int *out_n)
{
    emu_reg *m = xcalloc((size_t)nb + (size_t)n + 1, sizeof *m);
    int i = 0, j = 0, k = 0;
    while (i < nb || j < n) {
        if (j < n && (i >= nb || w[j].addr <= base[i].addr)) {
            uint16_t a = w[j].addr;
            while (j + 1 < n && w[j + 1].addr == a) /* the last write of a */
                j++;
            m[k++] = w[j++];
            if (i < nb && base[i].addr == a)
                i++;
        } else {
            m[k++] = base[i++];
        }
    }
    *out_n = k;
    return m;
}

/* The blocks' S_POINTER writes enable two register groups used in turn
 * (ping-pong), and the vendor's later tiles of a layer write only what
 * changes: task i starts from what tasks i-2, i-4 ... left in its group. */
int emu_program_decode(const emu_program *p, emu_task *out)
{
    emu_reg *st[2] = {NULL, NULL};
    int nst[2] = {0, 0};
    for (int i = 0; i < p->n_tasks; i++) {
        const emu_stream *s = &p->tasks[i];
        int g = i & 1, nn;
        emu_reg *sorted = decode_from(p->map, s->regs, s->n_regs, st[g], nst[g], s->enable_mask,
                                      &out[i]);
        emu_reg *m = merge(st[g], nst[g], sorted, s->n_regs < 0 ? 0 : s->n_regs, &nn);
        free(sorted);
        free(st[g]);
        st[g] = m;
        nst[g] = nn;
    }
    free(st[0]);
    free(st[1]);
    return 0;
}
