/* tests/unit/test_kernels_nn.c — Conv, ConvTranspose, Gemm, MatMul, pools and
 * BatchNormalization against plain reference loops written here (a direct
 * convolution is independent of the im2col/sgemm and depthwise paths), over
 * many parameter combinations, with one and two threads, plus hand values. */
#include "runtime/exec/kernels.h"
#include "runtime/exec/threadpool.h"
#include "runtime/model/model.h"
#include "tests/graph_build.h"
#include "tests/test.h"
#include "util/util.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static struct threadpool *g_pool;

/* ---- graph building ---------------------------------------------------- */

static uint64_t rng = 88172645463325252ull;

static float frand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((rng >> 40) & 0xffff) / 32768.0f - 1.0f;
}

/* Infers, prepares and runs the graph's only node; output 0 data is returned
 * in *out (caller frees) with its tensor in *ot. Returns the first failing status. */
static int run_node(graph_t *g, int nthreads, float **out, tensor_t **ot, char *err, size_t errlen)
{
    node_t *n = &g->nodes[0];
    int rc;
    *out = NULL;
    n->def = exec_find_op(n->domain, n->op);
    if (!n->def)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "no op %s", n->op);
    if ((rc = n->def->infer(g, n, err, errlen)))
        return rc;
    for (int i = 0; i < n->n_out; i++) {
        tensor_t *t = node_output(g, n, i);
        if (t)
            t->data = xcalloc(1, tensor_nbytes(t) + 8);
    }
    if (n->def->prepare && (rc = n->def->prepare(g, n, err, errlen)))
        goto out;
    op_ctx c = {.nthreads = nthreads, .pool = nthreads > 1 ? g_pool : NULL, .err = err,
                .errlen = errlen};
    rc = n->def->run(&c, g, n);
out:
    *ot = node_output(g, n, 0);
    *out = (*ot)->data;
    for (int i = 1; i < n->n_out; i++) {
        tensor_t *t = node_output(g, n, i);
        if (t) {
            free(t->data);
            t->data = NULL;
        }
    }
    (*ot)->data = NULL;
    return rc;
}

static float *rand_buf(int64_t n)
{
    float *p = xmalloc((n + 1) * sizeof(float));
    for (int64_t i = 0; i < n; i++)
        p[i] = frand();
    return p;
}

static double max_diff(const float *a, const float *b, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (!(d <= m))
            m = d; /* NaN sticks */
    }
    return m;
}

/* ---- conv geometry for the references (ONNX spec formulas) ------------- */

typedef struct cg {
    int nsp;
    int64_t in[3], k[3], s[3], d[3], pb[3], pe[3], out[3];
    const char *autopad;
} cg;

/* Fills pads and out for Conv / pools (ceil only for pools). */
static void ref_conv_out(cg *p, int ceil_mode)
{
    for (int i = 0; i < p->nsp; i++) {
        int64_t ext = (p->k[i] - 1) * p->d[i] + 1;
        if (!strcmp(p->autopad, "SAME_UPPER") || !strcmp(p->autopad, "SAME_LOWER")) {
            p->out[i] = (p->in[i] + p->s[i] - 1) / p->s[i];
            int64_t tot = (p->out[i] - 1) * p->s[i] + ext - p->in[i];
            if (tot < 0)
                tot = 0;
            int64_t small = tot / 2, big = tot - tot / 2;
            p->pb[i] = !strcmp(p->autopad, "SAME_UPPER") ? small : big;
            p->pe[i] = tot - p->pb[i];
        } else {
            if (!strcmp(p->autopad, "VALID"))
                p->pb[i] = p->pe[i] = 0;
            int64_t span = p->in[i] + p->pb[i] + p->pe[i] - ext;
            if (ceil_mode) {
                p->out[i] = (span + p->s[i] - 1) / p->s[i] + 1;
                if ((p->out[i] - 1) * p->s[i] >= p->in[i] + p->pb[i])
                    p->out[i]--;
            } else {
                p->out[i] = span / p->s[i] + 1;
            }
        }
    }
}

/* Direct convolution: for every output element, sum over channel and taps. */
static void ref_conv(const cg *p, int64_t N, int64_t C, int64_t M, int64_t G, const float *x,
                     const float *w, const float *b, float *y)
{
    int64_t I[3] = {1, 1, 1}, O[3] = {1, 1, 1}, K[3] = {1, 1, 1}, S[3] = {1, 1, 1}, D[3] = {1, 1, 1},
            P[3] = {0, 0, 0};
    int off = 3 - p->nsp;
    for (int i = 0; i < p->nsp; i++) {
        I[off + i] = p->in[i];
        O[off + i] = p->out[i];
        K[off + i] = p->k[i];
        S[off + i] = p->s[i];
        D[off + i] = p->d[i];
        P[off + i] = p->pb[i];
    }
    int64_t Cg = C / G, Mg = M / G;
    for (int64_t n = 0; n < N; n++)
    for (int64_t m = 0; m < M; m++)
    for (int64_t oz = 0; oz < O[0]; oz++)
    for (int64_t oy = 0; oy < O[1]; oy++)
    for (int64_t ox = 0; ox < O[2]; ox++) {
        double acc = b ? b[m] : 0.0;
        int64_t gi = m / Mg;
        for (int64_t c = 0; c < Cg; c++)
        for (int64_t kz = 0; kz < K[0]; kz++)
        for (int64_t ky = 0; ky < K[1]; ky++)
        for (int64_t kx = 0; kx < K[2]; kx++) {
            int64_t iz = oz * S[0] - P[0] + kz * D[0];
            int64_t iy = oy * S[1] - P[1] + ky * D[1];
            int64_t ix = ox * S[2] - P[2] + kx * D[2];
            if (iz < 0 || iz >= I[0] || iy < 0 || iy >= I[1] || ix < 0 || ix >= I[2])
                continue;
            double xv = x[((((n * C) + gi * Cg + c) * I[0] + iz) * I[1] + iy) * I[2] + ix];
            double wv = w[(((m * Cg + c) * K[0] + kz) * K[1] + ky) * K[2] + kx];
            acc += xv * wv;
        }
        y[(((n * M + m) * O[0] + oz) * O[1] + oy) * O[2] + ox] = (float)acc;
    }
}

typedef struct conv_case {
    int nsp;
    int64_t N, C, M, G;
    int64_t in[3], k[3], s[3], d[3], pads[6];
    const char *autopad;
    int bias, set_kshape;
} conv_case;

static void check_conv(const conv_case *cc, int nthreads)
{
    graph_t *g = graph_new();
    char err[256] = "";
    int nsp = cc->nsp;
    int64_t xd[5] = {cc->N, cc->C}, wd[5] = {cc->M, cc->C / cc->G};
    for (int i = 0; i < nsp; i++) {
        xd[2 + i] = cc->in[i];
        wd[2 + i] = cc->k[i];
    }
    int64_t xn = 1, wn = 1;
    for (int i = 0; i < nsp + 2; i++) {
        xn *= xd[i];
        wn *= wd[i];
    }
    float *x = rand_buf(xn), *w = rand_buf(wn), *b = rand_buf(cc->M);
    int in[3];
    in[0] = add_tensor(g, "x", nsp + 2, xd, x);
    in[1] = add_tensor(g, "w", nsp + 2, wd, w);
    in[2] = add_tensor(g, "b", 1, &cc->M, b);
    int out = graph_add_tensor(g, "y");
    graph_add_node(g, "conv0", "Conv", "", cc->bias ? 3 : 2, in, 1, &out);
    node_t *n = &g->nodes[0];
    set_ints(n, "strides", nsp, cc->s);
    set_ints(n, "dilations", nsp, cc->d);
    if (cc->set_kshape)
        set_ints(n, "kernel_shape", nsp, cc->k);
    if (cc->G != 1)
        set_int(n, "group", cc->G);
    if (strcmp(cc->autopad, "NOTSET"))
        set_str(n, "auto_pad", cc->autopad);
    else
        set_ints(n, "pads", 2 * nsp, cc->pads);

    cg p = {.nsp = nsp, .autopad = cc->autopad};
    for (int i = 0; i < nsp; i++) {
        p.in[i] = cc->in[i];
        p.k[i] = cc->k[i];
        p.s[i] = cc->s[i];
        p.d[i] = cc->d[i];
        p.pb[i] = cc->pads[i];
        p.pe[i] = cc->pads[nsp + i];
    }
    ref_conv_out(&p, 0);
    int64_t yn = cc->N * cc->M;
    for (int i = 0; i < nsp; i++)
        yn *= p.out[i];
    float *ref = xmalloc((yn + 1) * sizeof(float));
    ref_conv(&p, cc->N, cc->C, cc->M, cc->G, x, w, cc->bias ? b : NULL, ref);

    float *y;
    tensor_t *yt;
    int rc = run_node(g, nthreads, &y, &yt, err, sizeof err);
    CHECK(rc == 0, "conv run: %s", err);
    int shape_ok = yt->ndim == nsp + 2 && yt->dims[1] == cc->M;
    for (int i = 0; i < nsp && shape_ok; i++)
        shape_ok = yt->dims[2 + i] == p.out[i];
    CHECK(shape_ok, "conv shape nsp=%d out %lld", nsp, (long long)p.out[nsp - 1]);
    if (rc == 0 && shape_ok) {
        double md = max_diff(y, ref, yn);
        CHECK(md < 1e-4 * (1 + wd[1] * wd[2]), "conv nsp=%d C=%lld M=%lld G=%lld k=%lld s=%lld d=%lld pad=%s/%lld th=%d: max diff %g",
              nsp, (long long)cc->C, (long long)cc->M, (long long)cc->G, (long long)cc->k[nsp - 1],
              (long long)cc->s[nsp - 1], (long long)cc->d[nsp - 1], cc->autopad,
              (long long)cc->pads[0], nthreads, md);
    }
    free(y);
    free(ref);
    free(x);
    free(w);
    free(b);
    graph_free(g);
}

