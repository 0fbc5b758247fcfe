/* cli/cmd_compare.c — `rknn-trace compare RUN_A RUN_B`: two stored runs layer by
 * layer (aligned by source tensor name), their per-layer error vs golden and
 * their times side by side, a summary line per run, and CI gates. */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fputs("usage: rknn-trace compare RUN_A RUN_B [options]\n"
          "Shows two recorded runs side by side, layer by layer, aligned by the source\n"
          "model's tensor names: the per-layer error vs the fp32 golden (entire cos and euc,\n"
          "for runs made with -q i8|fp16) and the layer times (host: measured on this\n"
          "machine; npu: the NPU model's prediction), then one summary line per run.\n"
          "\n"
          "      --cos-threshold X     name each run's first layer with entire cos < X (0.99)\n"
          "      --fail-if-cos-below X exit 3 if a graph output's entire cos is below X (or nan)\n"
          "                            in a run that has per-layer errors\n"
          "      --fail-if-slower P    exit 3 if RUN_B's median frame time exceeds RUN_A's by\n"
          "                            more than P percent\n"
          "      --db PATH             database (default $RKNN_TRACE_DB, else ./rknn-trace.db)\n"
          "      --json                one JSON document on stdout\n"
          "exit: 0 ok, 1 usage, 2 unknown run or a gate without data, 3 a gate failed\n",
          f);
}

typedef struct side {
    store_run run;
    int have_run;
    store_layer *layers;
    store_accuracy *acc;
    int nl, na;
    compare_side cs;
    compare_summary sum;
} side;

static int load_side(store *st, const char *ref, side *s, char *err, size_t errlen)
{
    int rc = store_get_run(st, ref, &s->run, err, errlen);
    if (rc)
        return rc;
    s->have_run = 1;
    if ((rc = store_get_layers(st, s->run.id, &s->layers, &s->nl, err, errlen)) ||
        (rc = store_get_accuracy(st, s->run.id, &s->acc, &s->na, err, errlen)))
        return rc;
    s->cs = (compare_side){ &s->run, s->layers, s->nl, s->acc, s->na };
    return RT_OK;
}

static void side_free(side *s)
{
    store_layers_free(s->layers, s->nl);
    store_accuracy_free(s->acc, s->na);
    if (s->have_run)
        store_run_clear(&s->run);
}

static double parse_num(const char *opt, const char *v, double lo, double hi, int *bad)
{
    char *end;
    double x = strtod(v, &end);
    if (*end || end == v || !(x >= lo && x <= hi)) {
        cli_error("%s takes a number in [%g, %g], got '%s'", opt, lo, hi, v);
        *bad = 1;
    }
    return x;
}

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

static void print_summary(const char *tag, const side *s, double thr)
{
    char nm[128], a[32], b[32];
    const compare_summary *m = &s->sum;
    printf("%s %s: %s%s%s%s%s, %d layers, median %s ms, npu predicted %s ms", tag,
           run_name(&s->run, nm, sizeof(nm)), s->run.quant ? s->run.quant : "-",
           s->run.quant_algo ? " " : "", s->run.quant_algo ? s->run.quant_algo : "",
           s->run.quant_method ? " " : "", s->run.quant_method ? s->run.quant_method : "", s->nl,
           cell(a, sizeof(a), m->total_us / 1e3, "%.3f"), cell(b, sizeof(b), m->npu_us / 1e3, "%.3f"));
    if (!m->n_acc) {
        printf(", no per-layer error (not a quantized run)\n");
        return;
    }
    if (m->worst_output)
        printf(", output cos %s (%s)", isnan(m->out_cos) ? "nan" : cell(a, sizeof(a), m->out_cos, "%.5f"),
               m->worst_output);
    if (m->first_below >= 0)
        printf(", first cos < %g: %s\n", thr, s->acc[m->first_below].name);
    else
        printf(", every layer cos >= %g\n", thr);
}

static void json_side_layer(json_writer *w, const char *key, const side *s, int li, int ai)
{
    json_key(w, key);
    if (li < 0 && ai < 0) {
        json_write_null(w);
        return;
    }
    json_obj_open(w);
    json_key(w, "layer");
    if (li >= 0)
        json_int(w, s->layers[li].idx);
    else
        json_write_null(w);
    json_key(w, "host_us"), json_num(w, li >= 0 ? s->layers[li].host_us : NAN);
    json_key(w, "npu_us"), json_num(w, li >= 0 ? s->layers[li].time_us : NAN);
    json_key(w, "entire_cos"), json_num(w, ai >= 0 ? s->acc[ai].entire.cos : NAN);
    json_key(w, "entire_euc"), json_num(w, ai >= 0 ? s->acc[ai].entire.euc : NAN);
    json_key(w, "single_cos"), json_num(w, ai >= 0 ? s->acc[ai].single.cos : NAN);
    json_key(w, "single_euc"), json_num(w, ai >= 0 ? s->acc[ai].single.euc : NAN);
    json_obj_close(w);
}

