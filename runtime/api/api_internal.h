/* runtime/api/api_internal.h — private to runtime/api: the context behind an
 * rknn_context handle, the simulated platform, logging and the tensor conversions
 * shared by the API files. The public contract is include/rknn_api.h. */
#ifndef RT_API_INTERNAL_H
#define RT_API_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "rknn_api.h"
#include "runtime/exec/exec.h"
#include "runtime/model/model.h"
#include "runtime/quant/quant.h"

#define API_VERSION "2.3.2 (rknn-trace simulator@" __DATE__ ")"
/* exported: the simulated runtime identifies itself (api_core.c) */
extern const char rknn_trace_simulated_runtime[];
#define API_DRV_VERSION "0.9.8"

/* The simulated chip: what the API exposes of it (cores, NC1HWC2 stroke width,
 * zero-copy width alignment). npu-hw.md §2.1 and §2.4. */
typedef struct api_platform {
    const char *name;
    int cores;
    int stroke_bytes; /* C2 * element size: 8 on RK356x/RV110xB, 16 elsewhere */
    int width_align;  /* zero-copy NHWC input width alignment, pixels */
} api_platform;

const api_platform *api_platform_get(const char *name); /* NULL if unknown */
const char *api_platform_names(void);

/* One graph input or output as the API shows it. */
typedef struct api_io {
    int tensor;               /* index in g->t */
    int rtype;                /* rknn_tensor_type of the model tensor */
    int ndim;
    int64_t dims[MODEL_MAX_DIMS]; /* current shape (model layout) */
    int64_t model_dims[MODEL_MAX_DIMS]; /* as declared by the model, -1 = dynamic */
    int conv_out;             /* output produced by Conv: native C aligned to 2*C2 */
    /* the tensor as the chip holds it (a `rknn-trace build` container): int8 with its
     * affine parameters, or fp16; rtype then says so while the executor stays float */
    int affine;
    int32_t zp;
    float scale;
    const simmodel_input *pre; /* inputs: the container's mean/std/reorder, or NULL */
    int pixels;               /* inputs: a UINT8 buffer holds pixels the model
                               * normalises (pre, or a vendor file's own mean/std) */
    /* inputs: the executor's input tensor (model dtype and layout), not owned */
    void *data;
    size_t nbytes;
    int is_set;
    /* rknn_set_io_mem binding */
    rknn_tensor_mem *mem;
    rknn_tensor_attr mem_attr;
    /* the binding is not the chip's own layout/type: 1 = measure and report the CPU
     * conversion at the next rknn_run (W line), 2 = reported */
    int conv_note;
} api_io;

/* A buffer handed out by rknn_outputs_get (is_prealloc == 0). */
typedef struct api_outbuf {
    void *buf;
    struct api_outbuf *next;
} api_outbuf;

