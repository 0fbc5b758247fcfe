/* tracer/perflog_parse.c — the vendor per-layer performance table parser
 * (formats: shared/research/log-formats.md §3). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/tracer.h"
#include "util/util.h"

enum col {
    C_ID, C_OPTYPE, C_DTYPE, C_TARGET, C_IN, C_OUT, C_CYC3, C_DDR, C_NPU, C_TOTAL,
    C_TIME, C_MAC, C_WL, C_TASKNUM, C_TASKSIZE, C_REGCMD, C_LUT, C_RW, C_FULLNAME, C_N,
};

static const struct { const char *name; int col; } col_names[] = {
    {"Cycles(DDR/NPU/Total)", C_CYC3}, {"DDR Cycles", C_DDR}, {"NPU Cycles", C_NPU},
    {"Total Cycles", C_TOTAL}, {"DDRCycles", C_DDR}, {"NPUCycles", C_NPU},
    {"MaxCycles", C_TOTAL}, {"DataType", C_DTYPE}, {"Target", C_TARGET},
    {"InputShape", C_IN}, {"OutputShape", C_OUT}, {"Time(us)", C_TIME},
    {"MacUsage(%)", C_MAC}, {"WorkLoad(", C_WL}, {"Task Number", C_TASKNUM},
    {"TaskNumber", C_TASKNUM}, {"Task Size", C_TASKSIZE}, {"Regcmd Size", C_REGCMD},
    {"Lut Number", C_LUT}, {"RW(KB)", C_RW}, {"FullName", C_FULLNAME},
    {"OpType", C_OPTYPE},
};

#define MAX_TOK 64

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

int perflog_is_ruler(const char *s)
{
    s = skip_blanks(s);
    return !strncmp(s, "-----", 5) || !strncmp(s, "=====", 5) || !strncmp(s, "+----", 5);
}

int perflog_is_title(const char *s)
{
    s = skip_blanks(s);
    return !strcmp(s, "Network Layer Information Table") || !strcmp(s, "RKNN VERSION:") ||
           !strcmp(s, "Operator Time Consuming Ranking Table") ||
           !strcmp(s, "Operator Time-Consuming Ranking:") || !strcmp(s, "Performance");
}

int perflog_is_elided(const char *s)
{
    s = skip_blanks(s);
    if (!strncmp(s, "[...", 4))
        return 1;
    if (s[0] != '.' || s[1] != '.' || s[2] != '.')
        return 0;
    while (*s == '.')
        s++;
    return !*s;
}

int perflog_is_total(const char *s)
{
    s = skip_blanks(s);
    return !strncmp(s, "Total Operator Elapsed", 22) || !strncmp(s, "Total Memory R", 14) ||
           !strncmp(s, "Total Internal Memory Read", 26) ||
           !strncmp(s, "Total Weight Memory Read", 24);
}

/* Table layout, an elision mark or a totals line: never a row, nor the tail of
 * a wrapped one (the whole-log scanner counts these lines as what they are). */
static int is_layout(const char *s)
{
    return !*skip_blanks(s) || perflog_is_ruler(s) || perflog_is_title(s) ||
           perflog_is_elided(s) || perflog_is_total(s);
}

static int tokenize(char *s, char **tok, int max)
{
    int n = 0;

    while (*s) {
        s += strspn(s, " \t"); /* tables pad their columns with long runs of blanks */
        if (!*s)
            break;
        if (n == max)
            break;
        tok[n++] = s;
        s += strcspn(s, " \t");
        if (*s)
            *s++ = 0;
    }
    return n;
}

/* strtoll(s, end, 10) for the cells tables hold: an optional sign and at most
 * 18 digits are read here (no overflow possible), anything else (blanks,
 * longer numbers) by strtoll itself. Three of these per table row. */
static long long fast_ll(const char *s, char **end)
{
    const char *p = s;
    long long x = 0;
    int neg = 0, n = 0;

    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    while (p[n] >= '0' && p[n] <= '9' && n < 18)
        x = x * 10 + (p[n++] - '0');
    if (n == 0 || (p[n] >= '0' && p[n] <= '9'))
        return strtoll(s, end, 10);
    *end = (char *)(p + n);
    return neg ? -x : x;
}

static int parse_i64(const char *s, int64_t *v)
{
    char *e;
    long long x;

    if (!s || !*s)
        return -1;
    x = fast_ll(s, &e);
    if (*e)
        return -1;
    *v = x;
    return 0;
}

