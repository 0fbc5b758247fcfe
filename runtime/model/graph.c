/* runtime/model/graph.c — the graph IR: building, name lookup, topological
 * sorting, tensor and attribute helpers.
 *
 * Name lookup goes through an open-addressing hash map that lives next to the
 * graph_t (graph_new allocates both), because real models have thousands of
 * tensors and the importer looks every name up. Graphs must therefore come from
 * graph_new(), and tensor names must not be changed in place. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "runtime/model/model.h"
#include "util/util.h"

#define GRAPH_MAGIC 0x47524150484d4150ull /* "GRAPHMAP" */

struct graph_box {
    graph_t g;          /* first: a graph_t * is a graph_box * */
    uint64_t magic;
    int *slot;          /* tensor index + 1, 0 = empty */
    size_t cap;         /* power of two */
    int indexed;        /* tensors [0, indexed) are in the map */
};

static struct graph_box *box_of(const graph_t *g)
{
    struct graph_box *b = (struct graph_box *)g;

    RT_ASSERT(b->magic == GRAPH_MAGIC); /* graphs must come from graph_new() */
    return b;
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */

    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static void map_put(struct graph_box *b, int idx)
{
    const char *name = b->g.t[idx].name;
    size_t mask = b->cap - 1, i;

    if (!name || !*name)
        return;
    for (i = name_hash(name) & mask; b->slot[i]; i = (i + 1) & mask) {
        /* keep the first tensor of a name: lookups find the original */
        if (strcmp(b->g.t[b->slot[i] - 1].name, name) == 0)
            return;
    }
    b->slot[i] = idx + 1;
}

static void map_rebuild(struct graph_box *b, size_t want)
{
    size_t cap = 64;
    int i;

    while (cap < want * 2)
        cap *= 2;
    free(b->slot);
    b->slot = xcalloc(cap, sizeof(*b->slot));
    b->cap = cap;
    for (i = 0; i < b->g.n_t; i++)
        map_put(b, i);
    b->indexed = b->g.n_t;
}

/* Brings the map up to date with tensors appended since the last lookup. */
static void map_sync(struct graph_box *b)
{
    if ((size_t)b->g.n_t * 2 > b->cap || b->indexed > b->g.n_t) {
        map_rebuild(b, (size_t)b->g.n_t + 16);
        return;
    }
    for (; b->indexed < b->g.n_t; b->indexed++)
        map_put(b, b->indexed);
}

graph_t *graph_new(void)
{
    struct graph_box *b = xcalloc(1, sizeof(*b));

    b->magic = GRAPH_MAGIC;
    b->g.producer = xstrdup("");
    map_rebuild(b, 16);
    return &b->g;
}

static void tensor_clear(tensor_t *t)
{
    int i;

    free(t->name);
    for (i = 0; i < MODEL_MAX_DIMS; i++)
        free(t->dim_param[i]);
    free(t->data);
    memset(t, 0, sizeof(*t));
}

static void attr_clear(attr_t *a)
{
    int i;

    free(a->name);
    free(a->s);
    free(a->floats);
    free(a->ints);
    for (i = 0; a->strings && i < a->n; i++)
        free(a->strings[i]);
    free(a->strings);
    if (a->t) {
        tensor_clear(a->t);
        free(a->t);
    }
    memset(a, 0, sizeof(*a));
}

void graph_free(graph_t *g)
{
    struct graph_box *b;
    int i, j;

    if (!g)
        return;
    b = box_of(g);
    for (i = 0; i < g->n_nodes; i++) {
        node_t *n = &g->nodes[i];

        if (n->def && n->def->release)
            n->def->release(n);
        free(n->name);
        free(n->op);
        free(n->domain);
        free(n->in);
        free(n->out);
        for (j = 0; j < n->n_attr; j++)
            attr_clear(&n->attrs[j]);
        free(n->attrs);
    }
    for (i = 0; i < g->n_t; i++) {
        tensor_t *t = &g->t[i];

        /* only constants own their data; the executor owns the rest */
        if (t->kind != TK_CONST)
            t->data = NULL;
        tensor_clear(t);
    }
    free(g->t);
    free(g->nodes);
    free(g->inputs);
    free(g->outputs);
    free(g->producer);
    free(b->slot);
    b->magic = 0;
    free(b);
}

int graph_input_is_static(const tensor_t *t)
{
    if (t->ndim < 0)
        return 0;
    for (int d = 0; d < t->ndim; d++)
        if (t->dims[d] < 0 || t->dim_param[d])
            return 0;
    return 1;
}

void graph_free_static_inputs(graph_t *g)
{
    for (int i = 0; i < g->n_inputs; i++) {
        tensor_t *t = &g->t[g->inputs[i]];
        if (graph_input_is_static(t))
            for (int d = 0; d < t->ndim; d++)
                t->dims[d] = -1;
    }
}

int graph_find_tensor(const graph_t *g, const char *name)
{
    struct graph_box *b = box_of(g);
    size_t mask, i;
    int retried = 0;

    if (!name || !*name)
        return -1;
again:
    map_sync(b);
    mask = b->cap - 1;
    for (i = name_hash(name) & mask; b->slot[i]; i = (i + 1) & mask) {
        int idx = b->slot[i] - 1;
        const char *tn = idx < g->n_t ? g->t[idx].name : NULL;

        if (tn && strcmp(tn, name) == 0)
            return idx;
        if (!tn && !retried) {
            /* stale entry (tensors were removed): rebuild once */
            map_rebuild(b, (size_t)g->n_t + 16);
            retried = 1;
            goto again;
        }
    }
    return -1;
}

int graph_add_tensor(graph_t *g, const char *name)
{
    tensor_t *t;
    int idx, i;
    char tmp[32];

    idx = graph_find_tensor(g, name);
    if (idx >= 0)
        return idx;
    if (g->n_t == g->cap_t) {
        g->cap_t = g->cap_t ? g->cap_t * 2 : 64;
        g->t = xrealloc(g->t, (size_t)g->cap_t * sizeof(*g->t));
    }
    idx = g->n_t++;
    t = &g->t[idx];
    memset(t, 0, sizeof(*t));
    if (!name || !*name) {
        snprintf(tmp, sizeof(tmp), "_t%d", idx);
        name = tmp;
    }
    t->name = xstrdup(name);
    t->dtype = DT_UNDEFINED;
    t->ndim = -1;
    for (i = 0; i < MODEL_MAX_DIMS; i++)
        t->dims[i] = -1;
    t->kind = TK_ACT;
    t->producer = -1;
    map_sync(box_of(g));
    return idx;
}

int graph_add_node(graph_t *g, const char *name, const char *op, const char *domain,
                   int n_in, const int *in, int n_out, const int *out)
{
    node_t *n;
    int idx, i;
    char tmp[96];

    if (g->n_nodes == g->cap_nodes) {
        g->cap_nodes = g->cap_nodes ? g->cap_nodes * 2 : 64;
        g->nodes = xrealloc(g->nodes, (size_t)g->cap_nodes * sizeof(*g->nodes));
    }
    idx = g->n_nodes++;
    n = &g->nodes[idx];
    memset(n, 0, sizeof(*n));
    if (!op)
        op = "";
    if (!name || !*name) {
        snprintf(tmp, sizeof(tmp), "%.64s_%d", *op ? op : "node", idx);
        name = tmp;
    }
    n->name = xstrdup(name);
    n->op = xstrdup(op);
    n->domain = xstrdup(domain ? domain : "");
    n->n_in = n_in;
    n->n_out = n_out;
    n->in = xmalloc(sizeof(int) * (size_t)(n_in > 0 ? n_in : 1));
    n->out = xmalloc(sizeof(int) * (size_t)(n_out > 0 ? n_out : 1));
    for (i = 0; i < n_in; i++)
        n->in[i] = in[i];
    for (i = 0; i < n_out; i++) {
        n->out[i] = out[i];
        if (out[i] >= 0 && out[i] < g->n_t)
            g->t[out[i]].producer = idx;
    }
    return idx;
}

void graph_set_io(graph_t *g, int n_in, const int *in, int n_out, const int *out)
{
    free(g->inputs);
    free(g->outputs);
    g->inputs = xmalloc(sizeof(int) * (size_t)(n_in > 0 ? n_in : 1));
    g->outputs = xmalloc(sizeof(int) * (size_t)(n_out > 0 ? n_out : 1));
    memcpy(g->inputs, in, sizeof(int) * (size_t)n_in);
    memcpy(g->outputs, out, sizeof(int) * (size_t)n_out);
    g->n_inputs = n_in;
    g->n_outputs = n_out;
    for (int i = 0; i < n_out; i++)
        g->t[out[i]].is_output = 1;
}

/* Min-heap of node indices: Kahn's algorithm that always takes the ready node
 * that came first, so a graph already in order keeps its order. */
static void heap_push(int *h, int *n, int v)
{
    int i = (*n)++;

    while (i > 0 && h[(i - 1) / 2] > v) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = v;
}

static int heap_pop(int *h, int *n)
{
    int top = h[0], v = h[--(*n)], i = 0;

    for (;;) {
        int c = 2 * i + 1;

        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1] < h[c])
            c++;
        if (h[c] >= v)
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0)
        h[i] = v;
    return top;
}

