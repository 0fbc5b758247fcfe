/* runtime/emu/emu_layout.c — register layouts outside the rk3588 family,
 * as tables: where each decoded field sits (emu_field), which registers the
 * emulator may leave aside (geometry it takes from decoded fields, DMA
 * sizes) and which words it takes only with the values the sample files
 * write (their meaning not decoded: any other value stops a run).
 *
 * The "t4" layout (rk3562, FlatBuffer NPU name "RKNPU t4") was read off
 * multiple_input_demo.rk3562.rknn against the rk3566/rk3588 files of the same
 * model and verified by running it (tests/cli/emulate.sh); how each field was
 * found: docs/rknn-format.md "Register layout t4". */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "runtime/emu/emu.h"

enum { F_INT, F_I64, F_S16, F_I32, F_S32 }; /* int, int64, int64 from s16, int32, int64 from s32 */

typedef struct emu_field {
    uint16_t addr;
    uint8_t lo, hi;
    int8_t add;      /* the hardware's N-1 sizes: +1 */
    uint8_t kind;
    size_t off;      /* into emu_task */
} emu_field;

/* How the run treats a register: n 0 left aside; else (value & mask) must be
 * one of vals[0..n) (mask 0 with n 1, val 0: a field decoded whole) */
typedef struct emu_word {
    uint16_t addr;
    const char *name;
    uint32_t mask;      /* the bits the emulator does not decode */
    uint32_t vals[3];
    int n;
} emu_word;

/* A word whose effect the emulation verified: when (value & mask) == val, the
 * int at off is set to set (the BS stage's per-channel add and multiply) */
typedef struct emu_meaning {
    uint16_t addr;
    uint32_t mask, val;
    size_t off;
    int set;
} emu_meaning;

typedef struct emu_layout {
    int map;
    const emu_word *fp16_words; /* sorted; taken before words in a float16 task, NULL none */
    size_t n_fp16_words;
    const emu_meaning *meanings;
    size_t n_meanings;
    const emu_field *fields;
    size_t n_fields;
    const emu_word *words;  /* sorted by address, every address the layout names */
    size_t n_words;
    uint32_t conv_mode_code; /* CNA mode code of a plain convolution */
    uint32_t pixel_mode_code; /* of a convolution over 8-bit pixels (f3), 0 none */
    int cube_mode_code;      /* f2: a conv over a feature cube (0; the image convs'
                                code is 2), -1 none */
    int dw_mode_code;        /* f2: a depthwise conv (1, the driver's "bit0 =
                                depthwise"), -1 none */
    int base;               /* the layout it extends (its words, fields and meanings
                               hold where this one names nothing else), 0 none */
    const emu_word *dpu_words; /* sorted; taken before words in a DPU-only task of DPU
                                  FEATURE_MODE 5 (EMU_WORDS_DPU), NULL none */
    size_t n_dpu_words;
} emu_layout;

#define T(f) offsetof(emu_task, f)

/* t4 fields (see docs/rknn-format.md for how each was matched) */
static const emu_field t4_fields[] = {
    {0x100c, 0, 3, 0, F_INT, T(conv_mode)},  {0x100c, 4, 6, 0, F_INT, T(in_prec)},
    {0x100c, 7, 9, 0, F_INT, T(proc_prec)},  {0x1014, 0, 2, 0, F_INT, T(stride_x)},
    {0x1014, 3, 5, 0, F_INT, T(stride_y)},   {0x1014, 16, 20, 1, F_INT, T(dil_x)},
    {0x1014, 21, 25, 1, F_INT, T(dil_y)},    {0x1024, 0, 13, 0, F_INT, T(kernels)},
    {0x1024, 16, 20, 0, F_INT, T(kh)},       {0x1024, 24, 28, 0, F_INT, T(kw)},
    {0x1028, 0, 15, 0, F_INT, T(in_c_real)}, {0x102c, 0, 10, 0, F_INT, T(in_h)},
    {0x102c, 16, 26, 0, F_INT, T(in_w)},     {0x1070, 0, 31, 0, F_I32, T(pad_value)},
    {0x1080, 0, 3, 0, F_INT, T(pad_top)},    {0x1080, 8, 11, 0, F_INT, T(pad_left)},
    {0x1088, 0, 31, 0, F_I64, T(feature_addr)}, {0x1110, 0, 31, 0, F_I64, T(weight_addr)},
    {0x301c, 0, 15, 1, F_INT, T(core_w)},    {0x301c, 16, 31, 1, F_INT, T(core_h)},
    {0x3020, 0, 15, 1, F_INT, T(core_c)},    {0x4010, 26, 28, 0, F_INT, T(dpu_in_prec)},
    {0x4010, 29, 31, 0, F_INT, T(out_prec)}, {0x4018, 0, 31, 0, F_I64, T(dst_addr)},
    {0x401c, 0, 31, 0, F_I64, T(dst_surf_stride)}, {0x4020, 0, 12, 1, F_INT, T(out_w)},
    {0x4024, 0, 12, 1, F_INT, T(out_h)},     {0x402c, 0, 12, 1, F_INT, T(out_c_orig)},
    {0x4054, 16, 21, 0, F_INT, T(bs.mul_shift)}, {0x407c, 0, 0, 0, F_INT, T(ew_bypass)},
    {0x4080, 0, 15, 0, F_S16, T(ew_cvt_offset)}, {0x4084, 0, 31, 0, F_I64, T(ew_cvt_scale)},
    {0x40ac, 0, 31, 0, F_S32, T(out_cvt_offset)}, {0x40b0, 0, 15, 0, F_INT, T(out_cvt_scale)},
    {0x40b4, 0, 11, 0, F_INT, T(out_cvt_shift)}, {0x5020, 0, 31, 0, F_I64, T(bs_addr)},
    {0x5034, 0, 0, 0, F_INT, T(erdma_disable)}, {0x5038, 0, 31, 0, F_I64, T(ew_addr)},
};

#define ASIDE(a, n) {a, n, 0, {0}, 0}
#define ONE(a, n, v) {a, n, 0xffffffffu, {v}, 1}
#define TWO(a, n, v, w) {a, n, 0xffffffffu, {v, w}, 2}
#define THREE(a, n, v, w, x) {a, n, 0xffffffffu, {v, w, x}, 3}
#define FIELD(a, n) {a, n, 0, {0}, 1}
/* decoded in part: the other bits (mask) with the sample's values only */
#define PART(a, n, m, v) {a, n, m, {v}, 1}
#define PART2(a, n, m, v, w) {a, n, m, {v, w}, 2}
#define PART3(a, n, m, v, w, x) {a, n, m, {v, w, x}, 3}

