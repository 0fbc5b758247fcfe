/* runtime/model/model.h — the graph IR and model loading.
 *
 * A graph is a list of tensors and a topologically sorted list of nodes that refer
 * to tensors by index. Tensor indices are stable once the graph is built; pointers
 * into g->t are not while tensors are still being added.
 *
 * A graph comes only from graph_new() or a loader (a name index is allocated with
 * it), and tensor names are never changed in place: lookups go through that index.
 *
 * Data types use ONNX TensorProto numbering so that the importer needs no table. */
#ifndef RT_MODEL_H
#define RT_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include "util/dtype.h" /* enum dtype, dtype_size, dtype_name */

#define MODEL_MAX_DIMS 8

enum tensor_kind {
    TK_ACT = 0,    /* produced by a node at run time */
    TK_INPUT = 1,  /* graph input fed by the caller */
    TK_CONST = 2,  /* initializer, Constant output or folded: data is owned */
};

typedef struct tensor {
    char *name;
    int dtype;
    int ndim;                        /* -1 while unknown */
    int64_t dims[MODEL_MAX_DIMS];    /* -1 for a dynamic dimension */
    char *dim_param[MODEL_MAX_DIMS]; /* symbolic name of a dynamic dim, or NULL */
    int kind;                        /* enum tensor_kind */
    int is_output;                   /* a graph output */
    int producer;                    /* node index, -1 for inputs/constants */
    void *data;                      /* TK_CONST: owned values; else set by the executor */
} tensor_t;

enum attr_type { /* ONNX AttributeProto numbering */
    ATTR_UNDEFINED = 0,
    ATTR_FLOAT = 1,
    ATTR_INT = 2,
    ATTR_STRING = 3,
    ATTR_TENSOR = 4,
    ATTR_GRAPH = 5,
    ATTR_FLOATS = 6,
    ATTR_INTS = 7,
    ATTR_STRINGS = 8,
};

typedef struct attr {
    char *name;
    int type;
    float f;
    int64_t i;
    char *s;          /* ATTR_STRING (NUL-terminated copy) */
    int n;            /* element count for FLOATS / INTS / STRINGS */
    float *floats;
    int64_t *ints;
    char **strings;
    tensor_t *t;      /* ATTR_TENSOR: a standalone tensor with owned data */
} attr_t;

typedef struct node {
    char *name;        /* never NULL: the importer invents "<op>_<index>" if empty */
    char *op;
    char *domain;      /* "" for the default ONNX domain */
    int n_in, n_out;
    int *in;           /* tensor indices; -1 for an omitted optional input */
    int *out;
    int n_attr;
    attr_t *attrs;
    const struct op_def *def; /* resolved by passes; NULL until then */
    void *priv;               /* op-private prepared state (e.g. packed weights) */
    int folded;               /* not executed at run time: computed at load, or merged
                                 into the node that now produces its outputs */
    int keep_fp16;            /* a hybrid quantization file keeps the node in float16:
                                 NODE_FP16_NAMED (its output is named there) or
                                 NODE_FP16_FUSED (fused with a named node); 0 none */
    const struct op_def *wraps; /* the stock kernel that def (a wrapper of the quantized
                                 graph) runs unchanged before rewriting the outputs in
                                 place, so the memory plan may alias as for it; or NULL */
    const struct op_chain *chain; /* a kernel that stands in for a Conv and runs its
                                 activation chain itself (runtime/exec/exec.h), or NULL */
} node_t;

enum { NODE_FP16_NAMED = 1, NODE_FP16_FUSED = 2 };

typedef struct graph {
    tensor_t *t;
    int n_t, cap_t;
    node_t *nodes;
    int n_nodes, cap_nodes;
    int *inputs, n_inputs;     /* real graph inputs (initializers excluded) */
    int *outputs, n_outputs;
    int64_t opset;             /* default-domain opset version */
    char *producer;            /* producer name and version, may be "" */
} graph_t;

/* An operator's entry in the executor's table (runtime/exec, exec_find_op binds
 * node_t.def after load). Declared here, with the node that points to it, so that
 * graph_free releases a node's prepared state without calling into the executor. */
struct op_ctx;
typedef struct op_def {
    const char *name;   /* ONNX op_type */
    const char *domain; /* "" for ai.onnx */
    /* Sets dtype/ndim/dims of every output from the inputs (whose shapes are
     * known; constant inputs have data). May read constant input values
     * (e.g. Reshape's shape). Returns 0 or RT_E* with a message. */
    int (*infer)(graph_t *g, node_t *n, char *err, size_t errlen);
    /* Optional: once per graph after shapes are known (pack weights into n->priv). */
    int (*prepare)(graph_t *g, node_t *n, char *err, size_t errlen);
    /* Computes outputs; input and output buffers are in g->t[...].data. */
    int (*run)(struct op_ctx *c, graph_t *g, node_t *n);
    /* Optional: frees n->priv. */
    void (*release)(node_t *n);
    /* Optional: how the executor fuses the op with its neighbours (runtime/exec's
     * kernels.h, struct op_fusion); NULL: it never does. */
    const struct op_fusion *fusion;
} op_def;

