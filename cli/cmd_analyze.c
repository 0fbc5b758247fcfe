/* cli/cmd_analyze.c — `rknn-trace analyze RUN|DUMP_DIR --golden DIR`: the error
 * of every dumped layer of a run against an external golden folder (our dumps,
 * onnxruntime dumps named after tensors, a board's RKNN_LOG_LEVEL=5 dumps). */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "cli/opt.h"
#include "cli/quant_cli.h"
#include "dump/dump.h"
#include "util/escape.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A name (from dump file names, a label) on a terminal line (util/escape.h). */
static const char *tt(const char *x)
{
    return esc_tmp(ESC_TERM, x);
}

typedef struct analyze_cli {
    const char *db, *golden;
    double thr, atol, rtol; /* atol, rtol: NaN when not given */
    int json;
    quant_cli qc;
} analyze_cli;

/* --atol X, --rtol Y: finite and >= 0 */
static int parse_tol(const char *opt, const char *v, void *target)
{
    char *end;
    double x = strtod(v, &end);
    if (*end || end == v || !(x >= 0 && isfinite(x))) {
        cli_error("%s takes a number >= 0, got '%s'", opt, v);
        return -1;
    }
    *(double *)target = x;
    return 0;
}

#define CLI_OPTS_T analyze_cli
static const cli_opt analyze_options[] = {
    CLI_OPT_STR("--golden", 0, "DIR", golden, "the reference tensors (required)"),
    CLI_OPT_REAL("--cos-threshold", 0, "X", thr, -1, 1,
                 "name the first layer whose cos < X (default 0.99)"),
    CLI_OPT_CALL("--atol", 0, "X", atol, parse_tol,
                 "element tolerance |run - golden| <= atol + rtol*|golden|"),
    CLI_OPT_CALL("--rtol", 0, "Y", rtol, parse_tol,
                 "(defaults 1e-5 and 1e-5); giving either makes a failing\n"
                 "graph output a gate failure (exit code 3)"),
    CLI_OPT_DB(db),
    CLI_OPT_FLAG("--json", 0, json, "one JSON document on stdout"),
    CLI_OPT_STR("--eval", 0, "FILE", qc.eval,
                "a recorded -q i8/fp16 run simulated again on every sample\n"
                "of FILE (--dataset's layout): each layer's and output's\n"
                "cos, euc and SQNR min/mean/max and worst sample, stored\n"
                "with the run; --dataset FILE calibrates an i8 run again"),
    /* --eval's companions, named in the usage line */
    CLI_OPT_STR("--dataset", 0, "FILE", qc.dataset, NULL),
    CLI_OPT_STR("--hybrid", 0, "FILE", qc.hybrid, NULL),
    CLI_OPT_STR("--mean", 0, "M", qc.mean, NULL),
    CLI_OPT_STR("--std", 0, "S", qc.std, NULL),
    CLI_OPT_FLAG("--no-progress", 0, qc.no_progress, NULL),
    CLI_OPT_END};
#undef CLI_OPTS_T

const cli_spec cli_spec_analyze = {
    "analyze",
    "usage: rknn-trace analyze RUN|DUMP_DIR --golden DIR [options]\n"
    "       rknn-trace analyze RUN --eval FILE [--dataset FILE] [--mean M] [--std S]\n"
    "Compares every layer output of a run (its --dump folder; RUN: a recorded run made\n"
    "with --dump, or the folder itself) with the .npy file of the same tensor name in\n"
    "DIR: rknn-trace dumps (index.json), a board's RKNN_LOG_LEVEL=5 dumps\n"
    "(NNN_<OpType>_<tensor>_shape_<dims>_<dtype>.npy) or files named after the tensors\n"
    "(<tensor>.npy, characters outside [A-Za-z0-9._-] as '_', e.g. onnxruntime dumps;\n"
    "in subfolders by the tensor's path; named by another tool's index.json object),\n"
    "or a Toolkit2 accuracy_analysis snapshot folder (its golden/, not simulator/).\n"
    "Files that are not .npy are ignored.\n"
    "The golden is the reference: cos, euc, max_abs, mean_abs, sqnr_db of the run's values.\n"
    "\n",
    analyze_options,
    NULL};

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* The run's dump folder must still hold what the run wrote: analysing a
 * folder that a later run (or a person) changed would report other data. */
