/* runtime/emu/emu_internal.h — what the Toolkit2 executor's files share (emu_exec.c
 * the driver, emu_conv.c the conv task, emu_dpu.c the DPU-only tasks, emu_pool.c
 * the PPU's): the register state, the per-tensor buffers, the arithmetic helpers
 * and the task runners. Included only by the emu module's own .c files; emu.h
 * is its contract. */
#ifndef RUNTIME_EMU_EMU_INTERNAL_H
#define RUNTIME_EMU_EMU_INTERNAL_H

#include "runtime/emu/emu.h"
#include "runtime/model/rknn_file.h"
#include "util/dtype.h"
#include "util/util.h"

#include <math.h>
#include <stdint.h>

/* the register state of the two ping-pong groups (last write wins) */
typedef struct regstate {
    uint32_t val[2][0x10000 / 4];
    uint8_t set[2][0x10000 / 4];
} regstate;

/* The value register addr holds for group grp's task: its own write or what an
 * earlier task of the group left; 0 when none wrote it. */
static inline uint32_t reg_or0(const regstate *rs, int grp, uint32_t addr)
{
    return rs->set[grp][addr / 4] ? rs->val[grp][addr / 4] : 0;
}

/* The DPU's two LUT tables as a register stream uploads them (LUT_ACCESS_CFG 0x4100
 * = 0x20000 then the LE table's words through LUT_ACCESS_DATA 0x4104, 0x30000 then
 * the LO table's): a model-1 file's LUT tensor, or a model-6 file's DPU-only upload
 * task before each LUT conv (toolkit 2.3.0's ExSwish). emu_lut_take reads one write;
 * cur is the table being filled (0 none). */
#define LUT_N 513 /* entries of each LUT table (512 intervals) */
typedef struct emu_lut {
    int32_t le[LUT_N], lo[LUT_N];
    int n_le, n_lo, cur;
} emu_lut;
static inline void emu_lut_take(emu_lut *l, uint32_t addr, uint32_t v)
{
    if (addr == 0x4100) {
        l->cur = v == 0x20000 ? 1 : v == 0x30000 ? 2 : 0;
        if (l->cur == 1)
            l->n_le = 0;
        else if (l->cur == 2)
            l->n_lo = 0;
    } else if (addr == 0x4104 && l->cur == 1 && l->n_le < LUT_N) {
        l->le[l->n_le++] = (int32_t)v;
    } else if (addr == 0x4104 && l->cur == 2 && l->n_lo < LUT_N) {
        l->lo[l->n_lo++] = (int32_t)v;
    }
}

/* The DPU LUT of a task (emu_conv.c): its two tables (a model-1 file's LUT tensor
 * lut's register stream, else what the last upload task left, loaded) and the task's
 * LUT registers (LUT_CFG 0x68, the one configuration seen); emu_lut_eval: the table
 * at x, linear between entries, the slopes beyond the ends. */
typedef struct emu_lut_stage {
    int32_t le[LUT_N], lo[LUT_N];
    int64_t le_start, le_end, lo_start, lo_end;
    int le_shift, lo_shift;
    int uflow_scale, uflow_shift, oflow_scale, oflow_shift;
} emu_lut_stage;
int emu_lut_stage_load(const rknn_model *m, const uint8_t *file, size_t len, int lut,
                       const emu_lut *loaded, const regstate *rs, int grp,
                       emu_lut_stage *L);
int64_t emu_lut_eval(const emu_lut_stage *L, int64_t x);

typedef struct emu_mem {
    int8_t **buf;         /* per tensor, NULL none: int8 values, or float16 ones (act.es) */
    float **fbuf;         /* per tensor a CPU layer wrote without a native NPU layout
                             (float NCHW, the shape's elements), NULL none */
    int64_t *bytes;
    uint8_t *written;
    int64_t *ew_delta;    /* per node: EW address - destination address of its first task */
    int copy_out;         /* the tensor the last Split/Concat copy wrote */
    uint8_t *ew_seen;
    emu_lut lut;          /* the DPU's LUT tables, as the last upload task left them */
} emu_mem;

