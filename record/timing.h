/* record/timing.h — the timing statistics of every source of a run. */
#ifndef RT_RECORD_TIMING_H
#define RT_RECORD_TIMING_H

/* Median, min, p90 (nearest rank) and sample stddev (divides by n - 1; NaN for
 * n < 2) of n times; NaN each when n is 0. v is not changed. */
typedef struct time_stats { double median, min, p90, stddev; } time_stats;
time_stats time_stats_of(const double *v, long long n);
/* The same helper under the name `attach` calls for its medians. */
static inline time_stats board_time_stats(const double *v, int n) { return time_stats_of(v, n); }

#endif
