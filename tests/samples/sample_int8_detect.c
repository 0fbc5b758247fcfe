/* tests/samples/sample_int8_detect.c — an int8 face detector as the SDK guide's general
 * flow runs one: a model quantized with its normalisation built in (Toolkit2's
 * mean_values/std_values), fed the camera's uint8 NHWC pixels, outputs taken as int8
 * (want_float = 0) and dequantized here with each output's zp/scale before the
 * post-processing. UltraFace RFB-320 heads: scores [1, N, 2] (background, face), boxes
 * [1, N, 4] (x1, y1, x2, y2 relative).
 *
 *   sample_int8_detect MODEL.rknn IMAGE.ppm OUT_PREFIX
 *
 * Writes OUT_PREFIX.deq.f32 (outputs dequantized by this program) and
 * OUT_PREFIX.float.f32 (the same frame with want_float = 1), prints the attributes,
 * the faces found and the predicted frame time. Then the same frame once more with
 * pass_through = 1: the program normalises ((x - 127) / 128, UltraFace's) and
 * quantizes the pixels itself with the input's zp/scale, and says whether the
 * outputs are identical. Exit 0 on success. */
#include <math.h>

#include "sample_util.h"

#define MAX_IO 8

int main(int argc, char **argv)
{
    rknn_context ctx = 0;
    rknn_input_output_num io_num;
    rknn_tensor_attr in_attr, out_attr[MAX_IO];
    rknn_input in;
    rknn_output out[MAX_IO];
    rknn_perf_run perf;
    float *deq[MAX_IO] = {0};
    const float *fl[MAX_IO] = {0};
    uint32_t n_el[MAX_IO];
    unsigned char *img = NULL;
    char path[512];
    int w = 0, h = 0, ret, rc = 1, got = 0;

    if (argc != 4) {
        fprintf(stderr, "usage: %s MODEL.rknn IMAGE.ppm OUT_PREFIX\n", argv[0]);
        return 1;
    }
    ret = rknn_init(&ctx, argv[1], 0, 0, NULL);
    if (ret < 0) {
        printf("rknn_init fail! ret=%d\n", ret);
        return 1;
    }
    ret = rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io_num, sizeof(io_num));
    if (ret < 0 || io_num.n_input != 1 || io_num.n_output < 2 || io_num.n_output > MAX_IO) {
        printf("rknn_query IN_OUT_NUM: ret=%d, %u inputs, %u outputs\n", ret, io_num.n_input,
               io_num.n_output);
        goto out;
    }
    printf("input tensors:\n");
    memset(&in_attr, 0, sizeof(in_attr));
    in_attr.index = 0;
    ret = rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &in_attr, sizeof(in_attr));
    if (ret < 0)
        goto out;
    sample_dump_attr(&in_attr);
    {
        /* the zero-copy attr: the SDK's rknn_create_mem_demo queries it and sets UINT8
         * itself ("if set uint8, will fuse normalize and quantize to npu") */
        rknn_tensor_attr na;
        memset(&na, 0, sizeof(na));
        na.index = 0;
        if (rknn_query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &na, sizeof(na)) < 0)
            goto out;
        printf("native input:\n");
        sample_dump_attr(&na);
    }
    printf("output tensors:\n");
    for (uint32_t i = 0; i < io_num.n_output; i++) {
        memset(&out_attr[i], 0, sizeof(out_attr[i]));
        out_attr[i].index = i;
        ret = rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &out_attr[i], sizeof(out_attr[i]));
        if (ret < 0)
            goto out;
        sample_dump_attr(&out_attr[i]);
    }
    /* an int8 model with its normalisation inside takes the camera's bytes as they are */
    if (in_attr.fmt != RKNN_TENSOR_NHWC || in_attr.type != RKNN_TENSOR_INT8 ||
        in_attr.qnt_type != RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC || in_attr.size != in_attr.n_elems) {
        printf("input is not an int8 NHWC tensor of n_elems bytes\n");
        goto out;
    }
    img = sample_load_ppm(argv[2], &w, &h);
    if (!img || (uint32_t)w != in_attr.dims[2] || (uint32_t)h != in_attr.dims[1] ||
        in_attr.dims[3] != 3) {
        printf("%s: not a %ux%u RGB PPM\n", argv[2], in_attr.dims[2], in_attr.dims[1]);
        goto out;
    }
    memset(&in, 0, sizeof(in));
    in.index = 0;
    in.type = RKNN_TENSOR_UINT8;
    in.fmt = RKNN_TENSOR_NHWC;
    in.size = in_attr.size; /* one byte per element: size = n_elems */
    in.buf = img;
    ret = rknn_inputs_set(ctx, 1, &in);
    if (ret < 0) {
        printf("rknn_inputs_set fail! ret=%d\n", ret);
        goto out;
    }
    ret = rknn_run(ctx, NULL);
    if (ret < 0) {
        printf("rknn_run fail! ret=%d\n", ret);
        goto out;
    }

    /* the outputs as the NPU holds them, dequantized by the application */
    ret = sample_outputs_get(ctx, io_num.n_output, out, 0);
    if (ret < 0) {
        printf("rknn_outputs_get fail! ret=%d\n", ret);
        goto out;
    }
    got = 1;
    for (uint32_t i = 0; i < io_num.n_output; i++) {
        const rknn_tensor_attr *a = &out_attr[i];
        if (a->type != RKNN_TENSOR_INT8 || a->qnt_type != RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC ||
            out[i].size != a->n_elems) {
            printf("output %u is not int8 affine with n_elems bytes (size %u)\n", i, out[i].size);
            goto out;
        }
        deq[i] = malloc(sizeof(float) * a->n_elems);
        if (!deq[i])
            goto out;
        for (uint32_t k = 0; k < a->n_elems; k++)
            deq[i][k] = ((float)((const int8_t *)out[i].buf)[k] - (float)a->zp) * a->scale;
        n_el[i] = a->n_elems;
    }
    rknn_outputs_release(ctx, io_num.n_output, out);
    got = 0;

    /* post-processing on the dequantized heads: faces over 0.7 */
    const rknn_tensor_attr *sa = &out_attr[0], *ba = &out_attr[1];
    if (sa->n_dims == 3 && sa->dims[2] == 2 && ba->n_dims == 3 && ba->dims[2] == 4) {
        int faces = 0;
        for (uint32_t k = 0; k < sa->dims[1]; k++) {
            float s = deq[0][2 * k + 1];
            if (s <= 0.7f)
                continue;
            if (faces++ < 5)
                printf("face %.3f at (%.0f, %.0f)-(%.0f, %.0f)\n", s, deq[1][4 * k] * w,
                       deq[1][4 * k + 1] * h, deq[1][4 * k + 2] * w, deq[1][4 * k + 3] * h);
        }
        printf("faces (score > 0.7, before NMS): %d\n", faces);
    }
    snprintf(path, sizeof(path), "%s.deq.f32", argv[3]);
    if (sample_write_f32(path, (const float *const *)deq, n_el, io_num.n_output))
        goto out;

    /* the same frame, dequantized by the runtime */
    ret = sample_outputs_get(ctx, io_num.n_output, out, 1);
    if (ret < 0)
        goto out;
    got = 1;
    for (uint32_t i = 0; i < io_num.n_output; i++) {
        if (out[i].size != n_el[i] * sizeof(float))
            goto out;
        fl[i] = out[i].buf;
    }
    snprintf(path, sizeof(path), "%s.float.f32", argv[3]);
    if (sample_write_f32(path, fl, n_el, io_num.n_output))
        goto out;
    ret = rknn_query(ctx, RKNN_QUERY_PERF_RUN, &perf, sizeof(perf));
    if (ret < 0)
        goto out;
    printf("perf run: %lld us\n", (long long)perf.run_duration);

    /* zero-copy as rknn_create_mem_demo: NATIVE_INPUT_ATTR (INT8) turned UINT8 NHWC
     * by the app, rows copied at w_stride; outputs bound as FLOAT32 */
    {
        rknn_context zc = 0;
        rknn_tensor_attr na, oa[MAX_IO];
        rknn_tensor_mem *im = NULL, *om[MAX_IO] = {0};
        uint32_t zc_differ = 1;
        if (rknn_init(&zc, argv[1], 0, 0, NULL) < 0)
            goto out;
        memset(&na, 0, sizeof(na));
        if (rknn_query(zc, RKNN_QUERY_NATIVE_INPUT_ATTR, &na, sizeof(na)) < 0)
            goto zc_done;
        na.type = RKNN_TENSOR_UINT8;
        na.fmt = RKNN_TENSOR_NHWC;
        im = rknn_create_mem(zc, na.size_with_stride);
        if (!im)
            goto zc_done;
        uint32_t h = na.dims[1], w = na.dims[2], ch = na.dims[3], ws = na.w_stride ? na.w_stride : w;
        for (uint32_t y = 0; y < h; y++)
            memcpy((uint8_t *)im->virt_addr + (size_t)y * ws * ch, img + (size_t)y * w * ch,
                   (size_t)w * ch);
        if (rknn_set_io_mem(zc, im, &na) < 0)
            goto zc_done;
        for (uint32_t i = 0; i < io_num.n_output; i++) {
            memset(&oa[i], 0, sizeof(oa[i]));
            oa[i].index = i;
            if (rknn_query(zc, RKNN_QUERY_OUTPUT_ATTR, &oa[i], sizeof(oa[i])) < 0)
                goto zc_done;
            oa[i].type = RKNN_TENSOR_FLOAT32;
            om[i] = rknn_create_mem(zc, oa[i].n_elems * sizeof(float));
            if (!om[i] || rknn_set_io_mem(zc, om[i], &oa[i]) < 0)
                goto zc_done;
        }
        if (rknn_run(zc, NULL) < 0)
            goto zc_done;
        zc_differ = 0;
        for (uint32_t i = 0; i < io_num.n_output; i++)
            zc_differ += memcmp(om[i]->virt_addr, fl[i], n_el[i] * sizeof(float)) != 0;
zc_done:
        printf("zero-copy uint8: %s\n", zc_differ ? "outputs differ" : "identical");
        for (uint32_t i = 0; i < io_num.n_output; i++)
            if (om[i])
                rknn_destroy_mem(zc, om[i]);
        if (im)
            rknn_destroy_mem(zc, im);
        rknn_destroy(zc);
        if (zc_differ)
            goto out;
    }

    /* pass_through: the model's own int8 values, made here */
    for (uint32_t k = 0; k < in_attr.n_elems; k++) {
        float r = roundf(((float)img[k] - 127.0f) / 128.0f / in_attr.scale) + (float)in_attr.zp;
        ((int8_t *)img)[k] = (int8_t)(r < -128.0f ? -128.0f : r > 127.0f ? 127.0f : r);
    }
    in.pass_through = 1;
    in.type = RKNN_TENSOR_INT8;
    if ((ret = rknn_inputs_set(ctx, 1, &in)) < 0 || (ret = rknn_run(ctx, NULL)) < 0)
        goto out;
    rknn_output o2[MAX_IO];
    if ((ret = sample_outputs_get(ctx, io_num.n_output, o2, 1)) < 0)
        goto out;
    uint32_t differ = 0;
    for (uint32_t i = 0; i < io_num.n_output; i++)
        differ += memcmp(o2[i].buf, fl[i], n_el[i] * sizeof(float)) != 0;
    rknn_outputs_release(ctx, io_num.n_output, o2);
    printf("pass_through: %s\n", differ ? "outputs differ" : "identical");
    rc = differ ? 1 : 0;
out:
    if (got)
        rknn_outputs_release(ctx, io_num.n_output, out);
    for (int i = 0; i < MAX_IO; i++)
        free(deq[i]);
    free(img);
    rknn_destroy(ctx);
    return rc;
}
