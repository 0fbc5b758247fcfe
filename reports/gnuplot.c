/* reports/gnuplot.c — `report -f gnuplot -o DIR`: data files (.dat, missing
 * values "?"; a layer's name is one ESC_GNUPLOT_DAT field, util/escape.h) and
 * scripts (.gp; a label only inside an ESC_GNUPLOT string, drawn noenhanced)
 * that Debian's gnuplot renders to PNG
 * (`cd DIR && gnuplot layers.gp`; pngcairo when the build has it, else png):
 *   layers.gp   per-layer time split by its DDR and NPU cycles
 *   error.gp    entire and single cos vs the fp32 golden (runs with errors)
 *   load.gp     NPU load over time (stored samples, else the layers' busy cores)
 *   compare.gp  time delta per aligned layer vs the baseline (comparisons)
 * A comparison writes layers_A.gp, layers_B.gp, ... one per run. */
#include "reports/reports.h"
#include "runtime/npu/npu.h"
#include "util/escape.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void put(FILE *f, double v)
{
    if (isnan(v) || isinf(v))
        fputs(" ?", f);
    else
        fprintf(f, " %.9g", v);
}

static void terminal(FILE *f, const char *png, int w, int h)
{
    fprintf(f, "# rknn-trace report: `gnuplot` this script in its folder to write %s\n", png);
    fprintf(f, "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
               "    set terminal pngcairo size %d,%d font \",10\"\n"
               "} else {\n"
               "    set terminal png size %d,%d\n"
               "}\n"
               "set output \"%s\"\nset datafile missing \"?\"\nset grid ytics\nset key outside top center horizontal\n",
            w, h, w, h, png);
}

static int layers_files(const report_run *r, const char *dir, const char *suffix, char *err, size_t errlen)
{
    char name[64], nm[160];
    FILE *f = NULL;
    outfile *o = NULL;
    int rc;

    snprintf(name, sizeof(name), "layers%s.dat", suffix);
    if ((rc = rep_fopen(dir, name, &o, &f, err, errlen)))
        return rc;
    fputs("# layer  time_us  ddr_part_us  npu_part_us  ddr_cycles  npu_cycles  name\n", f);
    int timed = 0;
    for (int i = 0; i < r->n_layers; i++) {
        const store_layer *l = &r->layers[i];
        double t = rep_layer_us(r, l);
        double dc = l->ddr_cycles == STORE_NULL_INT ? NAN : (double)l->ddr_cycles;
        double nc = l->npu_cycles == STORE_NULL_INT ? NAN : (double)l->npu_cycles;
        double ddr = NAN, npu = NAN;
        timed += !isnan(t);
        if (!isnan(t) && !isnan(dc) && !isnan(nc) && dc + nc > 0)
            ddr = t * dc / (dc + nc), npu = t - ddr;
        else if (!isnan(t) && l->bound && !strcmp(l->bound, "CPU"))
            ddr = 0, npu = t;  /* a CPU layer: no cycles, drawn whole */
        fprintf(f, "%lld", (long long)(l->idx == STORE_NULL_INT ? i : l->idx));
        put(f, t), put(f, ddr), put(f, npu), put(f, dc), put(f, nc);
        fputc(' ', f), esc_fput(f, ESC_GNUPLOT_DAT, l->name);
        fputc('\n', f);
    }
    if ((rc = rep_fclose(o, f, name, err, errlen)))
        return rc;
    snprintf(name, sizeof(name), "layers%s.gp", suffix);
    if ((rc = rep_fopen(dir, name, &o, &f, err, errlen)))
        return rc;
    snprintf(nm, sizeof(nm), "layers%s.png", suffix);
    terminal(f, nm, 1200, 500);
    fputs("set title ", f);
    char t[256];
    snprintf(t, sizeof(t), "run %s: time per layer (us, %s), split by DDR / NPU cycles",
             rep_run_name(r, nm, sizeof(nm)), rep_is_board(r) ? "measured" : "predicted");
    esc_fput(f, ESC_GNUPLOT, t);   /* no ` or @ of the label reaches the script */
    if (!timed) {
        /* no boxes to draw (an imported error log has no layer rows): an empty
         * frame that says so, where gnuplot would stop at an empty range */
        fputs(" noenhanced\nset xrange [0:1]\nset yrange [0:1]\nunset xtics\nunset ytics\n"
              "set label 1 \"no layer times in this run\" at graph 0.5, graph 0.5 center\n"
              "plot NaN notitle\n", f);
        return rep_fclose(o, f, name, err, errlen);
    }
    fprintf(f, " noenhanced\nset xlabel \"layer\"\nset ylabel \"us\"\nset style fill solid 1.0 noborder\n"
               "set boxwidth 0.8\n"
               "plot \"layers%s.dat\" using 1:($3+$4) with boxes lc rgb \"#e8912d\" title \"DDR cycles' share\", \\\n"
               "     \"\" using 1:4 with boxes lc rgb \"#3b78c4\" title \"NPU cycles' share\"\n", suffix);
    return rep_fclose(o, f, name, err, errlen);
}

