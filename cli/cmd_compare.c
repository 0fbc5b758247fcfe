/* cli/cmd_compare.c — `rknn-trace compare RUN RUN [RUN...]`: recorded runs side
 * by side (the first is the baseline): per graph output the error vs the fp32
 * golden and vs the baseline's output, layer by layer, verdicts and CI gates:
 * the comparison document of analyze/compare_doc.h, which `report` and the TUI
 * render too; this file only prints it. With a vendor .rknn's predicted run (or --graph):
 * the two compiled graphs layer against layer (fusion, placement, dtypes,
 * shapes). A collapsed output (constant, all-zero or NaN) is a
 * named failure, never a bare "nan". */
#include "analyze/analyze.h"
#include "analyze/compare_doc.h"
#include "cli/cli.h"
#include "cli/opt.h"
#include "util/escape.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RUNS CMP_MAX_RUNS

static const char *cell(char *buf, size_t len, double v, const char *fmt)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, fmt, v);
    return buf;
}

static const char *run_name(const store_run *r, char *buf, size_t len)
{
    snprintf(buf, len, "#%lld%s%s", (long long)r->id, r->label ? " " : "", r->label ? r->label : "");
    return buf;
}

/* A stored name on a terminal line (util/escape.h). */
static const char *tt(const char *s)
{
    return esc_tmp(ESC_TERM, s);
}

static const char *or_dash(const char *s)
{
    return s && s[0] ? tt(s) : "-";
}

/* Per op type: the layer count of each side, "Conv 3/2" where they differ. */
static void print_op_counts(const compare_graph *g)
{
    const char *seen[256];
    int ns = 0, same = 1;

    printf("  op types (A/B):");
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < g->n[k] && ns < 256; i++) {
            const char *op = g->gl[k][i].op;
            int c[2] = {0, 0}, dup = g->gl[k][i].io;
            for (int j = 0; j < ns && !dup; j++)
                dup = !strcmp(seen[j], op);
            if (dup)
                continue;
            seen[ns++] = op;
            for (int q = 0; q < 2; q++)
                for (int j = 0; j < g->n[q]; j++)
                    c[q] += !g->gl[q][j].io && !strcmp(g->gl[q][j].op, op);
            printf(" %s %d/%d%s", tt(op), c[0], c[1], c[0] != c[1] ? "*" : "");
            same &= c[0] == c[1];
        }
    printf("%s\n", same ? "" : "   (* differ)");
}

static void print_glayer(const compare_glayer *l)
{
    printf("%s %s %s %s in %s out %s", tt(l->op), tt(l->full), or_dash(l->target), or_dash(l->dtype),
           or_dash(l->in_shape), or_dash(l->out_shape));
}

static void print_graph(const compare_graph *g)
{
    printf("\ncompiled graphs, layer against layer (aligned by %s)\n",
           g->by_name ? "output tensor name" : "op type and output shape: the tensor names differ");
    for (int k = 0; k < 2; k++)
        printf("  %c: %d layers + %d Input/OutputOperator\n", 'A' + k, g->n[k] - g->io[k], g->io[k] + g->io_rows[k]);
    print_op_counts(g);
    printf("  paired %d: %d equal, %d differ (op %d, fusion %d, target %d, dtype %d, shape %d); "
           "only in A %d, only in B %d\n", g->n_equal + g->n_differ, g->n_equal, g->n_differ,
           g->n_diff[0], g->n_diff[1], g->n_diff[2], g->n_diff[3], g->n_diff[4], g->n_only[0],
           g->n_only[1]);
    for (int i = 0; i < g->n_pairs; i++) {
        const compare_gpair *p = &g->pairs[i];
        if (!p->diff && p->l[0] >= 0 && p->l[1] >= 0)
            continue;
        if (p->l[0] >= 0 && p->l[1] >= 0) {
            printf("  differ (");
            for (int bit = 0, n = 0; bit < 5; bit++)
                if (p->diff & (1 << bit))
                    printf("%s%s", n++ ? "," : "", compare_graph_diff_name(1 << bit));
            printf("): A ");
            print_glayer(&g->gl[0][p->l[0]]);
            printf(" | B ");
            print_glayer(&g->gl[1][p->l[1]]);
        } else {
            int k = p->l[0] >= 0 ? 0 : 1;
            printf("  only in %c: ", 'A' + k);
            print_glayer(&g->gl[k][p->l[k]]);
            printf(" (%s)", tt(p->note));
        }
        putchar('\n');
    }
}