int graph_toposort(graph_t *g, char *err, size_t errlen)
{
    int nn = g->n_nodes, nt = g->n_t;
    int *prod = NULL, *indeg = NULL, *heap = NULL, *order = NULL;
    int *cons_start = NULL, *cons = NULL;
    int i, j, nh = 0, no = 0, ret = 0, ncons = 0;
    node_t *sorted = NULL;

    prod = xmalloc(sizeof(int) * (size_t)(nt + 1));
    for (i = 0; i < nt; i++)
        prod[i] = -1;
    for (i = 0; i < nn; i++) {
        const node_t *n = &g->nodes[i];

        for (j = 0; j < n->n_out; j++) {
            int o = n->out[j];

            if (o < 0)
                continue;
            if (o >= nt) {
                ret = rt_err(err, errlen, RT_EINTERNAL, "node '%s' has a bad output index",
                             n->name);
                goto out;
            }
            if (prod[o] >= 0 || g->t[o].kind == TK_INPUT ||
                (g->t[o].kind == TK_CONST && !n->folded)) {
                ret = rt_err(err, errlen, RT_EFORMAT,
                             "tensor '%s' is produced twice (node '%s')", g->t[o].name,
                             n->name);
                goto out;
            }
            prod[o] = i;
        }
    }
    /* consumers as a CSR list: node i's inputs produced by node p make an edge p->i */
    indeg = xcalloc((size_t)nn + 1, sizeof(int));
    cons_start = xcalloc((size_t)nn + 2, sizeof(int));
    for (i = 0; i < nn; i++) {
        const node_t *n = &g->nodes[i];

        for (j = 0; j < n->n_in; j++) {
            int t = n->in[j];

            if (t < 0)
                continue;
            if (t >= nt) {
                ret = rt_err(err, errlen, RT_EINTERNAL, "node '%s' has a bad input index",
                             n->name);
                goto out;
            }
            if (g->t[t].kind == TK_ACT && prod[t] < 0) {
                ret = rt_err(err, errlen, RT_EFORMAT,
                             "node '%s' (%s): input '%s' is not produced by any node, "
                             "initializer or graph input",
                             n->name, n->op, g->t[t].name);
                goto out;
            }
            if (prod[t] >= 0) {
                cons_start[prod[t] + 1]++;
                indeg[i]++;
                ncons++;
            }
        }
    }
    for (i = 0; i < nn; i++)
        cons_start[i + 1] += cons_start[i];
    cons = xmalloc(sizeof(int) * (size_t)(ncons + 1));
    {
        int *fill = xmalloc(sizeof(int) * (size_t)(nn + 1));

        memcpy(fill, cons_start, sizeof(int) * (size_t)nn);
        for (i = 0; i < nn; i++) {
            const node_t *n = &g->nodes[i];

            for (j = 0; j < n->n_in; j++) {
                int t = n->in[j];

                if (t >= 0 && prod[t] >= 0)
                    cons[fill[prod[t]]++] = i;
            }
        }
        free(fill);
    }
    heap = xmalloc(sizeof(int) * (size_t)(nn + 1));
    order = xmalloc(sizeof(int) * (size_t)(nn + 1));
    for (i = 0; i < nn; i++)
        if (indeg[i] == 0)
            heap_push(heap, &nh, i);
    while (nh > 0) {
        int v = heap_pop(heap, &nh);

        order[no++] = v;
        for (j = cons_start[v]; j < cons_start[v + 1]; j++)
            if (--indeg[cons[j]] == 0)
                heap_push(heap, &nh, cons[j]);
    }
    if (no < nn) {
        for (i = 0; i < nn && indeg[i] == 0; i++)
            ;
        ret = rt_err(err, errlen, RT_EFORMAT, "the graph has a cycle (through node '%s' (%s))",
                     g->nodes[i].name, g->nodes[i].op);
        goto out;
    }
    sorted = xmalloc(sizeof(node_t) * (size_t)(nn + 1));
    for (i = 0; i < nn; i++)
        sorted[i] = g->nodes[order[i]];
    if (nn)
        memcpy(g->nodes, sorted, sizeof(node_t) * (size_t)nn);
    for (i = 0; i < nt; i++)
        g->t[i].producer = -1;
    for (i = 0; i < nn; i++)
        for (j = 0; j < g->nodes[i].n_out; j++)
            if (g->nodes[i].out[j] >= 0)
                g->t[g->nodes[i].out[j]].producer = i;
out:
    free(prod);
    free(indeg);
    free(cons_start);
    free(cons);
    free(heap);
    free(order);
    free(sorted);
    return ret;
}

