/* tracer/vlog_scan.c — a whole vendor log (board runtime, toolkit, tools) split
 * into runs, every line accounted for by kind. Tables go to perflog_parse and
 * sramlog_parse as the byte ranges they span; the other parts are read line by
 * line (rtinfo, memlog, benchlog, acclog). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/tracer.h"
#include "util/util.h"

const char *const vlog_kind_names[VLOG_NKINDS] = {
    "used", "layout", "comment", "elided", "runtime", "toolkit", "app", "bad",
};

/* One line of the text: [s, e) without the newline, trailing blanks cut. */
typedef struct line {
    const char *s, *e;
} line_t;
_Static_assert(sizeof(line_t) == VLOG_LINE_BYTES, "the line index's size is documented");

typedef struct scan {
    vlog_t *v;
    int formats;
    int cur;                   /* board run receiving parts, -1 none yet */
    rtinfo_t info;             /* what init lines said so far */
    acclog_t acc;
    int64_t acc_line;
    vlog_final_fn final;       /* told when a prefix of the runs will not change again */
    void *ctx;
    /* the bound (vlog_scan_bounded): bytes held in the line index, the runs and
     * their rows (sizeof each, capacities as allocated), less what final took */
    size_t budget, held, index_bytes;
    int credited;              /* runs [0, credited) already looked at after final */
    int64_t over;              /* the line where the bound was passed, 0 none */
    int64_t tk1_table;         /* the line of an RKNN-Toolkit 1.x eval_perf header, 0 none */
    int64_t galcore;           /* the line of RKNPU1's kernel driver galcore, 0 none */
    char buf[4096];            /* the current line, prefixes stripped */
    char piece[4096];          /* one vendor line of a glued line (glued_line) */
} scan_t;

/* The capacity of an array doubled from 1 that holds n. */
static size_t pow2_cap(int n)
{
    return n <= 1 ? (size_t)(n > 0) : (size_t)1 << (64 - __builtin_clzll((unsigned long long)n - 1));
}

/* What a run holds besides its slot, as charged when its parts came. */
static size_t run_rows_bytes(const vlog_run_t *r)
{
    size_t n = pow2_cap(r->n_dumps) * sizeof(vlog_dump_t) + (size_t)r->n_acc * sizeof(acclog_row_t) +
               (size_t)r->bench.n_perf * 4 * sizeof(double);
    n += r->errors_bytes;
    if (r->has_perf)
        n += (size_t)r->perf.n_rows * sizeof(perflog_row_t) + (size_t)r->perf.n_ops * sizeof(perflog_op_t);
    if (r->has_sram)
        n += (size_t)r->sram.n_rows * sizeof(sramlog_row_t);
    return n;
}

/* Whether n more bytes, and the next growth of the arrays that grow line by
 * line (runs, the current run's dumps, an accuracy table being read and its
 * copies), fit the bound; when not, the scan stops at lineno. */
static int fits(scan_t *sc, size_t n, int64_t lineno)
{
    const vlog_run_t *c = sc->cur >= 0 ? &sc->v->runs[sc->cur] : NULL;
    size_t grow = (size_t)sc->v->n_runs * sizeof(vlog_run_t) +
                  pow2_cap(sc->acc.n_rows) * sizeof(acclog_row_t) * 3 +
                  (c ? pow2_cap(c->n_dumps) * sizeof(vlog_dump_t) : 0);

    if (sc->over)
        return 0;
    if (sc->held > sc->budget || n + grow > sc->budget - sc->held) {
        sc->over = lineno > 0 ? lineno : 1;
        return 0;
    }
    return 1;
}

/* After final: the rows of the runs it took (vlog_run_move) are no longer held. */
static void credit_final(scan_t *sc, int n_final)
{
    for (; sc->credited < n_final; sc->credited++) {
        const vlog_run_t *r = &sc->v->runs[sc->credited];
        if (!r->perf.rows && !r->perf.ops && !r->sram.rows && !r->acc && !r->dumps &&
            !r->bench.perf_ms && !r->errors[0] && !r->warnings[0]) {
            size_t b = run_rows_bytes(r);
            sc->held -= b < sc->held ? b : sc->held;
        }
    }
}

static void count(scan_t *sc, int64_t lineno, int kind, const char *s)
{
    sc->v->kinds[kind]++;
    if (kind == VLOG_BAD && !sc->v->first_bad) {
        sc->v->first_bad = lineno;
        snprintf(sc->v->first_bad_text, sizeof sc->v->first_bad_text, "%s", s);
    }
    if ((kind == VLOG_APP || kind == VLOG_RUNTIME || kind == VLOG_TOOLKIT) && !sc->v->first_app)
        sc->v->first_app = lineno;
}

static vlog_run_t *new_run(scan_t *sc, int64_t lineno, int toolkit)
{
    vlog_t *v = sc->v;
    vlog_run_t *r;

    /* parts only ever go to the newest board run, so a new one ends all before it */
    if (!toolkit && sc->final && v->n_runs) {
        sc->final(sc->ctx, v, v->n_runs);
        credit_final(sc, v->n_runs);
    }
    if (!(v->n_runs & (v->n_runs - 1))) {
        v->runs = xrealloc(v->runs, (size_t)(v->n_runs ? v->n_runs * 2 : 1) * sizeof(*r));
        sc->held += (size_t)(v->n_runs ? v->n_runs : 1) * sizeof(*r);
    }
    r = &v->runs[v->n_runs++];
    memset(r, 0, sizeof(*r));
    r->toolkit = toolkit;
    r->first_line = (int)lineno;
    rtinfo_init(&r->info);
    if (!toolkit) {
        r->info = sc->info;
        sc->cur = v->n_runs - 1;
    } else { /* the simulator's half: the session's target and toolkit, not the board's runtime */
        memcpy(r->info.soc, sc->info.soc, sizeof r->info.soc);
        memcpy(r->info.toolkit_version, sc->info.toolkit_version, sizeof r->info.toolkit_version);
    }
    memlog_init(&r->mem);
    benchlog_init(&r->bench);
    return r;
}

static int run_has_data(const vlog_run_t *r)
{
    return r->has_perf || r->has_sram || r->has_mem || r->has_bench || r->acc || r->n_dumps ||
           r->n_errors;
}

/* a run that printed a time: per-layer rows, timed iterations or their average */
static int measured(const vlog_run_t *r)
{
    return (r->has_perf && r->perf.n_rows > 0) ||
           (r->has_bench && (r->bench.n_perf > 0 || r->bench.avg_ms >= 0));
}

/* The board run a part goes to: a new one when the current one has it already. */
static vlog_run_t *run_for(scan_t *sc, int64_t lineno, int has_it)
{
    if (sc->cur < 0 || has_it)
        return new_run(sc, lineno, 0);
    return &sc->v->runs[sc->cur];
}

