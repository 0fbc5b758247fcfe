/* runtime/emu/emu_map.c — register names of the NPU blocks the vendor's
 * tasks program, per chip layout. Addresses and names follow the public
 * register descriptions (RK3588 TRM names as Mesa's rocket driver and
 * mtx512/rk3588-npu spell them); the RK3566/RK3568 CORE offsets were read
 * off the sample files (their values line up one word lower than RK3588's). */
#include <stdlib.h>
#include <string.h>
#include "runtime/emu/emu.h"

typedef struct regname {
    uint16_t addr;
    const char *name;
} regname;

/* Blocks common to the RK3588 and RK356x layouts (all but CORE). */
static const regname common_regs[] = {
    {0x0000, "PC_VERSION"}, {0x0004, "PC_VERSION_NUM"}, {0x0008, "PC_OPERATION_ENABLE"},
    {0x0010, "PC_BASE_ADDRESS"}, {0x0014, "PC_REGISTER_AMOUNTS"}, {0x0020, "PC_INTERRUPT_MASK"},
    {0x0024, "PC_INTERRUPT_CLEAR"}, {0x0028, "PC_INTERRUPT_STATUS"},
    {0x002c, "PC_INTERRUPT_RAW_STATUS"}, {0x0030, "PC_TASK_CON"}, {0x0034, "PC_TASK_DMA_BASE_ADDR"},
    {0x003c, "PC_TASK_STATUS"},
    {0x1000, "CNA_S_STATUS"}, {0x1004, "CNA_S_POINTER"}, {0x1008, "CNA_OPERATION_ENABLE"},
    {0x100c, "CNA_CONV_CON1"}, {0x1010, "CNA_CONV_CON2"}, {0x1014, "CNA_CONV_CON3"},
    {0x1020, "CNA_DATA_SIZE0"}, {0x1024, "CNA_DATA_SIZE1"}, {0x1028, "CNA_DATA_SIZE2"},
    {0x102c, "CNA_DATA_SIZE3"}, {0x1030, "CNA_WEIGHT_SIZE0"}, {0x1034, "CNA_WEIGHT_SIZE1"},
    {0x1038, "CNA_WEIGHT_SIZE2"}, {0x1040, "CNA_CBUF_CON0"}, {0x1044, "CNA_CBUF_CON1"},
    {0x104c, "CNA_CVT_CON0"}, {0x1050, "CNA_CVT_CON1"}, {0x1054, "CNA_CVT_CON2"},
    {0x1058, "CNA_CVT_CON3"}, {0x105c, "CNA_CVT_CON4"}, {0x1060, "CNA_FC_CON0"},
    {0x1064, "CNA_FC_CON1"}, {0x1068, "CNA_PAD_CON0"}, {0x1070, "CNA_FEATURE_DATA_ADDR"},
    {0x1074, "CNA_FC_CON2"}, {0x1078, "CNA_DMA_CON0"}, {0x107c, "CNA_DMA_CON1"},
    {0x1080, "CNA_DMA_CON2"}, {0x1084, "CNA_FC_DATA_SIZE0"}, {0x1088, "CNA_FC_DATA_SIZE1"},
    {0x1090, "CNA_CLK_GATE"}, {0x1100, "CNA_DCOMP_CTRL"}, {0x1104, "CNA_DCOMP_REGNUM"},
    {0x1110, "CNA_DCOMP_ADDR0"}, {0x1140, "CNA_DCOMP_AMOUNT0"}, {0x1144, "CNA_DCOMP_AMOUNT1"},
    {0x1148, "CNA_DCOMP_AMOUNT2"}, {0x114c, "CNA_DCOMP_AMOUNT3"}, {0x1150, "CNA_DCOMP_AMOUNT4"},
    {0x1154, "CNA_DCOMP_AMOUNT5"}, {0x1158, "CNA_DCOMP_AMOUNT6"}, {0x115c, "CNA_DCOMP_AMOUNT7"},
    {0x1160, "CNA_DCOMP_AMOUNT8"}, {0x1164, "CNA_DCOMP_AMOUNT9"}, {0x1168, "CNA_DCOMP_AMOUNT10"},
    {0x116c, "CNA_DCOMP_AMOUNT11"}, {0x1170, "CNA_DCOMP_AMOUNT12"},
    {0x1174, "CNA_DCOMP_AMOUNT13"}, {0x1178, "CNA_DCOMP_AMOUNT14"},
    {0x117c, "CNA_DCOMP_AMOUNT15"}, {0x1180, "CNA_CVT_CON5"}, {0x1184, "CNA_PAD_CON1"},
    {0x4000, "DPU_S_STATUS"}, {0x4004, "DPU_S_POINTER"}, {0x4008, "DPU_OPERATION_ENABLE"},
    {0x400c, "DPU_FEATURE_MODE_CFG"}, {0x4010, "DPU_DATA_FORMAT"}, {0x4014, "DPU_OFFSET_PEND"},
    {0x4020, "DPU_DST_BASE_ADDR"}, {0x4024, "DPU_DST_SURF_STRIDE"},
    {0x4030, "DPU_DATA_CUBE_WIDTH"}, {0x4034, "DPU_DATA_CUBE_HEIGHT"},
    {0x4038, "DPU_DATA_CUBE_NOTCH_ADDR"}, {0x403c, "DPU_DATA_CUBE_CHANNEL"},
    {0x4040, "DPU_BS_CFG"}, {0x4044, "DPU_BS_ALU_CFG"}, {0x4048, "DPU_BS_MUL_CFG"},
    {0x404c, "DPU_BS_RELUX_CMP_VALUE"}, {0x4050, "DPU_BS_OW_CFG"}, {0x4054, "DPU_BS_OW_OP"},
    {0x4058, "DPU_WDMA_SIZE_0"}, {0x405c, "DPU_WDMA_SIZE_1"}, {0x4060, "DPU_BN_CFG"},
    {0x4064, "DPU_BN_ALU_CFG"}, {0x4068, "DPU_BN_MUL_CFG"}, {0x406c, "DPU_BN_RELUX_CMP_VALUE"},
    {0x4070, "DPU_EW_CFG"}, {0x4074, "DPU_EW_CVT_OFFSET_VALUE"},
    {0x4078, "DPU_EW_CVT_SCALE_VALUE"}, {0x407c, "DPU_EW_RELUX_CMP_VALUE"},
    {0x4080, "DPU_OUT_CVT_OFFSET"}, {0x4084, "DPU_OUT_CVT_SCALE"}, {0x4088, "DPU_OUT_CVT_SHIFT"},
    {0x4090, "DPU_EW_OP_VALUE_0"}, {0x4094, "DPU_EW_OP_VALUE_1"}, {0x4098, "DPU_EW_OP_VALUE_2"},
    {0x409c, "DPU_EW_OP_VALUE_3"}, {0x40a0, "DPU_EW_OP_VALUE_4"}, {0x40a4, "DPU_EW_OP_VALUE_5"},
    {0x40a8, "DPU_EW_OP_VALUE_6"}, {0x40ac, "DPU_EW_OP_VALUE_7"}, {0x40c0, "DPU_SURFACE_ADD"},
    {0x4100, "DPU_LUT_ACCESS_CFG"}, {0x4104, "DPU_LUT_ACCESS_DATA"}, {0x4108, "DPU_LUT_CFG"},
    {0x410c, "DPU_LUT_INFO"}, {0x4110, "DPU_LUT_LE_START"}, {0x4114, "DPU_LUT_LE_END"},
    {0x4118, "DPU_LUT_LO_START"}, {0x411c, "DPU_LUT_LO_END"},
    {0x4120, "DPU_LUT_LE_SLOPE_SCALE"}, {0x4124, "DPU_LUT_LE_SLOPE_SHIFT"},
    {0x4128, "DPU_LUT_LO_SLOPE_SCALE"}, {0x412c, "DPU_LUT_LO_SLOPE_SHIFT"},
    {0x5000, "DPU_RDMA_S_STATUS"}, {0x5004, "DPU_RDMA_S_POINTER"},
    {0x5008, "DPU_RDMA_OPERATION_ENABLE"}, {0x500c, "DPU_RDMA_DATA_CUBE_WIDTH"},
    {0x5010, "DPU_RDMA_DATA_CUBE_HEIGHT"}, {0x5014, "DPU_RDMA_DATA_CUBE_CHANNEL"},
    {0x5018, "DPU_RDMA_SRC_BASE_ADDR"}, {0x501c, "DPU_RDMA_BRDMA_CFG"},
    {0x5020, "DPU_RDMA_BS_BASE_ADDR"}, {0x5028, "DPU_RDMA_NRDMA_CFG"},
    {0x502c, "DPU_RDMA_BN_BASE_ADDR"}, {0x5034, "DPU_RDMA_ERDMA_CFG"},
    {0x5038, "DPU_RDMA_EW_BASE_ADDR"}, {0x5040, "DPU_RDMA_EW_SURF_STRIDE"},
    {0x5044, "DPU_RDMA_FEATURE_MODE_CFG"}, {0x5048, "DPU_RDMA_SRC_DMA_CFG"},
    {0x504c, "DPU_RDMA_SURF_NOTCH"}, {0x5064, "DPU_RDMA_PAD_CFG"}, {0x5068, "DPU_RDMA_WEIGHT"},
    {0x506c, "DPU_RDMA_EW_SURF_NOTCH"},
    {0x6000, "PPU_S_STATUS"}, {0x6004, "PPU_S_POINTER"}, {0x6008, "PPU_OPERATION_ENABLE"},
    {0x600c, "PPU_DATA_CUBE_IN_WIDTH"}, {0x6010, "PPU_DATA_CUBE_IN_HEIGHT"},
    {0x6014, "PPU_DATA_CUBE_IN_CHANNEL"}, {0x6018, "PPU_DATA_CUBE_OUT_WIDTH"},
    {0x601c, "PPU_DATA_CUBE_OUT_HEIGHT"}, {0x6020, "PPU_DATA_CUBE_OUT_CHANNEL"},
    {0x6024, "PPU_OPERATION_MODE_CFG"}, {0x6034, "PPU_POOLING_KERNEL_CFG"},
    {0x6038, "PPU_RECIP_KERNEL_WIDTH"}, {0x603c, "PPU_RECIP_KERNEL_HEIGHT"},
    {0x6040, "PPU_POOLING_PADDING_CFG"}, {0x6044, "PPU_PADDING_VALUE_1_CFG"},
    {0x6048, "PPU_PADDING_VALUE_2_CFG"}, {0x6070, "PPU_DST_BASE_ADDR"},
    {0x607c, "PPU_DST_SURF_STRIDE"}, {0x6084, "PPU_DATA_FORMAT"}, {0x60dc, "PPU_MISC_CTRL"},
    {0x7000, "PPU_RDMA_S_STATUS"}, {0x7004, "PPU_RDMA_S_POINTER"},
    {0x7008, "PPU_RDMA_OPERATION_ENABLE"}, {0x700c, "PPU_RDMA_CUBE_IN_WIDTH"},
    {0x7010, "PPU_RDMA_CUBE_IN_HEIGHT"}, {0x7014, "PPU_RDMA_CUBE_IN_CHANNEL"},
    {0x701c, "PPU_RDMA_SRC_BASE_ADDR"}, {0x7024, "PPU_RDMA_SRC_LINE_STRIDE"},
    {0x7028, "PPU_RDMA_SRC_SURF_STRIDE"}, {0x7030, "PPU_RDMA_DATA_FORMAT"},
    {0x8000, "DDMA_CFG_OUTSTANDING"}, {0x8004, "DDMA_RD_WEIGHT_0"}, {0x8008, "DDMA_WR_WEIGHT_0"},
    {0x800c, "DDMA_CFG_ID_ERROR"}, {0x8010, "DDMA_RD_WEIGHT_1"}, {0x8014, "DDMA_CFG_DMA_FIFO_CLR"},
    {0x8018, "DDMA_CFG_DMA_ARB"}, {0x8020, "DDMA_CFG_DMA_RD_QOS"}, {0x8024, "DDMA_CFG_DMA_RD_CFG"},
    {0x8028, "DDMA_CFG_DMA_WR_CFG"}, {0x802c, "DDMA_CFG_DMA_WSTRB"}, {0x8030, "DDMA_CFG_STATUS"},
};

