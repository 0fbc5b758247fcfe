/* runtime/npu/npu_platform.h — the platform table of the simulated RKNPU2:
 * per chip its cores, clocks, MAC array per dtype, DDR bus, on-chip buffers and
 * the constants of the cost model, with where each value comes from
 * (runtime/npu/npu_platform.c). Apart from runtime/npu/npu.h so that what only
 * names or lists platforms (the CLI, reports, info) needs no graph types. */
#ifndef RT_NPU_PLATFORM_H
#define RT_NPU_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

/* ---- platforms ---------------------------------------------------------- */

/* NPU_FP32: float32 data of a CPU layer (the NPU has no fp32 arrays: every
 * per-dtype table entry of it is 0). */
enum npu_dtype { NPU_INT8 = 0, NPU_FP16, NPU_INT16, NPU_BF16, NPU_TF32, NPU_INT4, NPU_FP32,
                 NPU_NDTYPE };

#define NPU_MAX_CORES 3

typedef struct npu_platform {
    const char *name;           /* "rk3588", ... (lower case, as in the model's target) */
    const char *family;         /* op-list section: "rk3588", "rk3576", "rk356x", "rk3562", "rv1106" */
    int cores;
    unsigned core_mask;         /* driver's full mask (DRV rknpu_config.core_mask) */
    /* MAC array per core: input-channel atom x output-channel atom per cycle;
     * 0 = dtype not supported on the NPU. */
    int mac_ic[NPU_NDTYPE], mac_oc[NPU_NDTYPE];
    int dw_ch[NPU_NDTYPE];      /* depthwise channels per cycle per kernel tap */
    int c2[NPU_NDTYPE];         /* NC1HWC2 C2 (channels per stroke) */
    int npu_mhz;                /* NPU clock used for cycles -> us */
    int ddr_mhz;                /* DDR data clock of the benchmark configuration */
    int ddr_bus_bytes;          /* DDR bus width in bytes */
    double ddr_eff;             /* usable share of peak DDR bandwidth (fit, see npu_platform.c) */
    uint32_t sram_bytes;        /* NPU-assignable on-chip SRAM for internal tensors, 0 = none */
    uint32_t nbuf_bytes;        /* on-chip NPU buffer ("nbuf") a single-core context's
                                 * Internal buffer starts in, 0 = none (npu_mem_plan) */
    /* Time model of the level-4 table (our fit to real logs, see
     * npu_platform.c): time_us = (max(npu_cycles * t_npu, lut_px * t_lut)
     * + ddr_cycles * t_ddr) * share / npu_mhz + t_layer_us (+ t_lut_us for a
     * lookup-table activation); lut_px = output elements, C padded to C2. */
    double t_npu[NPU_NDTYPE], t_ddr[NPU_NDTYPE], t_layer_us[NPU_NDTYPE];
    double t_lut[NPU_NDTYPE], t_lut_us[NPU_NDTYPE];
    /* Frame model of a plain rknn_run (what the model zoo's FPS measure; FIT
     * on that table, see npu_platform.c): per NPU layer, frame_us =
     * (max(npu, ddr) + f_overlap * min(npu, ddr) + lut_elems * f_lut) * share / npu_mhz
     * + f_layer_us, with npu = npu_cycles and ddr = ddr_cycles * f_ddr: the
     * part f_overlap of the shorter of compute and DDR time is not hidden
     * behind the longer (docs/npu-model.md). */
    double f_ddr, f_lut, f_layer_us, f_overlap;
    /* NPU cycles an NPU Softmax spends per row (output elements / its
     * reduction length), on top of its DDR time, in the level-4 table and the
     * frame alike; 0 = none (npu_platform.c says where a value comes from) */
    double softmax_row_cycles;
    int cbuf_bytes;             /* per-core convolution buffer (task tiling) */
    int max_tasks_per_commit;   /* DRV: 4095 (12-bit) or 65535 (16-bit) */
    /* The chip's CPU, for CPU-fallback layers (npu_cost): the runtime's CPU
     * ops are taken to run single-threaded on one core of the fastest cluster
     * (cpu_core at cpu_mhz); cpu_ipc is that core's work per clock relative to
     * a Cortex-A76 (the core of the rk3588 logs the CPU cost is fitted on). */
    const char *cpu_core;       /* "Cortex-A76", ... */
    int cpu_big, cpu_little;    /* cores in the fast and the slow cluster (0: none) */
    int cpu_mhz, cpu_little_mhz;
    double cpu_ipc;
} npu_platform_t;

/* Version of the cost model's constants (this platform table and the
 * CPU-fallback fit npu_cpu_fit): bumped whenever one of them changes, so that a
 * stored prediction names the constants it was made with (env_json
 * "npu_cost_model", docs/store.md) and `compare` notes when two runs differ.
 * npu_cost_model_fingerprint hashes every constant; tests/unit/test_npu_platform.c
 * pins its value for the current version, so a changed constant without a new
 * version fails there. */
#define NPU_COST_MODEL_VERSION 7
uint64_t npu_cost_model_fingerprint(void);

/* Case-insensitive lookup ("RK3588" works); NULL if unknown. */
const npu_platform_t *npu_platform_find(const char *name);
/* Same, but fills err with the list of known names when not found. */
int npu_platform_get(const char *name, const npu_platform_t **out, char *err, size_t errlen);
/* Comma-separated list of known names, for usage text. */
const char *npu_platform_names(void);
/* The i-th platform of the table, NULL past the end (for listings). */
const npu_platform_t *npu_platform_at(int i);
/* Where a value of the table comes from (the chips Toolkit2 2.1-2.3.2 added):
 * status "measured" (a first-hand source) or "estimated" (assumed, why). */
typedef struct npu_fact {
    const char *chip, *what, *value, *status, *source;
} npu_fact_t;
/* The facts of one chip, contiguous: *out and their count (0: none kept). */
int npu_platform_facts(const char *name, const npu_fact_t **out);
/* "int8, float16": the dtypes the chip's NPU computes in, into buf. */
const char *npu_platform_dtypes(const npu_platform_t *p, char *buf, size_t len);
/* DDR bytes per NPU cycle: ddr_mhz * 2 (double data rate) * bus bytes * eff / npu_mhz. */
double npu_ddr_bytes_per_cycle(const npu_platform_t *p);
/* Peak MACs per cycle per core for a dtype (mac_ic * mac_oc), 0 if unsupported. */
int npu_peak_macs(const npu_platform_t *p, int npu_dtype);
/* Checks a core mask (RKNN_NPU_CORE_* values: 0 auto, 1/2/4 single cores, 3, 7,
 * 0xffff all) against the chip; returns the effective bit mask of cores used,
 * or RT_EINVAL with a message naming the chip's cores. */
int npu_core_mask_check(const npu_platform_t *p, unsigned mask, unsigned *cores, char *err,
                        size_t errlen);
const char *npu_dtype_name(int npu_dtype);  /* "INT8", "FLOAT16", ... as the log prints */
/* The same in lower case for summaries and JSON: "int8", "float16", ...,
 * "unknown". */
const char *npu_dtype_key(int npu_dtype);
/* Relative speed of the chip's CPU for CPU-fallback layers: cpu_mhz * cpu_ipc
 * over rk3588's (1 on rk3588). */
double npu_cpu_speed(const npu_platform_t *p);

#endif
