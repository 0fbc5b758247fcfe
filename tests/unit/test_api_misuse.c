/* tests/unit/test_api_misuse.c — the API-misuse checker: every wrong use returns the
 * vendor's error code and prints one "E RKNN: ..." line on stderr that names the
 * problem and the fix. Runs under ASan/UBSan in `make test`, so a misuse that the
 * runtime touched instead of refusing (a destroyed context or memory, a released
 * buffer) also fails here.
 *
 * Oracle: the error codes of rknn-api.md §4 and the vendor's own messages (§10.4)
 * where they exist; stderr is captured and searched for the words a user needs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rknn_api.h"
#include "runtime/model/model.h"
#include "tests/capture.h"
#include "tests/test.h"
#include "util/util.h"

#define MNIST "tests/data/models/mnist.onnx"

/* Runs CALL with stderr captured; checks the status and that the E line contains
 * each of the given words. */
#define EXPECT(CALL, CODE, ...)                                                      \
    do {                                                                             \
        cap_begin();                                                                 \
        long long r_ = (long long)(CALL);                                            \
        const char *e_ = cap_end();                                                  \
        const char *w_[] = {__VA_ARGS__};                                            \
        CHECK(r_ == (CODE), "%s returned %lld, want %d; stderr: %s", #CALL, r_, CODE, e_); \
        CHECK(strncmp(e_, "E RKNN: [", 9) == 0, "%s: no E RKNN line: '%s'", #CALL, e_); \
        for (size_t k_ = 0; k_ < sizeof(w_) / sizeof(w_[0]); k_++)                   \
            CHECK(strstr(e_, w_[k_]) != NULL, "%s: '%s' not in: %s", #CALL, w_[k_], e_); \
    } while (0)

/* the same for functions returning a pointer: NULL expected */
#define EXPECT_NULL(CALL, ...) EXPECT((CALL) != NULL, 0, __VA_ARGS__)

static rknn_context init_mnist(uint32_t flag)
{
    rknn_context ctx = 0;
    CHECK(rknn_init(&ctx, (void *)MNIST, 0, flag, NULL) == 0, "init");
    return ctx;
}

static void set_input(rknn_context ctx)
{
    static unsigned char u8[784];
    rknn_input in;
    memset(&in, 0, sizeof(in));
    in.buf = u8;
    in.size = sizeof(u8);
    in.type = RKNN_TENSOR_UINT8;
    in.fmt = RKNN_TENSOR_NHWC;
    CHECK(rknn_inputs_set(ctx, 1, &in) == 0, "inputs_set");
}

static void test_context(void)
{
    rknn_context ctx = init_mnist(0), bad = 0;
    rknn_input_output_num io;
    char rknn[64] = "RKNN";

    EXPECT(rknn_query(0, RKNN_QUERY_IN_OUT_NUM, &io, sizeof(io)), RKNN_ERR_CTX_INVALID,
           "context is 0", "rknn_init");
    EXPECT(rknn_query(ctx + 12345, RKNN_QUERY_IN_OUT_NUM, &io, sizeof(io)),
           RKNN_ERR_CTX_INVALID, "invalid", "never returned");
    CHECK(rknn_destroy(ctx) == 0, "destroy");
    /* a destroyed context is refused by every function, not dereferenced */
    EXPECT(rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof(io)), RKNN_ERR_CTX_INVALID,
           "destroyed");
    EXPECT(rknn_run(ctx, NULL), RKNN_ERR_CTX_INVALID, "rknn_run", "destroyed");
    EXPECT(rknn_inputs_set(ctx, 0, NULL), RKNN_ERR_CTX_INVALID, "rknn_inputs_set");
    EXPECT(rknn_outputs_get(ctx, 0, NULL, NULL), RKNN_ERR_CTX_INVALID, "rknn_outputs_get");
    EXPECT(rknn_destroy(ctx), RKNN_ERR_CTX_INVALID, "already destroyed");
    EXPECT(rknn_dup_context(&ctx, &bad), RKNN_ERR_CTX_INVALID, "rknn_dup_context");
    EXPECT(rknn_set_core_mask(ctx, RKNN_NPU_CORE_0), RKNN_ERR_CTX_INVALID, "rknn_set_core_mask");
    EXPECT_NULL(rknn_create_mem(ctx, 16), "rknn_create_mem", "destroyed");

    EXPECT(rknn_init(NULL, (void *)MNIST, 0, 0, NULL), RKNN_ERR_PARAM_INVALID, "context");
    EXPECT(rknn_init(&bad, (void *)"/nonexistent/model.onnx", 0, 0, NULL),
           RKNN_ERR_MODEL_INVALID, "taken as a path", "/nonexistent/model.onnx");
    EXPECT(rknn_init(&bad, rknn, sizeof(rknn), 0, NULL), RKNN_ERR_MODEL_INVALID,
           "vendor-compiled .rknn", "cannot be read");
    setenv("RKNN_TARGET", "rk9999", 1);
    EXPECT(rknn_init(&bad, (void *)MNIST, 0, 0, NULL), RKNN_ERR_TARGET_PLATFORM_UNMATCH,
           "rk9999", "rk3588");
    unsetenv("RKNN_TARGET");
    CHECK(bad == 0, "failed init leaves the context 0");
}

static void test_query(void)
{
    rknn_context ctx = init_mnist(0);
    rknn_tensor_attr a;
    rknn_perf_detail pd;

    memset(&a, 0, sizeof(a));
    /* an application built against a pre-1.3 header (372-byte attr) */
    EXPECT(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, 372), RKNN_ERR_PARAM_INVALID,
           "info_len(372) < sizeof(rknn_tensor_attr)(376)");
    EXPECT(rknn_query(ctx, RKNN_QUERY_CMD_MAX, &a, sizeof(a)), RKNN_ERR_PARAM_INVALID,
           "cmd = 18 is not in [0, 17]");
    EXPECT(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, NULL, sizeof(a)), RKNN_ERR_PARAM_INVALID,
           "info == nullptr");
    a.index = 1;
    EXPECT(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof(a)), RKNN_ERR_PARAM_INVALID,
           "p_attr->index(1) >= input_num(1)");
    a.index = 3;
    EXPECT(rknn_query(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, &a, sizeof(a)), RKNN_ERR_PARAM_INVALID,
           "index(3) >= output_num(1)");
    /* without RKNN_FLAG_COLLECT_PERF_MASK a board answers success with an empty detail
     * (rknn-toolkit2 issue 437), which the SDK's custom-op demo prints with %s */
    memset(&pd, 0x5a, sizeof(pd));
    CHECK(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &pd, sizeof(pd)) == 0 && pd.perf_data &&
              pd.perf_data[0] == 0 && pd.data_len == 0,
          "PERF_DETAIL without the flag: success, empty detail");
    rknn_destroy(ctx);

    ctx = init_mnist(RKNN_FLAG_COLLECT_PERF_MASK);
    EXPECT(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &pd, sizeof(pd)), RKNN_ERR_FAIL, "rknn_run");
    rknn_destroy(ctx);
}