/* A plain decimal of at most 15 digits ("1234", "0.37", "12.5%"), nearly
 * every cell of a table: its digits and 10^k are exact doubles, so one
 * division rounds as strtod does (and skips strtod's general path). */
static int plain_dbl(const char *s, double *v)
{
    static const double pow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    uint64_t m = 0;
    int digits = 0, frac = -1;

    for (;; s++) {
        if (*s >= '0' && *s <= '9') {
            if (++digits > 15)
                return -1;
            m = m * 10 + (uint64_t)(*s - '0');
            if (frac >= 0)
                frac++;
        } else if (*s == '.' && frac < 0) {
            frac = 0;
        } else {
            break;
        }
    }
    if (!digits || (*s && strcmp(s, "%") != 0))
        return -1;
    *v = (double)m / pow10[frac > 0 ? frac : 0];
    return 0;
}

static int parse_dbl(const char *s, double *v)
{
    char *e;

    if (!s || !*s)
        return -1;
    if (plain_dbl(s, v) == 0)
        return 0;
    *v = strtod(s, &e);
    if (e == s || (*e && strcmp(e, "%") != 0))
        return -1;
    return 0;
}

/* "a/b/c" (with optional % after each) into up to 3 doubles; returns count or -1. */
static int parse_triple(const char *s, double *v)
{
    int n = 0;
    char buf[64], *p, *q;

    if (strlen(s) >= sizeof(buf))
        return -1;
    strcpy(buf, s);
    /* fields between '/' (empty ones skipped, as strtok would) */
    for (p = buf; *p; p = q) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        for (q = p; *q && *q != '/'; q++)
            ;
        if (*q)
            *q++ = 0;
        if (n == 3 || parse_dbl(p, &v[n]) != 0)
            return -1;
        n++;
    }
    return n ? n : -1;
}

typedef struct hdr {
    int ncol;
    int cols[C_N];
} hdr_t;

static int parse_header(const char *s, hdr_t *h, char *gen, int *has_task)
{
    int off[C_N];
    int found[C_N] = {0};
    const char *id = s;

    while (*id == ' ')
        id++;
    if (strncmp(id, "ID ", 3) || !strstr(s, "OpType") || !strstr(s, "Target"))
        return -1;
    for (int c = 0; c < C_N; c++)
        off[c] = -1;
    off[C_ID] = (int)(id - s);
    found[C_ID] = 1;
    for (size_t i = 0; i < sizeof(col_names) / sizeof(col_names[0]); i++) {
        const char *p = strstr(s, col_names[i].name);
        int c = col_names[i].col;
        if (!p || found[c])
            continue;
        /* "OpType" also occurs inside nothing else; "Total Cycles" vs "Cycles(": fine */
        off[c] = (int)(p - s);
        found[c] = 1;
    }
    if (!found[C_OPTYPE] || !found[C_TARGET])
        return -1;
    h->ncol = 0;
    for (;;) { /* columns sorted by offset */
        int best = -1;
        for (int c = 0; c < C_N; c++)
            if (found[c] && (best < 0 || off[c] < off[best]))
                best = c;
        if (best < 0)
            break;
        h->cols[h->ncol++] = best;
        found[best] = 0;
    }
    *gen = strstr(s, "Cycles(DDR/NPU/Total)") ? 'A' : strstr(s, "DDRCycles") ? 'B' : 'C';
    *has_task = strstr(s, "Task Number") || strstr(s, "TaskNumber");
    return 0;
}

/* Bounded copy (cut to fit, NUL-terminated): called for every cell of every row. */
static void copy(char *dst, size_t n, const char *s)
{
    size_t l = s ? strnlen(s, n - 1) : 0;
    memcpy(dst, s ? s : "", l);
    dst[l] = 0;
}

static int looks_like_wl(const char *t)
{
    return strchr(t, '%') != NULL;
}

