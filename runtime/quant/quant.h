/* runtime/quant/quant.h — quantized simulation as RKNN-Toolkit2 does it:
 * calibration over a dataset, int8 asymmetric parameters, fp16, the quantized
 * run, and per-layer error against the fp32 golden run (entire and single).
 *
 * Numerics (documented in one place, here):
 *  - int8 asymmetric ("asymmetric_quantized-8"), per the SDK guide:
 *      scale = (max - min) / 255,  zp = round(-min / scale) - 128,
 *      q = clamp(round(x / scale) + zp, -128, 127),  x' = (q - zp) * scale,
 *    round = half away from zero. The range is first widened to contain 0 so
 *    that 0 (padding, ReLU) is exact; a constant-zero range gets scale 1.
 *  - a BatchNormalization after a Conv is folded into it first (Toolkit2
 *    optimizes the graph before it quantizes): the folded weights and bias
 *    are the ones quantized;
 *  - activations: one (scale, zp) per tensor ("layer"), from calibration;
 *    MaxPool and nearest-Resize outputs take their input's, as Toolkit2
 *    gives them (calib.c);
 *    weights: per output channel ("channel") or per tensor ("layer"), from the
 *    symmetric range [-max|w|, max|w|], which the same formula maps to zp = 0.
 *  - Conv, Gemm and MatMul with constant weights run an int8 kernel: the input
 *    is taken as int8 (q - zp), weights as int8, the accumulation is exact in
 *    int32 (int64 when K*255*128 could overflow) and the bias is int32 with
 *    scale s_in*s_w[c]. Conv computes the integer sums with a float GEMM,
 *    which is exact when every partial sum stays below 2^24 — guaranteed when
 *    255 * sum|w| < 2^24 for every output channel — and a double GEMM (exact
 *    below 2^53) otherwise. Requantization: the accumulator is scaled by
 *    s_in*s_w[c] (double) and quantized by the output tensor's parameters;
 *    when the only consumer is an activation the NPU fuses (Relu, Clip,
 *    LeakyRelu, ...) the conv output stays unquantized and the activation's
 *    output is quantized instead (Toolkit2 prints such rows without numbers).
 *  - every other op runs its fp32 kernel on dequantized inputs and its float
 *    outputs are re-quantized (dequantize -> fp32 -> quantize). Activation
 *    buffers hold the dequantized values: each lies exactly on its int8 grid.
 *  - how an i8 run executes (qgraph.c, qkernels.c): the graph keeps its nodes
 *    (no quantize/dequantize nodes are added) and nothing is measured at run
 *    time (calibration ran before). An int8 Conv with one group runs as a
 *    byte dot product (vpdpbusd on AVX512-VNNI, 16-bit multiply-adds on
 *    AVX2): the input quantized to q + 128 in zp-padded planes of
 *    four-channel words (a stride's phase planes; a one-channel conv at
 *    stride 1: words of four columns against four taps of a row; a
 *    pointwise conv on bytes: the words of a few tiles' columns at a time,
 *    packed by the task that reads them; a 1x1 map: one vector), exact
 *    int32 sums less
 *    (zp + 128) * sum w (the same integers as below); a depthwise one at
 *    least 4 wide on AVX512-VNNI + VBMI + VBMI2 the same way with four taps of a row
 *    to a word. With AVX512-VNNI, VBMI and VBMI2 and an output grid (a Relu
 *    or Clip clamp and a chain's byte table included) both requantize in the
 *    tiles' registers ("fused requantization" in qkernels.c): the sums start
 *    at bias - (zp + 128) * sum w, one FMA puts them on a 2^-14 grid where q
 *    is read off the float's bits away from halves, the operations below
 *    near them; the same outputs and bytes as the epilogue, no sums in
 *    memory.
 *    Otherwise (or RT_QISA=float, see quant_isa) it centres its
 *    input to q - zp (depthwise and pointwise tasks their own part, others in
 *    one pass) and sums with int8-valued float weights packed once (AVX-512
 *    panels, implicit GEMM for stride 1). Then it adds the int32 bias, scales
 *    by s_in*s_w[c] (kept from prepare) and requantizes each output row while
 *    it is in cache (with an output grid, in float where that provably rounds
 *    alike, see quant_epilogue_row). Every other op runs its fp32 kernel in a
 *    wrapper that requantizes its outputs: Add, Sub, Mul, Div, Relu and Clip
 *    in the same register pass (the same 2^-14 grid, quant_ew_qdq), the unary ops block by block, the rest in one
 *    pass on the thread pool (a ConvTranspose whose kernel equals its stride
 *    requantizes each block of its GEMM in cache, qconvt.c: its float sums
 *    are not integer ones, so it keeps them); ops that only copy values
 *    already on the output's grid (same scale and zp) skip it. A layer's
 *    activation chain (SiLU, HardSwish, ...: elementwise nodes on its output
 *    and constants) is a function of the layer's int8 output value: it runs
 *    as a 256-entry table made by the chain's own ops, for each value found
 *    on that grid bit for bit (the ops themselves otherwise). A Slice of a
 *    Slice's output is one strided copy from the first one's input, then
 *    both requantizations (the executor's composed Slices); a byte Concat
 *    of such Slices whose bytes only int8 Convs read (YOLOX's Focus) makes
 *    them from the Slices' source row by row, one table lookup of the
 *    source's q where its values lie on its grid, and the Slices do not
 *    run. Work buffers
 *    are per thread and kept from run to run.
 *  - activations between int8 layers (docs/quant-activations.md): a tensor
 *    an int8 Conv reads also has bytes q + 128 (quant_bytes). In a private
 *    run (no hook, or a timing one) its producer writes them beside the
 *    floats from the same q: an int8 Conv's epilogue, an elementwise
 *    layer's requantization, a Concat from its inputs' bytes (a table per
 *    input on another grid), a nearest Resize gathering its input's. The Conv then reads the bytes instead of
 *    quantizing the floats, when its input grid is theirs bit for bit:
 *    requantizing a value dequantized on the same grid gives back its q
 *    (quant_grid_bytes_exact), so the numbers do not change. A tensor that
 *    only int8 Convs on one grid read gets no floats at all in such a run
 *    (a Concat then does not run). Runs with a hook (dumps, statistics,
 *    accuracy) write and read floats only.
 *  - fp16: weights, inputs and every float layer output are rounded to IEEE
 *    binary16 (round to nearest even); kernels accumulate in fp32.
 *  - calibration algorithms: normal = min/max over the dataset;
 *    kl_divergence = TensorRT-style entropy calibration with a threshold per
 *    side: over a 2048-bin histogram (exact zeros left out: 0 is exact on
 *    every grid), the edges [lo, hi] minimising KL(P||Q), P = the clipped
 *    histogram with outliers folded into its edge bins, Q = the in-range
 *    histogram merged into 255 levels and spread back over non-empty bins;
 *    searched by coordinate descent (upper edge, lower edge, upper again,
 *    every 4 bins); mmse = the candidate range (both sides shrunk by k/128,
 *    k = 128..16) minimising the mean squared quantization error over the
 *    same histogram. Tensors with fewer than 8 values per histogram bin over
 *    the dataset keep min/max. */