static void test_conv_sweep(void)
{
    static const char *modes[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
    int count = 0;
    /* 2-D sweep */
    for (int gk = 0; gk < 4; gk++)          /* 0: G=1, 1: G=2, 2: depthwise, 3: depthwise x2 */
    for (int k = 1; k <= 5; k += 2)
    for (int s = 1; s <= 3; s++)
    for (int d = 1; d <= 2; d++)
    for (int pm = 0; pm < 6; pm++) {
        conv_case cc = {.nsp = 2, .N = 1 + (count % 3 == 0), .bias = count % 2};
        int64_t C = gk == 0 ? 3 : gk == 1 ? 4 : 5;
        cc.C = C;
        cc.G = gk == 0 ? 1 : gk == 1 ? 2 : C;
        cc.M = gk == 0 ? 6 : gk == 1 ? 6 : gk == 2 ? C : 2 * C;
        cc.in[0] = 7 + (count % 4);
        cc.in[1] = 9 + (count % 5);
        cc.k[0] = k;
        cc.k[1] = k == 1 ? 1 : k - 1 + (count % 2) * 2; /* non-square kernels too */
        cc.s[0] = s;
        cc.s[1] = s == 3 ? 1 : s;
        cc.d[0] = cc.d[1] = d;
        cc.set_kshape = count % 3 == 1;
        cc.autopad = pm < 4 ? modes[pm] : "NOTSET";
        int64_t pv = pm == 4 ? 1 : pm == 5 ? 2 : 0;
        cc.pads[0] = pv;
        cc.pads[1] = pv + (pm == 5);
        cc.pads[2] = pm == 5 ? 0 : pv;
        cc.pads[3] = pv;
        int bad = 0;
        for (int i = 0; i < 2; i++)
            if (cc.in[i] + cc.pads[i] + cc.pads[2 + i] < (cc.k[i] - 1) * d + 1)
                bad = 1;
        if (bad)
            continue;
        check_conv(&cc, 1 + (count % 2));
        count++;
    }
    /* 1-D and 3-D */
    for (int i = 0; i < 12; i++) {
        conv_case cc = {.nsp = 1, .N = 2, .C = 4, .M = 6, .G = i % 2 ? 2 : 1, .bias = 1,
                        .autopad = modes[i % 4]};
        cc.in[0] = 17 + i;
        cc.k[0] = 1 + i % 4;
        cc.s[0] = 1 + i % 3;
        cc.d[0] = 1 + (i / 6);
        cc.pads[0] = i % 3;
        cc.pads[1] = i % 2;
        check_conv(&cc, 1 + i % 2);
        cc.nsp = 3;
        cc.N = 1;
        cc.in[0] = 5;
        cc.in[1] = 6;
        cc.in[2] = 7;
        cc.k[0] = cc.k[1] = cc.k[2] = 1 + i % 3;
        cc.s[0] = cc.s[1] = cc.s[2] = 1 + i % 2;
        cc.d[0] = cc.d[1] = cc.d[2] = 1;
        for (int j = 0; j < 6; j++)
            cc.pads[j] = (i + j) % 2;
        check_conv(&cc, 2 - i % 2);
    }
    /* shapes as in real mobile nets, 1x1 pointwise with many channels */
    conv_case big[] = {
        {2, 1, 32, 64, 1, {40, 40}, {1, 1}, {1, 1}, {1, 1}, {0}, "NOTSET", 1, 0},
        {2, 1, 64, 64, 64, {40, 40}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, "NOTSET", 1, 0},
        {2, 1, 64, 64, 64, {41, 39}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, "NOTSET", 1, 0},
        {2, 1, 24, 24, 24, {33, 35}, {5, 5}, {2, 2}, {1, 1}, {2, 2, 2, 2}, "NOTSET", 0, 0},
        /* depthwise 3x3 read in place: uneven pads, rows not a multiple of the
         * 8-row block, several 16-column chunks with a short last one */
        {2, 1, 32, 32, 32, {28, 50}, {3, 3}, {1, 1}, {1, 1}, {1, 0, 1, 2}, "NOTSET", 1, 0},
        {2, 1, 16, 16, 16, {35, 67}, {3, 3}, {2, 2}, {1, 1}, {0, 1, 1, 0}, "NOTSET", 1, 0},
        /* stride 2 whose last full 16-column chunk takes its right tap from
         * the padding (31 -> 16 and 63 -> 32 columns) */
        {2, 1, 8, 8, 8, {9, 31}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, "NOTSET", 1, 0},
        {2, 2, 4, 4, 4, {12, 63}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, "NOTSET", 0, 0},
        {2, 1, 3, 16, 1, {64, 64}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, "NOTSET", 1, 1},
        {2, 2, 12, 16, 1, {20, 20}, {6, 6}, {2, 2}, {1, 1}, {2, 2, 2, 2}, "NOTSET", 1, 0},
        /* K >= 128 with several row tiles: the packed column panel, partial tiles */
        {2, 1, 160, 20, 1, {13, 13}, {1, 1}, {1, 1}, {1, 1}, {0}, "NOTSET", 1, 0},
        {2, 1, 16, 12, 1, {21, 23}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, "NOTSET", 1, 0},
        /* at most four output channels (a detection head): 96-column tiles of
         * the rows alone, the columns past the last one in an 8-row tile */
        {2, 1, 64, 1, 1, {13, 13}, {1, 1}, {1, 1}, {1, 1}, {0}, "NOTSET", 1, 0},
        {2, 2, 24, 3, 1, {40, 40}, {1, 1}, {1, 1}, {1, 1}, {0}, "NOTSET", 0, 0},
        {2, 1, 40, 4, 1, {12, 16}, {1, 1}, {1, 1}, {1, 1}, {0}, "NOTSET", 1, 0},
        {2, 1, 16, 2, 1, {20, 30}, {3, 3}, {2, 1}, {1, 1}, {1, 1, 1, 1}, "NOTSET", 1, 0},
        /* few input channels, stride 1: the direct conv over padded rows, with
         * 48 + 16 + 2 column tiles, a partial row panel, dilation, batch 2 */
        {2, 1, 1, 64, 1, {30, 114}, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}, "NOTSET", 1, 0},
        {2, 2, 2, 9, 1, {17, 35}, {3, 3}, {1, 1}, {2, 2}, {1, 0, 3, 2}, "NOTSET", 1, 0},
        /* and up to 256 taps: a 12-channel 3x3 stem (Winograd over the
         * strip), a 5-channel 5x5, MNIST's 8-channel 5x5 over 14x14, a 3x3 at
         * 28 channels with a dilation (the GEMM over the strip) */
        {2, 1, 12, 16, 1, {26, 54}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, "NOTSET", 1, 0},
        {2, 2, 5, 12, 1, {19, 41}, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}, "NOTSET", 1, 0},
        {2, 1, 8, 16, 1, {14, 14}, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}, "NOTSET", 1, 0},
        {2, 2, 28, 10, 1, {15, 22}, {3, 3}, {1, 1}, {2, 2}, {2, 1, 2, 3}, "NOTSET", 1, 0},
        /* Winograd over the strip: one channel on 5 columns (one short tile
         * vector), 20 outputs (a partial 8-channel pass) over 47 columns (a
         * half tile at the end) with uneven pads, 28 channels into 4 (252
         * taps) over 70 columns (two tile vectors and one of 3 tiles) */
        {2, 2, 1, 8, 1, {9, 5}, {3, 3}, {1, 1}, {1, 1}, {0, 1, 1, 0}, "NOTSET", 1, 0},
        {2, 1, 15, 20, 1, {31, 47}, {3, 3}, {1, 1}, {1, 1}, {1, 0, 2, 1}, "NOTSET", 1, 0},
        {2, 1, 28, 4, 1, {11, 70}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, "NOTSET", 0, 0},
        /* Winograd with a partial row panel and 16- and 32-column tiles */
        {2, 1, 32, 9, 1, {20, 36}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, "NOTSET", 1, 0},
        {2, 1, 16, 24, 1, {12, 64}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, "NOTSET", 1, 0},
        /* Winograd on larger planes: partial tiles at both edges, asymmetric
         * pads, batch 2 */
        {2, 1, 32, 20, 1, {37, 45}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, "NOTSET", 1, 0},
        {2, 2, 40, 8, 1, {40, 70}, {3, 3}, {1, 1}, {1, 1}, {0, 1, 2, 0}, "NOTSET", 0, 0},
        /* pointwise products big enough for two threads: columns cut evenly in
         * 16-column vectors (26x26), and few columns, where the tasks also
         * take halves of the rows: one column block (9x9), two (13x13, an
         * uneven half of 40 rows), groups and batch items (12x12) */
        {2, 1, 64, 32, 1, {26, 26}, {1, 1}, {1, 1}, {1, 1}, {0}, "NOTSET", 1, 0},
        {2, 1, 256, 64, 1, {9, 9}, {1, 1}, {1, 1}, {1, 1}, {0}, "NOTSET", 1, 0},
        {2, 1, 256, 40, 1, {13, 13}, {1, 1}, {1, 1}, {1, 1}, {0}, "NOTSET", 0, 0},
        {2, 2, 128, 64, 2, {12, 12}, {1, 1}, {1, 1}, {1, 1}, {0}, "NOTSET", 1, 0},
    };
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        check_conv(&big[i], 1);
        check_conv(&big[i], 2);
    }
}

