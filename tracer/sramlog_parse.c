/* tracer/sramlog_parse.c — the vendor SRAM / internal-memory table and the
 * debugfs `mm` bitmap (formats: shared/research/log-formats.md §4, §7). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/tracer.h"
#include "util/util.h"

enum { K_ID, K_USER, K_TENSOR, K_DTYPE, K_DFMT, K_ORIG, K_NATIVE, K_N };

static const char *const key_names[K_N] = {"ID", "User", "Tensor", "DataType", "DataFormat",
                                           "OrigShape", "NativeShape"};

#define MAX_TOK 32

static int tokenize(char *s, char **tok, int max)
{
    int n = 0;

    while (*s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || n == max)
            break;
        tok[n++] = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
        if (*s)
            *s++ = 0;
    }
    return n;
}

static int parse_u64(const char *s, uint64_t *v, int base)
{
    char *e;
    unsigned long long x;

    if (!s || !*s || *s == '-' || *s == '+')
        return -1;
    x = strtoull(s, &e, base);
    if (e == s || *e)
        return -1;
    *v = x;
    return 0;
}

static int parse_hex(const char *s, uint64_t *v)
{
    if (strncmp(s, "0x", 2) && strncmp(s, "0X", 2))
        return -1;
    return parse_u64(s + 2, v, 16);
}

/* "Name: 123" at the start of s -> value, else -1 */
static int footer(const char *s, const char *name, int64_t *v)
{
    size_t n = strlen(name);
    uint64_t x;
    char buf[32];

    if (strncmp(s, name, n) || s[n] != ':')
        return 0;
    s += n + 1;
    while (*s == ' ')
        s++;
    rt_copy(buf, sizeof buf, s, SIZE_MAX);
    for (char *p = buf; *p; p++)
        if (isspace((unsigned char)*p))
            *p = 0;
    if (!parse_u64(buf, &x, 10) && x <= (uint64_t)INT64_MAX) {
        *v = (int64_t)x;
        return 1;
    }
    /* the toolkit's build log (RKNNMemStatisticsPass): "243712KB", "33207.9KB" (KiB) */
    {
        char *e;
        double d = strtod(buf, &e);
        if (e == buf || !(d >= 0) || d > 1e15 || (strcmp(e, "KB") && strcmp(e, "MB")))
            return 0;
        *v = (int64_t)llround(d * (e[0] == 'K' ? 1024.0 : 1048576.0));
        return 1;
    }
}

typedef struct state {
    sramlog_table_t *t;
    int n, cap;
    int cols[MAX_TOK];  /* key of the i-th left column */
    int ncols;
    int in_table;
    /* a box seen before its table */
    char kind[16];
    int64_t size;
    uint64_t a, b;
    int have_box;
} state;

static sramlog_table_t *new_table(state *st)
{
    sramlog_table_t *t;

    if (st->n == st->cap) {
        st->cap = st->cap ? st->cap * 2 : 4;
        st->t = xrealloc(st->t, (size_t)st->cap * sizeof(*st->t));
    }
    t = &st->t[st->n++];
    memset(t, 0, sizeof(*t));
    t->alloc_size = -1;
    t->total_weight = t->total_internal = t->rw_internal = t->rw_weight = t->rw_sram_hit = -1;
    if (st->have_box) {
        snprintf(t->alloc_kind, sizeof t->alloc_kind, "%s", st->kind);
        t->alloc_size = st->size;
        t->alloc_start = st->a;
        t->alloc_end = st->b;
        st->have_box = 0;
    }
    return t;
}

/* "Total allocated Internal SRAM Size: N, Addr: [0xa, 0xb)" (1.4-1.5) or
 * "Total allocated SRAM memory for Internal, Size: N, Addr: [0xa, 0xb)" (1.6+) */
static int parse_box(const char *s, state *st)
{
    char kind[16] = "", a[24], b[24];
    long long size;
    uint64_t va, vb;

    if (sscanf(s, "Total allocated %15s SRAM Size: %lld, Addr: [%23[0-9a-fA-Fx], %23[0-9a-fA-Fx])",
               kind, &size, a, b) != 4 &&
        sscanf(s, "Total allocated SRAM memory for %15[A-Za-z], Size: %lld, Addr: [%23[0-9a-fA-Fx], "
                  "%23[0-9a-fA-Fx])",
               kind, &size, a, b) != 4)
        return 0;
    if (size < 0 || parse_hex(a, &va) || parse_hex(b, &vb))
        return 0;
    snprintf(st->kind, sizeof st->kind, "%s", kind);
    st->size = size;
    st->a = va;
    st->b = vb;
    st->have_box = 1;
    return 1;
}

