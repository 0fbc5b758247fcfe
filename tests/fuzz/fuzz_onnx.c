/* tests/fuzz/fuzz_onnx.c — fuzz target: bytes -> ONNX import -> passes_prepare
 * -> the kernels. Graphs whose tensors stay small (RUN_MAX_BYTES in all) run
 * once, single-threaded, on inputs made from the fuzz bytes: small floats,
 * small integers (negative and out-of-range indices among them); a prepared
 * graph is also lowered and costed for the NPU as `run` does (npu_fuse.c's
 * rewrites, npu_lower.c: rk3588 float16, rk3566 int8). The model is read as
 * if from a file in tests/fuzz/data/onnx_ext (the fuzzers run from the
 * repository's root), whose mnist.data the ext_* seeds keep their weights
 * in: external data locations, offsets and lengths are fuzzed too, and the
 * same bytes go through model_onnx_inline (build's container). Any status is
 * fine; a crash, a sanitizer report or a leak is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/exec/exec.h"
#include "runtime/model/model.h"
#include "runtime/passes/passes.h"
#include "runtime/npu/npu.h"

#define RUN_MAX_BYTES ((size_t)1 << 20)
#define EXT_DIR "tests/fuzz/data/onnx_ext"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every value of graph input t from the bytes, cycled. */
static void fill_input(const tensor_t *t, void *buf, const uint8_t *data, size_t size)
{
    int64_t n = tensor_numel(t);
    for (int64_t i = 0; i < n; i++) {
        uint8_t b = size ? data[(size_t)i % size] : (uint8_t)i;
        switch (t->dtype) {
        case DT_FLOAT: ((float *)buf)[i] = (float)(int8_t)b / 32.0f; break;
        case DT_DOUBLE: ((double *)buf)[i] = (double)(int8_t)b / 32.0; break;
        case DT_INT64: ((int64_t *)buf)[i] = (int64_t)(b % 8) - 2; break;
        case DT_INT32: ((int32_t *)buf)[i] = (int32_t)(b % 8) - 2; break;
        case DT_BOOL: ((uint8_t *)buf)[i] = b & 1; break;
        default: memset((char *)buf + (size_t)i * dtype_size(t->dtype), b, dtype_size(t->dtype));
        }
    }
}

/* All tensors known and their bytes together within the cap. */
static int small_enough(const graph_t *g)
{
    size_t total = 0;
    for (int i = 0; i < g->n_t; i++) {
        const tensor_t *t = &g->t[i];
        int64_t n = tensor_numel(t);
        if (t->dtype == DT_STRING || n < 0 || n > (int64_t)RUN_MAX_BYTES)
            return 0;
        total += tensor_nbytes(t);
        if (total > RUN_MAX_BYTES)
            return 0;
    }
    return 1;
}

static void run_kernels(graph_t *g, const uint8_t *data, size_t size)
{
    exec_opts eo = {.nthreads = 1};
    exec_t *x = NULL;
    char err[512];

    if (!small_enough(g) || exec_create(g, &eo, &x, err, sizeof(err)) != 0)
        return;
    for (int j = 0; j < g->n_inputs; j++) {
        const tensor_t *t = &g->t[g->inputs[j]];
        size_t nb = tensor_nbytes(t);
        void *buf = calloc(1, nb ? nb : 1);
        fill_input(t, buf, data, size);
        int rc = exec_set_input(x, j, buf, nb, err, sizeof(err));
        free(buf);
        if (rc)
            goto out;
    }
    exec_run(x, NULL, NULL, err, sizeof(err));
out:
    exec_free(x);
}

/* The NPU prediction of a prepared graph, as `run` makes it; an error says why. */
static void predict(const graph_t *g, const char *chip, int dtype)
{
    npu_session_opts so = {.plat = npu_platform_find(chip), .dtype = dtype};
    npu_session_t *s = NULL;
    char err[512] = "";

    if (npu_session_open(g, &so, &s, NULL, err, sizeof(err)) != 0) {
        if (!err[0])
            abort();
        return;
    }
    npu_session_close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input_shape_t *shapes;
    graph_t *g = NULL;
    char err[512];
    int i, j;

    void *whole = NULL;
    size_t wlen;
    if (model_onnx_inline(data, size, EXT_DIR, &whole, &wlen, err, sizeof(err)) == 0)
        free(whole);
    if (model_load_onnx_dir(data, size, EXT_DIR, &g, err, sizeof(err)) != 0)
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
    if (passes_prepare(g, shapes, g->n_inputs, err, sizeof(err)) == 0) {
        predict(g, "rk3588", DT_FLOAT16);
        predict(g, "rk3566", DT_INT8);
        run_kernels(g, data, size);
    }
    free(shapes);
    graph_free(g);
    return 0;
}
