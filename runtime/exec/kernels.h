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
extern const op_def exec_ops_binary[];   /* ops_binary.c: Add Sub Mul Div Pow Equal Where PRelu ... */
extern const op_def exec_ops_unary[];    /* ops_unary.c: Relu Sigmoid Exp Erf Clip HardSwish ... */
extern const op_def exec_ops_shape[];    /* ops_shape.c: Reshape Flatten Squeeze Unsqueeze Shape Size
                                            ConstantOfShape Cast Identity Dropout Range */
extern const op_def exec_ops_layout[];   /* ops_layout.c: Concat Split Slice Transpose Gather
                                            Expand Tile Pad */
extern const op_def exec_ops_resize[];   /* ops_resize.c: Resize Upsample */
extern const op_def exec_ops_reduce[];   /* ops_reduce.c: Reduce* ArgMax Softmax */

/* ---- shared helpers (kernel_util.c) ---- */

/* Sets dtype and shape of a tensor. */
void tensor_set_shape(tensor_t *t, int dtype, int ndim, const int64_t *dims);
/* Element i of an integer tensor (int8..int64, uint8.., bool) as int64. */
int64_t tensor_get_int(const tensor_t *t, int64_t i);
/* Element i of any numeric tensor as double. */
double tensor_get_f64(const tensor_t *t, int64_t i);

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
/* Product of d[from..to). */
int64_t dims_prod(const int64_t *d, int from, int to);

#endif
