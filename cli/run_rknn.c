/* cli/run_rknn.c — `rknn-trace run model.rknn` on a PC: the options, the
 * compiled graph of a vendor file costed by the NPU model, its rows
 * (record/source_predict.c) stored as a run with backend "predict", and the
 * summary printed. No numeric output is computed. */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "record/record.h"
#include "runtime/model/rknn_file.h"
#include "runtime/npu/npu.h"
#include "util/escape.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void usage(FILE *f)
{
    fputs("usage: rknn-trace run MODEL.rknn [options]   (vendor-compiled file, on a PC)\n"
          "Predicts the profile of the graph Rockchip's compiler built (its fusion, CPU/NPU\n"
          "placement, dtypes and shapes) with the NPU model, and records it (backend predict).\n"
          "No numeric outputs are computed.\n"
          "  -t, --target NAME       must match the file's target if given\n"
          "      --core-mask M       NPU cores as RKNN_NPU_CORE_*: 0 auto (default), 1, 2, 4, 3, 7\n"
          "      --sram              plan the internal buffer into SRAM (rk3588 only)\n"
          "      --npu-table         print the level-4 per-layer table this file would produce\n"
          "      --label TEXT        label of the stored run\n"
          "      --db PATH           database (default $RKNN_TRACE_DB, else ./rknn-trace.db)\n"
          "      --no-db             do not record the run\n"
          "      --json              one JSON document on stdout\n",
          f);
}

int run_rknn_is(const char *path)
{
    unsigned char head[8];
    FILE *f = fopen(path, "rb");
    size_t n;

    if (!f)
        return 0;
    n = fread(head, 1, sizeof(head), f);
    fclose(f);
    return rknn_file_is(head, n);
}

int cmd_run_rknn(int argc, char **argv)
{
    const char *model = NULL, *target = NULL, *label = NULL, *db = NULL, *v;
    int json = 0, no_db = 0, npu_table = 0, sram = 0, rc, ret = EXIT_INPUT;
    long long core_mask = 0;
    const npu_platform_t *plat;
    rknn_model *m = NULL;
    npu_graph_t *ng = NULL;
    graph_t *g = NULL;
    run_rows pred;
    int built = 0;
    char err[1024];

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "-t") || cli_opt_is(a, "--target")) {
            if (!(target = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if (cli_opt_is(a, "--label")) {
            if (!(label = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if (cli_opt_is(a, "--db")) {
            if (!(db = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if (cli_opt_is(a, "--core-mask")) {
            if (!(v = cli_opt_value(argc, argv, &i)) || (core_mask = cli_parse_core_mask(v)) < 0)
                return EXIT_USAGE;
        } else if (!strcmp(a, "--npu-table")) {
            npu_table = 1;
        } else if (!strcmp(a, "--sram")) {
            sram = 1;
        } else if (!strcmp(a, "--no-db")) {
            no_db = 1;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (a[0] == '-' && a[1]) {
            cli_error("run: %s does not apply to a vendor .rknn on a PC (%s; see run --help)", a,
                      "only its profile is predicted");
            return EXIT_USAGE;
        } else if (cli_model_arg("run", a, &model)) {
            return EXIT_USAGE;
        }
    }
    if (!model) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if ((rc = rknn_model_read(model, &m, err, sizeof(err)))) {
        cli_error("%s", err);
        return cli_exit_code(rc);
    }
    if (m->container != RKNN_C_TK2_FB && !(m->container == RKNN_C_LITE && m->lite_graph)) {
        cli_error("%s: %s file: %s; `rknn-trace inspect %s` shows what it holds", model,
                  rknn_container_name(m->container),
                  m->container == RKNN_C_LITE
                      ? "no FlatBuffer graph found after its weights, so no layer list to predict "
                        "from (only the task table is read)"
                  : m->container == RKNN_C_ENCRYPTED ? "encrypted, nothing to predict from"
                  : "no compiled layer list (Toolkit1/RKNPU1 formats are not predicted)",
                  model);
        goto out;
    }
    {
        const char *ft = m->target ? m->target : m->fb_target;
        if (!ft || !(plat = npu_platform_find(ft))) {
            cli_error("%s: compiled for %s, a chip the NPU model does not know (known: %s); "
                      "`rknn-trace inspect` shows the file, no profile is predicted", model,
                      ft ? ft : "an unstated target", npu_platform_names());
            goto out;
        }
        if (target && !npu_platform_find(target)) {
            cli_error("-t %s: unknown platform (known: %s)", target, npu_platform_names());
            ret = EXIT_USAGE;
            goto out;
        }
        if (target && npu_platform_find(target) != plat) {
            cli_error("%s: compiled for %s; it cannot run on %s (-t)", model, plat->name, target);
            ret = EXIT_USAGE;
            goto out;
        }
    }
    if (sram && !plat->sram_bytes) {
        cli_error("--sram: %s has no NPU SRAM (only rk3588 has)", plat->name);
        ret = EXIT_USAGE;
        goto out;
    }
    /* as `run` does: the database can take the run, checked before it is computed */
    if (!no_db && (rc = store_preflight(store_default_path(db), label, err, sizeof(err)))) {
        cli_error("%s", err);
        ret = cli_exit_code(rc);
        goto out;
    }
    if ((rc = predict_graph(m, plat, &ng, &g, err, sizeof(err)))) {
        cli_error("%s: %s", model, err);
        ret = cli_exit_code(rc);
        goto out;
    }
    if ((rc = npu_set_core_mask(ng, (unsigned)core_mask, err, sizeof(err)))) {
        cli_error("--core-mask: %s", err);
        ret = EXIT_USAGE;
        goto out;
    }
    if ((rc = npu_mem_plan(ng, g, sram ? npu_sram_pool_process(plat) : NULL, 0, err, sizeof(err)))) {
        cli_error("%s: memory plan: %s", model, err);
        ret = EXIT_INTERNAL;
        goto out;
    }
    npu_cost(ng);
    if ((rc = run_rows_predict(model, label, m, ng, &pred, err, sizeof(err)))) {
        cli_error("%s", err);
        ret = cli_exit_code(rc);
        goto out;
    }
    built = 1;
    /* a failure to record keeps the results: printed, then why they are not stored */
    rc = no_db ? 0 : run_rows_store(&pred, store_default_path(db), err, sizeof(err));
    if (npu_table) {
        npu_print_perf_table(json ? stderr : stdout, ng, NPU_PRINT_PREFIX);
        if (sram)
            npu_print_sram_table(json ? stderr : stdout, ng, NPU_PRINT_PREFIX);
    }
    if (!json)
        printf("%s: %s file for %s (toolkit %s), %d compiled layers\n", esc_tmp(ESC_TERM, model),
               rknn_container_name(m->container), ng->plat->name, m->toolkit ? esc_tmp(ESC_TERM, m->toolkit) : "?",
               ng->n);
    run_rows_print(&pred.run, pred.layers, pred.n_layers, NULL, 0, NULL, 0, json, 0.99, stdout);
    ret = rc ? cli_not_recorded(err) : EXIT_OK;
out:
    if (built)
        run_rows_free(&pred);
    npu_graph_free(ng);
    graph_free(g);
    rknn_model_free(m);
    return ret;
}
