/* tui/view_runs.c — every recorded run, newest first. The figures that need a
 * run's output and error rows (output cos, SQNR, host median) are read when a
 * row is first drawn or sorted on, so that opening a large database costs one
 * listing. */
#define RT_TUI_INTERNAL
#include "tui/tui.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { C_ID, C_LABEL, C_MODEL, C_TARGET, C_QUANT, C_PRED, C_COS, C_MEAS, C_MFROM, C_TIME, C_BACKEND,
       C_SQNR, C_LAYERS, C_TAGS, N_COLS };

/* What tells runs apart first: 80 columns show up to the output's cosine. */
static const tui_col cols[N_COLS] = {
    [C_ID] = {"id", 5, TCOL_NUM, 1},          [C_LABEL] = {"label", 12, TCOL_TEXT, 0},
    [C_MODEL] = {"model", 14, TCOL_TEXT, 0},   [C_TARGET] = {"target", 6, TCOL_TEXT, 0},
    [C_QUANT] = {"quant", 17, TCOL_TEXT, 0},   [C_PRED] = {"pred ms", 8, TCOL_NUM, 1},
    [C_COS] = {"out cos", 9, TCOL_NUM, 1},     [C_MEAS] = {"meas ms", 8, TCOL_NUM, 1},
    /* where the measured time came from: a board's and this PC's never share an unlabeled column */
    [C_MFROM] = {"from", 7, TCOL_TEXT, 0},
    [C_TIME] = {"time (UTC)", 11, TCOL_TEXT, 0}, [C_BACKEND] = {"bk", 5, TCOL_TEXT, 0},
    [C_SQNR] = {"SQNR", 6, TCOL_NUM, 1},       [C_LAYERS] = {"layers", 6, TCOL_NUM, 1},
    [C_TAGS] = {"tags", 12, TCOL_TEXT, 0},
};

static const tui_key keys[] = {
    {"Enter / double-click", "the run's layers"},
    {"i", "the run's summary (as `show` prints it)"},
    {"l", "the run's NPU load over time"},
    {"Space", "mark / unmark the run for comparing (the first marked is the baseline)"},
    {"c", "compare the marked runs (two or more)"},
    {"f", "filter: model=NAME|GLOB platform=P backend=B quant=Q[/ALGO[/METHOD]] tag=T"},
    {"F", "clear the filters and the search"},
    {"L", "relabel the run (asks to confirm; empty removes the label)"},
    {"d", "delete the run (asks to confirm)"},
    {"r", "reload the list from the database"},
};

/* Times come from the run row alone; the output's error needs its output and
 * error rows (two queries), read when first needed. */
typedef struct figs {
    int times, errors, collapsed;
    int meas_prov;              /* PROV_* of meas_us */
    double pred_us, meas_us, cos, sqnr;
    char *log_file;             /* an imported run's log (the model column without a model) */
} figs;

typedef struct runs_view {
    tui_view v;
    tui *t;
    store_run *runs;            /* newest first */
    int n;
    figs *f;
    int *mark;                  /* 0: unmarked, else the order of marking */
    int next_mark;
    char filt_model[128], filt_platform[64], filt_backend[32], filt_quant[96], filt_tag[64];
    tui_table tb;
} runs_view;

static const char *base_name(const char *p)
{
    const char *b = p ? strrchr(p, '/') : NULL;
    return b ? b + 1 : p;
}

static void load_times(runs_view *rv, int i)
{
    figs *f = &rv->f[i];
    run_summary s;
    if (f->times)
        return;
    f->times = 1;
    summary_compute(&rv->runs[i], NULL, 0, NULL, 0, NULL, 0, NULL, 0, rv->t->thr, &s);
    f->pred_us = s.frame_us;
    f->meas_us = s.host_median_us;
    f->meas_prov = s.prov.timing;
    f->log_file = s.log.file ? xstrdup(s.log.file) : NULL;
    summary_free(&s);
}

