/* cli/opt_pending.c — the option names of the commands that still parse argv
 * by hand, for "did you mean" only (cli_command_spec). A command converted to
 * a cli_opt table (cli/opt.h) drops its entry here; tests/cli/opts.sh checks
 * that every option a command's --help names is in its table. */
#include "cli/cli.h"
#include "cli/opt.h"

#define NAME(n) {n, 0, CLI_FLAG, NULL, NULL, 0, 0, 0, 0, 0, NULL}
#define SHORT(n, s) {n, s, CLI_FLAG, NULL, NULL, 0, 0, 0, 0, 0, NULL}

static const cli_opt run_names[] = {
    SHORT("--target", 't'), SHORT("--quant", 'q'), NAME("--quant-algo"), NAME("--quant-method"),
    NAME("--dataset"), NAME("--eval"), NAME("--mean"), NAME("--std"), NAME("--hybrid"), NAME("--write-quant-cfg"),
    NAME("--cos-threshold"), NAME("--dump-golden"), NAME("--dump-quant"), SHORT("--input", 'i'),
    NAME("--shape"), NAME("--seed"), SHORT("--iters", 'n'), NAME("--warmup"),
    NAME("--max-memory"), NAME("--threads"), NAME("--core-mask"), NAME("--sram"),
    NAME("--npu-mhz"), NAME("--ddr-mhz"), NAME("--npu-table"), NAME("--dump"),
    NAME("--dump-overwrite"), NAME("--emulate"), NAME("--label"), NAME("--backend"),
    NAME("--runtime"), NAME("--root"), NAME("--db"), NAME("--no-db"), NAME("--json"),
    NAME("--no-progress"), CLI_OPT_END};
const cli_spec cli_spec_run = {"run", NULL, run_names, NULL};