static vlog_run_t *cur_run(scan_t *sc)
{
    return sc->cur < 0 ? NULL : &sc->v->runs[sc->cur];
}

/* Logger prefixes: the runtime's (tracer_strip_prefix), the kernel driver's in
 * dmesg (tracer_kernel_body), Android logcat ("MM-DD hh:mm:ss.mmm PID TID L RKNN    : ",
 * "... E/RKNN: "). *rt: a runtime line (the runtime's, rknn_server's or the driver's). */
static char *strip(char *s, int *rt)
{
    char *p = tracer_strip_prefix(s);

    *rt = p != s && strncmp(s, "---> ", 5) != 0;
    /* logcat -v brief: "E/RKNN    (12848): ..." */
    if (!*rt && s[0] && strchr("VDIWEF", s[0]) && s[1] == '/' && !strncmp(s + 2, "RKNN", 4)) {
        char *k = (char *)tracer_after_tag(s + 6, 1);
        if (k) {
            *rt = 1;
            return k + (*k == ' ');
        }
    }
    /* the kernel driver's lines in dmesg, as in logcat below */
    if (!*rt) {
        const char *k = tracer_kernel_body(s);
        if (k) {
            *rt = 1;
            return (char *)k;
        }
    }
    /* Android logcat: the runtime's tag RKNN, rknn_server's SERVER, the kernel
     * driver's RKNPU; -v threadtime ("PID TID L TAG     : "), -v time ("L/TAG
     * ( PID): ") */
    if (!*rt && isdigit((unsigned char)s[0]) && (s[2] == '-' || s[4] == '-')) {
        static const char *const tags[] = {" RKNN", "/RKNN", " SERVER", " RKNPU"};
        char *k = NULL;
        for (size_t i = 0; !k && i < sizeof tags / sizeof tags[0]; i++)
            if ((k = strstr(s, tags[i])))
                k += strlen(tags[i]);
        if (k && (k = (char *)tracer_after_tag(k, 1))) {
            p = k + (*k == ' ');
            *rt = 1;
        }
    }
    return p;
}

static void flush_acc(scan_t *sc)
{
    acclog_t *a = &sc->acc;
    int sides[2] = {a->has_sim, a->has_rt};

    if (!a->in_table) {
        acclog_free(a);
        return;
    }
    for (int side = 0; side < 2; side++) {
        vlog_run_t *r;
        int off = side && a->has_sim ? 2 : 0;
        if (!sides[side])
            continue;
        if (side == 0) {
            r = new_run(sc, sc->acc_line, 1);
        } else {
            vlog_run_t *c = cur_run(sc);
            r = run_for(sc, sc->acc_line, c && c->acc);
        }
        r->acc = xmalloc((size_t)(a->n_rows ? a->n_rows : 1) * sizeof(*r->acc));
        r->n_acc = a->n_rows;
        sc->held += (size_t)a->n_rows * sizeof(*r->acc);
        for (int i = 0; i < a->n_rows; i++) {
            acclog_row_t x = a->rows[i];
            for (int k = 0; k < 4; k++) {
                int from = k < 2 ? off + k : -1;
                x.cos[k] = from >= 0 && from < 4 ? a->rows[i].cos[from] : NAN;
                x.euc[k] = from >= 0 && from < 4 ? a->rows[i].euc[from] : NAN;
            }
            x.n_cells = a->rows[i].n_cells > off ? a->rows[i].n_cells - off : 0;
            if (x.n_cells > 2)
                x.n_cells = 2;
            r->acc[i] = x;
        }
    }
    acclog_free(a);
}

int vlog_parse_dump_name(const char *path, vlog_dump_t *d)
{
    const char *file = strrchr(path, '/'), *p, *sh = NULL, *end, *last = NULL;
    size_t len;
    int idx = 0, nd = 0;

    memset(d, 0, sizeof(*d));
    file = file ? file + 1 : path;
    len = strlen(file);
    if (len < 5 || strcmp(file + len - 4, ".npy") || strlen(path) >= sizeof d->path)
        return -1;
    for (p = file; isdigit((unsigned char)*p) && nd < 6; p++, nd++)
        idx = idx * 10 + (*p - '0');
    if (nd < 3 || *p != '_')
        return -1;
    const char *op0 = ++p;
    while (*p && *p != '_')
        p++;
    if (*p != '_' || p == op0 || p - op0 >= (long)sizeof d->op)
        return -1;
    const char *t0 = p + 1;
    for (const char *q = t0; (q = strstr(q, "_shape_")) != NULL; q++)
        sh = q; /* the last "_shape_" ends the tensor name, which may hold '_' */
    if (!sh || sh == t0 || sh - t0 >= (long)sizeof d->name)
        return -1;
    end = file + len - 4;
    for (const char *q = sh + 7; q < end; q++)
        if (*q == '_')
            last = q;
    if (!last || end - last - 1 <= 0 || end - last - 1 >= (long)sizeof d->dtype)
        return -1;
    for (const char *q = sh + 7; q < last;) {
        long long v = 0;
        int digits = 0;
        while (q < last && isdigit((unsigned char)*q) && digits < 18)
            v = v * 10 + (*q++ - '0'), digits++;
        if (!digits || d->n_dims == 8 || (q < last && *q != '_'))
            return -1;
        d->dims[d->n_dims++] = v;
        if (q < last)
            q++;
    }
    d->index = idx;
    snprintf(d->op, sizeof d->op, "%.*s", (int)(t0 - 1 - op0), op0);
    snprintf(d->name, sizeof d->name, "%.*s", (int)(sh - t0), t0);
    snprintf(d->dtype, sizeof d->dtype, "%.*s", (int)(end - last - 1), last + 1);
    snprintf(d->path, sizeof d->path, "%s", path);
    return 0;
}

/* ---- tables spanning several lines ---- */

static int first_token_int(const char *s)
{
    if (!isdigit((unsigned char)*s))
        return 0;
    while (isdigit((unsigned char)*s))
        s++;
    return *s == ' ' || *s == '\t' || !*s;
}

/* A row with no header before it (a copied excerpt): ID OpType DataType Target. */
static int headerless_row(const char *s, int *compact)
{
    char id[16], op[48], dt[16], tg[8], in[256], out[128], cyc[64];
    static const char *const dts[] = {"INT8", "UINT8", "INT16", "FLOAT16", "FLOAT", "INT32",
                                      "BFLOAT16", NULL};
    int ok = 0;

    /* most lines are no row: the cheap test first */
    if (!first_token_int(s) ||
        sscanf(s, "%15s %47s %15s %7s %255s %127s %63s", id, op, dt, tg, in, out, cyc) != 7)
        return 0;
    for (int i = 0; dts[i]; i++)
        ok |= !strcmp(dt, dts[i]);
    if (!ok || (strcmp(tg, "NPU") && strcmp(tg, "CPU") && strcmp(tg, "GPU")))
        return 0;
    *compact = strchr(cyc, '/') != NULL;
    return 1;
}

