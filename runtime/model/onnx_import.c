/* runtime/model/onnx_import.c — ONNX ModelProto (protobuf-c) into the graph IR.
 *
 * Every field read from the file is validated: a corrupt or hostile file gets
 * RT_EFORMAT with one line, never a crash or an allocation sized by the file
 * alone (tensor data is always checked against the bytes actually present). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "onnx/onnx.pb-c.h"
#include "runtime/model/model.h"
#include "util/util.h"

/* Upper bounds that no real model reaches; they keep products overflow-free. */
#define MAX_ELEMS   (INT64_C(1) << 34)
#define MAX_DIM     (INT64_C(1) << 34)
#define OPSET_MIN   7
#define OPSET_MAX   18

static const char *str_or(const char *s, const char *def)
{
    return s && *s ? s : def;
}

static int is_onnx_domain(const char *d)
{
    return !d || !*d || strcmp(d, "ai.onnx") == 0;
}

/* Copies dims into t and sets *numel. */
static int proto_dims(const Onnx__TensorProto *tp, tensor_t *t, int64_t *numel,
                      const char *what, char *err, size_t errlen)
{
    int64_t n = 1;
    size_t i;

    if (tp->n_dims > MODEL_MAX_DIMS)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "%s has %zu dims (at most %d supported)",
                      what, tp->n_dims, MODEL_MAX_DIMS);
    for (i = 0; i < tp->n_dims; i++) {
        int64_t d = tp->dims[i];

        if (d < 0 || d > MAX_DIM)
            return rt_err(err, errlen, RT_EFORMAT, "%s has an invalid dim %lld", what,
                          (long long)d);
        t->dims[i] = d;
        if (d != 0 && n > MAX_ELEMS / d)
            return rt_err(err, errlen, RT_EFORMAT, "%s is absurdly large", what);
        n *= d;
    }
    t->ndim = (int)tp->n_dims;
    *numel = n;
    return 0;
}

/* Fills dtype, shape and owned data of t from a TensorProto. `what` names the
 * tensor in messages ("initializer 'w'"). */
static int tensor_from_proto(const Onnx__TensorProto *tp, tensor_t *t, const char *what,
                             char *err, size_t errlen)
{
    int64_t n = 0, i;
    size_t es, nbytes, have;
    int ret;
    int dt = tp->has_data_type ? tp->data_type : DT_UNDEFINED;
    unsigned char *d = NULL;

    if ((tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        || tp->n_external_data > 0)
        return rt_err(err, errlen, RT_EUNSUPPORTED,
                      "%s keeps its data in an external file, which is read only when the "
                      "model is loaded from its own file, beside that data (or re-save it "
                      "with all tensors inside the .onnx file: python3 -c "
                      "\"import onnx; onnx.save(onnx.load('M.onnx'), 'M_whole.onnx')\", "
                      "for a model under 2 GB)", what);
    if (tp->segment)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "%s is a segmented tensor", what);
    es = dtype_size(dt);
    if (es == 0)
        return rt_err(err, errlen, dt == DT_UNDEFINED ? RT_EFORMAT : RT_EUNSUPPORTED,
                      "%s has %s data type %d", what,
                      dt == DT_UNDEFINED ? "no" : "unsupported", dt);
    ret = proto_dims(tp, t, &n, what, err, errlen);
    if (ret)
        return ret;
    t->dtype = dt;
    nbytes = (size_t)n * es;

    if (tp->has_raw_data && (tp->raw_data.len > 0 || n == 0)) {
        if (tp->raw_data.len != nbytes)
            return rt_err(err, errlen, RT_EFORMAT,
                          "%s: raw_data has %zu bytes, its shape needs %zu", what,
                          tp->raw_data.len, nbytes);
        d = xaligned_alloc(nbytes ? nbytes : 64);
        /* ONNX raw data is little-endian, as are the hosts we run on */
        if (nbytes)
            memcpy(d, tp->raw_data.data, nbytes);
        goto done;
    }

    switch (dt) {
    case DT_FLOAT:
        have = tp->n_float_data;
        break;
    case DT_INT32: case DT_INT16: case DT_INT8: case DT_UINT16: case DT_UINT8:
    case DT_BOOL: case DT_FLOAT16: case DT_BFLOAT16:
        have = tp->n_int32_data;
        break;
    case DT_INT64:
        have = tp->n_int64_data;
        break;
    case DT_DOUBLE:
        have = tp->n_double_data;
        break;
    case DT_UINT32: case DT_UINT64:
        have = tp->n_uint64_data;
        break;
    default:
        return rt_err(err, errlen, RT_EUNSUPPORTED, "%s has unsupported data type %d", what, dt);
    }
    if (have != (size_t)n)
        return rt_err(err, errlen, RT_EFORMAT, "%s has %zu values, its shape needs %lld", what,
                      have, (long long)n);
    d = xaligned_alloc(nbytes ? nbytes : 64);
    for (i = 0; i < n; i++) {
        switch (dt) {
        case DT_FLOAT: ((float *)d)[i] = tp->float_data[i]; break;
        case DT_INT32: ((int32_t *)d)[i] = tp->int32_data[i]; break;
        case DT_INT16: ((int16_t *)d)[i] = (int16_t)tp->int32_data[i]; break;
        case DT_INT8: ((int8_t *)d)[i] = (int8_t)tp->int32_data[i]; break;
        case DT_UINT16: case DT_FLOAT16: case DT_BFLOAT16:
            /* float16 bit patterns travel in the low 16 bits of int32_data */
            ((uint16_t *)d)[i] = (uint16_t)tp->int32_data[i];
            break;
        case DT_UINT8: ((uint8_t *)d)[i] = (uint8_t)tp->int32_data[i]; break;
        case DT_BOOL: ((uint8_t *)d)[i] = tp->int32_data[i] != 0; break;
        case DT_INT64: ((int64_t *)d)[i] = tp->int64_data[i]; break;
        case DT_DOUBLE: ((double *)d)[i] = tp->double_data[i]; break;
        case DT_UINT32: ((uint32_t *)d)[i] = (uint32_t)tp->uint64_data[i]; break;
        case DT_UINT64: ((uint64_t *)d)[i] = tp->uint64_data[i]; break;
        }
    }
done:
    free(t->data);
    t->data = d;
    return 0;
}