static int parse_header(char *s, state *st)
{
    char *tok[MAX_TOK];
    int n = tokenize(s, tok, MAX_TOK), has_user = 0, has_tensor = 0, hit = 0, fmt = 0;

    if (n < 4 || strcmp(tok[0], "ID"))
        return 0;
    st->ncols = 0;
    for (int i = 0; i < n; i++) {
        if (!strcmp(tok[i], "|"))
            break;
        for (int k = 0; k < K_N; k++)
            if (!strcmp(tok[i], key_names[k])) {
                if (st->ncols < MAX_TOK)
                    st->cols[st->ncols++] = k;
                has_user |= k == K_USER;
                has_tensor |= k == K_TENSOR;
                fmt |= k == K_DFMT;
            }
    }
    for (int i = 0; i < n; i++)
        hit |= !strcmp(tok[i], "SramHit");
    if (!has_user || !has_tensor || st->cols[0] != K_ID)
        return 0;
    {
        sramlog_table_t *t;
        /* a box printed right before belongs to this table; one seen while
         * the previous table had no rows yet stays there */
        t = new_table(st);
        t->has_hit = hit;
        t->has_dataformat = fmt;
    }
    st->in_table = 1;
    return 1;
}

static void copy(char *dst, size_t len, const char *s)
{
    rt_copy(dst, len, s, SIZE_MAX);
}

static int parse_row(char *s, state *st, sramlog_row_t *r)
{
    char *bar1 = strchr(s, '|'), *bar2, *tok[MAX_TOK];
    sramlog_table_t *t = &st->t[st->n - 1];
    int n;
    uint64_t id;

    if (!bar1)
        return -1;
    *bar1 = 0;
    bar2 = strchr(bar1 + 1, '|');
    if (bar2)
        *bar2 = 0;
    memset(r, 0, sizeof(*r));
    r->hit = -2;
    n = tokenize(s, tok, MAX_TOK);
    if (n != st->ncols)
        return -1;
    for (int i = 0; i < n; i++) {
        switch (st->cols[i]) {
        case K_ID:
            if (parse_u64(tok[i], &id, 10) || id > 100000000)
                return -1;
            r->id = (int)id;
            break;
        case K_USER: copy(r->user, sizeof r->user, tok[i]); break;
        case K_TENSOR: copy(r->tensor, sizeof r->tensor, tok[i]); break;
        case K_DTYPE: copy(r->datatype, sizeof r->datatype, tok[i]); break;
        case K_DFMT: copy(r->dataformat, sizeof r->dataformat, tok[i]); break;
        case K_ORIG: copy(r->origshape, sizeof r->origshape, tok[i]); break;
        case K_NATIVE: copy(r->nativeshape, sizeof r->nativeshape, tok[i]); break;
        }
    }
    {
        char *mid = bar1 + 1, *star = strchr(mid, '*');
        if (star) {
            r->star = 1;
            *star = ' ';
        }
        n = tokenize(mid, tok, MAX_TOK);
        if (n != 3 || parse_hex(tok[0], &r->start) || parse_hex(tok[1], &r->end) ||
            parse_hex(tok[2], &r->size))
            return -1;
    }
    if (t->has_hit) {
        uint64_t h;
        if (!bar2)
            return -1;
        n = tokenize(bar2 + 1, tok, MAX_TOK);
        if (n != 1)
            return -1;
        if (!strcmp(tok[0], "\\"))
            r->hit = -1;
        else if (parse_hex(tok[0], &h) || h > (uint64_t)INT64_MAX)
            return -1;
        else
            r->hit = (int64_t)h;
    } else if (bar2) {
        return -1;
    }
    return 0;
}