/* a 4-D activation in NC1HWC2 (or NHWC [1,1,H,W,C]): int8 values, or float16
 * ones (es 2, the file's dtype float16) */
typedef struct act {
    int c, h, w, c2, es;
    int8_t *p;
    int64_t bytes;
} act;

/* bytes of one element of file tensor t in the NPU's memory */
static inline int tensor_es(const rknn_tensor *t) { return t->dtype == DT_FLOAT16 ? 2 : 1; }

static inline int32_t rd_i32(const uint8_t *p) { return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24); }
static inline int16_t rd_i16(const uint8_t *p) { return (int16_t)(p[0] | p[1] << 8); }

static inline uint32_t rd_u32(const uint8_t *p) { return (uint32_t)rd_i32(p); }

static inline int64_t rshift_round(int64_t v, int n)
{
    return n <= 0 ? v : (v + ((int64_t)1 << (n - 1))) >> n;
}

static inline int8_t sat8(int64_t v) { return (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v); }

/* an activation of a 2-D [1, C] tensor stored flat (native [1, C'], C' >= C: a
 * float16 Linear's input and output), as [1, C, 1, 1] in one C' surface */
static inline int flat_2d(const rknn_tensor *t)
{
    return t->nd == 2 && t->nnd == 2 && t->shape && t->native && t->shape[0] == 1 &&
           t->native[0] == 1 && t->shape[1] > 0 && t->native[1] >= t->shape[1] &&
           t->native[1] <= INT32_MAX;
}

/* A batch of N > 1 ([N, C1, H, W, C2], yolov10n's attention [2,128,1,400]) is taken
 * as one image of N x C channels, channel n * C + c, when C fills its C1 x C2
 * lanes: the same bytes, and the NCHW order of the elements (dumps and outputs
 * keep it). A batch with padding lanes is not an activation here. */
static inline int act_of(const rknn_tensor *t, emu_mem *mem, int idx, act *a)
{
    if (flat_2d(t) && mem->buf[idx]) {
        a->c = (int)t->shape[1];
        a->h = a->w = 1;
        a->c2 = (int)t->native[1];
        a->p = mem->buf[idx];
        a->bytes = mem->bytes[idx];
        a->es = tensor_es(t);
        return 0;
    }
    if (t->nd != 4 || t->nnd != 5 || !t->shape || !t->native || !mem->buf[idx])
        return -1;
    a->c = (int)t->shape[1];
    a->h = (int)t->native[2];
    a->w = (int)t->native[3];
    a->c2 = (int)t->native[4];
    if (a->h != t->shape[2] || a->w != t->shape[3] || a->c2 <= 0 ||
        t->native[1] * a->c2 < a->c)
        return -1;
    if (t->shape[0] != 1) {
        if (t->shape[0] < 1 || t->native[0] != t->shape[0] || t->native[1] * a->c2 != a->c ||
            t->shape[0] > (1 << 20) / (a->c > 0 ? a->c : 1))
            return -1;
        a->c *= (int)t->shape[0];
    }
    a->p = mem->buf[idx];
    a->bytes = mem->bytes[idx];
    a->es = tensor_es(t);
    return 0;
}

/* 1 when the activation's values can be read as floats (int8 with a quantization, or
 * float16) */
static inline int readable_act(const rknn_tensor *t, const act *a)
{
    return a->es == 2 || t->has_quant;
}

/* the batch of an activation act_of took (its channels are act.c / batch) */
static inline int act_batch(const rknn_tensor *t) { return t->shape[0] > 1 ? (int)t->shape[0] : 1; }

static inline int64_t act_off(const act *a, int c, int y, int x)
{
    return (((int64_t)(c / a->c2) * a->h + y) * a->w + x) * a->c2 + c % a->c2;
}

/* float16 element off of a (es 2) */
static inline uint16_t *act_f16(const act *a) { return (uint16_t *)(void *)a->p; }

