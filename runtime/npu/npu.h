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
 *     npu_cost(ng);
 *     npu_print_perf_table(stdout, ng, NPU_PRINT_PREFIX);
 *     npu_graph_free(ng);
 */
#ifndef RT_NPU_H
#define RT_NPU_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "runtime/model/model.h"
#include "runtime/npu/npu_platform.h"

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
    int dtype;                    /* enum npu_dtype the layer computes in (npu_dtype_name,
                                   * npu_dtype_key): the model's; NPU_FP16 for a layer a
                                   * hybrid file keeps in float16; NPU_FP32 for a CPU layer
                                   * computing in float in a quantized model (DataType
                                   * FLOAT); costed with it */
    char datatype[12];            /* DataType column: "INT8", "UINT8", "FLOAT16", "FLOAT" */
    char *reason;                 /* why it runs on the CPU; NULL on the NPU */
    char *dtype_note;             /* why dtype differs from the model's, else NULL: "the hybrid
                                   * file names <tensor>[, fused into this <OpType>]"; the
                                   * level-4 table prints it under the totals */
    /* what the layer covers in the source graph (for mapping back) */
    int *src_nodes, n_src_nodes;  /* ONNX node indices, in order */
    char **src_tensors;           /* output tensor names of the covered nodes */
    int n_src_tensors;
    /* shapes as printed: inputs incl. weights/bias, then outputs; n_in/n_out
     * count all of them even beyond NPU_MAX_IO (only the first are stored) */
    int n_in, n_out;
    npu_shape_t in[NPU_MAX_IO], out[NPU_MAX_IO];
    int in_const[NPU_MAX_IO];     /* input i is a weight/bias/constant */
    int in_align[NPU_MAX_IO];     /* channel padding of input i as its producer stored it, 0 = C2,
                                   * -1 = not padded (a vendor file's native shape says so) */
    int out_align[NPU_MAX_IO];    /* the same for output i: 0 = npu_out_align, -1 not padded,
                                   * > 1 padded to it (set from a vendor file's native shape) */
    int out_tensor;               /* graph tensor index of the first output, -1 if none */
    int out_is_graph_output;      /* that tensor is a model output */
    int deferred;                 /* it runs after a node later in the graph (a conv taking
                                   * an Add after its other operand): its covered nodes are
                                   * not contiguous in graph order */
    /* MAC geometry (conv family) */
    int kh, kw, ic, oc, group;
    int64_t out_pixels;           /* N*OH*OW (or M for matmul) */
    int64_t px_batch;             /* images in out_pixels (N; matmul: leading dims), 0 = 1 */
    /* cost (filled by npu_cost) */
    uint64_t macs;
    uint64_t bytes_in, bytes_w, bytes_out;  /* DDR traffic estimate */
    uint64_t ddr_cycles, npu_cycles, total_cycles;
    double time_us;               /* as the level-4 (perf_debug) table prints it */
    uint64_t lut_elems;           /* output elements through the DPU's per-element stage: a
                                   * lookup-table activation or an elementwise layer */
    int attn_dv;                  /* exSDPAttention: the value dim of its second product
                                   * (P x V), beside ic = d and oc = Lk; 0 = none */
    int64_t softmax_rows;         /* the rows a Softmax reduces (output elements / the
                                   * reduction length: its axis, or the dims from it for
                                   * opset < 13; a vendor file's length: its constant's
                                   * dim 1), an exSDPAttention's query rows (heads x Lq);
                                   * 0 = none or not known */
    double frame_us;              /* this layer's share of a plain run (npu_frame_us), us */
    double mac_usage[NPU_MAX_CORES];  /* % per core */
    double workload[NPU_MAX_CORES];   /* % share per core */
    int task_number;
    double rw_kb;                 /* bytes read (inputs + weights) / 1024, as the vendor prints */
    int bound;                    /* enum npu_bound */
    /* CPU layers: the work npu_cost bills (npu_cpu_work), never a host time:
     * elements read as stored, written, looped over; flops; transcendentals */
    double cpu_elems, cpu_rd, cpu_wr, cpu_flops, cpu_transc;
    uint32_t sram_hit;            /* bytes of the outputs placed in SRAM (npu_mem_plan) */
    uint32_t sram_rd;             /* bytes of the inputs read from SRAM (npu_mem_plan) */
    /* data flow (for the memory plan): value ids of the activation inputs
     * (constants excluded) and of the outputs, all of them. A value id is a
     * graph tensor index, or >= the graph's tensor count for a tensor the
     * lowering invented (GlobalAveragePool cascade); an exDataConvert layer
     * reads and writes the same id (a new version of the tensor). */
    int *in_v, n_in_v;
    int *out_v, n_out_v;
} npu_layer_t;

