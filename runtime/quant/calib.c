/* runtime/quant/calib.c — calibration: per-tensor activation ranges over a
 * dataset (normal = min/max; kl_divergence and mmse = a range search over a
 * histogram collected in a second pass). */
#include "runtime/quant/quant.h"
#include "dump/dump.h"
#include "util/util.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HIST_BINS QUANT_HIST_BINS
#define CAND_STEPS 128  /* candidate ranges: t = k/128 of the full range, both sides */
#define CAND_MIN 16     /* ... down to t = 1/8 */

static double qdq_center(double x, double scale, double zp)
{
    double q = round(x / scale) + zp;
    q = q < -128 ? -128 : q > 127 ? 127 : q;
    return (q - zp) * scale;
}

static double cand_mse(const double *h, int nb, double lo, double w, const qparam_t *p)
{
    double e = 0;
    for (int b = 0; b < nb; b++) {
        if (!h[b])
            continue;
        double c = lo + (b + 0.5) * w, d = c - qdq_center(c, p->scale, p->zp);
        e += h[b] * d * d;
    }
    return e;
}

/* KL(P||Q) for the clipping range = bins [blo, bhi), as TensorRT's entropy
 * calibration defines it, on both sides: P is the histogram inside the range
 * with the clipped outliers added to its edge bins; Q is the histogram inside
 * the range WITHOUT the outliers, merged into 255 levels and spread back evenly
 * over each level's non-empty bins. Clipping costs through the outlier mass Q
 * lacks; a wide range costs through the levels that merge many bins. Bins where
 * Q is empty but P is not get eps (the usual smoothing), so KL stays finite. */
static double cand_kl(const double *h, int nb, int blo, int bhi, double *p, double *q)
{
    int n = bhi - blo;
    double sp = 0, sq = 0, kl = 0;
    const double eps = 1e-4;

    for (int i = 0; i < n; i++)
        p[i] = q[i] = 0;
    for (int j = 0; j < 255; j++) {
        int a = (int)((int64_t)j * n / 255), b = (int)((int64_t)(j + 1) * n / 255);
        double sum = 0;
        int nz = 0;
        for (int i = a; i < b; i++) {
            sum += h[blo + i];
            nz += h[blo + i] > 0;
        }
        for (int i = a; i < b && nz; i++)
            if (h[blo + i] > 0)
                q[i] = sum / nz;
    }
    for (int i = 0; i < n; i++)
        p[i] = h[blo + i];
    for (int b = 0; b < blo; b++)
        p[0] += h[b];
    for (int b = bhi; b < nb; b++)
        p[n - 1] += h[b];
    int qzero = 0, qnz = 0;
    for (int i = 0; i < n; i++) {
        sp += p[i];
        sq += q[i];
        qzero += p[i] > 0 && q[i] <= 0;
        qnz += q[i] > 0;
    }
    if (sp <= 0 || sq <= 0 || !qnz)
        return INFINITY;
    /* smoothing: eps to the empty bins of Q, taken evenly from the others */
    double take = eps * qzero / qnz;
    for (int i = 0; i < n; i++) {
        if (p[i] <= 0)
            continue;
        double pi = p[i] / sp, qi = q[i] > 0 ? q[i] / sq - take : eps;
        if (qi <= 0)
            qi = eps;
        kl += pi * log(pi / qi);
    }
    return kl;
}

#define KL_STEP 4 /* candidate edges every KL_STEP bins */

/* Best edge on one side (lower when side == 0), the other edge fixed. */
static void kl_side(const double *h, int nb, int zb, int side, int *blo, int *bhi, double *p,
                    double *q)
{
    double best = INFINITY;
    int keep = side ? *bhi : *blo;
    if (side) {
        int from = *blo + 255 > zb + 1 ? *blo + 255 : zb + 1;
        for (int e = nb; e >= from; e -= KL_STEP) {
            double k = cand_kl(h, nb, *blo, e, p, q);
            if (k < best * (1 - 1e-12)) /* ties keep the wider range */
                best = k, keep = e;
        }
        *bhi = keep;
    } else {
        int to = *bhi - 255 < zb ? *bhi - 255 : zb;
        for (int e = 0; e <= to; e += KL_STEP) {
            double k = cand_kl(h, nb, e, *bhi, p, q);
            if (k < best * (1 - 1e-12))
                best = k, keep = e;
        }
        *blo = keep;
    }
}

