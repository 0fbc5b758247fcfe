/* tests/unit/test_model.c — graph IR, ONNX importer, format detection, passes.
 *
 * Oracles: the facts of the bundled real models listed in shared/data/README.md
 * (node, initializer and op counts, input/output names and shapes) and the well-
 * known MNIST weights' shapes; small models built here with protobuf-c whose
 * every value is written by hand; broken files must fail cleanly. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "onnx/onnx.pb-c.h"
#include "runtime/model/model.h"
#include "runtime/passes/passes.h"
#include "runtime/exec/exec.h"
#include "util/util.h"
#include "tests/test.h"

static char path_buf[1024];

static const char *shared_path(const char *rel)
{
    const char *root = getenv("RT_SHARED");

    snprintf(path_buf, sizeof(path_buf), "%s/%s", root && *root ? root : "../shared", rel);
    return path_buf;
}

static int count_kind(const graph_t *g, int kind)
{
    int i, n = 0;

    for (i = 0; i < g->n_t; i++)
        n += g->t[i].kind == kind;
    return n;
}

static int count_op(const graph_t *g, const char *op)
{
    int i, n = 0;

    for (i = 0; i < g->n_nodes; i++)
        n += strcmp(g->nodes[i].op, op) == 0;
    return n;
}

static const tensor_t *find(const graph_t *g, const char *name)
{
    int i = graph_find_tensor(g, name);

    return i < 0 ? NULL : &g->t[i];
}

/* Every node input is produced earlier (or is a constant/input). */
static int is_topo_sorted(const graph_t *g)
{
    int i, j;

    for (i = 0; i < g->n_nodes; i++)
        for (j = 0; j < g->nodes[i].n_in; j++) {
            int t = g->nodes[i].in[j];

            if (t >= 0 && g->t[t].kind == TK_ACT && g->t[t].producer >= i)
                return 0;
        }
    return 1;
}

/* ---- graph API ---------------------------------------------------------- */

static void test_graph_api(void)
{
    graph_t *g = graph_new();
    char name[32], err[256], sh[64];
    int i, ok = 1, a, b, c, in1[1], out1[1];
    tensor_t t;

    for (i = 0; i < 5000; i++) {
        snprintf(name, sizeof(name), "tensor_%d", i);
        if (graph_add_tensor(g, name) != i)
            ok = 0;
    }
    CHECK(ok && g->n_t == 5000, "adding 5000 tensors");
    for (i = 0, ok = 1; i < 5000; i++) {
        snprintf(name, sizeof(name), "tensor_%d", i);
        if (graph_find_tensor(g, name) != i)
            ok = 0;
    }
    CHECK(ok, "every name found at its index");
    CHECK(graph_find_tensor(g, "tensor_5000") == -1, "absent name");
    CHECK(graph_find_tensor(g, "") == -1, "empty name");
    CHECK(graph_add_tensor(g, "tensor_42") == 42, "adding an existing name returns it");
    CHECK(g->t[7].ndim == -1 && g->t[7].producer == -1 && g->t[7].kind == TK_ACT,
          "new tensor defaults");
    graph_free(g);

    /* a chain written backwards: c = f(b), b = f(a) */
    g = graph_new();
    a = graph_add_tensor(g, "a");
    b = graph_add_tensor(g, "b");
    c = graph_add_tensor(g, "c");
    g->t[a].kind = TK_INPUT;
    in1[0] = b; out1[0] = c;
    graph_add_node(g, "second", "Relu", "", 1, in1, 1, out1);
    in1[0] = a; out1[0] = b;
    graph_add_node(g, NULL, "Relu", "", 1, in1, 1, out1);
    CHECK(strcmp(g->nodes[1].name, "Relu_1") == 0, "invented name %s", g->nodes[1].name);
    CHECK(graph_toposort(g, err, sizeof(err)) == 0, "toposort: %s", err);
    CHECK(strcmp(g->nodes[0].name, "Relu_1") == 0 && strcmp(g->nodes[1].name, "second") == 0,
          "order after sort");
    CHECK(g->t[c].producer == 1 && g->t[b].producer == 0, "producers updated");
    /* close a cycle: a is now produced by 'second''s consumer */
    g->t[a].kind = TK_ACT;
    in1[0] = c; out1[0] = a;
    graph_add_node(g, "back", "Relu", "", 1, in1, 1, out1);
    CHECK(graph_toposort(g, err, sizeof(err)) == RT_EFORMAT && strstr(err, "cycle"),
          "cycle detected: %s", err);
    graph_free(g);

    /* dangling input */
    g = graph_new();
    a = graph_add_tensor(g, "nowhere");
    b = graph_add_tensor(g, "y");
    in1[0] = a; out1[0] = b;
    graph_add_node(g, "n0", "Relu", "", 1, in1, 1, out1);
    CHECK(graph_toposort(g, err, sizeof(err)) == RT_EFORMAT && strstr(err, "'nowhere'") &&
          strstr(err, "'n0'"), "dangling input: %s", err);
    graph_free(g);

    memset(&t, 0, sizeof(t));
    t.dtype = DT_FLOAT;
    t.ndim = 4;
    t.dims[0] = 1; t.dims[1] = 3; t.dims[2] = 224; t.dims[3] = 224;
    CHECK(tensor_numel(&t) == 150528, "numel");
    CHECK(tensor_nbytes(&t) == 602112, "nbytes");
    CHECK(strcmp(tensor_shape_str(&t, sh, sizeof(sh)), "1x3x224x224") == 0, "shape %s", sh);
    t.dims[2] = -1;
    CHECK(tensor_numel(&t) == -1 && tensor_nbytes(&t) == 0, "dynamic numel");
    CHECK(strcmp(tensor_shape_str(&t, sh, sizeof(sh)), "1x3x?x224") == 0, "shape %s", sh);
    t.dims[2] = INT64_C(1) << 40;
    t.dims[3] = INT64_C(1) << 40;
    CHECK(tensor_numel(&t) == -1, "overflowing numel is unknown");
    t.ndim = 0;
    CHECK(tensor_numel(&t) == 1, "scalar numel");

    CHECK(dtype_size(DT_FLOAT) == 4 && dtype_size(DT_INT64) == 8 && dtype_size(DT_BOOL) == 1 &&
          dtype_size(DT_FLOAT16) == 2 && dtype_size(DT_STRING) == 0 && dtype_size(99) == 0,
          "dtype sizes");
    CHECK(strcmp(dtype_name(DT_FLOAT), "float32") == 0 && strcmp(dtype_name(DT_DOUBLE),
          "float64") == 0 && strcmp(dtype_name(DT_BOOL), "bool") == 0 &&
          strcmp(dtype_name(DT_UINT16), "uint16") == 0 &&
          strcmp(dtype_name(DT_FLOAT16), "float16") == 0, "dtype names");
}

