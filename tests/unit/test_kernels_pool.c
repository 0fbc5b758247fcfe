/* tests/unit/test_kernels_pool.c — GlobalAveragePool and the tiled MaxPool
 * (kernel = stride, no pads) bit for bit against plain loops written here
 * that restate the kernels' arithmetic one value at a time: four partial sums
 * per plane for the mean, the max down each window column and then across
 * for the pool. The kernels compute several planes or rows at once; their
 * results must not move by a bit, NaN and infinities included (the int8
 * simulation requantizes these fp32 outputs). */
#include "runtime/exec/kernels.h"
#include "runtime/exec/threadpool.h"
#include "runtime/model/model.h"
#include "tests/graph_build.h"
#include "tests/test.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct threadpool *g_pool;

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Values over 2^-20 .. 2^20 so that a sum taken in another order rounds
 * differently (a reordered kernel fails), signs mixed. */
static float value(void)
{
    uint64_t r = next();
    float v = (float)((r >> 40) & 0xffffff) / 16777216.0f;
    v = ldexpf(v, (int)((r >> 8) % 41) - 20);
    return r & 1 ? -v : v;
}

/* The NaN this CPU makes from inf - inf: the only NaN the sums get, so that
 * which operand's NaN an add keeps cannot change the bits. */
static float made_nan(void)
{
    volatile float inf = INFINITY;
    return inf - inf;
}

/* Fills n floats; mode 0 finite, 1 with NaN and both infinities, 2 +inf,
 * 3 -inf, 4 every value -0 (the sums start at +0: the mean is +0). */
static void fill(float *x, int64_t n, int mode)
{
    float nan = made_nan();
    for (int64_t i = 0; i < n; i++) {
        x[i] = mode == 4 ? -0.0f : value();
        uint64_t r = next() % 16;
        if (mode == 1 && r == 0)
            x[i] = nan;
        else if ((mode == 1 || mode == 2) && r == 1)
            x[i] = INFINITY;
        else if ((mode == 1 || mode == 3) && r == 2)
            x[i] = -INFINITY;
    }
}

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Infers and runs the graph's only node; *ny floats of output 0 in *out
 * (caller frees), NULL on failure. */
static float *run_node(graph_t *g, int nthreads, int64_t *ny, char *err, size_t errlen)
{
    node_t *n = &g->nodes[0];
    n->def = exec_find_op(n->domain, n->op);
    if (!n->def || n->def->infer(g, n, err, errlen))
        return NULL;
    tensor_t *t = node_output(g, n, 0);
    *ny = (int64_t)(tensor_nbytes(t) / sizeof(float));
    t->data = xcalloc(1, tensor_nbytes(t) + 8);
    op_ctx c = {.nthreads = nthreads, .pool = nthreads > 1 ? g_pool : NULL, .err = err,
                .errlen = errlen};
    int rc = n->def->run(&c, g, n);
    float *y = t->data;
    t->data = NULL;
    if (rc) {
        free(y);
        return NULL;
    }
    return y;
}

/* ---- GlobalAveragePool ------------------------------------------------- */

/* One plane's mean as the kernel has always taken it. */
static float gavg_ref(const float *x, int64_t n)
{
    float s[4] = {0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s[0] += x[i];
        s[1] += x[i + 1];
        s[2] += x[i + 2];
        s[3] += x[i + 3];
    }
    for (; i < n; i++)
        s[0] += x[i];
    return n > 0 ? ((s[0] + s[1]) + (s[2] + s[3])) / (float)n : 0.0f;
}

