/* reports/html.c — `report -f html`: one self-contained file (no network: CSS,
 * script and charts inline). Tables sort by a click on a column head and
 * filter by the text typed above them; a link to the file may carry the view
 * (#filter=TEXT&sort=TABLE:COLUMN[:desc]). Charts are inline SVG. */
#include "reports/reports.h"
#include "util/escape.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every text and attribute value from the store: ESC_HTML. */
static void esc(FILE *f, const char *s)
{
    esc_fput(f, ESC_HTML, s);
}

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}"
    "table{border-collapse:collapse;margin:8px 0 20px}"
    "th,td{border:1px solid #ccc;padding:2px 8px;text-align:left}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "table.data th{cursor:pointer;background:#eef}"
    "tr.bad td{background:#fdd}"
    "input.filter{margin:4px 0;padding:2px 6px;width:320px}"
    "pre{background:#f6f6f6;padding:8px}"
    ".legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px}";

/* Sorting: numbers before text (so "—" stays last); filtering: row text. */
static const char script[] =
    "function cellKey(td){var x=parseFloat(td.textContent);return isNaN(x)?td.textContent:x;}\n"
    "function sortTable(t,i,th){var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows);"
    "var dir=th.getAttribute('data-dir')==='asc'?-1:1;th.setAttribute('data-dir',dir>0?'asc':'desc');"
    "rows.sort(function(p,q){var x=cellKey(p.cells[i]),y=cellKey(q.cells[i]);"
    "if(typeof x!==typeof y)return typeof x==='number'?-1:1;return (x<y?-1:x>y?1:0)*dir;});"
    "rows.forEach(function(r){b.appendChild(r);});}\n"
    "Array.prototype.forEach.call(document.querySelectorAll('table.data'),function(t){"
    "Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,i){"
    "th.addEventListener('click',function(){sortTable(t,i,th);});});});\n"
    "Array.prototype.forEach.call(document.querySelectorAll('input.filter'),function(inp){"
    "inp.addEventListener('input',function(){var t=document.getElementById(inp.getAttribute('data-table'));"
    "var q=inp.value.toLowerCase();Array.prototype.forEach.call(t.tBodies[0].rows,function(r){"
    "r.style.display=r.textContent.toLowerCase().indexOf(q)>=0?'':'none';});});});\n"
    /* a shared link keeps its view: #filter=TEXT&sort=TABLE:COLUMN[:desc] */
    "(function(){var h=decodeURIComponent(location.hash.slice(1));h.split('&').forEach(function(kv){"
    "var i=kv.indexOf('=');if(i<0)return;var k=kv.slice(0,i),v=kv.slice(i+1);"
    "if(k==='filter')Array.prototype.forEach.call(document.querySelectorAll('input.filter'),function(inp){"
    "inp.value=v;inp.dispatchEvent(new Event('input'));});"
    "if(k==='sort'){var p=v.split(':'),t=document.getElementById(p[0]);if(!t)return;"
    "var th=t.tHead.rows[0].cells[parseInt(p[1],10)];if(!th)return;sortTable(t,parseInt(p[1],10),th);"
    "if(p[2]==='desc')sortTable(t,parseInt(p[1],10),th);}});})();\n";

static void kv(FILE *f, const char *k, const char *v)
{
    fputs("<tr><th>", f), esc(f, k), fputs("</th><td>", f), esc(f, v), fputs("</td></tr>\n", f);
}

static void table_open(FILE *f, const char *id, const char *const *head, int n)
{
    fprintf(f, "<input class=\"filter\" data-table=\"%s\" placeholder=\"filter rows\">\n", id);
    fprintf(f, "<table class=\"data\" id=\"%s\"><thead><tr>", id);
    for (int i = 0; i < n; i++)
        fputs("<th>", f), esc(f, head[i]), fputs("</th>", f);
    fputs("</tr></thead><tbody>\n", f);
}

static void table_close(FILE *f)
{
    fputs("</tbody></table>\n", f);
}

/* A row; cells starting with a digit, '-', '+' or "—" right-aligned as numbers. */
static void row(FILE *f, const char *cls, const char *const *cells, int n)
{
    fprintf(f, "<tr%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    for (int i = 0; i < n; i++) {
        const char *c = cells[i] ? cells[i] : REP_MISSING;
        int num = (c[0] >= '0' && c[0] <= '9') || ((c[0] == '-' || c[0] == '+') && c[1] >= '0' && c[1] <= '9') ||
                  !strcmp(c, REP_MISSING);
        fputs(num ? "<td class=\"n\">" : "<td>", f), esc(f, c), fputs("</td>", f);
    }
    fputs("</tr>\n", f);
}

static void rgb_hex(char *buf, uint32_t rgb)
{
    snprintf(buf, 8, "#%06x", rgb & 0xffffff);
}

/* Per-layer time bars coloured by bound. */
static void svg_bars(FILE *f, const report_run *r)
{
    const int W = 1000, H = 220, L = 60, B = 30;
    double max = 0;
    for (int i = 0; i < r->n_layers; i++) {
        double t = rep_layer_us(r, &r->layers[i]);
        if (!isnan(t) && t > max)
            max = t;
    }
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\">\n", W + L + 10, H + B + 10);
    fprintf(f, "<text x=\"%d\" y=\"12\" font-size=\"12\">time per layer (us, %s)</text>\n", L,
            rep_is_board(r) ? "measured" : "predicted");
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>\n", L, H + 5, L + W, H + 5);
    fprintf(f, "<text x=\"2\" y=\"24\" font-size=\"11\">%.1f</text><text x=\"2\" y=\"%d\" font-size=\"11\">0</text>\n",
            max, H + 5);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">layer 0 .. %d</text>\n", L, H + 22, r->n_layers - 1);
    double bw = r->n_layers ? (double)W / r->n_layers : W;
    for (int i = 0; i < r->n_layers && max > 0; i++) {
        const store_layer *l = &r->layers[i];
        double t = rep_layer_us(r, l);
        if (isnan(t) || t <= 0)
            continue;
        double h = t / max * (H - 20);
        char col[8];
        rgb_hex(col, rep_bound_rgb(l->bound));
        fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n", L + i * bw,
                H + 5 - h, bw > 1.5 ? bw - 0.5 : bw, h, col);
    }
    fputs("</svg>\n<div class=\"legend\">", f);
    static const char *const names[4] = { "compute", "DDR", "CPU", NULL };
    for (int k = 0; k < 4; k++) {
        char col[8];
        rgb_hex(col, rep_bound_rgb(names[k]));
        fprintf(f, "<span style=\"background:%s\"></span>%s", col, names[k] ? names[k] : "unknown");
    }
    fputs("</div>\n", f);
}

