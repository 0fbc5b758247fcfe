/* tests/samples/sample_vendor.c — the SDK guide's general-API call sequence on a
 * vendor-compiled .rknn: init from the file's bytes, query SDK version, in/out count
 * and attrs, one uint8 NHWC image per input through rknn_inputs_set, run,
 * rknn_outputs_get with want_float = 1 and again with want_float = 0, release,
 * destroy. Then, on a second context, the model zoo's zero-copy flow
 * (examples/yolov8/cpp/rknpu2/yolov8_zero_copy.cc): the queries the SDK's demos make
 * (MEM_SIZE as rknn_benchmark, CUSTOM_STRING as rknn_multiple_input_demo,
 * PERF_DETAIL without RKNN_FLAG_COLLECT_PERF_MASK), NATIVE_INPUT_ATTR with its type
 * set to UINT8 and NATIVE_OUTPUT_ATTR as is bound to rknn_create_mem memory, the image
 * copied in row by row at w_stride, run, PERF_RUN, and each NC1HWC2 int8 output
 * turned into NCHW as the zoo's NC1HWC2_i8_to_NCHW_i8 does (a 2-D int8 output of
 * format UNDEFINED taken as it is). Compiled against
 * rknn_api.h only and linked with -lrknnrt.
 *
 *   sample_vendor [--pass-through] MODEL OUTDIR IN0.u8 [IN1.u8 ...]
 * INi.u8: the raw NHWC bytes of input i (INPUT_ATTR's size). Writes OUTDIR/out<i>.f32
 * (want_float), OUTDIR/out<i>.i8 (the int8 values; .f16 for a float16 output: the
 * values want_float = 0 gives) and OUTDIR/out<i>.zc.i8 (the zero-copy flow's int8
 * values, NCHW; .zc.f16 for a 2-D float16 output) per output.
 * --pass-through: INi holds the model's own input values (INPUT_ATTR's type, fmt and
 * size, already normalised and quantized), set with pass_through = 1 and the attr's
 * type and fmt, as boundarybitlabs/rknpu2-rs's tests do; no zero-copy flow. */
#define _POSIX_C_SOURCE 200809L
#include "sample_util.h"

static int write_file(const char *dir, uint32_t i, const char *ext, const void *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/out%u.%s", dir, i, ext);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(p, 1, n, f) == n;
    if (f && fclose(f))
        ok = 0;
    return ok ? 0 : -1;
}

