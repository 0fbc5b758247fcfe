/* tests/unit/test_api_abi.c — pins include/rknn_api.h to the vendor SDK 2.3.2 ABI.
 *
 * Oracle: the sizes, offsets and values measured on the vendor header and listed in
 * shared/research/rknn-api.md (LP64: gcc x86-64; armhf: clang armv7a-linux-gnueabihf).
 * The layout is checked twice: at compile time (_Static_assert, so a wrong header
 * does not even build) and at run time (CHECK, so the report names every mismatch). */
#include <stddef.h>
#include <string.h>
#include "rknn_api.h"
#include "tests/test.h"

#if defined(__arm__)
#define LP(lp64, armhf) (armhf)
#else
#define LP(lp64, armhf) (lp64)
#endif

/* Each row: what, measured value, documented value. */
#define LAYOUT(X)                                                                     \
    X(sizeof(rknn_context), LP(8, 4))                                                 \
    X(sizeof(rknn_input_output_num), 8)                                               \
    X(offsetof(rknn_input_output_num, n_output), 4)                                   \
    X(sizeof(rknn_tensor_attr), 376)                                                  \
    X(offsetof(rknn_tensor_attr, index), 0)                                           \
    X(offsetof(rknn_tensor_attr, n_dims), 4)                                          \
    X(offsetof(rknn_tensor_attr, dims), 8)                                            \
    X(offsetof(rknn_tensor_attr, name), 72)                                           \
    X(offsetof(rknn_tensor_attr, n_elems), 328)                                       \
    X(offsetof(rknn_tensor_attr, size), 332)                                          \
    X(offsetof(rknn_tensor_attr, fmt), 336)                                           \
    X(offsetof(rknn_tensor_attr, type), 340)                                          \
    X(offsetof(rknn_tensor_attr, qnt_type), 344)                                      \
    X(offsetof(rknn_tensor_attr, fl), 348)                                            \
    X(offsetof(rknn_tensor_attr, zp), 352)                                            \
    X(offsetof(rknn_tensor_attr, scale), 356)                                         \
    X(offsetof(rknn_tensor_attr, w_stride), 360)                                      \
    X(offsetof(rknn_tensor_attr, size_with_stride), 364)                              \
    X(offsetof(rknn_tensor_attr, pass_through), 368)                                  \
    X(offsetof(rknn_tensor_attr, h_stride), 372)                                      \
    X(sizeof(((rknn_tensor_attr *)0)->dims), 64)                                      \
    X(sizeof(((rknn_tensor_attr *)0)->name), 256)                                     \
    X(sizeof(rknn_input_range), 33040)                                                \
    X(offsetof(rknn_input_range, shape_number), 4)                                    \
    X(offsetof(rknn_input_range, fmt), 8)                                             \
    X(offsetof(rknn_input_range, name), 12)                                           \
    X(offsetof(rknn_input_range, dyn_range), 268)                                     \
    X(offsetof(rknn_input_range, n_dims), 33036)                                      \
    X(sizeof(rknn_perf_detail), 16)                                                   \
    X(offsetof(rknn_perf_detail, data_len), 8)                                        \
    X(sizeof(rknn_perf_run), 8)                                                       \
    X(sizeof(rknn_sdk_version), 512)                                                  \
    X(offsetof(rknn_sdk_version, drv_version), 256)                                   \
    X(sizeof(rknn_mem_size), 64)                                                      \
    X(offsetof(rknn_mem_size, total_internal_size), 4)                                \
    X(offsetof(rknn_mem_size, total_dma_allocated_size), 8)                           \
    X(offsetof(rknn_mem_size, total_sram_size), 16)                                   \
    X(offsetof(rknn_mem_size, free_sram_size), 20)                                    \
    X(offsetof(rknn_mem_size, reserved), 24)                                          \
    X(sizeof(rknn_custom_string), 1024)                                               \
    X(sizeof(rknn_tensor_mem), 40)                                                    \
    X(offsetof(rknn_tensor_mem, phys_addr), 8)                                        \
    X(offsetof(rknn_tensor_mem, fd), 16)                                              \
    X(offsetof(rknn_tensor_mem, offset), 20)                                          \
    X(offsetof(rknn_tensor_mem, size), 24)                                            \
    X(offsetof(rknn_tensor_mem, flags), 28)                                           \
    X(offsetof(rknn_tensor_mem, priv_data), 32)                                       \
    X(sizeof(rknn_input), LP(32, 24))                                                 \
    X(offsetof(rknn_input, buf), LP(8, 4))                                            \
    X(offsetof(rknn_input, size), LP(16, 8))                                          \
    X(offsetof(rknn_input, pass_through), LP(20, 12))                                 \
    X(offsetof(rknn_input, type), LP(24, 16))                                         \
    X(offsetof(rknn_input, fmt), LP(28, 20))                                          \
    X(sizeof(rknn_output), LP(24, 16))                                                \
    X(offsetof(rknn_output, is_prealloc), 1)                                          \
    X(offsetof(rknn_output, index), 4)                                                \
    X(offsetof(rknn_output, buf), 8)                                                  \
    X(offsetof(rknn_output, size), LP(16, 12))                                        \
    X(sizeof(rknn_init_extend), LP(136, 132))                                         \
    X(offsetof(rknn_init_extend, real_model_offset), LP(8, 4))                        \
    X(offsetof(rknn_init_extend, real_model_size), LP(12, 8))                         \
    X(offsetof(rknn_init_extend, model_buffer_fd), LP(16, 12))                        \
    X(offsetof(rknn_init_extend, model_buffer_flags), LP(20, 16))                     \
    X(offsetof(rknn_init_extend, reserved), LP(24, 20))                               \
    X(sizeof(rknn_run_extend), 24)                                                    \
    X(offsetof(rknn_run_extend, non_block), 8)                                        \
    X(offsetof(rknn_run_extend, timeout_ms), 12)                                      \
    X(offsetof(rknn_run_extend, fence_fd), 16)                                        \
    X(sizeof(rknn_output_extend), 8)                                                  \
    X(sizeof(rknn_query_cmd), 4)                                                      \
    X(sizeof(rknn_tensor_type), 4)                                                    \
    X(sizeof(rknn_tensor_format), 4)                                                  \
    X(sizeof(rknn_core_mask), 4)