/* every register the rk3562 conv tasks write: decoded (FIELD), left aside
 * (ASIDE: pointers, sizes the emulator takes from decoded fields, DMA and
 * CBUF amounts) or taken with the sample's values only (ONE/TWO) */
static const emu_word t4_words[] = {
    ASIDE(0x1004, "CNA_S_POINTER"), PART2(0x100c, "CNA_CONV_CON1", 0xfffffc00u, 0x30008000, 0x3000a000),
    ONE(0x1010, "CNA_1010", 0x1d8), PART(0x1014, "CNA_CONV_CON3", 0xfc00ffc0u, 0),
    ASIDE(0x1018, "CNA_1018"), ASIDE(0x101c, "CNA_101C"), ASIDE(0x1020, "CNA_1020"),
    PART(0x1024, "CNA_WEIGHT_KERNELS", 0xe0e0c000u, 0),
    PART(0x1028, "CNA_DATAIN_CHANNEL", 0xffff0000u, 0),
    PART(0x102c, "CNA_DATAIN_SIZE", 0xf800f800u, 0), ASIDE(0x1030, "CNA_1030"),
    ASIDE(0x1034, "CNA_DATAOUT_PIXELS"), ASIDE(0x1038, "CNA_1038"), ASIDE(0x103c, "CNA_103C"),
    ASIDE(0x1040, "CNA_1040"), ASIDE(0x1044, "CNA_1044"),
    TWO(0x1048, "CNA_1048", 0xe0, 0xe38e0), TWO(0x104c, "CNA_104C", 0x14000, 0x40004000),
    TWO(0x1050, "CNA_1050", 0x10001, 0x14000), ONE(0x1054, "CNA_1054", 0xffffff80),
    TWO(0x1058, "CNA_1058", 0, 0xffffff80), TWO(0x105c, "CNA_105C", 0, 0xffffff80),
    ONE(0x1060, "CNA_1060", 0), ONE(0x1064, "CNA_1064", 0), ONE(0x1068, "CNA_1068", 0),
    ASIDE(0x106c, "CNA_106C"), FIELD(0x1070, "CNA_PAD_VALUE"), ONE(0x1074, "CNA_1074", 0),
    ASIDE(0x1078, "CNA_DATAIN_ENTRIES"), ASIDE(0x107c, "CNA_107C"), PART(0x1080, "CNA_PAD", 0xf0f0f0f0u, 0),
    ASIDE(0x1084, "CNA_1084"), FIELD(0x1088, "CNA_FEATURE_ADDR"), ASIDE(0x108c, "CNA_108C"),
    ASIDE(0x1090, "CNA_1090"), ASIDE(0x1094, "CNA_1094"), ASIDE(0x1098, "CNA_1098"),
    ONE(0x1100, "CNA_1100", 0), ONE(0x1104, "CNA_1104", 0), FIELD(0x1110, "CNA_WEIGHT_ADDR"),
    ONE(0x1140, "CNA_1140", 0), ONE(0x1144, "CNA_1144", 0), ASIDE(0x118c, "CNA_118C"),
    ASIDE(0x3004, "CORE_S_POINTER"), ONE(0x3018, "CORE_3018", 1),
    FIELD(0x301c, "CORE_DATAOUT_SIZE_0"),
    PART(0x3020, "CORE_DATAOUT_SIZE_1", 0xffff0000u, 0),
    ASIDE(0x3024, "CORE_3024"),
    ASIDE(0x4004, "DPU_S_POINTER"), ONE(0x400c, "DPU_400C", 0x1e4), PART(0x4010, "DPU_DATA_FORMAT", 0x03ffffffu, 0),
    ONE(0x4014, "DPU_4014", 0), FIELD(0x4018, "DPU_DST_BASE_ADDR"),
    FIELD(0x401c, "DPU_DST_SURF_STRIDE"), PART(0x4020, "DPU_DATA_CUBE_WIDTH", 0xffffe000u, 0),
    PART(0x4024, "DPU_DATA_CUBE_HEIGHT", 0xffffe000u, 0), ONE(0x4028, "DPU_4028", 0),
    PART(0x402c, "DPU_DATA_CUBE_CHANNEL", 0xffffe000u, 0), ASIDE(0x4030, "DPU_4030"), ASIDE(0x4034, "DPU_4034"),
    ASIDE(0x4038, "DPU_4038"), ONE(0x403c, "DPU_403C", 0), ONE(0x4040, "DPU_4040", 0),
    ONE(0x4044, "DPU_4044", 1), ONE(0x4048, "DPU_4048", 0x80000000),
    ONE(0x404c, "DPU_404C", 0x7fffffff), ONE(0x4050, "DPU_4050", 1),
    PART(0x4054, "DPU_BS_MUL_CFG", 0xffc0ffffu, 0x80000000), ONE(0x4058, "DPU_4058", 0x80000000),
    ONE(0x405c, "DPU_405C", 0x7fffffff), ONE(0x4060, "DPU_4060", 0x13), ONE(0x4064, "DPU_4064", 0),
    ONE(0x4068, "DPU_4068", 0), ONE(0x406c, "DPU_406C", 0x80000000),
    ONE(0x4070, "DPU_4070", 0x7fffffff), ONE(0x4074, "DPU_4074", 0x80000000),
    ONE(0x4078, "DPU_4078", 0x7fffffff), TWO(0x407c, "DPU_EW_CFG", 0x010041c1, 0x8002c0c0),
    PART(0x4080, "DPU_EW_CVT_OFFSET_VALUE", 0xffff0000u, 0),
    PART(0x4084, "DPU_EW_CVT_SCALE_VALUE", 0xffc00000u, 0),
    ONE(0x4088, "DPU_4088", 0x80000000), ONE(0x408c, "DPU_408C", 0x7fffffff),
    ONE(0x4090, "DPU_4090", 0), ONE(0x4094, "DPU_4094", 0), ONE(0x4098, "DPU_4098", 0),
    ONE(0x409c, "DPU_409C", 0), ONE(0x40a0, "DPU_40A0", 0), ONE(0x40a4, "DPU_40A4", 0x80000000),
    ONE(0x40a8, "DPU_40A8", 0x7fffffff), FIELD(0x40ac, "DPU_OUT_CVT_OFFSET"),
    PART2(0x40b0, "DPU_OUT_CVT_SCALE", 0xffff0000u, 0, 0x10000),
    PART(0x40b4, "DPU_OUT_CVT_SHIFT", 0xfffff000u, 0),
    ONE(0x40b8, "DPU_40B8", 0x4000), ONE(0x40bc, "DPU_40BC", 0), ONE(0x40c0, "DPU_40C0", 0x04440102),
    ONE(0x40c8, "DPU_40C8", 0), ONE(0x40cc, "DPU_40CC", 0), ONE(0x4100, "DPU_4100", 0),
    ONE(0x4104, "DPU_4104", 0), ONE(0x4108, "DPU_4108", 0), ONE(0x410c, "DPU_410C", 0),
    ONE(0x4110, "DPU_4110", 0), ONE(0x4114, "DPU_4114", 0), ONE(0x4118, "DPU_4118", 0),
    ONE(0x411c, "DPU_411C", 0), ONE(0x4120, "DPU_4120", 0), ONE(0x4124, "DPU_4124", 0),
    ONE(0x4128, "DPU_4128", 0), ONE(0x412c, "DPU_412C", 0),
    ASIDE(0x5004, "DPU_RDMA_S_POINTER"), ASIDE(0x500c, "DPU_RDMA_DATA_CUBE_WIDTH"),
    ASIDE(0x5010, "DPU_RDMA_DATA_CUBE_HEIGHT"), ASIDE(0x5014, "DPU_RDMA_DATA_CUBE_CHANNEL"),
    ONE(0x5018, "DPU_RDMA_5018", 0), ONE(0x501c, "DPU_RDMA_501C", 0xe),
    FIELD(0x5020, "DPU_RDMA_BS_BASE_ADDR"), ONE(0x5028, "DPU_RDMA_5028", 0),
    ONE(0x502c, "DPU_RDMA_502C", 0), TWO(0x5034, "DPU_RDMA_ERDMA_CFG", 1, 0x40000004),
    FIELD(0x5038, "DPU_RDMA_EW_BASE_ADDR"), ASIDE(0x5040, "DPU_RDMA_EW_SURF_STRIDE"),
    TWO(0x5044, "DPU_RDMA_5044", 0x7810, 0x7818), ONE(0x5048, "DPU_RDMA_5048", 0),
    ONE(0x504c, "DPU_RDMA_504C", 0), ONE(0x5064, "DPU_RDMA_5064", 0), ASIDE(0x506c, "DPU_RDMA_506C"),
    ONE(0x5078, "DPU_RDMA_5078", 0), ONE(0x507c, "DPU_RDMA_507C", 0),
    ASIDE(0x8028, "DDMA_CFG_DMA_WR_CFG"), ASIDE(0x802c, "DDMA_CFG_DMA_WSTRB"),
};

