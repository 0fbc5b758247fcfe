/* tune/search.c — the search for the fewest fp16 layers that meet the target
 * (tune.h, "the search"): every step a row of the table. */
#include "tune/tune.h"
#include "runtime/quant/quant.h"
#include "util/escape.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *tune_metric_name(int metric)
{
    return metric == TUNE_COS ? "cos" : metric == TUNE_SQNR ? "SQNR dB" : "max abs";
}

typedef struct search {
    tune_session *s;
    const tune_search_opts *so;
    tune_result *r;
    int metric;
    double t0, eval_us;          /* start, time of the evaluations so far */
    int done, planned;
    int last_kept;               /* index of the last kept point, -1 */
    int rc;                      /* the failed evaluation's status */
} search;

static void progress(search *q)
{
    if (!q->so->progress)
        return;
    double left = q->done ? q->eval_us / q->done * (q->planned - q->done) / 1e6 : NAN;
    fprintf(stderr, "\r\033[Ktune: %d/%d evaluations, %.0f s elapsed%s", q->done,
            q->planned > q->done ? q->planned : q->done, (rt_now_us() - q->t0) / 1e6, "");
    if (!isnan(left) && q->planned > q->done)
        fprintf(stderr, ", about %.0f s left", left);
    fflush(stderr);
}

static void progress_clear(search *q)
{
    if (q->so->progress) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}

const char *tune_fmt_score(int metric, double target, double v, char *buf, size_t len)
{
    /* a cos target past 0.99999 gets one more decimal than it has: a worst
     * sample short of 0.999999 must not print as 1.00000 */
    int dec = 5;
    if (metric == TUNE_COS && target < 1 && target > 0.99999)
        dec = (int)ceil(-log10(1 - target) - 1e-9) + 1;
    if (dec > 9)
        dec = 9;
    if (isinf(v))
        snprintf(buf, len, "%s", v < 0 ? "-inf" : "inf");
    else if (metric == TUNE_COS)
        snprintf(buf, len, "%.*f", dec, v);
    else
        snprintf(buf, len, metric == TUNE_SQNR ? "%.2f" : "%.4g", v);
    return buf;
}

static const char *fmt_score(const search *q, double v, char *buf, size_t len)
{
    return tune_fmt_score(q->metric, tune_options(q->s)->target, v, buf, len);
}

static void row(search *q, int i)
{
    const tune_point *p = &q->r->pts[i];
    const tune_point *b = q->r->base >= 0 ? &q->r->pts[q->r->base] : NULL;
    char w[32], m[32], d[32] = "";
    /* the plain int8 rows have one NPU time (the same layers in int8): a delta
     * only for a configuration with fp16 layers, vs the best plain int8 */
    if (b && p->n_fp16 > 0)
        snprintf(d, sizeof d, "%+.1f%%", (p->npu_us - b->npu_us) / b->npu_us * 100);
    progress_clear(q);
    fprintf(q->so->out, "%4d  %-34s %5d  %-9s %-9s %8.3f  %-7s %s\n", i + 1,
            esc_tmp(ESC_TERM, q->r->what[i]),
            p->n_fp16, fmt_score(q, p->worst, w, sizeof w),
            fmt_score(q, p->mean, m, sizeof m), p->npu_us / 1000, d,
            p->meets ? "meets" : "");
    fflush(q->so->out);
}

/* Evaluates and records one configuration; returns its index, or -1 (err set;
 * *stop when it was interrupted). */
static int eval(search *q, const char *what, int algo, int method, const int *fp16, int n,
                int all_but, char *err, size_t errlen)
{
    tune_result *r = q->r;
    tune_point p;
    double t = rt_now_us();
    progress(q);
    int rc = tune_eval(q->s, algo, method, fp16, n, all_but, NULL, &p, err, errlen);
    if (rc) {
        q->rc = rc;
        return -1;
    }
    q->eval_us += rt_now_us() - t;
    q->done++;
    r->pts = xrealloc(r->pts, sizeof(*r->pts) * (size_t)(r->n + 1));
    r->what = xrealloc(r->what, sizeof(*r->what) * (size_t)(r->n + 1));
    r->pts[r->n] = p;
    snprintf(r->what[r->n], sizeof(r->what[0]), "%s", what);
    return r->n++;
}