/* The value at element off as a float: int8 dequantized with t's quantization,
 * float16 as it is. */
static inline float act_value(const rknn_tensor *t, const act *a, int64_t off)
{
    if (a->es == 2)
        return rt_f16_to_f32(act_f16(a)[off]);
    return (float)((a->p[off] - t->zero_point) * t->scale);
}

/* A value stored at element off: quantized to int8 (round half away from zero,
 * saturated: as the runtime quantizes an input), or rounded to float16. */
static inline void act_store(const rknn_tensor *t, const act *a, int64_t off, double v)
{
    if (a->es == 2)
        act_f16(a)[off] = rt_f32_to_f16((float)v);
    else
        a->p[off] = sat8(llround(v / t->scale) + t->zero_point);
}

/* Bytes between rows of the NPU's copy of a: an NHWC image input (C2 = C, 1 to 4
 * channels) has rows of the aligned width, which the file's native size gives (the
 * SDK's float16 [1,3,10,10] input of 960 bytes on rk3588: 16-pixel rows); other
 * tensors W x C2 (a 16-channel activation stored [1,1,H,W,16] too, whatever padding
 * its size has: yolov5n-seg's [1,16,320,320] under toolkit 2.3.0). */
static inline int64_t act_row_bytes(const rknn_tensor *t, const act *a)
{
    int64_t row = (int64_t)a->w * a->c2 * a->es;
    if (a->c2 == a->c && a->c <= 4 && t->size > 0 && t->size % ((int64_t)a->h * a->c2 * a->es) == 0 &&
        t->size / a->h > row)
        return t->size / a->h;
    return row;
}

/* a node's name in messages; a node the compiler left unnamed (the SDK's float16
 * demo files) by its op type */
static inline const char *node_name(const rknn_model *m, int node)
{
    if (node < 0 || node >= m->n_nodes)
        return "?";
    const rknn_node *nd = &m->nodes[node];
    return nd->name && nd->name[0] ? nd->name : nd->type && nd->type[0] ? nd->type : "?";
}

/* The words of the DPU's stages where rk356x and rk3588 differ (an ALU add is algo 0
 * on rk356x, 2 on rk3588, in BS, BN and EW alike): rk356x's as yolov8n writes them,
 * rk3588's as multiple_input_demo's ConvAdd and toolkit 2.3.0's yolov5n-seg do. Only
 * these exact words are taken where a runner checks one. */
typedef struct emu_chip_words {
    uint32_t feature_mode, rdma_mode; /* a DPU-only task's FEATURE_MODE (flying: the DPU
                                         reads through its RDMA) and DPU_RDMA mode */
    uint32_t add_mul;  /* BS/BN_CFG: an ALU add of a register operand, then the multiplier */
    uint32_t add;      /* the same with the multiplier bypassed */
    uint32_t ew_add, erdma_add; /* EW_CFG and ERDMA_CFG of the add of a memory operand */
    uint32_t ppu_rdma_7018, ppu_rdma_fmt; /* a max pool's PPU_RDMA 0x7018 (unnamed) and
                                             DATA_FORMAT 0x7030 words (int8) */
    uint32_t ppu_misc;  /* its PPU MISC_CTRL 0x60dc */
} emu_chip_words;

/* rk356x; rk3588; rk3576 (f2: its pools' PPU words, rocket-userspace's captures: 0x7030
 * 0x40, MISC 0; its DPU-only tasks stop at the word table before these are read) */
static inline emu_chip_words emu_chip_words_of(const emu_task *t)
{
    return t->map == EMU_MAP_RK356X
               ? (emu_chip_words){0x109, 0x4001, 0x48, 0x58, 0x900002d0, 0x40000000, 1, 0, 3}
           : t->map == EMU_MAP_F2
               ? (emu_chip_words){0x1e5, 0x7801, 0x20040, 0x20050, 0x904202c0, 0x40000004, 0, 0x40, 0}
               : (emu_chip_words){0x1e5, 0x7801, 0x20040, 0x20050, 0x904202c0, 0x40000004, 0, 1, 3};
}

