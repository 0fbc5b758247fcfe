/* tests/tools/zoo_onnx.c — writes a network of tests/tools/zoo (the graphs
 * bench/npu_models.sh builds) as an ONNX file that `rknn-trace run` executes:
 * node names "<op>_<index>", seeded uniform weights of variance 3/fan_in (so
 * activations stay in range through the network), Resize scales (1,1,2,2),
 * Clip bounds 0 and 6 (1 for yolov8: its clipped class-score sum), Reshape
 * shapes the output's dims.
 * usage: zoo_onnx NAME OUT.onnx [SIZE CLASSES] [--shapes]   (SIZE/CLASSES:
 * yolov8 only; --shapes also writes every intermediate tensor's shape as
 * the builder declared it, as value_info, for a check against ONNX's own
 * shape inference) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/onnx.pb-c.h"
#include "tests/tools/zoo/graphs.h"
#include "util/util.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static float uniform(void) /* [-1, 1) */
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static Onnx__ValueInfoProto *value_info(const tensor_t *t)
{
    Onnx__ValueInfoProto *v = xcalloc(1, sizeof(*v));
    Onnx__TypeProto *tp = xcalloc(1, sizeof(*tp));
    Onnx__TypeProto__Tensor *tt = xcalloc(1, sizeof(*tt));
    Onnx__TensorShapeProto *sh = xcalloc(1, sizeof(*sh));

    onnx__value_info_proto__init(v);
    onnx__type_proto__init(tp);
    onnx__type_proto__tensor__init(tt);
    onnx__tensor_shape_proto__init(sh);
    sh->n_dim = (size_t)t->ndim;
    sh->dim = xcalloc((size_t)t->ndim + 1, sizeof(*sh->dim));
    for (int k = 0; k < t->ndim; k++) {
        sh->dim[k] = xcalloc(1, sizeof(*sh->dim[k]));
        onnx__tensor_shape_proto__dimension__init(sh->dim[k]);
        sh->dim[k]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        sh->dim[k]->dim_value = t->dims[k];
    }
    tt->has_elem_type = 1;
    tt->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    tt->shape = sh;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    v->name = t->name;
    v->type = tp;
    return v;
}

/* The constant input `slot` of node n: its values. */
static void value_info_free(Onnx__ValueInfoProto *v)
{
    Onnx__TensorShapeProto *sh = v->type->tensor_type->shape;
    for (size_t k = 0; k < sh->n_dim; k++)
        free(sh->dim[k]);
    free(sh->dim);
    free(sh);
    free(v->type->tensor_type);
    free(v->type);
    free(v);
}

static Onnx__TensorProto *initializer(const graph_t *g, const node_t *n, int slot, int yolo)
{
    const tensor_t *t = &g->t[n->in[slot]];
    Onnx__TensorProto *p = xcalloc(1, sizeof(*p));
    size_t count = 1;
    int64_t fan_in = 1;

    onnx__tensor_proto__init(p);
    p->name = t->name;
    p->has_data_type = 1;
    p->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    p->n_dims = (size_t)t->ndim;
    p->dims = xcalloc((size_t)t->ndim + 1, sizeof(int64_t));
    for (int k = 0; k < t->ndim; k++) {
        p->dims[k] = t->dims[k];
        count *= (size_t)t->dims[k];
        if (k)
            fan_in *= t->dims[k];
    }
    if (!strcmp(n->op, "Reshape")) { /* the shape: the output's dims, int64 */
        const tensor_t *y = &g->t[n->out[0]];
        p->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
        p->n_int64_data = count;
        p->int64_data = xcalloc(count, sizeof(int64_t));
        for (size_t i = 0; i < count && i < (size_t)y->ndim; i++)
            p->int64_data[i] = y->dims[i];
        return p;
    }
    p->n_float_data = count;
    p->float_data = xcalloc(count, sizeof(float));
    if (!strcmp(n->op, "Resize")) {
        for (size_t i = 0; i < count; i++)
            p->float_data[i] = i < 2 ? 1.0f : 2.0f;
    } else if (!strcmp(n->op, "Clip")) {
        p->float_data[0] = slot == 1 ? 0.0f : yolo ? 1.0f : 6.0f;
    } else {
        float a = (float)sqrt(9.0 / (double)(t->ndim > 1 ? fan_in : 1));
        for (size_t i = 0; i < count; i++)
            p->float_data[i] = a * uniform();
    }
    return p;
}