void quant_hist_range(const double *hist, int nbins, float lo, float hi, int algo, float *out_min,
                      float *out_max)
{
    *out_min = lo;
    *out_max = hi;
    if (algo == QA_NORMAL || !(hi > lo) || nbins < 255)
        return;
    double w = ((double)hi - lo) / nbins, best = INFINITY;
    if (algo == QA_KL) {
        /* per-side thresholds: the upper edge, then the lower one, then the
         * upper one again for the final lower edge (coordinate descent) */
        double *p = xmalloc(sizeof(double) * (size_t)nbins);
        double *q = xmalloc(sizeof(double) * (size_t)nbins);
        int zb = (int)floor(-lo / w), blo = 0, bhi = nbins;
        zb = zb < 0 ? 0 : zb >= nbins ? nbins - 1 : zb;
        kl_side(hist, nbins, zb, 1, &blo, &bhi, p, q);
        if (zb > 0) {
            kl_side(hist, nbins, zb, 0, &blo, &bhi, p, q);
            kl_side(hist, nbins, zb, 1, &blo, &bhi, p, q);
        }
        free(p);
        free(q);
        *out_min = blo > 0 ? (float)(lo + blo * w) : lo;
        *out_max = bhi < nbins ? (float)(lo + bhi * w) : hi;
        return;
    }
    for (int k = CAND_STEPS; k >= CAND_MIN; k--) {
        double t = (double)k / CAND_STEPS;
        float clo = (float)(lo * t), chi = (float)(hi * t);
        qparam_t p;
        quant_param_from_range(clo, chi, &p);
        double e = cand_mse(hist, nbins, lo, w, &p);
        /* Strictly better only: ties keep the wider range. */
        if (e < best * (1 - 1e-12)) {
            best = e;
            *out_min = clo;
            *out_max = chi;
        }
    }
}

/* ---- running the dataset ---- */

typedef struct calib {
    graph_t *g;
    float *mn, *mx;
    uint8_t *has;
    double *hist; /* n_t * HIST_BINS, second pass only */
    int pass;
} calib;

/* Clones for AVX-512 and AVX2 where the CPU has them: every activation of
 * every sample passes through these two loops. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CALIB_CLONES \
    __attribute__((optimize("O3"), target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define CALIB_CLONES __attribute__((optimize("O3")))
#endif

typedef float cvf __attribute__((vector_size(64)));
typedef int32_t cvi __attribute__((vector_size(64)));
typedef float cvf8 __attribute__((vector_size(32)));
typedef int32_t cvi8 __attribute__((vector_size(32)));
typedef double cvd8 __attribute__((vector_size(64)));
typedef int64_t cvl8 __attribute__((vector_size(64)));
#define LANES 16
#define csel(m, a, b) ((cvf)(((cvi)(a) & (m)) | ((cvi)(b) & ~(m))))

/* LANES at a time: the lanes' order does not change a min or a max */
CALIB_CLONES void quant_min_max(const float *v, int64_t n, float *mn, float *mx)
{
    cvf lmn = (cvf){0} + *mn, lmx = (cvf){0} + *mx;
    int64_t i = 0;

    for (; i + LANES <= n; i += LANES) {
        cvf x;
        memcpy(&x, v + i, sizeof(x));
        cvi fin = x - x == 0; /* false for inf and NaN */
        lmn = csel(fin & (x < lmn), x, lmn);
        lmx = csel(fin & (x > lmx), x, lmx);
    }
    for (int k = 0; k < LANES; k++) {
        *mn = lmn[k] < *mn ? lmn[k] : *mn;
        *mx = lmx[k] > *mx ? lmx[k] : *mx;
    }
    for (; i < n; i++)
        if (v[i] - v[i] == 0.0f) {
            *mn = v[i] < *mn ? v[i] : *mn;
            *mx = v[i] > *mx ? v[i] : *mx;
        }
}

