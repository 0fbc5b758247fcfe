/* tests/unit/test_api_general.c — the RKNN C API general flow, written as an
 * application: it includes only rknn_api.h and links the runtime.
 *
 * Oracles: onnxruntime-node outputs on formula-defined inputs (tests/api/make_refs.js
 * wrote tests/api/ *.f32 and *.f64), the documented attribute rules (rknn-api.md,
 * npu-hw.md §2), and the exported symbol list of the vendor runtime.
 * Run from the repository root; RT_SHARED points at shared/ (multiple_input_demo). */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rknn_api.h"
#include "runtime/npu/npu.h"
#include "tests/test.h"
#include "tracer/tracer.h"

#define MNIST "tests/data/models/mnist.onnx"

static void *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    void *buf = NULL;
    long n;

    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc(n > 0 ? (size_t)n : 1);
    if (n < 0 || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static const char *demo_path(void)
{
    static char p[1024];
    const char *s = getenv("RT_SHARED");
    snprintf(p, sizeof(p), "%s/data/models/rknn/multiple_input_demo.onnx", s && *s ? s : "../shared");
    if (access(p, R_OK) != 0)
        snprintf(p, sizeof(p), "/work/shared/data/models/rknn/multiple_input_demo.onnx");
    return p;
}

/* |a - b| <= atol + rtol * |b| */
static int close_to(float a, float b, float atol, float rtol)
{
    return fabsf(a - b) <= atol + rtol * fabsf(b);
}

/* Expected errors: silence the E lines (RKNN_LOG_LEVEL below 0 prints nothing). */
static void cap_quiet(int on)
{
    if (on)
        setenv("RKNN_LOG_LEVEL", "-1", 1);
    else
        unsetenv("RKNN_LOG_LEVEL");
}

static float mnist_ref[10];

static int mnist_run_with(rknn_context ctx, rknn_input *in, float out[10])
{
    rknn_output o;
    int r;

    memset(&o, 0, sizeof(o));
    o.want_float = 1;
    if ((r = rknn_inputs_set(ctx, 1, in)) != 0)
        return r;
    if ((r = rknn_run(ctx, NULL)) != 0)
        return r;
    if ((r = rknn_outputs_get(ctx, 1, &o, NULL)) != 0)
        return r;
    if (o.size != 40)
        r = -100;
    else
        memcpy(out, o.buf, 40);
    rknn_outputs_release(ctx, 1, &o);
    return r;
}

static int mnist_matches(const float *out)
{
    for (int i = 0; i < 10; i++)
        if (!close_to(out[i], mnist_ref[i], 1e-3f, 1e-4f))
            return 0;
    return 1;
}

static void test_symbols(void)
{
    /* every function a 2.x librknnrt.so exports (rknn-api.md §6.1), from the .so
     * next to the tests folder */
    static const char *const names[] = {
        "rknn_init", "rknn_dup_context", "rknn_destroy", "rknn_query", "rknn_inputs_set",
        "rknn_set_batch_core_num", "rknn_set_core_mask", "rknn_run", "rknn_wait",
        "rknn_outputs_get", "rknn_outputs_release", "rknn_create_mem_from_phys",
        "rknn_create_mem_from_fd", "rknn_create_mem", "rknn_create_mem2", "rknn_destroy_mem",
        "rknn_set_weight_mem", "rknn_set_internal_mem", "rknn_set_io_mem",
        "rknn_set_input_shape", "rknn_set_input_shapes", "rknn_mem_sync",
    };
    char exe[1024], so[1100];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    void *h;

    CHECK(n > 0, "readlink /proc/self/exe");
    if (n <= 0)
        return;
    exe[n] = 0;
    *strrchr(exe, '/') = 0; /* BUILD/tests */
    snprintf(so, sizeof(so), "%s/../librknnrt.so", exe);
    h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    CHECK(h != NULL, "dlopen %s: %s", so, dlerror());
    if (!h)
        return;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        CHECK(dlsym(h, names[i]) != NULL, "librknnrt.so exports %s", names[i]);
    /* the soname applications link against */
    CHECK(dlsym(h, "rknn_destory_mem") == NULL, "1.0 spelling not exported");
    dlclose(h);
}

static void test_mnist_queries(rknn_context ctx)
{
    rknn_input_output_num io;
    rknn_tensor_attr a;
    rknn_sdk_version v;
    rknn_mem_size ms;
    rknn_custom_string cs;
    rknn_tensor_mem dm;
    rknn_input_range rg;
    size_t flen;
    void *file = read_all(MNIST, &flen);

    CHECK(rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof(io)) == 0, "IN_OUT_NUM");
    CHECK(io.n_input == 1 && io.n_output == 1, "mnist has 1 in / 1 out: %u %u", io.n_input,
          io.n_output);

    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof(a)) == 0, "INPUT_ATTR");
    CHECK(strcmp(a.name, "Input3") == 0, "input name %s", a.name);
    /* 4-D inputs are reported NHWC, like the vendor runtime does for ONNX models */
    CHECK(a.n_dims == 4 && a.dims[0] == 1 && a.dims[1] == 28 && a.dims[2] == 28 && a.dims[3] == 1,
          "input dims %u [%u %u %u %u]", a.n_dims, a.dims[0], a.dims[1], a.dims[2], a.dims[3]);
    CHECK(a.fmt == RKNN_TENSOR_NHWC, "input fmt %s", get_format_string(a.fmt));
    CHECK(a.type == RKNN_TENSOR_FLOAT32 && a.qnt_type == RKNN_TENSOR_QNT_NONE, "fp32 model");
    CHECK(a.n_elems == 784 && a.size == 3136, "n_elems %u size %u", a.n_elems, a.size);
    CHECK(a.w_stride == 28 && a.size_with_stride == 3136, "w_stride %u sws %u", a.w_stride,
          a.size_with_stride);

    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &a, sizeof(a)) == 0, "OUTPUT_ATTR");
    CHECK(a.n_dims == 2 && a.dims[0] == 1 && a.dims[1] == 10, "output dims %u [%u %u]",
          a.n_dims, a.dims[0], a.dims[1]);
    CHECK(a.fmt == RKNN_TENSOR_UNDEFINED && a.size == 40 && a.n_elems == 10, "output fmt/size");
    CHECK(strcmp(a.name, "Plus214_Output_0") == 0, "output name %s", a.name);

    /* current == declared for a static model */
    rknn_tensor_attr cur;
    memset(&cur, 0, sizeof(cur));
    CHECK(rknn_query(ctx, RKNN_QUERY_CURRENT_OUTPUT_ATTR, &cur, sizeof(cur)) == 0, "CURRENT_OUT");
    CHECK(memcmp(&cur, &a, sizeof(a)) == 0, "CURRENT_OUTPUT_ATTR == OUTPUT_ATTR");
    memset(&cur, 0, sizeof(cur));
    CHECK(rknn_query(ctx, RKNN_QUERY_CURRENT_INPUT_ATTR, &cur, sizeof(cur)) == 0, "CURRENT_IN");
    CHECK(cur.fmt == RKNN_TENSOR_NHWC && cur.dims[1] == 28 && cur.dims[3] == 1, "CURRENT_INPUT");

    /* native input, C = 1: NHWC with the width aligned to 16 on rk3588 (28 -> 32) */
    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &a, sizeof(a)) == 0, "NATIVE_INPUT");
    CHECK(a.fmt == RKNN_TENSOR_NHWC && a.n_dims == 4 && a.dims[1] == 28 && a.dims[3] == 1,
          "native input NHWC");
    CHECK(a.w_stride == 32 && a.size == 3136 && a.size_with_stride == 28 * 32 * 4,
          "native w_stride %u size %u sws %u", a.w_stride, a.size, a.size_with_stride);
    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR, &a, sizeof(a)) == 0, "CUR_NAT_IN");
    CHECK(a.w_stride == 32, "current native w_stride %u", a.w_stride);
    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR, &a, sizeof(a)) == 0, "NHWC_IN");
    CHECK(a.fmt == RKNN_TENSOR_NHWC && a.w_stride == 32, "native NHWC input");
    /* a 2-D output has no layout: UNDEFINED in every native query */
    for (int cmd = RKNN_QUERY_NATIVE_OUTPUT_ATTR; cmd <= RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR;
         cmd += 2) {
        memset(&a, 0, sizeof(a));
        CHECK(rknn_query(ctx, (rknn_query_cmd)cmd, &a, sizeof(a)) == 0, "native out %d", cmd);
        CHECK(a.fmt == RKNN_TENSOR_UNDEFINED && a.n_dims == 2 && a.dims[1] == 10,
              "native output %d fmt %s", cmd, get_format_string(a.fmt));
    }
    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR, &a, sizeof(a)) == 0, "CNO");

    CHECK(rknn_query(ctx, RKNN_QUERY_SDK_VERSION, &v, sizeof(v)) == 0, "SDK_VERSION");
    CHECK(strncmp(v.api_version, "2.3.2 (", 7) == 0 && strstr(v.api_version, "simulator"),
          "api_version '%s'", v.api_version);
    int d0 = -1, d1 = -1, d2 = -1;
    CHECK(sscanf(v.drv_version, "%d.%d.%d", &d0, &d1, &d2) == 3 && strstr(v.drv_version, "rk3588"),
          "drv_version '%s'", v.drv_version);

    CHECK(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &ms, sizeof(ms)) == 0, "MEM_SIZE");
    /* mnist's initializers hold 5994 floats (conv 8x1x5x5 + 8, 16x8x5x5 + 16, fc
     * 256x10 + 10); a float model runs in fp16 on the NPU: 2 bytes a weight, biases
     * and alignment add some, less than fp32 would take */
    CHECK(ms.total_weight_size >= 5994 * 2 && ms.total_weight_size < 5994 * 4,
          "total_weight_size %u", ms.total_weight_size);
    CHECK(ms.total_internal_size > 0 &&
              ms.total_dma_allocated_size >= (uint64_t)ms.total_weight_size + ms.total_internal_size,
          "internal %u dma %llu", ms.total_internal_size,
          (unsigned long long)ms.total_dma_allocated_size);

    memset(&cs, 'x', sizeof(cs));
    CHECK(rknn_query(ctx, RKNN_QUERY_CUSTOM_STRING, &cs, sizeof(cs)) == 0 && cs.string[0] == 0,
          "CUSTOM_STRING empty");

    CHECK(rknn_query(ctx, RKNN_QUERY_DEVICE_MEM_INFO, &dm, sizeof(dm)) == 0, "DEVICE_MEM_INFO");
    CHECK(file && dm.size == flen && dm.virt_addr && memcmp(dm.virt_addr, file, flen) == 0,
          "model buffer: %u bytes", dm.size);

    memset(&rg, 0, sizeof(rg));
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &rg, sizeof(rg)) == 0, "DYN_RANGE");
    CHECK(rg.shape_number == 1 && rg.n_dims == 4 && rg.dyn_range[0][1] == 28 &&
              rg.dyn_range[0][3] == 1 && strcmp(rg.name, "Input3") == 0,
          "static model: one shape (%u)", rg.shape_number);
    free(file);
}

