/* tests/unit/test_api_zero_copy.c — the RKNN zero-copy API as an application uses
 * it: rknn_create_mem*, rknn_set_io_mem with native (NC1HWC2, strided NHWC) and plain
 * layouts, weight/internal memory, mem_sync, core masks.
 *
 * Oracle: the general flow (rknn_inputs_set / rknn_outputs_get, itself checked
 * against onnxruntime in test_api_general) must give identical bytes; the NC1HWC2 and
 * stride decoding below is written here from the layout definition in npu-hw.md §2.1,
 * independently of the runtime's code. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rknn_api.h"
#include "tests/test.h"

#define MNIST "tests/data/models/mnist.onnx"
#define DEMO_OUT (8 * 128 * 128)

static const char *demo_path(void)
{
    static char p[1024];
    const char *s = getenv("RT_SHARED");
    snprintf(p, sizeof(p), "%s/data/models/rknn/multiple_input_demo.onnx", s && *s ? s : "../shared");
    if (access(p, R_OK) != 0)
        snprintf(p, sizeof(p), "/work/shared/data/models/rknn/multiple_input_demo.onnx");
    return p;
}

static unsigned char demo_in1(int i) { return (unsigned char)((i * 13 + 7) % 256); }
static unsigned char demo_in2(int c, int h, int w) { return (unsigned char)((c * 31 + h * 7 + w * 3) % 256); }
static unsigned char mnist_in(int i) { return (unsigned char)((i * 37 + 11) % 256); }

static rknn_tensor_attr query_attr(rknn_context ctx, rknn_query_cmd cmd, uint32_t index)
{
    rknn_tensor_attr a;
    memset(&a, 0, sizeof(a));
    a.index = index;
    CHECK(rknn_query(ctx, cmd, &a, sizeof(a)) == 0, "query %d index %u", (int)cmd, index);
    return a;
}

/* General-flow result of the demo on the formula inputs. */
static int demo_general(rknn_context ctx, float *out)
{
    static unsigned char a[128 * 128], b[128 * 128 * 3];
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
    in[0].index = 0;
    in[0].buf = a;
    in[0].size = sizeof(a);
    in[0].type = RKNN_TENSOR_UINT8;
    in[0].fmt = RKNN_TENSOR_NHWC;
    in[1].index = 1;
    in[1].buf = b;
    in[1].size = sizeof(b);
    in[1].type = RKNN_TENSOR_UINT8;
    in[1].fmt = RKNN_TENSOR_NHWC;
    if ((r = rknn_inputs_set(ctx, 2, in)) || (r = rknn_run(ctx, NULL)))
        return r;
    memset(&o, 0, sizeof(o));
    o.want_float = 1;
    if ((r = rknn_outputs_get(ctx, 1, &o, NULL)))
        return r;
    memcpy(out, o.buf, DEMO_OUT * 4);
    return rknn_outputs_release(ctx, 1, &o);
}

/* Writes the demo inputs into zero-copy memory in the (uint8, NHWC, w_stride) layout
 * the native attrs describe; row padding is filled with garbage that must be ignored. */
static void fill_demo_inputs(rknn_tensor_mem *m0, const rknn_tensor_attr *a0,
                             rknn_tensor_mem *m1, const rknn_tensor_attr *a1)
{
    unsigned char *p0 = m0->virt_addr, *p1 = m1->virt_addr;
    uint32_t ws0 = a0->w_stride, ws1 = a1->w_stride;

    memset(p0, 0xab, m0->size);
    memset(p1, 0xcd, m1->size);
    for (int h = 0; h < 128; h++)
        for (int w = 0; w < 128; w++) {
            p0[h * ws0 + w] = demo_in1(h * 128 + w);
            for (int c = 0; c < 3; c++)
                p1[(h * ws1 + w) * 3 + c] = demo_in2(c, h, w);
        }
}

static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e ? ldexpf((float)(m | 1024), e - 25) : ldexpf((float)m, -24);
    return (h & 0x8000) ? -v : v;
}