static void test_inputs(void)
{
    rknn_context ctx = init_mnist(0);
    unsigned char u8[784 * 4];
    rknn_input in;

    memset(u8, 0, sizeof(u8));
    memset(&in, 0, sizeof(in));
    in.buf = u8;
    in.type = RKNN_TENSOR_FLOAT32; /* uint8 bytes declared as float32 */
    in.fmt = RKNN_TENSOR_NHWC;
    in.size = 784;
    /* -5 as a board returns it (rknn-toolkit2 issue 558, rknn_model_zoo issue 298) */
    EXPECT(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_PARAM_INVALID,
           "param input size(784) < model input size(3136)", "Input3", "FP32", ".type");
    in.type = RKNN_TENSOR_FLOAT16;
    EXPECT(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_PARAM_INVALID, "size(784) < model input size(1568)",
           "FP16");
    in.type = RKNN_TENSOR_UINT8;
    in.index = 1;
    EXPECT(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_INPUT_INVALID, "inputs[0].index(1) >= input_num(1)");
    in.index = 0;
    in.type = RKNN_TENSOR_INT4;
    EXPECT(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_INPUT_INVALID, "type = 10");
    in.type = (rknn_tensor_type)77;
    EXPECT(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_INPUT_INVALID, "type = 77");
    in.type = RKNN_TENSOR_UINT8;
    in.fmt = (rknn_tensor_format)9;
    EXPECT(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_INPUT_INVALID, "fmt = 9");
    in.fmt = RKNN_TENSOR_NHWC;
    in.buf = NULL;
    EXPECT(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_INPUT_INVALID, "buf == NULL");
    in.buf = u8;
    EXPECT(rknn_inputs_set(ctx, 2, &in), RKNN_ERR_PARAM_INVALID, "1 input");
    /* pass_through needs the model's own type: 784 bytes are too few for fp32 */
    in.pass_through = 1;
    EXPECT(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_PARAM_INVALID, "pass_through");
    /* a 4x larger buffer is accepted but flagged as a likely type mistake (W line) */
    in.pass_through = 0;
    in.size = 784 * 4;
    setenv("RKNN_LOG_LEVEL", "1", 1);
    cap_begin();
    int r = rknn_inputs_set(ctx, 1, &in);
    const char *e = cap_end();
    unsetenv("RKNN_LOG_LEVEL");
    CHECK(r == 0 && strstr(e, "W RKNN: ") && strstr(e, "4 x"), "oversized input warns: %d %s", r, e);
    rknn_destroy(ctx);
}

static void test_outputs(void)
{
    rknn_context ctx = init_mnist(0);
    rknn_output o[2];
    float small[4];

    memset(o, 0, sizeof(o));
    o[0].want_float = 1;
    EXPECT(rknn_outputs_get(ctx, 1, o, NULL), RKNN_ERR_FAIL, "call rknn_run before");
    set_input(ctx);
    CHECK(rknn_run(ctx, NULL) == 0, "run");
    o[0].index = 1;
    EXPECT(rknn_outputs_get(ctx, 1, o, NULL), RKNN_ERR_OUTPUT_INVALID,
           "param output index(1) is out of range(1)");
    EXPECT(rknn_outputs_get(ctx, 2, o, NULL), RKNN_ERR_PARAM_INVALID, "1 output");
    o[0].index = 0;
    o[0].is_prealloc = 1;
    o[0].buf = small;
    o[0].size = sizeof(small);
    EXPECT(rknn_outputs_get(ctx, 1, o, NULL), RKNN_ERR_OUTPUT_INVALID, "size 16 < 40",
           "is_prealloc");
    o[0].is_prealloc = 0;
    o[0].buf = NULL;
    CHECK(rknn_outputs_get(ctx, 1, o, NULL) == 0 && o[0].buf, "get");
    CHECK(rknn_outputs_release(ctx, 1, o) == 0, "release");
    /* the same array again: the runtime must not free twice */
    EXPECT(rknn_outputs_release(ctx, 1, o), RKNN_ERR_OUTPUT_INVALID, "double release",
           "once per rknn_outputs_get");
    /* a count beyond the model's outputs would read past the caller's array */
    CHECK(rknn_outputs_get(ctx, 1, o, NULL) == 0 && o[0].buf, "get again");
    EXPECT(rknn_outputs_release(ctx, 1000000, o), RKNN_ERR_PARAM_INVALID,
           "n_outputs(1000000) > output_num(1)");
    EXPECT(rknn_outputs_release(ctx, 2, o), RKNN_ERR_PARAM_INVALID, "n_outputs(2)");
    CHECK(rknn_outputs_release(ctx, 1, o) == 0, "release after the refused calls");
    /* a zeroed array never given to rknn_outputs_get (a client's teardown): nothing to
     * free, success, no E line */
    memset(o, 0, sizeof(o[0]));
    cap_begin();
    int rr = rknn_outputs_release(ctx, 1, o);
    const char *ee = cap_end();
    CHECK(rr == 0 && !strstr(ee, "E RKNN"), "release of a never-fetched array: %d, '%s'", rr, ee);
    rknn_destroy(ctx);

    /* COLLECT_MODEL_INFO_ONLY contexts never run */
    ctx = init_mnist(RKNN_FLAG_COLLECT_MODEL_INFO_ONLY);
    EXPECT(rknn_run(ctx, NULL), RKNN_ERR_FAIL, "rknn_run is denied if set "
           "RKNN_FLAG_COLLECT_MODEL_INFO_ONLY flag!");
    rknn_destroy(ctx);
}

/* RKNN_FLAG_MODEL_BUFFER_ZERO_COPY: the model must lie inside the buffer of `size`
 * bytes; the buffer is exactly that long, so ASan sees any read past it. */
static void test_zero_copy_model(void)
{
    rknn_init_extend ext;
    rknn_context ctx = 0;
    unsigned char *buf = NULL;
    void *model = NULL;
    size_t len = 0;
    uint32_t size;
    char err[256];

    CHECK(rt_read_file(MNIST, &model, &len, err, sizeof err) == 0, "%s", err);
    if (!model)
        return;
    size = (uint32_t)len + 100;
    buf = calloc(1, size);
    memcpy(buf + 100, model, len);
    free(model);
    memset(&ext, 0, sizeof(ext));
    ext.real_model_offset = 100;
    ext.real_model_size = (uint32_t)len;
    CHECK(rknn_init(&ctx, buf, size, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, &ext) == 0 && ctx,
          "model inside the buffer");
    rknn_destroy(ctx);
    ext.real_model_size = 0; /* 0: the rest of the buffer */
    CHECK(rknn_init(&ctx, buf, size, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, &ext) == 0 && ctx,
          "real_model_size 0 = to the end of the buffer");
    rknn_destroy(ctx);
    ctx = 0;

    ext.real_model_size = (uint32_t)len + 1;
    EXPECT(rknn_init(&ctx, buf, size, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, &ext),
           RKNN_ERR_PARAM_INVALID, "real_model_offset 100", "real_model_size", "do not lie inside");
    ext.real_model_size = 0xffffffffu; /* offset + size wraps around in 32 bits */
    EXPECT(rknn_init(&ctx, buf, size, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, &ext),
           RKNN_ERR_PARAM_INVALID, "do not lie inside");
    ext.real_model_offset = (int32_t)size;
    ext.real_model_size = 0;
    EXPECT(rknn_init(&ctx, buf, size, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, &ext),
           RKNN_ERR_PARAM_INVALID, "do not lie inside");
    ext.real_model_offset = 0x7fffffff;
    ext.real_model_size = 16;
    EXPECT(rknn_init(&ctx, buf, size, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, &ext),
           RKNN_ERR_PARAM_INVALID, "do not lie inside");
    ext.real_model_offset = -100;
    EXPECT(rknn_init(&ctx, buf + 100, size - 100, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, &ext),
           RKNN_ERR_PARAM_INVALID, "real_model_offset -100");
    ext.real_model_offset = 0;
    ext.real_model_size = 0;
    EXPECT(rknn_init(&ctx, buf, 0, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, &ext),
           RKNN_ERR_PARAM_INVALID, "buffer of size 0");
    EXPECT(rknn_init(&ctx, buf, size, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, NULL),
           RKNN_ERR_PARAM_INVALID, "rknn_init_extend");
    CHECK(ctx == 0, "refused inits leave the context 0");
    free(buf);
}