static void test_mnist(void)
{
    rknn_context ctx = 0, dup = 0, buf_ctx = 0;
    unsigned char u8[784];
    float f32[784], out[10], out2[10];
    uint16_t f16[784];
    int8_t i8[784];
    rknn_input in;
    rknn_run_extend rx;
    rknn_perf_run pr;
    size_t flen;
    void *file;

    for (int i = 0; i < 784; i++) {
        u8[i] = (unsigned char)((i * 37 + 11) % 256);
        f32[i] = u8[i];
        /* integers below 2048 are exact in fp16: build the bits by hand */
        int v = u8[i], e = 0;
        if (v == 0) {
            f16[i] = 0;
        } else {
            while ((v >> e) > 1)
                e++;
            f16[i] = (uint16_t)(((e + 15) << 10) | (((v << 10) >> e) & 0x3ff));
        }
        i8[i] = (int8_t)(u8[i] - 128);
    }

    CHECK(rknn_init(&ctx, (void *)MNIST, 0, 0, NULL) == 0, "init from a path");
    if (!ctx)
        return;
    test_mnist_queries(ctx);

    memset(&in, 0, sizeof(in));
    in.buf = u8;
    in.size = sizeof(u8);
    in.type = RKNN_TENSOR_UINT8;
    in.fmt = RKNN_TENSOR_NHWC;
    CHECK(mnist_run_with(ctx, &in, out) == 0, "uint8 NHWC run");
    CHECK(mnist_matches(out), "uint8 input vs onnxruntime: %g vs %g", out[1], mnist_ref[1]);

    in.buf = f32;
    in.size = sizeof(f32);
    in.type = RKNN_TENSOR_FLOAT32;
    in.fmt = RKNN_TENSOR_NCHW;
    CHECK(mnist_run_with(ctx, &in, out) == 0 && mnist_matches(out), "float32 NCHW run");

    in.buf = f16;
    in.size = sizeof(f16);
    in.type = RKNN_TENSOR_FLOAT16;
    in.fmt = RKNN_TENSOR_NHWC;
    CHECK(mnist_run_with(ctx, &in, out) == 0 && mnist_matches(out), "float16 run");

    /* int8: the same values shifted by -128, checked against float32 input of the
     * same shifted values (the float path is the one checked against onnxruntime) */
    in.buf = i8;
    in.size = sizeof(i8);
    in.type = RKNN_TENSOR_INT8;
    CHECK(mnist_run_with(ctx, &in, out) == 0, "int8 run");
    for (int i = 0; i < 784; i++)
        f32[i] = (float)i8[i];
    in.buf = f32;
    in.size = sizeof(f32);
    in.type = RKNN_TENSOR_FLOAT32;
    CHECK(mnist_run_with(ctx, &in, out2) == 0, "shifted float run");
    CHECK(memcmp(out, out2, sizeof(out)) == 0, "int8 input == its float32 values");
    CHECK(!mnist_matches(out2), "shifted input changes the result (test is live)");

    /* pass_through: the model's own type (fp32) in the native layout (NHWC, C = 1) */
    for (int i = 0; i < 784; i++)
        f32[i] = u8[i];
    in.buf = f32;
    in.size = sizeof(f32);
    in.pass_through = 1;
    in.type = RKNN_TENSOR_UINT8; /* ignored with pass_through */
    CHECK(mnist_run_with(ctx, &in, out) == 0 && mnist_matches(out), "pass_through run");
    in.pass_through = 0;
    in.type = RKNN_TENSOR_FLOAT32;

    /* outputs: preallocated, native type (want_float = 0), frame ids */
    rknn_output o[1];
    float pre[16];
    memset(o, 0, sizeof(o));
    memset(&rx, 0, sizeof(rx));
    CHECK(rknn_inputs_set(ctx, 1, &in) == 0, "set");
    CHECK(rknn_run(ctx, &rx) == 0 && rx.frame_id > 0, "run frame_id %llu",
          (unsigned long long)rx.frame_id);
    uint64_t f1 = rx.frame_id;
    CHECK(rknn_run(ctx, &rx) == 0 && rx.frame_id == f1 + 1, "frame_id increments");
    CHECK(rknn_wait(ctx, &rx) == 0 && rx.frame_id == f1 + 1, "rknn_wait");
    o[0].is_prealloc = 1;
    o[0].buf = pre;
    o[0].size = sizeof(pre);
    o[0].want_float = 0;
    rknn_output_extend ox = {0};
    CHECK(rknn_outputs_get(ctx, 1, o, &ox) == 0 && ox.frame_id == f1 + 1, "prealloc get");
    CHECK(o[0].buf == pre && mnist_matches(pre), "prealloc buffer holds fp32 output");
    CHECK(rknn_outputs_release(ctx, 1, o) == 0, "release prealloc (no-op)");

    CHECK(rknn_query(ctx, RKNN_QUERY_PERF_RUN, &pr, sizeof(pr)) == 0 && pr.run_duration > 0 &&
              pr.run_duration < 10000000,
          "PERF_RUN %lld us", (long long)pr.run_duration);

    /* a second context from the file bytes (size > 0) gives the same outputs */
    file = read_all(MNIST, &flen);
    CHECK(file && rknn_init(&buf_ctx, file, (uint32_t)flen, 0, NULL) == 0, "init from bytes");
    free(file); /* the runtime keeps its own copy */
    in.buf = u8;
    in.size = sizeof(u8);
    in.type = RKNN_TENSOR_UINT8;
    CHECK(buf_ctx && mnist_run_with(buf_ctx, &in, out) == 0 && mnist_matches(out),
          "buffer-loaded context");
    CHECK(buf_ctx && buf_ctx != ctx, "distinct handles");

    /* dup: independent context, survives the original */
    CHECK(rknn_dup_context(&ctx, &dup) == 0 && dup && dup != ctx, "dup_context");
    CHECK(rknn_destroy(ctx) == 0, "destroy original");
    CHECK(dup && mnist_run_with(dup, &in, out) == 0 && mnist_matches(out), "dup runs alone");

    /* set_input_shapes with the shape the model has is accepted (NHWC dims) */
    rknn_tensor_attr sa;
    memset(&sa, 0, sizeof(sa));
    CHECK(rknn_query(dup, RKNN_QUERY_INPUT_ATTR, &sa, sizeof(sa)) == 0, "attr for shapes");
    CHECK(rknn_set_input_shapes(dup, 1, &sa) == 0, "set_input_shapes, same shape");
    CHECK(rknn_set_input_shape(dup, &sa) == 0, "set_input_shape, same shape");
    CHECK(mnist_run_with(dup, &in, out) == 0 && mnist_matches(out), "runs after set shapes");

    CHECK(rknn_destroy(dup) == 0, "destroy dup");
    CHECK(rknn_destroy(buf_ctx) == 0, "destroy buffer ctx");
}