static int parse_row(char *line, const hdr_t *h, perflog_row_t *r)
{
    char *tok[MAX_TOK];
    char *fn_start;
    int nt, ti = 0;
    int64_t v;

    memset(r, 0, sizeof(*r));
    r->ddr = r->npu = r->total = r->time_us = r->task_number = -1;
    r->rw_kb = -1;
    r->up = -1;
    /* FullName is the rest of the line: remember where each token started */
    nt = tokenize(line, tok, MAX_TOK);
    if (nt < 4 || parse_i64(tok[0], &v) != 0 || v < 0 || v > 1000000000)
        return -1;
    r->id = (int)v;
    for (int ci = 0; ci < h->ncol; ci++) {
        int c = h->cols[ci];
        const char *t = ti < nt ? tok[ti] : NULL;
        double tri[3];
        int k;

        switch (c) {
        case C_ID: ti++; break;
        case C_OPTYPE: if (!t) return -1; copy(r->optype, sizeof r->optype, t); ti++; break;
        case C_DTYPE: if (!t) return -1; copy(r->datatype, sizeof r->datatype, t); ti++; break;
        case C_TARGET:
            if (!t) return -1;
            copy(r->target, sizeof r->target, t);
            ti++;
            break;
        case C_IN: if (!t) return -1; copy(r->inshape, sizeof r->inshape, t); ti++; break;
        case C_OUT: if (!t) return -1; copy(r->outshape, sizeof r->outshape, t); ti++; break;
        case C_CYC3: {
            long long x[3];
            const char *q = t;
            char *e;
            if (!t)
                return -1;
            /* "ddr/npu/total": three integers (leading blanks and signs as strtoll reads them) */
            for (int j = 0; j < 3; j++) {
                x[j] = fast_ll(q, &e);
                if (e == q || (j < 2 && *e != '/') || (j == 2 && *e))
                    return -1;
                q = e + 1;
            }
            r->ddr = x[0], r->npu = x[1], r->total = x[2];
            ti++;
            break;
        }
        case C_DDR: if (!t || parse_i64(t, &r->ddr)) return -1; ti++; break;
        case C_NPU: if (!t || parse_i64(t, &r->npu)) return -1; ti++; break;
        case C_TOTAL: if (!t || parse_i64(t, &r->total)) return -1; ti++; break;
        case C_TIME: {
            double d;
            if (!t || parse_dbl(t, &d) || !(d >= 0 && d < 9.2e18)) return -1;
            r->time_us = (int64_t)d;
            ti++;
            break;
        }
        case C_MAC:
            /* blank in 2.3 tables: the next token is already the workload */
            if (!t || looks_like_wl(t))
                break;
            if (!strcmp(t, "\\")) {
                ti++;
                break;
            }
            k = parse_triple(t, tri);
            if (k < 0)
                return -1;
            r->n_mac = k;
            memcpy(r->mac, tri, sizeof(double) * (size_t)k);
            ti++;
            break;
        case C_WL:
            if (!t)
                return -1;
            k = parse_triple(t, tri);
            if (k < 0)
                return -1;
            r->n_wl = k;
            memcpy(r->wl, tri, sizeof(double) * (size_t)k);
            ti++;
            /* old tables: "- Up:x%" or "--Up:x%" */
            if (ti < nt && !strcmp(tok[ti], "-") && ti + 1 < nt && !strncmp(tok[ti + 1], "Up:", 3)) {
                parse_dbl(tok[ti + 1] + 3, &r->up);
                ti += 2;
            } else if (ti < nt && (!strncmp(tok[ti], "-Up:", 4) || !strncmp(tok[ti], "--Up:", 5))) {
                parse_dbl(strchr(tok[ti], ':') + 1, &r->up);
                ti++;
            }
            break;
        case C_TASKNUM: if (!t || parse_i64(t, &r->task_number)) return -1; ti++; break;
        case C_TASKSIZE: case C_REGCMD: case C_LUT:
            if (!t || parse_i64(t, &v)) return -1;
            ti++;
            break;
        case C_RW: if (!t || parse_dbl(t, &r->rw_kb)) return -1; ti++; break;
        case C_FULLNAME:
            fn_start = ti < nt ? tok[ti] : NULL;
            if (fn_start) {
                /* re-join the remaining tokens with single spaces */
                size_t used = 0;
                for (int j = ti; j < nt; j++) {
                    size_t w = strlen(tok[j]) + (j > ti);
                    if (w >= sizeof(r->fullname) - used)
                        break;
                    if (j > ti)
                        r->fullname[used++] = ' ';
                    memcpy(r->fullname + used, tok[j], w - (j > ti) + 1);
                    used += w - (j > ti);
                }
            }
            ti = nt;
            break;
        }
    }
    if (ti < nt)
        return -1; /* unconsumed tokens: a column we did not expect */
    return 0;
}

