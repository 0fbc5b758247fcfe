/* tests/samples/plugins/cst_sigmoid.c — a custom-op plugin library as the SDK's
 * rknn_server loads one for connected-board accuracy analysis: it exports
 * get_rknn_custom_op(), which returns the CPU op "cstSigmoid" (y = 1 / (1 + e^(-alpha x)),
 * alpha the node's float attribute read with rknn_custom_op_get_op_attr in init), the
 * same callbacks sample_custom_op registers with rknn_register_custom_ops.
 * `rknn-trace build -q i8 --custom-op libcst_sigmoid.so` calibrates through it.
 * Built by tests/samples/run.sh: cc -shared -fPIC -Iinclude (rknn_custom_op.h only). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_custom_op.h"

typedef struct sigmoid_state {
    float alpha;
} sigmoid_state;

static int sigmoid_init(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *inputs, uint32_t n_inputs,
                        rknn_custom_op_tensor *outputs, uint32_t n_outputs)
{
    rknn_custom_op_attr a;
    sigmoid_state *s = calloc(1, sizeof(*s));

    if (!s || n_inputs != 1 || n_outputs != 1) {
        free(s);
        return -1;
    }
    rknn_custom_op_get_op_attr(op_ctx, "alpha", &a);
    if (a.n_elems != 1 || a.dtype != RKNN_TENSOR_FLOAT32) { /* the model has it: a must */
        free(s);
        return -1;
    }
    s->alpha = *(const float *)a.data;
    op_ctx->priv_data = s;
    return 0;
}

static int sigmoid_compute(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *inputs,
                           uint32_t n_inputs, rknn_custom_op_tensor *outputs, uint32_t n_outputs)
{
    const sigmoid_state *s = op_ctx->priv_data;
    const float *x = (const float *)((char *)inputs[0].mem.virt_addr + inputs[0].mem.offset);
    float *y = (float *)((char *)outputs[0].mem.virt_addr + outputs[0].mem.offset);

    if (!s || inputs[0].attr.type != RKNN_TENSOR_FLOAT32 ||
        outputs[0].attr.type != RKNN_TENSOR_FLOAT32)
        return -1;
    for (uint32_t i = 0; i < outputs[0].attr.n_elems; i++)
        y[i] = 1.0f / (1.0f + expf(-s->alpha * x[i]));
    return 0;
}

static int sigmoid_destroy(rknn_custom_op_context *op_ctx)
{
    free(op_ctx->priv_data);
    op_ctx->priv_data = NULL;
    return 0;
}

static rknn_custom_op user_op;

/* One op per library, as the SDK's plugins define it. */
RKNN_CUSTOM_OP_EXPORT rknn_custom_op *get_rknn_custom_op(void)
{
    memset(&user_op, 0, sizeof(user_op));
    strncpy(user_op.op_type, "cstSigmoid", RKNN_MAX_NAME_LEN - 1);
    user_op.version = 1;
    user_op.target = RKNN_TARGET_TYPE_CPU;
    user_op.init = sigmoid_init;
    user_op.compute = sigmoid_compute;
    user_op.destroy = sigmoid_destroy;
    return &user_op;
}
