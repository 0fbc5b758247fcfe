/* tracer/journal.h — the journal librknntrace.so writes (tracer/interpose.c
 * holds its format), read back per context (tracer/journal.c). */
#ifndef RT_TRACER_JOURNAL_H
#define RT_TRACER_JOURNAL_H

#include <stddef.h>

/* Times in µs. */
typedef struct trace_ctx {
    unsigned long long id;
    int init_ret, has_init, destroyed;
    unsigned flags;
    unsigned long long size;
    char sha[65], kind[8], path[512], api[256], drv[256];
    long long n_in, n_out, weight, internal;
    double *run_us, *set_us, *get_us, first_t, last_t;
    int n_run, n_set, n_get, cap_run, cap_set, cap_get, n_perf;
    const char *perf;              /* the last PERF_DETAIL text, inside the journal buffer */
    size_t perf_len;
    long long perf_run_us;
    char *attrs;                   /* JSON list of {"io","index","name","type","fmt","dims"} */
    size_t attrs_len;
    int n_attrs;
} trace_ctx;

typedef struct trace_fn {
    char name[48];
    long long calls, ns;
} trace_fn;

typedef struct trace_journal {
    trace_ctx *c;
    int n, cap;
    trace_fn *fn;                  /* every rknn_* function the app called (C lines) */
    int n_fn, cap_fn;
    char **warn;                   /* "ctx N: text" */
    int n_warn, cap_warn;
    char runtime[8];               /* L line: "simlib" (this project's librknnrt.so),
                                      "vendor", "" (a journal without it) */
} trace_journal;
/* Parses buf (modified in place; perf texts point into it) into j (zeroed first
 * by the caller); never fails: what cannot be read is left out. */
void trace_journal_parse(char *buf, size_t len, trace_journal *j);
void trace_journal_free(trace_journal *j);

#endif
