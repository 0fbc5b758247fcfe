/* tests/samples/sample_custom_op_shapes.c — a custom op in a model with a free batch dim
 * (x: [n, 4] -> cstSigmoid alpha -> y): registered after rknn_init, then
 * rknn_set_input_shapes to [ROWS, 4]; prepare must see the new shape and compute run on
 * it. Input: ROWS x 4 float32 file; writes the output the same way.
 *
 *   sample_custom_op_shapes MODEL ROWS INPUT.f32 OUTPUT.f32 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"
#include "rknn_custom_op.h"

static int sig_prepare(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *inputs, uint32_t n_inputs,
                       rknn_custom_op_tensor *outputs, uint32_t n_outputs)
{
    printf("prepare: %u elements\n", inputs[0].attr.n_elems);
    return 0;
}

static int sig_compute(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *inputs, uint32_t n_inputs,
                       rknn_custom_op_tensor *outputs, uint32_t n_outputs)
{
    rknn_custom_op_attr a;
    const float *x = inputs[0].mem.virt_addr;
    float *y = outputs[0].mem.virt_addr;
    float alpha;

    rknn_custom_op_get_op_attr(op_ctx, "alpha", &a);
    alpha = a.n_elems == 1 ? *(const float *)a.data : 1.0f;
    for (uint32_t i = 0; i < outputs[0].attr.n_elems; i++)
        y[i] = 1.0f / (1.0f + expf(-alpha * x[i]));
    return 0;
}

int main(int argc, char **argv)
{
    rknn_context ctx = 0;
    rknn_custom_op op;
    rknn_tensor_attr attr;
    rknn_input in;
    rknn_output out;
    float *x = NULL;
    FILE *f;
    int rows, ret = 1;

    if (argc < 5 || (rows = atoi(argv[2])) < 1) {
        fprintf(stderr, "usage: %s MODEL ROWS INPUT.f32 OUTPUT.f32\n", argv[0]);
        return 1;
    }
    if (rknn_init(&ctx, argv[1], 0, 0, NULL) < 0)
        return 1;
    memset(&op, 0, sizeof(op));
    op.target = RKNN_TARGET_TYPE_CPU;
    snprintf(op.op_type, sizeof(op.op_type), "cstSigmoid");
    op.prepare = sig_prepare;
    op.compute = sig_compute;
    memset(&attr, 0, sizeof(attr));
    attr.index = 0;
    attr.n_dims = 2;
    attr.dims[0] = (uint32_t)rows;
    attr.dims[1] = 4;
    attr.type = RKNN_TENSOR_FLOAT32;
    attr.fmt = RKNN_TENSOR_UNDEFINED;
    x = calloc((size_t)rows * 4, sizeof(float));
    if (!x || rknn_register_custom_ops(ctx, &op, 1) < 0 || rknn_set_input_shapes(ctx, 1, &attr) < 0)
        goto out;
    if (!(f = fopen(argv[3], "rb")))
        goto out;
    if (fread(x, sizeof(float), (size_t)rows * 4, f) != (size_t)rows * 4) {
        fclose(f);
        goto out;
    }
    fclose(f);
    memset(&in, 0, sizeof(in));
    in.type = RKNN_TENSOR_FLOAT32;
    in.fmt = RKNN_TENSOR_UNDEFINED;
    in.buf = x;
    in.size = (uint32_t)rows * 4 * sizeof(float);
    if (rknn_inputs_set(ctx, 1, &in) < 0 || rknn_run(ctx, NULL) < 0)
        goto out;
    memset(&out, 0, sizeof(out));
    out.want_float = 1;
    if (rknn_outputs_get(ctx, 1, &out, NULL) < 0)
        goto out;
    if ((f = fopen(argv[4], "wb"))) {
        ret = fwrite(out.buf, 1, out.size, f) == out.size && out.size == in.size ? 0 : 1;
        fclose(f);
    }
    rknn_outputs_release(ctx, 1, &out);
out:
    free(x);
    rknn_destroy(ctx);
    return ret;
}
