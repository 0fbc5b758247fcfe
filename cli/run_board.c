/* cli/run_board.c — `run MODEL --backend board`: the run on the vendor runtime
 * and its rows (record/source_board.c) recorded, then the summary `show`
 * prints (also with --no-db, from the rows) and the timing line. */
#include "cli/cli.h"
#include "cli/run_cli.h"
#include "record/board_facts.h"
#include "record/rows.h"
#include "record/source_board.h"
#include "record/store_run.h"
#include "util/util.h"

#include <stdio.h>
#include <string.h>

int run_board(const run_board_opts *o)
{
    board_exec_opts bo = {o->model, o->runtime, o->root, o->target, o->label,
                          o->no_db ? NULL : store_default_path(o->db), o->iters, o->warmup,
                          o->seed, o->in_name, o->in_file, o->n_in, o->dump};
    board_exec_out res;
    run_rows rows;
    char err[1024] = "", idbuf[32];
    int rc, ret;

    if ((rc = board_exec(&bo, &rows, &res, err, sizeof err))) {
        cli_error("%s", err);
        return cli_exit_code(rc);
    }
    if (res.no_dumps)
        fprintf(stderr, "rknn-trace: warning: the runtime wrote no level-5 dumps into %s\n",
                res.dump_dir);
    if (o->no_db || (rc = run_rows_store(&rows, store_default_path(o->db), err, sizeof err))) {
        /* not stored (--no-db, or the database refused it): the summary `show`
         * would print, from the rows, then the timing line (not in a JSON document) */
        rows.run.n_layers = rows.n_layers;
        run_rows_print(&rows.run, rows.layers, rows.n_layers, rows.npu_rows, rows.n_npu_rows,
                       rows.outs, rows.n_outs, rows.acc, rows.n_acc, o->json, 0.99, stdout);
        if (!o->json)
            printf("board: %s, %lld runs: rknn_run median %.1f us (min %.1f, p90 %.1f); profiled "
                   "run: %d layers, %lld us\n", o->runtime, res.iters, res.times.median,
                   res.times.min, res.times.p90, res.n_layers, (long long)res.perf_run_us);
        run_rows_free(&rows);
        return o->no_db ? EXIT_OK : cli_not_recorded(err);
    }
    /* recorded: the same summary `show` prints */
    snprintf(idbuf, sizeof idbuf, "%lld", (long long)rows.run.id);
    char *av[] = {"show", idbuf, "--db", (char *)store_default_path(o->db), o->json ? "--json" : NULL, NULL};
    ret = cmd_show(o->json ? 5 : 4, av);
    if (!o->json)
        printf("board: %s, %lld runs: rknn_run median %.1f us (min %.1f, p90 %.1f); profiled run "
               "%lld us (RKNN_QUERY_PERF_RUN), %d layers; %d load samples\n", o->runtime,
               res.iters, res.times.median, res.times.min, res.times.p90,
               (long long)res.perf_run_us, res.n_layers, res.n_load);
    run_rows_free(&rows);
    return ret;
}

int run_board_pick(const run_cli *c, const char *model, int *ret)
{
    /* auto: the board when it has an NPU and a vendor runtime is found */
    const char *rt_path = board_runtime_find(c->runtime);
    /* auto: the simulated runtime with --custom-op (the board's runtime takes the
     * application's registration, not a plugin) */
    if (strcmp(c->backend, "board") &&
        !(!strcmp(c->backend, "auto") && !c->plugins.n && rt_path && board_npu_present(c->root)))
        return 0;
    *ret = EXIT_USAGE;
    if (c->plugins.n) {
        cli_error("--backend board: --custom-op runs on the simulated runtime; on a board the "
                  "application registers its ops with rknn_register_custom_ops");
    } else if (c->npu_mhz || c->ddr_mhz) {
        cli_error("--backend board: --npu-mhz/--ddr-mhz set the clocks of a prediction; "
                  "the board runs at its own");
    } else if (!rt_path) {
        cli_error("--backend board: no librknnrt.so found (--runtime PATH, $RKNN_TRACE_RUNTIME, "
                  "/usr/lib/librknnrt.so, ...)");
        *ret = EXIT_INPUT;
    } else if (c->quant) {
        cli_error("--backend board: -q does not apply (the model file brings its "
                  "quantization)");
    } else {
        run_board_opts bo = {model, rt_path, c->root, c->target, c->label, c->db, c->iters,
                             c->warmup, c->seed, c->json, c->no_db, c->in.name, c->in.file,
                             c->in.n, c->dump};
        *ret = run_board(&bo);
    }
    return 1;
}
