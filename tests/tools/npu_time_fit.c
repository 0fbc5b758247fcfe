/* tests/tools/npu_time_fit.c — the per-layer Time(us) model of the level-4 table
 * fitted on real RK3588 tables, with each table's error when it is left out.
 *
 * usage: npu_time_fit [--check] TAG:RUNTIME:NPU_MHZ:FIT:LOG ...
 *   TAG      short name printed in the report
 *   RUNTIME  runtime generation of the table ("2.0", "2.3", ...): tables of one
 *            runtime share the per-layer floor
 *   NPU_MHZ  the NPU clock the board ran at (npu-hw.md: LOG-Y10 800 MHz)
 *   FIT      1: the table takes part in the fit, 0: only reported
 *
 * Model (npu.h, the rows' own logged cycles go in):
 *   Time = floor[runtime] + lut_fixed * [LUT activation]
 *        + (max(npu * t_npu, lut_elems * t_lut) + ddr * t_ddr) / MHz
 * lut_elems = output elements with channels padded to C2 (the activation pass
 * runs over the stored NC1HWC2 tensor). One set of rates for every dtype: the
 * int8 and fp16 tables give the same rates within their spread.
 * Fit: least mean |log(pred / logged)| by coordinate descent, every NPU row with
 * non-zero cycles. Reported: median |relative error| per table and per dtype,
 * in-sample and left out (the table's rows out of the fit; "strict": its
 * runtime's floor unknown too, taken from the others; "own floor": that single
 * constant taken from the table itself).
 * --check: exit 3 unless rk3588's constants (npu_platform.c) are this fit's
 * (within 2 %) and the in-sample medians of the int8 and fp16 rows are <= 10 %.
 * Prints "N passed, N failed". Exit 2 on unreadable input, 1 on usage. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/npu/npu.h"
#include "tracer/tracer.h"
#include "util/util.h"

#define MAX_TABLES 8
#define NPAR (4 + MAX_TABLES)

typedef struct {
    int table, fp16, lut;
    double npu, ddr, lut_elems, scale, logged;
} row_t;

typedef struct {
    char tag[16], runtime[16];
    double mhz;
    int fit, ver;
} table_t;

static table_t tabs[MAX_TABLES];
static int ntabs, nvers;
static char vers[MAX_TABLES][16];
static row_t *rows;
static int nrows;

/* p: t_npu, t_ddr, t_lut, lut_fixed, floor[version]... */
static double pred(const double *p, const row_t *r)
{
    double c = fmax(p[0] * r->npu, p[2] * r->lut_elems) + p[1] * r->ddr;
    return p[4 + tabs[r->table].ver] + (r->lut ? p[3] : 0) + c * r->scale / 1000.0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* median |relative error| over rows selected by sel (table t or dtype) */
static double median_err(const double *p, int table, int fp16)
{
    double *e = xmalloc(sizeof(double) * (size_t)(nrows + 1));
    int n = 0;
    double m;

    for (int i = 0; i < nrows; i++) {
        if (table >= 0 && rows[i].table != table)
            continue;
        if (fp16 >= 0 && (rows[i].fp16 != fp16 || !tabs[rows[i].table].fit))
            continue;
        e[n++] = fabs(pred(p, &rows[i]) / rows[i].logged - 1);
    }
    qsort(e, (size_t)n, sizeof(double), cmp_d);
    m = n ? (n % 2 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2) : NAN;
    free(e);
    return m;
}

static double objective(const double *p, int leave_out)
{
    double s = 0;
    int n = 0;

    for (int i = 0; i < nrows; i++) {
        const row_t *r = &rows[i];
        double v;
        if (!tabs[r->table].fit || r->table == leave_out)
            continue;
        v = pred(p, r);
        s += fabs(log((v > 1e-6 ? v : 1e-6) / r->logged));
        n++;
    }
    return n ? s / n : 0;
}

/* Coordinate descent over the parameters flagged in free_p; deterministic. */
static void fit(double *p, const int *free_p, int leave_out)
{
    double step[NPAR], best = objective(p, leave_out);

    for (int i = 0; i < NPAR; i++)
        step[i] = i < 3 ? 0.2 : 10;
    for (int it = 0; it < 400; it++) {
        int improved = 0;
        for (int i = 0; i < NPAR; i++) {
            if (!free_p[i])
                continue;
            for (int s = -1; s <= 1; s += 2) {
                double keep = p[i], v;
                p[i] = fmax(0, keep + s * step[i]);
                v = objective(p, leave_out);
                if (v < best - 1e-12) {
                    best = v;
                    improved = 1;
                } else {
                    p[i] = keep;
                }
            }
        }
        if (!improved) {
            int small = 1;
            for (int i = 0; i < NPAR; i++) {
                step[i] /= 2;
                if (step[i] > 1e-5)
                    small = 0;
            }
            if (small)
                break;
        }
    }
}

static void start_params(double *p)
{
    p[0] = 1.0;
    p[1] = 2.0;
    p[2] = 0.5;
    p[3] = 5;
    for (int v = 0; v < MAX_TABLES; v++)
        p[4 + v] = 50;
}

static int load_table(const char *spec, char *err, size_t errlen)
{
    char buf[1024], *f[5];
    int nf = 0;
    void *text = NULL;
    size_t len;
    perflog_table_t *pt = NULL;
    int npt = 0, rc = 0;
    table_t *t = &tabs[ntabs];
    const npu_platform_t *plat = npu_platform_find("rk3588");

    snprintf(buf, sizeof buf, "%s", spec);
    f[nf++] = buf;
    for (char *c = buf; *c && nf < 5; c++)
        if (*c == ':') {
            *c = 0;
            f[nf++] = c + 1;
        }
    if (nf != 5 || ntabs >= MAX_TABLES) {
        snprintf(err, errlen, "bad table spec '%s' (TAG:RUNTIME:NPU_MHZ:FIT:LOG)", spec);
        return RT_EINVAL;
    }
    snprintf(t->tag, sizeof t->tag, "%.15s", f[0]);
    snprintf(t->runtime, sizeof t->runtime, "%.15s", f[1]);
    t->mhz = atof(f[2]);
    t->fit = atoi(f[3]);
    t->ver = -1;
    for (int v = 0; v < nvers; v++)
        if (!strcmp(vers[v], t->runtime))
            t->ver = v;
    if (t->ver < 0) {
        snprintf(vers[nvers], sizeof vers[0], "%s", t->runtime);
        t->ver = nvers++;
    }
    if ((rc = rt_read_file(f[4], &text, &len, err, errlen)))
        goto out;
    if (perflog_parse(text, len, &pt, &npt, err, errlen)) {
        /* rows pasted without their header (LOG-Y10): the 2.0-era header
         * (log-formats.md §3, column table) goes in front */
        static const char hdr[] =
            "ID   OpType           DataType Target InputShape                               "
            "OutputShape            Cycles(DDR/NPU/Total)    Time(us)     MacUsage(%)          "
            "WorkLoad(0/1/2)      RW(KB)       FullName        \n";
        char *t2 = xmalloc(sizeof hdr + len);
        memcpy(t2, hdr, sizeof hdr - 1);
        memcpy(t2 + sizeof hdr - 1, text, len);
        free(text);
        text = t2;
        len += sizeof hdr - 1;
        if ((rc = perflog_parse(text, len, &pt, &npt, err, errlen)))
            goto out;
    }
    for (int ti = 0; ti < npt; ti++)
        for (int ri = 0; ri < pt[ti].n_rows; ri++) {
            const perflog_row_t *pr = &pt[ti].rows[ri];
            row_t r = {0};
            npu_layer_t l;
            int64_t d[8];
            int nd = 0;
            const char *s;

            if (strcmp(pr->target, "NPU") || pr->time_us <= 0 || pr->npu < 0 || pr->ddr < 0 ||
                pr->npu + pr->ddr <= 0)
                continue;
            r.table = ntabs;
            r.fp16 = !strcmp(pr->datatype, "FLOAT16");
            r.npu = (double)pr->npu;
            r.ddr = (double)pr->ddr;
            r.logged = (double)pr->time_us;
            r.scale = 1000.0 / (t->mhz > 0 ? t->mhz : 1000);
            memset(&l, 0, sizeof l);
            snprintf(l.optype, sizeof l.optype, "%.39s", pr->optype);
            r.lut = npu_layer_uses_lut(&l);
            /* output elements, C padded to the dtype's C2 */
            s = pr->outshape;
            while (*s && *s != '(')
                s++;
            while (*s && *s != ')' && nd < 8) {
                char *e;
                long long v = strtoll(s + 1, &e, 10);
                if (e == s + 1)
                    break;
                d[nd++] = v;
                s = e;
            }
            if (r.lut && nd >= 1) {
                int c2 = plat->c2[r.fp16 ? NPU_FP16 : NPU_INT8];
                double n = 1;
                for (int k = 0; k < nd; k++)
                    n *= (k == 1 && nd == 4) ? (double)((d[k] + c2 - 1) / c2 * c2) : (double)d[k];
                r.lut_elems = n;
            }
            rows = xrealloc(rows, sizeof(row_t) * (size_t)(nrows + 1));
            rows[nrows++] = r;
        }
    ntabs++;
out:
    if (pt)
        perflog_free(pt, npt);
    free(text);
    return rc;
}

static int near(double a, double b)
{
    return fabs(a - b) <= 0.02 * fmax(fabs(a), fabs(b)) + 1e-9;
}

int main(int argc, char **argv)
{
    int check = 0, passed = 0, failed = 0, free_all[NPAR] = {0}, emu = -1, fit0[MAX_TABLES];
    double p[NPAR];
    char err[256];
    const npu_platform_t *plat = npu_platform_find("rk3588");

    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--check")) {
            check = 1;
            continue;
        }
        if (load_table(argv[a], err, sizeof err)) {
            fprintf(stderr, "npu_time_fit: %s\n", err);
            return strstr(err, "bad table spec") ? 1 : 2;
        }
    }
    if (!ntabs) {
        fprintf(stderr, "usage: npu_time_fit [--check] TAG:RUNTIME:NPU_MHZ:FIT:LOG ...\n");
        return 1;
    }
    /* the simulator prints the 2.3 table: its floor is the one the platform uses */
    for (int v = 0; v < nvers; v++)
        if (!strcmp(vers[v], "2.3"))
            emu = v;
    for (int i = 0; i < 4 + nvers; i++)
        free_all[i] = 1;
    for (int t = 0; t < ntabs; t++)
        fit0[t] = tabs[t].fit;

    start_params(p);
    fit(p, free_all, -1);
    {
        int nf = 0;
        for (int i = 0; i < nrows; i++)
            nf += tabs[rows[i].table].fit;
        printf("fit (every NPU row with cycles of the FIT tables: %d of %d rows):\n", nf, nrows);
    }
    printf("  t_npu %.4f ns/cycle  t_ddr %.4f ns/cycle  t_lut %.4f ns/element  lut_fixed %.2f us\n",
           p[0], p[1], p[2], p[3]);
    for (int v = 0; v < nvers; v++) {
        int used = 0;
        for (int t = 0; t < ntabs; t++)
            used |= tabs[t].fit && tabs[t].ver == v;
        if (used)
            printf("  per-layer floor of runtime %s: %.2f us\n", vers[v], p[4 + v]);
    }
    printf("\n%-6s %-7s %5s %4s %5s %10s %12s %17s\n", "table", "runtime", "MHz", "fit", "rows",
           "in-sample", "left strict", "left, own floor");
    for (int t = 0; t < ntabs; t++) {
        double q[NPAR], s_err, o_err;
        int nr = 0, other_ver = 0, free_floor[NPAR] = {0};
        for (int i = 0; i < nrows; i++)
            nr += rows[i].table == t;
        memcpy(q, p, sizeof q);
        if (tabs[t].fit) {
            start_params(q);
            fit(q, free_all, t);
        }
        /* strict: a runtime no other fitted table has gets the others' mean floor */
        for (int u = 0; u < ntabs; u++)
            other_ver |= u != t && tabs[u].fit && tabs[u].ver == tabs[t].ver;
        if (!other_ver) {
            double s = 0;
            int n = 0;
            for (int v = 0; v < nvers; v++) {
                int used = 0;
                for (int u = 0; u < ntabs; u++)
                    used |= u != t && tabs[u].fit && tabs[u].ver == v;
                if (used) {
                    s += q[4 + v];
                    n++;
                }
            }
            q[4 + tabs[t].ver] = n ? s / n : q[4 + tabs[t].ver];
        }
        s_err = median_err(q, t, -1);
        /* own floor: only this table's floor fitted on its own rows */
        free_floor[4 + tabs[t].ver] = 1;
        for (int u = 0; u < ntabs; u++)
            tabs[u].fit = u == t;
        fit(q, free_floor, -1);
        for (int u = 0; u < ntabs; u++)
            tabs[u].fit = fit0[u];
        o_err = median_err(q, t, -1);
        if (tabs[t].fit)
            printf("%-6s %-7s %5.0f %4s %5d %9.1f%% %11.1f%% %16.1f%%\n", tabs[t].tag,
                   tabs[t].runtime, tabs[t].mhz, "yes", nr, 100 * median_err(p, t, -1),
                   100 * s_err, 100 * o_err);
        else
            printf("%-6s %-7s %5.0f %4s %5d %10s %11.1f%% %16.1f%%\n", tabs[t].tag,
                   tabs[t].runtime, tabs[t].mhz, "no", nr, "-", 100 * s_err, 100 * o_err);
    }
    {
        double mi = median_err(p, -1, 0), mf = median_err(p, -1, 1);
        printf("\nin-sample median |error| of the fitted tables: int8 %.1f%%, fp16 %.1f%%\n",
               100 * mi, 100 * mf);
        printf("verified: each row's logged Time(us) and cycles (the inputs); fitted: the "
               "constants above;\nestimates: every predicted Time(us), the more so on tables "
               "left out (their columns above),\nand the frame (rknn_run) constants of "
               "non-int8 layers (npu_platform.c: int8's, not fitted)\n");
        if (check) {
            int ok = mi <= 0.10 && mf <= 0.10;
            printf("%s: int8 and fp16 in-sample medians <= 10 %%\n", ok ? "ok" : "FAIL");
            ok ? passed++ : failed++;
            /* every NPU dtype (fp32 never runs on the NPU: no time constants) */
            for (int dt = 0; dt < NPU_FP32; dt++) {
                int m = near(plat->t_npu[dt], p[0]) && near(plat->t_ddr[dt], p[1]) &&
                        near(plat->t_lut[dt], p[2]) && near(plat->t_lut_us[dt], p[3]) &&
                        (emu < 0 || near(plat->t_layer_us[dt], p[4 + emu]));
                if (!m)
                    printf("FAIL: rk3588 dtype %d time constants (%.3f %.3f %.3f %.2f %.1f) are "
                           "not this fit's\n",
                           dt, plat->t_npu[dt], plat->t_ddr[dt], plat->t_lut[dt],
                           plat->t_lut_us[dt], plat->t_layer_us[dt]);
                m ? passed++ : failed++;
            }
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 3 : 0;
}