static int parse_op_row(char *line, int has_cpu, int has_gpu, perflog_op_t *o)
{
    char *tok[MAX_TOK];
    int nt = tokenize(line, tok, MAX_TOK), i = 1;
    int64_t v;

    memset(o, 0, sizeof(*o));
    if (nt < 2)
        return -1;
    copy(o->optype, sizeof o->optype, tok[0]);
    if (!strcmp(tok[0], "Total")) {
        o->calls = -1;
        o->ratio = -1;
        if (nt != 3 + has_cpu + has_gpu)
            return -1;
    } else {
        if (nt != 5 + has_cpu + has_gpu || parse_i64(tok[i++], &v))
            return -1;
        o->calls = (int)v;
    }
    o->cpu_us = -1;
    if (has_cpu && parse_i64(tok[i++], &o->cpu_us))
        return -1;
    o->gpu_us = -1;
    if (has_gpu && parse_i64(tok[i++], &o->gpu_us))
        return -1;
    if (parse_i64(tok[i++], &o->npu_us) || parse_i64(tok[i++], &o->total_us))
        return -1;
    if (o->calls >= 0 && parse_dbl(tok[i], &o->ratio))
        return -1;
    return 0;
}

/* The next non-blank line after next, to join to a line of a bytes: its
 * start, its length in *b and its end (NULL: the text's) in *end; NULL when
 * there is none or the two would pass 4096 bytes. */
static char *join_next(char *next, size_t a, size_t *b, char **end)
{
    char *c = next;
    while (c && (*c == '\n' || *c == '\r' || *c == ' ' || *c == '\t'))
        c++;
    if (!c || !*c)
        return NULL;
    *end = strchr(c, '\n');
    *b = *end ? (size_t)(*end - c) : strlen(c);
    return a + *b > 4096 ? NULL : c;
}

static int is_digit(int c)
{
    return isdigit(c);
}

static int is_ident(int c)
{
    return isalnum(c) || c == '_';
}

static int is_caps(int c)
{
    return isupper(c) || isdigit(c);
}

/* After blanks, a word whose first character is of class first and the rest
 * of class rest, then a blank: the blank's place, else NULL. */
static const char *word_of(const char *s, int (*first)(int), int (*rest)(int))
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (!first((unsigned char)*s))
        return NULL;
    while (rest((unsigned char)*s))
        s++;
    return *s == ' ' || *s == '\t' ? s : NULL;
}

/* Line s begins as a row does: an ID, an OpType and a DataType in capitals
 * (INT8, FLOAT16). A later piece of a wrapped row that does is the next row
 * cut in its turn, never joined to this one. */
static int starts_like_row(const char *s)
{
    return (s = word_of(s, is_digit, is_digit)) && (s = word_of(s, isalpha, is_ident)) &&
           word_of(s, isupper, is_caps);
}

/* What a wrapped row of one kind is joined by (join_rows): whether line cont,
 * the k-th after the row, may be a piece of it (not a row by itself), and
 * whether line (which it may cut up) is a whole row, read into the caller's. */
typedef struct row_kind {
    int (*piece)(const struct row_kind *rk, char *cont, int k);
    int (*whole)(const struct row_kind *rk, char *line);
    const hdr_t *h;
    perflog_row_t *r;
    int has_cpu, has_gpu;
    perflog_op_t *o;
} row_kind;

static int layer_piece(const row_kind *rk, char *cont, int k)
{
    perflog_row_t alone;
    return !is_layout(cont) && !perflog_is_header(cont) && !perflog_is_ranking_header(cont) &&
           !(k && starts_like_row(cont)) && parse_row(cont, rk->h, &alone) != 0;
}

static int layer_whole(const row_kind *rk, char *line)
{
    return parse_row(line, rk->h, rk->r) == 0;
}

static int op_piece(const row_kind *rk, char *cont, int k)
{
    (void)rk, (void)k;
    return !is_layout(cont) && !perflog_is_op_rowlike(cont) &&
           !perflog_is_ranking_header(cont) && !perflog_is_header(cont);
}

static int op_whole(const row_kind *rk, char *line)
{
    return parse_op_row(line, rk->has_cpu, rk->has_gpu, rk->o) == 0;
}

/* A row that a terminal or a web page wrapped: the next non-blank lines, each
 * a piece of it (rk), complete it (up to PERFLOG_JOIN_MAX, until the joined
 * line is a whole row). Returns the lines joined, -1 when none complete it;
 * on success *next moves past them and out (4098 bytes, may be row; or
 * NULL) holds the joined line. */
