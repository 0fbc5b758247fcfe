/* runtime/emu/emu.h — the compiled NPU tasks of a vendor `.rknn`, decoded
 * (emu_decode, emu_program) and executed where understood (emu_exec).
 *
 * Contract:
 *  - A task is a list of register writes, 64-bit entries as the file stores
 *    them. emu_program_load() finds every task of a parsed model (the RV110x
 *    task table and its register commands; the Toolkit2 `regcmd` and `task`
 *    blobs; the per-task blobs of model-version-1 files) and copies its
 *    writes; it checks every offset and count against the file and fails with
 *    RT_EFORMAT and one message, never reads outside the buffer.
 *  - emu_decode() turns one task's writes into an emu_task: operation,
 *    geometry, addresses, precisions, the output-processing chain. It never
 *    fails and never guesses: a register the chip's map does not name, or a
 *    field value without a known meaning, goes into t->unknown (address and
 *    value) and t->notes; a field the task does not write stays -1 (absent,
 *    not zero). A chip whose register layout is not verified (EMU_MAP_NONE:
 *    those without a sample file) gets op EMU_OP_UNDECODED, its writes in
 *    t->unknown; rk3562 (EMU_MAP_T4), rk3576 (EMU_MAP_F2) and rv1126b
 *    (EMU_MAP_F3) are decoded from tables (emu_layout.c).
 *  - Register map: the RK3588 layout of the public register descriptions
 *    (Mesa's rocket driver `registers.xml`, mtx512/rk3588-npu `npu_hw.h`,
 *    the RK3588 TRM names), which the rk3588 files follow; rv1103/rv1106
 *    differ in one field, rk3566/rk3568 in the CORE block (checked on the
 *    sample files: docs/rknn-format.md "Compiled NPU tasks").
 *  - Addresses are the NPU addresses the file holds: Toolkit2 files keep
 *    offsets into buffers whose addresses the runtime adds at load time (0 at
 *    a buffer's start; which buffer, the model-6 file's address patches say:
 *    rknn_reloc, emu_stream.entry0); RV110x files hold offsets from their register commands,
 *    which the weights follow (emu_program.file_base), above that the
 *    runtime's internal buffer.
 *  - Per-channel words of a conv (DPU BS operands, at bs_addr or in the
 *    node's bias tensor): per group of emu_channel_group() output channels,
 *    G int32 bias (zero-point terms folded in), G int16 minus the weight zero
 *    point, G int16 multipliers s_w / max(s_w) in Q14; the DPU output
 *    converter holds s_in * max(s_w) / s_out and the output zero point.
 *  - No global state; all functions are thread-safe on distinct objects.
 */
#ifndef RT_EMU_H
#define RT_EMU_H

#include <stddef.h>
#include <stdint.h>

struct rknn_model;

/* Register layouts. */
enum emu_map {
    EMU_MAP_NONE = 0,   /* not verified: raw writes only */
    EMU_MAP_RK3588,     /* rk3588 */
    EMU_MAP_RK356X,     /* rk3566, rk3568: CORE registers one word lower */
    EMU_MAP_RV110X,     /* rv1103, rv1106: rk3588's, CNA pad left at bits 8..11 */
    EMU_MAP_T4,         /* rk3562 ("RKNPU t4"): own CNA/CORE/DPU layout (emu_layout.c) */
    EMU_MAP_F2,         /* rk3576 ("RKNPU f2"): t4's DPU, N-1 CNA sizes (emu_layout.c) */
    EMU_MAP_F3,         /* rv1126b ("RKNPU f3"): f2's offsets, an 8-bit pixel input mode */
    EMU_MAP_COUNT
};

/* Blocks, as the entries' target field names them (bits 8..15 of the u16;
 * bit 0 is set on every write). */
enum emu_block {
    EMU_BLK_PC = 0x01, EMU_BLK_CNA = 0x02, EMU_BLK_DDMA = 0x04, EMU_BLK_CORE = 0x08,
    EMU_BLK_DPU = 0x10, EMU_BLK_DPU_RDMA = 0x20, EMU_BLK_PPU = 0x40, EMU_BLK_PPU_RDMA = 0x80,
};