static void test_memory(void)
{
    rknn_context ctx = init_mnist(0);
    rknn_tensor_attr a, oa;
    rknn_tensor_mem *m, *small, *out;

    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &a, sizeof(a)) == 0, "native attr");
    memset(&oa, 0, sizeof(oa));
    CHECK(rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &oa, sizeof(oa)) == 0, "output attr");

    EXPECT_NULL(rknn_create_mem(ctx, 0), "size 0");
    EXPECT_NULL(rknn_create_mem2(0, 64, 0), "RKNN_MEM_FLAG_ALLOC_NO_CONTEXT");
    EXPECT_NULL(rknn_create_mem2(ctx, 64, 0x1000000), "unknown bits");
    EXPECT_NULL(rknn_create_mem2(ctx, 64, RKNN_FLAG_MEMORY_CACHEABLE | RKNN_FLAG_MEMORY_NON_CACHEABLE),
                "exclusive");
    EXPECT_NULL(rknn_create_mem_from_fd(ctx, 987654, NULL, 64, 0), "fd 987654");
    EXPECT_NULL(rknn_create_mem_from_phys(ctx, 0x10000000ull, NULL, 64), "physical address",
                "virt_addr");
    EXPECT_NULL(rknn_create_mem_from_mb_blk(ctx, NULL, 0), "rknn_create_mem_from_fd");

    /* a zero-copy input sized by attr.size misses the w_stride padding (28 -> 32) */
    small = rknn_create_mem(ctx, a.size);
    EXPECT(rknn_set_io_mem(ctx, small, &a), RKNN_ERR_PARAM_INVALID, "input 0 memory is 3136 bytes",
           "needs 3584", "w_stride 32 x 1 channels x 4 B", "size_with_stride");
    /* memory sized for uint8 but the attr still asks for the model's float32 */
    m = rknn_create_mem(ctx, 28 * 32);
    EXPECT(rknn_set_io_mem(ctx, m, &a), RKNN_ERR_PARAM_INVALID, "896 bytes", "FP32");
    a.type = RKNN_TENSOR_UINT8;
    CHECK(rknn_set_io_mem(ctx, m, &a) == 0, "uint8 fits");
    /* output memory too small for the requested type */
    out = rknn_create_mem(ctx, 20);
    EXPECT(rknn_set_io_mem(ctx, out, &oa), RKNN_ERR_PARAM_INVALID, "output 0 memory is 20 bytes",
           "needs 40");
    oa.type = RKNN_TENSOR_FLOAT16;
    CHECK(rknn_set_io_mem(ctx, out, &oa) == 0, "fp16 output fits 20 bytes");
    /* int8 output of a float model needs a scale */
    oa.type = RKNN_TENSOR_INT8;
    EXPECT(rknn_set_io_mem(ctx, out, &oa), RKNN_ERR_PARAM_INVALID, "needs a scale",
           "RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC");
    oa.type = RKNN_TENSOR_FLOAT16;
    a.w_stride = 20;
    EXPECT(rknn_set_io_mem(ctx, m, &a), RKNN_ERR_PARAM_INVALID, "w_stride 20", "width 28");
    a.w_stride = 32;
    rknn_tensor_attr named = a;
    strcpy(named.name, "no_such_tensor");
    EXPECT(rknn_set_io_mem(ctx, m, &named), RKNN_ERR_PARAM_INVALID, "no_such_tensor",
           "names no input or output");
    EXPECT(rknn_set_io_mem(ctx, m, NULL), RKNN_ERR_PARAM_INVALID, "attr == NULL");
    EXPECT(rknn_mem_sync(ctx, m, (rknn_mem_sync_mode)8), RKNN_ERR_PARAM_INVALID, "mode 8");

    /* destroyed memory: refused by destroy, sync, bind; a run with it still bound fails */
    CHECK(rknn_destroy_mem(ctx, m) == 0, "destroy mem");
    EXPECT(rknn_destroy_mem(ctx, m), RKNN_ERR_PARAM_INVALID, "double destroy");
    EXPECT(rknn_mem_sync(ctx, m, RKNN_MEMORY_SYNC_TO_DEVICE), RKNN_ERR_PARAM_INVALID,
           "not a live rknn_tensor_mem");
    EXPECT(rknn_set_io_mem(ctx, m, &a), RKNN_ERR_PARAM_INVALID, "not a live rknn_tensor_mem");
    EXPECT(rknn_run(ctx, NULL), RKNN_ERR_INPUT_INVALID, "input 0", "destroyed");
    EXPECT(rknn_destroy_mem(ctx, NULL), RKNN_ERR_PARAM_INVALID, "mem == NULL");

    /* weight/internal memory without the flag that asks for it */
    EXPECT(rknn_set_weight_mem(ctx, small), RKNN_ERR_FAIL,
           "You must set RKNN_FLAG_MEM_ALLOC_OUTSIDE on rknn_init() if you want to call "
           "rknn_set_weight_mem!");
    EXPECT(rknn_set_internal_mem(ctx, small), RKNN_ERR_FAIL, "RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE");
    rknn_destroy_mem(ctx, small);
    rknn_destroy_mem(ctx, out);
    rknn_destroy(ctx);

    ctx = init_mnist(RKNN_FLAG_MEM_ALLOC_OUTSIDE);
    set_input(ctx);
    EXPECT(rknn_run(ctx, NULL), RKNN_ERR_FAIL, "rknn_set_weight_mem", "total_weight_size");
    small = rknn_create_mem(ctx, 8);
    EXPECT(rknn_set_weight_mem(ctx, small), RKNN_ERR_PARAM_INVALID, "mem has 8 bytes");
    EXPECT(rknn_set_internal_mem(ctx, small), RKNN_ERR_PARAM_INVALID, "total_internal_size");
    rknn_destroy_mem(ctx, small);
    rknn_destroy(ctx);
}

static void test_shapes_and_cores(void)
{
    rknn_context ctx;
    rknn_tensor_attr a;

    ctx = init_mnist(0);
    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof(a)) == 0, "attr");
    a.dims[1] = 32; /* mnist is static 28x28 */
    EXPECT(rknn_set_input_shapes(ctx, 1, &a), RKNN_ERR_PARAM_INVALID, "= 32", "fixes it");
    a.dims[1] = 28;
    a.n_dims = 3;
    EXPECT(rknn_set_input_shapes(ctx, 1, &a), RKNN_ERR_PARAM_INVALID, "n_dims 3", "rank 4");
    EXPECT(rknn_set_input_shapes(ctx, 2, &a), RKNN_ERR_PARAM_INVALID, "one attr per model input");
    EXPECT(rknn_set_input_shape(ctx, NULL), RKNN_ERR_PARAM_INVALID, "attr == NULL");
    EXPECT(rknn_set_core_mask(ctx, (rknn_core_mask)6), RKNN_ERR_PARAM_INVALID, "0x6",
           "RKNN_NPU_CORE_AUTO");
    rknn_destroy(ctx);

    setenv("RKNN_TARGET", "rk3566", 1);
    ctx = init_mnist(0);
    unsetenv("RKNN_TARGET");
    EXPECT(rknn_set_core_mask(ctx, RKNN_NPU_CORE_0_1), RKNN_ERR_FAIL, "single NPU core", "rk3566");
    EXPECT(rknn_set_batch_core_num(ctx, 2), RKNN_ERR_FAIL, "single NPU core");
    rknn_destroy(ctx);
}

