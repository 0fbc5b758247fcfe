/* runtime/exec/threadpool.c — a fixed pool for op_parallel_for().
 *
 * A dispatch splits [0, total) into a few contiguous chunks (up to
 * CHUNKS_PER_THREAD per thread) that the caller and the workers claim from one
 * atomic word holding the dispatch generation and the next chunk. The caller
 * claims too, so when a worker is asleep or descheduled (the machine is shared)
 * the caller simply does its share instead of waiting for it to be scheduled;
 * it then waits only for chunks a worker has actually started.
 *
 * A claim is a compare-and-swap on (generation, next chunk). Before rewriting
 * the dispatch, the caller sets the word to (old generation, LOCKED), then
 * fences: a late worker that read any field of the new dispatch therefore sees
 * its compare-and-swap fail, and one that read only old fields can claim only
 * while the old generation is unfinished, so no chunk ever runs with mixed
 * fields. Workers spin briefly before sleeping because layers follow each
 * other within microseconds. */
#include "runtime/exec/threadpool.h"
#include "util/util.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

/* about 0.1 ms of loads here: a worker stays awake across the runs of
 * small layers that a frame's caller does alone (int8 ones take 10-60 us);
 * 20000 rounds (10 us) put it to sleep there, and waking it cost YOLOX 5 %
 * in int8 and UltraFace 8 % in fp32 (2,000: 20 % more) */
#define SPIN_ROUNDS 200000
#define CHUNKS_PER_THREAD 2
#define LOCKED 0xFFFFFFFFu

struct threadpool {
    int n;
    pthread_t *th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* generation << 32 | next unclaimed chunk */
    _Atomic uint64_t word;
    atomic_int done;        /* chunks finished in this generation */
    atomic_int sleepers;    /* workers waiting on cv */
    unsigned pokes;         /* under mu: threadpool_wake calls */
    atomic_int stop;
    /* the dispatch; atomics because a late worker may read them while the
     * caller writes the next dispatch (its claim then fails) */
    _Atomic(range_fn) fn;
    _Atomic(void *) arg;
    _Atomic int64_t total;
    atomic_int nchunks;
};

/* Claims and runs chunks of generation gen; returns when none is left. */
static void run_chunks(struct threadpool *p, uint32_t gen)
{
    uint64_t w = atomic_load_explicit(&p->word, memory_order_acquire);
    if ((uint32_t)(w >> 32) != gen || (uint32_t)w == LOCKED)
        return;
    range_fn fn = atomic_load_explicit(&p->fn, memory_order_relaxed);
    void *arg = atomic_load_explicit(&p->arg, memory_order_relaxed);
    int64_t total = atomic_load_explicit(&p->total, memory_order_relaxed);
    uint32_t nch = (uint32_t)atomic_load_explicit(&p->nchunks, memory_order_relaxed);
    /* pairs with the caller's fence after LOCKED: newer fields => failed claim */
    atomic_thread_fence(memory_order_acquire);

    for (;;) {
        if ((uint32_t)(w >> 32) != gen || (uint32_t)w >= nch)
            return;
        if (!atomic_compare_exchange_weak_explicit(&p->word, &w, w + 1, memory_order_acq_rel,
                                                   memory_order_acquire))
            continue;
        int64_t c = (int64_t)(uint32_t)w;
        int64_t b = total * c / nch, e = total * (c + 1) / nch;
        if (e > b)
            fn(arg, b, e);
        atomic_fetch_add_explicit(&p->done, 1, memory_order_release);
        w = atomic_load_explicit(&p->word, memory_order_acquire);
    }
}

static void *worker(void *v)
{
    struct threadpool *p = v;
    uint32_t seen = 0;

    for (;;) {
        uint64_t w;
        int spins = 0;
        while ((uint32_t)((w = atomic_load_explicit(&p->word, memory_order_acquire)) >> 32) == seen &&
               !atomic_load(&p->stop) && spins < SPIN_ROUNDS)
            spins++;
        if ((uint32_t)(w >> 32) == seen && !atomic_load(&p->stop)) {
            pthread_mutex_lock(&p->mu);
            atomic_fetch_add(&p->sleepers, 1);
            unsigned pk = p->pokes;
            while ((uint32_t)((w = atomic_load(&p->word)) >> 32) == seen &&
                   !atomic_load(&p->stop) && p->pokes == pk)
                pthread_cond_wait(&p->cv, &p->mu);
            atomic_fetch_sub(&p->sleepers, 1);
            pthread_mutex_unlock(&p->mu);
            if ((uint32_t)(w >> 32) == seen && !atomic_load(&p->stop))
                continue; /* woken without work: spin for what follows */
        }
        if (atomic_load(&p->stop))
            break;
        seen = (uint32_t)(w >> 32);
        run_chunks(p, seen);
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
        if (pthread_create(&p->th[i], NULL, worker, p) != 0) {
            /* Fewer threads is still correct: shrink the pool. */
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
    if (!p || p->n == 1 || total <= 1) {
        fn(arg, 0, total);
        return;
    }
    int64_t nch = (int64_t)p->n * CHUNKS_PER_THREAD;
    if (nch > total)
        nch = total;
    uint32_t gen = (uint32_t)(atomic_load(&p->word) >> 32);
    atomic_store(&p->word, (uint64_t)gen << 32 | LOCKED);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&p->fn, fn, memory_order_relaxed);
    atomic_store_explicit(&p->arg, arg, memory_order_relaxed);
    atomic_store_explicit(&p->total, total, memory_order_relaxed);
    atomic_store_explicit(&p->nchunks, (int)nch, memory_order_relaxed);
    atomic_store_explicit(&p->done, 0, memory_order_relaxed);
    gen++;
    atomic_store(&p->word, (uint64_t)gen << 32); /* seq_cst: pairs with sleepers below */
    if (atomic_load(&p->sleepers) > 0) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
    run_chunks(p, gen);
    /* only chunks a worker has claimed remain; wait for them */
    int spins = 0;
    while (atomic_load_explicit(&p->done, memory_order_acquire) < nch)
        if (++spins > SPIN_ROUNDS)
            sched_yield();
}

void threadpool_wake(struct threadpool *p)
{
    if (!p || atomic_load(&p->sleepers) == 0)
        return;
    pthread_mutex_lock(&p->mu);
    p->pokes++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
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