/* A standalone tensor_t (for ATTR_TENSOR) with owned name and data. */
static int attr_tensor(const Onnx__TensorProto *tp, const char *fallback_name, tensor_t **out,
                       const char *what, char *err, size_t errlen)
{
    tensor_t *t = xcalloc(1, sizeof(*t));
    int ret, i;

    for (i = 0; i < MODEL_MAX_DIMS; i++)
        t->dims[i] = -1;
    t->ndim = -1;
    t->kind = TK_CONST;
    t->producer = -1;
    t->name = xstrdup(str_or(tp->name, fallback_name));
    ret = tensor_from_proto(tp, t, what, err, errlen);
    if (ret) {
        free(t->name);
        free(t->data);
        free(t);
        return ret;
    }
    *out = t;
    return 0;
}

static char *bin_str(const ProtobufCBinaryData *b)
{
    char *s = xmalloc(b->len + 1);

    if (b->len)
        memcpy(s, b->data, b->len);
    s[b->len] = 0;
    return s;
}

/* IR 0.0.1 files may leave the attribute type out: guess from the field set. */
static int attr_kind(const Onnx__AttributeProto *ap)
{
    if (ap->has_type && ap->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)
        return ap->type;
    if (ap->has_f) return ATTR_FLOAT;
    if (ap->has_i) return ATTR_INT;
    if (ap->has_s) return ATTR_STRING;
    if (ap->t) return ATTR_TENSOR;
    if (ap->g) return ATTR_GRAPH;
    if (ap->n_floats) return ATTR_FLOATS;
    if (ap->n_ints) return ATTR_INTS;
    if (ap->n_strings) return ATTR_STRINGS;
    if (ap->n_graphs) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS;
    return ATTR_UNDEFINED;
}

static int attr_from_proto(const Onnx__AttributeProto *ap, attr_t *a, const char *node,
                           const char *op, char *err, size_t errlen)
{
    int kind = attr_kind(ap);
    char what[512];
    size_t i;

    if (!ap->name || !*ap->name)
        return rt_err(err, errlen, RT_EFORMAT, "node '%s' (%s) has an attribute without a name",
                      node, op);
    a->name = xstrdup(ap->name);
    if (ap->ref_attr_name && *ap->ref_attr_name)
        return rt_err(err, errlen, RT_EFORMAT,
                      "node '%s' (%s): attribute '%s' refers to a function attribute outside a "
                      "function", node, op, ap->name);
    a->type = kind;
    switch (kind) {
    case ATTR_FLOAT:
        a->f = ap->f;
        break;
    case ATTR_INT:
        a->i = ap->i;
        break;
    case ATTR_STRING:
        a->s = bin_str(&ap->s);
        break;
    case ATTR_TENSOR:
        if (!ap->t)
            return rt_err(err, errlen, RT_EFORMAT, "node '%s' (%s): tensor attribute '%s' is "
                          "empty", node, op, ap->name);
        snprintf(what, sizeof(what), "node '%s' (%s) attribute '%s'", node, op, ap->name);
        return attr_tensor(ap->t, ap->name, &a->t, what, err, errlen);
    case ATTR_FLOATS:
        if (ap->n_floats > INT32_MAX)
            return rt_err(err, errlen, RT_EFORMAT, "node '%s': attribute too long", node);
        a->n = (int)ap->n_floats;
        a->floats = xmalloc(sizeof(float) * (ap->n_floats + 1));
        for (i = 0; i < ap->n_floats; i++)
            a->floats[i] = ap->floats[i];
        break;
    case ATTR_INTS:
        if (ap->n_ints > INT32_MAX)
            return rt_err(err, errlen, RT_EFORMAT, "node '%s': attribute too long", node);
        a->n = (int)ap->n_ints;
        a->ints = xmalloc(sizeof(int64_t) * (ap->n_ints + 1));
        for (i = 0; i < ap->n_ints; i++)
            a->ints[i] = ap->ints[i];
        break;
    case ATTR_STRINGS:
        if (ap->n_strings > INT32_MAX)
            return rt_err(err, errlen, RT_EFORMAT, "node '%s': attribute too long", node);
        a->strings = xcalloc(ap->n_strings + 1, sizeof(char *));
        for (i = 0; i < ap->n_strings; i++) {
            a->strings[i] = bin_str(&ap->strings[i]);
            a->n = (int)i + 1;
        }
        break;
    case ATTR_GRAPH:
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS:
        return rt_err(err, errlen, RT_EUNSUPPORTED,
                      "node '%s' (%s) has a subgraph attribute '%s': control flow "
                      "(If/Loop/Scan) is not supported", node, op, ap->name);
    case ATTR_UNDEFINED:
        return rt_err(err, errlen, RT_EFORMAT, "node '%s' (%s): attribute '%s' has no value",
                      node, op, ap->name);
    default:
        return rt_err(err, errlen, RT_EUNSUPPORTED,
                      "node '%s' (%s): attribute '%s' has unsupported type %d", node, op,
                      ap->name, kind);
    }
    return 0;
}

