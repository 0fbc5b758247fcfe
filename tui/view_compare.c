/* tui/view_compare.c — two or more runs aligned by source tensor name
 * (the comparison document, as `compare` aligns them), the first marked the baseline:
 * per tensor the worst change of entire cos and of predicted time against it,
 * largest regression first, and the verdict lines `compare` prints. A name
 * wider than its column shows its tail ("…conv/Conv_output_0"): layers of one
 * network share their heads. Every number column sorts worst first: the sort
 * key of a cos is its drop, of a time its growth. */
#define RT_TUI_INTERNAL
#include "tui/tui.h"
#include "analyze/compare_doc.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CMP 8

static const tui_key keys[] = {
    {"Enter", "the layer's detail in the run of the worst change"},
    {"t / c", "sort by the largest time / cos regression"},
};

enum { C_OP, C_NAME, C_DCOS, C_DUS, C_DPCT, C_RUN0 };

typedef struct cv_row {
    const char *name, *op;
    int drow;                   /* its row of the comparison document (layer, acc rows) */
    double dcos, dus, dpct;     /* worst over the runs vs the baseline */
    int worst;                  /* the run with the worst change */
} cv_row;

typedef struct compare_view {
    tui_view v;
    tui *t;
    tui_run *r[MAX_CMP];
    int nr, by_host, any_acc;
    cv_row *rows;
    int n;
    cmp_run cr[MAX_CMP];        /* the runs as the comparison document reads them (borrowed) */
    cmp_doc doc;
    int base_golden;            /* the baseline is fp32: its cos vs the golden is 1 */
    tui_col cols[C_RUN0 + 2 * MAX_CMP];
    char titles[2 * MAX_CMP][24];
    char verdict[MAX_CMP][512], legend[MAX_CMP][400];
    tui_table tb;
} compare_view;


/* the row's accuracy row in run k, -1 none */
static int acc_of(const compare_view *cv, const cv_row *c, int k)
{
    return cv->doc.rows[c->drow].acc[k];
}

/* the time `compare` prints for that row and run */
static double layer_us(const compare_view *cv, int k, const cv_row *c)
{
    return cmp_row_us(&cv->doc, &cv->doc.rows[c->drow], k);
}

static double acc_cos(const compare_view *cv, int k, int ai)
{
    if (ai < 0)
        return k == 0 && cv->base_golden ? 1.0 : NAN;
    return cv->r[k]->acc[ai].entire.cos;
}

static double value(const compare_view *cv, int row, int col)
{
    const cv_row *c = &cv->rows[row];
    switch (col) {
    case C_DCOS: return c->dcos;
    case C_DUS: return c->dus;
    case C_DPCT: return c->dpct;
    }
    int k = (col - C_RUN0) / 2;
    return (col - C_RUN0) % 2 ? layer_us(cv, k, c) : acc_cos(cv, k, acc_of(cv, c, k));
}

/* The sort key: larger is worse, so that the table's numeric order (largest
 * first: s, a header click, c, t) puts the worst row on top. */
static double num(void *ctx, int row, int col)
{
    const compare_view *cv = ctx;
    double v = value(cv, row, col);
    int is_cos = col == C_DCOS || (col >= C_RUN0 && (col - C_RUN0) % 2 == 0);
    if (col >= C_RUN0 && is_cos && acc_of(cv, &cv->rows[row], (col - C_RUN0) / 2) < 0)
        return NAN;     /* no error row: nothing to rank */
    return is_cos ? -v : v;
}

/* name into buf, or its last width-1 code points after "…" when wider */
static const char *fit_tail(char *buf, size_t len, const char *name, int width)
{
    int w = 0;
    for (const char *p = name; *p; p++)
        w += ((unsigned char)*p & 0xc0) != 0x80;
    if (w <= width || width < 2) {
        snprintf(buf, len, "%s", name);
        return buf;
    }
    const char *p = name;
    for (int skip = w - (width - 1); skip > 0; skip--)
        for (p++; ((unsigned char)*p & 0xc0) == 0x80; p++)
            ;
    snprintf(buf, len, "\xe2\x80\xa6%s", p);
    return buf;
}

static void cell(void *ctx, int row, int col, char *buf, size_t len, int *color, double *frac)
{
    const compare_view *cv = ctx;
    const cv_row *c = &cv->rows[row];
    double v = col >= C_DCOS ? value(cv, row, col) : NAN;
    switch (col) {
    case C_OP: snprintf(buf, len, "%s", c->op ? c->op : "-"); return;
    case C_NAME: fit_tail(buf, len, c->name, cv->cols[C_NAME].width); return;
    case C_DCOS:
        tui_num(buf, len, v, "%+.5f");
        if (!isnan(v) && v < 0)
            *color = tui_cos_color(1 + v, cv->t->thr);
        return;
    case C_DUS:
        tui_num(buf, len, v, "%+.1f");
        if (!isnan(v))
            *color = v > 0 ? TC_BAD : TC_GOOD;
        return;
    case C_DPCT:
        tui_num(buf, len, v, "%+.0f%%");
        if (!isnan(v))
            *color = v > 0 ? TC_BAD : TC_GOOD;
        return;
    }
    if ((col - C_RUN0) % 2) {
        tui_num(buf, len, v, v < 100 ? "%.2f" : "%.1f");
    } else if (acc_of(cv, c, (col - C_RUN0) / 2) >= 0) {
        metrics_fmt_cos(v, buf, len);
        *color = tui_cos_color(v, cv->t->thr);
    } else {
        snprintf(buf, len, "-");
    }
}