typedef struct compare_opts {
    const char *db;
    double thr, fail_cos, fail_slower;  /* NaN: no such gate */
    int json, by_host, graph;
} compare_opts;

/* --by npu|host */
static int parse_by(const char *opt, const char *v, void *target)
{
    if (strcmp(v, "npu") && strcmp(v, "host")) {
        cli_error("--by takes npu or host, got '%s'", v);
        return -1;
    }
    *(int *)target = !strcmp(v, "host");
    return 0;
}

/* --fail-if-slower P or P% */
static int parse_slower(const char *opt, const char *v, void *target)
{
    char tmp[64];
    int bad = 0;
    snprintf(tmp, sizeof(tmp), "%s", v);
    size_t l = strlen(tmp);
    if (l && tmp[l - 1] == '%')
        tmp[l - 1] = '\0';
    *(double *)target = cli_parse_real("--fail-if-slower", tmp, 0, 1e6, &bad);
    return bad ? -1 : 0;
}

#define CLI_OPTS_T compare_opts
static const cli_opt compare_options[] = {
    CLI_OPT_FLAG("--graph", 0, graph, "compare the compiled graphs of A and B (layers, op types)"),
    CLI_OPT_CALL("--by", 0, "npu|host", by_host, parse_by,
                 "speed verdict and --fail-if-slower on the predicted NPU\n"
                 "frame (default) or on this PC's host median"),
    CLI_OPT_REAL("--cos-threshold", 0, "X", thr, -1, 1,
                 "name each run's first layer with entire cos < X (0.99)"),
    CLI_OPT_REAL("--fail-if-cos-below", 0, "X", fail_cos, -1, 1,
                 "exit 3 if a run's graph output has cos < X, or is\n"
                 "collapsed (constant, all-zero, NaN)"),
    CLI_OPT_CALL("--fail-if-slower", 0, "P", fail_slower, parse_slower,
                 "exit 3 if a run is more than P percent slower than the\nbaseline"),
    CLI_OPT_DB(db),
    CLI_OPT_FLAG("--json", 0, json, "one JSON document on stdout (docs/json.md)"),
    CLI_OPT_END};
#undef CLI_OPTS_T

const cli_spec cli_spec_compare = {
    "compare",
    "usage: rknn-trace compare BASELINE RUN [RUN...] [options]\n"
    "Shows recorded runs side by side; the first is the baseline. Per graph output:\n"
    "cos and SQNR vs the fp32 golden (runs made with -q i8|fp16) and cos, SQNR and\n"
    "max-abs vs the baseline's output (runs recorded with --dump); layer by layer,\n"
    "the union of the runs' tensors aligned by name (a board run against a prediction:\n"
    "by FullName, then op type and shape): entire cos and the predicted NPU time;\n"
    "then one summary line per run and one verdict line per run after the baseline\n"
    "(the line `report` prints; its speed figures are of one kind and named).\n"
    "When A or B is a vendor .rknn's predicted run (or with --graph): the compiled\n"
    "graphs of A and B layer against layer (aligned by output tensor name, else by op\n"
    "type and shape): where fusion, CPU/NPU placement, dtypes or shapes differ.\n"
    "\n",
    compare_options,
    "A board run (imported table) and a predicted run of the same model, in either\n"
    "order and without gates, are compared layer by layer instead: NPU cycles, DDR\n"
    "cycles, time and bound of the board and of the model, with the model's error.\n"
    "exit: 0 ok, 1 usage, 2 unknown run or a gate without data, 3 a gate failed\n"};

/* The runs (2..MAX_RUNS) left in argv[1..n]: n; -1 after --help; 0 after a
 * usage error. */
static int parse_compare(int argc, char **argv, compare_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->thr = 0.99;
    o->fail_cos = o->fail_slower = NAN;
    int n = cli_parse(&cli_spec_compare, argc, argv, o);
    if (n == CLI_PARSE_HELP)
        return -1;
    if (n < 0)
        return 0;
    if (n > MAX_RUNS) {
        cli_error("compare takes at most %d runs", MAX_RUNS);
        return 0;
    }
    if (n < 2) {
        cli_help(&cli_spec_compare, stderr);
        return 0;
    }
    return n;
}

