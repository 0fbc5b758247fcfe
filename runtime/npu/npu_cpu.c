/* runtime/npu/npu_cpu.c — cost of the layers the vendor runtime runs on the
 * CPU (InputOperator, OutputOperator, CPU-fallback ops), from their work and
 * the chip's CPU; never from a host timing (npu.h, "CPU-fallback cost").
 *
 * Real CPU rows with times exist for rk3588 only (shared/data/logs, the
 * perflog corpus): InputOperator (5 tables), OutputOperator (int8 and fp16,
 * 14 rows of 4 tables), Reshape (SDK guide mobilenet), three fp16 Resizes
 * (triority-05 unet) and one int8 Gather (LOG-Y10, not fitted: one row). tests/tools/npu_cpu_cost
 * fits the constants below on them; bench/cpu_cost.sh prints the fit with
 * in-sample and leave-one-out errors. */
#include <math.h>
#include <string.h>
#include "runtime/npu/npu.h"

/* FIT (tests/tools/npu_cpu_cost on the rk3588 rows; its --check asserts
 * these are its result): input_us the InputOperator time of least median
 * relative error (the rows are 4 us, zero-copy, or 14-21 us); output_us and
 * ns_rd least relative squares over the OutputOperator rows (a written
 * element costs nothing apart: the rows cannot tell writes from reads, their
 * counts go together); op_us and ns_elem over Reshape and the three Resizes.
 * ns_flop (one scalar float op a cycle at 2.256 GHz) and ns_transc (~40
 * cycles an expf/tanhf call) are UNVERIFIED assumptions: no real row
 * isolates them (the Resizes' 8 flops an element are in their fit). */
const npu_cpu_consts_t npu_cpu_fit = {
    .input_us = 17.0,
    .output_us = 10.9,
    .op_us = 61.6,
    .ns_rd = 0.0976,
    .ns_elem = 0.69,
    .ns_flop = 0.443,
    .ns_transc = 17.7,
};

/* Arithmetic per output element (per input element for reductions). */
static const struct cpu_op {
    const char *optype;
    double flops, transc;
    int per_input;
} cpu_ops[] = {
    {"Exp", 0, 1, 0}, {"Log", 0, 1, 0}, {"Erf", 0, 1, 0}, {"Sin", 0, 1, 0}, {"Cos", 0, 1, 0},
    {"Sigmoid", 2, 1, 0}, {"Tanh", 0, 1, 0}, {"Softplus", 1, 2, 0}, {"exMish", 3, 2, 0},
    {"exGelu", 4, 1, 0}, {"Elu", 2, 1, 0}, {"Pow", 0, 2, 0}, {"Sqrt", 1, 0, 0},
    {"Softmax", 3, 1, 0}, {"exSoftmax13", 3, 1, 0}, {"LogSoftmax", 3, 2, 0},
    {"Resize", 8, 0, 0},  /* bilinear: 4 taps; nearest is billed the same */
    {"ReduceSum", 1, 0, 1}, {"ReduceMean", 1, 0, 1}, {"ReduceMax", 1, 0, 1},
    {"ReduceMin", 1, 0, 1}, {"ReduceL2", 2, 0, 1}, {"ArgMax", 1, 0, 1}, {"ArgMin", 1, 0, 1},
    {"TopK", 2, 0, 1}, {"Hardmax", 1, 0, 1},
    {"InstanceNormalization", 5, 0, 0}, {"LpNormalization", 3, 0, 0}, {"LRN", 6, 1, 0},
    {"exNorm", 5, 0, 0}, {"exLayerNorm", 5, 0, 0}, {"BatchNormalization", 2, 0, 0},
    {"RoiAlign", 40, 0, 0},   /* about 4 bilinear samples of 10 flops per output */
    {"MaxRoiPool", 4, 0, 0},
    {"Add", 1, 0, 0}, {"Sub", 1, 0, 0}, {"Mul", 1, 0, 0}, {"Div", 1, 0, 0}, {"Max", 1, 0, 0},
    {"Min", 1, 0, 0}, {"Mod", 2, 0, 0}, {"Floor", 1, 0, 0}, {"Round", 1, 0, 0},
    {"Relu", 1, 0, 0}, {"LeakyRelu", 2, 0, 0}, {"PRelu", 2, 0, 0}, {"Clip", 2, 0, 0},
    {"HardSigmoid", 3, 0, 0}, {"HardSwish", 4, 0, 0}, {"Where", 1, 0, 0},
    {"Equal", 1, 0, 0}, {"Less", 1, 0, 0}, {"LessOrEqual", 1, 0, 0}, {"Greater", 1, 0, 0},
    {"GreaterOrEqual", 1, 0, 0}, {"And", 1, 0, 0}, {"Not", 1, 0, 0},
};