/* ---- small hand-built models -------------------------------------------- */

typedef struct mb {
    Onnx__ModelProto m;
    Onnx__GraphProto g;
    Onnx__OperatorSetIdProto os, *osp[1];
    Onnx__NodeProto *nodes[16];
    Onnx__TensorProto *inits[16];
    Onnx__ValueInfoProto *ins[8], *outs[8];
} mb;

static void mb_init(mb *b)
{
    memset(b, 0, sizeof(*b));
    onnx__model_proto__init(&b->m);
    onnx__graph_proto__init(&b->g);
    onnx__operator_set_id_proto__init(&b->os);
    b->os.domain = "";
    b->os.has_version = 1;
    b->os.version = 13;
    b->osp[0] = &b->os;
    b->m.has_ir_version = 1;
    b->m.ir_version = 7;
    b->m.n_opset_import = 1;
    b->m.opset_import = b->osp;
    b->m.graph = &b->g;
    b->g.node = b->nodes;
    b->g.initializer = b->inits;
    b->g.input = b->ins;
    b->g.output = b->outs;
}

static Onnx__ValueInfoProto *mk_vi(const char *name, int elem, int ndim, const int64_t *dims,
                                   const char *const *params)
{
    Onnx__ValueInfoProto *v = xcalloc(1, sizeof(*v));
    Onnx__TypeProto *tp = xcalloc(1, sizeof(*tp));
    Onnx__TypeProto__Tensor *tt = xcalloc(1, sizeof(*tt));
    Onnx__TensorShapeProto *sp = xcalloc(1, sizeof(*sp));
    int i;

    onnx__value_info_proto__init(v);
    onnx__type_proto__init(tp);
    onnx__type_proto__tensor__init(tt);
    onnx__tensor_shape_proto__init(sp);
    v->name = (char *)name;
    v->type = tp;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    tt->has_elem_type = 1;
    tt->elem_type = elem;
    tt->shape = sp;
    sp->n_dim = (size_t)ndim;
    sp->dim = xcalloc((size_t)ndim + 1, sizeof(*sp->dim));
    for (i = 0; i < ndim; i++) {
        Onnx__TensorShapeProto__Dimension *d = xcalloc(1, sizeof(*d));

        onnx__tensor_shape_proto__dimension__init(d);
        if (params && params[i]) {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            d->dim_param = (char *)params[i];
        } else {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            d->dim_value = dims[i];
        }
        sp->dim[i] = d;
    }
    return v;
}

static void free_vi(Onnx__ValueInfoProto *v)
{
    size_t i;

    for (i = 0; i < v->type->tensor_type->shape->n_dim; i++)
        free(v->type->tensor_type->shape->dim[i]);
    free(v->type->tensor_type->shape->dim);
    free(v->type->tensor_type->shape);
    free(v->type->tensor_type);
    free(v->type);
    free(v);
}

static Onnx__TensorProto *mk_tensor(const char *name, int dt, int ndim, const int64_t *dims)
{
    Onnx__TensorProto *t = xcalloc(1, sizeof(*t));

    onnx__tensor_proto__init(t);
    t->name = (char *)name;
    t->has_data_type = 1;
    t->data_type = dt;
    t->n_dims = (size_t)ndim;
    t->dims = (int64_t *)dims;
    return t;
}

static Onnx__NodeProto *mk_node(const char *op, const char *name, int n_in, char **in,
                                int n_out, char **out)
{
    Onnx__NodeProto *n = xcalloc(1, sizeof(*n));

    onnx__node_proto__init(n);
    n->op_type = (char *)op;
    n->name = (char *)name;
    n->n_input = (size_t)n_in;
    n->input = in;
    n->n_output = (size_t)n_out;
    n->output = out;
    return n;
}

static Onnx__AttributeProto *mk_attr(const char *name, int type)
{
    Onnx__AttributeProto *a = xcalloc(1, sizeof(*a));

    onnx__attribute_proto__init(a);
    a->name = (char *)name;
    a->has_type = 1;
    a->type = type;
    return a;
}

static int load_mb(mb *b, graph_t **g, char *err, size_t errlen)
{
    size_t n = onnx__model_proto__get_packed_size(&b->m);
    uint8_t *buf = xmalloc(n + 1);
    int ret;

    onnx__model_proto__pack(&b->m, buf);
    ret = model_load_onnx(buf, n, g, err, errlen);
    free(buf);
    return ret;
}

