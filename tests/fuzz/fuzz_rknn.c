/* tests/fuzz/fuzz_rknn.c — fuzz target: bytes -> the vendor .rknn reader
 * (container header, JSON trailer, FlatBuffer graph, RV110x task table, NBG
 * header) and the Python-literal parser of the generator string. Any status
 * is fine; a crash, a sanitizer report or a leak is a bug. A parsed model
 * must be consistent: every index it holds inside its tables, a failure
 * always says why. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "runtime/model/rknn_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_model(const rknn_model *m, size_t size)
{
    if (m->data_off > size || m->json_off > size || m->extra_bytes > size)
        abort();
    for (int i = 0; i < m->n_nodes; i++) {
        const rknn_node *n = &m->nodes[i];
        if (!n->type || !n->name || n->target < 0 || n->target > RKNN_TGT_NPU)
            abort();
        for (int k = 0; k < n->n_in; k++)
            if (n->in[k] < 0 || n->in[k] >= m->n_tensors)
                abort();
        for (int k = 0; k < n->n_out; k++)
            if (n->out[k] < 0 || n->out[k] >= m->n_tensors)
                abort();
    }
    for (int i = 0; i < m->n_tensors; i++) {
        const rknn_tensor *t = &m->tensors[i];
        if (!t->name || t->nd < 0 || t->nd > RKNN_MAX_DIMS || t->nnd < 0 ||
            t->nnd > RKNN_MAX_NATIVE_DIMS || !rknn_dtype_name(t->dtype))
            abort();
    }
    for (int i = 0; i < m->n_io; i++)
        if (!m->io[i].name || m->io[i].tensor < 0 || m->io[i].tensor >= m->n_tensors)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rknn_model *m = NULL;
    void *v = NULL;
    char err[512];

    err[0] = 0;
    if (rknn_model_parse(data, size, "fuzz input", &m, err, sizeof(err)) == 0) {
        check_model(m, size);
        rknn_model_free(m);
    } else if (!err[0] || m) {
        abort();
    }
    /* the same bytes as a generator string */
    err[0] = 0;
    if (pylit_parse((const char *)data, size, &v, err, sizeof(err)) == 0) {
        if (!v)
            abort();
        json_decref(v);
    } else if (!err[0] || v) {
        abort();
    }
    return 0;
}