/* Loading. The format is detected from the content: ONNX, the simulator
 * container of `rknn-trace build`; vendor-compiled .rknn files are refused with
 * a message saying why. `what` names the buffer in messages (a path, "model buffer"). */
int model_load_file(const char *path, graph_t **out, char *err, size_t errlen);
int model_load_buffer(const void *buf, size_t len, const char *what, graph_t **out, char *err,
                      size_t errlen);
int model_load_onnx(const void *buf, size_t len, graph_t **out, char *err, size_t errlen);
/* The same with the folder the model file was read from (NULL: none): tensors
 * kept in external data files (onnx's save_as_external_data) are read from
 * there, confined to that folder; without a folder they are refused. */
int model_load_onnx_dir(const void *buf, size_t len, const char *dir, graph_t **out, char *err,
                        size_t errlen);
/* The folder of a model file's path (".", "/"), allocated. */
char *model_file_dir(const char *path);
/* An ONNX model with its external data read in, serialized again (*out,
 * allocated, for a container that must hold the whole model); *out NULL when
 * no tensor has external data. */
int model_onnx_inline(const void *buf, size_t len, const char *dir, void **out, size_t *out_len,
                      char *err, size_t errlen);
/* One serialized onnx.TensorProto (the conformance suite's input_N.pb files) into
 * *out, whose name, dtype, shape and owned data are filled; kind is TK_CONST. */
int model_load_tensor_pb(const void *buf, size_t len, tensor_t *out, char *err, size_t errlen);

/* Building and querying. */
graph_t *graph_new(void);
void graph_free(graph_t *g);
int graph_find_tensor(const graph_t *g, const char *name);  /* -1 if absent */
int graph_add_tensor(graph_t *g, const char *name);         /* returns index */
int graph_add_node(graph_t *g, const char *name, const char *op, const char *domain,
                   int n_in, const int *in, int n_out, const int *out); /* returns index */
/* Sets the graph's inputs and outputs (replacing any), marking the outputs. */
void graph_set_io(graph_t *g, int n_in, const int *in, int n_out, const int *out);
/* 1 when every dim of input t is fixed in the model (no free or named dim). */
int graph_input_is_static(const tensor_t *t);
/* Frees the dims of every fully static graph input, so that a shape set (Toolkit2's
 * config(dynamic_input): "the input shape of the original model is [1,3,224,224]
 * or [1,3,height,width] ... support [1,3,192,192]") may resize it; an input with
 * free dims keeps its fixed ones ("only the dynamic axes can set different values"). */
void graph_free_static_inputs(graph_t *g);
/* Re-sorts nodes topologically; fails on a cycle or a dangling input. */
int graph_toposort(graph_t *g, char *err, size_t errlen);

int64_t tensor_numel(const tensor_t *t);  /* -1 if the shape is not fully known */
size_t tensor_nbytes(const tensor_t *t);  /* 0 if unknown */
void tensor_free_data(tensor_t *t);
/* "1x3x224x224" style text into buf. */
const char *tensor_shape_str(const tensor_t *t, char *buf, size_t len);

const attr_t *node_attr(const node_t *n, const char *name);
int64_t node_attr_int(const node_t *n, const char *name, int64_t def);
float node_attr_float(const node_t *n, const char *name, float def);
const char *node_attr_str(const node_t *n, const char *name, const char *def);
/* Returns the count and sets *v, or -1 if the attribute is absent. */
int node_attr_ints(const node_t *n, const char *name, const int64_t **v);
int node_attr_floats(const node_t *n, const char *name, const float **v);

/* ---- window attributes (window.c) ----------------------------------------
 * kernel_shape, strides, dilations, pads, auto_pad and ceil_mode of Conv,
 * ConvTranspose, the pools and their quantized forms, read and checked in one
 * place. 3-D form (D, H, W): a node's nsp spatial dims fill the last nsp
 * slots, the leading ones are unit axes with no padding. */
enum auto_pad { AUTO_PAD_NOTSET, AUTO_PAD_SAME_UPPER, AUTO_PAD_SAME_LOWER, AUTO_PAD_VALID };

typedef struct node_window {
    int nsp;                   /* spatial dims, 1..3 */
    int auto_pad;              /* enum auto_pad */
    const char *auto_pad_name; /* as written, "NOTSET" when absent */
    int ceil_mode;
    int64_t k[3], s[3], d[3];
    int64_t pb[3], pe[3];      /* pads at the begin and end of each axis */
    int64_t in[3], out[3];     /* input and output extents; all 1 when no input was given */
} node_window;