typedef struct emu_reg {
    uint16_t target;   /* 0x0201 CNA, 0x0801 CORE, 0x1001 DPU ... (0 in model-v1 blobs) */
    uint16_t addr;     /* register address, 0x1000 CNA, 0x3000 CORE, 0x4000 DPU, ... */
    uint32_t value;
} emu_reg;

/* 64-bit entry formats. */
enum emu_fmt {
    EMU_FMT_TVR = 0,   /* bits 48..63 target, 16..47 value, 0..15 address (RV110x, model v6) */
    EMU_FMT_VR,        /* bits 32..63 value, 16..31 address, 0..15 zero (model v1 blobs) */
};

/* Decodes n 8-byte little-endian entries of p. */
void emu_regs_parse(const uint8_t *p, size_t n, int fmt, emu_reg *out);

/* Map lookups: name "CNA_CONV_CON1", NULL when the map does not name it. */
const char *emu_reg_name(int map, uint16_t addr);
const char *emu_block_name(uint16_t addr);   /* by address range: "CNA", "DPU", ... */
int emu_map_for_target(const char *target);  /* "rk3588" -> EMU_MAP_RK3588 */
const char *emu_map_name(int map);

enum emu_op {
    EMU_OP_UNDECODED = 0,  /* layout not verified for this chip */
    EMU_OP_UNKNOWN,        /* map known, combination of blocks/modes not understood */
    EMU_OP_CONV,
    EMU_OP_DEPTHWISE,
    EMU_OP_POOL,           /* PPU */
    EMU_OP_ELTWISE,        /* DPU only: element-wise / conversion / copy */
    EMU_OP_MATMUL,         /* reserved: matmul tasks are not told apart from convs yet */
};
const char *emu_op_name(int op);

enum emu_prec { EMU_PREC_NONE = -1 };  /* 0 int8, 1 int16, 2 fp16, 4 int32, 5 fp32 */
const char *emu_prec_name(int prec);   /* "int8" ... "prec3" for codes without a name */

/* One DPU stage of the output chain (BS, BN): an ALU (add) then a multiplier
 * with shift, then ReLU/ReLUX. src 1 = per-channel operand read from memory
 * (the DPU_RDMA's BS/BN base address), 0 = the register operand. */
typedef struct emu_dpu_stage {
    int present;
    int bypass, alu_bypass, alu_algo, alu_src, mul_bypass, mul_src, mul_prelu;
    int relu_bypass, relux_en;
    int32_t alu_operand;
    int mul_operand, mul_shift, truncate_src;
    uint32_t relux_cmp;
} emu_dpu_stage;

#define EMU_MAX_UNKNOWN 48

typedef struct emu_task {
    int map;               /* enum emu_map used */
    int op;                /* enum emu_op */
    int blocks;            /* EMU_BLK_* written */
    int n_regs;
    /* CNA: input feature, kernel, weights */
    int conv_mode, in_w, in_h, in_c, in_c_real, kw, kh, kernels;
    int stride_x, stride_y, dil_x, dil_y, pad_top, pad_left;
    /* bottom/right: what the output size needs beyond the input and the
     * top/left pad (negative: input rows/columns the output does not use);
     * has_pad_bottom/right say whether they could be computed */
    int pad_bottom, pad_right, has_pad_bottom, has_pad_right;
    int in_prec, proc_prec;
    int64_t feature_addr, weight_addr;          /* -1 absent */
    int64_t line_stride, surf_stride, weight_bytes, weight_bytes_per_kernel;
    int32_t pad_value;
    int has_pad_value;
    /* layout f3's pixel input (CNA mode code 6): the feature read as 8-bit
     * pixels, pixel_off[c] (a byte of CNA 0x1084) subtracted from channel c */
    int pixel_in, pixel_off[4];
    int cvt_bypass;                             /* input converter (CNA_CVT_CON0) */
    int cvt_scale[4], cvt_offset[4];
    /* CORE: output of the MAC array */
    int core_w, core_h, core_c;
    int clip_truncate;
    /* DPU: output cube and the chain */
    int out_w, out_h, out_c, out_c_orig, out_prec, dpu_in_prec;
    int64_t dst_addr, dst_surf_stride;
    int64_t surface_add;                        /* f2: 2 x the surface stride less the
                                                   task's output plane, -1 absent */
    int dpu_conv_mode, dpu_output_mode, dpu_flying;
    emu_dpu_stage bs, bn;
    int ew_present, ew_bypass, ew_op_type, ew_lut_bypass, ew_alu_algo, ew_op_src, ew_binary;
    int64_t ew_cvt_offset, ew_cvt_scale;        /* EW operand converter: offset (INT64_MIN
                                                   absent), scale word (-1 absent) */
    int64_t out_cvt_offset;                     /* the output zero point, signed */
    int out_cvt_scale, out_cvt_shift;
    int lut_used;
    /* DPU_RDMA: where per-channel operands and the second input live */
    int64_t bs_addr, bn_addr, ew_addr, rdma_src_addr;
    int brdma_use, nrdma_use, erdma_disable, mrdma_disable;
    /* PPU: pooling */
    int pool_method, pool_kw, pool_kh, pool_sx, pool_sy;
    int pool_pad[4];                            /* top, bottom, left, right */
    int pool_in_w, pool_in_h, pool_in_c, pool_out_w, pool_out_h, pool_out_c;
    int64_t pool_src_addr, pool_dst_addr;
    /* what it could not decode */
    int n_unknown;                              /* may exceed EMU_MAX_UNKNOWN */
    uint16_t unknown_addr[EMU_MAX_UNKNOWN];
    uint32_t unknown_val[EMU_MAX_UNKNOWN];
    char notes[256];                            /* "; "-separated, "" none */
} emu_task;