/* Entire and single cosine along the analysed tensors. */
static void svg_error(FILE *f, const report_run *r)
{
    const int W = 1000, H = 200, L = 60;
    double lo = 1;
    for (int i = 0; i < r->n_acc; i++) {
        if (!isnan(r->acc[i].entire.cos) && r->acc[i].entire.cos < lo)
            lo = r->acc[i].entire.cos;
        if (!isnan(r->acc[i].single.cos) && r->acc[i].single.cos < lo)
            lo = r->acc[i].single.cos;
    }
    if (lo > 0.999)
        lo = 0.999;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\">\n", W + L + 10, H + 40);
    fprintf(f, "<text x=\"%d\" y=\"12\" font-size=\"12\">cos vs the fp32 golden: entire (blue), single (orange)</text>\n", L);
    fprintf(f, "<text x=\"2\" y=\"24\" font-size=\"11\">1</text><text x=\"2\" y=\"%d\" font-size=\"11\">%.4f</text>\n",
            H + 5, lo);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>\n", L, H + 5, L + W, H + 5);
    for (int which = 0; which < 2; which++) {
        int open = 0;
        for (int i = 0; i < r->n_acc; i++) {
            double c = which ? r->acc[i].single.cos : r->acc[i].entire.cos;
            if (isnan(c)) {
                if (open)
                    fputs("\"/>\n", f);
                open = 0;
                continue;
            }
            double x = L + (r->n_acc > 1 ? (double)i * W / (r->n_acc - 1) : 0);
            double y = 20 + (1 - c) / (1 - lo) * (H - 15);
            if (!open)
                fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
                        which ? "#e8912d" : "#3b78c4");
            fprintf(f, "%.1f,%.1f ", x, y);
            open = 1;
        }
        if (open)
            fputs("\"/>\n", f);
    }
    fputs("</svg>\n", f);
}