/* Hand-computed: 1x1x3x3 input 1..9, 2x2 kernel of ones, stride 1, no pad. */
static void test_conv_hand(void)
{
    graph_t *g = graph_new();
    char err[256] = "";
    float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[4] = {1, 1, 1, 1}, b[1] = {0.5f};
    int64_t xd[4] = {1, 1, 3, 3}, wd[4] = {1, 1, 2, 2}, bd[1] = {1};
    int in[3] = {add_tensor(g, "x", 4, xd, x), add_tensor(g, "w", 4, wd, w),
                 add_tensor(g, "b", 1, bd, b)};
    int out = graph_add_tensor(g, "y");
    graph_add_node(g, "c", "Conv", "", 3, in, 1, &out);
    float *y;
    tensor_t *yt;
    int rc = run_node(g, 1, &y, &yt, err, sizeof err);
    CHECK(rc == 0, "%s", err);
    CHECK(yt->ndim == 4 && yt->dims[2] == 2 && yt->dims[3] == 2, "hand conv shape");
    if (rc == 0) {
        CHECK_NEAR(y[0], 12.5, 1e-6, "y00");
        CHECK_NEAR(y[1], 16.5, 1e-6, "y01");
        CHECK_NEAR(y[2], 24.5, 1e-6, "y10");
        CHECK_NEAR(y[3], 28.5, 1e-6, "y11");
    }
    free(y);
    graph_free(g);
}

static void test_conv_errors(void)
{
    char err[256] = "";
    float *y;
    tensor_t *yt;
    /* channel mismatch: W wants 4 input channels, X has 3 */
    graph_t *g = graph_new();
    int64_t xd[4] = {1, 3, 5, 5}, wd[4] = {2, 4, 3, 3};
    float buf[200] = {0};
    int in[2] = {add_tensor(g, "x", 4, xd, buf), add_tensor(g, "w", 4, wd, buf)};
    int out = graph_add_tensor(g, "y");
    graph_add_node(g, "badconv", "Conv", "", 2, in, 1, &out);
    int rc = run_node(g, 1, &y, &yt, err, sizeof err);
    CHECK(rc == RT_ESHAPE && strstr(err, "badconv"), "channel mismatch: rc %d '%s'", rc, err);
    free(y);
    graph_free(g);
    /* groups that do not divide the channels */
    g = graph_new();
    int64_t wd2[4] = {2, 1, 3, 3};
    in[0] = add_tensor(g, "x", 4, xd, buf);
    in[1] = add_tensor(g, "w", 4, wd2, buf);
    out = graph_add_tensor(g, "y");
    graph_add_node(g, "grp", "Conv", "", 2, in, 1, &out);
    set_int(&g->nodes[0], "group", 2);
    rc = run_node(g, 1, &y, &yt, err, sizeof err);
    CHECK(rc == RT_ESHAPE && strstr(err, "grp"), "group mismatch: rc %d '%s'", rc, err);
    free(y);
    graph_free(g);
    /* kernel larger than input */
    g = graph_new();
    int64_t xd3[4] = {1, 1, 2, 2}, wd3[4] = {1, 1, 3, 3};
    in[0] = add_tensor(g, "x", 4, xd3, buf);
    in[1] = add_tensor(g, "w", 4, wd3, buf);
    out = graph_add_tensor(g, "y");
    graph_add_node(g, "big", "Conv", "", 2, in, 1, &out);
    rc = run_node(g, 1, &y, &yt, err, sizeof err);
    CHECK(rc == RT_ESHAPE && strstr(err, "big"), "kernel too big: rc %d '%s'", rc, err);
    free(y);
    graph_free(g);
    /* non-float input */
    g = graph_new();
    in[0] = add_tensor(g, "x", 4, xd, buf);
    g->t[in[0]].dtype = DT_INT8;
    in[1] = add_tensor(g, "w", 4, wd, buf);
    out = graph_add_tensor(g, "y");
    graph_add_node(g, "i8conv", "Conv", "", 2, in, 1, &out);
    rc = run_node(g, 1, &y, &yt, err, sizeof err);
    CHECK(rc == RT_EUNSUPPORTED && strstr(err, "i8conv"), "int8: rc %d '%s'", rc, err);
    free(y);
    graph_free(g);
}

/* ---- ConvTranspose ----------------------------------------------------- */

typedef struct convt_case {
    int nsp;
    int64_t N, C, Mg, G;
    int64_t in[3], k[3], s[3], d[3], pads[6], opad[3], oshape[3];
    const char *autopad;
    int use_oshape, bias;
} convt_case;

