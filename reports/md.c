/* reports/md.c — `report -f md`: paste-ready for a GitHub issue. Every table
 * line fits in 120 characters: names are cut by md_short to one width per
 * document (so a name reads the same in every table), other columns are
 * bounded by their formats. */
#include "reports/reports.h"
#include "util/escape.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MD_MAX 120
#define NAME_W 30
#define OP_W 16
#define OP_RANK_W 32 /* the ranking tables' few columns leave room for a whole op type */

/* A cell: ESC_MD ('|' would end it, a newline the row). */
static void md_cell(FILE *f, const char *s)
{
    fputs(" ", f);
    esc_fput(f, ESC_MD, s);
    fputs(" |", f);
}

/* rep_short, cut further until its escaped text (ESC_MD adds a backslash per
 * markup character, four characters per control) fits width columns, so a
 * table line keeps within MD_MAX; the same name and width give the same text. */
static const char *md_short(char *buf, size_t len, const char *name, int width)
{
    for (int w = width;; w--) {
        rep_short(buf, len, name, w);
        if (w <= 5 || rep_width(esc_tmp(ESC_MD, buf)) <= width)
            return buf;
    }
}

static void md_row(FILE *f, const char *const *cells, int n)
{
    fputc('|', f);
    for (int i = 0; i < n; i++)
        md_cell(f, cells[i]);
    fputc('\n', f);
}

/* Header and alignment row; align: 'l' or 'r' per column. */
static void md_head(FILE *f, const char *const *cells, int n, const char *align)
{
    md_row(f, cells, n);
    fputc('|', f);
    for (int i = 0; i < n; i++)
        fputs(align[i] == 'r' ? "---:|" : "---|", f);
    fputc('\n', f);
}

static const char *layer_op(const store_layer *l)
{
    return l->npu_op ? l->npu_op : l->op;
}