/* Binding non-native attrs works and converts (as the vendor runtime does), with a W
 * line naming the conversion and the NATIVE query; native bindings are silent.
 * Oracle: Y = Relu(X) * [2, -1] per channel (tests/api/make_dyn_models.py), by hand. */
#define RELU4D "tests/api/dyn_relu4d.onnx"

static int bind_quiet(rknn_context ctx, rknn_tensor_mem *m, rknn_tensor_attr *a, const char **e)
{
    setenv("RKNN_LOG_LEVEL", "1", 1);
    cap_begin();
    int r = rknn_set_io_mem(ctx, m, a);
    *e = cap_end();
    unsetenv("RKNN_LOG_LEVEL");
    return r;
}

static void test_conversion_warning(void)
{
    rknn_context ctx = 0;
    rknn_tensor_attr ia, na, oa, no, nh;
    rknn_tensor_mem *in, *out, *out2;
    const char *e;
    float x[2][3][5], want[2][3][5];
    int r;

    CHECK(rknn_init(&ctx, (void *)RELU4D, 0, 0, NULL) == 0, "init relu4d");
    memset(&ia, 0, sizeof(ia));
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &ia, sizeof(ia)) == 0, "input attr");
    ia.dims[1] = 3; /* NHWC [1, 3, 5, 2] */
    ia.dims[2] = 5;
    CHECK(rknn_set_input_shapes(ctx, 1, &ia) == 0, "shape 1x2x3x5");
    memset(&na, 0, sizeof(na));
    memset(&oa, 0, sizeof(oa));
    memset(&no, 0, sizeof(no));
    memset(&nh, 0, sizeof(nh));
    CHECK(rknn_query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &na, sizeof(na)) == 0 &&
          rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &oa, sizeof(oa)) == 0 &&
          rknn_query(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, &no, sizeof(no)) == 0 &&
          rknn_query(ctx, RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR, &nh, sizeof(nh)) == 0, "queries");
    CHECK(na.fmt == RKNN_TENSOR_NC1HWC2 && na.dims[4] == 4 && oa.fmt == RKNN_TENSOR_NCHW,
          "native input NC1HWC2 C2=4 (fp32 on rk3588), output attr NCHW: %d %u %d", na.fmt,
          na.dims[4], oa.fmt);

    /* native input: silent */
    in = rknn_create_mem(ctx, na.size_with_stride);
    r = bind_quiet(ctx, in, &na, &e);
    CHECK(r == 0 && e[0] == 0, "native input binds silently: %d '%s'", r, e);
    float *p = in->virt_addr; /* NC1HWC2, C1 = 1, C2 = 4: [h][w][c] with 4 lanes */
    for (int c = 0; c < 2; c++)
        for (int h = 0; h < 3; h++)
            for (int w = 0; w < 5; w++) {
                x[c][h][w] = (float)((c * 15 + h * 5 + w) % 7) - 3.0f;
                p[(h * 5 + w) * 4 + c] = x[c][h][w];
                want[c][h][w] = (x[c][h][w] > 0 ? x[c][h][w] : 0) * (c == 0 ? 2.0f : -1.0f);
            }

    /* the yolov5 sample's binding: OUTPUT_ATTR (NCHW) + FLOAT32: works, warns once */
    out = rknn_create_mem(ctx, oa.n_elems * sizeof(float));
    oa.type = RKNN_TENSOR_FLOAT32;
    r = bind_quiet(ctx, out, &oa, &e);
    CHECK(r == 0 && strncmp(e, "W RKNN: [", 9) == 0 && strstr(e, "output 0") &&
          strstr(e, "FP32 NCHW") && strstr(e, "FP32 NC1HWC2") && strstr(e, "layout conversion") &&
          strstr(e, "30 elements") && strstr(e, "RKNN_QUERY_NATIVE_OUTPUT_ATTR"),
          "non-native output binding warns: %d '%s'", r, e);
    CHECK(strchr(e, '\n') == e + strlen(e) - 1, "one line: '%s'", e);
    setenv("RKNN_LOG_LEVEL", "1", 1);
    cap_begin();
    r = rknn_run(ctx, NULL);
    e = cap_end();
    CHECK(r == 0 && strstr(e, "W RKNN: ") && strstr(e, "output 0") && strstr(e, " us ") &&
          strstr(e, "NATIVE_OUTPUT_ATTR"), "first run reports the measured cost: %d '%s'", r, e);
    cap_begin();
    r = rknn_run(ctx, NULL);
    e = cap_end();
    unsetenv("RKNN_LOG_LEVEL");
    CHECK(r == 0 && e[0] == 0, "reported once per binding: '%s'", e);
    CHECK(memcmp(out->virt_addr, want, sizeof(want)) == 0, "converted NCHW output = Relu(x)*k: %g vs %g",
          ((float *)out->virt_addr)[5], want[0][1][0]);

    /* both native output queries bind silently; a type change on them warns */
    out2 = rknn_create_mem(ctx, no.size_with_stride > nh.size_with_stride ? no.size_with_stride
                                                                          : nh.size_with_stride);
    r = bind_quiet(ctx, out2, &no, &e);
    CHECK(r == 0 && e[0] == 0, "NATIVE_OUTPUT_ATTR binds silently: '%s'", e);
    r = bind_quiet(ctx, out2, &nh, &e);
    CHECK(r == 0 && e[0] == 0, "NATIVE_NHWC_OUTPUT_ATTR binds silently: '%s'", e);
    no.type = RKNN_TENSOR_FLOAT16;
    r = bind_quiet(ctx, out2, &no, &e);
    CHECK(r == 0 && strstr(e, "FP16 NC1HWC2") && strstr(e, "type conversion"),
          "fp16 on a fp32 model output warns: '%s'", e);
    /* an input in the model's NCHW order is not what the NPU reads */
    ia.fmt = RKNN_TENSOR_NCHW;
    ia.type = RKNN_TENSOR_FLOAT32;
    ia.w_stride = 0;
    r = bind_quiet(ctx, in, &ia, &e);
    CHECK(r == 0 && strstr(e, "input 0") && strstr(e, "FP32 NCHW") &&
          strstr(e, "RKNN_QUERY_NATIVE_INPUT_ATTR"), "NCHW input binding warns: '%s'", e);
    /* without RKNN_LOG_LEVEL nothing is printed */
    cap_begin();
    r = rknn_set_io_mem(ctx, in, &ia);
    e = cap_end();
    CHECK(r == 0 && e[0] == 0, "silent at level 0: '%s'", e);
    rknn_destroy_mem(ctx, in);
    rknn_destroy_mem(ctx, out);
    rknn_destroy_mem(ctx, out2);
    rknn_destroy(ctx);

    /* a uint8 image into a 1-channel NHWC input is the NPU's own input path */
    ctx = init_mnist(0);
    memset(&na, 0, sizeof(na));
    CHECK(rknn_query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &na, sizeof(na)) == 0, "mnist native");
    na.type = RKNN_TENSOR_UINT8;
    in = rknn_create_mem(ctx, na.size_with_stride);
    r = bind_quiet(ctx, in, &na, &e);
    CHECK(r == 0 && e[0] == 0, "uint8 NHWC image input binds silently: '%s'", e);
    rknn_destroy_mem(ctx, in);
    rknn_destroy(ctx);
}