/* Where a task runs: task ti of graph node node (nd, named nn in messages),
 * with register group grp's state, over mem. The runner puts the output rows
 * it wrote in rows[] and a stop's reason in err. */
typedef struct emu_step {
    const rknn_model *m;
    int ti, node, grp;
    const regstate *rs;
    const emu_stream *st;  /* its register writes (what the file's address patches name) */
    const rknn_node *nd;
    const char *nn;
    emu_mem *mem;
    int *rows;
    char *err;
    size_t errlen;
} emu_step;

/* the activation of graph tensor i */
static inline int tensor_act(const emu_step *s, int i, act *a)
{
    return act_of(&s->m->tensors[i], s->mem, i, a);
}

/* the activations of the node's first input and its one output: -1 when it
 * has no input, other than one output, or either is not a 4-D activation */
static inline int in_out_acts(const emu_step *s, act *in, act *out)
{
    const rknn_node *nd = s->nd;
    return nd->n_out != 1 || nd->n_in < 1 || tensor_act(s, nd->in[0], in) ||
                   tensor_act(s, nd->out[0], out)
               ? -1
               : 0;
}

/* tensor t computed; the task wrote its rows y0..y1 */
static inline void wrote(const emu_step *s, int t, int y0, int y1)
{
    s->mem->written[t] = 1;
    s->rows[0] = y0;
    s->rows[1] = y1;
}

/* in a runner of step s (with rc and a label out): stop the run with the reason */
#define STOP(...)                                                                 \
    do {                                                                          \
        rc = rt_err(s->err, s->errlen, RT_EUNSUPPORTED, __VA_ARGS__);             \
        goto out;                                                                 \
    } while (0)

/* A conv weight's native layout: one or more blocks [OC1, IC1, kh, kw, OC2,
 * IC2] of input channels (yolov8n's 48 = 32 + 16: IC1 blocks of 32, then one
 * of 16), interleaved per OC1: for each block of OC2 kernels, each input-channel
 * block's [IC1][kh][kw][OC2][IC2] bytes in turn (docs/rknn-format.md "Weights
 * in several input-channel blocks"). The kernels themselves may come in blocks
 * of other OC2 (rk3576's 48 = 32 + 16 kernels), each with the same input blocks,
 * one after the other. */
#define WB_MAX 4
typedef struct weight_blocks {
    int n, ocp, kh, kw;                         /* input blocks; the first output block's OC2 */
    int64_t row;                                /* f3 pixel conv: a kernel row's bytes, else 0 */
    int ib[WB_MAX], icp[WB_MAX], ic0[WB_MAX];   /* first input channel of each block */
    int no;                                     /* output blocks */
    int ob[WB_MAX], ocb[WB_MAX], oc0[WB_MAX];   /* each one's OC1, OC2 and first kernel */
    int64_t ooff[WB_MAX];                       /* its bytes' offset in the tensor */
    int kernels;                                /* sum of OC1 x OC2 */
    int64_t per_kernel;                         /* one kernel's bytes, kh kw sum(IC1 x IC2) */
    int64_t block_bytes, bytes;                 /* the first output block's OC1 block, the
                                                   whole tensor */
} weight_blocks;

int emu_weight_blocks(const rknn_tensor *w, int kh, int kw, int in_c, int out_c,
                      weight_blocks *b);
/* a conv node's tensors: its first activation, weights, int32 bias, a second
 * activation (the EW operand); -1 each when absent */
void emu_node_operands(const rknn_model *m, const rknn_node *nd, int *x, int *w, int *b, int *e);
int64_t emu_weight_elem(const weight_blocks *b, int oc, int ic, int ky, int kx);
/* where the OC1 block that starts at kernel oc begins (a tile's weight address);
 * -1 when no OC1 block starts there */
int64_t emu_weight_tile(const weight_blocks *b, int oc);

/* The task runners: RT_OK, or an error that says what is not emulated. A conv
 * also reads the file's weights and the LUT tensor lut's table. */