struct npu_mem_plan;

/* Level-4 row text cache of npu_print_perf_table (internal): a row is
 * formatted again only when a number it shows changed. */
typedef struct npu_row_cache {
    uint64_t key[12];
    char *text;
    size_t len;
    char *ptext;      /* the whole table only: text with the line prefix, */
    size_t plen;      /* patched in place when the timestamp changes */
    char pfx[48];
} npu_row_cache_t;

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
    double log_rw_kb;             /* rows rebuilt from a log: its RW total line, 0 none */
    double log_total_us;          /* and its time Total line (an excerpt's rows add up
                                     to less), 0 none */
    uint32_t sram_used;           /* bytes of SRAM allocated (npu_mem_plan) */
    int n_values;                 /* value ids are 0 .. n_values-1 */
    struct npu_mem_plan *mem;     /* npu_mem_plan(), NULL before */
    int cost_valid;               /* layers costed for the current cores/SRAM plan (internal) */
    npu_row_cache_t *row_cache;   /* n rows + the table (internal; one printer at a time per graph) */
} npu_graph_t;

/* The vendor compiler's graph rewrites (npu_fuse.c, docs/vendor-rewrites.md),
 * applied by npu_lower before placement: view becomes g with a copy of its
 * nodes in which each recognised pattern (written-out LayerNorm/RMSNorm,
 * GELU, SiLU, HardSwish, Mish, Softmax, attention, ReduceMean over H,W) is
 * one node of the fused op ("LayerNormalization", "RMSNormalization",
 * "Gelu", "Swish", "HardSwish", "Mish", "Softmax", "SDPAttention",
 * "GlobalAveragePool") at the pattern's last node (its head), reading the
 * pattern's inputs; the other nodes are marked folded, head_of naming their
 * head. fullname[head]: the vendor's layer name ("exNorm:<ReduceMean>_2ln"),
 * or NULL. view shares g's tensors; free with npu_fuse_free. */
typedef struct npu_fused {
    node_t *nodes;     /* the view's nodes */
    int n;
    int *head_of;      /* per node: the head that absorbed it, -1 */
    char **fullname;   /* per head: vendor full name or NULL */
    int *owned;        /* per node: op/in/attrs allocated here */
    int n_rewrites;
} npu_fused_t;
int npu_fuse(const graph_t *g, const npu_platform_t *p, npu_fused_t *f, graph_t *view);
void npu_fuse_free(npu_fused_t *f);

/* Lowers a prepared graph (passes_prepare done: shapes known; folded nodes are
 * skipped). dtype in ONNX numbering: DT_INT8/DT_UINT8 (quantized model),
 * DT_FLOAT16, or DT_FLOAT (the NPU has no fp32: an unquantized model runs in
 * fp16, as the vendor's converter does); every layer gets it, except an NPU
 * layer covering a node a hybrid file keeps in float16 (node_t.keep_fp16, set
 * by the quantizer for the named node and the conv/bias/activation chain it is
 * fused in): that whole layer is NPU_FP16, with dtype_note saying why; so is
 * an exNorm in a model of another dtype, between two exDataConvert layers.
 * The compiler's graph rewrites (npu_fuse) are applied first.
 * Fails (RT_EUNSUPPORTED, the message naming the chip, the op and its node)
 * on a dtype the chip's NPU lacks (e.g. fp16 on rv1106, also for a hybrid
 * layer), and on an op that neither the chip's NPU (within its limits) nor
 * its runtime's CPU op set has (rv1106/rv1103 have almost no CPU ops): the
 * model cannot run there, so no CPU fallback is pretended. An op missing from
 * our op list altogether still goes to the CPU, with the reason saying so. */