typedef struct api_ctx {
    rknn_context handle;
    pthread_mutex_t lock;     /* held by the API call using the context */
    /* calls holding or waiting for the context (under the registry lock); rknn_destroy
     * waits on idle until its own is the last one */
    int refs;
    pthread_cond_t idle;
    int destroyed;            /* under lock: queued calls must not use it */
    uint32_t flag;
    const api_platform *plat;
    /* model source, kept to duplicate the context or re-prepare with new shapes */
    void *model_buf;
    size_t model_len;
    char *model_path;
    graph_t *g;
    exec_t *x;
    int n_in, n_out;
    api_io *in, *out;
    int dynamic;              /* some input has a dynamic dimension */
    int pending;              /* dynamic dims not set and 1 does not prepare: no executor */
    int ran;                  /* a run completed since init/reshape */
    int warned_unset;
    uint64_t frame_id;
    int64_t last_run_us;      /* host wall time of the last exec_run */
    int64_t perf_run_us;      /* RKNN_QUERY_PERF_RUN: the NPU model's predicted frame time
                               * of the last run (npu_frame_us), host time without one */
    char *perf_text;          /* RKNN_QUERY_PERF_DETAIL */
    int perf_stale;           /* the NPU model was costed since perf_text was written:
                               * the text is made when PERF_DETAIL is asked for */
    struct npu_session *npu;  /* the graph on the NPU cost model (runtime/npu: lowered,
                               * planned, costed), or NULL: built at the first costed run,
                               * dropped on re-prepare */
    int npu_failed;           /* lowering failed: host-time table instead */
    double *layer_us;         /* per executed node of the last run */
    int n_layer_us;
    api_outbuf *outbufs;
    /* RKNN_FLAG_ASYNC_MASK: rknn_outputs_get returns the frame before the last run */
    void **prev_out;          /* per output, model dtype, NULL until a second run */
    uint64_t prev_frame;
    rknn_tensor_mem *weight_mem, *internal_mem;
    int core_mask, batch_core_num;
    /* a `rknn-trace build` container: its options, quantization and parameters */
    int container;
    simmodel_opts opts;
    int qtype, qmethod;       /* QT_* and QM_* (QT_FP32 for an ONNX model) */
    char *qcfg;               /* the QCFG section (i8), NUL-terminated */
    size_t qcfg_len;
    quant_graph *qg;          /* the quantized graph's parameters, with g */
    int set_index;            /* the container's shape set now prepared */
    /* RKNN_QUERY_MEM_SIZE: the largest over the shape set (memory sized at init
     * stays large enough whatever set is chosen later) */
    uint64_t max_weight, max_internal; /* api_npu.c: the plan's, else the host's */
    size_t max_io;
    struct api_custom *custom; /* rknn_register_custom_ops (api_custom.c), NULL if none */
    /* a vendor .rknn run by the NPU emulator (api_vendor.c), NULL otherwise: then g, x,
     * in and out are absent and n_in/n_out count the file's inputs/outputs */
    struct api_vendor *vendor;
} api_ctx;

void api_prev_free(api_ctx *c);

/* Host wall time (us) of the executor inside the context's last rknn_run, for
 * tests/tools/bench_api (RKNN_QUERY_PERF_RUN answers the predicted board time);
 * -1 for an invalid handle. */
int64_t api_last_exec_us(rknn_context h);

/* ---- handles (api_core.c) ---- */
/* Looks the handle up, takes a reference and locks the context (the registry is not
 * held while waiting for a busy context); NULL (with an E line naming fn) if the
 * handle is 0, destroyed (also while waiting) or never created. Unlock with
 * api_ctx_put. */
api_ctx *api_ctx_get(rknn_context h, const char *fn);
/* The same, for the calls a vendor-file context answers (api_vendor.c); api_ctx_get
 * refuses such a context with an E line naming fn. */
api_ctx *api_ctx_get_any(rknn_context h, const char *fn);
void api_ctx_put(api_ctx *c);
/* RKNN_SUCC, or an E line naming fn when the context waits for rknn_set_input_shapes. */
int api_ctx_ready(const api_ctx *c, const char *fn);

/* ---- memory registry (api_mem.c) ---- */
int api_mem_alive(const rknn_tensor_mem *m);
/* Start of the bytes of m (virt_addr + offset handling), NULL if not CPU-visible. */
uint8_t *api_mem_ptr(const rknn_tensor_mem *m);
size_t api_mem_avail(const rknn_tensor_mem *m);