static void test_synthetic(void)
{
    static const int64_t d23[] = {2, 3}, d4[] = {4}, dneg[] = {2, -3}, dhuge[] = {INT64_C(1) << 40,
        INT64_C(1) << 40}, dq3[] = {0, 3};
    static const char *const dyn[] = {"batch", NULL};
    static char *x_in[] = {"x", "w8"}, *y_out[] = {"y"}, *c_out[] = {"c"}, *c2_out[] = {"c2"};
    static char *h_in[] = {"x", "h16"}, *z_out[] = {"z"}, *cz_in[] = {"c", "c2"},
        *ghost_in[] = {"ghost"}, *cc_out[] = {"cc"}, *b_in[] = {"x", "bb"}, *bz_out[] = {"bz"};
    int32_t i8v[4] = {-128, -1, 0, 127}, f16v[4] = {0x3c00, 0xc000, 0x7bff, 0};
    int32_t boolv[4] = {0, 5, 1, 0};
    int64_t ints[3] = {7, -8, 9};
    uint8_t short_raw[10] = {0};
    Onnx__AttributeProto *a_ints, *a_f, *a_g, *a_t, *a_s;
    Onnx__TensorProto *w8, *h16, *bb, *tval;
    Onnx__GraphProto sub = ONNX__GRAPH_PROTO__INIT;
    Onnx__AttributeProto *attrs1[1], *attrs2[1], *attrs3[1], *attrs4[2];
    Onnx__StringStringEntryProto loc = ONNX__STRING_STRING_ENTRY_PROTO__INIT, *locp[1];
    graph_t *g = NULL;
    char err[512];
    const tensor_t *t;
    int ret, i, ok;
    float tv[4] = {1.5f, -2.0f, 0.25f, 8.0f};
    mb b;

    mb_init(&b);
    b.ins[b.g.n_input++] = mk_vi("x", DT_FLOAT, 2, d23, dyn);
    b.outs[b.g.n_output++] = mk_vi("y", DT_FLOAT, 2, d23, NULL);
    b.outs[b.g.n_output++] = mk_vi("z", DT_FLOAT, 2, d23, NULL);
    b.outs[b.g.n_output++] = mk_vi("bz", DT_FLOAT, 2, d23, NULL);
    b.outs[b.g.n_output++] = mk_vi("cc", DT_FLOAT, 1, d4, NULL);
    w8 = mk_tensor("w8", DT_INT8, 1, d4);
    w8->n_int32_data = 4;
    w8->int32_data = i8v;
    h16 = mk_tensor("h16", DT_FLOAT16, 1, d4);
    h16->n_int32_data = 4;
    h16->int32_data = f16v;
    bb = mk_tensor("bb", DT_BOOL, 1, d4);
    bb->n_int32_data = 4;
    bb->int32_data = boolv;
    b.inits[b.g.n_initializer++] = w8;
    b.inits[b.g.n_initializer++] = h16;
    b.inits[b.g.n_initializer++] = bb;
    /* nodes out of order on purpose: the consumer of c/c2 comes first */
    b.nodes[b.g.n_node++] = mk_node("Add", "", 2, cz_in, 1, cc_out);
    b.nodes[b.g.n_node++] = mk_node("Mul", "mul0", 2, x_in, 1, y_out);
    b.nodes[b.g.n_node++] = mk_node("Mul", "", 2, h_in, 1, z_out);
    b.nodes[b.g.n_node++] = mk_node("Mul", "mulb", 2, b_in, 1, bz_out);
    a_ints = mk_attr("value_ints", ATTR_INTS);
    a_ints->n_ints = 3;
    a_ints->ints = ints;
    attrs1[0] = a_ints;
    b.nodes[b.g.n_node] = mk_node("Constant", "k1", 0, NULL, 1, c_out);
    b.nodes[b.g.n_node]->n_attribute = 1;
    b.nodes[b.g.n_node++]->attribute = attrs1;
    a_f = mk_attr("value_float", ATTR_FLOAT);
    a_f->has_f = 1;
    a_f->f = 2.5f;
    attrs2[0] = a_f;
    b.nodes[b.g.n_node] = mk_node("Constant", "k2", 0, NULL, 1, c2_out);
    b.nodes[b.g.n_node]->n_attribute = 1;
    b.nodes[b.g.n_node++]->attribute = attrs2;
    a_s = mk_attr("mode", ATTR_STRING);
    a_s->has_s = 1;
    a_s->s.data = (uint8_t *)"nearest";
    a_s->s.len = 7;
    tval = mk_tensor("tv", DT_FLOAT, 2, (const int64_t[]){2, 2});
    tval->has_raw_data = 1;
    tval->raw_data.data = (uint8_t *)tv;
    tval->raw_data.len = sizeof(tv);
    a_t = mk_attr("table", ATTR_TENSOR);
    a_t->t = tval;
    attrs4[0] = a_s;
    attrs4[1] = a_t;
    b.nodes[1]->n_attribute = 2;
    b.nodes[1]->attribute = attrs4;

    ret = load_mb(&b, &g, err, sizeof(err));
    CHECK(ret == 0, "synthetic model: %s", err);
    if (ret == 0) {
        CHECK(g->n_nodes == 4, "Constants are not nodes: %d nodes", g->n_nodes);
        CHECK(g->opset == 13, "opset %lld", (long long)g->opset);
        CHECK(is_topo_sorted(g), "sorted");
        CHECK(strcmp(g->nodes[g->n_nodes - 1].op, "Add") == 0 ||
              g->t[graph_find_tensor(g, "cc")].producer >= 0, "Add kept");
        ok = 0;
        for (i = 0; i < g->n_nodes; i++)
            ok += strcmp(g->nodes[i].name, "Add_0") == 0 || strcmp(g->nodes[i].name, "Mul_2") == 0;
        CHECK(ok == 2, "invented node names <op>_<index>");
        t = find(g, "x");
        CHECK(t && t->kind == TK_INPUT && t->ndim == 2 && t->dims[0] == -1 && t->dims[1] == 3 &&
              t->dim_param[0] && strcmp(t->dim_param[0], "batch") == 0, "dynamic input");
        CHECK(g->n_inputs == 1 && g->n_outputs == 4, "inputs %d outputs %d", g->n_inputs,
              g->n_outputs);
        t = find(g, "w8");
        CHECK(t && t->dtype == DT_INT8 && ((int8_t *)t->data)[0] == -128 &&
              ((int8_t *)t->data)[1] == -1 && ((int8_t *)t->data)[3] == 127, "int8 via int32_data");
        t = find(g, "h16");
        CHECK(t && t->dtype == DT_FLOAT16 && ((uint16_t *)t->data)[0] == 0x3c00 &&
              ((uint16_t *)t->data)[1] == 0xc000 && ((uint16_t *)t->data)[2] == 0x7bff,
              "float16 bits via int32_data");
        t = find(g, "bb");
        CHECK(t && t->dtype == DT_BOOL && ((uint8_t *)t->data)[1] == 1 &&
              ((uint8_t *)t->data)[0] == 0, "bool normalised to 0/1");
        t = find(g, "c");
        CHECK(t && t->kind == TK_CONST && t->dtype == DT_INT64 && t->ndim == 1 &&
              t->dims[0] == 3 && ((int64_t *)t->data)[1] == -8, "Constant value_ints");
        t = find(g, "c2");
        CHECK(t && t->kind == TK_CONST && t->dtype == DT_FLOAT && t->ndim == 0 &&
              *(float *)t->data == 2.5f, "Constant value_float");
        {
            int k = g->t[graph_find_tensor(g, "y")].producer;
            const node_t *n = &g->nodes[k];
            const attr_t *at = node_attr(n, "table");

            CHECK(strcmp(node_attr_str(n, "mode", "?"), "nearest") == 0, "string attribute");
            CHECK(node_attr_int(n, "missing", 42) == 42, "default attribute");
            CHECK(at && at->type == ATTR_TENSOR && at->t && at->t->ndim == 2 &&
                  ((float *)at->t->data)[3] == 8.0f, "tensor attribute");
        }
    }
    graph_free(g);
    g = NULL;

    /* raw_data shorter than the shape */
    bb->n_int32_data = 0;
    bb->has_raw_data = 1;
    bb->raw_data.data = short_raw;
    bb->raw_data.len = 3;
    ret = load_mb(&b, &g, err, sizeof(err));
    CHECK(ret == RT_EFORMAT && !g && strstr(err, "'bb'"), "short raw_data: %d %s", ret, err);
    bb->has_raw_data = 0;
    bb->n_int32_data = 4;

    /* negative and absurd dims */
    w8->dims = (int64_t *)dneg;
    w8->n_dims = 2;
    ret = load_mb(&b, &g, err, sizeof(err));
    CHECK(ret == RT_EFORMAT && !g, "negative dim: %s", err);
    w8->dims = (int64_t *)dhuge;
    ret = load_mb(&b, &g, err, sizeof(err));
    CHECK(ret == RT_EFORMAT && !g, "huge dims: %s", err);
    w8->dims = (int64_t *)dq3; /* an empty tensor with no data is fine */
    w8->n_int32_data = 0;
    ret = load_mb(&b, &g, err, sizeof(err));
    CHECK(ret == 0 && g && find(g, "w8")->dims[0] == 0, "empty tensor: %s", err);
    graph_free(g);
    g = NULL;
    w8->dims = (int64_t *)d4;
    w8->n_dims = 1;
    w8->n_int32_data = 4;

    /* external data */
    loc.key = "location";
    loc.value = "weights.bin";
    locp[0] = &loc;
    h16->n_external_data = 1;
    h16->external_data = locp;
    h16->has_data_location = 1;
    h16->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    ret = load_mb(&b, &g, err, sizeof(err));
    CHECK(ret == RT_EUNSUPPORTED && strstr(err, "external"), "external data: %s", err);
    h16->n_external_data = 0;
    h16->has_data_location = 0;

    /* dangling input name */
    b.nodes[b.g.n_node++] = mk_node("Relu", "lost", 1, ghost_in, 0, NULL);
    ret = load_mb(&b, &g, err, sizeof(err));
    CHECK(ret == RT_EFORMAT && strstr(err, "'lost'") && strstr(err, "'ghost'"),
          "dangling input: %s", err);
    free(b.nodes[--b.g.n_node]);

    /* subgraph attributes: control flow (Loop) is not run; an If needs both
     * branches, and one whose condition is a graph input is control flow too */
    a_g = mk_attr("body", ATTR_GRAPH);
    a_g->g = &sub;
    attrs3[0] = a_g;
    b.nodes[b.g.n_node] = mk_node("Loop", "loopy", 1, ghost_in, 0, NULL);
    b.nodes[b.g.n_node]->n_attribute = 1;
    b.nodes[b.g.n_node++]->attribute = attrs3;
    b.nodes[b.g.n_node - 1]->input = x_in;
    ret = load_mb(&b, &g, err, sizeof(err));
    CHECK(ret == RT_EUNSUPPORTED && strstr(err, "'loopy'"), "subgraph: %s", err);
    b.nodes[b.g.n_node - 1]->op_type = "If";
    a_g->name = "then_branch";
    ret = load_mb(&b, &g, err, sizeof(err));
    CHECK(ret == RT_EFORMAT && strstr(err, "else_branch"), "If with one branch: %s", err);
    Onnx__AttributeProto *a_else = mk_attr("else_branch", ATTR_GRAPH), *both[2] = {a_g, a_else};
    a_else->g = &sub;
    b.nodes[b.g.n_node - 1]->n_attribute = 2;
    b.nodes[b.g.n_node - 1]->attribute = both;
    ret = load_mb(&b, &g, err, sizeof(err));
    CHECK(ret == RT_EUNSUPPORTED && strstr(err, "'loopy'") && strstr(err, "run time"),
          "If on a graph input: %s", err);
    free(a_else);
    free(b.nodes[--b.g.n_node]);

    /* a tensor produced twice */
    b.nodes[b.g.n_node++] = mk_node("Relu", "again", 1, x_in, 1, y_out);
    ret = load_mb(&b, &g, err, sizeof(err));
    CHECK(ret == RT_EFORMAT && strstr(err, "'y'"), "double producer: %s", err);
    free(b.nodes[--b.g.n_node]);

    /* opsets outside 7..18 */
    b.os.version = 6;
    ret = load_mb(&b, &g, err, sizeof(err));
    CHECK(ret == RT_EUNSUPPORTED && strstr(err, "opset 6"), "opset 6: %s", err);
    b.os.version = 19;
    ret = load_mb(&b, &g, err, sizeof(err));
    CHECK(ret == RT_EUNSUPPORTED && strstr(err, "opset 19"), "opset 19: %s", err);
    b.os.version = 7;

    /* still loads after all that */
    ret = load_mb(&b, &g, err, sizeof(err));
    CHECK(ret == 0, "restored model: %s", err);
    graph_free(g);

    for (i = 0; i < (int)b.g.n_node; i++)
        free(b.nodes[i]);
    for (i = 0; i < (int)b.g.n_initializer; i++)
        free(b.inits[i]);
    for (i = 0; i < (int)b.g.n_input; i++)
        free_vi(b.ins[i]);
    for (i = 0; i < (int)b.g.n_output; i++)
        free_vi(b.outs[i]);
    free(a_ints);
    free(a_f);
    free(a_g);
    free(a_s);
    free(a_t);
    free(tval);
}