int emu_run_conv(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len, int lut);
int emu_conv_tile(const emu_step *s, const emu_task *t, const rknn_tensor *xt, const act *in,
                  const act *out, int *y0i, int *y0o, int *oc0);
/* a float16 conv task (emu_conv16.c): emu_run_conv hands it over */
int emu_run_conv16(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len);
int emu_run_copy(const emu_step *s, const emu_task *t);
int emu_run_add(const emu_step *s, const emu_task *t);
int emu_run_resize(const emu_step *s, const emu_task *t);
int emu_run_pool(const emu_step *s, const emu_task *t);
/* ---- the activation stage after a conv on f2/f3 (emu_act.c) ------------------
 * rk3576's DPU after the MAC array (docs/rknn-format.md "Activations on f2"): BS (the
 * per-channel add and multiply, its shift from a configuration buffer), then BN_CFG
 * 0x4060 picks what follows, each form with the exact words the captures write:
 *   0x903 nothing; 0x902 a clamp (0x406c / 0x4070, twice); 0x402 a PReLU in BN (its
 *   multiplier from a buffer); 0x20 BN scales into the LUT, whose two tables an
 *   earlier DPU-only task uploaded (emu_mem.lut). A stage's layer-wide operands are
 *   16-byte slots of the buffer the file's address patches put at its configuration
 *   address (BS 0x5024, BN 0x5030), read in the order ALU, ALU again, multiplier,
 *   shift word, each slot present only where the RDMA word says (BRDMA 0x501c, NRDMA
 *   0x5028). */
enum { EMU_ACT_NONE, EMU_ACT_CLAMP, EMU_ACT_PRELU, EMU_ACT_LUT };
typedef struct emu_f2_act {
    int kind, fp16;
    int bs_pos, bs_neg;        /* int8 BS: the shifts of a non-negative / negative product */
    int bs_prelu;              /* float16: BS multiplies a negative sum by bs_alpha */
    float bs_alpha;
    int64_t lo, hi;            /* int8 clamp on v after BS */
    float flo, fhi;            /* float16 clamp */
    int64_t bn_alu, bn_mul;    /* int8 BN: v = (v + alu) * mul >> shift (PReLU: v < 0 only) */
    int bn_pos, bn_neg;
    float bn_falu, bn_fmul;    /* float16 BN: v = (x + alu) * mul */
    int32_t le[LUT_N], lo_tab[LUT_N];   /* the LUT: [lut_lo, 0) and [0, lut_hi), step 2^sel */
    int sel;
    int64_t lut_lo, lut_hi, under, over, slope;
    int slope_shift;
    int64_t uslope;            /* below the start: under + (w - lut_lo) * uslope >> ushift */
    int uslope_shift;
    int64_t out_lo;            /* the LUT's value held >= out_lo (DPU-only tasks: 0x4088) */
    double out_mul;            /* float16 LUT: y = entry * out_mul */
} emu_f2_act;
/* a's stage for task t (its registers, its buffers in file); RT_OK, or a stop naming
 * the word it does not take. emu_run_conv (int8) and emu_run_conv16 (float16) call it. */
int emu_f2_act_load(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len,
                    emu_f2_act *a);
/* int8: the BS output of the product acc * mul; then what OUT_CVT takes */
int64_t emu_f2_bs(const emu_f2_act *a, int64_t prod);
int64_t emu_f2_act_int(const emu_f2_act *a, int64_t v);
/* float16: the BS output x (sum x w + bias, float32) to the output value, before its
 * rounding to float16 */
float emu_f2_act_float(const emu_f2_act *a, float x);
/* int8, BN_CFG 0x903 or 0x902 only (the depthwise runner): [lo, hi], the full int32
 * range under 0x903; not beside an EW add, whose order with the clamp no file shows */
int emu_f2_clamp(const emu_step *s, const emu_task *t, int64_t *lo, int64_t *hi);
/* int8: the BS shifts (non-negative, negative product) of the task's configuration
 * buffer at 0x5024, 14 and 14 where the file patches none there */