static int join_rows(const char *row, char **next, const row_kind *rk, char *out)
{
    char *acc = xmalloc(4098), *tmp = xmalloc(4098), *at = *next;
    size_t a = strlen(row);
    int ok = 0, k = 0;

    a = a > 4096 ? 4096 : a;
    memcpy(acc, row, a);
    acc[a] = 0;
    for (; k < PERFLOG_JOIN_MAX && !ok; k++) {
        char *c, *end;
        size_t b;
        if (!(c = join_next(at, a, &b, &end)))
            break;
        while (b && (c[b - 1] == '\r' || c[b - 1] == ' ' || c[b - 1] == '\t'))
            b--;
        snprintf(tmp, 4098, "%.*s", (int)b, c); /* the piece alone first: a row is not joined */
        if (!rk->piece(rk, tracer_strip_prefix(tmp), k))
            break;
        acc[a] = ' ';
        memcpy(acc + a + 1, c, b);
        a += 1 + b;
        acc[a] = 0;
        at = end ? end + 1 : NULL;
        memcpy(tmp, acc, a + 1); /* the parsers cut their line into cells */
        ok = rk->whole(rk, tmp);
    }
    if (ok && out)
        memcpy(out, acc, a + 1);
    if (ok)
        *next = at;
    free(acc);
    free(tmp);
    return ok ? k : -1;
}

/* A per-layer table's wrapped row (join_rows), read into r. */
static int join_wrapped(const char *row, char **next, const hdr_t *h, perflog_row_t *r,
                        char *out)
{
    const row_kind rk = {.piece = layer_piece, .whole = layer_whole, .h = h, .r = r};
    return join_rows(row, next, &rk, out);
}

/* The ranking table's columns, a line of them that a wrap cut from its
 * header ("TimeRatio(%)"): no number, and a column's name in each word. */
static int ranking_cols(const char *s)
{
    int words = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            return words > 0;
        const char *e = s + strcspn(s, " \t");
        char w[64];
        snprintf(w, sizeof w, "%.*s", (int)(e - s < 63 ? e - s : 63), s);
        if (!strstr(w, "Time") && !strstr(w, "Ratio") && !strstr(w, "Call") &&
            !strstr(w, "Number") && strcmp(w, "(us)") && strcmp(w, "(%)"))
            return 0;
        words++;
        s = e;
    }
}

/* A ranking header that a wrap cut: the next lines of its column names joined
 * to it (up to PERFLOG_JOIN_MAX) into out (4098 bytes); *next moves past them. */
static void join_ranking_header(const char *s, char **next, char *out)
{
    char *c, *end, *at = *next;
    size_t a = strlen(s), b;

    a = a > 4096 ? 4096 : a;
    memcpy(out, s, a);
    out[a] = 0;
    for (int k = 0; k < PERFLOG_JOIN_MAX; k++) {
        if (!(c = join_next(at, a, &b, &end)))
            break;
        char line[4098];
        snprintf(line, sizeof line, "%.*s", (int)b, c);
        if (!ranking_cols(line))
            break;
        out[a] = ' ';
        memcpy(out + a + 1, line, strlen(line) + 1);
        a += 1 + strlen(line);
        at = end ? end + 1 : NULL;
        *next = at;
    }
}

/* A ranking table's wrapped row (its ratio on the next line; join_rows),
 * read into o. */
static int join_op_wrapped(const char *row, char **next, int has_cpu, int has_gpu,
                           perflog_op_t *o)
{
    const row_kind rk = {.piece = op_piece, .whole = op_whole, .has_cpu = has_cpu,
                         .has_gpu = has_gpu, .o = o};
    return join_rows(row, next, &rk, NULL);
}

/* A header that a terminal or a web page wrapped (its last columns on the
 * next lines): each next non-blank line, neither a ruler nor a row, is joined
 * while it adds columns (up to PERFLOG_JOIN_MAX); *next moves past those. */