int npu_lower(const graph_t *g, const npu_platform_t *p, int dtype, npu_graph_t **out,
              char *err, size_t errlen);
/* npu_lower, also saying which node made it fail for want of both an NPU and a
 * CPU implementation on the chip: *unrunnable = that node's index, else -1 (a
 * board's runtime refuses such a model in rknn_init: "unsupport cpu OP op"). */
int npu_lower_at(const graph_t *g, const npu_platform_t *p, int dtype, npu_graph_t **out,
                 int *unrunnable, char *err, size_t errlen);
/* The one line for that node, in a board's words (librknnmrt on RV1106: "unsupport
 * cpu Pow op, op name: Pow:Pow_44 in current", rknn_model_zoo issue 312) with the
 * chip named: what rknn_init and `rknn-trace build` print. */
void npu_unrunnable_msg(const graph_t *g, const npu_platform_t *p, int node, char *buf,
                        size_t len);
/* Frees the graph; a memory plan's SRAM goes back to its pool (which must
 * still exist). */
void npu_graph_free(npu_graph_t *ng);
/* Selects cores (RKNN_NPU_CORE_* mask) before npu_cost; default is core 0. */
int npu_set_core_mask(npu_graph_t *ng, unsigned mask, char *err, size_t errlen);

/* Fills the cost fields of every layer and the totals. Deterministic: a
 * layer's cost depends only on the lowering, the chip, the cores and the SRAM
 * plan, never on a host timing, so the same model and settings predict the
 * same frame on every run under any host load. CPU layers are costed from
 * their work (npu_cpu_work) and the chip's CPU (npu_cpu_time_us). Layers are
 * costed on the first call and kept; npu_set_core_mask and npu_mem_plan make
 * the next call cost them again. */
void npu_cost(npu_graph_t *ng);
/* Predicted time of one rknn_run without perf_debug (what rknn_benchmark and
 * the model zoo's FPS measure), after npu_cost: the sum of the layers'
 * frame_us (the platform's frame model for NPU layers, CPU layers as costed).
 * Fitted on and checked against the model zoo's board table
 * (bench/npu_models.sh, with leave-one-model-out errors). */
double npu_frame_us(const npu_graph_t *ng);
/* The row cost of an NPU Softmax or exSDPAttention layer on p
 * (npu_platform_t.softmax_row_cycles times softmax_rows), in NPU cycles; 0
 * for other layers.
 * npu_cost adds it to the layer's level-4 time and its frame time. */
double npu_softmax_cycles(const npu_platform_t *p, const npu_layer_t *l);
/* One NPU layer's frame-model cycles on p, before the core share and the
 * per-layer cost: max(npu, ddr) + f_overlap * min(npu, ddr) + lut_elems *
 * f_lut with ddr = ddr_cycles * f_ddr (npu_platform.h). */
double npu_frame_cycles(const npu_platform_t *p, double npu, double ddr_cycles, double lut_elems);
/* 1 when the layer's activation goes through the NPU's lookup table
 * (Sigmoid, SiLU as ExSwish, Tanh, Elu, Softplus, Mish, Gelu, HardSwish). */
int npu_layer_uses_lut(const npu_layer_t *l);
/* The op list's Transpose limits (npu_transpose.c) for perm of a 4-D input
 * of dims x on p (not RK356X, whose rules differ), int8 or 16-bit data: NULL
 * when it runs on the NPU, else the first condition it fails, as the list
 * writes it ("h1 * w1 % 8 == 0"; a stands for 16 in int8, 8 in 16-bit). */
const char *npu_transpose_limit(const npu_platform_t *p, const int perm[4], const int64_t x[4],
                                int int8);

