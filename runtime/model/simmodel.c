/* runtime/model/simmodel.c — the `rknn-trace build` container: read, write,
 * load its graph (layout: docs/sim-model-format.md). Every offset and length is
 * checked against the file before use. */
#include "runtime/model/model.h"
#include "util/outfile.h"
#include "util/util.h"

#include <errno.h>
#include <jansson.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEADER 16
#define ENTRY 24

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static void wr32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void wr64(unsigned char *p, uint64_t v)
{
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}

int simmodel_is(const void *buf, size_t len)
{
    return len >= SIMMODEL_MAGIC_LEN && memcmp(buf, SIMMODEL_MAGIC, SIMMODEL_MAGIC_LEN) == 0;
}

int simmodel_parse(const void *buf, size_t len, simmodel *m, char *err, size_t errlen)
{
    const unsigned char *p = buf;
    memset(m, 0, sizeof(*m));
    if (!simmodel_is(buf, len))
        return rt_err(err, errlen, RT_EFORMAT, "not an rknn-trace simulator model (magic)");
    if (len < HEADER)
        return rt_err(err, errlen, RT_EFORMAT, "simulator model truncated in its header");
    uint32_t ver = rd32(p + 8), n = rd32(p + 12);
    if (ver != SIMMODEL_VERSION)
        return rt_err(err, errlen, ver > SIMMODEL_VERSION ? RT_EUNSUPPORTED : RT_EFORMAT,
                      "simulator model version %u (this rknn-trace reads %d)", ver,
                      SIMMODEL_VERSION);
    if (n < 1 || n > SIMMODEL_MAX_SECTIONS)
        return rt_err(err, errlen, RT_EFORMAT, "simulator model: %u sections", n);
    if ((len - HEADER) / ENTRY < n)
        return rt_err(err, errlen, RT_EFORMAT, "simulator model truncated in its section table");
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *e = p + HEADER + (size_t)i * ENTRY;
        uint64_t off = rd64(e + 8), l = rd64(e + 16);
        simmodel_section *s = &m->s[i];
        memcpy(s->tag, e, 8);
        s->tag[8] = 0;
        if (!s->tag[0] || strlen(s->tag) != strnlen((const char *)e, 8))
            return rt_err(err, errlen, RT_EFORMAT, "simulator model: section %u has a bad tag", i);
        for (size_t k = strlen(s->tag); k < 8; k++)
            if (e[k])
                return rt_err(err, errlen, RT_EFORMAT, "simulator model: section %u has a bad tag",
                              i);
        if (off < HEADER + (uint64_t)n * ENTRY || off > len || l > len - off)
            return rt_err(err, errlen, RT_EFORMAT,
                          "simulator model: section %s (%llu bytes at %llu) lies outside the "
                          "file (%zu bytes)", s->tag, (unsigned long long)l,
                          (unsigned long long)off, len);
        for (uint32_t k = 0; k < i; k++)
            if (!strcmp(m->s[k].tag, s->tag))
                return rt_err(err, errlen, RT_EFORMAT, "simulator model: section %s twice",
                              s->tag);
        s->data = p + off;
        s->len = (size_t)l;
    }
    m->n = (int)n;
    if (!simmodel_find(m, "ONNX"))
        return rt_err(err, errlen, RT_EFORMAT, "simulator model without an ONNX section");
    return RT_OK;
}

const simmodel_section *simmodel_find(const simmodel *m, const char *tag)
{
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->s[i].tag, tag))
            return &m->s[i];
    return NULL;
}

