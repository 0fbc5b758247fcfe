/* tests/tools/rknn_quant_pairs.c — for a vendor .rknn: each MaxPool and
 * Resize node's first input and its output, as quantized in the file: "same
 * OP NAME" when the scale and zero point are equal, "differ OP NAME ..." when
 * not (tests/quant/shared.sh: how Toolkit2 quantizes these outputs). */
#include "runtime/model/rknn_file.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    char err[512];
    rknn_model *m = NULL;
    if (argc != 2) {
        fprintf(stderr, "usage: rknn_quant_pairs FILE.rknn\n");
        return 1;
    }
    if (rknn_model_read(argv[1], &m, err, sizeof(err))) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    for (int i = 0; i < m->n_nodes; i++) {
        const rknn_node *n = &m->nodes[i];
        if ((strcmp(n->type, "MaxPool") && strcmp(n->type, "Resize")) || n->n_in < 1 ||
            n->n_out < 1)
            continue;
        const rknn_tensor *a = &m->tensors[n->in[0]], *b = &m->tensors[n->out[0]];
        if (!a->has_quant || !b->has_quant)
            continue;
        if (a->scale == b->scale && a->zero_point == b->zero_point)
            printf("same %s %s\n", n->type, n->name);
        else
            printf("differ %s %s: in (%g, %lld) out (%g, %lld)\n", n->type, n->name, a->scale,
                   (long long)a->zero_point, b->scale, (long long)b->zero_point);
    }
    rknn_model_free(m);
    return 0;
}