/* RKNN_FLAG_ASYNC_MASK: rknn_outputs_get returns the result of the run before the
 * last one (the first frame returns its own). */
static void test_async(void)
{
    rknn_context ctx = 0, plain = 0;
    unsigned char pat[784], zero[784];
    float r_pat[10], r_zero[10], out[10];
    rknn_input in;
    rknn_output o;
    rknn_output_extend ox;

    for (int i = 0; i < 784; i++) {
        pat[i] = (unsigned char)((i * 37 + 11) % 256);
        zero[i] = 0;
    }
    CHECK(rknn_init(&plain, (void *)MNIST, 0, 0, NULL) == 0, "init");
    CHECK(rknn_init(&ctx, (void *)MNIST, 0, RKNN_FLAG_ASYNC_MASK, NULL) == 0, "init async");
    if (!ctx || !plain)
        return;
    memset(&in, 0, sizeof(in));
    in.size = 784;
    in.type = RKNN_TENSOR_UINT8;
    in.fmt = RKNN_TENSOR_NHWC;
    in.buf = zero;
    CHECK(mnist_run_with(plain, &in, r_zero) == 0, "plain zero");
    in.buf = pat;
    CHECK(mnist_run_with(plain, &in, r_pat) == 0 && mnist_matches(r_pat), "plain pattern");
    CHECK(memcmp(r_pat, r_zero, sizeof(r_pat)) != 0, "the two inputs differ in result");

    CHECK(mnist_run_with(ctx, &in, out) == 0 && memcmp(out, r_pat, 40) == 0,
          "async first frame: its own result");
    in.buf = zero;
    CHECK(mnist_run_with(ctx, &in, out) == 0 && memcmp(out, r_pat, 40) == 0,
          "async second frame: the previous (pattern) result");
    in.buf = pat;
    CHECK(rknn_inputs_set(ctx, 1, &in) == 0 && rknn_run(ctx, NULL) == 0, "third run");
    memset(&o, 0, sizeof(o));
    o.want_float = 1;
    memset(&ox, 0, sizeof(ox));
    CHECK(rknn_outputs_get(ctx, 1, &o, &ox) == 0 && memcmp(o.buf, r_zero, 40) == 0 &&
              ox.frame_id == 2, "async third frame: frame 2 (zero input), got frame %llu",
          (unsigned long long)ox.frame_id);
    rknn_outputs_release(ctx, 1, &o);
    rknn_destroy(ctx);
    rknn_destroy(plain);
}