typedef int (*line_fn)(const char *s, int *state);

static char *line_text(scan_t *sc, const line_t *line, int *rt)
{
    line_t in = *line;
    const line_t *l = &in;
    size_t n;
    char *t;

    /* a Markdown quote ("> E RKNN: ...", a lone ">" for its blank line, rknn-llm issue
     * 232), nested or not: the line quoted */
    while (in.s < in.e && in.s[0] == '>' && (in.e - in.s == 1 || in.s[1] == ' '))
        in.s += in.e - in.s == 1 ? 1 : 2;
    /* a system log's line (journalctl, syslog): what the program printed */
    in.s += tracer_syslog_prefix(in.s, (size_t)(in.e - in.s));
    /* an indented paste (a Markdown code block, a list item's): the line itself */
    while (in.s < in.e && (in.s[0] == ' ' || in.s[0] == '\t'))
        in.s++;
    n = (size_t)(l->e - l->s);
    if (n >= sizeof sc->buf)
        n = sizeof sc->buf - 1;
    /* a line pasted as inline code in an issue (`E RKNN: ...`): the text inside */
    if (n >= 3 && l->s[0] == '`' && l->s[1] != '`' && l->e[-1] == '`' &&
        !memchr(l->s + 1, '`', n - 2)) {
        memcpy(sc->buf, l->s + 1, n - 2);
        n -= 2;
    } else {
        memcpy(sc->buf, l->s, n);
    }
    sc->buf[n] = 0;
    tracer_fullwidth_prefixes(sc->buf, n);
    t = strip(sc->buf, rt);
    while (*t == ' ' || *t == '\t')
        t++;
    return t;
}

/* Lines [i, j) as the scanner reads them (line_text: logcat's, dmesg's and the
 * runtime's prefixes, Markdown quotes and code cut), one per line after head:
 * what the table parsers read, so that a table under any prefix the scanner
 * knows is read as the scanner saw it. No longer than the raw lines and head. */
static char *segment_text(scan_t *sc, const line_t *L, int i, int j, const char *head,
                          size_t *len)
{
    size_t hl = head ? strlen(head) : 0, o = hl;
    char *text = xmalloc(hl + (size_t)(L[j - 1].e - L[i].s) + 2);
    int rt;
    memcpy(text, head ? head : "", hl);
    for (int k = i; k < j; k++) {
        const char *t = line_text(sc, &L[k], &rt);
        size_t n = strlen(t);
        memcpy(text + o, t, n);
        o += n;
        text[o++] = '\n';
    }
    text[o] = 0;
    *len = o;
    return text;
}

/* The per-layer table the toolkit prints while it builds (rknn.build() with
 * verbose, shared/data/logs/buildlog-*): rows whose every time, cycle count and
 * workload is 0 or absent. A board's table has a layer that took time. */
static int build_table(const perflog_table_t *t)
{
    for (int k = 0; k < t->n_rows; k++) {
        const perflog_row_t *r = &t->rows[k];
        if (r->time_us > 0 || r->ddr > 0 || r->npu > 0 || r->total > 0)
            return 0;
        for (int w = 0; w < r->n_wl; w++)
            if (r->wl[w] > 0)
                return 0;
    }
    return t->n_rows > 0;
}

/* A per-layer table with no totals line after it that may have lost rows: a
 * measured one (a layer took time or had a workload: the runtime prints its
 * totals under it) or one with no rows at all. The toolkit's build tables (no
 * time or workload, or all 0) end without totals. */
static int may_be_cut(const perflog_table_t *t)
{
    for (int k = 0; k < t->n_rows; k++) {
        const perflog_row_t *r = &t->rows[k];
        if (r->time_us > 0)
            return 1;
        for (int w = 0; w < r->n_wl; w++)
            if (r->wl[w] > 0)
                return 1;
    }
    return !t->n_rows;
}

enum { WRAP_NONE, WRAP_ROW, WRAP_HEADER };

/* Line j, not a table's line by itself, as a wrapped end: after a table's
 * row or header (line j - 1; or a wrapped end of prev's kind before it), and
 * before its next row, ruler or total (a pasted table may lack the ruler
 * above its total), fewer than PERFLOG_JOIN_MAX more wrapped or blank lines
 * (a logger's prefix alone too) in between, as perflog_parse joins them. A per-layer table's rows start
 * with their ID, a ranking table's (ranking) with their OpType. Which line's
 * end it is, WRAP_NONE when none. */
static int wrap_between(scan_t *sc, const line_t *L, int n, int j, int prev, int ranking)
{
    int rt, kind = prev;
    char *t;
    if (!kind) {
        t = line_text(sc, &L[j - 1], &rt);
        if (ranking)
            kind = perflog_is_op_rowlike(t) ? WRAP_ROW
                 : perflog_is_ranking_header(t) ? WRAP_HEADER : WRAP_NONE;
        else
            kind = first_token_int(t) ? WRAP_ROW : perflog_is_header(t) ? WRAP_HEADER : WRAP_NONE;
        if (!kind)
            return WRAP_NONE;
    }
    for (int k = j + 1; k < n && k <= j + PERFLOG_JOIN_MAX; k++) {
        t = line_text(sc, &L[k], &rt);
        if ((ranking ? perflog_is_op_rowlike(t) : first_token_int(t)) || perflog_is_ruler(t) ||
            perflog_is_total(t))
            return kind;
        if (*t && (rt || perflog_is_header(t) || perflog_is_ranking_header(t)))
            return WRAP_NONE;
    }
    return WRAP_NONE;
}