static void check_convt(const convt_case *cc, int nthreads)
{
    graph_t *g = graph_new();
    char err[256] = "";
    int nsp = cc->nsp;
    int64_t M = cc->Mg * cc->G;
    int64_t xd[5] = {cc->N, cc->C}, wd[5] = {cc->C, cc->Mg};
    int64_t pb[3], pe[3], od[3];
    for (int i = 0; i < nsp; i++) {
        xd[2 + i] = cc->in[i];
        wd[2 + i] = cc->k[i];
        int64_t full = cc->s[i] * (cc->in[i] - 1) + cc->opad[i] + (cc->k[i] - 1) * cc->d[i] + 1;
        if (cc->use_oshape || strcmp(cc->autopad, "NOTSET")) {
            od[i] = cc->use_oshape ? cc->oshape[i] : cc->in[i] * cc->s[i];
            int64_t tot = full - od[i];
            if (tot < 0)
                tot = 0; /* as onnxruntime: the output's tail is bias only */
            if (!strcmp(cc->autopad, "SAME_UPPER")) {
                pb[i] = tot / 2;
                pe[i] = tot - tot / 2;
            } else {
                pb[i] = tot - tot / 2;
                pe[i] = tot / 2;
            }
        } else {
            pb[i] = cc->pads[i];
            pe[i] = cc->pads[nsp + i];
            od[i] = full - pb[i] - pe[i];
        }
    }
    int64_t xn = 1, wn = 1, yn = cc->N * M;
    for (int i = 0; i < nsp + 2; i++) {
        xn *= xd[i];
        wn *= wd[i];
    }
    for (int i = 0; i < nsp; i++)
        yn *= od[i];
    float *x = rand_buf(xn), *w = rand_buf(wn), *b = rand_buf(M);
    int in[3] = {add_tensor(g, "x", nsp + 2, xd, x), add_tensor(g, "w", nsp + 2, wd, w),
                 add_tensor(g, "b", 1, &M, b)};
    int out = graph_add_tensor(g, "y");
    graph_add_node(g, "convt", "ConvTranspose", "", cc->bias ? 3 : 2, in, 1, &out);
    node_t *n = &g->nodes[0];
    set_ints(n, "strides", nsp, cc->s);
    set_ints(n, "dilations", nsp, cc->d);
    set_ints(n, "output_padding", nsp, cc->opad);
    if (cc->G != 1)
        set_int(n, "group", cc->G);
    if (cc->use_oshape)
        set_ints(n, "output_shape", nsp, cc->oshape);
    if (strcmp(cc->autopad, "NOTSET"))
        set_str(n, "auto_pad", cc->autopad);
    else if (!cc->use_oshape)
        set_ints(n, "pads", 2 * nsp, cc->pads);

    /* reference: scatter every input element through the kernel */
    int64_t I[3] = {1, 1, 1}, O[3] = {1, 1, 1}, K[3] = {1, 1, 1}, S[3] = {1, 1, 1},
            D[3] = {1, 1, 1}, P[3] = {0, 0, 0};
    int off = 3 - nsp;
    for (int i = 0; i < nsp; i++) {
        I[off + i] = cc->in[i];
        O[off + i] = od[i];
        K[off + i] = cc->k[i];
        S[off + i] = cc->s[i];
        D[off + i] = cc->d[i];
        P[off + i] = pb[i];
    }
    double *acc = xcalloc(yn + 1, sizeof(double));
    int64_t Cg = cc->C / cc->G, Ov = O[0] * O[1] * O[2];
    for (int64_t nn = 0; nn < cc->N; nn++)
    for (int64_t m = 0; m < M; m++)
        for (int64_t q = 0; q < Ov; q++)
            acc[(nn * M + m) * Ov + q] = cc->bias ? b[m] : 0.0;
    for (int64_t nn = 0; nn < cc->N; nn++)
    for (int64_t c = 0; c < cc->C; c++)
    for (int64_t iz = 0; iz < I[0]; iz++)
    for (int64_t iy = 0; iy < I[1]; iy++)
    for (int64_t ix = 0; ix < I[2]; ix++) {
        double xv = x[(((nn * cc->C + c) * I[0] + iz) * I[1] + iy) * I[2] + ix];
        int64_t gi = c / Cg;
        for (int64_t m = 0; m < cc->Mg; m++)
        for (int64_t kz = 0; kz < K[0]; kz++)
        for (int64_t ky = 0; ky < K[1]; ky++)
        for (int64_t kx = 0; kx < K[2]; kx++) {
            int64_t oz = iz * S[0] - P[0] + kz * D[0], oy = iy * S[1] - P[1] + ky * D[1],
                    ox = ix * S[2] - P[2] + kx * D[2];
            if (oz < 0 || oz >= O[0] || oy < 0 || oy >= O[1] || ox < 0 || ox >= O[2])
                continue;
            double wv = w[(((c * cc->Mg + m) * K[0] + kz) * K[1] + ky) * K[2] + kx];
            acc[(((nn * M + gi * cc->Mg + m) * O[0] + oz) * O[1] + oy) * O[2] + ox] += xv * wv;
        }
    }
    float *ref = xmalloc((yn + 1) * sizeof(float));
    for (int64_t i = 0; i < yn; i++)
        ref[i] = (float)acc[i];

    float *y;
    tensor_t *yt;
    int rc = run_node(g, nthreads, &y, &yt, err, sizeof err);
    CHECK(rc == 0, "convT run: %s", err);
    int shape_ok = yt->ndim == nsp + 2 && yt->dims[1] == M;
    for (int i = 0; i < nsp && shape_ok; i++)
        shape_ok = yt->dims[2 + i] == od[i];
    CHECK(shape_ok, "convT shape");
    if (rc == 0 && shape_ok) {
        double md = max_diff(y, ref, yn);
        CHECK(md < 1e-4 * (1 + Cg * wn / wd[0] / wd[1]), "convT nsp=%d G=%lld k=%lld s=%lld d=%lld %s os=%d th=%d: max diff %g",
              nsp, (long long)cc->G, (long long)cc->k[0], (long long)cc->s[0], (long long)cc->d[0],
              cc->autopad, cc->use_oshape, nthreads, md);
    }
    free(y);
    free(ref);
    free(acc);
    free(x);
    free(w);
    free(b);
    graph_free(g);
}

static void test_convt_sweep(void)
{
    int count = 0;
    for (int G = 1; G <= 2; G++)
    for (int k = 1; k <= 4; k++)
    for (int s = 1; s <= 3; s++)
    for (int d = 1; d <= 2; d++)
    for (int mode = 0; mode < 5; mode++) {
        convt_case cc = {.nsp = 2, .N = 1 + count % 2, .C = 2 * G, .Mg = 3, .G = G,
                         .bias = count % 3 != 0, .autopad = "NOTSET"};
        cc.in[0] = 4 + count % 3;
        cc.in[1] = 5;
        cc.k[0] = k;
        cc.k[1] = k == 1 ? 2 : k - 1;
        cc.s[0] = s;
        cc.s[1] = s > 1 ? s - 1 : 1;
        cc.d[0] = cc.d[1] = d;
        if (mode == 1) {
            cc.pads[0] = cc.pads[1] = cc.pads[2] = cc.pads[3] = (k - 1) / 2;
        } else if (mode == 2) {
            cc.opad[0] = s > 1 ? 1 : 0;
            cc.pads[1] = k > 1 ? 1 : 0;
        } else if (mode == 3) {
            cc.autopad = count % 2 ? "SAME_UPPER" : "SAME_LOWER";
        } else if (mode == 4) {
            cc.use_oshape = 1;
            cc.oshape[0] = cc.s[0] * (cc.in[0] - 1) + (k - 1) * d + 1 - 1 + (s > 1);
            cc.oshape[1] = cc.s[1] * (cc.in[1] - 1) + (cc.k[1] - 1) * d + 1;
            if (cc.oshape[0] < 1)
                cc.oshape[0] = 1;
        }
        check_convt(&cc, 1 + count % 2);
        count++;
    }
    convt_case c1 = {.nsp = 1, .N = 1, .C = 3, .Mg = 2, .G = 1, .in = {9}, .k = {3}, .s = {2},
                     .d = {1}, .pads = {1, 0}, .autopad = "NOTSET", .bias = 1};
    check_convt(&c1, 1);
    convt_case c3 = {.nsp = 3, .N = 1, .C = 2, .Mg = 2, .G = 1, .in = {3, 4, 3}, .k = {2, 2, 3},
                     .s = {2, 1, 2}, .d = {1, 1, 1}, .pads = {0, 1, 0, 1, 0, 0},
                     .autopad = "NOTSET", .bias = 1};
    check_convt(&c3, 2);
    /* DB head upsampling: 2x2 stride 2 over a larger map */
    convt_case c4 = {.nsp = 2, .N = 1, .C = 16, .Mg = 16, .G = 1, .in = {20, 20}, .k = {2, 2},
                     .s = {2, 2}, .d = {1, 1}, .autopad = "NOTSET", .bias = 1};
    check_convt(&c4, 2);
}

/* ---- Gemm / MatMul ----------------------------------------------------- */

static void check_gemm(int64_t M, int64_t N, int64_t K, int ta, int tb, float alpha, float beta,
                       int cmode, int nthreads)
{
    graph_t *g = graph_new();
    char err[256] = "";
    int64_t ad[2] = {ta ? K : M, ta ? M : K}, bd[2] = {tb ? N : K, tb ? K : N};
    int64_t cd[2];
    int cnd = 0;
    switch (cmode) { /* 0 none, 1 (M,N), 2 (N), 3 (M,1), 4 scalar-ish (1) */
    case 1: cd[0] = M; cd[1] = N; cnd = 2; break;
    case 2: cd[0] = N; cnd = 1; break;
    case 3: cd[0] = M; cd[1] = 1; cnd = 2; break;
    case 4: cd[0] = 1; cnd = 1; break;
    }
    int64_t cn = cnd == 2 ? cd[0] * cd[1] : cnd == 1 ? cd[0] : 0;
    float *a = rand_buf(M * K), *b = rand_buf(K * N), *c = rand_buf(cn + 1);
    int in[3] = {add_tensor(g, "a", 2, ad, a), add_tensor(g, "b", 2, bd, b), -1};
    if (cmode)
        in[2] = add_tensor(g, "c", cnd, cd, c);
    int out = graph_add_tensor(g, "y");
    graph_add_node(g, "gemm", "Gemm", "", cmode ? 3 : 2, in, 1, &out);
    node_t *n = &g->nodes[0];
    set_int(n, "transA", ta);
    set_int(n, "transB", tb);
    set_float(n, "alpha", alpha);
    set_float(n, "beta", beta);
    float *ref = xmalloc((M * N + 1) * sizeof(float));
    for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
        double s = 0;
        for (int64_t k = 0; k < K; k++) {
            double av = ta ? a[k * M + i] : a[i * K + k];
            double bv = tb ? b[j * K + k] : b[k * N + j];
            s += av * bv;
        }
        double cv = 0;
        if (cmode == 1) cv = c[i * N + j];
        if (cmode == 2) cv = c[j];
        if (cmode == 3) cv = c[i];
        if (cmode == 4) cv = c[0];
        ref[i * N + j] = (float)(alpha * s + beta * cv);
    }
    float *y;
    tensor_t *yt;
    int rc = run_node(g, nthreads, &y, &yt, err, sizeof err);
    CHECK(rc == 0 && yt->dims[0] == M && yt->dims[1] == N, "gemm: %s", err);
    if (rc == 0)
        CHECK(max_diff(y, ref, M * N) < 1e-4 * (1 + K), "gemm M=%lld N=%lld K=%lld ta=%d tb=%d c=%d: %g",
              (long long)M, (long long)N, (long long)K, ta, tb, cmode, max_diff(y, ref, M * N));
    free(y);
    free(ref);
    free(a);
    free(b);
    free(c);
    graph_free(g);
}