#define STATIC_ROW(got, want) _Static_assert((got) == (want), #got " != " #want);
LAYOUT(STATIC_ROW)

/* Enum and macro values: the name must exist and have the documented value. */
#define VALUES(X)                                                                     \
    X(RKNN_FLAG_PRIOR_HIGH, 0x0) X(RKNN_FLAG_PRIOR_MEDIUM, 0x1)                       \
    X(RKNN_FLAG_PRIOR_LOW, 0x2) X(RKNN_FLAG_ASYNC_MASK, 0x4)                          \
    X(RKNN_FLAG_COLLECT_PERF_MASK, 0x8) X(RKNN_FLAG_MEM_ALLOC_OUTSIDE, 0x10)          \
    X(RKNN_FLAG_SHARE_WEIGHT_MEM, 0x20) X(RKNN_FLAG_FENCE_IN_OUTSIDE, 0x40)           \
    X(RKNN_FLAG_FENCE_OUT_OUTSIDE, 0x80) X(RKNN_FLAG_COLLECT_MODEL_INFO_ONLY, 0x100)  \
    X(RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE, 0x200)                                        \
    X(RKNN_FLAG_EXECUTE_FALLBACK_PRIOR_DEVICE_GPU, 0x400)                             \
    X(RKNN_FLAG_ENABLE_SRAM, 0x800) X(RKNN_FLAG_SHARE_SRAM, 0x1000)                   \
    X(RKNN_FLAG_DISABLE_PROC_HIGH_PRIORITY, 0x2000)                                   \
    X(RKNN_FLAG_DISABLE_FLUSH_INPUT_MEM_CACHE, 0x4000)                                \
    X(RKNN_FLAG_DISABLE_FLUSH_OUTPUT_MEM_CACHE, 0x8000)                               \
    X(RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, 0x10000) X(RKNN_MEM_FLAG_ALLOC_NO_CONTEXT, 0x20000) \
    X(RKNN_SUCC, 0) X(RKNN_ERR_FAIL, -1) X(RKNN_ERR_TIMEOUT, -2)                      \
    X(RKNN_ERR_DEVICE_UNAVAILABLE, -3) X(RKNN_ERR_MALLOC_FAIL, -4)                    \
    X(RKNN_ERR_PARAM_INVALID, -5) X(RKNN_ERR_MODEL_INVALID, -6)                       \
    X(RKNN_ERR_CTX_INVALID, -7) X(RKNN_ERR_INPUT_INVALID, -8)                         \
    X(RKNN_ERR_OUTPUT_INVALID, -9) X(RKNN_ERR_DEVICE_UNMATCH, -10)                    \
    X(RKNN_ERR_INCOMPATILE_PRE_COMPILE_MODEL, -11)                                    \
    X(RKNN_ERR_INCOMPATILE_OPTIMIZATION_LEVEL_VERSION, -12)                           \
    X(RKNN_ERR_TARGET_PLATFORM_UNMATCH, -13)                                          \
    X(RKNN_MAX_DIMS, 16) X(RKNN_MAX_NUM_CHANNEL, 15) X(RKNN_MAX_NAME_LEN, 256)        \
    X(RKNN_MAX_DYNAMIC_SHAPE_NUM, 512)                                                \
    X(RKNN_QUERY_IN_OUT_NUM, 0) X(RKNN_QUERY_INPUT_ATTR, 1) X(RKNN_QUERY_OUTPUT_ATTR, 2) \
    X(RKNN_QUERY_PERF_DETAIL, 3) X(RKNN_QUERY_PERF_RUN, 4) X(RKNN_QUERY_SDK_VERSION, 5) \
    X(RKNN_QUERY_MEM_SIZE, 6) X(RKNN_QUERY_CUSTOM_STRING, 7)                          \
    X(RKNN_QUERY_NATIVE_INPUT_ATTR, 8) X(RKNN_QUERY_NATIVE_OUTPUT_ATTR, 9)            \
    X(RKNN_QUERY_NATIVE_NC1HWC2_INPUT_ATTR, 8) X(RKNN_QUERY_NATIVE_NC1HWC2_OUTPUT_ATTR, 9) \
    X(RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR, 10) X(RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR, 11) \
    X(RKNN_QUERY_DEVICE_MEM_INFO, 12) X(RKNN_QUERY_INPUT_DYNAMIC_RANGE, 13)           \
    X(RKNN_QUERY_CURRENT_INPUT_ATTR, 14) X(RKNN_QUERY_CURRENT_OUTPUT_ATTR, 15)        \
    X(RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR, 16) X(RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR, 17) \
    X(RKNN_QUERY_CMD_MAX, 18)                                                         \
    X(RKNN_TENSOR_FLOAT32, 0) X(RKNN_TENSOR_FLOAT16, 1) X(RKNN_TENSOR_INT8, 2)        \
    X(RKNN_TENSOR_UINT8, 3) X(RKNN_TENSOR_INT16, 4) X(RKNN_TENSOR_UINT16, 5)          \
    X(RKNN_TENSOR_INT32, 6) X(RKNN_TENSOR_UINT32, 7) X(RKNN_TENSOR_INT64, 8)          \
    X(RKNN_TENSOR_BOOL, 9) X(RKNN_TENSOR_INT4, 10) X(RKNN_TENSOR_BFLOAT16, 11)        \
    X(RKNN_TENSOR_TYPE_MAX, 12)                                                       \
    X(RKNN_TENSOR_QNT_NONE, 0) X(RKNN_TENSOR_QNT_DFP, 1)                              \
    X(RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC, 2) X(RKNN_TENSOR_QNT_MAX, 3)                 \
    X(RKNN_TENSOR_NCHW, 0) X(RKNN_TENSOR_NHWC, 1) X(RKNN_TENSOR_NC1HWC2, 2)           \
    X(RKNN_TENSOR_UNDEFINED, 3) X(RKNN_TENSOR_FORMAT_MAX, 4)                          \
    X(RKNN_NPU_CORE_AUTO, 0) X(RKNN_NPU_CORE_0, 1) X(RKNN_NPU_CORE_1, 2)              \
    X(RKNN_NPU_CORE_2, 4) X(RKNN_NPU_CORE_0_1, 3) X(RKNN_NPU_CORE_0_1_2, 7)           \
    X(RKNN_NPU_CORE_ALL, 0xffff) X(RKNN_NPU_CORE_UNDEFINED, 0x10000)                  \
    X(RKNN_TENSOR_MEMORY_FLAGS_ALLOC_INSIDE, 1) X(RKNN_TENSOR_MEMORY_FLAGS_FROM_FD, 2) \
    X(RKNN_TENSOR_MEMORY_FLAGS_FROM_PHYS, 3) X(RKNN_TENSOR_MEMORY_FLAGS_UNKNOWN, 4)   \
    X(RKNN_FLAG_MEMORY_FLAGS_DEFAULT, 0) X(RKNN_FLAG_MEMORY_CACHEABLE, 1)             \
    X(RKNN_FLAG_MEMORY_NON_CACHEABLE, 2) X(RKNN_FLAG_MEMORY_TRY_ALLOC_SRAM, 4)        \
    X(RKNN_MEMORY_SYNC_TO_DEVICE, 1) X(RKNN_MEMORY_SYNC_FROM_DEVICE, 2)               \
    X(RKNN_MEMORY_SYNC_BIDIRECTIONAL, 3)

