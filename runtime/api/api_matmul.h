/* runtime/api/api_matmul.h — private to runtime/api: the matmul API's per-chip
 * geometry (which types a chip offers, alignments, the native layouts of A, B, C) and
 * element access in every layout and type. The public contract is
 * include/rknn_matmul_api.h; the layouts are documented in docs/matmul-api.md. */
#ifndef RT_API_MATMUL_H
#define RT_API_MATMUL_H

#include <stddef.h>
#include <stdint.h>

#include "rknn_matmul_api.h"

/* The element types of A, B and C of a matmul type; 0 when type is not one. */
typedef struct mm_types {
    int a, b, c; /* rknn_tensor_type */
} mm_types;
int mm_types_of(int type, mm_types *t);

/* Everything the layouts of one matmul need, for one shape. */
typedef struct mm_geom {
    int32_t M, K, N;
    mm_types t;
    int b_layout, ac_layout;
    int a_sub;     /* native A: K lanes per block  (K/a_sub, M, a_sub) */
    int b_subn, b_subk; /* native B: (N/subn, K/subk, subn, subk) */
    int b_seg;     /* native B is cut in K segments of this many rows (K when not) */
    int c_sub;     /* native C: N lanes per block  (N/c_sub, M, c_sub) */
} mm_geom;

/* Fills g for the chip (a name of api_platform_get), info's type and layouts and the
 * shape. Returns RKNN_SUCC, or an RKNN_ERR_* after one E line naming fn, the problem
 * (a type or layout the chip lacks, K or N unaligned or too large) and the fix. */
int mm_geom_init(mm_geom *g, const char *chip, const rknn_matmul_info *info, int32_t M, int32_t K,
                 int32_t N, const char *fn);

/* Attributes of A, B, C as the app sees them (names "A", "B", "C"). */
void mm_fill_attrs(const mm_geom *g, rknn_matmul_io_attr *io);

/* Element offsets of A(m,k), B(k,n), C(m,n) in their buffers' layouts. */
size_t mm_a_index(const mm_geom *g, int32_t m, int32_t k);
size_t mm_b_index(const mm_geom *g, int32_t k, int32_t n);
size_t mm_c_index(const mm_geom *g, int32_t m, int32_t n);

/* Bytes of count elements of an rknn type (INT4: two a byte). */
size_t mm_bytes(int rtype, size_t count);
/* Reads element i of buf as a number; writes v rounded (half away from zero for
 * integers, to nearest even for floats) and saturated to the type. INT4 holds two
 * values a byte, element 2j in the low nibble of byte j. */
double mm_get(const void *buf, int rtype, size_t i);
void mm_set(void *buf, int rtype, size_t i, double v);

/* 1 if h is a live matmul context (api_matmul.c): rknn_create_mem* accept it. */
int api_matmul_known(rknn_context h);

#endif