static void load_errors(runs_view *rv, int i)
{
    figs *f = &rv->f[i];
    store_output *outs = NULL;
    store_accuracy *acc = NULL;
    int no = 0, na = 0;
    char err[256];
    run_summary s;

    if (f->errors)
        return;
    f->errors = 1;
    f->cos = f->sqnr = NAN;
    if (!store_get_outputs(rv->t->st, rv->runs[i].id, &outs, &no, err, sizeof(err)) &&
        !store_get_accuracy(rv->t->st, rv->runs[i].id, &acc, &na, err, sizeof(err))) {
        summary_compute(&rv->runs[i], NULL, 0, NULL, 0, outs, no, acc, na, rv->t->thr, &s);
        f->cos = s.out_cos;
        f->sqnr = s.out_sqnr_db;
        f->collapsed = s.n_collapsed;
        summary_free(&s);
    }
    store_outputs_free(outs, no);
    store_accuracy_free(acc, na);
}

static void load_figs(runs_view *rv, int i, int col)
{
    if (col == C_PRED || col == C_MEAS || col == C_MFROM || col == C_MODEL)
        load_times(rv, i);
    else if (col == C_COS || col == C_SQNR)
        load_errors(rv, i);
}

/* Sorting on the output's error reads every run's rows: say so first. */
static void before_sort(void *ctx, int col)
{
    runs_view *rv = ctx;
    int missing = 0;
    char msg[128];
    if (col != C_COS && col != C_SQNR)
        return;
    for (int i = 0; i < rv->n; i++)
        missing += !rv->f[i].errors;
    if (missing < 200)
        return;
    snprintf(msg, sizeof(msg), "reading the output errors of %d runs...", missing);
    tui_busy(rv->t, msg);
}

static void quant_text(const store_run *r, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s%s", r->quant ? r->quant : "-", r->quant_algo ? "/" : "",
             r->quant_algo ? r->quant_algo : "", r->quant_method ? "/" : "",
             r->quant_method ? r->quant_method : "");
}

static void cell(void *ctx, int row, int col, char *buf, size_t len, int *color, double *frac)
{
    runs_view *rv = ctx;
    const store_run *r = &rv->runs[row];
    const figs *f = &rv->f[row];
    load_figs(rv, row, col);
    switch (col) {
    case C_ID: snprintf(buf, len, "%lld", (long long)r->id); break;
    case C_LABEL: snprintf(buf, len, "%s", r->label ? r->label : "-"); break;
    case C_TIME:
        /* "2026-11-24T10:00:00Z" -> "11-24 10:00" (sorting by it sorts by id within a year) */
        snprintf(buf, len, "%.11s", r->time && strlen(r->time) >= 16 ? r->time + 5 : r->time ? r->time : "-");
        if (strlen(buf) > 5 && buf[5] == 'T')
            buf[5] = ' ';
        break;
    case C_MODEL:
        snprintf(buf, len, "%s", r->model_path ? base_name(r->model_path)
                                 : f->log_file ? base_name(f->log_file) : "-");
        break;
    case C_TARGET: snprintf(buf, len, "%s", r->platform ? r->platform : "-"); break;
    case C_BACKEND: snprintf(buf, len, "%s", r->backend ? r->backend : "-"); break;
    case C_QUANT: quant_text(r, buf, len); break;
    case C_PRED: tui_num(buf, len, f->pred_us / 1e3, "%.3f"); break;
    case C_MEAS: tui_num(buf, len, f->meas_us / 1e3, "%.3f"); break;
    case C_MFROM:
        snprintf(buf, len, "%s", !isnan(f->meas_us) && provenance_tag(f->meas_prov)
                                     ? provenance_tag(f->meas_prov) : "-");
        break;
    case C_COS:
        if (f->collapsed) {
            snprintf(buf, len, "collapsed");
            *color = TC_BAD;
        } else {
            tui_num(buf, len, f->cos, "%.5f");
            if (!isnan(f->cos))
                *color = tui_cos_color(f->cos, rv->t->thr);
        }
        break;
    case C_SQNR: tui_num(buf, len, f->sqnr, "%.1f"); break;
    case C_LAYERS: tui_int(buf, len, r->n_layers); break;
    case C_TAGS: snprintf(buf, len, "%s", r->tags ? r->tags : ""); break;
    }
}

static double num(void *ctx, int row, int col)
{
    runs_view *rv = ctx;
    const figs *f = &rv->f[row];
    load_figs(rv, row, col);
    switch (col) {
    case C_ID: case C_TIME: return (double)rv->runs[row].id;
    case C_PRED: return f->pred_us;
    case C_MEAS: return f->meas_us;
    case C_COS: return f->collapsed ? -2 : f->cos;
    case C_SQNR: return f->sqnr;
    case C_LAYERS: return rv->runs[row].n_layers == STORE_NULL_INT ? NAN : (double)rv->runs[row].n_layers;
    }
    return NAN;
}