/* Lines i.. that belong to a per-layer / ranking table; returns the line after. */
static int perf_segment(scan_t *sc, const line_t *L, int n, int i, const char *synth_header)
{
    int j, rt, ranking = 0, rowlike = 0, oplines = 0, totals = 0, layout = 0, elided = 0;
    perflog_table_t *tabs = NULL;
    int ntab = 0, used_rows = 0, used_ops = 0, first_bad = 0;
    int rank_open = 0, rank_rows = 0; /* a ranking table not closed yet, its rows so far */
    int wrapped = WRAP_NONE;        /* line j - 1 was a wrapped end, of that kind */
    int wraps = 0, interleaved = 0; /* rows' wrapped ends taken, and none of them */
    char err[128];

    for (j = i; j < n; j++) {
        char *t = line_text(sc, &L[j], &rt);
        int prev_wrap = wrapped;
        wrapped = WRAP_NONE;
        if (!*t || perflog_is_ruler(t) || perflog_is_title(t)) {
            if (ranking && rank_rows && perflog_is_ruler(t))
                rank_open = 0; /* the ruler under its rows */
            layout++;
            continue;
        }
        if (perflog_is_header(t)) {
            ranking = 0, layout++;
            continue;
        }
        if (perflog_is_ranking_header(t)) {
            ranking = 1, layout++;
            rank_open = 1, rank_rows = 0;
            continue;
        }
        if (perflog_is_elided(t)) {
            elided++;
            continue;
        }
        if (perflog_is_total(t)) {
            totals++;
            continue;
        }
        if (!ranking && first_token_int(t)) {
            rowlike++;
            continue;
        }
        if (ranking && perflog_is_op_rowlike(t)) {
            oplines++;
            rank_rows++;
            if (!strncmp(t, "Total ", 6))
                rank_open = 0;
            continue;
        }
        /* a header's or a row's end that a terminal or a web page wrapped to a
         * line of its own (FullName, a ratio): no logger's line, between the
         * header or a row and the table's next row or ruler (perflog_parse
         * joins it) */
        if (!rt && j > i && j + 1 < n &&
            (wrapped = wrap_between(sc, L, n, j, prev_wrap, ranking)) != WRAP_NONE) {
            /* counted as the line it ends: a row's, or the header's (layout) */
            if (wrapped == WRAP_ROW && ranking)
                oplines++;
            else if (wrapped == WRAP_ROW)
                rowlike++, wraps++;
            else
                layout++;
            continue;
        }
        break;
    }
    /* trailing blank lines and rulers are nobody's: leave them to the caller */
    while (j > i + 1) {
        char *t = line_text(sc, &L[j - 1], &rt);
        if (*t && !perflog_is_ruler(t))
            break;
        j--, layout--;
    }
    /* the table's text is copied and its rows parsed: both must fit the bound */
    if (!fits(sc, (size_t)(L[j - 1].e - L[i].s) + (size_t)(rowlike + oplines) * 2 *
                      (sizeof(perflog_row_t) + sizeof(perflog_op_t)), i + 1))
        return j;
    {
        size_t tl;
        char *text = segment_text(sc, L, i, j, synth_header, &tl);
        if (perflog_parse(text, tl, &tabs, &ntab, err, sizeof err) != 0)
            ntab = 0;
        free(text);
    }
    for (int k = 0; k < ntab; k++) {
        perflog_table_t *t = &tabs[k];
        vlog_run_t *c = cur_run(sc), *r;
        /* a ranking table completes the per-layer table just read */
        if (c && c->has_perf && !c->perf.n_ops && t->n_ops && !t->n_rows && !t->generation) {
            c->perf.ops = t->ops, c->perf.n_ops = t->n_ops, c->perf.has_total_op = t->has_total_op;
            sc->held += (size_t)t->n_ops * sizeof(perflog_op_t);
            if (c->perf.total_time_us < 0)
                c->perf.total_time_us = t->total_time_us;
            if (t->first_bad_line) {
                int at = i + t->first_bad_line - 1 - (synth_header != NULL);
                if (at >= i && at < j && (!first_bad || at + 1 < first_bad))
                    first_bad = at + 1;
            }
            used_ops += t->n_ops + t->n_joined; /* and its rows' wrapped ends */
            free(t->rows);
            continue;
        }
        /* the text's line of the first row not read (the synthetic header is one line) */
        if (t->first_bad_line) {
            int at = i + t->first_bad_line - 1 - (synth_header != NULL);
            if (at >= i && at < j && (!first_bad || at + 1 < first_bad))
                first_bad = at + 1;
        }
        if (t->generation && t->total_time_us < 0 && may_be_cut(t) && !sc->v->untotalled_layers)
            sc->v->untotalled_layers = j + 1;
        r = run_for(sc, i + 1, c && c->has_perf);
        r->has_perf = 1;
        r->perf = *t;
        r->build |= t->generation && t->n_rows && t->total_time_us < 0 && build_table(t);
        sc->held += (size_t)t->n_rows * sizeof(perflog_row_t) + (size_t)t->n_ops * sizeof(perflog_op_t);
        if (r->perf.total_time_us < 0 && t->has_total_op) /* a ranking table's Total row */
            r->perf.total_time_us = t->ops[t->n_ops - 1].total_us;
        used_rows += t->n_rows + t->n_joined;
        used_ops += t->n_ops;
        interleaved += t->n_interleaved;
    }
    free(tabs);
    /* row lines counted here, and those the tables used (never more: each
     * line once) */
    int row_lines = rowlike + oplines, used = used_rows + used_ops;
    used = used < row_lines ? used : row_lines;
    /* a line taken for a wrapped end that no row took: text between the rows
     * (of the row lines not used; the parser may call interleaved a line
     * counted here as layout) */
    if (interleaved > wraps)
        interleaved = wraps;
    if (interleaved > row_lines - used)
        interleaved = row_lines - used;
    row_lines -= interleaved;
    sc->v->kinds[VLOG_APP] += interleaved;
    sc->v->kinds[VLOG_LAYOUT] += layout;
    sc->v->kinds[VLOG_ELIDED] += elided;
    sc->v->kinds[VLOG_USED] += totals + used;
    if (row_lines > used) {
        /* name the first row-like line that no table took */
        int bad = row_lines - used;
        if (!sc->v->first_bad && first_bad) {
            char *t = line_text(sc, &L[first_bad - 1], &rt);
            sc->v->first_bad = first_bad;
            snprintf(sc->v->first_bad_text, sizeof sc->v->first_bad_text, "%s", t);
        }
        if (!sc->v->first_bad) {
            for (int k = j - 1; k >= i; k--) {
                char *t = line_text(sc, &L[k], &rt);
                if (first_token_int(t) || isalpha((unsigned char)*t)) {
                    sc->v->first_bad = k + 1;
                    snprintf(sc->v->first_bad_text, sizeof sc->v->first_bad_text, "%s", t);
                    break;
                }
            }
        }
        sc->v->kinds[VLOG_BAD] += bad;
    }
    if (rank_open && !sc->v->unclosed_ranking)
        sc->v->unclosed_ranking = j + 1;
    return j;
}

static int is_sram_start(const char *t)
{
    return !strncmp(t, "Total allocated ", 16) ||
           (!strncmp(t, "ID ", 3) && strstr(t, " User ") && strstr(t, " Tensor "));
}

