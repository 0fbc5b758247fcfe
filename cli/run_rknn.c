/* cli/run_rknn.c — `rknn-trace run model.rknn` on a PC: the options, the
 * compiled graph of a vendor file costed by the NPU model, its rows
 * (record/source_predict.c) stored as a run with backend "predict", and the
 * summary printed. No numeric output is computed. */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "record/record.h"
#include "runtime/model/rknn_file.h"
#include "runtime/emu/emu.h"
#include "runtime/npu/npu.h"
#include "dump/dump.h"
#include "util/escape.h"
#include "util/util.h"

#include <errno.h>
#include <math.h>
#include <sys/stat.h>
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
          "      --npu-mhz N         predict at an NPU clock of N MHz instead of the platform's\n"
          "      --ddr-mhz N         predict at a DDR clock of N MHz instead of the platform's\n"
          "                          (both recorded with the run; 10 to 10000)\n"
          "      --label TEXT        label of the stored run\n"
          "      --db PATH           database (default $RKNN_TRACE_DB, else ./rknn-trace.db)\n"
          "      --no-db             do not record the run\n"
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

static void emulate_dump_path(char *buf, size_t n, const char *dir, const char *name)
{
    size_t k = (size_t)snprintf(buf, n, "%s/", dir);
    for (const char *s = name; *s && k + 5 < n; s++)
        buf[k++] = (*s == '/' || *s == '\\' || *s == ':') ? '_' : *s;
    snprintf(buf + k, n - k, ".npy");
}

static void emulate_print_output(FILE *f, const char *name, const char *shape, const float *v,
                                 const int64_t *dims)
{
    int64_t n = dims[0] * dims[1] * dims[2] * dims[3];
    double lo = n ? v[0] : 0, hi = lo, sum = 0;
    for (int64_t i = 0; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
        sum += v[i];
    }
    fprintf(f, "output %s %s float32 min %.6g max %.6g mean %.6g\n", esc_tmp(ESC_TERM, name),
            shape, lo, hi, n ? sum / (double)n : 0.0);
}

/* reads the inputs (-i NAME=FILE.npy, else seeded) and runs the tasks */
static int emulate_run(const char *model, const rknn_model *m, const char *const *spec, int n_spec,
                       long long seed, const char *dump, emu_result *er, char *err, size_t errlen)
{
    void *file = NULL;
    size_t len = 0;
    float *in[16] = {0};
    int n_in = 0, rc;

    if ((rc = rt_read_file(model, &file, &len, err, errlen)))
        return rc;
    for (int i = 0; i < m->n_io && !rc; i++) {
        const rknn_io *io = &m->io[i];
        const rknn_tensor *t = io->tensor >= 0 ? &m->tensors[io->tensor] : NULL;
        int64_t n = 1;
        if (io->is_output)
            continue;
        if (n_in >= 16 || !t || t->nd != 4) {
            rc = rt_err(err, errlen, RT_EUNSUPPORTED, "input %s: not a 4-D tensor", io->name);
            break;
        }
        for (int d = 0; d < 4; d++)
            n *= t->shape[d];
        const char *path = NULL;
        size_t nl = strlen(io->name);
        for (int k = 0; k < n_spec; k++)
            if (!strncmp(spec[k], io->name, nl) && spec[k][nl] == '=')
                path = spec[k] + nl + 1;
        if (!(in[n_in] = malloc(sizeof(float) * (size_t)n))) {
            rc = rt_err(err, errlen, RT_ENOMEM, "out of memory");
            break;
        }
        if (path) {
            npy_array a;
            if ((rc = npy_read(path, &a, err, errlen)))
                break;
            if (a.dtype != DT_FLOAT || a.count != (size_t)n)
                rc = rt_err(err, errlen, RT_ESHAPE, "%s: input %s needs %lld float32 values", path,
                            io->name, (long long)n);
            else
                memcpy(in[n_in], a.data, sizeof(float) * (size_t)n);
            npy_free(&a);
        } else {
            rc = seed_input_fill(DT_FLOAT, n, seed, n_in, in[n_in]);
        }
        n_in++;
    }
    for (int k = 0; k < n_spec && !rc; k++) {
        int found = 0;
        for (int i = 0; i < m->n_io; i++) {
            size_t nl = strlen(m->io[i].name);
            found |= !m->io[i].is_output && !strncmp(spec[k], m->io[i].name, nl) && spec[k][nl] == '=';
        }
        if (!found)
            rc = rt_err(err, errlen, RT_ENOTFOUND, "-i %s: the file has no input of that name",
                        spec[k]);
    }
    if (!rc && dump && mkdir(dump, 0777) && errno != EEXIST)
        rc = rt_err(err, errlen, RT_EIO, "--dump %s: %s", dump, strerror(errno));
    if (!rc)
        rc = emu_exec(m, file, len, (const float *const *)in, n_in, dump, er, err, errlen);
    for (int i = 0; i < n_in; i++)
        free(in[i]);
    free(file);
    return rc;
}