/* The runs' names and, where their predictions come from different NPU cost
 * models or builds, a note saying so. */
static void print_run_names(const cmp_doc *doc, char tag[][4])
{
    const cmp_run *s = doc->runs;
    const int nr = doc->n;
    char nm[128];

    for (int k = 0; k < nr; k++)
        printf("%s = run %s%s\n", tag[k], tt(run_name(&s[k].run, nm, sizeof(nm))),
               k == 0 ? " (baseline)" : "");
    /* predictions made with different cost-model constants differ by the model too */
    for (int k = 1; k < nr; k++) {
        int v[2] = { store_run_cost_model(&s[0].run), store_run_cost_model(&s[k].run) };
        char vs[2][32];
        for (int j = 0; j < 2; j++)
            snprintf(vs[j], sizeof(vs[j]), v[j] < 0 ? "not recorded" : "version %d", v[j]);
        if (v[0] != v[1] && isfinite(s[0].run.npu_us) && isfinite(s[k].run.npu_us))
            printf("note: A and %s were predicted by different NPU cost models (A: %s, %s: %s): "
                   "their predicted times differ by the model as well\n", tag[k], vs[0], tag[k],
                   vs[1]);
        /* the same constants, another build: its lowering (fusions, the layers
         * a rewrite adds) may have changed too */
        char b[2][64];
        store_run_build(&s[0].run, b[0], sizeof(b[0]));
        store_run_build(&s[k].run, b[1], sizeof(b[1]));
        if (v[0] == v[1] && b[0][0] && b[1][0] && strcmp(b[0], b[1]) && isfinite(s[0].run.npu_us) &&
            isfinite(s[k].run.npu_us))
            printf("note: A and %s were predicted by different builds of rknn-trace (A: %s, %s: "
                   "%s): a change of its lowering moves predicted times too\n", tag[k],
                   tt(b[0]), tag[k], tt(b[1]));
    }
}

/* a vendor file's prediction: no output values (backend predict) */
static int predicted(const cmp_run *r)
{
    return store_backend_of(r->run.backend) == BACKEND_PREDICT;
}

/* why output j of run k has no comparison with A's */
static const char *no_vs_a(const cmp_doc *doc, int j, int k)
{
    const cmp_out_cell *oj = &doc->oc[j * doc->n + k];
    if (oj->out < 0)
        return "no such output";
    if (doc->oc[j * doc->n].row < 0)
        return "A has no such output";
    if (predicted(&doc->runs[k]))
        return "not computed: a predicted vendor file; --emulate computes its outputs";
    if (predicted(&doc->runs[0]))
        return "A's not computed: a predicted vendor file; --emulate computes its outputs";
    return "no dumped outputs: record both runs with --dump";
}

/* Per graph output, per run: vs the golden, vs the baseline's output, the
 * failure it names. */
static void print_outputs(const cmp_doc *doc, char tag[][4])
{
    const cmp_run *s = doc->runs;
    const int nr = doc->n;
    const cmp_out_cell *oc = doc->oc;
    char a[32];

    printf("\noutputs (vs golden: the run's own fp32 golden; vs A: the baseline's output)\n");
    for (int j = 0; j < doc->n_outs; j++) {
        printf("  %s\n", tt(doc->out_names[j]));
        for (int k = 0; k < nr; k++) {
            const cmp_out_cell *oj = &oc[j * nr + k];
            const summary_output *o = oj->out >= 0 ? &s[k].sum.outputs[oj->out] : NULL;
            printf("    %-2s vs golden: ", tag[k]);
            if (o && o->acc >= 0 && o->state == SUM_OUT_OK)
                printf("cos %.5f SQNR %s dB", o->cos, cell(a, sizeof(a), o->sqnr_db, "%.1f"));
            else if (o && o->acc >= 0)
                printf("n/a");
            else if (s[k].run.quant && !strcmp(s[k].run.quant, "fp32"))
                printf("n/a (an fp32 run: its outputs are the golden)");
            else
                printf("n/a (no per-layer error)");
            if (k > 0) {
                if (oj->vs_ok && !(oj->vs.flags & (METRIC_X_CONST | METRIC_NONFINITE | METRIC_REF_CONST)))
                    printf("   vs A: cos %.5f SQNR %s dB max-abs %.4g", oj->vs.cos,
                           isinf(oj->vs.sqnr_db) ? "inf" : cell(a, sizeof(a), oj->vs.sqnr_db, "%.1f"),
                           oj->vs.max_abs);
                else if (oj->vs_ok)
                    printf("   vs A: max-abs %.4g", oj->vs.max_abs);
                else
                    printf("   vs A: n/a (%s)", no_vs_a(doc, j, k));
            }
            if (oj->problem[0])
                printf("   FAILURE: %s", tt(oj->problem));
            putchar('\n');
        }
    }
}

