/* tracer/tracer.h — what touches a board's text: parsers of the vendor
 * runtime's logs. Every parser strips the logger's line prefixes, maps columns
 * from the header rather than from fixed positions, and never crashes on
 * malformed input (fuzzed: tests/fuzz/fuzz_perflog.c, fuzz_sramlog.c). */
#ifndef RT_TRACER_H
#define RT_TRACER_H

#include <stddef.h>
#include <stdint.h>

/* Skips "X RKNN: [hh:mm:ss.mmm] " (timestamp optional) and a user's "---> "
 * glued to a ruler; returns the rest of the line. */
char *tracer_strip_prefix(char *line);

/* Parser of the vendor runtime's per-layer performance table
 * (RKNN_LOG_LEVEL=4, RKNN_QUERY_PERF_DETAIL, rknn.eval_perf()), every generation
 * in shared/research/log-formats.md §3: 2.x compact (Cycles(DDR/NPU/Total)),
 * 1.6 (DDRCycles/NPUCycles/MaxCycles), 1.3-1.5 wide (DDR Cycles / NPU Cycles /
 * Total Cycles, Task Number, Task Size, Regcmd Size or Lut Number), plus the
 * totals lines and the operator ranking table. Line prefixes ("I RKNN: [ts] ",
 * "D RKNN: ", a user's "---> ") are stripped. Columns are mapped from the header,
 * values read as whitespace-separated tokens (values may overflow a column). */
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

/* Parser of the vendor runtime's SRAM / internal-memory
 * table (RKNN_LOG_LEVEL=3 on RK3588, shared/research/log-formats.md §4) and of
 * the driver's debugfs `mm` SRAM bitmap (§7).
 *
 * Table variants: runtime 1.4-1.5 (`Total allocated Internal SRAM Size: N,
 * Addr: [a, b)` box, columns ID User Tensor DataType OrigShape NativeShape |
 * [Start End) Size | SramHit, the `Predict ... RW Amount` footer), and the 2.x
 * toolkit/runtime build table (a DataFormat column, no SramHit). Columns are
 * mapped from the header; line prefixes ("D RKNN: [ts] ") are stripped. */
typedef struct sramlog_row {
    int id;
    char user[48], tensor[128], datatype[16], dataformat[16];
    char origshape[64], nativeshape[64];
    uint64_t start, end, size;
    int star;            /* a '*' stood between Start and End */
    int64_t hit;         /* SramHit bytes; -1 printed "\" (not in the buffer); -2 no column */
} sramlog_row_t;

typedef struct sramlog_table {
    char alloc_kind[16];            /* "Internal" / "Weight" of the box, "" when absent */
    int64_t alloc_size;             /* its Size, -1 when absent */
    uint64_t alloc_start, alloc_end;
    int has_hit, has_dataformat;
    sramlog_row_t *rows;
    int n_rows;
    int n_bad_rows;                 /* row-like lines that could not be read */
    /* footer, -1 when absent */
    int64_t total_weight, total_internal, rw_internal, rw_weight, rw_sram_hit;
} sramlog_table_t;

/* Parses every table in text. Returns 0 with *n >= 1, RT_EFORMAT when no table
 * header was found; never crashes on malformed input. */
int sramlog_parse(const char *text, size_t len, sramlog_table_t **tables, int *n, char *err,
                  size_t errlen);
void sramlog_free(sramlog_table_t *tables, int n);

/* The debugfs `mm` text: the page bitmap ('*' used, '.' free, in page order,
 * NUL-terminated, at most cap-1 marks) and the totals line. Returns the page
 * count, or RT_EFORMAT (no totals line, bad row, or totals that disagree
 * with the bitmap). */
typedef struct sramlog_mm {
    int64_t total, used, free;
    int pages;
    char map[1025];
} sramlog_mm_t;
int sramlog_parse_mm(const char *text, size_t len, sramlog_mm_t *mm, char *err, size_t errlen);

#endif