static int check_dump_hash(const store_run *r, const char *dir, char *err, size_t errlen)
{
    char now[65], why[512];

    if (!r->dump_sha256) /* recorded before runs kept the hash */
        return 0;
    if (dump_dir_hash(dir, now, why, sizeof why))
        return rt_err(err, errlen, RT_EFORMAT,
                      "the dumps of run %lld in %s are no longer complete (%s): re-run it "
                      "with --dump", (long long)r->id, dir, why);
    if (strcmp(now, r->dump_sha256))
        return rt_err(err, errlen, RT_EFORMAT,
                      "the dumps of run %lld in %s changed since it was recorded (content "
                      "hash %.12s, recorded %.12s): re-run it with --dump",
                      (long long)r->id, dir, now, r->dump_sha256);
    return 0;
}

static const char *fmt_sqnr(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "nan");
    else if (isinf(v))
        snprintf(buf, len, "inf");
    else
        snprintf(buf, len, "%.2f", v);
    return buf;
}

/* The matched rows as the run's external-golden accuracy rows (source
 * "golden:DIR", DIR absolute when it can be resolved), in one transaction. */
static int store_golden_rows(const char *db, int64_t run_id, const char *golden,
                             const golden_report *r, char *err, size_t errlen)
{
    store *st = NULL;
    store_accuracy *rows = xcalloc((size_t)r->n_rows + 1, sizeof(*rows));
    store_output *outs = NULL;
    char *abs = realpath(golden, NULL), *source = NULL;
    int n = 0, n_outs = 0, rc;

    rc = store_open_existing(store_default_path(db), &st, err, errlen);
    if (!rc)
        rc = store_get_outputs(st, run_id, &outs, &n_outs, err, errlen);
    if (rc)
        goto out;

    source = xmalloc(strlen(abs ? abs : golden) + 8);
    sprintf(source, "golden:%s", abs ? abs : golden);
    for (int i = 0; i < r->n_rows; i++) {
        const golden_row *g = &r->rows[i];
        if (!g->matched)
            continue;
        store_accuracy *a = &rows[n];
        store_accuracy_init(a);
        a->idx = n++;
        a->layer = g->layer;
        a->name = g->name;
        a->op = g->op;
        a->entire = g->m;
        for (int k = 0; k < n_outs; k++)
            if (outs[k].name && !strcmp(outs[k].name, g->name))
                a->is_output = 1;
    }
    rc = store_accuracy_replace_golden(st, run_id, source, rows, n, err, errlen);
out:
    store_close(st);
    store_outputs_free(outs, n_outs);
    free(rows);
    free(source);
    free(abs);
    return rc;
}

/* Why a matched layer has no cosine (NaN): a constant or a NaN/inf tensor
 * carries no direction to compare, so it never counts as passing. */
static const char *nan_reason(const metrics_t *m)
{
    if (m->flags & METRIC_EMPTY)
        return "empty";
    if (m->ref_nonfinite)
        return "golden not finite";
    if (m->flags & METRIC_NONFINITE)
        return "run not finite";
    if (m->flags & METRIC_REF_CONST)
        return "golden constant";
    return "run constant";
}

/* Which rows are graph outputs: a recorded run's outputs by name; for a bare
 * dump folder (no run to ask), the tensors of its last layer. */
static void mark_outputs(const char *db, int64_t run_id, golden_report *r)
{
    if (run_id) {
        store *st = NULL;
        store_output *outs = NULL;
        int n = 0;
        char err[256];
        if (!store_open_readonly(store_default_path(db), &st, err, sizeof(err)) &&
            !store_get_outputs(st, run_id, &outs, &n, err, sizeof(err)))
            for (int i = 0; i < r->n_rows; i++)
                for (int k = 0; k < n; k++)
                    if (outs[k].name && !strcmp(outs[k].name, r->rows[i].name))
                        r->rows[i].is_output = 1;
        store_outputs_free(outs, n);
        store_close(st);
        return;
    }
    int last = -1;
    for (int i = 0; i < r->n_rows; i++)
        if (r->rows[i].layer > last)
            last = r->rows[i].layer;
    for (int i = 0; i < r->n_rows; i++)
        r->rows[i].is_output = last >= 0 && r->rows[i].layer == last;
}

