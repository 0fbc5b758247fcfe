/* cli/cmd_build.c — `rknn-trace build MODEL.onnx -t PLATFORM [quant options]
 * -o OUT.rknn`: calibrates (int8) or rounds (fp16) as `run -q` does and writes
 * the simulator container (runtime/model/model.h, docs/sim-model-format.md):
 * the source ONNX model, the quantization parameters in the *.quantization.cfg
 * layout and the target and build options. `rknn-trace run OUT.rknn` runs it
 * with those parameters. */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "cli/custom_op.h"
#include "cli/opt.h"
#include "cli/quant_cli.h"
#include "record/inputs.h"
#include "runtime/exec/exec.h"
#include "runtime/model/model.h"
#include "runtime/npu/npu.h"
#include "runtime/passes/passes.h"
#include "runtime/quant/quant.h"
#include "util/util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SHAPES 64
#define MAX_SETS 512 /* RKNN_MAX_DYNAMIC_SHAPE_NUM */

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

/* ---- options ------------------------------------------------------------------------ */

typedef struct shape_list {
    input_shape_t v[MAX_SHAPES];
    int n;
} shape_list;

typedef struct set_list {
    const char *v[MAX_SETS];
    int n;
} set_list;

typedef struct build_opts {
    const char *out, *target, *quant, *reorder;
    shape_list shapes;
    set_list sets;
    cli_list plugins;
    quant_cli qc;
} build_opts;

static int opt_shape(const char *opt, const char *v, void *target)
{
    shape_list *l = target;
    return cli_add_shape((char *)v, l->v, &l->n, MAX_SHAPES);
}

static int opt_set(const char *opt, const char *v, void *target)
{
    set_list *l = target;
    if (l->n == MAX_SETS) {
        cli_error("build: at most %d --dynamic-input sets", MAX_SETS);
        return -1;
    }
    l->v[l->n++] = v;
    return 0;
}

#define CLI_OPTS_T build_opts
static const cli_opt build_options[] = {
    CLI_OPT_STR("--output", 'o', "FILE", out, "the container to write (required)"),
    CLI_OPT_STR("--target", 't', "PLATFORM", target,
                "rk3588 (default), rk3576, rk3566, rk3568, rk3562, rv1106, rv1103,\n"
                "rv1126b, rv1106b, rv1103b, rk2118 (`rknn-trace info` lists them)"),
    CLI_OPT_STR("--quant", 'q', "TYPE", quant,
                "i8 (default; needs --dataset unless the model is QDQ\n"
                "pre-quantized: then its own scales), fp16, fp32"),
    CLI_OPT_STR("--quant-algo", 0, "A", qc.algo, "normal (default), kl_divergence, mmse"),
    CLI_OPT_STR("--quant-method", 0, "M", qc.method, "channel (default), layer, npu"),
    CLI_OPT_STR("--dataset", 0, "FILE", qc.dataset, "calibration list (.npy, .png, .jpg per input)"),
    CLI_OPT_STR("--mean", 0, "M[,M1,M2]", qc.mean,
                "preprocessing of every image input, with --std\n"
                "(4-D NCHW, C = 1..4; an NHWC input is refused):\n"
                "part of the model, as Toolkit2's\n"
                "mean_values/std_values; rknn_init applies them to raw\n"
                "(uint8 NHWC) input; calibration images too"),
    CLI_OPT_STR("--std", 0, "S[,S1,S2]", qc.std, "the std of --mean's preprocessing"),
    CLI_OPT_STR("--reorder", 0, "C0,C1,C2", reorder,
                "channel order of the raw input (2,1,0: BGR data for an\n"
                "RGB model)"),
    CLI_OPT_STR("--hybrid", 0, "FILE", qc.hybrid, "*.quantization.cfg: fp16 layers, fixed parameters"),
    CLI_OPT_CALL("--shape", 0, "NAME=D0,D1,...", shapes, opt_shape,
                 "fix the dynamic dimensions of input NAME (one shape)"),
    CLI_OPT_CALL("--dynamic-input", 0, "NAME=D0,..[;NAME2=..]", sets, opt_set,
                 "one shape set (every input), repeat\n"
                 "for more, as Toolkit2's config(dynamic_input=...); the\n"
                 "first set is the one calibrated; rknn_init shows the\n"
                 "largest"),
    CLI_OPT_LIST("--custom-op", 0, "LIB.so", plugins, CUSTOM_OP_MAX,
                 "a plugin library with the application's CPU custom op\n"
                 "(exports rknn_custom_op *get_rknn_custom_op(void), as\n"
                 "rknn_server's plugins): -q i8/fp16 run its cst* nodes\n"
                 "through its callbacks; repeat for more op types"),
    CLI_OPT_FLAG("--no-progress", 0, qc.no_progress, "no calibration progress bar"),
    /* quant_cli's options `run` takes too, not listed: the dumps are refused,
     * the others change nothing a build writes */
    CLI_OPT_STR("--write-quant-cfg", 0, "FILE", qc.write_cfg, NULL),
    CLI_OPT_REAL("--cos-threshold", 0, "X", qc.cos_threshold, -1, 1, NULL),
    CLI_OPT_STR("--dump-golden", 0, "DIR", qc.dump_golden, NULL),
    CLI_OPT_STR("--dump-quant", 0, "DIR", qc.dump_quant, NULL),
    CLI_OPT_END};
