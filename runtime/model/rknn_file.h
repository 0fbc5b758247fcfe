/* runtime/model/rknn_file.h — reading vendor `.rknn` containers (RKNN-Toolkit1/2)
 * without executing them: the container header, the JSON trailer, the
 * Toolkit2 FlatBuffer (compiled graph: fused ops, placement, tensors with
 * original/native shapes and quantization), the RV1103/RV1106 task table,
 * the Toolkit1 OpenVX NBG header. Layout notes: docs/rknn-format.md.
 *
 * Everything is checked before use: every offset and length of the
 * container and of the FlatBuffer (flatbuf.c), element counts against the
 * bytes they need, strings against their buffer. No count has a fixed
 * limit: arrays (shapes, index lists, per-channel values) are as long as the
 * file says, and the file's size bounds them all: the FlatBuffer's decoded
 * 4-byte values together fit in its bytes (vectors do not overlap), and a
 * tensor or node needs at least 8 bytes; strings are as long as the file's
 * (never NULL in a parsed model: "" when absent). Bad input gives RT_EFORMAT and a
 * one-line message naming the file, the field and the bound.
 *
 * Typical use:
 *     rknn_model *m;
 *     if (rknn_model_read("yolov8n.rknn", &m, err, sizeof err) == 0) {
 *         for (int i = 0; i < m->n_nodes; i++) puts(m->nodes[i].type);
 *         rknn_model_free(m);
 *     }
 */
#ifndef RT_RKNN_FILE_H
#define RT_RKNN_FILE_H

#include <stddef.h>
#include <stdint.h>

/* ---- the verified FlatBuffer reader (flatbuf.c) -------------------------
 * A table handle is a position in the buffer whose vtable was checked;
 * field accessors check that the field's bytes, and what an offset field
 * points to, lie inside the buffer (and inside the table's declared size).
 * Offsets between tables are unsigned and point forward, so no walk can
 * loop; vectors are limited to the bytes that are there. Accessors return
 * 0 when the field is absent (with the default), 1 when present, or
 * RT_EFORMAT when it is present but broken. */
typedef struct fb_buf {
    const uint8_t *p;
    size_t len;
} fb_buf;

typedef struct fb_table {
    const fb_buf *b;
    size_t pos;        /* table start */
    size_t vt;         /* vtable start */
    uint16_t vt_len;   /* vtable bytes */
    uint16_t tab_len;  /* table bytes */
} fb_table;

typedef struct fb_vec {
    const fb_buf *b;
    size_t pos;        /* first element */
    uint32_t n;
} fb_vec;

int fb_root(const fb_buf *b, fb_table *out);
int fb_table_slots(const fb_table *t);  /* number of vtable slots */
int fb_u8(const fb_table *t, int slot, uint8_t def, uint8_t *out);
int fb_i32(const fb_table *t, int slot, int32_t def, int32_t *out);
/* A string: *s points into the buffer (not terminated), *n bytes. */
int fb_str(const fb_table *t, int slot, const char **s, uint32_t *n);
/* A vector of elem_size-byte elements (scalars: 1/2/4/8; tables/strings: 4). */
int fb_vector(const fb_table *t, int slot, size_t elem_size, fb_vec *out);
int fb_subtable(const fb_table *t, int slot, fb_table *out);
/* Element i of a vector of 4-byte scalars / of tables / of strings. */
uint32_t fb_vec_u32(const fb_vec *v, uint32_t i);
int fb_vec_table(const fb_vec *v, uint32_t i, fb_table *out);
int fb_vec_str(const fb_vec *v, uint32_t i, const char **s, uint32_t *n);

/* ---- the decoded model --------------------------------------------------- */

enum rknn_container {
    RKNN_C_TK2_FB = 0,  /* Toolkit2: FlatBuffer graph */
    RKNN_C_LITE,        /* RV1103/RV1106: version 0x10xx, task table, regcmds, weights,
                           then the graph as a FlatBuffer with other slot numbers */
    RKNN_C_VPMN,        /* Toolkit1 precompiled: OpenVX NBG */
    RKNN_C_JSON_ONLY,   /* Toolkit1 non-precompiled: graph only in the JSON */
    RKNN_C_ENCRYPTED,   /* CYPTRKNN */
    RKNN_C_RKNX,        /* RKNN3 (RK182x) */
    RKNN_C_UNKNOWN_DATA,
};

enum { RKNN_TGT_CPU = 0, RKNN_TGT_GPU = 1, RKNN_TGT_NPU = 2 };