/* The multi-dimensional (C-order) index of a row's worst element. */
static void unravel(const golden_row *g, int64_t *c)
{
    int64_t f = g->tol.worst;
    for (int k = g->ndim - 1; k >= 0; k--) {
        int64_t d = g->dims[k] > 0 ? g->dims[k] : 1;
        c[k] = f % d;
        f /= d;
    }
}

static const char *fmt_coords(const golden_row *g, char *buf, size_t len)
{
    int64_t c[32];
    size_t o = 0;
    unravel(g, c);
    o += (size_t)snprintf(buf, len, "[");
    for (int k = 0; k < g->ndim && o < len; k++)
        o += (size_t)snprintf(buf + o, len - o, "%s%lld", k ? "," : "", (long long)c[k]);
    if (o < len)
        snprintf(buf + o, len - o, "]");
    return buf;
}

typedef struct nan_count {
    int n, golden_nonfinite, run_nonfinite, constant;
    int first, first_golden_bad; /* row index, -1 */
} nan_count;

static void count_nan(const golden_report *r, nan_count *c)
{
    memset(c, 0, sizeof(*c));
    c->first = c->first_golden_bad = -1;
    for (int i = 0; i < r->n_rows; i++) {
        const metrics_t *m = &r->rows[i].m;
        if (!r->rows[i].matched || !isnan(m->cos))
            continue;
        c->n++;
        if (c->first < 0)
            c->first = i;
        if (m->ref_nonfinite) {
            c->golden_nonfinite++;
            if (c->first_golden_bad < 0)
                c->first_golden_bad = i;
        } else if (m->flags & METRIC_NONFINITE) {
            c->run_nonfinite++;
        } else {
            c->constant++;
        }
    }
}

/* the options of a golden comparison, defaults applied */
typedef struct analyze_opts {
    const char *db, *ref, *golden;
    double thr, atol, rtol;
    int json, tol_given;
} analyze_opts;

/* what the printed and returned verdicts are made of */
typedef struct analyze_summary {
    int first, worst;         /* row index of the first cos < thr, of the lowest cos; -1 */
    int out_fail, layer_fail; /* matched rows outside the tolerance */
    nan_count nc;
} analyze_summary;

/* -1: a golden comparison follows (a filled in); else the exit code (help, a
 * usage error, or that of --eval, which is run here) */
static int parse_args(int argc, char **argv, analyze_opts *a)
{
    analyze_cli o = {.thr = 0.99, .atol = NAN, .rtol = NAN};
    quant_cli_init(&o.qc);

    int n = cli_parse(&cli_spec_analyze, argc, argv, &o);
    if (n == CLI_PARSE_HELP)
        return EXIT_OK;
    if (n < 0)
        return EXIT_USAGE;
    if (n > 1) {
        cli_error("analyze takes one run or dump folder, got a second: '%s'", argv[2]);
        return EXIT_USAGE;
    }
    *a = (analyze_opts){.db = o.db, .ref = n ? argv[1] : NULL, .golden = o.golden, .thr = o.thr,
                        .atol = isnan(o.atol) ? GOLDEN_ATOL : o.atol,
                        .rtol = isnan(o.rtol) ? GOLDEN_RTOL : o.rtol, .json = o.json,
                        .tol_given = !isnan(o.atol) || !isnan(o.rtol)};
    quant_cli qc = o.qc;

    if (a->ref && qc.eval && !a->golden)
        return analyze_eval(a->ref, a->db, &qc, a->json);
    if (qc.eval || qc.dataset || qc.hybrid || qc.mean || qc.std) {
        cli_error("analyze: --eval (with --dataset, --hybrid, --mean, --std) and --golden are "
                  "separate analyses: give one");
        return EXIT_USAGE;
    }
    if (!a->ref || !a->golden) {
        if (a->ref)
            cli_error("analyze: --golden DIR is required");
        else
            cli_help(&cli_spec_analyze, stderr);
        return EXIT_USAGE;
    }
    return -1;
}

/* RUN|DUMP_DIR to the dump folder (*dir, allocated) and, for a recorded run,
 * its id (*run_id, else left 0): 0, or the exit code */