/* Rows of the comparison document (analyze/compare_doc.h: the union of the
 * runs' tensors, by the one alignment rule) with the worst change vs A. */
static void build_rows(compare_view *cv)
{
    const cmp_doc *d = &cv->doc;
    int n = d->n_rows;
    cv->rows = xcalloc((size_t)(n ? n : 1), sizeof(*cv->rows));
    cv->n = n;
    for (int i = 0; i < n; i++) {
        cv_row *c = &cv->rows[i];
        c->name = d->rows[i].name;
        c->op = d->rows[i].op;
        c->dcos = c->dus = c->dpct = NAN;
        c->worst = 0;
        c->drow = i;
        const int *ai = d->rows[i].acc;
        double cos0 = acc_cos(cv, 0, ai[0]), us0 = layer_us(cv, 0, c);
        for (int k = 1; k < cv->nr; k++) {
            double dc = ai[k] >= 0 ? acc_cos(cv, k, ai[k]) - cos0 : NAN;
            double du = layer_us(cv, k, c) - us0;
            if (!isnan(dc) && (isnan(c->dcos) || dc < c->dcos))
                c->dcos = dc, c->worst = k;
            if (!isnan(du) && (isnan(c->dus) || du > c->dus)) {
                c->dus = du;
                c->dpct = us0 > 0 ? du / us0 * 100 : NAN;
                if (isnan(c->dcos))
                    c->worst = k;
            }
        }
    }
}

static void draw(tui *t, tui_view *v, int y0, int h)
{
    compare_view *cv = (compare_view *)v;
    int y = y0;
    for (int k = 0; k < cv->nr && y < y0 + h; k++)
        tui_text(y++, 0, COLS, cv->legend[k], k ? A_NORMAL : A_BOLD, 0, 1);
    int foot = cv->nr - 1;
    tui_table_draw(t, &cv->tb, y, y0 + h - y - foot);
    for (int k = 1; k < cv->nr; k++) {
        const char *line = cv->verdict[k];
        int slower = strchr(line, '+') != NULL;
        tui_text(y0 + h - foot + k - 1, 0, COLS, line, tui_attr(t, slower ? TC_BAD : TC_GOOD) | A_BOLD, 0, 1);
    }
}

static void sort_by(compare_view *cv, int col)
{
    cv->tb.sort_col = col;
    cv->tb.sort_desc = 1;               /* the sort key grows with the regression */
    tui_table_refresh(&cv->tb);
    cv->tb.cur = cv->tb.top = 0;
}

static int key(tui *t, tui_view *v, int ch)
{
    compare_view *cv = (compare_view *)v;
    if (tui_table_key(t, &cv->tb, ch) == TUI_HANDLED)
        return TUI_HANDLED;
    int row = tui_table_current(&cv->tb);
    switch (ch) {
    case '\n': case '\r': case KEY_ENTER:
        if (row >= 0) {
            const cv_row *c = &cv->rows[row];
            const int *li = cv->doc.rows[c->drow].layer, *ai = cv->doc.rows[c->drow].acc;
            int k = li[c->worst] >= 0 || ai[c->worst] >= 0 ? c->worst : 0;
            tui_push(t, tui_detail_view(t, cv->r[k], li[k], ai[k]));
        }
        return TUI_HANDLED;
    case 't':
        sort_by(cv, C_DUS);
        return TUI_HANDLED;
    case 'c':
        sort_by(cv, C_DCOS);
        return TUI_HANDLED;
    }
    return TUI_UNHANDLED;
}

static void mouse(tui *t, tui_view *v, const MEVENT *ev)
{
    compare_view *cv = (compare_view *)v;
    if (tui_table_mouse(t, &cv->tb, ev) == 2)
        key(t, v, '\n');
}

static void destroy(tui_view *v)
{
    compare_view *cv = (compare_view *)v;
    tui_table_free(&cv->tb);
    free(cv->rows);
    cmp_doc_free(&cv->doc);
    for (int k = 0; k < cv->nr; k++)
        tui_run_free(cv->r[k]);
    free(cv);
}

