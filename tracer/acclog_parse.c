/* tracer/acclog_parse.c — Toolkit2 accuracy_analysis tables (log-formats.md §8). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/tracer.h"
#include "util/util.h"

void acclog_init(acclog_t *a)
{
    memset(a, 0, sizeof(*a));
}

void acclog_free(acclog_t *a)
{
    free(a->rows);
    acclog_init(a);
}

int acclog_is_header(const char *s)
{
    while (*s == ' ')
        s++;
    return !strncmp(s, "layer_name", 10) &&
           (strstr(s, "simulator_error") != NULL || strstr(s, "runtime_error") != NULL);
}

static int number(const char *t, double *v)
{
    char *e;

    if (!strcmp(t, "nan")) {
        *v = NAN;
        return 0;
    }
    *v = strtod(t, &e);
    return (e == t || *e) ? -1 : 0;
}

/* Cells after the name: "c c c c" or "c | e c | e ..." */
static int row(acclog_t *a, const char *s, acclog_row_t *r)
{
    const char *close = strchr(s, ']'), *p;
    char tok[64];
    int want_euc = 0, max = (a->has_sim + a->has_rt) * 2;

    memset(r, 0, sizeof(*r));
    for (int i = 0; i < 4; i++)
        r->cos[i] = r->euc[i] = NAN;
    if (!close || close - s - 1 >= (long)sizeof(r->op) || close == s + 1)
        return -1;
    rt_copy(r->op, sizeof r->op, s + 1, (size_t)(close - s - 1));
    p = close + 1;
    while (*p == ' ')
        p++;
    if (!*p)
        return -1;
    rt_copy(r->name, sizeof r->name, p, strcspn(p, " "));
    p += strcspn(p, " ");
    for (;;) {
        size_t l;
        double v;
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        l = strcspn(p, " ");
        if (l >= sizeof tok)
            return -1;
        memcpy(tok, p, l);
        tok[l] = 0;
        p += l;
        if (!strcmp(tok, "|")) {
            if (want_euc || !r->n_cells)
                return -1;
            want_euc = 1;
            continue;
        }
        if (number(tok, &v))
            return -1;
        if (want_euc) {
            r->euc[r->n_cells - 1] = v;
            want_euc = 0;
            a->has_euc = 1;
        } else {
            if (r->n_cells == max)
                return -1;
            r->cos[r->n_cells++] = v;
        }
    }
    if (want_euc || (r->n_cells & 1))
        return -1;
    return 0;
}

int acclog_line(acclog_t *a, const char *s)
{
    const char *p = s;
    acclog_row_t r;

    while (*p == ' ')
        p++;
    if (acclog_is_header(p)) {
        const char *sim = strstr(p, "simulator_error"), *rt = strstr(p, "runtime_error");
        acclog_free(a);
        a->has_sim = sim != NULL;
        a->has_rt = rt != NULL;
        a->in_table = 1;
        return 1;
    }
    if (!a->in_table)
        return 0;
    if (!strncmp(p, "entire", 6) || !strncmp(p, "cos ", 4))
        return 1;
    if (*p != '[' || !strncmp(p, "[...", 4))
        return 0;
    if (row(a, p, &r)) {
        a->n_bad_rows++;
        return -1;
    }
    if (!(a->n_rows & (a->n_rows - 1)))
        a->rows = xrealloc(a->rows, (size_t)(a->n_rows ? a->n_rows * 2 : 1) * sizeof(r));
    a->rows[a->n_rows++] = r;
    return 1;
}