/* rknn_tensor.kind: what a tensor of the file holds (docs/rknn-format.md) */
enum rknn_tensor_kind {
    RKNN_TK_INPUT = 1,
    RKNN_TK_OUTPUT = 2,
    RKNN_TK_ACT = 3,     /* an activation between layers */
    RKNN_TK_CONST = 4,   /* constants (weights, biases): 4, 5 and 8 */
    RKNN_TK_CONST5 = 5,
    RKNN_TK_TABLE = 6,   /* blobs, not data a layer computes on: 6, 7, 9 and 10;
                            6 lookup tables (Sigmoid, exSwish) */
    RKNN_TK_TASK1 = 7,   /* one task of a model-1 file (toolkit <= 1.5) */
    RKNN_TK_CONST8 = 8,
    RKNN_TK_REGCMD = 9,  /* the register commands */
    RKNN_TK_TASK = 10,   /* the task table */
};
static inline int rknn_kind_is_const(int kind)
{
    return kind == RKNN_TK_CONST || kind == RKNN_TK_CONST5 || kind == RKNN_TK_CONST8;
}
static inline int rknn_kind_is_blob(int kind)
{
    return kind == RKNN_TK_TABLE || kind == RKNN_TK_TASK1 || kind == RKNN_TK_REGCMD ||
           kind == RKNN_TK_TASK;
}

typedef struct rknn_tensor {
    char *name;
    int dtype;               /* file's code: ONNX TensorProto numbering (1 f32, 3 i8, 10 f16 ...) */
    int kind;                /* enum rknn_tensor_kind */
    int nd, nnd;             /* original and native ranks: as many values as the
                                file gives (native shapes of weights are blocks of
                                6, one per input-channel block: 6, 12, 24 seen) */
    int64_t *shape, *native; /* nd / nnd values (NULL when 0) */
    char *qmethod;           /* "layer", "channel", "" */
    char *dtype_name;        /* "int8", "" for weights */
    int has_quant;
    double min, max, scale;
    int64_t zero_point;
    int64_t size;            /* native buffer bytes, -1 unknown */
    int buffer;              /* index into the model's data buffers (weights, biases,
                                regcmd/task blobs), -1 none */
    int64_t data_off, data_len; /* those bytes: offset in the file and length, -1 none */
    /* a model-1 task blob (kind 7) as its node's task list names it (node
     * slot 6): the node, the task's enable and interrupt masks, the LUT table
     * tensor its DPU loads (Sigmoid, exSwish), -1 when not named */
    int task_node, task_lut;
    uint32_t task_enable, task_int_mask;
} rknn_tensor;

typedef struct rknn_node {
    char *type;              /* ConvRelu, InputOperator, ... */
    char *name;              /* FullName, "Conv:Conv_0" */
    int target;              /* RKNN_TGT_* */
    int *in, n_in, *out, n_out;   /* tensor indices (checked < n_tensors) */
    int param_tag;           /* union tag of the parameter table, 0 none */
    /* conv / pooling parameters (n_* = 0: absent) */
    int n_kernel, n_stride, n_pad, n_dilation;
    int64_t *kernel, *stride, *pad, *dilation;  /* as many as the file gives */
    char *auto_pad;
    /* resize (mode, coord_mode); split, concat, argmax (axis: params slot 0) */
    char *mode, *coord_mode;
    int64_t axis;
    int has_axis;
    int tasks;               /* RV1103/RV1106: its NPU tasks in the task table, -1 unknown */
    int group;               /* conv groups when the file says more than the op type:
                                RV1103/RV1106 depthwise convs (see lite_depthwise), else 0 */
    int64_t attr_off, attr_len; /* model 6: the node's attribute document (node slot 9,
                                a BSON document: a custom op's attributes), -1 none */
} rknn_node;

/* One address patch of a model-6 file (graph slot 7): the runtime writes tensor's
 * address + offset into register command entry (an index into the `regcmd` blob, 8
 * bytes an entry). This is what binds a task's address registers to buffers. */
typedef struct rknn_reloc {
    int tensor;              /* -1: its name is no tensor's */
    uint32_t offset, entry;
} rknn_reloc;

/* One model input or output as the generator string and the graph give it. */
typedef struct rknn_io {
    char *name;
    int tensor;              /* graph tensor index, -1 unknown */
    int is_output;
    char *layout, *layout_ori;       /* framework layout ("nchw"), "" unknown */
    char *native_dtype, *native_layout; /* what the NPU wants (input_json/output_json) */
    int n_mean, n_std, n_reorder;   /* one per channel, as many as the file gives */
    double *mean, *std;
    int *reorder;
    int rgb2bgr;             /* -1 unknown */
} rknn_io;