#undef CLI_OPTS_T

const cli_spec cli_spec_build = {
    "build",
    "usage: rknn-trace build MODEL.onnx -o OUT.rknn [options]\n"
    "Writes a simulator model: rknn-trace's own container (not a vendor .rknn) with\n"
    "the ONNX graph and weights, the quantization parameters (Toolkit2's\n"
    "*.quantization.cfg layout), the target and the build options. `rknn-trace run\n"
    "OUT.rknn` and the simulated rknn_init load it.\n"
    "\n",
    build_options, NULL};

/* ---- the build, step by step ----------------------------------------------------------- */

/* Everything one build holds; each step returns an exit code (EXIT_OK: go on)
 * and prints its own error. */
typedef struct build_job {
    build_opts o;
    const char *model, *quant;
    int qt, n_sets, n_reorder, reorder_v[4];
    input_shape_t *shapes;       /* o.shapes.v: --shape, or the first --dynamic-input set */
    int n_shapes;
    int64_t *set_dims;           /* [set][input][MODEL_MAX_DIMS] */
    int *set_ndim;
    char *set_buf;
    quant_preproc pp;
    const npu_platform_t *plat;
    graph_t *g;
    void **bufs;
    void *onnx, *cfg;  /* onnx: the model whole (its external data read in) */
    size_t onnx_len, cfg_len;
    char src_sha[65];  /* of the source file as read */
    char *meta;
    size_t meta_len;
    char cfg_path[4096], err[1024];
    accuracy_report *acc;
} build_job;

/* A runtime status as the build's error (b->err, else the status's name). */
static int build_fail(build_job *b, int rc)
{
    cli_error("%s", b->err[0] ? b->err : rt_status_str(rc));
    return cli_exit_code(rc);
}

/* Options and what can be checked before the model is read. */
static int build_args(build_job *b, int argc, char **argv)
{
    build_opts *o = &b->o;
    int n, qk;

    o->target = "rk3588";
    o->quant = "i8";
    quant_cli_init(&o->qc);
    if ((n = cli_parse(&cli_spec_build, argc, argv, o)) < 0)
        return n == CLI_PARSE_HELP ? -1 : EXIT_USAGE;
    if (n > 1) {
        cli_error("build: more than one model given ('%s', '%s')", argv[1], argv[2]);
        return EXIT_USAGE;
    }
    b->model = n ? argv[1] : NULL;
    b->quant = o->quant;
    b->shapes = o->shapes.v;
    b->n_shapes = o->shapes.n;
    b->n_sets = o->sets.n;
    if (!b->model || !o->out) {
        if (b->model)
            cli_error("build: -o OUT.rknn is required");
        else
            cli_help(&cli_spec_build, stderr);
        return EXIT_USAGE;
    }
    if (same_file(b->model, o->out)) {
        cli_error("build: the output %s is the model %s itself; give another -o", o->out,
                  b->model);
        return EXIT_USAGE;
    }
    if (npu_platform_get(o->target, &b->plat, b->err, sizeof(b->err))) {
        cli_error("%s", b->err);
        return EXIT_USAGE;
    }
    if (b->n_sets && b->n_shapes) {
        cli_error("build: --shape is the one-set case of --dynamic-input; give one of them");
        return EXIT_USAGE;
    }
    if (o->reorder && (b->n_reorder = parse_reorder(o->reorder, b->reorder_v)) < 0) {
        cli_error("build: --reorder takes a permutation of 0..N-1 (N <= 4), e.g. 2,1,0; got '%s'",
                  o->reorder);
        return EXIT_USAGE;
    }
    /* mean/std are the model's preprocessing (rknn_init applies them), not only
     * calibration's: they need no images */
    o->qc.image_inputs = o->qc.mean || o->qc.std;
    if ((qk = quant_cli_check(&b->quant, &o->qc)) != EXIT_OK)
        return qk;
    quant_preproc_parse(o->qc.mean, o->qc.std, &b->pp, NULL, 0); /* checked by quant_cli_check */
    if (o->qc.dump_golden || o->qc.dump_quant) {
        cli_error("build: --dump-golden/--dump-quant belong to rknn-trace run");
        return EXIT_USAGE;
    }
    b->qt = quant_type_parse(b->quant);
    return EXIT_OK;
}