static int error_files(const rep_doc *d, const char *dir, char *err, size_t errlen)
{
    FILE *f = NULL;
    outfile *o = NULL;
    int rc;
    if ((rc = rep_fopen(dir, "error.dat", &o, &f, err, errlen)))
        return rc;
    fputs("# row", f);
    for (int k = 0; k < d->n; k++)
        fprintf(f, "  %s_entire_cos  %s_single_cos", rep_tag(k), rep_tag(k));
    fputc('\n', f);
    for (int i = 0, row = 0; i < d->n_rows; i++) {
        int any = 0;
        for (int k = 0; k < d->n; k++)
            any |= d->rows[i].acc[k] >= 0;
        if (!any)
            continue;
        fprintf(f, "%d", row++);
        for (int k = 0; k < d->n; k++)
            put(f, rep_row_cos(d, &d->rows[i], k, 0)), put(f, rep_row_cos(d, &d->rows[i], k, 1));
        fputc('\n', f);
    }
    if ((rc = rep_fclose(o, f, "error.dat", err, errlen)) || (rc = rep_fopen(dir, "error.gp", &o, &f, err, errlen)))
        return rc;
    terminal(f, "error.png", 1200, 500);
    fputs("set title \"cos vs the fp32 golden: entire (errors accumulated) and single (layer alone)\"\n"
          "set xlabel \"tensor (execution order)\"\nset ylabel \"cos\"\nplot ", f);
    int first = 1;
    for (int k = 0; k < d->n; k++) {
        if (!d->runs[k].n_acc)
            continue;
        fprintf(f, "%s\"error.dat\" using 1:%d with lines lw 2 title \"%s entire\", \\\n"
                   "     \"error.dat\" using 1:%d with lines dt 2 title \"%s single\"",
                first ? "" : ", \\\n     ", 2 + 2 * k, rep_tag(k), 3 + 2 * k, rep_tag(k));
        first = 0;
    }
    fputc('\n', f);
    return rep_fclose(o, f, "error.gp", err, errlen);
}