/* The "f2" layout (rk3576, NPU name "RKNPU f2"): t4's DPU and DPU_RDMA
 * offsets, but CNA sizes written as N-1, the destination address in bits
 * 4..31 of 0x4018, CORE 0x3020 the real output channels, and no BS shift
 * register (0x4050 = 0x80011011 is the whole BS configuration the samples
 * write). Read off multiple_input_demo.rk3576.rknn like t4. */
static const emu_field f2_fields[] = {
    {0x100c, 0, 3, 0, F_INT, T(conv_mode)},  {0x100c, 4, 6, 0, F_INT, T(in_prec)},
    {0x100c, 7, 9, 0, F_INT, T(proc_prec)},  {0x1014, 0, 2, 0, F_INT, T(stride_x)},
    {0x1014, 3, 5, 0, F_INT, T(stride_y)},   {0x1014, 16, 20, 1, F_INT, T(dil_x)},
    {0x1014, 21, 25, 1, F_INT, T(dil_y)},    {0x1024, 16, 20, 1, F_INT, T(kh)},
    {0x1024, 24, 28, 1, F_INT, T(kw)},       {0x1028, 0, 15, 1, F_INT, T(in_c_real)},
    {0x102c, 0, 10, 1, F_INT, T(in_h)},      {0x102c, 16, 26, 1, F_INT, T(in_w)},
    {0x1084, 0, 31, 0, F_I32, T(pad_value)}, {0x1080, 0, 3, 0, F_INT, T(pad_top)},
    {0x1080, 8, 11, 0, F_INT, T(pad_left)},  {0x1088, 0, 31, 0, F_I64, T(feature_addr)},
    {0x1110, 0, 31, 0, F_I64, T(weight_addr)}, {0x301c, 0, 15, 1, F_INT, T(core_w)},
    {0x301c, 16, 31, 1, F_INT, T(core_h)},   {0x3020, 0, 15, 1, F_INT, T(core_c)},
    {0x3020, 0, 13, 1, F_INT, T(kernels)},   {0x4010, 26, 28, 0, F_INT, T(dpu_in_prec)},
    {0x4010, 29, 31, 0, F_INT, T(out_prec)}, {0x4018, 4, 31, 0, F_I64, T(dst_addr)},
    {0x401c, 0, 31, 0, F_I64, T(dst_surf_stride)}, {0x4020, 0, 12, 1, F_INT, T(out_w)},
    {0x4024, 0, 12, 1, F_INT, T(out_h)},     {0x402c, 0, 12, 1, F_INT, T(out_c_orig)},
    {0x407c, 0, 0, 0, F_INT, T(ew_bypass)},  {0x4080, 0, 15, 0, F_S16, T(ew_cvt_offset)},
    {0x4084, 0, 31, 0, F_I64, T(ew_cvt_scale)}, {0x40ac, 0, 31, 0, F_S32, T(out_cvt_offset)},
    {0x40b0, 0, 15, 0, F_INT, T(out_cvt_scale)}, {0x40b4, 0, 11, 0, F_INT, T(out_cvt_shift)},
    {0x5020, 0, 31, 0, F_I64, T(bs_addr)},   {0x5034, 0, 0, 0, F_INT, T(erdma_disable)},
    {0x5038, 0, 31, 0, F_I64, T(ew_addr)},   {0x40b8, 0, 31, 0, F_I64, T(surface_add)},
};

