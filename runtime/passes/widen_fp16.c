/* runtime/passes/widen_fp16.c — a float16 ONNX (its weights float16: exported
 * after .half(), or float16 between Casts) computed in float32: the executor's float
 * kernels take float32, and a golden in float32 is the closer reference for
 * the NPU's float16. Constants are converted exactly (every float16 is a
 * float32), other tensors change their declared type, Casts to float16 become
 * Casts to float32, and ConstantOfShape's float16 value widens too. */
#include "runtime/passes/passes.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

enum { ONNX_FLOAT = 1, ONNX_FLOAT16 = 10 }; /* TensorProto.DataType */

/* Constant data of n float16 values as float32 (malloc'd). */
static float *widen(const uint16_t *h, int64_t n)
{
    float *f = xmalloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++)
        f[i] = rt_f16_to_f32(h[i]);
    return f;
}

static int widen_tensor(tensor_t *t)
{
    if (t->dtype != DT_FLOAT16)
        return 0;
    if (t->data && t->kind == TK_CONST) {
        float *f = widen(t->data, tensor_numel(t));
        free(t->data);
        t->data = f;
    }
    t->dtype = DT_FLOAT;
    return 1;
}

int passes_widen_fp16(graph_t *g)
{
    int n = 0, weights = 0;
    /* a float16 model is one with float16 weights: a graph of float16 inputs
     * and no constant (ONNX's own float16 Cast and Max cases) keeps its types */
    for (int i = 0; i < g->n_t && !weights; i++)
        weights = g->t[i].kind == TK_CONST && g->t[i].dtype == DT_FLOAT16 && g->t[i].data;
    if (!weights)
        return 0;
    for (int i = 0; i < g->n_t; i++)
        n += widen_tensor(&g->t[i]);
    for (int i = 0; i < g->n_nodes; i++) {
        node_t *nd = &g->nodes[i];
        for (int k = 0; k < nd->n_attr; k++) {
            attr_t *a = &nd->attrs[k];
            if (!strcmp(nd->op, "Cast") && !strcmp(a->name, "to") && a->type == ATTR_INT &&
                a->i == ONNX_FLOAT16)
                a->i = ONNX_FLOAT, n++;
            else if (a->type == ATTR_TENSOR && a->t)
                n += widen_tensor(a->t);
        }
    }
    return n;
}
