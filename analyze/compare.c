/* analyze/compare.c — two stored runs aligned by source tensor name, and their
 * stored output tensors compared. */
#include "analyze/analyze.h"
#include "dump/dump.h"
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

int compare_output_files(const char *a, const char *b, metrics_t *m, char *err, size_t errlen)
{
    npy_array x, y;
    int rc = npy_read(a, &x, err, errlen);
    if (rc)
        return rc;
    rc = npy_read(b, &y, err, errlen);
    if (rc) {
        npy_free(&x);
        return rc;
    }
    int64_t n = (int64_t)x.count, ny = (int64_t)y.count;
    if (n != ny)
        rc = rt_err(err, errlen, RT_ESHAPE, "%s: %lld values, %s: %lld", a, (long long)n, b,
                    (long long)ny);
    else
        rc = metrics_compute_typed(x.dtype, x.data, y.dtype, y.data, n, m, err, errlen);
    npy_free(&x);
    npy_free(&y);
    return rc;
}

double compare_slower_pct(double base_us, double us)
{
    return base_us > 0 && !isnan(us) ? (us / base_us - 1.0) * 100.0 : NAN;
}

const char *compare_verdict(char *buf, size_t len, const char *tag, double slower_pct, int by_host)
{
    char pct[32];
    if (isnan(slower_pct))
        snprintf(pct, sizeof(pct), "-");
    else
        snprintf(pct, sizeof(pct), "%+.1f%%", slower_pct);
    snprintf(buf, len, "%s vs A: %s %s%s", tag, by_host ? "host median (this PC)" : "predicted NPU frame",
             pct, isnan(slower_pct) ? (by_host ? " (no host time)" : " (no prediction; --by host)") : "");
    return buf;
}
