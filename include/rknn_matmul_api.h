/* rknn_matmul_api.h — the RKNN matrix-multiply API (C = A x B on the NPU), as the
 * Rockchip RKNPU2 SDK 2.3.2 declares it: same types, enum values, struct layouts and
 * function signatures, so that matmul applications written for a board build and run
 * unchanged against the project's librknnrt.so (which computes on the CPU and costs
 * each matmul with its NPU model).
 *
 * Shapes: A is M x K, B is K x N, C is M x N. Layouts (rknn_matmul_info.B_layout and
 * .AC_layout), chip by chip, are described in docs/matmul-api.md; the io attributes
 * rknn_matmul_create fills give the dims and byte sizes of each buffer. */
#ifndef _RKNN_MATMUL_API_H
#define _RKNN_MATMUL_API_H

#ifdef __cplusplus
extern "C" {
#endif

#include "rknn_api.h"

typedef rknn_context rknn_matmul_ctx;

/* Quantization granularity of B (A and C are per layer). */
typedef enum _rknn_matmul_quant_type {
    RKNN_QUANT_TYPE_PER_LAYER_SYM = 0,
    RKNN_QUANT_TYPE_PER_LAYER_ASYM = 1,
    RKNN_QUANT_TYPE_PER_CHANNEL_SYM = 2,
    RKNN_QUANT_TYPE_PER_CHANNEL_ASYM = 3,
    RKNN_QUANT_TYPE_PER_GROUP_SYM = 4,
    RKNN_QUANT_TYPE_PER_GROUP_ASYM = 5,
} rknn_matmul_quant_type;

/* Scale and zero point of one matmul tensor, named by its attribute's name. */
typedef struct _rknn_quant_params {
    char name[RKNN_MAX_NAME_LEN];
    float *scale;
    int32_t scale_len;
    int32_t *zp;
    int32_t zp_len;
} rknn_quant_params;

/* A type x B type -> C type. 13 and 14 are not assigned. */
typedef enum _rknn_matmul_type {
    RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32 = 1,
    RKNN_INT8_MM_INT8_TO_INT32 = 2,
    RKNN_INT8_MM_INT8_TO_INT8 = 3,
    RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16 = 4,
    RKNN_FLOAT16_MM_INT8_TO_FLOAT32 = 5,
    RKNN_FLOAT16_MM_INT8_TO_FLOAT16 = 6,
    RKNN_FLOAT16_MM_INT4_TO_FLOAT32 = 7,
    RKNN_FLOAT16_MM_INT4_TO_FLOAT16 = 8,
    RKNN_INT8_MM_INT8_TO_FLOAT32 = 9,
    RKNN_INT4_MM_INT4_TO_INT16 = 10,
    RKNN_INT8_MM_INT4_TO_INT32 = 11,
    RKNN_FLOAT16_MM_INT4_TO_BFLOAT16 = 12,
    RKNN_INT8_MM_INT4_TO_FLOAT16 = 15,
} rknn_matmul_type;

/* The enumerator's name; "UNKNOW" (the SDK's spelling) for any other value. */
inline static const char *get_matmul_type_string(rknn_matmul_type type)
{
    switch (type) {
    case RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32: return "RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32";
    case RKNN_INT8_MM_INT8_TO_INT32: return "RKNN_INT8_MM_INT8_TO_INT32";
    case RKNN_INT8_MM_INT8_TO_INT8: return "RKNN_INT8_MM_INT8_TO_INT8";
    case RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16: return "RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16";
    case RKNN_FLOAT16_MM_INT8_TO_FLOAT32: return "RKNN_FLOAT16_MM_INT8_TO_FLOAT32";
    case RKNN_FLOAT16_MM_INT8_TO_FLOAT16: return "RKNN_FLOAT16_MM_INT8_TO_FLOAT16";
    case RKNN_FLOAT16_MM_INT4_TO_FLOAT32: return "RKNN_FLOAT16_MM_INT4_TO_FLOAT32";
    case RKNN_FLOAT16_MM_INT4_TO_FLOAT16: return "RKNN_FLOAT16_MM_INT4_TO_FLOAT16";
    case RKNN_INT8_MM_INT8_TO_FLOAT32: return "RKNN_INT8_MM_INT8_TO_FLOAT32";
    case RKNN_INT4_MM_INT4_TO_INT16: return "RKNN_INT4_MM_INT4_TO_INT16";
    case RKNN_INT8_MM_INT4_TO_INT32: return "RKNN_INT8_MM_INT4_TO_INT32";
    case RKNN_FLOAT16_MM_INT4_TO_BFLOAT16: return "RKNN_FLOAT16_MM_INT4_TO_BFLOAT16";
    case RKNN_INT8_MM_INT4_TO_FLOAT16: return "RKNN_INT8_MM_INT4_TO_FLOAT16";
    default: return "UNKNOW";
    }
}

/* One of A, B, C as the runtime lays it out: dims (2 for normal layouts, 3 for a
 * native A or C, 4 for a native B), bytes and element type. */
typedef struct _rknn_matmul_tensor_attr {
    char name[RKNN_MAX_NAME_LEN];
    uint32_t n_dims;
    uint32_t dims[RKNN_MAX_DIMS];
    uint32_t size;
    rknn_tensor_type type;
} rknn_matmul_tensor_attr;

typedef struct _rknn_matmul_io_attr {
    rknn_matmul_tensor_attr A;
    rknn_matmul_tensor_attr B;
    rknn_matmul_tensor_attr C;
} rknn_matmul_io_attr;

/* One shape of a dynamic-shape matmul (only M may differ between shapes). */
typedef struct _rknn_matmul_shape {
    int32_t M;
    int32_t K;
    int32_t N;
} rknn_matmul_shape;

typedef enum {
    RKNN_MM_LAYOUT_NORM = 0,    /* row-major (M,K) / (K,N) / (M,N) */
    RKNN_MM_LAYOUT_NATIVE = 1,  /* the NPU's blocked layout of the chip */
    RKNN_MM_LAYOUT_TP_NORM = 2, /* B only: transposed, row-major (N,K) */
} rknn_matmul_layout;

/* What rknn_matmul_create builds. K and N must be multiples of the chip's
 * alignment for the type (docs/matmul-api.md); K <= 10240. */
typedef struct rknn_matmul_info_t {
    int32_t M;
    int32_t K;
    int32_t N;
    rknn_matmul_type type;
    int16_t B_layout;        /* rknn_matmul_layout */
    int16_t B_quant_type;    /* rknn_matmul_quant_type */
    int16_t AC_layout;       /* RKNN_MM_LAYOUT_NORM or _NATIVE */
    int16_t AC_quant_type;   /* per layer only: 0 */
    int32_t iommu_domain_id; /* 4 GiB address space per domain */
    int16_t group_size;      /* K rows per scale with a per-group B_quant_type */
    int8_t reserved[34];
} rknn_matmul_info;

/* Creates a matmul context for info and fills io_attr with A, B and C's attributes. */
int rknn_matmul_create(rknn_matmul_ctx *ctx, rknn_matmul_info *info, rknn_matmul_io_attr *io_attr);

/* Same with a set of shape_num shapes (info's M, K, N are not used); io_attrs[i]
 * describes dynamic_shapes[i]. Select one with rknn_matmul_set_dynamic_shape. */
int rknn_matmul_create_dynamic_shape(rknn_matmul_ctx *ctx, rknn_matmul_info *info, int shape_num,
                                     rknn_matmul_shape dynamic_shapes[],
                                     rknn_matmul_io_attr io_attrs[]);

/* Binds memory made by rknn_create_mem* (with ctx) to the tensor attr names (A, B or
 * C of the current shape); mem must hold attr->size bytes. */
int rknn_matmul_set_io_mem(rknn_matmul_ctx ctx, rknn_tensor_mem *mem, rknn_matmul_tensor_attr *attr);

/* Selects NPU cores (multi-core chips; single-core chips answer RKNN_ERR_FAIL). */
int rknn_matmul_set_core_mask(rknn_matmul_ctx context, rknn_core_mask core_mask);

/* Sets the scale/zp of A, B or C (by name). B per channel takes N values, per group
 * N * K / group_size values ordered [K / group_size][N]. */
int rknn_matmul_set_quant_params(rknn_matmul_ctx context, rknn_quant_params *params);

/* Reads back B's per-channel parameters (INT8_MM_INT8_TO_INT32): copies up to
 * params->scale_len scales and params->zp_len zero points into the caller's arrays
 * and sets *scale to A's scale, the factor that turns C into real values with B's
 * scale of each column. */
int rknn_matmul_get_quant_params(rknn_matmul_ctx ctx, rknn_quant_params *params, float *scale);

/* Selects one of the shapes given to rknn_matmul_create_dynamic_shape; call
 * rknn_matmul_set_io_mem for A and C after it. */
int rknn_matmul_set_dynamic_shape(rknn_matmul_ctx ctx, rknn_matmul_shape *shape);

/* Computes C = A x B, blocking. */
int rknn_matmul_run(rknn_matmul_ctx ctx);

int rknn_matmul_destroy(rknn_matmul_ctx ctx);

/* Rewrites a normal-layout (K, N) B (int4: two values a byte, the first in the low
 * nibble) into the native layout info's chip and type use. */
int rknn_B_normal_layout_to_native_layout(void *B_input, void *B_output, int K, int N,
                                          rknn_matmul_info *info);

#ifdef __cplusplus
}
#endif

#endif
