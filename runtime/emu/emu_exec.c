/* runtime/emu/emu_exec.c — runs a vendor file's decoded NPU tasks over one
 * buffer per graph tensor, in the NPU's integer arithmetic (emu.h). What it
 * does not understand stops the run with the task, its node and the reason. */
#include "runtime/emu/emu.h"
#include "dump/dump.h"
#include "runtime/model/model.h"
#include "runtime/model/rknn_file.h"
#include "util/util.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the register state of the two ping-pong groups (last write wins) */
typedef struct regstate {
    uint32_t val[2][0x10000 / 4];
    uint8_t set[2][0x10000 / 4];
} regstate;

typedef struct emu_mem {
    int8_t **buf;         /* per tensor, NULL none */
    int64_t *bytes;
    uint8_t *written;
    int64_t *ew_delta;    /* per node: EW address - destination address of its first task */
    uint8_t *ew_seen;
} emu_mem;

/* a 4-D activation in NC1HWC2 (or NHWC [1,1,H,W,C]) */
typedef struct act {
    int c, h, w, c2;
    int8_t *p;
    int64_t bytes;
} act;

static int32_t rd_i32(const uint8_t *p) { return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24); }
static int16_t rd_i16(const uint8_t *p) { return (int16_t)(p[0] | p[1] << 8); }

static int64_t rshift_round(int64_t v, int n)
{
    return n <= 0 ? v : (v + ((int64_t)1 << (n - 1))) >> n;
}

static int8_t sat8(int64_t v) { return (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v); }

int emu_exec_supported(const rknn_model *m, const char **why)
{
    const char *tg = m->target ? m->target : m->fb_target;
    int map = tg ? emu_map_for_target(tg) : EMU_MAP_NONE;
    if (m->container == RKNN_C_LITE) {
        *why = map == EMU_MAP_RV110X ? NULL : "a lite file for a chip other than rv1103/rv1106";
        return map == EMU_MAP_RV110X;
    }
    if (m->container != RKNN_C_TK2_FB) {
        *why = "no compiled NPU tasks of a known kind";
        return 0;
    }
    if (map != EMU_MAP_RK3588 && map != EMU_MAP_RK356X && !emu_layout_known(map)) {
        *why = "the chip's register layout is not decoded (rv1126b)";
        return 0;
    }
    *why = NULL;
    return 1;
}

static int act_of(const rknn_tensor *t, emu_mem *mem, int idx, act *a)
{
    if (t->nd != 4 || t->nnd != 5 || !t->shape || !t->native || !mem->buf[idx])
        return -1;
    a->c = (int)t->shape[1];
    a->h = (int)t->native[2];
    a->w = (int)t->native[3];
    a->c2 = (int)t->native[4];
    if (a->h != t->shape[2] || a->w != t->shape[3] || a->c2 <= 0 ||
        t->native[1] * a->c2 < a->c)
        return -1;
    a->p = mem->buf[idx];
    a->bytes = mem->bytes[idx];
    return 0;
}

static int64_t act_off(const act *a, int c, int y, int x)
{
    return (((int64_t)(c / a->c2) * a->h + y) * a->w + x) * a->c2 + c % a->c2;
}

static const char *node_name(const rknn_model *m, int node)
{
    return node >= 0 && node < m->n_nodes && m->nodes[node].name ? m->nodes[node].name : "?";
}

/* the node's inputs: first activation, weights, bias, other activation */
static void node_operands(const rknn_model *m, const rknn_node *nd, int *x, int *w, int *b, int *e)
{
    *x = *w = *b = *e = -1;
    for (int k = 0; k < nd->n_in; k++) {
        const rknn_tensor *t = &m->tensors[nd->in[k]];
        int is_const = t->data_off >= 0 && t->data_len > 0;
        if (!is_const && *x < 0)
            *x = nd->in[k];
        else if (!is_const && *e < 0)
            *e = nd->in[k];
        else if (is_const && t->nnd == 6 && *w < 0)
            *w = nd->in[k];
        else if (is_const && t->dtype == DT_INT32 && *b < 0)
            *b = nd->in[k];
    }
}