/* --dynamic-input: every set parsed and checked; shapes[] left at the first. */
static int build_sets(build_job *b)
{
    graph_t *g = b->g;
    const set_list *sets = &b->o.sets;
    int ret, rc;

    graph_free_static_inputs(g); /* as Toolkit2's dynamic_input resizes a static model */
    b->o.qc.resize_static = 1;
    b->set_dims = xcalloc((size_t)b->n_sets * (size_t)g->n_inputs * MODEL_MAX_DIMS, sizeof(int64_t));
    b->set_ndim = xcalloc((size_t)b->n_sets * (size_t)g->n_inputs, sizeof(int));
    for (int k = 0; k < b->n_sets; k++) {
        free(b->set_buf);
        b->set_buf = xstrdup(sets->v[k]);
        if ((ret = parse_set(b->set_buf, g, k, b->set_dims, b->set_ndim, b->model, b->shapes,
                             &b->n_shapes)) != EXIT_OK)
            return ret;
        /* every set must make a valid model, not only the calibrated one */
        char msg[600];
        if (k > 0 && (rc = check_set(b->model, b->shapes, b->n_shapes, msg, sizeof(msg)))) {
            rt_err(b->err, sizeof(b->err), rc, "--dynamic-input set %d (%.200s): %s", k,
                   sets->v[k], msg);
            return build_fail(b, rc);
        }
    }
    free(b->set_buf);
    b->set_buf = xstrdup(sets->v[0]); /* shapes[] point into it: the first set */
    parse_set(b->set_buf, g, 0, b->set_dims, b->set_ndim, b->model, b->shapes, &b->n_shapes);
    return EXIT_OK;
}

/* --shape: the one set, every input as prepared. */
static void build_one_set(build_job *b)
{
    const graph_t *g = b->g;

    b->n_sets = 1;
    b->set_dims = xcalloc((size_t)(g->n_inputs ? g->n_inputs : 1) * MODEL_MAX_DIMS,
                          sizeof(int64_t));
    b->set_ndim = xcalloc((size_t)(g->n_inputs ? g->n_inputs : 1), sizeof(int));
    for (int j = 0; j < g->n_inputs; j++) {
        const tensor_t *t = &g->t[g->inputs[j]];
        b->set_ndim[j] = t->ndim;
        memcpy(b->set_dims + (size_t)j * MODEL_MAX_DIMS, t->dims, sizeof(int64_t) * (size_t)t->ndim);
    }
}