/* The rest of the list: a destroyed output memory, a bad attr index, and the
 * output functions on a destroyed context. */
static void test_outputs_destroyed(void)
{
    rknn_context ctx = init_mnist(0);
    rknn_tensor_attr oa;
    rknn_tensor_mem *m;
    rknn_output o;

    memset(&oa, 0, sizeof(oa));
    CHECK(rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &oa, sizeof(oa)) == 0, "output attr");
    m = rknn_create_mem(ctx, oa.size);
    CHECK(rknn_set_io_mem(ctx, m, &oa) == 0, "bind output");
    set_input(ctx);
    CHECK(rknn_destroy_mem(ctx, m) == 0, "destroy the bound output memory");
    EXPECT(rknn_run(ctx, NULL), RKNN_ERR_OUTPUT_INVALID, "output 0", "destroyed",
           "rknn_set_io_mem");
    /* a tensor name that exists but an index that does not: found by name */
    m = rknn_create_mem(ctx, oa.size);
    oa.index = 7;
    CHECK(rknn_set_io_mem(ctx, m, &oa) == 0, "bound by name despite index 7");
    strcpy(oa.name, "");
    EXPECT(rknn_set_io_mem(ctx, m, &oa), RKNN_ERR_PARAM_INVALID, "index 7", "names no input or output");
    CHECK(rknn_run(ctx, NULL) == 0, "run with a live binding");
    memset(&o, 0, sizeof(o));
    o.want_float = 1;
    CHECK(rknn_outputs_get(ctx, 1, &o, NULL) == 0, "get");
    CHECK(rknn_destroy(ctx) == 0, "destroy with outputs held (freed by destroy)");
    EXPECT(rknn_outputs_release(ctx, 1, &o), RKNN_ERR_CTX_INVALID, "rknn_outputs_release",
           "destroyed");
    EXPECT(rknn_wait(ctx, NULL), RKNN_ERR_CTX_INVALID, "rknn_wait");
    EXPECT(rknn_set_io_mem(ctx, m, &oa), RKNN_ERR_CTX_INVALID, "rknn_set_io_mem");
    rknn_destroy_mem(0, m);
}

/* A dynamic model that does not prepare with its free dims at 1 (PP-OCR cls: a pooling
 * window wider than width 1) still initialises; running before rknn_set_input_shapes is
 * refused with the fix named. Oracle: the model ends in a 2-way Softmax. */
static void test_dynamic_pending(void)
{
    rknn_context ctx = 0;
    rknn_tensor_attr a, oa;
    rknn_mem_size ms;
    rknn_input in;
    rknn_output o;
    static unsigned char img[48 * 192 * 3];
    rknn_tensor_mem *m;
    int r;

    cap_begin();
    r = rknn_init(&ctx, (void *)"tests/data/models/ppocr_mobile_v2.0_cls.onnx", 0, 0, NULL);
    cap_end();
    CHECK(r == 0 && ctx, "dynamic model that needs shapes initialises: %d", r);
    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof(a)) == 0 && a.n_dims == 4 &&
          a.fmt == RKNN_TENSOR_NHWC && a.dims[0] == 0 && a.dims[3] == 3,
          "input attr with dynamic dims as 0: %u [%u %u %u %u]", a.n_dims, a.dims[0], a.dims[1],
          a.dims[2], a.dims[3]);
    CHECK(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &ms, sizeof(ms)) == 0 && ms.total_internal_size == 0,
          "MEM_SIZE before shapes");
    memset(&in, 0, sizeof(in));
    in.buf = img;
    in.size = sizeof(img);
    in.type = RKNN_TENSOR_UINT8;
    in.fmt = RKNN_TENSOR_NHWC;
    EXPECT(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_FAIL, "rknn_set_input_shapes");
    EXPECT(rknn_run(ctx, NULL), RKNN_ERR_FAIL, "rknn_run", "rknn_set_input_shapes");
    m = rknn_create_mem(ctx, sizeof(img));
    EXPECT(rknn_set_io_mem(ctx, m, &a), RKNN_ERR_FAIL, "rknn_set_input_shapes");
    a.dims[0] = 1;
    a.dims[1] = 48;
    a.dims[2] = 192;
    CHECK(rknn_set_input_shapes(ctx, 1, &a) == 0, "set shapes 1x48x192x3");
    memset(&oa, 0, sizeof(oa));
    CHECK(rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &oa, sizeof(oa)) == 0 && oa.n_dims == 2 &&
          oa.dims[0] == 1 && oa.dims[1] == 2 && oa.type == RKNN_TENSOR_FLOAT32, "output [1,2] FP32");
    for (size_t i = 0; i < sizeof(img); i++)
        img[i] = (unsigned char)(i * 7 % 251);
    CHECK(rknn_inputs_set(ctx, 1, &in) == 0 && rknn_run(ctx, NULL) == 0, "runs after the shapes");
    memset(&o, 0, sizeof(o));
    o.want_float = 1;
    CHECK(rknn_outputs_get(ctx, 1, &o, NULL) == 0 && o.size == 8, "get");
    float *p = o.buf;
    CHECK(p[0] >= 0 && p[1] >= 0 && fabs(p[0] + p[1] - 1.0) < 1e-5, "softmax: %g + %g", p[0], p[1]);
    rknn_outputs_release(ctx, 1, &o);
    rknn_destroy_mem(ctx, m);
    rknn_destroy(ctx);
}

/* ---- `rknn-trace build` containers (docs/sim-model-format.md) ------------------------- */

#define DYN "tests/api/dyn_relu4d.onnx" /* X [1,2,H,W] -> Y = Relu(X) * {2, -1} per channel */

static char ctr_dir[64];