/* every register the rk3576 conv tasks write */
static const emu_word f2_words[] = {
    ASIDE(0x1004, "CNA_S_POINTER"),
    /* an image input (GROUP_LINE_OFF bit 29, ARGB_IN bits 12..15: 8 one channel, 0xa
     * three), or none over a feature cube (rocket-userspace's int8 captures) */
    PART3(0x100c, "CNA_CONV_CON1", 0xfffffc00u, 0x20008000, 0x2000a000, 0),
    ONE(0x1010, "CNA_1010", 0xfff),
    PART2(0x1014, "CNA_CONV_CON3", 0xfc00ffc0u, 0, 0x10000000),
    ASIDE(0x1018, "CNA_1018"),
    ASIDE(0x101c, "CNA_WEIGHT_BYTES"),     /* sizes: the run takes the decoded fields */
    ASIDE(0x1020, "CNA_WEIGHT_ELEMS"),
    PART(0x1024, "CNA_WEIGHT_KERNELS", 0xe0e0c000u, 0),
    FIELD(0x1028, "CNA_DATAIN_CHANNEL"),   /* (CBUF entries x rows) << 16 | channels - 1 */
    PART(0x102c, "CNA_DATAIN_SIZE", 0xf800f800u, 0),
    ASIDE(0x1030, "CNA_1030"),             /* a kernel's weight bytes << 16 | width - 1 */
    ASIDE(0x1034, "CNA_DATAOUT_PIXELS"),
    ASIDE(0x1038, "CNA_1038"),
    ASIDE(0x103c, "CNA_103C"),
    ASIDE(0x1040, "CNA_1040"),
    ASIDE(0x1044, "CNA_1044"),             /* width << 16 | CBUF entries */
    /* the input converter: on for an image (its scales 0x4000 = 1.0, offsets the
     * zero point), bypassed (bit 0) over a cube, where its words are not read */
    THREE(0x1048, "CNA_CVT_CON0", 0xe0, 0xe38e0, 0xb),
    THREE(0x104c, "CNA_104C", 0x14000, 0x40004000, 0x10001),
    TWO(0x1050, "CNA_1050", 0x10001, 0x14000),
    TWO(0x1054, "CNA_1054", 0xffffff80, 0),
    TWO(0x1058, "CNA_1058", 0x0, 0xffffff80),
    TWO(0x105c, "CNA_105C", 0x0, 0xffffff80),
    ONE(0x1060, "CNA_1060", 0x0),
    ONE(0x1064, "CNA_1064", 0x0),
    ONE(0x1068, "CNA_1068", 0x0),
    ONE(0x106c, "CNA_106C", 0x0),
    ASIDE(0x1070, "CNA_1070"),             /* = the pad on an image, 0 over a cube: not it */
    ONE(0x1074, "CNA_1074", 0x0),
    ASIDE(0x1078, "CNA_1078"),
    ASIDE(0x107c, "CNA_107C"),
    PART(0x1080, "CNA_PAD", 0xf0f0f0f0u, 0),
    FIELD(0x1084, "CNA_PAD_VALUE"),        /* RK3588's PAD_CON1 (0x1184): the input's zero point */
    FIELD(0x1088, "CNA_FEATURE_ADDR"),
    ONE(0x108c, "CNA_108C", 0xf000f),
    ASIDE(0x1090, "CNA_1090"),
    ASIDE(0x1094, "CNA_1094"),
    ASIDE(0x1098, "CNA_1098"),
    ONE(0x109c, "CNA_109C", 0x0),
    ONE(0x1100, "CNA_1100", 0x0),
    ONE(0x1104, "CNA_1104", 0x0),
    FIELD(0x1110, "CNA_WEIGHT_ADDR"),
    ONE(0x1140, "CNA_1140", 0x0),
    ONE(0x1144, "CNA_1144", 0x0),
    ASIDE(0x118c, "CNA_118C"),             /* CBUF entries - 1, twice */
    ASIDE(0x3004, "CORE_S_POINTER"),
    /* bit 7 on an image input; 0xa a depthwise conv (the driver's R76_CORE_MISC_DW) */
    THREE(0x3018, "CORE_3018", 0x10000081, 0x10000001, 0x1000000a),
    FIELD(0x301c, "CORE_DATAOUT_SIZE_0"),
    PART(0x3020, "CORE_DATAOUT_SIZE_1", 0xffff0000u, 0),
    ONE(0x3024, "CORE_3024", 0x0),
    ASIDE(0x4004, "DPU_S_POINTER"),
    TWO(0x400c, "DPU_400C", 0x40000004, 0x4000000c), /* 0xc depthwise */
    PART(0x4010, "DPU_DATA_FORMAT", 0x03ffffffu, 0),
    ONE(0x4014, "DPU_4014", 0x0),
    PART(0x4018, "DPU_DST_BASE_ADDR", 0xfu, 0),
    FIELD(0x401c, "DPU_DST_SURF_STRIDE"),
    PART(0x4020, "DPU_DATA_CUBE_WIDTH", 0xffffe000u, 0),
    PART(0x4024, "DPU_DATA_CUBE_HEIGHT", 0xffffe000u, 0),
    ONE(0x4028, "DPU_4028", 0x0),
    PART(0x402c, "DPU_DATA_CUBE_CHANNEL", 0xffffe000u, 0),
    PART2(0x4030, "DPU_4030", 0xffffu, 0x710, 0x310), /* (channels - 1) << 16 | 0x710; 0x310 depthwise */
    ASIDE(0x4034, "DPU_4034"),
    TWO(0x4038, "DPU_4038", 0x120080, 0x100092), /* 0x100092 depthwise (R76_DPU_NOTCH_DW) */
    ONE(0x403c, "DPU_403C", 0x0),
    TWO(0x4044, "DPU_4044", 0x1, 0x0),       /* 0 depthwise */
    ONE(0x4048, "DPU_4048", 0x80000000),
    ONE(0x404c, "DPU_404C", 0x7fffffff),
    /* bit 8 set from 32 output channels on (the driver's write-extent field); a
     * depthwise conv's 0x13033 with its 16-channel group count - 1 in bits 8..9
     * (emu_run_dw checks which) */
    PART2(0x4050, "DPU_BS_CFG", 0xfffffcffu, 0x80011011, 0x13033),
    ONE(0x4058, "DPU_4058", 0x80000000),
    ONE(0x405c, "DPU_405C", 0x7fffffff),
    /* 0x903 none, 0x902 the clamp below, 0x402 a PReLU, 0x20 BN into the LUT: each
     * form's words checked by the runners (emu_act.c) */
    FIELD(0x4060, "DPU_BN_CFG"),
    FIELD(0x406c, "DPU_CLAMP_MIN"),        /* ReLU 0; both pairs alike (run_conv) */
    FIELD(0x4070, "DPU_CLAMP_MAX"),        /* ReLU6: 6.0 in the scaled accumulator */
    FIELD(0x4074, "DPU_CLAMP_MIN2"),
    FIELD(0x4078, "DPU_CLAMP_MAX2"),
    THREE(0x407c, "DPU_EW_CFG", 0x010041c1, 0x8002c0c0, 0x01004140), /* bypass, add, LUT */
    PART(0x4080, "DPU_EW_CVT_OFFSET_VALUE", 0xffff0000u, 0),
    PART(0x4084, "DPU_EW_CVT_SCALE_VALUE", 0xffc00000u, 0),
    ONE(0x4088, "DPU_4088", 0x80000000),
    ONE(0x408c, "DPU_408C", 0x7fffffff),
    ONE(0x4090, "DPU_4090", 0x0),
    ONE(0x4094, "DPU_4094", 0x0),
    ONE(0x409c, "DPU_409C", 0x0),
    ONE(0x40a4, "DPU_40A4", 0x80000000),
    ONE(0x40a8, "DPU_40A8", 0x7fffffff),
    FIELD(0x40ac, "DPU_OUT_CVT_OFFSET"),
    PART2(0x40b0, "DPU_OUT_CVT_SCALE", 0xffff0000u, 0, 0x10000),
    PART(0x40b4, "DPU_OUT_CVT_SHIFT", 0xfffff000u, 0),
    FIELD(0x40b8, "DPU_SURFACE_ADD"),      /* checked against the output cube */
    ONE(0x40bc, "DPU_40BC", 0x0),
    ONE(0x40c0, "DPU_40C0", 0x4440100),
    ONE(0x40c8, "DPU_40C8", 0x0),
    ONE(0x40cc, "DPU_40CC", 0x0),
    ONE(0x40d0, "DPU_40D0", 0x40ffff),
    ONE(0x4100, "DPU_4100", 0x0),
    ONE(0x4104, "DPU_4104", 0x0),
    /* the LUT's words (rocket-userspace's R76_LUT_*): 0 without the LUT, its one form
     * with it (emu_act.c) */
    FIELD(0x4108, "DPU_LUT_CFG"),
    FIELD(0x410c, "DPU_LUT_INFO"),
    FIELD(0x4110, "DPU_LUT_LE_START"),
    FIELD(0x4114, "DPU_LUT_LE_START1"),
    FIELD(0x4118, "DPU_LUT_LE_START2"),
    FIELD(0x411c, "DPU_LUT_LE_START3"),
    ONE(0x4120, "DPU_4120", 0x0),
    ONE(0x4130, "DPU_4130", 0x0),
    FIELD(0x4140, "DPU_LUT_LO_END"),
    FIELD(0x4144, "DPU_LUT_LO_END1"),
    FIELD(0x4148, "DPU_LUT_LO_END2"),
    FIELD(0x414c, "DPU_LUT_LO_END3"),
    ONE(0x4150, "DPU_4150", 0x0),
    ONE(0x4154, "DPU_4154", 0x0),
    ONE(0x4160, "DPU_4160", 0x0),
    FIELD(0x4170, "DPU_LUT_OFLOW_SLOPE"),
    FIELD(0x4174, "DPU_LUT_OFLOW_SLOPE1"),
    FIELD(0x4184, "DPU_LUT_OFLOW_SHIFT"),
    FIELD(0x4188, "DPU_LUT_UNDERFLOW"),
    FIELD(0x418c, "DPU_LUT_UNDERFLOW1"),
    FIELD(0x4190, "DPU_LUT_OVERFLOW"),
    FIELD(0x4194, "DPU_LUT_OVERFLOW1"),
    ASIDE(0x5004, "DPU_RDMA_S_POINTER"),
    ASIDE(0x500c, "DPU_RDMA_DATA_CUBE_WIDTH"),
    ASIDE(0x5010, "DPU_RDMA_DATA_CUBE_HEIGHT"),
    ASIDE(0x5014, "DPU_RDMA_DATA_CUBE_CHANNEL"),
    ONE(0x5018, "DPU_RDMA_5018", 0x0),
    TWO(0x501c, "DPU_RDMA_501C", 0x710, 0x510), /* 0x510 depthwise */
    FIELD(0x5020, "DPU_RDMA_BS_BASE_ADDR"),
    ONE(0x5024, "DPU_RDMA_5024", 0x0),
    THREE(0x5028, "DPU_RDMA_NRDMA_CFG", 0x0, 0x18, 0x1a), /* the BN reader (emu_act.c) */
    ONE(0x502c, "DPU_RDMA_502C", 0x0),
    ONE(0x5030, "DPU_RDMA_5030", 0x0),
    TWO(0x5034, "DPU_RDMA_ERDMA_CFG", 0x41, 0x50000044),
    FIELD(0x5038, "DPU_RDMA_EW_BASE_ADDR"),
    ASIDE(0x5040, "DPU_RDMA_EW_SURF_STRIDE"),
    THREE(0x5044, "DPU_RDMA_5044", 0x40000010, 0x40000018, 0x40000012), /* 0x12 depthwise */
    ONE(0x5048, "DPU_RDMA_5048", 0x0),
    ASIDE(0x504c, "DPU_RDMA_504C"),
    ONE(0x5064, "DPU_RDMA_5064", 0x0),
    ASIDE(0x506c, "DPU_RDMA_506C"),
    ONE(0x5078, "DPU_RDMA_5078", 0x0),
    ONE(0x507c, "DPU_RDMA_507C", 0x0),
    /* the PPU and its RDMA (max pools), at RK3588's words: decoded (decode_ppu) and
     * checked by emu_run_pool */
    ASIDE(0x6004, "PPU_S_POINTER"),
    FIELD(0x600c, "PPU_DATA_CUBE_IN_WIDTH"), FIELD(0x6010, "PPU_DATA_CUBE_IN_HEIGHT"),
    FIELD(0x6014, "PPU_DATA_CUBE_IN_CHANNEL"), FIELD(0x6018, "PPU_DATA_CUBE_OUT_WIDTH"),
    FIELD(0x601c, "PPU_DATA_CUBE_OUT_HEIGHT"), FIELD(0x6020, "PPU_DATA_CUBE_OUT_CHANNEL"),
    FIELD(0x6024, "PPU_OPERATION_MODE_CFG"), FIELD(0x6034, "PPU_POOLING_KERNEL_CFG"),
    FIELD(0x6038, "PPU_RECIP_KERNEL_WIDTH"), FIELD(0x603c, "PPU_RECIP_KERNEL_HEIGHT"),
    FIELD(0x6040, "PPU_POOLING_PADDING_CFG"), FIELD(0x6044, "PPU_PADDING_VALUE_1_CFG"),
    FIELD(0x6048, "PPU_PADDING_VALUE_2_CFG"), FIELD(0x604c, "PPU_PADDING_VALUE_3"),
    FIELD(0x6050, "PPU_PADDING_VALUE_4"), FIELD(0x6054, "PPU_6054"), FIELD(0x6058, "PPU_6058"),
    FIELD(0x605c, "PPU_605C"), FIELD(0x6070, "PPU_DST_BASE_ADDR"),
    FIELD(0x607c, "PPU_DST_SURF_STRIDE"), FIELD(0x6084, "PPU_DATA_FORMAT"),
    FIELD(0x60dc, "PPU_MISC_CTRL"),
    ASIDE(0x7004, "PPU_RDMA_S_POINTER"),
    FIELD(0x700c, "PPU_RDMA_CUBE_IN_WIDTH"), FIELD(0x7010, "PPU_RDMA_CUBE_IN_HEIGHT"),
    FIELD(0x7014, "PPU_RDMA_CUBE_IN_CHANNEL"), FIELD(0x7018, "PPU_RDMA_7018"),
    FIELD(0x701c, "PPU_RDMA_SRC_BASE_ADDR"), FIELD(0x7024, "PPU_RDMA_SRC_LINE_STRIDE"),
    FIELD(0x7028, "PPU_RDMA_SRC_SURF_STRIDE"), FIELD(0x7030, "PPU_RDMA_DATA_FORMAT"),
};