/* The bins of LANES values, HIST_BINS (a bin past the end) for a value left
 * out: not finite, or an exact zero. The float difference, then the double
 * product, as in the scalar form; eight doubles at a time. */
CALIB_CLONES static void bins_of(const float *v, float lo, double inv, int32_t *b)
{
    for (int half = 0; half < LANES; half += LANES / 2) {
        cvf8 x;
        memcpy(&x, v + half, sizeof(x));
        cvd8 y = __builtin_convertvector(x - lo, cvd8) * inv;
        cvl8 pos = y > 0, top = y < HIST_BINS - 1;
        y = (cvd8)((cvl8)y & pos);
        y = (cvd8)(((cvl8)y & top) | ((cvl8)((cvd8){0} + (HIST_BINS - 1)) & ~top));
        cvi8 bin = __builtin_convertvector(y, cvi8), keep = (x - x == 0) & (x != 0);
        bin = (bin & keep) | (((cvi8){0} + HIST_BINS) & ~keep);
        memcpy(b + half, &bin, sizeof(bin));
    }
}

/* Counted in four interleaved integer histograms, so that runs of one bin do
 * not wait on each other's increments; the sums are whole numbers, exact in a
 * double whatever their order. */
void quant_hist_add(double *h, const float *v, int64_t n, float lo, float hi)
{
    uint32_t cnt[4][HIST_BINS + 1]; /* and a bin for the values left out */
    double inv = HIST_BINS / ((double)hi - lo);
    int32_t b[LANES];
    int64_t i = 0;

    memset(cnt, 0, sizeof(cnt));
    for (; i + LANES <= n; i += LANES) {
        bins_of(v + i, lo, inv, b);
        for (int k = 0; k < LANES; k++)
            cnt[k & 3][b[k]]++;
    }
    for (; i < n; i++) {
        if (!isfinite(v[i]) || v[i] == 0.0f)
            continue;
        double y = (v[i] - lo) * inv;
        cnt[0][y > 0 ? (y < HIST_BINS - 1 ? (int)y : HIST_BINS - 1) : 0]++;
    }
    for (int k = 0; k < HIST_BINS; k++)
        h[k] += (double)cnt[0][k] + cnt[1][k] + cnt[2][k] + cnt[3][k];
}

static void observe(calib *c, int t, const float *v, int64_t n)
{
    if (c->pass == 0) {
        float mn = c->has[t] ? c->mn[t] : INFINITY, mx = c->has[t] ? c->mx[t] : -INFINITY;
        quant_min_max(v, n, &mn, &mx);
        c->mn[t] = mn;
        c->mx[t] = mx;
        c->has[t] = 1;
        return;
    }
    float lo = c->mn[t] < 0 ? c->mn[t] : 0, hi = c->mx[t] > 0 ? c->mx[t] : 0;
    /* Exact zeros are left out: 0 is exact on every candidate grid (the range
     * always holds it), and the spike of a ReLU output would otherwise rule the
     * KL search (the level holding bin 0 would smear it over its neighbours). */
    if (hi > lo && isfinite(lo) && isfinite(hi))
        quant_hist_add(c->hist + (size_t)t * HIST_BINS, v, n, lo, hi);
}

static int calib_hook(const layer_event_t *ev, void *user)
{
    calib *c = user;
    const node_t *n = &c->g->nodes[ev->node];
    for (int k = 0; k < n->n_out; k++) {
        int t = n->out[k];
        if (t < 0 || c->g->t[t].dtype != DT_FLOAT || !c->g->t[t].data)
            continue;
        observe(c, t, c->g->t[t].data, tensor_numel(&c->g->t[t]));
    }
    return 0;
}