/* CPU-fallback cost. A CPU layer's time on chip p is
 *     (fixed + rd * ns_rd + elems * ns_elem + flops * ns_flop
 *      + transc * ns_transc) / npu_cpu_speed(p)
 * with fixed = input_us (InputOperator), output_us (OutputOperator) or op_us
 * (any other CPU op: the NPU/CPU hand-over), rd the elements read as the
 * producer stored them (NC1HWC2, channels padded, for 4-D int8/fp16 data: the
 * layout conversion), elems the output elements (the op's loop; none for an
 * OutputOperator, whose move is its read), flops and transcendental calls
 * from the op. The real rows price a moved element alike in int8 and fp16, so
 * data is counted in elements, not bytes; writes (l->cpu_wr) are reported but
 * not priced apart (see npu_cpu.c).
 * The constants are rk3588 (Cortex-A76) figures, FIT on the CPU rows of the
 * real tables by tests/tools/npu_cpu_cost (bench/cpu_cost.sh prints the fit
 * and its left-out errors); other chips scale by their CPU's clock and work
 * per clock (platform table). */
typedef struct npu_cpu_consts {
    double input_us, output_us, op_us;
    double ns_rd, ns_elem, ns_flop, ns_transc;
} npu_cpu_consts_t;
extern const npu_cpu_consts_t npu_cpu_fit;
/* Fills l->cpu_elems/rd/wr/flops/transc (zero on an NPU layer). */
void npu_cpu_work(const npu_graph_t *ng, npu_layer_t *l);
/* Time of a CPU layer whose work npu_cpu_work filled, with constants k. */
double npu_cpu_time_us(const npu_platform_t *p, const npu_layer_t *l, const npu_cpu_consts_t *k);
/* Cost of one layer (exported for tests and the fidelity tool). */
void npu_cost_layer(const npu_graph_t *ng, npu_layer_t *l);
const char *npu_bound_name(int bound);  /* "compute", "DDR", "CPU" */
/* Channel alignment of layer l's stored output (2*C2 for a conv producing a
 * model output), 1 = C2. */
int npu_out_align(const npu_graph_t *ng, const npu_layer_t *l);
/* Bytes of an activation of layer l's dtype as the NPU stores it: padded > 1
 * aligns channels (dim 1 of a 4-D shape) to that, 1 to C2, 0 none. */
uint64_t npu_act_bytes(const npu_graph_t *ng, const npu_layer_t *l, const npu_shape_t *s,
                       int padded);
/* Weight + bias bytes a conv-family layer reads (0 for other layers). */
uint64_t npu_weight_bytes(const npu_graph_t *ng, const npu_layer_t *l);

/* ---- printers ----------------------------------------------------------- */

enum npu_print_flags {
    NPU_PRINT_PREFIX = 1 << 0,      /* "I RKNN: [HH:MM:SS.mmm] " before every line */
    NPU_PRINT_TASKNUMBER = 1 << 1,  /* add the guide's TaskNumber column (absent in real 2.x logs) */
    NPU_PRINT_DEBUG = 1 << 2,       /* with NPU_PRINT_PREFIX: "D RKNN:" (level-3 lines) */
};
/* Level-4 table in the runtime 2.3 layout, then the totals and the
 * per-OpType ranking table with its Total row. */
void npu_print_perf_table(FILE *f, const npu_graph_t *ng, int flags);

/* ---- SRAM (rk3588) and the internal-memory plan ------------------------ */

/* The driver's SRAM manager (npu-hw.md §3.5, log-formats.md §7 `mm`): one bit
 * per 4 KiB page of the NPU-assigned SRAM, first fit of a contiguous run. The
 * vendor runtime asks it for as much of the Internal buffer as it can get;
 * what is left stays free for other contexts (RKNN_FLAG_SHARE_SRAM is not
 * implemented by the vendor either). Not locked: callers sharing one pool
 * between threads serialize. */
#define NPU_SRAM_PAGE 4096u
#define NPU_SRAM_MAX_PAGES 1024

typedef struct npu_sram_pool {
    const npu_platform_t *plat;
    uint32_t size;                       /* bytes (platform sram_bytes) */
    int npages;
    uint32_t bits[NPU_SRAM_MAX_PAGES / 32];  /* bit i of word w: page 32*w+i used */
} npu_sram_pool_t;

/* Empty pool over the chip's SRAM; RT_EUNSUPPORTED with a message naming the
 * chips that have one when p has none (the caller decides: refuse
 * RKNN_FLAG_ENABLE_SRAM, or warn and run from DDR as without the flag). */