static int load_dump_dir(const analyze_opts *a, char **dir, int64_t *run_id)
{
    if (is_dir(a->ref)) {
        *dir = xstrdup(a->ref);
        return 0;
    }
    store *st = NULL;
    store_run run;
    int no_dump = 0;
    char err[1024] = "";
    int rc = store_open_readonly(store_default_path(a->db), &st, err, sizeof(err));
    if (!rc && !(rc = store_get_run(st, a->ref, &run, err, sizeof(err)))) {
        *run_id = run.id;
        *dir = run.dump_dir ? xstrdup(run.dump_dir) : NULL;
        if (!*dir && (no_dump = 1))
            rc = store_backend_of(run.backend) == BACKEND_PREDICT
                 ? rt_err(err, sizeof(err), RT_EINVAL,
                          "run %s is a vendor file's prediction: it computed no tensors (run the "
                          "file with --emulate --dump DIR for the NPU emulator's, or its source "
                          "ONNX model)", a->ref)
                 : rt_err(err, sizeof(err), RT_EINVAL,
                          "run %s was recorded without --dump: give its dump folder instead", a->ref);
        else
            rc = check_dump_hash(&run, *dir, err, sizeof(err));
        store_run_clear(&run);
    }
    store_close(st);
    if (rc) {
        cli_error("%s", err);
        free(*dir);
        *dir = NULL;
        return no_dump ? EXIT_INPUT : cli_exit_code(rc);
    }
    return 0;
}

static void summarize(const golden_report *r, double thr, analyze_summary *s)
{
    s->first = s->worst = -1;
    s->out_fail = s->layer_fail = 0;
    for (int i = 0; i < r->n_rows; i++) {
        if (!r->rows[i].matched || !r->rows[i].tol.fail)
            continue;
        s->layer_fail++;
        s->out_fail += r->rows[i].is_output;
    }
    count_nan(r, &s->nc);
    for (int i = 0; i < r->n_rows; i++) {
        const golden_row *w = &r->rows[i];
        if (!w->matched || isnan(w->m.cos))
            continue;
        if (s->first < 0 && w->m.cos < thr)
            s->first = i;
        if (s->worst < 0 || w->m.cos < r->rows[s->worst].m.cos)
            s->worst = i;
    }
}

/* one element of --json's "layers" */
static void print_json_layer(json_writer *w, const golden_row *g)
{
    json_obj_open(w);
    json_key(w, "layer"), json_int(w, g->layer);
    json_key(w, "op"), json_str(w, g->op);
    json_key(w, "name"), json_str(w, g->name);
    json_key(w, "matched"), json_bool(w, g->matched);
    json_key(w, "is_output"), json_bool(w, g->is_output);
    json_key(w, "cos"), json_num(w, g->m.cos);
    json_key(w, "nan_reason");
    json_str(w, g->matched && isnan(g->m.cos) ? nan_reason(&g->m) : NULL);
    json_key(w, "golden_nonfinite"), json_int(w, g->m.ref_nonfinite);
    json_key(w, "euc"), json_num(w, g->m.euc);
    json_key(w, "max_abs"), json_num(w, g->m.max_abs);
    json_key(w, "mean_abs"), json_num(w, g->m.mean_abs);
    json_key(w, "sqnr_db");
    if (isinf(g->m.sqnr_db))
        json_str(w, "inf");
    else
        json_num(w, g->m.sqnr_db);
    json_key(w, "tol_pass");
    if (g->matched)
        json_bool(w, !g->tol.fail);
    else
        json_str(w, NULL);
    json_key(w, "tol_fail_count"), json_int(w, g->matched ? g->tol.fail : 0);
    json_key(w, "worst_index");
    if (g->matched && g->tol.worst >= 0)
        json_int(w, g->tol.worst);
    else
        json_str(w, NULL);
    json_key(w, "worst_coords");
    if (g->matched && g->tol.worst >= 0) {
        int64_t c[32];
        unravel(g, c);
        json_arr_open(w);
        for (int k = 0; k < g->ndim; k++)
            json_int(w, c[k]);
        json_arr_close(w);
    } else {
        json_str(w, NULL);
    }
    json_key(w, "worst_run"), json_num(w, g->matched ? g->tol.x : NAN);
    json_key(w, "worst_golden"), json_num(w, g->matched ? g->tol.ref : NAN);
    json_obj_close(w);
}

