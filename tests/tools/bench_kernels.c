/* bench/bench_kernels.c — times single Conv / ConvTranspose nodes with shapes
 * taken from the bundled mobile models, at 1 and 2 threads, and writes each as
 * a one-node ONNX model (caseNN.onnx, input dims in caseNN.json) so that the same
 * op can be timed in onnxruntime-node.
 *
 *   bench_kernels [OUTDIR [SUBSTRING]]   (default /tmp/rknn-trace-bench-kernels;
 *   SUBSTRING: only the cases whose name contains it)
 * Prints one line per case: index, name, our median microseconds at 1 and 2
 * threads, the fastest run at 1 and 2 threads, and the least CPU microseconds
 * of a run at 1 and 2 threads. */
#include "runtime/exec/kernels.h"
#include "runtime/exec/threadpool.h"
#include "runtime/model/model.h"
#include "util/util.h"
#include "onnx/onnx.pb-c.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

typedef struct bcase {
    const char *name;
    const char *op;
    int64_t C, M, G, H, W, k, s, pad;
} bcase;

static const bcase cases[] = {
    /* yolox_nano at 416x416 */
    {"yolox stem 12->16 3x3 @208", "Conv", 12, 16, 1, 208, 208, 3, 1, 1},
    {"yolox dw16 3x3 s2 @208", "Conv", 16, 16, 16, 208, 208, 3, 2, 1},
    {"yolox pw 16->32 @104", "Conv", 16, 32, 1, 104, 104, 1, 1, 0},
    {"yolox dw16 3x3 s1 @104", "Conv", 16, 16, 16, 104, 104, 3, 1, 1},
    {"yolox dw32 3x3 s2 @104", "Conv", 32, 32, 32, 104, 104, 3, 2, 1},
    {"yolox pw 32->64 @52", "Conv", 32, 64, 1, 52, 52, 1, 1, 0},
    {"yolox dw32 3x3 s1 @52", "Conv", 32, 32, 32, 52, 52, 3, 1, 1},
    {"yolox dw64 3x3 s1 @26", "Conv", 64, 64, 64, 26, 26, 3, 1, 1},
    {"yolox pw 128->256 @13", "Conv", 128, 256, 1, 13, 13, 1, 1, 0},
    {"yolox head 64->64 3x3 @52", "Conv", 64, 64, 1, 52, 52, 3, 1, 1},
    /* ppocrv4_det at 640x640 */
    {"ppocr stem 3->16 3x3 s2 @640", "Conv", 3, 16, 1, 640, 640, 3, 2, 1},
    {"ppocr dw32 3x3 s1 @160", "Conv", 32, 32, 32, 160, 160, 3, 1, 1},
    {"ppocr dw 5x5 s1 64 @80", "Conv", 64, 64, 64, 80, 80, 5, 1, 2},
    {"ppocr neck 96->24 3x3 @160", "Conv", 96, 24, 1, 160, 160, 3, 1, 1},
    {"ppocr head convT 24->24 k2 s2 @160", "ConvTranspose", 24, 24, 1, 160, 160, 2, 2, 0},
    /* super_resolution at 224x224 */
    {"superres 1->64 5x5 @224", "Conv", 1, 64, 1, 224, 224, 5, 1, 2},
    {"superres 64->64 3x3 @224", "Conv", 64, 64, 1, 224, 224, 3, 1, 1},
    {"superres 64->32 3x3 @224", "Conv", 64, 32, 1, 224, 224, 3, 1, 1},
    {"superres 32->9 3x3 @224", "Conv", 32, 9, 1, 224, 224, 3, 1, 1},
};

static uint64_t rng = 1;