static int is_sram_footer(const char *t)
{
    return !strncmp(t, "Total Weight Memory Size:", 25) ||
           !strncmp(t, "Total Internal Memory Size:", 27) || !strncmp(t, "Predict ", 8);
}

static int sram_segment(scan_t *sc, const line_t *L, int n, int i)
{
    int j, rt, rowlike = 0, used = 0, layout = 0;
    sramlog_table_t *tabs = NULL;
    int ntab = 0;
    char err[128];

    for (j = i; j < n; j++) {
        char *t = line_text(sc, &L[j], &rt);
        if (!*t || perflog_is_ruler(t) || (!strncmp(t, "ID ", 3) && strstr(t, " User "))) {
            layout++;
            continue;
        }
        if (!strncmp(t, "Total allocated ", 16) || is_sram_footer(t)) {
            used++;
            continue;
        }
        if (first_token_int(t)) {
            rowlike++;
            continue;
        }
        break;
    }
    while (j > i + 1) {
        char *t = line_text(sc, &L[j - 1], &rt);
        if (*t && !perflog_is_ruler(t))
            break;
        j--, layout--;
    }
    if (!fits(sc, (size_t)rowlike * 2 * sizeof(sramlog_row_t), i + 1))
        return j;
    size_t tl;
    char *text = segment_text(sc, L, i, j, NULL, &tl);
    if (sramlog_parse(text, tl, &tabs, &ntab, err, sizeof err) != 0)
        ntab = 0;
    free(text);
    for (int k = 0; k < ntab; k++) {
        vlog_run_t *c = cur_run(sc);
        /* level 3 prints the SRAM table at init: after a per-layer table it opens the next run */
        vlog_run_t *r = run_for(sc, i + 1, c && (c->has_sram || c->has_perf));
        r->has_sram = 1;
        r->sram = tabs[k];
        sc->held += (size_t)tabs[k].n_rows * sizeof(sramlog_row_t);
        used += tabs[k].n_rows;
        rowlike -= tabs[k].n_rows;
    }
    free(tabs);
    sc->v->kinds[VLOG_LAYOUT] += layout;
    sc->v->kinds[VLOG_USED] += used;
    if (rowlike > 0) {
        sc->v->kinds[VLOG_BAD] += rowlike;
        if (!sc->v->first_bad) {
            sc->v->first_bad = i + 1;
            snprintf(sc->v->first_bad_text, sizeof sc->v->first_bad_text, "SRAM table row");
        }
    }
    return j;
}

/* ---- single lines ---- */

static int is_toolkit(const char *raw, const char *t)
{
    /* the toolkit's Python logger: "I text", "W func: text", "E func: text", "D text" */
    if (strchr("IWEDT", raw[0]) && raw[1] == ' ' && raw[2] && raw[2] != ' ')
        return 1;
    return !strncmp(raw, "I NPUTransfer", 13) || !strncmp(raw, "D NPUTransfer", 13) ||
           !strncmp(t, "Warning: The performance result", 31) || !strncmp(t, "####", 4) ||
           !strncmp(t, "start rknn server", 17) ||
           !strncmp(t, "Save output to ", 15);
}

/* The toolkit's build on a PC (rknn.build()): "I rknn building ..." opens it (1),
 * "I rknn building done." ends it (2; older toolkits print "buiding"); 0 otherwise. */
static int build_marker(const char *raw)
{
    if (strncmp(raw, "I rknn building", 15) && strncmp(raw, "I rknn buiding", 14))
        return 0;
    return strstr(raw, " done") ? 2 : 1;
}

/* A build: a run of its own, the compiler's (the toolkit backend), not a board's.
 * A build that printed "done" finished: the E lines before it do not fail it
 * ("Unkown op target: 0" is logged for an op moved to the CPU, airockchip/rknn-toolkit2
 * issue 559). Whatever follows "done" (init_runtime on a board) is another run. */
static int build_line(scan_t *sc, int64_t lineno, int kind)
{
    vlog_run_t *c = cur_run(sc), *r;

    if (kind == 2 && !c)
        return 0; /* the end of a build the log did not show: nothing to keep */
    if (kind == 1)
        r = run_for(sc, lineno, c && (c->build || run_has_data(c) || c->info.runtime_version[0]));
    else
        r = c;
    r->build = 1;
    if (kind == 2) {
        r->failed = 0;
        sc->cur = -1;
    }
    return 1;
}