#ifndef RT_QUANT_H
#define RT_QUANT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "runtime/model/model.h"
#include "runtime/exec/exec.h"
#include "runtime/passes/passes.h"

/* ---- fp16 (fp16.c) ---- */
uint16_t quant_f32_to_f16(float f); /* round to nearest even */
float quant_f16_to_f32(uint16_t h);
void quant_round_f16(float *v, int64_t n); /* in place */

/* ---- int8 parameters (qparams.c) ---- */
enum quant_type { QT_FP32 = 0, QT_FP16 = 1, QT_I8 = 2 };
enum quant_algo { QA_NORMAL = 0, QA_KL = 1, QA_MMSE = 2 };
/* QM_NPU: the int8 arithmetic of the RV1103/RV1106 compiler's program as the
 * NPU runs it: weights asymmetric per output channel, requantization by 14-bit
 * per-channel multipliers and a 15-bit output scale, LeakyRelu's slope in 14
 * bits (npu_requant.c; docs/rknn-format.md "Execution on RV110x"). */
enum quant_method { QM_CHANNEL = 0, QM_LAYER = 1, QM_NPU = 2 };

typedef struct qparam {
    float min, max; /* the range the parameters were made from */
    float scale;
    int32_t zp;
} qparam_t;

/* Grids a and b are one bit for bit: the same scale and zero point (the
 * ranges they were made from aside). */
static inline int quant_same_grid(const qparam_t *a, const qparam_t *b)
{
    return !memcmp(&a->scale, &b->scale, sizeof(float)) && a->zp == b->zp;
}

/* Parameters for the range [min, max] (see the header comment). */
void quant_param_from_range(float min, float max, qparam_t *p);
/* Weights: the range [-maxabs, maxabs], zp 0 exactly, scale 2*maxabs/255. */
void quant_param_symmetric(float maxabs, qparam_t *p);
int8_t quant_q8(float x, const qparam_t *p);
float quant_dq8(int8_t q, const qparam_t *p);
/* out[i] = quant_dq8 of n bytes q + 128: the floats every producer writes
 * beside its bytes on grid p. */
void quant_dq8_bytes(const uint8_t *b, int64_t n, const qparam_t *p, float *out);
/* Quantize-dequantize n values in place. */
void quant_qdq(float *v, int64_t n, const qparam_t *p);
/* A chain's table (quant_lut_map's 256 floats) whose every value lies on one
 * int8 grid, bit for bit (float)(q - zp) * scale: the same table as bytes,
 * q + 128, and that grid. On AVX512-VBMI CPUs two byte permutes look up 16
 * values (lut512_get takes eight float permutes and seven blends). */
typedef struct quant_lut8 {
    uint8_t q[256];
    qparam_t grid;
} quant_lut8;
/* Fills t from lut and grid; 0 if some value of lut is not on grid. */
int quant_lut8_make(const float *lut, const qparam_t *grid, quant_lut8 *t);
/* An int8 layer's epilogue on n exact sums read from x, written to y (x == y:
 * in place): y = (float)((x + bias) * s) in double, then, when out is not
 * NULL, quantize-dequantize by out. With out and a table, y[i] = lut[q + 128]
 * instead of (q - zp) * scale: a table of out's 256 grid values
 * (quant_lut_map's), without reading them back; lut8, when not NULL, is lut
 * as bytes (the same results). With out and no table, q is clamped to [qlo,
 * qhi] (-128, 127: no clamp), a Relu or Clip on out's grid in the same pass:
 * the same as clamping the dequantized values to those of qlo and qhi, as
 * dequantization is monotonic. */