static int keep(void *ctx, int row)
{
    runs_view *rv = ctx;
    const store_run *r = &rv->runs[row];
    if (rv->filt_model[0] && !run_filter_model(r, rv->filt_model))
        return 0;
    if (rv->filt_platform[0] && (!r->platform || strcasecmp(r->platform, rv->filt_platform)))
        return 0;
    if (rv->filt_backend[0] && (!r->backend || strcasecmp(r->backend, rv->filt_backend)))
        return 0;
    if (rv->filt_quant[0] && !run_filter_quant(r, rv->filt_quant))
        return 0;
    if (rv->filt_tag[0] && !run_filter_tag(r, rv->filt_tag))
        return 0;
    return 1;
}

static int marked(void *ctx, int row)
{
    return ((runs_view *)ctx)->mark[row] > 0;
}

static void free_runs(runs_view *rv)
{
    store_runs_free(rv->runs, rv->n);
    for (int i = 0; i < rv->n; i++)
        free(rv->f[i].log_file);
    free(rv->f);
    free(rv->mark);
    tui_table_free(&rv->tb);
    rv->runs = NULL;
    rv->n = 0;
}

/* Reads the list (again), keeping sort, search and filters. */
static int load(runs_view *rv, char *err, size_t errlen)
{
    tui_table old = rv->tb;
    store_run *runs = NULL;
    int n = 0, rc = store_list_runs_brief(rv->t->st, &runs, &n, err, errlen); /* views reload a run */
    if (rc)
        return rc;
    free_runs(rv);
    /* newest first: the store lists by id */
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        store_run tmp = runs[i];
        runs[i] = runs[j];
        runs[j] = tmp;
    }
    rv->runs = runs;
    rv->n = n;
    rv->f = xcalloc((size_t)(n ? n : 1), sizeof(*rv->f));
    rv->mark = xcalloc((size_t)(n ? n : 1), sizeof(*rv->mark));
    rv->next_mark = 0;
    tui_table_init(&rv->tb, cols, N_COLS, 2, n, rv);
    rv->tb.cell = cell;
    rv->tb.num = num;
    rv->tb.keep = keep;
    rv->tb.marked = marked;
    rv->tb.before_sort = before_sort;
    rv->tb.sort_col = old.cols ? old.sort_col : -1;
    rv->tb.sort_desc = old.sort_desc;
    rv->tb.hscroll = old.cols ? old.hscroll : rv->tb.hscroll;
    memcpy(rv->tb.search, old.search, sizeof(old.search));
    tui_table_refresh(&rv->tb);
    if (old.cols)
        rv->tb.cur = old.cur < rv->tb.n_shown ? old.cur : rv->tb.n_shown - 1;
    return RT_OK;
}

static void draw(tui *t, tui_view *v, int y0, int h)
{
    runs_view *rv = (runs_view *)v;
    char buf[1024];
    int nm = 0;
    for (int i = 0; i < rv->n; i++)
        nm += rv->mark[i] > 0;
    snprintf(buf, sizeof(buf), " %d runs%s%d shown, %d marked%s%s%s%s%s%s%s%s%s%s%s%s%s", rv->n,
             rv->n ? ", " : " (rknn-trace run MODEL records one), ", rv->tb.n_shown, nm,
             rv->tb.search[0] ? "  search '" : "", rv->tb.search, rv->tb.search[0] ? "'" : "",
             rv->filt_model[0] ? "  model=" : "", rv->filt_model,
             rv->filt_platform[0] ? "  platform=" : "", rv->filt_platform,
             rv->filt_backend[0] ? "  backend=" : "", rv->filt_backend,
             rv->filt_quant[0] ? "  quant=" : "", rv->filt_quant,
             rv->filt_tag[0] ? "  tag=" : "", rv->filt_tag);
    tui_text(y0, 0, COLS, buf, A_BOLD, 0, 1);
    tui_table_draw(t, &rv->tb, y0 + 1, h - 1);
}