/* Decodes one task's writes with map (enum emu_map). Never fails. */
void emu_decode(int map, const emu_reg *regs, int n, emu_task *t);

/* ---- table-driven layouts outside the rk3588 family (emu_layout.c) ----
 * emu_layout_decode() fills t's fields from the layout's field table, reading
 * registers through get (1 when ctx holds addr, its value in *v). */
typedef int (*emu_reg_get)(const void *ctx, uint16_t addr, uint32_t *v);
int emu_layout_known(int map);
const char *emu_layout_reg_name(int map, uint16_t addr);
void emu_layout_decode(int map, emu_reg_get get, const void *ctx, emu_task *t);
/* 1 when the run may go on with addr = value: a decoded field, a register
 * left aside, or a word with one of the values the sample files write (in
 * a float16 task or a DPU-only one of FEATURE_MODE 5, form: that form's words first) */
enum { EMU_WORDS_INT8, EMU_WORDS_FP16, EMU_WORDS_DPU };
int emu_layout_check(int map, uint16_t addr, uint32_t value, int form);

/* ---- the tasks of a model ----------------------------------------------- */

typedef struct emu_stream {
    int node;              /* graph node index (the task record's op_idx), -1 unknown */
    int lut;               /* model 1: the LUT table tensor its node's task list names, -1 none */
    uint32_t enable_mask, int_mask;
    int64_t file_off;      /* its first entry in the file */
    int64_t entry0;        /* model 6: its first entry's index in the regcmd blob (what
                              the file's address patches name, rknn_reloc), -1 none */
    int n_regs;
    emu_reg *regs;
} emu_stream;

enum emu_src {
    EMU_SRC_NONE = 0,      /* no register writes in this file */
    EMU_SRC_LITE,          /* RV110x task table + register commands */
    EMU_SRC_FB_TASKS,      /* Toolkit2 model v6: `task` table + `regcmd` blob */
    EMU_SRC_FB_BLOBS,      /* model v1: one blob per task, its node from the nodes' task lists */
};

typedef struct emu_program {
    int map;
    int64_t file_base;     /* RV110x: file offset of NPU address 0, -1 none */
    int64_t file_limit;    /* addresses below it are in the file */
    int source;            /* enum emu_src */
    int fmt;               /* enum emu_fmt */
    emu_stream *tasks;
    int n_tasks;
    int n_file_tasks;      /* the file's task table: more than n_tasks when only its
                              one-core tiling is kept (emu_program_one_core) */
    int64_t n_regs;
} emu_program;