/* The zoo's flow on a new context; 0 or -1 (a line says why). */
static int zero_copy(const unsigned char *model, size_t model_size, const char *dir,
                     unsigned char *const *img)
{
    rknn_context ctx = 0;
    rknn_input_output_num io_num;
    rknn_tensor_attr in_attr[8], out_attr[8];
    rknn_tensor_mem *in_mem[8] = {0}, *out_mem[8] = {0};
    rknn_mem_size mem_size;
    rknn_custom_string custom;
    rknn_perf_detail detail;
    rknn_perf_run perf;
    int ret, status = -1;

    ret = rknn_init(&ctx, (void *)model, (uint32_t)model_size, 0, NULL);
    if (ret < 0) {
        printf("zero-copy rknn_init error ret=%d\n", ret);
        return -1;
    }
    if (rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io_num, sizeof(io_num)) < 0)
        goto out;
    ret = rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &mem_size, sizeof(mem_size));
    if (ret < 0) {
        printf("rknn_query MEM_SIZE fail! ret=%d\n", ret);
        goto out;
    }
    printf("total weight size: %u, total internal size: %u\n", mem_size.total_weight_size,
           mem_size.total_internal_size);
    memset(&custom, 0, sizeof(custom));
    ret = rknn_query(ctx, RKNN_QUERY_CUSTOM_STRING, &custom, sizeof(custom));
    if (ret < 0) {
        printf("rknn_query CUSTOM_STRING fail! ret=%d\n", ret);
        goto out;
    }
    printf("custom string: %s\n", custom.string);
    for (uint32_t i = 0; i < io_num.n_input; i++) {
        memset(&in_attr[i], 0, sizeof(in_attr[i]));
        in_attr[i].index = i;
        ret = rknn_query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &in_attr[i], sizeof(in_attr[i]));
        if (ret < 0) {
            printf("rknn_query NATIVE_INPUT_ATTR fail! ret=%d\n", ret);
            goto out;
        }
        /* "if set uint8, will fuse normalize and quantize to npu" (the zoo's comment) */
        in_attr[i].type = RKNN_TENSOR_UINT8;
        in_mem[i] = rknn_create_mem(ctx, in_attr[i].size_with_stride);
        if (!in_mem[i]) {
            printf("rknn_create_mem fail!\n");
            goto out;
        }
        /* NHWC rows at w_stride pixels; a [1, C] input is one row of C values */
        uint32_t nd = in_attr[i].n_dims;
        uint32_t h = nd > 2 ? in_attr[i].dims[1] : 1, w = nd > 2 ? in_attr[i].dims[2] : 1;
        uint32_t c = nd > 2 ? in_attr[i].dims[3] : in_attr[i].n_elems;
        uint32_t ws = in_attr[i].w_stride ? in_attr[i].w_stride : w;
        for (uint32_t y = 0; y < h; y++)
            memcpy((unsigned char *)in_mem[i]->virt_addr + (size_t)y * ws * c,
                   img[i] + (size_t)y * w * c, (size_t)w * c);
        ret = rknn_set_io_mem(ctx, in_mem[i], &in_attr[i]);
        if (ret < 0) {
            printf("input_mems rknn_set_io_mem fail! ret=%d\n", ret);
            goto out;
        }
    }
    for (uint32_t i = 0; i < io_num.n_output; i++) {
        memset(&out_attr[i], 0, sizeof(out_attr[i]));
        out_attr[i].index = i;
        ret = rknn_query(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, &out_attr[i], sizeof(out_attr[i]));
        if (ret < 0) {
            printf("rknn_query NATIVE_OUTPUT_ATTR fail! ret=%d\n", ret);
            goto out;
        }
        printf("native output %u: dims=[", i);
        for (uint32_t k = 0; k < out_attr[i].n_dims; k++)
            printf("%s%u", k ? "," : "", out_attr[i].dims[k]);
        printf("] fmt=%s type=%s\n", get_format_string(out_attr[i].fmt),
               get_type_string(out_attr[i].type));
        out_mem[i] = rknn_create_mem(ctx, out_attr[i].size_with_stride);
        if (!out_mem[i] || rknn_set_io_mem(ctx, out_mem[i], &out_attr[i]) < 0) {
            printf("output_mems rknn_set_io_mem fail!\n");
            goto out;
        }
    }
    ret = rknn_run(ctx, NULL);
    if (ret < 0) {
        printf("zero-copy rknn_run fail! ret=%d\n", ret);
        goto out;
    }
    ret = rknn_query(ctx, RKNN_QUERY_PERF_RUN, &perf, sizeof(perf));
    if (ret < 0) {
        printf("rknn_query PERF_RUN fail! ret=%d\n", ret);
        goto out;
    }
    printf("perf run: %lld us\n", (long long)perf.run_duration);
    ret = rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &detail, sizeof(detail));
    if (ret < 0) {
        printf("rknn_query PERF_DETAIL fail! ret=%d\n", ret);
        goto out;
    }
    printf("perf detail: %llu bytes\n", (unsigned long long)detail.data_len);
    for (uint32_t i = 0; i < io_num.n_output; i++) {
        const rknn_tensor_attr *a = &out_attr[i];
        if ((a->type == RKNN_TENSOR_INT8 || a->type == RKNN_TENSOR_FLOAT16) &&
            a->fmt == RKNN_TENSOR_UNDEFINED && a->n_dims <= 2) {
            /* a 2-D output (a CPU layer's, mobilenet_v2's [1,1000], linear_128_to_4's
             * float16 [1,4]): no channel blocks, the bytes are the NCHW order already */
            if (write_file(dir, i, a->type == RKNN_TENSOR_INT8 ? "zc.i8" : "zc.f16",
                           out_mem[i]->virt_addr, a->size))
                goto out;
            continue;
        }
        if (a->fmt != RKNN_TENSOR_NC1HWC2 || a->type != RKNN_TENSOR_INT8) {
            printf("output %u: not NC1HWC2 int8\n", i);
            goto out;
        }
        uint32_t C1 = a->dims[1], H = a->dims[2], W = a->dims[3], C2 = a->dims[4];
        rknn_tensor_attr o;
        memset(&o, 0, sizeof(o));
        o.index = i;
        if (rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &o, sizeof(o)) < 0)
            goto out;
        uint32_t C = o.dims[1];
        const int8_t *src = out_mem[i]->virt_addr;
        int8_t *nchw = malloc((size_t)C * H * W);
        if (!nchw || C > C1 * C2)
            goto out;
        for (uint32_t ch = 0; ch < C; ch++)
            for (uint32_t hw = 0; hw < H * W; hw++)
                nchw[(size_t)ch * H * W + hw] = src[((size_t)(ch / C2) * H * W + hw) * C2 + ch % C2];
        int wr = write_file(dir, i, "zc.i8", nchw, (size_t)C * H * W);
        free(nchw);
        if (wr)
            goto out;
    }
    status = 0;
out:
    for (int i = 0; i < 8; i++) {
        if (in_mem[i])
            rknn_destroy_mem(ctx, in_mem[i]);
        if (out_mem[i])
            rknn_destroy_mem(ctx, out_mem[i]);
    }
    rknn_destroy(ctx);
    return status;
}

