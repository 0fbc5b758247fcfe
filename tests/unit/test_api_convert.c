/* tests/unit/test_api_convert.c — rknn_inputs_set's NHWC image conversion (api_convert,
 * buffer to model) against a transposition written out here, byte for byte: uint8 and
 * float32 pixels (float NaN payloads and -0 kept as bits), 1 to 5 channels, batches of
 * two, rows padded by w_stride and images by h_stride, odd widths. The one-pass row
 * copies (3 channels) and the per-channel path must both give the same bytes as the
 * element-by-element definition. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"
#include "runtime/api/api_internal.h"
#include "runtime/model/model.h"
#include "tests/test.h"

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
    int r = api_convert(&io, DT_FLOAT, got, buf, &l, 1, "test");
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

int main(void)
{
    static const int64_t widths[] = {1, 7, 16, 33, 416};
    for (int u8 = 0; u8 < 2; u8++)
        for (int64_t C = 1; C <= 5; C++)
            for (size_t k = 0; k < sizeof(widths) / sizeof(widths[0]); k++) {
                int64_t W = widths[k], H = W == 416 ? 3 : 5;
                check_case(u8, 1, C, H, W, H, W);
                check_case(u8, 2, C, H, W, H + 2, W + 5); /* padded rows and images */
            }
    TEST_END();
}