/* Elements of a printed shape "(1,16,28,28)" (the first one of a list). */
static double shape_elems(const char *s)
{
    double n = 1;

    if (*s != '(')
        return 0;
    for (s++; *s && *s != ')';) {
        char *e;
        long long v = strtoll(s, &e, 10);
        if (e == s)
            return 0;
        n *= (double)v;
        s = *e == ',' ? e + 1 : e;
    }
    return n;
}

/* RKNN_QUERY_PERF_RUN is the predicted time of a plain rknn_run (npu.h npu_frame_us):
 * recomputed from the level-4 table read back with the vendor-log parser, each NPU
 * row by the platform's frame model (its DDR and NPU cycles; a lookup-table
 * activation also pays per output element; one core), each CPU row by its printed
 * time (truncated: the prediction lies in [sum, sum + rows], +-0.5 for rounding).
 * With no layer timed on the host (only Input/OutputOperator on the CPU) the answer
 * is the same on every run and in a plain context of the same model. */
static void check_perf_run(const char *model, rknn_input *in)
{
    const npu_platform_t *p = npu_platform_find("rk3588");
    perflog_table_t *tb = NULL;
    rknn_perf_run pr = {0}, pr2 = {0}, pr3 = {0};
    rknn_perf_detail pd = {0};
    rknn_context ctx = 0, plain = 0;
    char err[256] = "";
    double want = 0;
    int n = 0, host_rows = 0;

    CHECK(rknn_init(&ctx, (void *)model, 0, RKNN_FLAG_COLLECT_PERF_MASK, NULL) == 0 &&
              rknn_inputs_set(ctx, 1, in) == 0 && rknn_run(ctx, NULL) == 0 &&
              rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &pd, sizeof(pd)) == 0 &&
              rknn_query(ctx, RKNN_QUERY_PERF_RUN, &pr, sizeof(pr)) == 0,
          "%s: perf run", model);
    CHECK(pd.perf_data && perflog_parse(pd.perf_data, strlen(pd.perf_data), &tb, &n, err,
                                        sizeof err) == 0 && n == 1 && tb[0].n_rows > 0,
          "%s: perf table parses: %s", model, err);
    if (!tb || n < 1)
        goto out;
    for (int i = 0; i < tb[0].n_rows; i++) {
        const perflog_row_t *r = &tb[0].rows[i];
        npu_layer_t l = {0};
        snprintf(l.optype, sizeof l.optype, "%.39s", r->optype);
        if (strcmp(r->target, "NPU")) {
            want += (double)r->time_us;
        } else {
            double npu = (double)r->npu, ddr = (double)r->ddr * p->f_ddr;
            want += (fmax(npu, ddr) + p->f_overlap * fmin(npu, ddr) +
                     (npu_layer_uses_lut(&l) ? shape_elems(r->outshape) * p->f_lut : 0)) /
                        p->npu_mhz + p->f_layer_us;
        }
        host_rows += strcmp(r->target, "NPU") && strcmp(r->optype, "InputOperator") &&
                     strcmp(r->optype, "OutputOperator");
    }
    CHECK(pr.run_duration >= want - 0.5 && pr.run_duration <= want + tb[0].n_rows + 0.5,
          "%s: PERF_RUN %lld us, frame model on the table %.0f us (%d rows, "
          "total %lld)", model, (long long)pr.run_duration, want, tb[0].n_rows,
          (long long)tb[0].total_time_us);
    CHECK(pr.run_duration < tb[0].total_time_us, "%s: PERF_RUN %lld < level-4 total %lld",
          model, (long long)pr.run_duration, (long long)tb[0].total_time_us);
    if (host_rows)
        goto out;
    CHECK(rknn_run(ctx, NULL) == 0 && rknn_query(ctx, RKNN_QUERY_PERF_RUN, &pr2,
                                                 sizeof(pr2)) == 0 &&
              pr2.run_duration == pr.run_duration,
          "%s: second run: PERF_RUN %lld == %lld", model, (long long)pr2.run_duration,
          (long long)pr.run_duration);
    CHECK(rknn_init(&plain, (void *)model, 0, 0, NULL) == 0 && rknn_inputs_set(plain, 1, in) == 0 &&
              rknn_run(plain, NULL) == 0 &&
              rknn_query(plain, RKNN_QUERY_PERF_RUN, &pr3, sizeof(pr3)) == 0 &&
              pr3.run_duration == pr.run_duration,
          "%s: plain context: PERF_RUN %lld == %lld", model, (long long)pr3.run_duration,
          (long long)pr.run_duration);
