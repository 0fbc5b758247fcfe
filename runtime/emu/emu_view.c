/* runtime/emu/emu_view.c — the NPU layers a Toolkit2 file gives no task: a Reshape
 * (Flatten, Squeeze, Unsqueeze) whose output's native bytes are its input's, which
 * the compiler leaves as a second name of the same buffer (emu_internal.h). */
#include "runtime/emu/emu_internal.h"

#include <string.h>

int emu_view_type(const char *type)
{
    static const char *const v[] = {"Reshape", "Flatten", "Squeeze", "Unsqueeze"};
    for (size_t i = 0; type && i < sizeof v / sizeof v[0]; i++)
        if (!strcmp(type, v[i]))
            return 1;
    return 0;
}

static int has_task(const emu_program *prog, int node)
{
    for (int i = 0; i < prog->n_tasks; i++)
        if (prog->tasks[i].node == node)
            return 1;
    return 0;
}

/* 1 when every element, in the NCHW order a Reshape keeps, sits at the same byte
 * of in's and out's native layouts (both taken by act_of, batches as channels) */
static int same_bytes(const act *in, const act *out)
{
    int64_t n = (int64_t)in->c * in->h * in->w;
    if (in->es != out->es || n != (int64_t)out->c * out->h * out->w)
        return 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t hw_i = (int64_t)in->h * in->w, hw_o = (int64_t)out->h * out->w;
        int64_t a = act_off(in, (int)(i / hw_i), (int)(i % hw_i / in->w), (int)(i % in->w));
        int64_t b = act_off(out, (int)(i / hw_o), (int)(i % hw_o / out->w), (int)(i % out->w));
        if (a != b)
            return 0;
    }
    return 1;
}

int emu_run_views(const rknn_model *m, const emu_program *prog, emu_mem *mem, int upto,
                  int *next, char *err, size_t errlen)
{
    for (; *next < upto && *next < m->n_nodes; (*next)++) {
        const rknn_node *nd = &m->nodes[*next];
        if (nd->target != RKNN_TGT_NPU || !emu_view_type(nd->type) || has_task(prog, *next))
            continue;
        act in, out;
        int xi = nd->n_in >= 1 ? nd->in[0] : -1, oi = nd->n_out == 1 ? nd->out[0] : -1;
        if (xi < 0 || oi < 0 || act_of(&m->tensors[xi], mem, xi, &in) ||
            act_of(&m->tensors[oi], mem, oi, &out))
            return rt_err(err, errlen, RT_EUNSUPPORTED, "node %d (%s %s) has no task and its "
                          "input or output is not a 4-D activation: not emulated", *next + 1,
                          nd->type, nd->name);
        const rknn_tensor *a = &m->tensors[xi], *b = &m->tensors[oi];
        if (!same_bytes(&in, &out) || a->has_quant != b->has_quant ||
            (a->has_quant && (a->scale != b->scale || a->zero_point != b->zero_point)))
            return rt_err(err, errlen, RT_EUNSUPPORTED, "node %d (%s %s) has no task, and its "
                          "output's native layout or quantization is not its input's: not "
                          "emulated", *next + 1, nd->type, nd->name);
        if (!mem->written[xi])
            return rt_err(err, errlen, RT_EUNSUPPORTED, "node %d (%s %s): input %s was not "
                          "computed before it", *next + 1, nd->type, nd->name, a->name);
        int64_t n = in.bytes < out.bytes ? in.bytes : out.bytes;
        memcpy(out.p, in.p, (size_t)n);
        mem->written[oi] = 1;
    }
    return RT_OK;
}

/* a register of the task's group (its write or an earlier task's, else 0) */
#define R(a) reg_or0(s->rs, s->grp, (a))