/* Keeps only the tasks of the file's one-core tiling, what the board runs under
 * the default core mask (RKNN_NPU_CORE_AUTO: one core), where the file has
 * tilings for several core counts (graph slot 10: rk3588 and rk3576); the
 * others recompute the same outputs, split across cores. Returns the tasks
 * dropped. RKNN_TRACE_EMU_TILINGS=all keeps every tiling, run one after the
 * other in file order (each recomputes whole outputs from the one-core
 * tiling's: a check of their tiles' decoding). */
int emu_program_one_core(emu_program *p, const struct rknn_model *m);
/* The end of p's one-core tiling: the first tiling start past 0 (graph slot 10) of
 * a task table, p->n_tasks when there is none or the tasks come otherwise. */
int emu_one_core_end(const emu_program *p, const struct rknn_model *m);

/* Finds the tasks of m, whose whole file is file[0..len). */
/* Decodes every task of p into out[p->n_tasks]: a task starts from the
 * registers earlier tasks of its ping-pong register group left (tasks i-2,
 * i-4, ...), so that a later tile writing only what changes decodes whole.
 * Unknown registers and n_regs count its own writes only. */
int emu_program_decode(const emu_program *p, emu_task *out);
int emu_program_load(const struct rknn_model *m, const uint8_t *file, size_t len, emu_program *out,
                     char *err, size_t errlen);
void emu_program_free(emu_program *p);
const char *emu_source_name(int source);

/* Output channels per group of per-channel words: 8 (rk3588, rk3576,
 * rv1126b), 4 (rk3566, rk3568, rk3562, rv1103, rv1106), 0 unknown. */
int emu_channel_group(const char *target);

/* Chips and what is decoded for them, for `rknn-trace info`. */
typedef struct emu_chip_info {
    const char *chips;
    const char *status;
} emu_chip_info;
const emu_chip_info *emu_chip_table(int *n);

/* ---- execution (runtime/emu/emu_exec.c; its task runners in emu_conv.c,
 * emu_dpu.c and emu_pool.c) ---------------------------------------------
 * emu_exec() runs the tasks of a Toolkit2 file (rk3588, rk3566/rk3568 maps)
 * in the file's order in the NPU's integer arithmetic, over one buffer per
 * graph tensor in its native layout. A task's addresses are bound to its
 * node's tensors (feature: the first input, weights and per-channel words:
 * the node's constants, destination: its output; the element-wise operand:
 * the node's other activation at the output's position). Conv per output:
 *   acc = bias32 + sum x * (w + negzp)        exact int32 (int64 checked)
 *   v = round(acc * mul / 2^14)               BS per-channel multiplier
 *   v = max(v, 0)                             BN ReLU alone (ConvRelu, rk3588: BN_CFG 0x12)
 *   v += round((e + EW_CVT_OFFSET) * s / 2^t) EW (ConvAdd): scale bits 0..15, shift 16..21
 *   y = sat8(round(v * OUT_CVT_SCALE / 2^OUT_CVT_SHIFT) + OUT_CVT_OFFSET)
 * Rounding: half up (add 2^(n-1), arithmetic shift): reproduces the source
 * model on the sample files; not compared bit for bit with a board.
 * rk3576 (f2, f3): BS's shift from its configuration buffer, then a clamp, BN's PReLU or BN
 *   into the LUT (the tables an earlier DPU-only task uploads, BN's operands in the buffer
 *   the file's address patches put at 0x5030): emu_act.c, docs/rknn-format.md
 *   "Activations on f2".
 * A LUT activation (model-1 files, yolov8n's one configuration): x =
 *   round(v * BN_MUL / 2^BN_SHIFT), y = the LE/LO table at x, linear between
 *   entries, the slopes beyond them, then OUT_CVT on y (the tables from the
 *   stream's LUT tensor, docs/rknn-format.md).
 * A Split's or Concat's DPU-only task copies one channel slice, requantized (BS
 *   ALU add, OUT_CVT), the source (Split) or destination (Concat) offset picking
 *   the slice; an Add's adds its two inputs (BS multiplier, EW converter).
 * A MaxPool's PPU task takes the window maximum (same quantization in and out);
 * rk3576's AveragePool's the window's sum of bytes times the Q16 reciprocals of
 * the cells it counts per axis, rounded half to even (docs/rknn-format.md
 * "Average pooling on f2");
 * a Resize's DPU-only task repeats one C2 surface 2 x 2 (nearest), bytes unchanged.
 * Weights: blocks [OC1, IC1, kh, kw, OC2, IC2] of input channels, interleaved per
 * OC1, the kernels possibly in blocks of other OC2 one after the other; a task may
 * compute a tile of the output channels.
 * A float16 conv (emu_conv16.c; precisions fp16, every DPU stage bypassed): y =
 * fp16(sum x * w), float16 products summed in float32.
 * CPU layers other than Input/OutputOperator run in graph order, over float NCHW
 * copies of their tensors: custom ops through the caller's emu_cpu_hook, the
 * built-in types (below) here.
 * Anything else (depthwise, other BN stages, other LUT forms, other pools that are not
 * one-pixel in-place copies, model-1 tasks no node's task list names) stops the
 * run; RV110x files run in emu_lite.c (docs/rknn-format.md "Execution on
 * RV110x"): RT_EUNSUPPORTED and a message naming the task,
 * its node and what was not understood (with dump_dir: DIR/stopped_task.json and
 * the tensors computed before it). Input/OutputOperator run on the CPU
 * (mean/std, quantization from the file; the NPU tasks of an NPU-placed
 * OutputOperator, which only reformat, are skipped and counted). */
