/* record/import_stream.c — a log scanned on the calling thread while a second
 * thread writes its complete runs, in order. Reading a log and writing its rows
 * into SQLite take about the same time, so a large import takes half as long;
 * the queue between them is short, so a run's rows are freed once written. */
#include "record/import_stream.h"
#include "util/util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { QUEUE_RUNS = 32 };

typedef struct item {
    vlog_run_t run;
    void *prep;
} item;

typedef struct stream {
    const import_stage *stage;
    pthread_mutex_t mu;
    pthread_cond_t more, room;
    item *q[QUEUE_RUNS];   /* pointers: a run is 5 KB, copied once */
    int head, n;
    int taken;        /* runs of the log handed to the queue */
    int eof;          /* the scan has ended: no more runs come */
    int failed;       /* the writer failed: later runs are only freed */
    char err[512];
    int rc;
} stream;

/* the scanning thread: complete runs go to the queue, waiting for room */
static void on_final(void *ctx, vlog_t *v, int n_final)
{
    stream *s = ctx;

    for (; s->taken < n_final; s->taken++) {
        item *it = xmalloc(sizeof(*it));
        vlog_run_move(&it->run, &v->runs[s->taken]);
        it->prep = NULL;
        if (s->stage->prepare)
            s->stage->prepare(s->stage->ctx, &it->run, &it->prep);
        pthread_mutex_lock(&s->mu);
        while (s->n == QUEUE_RUNS)
            pthread_cond_wait(&s->room, &s->mu);
        s->q[(s->head + s->n) % QUEUE_RUNS] = it;
        s->n++;
        pthread_cond_signal(&s->more);
        pthread_mutex_unlock(&s->mu);
    }
}

static void *writer(void *arg)
{
    stream *s = arg;

    for (;;) {
        item *it;
        pthread_mutex_lock(&s->mu);
        while (!s->n && !s->eof)
            pthread_cond_wait(&s->more, &s->mu);
        if (!s->n) {
            pthread_mutex_unlock(&s->mu);
            break;
        }
        it = s->q[s->head];
        s->head = (s->head + 1) % QUEUE_RUNS;
        s->n--;
        pthread_cond_signal(&s->room);
        pthread_mutex_unlock(&s->mu);
        /* after a failure the queue is still drained, so the scan never waits */
        if (!s->failed && (s->rc = s->stage->write(s->stage->ctx, &it->run, it->prep, s->err,
                                                   sizeof s->err)))
            s->failed = 1;
        if (s->stage->discard)
            s->stage->discard(it->prep);
        vlog_run_free(&it->run);
        free(it);
    }
    return NULL;
}

int import_stream(const char *text, size_t len, int formats, vlog_t *log,
                  const import_stage *stage, char *err, size_t errlen)
{
    stream *s = xcalloc(1, sizeof(*s));
    pthread_t tid;
    int rc;

    s->stage = stage;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->more, NULL);
    pthread_cond_init(&s->room, NULL);
    if (pthread_create(&tid, NULL, writer, s)) {
        /* no second thread: scan first, then write on this one */
        rc = vlog_scan_bounded(text, len, formats, stage->budget, NULL, NULL, log, err, errlen);
        for (int i = 0; !rc && i < log->n_runs; i++) {
            void *prep = NULL;
            if (stage->prepare)
                stage->prepare(stage->ctx, &log->runs[i], &prep);
            rc = stage->write(stage->ctx, &log->runs[i], prep, err, errlen);
            if (stage->discard)
                stage->discard(prep);
        }
        goto out;
    }
    rc = vlog_scan_bounded(text, len, formats, stage->budget, on_final, s, log, err, errlen);
    pthread_mutex_lock(&s->mu);
    s->eof = 1;
    pthread_cond_signal(&s->more);
    pthread_mutex_unlock(&s->mu);
    pthread_join(tid, NULL);
    if (!rc && s->failed) {
        rc = s->rc;
        rt_err(err, errlen, rc, "%s", s->err);
    }
out:
    pthread_cond_destroy(&s->room);
    pthread_cond_destroy(&s->more);
    pthread_mutex_destroy(&s->mu);
    free(s);
    return rc;
}