int npu_sram_pool_init(npu_sram_pool_t *sp, const npu_platform_t *p, char *err, size_t errlen);
/* First fit of ceil(bytes / 4 KiB) contiguous pages; fills *offset (bytes
 * from the SRAM start). RT_ENOMEM when no free run is long enough, RT_EINVAL
 * for 0 bytes. */
int npu_sram_pool_alloc(npu_sram_pool_t *sp, uint32_t bytes, uint32_t *offset);
void npu_sram_pool_free(npu_sram_pool_t *sp, uint32_t offset, uint32_t bytes);
uint32_t npu_sram_pool_free_bytes(const npu_sram_pool_t *sp);
uint32_t npu_sram_pool_largest_free(const npu_sram_pool_t *sp);  /* longest free run, bytes */
/* The debugfs `mm` node text: bitmap rows of 32 pages and the totals line. */
int npu_sram_pool_format(const npu_sram_pool_t *sp, char *buf, size_t len);
/* Writes it to <npu_sysfs_dir()>/rknpu/mm (next to `load`). */
int npu_sram_pool_publish(const npu_sram_pool_t *sp, char *err, size_t errlen);
/* RKNN_INTERNAL_MEM_TYPE as the vendor reads it: "sram" (as much as free)
 * -> 1 with *bytes = 0, "sram#256" (KiB) -> 1 with *bytes = 262144, NULL/""/
 * "ddr" -> 0; anything else RT_EINVAL. */
int npu_sram_parse_mem_type(const char *s, uint32_t *bytes, char *err, size_t errlen);

/* One tensor of the memory plan (a row of the level-3 table). */
typedef struct npu_mem_tensor {
    char *name;                  /* source tensor name */
    char user[40];               /* OpType of the first layer reading it */
    char datatype[12];
    npu_shape_t shape, native;   /* original, and as stored (NC1HWC2 for 4-D NPU data) */
    int value;                   /* value id */
    int producer;                /* layer index */
    int last_use;                /* layer index of the last reader (= producer if none) */
    int n_reads;                 /* layers reading it */
    int internal;                /* in the Internal buffer; 0: model input/output */
    uint64_t bytes;              /* stored size */
    uint64_t offset;             /* in the Internal buffer (4 KiB aligned) */
    uint64_t addr;               /* IOVA of its first byte */
    uint64_t hit;                /* bytes inside the SRAM part (SramHit) */
} npu_mem_tensor_t;

typedef struct npu_mem_plan {
    npu_mem_tensor_t *t;
    int n;
    uint64_t weight_size;        /* Total Weight Memory Size */
    uint64_t internal_size;      /* Total Internal Memory Size: highest tensor end */
    uint64_t iova_weight, iova_internal;
    uint32_t sram_size;          /* bytes of the Internal buffer backed by SRAM, 0 none */
    uint32_t sram_offset;        /* their place in the pool */
    npu_sram_pool_t *pool;       /* where they came from (NULL: no SRAM) */
    uint32_t nbuf_size;          /* bytes of the Internal buffer backed by the chip's nbuf
                                  * (platform nbuf_bytes), 0 none; counted as hits too */
    /* Predict ... RW Amount: every internal byte written once and read by each
     * reader, model inputs read, outputs written; weights read once. */
    uint64_t rw_internal, rw_weight, rw_sram_hit;
} npu_mem_plan_t;

/* Plans the Internal buffer of a lowered graph (g: the graph it was lowered
 * from): every tensor passed between layers, except model inputs and outputs,
 * gets a 4 KiB-aligned block, first fit over a page bitmap, in layer order; a
 * block is taken before its producer runs and given back after its last
 * reader ran (a layer's inputs and outputs coexist). With a pool, the first
 * min(want or all, largest free run) bytes of the buffer are SRAM, as the
 * driver maps an SRAM-backed object ([SRAM part][DDR part], npu-hw.md §3.5);
 * a tensor's SramHit is its overlap with that part, which its producer does
 * not write to DDR and its readers do not read from DDR (npu_cost uses
 * sram_hit/sram_rd). Without a pool, on a chip with an nbuf (rk3576, rk3562)
 * the first nbuf_bytes of the buffer are the nbuf, hits alike: the driver maps
 * an RKNPU_MEM_TRY_ALLOC_NBUF object as [NBUF part][DDR part] the same way.
 * want = 0: as much as the buffer needs. Replaces a
 * previous plan. RT_EUNSUPPORTED when pool is given on a chip without SRAM or
 * for another chip. Call before npu_cost. */
