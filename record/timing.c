/* record/timing.c — the one definition of a run's timing statistics, used by
 * every source that times iterations (sim, board, attach; docs/store.md). */
#include "record/timing.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_time(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

time_stats time_stats_of(const double *v, long long n)
{
    time_stats t = {NAN, NAN, NAN, NAN};
    double *c, mean = 0, ss = 0;

    if (n <= 0)
        return t;
    c = xmalloc((size_t)n * sizeof(double));
    memcpy(c, v, (size_t)n * sizeof(double));
    qsort(c, (size_t)n, sizeof(double), cmp_time);
    t.median = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    t.min = c[0];
    t.p90 = c[(long long)ceil(0.9 * (double)n) - 1]; /* nearest rank */
    for (long long i = 0; i < n; i++)
        mean += c[i] / (double)n;
    /* two passes: the sum of squares minus the squared mean cancels badly */
    for (long long i = 0; i < n; i++)
        ss += (c[i] - mean) * (c[i] - mean);
    /* sample stddev: the iterations are a sample of the frame times */
    t.stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
    free(c);
    return t;
}