static void test_demo(void)
{
    const char *path = demo_path();
    rknn_context ctx = 0;
    float *gen = malloc(DEMO_OUT * 4), *dec = malloc(DEMO_OUT * 4);
    rknn_tensor_attr in0, in1, nat, plain, nhwc;
    rknn_tensor_mem *mi0 = NULL, *mi1 = NULL, *mo = NULL, *mo2 = NULL, *mo3 = NULL, *mo4 = NULL;
    int ok;

    CHECK(rknn_init(&ctx, (void *)path, 0, 0, NULL) == 0, "init %s", path);
    if (!ctx)
        goto out;
    CHECK(demo_general(ctx, gen) == 0, "general flow");

    /* inputs: native attrs (C = 1 and 3 -> NHWC), data given as uint8 */
    in0 = query_attr(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, 0);
    in1 = query_attr(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, 1);
    CHECK(in0.fmt == RKNN_TENSOR_NHWC && in1.fmt == RKNN_TENSOR_NHWC && in1.dims[3] == 3 &&
              in0.w_stride == 128 && in1.w_stride == 128,
          "native inputs NHWC, width 128 already aligned");
    in0.type = RKNN_TENSOR_UINT8;
    in1.type = RKNN_TENSOR_UINT8;
    mi0 = rknn_create_mem(ctx, in0.size_with_stride);
    mi1 = rknn_create_mem(ctx, in1.size_with_stride);
    CHECK(mi0 && mi1 && mi0->fd >= 0 && mi0->virt_addr && mi0->size == in0.size_with_stride &&
              mi0->flags == RKNN_TENSOR_MEMORY_FLAGS_ALLOC_INSIDE,
          "create_mem: real fd, mapping, size");
    if (!mi0 || !mi1)
        goto out;
    fill_demo_inputs(mi0, &in0, mi1, &in1);
    CHECK(rknn_set_io_mem(ctx, mi0, &in0) == 0, "bind input 0");
    CHECK(rknn_set_io_mem(ctx, mi1, &in1) == 0, "bind input 1");

    /* output 1: native NC1HWC2 fp32 */
    nat = query_attr(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, 0);
    mo = rknn_create_mem(ctx, nat.size_with_stride);
    CHECK(mo && rknn_set_io_mem(ctx, mo, &nat) == 0, "bind NC1HWC2 output");
    if (!mo)
        goto out;
    memset(mo->virt_addr, 0x7f, mo->size); /* pad lanes must be rewritten */
    CHECK(rknn_run(ctx, NULL) == 0, "zero-copy run");
    {
        const float *p = mo->virt_addr;
        uint32_t C1 = nat.dims[1], H = nat.dims[2], W = nat.dims[3], C2 = nat.dims[4];
        int pad_ok = 1;
        for (uint32_t c = 0; c < 8; c++)
            for (uint32_t h = 0; h < H; h++)
                for (uint32_t w = 0; w < W; w++)
                    dec[(c * H + h) * W + w] = p[(((c / C2) * H + h) * W + w) * C2 + c % C2];
        for (uint32_t c = 8; c < C1 * C2; c++)
            for (uint32_t hw = 0; hw < H * W; hw++)
                if (p[((c / C2) * H * W + hw) * C2 + c % C2] != 0)
                    pad_ok = 0;
        CHECK(memcmp(dec, gen, DEMO_OUT * 4) == 0, "NC1HWC2 output == general flow");
        CHECK(pad_ok, "NC1HWC2 padding lanes are zero");
    }

    /* the same mem gets the new result on the next run (memory stays bound) */
    memset(mo->virt_addr, 0, mo->size);
    CHECK(rknn_run(ctx, NULL) == 0 && ((float *)mo->virt_addr)[0] == gen[0] &&
              ((float *)mo->virt_addr)[1] == gen[128 * 128],
          "second run writes the bound output again");

    /* output 2: plain NCHW fp32, bound to rknn_create_mem2 memory made without a context */
    plain = query_attr(ctx, RKNN_QUERY_OUTPUT_ATTR, 0);
    mo2 = rknn_create_mem2(0, plain.size, RKNN_MEM_FLAG_ALLOC_NO_CONTEXT | RKNN_FLAG_MEMORY_CACHEABLE);
    CHECK(mo2 && rknn_set_io_mem(ctx, mo2, &plain) == 0, "bind NCHW output (create_mem2)");
    CHECK(rknn_run(ctx, NULL) == 0, "run NCHW");
    CHECK(mo2 && rknn_mem_sync(ctx, mo2, RKNN_MEMORY_SYNC_FROM_DEVICE) == 0, "mem_sync");
    CHECK(mo2 && memcmp(mo2->virt_addr, gen, DEMO_OUT * 4) == 0, "NCHW output == general flow");

    /* output 3: NHWC from NATIVE_NHWC_OUTPUT_ATTR */
    nhwc = query_attr(ctx, RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR, 0);
    mo3 = rknn_create_mem2(ctx, nhwc.size, RKNN_FLAG_MEMORY_NON_CACHEABLE);
    CHECK(mo3 && rknn_set_io_mem(ctx, mo3, &nhwc) == 0, "bind NHWC output");
    CHECK(rknn_run(ctx, NULL) == 0, "run NHWC");
    ok = mo3 != NULL;
    for (int c = 0; ok && c < 8; c++)
        for (int hw = 0; hw < 128 * 128; hw++)
            if (((float *)mo3->virt_addr)[hw * 8 + c] != gen[c * 128 * 128 + hw])
                ok = 0;
    CHECK(ok, "NHWC output == transposed general flow");

    /* output 4: float16 NCHW */
    plain.type = RKNN_TENSOR_FLOAT16;
    mo4 = rknn_create_mem(ctx, DEMO_OUT * 2);
    CHECK(mo4 && rknn_set_io_mem(ctx, mo4, &plain) == 0, "bind fp16 output");
    CHECK(rknn_run(ctx, NULL) == 0, "run fp16");
    ok = mo4 != NULL;
    for (int i = 0; ok && i < DEMO_OUT; i++) {
        float h = half_to_float(((uint16_t *)mo4->virt_addr)[i]);
        if (fabsf(h - gen[i]) > fabsf(gen[i]) * (1.0f / 2048) + 1e-7f)
            ok = 0;
    }
    CHECK(ok, "fp16 output within half an fp16 ulp of the general flow");

    /* output 5: int8 with an affine scale, into the same fp16 mem (large enough) */
    plain.type = RKNN_TENSOR_INT8;
    plain.qnt_type = RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC;
    plain.scale = 8.0f;
    plain.zp = -3;
    CHECK(mo4 && rknn_set_io_mem(ctx, mo4, &plain) == 0, "bind int8 affine output");
    CHECK(rknn_run(ctx, NULL) == 0, "run int8");
    ok = mo4 != NULL;
    for (int i = 0; ok && i < DEMO_OUT; i++) {
        float q = nearbyintf(gen[i] / 8.0f) - 3;
        q = q < -128 ? -128 : q > 127 ? 127 : q;
        if (((int8_t *)mo4->virt_addr)[i] != (int8_t)q)
            ok = 0;
    }
    CHECK(ok, "int8 output = clamp(round(x / scale) + zp)");
out:
    if (ctx) {
        CHECK(rknn_destroy_mem(ctx, mi0) == 0 && rknn_destroy_mem(ctx, mi1) == 0, "destroy in");
        CHECK(rknn_destroy_mem(ctx, mo) == 0 && rknn_destroy_mem(0, mo2) == 0 &&
                  rknn_destroy_mem(ctx, mo3) == 0 && rknn_destroy_mem(ctx, mo4) == 0,
              "destroy out");
        rknn_destroy(ctx);
    }
    free(gen);
    free(dec);
}

