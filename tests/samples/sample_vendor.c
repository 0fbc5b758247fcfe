/* tests/samples/sample_vendor.c — the SDK guide's general-API call sequence on a
 * vendor-compiled .rknn: init from the file's bytes, query SDK version, in/out count
 * and attrs, one uint8 NHWC image per input through rknn_inputs_set, run,
 * rknn_outputs_get with want_float = 1 and again with want_float = 0, release,
 * destroy. Compiled against rknn_api.h only and linked with -lrknnrt.
 *
 *   sample_vendor MODEL OUTDIR IN0.u8 [IN1.u8 ...]
 * INi.u8: the raw NHWC bytes of input i (INPUT_ATTR's size). Writes OUTDIR/out<i>.f32
 * (want_float) and OUTDIR/out<i>.i8 (the int8 values) per output. */
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
    int ret, status = 1;

    if (argc < 4) {
        fprintf(stderr, "usage: %s MODEL OUTDIR IN0.u8 [IN1.u8 ...]\n", argv[0]);
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
        if (!img[i] || img_size[i] != input_attrs[i].n_elems) {
            printf("%s: need %u bytes (uint8 NHWC)\n", argv[3 + i], input_attrs[i].n_elems);
            goto out;
        }
        inputs[i].index = i;
        inputs[i].type = RKNN_TENSOR_UINT8;
        inputs[i].fmt = RKNN_TENSOR_NHWC;
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
            if (write_file(argv[2], i, want_float ? "f32" : "i8", outputs[i].buf,
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
    status = 0;
out:
    if (ctx)
        rknn_destroy(ctx);
    for (int i = 0; i < 8; i++)
        free(img[i]);
    free(model_data);
    return status;
}