/* A container of the ONNX model at onnx with the given META text; its path. */
static const char *ctr_write(const char *name, const char *onnx, const char *meta)
{
    static char path[128];
    void *buf = NULL;
    size_t len = 0;
    char err[256];
    snprintf(path, sizeof(path), "%s/%s.rknn", ctr_dir, name);
    CHECK(rt_read_file(onnx, &buf, &len, err, sizeof(err)) == 0, "%s", err);
    const char *tags[2] = {"META", "ONNX"};
    const void *data[2] = {meta, buf};
    size_t lens[2] = {strlen(meta), len};
    CHECK(simmodel_write(path, 2, tags, data, lens, err, sizeof(err)) == 0, "%s", err);
    free(buf);
    return path;
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Each refused with RKNN_ERR_MODEL_INVALID and one E line naming the problem. */
static void test_container_bad(void)
{
    static const struct {
        const char *onnx, *meta, *word;
    } cases[] = {
        {DYN, "{\"dynamic_input\":[[[1,2,4,4]],[[1,2,4,4],[1,2,3,3]]]}", "set 1 has 2 input shapes"},
        {DYN, "{\"dynamic_input\":[[[1,2,4,4]],[[1,2,4]]]}", "a set changes sizes, not ranks"},
        {DYN, "{\"dynamic_input\":[[[1,2,0,4]]]}", "is not a size in 1..2^31-1"},
        {DYN, "{\"dynamic_input\":[]}", "1..512 shape sets"},
        {DYN, "{\"dynamic_input\":[[[1,2,4,4],[1,2,4,4]]]}", "the graph has 1 inputs"},
        {DYN, "{\"dynamic_input\":[[[1,2,4,4,1]]]}", "rank 5, the graph rank 4"},
        /* a set may resize a static input (Toolkit2's dynamic_input), but mnist's
         * Reshape takes 28x28 only */
        {MNIST, "{\"dynamic_input\":[[[1,1,32,32]]]}", "cannot become 256 elements"},
        {MNIST, "{\"target\":\"rk3588\"", "META is not a JSON object"},
        {MNIST, "{\"inputs\":[{\"name\":\"Input3\",\"std\":[0]}]}", "std[0] is 0"},
        {DYN, "{\"inputs\":[{\"name\":\"X\",\"reorder\":[0,0]}]}", "not a permutation"},
        {DYN, "{\"inputs\":[{\"name\":\"nope\"}]}", "'nope' is not graph input 0"},
        {DYN, "{\"inputs\":[{\"name\":\"X\"}],\"dynamic_input\":[[[1,2,4,4],[1,1]]]}",
         "sets have 2 shapes but META lists 1 inputs"},
        {MNIST, "{\"target\":\"rk9999\"}", "built for 'rk9999'"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rknn_context ctx = 0;
        char name[16];
        snprintf(name, sizeof(name), "bad%zu", i);
        const char *path = ctr_write(name, cases[i].onnx, cases[i].meta);
        int want = strstr(cases[i].meta, "rk9999") ? RKNN_ERR_TARGET_PLATFORM_UNMATCH
                                                   : RKNN_ERR_MODEL_INVALID;
        EXPECT(rknn_init(&ctx, (void *)path, 0, 0, NULL), want, cases[i].word);
        CHECK(lines(cap) == 1 && ctx == 0, "case %zu: one line, no context: %s", i, cap);
    }
}

static void test_container_target(void)
{
    rknn_context ctx = 0;
    rknn_sdk_version v;
    const char *path = ctr_write("rk3566", MNIST, "{\"format\":\"rknn-trace-sim\",\"version\":1,"
                                 "\"target\":\"rk3566\",\"quant\":\"fp32\"}");
    CHECK(rknn_init(&ctx, (void *)path, 0, 0, NULL) == 0, "a container of version-1 META loads");
    CHECK(rknn_query(ctx, RKNN_QUERY_SDK_VERSION, &v, sizeof(v)) == 0 &&
          strstr(v.drv_version, "rk3566"), "runs as its target: %s", v.drv_version);
    EXPECT(rknn_set_core_mask(ctx, RKNN_NPU_CORE_1), RKNN_ERR_FAIL, "rk3566", "single NPU core");
    rknn_destroy(ctx);
    setenv("RKNN_TARGET", "rk3588", 1);
    ctx = 0;
    EXPECT(rknn_init(&ctx, (void *)path, 0, 0, NULL), RKNN_ERR_TARGET_PLATFORM_UNMATCH,
           "target platform of the model is rk3566", "rk3588", "-t rk3588");
    CHECK(lines(cap) == 1 && ctx == 0, "one line: %s", cap);
    unsetenv("RKNN_TARGET");
}

/* A model with an op the target runs on neither its NPU nor its CPU (ArgMax on RV1106:
 * rknn-oplist.md) is refused as a board refuses it: RKNN_ERR_FAIL, "unsupport cpu
 * ArgMax op" (librknnmrt, rknn-toolkit2 issue 557); here in one line with the chip. */
static void test_container_unrunnable(void)
{
    rknn_context ctx = 0;
    const char *meta = "{\"format\":\"rknn-trace-sim\",\"version\":1,\"target\":\"%s\","
                       "\"quant\":\"fp32\"}";
    char m[160];
    snprintf(m, sizeof(m), meta, "rv1106");
    const char *path = ctr_write("argmax1106", "tests/api/argmax_c.onnx", m);
    EXPECT(rknn_init(&ctx, (void *)path, 0, 0, NULL), RKNN_ERR_FAIL,
           "] unsupport cpu ArgMax op, op name: ArgMax:argmax0 in current: rv1106 runs ArgMax "
           "neither on its NPU nor on its runtime's CPU");
    CHECK(lines(cap) == 1 && ctx == 0, "one line, no context: %s", cap);
    /* the same ONNX, loaded directly on an rv1106 */
    setenv("RKNN_TARGET", "rv1106", 1);
    EXPECT(rknn_init(&ctx, (void *)"tests/api/argmax_c.onnx", 0, 0, NULL), RKNN_ERR_FAIL,
           "unsupport cpu ArgMax op", "rv1106");
    CHECK(lines(cap) == 1 && ctx == 0, "onnx: one line, no context: %s", cap);
    unsetenv("RKNN_TARGET");
    /* rk3588's CPU has ArgMax: it runs */
    snprintf(m, sizeof(m), meta, "rk3588");
    path = ctr_write("argmax3588", "tests/api/argmax_c.onnx", m);
    CHECK(rknn_init(&ctx, (void *)path, 0, 0, NULL) == 0 && ctx != 0, "ArgMax on rk3588");
    rknn_destroy(ctx);
}

static uint32_t internal_at(int h, int w) /* the ONNX model prepared at one shape */
{
    rknn_context ctx = 0;
    rknn_tensor_attr a;
    rknn_mem_size m = {0};
    cap_begin();
    rknn_init(&ctx, (void *)DYN, 0, 0, NULL);
    cap_end();
    memset(&a, 0, sizeof(a));
    rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof(a));
    a.dims[1] = (uint32_t)h;
    a.dims[2] = (uint32_t)w;
    CHECK(rknn_set_input_shapes(ctx, 1, &a) == 0, "onnx at %dx%d", h, w);
    rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &m, sizeof(m));
    rknn_destroy(ctx);
    return m.total_internal_size;
}