/* the options of `run model.rknn` */
typedef struct {
    const char *model, *target, *label, *db, *dump;
    const char *in_spec[16];
    int n_in_spec, emulate, json, no_db, npu_table, sram, npu_mhz, ddr_mhz;
    long long seed, core_mask;
} rknn_run_opts;

/* what a run builds, freed by rknn_run_free whatever step stopped it */
typedef struct {
    rknn_model *m;
    const npu_platform_t *plat;
    npu_platform_t plat_clk; /* the platform at --npu-mhz/--ddr-mhz */
    npu_graph_t *ng;
    graph_t *g;
    run_rows pred;
    int built;
    emu_result er;
    store_output *eouts;
    char **epaths, **eshapes;
} rknn_run;

/* -1: go on; else the exit code (help, or a usage error) */
static int parse_args(int argc, char **argv, rknn_run_opts *o)
{
    const char *v;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "-t") || cli_opt_is(a, "--target")) {
            if (!(o->target = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if (cli_opt_is(a, "--label")) {
            if (!(o->label = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if (cli_opt_is(a, "--db")) {
            if (!(o->db = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if (cli_opt_is(a, "--core-mask")) {
            if (!(v = cli_opt_value(argc, argv, &i)) || (o->core_mask = cli_parse_core_mask(v)) < 0)
                return EXIT_USAGE;
        } else if (!strcmp(a, "--emulate")) {
            o->emulate = 1;
        } else if (!strcmp(a, "-i") || cli_opt_is(a, "--input")) {
            if (!(v = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
            if (o->n_in_spec >= 16) {
                cli_error("-i: at most 16 inputs");
                return EXIT_USAGE;
            }
            o->in_spec[o->n_in_spec++] = v;
        } else if (cli_opt_is(a, "--seed")) {
            if (!(v = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
            o->seed = strtoll(v, NULL, 0);
        } else if (cli_opt_is(a, "--dump")) {
            if (!(o->dump = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if (cli_opt_is(a, "--npu-mhz") || cli_opt_is(a, "--ddr-mhz")) {
            int *dst = cli_opt_is(a, "--npu-mhz") ? &o->npu_mhz : &o->ddr_mhz;
            if (!(v = cli_opt_value(argc, argv, &i)) || (*dst = cli_parse_mhz(a, v)) < 0)
                return EXIT_USAGE;
        } else if (!strcmp(a, "--npu-table")) {
            o->npu_table = 1;
        } else if (!strcmp(a, "--sram")) {
            o->sram = 1;
        } else if (!strcmp(a, "--no-db")) {
            o->no_db = 1;
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (a[0] == '-' && a[1]) {
            cli_error("run: %s does not apply to a vendor .rknn on a PC (%s; see run --help)", a,
                      "only its profile is predicted");
            return EXIT_USAGE;
        } else if (cli_model_arg("run", a, &o->model)) {
            return EXIT_USAGE;
        }
    }
    return -1;
}

/* the checks that need no file read: 0, or EXIT_USAGE */
static int validate_args(const rknn_run_opts *o)
{
    if (!o->model) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!o->emulate && (o->n_in_spec || o->dump)) {
        cli_error("run %s: -i and --dump need --emulate (without it nothing is computed)", o->model);
        return EXIT_USAGE;
    }
    for (int k = 0; k < o->n_in_spec; k++) {
        const char *eq = strchr(o->in_spec[k], '=');
        if (!eq || eq == o->in_spec[k] || !eq[1]) {
            cli_error("-i %s: want NAME=FILE.npy", o->in_spec[k]);
            return EXIT_USAGE;
        }
    }
    if (o->emulate && !run_rknn_is(o->model)) {
        cli_error("--emulate runs a vendor .rknn's NPU tasks; %s is not one", o->model);
        return EXIT_USAGE;
    }
    return 0;
}

/* reads the file and picks its platform (checked against -t, --sram), then
 * applies the clocks: 0, or the exit code */
static int load_model(const rknn_run_opts *o, rknn_run *s)
{
    const char *model = o->model, *target = o->target;
    char err[1024];
    int rc;
    if ((rc = rknn_model_read(model, &s->m, err, sizeof(err)))) {
        cli_error("%s", err);
        return cli_exit_code(rc);
    }
    const rknn_model *m = s->m;
    if (m->container != RKNN_C_TK2_FB && !(m->container == RKNN_C_LITE && m->lite_graph)) {
        cli_error("%s: %s file: %s; `rknn-trace inspect %s` shows what it holds", model,
                  rknn_container_name(m->container),
                  m->container == RKNN_C_LITE
                      ? "no FlatBuffer graph found after its weights, so no layer list to predict "
                        "from (only the task table is read)"
                  : m->container == RKNN_C_ENCRYPTED ? "encrypted, nothing to predict from"
                  : "no compiled layer list (Toolkit1/RKNPU1 formats are not predicted)",
                  model);
        return EXIT_INPUT;
    }
    const char *ft = m->target ? m->target : m->fb_target;
    if (!ft || !(s->plat = npu_platform_find(ft))) {
        cli_error("%s: compiled for %s, a chip the NPU model does not know (known: %s); "
                  "`rknn-trace inspect` shows the file, no profile is predicted", model,
                  ft ? ft : "an unstated target", npu_platform_names());
        return EXIT_INPUT;
    }
    if (target && !npu_platform_find(target)) {
        cli_error("-t %s: unknown platform (known: %s)", target, npu_platform_names());
        return EXIT_USAGE;
    }
    if (target && npu_platform_find(target) != s->plat) {
        cli_error("%s: compiled for %s; it cannot run on %s (-t)", model, s->plat->name, target);
        return EXIT_USAGE;
    }
    if (o->sram && !s->plat->sram_bytes) {
        cli_error("--sram: %s has no NPU SRAM (only rk3588 has)", s->plat->name);
        return EXIT_USAGE;
    }
    s->plat = cli_platform_clocks(&s->plat_clk, s->plat, o->npu_mhz, o->ddr_mhz);
    return 0;
}

/* the compiled graph costed by the NPU model, as rows: 0, or the exit code */
static int predict(const rknn_run_opts *o, rknn_run *s)
{
    char err[1024];
    int rc;
    /* as `run` does: the database can take the run, checked before it is computed */
    if (!o->no_db && (rc = store_preflight(store_default_path(o->db), o->label, err, sizeof(err)))) {
        cli_error("%s", err);
        return cli_exit_code(rc);
    }
    if ((rc = predict_graph(s->m, s->plat, &s->ng, &s->g, err, sizeof(err)))) {
        cli_error("%s: %s", o->model, err);
        return cli_exit_code(rc);
    }
    if ((rc = npu_set_core_mask(s->ng, (unsigned)o->core_mask, err, sizeof(err)))) {
        cli_error("--core-mask: %s", err);
        return EXIT_USAGE;
    }
    if ((rc = npu_mem_plan(s->ng, s->g, o->sram ? npu_sram_pool_process(s->plat) : NULL, 0, err,
                           sizeof(err)))) {
        cli_error("%s: memory plan: %s", o->model, err);
        return EXIT_INTERNAL;
    }
    npu_cost(s->ng);
    if ((rc = run_rows_predict(o->model, o->label, s->m, s->ng, &s->pred, err, sizeof(err)))) {
        cli_error("%s", err);
        return cli_exit_code(rc);
    }
    s->built = 1;
    return 0;
}

/* --emulate: the NPU tasks computed, their outputs printed (unless --json)
 * and made the run's outputs: 0, or the exit code */
static int emulate(const rknn_run_opts *o, rknn_run *s)
{
    char err[1024];
    int rc;
    emu_result *er = &s->er;
    if ((rc = emulate_run(o->model, s->m, o->in_spec, o->n_in_spec, o->seed, o->dump, er, err,
                          sizeof(err)))) {
        cli_error("%s: --emulate: %s", o->model, err);
        return cli_exit_code(rc);
    }
    s->pred.run.backend = "emulate";
    s->eouts = calloc((size_t)er->n_out + 1, sizeof(*s->eouts));
    s->epaths = calloc((size_t)er->n_out + 1, sizeof(char *));
    s->eshapes = calloc((size_t)er->n_out + 1, sizeof(char *));
    if (!s->eouts || !s->epaths || !s->eshapes) {
        cli_error("out of memory");
        return EXIT_INTERNAL;
    }
    for (int j = 0; j < er->n_out; j++) {
        char sh[128], pth[4096];
        snprintf(sh, sizeof(sh), "[%lld,%lld,%lld,%lld]", (long long)er->out_dims[j][0],
                 (long long)er->out_dims[j][1], (long long)er->out_dims[j][2],
                 (long long)er->out_dims[j][3]);
        s->eshapes[j] = strdup(sh);
        if (o->dump) {
            emulate_dump_path(pth, sizeof(pth), o->dump, er->out_names[j]);
            s->epaths[j] = strdup(pth);
        }
        s->eouts[j] = (store_output){.idx = j, .name = er->out_names[j], .shape = s->eshapes[j],
                                     .dtype = "float32", .dump_file = s->epaths[j]};
        if (!o->json)
            emulate_print_output(stdout, er->out_names[j], sh, er->out[j], er->out_dims[j]);
    }
    free(s->pred.outs);
    s->pred.outs = s->eouts;
    s->pred.n_outs = er->n_out;
    s->eouts = NULL;
    if (!o->json)
        printf("emulated: %d NPU tasks computed, %d one-pixel in-place copies skipped, %d "
               "OutputOperator tasks done on the CPU\n", er->tasks_run, er->tasks_copy,
               er->tasks_output_op);
    return 0;
}

/* stores the run (unless --no-db), prints the tables and the summary */
static int record_and_print(const rknn_run_opts *o, rknn_run *s)
{
    char err[1024];
    /* a failure to record keeps the results: printed, then why they are not stored */
    int rc = o->no_db ? 0 : run_rows_store(&s->pred, store_default_path(o->db), err, sizeof(err));
    if (o->npu_table) {
        npu_print_perf_table(o->json ? stderr : stdout, s->ng, NPU_PRINT_PREFIX);
        if (o->sram)
            npu_print_sram_table(o->json ? stderr : stdout, s->ng, NPU_PRINT_PREFIX);
    }
    if (!o->json)
        printf("%s: %s file for %s (toolkit %s), %d compiled layers\n", esc_tmp(ESC_TERM, o->model),
               rknn_container_name(s->m->container), s->ng->plat->name,
               s->m->toolkit ? esc_tmp(ESC_TERM, s->m->toolkit) : "?", s->ng->n);
    run_rows_print(&s->pred.run, s->pred.layers, s->pred.n_layers, NULL, 0, NULL, 0, o->json, 0.99,
                   stdout);
    return rc ? cli_not_recorded(err) : EXIT_OK;
}

static void rknn_run_free(rknn_run *s)
{
    if (s->built)
        run_rows_free(&s->pred);
    for (int j = 0; j < s->er.n_out; j++) {
        free(s->epaths ? s->epaths[j] : NULL);
        free(s->eshapes ? s->eshapes[j] : NULL);
    }
    free(s->epaths);
    free(s->eshapes);
    free(s->eouts);
    emu_result_free(&s->er);
    npu_graph_free(s->ng);
    graph_free(s->g);
    rknn_model_free(s->m);
}

int cmd_run_rknn(int argc, char **argv)
{
    rknn_run_opts o = {0};
    rknn_run s = {0};
    int ret = parse_args(argc, argv, &o);
    if (ret >= 0)
        return ret;
    if ((ret = validate_args(&o)))
        return ret;
    if (!(ret = load_model(&o, &s)) && !(ret = predict(&o, &s)) &&
        !(o.emulate && (ret = emulate(&o, &s))))
        ret = record_and_print(&o, &s);
    rknn_run_free(&s);
    return ret;
}
