/* rknn_custom_op.h — custom operators of the RKNN C API, as the Rockchip RKNPU2 SDK
 * 2.3.2 declares them (same types, values, struct layouts and signatures).
 *
 * A model node whose op type starts with "cst" (an ONNX node in a custom domain, or
 * the same node in a container written by `rknn-trace build`) runs on the CPU through
 * the callbacks an application registers after rknn_init. The project's runtime
 * runs CPU targets; GPU (OpenCL) custom ops are refused. */
#ifndef _RKNN_CUSTOM_OP_H
#define _RKNN_CUSTOM_OP_H

#ifdef __cplusplus
extern "C" {
#endif

#include "rknn_api.h"

#include <stdint.h>

/* An init callback may return this for an op type the runtime also implements, to
 * have the runtime's own implementation used instead. */
#define RKNN_WARNING_SKIP_CUSTOM_OP_COMPUTE -14

#define RKNN_CUSTOM_OP_MAX_STR_LEN 64
#define RKNN_CUSTOM_OP_MAX_VALUE_LEN 32
#define RKNN_CUSTOM_OP_EXPORT __attribute__((visibility("default")))

/* (sic: the SDK's spelling) */
#ifdef __arm__
typedef uint32_t rknn_custom_op_interal_context;
#else
typedef uint64_t rknn_custom_op_interal_context;
#endif

typedef enum _rknn_target_type {
    RKNN_TARGET_TYPE_CPU = 1,
    RKNN_TARGET_TYPE_GPU = 2,
    RKNN_TARGET_TYPE_MAX
} rknn_target_type;

typedef struct _rknn_gpu_op_context {
    void *cl_context;
    void *cl_command_queue;
    void *cl_kernel;
} rknn_gpu_op_context;

/* Handed to every callback of one node: priv_data is the application's. */
typedef struct _rknn_custom_op_context {
    rknn_target_type target;
    rknn_custom_op_interal_context internal_ctx;
    rknn_gpu_op_context gpu_ctx;
    void *priv_data;
} rknn_custom_op_context;

/* One input or output of the node: its attributes and its memory (virt_addr). */
typedef struct _rknn_custom_op_tensor {
    rknn_tensor_attr attr;
    rknn_tensor_mem mem;
} rknn_custom_op_tensor;

/* One attribute of the node, as rknn_custom_op_get_op_attr finds it: n_elems values
 * of dtype at data (n_elems 0 and data NULL when the node has no such attribute). */
typedef struct _rknn_custom_op_attr {
    char name[RKNN_MAX_NAME_LEN];
    rknn_tensor_type dtype;
    uint32_t n_elems;
    void *data;
} rknn_custom_op_attr;

/* One op type an application implements. compute is required; init, prepare and
 * destroy are optional; compute_native is not supported (leave it NULL). The cl_*
 * fields are for GPU targets. */
typedef struct _rknn_custom_op {
    uint32_t version;
    rknn_target_type target;
    char op_type[RKNN_MAX_NAME_LEN];

    char cl_kernel_name[RKNN_MAX_NAME_LEN];
    char *cl_kernel_source;
    uint64_t cl_source_size;
    char cl_build_options[RKNN_MAX_NAME_LEN];

    int (*init)(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *inputs, uint32_t n_inputs,
                rknn_custom_op_tensor *outputs, uint32_t n_outputs);
    int (*prepare)(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *inputs, uint32_t n_inputs,
                   rknn_custom_op_tensor *outputs, uint32_t n_outputs);
    int (*compute)(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *inputs, uint32_t n_inputs,
                   rknn_custom_op_tensor *outputs, uint32_t n_outputs);
    int (*compute_native)(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *inputs,
                          uint32_t n_inputs, rknn_custom_op_tensor *outputs, uint32_t n_outputs);
    int (*destroy)(rknn_custom_op_context *op_ctx);
} rknn_custom_op;

/* The entry point a plugin library exports for dlopen-based loading. */
typedef rknn_custom_op *(*get_custom_op_func)();

/* Registers custom_op_num op types on a context (after rknn_init, before rknn_run);
 * each type once per context. */
int rknn_register_custom_ops(rknn_context ctx, rknn_custom_op *op, uint32_t custom_op_num);

/* Looks up the node's attribute attr_name (from a callback). */
void rknn_custom_op_get_op_attr(rknn_custom_op_context *op_ctx, const char *attr_name,
                                rknn_custom_op_attr *op_attr);

#ifdef __cplusplus
}
#endif

#endif
