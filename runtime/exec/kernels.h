/* runtime/exec/kernels.h — private to runtime/exec: the operator tables of each
 * kernel file and the helpers kernels share. Not part of the module contract. */
#ifndef RT_KERNELS_H
#define RT_KERNELS_H

#include <stdint.h>
#include "runtime/exec/exec.h"
#include "util/util.h"

/* One table per kernel file, each terminated by an entry with name == NULL. */
extern const op_def exec_ops_conv[];     /* ops_conv.c: Conv, ConvTranspose */
extern const op_def exec_ops_gemm[];     /* ops_gemm.c: Gemm, MatMul */
extern const op_def exec_ops_pool[];     /* ops_pool.c: MaxPool, AveragePool, Global*Pool */
extern const op_def exec_ops_norm[];     /* ops_norm.c: BatchNormalization */
/* A prepared BatchNormalization's kernel state (priv) as y = x * a[c] + b[c]
 * per channel, the product and the sum each rounded to float as its kernel
 * computes them: 1 when its parameters were constant and per channel. */
int bn_channel_affine(const void *priv, int64_t *channels, const float **a, const float **b);
extern const op_def exec_ops_normalize[]; /* ops_normalize.c: LayerNormalization InstanceNormalization
                                            MeanVarianceNormalization LpNormalization LRN */
extern const op_def exec_ops_index[];    /* ops_index.c: EyeLike ReverseSequence ScatterND MaxUnpool */
extern const op_def exec_ops_roi[];      /* ops_roi.c: RoiAlign MaxRoiPool */
extern const op_def exec_ops_rnn[];      /* ops_rnn.c: RNN GRU LSTM */
extern const op_def exec_ops_binary[];   /* ops_binary.c: Add Sub Mul Div Pow Equal Where PRelu ... */
extern const op_def exec_ops_unary[];    /* ops_unary.c: Relu Sigmoid Exp Erf Clip HardSwish ... */
extern const op_def exec_ops_shape[];    /* ops_shape.c: Reshape Flatten Squeeze Unsqueeze Shape Size
                                            ConstantOfShape Cast Identity Dropout Range */
extern const op_def exec_ops_layout[];   /* ops_layout.c: Concat Split Slice Transpose Gather
                                            Expand Tile Pad */
extern const op_def exec_ops_resize[];   /* ops_resize.c: Resize Upsample */
extern const op_def exec_ops_reduce[];   /* ops_reduce.c: Reduce* ArgMax Softmax */
extern const op_def exec_ops_quant[];    /* ops_quant.c: QuantizeLinear DequantizeLinear
                                            QLinearConv QLinearMatMul ConvInteger MatMulInteger
                                            DynamicQuantizeLinear; com.microsoft QLinearAdd/Mul/
                                            GlobalAveragePool/Sigmoid/LeakyRelu */

/* ---- shared helpers (kernel_util.c) ---- */

/* Sets dtype and shape of a tensor. */
void tensor_set_shape(tensor_t *t, int dtype, int ndim, const int64_t *dims);
/* Element i of an integer tensor (int8..int64, uint8.., bool) as int64. */
int64_t tensor_get_int(const tensor_t *t, int64_t i);
/* Element i of any numeric tensor as double. */
double tensor_get_f64(const tensor_t *t, int64_t i);

/* Per-thread scratch buffers of at least `bytes`, grown and reused from run to
 * run (a timed run allocates nothing), freed when their thread exits; 64-byte
 * aligned, never NULL. Each use keeps its own slot so that a caller's buffer (a
 * conv's columns, the int8 conv's centred input) survives a callee's (the GEMM's
 * packed panel) and the tasks the calling thread also runs. */
enum {
    SCRATCH_CONV, SCRATCH_GEMM,                                  /* fp32 kernels */
    SCRATCH_Q_INPUT, SCRATCH_Q_BLOCK, SCRATCH_Q_ACC, SCRATCH_Q_ROWS, /* int8 conv */
    SCRATCH_SLOTS
};
void *kernel_scratch(int slot, size_t bytes);

/* Numpy-style broadcast of two shapes into out; returns ndim or -1 if incompatible. */
int broadcast_shape(int na, const int64_t *a, int nb, const int64_t *b, int64_t *out);
/* Strides (in elements) of an input of shape (nd_in, dims_in) broadcast to an output
 * of rank nd_out: 0 where the input dimension is 1 (or missing). */
void broadcast_strides(int nd_in, const int64_t *dims_in, int nd_out, int64_t *strides);

/* Normalises a possibly-negative axis; returns -1 when out of range. */
int norm_axis(int64_t axis, int ndim);

