/* runtime/npu/npu_cost.c — per-layer cost as the runtime 2.x perf table bills it.
 *
 * NPU cycles (npu-hw.md §1.3, fits to LOG-Y8/LOG-Y10, extended by our fit to the
 * fp16 log triority-05):
 *   conv:      ceil16(OH*OW) * max(Kh*Kw*ceil(IC/ic_atom)*ceil(OC/oc_atom),
 *                                    align(OC, oc_atom) / 8)
 *              (the floor term: 1x1 convs with OC 1 or 3 bill 4 cycles/px in
 *              int8 and 2 in fp16, OC 64 bills 8 — one oc_atom of output per 8
 *              channels a cycle; identical to the guide's ceil(OC/8) when OC is
 *              a multiple of the atom)
 *   depthwise: ceil16(OH*OW) * Kh*Kw*ceil(C/dw_ch)
 *              (fp16 7x7 with strides up to 7 included: triority-05 rows 22, 52, 76,
 *              87 and the 5x5/6x6 pool convs, 13/13 exact in bench/npu_fidelity.sh)
 *   batched (N > 1): N * ceil16(OH*OW), each image rounded on its own —
 *              VERIFIED on the fp16 runtime 2.3.2 table of RF-DETR (rknn_model_zoo
 *              issue 366, tests/data/logs/): 8/8 [4,C,1,257] 1x1 conv rows with
 *              IC/OC 384/384, 384/1536, 1536/384 bill 4*272 pixels, where
 *              ceil16(N*OH*OW) would give 1040. Only one (N, OH*OW) pair logged.
 *              Consistent with the CNA/CORE registers describing one data cube
 *              (width, height, channels) with no batch field (mtx512/rk3588-npu,
 *              src/npu_matmul.c); the 2.x table rounds the whole plane of a cube,
 *              not its rows (LOG-Y8 60x34 -> 2048)
 *   deconv:    per input pixel, as conv; matmul: M rows as pixels, K as IC, N as OC
 *              (the leading dims of [..., M, K] as images)
 *   others:    0 (the runtime prints 0: "NPU Cycles mainly shows Conv", G:L9189)
 * DDR cycles: (input + weight + output bytes) / (DDR bytes per NPU cycle), with
 * NPU tensors in NC1HWC2 (channels padded to C2), image inputs (UINT8, 1/3/4
 * channels) in NHWC, conv weights with IC padded to C2 plus 8 bytes per output
 * channel (bias + requant scale; FIT: residual < 0.01 % on LOG-Y8/Y10 rows).
 * RW(KB) = bytes read (inputs + weights) / 1024 (LOG-Y8, LOG-Y10 Gather/Split).
 * CPU layers: npu_cpu.c, from their work and the chip's CPU. */
#include <math.h>
#include <string.h>
#include "runtime/npu/npu.h"
#include "util/util.h"

static int64_t align_up(int64_t v, int64_t a)
{
    return a > 0 ? (v + a - 1) / a * a : v;
}

static int64_t cdiv(int64_t a, int64_t b)
{
    return b > 0 ? (a + b - 1) / b : a;
}

const char *npu_bound_name(int b)
{
    return b == NPU_BOUND_DDR ? "DDR" : b == NPU_BOUND_CPU ? "CPU" : "compute";
}

static double elem_bytes(int dt)
{
    switch (dt) {
    case NPU_INT8: return 1;
    case NPU_TF32: return 4;
    case NPU_FP32: return 4;
    case NPU_INT4: return 0.5;
    }
    return 2;
}

static int64_t numel(const npu_shape_t *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->nd; i++)
        n *= s->d[i] > 0 ? s->d[i] : 0;
    return n;
}

/* Bytes of an activation as the NPU stores it. */
uint64_t npu_act_bytes(const npu_graph_t *ng, const npu_layer_t *l, const npu_shape_t *s,
                       int padded)
{
    double es = elem_bytes(l->dtype);
    int64_t n;

    if (padded && s->nd == 4) {
        /* padded > 1: an explicit channel alignment (conv outputs) */
        int c2 = padded > 1 ? padded : ng->plat->c2[l->dtype] > 0 ? ng->plat->c2[l->dtype] : 1;
        n = numel(s) > 0 ? s->d[0] * align_up(s->d[1], c2) * s->d[2] * s->d[3] : 0;
    } else {
        n = numel(s);
    }
    return (uint64_t)ceil((double)n * es);
}

