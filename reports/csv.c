/* reports/csv.c — `report -f csv`: one row per layer with every stored field
 * (and the layer's stored error vs the golden), a header row, RFC 4180 quoting
 * (CRLF line ends); a text field a spreadsheet would read as a formula (= + -
 * @ first) starts with ' (ESC_CSV). Missing is an empty field; reals round-trip exactly. A
 * comparison has one row per aligned layer: per run its time and cosines, and
 * the delta against the baseline. */
#include "reports/reports.h"
#include "util/escape.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A text field: RFC 4180 quoting and the formula prefix (util/escape.h). */
static void put_str(FILE *f, const char *s)
{
    esc_fput(f, ESC_CSV, s);
}

/* The shortest text that reads back as exactly v; empty when NaN. */
static void put_real(FILE *f, double v)
{
    char buf[40];
    if (isnan(v))
        return;
    if (isinf(v)) {
        fputs(v > 0 ? "inf" : "-inf", f);
        return;
    }
    for (int p = 15; p <= 17; p++) {
        snprintf(buf, sizeof(buf), "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, f);
}

static void put_int(FILE *f, int64_t v)
{
    if (v != STORE_NULL_INT)
        fprintf(f, "%lld", (long long)v);
}

static const char *const layer_cols =
    "idx,node,op,name,in_shapes,out_shapes,dtype,host_us,npu_cycles,ddr_cycles,total_cycles,"
    "time_us,mac_usage,target,cpu_reason,sram_hit,rw_kb,bound,workload,tasks,npu_op,frame_us,"
    "npu_dtype,entire_cos,entire_euc,entire_max_abs,entire_mean_abs,entire_sqnr_db,single_cos,"
    "single_euc,single_max_abs,single_mean_abs,single_sqnr_db,out_scale,out_zp,out_qtype,"
    "out_min,out_max,out_mean,out_std,time_provenance,frame_provenance,table_id";

static void put_metrics(FILE *f, const metrics_t *m)
{
    const double v[5] = { m->cos, m->euc, m->max_abs, m->mean_abs, m->sqnr_db };
    for (int i = 0; i < 5; i++) {
        fputc(',', f);
        if (m)
            put_real(f, v[i]);
    }
}

static void single_run(const rep_doc *d, FILE *f)
{
    const report_run *r = &d->runs[0];
    fprintf(f, "%s\r\n", layer_cols);
    for (int i = 0; i < d->n_rows; i++) {
        const rep_row *row = &d->rows[i];
        if (row->layer[0] < 0)
            continue;
        const store_layer *l = &r->layers[row->layer[0]];
        put_int(f, l->idx), fputc(',', f);
        put_str(f, l->node), fputc(',', f);
        put_str(f, l->op), fputc(',', f);
        put_str(f, l->name), fputc(',', f);
        put_str(f, l->in_shapes), fputc(',', f);
        put_str(f, l->out_shapes), fputc(',', f);
        put_str(f, l->dtype), fputc(',', f);
        put_real(f, l->host_us), fputc(',', f);
        put_int(f, l->npu_cycles), fputc(',', f);
        put_int(f, l->ddr_cycles), fputc(',', f);
        put_int(f, l->total_cycles), fputc(',', f);
        put_real(f, l->time_us), fputc(',', f);
        put_real(f, l->mac_usage), fputc(',', f);
        put_str(f, l->target), fputc(',', f);
        put_str(f, l->cpu_reason), fputc(',', f);
        put_real(f, l->sram_hit), fputc(',', f);
        put_real(f, l->rw_kb), fputc(',', f);
        put_str(f, l->bound), fputc(',', f);
        put_str(f, l->workload), fputc(',', f);
        put_int(f, l->tasks), fputc(',', f);
        put_str(f, l->npu_op), fputc(',', f);
        put_real(f, l->frame_us), fputc(',', f);
        put_str(f, l->npu_dtype);
        if (row->acc[0] >= 0) {
            put_metrics(f, &r->acc[row->acc[0]].entire);
            put_metrics(f, &r->acc[row->acc[0]].single);
        } else {
            fputs(",,,,,,,,,,", f);
        }
        fputc(',', f), put_real(f, l->out_scale);
        fputc(',', f), put_int(f, l->out_zp);
        fputc(',', f), put_str(f, l->out_qtype);
        fputc(',', f), put_real(f, l->out_min);
        fputc(',', f), put_real(f, l->out_max);
        fputc(',', f), put_real(f, l->out_mean);
        fputc(',', f), put_real(f, l->out_std);
        /* where time_us and frame_us came from (provenance_tag), empty when absent */
        fputc(',', f), put_str(f, isnan(l->time_us) ? NULL : provenance_tag(r->sum.prov.table));
        fputc(',', f), put_str(f, isnan(l->frame_us) ? NULL : provenance_tag(r->sum.prov.layer_frame));
        fputc(',', f), put_int(f, l->table_id); /* the level-4 table's ID */
        fputs("\r\n", f);
    }
}

static void comparison(const rep_doc *d, FILE *f)
{
    fputs("name,op", f);
    for (int k = 0; k < d->n; k++) {
        const char *t = rep_tag(k);
        fprintf(f, ",%s_layer,%s_us,%s_entire_cos,%s_single_cos", t, t, t, t);
        if (k)
            fprintf(f, ",%s_delta_us,%s_delta_pct", t, t);
    }
    fputs("\r\n", f);
    for (int i = 0; i < d->n_rows; i++) {
        const rep_row *row = &d->rows[i];
        double base = rep_row_us(d, row, 0);
        put_str(f, row->name), fputc(',', f);
        put_str(f, row->op);
        for (int k = 0; k < d->n; k++) {
            double us = rep_row_us(d, row, k);
            fputc(',', f);
            if (row->layer[k] >= 0)
                put_int(f, d->runs[k].layers[row->layer[k]].idx);
            fputc(',', f), put_real(f, us);
            fputc(',', f), put_real(f, rep_row_cos(d, row, k, 0));
            fputc(',', f), put_real(f, rep_row_cos(d, row, k, 1));
            if (k) {
                fputc(',', f), put_real(f, us - base);
                fputc(',', f), put_real(f, base > 0 ? (us / base - 1) * 100 : NAN);
            }
        }
        fputs("\r\n", f);
    }
}

int report_csv(const rep_doc *d, FILE *f)
{
    if (d->n == 1)
        single_run(d, f);
    else
        comparison(d, f);
    return RT_OK;
}