static void one_line(scan_t *sc, int64_t lineno, char *raw, char *t, int rt)
{
    int f = sc->formats, k;
    vlog_run_t *c = cur_run(sc);

    if (sc->acc.in_table && (f & VLOG_F_ACC)) {
        k = acclog_line(&sc->acc, t);
        if (k < 0) {
            count(sc, lineno, VLOG_BAD, t);
            return;
        }
        if (k > 0 && !acclog_is_header(t)) {
            count(sc, lineno, VLOG_USED, t);
            return;
        }
    }
    if ((f & VLOG_F_ACC) && acclog_is_header(t)) {
        flush_acc(sc);
        sc->acc_line = lineno;
        acclog_line(&sc->acc, t);
        count(sc, lineno, VLOG_LAYOUT, t);
        return;
    }
    if (perflog_is_ruler(t) || perflog_is_title(t) ||
        !strcmp(t, "Memory Profile Info Dump")) {
        if (!strcmp(t, "Memory Profile Info Dump") && (f & VLOG_F_MEMORY)) {
            vlog_run_t *r = run_for(sc, lineno, c && c->has_mem);
            memlog_line(&r->mem, t);
            r->has_mem = 1;
        }
        count(sc, lineno, VLOG_LAYOUT, t);
        return;
    }
    /* eval_perf's banner above its table: a caveat, nothing to read */
    if (!strncmp(t, "Warning: The performance result is just for debugging", 53)) {
        count(sc, lineno, VLOG_LAYOUT, t);
        return;
    }
    if (t[0] == '#' && tracer_is_comment(t, strlen(t))) {
        count(sc, lineno, VLOG_COMMENT, t);
        return;
    }
    if (perflog_is_elided(t)) {
        count(sc, lineno, VLOG_ELIDED, t);
        return;
    }
    if (f & VLOG_F_INFO) {
        char *ti = t, tr[512];
        /* the toolkit's version box, at any level (1.x prints it with E) */
        if ((raw[0] == 'D' || raw[0] == 'I' || raw[0] == 'E') && !strncmp(raw + 1, " RKNNAPI:", 9))
            for (ti = raw + 10; *ti == ' ';)
                ti++;
        /* a browser's Chinese translation of the runtime's information lines */
        if (rtinfo_translated(ti, tr, sizeof tr))
            ti = tr;
        /* a new toolkit session (its version line; the E form repeats it in an error
         * block): what followed the previous one is another run, none of its facts this one's */
        if (rtinfo_is_session_line(ti) && c && (run_has_data(c) || rtinfo_has_runtime(&sc->info))) {
            rtinfo_init(&sc->info);
            c = NULL, sc->cur = -1;
        }
        /* a new runtime context: the next part is a new run, and the previous
         * runtime's versions are not this one's (a bare line names no build or driver) */
        if (rtinfo_is_runtime_line(&sc->info, ti) &&
            (rtinfo_has_runtime(&sc->info) || (c && run_has_data(c)))) {
            rtinfo_new_context(&sc->info);
            c = NULL, sc->cur = -1;
        }
        if (rtinfo_line(&sc->info, ti)) {
            if (c)
                c->info = sc->info;
            else
                c = new_run(sc, lineno, 0);
            if (!strncmp(ti, "librknnc version:", 17)) /* the compiler's library: a build */
                c->build = 1;
            count(sc, lineno, VLOG_USED, t);
            return;
        }
    }
    if ((k = build_marker(raw)) != 0) {
        count(sc, lineno, build_line(sc, lineno, k) ? VLOG_USED : VLOG_TOOLKIT, t);
        return;
    }
    if ((f & VLOG_F_MEMORY) && c && c->has_mem && c->mem.active && memlog_line(&c->mem, t)) {
        count(sc, lineno, VLOG_USED, t);
        return;
    }
    if (f & VLOG_F_BENCH) {
        int starts = !strncmp(t, "rknn_api/rknnrt version:", 24) || !strncmp(t, "Avg Time ", 9) ||
                     !strncmp(t, "once run use ", 13) || !strncmp(t, "loop count = ", 13) ||
                     !strncmp(t, "Total Time(us): ", 16) ||
                     !strncmp(t, "Average inference Time(us): ", 28);
        /* a benchmark pasted without its header: its sections and timed lines open it */
        if (!starts && (!c || !c->has_bench))
            starts = !strcmp(t, "Begin perf ...") || !strcmp(t, "Warmup ...") ||
                     (isdigit((unsigned char)t[0]) && strstr(t, ": Elapse Time = "));
        benchlog_t probe;
        if (starts || (c && c->has_bench)) {
            vlog_run_t *r = c;
            /* the Avg / "loop count" line closes the run it follows */
            int closing = !strncmp(t, "Avg", 3) || !strncmp(t, "loop count = ", 13);
            if (starts && (!c || (c->has_bench && !closing) ||
                           (c->has_bench && c->bench.avg_ms >= 0))) {
                benchlog_init(&probe);
                if (benchlog_line(&probe, t)) {
                    r = run_for(sc, lineno, c && c->has_bench);
                    c = r;
                }
                benchlog_free(&probe);
            }
            int n_perf = r ? r->bench.n_perf : 0;
            if (r && benchlog_line(&r->bench, t)) {
                r->has_bench = 1;
                sc->held += (size_t)(r->bench.n_perf - n_perf) * 4 * sizeof(double);
                count(sc, lineno, VLOG_USED, t);
                return;
            }
        }
    }
    if ((f & VLOG_F_DUMPS) && !strncmp(t, "dump npy tensor to:", 19)) {
        vlog_dump_t d;
        const char *p = t + 19;
        while (*p == ' ')
            p++;
        if (vlog_parse_dump_name(p, &d) == 0) {
            vlog_run_t *r = run_for(sc, lineno, 0);
            if (!(r->n_dumps & (r->n_dumps - 1))) {
                r->dumps = xrealloc(r->dumps, (size_t)(r->n_dumps ? r->n_dumps * 2 : 1) *
                                                  sizeof(*r->dumps));
                sc->held += (size_t)(r->n_dumps ? r->n_dumps : 1) * sizeof(*r->dumps);
            }
            r->dumps[r->n_dumps++] = d;
            count(sc, lineno, VLOG_USED, t);
        } else {
            count(sc, lineno, VLOG_BAD, t);
        }
        return;
    }
    /* the runtime's message pasted without its prefix, after other words ("报错提示Not
     * support core mask: 7, fallback to single core auto mode", rknpu2 issue 105): the
     * few whose words name the runtime alone are its error line from there */
    if ((f & VLOG_F_ERRORS) && !rt && !errlog_is_error(raw, t)) {
        const char *m = errlog_bare_message(t);
        if (m)
            raw = t = (char *)m;
    }
    if ((f & VLOG_F_ERRORS) && errlog_is_error(raw, t)) {
        /* an error ends nothing by itself: it goes to the run it happened in; the
         * compiler's failed pass ("failed to run pass: rknn::RKNNAddSecondaryNode",
         * rknn.build() on a PC) makes it a build, after a board's run a new one */
        int pass = strstr(raw, "failed to run pass: rknn::") != NULL;
        vlog_run_t *r = run_for(sc, lineno, pass && c && !c->build &&
                                                (c->has_perf || c->has_bench || c->has_mem ||
                                                 c->acc || c->info.runtime_version[0]));
        int fatal = 1;
        r->build |= pass;
        errlog_diagnosis(raw, &fatal);
        /* the runtime names the board's chip when it refuses a model built for another */
        if (rtinfo_error_line(&sc->info, raw))
            memcpy(r->info.soc, sc->info.soc, sizeof r->info.soc);
        if (r->n_errors < VLOG_MAX_ERRORS) {
            r->errors[r->n_errors] = xstrdup(raw);
            r->errors_bytes += strlen(raw) + 1;
            sc->held += strlen(raw) + 1;
        }
        r->n_errors++;
        r->failed |= fatal;
        count(sc, lineno, VLOG_USED, t);
        return;
    }
    /* the process's death while a run is open (the shell's "Aborted", a native
     * library's fatal error, the backtrace's frame inside the API once the run has
     * an error): the run's error lines; with no run, nobody's. It fails a run that
     * measured nothing; timings printed before it were measured, and stand (a crash
     * in the application's post-processing or at release comes after them) */
    if ((f & VLOG_F_ERRORS) && c && !rt && errlog_process_death(t) &&
        (t[0] != '#' || c->n_errors)) {
        if (c->n_errors < VLOG_MAX_ERRORS) {
            c->errors[c->n_errors] = xstrdup(t);
            c->errors_bytes += strlen(t) + 1;
            sc->held += strlen(t) + 1;
        }
        c->n_errors++;
        c->failed |= !measured(c);
        count(sc, lineno, VLOG_USED, t);
        return;
    }
    /* a known warning of the runtime: kept with its run, which it does not fail */
    if ((f & VLOG_F_ERRORS) && rt && errlog_warning(raw)) {
        vlog_run_t *r = run_for(sc, lineno, 0);
        if (r->n_warnings < VLOG_MAX_ERRORS) {
            r->warnings[r->n_warnings] = xstrdup(raw);
            r->errors_bytes += strlen(raw) + 1;
            sc->held += strlen(raw) + 1;
        }
        r->n_warnings++;
        count(sc, lineno, VLOG_USED, t);
        return;
    }
    /* RKLLM's own logger ("I rkllm: loading rkllm model from ...") is a runtime's */
    if (rt || (raw[0] && strchr("IWED", raw[0]) && !strncmp(raw + 1, " rkllm: ", 8))) {
        count(sc, lineno, VLOG_RUNTIME, t);
        return;
    }
    /* a demo's Top-5 ("---- Top5 ----", "0.415283 - 283" after rknn_common_test's
     * timings) is the application's output */
    if (!strncmp(t, "---- Top", 8) ||
        (c && c->has_bench && isdigit((unsigned char)t[0]) && strstr(t, " - "))) {
        count(sc, lineno, VLOG_APP, t);
        return;
    }
    if (is_toolkit(raw, t)) {
        count(sc, lineno, VLOG_TOOLKIT, t);
        return;
    }
    count(sc, lineno, VLOG_APP, t);
}