int64_t tensor_numel(const tensor_t *t)
{
    int64_t n = 1;
    int i;

    if (t->ndim < 0 || t->ndim > MODEL_MAX_DIMS)
        return -1;
    for (i = 0; i < t->ndim; i++) {
        if (t->dims[i] < 0)
            return -1;
        if (t->dims[i] == 0)
            return 0;
    }
    for (i = 0; i < t->ndim; i++) {
        if (n > INT64_MAX / t->dims[i])
            return -1; /* overflow: as good as unknown */
        n *= t->dims[i];
    }
    return n;
}

size_t tensor_nbytes(const tensor_t *t)
{
    int64_t n = tensor_numel(t);
    size_t es = dtype_size(t->dtype);

    if (n < 0 || es == 0 || (uint64_t)n > SIZE_MAX / es)
        return 0;
    return (size_t)n * es;
}

void tensor_free_data(tensor_t *t)
{
    free(t->data);
    t->data = NULL;
}

const char *tensor_shape_str(const tensor_t *t, char *buf, size_t len)
{
    size_t off = 0;
    int i;

    if (!len)
        return buf;
    buf[0] = 0;
    if (t->ndim < 0) {
        snprintf(buf, len, "?");
        return buf;
    }
    if (t->ndim == 0) {
        snprintf(buf, len, "scalar");
        return buf;
    }
    for (i = 0; i < t->ndim && i < MODEL_MAX_DIMS && off < len; i++) {
        int w;

        if (t->dims[i] < 0)
            w = snprintf(buf + off, len - off, "%s?", i ? "x" : "");
        else
            w = snprintf(buf + off, len - off, "%s%lld", i ? "x" : "",
                         (long long)t->dims[i]);
        if (w < 0)
            break;
        off += (size_t)w;
    }
    return buf;
}