int simmodel_write(const char *path, int n, const char *const *tags, const void *const *data,
                   const size_t *lens, char *err, size_t errlen)
{
    if (n < 1 || n > SIMMODEL_MAX_SECTIONS)
        return rt_err(err, errlen, RT_EINVAL, "simulator model: %d sections", n);
    size_t hdr = HEADER + (size_t)n * ENTRY, off = (hdr + 7) & ~(size_t)7;
    unsigned char *h = xcalloc(1, off);
    memcpy(h, SIMMODEL_MAGIC, SIMMODEL_MAGIC_LEN);
    wr32(h + 8, SIMMODEL_VERSION);
    wr32(h + 12, (uint32_t)n);
    size_t at = off;
    for (int i = 0; i < n; i++) {
        unsigned char *e = h + HEADER + (size_t)i * ENTRY;
        size_t tl = strlen(tags[i]);
        memcpy(e, tags[i], tl > 8 ? 8 : tl);
        wr64(e + 8, at);
        wr64(e + 16, lens[i]);
        at = (at + lens[i] + 7) & ~(size_t)7;
    }
    /* util/outfile.h: a failed write never leaves a truncated container (nor
     * truncates an old one) */
    outfile *o = NULL;
    FILE *f = NULL;
    static const unsigned char zeros[8];
    int rc = outfile_open(path, &o, &f, err, errlen);
    if (rc) {
        free(h);
        return rc;
    }
    size_t pos = off;
    fwrite(h, 1, off, f);
    for (int i = 0; i < n; i++) {
        fwrite(data[i], 1, lens[i], f);
        pos += lens[i];
        size_t pad = ((pos + 7) & ~(size_t)7) - pos;
        fwrite(zeros, 1, pad, f);
        pos += pad;
    }
    rc = outfile_commit(o, err, errlen);  /* a failed write is reported here */
    free(h);
    return rc;
}

int simmodel_load_graph(const void *buf, size_t len, graph_t **out, char *err, size_t errlen)
{
    simmodel m;
    int rc = simmodel_parse(buf, len, &m, err, errlen);
    if (rc)
        return rc;
    const simmodel_section *s = simmodel_find(&m, "ONNX");
    return model_load_onnx(s->data, s->len, out, err, errlen);
}

int simmodel_meta_str(const simmodel *m, const char *key, char *val, size_t vlen)
{
    const simmodel_section *s = simmodel_find(m, "META");
    char pat[96];
    if (!s || !vlen)
        return -1;
    snprintf(pat, sizeof(pat), "\"%s\":\"", key);
    size_t pl = strlen(pat);
    const char *d = s->data, *end = d + s->len;
    for (const char *p = d; p + pl <= end; p++) {
        if (memcmp(p, pat, pl))
            continue;
        size_t k = 0;
        for (p += pl; p < end && *p != '"' && k + 1 < vlen; p++) {
            if (*p == '\\' && p + 1 < end)
                p++;
            val[k++] = *p;
        }
        val[k] = 0;
        return 0;
    }
    return -1;
}

/* ---- build options (META) ---------------------------------------------------- */

void simmodel_opts_free(simmodel_opts *o)
{
    for (int i = 0; o && i < o->n_inputs; i++)
        free(o->in[i].name);
    if (o) {
        free(o->in);
        free(o->ndim);
        free(o->dims);
        memset(o, 0, sizeof(*o));
    }
}

const int64_t *simmodel_set_dims(const simmodel_opts *o, int s, int i)
{
    return o->dims + ((size_t)s * (size_t)o->set_inputs + (size_t)i) * MODEL_MAX_DIMS;
}

/* A JSON array of 1..max numbers into v; -1 if it is something else. */
static int num_list(const json_t *a, float *v, int max)
{
    size_t n = json_array_size(a);
    if (!json_is_array(a) || n < 1 || n > (size_t)max)
        return -1;
    for (size_t k = 0; k < n; k++) {
        const json_t *x = json_array_get(a, k);
        if (!json_is_number(x))
            return -1;
        v[k] = (float)json_number_value(x);
    }
    return (int)n;
}