out:
    if (plain)
        rknn_destroy(plain);
    if (ctx)
        rknn_destroy(ctx);
    perflog_free(tb, n);
}

static void test_perf_detail(void)
{
    rknn_context ctx = 0;
    unsigned char u8[784] = {0};
    float out[10];
    rknn_input in;
    rknn_perf_detail pd;

    CHECK(rknn_init(&ctx, (void *)MNIST, 0, RKNN_FLAG_COLLECT_PERF_MASK, NULL) == 0, "init");
    if (!ctx)
        return;
    memset(&in, 0, sizeof(in));
    in.buf = u8;
    in.size = sizeof(u8);
    in.type = RKNN_TENSOR_UINT8;
    in.fmt = RKNN_TENSOR_NHWC;
    CHECK(mnist_run_with(ctx, &in, out) == 0, "run");
    CHECK(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &pd, sizeof(pd)) == 0, "PERF_DETAIL");
    CHECK(pd.perf_data && pd.data_len == strlen(pd.perf_data), "perf text length");
    /* the NPU model's table (runtime/npu): a float model runs in fp16 on the NPU, the
     * conv rows carry cycles; mnist's conv1 is 8x5x5 MACs per output of 8x28x28 */
    CHECK(pd.perf_data && strstr(pd.perf_data, "Network Layer Information Table") &&
              strstr(pd.perf_data, "Conv:Convolution28") && strstr(pd.perf_data, "MatMul") &&
              strstr(pd.perf_data, "FLOAT16  NPU") &&
              strstr(pd.perf_data, "Total Operator Elapsed Per Frame Time(us)") &&
              strstr(pd.perf_data, "Operator Time Consuming Ranking Table"),
          "perf table:\n%s", pd.perf_data ? pd.perf_data : "(null)");
    CHECK(pd.perf_data && strstr(pd.perf_data, "(1,8,28,28)"), "conv1 output shape listed");
    rknn_destroy(ctx);
    check_perf_run(MNIST, &in);
    {
        /* a model whose frame is milliseconds: host times would not pass */
        static unsigned char img[224 * 224];
        rknn_input si = in;
        for (int i = 0; i < 224 * 224; i++)
            img[i] = (unsigned char)(i * 7);
        si.buf = img;
        si.size = sizeof(img);
        check_perf_run("tests/data/models/super_resolution_224.onnx", &si);
    }

    /* a graph the NPU model cannot cost on the chip (a float model on rv1106, whose
     * NPU has no float16; every chip now has a model): the host-time table */
    setenv("RKNN_TARGET", "rv1106", 1);
    ctx = 0;
    CHECK(rknn_init(&ctx, (void *)MNIST, 0, RKNN_FLAG_COLLECT_PERF_MASK, NULL) == 0, "init rv1106");
    unsetenv("RKNN_TARGET");
    if (!ctx)
        return;
    CHECK(mnist_run_with(ctx, &in, out) == 0, "run rv1106");
    CHECK(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &pd, sizeof(pd)) == 0 && pd.perf_data &&
              strstr(pd.perf_data, "host CPU time") && strstr(pd.perf_data, "Conv:") &&
              strstr(pd.perf_data, "Total Operator Elapsed Time(us)"),
          "host table:\n%s", pd.perf_data ? pd.perf_data : "(null)");
    rknn_destroy(ctx);
}