/* A Constant node's value straight into the constant tensor t. */
static int constant_value(const Onnx__NodeProto *np, const char *node, tensor_t *t,
                          char *err, size_t errlen)
{
    const Onnx__AttributeProto *ap;
    char what[512];
    size_t i;
    int kind;

    if (np->n_attribute != 1 || !np->attribute[0]->name)
        return rt_err(err, errlen, RT_EFORMAT, "Constant node '%s' needs exactly one attribute",
                      node);
    ap = np->attribute[0];
    kind = attr_kind(ap);
    snprintf(what, sizeof(what), "Constant node '%s'", node);
    if (strcmp(ap->name, "value") == 0 && kind == ATTR_TENSOR && ap->t)
        return tensor_from_proto(ap->t, t, what, err, errlen);
    if (strcmp(ap->name, "value_float") == 0 && kind == ATTR_FLOAT) {
        t->dtype = DT_FLOAT;
        t->ndim = 0;
        t->data = xaligned_alloc(sizeof(float));
        *(float *)t->data = ap->f;
        return 0;
    }
    if (strcmp(ap->name, "value_int") == 0 && kind == ATTR_INT) {
        t->dtype = DT_INT64;
        t->ndim = 0;
        t->data = xaligned_alloc(sizeof(int64_t));
        *(int64_t *)t->data = ap->i;
        return 0;
    }
    if (strcmp(ap->name, "value_floats") == 0 && kind == ATTR_FLOATS) {
        t->dtype = DT_FLOAT;
        t->ndim = 1;
        t->dims[0] = (int64_t)ap->n_floats;
        t->data = xaligned_alloc(sizeof(float) * (ap->n_floats + 1));
        for (i = 0; i < ap->n_floats; i++)
            ((float *)t->data)[i] = ap->floats[i];
        return 0;
    }
    if (strcmp(ap->name, "value_ints") == 0 && kind == ATTR_INTS) {
        t->dtype = DT_INT64;
        t->ndim = 1;
        t->dims[0] = (int64_t)ap->n_ints;
        t->data = xaligned_alloc(sizeof(int64_t) * (ap->n_ints + 1));
        for (i = 0; i < ap->n_ints; i++)
            ((int64_t *)t->data)[i] = ap->ints[i];
        return 0;
    }
    if (strcmp(ap->name, "sparse_value") == 0 || strncmp(ap->name, "value_string", 12) == 0)
        return rt_err(err, errlen, RT_EUNSUPPORTED,
                      "Constant node '%s': attribute '%s' is not supported", node, ap->name);
    return rt_err(err, errlen, RT_EFORMAT, "Constant node '%s' has a bad attribute '%s'", node,
                  ap->name);
}

/* Names inside an inlined If branch live in the graph as "<if node>/<name>";
 * a branch may also use any name of the scopes around it. The top scope's
 * prefix is "". */
typedef struct scope {
    const char *prefix;
    const struct scope *up;
} scope;

static char *scoped(const scope *sc, const char *name)
{
    size_t a = strlen(sc->prefix), b = strlen(name);
    char *v = xmalloc(a + b + 1);
    memcpy(v, sc->prefix, a);
    memcpy(v + a, name, b + 1);
    return v;
}

/* A tensor of this scope, else of the scopes around it; -1 if none. */
static int resolve(const graph_t *g, const scope *sc, const char *name)
{
    for (; sc; sc = sc->up) {
        char *full = scoped(sc, name);
        int idx = graph_find_tensor(g, full);
        free(full);
        if (idx >= 0)
            return idx;
    }
    return -1;
}

static int add_initializer(graph_t *g, const scope *sc, const Onnx__TensorProto *tp, int k,
                           char *err, size_t errlen)
{
    char what[512], *full;
    int idx;

    if (!tp->name || !*tp->name)
        return rt_err(err, errlen, RT_EFORMAT, "initializer %d has no name", k);
    full = scoped(sc, tp->name);
    idx = graph_find_tensor(g, full) >= 0 ? -1 : graph_add_tensor(g, full);
    free(full);
    if (idx < 0)
        return rt_err(err, errlen, RT_EFORMAT, "initializer '%s' is defined twice", tp->name);
    g->t[idx].kind = TK_CONST;
    snprintf(what, sizeof(what), "initializer '%.400s'", tp->name);
    return tensor_from_proto(tp, &g->t[idx], what, err, errlen);
}

static int add_input(graph_t *g, const Onnx__ValueInfoProto *vi, int k, char *err,
                     size_t errlen)
{
    const Onnx__TypeProto__Tensor *tt;
    tensor_t *t;
    int idx;
    size_t i;

    if (!vi->name || !*vi->name)
        return rt_err(err, errlen, RT_EFORMAT, "graph input %d has no name", k);
    idx = graph_find_tensor(g, vi->name);
    if (idx >= 0) {
        /* old exporters list initializers as inputs too: they stay constants */
        if (g->t[idx].kind == TK_CONST)
            return 0;
        return rt_err(err, errlen, RT_EFORMAT, "graph input '%s' is listed twice", vi->name);
    }
    if (!vi->type)
        return rt_err(err, errlen, RT_EFORMAT, "graph input '%s' has no type", vi->name);
    if (vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !vi->type->tensor_type)
        return rt_err(err, errlen, RT_EUNSUPPORTED,
                      "graph input '%s' is not a tensor (sequences, maps and optionals are "
                      "not supported)", vi->name);
    tt = vi->type->tensor_type;
    idx = graph_add_tensor(g, vi->name);
    t = &g->t[idx];
    t->kind = TK_INPUT;
    t->dtype = tt->has_elem_type ? tt->elem_type : DT_UNDEFINED;
    if (tt->shape) {
        if (tt->shape->n_dim > MODEL_MAX_DIMS)
            return rt_err(err, errlen, RT_EUNSUPPORTED,
                          "graph input '%s' has %zu dims (at most %d supported)", vi->name,
                          tt->shape->n_dim, MODEL_MAX_DIMS);
        t->ndim = (int)tt->shape->n_dim;
        for (i = 0; i < tt->shape->n_dim; i++) {
            const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];

            t->dims[i] = -1;
            if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
                if (d->dim_value > MAX_DIM)
                    return rt_err(err, errlen, RT_EFORMAT,
                                  "graph input '%s' has an absurd dim %lld", vi->name,
                                  (long long)d->dim_value);
                /* some exporters write -1 for a dynamic dim */
                if (d->dim_value >= 0)
                    t->dims[i] = d->dim_value;
            } else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                       d->dim_param && *d->dim_param) {
                t->dim_param[i] = xstrdup(d->dim_param);
            }
        }
    }
    g->inputs = xrealloc(g->inputs, sizeof(int) * (size_t)(g->n_inputs + 1));
    g->inputs[g->n_inputs++] = idx;
    return 0;
}