static void print_json(const analyze_opts *a, const char *dir, const golden_report *r,
                       const analyze_summary *s)
{
    json_writer w;
    json_begin(&w, stdout);
    json_obj_open(&w);
    json_key(&w, "dump_dir"), json_str(&w, dir);
    json_key(&w, "golden_dir"), json_str(&w, a->golden);
    json_key(&w, "golden_layout"), json_str(&w, r->layout);
    json_key(&w, "tensors"), json_int(&w, r->n_rows);
    json_key(&w, "matched"), json_int(&w, r->n_matched);
    json_key(&w, "cos_threshold"), json_num(&w, a->thr);
    json_key(&w, "first_below"), json_str(&w, s->first >= 0 ? r->rows[s->first].name : NULL);
    json_key(&w, "comparable"), json_int(&w, r->n_matched - s->nc.n);
    json_key(&w, "not_comparable"), json_int(&w, s->nc.n);
    json_key(&w, "atol"), json_num(&w, a->atol);
    json_key(&w, "rtol"), json_num(&w, a->rtol);
    json_key(&w, "tolerance_given"), json_bool(&w, a->tol_given);
    json_key(&w, "tol_failed_layers"), json_int(&w, s->layer_fail);
    json_key(&w, "tol_failed_outputs"), json_int(&w, s->out_fail);
    json_key(&w, "layers");
    json_arr_open(&w);
    for (int i = 0; i < r->n_rows; i++)
        print_json_layer(&w, &r->rows[i]);
    json_arr_close(&w);
    json_obj_close(&w);
    json_end(&w);
}

/* the header and one line per tensor of the text report */
static void print_text_table(const analyze_opts *a, const char *dir, const golden_report *r)
{
    int wn = 24, color = cli_use_color(stdout);
    char ca[32], b[32], m[32], s[32];
    for (int i = 0; i < r->n_rows; i++) {
        int l = (int)strlen(r->rows[i].name) + (r->rows[i].op ? (int)strlen(r->rows[i].op) : 5) + 3;
        if (l > wn)
            wn = l < 120 ? l : 120;
    }
    printf("# %s vs golden %s (%s layout): error of each layer output against the golden\n"
           "# ('nan': constant tensor or not finite; '-': no golden file of that name)\n\n",
           tt(dir), tt(a->golden), r->layout);
    printf("%-*s %-8s   %-12s %-12s %-12s %-8s %s\n", wn, "layer_name", "cos", "euc", "max_abs",
           "mean_abs", "sqnr_db", "tolerance (failing elements, worst at flat [coords]: run golden)");
    for (int i = 0; i < wn + 72; i++)
        putchar('-');
    putchar('\n');
    for (int i = 0; i < r->n_rows; i++) {
        const golden_row *g = &r->rows[i];
        char label[600];
        snprintf(label, sizeof(label), "[%s] %s", g->op ? tt(g->op) : "Input", tt(g->name));
        if (!g->matched) {
            printf("%-*s %-8s\n", wn, label, "-");
            continue;
        }
        const char *c0 = "", *c1 = color ? "\033[0m" : "";
        if (color)
            c0 = isnan(g->m.cos) ? "\033[35m" : g->m.cos >= a->thr ? "\033[32m" : "\033[31m";
        char co[400];
        printf("%-*s %s%-8s%s | %-12s %-12s %-12.6g %-8s %s%s", wn, label, c0,
               metrics_fmt_cos(g->m.cos, ca, sizeof(ca)), c1, metrics_fmt_euc(g->m.euc, b, sizeof(b)),
               metrics_fmt_euc(g->m.max_abs, m, sizeof(m)), g->m.mean_abs,
               fmt_sqnr(g->m.sqnr_db, s, sizeof(s)), g->tol.fail ? "FAIL" : "pass",
               g->is_output ? " (output)" : "");
        if (g->tol.fail)
            printf(" %lld, worst at %lld %s: %.9g %.9g", (long long)g->tol.fail,
                   (long long)g->tol.worst, fmt_coords(g, co, sizeof(co)), g->tol.x, g->tol.ref);
        putchar('\n');
    }
}