void quant_epilogue_row(const float *x, float *y, int64_t n, int32_t bias, double s,
                        const qparam_t *out, const float *lut, const quant_lut8 *lut8, int qlo,
                        int qhi);
/* The same on rows of n: row r from x + r * ldx to y + r * ldy, with
 * bias[r] (bias NULL: 0) and scale[r]; the constants of out and the tables
 * are set once for all rows. */
void quant_epilogue_rows(const float *x, int64_t ldx, float *y, int64_t ldy, int64_t rows,
                         int64_t n, const int32_t *bias, const double *scale,
                         const qparam_t *out, const float *lut, const quant_lut8 *lut8, int qlo,
                         int qhi);
/* An int8 activation as bytes: a value x = (q - zp) * scale of grid p
 * (float product) is also kept as the byte q + 128, so that the next int8
 * layer reads it without quantizing x again. Exact when
 * quant_grid_bytes_exact(p): scale in [2^-100, 2^100] keeps every such x a
 * normal float within 2^-24 relative of the true product, so x / scale is
 * within 255 * 2^-23 of q - zp and quant_q8(x, p) = q (any path: division or
 * product by 1 / scale), checked over all q and many grids by
 * test_quant_params. */
int quant_grid_bytes_exact(const qparam_t *p);
/* The grid of quant_epilogue_rows' outputs with out, lut, lut8 (out; lut8's
 * grid with a table), or NULL when they have none whose bytes are exact (a
 * float table without bytes, no out, a grid quant_grid_bytes_exact refuses). */
const qparam_t *quant_epilogue_byte_grid(const qparam_t *out, const float *lut,
                                         const quant_lut8 *lut8);
/* quant_epilogue_rows that also writes each output's byte q + 128 on
 * quant_epilogue_byte_grid's grid to b + r * ldb + i (when that grid is not
 * NULL; b NULL: none); from the same q as the float where it can. floats 0:
 * y need not be written where the bytes are (no one reads those floats). */
void quant_epilogue_rows_bytes(const float *x, int64_t ldx, float *y, int64_t ldy, int64_t rows,
                               int64_t n, const int32_t *bias, const double *scale,
                               const qparam_t *out, const float *lut, const quant_lut8 *lut8,
                               int qlo, int qhi, uint8_t *b, int64_t ldb, int floats);
/* dst[i] = tab[src[i]] for n bytes (byte permutes on AVX512-VBMI CPUs). */
void quant_bytes_map(const uint8_t *tab, const uint8_t *src, uint8_t *dst, int64_t n);
/* out[i] = quant_q8(x[i]) - zp, as float (an integer in [-255, 255]). */
void quant_q8_centered(const float *x, float *out, int64_t n, const qparam_t *p);
/* y = quantize-dequantize by p of: a op b (QEW_ADD .. QEW_DIV, one IEEE
 * operation), a > 0 ? a : 0 (QEW_RELU) or a < lo ? lo : (a > hi ? hi : a)
 * (QEW_CLIP), for n elements; sa / sb: 1 a full operand, 0 one value (x[0]).
 * y may be a or b. In one pass on AVX-512 CPUs: returns 0 when it did nothing
 * (the caller runs the op, then quant_qdq). */
enum { QEW_ADD, QEW_SUB, QEW_MUL, QEW_DIV, QEW_RELU, QEW_CLIP };
int quant_ew_qdq(int op, const float *a, int sa, const float *b, int sb, float lo, float hi,
                 float *y, int64_t n, const qparam_t *p);
/* The same, also writing each output's byte q + 128 to yb (not NULL; p must
 * pass quant_grid_bytes_exact) from the same q; floats 0: y need not be
 * written (no one reads it). */
int quant_ew_qdq_bytes(int op, const float *a, int sa, const float *b, int sb, float lo,
                       float hi, float *y, uint8_t *yb, int64_t n, const qparam_t *p,
                       int floats);
/* The same, with full operands (sa or sb 1) read from their bytes q + 128
 * on a grid where in->ab or in->bb is set, each value (q - zp) * scale (the
 * float its producer writes beside the byte); and with in->brow > 0 (sb 0),
 * b one value per row of brow elements, element i taking b[(in->bfirst +
 * i) / brow] (a channel's factor). yb may be NULL. */
typedef struct quant_ew_in {
    const uint8_t *ab, *bb;
    const qparam_t *ag, *bg;
    int64_t brow, bfirst;
} quant_ew_in;
int quant_ew_qdq_in(int op, const float *a, int sa, const float *b, int sb,
                    const quant_ew_in *in, float lo, float hi, float *y, uint8_t *yb, int64_t n,
                    const qparam_t *p, int floats);
