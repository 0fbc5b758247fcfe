/* tests/tools/npu_cpu_cost.c — the CPU-fallback cost model (runtime/npu/npu_cpu.c)
 * against the CPU rows of the real per-layer tables, and its fit.
 *
 * usage: npu_cpu_cost [PERFLOG_DIR] [--check]
 *        (default tests/fuzz/corpus/perflog: the real tables of shared/data/logs)
 *
 * Every row with Target CPU and a time, from the first table of each perf-*
 * file, becomes a CPU layer (OpType, DataType, shapes; an OutputOperator's
 * input is padded to 2*C2 when a conv-type row produced it, as npu_cost pads a
 * conv's graph output) whose work npu_cpu_work computes. The constants are
 * fitted as npu_cpu.c says: input_us the InputOperator time of least median
 * relative error; output_us and ns_rd by least relative squares over the
 * OutputOperators; op_us and ns_elem the same over the other ops (ns_rd from
 * the outputs, ns_flop and ns_transc fixed). Gather has one row: not fitted, its error is shown.
 * Per row: logged time, the model with npu_platform's constants, the fit's
 * prediction and the prediction of the fit made without that row (left out).
 * --check: exit 1 unless npu_cpu_fit holds the fit's constants (3 significant
 * digits) and every fitted group's in-sample median |error| is <= 25 %. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/npu/npu.h"
#include "tracer/tracer.h"
#include "util/util.h"

#define MAX_ROWS 256

enum { G_INPUT, G_OUTPUT, G_OP, G_UNFITTED, G_N };
static const char *const group_name[G_N] = {"InputOperator", "OutputOperator",
                                            "other CPU ops", "not fitted"};

typedef struct cpu_row {
    char file[96];
    int id, group;
    double logged_us;
    npu_layer_t l;
    double pred_table, pred_fit, pred_out;
} cpu_row_t;

static int parse_shapes(const char *s, npu_shape_t *out, int max)
{
    int n = 0;

    while (*s && n < max) {
        const char *o = strchr(s, '(');
        if (!o)
            break;
        s = o + 1;
        out[n].nd = 0;
        while (*s && *s != ')' && out[n].nd < NPU_SHAPE_MAX) {
            char *end;
            long long v = strtoll(s, &end, 10);
            if (end == s)
                break;
            out[n].d[out[n].nd++] = v;
            s = *end == ',' ? end + 1 : end;
        }
        n++;
        s = strchr(s, ')') ? strchr(s, ')') + 1 : s + strlen(s);
    }
    return n;
}

static int same_shape(const char *a, const char *b)
{
    return !strcmp(a, b);
}

/* Row i of table t into a CPU layer; 0 when it is no usable CPU row. */
static int row_layer(const npu_graph_t *ng, const perflog_table_t *t, int i, npu_layer_t *l)
{
    const perflog_row_t *r = &t->rows[i];

    memset(l, 0, sizeof(*l));
    if (strcmp(r->target, "CPU") || r->time_us <= 0)
        return 0;
    snprintf(l->optype, sizeof(l->optype), "%.39s", r->optype);
    snprintf(l->datatype, sizeof(l->datatype), "%.11s", r->datatype);
    l->target = NPU_TGT_CPU;
    l->dtype = !strcmp(r->datatype, "FLOAT16") ? NPU_FP16 : NPU_INT8;
    l->kind = !strcmp(r->optype, "InputOperator") || !strcmp(r->optype, "OutputOperator")
                  ? NPU_K_IO : NPU_K_MOVE;
    l->n_in = parse_shapes(r->inshape, l->in, NPU_MAX_IO);
    l->n_out = parse_shapes(r->outshape, l->out, NPU_MAX_IO);
    for (int k = 1; k < l->n_in; k++)
        l->in_const[k] = 1;
    if (!strcmp(r->optype, "OutputOperator"))
        for (int k = i - 1; k >= 0; k--)
            if (!strcmp(t->rows[k].target, "NPU") && same_shape(t->rows[k].outshape, r->inshape)) {
                if (!strncmp(t->rows[k].optype, "Conv", 4))
                    l->in_align[0] = 2 * ng->plat->c2[l->dtype];
                break;
            }
    npu_cpu_work(ng, l);
    return 1;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof(double), cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Least relative squares: minimise sum ((x_i . c - y_i) / y_i)^2 over c
 * (k <= 3 unknowns) by the normal equations; skip: row left out, -1 none.
 * Returns 0, -1 when singular. */
static int fit_ls(double x[][3], const double *y, int n, int k, int skip, double *c)
{
    double a[3][4] = {{0}};

    for (int i = 0; i < n; i++) {
        if (i == skip)
            continue;
        double w = 1.0 / (y[i] * y[i]);
        for (int r = 0; r < k; r++) {
            for (int s = 0; s < k; s++)
                a[r][s] += w * x[i][r] * x[i][s];
            a[r][k] += w * x[i][r] * y[i];
        }
    }
    for (int p = 0; p < k; p++) {
        int best = p;
        for (int r = p + 1; r < k; r++)
            if (fabs(a[r][p]) > fabs(a[best][p]))
                best = r;
        if (fabs(a[best][p]) < 1e-300)
            return -1;
        for (int s = 0; s <= k; s++) {
            double tmp = a[p][s];
            a[p][s] = a[best][s];
            a[best][s] = tmp;
        }
        for (int r = 0; r < k; r++) {
            if (r == p)
                continue;
            double f = a[r][p] / a[p][p];
            for (int s = p; s <= k; s++)
                a[r][s] -= f * a[p][s];
        }
    }
    for (int r = 0; r < k; r++)
        c[r] = a[r][k] / a[r][r];
    return 0;
}

/* The three fits over rows (skip = a row left out, -1 none) into k. */
static void fit_all(cpu_row_t *rows, int n, int skip, npu_cpu_consts_t *k)
{
    double v[MAX_ROWS], x[MAX_ROWS][3] = {{0}}, y[MAX_ROWS] = {0}, c[3];
    int m = 0, idx[MAX_ROWS], sk;

    *k = npu_cpu_fit; /* ns_flop, ns_transc stay the assumed ones */
    for (int i = 0; i < n; i++)
        if (rows[i].group == G_INPUT && i != skip)
            v[m++] = rows[i].logged_us;
    /* the logged value with the least median relative error over the rows */
    {
        double best = INFINITY;
        for (int a = 0; a < m; a++) {
            double e[MAX_ROWS], me;
            for (int b = 0; b < m; b++)
                e[b] = fabs(v[a] / v[b] - 1);
            me = median(e, m);
            if (me < best || (me == best && v[a] < k->input_us))
                best = me, k->input_us = v[a];
        }
    }

    m = 0, sk = -1;
    for (int i = 0; i < n; i++)
        if (rows[i].group == G_OUTPUT) {
            if (i == skip)
                sk = m;
            x[m][0] = 1, x[m][1] = rows[i].l.cpu_rd / 1000;
            y[m] = rows[i].logged_us;
            idx[m++] = i;
        }
    if (!fit_ls(x, y, m, 2, sk, c))
        k->output_us = c[0], k->ns_rd = c[1];

    m = 0, sk = -1;
    for (int i = 0; i < n; i++)
        if (rows[i].group == G_OP) {
            const npu_layer_t *l = &rows[i].l;
            if (i == skip)
                sk = m;
            x[m][0] = 1, x[m][1] = l->cpu_elems / 1000;
            y[m] = rows[i].logged_us - (l->cpu_rd * k->ns_rd + l->cpu_flops * k->ns_flop +
                                        l->cpu_transc * k->ns_transc) / 1000;
            idx[m++] = i;
        }
    if (m >= 3 || (m == 2 && sk < 0)) {
        /* relative to the logged time, not to the remainder */
        double x2[MAX_ROWS][3], y2[MAX_ROWS];
        for (int j = 0; j < m; j++) {
            double s = rows[idx[j]].logged_us / y[j];
            x2[j][0] = x[j][0] * s, x2[j][1] = x[j][1] * s, y2[j] = rows[idx[j]].logged_us;
        }
        /* scaling rows by logged/remainder makes the weights 1/logged^2 */
        if (!fit_ls(x2, y2, m, 2, sk, c))
            k->op_us = c[0], k->ns_elem = c[1];
    }
}

static int load_rows(const char *dir, const npu_graph_t *ng, cpu_row_t *rows, int max)
{
    struct dirent **ents = NULL;
    int ne = scandir(dir, &ents, NULL, alphasort), n = 0;

    for (int e = 0; e < ne; e++) {
        char path[1024], err[256];
        void *text = NULL;
        size_t len = 0;
        perflog_table_t *t = NULL;
        int nt = 0;
        if (strncmp(ents[e]->d_name, "perf-", 5) != 0) {
            free(ents[e]);
            continue;
        }
        snprintf(path, sizeof path, "%s/%s", dir, ents[e]->d_name);
        if (!rt_read_file(path, &text, &len, err, sizeof err) &&
            perflog_parse(text, len, &t, &nt, err, sizeof err)) {
            /* a headerless excerpt of 2.x rows (LOG-Y10): read under the 2.x header */
            static const char hdr[] = "ID OpType DataType Target InputShape OutputShape "
                                      "Cycles(DDR/NPU/Total) Time(us) MacUsage(%) "
                                      "WorkLoad(0/1/2) RW(KB) FullName\n";
            char *both = xmalloc(sizeof(hdr) + len);
            memcpy(both, hdr, sizeof(hdr) - 1);
            memcpy(both + sizeof(hdr) - 1, text, len);
            if (perflog_parse(both, sizeof(hdr) - 1 + len, &t, &nt, err, sizeof err))
                t = NULL, nt = 0;
            free(both);
        }
        if (t && nt > 0)
            for (int i = 0; i < t[0].n_rows && n < max; i++) {
                cpu_row_t *r = &rows[n];
                if (!row_layer(ng, &t[0], i, &r->l))
                    continue;
                snprintf(r->file, sizeof r->file, "%.*s", 60, ents[e]->d_name + 5);
                r->id = t[0].rows[i].id;
                r->logged_us = (double)t[0].rows[i].time_us;
                r->group = !strcmp(r->l.optype, "InputOperator")    ? G_INPUT
                           : !strcmp(r->l.optype, "OutputOperator") ? G_OUTPUT
                           : !strcmp(r->l.optype, "Gather")         ? G_UNFITTED
                                                                    : G_OP;
                n++;
            }
        if (t)
            perflog_free(t, nt);
        free(text);
        free(ents[e]);
    }
    free(ents);
    return n;
}

static int same3(double a, double b)
{
    char x[32], y[32];
    snprintf(x, sizeof x, "%.3g", a);
    snprintf(y, sizeof y, "%.3g", b);
    return !strcmp(x, y);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 && strcmp(argv[1], "--check") ? argv[1] : "tests/fuzz/corpus/perflog";
    int check = argc > 1 && !strcmp(argv[argc - 1], "--check"), ok = 1, n_pass = 0, n_fail = 0;
    const npu_platform_t *p = npu_platform_find("rk3588");
    npu_graph_t ng = {.plat = p};
    static cpu_row_t rows[MAX_ROWS];
    npu_cpu_consts_t fit;
    double ein[G_N][MAX_ROWS], eout[G_N][MAX_ROWS];
    int n = load_rows(dir, &ng, rows, MAX_ROWS), cnt[G_N] = {0};

    if (n < 10) {
        fprintf(stderr, "npu_cpu_cost: %d CPU rows with times in %s (want the real tables)\n", n, dir);
        return 2;
    }
    fit_all(rows, n, -1, &fit);
    printf("CPU-fallback cost fit on %d real CPU rows (rk3588, Cortex-A76 at %d MHz)\n", n, p->cpu_mhz);
    printf("  fitted:        input %.3g us, output %.3g us + %.3g ns/element read; "
           "op %.3g us + %.3g ns/element\n", fit.input_us, fit.output_us, fit.ns_rd,
           fit.op_us, fit.ns_elem);
    printf("  npu_cpu.c:     input %.3g us, output %.3g us + %.3g ns/element read; "
           "op %.3g us + %.3g ns/element\n", npu_cpu_fit.input_us, npu_cpu_fit.output_us,
           npu_cpu_fit.ns_rd, npu_cpu_fit.op_us, npu_cpu_fit.ns_elem);
    printf("  assumed:       %.3g ns/flop, %.3g ns/transcendental (no row isolates them)\n\n",
           npu_cpu_fit.ns_flop, npu_cpu_fit.ns_transc);
    printf("%-44s %4s %-15s %-8s %11s %11s %8s %8s %8s\n", "table", "id", "OpType", "DataType",
           "logged_us", "model_us", "err", "fit_err", "left-out");
    for (int i = 0; i < n; i++) {
        cpu_row_t *r = &rows[i];
        npu_cpu_consts_t lo;
        fit_all(rows, n, i, &lo);
        r->pred_table = npu_cpu_time_us(p, &r->l, &npu_cpu_fit);
        r->pred_fit = npu_cpu_time_us(p, &r->l, &fit);
        r->pred_out = npu_cpu_time_us(p, &r->l, &lo);
        double e = r->pred_table / r->logged_us - 1, ef = r->pred_fit / r->logged_us - 1;
        double eo = r->pred_out / r->logged_us - 1;
        ein[r->group][cnt[r->group]] = fabs(ef);
        eout[r->group][cnt[r->group]++] = fabs(eo);
        printf("%-44.44s %4d %-15s %-8s %11.0f %11.1f %+7.1f%% %+7.1f%% %+7.1f%%\n", r->file, r->id,
               r->l.optype, r->l.datatype, r->logged_us, r->pred_table, 100 * e, 100 * ef,
               r->group == G_UNFITTED ? 100 * ef : 100 * eo);
    }
    printf("\nmedian |error| per group, in-sample / left out of the fit:\n");
    for (int gi = 0; gi < G_N; gi++) {
        if (!cnt[gi])
            continue;
        double mi = median(ein[gi], cnt[gi]), mo = median(eout[gi], cnt[gi]);
        printf("  %-16s %2d rows  %6.1f%% / %6.1f%%%s\n", group_name[gi], cnt[gi], 100 * mi,
               100 * mo, gi == G_UNFITTED ? "  (one Gather row: no fit can be tested on it)" : "");
        if (gi != G_UNFITTED && mi > 0.25) {
            printf("  CHECK FAILED: %s in-sample median error above 25 %%\n", group_name[gi]);
            ok = 0;
            n_fail++;
        } else if (gi != G_UNFITTED) {
            n_pass++;
        }
    }
    if (!(same3(fit.input_us, npu_cpu_fit.input_us) && same3(fit.output_us, npu_cpu_fit.output_us) &&
          same3(fit.ns_rd, npu_cpu_fit.ns_rd) &&
          same3(fit.op_us, npu_cpu_fit.op_us) && same3(fit.ns_elem, npu_cpu_fit.ns_elem))) {
        printf("CHECK FAILED: npu_cpu.c's constants are not the fit's\n");
        ok = 0;
        n_fail++;
    } else {
        n_pass++;
    }
    printf("other chips: the same work / npu_cpu_speed (rk3576 %.2f, rk3566 %.2f, rk3568 %.2f, "
           "rk3562 %.2f, rv1106 %.2f; no real CPU rows to test them)\n",
           npu_cpu_speed(npu_platform_find("rk3576")), npu_cpu_speed(npu_platform_find("rk3566")),
           npu_cpu_speed(npu_platform_find("rk3568")), npu_cpu_speed(npu_platform_find("rk3562")),
           npu_cpu_speed(npu_platform_find("rv1106")));
    if (check)
        printf("%d passed, %d failed\n", n_pass, n_fail);
    return check && !ok ? 1 : 0;
}