/* ---- real models -------------------------------------------------------- */

static void test_mnist(void)
{
    graph_t *g = NULL;
    char err[512];
    const tensor_t *t;
    int64_t elems = 0;
    int ret, i;

    ret = model_load_file(shared_path("data/models/onnx/mnist.onnx"), &g, err, sizeof(err));
    CHECK(ret == 0, "mnist: %s", err);
    if (ret)
        return;
    CHECK(g->n_nodes == 12, "12 nodes, got %d", g->n_nodes);
    CHECK(g->opset == 8, "opset 8, got %lld", (long long)g->opset);
    CHECK(strncmp(g->producer, "CNTK", 4) == 0, "producer '%s'", g->producer);
    CHECK(g->n_inputs == 1 && strcmp(g->t[g->inputs[0]].name, "Input3") == 0, "input Input3");
    t = &g->t[g->inputs[0]];
    CHECK(t->dtype == DT_FLOAT && t->ndim == 4 && t->dims[0] == 1 && t->dims[1] == 1 &&
          t->dims[2] == 28 && t->dims[3] == 28, "Input3 shape");
    CHECK(g->n_outputs == 1 && strcmp(g->t[g->outputs[0]].name, "Plus214_Output_0") == 0 &&
          g->t[g->outputs[0]].is_output, "output Plus214_Output_0");
    CHECK(count_kind(g, TK_CONST) == 8, "8 initializers, got %d", count_kind(g, TK_CONST));
    for (i = 0; i < g->n_t; i++)
        if (g->t[i].kind == TK_CONST)
            elems += tensor_numel(&g->t[i]);
    CHECK(elems == 5998, "5,998 initializer elements, got %lld", (long long)elems);
    CHECK(count_op(g, "Add") == 3 && count_op(g, "Conv") == 2 && count_op(g, "MaxPool") == 2 &&
          count_op(g, "Relu") == 2 && count_op(g, "Reshape") == 2 && count_op(g, "MatMul") == 1,
          "op counts");
    t = find(g, "Parameter5");
    CHECK(t && t->ndim == 4 && t->dims[0] == 8 && t->dims[1] == 1 && t->dims[2] == 5 &&
          t->dims[3] == 5, "first conv weights 8x1x5x5");
    t = find(g, "Parameter193_reshape1_shape");
    CHECK(t && t->dtype == DT_INT64 && t->ndim == 1 && t->dims[0] == 2 &&
          ((int64_t *)t->data)[0] == 256 && ((int64_t *)t->data)[1] == 10,
          "reshape shape (256,10)");
    CHECK(is_topo_sorted(g), "sorted");
    {
        int k = g->t[g->outputs[0]].producer;

        CHECK(k == g->n_nodes - 1 && strcmp(g->nodes[k].op, "Add") == 0, "last node is Add");
        k = graph_find_tensor(g, "Convolution28_Output_0");
        CHECK(k >= 0 && g->t[k].producer >= 0 &&
              strcmp(node_attr_str(&g->nodes[g->t[k].producer], "auto_pad", ""),
                     "SAME_UPPER") == 0, "conv auto_pad attribute");
        CHECK(k >= 0 && node_attr_ints(&g->nodes[g->t[k].producer], "kernel_shape",
                                       &(const int64_t *){0}) == 2, "kernel_shape ints");
    }
    graph_free(g);
}

