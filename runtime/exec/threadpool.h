/* runtime/exec/threadpool.h — private to runtime/exec: the worker pool behind
 * op_parallel_for(). */
#ifndef RT_THREADPOOL_H
#define RT_THREADPOOL_H

#include "runtime/exec/exec.h"

struct threadpool *threadpool_new(int nthreads);
void threadpool_free(struct threadpool *p);
int threadpool_size(const struct threadpool *p);
/* Wakes workers that sleep, without work: they spin again for a while, ready for
 * the dispatches that follow (a frame's input conversion, then its layers). */
void threadpool_wake(struct threadpool *p);
/* Splits [0, total) into one contiguous range per thread; the caller runs one. */
void threadpool_run(struct threadpool *p, int64_t total, range_fn fn, void *arg);

#endif