typedef struct emu_result {
    int n_out;
    char **out_names;        /* the file's output names */
    float **out;             /* NCHW, dequantized */
    int64_t (*out_dims)[4];
    int tasks_run, tasks_copy, tasks_output_op;
    int tasks_lut;           /* DPU-only tasks that upload the LUT (their tables kept) */
    int tasks_float;         /* tasks of nodes computed from their meaning in float64
                                instead (RKNN_TRACE_EMU_ATTN=float: exSDPAttention) */
    int tasks_tiling, tasks_file; /* the tasks run (the one-core tiling) of the file's */
} emu_result;

/* A layer the file places on the CPU (other than Input/OutputOperator: a custom op
 * such as the SDK demo's cstDualResidual, or a type not built in) is computed by the
 * caller's hook, in graph order between the NPU tasks: in[k] the node's k-th input
 * as float NCHW (its shape's elements, dequantized), out[k] the k-th output to fill
 * (its shape's elements, zeroed). 0, or an RT_E* code with a message in err. Without a hook
 * such a layer stops the run, naming it (the built-in types below need none). */
typedef struct emu_cpu_hook {
    int (*run)(struct emu_cpu_hook *h, const struct rknn_model *m, int node,
               const float *const *in, float *const *out, char *err, size_t errlen);
    /* 1 when the layer reads its input k; NULL: every input. An input it does not
     * read (a Reshape's shape constant, an "X_exSecondary" copy) is NULL in in[]. */
    int (*reads)(struct emu_cpu_hook *h, const struct rknn_model *m, int node, int k);
} emu_cpu_hook;

/* ---- CPU layers built in (emu_cpu.c) -------------------------------------
 * The op types vendor files place on the board's CPU (shared/research/
 * rknn-oplist.md §3), computed on the float NCHW values of the hook's contract:
 *   Reshape, Flatten, Squeeze, Unsqueeze  the values unchanged, in order
 *   ArgMax, ArgMin   over the node's axis (Concat/Split/ArgMax params slot 0), the
 *                    first index of the extreme; keepdims from the output's rank
 *   Softmax          over the node's axis, the row's maximum subtracted, in double
 *   Sigmoid          1 / (1 + e^-x)
 *   Concat, Split    slices along the axis, the sizes from the tensors' shapes
 * Without an axis in the file, the one the shapes tell (the only dimension longer
 * than 1 a reduction drops, a Softmax's only one longer than 1, the only one in
 * which a Concat's/Split's tensors differ); none: a clear refusal. emu_fb_exec runs
 * every CPU layer through a chain over the caller's hook (NULL none): custom ops
 * (cst*) through it, the built-ins here, any other op type through it again (its
 * own message) or refused by emu_cpu_refuse. The values are stored with the output
 * tensor's type (its int8 grid, float16), as the NPU's are. */
int emu_cpu_builtin(const char *type);   /* 1 when the op type is built in */
int emu_cpu_builtin_run(const struct rknn_model *m, int node, const float *const *in,
                        float *const *out, char *err, size_t errlen);
