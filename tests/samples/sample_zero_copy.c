/* tests/samples/sample_zero_copy.c — an application of the RKNN zero-copy API, written
 * the way the SDK guide's yolov5 zero-copy code is: init from the model path, query the
 * native input attr, ask for a uint8 NHWC input, rknn_create_mem(size_with_stride),
 * write the camera image row by row honouring w_stride, bind with rknn_set_io_mem, bind
 * one rknn_create_mem per output, run, read the results from the bound memory.
 * Compiled against rknn_api.h only and linked with -lrknnrt.
 *
 *   sample_zero_copy MODEL IMAGE.ppm OUT.f32 [--native] [LOOPS]
 * Outputs: by default OUTPUT_ATTR with type FLOAT32 (the guide's yolov5 sample: the
 * runtime converts); --native binds NATIVE_NHWC_OUTPUT_ATTR in its own type and the
 * sample converts (dequantises, fp16 -> fp32, NHWC -> NCHW) itself. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>

#include "sample_util.h"

static float fp16_to_f32(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                                      : ldexpf((float)(m | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

/* Native output memory -> dense float32 in the model's (NCHW) element order. */
static void native_to_f32(const rknn_tensor_attr *a, const void *mem, float *dst)
{
    uint32_t n = a->n_elems;
    int nhwc = a->fmt == RKNN_TENSOR_NHWC && a->n_dims == 4;
    uint32_t N = nhwc ? a->dims[0] : 1, H = nhwc ? a->dims[1] : 1, W = nhwc ? a->dims[2] : 1;
    uint32_t C = nhwc ? a->dims[3] : 1;

    for (uint32_t i = 0; i < n; i++) {
        uint32_t src = i;
        if (nhwc) { /* i indexes NCHW */
            uint32_t w = i % W, h = i / W % H, c = i / (W * H) % C, b = i / (W * H * C);
            src = ((b * H + h) * W + w) * C + c;
        }
        float v;
        switch (a->type) {
        case RKNN_TENSOR_FLOAT32: v = ((const float *)mem)[src]; break;
        case RKNN_TENSOR_FLOAT16: v = fp16_to_f32(((const uint16_t *)mem)[src]); break;
        case RKNN_TENSOR_INT8: v = (((const int8_t *)mem)[src] - a->zp) * a->scale; break;
        case RKNN_TENSOR_UINT8: v = (((const uint8_t *)mem)[src] - a->zp) * a->scale; break;
        default: v = NAN; break;
        }
        dst[i] = v;
    }
    (void)N;
}