/* y = t's entry at q + 128 of x + bias requantized by p, dequantized by t's
 * grid: quant_ew_qdq_bytes (QEW_ADD, one value), quant_bytes_map and
 * quant_dq8_bytes in one pass on AVX512-VBMI CPUs; 0 when it did nothing.
 * y may be x. */
int quant_add_lut8(const float *x, float bias, int64_t n, const qparam_t *p,
                   const quant_lut8 *t, float *y);
/* y[i] = lut[q + 128] for the values x[i] on p's grid, x[i] = (q - zp) * s bit
 * for bit (q in [-128, 127]), from the first on; returns how many were (n:
 * all). y may be x. */
int64_t quant_lut_map(const float *x, int64_t n, const qparam_t *p, const float *lut, float *y);
/* out[i] = q + 128 for the values x[i] on p's grid, x[i] = (q - zp) * s bit
 * for bit, from the first on; returns how many were (n: all). */
int64_t quant_grid_bytes(const float *x, int64_t n, const qparam_t *p, uint8_t *out);
/* Four channels' values as the bytes of one word: byte j of out[i] is
 * quant_q8(x[j][i]) + 128 for j < nch, zp + 128 (the grid's 0) for the rest. */
void quant_q8_quads(const float *const *x, int nch, int64_t n, const qparam_t *p, uint32_t *out);
/* rows of n values as bytes: out[r * ldo + i] = quant_q8(x[r * ldx + i]) + 128. */
void quant_q8_bytes(const float *x, int64_t rows, int64_t n, int64_t ldx, const qparam_t *p,
                    uint8_t *out, int64_t ldo);

/* Names for the CLI and the store; parse returns -1 if unknown. */
int quant_type_parse(const char *s);  /* "fp32" "fp16" "i8" (also "int8", "asymmetric_quantized-8") */
int quant_algo_parse(const char *s);  /* "normal" "kl_divergence" "mmse" */
int quant_method_parse(const char *s);/* "channel" "layer" */
const char *quant_type_name(int t);
const char *quant_algo_name(int a);
const char *quant_method_name(int m);

/* ---- range search over a histogram (calib.c) ----
 * hist: nbins counts over [lo, hi]. Returns the chosen range for algo. */
void quant_hist_range(const double *hist, int nbins, float lo, float hi, int algo, float *out_min,
                      float *out_max);
/* What calibration collects from a tensor of n values: *mn / *mx lowered /
 * raised to its finite values; hist (QUANT_HIST_BINS bins over [lo, hi), lo <
 * hi) counts each finite non-zero value in bin (int)((v - lo) * bins / (hi - lo))
 * (float difference, double product) clamped to the bins. */
#define QUANT_HIST_BINS 2048
void quant_min_max(const float *v, int64_t n, float *mn, float *mx);
void quant_hist_add(double *hist, const float *v, int64_t n, float lo, float hi);

/* ---- calibration images (image.c) ----
 * .png (libpng) and .jpg/.jpeg (libjpeg), chosen by the file extension:
 *  - decoded to 8-bit RGB (gray replicated; PNG alpha composited on black;
 *    16-bit PNG reduced to 8 bits; CMYK JPEG refused);
 *  - resize rule: always to the input's H x W, bilinear with half-pixel
 *    centres (src = (dst + 0.5) * in / out - 0.5, clamped to the edges), in
 *    float without rounding — OpenCV's INTER_LINEAR without its rounding;
 *  - channels: a 3-channel input takes R, G, B in that order; a 1-channel
 *    input takes the luma 0.299 R + 0.587 G + 0.114 B;
 *  - value = (pixel - mean[c]) / std[c], pixel in 0..255 (Toolkit2's
 *    mean_values/std_values; defaults mean 0, std 1);
 *  - the input must be 4-D [1,C,H,W] (NCHW, C = 1 or 3 in dim 1) or else
 *    [1,H,W,C] (C in dim 3).
 * .npy files are taken as they are (no mean/std). */
enum { QF_NPY = 0, QF_PNG = 1, QF_JPEG = 2 };
typedef struct quant_preproc {
    int n_mean, n_std;      /* values given (0: default) */
    float mean[4], std[4];  /* per channel (one value is broadcast) */
} quant_preproc;

void quant_preproc_init(quant_preproc *pp);
/* "--mean M|M0,M1,M2" and "--std S|S0,S1,S2" (either may be NULL). */
int quant_preproc_parse(const char *mean, const char *std, quant_preproc *pp, char *err,
                        size_t errlen);
/* The number of --mean/--std values must be 1 or the image input's channel
 * count: RT_EINVAL naming the input otherwise. Inputs that are not image-shaped
 * (see above) take no image and pass. */
int quant_preproc_check(const quant_preproc *pp, const tensor_t *t, char *err, size_t errlen);
/* QF_* from the extension (case-insensitive), -1 for anything else. */
int quant_file_kind(const char *path);
/* Fills out (tensor_numel(t) floats) from the image at path. */
int quant_image_load(const char *path, const tensor_t *t, const quant_preproc *pp, float *out,
                     char *err, size_t errlen);