/* A bar on a terminal; elsewhere (a CI log, a pipe) one plain line every five
 * seconds of a long calibration. */
static void progress_bar(int done, int total, double t0, int pass, int passes, double *last)
{
    double now = rt_now_us(), el = (now - t0) / 1e6;
    double eta = done ? el / done * (total - done) : 0;
    int w = 30, fill = total ? done * w / total : w;
    if (!isatty(STDERR_FILENO)) {
        if (now - *last < 5e6)
            return;
        *last = now;
        fprintf(stderr, "rknn-trace: calibration%s %d/%d samples, %.1f s, ETA %.1f s\n",
                passes > 1 ? (pass ? " (histograms)" : " (ranges)") : "", done, total, el, eta);
        return;
    }
    fprintf(stderr, "\rcalibration%s [", passes > 1 ? (pass ? " (histograms)" : " (ranges)") : "");
    for (int i = 0; i < w; i++)
        fputc(i < fill ? '#' : '.', stderr);
    fprintf(stderr, "] %d/%d  %.1fs  ETA %.1fs ", done, total, el, eta);
    if (done == total)
        fputc('\n', stderr);
}

/* NaN/inf in a sample would leave the ranges undefined: refuse the sample,
 * named by its file (or its input when the data came from the caller). */
static int check_finite(const float *v, int64_t n, const tensor_t *t, const char *file, char *err,
                        size_t errlen)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++)
        bad += !isfinite(v[i]);
    if (!bad)
        return RT_OK;
    if (file)
        return rt_err(err, errlen, RT_EFORMAT, "%s: %lld of %lld values are NaN or inf; "
                      "calibration data must be finite", file, (long long)bad, (long long)n);
    return rt_err(err, errlen, RT_EFORMAT, "input '%s': %lld of %lld values are NaN or inf; "
                  "calibration data must be finite", t->name, (long long)bad, (long long)n);
}

typedef struct params_job {
    const calib *c;
    int algo;
    qparam_t *p;
    atomic_int next;
} params_job;

/* The parameters of every tensor calibration saw, whatever range this thread
 * was given: tensors are taken one at a time, as their costs differ widely. */
static void tensor_params(void *arg, int64_t begin, int64_t end)
{
    params_job *j = arg;
    const calib *c = j->c;
    (void)begin, (void)end;
    for (int t; (t = atomic_fetch_add(&j->next, 1)) < c->g->n_t;) {
        if (!c->has[t])
            continue;
        float lo = c->mn[t], hi = c->mx[t];
        if (!isfinite(lo) || !isfinite(hi))
            lo = hi = 0; /* nothing finite seen */
        if (c->hist) {
            float hlo = lo < 0 ? lo : 0, hhi = hi > 0 ? hi : 0;
            const double *h = c->hist + (size_t)t * HIST_BINS;
            double total = 0;
            for (int b = 0; b < HIST_BINS; b++)
                total += h[b];
            /* A histogram with fewer values than 8 per bin (e.g. 10 logits x 20
             * samples) is too sparse for a range search: keep min/max. */
            if (total >= 8.0 * HIST_BINS)
                quant_hist_range(h, HIST_BINS, hlo, hhi, j->algo, &lo, &hi);
        }
        quant_param_from_range(lo, hi, &j->p[t]);
    }
}

/* MaxPool and nearest Resize outputs take their input's parameters, as
 * Toolkit2 gives them: in real RK3566/RV1103 files (yolov8n's SPPF MaxPools,
 * the Resizes of yolov8n and RetinaFace; tests/quant/shared.sh) each has
 * exactly its input's scale and zero point, where a range of its own would
 * differ for MaxPool. Their values are then their input's, on its grid. In
 * graph order, so that a MaxPool of a MaxPool takes the first one's. */
