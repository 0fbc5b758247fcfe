/* cli/run_cli.h — private to cli/: the options of `run` as its cli_opt table
 * (cli/run_opts.c) reads them, for cmd_run.c, the board dispatch in
 * run_board.c and a vendor .rknn's run in run_rknn.c. */
#ifndef RT_RUN_CLI_H
#define RT_RUN_CLI_H

#include "cli/cli.h"
#include "cli/opt.h"
#include "cli/quant_cli.h"
#include "runtime/passes/passes.h"

#define RUN_MAX_ARGS 64          /* -i and --shape, each */
#define RUN_MAX_ITERS 1000000LL  /* -n and --warmup */

typedef struct run_inputs {      /* -i NAME=FILE, split at the '=' */
    const char *name[RUN_MAX_ARGS], *file[RUN_MAX_ARGS];
    int n;
} run_inputs;

typedef struct run_shapes {      /* --shape NAME=D0,D1,... */
    input_shape_t v[RUN_MAX_ARGS];
    int n;
} run_shapes;

typedef struct run_cli {
    const char *target, *quant;  /* NULL when not given (rk3588, fp32) */
    const char *dump, *label, *backend, *db, *runtime, *root;
    run_inputs in;
    run_shapes shapes;
    long long seed, iters, warmup, threads, core_mask;
    size_t max_memory;
    int npu_mhz, ddr_mhz, json, no_db, npu_table, sram, dump_overwrite, emulate;
    cli_list plugins;            /* --custom-op libraries */
    quant_cli qc;
    const char *not_rknn;        /* the first option given that a vendor .rknn does
                                  * not take, as typed ("-q"), or NULL */
} run_cli;

/* Reads argv (left as it is, but for -i values split at their '=') into c:
 * the model's path, or NULL with *ret the exit code (after --help, a usage
 * error). */
const char *run_cli_parse(int argc, char **argv, run_cli *c, int *ret);

/* `run` of a vendor .rknn on a PC with the options c read (cli/run_rknn.c):
 * its predicted profile, or with --emulate its NPU tasks computed; the exit
 * code. */
int cmd_run_rknn(const run_cli *c, const char *model);

/* `run --backend board`, or auto with an rknpu device and a runtime found:
 * 1 and *ret the run's exit code; 0 when the model runs here. */
int run_board_pick(const run_cli *c, const char *model, int *ret);

#endif
