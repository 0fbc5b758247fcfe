/* runtime/npu/npu_platform.c — the one platform table. Every constant names its
 * source: tags and sections refer to shared/research/npu-hw.md (G:Lnnnn = RKNN SDK
 * user guide 2.3.0 line, DRV = vendor rknpu driver 0.9.7/0.9.8, DT = vendor device
 * trees, API = rknn_model_zoo scaling_frequency.sh, LOG-Y8 = channy yolov8n
 * RK3588 per-layer log, triority-05 = fp16 unet RK3588 per-layer log).
 * "FIT" marks values we fitted to the real logs in shared/data/logs (method in
 * the comment); "UNVERIFIED" marks values with no first-hand source. */
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include "runtime/npu/npu.h"
#include "util/util.h"

/* Time model of the level-4 (perf_debug) table (npu.h), FIT by
 * tests/tools/npu_time_fit (bench/npu_time.sh prints the fit and each table's
 * error left out of it; the "npu Time(us) model" suite checks that these are its
 * result): least mean |log error| of Time(us) over every NPU row with non-zero
 * cycles, the row's own logged DDR/NPU cycles through the formula, on LOG-Y8
 * (yolov8n int8, runtime 2.0-era, 98 rows) and triority-05 (unet fp16, runtime
 * 2.3.0, 47 rows). One set of rates for both dtypes; what differs between the
 * tables is the per-layer floor of their runtime (2.0-era 135 us, 2.3.0 35 us):
 * we print the 2.3 table, so its floor is ours. A lookup-table activation
 * (ExSwish, Sigmoid, ...) runs over the stored output at t_lut per element with
 * C padded to C2, overlapping the MAC array (LOG-Y8 ConvSigmoid rows 74/92/105
 * against ConvClip rows 78/96/107 of the same cycles). Medians of |error|:
 * int8 7.6 %, fp16 3.3 % in-sample; left out 13 % (Y8) and 9 % (triority-05, its
 * floor from itself; 108 % with the other runtime's floor). LOG-Y10 (RK3588M at
 * 800 MHz) 38 % and LOG-Y5 (1.5.0, another DDR formula) 77 % are not fitted.
 * Logged times are perf_debug times, which the guide says are inflated
 * (G:L11455). Other chips reuse these (UNVERIFIED). */
#define T_LAYER_US 34.99
#define T_NPU 0.9163
#define T_DDR 2.0405
#define T_LUT 0.4157
#define T_LUT_US 1.77

#define ALL_DT(v) {v, v, v, v, v, v}
#define TIME_MODEL                                                     \
    .t_npu = ALL_DT(T_NPU), .t_ddr = ALL_DT(T_DDR),                    \
    .t_layer_us = ALL_DT(T_LAYER_US), .t_lut = ALL_DT(T_LUT),          \
    .t_lut_us = ALL_DT(T_LUT_US)

/* Frame model (npu.h): a plain rknn_run, which the model zoo's FPS measure.
 * FIT by tests/tools/npu_models (bench/npu_models.sh prints the fit; the
 * "npu lowering vs vendor tables" suite of `make test` checks that these
 * values are its result) on the zoo 2.3.2 table (npu-benchmarks.md A): the
 * ten INT8 networks we build or bundle, int8, one core; rv1106, which that
 * table lacks, on the zoo's 2023 chart (table C, three networks). NPU cycles
 * are taken as they are (the runtime's estimate of the array: LOG-Y5's
 * Conv_0 measured 4041 us under perf_debug against our 3,686,400 cycles);
 * one per-layer cost for all chips, and per chip the DDR factor and the
 * DPU's per-element cost (cycles per output element of a lookup-table
 * activation or of an elementwise layer, npu_cost.c) minimising the largest
 * relative error. Each model's error when left out of the fit is
 * printed beside it. Other dtypes reuse the int8 values (UNVERIFIED, not
 * fitted: on the zoo's FP16 CLIP ViT-B/32 encoders, bench/npu_fp16.sh, the
 * text encoder comes within -32..+26 % on four chips but the image encoder
 * 76-88 % short, two models that disagree; the level-4 table says that the
 * frame time of float16 layers is an estimate, npu_print.c). */