static void test_ultraface(void)
{
    graph_t *g = NULL;
    char err[512];
    int ret;

    ret = model_load_file(shared_path("data/models/onnx/ultraface_version-RFB-320.onnx"), &g,
                          err, sizeof(err));
    CHECK(ret == 0, "ultraface: %s", err);
    if (ret)
        return;
    CHECK(g->n_inputs == 1 && strcmp(g->t[g->inputs[0]].name, "input") == 0,
          "only 'input' remains an input (%d inputs)", g->n_inputs);
    CHECK(g->t[g->inputs[0]].ndim == 4 && g->t[g->inputs[0]].dims[2] == 240 &&
          g->t[g->inputs[0]].dims[3] == 320, "input 1x3x240x320");
    CHECK(g->n_nodes == 242 - 31, "nodes without Constants: %d", g->n_nodes);
    CHECK(count_kind(g, TK_CONST) == 244 + 31, "constants: %d", count_kind(g, TK_CONST));
    CHECK(count_kind(g, TK_INPUT) == 1, "one input tensor");
    CHECK(count_op(g, "Constant") == 0 && count_op(g, "Conv") == 52 &&
          count_op(g, "BatchNormalization") == 35 && count_op(g, "Shape") == 8, "op counts");
    CHECK(g->n_outputs == 2 && strcmp(g->t[g->outputs[0]].name, "scores") == 0 &&
          strcmp(g->t[g->outputs[1]].name, "boxes") == 0, "outputs scores, boxes");
    CHECK(g->opset == 9, "opset 9");
    CHECK(is_topo_sorted(g), "sorted");
    graph_free(g);
}

static void test_ppocr(void)
{
    graph_t *g = NULL;
    char err[512];
    const tensor_t *t;
    int ret;

    ret = model_load_file(shared_path("data/models/onnx/ppocr_mobile_v2.0_cls.onnx"), &g, err,
                          sizeof(err));
    CHECK(ret == 0, "ppocr cls: %s", err);
    if (ret)
        return;
    CHECK(g->n_nodes == 471 - 250, "nodes without Constants: %d", g->n_nodes);
    CHECK(count_kind(g, TK_CONST) == 250, "Constant nodes became constants: %d",
          count_kind(g, TK_CONST));
    CHECK(count_op(g, "Constant") == 0 && count_op(g, "Conv") == 53 && count_op(g, "Clip") == 18,
          "op counts");
    t = &g->t[g->inputs[0]];
    CHECK(g->n_inputs == 1 && strcmp(t->name, "x") == 0 && t->ndim == 4 && t->dims[0] == -1 &&
          t->dims[1] == 3 && t->dims[2] == -1 && t->dim_param[0] &&
          strcmp(t->dim_param[0], "p2o.DynamicDimension.0") == 0, "dynamic input x");
    CHECK(g->n_outputs == 1 && strcmp(g->t[g->outputs[0]].name, "softmax_0.tmp_0") == 0,
          "output");
    CHECK(is_topo_sorted(g), "sorted");
    {
        /* no dims given: the message names the input and the missing dims */
        int r = passes_prepare(g, NULL, 0, err, sizeof(err));

        /* the symbolic names, and a hint with a number for every dim */
        CHECK(r == RT_ESHAPE && strstr(err, "'x'") &&
              strstr(err, "[p2o.DynamicDimension.0,3,p2o.DynamicDimension.1,") &&
              strstr(err, "--shape x=1,3,224,224 "), "dynamic dims message: %s", err);
    }
    graph_free(g);
}