static void join_header(const char *s, char **next, hdr_t *h)
{
    char *c, *end, *joined = xmalloc(4098), *tmp = xmalloc(4098), *at = *next;
    size_t a = strlen(s), b;
    hdr_t nh;
    char gen;
    int has_task;

    memcpy(joined, s, a + 1);
    for (int k = 0; k < PERFLOG_JOIN_MAX; k++) {
        if (!(c = join_next(at, a, &b, &end)) || isdigit((unsigned char)*c))
            break;
        joined[a] = ' ';
        memcpy(joined + a + 1, c, b);
        joined[a + 1 + b] = 0;
        memcpy(tmp, joined, a + b + 2);
        if (is_layout(joined + a + 1) || parse_header(tmp, &nh, &gen, &has_task) != 0 ||
            nh.ncol <= h->ncol)
            break;
        *h = nh; /* columns added: this line is the header's */
        a += 1 + b;
        at = end ? end + 1 : NULL;
        *next = at;
    }
    free(joined);
    free(tmp);
}

static perflog_table_t *new_table(perflog_table_t **tabs, int *n, int *cap)
{
    perflog_table_t *t;

    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 4;
        *tabs = xrealloc(*tabs, (size_t)*cap * sizeof(**tabs));
    }
    t = &(*tabs)[(*n)++];
    memset(t, 0, sizeof(*t));
    t->total_time_us = -1;
    t->total_rw_kb = -1;
    t->total_rw_mb = -1;
    return t;
}

/* A row of t that could not be read: the first one's line number (counted in
 * the text as given, once per table). */
static void note_bad(perflog_table_t *t, const char *text, const char *buf, const char *line)
{
    int n = 1;

    if (t->first_bad_line)
        return;
    for (const char *p = text, *e = text + (line - buf); p < e; p++)
        n += *p == '\n';
    t->first_bad_line = n;
}

static const char *after(const char *s, const char *key)
{
    const char *p = strstr(s, key);
    return p ? p + strlen(key) : NULL;
}