int npu_out_align(const npu_graph_t *ng, const npu_layer_t *l)
{
    /* "NC1HWC2 outputs: last conv-type layer 2*C2" (rknn-oplist.md §5); rk3562
     * pads to one C2: its multiple_input_demo file (toolkit 1.6.2) stores the
     * 8-channel ConvAdd output as native [1,1,128,128,16], where rk3566's
     * (1.6.2), rk3576's, rk3588's and rv1126b's hold two C2 groups */
    if (l->target == NPU_TGT_NPU && l->out_is_graph_output &&
        (l->kind == NPU_K_CONV || l->kind == NPU_K_DECONV || l->kind == NPU_K_DWCONV))
        return (strcmp(ng->plat->family, "rk3562") ? 2 : 1) * ng->plat->c2[l->dtype];
    return 1;
}

#define conv_out_align npu_out_align

uint64_t npu_weight_bytes(const npu_graph_t *ng, const npu_layer_t *l)
{
    double es = elem_bytes(l->dtype);
    int64_t n;

    switch (l->kind) {
    case NPU_K_CONV:
    case NPU_K_DECONV:
        /* IC padded to C2 when it fits one stroke, else to the MAC array's IC
         * atom (FIT: triority-05 rows 25 (IC 4) and 57/60 (IC 20), LOG-Y10 row 20) */
        {
            int icg = l->group > 0 ? l->ic / l->group : l->ic;
            int c2 = ng->plat->c2[l->dtype];
            n = (int64_t)l->oc * (icg <= c2 ? c2 : align_up(icg, ng->plat->mac_ic[l->dtype])) *
                l->kh * l->kw;
        }
        break;
    case NPU_K_DWCONV:
        n = (int64_t)l->oc * l->kh * l->kw;
        break;
    default:
        return 0;
    }
    /* per output channel: int32 bias + requant scale in int8, fp32 bias in
     * fp16 (FIT, same rows) */
    return (uint64_t)ceil((double)n * es) + (l->dtype == NPU_INT8 ? 8ull : 4ull) * (uint64_t)l->oc;
}

static uint64_t conv_px_cycles(const npu_platform_t *p, int dt, int kh, int kw, int ic, int oc)
{
    int ai = p->mac_ic[dt], ao = p->mac_oc[dt];
    uint64_t mac = (uint64_t)kh * kw * cdiv(ic, ai) * cdiv(oc, ao);
    uint64_t wr = (uint64_t)align_up(oc, ao) / 8;

    return mac > wr ? mac : wr;
}

/* Output pixels the MAC array bills: each image of a batch is one data cube,
 * its pixel count rounded up to 16 (see the top of this file). */
static uint64_t billed_px(const npu_layer_t *l)
{
    int64_t n = l->px_batch > 1 ? l->px_batch : 1;

    if (l->out_pixels % n)
        n = 1;
    return (uint64_t)(n * align_up(l->out_pixels / n, 16));
}

static int splits_on_cores(const npu_layer_t *l)
{
    /* G:L5402-5404: Conv, DepthwiseConvolution, Add, Concat, Relu, Clip, Relu6,
     * ThresholdedRelu, PRelu, LeakyRelu split; ConvExSwish observed not to
     * (LOG-Y8 multi-core), so only plain and Relu/Clip/LeakyRelu/PRelu convs. */
    static const char *const ok[] = {"Conv", "ConvRelu", "ConvClip", "ConvLeakyRelu",
                                     "ConvPRelu", "Add", "Concat", "Relu", "Clip",
                                     "PRelu", "LeakyRelu", NULL};
    if (l->target != NPU_TGT_NPU)
        return 0;
    for (int i = 0; ok[i]; i++)
        if (!strcmp(l->optype, ok[i]))
            return 1;
    return 0;
}