static const char *layer_op(const store_layer *l)
{
    return l->npu_op ? l->npu_op : l->op;
}

static void single_run(const rep_doc *d, FILE *f)
{
    const report_run *r = &d->runs[0];
    const run_summary *s = &r->sum;
    char nm[160], a[160], b[64], c[64], v[512];

    fputs("<h1>rknn-trace run ", f), esc(f, rep_run_name(r, nm, sizeof(nm))), fputs("</h1>\n", f);
    fputs("<table class=\"kv\" id=\"summary\">\n", f);
    kv(f, "time", rep_str(r->run.time));
    kv(f, "model", rep_str(r->run.model_path));
    snprintf(v, sizeof(v), "%s, backend %s, %s%s%s%s%s", rep_str(r->run.platform), rep_str(r->run.backend),
             rep_str(r->run.quant), r->run.quant_algo ? " " : "", r->run.quant_algo ? r->run.quant_algo : "",
             r->run.quant_method ? " " : "", r->run.quant_method ? r->run.quant_method : "");
    kv(f, "target", v);
    kv(f, "figures", provenance_line(&s->prov, v, sizeof(v)));
    if (isnan(s->frame_us))
        snprintf(v, sizeof(v), "%s (%s)", REP_MISSING, summary_frame_missing(s));
    else
        snprintf(v, sizeof(v), "%.3f ms, %.1f FPS (NPU model, mean error %.1f %%: %s)", s->frame_us / 1e3, s->fps,
                 SUMMARY_BAND_MEAN_PCT, SUMMARY_BAND_SOURCE);
    kv(f, summary_frame_label(s), v);
    rep_num(a, sizeof(a), s->perf_table_us / 1e3, "%.3f ms");
    if (s->prov.table != PROV_NONE)
        snprintf(a + strlen(a), sizeof(a) - strlen(a), " (%s)%s", provenance_words(s->prov.table),
                 summary_table_note(s));
    kv(f, "level-4 table total", a);
    snprintf(v, sizeof(v), "compute %s, DDR %s, CPU %s", rep_num(a, sizeof(a), s->share_pct[0], "%.1f %%"),
             rep_num(b, sizeof(b), s->share_pct[1], "%.1f %%"), rep_num(c, sizeof(c), s->share_pct[2], "%.1f %%"));
    /* the words and figures of show's bottleneck line, the I/O share included */
    snprintf(v + strlen(v), sizeof(v) - strlen(v), " of the layers' time%s; %s %s us",
             summary_uncounted_note(s, a, sizeof(a)), summary_io_label(s),
             rep_num(b, sizeof(b), s->io_us, "%.1f"));
    kv(f, "bottleneck", v);
    snprintf(v, sizeof(v), "median %s, p90 %s, min %s", rep_num(a, sizeof(a), s->host_median_us / 1e3, "%.3f ms"),
             rep_num(b, sizeof(b), s->host_p90_us / 1e3, "%.3f ms"), rep_num(c, sizeof(c), s->host_min_us / 1e3, "%.3f ms"));
    char missing[512];
    const char *what, *why = summary_timing_missing(s, &what, missing, sizeof(missing));
    kv(f, why ? what : summary_timing_label(s), why ? why : v);
    snprintf(v, sizeof(v), "weights %s, internal %s, %s",
             rep_num(a, sizeof(a), s->weight_bytes >= 0 ? (double)s->weight_bytes / 1024 : NAN, "%.1f KB"),
             rep_num(b, sizeof(b), s->internal_bytes >= 0 ? (double)s->internal_bytes / 1024 : NAN, "%.1f KB"),
             summary_onchip(s, c, sizeof(c)));
    kv(f, "memory", v);
    v[0] = '\0';
    for (int k = 0; k < s->n_load; k++)
        snprintf(v + strlen(v), sizeof(v) - strlen(v), "%sCore%d %d %%", k ? ", " : "", k, s->load_pct[k]);
    kv(f, "NPU load", s->n_load ? v : REP_MISSING);
    kv(f, "CPU fallback", s->n_fallback || s->n_fallback_ops
                              ? summary_fallback_head(s, REP_MISSING, v, sizeof(v)) : "none");
    if (s->n_acc) {
        if (s->worst_output >= 0 && summary_output_problem(&s->outputs[s->worst_output], v, sizeof(v)))
            kv(f, "accuracy", v);
        else
            kv(f, "worst output cos", rep_num(a, sizeof(a), s->out_cos, "%.5f"));
        kv(f, "first layer below threshold", s->first_below >= 0 ? s->acc[s->first_below].name : "none");
    }
    char head[8192];
    if (s->eval.n_samples)
        kv(f, "eval", summary_eval_head(s, head, sizeof(head)));
    fputs("</table>\n<h2>Charts</h2>\n", f);
    svg_bars(f, r);
    if (r->n_acc)
        svg_error(f, r);

    if (s->n_top) {
        fputs("<h2>", f), esc(f, summary_top_title(s, v, sizeof(v))), fputs("</h2>\n", f);
        table_open(f, "top", (const char *const[]){ "ID", "OpType", "name", "dtype", "bound", "time us", "MAC %", "RW KB" }, 8);
        for (int k = 0; k < s->n_top; k++) {
            const store_layer *l = summary_top_row(s, k);
            char i0[24], t0[32], mac[32], rw[32];
            row(f, NULL, (const char *const[]){ rep_int(i0, sizeof(i0), l->table_id), rep_str(layer_op(l)), rep_str(l->name),
                                                rep_str(l->npu_dtype), rep_str(l->bound),
                                                rep_num(t0, sizeof(t0), s->top_by_table ? l->time_us : l->frame_us, "%.1f"),
                                                rep_num(mac, sizeof(mac), l->mac_usage, "%.2f"),
                                                rep_num(rw, sizeof(rw), l->rw_kb, "%.1f") }, 8);
        }
        table_close(f);
    }
    if (s->n_fallback) {
        fputs("<h2>CPU fallback</h2>\n", f);
        table_open(f, "fallback", (const char *const[]){ "ID", "OpType", "name", "time us", "reason" }, 5);
        for (int k = 0; k < s->n_fallback; k++) {
            const store_layer *l = &r->layers[s->fallback[k]];
            char i0[24], t0[32];
            row(f, NULL, (const char *const[]){ rep_int(i0, sizeof(i0), l->table_id), rep_str(layer_op(l)), rep_str(l->name),
                                                rep_num(t0, sizeof(t0), summary_layer_us(s, l), "%.1f"), rep_str(l->cpu_reason) }, 5);
        }
        table_close(f);
    }
    if (s->n_fallback_ops) { /* no layer rows: the log's ranking table */
        fputs("<h2>CPU fallback</h2>\n", f);
        table_open(f, "fallback", (const char *const[]){ "OpType", "CPU us", "calls" }, 3);
        for (int k = 0; k < s->ops.n; k++) {
            const summary_op *p = &s->ops.ops[k];
            char c0[32], n0[32];
            if (summary_op_is_fallback(p))
                row(f, NULL, (const char *const[]){ rep_str(p->op), rep_num(c0, sizeof(c0), p->cpu_us, "%.0f"),
                                                    rep_num(n0, sizeof(n0), p->calls, "%.0f") }, 3);
        }
        table_close(f);
    }
    if (s->ops.n) {
        fprintf(f, "<h2>Op ranking (%s)</h2>\n", esc_tmp(ESC_HTML, summary_ops_title(&s->ops)));
        table_open(f, "ops", (const char *const[]){ "OpType", "calls", "CPU us", "NPU us", "total us", "ratio" }, 6);
        for (int k = 0; k < s->ops.n; k++) {
            const summary_op *p = &s->ops.ops[k];
            char n0[32], c0[32], u0[32], t0[32], r0[32];
            row(f, NULL, (const char *const[]){ rep_str(p->op), rep_num(n0, sizeof(n0), p->calls, "%.0f"),
                                                rep_num(c0, sizeof(c0), p->cpu_us, "%.0f"),
                                                rep_num(u0, sizeof(u0), p->npu_us, "%.0f"),
                                                rep_num(t0, sizeof(t0), p->total_us, "%.0f"),
                                                rep_num(r0, sizeof(r0), p->ratio_pct, "%.2f %%") }, 6);
        }
        table_close(f);
    }
    if (s->n_acc) {
        fputs("<h2>Accuracy vs the fp32 golden</h2>\n", f);
        table_open(f, "accuracy", (const char *const[]){ "#", "op", "name", "entire cos", "entire SQNR dB",
                                                         "single cos", "single SQNR dB", "max abs" }, 8);
        for (int i = 0; i < s->n_acc; i++) {
            const store_accuracy *x = &s->acc[i];
            char i0[24], c0[32], c1[32], c2[32], c3[32], c4[32];
            row(f, i == s->first_below ? "bad" : NULL,
                (const char *const[]){ rep_int(i0, sizeof(i0), x->layer), rep_str(x->op), rep_str(x->name),
                                       rep_num(c0, sizeof(c0), x->entire.cos, "%.5f"),
                                       rep_num(c1, sizeof(c1), x->entire.sqnr_db, "%.1f"),
                                       rep_num(c2, sizeof(c2), x->single.cos, "%.5f"),
                                       rep_num(c3, sizeof(c3), x->single.sqnr_db, "%.1f"),
                                       rep_num(c4, sizeof(c4), x->entire.max_abs, "%.4g") }, 8);
        }
        table_close(f);
    }
    if (s->eval.n_samples) {
        fputs("<h2>Evaluation over the samples</h2>\n", f);
        table_open(f, "eval", (const char *const[]){ "output", "cos min", "worst sample", "cos mean",
                                                     "SQNR min dB", "SQNR mean dB", "euc max" }, 7);
        for (int k = 0; k < s->eval.n_outputs; k++) {
            const summary_eval_output *o = &s->eval.outputs[k];
            char c0[32], i0[24], c1[32], c2[32], c3[32], c4[32];
            row(f, NULL, (const char *const[]){ rep_str(o->name), rep_num(c0, sizeof(c0), o->cos_min, "%.5f"),
                                                rep_int(i0, sizeof(i0), o->cos_worst >= 0 ? o->cos_worst + 1 : STORE_NULL_INT),
                                                rep_num(c1, sizeof(c1), o->cos_mean, "%.5f"),
                                                rep_num(c2, sizeof(c2), o->sqnr_min_db, "%.2f"),
                                                rep_num(c3, sizeof(c3), o->sqnr_mean_db, "%.2f"),
                                                rep_num(c4, sizeof(c4), o->euc_max, "%.5g") }, 7);
        }
        table_close(f);
    }
    char *log = rep_log_text(s);
    if (log && *log) { /* the words `show` prints, a line at a time (ESC_HTML makes a newline a space) */
        fputs("<h2>The log</h2>\n<pre id=\"log\">", f);
        for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n"))
            esc(f, line), fputc('\n', f);
        fputs("</pre>\n", f);
    }
    free(log);
    fputs("<h2>Layers</h2>\n", f);
    /* the level-4 table's ID last: a shared link sorts by column number */
    table_open(f, "layers", (const char *const[]){ "#", "op", "name", "target", "bound", "time us", "NPU cycles",
                                                   "DDR cycles", "MAC %", "RW KB", "SRAM hit", "reason", "cos", "ID" }, 14);
    for (int i = 0; i < d->n_rows; i++) {
        const rep_row *rw_ = &d->rows[i];
        if (rw_->layer[0] < 0)
            continue;
        const store_layer *l = &r->layers[rw_->layer[0]];
        char i0[24], id[24], t0[32], n0[32], d0[32], mac[32], rw[32], sr[32], c0[32];
        row(f, NULL, (const char *const[]){ rep_int(i0, sizeof(i0), l->idx), rep_str(layer_op(l)), rep_str(l->name),
                                            rep_str(l->target), rep_str(l->bound),
                                            rep_num(t0, sizeof(t0), rep_layer_us(r, l), "%.1f"),
                                            rep_int(n0, sizeof(n0), l->npu_cycles), rep_int(d0, sizeof(d0), l->ddr_cycles),
                                            rep_num(mac, sizeof(mac), l->mac_usage, "%.2f"),
                                            rep_num(rw, sizeof(rw), l->rw_kb, "%.1f"),
                                            rep_num(sr, sizeof(sr), l->sram_hit, "%.0f"), rep_str(l->cpu_reason),
                                            rep_num(c0, sizeof(c0), rep_row_cos(d, rw_, 0, 0), "%.5f"),
                                            rep_int(id, sizeof(id), l->table_id) }, 14);
    }
    table_close(f);
}