static void test_container_shapes(void)
{
    rknn_context ctx = 0;
    rknn_input_range r;
    rknn_tensor_attr a, oa;
    rknn_mem_size m0, m1;
    const char *path = ctr_write("dyn", DYN, "{\"quant\":\"fp32\",\"inputs\":[{\"name\":\"X\","
                                 "\"mean\":[10,20],\"std\":[2,4],\"reorder\":[1,0]}],"
                                 "\"dynamic_input\":[[[1,2,4,6]],[[1,2,8,10]]]}");
    CHECK(rknn_init(&ctx, (void *)path, 0, 0, NULL) == 0, "shape-set container");
    memset(&r, 0, sizeof(r));
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &r, sizeof(r)) == 0 &&
          r.shape_number == 2 && r.n_dims == 4 && r.fmt == RKNN_TENSOR_NHWC &&
          r.dyn_range[0][1] == 4 && r.dyn_range[0][2] == 6 && r.dyn_range[0][3] == 2 &&
          r.dyn_range[1][1] == 8 && r.dyn_range[1][2] == 10 && !strcmp(r.name, "X"),
          "range: %u shapes, [%u %u %u %u] [%u %u %u %u]", r.shape_number, r.dyn_range[0][0],
          r.dyn_range[0][1], r.dyn_range[0][2], r.dyn_range[0][3], r.dyn_range[1][0],
          r.dyn_range[1][1], r.dyn_range[1][2], r.dyn_range[1][3]);
    memset(&a, 0, sizeof(a));
    memset(&oa, 0, sizeof(oa));
    /* before rknn_set_input_shapes: the largest set (the second here), as the SDK guide's
     * dynamic-shape chapter says, so that memory sized from these attrs fits every set */
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof(a)) == 0 && a.dims[1] == 8 &&
          a.dims[2] == 10 && a.size == 160 * 4, "input attr: the largest shape [%u %u %u %u]",
          a.dims[0], a.dims[1], a.dims[2], a.dims[3]);
    CHECK(rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &oa, sizeof(oa)) == 0 && oa.n_dims == 4 &&
          oa.dims[2] == 8 && oa.dims[3] == 10 && oa.size == 160 * 4,
          "output attr: the largest shape (%u dims)", oa.n_dims);
    CHECK(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &m0, sizeof(m0)) == 0, "mem size");
    uint32_t small = internal_at(4, 6), big = internal_at(8, 10);
    CHECK(big > small && m0.total_internal_size == big, "MEM_SIZE at init %u: the largest "
          "shape's %u (first %u)", m0.total_internal_size, big, small);
    a.dims[1] = 6;
    a.dims[2] = 6;
    /* a board's answer (librknnrt 2.x): RKNN_ERR_FAIL, the input's shapes, the attr */
    EXPECT(rknn_set_input_shapes(ctx, 1, &a), RKNN_ERR_FAIL,
           "] rknn_set_input_shapes error, input name = X supported input shapes are as "
           "follows:\nE RKNN: [",
           "]  shape = [1,4,6,2], layout = NHWC\nE RKNN: [",
           "]  shape = [1,8,10,2], layout = NHWC\nE RKNN: [",
           "] while get rknn_tensor_attr[0].name = X, dims = [1, 6, 6, 2], fmt = NHWC\n");
    CHECK(lines(cap) == 4, "four lines: %s", cap);
    a.dims[1] = 8;
    a.dims[2] = 10;
    CHECK(rknn_set_input_shapes(ctx, 1, &a) == 0, "a shape of the set");
    CHECK(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &m1, sizeof(m1)) == 0 &&
          m1.total_internal_size == m0.total_internal_size &&
          m1.total_dma_allocated_size == m0.total_dma_allocated_size, "MEM_SIZE never changes");
    /* raw pixels, NHWC: reorder, then (p - mean) / std, then the model */
    unsigned char px[8 * 10 * 2];
    float y[2 * 8 * 10];
    for (size_t i = 0; i < sizeof(px); i++)
        px[i] = (unsigned char)(i * 37 % 251);
    rknn_input in;
    memset(&in, 0, sizeof(in));
    in.buf = px;
    in.size = sizeof(px);
    in.type = RKNN_TENSOR_UINT8;
    in.fmt = RKNN_TENSOR_NHWC;
    rknn_output o;
    memset(&o, 0, sizeof(o));
    o.want_float = 1;
    o.is_prealloc = 1;
    o.buf = y;
    o.size = sizeof(y);
    CHECK(rknn_inputs_set(ctx, 1, &in) == 0 && rknn_run(ctx, NULL) == 0 &&
          rknn_outputs_get(ctx, 1, &o, NULL) == 0, "runs at the second shape");
    int bad = 0;
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 80; k++) {
            float x = c == 0 ? ((float)px[k * 2 + 1] - 10.0f) / 2.0f : ((float)px[k * 2] - 20.0f) / 4.0f;
            float want = (x > 0 ? x : 0) * (c == 0 ? 2.0f : -1.0f);
            bad += y[c * 80 + k] != want;
        }
    CHECK(bad == 0, "preprocessing (reorder, mean, std) as the container says: %d wrong", bad);
    rknn_destroy(ctx);
}

/* `build --shape`: one shape, a static model (no longer the ONNX's free dims). */
static void test_container_one_shape(void)
{
    rknn_context ctx = 0;
    rknn_input_range r;
    rknn_tensor_attr a;
    const char *path = ctr_write("one", DYN, "{\"dynamic_input\":[[[1,2,3,5]]]}");
    setenv("RKNN_LOG_LEVEL", "2", 1);
    cap_begin();
    int ret = rknn_init(&ctx, (void *)path, 0, 0, NULL);
    const char *e = cap_end();
    unsetenv("RKNN_LOG_LEVEL");
    CHECK(ret == 0 && strstr(e, "static_shape") && !strstr(e, "W RKNN"),
          "one shape: static, no free-dims warning: %s", e);
    memset(&a, 0, sizeof(a));
    memset(&r, 0, sizeof(r));
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof(a)) == 0 && a.dims[1] == 3 &&
          a.dims[2] == 5 && a.dims[3] == 2, "input [1,3,5,2]");
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &r, sizeof(r)) == 0 &&
          r.shape_number == 1 && r.dyn_range[0][1] == 3 && r.dyn_range[0][2] == 5,
          "range: the one shape (%u)", r.shape_number);
    a.dims[1] = 4;
    EXPECT(rknn_set_input_shapes(ctx, 1, &a), RKNN_ERR_FAIL, "]  shape = [1,3,5,2], layout = NHWC");
    rknn_destroy(ctx);
}

/* An ONNX model with free dims has no shape set: a W line names the dims. */
static void test_free_dims(void)
{
    rknn_context ctx = 0;
    rknn_input_range r;
    setenv("RKNN_LOG_LEVEL", "1", 1);
    cap_begin();
    int ret = rknn_init(&ctx, (void *)DYN, 0, 0, NULL);
    const char *e = cap_end();
    unsetenv("RKNN_LOG_LEVEL");
    CHECK(ret == 0 && strstr(e, "W RKNN: ") && strstr(e, "'X' dim 2 (H), 'X' dim 3 (W)") &&
          strstr(e, "rknn_set_input_shapes") && lines(e) == 1, "free dims named: %s", e);
    memset(&r, 0, sizeof(r));
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &r, sizeof(r)) == 0 &&
          r.shape_number == 0, "no shape set: %u", r.shape_number);
    rknn_destroy(ctx);
}

static void test_containers(void)
{
    snprintf(ctr_dir, sizeof(ctr_dir), "/tmp/rknn-ctr-XXXXXX");
    if (!mkdtemp(ctr_dir)) {
        CHECK(0, "mkdtemp");
        return;
    }
    test_container_bad();
    test_container_target();
    test_container_unrunnable();
    test_container_shapes();
    test_container_one_shape();
    test_free_dims();
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", ctr_dir);
    CHECK(system(cmd) == 0, "%s", cmd);
}

/* One frame of ctx (the two inputs of multiple_input_demo) with in[]: its float output. */
static float *vendor_frame(rknn_context ctx, rknn_input *in)
{
    rknn_output o;
    memset(&o, 0, sizeof(o));
    o.want_float = 1;
    if (rknn_inputs_set(ctx, 2, in) || rknn_run(ctx, NULL) || rknn_outputs_get(ctx, 1, &o, NULL))
        return NULL;
    float *y = malloc(o.size);
    if (y)
        memcpy(y, o.buf, o.size);
    rknn_outputs_release(ctx, 1, &o);
    return y;
}