/* A line a paste glued several lines into, its breaks lost ("--> Initializing NPU
 * Runtime on RK3576...I RKNN: [16:34:14.740] RKNN Runtime Information, ...I RKNN:
 * [16:34:14.741] RKNN Driver Information, version: 0.9.8"): cut before every vendor
 * prefix (tracer_vendor_prefix_at) that follows other text, not a letter, and read
 * as the lines it holds, all with the line's number. Table rows never come here
 * (their segments are read before). The line counts once: bad if a piece is, else
 * as its first piece not read, else used if one is. 0 when the line is no such line. */
static int glued_line(scan_t *sc, int64_t lineno, const char *raw, const char *t)
{
    enum { MAX_CUTS = 64 };
    size_t cut[MAX_CUTS + 1];
    int n = 0, bad = 0, used = 0, unread = -1, first = -1;
    int64_t before[VLOG_NKINDS];

    if (t[0] == '#' && tracer_is_comment(t, strlen(t)))
        return 0; /* a note that quotes glued lines stays a note */
    if (!strstr(t, " RKNN") && !strstr(t, " rkllm"))
        return 0; /* most lines: no tag to cut before */
    for (const char *p = t + (*t != 0); *p && n < MAX_CUTS; p++) {
        int fw;
        if (!isalpha((unsigned char)p[-1]) && tracer_vendor_prefix_at(p, &fw))
            cut[n++] = (size_t)(p - raw);
    }
    if (!n)
        return 0;
    cut[n] = strlen(raw);
    memcpy(before, sc->v->kinds, sizeof before);
    for (int k = 0; k <= n; k++) {
        size_t a = k ? cut[k - 1] : 0, b = cut[k];
        int64_t was[VLOG_NKINDS];
        int prt, got = -1;
        while (b > a && (raw[b - 1] == ' ' || raw[b - 1] == '\t'))
            b--;
        memcpy(sc->piece, raw + a, b - a);
        sc->piece[b - a] = 0;
        char *pt = strip(sc->piece, &prt);
        while (*pt == ' ' || *pt == '\t')
            pt++;
        if (!*pt)
            continue;
        memcpy(was, sc->v->kinds, sizeof was);
        one_line(sc, lineno, sc->piece, pt, prt);
        for (int j = 0; j < VLOG_NKINDS && got < 0; j++)
            if (sc->v->kinds[j] != was[j])
                got = j;
        if (first < 0)
            first = got;
        bad |= got == VLOG_BAD;
        used |= got == VLOG_USED;
        if (unread < 0 && (got == VLOG_APP || got == VLOG_RUNTIME || got == VLOG_TOOLKIT))
            unread = got;
    }
    memcpy(sc->v->kinds, before, sizeof before);
    count(sc, lineno, bad ? VLOG_BAD : unread >= 0 ? unread : used ? VLOG_USED
                      : first >= 0 ? first : VLOG_LAYOUT, t);
    return 1;
}

static int is_binary_byte(unsigned char ch)
{
    return ch == 0 || (ch < 0x20 && ch != '\n' && ch != '\r' && ch != '\t' && ch != '\f' &&
                       ch != 0x1b);
}

static int binary_at(const char *text, size_t len, size_t *at)
{
    size_t i = 0;

    while (i < len) {
        /* eight bytes at a time while none is below 0x20 (newlines stop it) */
        for (; i + 8 <= len; i += 8) {
            uint64_t x;
            memcpy(&x, text + i, 8);
            if (((x - 0x2020202020202020ull) & ~x & 0x8080808080808080ull) != 0)
                break;
        }
        size_t end = i + 8 < len ? i + 8 : len;
        for (; i < end; i++)
            if (is_binary_byte((unsigned char)text[i])) {
                *at = i;
                return 1;
            }
    }
    return 0;
}

int vlog_binary_at(const char *text, size_t len, size_t *at)
{
    return binary_at(text, len, at);
}

int vlog_scan(const char *text, size_t len, int formats, vlog_t *v, char *err, size_t errlen)
{
    return vlog_scan_bounded(text, len, formats, NULL, NULL, NULL, v, err, errlen);
}

int vlog_scan_each(const char *text, size_t len, int formats, vlog_final_fn final, void *ctx,
                   vlog_t *v, char *err, size_t errlen)
{
    return vlog_scan_bounded(text, len, formats, NULL, final, ctx, v, err, errlen);
}

