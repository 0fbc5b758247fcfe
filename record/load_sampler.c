/* record/load_sampler.c — the NPU load read every 50 ms on a thread while `run
 * --backend board` or `attach` runs, kept as store rows (t since the start). */
#include "record/load_sampler.h"
#include "analyze/store.h"
#include "tracer/board.h"
#include "util/util.h"

#include <pthread.h>
#include <string.h>
#include <time.h>


static void *sample_loop(void *arg)
{
    load_sampler *s = arg;
    struct timespec ts = {0, 50 * 1000 * 1000};

    for (;;) {
        pthread_mutex_lock(&s->mu);
        int stop = s->stop;
        pthread_mutex_unlock(&s->mu);
        board_snapshot_load(&s->snap);
        for (int c = 0; s->snap.load_state == BOARD_OK && c < s->snap.cores; c++) {
            if (s->n == s->cap) {
                s->cap = s->cap ? 2 * s->cap : 256;
                s->rows = xrealloc(s->rows, (size_t)s->cap * sizeof(*s->rows));
            }
            s->rows[s->n++] = (store_load_sample){s->snap.t_us - s->t0, c, s->snap.load_pct[c]};
        }
        if (stop)
            break;
        nanosleep(&ts, NULL);
    }
    return NULL;
}

void load_sampler_start(load_sampler *s, const char *root)
{
    memset(s, 0, sizeof(*s));
    pthread_mutex_init(&s->mu, NULL);
    board_snapshot(&s->snap, root, -1, 0);
    s->t0 = rt_now_us();
    s->running = pthread_create(&s->th, NULL, sample_loop, s) == 0;
}

void load_sampler_stop(load_sampler *s)
{
    if (s->running) {
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->th, NULL);
    }
    pthread_mutex_destroy(&s->mu);
}


int load_sampler_mean(const load_sampler *s, double t0, double t1, int pct[BOARD_MAX_CORES])
{
    double sum[BOARD_MAX_CORES] = {0};
    int n[BOARD_MAX_CORES] = {0}, cores = 0;

    for (int i = 0; i < s->n; i++) {
        double at = s->t0 + s->rows[i].t_us;
        int c = (int)s->rows[i].core;
        if (c < 0 || c >= BOARD_MAX_CORES || at < t0 || at > t1)
            continue;
        sum[c] += s->rows[i].load_pct;
        n[c]++;
        if (c + 1 > cores)
            cores = c + 1;
    }
    for (int c = 0; c < cores; c++)
        pct[c] = n[c] ? (int)(sum[c] / n[c] + 0.5) : 0;
    return cores;
}
