/* tests/samples/sample_custom_op.c — a CPU custom op in the SDK guide's flow:
 * rknn_init, rknn_register_custom_ops (the op type "cstSigmoid": y = 1 / (1 + e^(-alpha x))
 * with the node's float attribute alpha read by rknn_custom_op_get_op_attr in init),
 * then the general flow (rknn_inputs_set float NCHW, rknn_run, rknn_outputs_get float).
 *
 *   sample_custom_op MODEL INPUT.f32 OUTPUT.f32 [--no-register | --twice | --misuse]
 *
 * --no-register runs without registering (rknn_run must refuse); --twice registers the
 * type a second time (that call must fail, the first registration stays); --misuse
 * first makes six wrong registrations and prints what each returned. Prints the
 * callbacks as they are called; exit 0 only when every step did what it should. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"
#include "rknn_custom_op.h"

typedef struct sigmoid_state {
    float alpha;
} sigmoid_state;

static int sigmoid_init(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *inputs, uint32_t n_inputs,
                        rknn_custom_op_tensor *outputs, uint32_t n_outputs)
{
    rknn_custom_op_attr a;
    sigmoid_state *s = calloc(1, sizeof(*s));

    if (!s)
        return -1;
    rknn_custom_op_get_op_attr(op_ctx, "alpha", &a);
    s->alpha = a.n_elems == 1 && a.dtype == RKNN_TENSOR_FLOAT32 ? *(const float *)a.data : 1.0f;
    op_ctx->priv_data = s;
    printf("init: alpha=%g, %u input(s) %s, %u output(s)\n", s->alpha, n_inputs,
           n_inputs ? inputs[0].attr.name : "", n_outputs);
    return 0;
}

static int sigmoid_prepare(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *inputs,
                           uint32_t n_inputs, rknn_custom_op_tensor *outputs, uint32_t n_outputs)
{
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].attr.n_elems != outputs[0].attr.n_elems)
        return -1;
    printf("prepare: %u elements\n", inputs[0].attr.n_elems);
    return 0;
}

static int sigmoid_compute(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *inputs,
                           uint32_t n_inputs, rknn_custom_op_tensor *outputs, uint32_t n_outputs)
{
    const sigmoid_state *s = op_ctx->priv_data;
    const float *x = (const float *)((char *)inputs[0].mem.virt_addr + inputs[0].mem.offset);
    float *y = (float *)((char *)outputs[0].mem.virt_addr + outputs[0].mem.offset);

    if (inputs[0].attr.type != RKNN_TENSOR_FLOAT32 || outputs[0].attr.type != RKNN_TENSOR_FLOAT32)
        return -1;
    for (uint32_t i = 0; i < outputs[0].attr.n_elems; i++)
        y[i] = 1.0f / (1.0f + expf(-s->alpha * x[i]));
    return 0;
}

static int sigmoid_destroy(rknn_custom_op_context *op_ctx)
{
    free(op_ctx->priv_data);
    op_ctx->priv_data = NULL;
    printf("destroy\n");
    return 0;
}

int main(int argc, char **argv)
{
    rknn_context ctx = 0;
    rknn_input_output_num io;
    rknn_tensor_attr in_attr, out_attr;
    rknn_custom_op op;
    rknn_input in;
    rknn_output out;
    float *data = NULL;
    FILE *f;
    int ret = 1, mode = 0;

    if (argc < 4) {
        fprintf(stderr, "usage: %s MODEL INPUT.f32 OUTPUT.f32 [--no-register | --twice]\n", argv[0]);
        return 1;
    }
    if (argc > 4 && !strcmp(argv[4], "--no-register"))
        mode = 1;
    else if (argc > 4 && !strcmp(argv[4], "--twice"))
        mode = 2;
    else if (argc > 4 && !strcmp(argv[4], "--misuse"))
        mode = 3;
    if (rknn_init(&ctx, argv[1], 0, 0, NULL) < 0) {
        fprintf(stderr, "rknn_init fail!\n");
        return 1;
    }
    memset(&op, 0, sizeof(op));
    op.version = 1;
    op.target = RKNN_TARGET_TYPE_CPU;
    snprintf(op.op_type, sizeof(op.op_type), "cstSigmoid");
    op.init = sigmoid_init;
    op.prepare = sigmoid_prepare;
    op.compute = sigmoid_compute;
    op.destroy = sigmoid_destroy;
    if (mode == 3) { /* NULL array, GPU target, no compute, no type, a type twice, no context */
        rknn_custom_op bad[2] = {op, op};
        printf("misuse: %d", rknn_register_custom_ops(ctx, NULL, 1));
        bad[0].target = RKNN_TARGET_TYPE_GPU;
        printf(" %d", rknn_register_custom_ops(ctx, bad, 1));
        bad[0] = op;
        bad[0].compute = NULL;
        printf(" %d", rknn_register_custom_ops(ctx, bad, 1));
        bad[0] = op;
        bad[0].op_type[0] = 0;
        printf(" %d", rknn_register_custom_ops(ctx, bad, 1));
        bad[0] = op;
        printf(" %d", rknn_register_custom_ops(ctx, bad, 2));
        printf(" %d\n", rknn_register_custom_ops(0, &op, 1));
    }
    if (mode != 1 && rknn_register_custom_ops(ctx, &op, 1) < 0) {
        fprintf(stderr, "rknn_register_custom_ops fail!\n");
        goto out;
    }
    if (mode == 2) {
        int r = rknn_register_custom_ops(ctx, &op, 1);
        printf("second registration: %d\n", r);
        if (r >= 0)
            goto out;
    }
    if (rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof(io)) < 0 || io.n_input != 1 ||
        io.n_output != 1)
        goto out;
    memset(&in_attr, 0, sizeof(in_attr));
    memset(&out_attr, 0, sizeof(out_attr));
    out_attr.index = 0;
    if (rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &in_attr, sizeof(in_attr)) < 0 ||
        rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &out_attr, sizeof(out_attr)) < 0)
        goto out;
    data = calloc(in_attr.n_elems, sizeof(float));
    if (!data || !(f = fopen(argv[2], "rb")))
        goto out;
    if (fread(data, sizeof(float), in_attr.n_elems, f) != in_attr.n_elems) {
        fclose(f);
        goto out;
    }
    fclose(f);
    memset(&in, 0, sizeof(in));
    in.index = 0;
    in.type = RKNN_TENSOR_FLOAT32;
    in.fmt = RKNN_TENSOR_NCHW;
    in.buf = data;
    in.size = in_attr.n_elems * sizeof(float);
    if (rknn_inputs_set(ctx, 1, &in) < 0)
        goto out;
    if (rknn_run(ctx, NULL) < 0) {
        fprintf(stderr, "rknn_run fail!\n");
        ret = mode == 1 ? 2 : 1; /* expected without a registration */
        goto out;
    }
    /* as the SDK's custom-op demo: the per-layer detail right after rknn_run, on a
     * context made with flag 0, any failure fatal, perf_data printed with %s */
    rknn_perf_detail perf_detail;
    if (rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &perf_detail, sizeof(perf_detail)) != RKNN_SUCC) {
        fprintf(stderr, "rknn_query fail!\n");
        ret = 255;
        goto out;
    }
    printf("rknn run perf detail is:\n%s", perf_detail.perf_data);
    printf("perf detail length: %llu\n", (unsigned long long)perf_detail.data_len);
    memset(&out, 0, sizeof(out));
    out.want_float = 1;
    if (rknn_outputs_get(ctx, 1, &out, NULL) < 0)
        goto out;
    if ((f = fopen(argv[3], "wb"))) {
        ret = fwrite(out.buf, 1, out.size, f) == out.size ? 0 : 1;
        fclose(f);
    }
    rknn_outputs_release(ctx, 1, &out);
out:
    free(data);
    rknn_destroy(ctx);
    return ret;
}