static void check_gavg(int64_t N, int64_t C, int64_t H, int64_t W, int mode, int nthreads)
{
    int64_t n = H * W, planes = N * C, dims[4] = {N, C, H, W};
    float *x = xmalloc((size_t)(planes * n + 1) * sizeof(float));
    /* modes per plane, so that clean planes sit next to ones with NaN */
    for (int64_t p = 0; p < planes; p++)
        fill(x + p * n, n, mode < 0 ? (int)(p % 5) : mode);
    float *want = xmalloc((size_t)planes * sizeof(float));
    for (int64_t p = 0; p < planes; p++)
        want[p] = gavg_ref(x + p * n, n);

    graph_t *g = graph_new();
    char err[256] = "";
    int in = add_tensor(g, "x", 4, dims, x);
    int out = graph_add_tensor(g, "y");
    graph_add_node(g, "gap", "GlobalAveragePool", "", 1, &in, 1, &out);
    int64_t ny = 0;
    float *y = run_node(g, nthreads, &ny, err, sizeof err);
    CHECK(y && ny == planes, "GlobalAveragePool %lldx%lldx%lldx%lld: %s", (long long)N,
          (long long)C, (long long)H, (long long)W, err);
    if (y && ny == planes) {
        int64_t bad = 0;
        while (bad < planes && !memcmp(&y[bad], &want[bad], sizeof(float)))
            bad++;
        CHECK(bad == planes,
              "GlobalAveragePool %lldx%lldx%lld, mode %d, %d threads: plane %lld %.9g (0x%08x) vs %.9g",
              (long long)N, (long long)C, (long long)n, mode, nthreads, (long long)bad,
              bad < planes ? y[bad] : 0.0, bad < planes ? bits(y[bad]) : 0u,
              bad < planes ? want[bad] : 0.0);
    }
    free(y);
    free(want);
    free(x);
    graph_free(g);
}

static void test_gavg(void)
{
    static const int64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 63, 64, 65, 192, 1000};
    static const int64_t chans[] = {1, 2, 3, 5, 7, 9, 13, 17};
    int k = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t c = 0; c < sizeof chans / sizeof *chans; c++, k++) {
            /* planes as H x W and as one row, one batch and two */
            int64_t h = sizes[s] % 2 == 0 ? 2 : 1;
            check_gavg(1 + k % 2, chans[c], h, sizes[s] / h, -1, 1);
            check_gavg(1, chans[c], 1, sizes[s], k % 4, 1 + k % 2);
        }
    /* enough values for the thread pool (split at any plane) */
    check_gavg(1, 203, 17, 23, -1, 2);
    check_gavg(3, 67, 1, 1000, 1, 2);
    /* every NaN the same: no plane can hide a payload change */
    CHECK(isnan(made_nan()), "inf - inf is NaN");
}

/* ---- MaxPool over windows that tile the plane -------------------------- */

/* Max of the window at (oy, ox) as the tiled kernel has always taken it:
 * down each column (first row first), then across the columns. */
static float maxpool_ref(const float *x, int64_t IW, int64_t kh, int64_t kw, int64_t oy,
                         int64_t ox)
{
    float v = 0.0f;
    for (int64_t kx = 0; kx < kw; kx++) {
        const float *col = x + oy * kh * IW + ox * kw + kx;
        float m = col[0];
        for (int64_t ky = 1; ky < kh; ky++)
            m = col[ky * IW] > m ? col[ky * IW] : m;
        v = kx == 0 || m > v ? m : v;
    }
    return v;
}

typedef struct tile_case {
    int64_t N, C, H, W, kh, kw;
    int nsp, ceil_mode;
    const char *auto_pad;
} tile_case;

/* Max selection keeps one of its operands, so NaNs of several payloads and
 * both zeros go in: the kernel must pick the same one. */
static void fill_max(float *x, int64_t n, int special)
{
    static const uint32_t odd[] = {0x7fc00001u, 0xffc00002u, 0x7f800003u, 0x80000000u, 0x00000000u};
    for (int64_t i = 0; i < n; i++) {
        x[i] = value();
        uint64_t r = next() % 8;
        if (special && r == 0)
            memcpy(&x[i], &odd[next() % 5], sizeof(float));
        else if (special && r == 1)
            x[i] = next() & 1 ? INFINITY : -INFINITY;
    }
}