/* mnist: width 28 is padded to w_stride 32 on rk3588; h_stride adds rows. */
static int mnist_general(rknn_context ctx, float out[10])
{
    unsigned char u8[784];
    rknn_input in;
    rknn_output o;
    int r;

    for (int i = 0; i < 784; i++)
        u8[i] = mnist_in(i);
    memset(&in, 0, sizeof(in));
    in.buf = u8;
    in.size = sizeof(u8);
    in.type = RKNN_TENSOR_UINT8;
    in.fmt = RKNN_TENSOR_NHWC;
    if ((r = rknn_inputs_set(ctx, 1, &in)) || (r = rknn_run(ctx, NULL)))
        return r;
    memset(&o, 0, sizeof(o));
    o.want_float = 1;
    if ((r = rknn_outputs_get(ctx, 1, &o, NULL)))
        return r;
    memcpy(out, o.buf, 40);
    return rknn_outputs_release(ctx, 1, &o);
}

static void test_mnist_strides(void)
{
    rknn_context ctx = 0;
    float gen[10];
    rknn_tensor_attr a, oa;
    rknn_tensor_mem *mi = NULL, *mo = NULL, *alias = NULL, *phys = NULL;
    void *user = NULL;

    CHECK(rknn_init(&ctx, (void *)MNIST, 0, 0, NULL) == 0, "init mnist");
    if (!ctx)
        return;
    CHECK(mnist_general(ctx, gen) == 0, "general");
    oa = query_attr(ctx, RKNN_QUERY_OUTPUT_ATTR, 0);
    mo = rknn_create_mem(ctx, oa.size);
    CHECK(mo && rknn_set_io_mem(ctx, mo, &oa) == 0, "bind output");

    /* uint8 with w_stride 32, garbage in the 4 padding columns */
    a = query_attr(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, 0);
    CHECK(a.w_stride == 32, "w_stride %u", a.w_stride);
    a.type = RKNN_TENSOR_UINT8;
    mi = rknn_create_mem(ctx, 28 * 32);
    if (!mi || !mo)
        goto out;
    memset(mi->virt_addr, 0xee, mi->size);
    for (int h = 0; h < 28; h++)
        for (int w = 0; w < 28; w++)
            ((unsigned char *)mi->virt_addr)[h * 32 + w] = mnist_in(h * 28 + w);
    CHECK(rknn_set_io_mem(ctx, mi, &a) == 0, "bind strided uint8 input");
    CHECK(rknn_run(ctx, NULL) == 0 && memcmp(mo->virt_addr, gen, 40) == 0,
          "w_stride input == general flow");

    /* h_stride 30: two extra rows per plane (write-only field of the attr) */
    rknn_tensor_mem *mh = rknn_create_mem(ctx, 30 * 32);
    rknn_tensor_attr ah = a;
    ah.h_stride = 30;
    CHECK(mh != NULL, "create");
    if (mh) {
        memset(mh->virt_addr, 0x11, mh->size);
        memcpy(mh->virt_addr, mi->virt_addr, 28 * 32);
        CHECK(rknn_set_io_mem(ctx, mh, &ah) == 0, "bind h_stride input");
        CHECK(rknn_run(ctx, NULL) == 0 && memcmp(mo->virt_addr, gen, 40) == 0,
              "h_stride input == general flow");
    }

    /* pass_through: fp32 (the model's type) in the strided native layout */
    rknn_tensor_mem *mp = rknn_create_mem(ctx, a.size_with_stride);
    rknn_tensor_attr ap = query_attr(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, 0);
    ap.pass_through = 1;
    if (mp) {
        float *f = mp->virt_addr;
        for (int h = 0; h < 28; h++)
            for (int w = 0; w < 32; w++)
                f[h * 32 + w] = w < 28 ? (float)mnist_in(h * 28 + w) : -1e30f;
        CHECK(rknn_set_io_mem(ctx, mp, &ap) == 0, "bind pass_through input");
        CHECK(rknn_run(ctx, NULL) == 0 && memcmp(mo->virt_addr, gen, 40) == 0,
              "pass_through input == general flow");
    }

    /* rknn_create_mem_from_fd: the same bytes through the fd (the runtime maps it) */
    alias = rknn_create_mem_from_fd(ctx, mi->fd, NULL, mi->size, 0);
    CHECK(alias && alias->flags == RKNN_TENSOR_MEMORY_FLAGS_FROM_FD && alias->fd == mi->fd,
          "mem from fd");
    if (alias) {
        CHECK(memcmp(alias->virt_addr, mi->virt_addr, mi->size) == 0, "fd mapping shares bytes");
        CHECK(rknn_set_io_mem(ctx, alias, &a) == 0, "bind fd mem");
        memset(mo->virt_addr, 0, 40);
        CHECK(rknn_run(ctx, NULL) == 0 && memcmp(mo->virt_addr, gen, 40) == 0,
              "fd input == general flow");
    }

    /* rknn_create_mem_from_phys with a CPU mapping: works on the mapping */
    user = malloc(28 * 32);
    memcpy(user, mi->virt_addr, 28 * 32);
    phys = rknn_create_mem_from_phys(ctx, 0x12340000ull, user, 28 * 32);
    CHECK(phys && phys->phys_addr == 0x12340000ull && phys->virt_addr == user &&
              phys->flags == RKNN_TENSOR_MEMORY_FLAGS_FROM_PHYS,
          "mem from phys");
    if (phys) {
        CHECK(rknn_set_io_mem(ctx, phys, &a) == 0, "bind phys mem");
        memset(mo->virt_addr, 0, 40);
        CHECK(rknn_run(ctx, NULL) == 0 && memcmp(mo->virt_addr, gen, 40) == 0,
              "phys input == general flow");
    }
    for (int m = RKNN_MEMORY_SYNC_TO_DEVICE; m <= RKNN_MEMORY_SYNC_BIDIRECTIONAL; m++)
        CHECK(rknn_mem_sync(ctx, mi, (rknn_mem_sync_mode)m) == 0, "mem_sync mode %d", m);
    rknn_destroy_mem(ctx, mh);
    rknn_destroy_mem(ctx, mp);
out:
    CHECK(rknn_destroy_mem(ctx, alias) == 0 || !alias, "destroy alias");
    CHECK(rknn_destroy_mem(ctx, phys) == 0 || !phys, "destroy phys");
    free(user);
    rknn_destroy_mem(ctx, mi);
    rknn_destroy_mem(ctx, mo);
    rknn_destroy(ctx);
}