/* The ONNX model read, its shapes fixed, prepared, its custom ops provided. */
static int build_load(build_job *b)
{
    const quant_cli *qc = &b->o.qc;
    int rc, ret;

    rc = rt_read_file(b->model, &b->onnx, &b->onnx_len, b->err, sizeof(b->err));
    if (!rc && simmodel_is(b->onnx, b->onnx_len))
        rc = rt_err(b->err, sizeof(b->err), RT_EINVAL, "%s is already a simulator model; build "
                    "takes the source ONNX model", b->model);
    if (!rc) { /* the source's hash; the container holds the model whole */
        void *whole;
        size_t wlen;
        char *dir = model_file_dir(b->model), msg[512];
        rt_sha256_hex(b->onnx, b->onnx_len, b->src_sha);
        rc = model_onnx_inline(b->onnx, b->onnx_len, dir, &whole, &wlen, msg, sizeof msg);
        free(dir);
        if (rc)
            rt_err(b->err, sizeof(b->err), rc, "%s: %s", b->model, msg);
        else if (whole) {
            free(b->onnx);
            b->onnx = whole, b->onnx_len = wlen;
        }
    }
    if (!rc) /* from the bytes read (whole now): the file is not read twice */
        rc = model_load_buffer(b->onnx, b->onnx_len, b->model, &b->g, b->err, sizeof(b->err));
    if (rc)
        return build_fail(b, rc);
    /* a QDQ model brings its own parameters (runtime/quant/prequant.c) */
    if (b->qt == QT_I8 && !qc->dataset && !qc->hybrid &&
        quant_prequant_detect(b->g, NULL) != QP_QDQ) {
        cli_error("build: int8 (-q i8, the default, as Toolkit2's do_quantization=True) needs "
                  "--dataset FILE (calibration images or .npy) or --hybrid with every "
                  "parameter; -q fp16 or -q fp32 needs neither");
        return EXIT_USAGE;
    }
    if (b->n_sets && (ret = build_sets(b)) != EXIT_OK)
        return ret;
    if ((rc = passes_prepare(b->g, b->shapes, b->n_shapes, b->err, sizeof(b->err))))
        return build_fail(b, rc);
    for (int k = 0; k < b->o.plugins.n; k++)
        if ((rc = custom_op_load(b->o.plugins.v[k], b->err, sizeof(b->err))) != 0)
            return build_fail(b, rc);
    /* int8 calibration and the fp16 analysis run the graph: every custom node needs
     * its implementation */
    int nc = b->qt != QT_FP32 ? custom_op_unprovided(b->g) : -1;
    if (nc >= 0) {
        rc = rt_err(b->err, sizeof(b->err), RT_EUNSUPPORTED, "build -q %s runs the model, and node "
                    "'%s' is custom op %s: give --custom-op LIB.so, a library exporting "
                    "get_rknn_custom_op() with the application's callbacks "
                    "(docs/matmul-api.md)", b->quant, b->g->nodes[nc].name, b->g->nodes[nc].op);
        return build_fail(b, rc);
    }
    if (b->n_shapes && !b->n_sets)
        build_one_set(b);
    return EXIT_OK;
}

/* --mean/--std/--reorder against each input, and an op the target runs on
 * neither its NPU nor its CPU. */
static int build_check(build_job *b)
{
    const graph_t *g = b->g;
    const quant_cli *qc = &b->o.qc;
    int rc, pre = qc->mean || qc->std || b->o.reorder;
    char *err = b->err;
    size_t errlen = sizeof(b->err);

    for (int j = 0; j < g->n_inputs; j++) {
        const tensor_t *t = &g->t[g->inputs[j]];
        /* Toolkit2 reads dim 1 of a 4-D ONNX input as its channels and refuses
         * mean_values of another length ("The len of mean_values ([123.675, 116.28,
         * 103.53]) for input 0 is wrong, expect 224!", mmdeploy issue 2271): an NHWC
         * input gets no silent skip either */
        if (pre && t->dtype == DT_FLOAT && t->ndim == 4 && !is_image_input(t)) {
            char sh[64];
            rc = rt_err(err, errlen, RT_EINVAL, "--mean/--std/--reorder: input '%s' is %s "
                        "and an ONNX input's channels are dim 1 (%lld here, as Toolkit2 reads "
                        "them; mean/std take 1..4 channels): a channels-last input takes its "
                        "normalisation in the model, or transpose it to NCHW", t->name,
                        tensor_shape_str(t, sh, sizeof(sh)), (long long)t->dims[1]);
            return build_fail(b, rc);
        }
        if (pre && is_image_input(t) &&
            ((rc = quant_preproc_check(&b->pp, t, err, errlen)) ||
             (b->n_reorder && b->n_reorder != t->dims[1] &&
              (rc = rt_err(err, errlen, RT_EINVAL, "--reorder gives %d channels, input "
                           "'%s' has %lld", b->n_reorder, t->name, (long long)t->dims[1])))))
            return build_fail(b, rc);
    }

    /* Toolkit2 converts such a model and the board's rknn_init refuses it; here
     * the build does */
    npu_graph_t *ng = NULL;
    int bad = -1, dt = b->qt == QT_I8 ? DT_INT8 : b->qt == QT_FP16 ? DT_FLOAT16 : DT_FLOAT;
    char e[512];
    if (npu_lower_at(g, b->plat, dt, &ng, &bad, e, sizeof(e)) && bad < 0 && dt != DT_INT8)
        npu_lower_at(g, b->plat, DT_INT8, &ng, &bad, e, sizeof(e)); /* a dtype it lacks */
    npu_graph_free(ng);
    if (bad >= 0) {
        npu_unrunnable_msg(g, b->plat, bad, err, errlen);
        return build_fail(b, RT_EUNSUPPORTED);
    }
    return EXIT_OK;
}

