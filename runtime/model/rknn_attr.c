/* runtime/model/rknn_attr.c — a Toolkit2 node's attributes (model 6, node slot 9).
 * The slot is a byte vector holding one BSON document (bsonspec.org: int32 size,
 * typed elements, a NUL), one embedded document per attribute with the keys
 * "dtype" (a type letter, "f" for float32) and "value": the SDK's custom-op demo
 * dual_residual_custom.rknn stores {alpha: {dtype: "f", value: 0.5 (double)}} for
 * its cstDualResidual node, the attribute its compute callback reads through
 * rknn_custom_op_get_op_attr. Read with libbson (Debian libbson-dev), which
 * validates the document before it is walked. */
#include "runtime/model/model.h"
#include "runtime/model/rknn_file.h"
#include "util/util.h"

#include <bson/bson.h>
#include <math.h>
#include <string.h>

/* a number of the document: 1 float, 2 int, 0 not a number */
static int number(const bson_iter_t *it, double *f, int64_t *i)
{
    switch (bson_iter_type(it)) {
    case BSON_TYPE_DOUBLE:
        *f = bson_iter_double(it);
        *i = (int64_t)*f;
        return 1;
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_BOOL:
        *i = bson_iter_as_int64(it);
        *f = (double)*i;
        return 2;
    default:
        return 0;
    }
}

/* The "value" of one attribute into a; float_type: the dtype letter says float. */
static int one_attr(bson_iter_t *val, int float_type, attr_t *a)
{
    double f;
    int64_t i;
    int k;

    if (BSON_ITER_HOLDS_UTF8(val)) {
        uint32_t n;
        const char *s = bson_iter_utf8(val, &n);
        a->type = ATTR_STRING;
        a->s = xmalloc((size_t)n + 1);
        memcpy(a->s, s, n);
        a->s[n] = 0;
        return 0;
    }
    if (BSON_ITER_HOLDS_ARRAY(val)) {
        bson_iter_t el;
        int n = 0, any_float = float_type;
        if (!bson_iter_recurse(val, &el))
            return -1;
        while (bson_iter_next(&el)) {
            if (!(k = number(&el, &f, &i)))
                return -1;
            any_float |= k == 1;
            n++;
        }
        a->n = n;
        a->type = any_float ? ATTR_FLOATS : ATTR_INTS;
        if (any_float)
            a->floats = xcalloc((size_t)n + 1, sizeof(float));
        else
            a->ints = xcalloc((size_t)n + 1, sizeof(int64_t));
        bson_iter_recurse(val, &el);
        for (int j = 0; bson_iter_next(&el); j++) {
            number(&el, &f, &i);
            if (any_float)
                a->floats[j] = (float)f;
            else
                a->ints[j] = i;
        }
        return 0;
    }
    if (!(k = number(val, &f, &i)))
        return -1;
    if (k == 1 || float_type) {
        a->type = ATTR_FLOAT;
        a->f = (float)f;
    } else {
        a->type = ATTR_INT;
        a->i = i;
    }
    return 0;
}

int rknn_node_attrs(const rknn_model *m, const uint8_t *file, size_t len, int ni, attr_t **out,
                    int *n, char *err, size_t errlen)
{
    const rknn_node *nd;
    bson_t doc;
    bson_iter_t it;
    attr_t *v = NULL;
    int k = 0;

    *out = NULL;
    *n = 0;
    if (ni < 0 || ni >= m->n_nodes)
        return rt_err(err, errlen, RT_EINVAL, "node %d: no such node", ni);
    nd = &m->nodes[ni];
    if (nd->attr_off < 0 || nd->attr_len <= 0)
        return 0;
    if ((uint64_t)nd->attr_off > len || (uint64_t)nd->attr_len > len - (uint64_t)nd->attr_off)
        return rt_err(err, errlen, RT_EFORMAT, "node %d (%s): attributes outside the file", ni,
                      nd->name);
    /* bson_init_static checks the length word against the bytes; validate the rest */
    size_t bad_at = 0;
    if (!bson_init_static(&doc, file + nd->attr_off, (size_t)nd->attr_len) ||
        !bson_validate(&doc, BSON_VALIDATE_UTF8 | BSON_VALIDATE_EMPTY_KEYS, &bad_at))
        return rt_err(err, errlen, RT_EFORMAT, "node %d (%s): attributes (%lld bytes) are not "
                      "a valid BSON document (byte %zu)", ni, nd->name,
                      (long long)nd->attr_len, bad_at);
    if (!bson_iter_init(&it, &doc))
        return rt_err(err, errlen, RT_EFORMAT, "node %d (%s): attributes unreadable", ni,
                      nd->name);
    while (bson_iter_next(&it)) {
        bson_iter_t sub, val;
        int float_type = 0, has_val = 0;
        attr_t a = {0};

        if (!BSON_ITER_HOLDS_DOCUMENT(&it) || !bson_iter_recurse(&it, &sub))
            continue; /* not of the {dtype, value} form: left out */
        while (bson_iter_next(&sub)) {
            if (!strcmp(bson_iter_key(&sub), "dtype") && BSON_ITER_HOLDS_UTF8(&sub)) {
                const char *d = bson_iter_utf8(&sub, NULL);
                float_type = d[0] == 'f';
            } else if (!strcmp(bson_iter_key(&sub), "value")) {
                val = sub;
                has_val = 1;
            }
        }
        if (!has_val || one_attr(&val, float_type, &a))
            continue;
        a.name = xstrdup(bson_iter_key(&it));
        v = xrealloc(v, sizeof(*v) * (size_t)(k + 1));
        v[k++] = a;
    }
    *out = v;
    *n = k;
    return 0;
}

int rknn_custom_nodes(const rknn_model *m, const uint8_t *file, size_t len, graph_t *g,
                      int *node_of, char *err, size_t errlen)
{
    for (int i = 0; i < m->n_nodes; i++) {
        const rknn_node *nd = &m->nodes[i];
        int *ins, *outs, gi, rc;
        node_of[i] = -1;
        if (nd->target != RKNN_TGT_CPU || strncmp(nd->type, "cst", 3))
            continue;
        ins = xcalloc((size_t)nd->n_in + 1, sizeof(int));
        outs = xcalloc((size_t)nd->n_out + 1, sizeof(int));
        for (int k = 0; k < nd->n_in + nd->n_out; k++) {
            const rknn_tensor *t = &m->tensors[k < nd->n_in ? nd->in[k] : nd->out[k - nd->n_in]];
            int ti = graph_find_tensor(g, t->name);
            if (ti < 0) {
                ti = graph_add_tensor(g, t->name);
                g->t[ti].dtype = DT_FLOAT;
                g->t[ti].ndim = t->nd < MODEL_MAX_DIMS ? t->nd : MODEL_MAX_DIMS;
                for (int d = 0; d < g->t[ti].ndim; d++)
                    g->t[ti].dims[d] = t->shape[d];
            }
            if (k < nd->n_in)
                ins[k] = ti;
            else
                outs[k - nd->n_in] = ti;
        }
        gi = graph_add_node(g, nd->name, nd->type, "", nd->n_in, ins, nd->n_out, outs);
        free(ins);
        free(outs);
        if ((rc = rknn_node_attrs(m, file, len, i, &g->nodes[gi].attrs, &g->nodes[gi].n_attr, err,
                                  errlen)))
            return rc;
        node_of[i] = gi;
    }
    return 0;
}