/* Checks the count of inputs/outputs; writes a message naming the node. */
int check_arity(const node_t *n, int min_in, int max_in, int min_out, char *err, size_t errlen);

/* Runs fn over [0, n) on the pool when n * per_item is enough work to be worth
 * waking it (about 32K elementary steps), else inline on the calling thread. */
void op_parallel_for_work(op_ctx *c, int64_t n, int64_t per_item, range_fn fn, void *arg);
/* A constant with data (initializer, Constant output or folded at load). */
int tensor_is_const(const tensor_t *t);
/* Values of constant integer input i of n into v (at most max): the count, or a
 * negative status with a message naming the node when the input is not constant
 * (dynamic shapes are not supported). */
int node_const_ints(graph_t *g, const node_t *n, int i, const char *what, int64_t *v, int max,
                    char *err, size_t errlen);
/* A node_window's extents, kernel, strides, dilations and pads into a
 * kernel's own 3-slot arrays. */
void window_take(const node_window *w, int64_t *in, int64_t *out, int64_t *k, int64_t *s,
                 int64_t *d, int64_t *pb, int64_t *pe);
/* A windowed op's output dims: n, c, then the nsp spatial extents of out (in
 * 3-D form, the last nsp slots); returns the rank, nsp + 2. */
int window_out_dims(int64_t n, int64_t c, int nsp, const int64_t *out, int64_t *dims);
/* ceil(a / b) for a >= 0, b > 0. */
static inline int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}
/* t exists and every dimension is known (rank known, no -1). */
int tensor_shape_known(const tensor_t *t);
/* Product of d[from..to). */
int64_t dims_prod(const int64_t *d, int from, int to);

/* ---- float32 unary loops (ops_unary.c) ---- */
typedef struct unary_par {
    float alpha, beta, gamma;
    double lo, hi; /* Clip bounds */
} unary_par;
typedef void (*unary_loop)(const void *x, void *y, int64_t n, const unary_par *p);
/* The float32 loop of unary node n (Sigmoid, Tanh, ...) with its parameters, for
 * a caller that runs it block by block; NULL when n does not run ops_unary.c's
 * kernel.
 * Elementwise: any split of the elements gives the kernel's own results. */
unary_loop unary_f32_loop(graph_t *g, const node_t *n, unary_par *p);

/* ---- nearest Resize's gather (ops_resize.c) ----
 * The prepared state priv of a Resize node (its kernel's n->priv) when it
 * runs x by its one-pass nearest path: output [.., o, p] of the last two
 * axes copies input [.., ih[o], iw[p]] (oh x ow of them, every leading axis
 * kept); 0 for any other path or shape. */
int resize_nearest_maps(const void *priv, const tensor_t *x, const int64_t **ih,
                        const int64_t **iw, int64_t *oh, int64_t *ow);

/* ---- AVX-512 fp32 GEMM for convs (gemm_avx512.c) ---- */

#define GEMM_MR 8   /* rows of A per packed panel and register tile */
#define GEMM_NR 48  /* columns of B per register tile */
/* The blocky conv kernels' im2col (ConvTranspose: GEMM output) floats per
 * task, which keep a block within L2, and the multiply-adds below which a
 * node runs on the calling thread (waking the pool costs more than about
 * 10 us of GEMM work saves). The int8 ConvTranspose (qconvt.c) cuts the same
 * blocks, so that its GEMM calls and their floats are the fp32 kernel's. */
#define CONV_COL_BLOCK_FLOATS (160 * 1024)
#define CONV_PAR_MIN_MACS (1 << 20)

enum { GEMM_ACT_NONE, GEMM_ACT_RELU, GEMM_ACT_CLIP, GEMM_ACT_LEAKY, GEMM_ACT_SILU, GEMM_ACT_HSWISH };

/* Epilogue: v = C + bias[row]; if pre, v = v * s1 + b1; v = act(v); if post,
 * v = v * s2 + b2; if res, v += res (a residual Add). CLIP uses [alpha, beta],
 * LEAKY alpha; SILU is x * sigmoid(x), HSWISH ONNX HardSwish. */
typedef struct gemm_epi {
    const float *bias;  /* M values, or NULL */
    const float *res;   /* laid out as C (row stride ldc, from C's first element), or NULL;
                           gemm512_run and gemm512_run_offsets add it, gemm_act_apply not */
    int act;
    float alpha, beta;
    int pre, post;
    float s1, b1, s2, b2;
    const char *pf;     /* pf_len bytes that gemm512_run brings into L2, a few lines per
                           tile (exec.c: the next conv's weights, which L3 would
                           otherwise hand over only as its first tiles ask), or NULL */
    size_t pf_len;
} gemm_epi;