/* int8 calibration (its parameters into b->cfg) or the fp16 analysis, on a
 * seeded input. */
static int build_calibrate(build_job *b)
{
    graph_t *g = b->g;
    int rc, ret;

    if (b->qt == QT_FP32)
        return EXIT_OK;
    b->bufs = xcalloc((size_t)(g->n_inputs ? g->n_inputs : 1), sizeof(*b->bufs));
    for (int j = 0; j < g->n_inputs; j++) {
        tensor_t *t = &g->t[g->inputs[j]];
        b->bufs[j] = xaligned_alloc(tensor_nbytes(t) ? tensor_nbytes(t) : 1);
        /* the calibrated graph's analysis input: run's seeded one (seed 0),
         * floats in [0, 1), token ids under their table's rows */
        if ((rc = seed_input_fill_below(t->dtype, tensor_numel(t), 0, j,
                                        seed_input_bound(g, g->inputs[j]), b->bufs[j]))) {
            rt_err(b->err, sizeof(b->err), rc, "input '%s': no random generator for dtype %s",
                   t->name, dtype_name(t->dtype));
            return build_fail(b, rc);
        }
    }
    if (b->qt == QT_I8) {
        /* a private (0600, O_EXCL) file that quant_cfg_write replaces
         * whole, keeping its mode; removed at the end */
        const char *tmpdir = getenv("TMPDIR");
        snprintf(b->cfg_path, sizeof(b->cfg_path), "%s/rknn-trace-build-XXXXXX",
                 tmpdir && *tmpdir ? tmpdir : "/tmp");
        int fd = mkstemp(b->cfg_path);
        if (fd < 0) {
            rc = rt_err(b->err, sizeof(b->err), RT_EIO, "cannot make a temporary file in %s: %s",
                        tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
            b->cfg_path[0] = 0;
            return build_fail(b, rc);
        }
        close(fd);
        b->o.qc.write_cfg = b->cfg_path;
    }
    ret = quant_cli_analyse(&b->o.qc, b->quant, b->model, g, (const void *const *)b->bufs, 0,
                            &b->acc);
    if (ret != EXIT_OK)
        return ret;
    if (b->qt == QT_I8 &&
        (rc = rt_read_file(b->cfg_path, &b->cfg, &b->cfg_len, b->err, sizeof(b->err))))
        return build_fail(b, rc);
    return EXIT_OK;
}

static void build_meta_inputs(const build_job *b, json_writer *w)
{
    const graph_t *g = b->g;
    const quant_cli *qc = &b->o.qc;

    json_key(w, "inputs");
    json_arr_open(w);
    for (int j = 0; j < g->n_inputs; j++) {
        const tensor_t *t = &g->t[g->inputs[j]];
        int img = is_image_input(t);
        json_obj_open(w);
        json_key(w, "name"), json_str(w, t->name);
        json_key(w, "mean");
        write_list(w, img && qc->mean ? b->pp.mean : NULL, NULL, b->pp.n_mean);
        json_key(w, "std");
        write_list(w, img && qc->std ? b->pp.std : NULL, NULL, b->pp.n_std);
        json_key(w, "reorder");
        write_list(w, NULL, img && b->n_reorder ? b->reorder_v : NULL, b->n_reorder);
        json_obj_close(w);
    }
    json_arr_close(w);
    json_key(w, "dynamic_input");
    if (!b->n_sets)
        json_write_null(w);
    else
        json_arr_open(w);
    for (int k = 0; k < b->n_sets; k++) {
        json_arr_open(w);
        for (int j = 0; j < g->n_inputs; j++) {
            json_arr_open(w);
            size_t at = (size_t)k * (size_t)g->n_inputs + (size_t)j;
            for (int d = 0; d < b->set_ndim[at]; d++)
                json_int(w, b->set_dims[at * MODEL_MAX_DIMS + (size_t)d]);
            json_arr_close(w);
        }
        json_arr_close(w);
    }
    if (b->n_sets)
        json_arr_close(w);
}

/* META: what run and rknn_init need, and how the file was made. */
static void build_meta(build_job *b)
{
    FILE *mf = open_memstream(&b->meta, &b->meta_len);
    const quant_cli *qc = &b->o.qc;
    const accuracy_report *acc = b->acc;
    int qt = b->qt;
    json_writer w;
    char now[32], sha[65];

    rt_iso_time(now, sizeof(now));
    memcpy(sha, b->src_sha, sizeof sha);
    json_begin(&w, mf);
    json_obj_open(&w);
    json_key(&w, "format"), json_str(&w, "rknn-trace-sim");
    json_key(&w, "version"), json_int(&w, SIMMODEL_VERSION);
    json_key(&w, "target"), json_str(&w, b->plat->name);
    json_key(&w, "quant"), json_str(&w, quant_type_name(qt));
    json_key(&w, "quant_dtype"),
        json_str(&w, qt == QT_I8 ? "asymmetric_quantized-8" : qt == QT_FP16 ? "float16" : "float32");
    json_key(&w, "quant_algo"), json_str(&w, qt == QT_I8 ? qc->algo : NULL);
    json_key(&w, "quant_method"), json_str(&w, qt == QT_I8 ? qc->method : NULL);
    json_key(&w, "dataset"), json_str(&w, qc->dataset);
    json_key(&w, "calibration_samples"), json_int(&w, acc ? acc->n_samples : 0);
    json_key(&w, "mean"), json_str(&w, qc->mean);
    json_key(&w, "std"), json_str(&w, qc->std);
    json_key(&w, "hybrid"), json_str(&w, qc->hybrid);
    build_meta_inputs(b, &w);
    json_key(&w, "int8_layers"), json_int(&w, acc ? acc->n_int8_nodes : 0);
    json_key(&w, "fp16_layers"), json_int(&w, acc ? acc->n_fp16_nodes : 0);
    json_key(&w, "source"), json_str(&w, b->model);
    json_key(&w, "source_sha256"), json_str(&w, sha);
    json_key(&w, "created"), json_str(&w, now);
    json_key(&w, "tool"), json_str(&w, "rknn-trace");
    json_obj_close(&w);
    json_end(&w);
    fclose(mf);
}

static int build_write(build_job *b)
{
    const char *tags[3] = {"META", "ONNX", "QCFG"};
    const void *data[3] = {b->meta, b->onnx, b->cfg};
    size_t lens[3] = {b->meta_len, b->onnx_len, b->cfg_len};
    int rc = simmodel_write(b->o.out, b->cfg ? 3 : 2, tags, data, lens, b->err, sizeof(b->err));

    if (rc)
        return build_fail(b, rc);
    printf("wrote %s: %s for %s", b->o.out, quant_type_name(b->qt), b->plat->name);
    if (b->acc && b->qt == QT_I8)
        printf(" (%s, %s, %d calibration samples, %d int8 layers, %d fp16 layers)", b->o.qc.algo,
               b->o.qc.method, b->acc->n_samples, b->acc->n_int8_nodes, b->acc->n_fp16_nodes);
    if (b->n_sets > 1)
        printf(", %d input shape sets", b->n_sets);
    printf("\n");
    return EXIT_OK;
}

static void build_job_free(build_job *b)
{
    if (b->cfg_path[0])
        remove(b->cfg_path);
    for (int j = 0; b->bufs && j < b->g->n_inputs; j++)
        free(b->bufs[j]);
    free(b->bufs);
    free(b->onnx);
    free(b->cfg);
    free(b->meta);
    free(b->set_dims);
    free(b->set_ndim);
    free(b->set_buf);
    accuracy_report_free(b->acc);
    graph_free(b->g);
    custom_op_free();
    free(b);
}

int cmd_build(int argc, char **argv)
{
    build_job *b = xcalloc(1, sizeof(*b));
    int ret = build_args(b, argc, argv);

    if (ret < 0) { /* --help */
        free(b);
        return EXIT_OK;
    }
    if (ret == EXIT_OK)
        ret = build_load(b);
    if (ret == EXIT_OK)
        ret = build_check(b);
    if (ret == EXIT_OK)
        ret = build_calibrate(b);
    if (ret == EXIT_OK) {
        build_meta(b);
        ret = build_write(b);
    }
    build_job_free(b);
    return ret;
}