/* The union of the runs' layers: entire cos and the time --by reads. */
static void print_layers(const cmp_doc *doc, char tag[][4])
{
    const cmp_run *s = doc->runs;
    const int nr = doc->n, by_host = doc->by_host;
    char a[32], b[32];

    char words[512];
    printf("\nlayer times: %s\n", tt(cmp_layer_us_words(doc, words, sizeof(words))));
    printf("%-40s", by_host ? "layer (entire cos, host us)" : "layer (entire cos, NPU us)");
    for (int k = 0; k < nr; k++)
        printf(" %8s %-2s %8s %-2s", "cos", tag[k], by_host ? "host us" : "npu us", tag[k]);
    putchar('\n');
    for (int i = 0; i < doc->n_rows; i++) {
        const cmp_row *row = &doc->rows[i];
        char label[256];
        snprintf(label, sizeof(label), "[%s] %s", tt(row->op ? row->op : "-"), tt(row->name));
        printf("%-40s", label);
        for (int k = 0; k < nr; k++) {
            int ai = row->acc[k];
            double cv = ai >= 0 ? s[k].acc[ai].entire.cos : NAN;
            if (ai >= 0 && isnan(cv))
                snprintf(a, sizeof(a), "const");
            else
                cell(a, sizeof(a), cv, "%.5f");
            double t = cmp_row_us(doc, row, k);
            printf(" %11s %11s", a, cell(b, sizeof(b), t, "%.1f"));
        }
        putchar('\n');
    }
    putchar('\n');
}

/* One summary line per run: quantization, layers, times in their
 * provenance's words, the first layer below the cos threshold. */
static void print_run_lines(const cmp_doc *doc, char tag[][4], double thr)
{
    const cmp_run *s = doc->runs;
    char nm[128], a[32], b[32];

    for (int k = 0; k < doc->n; k++) {
        const run_summary *m = &s[k].sum;
        /* the timed runs in their provenance's words: this PC, the board, the simulated library */
        printf("%s %s: %s%s%s%s%s, %d layers, predicted NPU %s ms, %s %s ms", tag[k],
               tt(run_name(&s[k].run, nm, sizeof(nm))), s[k].run.quant ? tt(s[k].run.quant) : "-",
               s[k].run.quant_algo ? " " : "", tt(s[k].run.quant_algo),
               s[k].run.quant_method ? " " : "", tt(s[k].run.quant_method),
               s[k].n_layers, cell(a, sizeof(a), m->frame_us / 1e3, "%.3f"),
               summary_timing_label(m),
               cell(b, sizeof(b), m->host_median_us / 1e3, "%.3f"));
        if (m->n_acc && m->first_below >= 0)
            printf(", first cos < %g: %s", thr, tt(s[k].acc[m->first_below].name));
        else if (m->n_acc)
            printf(", every layer cos >= %g", thr);
        putchar('\n');
    }
}

