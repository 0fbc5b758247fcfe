/* cli/cmd_store.c — `rknn-trace ls` and `rknn-trace show RUN`: read the store.
 * Both render the one run summary (analyze/summary.c); filters and sorting of
 * `ls` work in C over store_list_runs (the store alone knows SQL). */
#include "analyze/analyze.h"
#include "analyze/compare_doc.h"
#include "cli/cli.h"
#include "cli/opt.h"
#include "record/rows_npu.h"
#include "util/escape.h"
#include "util/util.h"

#include <ctype.h>
#include <jansson.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---- ls ---------------------------------------------------------------------- */

typedef struct ls_opts {
    const char *db, *model, *platform, *quant, *label, *since, *sort;
    cli_list tags;
    long long limit;
    int json;
    int sort_field, sort_desc;  /* index into sort_fields, -FIELD */
} ls_opts;

#define CLI_OPTS_T ls_opts
static const cli_opt ls_options[] = {
    CLI_OPT_STR("--model", 0, "TEXT", model, "runs of a model: its path, file name, or a glob of either (a run\n"
                "imported without a model: its log's)"),
    CLI_OPT_STR("--platform", 0, "P", platform, "runs for target P (rk3588, ...)"),
    CLI_OPT_STR("--quant", 0, "Q", quant, "fp32, fp16, i8; i8/mmse and i8/mmse/layer narrow algo and method"),
    CLI_OPT_STR("--label", 0, "GLOB", label, "labels matching GLOB (fnmatch: * ? [...])"),
    CLI_OPT_LIST("--tag", 0, "TAG", tags, 16, "runs tagged TAG (repeatable: runs with every one given)"),
    CLI_OPT_STR("--since", 0, "WHEN", since,
                "recorded at or after WHEN: YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS] (UTC)"),
    CLI_OPT_STR("--sort", 0, "FIELD", sort,
                "id (default), time, label, model, platform, quant, npu, host,\n"
                "cos, sqnr; -FIELD sorts descending; unknown values last"),
    CLI_OPT_COUNT("--limit", 0, "N", limit, 0, 0, "at most N runs (after sorting)"),
    CLI_OPT_DB(db),
    CLI_OPT_FLAG("--json", 0, json, "a JSON list (docs/json.md)"),
    CLI_OPT_END};
#undef CLI_OPTS_T

const cli_spec cli_spec_ls = {
    "ls",
    "usage: rknn-trace ls [options]\n"
    "Lists the recorded runs: predicted NPU frame (NPU model), this PC's host median,\n"
    "quantization, and the final outputs' cosine / SQNR vs the fp32 golden where known.\n"
    "\n",
    ls_options, NULL};

typedef struct ls_row {
    store_run *run;
    double npu_us, host_us, cos, sqnr;
    double board_us;  /* a board run's rknn_run median: measured there, not on this PC */
    run_provenance prov;  /* where npu_us and the times came from */
    char *worst;
    char *log_file;   /* an imported run's log (the model column without a model) */
    int collapsed, has_acc;
} ls_row;