/* Non-zero when the CPU (and OS) run AVX-512F; else gemm512_run must not be used. */
int gemm512_available(void);
/* A one-group ConvTranspose's weights W [C][R] (R: output channels x kernel
 * volume) as the blocky kernel packs them (ops_conv.c): W^T, rows (m, kz,
 * ky, kx), through gemm512_pack_a into gemm512_packed_floats(R, C) floats. */
void convt_pack_weights(const float *w, int64_t C, int64_t R, float *dst);
/* Floats needed to pack an M x K matrix (rows padded to GEMM_MR). */
size_t gemm512_packed_floats(int64_t M, int64_t K);
/* Packs row-major A (M x K, row stride lda) into GEMM_MR-row panels. */
void gemm512_pack_a(const float *a, int64_t lda, int64_t M, int64_t K, float *dst);
/* C (M x N, row stride ldc) = epilogue(packed A * B), B is K x N with row stride ldb. */
void gemm512_run(const float *ap, int64_t M, int64_t K, const float *b, int64_t ldb, int64_t N,
                 float *c, int64_t ldc, const gemm_epi *e);
/* The same with row k of B at b + koff[k] (any offsets, e.g. the taps of a
 * direct conv over zero-padded input rows). */
void gemm512_run_offsets(const float *ap, int64_t M, int64_t K, const float *b,
                         const int64_t *koff, int64_t N, float *c, int64_t ldc, const gemm_epi *e);

/* y[i] = act(y[i]) for n floats (any CPU). */
void gemm_act_apply(float *y, int64_t n, const gemm_epi *e);
/* d[i] = s[2 i] for i < n, reading no further than s[2 (n - 1)] (AVX-512
 * permutes where available): a Focus phase row for the direct conv. */
void gemm512_gather2(float *d, const float *s, int64_t n);

/* Conv with the activation that follows it (exec.c, when no layer hook looks at
 * the conv's own output): conv_fusable() says whether node n is a prepared fp32
 * Conv; conv_run_fused() writes act(conv) into tensor out instead. */
int conv_fusable(const node_t *n);

/* A conv input read in place from the tensor that a Concat of Slices cut it
 * from (YOLOX's Focus stem, exec.c): input channel c of batch item i starts
 * at base + i * item + off[c], its rows rstep[c] floats apart, its columns
 * cstep[c] apart. conv_gather_ok() says whether conv n, with that many input
 * channels, can read its input so (the direct kernel copies rows anyway). */
#define CONV_GATHER_MAXC 16
typedef struct conv_gather {
    const float *base;
    int64_t item;
    int64_t off[CONV_GATHER_MAXC], rstep[CONV_GATHER_MAXC], cstep[CONV_GATHER_MAXC];
} conv_gather;
int conv_gather_ok(const node_t *n, int64_t channels);

/* src: the input through a conv_gather, or NULL for the node's input. */
int conv_run_fused(op_ctx *c, graph_t *g, node_t *n, const gemm_epi *act,
                   const conv_gather *src, int out);

/* A direct conv (a, few input channels, stride 1) whose output (after act_a)
 * only a depthwise conv (b) reads, as one kernel (exec.c): conv_pair_ok() says
 * whether the two can; conv_run_pair() writes act_b(b(act_a(a(x)))) into
 * tensor out, a's output made a band of rows at a time in cache and never
 * written to its tensor. src as conv_run_fused's, for a. */
int conv_pair_ok(const node_t *a, const node_t *b);
int conv_run_pair(op_ctx *c, graph_t *g, node_t *a, const gemm_epi *act_a,
                  const conv_gather *src, node_t *b, const gemm_epi *act_b, int out);

/* The packed weights of conv n that the fp32 GEMM reads, or NULL (*len 0). */
const void *conv_weights(const node_t *n, size_t *len);

/* Slice n applied to the output of Slice inner, read straight from inner's
 * input (exec.c, when no hook looks at inner's output): one strided copy
 * instead of two. slice_composable() says whether both have constant
 * parameters. */
int slice_composable(graph_t *g, const node_t *n, const node_t *inner);
/* Where Slice n (applied to Slice inner's output when inner is not NULL) takes
 * its elements in its input (inner's input): per axis the first index and the
 * step. Non-zero when its parameters are not constant. */
int slice_source(graph_t *g, const node_t *n, const node_t *inner, int64_t *start,
                 int64_t *step);
int slice_run_composed(op_ctx *c, graph_t *g, node_t *n, const node_t *inner);

/* An op's fusion hooks (op_def.fusion): what exec.c's fusion plan calls through a
 * node's kernel, so that the executor names no op's kernel. Every hook optional. */