/* Pass 1 for one node: create its output tensors (a Constant becomes its value). */
static int node_outputs(graph_t *g, const scope *sc, const Onnx__NodeProto *np, const char *name,
                        int *is_const, char *err, size_t errlen)
{
    size_t j;

    *is_const = is_onnx_domain(np->domain) && strcmp(np->op_type, "Constant") == 0;
    if (*is_const && np->n_output != 1)
        return rt_err(err, errlen, RT_EFORMAT, "Constant node '%s' needs one output", name);
    for (j = 0; j < np->n_output; j++) {
        const char *o = np->output[j];
        int idx;

        if (!o || !*o)
            continue; /* omitted optional output */
        char *full = scoped(sc, o);
        idx = graph_find_tensor(g, full) >= 0 ? -1 : graph_add_tensor(g, full);
        free(full);
        if (idx < 0)
            return rt_err(err, errlen, RT_EFORMAT,
                          "node '%s' (%s): output '%s' is already defined elsewhere", name,
                          np->op_type, o);
        if (*is_const) {
            g->t[idx].kind = TK_CONST;
            return constant_value(np, name, &g->t[idx], err, errlen);
        }
    }
    if (*is_const)
        return rt_err(err, errlen, RT_EFORMAT, "Constant node '%s' has no output name", name);
    return 0;
}

static int inline_if(graph_t *g, const scope *sc, const Onnx__NodeProto *np, const char *name,
                     char *err, size_t errlen);

/* Pass 2 for one node: resolve inputs, add the node, convert its attributes. */
static int node_build(graph_t *g, const scope *sc, const Onnx__NodeProto *np, const char *name,
                      char *err, size_t errlen)
{
    int *in = xmalloc(sizeof(int) * (np->n_input + 1));
    int *out = xmalloc(sizeof(int) * (np->n_output + 1));
    const char *dom = is_onnx_domain(np->domain) ? "" : np->domain;
    int ret = 0, idx;
    size_t j;
    node_t *n;

    if (np->n_input > 4096 || np->n_output > 4096 || np->n_attribute > 4096) {
        ret = rt_err(err, errlen, RT_EFORMAT, "node '%s' has too many inputs/outputs", name);
        goto out;
    }
    if (!*dom && strcmp(np->op_type, "If") == 0) {
        ret = inline_if(g, sc, np, name, err, errlen);
        goto out;
    }
    for (j = 0; j < np->n_input; j++) {
        const char *s = np->input[j];

        in[j] = -1;
        if (!s || !*s)
            continue;
        in[j] = resolve(g, sc, s);
        if (in[j] < 0) {
            ret = rt_err(err, errlen, RT_EFORMAT,
                         "node '%s' (%s): input '%s' is not produced by any node, initializer "
                         "or graph input", name, np->op_type, s);
            goto out;
        }
    }
    for (j = 0; j < np->n_output; j++)
        out[j] = np->output[j] && *np->output[j] ? resolve(g, sc, np->output[j]) : -1;
    char *full = scoped(sc, name);
    idx = graph_add_node(g, full, np->op_type, dom, (int)np->n_input, in, (int)np->n_output, out);
    free(full);
    n = &g->nodes[idx];
    n->attrs = xcalloc(np->n_attribute + 1, sizeof(attr_t));
    for (j = 0; j < np->n_attribute; j++) {
        n->n_attr = (int)j + 1;
        ret = attr_from_proto(np->attribute[j], &n->attrs[j], n->name, n->op, err, errlen);
        if (ret)
            goto out;
    }
out:
    free(in);
    free(out);
    return ret;
}

static int add_initializers(graph_t *g, const scope *sc, const Onnx__GraphProto *gp, char *err,
                            size_t errlen)
{
    int ret = 0;
    if (gp->n_sparse_initializer)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "sparse initializers are not supported");
    for (size_t k = 0; k < gp->n_initializer && !ret; k++)
        ret = add_initializer(g, sc, gp->initializer[k], (int)k, err, errlen);
    return ret;
}

/* The nodes of a graph or of an inlined If branch: pass 1 creates every
 * node's outputs (so that nodes may come in any order), pass 2 adds the nodes. */