/* An elementwise layer of its own (Add, Sub, Mul, Div, Max, Min and their
 * fused activations): every output element passes the DPU, as a lookup-table
 * activation's does, and the frame model bills both at the chip's f_lut per
 * element. FIT, not documented by the vendor: the compiled ppocrv4_det
 * (toolkit 2.3.2, go-rknnlite-data), costed without it, is short of the
 * board by 0.25, 0.50 and 0.57 cycles per element of its 71 Mul/Add layers
 * on rk3588, rk3562 and rk3566, where the lookup-table rates fitted on the
 * SiLU networks were 0.24, 0.48 and 0.46 (docs/npu-model.md). The level-4
 * Time(us) model is fitted on the real tables without it. */
static int dpu_elementwise(const npu_layer_t *l)
{
    static const char *const ew[] = {"Add", "Sub", "Mul", "Div", "Max", "Min", NULL};

    if (l->kind != NPU_K_ELTWISE || l->target != NPU_TGT_NPU)
        return 0;
    for (int i = 0; ew[i]; i++)
        if (!strncmp(l->optype, ew[i], strlen(ew[i])))
            return 1;
    return 0;
}

double npu_softmax_cycles(const npu_platform_t *p, const npu_layer_t *l)
{
    /* an attention's softmax over its Lk keys pays per query row too */
    if (p->softmax_row_cycles <= 0 || l->target != NPU_TGT_NPU || l->softmax_rows <= 0 ||
        (strcmp(l->optype, "Softmax") && strcmp(l->optype, "exSoftmax13") &&
         strcmp(l->optype, "exSDPAttention")))
        return 0;
    return (double)l->softmax_rows * p->softmax_row_cycles;
}