static void check_matmul(int na, const int64_t *ad, int nb, const int64_t *bd, int nthreads)
{
    graph_t *g = graph_new();
    char err[256] = "";
    int64_t an = 1, bn = 1;
    for (int i = 0; i < na; i++)
        an *= ad[i];
    for (int i = 0; i < nb; i++)
        bn *= bd[i];
    float *a = rand_buf(an), *b = rand_buf(bn);
    int in[2] = {add_tensor(g, "a", na, ad, a), add_tensor(g, "b", nb, bd, b)};
    int out = graph_add_tensor(g, "y");
    graph_add_node(g, "mm", "MatMul", "", 2, in, 1, &out);

    /* reference: promote to >= 2-D, broadcast batch dims by index arithmetic */
    int64_t A[8], B[8];
    int ra = na, rb = nb;
    if (na == 1) { A[0] = 1; A[1] = ad[0]; ra = 2; } else memcpy(A, ad, na * sizeof(int64_t));
    if (nb == 1) { B[0] = bd[0]; B[1] = 1; rb = 2; } else memcpy(B, bd, nb * sizeof(int64_t));
    int nbat = (ra > rb ? ra : rb) - 2;
    int64_t bat[8], M = A[ra - 2], K = A[ra - 1], N = B[rb - 1];
    int64_t tot = 1;
    for (int i = 0; i < nbat; i++) {
        int ia = i - (nbat - (ra - 2)), ib = i - (nbat - (rb - 2));
        int64_t da = ia >= 0 ? A[ia] : 1, db = ib >= 0 ? B[ib] : 1;
        bat[i] = da > db ? da : db;
        tot *= bat[i];
    }
    float *ref = xmalloc((tot * M * N + 1) * sizeof(float));
    for (int64_t t = 0; t < tot; t++) {
        int64_t rem = t, oa = 0, ob = 0, sa = 1, sb = 1;
        for (int i = nbat - 1; i >= 0; i--) {
            int64_t idx = rem % bat[i];
            rem /= bat[i];
            int ia = i - (nbat - (ra - 2)), ib = i - (nbat - (rb - 2));
            if (ia >= 0) {
                oa += (A[ia] == 1 ? 0 : idx) * sa;
                sa *= A[ia];
            }
            if (ib >= 0) {
                ob += (B[ib] == 1 ? 0 : idx) * sb;
                sb *= B[ib];
            }
        }
        for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double s = 0;
            for (int64_t k = 0; k < K; k++)
                s += (double)a[oa * M * K + i * K + k] * b[ob * K * N + k * N + j];
            ref[(t * M + i) * N + j] = (float)s;
        }
    }
    float *y;
    tensor_t *yt;
    int rc = run_node(g, nthreads, &y, &yt, err, sizeof err);
    CHECK(rc == 0, "matmul: %s", err);
    int exp_nd = nbat + (na > 1) + (nb > 1);
    CHECK(yt->ndim == exp_nd, "matmul rank %d vs %d", yt->ndim, exp_nd);
    if (rc == 0 && yt->ndim == exp_nd)
        CHECK(max_diff(y, ref, tot * M * N) < 1e-4 * (1 + K), "matmul na=%d nb=%d: %g", na, nb,
              max_diff(y, ref, tot * M * N));
    free(y);
    free(ref);
    free(a);
    free(b);
    graph_free(g);
}

static void test_gemm_matmul(void)
{
    int count = 0;
    for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++)
    for (int cm = 0; cm < 5; cm++) {
        check_gemm(5 + count % 3, 7, 9, ta, tb, cm % 2 ? 0.5f : 1.0f, cm == 3 ? 2.0f : 1.0f, cm,
                   1 + count % 2);
        count++;
    }
    check_gemm(64, 300, 128, 0, 1, 1.0f, 1.0f, 2, 2);
    check_gemm(1, 1000, 1280, 0, 1, 1.0f, 1.0f, 2, 2);
    check_gemm(200, 3, 50, 1, 0, 1.5f, 0.0f, 1, 2);

    int64_t a2[] = {4, 5}, b2[] = {5, 3};
    check_matmul(2, a2, 2, b2, 1);
    int64_t a3[] = {2, 3, 4, 5}, b3[] = {5, 6};
    check_matmul(4, a3, 2, b3, 2);            /* B shared: one tall product */
    int64_t a4[] = {3, 1, 4, 5}, b4[] = {2, 5, 6};
    check_matmul(4, a4, 3, b4, 2);            /* both broadcast */
    int64_t a5[] = {5}, b5[] = {2, 5, 3};
    check_matmul(1, a5, 3, b5, 1);            /* 1-D A */
    int64_t a6[] = {2, 4, 5}, b6[] = {5};
    check_matmul(3, a6, 1, b6, 2);            /* 1-D B */
    int64_t a7[] = {7}, b7[] = {7};
    check_matmul(1, a7, 1, b7, 1);            /* dot product -> scalar */
    int64_t a8[] = {4, 5}, b8[] = {3, 5, 70};
    check_matmul(2, a8, 3, b8, 2);            /* A broadcast over B's batch */
    int64_t a9[] = {1, 200, 64}, b9[] = {64, 96};
    check_matmul(3, a9, 2, b9, 2);

    /* hand value: [1 2; 3 4] x [5; 6] = [17; 39] */
    graph_t *g = graph_new();
    char err[256] = "";
    float av[4] = {1, 2, 3, 4}, bv[2] = {5, 6};
    int64_t ad[2] = {2, 2}, bd[1] = {2};
    int in[2] = {add_tensor(g, "a", 2, ad, av), add_tensor(g, "b", 1, bd, bv)};
    int out = graph_add_tensor(g, "y");
    graph_add_node(g, "mm", "MatMul", "", 2, in, 1, &out);
    float *y;
    tensor_t *yt;
    int rc = run_node(g, 1, &y, &yt, err, sizeof err);
    CHECK(rc == 0 && yt->ndim == 1 && yt->dims[0] == 2, "hand matmul: %s", err);
    if (rc == 0) {
        CHECK_NEAR(y[0], 17, 1e-6, "mm0");
        CHECK_NEAR(y[1], 39, 1e-6, "mm1");
    }
    free(y);
    graph_free(g);
    /* inner dimension mismatch */
    g = graph_new();
    int64_t bd2[2] = {3, 2};
    float bz[6] = {0};
    in[0] = add_tensor(g, "a", 2, ad, av);
    in[1] = add_tensor(g, "b", 2, bd2, bz);
    out = graph_add_tensor(g, "y");
    graph_add_node(g, "mmbad", "MatMul", "", 2, in, 1, &out);
    rc = run_node(g, 1, &y, &yt, err, sizeof err);
    CHECK(rc == RT_ESHAPE && strstr(err, "mmbad"), "matmul mismatch rc %d '%s'", rc, err);
    free(y);
    graph_free(g);
}

/* ---- pools ------------------------------------------------------------- */

typedef struct pool_case {
    int nsp, is_max, ceil_mode, count_pad;
    int64_t N, C, in[3], k[3], s[3], d[3], pads[6];
    const char *autopad;
} pool_case;