/* Registers the map does not name whose non-zero values the emulator ignores:
 * on rk3566/rk3568 the block at 0x2000 (its S_POINTER 0x2004 = 0xe like every
 * block's, 0x200c = 1), CNA 0x1018 (0x24000 on the first task), DPU_RDMA
 * 0x5024 (0xf) and 0x503c (0x1fff8 on a ConvAdd). Ignoring them reproduces the
 * source model on multiple_input_demo.rk3566 (tests/cli/emulate.sh); every
 * other non-zero unnamed register stops the run. */
static int ignored_raw(int map, uint16_t addr)
{
    static const uint16_t rk356x[] = {0x2004, 0x200c, 0x1018, 0x5024, 0x503c};
    if (map == EMU_MAP_RK356X)
        for (size_t i = 0; i < sizeof(rk356x) / sizeof(rk356x[0]); i++)
            if (rk356x[i] == addr)
                return 1;
    return 0;
}

#define STOP(...) do { rc = rt_err(err, errlen, RT_EUNSUPPORTED, __VA_ARGS__); goto out; } while (0)

static int run_conv(const rknn_model *m, const uint8_t *file, size_t len, int ti,
                    const emu_task *t, const regstate *rs, int grp, int node, emu_mem *mem,
                    int *rows, char *err, size_t errlen)
{
    const rknn_node *nd = &m->nodes[node];
    const char *nn = node_name(m, node);
    const char *tg = m->target ? m->target : m->fb_target;
    int G = emu_channel_group(tg);
    int xi, wi, bi, ei, rc = 0;
    act in, out, ew = {0};
    node_operands(m, nd, &xi, &wi, &bi, &ei);
    if (t->op != EMU_OP_CONV)
        STOP("task %d (node %s): %s tasks are not emulated", ti, nn, emu_op_name(t->op));
    if (nd->n_out != 1 || xi < 0 || wi < 0 || bi < 0)
        STOP("task %d (node %s): the node's input, weight, bias and output tensors are not all found",
             ti, nn);
    if (act_of(&m->tensors[xi], mem, xi, &in) || act_of(&m->tensors[nd->out[0]], mem, nd->out[0], &out))
        STOP("task %d (node %s): input or output tensor not a 4-D NC1HWC2/NHWC activation", ti, nn);
    if (t->in_prec != 0 || t->proc_prec != 0 || t->out_prec != 0)
        STOP("task %d (node %s): precisions in %s proc %s out %s: only int8 is emulated", ti, nn,
             emu_prec_name(t->in_prec), emu_prec_name(t->proc_prec), emu_prec_name(t->out_prec));
    /* in_c / out_c are the aligned counts, in_c_real / out_c_orig the tensors' */
    if (t->in_w != in.w || t->in_c_real != in.c || t->out_w != out.w || t->out_c_orig != out.c ||
        t->kernels != out.c)
        STOP("task %d (node %s): a tile of the width or the channels (in %dx%d, out %dx%d, %d "
             "kernels; tensors %dx%d, %dx%d) is not emulated", ti, nn, t->in_w, t->in_c_real, t->out_w,
             t->out_c_orig, t->kernels, in.w, in.c, out.w, out.c);
    int32_t pad_value = t->pad_value;
    if (!t->has_pad_value) {
        /* rk3566/rk3568 write no CNA_PAD_CON1; CNA_PAD_CON0's upper half holds the
         * input's zero point there (0xff80 = -128 above the top/left pads) */
        if (t->map != EMU_MAP_RK356X || !rs->set[grp][0x1068 / 4])
            STOP("task %d (node %s): no CNA pad value", ti, nn);
        pad_value = (int16_t)(rs->val[grp][0x1068 / 4] >> 16);
    }
    /* rk3566/rk3568 encode the add otherwise (BS_CFG 0x148, EW_CFG 0x900002d0 where
     * rk3588 writes 0x20140, 0x904202c0: algo 0 and bits 3 / 4 set); only those
     * exact words are taken there */
    uint32_t bs_cfg = rs->set[grp][0x4040 / 4] ? rs->val[grp][0x4040 / 4] : 0;
    uint32_t ew_cfg = rs->set[grp][0x4070 / 4] ? rs->val[grp][0x4070 / 4] : 0;
    int rk356x = t->map == EMU_MAP_RK356X;
    /* table layouts: their stage words were checked against the values the
     * sample files write (emu_layout_check), one meaning each */
    int table = emu_layout_known(t->map);
    if (table && (!t->bs.present || !t->bs.alu_src || !t->bs.mul_src || !t->bs.relu_bypass))
        STOP("task %d (node %s): BS stage other than per-channel add and multiply without ReLU",
             ti, nn);
    if (!table && rk356x && bs_cfg != 0x148)
        STOP("task %d (node %s): DPU_BS_CFG 0x%x: on rk356x only 0x148 (per-channel add and "
             "multiply) is understood", ti, nn, bs_cfg);
    if (!table && (!t->bs.present || t->bs.bypass || t->bs.alu_bypass || t->bs.alu_algo != (rk356x ? 0 : 2) ||
        !t->bs.alu_src ||
        t->bs.mul_bypass || !t->bs.mul_src || t->bs.mul_prelu || !t->bs.relu_bypass || t->bs.relux_en))
        STOP("task %d (node %s): BS stage other than per-channel add and multiply without ReLU "
             "(bypass %d alu %d/%d/src %d mul %d/src %d/prelu %d relu bypass %d)", ti, nn,
             t->bs.bypass, t->bs.alu_bypass, t->bs.alu_algo, t->bs.alu_src, t->bs.mul_bypass,
             t->bs.mul_src, t->bs.mul_prelu, t->bs.relu_bypass);
    if (t->bn.present && !t->bn.bypass)
        STOP("task %d (node %s): BN stage in use (ReLU/PReLU/second operand): not emulated", ti, nn);
    if (t->lut_used)
        STOP("task %d (node %s): LUT activation: its programming is not decoded", ti, nn);
    int use_ew = t->ew_present && !t->ew_bypass;
    if (use_ew && !table && rk356x && ew_cfg != 0x900002d0)
        STOP("task %d (node %s): DPU_EW_CFG 0x%x: on rk356x only 0x900002d0 (add of a memory "
             "operand) is understood", ti, nn, ew_cfg);
    if (use_ew && !table && (t->ew_alu_algo != (rk356x ? 0 : 2) || !t->ew_op_src || !t->ew_lut_bypass || t->ew_op_type ||
                   t->ew_binary))
        STOP("task %d (node %s): EW stage other than the add of a memory operand (algo %d src %d "
             "lut bypass %d type %d binary %d)", ti, nn, t->ew_alu_algo, t->ew_op_src,
             t->ew_lut_bypass, t->ew_op_type, t->ew_binary);
    if (use_ew && (ei < 0 || act_of(&m->tensors[ei], mem, ei, &ew) || ew.c != out.c ||
                   ew.h != out.h || ew.w != out.w))
        STOP("task %d (node %s): the element-wise operand is not a second activation input of the "
             "output's shape", ti, nn);
    if (t->out_cvt_shift < 0 || t->out_cvt_shift > 40 || t->bs.mul_shift < 0 || t->bs.mul_shift > 31)
        STOP("task %d (node %s): shifts out of range (out %d, bs %d)", ti, nn, t->out_cvt_shift,
             t->bs.mul_shift);
    if (G <= 0)
        STOP("task %d (node %s): the chip's per-channel group size is unknown", ti, nn);
    /* tiles: rows from the offsets into the tensors */
    int64_t in_row = (int64_t)in.w * in.c2, out_row = (int64_t)out.w * out.c2;
    if (t->feature_addr < 0 || t->dst_addr < 0 || t->feature_addr % in_row || t->dst_addr % out_row)
        STOP("task %d (node %s): feature 0x%llx / destination 0x%llx are not row offsets into the "
             "node's tensors", ti, nn, (long long)t->feature_addr, (long long)t->dst_addr);
    int y0i = (int)(t->feature_addr / in_row), y0o = (int)(t->dst_addr / out_row);
    if (y0i + t->in_h > in.h || y0o + t->out_h > out.h)
        STOP("task %d (node %s): tile rows beyond the tensor", ti, nn);
    rows[0] = y0o;
    rows[1] = y0o + t->out_h;
    /* the EW operand sits at the output's position: one offset for the whole node */
    uint32_t ew_cvt_off = 0, ew_cvt = 0;
    if (use_ew) {
        int64_t delta = t->ew_addr - t->dst_addr;
        if (!mem->ew_seen[node]) {
            mem->ew_seen[node] = 1;
            mem->ew_delta[node] = delta;
        } else if (mem->ew_delta[node] != delta) {
            STOP("task %d (node %s): EW operand at 0x%llx for the destination 0x%llx: not at the "
                 "offset the node's first tile used (0x%llx)", ti, nn, (long long)t->ew_addr,
                 (long long)t->dst_addr, (long long)mem->ew_delta[node]);
        }
        if (t->ew_cvt_offset == INT64_MIN || t->ew_cvt_scale < 0)
            STOP("task %d (node %s): EW converter registers not written", ti, nn);
        ew_cvt_off = (uint32_t)t->ew_cvt_offset;
        ew_cvt = (uint32_t)t->ew_cvt_scale;
        if (ew_cvt >> 22)
            STOP("task %d (node %s): EW_CVT_SCALE 0x%x has bits above 21 set", ti, nn, ew_cvt);
    }
    /* weights and per-channel words from the file */
    const rknn_tensor *wt = &m->tensors[wi], *bt = &m->tensors[bi];
    int kh = t->kh, kw = t->kw, ocp = (int)wt->native[4], icp = (int)wt->native[5];
    if (wt->native[2] != kh || wt->native[3] != kw || ocp < out.c || icp < in.c || t->weight_addr != 0)
        STOP("task %d (node %s): weight layout [1,1,%lld,%lld,%d,%d] at 0x%llx does not fit the "
             "task's kernel %dx%d", ti, nn, (long long)wt->native[2], (long long)wt->native[3], ocp,
             icp, (long long)t->weight_addr, kh, kw);
    int64_t wbytes = (int64_t)kh * kw * ocp * icp;
    int64_t groups = (out.c + G - 1) / G;
    if (wt->data_len < wbytes || (uint64_t)wt->data_off + (uint64_t)wbytes > len ||
        t->bs_addr < 0 || bt->data_len < t->bs_addr + groups * G * 8 ||
        (uint64_t)bt->data_off + (uint64_t)bt->data_len > len)
        STOP("task %d (node %s): weight or per-channel data outside its tensor", ti, nn);
    const int8_t *W = (const int8_t *)file + wt->data_off;
    const uint8_t *B = file + bt->data_off + t->bs_addr;
    int sx = t->stride_x, sy = t->stride_y, dx = t->dil_x > 0 ? t->dil_x : 1,
        dy = t->dil_y > 0 ? t->dil_y : 1;
    int8_t padv = sat8(pad_value);
    for (int oc = 0; oc < out.c; oc++) {
        const uint8_t *g = B + (int64_t)(oc / G) * G * 8;
        int j = oc % G;
        int64_t bias = rd_i32(g + 4 * j);
        int nzp = rd_i16(g + 4 * G + 2 * j), mul = rd_i16(g + 6 * G + 2 * j);
        for (int oy = 0; oy < t->out_h; oy++)
            for (int ox = 0; ox < t->out_w; ox++) {
                int64_t acc = bias;
                for (int ky = 0; ky < kh; ky++) {
                    int iy = oy * sy - t->pad_top + ky * dy;
                    for (int kx = 0; kx < kw; kx++) {
                        int ix = ox * sx - t->pad_left + kx * dx;
                        int inside = iy >= 0 && iy < t->in_h && ix >= 0 && ix < t->in_w;
                        const int8_t *wk = W + ((int64_t)(ky * kw + kx) * ocp + oc) * icp;
                        for (int ic = 0; ic < in.c; ic++) {
                            int x = inside ? in.p[act_off(&in, ic, y0i + iy, ix)] : padv;
                            acc += (int64_t)x * (wk[ic] + nzp);
                        }
                    }
                }
                if (acc < INT32_MIN || acc > INT32_MAX)
                    STOP("task %d (node %s): accumulator %lld overflows int32 (channel %d, row %d, "
                         "column %d)", ti, nn, (long long)acc, oc, oy, ox);
                int64_t v = rshift_round(acc * mul, t->bs.mul_shift);
                int64_t pos = act_off(&out, oc, y0o + oy, ox);
                if (use_ew) {
                    int64_t e = ew.p[act_off(&ew, oc, y0o + oy, ox)];
                    v += rshift_round((e + (int32_t)ew_cvt_off) * (int64_t)(ew_cvt & 0xffff),
                                      (int)(ew_cvt >> 16 & 0x3f));
                }
                int64_t y = rshift_round(v * t->out_cvt_scale, t->out_cvt_shift) + t->out_cvt_offset;
                out.p[pos] = sat8(y);
            }
    }
    mem->written[nd->out[0]] = 1;
out:
    return rc;
}