/* RKNN_FLAG_MEM_ALLOC_OUTSIDE: the application gives weight and internal memory. */
static void test_alloc_outside(void)
{
    rknn_context ctx = 0, plain = 0;
    rknn_mem_size ms;
    rknn_tensor_mem *w = NULL, *in = NULL;
    float a[10], b[10];

    CHECK(rknn_init(&plain, (void *)MNIST, 0, 0, NULL) == 0, "init");
    CHECK(rknn_init(&ctx, (void *)MNIST, 0, RKNN_FLAG_MEM_ALLOC_OUTSIDE, NULL) == 0, "init outside");
    if (!ctx || !plain)
        return;
    CHECK(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &ms, sizeof(ms)) == 0, "MEM_SIZE");
    w = rknn_create_mem(ctx, ms.total_weight_size);
    in = rknn_create_mem(ctx, ms.total_internal_size);
    CHECK(w && rknn_set_weight_mem(ctx, w) == 0, "set_weight_mem");
    CHECK(in && rknn_set_internal_mem(ctx, in) == 0, "set_internal_mem");
    CHECK(mnist_general(ctx, a) == 0 && mnist_general(plain, b) == 0 && memcmp(a, b, 40) == 0,
          "outside-allocated context == plain context");
    rknn_destroy_mem(ctx, w);
    rknn_destroy_mem(ctx, in);
    rknn_destroy(ctx);
    rknn_destroy(plain);

    /* INTERNAL_ALLOC_OUTSIDE alone needs only internal memory */
    ctx = 0;
    CHECK(rknn_init(&ctx, (void *)MNIST, 0, RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE, NULL) == 0, "init");
    if (ctx) {
        CHECK(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &ms, sizeof(ms)) == 0, "MEM_SIZE");
        in = rknn_create_mem(ctx, ms.total_internal_size);
        CHECK(in && rknn_set_internal_mem(ctx, in) == 0 && mnist_general(ctx, a) == 0 &&
                  memcmp(a, b, 40) == 0,
              "internal memory from outside");
        rknn_destroy_mem(ctx, in);
        rknn_destroy(ctx);
    }
}