static void check_pool(const pool_case *pc, int nthreads)
{
    graph_t *g = graph_new();
    char err[256] = "";
    int nsp = pc->nsp;
    int64_t xd[5] = {pc->N, pc->C}, xn = pc->N * pc->C;
    for (int i = 0; i < nsp; i++) {
        xd[2 + i] = pc->in[i];
        xn *= pc->in[i];
    }
    float *x = rand_buf(xn);
    int in = add_tensor(g, "x", nsp + 2, xd, x);
    int out = graph_add_tensor(g, "y");
    graph_add_node(g, "pool", pc->is_max ? "MaxPool" : "AveragePool", "", 1, &in, 1, &out);
    node_t *n = &g->nodes[0];
    set_ints(n, "kernel_shape", nsp, pc->k);
    set_ints(n, "strides", nsp, pc->s);
    if (pc->is_max)
        set_ints(n, "dilations", nsp, pc->d);
    if (pc->ceil_mode)
        set_int(n, "ceil_mode", 1);
    if (pc->count_pad)
        set_int(n, "count_include_pad", 1);
    if (strcmp(pc->autopad, "NOTSET"))
        set_str(n, "auto_pad", pc->autopad);
    else
        set_ints(n, "pads", 2 * nsp, pc->pads);

    cg p = {.nsp = nsp, .autopad = pc->autopad};
    int64_t I[3] = {1, 1, 1}, O[3] = {1, 1, 1}, K[3] = {1, 1, 1}, S[3] = {1, 1, 1},
            D[3] = {1, 1, 1}, PB[3] = {0, 0, 0}, PE[3] = {0, 0, 0};
    for (int i = 0; i < nsp; i++) {
        p.in[i] = pc->in[i];
        p.k[i] = pc->k[i];
        p.s[i] = pc->s[i];
        p.d[i] = pc->is_max ? pc->d[i] : 1;
        p.pb[i] = pc->pads[i];
        p.pe[i] = pc->pads[nsp + i];
    }
    if (!strcmp(pc->autopad, "VALID")) {
        /* pools: out = ceil((in - ext + 1) / s) */
        for (int i = 0; i < nsp; i++) {
            p.pb[i] = p.pe[i] = 0;
            p.out[i] = (p.in[i] - ((p.k[i] - 1) * p.d[i] + 1) + p.s[i]) / p.s[i];
        }
    } else {
        ref_conv_out(&p, pc->ceil_mode);
    }
    int off = 3 - nsp;
    for (int i = 0; i < nsp; i++) {
        I[off + i] = p.in[i];
        O[off + i] = p.out[i];
        K[off + i] = p.k[i];
        S[off + i] = p.s[i];
        D[off + i] = p.d[i];
        PB[off + i] = p.pb[i];
        PE[off + i] = p.pe[i];
    }
    int64_t yn = pc->N * pc->C * O[0] * O[1] * O[2];
    float *ref = xmalloc((yn + 1) * sizeof(float));
    int64_t q = 0;
    for (int64_t pl = 0; pl < pc->N * pc->C; pl++)
    for (int64_t oz = 0; oz < O[0]; oz++)
    for (int64_t oy = 0; oy < O[1]; oy++)
    for (int64_t ox = 0; ox < O[2]; ox++, q++) {
        double mx = -1e30, sum = 0;
        int64_t valid = 0, padded = 0;
        for (int64_t kz = 0; kz < K[0]; kz++)
        for (int64_t ky = 0; ky < K[1]; ky++)
        for (int64_t kx = 0; kx < K[2]; kx++) {
            int64_t iz = oz * S[0] - PB[0] + kz * D[0], iy = oy * S[1] - PB[1] + ky * D[1],
                    ix = ox * S[2] - PB[2] + kx * D[2];
            if (iz >= -PB[0] && iz < I[0] + PE[0] && iy >= -PB[1] && iy < I[1] + PE[1] &&
                ix >= -PB[2] && ix < I[2] + PE[2])
                padded++;
            if (iz < 0 || iz >= I[0] || iy < 0 || iy >= I[1] || ix < 0 || ix >= I[2])
                continue;
            double v = x[((pl * I[0] + iz) * I[1] + iy) * I[2] + ix];
            valid++;
            sum += v;
            if (v > mx)
                mx = v;
        }
        ref[q] = pc->is_max ? (float)mx : (float)(sum / (pc->count_pad ? padded : valid));
    }
    float *y;
    tensor_t *yt;
    int rc = run_node(g, nthreads, &y, &yt, err, sizeof err);
    CHECK(rc == 0, "pool: %s", err);
    int shape_ok = yt->ndim == nsp + 2;
    for (int i = 0; i < nsp && shape_ok; i++)
        shape_ok = yt->dims[2 + i] == p.out[i];
    CHECK(shape_ok, "pool shape (%s k=%lld s=%lld ceil=%d)", pc->autopad, (long long)pc->k[0],
          (long long)pc->s[0], pc->ceil_mode);
    if (rc == 0 && shape_ok)
        CHECK(max_diff(y, ref, yn) < 1e-5, "%s nsp=%d k=%lld s=%lld d=%lld pads=%lld,%lld %s ceil=%d cip=%d: %g",
              pc->is_max ? "max" : "avg", nsp, (long long)pc->k[0], (long long)pc->s[0],
              (long long)pc->d[0], (long long)pc->pads[0], (long long)pc->pads[nsp], pc->autopad,
              pc->ceil_mode, pc->count_pad, max_diff(y, ref, yn));
    free(y);
    free(ref);
    free(x);
    graph_free(g);
}