/* A layer's compute and DDR time overlap only in part: it streams its first
 * tile in before the MAC array starts and its last one out after the array
 * stops, so f_overlap of the shorter stays exposed. The runtime's Total Cycles
 * column is max(DDR, NPU) (G table 3-2, full overlap), which is its
 * scheduler's estimate, not a timing; fitted jointly with the per-layer cost
 * on the same board table (grid 0..1 by 0.1), every model's error judged with
 * it left out: 0.3 and 10 us since cost model 6 (Paddle's HardSwish fused, the
 * per-element cost on elementwise layers; 0.5 and 9 us before; full overlap:
 * 15 us, left-out mean 10.6 % against 8.2 % then, docs/npu-model.md). */
#define FRAME_LAYER_US 10.0
#define FRAME_OVERLAP 0.3
#define FRAME(ddr, lut)                                                        \
    .f_ddr = (ddr), .f_lut = (lut), .f_layer_us = FRAME_LAYER_US, .f_overlap = FRAME_OVERLAP

/* An NPU Softmax's cost per row (output elements / reduction length) on
 * RK3588, beyond its DDR time. FIT on the one real row (tests/data/logs,
 * THU-MIG/yolov10 issue 115, xuefei4545's table, 1 GHz): exSoftmax13 INT8
 * over (4,80,80,17), 17-element rows, 25600 of them, DDR 36800 cycles,
 * Time 14254 us; the level-4 model leaves (14254 - 34.99 - 36800 * 2.0405 /
 * 1000) us = 552.5 cycles a row. Checked, not fitted, on the model zoo's
 * boards: RetinaFace_mobile320 and _resnet50_320 share one Softmax of 4200
 * rows of 2, 2.32 ms at this rate, and both came about that short on RK3588
 * only (2.09 and 3.15 ms; docs/npu-model.md); PP-OCRv4 rec's Softmax of 40
 * rows of 6625 costs 22 us (its attentions, 640 query rows, 0.35 ms: an
 * exSDPAttention pays it per query), which a per-element cost of the same row
 * (32.5 cycles an element, 8.6 ms) would not. Other chips: none (RK3576's
 * RetinaFace board time leaves no room; no row of another chip). */
#define SOFTMAX_ROW_CYCLES_RK3588 552.0

/* DDR efficiency 0.7, FIT: on LOG-Y8 every row's DDR cycles equal
 * (input + output + weight bytes) / 23.654 (Split/Concat/Add rows, which have no
 * weights, give 23.6540 ± 0.0003), and 23.654 = 2112 MHz * 2 * 8 B * 0.7 / 1000 MHz
 * with the benchmark DDR clock (API) on RK3588's 64-bit LPDDR4x/5 bus; the same
 * constant fits triority-05 (fp16) and LOG-Y10 rows. Other chips: same
 * efficiency assumed (UNVERIFIED). */
#define DDR_EFF 0.7

/* rk3588/rk3576 MAC arrays (npu-hw.md §1.2 table, from alignment table 8-2
 * G:L9396 and Matmul B layouts table 3-12 G:L3207): int8 32x32 (verified against
 * LOG-Y5/Y8/Y10 cycles), int16/fp16/bf16 32x16 (fp16 verified: triority-05
 * 3x3 conv rows bill ceil(IC/32)*ceil(OC/16)), tf32 16x16, int4 64x32 (here as
 * IC 32 x OC 64). Depthwise: 64 channels per tap per cycle for int8 (DERIVED from
 * LOG-Y10) and fp16 (FIT: triority-05 GlobalAveragePool_2conv rows give
 * kh*kw*ceil(C/64)); 16-bit others 32, tf32 16 from the DW column of table 8-2.
 * C2: table 5-1 G:L4564 (int8 16, 16-bit 8) and "Other OP" column (tf32 4). */
#define RK3588_ARRAYS                                               \
    .mac_ic = {32, 32, 32, 32, 16, 32}, .mac_oc = {32, 16, 16, 16, 16, 64}, \
    .dw_ch = {64, 64, 32, 32, 16, 64}, .c2 = {16, 8, 8, 8, 4, 32}

/* rk3566/rk3568 (table 8-1, Matmul B int8 [N/16,K/32,16,32], fp16 [N/8,K/16,8,16]):
 * int8 32x16, 16-bit 16x8, no tf32/int4 (table 3-12 "暂不支持"); C2 int8 8,
 * fp16 4 (table 5-1). DW: int8 32 (table 8-1); fp16 32 as well, not the
 * table's 16: DERIVED from rk3588, whose 13 real fp16 depthwise rows
 * (triority-05) bill 64 channels a tap-cycle, its int8 DW width, where its
 * table 8-2 gives 16-bit DW 32 (the table's DW column is an alignment, not
 * the unit's width); the same relation taken for this chip and rk3562
 * (UNVERIFIED: no fp16 depthwise row of either; docs/npu-model.md). */