void npu_cost_layer(const npu_graph_t *ng, npu_layer_t *l)
{
    const npu_platform_t *p = ng->plat;
    int dt = l->dtype;
    double k = npu_ddr_bytes_per_cycle(p);
    uint64_t rd_all = 0;
    int ncores = 0, core_idx[NPU_MAX_CORES];

    l->macs = l->bytes_in = l->bytes_w = l->bytes_out = 0;
    l->ddr_cycles = l->npu_cycles = l->total_cycles = 0;
    memset(l->mac_usage, 0, sizeof(l->mac_usage));
    memset(l->workload, 0, sizeof(l->workload));
    l->task_number = 0;
    l->lut_elems = 0;

    for (int c = 0; c < p->cores && c < NPU_MAX_CORES; c++)
        if (ng->cores & (1u << c))
            core_idx[ncores++] = c;
    if (!ncores)
        core_idx[ncores++] = 0;

    for (int i = 0; i < l->n_in && i < NPU_MAX_IO; i++) {
        uint64_t b = npu_act_bytes(ng, l, &l->in[i], 0);
        rd_all += b;
    }

    if (l->target == NPU_TGT_CPU) {
        double bytes_out = 0;
        for (int i = 0; i < l->n_out && i < NPU_MAX_IO; i++)
            bytes_out += npu_act_bytes(ng, l, &l->out[i], 0);
        l->bytes_in = rd_all;
        l->bytes_out = (uint64_t)bytes_out;
        l->rw_kb = l->kind == NPU_K_IO && !l->n_in ? 0 : rd_all / 1024.0;
        l->bound = NPU_BOUND_CPU;
        npu_cpu_work(ng, l);
        l->time_us = npu_cpu_time_us(p, l, &npu_cpu_fit);
        l->frame_us = l->time_us;
        return;
    }

    /* NPU layer: NC1HWC2 activations, except an NHWC image input */
    for (int i = 0; i < l->n_in && i < NPU_MAX_IO; i++) {
        int nhwc = !strcmp(l->datatype, "UINT8") && i == 0;
        if (l->in_const[i])
            continue;
        l->bytes_in += npu_act_bytes(ng, l, &l->in[i], nhwc || l->in_align[i] < 0 ? 0
                                                       : l->in_align[i] > 1 ? l->in_align[i] : 1);
    }
    /* a conv-type layer producing a graph output stores it padded to 2*C2
     * (FIT: LOG-Y8 rows 74/92/105 with OC 3 -> 32, triority-05 row 94 -> 16) */
    for (int i = 0; i < l->n_out && i < NPU_MAX_IO; i++)
        l->bytes_out += npu_act_bytes(ng, l, &l->out[i], l->out_align[i] < 0 ? 0
                                      : l->out_align[i] > 1 ? l->out_align[i] : conv_out_align(ng, l));
    l->bytes_w = npu_weight_bytes(ng, l);
    if (l->kind == NPU_K_ELTWISE || l->kind == NPU_K_MOVE || l->kind == NPU_K_POOL ||
        l->kind == NPU_K_OTHER || l->kind == NPU_K_CONVERT || l->kind == NPU_K_MATMUL) {
        /* constant operands (Mul/Add by a tensor, Resize scales) are read too */
        for (int i = 0; i < l->n_in && i < NPU_MAX_IO; i++)
            if (l->in_const[i])
                l->bytes_in += npu_act_bytes(ng, l, &l->in[i], 0);
    }

    switch (l->kind) {
    case NPU_K_CONV: {
        int g = l->group > 0 ? l->group : 1;
        uint64_t px = billed_px(l);
        l->npu_cycles = px * g * conv_px_cycles(p, dt, l->kh, l->kw, l->ic / g, l->oc / g);
        l->macs = (uint64_t)l->out_pixels * l->kh * l->kw * (uint64_t)(l->ic / g) * l->oc;
        break;
    }
    case NPU_K_DWCONV: {
        uint64_t px = billed_px(l);
        l->npu_cycles = px * l->kh * l->kw * (uint64_t)cdiv(l->oc, p->dw_ch[dt]);
        l->macs = (uint64_t)l->out_pixels * l->kh * l->kw * l->oc;
        break;
    }
    case NPU_K_DECONV: {
        uint64_t px = billed_px(l);
        if (l->group > 1 && l->group == l->ic)
            l->npu_cycles = px * l->kh * l->kw * (uint64_t)cdiv(l->ic, p->dw_ch[dt]);
        else
            l->npu_cycles = px * conv_px_cycles(p, dt, l->kh, l->kw, l->ic, l->oc);
        l->macs = (uint64_t)l->out_pixels * l->kh * l->kw * (uint64_t)l->ic *
                  (l->group > 1 ? 1 : (uint64_t)l->oc);
        break;
    }
    case NPU_K_MATMUL: {
        uint64_t px = billed_px(l);
        l->npu_cycles = px * conv_px_cycles(p, dt, 1, 1, l->ic, l->oc);
        l->macs = (uint64_t)l->out_pixels * l->ic * l->oc;
        if (l->attn_dv > 0) {
            /* Q K^T (ic = d, oc = Lk) then P V (ic = Lk, oc = dv): the two
             * exMatMuls of the unfused block, DERIVED (the one real row,
             * RF-DETR row 130, takes ~13x this: not fitted) */
            l->npu_cycles += px * conv_px_cycles(p, dt, 1, 1, l->oc, l->attn_dv);
            l->macs += (uint64_t)l->out_pixels * l->oc * l->attn_dv;
        }
        break;
    }
    default:
        break;
    }

    /* SramHit: bytes the layer reads from / writes to SRAM skip the DDR */
    {
        uint64_t rd = l->sram_rd < l->bytes_in ? l->sram_rd : l->bytes_in;
        uint64_t wr = l->sram_hit < l->bytes_out ? l->sram_hit : l->bytes_out;
        l->ddr_cycles = (uint64_t)ceil((double)(l->bytes_in + l->bytes_w + l->bytes_out - rd - wr) / k);
    }
    l->total_cycles = l->ddr_cycles > l->npu_cycles ? l->ddr_cycles : l->npu_cycles;
    l->bound = l->ddr_cycles > l->npu_cycles ? NPU_BOUND_DDR : NPU_BOUND_COMPUTE;
    l->rw_kb = (l->bytes_in + l->bytes_w) / 1024.0;

    /* multi-core split by output rows */
    {
        int64_t rows = l->n_out > 0 && l->out[0].nd >= 3 ? l->out[0].d[2] : 1;
        int n = splits_on_cores(l) && ncores > 1 && rows >= ncores ? ncores : 1;
        double lut_px = npu_layer_uses_lut(l) && l->n_out > 0
                            ? (double)npu_act_bytes(ng, l, &l->out[0], 1) / elem_bytes(dt) : 0;
        /* the rows' time; the bound stays that of the printed NPU and DDR
         * cycles (0 NPU cycles, as a board prints them), as an imported
         * table of the same layer derives it */
        double sm = npu_softmax_cycles(p, l);
        double tc = fmax(l->npu_cycles * p->t_npu[dt], lut_px * p->t_lut[dt]) +
                    l->ddr_cycles * p->t_ddr[dt] + sm;
        double maxshare = 0;
        for (int i = 0; i < n; i++) {
            int64_t r = rows / n + (i < rows % n ? 1 : 0);
            double share = (double)r / (double)rows;
            l->workload[core_idx[i]] = share * 100.0;
            if (share > maxshare)
                maxshare = share;
        }
        l->time_us = tc * maxshare / p->npu_mhz + p->t_layer_us[dt] +
                     (lut_px > 0 ? p->t_lut_us[dt] : 0);
        if ((npu_layer_uses_lut(l) || dpu_elementwise(l)) && l->n_out > 0)
            l->lut_elems = (uint64_t)numel(&l->out[0]);
        l->frame_us = (npu_frame_cycles(p, (double)l->npu_cycles, (double)l->ddr_cycles,
                                        (double)l->lut_elems) + sm) * maxshare / p->npu_mhz +
                      p->f_layer_us;
    }
    if (l->macs) {
        double peak = (double)npu_peak_macs(p, dt) * ncores;
        double u = 100.0 * (double)l->macs / (l->time_us * p->npu_mhz * peak);
        for (int i = 0; i < ncores; i++)
            l->mac_usage[core_idx[i]] = u;
    }
    /* tasks: one per CBUF-sized slice of the data (UNVERIFIED estimate) */
    l->task_number = (int)cdiv((int64_t)(l->bytes_in + l->bytes_w + l->bytes_out),
                               p->cbuf_bytes > 0 ? p->cbuf_bytes : 1);
    if (l->task_number < 1)
        l->task_number = 1;
}

