/* tests/samples/sample_multi_dynamic.c — a two-input dynamic-shape model as the SDK's
 * rknn_dynshape_inference.cc drives one: RKNN_QUERY_INPUT_DYNAMIC_RANGE per input,
 * the attributes before any rknn_set_input_shapes (the largest shape set), the init-time
 * RKNN_QUERY_MEM_SIZE, then every input set to shape set SET (the n-th row of each
 * input's range, as the SDK sample fills attr.dims from dyn_range[i].dyn_range[s]),
 * CURRENT_INPUT/OUTPUT_ATTR, one run on float32 NCHW data.
 *
 *   sample_multi_dynamic MODEL.rknn SET OUT.f32 IN0.f32 IN1.f32 ...
 *
 * Writes the float outputs (want_float = 1), concatenated, to OUT.f32. Exit 0 on
 * success. */
#include "sample_util.h"

#define MAX_IO 8

static int attr_query(rknn_context ctx, int cmd, uint32_t index, rknn_tensor_attr *a)
{
    memset(a, 0, sizeof(*a));
    a->index = index;
    return rknn_query(ctx, (rknn_query_cmd)cmd, a, sizeof(*a));
}

/* The input and output attrs of query commands in_cmd/out_cmd, printed under title. */
static int query_attrs(rknn_context ctx, const char *title, int in_cmd, int out_cmd,
                       const rknn_input_output_num *io, rknn_tensor_attr *in,
                       rknn_tensor_attr *out)
{
    printf("%sinput tensors:\n", title);
    for (uint32_t i = 0; i < io->n_input; i++) {
        if (attr_query(ctx, in_cmd, i, &in[i]) < 0)
            return -1;
        sample_dump_attr(&in[i]);
    }
    printf("%soutput tensors:\n", title);
    for (uint32_t i = 0; i < io->n_output; i++) {
        if (attr_query(ctx, out_cmd, i, &out[i]) < 0)
            return -1;
        sample_dump_attr(&out[i]);
    }
    return 0;
}

static void print_range(const rknn_input_range *r)
{
    printf("input %s: %u shapes (%s):", r->name, r->shape_number, get_format_string(r->fmt));
    for (uint32_t s = 0; s < r->shape_number; s++) {
        printf(" [");
        for (uint32_t k = 0; k < r->n_dims; k++)
            printf("%s%u", k ? "," : "", r->dyn_range[s][k]);
        printf("]");
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    rknn_context ctx = 0;
    rknn_input_output_num io_num;
    static rknn_input_range range[MAX_IO];
    rknn_tensor_attr in_attr[MAX_IO], out_attr[MAX_IO];
    rknn_input inputs[MAX_IO];
    rknn_output out[MAX_IO];
    rknn_mem_size mem0, mem1;
    unsigned char *data[MAX_IO] = {0};
    const float *outs[MAX_IO];
    uint32_t n_out[MAX_IO];
    int ret, rc = 1, got = 0, set;

    if (argc < 5) {
        fprintf(stderr, "usage: %s MODEL.rknn SET OUT.f32 IN0.f32 [IN1.f32 ...]\n", argv[0]);
        return 1;
    }
    set = atoi(argv[2]);
    ret = rknn_init(&ctx, argv[1], 0, 0, NULL);
    if (ret < 0) {
        printf("rknn_init fail! ret=%d\n", ret);
        return 1;
    }
    if (rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io_num, sizeof(io_num)) < 0 ||
        io_num.n_input > MAX_IO || io_num.n_output > MAX_IO ||
        io_num.n_input != (uint32_t)(argc - 4)) {
        printf("model input/output count does not fit the arguments\n");
        goto out;
    }
    for (uint32_t i = 0; i < io_num.n_input; i++) {
        memset(&range[i], 0, sizeof(range[i]));
        range[i].index = i;
        ret = rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &range[i], sizeof(range[i]));
        if (ret < 0 || range[i].shape_number <= (uint32_t)set || set < 0) {
            printf("input %u: no shape set %d (ret=%d, shape_number=%u)\n", i, set, ret,
                   range[i].shape_number);
            goto out;
        }
        print_range(&range[i]);
    }
    /* before rknn_set_input_shapes: the largest set (SDK guide, dynamic shape) */
    if (query_attrs(ctx, "", RKNN_QUERY_INPUT_ATTR, RKNN_QUERY_OUTPUT_ATTR, &io_num, in_attr,
                    out_attr) < 0)
        goto out;
    if (rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &mem0, sizeof(mem0)) < 0)
        goto out;
    printf("mem size at init: internal %u\n", mem0.total_internal_size);
    printf("weight size at init: %u\n", mem0.total_weight_size);

    for (uint32_t i = 0; i < io_num.n_input; i++)
        for (uint32_t k = 0; k < in_attr[i].n_dims; k++)
            in_attr[i].dims[k] = range[i].dyn_range[set][k];
    ret = rknn_set_input_shapes(ctx, io_num.n_input, in_attr);
    if (ret < 0) {
        printf("rknn_set_input_shapes fail! ret=%d\n", ret);
        goto out;
    }
    if (query_attrs(ctx, "current ", RKNN_QUERY_CURRENT_INPUT_ATTR,
                    RKNN_QUERY_CURRENT_OUTPUT_ATTR, &io_num, in_attr, out_attr) < 0)
        goto out;
    if (rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &mem1, sizeof(mem1)) < 0)
        goto out;
    printf("mem size after set: internal %u\n", mem1.total_internal_size);

    memset(inputs, 0, sizeof(inputs));
    for (uint32_t i = 0; i < io_num.n_input; i++) {
        size_t len = 0;
        data[i] = sample_load_file(argv[4 + i], &len);
        if (!data[i] || len != (size_t)in_attr[i].n_elems * sizeof(float)) {
            printf("%s: not %u float32 values\n", argv[4 + i], in_attr[i].n_elems);
            goto out;
        }
        inputs[i].index = i;
        inputs[i].buf = data[i];
        inputs[i].size = (uint32_t)len;
        inputs[i].type = RKNN_TENSOR_FLOAT32;
        inputs[i].fmt = RKNN_TENSOR_NCHW;
    }
    if ((ret = rknn_inputs_set(ctx, io_num.n_input, inputs)) < 0 || (ret = rknn_run(ctx, NULL)) < 0 ||
        (ret = sample_outputs_get(ctx, io_num.n_output, out, 1)) < 0) {
        printf("inference fail! ret=%d\n", ret);
        goto out;
    }
    got = 1;
    for (uint32_t i = 0; i < io_num.n_output; i++) {
        outs[i] = out[i].buf;
        n_out[i] = out[i].size / sizeof(float);
    }
    if (sample_write_f32(argv[3], outs, n_out, io_num.n_output) < 0)
        goto out;
    rc = 0;
out:
    if (got)
        rknn_outputs_release(ctx, io_num.n_output, out);
    for (int i = 0; i < MAX_IO; i++)
        free(data[i]);
    rknn_destroy(ctx);
    return rc;
}