/* the closing lines of the text report: matches, the first and lowest cos, the tolerance */
static void print_text_summary(const analyze_opts *a, const golden_report *r,
                               const analyze_summary *s)
{
    const nan_count *nc = &s->nc;
    double thr = a->thr;
    int first = s->first, worst = s->worst;
    printf("\n%d of %d tensors matched by name\n", r->n_matched, r->n_rows);
    if (nc->n) {
        const golden_row *f = &r->rows[nc->first];
        printf("%d matched layer%s not comparable (cos nan): %d with NaN/inf in the golden, "
               "%d with NaN/inf in the run, %d constant; first: [%s] %s (%s)\n",
               nc->n, nc->n == 1 ? "" : "s", nc->golden_nonfinite, nc->run_nonfinite, nc->constant,
               f->op ? tt(f->op) : "Input", tt(f->name), nan_reason(&f->m));
    }
    if (first >= 0)
        printf("first layer with cos < %g: [%s] %s  (cos %.5f)\n", thr,
               r->rows[first].op ? tt(r->rows[first].op) : "Input", tt(r->rows[first].name),
               r->rows[first].m.cos);
    else if (nc->n == r->n_matched)
        printf("no matched layer could be compared\n");
    else if (nc->n)
        printf("every comparable layer (%d of %d matched) keeps cos >= %g\n",
               r->n_matched - nc->n, r->n_matched, thr);
    else
        printf("every matched layer keeps cos >= %g\n", thr);
    printf("tolerance atol %g rtol %g: %d matched layer%s (%d graph output%s)\n", a->atol, a->rtol,
           s->layer_fail, s->layer_fail == 1 ? " fails" : "s fail", s->out_fail,
           s->out_fail == 1 ? "" : "s");
    if (worst >= 0)
        printf("lowest cos: [%s] %s  (cos %.5f)\n", r->rows[worst].op ? tt(r->rows[worst].op) : "Input",
               tt(r->rows[worst].name), r->rows[worst].m.cos);
}

/* after the report: the exit code (a tolerance gate, nothing comparable) and
 * the warning about a golden holding NaN/inf */
static int verdict(const analyze_opts *a, const golden_report *r, const analyze_summary *s)
{
    const nan_count *nc = &s->nc;
    int ret = EXIT_OK;
    fflush(stdout);
    if (a->tol_given && s->out_fail) {
        cli_error("%d graph output%s outside atol %g rtol %g", s->out_fail,
                  s->out_fail == 1 ? "" : "s", a->atol, a->rtol);
        ret = EXIT_GATE;
    }
    if (nc->n == r->n_matched) {
        cli_error("golden %s: none of the %d matched layers could be compared (%d with NaN/inf "
                  "in the golden, %d in the run, %d constant)", a->golden, nc->n,
                  nc->golden_nonfinite, nc->run_nonfinite, nc->constant);
        ret = EXIT_INPUT;
    } else if (nc->first_golden_bad >= 0) {
        const golden_row *g = &r->rows[nc->first_golden_bad];
        fprintf(stderr, "rknn-trace: warning: golden %s: %d %s NaN/inf (first: '%s', "
                "%lld of %lld values); not compared\n", tt(a->golden), nc->golden_nonfinite,
                nc->golden_nonfinite == 1 ? "tensor holds" : "tensors hold", tt(g->name),
                (long long)g->m.ref_nonfinite, (long long)g->m.n);
    }
    return ret;
}

int cmd_analyze(int argc, char **argv)
{
    analyze_opts a;
    analyze_summary s;
    int64_t run_id = 0;
    char err[1024] = "", *dir = NULL;
    golden_report *r = NULL;
    int ret = parse_args(argc, argv, &a), rc;
    if (ret >= 0)
        return ret;
    if ((ret = load_dump_dir(&a, &dir, &run_id)))
        return ret;
    rc = golden_analyze_tol(dir, a.golden, a.atol, a.rtol, &r, err, sizeof(err));
    if (rc) {
        cli_error("%s", err);
        ret = rc == RT_EINVAL ? EXIT_INPUT : cli_exit_code(rc);
        goto out;
    }
    /* A recorded run keeps the result (before anything is printed, so that a
     * failure to store leaves no output that looks like success). */
    if (run_id && (rc = store_golden_rows(a.db, run_id, a.golden, r, err, sizeof(err)))) {
        cli_error("%s", err);
        ret = cli_exit_code(rc);
        goto out;
    }
    mark_outputs(a.db, run_id, r);
    summarize(r, a.thr, &s);
    if (a.json) {
        print_json(&a, dir, r, &s);
    } else {
        print_text_table(&a, dir, r);
        print_text_summary(&a, r, &s);
    }
    ret = verdict(&a, r, &s);
out:
    golden_report_free(r);
    free(dir);
    return ret;
}