/* The verdict line of each run after the baseline, then each failed gate. */
static void print_verdicts(const cmp_doc *doc, const cmp_gates *gt)
{
    const cmp_run *s = doc->runs;
    const int nr = doc->n;
    const cmp_out_cell *oc = doc->oc;
    char nm[128], verdict[512];

    for (int k = 1; k < nr; k++) {
        cmp_verdict(doc, k, verdict, sizeof(verdict));
        printf("%s\n", tt(verdict));
    }
    for (int k = 0; k < nr; k++) {
        if (!gt->cos_failed[k])
            continue;
        int named = 0;
        for (int j = 0; j < doc->n_outs; j++)
            if (oc[j * nr + k].problem[0])
                printf("GATE FAILED: %s\n", tt(oc[j * nr + k].problem)), named = 1;
        if (!named)
            printf("GATE FAILED: run %s output cos %.5f < %g\n", tt(run_name(&s[k].run, nm, sizeof(nm))),
                   gt->cos_value[k], gt->fail_cos);
    }
    for (int k = 1; k < nr; k++)
        if (gt->slow_failed[k])
            printf("GATE FAILED: run %s is %.1f%% slower than the baseline by %s (limit %g%%)\n",
                   tt(run_name(&s[k].run, nm, sizeof(nm))), doc->speed[k].slower_pct,
                   doc->by_host ? "host median" : "predicted NPU frame", gt->fail_slower);
}

/* The comparison as text; cg: the compiled graphs of A and B, or NULL. */
static void print_compare(const cmp_doc *doc, const cmp_gates *gt, const compare_graph *cg,
                          double thr)
{
    char tag[MAX_RUNS][4];

    for (int k = 0; k < doc->n; k++)
        snprintf(tag[k], sizeof(tag[k]), "%c", 'A' + k);
    print_run_names(doc, tag);
    print_outputs(doc, tag); /* outputs first: the figures a gate acts on */
    print_layers(doc, tag);
    print_run_lines(doc, tag, thr);
    print_verdicts(doc, gt);
    if (cg)
        print_graph(cg);
}

int cmd_compare(int argc, char **argv)
{
    compare_opts o;
    int ret = EXIT_INTERNAL, rc = RT_OK, nr;
    compare_graph cg;
    cmp_run s[MAX_RUNS];
    cmp_doc doc;
    cmp_gates gt;
    store *st = NULL;
    char err[512] = "";

    if ((nr = parse_compare(argc, argv, &o)) <= 0)
        return nr < 0 ? EXIT_OK : EXIT_USAGE;
    const char *const *ref = (const char *const *)argv + 1;
    /* a board run and a predicted run: predicted vs measured, layer by layer */
    if (nr == 2 && compare_perf_try(o.db, ref[0], ref[1], o.json,
                                    !isnan(o.fail_cos) || !isnan(o.fail_slower) || o.by_host, &ret))
        return ret;
    memset(s, 0, sizeof(s));
    memset(&cg, 0, sizeof(cg));
    memset(&doc, 0, sizeof(doc));
    rc = store_open_readonly(store_default_path(o.db), &st, err, sizeof(err));
    for (int k = 0; k < nr && !rc; k++)
        rc = cmp_run_load(st, ref[k], o.thr, &s[k], err, sizeof(err));
    if (!rc)
        rc = cmp_doc_build(s, nr, o.by_host, CMP_OUTPUT_FILES, &doc, err, sizeof(err));
    if (rc) {
        cli_error("%s", err);
        ret = cli_exit_code(rc);
        goto out;
    }
    for (int i = 0; i < doc.n_outs * nr; i++)
        if (doc.oc[i].warn[0])
            fprintf(stderr, "rknn-trace: warning: output '%s' vs the baseline: %s\n",
                    tt(doc.out_names[i / nr]), tt(doc.oc[i].warn));

    /* gates (analyze/compare_doc.h) */
    gt.fail_cos = o.fail_cos;
    gt.fail_slower = o.fail_slower;
    if ((rc = cmp_gates_eval(&doc, &gt, err, sizeof(err)))) {
        cli_error("%s", err);
        ret = EXIT_INPUT;
        goto out;
    }
    /* the compiled graphs of A and B */
    int graph = cmp_doc_graph(&doc, o.graph, &cg);

    if (o.json) {
        json_writer w;
        cmp_json_opts jo = { .gates = &gt, .graph = graph ? &cg : NULL };
        json_begin(&w, stdout);
        cmp_doc_json(&doc, &jo, &w);
        json_end(&w);
    } else {
        print_compare(&doc, &gt, graph ? &cg : NULL, o.thr);
    }
    ret = gt.failed ? EXIT_GATE : EXIT_OK;
out:
    compare_graph_free(&cg);
    cmp_doc_free(&doc);
    for (int k = 0; k < nr; k++)
        cmp_run_free(&s[k]);
    store_close(st);
    return ret;
}