VALUES(STATIC_ROW)

/* Every function with the vendor's exact signature: assigning to a pointer of the
 * documented type fails to compile if a parameter or return type differs. */
typedef int (*init_fn)(rknn_context *, void *, uint32_t, uint32_t, rknn_init_extend *);
typedef int (*dup_fn)(rknn_context *, rknn_context *);
typedef int (*ctx_fn)(rknn_context);
typedef int (*query_fn)(rknn_context, rknn_query_cmd, void *, uint32_t);
typedef int (*inputs_set_fn)(rknn_context, uint32_t, rknn_input *);
typedef int (*batch_fn)(rknn_context, int);
typedef int (*core_fn)(rknn_context, rknn_core_mask);
typedef int (*run_fn)(rknn_context, rknn_run_extend *);
typedef int (*outputs_get_fn)(rknn_context, uint32_t, rknn_output *, rknn_output_extend *);
typedef int (*outputs_release_fn)(rknn_context, uint32_t, rknn_output *);
typedef rknn_tensor_mem *(*phys_fn)(rknn_context, uint64_t, void *, uint32_t);
typedef rknn_tensor_mem *(*fd_fn)(rknn_context, int32_t, void *, uint32_t, int32_t);
typedef rknn_tensor_mem *(*mb_fn)(rknn_context, void *, int32_t);
typedef rknn_tensor_mem *(*mem_fn)(rknn_context, uint32_t);
typedef rknn_tensor_mem *(*mem2_fn)(rknn_context, uint64_t, uint64_t);
typedef int (*mem_op_fn)(rknn_context, rknn_tensor_mem *);
typedef int (*io_mem_fn)(rknn_context, rknn_tensor_mem *, rknn_tensor_attr *);
typedef int (*shape_fn)(rknn_context, rknn_tensor_attr *);
typedef int (*shapes_fn)(rknn_context, uint32_t, rknn_tensor_attr *);
typedef int (*sync_fn)(rknn_context, rknn_tensor_mem *, rknn_mem_sync_mode);