int emu_f2_bs_shifts(const emu_step *s, const uint8_t *file, size_t len, int *pos, int *neg);

/* the BS stage of an f2 DPU-only task over the byte q its DPU_RDMA reads (emu_act.c):
 * v = (q + alu) * mul >> the shift by the product's sign, held to [lo, hi]; the load
 * takes BS's words (0x4044, 0x4050, BRDMA 0x501c, the clamp pairs 0x4048..0x405c) and
 * its configuration buffer at 0x5024, or stops naming them */
typedef struct emu_f2_dpu_bs {
    int64_t alu, mul, lo, hi;
    int pos, neg;
} emu_f2_dpu_bs;
int emu_f2_dpu_bs_load(const emu_step *s, const uint8_t *file, size_t len, emu_f2_dpu_bs *b);
int64_t emu_f2_dpu_bs_at(const emu_f2_dpu_bs *b, int64_t q);
/* an int8 DPU-only elementwise Add, Sub or Mul of layout f2 (emu_dpu.c) */
int emu_run_f2_ew(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len);
/* an int8 DPU-only activation task of layout f2 (DPU FEATURE_MODE 5: an activation
 * alone, its input read by the DPU_RDMA; emu_act.c) */
int emu_run_f2_dpu_act(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len);

/* an int8 depthwise conv task of layout f2 (emu_dw.c) */
int emu_run_dw(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len);
/* rk3588 (emu_dw_rk3588.c): BN_CFG 0x92, ReLUX: [lo, hi] = [0, DPU_BN_RELUX_CMP_VALUE]
 * on the BS stage's result; any other BN word stops */
int emu_rk3588_relux(const emu_step *s, const emu_task *t, int64_t *lo, int64_t *hi);
/* an int8 depthwise conv task of an rk3588 file, a tile of rows and channels */
int emu_run_dw_rk3588(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len);
/* A depthwise weight's blocks [1, IC1, kh, kw, 1, IC2] (IC1 may be 0: mobilenet_v2's
 * 32 channels are [1,0,3,3,1,64, 1,1,3,3,1,32]), one byte an element, laid out
 * [IC1][kh][kw][IC2] one block after the other (emu_dw_rk3588.c): dw_blocks_of
 * reads them off weight tensor w (-1 not that form), dw_elem is channel c's
 * element (ky, kx). */
typedef struct dw_blocks {
    int n, kh, kw;
    int ib[8], icp[8], ic0[8];
    int64_t off[8], bytes;
} dw_blocks;
int dw_blocks_of(const rknn_tensor *w, int kh, int kw, int channels, dw_blocks *b);
int64_t dw_elem(const dw_blocks *b, int c, int ky, int kx);
/* rk3588's bilinear Resize (emu_resize_rk3588.c): emu_resize_linear says whether
 * task t of node nd is one of its copies or depthwise phases */
int emu_resize_linear(const rknn_node *nd, const emu_task *t);
int emu_run_resize_linear(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len);

/* The NPU view layers (Reshape, Flatten, Squeeze, Unsqueeze) of graph nodes *next up
 * to upto that the program gives no task (emu_view.c): the compiler names one buffer
 * twice, so the output is the input's bytes, taken when every element keeps its byte
 * and its quantization; otherwise the run stops naming the node. */
int emu_run_views(const rknn_model *m, const emu_program *prog, emu_mem *mem, int upto,
                  int *next, char *err, size_t errlen);
/* 1 for a view node's op type (Reshape, Flatten, Squeeze, Unsqueeze); a DPU-only task of
 * one that copies its input's bytes whole */
int emu_view_type(const char *type);
int emu_run_view_copy(const emu_step *s, const emu_task *t);

/* an exSDPAttention node from its meaning in float64 (emu_attn.c), its tasks skipped,
 * when RKNN_TRACE_EMU_ATTN=float (emu_attn_float_on) asks for it */
int emu_attn_float_on(void);
int emu_run_attn_float(const rknn_model *m, emu_mem *mem, int node, char *err, size_t errlen);

#endif