/* ---- datasets (dataset.c) ----
 * dataset.txt: one sample per line, one file per model input separated by
 * spaces, in graph-input order; relative paths are relative to the dataset
 * file's folder; blank lines and lines starting with '#' are skipped.
 * Files: .npy (the input's dtype and element count: float32, or int64 for
 * token ids and masks), .png, .jpg/.jpeg (float32 inputs; see above). quant_dataset_load also checks that every file has one of
 * these extensions and exists, before any calibration starts. */
typedef struct quant_dataset {
    int n_samples, n_inputs;
    char **files; /* n_samples * n_inputs paths, row-major */
    quant_preproc pp; /* for the images (set by the caller; default: none) */
} quant_dataset;

int quant_dataset_parse(const char *text, size_t len, const char *base_dir, int n_inputs,
                        quant_dataset *out, char *err, size_t errlen);
int quant_dataset_load(const char *path, int n_inputs, quant_dataset *out, char *err,
                       size_t errlen);
void quant_dataset_free(quant_dataset *d);
/* Sample s (0-based) into bufs (one buffer of tensor_nbytes per graph input of
 * the prepared graph g): .npy files must hold the input's dtype and element
 * count (RT_ESHAPE naming the sample, file and shape); an image fills a float32
 * input only. */
int quant_dataset_sample(const quant_dataset *ds, int s, const graph_t *g, float *const *bufs,
                         char *err, size_t errlen);

/* ---- calibration (calib.c) ----
 * Runs the prepared fp32 graph g (with executor x) on every sample and returns,
 * per tensor index, the activation parameters (act[t], has[t] != 0 for every
 * float tensor produced by a layer or fed as a graph input). Samples come from
 * ds, or, when ds is NULL, from the single sample `inputs` (one buffer per
 * graph input). Inputs of another dtype than float32 (token ids, masks) are fed
 * as given: never quantized, no parameters. progress: a bar with ETA on stderr. */
int quant_calibrate(graph_t *g, exec_t *x, int algo, const quant_dataset *ds,
                    const void *const *inputs, int progress, qparam_t **act, uint8_t **has,
                    int *n_samples, char *err, size_t errlen);

/* ---- the quantized graph (qgraph.c) ----
 * Use on a freshly loaded graph (its own instance, not the golden one):
 *   quant_graph_new(g, type, method)        before passes_prepare: weights are
 *                                            quantized (or rounded to fp16) and
 *                                            their parameters kept;
 *   passes_prepare(g, ...)
 *   quant_graph_finish(q, act, has)          after: Conv/Gemm/MatMul switch to
 *                                            the int8 kernels, fused outputs
 *                                            are marked;
 *   quant_graph_output(q, t, data)           on every float layer output after
 *                                            its layer ran (and on the inputs):
 *                                            quantizes the values in place. */
typedef struct quant_graph {
    graph_t *g;
    int type, method;
    qparam_t *act;        /* per tensor (i8) */
    uint8_t *has_act;
    uint8_t *fused;       /* per tensor: left unquantized (fused into its activation) */
    qparam_t **wparam;    /* per tensor: weight parameters (per channel) or NULL */
    int *wparam_n;        /* number of channels of wparam[t] */
    int *wparam_axis;
    int n_int8_nodes;     /* nodes running an int8 kernel */
    int n_npu_requant;    /* QM_NPU: convs given the NPU's requantization */
    int n_alloc;          /* size of the per-tensor arrays */
    uint8_t *node_fp16;   /* per node: kept in fp16 by a hybrid file */
    uint8_t *t_fp16;      /* per tensor: output of such a node */
    int n_nodes_alloc, n_fp16_nodes;
    struct quant_bytes **bytes; /* per tensor: its bytes beside its floats, or NULL
                                   (tensors an int8 conv on bytes reads) */
    unsigned char *bytes_pool;  /* the block every slot's bytes lie in (bytes_place) */
} quant_graph;

int quant_graph_new(graph_t *g, int type, int method, quant_graph **out, char *err,
                    size_t errlen);
/* Nodes (not folded) reading tensor t; *only: the last of them. */
int quant_consumers(const graph_t *g, int t, int *only);
/* Axis of the output channel in the weight tensor w (input 1) of node n. */
int quant_weight_axis(const node_t *n, const tensor_t *w);
/* The same with a hybrid file (NULL: none): the layers named in its
 * custom_quantize_layers (by output tensor) keep fp16 weights, run their float
 * kernel and round their outputs to fp16. A name that is no tensor of the
 * model is an error (RT_EFORMAT). quantize_parameters are applied by
 * quant_cfg_apply. */
struct quant_cfg;
int quant_graph_new_hybrid(graph_t *g, int type, int method, const struct quant_cfg *cfg,
                           quant_graph **out, char *err, size_t errlen);
/* has[t]: 0 no parameters (the tensor stays float), QP_HAS_CALIB calibrated or
 * from a cfg, QP_HAS_MODEL the model's own grid (a pre-quantized model): such
 * a tensor is requantized where the model does it, so a following
 * Relu/Clip/LeakyRelu is not fused over it. */
enum { QP_HAS_CALIB = 1, QP_HAS_MODEL = 2 };
int quant_graph_finish(quant_graph *q, const qparam_t *act, const uint8_t *has, char *err,
                       size_t errlen);