/* Only the types are checked: taking the address would need the library. */
#define SIG(fn, type) _Static_assert(_Generic(&fn, type: 1, default: 0), #fn " signature");
SIG(rknn_init, init_fn)
SIG(rknn_dup_context, dup_fn)
SIG(rknn_destroy, ctx_fn)
SIG(rknn_query, query_fn)
SIG(rknn_inputs_set, inputs_set_fn)
SIG(rknn_set_batch_core_num, batch_fn)
SIG(rknn_set_core_mask, core_fn)
SIG(rknn_run, run_fn)
SIG(rknn_wait, run_fn)
SIG(rknn_outputs_get, outputs_get_fn)
SIG(rknn_outputs_release, outputs_release_fn)
SIG(rknn_create_mem_from_phys, phys_fn)
SIG(rknn_create_mem_from_fd, fd_fn)
SIG(rknn_create_mem_from_mb_blk, mb_fn)
SIG(rknn_create_mem, mem_fn)
SIG(rknn_create_mem2, mem2_fn)
SIG(rknn_destroy_mem, mem_op_fn)
SIG(rknn_set_weight_mem, mem_op_fn)
SIG(rknn_set_internal_mem, mem_op_fn)
SIG(rknn_set_io_mem, io_mem_fn)
SIG(rknn_set_input_shape, shape_fn)
SIG(rknn_set_input_shapes, shapes_fn)
SIG(rknn_mem_sync, sync_fn)

