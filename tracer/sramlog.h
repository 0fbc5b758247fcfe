/* tracer/sramlog.h — parser of the vendor runtime's SRAM / internal-memory
 * table (RKNN_LOG_LEVEL=3 on RK3588, shared/research/log-formats.md §4) and of
 * the driver's debugfs `mm` SRAM bitmap (§7).
 *
 * Table variants: runtime 1.4-1.5 (`Total allocated Internal SRAM Size: N,
 * Addr: [a, b)` box, columns ID User Tensor DataType OrigShape NativeShape |
 * [Start End) Size | SramHit, the `Predict ... RW Amount` footer), and the 2.x
 * toolkit/runtime build table (a DataFormat column, no SramHit). Columns are
 * mapped from the header; line prefixes ("D RKNN: [ts] ") are stripped. */
#ifndef RT_SRAMLOG_H
#define RT_SRAMLOG_H

#include <stddef.h>
#include <stdint.h>

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