static void share_params(const graph_t *g, qparam_t *p, const uint8_t *has)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const node_t *n = &g->nodes[i];
        int nearest = !strcmp(n->op, "Resize") &&
                      !strcmp(node_attr_str(n, "mode", "nearest"), "nearest");
        if (n->folded || (strcmp(n->op, "MaxPool") && !nearest) || n->n_in < 1 || n->n_out < 1)
            continue;
        int x = n->in[0], y = n->out[0];
        if (x >= 0 && y >= 0 && has[x] && has[y])
            p[y] = p[x];
    }
}

int quant_calibrate(graph_t *g, exec_t *x, int algo, const quant_dataset *ds,
                    const void *const *inputs, int progress, qparam_t **act, uint8_t **has,
                    int *n_samples, char *err, size_t errlen)
{
    calib c = {.g = g};
    int rc = RT_OK, ns = ds ? ds->n_samples : 1, passes = algo == QA_NORMAL ? 1 : 2;
    float **buf = xcalloc((size_t)(g->n_inputs ? g->n_inputs : 1), sizeof(*buf));
    qparam_t *p = NULL;

    *act = NULL;
    *has = NULL;
    c.mn = xcalloc((size_t)g->n_t, sizeof(float));
    c.mx = xcalloc((size_t)g->n_t, sizeof(float));
    c.has = xcalloc((size_t)g->n_t, 1);
    if (ds && ds->n_inputs != g->n_inputs) {
        rc = rt_err(err, errlen, RT_EINVAL, "dataset has %d files per line, the model %d inputs",
                    ds->n_inputs, g->n_inputs);
        goto out;
    }
    for (int j = 0; ds && j < g->n_inputs; j++)
        buf[j] = xmalloc(tensor_nbytes(&g->t[g->inputs[j]]) + 1);
    for (c.pass = 0; c.pass < passes; c.pass++) {
        double t0 = rt_now_us(), last_line = t0;
        if (c.pass == 1)
            c.hist = xcalloc((size_t)g->n_t * HIST_BINS, sizeof(double));
        for (int s = 0; s < ns; s++) {
            if (ds && (rc = quant_dataset_sample(ds, s, g, buf, err, errlen)))
                goto out;
            for (int j = 0; j < g->n_inputs; j++) {
                tensor_t *t = &g->t[g->inputs[j]];
                const void *data = ds ? (const void *)buf[j] : inputs[j];
                /* token ids and masks are given, never quantized */
                int fl = t->dtype == DT_FLOAT;
                if (fl && c.pass == 0 &&
                    (rc = check_finite(data, tensor_numel(t), t,
                                       ds ? ds->files[s * ds->n_inputs + j] : NULL, err, errlen)))
                    goto out;
                if ((rc = exec_set_input(x, j, data, tensor_nbytes(t), err, errlen)))
                    goto out;
                if (fl)
                    observe(&c, g->inputs[j], data, tensor_numel(t));
            }
            rc = exec_run(x, calib_hook, &c, err, errlen);
            if (rc)
                goto out;
            if (progress)
                progress_bar(s + 1, ns, t0, c.pass, passes, &last_line);
        }
    }
    p = xcalloc((size_t)g->n_t, sizeof(*p));
    {
        /* the range searches (KL: hundreds of candidates per tensor) on the
         * executor's threads, a tensor at a time from a shared counter */
        params_job j = {.c = &c, .algo = algo, .p = p};
        atomic_init(&j.next, 0);
        exec_parallel_for(x, g->n_t, tensor_params, &j);
    }
    share_params(g, p, c.has);
    *act = p;
    *has = c.has;
    c.has = NULL;
    if (n_samples)
        *n_samples = ns;
out:
    for (int j = 0; j < g->n_inputs; j++)
        free(buf[j]);
    free(buf);
    free(c.mn);
    free(c.mx);
    free(c.has);
    free(c.hist);
    return rc;
}