static double numel(const npu_shape_t *s)
{
    double n = 1;
    for (int i = 0; i < s->nd; i++)
        n *= s->d[i] > 0 ? (double)s->d[i] : 0;
    return n;
}

/* Elements of an input as its NPU producer stored it: 4-D int8/fp16 data in
 * NC1HWC2 with the channels padded (in_align, else the layer dtype's C2), the
 * layout conversion reading every padded element; float data a CPU layer
 * made (DataType FLOAT) plain NCHW. */
static double stored_elems(const npu_graph_t *ng, const npu_layer_t *l, int i)
{
    const npu_shape_t *s = &l->in[i];
    int a;

    if (s->nd != 4 || !strcmp(l->datatype, "FLOAT") || l->in_align[i] < 0)
        return numel(s);
    a = l->in_align[i] > 1 ? l->in_align[i] : ng->plat->c2[l->dtype] > 0 ? ng->plat->c2[l->dtype] : 1;
    return (double)s->d[0] * (double)((s->d[1] + a - 1) / a * a) * (double)s->d[2] *
           (double)s->d[3];
}

void npu_cpu_work(const npu_graph_t *ng, npu_layer_t *l)
{
    double in_elems = 0;

    l->cpu_elems = l->cpu_rd = l->cpu_wr = l->cpu_flops = l->cpu_transc = 0;
    if (l->target != NPU_TGT_CPU || !strcmp(l->optype, "InputOperator"))
        return;
    for (int i = 0; i < l->n_in && i < NPU_MAX_IO; i++) {
        if (l->in_const[i])
            continue;
        l->cpu_rd += stored_elems(ng, l, i);
        in_elems += numel(&l->in[i]);
    }
    if (!strcmp(l->optype, "OutputOperator")) {
        /* NCHW in the layer's dtype: the time of 3.7 M int8 elements (347 us,
         * LOG-Y8 row 71) leaves no room for a float32 conversion, which
         * rknn_outputs_get does outside the table */
        l->cpu_wr = in_elems; /* no op loop beyond the move: cpu_elems 0 */
        return;
    }
    for (int i = 0; i < l->n_out && i < NPU_MAX_IO; i++)
        l->cpu_elems += numel(&l->out[i]);
    l->cpu_wr = l->cpu_elems;
    if (l->kind == NPU_K_CONV || l->kind == NPU_K_MATMUL || l->kind == NPU_K_DECONV) {
        int g = l->group > 0 ? l->group : 1;
        l->cpu_flops = 2.0 * (double)l->out_pixels * l->kh * l->kw * (double)(l->ic / g) * l->oc;
        return;
    }
    for (size_t k = 0; k < sizeof(cpu_ops) / sizeof(cpu_ops[0]); k++)
        if (!strcmp(cpu_ops[k].optype, l->optype)) {
            double n = cpu_ops[k].per_input ? in_elems : l->cpu_elems;
            l->cpu_flops = cpu_ops[k].flops * n;
            l->cpu_transc = cpu_ops[k].transc * n;
            break;
        }
}

double npu_cpu_time_us(const npu_platform_t *p, const npu_layer_t *l, const npu_cpu_consts_t *k)
{
    double fixed = !strcmp(l->optype, "InputOperator")    ? k->input_us
                   : !strcmp(l->optype, "OutputOperator") ? k->output_us
                                                          : k->op_us;
    double ns = l->cpu_rd * k->ns_rd + l->cpu_elems * k->ns_elem +
                l->cpu_flops * k->ns_flop + l->cpu_transc * k->ns_transc;

    return (fixed + ns / 1000.0) / npu_cpu_speed(p);
}
