/* cli/quant_cli.c — the quantization options of `rknn-trace run` and the
 * accuracy analysis that follows a quantized run (golden fp32 vs i8/fp16, per
 * layer, Toolkit2-style table). Kept apart from cmd_run.c so that the run
 * command only needs four calls: quant_cli_option, quant_cli_check,
 * quant_cli_analyse. */
#include "cli/cli.h"
#include "cli/input_file.h"
#include "cli/quant_cli.h"
#include "analyze/analyze.h"
#include "runtime/npu/npu.h"
#include "runtime/quant/quant.h"
#include "runtime/model/model.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void quant_cli_init(quant_cli *q)
{
    memset(q, 0, sizeof(*q));
    q->algo = "normal";
    q->method = "channel";
    q->cos_threshold = 0.99;
}

int quant_cli_option(int argc, char **argv, int *i, quant_cli *q)
{
    const char *a = argv[*i];
    const char **dst = NULL;

    if (cli_opt_is(a, "--quant-algo"))
        dst = &q->algo;
    else if (cli_opt_is(a, "--quant-method"))
        dst = &q->method;
    else if (cli_opt_is(a, "--dataset"))
        dst = &q->dataset;
    else if (cli_opt_is(a, "--hybrid"))
        dst = &q->hybrid;
    else if (cli_opt_is(a, "--eval"))
        dst = &q->eval;
    else if (cli_opt_is(a, "--write-quant-cfg"))
        dst = &q->write_cfg;
    else if (cli_opt_is(a, "--mean"))
        dst = &q->mean;
    else if (cli_opt_is(a, "--std"))
        dst = &q->std;
    else if (cli_opt_is(a, "--dump-golden"))
        dst = &q->dump_golden;
    else if (cli_opt_is(a, "--dump-quant"))
        dst = &q->dump_quant;
    else if (cli_opt_is(a, "--cos-threshold")) {
        const char *v = cli_opt_value(argc, argv, i);
        char *end;
        if (!v)
            return -1;
        q->cos_threshold = strtod(v, &end);
        if (*end || end == v || !(q->cos_threshold >= -1 && q->cos_threshold <= 1)) {
            cli_error("--cos-threshold takes a number in [-1, 1], got '%s'", v);
            return -1;
        }
        return 1;
    } else if (!strcmp(a, "--no-progress")) {
        q->no_progress = 1;
        return 1;
    } else {
        return 0;
    }
    if (!(*dst = cli_opt_value(argc, argv, i)))
        return -1;
    return 1;
}

int quant_cli_check(const char **quant, const quant_cli *q)
{
    int t = quant_type_parse(*quant);
    if (t < 0) {
        cli_error("-q takes fp32, fp16 or i8 (also float32, float16, int8, "
                  "asymmetric_quantized-8), got '%s'", *quant);
        return EXIT_USAGE;
    }
    /* an alias runs, is costed and is stored under the canonical name, so that
     * `ls --quant i8` finds an `-q int8` run */
    *quant = quant_type_name(t);
    if (quant_algo_parse(q->algo) < 0) {
        cli_error("--quant-algo takes normal, kl_divergence or mmse, got '%s'", q->algo);
        return EXIT_USAGE;
    }
    if (quant_method_parse(q->method) < 0) {
        cli_error("--quant-method takes channel, layer or npu, got '%s'", q->method);
        return EXIT_USAGE;
    }
    if (t == QT_FP32 && q->eval) {
        cli_error("--eval needs -q i8 or -q fp16 (the error against the fp32 golden)");
        return EXIT_USAGE;
    }
    if (t == QT_FP32 && (q->dataset || q->dump_golden || q->dump_quant ||
                         ((q->mean || q->std) && !q->image_inputs))) {
        cli_error("--dataset/--mean/--std/--dump-golden/--dump-quant need -q i8 or -q fp16");
        return EXIT_USAGE;
    }
    if ((q->hybrid || q->write_cfg) && t != QT_I8) {
        cli_error("--hybrid/--write-quant-cfg need -q i8");
        return EXIT_USAGE;
    }
    if ((q->mean || q->std) && !q->dataset && !q->image_inputs) {
        cli_error("--mean/--std apply to the images of --dataset or -i, which are missing");
        return EXIT_USAGE;
    }
    quant_preproc pp;
    char err[256];
    if (quant_preproc_parse(q->mean, q->std, &pp, err, sizeof(err))) {
        cli_error("%s", err);
        return EXIT_USAGE;
    }
    /* a chip without a float NPU mode (rv1106, rv1103) runs int8 models only */
    const npu_platform_t *plat = NULL;
    if (q->target && t != QT_I8 && !npu_platform_get(q->target, &plat, err, sizeof(err)) &&
        !npu_peak_macs(plat, NPU_FP16)) {
        cli_error("%s runs int8 models only (its NPU has no float16): add -q i8 --dataset FILE "
                  "to quantize this model", plat->name);
        return EXIT_INPUT;
    }
    /* and one without int8 (rk2118) float16 models only */
    if (q->target && t == QT_I8 && !npu_platform_get(q->target, &plat, err, sizeof(err)) &&
        !npu_peak_macs(plat, NPU_INT8)) {
        cli_error("%s runs float16 models only (its NPU has no int8): use -q fp16", plat->name);
        return EXIT_INPUT;
    }
    return EXIT_OK;
}

