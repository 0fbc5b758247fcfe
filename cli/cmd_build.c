/* cli/cmd_build.c — `rknn-trace build MODEL.onnx -t PLATFORM [quant options]
 * -o OUT.rknn`: calibrates (int8) or rounds (fp16) as `run -q` does and writes
 * the simulator container (runtime/model/model.h, docs/sim-model-format.md):
 * the source ONNX model, the quantization parameters in the *.quantization.cfg
 * layout and the target and build options. `rknn-trace run OUT.rknn` runs it
 * with those parameters. */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "cli/quant_cli.h"
#include "runtime/api/api_custom_view.h"
#include "runtime/exec/exec.h"
#include "runtime/model/model.h"
#include "runtime/npu/npu.h"
#include "runtime/passes/passes.h"
#include "runtime/quant/quant.h"
#include "util/util.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SHAPES 64
#define MAX_SETS 512 /* RKNN_MAX_DYNAMIC_SHAPE_NUM */

static void usage(FILE *f)
{
    fputs("usage: rknn-trace build MODEL.onnx -o OUT.rknn [options]\n"
          "Writes a simulator model: rknn-trace's own container (not a vendor .rknn) with\n"
          "the ONNX graph and weights, the quantization parameters (Toolkit2's\n"
          "*.quantization.cfg layout), the target and the build options. `rknn-trace run\n"
          "OUT.rknn` and the simulated rknn_init load it.\n"
          "\n"
          "  -o, --output FILE       the container to write (required)\n"
          "  -t, --target PLATFORM   rk3588 (default), rk3576, rk3566, rk3568, rk3562, rv1106, rv1103,\n"
          "                          rv1126b, rv1106b, rv1103b, rk2118 (`rknn-trace info` lists them)\n"
          "  -q, --quant TYPE        i8 (default; needs --dataset unless the model is QDQ\n"
          "                          pre-quantized: then its own scales), fp16, fp32\n"
          "      --quant-algo A      normal (default), kl_divergence, mmse\n"
          "      --quant-method M    channel (default), layer\n"
          "      --dataset FILE      calibration list (.npy, .png, .jpg per input)\n"
          "      --mean M[,M1,M2], --std S[,S1,S2]   preprocessing of every image input\n"
          "                          (4-D NCHW, C = 1..4; an NHWC input is refused):\n"
          "                          part of the model, as Toolkit2's\n"
          "                          mean_values/std_values; rknn_init applies them to raw\n"
          "                          (uint8 NHWC) input; calibration images too\n"
          "      --reorder C0,C1,C2  channel order of the raw input (2,1,0: BGR data for an\n"
          "                          RGB model)\n"
          "      --hybrid FILE       *.quantization.cfg: fp16 layers, fixed parameters\n"
          "      --shape NAME=D0,D1,...  fix the dynamic dimensions of input NAME (one shape)\n"
          "      --dynamic-input NAME=D0,..[;NAME2=..]  one shape set (every input), repeat\n"
          "                          for more, as Toolkit2's config(dynamic_input=...); the\n"
          "                          first set is the one calibrated; rknn_init shows the\n"
          "                          largest\n"
          "      --custom-op LIB.so  a plugin library with the application's CPU custom op\n"
          "                          (exports rknn_custom_op *get_rknn_custom_op(void), as\n"
          "                          rknn_server's plugins): -q i8/fp16 run its cst* nodes\n"
          "                          through its callbacks; repeat for more op types\n"
          "      --no-progress       no calibration progress bar\n",
          f);
}

/* The calibrated graph needs an input to run its analysis on: a seeded
 * uniform [0, 1) one (splitmix64), as `run` makes without -i. */
static void fill_uniform(float *v, int64_t n, uint64_t s)
{
    for (int64_t i = 0; i < n; i++) {
        uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        v[i] = (float)((double)(z >> 11) * (1.0 / 9007199254740992.0));
    }
}