int main(int argc, char **argv)
{
    Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
    Onnx__GraphProto gp = ONNX__GRAPH_PROTO__INIT;
    Onnx__OperatorSetIdProto ops = ONNX__OPERATOR_SET_ID_PROTO__INIT, *opsp = &ops;
    graph_t *g;
    int yolo, shapes = argc > 3 && !strcmp(argv[argc - 1], "--shapes");
    FILE *f;

    argc -= shapes;
    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: zoo_onnx NAME OUT.onnx [SIZE CLASSES] [--shapes]\n");
        return 1;
    }
    yolo = !strncmp(argv[1], "yolov8", 6);
    g = argc == 5 && yolo ? zoo_yolov8(argv[1][6], atoi(argv[3]), atoi(argv[4])) : zoo_graph(argv[1]);
    if (!g) {
        fprintf(stderr, "zoo_onnx: unknown network '%s'\n", argv[1]);
        return 1;
    }
    gp.name = argv[1];
    gp.node = xcalloc((size_t)g->n_nodes + 1, sizeof(*gp.node));
    gp.initializer = xcalloc((size_t)g->n_t + 1, sizeof(*gp.initializer));
    for (int i = 0; i < g->n_nodes; i++) {
        const node_t *n = &g->nodes[i];
        Onnx__NodeProto *np = xcalloc(1, sizeof(*np));
        char name[64];

        onnx__node_proto__init(np);
        snprintf(name, sizeof name, "%s_%d", n->op, i);
        np->name = xstrdup(name);
        np->op_type = n->op;
        np->n_input = (size_t)n->n_in;
        np->input = xcalloc((size_t)n->n_in + 1, sizeof(char *));
        for (int k = 0; k < n->n_in; k++) {
            np->input[k] = n->in[k] < 0 ? "" : g->t[n->in[k]].name;
            if (n->in[k] >= 0 && g->t[n->in[k]].kind == TK_CONST)
                gp.initializer[gp.n_initializer++] = initializer(g, n, k, yolo);
        }
        np->n_output = (size_t)n->n_out;
        np->output = xcalloc((size_t)n->n_out + 1, sizeof(char *));
        for (int k = 0; k < n->n_out; k++)
            np->output[k] = g->t[n->out[k]].name;
        np->n_attribute = (size_t)n->n_attr;
        np->attribute = xcalloc((size_t)n->n_attr + 1, sizeof(*np->attribute));
        for (int k = 0; k < n->n_attr; k++) {
            const attr_t *a = &n->attrs[k];
            Onnx__AttributeProto *ap = xcalloc(1, sizeof(*ap));
            onnx__attribute_proto__init(ap);
            ap->name = a->name;
            ap->has_type = 1;
            ap->type = (Onnx__AttributeProto__AttributeType)a->type;
            if (a->type == ATTR_INT) {
                ap->has_i = 1;
                ap->i = a->i;
            } else {
                ap->n_ints = (size_t)a->n;
                ap->ints = a->ints;
            }
            np->attribute[k] = ap;
        }
        gp.node[gp.n_node++] = np;
    }
    gp.input = xcalloc((size_t)g->n_inputs + 1, sizeof(*gp.input));
    for (int i = 0; i < g->n_inputs; i++)
        gp.input[gp.n_input++] = value_info(&g->t[g->inputs[i]]);
    gp.output = xcalloc((size_t)g->n_outputs + 1, sizeof(*gp.output));
    for (int i = 0; i < g->n_outputs; i++)
        gp.output[gp.n_output++] = value_info(&g->t[g->outputs[i]]);
    gp.value_info = xcalloc((size_t)g->n_t + 1, sizeof(*gp.value_info));
    for (int i = 0; shapes && i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_out; k++) {
            int t = g->nodes[i].out[k], out = 0;
            for (int o = 0; o < g->n_outputs; o++)
                out |= g->outputs[o] == t;
            if (t >= 0 && !out)
                gp.value_info[gp.n_value_info++] = value_info(&g->t[t]);
        }
    ops.domain = "";
    ops.has_version = 1;
    ops.version = 12;
    m.has_ir_version = 1;
    m.ir_version = 7;
    m.producer_name = "rknn-trace zoo_onnx";
    m.n_opset_import = 1;
    m.opset_import = &opsp;
    m.graph = &gp;
    {
        size_t len = onnx__model_proto__get_packed_size(&m);
        uint8_t *buf = xmalloc(len ? len : 1);
        onnx__model_proto__pack(&m, buf);
        if (!(f = fopen(argv[2], "wb")) || fwrite(buf, 1, len, f) != len || fclose(f)) {
            fprintf(stderr, "zoo_onnx: cannot write %s\n", argv[2]);
            return 1;
        }
        free(buf);
    }
    for (size_t i = 0; i < gp.n_node; i++) {
        for (size_t k = 0; k < gp.node[i]->n_attribute; k++)
            free(gp.node[i]->attribute[k]);
        free(gp.node[i]->attribute);
        free(gp.node[i]->input);
        free(gp.node[i]->output);
        free(gp.node[i]->name);
        free(gp.node[i]);
    }
    for (size_t i = 0; i < gp.n_initializer; i++) {
        free(gp.initializer[i]->dims);
        free(gp.initializer[i]->float_data);
        free(gp.initializer[i]->int64_data);
        free(gp.initializer[i]);
    }
    for (size_t i = 0; i < gp.n_input; i++)
        value_info_free(gp.input[i]);
    for (size_t i = 0; i < gp.n_value_info; i++)
        value_info_free(gp.value_info[i]);
    free(gp.value_info);
    for (size_t i = 0; i < gp.n_output; i++)
        value_info_free(gp.output[i]);
    free(gp.node);
    free(gp.initializer);
    free(gp.input);
    free(gp.output);
    graph_free(g);
    return 0;
}