typedef struct op_fusion {
    /* a head whose activation chain runs as its epilogue (Conv: conv_fusable,
     * conv_run_fused, conv_gather_ok, conv_pair_ok, conv_run_pair, conv_weights) */
    int (*fusable)(const node_t *n);
    int (*run_fused)(op_ctx *c, graph_t *g, node_t *n, const gemm_epi *act,
                     const conv_gather *src, int out);
    int (*gather_ok)(const node_t *n, int64_t channels);
    int (*pair_ok)(const node_t *a, const node_t *b);
    int (*run_pair)(op_ctx *c, graph_t *g, node_t *a, const gemm_epi *act_a,
                    const conv_gather *src, node_t *b, const gemm_epi *act_b, int out);
    const void *(*weights)(const node_t *n, size_t *len);
    /* the op applied to the output of another node of the op, read straight from
     * that one's input (Slice: slice_composable, slice_source, slice_run_composed) */
    int (*composable)(graph_t *g, const node_t *n, const node_t *inner);
    int (*source)(graph_t *g, const node_t *n, const node_t *inner, int64_t *start,
                  int64_t *step);
    int (*run_composed)(op_ctx *c, graph_t *g, node_t *n, const node_t *inner);
} op_fusion;

/* Depthwise 2-D conv of one plane on AVX-512 (gemm_avx512.c). Column strides
 * 1 and 2 (kernels up to 16 wide) read the input in place, masked at the
 * edges, 8 output rows x 16 columns per register block; other strides copy
 * the input once into zero-padded planes split by column phase. */
#define DW_MAXTAPS_PUBLIC 256
typedef struct dw512_geom {
    int64_t IH, IW, OH, OW, KH, KW, sy, sx, dy, dx, pt, pl;
} dw512_geom;
int dw512_supported(const dw512_geom *d);
size_t dw512_scratch_floats(const dw512_geom *d);
/* Once per scratch before its planes of one geometry and act (lane masks a
 * kernel reads from there). */
void dw512_begin(const dw512_geom *d, const gemm_epi *act, float *scratch);
/* y (OH x OW) = act(conv(x) + bias); w is KH x KW; scratch has
 * dw512_scratch_floats() floats and went through dw512_begin with the same d
 * and act. act may be NULL. */
void dw512_plane(const dw512_geom *d, const float *x, const float *w, float bias,
                 const gemm_epi *act, float *y, float *scratch);

/* Winograd F(2x2, 3x3) for 3x3 stride-1 dilation-1 convs (gemm_avx512.c, AVX-512
 * only). Weights M x C x 3 x 3 are transformed and packed once; a task computes
 * output rows [2 th0, 2 (th0 + nrows)) of every channel. */
typedef struct wino_geom {
    int64_t C, M, IH, IW, OH, OW, pt, pl;
} wino_geom;
size_t wino_packed_floats(int64_t M, int64_t C);
void wino_pack_weights(const float *w, int64_t M, int64_t C, float *dst);
int64_t wino_rows_per_task(const wino_geom *g, int nthreads);
size_t wino_scratch_floats(const wino_geom *g, int64_t rows);
void wino_run_rows(const wino_geom *g, const float *upack, const float *x, const float *bias,
                   const gemm_epi *act, float *y, int64_t th0, int64_t nrows, float *scratch);

/* Winograd F(2x2, 3x3) over the direct conv's strip (gemm_avx512.c, AVX-512
 * only): C channels of hp padded rows, wp floats wide, one after another.
 * Output rows [0, nrows) of OW columns go to y (channels ldc floats apart)
 * with e's bias, activation and residual (laid out as y). The strip's first
 * row is that of output row -first (first 0 or 1): tiles pair output rows
 * (-first, 1 - first), ..., and a row left alone is the first of its tile.
 * Weights M x C x 3 x 3 packed once by wino_strip_pack into
 * wino_strip_floats(); scratch of wino_strip_scratch_floats(). */
size_t wino_strip_floats(int64_t M, int64_t C);
void wino_strip_pack(const float *w, int64_t M, int64_t C, float *dst);
size_t wino_strip_scratch_floats(int64_t C);
void wino_strip_rows(const float *u, int64_t M, int64_t C, const float *strip, int64_t hp,
                     int64_t wp, int first, int64_t nrows, int64_t OW, float *y, int64_t ldc,
                     const gemm_epi *e, float *scratch);

/* d[2i] = a[i] + bias, d[2i + 1] = b[i] + bias for i < n (gemm_avx512.c). */
void interleave2_bias(float *d, const float *a, const float *b, int64_t n, float bias);

#endif