/* ---- logging (api_core.c): "E RKNN: [hh:mm:ss.mmm] ..." on stderr ---- */
int api_log_level(void);
void api_log(char level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define API_E(...) api_log('E', __VA_ARGS__)
#define API_W(...) api_log('W', __VA_ARGS__)
#define API_I(...) api_log('I', __VA_ARGS__)
#define API_D(...) api_log('D', __VA_ARGS__)

/* ---- the simulated NPU (api_npu.c) ---- */
/* Lowers the prepared graph for the context's chip (runtime/npu), applies the core
 * mask, plans the Internal buffer with SRAM when asked (RKNN_FLAG_ENABLE_SRAM,
 * RKNN_INTERNAL_MEM_TYPE=sram[#KB]; W line and DDR on chips without) and prints the
 * level-3 SRAM table. Nothing while the context is pending; a graph the NPU model
 * cannot lower sets npu_failed (D line). 0, or RKNN_ERR_FAIL (one E line naming the op
 * and the chip) when a node runs neither on the chip's NPU nor on its CPU: rknn_init
 * refuses the model, as a board does. */
int api_npu_prepare(api_ctx *c);
/* Lowers and plans the prepared graph without SRAM and without keeping it, only to
 * add its sizes to max_weight/max_internal (every shape set at init). */
void api_npu_measure(api_ctx *c);
/* Weight and internal bytes the current shapes need: the NPU plan's (Total Weight /
 * Internal Memory Size, in the container's dtype), else the host's constants and
 * arena counted in that dtype. What rknn_set_weight_mem, rknn_set_internal_mem and
 * rknn_run check; RKNN_QUERY_MEM_SIZE and the level-3 line give the largest of them
 * over the shapes prepared (max_weight, max_internal). */
void api_mem_need(const api_ctx *c, uint64_t *weight, uint64_t *internal);
/* Closes the NPU session, giving its SRAM back to the process pool. */
void api_npu_drop(api_ctx *c);
/* RKNN_QUERY_MEM_SIZE's SRAM fields (0/0 on chips without SRAM). */
void api_npu_mem_sizes(const api_ctx *c, uint32_t *total_sram, uint32_t *free_sram);
/* Applies a core mask through the NPU model; RKNN_ERR_PARAM_INVALID with an E line
 * naming fn and the chip's cores for a core the chip lacks. */
int api_npu_core_mask(api_ctx *c, unsigned mask, const char *fn);
/* Level 5: before a run (frequency lines, dump folder, graph inputs) and for each
 * layer event (the outputs of the NPU layers it completes). */
void api_npu_dump_begin(api_ctx *c);
/* The level-5 dump folder ($RKNN_DUMP_DIR, else "dumps"), created with its parents;
 * NULL (with an E line) when it cannot be. */
const char *api_dump_dir(void);
void api_npu_dump_event(api_ctx *c, const layer_event_t *ev);
/* After a run: predicted busy time per core into the process's 1 s load window,
 * published as <npu_sysfs_dir()>/rknpu/load (at most every 100 ms). perf_debug: the
 * run was layer by layer (level 4, RKNN_FLAG_COLLECT_PERF_MASK), each layer paying its
 * submission; else the frame's time without it (npu_frame_us). */
void api_npu_account_run(api_ctx *c, int perf_debug);
/* Publishes the load now if runs were added since the last write (rknn_destroy). */
void api_npu_load_flush(void);

/* ---- tensors and layouts (api_io.c) ---- */
int api_rtype_of_dtype(int dt);    /* -1 if the API has no such type */
int api_dtype_of_rtype(int rt);    /* DT_UNDEFINED if none */
size_t api_rtype_size(int rt);     /* 0 for unknown; INT4 counted as 1 */
int api_rtype_valid(int rt);

/* Logical geometry of a 4-D NCHW tensor. */
typedef struct api_geom {
    int64_t n, c, h, w;
} api_geom;

/* Describes io (input or output) in attr for a query command. */
void api_fill_attr(const api_ctx *c, const api_io *io, int is_input, int cmd,
                   rknn_tensor_attr *attr);
int api_native_c2(const api_ctx *c, int rtype);

/* Element-wise copy with type conversion; src/dst in the given rknn types.
 * Affine (zp, scale) applies when quantising to int8/uint8 from float (scale > 0)
 * or dequantising. */
typedef struct api_qnt {
    int affine;
    int32_t zp;
    float scale;
} api_qnt;

/* Copies a tensor between the model layout (dense, model dtype) and a buffer in
 * (fmt, rtype) with strides; to_model picks the direction. Returns 0 or a
 * negative RKNN_ERR_* after printing an E line naming fn. */
typedef struct api_layout {
    int fmt;                  /* rknn_tensor_format of the buffer */
    int rtype;                /* rknn_tensor_type of the buffer */
    api_qnt q;
    int64_t w_stride, h_stride; /* NHWC/NC1HWC2: pixels per row / rows per plane */
    int64_t c1, c2;           /* NC1HWC2 slabs and lanes */
} api_layout;

/* Checks that io's rknn_set_io_mem binding (mem, mem_attr) is large enough;
 * prints an E line naming fn and returns RKNN_ERR_PARAM_INVALID if not. */
int api_binding_check(const api_ctx *c, const api_io *io, int is_input, int idx, const char *fn);

size_t api_layout_bytes(const api_io *io, const api_layout *l);
/* par: the executor whose threads share out a large conversion, or NULL. */
int api_convert(exec_t *par, const api_io *io, int model_dtype, void *model_data, void *buf,
                const api_layout *l, int to_model, const char *fn);

/* (Re)builds graph, executor and io tables from the model source with the given
 * input shapes (NULL: dynamic dims fixed to 1). Used by init and set_input_shapes. */
int api_ctx_prepare(api_ctx *c, const int64_t (*shapes)[MODEL_MAX_DIMS], const int *ndims);

/* Bytes of io as the API shows it (its rtype). */
size_t api_io_bytes(const api_io *io);
/* After data was converted into io's executor input: the container's preprocessing
 * when the data was raw (not already the model's quantized values), then the
 * input's quantization (int8 grid / fp16 rounding), as `rknn-trace run` does. */
void api_input_finish(const api_ctx *c, api_io *io, int raw);
/* A binding or rknn_input of type rtype with affine parameters: 1 if it holds raw
 * values (preprocessing applies), 0 if the model's quantized values; clears the
 * affine flag of an image buffer (UINT8 into an input with mean/std) in *l. */
int api_input_is_raw(const api_io *io, api_layout *l, int pass_through);
/* ---- custom ops (api_custom.c) ---- */
/* Hooks the (re)prepared graph's custom nodes to the registered ops again. */
void api_custom_bind(api_ctx *c);
/* Calls the destroy callbacks and frees the registrations. */
void api_custom_free(api_ctx *c);

/* ---- vendor .rknn files run by the NPU emulator (api_vendor.c) ---- */
typedef struct api_vendor api_vendor;
/* Parses c->model_buf, checks that the emulator takes it (emu_exec_supported; a
 * task it does not understand stops api_vendor_run with its reason) and sets
 * c->vendor, c->plat (the file's chip), n_in, n_out, the io tables over a graph of
 * the io tensors (g, in, out; the inputs' data is the emulator's), the NPU session
 * of the compiled graph (npu, when the NPU model costs it) and the MEM_SIZE figures.
 * RKNN_ERR_MODEL_INVALID with one E line naming the reason. */
int api_vendor_load(api_ctx *c);
void api_vendor_free(api_vendor *v);
/* What a vendor file's rknn_input may be (UINT8, INT8, FLOAT16 or FLOAT32; NHWC,
 * NCHW or UNDEFINED; pass_through: the model's own values, except on an RV110x file):
 * RKNN_SUCC, or RKNN_ERR_INPUT_INVALID with an E line. The values are then converted
 * as for any model, into the emulator's float input. */
int api_vendor_input_check(const api_ctx *c, const rknn_input *in);
/* An input given as the model's own values (pass_through, or INT8 AFFINE at its
 * scale), converted to the normalized floats they stand for: put back before the
 * file's mean and std, which the emulator applies. RKNN_ERR_INPUT_INVALID with an
 * E line (call: the API function) on an RV110x file, whose runtime reads pixels. */
int api_vendor_input_normalized(const api_ctx *c, const api_io *io, const char *call);
/* Executes the tasks on the inputs set (v's float NCHW, which c->in's data also are):
 * RKNN_SUCC, or RKNN_ERR_FAIL with an E line naming the task where the emulator stopped.
 * dump (level 5): every computed tensor as a .npy under the vendor's dump name, in
 * api_dump_dir(). */
int api_vendor_run(api_ctx *c, int dump);
/* Output i of the last run: float NCHW (c->out[i]'s dims), NULL before a run. */
const float *api_vendor_output(const api_ctx *c, int i);
/* o->buf: a runtime-owned buffer of need bytes, kept on c->outbufs until
 * rknn_outputs_release (api_io.c). */
void api_output_alloc(api_ctx *c, rknn_output *o, size_t need);
/* outputs: n_outputs <= n_out, rknn_run done; buffers handed out go to c->outbufs. */
int api_vendor_outputs_get(api_ctx *c, uint32_t n_outputs, rknn_output *outputs);

/* Brings perf_text up to date with the last costed run (api_io.c). */
void api_perf_text_refresh(api_ctx *c);

#endif