/* ---- multiple_input_demo: two inputs, NHWC transposition, 4-D output ---- */

static float demo_sub[1352];
static double demo_stats[2];

static unsigned char demo_in1(int i) { return (unsigned char)((i * 13 + 7) % 256); }
static unsigned char demo_in2(int c, int h, int w) { return (unsigned char)((c * 31 + h * 7 + w * 3) % 256); }

static int demo_run(rknn_context ctx, float *out /* 8*128*128 */)
{
    /* per call: two threads run this at once (a shared buffer is a data race) */
    unsigned char a[128 * 128], b[128 * 128 * 3];
    rknn_input in[2];
    rknn_output o;
    int r;

    for (int i = 0; i < 128 * 128; i++)
        a[i] = demo_in1(i);
    for (int h = 0; h < 128; h++)
        for (int w = 0; w < 128; w++)
            for (int c = 0; c < 3; c++)
                b[(h * 128 + w) * 3 + c] = demo_in2(c, h, w);
    memset(in, 0, sizeof(in));
    /* given in reverse order, by index */
    in[0].index = 1;
    in[0].buf = b;
    in[0].size = sizeof(b);
    in[0].type = RKNN_TENSOR_UINT8;
    in[0].fmt = RKNN_TENSOR_NHWC;
    in[1].index = 0;
    in[1].buf = a;
    in[1].size = sizeof(a);
    in[1].type = RKNN_TENSOR_UINT8;
    in[1].fmt = RKNN_TENSOR_NCHW;
    if ((r = rknn_inputs_set(ctx, 2, in)) || (r = rknn_run(ctx, NULL)))
        return r;
    memset(&o, 0, sizeof(o));
    o.want_float = 1;
    if ((r = rknn_outputs_get(ctx, 1, &o, NULL)))
        return r;
    if (o.size != 8 * 128 * 128 * 4)
        r = -100;
    else
        memcpy(out, o.buf, o.size);
    rknn_outputs_release(ctx, 1, &o);
    return r;
}

static int demo_matches(const float *out)
{
    double sum = 0, sabs = 0;
    for (int i = 0; i < 8 * 128 * 128; i++) {
        sum += out[i];
        sabs += fabs(out[i]);
    }
    for (int k = 0; k < 1352; k++)
        if (!close_to(out[k * 97], demo_sub[k], 1e-2f, 1e-4f))
            return 0;
    return fabs(sum - demo_stats[0]) <= 1e-4 * demo_stats[1] &&
           fabs(sabs - demo_stats[1]) <= 1e-5 * demo_stats[1];
}

typedef struct {
    rknn_context ctx;
    float *out;
    int ret;
} demo_job;

static void *demo_thread(void *p)
{
    demo_job *j = p;
    for (int k = 0; k < 3 && !j->ret; k++)
        j->ret = demo_run(j->ctx, j->out);
    return NULL;
}