static void test_pools(void)
{
    static const char *modes[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
    int count = 0;
    for (int is_max = 0; is_max < 2; is_max++)
    for (int k = 1; k <= 4; k++)
    for (int s = 1; s <= 3; s++)
    for (int m = 0; m < 6; m++) {
        pool_case pc = {.nsp = 2, .is_max = is_max, .N = 1 + count % 2, .C = 3,
                        .in = {7 + count % 3, 8}, .k = {k, k == 1 ? 2 : k - 1}, .s = {s, s},
                        .d = {1, 1}};
        pc.autopad = m < 4 ? modes[m] : "NOTSET";
        if (m >= 4) {
            int64_t pv = (k - 1) / 2 + (k > 2);
            pc.pads[0] = pv;
            pc.pads[1] = pv > 0 ? pv - 1 : 0;
            pc.pads[2] = pv;
            pc.pads[3] = pv;
            pc.ceil_mode = m == 5;
            pc.count_pad = !is_max && count % 2;
        }
        if (is_max && count % 4 == 3)
            pc.d[0] = pc.d[1] = 2;
        /* pads must stay below the kernel extent */
        if (pc.pads[0] >= pc.k[0] || pc.pads[1] >= pc.k[1] || pc.pads[2] >= pc.k[0] ||
            pc.pads[3] >= pc.k[1])
            continue;
        check_pool(&pc, 1 + count % 2);
        count++;
    }
    pool_case p1 = {.nsp = 1, .is_max = 1, .N = 2, .C = 2, .in = {11}, .k = {3}, .s = {2},
                    .d = {1}, .pads = {1, 1}, .autopad = "NOTSET", .ceil_mode = 1};
    check_pool(&p1, 1);
    p1.is_max = 0;
    p1.count_pad = 1;
    check_pool(&p1, 2);
    pool_case p3 = {.nsp = 3, .is_max = 0, .N = 1, .C = 2, .in = {4, 5, 6}, .k = {2, 2, 3},
                    .s = {1, 2, 2}, .d = {1, 1, 1}, .pads = {0, 1, 1, 1, 0, 1},
                    .autopad = "NOTSET"};
    check_pool(&p3, 2);
    p3.is_max = 1;
    check_pool(&p3, 1);
    /* windows that tile the plane (kernel = stride, no pads): LeNet's 2x2 over
     * 28x28 and 3x3 over 14x14 (two rows and columns left over), a 2x3
     * window over odd sizes; ceil mode's windows past the edge take the
     * general path and must agree */
    static const int64_t blk[][4] = {{28, 28, 2, 2}, {14, 14, 3, 3}, {9, 11, 2, 3}, {5, 7, 1, 2}};
    for (int i = 0; i < 4; i++)
        for (int ceil = 0; ceil < 2; ceil++) {
            pool_case bc = {.nsp = 2, .is_max = 1, .N = 2, .C = 3, .in = {blk[i][0], blk[i][1]},
                            .k = {blk[i][2], blk[i][3]}, .s = {blk[i][2], blk[i][3]},
                            .d = {1, 1}, .autopad = "NOTSET", .ceil_mode = ceil};
            check_pool(&bc, 1 + ceil);
        }
    /* SPP-style: stride 1, same size */
    pool_case spp = {.nsp = 2, .is_max = 1, .N = 1, .C = 8, .in = {13, 13}, .k = {9, 9},
                     .s = {1, 1}, .d = {1, 1}, .pads = {4, 4, 4, 4}, .autopad = "NOTSET"};
    check_pool(&spp, 2);
    /* every window size of the doubling max (binary 101, 1101, 111, 1111), with
     * asymmetric pads and a non-square window */
    static const int64_t sppk[][2] = {{5, 5}, {13, 13}, {7, 6}, {15, 3}, {4, 11}};
    for (int i = 0; i < 5; i++) {
        pool_case sq = {.nsp = 2, .is_max = 1, .N = 2, .C = 3, .in = {13, 17},
                        .k = {sppk[i][0], sppk[i][1]}, .s = {1, 1}, .d = {1, 1},
                        .pads = {sppk[i][0] / 2, sppk[i][1] - 1, (sppk[i][0] - 1) / 2, 0},
                        .autopad = "NOTSET"};
        check_pool(&sq, 1 + i % 2);
        /* the same on planes of at most 16 columns (one vector per row), and
         * on planes with fewer rows than the window */
        sq.in[1] = 16;
        check_pool(&sq, 1 + i % 2);
        sq.in[0] = 3;
        sq.in[1] = sq.k[1] + 2;
        check_pool(&sq, 1);
    }

    /* hand values: 1x1x2x2 input */
    float x[4] = {1, 5, 3, 2};
    int64_t xd[4] = {1, 1, 2, 2};
    const char *ops[2] = {"GlobalAveragePool", "GlobalMaxPool"};
    float want[2] = {2.75f, 5.0f};
    for (int i = 0; i < 2; i++) {
        graph_t *g = graph_new();
        char err[256] = "";
        int in = add_tensor(g, "x", 4, xd, x);
        int out = graph_add_tensor(g, "y");
        graph_add_node(g, "gp", ops[i], "", 1, &in, 1, &out);
        float *y;
        tensor_t *yt;
        int rc = run_node(g, 1, &y, &yt, err, sizeof err);
        CHECK(rc == 0 && yt->ndim == 4 && yt->dims[2] == 1 && yt->dims[3] == 1, "%s: %s", ops[i], err);
        if (rc == 0)
            CHECK_NEAR(y[0], want[i], 1e-6, ops[i]);
        free(y);
        graph_free(g);
    }
    /* global pools on a larger tensor vs a plain loop */
    int64_t gd[4] = {2, 5, 9, 11};
    float *gx = rand_buf(2 * 5 * 99);
    for (int i = 0; i < 2; i++) {
        graph_t *g = graph_new();
        char err[256] = "";
        int in = add_tensor(g, "x", 4, gd, gx);
        int out = graph_add_tensor(g, "y");
        graph_add_node(g, "gp", ops[i], "", 1, &in, 1, &out);
        float *y;
        tensor_t *yt;
        int rc = run_node(g, 2, &y, &yt, err, sizeof err);
        CHECK(rc == 0, "%s: %s", ops[i], err);
        for (int pl = 0; rc == 0 && pl < 10; pl++) {
            double s = 0, m = -1e30;
            for (int j = 0; j < 99; j++) {
                s += gx[pl * 99 + j];
                m = gx[pl * 99 + j] > m ? gx[pl * 99 + j] : m;
            }
            CHECK_NEAR(y[pl], i ? m : s / 99, 1e-5, ops[i]);
        }
        free(y);
        graph_free(g);
    }
    free(gx);

    /* MaxPool with Indices: [[1 5][3 2]] k=2 -> max 5 at flat index 1 */
    graph_t *g = graph_new();
    char err[256] = "";
    int in = add_tensor(g, "x", 4, xd, x);
    int outs[2] = {graph_add_tensor(g, "y"), graph_add_tensor(g, "i")};
    graph_add_node(g, "mpi", "MaxPool", "", 1, &in, 2, outs);
    int64_t k2[2] = {2, 2};
    set_ints(&g->nodes[0], "kernel_shape", 2, k2);
    node_t *n = &g->nodes[0];
    n->def = exec_find_op("", "MaxPool");
    int rc = n->def->infer(g, n, err, sizeof err);
    CHECK(rc == 0 && g->t[outs[1]].dtype == DT_INT64, "maxpool indices infer: %s", err);
    float yv[1];
    int64_t iv[1] = {-1};
    g->t[outs[0]].data = yv;
    g->t[outs[1]].data = iv;
    op_ctx c = {.nthreads = 1, .err = err, .errlen = sizeof err};
    rc = n->def->run(&c, g, n);
    CHECK(rc == 0 && yv[0] == 5.0f && iv[0] == 1, "maxpool indices: %g %lld", yv[0], (long long)iv[0]);
    set_int(n, "storage_order", 1);
    rc = n->def->run(&c, g, n);
    CHECK(rc == 0 && iv[0] == 2, "maxpool indices column-major: %lld", (long long)iv[0]);
    g->t[outs[0]].data = g->t[outs[1]].data = NULL;
    graph_free(g);
}

/* ---- fused activations ------------------------------------------------- */

/* Distance of f from the double r in units of the float spacing at r (the
 * spacing of the smallest normal below it). */
static double ulps(float f, double r)
{
    double a = fabs(r) < FLT_MIN ? FLT_MIN : fabs(r);
    int e;
    frexp(a, &e);
    return fabs((double)f - r) / ldexp(1.0, e - 24);
}

/* The SiLU epilogue (gemm_act_apply, as every Conv+Sigmoid+Mul runs it)
 * against x / (1 + e^-x) in double: 2^20 values on [-90, 90] and every
 * 4099th float bit pattern. Within 4.5 + 1.25 max(0, -x) ulp where the result
 * is a normal float above 1e-30 in magnitude, within 1e-30 where it is
 * smaller; NaN stays NaN, +inf stays +inf, +-0 give 0. The kernel rounds
 * y = -x log2 e to float (relative error 2^-24) with log2 e itself rounded
 * (1.34e-8): 2^y is then off by up to |x| (2^-24 + 1.34e-8), 1.23 |x| ulp,
 * which matters only on negative x, whose SiLU is small. */
static void test_silu_epilogue(void)
{
    const int64_t ngrid = 1 << 20;
    int64_t n = ngrid + (4294967296LL + 4098) / 4099 + 6; /* patterns 0, 4099, ... below 2^32 */
    float *x = xmalloc(sizeof(float) * (size_t)n), *y = xmalloc(sizeof(float) * (size_t)n);
    int64_t k = 0;
    for (int64_t i = 0; i < ngrid; i++)
        x[k++] = (float)(-90.0 + 180.0 * (double)i / (double)(ngrid - 1));
    for (uint64_t b = 0; b < 4294967296ULL; b += 4099) {
        uint32_t u = (uint32_t)b;
        memcpy(&x[k++], &u, sizeof(float));
    }
    const float special[6] = {0.0f, -0.0f, INFINITY, NAN, 88.0f, -88.0f};
    for (int i = 0; i < 6; i++)
        x[k++] = special[i];
    memcpy(y, x, sizeof(float) * (size_t)k);
    gemm_epi e = {.act = GEMM_ACT_SILU};
    gemm_act_apply(y, k, &e);

    double worst = 0, worst_x = 0, worst_abs = 0, worst_excess = -1e9, excess_x = 0;
    int64_t bad_special = 0;
    for (int64_t i = 0; i < k; i++) {
        double v = x[i];
        if (isnan(v) || isinf(v)) {
            /* NaN in, NaN out; +inf is its own SiLU (-inf is left alone:
             * the limit is 0, IEEE's -inf * 0 is NaN) */
            if ((isnan(v) && !isnan(y[i])) || (v > 0 && !(isinf(y[i]) && y[i] > 0)))
                bad_special++;
            continue;
        }
        double r = v / (1.0 + exp(-v));
        if (fabs(r) >= 1e-30) {
            double u = ulps(y[i], r);
            if (u > worst)
                worst = u, worst_x = v;
            if (u - (4.5 + 1.25 * (v < 0 ? -v : 0)) > worst_excess)
                worst_excess = u - (4.5 + 1.25 * (v < 0 ? -v : 0)), excess_x = v;
        } else if (fabs((double)y[i] - r) > worst_abs) {
            worst_abs = fabs((double)y[i] - r);
        }
    }
    CHECK(worst_excess <= 0, "SiLU epilogue: %.2f ulp over 4.5 + 1.25 max(0, -x) at x = %.9g", worst_excess, excess_x);
    CHECK(worst_abs <= 1e-30, "SiLU epilogue: %g off where |x sigmoid(x)| < 1e-30", worst_abs);
    CHECK(bad_special == 0, "SiLU epilogue: %lld NaN or +inf inputs changed", (long long)bad_special);
    printf("silu epilogue: %lld values, worst %.2f ulp at x = %.9g\n", (long long)k, worst, worst_x);
    free(x);
    free(y);
}

/* ---- BatchNormalization ------------------------------------------------ */

static void test_batchnorm(void)
{
    for (int variant = 0; variant < 3; variant++) {
        graph_t *g = graph_new();
        char err[256] = "";
        int64_t xd[4] = {2, 3, 4, 5}, C = 3, inner = 20;
        int64_t pn = variant == 2 ? C * inner : C;
        int64_t pd[3] = {3, 4, 5};
        float *x = rand_buf(2 * 3 * 20), *sc = rand_buf(pn), *bi = rand_buf(pn),
              *mu = rand_buf(pn), *va = rand_buf(pn);
        for (int64_t i = 0; i < pn; i++)
            va[i] = va[i] * va[i] + 0.1f;
        int in[5] = {add_tensor(g, "x", 4, xd, x), 0, 0, 0, 0};
        const char *names[4] = {"s", "b", "m", "v"};
        float *pv[4] = {sc, bi, mu, va};
        for (int i = 0; i < 4; i++)
            in[1 + i] = variant == 2 ? add_tensor(g, names[i], 3, pd, pv[i])
                                     : add_tensor(g, names[i], 1, &C, pv[i]);
        if (variant == 1)
            g->t[in[4]].kind = TK_INPUT; /* not constant: folded at run time */
        int out = graph_add_tensor(g, "y");
        graph_add_node(g, "bn", "BatchNormalization", "", 5, in, 1, &out);
        float eps = variant == 0 ? 1e-5f : 1e-3f;
        if (variant)
            set_float(&g->nodes[0], "epsilon", eps);
        if (variant == 2)
            set_int(&g->nodes[0], "spatial", 0);
        float *y;
        tensor_t *yt;
        int rc = run_node(g, 1 + variant % 2, &y, &yt, err, sizeof err);
        CHECK(rc == 0, "bn: %s", err);
        double md = 0;
        for (int64_t nn = 0; rc == 0 && nn < 2; nn++)
        for (int64_t c = 0; c < C; c++)
        for (int64_t i = 0; i < inner; i++) {
            int64_t pi = variant == 2 ? c * inner + i : c;
            double xv = x[(nn * C + c) * inner + i];
            double r = (xv - mu[pi]) / sqrt((double)va[pi] + eps) * sc[pi] + bi[pi];
            double d = fabs(r - y[(nn * C + c) * inner + i]);
            md = d > md ? d : md;
        }
        CHECK(rc == 0 && md < 1e-4, "bn variant %d: %g", variant, md);
        g->t[in[4]].kind = TK_CONST; /* so that graph_free frees it */
        free(y);
        free(x);
        free(sc);
        free(bi);
        free(mu);
        free(va);
        graph_free(g);
    }
    /* hand value: x=3, mean 1, var 4 (eps 0), scale 2, bias 1 -> 2*(3-1)/2+1 = 3 */
    graph_t *g = graph_new();
    char err[256] = "";
    int64_t xd[3] = {1, 1, 1}, one = 1;
    float xv = 3, s = 2, b = 1, m = 1, v = 4;
    int in[5] = {add_tensor(g, "x", 3, xd, &xv), add_tensor(g, "s", 1, &one, &s),
                 add_tensor(g, "b", 1, &one, &b), add_tensor(g, "m", 1, &one, &m),
                 add_tensor(g, "v", 1, &one, &v)};
    int out = graph_add_tensor(g, "y");
    graph_add_node(g, "bn1", "BatchNormalization", "", 5, in, 1, &out);
    set_float(&g->nodes[0], "epsilon", 0.0f);
    float *y;
    tensor_t *yt;
    int rc = run_node(g, 1, &y, &yt, err, sizeof err);
    CHECK(rc == 0, "bn hand: %s", err);
    if (rc == 0)
        CHECK_NEAR(y[0], 3.0, 1e-6, "bn hand");
    free(y);
    graph_free(g);
}

/* The direct conv's Focus row gather: d[i] = s[2 i], against the scalar loop,
 * for every length up to 70 with s[2 (n - 1)] the last float before a page
 * that cannot be read (an over-read faults). */
static void test_gather2(void)
{
    long page = sysconf(_SC_PAGESIZE);
    char *map = mmap(NULL, (size_t)(2 * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    CHECK(map != MAP_FAILED, "gather2: mmap");
    if (map == MAP_FAILED)
        return;
    CHECK(mprotect(map + page, (size_t)page, PROT_NONE) == 0, "gather2: mprotect");
    int bad = 0;
    for (int64_t n = 1; n <= 70; n++) {
        float *s = (float *)(void *)(map + page) - (2 * (n - 1) + 1), d[80];
        for (int64_t i = 0; i < 2 * (n - 1) + 1; i++)
            s[i] = (float)(i * 3 + 1);
        for (int i = 0; i < 80; i++)
            d[i] = -1.0f;
        gemm512_gather2(d, s, n);
        for (int64_t i = 0; i < n; i++)
            bad += d[i] != s[2 * i];
        for (int64_t i = n; i < 80; i++)
            bad += d[i] != -1.0f;
    }
    CHECK(bad == 0, "gather2: %d floats wrong or written past the end", bad);
    munmap(map, (size_t)(2 * page));
}

/* ---- depthwise 3x3 planes with an activation ------------------------------ */

/* dw512_plane on 3x3, stride 1, pad 1 planes 17 to 81 wide (those whose rows
 * fill 16-lane vectors badly go to the kernel that treats the plane as one
 * row, masking taps that cross a row's ends) and 1 to 52 rows (blocks of the
 * first and last rows, the plane's end mid-vector): against the conv and the
 * activation in double, and bit for bit against the plane without an
 * activation (the row kernel) followed by gemm_act_apply, as the taps add in
 * the same order. The conv is ref_conv's (double sums, rounded once). */
static double act_ref(double v, const gemm_epi *e)
{
    if (e->pre)
        v = v * e->s1 + e->b1;
    if (e->act == GEMM_ACT_SILU)
        v = v / (1.0 + exp(-v));
    else if (e->act == GEMM_ACT_RELU)
        v = v > 0 ? v : 0;
    else if (e->act == GEMM_ACT_CLIP)
        v = v < e->alpha ? e->alpha : v > e->beta ? e->beta : v;
    if (e->post)
        v = v * e->s2 + e->b2;
    return v;
}

static void test_dw_plane_act(void)
{
    /* 17 x 24: a block whose right taps as an inner block would read one
     * float past the plane (W (H - 1) a multiple of 128) runs as an edge one */
    static const int64_t hs[] = {1, 2, 3, 9, 17, 52}, ws[] = {17, 24, 26, 33, 52, 81, 104};
    const gemm_epi acts[4] = {
        {.act = GEMM_ACT_SILU},
        {.act = GEMM_ACT_RELU},
        {.act = GEMM_ACT_CLIP, .alpha = -0.5f, .beta = 0.75f},
        {.act = GEMM_ACT_SILU, .pre = 1, .s1 = 1.5f, .b1 = -0.25f, .post = 1, .s2 = 0.5f, .b2 = 0.125f},
    };
    if (!gemm512_available()) {
        printf("dw plane act: no AVX-512 on this CPU, dw512_plane is not used\n");
        return;
    }
    int planes = 0;
    for (size_t hi = 0; hi < sizeof hs / sizeof hs[0]; hi++)
        for (size_t wi = 0; wi < sizeof ws / sizeof ws[0]; wi++) {
            const int64_t H = hs[hi], W = ws[wi], n = H * W;
            dw512_geom d = {.IH = H, .IW = W, .OH = H, .OW = W, .KH = 3, .KW = 3, .sy = 1,
                            .sx = 1, .dy = 1, .dx = 1, .pt = 1, .pl = 1};
            float *x = rand_buf(n), *w = rand_buf(9), *y = xmalloc(sizeof(float) * (size_t)n),
                  *y2 = xmalloc(sizeof(float) * (size_t)n);
            float *sc = xaligned_alloc(sizeof(float) * dw512_scratch_floats(&d));
            float bias = 0.25f, *conv = xmalloc(sizeof(float) * (size_t)n);
            cg g = {.nsp = 2, .in = {H, W}, .k = {3, 3}, .s = {1, 1}, .d = {1, 1},
                    .pb = {1, 1}, .pe = {1, 1}, .autopad = "NOTSET"};
            ref_conv_out(&g, 0);
            ref_conv(&g, 1, 1, 1, 1, x, w, &bias, conv);
            for (int a = 0; a < 4; a++) {
                const gemm_epi *e = &acts[a];
                dw512_begin(&d, e, sc);
                dw512_plane(&d, x, w, bias, e, y, sc);
                dw512_begin(&d, NULL, sc);
                dw512_plane(&d, x, w, bias, NULL, y2, sc);
                gemm_act_apply(y2, n, e);
                double worst = 0;
                int64_t same = 0;
                for (int64_t p = 0; p < n; p++) {
                    double ref = act_ref(conv[p], e), err = fabs(y[p] - ref) / (1 + fabs(ref));
                    worst = err > worst ? err : worst;
                    same += memcmp(&y[p], &y2[p], sizeof(float)) == 0;
                }
                CHECK(worst < 1e-5, "dw plane %lldx%lld act %d: max error %g", (long long)H,
                      (long long)W, a, worst);
                CHECK(same == n, "dw plane %lldx%lld act %d: %lld of %lld outputs differ from "
                      "the row kernel's", (long long)H, (long long)W, a, (long long)(n - same),
                      (long long)n);
                planes++;
            }
            free(x);
            free(w);
            free(y);
            free(y2);
            free(conv);
            free(sc);
        }
    printf("dw plane act: %d planes\n", planes);
}

int main(void)
{
    g_pool = threadpool_new(2);
    test_gather2();
    test_dw_plane_act();
    test_conv_hand();
    test_conv_errors();
    test_conv_sweep();
    test_convt_sweep();
    test_gemm_matmul();
    test_pools();
    test_batchnorm();
    test_silu_epilogue();
    threadpool_free(g_pool);
    TEST_END();
}
