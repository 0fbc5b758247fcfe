/* cli/run_opts.c — `run`'s option table (cli/opt.h): its parsing, --help and
 * "did you mean". */
#include "cli/custom_op.h"
#include "cli/opt.h"
#include "cli/run_cli.h"
#include "util/util.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* -i NAME=FILE: the value is split in place */
static int parse_input(const char *opt, const char *v, void *target)
{
    run_inputs *in = target;
    char *arg = (char *)v, *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1] || in->n >= RUN_MAX_ARGS) {
        cli_error("-i takes NAME=FILE.npy, got '%s'", v);
        return -1;
    }
    *eq = '\0';
    in->name[in->n] = arg;
    in->file[in->n++] = eq + 1;
    return 0;
}

static int parse_shape(const char *opt, const char *v, void *target)
{
    run_shapes *s = target;
    return cli_add_shape((char *)v, s->v, &s->n, RUN_MAX_ARGS) ? -1 : 0;
}

/* --seed, --threads (at most 256), -n/--iters (from 1), --warmup: counts */
static int parse_n(const char *opt, const char *v, void *target)
{
    long long n = cli_parse_count(v);
    int iters = !strcmp(opt, "-n") || !strcmp(opt, "--iters");
    if (n < 0 || (iters && n == 0) || (!strcmp(opt, "--threads") && n > 256)) {
        cli_error("%s: bad number '%s'", opt, v);
        return -1;
    }
    if ((iters || !strcmp(opt, "--warmup")) && n > RUN_MAX_ITERS) {
        cli_error("%s: %s runs is more than the %lld allowed", opt, v, RUN_MAX_ITERS);
        return -1;
    }
    *(long long *)target = n;
    return 0;
}

/* "512M", "4G", "4GiB", "1073741824": bytes, 0 on error. */
static size_t parse_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = 0;
    if (end == s || errno || *s == '-')
        return 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    }
    if (shift && *end == 'i')
        end++;
    if (*end == 'B' || (shift && *end == 'b'))
        end++;
    if (*end || v > (SIZE_MAX >> shift))
        return 0;
    return (size_t)v << shift;
}

static int parse_memory(const char *opt, const char *v, void *target)
{
    if (!(*(size_t *)target = parse_size(v))) {
        cli_error("--max-memory takes a size such as 512M, 4G or a byte count, got '%s'", v);
        return -1;
    }
    return 0;
}

static int parse_core_mask(const char *opt, const char *v, void *target)
{
    return (*(long long *)target = cli_parse_core_mask(v)) < 0 ? -1 : 0;
}

static int parse_mhz(const char *opt, const char *v, void *target)
{
    return (*(int *)target = cli_parse_mhz(opt, v)) < 0 ? -1 : 0;
}

