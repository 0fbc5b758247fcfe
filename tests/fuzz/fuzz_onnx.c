/* tests/fuzz/fuzz_onnx.c — fuzz target: bytes -> ONNX import -> passes_prepare.
 * Any status is fine; a crash, a sanitizer report or a leak is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "runtime/model/model.h"
#include "runtime/passes/passes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input_shape_t *shapes;
    graph_t *g = NULL;
    char err[512];
    int i, j;

    if (model_load_onnx(data, size, &g, err, sizeof(err)) != 0)
        return 0;
    /* 1 for every dynamic dim, so that passes get as far as they can */
    shapes = calloc((size_t)g->n_inputs + 1, sizeof(*shapes));
    for (i = 0; i < g->n_inputs; i++) {
        const tensor_t *t = &g->t[g->inputs[i]];

        shapes[i].name = t->name;
        shapes[i].ndim = t->ndim < 0 ? 1 : t->ndim;
        for (j = 0; j < shapes[i].ndim; j++)
            shapes[i].dims[j] = t->ndim < 0 || t->dims[j] < 0 ? 1 : t->dims[j];
    }
    passes_prepare(g, shapes, g->n_inputs, err, sizeof(err));
    free(shapes);
    graph_free(g);
    return 0;
}