int main(int argc, char **argv)
{
    rknn_context ctx = 0;
    rknn_sdk_version version;
    rknn_input_output_num io_num;
    rknn_tensor_attr input_attrs[8], output_attrs[8];
    rknn_input inputs[8];
    rknn_output outputs[8];
    unsigned char *model_data = NULL, *img[8] = {0};
    size_t model_size = 0, img_size[8] = {0};
    int ret, status = 1, pass = argc > 1 && !strcmp(argv[1], "--pass-through");

    argc -= pass, argv += pass;
    if (argc < 4) {
        fprintf(stderr, "usage: %s [--pass-through] MODEL OUTDIR IN0.u8 [IN1.u8 ...]\n", argv[0]);
        return 2;
    }
    model_data = sample_load_file(argv[1], &model_size);
    if (!model_data) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        goto out;
    }
    ret = rknn_init(&ctx, model_data, (uint32_t)model_size, 0, NULL);
    if (ret < 0) {
        printf("rknn_init error ret=%d\n", ret);
        goto out;
    }
    ret = rknn_query(ctx, RKNN_QUERY_SDK_VERSION, &version, sizeof(rknn_sdk_version));
    if (ret < 0) {
        printf("rknn_query SDK_VERSION error ret=%d\n", ret);
        goto out;
    }
    printf("sdk version: %s driver version: %s\n", version.api_version, version.drv_version);
    ret = rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io_num, sizeof(io_num));
    if (ret < 0 || io_num.n_input > 8 || io_num.n_output > 8 ||
        io_num.n_input != (uint32_t)(argc - 3)) {
        printf("rknn_query IN_OUT_NUM ret=%d: %u inputs (%d images given), %u outputs\n", ret,
               io_num.n_input, argc - 3, io_num.n_output);
        goto out;
    }
    printf("model input num: %u, output num: %u\n", io_num.n_input, io_num.n_output);
    printf("input tensors:\n");
    memset(input_attrs, 0, sizeof(input_attrs));
    for (uint32_t i = 0; i < io_num.n_input; i++) {
        input_attrs[i].index = i;
        ret = rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &input_attrs[i], sizeof(rknn_tensor_attr));
        if (ret < 0) {
            printf("rknn_query INPUT_ATTR error ret=%d\n", ret);
            goto out;
        }
        sample_dump_attr(&input_attrs[i]);
    }
    printf("output tensors:\n");
    memset(output_attrs, 0, sizeof(output_attrs));
    for (uint32_t i = 0; i < io_num.n_output; i++) {
        output_attrs[i].index = i;
        ret = rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &output_attrs[i], sizeof(rknn_tensor_attr));
        if (ret < 0) {
            printf("rknn_query OUTPUT_ATTR error ret=%d\n", ret);
            goto out;
        }
        sample_dump_attr(&output_attrs[i]);
    }

    memset(inputs, 0, sizeof(inputs));
    for (uint32_t i = 0; i < io_num.n_input; i++) {
        img[i] = sample_load_file(argv[3 + i], &img_size[i]);
        uint32_t need = pass ? input_attrs[i].size : input_attrs[i].n_elems;
        if (!img[i] || img_size[i] != need) {
            printf("%s: need %u bytes (%s)\n", argv[3 + i], need,
                   pass ? "the model's values" : "uint8 NHWC");
            goto out;
        }
        inputs[i].index = i;
        inputs[i].type = pass ? input_attrs[i].type : RKNN_TENSOR_UINT8;
        inputs[i].fmt = pass ? input_attrs[i].fmt : RKNN_TENSOR_NHWC;
        inputs[i].pass_through = (uint8_t)pass;
        inputs[i].size = (uint32_t)img_size[i];
        inputs[i].buf = img[i];
    }
    ret = rknn_inputs_set(ctx, io_num.n_input, inputs);
    if (ret < 0) {
        printf("rknn_input_set fail! ret=%d\n", ret);
        goto out;
    }
    ret = rknn_run(ctx, NULL);
    if (ret < 0) {
        printf("rknn_run fail! ret=%d\n", ret);
        goto out;
    }
    for (int want_float = 1; want_float >= 0; want_float--) {
        memset(outputs, 0, sizeof(outputs));
        for (uint32_t i = 0; i < io_num.n_output; i++) {
            outputs[i].index = i;
            outputs[i].want_float = (uint8_t)want_float;
        }
        ret = rknn_outputs_get(ctx, io_num.n_output, outputs, NULL);
        if (ret < 0) {
            printf("rknn_outputs_get fail! ret=%d\n", ret);
            goto out;
        }
        for (uint32_t i = 0; i < io_num.n_output; i++)
            if (write_file(argv[2], i,
                           want_float ? "f32"
                           : output_attrs[i].type == RKNN_TENSOR_FLOAT16 ? "f16" : "i8",
                           outputs[i].buf,
                           outputs[i].size)) {
                printf("cannot write output %u to %s\n", i, argv[2]);
                rknn_outputs_release(ctx, io_num.n_output, outputs);
                goto out;
            }
        ret = rknn_outputs_release(ctx, io_num.n_output, outputs);
        if (ret < 0) {
            printf("rknn_outputs_release fail! ret=%d\n", ret);
            goto out;
        }
    }
    if (!pass && zero_copy(model_data, model_size, argv[2], img))
        goto out;
    status = 0;
out:
    if (ctx)
        rknn_destroy(ctx);
    for (int i = 0; i < 8; i++)
        free(img[i]);
    free(model_data);
    return status;
}