static float frand(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((rng >> 40) & 0xffff) / 32768.0f - 1.0f;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- one-node ONNX writer ---------------------------------------------- */

static Onnx__ValueInfoProto *value_info(const char *name, int nd, const int64_t *dims)
{
    Onnx__ValueInfoProto *v = xcalloc(1, sizeof *v);
    Onnx__TypeProto *tp = xcalloc(1, sizeof *tp);
    Onnx__TypeProto__Tensor *tt = xcalloc(1, sizeof *tt);
    Onnx__TensorShapeProto *sh = xcalloc(1, sizeof *sh);
    onnx__value_info_proto__init(v);
    onnx__type_proto__init(tp);
    onnx__type_proto__tensor__init(tt);
    onnx__tensor_shape_proto__init(sh);
    sh->n_dim = nd;
    sh->dim = xcalloc(nd, sizeof *sh->dim);
    for (int i = 0; i < nd; i++) {
        sh->dim[i] = xcalloc(1, sizeof **sh->dim);
        onnx__tensor_shape_proto__dimension__init(sh->dim[i]);
        sh->dim[i]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        sh->dim[i]->dim_value = dims[i];
    }
    tt->has_elem_type = 1;
    tt->elem_type = DT_FLOAT;
    tt->shape = sh;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    v->name = (char *)name;
    v->type = tp;
    return v;
}

static Onnx__TensorProto *initializer(const char *name, int nd, const int64_t *dims, float *data)
{
    Onnx__TensorProto *t = xcalloc(1, sizeof *t);
    onnx__tensor_proto__init(t);
    t->name = (char *)name;
    t->n_dims = nd;
    t->dims = (int64_t *)dims;
    t->has_data_type = 1;
    t->data_type = DT_FLOAT;
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= dims[i];
    t->has_raw_data = 1;
    t->raw_data.len = n * sizeof(float);
    t->raw_data.data = (uint8_t *)data;
    return t;
}

static Onnx__AttributeProto *attr_ints(const char *name, int n, int64_t *v)
{
    Onnx__AttributeProto *a = xcalloc(1, sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = (char *)name;
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    a->n_ints = n;
    a->ints = v;
    return a;
}

static Onnx__AttributeProto *attr_int(const char *name, int64_t v)
{
    Onnx__AttributeProto *a = xcalloc(1, sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = (char *)name;
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    a->has_i = 1;
    a->i = v;
    return a;
}

/* Writes path; leaks its small protobuf structs (a benchmark). */
static int write_model(const char *path, const bcase *c, const int64_t *xd, const int64_t *wd,
                       const int64_t *yd, float *w, float *b)
{
    static int64_t kk[2], ss[2], pp[4];
    kk[0] = kk[1] = c->k;
    ss[0] = ss[1] = c->s;
    pp[0] = pp[1] = pp[2] = pp[3] = c->pad;
    Onnx__NodeProto node = ONNX__NODE_PROTO__INIT;
    char *ins[3] = {"x", "w", "b"}, *outs[1] = {"y"};
    Onnx__AttributeProto *attrs[4] = {attr_ints("kernel_shape", 2, kk), attr_ints("strides", 2, ss),
                                      attr_ints("pads", 4, pp), attr_int("group", c->G)};
    node.n_input = 3;
    node.input = ins;
    node.n_output = 1;
    node.output = outs;
    node.op_type = (char *)c->op;
    node.name = "n0";
    node.n_attribute = 4;
    node.attribute = attrs;
    Onnx__NodeProto *nodes[1] = {&node};
    int64_t bd[1] = {c->M};
    Onnx__TensorProto *inits[2] = {initializer("w", 4, wd, w), initializer("b", 1, bd, b)};
    Onnx__ValueInfoProto *gin[1] = {value_info("x", 4, xd)}, *gout[1] = {value_info("y", 4, yd)};
    Onnx__GraphProto graph = ONNX__GRAPH_PROTO__INIT;
    graph.name = "bench";
    graph.n_node = 1;
    graph.node = nodes;
    graph.n_initializer = 2;
    graph.initializer = inits;
    graph.n_input = 1;
    graph.input = gin;
    graph.n_output = 1;
    graph.output = gout;
    Onnx__OperatorSetIdProto ops = ONNX__OPERATOR_SET_ID_PROTO__INIT, *opsp[1] = {&ops};
    ops.domain = "";
    ops.has_version = 1;
    ops.version = 13;
    Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
    m.has_ir_version = 1;
    m.ir_version = 7;
    m.n_opset_import = 1;
    m.opset_import = opsp;
    m.producer_name = "bench_kernels";
    m.graph = &graph;
    size_t len = onnx__model_proto__get_packed_size(&m);
    uint8_t *buf = xmalloc(len);
    onnx__model_proto__pack(&m, buf);
    FILE *f = fopen(path, "wb");
    int rc = f && fwrite(buf, 1, len, f) == len ? 0 : -1;
    if (f)
        fclose(f);
    free(buf);
    return rc;
}

/* ---- timing ------------------------------------------------------------ */

static double cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* Median microseconds of 25 runs; *best gets the fastest and *cpu the least
 * CPU time (user + sys of all threads) of a run: steadier than the wall time
 * when other jobs share the machine. */
static double time_node(graph_t *g, node_t *n, struct threadpool *pool, int nthreads,
                        double *best, double *cpu)
{
    char err[256] = "";
    op_ctx c = {.nthreads = nthreads, .pool = nthreads > 1 ? pool : NULL, .err = err,
                .errlen = sizeof err};
    double t[25];
    int reps = 25;
    for (int i = 0; i < 3; i++)
        n->def->run(&c, g, n);
    *cpu = 1e300;
    for (int i = 0; i < reps; i++) {
        double t0 = rt_now_us(), c0 = cpu_us();
        if (n->def->run(&c, g, n))
            fprintf(stderr, "run failed: %s\n", err);
        t[i] = rt_now_us() - t0;
        double cu = cpu_us() - c0;
        if (cu < *cpu)
            *cpu = cu;
    }
    qsort(t, reps, sizeof t[0], cmp_d);
    *best = t[0];
    return t[reps / 2];
}

int main(int argc, char **argv)
{
    /* an option is no folder: "--help" once became one, full of cases */
    if (argc > 3 || (argc > 1 && argv[1][0] == '-')) {
        fprintf(argc > 1 && !strcmp(argv[1], "--help") ? stdout : stderr,
                "usage: bench_kernels [OUTDIR [SUBSTRING]]  (OUTDIR default "
                "/tmp/rknn-trace-bench-kernels)\n");
        return argc > 1 && !strcmp(argv[1], "--help") ? 0 : 1;
    }
    const char *dir = argc > 1 ? argv[1] : "/tmp/rknn-trace-bench-kernels";
    mkdir(dir, 0755);
    openblas_set_num_threads(1);
    struct threadpool *pool = threadpool_new(2);

    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const bcase *c = &cases[ci];
        if (argc > 2 && !strstr(c->name, argv[2]))
            continue;
        int tr = !strcmp(c->op, "ConvTranspose");
        int64_t xd[4] = {1, c->C, c->H, c->W};
        int64_t wd[4] = {tr ? c->C : c->M, tr ? c->M / c->G : c->C / c->G, c->k, c->k};
        int64_t bd[1] = {c->M};
        graph_t *g = graph_new();
        int in[3] = {graph_add_tensor(g, "x"), graph_add_tensor(g, "w"), graph_add_tensor(g, "b")};
        int out = graph_add_tensor(g, "y");
        tensor_set_shape(&g->t[in[0]], DT_FLOAT, 4, xd);
        tensor_set_shape(&g->t[in[1]], DT_FLOAT, 4, wd);
        tensor_set_shape(&g->t[in[2]], DT_FLOAT, 1, bd);
        for (int i = 0; i < 3; i++) {
            tensor_t *t = &g->t[in[i]];
            int64_t nel = tensor_numel(t);
            float *d = xaligned_alloc(nel * sizeof(float));
            for (int64_t j = 0; j < nel; j++)
                d[j] = frand();
            t->data = d;
            t->kind = TK_CONST;
        }
        graph_add_node(g, "n0", c->op, "", 3, in, 1, &out);
        node_t *n = &g->nodes[0];
        n->attrs = xcalloc(4, sizeof(attr_t));
        n->n_attr = 4;
        const char *an[3] = {"kernel_shape", "strides", "pads"};
        int64_t av[3] = {c->k, c->s, c->pad};
        for (int i = 0; i < 3; i++) {
            n->attrs[i].name = xstrdup(an[i]);
            n->attrs[i].type = ATTR_INTS;
            n->attrs[i].n = i == 2 ? 4 : 2;
            n->attrs[i].ints = xmalloc(4 * sizeof(int64_t));
            for (int j = 0; j < 4; j++)
                n->attrs[i].ints[j] = av[i];
        }
        n->attrs[3].name = xstrdup("group");
        n->attrs[3].type = ATTR_INT;
        n->attrs[3].i = c->G;
        char err[256];
        n->def = exec_find_op("", c->op);
        if (n->def->infer(g, n, err, sizeof err) || n->def->prepare(g, n, err, sizeof err)) {
            fprintf(stderr, "%s: %s\n", c->name, err);
            return 1;
        }
        tensor_t *yt = &g->t[out];
        yt->data = xaligned_alloc(tensor_nbytes(yt));
        char path[512];
        snprintf(path, sizeof path, "%s/case%02zu.onnx", dir, ci);
        write_model(path, c, xd, wd, yt->dims, g->t[in[1]].data, g->t[in[2]].data);
        snprintf(path, sizeof path, "%s/case%02zu.json", dir, ci);
        FILE *jf = fopen(path, "w");
        if (jf) {
            fprintf(jf, "[1,%lld,%lld,%lld]\n", (long long)c->C, (long long)c->H, (long long)c->W);
            fclose(jf);
        }
        double b1, b2, u1, u2;
        double t1 = time_node(g, n, pool, 1, &b1, &u1), t2 = time_node(g, n, pool, 2, &b2, &u2);
        printf("%zu\t%s\t%.1f\t%.1f\tmin %.1f\t%.1f\tcpu %.1f\t%.1f\n", ci, c->name, t1, t2, b1,
               b2, u1, u2);
        fflush(stdout);
        free(yt->data);
        yt->data = NULL;
        graph_free(g);
    }
    threadpool_free(pool);
    return 0;
}
