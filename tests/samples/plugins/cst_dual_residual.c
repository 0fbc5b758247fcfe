/* tests/samples/plugins/cst_dual_residual.c — the custom op of the SDK's custom-op demo
 * (rknpu2/examples/rknn_custom_op_demo/rknn_custom_pytorch_op_demo, op type
 * "cstDualResidual") as a plugin library for `rknn-trace run FILE.rknn --emulate
 * --custom-op`: y0 = alpha x0 - x1, y1 = alpha x1 - x0 with alpha the node's float
 * attribute, the formula the demo's own compute callback applies to float32 tensors.
 * Built by tests/samples/sdk_custom_op.sh: cc -shared -fPIC -Iinclude. */
#include <stdint.h>

#include "rknn_custom_op.h"

static float *data(rknn_custom_op_tensor *t)
{
    return (float *)(void *)((char *)t->mem.virt_addr + t->mem.offset);
}

static int dual_residual(rknn_custom_op_context *ctx, rknn_custom_op_tensor *in, uint32_t n_in,
                         rknn_custom_op_tensor *out, uint32_t n_out)
{
    rknn_custom_op_attr a;
    float alpha;

    if (n_in != 2 || n_out != 2 || in[0].attr.type != RKNN_TENSOR_FLOAT32 ||
        in[0].attr.n_elems != out[0].attr.n_elems || in[1].attr.n_elems != out[1].attr.n_elems)
        return -1;
    rknn_custom_op_get_op_attr(ctx, "alpha", &a);
    if (a.n_elems != 1 || a.dtype != RKNN_TENSOR_FLOAT32)
        return -1; /* the demo's file has it */
    alpha = ((const float *)a.data)[0];
    const float *x0 = data(&in[0]), *x1 = data(&in[1]);
    float *y0 = data(&out[0]), *y1 = data(&out[1]);
    for (uint32_t i = 0; i < out[0].attr.n_elems; i++) {
        y0[i] = x0[i] * alpha - x1[i];
        y1[i] = x1[i] * alpha - x0[i];
    }
    return 0;
}

static rknn_custom_op op = {.op_type = "cstDualResidual", .target = RKNN_TARGET_TYPE_CPU,
                            .compute = dual_residual};

rknn_custom_op *get_rknn_custom_op(void)
{
    return &op;
}