/* Time delta per aligned layer of each run vs the baseline. */
static void svg_deltas(FILE *f, const rep_doc *d)
{
    const int W = 1000, H = 200, L = 60;
    double max = 0;
    for (int i = 0; i < d->n_rows; i++)
        for (int k = 1; k < d->n; k++) {
            double x = rep_row_us(d, &d->rows[i], k) - rep_row_us(d, &d->rows[i], 0);
            if (!isnan(x) && fabs(x) > max)
                max = fabs(x);
        }
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\">\n", W + L + 10, H + 30);
    fprintf(f, "<text x=\"%d\" y=\"12\" font-size=\"12\">time delta per aligned layer vs A (us): red slower, green faster</text>\n", L);
    fprintf(f, "<text x=\"2\" y=\"24\" font-size=\"11\">+%.1f</text><text x=\"2\" y=\"%d\" font-size=\"11\">-%.1f</text>\n",
            max, H + 10, max);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>\n", L, 15 + H / 2, L + W, 15 + H / 2);
    double bw = d->n_rows ? (double)W / d->n_rows / (d->n - 1) : W;
    for (int i = 0; i < d->n_rows && max > 0; i++)
        for (int k = 1; k < d->n; k++) {
            double x = rep_row_us(d, &d->rows[i], k) - rep_row_us(d, &d->rows[i], 0);
            if (isnan(x) || x == 0)
                continue;
            double h = fabs(x) / max * (H / 2 - 5);
            fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
                    L + (i * (d->n - 1) + k - 1) * bw, x > 0 ? 15 + H / 2 - h : 15 + H / 2, bw, h,
                    x > 0 ? "#c8382e" : "#2e9e4a");
        }
    fputs("</svg>\n", f);
}