/* QM_NPU, from quant_graph_finish: each Conv (with the LeakyRelu or Relu
 * fused after it) computes the NPU conv task's integers and writes them on
 * its output grid (counted in q->n_npu_requant). */
int quant_npu_requant(quant_graph *q, char *err, size_t errlen);
void quant_graph_output(const quant_graph *q, int t, float *data);
/* How quant_graph_output treats tensor t: "asymmetric_quantized-8" (its
 * parameters in *p), "float16", or NULL (left float). */
const char *quant_graph_tensor_qtype(const quant_graph *q, int t, qparam_t *p);
void quant_graph_free(quant_graph *q);
/* Where the stock kernel of node n finds its priv when it runs: &n->priv, or for a node
 * the quantized graph wraps (n->wraps set) the wrapper's saved one. A custom node's
 * hook goes there (runtime/api binds registered ops after the graph is quantized). */
void **quant_node_kernel_priv(node_t *n);

/* ---- hybrid quantization file (qcfg.c) ----
 * RKNN-Toolkit2's `*.quantization.cfg` layout, the YAML subset it writes:
 *   custom_quantize_layers:            (or "custom_quantize_layers: {}")
 *       <tensor>: float16              layer producing <tensor> kept in fp16
 *   quantize_parameters:
 *       <tensor>:
 *           qtype: asymmetric_quantized
 *           qmethod: layer|channel
 *           dtype: int8
 *           min: [..] | block list "- v"   max: ...   scale: ...   zero_point: ...
 * Keys may be quoted ('..' or ".."); '#' comments; other fields are ignored.
 * quantize_parameters of activations (one scale and zero point, or min/max)
 * replace the calibrated ones; a weight's entry (one per output channel or one,
 * zero points as the vendor's compiler gives them) puts the weight on that
 * grid instead of ours (symmetric, zero point 0). */
typedef struct quant_cfg_param {
    char *name;
    double *min, *max, *scale, *zp;
    int n_min, n_max, n_scale, n_zp;
} quant_cfg_param;

typedef struct quant_cfg {
    int n_fp16;
    char **fp16;            /* tensor names of the fp16 layers */
    int n_params;
    quant_cfg_param *params;
} quant_cfg;

int quant_cfg_parse(const char *text, size_t len, quant_cfg *c, char *err, size_t errlen);
int quant_cfg_load(const char *path, quant_cfg *c, char *err, size_t errlen);
void quant_cfg_free(quant_cfg *c);
/* The entry of tensor name, or NULL (also when c is NULL). */
const quant_cfg_param *quant_cfg_find(const quant_cfg *c, const char *name);
/* One (scale, zp) for a per-layer entry; -1 for a per-channel one. */
int quant_cfg_param_get(const quant_cfg_param *p, qparam_t *out);
/* Writes the graph's parameters (activations and weights) and its fp16 layers. */
int quant_cfg_write(const quant_graph *q, const char *path, char *err, size_t errlen);

/* A tensor's int8 values as bytes beside its floats, from an int8 Conv to the
 * int8 Convs that read it on byte quads (qgraph.c, qkernels.c): written in a
 * private run (op_ctx.private_run) by the Conv's epilogue from the same q as
 * each float, valid from then until its producer runs again; the reader
 * takes them only when its input grid is the bytes' grid bit for bit, where
 * they are the bytes it would have made (quant_grid_bytes_exact). */
typedef struct quant_bytes {
    uint8_t *q;           /* q + 128, the tensor's layout */
    int64_t n;
    qparam_t grid;        /* the floats' grid: (q - zp) * scale */
    int valid;            /* written by this run's producer (or, when it wrote
                             none, from its floats by a byte Concat reading them) */
    /* every reader is an int8 Conv with input grid rgrid, or a byte Concat
     * that never runs its float kernel (rgrid: the tensor's own grid), and
     * the tensor is no graph output: bytes on rgrid leave its floats unread
     * in a private run, and the producer may skip them */
    int only_bytes;
    qparam_t rgrid;
} quant_bytes;

/* MaxPool on bytes (qpool.c): 1 when window w (2-D, up to 3 taps an axis)
 * has an input element in every window, which quant_maxpool_bytes needs.
 * That writes the maxima of planes x (N * C of them) to y, and with yf
 * their floats on grid too. */
int quant_maxpool_bytes_ok(const node_window *w);
/* Every window of w holds an input element (none lies in padding alone,
 * where a max is -inf, off every grid). */
int quant_window_covered(const node_window *w);
/* GlobalAveragePool on bytes (qpool.c): the means of planes x (n bytes
 * each on grid) to y, the very floats the fp32 kernel gives for their
 * values (q - zp) * scale. */
void quant_gap_bytes(op_ctx *c, const uint8_t *x, int64_t planes, int64_t n, const qparam_t *grid,
                     float *y);
void quant_maxpool_bytes(op_ctx *c, const node_window *w, int64_t planes, const uint8_t *x,
                         uint8_t *y, float *yf, const qparam_t *grid);

/* b's bytes when this private run's producer wrote them, n of them, on grid
 * bit for bit (the very bytes quantizing its floats on grid would give),
 * else NULL. */
const uint8_t *quant_bytes_of_run(const op_ctx *ctx, const quant_bytes *b, int64_t n,
                                  const qparam_t *grid);

