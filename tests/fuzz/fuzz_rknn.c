/* tests/fuzz/fuzz_rknn.c — fuzz target: bytes -> the vendor .rknn reader
 * (container header, JSON trailer, FlatBuffer graph, RV110x task table, NBG
 * header) and the Python-literal parser of the generator string. Any status
 * is fine; a crash, a sanitizer report or a leak is a bug. A parsed model
 * must be consistent: every index it holds inside its tables, a failure
 * always says why. Each node's attributes (a BSON document, rknn_attr.c) are
 * read too: an error names why, else every attribute has a name. A parsed
 * file is then predicted as `run FILE.rknn` does (npu_rknn.c: its layers, the
 * memory plan, the cost), for its own chip or rk3588: an error says why. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "runtime/model/model.h"
#include "runtime/model/rknn_file.h"
#include "runtime/npu/npu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_model(const rknn_model *m, size_t size)
{
    uint64_t values = 0;

    if (m->data_off > size || m->json_off > size || m->extra_bytes > size)
        abort();
    for (int i = 0; i < m->n_nodes; i++) {
        const rknn_node *n = &m->nodes[i];
        if (!n->type || !n->name || n->target < 0 || n->target > RKNN_TGT_NPU ||
            !n->auto_pad || !n->mode || !n->coord_mode)
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
        /* ranks come from the file: their values must be there, and every
         * 4-byte value read lies in the file (the reader's budget) */
        if (!t->name || t->nd < 0 || t->nnd < 0 || (uint64_t)(t->nd + t->nnd) * 4 > size ||
            (t->nd && !t->shape) || (t->nnd && !t->native) || !rknn_dtype_name(t->dtype) ||
            !t->qmethod || !t->dtype_name)
            abort();
        values += (uint64_t)t->nd + t->nnd;
        /* a model-1 task blob's node (from the nodes' task lists) and LUT table */
        if (t->task_node < -1 || t->task_node >= m->n_nodes || t->task_lut < -1 ||
            t->task_lut >= m->n_tensors || (t->task_node >= 0 && t->kind != RKNN_TK_TASK1))
            abort();
    }
    for (int i = 0; i < m->n_io; i++) {
        const rknn_io *io = &m->io[i];
        if (!io->name || io->tensor < 0 || io->tensor >= m->n_tensors ||
            (io->n_mean && !io->mean) || (io->n_std && !io->std) || (io->n_reorder && !io->reorder) ||
            !io->layout || !io->layout_ori || !io->native_dtype || !io->native_layout)
            abort();
    }
    /* what a file makes the reader hold is bounded by its size (FlatBuffer
     * shapes: one 4-byte value each; JSON dims take at least 2 bytes) */
    if (values > size)
        abort();
}

/* the prediction of a parsed file, as cli/run_rknn.c makes it */
static void predict(const rknn_model *m)
{
    const char *tg = m->target ? m->target : m->fb_target;
    const npu_platform_t *p = tg ? npu_platform_find(tg) : NULL;
    npu_graph_t *ng = NULL;
    graph_t *g = NULL;
    char err[512] = "";

    if (npu_graph_of_rknn(m, p ? p : npu_platform_find("rk3588"), &ng, &g, err, sizeof(err))) {
        if (!err[0])
            abort();
        return;
    }
    err[0] = 0;
    if (npu_mem_plan(ng, g, NULL, 0, err, sizeof(err)) == 0)
        npu_cost(ng);
    else if (!err[0])
        abort();
    npu_graph_free(ng);
    graph_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rknn_model *m = NULL;
    void *v = NULL;
    char err[512];

    err[0] = 0;
    if (rknn_model_parse(data, size, "fuzz input", &m, err, sizeof(err)) == 0) {
        check_model(m, size);
        for (int i = 0; i < m->n_nodes; i++) {
            attr_t *a = NULL;
            int n = 0;
            err[0] = 0;
            if (rknn_node_attrs(m, data, size, i, &a, &n, err, sizeof(err)) != 0 && !err[0])
                abort();
            for (int k = 0; k < n; k++) {
                if (!a[k].name)
                    abort();
                free(a[k].name);
                free(a[k].s);
                free(a[k].floats);
                free(a[k].ints);
            }
            free(a);
        }
        predict(m);
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