static int build_nodes(graph_t *g, const scope *sc, const Onnx__GraphProto *gp, char *err,
                       size_t errlen)
{
    char **names = NULL;
    int *is_const = NULL;
    int ret = 0;
    size_t k;
    char tmp[96];

    names = xcalloc(gp->n_node + 1, sizeof(char *));
    is_const = xcalloc(gp->n_node + 1, sizeof(int));
    for (k = 0; k < gp->n_node; k++) {
        const Onnx__NodeProto *np = gp->node[k];

        if (!np->op_type || !*np->op_type) {
            ret = rt_err(err, errlen, RT_EFORMAT, "node %zu has no op_type", k);
            goto out;
        }
        if (np->name && *np->name) {
            names[k] = xstrdup(np->name);
        } else {
            snprintf(tmp, sizeof(tmp), "%.64s_%zu", np->op_type, k);
            names[k] = xstrdup(tmp);
        }
        ret = node_outputs(g, sc, np, names[k], &is_const[k], err, errlen);
        if (ret)
            goto out;
    }
    for (k = 0; k < gp->n_node; k++) {
        if (is_const[k])
            continue;
        ret = node_build(g, sc, gp->node[k], names[k], err, errlen);
        if (ret)
            goto out;
    }
out:
    for (k = 0; names && k < gp->n_node; k++)
        free(names[k]);
    free(names);
    free(is_const);
    return ret;
}

/* An If whose condition is a constant (an initializer or a Constant node, as
 * exporters leave behind for a Python `if` on a shape) is replaced by the
 * branch it takes: the branch's nodes join the graph under "<if node>/", and an
 * Identity per output connects the branch's result to the If's output. A
 * condition computed at run time is control flow, which we do not execute. */
static int inline_if(graph_t *g, const scope *sc, const Onnx__NodeProto *np, const char *name,
                     char *err, size_t errlen)
{
    const Onnx__GraphProto *then_g = NULL, *else_g = NULL, *br;
    int ret = 0;
    size_t j;

    for (j = 0; j < np->n_attribute; j++) {
        const Onnx__AttributeProto *ap = np->attribute[j];
        if (ap->name && !strcmp(ap->name, "then_branch"))
            then_g = ap->g;
        else if (ap->name && !strcmp(ap->name, "else_branch"))
            else_g = ap->g;
    }
    if (!then_g || !else_g || np->n_input != 1 || !np->input[0])
        return rt_err(err, errlen, RT_EFORMAT,
                      "node '%s' (If) needs one condition and both then_branch and else_branch", name);
    int c = resolve(g, sc, np->input[0]);
    const tensor_t *cond = c >= 0 ? &g->t[c] : NULL;
    if (!cond || cond->kind != TK_CONST || !cond->data || tensor_numel(cond) != 1 ||
        (cond->dtype != DT_BOOL && cond->dtype != DT_UINT8))
        return rt_err(err, errlen, RT_EUNSUPPORTED,
                      "node '%s' (If): its condition '%s' is computed at run time; control flow is "
                      "not supported, only an If whose condition is a constant (fold the model, "
                      "e.g. with onnx-simplifier)", name, np->input[0]);
    br = *(const uint8_t *)cond->data ? then_g : else_g;
    if (br->n_output != np->n_output)
        return rt_err(err, errlen, RT_EFORMAT, "node '%s' (If): the branch has %zu outputs, the node %zu",
                      name, br->n_output, np->n_output);

    char *prefix = xmalloc(strlen(sc->prefix) + strlen(name) + 2);
    sprintf(prefix, "%s%s/", sc->prefix, name);
    scope inner = {prefix, sc};
    ret = add_initializers(g, &inner, br, err, errlen);
    if (!ret)
        ret = build_nodes(g, &inner, br, err, errlen);
    for (j = 0; !ret && j < np->n_output; j++) {
        const char *bo = br->output[j]->name;
        int src = bo ? resolve(g, &inner, bo) : -1;
        int dst = np->output[j] && *np->output[j] ? resolve(g, sc, np->output[j]) : -1;
        char nn[600];
        if (src < 0) {
            ret = rt_err(err, errlen, RT_EFORMAT, "node '%s' (If): branch output '%s' is not produced",
                         name, bo ? bo : "(no name)");
            break;
        }
        if (dst < 0)
            continue; /* omitted output */
        snprintf(nn, sizeof nn, "%s%.500s/output_%zu", sc->prefix, name, j);
        graph_add_node(g, nn, "Identity", "", 1, &src, 1, &dst);
        g->nodes[g->n_nodes - 1].attrs = xcalloc(1, sizeof(attr_t));
    }
    free(prefix);
    return ret;
}

static int build_graph(graph_t *g, const Onnx__ModelProto *m, char *err, size_t errlen)
{
    const Onnx__GraphProto *gp = m->graph;
    const scope top = {"", NULL};
    int ret = 0;
    size_t k;

    if ((ret = add_initializers(g, &top, gp, err, errlen)))
        return ret;
    for (k = 0; k < gp->n_input; k++) {
        ret = add_input(g, gp->input[k], (int)k, err, errlen);
        if (ret)
            return ret;
    }
    ret = build_nodes(g, &top, gp, err, errlen);
    if (ret)
        return ret;
    for (k = 0; k < gp->n_output; k++) {
        const char *o = gp->output[k]->name;
        int idx = graph_find_tensor(g, o);

        if (idx < 0)
            return rt_err(err, errlen, RT_EFORMAT,
                          "graph output '%s' is not produced by any node", str_or(o, "(no name)"));
        g->t[idx].is_output = 1;
        g->outputs = xrealloc(g->outputs, sizeof(int) * (size_t)(g->n_outputs + 1));
        g->outputs[g->n_outputs++] = idx;
    }
    return graph_toposort(g, err, errlen);
}

/* ---- nesting guard ---------------------------------------------------------
 * protobuf-c unpacks nested messages recursively, so a small file nesting
 * TypeProto or subgraphs a hundred thousand levels deep overflows the stack.
 * Before unpacking, walk the wire format along the schema's recursive paths
 * and refuse absurd depth. Malformed bytes are left to protobuf-c to report. */

