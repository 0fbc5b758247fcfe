/* runtime/passes/passes.h — graph transformations between import and execution.
 *
 * passes_prepare() is what every caller runs after loading:
 *   0. widen a float16 model's tensors to float32 (passes_widen_fp16),
 *   1. fix dynamic input dims from the caller's shapes,
 *   2. resolve each node's op (unsupported op => error naming op and node),
 *   3. infer shapes in topological order, folding every node whose inputs are
 *      all constant (this folds PyTorch's Shape->Gather->Concat->Reshape chains),
 *   4. fold inference BatchNormalization into the Conv before it,
 *   5. let ops prepare (weight packing). */
#ifndef RT_PASSES_H
#define RT_PASSES_H

#include <stddef.h>
#include <stdint.h>
#include "runtime/model/model.h"

typedef struct input_shape {
    const char *name;               /* graph input name */
    int ndim;
    int64_t dims[MODEL_MAX_DIMS];
} input_shape_t;

int passes_prepare(graph_t *g, const input_shape_t *shapes, int n_shapes,
                   char *err, size_t errlen);

/* Step 0 on its own: in a graph with float16 weights, float16 tensors
 * (constants converted exactly), Casts to float16 and ConstantOfShape's
 * float16 value become float32; returns how many were widened, 0 for a graph
 * without float16 constants, which keeps its types (widen_fp16.c). */
int passes_widen_fp16(graph_t *g);

/* Step 4 on its own: returns how many BatchNormalization nodes were folded
 * (marked folded; their Conv now produces their output tensor). */
int passes_fold_batchnorm(graph_t *g);

#endif