int npu_mem_plan(npu_graph_t *ng, const graph_t *g, npu_sram_pool_t *pool, uint32_t want,
                 char *err, size_t errlen);
/* Gives the plan's SRAM back to its pool (rknn_destroy); the plan stays for printing. */
void npu_mem_release(npu_graph_t *ng);
/* Releases the SRAM and frees the plan (npu_graph_free calls it). */
void npu_mem_plan_drop(npu_graph_t *ng);
/* Numbers for RKNN_QUERY_MEM_SIZE (rknn_mem_size): weight and internal sizes
 * of the plan (0 without one); total_sram_size = the SRAM the driver has for
 * the NPU, free_sram_size = what is left of it: from pool, else from the
 * plan's pool, else the whole chip SRAM as free (0/0 on chips without). */
typedef struct npu_mem_sizes {
    uint64_t total_weight_size, total_internal_size;
    uint32_t total_sram_size, free_sram_size;
} npu_mem_sizes_t;
void npu_mem_query(const npu_graph_t *ng, const npu_sram_pool_t *pool, npu_mem_sizes_t *out);
/* One pool per chip for the whole process (the driver's SRAM is one per
 * board), created empty on first use; NULL for a chip without SRAM. Callers
 * serialize plans and releases on it. */
npu_sram_pool_t *npu_sram_pool_process(const npu_platform_t *p);
/* The level-3 table (RKNN_LOG_LEVEL=3) in the runtime 1.4-1.5 layout of the
 * only real sample (log-formats.md §4): the "Total allocated Internal SRAM"
 * box (when SRAM was given), the tensor table with [Start End) Size and
 * SramHit, then the totals and the three "Predict ... RW Amount" lines.
 * Nothing without a plan. */
void npu_print_sram_table(FILE *f, const npu_graph_t *ng, int flags);

/* ---- level-5 dumps ----------------------------------------------------- */

/* The vendor's RKNN_LOG_LEVEL=5 file name (log-formats.md §5, format
 * "%03d_%s_%s_shape" + "_"-joined dims, rtlog-level5-* samples):
 *     NNN_<OpType>_<tensor>_shape_<d0>_<d1>..._<dtype>.npy
 * index: 0-based op id, i.e. the perf table's ID - 1 (npu_layer_t.id - 1);
 * optype: the layer's OpType; tensor: the tensor's name (its output, or an
 * input the vendor also dumps under the same index); dims: the original NCHW
 * shape; dtype: npu_dump_dtype(). Characters that cannot be in a file name
 * ('/', and ':' '\\' '*' '?' '"' '<' '>' '|', control bytes) become '_' (no
 * such name was observed: our choice). Returns 0, or RT_EINVAL when the name
 * does not fit (buf then holds a truncated name). */
int npu_dump_name(char *buf, size_t len, int index, const char *optype, const char *tensor,
                  const npu_shape_t *shape, const char *dtype);
/* dtype token of a dump: "float" (float32), "uint8" (both seen), and by the
 * same C-type naming (inferred) "int8", "float16", "int16", "int32", "int64",
 * "bool"; NULL for others. dtype in ONNX numbering. */
const char *npu_dump_dtype(int onnx_dtype);

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
/* Writes <dir>/rknpu/load (creating missing directories 0700) through a fresh
 * O_EXCL name renamed into place. RT_EIO, writing nothing, when a folder we add
 * (rknn-trace*, rknpu) or any folder in a directory others can write (/tmp) is a
 * symbolic link, belongs to another user or is writable by group/others. */
int npu_load_publish(const npu_load_t *ld, char *err, size_t errlen);
/* The publisher, written beside `load` as <dir>/rknpu/owner = "PID START" (START:
 * the process's start time, so that a reused pid is not taken for it). 1 when
 * that process still runs, 0 when it has exited (its load has expired: the
 * simulated NPU is idle, as a board's driver reads after the last job), -1 for
 * text that is not an owner line. */
int npu_load_owner_alive(const char *owner);

