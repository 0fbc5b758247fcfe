/* tests/fuzz/fuzz_simmodel.c — fuzz target: bytes -> the simulator container
 * reader (simmodel_parse, the META lookups a run makes, the build options
 * rknn_init reads: preprocessing and shape sets, checked against the graph;
 * the QCFG section through the cfg parser) and model_load_buffer (format detection, then the
 * ONNX section through the importer). Any status is fine; a crash, a sanitizer
 * report or a leak is a bug. A parsed table must be consistent: sections
 * inside the buffer, after the table, tags unique and non-empty, an ONNX one. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/model/model.h"
#include "runtime/quant/quant.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_table(const uint8_t *data, size_t size, const simmodel *m)
{
    size_t table_end = 16 + 24 * (size_t)m->n;

    if (m->n < 1 || m->n > SIMMODEL_MAX_SECTIONS || !simmodel_find(m, "ONNX"))
        abort();
    for (int i = 0; i < m->n; i++) {
        const simmodel_section *s = &m->s[i];
        const uint8_t *p = s->data;
        if (!s->tag[0] || p < data + table_end || p > data + size ||
            s->len > (size_t)(data + size - p))
            abort();
        for (int k = 0; k < i; k++)
            if (!strcmp(m->s[k].tag, s->tag))
                abort();
    }
}

/* Parsed options keep their promises: bounded sets, one rank per input, sizes >= 1,
 * std non-zero, reorder a permutation. */
static void check_opts(const simmodel_opts *o)
{
    if (o->n_sets < 0 || o->n_sets > SIMMODEL_MAX_SETS || (o->n_sets && o->set_inputs < 1) ||
        (o->n_sets && o->n_inputs && o->set_inputs != o->n_inputs))
        abort();
    for (int s = 0; s < o->n_sets; s++)
        for (int i = 0; i < o->set_inputs; i++) {
            int nd = o->ndim[s * o->set_inputs + i];
            if (nd < 1 || nd > MODEL_MAX_DIMS || nd != o->ndim[i])
                abort();
            for (int d = 0; d < nd; d++)
                if (simmodel_set_dims(o, s, i)[d] < 1)
                    abort();
        }
    for (int i = 0; i < o->n_inputs; i++) {
        const simmodel_input *in = &o->in[i];
        int seen = 0;
        if (!in->name || in->n_mean > SIMMODEL_MAX_CH || in->n_std > SIMMODEL_MAX_CH ||
            in->n_reorder > SIMMODEL_MAX_CH)
            abort();
        for (int k = 0; k < in->n_std; k++)
            if (in->std[k] == 0)
                abort();
        for (int k = 0; k < in->n_reorder; k++)
            seen |= 1 << in->reorder[k];
        if (in->n_reorder && seen != (1 << in->n_reorder) - 1)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    simmodel m;
    simmodel_opts o;
    int have_opts = 0;
    graph_t *g = NULL;
    char err[512], val[256];

    err[0] = 0;
    if (simmodel_parse(data, size, &m, err, sizeof(err)) == 0) {
        err[0] = 0;
        if (simmodel_opts_parse(&m, &o, err, sizeof(err)) == 0) {
            check_opts(&o);
            have_opts = 1;
        } else if (!err[0]) {
            abort();
        }
        const simmodel_section *q = simmodel_find(&m, "QCFG");
        static const char *const keys[] = {"target", "quant", "quant_algo", "quant_method",
                                           "mean", "std", "source"};
        check_table(data, size, &m);
        for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
            if (simmodel_meta_str(&m, keys[k], val, sizeof(val)) == 0 &&
                strnlen(val, sizeof(val)) == sizeof(val))
                abort(); /* the value must be terminated */
        if (q) {
            quant_cfg c;
            if (quant_cfg_parse(q->data, q->len, &c, err, sizeof(err)) == 0)
                quant_cfg_free(&c);
        }
    } else if (!err[0]) {
        abort(); /* a failure always says why */
    }
    err[0] = 0;
    if (model_load_buffer(data, size, "fuzz input", &g, err, sizeof(err)) == 0) {
        if (!g)
            abort();
        err[0] = 0;
        if (have_opts && simmodel_opts_check(&o, g, err, sizeof(err)) && !err[0])
            abort();
        graph_free(g);
    } else if (!err[0]) {
        abort();
    }
    if (have_opts)
        simmodel_opts_free(&o);
    return 0;
}