/* float NCHW of a written activation, dequantized with its tensor's quantization */
static float *dequant(const rknn_tensor *t, const act *a)
{
    float *f = malloc(sizeof(float) * (size_t)a->c * a->h * a->w);
    if (!f)
        return NULL;
    for (int c = 0; c < a->c; c++)
        for (int y = 0; y < a->h; y++)
            for (int x = 0; x < a->w; x++)
                f[((int64_t)c * a->h + y) * a->w + x] =
                    (float)((a->p[act_off(a, c, y, x)] - t->zero_point) * t->scale);
    return f;
}

static void dump_name(char *buf, size_t n, const char *dir, const char *name)
{
    size_t k = (size_t)snprintf(buf, n, "%s/", dir);
    for (const char *s = name; *s && k + 5 < n; s++)
        buf[k++] = (*s == '/' || *s == '\\' || *s == ':') ? '_' : *s;
    snprintf(buf + k, n - k, ".npy");
}

int emu_result_alloc(const rknn_model *m, emu_result *res, char *err, size_t errlen)
{
    for (int i = 0; i < m->n_io; i++)
        res->n_out += m->io[i].is_output;
    res->out_names = calloc((size_t)res->n_out + 1, sizeof(char *));
    res->out = calloc((size_t)res->n_out + 1, sizeof(float *));
    res->out_dims = calloc((size_t)res->n_out + 1, sizeof(*res->out_dims));
    if (!res->out_names || !res->out || !res->out_dims)
        return rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
    return RT_OK;
}