/* The "f3" layout (rv1126b, NPU name "RKNPU f3", toolkit 2.3.2): f2 (its base)
 * plus CNA 0x1020 (one kernel's weight bytes) and the pixel input
 * mode of the image conv (mode code 6: 8-bit pixels, CNA 0x1084 the bytes
 * subtracted per channel, 0x1070 the pad pixel; its weights in rows of 16
 * bytes, docs/rknn-format.md "Register layout f3"). Read off
 * multiple_input_demo.rv1126b.rknn against the rk3576 file. */
static const emu_field f3_fields[] = {
    {0x1020, 0, 31, 0, F_I64, T(weight_bytes_per_kernel)},
    {0x1070, 0, 31, 0, F_I32, T(pad_value)}, /* the pad pixel (below); f2's is 0x1084 */
};

/* the words the rv1126b conv tasks write otherwise than the rk3576 ones (the
 * rest as f2_words; 0x101c = 16 kernels x 0x1020; 0x1028's upper half 0x0480 on the
 * pixel conv; 0x104c 0x14370 on Conv_0, whose input scale is 0.949) */
static const emu_word f3_words[] = {
    ONE(0x1010, "CNA_1010", 0x3fff),
    TWO(0x101c, "CNA_WEIGHT_BYTES", 0x240, 0x300),
    FIELD(0x1020, "CNA_WEIGHT_BYTES_PER_KERNEL"),
    PART2(0x1028, "CNA_DATAIN_CHANNEL", 0xffff0000u, 0x04000000, 0x04800000),
    TWO(0x1030, "CNA_1030", 0x48007f, 0x60007f),
    TWO(0x1044, "CNA_1044", 0x800009, 0x800080),
    TWO(0x104c, "CNA_104C", 0x14370, 0x40004000),
    TWO(0x1084, "CNA_PIXEL_OFFSETS", 0x808080, 0xffffff80),
    TWO(0x118c, "CNA_118C", 0x70007, 0x80007),
};