static void summary_section(const report_run *r, FILE *f)
{
    const run_summary *s = &r->sum;
    char nm[160], a[160], b[64], c[64], v[512];

    fprintf(f, "# rknn-trace run %s\n\n", esc_tmp(ESC_MD, rep_run_name(r, nm, sizeof(nm))));
    md_head(f, (const char *const[]){ "run", rep_run_name(r, nm, sizeof(nm)) }, 2, "ll");
    md_row(f, (const char *const[]){ "time", rep_str(r->run.time) }, 2);
    md_row(f, (const char *const[]){ "model", md_short(v, sizeof(v), r->run.model_path, 90) }, 2);
    snprintf(v, sizeof(v), "%s, backend %s, %s%s%s%s%s", rep_str(r->run.platform), rep_str(r->run.backend),
             rep_str(r->run.quant), r->run.quant_algo ? " " : "", r->run.quant_algo ? r->run.quant_algo : "",
             r->run.quant_method ? " " : "", r->run.quant_method ? r->run.quant_method : "");
    md_row(f, (const char *const[]){ "target", v }, 2);
    md_row(f, (const char *const[]){ "figures", provenance_line(&s->prov, v, sizeof(v)) }, 2);
    if (isnan(s->frame_us))
        snprintf(v, sizeof(v), "%s (%s)", REP_MISSING, summary_frame_missing(s));
    else
        snprintf(v, sizeof(v), "%.3f ms, %.1f FPS at %s MHz (NPU model, mean error %.1f %%)",
                 s->frame_us / 1e3, s->fps, s->npu_mhz > 0 ? (snprintf(a, sizeof(a), "%d", s->npu_mhz), a)
                                                           : REP_MISSING, SUMMARY_BAND_MEAN_PCT);
    md_row(f, (const char *const[]){ summary_frame_label(s), v }, 2);
    rep_num(a, sizeof(a), s->perf_table_us / 1e3, "%.3f ms");
    if (s->prov.table != PROV_NONE)
        snprintf(a + strlen(a), sizeof(a) - strlen(a), " (%s)%s", provenance_words(s->prov.table),
                 summary_table_note(s));
    md_row(f, (const char *const[]){ "level-4 table total", a }, 2);
    snprintf(v, sizeof(v), "median %s, p90 %s, min %s", rep_num(a, sizeof(a), s->host_median_us / 1e3, "%.3f ms"),
             rep_num(b, sizeof(b), s->host_p90_us / 1e3, "%.3f ms"), rep_num(c, sizeof(c), s->host_min_us / 1e3, "%.3f ms"));
    char missing[512];
    const char *what, *why = summary_timing_missing(s, &what, missing, sizeof(missing));
    md_row(f, (const char *const[]){ why ? what : summary_timing_label(s), why ? why : v }, 2);
    snprintf(v, sizeof(v), "weights %s, internal %s, %s",
             rep_num(a, sizeof(a), s->weight_bytes >= 0 ? (double)s->weight_bytes / 1024 : NAN, "%.1f KB"),
             rep_num(b, sizeof(b), s->internal_bytes >= 0 ? (double)s->internal_bytes / 1024 : NAN, "%.1f KB"),
             summary_onchip(s, c, sizeof(c)));
    md_row(f, (const char *const[]){ "memory", v }, 2);
    v[0] = '\0';
    for (int k = 0; k < s->n_load; k++)
        snprintf(v + strlen(v), sizeof(v) - strlen(v), "%sCore%d %d %%", k ? ", " : "", k, s->load_pct[k]);
    md_row(f, (const char *const[]){ "NPU load", s->n_load ? v : REP_MISSING }, 2);

    fputs("\n## Bottleneck\n\n", f);
    md_head(f, (const char *const[]){ "bound", "share of the layers' time" }, 2, "lr");
    static const char *const bounds[3] = { "compute", "DDR", "CPU" };
    for (int k = 0; k < 3; k++)
        md_row(f, (const char *const[]){ bounds[k], rep_num(a, sizeof(a), s->share_pct[k], "%.1f %%") }, 2);
    if (!isnan(s->share_uncounted_pct))
        md_row(f, (const char *const[]){ "rows with no cycle counts", rep_num(a, sizeof(a), s->share_uncounted_pct, "%.1f %%") }, 2);
    snprintf(v, sizeof(v), "%s (us)", summary_io_label(s));
    md_row(f, (const char *const[]){ v, rep_num(a, sizeof(a), s->io_us, "%.1f") }, 2);

    if (s->n_top) {
        fprintf(f, "\n## %s\n\n", summary_top_title(s, v, sizeof(v)));
        md_head(f, (const char *const[]){ "ID", "OpType", "name", "dtype", "bound", "time us", "share",
                                           "MAC %", "RW KB" }, 9, "rllllrrrr");
        for (int k = 0; k < s->n_top; k++) {
            const store_layer *l = summary_top_row(s, k);
            double t = s->top_by_table ? l->time_us : l->frame_us;
            double tot = s->top_by_table ? s->perf_table_us : s->frame_us;
            char i0[24], op[80], n0[160], t0[32], sh[32], mac[32], rw[32];
            md_row(f, (const char *const[]){ rep_int(i0, sizeof(i0), l->table_id), md_short(op, sizeof(op), layer_op(l), OP_W),
                                             md_short(n0, sizeof(n0), l->name, NAME_W), rep_str(l->npu_dtype),
                                             rep_str(l->bound), rep_num(t0, sizeof(t0), t, "%.1f"),
                                             rep_num(sh, sizeof(sh), tot > 0 ? 100 * t / tot : NAN, "%.1f %%"),
                                             rep_num(mac, sizeof(mac), l->mac_usage, "%.2f"),
                                             rep_num(rw, sizeof(rw), l->rw_kb, "%.1f") }, 9);
        }
    }

    fprintf(f, "\n## CPU fallback\n\n");
    if (!s->n_fallback && !s->n_fallback_ops) {
        fputs("No layer falls back to the CPU.\n", f);
    } else if (!s->n_fallback) { /* no layer rows: the log's ranking table */
        fprintf(f, "%s.\n\n", esc_tmp(ESC_MD, summary_fallback_head(s, REP_MISSING, v, sizeof(v))));
        md_head(f, (const char *const[]){ "OpType", "CPU us", "calls" }, 3, "lrr");
        for (int k = 0; k < s->ops.n; k++) {
            const summary_op *p = &s->ops.ops[k];
            char op[80], c0[32], n0[32];
            if (summary_op_is_fallback(p))
                md_row(f, (const char *const[]){ md_short(op, sizeof(op), p->op, OP_RANK_W),
                                                 rep_num(c0, sizeof(c0), p->cpu_us, "%.0f"),
                                                 rep_num(n0, sizeof(n0), p->calls, "%.0f") }, 3);
        }
    } else {
        fprintf(f, "%s.\n\n", esc_tmp(ESC_MD, summary_fallback_head(s, REP_MISSING, v, sizeof(v))));
        md_head(f, (const char *const[]){ "ID", "OpType", "name", "time us", "reason" }, 5, "rllrl");
        for (int k = 0; k < s->n_fallback; k++) {
            const store_layer *l = &r->layers[s->fallback[k]];
            char i0[24], op[80], n0[160], t0[32], why[200];
            md_row(f, (const char *const[]){ rep_int(i0, sizeof(i0), l->table_id), md_short(op, sizeof(op), layer_op(l), OP_W),
                                             md_short(n0, sizeof(n0), l->name, NAME_W),
                                             rep_num(t0, sizeof(t0), summary_layer_us(s, l), "%.1f"),
                                             md_short(why, sizeof(why), l->cpu_reason, 48) }, 5);
        }
    }

    if (s->ops.n) {
        fprintf(f, "\n## Op ranking (%s)\n\n", summary_ops_title(&s->ops));
        md_head(f, (const char *const[]){ "OpType", "calls", "CPU us", "NPU us", "total us", "ratio" }, 6,
                "lrrrrr");
        for (int k = 0; k < s->ops.n; k++) {
            const summary_op *p = &s->ops.ops[k];
            char op[80], n0[32], c0[32], u0[32], t0[32], r0[32];
            md_row(f, (const char *const[]){ md_short(op, sizeof(op), p->op, OP_RANK_W),
                                             rep_num(n0, sizeof(n0), p->calls, "%.0f"),
                                             rep_num(c0, sizeof(c0), p->cpu_us, "%.0f"),
                                             rep_num(u0, sizeof(u0), p->npu_us, "%.0f"),
                                             rep_num(t0, sizeof(t0), p->total_us, "%.0f"),
                                             rep_num(r0, sizeof(r0), p->ratio_pct, "%.2f %%") }, 6);
        }
    }

    if (s->n_acc) {
        fprintf(f, "\n## Accuracy vs the fp32 golden\n\n");
        if (s->worst_output >= 0) {
            const summary_output *o = &s->outputs[s->worst_output];
            if (summary_output_problem(o, v, sizeof(v)))
                fprintf(f, "**%s**\n\n", esc_tmp(ESC_MD, v));
            else
                fprintf(f, "Worst output %s: cos %s, SQNR %s.\n\n",
                        esc_tmp(ESC_MD, md_short(nm, sizeof(nm), o->name, NAME_W)),
                        rep_num(a, sizeof(a), o->cos, "%.5f"), rep_num(b, sizeof(b), o->sqnr_db, "%.1f dB"));
        }
        if (s->first_below >= 0)
            fprintf(f, "**First layer with cos < %g: %s (%s)**, marked below.\n\n", s->cos_threshold,
                    esc_tmp(ESC_MD, md_short(nm, sizeof(nm), s->acc[s->first_below].name, NAME_W)),
                    esc_tmp(ESC_MD, rep_str(s->acc[s->first_below].op)));
        else
            fprintf(f, "Every layer keeps cos >= %g.\n\n", s->cos_threshold);
        md_head(f, (const char *const[]){ "#", "op", "name", "entire cos", "entire SQNR", "single cos",
                                           "single SQNR", "max abs" }, 8, "rllrrrrr");
        for (int i = 0; i < s->n_acc; i++) {
            const store_accuracy *x = &s->acc[i];
            char i0[24], op[80], n0[170], c0[32], c1[32], c2[32], c3[32], c4[32];
            md_short(n0, sizeof(n0), x->name, NAME_W);
            if (i == s->first_below)
                snprintf(n0 + strlen(n0), sizeof(n0) - strlen(n0), " %s", "(first)");
            md_row(f, (const char *const[]){ rep_int(i0, sizeof(i0), x->layer), md_short(op, sizeof(op), x->op, OP_W), n0,
                                             rep_num(c0, sizeof(c0), x->entire.cos, "%.5f"),
                                             rep_num(c1, sizeof(c1), x->entire.sqnr_db, "%.1f"),
                                             rep_num(c2, sizeof(c2), x->single.cos, "%.5f"),
                                             rep_num(c3, sizeof(c3), x->single.sqnr_db, "%.1f"),
                                             rep_num(c4, sizeof(c4), x->entire.max_abs, "%.4g") }, 8);
        }
    }

    if (s->eval.n_samples) {
        char head[8192];
        fprintf(f, "\n## Evaluation over the samples\n\n%s.\n\n",
                esc_tmp(ESC_MD, summary_eval_head(s, head, sizeof(head))));
        md_head(f, (const char *const[]){ "output", "cos min", "worst sample", "cos mean", "SQNR min dB",
                                           "SQNR mean dB", "euc max" }, 7, "lrrrrrr");
        for (int k = 0; k < s->eval.n_outputs; k++) {
            const summary_eval_output *o = &s->eval.outputs[k];
            char n0[160], c0[32], i0[24], c1[32], c2[32], c3[32], c4[32];
            md_row(f, (const char *const[]){ md_short(n0, sizeof(n0), o->name, NAME_W),
                                             rep_num(c0, sizeof(c0), o->cos_min, "%.5f"),
                                             rep_int(i0, sizeof(i0), o->cos_worst >= 0 ? o->cos_worst + 1 : STORE_NULL_INT),
                                             rep_num(c1, sizeof(c1), o->cos_mean, "%.5f"),
                                             rep_num(c2, sizeof(c2), o->sqnr_min_db, "%.2f"),
                                             rep_num(c3, sizeof(c3), o->sqnr_mean_db, "%.2f"),
                                             rep_num(c4, sizeof(c4), o->euc_max, "%.5g") }, 7);
        }
    }

    char *log = rep_log_text(s);
    if (log && *log) {
        /* an indented code block, which every Markdown reads literally (a fence
         * is CommonMark's, and a log line may hold a run of backquotes) */
        fputs("\n## The log\n\n", f);
        for (char *line = log, *end; *line; line = end + (*end == '\n')) {
            end = line + strcspn(line, "\n");
            fprintf(f, "%s%.*s\n", end > line ? "    " : "", (int)(end - line), line);
        }
    }
    free(log);

    fprintf(f, "\n## Outputs\n\n");
    md_head(f, (const char *const[]){ "name", "dtype", "shape", "cos", "SQNR dB", "max abs", "state" }, 7, "lllrrrl");
    for (int k = 0; k < s->n_outputs; k++) {
        const summary_output *o = &s->outputs[k];
        char n0[160], sh[64], c0[32], c1[32], c2[32], pb[256];
        const char *state = summary_output_problem(o, pb, sizeof(pb)) ? "collapsed"
                            : o->acc >= 0 ? "ok" : REP_MISSING;
        md_row(f, (const char *const[]){ md_short(n0, sizeof(n0), o->name, NAME_W), rep_str(o->dtype),
                                         md_short(sh, sizeof(sh), o->shape, 24), rep_num(c0, sizeof(c0), o->cos, "%.5f"),
                                         rep_num(c1, sizeof(c1), o->sqnr_db, "%.1f"),
                                         rep_num(c2, sizeof(c2), o->max_abs, "%.4g"), state }, 7);
    }
}

