/* runtime/npu/npu.h — the simulated RKNPU2: platform table, lowering of a prepared
 * graph into the layers the vendor runtime would execute (fusion, CPU fallback,
 * InputOperator/OutputOperator/exDataConvert rows), per-layer cost (NPU and DDR
 * cycles, time, MAC usage, core split), the level-4 performance table printer,
 * and the driver's "NPU load" text.
 *
 * Sources are cited by tag from shared/research/npu-hw.md (G:Lnnnn = SDK user
 * guide line, DRV = vendor driver, LOG-Y8/Y10 = real logs), rknn-oplist.md and
 * log-formats.md. Numbers that are our fits to real logs say so.
 *
 * Typical use:
 *     const npu_platform_t *p = npu_platform_find("rk3588");
 *     npu_graph_t *ng;
 *     npu_lower(g, p, DT_INT8, &ng, err, sizeof err);   // g: after passes_prepare
 *     npu_cost(ng, NULL);                               // or with host times
 *     npu_print_perf_table(stdout, ng, NPU_PRINT_PREFIX);
 *     npu_graph_free(ng);
 */
#ifndef RT_NPU_H
#define RT_NPU_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "runtime/model/model.h"

/* ---- platforms ---------------------------------------------------------- */

enum npu_dtype { NPU_INT8 = 0, NPU_FP16, NPU_INT16, NPU_BF16, NPU_TF32, NPU_INT4, NPU_NDTYPE };

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
    /* Time model (our fit to real logs, see npu_platform.c): time_us =
     * max(npu_cycles * t_npu, ddr_cycles * t_ddr) / npu_mhz + t_layer_us. */
    double t_npu[NPU_NDTYPE], t_ddr[NPU_NDTYPE], t_layer_us[NPU_NDTYPE];
    int cbuf_bytes;             /* per-core convolution buffer (task tiling) */
    int max_tasks_per_commit;   /* DRV: 4095 (12-bit) or 65535 (16-bit) */
} npu_platform_t;

/* Case-insensitive lookup ("RK3588" works); NULL if unknown. */
const npu_platform_t *npu_platform_find(const char *name);
/* Same, but fills err with the list of known names when not found. */
int npu_platform_get(const char *name, const npu_platform_t **out, char *err, size_t errlen);
/* Comma-separated list of known names, for usage text. */
const char *npu_platform_names(void);
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

/* ---- lowered graph ------------------------------------------------------ */

enum npu_target { NPU_TGT_NPU = 0, NPU_TGT_CPU = 1 };
enum npu_kind {
    NPU_K_IO = 0,   /* InputOperator / OutputOperator */
    NPU_K_CONV,     /* convolution, also Gemm/MatMul with constant weights */
    NPU_K_DWCONV,   /* depthwise convolution */
    NPU_K_DECONV,   /* ConvTranspose */
    NPU_K_MATMUL,   /* exMatMul (two activations) */
    NPU_K_ELTWISE,  /* Add/Mul/... and activations */
    NPU_K_POOL,
    NPU_K_MOVE,     /* Concat/Split/Slice/Reshape/Transpose/Resize/Pad/Gather... */
    NPU_K_CONVERT,  /* exDataConvert */
    NPU_K_OTHER,
};
enum npu_bound { NPU_BOUND_COMPUTE = 0, NPU_BOUND_DDR = 1, NPU_BOUND_CPU = 2 };

#define NPU_MAX_IO 8
#define NPU_SHAPE_MAX 6

typedef struct npu_shape {
    int nd;
    int64_t d[NPU_SHAPE_MAX];
} npu_shape_t;

typedef struct npu_layer {
    int id;                       /* 1-based execution order, as the vendor table */
    char optype[40];              /* vendor OpType: ConvRelu, ConvExSwish, exDataConvert... */
    char *fullname;               /* "<onnx op>:<node name>", may be "" */
    int target;                   /* enum npu_target */
    int kind;                     /* enum npu_kind */
    int dtype;                    /* enum npu_dtype of the layer's data */
    char datatype[12];            /* DataType column: "INT8", "UINT8", "FLOAT16", "FLOAT" */
    char *reason;                 /* why it runs on the CPU; NULL on the NPU */
    /* what the layer covers in the source graph (for mapping back) */
    int *src_nodes, n_src_nodes;  /* ONNX node indices, in order */
    char **src_tensors;           /* output tensor names of the covered nodes */
    int n_src_tensors;
    /* shapes as printed: inputs incl. weights/bias, then outputs; n_in/n_out
     * count all of them even beyond NPU_MAX_IO (only the first are stored) */
    int n_in, n_out;
    npu_shape_t in[NPU_MAX_IO], out[NPU_MAX_IO];
    int in_const[NPU_MAX_IO];     /* input i is a weight/bias/constant */
    int in_align[NPU_MAX_IO];     /* channel padding of input i as its producer stored it, 0 = C2 */
    int out_tensor;               /* graph tensor index of the first output, -1 if none */
    int out_is_graph_output;      /* that tensor is a model output */
    /* MAC geometry (conv family) */
    int kh, kw, ic, oc, group;
    int64_t out_pixels;           /* N*OH*OW (or M for matmul) */
    /* cost (filled by npu_cost) */
    uint64_t macs;
    uint64_t bytes_in, bytes_w, bytes_out;  /* DDR traffic estimate */
    uint64_t ddr_cycles, npu_cycles, total_cycles;
    double time_us;
    double mac_usage[NPU_MAX_CORES];  /* % per core */
    double workload[NPU_MAX_CORES];   /* % share per core */
    int task_number;
    double rw_kb;                 /* bytes read (inputs + weights) / 1024, as the vendor prints */
    int bound;                    /* enum npu_bound */
    double host_us;               /* CPU layers: measured host time (sum over covered nodes) */
    uint32_t sram_hit;            /* bytes of the output placed in SRAM */
} npu_layer_t;