const attr_t *node_attr(const node_t *n, const char *name)
{
    int i;

    for (i = 0; i < n->n_attr; i++)
        if (n->attrs[i].name && strcmp(n->attrs[i].name, name) == 0)
            return &n->attrs[i];
    return NULL;
}

int64_t node_attr_int(const node_t *n, const char *name, int64_t def)
{
    const attr_t *a = node_attr(n, name);

    if (!a)
        return def;
    if (a->type == ATTR_INT)
        return a->i;
    /* a float where an int belongs: only when it converts without UB */
    if (a->type == ATTR_FLOAT && a->f > -9.2e18f && a->f < 9.2e18f)
        return (int64_t)a->f;
    return def;
}

float node_attr_float(const node_t *n, const char *name, float def)
{
    const attr_t *a = node_attr(n, name);

    if (!a)
        return def;
    if (a->type == ATTR_FLOAT)
        return a->f;
    if (a->type == ATTR_INT)
        return (float)a->i;
    return def;
}

const char *node_attr_str(const node_t *n, const char *name, const char *def)
{
    const attr_t *a = node_attr(n, name);

    return a && a->type == ATTR_STRING && a->s ? a->s : def;
}

int node_attr_ints(const node_t *n, const char *name, const int64_t **v)
{
    const attr_t *a = node_attr(n, name);

    if (!a || a->type != ATTR_INTS)
        return -1;
    *v = a->ints;
    return a->n;
}

int node_attr_floats(const node_t *n, const char *name, const float **v)
{
    const attr_t *a = node_attr(n, name);

    if (!a || a->type != ATTR_FLOATS)
        return -1;
    *v = a->floats;
    return a->n;
}

tensor_t *node_input(graph_t *g, const node_t *n, int i)
{
    if (i < 0 || i >= n->n_in || n->in[i] < 0 || n->in[i] >= g->n_t)
        return NULL;
    return &g->t[n->in[i]];
}

tensor_t *node_output(graph_t *g, const node_t *n, int i)
{
    if (i < 0 || i >= n->n_out || n->out[i] < 0 || n->out[i] >= g->n_t)
        return NULL;
    return &g->t[n->out[i]];
}