static void layers_section(const rep_doc *dd, FILE *f)
{
    const report_run *r = &dd->runs[0];
    fprintf(f, "\n## Layers (%d)\n\n", r->n_layers);
    md_head(f, (const char *const[]){ "#", "op", "name", "target", "bound", rep_is_board(r) ? "time us" : "frame us",
                                       "cycles", "MAC %", "RW KB", "cos", "ID" }, 11, "rllllrrrrrr");
    for (int i = 0; i < dd->n_rows; i++) {
        const rep_row *row = &dd->rows[i];
        if (row->layer[0] < 0)
            continue;
        const store_layer *l = &r->layers[row->layer[0]];
        char i0[24], id[24], op[80], n0[160], t0[32], cy[32], mac[32], rw[32], c0[32];
        md_row(f, (const char *const[]){ rep_int(i0, sizeof(i0), l->idx), md_short(op, sizeof(op), layer_op(l), OP_W),
                                         md_short(n0, sizeof(n0), l->name, NAME_W), rep_str(l->target),
                                         rep_str(l->bound), rep_num(t0, sizeof(t0), rep_layer_us(r, l), "%.1f"),
                                         rep_int(cy, sizeof(cy), l->total_cycles),
                                         rep_num(mac, sizeof(mac), l->mac_usage, "%.2f"),
                                         rep_num(rw, sizeof(rw), l->rw_kb, "%.1f"),
                                         rep_num(c0, sizeof(c0), rep_row_cos(dd, row, 0, 0), "%.5f"),
                                         rep_int(id, sizeof(id), l->table_id) }, 11);
    }
}