#define DW_FP16_AS_INT8 32
/* The CPU that runs CPU-fallback layers (npu_cost). Core types: npu-hw.md §1.1
 * table, last column; clocks: the model zoo's benchmark configuration where
 * scaling_frequency.sh sets one (API, npu-benchmarks.md lines 13-15), else the
 * chip's usual maximum (UNVERIFIED: not in the corpus). Relative work per
 * clock of scalar code, A76 = 1 (UNVERIFIED: our estimate from the cores'
 * pipelines, no CPU timing of these chips in the corpus; only rk3588's CPU
 * rows are real, see npu_cost.c): A72 0.7, A55 0.45, A53 0.4, A7 0.3. */
#define IPC_A76 1.0
#define IPC_A72 0.7
#define IPC_A55 0.45
#define IPC_A53 0.4
#define IPC_A7 0.3

#define RK356X_ARRAYS                                               \
    .mac_ic = {32, 16, 16, 16, 0, 0}, .mac_oc = {16, 8, 8, 8, 0, 0}, \
    .dw_ch = {32, DW_FP16_AS_INT8, 16, 16, 0, 0}, .c2 = {8, 4, 4, 4, 0, 0}

static const npu_platform_t platforms[] = {
    {
        .name = "rk3588", .family = "rk3588",
        .cores = 3,                  /* G:L5199; DT 3 reg ranges; DRV core_mask 0x7 */
        .core_mask = 0x7,
        RK3588_ARRAYS,
        .npu_mhz = 1000,             /* DT max OPP 1000M, init-freq 1000000 kHz; API bench 1 GHz */
        .ddr_mhz = 2112,             /* API scaling_frequency.sh; G:L2070 eval_perf prints 2112000000 */
        .ddr_bus_bytes = 8,          /* 64-bit (4x16-bit) LPDDR4x/5; FIT with DDR_EFF on LOG-Y8 */
        .ddr_eff = DDR_EFF,
        .sram_bytes = 0xef000,       /* 956 KB assignable, 4 KB granularity (G:L7310, L7332, DT reg 0xef000) */
        TIME_MODEL,
        FRAME(1.50, 0.20),
        .softmax_row_cycles = SOFTMAX_ROW_CYCLES_RK3588,
        .cbuf_bytes = 384 * 1024,    /* "384KBx3 internal buffer" (npu-hw.md §1.1) */
        .max_tasks_per_commit = 4095, /* DRV rk3588 12-bit task number */
        /* 4x A76 + 4x A55 (npu-hw.md §1.1: eval_perf lists clusters at 1.8/2.256/2.304 GHz,
         * G:L2056-2066); big clock 2.256 GHz as API scaling_frequency.sh sets it */
        .cpu_core = "Cortex-A76", .cpu_big = 4, .cpu_little = 4,
        .cpu_mhz = 2256, .cpu_little_mhz = 1800, .cpu_ipc = IPC_A76,
    },
    {
        .name = "rk3576", .family = "rk3576",
        .cores = 2,                  /* G:L5199; DT npu0/npu1; DRV core_mask 0x3 */
        .core_mask = 0x3,
        RK3588_ARRAYS,               /* same alignment table 8-2 (G:L9396); see §5 open question 1 */
        .npu_mhz = 950,              /* DT max OPP 950M (init-freq 950000 kHz) */
        .ddr_mhz = 2112,             /* API */
        /* DERIVED, UNVERIFIED: a third-party summary gives a 2x16-bit bus, but in
         * the model zoo table (npu-benchmarks.md A) one RK3576 core takes 0.88x
         * the RK3588 core's time (median of the 37 INT8 models, max 1.11x), for
         * models that are DDR-bound on RK3588 too (yolov5s_relu's vendor rows):
         * half the bandwidth at the same DDR clock would double those. The
         * effective bandwidth is taken as RK3588's. */
        .ddr_bus_bytes = 8,
        .ddr_eff = DDR_EFF,
        .sram_bytes = 0,             /* nbuf 1 MiB instead of SRAM (DRV rk3576 nbuf_size) */
        /* DRV rk3576_cache_sgt_init: the 1 MiB nbuf is split per core, 448 KiB + 64 KiB
         * each; a single-core object gets nbuf_size / num_irqs = 512 KiB (npu-hw.md
         * §1.1, §3.5). That librknnrt asks for it (RKNPU_MEM_TRY_ALLOC_NBUF) for the
         * Internal buffer by default is our reading (UNVERIFIED: no RK3576 level-3 log). */
        .nbuf_bytes = 512 * 1024,
        TIME_MODEL,
        FRAME(2.00, 0.00),
        .cbuf_bytes = 384 * 1024,    /* UNVERIFIED: assumed as rk3588 */
        .max_tasks_per_commit = 65535, /* DRV 16-bit */
        /* 4x A72 + 4x A53 (DT cpus, npu-hw.md §1.1); big clock 2.016 GHz (API
         * scaling_frequency.sh); A53 at 1.8 GHz (UNVERIFIED) */
        .cpu_core = "Cortex-A72", .cpu_big = 4, .cpu_little = 4,
        .cpu_mhz = 2016, .cpu_little_mhz = 1800, .cpu_ipc = IPC_A72,
    },
    {
        .name = "rk3566", .family = "rk356x",
        .cores = 1, .core_mask = 0x1, /* DT single reg/IRQ; DRV rk356x core_mask 0x1 */
        RK356X_ARRAYS,
        .npu_mhz = 900,              /* DT: 1000M OPP disabled, max enabled 900M (§1.1 notes) */
        .ddr_mhz = 1056,             /* API RK3566 bench; DT rk3566 LPDDR4 freq_0 1056 */
        .ddr_bus_bytes = 4,          /* 32-bit (RK3568 datasheet text) */
        .ddr_eff = DDR_EFF,
        .sram_bytes = 0,             /* DRV nbuf_size 0 */
        TIME_MODEL,
        FRAME(1.40, 0.42),
        .cbuf_bytes = 256 * 1024,    /* UNVERIFIED */
        .max_tasks_per_commit = 4095, /* DRV rk356x 12-bit */
        /* 4x A55 (datasheet text, npu-hw.md §1.1) at 1.8 GHz (UNVERIFIED) */
        .cpu_core = "Cortex-A55", .cpu_big = 4, .cpu_mhz = 1800, .cpu_ipc = IPC_A55,
    },
    {
        .name = "rk3568", .family = "rk356x",
        .cores = 1, .core_mask = 0x1,
        RK356X_ARRAYS,
        .npu_mhz = 900,              /* as rk3566 */
        .ddr_mhz = 1560,             /* API RK3568 bench; DT dmc max OPP 1560 */
        .ddr_bus_bytes = 4,
        .ddr_eff = DDR_EFF,
        .sram_bytes = 0,
        TIME_MODEL,
        FRAME(2.15, 0.40),
        .cbuf_bytes = 256 * 1024,    /* UNVERIFIED */
        .max_tasks_per_commit = 4095,
        /* 4x A55 (datasheet text, npu-hw.md §1.1) at 2.0 GHz (UNVERIFIED) */
        .cpu_core = "Cortex-A55", .cpu_big = 4, .cpu_mhz = 2000, .cpu_ipc = IPC_A55,
    },
    {
        .name = "rk3562", .family = "rk3562",
        .cores = 1, .core_mask = 0x1, /* DT npu@ff300000; DRV core_mask 0x1 */
        /* table 8-4 + Matmul B int8 [N/16,K/32,16,32], fp16 [N/8,K/32,8,32]:
         * int8 32x16, 16-bit 32x8, tf32 16x8; DW 32/16, tf32 8; C2 16/8/4;
         * fp16 DW at the int8 width, as on rk3566 (DW_FP16_AS_INT8 above) */
        .mac_ic = {32, 32, 32, 32, 16, 0}, .mac_oc = {16, 8, 8, 8, 8, 0},
        .dw_ch = {32, DW_FP16_AS_INT8, 16, 16, 8, 0}, .c2 = {16, 8, 8, 8, 4, 0},
        .npu_mhz = 1000,             /* DT OPP up to 1000M */
        .ddr_mhz = 1560,             /* API */
        .ddr_bus_bytes = 4,          /* UNVERIFIED */
        .ddr_eff = DDR_EFF,
        .sram_bytes = 0,             /* nbuf 256 KiB, not SRAM (DRV) */
        .nbuf_bytes = 256 * 1024,    /* DRV rk3562_rknpu_config nbuf_size, one core
                                      * (used as on rk3576, UNVERIFIED) */
        TIME_MODEL,
        FRAME(1.35, 0.44),
        .cbuf_bytes = 256 * 1024,    /* UNVERIFIED */
        .max_tasks_per_commit = 65535,
        /* 4x A53 (npu-hw.md §1.1, UNVERIFIED there) at 2.0 GHz (API scaling_frequency.sh) */
        .cpu_core = "Cortex-A53", .cpu_big = 4, .cpu_mhz = 2000, .cpu_ipc = IPC_A53,
    },
    {
        .name = "rv1106", .family = "rv1106",
        .cores = 1, .core_mask = 0x1, /* DT npu@ff660000; DRV core_mask 0x1 */
        /* table 8-3: int8 32x16, int16 16x16, no fp16 (rknn-oplist §4 data types);
         * DW int8 32, int16 16; C2 int8 16, int16 8 */
        .mac_ic = {32, 0, 16, 0, 0, 0}, .mac_oc = {16, 0, 16, 0, 0, 0},
        .dw_ch = {32, 0, 16, 0, 0, 0}, .c2 = {16, 0, 8, 0, 0, 0},
        .npu_mhz = 500,              /* API strategy 5 writes clk_500m_src (DT default 420M) */
        .ddr_mhz = 924,              /* API */
        .ddr_bus_bytes = 2,          /* 16-bit in-package DDR (UNVERIFIED) */
        .ddr_eff = DDR_EFF,
        .sram_bytes = 0,             /* system SRAM assigned to ISP/HPMCU in DT */
        TIME_MODEL,
        FRAME(1.30, 0.52), /* fitted on table C (2023, SDK 1.5.x): no 2.3.2 column */
        .cbuf_bytes = 128 * 1024,    /* UNVERIFIED */
        .max_tasks_per_commit = 65535,
        /* 1x A7 (npu-hw.md §1.1, UNVERIFIED there) at 1.2 GHz (UNVERIFIED) */
        .cpu_core = "Cortex-A7", .cpu_big = 1, .cpu_mhz = 1200, .cpu_ipc = IPC_A7,
    },
    {
        .name = "rv1103", .family = "rv1106",
        .cores = 1, .core_mask = 0x1,
        .mac_ic = {32, 0, 16, 0, 0, 0}, .mac_oc = {16, 0, 16, 0, 0, 0},
        .dw_ch = {32, 0, 16, 0, 0, 0}, .c2 = {16, 0, 8, 0, 0, 0},
        .npu_mhz = 500, .ddr_mhz = 924, .ddr_bus_bytes = 2, .ddr_eff = DDR_EFF,
        .sram_bytes = 0,
        TIME_MODEL,
        FRAME(1.30, 0.52), /* rv1106's NPU and clocks: its fit (UNVERIFIED) */
        .cbuf_bytes = 128 * 1024,
        .max_tasks_per_commit = 65535,
        .cpu_core = "Cortex-A7", .cpu_big = 1, .cpu_mhz = 1200, .cpu_ipc = IPC_A7, /* as rv1106 */
    },
    /* The chips Toolkit2 2.1-2.3.2 added. Few public numbers exist: what each
     * value rests on, measured or estimated, is the facts table below
     * (npu_platform_facts, printed by `rknn-trace info`, docs/npu-model.md). */
    {
        .name = "rv1126b", .family = "rk3576", /* op list §3.5 "RK3576/RV1126B" */
        .cores = 1, .core_mask = 0x1, /* DRV 0.9.8 rv1126b_rknpu_config */
        /* its sample file has RK3576's native shapes (weights [1,1,kh,kw,16,4],
         * NC1HWC2 C2 16, bias [8*OC] bytes): RK3576's int8/fp16 arrays
         * assumed; its op list names int8 and float16 only (w4a16 weights) */
        .mac_ic = {32, 32, 0, 0, 0, 0}, .mac_oc = {32, 16, 0, 0, 0, 0},
        .dw_ch = {64, 64, 0, 0, 0, 0}, .c2 = {16, 8, 0, 0, 0, 0},
        .npu_mhz = 950,              /* API bench NPU 950 MHz */
        .ddr_mhz = 1560,             /* estimated: as rk3562/rk3568 */
        .ddr_bus_bytes = 4,          /* estimated */
        .ddr_eff = DDR_EFF,
        .sram_bytes = 0,
        .nbuf_bytes = 512 * 1024,    /* DRV 0.9.8: nbuf 512 KiB, one core */
        TIME_MODEL,
        FRAME(2.00, 0.00),           /* estimated: rk3576's fit (no benchmark) */
        .cbuf_bytes = 384 * 1024,    /* estimated: as rk3576 */
        .max_tasks_per_commit = 65535, /* estimated: 16-bit as the newer configs */
        .cpu_core = "Cortex-A53", .cpu_big = 4, .cpu_mhz = 1600, .cpu_ipc = IPC_A53, /* estimated */
    },
    {
        .name = "rv1106b", .family = "rv1106", /* op list §3.7: RV1106's set less some */
        .cores = 1, .core_mask = 0x1, /* estimated (npu-hw.md §1.1) */
        /* int8 only (rknn-oplist data types); C2 int8 8 (G table 5-1): the
         * 8-byte strokes of RK356x, whose int8 array (32x16, DW 32) is assumed */
        .mac_ic = {32, 0, 0, 0, 0, 0}, .mac_oc = {16, 0, 0, 0, 0, 0},
        .dw_ch = {32, 0, 0, 0, 0, 0}, .c2 = {8, 0, 0, 0, 0, 0},
        .npu_mhz = 500,              /* estimated: as rv1106's benchmark clock */
        .ddr_mhz = 924, .ddr_bus_bytes = 2, /* estimated: as rv1106 */
        .ddr_eff = DDR_EFF,
        .sram_bytes = 0,
        TIME_MODEL,
        FRAME(1.30, 0.52),           /* estimated: rv1106's fit */
        .cbuf_bytes = 128 * 1024,    /* estimated */
        .max_tasks_per_commit = 65535,
        .cpu_core = "Cortex-A7", .cpu_big = 1, .cpu_mhz = 1200, .cpu_ipc = IPC_A7, /* estimated */
    },
    {
        .name = "rv1103b", .family = "rv1106",
        .cores = 1, .core_mask = 0x1,
        .mac_ic = {32, 0, 0, 0, 0, 0}, .mac_oc = {16, 0, 0, 0, 0, 0},
        .dw_ch = {32, 0, 0, 0, 0, 0}, .c2 = {8, 0, 0, 0, 0, 0},
        .npu_mhz = 500, .ddr_mhz = 924, .ddr_bus_bytes = 2, .ddr_eff = DDR_EFF, /* as rv1106b */
        .sram_bytes = 0,
        TIME_MODEL,
        FRAME(1.30, 0.52),
        .cbuf_bytes = 128 * 1024,
        .max_tasks_per_commit = 65535,
        .cpu_core = "Cortex-A7", .cpu_big = 1, .cpu_mhz = 1200, .cpu_ipc = IPC_A7,
    },
    {
        /* an audio SoC: float16 only (rknn-oplist data types), no CPU ops
         * (op list §4.1); its own op list (§3.6) is not in the lowering's
         * table, which uses RV1106's (almost no CPU ops either) */
        .name = "rk2118", .family = "rk2118",
        .cores = 1, .core_mask = 0x1, /* estimated */
        /* C2 fp16 4 (G table 5-1, low confidence): RK356x's fp16 array 16x8, DW 16 assumed */
        .mac_ic = {0, 16, 0, 0, 0, 0}, .mac_oc = {0, 8, 0, 0, 0, 0},
        .dw_ch = {0, 16, 0, 0, 0, 0}, .c2 = {0, 4, 0, 0, 0, 0},
        .npu_mhz = 1000,             /* estimated: no public clock */
        .ddr_mhz = 924, .ddr_bus_bytes = 2, /* estimated */
        .ddr_eff = DDR_EFF,
        .sram_bytes = 0,
        TIME_MODEL,
        FRAME(1.30, 0.52),           /* estimated: rv1106's fit */
        .cbuf_bytes = 128 * 1024,    /* estimated */
        .max_tasks_per_commit = 65535,
        .cpu_core = "HiFi4 DSP", .cpu_big = 3, .cpu_mhz = 600, .cpu_ipc = IPC_A7, /* estimated */
    },
};