enum pb_msg { PB_NONE, PB_MODEL, PB_GRAPH, PB_NODE, PB_ATTR, PB_FUNCTION, PB_TRAINING,
              PB_VALUEINFO, PB_TYPE, PB_TYPE_SEQ, PB_TYPE_MAP, PB_TYPE_OPT };

#define PB_MAX_DEPTH 100

/* The message type of field `field` of a `msg`, when it can lead to recursion. */
static int pb_child(int msg, uint64_t field)
{
    switch (msg) {
    case PB_MODEL:
        return field == 7 ? PB_GRAPH : field == 25 ? PB_FUNCTION : field == 20 ? PB_TRAINING
             : PB_NONE;
    case PB_TRAINING:
        return field == 1 || field == 2 ? PB_GRAPH : PB_NONE;
    case PB_GRAPH:
        return field == 1 ? PB_NODE : field >= 11 && field <= 13 ? PB_VALUEINFO : PB_NONE;
    case PB_FUNCTION:
        return field == 7 ? PB_NODE : PB_NONE;
    case PB_NODE:
        return field == 5 ? PB_ATTR : PB_NONE;
    case PB_ATTR:
        return field == 6 || field == 11 ? PB_GRAPH : field == 14 || field == 15 ? PB_TYPE
             : PB_NONE;
    case PB_VALUEINFO:
        return field == 2 ? PB_TYPE : PB_NONE;
    case PB_TYPE:
        return field == 4 ? PB_TYPE_SEQ : field == 5 ? PB_TYPE_MAP : field == 9 ? PB_TYPE_OPT
             : PB_NONE;
    case PB_TYPE_SEQ:
    case PB_TYPE_OPT:
        return field == 1 ? PB_TYPE : PB_NONE;
    case PB_TYPE_MAP:
        return field == 2 ? PB_TYPE : PB_NONE;
    default:
        return PB_NONE;
    }
}

static int pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    int shift = 0;

    *v = 0;
    while (*p < end && shift < 64) {
        uint8_t b = *(*p)++;

        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 0;
        shift += 7;
    }
    return -1;
}

/* Returns the nesting depth reached below this message, capped at PB_MAX_DEPTH + 1. */
static int pb_depth(const uint8_t *p, const uint8_t *end, int msg, int depth)
{
    int max = depth;

    if (depth > PB_MAX_DEPTH)
        return depth;
    while (p < end) {
        uint64_t key, v;
        int child, d;

        if (pb_varint(&p, end, &key))
            break;
        switch (key & 7) {
        case 0:
            if (pb_varint(&p, end, &v))
                return max;
            break;
        case 1:
            if (end - p < 8)
                return max;
            p += 8;
            break;
        case 5:
            if (end - p < 4)
                return max;
            p += 4;
            break;
        case 2:
            if (pb_varint(&p, end, &v) || v > (uint64_t)(end - p))
                return max;
            child = pb_child(msg, key >> 3);
            if (child != PB_NONE) {
                d = pb_depth(p, p + v, child, depth + 1);
                if (d > max)
                    max = d;
                if (max > PB_MAX_DEPTH)
                    return max;
            }
            p += v;
            break;
        default:
            return max; /* groups or garbage: protobuf-c decides */
        }
    }
    return max;
}

/* ---- external data (onnx's save_as_external_data) ----
 * A tensor's bytes in a file beside the model, named by the keys location
 * (relative to the model's folder), offset and length: exporters write them
 * for models near protobuf's 2 GB limit. They are read into raw_data before
 * the graph is built, so the rest of the import sees one self-contained
 * model. The file must stay inside the model's folder after symbolic links
 * are resolved (the ONNX checker's rule: no absolute location, no way out),
 * be a regular file, and hold the bytes the tensor's shape needs. */
static const char *ext_value(const Onnx__TensorProto *tp, const char *key)
{
    for (size_t i = 0; i < tp->n_external_data; i++)
        if (tp->external_data[i]->key && !strcmp(tp->external_data[i]->key, key))
            return tp->external_data[i]->value ? tp->external_data[i]->value : "";
    return NULL;
}

/* A decimal count (offset, length): 0 .. 2^62. */
static int ext_count(const char *v, int64_t *n)
{
    int64_t r = 0;
    if (!v || !*v)
        return -1;
    for (; *v; v++) {
        if (*v < '0' || *v > '9' || r > (INT64_C(1) << 58))
            return -1;
        r = r * 10 + (*v - '0');
    }
    *n = r;
    return 0;
}

/* The external file of location in dir, resolved, or NULL with err and *rc
 * set. */
static char *ext_path(const char *dir, const char *loc, const char *what, int *rc, char *err,
                      size_t errlen)
{
    char *rdir = realpath(dir, NULL), *full, *rp = NULL;
    size_t n, a;
    int bad = !*loc || loc[0] == '/';
    for (const char *c = loc; !bad && *c; c = strchr(c, '/') ? strchr(c, '/') + 1 : c + strlen(c))
        bad = !strncmp(c, "..", 2) && (c[2] == '/' || !c[2]);
    if (bad) {
        *rc = rt_err(err, errlen, RT_EFORMAT,
                     "%s: external data location '%.200s' is not a path inside the model's "
                     "folder", what, loc);
        free(rdir);
        return NULL;
    }
    if (!rdir) {
        *rc = rt_err(err, errlen, RT_EIO, "%s: the model's folder %.200s: %s", what, dir,
                     strerror(errno));
        return NULL;
    }
    n = strlen(rdir) + strlen(loc) + 2;
    full = xmalloc(n);
    snprintf(full, n, "%s/%s", rdir, loc);
    rp = realpath(full, NULL);
    a = strlen(rdir);
    if (!rp)
        *rc = rt_err(err, errlen, RT_EIO, "%s: external data file %.200s: %s", what, loc,
                     strerror(errno));
    else if (strncmp(rp, rdir, a) || (rp[a] != '/' && strcmp(rdir, "/"))) {
        *rc = rt_err(err, errlen, RT_EFORMAT,
                     "%s: external data file %.200s leads out of the model's folder", what, loc);
        free(rp);
        rp = NULL;
    }
    free(full);
    free(rdir);
    return rp;
}