typedef struct rknn_model {
    int container;           /* enum rknn_container */
    uint64_t version;        /* container version (0x6, 0x1004, ...) */
    uint64_t data_size, json_size;
    size_t data_off, json_off, extra_bytes;
    /* from the JSON trailer */
    char *target;            /* "rk3588" (lower case), NULL unknown */
    char *toolkit;           /* JSON "version" */
    char *framework;         /* network_platform */
    char *ori_framework;
    char *json_name;
    int json_inputs, json_outputs;   /* -1 unknown */
    /* from the FlatBuffer */
    int model_version;       /* 1 or 6, -1 unknown */
    char *npu_gen;           /* "RKNPU v2" */
    char *compiler;          /* toolkit + compiler build */
    int compiler_code;       /* 10602, -1 unknown */
    char *fb_target;         /* platform named in the FlatBuffer */
    char *infer_type;        /* "static_shape" ... */
    rknn_tensor *tensors;
    int n_tensors;
    rknn_node *nodes;
    int n_nodes;
    rknn_io *io;
    int n_io;
    uint32_t *tiling_start;  /* model 6, graph slot 10: the task where each core
                                selection's tiling starts (rk3588 [0,0,0,2,8]), n_tilings */
    int n_tilings;
    rknn_reloc *relocs;      /* model 6, graph slot 7: the address patches, by entry */
    int n_relocs;
    char *dyn_json;          /* the generator's dynamic_shapes as JSON text, NULL none */
    int n_dyn;               /* its entries (shape sets), 0 static */
    /* RV1103/RV1106 blob: header words and the task table */
    uint32_t lite_words[6];
    uint32_t lite_tasks;
    uint64_t lite_regcfg_total;      /* sum of regcfg_amount over the tasks */
    int lite_graph;                  /* the graph decoded from the config section */
    /* Toolkit1: NBG header or the JSON graph */
    int nbg_major, nbg_minor, nbg_nodes;
    char nbg_name[65];
    char *json_pre;          /* Toolkit1 preprocessing: {"mean_value", "std_value", "reorder"} as JSON */
    char **tk1_ops;          /* op of each JSON node */
    int n_tk1_ops;
} rknn_model;

/* Non-zero when buf starts like a vendor file this reader knows
 * ("RKNN", "CYPTRKNN", "RKNX"). */
int rknn_file_is(const void *buf, size_t len);
/* Parses a whole file held in buf; what names it in messages. An encrypted or
 * RKNN3 file is recognised (container set, nothing else) and returns 0. */
int rknn_model_parse(const void *buf, size_t len, const char *what, rknn_model **out, char *err,
                     size_t errlen);
int rknn_model_read(const char *path, rknn_model **out, char *err, size_t errlen);
void rknn_model_free(rknn_model *m);

/* The attributes of node ni (its BSON document, `{name: {"dtype": "f", "value": v}}`)
 * as graph attributes: a number FLOAT (dtype "f", or a double) or INT, an array of
 * numbers FLOATS or INTS, a string STRING. *out is a new array of *n (0: none);
 * RT_EFORMAT with a message for a document that is not valid BSON within the file.
 * (rknn_attr.c) */
struct attr;
int rknn_node_attrs(const rknn_model *m, const uint8_t *file, size_t len, int ni,
                    struct attr **out, int *n, char *err, size_t errlen);
/* The file's custom ops (CPU nodes of a "cst" op type) as nodes of g, for an
 * application's callbacks: float32 tensors of the file's shapes (by name, shared
 * with those g has), the file's op type and attributes; the caller sets their
 * op definition. node_of[i] (m->n_nodes entries) is g's node of file node i, -1
 * none. 0, or rknn_node_attrs' error. (rknn_attr.c) */
struct graph;
int rknn_custom_nodes(const rknn_model *m, const uint8_t *file, size_t len, struct graph *g,
                      int *node_of, char *err, size_t errlen);

/* The tensor whose address the runtime writes into regcmd entry `entry` (offset: what it
 * adds); -1 when no patch names that entry, -2 when the patch's name is no tensor's. */
int rknn_reloc_at(const rknn_model *m, int64_t entry, uint32_t *offset);

/* Elements of file tensor t's shape (1 for none), -1 when a dimension is not
 * positive or the count passes 2^31. */
int64_t rknn_tensor_elems(const rknn_tensor *t);
/* 1 when node n's input k is "X_exSecondary" beside its input X: the same data in
 * another layout (RV1103 Transpose/Reshape/Resize inputs, native NC1HWC2 where X is
 * plain; rk3588's Reshape), which the layer reads as X, not as a second input. */
int rknn_alias_input(const rknn_model *m, const rknn_node *n, int k);

const char *rknn_container_name(int container);
const char *rknn_target_name(int target);  /* "CPU", "GPU", "NPU" */
/* "int8", "float16" ... for the file's dtype code; NULL for an unknown code. */
const char *rknn_dtype_name(int code);

/* ---- Python literals (pylit.c) --------------------------------------------
 * The FlatBuffer's generator string is a Python dict literal. This parses
 * the subset Python's repr writes — strings ('...' / "..." with escapes),
 * ints, floats (inf/nan too), True/False/None, dicts, lists, tuples — into a
 * jansson value (tuples become arrays, None null). Nesting is limited.
 * Returns 0, or RT_EFORMAT with the byte position. The value is a json_t*
 * (void here so that users of this header need not include jansson). */
int pylit_parse(const char *s, size_t len, void **out, char *err, size_t errlen);

#endif