static int parse_input(const json_t *e, int i, simmodel_input *in, char *err, size_t errlen)
{
    const json_t *name = json_object_get(e, "name"), *mean = json_object_get(e, "mean"),
                 *std = json_object_get(e, "std"), *ro = json_object_get(e, "reorder");
    float r[SIMMODEL_MAX_CH];
    if (!json_is_object(e) || !json_is_string(name))
        return rt_err(err, errlen, RT_EFORMAT, "simulator model: META inputs[%d] has no name", i);
    in->name = xstrdup(json_string_value(name));
    if (mean && !json_is_null(mean) && (in->n_mean = num_list(mean, in->mean, SIMMODEL_MAX_CH)) < 0)
        return rt_err(err, errlen, RT_EFORMAT, "simulator model: input '%s': mean is not a list "
                      "of 1..%d numbers", in->name, SIMMODEL_MAX_CH);
    if (std && !json_is_null(std) && (in->n_std = num_list(std, in->std, SIMMODEL_MAX_CH)) < 0)
        return rt_err(err, errlen, RT_EFORMAT, "simulator model: input '%s': std is not a list "
                      "of 1..%d numbers", in->name, SIMMODEL_MAX_CH);
    for (int k = 0; k < in->n_std; k++)
        if (!(in->std[k] != 0) || !isfinite(in->std[k]))
            return rt_err(err, errlen, RT_EFORMAT, "simulator model: input '%s': std[%d] is %g; "
                          "a std must be a non-zero number", in->name, k, in->std[k]);
    for (int k = 0; k < in->n_mean; k++)
        if (!isfinite(in->mean[k]))
            return rt_err(err, errlen, RT_EFORMAT, "simulator model: input '%s': mean[%d] is "
                          "not finite", in->name, k);
    if (ro && !json_is_null(ro)) {
        int seen = 0;
        in->n_reorder = num_list(ro, r, SIMMODEL_MAX_CH);
        for (int k = 0; k < in->n_reorder; k++) {
            int c = (int)r[k];
            if ((float)c != r[k] || c < 0 || c >= in->n_reorder || (seen & (1 << c)))
                in->n_reorder = -1;
            else
                seen |= 1 << c, in->reorder[k] = c;
        }
        if (in->n_reorder < 0)
            return rt_err(err, errlen, RT_EFORMAT, "simulator model: input '%s': reorder is "
                          "not a permutation of 0..N-1 (N <= %d)", in->name, SIMMODEL_MAX_CH);
    }
    return RT_OK;
}

/* dynamic_input: [[shape of input 0, shape of input 1, ...], ...] */
static int parse_sets(const json_t *a, simmodel_opts *o, char *err, size_t errlen)
{
    size_t ns = json_array_size(a);
    if (!json_is_array(a) || ns < 1 || ns > SIMMODEL_MAX_SETS)
        return rt_err(err, errlen, RT_EFORMAT, "simulator model: dynamic_input is not a list "
                      "of 1..%d shape sets", SIMMODEL_MAX_SETS);
    const json_t *first = json_array_get(a, 0);
    size_t ni = json_array_size(first);
    if (!json_is_array(first) || ni < 1 || ni > 4096)
        return rt_err(err, errlen, RT_EFORMAT, "simulator model: dynamic_input[0] is not a "
                      "list of input shapes");
    o->n_sets = (int)ns;
    o->set_inputs = (int)ni;
    o->ndim = xcalloc(ns * ni, sizeof(int));
    o->dims = xcalloc(ns * ni * MODEL_MAX_DIMS, sizeof(int64_t));
    for (size_t s = 0; s < ns; s++) {
        const json_t *set = json_array_get(a, s);
        if (!json_is_array(set) || json_array_size(set) != ni)
            return rt_err(err, errlen, RT_EFORMAT, "simulator model: dynamic_input set %zu has "
                          "%zu input shapes, set 0 has %zu: every set gives one shape per "
                          "input", s, json_is_array(set) ? json_array_size(set) : 0, ni);
        for (size_t i = 0; i < ni; i++) {
            const json_t *sh = json_array_get(set, i);
            size_t nd = json_array_size(sh);
            int64_t *d = (int64_t *)simmodel_set_dims(o, (int)s, (int)i);
            if (!json_is_array(sh) || nd < 1 || nd > MODEL_MAX_DIMS)
                return rt_err(err, errlen, RT_EFORMAT, "simulator model: dynamic_input set "
                              "%zu input %zu is not a list of 1..%d sizes", s, i,
                              MODEL_MAX_DIMS);
            if (s > 0 && (int)nd != o->ndim[i])
                return rt_err(err, errlen, RT_EFORMAT, "simulator model: dynamic_input set "
                              "%zu gives input %zu rank %zu, set 0 rank %d: a set changes "
                              "sizes, not ranks", s, i, nd, o->ndim[i]);
            o->ndim[s * ni + i] = (int)nd;
            for (size_t k = 0; k < nd; k++) {
                const json_t *v = json_array_get(sh, k);
                if (!json_is_integer(v) || json_integer_value(v) < 1 ||
                    json_integer_value(v) > INT32_MAX)
                    return rt_err(err, errlen, RT_EFORMAT, "simulator model: dynamic_input "
                                  "set %zu input %zu dim %zu is not a size in 1..2^31-1", s,
                                  i, k);
                d[k] = json_integer_value(v);
            }
        }
    }
    return RT_OK;
}