#define N_PLATFORMS (int)(sizeof(platforms) / sizeof(platforms[0]))

const npu_platform_t *npu_platform_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < N_PLATFORMS; i++)
        if (strcasecmp(platforms[i].name, name) == 0)
            return &platforms[i];
    return NULL;
}

const char *npu_platform_names(void)
{
    return "rk3588, rk3576, rk3566, rk3568, rk3562, rv1106, rv1103, rv1126b, rv1106b, rv1103b, "
           "rk2118";
}

const npu_platform_t *npu_platform_at(int i)
{
    return i >= 0 && i < N_PLATFORMS ? &platforms[i] : NULL;
}

/* What each value of the chips added last rests on. "measured": read from a
 * first-hand source (vendor driver, device tree, benchmark script, SDK guide
 * table, a vendor-compiled sample file); "estimated": assumed, with the
 * reason. Sources: shared/research/npu-hw.md (G, DRV, API tags), rknn-oplist.md,
 * rknn-api.md, the sample multiple_input_demo.rv1126b.rknn (toolkit 2.3.2). */
static const npu_fact_t facts[] = {
    {"rv1126b", "cores", "1", "measured", "DRV 0.9.8 rv1126b_rknpu_config"},
    {"rv1126b", "npu clock", "950 MHz", "measured", "API scaling_frequency.sh bench NPU clock"},
    {"rv1126b", "int8 MACs/cycle", "1024 (32x32), DW 64 ch", "estimated",
     "RK3576's array: its sample file has RK3576's native weight layout [1,1,kh,kw,16,4], "
     "C2 16 and bias bytes; one op-list section with RK3576 (rknn-oplist §3.5)"},
    {"rv1126b", "fp16 MACs/cycle", "512 (32x16)", "estimated", "as RK3576 (same reason)"},
    {"rv1126b", "peak", "1.95 TOPS int8", "estimated", "1024 MACs x 2 x 950 MHz; no public figure "
     "in our sources"},
    {"rv1126b", "C2", "int8 16, fp16 8", "measured", "native shapes of its sample file; "
     "rknn-api.md C2 table"},
    {"rv1126b", "dtypes", "int8, float16", "measured", "rknn-oplist.md data types (RK3576/RV1126B)"},
    {"rv1126b", "on-chip buffer", "nbuf 512 KiB", "measured", "DRV 0.9.8 nbuf @0x3ff30000"},
    {"rv1126b", "op list", "RK3576's", "measured", "rknn-oplist §3.5 (RK3576/RV1126B, 78 ops)"},
    {"rv1126b", "DDR", "1560 MHz x 32-bit", "estimated", "not in our sources: as RK3562/RK3568"},
    {"rv1126b", "frame fit", "RK3576's", "estimated", "no model-zoo benchmark column"},
    {"rv1126b", "CPU", "4x Cortex-A53 1.6 GHz", "estimated", "not in our sources"},
    {"rv1106b", "cores", "1", "estimated", "npu-hw.md §1.1 (UNVERIFIED there)"},
    {"rv1106b", "npu clock", "500 MHz", "estimated", "not found: RV1106's benchmark clock"},
    {"rv1106b", "int8 MACs/cycle", "512 (32x16), DW 32 ch", "estimated",
     "C2 int8 8 as RK356x (G table 5-1), whose int8 array is 32x16"},
    {"rv1106b", "peak", "0.51 TOPS int8", "estimated", "512 MACs x 2 x 500 MHz"},
    {"rv1106b", "C2", "int8 8", "measured", "G table 5-1 (npu-hw.md §2.1)"},
    {"rv1106b", "dtypes", "int8", "measured", "rknn-oplist.md data types; C2 table fp16 \"/\""},
    {"rv1106b", "on-chip buffer", "none", "estimated", "not found"},
    {"rv1106b", "op list", "RV1106's", "estimated", "§3.7 is RV1106's less GRU/Gather/LSTM/...: "
     "the lowering uses RV1106's"},
    {"rv1106b", "DDR", "924 MHz x 16-bit", "estimated", "as RV1106"},
    {"rv1106b", "frame fit", "RV1106's", "estimated", "no benchmark"},
    {"rv1106b", "CPU", "1x Cortex-A7 1.2 GHz", "estimated", "npu-hw.md §1.1 (UNVERIFIED there)"},
    {"rv1103b", "all values", "as rv1106b", "estimated", "same SDK tables (C2 8, int8 only); "
     "nothing chip-specific public"},
    {"rk2118", "cores", "1", "estimated", "not found"},
    {"rk2118", "npu clock", "1000 MHz", "estimated", "not found"},
    {"rk2118", "fp16 MACs/cycle", "128 (16x8), DW 16 ch", "estimated",
     "C2 fp16 4 as RK356x (G table 5-1, low confidence), whose fp16 array is 16x8"},
    {"rk2118", "peak", "0.26 TOPS fp16", "estimated", "128 x 2 x 1 GHz; a vendor blog's 1.2 TOPS "
     "(npu-hw.md §1.1) names no dtype or clock"},
    {"rk2118", "C2", "fp16 4", "measured", "G table 5-1 (decoding of low confidence)"},
    {"rk2118", "dtypes", "float16", "measured", "rknn-oplist.md data types"},
    {"rk2118", "op list", "RV1106's", "estimated", "§3.6 (60 ops, no CPU ops) is not in the "
     "lowering's table; RV1106's has almost no CPU ops"},
    {"rk2118", "DDR", "924 MHz x 16-bit", "estimated", "not found"},
    {"rk2118", "CPU", "3x HiFi4 DSP", "estimated", "vendor blog (npu-hw.md §1.1); no CPU ops run"},
};