/* Both paths name one existing file (a link, another spelling). */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* "2,1,0" into v; the count, or -1 when it is no permutation of 0..N-1. */
static int parse_reorder(const char *s, int *v)
{
    int n = 0, seen = 0;
    for (const char *p = s;;) {
        char *end;
        long c = strtol(p, &end, 10);
        if (end == p || n == 4 || c < 0 || c > 3 || (seen & (1 << c)))
            return -1;
        seen |= 1 << c;
        v[n++] = (int)c;
        if (!*end)
            break;
        if (*end != ',')
            return -1;
        p = end + 1;
    }
    return seen == (1 << n) - 1 ? n : -1;
}

/* ---- --custom-op: calibrating through the application's custom ops -------------------
 * A plugin library as the SDK's rknn_server loads one for connected-board accuracy
 * analysis: it exports `rknn_custom_op *get_rknn_custom_op(void)` (rknn_custom_op.h's
 * get_custom_op_func) returning one CPU op. Its callbacks run every cst* node of that
 * type in the graphs the calibration and the analysis load (exec_custom_set_default),
 * with the tensors librknnrt hands them (runtime/api/api_custom_view.h); their
 * rknn_custom_op_get_op_attr calls resolve to the librknnrt.so next to this program,
 * loaded first with its symbols global. */
#define MAX_PLUGINS 16

typedef struct plugin_inst {
    const graph_t *g;
    int node;
    const rknn_custom_op *op;
    rknn_custom_op_context octx;
    api_custom_ref ref;          /* octx.internal_ctx */
    struct plugin_inst *next;
} plugin_inst;

static struct {
    exec_custom_hook hook;       /* first: what the executor calls */
    const rknn_custom_op *ops[MAX_PLUGINS];
    int n_ops;
    plugin_inst *insts;
} plugins;

typedef int (*plugin_cb)(rknn_custom_op_context *, rknn_custom_op_tensor *, uint32_t,
                         rknn_custom_op_tensor *, uint32_t);

static int plugin_call(plugin_inst *pi, graph_t *g, node_t *n, plugin_cb fn)
{
    rknn_custom_op_tensor *io = xcalloc((size_t)(n->n_in + n->n_out) + 1, sizeof(*io));
    uint32_t n_in;
    int k = api_custom_views(g, n, io, &n_in), r;

    pi->ref.node = n;
    r = fn(&pi->octx, io, n_in, io + n_in, (uint32_t)k - n_in);
    free(io);
    return r;
}

/* A node's instance: init and prepare at its first run in a graph, compute each run. */
static int plugin_run(exec_custom_hook *h, graph_t *g, node_t *n, char *err, size_t errlen)
{
    int ni = (int)(n - g->nodes), r;
    const rknn_custom_op *op = NULL;
    plugin_inst *pi;

    (void)h;
    for (pi = plugins.insts; pi; pi = pi->next)
        if (pi->g == g && pi->node == ni && !strcmp(pi->op->op_type, n->op))
            break;
    if (!pi) {
        for (int i = 0; i < plugins.n_ops && !op; i++)
            if (!strcmp(plugins.ops[i]->op_type, n->op))
                op = plugins.ops[i];
        if (!op)
            return rt_err(err, errlen, RT_EUNSUPPORTED, "custom op %s (node '%s'): no "
                          "--custom-op library gives op type \"%s\"", n->op, n->name, n->op);
        pi = xcalloc(1, sizeof(*pi));
        pi->g = g;
        pi->node = ni;
        pi->op = op;
        pi->octx.target = RKNN_TARGET_TYPE_CPU;
        pi->octx.internal_ctx = (rknn_custom_op_interal_context)(uintptr_t)&pi->ref;
        pi->next = plugins.insts;
        plugins.insts = pi;
        if ((op->init && (r = plugin_call(pi, g, n, op->init)) != 0) ||
            (op->prepare && (r = plugin_call(pi, g, n, op->prepare)) != 0))
            return rt_err(err, errlen, RT_EINVAL, "custom op %s (node '%s'): the plugin's "
                          "init or prepare returned %d", n->op, n->name, r);
    }
    if ((r = plugin_call(pi, g, n, pi->op->compute)) != 0)
        return rt_err(err, errlen, RT_EINVAL, "custom op %s (node '%s'): the plugin's compute "
                      "returned %d", n->op, n->name, r);
    return 0;
}