void quant_cli_inputs(quant_cli *q, const char *const *files, int n)
{
    q->given_inputs = n;
    q->image_inputs = cli_inputs_images(files, n);
}

int quant_cli_analyse(const quant_cli *q, const char *quant, const char *model,
                      const graph_t *g, const void *const *inputs, int json,
                      accuracy_report **out)
{
    accuracy_opts o;
    input_shape_t *shapes = xcalloc((size_t)(g->n_inputs ? g->n_inputs : 1), sizeof(*shapes));
    char err[1024] = "";
    int rc;

    *out = NULL;
    accuracy_opts_init(&o);
    o.type = quant_type_parse(quant);
    o.algo = quant_algo_parse(q->algo);
    o.method = quant_method_parse(q->method);
    o.dataset = q->dataset;
    o.nthreads = q->threads;
    o.max_memory = q->max_memory;
    o.progress = !q->no_progress && !json;
    o.dump_golden = q->dump_golden;
    o.dump_quant = q->dump_quant;
    o.keep_graph = 1;
    o.resize_static = q->resize_static;
    o.hybrid = q->hybrid;
    o.hybrid_text = q->c_cfg;
    o.hybrid_len = q->c_cfg_len;
    o.write_cfg = q->write_cfg;
    o.eval = q->eval;
    quant_preproc pp;
    quant_preproc_parse(q->mean, q->std, &pp, NULL, 0); /* checked by quant_cli_check */
    o.preproc = &pp;
    /* The run fixed every input shape: the analysis uses the same. */
    for (int j = 0; j < g->n_inputs; j++) {
        const tensor_t *t = &g->t[g->inputs[j]];
        if (q->dataset && quant_preproc_check(&pp, t, err, sizeof(err))) {
            cli_error("%s", err);
            free(shapes);
            return EXIT_USAGE;
        }
        shapes[j].name = t->name;
        shapes[j].ndim = t->ndim;
        memcpy(shapes[j].dims, t->dims, sizeof(int64_t) * (size_t)t->ndim);
    }
    if (o.type == QT_I8 && !q->dataset && !q->hybrid && quant_prequant_detect(g, NULL) != QP_QDQ)
        fprintf(stderr, "rknn-trace: warning: -q i8 without --dataset calibrates on this run's "
                "one input (%s): not a calibration; give --dataset FILE with real samples\n",
                q->given_inputs ? "the -i data" : "random data");
    if (o.type == QT_I8 && quant_prequant_detect(g, NULL) == QP_QDQ)
        fprintf(stderr, "rknn-trace: %s is pre-quantized: its own scales and zero points "
                "are used; tensors without Q/DQ %s\n", model, q->dataset
                ? "are calibrated on --dataset" : "stay in float (--dataset quantizes them)");
    rc = accuracy_run(model, shapes, g->n_inputs, inputs, &o, out, err, sizeof(err));
    free(shapes);
    if (rc) {
        cli_error("%s", err[0] ? err : rt_status_str(rc));
        return cli_exit_code(rc);
    }
    return EXIT_OK;
}

int quant_cli_container(const char *model, const char **quant, int quant_given,
                        const char **target, int target_given, quant_cli *qc)
{
    void *buf = NULL;
    size_t len = 0;
    char err[512];
    simmodel m;
    int ret = EXIT_OK;

    qc->c_cfg = NULL;
    if (rt_read_file(model, &buf, &len, err, sizeof(err)))
        return EXIT_OK; /* the loader reports it */
    if (!simmodel_is(buf, len))
        goto out;
    if (simmodel_parse(buf, len, &m, err, sizeof(err))) {
        cli_error("%s: %s", model, err);
        ret = EXIT_INPUT;
        goto out;
    }
    if (!target_given && !simmodel_meta_str(&m, "target", qc->c_target, sizeof(qc->c_target)))
        *target = qc->c_target;
    if (quant_given)
        goto out;
    if (!simmodel_meta_str(&m, "quant", qc->c_quant, sizeof(qc->c_quant)))
        *quant = qc->c_quant;
    if (!simmodel_meta_str(&m, "quant_algo", qc->c_algo, sizeof(qc->c_algo)))
        qc->algo = qc->c_algo;
    if (!simmodel_meta_str(&m, "quant_method", qc->c_method, sizeof(qc->c_method)))
        qc->method = qc->c_method;
    const simmodel_section *cfg = simmodel_find(&m, "QCFG");
    if (cfg && !strcmp(*quant, "i8") && !qc->hybrid) {
        /* the build's parameters: a new calibration decides nothing */
        qc->c_cfg = xmalloc(cfg->len ? cfg->len : 1);
        memcpy(qc->c_cfg, cfg->data, cfg->len);
        qc->c_cfg_len = cfg->len;
        snprintf(qc->c_name, sizeof(qc->c_name), "%s (QCFG)", model);
        qc->hybrid = qc->c_name;
    }
out:
    qc->target = *target;
    free(buf);
    return ret;
}