static void check_tile(const tile_case *tc, int special, int nthreads)
{
    const int64_t H = tc->nsp == 1 ? 1 : tc->H, kh = tc->nsp == 1 ? 1 : tc->kh;
    const int64_t OH = H / kh, OW = tc->W / tc->kw, planes = tc->N * tc->C;
    float *x = xmalloc((size_t)(planes * H * tc->W + 1) * sizeof(float));
    fill_max(x, planes * H * tc->W, special);
    float *want = xmalloc((size_t)(planes * OH * OW + 1) * sizeof(float));
    for (int64_t p = 0; p < planes; p++)
        for (int64_t oy = 0; oy < OH; oy++)
            for (int64_t ox = 0; ox < OW; ox++)
                want[(p * OH + oy) * OW + ox] =
                    maxpool_ref(x + p * H * tc->W, tc->W, kh, tc->kw, oy, ox);

    graph_t *g = graph_new();
    char err[256] = "";
    int64_t dims[4] = {tc->N, tc->C, H, tc->W};
    if (tc->nsp == 1)
        dims[2] = tc->W;
    int in = add_tensor(g, "x", tc->nsp + 2, dims, x);
    int out = graph_add_tensor(g, "y");
    graph_add_node(g, "mp", "MaxPool", "", 1, &in, 1, &out);
    node_t *n = &g->nodes[0];
    int64_t k[2] = {kh, tc->kw};
    set_ints(n, "kernel_shape", tc->nsp, tc->nsp == 1 ? k + 1 : k);
    set_ints(n, "strides", tc->nsp, tc->nsp == 1 ? k + 1 : k);
    if (tc->ceil_mode)
        set_int(n, "ceil_mode", 1);
    if (tc->auto_pad)
        set_str(n, "auto_pad", tc->auto_pad);
    int64_t ny = 0;
    float *y = run_node(g, nthreads, &ny, err, sizeof err);
    CHECK(y && ny == planes * OH * OW, "MaxPool %lldx%lldx%lldx%lld k %lldx%lld: %s (%lld values)",
          (long long)tc->N, (long long)tc->C, (long long)H, (long long)tc->W, (long long)kh,
          (long long)tc->kw, err, (long long)ny);
    if (y && ny == planes * OH * OW) {
        int64_t bad = 0;
        while (bad < ny && !memcmp(&y[bad], &want[bad], sizeof(float)))
            bad++;
        CHECK(bad == ny,
              "MaxPool %lldx%lldx%lldx%lld k %lldx%lld, %d threads: output %lld 0x%08x vs 0x%08x",
              (long long)tc->N, (long long)tc->C, (long long)H, (long long)tc->W, (long long)kh,
              (long long)tc->kw, nthreads, (long long)bad,
              bad < ny ? bits(y[bad]) : 0u, bad < ny ? bits(want[bad]) : 0u);
    }
    free(y);
    free(want);
    free(x);
    graph_free(g);
}

static void test_tiled_maxpool(void)
{
    /* MNIST's two pools, the PP-OCR classifier's, then every window up to
     * 4x4 over planes with and without columns and rows left over */
    static const tile_case named[] = {
        {1, 8, 28, 28, 2, 2, 2, 0, NULL},
        {1, 16, 14, 14, 3, 3, 2, 0, NULL},
        {1, 200, 2, 96, 2, 2, 2, 0, NULL},
        /* the buffer holds fewer rows of windows than a plane has */
        {2, 5, 40, 700, 2, 2, 2, 0, NULL},
        {1, 3, 9, 4000, 3, 3, 2, 0, NULL},
        /* enough for the thread pool */
        {2, 64, 64, 64, 2, 2, 2, 0, NULL},
        {1, 7, 12, 12, 4, 3, 2, 0, NULL},
        /* geometry that stays plain under ceil_mode and auto_pad */
        {1, 3, 8, 12, 2, 3, 2, 1, NULL},
        {1, 3, 8, 12, 2, 2, 2, 0, "VALID"},
        {1, 3, 8, 12, 2, 2, 2, 0, "SAME_UPPER"},
        /* one spatial axis */
        {2, 3, 1, 50, 1, 2, 1, 0, NULL},
        {1, 5, 1, 31, 1, 3, 1, 0, NULL},
    };
    for (size_t i = 0; i < sizeof named / sizeof *named; i++)
        for (int special = 0; special < 2; special++)
            check_tile(&named[i], special, 1 + (int)(i + special) % 2);
    int c = 0;
    for (int64_t kh = 1; kh <= 4; kh++)
        for (int64_t kw = 1; kw <= 4; kw++) {
            if (kh == 1 && kw == 1)
                continue;
            for (int64_t H = kh; H <= kh * 3 + 1; H += kh + 1)
                for (int64_t W = kw; W <= kw * 5 + 2; W += 2 * kw - 1, c++) {
                    tile_case tc = {1 + c % 2, 1 + c % 7, H, W, kh, kw, 2, 0, NULL};
                    check_tile(&tc, c % 3 != 0, 1 + c % 2);
                }
        }
}

int main(void)
{
    g_pool = threadpool_new(2);
    test_gavg();
    test_tiled_maxpool();
    threadpool_free(g_pool);
    TEST_END();
}