static int valid_since(const char *s)
{
    /* YYYY-MM-DD, optionally THH:MM or THH:MM:SS, optionally Z */
    static const char pat[] = "dddd-dd-ddTdd:dd:dd";
    size_t n = strlen(s);
    if (n && s[n - 1] == 'Z')
        n--;
    if (n != 10 && n != 16 && n != 19)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (pat[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != pat[i])
            return 0;
    return 1;
}

static int keep(const store_run *r, const ls_opts *o)
{
    for (int i = 0; i < o->tags.n; i++)
        if (!cli_tags_have(r->tags, o->tags.v[i]))
            return 0;
    if (o->model && !run_filter_model(r, o->model))
        return 0;
    if (o->platform && (!r->platform || strcasecmp(r->platform, o->platform)))
        return 0;
    if (o->quant && !run_filter_quant(r, o->quant))
        return 0;
    if (o->label && (!r->label || fnmatch(o->label, r->label, 0)))
        return 0;
    /* ISO 8601 UTC strings compare in time order */
    if (o->since && (!r->time || strcmp(r->time, o->since) < 0))
        return 0;
    return 1;
}

static const char *sort_fields[] = { "id", "time", "label", "model", "platform", "quant",
                                     "npu", "host", "cos", "sqnr" };

static int cmp_str(const char *a, const char *b)
{
    if (!a || !b)
        return !a - !b; /* missing last */
    return strcmp(a, b);
}

static int cmp_num(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return a < b ? -1 : a > b;
}

/* The figure a numeric sort field (npu, host, cos, sqnr) reads; 0 for the others. */
static double sort_number(const ls_row *r, int field)
{
    switch (field) {
    case 6: return r->npu_us;
    case 7: return r->host_us;
    case 8: return r->cos;
    case 9: return r->sqnr;
    }
    return 0;
}

/* The text a string sort field (time .. quant) reads, NULL when unknown; the
 * model column's: an imported run without a model shows its log. */
static const char *sort_text(const ls_row *r, int field)
{
    const char *s = NULL;
    switch (field) {
    case 1: s = r->run->time; break;
    case 2: s = r->run->label; break;
    case 3: s = r->run->model_path && r->run->model_path[0] ? r->run->model_path : r->log_file; break;
    case 4: s = r->run->platform; break;
    case 5: s = r->run->quant; break;
    }
    return s && s[0] ? s : NULL;
}

static int cmp_rows(const void *x, const void *y, void *ctx)
{
    const ls_row *a = x, *b = y;
    const ls_opts *o = ctx;
    int sort_field = o->sort_field, sort_desc = o->sort_desc;
    int c = 0, missing;
    if (sort_field == 0)
        c = (a->run->id > b->run->id) - (a->run->id < b->run->id);
    else if (sort_field <= 5)
        c = cmp_str(sort_text(a, sort_field), sort_text(b, sort_field));
    else
        c = cmp_num(sort_number(a, sort_field), sort_number(b, sort_field));
    /* unknown values stay last in either direction */
    missing = sort_field >= 1 && sort_field <= 5
                  ? !sort_text(a, sort_field) != !sort_text(b, sort_field)
                  : isnan(sort_number(a, sort_field)) != isnan(sort_number(b, sort_field));
    if (sort_desc && !missing)
        c = -c;
    if (!c)
        c = (a->run->id > b->run->id) - (a->run->id < b->run->id);
    return c;
}

/* 0, -2 after --help, -1 after a usage error */
static int parse_ls(int argc, char **argv, ls_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->limit = -1;
    int n = cli_parse(&cli_spec_ls, argc, argv, o);
    if (n < 0)
        return n == CLI_PARSE_HELP ? -2 : -1;
    if (n > 0) {
        cli_error("ls: unexpected argument '%s' (see rknn-trace ls --help)", argv[1]);
        return -1;
    }
    if (o->since && !valid_since(o->since)) {
        cli_error("--since takes YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][Z], got '%s'", o->since);
        return -1;
    }
    if (o->sort) {
        const char *f = o->sort;
        o->sort_desc = f[0] == '-';
        f += o->sort_desc;
        o->sort_field = -1;
        for (int k = 0; k < (int)(sizeof(sort_fields) / sizeof(sort_fields[0])); k++)
            if (!strcmp(f, sort_fields[k]))
                o->sort_field = k;
        if (o->sort_field < 0) {
            cli_error("--sort: unknown field '%s' (id, time, label, model, platform, quant, npu, "
                      "host, cos, sqnr; -FIELD descending)", f);
            return -1;
        }
    }
    return 0;
}

/* The summary figures ls shows, from the run's outputs and graph-output error
 * rows (read for every run at once: store_list_run_outputs). */
static void ls_figures(ls_row *row, const store_run_outputs *ro)
{
    run_summary sum;

    summary_compute(row->run, NULL, 0, NULL, 0, ro ? ro->outs : NULL, ro ? ro->n_outs : 0,
                    ro ? ro->acc : NULL, ro ? ro->n_acc : 0, 0.99, &sum);
    row->npu_us = sum.frame_us;
    row->host_us = sum.host_median_us;
    row->board_us = NAN;
    row->prov = sum.prov;
    if (sum.prov.timing == PROV_BOARD) { /* measured on the board, not this PC */
        row->board_us = row->host_us;
        row->host_us = NAN;
    }
    row->cos = sum.out_cos;
    row->sqnr = sum.out_sqnr_db;
    row->has_acc = ro && ro->has_acc_rows;
    row->collapsed = sum.n_collapsed;
    if (sum.worst_output >= 0 && sum.outputs[sum.worst_output].name)
        row->worst = xstrdup(sum.outputs[sum.worst_output].name);
    if (sum.log.file)
        row->log_file = xstrdup(sum.log.file);
    summary_free(&sum);
}

/* The host PC column's marker for a time that is this PC's but not its CPU
 * runtime's ("" for the column's plain meaning); a board time has its own column. */
static const char *ls_host_mark(int timing)
{
    return timing == PROV_SIMLIB ? "*" : timing == PROV_TOOLKIT ? "^" : "";
}

/* A text line built by hand: printf's field widths cost more than the rest of
 * a listing of many runs. */
typedef struct {
    char *buf;
    size_t n, cap;
} line;

static void line_put(line *l, const char *s, size_t k)
{
    if (l->n + k + 1 > l->cap) {
        l->cap = (l->n + k + 1) * 2;
        l->buf = xrealloc(l->buf, l->cap);
    }
    memcpy(l->buf + l->n, s, k);
    l->n += k;
}

static void line_add(line *l, const char *s)
{
    line_put(l, s, strlen(s));
}

/* s in width columns as "%-*s " (left, then one blank) or "%*s" (right). */
static void line_pad(line *l, const char *s, int width, int left)
{
    static const char blanks[] = "                                ";
    size_t k = strlen(s), pad = (size_t)width > k ? (size_t)width - k : 0;

    if (!left)
        line_put(l, blanks, pad);
    line_put(l, s, k);
    if (left) {
        line_put(l, blanks, pad);
        line_put(l, " ", 1);
    }
}

/* "%lld" of a run id (positive) without printf */
static const char *fmt_id(char *buf, size_t len, int64_t v)
{
    size_t n = len - 1;

    if (v < 0) {
        snprintf(buf, len, "%" PRId64, v);
        return buf;
    }
    buf[n] = 0;
    do
        buf[--n] = (char)('0' + v % 10);
    while ((v /= 10) > 0 && n > 0);
    return buf + n;
}

static void ls_json_row(json_writer *w, const ls_row *row)
{
    const store_run *r = row->run;
    json_obj_open(w);
    json_key(w, "schema_version"), json_int(w, SUMMARY_SCHEMA_VERSION);
    json_key(w, "kind"), json_str(w, "run_entry");
    json_key(w, "id"), json_int(w, r->id);
    json_key(w, "label"), json_str(w, r->label);
    json_key(w, "time"), json_str(w, r->time);
    json_key(w, "status"), json_str(w, r->status);
    json_key(w, "model"), json_str(w, r->model_path);
    json_key(w, "model_sha256"), json_str(w, r->model_sha256);
    json_key(w, "log_file"), json_str(w, row->log_file);
    json_key(w, "platform"), json_str(w, r->platform);
    json_key(w, "backend"), json_str(w, r->backend);
    json_key(w, "quant"), json_str(w, r->quant);
    json_key(w, "quant_algo"), json_str(w, r->quant_algo);
    json_key(w, "quant_method"), json_str(w, r->quant_method);
    json_key_int(w, "threads", r->threads, STORE_NULL_INT);
    json_key_int(w, "iterations", r->iterations, STORE_NULL_INT);
    json_key_int(w, "seed", r->seed, STORE_NULL_INT);
    json_key_int(w, "layer_count", r->n_layers, STORE_NULL_INT);
    json_key(w, "tags");
    json_arr_open(w);
    for (const char *p = r->tags; p && *p;) {
        size_t k = strcspn(p, ",");
        char tag[80];
        snprintf(tag, sizeof(tag), "%.*s", (int)k, p);
        json_str(w, tag);
        p += k + (p[k] == ',');
    }
    json_arr_close(w);
    json_key(w, "npu_us"), json_num(w, row->npu_us);
    json_key(w, "host_median_us"), json_num(w, row->host_us);
    json_key(w, "board_us"), json_num(w, row->board_us);
    json_key(w, "provenance");
    json_obj_open(w);
    json_key(w, "frame"), json_str(w, provenance_tag(row->prov.frame));
    json_key(w, "timing"), json_str(w, provenance_tag(row->prov.timing));
    json_key(w, "imported"), json_bool(w, row->prov.imported);
    json_obj_close(w);
    json_key(w, "output_cos"), json_num(w, row->cos);
    json_key(w, "output_sqnr_db"), json_num(w, row->sqnr);
    json_key(w, "worst_output"), json_str(w, row->has_acc ? row->worst : NULL);
    json_key(w, "collapsed_outputs");
    if (row->has_acc)
        json_int(w, row->collapsed);
    else
        json_write_null(w);
    json_key(w, "inputs"), json_raw(w, r->inputs_json);
    json_key(w, "extra"), json_raw(w, r->extra_json);
    json_obj_close(w);
}

/* The listing as text: one line per run, the legend of the host PC column's
 * marks; n_runs: how many runs the database holds. */
static void ls_print_text(const ls_row *rows, int shown, int n_runs)
{
    printf("%5s  %-16s %-20s %-7s %-7s %-22s %11s %8s %10s %9s %7s  %s\n", "id", "label", "time",
           "target", "backend", "quant", "NPU pred ms", "board ms", "host PC ms", "out cos",
           "SQNR dB", "model");
    line ln = {0};
    unsigned marks = 0; /* the PROV_* bits marked in the host PC column */
    for (int i = 0; i < shown; i++) {
        const store_run *r = rows[i].run;
        char id[24], a[32], b[32], c[32], d[32], e[32];
        if (rows[i].collapsed)
            snprintf(c, sizeof(c), "collapsed");
        else
            summary_fmt(c, sizeof(c), rows[i].cos, "%.5f");
        /* every stored text through ESC_TERM (an import or a label can hold
         * any byte); as printf("%5lld  %-16s %-20s %-7s %-7s %-22s %11s %8s %10s %9s %7s  %s\n") */
        ln.n = 0;
        line_pad(&ln, fmt_id(id, sizeof id, r->id), 5, 0);
        line_add(&ln, "  ");
        line_pad(&ln, r->label ? esc_tmp(ESC_TERM, r->label) : "-", 16, 1);
        line_pad(&ln, r->time ? esc_tmp(ESC_TERM, r->time) : "-", 20, 1);
        line_pad(&ln, r->platform ? esc_tmp(ESC_TERM, r->platform) : "-", 7, 1);
        line_pad(&ln, r->backend ? esc_tmp(ESC_TERM, r->backend) : "-", 7, 1);
        /* the quantization: "quant[/algo][/method]" in 22 columns */
        size_t q0 = ln.n;
        line_add(&ln, r->quant ? esc_tmp(ESC_TERM, r->quant) : "-");
        if (r->quant_algo)
            line_add(&ln, "/"), line_add(&ln, esc_tmp(ESC_TERM, r->quant_algo));
        if (r->quant_method)
            line_add(&ln, "/"), line_add(&ln, esc_tmp(ESC_TERM, r->quant_method));
        line_pad(&ln, "", 22 - (ln.n - q0 < 22 ? (int)(ln.n - q0) : 22), 1);
        line_pad(&ln, summary_fmt(a, sizeof(a), rows[i].npu_us / 1e3, "%.3f"), 11, 0);
        line_add(&ln, " ");
        line_pad(&ln, summary_fmt(e, sizeof(e), rows[i].board_us / 1e3, "%.3f"), 8, 0);
        line_add(&ln, " ");
        /* a time this PC took through something other than the CPU runtime
         * (simulated library, Toolkit2's simulator): marked, legend below */
        const char *mk = ls_host_mark(rows[i].prov.timing);
        summary_fmt(b, sizeof(b), rows[i].host_us / 1e3, "%.3f");
        if (*mk && isfinite(rows[i].host_us)) {
            strncat(b, mk, sizeof(b) - strlen(b) - 1);
            marks |= 1u << rows[i].prov.timing;
        }
        line_pad(&ln, b, 10, 0);
        line_add(&ln, " ");
        line_pad(&ln, c, 9, 0);
        line_add(&ln, " ");
        line_pad(&ln, summary_fmt(d, sizeof(d), rows[i].sqnr, "%.1f"), 7, 0);
        line_add(&ln, "  ");
        /* no model: the log an imported run came from tells it apart */
        if (r->model_path)
            line_add(&ln, esc_tmp(ESC_TERM, r->model_path));
        else if (rows[i].log_file)
            line_add(&ln, "log "), line_add(&ln, esc_tmp(ESC_TERM, rows[i].log_file));
        else
            line_add(&ln, "-");
        line_add(&ln, "\n");
        fwrite(ln.buf, 1, ln.n, stdout);
    }
    free(ln.buf);
    for (int p = 0; p < 8; p++)
        if (marks & (1u << p))
            printf("%s host PC ms: %s (%s)\n", ls_host_mark(p), provenance_words(p),
                   provenance_tag(p));
    if (!shown)
        printf(n_runs ? "(no run matches)\n" : "(no runs yet: rknn-trace run MODEL records one)\n");
}

static void ls_print_json(const ls_row *rows, int shown)
{
    json_writer w;
    json_begin(&w, stdout);
    json_arr_open(&w);
    for (int i = 0; i < shown; i++)
        ls_json_row(&w, &rows[i]);
    json_arr_close(&w);
    json_end(&w);
}

int cmd_ls(int argc, char **argv)
{
    ls_opts o;
    store *st = NULL;
    store_run *runs = NULL;
    store_run_outputs *ro = NULL;
    ls_row *rows = NULL;
    int n = 0, nk = 0, n_ro = 0, rc, ret = EXIT_OK;
    char err[512];

    rc = parse_ls(argc, argv, &o);
    if (rc)
        return rc == -2 ? EXIT_OK : EXIT_USAGE;
    const char *path = store_default_path(o.db);
    /* No database yet is an empty list, not an error. */
    if (access(path, F_OK) != 0 && errno == ENOENT) {
        if (o.json)
            puts("[]");
        else
            printf("(no runs yet in %s: rknn-trace run MODEL records one)\n", path);
        return EXIT_OK;
    }
    rc = store_open_readonly(path, &st, err, sizeof(err));
    if (!rc)
        rc = o.json ? store_list_runs(st, &runs, &n, err, sizeof(err)) /* shows inputs, extra */
                    : store_list_runs_brief(st, &runs, &n, err, sizeof(err));
    if (!rc)
        rc = store_list_run_outputs(st, &ro, &n_ro, err, sizeof(err));
    rows = xcalloc((size_t)(n ? n : 1), sizeof(*rows));
    /* both lists are in run id order: one walk pairs them */
    for (int i = 0, k = 0; i < n && !rc; i++) {
        while (k < n_ro && ro[k].run_id < runs[i].id)
            k++;
        if (!keep(&runs[i], &o))
            continue;
        rows[nk].run = &runs[i];
        ls_figures(&rows[nk], k < n_ro && ro[k].run_id == runs[i].id ? &ro[k] : NULL);
        nk++;
    }
    if (rc) {
        cli_error("%s", err);
        ret = cli_exit_code(rc);
        goto out;
    }
    qsort_r(rows, (size_t)nk, sizeof(*rows), cmp_rows, &o);
    int shown = o.limit >= 0 && o.limit < nk ? (int)o.limit : nk;
    if (o.json)
        ls_print_json(rows, shown);
    else
        ls_print_text(rows, shown, n);
out:
    for (int i = 0; i < nk; i++) {
        free(rows[i].worst);
        free(rows[i].log_file);
    }
    free(rows);
    store_runs_free(runs, n);
    store_run_outputs_free(ro, n_ro);
    store_close(st);
    return ret;
}

/* ---- show -------------------------------------------------------------------- */

/* The level-4 table `run --npu-table` printed, rebuilt from the rows (record/). */
static int print_npu_table(const cmp_run *c, char *err, size_t errlen)
{
    const store_run *run = &c->run;
    npu_graph_t ng;
    int complete = 0;
    int rc = rows_npu_graph(run, c->layers, c->n_layers, c->npu, c->n_npu, &ng, &complete, err, errlen);

    if (!rc) {
        int has_io = 0, cores = ng.plat ? ng.plat->cores : 1;
        json_t *x = run->extra_json ? json_loads(run->extra_json, 0, NULL) : NULL;
        /* an imported table that printed each row's MacUsage on every core */
        int every = json_is_true(json_object_get(json_object_get(x, "perf"), "mac_on_every_core"));
        json_decref(x);
        for (int i = 0; i < ng.n; i++) {
            npu_layer_t *l = &ng.l[i];
            has_io |= !strcmp(l->optype, "InputOperator");
            if (every && !complete && l->macs) {
                double m = 0;
                for (int c = 0; c < cores && c < NPU_MAX_CORES; c++)
                    m = l->mac_usage[c] > m ? l->mac_usage[c] : m;
                for (int c = 0; c < cores && c < NPU_MAX_CORES; c++)
                    l->mac_usage[c] = m;
            }
        }
        npu_print_perf_table(stdout, &ng, 0);
        if (complete)
            printf("(rebuilt from the stored rows of run #%lld)\n", (long long)run->id);
        else /* a vendor table's rows (board, import), or a run recorded before */
            printf("(rebuilt from the stored rows of run #%lld%s%s)\n", (long long)run->id,
                   has_io ? "" : ": InputOperator/OutputOperator/exDataConvert rows and the layers "
                                 "a node is lowered to are not stored",
                   cores < 2 ? ""
                   : every   ? "; a row keeps one MacUsage, printed on every core as the log did"
                             : "; a row keeps one MacUsage (its largest core's), printed on the "
                               "cores with a workload and 0.00 on the others");
        /* an excerpt: the Total line is the log's, the rows and the ranking what it kept */
        int64_t kept = 0;
        for (int i = 0; i < ng.n; i++)
            kept += (int64_t)ng.l[i].time_us;
        if (ng.log_total_us > 0 && (double)kept != ng.log_total_us)
            printf("(the Total line is the log's; the %d rows it kept add up to %lld us, and the "
                   "ranking above is of them: `show` prints the log's own ranking)\n",
                   ng.n, (long long)kept);
    }
    rows_npu_graph_free(&ng);
    return rc;
}

typedef struct show_opts {
    const char *db;
    int json, npu_table;
    double thr;
} show_opts;

#define CLI_OPTS_T show_opts
static const cli_opt show_options[] = {
    CLI_OPT_FLAG("--npu-table", 0, npu_table, "the vendor-style level-4 table, rebuilt from the rows"),
    CLI_OPT_REAL("--cos-threshold", 0, "X", thr, -1, 1,
                 "name the first layer whose entire cos < X (0.99)"),
    CLI_OPT_FLAG("--json", 0, json, "the run document of docs/json.md"),
    CLI_OPT_DB(db),
    CLI_OPT_END};
#undef CLI_OPTS_T

const cli_spec cli_spec_show = {
    "show",
    "usage: rknn-trace show RUN [--db PATH] [--json] [--npu-table] [--cos-threshold X]\n"
    "Shows one run (RUN: its id or its label): the same summary `run` printed,\n"
    "NPU first, and its per-layer error table when it has one.\n",
    show_options, NULL};

/* The run's reference into *ref; EXIT_OK, -1 after --help, else EXIT_USAGE. */
static int parse_show(int argc, char **argv, show_opts *o, const char **ref)
{
    memset(o, 0, sizeof(*o));
    o->thr = 0.99;
    int n = cli_parse(&cli_spec_show, argc, argv, o);
    if (n < 0)
        return n == CLI_PARSE_HELP ? -1 : EXIT_USAGE;
    if (n > 1) {
        cli_error("show takes one run, got a second: '%s'", argv[2]);
        return EXIT_USAGE;
    }
    if (!n) {
        cli_error("show: which run? (rknn-trace show RUN; rknn-trace ls lists them)");
        return EXIT_USAGE;
    }
    *ref = argv[1];
    return EXIT_OK;
}

int cmd_show(int argc, char **argv)
{
    show_opts o;
    const char *ref = NULL;
    store *st = NULL;
    cmp_run c;
    int rc;
    char err[512];

    memset(&c, 0, sizeof c);
    if ((rc = parse_show(argc, argv, &o, &ref)))
        return rc < 0 ? EXIT_OK : rc;
    const int json = o.json, npu_table = o.npu_table;
    rc = store_open_readonly(store_default_path(o.db), &st, err, sizeof(err));
    if (!rc) /* the one run loader: the rows and summary compare and the TUI read */
        rc = cmp_run_load(st, ref, o.thr, &c, err, sizeof(err));
    if (!rc && npu_table && !json)
        rc = print_npu_table(&c, err, sizeof(err));
    if (rc)
        cli_error("%s", err);
    else if (!npu_table || json)
        run_summary_render(&c.sum, c.outs, c.n_outs, json, stdout);
    cmp_run_free(&c);
    store_close(st);
    return cli_exit_code(rc);
}
