/* runtime/exec/threadpool.c — a fixed pool for op_parallel_for().
 *
 * Every dispatch is split into exactly one chunk per thread (the caller runs
 * chunk 0), so every worker takes part in every generation and none can skip
 * one: that keeps the hand-off to one atomic generation counter and one
 * pending count. Workers spin briefly before sleeping because layers follow
 * each other within microseconds. */
#include "runtime/exec/threadpool.h"
#include "util/util.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#define SPIN_ROUNDS 20000

struct threadpool {
    int n;
    pthread_t *th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_uint gen;
    atomic_int pending;
    atomic_int stop;
    range_fn fn;
    void *arg;
    int64_t total;
};

typedef struct worker_arg {
    struct threadpool *p;
    int id;
} worker_arg;

static void run_chunk(struct threadpool *p, int id)
{
    int64_t b = p->total * id / p->n, e = p->total * (id + 1) / p->n;
    if (e > b)
        p->fn(p->arg, b, e);
}

static void *worker(void *v)
{
    worker_arg *wa = v;
    struct threadpool *p = wa->p;
    int id = wa->id;
    unsigned seen = 0;

    free(wa);
    for (;;) {
        unsigned g;
        int spins = 0;
        while ((g = atomic_load_explicit(&p->gen, memory_order_acquire)) == seen &&
               !atomic_load(&p->stop) && spins < SPIN_ROUNDS)
            spins++;
        if (g == seen && !atomic_load(&p->stop)) {
            pthread_mutex_lock(&p->mu);
            while ((g = atomic_load(&p->gen)) == seen && !atomic_load(&p->stop))
                pthread_cond_wait(&p->cv, &p->mu);
            pthread_mutex_unlock(&p->mu);
        }
        if (atomic_load(&p->stop))
            break;
        seen = g;
        run_chunk(p, id);
        atomic_fetch_sub_explicit(&p->pending, 1, memory_order_release);
    }
    return NULL;
}

struct threadpool *threadpool_new(int nthreads)
{
    struct threadpool *p = xcalloc(1, sizeof(*p));
    p->n = nthreads < 1 ? 1 : nthreads;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->th = xcalloc((size_t)p->n, sizeof(pthread_t));
    for (int i = 1; i < p->n; i++) {
        worker_arg *wa = xmalloc(sizeof(*wa));
        wa->p = p;
        wa->id = i;
        if (pthread_create(&p->th[i], NULL, worker, wa) != 0) {
            /* Fewer threads is still correct: shrink the pool. */
            free(wa);
            p->n = i;
            break;
        }
    }
    return p;
}

int threadpool_size(const struct threadpool *p)
{
    return p ? p->n : 1;
}

void threadpool_run(struct threadpool *p, int64_t total, range_fn fn, void *arg)
{
    if (!p || p->n == 1) {
        fn(arg, 0, total);
        return;
    }
    p->fn = fn;
    p->arg = arg;
    p->total = total;
    atomic_store(&p->pending, p->n - 1);
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add_explicit(&p->gen, 1, memory_order_release);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    run_chunk(p, 0);
    int spins = 0;
    while (atomic_load_explicit(&p->pending, memory_order_acquire) > 0)
        if (++spins > SPIN_ROUNDS)
            sched_yield();
}

void threadpool_free(struct threadpool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, 1);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i < p->n; i++)
        pthread_join(p->th[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p->th);
    free(p);
}