/* The words of a float16 conv task (CNA input and processing precision 2), taken
 * in such a task only: the SDK's custom-op demo (dual_residual_custom.rknn) on
 * rk3576 and rv1126b. Their meanings are those of an RK3576 driver written from
 * Toolkit2 captures and run on a board (github.com/gregordinary/rocket-userspace
 * at e0677862, src/npu_regcmd_rk3576.c; docs/rknn-format.md "Float16 on f2"):
 * the precision words, the input converter bypassed, the BS stage unused (no
 * DPU_RDMA write), and size words the run takes from decoded fields instead. */
static const emu_word f2_fp16_words[] = {
    /* bit 21: the float enable; the image input's GROUP_LINE_OFF (bit 29) and
     * ARGB_IN (bits 12..15: 8 | channels - 1; the demo's 3-channel 0xa, the
     * captures' 1 to 4 channels 8..0xb: its low bits not read, the image tensor
     * gives the channels), neither in a conv over a feature cube (mode code 0) */
    PART2(0x100c, "CNA_CONV_CON1", 0xffffcc00u, 0x00200000, 0x20208000),
    ASIDE(0x101c, "CNA_WEIGHT_BYTES"),          /* the weight cube's bytes */
    ASIDE(0x1020, "CNA_WEIGHT_ELEMS"),          /* a kernel's (f3: decoded there) */
    FIELD(0x1028, "CNA_DATAIN_CHANNEL"),        /* (CBUF entries x rows) << 16 | channels - 1 */
    ASIDE(0x1030, "CNA_1030"),                  /* a kernel's weight bytes << 16 | width - 1 */
    ASIDE(0x1044, "CNA_1044"),                  /* width << 16 | CBUF entries */
    /* the converter bypassed (bit 0); its per-channel truncates (6 bits each: 0xe38e9
     * three channels, 0x38e38e9 four, 0xe9 one, 0xb over a cube) not read */
    PART(0x1048, "CNA_1048", 0x1u, 1),
    ASIDE(0x104c, "CNA_CVT_SCALE01"),           /* converter scales, unused under the bypass */
    ASIDE(0x1050, "CNA_CVT_SCALE23"),
    ONE(0x1054, "CNA_1054", 0),                 /* converter offset, unused under the bypass */
    ONE(0x1084, "CNA_1084", 0),                 /* pad constant +0.0 */
    ASIDE(0x118c, "CNA_118C"),                  /* CBUF entries - 1, twice */
    /* CORE precision 2 (bits 8-10), no int8 bit 0; bit 7 on an image input (the
     * ARGB path: rocket-userspace's R76_CORE_MISC_ARGB), clear over a cube */
    TWO(0x3018, "CORE_3018", 0x10000200, 0x10000280),
    PART(0x4010, "DPU_DATA_FORMAT", 0x03ffffffu, 2), /* DPU processing precision 2 (bits 0-2) */
    PART(0x4030, "DPU_4030", 0xffffu, 0x710),   /* (channels - 1) << 16 | 0x710 */
    /* 0x53 in the demo (no bias), 0x100092 where a bias is added (the float
     * notch word rocket-userspace found the DPU needs: R76_DPU_NOTCH_FLOAT) */
    TWO(0x4038, "DPU_4038", 0x53, 0x100092),
    TWO(0x4044, "DPU_4044", 2, 6),              /* the float programs' BS arrangement; 6 a PReLU */
    /* bit 31 clear (float); bit 8 set from 32 output channels on (8, 16: clear;
     * 32, 64: set; the int8 programs alike: the driver's write-extent field) */
    PART2(0x4050, "DPU_BS_CFG", 0xfffffeffu, 0x21011, 0x1011), /* 0x1011: a PReLU (emu_act.c) */
    /* bits 12..15 0xf with the LUT: the entries' 2^-15 (emu_act.c) */
    PART2(0x40b4, "DPU_OUT_CVT_SHIFT", 0xfffff000u, 0, 0xf000),
    FIELD(0x40b8, "DPU_SURFACE_ADD"),           /* checked against the output cube */
    /* the float BS reader: the bias (emu_run_conv16); 0x108 and a PReLU's multiplier */
    TWO(0x501c, "DPU_RDMA_501C", 0x100, 0x108),
    TWO(0x5034, "DPU_RDMA_ERDMA_CFG", 1, 0x41), /* no EW operand (0x41: the PReLU files') */
    ONE(0x5044, "DPU_RDMA_5044", 0x40010050),   /* the float programs' RDMA mode */
};