/* Reads node n's window for nsp spatial dims. kernel: the weights' spatial
 * dims, which a kernel_shape must match; NULL for the pools, where
 * kernel_shape is required. in: the input's spatial dims, or NULL. Given in,
 * auto_pad becomes explicit pads and out is the output extent (floor, or
 * ceil with ceil_mode); without it the pads are as written. Fails (status,
 * message naming the node) on a wrong length, a value out of range, an
 * unknown auto_pad or a kernel larger than the padded input. */
int node_window_read(const node_t *n, int nsp, const int64_t *kernel, const int64_t *in,
                     node_window *w, char *err, size_t errlen);

/* Input i of node n as a tensor, or NULL when absent/omitted. */
tensor_t *node_input(graph_t *g, const node_t *n, int i);
tensor_t *node_output(graph_t *g, const node_t *n, int i);

/* ---- the simulator model container (simmodel.c) ------------------------
 * Written by `rknn-trace build` (layout: docs/sim-model-format.md). A small table of
 * tagged sections: META (JSON: target, quantization, build options), ONNX (the
 * source model: graph and weights), QCFG (quantization parameters and fp16
 * layers, in the *.quantization.cfg layout of runtime/quant). model_load_file
 * recognises the magic and loads the ONNX section. */
#define SIMMODEL_MAGIC "RKTRSIM\0"
#define SIMMODEL_MAGIC_LEN 8
#define SIMMODEL_VERSION 1
#define SIMMODEL_MAX_SECTIONS 64

typedef struct simmodel_section {
    char tag[9];          /* NUL-terminated */
    const void *data;     /* into the buffer given to simmodel_parse */
    size_t len;
} simmodel_section;

typedef struct simmodel {
    int n;
    simmodel_section s[SIMMODEL_MAX_SECTIONS];
} simmodel;

/* Non-zero if buf starts with the magic. */
int simmodel_is(const void *buf, size_t len);
/* Validates the table (version, bounds, an ONNX section) and fills m with
 * pointers into buf. RT_EFORMAT with a one-line reason otherwise. */
int simmodel_parse(const void *buf, size_t len, simmodel *m, char *err, size_t errlen);
/* The section with that tag, or NULL. */
const simmodel_section *simmodel_find(const simmodel *m, const char *tag);
/* Writes a container with n sections (tags of at most 8 characters). */
int simmodel_write(const char *path, int n, const char *const *tags, const void *const *data,
                   const size_t *lens, char *err, size_t errlen);
/* The graph of a container (its ONNX section). */
int simmodel_load_graph(const void *buf, size_t len, graph_t **out, char *err, size_t errlen);
/* The string value of "key" in the META JSON (a flat object of strings and
 * numbers, as build writes it) into val; -1 if absent. */
int simmodel_meta_str(const simmodel *m, const char *key, char *val, size_t vlen);

/* The build options a runtime honours, from META (docs/sim-model-format.md):
 * per-input preprocessing (Toolkit2's mean_values / std_values / channel
 * reorder, applied to raw input data before the model) and the set of input
 * shapes (Toolkit2's dynamic_input: n_sets sets of one shape per input, in
 * graph-input order). Containers written before these keys existed have none
 * (n_inputs = n_sets = 0). */
#define SIMMODEL_MAX_SETS 512   /* RKNN_MAX_DYNAMIC_SHAPE_NUM */
#define SIMMODEL_MAX_CH 4

typedef struct simmodel_input {
    char *name;
    int n_mean, n_std, n_reorder;  /* 0: none (mean 0, std 1, channels as they are) */
    float mean[SIMMODEL_MAX_CH], std[SIMMODEL_MAX_CH];
    int reorder[SIMMODEL_MAX_CH];  /* model channel c takes input channel reorder[c] */
} simmodel_input;

typedef struct simmodel_opts {
    int n_inputs;
    simmodel_input *in;
    int n_sets, set_inputs;        /* set_inputs shapes in each set */
    int *ndim;                     /* [n_sets * set_inputs] */
    int64_t *dims;                 /* [(set * set_inputs + input) * MODEL_MAX_DIMS] */
} simmodel_opts;

/* Parses and checks the options (RT_EFORMAT with a one-line reason: META that is
 * not JSON, a shape set with another number of inputs or another rank than the
 * first, a size <= 0, a std of 0, a reorder that is no permutation, ...). */
int simmodel_opts_parse(const simmodel *m, simmodel_opts *o, char *err, size_t errlen);
void simmodel_opts_free(simmodel_opts *o);
/* Shape of input i in set s. */
const int64_t *simmodel_set_dims(const simmodel_opts *o, int s, int i);
/* Checks the options against the container's graph (prepared or not): the
 * shape sets have one shape per graph input with its rank and its fixed
 * sizes, preprocessing names graph inputs. RT_EFORMAT naming the problem. */
int simmodel_opts_check(const simmodel_opts *o, const graph_t *g, char *err, size_t errlen);

#endif