static void ext_clear(Onnx__TensorProto *tp)
{
    for (size_t i = 0; i < tp->n_external_data; i++)
        onnx__string_string_entry_proto__free_unpacked(tp->external_data[i], NULL);
    free(tp->external_data);
    tp->external_data = NULL;
    tp->n_external_data = 0;
    tp->has_data_location = 0;
    tp->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT;
}

static int ext_read(Onnx__TensorProto *tp, const char *dir, const char *what, char *err,
                    size_t errlen)
{
    const char *loc = ext_value(tp, "location"), *v;
    int64_t off = 0, len = -1, numel;
    tensor_t shape = {0};
    int dt = tp->has_data_type ? tp->data_type : DT_UNDEFINED, ret;
    size_t es = dtype_size(dt);
    struct stat st;
    char *path;
    FILE *f;

    if (!loc)
        return rt_err(err, errlen, RT_EFORMAT, "%s: external data without a location", what);
    if (((v = ext_value(tp, "offset")) && ext_count(v, &off)) ||
        ((v = ext_value(tp, "length")) && ext_count(v, &len)))
        return rt_err(err, errlen, RT_EFORMAT, "%s: external data offset or length '%.40s' "
                      "is not a count", what, v);
    if (es == 0 || dt == DT_STRING)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "%s has %s data type %d", what,
                      dt == DT_UNDEFINED ? "no" : "unsupported", dt);
    if ((ret = proto_dims(tp, &shape, &numel, what, err, errlen)))
        return ret;
    if (numel > (INT64_MAX >> 4) / (int64_t)es)
        return rt_err(err, errlen, RT_EFORMAT, "%s is absurdly large", what);
    int64_t need = numel * (int64_t)es;
    if (len >= 0 && len != need)
        return rt_err(err, errlen, RT_EFORMAT, "%s: external data length %lld, its shape "
                      "needs %lld bytes", what, (long long)len, (long long)need);
    if (tp->has_raw_data && tp->raw_data.len)
        return rt_err(err, errlen, RT_EFORMAT, "%s has both raw and external data", what);
    if (!(path = ext_path(dir, loc, what, &ret, err, errlen)))
        return ret;
    f = fopen(path, "rb");
    ret = 0;
    if (!f || fstat(fileno(f), &st))
        ret = rt_err(err, errlen, RT_EIO, "%s: external data file %.200s: %s", what, loc,
                     strerror(errno));
    else if (!S_ISREG(st.st_mode))
        ret = rt_err(err, errlen, RT_EIO, "%s: external data file %.200s is not a regular file",
                     what, loc);
    else if (off > (int64_t)st.st_size || need > (int64_t)st.st_size - off)
        ret = rt_err(err, errlen, RT_EFORMAT,
                     "%s: external data file %.200s has %lld bytes, the tensor needs %lld at "
                     "offset %lld", what, loc, (long long)st.st_size, (long long)need,
                     (long long)off);
    if (!ret) {
        unsigned char *d = malloc(need ? (size_t)need : 1);
        if (!d)
            ret = rt_err(err, errlen, RT_ENOMEM, "%s: no memory for %lld bytes", what,
                         (long long)need);
        else if (fseeko(f, (off_t)off, SEEK_SET) || fread(d, 1, (size_t)need, f) != (size_t)need) {
            free(d);
            ret = rt_err(err, errlen, RT_EIO, "%s: reading external data file %.200s failed",
                         what, loc);
        } else {
            free(tp->raw_data.data);
            tp->raw_data.data = d;
            tp->raw_data.len = (size_t)need;
            tp->has_raw_data = 1;
            ext_clear(tp);
        }
    }
    if (f)
        fclose(f);
    free(path);
    return ret;
}

static int is_ext(const Onnx__TensorProto *tp)
{
    return tp && ((tp->has_data_location &&
                   tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) ||
                  tp->n_external_data > 0);
}

/* Tensor tp's external data read in (*nread counts those read). */
static int ext_tensor(Onnx__TensorProto *tp, const char *dir, const char *what, int *nread,
                      char *err, size_t errlen)
{
    if (!is_ext(tp))
        return 0;
    ++*nread;
    char w[512];
    snprintf(w, sizeof w, "%s '%.400s'", what, str_or(tp->name, "?"));
    return ext_read(tp, dir, w, err, errlen);
}

/* Every tensor of graph gp with external data, its nodes' attribute tensors
 * and subgraphs included (nesting bounded by pb_depth before unpacking). */
static int ext_graph(Onnx__GraphProto *gp, const char *dir, int *nread, char *err,
                     size_t errlen)
{
    int ret = 0;
    for (size_t i = 0; gp && !ret && i < gp->n_initializer; i++)
        ret = ext_tensor(gp->initializer[i], dir, "initializer", nread, err, errlen);
    for (size_t i = 0; gp && !ret && i < gp->n_node; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        for (size_t k = 0; !ret && k < np->n_attribute; k++) {
            Onnx__AttributeProto *ap = np->attribute[k];
            ret = ext_tensor(ap->t, dir, "attribute tensor", nread, err, errlen);
            for (size_t m = 0; !ret && m < ap->n_tensors; m++)
                ret = ext_tensor(ap->tensors[m], dir, "attribute tensor", nread, err,
                                 errlen);
            if (!ret && ap->g)
                ret = ext_graph(ap->g, dir, nread, err, errlen);
            for (size_t m = 0; !ret && m < ap->n_graphs; m++)
                ret = ext_graph(ap->graphs[m], dir, nread, err, errlen);
        }
    }
    return ret;
}

