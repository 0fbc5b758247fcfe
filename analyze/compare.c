/* analyze/compare.c — two stored runs aligned by source tensor name, and the
 * per-run figures the gates of `rknn-trace compare` test. */
#include "analyze/analyze.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    int64_t layer;   /* execution position: layer index, -1 for inputs */
    int seq;         /* order of appearance, to keep the sort stable */
    const char *name, *op;
    int li, ai;      /* layer row, accuracy row */
} entry;

static int cmp_entry(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    if (a->layer != b->layer)
        return a->layer < b->layer ? -1 : 1;
    return a->seq - b->seq;
}

static int find(const entry *e, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(e[i].name, name))
            return i;
    return -1;
}

/* Every distinct tensor name of one run, in execution order. */
static entry *entries_of(const compare_side *s, int *out_n)
{
    int cap = s->n_layers + s->n_acc, n = 0, seq = 0;
    entry *e = xcalloc((size_t)(cap ? cap : 1), sizeof(*e));
    for (int i = 0; i < s->n_acc; i++) {
        const store_accuracy *a = &s->acc[i];
        if (!a->name || find(e, n, a->name) >= 0)
            continue;
        e[n++] = (entry){ a->layer == STORE_NULL_INT ? -1 : a->layer, seq++, a->name, a->op, -1, i };
    }
    for (int i = 0; i < s->n_layers; i++) {
        const store_layer *l = &s->layers[i];
        if (!l->name)
            continue;
        int k = find(e, n, l->name);
        if (k >= 0) {
            e[k].li = i;
            continue;
        }
        e[n++] = (entry){ l->idx, seq++, l->name, l->op, i, -1 };
    }
    qsort(e, (size_t)n, sizeof(*e), cmp_entry);
    *out_n = n;
    return e;
}

int compare_align(const compare_side *a, const compare_side *b, compare_row **rows, int *n)
{
    int na, nb, cnt = 0;
    entry *ea = entries_of(a, &na), *eb = entries_of(b, &nb);
    compare_row *v = xcalloc((size_t)(na + nb ? na + nb : 1), sizeof(*v));

    for (int i = 0; i < na; i++) {
        int k = find(eb, nb, ea[i].name);
        v[cnt++] = (compare_row){ ea[i].name, ea[i].op ? ea[i].op : k >= 0 ? eb[k].op : NULL,
                                  { ea[i].li, k >= 0 ? eb[k].li : -1 },
                                  { ea[i].ai, k >= 0 ? eb[k].ai : -1 } };
    }
    for (int k = 0; k < nb; k++)
        if (find(ea, na, eb[k].name) < 0)
            v[cnt++] = (compare_row){ eb[k].name, eb[k].op, { -1, eb[k].li }, { -1, eb[k].ai } };
    free(ea);
    free(eb);
    *rows = v;
    *n = cnt;
    return RT_OK;
}

/* "npu_predicted_us":<number> in the run's extra JSON (written by `run`). */
static double npu_predicted(const store_run *r)
{
    const char *key = "\"npu_predicted_us\":";
    const char *p = r->extra_json ? strstr(r->extra_json, key) : NULL;
    if (!p)
        return NAN;
    char *end;
    double v = strtod(p + strlen(key), &end);
    return end == p + strlen(key) ? NAN : v;
}

void compare_summarise(const compare_side *s, double thr, compare_summary *o)
{
    memset(o, 0, sizeof(*o));
    o->total_us = s->run ? s->run->total_us : NAN;
    o->npu_us = s->run ? npu_predicted(s->run) : NAN;
    o->out_cos = NAN;
    o->first_below = -1;
    o->n_acc = s->n_acc;
    int nan_seen = 0;
    for (int i = 0; i < s->n_acc; i++) {
        double c = s->acc[i].entire.cos;
        if (o->first_below < 0 && !isnan(c) && c < thr)
            o->first_below = i;
        if (!s->acc[i].is_output)
            continue;
        /* a constant output (NaN cos) is the worst: its cosine says nothing */
        if (isnan(c)) {
            if (!nan_seen)
                o->worst_output = s->acc[i].name;
            nan_seen = 1;
        } else if (!nan_seen && (isnan(o->out_cos) || c < o->out_cos)) {
            o->out_cos = c;
            o->worst_output = s->acc[i].name;
        }
    }
    if (nan_seen)
        o->out_cos = NAN;
}