/* Sampled load when stored, else which cores the layers keep busy over the frame. */
static int load_files(const report_run *r, const char *dir, char *err, size_t errlen)
{
    FILE *f = NULL;
    outfile *o = NULL;
    int rc, cores = 1, sampled = r->n_load > 0;
    const npu_platform_t *p = npu_platform_find(r->run.platform);
    if (p)
        cores = p->cores;
    if ((rc = rep_fopen(dir, "load.dat", &o, &f, err, errlen)))
        return rc;
    fprintf(f, "# %s\n# t_us", sampled ? "NPU load sampled while the run ran (%)"
                                        : "NPU cores busy over one frame, from the layers (%)");
    for (int c = 0; c < cores; c++)
        fprintf(f, "  core%d", c);
    fputc('\n', f);
    if (sampled) {
        /* one line per sample moment, one column per core */
        for (int i = 0; i < r->n_load;) {
            double t = r->load[i].t_us, v[NPU_MAX_CORES] = { NAN, NAN, NAN };
            int j = i;
            for (; j < r->n_load && r->load[j].t_us == t; j++)
                if (r->load[j].core >= 0 && r->load[j].core < NPU_MAX_CORES)
                    v[r->load[j].core] = r->load[j].load_pct;
            if (j == i)
                j++;
            fprintf(f, "%.9g", t);
            for (int c = 0; c < cores; c++)
                put(f, v[c]);
            fputc('\n', f);
            i = j;
        }
    } else {
        double t = 0;
        int n_rows; /* as the trace lays the frame out: npu rows in their place */
        const store_layer **rows = summary_timeline(&r->sum, &n_rows);
        for (int i = 0; i < n_rows; i++) {
            const store_layer *l = rows[i];
            double us = rep_layer_us(r, l);
            if (isnan(us))
                continue;
            double share[NPU_MAX_CORES] = { 0, 0, 0 };
            int cpu = l->bound && !strcmp(l->bound, "CPU");
            const char *w = l->workload;
            for (int c = 0; !cpu && w && *w && c < NPU_MAX_CORES; c++) {
                char *end;
                share[c] = strtod(w, &end);
                if (end == w)
                    break;
                w = end + strspn(end, "% /");
            }
            if (!cpu && !l->workload)
                share[0] = 100;
            fprintf(f, "%.9g", t);
            for (int c = 0; c < cores; c++)
                put(f, c < NPU_MAX_CORES ? share[c] : NAN);
            fputc('\n', f);
            t += us;
        }
        free(rows);
        fprintf(f, "%.9g", t);
        for (int c = 0; c < cores; c++)
            put(f, 0);
        fputc('\n', f);
    }
    if ((rc = rep_fclose(o, f, "load.dat", err, errlen)) || (rc = rep_fopen(dir, "load.gp", &o, &f, err, errlen)))
        return rc;
    terminal(f, "load.png", 1200, 400);
    fprintf(f, "set title \"%s\"\nset xlabel \"us\"\nset ylabel \"%%\"\nset yrange [0:105]\nplot ",
            sampled ? "NPU load sampled while the run ran" : "NPU cores busy over one frame (from the layers)");
    for (int c = 0; c < cores; c++)
        fprintf(f, "%s\"load.dat\" using 1:%d with steps lw 2 title \"core %d\"", c ? ", \\\n     " : "", 2 + c, c);
    fputc('\n', f);
    return rep_fclose(o, f, "load.gp", err, errlen);
}

static int compare_files(const rep_doc *d, const char *dir, char *err, size_t errlen)
{
    FILE *f = NULL;
    outfile *o = NULL;
    int rc;
    if ((rc = rep_fopen(dir, "compare.dat", &o, &f, err, errlen)))
        return rc;
    fputs("# row", f);
    for (int k = 0; k < d->n; k++)
        fprintf(f, "  %s_us%s%s%s", rep_tag(k), k ? "  " : "", k ? rep_tag(k) : "", k ? "_delta_us" : "");
    fputc('\n', f);
    for (int i = 0; i < d->n_rows; i++) {
        double base = rep_row_us(d, &d->rows[i], 0);
        fprintf(f, "%d", i);
        for (int k = 0; k < d->n; k++) {
            double us = rep_row_us(d, &d->rows[i], k);
            put(f, us);
            if (k)
                put(f, us - base);
        }
        fputc('\n', f);
    }
    if ((rc = rep_fclose(o, f, "compare.dat", err, errlen)) || (rc = rep_fopen(dir, "compare.gp", &o, &f, err, errlen)))
        return rc;
    terminal(f, "compare.png", 1200, 500);
    fputs("set title \"time delta per aligned layer vs the baseline A (us; > 0: slower)\"\n"
          "set xlabel \"aligned layer\"\nset ylabel \"us\"\nset style fill solid 0.8 noborder\nplot ", f);
    for (int k = 1; k < d->n; k++)
        fprintf(f, "%s\"compare.dat\" using 1:%d with impulses lw 2 title \"%s - A\"", k > 1 ? ", \\\n     " : "",
                2 + 2 * k, rep_tag(k));
    fputc('\n', f);
    return rep_fclose(o, f, "compare.gp", err, errlen);
}

int report_gnuplot(const rep_doc *d, const char *dir, char *err, size_t errlen)
{
    int rc = RT_OK, any_acc = 0;
    for (int k = 0; k < d->n && !rc; k++) {
        char suffix[8] = "";
        if (d->n > 1)
            snprintf(suffix, sizeof(suffix), "_%s", rep_tag(k));
        rc = layers_files(&d->runs[k], dir, suffix, err, errlen);
        any_acc |= d->runs[k].n_acc > 0;
    }
    if (!rc && any_acc)
        rc = error_files(d, dir, err, errlen);
    if (!rc)
        rc = load_files(&d->runs[0], dir, err, errlen);
    if (!rc && d->n > 1)
        rc = compare_files(d, dir, err, errlen);
    return rc;
}
