/* tests/graph_build.h — building a one-node graph in a kernel test: float
 * tensors (constant when given data) and the node's attributes, appended one
 * at a time as the ONNX loader leaves them. */
#ifndef RT_TEST_GRAPH_BUILD_H
#define RT_TEST_GRAPH_BUILD_H

#include "runtime/model/model.h"
#include "util/util.h"

#include <string.h>

static inline int add_tensor(graph_t *g, const char *name, int ndim, const int64_t *dims,
                             const float *data)
{
    int t = graph_add_tensor(g, name);
    tensor_set_shape(&g->t[t], DT_FLOAT, ndim, dims);
    if (data) {
        size_t nb = tensor_nbytes(&g->t[t]);
        g->t[t].data = xmalloc(nb + 4);
        memcpy(g->t[t].data, data, nb);
        g->t[t].kind = TK_CONST;
    }
    return t;
}

/* A new attribute of n, its name and type set, the rest zero. */
static inline attr_t *new_attr(node_t *n, const char *name, int type)
{
    n->attrs = xrealloc(n->attrs, (n->n_attr + 1) * sizeof(attr_t));
    attr_t *a = &n->attrs[n->n_attr++];
    memset(a, 0, sizeof *a);
    a->name = xstrdup(name);
    a->type = type;
    return a;
}

static inline void set_ints(node_t *n, const char *name, int cnt, const int64_t *v)
{
    attr_t *a = new_attr(n, name, ATTR_INTS);
    a->n = cnt;
    a->ints = xmalloc((cnt + 1) * sizeof(int64_t));
    memcpy(a->ints, v, cnt * sizeof(int64_t));
}

static inline void set_int(node_t *n, const char *name, int64_t v)
{
    new_attr(n, name, ATTR_INT)->i = v;
}

static inline void set_float(node_t *n, const char *name, float v)
{
    new_attr(n, name, ATTR_FLOAT)->f = v;
}

static inline void set_str(node_t *n, const char *name, const char *v)
{
    new_attr(n, name, ATTR_STRING)->s = xstrdup(v);
}

#endif
