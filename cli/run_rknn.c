/* cli/run_rknn.c — `rknn-trace run model.rknn` on a PC with the options
 * `run`'s table read (those a vendor file takes, listed in cli/run_opts.c): the
 * compiled graph of a vendor file costed by the NPU model, its rows
 * (record/source_predict.c) stored as a run with backend "predict", and the
 * summary printed. No numeric output is computed. */
#include "analyze/analyze.h"
#include "cli/custom_op.h"
#include "cli/run_cli.h"
#include "record/inputs.h"
#include "record/rows.h"
#include "record/source_predict.h"
#include "record/store_run.h"
#include "runtime/model/rknn_file.h"
#include "runtime/emu/emu.h"
#include "runtime/npu/npu.h"
#include "dump/dump.h"
#include "util/escape.h"
#include "util/util.h"

#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


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

/* --custom-op: the file's custom ops (cst* CPU layers) through the plugin libraries'
 * callbacks, as nodes of g over the emulator's float buffers (node numbers as
 * inspect's ids, from 1) */
typedef struct plugin_cpu {
    emu_cpu_hook h;
    graph_t *g;
    int *node_of;   /* per file node: g's node, -1 none */
} plugin_cpu;

static int plugin_cpu_run(emu_cpu_hook *h, const rknn_model *m, int node, const float *const *in,
                          float *const *out, char *err, size_t errlen)
{
    plugin_cpu *p = (plugin_cpu *)h;
    int gi = p->node_of[node], rc;

    if (gi < 0)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node %d (%s %s) runs on the CPU: not "
                      "emulated (custom ops run there, through --custom-op)", node + 1,
                      m->nodes[node].type, m->nodes[node].name);
    node_t *n = &p->g->nodes[gi];
    for (int k = 0; k < n->n_in; k++)
        p->g->t[n->in[k]].data = (void *)in[k];
    for (int k = 0; k < n->n_out; k++)
        p->g->t[n->out[k]].data = out[k];
    rc = custom_op_run(p->g, n, err, errlen);
    for (int k = 0; k < n->n_in; k++)
        p->g->t[n->in[k]].data = NULL;
    for (int k = 0; k < n->n_out; k++)
        p->g->t[n->out[k]].data = NULL;
    return rc;
}

/* reads the inputs (-i NAME=FILE.npy, else seeded) and runs the tasks; plugins:
 * --custom-op libraries were loaded */