#define CLI_OPTS_T run_cli
static const cli_opt run_options[] = {
    CLI_OPT_STR("--target", 't', "PLATFORM", target,
                "rk3588 (default), rk3576, rk3566, rk3568, rk3562, rv1106, rv1103,\n"
                "rv1126b, rv1106b, rv1103b, rk2118 (`rknn-trace info` lists them)"),
    CLI_OPT_STR("--quant", 'q', "TYPE", quant,
                "fp32 (default), fp16, i8: i8/fp16 also run the quantized\n"
                "simulation and print its per-layer error vs fp32"),
    CLI_OPT_STR("--quant-algo", 0, "A", qc.algo, "normal (default), kl_divergence, mmse"),
    CLI_OPT_STR("--quant-method", 0, "M", qc.method,
                "channel (default), layer (weights; activations per layer),\n"
                "npu (the integers of the RV1103/RV1106 compiler's convs:\n"
                "its weights, 14-bit multipliers, ConvLeakyReluAdd; slower)"),
    CLI_OPT_STR("--dataset", 0, "FILE", qc.dataset,
                "calibration list: one line per sample, one file per input\n"
                "(.npy as is; .png/.jpg resized bilinearly to the input's\n"
                "HxW, RGB order, then (pixel - mean) / std)"),
    CLI_OPT_STR("--mean", 0, "M[,M1,M2]", qc.mean,
                "per-channel mean of the dataset images (default 0)"),
    CLI_OPT_STR("--std", 0, "S[,S1,S2]", qc.std, "per-channel std of the dataset images (default 1)"),
    CLI_OPT_STR("--hybrid", 0, "FILE", qc.hybrid,
                "*.quantization.cfg (Toolkit2 layout): layers named under\n"
                "custom_quantize_layers stay fp16; quantize_parameters fix\n"
                "activation scales/zero points"),
    CLI_OPT_STR("--write-quant-cfg", 0, "FILE", qc.write_cfg, "write the parameters used, in that layout"),
    CLI_OPT_STR("--eval", 0, "FILE", qc.eval,
                "evaluation list (--dataset's layout): every layer's and\n"
                "output's error over each sample too (min, mean, worst\n"
                "sample; stored with the run)"),
    CLI_OPT_REAL("--cos-threshold", 0, "X", qc.cos_threshold, -1, 1,
                 "name the first layer whose entire cos < X (default 0.99)"),
    CLI_OPT_STR("--dump-golden", 0, "DIR", qc.dump_golden, "layer outputs of the fp32 run (.npy)"),
    CLI_OPT_STR("--dump-quant", 0, "DIR", qc.dump_quant, "layer outputs of the quantized run (.npy)"),
    CLI_OPT_CALL("--input", 'i', "NAME=FILE", in, parse_input,
                 "input data for model input NAME (repeatable): .npy as is,\n"
                 ".png/.jpg as --dataset images (resized, --mean/--std)"),
    CLI_OPT_CALL("--shape", 0, "NAME=D0,D1,...", shapes, parse_shape,
                 "fix the dynamic dimensions of input NAME"),
    CLI_OPT_CALL("--seed", 0, "N", seed, parse_n,
                 "seed of the random inputs used when -i is absent (default 0)"),
    CLI_OPT_CALL("--iters", 'n', "N", iters, parse_n,
                 "N timed runs (at most 1000000); default: at least 10 and\n"
                 "at least 1 s of them (3 when a run takes over 1 s).\n"
                 "This PC's frame time is their median (p90, min and\n"
                 "stddev too), each layer's time its median over them"),
    CLI_OPT_CALL("--warmup", 0, "N", warmup, parse_n,
                 "untimed runs before them (default 2; 1 when the first\n"
                 "takes over 1 s)"),
    CLI_OPT_CALL("--max-memory", 0, "SIZE", max_memory, parse_memory,
                 "refuse a model whose activations and inputs need more\n"
                 "(bytes, or with K, M, G, T: 512M, 4G; default: physical\n"
                 "memory, or the process's memory limit when lower)"),
    CLI_OPT_CALL("--threads", 0, "N", threads, parse_n, "CPU threads (default: one per physical core allowed; one for a model under 32M multiply-adds)"),
    CLI_OPT_CALL("--core-mask", 0, "M", core_mask, parse_core_mask,
                 "NPU cores as RKNN_NPU_CORE_*: 0 auto (default), 1, 2, 4, 3, 7"),
    CLI_OPT_FLAG("--sram", 0, sram,
                 "put internal tensors in on-chip SRAM where possible, as\n"
                 "RKNN_FLAG_ENABLE_SRAM does (rk3588 only)"),
    CLI_OPT_CALL("--npu-mhz", 0, "N", npu_mhz, parse_mhz,
                 "predict at an NPU clock of N MHz instead of the platform's"),
    CLI_OPT_CALL("--ddr-mhz", 0, "N", ddr_mhz, parse_mhz,
                 "predict at a DDR clock of N MHz instead of the platform's\n"
                 "(both recorded with the run; 10 to 10000)"),
    CLI_OPT_FLAG("--npu-table", 0, npu_table,
                 "print the predicted per-layer table as the vendor runtime\n"
                 "does at RKNN_LOG_LEVEL=4 (and the SRAM table with --sram)"),
    CLI_OPT_STR("--dump", 0, "DIR", dump,
                "write every layer's output as .npy and DIR/index.json,\n"
                "from one untimed run; a folder that already holds a\n"
                "run's dumps (an index.json) is refused; the run records\n"
                "a hash of the folder, which analyze RUN checks"),
    CLI_OPT_FLAG("--dump-overwrite", 0, dump_overwrite, "replace the dumps of an earlier run in DIR"),
    CLI_OPT_STR("--label", 0, "TEXT", label, "a name for the run (unique), usable instead of its id"),
    CLI_OPT_STR("--backend", 0, "B", backend,
                "auto (default), sim, board: board runs the model through a\n"
                "vendor librknnrt.so (N timed runs, then one profiled run);\n"
                "auto picks it when an rknpu device is present and a runtime\n"
                "is found"),
    CLI_OPT_STR("--runtime", 0, "PATH", runtime,
                "the librknnrt.so of the board backend (default:\n"
                "$RKNN_TRACE_RUNTIME, then /usr/lib/librknnrt.so, ...)"),
    CLI_OPT_STR("--root", 0, "DIR", root, "read the board's /sys and /proc under DIR (default /)"),
    CLI_OPT_DB(db),
    CLI_OPT_FLAG("--no-db", 0, no_db,
                 "do not record the run (else the database and --label are\n"
                 "checked before the model is loaded; when recording still\n"
                 "fails, the results are printed and the exit code is not 0)"),
    CLI_OPT_FLAG("--json", 0, json, "print one JSON document on stdout"),
    CLI_OPT_LIST("--custom-op", 0, "LIB.so", plugins, CUSTOM_OP_MAX,
                 "a plugin library with the application's CPU custom op\n"
                 "(exports rknn_custom_op *get_rknn_custom_op(void), as\n"
                 "rknn_server's plugins): the model's cst* nodes of its type\n"
                 "run through its callbacks (a vendor .rknn: with --emulate);\n"
                 "repeat for more op types"),
    CLI_OPT_FLAG("--no-progress", 0, qc.no_progress,
                 "no progress (a bar on a terminal, else a line every 5 s)"),
    /* a vendor .rknn's (cli/run_rknn.c): described in the footer */
    CLI_OPT_FLAG("--emulate", 0, emulate, NULL),
    CLI_OPT_END};