/* A DPU-only task of a view node (yolov10n's attention Reshape_2, [2,64,1,400] to
 * [1,128,20,20], task 146): every stage bypassed (BS and BN 0x53, EW 0x383, OUT_CVT
 * scale 1, shift 0, offset 0), the chip's DPU-only feature and RDMA modes; the RDMA
 * reads a cube of W x H x C (10 x 10 x 512 there) and the DPU writes it with
 * DST_SURF_STRIDE and SURFACE_ADD one W x H x C2 surface: the bytes of ceil(C / C2)
 * surfaces copied unchanged from the input's offset to the output's. int8: DATA_FORMAT
 * 0; float16 (toolkit 2.3.2's rk3588 Linear, linear_128_to_4.rknn: its flat [1,128]
 * input as a 4x2x16 cube into [1,128,1,1] in C2 8): DATA_FORMAT 0x48000002 (output
 * and DPU input precision fp16) with RDMA mode 0x17849, the only float16 words seen.
 * It is the node's Reshape when every element keeps its byte (as for the views above)
 * and the copy covers the whole tensor, which the task must do; otherwise it stops. */
int emu_run_view_copy(const emu_step *s, const emu_task *t)
{
    int rc = 0;
    act in, out;
    emu_chip_words w = emu_chip_words_of(t);
    int f16 = t->map == EMU_MAP_RK3588 && R(0x4010) == 0x48000002 && R(0x5044) == 0x17849;
    if (R(0x400c) != w.feature_mode || (!f16 && (R(0x4010) != 0 || R(0x5044) != w.rdma_mode)) ||
        R(0x4070) != 0x383 || R(0x4060) != 0x53 || R(0x4040) != 0x53 || t->out_cvt_scale != 1 ||
        t->out_cvt_shift != 0 || t->out_cvt_offset != 0)
        STOP("task %d (node %s): DPU-only task (FEATURE_MODE 0x%x, DATA_FORMAT 0x%x, RDMA mode "
             "0x%x, EW 0x%x, BN 0x%x, BS 0x%x, OUT_CVT %d/%d/%lld): not a byte copy as emulated",
             s->ti, s->nn, R(0x400c), R(0x4010), R(0x5044), R(0x4070), R(0x4060), R(0x4040),
             t->out_cvt_scale, t->out_cvt_shift, (long long)t->out_cvt_offset);
    if (in_out_acts(s, &in, &out) || !same_bytes(&in, &out) || out.es != (f16 ? 2 : 1))
        STOP("task %d (node %s): its output's native layout is not its input's bytes, in the "
             "task's precision", s->ti, s->nn);
    const rknn_tensor *a = &s->m->tensors[s->nd->in[0]], *b = &s->m->tensors[s->nd->out[0]];
    if (a->has_quant != b->has_quant ||
        (a->has_quant && (a->scale != b->scale || a->zero_point != b->zero_point)))
        STOP("task %d (node %s): input and output quantization differ", s->ti, s->nn);
    int64_t surf = (int64_t)t->out_w * t->out_h * out.c2 * out.es;
    int64_t n = (int64_t)(t->out_c + out.c2 - 1) / out.c2 * surf;
    int64_t whole = (int64_t)(out.c + out.c2 - 1) / out.c2 * out.h * out.w * out.c2 * out.es;
    if (t->out_w <= 0 || t->out_h <= 0 || t->out_c <= 0 || t->rdma_src_addr != 0 ||
        t->dst_addr != 0 || R(0x4024) != surf || R(0x40c0) != surf || n != whole ||
        n > in.bytes || n > out.bytes)
        STOP("task %d (node %s): cube %dx%dx%d from 0x%llx to 0x%llx, surfaces 0x%x / 0x%x "
             "apart: not the whole tensor's bytes", s->ti, s->nn, t->out_w, t->out_h, t->out_c,
             (long long)t->rdma_src_addr, (long long)t->dst_addr, R(0x4024), R(0x40c0));
    if (!s->mem->written[s->nd->in[0]])
        STOP("task %d (node %s): its input was not computed", s->ti, s->nn);
    memcpy(out.p, in.p, (size_t)n);
    wrote(s, s->nd->out[0], 0, out.h);
out:
    return rc;
}