void emu_result_free(emu_result *r)
{
    for (int i = 0; i < r->n_out; i++) {
        free(r->out_names ? r->out_names[i] : NULL);
        free(r->out ? r->out[i] : NULL);
    }
    free(r->out_names);
    free(r->out);
    free(r->out_dims);
    memset(r, 0, sizeof(*r));
}

int emu_exec(const rknn_model *m, const uint8_t *file, size_t len, const float *const *inputs,
             int n_inputs, const char *dump_dir, emu_result *res, char *err, size_t errlen)
{
    emu_program prog = {0};
    emu_task *tasks = NULL;
    regstate *rs = NULL;
    emu_mem mem = {0};
    const char *why;
    int rc = 0, k = 0;
    /* DIR/tasks.json: which rows of which tensor each computed task wrote, so that a
     * tensor differing from the source model points at its tasks */
    json_t *index = dump_dir ? json_array() : NULL;

    memset(res, 0, sizeof(*res));
    if (!emu_exec_supported(m, &why))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "not emulated: %s", why);
    if ((rc = emu_program_load(m, file, len, &prog, err, errlen)))
        return rc;
    if (prog.source == EMU_SRC_LITE) {
        tasks = calloc((size_t)prog.n_tasks + 1, sizeof(*tasks));
        if (!tasks) {
            rc = rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
            goto out;
        }
        emu_program_decode(&prog, tasks);
        rc = emu_lite_exec(m, file, len, &prog, tasks, inputs, n_inputs, dump_dir, res, err, errlen);
        goto out;
    }
    if (prog.source != EMU_SRC_FB_TASKS) {
        rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                    "not emulated: %s: tasks without graph node indices cannot be bound to tensors",
                    emu_source_name(prog.source));
        goto out;
    }
    tasks = calloc((size_t)prog.n_tasks + 1, sizeof(*tasks));
    rs = calloc(1, sizeof(*rs));
    mem.buf = calloc((size_t)m->n_tensors + 1, sizeof(*mem.buf));
    mem.bytes = calloc((size_t)m->n_tensors + 1, sizeof(*mem.bytes));
    mem.written = calloc((size_t)m->n_tensors + 1, 1);
    mem.ew_delta = calloc((size_t)m->n_nodes + 1, sizeof(*mem.ew_delta));
    mem.ew_seen = calloc((size_t)m->n_nodes + 1, 1);
    if (!tasks || !rs || !mem.buf || !mem.bytes || !mem.written || !mem.ew_delta || !mem.ew_seen) {
        rc = rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
        goto out;
    }
    emu_program_decode(&prog, tasks);
    /* one buffer per activation tensor, its native bytes */
    for (int i = 0; i < m->n_tensors; i++) {
        const rknn_tensor *t = &m->tensors[i];
        if (t->data_off >= 0 || t->nnd != 5 || !t->native)
            continue;
        int64_t n = 1;
        for (int d = 0; d < 5; d++)
            n *= t->native[d] > 0 ? t->native[d] : 1;
        if (n <= 0 || n > ((int64_t)1 << 31) || !(mem.buf[i] = calloc((size_t)n, 1))) {
            rc = rt_err(err, errlen, RT_ENOMEM, "emulate: tensor %s: %lld bytes", t->name,
                        (long long)n);
            goto out;
        }
        mem.bytes[i] = n;
    }
    /* inputs as rknn_inputs_set takes them: float, (x - mean) / std, quantized */
    for (int i = 0; i < m->n_io; i++) {
        const rknn_io *io = &m->io[i];
        act a;
        if (io->is_output)
            continue;
        if (k >= n_inputs || io->tensor < 0 || act_of(&m->tensors[io->tensor], &mem, io->tensor, &a) ||
            !m->tensors[io->tensor].has_quant || m->tensors[io->tensor].scale <= 0) {
            rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                        "emulate: input %s: not a quantized 4-D activation (or not given)", io->name);
            goto out;
        }
        for (int r = 0; r < io->n_reorder; r++)
            if (io->reorder[r] != r) {
                rc = rt_err(err, errlen, RT_EUNSUPPORTED, "emulate: input %s: channel reorder",
                            io->name);
                goto out;
            }
        const rknn_tensor *t = &m->tensors[io->tensor];
        for (int c = 0; c < a.c; c++) {
            double mean = c < io->n_mean ? io->mean[c] : 0, sd = c < io->n_std ? io->std[c] : 1;
            for (int y = 0; y < a.h; y++)
                for (int x = 0; x < a.w; x++) {
                    double v = (inputs[k][((int64_t)c * a.h + y) * a.w + x] - mean) / sd;
                    a.p[act_off(&a, c, y, x)] = sat8(llround(v / t->scale) + t->zero_point);
                }
        }
        mem.written[io->tensor] = 1;
        k++;
    }
    /* the tasks, in the file's order */
    for (int i = 0; i < prog.n_tasks; i++) {
        const emu_stream *s = &prog.tasks[i];
        const emu_task *t = &tasks[i];
        int g = i & 1;
        for (int r = 0; r < s->n_regs; r++) {
            rs->val[g][s->regs[r].addr / 4] = s->regs[r].value;
            rs->set[g][s->regs[r].addr / 4] = 1;
        }
        if (s->node < 0 || s->node >= m->n_nodes) {
            rc = rt_err(err, errlen, RT_EUNSUPPORTED, "task %d: no graph node index", i);
            goto out;
        }
        const rknn_node *nd = &m->nodes[s->node];
        if (nd->type && !strcmp(nd->type, "OutputOperator")) {
            res->tasks_output_op++; /* reformatting for the CPU: done below from its input */
            continue;
        }
        if (t->op == EMU_OP_POOL) {
            /* one pixel copied onto itself (4 per ConvAdd on rk3588): changes nothing when its
             * source and destination are the same buffer; anything else stops */
            if (t->pool_kw == 1 && t->pool_kh == 1 && t->pool_sx == 1 && t->pool_sy == 1 &&
                t->pool_in_w == 1 && t->pool_in_h == 1 && t->pool_out_w == 1 && t->pool_out_h == 1 &&
                t->pool_src_addr == t->pool_dst_addr) {
                res->tasks_copy++;
                continue;
            }
            rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                        "task %d (node %s): pooling (method %d kernel %dx%d stride %dx%d in %dx%dx%d) "
                        "is not emulated", i, node_name(m, s->node), t->pool_method, t->pool_kw,
                        t->pool_kh, t->pool_sx, t->pool_sy, t->pool_in_w, t->pool_in_h, t->pool_in_c);
            goto out;
        }
        if (emu_layout_known(prog.map)) {
            /* the register state the task runs with (its writes and what earlier
             * tasks of its group left): each decoded, left aside or a sample's value */
            for (int r = 0; r < 0x10000 / 4; r++) {
                uint16_t a = (uint16_t)(4 * r);
                if (!rs->set[g][r] || emu_layout_check(prog.map, a, rs->val[g][r]))
                    continue;
                rc = rt_err(err, errlen, RT_EUNSUPPORTED, "task %d (node %s): register 0x%04x = 0x%08x: %s",
                            i, node_name(m, s->node), a, rs->val[g][r],
                            emu_reg_name(prog.map, a) ? "a value the sample files do not write (not decoded)"
                                                      : "not in the chip's register table");
                goto out;
            }
        } else if (t->n_unknown > EMU_MAX_UNKNOWN) {
            rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                        "task %d (node %s): %d registers not in the map", i, node_name(m, s->node),
                        t->n_unknown);
            goto out;
        }
        if (t->n_unknown > 0) {
            for (int u = 0; u < t->n_unknown; u++)
                if (t->unknown_val[u] != 0 && !ignored_raw(prog.map, t->unknown_addr[u])) {
                    rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                                "task %d (node %s): register 0x%04x = 0x%08x has no known meaning",
                                i, node_name(m, s->node), t->unknown_addr[u], t->unknown_val[u]);
                    goto out;
                }
        }
        int rows[2] = {0, 0};
        if ((rc = run_conv(m, file, len, i, t, rs, g, s->node, &mem, rows, err, errlen)))
            goto out;
        res->tasks_run++;
        if (index) {
            /* the rows this task wrote, dequantized: DIR/task_NNNN_<tensor>.npy */
            const rknn_tensor *ot = &m->tensors[nd->out[0]];
            const char *tn = ot->name ? ot->name : "tensor";
            char name[512], path[4096];
            act a;
            snprintf(name, sizeof(name), "task_%04d_%s", i, tn);
            dump_name(path, sizeof(path), dump_dir, name);
            if (act_of(ot, &mem, nd->out[0], &a) == 0 && ot->has_quant) {
                int h = rows[1] - rows[0];
                float *f = malloc(sizeof(float) * (size_t)a.c * (size_t)(h > 0 ? h : 1) * a.w);
                int64_t dims[4] = {1, a.c, h, a.w};
                if (!f) {
                    rc = rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
                    goto out;
                }
                for (int c = 0; c < a.c; c++)
                    for (int y = 0; y < h; y++)
                        for (int x = 0; x < a.w; x++)
                            f[((int64_t)c * h + y) * a.w + x] = (float)(
                                (a.p[act_off(&a, c, rows[0] + y, x)] - ot->zero_point) * ot->scale);
                rc = npy_write(path, DT_FLOAT, 4, dims, f, err, errlen);
                free(f);
                if (rc)
                    goto out;
            }
            json_array_append_new(index, json_pack("{s:i, s:s, s:s, s:s, s:[i,i], s:s}", "task", i,
                                                   "node", node_name(m, s->node), "op",
                                                   emu_op_name(t->op), "tensor", tn, "rows",
                                                   rows[0], rows[1], "file", strrchr(path, '/') + 1));
        }
    }
    /* outputs: dequantized NCHW from the output tensors (the CPU's OutputOperator) */
    if ((rc = emu_result_alloc(m, res, err, errlen)))
        goto out;
    k = 0;
    for (int i = 0; i < m->n_io; i++) {
        const rknn_io *io = &m->io[i];
        act a;
        if (!io->is_output)
            continue;
        if (io->tensor < 0 || act_of(&m->tensors[io->tensor], &mem, io->tensor, &a) ||
            !mem.written[io->tensor]) {
            rc = rt_err(err, errlen, RT_EUNSUPPORTED, "emulate: output %s was not computed",
                        io->name);
            goto out;
        }
        res->out_names[k] = strdup(io->name ? io->name : "");
        res->out[k] = dequant(&m->tensors[io->tensor], &a);
        if (!res->out_names[k] || !res->out[k]) {
            rc = rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
            goto out;
        }
        res->out_dims[k][0] = 1;
        res->out_dims[k][1] = a.c;
        res->out_dims[k][2] = a.h;
        res->out_dims[k][3] = a.w;
        k++;
    }
    /* every computed tensor, dequantized, by its graph name */
    if (dump_dir) {
        for (int i = 0; i < m->n_tensors; i++) {
            const rknn_tensor *t = &m->tensors[i];
            act a;
            char path[4096];
            if (!mem.written[i] || act_of(t, &mem, i, &a) || !t->has_quant)
                continue;
            float *f = dequant(t, &a);
            int64_t dims[4] = {1, a.c, a.h, a.w};
            if (!f) {
                rc = rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
                goto out;
            }
            dump_name(path, sizeof(path), dump_dir, t->name ? t->name : "tensor");
            rc = npy_write(path, DT_FLOAT, 4, dims, f, err, errlen);
            free(f);
            if (rc)
                goto out;
        }
        char path[4096];
        snprintf(path, sizeof(path), "%s/tasks.json", dump_dir);
        if (!index || json_dump_file(index, path, JSON_COMPACT) != 0) {
            rc = rt_err(err, errlen, RT_EIO, "%s: cannot write", path);
            goto out;
        }
    }
out:
    json_decref(index);
    if (rc)
        emu_result_free(res);
    for (int i = 0; mem.buf && i < m->n_tensors; i++)
        free(mem.buf[i]);
    free(mem.buf);
    free(mem.bytes);
    free(mem.written);
    free(mem.ew_delta);
    free(mem.ew_seen);
    free(rs);
    free(tasks);
    emu_program_free(&prog);
    return rc;
}