static void test_cores(void)
{
    static const struct {
        const char *target;
        int mask, want;
    } cases[] = {
        {"rk3588", RKNN_NPU_CORE_AUTO, 0}, {"rk3588", RKNN_NPU_CORE_0, 0},
        {"rk3588", RKNN_NPU_CORE_1, 0}, {"rk3588", RKNN_NPU_CORE_2, 0},
        {"rk3588", RKNN_NPU_CORE_0_1, 0}, {"rk3588", RKNN_NPU_CORE_0_1_2, 0},
        {"rk3588", RKNN_NPU_CORE_ALL, 0}, {"rk3588", 5, RKNN_ERR_PARAM_INVALID},
        {"rk3588", RKNN_NPU_CORE_UNDEFINED, RKNN_ERR_PARAM_INVALID},
        {"rk3576", RKNN_NPU_CORE_0_1, 0}, {"rk3576", RKNN_NPU_CORE_1, 0},
        {"rk3576", RKNN_NPU_CORE_2, RKNN_ERR_PARAM_INVALID},
        {"rk3576", RKNN_NPU_CORE_0_1_2, RKNN_ERR_PARAM_INVALID},
        {"rk3568", RKNN_NPU_CORE_AUTO, 0}, {"rk3568", RKNN_NPU_CORE_0, RKNN_ERR_FAIL},
    };
    static const struct {
        const char *target;
        int n, want;
    } batch[] = {
        {"rk3588", 1, 0}, {"rk3588", 3, 0}, {"rk3588", 4, RKNN_ERR_PARAM_INVALID},
        {"rk3588", 0, RKNN_ERR_PARAM_INVALID}, {"rk3576", 2, 0},
        {"rk3576", 3, RKNN_ERR_PARAM_INVALID}, {"rk3562", 1, RKNN_ERR_FAIL},
    };
    setenv("RKNN_LOG_LEVEL", "-1", 1); /* expected errors: keep the output short */
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rknn_context ctx = 0;
        setenv("RKNN_TARGET", cases[i].target, 1);
        CHECK(rknn_init(&ctx, (void *)MNIST, 0, 0, NULL) == 0, "init %s", cases[i].target);
        int r = rknn_set_core_mask(ctx, (rknn_core_mask)cases[i].mask);
        CHECK(r == cases[i].want, "%s core mask 0x%x: %d, want %d", cases[i].target,
              cases[i].mask, r, cases[i].want);
        rknn_destroy(ctx);
    }
    for (size_t i = 0; i < sizeof(batch) / sizeof(batch[0]); i++) {
        rknn_context ctx = 0;
        setenv("RKNN_TARGET", batch[i].target, 1);
        CHECK(rknn_init(&ctx, (void *)MNIST, 0, 0, NULL) == 0, "init %s", batch[i].target);
        int r = rknn_set_batch_core_num(ctx, batch[i].n);
        CHECK(r == batch[i].want, "%s batch cores %d: %d, want %d", batch[i].target, batch[i].n,
              r, batch[i].want);
        rknn_destroy(ctx);
    }
    unsetenv("RKNN_TARGET");
    unsetenv("RKNN_LOG_LEVEL");
}