static int keep(search *q, int i, const char *what, char *err, size_t errlen)
{
    tune_result *r = q->r;
    r->kept = xrealloc(r->kept, sizeof(int) * (size_t)(r->n_kept + 1));
    r->kept[r->n_kept++] = i;
    q->last_kept = i;
    if (!q->so->keep)
        return RT_OK;
    progress_clear(q);
    return q->so->keep(q->so->user, q->s, &r->pts[i], what, err, errlen);
}

/* keeps i when it does better than the last kept point */
static int maybe_keep(search *q, int i, const char *what, char *err, size_t errlen)
{
    if (q->last_kept >= 0 && !tune_better(q->s, &q->r->pts[i], &q->r->pts[q->last_kept]))
        return RT_OK;
    return keep(q, i, what, err, errlen);
}

static const tune_session *sort_s;
static const int *sort_metric;
static int by_gain(const void *a, const void *b)
{
    const tune_cand *c = tune_cands((tune_session *)sort_s);
    double x = c[*(const int *)a].alone_fp16, y = c[*(const int *)b].alone_fp16;
    if (isnan(x) != isnan(y))
        return isnan(x) ? 1 : -1;
    if (x == y || (isnan(x) && isnan(y))) {
        double u = c[*(const int *)a].single_cos, v = c[*(const int *)b].single_cos;
        if (isnan(u) != isnan(v))
            return isnan(u) ? 1 : -1;
        return u < v ? -1 : u > v;
    }
    return *sort_metric == TUNE_ATOL ? (x < y ? -1 : 1) : (x > y ? -1 : 1);
}

static int by_single(const void *a, const void *b)
{
    const tune_cand *c = tune_cands((tune_session *)sort_s);
    double u = c[*(const int *)a].single_cos, v = c[*(const int *)b].single_cos;
    if (isnan(u) != isnan(v))
        return isnan(u) ? 1 : -1;
    return u < v ? -1 : u > v;
}

static const int algos[3] = {QA_NORMAL, QA_MMSE, QA_KL};