void npu_cost(npu_graph_t *ng)
{
    ng->total_us = 0;
    ng->total_rw_kb = 0;
    for (int i = 0; i < ng->n; i++) {
        npu_layer_t *l = &ng->l[i];
        /* a layer's cost depends only on the lowering, the cores and the
         * SRAM plan: costed once until one of them changes */
        if (!ng->cost_valid)
            npu_cost_layer(ng, l);
        ng->total_us += (double)(int64_t)l->time_us;
        ng->total_rw_kb += l->rw_kb;
    }
    ng->cost_valid = 1;
}

double npu_frame_cycles(const npu_platform_t *p, double npu, double ddr_cycles, double lut_elems)
{
    double ddr = ddr_cycles * p->f_ddr;

    return fmax(npu, ddr) + p->f_overlap * fmin(npu, ddr) + lut_elems * p->f_lut;
}

double npu_frame_us(const npu_graph_t *ng)
{
    double t = 0;

    for (int i = 0; i < ng->n; i++)
        t += ng->l[i].frame_us;
    return t;
}

int npu_layer_uses_lut(const npu_layer_t *l)
{
    /* HardSwish too: x * HardSigmoid(x) is no single scale, bias and clip,
     * which the DPU forms for HardSigmoid and Relu6; the guide lists Hardswish
     * with Sigmoid, Tanh and Softplus among the low-efficiency non-ReLU
     * activations (table 8-5, G:L9601; npu-hw.md §3.2) */
    static const char *const lut[] = {"ExSwish", "exSwish", "Tanh", "Softplus", "Mish", "Gelu",
                                      "HardSwish", NULL};
    size_t n = strlen(l->optype);

    for (int i = 0; lut[i]; i++)
        if (strstr(l->optype, lut[i]))
            return 1;
    /* Sigmoid but not HardSigmoid (a clipped line); Elu but not Relu */
    return (strstr(l->optype, "Sigmoid") && !strstr(l->optype, "HardSigmoid")) ||
           (n >= 3 && !strcmp(l->optype + n - 3, "Elu") && (n == 3 || l->optype[n - 4] != 'R'));
}
