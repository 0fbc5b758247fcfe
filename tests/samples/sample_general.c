/* tests/samples/sample_general.c — an application of the RKNN general API, written the
 * way the SDK guide's yolov5 demo is (init from the model's bytes, query SDK version,
 * in/out count and attrs, feed a uint8 NHWC camera image with rknn_inputs_set, run,
 * rknn_outputs_get with want_float, release, destroy). Compiled against rknn_api.h
 * only and linked with -lrknnrt: it runs unchanged on a board or on rknn-trace.
 *
 *   sample_general MODEL IMAGE.ppm OUT.f32 [LOOPS]
 * writes every output as float32 (concatenated) to OUT.f32. */
#define _POSIX_C_SOURCE 200809L
#include "sample_util.h"

int main(int argc, char **argv)
{
    rknn_context ctx = 0;
    rknn_sdk_version version;
    rknn_input_output_num io_num;
    rknn_tensor_attr input_attrs[8], output_attrs[8];
    rknn_input inputs[1];
    rknn_output outputs[8];
    const float *outs[8];
    uint32_t counts[8];
    unsigned char *model_data = NULL, *img = NULL;
    size_t model_size = 0;
    int width, height, channel, img_w = 0, img_h = 0, loops, ret, status = 1, got = 0;

    if (argc < 4) {
        fprintf(stderr, "usage: %s MODEL IMAGE.ppm OUT.f32 [LOOPS]\n", argv[0]);
        return 2;
    }
    loops = argc > 4 ? atoi(argv[4]) : 1;
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
    if (ret < 0 || io_num.n_input != 1 || io_num.n_output > 8) {
        printf("rknn_query IN_OUT_NUM ret=%d (this sample takes 1 input, <= 8 outputs)\n", ret);
        goto out;
    }
    printf("model input num: %u, output num: %u\n", io_num.n_input, io_num.n_output);

    printf("input tensors:\n");
    memset(input_attrs, 0, sizeof(input_attrs));
    for (uint32_t i = 0; i < io_num.n_input; i++) {
        input_attrs[i].index = i;
        ret = rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &(input_attrs[i]), sizeof(rknn_tensor_attr));
        if (ret < 0) {
            printf("rknn_query INPUT_ATTR error ret=%d\n", ret);
            goto out;
        }
        sample_dump_attr(&(input_attrs[i]));
    }
    printf("output tensors:\n");
    memset(output_attrs, 0, sizeof(output_attrs));
    for (uint32_t i = 0; i < io_num.n_output; i++) {
        output_attrs[i].index = i;
        ret = rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &(output_attrs[i]), sizeof(rknn_tensor_attr));
        if (ret < 0) {
            printf("rknn_query OUTPUT_ATTR error ret=%d\n", ret);
            goto out;
        }
        sample_dump_attr(&(output_attrs[i]));
    }

    if (input_attrs[0].fmt == RKNN_TENSOR_NCHW) {
        printf("model is NCHW input fmt\n");
        channel = (int)input_attrs[0].dims[1];
        height = (int)input_attrs[0].dims[2];
        width = (int)input_attrs[0].dims[3];
    } else {
        printf("model is NHWC input fmt\n");
        height = (int)input_attrs[0].dims[1];
        width = (int)input_attrs[0].dims[2];
        channel = (int)input_attrs[0].dims[3];
    }
    printf("model input height=%d, width=%d, channel=%d\n", height, width, channel);

    img = sample_load_ppm(argv[2], &img_w, &img_h);
    if (!img || img_w != width || img_h != height || channel != 3) {
        printf("%s: need a %dx%d RGB PPM for this model\n", argv[2], width, height);
        goto out;
    }

    memset(inputs, 0, sizeof(inputs));
    inputs[0].index = 0;
    inputs[0].type = RKNN_TENSOR_UINT8;
    inputs[0].size = (uint32_t)(width * height * channel);
    inputs[0].fmt = RKNN_TENSOR_NHWC;
    inputs[0].pass_through = 0;
    inputs[0].buf = img;

    for (int k = 0; k < loops; k++) {
        double t0 = sample_now_us();
        ret = rknn_inputs_set(ctx, io_num.n_input, inputs);
        if (ret < 0) {
            printf("rknn_inputs_set error ret=%d\n", ret);
            goto out;
        }
        ret = rknn_run(ctx, NULL);
        if (ret < 0) {
            printf("rknn_run error ret=%d\n", ret);
            goto out;
        }
        memset(outputs, 0, sizeof(outputs));
        for (uint32_t i = 0; i < io_num.n_output; i++) {
            outputs[i].index = i;
            outputs[i].want_float = 1;
        }
        ret = rknn_outputs_get(ctx, io_num.n_output, outputs, NULL);
        if (ret < 0) {
            printf("rknn_outputs_get error ret=%d\n", ret);
            goto out;
        }
        got = 1;
        printf("loop %d: inputs_set + run + outputs_get %.3f ms\n", k, (sample_now_us() - t0) / 1e3);
        if (k + 1 < loops) {
            rknn_outputs_release(ctx, io_num.n_output, outputs);
            got = 0;
        }
    }

    for (uint32_t i = 0; i < io_num.n_output; i++) {
        outs[i] = outputs[i].buf;
        counts[i] = output_attrs[i].n_elems;
        if (outputs[i].size != counts[i] * sizeof(float)) {
            printf("output %u: %u bytes, want %u floats\n", i, outputs[i].size, counts[i]);
            goto out;
        }
    }
    sample_print_detections(outs[0], &output_attrs[0], 0.25f);
    if (sample_write_f32(argv[3], outs, counts, io_num.n_output) != 0) {
        printf("cannot write %s\n", argv[3]);
        goto out;
    }
    status = 0;
out:
    if (got) {
        ret = rknn_outputs_release(ctx, io_num.n_output, outputs);
        if (ret < 0)
            status = 1;
    }
    if (ctx && rknn_destroy(ctx) < 0)
        status = 1;
    free(img);
    free(model_data);
    return status;
}