static void set_filters(runs_view *rv, char *spec)
{
    rv->filt_model[0] = rv->filt_platform[0] = rv->filt_backend[0] = rv->filt_quant[0] =
        rv->filt_tag[0] = '\0';
    for (char *tok = strtok(spec, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strpbrk(tok, "=:");
        if (!eq) {
            tui_status(rv->t, 1, "filter '%s': use field=value (model, platform, backend, quant, tag)", tok);
            continue;
        }
        *eq = '\0';
        const char *val = eq + 1;
        char *dst = NULL;
        size_t len = 0;
        if (!strcasecmp(tok, "model"))
            dst = rv->filt_model, len = sizeof(rv->filt_model);
        else if (!strcasecmp(tok, "platform") || !strcasecmp(tok, "target"))
            dst = rv->filt_platform, len = sizeof(rv->filt_platform);
        else if (!strcasecmp(tok, "backend"))
            dst = rv->filt_backend, len = sizeof(rv->filt_backend);
        else if (!strcasecmp(tok, "quant"))
            dst = rv->filt_quant, len = sizeof(rv->filt_quant);
        else if (!strcasecmp(tok, "tag"))
            dst = rv->filt_tag, len = sizeof(rv->filt_tag);
        if (dst)
            snprintf(dst, len, "%s", val);
        else
            tui_status(rv->t, 1, "unknown filter field '%s' (model, platform, backend, quant, tag)", tok);
    }
}

static void open_layers(tui *t, runs_view *rv, int row)
{
    tui_run *r = NULL;
    char err[512];
    if (row < 0)
        return;
    if (tui_run_load(t, rv->runs[row].id, &r, err, sizeof(err)))
        tui_status(t, 1, "%s", err);
    else
        tui_push(t, tui_layers_view(t, r));
}

static void compare_marked(tui *t, runs_view *rv)
{
    int64_t ids[16];
    int n = 0;
    char err[512];
    /* in the order they were marked: the first is the baseline */
    for (int m = 1; m <= rv->next_mark && n < 16; m++)
        for (int i = 0; i < rv->n; i++)
            if (rv->mark[i] == m)
                ids[n++] = rv->runs[i].id;
    if (n < 2) {
        tui_status(t, 1, "mark two or more runs with Space, then c (the first marked is the baseline)");
        return;
    }
    tui_view *cv = NULL;
    if (tui_compare_view(t, ids, n, &cv, err, sizeof(err)))
        tui_status(t, 1, "%s", err);
    else
        tui_push(t, cv);
}

/* One confirmed change (delete, or set the label) through a writable handle
 * opened for it alone, then the list read again. */
static int change_run(runs_view *rv, int64_t id, int del, const char *label, char *err, size_t errlen)
{
    store *w = NULL;
    int rc = tui_store_writable(rv->t, &w, err, errlen);
    if (!rc)
        rc = del ? store_delete_run(w, id, err, errlen) : store_set_label(w, id, label, err, errlen);
    store_close(w);
    return rc ? rc : load(rv, err, errlen);
}

static void delete_run(tui *t, runs_view *rv, int row)
{
    char q[512], err[512];
    const store_run *r = &rv->runs[row];
    snprintf(q, sizeof(q), "delete run #%lld%s%s (%s, %lld layers) from %s?", (long long)r->id,
             r->label ? " " : "", r->label ? r->label : "", base_name(r->model_path ? r->model_path : "-"),
             (long long)(r->n_layers == STORE_NULL_INT ? 0 : r->n_layers), t->db_path);
    if (!tui_confirm(t, q)) {
        tui_status(t, 0, "nothing deleted");
        return;
    }
    int64_t id = r->id;
    if (change_run(rv, id, 1, NULL, err, sizeof(err)))
        tui_status(t, 1, "%s", err);
    else
        tui_status(t, 0, "deleted run #%lld", (long long)id);
}

static void relabel_run(tui *t, runs_view *rv, int row)
{
    char label[128], q[512], err[512];
    int64_t id = rv->runs[row].id;
    snprintf(label, sizeof(label), "%s", rv->runs[row].label ? rv->runs[row].label : "");
    snprintf(q, sizeof(q), "label of run #%lld (empty: none): ", (long long)id);
    if (!tui_prompt(t, q, label, sizeof(label)))
        return;
    snprintf(q, sizeof(q), "%s run #%lld%s%s?", label[0] ? "label" : "remove the label of",
             (long long)id, label[0] ? " as " : "", label);
    if (!tui_confirm(t, q)) {
        tui_status(t, 0, "label unchanged");
        return;
    }
    if (change_run(rv, id, 0, label[0] ? label : NULL, err, sizeof(err)))
        tui_status(t, 1, "%s", err);
    else
        tui_status(t, 0, "run #%lld %s%s", (long long)id, label[0] ? "is now " : "has no label", label);
}

static int key(tui *t, tui_view *v, int ch)
{
    runs_view *rv = (runs_view *)v;
    int row = tui_table_current(&rv->tb);
    char err[512], spec[512];
    if (tui_table_key(t, &rv->tb, ch) == TUI_HANDLED)
        return TUI_HANDLED;
    switch (ch) {
    case '\n': case '\r': case KEY_ENTER:
        open_layers(t, rv, row);
        return TUI_HANDLED;
    case 'i':
        if (row >= 0) {
            tui_run *r = NULL;
            if (tui_run_load(t, rv->runs[row].id, &r, err, sizeof(err))) {
                tui_status(t, 1, "%s", err);
            } else {
                tui_push(t, tui_summary_view(t, r));
                tui_run_free(r);
            }
        }
        return TUI_HANDLED;
    case 'l':
        if (row >= 0) {
            tui_run *r = NULL;
            tui_view *lv = NULL;
            if (tui_run_load(t, rv->runs[row].id, &r, err, sizeof(err)) ||
                tui_load_view(t, r, &lv, err, sizeof(err)))
                tui_status(t, 1, "%s", err);
            else
                tui_push(t, lv);
            tui_run_free(r);
        }
        return TUI_HANDLED;
    case ' ':
        if (row >= 0) {
            rv->mark[row] = rv->mark[row] ? 0 : ++rv->next_mark;
            tui_table_key(t, &rv->tb, KEY_DOWN);
        }
        return TUI_HANDLED;
    case 'c':
        compare_marked(t, rv);
        return TUI_HANDLED;
    case 'f':
        snprintf(spec, sizeof(spec), "%s%s%s%s%s%s%s%s%s%s", rv->filt_model[0] ? "model=" : "",
                 rv->filt_model, rv->filt_platform[0] ? " platform=" : "", rv->filt_platform,
                 rv->filt_backend[0] ? " backend=" : "", rv->filt_backend,
                 rv->filt_quant[0] ? " quant=" : "", rv->filt_quant, rv->filt_tag[0] ? " tag=" : "",
                 rv->filt_tag);
        if (tui_prompt(t, "filter (model= platform= backend= quant= tag=): ", spec, sizeof(spec))) {
            set_filters(rv, spec);
            tui_table_refresh(&rv->tb);
        }
        return TUI_HANDLED;
    case 'F':
        spec[0] = '\0';
        set_filters(rv, spec);
        rv->tb.search[0] = '\0';
        tui_table_refresh(&rv->tb);
        tui_status(t, 0, "filters cleared");
        return TUI_HANDLED;
    case 'd':
        if (row >= 0)
            delete_run(t, rv, row);
        return TUI_HANDLED;
    case 'L':
        if (row >= 0)
            relabel_run(t, rv, row);
        return TUI_HANDLED;
    case 'r':
        if (load(rv, err, sizeof(err)))
            tui_status(t, 1, "%s", err);
        else
            tui_status(t, 0, "%d runs", rv->n);
        return TUI_HANDLED;
    }
    return TUI_UNHANDLED;
}

static void mouse(tui *t, tui_view *v, const MEVENT *ev)
{
    runs_view *rv = (runs_view *)v;
    if (tui_table_mouse(t, &rv->tb, ev) == 2)
        open_layers(t, rv, tui_table_current(&rv->tb));
}

static void destroy(tui_view *v)
{
    runs_view *rv = (runs_view *)v;
    free_runs(rv);
    free(rv);
}

int tui_runs_view(tui *t, tui_view **out, char *err, size_t errlen)
{
    runs_view *rv = xcalloc(1, sizeof(*rv));
    rv->v = (tui_view){ .name = "runs", .draw = draw, .key = key, .mouse = mouse, .destroy = destroy,
                        .keys = keys, .n_keys = (int)(sizeof(keys) / sizeof(keys[0])),
                        .table = 1 };
    rv->t = t;
    int rc = load(rv, err, errlen);
    if (rc) {
        destroy(&rv->v);
        return rc;
    }
    *out = &rv->v;
    return RT_OK;
}