static void comparison(const rep_doc *d, FILE *f)
{
    char nm[160], a[160], b[64], c[64], v[1024];
    int n = d->n;

    fprintf(f, "# rknn-trace comparison of %d runs\n\n", n);
    md_head(f, (const char *const[]){ "", "run", "model", "target", "quant", "layers", "frame ms", "host ms",
                                       "output cos" }, 9, "lllllrrrr");
    for (int k = 0; k < n; k++) {
        const report_run *r = &d->runs[k];
        char model[80], q[64], nl[24], tag[16];
        snprintf(tag, sizeof(tag), "%s%s", rep_tag(k), k ? "" : " (base)");
        snprintf(q, sizeof(q), "%s%s%s", rep_str(r->run.quant), r->run.quant_algo ? " " : "",
                 r->run.quant_algo ? r->run.quant_algo : "");
        snprintf(nl, sizeof(nl), "%d", r->n_layers);
        const char *base = r->run.model_path ? strrchr(r->run.model_path, '/') : NULL;
        md_row(f, (const char *const[]){ tag, md_short(nm, sizeof(nm), rep_run_name(r, v, sizeof(v)), 20),
                                         md_short(model, sizeof(model), base ? base + 1 : r->run.model_path, 24),
                                         rep_str(r->run.platform), q, nl,
                                         rep_num(a, sizeof(a), r->sum.frame_us / 1e3, "%.3f"),
                                         rep_num(b, sizeof(b), r->sum.host_median_us / 1e3, "%.3f"),
                                         r->sum.n_collapsed ? "collapsed" : rep_num(c, sizeof(c), r->sum.out_cos, "%.5f") }, 9);
    }
    fputs("\n```\n", f);
    for (int k = 1; k < n; k++) {
        rep_verdict(d, k, v, sizeof(v));
        fprintf(f, "%s\n", esc_tmp(ESC_TERM, v));   /* in a code block: one line, no fence */
    }
    fputs("```\n", f);

    /* names only one side has: listed, a comparison of different models is allowed */
    int unmatched = 0;
    for (int k = 1; k < n; k++)
        unmatched += d->only_base[k] + d->only_run[k];
    if (unmatched) {
        fprintf(f, "\n## Unmatched layers\n\n");
        md_head(f, (const char *const[]){ "name", "op", "in runs" }, 3, "lll");
        for (int i = 0; i < d->n_rows; i++) {
            const rep_row *row = &d->rows[i];
            char in[4 * REPORT_MAX_RUNS], n0[160], op[80];
            if (!rep_row_runs(d, row, in, sizeof(in)))
                md_row(f, (const char *const[]){ md_short(n0, sizeof(n0), row->name, NAME_W),
                                                 md_short(op, sizeof(op), row->op, OP_W), in }, 3);
        }
    }

    /* one width per document: the name column gets what the run columns leave */
    int name_w = MD_MAX - 1 - (OP_W + 3) - (n * 12) - (n - 1) * 10 - 3 - 2;
    if (name_w > NAME_W)
        name_w = NAME_W;
    if (name_w < 8)
        name_w = 8;
    char words[512];
    fprintf(f, "\n## Aligned layers (%d)\n\nLayer times: %s.\n\n", d->n_rows,
            rep_layer_us_words(d, words, sizeof(words)));
    const char *hd[2 + 2 * REPORT_MAX_RUNS];
    char hbuf[2 * REPORT_MAX_RUNS][16], align[2 + 2 * REPORT_MAX_RUNS + 1];
    int nc = 0;
    hd[nc] = "name", align[nc++] = 'l';
    hd[nc] = "op", align[nc++] = 'l';
    for (int k = 0; k < n; k++) {
        snprintf(hbuf[2 * k], sizeof(hbuf[0]), "%s us", rep_tag(k));
        hd[nc] = hbuf[2 * k], align[nc++] = 'r';
        if (k) {
            snprintf(hbuf[2 * k + 1], sizeof(hbuf[0]), "%s %%", rep_tag(k));
            hd[nc] = hbuf[2 * k + 1], align[nc++] = 'r';
        }
    }
    align[nc] = '\0';
    md_head(f, hd, nc, align);
    for (int i = 0; i < d->n_rows; i++) {
        const rep_row *row = &d->rows[i];
        char cells[2 + 2 * REPORT_MAX_RUNS][48];
        const char *cp[2 + 2 * REPORT_MAX_RUNS];
        double base = rep_row_us(d, row, 0);
        nc = 0;
        cp[nc] = md_short(cells[nc], sizeof(cells[0]), row->name, name_w), nc++;
        cp[nc] = md_short(cells[nc], sizeof(cells[0]), row->op, OP_W), nc++;
        for (int k = 0; k < n; k++) {
            double us = rep_row_us(d, row, k);
            cp[nc] = rep_num(cells[nc], sizeof(cells[0]), us, "%.1f"), nc++;
            if (k)
                cp[nc] = rep_num(cells[nc], sizeof(cells[0]), base > 0 ? (us / base - 1) * 100 : NAN, "%+.1f"), nc++;
        }
        md_row(f, cp, nc);
    }

    int any_acc = 0;
    for (int k = 0; k < n; k++)
        any_acc |= d->runs[k].n_acc > 0;
    if (any_acc) {
        fprintf(f, "\n## Entire cos vs each run's fp32 golden\n\n");
        nc = 0;
        hd[nc] = "name", align[nc++] = 'l';
        hd[nc] = "op", align[nc++] = 'l';
        for (int k = 0; k < n; k++) {
            snprintf(hbuf[k], sizeof(hbuf[0]), "%s cos", rep_tag(k));
            hd[nc] = hbuf[k], align[nc++] = 'r';
        }
        align[nc] = '\0';
        md_head(f, hd, nc, align);
        for (int i = 0; i < d->n_rows; i++) {
            const rep_row *row = &d->rows[i];
            char cells[2 + REPORT_MAX_RUNS][48];
            const char *cp[2 + REPORT_MAX_RUNS];
            nc = 0;
            cp[nc] = md_short(cells[nc], sizeof(cells[0]), row->name, name_w), nc++;
            cp[nc] = md_short(cells[nc], sizeof(cells[0]), row->op, OP_W), nc++;
            for (int k = 0; k < n; k++)
                cp[nc] = rep_num(cells[nc], sizeof(cells[0]), rep_row_cos(d, row, k, 0), "%.5f"), nc++;
            md_row(f, cp, nc);
        }
    }
}

int report_md(const rep_doc *d, FILE *f)
{
    if (d->n == 1) {
        summary_section(&d->runs[0], f);
        layers_section(d, f);
    } else {
        comparison(d, f);
    }
    return RT_OK;
}