int tui_compare_view(tui *t, const int64_t *ids, int n, tui_view **out, char *err, size_t errlen)
{
    compare_view *cv = xcalloc(1, sizeof(*cv));
    int rc = RT_OK;
    char a[32];
    cv->v = (tui_view){ .name = "compare", .draw = draw, .key = key, .mouse = mouse, .destroy = destroy,
                        .keys = keys, .n_keys = (int)(sizeof(keys) / sizeof(keys[0])),
                        .table = 1 };
    cv->t = t;
    if (n > MAX_CMP) {
        n = MAX_CMP;
        tui_status(t, 0, "comparing the first %d marked runs", MAX_CMP);
    }
    for (int k = 0; k < n && !rc; k++)
        if (!(rc = tui_run_load(t, ids[k], &cv->r[k], err, errlen)))
            cv->nr++;
    if (rc) {
        destroy(&cv->v);
        return rc;
    }
    /* the predicted NPU frame, as `compare` decides by default; this PC's
     * times when a run has no prediction but all have host times */
    for (int k = 0; k < n; k++)
        cv->by_host |= isnan(cv->r[k]->sum.frame_us);
    for (int k = 0; k < n && cv->by_host; k++)
        cv->by_host = !isnan(cv->r[k]->sum.host_median_us);
    for (int k = 0; k < n; k++)
        cv->any_acc |= cv->r[k]->na > 0;
    for (int k = 0; k < n; k++) {
        const tui_run *r = cv->r[k];
        cv->cr[k] = (cmp_run){ .run = r->run, .layers = r->layers, .n_layers = r->nl,
                               .outs = r->outs, .n_outs = r->no, .acc = r->acc, .n_acc = r->na,
                               .npu = r->npu, .n_npu = r->nnpu, .sum = r->sum };
    }
    /* an fp32 baseline is the golden the others' cos is measured against */
    cv->base_golden = cv->r[0]->na == 0 && (!cv->r[0]->run.quant || !strcmp(cv->r[0]->run.quant, "fp32") ||
                                            !strcmp(cv->r[0]->run.quant, "none"));
    if ((rc = cmp_doc_build(cv->cr, cv->nr, cv->by_host, 0, &cv->doc, err, errlen))) {
        destroy(&cv->v);
        return rc;
    }
    build_rows(cv);

    for (int k = 0; k < n; k++) {
        const tui_run *r = cv->r[k];
        char tag[4] = { (char)('A' + k), 0 };
        double us = cv->by_host ? r->sum.host_median_us : r->sum.frame_us;
        if (k)
            cmp_verdict(&cv->doc, k, cv->verdict[k], sizeof(cv->verdict[k]));
        snprintf(cv->legend[k], sizeof(cv->legend[k]), " %s = run #%lld%s%s%s: %s %s%s%s, %d layers, %s %s ms%s%s; layer times %s",
                 tag, (long long)r->run.id, r->run.label ? " " : "", r->run.label ? r->run.label : "",
                 k ? "" : " (baseline)", r->run.platform ? r->run.platform : "-",
                 r->run.quant ? r->run.quant : "-", r->run.quant_algo ? "/" : "",
                 r->run.quant_algo ? r->run.quant_algo : "", r->nl,
                 cv->by_host ? "host (this PC)" : "predicted NPU", tui_num(a, sizeof(a), us / 1e3, "%.3f"),
                 r->na && r->sum.first_below >= 0 ? ", error starts at " : "",
                 r->na && r->sum.first_below >= 0 ? r->acc[r->sum.first_below].name : "",
                 provenance_words(cmp_layer_us_prov(&cv->doc, k)));
        snprintf(cv->titles[2 * k], sizeof(cv->titles[0]), "cos %s", tag);
        snprintf(cv->titles[2 * k + 1], sizeof(cv->titles[0]), "us %s", tag);
    }
    cv->cols[C_OP] = (tui_col){ "op", 12, TCOL_TEXT, 0 };
    int name_w = 12;                    /* the longest name, up to 32 cells */
    for (int i = 0; i < cv->n; i++) {
        int w = 0;
        for (const char *p = cv->rows[i].name; *p; p++)
            w += ((unsigned char)*p & 0xc0) != 0x80;
        name_w = w > name_w ? (w < 32 ? w : 32) : name_w;
    }
    cv->cols[C_NAME] = (tui_col){ "tensor", name_w, TCOL_TEXT, 0 };
    cv->cols[C_DCOS] = (tui_col){ "d cos", 9, TCOL_NUM, 1 };
    cv->cols[C_DUS] = (tui_col){ cv->by_host ? "d host us" : "d us", 9, TCOL_NUM, 1 };
    cv->cols[C_DPCT] = (tui_col){ "d %", 6, TCOL_NUM, 1 };
    for (int k = 0; k < n; k++) {
        cv->cols[C_RUN0 + 2 * k] = (tui_col){ cv->titles[2 * k], 8, TCOL_NUM, 1 };
        cv->cols[C_RUN0 + 2 * k + 1] = (tui_col){ cv->titles[2 * k + 1], 8, TCOL_NUM, 1 };
    }
    tui_table_init(&cv->tb, cv->cols, C_RUN0 + 2 * n, 2, cv->n, cv);
    cv->tb.cell = cell;
    cv->tb.num = num;
    sort_by(cv, cv->any_acc ? C_DCOS : C_DUS);
    *out = &cv->v;
    return RT_OK;
}