static const regname core_rk3588[] = {
    {0x3000, "CORE_S_STATUS"}, {0x3004, "CORE_S_POINTER"}, {0x3008, "CORE_OPERATION_ENABLE"},
    {0x300c, "CORE_MAC_GATING"}, {0x3010, "CORE_MISC_CFG"}, {0x3014, "CORE_DATAOUT_SIZE_0"},
    {0x3018, "CORE_DATAOUT_SIZE_1"}, {0x301c, "CORE_CLIP_TRUNCATE"},
};

/* RK356x: MISC_CFG, DATAOUT_SIZE_0/1 one word lower (the sample files write
 * 0x3010 = (H-1)<<16 | (W-1) and 0x3014 = C-1 there); the rest unverified. */
static const regname core_rk356x[] = {
    {0x3000, "CORE_S_STATUS"}, {0x3004, "CORE_S_POINTER"}, {0x3008, "CORE_OPERATION_ENABLE"},
    {0x300c, "CORE_MISC_CFG"}, {0x3010, "CORE_DATAOUT_SIZE_0"}, {0x3014, "CORE_DATAOUT_SIZE_1"},
};

static const char *find(const regname *t, size_t n, uint16_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* the tables are sorted by address */
        size_t mid = (lo + hi) / 2;
        if (t[mid].addr == addr)
            return t[mid].name;
        if (t[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

const char *emu_reg_name(int map, uint16_t addr)
{
    if (emu_layout_known(map))
        return emu_layout_reg_name(map, addr);
    if (map != EMU_MAP_RK3588 && map != EMU_MAP_RK356X && map != EMU_MAP_RV110X)
        return NULL;
    if ((addr & 0xf000) == 0x3000)
        return map != EMU_MAP_RK356X ? find(core_rk3588, N(core_rk3588), addr)
                                     : find(core_rk356x, N(core_rk356x), addr);
    return find(common_regs, N(common_regs), addr);
}

const char *emu_block_name(uint16_t addr)
{
    static const char *const names[16] = {"PC", "CNA", "?2", "CORE", "DPU", "DPU_RDMA", "PPU",
                                          "PPU_RDMA", "DDMA", "SDMA", "?A", "?B", "?C", "?D",
                                          "?E", "GLOBAL"};
    return names[addr >> 12];
}

int emu_map_for_target(const char *target)
{
    static const struct { const char *name; int map; } t[] = {
        {"rk3588", EMU_MAP_RK3588}, {"rv1103", EMU_MAP_RV110X}, {"rv1106", EMU_MAP_RV110X},
        {"rk3566", EMU_MAP_RK356X}, {"rk3568", EMU_MAP_RK356X}, {"rk3562", EMU_MAP_T4},
        {"rk3576", EMU_MAP_F2}, {"rv1126b", EMU_MAP_F3},
    };
    if (!target)
        return EMU_MAP_NONE;
    for (size_t i = 0; i < N(t); i++)
        if (!strcmp(target, t[i].name))
            return t[i].map;
    return EMU_MAP_NONE;
}

const char *emu_map_name(int map)
{
    switch (map) {
    case EMU_MAP_RK3588: return "rk3588";
    case EMU_MAP_RK356X: return "rk356x";
    case EMU_MAP_RV110X: return "rv110x";
    case EMU_MAP_T4: return "t4";
    case EMU_MAP_F2: return "f2";
    case EMU_MAP_F3: return "f3";
    default: return "none";
    }
}

int emu_channel_group(const char *target)
{
    static const char *const g8[] = {"rk3588", "rk3576", "rv1126b"};
    static const char *const g4[] = {"rk3566", "rk3568", "rk3562", "rv1103", "rv1106"};
    if (!target)
        return 0;
    for (size_t i = 0; i < N(g8); i++)
        if (!strcmp(target, g8[i]))
            return 8;
    for (size_t i = 0; i < N(g4); i++)
        if (!strcmp(target, g4[i]))
            return 4;
    return 0;
}

static const emu_chip_info chips[] = {
    {"rk3588", "tasks decoded (CNA, CORE, DPU, DPU_RDMA, PPU, PPU_RDMA); executed by run --emulate "
               "(model-6 files; model-1 files through the nodes' task lists): int8 conv, ConvAdd, "
               "one-pixel copies, toolkit 1.3.4's compressed weights, BN ReLU and ReLUX (ReLU6), "
               "int8 depthwise (row and 64-channel tiles) with or without a LUT, toolkit 2.3.0's "
               "LUT uploads with LUT convs, weights offset by DPU_BS_OW_OP, Adds, channel copies "
               "(per image of a batch), task-less Reshapes and Reshape copies, MaxPool, nearest "
               "2x Resize; other pooling and an exSDPAttention stop it (RKNN_TRACE_EMU_ATTN=float: "
               "that node in float64)"},
    {"rv1103 rv1106", "tasks decoded as rk3588 but the CNA pad field (19 extra CNA/DPU registers kept raw); "
                      "executed by run --emulate over one flat NPU address space: int8 conv and "
                      "depthwise, image input converter, PReLU, ConvLeakyReluAdd, DPU copies, 2x "
                      "upsample, NCHW->NHWC Transpose (two passes), row Concats and Reshapes "
                      "(retinaface: all 155 tasks, its outputs); other DPU-only forms stop it"},
    {"rk3566 rk3568", "tasks decoded (CORE at other offsets; a few CNA/DPU_RDMA registers raw); executed "
                      "by run --emulate as rk3588 (their BS/EW config words), OutputOperator on the CPU; "
                      "model-1 files: LUT swish/sigmoid, weights in input-channel blocks, "
                      "output-channel tiles, Split, Concat, Add, MaxPool, 2x Resize (yolov8n: all "
                      "245 tasks, its outputs)"},
    {"rk3562", "tasks decoded (layout t4: its own CNA, CORE, DPU and DPU_RDMA offsets, from a field "
               "table); executed by run --emulate (model-6 files): int8 conv and ConvAdd in row tiles, "
               "every other register at the sample files' values (anything else stops it), "
               "OutputOperator on the CPU"},
    {"rk3576", "tasks decoded (layout f2: t4's DPU offsets, CNA sizes as N-1, from a field table); "
               "executed by run --emulate (model-6 files): int8 conv and ConvAdd, whole and in row "
               "tiles, float16 conv, int8 depthwise conv, MaxPool and AveragePool, a conv's ReLU, ReLU6, "
               "LeakyReLU and LUT activation (the buffers the file's address patches name), "
               "every other register at the sample files' values (anything else stops it)"},
    {"rv1126b", "tasks decoded (layout f3: f2's offsets, an 8-bit pixel input mode for the image "
                "conv, from a field table); executed by run --emulate (model-6 files): int8 conv "
                "(pixel input included), float16 1x1 conv and ConvAdd, every other register at "
                "the sample files' values (anything else stops it)"},
};

const emu_chip_info *emu_chip_table(int *n)
{
    *n = (int)N(chips);
    return chips;
}
