/* record/seed_input.c — the seeded random input of a run without -i, one
 * generator for every backend, so that a seed means the same input on the
 * simulator and on a board, on every machine. */
#include "record/inputs.h"
#include "util/util.h"
#include "util/dtype.h"

#include <stdio.h>
#include <string.h>

/* splitmix64: a tiny, well-known generator */
static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int seed_input_fill(int dtype, int64_t n, long long seed, int index, void *buf)
{
    return seed_input_fill_below(dtype, n, seed, index, 0, buf);
}

int seed_input_fill_below(int dtype, int64_t n, long long seed, int index, int64_t below,
                          void *buf)
{
    uint64_t s = (uint64_t)seed + (uint64_t)index;
    /* integers: [0, 10), or [0, below) for a smaller bound (values under it are
     * the same as without one: a seed keeps its meaning) */
    const double span = below > 0 && below < 10 ? (double)below : 10;

    for (int64_t i = 0; i < n; i++) {
        uint64_t r = next_rand(&s);
        double u = (double)(r >> 11) * (1.0 / 9007199254740992.0);
        switch (dtype) {
        case DT_FLOAT: ((float *)buf)[i] = (float)u; break;
        case DT_DOUBLE: ((double *)buf)[i] = u; break;
        case DT_INT64: ((int64_t *)buf)[i] = (int64_t)(u * span); break;
        case DT_INT32: ((int32_t *)buf)[i] = (int32_t)(u * span); break;
        case DT_UINT8: ((uint8_t *)buf)[i] = (uint8_t)(u * 256); break;
        case DT_INT8: ((int8_t *)buf)[i] = (int8_t)(u * 256 - 128); break;
        case DT_BOOL: ((uint8_t *)buf)[i] = (uint8_t)(r & 1); break;
        default: return RT_EUNSUPPORTED;
        }
    }
    return RT_OK;
}

void seed_input_source(char *buf, size_t len, long long seed, int index, int64_t below)
{
    if (below > 0 && below < 10)
        snprintf(buf, len, "random:uniform01:splitmix64:seed=%lld:below=%lld", seed + index,
                 (long long)below);
    else
        snprintf(buf, len, "random:uniform01:splitmix64:seed=%lld", seed + index);
}

int64_t seed_input_bound(const graph_t *g, int ti)
{
    int64_t below = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const node_t *n = &g->nodes[i];
        if (strcmp(n->op, "Gather") || n->n_in < 2 || n->in[1] != ti || n->in[0] < 0)
            continue;
        const tensor_t *d = &g->t[n->in[0]];
        int64_t axis = node_attr_int(n, "axis", 0);
        if (axis < 0)
            axis += d->ndim;
        if (d->kind != TK_CONST || axis < 0 || axis >= d->ndim || d->dims[axis] <= 0)
            continue;
        if (!below || d->dims[axis] < below)
            below = d->dims[axis];
    }
    return below;
}
