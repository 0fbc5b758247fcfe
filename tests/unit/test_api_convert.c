/* tests/unit/test_api_convert.c — rknn_inputs_set's NHWC image conversion (api_convert,
 * buffer to model) against a transposition written out here, byte for byte: uint8 and
 * float32 pixels (float NaN payloads and -0 kept as bits), 1 to 5 channels, batches of
 * two, rows padded by w_stride and images by h_stride, odd widths. The one-pass row
 * copies (3 channels) and the per-channel path must both give the same bytes as the
 * element-by-element definition. Images and flat NCHW buffers of 512 KB and more are
 * converted on an executor's two threads: the same bytes, every row and chunk once. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"
#include "runtime/api/api_internal.h"
#include "runtime/exec/exec.h"
#include "runtime/model/model.h"
#include "runtime/passes/passes.h"
#include "tests/test.h"

/* the two threads that share out large conversions (NULL: converted here) */
static exec_t *g_par;

static uint64_t seed = 0x9e3779b97f4a7c15ull;

static uint32_t next_rand(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(seed >> 32);
}

static void check_case(int u8, int64_t N, int64_t C, int64_t H, int64_t W, int64_t hs,
                       int64_t ws)
{
    api_io io;
    api_layout l;
    size_t es = u8 ? 1 : 4, nbuf = (size_t)(N * hs * ws * C), nmod = (size_t)(N * C * H * W);
    uint8_t *buf = malloc(nbuf * es);
    uint32_t *got = malloc(nmod * 4), *want = malloc(nmod * 4);

    for (size_t i = 0; i < nbuf; i++) {
        uint32_t r = next_rand();
        if (u8)
            buf[i] = (uint8_t)r;
        else
            /* every bit pattern: NaNs with payloads, infinities, denormals, -0 */
            memcpy(buf + 4 * i, &r, 4);
    }
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t h = 0; h < H; h++)
                for (int64_t w = 0; w < W; w++) {
                    size_t s = (size_t)(((n * hs + h) * ws + w) * C + c);
                    size_t d = (size_t)(((n * C + c) * H + h) * W + w);
                    if (u8) {
                        float f = (float)buf[s];
                        memcpy(&want[d], &f, 4);
                    } else {
                        memcpy(&want[d], buf + 4 * s, 4);
                    }
                }
    memset(&io, 0, sizeof(io));
    io.ndim = 4;
    io.dims[0] = N;
    io.dims[1] = C;
    io.dims[2] = H;
    io.dims[3] = W;
    memset(&l, 0, sizeof(l));
    l.fmt = RKNN_TENSOR_NHWC;
    l.rtype = u8 ? RKNN_TENSOR_UINT8 : RKNN_TENSOR_FLOAT32;
    l.h_stride = hs;
    l.w_stride = ws;
    memset(got, 0xA5, nmod * 4);
    int r = api_convert(g_par, &io, DT_FLOAT, got, buf, &l, 1, "test");
    CHECK(r == RKNN_SUCC, "api_convert returned %d", r);
    size_t bad = 0;
    for (size_t i = 0; i < nmod; i++)
        bad += got[i] != want[i];
    CHECK(bad == 0, "%s N=%lld C=%lld H=%lld W=%lld h_stride=%lld w_stride=%lld: %zu of %zu "
          "values differ", u8 ? "uint8" : "float32", (long long)N, (long long)C, (long long)H,
          (long long)W, (long long)hs, (long long)ws, bad, nmod);
    free(buf);
    free(got);
    free(want);
}

/* A flat NCHW buffer of n values: float32 copied as bits, or uint8 converted, both
 * ways (buffer to model and back for float32). */
static void check_flat(int u8, int64_t n)
{
    api_io io;
    api_layout l;
    size_t es = u8 ? 1 : 4;
    uint8_t *buf = malloc((size_t)n * es), *back = malloc((size_t)n * es);
    uint32_t *got = malloc((size_t)n * 4);

    for (int64_t i = 0; i < n * (int64_t)es; i++)
        buf[i] = (uint8_t)next_rand();
    memset(&io, 0, sizeof(io));
    io.ndim = 1;
    io.dims[0] = n;
    memset(&l, 0, sizeof(l));
    l.fmt = RKNN_TENSOR_NCHW;
    l.rtype = u8 ? RKNN_TENSOR_UINT8 : RKNN_TENSOR_FLOAT32;
    memset(got, 0xA5, (size_t)n * 4);
    int r = api_convert(g_par, &io, DT_FLOAT, got, buf, &l, 1, "test");
    size_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        uint32_t w;
        if (u8) {
            float f = (float)buf[i];
            memcpy(&w, &f, 4);
        } else {
            memcpy(&w, buf + 4 * i, 4);
        }
        bad += got[i] != w;
    }
    CHECK(r == RKNN_SUCC && bad == 0, "flat %s n=%lld: rc %d, %zu values differ",
          u8 ? "uint8" : "float32", (long long)n, r, bad);
    if (!u8) {
        memset(back, 0x5A, (size_t)n * es);
        r = api_convert(g_par, &io, DT_FLOAT, got, back, &l, 0, "test");
        CHECK(r == RKNN_SUCC && !memcmp(back, buf, (size_t)n * es),
              "flat float32 n=%lld: model to buffer rc %d, bytes differ", (long long)n, r);
    }
    free(buf);
    free(back);
    free(got);
}

static void run_cases(void)
{
    static const int64_t widths[] = {1, 7, 16, 33, 416};
    for (int u8 = 0; u8 < 2; u8++)
        for (int64_t C = 1; C <= 5; C++)
            for (size_t k = 0; k < sizeof(widths) / sizeof(widths[0]); k++) {
                int64_t W = widths[k], H = W == 416 ? 3 : 5;
                check_case(u8, 1, C, H, W, H, W);
                check_case(u8, 2, C, H, W, H + 2, W + 5); /* padded rows and images */
            }
    /* large enough to be shared out: a 416x416 frame, two padded 3x208x416 images,
     * a 4-channel frame; flat buffers that end inside a chunk */
    for (int u8 = 0; u8 < 2; u8++) {
        check_case(u8, 1, 3, 416, 416, 416, 416);
        check_case(u8, 2, 3, 208, 416, 211, 419);
        check_case(u8, 1, 4, 300, 301, 300, 301);
        check_flat(u8, 3 * 416 * 416);
        check_flat(u8, 600 * 1024 + 7);
    }
}

int main(void)
{
    run_cases();
    /* the same on an executor's two threads (MNIST's; any model gives a pool) */
    graph_t *g = NULL;
    char err[256] = "";
    exec_opts o = {.nthreads = 2, .exact_threads = 1};
    int rc = model_load_file("tests/data/models/mnist.onnx", &g, err, sizeof(err));
    rc = rc ? rc : passes_prepare(g, NULL, 0, err, sizeof(err));
    rc = rc ? rc : exec_create(g, &o, &g_par, err, sizeof(err));
    CHECK(rc == 0 && exec_threads(g_par) == 2, "an executor of two threads: %s", err);
    if (!rc)
        run_cases();
    exec_free(g_par);
    graph_free(g);
    TEST_END();
}