/* ---- int8 kernels (qkernels.c), used by quant_graph_finish ----
 * Op definitions whose run() reads node->priv (a quant_node). Exposed for tests. */
typedef struct quant_node {
    qparam_t in;          /* input activation parameters */
    int n_ch;             /* output channels */
    float *wscale;        /* per output channel (n_ch entries, equal when per layer) */
    double *oscale;       /* Conv: in.scale * wscale[c] (exact in double), per channel */
    void *geom;           /* Conv: its geometry (qkernels.c), read once */
    int8_t *w;            /* weights, layout of the ONNX weight tensor */
    int32_t *bias;        /* int32 bias at scale in.scale * wscale[c], or NULL */
    int wide;             /* accumulate in int64 (K too large for int32) */
    float *wf;            /* Conv: the int8 weights as floats, [M][K] */
    float *wpack;         /* the same packed for gemm512_run per group, or NULL */
    qparam_t out;         /* Conv: the output's parameters, applied in the */
    int out_q;            /* epilogue while the rows are in cache (out_q != 0) */
    size_t wpack_group;   /* floats per group in wpack */
    double *wd;           /* Conv, when float sums could round: as doubles */
    int32_t *wq;          /* Conv on AVX512-VNNI: weights as byte quads (qkernels.c), */
    int32_t *wsum;        /* the sum of each output channel's weights, */
    int32_t *wrow;        /* (depthwise, wq_dw: and of each kernel row's, M x KH) */
    int64_t wq_k;         /* and the quad rows per channel; or NULL, 0 */
    int wq_dw;            /* wq holds a depthwise conv's tap quads (qkernels.c) */
    int wq_tap;           /* wq holds a one-channel conv's quads of 4 taps of a row */
    int wq_vcols;         /* and of its last wq_vcols kernel columns, 4 taps of a column */
    int32_t *epi_init;    /* with wq: per channel, the fused requantization's sum */
    float *epi_cf;        /* start and scale; [M]: the output scale they are for */
    int epi_ok;           /* every bias and scale in range (qkernels.c, epi_start) */
    void *orig_priv;      /* the fp32 kernel's prepared state, released with it */
    const op_def *orig_def;
    /* Conv, set by a fused chain's run (qgraph.c) for that run: each finished
     * part of the output (final values, still in cache) is handed to post,
     * on the pool's threads */
    void (*post)(const void *arg, float *y, int64_t n);
    const void *post_arg;
    const float *lut;     /* ... or, with an output grid, quant_epilogue_row's table */
    const quant_lut8 *lut8; /* and that table as bytes, or NULL; */
    int lut_ch;           /* one table (and lut8) per output channel, 256 floats each */
    int clamp;            /* ... or, with an output grid, post clamps q to [qlo, qhi], */
    int8_t qlo, qhi;      /* which the epilogue may do itself (quant_epilogue_row) */
    quant_bytes *ob;      /* Conv: the bytes of the tensor it writes (set per run), */
    const quant_bytes *ib;/* those of its input, read on the byte paths; or NULL */
    uint8_t *ob_run;      /* ob->q while this run writes them (qconv_run), else NULL, */
    const float *y_run;   /* and the output's floats that they shadow, */
    int no_floats;        /* which it need not write (quant_bytes.only_bytes) */
} quant_node;

extern const op_def quant_op_conv, quant_op_gemm, quant_op_matmul;
/* The integer path of one-group convs: QISA_VNNI byte dot products
 * (vpdpbusd, AVX512-VNNI), QISA_AVX2 the same byte products by 16-bit
 * multiply-adds, QISA_FLOAT the float GEMM of centred values (im2col, the
 * packed AVX-512 or BLAS GEMM); every path gives the same integer sums, so
 * the same outputs bit for bit. quant_isa() is the path the next run takes:
 * the best the CPU has, or the one asked for by RT_QISA=vnni|avx2|float
 * (read once) or quant_isa_force (QISA_AUTO: back to the best), lowered to
 * what the CPU has. Weights are packed for the byte paths when a graph is
 * prepared on a CPU with AVX2, whatever is forced. */
enum { QISA_AUTO = 0, QISA_FLOAT = 1, QISA_AVX2 = 2, QISA_VNNI = 3 };
int quant_isa(void);
int quant_isa_force(int isa); /* returns quant_isa() after the change */
/* 1 when the CPU has every AVX-512 subset of the byte paths (F, DQ, BW, VL,
 * VNNI, VBMI, VBMI2: the byte epilogues and tiles, the byte tables); without
 * one, other paths give the same numbers and write the floats too. */
int quant_byte_paths(void);
/* Gemm/MatMul node q with int8 weights w [K][N]: packs them as byte quads
 * along K for vpdpbusd on AVX512-VNNI CPUs (nothing elsewhere); used by
 * quant_graph_finish. */
void quant_mm_pack(quant_node *q, int64_t K, int64_t N);
/* Non-zero if Conv node n is 2-D with shapes the int8 kernel handles. */
int quant_conv_supported(graph_t *g, const node_t *n);
/* Stores Conv node n's geometry in q (its shapes are final). */
void quant_conv_keep_geometry(graph_t *g, const node_t *n, quant_node *q);

