/* analyze/compare.c — two stored runs' output tensors compared, and their compiled
 * graphs layer against layer (the alignment of N runs by tensor name is
 * analyze/compare_doc.c). */
#include "analyze/analyze.h"
#include "dump/dump.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- compiled graphs, layer against layer ---- */

static int same_text(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

/* The source node a row or FullName names: "Conv:Conv_0_ConvAdd" -> "Conv_0",
 * "Conv:input.12_Conv" -> "input.12" (toolkits append the op type), "Conv_1"
 * as is. */
static void node_part(const char *s, char *buf, size_t len)
{
    const char *colon = s ? strchr(s, ':') : NULL;
    char *us;

    snprintf(buf, len, "%s", colon ? colon + 1 : s ? s : "");
    us = strrchr(buf, '_');
    if (us && us > buf && us[1] >= 'A' && us[1] <= 'Z' && !strchr(us, '/'))
        *us = '\0';
}

/* Appends the shape v[0..n) as "[a,b,...]" at *u, after a comma past the
 * list's "[" (*u counts what would have been written). */
static void put_shape(char *buf, size_t len, size_t *u, const int64_t *v, int n)
{
    for (int i = -1; i <= n; i++) {
        size_t room = *u < len ? len - *u : 0;
        char *at = buf + (*u < len ? *u : len);
        if (i < 0)
            *u += (size_t)snprintf(at, room, "%s[", *u > 1 ? "," : "");
        else if (i < n)
            *u += (size_t)snprintf(at, room, "%s%lld", i ? "," : "", (long long)v[i]);
        else
            *u += (size_t)snprintf(at, room, "]");
    }
}

const char *compare_shapes_4d(const char *list, char *buf, size_t len)
{
    size_t u = 0;
    const char *p = list;

    if (!list || len < 3 || p[0] != '[' || p[1] != '[')
        goto as_is;
    u = (size_t)snprintf(buf, len, "[");
    for (p++; *p == '[';) {
        int64_t d[8], v[8] = {1, 1, 1, 1};
        int nd = 0;
        char *e;
        for (p++; *p != ']';) {
            if (nd == 8)
                goto as_is;
            d[nd++] = strtoll(p, &e, 10);
            if (e == p || (*e != ',' && *e != ']'))
                goto as_is;
            p = *e == ',' ? e + 1 : e;
        }
        p++;
        if (nd == 1)
            v[1] = d[0];
        else if (nd == 2 || nd == 3)
            v[0] = d[0], v[1] = d[1], v[3] = nd == 3 ? d[2] : 1;
        else if (nd > 3)
            memcpy(v, d, sizeof(int64_t) * (size_t)nd);
        put_shape(buf, len, &u, v, nd > 4 ? nd : 4);
        if (*p == ',')
            p++;
    }
    if (*p != ']' || p[1])
        goto as_is;
    u += (size_t)snprintf(buf + (u < len ? u : len), u < len ? len - u : 0, "]");
    if (u < len)
        return buf;
as_is:
    snprintf(buf, len, "%s", list ? list : "");
    return buf;
}

/* The first element of a JSON list of shapes: "[[1,3,8,8],[8,3,3,3]]" -> "[1,3,8,8]". */
static void first_shape(const char *list, char *buf, size_t len)
{
    const char *open = list ? strchr(list + (list[0] == '['), '[') : NULL;
    const char *close = open ? strchr(open, ']') : NULL;

    buf[0] = '\0';
    if (open && close)
        snprintf(buf, len, "%.*s", (int)(close - open + 1), open);
}

typedef struct gside {
    const compare_side *s;
    compare_glayer *gl;
    int n;
} gside;

static void glayers_of(const compare_side *s, gside *out)
{
    int first = 0, n = 0;

    out->s = s;
    out->gl = xcalloc((size_t)(s->n_layers ? s->n_layers : 1), sizeof(*out->gl));
    for (int i = 0; i < s->n_layers; i++) {
        const store_layer *r = &s->layers[i], *f = &s->layers[first];
        if (!store_layer_has_figures(r))
            continue;
        compare_glayer *g = &out->gl[n];
        g->row = i;
        g->first = first;
        g->op = r->npu_op ? r->npu_op : r->op ? r->op : "?";
        store_layer_fullname(s->layers, i, g->full, sizeof(g->full));
        g->target = r->target;
        g->dtype = r->npu_dtype;
        g->out_shape = r->out_shapes;
        compare_shapes_4d(r->out_shapes, g->out_key, sizeof(g->out_key));
        first_shape(f->in_shapes, g->in_shape, sizeof(g->in_shape));
        char one[112];
        snprintf(one, sizeof one, "[%s]", g->in_shape);
        compare_shapes_4d(g->in_shape[0] ? one : NULL, g->in_key, sizeof(g->in_key));
        g->io = summary_op_is_io(g->op);
        n++;
        first = i + 1;
    }
    out->n = n;
}

/* Does layer g of side s compute tensor `name`, or the source node `node`? */
static int covers(const gside *s, const compare_glayer *g, const char *name, const char *node)
{
    char a[160];

    for (int i = g->first; i <= g->row; i++) {
        const store_layer *r = &s->s->layers[i];
        if (same_text(r->name, name))
            return 1;
        node_part(r->node, a, sizeof(a));
        if (node[0] && !strcmp(a, node))
            return 1;
    }
    return 0;
}

static int dtype_equal(const char *a, const char *b)
{
    if (!a || !b)
        return 1; /* not known on one side: nothing to compare */
    if (!strcmp(a, "UINT8"))
        a = "INT8"; /* the runtime prints UINT8 for layers reading a uint8 image */
    if (!strcmp(b, "UINT8"))
        b = "INT8";
    return !strcmp(a, b);
}

static int pair_diff(const gside *sa, const compare_glayer *a, const gside *sb,
                     const compare_glayer *b, int by_name)
{
    int d = 0;
    char na[160], nb[160];

    if (!same_text(a->op, b->op))
        d |= CMP_G_OP;
    if (by_name && !(d & CMP_G_OP)) {
        node_part(a->full, na, sizeof(na));
        node_part(b->full, nb, sizeof(nb));
        if (strcmp(na, nb) && !covers(sa, a, "", nb) && !covers(sb, b, "", na))
            d |= CMP_G_FUSION;
    }
    if (a->target && b->target && strcmp(a->target, b->target))
        d |= CMP_G_TARGET;
    if (!dtype_equal(a->dtype, b->dtype))
        d |= CMP_G_DTYPE;
    if (strcmp(a->out_key, b->out_key) ||
        (a->in_shape[0] && b->in_shape[0] && strcmp(a->in_key, b->in_key)))
        d |= CMP_G_SHAPE;
    return d;
}

const char *compare_graph_diff_name(int bit)
{
    switch (bit) {
    case CMP_G_OP: return "op";
    case CMP_G_FUSION: return "fusion";
    case CMP_G_TARGET: return "target";
    case CMP_G_DTYPE: return "dtype";
    case CMP_G_SHAPE: return "shape";
    }
    return "?";
}

void compare_graph_build(const compare_side *a, const compare_side *b, compare_graph *g)
{
    gside s[2];
    int *match[2], shared = 0, nn[2] = {0, 0};

    memset(g, 0, sizeof(*g));
    glayers_of(a, &s[0]);
    glayers_of(b, &s[1]);
    for (int k = 0; k < 2; k++) {
        g->gl[k] = s[k].gl;
        g->n[k] = s[k].n;
        match[k] = xmalloc(sizeof(int) * (size_t)(s[k].n ? s[k].n : 1));
        for (int i = 0; i < s[k].n; i++) {
            match[k][i] = -1;
            g->io[k] += s[k].gl[i].io;
        }
        g->io_rows[k] = (k ? b : a)->n_io_rows;
        nn[k] = s[k].n - g->io[k];
    }
    /* by the tensor each layer outputs, when names are shared enough */
    for (int i = 0; i < s[0].n; i++)
        for (int j = 0; j < s[1].n && !s[0].gl[i].io; j++)
            if (!s[1].gl[j].io && match[1][j] < 0 &&
                same_text(a->layers[s[0].gl[i].row].name, b->layers[s[1].gl[j].row].name)) {
                match[0][i] = j, match[1][j] = i, shared++;
                break;
            }
    g->by_name = shared > 0 && 2 * shared >= (nn[0] < nn[1] ? nn[0] : nn[1]);
    if (!g->by_name) {
        for (int i = 0; i < s[0].n; i++)
            match[0][i] = -1;
        for (int j = 0; j < s[1].n; j++)
            match[1][j] = -1;
        /* op type and output shape, then output shape alone, in execution order */
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < s[0].n; i++)
                for (int j = 0; j < s[1].n && match[0][i] < 0 && !s[0].gl[i].io; j++)
                    if (!s[1].gl[j].io && match[1][j] < 0 &&
                        s[0].gl[i].out_shape && s[1].gl[j].out_shape &&
                        !strcmp(s[0].gl[i].out_key, s[1].gl[j].out_key) &&
                        (pass || same_text(s[0].gl[i].op, s[1].gl[j].op)))
                        match[0][i] = j, match[1][j] = i;
    }
    g->pairs = xcalloc((size_t)(s[0].n + s[1].n + 1), sizeof(*g->pairs));
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < s[k].n; i++) {
            const compare_glayer *x = &s[k].gl[i];
            if (x->io || (k == 1 && match[1][i] >= 0))
                continue;
            compare_gpair *p = &g->pairs[g->n_pairs++];
            p->l[k] = i;
            p->l[!k] = match[k][i];
            if (p->l[!k] >= 0) {
                p->diff = pair_diff(&s[0], &s[0].gl[p->l[0]], &s[1], &s[1].gl[p->l[1]], g->by_name);
                if (p->diff)
                    g->n_differ++;
                else
                    g->n_equal++;
                for (int bit = 0; bit < 5; bit++)
                    g->n_diff[bit] += !!(p->diff & (1 << bit));
                continue;
            }
            g->n_only[k]++;
            /* where the other side computes it: inside a layer that fuses it */
            const char *name = s[k].s->layers[x->row].name;
            char node[160];
            node_part(x->full, node, sizeof(node));
            for (int j = 0; j < s[!k].n && g->by_name; j++)
                if (!s[!k].gl[j].io && covers(&s[!k], &s[!k].gl[j], name ? name : "", node)) {
                    snprintf(p->note, sizeof(p->note), "%s %s %s there",
                             strcmp(s[!k].gl[j].op, x->op) ? "fused into" : "computed as",
                             s[!k].gl[j].op, s[!k].gl[j].full);
                    break;
                }
            if (!p->note[0])
                snprintf(p->note, sizeof(p->note), "%s", g->by_name
                         ? "no layer there outputs or fuses it"
                         : "no layer there with this output shape");
        }
    free(match[0]);
    free(match[1]);
}

void compare_graph_free(compare_graph *g)
{
    free(g->gl[0]);
    free(g->gl[1]);
    free(g->pairs);
    memset(g, 0, sizeof(*g));
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
