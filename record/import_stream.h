/* record/import_stream.h — a log's runs written while the log is still being
 * read: the import source's pipeline (record/import_stream.c). */
#ifndef RT_RECORD_IMPORT_STREAM_H
#define RT_RECORD_IMPORT_STREAM_H

#include <stddef.h>
#include "tracer/tracer.h"

/* A text log imported while it is read (record/import_stream.c): vlog_scan on
 * this thread; each complete run goes through prepare (this thread) and then,
 * in log order, write and discard on a writer thread. The first scan or write
 * error is returned; runs after a failed write are not written. log keeps
 * every run's flags and counts, not its rows. */
typedef struct import_stage {
    void (*prepare)(void *ctx, const vlog_run_t *r, void **prep);
    int (*write)(void *ctx, const vlog_run_t *r, void *prep, char *err, size_t errlen);
    void (*discard)(void *prep);
    void *ctx;
    size_t *budget;   /* what the scan may hold (vlog_scan_bounded); NULL: no bound */
} import_stage;
int import_stream(const char *text, size_t len, int formats, vlog_t *log,
                  const import_stage *stage, char *err, size_t errlen);

#endif