static void write_file(const char *p, const void *d, size_t n)
{
    FILE *f = fopen(p, "wb");

    if (!f)
        return;
    if (n)
        fwrite(d, 1, n, f);
    fclose(f);
}

/* Wraps d[*at, cap) as field `field` (length-delimited) by prepending key and length. */
static void prepend_len(uint8_t *d, size_t cap, size_t *at, int field)
{
    uint8_t v[10];
    size_t l = cap - *at;
    int n = 0;

    do {
        v[n] = l & 0x7f;
        l >>= 7;
        if (l)
            v[n] |= 0x80;
        n++;
    } while (l);
    while (n > 0)
        d[--*at] = v[--n];
    d[--*at] = (uint8_t)(field << 3 | 2);
}

static void test_broken(void)
{
    graph_t *g = NULL;
    void *buf = NULL;
    size_t len = 0, cut;
    char err[512], tmp[256];
    int ret, ok, all_err = 1;
    uint8_t rnd[4096];
    unsigned s = 12345;
    size_t i;

    ret = rt_read_file(shared_path("data/models/onnx/mnist.onnx"), &buf, &len, err,
                       sizeof(err));
    CHECK(ret == 0, "read mnist: %s", err);
    if (ret)
        return;
    /* truncations: most fail to parse; the few that parse must still be a valid graph
     * (a cut exactly between two fields is valid protobuf) */
    for (cut = 1; cut < len; cut += 97) {
        ret = model_load_onnx(buf, cut, &g, err, sizeof(err));
        if (ret == 0) {
            all_err = 0;
            graph_free(g);
        } else if (ret != RT_EFORMAT) {
            CHECK(0, "truncated at %zu: status %d %s", cut, ret, err);
        }
        g = NULL;
    }
    CHECK(all_err, "every truncation of mnist fails");
    ret = model_load_onnx(buf, len - 1, &g, err, sizeof(err));
    CHECK(ret == RT_EFORMAT && !g, "truncated by one byte: %s", err);
    /* bit flips: anything but a crash; count how many load */
    for (i = 0, ok = 0; i < 200; i++) {
        uint8_t *c = xmalloc(len);

        memcpy(c, buf, len);
        s = s * 1103515245 + 12345;
        c[(s >> 8) % len] ^= (uint8_t)(1u << ((s >> 3) & 7));
        ret = model_load_onnx(c, len, &g, err, sizeof(err));
        if (ret == 0) {
            input_shape_t one;

            ok++;
            memset(&one, 0, sizeof(one));
            passes_prepare(g, NULL, 0, err, sizeof(err));
            graph_free(g);
        }
        g = NULL;
        free(c);
    }
    CHECK(ok < 200, "bit flips: %d of 200 still load", ok);
    for (i = 0; i < sizeof(rnd); i++) {
        s = s * 1103515245 + 12345;
        rnd[i] = (uint8_t)(s >> 16);
    }
    ret = model_load_onnx(rnd, sizeof(rnd), &g, err, sizeof(err));
    CHECK(ret == RT_EFORMAT && !g, "random bytes: %s", err);
    ret = model_load_onnx(rnd, 0, &g, err, sizeof(err));
    CHECK(ret == RT_EFORMAT && !g, "empty buffer: %s", err);

    {
        /* graph input typed as a sequence of sequences ... 200000 levels deep (1.6 MB):
         * protobuf-c would recurse once per level and overflow the stack */
        size_t cap = 8 << 20, at = cap;
        uint8_t *d = xmalloc(cap);
        static const uint8_t inner[] = {0x0a, 0x02, 0x08, 0x01}; /* tensor_type{elem_type=1} */

        at -= sizeof(inner);
        memcpy(d + at, inner, sizeof(inner));
        for (i = 0; i < 200000; i++) {
            prepend_len(d, cap, &at, 1); /* Sequence.elem_type */
            prepend_len(d, cap, &at, 4); /* TypeProto.sequence_type */
        }
        prepend_len(d, cap, &at, 2); /* ValueInfoProto.type */
        d[--at] = 'x';
        d[--at] = 1;
        d[--at] = 0x0a;     /* ValueInfoProto.name = "x" */
        prepend_len(d, cap, &at, 11); /* GraphProto.input */
        prepend_len(d, cap, &at, 7);  /* ModelProto.graph */
        ret = model_load_onnx(d + at, cap - at, &g, err, sizeof(err));
        CHECK(ret == RT_EFORMAT && strstr(err, "nested"), "deep nesting: %s", err);
        free(d);
    }

    snprintf(tmp, sizeof(tmp), "/tmp/test_model_empty_%d.onnx", (int)getpid());
    write_file(tmp, "", 0);
    ret = model_load_file(tmp, &g, err, sizeof(err));
    CHECK(ret == RT_EFORMAT && strstr(err, "not an ONNX model") && strstr(err, tmp),
          "empty file: %s", err);
    write_file(tmp, "hello, world\n", 13);
    ret = model_load_file(tmp, &g, err, sizeof(err));
    CHECK(ret == RT_EFORMAT && strstr(err, "not an ONNX model"), "text file: %s", err);
    write_file(tmp, buf, len / 2);
    ret = model_load_file(tmp, &g, err, sizeof(err));
    CHECK(ret == RT_EFORMAT && strstr(err, tmp), "half file: %s", err);
    unlink(tmp);
    ret = model_load_file("/nonexistent/model.onnx", &g, err, sizeof(err));
    CHECK(ret == RT_EIO && !g, "missing file: %s", err);
    ret = model_load_file(shared_path("data/models/rknn/multiple_input_demo.rk3588.rknn"), &g,
                          err, sizeof(err));
    CHECK(ret == RT_EUNSUPPORTED && strstr(err, "vendor-compiled") && strstr(err, "inspect"),
          "rknn file: %s", err);
    ret = model_load_file(shared_path("data/models/rknn/retinaface.rv1103.rknn"), &g, err,
                          sizeof(err));
    CHECK(ret == RT_EUNSUPPORTED, "rv1103 rknn file: %s", err);
    free(buf);
}

/* ---- tensor .pb ---------------------------------------------------------- */