static void handle_line(char *line, state *st)
{
    char *s = tracer_strip_prefix(line), *p = s;
    sramlog_table_t *t = st->n ? &st->t[st->n - 1] : NULL;

    while (*p == ' ')
        p++;
    if (!*p || !strncmp(p, "-----", 5))
        return;
    if (!strncmp(p, "Total allocated ", 16)) {
        parse_box(p, st);
        return;
    }
    if (!strncmp(p, "ID ", 3) || !strncmp(p, "ID\t", 3)) {
        char tmp[1024];
        rt_copy(tmp, sizeof tmp, p, SIZE_MAX);
        if (parse_header(tmp, st))
            return;
    }
    /* the totals alone (a build log's RKNNMemStatisticsPass) make a table of no rows */
    if (!t && (!strncmp(p, "Total Weight Memory Size:", 25) ||
               !strncmp(p, "Total Internal Memory Size:", 27)))
        t = new_table(st);
    if (t) {
        if (footer(p, "Total Weight Memory Size", &t->total_weight) ||
            footer(p, "Total Internal Memory Size", &t->total_internal) ||
            footer(p, "Predict Internal Memory RW Amount", &t->rw_internal) ||
            footer(p, "Predict Weight Memory RW Amount", &t->rw_weight) ||
            footer(p, "Predict SRAM Hit RW Amount", &t->rw_sram_hit)) {
            st->in_table = 0;
            return;
        }
    }
    if (t && st->in_table && isdigit((unsigned char)*p) && strchr(p, '|')) {
        sramlog_row_t r;
        if (parse_row(p, st, &r)) {
            t->n_bad_rows++;
            return;
        }
        t->rows = xrealloc(t->rows, (size_t)(t->n_rows + 1) * sizeof(*t->rows));
        t->rows[t->n_rows++] = r;
    }
}

int sramlog_parse(const char *text, size_t len, sramlog_table_t **tables, int *n, char *err,
                  size_t errlen)
{
    state st = {0};
    char *buf = xmalloc(len + 1), *line, *save = NULL;

    *tables = NULL;
    *n = 0;
    memcpy(buf, text, len);
    buf[len] = 0;
    /* NUL bytes inside the text end lines too; a carriage return does not (as
     * for the whole-log scanner, which counts the lines): it is a blank */
    for (size_t i = 0; i < len; i++)
        if (buf[i] == 0 || buf[i] == '\r')
            buf[i] = buf[i] ? ' ' : '\n';
    for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        handle_line(line, &st);
    free(buf);
    if (!st.n)
        return rt_err(err, errlen, RT_EFORMAT,
                      "no SRAM table header (\"ID User Tensor ...\") in the text");
    *tables = st.t;
    *n = st.n;
    return 0;
}

void sramlog_free(sramlog_table_t *t, int n)
{
    for (int i = 0; t && i < n; i++)
        free(t[i].rows);
    free(t);
}

int sramlog_parse_mm(const char *text, size_t len, sramlog_mm_t *mm, char *err, size_t errlen)
{
    char *buf = xmalloc(len + 1), *line, *save = NULL;
    int totals = 0, ret = 0, used = 0;

    memset(mm, 0, sizeof(*mm));
    memcpy(buf, text, len);
    buf[len] = 0;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == 0 || buf[i] == '\r')
            buf[i] = '\n';
    for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        long long a, b, c;
        unsigned row;
        int off = 0;
        if (sscanf(line, "SRAM total size: %lld, used: %lld, free: %lld", &a, &b, &c) == 3) {
            mm->total = a;
            mm->used = b;
            mm->free = c;
            totals = 1;
            continue;
        }
        if (sscanf(line, "[%u] [%n", &row, &off) == 1 && off > 0) {
            const char *p = line + off;
            if ((uint64_t)row * 32 != (uint64_t)mm->pages) {
                ret = rt_err(err, errlen, RT_EFORMAT, "mm: row [%03u] out of order", row);
                goto out;
            }
            for (; *p == '*' || *p == '.'; p++) {
                if (mm->pages >= (int)sizeof(mm->map) - 1) {
                    ret = rt_err(err, errlen, RT_EFORMAT, "mm: more than %d pages",
                                 (int)sizeof(mm->map) - 1);
                    goto out;
                }
                used += *p == '*';
                mm->map[mm->pages++] = *p;
            }
            if (*p != ']') {
                ret = rt_err(err, errlen, RT_EFORMAT, "mm: bad bitmap row [%03u]", row);
                goto out;
            }
        }
    }
    if (!totals) {
        ret = rt_err(err, errlen, RT_EFORMAT, "mm: no \"SRAM total size\" line");
        goto out;
    }
    if (mm->total != (int64_t)mm->pages * 4096 || mm->used != (int64_t)used * 4096 ||
        mm->free != mm->total - mm->used) { /* no sum: free may be any number */
        ret = rt_err(err, errlen, RT_EFORMAT,
                     "mm: totals %lld/%lld/%lld disagree with the %d-page bitmap (%d used)",
                     (long long)mm->total, (long long)mm->used, (long long)mm->free, mm->pages,
                     used);
        goto out;
    }
    ret = mm->pages;
out:
    free(buf);
    return ret;
}