int npu_platform_facts(const char *name, const npu_fact_t **out)
{
    int first = -1, n = 0;

    for (int i = 0; i < (int)(sizeof(facts) / sizeof(facts[0])); i++)
        if (name && !strcasecmp(facts[i].chip, name)) {
            if (first < 0)
                first = i;
            n++;
        }
    *out = first >= 0 ? &facts[first] : NULL;
    return n;
}

const char *npu_platform_dtypes(const npu_platform_t *p, char *buf, size_t len)
{
    size_t o = 0;

    buf[0] = '\0';
    for (int d = 0; d < NPU_FP32 && o < len; d++)
        if (npu_peak_macs(p, d))
            o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", npu_dtype_key(d));
    return buf;
}

int npu_platform_get(const char *name, const npu_platform_t **out, char *err, size_t errlen)
{
    *out = npu_platform_find(name);
    if (!*out)
        return rt_err(err, errlen, RT_EINVAL, "unknown platform '%s' (known: %s)",
                      name ? name : "(null)", npu_platform_names());
    return 0;
}

double npu_ddr_bytes_per_cycle(const npu_platform_t *p)
{
    return (double)p->ddr_mhz * 2.0 * p->ddr_bus_bytes * p->ddr_eff / p->npu_mhz;
}

int npu_peak_macs(const npu_platform_t *p, int dt)
{
    if (dt < 0 || dt >= NPU_NDTYPE)
        return 0;
    return p->mac_ic[dt] * p->mac_oc[dt];
}