/* ---- a session: one prepared graph on the simulated NPU ----------------- */

/* The one orchestration of a graph on the simulated NPU, shared by `rknn-trace
 * run` and librknnrt's contexts (rknn_init, rknn_run): lowered for the chip,
 * its cores selected, its memory planned (internal tensors in the process's
 * SRAM pool when asked), costed; then its runs' busy time published as the
 * driver's NPU load. The process's SRAM pool and load window are shared by
 * every session; one lock in npu_session.c guards both. */
typedef struct npu_session_opts {
    const npu_platform_t *plat;
    int dtype;              /* DT_INT8, DT_FLOAT16, or DT_FLOAT (runs as fp16) */
    unsigned core_mask;     /* RKNN_NPU_CORE_*, 0 = auto */
    int sram;               /* internal tensors in npu_sram_pool_process(plat) */
    uint32_t sram_want;     /* bytes of it, 0 = as much as is free */
    int context;            /* a librknnrt context: a core mask the chip lacks runs as
                             * auto, an SRAM plan that fails is made in DDR, a plan that
                             * still fails leaves none (plan_rc), and the pool's map is
                             * published for debugfs `mm` */
} npu_session_opts;

typedef struct npu_session {
    npu_graph_t *ng;        /* lowered, cores set, memory planned, costed */
    npu_session_opts o;
    int plan_rc;            /* context: the memory plan's status (not 0: no plan) */
    npu_mem_sizes_t mem;    /* right after the plan: the pool's SRAM then */
} npu_session_t;

/* ---- a vendor .rknn (npu_rknn.c) ---- */
struct rknn_model;
/* The compiled graph of a vendor file as NPU layers, one per compiled node (not yet
 * costed), and a graph_t holding its tensors' names and shapes (for the memory
 * plan; it must outlive the layers' session). 0, or RT_EUNSUPPORTED/RT_EFORMAT with
 * err naming the node (a dtype the chip lacks, shapes that are no convolution). */
int npu_graph_of_rknn(const struct rknn_model *m, const npu_platform_t *p, npu_graph_t **out,
                      graph_t **gout, char *err, size_t errlen);

/* Opens a session on a prepared graph (which must outlive it). 0 and *out, or
 * the failing step's status with err: lowering (*unrunnable, when not NULL,
 * names the node neither the chip's NPU nor its CPU runs, also when the chip
 * lacks the dtype that would have shown it; else -1), and without `context`
 * the core mask and the memory plan. With `context`, a failed plan leaves
 * plan_rc and its reason in err, and the session opens. */
int npu_session_open(const graph_t *g, const npu_session_opts *o, npu_session_t **out,
                     int *unrunnable, char *err, size_t errlen);
/* The same for a graph already lowered (a vendor file's, npu_graph_of_rknn): ng is
 * the session's from the call on, freed with it or on a failure; g must outlive it. */
int npu_session_adopt(npu_graph_t *ng, const graph_t *g, const npu_session_opts *o,
                      npu_session_t **out, char *err, size_t errlen);
/* Frees the session; its SRAM goes back to the pool (published with `context`). */
void npu_session_close(npu_session_t *s);
/* RKNN_QUERY_MEM_SIZE's numbers of ng (may be NULL) with the pool of p as it is now. */
void npu_session_mem_sizes(const npu_platform_t *p, const npu_graph_t *ng,
                           npu_mem_sizes_t *out);
/* `rknn-trace run`: frames run back to back, the window being their predicted
 * time; *ld is filled and published. Status of the publication. */
int npu_session_load_frames(const npu_session_t *s, long long frames, npu_load_t *ld,
                            char *err, size_t errlen);
/* rknn_run: the run's predicted busy time per core into the process's 1 s load
 * window, published at most every 100 ms. perf_debug: layer by layer (each
 * layer paying its submission), else the frame model's time (npu_frame_us).
 * Returns the publication's failure the first time only (one warning). */
int npu_session_account_run(npu_session_t *s, int perf_debug, char *err, size_t errlen);
/* Publishes the window now if runs were added since the last write (rknn_destroy);
 * the same status as npu_session_account_run. */
int npu_session_load_flush(char *err, size_t errlen);

#endif