int vlog_scan_bounded(const char *text, size_t len, int formats, size_t *budget,
                      vlog_final_fn final, void *ctx, vlog_t *v, char *err, size_t errlen)
{
    scan_t *sc = xcalloc(1, sizeof(*sc));
    line_t *L = NULL;
    char *plain = NULL; /* the text without escape sequences, when it has them */
    int n = 0, cap = 0, rc = 0;
    size_t at;

    memset(v, 0, sizeof(*v));
    sc->v = v;
    sc->formats = formats;
    sc->final = final;
    sc->ctx = ctx;
    sc->cur = -1;
    sc->budget = budget ? *budget : SIZE_MAX;
    rtinfo_init(&sc->info);
    acclog_init(&sc->acc);
    if (binary_at(text, len, &at)) {
        rc = rt_err(err, errlen, RT_EFORMAT, "not a text log: binary byte 0x%02x at offset %zu",
                    (unsigned char)text[at], at);
        goto out;
    }
    /* a UTF-8 byte-order mark (an editor's) is no part of the first line */
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
        text += 3, len -= 3;
    /* a log with the terminal's colours: every parser reads it without them */
    if (memchr(text, 0x1b, len)) {
        if (len + 1 > sc->budget - sc->held) {
            sc->over = 1;
            goto over;
        }
        plain = xmalloc(len + 1);
        memcpy(plain, text, len);
        plain[len] = 0;
        sc->held += len + 1;
        sc->index_bytes += len + 1; /* freed with the line index */
        text = plain;
        len = tracer_strip_ansi(plain, len);
    }
    for (size_t p = 0; p < len;) {
        const char *s = text + p, *nl = memchr(s, '\n', len - p), *e = nl ? nl : text + len;
        if (n == cap) {
            size_t more = (size_t)(cap ? cap : 256) * sizeof(*L);
            if (more > sc->budget - sc->held) {
                sc->over = n + 1;
                goto over;
            }
            cap = cap ? cap * 2 : 256;
            L = xrealloc(L, (size_t)cap * sizeof(*L));
            sc->held += more;
            sc->index_bytes += more;
        }
        p = (size_t)(e - text) + 1;
        while (e > s && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
            e--;
        L[n].s = s, L[n].e = e;
        n++;
    }
    v->n_lines = n;
    for (int i = 0; i < n;) {
        int rt, compact;
        if (!fits(sc, sizeof sc->buf, i + 1))
            break;
        char *t = line_text(sc, &L[i], &rt), *raw = sc->buf;
        if (!*t || !strncmp(t, "```", 3)) { /* blank, or a Markdown code fence around a paste */
            count(sc, i + 1, VLOG_LAYOUT, t);
            i++;
            continue;
        }
        if (sc->acc.in_table && t[0] != '[' && !perflog_is_elided(t) && strncmp(t, "entire", 6) &&
            strncmp(t, "cos ", 4) && !perflog_is_ruler(t))
            flush_acc(sc);
        /* the totals above a ranking table (an excerpt that starts under the per-layer
         * rows) begin the table's segment too */
        if ((formats & VLOG_F_PERF) && (perflog_is_header(t) || perflog_is_ranking_header(t) ||
                                        !strncmp(t, "Total Operator Elapsed", 22))) {
            i = perf_segment(sc, L, n, i, NULL);
            continue;
        }
        if ((formats & VLOG_F_PERF) && !sc->acc.in_table && headerless_row(t, &compact)) {
            i = perf_segment(sc, L, n, i,
                             compact ? "ID OpType DataType Target InputShape OutputShape "
                                       "Cycles(DDR/NPU/Total) Time(us) MacUsage(%) "
                                       "WorkLoad(0/1/2) RW(KB) FullName\n"
                                     : "ID OpType DataType Target InputShape OutputShape "
                                       "DDR Cycles NPU Cycles Total Cycles Time(us) MacUsage(%) "
                                       "WorkLoad(0/1/2)-ImproveTherical RW(KB) FullName\n");
            continue;
        }
        /* the totals alone (a build log's memory statistics, a level-3 excerpt) too */
        if (!sc->tk1_table && !strncmp(t, "Layer ID ", 9) && strstr(t, " Operator ") &&
            strstr(t, "Time(us)"))
            sc->tk1_table = i + 1; /* RKNN-Toolkit 1.x eval_perf: named if nothing else is read */
        /* RKNPU1's kernel driver in dmesg ("Galcore version 6.4.6.5.351518", "galcore: npu
         * init."): named if nothing else is read */
        if (!sc->galcore && (strstr(t, "Galcore version ") || strstr(t, "galcore: ")))
            sc->galcore = i + 1;
        if ((formats & VLOG_F_SRAM) && (is_sram_start(t) || is_sram_footer(t))) {
            i = sram_segment(sc, L, n, i);
            continue;
        }
        if (!glued_line(sc, i + 1, raw, t))
            one_line(sc, i + 1, raw, t, rt);
        i++;
    }
    if (!sc->over)
        flush_acc(sc);
over:
    if (sc->over)
        rc = rt_err(err, errlen, RT_ENOMEM, "line %lld: the line index, runs and rows read so far "
                    "pass the %zu MiB left for them", (long long)sc->over, sc->budget >> 20);
    else if (!v->n_runs && sc->tk1_table)
        rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                    "line %lld: an RKNN-Toolkit 1.x eval_perf table (Layer ID, Name, Operator, Time(us): "
                    "RKNPU1 chips, RK1808/RV1109/RV1126) is not read; import reads the RKNPU2 runtime's "
                    "and Toolkit2's logs", (long long)sc->tk1_table);
    else if (!v->n_runs && sc->galcore)
        rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                    "line %lld: RKNPU1's kernel driver galcore (RV1109/RV1126, RK1808) is not read; "
                    "import reads the RKNPU2 runtime's and Toolkit2's logs", (long long)sc->galcore);
    else if (!v->n_runs)
        rc = rt_err(err, errlen, RT_EFORMAT,
                    "no vendor output found (no per-layer, SRAM, accuracy or memory table, "
                    "runtime information, benchmark or dump line)");
    else if (final) {
        final(ctx, v, v->n_runs);
        credit_final(sc, v->n_runs);
    }
    if (!rc && budget) /* the line index goes; the runs stay with v */
        *budget -= sc->held - sc->index_bytes < *budget ? sc->held - sc->index_bytes : *budget;
out:
    if (rc)
        vlog_free(v);
    acclog_free(&sc->acc);
    free(L);
    free(plain);
    free(sc);
    return rc;
}

void vlog_run_free(vlog_run_t *r)
{
    if (r->has_perf) {
        free(r->perf.rows);
        free(r->perf.ops);
    }
    if (r->has_sram)
        free(r->sram.rows);
    benchlog_free(&r->bench);
    free(r->acc);
    free(r->dumps);
    for (int k = 0; k < r->n_errors && k < VLOG_MAX_ERRORS; k++)
        free(r->errors[k]);
    for (int k = 0; k < r->n_warnings && k < VLOG_MAX_ERRORS; k++)
        free(r->warnings[k]);
}

void vlog_run_move(vlog_run_t *dst, vlog_run_t *src)
{
    *dst = *src;
    src->perf.rows = NULL;
    src->perf.ops = NULL;
    src->sram.rows = NULL;
    src->bench.perf_ms = NULL;
    src->bench.perf_fps = NULL;
    src->acc = NULL;
    src->dumps = NULL;
    memset(src->errors, 0, sizeof src->errors);
    memset(src->warnings, 0, sizeof src->warnings);
}

void vlog_free(vlog_t *v)
{
    for (int i = 0; i < v->n_runs; i++)
        vlog_run_free(&v->runs[i]);
    free(v->runs);
    memset(v, 0, sizeof(*v));
}