int npu_core_mask_check(const npu_platform_t *p, unsigned mask, unsigned *cores, char *err,
                        size_t errlen)
{
    /* RKNN_NPU_CORE_AUTO = 0 runs on one (idle) core; CORE_ALL = 0xffff all
     * cores of the chip (API rknn_api.h; G:L5210-5290). */
    if (mask == 0) {
        *cores = 0x1;
        return 0;
    }
    if (mask == 0xffff) {
        *cores = p->core_mask;
        return 0;
    }
    if (mask & ~p->core_mask)
        return rt_err(err, errlen, RT_EINVAL,
                      "core mask 0x%x not available on %s (%d core%s, mask 0x%x)", mask,
                      p->name, p->cores, p->cores > 1 ? "s" : "", p->core_mask);
    *cores = mask;
    return 0;
}

double npu_cpu_speed(const npu_platform_t *p)
{
    const npu_platform_t *ref = &platforms[0]; /* rk3588: the CPU rows' chip */

    return p->cpu_mhz * p->cpu_ipc / (ref->cpu_mhz * ref->cpu_ipc);
}

const char *npu_dtype_key(int dt)
{
    switch (dt) {
    case NPU_INT8: return "int8";
    case NPU_FP16: return "float16";
    case NPU_INT16: return "int16";
    case NPU_BF16: return "bfloat16";
    case NPU_TF32: return "tfloat32";
    case NPU_INT4: return "int4";
    case NPU_FP32: return "float32";
    }
    return "unknown";
}