int main(int argc, char **argv)
{
    rknn_context ctx = 0;
    rknn_sdk_version version;
    rknn_input_output_num io_num;
    rknn_tensor_attr input_attrs[1], output_attrs[8];
    rknn_tensor_mem *input_mems[1] = {NULL}, *output_mems[8] = {NULL};
    float *outs[8] = {NULL};
    uint32_t counts[8];
    unsigned char *img = NULL;
    int width, height, channel, stride, img_w = 0, img_h = 0, loops = 1, native = 0;
    int ret, status = 1;

    io_num.n_input = io_num.n_output = 0;
    if (argc < 4) {
        fprintf(stderr, "usage: %s MODEL IMAGE.ppm OUT.f32 [--native] [LOOPS]\n", argv[0]);
        return 2;
    }
    for (int k = 4; k < argc; k++) {
        if (strcmp(argv[k], "--native") == 0)
            native = 1;
        else
            loops = atoi(argv[k]);
    }

    ret = rknn_init(&ctx, argv[1], 0, 0, NULL);
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
        io_num.n_output = 0;
        goto out;
    }
    printf("model input num: %u, output num: %u\n", io_num.n_input, io_num.n_output);

    printf("input tensors:\n");
    memset(input_attrs, 0, sizeof(input_attrs));
    input_attrs[0].index = 0;
    ret = rknn_query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &(input_attrs[0]), sizeof(rknn_tensor_attr));
    if (ret < 0) {
        printf("rknn_query NATIVE_INPUT_ATTR error ret=%d\n", ret);
        goto out;
    }
    sample_dump_attr(&(input_attrs[0]));

    printf("output tensors:\n");
    memset(output_attrs, 0, sizeof(output_attrs));
    for (uint32_t i = 0; i < io_num.n_output; i++) {
        output_attrs[i].index = i;
        ret = rknn_query(ctx, native ? RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR : RKNN_QUERY_OUTPUT_ATTR,
                         &(output_attrs[i]), sizeof(rknn_tensor_attr));
        if (ret < 0) {
            printf("rknn_query %s error ret=%d\n", native ? "NATIVE_NHWC_OUTPUT_ATTR" : "OUTPUT_ATTR",
                   ret);
            goto out;
        }
        sample_dump_attr(&(output_attrs[i]));
    }

    /* the image goes in as the camera delivers it: uint8, NHWC */
    input_attrs[0].type = RKNN_TENSOR_UINT8;
    input_attrs[0].fmt = RKNN_TENSOR_NHWC;
    height = (int)input_attrs[0].dims[1];
    width = (int)input_attrs[0].dims[2];
    channel = (int)input_attrs[0].dims[3];
    stride = (int)input_attrs[0].w_stride;
    printf("model input height=%d, width=%d, channel=%d, w_stride=%d\n", height, width, channel,
           stride);
    img = sample_load_ppm(argv[2], &img_w, &img_h);
    if (!img || img_w != width || img_h != height || channel != 3) {
        printf("%s: need a %dx%d RGB PPM for this model\n", argv[2], width, height);
        goto out;
    }

    input_mems[0] = rknn_create_mem(ctx, input_attrs[0].size_with_stride);
    if (!input_mems[0]) {
        printf("rknn_create_mem for the input failed\n");
        goto out;
    }
    for (uint32_t i = 0; i < io_num.n_output; i++) {
        uint32_t sz = native ? output_attrs[i].size_with_stride
                             : output_attrs[i].n_elems * (uint32_t)sizeof(float);
        output_mems[i] = rknn_create_mem(ctx, sz);
        if (!output_mems[i]) {
            printf("rknn_create_mem for output %u failed\n", i);
            goto out;
        }
    }

    ret = rknn_set_io_mem(ctx, input_mems[0], &input_attrs[0]);
    if (ret < 0) {
        printf("rknn_set_io_mem input error ret=%d\n", ret);
        goto out;
    }
    for (uint32_t i = 0; i < io_num.n_output; i++) {
        if (!native) {
            /* the yolov5 sample wants float results from a non-native attr */
            output_attrs[i].type = RKNN_TENSOR_FLOAT32;
        }
        ret = rknn_set_io_mem(ctx, output_mems[i], &output_attrs[i]);
        if (ret < 0) {
            printf("rknn_set_io_mem output %u error ret=%d\n", i, ret);
            goto out;
        }
    }

    for (int k = 0; k < loops; k++) {
        double t0 = sample_now_us();
        /* copy the image into the bound memory, honouring the row stride */
        if (width == stride) {
            memcpy(input_mems[0]->virt_addr, img, (size_t)(width * height * channel));
        } else {
            unsigned char *src = img, *dst = input_mems[0]->virt_addr;
            for (int h = 0; h < height; h++) {
                memcpy(dst, src, (size_t)(width * channel));
                src += width * channel;
                dst += stride * channel;
            }
        }
        rknn_mem_sync(ctx, input_mems[0], RKNN_MEMORY_SYNC_TO_DEVICE);
        ret = rknn_run(ctx, NULL);
        if (ret < 0) {
            printf("rknn_run error ret=%d\n", ret);
            goto out;
        }
        for (uint32_t i = 0; i < io_num.n_output; i++)
            rknn_mem_sync(ctx, output_mems[i], RKNN_MEMORY_SYNC_FROM_DEVICE);
        printf("loop %d: copy + run %.3f ms\n", k, (sample_now_us() - t0) / 1e3);
    }

    for (uint32_t i = 0; i < io_num.n_output; i++) {
        counts[i] = output_attrs[i].n_elems;
        outs[i] = malloc(sizeof(float) * (counts[i] ? counts[i] : 1));
        if (!outs[i])
            goto out;
        if (native)
            native_to_f32(&output_attrs[i], output_mems[i]->virt_addr, outs[i]);
        else
            memcpy(outs[i], output_mems[i]->virt_addr, sizeof(float) * counts[i]);
    }
    sample_print_detections(outs[0], &output_attrs[0], 0.25f);
    if (sample_write_f32(argv[3], (const float *const *)outs, counts, io_num.n_output) != 0) {
        printf("cannot write %s\n", argv[3]);
        goto out;
    }
    status = 0;
out:
    for (uint32_t i = 0; i < io_num.n_output; i++) {
        free(outs[i]);
        if (output_mems[i] && rknn_destroy_mem(ctx, output_mems[i]) < 0)
            status = 1;
    }
    if (input_mems[0] && rknn_destroy_mem(ctx, input_mems[0]) < 0)
        status = 1;
    if (ctx && rknn_destroy(ctx) < 0)
        status = 1;
    free(img);
    return status;
}
