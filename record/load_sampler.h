/* record/load_sampler.h — the NPU load sampled on a thread while a board or
 * an attached application runs (record/load_sampler.c). */
#ifndef RT_RECORD_LOAD_SAMPLER_H
#define RT_RECORD_LOAD_SAMPLER_H

#include <pthread.h>
#include "analyze/store.h"
#include "tracer/board.h"

/* rows[0..n) once stopped, t_us since t0 (rt_now_us at the start); free(rows). */
typedef struct load_sampler {
    pthread_t th;
    int running, stop;
    pthread_mutex_t mu;
    board_snapshot_t snap;
    double t0;
    store_load_sample *rows;
    int n, cap;
} load_sampler;
void load_sampler_start(load_sampler *s, const char *root);
void load_sampler_stop(load_sampler *s);
/* Mean load per core of the samples taken between t0 and t1 (rt_now_us); returns
 * the core count (0: none). */
int load_sampler_mean(const load_sampler *s, double t0, double t1, int pct[BOARD_MAX_CORES]);

#endif