static void test_demo(void)
{
    const char *path = demo_path();
    rknn_context ctx = 0, dup = 0;
    rknn_input_output_num io;
    rknn_tensor_attr a;
    float *out = malloc(8 * 128 * 128 * 4), *out2 = malloc(8 * 128 * 128 * 4);

    CHECK(access(path, R_OK) == 0, "multiple_input_demo.onnx at %s (set RT_SHARED)", path);
    CHECK(rknn_init(&ctx, (void *)path, 0, 0, NULL) == 0, "init demo");
    if (!ctx)
        goto out;
    CHECK(rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof(io)) == 0 && io.n_input == 2 &&
              io.n_output == 1, "demo io num");
    memset(&a, 0, sizeof(a));
    a.index = 1;
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof(a)) == 0 && strcmp(a.name, "input") == 0 &&
              a.fmt == RKNN_TENSOR_NHWC && a.dims[1] == 128 && a.dims[3] == 3,
          "input 1 attr %s [%u %u %u %u]", a.name, a.dims[0], a.dims[1], a.dims[2], a.dims[3]);
    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &a, sizeof(a)) == 0 && strcmp(a.name, "8") == 0 &&
              a.fmt == RKNN_TENSOR_NCHW && a.n_dims == 4 && a.dims[1] == 8 && a.dims[3] == 128 &&
              a.size == 8 * 128 * 128 * 4,
          "output attr %s fmt %s", a.name, get_format_string(a.fmt));
    /* native output of a Conv: NC1HWC2, channels aligned to 2*C2 (rknn-api.md §3.4);
     * the fp32 simulator uses C2 = 16 bytes / 4 = 4 on rk3588 */
    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, &a, sizeof(a)) == 0, "native out");
    CHECK(a.fmt == RKNN_TENSOR_NC1HWC2 && a.n_dims == 5 && a.dims[0] == 1 && a.dims[1] == 2 &&
              a.dims[2] == 128 && a.dims[3] == 128 && a.dims[4] == 4 &&
              a.size == 2 * 128 * 128 * 4 * 4 && a.w_stride == 0,
          "native out [%u %u %u %u %u] size %u", a.dims[0], a.dims[1], a.dims[2], a.dims[3],
          a.dims[4], a.size);
    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR, &a, sizeof(a)) == 0 &&
              a.fmt == RKNN_TENSOR_NHWC && a.dims[1] == 128 && a.dims[3] == 8,
          "native NHWC out");

    CHECK(demo_run(ctx, out) == 0, "demo run");
    CHECK(demo_matches(out), "demo output vs onnxruntime (out[97] %g vs %g)", out[97], demo_sub[1]);

    /* two contexts running at the same time on two threads */
    CHECK(rknn_dup_context(&ctx, &dup) == 0, "dup demo");
    if (dup) {
        demo_job j1 = {ctx, out, 0}, j2 = {dup, out2, 0};
        pthread_t t1, t2;
        pthread_create(&t1, NULL, demo_thread, &j1);
        pthread_create(&t2, NULL, demo_thread, &j2);
        pthread_join(t1, NULL);
        pthread_join(t2, NULL);
        CHECK(j1.ret == 0 && j2.ret == 0, "parallel runs %d %d", j1.ret, j2.ret);
        CHECK(demo_matches(out) && memcmp(out, out2, 8 * 128 * 128 * 4) == 0,
              "parallel contexts agree with onnxruntime and with each other");
        rknn_destroy(dup);
    }
    rknn_destroy(ctx);

    /* rk3566: 8-byte strokes, C2 = 2 for fp32, so the Conv output becomes C1 = 4 */
    setenv("RKNN_TARGET", "rk3566", 1);
    ctx = 0;
    CHECK(rknn_init(&ctx, (void *)path, 0, 0, NULL) == 0, "init rk3566");
    unsetenv("RKNN_TARGET");
    if (ctx) {
        memset(&a, 0, sizeof(a));
        CHECK(rknn_query(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, &a, sizeof(a)) == 0 &&
                  a.dims[1] == 4 && a.dims[4] == 2,
              "rk3566 native out C1 %u C2 %u", a.dims[1], a.dims[4]);
        rknn_sdk_version v;
        CHECK(rknn_query(ctx, RKNN_QUERY_SDK_VERSION, &v, sizeof(v)) == 0 &&
                  strstr(v.drv_version, "rk3566"), "platform named: %s", v.drv_version);
        rknn_destroy(ctx);
    }
out:
    free(out);
    free(out2);
}

/* ---- dynamic input shapes: tiny models of our own (tests/api/make_dyn_models.py),
 * results computed by hand (and confirmed once with onnxruntime) ---- */

static int run_float(rknn_context ctx, const float *x, uint32_t nx, rknn_tensor_format fmt,
                     float *y, uint32_t ny)
{
    rknn_input in;
    rknn_output o;
    int r;

    memset(&in, 0, sizeof(in));
    in.buf = (void *)x;
    in.size = nx * 4;
    in.type = RKNN_TENSOR_FLOAT32;
    in.fmt = fmt;
    if ((r = rknn_inputs_set(ctx, 1, &in)) || (r = rknn_run(ctx, NULL)))
        return r;
    memset(&o, 0, sizeof(o));
    o.want_float = 1;
    if ((r = rknn_outputs_get(ctx, 1, &o, NULL)))
        return r;
    if (o.size != ny * 4)
        r = -100;
    else
        memcpy(y, o.buf, o.size);
    rknn_outputs_release(ctx, 1, &o);
    return r;
}