/* rknn_init flags that involve memory or other contexts. */
static void test_init_flags(void)
{
    rknn_context ctx = 0, shared = 0, plain = 0;
    rknn_init_extend ext;
    rknn_tensor_mem *mm;
    float a[10], b[10];
    FILE *f = fopen(MNIST, "rb");
    long len;

    CHECK(f != NULL, "open mnist");
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    /* the model bytes at an offset inside rknn_create_mem2 memory made without a context */
    mm = rknn_create_mem2(0, (uint64_t)len + 100, RKNN_MEM_FLAG_ALLOC_NO_CONTEXT);
    CHECK(mm && fread((char *)mm->virt_addr + 100, 1, (size_t)len, f) == (size_t)len, "read");
    fclose(f);
    memset(&ext, 0, sizeof(ext));
    ext.real_model_offset = 100;
    ext.real_model_size = (uint32_t)len;
    ext.model_buffer_fd = mm ? mm->fd : -1;
    CHECK(mm && rknn_init(&ctx, mm->virt_addr, mm->size, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, &ext) == 0,
          "init from a zero-copy model buffer");
    CHECK(rknn_init(&plain, (void *)MNIST, 0, 0, NULL) == 0, "init plain");
    CHECK(ctx && mnist_general(ctx, a) == 0 && mnist_general(plain, b) == 0 &&
              memcmp(a, b, sizeof(a)) == 0,
          "zero-copy model buffer context == plain context");

    /* weight sharing names a live context in extend->ctx */
    memset(&ext, 0, sizeof(ext));
    ext.ctx = plain;
    CHECK(rknn_init(&shared, (void *)MNIST, 0, RKNN_FLAG_SHARE_WEIGHT_MEM, &ext) == 0,
          "init sharing weights");
    CHECK(shared && mnist_general(shared, a) == 0 && memcmp(a, b, sizeof(a)) == 0,
          "weight-sharing context == plain context");
    rknn_destroy(shared);
    shared = 0;
    ext.ctx = shared + 0xdead;
    setenv("RKNN_LOG_LEVEL", "-1", 1);
    CHECK(rknn_init(&shared, (void *)MNIST, 0, RKNN_FLAG_SHARE_WEIGHT_MEM, &ext) ==
              RKNN_ERR_CTX_INVALID, "sharing weights of no context");
    unsetenv("RKNN_LOG_LEVEL");
    rknn_destroy(ctx);
    rknn_destroy(plain);
    rknn_destroy_mem(0, mm);
}

