/* tests/unit/test_npu_dump.c — level-5 dump names against every name in the
 * real board log shared/data/logs/rtlog-level5-dumps-mobilenet-accuracy-
 * analysis-01.txt (airockchip/rknn-toolkit2#118, RKNN_LOG_LEVEL=5 on the
 * board; copied below): each name is split by hand rules (3-digit index,
 * OpType up to the first '_', tensor up to the last "_shape_", '_'-joined
 * dims, dtype before ".npy") and must come back byte for byte from
 * npu_dump_name(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/model/model.h"
#include "runtime/npu/npu.h"
#include "tests/test.h"
#include "util/util.h"

static const char *const real[] = {
    "000_InputOperator_input_shape_1_3_224_224_uint8.npy",
    "001_ConvClip_317_shape_1_32_112_112_float.npy",
    "001_ConvClip_input_shape_1_3_224_224_uint8.npy",
    "002_ConvClip_320_shape_1_32_112_112_float.npy",
    "003_Conv_480_shape_1_16_112_112_float.npy",
    "025_ConvClip_385_shape_1_384_14_14_float.npy",
    "026_ConvClip_388_shape_1_384_14_14_float.npy",
    "027_ConvAdd_391_shape_1_64_14_14_float.npy",
    "028_ConvClip_394_shape_1_384_14_14_float.npy",
    "029_ConvClip_397_shape_1_384_14_14_float.npy",
    "030_ConvAdd_400_shape_1_64_14_14_float.npy",
    "052_ConvClip_463_shape_1_1280_7_7_float.npy",
    "053_Conv_464_shape_1_1280_1_1_float.npy",
    "054_Conv_output_mm_shape_1_1000_1_1_float.npy",
    "055_Reshape_output_shape_1_1000_float.npy",
    "056_OutputOperator_output_shape_1_1000_float.npy",
};

static int split(const char *name, int *index, char *op, char *tensor, npu_shape_t *s, char *dt)
{
    const char *p = name, *sh, *e;

    if (sscanf(p, "%3d_", index) != 1 || p[3] != '_')
        return -1;
    p += 4;
    e = strchr(p, '_');
    if (!e)
        return -1;
    memcpy(op, p, (size_t)(e - p));
    op[e - p] = 0;
    p = e + 1;
    for (sh = NULL, e = p; (e = strstr(e, "_shape_")); e++)
        sh = e;
    if (!sh)
        return -1;
    memcpy(tensor, p, (size_t)(sh - p));
    tensor[sh - p] = 0;
    p = sh + 7;
    s->nd = 0;
    while (*p >= '0' && *p <= '9') {
        char *q;
        s->d[s->nd++] = strtoll(p, &q, 10);
        if (*q != '_')
            return -1;
        p = q + 1;
    }
    e = strstr(p, ".npy");
    if (!e || e[4])
        return -1;
    memcpy(dt, p, (size_t)(e - p));
    dt[e - p] = 0;
    return 0;
}

int main(void)
{
    char buf[256], op[64], tensor[64], dt[16];
    npu_shape_t s;
    int idx;

    for (size_t i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
        CHECK(split(real[i], &idx, op, tensor, &s, dt) == 0, "split %s", real[i]);
        CHECK(npu_dump_name(buf, sizeof buf, idx, op, tensor, &s, dt) == 0 && !strcmp(buf, real[i]),
              "%s -> %s", real[i], buf);
    }
    /* dtype tokens seen: float (float32), uint8 */
    CHECK(!strcmp(npu_dump_dtype(DT_FLOAT), "float") && !strcmp(npu_dump_dtype(DT_UINT8), "uint8") &&
              !strcmp(npu_dump_dtype(DT_INT8), "int8") && npu_dump_dtype(DT_STRING) == NULL,
          "dtype tokens");
    /* ONNX-style names keep their characters except path separators */
    s = (npu_shape_t){4, {1, 64, 80, 80}};
    CHECK(npu_dump_name(buf, sizeof buf, 7, "ConvExSwish", "/model.2/cv1/act/Mul_output_0", &s, "float") == 0 &&
              !strcmp(buf, "007_ConvExSwish__model.2_cv1_act_Mul_output_0_shape_1_64_80_80_float.npy"),
          "%s", buf);
    s = (npu_shape_t){1, {5}};
    CHECK(npu_dump_name(buf, sizeof buf, 1234, "Gather", "onnx::Gather:3", &s, "int64") == 0 &&
              !strcmp(buf, "1234_Gather_onnx__Gather_3_shape_5_int64.npy"),
          "%s", buf);
    /* truncation is reported and stays terminated */
    CHECK(npu_dump_name(buf, 20, 1, "ConvClip", "317", &s, "float") == RT_EINVAL && strlen(buf) == 19,
          "truncated: %s", buf);
    TEST_END();
}