/* "node N (TYPE NAME) runs on the CPU: not emulated...": RT_EUNSUPPORTED */
int emu_cpu_refuse(const struct rknn_model *m, int node, char *err, size_t errlen);
typedef struct emu_cpu_chain {
    emu_cpu_hook h;
    emu_cpu_hook *user;
} emu_cpu_chain;
emu_cpu_hook *emu_cpu_chain_init(emu_cpu_chain *c, emu_cpu_hook *user);
/* 1 when the chain computes node (a built-in, or any type with a caller's hook) */
int emu_cpu_runs(const emu_cpu_chain *c, const struct rknn_model *m, int node);

/* inputs[i]: float NCHW (the framework layout) of the file's i-th input, as
 * rknn_inputs_set would take it before mean/std. dump_dir: every computed
 * tensor as DIR/<name>.npy (float32, NCHW, dequantized), NULL none. cpu: the
 * CPU layers' hook, NULL none. */
int emu_exec(const struct rknn_model *m, const uint8_t *file, size_t len,
             const float *const *inputs, int n_inputs, const char *dump_dir,
             emu_cpu_hook *cpu, emu_result *res, char *err, size_t errlen);
void emu_result_free(emu_result *r);
/* res's output arrays sized for m's outputs (n_out set; emu_result_free frees them). */
int emu_result_alloc(const struct rknn_model *m, emu_result *res, char *err, size_t errlen);
/* The Toolkit2 half of emu_exec: p's tasks (loaded from m's file, or built by a
 * fuzz target over a small graph) over one buffer per graph tensor. */
int emu_fb_exec(const struct rknn_model *m, const uint8_t *file, size_t len, const emu_program *p,
                const float *const *inputs, int n_inputs, const char *dump_dir,
                emu_cpu_hook *cpu, emu_result *res, char *err, size_t errlen);
/* The RV110x half of emu_exec (emu_lite.c): p's tasks, decoded into tasks,
 * over one flat NPU address space. */
int emu_lite_exec(const struct rknn_model *m, const uint8_t *file, size_t len,
                  const emu_program *p, const emu_task *tasks, const float *const *inputs,
                  int n_inputs, const char *dump_dir, emu_result *res, char *err, size_t errlen);
/* DIR/<name>.npy, the file a dump of tensor name is written to ('/', '\\' and ':'
 * of the name as '_'). */
void emu_dump_path(char *buf, size_t n, const char *dir, const char *name);
/* DIR/stopped_task.json of a run that stopped: the task, its node, the reason
 * (the error line), its LUT table (model 1, NULL none) and every register the
 * task sees (val/set: its ping-pong group, 0x10000 / 4 words), by address and
 * the map's name. 0 or RT_EIO. */
struct json_t;
/* DIR/NAME: doc as JSON, written whole through util/outfile.h. */
int emu_write_json(const char *dir, const char *name, struct json_t *doc, size_t flags,
                   char *err, size_t errlen);
int emu_write_stopped(const char *dir, int map, const uint32_t *val, const uint8_t *set, int task,
                      int node, const char *node_name, const char *lut, const char *reason,
                      char *err, size_t errlen);
/* 1 when emu_exec can run this file's kind at all (the chip's map, the
 * container, its inputs; why ""); else 0 and why says which and why. The tasks
 * can still stop it. */
int emu_exec_supported(const struct rknn_model *m, char *why, size_t n);

/* The RK3588 CNA weight decompressor's input (CNA_DCOMP_CTRL 1; toolkit 1.3.4
 * rk3588 files): src/len the compressed buffer, amount the 16 DCOMP_AMOUNT
 * registers, positions = kh * kw, in_c the real input channels. Writes the
 * native [kh][kw][OC2 8][IC2 16] bytes (dst_len = positions * 128) and returns
 * 0, or -1 with one message in err for anything outside the format seen
 * (docs/rknn-format.md "Weights"); never reads outside src. */
int emu_dcomp_decode(const uint8_t *src, size_t len, const uint32_t amount[16], int positions,
                     int in_c, uint8_t *dst, size_t dst_len, char *err, size_t errlen);

#endif
