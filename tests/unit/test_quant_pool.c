/* The pools on int8 bytes (runtime/quant/qpool.c). GlobalAveragePool
 * against the fp32 kernel on the bytes' floats, bit for bit. MaxPool against
 * a plain loop over each window's input elements: windows of 2 and 3 taps, strides 1 to 3,
 * padding at either end, dilation, ceil_mode, rows longer than a vector,
 * on the AVX-512 rows and on the plain ones (RT_QISA lowered); windows that
 * the byte pool must refuse (padding alone, more than 3 taps). */
#include "runtime/exec/exec.h"
#include "runtime/exec/kernels.h"
#include "runtime/passes/passes.h"
#include "runtime/quant/quant.h"
#include "tests/graph_build.h"
#include "tests/test.h"

#include <stdlib.h>

typedef struct win {
    int64_t kh, kw, sh, sw, pt, pl, pb, pr, dh, dw, ceil, H, W;
} win;

/* The window of a MaxPool node with c's attributes over an H x W input. */
static int read_window(const win *c, node_window *w)
{
    graph_t *g = graph_new();
    int x = graph_add_tensor(g, "x"), y = graph_add_tensor(g, "y");
    int ni = graph_add_node(g, "pool", "MaxPool", "", 1, &x, 1, &y);
    node_t *n = &g->nodes[ni];
    set_ints(n, "kernel_shape", 2, (int64_t[]){c->kh, c->kw});
    set_ints(n, "strides", 2, (int64_t[]){c->sh, c->sw});
    set_ints(n, "pads", 4, (int64_t[]){c->pt, c->pl, c->pb, c->pr});
    set_ints(n, "dilations", 2, (int64_t[]){c->dh, c->dw});
    set_int(n, "ceil_mode", c->ceil);
    char err[160];
    int rc = node_window_read(n, 2, NULL, (int64_t[]){c->H, c->W}, w, err, sizeof(err));
    CHECK(rc == 0, "window: %s", err);
    graph_free(g);
    return rc;
}

static void pool_case(const win *c, int want_ok)
{
    node_window w;
    if (read_window(c, &w))
        return;
    int ok = quant_maxpool_bytes_ok(&w);
    CHECK(ok == want_ok, "k %lldx%lld s %lld p %lld/%lld: byte pool %s", (long long)c->kh,
          (long long)c->kw, (long long)c->sh, (long long)c->pt, (long long)c->pb,
          ok ? "taken" : "refused");
    if (!ok)
        return;
    const int64_t P = 3, H = c->H, W = c->W, OH = w.out[1], OW = w.out[2];
    uint8_t *x = malloc((size_t)(P * H * W)), *y = malloc((size_t)(P * OH * OW));
    float *yf = malloc(sizeof(float) * (size_t)(P * OH * OW));
    for (int64_t i = 0; i < P * H * W; i++)
        x[i] = (uint8_t)(rand() % 251 + (i % 7 == 0 ? 5 : 0)); /* some 255s, some 0s */
    qparam_t grid;
    quant_param_from_range(-0.7f, 2.3f, &grid);
    for (int isa = QISA_VNNI; isa >= QISA_AVX2; isa--) {
        quant_isa_force(isa);
        memset(y, 0xcd, (size_t)(P * OH * OW));
        quant_maxpool_bytes(NULL, &w, P, x, y, yf, &grid);
        int64_t bad = 0, badf = 0;
        for (int64_t p = 0; p < P; p++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    int m = -1;
                    for (int64_t i = 0; i < c->kh; i++)
                        for (int64_t j = 0; j < c->kw; j++) {
                            int64_t ih = oh * c->sh - c->pt + i * c->dh;
                            int64_t iw = ow * c->sw - c->pl + j * c->dw;
                            if (ih >= 0 && ih < H && iw >= 0 && iw < W && x[(p * H + ih) * W + iw] > m)
                                m = x[(p * H + ih) * W + iw];
                        }
                    int64_t o = (p * OH + oh) * OW + ow;
                    bad += y[o] != m;
                    badf += yf[o] != quant_dq8((int8_t)(m - 128), &grid);
                }
        CHECK(bad == 0 && badf == 0,
              "k %lldx%lld s %lldx%lld p %lld,%lld/%lld,%lld d %lld c %lld %lldx%lld isa %d: "
              "%lld bytes, %lld floats not the window's max",
              (long long)c->kh, (long long)c->kw, (long long)c->sh, (long long)c->sw,
              (long long)c->pt, (long long)c->pl, (long long)c->pb, (long long)c->pr,
              (long long)c->dh, (long long)c->ceil, (long long)H, (long long)W, isa,
              (long long)bad, (long long)badf);
    }
    quant_isa_force(QISA_AUTO);
    free(x);
    free(y);
    free(yf);
}