/* Any input type converts, and fmt UNDEFINED is the framework's order (NCHW),
 * on a vendor file as on every model: clients copy attr.fmt (UNDEFINED for
 * tensors that are not 4-D) and pass their model's integer types (sherpa-onnx:
 * INT32, INT64). Oracle: the same values as UINT8 NHWC give the same output. */
static void vendor_input_types(rknn_context ctx, unsigned char *u8)
{
    static unsigned char a8[128 * 128];
    static int32_t a32[128 * 128];
    static float bf[3 * 128 * 128];
    for (int i = 0; i < 128 * 128; i++) {
        a8[i] = (unsigned char)(i * 7 + 3);
        a32[i] = a8[i];
        for (int c = 0; c < 3; c++) {
            u8[i * 3 + c] = (unsigned char)(i * 13 + c * 101);
            bf[c * 128 * 128 + i] = u8[i * 3 + c]; /* NCHW */
        }
    }
    rknn_input in[2];
    memset(in, 0, sizeof(in));
    in[0] = (rknn_input){.index = 0, .buf = a8, .size = sizeof(a8), .type = RKNN_TENSOR_UINT8,
                         .fmt = RKNN_TENSOR_NHWC};
    in[1] = (rknn_input){.index = 1, .buf = u8, .size = 3 * 128 * 128, .type = RKNN_TENSOR_UINT8,
                         .fmt = RKNN_TENSOR_NHWC};
    float *want = vendor_frame(ctx, in);
    in[0] = (rknn_input){.index = 0, .buf = a32, .size = sizeof(a32), .type = RKNN_TENSOR_INT32,
                         .fmt = RKNN_TENSOR_NHWC};
    in[1] = (rknn_input){.index = 1, .buf = bf, .size = sizeof(bf), .type = RKNN_TENSOR_FLOAT32,
                         .fmt = RKNN_TENSOR_UNDEFINED};
    float *got = vendor_frame(ctx, in);
    CHECK(want && got && !memcmp(want, got, sizeof(float) * 8 * 128 * 128),
          "INT32 NHWC and FLOAT32 UNDEFINED (NCHW) inputs give the UINT8 NHWC output");
    free(want);
    free(got);
}

/* A vendor .rknn run by the NPU emulator: the calls a board answers work (core mask,
 * memory, PERF_RUN, the model's own int8 values bound or set with pass_through),
 * those it does not take refuse the context by name, wrong inputs get the vendor's
 * size message. */
/* An RV1103 file: its runtime, librknnmrt, has no pass-through
 * (shared/research/rknn-api.md): refused by name. */
static void test_vendor_lite_pass_through(void)
{
    char p[1024];
    const char *s = getenv("RT_SHARED");
    rknn_context ctx = 0;
    rknn_tensor_attr a;
    snprintf(p, sizeof(p), "%s/data/models/rknn/retinaface.rv1103.rknn", s && *s ? s : "../shared");
    if (access(p, R_OK) != 0)
        snprintf(p, sizeof(p), "/work/shared/data/models/rknn/retinaface.rv1103.rknn");
    CHECK(rknn_init(&ctx, p, 0, 0, NULL) == 0, "init %s", p);
    if (!ctx)
        return;
    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof(a)) == 0, "INPUT_ATTR");
    void *buf = calloc(1, a.size);
    rknn_input in = {.index = 0, .buf = buf, .size = a.size, .pass_through = 1,
                     .type = a.type, .fmt = a.fmt};
    EXPECT(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_INPUT_INVALID, "pass_through", "librknnmrt");
    free(buf);
    rknn_destroy(ctx);
}

static void test_vendor_file(void)
{
    char p[1024];
    const char *s = getenv("RT_SHARED");
    rknn_context ctx = 0;
    snprintf(p, sizeof(p), "%s/data/models/rknn/multiple_input_demo.rk3588.rknn",
             s && *s ? s : "../shared");
    if (access(p, R_OK) != 0)
        snprintf(p, sizeof(p), "/work/shared/data/models/rknn/multiple_input_demo.rk3588.rknn");
    CHECK(rknn_init(&ctx, p, 0, 0, NULL) == 0, "init %s", p);
    if (!ctx)
        return;
    CHECK(rknn_set_core_mask(ctx, RKNN_NPU_CORE_0) == 0, "core mask on an rk3588 file");
    EXPECT(rknn_set_core_mask(ctx, (rknn_core_mask)8), RKNN_ERR_PARAM_INVALID,
           "rknn_set_core_mask", "0x8");
    EXPECT(rknn_set_input_shapes(ctx, 0, NULL), RKNN_ERR_CTX_INVALID, "rknn_set_input_shapes",
           "vendor .rknn run by the NPU emulator");
    rknn_perf_run perf = {.run_duration = -1};
    CHECK(rknn_query(ctx, RKNN_QUERY_PERF_RUN, &perf, sizeof(perf)) == 0 && perf.run_duration == 0,
          "PERF_RUN before a run: %lld", (long long)perf.run_duration);
    rknn_output o;
    memset(&o, 0, sizeof(o));
    EXPECT(rknn_outputs_get(ctx, 1, &o, NULL), RKNN_ERR_FAIL, "call rknn_run");
    /* the model's own values, as the full runtime takes them: an INT8 AFFINE
     * binding and pass_through (tests/samples/vendor.sh checks the outputs) */
    rknn_tensor_attr na;
    memset(&na, 0, sizeof(na));
    rknn_tensor_mem *m = rknn_create_mem(ctx, 128 * 128);
    CHECK(m && rknn_query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &na, sizeof(na)) == 0 &&
              rknn_set_io_mem(ctx, m, &na) == 0, "an INT8 AFFINE binding of input 0");
    CHECK(rknn_run(ctx, NULL) == 0, "rknn_run with input 0 bound as the model's int8 values");
    rknn_destroy_mem(ctx, m);
    static unsigned char u8[3 * 128 * 128];
    rknn_input in[2];
    memset(in, 0, sizeof(in));
    in[0].index = 1;
    in[0].buf = u8;
    in[0].size = 100;
    in[0].type = RKNN_TENSOR_UINT8;
    in[0].fmt = RKNN_TENSOR_NHWC;
    EXPECT(rknn_inputs_set(ctx, 1, in), RKNN_ERR_PARAM_INVALID, "param input size(100)",
           "model input size(49152)");
    in[0].size = sizeof(u8);
    in[0].pass_through = 1;
    CHECK(rknn_inputs_set(ctx, 1, in) == 0, "pass_through = 1: the model's int8 values");
    /* a duplicate is a context of the same file: its own inputs, the same counts */
    rknn_context dup = 0;
    rknn_input_output_num n = {0};
    CHECK(rknn_dup_context(&ctx, &dup) == 0 && dup && dup != ctx, "dup of a vendor context");
    CHECK(dup && rknn_query(dup, RKNN_QUERY_IN_OUT_NUM, &n, sizeof(n)) == 0 && n.n_input == 2 &&
              n.n_output == 1, "dup: %u inputs, %u outputs (want 2, 1)", n.n_input, n.n_output);
    if (dup) {
        vendor_input_types(dup, u8);
        rknn_destroy(dup);
    }
    rknn_destroy(ctx);
}

int main(void)
{
    test_context();
    test_query();
    test_inputs();
    test_outputs();
    test_zero_copy_model();
    test_memory();
    test_shapes_and_cores();
    test_conversion_warning();
    test_outputs_destroyed();
    test_dynamic_pending();
    test_containers();
    test_vendor_file();
    test_vendor_lite_pass_through();
    TEST_END();
}
