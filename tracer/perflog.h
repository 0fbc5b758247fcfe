/* tracer/perflog.h — parser of the vendor runtime's per-layer performance table
 * (RKNN_LOG_LEVEL=4, RKNN_QUERY_PERF_DETAIL, rknn.eval_perf()), every generation
 * in shared/research/log-formats.md §3: 2.x compact (Cycles(DDR/NPU/Total)),
 * 1.6 (DDRCycles/NPUCycles/MaxCycles), 1.3-1.5 wide (DDR Cycles / NPU Cycles /
 * Total Cycles, Task Number, Task Size, Regcmd Size or Lut Number), plus the
 * totals lines and the operator ranking table. Line prefixes ("I RKNN: [ts] ",
 * "D RKNN: ", a user's "---> ") are stripped. Columns are mapped from the header,
 * values read as whitespace-separated tokens (values may overflow a column). */
#ifndef RT_PERFLOG_H
#define RT_PERFLOG_H

#include <stddef.h>
#include <stdint.h>

typedef struct perflog_row {
    int id;
    char optype[48], datatype[16], target[8];
    char inshape[256], outshape[128];  /* as printed ("\" when none) */
    int64_t ddr, npu, total;           /* cycles, -1 if the table has none */
    int64_t time_us;                   /* -1 if absent */
    int n_mac;                         /* 0: blank or "\" */
    double mac[3];
    int n_wl;                          /* 0: absent */
    double wl[3];
    double up;                         /* "- Up:x%" of old tables, -1 if absent */
    int64_t task_number;               /* -1 if absent */
    double rw_kb;                      /* -1 if absent */
    char fullname[256];
} perflog_row_t;

typedef struct perflog_op {
    char optype[48];
    int calls;                         /* -1 on the Total row */
    int64_t cpu_us, gpu_us, npu_us, total_us;  /* gpu -1 when the table has no GPU column */
    double ratio;                      /* %, -1 on the Total row */
} perflog_op_t;

typedef struct perflog_table {
    char generation;                   /* 'A' 2.x, 'B' 1.6, 'C' 1.2-1.5, 0 ranking only */
    int has_tasknumber;
    perflog_row_t *rows;
    int n_rows;
    int n_bad_rows;                    /* row-like lines that could not be read */
    int64_t total_time_us;             /* "Total Operator Elapsed [Per Frame ]Time(us)", -1 */
    double total_rw_kb;                /* "...Per Frame Size(KB)", -1 */
    double total_rw_mb;                /* "Total Memory RW Amount(MB)", -1 */
    perflog_op_t *ops;
    int n_ops;
    int has_total_op;                  /* the ranking table has a Total row (last in ops) */
} perflog_table_t;

/* Parses every table in text. Returns 0 with *n >= 1, RT_EFORMAT when no table
 * header was found (message says so), never crashes on malformed input. */
int perflog_parse(const char *text, size_t len, perflog_table_t **tables, int *n, char *err,
                  size_t errlen);
void perflog_free(perflog_table_t *tables, int n);

#endif