int tune_search(tune_session *s, const tune_search_opts *so, tune_result *r, char *err,
                size_t errlen)
{
    search q = {.s = s, .so = so, .r = r, .metric = tune_options(s)->metric,
                .t0 = rt_now_us(), .last_kept = -1};
    int nc = tune_n_cands(s), k_sens = so->candidates > 0 && so->candidates < nc ? so->candidates : nc;
    tune_cand *cand = tune_cands(s);
    int *order = xmalloc(sizeof(int) * (size_t)(nc + 1));
    int rc = RT_OK, i, algo, method;
    char what[64];

    memset(r, 0, sizeof(*r));
    r->best = r->base = -1;
    /* 6 plain, all-fp16, single (about 3), 2 per sensitivity, the search */
    q.planned = 6 + 1 + 2 + 2 * k_sens + 6 * (int)ceil(log2(nc + 1)) + 5;
    fprintf(so->out, "step  %-34s %5s  %-9s %-9s %8s  %-7s\n", "configuration", "fp16",
            tune_metric_name(q.metric), "mean", "NPU ms", "delta");
    fprintf(so->out, "%-35s %-5s  %-33s  %s\n", "", "", "(worst sample, mean over samples)",
            "(vs int8)");
    /* 1. the plain int8 bases */
    for (int a = 0; a < 3; a++)
        for (int m = 0; m < 2; m++) {
            snprintf(what, sizeof what, "int8 %s/%s", quant_algo_name(algos[a]),
                     quant_method_name(m));
            if ((i = eval(&q, what, algos[a], m, NULL, 0, -1, err, errlen)) < 0)
                goto stopped;
            if (r->base < 0 || tune_better(s, &r->pts[i], &r->pts[r->base]))
                r->base = i;
            row(&q, i);
        }
    algo = r->pts[r->base].algo;
    method = r->pts[r->base].method;
    snprintf(what, sizeof what, "int8 %s/%s (base)", quant_algo_name(algo),
             quant_method_name(method));
    if ((rc = keep(&q, r->base, what, err, errlen)))
        goto out;
    if (r->pts[r->base].meets)
        goto done;
    /* 2. everything fp16: the most the hybrid file can do */
    for (i = 0; i < nc; i++)
        order[i] = i;
    int all = eval(&q, "every candidate fp16", algo, method, order, nc, -1, err, errlen);
    if (all < 0)
        goto stopped;
    row(&q, all);
    if (!r->pts[all].meets)
        goto done;
    /* 3. sensitivity of the layers with the largest single-layer error */
    progress(&q);
    if ((rc = tune_single(s, algo, method, err, errlen))) {
        q.rc = rc;
        goto stopped; /* interrupted, or its error stands */
    }
    q.done += 2;
    sort_s = s;
    sort_metric = &q.metric;
    qsort(order, (size_t)nc, sizeof(int), by_single);
    for (int c = 0; c < k_sens; c++) {
        int l = order[c];
        snprintf(what, sizeof what, "fp16 %s", cand[l].name);
        if ((i = eval(&q, what, algo, method, &l, 1, -1, err, errlen)) < 0)
            goto stopped;
        cand[l].alone_fp16 = r->pts[i].worst;
        snprintf(what, sizeof what, "int8 only %s", cand[l].name);
        if ((i = eval(&q, what, algo, method, NULL, 0, l, err, errlen)) < 0)
            goto stopped;
        cand[l].alone_i8 = r->pts[i].worst;
    }
    qsort(order, (size_t)k_sens, sizeof(int), by_gain);
    progress_clear(&q);
    fprintf(so->out, "\nsensitivity (%d of %d layers, those with the lowest single-layer cos; "
            "%s of the worst sample):\n  %-9s %-9s %-9s  layer\n", k_sens, nc,
            tune_metric_name(q.metric), "single", "fp16", "int8");
    for (int c = 0; c < k_sens; c++) {
        char a[32], b[32];
        const tune_cand *t = &cand[order[c]];
        fprintf(so->out, "  %-9.5f %-9s %-9s  [%s] %s\n", t->single_cos,
                fmt_score(&q, t->alone_fp16, a, sizeof a),
                fmt_score(&q, t->alone_i8, b, sizeof b), esc_tmp(ESC_TERM, t->op),
                esc_tmp(ESC_TERM, t->name));
    }
    fputc('\n', so->out);
    /* 4. the shortest prefix that meets: doubling, then bisection */
    int lo = 0, hi = -1, hi_pt = -1;
    for (int n = 1;; n = n * 2 < nc ? n * 2 : nc) {
        snprintf(what, sizeof what, "first %d by sensitivity", n);
        if ((i = eval(&q, what, algo, method, order, n, -1, err, errlen)) < 0)
            goto stopped;
        row(&q, i);
        if (r->pts[i].meets) {
            hi = n, hi_pt = i;
            break;
        }
        if ((rc = maybe_keep(&q, i, what, err, errlen)))
            goto out;
        lo = n;
        if (n == nc)
            break;
    }
    if (hi < 0) { /* cannot be: every candidate fp16 met it */
        hi = nc, hi_pt = all;
    }
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        snprintf(what, sizeof what, "first %d by sensitivity", mid);
        if ((i = eval(&q, what, algo, method, order, mid, -1, err, errlen)) < 0)
            goto stopped;
        row(&q, i);
        if (r->pts[i].meets)
            hi = mid, hi_pt = i;
        else
            lo = mid;
    }
    if ((rc = maybe_keep(&q, hi_pt, r->what[hi_pt], err, errlen)))
        goto out;
    /* then drop what the target does not need: a block of the set at a time
     * (the whole set past the first, then halves of what could not go, down
     * to single layers), least sensitive blocks first */
    int n_set = hi, *set = xmalloc(sizeof(int) * (size_t)(hi + 1)), best_pt = hi_pt;
    int *trial = xmalloc(sizeof(int) * (size_t)(hi + 1));
    int (*blk)[2] = xmalloc(sizeof(*blk) * (size_t)(2 * hi + 4)), nb = 0;
    memcpy(set, order, sizeof(int) * (size_t)hi);
    if (n_set > 1)
        blk[nb][0] = 1, blk[nb][1] = n_set, nb++;   /* [from, to) of the current set */
    while (nb > 0) {
        int from = blk[nb - 1][0], to = blk[nb - 1][1], nt = 0;
        nb--;
        if (to > n_set)
            to = n_set;
        if (from >= to)
            continue;
        for (int j = 0; j < n_set; j++)
            if (j < from || j >= to)
                trial[nt++] = set[j];
        if (to - from == 1)
            snprintf(what, sizeof what, "without %s", cand[set[from]].name);
        else
            snprintf(what, sizeof what, "without %d layers (%d..%d)", to - from, from + 1, to);
        i = eval(&q, what, algo, method, trial, nt, -1, err, errlen);
        if (i < 0) {
            free(trial);
            free(blk);
            free(set);
            goto stopped;
        }
        row(&q, i);
        if (r->pts[i].meets) {
            memcpy(set, trial, sizeof(int) * (size_t)nt);
            n_set = nt;
            best_pt = i;
            /* the blocks still to try sit before this one: their indices hold */
        } else if (to - from > 1) {
            int mid = (from + to) / 2;
            blk[nb][0] = mid, blk[nb][1] = to, nb++;   /* the later (less sensitive) half first */
            blk[nb][0] = from, blk[nb][1] = mid, nb++;
            int t0 = blk[nb - 1][0], t1 = blk[nb - 1][1];
            blk[nb - 1][0] = blk[nb - 2][0], blk[nb - 1][1] = blk[nb - 2][1];
            blk[nb - 2][0] = t0, blk[nb - 2][1] = t1;
        }
    }
    /* the first layer too, when the rest holds without it */
    if (n_set > 1) {
        snprintf(what, sizeof what, "without %s", cand[set[0]].name);
        i = eval(&q, what, algo, method, set + 1, n_set - 1, -1, err, errlen);
        if (i < 0) {
            free(trial);
            free(blk);
            free(set);
            goto stopped;
        }
        row(&q, i);
        if (r->pts[i].meets) {
            memmove(set, set + 1, sizeof(int) * (size_t)(n_set - 1));
            n_set--;
            best_pt = i;
        }
    }
    free(trial);
    free(blk);
    if ((rc = maybe_keep(&q, best_pt, r->what[best_pt], err, errlen)))
        goto out;
    /* 5. the set with the other calibrations */
    int answer = best_pt;
    for (int a = 0; a < 3; a++)
        for (int m = 0; m < 2; m++) {
            if (algos[a] == algo && m == method)
                continue;
            snprintf(what, sizeof what, "set of %d, %s/%s", n_set, quant_algo_name(algos[a]),
                     quant_method_name(m));
            if ((i = eval(&q, what, algos[a], m, set, n_set, -1, err, errlen)) < 0) {
                free(set);
                goto stopped;
            }
            row(&q, i);
            if (tune_better(s, &r->pts[i], &r->pts[answer]))
                answer = i;
        }
    free(set);
    if (answer != q.last_kept && (rc = keep(&q, answer, "answer", err, errlen)))
        goto out;
    goto done;

