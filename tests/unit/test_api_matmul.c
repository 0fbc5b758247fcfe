/* tests/unit/test_api_matmul.c — rknn_matmul_api.h: the ABI (sizes and offsets of the
 * SDK 2.3.2 structs, rknn-api.md §8), the per-chip refusals and every misuse: each
 * returns the vendor's error code with exactly one "E RKNN:" line naming the problem
 * and the fix, and nothing crashes (ASan/UBSan in `make test`). Results against numpy
 * are checked by tests/samples/matmul.sh. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rknn_api.h"
#include "rknn_matmul_api.h"
#include "tests/capture.h"
#include "tests/test.h"

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* CALL returns CODE and prints one E line holding every word */
#define EXPECT(CALL, CODE, ...)                                                            \
    do {                                                                                   \
        cap_begin();                                                                       \
        long long r_ = (long long)(CALL);                                                  \
        const char *e_ = cap_end();                                                        \
        const char *w_[] = {__VA_ARGS__};                                                  \
        CHECK(r_ == (CODE), "%s returned %lld, want %d; stderr: %s", #CALL, r_, CODE, e_); \
        CHECK(strncmp(e_, "E RKNN: [", 9) == 0 && lines(e_) == 1,                          \
              "%s: not one E RKNN line: '%s'", #CALL, e_);                                 \
        for (size_t k_ = 0; k_ < sizeof(w_) / sizeof(w_[0]); k_++)                         \
            CHECK(strstr(e_, w_[k_]) != NULL, "%s: '%s' not in: %s", #CALL, w_[k_], e_);   \
    } while (0)

static void test_abi(void)
{
    /* LP64 sizes of the vendor header (rknn-api.md §8) */
    CHECK(sizeof(rknn_matmul_tensor_attr) == 332, "%zu", sizeof(rknn_matmul_tensor_attr));
    CHECK(sizeof(rknn_matmul_io_attr) == 996, "%zu", sizeof(rknn_matmul_io_attr));
    CHECK(sizeof(rknn_quant_params) == 288, "%zu", sizeof(rknn_quant_params));
    CHECK(sizeof(rknn_matmul_info) == 64, "%zu", sizeof(rknn_matmul_info));
    CHECK(sizeof(rknn_matmul_shape) == 12, "%zu", sizeof(rknn_matmul_shape));
    CHECK(offsetof(rknn_matmul_info, type) == 12 && offsetof(rknn_matmul_info, B_layout) == 16 &&
              offsetof(rknn_matmul_info, AC_quant_type) == 22 &&
              offsetof(rknn_matmul_info, iommu_domain_id) == 24 &&
              offsetof(rknn_matmul_info, group_size) == 28 && offsetof(rknn_matmul_info, reserved) == 30,
          "info offsets");
    CHECK(offsetof(rknn_matmul_tensor_attr, n_dims) == 256 &&
              offsetof(rknn_matmul_tensor_attr, size) == 324 &&
              offsetof(rknn_matmul_tensor_attr, type) == 328, "tensor attr offsets");
    CHECK(offsetof(rknn_quant_params, scale) == 256 && offsetof(rknn_quant_params, zp) == 272,
          "quant params offsets");
    CHECK(RKNN_INT8_MM_INT4_TO_FLOAT16 == 15 && RKNN_FLOAT16_MM_INT4_TO_BFLOAT16 == 12 &&
              RKNN_QUANT_TYPE_PER_GROUP_ASYM == 5 && RKNN_MM_LAYOUT_TP_NORM == 2, "enum values");
    CHECK(!strcmp(get_matmul_type_string(RKNN_INT4_MM_INT4_TO_INT16), "RKNN_INT4_MM_INT4_TO_INT16") &&
              !strcmp(get_matmul_type_string((rknn_matmul_type)13), "UNKNOW"), "type strings");
}

static rknn_matmul_info info_of(int type, int M, int K, int N)
{
    rknn_matmul_info i;
    memset(&i, 0, sizeof(i));
    i.type = (rknn_matmul_type)type;
    i.M = M;
    i.K = K;
    i.N = N;
    return i;
}

static void test_chips(void)
{
    rknn_matmul_ctx ctx = 0;
    rknn_matmul_io_attr io;
    rknn_matmul_info i;

    setenv("RKNN_TARGET", "rk3566", 1);
    i = info_of(RKNN_FLOAT16_MM_INT4_TO_FLOAT32, 4, 64, 64);
    EXPECT(rknn_matmul_create(&ctx, &i, &io), RKNN_ERR_PARAM_INVALID, "rk3566",
           "RKNN_FLOAT16_MM_INT4_TO_FLOAT32", "RK3588/RK3576");
    i = info_of(RKNN_INT8_MM_INT8_TO_INT32, 4, 64, 32);
    i.B_layout = RKNN_MM_LAYOUT_TP_NORM;
    EXPECT(rknn_matmul_create(&ctx, &i, &io), RKNN_ERR_PARAM_INVALID, "B_layout 2", "rk3566");
    /* rk3566 fp16: K 16-aligned, N 8-aligned (the header's table) */
    i = info_of(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, 3, 48, 24);
    CHECK(rknn_matmul_create(&ctx, &i, &io) == RKNN_SUCC, "rk3566 fp16 48x24");
    CHECK(io.A.dims[0] == 3 && io.A.dims[1] == 48 && io.C.type == RKNN_TENSOR_FLOAT32 &&
              io.C.size == 3 * 24 * 4, "rk3566 attrs");
    CHECK(rknn_matmul_destroy(ctx) == RKNN_SUCC, "destroy");
    EXPECT(rknn_matmul_set_core_mask(ctx, RKNN_NPU_CORE_0), RKNN_ERR_CTX_INVALID, "invalid");
    setenv("RKNN_TARGET", "rv1106", 1);
    i = info_of(RKNN_INT8_MM_INT8_TO_INT32, 4, 64, 32);
    EXPECT(rknn_matmul_create(&ctx, &i, &io), RKNN_ERR_TARGET_PLATFORM_UNMATCH, "rv1106",
           "no matmul API", "RKNN_TARGET");
    setenv("RKNN_TARGET", "rk3588", 1);
    i = info_of(RKNN_INT8_MM_INT8_TO_INT32, 4, 48, 32);
    EXPECT(rknn_matmul_create(&ctx, &i, &io), RKNN_ERR_PARAM_INVALID, "K a multiple of 32", "pad");
    i = info_of(RKNN_INT8_MM_INT8_TO_INT32, 4, 64, 16);
    EXPECT(rknn_matmul_create(&ctx, &i, &io), RKNN_ERR_PARAM_INVALID, "N a multiple of 32");
    i = info_of(RKNN_INT8_MM_INT8_TO_INT32, 4, 10272, 32);
    EXPECT(rknn_matmul_create(&ctx, &i, &io), RKNN_ERR_PARAM_INVALID, "up to 10240");
    i = info_of(14, 4, 64, 32);
    EXPECT(rknn_matmul_create(&ctx, &i, &io), RKNN_ERR_PARAM_INVALID, "not an rknn_matmul_type");
    i = info_of(RKNN_FLOAT16_MM_INT8_TO_FLOAT32, 4, 64, 32);
    i.B_quant_type = RKNN_QUANT_TYPE_PER_GROUP_SYM;
    i.group_size = 48;
    EXPECT(rknn_matmul_create(&ctx, &i, &io), RKNN_ERR_PARAM_INVALID, "group_size", "dividing K=64");
}

static void test_misuse(void)
{
    rknn_matmul_ctx ctx = 0;
    rknn_matmul_io_attr io[3];
    rknn_matmul_shape sh[3] = {{1, 64, 32}, {4, 64, 32}, {8, 64, 32}};
    rknn_matmul_shape other = {2, 64, 32}, bad_k[2] = {{1, 64, 32}, {1, 128, 32}};
    rknn_matmul_info i = info_of(RKNN_INT8_MM_INT8_TO_INT8, 0, 0, 0);
    rknn_tensor_mem *small, *big;
    rknn_quant_params p;
    float s[32] = {0};
    int32_t zp[32] = {0};

    setenv("RKNN_TARGET", "rk3588", 1);
    EXPECT(rknn_matmul_create_dynamic_shape(&ctx, &i, 2, bad_k, io), RKNN_ERR_PARAM_INVALID,
           "only M may change");
    CHECK(rknn_matmul_create_dynamic_shape(&ctx, &i, 3, sh, io) == RKNN_SUCC, "dynamic create");
    CHECK(io[2].A.dims[0] == 8 && io[0].A.dims[0] == 1 && io[1].C.size == 4 * 32, "per-shape attrs");
    EXPECT(rknn_matmul_run(ctx), RKNN_ERR_PARAM_INVALID, "A has no live memory",
           "rknn_matmul_set_io_mem");
    EXPECT(rknn_matmul_set_dynamic_shape(ctx, &other), RKNN_ERR_PARAM_INVALID, "M=2 K=64 N=32",
           "1x64x32, 4x64x32, 8x64x32");
    small = rknn_create_mem(ctx, io[0].A.size);
    big = rknn_create_mem(ctx, io[2].A.size);
    CHECK(small && big, "rknn_create_mem with a matmul context");
    CHECK(rknn_matmul_set_dynamic_shape(ctx, &sh[2]) == RKNN_SUCC, "shape 8");
    EXPECT(rknn_matmul_set_io_mem(ctx, small, &io[2].A), RKNN_ERR_PARAM_INVALID, "A needs 512 bytes",
           "largest shape");
    CHECK(rknn_matmul_set_io_mem(ctx, big, &io[2].A) == RKNN_SUCC, "A bound");
    /* quantization parameters: names, lengths, types */
    memset(&p, 0, sizeof(p));
    strcpy(p.name, "B");
    p.scale = s;
    p.scale_len = 32; /* per layer wants 1 */
    s[0] = 0.5f;
    EXPECT(rknn_matmul_set_quant_params(ctx, &p), RKNN_ERR_PARAM_INVALID, "per-layer", "1 scale");
    p.scale_len = 1;
    p.zp = zp;
    p.zp_len = 1;
    CHECK(rknn_matmul_set_quant_params(ctx, &p) == RKNN_SUCC, "B per layer");
    strcpy(p.name, "D");
    EXPECT(rknn_matmul_set_quant_params(ctx, &p), RKNN_ERR_PARAM_INVALID, "none of A, B, C");
    {
        float sc;
        EXPECT(rknn_matmul_get_quant_params(ctx, &p, &sc), RKNN_ERR_PARAM_INVALID,
               "RKNN_INT8_MM_INT8_TO_INT32");
    }
    EXPECT(rknn_matmul_set_core_mask(ctx, (rknn_core_mask)8), RKNN_ERR_PARAM_INVALID, "core");
    CHECK(rknn_matmul_set_core_mask(ctx, RKNN_NPU_CORE_0_1) == RKNN_SUCC, "two cores on rk3588");
    /* a matmul context is not a model context, and a model call refuses it */
    EXPECT(rknn_run(ctx, NULL), RKNN_ERR_CTX_INVALID, "is a matmul context", "rknn_matmul_*");
    CHECK(rknn_destroy_mem(ctx, small) == RKNN_SUCC && rknn_destroy_mem(ctx, big) == RKNN_SUCC,
          "destroy mem");
    CHECK(rknn_matmul_destroy(ctx) == RKNN_SUCC, "destroy");
    EXPECT(rknn_matmul_destroy(ctx), RKNN_ERR_CTX_INVALID, "destroyed twice");
    EXPECT(rknn_matmul_run(ctx), RKNN_ERR_CTX_INVALID, "rknn_matmul_destroy");
}

static void test_get_quant(void)
{
    rknn_matmul_ctx ctx = 0;
    rknn_matmul_io_attr io;
    rknn_matmul_info i = info_of(RKNN_INT8_MM_INT8_TO_INT32, 2, 32, 32);
    rknn_quant_params p;
    float s[32], got[32], a_scale = 0.25f, sc = 0;
    int32_t zp[32], gzp[32], azp = 3;

    i.B_quant_type = RKNN_QUANT_TYPE_PER_CHANNEL_ASYM;
    CHECK(rknn_matmul_create(&ctx, &i, &io) == RKNN_SUCC, "create");
    for (int n = 0; n < 32; n++) {
        s[n] = 0.01f * (float)(n + 1);
        zp[n] = n % 5 - 2;
    }
    memset(&p, 0, sizeof(p));
    strcpy(p.name, "B");
    p.scale = s;
    p.scale_len = 32;
    p.zp = zp;
    p.zp_len = 32;
    CHECK(rknn_matmul_set_quant_params(ctx, &p) == RKNN_SUCC, "B per channel");
    strcpy(p.name, "A");
    p.scale = &a_scale;
    p.scale_len = 1;
    p.zp = &azp;
    p.zp_len = 1;
    CHECK(rknn_matmul_set_quant_params(ctx, &p) == RKNN_SUCC, "A");
    memset(&p, 0, sizeof(p));
    p.scale = got;
    p.scale_len = 32;
    p.zp = gzp;
    p.zp_len = 32;
    CHECK(rknn_matmul_get_quant_params(ctx, &p, &sc) == RKNN_SUCC, "get");
    CHECK(sc == 0.25f && !memcmp(got, s, sizeof(s)) && !memcmp(gzp, zp, sizeof(zp)) &&
              !strcmp(p.name, "B"), "get returns B's parameters and A's scale");
    rknn_matmul_destroy(ctx);
}

int main(void)
{
    test_abi();
    test_chips();
    test_misuse();
    test_get_quant();
    TEST_END();
}
