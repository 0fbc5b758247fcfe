/* runtime/exec/ops.c — the operator registry: every kernel file's table. */
#include "runtime/exec/kernels.h"

#include <string.h>

static const op_def *const tables[] = {
    exec_ops_conv,  exec_ops_gemm,  exec_ops_pool,   exec_ops_norm,   exec_ops_binary,
    exec_ops_unary, exec_ops_shape, exec_ops_layout, exec_ops_resize, exec_ops_reduce,
    exec_ops_quant, exec_ops_normalize, exec_ops_index, exec_ops_roi,
    exec_ops_rnn,
};

/* An entry's domain is "" for ai.onnx, else the one domain it serves
 * (com.microsoft for onnxruntime's QOperator ops). */
const op_def *exec_find_op(const char *domain, const char *name)
{
    if (!strncmp(name, "cst", 3))
        return &exec_op_custom;
    if (!domain || !strcmp(domain, "ai.onnx"))
        domain = "";
    for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
        for (const op_def *d = tables[t]; d->name; d++)
            if (strcmp(d->name, name) == 0 && strcmp(d->domain ? d->domain : "", domain) == 0)
                return d;
    return NULL;
}

const char *const *exec_op_names(void)
{
    static const char **names;
    if (!names) {
        size_t n = 0, k = 0;
        for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
            for (const op_def *d = tables[t]; d->name; d++)
                n++;
        const char **v = xcalloc(n + 1, sizeof(*v));
        for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
            for (const op_def *d = tables[t]; d->name; d++)
                v[k++] = d->name;
        names = v;
    }
    return names;
}