stopped:
    if (!(tune_options(s)->stop && *tune_options(s)->stop)) {
        rc = q.rc; /* a failed evaluation: its error stands */
        goto out;
    }
    r->interrupted = 1;
done:
    progress_clear(&q);
    /* the answer: the fastest point that meets, else the best one */
    for (i = 0; i < r->n; i++) {
        const tune_point *p = &r->pts[i], *b = r->best >= 0 ? &r->pts[r->best] : NULL;
        if (!b || (p->meets && !b->meets) ||
            (p->meets && b->meets && (p->npu_us < b->npu_us ||
                                      (p->npu_us == b->npu_us && tune_better(s, p, b)))) ||
            (!p->meets && !b->meets && tune_better(s, p, b)))
            r->best = i;
    }
    r->reached = r->best >= 0 && r->pts[r->best].meets;
    rc = RT_OK;
    if (!r->interrupted && r->best >= 0) {
        int kept = 0;
        for (i = 0; i < r->n_kept; i++)
            kept |= r->kept[i] == r->best;
        if (!kept)
            rc = keep(&q, r->best, r->reached ? "answer" : "best found", err, errlen);
    }
out:
    progress_clear(&q);
    free(order);
    return rc;
}

void tune_result_free(tune_result *r)
{
    for (int i = 0; i < r->n; i++)
        tune_point_free(&r->pts[i]);
    free(r->pts);
    free(r->what);
    free(r->kept);
    memset(r, 0, sizeof(*r));
}