/* quant_gap_bytes against the fp32 GlobalAveragePool (the executor's own
 * kernel) on the bytes' floats (q - zp) * scale: the same means to the bit,
 * for plane counts that take each group size of the kernel (8, 4, 2, 1) and
 * planes with and without a tail of 1 to 3 values. */
static void gap_case(int64_t planes, int64_t h, int64_t w)
{
    char err[256] = "";
    const int64_t n = h * w, nx = planes * n;
    graph_t *g = graph_new();
    int64_t xd[4] = {1, planes, h, w};
    int x = add_tensor(g, "x", 4, xd, NULL), y = graph_add_tensor(g, "y");
    g->t[x].kind = TK_INPUT;
    graph_add_node(g, "gap", "GlobalAveragePool", "", 1, &x, 1, &y);
    graph_set_io(g, 1, &x, 1, &y);
    g->opset = 13;
    uint8_t *b = malloc((size_t)nx);
    float *xf = malloc(sizeof(float) * (size_t)nx), *got = malloc(sizeof(float) * (size_t)planes);
    qparam_t grid;
    quant_param_from_range(-0.37f, 5.1f, &grid);
    for (int64_t i = 0; i < nx; i++) {
        b[i] = (uint8_t)(rand() % 256);
        xf[i] = quant_dq8((int8_t)(b[i] - 128), &grid);
    }
    exec_t *ex = NULL;
    exec_opts o = {.nthreads = 1};
    int rc = passes_prepare(g, NULL, 0, err, sizeof(err));
    rc = rc ? rc : exec_create(g, &o, &ex, err, sizeof(err));
    rc = rc ? rc : exec_set_input(ex, 0, xf, sizeof(float) * (size_t)nx, err, sizeof(err));
    rc = rc ? rc : exec_run(ex, NULL, NULL, err, sizeof(err));
    CHECK(rc == 0, "fp32 GlobalAveragePool: %s", err);
    for (int isa = QISA_VNNI; !rc && isa >= QISA_AVX2; isa--) { /* 4 planes a vector, or not */
        quant_isa_force(isa);
        quant_gap_bytes(NULL, b, planes, n, &grid, got);
        const float *want = exec_output(ex, 0)->data;
        int64_t bad = 0;
        for (int64_t p = 0; p < planes; p++)
            bad += memcmp(&got[p], &want[p], sizeof(float)) != 0;
        CHECK(bad == 0, "GlobalAveragePool on bytes, %lld planes of %lldx%lld, isa %d: %lld means "
              "differ from the fp32 kernel's", (long long)planes, (long long)h, (long long)w,
              quant_isa(), (long long)bad);
    }
    quant_isa_force(QISA_AUTO);
    exec_free(ex);
    graph_free(g);
    free(b);
    free(xf);
    free(got);
}

int main(void)
{
    gap_case(15, 2, 96);  /* PP-OCR cls's SE pools: groups of 8, 4, 2, 1 */
    gap_case(13, 7, 7);   /* a tail of 1 */
    gap_case(8, 3, 5);    /* of 3 */
    gap_case(3, 1, 2);    /* shorter than a quad */
    gap_case(2, 41, 37);  /* long planes */
    static const win take[] = {
        {2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 0, 28, 28},  /* MNIST's first pool */
        {2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 0, 2, 96},   /* PP-OCR cls's */
        {2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 0, 9, 151},  /* odd, longer than a vector */
        {3, 3, 3, 3, 0, 0, 0, 0, 1, 1, 0, 14, 14},  /* MNIST's second */
        {3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0, 17, 133}, /* ResNet's stem pool */
        {3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 13, 70},  /* stride 1, padded */
        {2, 3, 1, 2, 0, 1, 1, 0, 1, 1, 0, 11, 65},  /* unequal axes and pads */
        {3, 3, 2, 2, 0, 0, 0, 0, 2, 2, 0, 15, 40},  /* dilation 2 */
        {2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1, 7, 9},    /* ceil_mode: a last window of one */
        {2, 2, 2, 2, 0, 0, 1, 0, 1, 1, 0, 1, 300},  /* one input row and a padding row */
    };
    for (size_t i = 0; i < sizeof(take) / sizeof(take[0]); i++)
        pool_case(&take[i], 1);
    /* refused: a window of padding alone, more than 3 taps (YOLOX's SPP) */
    pool_case(&(win){2, 2, 2, 2, 0, 0, 0, 3, 1, 1, 0, 3, 7}, 0);
    pool_case(&(win){5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 0, 13, 13}, 0);
    TEST_END();
}