int main(void)
{
#define RUN_ROW(got, want) CHECK((long long)(got) == (long long)(want), "%s = %lld, want %lld", \
                                 #got, (long long)(got), (long long)(want));
    LAYOUT(RUN_ROW)
    VALUES(RUN_ROW)

    /* The inline string helpers, with the vendor's spellings. */
    CHECK(strcmp(get_type_string(RKNN_TENSOR_FLOAT32), "FP32") == 0, "FP32");
    CHECK(strcmp(get_type_string(RKNN_TENSOR_FLOAT16), "FP16") == 0, "FP16");
    CHECK(strcmp(get_type_string(RKNN_TENSOR_INT8), "INT8") == 0, "INT8");
    CHECK(strcmp(get_type_string(RKNN_TENSOR_UINT8), "UINT8") == 0, "UINT8");
    CHECK(strcmp(get_type_string(RKNN_TENSOR_INT64), "INT64") == 0, "INT64 (not UINT64)");
    CHECK(strcmp(get_type_string(RKNN_TENSOR_BOOL), "BOOL") == 0, "BOOL");
    CHECK(strcmp(get_type_string(RKNN_TENSOR_INT4), "INT4") == 0, "INT4");
    CHECK(strcmp(get_type_string(RKNN_TENSOR_BFLOAT16), "BF16") == 0, "BF16");
    CHECK(strcmp(get_type_string(RKNN_TENSOR_TYPE_MAX), "UNKNOW") == 0, "UNKNOW");
    CHECK(strcmp(get_qnt_type_string(RKNN_TENSOR_QNT_NONE), "NONE") == 0, "NONE");
    CHECK(strcmp(get_qnt_type_string(RKNN_TENSOR_QNT_DFP), "DFP") == 0, "DFP");
    CHECK(strcmp(get_qnt_type_string(RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC), "AFFINE") == 0, "AFFINE");
    CHECK(strcmp(get_qnt_type_string(RKNN_TENSOR_QNT_MAX), "UNKNOW") == 0, "qnt UNKNOW");
    CHECK(strcmp(get_format_string(RKNN_TENSOR_NCHW), "NCHW") == 0, "NCHW");
    CHECK(strcmp(get_format_string(RKNN_TENSOR_NHWC), "NHWC") == 0, "NHWC");
    CHECK(strcmp(get_format_string(RKNN_TENSOR_NC1HWC2), "NC1HWC2") == 0, "NC1HWC2");
    CHECK(strcmp(get_format_string(RKNN_TENSOR_UNDEFINED), "UNDEFINED") == 0, "UNDEFINED");
    CHECK(strcmp(get_format_string(RKNN_TENSOR_FORMAT_MAX), "UNKNOW") == 0, "fmt UNKNOW");

    /* The header is plain C with no dependency beyond <stdint.h>: the guard macro and
     * the context type must be what vendor-built code expects. */
#ifndef _RKNN_API_H
    CHECK(0, "guard macro _RKNN_API_H missing");
#endif
    CHECK((rknn_context)-1 > 0, "rknn_context is unsigned");
    TEST_END();
}