int simmodel_opts_parse(const simmodel *m, simmodel_opts *o, char *err, size_t errlen)
{
    const simmodel_section *s = simmodel_find(m, "META");
    json_error_t je;
    json_t *root = NULL;
    int rc = RT_OK;

    memset(o, 0, sizeof(*o));
    if (!s)
        return RT_OK; /* no options: the graph as its ONNX declares it */
    root = json_loadb(s->data, s->len, JSON_REJECT_DUPLICATES, &je);
    if (!json_is_object(root)) {
        rc = rt_err(err, errlen, RT_EFORMAT, "simulator model: META is not a JSON object (%s)",
                    root ? "another JSON value" : je.text);
        goto out;
    }
    const json_t *ins = json_object_get(root, "inputs"), *sets = json_object_get(root,
                                                                           "dynamic_input");
    if (ins && !json_is_null(ins)) {
        size_t n = json_array_size(ins);
        if (!json_is_array(ins) || n > 4096) {
            rc = rt_err(err, errlen, RT_EFORMAT, "simulator model: META inputs is not a list");
            goto out;
        }
        o->in = xcalloc(n ? n : 1, sizeof(*o->in));
        for (size_t i = 0; i < n; i++) {
            o->n_inputs = (int)i + 1;
            if ((rc = parse_input(json_array_get(ins, i), (int)i, &o->in[i], err, errlen)))
                goto out;
        }
    }
    if (sets && !json_is_null(sets) && (rc = parse_sets(sets, o, err, errlen)))
        goto out;
    if (o->n_sets && o->n_inputs && o->set_inputs != o->n_inputs)
        rc = rt_err(err, errlen, RT_EFORMAT, "simulator model: dynamic_input sets have %d "
                    "shapes but META lists %d inputs", o->set_inputs, o->n_inputs);
out:
    json_decref(root);
    if (rc)
        simmodel_opts_free(o);
    return rc;
}

int simmodel_opts_check(const simmodel_opts *o, const graph_t *g, char *err, size_t errlen)
{
    for (int i = 0; i < o->n_inputs; i++)
        if (i >= g->n_inputs || strcmp(o->in[i].name, g->t[g->inputs[i]].name))
            return rt_err(err, errlen, RT_EFORMAT, "simulator model: META input %d '%s' is not "
                          "graph input %d of its ONNX section", i, o->in[i].name, i);
    if (!o->n_sets)
        return RT_OK;
    if (o->set_inputs != g->n_inputs)
        return rt_err(err, errlen, RT_EFORMAT, "simulator model: its shape sets give %d "
                      "input shapes, the graph has %d inputs", o->set_inputs, g->n_inputs);
    for (int i = 0; i < g->n_inputs; i++) {
        const tensor_t *t = &g->t[g->inputs[i]];
        int resizable = graph_input_is_static(t); /* graph_free_static_inputs */
        if (t->ndim >= 0 && t->ndim != o->ndim[i])
            return rt_err(err, errlen, RT_EFORMAT, "simulator model: its shape sets give input "
                          "'%s' rank %d, the graph rank %d", t->name, o->ndim[i], t->ndim);
        for (int s = 0; s < o->n_sets; s++)
            for (int d = 0; d < t->ndim; d++) {
                int64_t v = simmodel_set_dims(o, s, i)[d];
                if (!resizable && t->dims[d] >= 0 && !t->dim_param[d] && v != t->dims[d])
                    return rt_err(err, errlen, RT_EFORMAT, "simulator model: shape set %d gives "
                                  "input '%s' dim %d = %lld, the graph fixes it to %lld", s,
                                  t->name, d, (long long)v, (long long)t->dims[d]);
            }
    }
    return RT_OK;
}