const char *npu_dtype_name(int dt)
{
    switch (dt) {
    case NPU_INT8: return "INT8";
    case NPU_FP16: return "FLOAT16";
    case NPU_INT16: return "INT16";
    case NPU_BF16: return "BFLOAT16";
    case NPU_TF32: return "TFLOAT32";
    case NPU_INT4: return "INT4";
    case NPU_FP32: return "FLOAT";
    }
    return "UNKNOWN";
}

/* FNV-1a, 64 bits, over n bytes. */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

static uint64_t fnv1a_str(uint64_t h, const char *s)
{
    return fnv1a(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

uint64_t npu_cost_model_fingerprint(void)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    /* every numeric field as stored (a field added later is covered without a
     * change here), the strings by their text */
    for (size_t i = 0; i < sizeof(platforms) / sizeof(platforms[0]); i++) {
        npu_platform_t p;
        memcpy(&p, &platforms[i], sizeof p);
        h = fnv1a_str(h, p.name);
        h = fnv1a_str(h, p.family);
        h = fnv1a_str(h, p.cpu_core);
        p.name = p.family = p.cpu_core = NULL;
        h = fnv1a(h, &p, sizeof p);
    }
    return fnv1a(h, &npu_cpu_fit, sizeof npu_cpu_fit);
}