/* The words of rk3576's DPU-only activation tasks (DPU FEATURE_MODE 5, no CNA or
 * CORE write: an activation alone, rocket-userspace's lut/bare_*_i8 captures), taken in
 * such a task only; emu_run_f2_dpu_act (emu_act.c) checks how they go together
 * (docs/rknn-format.md "Activations alone on f2"). */
static const emu_word f2_dpu_words[] = {
    ONE(0x400c, "DPU_FEATURE_MODE", 0x5),     /* the DPU reading a feature itself */
    PART(0x4030, "DPU_4030", 0xffffu, 0x0f00), /* (channels - 1) << 16 | 0x0f00 */
    TWO(0x4038, "DPU_4038", 0x53, 0x100012),
    TWO(0x4044, "DPU_4044", 0x0, 0x2),        /* 0: BS's ALU and multiplier read; 2: ALU only */
    FIELD(0x4048, "DPU_BS_CLAMP_MIN"),        /* BS's clamp pair (ReLU 0, ReLU6 255) */
    FIELD(0x404c, "DPU_BS_CLAMP_MAX"),
    TWO(0x4050, "DPU_BS_CFG", 0x0, 0x20000),
    FIELD(0x4058, "DPU_BS_CLAMP_MIN2"),
    FIELD(0x405c, "DPU_BS_CLAMP_MAX2"),
    /* bypass, LUT, add 0x8002c0c0, multiply 0x810f4094: each runner takes its own */
    FIELD(0x407c, "DPU_EW_CFG"),
    TWO(0x4088, "DPU_LUT_CLAMP_MIN", 0x0, 0x80000000), /* 0: the LUT's output held >= 0 */
    TWO(0x40a4, "DPU_LUT_CLAMP_MIN2", 0x0, 0x80000000),
    /* bit 16 set in every such task, not applied (the captures' outputs within half
     * a step without it) */
    PART(0x40b0, "DPU_OUT_CVT_SCALE", 0xffff0000u, 0x10000),
    ONE(0x40c0, "DPU_40C0", 0x4440000),
    TWO(0x40cc, "DPU_40CC", 0x0, 0x10),       /* 0x10 with the LUT */
    FIELD(0x4150, "DPU_LUT_UFLOW_SLOPE"),     /* the underflow slope and its shift */
    FIELD(0x4154, "DPU_LUT_UFLOW_SLOPE1"),
    FIELD(0x4160, "DPU_LUT_UFLOW_SHIFT"),
    THREE(0x501c, "DPU_RDMA_501C", 0x0, 0x2, 0x1a), /* BS's reader: none, ALU, four slots */
    TWO(0x5034, "DPU_RDMA_ERDMA_CFG", 0x41, 0x40000044), /* no EW operand; the ERDMA's (Add) */
    ONE(0x5044, "DPU_RDMA_5044", 0x9),        /* the DPU-only RDMA mode */
};

/* 0x4050 as the samples write it: per-channel add and multiply, shift 14
 * (the per-channel multipliers are Q14 as on every chip; the run shows it) */
static const emu_meaning f2_meanings[] = {
    {0x4050, 0xfffffeffu, 0x80011011u, T(bs.present), 1},
    {0x4050, 0xfffffeffu, 0x80011011u, T(bs.alu_src), 1},
    {0x4050, 0xfffffeffu, 0x80011011u, T(bs.mul_src), 1},
    {0x4050, 0xfffffeffu, 0x80011011u, T(bs.relu_bypass), 1},
    {0x4050, 0xfffffeffu, 0x80011011u, T(bs.mul_shift), 14},
};

/* f3: f2's BS word, and the pixel conv's channel word 0x0480000b is its 3 channels */
static const emu_meaning f3_meanings[] = {
    {0x1028, 0xffffffffu, 0x0480000bu, T(in_c_real), 3},
};

/* the BS words of the samples (0x4040..0x4054; the others must hold the
 * sample's values for a run): operands per channel from memory, no ReLU */
static const emu_meaning t4_meanings[] = {
    {0x4054, 0xffc0ffffu, 0x80000000u, T(bs.alu_src), 1},
    {0x4054, 0xffc0ffffu, 0x80000000u, T(bs.mul_src), 1},
    {0x4054, 0xffc0ffffu, 0x80000000u, T(bs.relu_bypass), 1},
};

static const emu_layout layouts[] = {
    {EMU_MAP_T4, NULL, 0, t4_meanings, sizeof t4_meanings / sizeof t4_meanings[0], t4_fields, sizeof t4_fields / sizeof t4_fields[0], t4_words,
     sizeof t4_words / sizeof t4_words[0], 2, 0, -1, -1, 0, NULL, 0},
    {EMU_MAP_F2, f2_fp16_words, sizeof f2_fp16_words / sizeof f2_fp16_words[0], f2_meanings, sizeof f2_meanings / sizeof f2_meanings[0], f2_fields,
     sizeof f2_fields / sizeof f2_fields[0], f2_words, sizeof f2_words / sizeof f2_words[0], 2, 0, 0, 1, 0, f2_dpu_words,
     sizeof f2_dpu_words / sizeof f2_dpu_words[0]},
    {EMU_MAP_F3, NULL, 0, f3_meanings, sizeof f3_meanings / sizeof f3_meanings[0], f3_fields,
     sizeof f3_fields / sizeof f3_fields[0], f3_words, sizeof f3_words / sizeof f3_words[0], 2, 6, -1, -1, EMU_MAP_F2, NULL, 0},
};