/* ---- ConvTranspose (qconvt.c) ----
 * A ConvTranspose whose kernel equals its stride (no padding, dilation or
 * groups, 2-D) on a CPU with AVX-512: the fp32 kernel's floats (the same GEMM
 * calls on the same packed weights and row blocks), each block requantized
 * by p while it is in cache before it is scattered to y: the numbers of the
 * fp32 kernel followed by quant_qdq. NULL from quant_convt_new: another
 * ConvTranspose, which runs its fp32 kernel and is requantized after. */
typedef struct quant_convt quant_convt;
quant_convt *quant_convt_new(graph_t *g, const node_t *n);
/* 1 when done; 0 when x and y are not of the shapes k was made for. xb (or
 * NULL): x's values as bytes q + 128 on grid xg, read instead of its floats
 * (the same values, (q - zp) * scale). lut (or NULL): a fused chain's table
 * of p's grid (quant_lut_map), one for all output channels (lut_n 1) or one
 * per channel (lut_n = M, 256 floats apart), applied to each block before it
 * is scattered: y gets the chain's output; lut8 (or NULL): those tables as
 * bytes, looked up by byte instead (the same values). ob (or NULL): y's
 * bytes, written in a private run when every row has a byte table (lut8,
 * on one grid) or there is no table (then on p), and valid then; y's floats
 * are left out when ob->only_bytes on that grid. */
int quant_convt_run(op_ctx *c, const quant_convt *k, const tensor_t *x, const uint8_t *xb,
                    const qparam_t *xg, tensor_t *y, const qparam_t *p, const float *lut,
                    const quant_lut8 *lut8, int64_t lut_n, quant_bytes *ob);
void quant_convt_free(quant_convt *k);

/* ---- pre-quantized ONNX models (prequant.c) ----
 * A QDQ model (QuantizeLinear/DequantizeLinear with constant scale and zero
 * point, as QAT exports and onnxruntime's quantizer write) is simulated with
 * its own parameters:
 *  - quant_prequant_strip, on a freshly loaded graph (before passes), makes the
 *    dequantized fp32 graph: each activation Q->DQ pair (per tensor, int8 or
 *    uint8, the DQ with the Q's values) is removed, the tensor flowing through
 *    in fp32, its (scale, zp) recorded (uint8: q_int8 = q_uint8 - 128, zp -
 *    128); each DequantizeLinear of a constant (per tensor or per axis) is
 *    folded into an fp32 constant ((q - zp) * scale in float, as ONNX), int8/
 *    uint8 weights keeping their grid (scales, zp) for the int8 kernels;
 *  - quant_prequant_weights, after quant_graph_new: the weights get back the
 *    model's own values and scales (not re-quantized; a grid the simulator's
 *    kernels cannot take — weight zp != 0, per-axis along another axis than
 *    the output channel — keeps the simulator's re-quantization);
 *  - quant_prequant_acts, after passes_prepare: the recorded parameters fix
 *    those tensors; data-movement ops (Flatten, Reshape, Transpose, Squeeze,
 *    Unsqueeze, Identity, MaxPool, Slice) pass their input's parameters on.
 *    Other tensors keep calibrated parameters when calibrated != 0 (a dataset)
 *    and are otherwise left in float, as onnxruntime runs the model.
 * QOperator models (QLinearConv, QLinearMatMul, QLinearAdd/Mul, QLinear
 * GlobalAveragePool/Sigmoid/LeakyRelu) are first rewritten into DQ -> float op
 * -> Q, then take the same path; quant_prequant_detect reports QP_QOPERATOR
 * only when some node cannot be rewritten (ConvInteger, MatMulInteger, ...),
 * and such models run in fp32 mode only. */
enum { QP_NONE = 0, QP_QDQ = 1, QP_QOPERATOR = 2 };
typedef struct quant_prequant_w {
    char *name;
    int n, axis;          /* n scales (1: per tensor) along axis */
    qparam_t *p;          /* int8 convention (uint8 weights: zp - 128) */
    float *data;          /* the dequantized values */
    int64_t numel;
} quant_prequant_w;

typedef struct quant_prequant {
    int n_act;
    char **act_name;
    qparam_t *act;
    int n_w;
    quant_prequant_w *w;
    int n_pairs, n_folded; /* Q->DQ pairs removed, constant DQs folded */
} quant_prequant;

/* QP_QOPERATOR if a QOperator op cannot be rewritten, else QP_QDQ if any Q/DQ
 * or rewritable QOperator op with constant
 * scale/zp, else QP_NONE; *op names the first QOperator op (may be NULL). */
int quant_prequant_detect(const graph_t *g, const char **op);
int quant_prequant_strip(graph_t *g, quant_prequant *pq, char *err, size_t errlen);
/* Number of weights given their own grid. */
int quant_prequant_weights(const quant_prequant *pq, quant_graph *q);
/* Returns the number of tensors whose parameters came from the model. */
int quant_prequant_acts(const quant_prequant *pq, const graph_t *g, qparam_t *act, uint8_t *has,
                        int calibrated);
void quant_prequant_free(quant_prequant *pq);

#endif