static void json_summary(json_writer *w, const char *key, const side *s, double thr)
{
    json_key(w, key);
    json_obj_open(w);
    json_key(w, "id"), json_int(w, s->run.id);
    json_key(w, "label"), json_str(w, s->run.label);
    json_key(w, "model"), json_str(w, s->run.model_path);
    json_key(w, "quant"), json_str(w, s->run.quant);
    json_key(w, "quant_algo"), json_str(w, s->run.quant_algo);
    json_key(w, "quant_method"), json_str(w, s->run.quant_method);
    json_key(w, "layers"), json_int(w, s->nl);
    json_key(w, "total_us"), json_num(w, s->sum.total_us);
    json_key(w, "npu_us"), json_num(w, s->sum.npu_us);
    json_key(w, "has_errors"), json_bool(w, s->sum.n_acc > 0);
    json_key(w, "output_cos"), json_num(w, s->sum.out_cos);
    json_key(w, "worst_output"), json_str(w, s->sum.worst_output);
    json_key(w, "first_below"),
        json_str(w, s->sum.first_below >= 0 ? s->acc[s->sum.first_below].name : NULL);
    json_obj_close(w);
}

int cmd_compare(int argc, char **argv)
{
    const char *db = NULL, *ref[2] = { NULL, NULL };
    double thr = 0.99, fail_cos = NAN, fail_slower = NAN;
    int json = 0, bad = 0, ret = EXIT_INTERNAL, rc, nr = 0;
    side s[2];
    store *st = NULL;
    compare_row *rows = NULL;
    char err[512] = "";

    memset(s, 0, sizeof(s));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (cli_opt_is(a, "--db")) {
            if (!(db = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
        } else if (cli_opt_is(a, "--cos-threshold")) {
            if (!(v = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
            thr = parse_num("--cos-threshold", v, -1, 1, &bad);
        } else if (cli_opt_is(a, "--fail-if-cos-below")) {
            if (!(v = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
            fail_cos = parse_num("--fail-if-cos-below", v, -1, 1, &bad);
        } else if (cli_opt_is(a, "--fail-if-slower")) {
            if (!(v = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
            char tmp[64];
            snprintf(tmp, sizeof(tmp), "%s", v);
            size_t l = strlen(tmp);
            if (l && tmp[l - 1] == '%')
                tmp[l - 1] = '\0';
            fail_slower = parse_num("--fail-if-slower", tmp, 0, 1e6, &bad);
        } else if (a[0] == '-' && a[1]) {
            cli_error("compare: unknown option '%s' (see rknn-trace compare --help)", a);
            return EXIT_USAGE;
        } else if (nr < 2) {
            ref[nr++] = a;
        } else {
            cli_error("compare takes two runs, got a third: '%s'", a);
            return EXIT_USAGE;
        }
        if (bad)
            return EXIT_USAGE;
    }
    if (nr != 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    rc = store_open_readonly(store_default_path(db), &st, err, sizeof(err));
    for (int k = 0; k < 2 && !rc; k++)
        rc = load_side(st, ref[k], &s[k], err, sizeof(err));
    if (rc) {
        cli_error("%s", err);
        ret = cli_exit_code(rc);
        goto out;
    }
    for (int k = 0; k < 2; k++)
        compare_summarise(&s[k].cs, thr, &s[k].sum);
    if (!isnan(fail_cos) && !s[0].sum.n_acc && !s[1].sum.n_acc) {
        cli_error("--fail-if-cos-below: neither run has per-layer errors (record one with "
                  "rknn-trace run MODEL -q i8|fp16)");
        ret = EXIT_INPUT;
        goto out;
    }
    if (!isnan(fail_slower) && (isnan(s[0].sum.total_us) || isnan(s[1].sum.total_us))) {
        cli_error("--fail-if-slower: run %s has no recorded time",
                  isnan(s[0].sum.total_us) ? ref[0] : ref[1]);
        ret = EXIT_INPUT;
        goto out;
    }
    int n = 0;
    compare_align(&s[0].cs, &s[1].cs, &rows, &n);

    /* Gates. */
    int failed = 0, cos_failed[2] = { 0, 0 }, slow_failed = 0;
    double slower_pct = NAN;
    for (int k = 0; k < 2 && !isnan(fail_cos); k++)
        if (s[k].sum.n_acc && s[k].sum.worst_output &&
            (isnan(s[k].sum.out_cos) || s[k].sum.out_cos < fail_cos))
            cos_failed[k] = failed = 1;
    if (!isnan(s[0].sum.total_us) && s[0].sum.total_us > 0)
        slower_pct = (s[1].sum.total_us / s[0].sum.total_us - 1.0) * 100.0;
    if (!isnan(fail_slower) && !isnan(slower_pct) && slower_pct > fail_slower)
        slow_failed = failed = 1;

    if (json) {
        json_writer w;
        json_begin(&w, stdout);
        json_obj_open(&w);
        json_summary(&w, "a", &s[0], thr);
        json_summary(&w, "b", &s[1], thr);
        json_key(&w, "cos_threshold"), json_num(&w, thr);
        json_key(&w, "b_slower_pct"), json_num(&w, slower_pct);
        json_key(&w, "layers");
        json_arr_open(&w);
        for (int i = 0; i < n; i++) {
            json_obj_open(&w);
            json_key(&w, "name"), json_str(&w, rows[i].name);
            json_key(&w, "op"), json_str(&w, rows[i].op);
            json_side_layer(&w, "a", &s[0], rows[i].layer[0], rows[i].acc[0]);
            json_side_layer(&w, "b", &s[1], rows[i].layer[1], rows[i].acc[1]);
            json_obj_close(&w);
        }
        json_arr_close(&w);
        json_key(&w, "gates");
        json_arr_open(&w);
        for (int k = 0; k < 2 && !isnan(fail_cos); k++) {
            if (!s[k].sum.n_acc)
                continue;
            json_obj_open(&w);
            json_key(&w, "gate"), json_str(&w, "cos");
            json_key(&w, "run"), json_int(&w, s[k].run.id);
            json_key(&w, "threshold"), json_num(&w, fail_cos);
            json_key(&w, "value"), json_num(&w, s[k].sum.out_cos);
            json_key(&w, "failed"), json_bool(&w, cos_failed[k]);
            json_obj_close(&w);
        }
        if (!isnan(fail_slower)) {
            json_obj_open(&w);
            json_key(&w, "gate"), json_str(&w, "slower");
            json_key(&w, "run"), json_int(&w, s[1].run.id);
            json_key(&w, "threshold"), json_num(&w, fail_slower);
            json_key(&w, "value"), json_num(&w, slower_pct);
            json_key(&w, "failed"), json_bool(&w, slow_failed);
            json_obj_close(&w);
        }
        json_arr_close(&w);
        json_key(&w, "failed"), json_bool(&w, failed);
        json_obj_close(&w);
        json_end(&w);
    } else {
        char nm[2][128], c[10][32];
        int wn = 24;
        for (int i = 0; i < n; i++) {
            int l = (int)strlen(rows[i].name) + (rows[i].op ? (int)strlen(rows[i].op) : 1) + 3;
            if (l > wn)
                wn = l < 100 ? l : 100;
        }
        printf("A = run %s, B = run %s (rows aligned by tensor name; '-': absent)\n\n",
               run_name(&s[0].run, nm[0], sizeof(nm[0])), run_name(&s[1].run, nm[1], sizeof(nm[1])));
        printf("%-*s %9s %9s  %10s %10s  %10s %10s  %9s %9s\n", wn, "layer_name", "cos A", "cos B",
               "euc A", "euc B", "host us A", "host us B", "npu us A", "npu us B");
        for (int i = 0; i < wn + 92; i++)
            putchar('-');
        putchar('\n');
        for (int i = 0; i < n; i++) {
            const compare_row *r = &rows[i];
            char label[256];
            double v[8];
            for (int k = 0; k < 2; k++) {
                int ai = r->acc[k], li = r->layer[k];
                v[k] = ai >= 0 ? s[k].acc[ai].entire.cos : NAN;
                v[2 + k] = ai >= 0 ? s[k].acc[ai].entire.euc : NAN;
                v[4 + k] = li >= 0 ? s[k].layers[li].host_us : NAN;
                v[6 + k] = li >= 0 ? s[k].layers[li].time_us : NAN;
            }
            snprintf(label, sizeof(label), "[%s] %s", r->op ? r->op : "-", r->name);
            /* a row present with NaN cos prints nan; an absent one prints '-' */
            for (int k = 0; k < 2; k++) {
                if (r->acc[k] >= 0 && isnan(v[k]))
                    snprintf(c[k], sizeof(c[k]), "nan");
                else
                    cell(c[k], sizeof(c[k]), v[k], "%.5f");
                cell(c[2 + k], sizeof(c[2 + k]), v[2 + k], "%.5g");
                cell(c[4 + k], sizeof(c[4 + k]), v[4 + k], "%.1f");
                cell(c[6 + k], sizeof(c[6 + k]), v[6 + k], "%.1f");
            }
            printf("%-*s %9s %9s  %10s %10s  %10s %10s  %9s %9s\n", wn, label, c[0], c[1], c[2],
                   c[3], c[4], c[5], c[6], c[7]);
        }
        putchar('\n');
        print_summary("A", &s[0], thr);
        print_summary("B", &s[1], thr);
        if (!isnan(slower_pct))
            printf("B vs A: median frame time %+.1f%%\n", slower_pct);
        for (int k = 0; k < 2; k++)
            if (cos_failed[k])
                printf("GATE FAILED: run %s output cos %s < %g\n", run_name(&s[k].run, nm[k], sizeof(nm[k])),
                       isnan(s[k].sum.out_cos) ? "nan" : cell(c[0], sizeof(c[0]), s[k].sum.out_cos, "%.5f"),
                       fail_cos);
        if (slow_failed)
            printf("GATE FAILED: run B is %.1f%% slower than run A (limit %g%%)\n", slower_pct,
                   fail_slower);
    }
    ret = failed ? EXIT_GATE : EXIT_OK;
out:
    free(rows);
    side_free(&s[0]);
    side_free(&s[1]);
    store_close(st);
    return ret;
}
