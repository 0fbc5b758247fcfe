/* tests/samples/sample_dynamic.c — a dynamic-shape classifier as the SDK guide's
 * dynamic-shape flow runs one: the model's shape set from RKNN_QUERY_INPUT_DYNAMIC_RANGE,
 * rknn_set_input_shapes before each shape, CURRENT_INPUT/OUTPUT_ATTR after it. Input:
 * the camera's uint8 NHWC pixels (normalisation is in the model).
 *
 *   sample_dynamic MODEL.rknn OUT_PREFIX IMAGE.ppm...          general API
 *   sample_dynamic --zero-copy MODEL.rknn OUT_PREFIX IMAGE.ppm...
 *
 * Each image runs at the set's shape of its size (in the order given). Zero-copy:
 * the internal memory is allocated once from the init-time RKNN_QUERY_MEM_SIZE
 * (RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE), the input and output memory once from
 * INPUT_ATTR/OUTPUT_ATTR before any rknn_set_input_shapes (the SDK guide: those are
 * the largest shapes), and all of them serve every shape. Before the images, a shape outside the set
 * must be refused. Writes OUT_PREFIX.K.f32 (the float outputs of image K); prints
 * the set, the attributes, the top class. Exit 0 on success. */
#include "sample_util.h"

#define MAX_OUT 4

static int attr_query(rknn_context ctx, int cmd, uint32_t index, rknn_tensor_attr *a)
{
    memset(a, 0, sizeof(*a));
    a->index = index;
    return rknn_query(ctx, (rknn_query_cmd)cmd, a, sizeof(*a));
}