int model_load_onnx(const void *buf, size_t len, graph_t **out, char *err, size_t errlen)
{
    return model_load_onnx_dir(buf, len, NULL, out, err, errlen);
}

int model_onnx_inline(const void *buf, size_t len, const char *dir, void **out, size_t *out_len,
                      char *err, size_t errlen)
{
    Onnx__ModelProto *m;
    int ret = 0, nread = 0;

    *out = NULL;
    *out_len = 0;
    if (!buf || !len || pb_depth(buf, (const uint8_t *)buf + len, PB_MODEL, 0) > PB_MAX_DEPTH ||
        !(m = onnx__model_proto__unpack(NULL, len, buf)))
        return 0; /* not a model this can read: the loader says why */
    /* serialized again only when a tensor's data was read in */
    if (m->graph && !(ret = ext_graph(m->graph, dir, &nread, err, errlen)) && nread) {
        *out_len = onnx__model_proto__get_packed_size(m);
        *out = xmalloc(*out_len ? *out_len : 1);
        onnx__model_proto__pack(m, *out);
    }
    onnx__model_proto__free_unpacked(m, NULL);
    return ret;
}

int model_load_onnx_dir(const void *buf, size_t len, const char *dir, graph_t **out, char *err,
                        size_t errlen)
{
    Onnx__ModelProto *m = NULL;
    graph_t *g = NULL;
    int ret = 0;
    size_t k;
    int have_opset = 0, nread = 0; /* nread: tensors read from external data */

    *out = NULL;
    if (!buf || len == 0)
        return rt_err(err, errlen, RT_EFORMAT, "not an ONNX model (empty file)");
    if (pb_depth(buf, (const uint8_t *)buf + len, PB_MODEL, 0) > PB_MAX_DEPTH)
        return rt_err(err, errlen, RT_EFORMAT,
                      "not a usable ONNX model (messages nested more than %d levels deep)",
                      PB_MAX_DEPTH);
    m = onnx__model_proto__unpack(NULL, len, buf);
    if (!m)
        return rt_err(err, errlen, RT_EFORMAT,
                      "not an ONNX model (protobuf decoding failed: corrupt or truncated)");
    if (!m->graph) {
        ret = rt_err(err, errlen, RT_EFORMAT, "not an ONNX model (no graph in the file)");
        goto out;
    }
    if (dir && (ret = ext_graph(m->graph, dir, &nread, err, errlen)))
        goto out;
    g = graph_new();
    for (k = 0; k < m->n_opset_import; k++) {
        const Onnx__OperatorSetIdProto *os = m->opset_import[k];

        if (is_onnx_domain(os->domain) && os->has_version) {
            g->opset = os->version;
            have_opset = 1;
        }
    }
    /* IR version 1/2 files predate opset_import and mean opset 1 */
    if (!have_opset)
        g->opset = 1;
    if (g->opset < 1 || g->opset > 10000) {
        ret = rt_err(err, errlen, RT_EFORMAT, "invalid ONNX opset %lld", (long long)g->opset);
        goto out;
    }
    /* Kernels implement opsets 7..18. Older ones differ in ways that would give silently
     * wrong results (pre-numpy broadcast attributes, Reshape's shape attribute). */
    if (g->opset < OPSET_MIN || g->opset > OPSET_MAX) {
        ret = rt_err(err, errlen, RT_EUNSUPPORTED,
                     "ONNX opset %lld is not supported (%d..%d); convert the model with "
                     "onnx.version_converter", (long long)g->opset, OPSET_MIN, OPSET_MAX);
        goto out;
    }
    free(g->producer);
    if (m->producer_name && *m->producer_name) {
        size_t n = strlen(m->producer_name) + strlen(str_or(m->producer_version, "")) + 2;

        g->producer = xmalloc(n);
        snprintf(g->producer, n, "%s%s%s", m->producer_name,
                 m->producer_version && *m->producer_version ? " " : "",
                 str_or(m->producer_version, ""));
    } else {
        g->producer = xstrdup("");
    }
    ret = build_graph(g, m, err, errlen);
out:
    if (m)
        onnx__model_proto__free_unpacked(m, NULL);
    if (ret) {
        graph_free(g);
        return ret;
    }
    *out = g;
    return 0;
}

int model_load_tensor_pb(const void *buf, size_t len, tensor_t *out, char *err, size_t errlen)
{
    Onnx__TensorProto *tp;
    int ret, i;
    char what[512];

    memset(out, 0, sizeof(*out));
    out->ndim = -1;
    for (i = 0; i < MODEL_MAX_DIMS; i++)
        out->dims[i] = -1;
    out->kind = TK_CONST;
    out->producer = -1;
    tp = onnx__tensor_proto__unpack(NULL, len, buf);
    if (!tp)
        return rt_err(err, errlen, RT_EFORMAT, "not a serialized ONNX TensorProto");
    snprintf(what, sizeof(what), "tensor '%.400s'", str_or(tp->name, "(unnamed)"));
    ret = tensor_from_proto(tp, out, what, err, errlen);
    if (ret == 0)
        out->name = xstrdup(tp->name ? tp->name : "");
    onnx__tensor_proto__free_unpacked(tp, NULL);
    return ret;
}