static int emulate_run(const char *model, const rknn_model *m, const run_inputs *spec,
                       long long seed, const char *dump, int plugins, emu_result *er, char *err,
                       size_t errlen)
{
    void *file = NULL;
    size_t len = 0;
    float *in[16] = {0};
    int n_in = 0, rc;
    plugin_cpu pc = {{plugin_cpu_run, NULL}, NULL, NULL};

    if (!emu_exec_supported(m, err, errlen)) /* the same words as rknn_init's */
        return RT_EUNSUPPORTED;
    if ((rc = rt_read_file(model, &file, &len, err, errlen)))
        return rc;
    for (int i = 0; i < m->n_io && !rc; i++) {
        const rknn_io *io = &m->io[i];
        const rknn_tensor *t = io->tensor >= 0 ? &m->tensors[io->tensor] : NULL;
        int64_t n = 1;
        if (io->is_output)
            continue;
        if (n_in >= 16 || !t || (t->nd != 4 && !(t->nd == 2 && t->shape[0] == 1))) {
            rc = rt_err(err, errlen, RT_EUNSUPPORTED, "input %s: neither 4-D nor [1, C]",
                        io->name);
            break;
        }
        for (int d = 0; d < t->nd; d++)
            n *= t->shape[d];
        const char *path = NULL;
        for (int k = 0; k < spec->n; k++)
            if (!strcmp(spec->name[k], io->name))
                path = spec->file[k];
        if (!(in[n_in] = malloc(sizeof(float) * (size_t)n))) {
            rc = rt_err(err, errlen, RT_ENOMEM, "out of memory");
            break;
        }
        if (path) {
            npy_array a;
            if ((rc = npy_read(path, &a, err, errlen)))
                break;
            npy_widen_f16(&a);
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
    for (int k = 0; k < spec->n && !rc; k++) {
        int found = 0;
        for (int i = 0; i < m->n_io; i++)
            found |= !m->io[i].is_output && !strcmp(spec->name[k], m->io[i].name);
        if (!found)
            rc = rt_err(err, errlen, RT_ENOTFOUND, "-i %s=%s: the file has no input of that name",
                        spec->name[k], spec->file[k]);
    }
    if (!rc && dump && mkdir(dump, 0777) && errno != EEXIST)
        rc = rt_err(err, errlen, RT_EIO, "--dump %s: %s", dump, strerror(errno));
    if (!rc && plugins) {
        pc.g = graph_new();
        pc.node_of = xmalloc(sizeof(int) * (size_t)(m->n_nodes + 1));
        rc = rknn_custom_nodes(m, file, len, pc.g, pc.node_of, err, errlen);
    }
    if (!rc)
        rc = emu_exec(m, file, len, (const float *const *)in, n_in, dump, plugins ? &pc.h : NULL,
                      er, err, errlen);
    if (pc.g)
        graph_free(pc.g);
    free(pc.node_of);
    for (int i = 0; i < n_in; i++)
        free(in[i]);
    free(file);
    return rc;
}

/* what a run builds, freed by rknn_run_free whatever step stopped it */
typedef struct {
    const char *model;       /* the file's path */
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

/* the checks that need no file read: 0, or EXIT_USAGE */
static int validate_args(const run_cli *o, const char *model)
{
    if (o->not_rknn) {
        cli_error("run: %s does not apply to a vendor .rknn on a PC (%s; see run --help)",
                  o->not_rknn, "only its profile is predicted");
        return EXIT_USAGE;
    }
    if (o->in.n > 16) {
        cli_error("-i: at most 16 inputs");
        return EXIT_USAGE;
    }
    if (!o->emulate && (o->in.n || o->dump)) {
        cli_error("run %s: -i and --dump need --emulate (without it nothing is computed)", model);
        return EXIT_USAGE;
    }
    if (o->emulate && access(model, R_OK) != 0) { /* as run says of any model it cannot read */
        cli_error("%s: %s", model, strerror(errno));
        return EXIT_INPUT;
    }
    if (o->emulate && !run_rknn_is(model)) {
        cli_error("--emulate runs a vendor .rknn's NPU tasks; %s is not one", model);
        return EXIT_USAGE;
    }
    return 0;
}

/* reads the file and picks its platform (checked against -t, --sram), then
 * applies the clocks: 0, or the exit code */
static int load_model(const run_cli *o, rknn_run *s)
{
    const char *model = s->model, *target = o->target;
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
static int predict(const run_cli *o, rknn_run *s)
{
    char err[1024];
    int rc;
    /* as `run` does: the database can take the run, checked before it is computed */
    if (!o->no_db && (rc = store_preflight(store_default_path(o->db), o->label, err, sizeof(err)))) {
        cli_error("%s", err);
        return cli_exit_code(rc);
    }
    if ((rc = npu_graph_of_rknn(s->m, s->plat, &s->ng, &s->g, err, sizeof(err)))) {
        cli_error("%s: %s", s->model, err);
        return cli_exit_code(rc);
    }
    if ((rc = npu_set_core_mask(s->ng, (unsigned)o->core_mask, err, sizeof(err)))) {
        cli_error("--core-mask: %s", err);
        return EXIT_USAGE;
    }
    if ((rc = npu_mem_plan(s->ng, s->g, o->sram ? npu_sram_pool_process(s->plat) : NULL, 0, err,
                           sizeof(err)))) {
        cli_error("%s: memory plan: %s", s->model, err);
        return EXIT_INTERNAL;
    }
    npu_cost(s->ng);
    if ((rc = run_rows_predict(s->model, o->label, s->m, s->ng, &s->pred, err, sizeof(err)))) {
        cli_error("%s", err);
        return cli_exit_code(rc);
    }
    s->built = 1;
    return 0;
}

/* the file tensor of output name, NULL when none */
static const rknn_tensor *output_tensor(const rknn_model *m, const char *name)
{
    for (int i = 0; i < m->n_io; i++)
        if (m->io[i].is_output && m->io[i].tensor >= 0 && m->io[i].name && name &&
            !strcmp(m->io[i].name, name))
            return &m->tensors[m->io[i].tensor];
    return NULL;
}

/* --emulate: the NPU tasks computed, their outputs printed (unless --json)
 * and made the run's outputs: 0, or the exit code */
static int emulate(const run_cli *o, rknn_run *s)
{
    char err[1024];
    int rc;
    emu_result *er = &s->er;
    if ((rc = emulate_run(s->model, s->m, &o->in, o->seed, o->dump, o->plugins.n > 0, er, err,
                          sizeof(err)))) {
        /* the emulator's own messages start "emulate: " (rknn_init prints them
         * as they are): said once */
        const char *why = strncmp(err, "emulate: ", 9) ? err : err + 9;
        cli_error("%s: --emulate: %s", s->model, why);
        return cli_exit_code(rc);
    }
    run_rows_emulated(&s->pred, s->m, er);
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
        /* an output of fewer dims (mobilenet_v2's [1,1000], retinaface's [1,16800,4]) by
         * the file's own shape, as its dump file and INPUT/OUTPUT_ATTR give it */
        const rknn_tensor *ot = output_tensor(s->m, er->out_names[j]);
        if (ot && ot->nd >= 1 && ot->nd < 4 && rknn_tensor_elems(ot) ==
                er->out_dims[j][0] * er->out_dims[j][1] * er->out_dims[j][2] * er->out_dims[j][3])
            store_format_shape(sh, sizeof(sh), ot->nd, ot->shape);
        s->eshapes[j] = strdup(sh);
        if (o->dump) {
            emu_dump_path(pth, sizeof(pth), o->dump, er->out_names[j]);
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
    if (!o->json) {
        printf("emulated: %d NPU tasks computed, %d one-pixel in-place copies skipped, %d "
               "OutputOperator tasks done on the CPU\n", er->tasks_run, er->tasks_copy,
               er->tasks_output_op);
        if (er->tasks_float)
            printf("          %d tasks not run: their attention nodes computed from their "
                   "meaning in float64 (RKNN_TRACE_EMU_ATTN=float)\n", er->tasks_float);
        if (er->tasks_tiling < er->tasks_file)
            printf("          the file's one-core tiling, %d of its %d tasks (the others split "
                   "the same layers across cores)\n", er->tasks_tiling, er->tasks_file);
    }
    return 0;
}

/* stores the run (unless --no-db), prints the tables and the summary */
static int record_and_print(const run_cli *o, rknn_run *s)
{
    char err[1024];
    /* a failure to record keeps the results: printed, then why they are not stored */
    int rc = o->no_db ? 0 : run_rows_store(&s->pred, store_default_path(o->db), err, sizeof(err));
    if (o->npu_table) { /* as `run MODEL.onnx --npu-table` and `show --npu-table` print it */
        npu_print_perf_table(o->json ? stderr : stdout, s->ng, 0);
        if (o->sram)
            npu_print_sram_table(o->json ? stderr : stdout, s->ng, 0);
    }
    if (!o->json)
        printf("%s: %s file for %s (toolkit %s), %d compiled layers\n", esc_tmp(ESC_TERM, s->model),
               rknn_container_name(s->m->container), s->ng->plat->name,
               s->m->toolkit ? esc_tmp(ESC_TERM, s->m->toolkit) : "?", s->ng->n);
    run_rows_print(&s->pred.run, s->pred.layers, s->pred.n_layers, s->pred.npu_rows,
                   s->pred.n_npu_rows, s->pred.outs, s->pred.n_outs, NULL, 0, o->json, 0.99, stdout);
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

int cmd_run_rknn(const run_cli *o, const char *model)
{
    rknn_run s = {.model = model};
    int ret = validate_args(o, model);
    if (ret)
        return ret;
    if (!(ret = load_model(o, &s)) && !(ret = predict(o, &s)) &&
        !(o->emulate && (ret = emulate(o, &s))))
        ret = record_and_print(o, &s);
    rknn_run_free(&s);
    return ret;
}