int main(int argc, char **argv)
{
    rknn_context ctx = 0;
    rknn_input_output_num io_num;
    rknn_input_range range;
    rknn_tensor_attr in_attr, out_attr[MAX_OUT];
    rknn_mem_size mem0, mem;
    rknn_tensor_mem *internal = NULL, *in_mem = NULL, *out_mem[MAX_OUT] = {0};
    unsigned char *img = NULL;
    char path[512];
    int zero_copy = argc > 1 && !strcmp(argv[1], "--zero-copy"), a0 = 1 + zero_copy;
    int ret, rc = 1;

    if (argc < a0 + 3) {
        fprintf(stderr, "usage: %s [--zero-copy] MODEL.rknn OUT_PREFIX IMAGE.ppm...\n", argv[0]);
        return 1;
    }
    ret = rknn_init(&ctx, argv[a0], 0, zero_copy ? RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE : 0, NULL);
    if (ret < 0) {
        printf("rknn_init fail! ret=%d\n", ret);
        return 1;
    }
    if (rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io_num, sizeof(io_num)) < 0 ||
        io_num.n_input != 1 || io_num.n_output > MAX_OUT)
        goto out;
    memset(&range, 0, sizeof(range));
    range.index = 0;
    ret = rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &range, sizeof(range));
    if (ret < 0 || range.shape_number < 1) {
        printf("no dynamic shape range (ret=%d, shape_number=%u)\n", ret, range.shape_number);
        goto out;
    }
    printf("input %s: %u shapes (%s):", range.name, range.shape_number,
           get_format_string(range.fmt));
    uint32_t max_elems = 0;
    for (uint32_t s = 0; s < range.shape_number; s++) {
        uint32_t n = 1;
        printf(" [");
        for (uint32_t k = 0; k < range.n_dims; k++) {
            printf("%s%u", k ? "," : "", range.dyn_range[s][k]);
            n *= range.dyn_range[s][k];
        }
        printf("]");
        max_elems = n > max_elems ? n : max_elems;
    }
    printf("\n");
    /* before any rknn_set_input_shapes: the largest shape of the set (SDK guide,
     * dynamic shape, zero-copy API: memory sized from INPUT_ATTR/OUTPUT_ATTR then
     * serves every shape) */
    if (attr_query(ctx, RKNN_QUERY_INPUT_ATTR, 0, &in_attr) < 0)
        goto out;
    sample_dump_attr(&in_attr);
    if (in_attr.n_elems != max_elems) {
        printf("INPUT_ATTR is not the largest shape of the set\n");
        goto out;
    }
    for (uint32_t i = 0; i < io_num.n_output; i++) {
        if (attr_query(ctx, RKNN_QUERY_OUTPUT_ATTR, i, &out_attr[i]) < 0 || !out_attr[i].n_dims)
            goto out;
        sample_dump_attr(&out_attr[i]);
    }
    if (rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &mem0, sizeof(mem0)) < 0)
        goto out;
    printf("mem size at init: internal %u, total %llu\n", mem0.total_internal_size,
           (unsigned long long)mem0.total_dma_allocated_size);
    if (zero_copy) {
        internal = rknn_create_mem(ctx, mem0.total_internal_size);
        /* uint8 pixels, and float outputs, of the shapes INPUT_ATTR/OUTPUT_ATTR give
         * before any rknn_set_input_shapes: "the largest input tensor memory" */
        in_mem = rknn_create_mem(ctx, in_attr.n_elems);
        if (!internal || !in_mem || rknn_set_internal_mem(ctx, internal) < 0)
            goto out;
        for (uint32_t i = 0; i < io_num.n_output; i++)
            if (!(out_mem[i] = rknn_create_mem(ctx, out_attr[i].n_elems * sizeof(float))))
                goto out;
    }

    /* a shape outside the set is refused */
    rknn_tensor_attr bad = in_attr;
    bad.dims[2] = in_attr.dims[2] + 1;
    ret = rknn_set_input_shapes(ctx, 1, &bad);
    printf("shape outside the set: ret=%d\n", ret);
    if (ret != RKNN_ERR_FAIL)
        goto out;

    for (int k = a0 + 2; k < argc; k++) {
        int w = 0, h = 0;
        uint32_t s;
        free(img);
        img = sample_load_ppm(argv[k], &w, &h);
        if (!img)
            goto out;
        for (s = 0; s < range.shape_number; s++)
            if (range.dyn_range[s][1] == (uint32_t)h && range.dyn_range[s][2] == (uint32_t)w)
                break;
        if (s == range.shape_number) {
            printf("%s: %dx%d is no shape of the set\n", argv[k], w, h);
            goto out;
        }
        rknn_tensor_attr shape = in_attr;
        shape.fmt = range.fmt;
        for (uint32_t d = 0; d < range.n_dims; d++)
            shape.dims[d] = range.dyn_range[s][d];
        ret = rknn_set_input_shapes(ctx, 1, &shape);
        if (ret < 0) {
            printf("rknn_set_input_shapes fail! ret=%d\n", ret);
            goto out;
        }
        rknn_tensor_attr cur;
        if (attr_query(ctx, RKNN_QUERY_CURRENT_INPUT_ATTR, 0, &cur) < 0 ||
            cur.dims[1] != (uint32_t)h || cur.dims[2] != (uint32_t)w)
            goto out;
        if (rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &mem, sizeof(mem)) < 0 ||
            mem.total_internal_size != mem0.total_internal_size) {
            printf("MEM_SIZE changed after rknn_set_input_shapes\n");
            goto out;
        }
        float *outs[MAX_OUT] = {0};
        uint32_t n_el[MAX_OUT];
        rknn_output o[MAX_OUT];
        int got = 0;
        for (uint32_t i = 0; i < io_num.n_output; i++) {
            if (attr_query(ctx, RKNN_QUERY_CURRENT_OUTPUT_ATTR, i, &out_attr[i]) < 0)
                goto out;
            n_el[i] = out_attr[i].n_elems;
        }
        if (!zero_copy) {
            rknn_input in;
            memset(&in, 0, sizeof(in));
            in.index = 0;
            in.type = RKNN_TENSOR_UINT8;
            in.fmt = RKNN_TENSOR_NHWC;
            in.size = (uint32_t)(w * h * 3);
            in.buf = img;
            if ((ret = rknn_inputs_set(ctx, 1, &in)) < 0 || (ret = rknn_run(ctx, NULL)) < 0)
                goto out;
            if ((ret = sample_outputs_get(ctx, io_num.n_output, o, 1)) < 0)
                goto out;
            got = 1;
            for (uint32_t i = 0; i < io_num.n_output; i++)
                outs[i] = o[i].buf;
        } else {
            cur.type = RKNN_TENSOR_UINT8;
            cur.fmt = RKNN_TENSOR_NHWC;
            if (in_mem->size < (uint32_t)(w * h * 3)) { /* the SDK demo would overrun it */
                printf("input memory of %u bytes from INPUT_ATTR is too small for %dx%d\n",
                       in_mem->size, w, h);
                goto out;
            }
            memcpy(in_mem->virt_addr, img, (size_t)(w * h * 3));
            if ((ret = rknn_set_io_mem(ctx, in_mem, &cur)) < 0)
                goto out;
            for (uint32_t i = 0; i < io_num.n_output; i++) {
                out_attr[i].type = RKNN_TENSOR_FLOAT32;
                if (out_mem[i]->size < out_attr[i].n_elems * sizeof(float) ||
                    (ret = rknn_set_io_mem(ctx, out_mem[i], &out_attr[i])) < 0)
                    goto out;
                outs[i] = out_mem[i]->virt_addr;
            }
            if ((ret = rknn_run(ctx, NULL)) < 0)
                goto out;
        }
        uint32_t best = 0;
        for (uint32_t c = 1; c < n_el[0]; c++)
            if (outs[0][c] > outs[0][best])
                best = c;
        printf("image %d (%dx%d): class %u, score %.4f\n", k - a0 - 2, w, h, best,
               outs[0][best]);
        snprintf(path, sizeof(path), "%s.%d.f32", argv[a0 + 1], k - a0 - 2);
        ret = sample_write_f32(path, (const float *const *)outs, n_el, io_num.n_output);
        if (got)
            rknn_outputs_release(ctx, io_num.n_output, o);
        if (ret)
            goto out;
    }
    rc = 0;
out:
    if (rc)
        printf("failed (ret=%d)\n", ret);
    for (int i = 0; i < MAX_OUT; i++)
        if (out_mem[i])
            rknn_destroy_mem(ctx, out_mem[i]);
    if (in_mem)
        rknn_destroy_mem(ctx, in_mem);
    if (internal)
        rknn_destroy_mem(ctx, internal);
    free(img);
    rknn_destroy(ctx);
    return rc;
}
