/* cli/analyze_eval.c — `rknn-trace analyze RUN --eval FILE`: a recorded
 * quantized run's error over every sample of an evaluation list, stored with
 * the run (extra_json "eval"). The run's model, quantization type, algorithm
 * and method are simulated again; int8 parameters come from --dataset (or a
 * `build` container's own). */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "cli/quant_cli.h"
#include "runtime/quant/quant.h"
#include "util/escape.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

int analyze_eval(const char *ref, const char *db, quant_cli *qc, int json)
{
    store *st = NULL;
    store_run run;
    char err[1024] = "", model[4096] = "", quant[16] = "", algo[32] = "", method[16] = "";
    accuracy_report *acc = NULL;
    int64_t run_id = 0;
    int rc, ret = EXIT_INTERNAL;

    rc = store_open_readonly(store_default_path(db), &st, err, sizeof(err));
    if (!rc && !(rc = store_get_run(st, ref, &run, err, sizeof(err)))) {
        run_id = run.id;
        snprintf(model, sizeof(model), "%s", run.model_path ? run.model_path : "");
        snprintf(quant, sizeof(quant), "%s", run.quant ? run.quant : "");
        snprintf(algo, sizeof(algo), "%s", run.quant_algo ? run.quant_algo : "normal");
        snprintf(method, sizeof(method), "%s", run.quant_method ? run.quant_method : "channel");
        if (store_backend_of(run.backend) != BACKEND_SIM)
            rc = rt_err(err, sizeof(err), RT_EINVAL, "--eval: run %s is not a simulated run "
                        "(backend %s): nothing to simulate again", ref,
                        run.backend ? run.backend : "unknown");
        else if (strcmp(quant, "i8") && strcmp(quant, "fp16"))
            rc = rt_err(err, sizeof(err), RT_EINVAL, "--eval: run %s is not quantized (%s): "
                        "its outputs are the golden", ref, quant[0] ? quant : "fp32");
        store_run_clear(&run);
    }
    store_close(st);
    st = NULL;
    if (rc) {
        cli_error("%s", err);
        return rc == RT_EINVAL ? EXIT_INPUT : cli_exit_code(rc);
    }
    const char *q = quant, *target = NULL;
    qc->algo = algo;
    qc->method = method;
    /* a `build` container brings its parameters (its QCFG section) */
    if ((ret = quant_cli_container(model, &q, 0, &target, 0, qc)) != EXIT_OK)
        return ret;
    if (!strcmp(quant, "i8") && !qc->dataset && !qc->hybrid) {
        cli_error("--eval of an i8 run needs its calibration: --dataset FILE (or --hybrid FILE)");
        return EXIT_USAGE;
    }
    accuracy_opts o;
    quant_preproc pp;
    accuracy_opts_init(&o);
    o.type = quant_type_parse(quant);
    o.algo = quant_algo_parse(algo);
    o.method = quant_method_parse(method);
    o.dataset = qc->dataset;
    o.hybrid = qc->hybrid;
    o.hybrid_text = qc->c_cfg;
    o.hybrid_len = qc->c_cfg_len;
    o.eval = qc->eval;
    o.progress = !qc->no_progress && !json;
    if (quant_preproc_parse(qc->mean, qc->std, &pp, err, sizeof(err))) {
        cli_error("%s", err);
        return EXIT_USAGE;
    }
    o.preproc = &pp;
    rc = accuracy_run(model, NULL, 0, NULL, &o, &acc, err, sizeof(err));
    if (rc) {
        cli_error("%s", err);
        ret = cli_exit_code(rc);
        goto out;
    }
    char *doc = accuracy_eval_json(acc), id[32];
    store_run stored;
    int have_stored = 0;
    rc = store_open_existing(store_default_path(db), &st, err, sizeof(err));
    if (!rc)
        rc = store_run_set_eval(st, run_id, doc, err, sizeof(err));
    /* what it prints is read back, as `show` reads it */
    snprintf(id, sizeof(id), "%lld", (long long)run_id);
    if (!rc && !json && store_get_run(st, id, &stored, err, sizeof(err)) == RT_OK)
        have_stored = 1;
    store_close(st);
    if (!rc && !json && !have_stored) {
        cli_error("the evaluation was stored, reading it back failed: %s", err);
        free(doc);
        ret = cli_exit_code(RT_EIO);
        goto out;
    }
    if (rc) {
        cli_error("the evaluation was NOT stored: %s", err);
        free(doc);
        ret = cli_exit_code(rc);
        goto out;
    }
    if (json) {
        json_writer w;
        json_begin(&w, stdout);
        json_obj_open(&w);
        json_key(&w, "run"), json_int(&w, run_id);
        json_key(&w, "eval"), json_raw(&w, doc);
        json_obj_close(&w);
        json_end(&w);
    } else {
        run_summary sum;
        printf("run %lld (%s): %s %s/%s\n", (long long)run_id, esc_tmp(ESC_TERM, model), quant,
               algo, method);
        summary_compute(&stored, NULL, 0, NULL, 0, NULL, 0, NULL, 0, qc->cos_threshold, &sum);
        summary_print_eval(&sum, stdout);
        summary_free(&sum);
    }
    if (have_stored)
        store_run_clear(&stored);
    free(doc);
    ret = EXIT_OK;
out:
    accuracy_report_free(acc);
    free(qc->c_cfg);
    qc->c_cfg = NULL;
    return ret;
}