typedef struct npu_graph {
    const npu_platform_t *plat;
    int dtype;                    /* enum npu_dtype of the model */
    unsigned cores;               /* bit mask of cores used (default: core 0) */
    npu_layer_t *l;
    int n, cap;
    int *node_layer;              /* per graph node: layer index covering it, -1 none */
    int n_nodes;
    /* totals after npu_cost */
    double total_us, total_rw_kb;
    uint32_t sram_used;           /* bytes of SRAM allocated (npu_sram_plan) */
} npu_graph_t;

/* Lowers a prepared graph (passes_prepare done: shapes known; folded nodes are
 * skipped). dtype in ONNX numbering: DT_INT8/DT_UINT8 (quantized model),
 * DT_FLOAT16, or DT_FLOAT (the NPU has no fp32: an unquantized model runs in
 * fp16, as the vendor's converter does). Fails on a dtype the chip's NPU lacks
 * (e.g. fp16 on rv1106). An op that the vendor runtime supports nowhere on that
 * chip is still placed on the CPU, with the reason saying so. */
int npu_lower(const graph_t *g, const npu_platform_t *p, int dtype, npu_graph_t **out,
              char *err, size_t errlen);
void npu_graph_free(npu_graph_t *ng);
/* Selects cores (RKNN_NPU_CORE_* mask) before npu_cost; default is core 0. */
int npu_set_core_mask(npu_graph_t *ng, unsigned mask, char *err, size_t errlen);

/* Fills the cost fields of every layer and the totals. host_us (may be NULL)
 * is indexed by graph node: measured host time of that node (layer events),
 * used for CPU layers, scaled by npu_cpu_scale(). */
void npu_cost(npu_graph_t *ng, const double *host_us);
/* Board CPU time per host microsecond (RKNN_TRACE_CPU_SCALE overrides). */
double npu_cpu_scale(void);
/* Cost of one layer (exported for tests and the fidelity tool). */
void npu_cost_layer(const npu_graph_t *ng, npu_layer_t *l);
const char *npu_bound_name(int bound);  /* "compute", "DDR", "CPU" */
/* Channel alignment of layer l's stored output (2*C2 for a conv producing a
 * model output), 1 = C2. */
int npu_out_align(const npu_graph_t *ng, const npu_layer_t *l);

/* ---- printers ----------------------------------------------------------- */

enum npu_print_flags {
    NPU_PRINT_PREFIX = 1 << 0,      /* "I RKNN: [HH:MM:SS.mmm] " before every line */
    NPU_PRINT_TASKNUMBER = 1 << 1,  /* add the guide's TaskNumber column (absent in real 2.x logs) */
};
/* Level-4 table in the runtime 2.3 layout, then the totals and the
 * per-OpType ranking table with its Total row. */
void npu_print_perf_table(FILE *f, const npu_graph_t *ng, int flags);

/* ---- SRAM (rk3588) ------------------------------------------------------ */
/* Not implemented yet: the 4 KiB first-fit allocator, per-layer SramHit and the
 * level-3 table. npu_layer_t.sram_hit and npu_graph_t.sram_used stay 0. */

/* ---- NPU load ----------------------------------------------------------- */

/* Busy-time accounting per core over a window, published in the driver's
 * debugfs `load` format (DRV rknpu_debugger.c). */
typedef struct npu_load {
    int cores;
    double busy_us[NPU_MAX_CORES];
    double window_us;
} npu_load_t;

void npu_load_init(npu_load_t *ld, const npu_platform_t *p);
/* Adds one inference's busy time per core (layers split across cores add their share). */
void npu_load_add_run(npu_load_t *ld, const npu_graph_t *ng);
/* Percent per core = min(100, busy / window), integer like the driver. */
void npu_load_percent(const npu_load_t *ld, int pct[NPU_MAX_CORES]);
/* "NPU load:  Core0: 61%, Core1: 50%, Core2: 50%,\n" or "NPU load: 37%\n". */
int npu_load_format(const npu_load_t *ld, char *buf, size_t len);
/* Parses the same text (from a board's debugfs or ours); returns the core count
 * (>= 1) and fills pct, or RT_EFORMAT. */
int npu_load_parse(const char *text, int pct[NPU_MAX_CORES], char *err, size_t errlen);
/* Directory for our simulated nodes: $RKNN_TRACE_SYSFS, else
 * $XDG_RUNTIME_DIR/rknn-trace, else /tmp/rknn-trace-$UID. */
const char *npu_sysfs_dir(char *buf, size_t len);
/* Writes <dir>/rknpu/load (creating directories). */
int npu_load_publish(const npu_load_t *ld, char *err, size_t errlen);

#endif