static void plugins_free(void)
{
    exec_custom_set_default(NULL);
    while (plugins.insts) {
        plugin_inst *pi = plugins.insts;
        plugins.insts = pi->next;
        if (pi->op->destroy)
            pi->op->destroy(&pi->octx);
        free(pi);
    }
    plugins.n_ops = 0; /* the libraries stay loaded: their code may still be referenced */
}

/* librknnrt.so next to this program (build layout) or in ../lib/rknn-trace, loaded
 * with global symbols, for the plugins' rknn_custom_op_get_op_attr. */
static int load_librknnrt(char *err, size_t errlen)
{
    char self[4096], path[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    char *slash;

    if (n <= 0)
        return rt_err(err, errlen, RT_EIO, "--custom-op: cannot find this program's directory");
    self[n] = 0;
    if ((slash = strrchr(self, '/')))
        *slash = 0;
    snprintf(path, sizeof(path), "%s/librknnrt.so", self);
    if (access(path, R_OK) != 0)
        snprintf(path, sizeof(path), "%s/../lib/rknn-trace/librknnrt.so", self);
    if (!dlopen(path, RTLD_NOW | RTLD_GLOBAL))
        return rt_err(err, errlen, RT_EIO, "--custom-op needs the project's librknnrt.so next "
                      "to rknn-trace (for rknn_custom_op_get_op_attr): %s", dlerror());
    return 0;
}

static int load_plugin(const char *lib, char *err, size_t errlen)
{
    typedef rknn_custom_op *(*entry_fn)(void);
    void *h;
    entry_fn entry;
    const rknn_custom_op *op;

    if (plugins.n_ops == MAX_PLUGINS)
        return rt_err(err, errlen, RT_EINVAL, "at most %d --custom-op libraries", MAX_PLUGINS);
    if (!plugins.n_ops && load_librknnrt(err, errlen))
        return RT_EIO;
    /* a path without '/' would make dlopen search the library path: name the file */
    char path[4200];
    snprintf(path, sizeof(path), "%s%s", strchr(lib, '/') ? "" : "./", lib);
    if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
        return rt_err(err, errlen, RT_EIO, "--custom-op %s: %s", lib, dlerror());
    *(void **)&entry = dlsym(h, "get_rknn_custom_op");
    if (!entry)
        return rt_err(err, errlen, RT_EINVAL, "--custom-op %s exports no get_rknn_custom_op: a "
                      "plugin library defines rknn_custom_op *get_rknn_custom_op(void), as "
                      "rknn_server's plugins do", lib);
    op = entry();
    if (!op || !memchr(op->op_type, 0, sizeof(op->op_type)) || strncmp(op->op_type, "cst", 3))
        return rt_err(err, errlen, RT_EINVAL, "--custom-op %s: get_rknn_custom_op returned %s",
                      lib, op ? "an op_type not starting with \"cst\"" : "NULL");
    if (op->target != RKNN_TARGET_TYPE_CPU || !op->compute)
        return rt_err(err, errlen, RT_EINVAL, "--custom-op %s: op %s %s", lib, op->op_type,
                      !op->compute ? "has no compute callback"
                                   : "is not a CPU op (GPU/OpenCL ops run on a board only)");
    for (int i = 0; i < plugins.n_ops; i++)
        if (!strcmp(plugins.ops[i]->op_type, op->op_type))
            return rt_err(err, errlen, RT_EINVAL, "--custom-op %s: op type %s is given twice",
                          lib, op->op_type);
    plugins.ops[plugins.n_ops++] = op;
    plugins.hook.run = plugin_run;
    exec_custom_set_default(&plugins.hook);
    return 0;
}

/* The first custom node no plugin gives, or -1. */
static int unprovided_custom(const graph_t *g)
{
    for (int i = 0; i < g->n_nodes; i++) {
        int found = 0;
        if (!exec_op_is_custom(g->nodes[i].def))
            continue;
        for (int k = 0; k < plugins.n_ops && !found; k++)
            found = !strcmp(plugins.ops[k]->op_type, g->nodes[i].op);
        if (!found)
            return i;
    }
    return -1;
}

/* The inputs mean/std/reorder apply to: 4-D NCHW with 1..4 channels. */
static int is_image_input(const tensor_t *t)
{
    return t->dtype == DT_FLOAT && t->ndim == 4 && t->dims[1] >= 1 && t->dims[1] <= 4;
}

static void write_list(json_writer *w, const float *f, const int *iv, int n)
{
    if ((!f && !iv) || n <= 0) {
        json_write_null(w);
        return;
    }
    json_arr_open(w);
    for (int k = 0; k < n; k++) {
        if (f)
            json_num(w, f[k]);
        else
            json_int(w, iv[k]);
    }
    json_arr_close(w);
}

/* One --dynamic-input set "a=1,3,64,64;b=1,10" (cut in place) into shapes[]
 * and row k of the set table, in graph-input order; every input is named once. */
static int parse_set(char *arg, const graph_t *g, int k, int64_t *dims, int *ndim,
                     const char *model, input_shape_t *shapes, int *n_shapes)
{
    char *save = NULL;
    int n = 0;
    for (char *tok = strtok_r(arg, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
        if (n == MAX_SHAPES || cli_add_shape(tok, shapes, &n, MAX_SHAPES))
            return EXIT_USAGE;
    }
    for (int j = 0; j < g->n_inputs; j++) {
        const tensor_t *t = &g->t[g->inputs[j]];
        int found = -1;
        for (int i = 0; i < n; i++)
            if (!strcmp(shapes[i].name, t->name))
                found = i;
        if (found < 0) {
            cli_error("build: --dynamic-input set %d does not give input '%s': a set names "
                      "every input of %s (NAME=D0,D1,..;NAME2=..)", k, t->name, model);
            return EXIT_USAGE;
        }
        size_t at = (size_t)k * (size_t)g->n_inputs + (size_t)j;
        ndim[at] = shapes[found].ndim;
        memcpy(dims + at * MODEL_MAX_DIMS, shapes[found].dims,
               sizeof(int64_t) * (size_t)shapes[found].ndim);
    }
    if (n != g->n_inputs) {
        cli_error("build: --dynamic-input set %d names %d inputs, %s has %d", k, n, model,
                  g->n_inputs);
        return EXIT_USAGE;
    }
    *n_shapes = n;
    return EXIT_OK;
}

/* A fresh graph prepared with one set's shapes (a set may resize a static input). */
static int check_set(const char *model, const input_shape_t *shapes, int n, char *err,
                     size_t errlen)
{
    graph_t *g = NULL;
    int rc = model_load_file(model, &g, err, errlen);
    if (!rc)
        graph_free_static_inputs(g);
    if (!rc)
        rc = passes_prepare(g, shapes, n, err, errlen);
    graph_free(g);
    return rc;
}

int cmd_build(int argc, char **argv)
{
    const char *model = NULL, *out = NULL, *target = "rk3588", *quant = "i8";
    input_shape_t shapes[MAX_SHAPES];
    int n_shapes = 0, ret = EXIT_INTERNAL, rc, qk, n_sets = 0, n_reorder = 0;
    const char *set_args[MAX_SETS], *reorder = NULL, *plugin_args[MAX_PLUGINS];
    int n_plugins = 0;
    int reorder_v[4];
    int64_t *set_dims = NULL; /* [set][input][MODEL_MAX_DIMS] */
    int *set_ndim = NULL;
    char *set_buf = NULL;
    quant_preproc pp;
    quant_cli qc;
    const npu_platform_t *plat = NULL;
    graph_t *g = NULL;
    void **bufs = NULL;
    void *onnx = NULL, *cfg = NULL;
    size_t onnx_len = 0, cfg_len = 0;
    char *meta = NULL, cfg_path[4096] = "", err[1024] = "";
    size_t meta_len = 0;
    accuracy_report *acc = NULL;

    quant_cli_init(&qc);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "-o") || cli_opt_is(a, "--output")) {
            if (!(out = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if (!strcmp(a, "-t") || cli_opt_is(a, "--target")) {
            if (!(target = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if (!strcmp(a, "-q") || cli_opt_is(a, "--quant")) {
            if (!(quant = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if (cli_opt_is(a, "--shape")) {
            if (!(v = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
            if (cli_add_shape((char *)v, shapes, &n_shapes, MAX_SHAPES))
                return EXIT_USAGE;
        } else if (cli_opt_is(a, "--dynamic-input")) {
            if (!(v = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
            if (n_sets == MAX_SETS) {
                cli_error("build: at most %d --dynamic-input sets", MAX_SETS);
                return EXIT_USAGE;
            }
            set_args[n_sets++] = v;
        } else if (cli_opt_is(a, "--custom-op")) {
            if (!(v = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
            if (n_plugins == MAX_PLUGINS) {
                cli_error("build: at most %d --custom-op libraries", MAX_PLUGINS);
                return EXIT_USAGE;
            }
            plugin_args[n_plugins++] = v;
        } else if (cli_opt_is(a, "--reorder")) {
            if (!(reorder = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if ((qk = quant_cli_option(argc, argv, &i, &qc)) != 0) {
            if (qk < 0)
                return EXIT_USAGE;
        } else if (cli_model_arg("build", a, &model)) {
            return EXIT_USAGE;
        }
    }
    if (!model || !out) {
        if (model)
            cli_error("build: -o OUT.rknn is required");
        else
            usage(stderr);
        return EXIT_USAGE;
    }
    if (same_file(model, out)) {
        cli_error("build: the output %s is the model %s itself; give another -o", out, model);
        return EXIT_USAGE;
    }
    if (npu_platform_get(target, &plat, err, sizeof(err))) {
        cli_error("%s", err);
        return EXIT_USAGE;
    }
    if (n_sets && n_shapes) {
        cli_error("build: --shape is the one-set case of --dynamic-input; give one of them");
        return EXIT_USAGE;
    }
    if (reorder && (n_reorder = parse_reorder(reorder, reorder_v)) < 0) {
        cli_error("build: --reorder takes a permutation of 0..N-1 (N <= 4), e.g. 2,1,0; got '%s'",
                  reorder);
        return EXIT_USAGE;
    }
    /* mean/std are the model's preprocessing (rknn_init applies them), not only
     * calibration's: they need no images */
    qc.image_inputs = qc.mean || qc.std;
    if ((qk = quant_cli_check(&quant, &qc)) != EXIT_OK)
        return qk;
    quant_preproc_parse(qc.mean, qc.std, &pp, NULL, 0); /* checked by quant_cli_check */
    if (qc.dump_golden || qc.dump_quant) {
        cli_error("build: --dump-golden/--dump-quant belong to rknn-trace run");
        return EXIT_USAGE;
    }
    int qt = quant_type_parse(quant);
    rc = rt_read_file(model, &onnx, &onnx_len, err, sizeof(err));
    if (!rc && simmodel_is(onnx, onnx_len))
        rc = rt_err(err, sizeof(err), RT_EINVAL, "%s is already a simulator model; build "
                    "takes the source ONNX model", model);
    if (!rc)
        rc = model_load_file(model, &g, err, sizeof(err));
    if (rc)
        goto fail;
    /* a QDQ model brings its own parameters (runtime/quant/prequant.c) */
    if (qt == QT_I8 && !qc.dataset && !qc.hybrid &&
        quant_prequant_detect(g, NULL) != QP_QDQ) {
        ret = EXIT_USAGE;
        cli_error("build -q i8 needs --dataset (calibration images or .npy), or --hybrid with "
                  "every parameter");
        goto out;
    }
    if (n_sets) {
        graph_free_static_inputs(g); /* as Toolkit2's dynamic_input resizes a static model */
        qc.resize_static = 1;
        set_dims = xcalloc((size_t)n_sets * (size_t)g->n_inputs * MODEL_MAX_DIMS, sizeof(int64_t));
        set_ndim = xcalloc((size_t)n_sets * (size_t)g->n_inputs, sizeof(int));
        for (int k = 0; k < n_sets; k++) {
            free(set_buf);
            set_buf = xstrdup(set_args[k]);
            if ((ret = parse_set(set_buf, g, k, set_dims, set_ndim, model, shapes,
                                 &n_shapes)) != EXIT_OK)
                goto out;
            /* every set must make a valid model, not only the calibrated one */
            char msg[600];
            if (k > 0 && (rc = check_set(model, shapes, n_shapes, msg, sizeof(msg)))) {
                rt_err(err, sizeof(err), rc, "--dynamic-input set %d (%.200s): %s", k,
                       set_args[k], msg);
                goto fail;
            }
        }
        free(set_buf);
        set_buf = xstrdup(set_args[0]); /* shapes[] point into it: the first set */
        parse_set(set_buf, g, 0, set_dims, set_ndim, model, shapes, &n_shapes);
    }
    rc = passes_prepare(g, shapes, n_shapes, err, sizeof(err));
    if (rc)
        goto fail;
    for (int k = 0; k < n_plugins; k++)
        if ((rc = load_plugin(plugin_args[k], err, sizeof(err))) != 0)
            goto fail;
    /* int8 calibration and the fp16 analysis run the graph: every custom node needs
     * its implementation */
    int nc = qt != QT_FP32 ? unprovided_custom(g) : -1;
    if (nc >= 0) {
        rc = rt_err(err, sizeof(err), RT_EUNSUPPORTED, "build -q %s runs the model, and node "
                    "'%s' is custom op %s: give --custom-op LIB.so, a library exporting "
                    "get_rknn_custom_op() with the application's callbacks "
                    "(docs/matmul-api.md)", quant, g->nodes[nc].name, g->nodes[nc].op);
        goto fail;
    }
    if (n_shapes && !n_sets) { /* --shape: the one set, every input as prepared */
        n_sets = 1;
        set_dims = xcalloc((size_t)(g->n_inputs ? g->n_inputs : 1) * MODEL_MAX_DIMS,
                           sizeof(int64_t));
        set_ndim = xcalloc((size_t)(g->n_inputs ? g->n_inputs : 1), sizeof(int));
        for (int j = 0; j < g->n_inputs; j++) {
            const tensor_t *t = &g->t[g->inputs[j]];
            set_ndim[j] = t->ndim;
            memcpy(set_dims + (size_t)j * MODEL_MAX_DIMS, t->dims, sizeof(int64_t) * (size_t)t->ndim);
        }
    }
    for (int j = 0; j < g->n_inputs; j++) {
        const tensor_t *t = &g->t[g->inputs[j]];
        /* Toolkit2 reads dim 1 of a 4-D ONNX input as its channels and refuses
         * mean_values of another length ("The len of mean_values ([123.675, 116.28,
         * 103.53]) for input 0 is wrong, expect 224!", mmdeploy issue 2271): an NHWC
         * input gets no silent skip either */
        if ((qc.mean || qc.std || reorder) && t->dtype == DT_FLOAT && t->ndim == 4 &&
            !is_image_input(t)) {
            char sh[64];
            rc = rt_err(err, sizeof(err), RT_EINVAL, "--mean/--std/--reorder: input '%s' is %s "
                        "and an ONNX input's channels are dim 1 (%lld here, as Toolkit2 reads "
                        "them; mean/std take 1..4 channels): a channels-last input takes its "
                        "normalisation in the model, or transpose it to NCHW", t->name,
                        tensor_shape_str(t, sh, sizeof(sh)), (long long)t->dims[1]);
            goto fail;
        }
        if ((qc.mean || qc.std || reorder) && is_image_input(t) &&
            ((rc = quant_preproc_check(&pp, t, err, sizeof(err))) ||
             (n_reorder && n_reorder != t->dims[1] &&
              (rc = rt_err(err, sizeof(err), RT_EINVAL, "--reorder gives %d channels, input "
                           "'%s' has %lld", n_reorder, t->name, (long long)t->dims[1])))))
            goto fail;
    }

    /* an op the target runs on neither its NPU nor its CPU: Toolkit2 converts such a
     * model and the board's rknn_init refuses it; here the build does */
    {
        npu_graph_t *ng = NULL;
        int bad = -1, dt = qt == QT_I8 ? DT_INT8 : qt == QT_FP16 ? DT_FLOAT16 : DT_FLOAT;
        char e[512];
        if (npu_lower_at(g, plat, dt, &ng, &bad, e, sizeof(e)) && bad < 0 && dt != DT_INT8)
            npu_lower_at(g, plat, DT_INT8, &ng, &bad, e, sizeof(e)); /* a dtype it lacks */
        npu_graph_free(ng);
        if (bad >= 0) {
            npu_unrunnable_msg(g, plat, bad, err, sizeof(err));
            rc = RT_EUNSUPPORTED;
            goto fail;
        }
    }

    if (qt != QT_FP32) {
        bufs = xcalloc((size_t)(g->n_inputs ? g->n_inputs : 1), sizeof(*bufs));
        for (int j = 0; j < g->n_inputs; j++) {
            tensor_t *t = &g->t[g->inputs[j]];
            bufs[j] = xaligned_alloc(tensor_nbytes(t) ? tensor_nbytes(t) : 1);
            if (t->dtype == DT_FLOAT)
                fill_uniform(bufs[j], tensor_numel(t), (uint64_t)j);
        }
        if (qt == QT_I8) {
            /* a private (0600, O_EXCL) file that quant_cfg_write replaces
             * whole, keeping its mode; removed at the end */
            const char *tmpdir = getenv("TMPDIR");
            snprintf(cfg_path, sizeof(cfg_path), "%s/rknn-trace-build-XXXXXX",
                     tmpdir && *tmpdir ? tmpdir : "/tmp");
            int fd = mkstemp(cfg_path);
            if (fd < 0) {
                rc = rt_err(err, sizeof(err), RT_EIO, "cannot make a temporary file in %s: %s",
                            tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
                cfg_path[0] = 0;
                goto fail;
            }
            close(fd);
            qc.write_cfg = cfg_path;
        }
        ret = quant_cli_analyse(&qc, quant, model, g, (const void *const *)bufs, 0, &acc);
        if (ret != EXIT_OK)
            goto out;
        ret = EXIT_INTERNAL;
        if (qt == QT_I8 && (rc = rt_read_file(cfg_path, &cfg, &cfg_len, err, sizeof(err))))
            goto fail;
    }

    /* META: what run and rknn_init need, and how the file was made. */
    {
        FILE *mf = open_memstream(&meta, &meta_len);
        json_writer w;
        char now[32], sha[65];
        rt_iso_time(now, sizeof(now));
        rt_sha256_hex(onnx, onnx_len, sha);
        json_begin(&w, mf);
        json_obj_open(&w);
        json_key(&w, "format"), json_str(&w, "rknn-trace-sim");
        json_key(&w, "version"), json_int(&w, SIMMODEL_VERSION);
        json_key(&w, "target"), json_str(&w, plat->name);
        json_key(&w, "quant"), json_str(&w, quant_type_name(qt));
        json_key(&w, "quant_dtype"),
            json_str(&w, qt == QT_I8 ? "asymmetric_quantized-8" : qt == QT_FP16 ? "float16" : "float32");
        json_key(&w, "quant_algo"), json_str(&w, qt == QT_I8 ? qc.algo : NULL);
        json_key(&w, "quant_method"), json_str(&w, qt == QT_I8 ? qc.method : NULL);
        json_key(&w, "dataset"), json_str(&w, qc.dataset);
        json_key(&w, "calibration_samples"), json_int(&w, acc ? acc->n_samples : 0);
        json_key(&w, "mean"), json_str(&w, qc.mean);
        json_key(&w, "std"), json_str(&w, qc.std);
        json_key(&w, "hybrid"), json_str(&w, qc.hybrid);
        json_key(&w, "inputs");
        json_arr_open(&w);
        for (int j = 0; j < g->n_inputs; j++) {
            const tensor_t *t = &g->t[g->inputs[j]];
            int img = is_image_input(t);
            json_obj_open(&w);
            json_key(&w, "name"), json_str(&w, t->name);
            json_key(&w, "mean");
            write_list(&w, img && qc.mean ? pp.mean : NULL, NULL, pp.n_mean);
            json_key(&w, "std");
            write_list(&w, img && qc.std ? pp.std : NULL, NULL, pp.n_std);
            json_key(&w, "reorder");
            write_list(&w, NULL, img && n_reorder ? reorder_v : NULL, n_reorder);
            json_obj_close(&w);
        }
        json_arr_close(&w);
        json_key(&w, "dynamic_input");
        if (!n_sets)
            json_write_null(&w);
        else
            json_arr_open(&w);
        for (int k = 0; k < n_sets; k++) {
            json_arr_open(&w);
            for (int j = 0; j < g->n_inputs; j++) {
                json_arr_open(&w);
                size_t at = (size_t)k * (size_t)g->n_inputs + (size_t)j;
                for (int d = 0; d < set_ndim[at]; d++)
                    json_int(&w, set_dims[at * MODEL_MAX_DIMS + (size_t)d]);
                json_arr_close(&w);
            }
            json_arr_close(&w);
        }
        if (n_sets)
            json_arr_close(&w);
        json_key(&w, "int8_layers"), json_int(&w, acc ? acc->n_int8_nodes : 0);
        json_key(&w, "fp16_layers"), json_int(&w, acc ? acc->n_fp16_nodes : 0);
        json_key(&w, "source"), json_str(&w, model);
        json_key(&w, "source_sha256"), json_str(&w, sha);
        json_key(&w, "created"), json_str(&w, now);
        json_key(&w, "tool"), json_str(&w, "rknn-trace");
        json_obj_close(&w);
        json_end(&w);
        fclose(mf);
    }
    {
        const char *tags[3] = {"META", "ONNX", "QCFG"};
        const void *data[3] = {meta, onnx, cfg};
        size_t lens[3] = {meta_len, onnx_len, cfg_len};
        rc = simmodel_write(out, cfg ? 3 : 2, tags, data, lens, err, sizeof(err));
        if (rc)
            goto fail;
    }
    printf("wrote %s: %s for %s", out, quant_type_name(qt), plat->name);
    if (acc && qt == QT_I8)
        printf(" (%s, %s, %d calibration samples, %d int8 layers, %d fp16 layers)", qc.algo,
               qc.method, acc->n_samples, acc->n_int8_nodes, acc->n_fp16_nodes);
    if (n_sets > 1)
        printf(", %d input shape sets", n_sets);
    printf("\n");
    ret = EXIT_OK;
    goto out;
fail:
    cli_error("%s", err[0] ? err : rt_status_str(rc));
    ret = cli_exit_code(rc);
out:
    if (cfg_path[0])
        remove(cfg_path);
    for (int j = 0; bufs && j < g->n_inputs; j++)
        free(bufs[j]);
    free(bufs);
    free(onnx);
    free(cfg);
    free(meta);
    free(set_dims);
    free(set_ndim);
    free(set_buf);
    accuracy_report_free(acc);
    graph_free(g);
    plugins_free();
    return ret;
}