static const emu_layout *layout_of(int map)
{
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (layouts[i].map == map)
            return &layouts[i];
    return NULL;
}

int emu_layout_known(int map)
{
    return layout_of(map) != NULL;
}

static const emu_word *find_word(const emu_word *w, size_t n, uint16_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* sorted by address */
        size_t mid = (lo + hi) / 2;
        if (w[mid].addr == addr)
            return &w[mid];
        if (w[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* the layout's word for addr, its base's where it names none; in a float16
 * task or a DPU-only one (form), that form's words of the layout and its bases first */
static const emu_word *word_of(const emu_layout *l, uint16_t addr, int form)
{
    for (const emu_layout *b = l; form != EMU_WORDS_INT8 && b; b = b->base ? layout_of(b->base) : NULL) {
        const emu_word *w = form == EMU_WORDS_FP16 ? find_word(b->fp16_words, b->n_fp16_words, addr)
                                                   : find_word(b->dpu_words, b->n_dpu_words, addr);
        if (w)
            return w;
    }
    const emu_word *w = find_word(l->words, l->n_words, addr);
    return w ? w : l->base ? word_of(layout_of(l->base), addr, 0) : NULL;
}

const char *emu_layout_reg_name(int map, uint16_t addr)
{
    const emu_layout *l = layout_of(map);
    const emu_word *w = l ? word_of(l, addr, 0) : NULL;
    return w ? w->name : NULL;
}

/* l's fields (meanings 0) or its meanings (1), its base's first */
static void decode_layout(const emu_layout *l, int meanings, emu_reg_get get, const void *ctx,
                          emu_task *t)
{
    if (l->base)
        decode_layout(layout_of(l->base), meanings, get, ctx, t);
    for (size_t i = 0; !meanings && i < l->n_fields; i++) {
        const emu_field *f = &l->fields[i];
        uint32_t v;
        if (!get(ctx, f->addr, &v))
            continue;
        uint32_t x = (v >> f->lo) & (uint32_t)((1ull << (f->hi - f->lo + 1)) - 1);
        char *p = (char *)t + f->off;
        switch (f->kind) {
        case F_INT: *(int *)(void *)p = (int)x + f->add; break;
        case F_I64: *(int64_t *)(void *)p = (int64_t)x + f->add; break;
        case F_S16: *(int64_t *)(void *)p = (int16_t)(uint16_t)x; break;
        case F_S32: *(int64_t *)(void *)p = (int32_t)x; break;
        default: *(int32_t *)(void *)p = (int32_t)x; break;
        }
        if (f->off == T(pad_value))
            t->has_pad_value = 1;
        if (f->off == T(ew_bypass))
            t->ew_present = 1;
        if (f->off == T(bs.mul_shift))
            t->bs.present = 1;
    }
    for (size_t i = 0; meanings && i < l->n_meanings; i++) {
        const emu_meaning *e = &l->meanings[i];
        uint32_t v;
        if (get(ctx, e->addr, &v) && (v & e->mask) == e->val)
            *(int *)(void *)((char *)t + e->off) = e->set;
    }
}

void emu_layout_decode(int map, emu_reg_get get, const void *ctx, emu_task *t)
{
    const emu_layout *l = layout_of(map);
    if (!l)
        return;
    /* every field before any meaning (a meaning may override a field) */
    decode_layout(l, 0, get, ctx, t);
    decode_layout(l, 1, get, ctx, t);
    /* f3's pixel input: a convolution whose feature is read as 8-bit pixels,
     * the bytes of 0x1084 subtracted per channel (see run_conv) */
    if (l->pixel_mode_code && t->conv_mode >= 0 && (uint32_t)t->conv_mode == l->pixel_mode_code) {
        uint32_t v = 0;
        uint32_t ch = 0;
        t->pixel_in = 1;
        /* its channel word: 0x0480000b in the sample, 12 = 3 x 4 (3 channels,
         * 3 taps, 4 lanes: which product is not pinned); only that word is taken */
        if (!get(ctx, 0x1028, &ch) || ch != 0x0480000bu)
            t->pixel_in = -1;
        else if (get(ctx, 0x1084, &v))
            for (int c = 0; c < 4; c++)
                t->pixel_off[c] = (int)(v >> (8 * c) & 0xff);
        else
            t->pixel_in = -1; /* no offsets: not a form the run takes */
        t->conv_mode = (int)l->conv_mode_code;
        size_t n = strlen(t->notes);
        snprintf(t->notes + n, sizeof t->notes - n, "%s8-bit pixel input (CNA mode code %u)",
                 n ? "; " : "", l->pixel_mode_code);
    }
    /* the mode code of a plain convolution in this layout is the rk3588 family's 0;
     * other codes are not told apart (16 + code: neither conv nor depthwise) */
    /* f2's conv over a feature cube (rocket-userspace's captures: mode 0, the
     * driver's direct mode): a plain conv as well */
    if (t->conv_mode >= 0 && l->cube_mode_code >= 0 && t->conv_mode == l->cube_mode_code)
        t->conv_mode = (int)l->conv_mode_code;
    /* ... and its depthwise conv: the rk3588 family's code 3 (classify) */
    if (t->conv_mode >= 0 && l->dw_mode_code >= 0 && t->conv_mode == l->dw_mode_code) {
        t->conv_mode = 3;
        return;
    }
    if (t->conv_mode >= 0) {
        if ((uint32_t)t->conv_mode != l->conv_mode_code) {
            size_t n = strlen(t->notes);
            snprintf(t->notes + n, sizeof t->notes - n, "%sCNA mode code %d unknown in this layout",
                     n ? "; " : "", t->conv_mode);
        }
        t->conv_mode = (uint32_t)t->conv_mode == l->conv_mode_code ? 0 : 16 + t->conv_mode;
    }
}

int emu_layout_check(int map, uint16_t addr, uint32_t value, int form)
{
    const emu_layout *l = layout_of(map);
    const emu_word *w = l ? word_of(l, addr, form) : NULL;
    if (!w)
        return 0;
    if (w->n <= 0)
        return 1;
    for (int i = 0; i < w->n; i++)
        if ((value & w->mask) == w->vals[i])
            return 1;
    return 0;
}