#undef CLI_OPTS_T

/* The options a vendor .rknn takes (cli/run_rknn.c, the footer below); any
 * other given with one is refused there. */
static const char *const rknn_options[] = {
    "--target", "--core-mask", "--sram", "--npu-table", "--npu-mhz", "--ddr-mhz", "--label",
    "--db",     "--no-db",     "--json", "--emulate",   "--input",   "--seed",    "--dump",
    "--custom-op",
};

static int rknn_takes(const char *name)
{
    for (size_t k = 0; k < sizeof rknn_options / sizeof *rknn_options; k++)
        if (!strcmp(name, rknn_options[k]))
            return 1;
    return 0;
}

const cli_spec cli_spec_run = {
    "run",
    "usage: rknn-trace run MODEL [options]\n"
    "Runs MODEL (ONNX, or a model written by rknn-trace build, which brings its target\n"
    "and quantization) on the simulated runtime layer by layer and records the run.\n"
    "\n",
    run_options,
    "\n"
    "MODEL may be a vendor-compiled .rknn (RKNN-Toolkit2). On a PC its profile is\n"
    "predicted from the graph Rockchip's compiler built (its fusion, CPU/NPU placement,\n"
    "dtypes and shapes) with the NPU model and recorded (backend predict); no numeric\n"
    "outputs are computed. It takes -t (which must match the file's target), --core-mask,\n"
    "--sram (the internal buffer planned into SRAM), --npu-table (the level-4 per-layer\n"
    "table the file would produce), --npu-mhz, --ddr-mhz, --label, --db, --no-db, --json\n"
    "and:\n"
    "      --emulate           also compute the outputs: run the file's NPU tasks in the\n"
    "                          NPU's integer arithmetic (runtime/emu; `info` lists the\n"
    "                          chips); stops naming the first task it does not understand.\n"
    "                          The run is recorded with backend emulate\n"
    "  -i NAME=FILE.npy        --emulate: float32 input in the framework layout (NCHW),\n"
    "                          before mean/std (as rknn_inputs_set); default: --seed\n"
    "      --seed N            --emulate: seeded uniform [0,1) inputs (default 0)\n"
    "      --dump DIR          --emulate: every computed tensor as DIR/<name>.npy\n"
    "                          (float32 NCHW, dequantized), each task's rows as\n"
    "                          task_NNNN_<name>.npy, listed in DIR/tasks.json\n"
    "      --custom-op LIB.so  --emulate: the file's custom ops (cst* CPU layers)\n"
    "                          through the library's callbacks, where the application\n"
    "                          would register them (without it the run stops there)\n"};

const char *run_cli_parse(int argc, char **argv, run_cli *c, int *ret)
{
    memset(c, 0, sizeof(*c));
    c->backend = "auto";
    c->root = "/";
    c->warmup = -1;
    quant_cli_init(&c->qc);
    /* cli_parse moves the operands to the front: a copy keeps argv as typed */
    char **av = xmalloc(((size_t)argc + 1) * sizeof(*av));
    memcpy(av, argv, (size_t)argc * sizeof(*av));
    av[argc] = NULL;
    const char *model = NULL;
    int at[sizeof run_options / sizeof *run_options] = {0}, first = 0;
    int n = cli_parse_at(&cli_spec_run, argc, av, c, at);
    for (size_t k = 0; run_options[k].name; k++)
        if (at[k] && (!first || at[k] < first) && !rknn_takes(run_options[k].name))
            first = at[k];
    c->not_rknn = first ? argv[first] : NULL; /* as typed: av's front holds the operands now */
    *ret = n == CLI_PARSE_HELP ? EXIT_OK : EXIT_USAGE;
    if (n > 1)
        cli_error("run: more than one model given ('%s', '%s')", av[1], av[2]);
    else if (n == 0)
        cli_help(&cli_spec_run, stderr);
    else if (n == 1)
        model = av[1];
    free(av);
    return model;
}