/* rknn_create_mem takes a dma-buf from a DMA heap where one exists; a heap that
 * refuses (here a plain file standing in for the device) falls back to memfd
 * memory that works the same way. */
static void test_dma_heap_fallback(void)
{
    rknn_context ctx = 0;
    char tmpl[] = "/tmp/rt-heap-XXXXXX", link[64], target[256] = "";
    int hf = mkstemp(tmpl);

    CHECK(hf >= 0, "temp file");
    CHECK(rknn_init(&ctx, (void *)MNIST, 0, 0, NULL) == 0, "init mnist");
    for (int k = 0; k < 2 && ctx; k++) {
        setenv("RKNN_TRACE_DMA_HEAP", k ? tmpl : "/nonexistent/heap", 1);
        rknn_tensor_mem *m = rknn_create_mem(ctx, 3000);
        CHECK(m && m->fd >= 0 && m->size == 3000 && m->virt_addr, "mem with heap %d", k);
        if (!m)
            continue;
        snprintf(link, sizeof(link), "/proc/self/fd/%d", m->fd);
        ssize_t n = readlink(link, target, sizeof(target) - 1);
        target[n > 0 ? n : 0] = '\0';
        CHECK(strstr(target, "memfd:rknn_mem") != NULL, "fallback is memfd: %s", target);
        memset(m->virt_addr, 0x5a, 3000);
        unsigned char back[4] = {0};
        CHECK(pread(m->fd, back, 4, 2996) == 4 && back[3] == 0x5a, "fd and mapping agree");
        rknn_destroy_mem(ctx, m);
    }
    unsetenv("RKNN_TRACE_DMA_HEAP");
    if (ctx)
        rknn_destroy(ctx);
    if (hf >= 0) {
        close(hf);
        unlink(tmpl);
    }
}

int main(void)
{
    test_dma_heap_fallback();
    test_demo();
    test_mnist_strides();
    test_alloc_outside();
    test_cores();
    test_init_flags();
    TEST_END();
}