static void comparison(const rep_doc *d, FILE *f)
{
    char nm[160], a[160], b[64], c[64], v[1024];
    int n = d->n;

    fprintf(f, "<h1>rknn-trace comparison of %d runs</h1>\n", n);
    table_open(f, "runs", (const char *const[]){ "", "run", "model", "target", "quant", "layers", "frame ms",
                                                 "host ms", "output cos" }, 9);
    for (int k = 0; k < n; k++) {
        const report_run *r = &d->runs[k];
        char q[64], nl[24], tag[16];
        snprintf(tag, sizeof(tag), "%s%s", rep_tag(k), k ? "" : " (base)");
        snprintf(q, sizeof(q), "%s%s%s", rep_str(r->run.quant), r->run.quant_algo ? " " : "",
                 r->run.quant_algo ? r->run.quant_algo : "");
        snprintf(nl, sizeof(nl), "%d", r->n_layers);
        row(f, NULL, (const char *const[]){ tag, rep_run_name(r, nm, sizeof(nm)), rep_str(r->run.model_path),
                                            rep_str(r->run.platform), q, nl,
                                            rep_num(a, sizeof(a), r->sum.frame_us / 1e3, "%.3f"),
                                            rep_num(b, sizeof(b), r->sum.host_median_us / 1e3, "%.3f"),
                                            r->sum.n_collapsed ? "collapsed" : rep_num(c, sizeof(c), r->sum.out_cos, "%.5f") }, 9);
    }
    table_close(f);
    fputs("<h2>Verdicts</h2>\n<pre id=\"verdicts\">", f);
    for (int k = 1; k < n; k++) {
        rep_verdict(d, k, v, sizeof(v));
        esc(f, v), fputc('\n', f);
    }
    fputs("</pre>\n<h2>Charts</h2>\n", f);
    svg_deltas(f, d);

    int unmatched = 0;
    for (int k = 1; k < n; k++)
        unmatched += d->only_base[k] + d->only_run[k];
    if (unmatched) {
        fputs("<h2>Unmatched layers</h2>\n", f);
        table_open(f, "unmatched", (const char *const[]){ "name", "op", "in runs" }, 3);
        for (int i = 0; i < d->n_rows; i++) {
            const rep_row *rw = &d->rows[i];
            char in[4 * REPORT_MAX_RUNS];
            if (!rep_row_runs(d, rw, in, sizeof(in)))
                row(f, NULL, (const char *const[]){ rep_str(rw->name), rep_str(rw->op), in }, 3);
        }
        table_close(f);
    }

    char words[512];
    fputs("<h2>Aligned layers</h2>\n<div id=\"layer-times\">Layer times: ", f);
    esc(f, rep_layer_us_words(d, words, sizeof(words)));
    fputs(".</div>\n", f);
    const char *hd[2 + 4 * REPORT_MAX_RUNS];
    char hbuf[4 * REPORT_MAX_RUNS][24];
    int nc = 0;
    hd[nc++] = "name";
    hd[nc++] = "op";
    for (int k = 0; k < n; k++) {
        snprintf(hbuf[4 * k], sizeof(hbuf[0]), "%s us", rep_tag(k)), hd[nc++] = hbuf[4 * k];
        if (k) {
            snprintf(hbuf[4 * k + 1], sizeof(hbuf[0]), "%s delta us", rep_tag(k)), hd[nc++] = hbuf[4 * k + 1];
            snprintf(hbuf[4 * k + 2], sizeof(hbuf[0]), "%s delta %%", rep_tag(k)), hd[nc++] = hbuf[4 * k + 2];
        }
        snprintf(hbuf[4 * k + 3], sizeof(hbuf[0]), "%s cos", rep_tag(k)), hd[nc++] = hbuf[4 * k + 3];
    }
    table_open(f, "aligned", hd, nc);
    for (int i = 0; i < d->n_rows; i++) {
        const rep_row *rw = &d->rows[i];
        char cells[2 + 4 * REPORT_MAX_RUNS][48];
        const char *cp[2 + 4 * REPORT_MAX_RUNS];
        double base = rep_row_us(d, rw, 0);
        nc = 0;
        cp[nc++] = rep_str(rw->name);
        cp[nc++] = rep_str(rw->op);
        for (int k = 0; k < n; k++) {
            double us = rep_row_us(d, rw, k);
            cp[nc] = rep_num(cells[nc], sizeof(cells[0]), us, "%.1f"), nc++;
            if (k) {
                cp[nc] = rep_num(cells[nc], sizeof(cells[0]), us - base, "%+.1f"), nc++;
                cp[nc] = rep_num(cells[nc], sizeof(cells[0]), base > 0 ? (us / base - 1) * 100 : NAN, "%+.1f"), nc++;
            }
            cp[nc] = rep_num(cells[nc], sizeof(cells[0]), rep_row_cos(d, rw, k, 0), "%.5f"), nc++;
        }
        row(f, NULL, cp, nc);
    }
    table_close(f);
}

int report_html(const rep_doc *d, FILE *f)
{
    char nm[160];
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>rknn-trace ", f);
    if (d->n == 1)
        esc(f, rep_run_name(&d->runs[0], nm, sizeof(nm)));
    else
        fprintf(f, "comparison of %d runs", d->n);
    fprintf(f, "</title>\n<style>%s</style>\n</head><body>\n", style);
    if (d->n == 1)
        single_run(d, f);
    else
        comparison(d, f);
    fprintf(f, "<script>\n%s</script>\n</body></html>\n", script);
    return RT_OK;
}