static void test_tensor_pb(void)
{
    static const int64_t dims[] = {2, 2};
    int64_t v[4] = {1, -2, 3, INT64_MAX};
    Onnx__TensorProto *tp = mk_tensor("t0", DT_INT64, 2, dims);
    uint8_t buf[256];
    size_t n;
    tensor_t t;
    char err[256];
    int ret;

    tp->n_int64_data = 4;
    tp->int64_data = v;
    n = onnx__tensor_proto__pack(tp, buf);
    ret = model_load_tensor_pb(buf, n, &t, err, sizeof(err));
    CHECK(ret == 0 && strcmp(t.name, "t0") == 0 && t.dtype == DT_INT64 && t.ndim == 2 &&
          ((int64_t *)t.data)[3] == INT64_MAX && t.kind == TK_CONST, "tensor pb: %s", err);
    if (ret == 0) {
        free(t.name);
        tensor_free_data(&t);
    }
    tp->data_type = DT_STRING;
    n = onnx__tensor_proto__pack(tp, buf);
    ret = model_load_tensor_pb(buf, n, &t, err, sizeof(err));
    CHECK(ret == RT_EUNSUPPORTED, "string tensor: %s", err);
    ret = model_load_tensor_pb(buf, n / 2, &t, err, sizeof(err));
    CHECK(ret != 0, "truncated tensor pb");
    free(tp);

    /* a real conformance file: test_abs input_0 is float32 [3,4,5] */
    {
        void *d = NULL;
        size_t len = 0;

        ret = rt_read_file("/usr/share/libonnx-testdata/data/node/test_abs/test_data_set_0/"
                           "input_0.pb", &d, &len, err, sizeof(err));
        CHECK(ret == 0, "%s", err);
        if (ret == 0) {
            ret = model_load_tensor_pb(d, len, &t, err, sizeof(err));
            CHECK(ret == 0 && t.dtype == DT_FLOAT && t.ndim == 3 && t.dims[0] == 3 &&
                  t.dims[1] == 4 && t.dims[2] == 5 && strcmp(t.name, "x") == 0,
                  "test_abs input: %s", err);
            if (ret == 0) {
                free(t.name);
                tensor_free_data(&t);
            }
            free(d);
        }
    }
}

/* ---- passes --------------------------------------------------------------- */

/* y = x + (c1 + c2): the constant Add folds, the other one stays. */
static graph_t *passes_graph(const char *op2)
{
    graph_t *g = graph_new();
    int x = graph_add_tensor(g, "x"), c1 = graph_add_tensor(g, "c1");
    int c2 = graph_add_tensor(g, "c2"), s = graph_add_tensor(g, "s");
    int y = graph_add_tensor(g, "y");
    int in[2], out[1];
    float *d;
    tensor_t *t;

    t = &g->t[x];
    t->kind = TK_INPUT;
    t->dtype = DT_FLOAT;
    t->ndim = 2;
    t->dims[0] = -1;
    t->dims[1] = 3;
    g->inputs = xmalloc(sizeof(int));
    g->inputs[g->n_inputs++] = x;
    for (int k = 0; k < 2; k++) {
        t = &g->t[k ? c2 : c1];
        t->kind = TK_CONST;
        t->dtype = DT_FLOAT;
        t->ndim = 1;
        t->dims[0] = 3;
        d = t->data = xaligned_alloc(64);
        d[0] = k ? 10.f : 1.f;
        d[1] = k ? 20.f : 2.f;
        d[2] = k ? 30.f : 3.f;
    }
    in[0] = c1; in[1] = c2; out[0] = s;
    graph_add_node(g, "fold_me", "Add", "", 2, in, 1, out);
    in[0] = x; in[1] = s; out[0] = y;
    graph_add_node(g, "keep_me", op2, "", 2, in, 1, out);
    g->t[y].is_output = 1;
    g->outputs = xmalloc(sizeof(int));
    g->outputs[g->n_outputs++] = y;
    return g;
}

static void test_passes(void)
{
    input_shape_t sh;
    graph_t *g;
    char err[512];
    const tensor_t *s, *y;
    int ret;

    if (!exec_find_op("", "Add")) {
        CHECK(0, "Add kernel missing: passes tests need it");
        return;
    }
    memset(&sh, 0, sizeof(sh));
    sh.name = "x";
    sh.ndim = 2;
    sh.dims[0] = 4;
    sh.dims[1] = 3;

    g = passes_graph("Add");
    ret = passes_prepare(g, NULL, 0, err, sizeof(err));
    CHECK(ret == RT_ESHAPE && strstr(err, "input 'x' has dynamic dims [?,3]") &&
          strstr(err, "--shape x=1,3"), "no shape given: %s", err);
    ret = passes_prepare(g, &sh, 1, err, sizeof(err));
    CHECK(ret == 0, "prepare: %s", err);
    s = find(g, "s");
    y = find(g, "y");
    CHECK(g->nodes[0].folded && !g->nodes[1].folded, "fold flags");
    CHECK(s->kind == TK_CONST && s->data && ((float *)s->data)[0] == 11.f &&
          ((float *)s->data)[2] == 33.f, "folded values");
    CHECK(y->kind == TK_ACT && y->ndim == 2 && y->dims[0] == 4 && y->dims[1] == 3 &&
          y->dtype == DT_FLOAT, "inferred output shape");
    CHECK(g->nodes[1].def && strcmp(g->nodes[1].def->name, "Add") == 0, "resolved def");
    graph_free(g);

    g = passes_graph("Add");
    sh.name = "nope";
    ret = passes_prepare(g, &sh, 1, err, sizeof(err));
    CHECK(ret == RT_EINVAL && strstr(err, "'nope'") && strstr(err, "'x'"), "bad name: %s", err);
    sh.name = "x";
    sh.ndim = 3;
    ret = passes_prepare(g, &sh, 1, err, sizeof(err));
    CHECK(ret == RT_ESHAPE, "rank mismatch: %s", err);
    sh.ndim = 2;
    sh.dims[1] = 5;
    ret = passes_prepare(g, &sh, 1, err, sizeof(err));
    CHECK(ret == RT_ESHAPE && strstr(err, "fixed"), "conflicting dim: %s", err);
    sh.dims[1] = 3;
    graph_free(g);

    g = passes_graph("FancyOp");
    ret = passes_prepare(g, &sh, 1, err, sizeof(err));
    CHECK(ret == RT_EUNSUPPORTED && strstr(err, "'FancyOp'") && strstr(err, "'keep_me'"),
          "unsupported op: %s", err);
    graph_free(g);

    /* y = x + s with x [4,3] and s [3] broadcasts; a mismatch must be an error */
    g = passes_graph("Add");
    g->t[graph_find_tensor(g, "x")].dims[1] = -1;
    sh.dims[1] = 7;
    ret = passes_prepare(g, &sh, 1, err, sizeof(err));
    CHECK(ret != 0, "broadcast mismatch caught: %s", err);
    graph_free(g);
}