static void test_dynamic(void)
{
    rknn_context ctx = 0;
    rknn_tensor_attr a;
    rknn_input_range rg;
    float x[30], y[30];
    /* Relu(x + [1, -2, 3]) for x = i - 5, 4 rows */
    static const float want_add[12] = {0, 0, 0, 0, 0, 3, 2, 0, 6, 5, 3, 9};
    rknn_output o;

    for (int i = 0; i < 30; i++)
        x[i] = (float)(i - 5);
    CHECK(rknn_init(&ctx, (void *)"tests/api/dyn_add.onnx", 0, 0, NULL) == 0, "init dyn_add");
    if (!ctx)
        return;
    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof(a)) == 0 && a.n_dims == 2 &&
              a.dims[0] == 1 && a.dims[1] == 3 && a.fmt == RKNN_TENSOR_UNDEFINED,
          "dynamic batch starts at 1: [%u %u]", a.dims[0], a.dims[1]);
    memset(&rg, 0, sizeof(rg));
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &rg, sizeof(rg)) == 0 &&
              rg.shape_number == 0 && rg.n_dims == 2 && strcmp(rg.name, "X") == 0,
          "dynamic input: no fixed shape list (%u)", rg.shape_number);
    CHECK(run_float(ctx, x, 3, RKNN_TENSOR_UNDEFINED, y, 3) == 0 &&
              memcmp(y, want_add, 12) == 0, "batch 1 run");
    a.dims[0] = 4;
    CHECK(rknn_set_input_shapes(ctx, 1, &a) == 0, "set_input_shapes batch 4");
    memset(&o, 0, sizeof(o));
    cap_quiet(1);
    CHECK(rknn_outputs_get(ctx, 1, &o, NULL) == RKNN_ERR_FAIL, "no result after a reshape");
    cap_quiet(0);
    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_CURRENT_INPUT_ATTR, &a, sizeof(a)) == 0 && a.dims[0] == 4 &&
              a.size == 48, "current input [%u %u] size %u", a.dims[0], a.dims[1], a.size);
    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_CURRENT_OUTPUT_ATTR, &a, sizeof(a)) == 0 && a.dims[0] == 4 &&
              a.dims[1] == 3 && a.size == 48, "current output [%u %u]", a.dims[0], a.dims[1]);
    CHECK(run_float(ctx, x, 12, RKNN_TENSOR_UNDEFINED, y, 12) == 0 && memcmp(y, want_add, 48) == 0,
          "batch 4 run: %g %g %g", y[9], y[10], y[11]);
    cap_quiet(1);
    CHECK(run_float(ctx, x, 3, RKNN_TENSOR_UNDEFINED, y, 3) == RKNN_ERR_PARAM_INVALID,
          "the old size is refused after the reshape");
    cap_quiet(0);
    rknn_destroy(ctx);

    /* 4-D with free H and W; shapes given in NHWC as the attrs show them */
    ctx = 0;
    CHECK(rknn_init(&ctx, (void *)"tests/api/dyn_relu4d.onnx", 0, 0, NULL) == 0, "init relu4d");
    if (!ctx)
        return;
    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof(a)) == 0 && a.fmt == RKNN_TENSOR_NHWC,
          "NHWC input attr");
    a.dims[1] = 3; /* H */
    a.dims[2] = 5; /* W */
    CHECK(rknn_set_input_shape(ctx, &a) == 0, "set_input_shape H=3 W=5");
    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_CURRENT_OUTPUT_ATTR, &a, sizeof(a)) == 0 &&
              a.fmt == RKNN_TENSOR_NCHW && a.dims[1] == 2 && a.dims[2] == 3 && a.dims[3] == 5,
          "current output NCHW [%u %u %u %u]", a.dims[0], a.dims[1], a.dims[2], a.dims[3]);
    memset(&a, 0, sizeof(a));
    CHECK(rknn_query(ctx, RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR, &a, sizeof(a)) == 0 &&
              a.fmt == RKNN_TENSOR_NC1HWC2 && a.dims[1] == 1 && a.dims[4] == 4,
          "native output of a Mul: C1 = ceil(2/4) = 1");
    /* NCHW input x = i - 5: channel 0 doubled, channel 1 negated, after Relu */
    CHECK(run_float(ctx, x, 30, RKNN_TENSOR_NCHW, y, 30) == 0, "relu4d run");
    int ok = 1;
    for (int i = 0; i < 30; i++) {
        float r = x[i] > 0 ? x[i] : 0;
        if (y[i] != (i < 15 ? 2 * r : -r))
            ok = 0;
    }
    CHECK(ok, "relu4d NCHW result");
    /* the same values given NHWC */
    float xh[30];
    for (int c = 0; c < 2; c++)
        for (int hw = 0; hw < 15; hw++)
            xh[hw * 2 + c] = x[c * 15 + hw];
    float y2[30];
    CHECK(run_float(ctx, xh, 30, RKNN_TENSOR_NHWC, y2, 30) == 0 && memcmp(y, y2, sizeof(y)) == 0,
          "relu4d NHWC input transposed");
    rknn_destroy(ctx);
}

static int load_refs(void)
{
    size_t n1 = 0, n2 = 0, n3 = 0;
    void *a = read_all("tests/api/mnist_out.f32", &n1);
    void *b = read_all("tests/api/demo_out_s97.f32", &n2);
    void *c = read_all("tests/api/demo_out_stats.f64", &n3);
    int ok = a && b && c && n1 == sizeof(mnist_ref) && n2 == sizeof(demo_sub) &&
             n3 == sizeof(demo_stats);
    if (ok) {
        memcpy(mnist_ref, a, n1);
        memcpy(demo_sub, b, n2);
        memcpy(demo_stats, c, n3);
    }
    free(a);
    free(b);
    free(c);
    return ok;
}

int main(void)
{
    CHECK(load_refs(), "reference files in tests/api/ (run from the repository root)");
    test_symbols();
    test_mnist();
    test_perf_detail();
    test_async();
    test_demo();
    test_dynamic();
    TEST_END();
}