int perflog_parse(const char *text, size_t len, perflog_table_t **tables, int *n, char *err,
                  size_t errlen)
{
    perflog_table_t *tabs = NULL, *cur = NULL;
    int ntab = 0, cap = 0, state = 0, has_gpu = 0, has_cpu = 1, rcap = 0, ocap = 0;
    hdr_t h = {0};
    char *buf = xmalloc(len + 1), *line, *next;

    *tables = NULL;
    *n = 0;
    memcpy(buf, text, len);
    buf[len] = 0;
    /* NUL bytes end the text early: fine for a text format */
    for (line = buf; line; line = next) {
        char *s, *nl = strchr(line, '\n');
        const char *v;
        size_t l;

        next = nl ? nl + 1 : NULL;
        if (nl)
            *nl = 0;
        l = strlen(line);
        while (l && (line[l - 1] == '\r' || line[l - 1] == ' ' || line[l - 1] == '\t'))
            line[--l] = 0;
        s = tracer_strip_prefix(line);

        /* every totals line holds "Total ": one search instead of four per line */
        if (strstr(s, "Total ")) {
            if ((v = after(s, "Total Operator Elapsed Per Frame Time(us):")) ||
                (v = after(s, "Total Operator Elapsed Time(us):"))) {
                if (!cur)
                    cur = new_table(&tabs, &ntab, &cap), rcap = ocap = 0;
                cur->total_time_us = strtoll(v, NULL, 10);
                state = 0;
                continue;
            }
            if ((v = after(s, "Total Memory Read/Write Per Frame Size(KB):"))) {
                if (cur)
                    cur->total_rw_kb = strtod(v, NULL);
                continue;
            }
            if ((v = after(s, "Total Memory RW Amount(MB):"))) {
                if (cur)
                    cur->total_rw_mb = strtod(v, NULL);
                continue;
            }
        }
        {
            char gen;
            int has_task;
            hdr_t nh;
            if (parse_header(s, &nh, &gen, &has_task) == 0) {
                join_header(s, &next, &nh);
                h = nh;
                cur = new_table(&tabs, &ntab, &cap);
                rcap = ocap = 0;
                cur->generation = gen;
                cur->has_tasknumber = has_task;
                state = 1;
                continue;
            }
        }
        {
            const char *p = s;
            while (*p == ' ')
                p++;
            if (perflog_is_ranking_header(p)) {
                char hdr[4098];
                join_ranking_header(p, &next, hdr);
                has_gpu = strstr(hdr, "GPUTime") || strstr(hdr, "GPU Time");
                /* a copied table may leave columns out ("CallNumber ... NPUTime(us)") */
                has_cpu = strstr(hdr, "CPUTime") || strstr(hdr, "CPU Time");
                if (!cur || cur->n_ops)
                    cur = new_table(&tabs, &ntab, &cap), rcap = ocap = 0;
                state = 2;
                continue;
            }
        }
        if (is_layout(s))
            continue;
        if (state == 1) {
            perflog_row_t r;
            const char *p = s;
            char whole[4098]; /* longer than join_wrapped accepts: cut */
            size_t sl;
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p == '+' || *p == '-')
                p++;
            if (!isdigit((unsigned char)*p)) {
                cur->n_interleaved++; /* other text interleaved */
                continue;
            }
            while (isdigit((unsigned char)*p))
                p++;
            if (*p && *p != ' ' && *p != '\t')
                continue;
            /* parse_row cuts its line into tokens: keep the line for a wrapped row */
            sl = strlen(s);
            if (sl >= sizeof whole)
                sl = sizeof whole - 1;
            memcpy(whole, s, sl);
            whole[sl] = 0;
            int joined;
            if (parse_row(s, &h, &r) != 0) {
                if ((joined = join_wrapped(whole, &next, &h, &r, whole)) < 0) {
                    cur->n_bad_rows++;
                    note_bad(cur, text, buf, line);
                    continue;
                }
                cur->n_joined += joined;
            }
            /* its FullName wrapped to a line of its own */
            perflog_row_t rf;
            if (!r.fullname[0] && h.ncol && h.cols[h.ncol - 1] == C_FULLNAME &&
                (joined = join_wrapped(whole, &next, &h, &rf, whole)) > 0) {
                r = rf;
                cur->n_joined += joined;
            }
            if (cur->n_rows == rcap) {
                rcap = rcap ? rcap * 2 : 64;
                cur->rows = xrealloc(cur->rows, (size_t)rcap * sizeof(*cur->rows));
            }
            cur->rows[cur->n_rows++] = r;
            if (r.n_wl > cur->cores || r.n_mac > cur->cores)
                cur->cores = r.n_wl > r.n_mac ? r.n_wl : r.n_mac;
        } else if (state == 2) {
            perflog_op_t o;
            int rowlike = perflog_is_op_rowlike(s), joined; /* parse_op_row cuts s into cells */
            char whole[4098];
            snprintf(whole, sizeof whole, "%s", s);
            if (parse_op_row(s, has_cpu, has_gpu, &o) != 0 && rowlike &&
                (joined = join_op_wrapped(whole, &next, has_cpu, has_gpu, &o)) > 0) {
                cur->n_joined += joined;
            } else if (parse_op_row(whole, has_cpu, has_gpu, &o) != 0) {
                if (rowlike) /* not the text after the table */
                    note_bad(cur, text, buf, line);
                continue;
            }
            if (cur->n_ops == ocap) {
                ocap = ocap ? ocap * 2 : 32;
                cur->ops = xrealloc(cur->ops, (size_t)ocap * sizeof(*cur->ops));
            }
            cur->ops[cur->n_ops++] = o;
            if (o.calls < 0)
                cur->has_total_op = 1;
        }
    }
    free(buf);
    if (!ntab)
        return rt_err(err, errlen, RT_EFORMAT,
                      "no per-layer table, totals or ranking table found in the log");
    *tables = tabs;
    *n = ntab;
    return 0;
}

int perflog_is_header(const char *line)
{
    hdr_t h;
    char gen;
    int has_task;

    return parse_header(line, &h, &gen, &has_task) == 0;
}

int perflog_is_op_rowlike(const char *t)
{
    size_t l = strlen(t);
    const char *p;

    t = skip_blanks(t);
    l = strlen(t);
    if (!isalpha((unsigned char)*t) || !strchr(t, ' '))
        return 0;
    if (isdigit((unsigned char)t[l - 1 - (t[l - 1] == '%')]))
        return 1;
    p = t + strcspn(t, " \t");
    p = skip_blanks(p);
    if (!isdigit((unsigned char)*p))
        return 0;
    while (isdigit((unsigned char)*p))
        p++;
    return *p == ' ' || *p == '\t' || !*p;
}

int perflog_is_ranking_header(const char *line)
{
    while (*line == ' ')
        line++;
    return !strncmp(line, "OpType", 6) &&
           (strstr(line, "CallNumber") != NULL || strstr(line, "Call Number") != NULL);
}

void perflog_free(perflog_table_t *t, int n)
{
    for (int i = 0; t && i < n; i++) {
        free(t[i].rows);
        free(t[i].ops);
    }
    free(t);
}