/* ---- window attributes ---------------------------------------------------
 * Expected pads and extents worked out by hand from the ONNX operator text
 * (Conv, MaxPool): SAME output = ceil(in / stride), total padding
 * (out - 1) * stride + (k - 1) * dilation + 1 - in, the odd one at the end
 * (SAME_UPPER) or the start (SAME_LOWER). */

/* node_window_read of a 1-D window (input extent in) whose attributes are
 * kernel_shape k (0: none), strides s, dilations d, pads {b, e} (b < 0: none),
 * auto_pad ap and ceil_mode cm; kernel: the weights' extent or 0 (a pool). */
static int window1(int64_t kernel, int64_t k, int64_t s, int64_t d, int64_t b, int64_t e,
                   const char *ap, int cm, int64_t in, node_window *w)
{
    int64_t kv[] = {k}, sv[] = {s}, dv[] = {d}, pv[] = {b, e};
    attr_t at[6] = {
        {.name = "strides", .type = ATTR_INTS, .n = 1, .ints = sv},
        {.name = "dilations", .type = ATTR_INTS, .n = 1, .ints = dv},
        {.name = "auto_pad", .type = ATTR_STRING, .s = (char *)ap},
        {.name = "ceil_mode", .type = ATTR_INT, .i = cm},
        {.name = "pads", .type = ATTR_INTS, .n = 2, .ints = pv},
        {.name = "kernel_shape", .type = ATTR_INTS, .n = 1, .ints = kv},
    };
    /* the last two only when given: pads, then kernel_shape moved down */
    int na = 4;
    if (b >= 0)
        na++;
    if (k) {
        at[na] = at[5];
        na++;
    }
    node_t n = {.name = "w", .op = kernel ? "Conv" : "MaxPool", .n_attr = na, .attrs = at};
    char err[160];
    return node_window_read(&n, 1, kernel ? &kernel : NULL, in >= 0 ? &in : NULL, w, err,
                            sizeof err);
}

static void test_window(void)
{
    node_window w;
    int rc;

    rc = window1(0, 2, 2, 1, -1, 0, "SAME_UPPER", 0, 5, &w);
    CHECK(!rc && w.out[2] == 3 && w.pb[2] == 0 && w.pe[2] == 1, "SAME_UPPER 5/k2/s2: out 3, pads 0+1");
    CHECK(w.nsp == 1 && w.k[0] == 1 && w.in[1] == 1 && w.out[0] == 1 && w.pb[1] == 0,
          "leading slots are unit axes");
    rc = window1(0, 2, 2, 1, -1, 0, "SAME_LOWER", 0, 5, &w);
    CHECK(!rc && w.out[2] == 3 && w.pb[2] == 1 && w.pe[2] == 0, "SAME_LOWER 5/k2/s2: pads 1+0");
    rc = window1(3, 0, 1, 2, -1, 0, "SAME_UPPER", 0, 7, &w);
    CHECK(!rc && w.out[2] == 7 && w.pb[2] == 2 && w.pe[2] == 2 && w.k[2] == 3,
          "conv SAME_UPPER 7/k3/d2: pads 2+2, kernel from the weights");
    rc = window1(3, 0, 2, 1, 1, 1, "VALID", 0, 5, &w);
    CHECK(!rc && w.out[2] == 2 && w.pb[2] == 0 && w.pe[2] == 0, "VALID drops the pads: out 2");
    rc = window1(3, 0, 2, 1, 1, 1, "NOTSET", 0, -1, &w);
    CHECK(!rc && w.pb[2] == 1 && w.pe[2] == 1 && w.out[2] == 1, "no input: pads as written");
    rc = window1(0, 3, 2, 1, 0, 0, "NOTSET", 1, 6, &w);
    CHECK(!rc && w.out[2] == 3, "ceil_mode 6/k3/s2: out 3 (floor would be 2)");
    rc = window1(0, 2, 2, 1, 0, 1, "NOTSET", 1, 4, &w);
    CHECK(!rc && w.out[2] == 2, "ceil_mode: a window starting in the end padding is dropped");
    rc = window1(0, 2, 2, 1, 0, 1, "NOTSET", 0, 4, &w);
    CHECK(!rc && w.out[2] == 2 && w.ceil_mode == 0, "floor 4+1/k2/s2: out 2");

    rc = window1(0, 0, 1, 1, -1, 0, "NOTSET", 0, 5, &w);
    CHECK(rc == RT_ESHAPE, "a pool without kernel_shape: %d", rc);
    rc = window1(3, 5, 1, 1, -1, 0, "NOTSET", 0, 5, &w);
    CHECK(rc == RT_ESHAPE, "kernel_shape other than the weights: %d", rc);
    rc = window1(0, 2, 1, 1, -1, 0, "SAME", 0, 5, &w);
    CHECK(rc == RT_EUNSUPPORTED, "unknown auto_pad: %d", rc);
    rc = window1(0, 2, 0, 1, -1, 0, "NOTSET", 0, 5, &w);
    CHECK(rc == RT_ESHAPE, "stride 0: %d", rc);
    rc = window1(0, 7, 1, 1, 0, 0, "NOTSET", 0, 5, &w);
    CHECK(rc == RT_ESHAPE, "kernel larger than the padded input: %d", rc);
    rc = window1(0, 7, 1, 1, 1, 1, "NOTSET", 0, 5, &w);
    CHECK(!rc && w.out[2] == 1, "kernel 7 over 1+5+1: out 1");
}

int main(void)
{
    test_graph_api();
    test_synthetic();
    test_tensor_pb();
    test_mnist();
    test_ultraface();
    test_ppocr();
    test_broken();
    test_passes();
    test_window();
    TEST_END();
}
