/* runtime/emu/emu_exec.c — runs a vendor file's decoded NPU tasks over one
 * buffer per graph tensor, in the NPU's integer arithmetic (emu.h). What it
 * does not understand stops the run with the task, its node and the reason. */
#include "runtime/emu/emu.h"
#include "dump/dump.h"
#include "runtime/model/model.h"
#include "runtime/model/rknn_file.h"
#include "util/outfile.h"
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

/* The value register addr holds for group grp's task: its own write or what an
 * earlier task of the group left; 0 when none wrote it. */
static uint32_t reg_or0(const regstate *rs, int grp, uint32_t addr)
{
    return rs->set[grp][addr / 4] ? rs->val[grp][addr / 4] : 0;
}

typedef struct emu_mem {
    int8_t **buf;         /* per tensor, NULL none */
    int64_t *bytes;
    uint8_t *written;
    int64_t *ew_delta;    /* per node: EW address - destination address of its first task */
    int copy_out;         /* the tensor the last Split/Concat copy wrote */
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

static uint32_t rd_u32(const uint8_t *p) { return (uint32_t)rd_i32(p); }

#define LUT_N 513 /* entries of each LUT table (512 intervals) */

static int64_t rshift_round(int64_t v, int n)
{
    return n <= 0 ? v : (v + ((int64_t)1 << (n - 1))) >> n;
}

static int8_t sat8(int64_t v) { return (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v); }

int emu_write_json(const char *dir, const char *name, json_t *doc, size_t flags, char *err,
                   size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = doc ? json_dumps(doc, flags) : NULL;
    if (!text)
        return rt_err(err, errlen, RT_ENOMEM, "%s: out of memory", path);
    int rc = outfile_write(path, text, strlen(text), 0, err, errlen);
    free(text);
    return rc;
}

int emu_write_stopped(const char *dir, int map, const uint32_t *val, const uint8_t *set, int task,
                      int node, const char *node_name, const char *lut, const char *reason,
                      char *err, size_t errlen)
{
    json_t *regs = json_array();
    for (int a = 0; regs && a < 0x10000 / 4; a++) {
        if (!set[a])
            continue;
        char hex[16];
        snprintf(hex, sizeof hex, "0x%04x", a * 4);
        json_array_append_new(regs, json_pack("{s:s, s:s?, s:I}", "addr", hex, "name",
                                              emu_reg_name(map, (uint16_t)(a * 4)), "value",
                                              (json_int_t)val[a]));
    }
    /* names are the file's bytes: json_text keeps one that is not UTF-8 */
    json_t *doc = json_pack("{s:i, s:i, s:o, s:o, s:o, s:o?}", "task", task, "node", node,
                            "node_name", json_text(node_name), "lut", json_text(lut), "reason",
                            json_text(reason), "registers", regs);
    int rc = emu_write_json(dir, "stopped_task.json", doc, JSON_INDENT(1), err, errlen);
    json_decref(doc);
    return rc;
}

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
        *why = "the chip's register layout is not decoded";
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
        else if (is_const && t->nnd >= 6 && t->nnd % 6 == 0 && *w < 0)
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

/* The DPU LUT of a model-1 task: its two tables, uploaded by the LUT tensor's own
 * register stream (LUT_ACCESS_CFG 0x20000 then the LE table's words through
 * LUT_ACCESS_DATA, 0x30000 then the LO table's), and the task's LUT registers. */
typedef struct lut_stage {
    int32_t le[LUT_N], lo[LUT_N];
    int64_t le_start, le_end, lo_start, lo_end;
    int le_shift, lo_shift;
    int uflow_scale, uflow_shift, oflow_scale, oflow_shift;
} lut_stage;

static int lut_load(const rknn_model *m, const uint8_t *file, size_t len, int lut,
                    const regstate *rs, int grp, lut_stage *L)
{
    const rknn_tensor *t = lut >= 0 && lut < m->n_tensors ? &m->tensors[lut] : NULL;
    int n_le = 0, n_lo = 0, cur = 0;
    if (!t || t->data_off < 0 || t->data_len < 0 || (uint64_t)t->data_off > len ||
        (uint64_t)t->data_len > len - (uint64_t)t->data_off)
        return -1;
    for (int64_t k = 0; k + 8 <= t->data_len; k += 8) {
        const uint8_t *e = file + t->data_off + k; /* model-1 entry: 0, address, value */
        uint32_t addr = (uint32_t)e[2] | (uint32_t)e[3] << 8, v = rd_u32(e + 4);
        if (addr == 0x4100)
            cur = v == 0x20000 ? 1 : v == 0x30000 ? 2 : 0;
        else if (addr == 0x4104 && cur == 1 && n_le < LUT_N)
            L->le[n_le++] = (int32_t)v;
        else if (addr == 0x4104 && cur == 2 && n_lo < LUT_N)
            L->lo[n_lo++] = (int32_t)v;
    }
    static const uint16_t need[] = {0x4108, 0x410c, 0x4110, 0x4114, 0x4118, 0x411c,
                                    0x4120, 0x4124, 0x4128, 0x412c};
    for (size_t k = 0; k < sizeof need / sizeof need[0]; k++)
        if (!rs->set[grp][need[k] / 4])
            return -1;
#define R(a) rs->val[grp][(a) / 4]
    /* the one configuration seen (yolov8n, 127 tasks): LUT_CFG 0x68, LE index
     * offset 0, equal index shifts, LE ending where LO starts, 512 intervals each */
    if (n_le < LUT_N || n_lo < LUT_N || R(0x4108) != 0x68 || (R(0x410c) & 0xff))
        return -1;
    L->le_shift = (int)(R(0x410c) >> 8 & 0xff);
    L->lo_shift = (int)(R(0x410c) >> 16 & 0xff);
    L->le_start = (int32_t)R(0x4110);
    L->le_end = (int32_t)R(0x4114);
    L->lo_start = (int32_t)R(0x4118);
    L->lo_end = (int32_t)R(0x411c);
    if (L->le_shift > 20 || L->lo_shift > 20 || L->le_end != L->lo_start ||
        L->le_end - L->le_start != (int64_t)(LUT_N - 1) << L->le_shift ||
        L->lo_end - L->lo_start != (int64_t)(LUT_N - 1) << L->lo_shift)
        return -1;
    L->uflow_scale = (int16_t)(R(0x4120) & 0xffff);
    L->uflow_shift = (int)(R(0x4124) & 0x1f);
    L->oflow_scale = (int16_t)(R(0x4128) >> 16);
    L->oflow_shift = (int)(R(0x412c) >> 5 & 0x1f);
#undef R
    return 0;
}

/* y = the table at x: linear between entries, the slopes beyond the ends */
static int64_t lut_eval(const lut_stage *L, int64_t x)
{
    if (x < L->le_start)
        return L->le[0] + rshift_round((x - L->le_start) * L->uflow_scale, L->uflow_shift);
    if (x > L->lo_end)
        return L->lo[LUT_N - 1] + rshift_round((x - L->lo_end) * L->oflow_scale, L->oflow_shift);
    const int32_t *T = x < L->le_end ? L->le : L->lo;
    int sh = x < L->le_end ? L->le_shift : L->lo_shift;
    int64_t d = x - (x < L->le_end ? L->le_start : L->lo_start);
    int64_t i = d >> sh, f = d & (((int64_t)1 << sh) - 1);
    if (i >= LUT_N - 1)
        return T[LUT_N - 1];
    return T[i] + rshift_round((int64_t)(T[i + 1] - T[i]) * f, sh);
}

/* A conv weight's native layout: one or more blocks [OC1, IC1, kh, kw, OC2,
 * IC2] of input channels (yolov8n's 48 = 32 + 16: IC1 blocks of 32, then one
 * of 16), interleaved per OC1: for each block of OC2 kernels, each input-channel
 * block's [IC1][kh][kw][OC2][IC2] bytes in turn (docs/rknn-format.md "Weights
 * in several input-channel blocks"). */
#define WB_MAX 4
typedef struct weight_blocks {
    int n, ocp, kh, kw;
    int64_t row;                                /* f3 pixel conv: a kernel row's bytes, else 0 */
    int ib[WB_MAX], icp[WB_MAX], ic0[WB_MAX];   /* first input channel of each block */
    int64_t off[WB_MAX];                        /* its bytes' offset in an OC1 block */
    int64_t block_bytes, bytes;                 /* one OC1 block, the whole tensor */
} weight_blocks;

static int weight_blocks_of(const rknn_tensor *w, int kh, int kw, int in_c, int out_c,
                            weight_blocks *b)
{
    if (!w->native || w->nnd < 6 || w->nnd % 6 || w->nnd / 6 > WB_MAX)
        return -1;
    memset(b, 0, sizeof(*b));
    b->n = w->nnd / 6;
    b->kh = kh;
    b->kw = kw;
    const int64_t *s = w->native;
    b->ocp = (int)s[4];
    int ic = 0;
    for (int k = 0; k < b->n; k++, s += 6) {
        if (s[0] != w->native[0] || s[2] != kh || s[3] != kw || s[4] != b->ocp || s[1] < 1 ||
            s[5] < 1 || s[0] < 1 || s[4] < 1)
            return -1;
        b->ib[k] = (int)s[1];
        b->icp[k] = (int)s[5];
        b->ic0[k] = ic;
        b->off[k] = b->block_bytes;
        ic += b->ib[k] * b->icp[k];
        b->block_bytes += (int64_t)s[1] * kh * kw * s[4] * s[5];
    }
    b->bytes = b->block_bytes * w->native[0];
    /* every channel covered; only the last block's lanes may pad */
    if (ic < in_c || (b->n > 1 && b->ic0[b->n - 1] >= in_c) || w->native[0] * b->ocp < out_c)
        return -1;
    return 0;
}

/* rv1126b's pixel conv (layout f3, docs/rknn-format.md): one block, each
 * kernel row of kw taps x IC2 lanes padded to row bytes (CNA 0x1020 / kh),
 * laid out [kh][OC2][row] per OC1 block */
static int weight_rows_of(weight_blocks *b, int64_t per_kernel)
{
    if (b->n != 1 || per_kernel <= 0 || per_kernel % b->kh)
        return -1;
    int64_t oc1 = b->bytes / b->block_bytes;
    b->row = per_kernel / b->kh;
    if (b->ib[0] != 1 || b->row < (int64_t)b->kw * b->icp[0])
        return -1;
    b->block_bytes = b->kh * b->ocp * b->row;
    b->bytes = b->block_bytes * oc1;
    return 0;
}

/* the byte of kernel oc, input channel ic, tap (ky, kx) */
static int64_t weight_byte(const weight_blocks *b, int oc, int ic, int ky, int kx)
{
    if (b->row)
        return (int64_t)(oc / b->ocp) * b->block_bytes +
               ((int64_t)ky * b->ocp + oc % b->ocp) * b->row + (int64_t)kx * b->icp[0] + ic;
    int k = b->n - 1;
    while (k > 0 && ic < b->ic0[k])
        k--;
    int c = ic - b->ic0[k], i1 = c / b->icp[k], i2 = c % b->icp[k];
    return (int64_t)(oc / b->ocp) * b->block_bytes + b->off[k] +
           ((((int64_t)i1 * b->kh + ky) * b->kw + kx) * b->ocp + oc % b->ocp) * b->icp[k] + i2;
}

static int run_conv(const rknn_model *m, const uint8_t *file, size_t len, int ti,
                    const emu_task *t, const regstate *rs, int grp, int node, int lut,
                    emu_mem *mem, int *rows, char *err, size_t errlen)
{
    const rknn_node *nd = &m->nodes[node];
    const char *nn = node_name(m, node);
    const char *tg = m->target ? m->target : m->fb_target;
    int G = emu_channel_group(tg);
    int xi, wi, bi, ei, rc = 0;
    uint8_t *dcw = NULL; /* decompressed weights (CNA_DCOMP_CTRL) */
    act in, out, ew = {0};
    node_operands(m, nd, &xi, &wi, &bi, &ei);
    if (t->op != EMU_OP_CONV)
        STOP("task %d (node %s): %s tasks are not emulated", ti, nn, emu_op_name(t->op));
    if (nd->n_out != 1 || xi < 0 || wi < 0 || bi < 0)
        STOP("task %d (node %s): the node's input, weight, bias and output tensors are not all found",
             ti, nn);
    if (act_of(&m->tensors[xi], mem, xi, &in) || act_of(&m->tensors[nd->out[0]], mem, nd->out[0], &out))
        STOP("task %d (node %s): input or output tensor not a 4-D NC1HWC2/NHWC activation", ti, nn);
    /* rv1126b's pixel input (layout f3): the image tensor's bytes read as 8-bit
     * pixels u = q - zp, which are bytes only for the zero point -128 (the
     * uint8 image the runtime feeds); x = u - pixel_off[c], pad u = the pad value */
    const rknn_tensor *xt = &m->tensors[xi];
    if (t->pixel_in < 0)
        STOP("task %d (node %s): pixel input (CNA mode code 6) with CNA 0x1028 / 0x1084 words the "
             "sample file does not write: not emulated", ti, nn);
    if (t->pixel_in && (!xt->has_quant || xt->zero_point != -128 || in.c > 4 || in.c2 != in.c))
        STOP("task %d (node %s): pixel input from %s (zero point %lld, %d channels): only an "
             "int8 image of zero point -128 (its bytes the uint8 pixels) and up to 4 packed "
             "channels are emulated", ti, nn, xt->name, (long long)xt->zero_point, in.c);
    if (t->in_prec != 0 || t->proc_prec != 0 || t->out_prec != 0)
        STOP("task %d (node %s): precisions in %s proc %s out %s: only int8 is emulated", ti, nn,
             emu_prec_name(t->in_prec), emu_prec_name(t->proc_prec), emu_prec_name(t->out_prec));
    /* in_c is the aligned count, in_c_real the tensor's; a task computes all
     * output channels or a tile of them (kernels, out_c_orig: the tile's) */
    if (t->in_w != in.w || t->in_c_real != in.c || t->out_w != out.w || t->kernels < 1 ||
        t->out_c_orig != t->kernels || t->kernels > out.c)
        STOP("task %d (node %s): a tile of the width or the input channels (in %dx%d, out %dx%d, "
             "%d kernels; tensors %dx%d, %dx%d) is not emulated", ti, nn, t->in_w, t->in_c_real,
             t->out_w, t->out_c_orig, t->kernels, in.w, in.c, out.w, out.c);
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
    uint32_t bs_cfg = reg_or0(rs, grp, 0x4040);
    uint32_t ew_cfg = reg_or0(rs, grp, 0x4070);
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
    /* a LUT task (yolov8n's ConvExSwish, ConvSigmoid) scales in BN first, then
     * interpolates the file's two tables (docs/rknn-format.md) */
    lut_stage L;
    if (t->lut_used) {
        uint32_t bn_cfg = reg_or0(rs, grp, 0x4060);
        if (ew_cfg != 0x302 || bn_cfg != 0x48 || !t->bn.present || t->bn.bypass ||
            (!t->bn.alu_bypass && (t->bn.alu_src || t->bn.alu_operand)) || t->bn.mul_bypass ||
            t->bn.mul_src || t->bn.mul_prelu || !t->bn.relu_bypass || t->bn.mul_shift < 0 ||
            t->bn.mul_shift > 31)
            STOP("task %d (node %s %s): LUT activation with EW_CFG 0x%x, BN_CFG 0x%x: only a BN "
                 "register multiplier before the LUT (0x48, EW 0x302) is emulated", ti, nd->type,
                 nn, ew_cfg, bn_cfg);
        if (lut_load(m, file, len, lut, rs, grp, &L))
            STOP("task %d (node %s %s): LUT activation: its table (tensor %d) or LUT registers "
                 "are not the form emulated (two 513-entry tables, LUT_CFG 0x68)", ti, nd->type,
                 nn, lut);
    } else if (t->bn.present && !t->bn.bypass) {
        STOP("task %d (node %s): BN stage in use (ReLU/PReLU/second operand): not emulated", ti, nn);
    }
    int use_ew = t->ew_present && !t->ew_bypass && !t->lut_used;
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
    /* DPU_DATA_FORMAT bits 4..9 / 10..15: the BS / BN multipliers' shifts for a
     * negative product (BS/BN_MUL_SHIFT_VALUE_NEG in the public register
     * descriptions); taken only where they equal the shifts for a positive one */
    uint32_t fmt = reg_or0(rs, grp, 0x4010);
    if (!table && ((int)(fmt >> 4 & 0x3f) != t->bs.mul_shift || (fmt >> 16 & 0x3ff) || (fmt & 0xf) ||
                   (t->lut_used && (int)(fmt >> 10 & 0x3f) != t->bn.mul_shift) ||
                   (!t->lut_used && (fmt >> 10 & 0x3f))))
        STOP("task %d (node %s): DPU_DATA_FORMAT 0x%x: negative-product shifts %d (BS) and %d (BN) "
             "other than the positive ones (%d, %d), or EW truncation / surface bits set: not "
             "emulated", ti, nn, fmt, (int)(fmt >> 4 & 0x3f), (int)(fmt >> 10 & 0x3f),
             t->bs.mul_shift, t->lut_used ? t->bn.mul_shift : 0);
    if (t->out_cvt_shift < 0 || t->out_cvt_shift > 40 || t->bs.mul_shift < 0 || t->bs.mul_shift > 31)
        STOP("task %d (node %s): shifts out of range (out %d, bs %d)", ti, nn, t->out_cvt_shift,
             t->bs.mul_shift);
    if (G <= 0)
        STOP("task %d (node %s): the chip's per-channel group size is unknown", ti, nn);
    /* tiles: rows from the offsets into the tensors; an output-channel tile
     * starts at a whole C2 surface of the destination */
    int64_t in_row = (int64_t)in.w * in.c2, out_row = (int64_t)out.w * out.c2;
    int64_t out_surf = out_row * out.h;
    if (t->feature_addr < 0 || t->dst_addr < 0 || t->feature_addr % in_row ||
        (t->dst_addr % out_surf) % out_row)
        STOP("task %d (node %s): feature 0x%llx / destination 0x%llx are not row offsets into the "
             "node's tensors", ti, nn, (long long)t->feature_addr, (long long)t->dst_addr);
    int y0i = (int)(t->feature_addr / in_row), y0o = (int)(t->dst_addr % out_surf / out_row);
    int oc0 = (int)(t->dst_addr / out_surf) * out.c2, noc = t->kernels;
    if (y0i + t->in_h > in.h || y0o + t->out_h > out.h || oc0 + noc > out.c)
        STOP("task %d (node %s): tile rows %d+%d or channels %d+%d beyond the tensor", ti, nn, y0o,
             t->out_h, oc0, noc);
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
    int kh = t->kh, kw = t->kw;
    weight_blocks wb;
    if (kh < 1 || kw < 1 || t->stride_x < 1 || t->stride_y < 1 || t->pad_top < 0 || t->pad_left < 0 ||
        weight_blocks_of(wt, kh, kw, in.c, out.c, &wb) ||
        (t->pixel_in && weight_rows_of(&wb, t->weight_bytes_per_kernel)))
        STOP("task %d (node %s): weight %s: native shape of %d values does not fit the task's "
             "kernel %dx%d, %d to %d channels (blocks [OC1, IC1, kh, kw, OC2, IC2], one OC1 and "
             "OC2 for all)", ti, nn, wt->name, wt->nnd, kh, kw, in.c, out.c);
    /* the CNA's weight decompressor (CNA_DCOMP_CTRL, "weight decompress
     * control" in the RK3588 TRM's register list; Mesa rocket writes 0):
     * toolkit 1.3.4's rk3588 files turn it on and store the compressed
     * stream (emu_dcomp.c); it is decoded into the native bytes first */
    if (!table && reg_or0(rs, grp, 0x1100)) {
        uint32_t am[16];
        char why[200], al[160] = "";
        for (int k = 0; k < 16; k++) {
            am[k] = reg_or0(rs, grp, (uint32_t)(0x1140 + 4 * k));
            size_t n = strlen(al);
            snprintf(al + n, sizeof al - n, "%s%u", k ? " " : "", am[k]);
        }
        if (reg_or0(rs, grp, 0x1100) != 1 || reg_or0(rs, grp, 0x1104) != 0x55555555u ||
            wb.n != 1 || wb.ib[0] != 1 || wb.ocp != 8 || wb.icp[0] != 16 || wb.row ||
            wb.bytes != (int64_t)kh * kw * 128)
            STOP("task %d (node %s): CNA weight decompression (CNA_DCOMP_CTRL 0x%x, DCOMP_REGNUM "
                 "0x%x, DCOMP_AMOUNT0..15 %s) for weight %s of %lld native bytes: only control 1, "
                 "REGNUM 0x55555555 and one [1, 1, kh, kw, 8, 16] block are decoded: not emulated",
                 ti, nn, reg_or0(rs, grp, 0x1100), reg_or0(rs, grp, 0x1104), al, wt->name,
                 (long long)wb.bytes);
        if (wt->data_off < 0 || wt->data_len < 0 ||
            (uint64_t)wt->data_off + (uint64_t)wt->data_len > len)
            STOP("task %d (node %s): compressed weight %s outside the file", ti, nn, wt->name);
        dcw = malloc((size_t)wb.bytes);
        if (!dcw)
            STOP("task %d (node %s): out of memory", ti, nn);
        if (emu_dcomp_decode(file + wt->data_off, (size_t)wt->data_len, am, kh * kw, in.c, dcw,
                             (size_t)wb.bytes, why, sizeof why))
            STOP("task %d (node %s): CNA weight decompression (DCOMP_AMOUNT0..15 %s), weight %s "
                 "(%lld bytes): %s: not emulated", ti, nn, al, wt->name, (long long)wt->data_len,
                 why);
    }
    int64_t groups = (noc + G - 1) / G;
    /* more bytes than the native shape has, without the decompressor: another
     * layout (rk3588 toolkit 1.3.4's compressed buffers are decoded above) */
    /* rv1126b's pixel conv: 1536 bytes for its 768 (the rest zero, not read) */
    if (t->pixel_in && wt->data_len > wb.bytes && wt->data_off >= 0 &&
        (uint64_t)wt->data_off + (uint64_t)wt->data_len <= len) {
        for (int64_t k = wb.bytes; k < wt->data_len; k++)
            if (file[wt->data_off + k])
                STOP("task %d (node %s): weight tensor %s: byte %lld beyond the %lld bytes the "
                     "pixel conv's rows hold is not zero: not emulated", ti, nn, wt->name,
                     (long long)k, (long long)wb.bytes);
    } else if (!dcw && wt->data_len > wb.bytes)
        STOP("task %d (node %s): weight tensor %s holds %lld bytes for its %lld-byte native "
             "layout (another layout, not decoded): not emulated", ti, nn, wt->name,
             (long long)wt->data_len, (long long)wb.bytes);
    /* an output-channel tile's weights start at its OC1 block, its per-channel
     * words at its group: both addresses must say the channel the destination says */
    if (oc0 % wb.ocp || oc0 % G || t->weight_addr != (int64_t)(oc0 / wb.ocp) * wb.block_bytes ||
        t->bs_addr != (int64_t)oc0 * 8)
        STOP("task %d (node %s): output-channel tile at channel %d: weight address 0x%llx, "
             "per-channel words at 0x%llx do not start at its block (0x%llx, 0x%llx)", ti, nn, oc0,
             (long long)t->weight_addr, (long long)t->bs_addr,
             (long long)(oc0 / wb.ocp) * wb.block_bytes, (long long)oc0 * 8);
    /* CNA_WEIGHT_SIZE0 / SIZE1: the tile's bytes and one kernel's, as the blocks say */
    int64_t per_kernel = wb.block_bytes / wb.ocp;
    if ((t->weight_bytes >= 0 && t->weight_bytes != per_kernel * noc) ||
        (t->weight_bytes_per_kernel >= 0 && t->weight_bytes_per_kernel != per_kernel))
        STOP("task %d (node %s): CNA weight sizes %lld (%lld a kernel) are not the %d kernels of "
             "%lld bytes the weight's blocks hold", ti, nn, (long long)t->weight_bytes,
             (long long)t->weight_bytes_per_kernel, noc, (long long)per_kernel);
    if ((!dcw && (wt->data_len < wb.bytes || (uint64_t)wt->data_off + (uint64_t)wb.bytes > len)) ||
        bt->data_len < t->bs_addr + groups * G * 8 ||
        (uint64_t)bt->data_off + (uint64_t)bt->data_len > len)
        STOP("task %d (node %s): weight or per-channel data outside its tensor", ti, nn);
    const int8_t *W = dcw ? (const int8_t *)dcw : (const int8_t *)file + wt->data_off;
    const uint8_t *B = file + bt->data_off + t->bs_addr;
    int sx = t->stride_x, sy = t->stride_y, dx = t->dil_x > 0 ? t->dil_x : 1,
        dy = t->dil_y > 0 ? t->dil_y : 1;
    /* every product fits 16 x 9 bits; an int32 sum of up to 65000 of them cannot overflow */
    int64_t taps = (int64_t)kh * kw * in.c;
    if (taps > 65000)
        STOP("task %d (node %s): %lld taps per output: not emulated", ti, nn, (long long)taps);
    /* the tile's input rows gathered as [row][column][channel] int16 with the
     * pad value around them, and each kernel's effective weights w - zp_w in the
     * same tap order, so that each output is one contiguous dot product */
    int ph = (t->out_h - 1) * sy + (kh - 1) * dy + 1, pw = (t->out_w - 1) * sx + (kw - 1) * dx + 1;
    int16_t *X = malloc(sizeof(int16_t) * (size_t)ph * pw * in.c);
    int16_t *Wk = malloc(sizeof(int16_t) * (size_t)noc * taps);
    int32_t *col = malloc(sizeof(int32_t) * (size_t)taps);
    if (!X || !Wk || !col) {
        free(X); free(Wk); free(col);
        STOP("task %d (node %s): out of memory", ti, nn);
    }
    int8_t padv = sat8(pad_value);
    for (int py = 0; py < ph; py++)
        for (int px = 0; px < pw; px++) {
            int iy = py - t->pad_top, ix = px - t->pad_left;
            int inside = iy >= 0 && iy < t->in_h && ix >= 0 && ix < t->in_w;
            int16_t *xp = X + ((int64_t)py * pw + px) * in.c;
            for (int ic = 0; ic < in.c; ic++)
                if (t->pixel_in)
                    xp[ic] = (int16_t)((inside ? in.p[act_off(&in, ic, y0i + iy, ix)] + 128 : pad_value) -
                                       t->pixel_off[ic]);
                else
                    xp[ic] = inside ? in.p[act_off(&in, ic, y0i + iy, ix)] : padv;
        }
    for (int o = 0; o < noc; o++) {
        int nzp = rd_i16(B + (int64_t)(o / G) * G * 8 + 4 * G + 2 * (o % G));
        for (int ky = 0; ky < kh; ky++)
            for (int kx = 0; kx < kw; kx++)
                for (int ic = 0; ic < in.c; ic++)
                    Wk[(int64_t)o * taps + ((int64_t)ky * kw + kx) * in.c + ic] =
                        (int16_t)(W[weight_byte(&wb, oc0 + o, ic, ky, kx)] + nzp);
    }
    for (int oy = 0; oy < t->out_h; oy++)
        for (int ox = 0; ox < t->out_w; ox++) {
            /* the taps of this output, in the weights' order */
            for (int ky = 0; ky < kh; ky++)
                for (int kx = 0; kx < kw; kx++) {
                    const int16_t *xp = X + ((int64_t)(oy * sy + ky * dy) * pw + ox * sx + kx * dx) * in.c;
                    int32_t *cp = col + ((int64_t)ky * kw + kx) * in.c;
                    for (int ic = 0; ic < in.c; ic++)
                        cp[ic] = xp[ic];
                }
            for (int o = 0; o < noc; o++) {
                const uint8_t *g = B + (int64_t)(o / G) * G * 8;
                int j = o % G, oc = oc0 + o;
                int mul = rd_i16(g + 6 * G + 2 * j);
                const int16_t *wk = Wk + (int64_t)o * taps;
                int32_t dot = 0;
                for (int64_t k = 0; k < taps; k++)
                    dot += col[k] * wk[k];
                int64_t acc = (int64_t)rd_i32(g + 4 * j) + dot;
                if (acc < INT32_MIN || acc > INT32_MAX) {
                    free(X); free(Wk); free(col);
                    STOP("task %d (node %s): accumulator %lld overflows int32 (channel %d, row %d, "
                         "column %d)", ti, nn, (long long)acc, oc, oy, ox);
                }
                int64_t v = rshift_round(acc * mul, t->bs.mul_shift);
                int64_t pos = act_off(&out, oc, y0o + oy, ox);
                if (use_ew) {
                    int64_t e = ew.p[act_off(&ew, oc, y0o + oy, ox)];
                    v += rshift_round((e + (int32_t)ew_cvt_off) * (int64_t)(ew_cvt & 0xffff),
                                      (int)(ew_cvt >> 16 & 0x3f));
                }
                if (t->lut_used) /* BN: a register multiplier, then the LUT */
                    v = lut_eval(&L, rshift_round(v * t->bn.mul_operand, t->bn.mul_shift));
                int64_t y = rshift_round(v * t->out_cvt_scale, t->out_cvt_shift) + t->out_cvt_offset;
                out.p[pos] = sat8(y);
            }
        }
    free(X);
    free(Wk);
    free(col);
    mem->written[nd->out[0]] = 1;
out:
    free(dcw);
    return rc;
}

/* A DPU-only task of a Split or Concat node (yolov8n): one whole channel slice
 * copied between the node's input and output tensors, requantized on the way:
 * y = sat8(round((x + BS ALU operand) * OUT_CVT_SCALE / 2^OUT_CVT_SHIFT) + OUT_CVT_OFFSET).
 * Addresses are offsets into the tensors: the source's (Split) or the
 * destination's (Concat) offset picks the slice, whole C2 surfaces. Only the
 * register words yolov8n's copies write are taken; anything else stops. */
static int run_copy(const rknn_model *m, int ti, const emu_task *t, const regstate *rs, int grp,
                    int node, emu_mem *mem, int *rows, char *err, size_t errlen)
{
    const rknn_node *nd = &m->nodes[node];
    const char *nn = node_name(m, node);
    int split = !strcmp(nd->type, "Split"), rc = 0;
    act src, dst;
#define R(a) reg_or0(rs, grp, (a))
    if (R(0x400c) != 0x109 || R(0x4010) != 0 || R(0x5044) != 0x4001 || R(0x4070) != 0x383 ||
        R(0x4060) != 0x53 || (R(0x4040) != 0x53 && R(0x4040) != 0x58) || t->ew_present < 0 ||
        t->rdma_src_addr < 0 || t->dst_addr < 0 || t->out_cvt_shift < 0 || t->out_cvt_shift > 40)
        STOP("task %d (node %s): DPU-only task (FEATURE_MODE 0x%x, DATA_FORMAT 0x%x, RDMA mode "
             "0x%x, EW 0x%x, BN 0x%x, BS 0x%x): not a channel-slice copy as emulated", ti, nn,
             R(0x400c), R(0x4010), R(0x5044), R(0x4070), R(0x4060), R(0x4040));
    int64_t add = R(0x4040) == 0x58 ? (int32_t)R(0x4044) : 0;
#undef R
    /* the one tensor on the node's other side: the slice's start channel says which */
    int one = split ? nd->in[0] : nd->out[0], many_n = split ? nd->n_out : nd->n_in;
    const int *many = split ? nd->out : nd->in;
    if (act_of(&m->tensors[one], mem, one, split ? &src : &dst))
        STOP("task %d (node %s): %s is not a 4-D activation", ti, nn, m->tensors[one].name);
    act *big = split ? &src : &dst;
    int64_t surf = (int64_t)big->h * big->w * big->c2, off = split ? t->rdma_src_addr : t->dst_addr;
    if ((split ? t->dst_addr : t->rdma_src_addr) != 0 || surf <= 0 || off % surf)
        STOP("task %d (node %s): source 0x%llx, destination 0x%llx: not whole surfaces", ti, nn,
             (long long)t->rdma_src_addr, (long long)t->dst_addr);
    int c0 = (int)(off / surf) * big->c2, start = 0, pick = -1;
    for (int k = 0; k < many_n && pick < 0; k++) {
        const rknn_tensor *x = &m->tensors[many[k]];
        int ch = x->nd == 4 ? (int)x->shape[1] : -1;
        if (start == c0 && ch == t->out_c)
            pick = many[k];
        start += ch;
    }
    act *small = split ? &dst : &src;
    if (pick < 0 || act_of(&m->tensors[pick], mem, pick, small) || small->h != big->h ||
        small->w != big->w || t->out_w != big->w || t->out_h != big->h)
        STOP("task %d (node %s): no %s of %d channels at channel %d (cube %dx%dx%d)", ti, nn,
             split ? "output" : "input", t->out_c, c0, t->out_w, t->out_h, t->out_c);
    if (!mem->written[split ? one : pick])
        STOP("task %d (node %s): its source was not computed", ti, nn);
    for (int c = 0; c < t->out_c; c++)
        for (int y = 0; y < big->h; y++)
            for (int x = 0; x < big->w; x++) {
                int64_t v = split ? src.p[act_off(&src, c0 + c, y, x)] : src.p[act_off(&src, c, y, x)];
                v = rshift_round((v + add) * t->out_cvt_scale, t->out_cvt_shift) + t->out_cvt_offset;
                if (split)
                    dst.p[act_off(&dst, c, y, x)] = sat8(v);
                else
                    dst.p[act_off(&dst, c0 + c, y, x)] = sat8(v);
            }
    mem->written[split ? pick : one] = 1;
    rows[0] = 0;
    rows[1] = big->h;
    mem->copy_out = split ? pick : one;
out:
    return rc;
}

/* A DPU-only task of an Add node (yolov8n): its first input through the BS
 * stage, the second as the EW operand, both whole tensors of the output's shape:
 *   v = round((a + BS_ALU) * BS_MUL / 2^s) + round((b + EW_CVT_OFFSET) * scale / 2^t)
 *   y = sat8(round(v * OUT_CVT_SCALE / 2^OUT_CVT_SHIFT) + OUT_CVT_OFFSET)
 * (BS_MUL_CFG: operand bits 16..31, shift bits 8..13; EW_CVT_SCALE as ConvAdd's).
 * Only the register words yolov8n's Adds write are taken; anything else stops. */
static int run_add(const rknn_model *m, int ti, const emu_task *t, const regstate *rs, int grp,
                   int node, emu_mem *mem, int *rows, char *err, size_t errlen)
{
    const rknn_node *nd = &m->nodes[node];
    const char *nn = node_name(m, node);
    int rc = 0;
    act a, b, o;
#define R(x) reg_or0(rs, grp, (x))
    uint32_t mul = R(0x4048), ewc = R(0x4078);
    if (R(0x400c) != 0x109 || R(0x4010) != (mul >> 8 & 0x3f) << 4 || R(0x5044) != 0x4001 ||
        R(0x4070) != 0x900002d0 ||
        R(0x4060) != 0x53 || R(0x4040) != 0x48 || (mul & 0xc0ff) || R(0x5034) != 0x40000000 ||
        (ewc >> 22) || t->rdma_src_addr != 0 || t->dst_addr != 0 || t->ew_addr != 0 ||
        t->out_cvt_shift < 0 || t->out_cvt_shift > 40)
        STOP("task %d (node %s): DPU-only task (DATA_FORMAT 0x%x, EW 0x%x, BS 0x%x, BS_MUL 0x%x, "
             "ERDMA 0x%x, addresses 0x%llx 0x%llx 0x%llx): not a whole-tensor add as emulated",
             ti, nn, R(0x4010), R(0x4070), R(0x4040), mul, R(0x5034),
             (long long)t->rdma_src_addr, (long long)t->ew_addr, (long long)t->dst_addr);
    int64_t alu = (int32_t)R(0x4044), ewoff = (int32_t)R(0x4074);
#undef R
    if (nd->n_in != 2 || nd->n_out != 1 || act_of(&m->tensors[nd->in[0]], mem, nd->in[0], &a) ||
        act_of(&m->tensors[nd->in[1]], mem, nd->in[1], &b) ||
        act_of(&m->tensors[nd->out[0]], mem, nd->out[0], &o) || a.c != o.c || b.c != o.c ||
        a.h != o.h || b.h != o.h || a.w != o.w || b.w != o.w || t->out_c != o.c ||
        t->out_h != o.h || t->out_w != o.w)
        STOP("task %d (node %s): not two inputs of the output's shape (cube %dx%dx%d)", ti, nn,
             t->out_w, t->out_h, t->out_c);
    if (!mem->written[nd->in[0]] || !mem->written[nd->in[1]])
        STOP("task %d (node %s): an input was not computed", ti, nn);
    int ms = (int)(mul >> 8 & 0x3f), es = (int)(ewc >> 16 & 0x3f);
    int64_t mo = (int16_t)(mul >> 16), es_mul = ewc & 0xffff;
    for (int c = 0; c < o.c; c++)
        for (int y = 0; y < o.h; y++)
            for (int x = 0; x < o.w; x++) {
                int64_t v = rshift_round((a.p[act_off(&a, c, y, x)] + alu) * mo, ms) +
                            rshift_round((b.p[act_off(&b, c, y, x)] + ewoff) * es_mul, es);
                o.p[act_off(&o, c, y, x)] =
                    sat8(rshift_round(v * t->out_cvt_scale, t->out_cvt_shift) + t->out_cvt_offset);
            }
    mem->written[nd->out[0]] = 1;
    rows[0] = 0;
    rows[1] = o.h;
out:
    return rc;
}

/* A PPU task of a MaxPool node (yolov8n's SPPF: 5 x 5, stride 1, pad 2, each
 * node as two column tiles of 10 outputs): the window's largest input byte,
 * the pad value outside the tile's columns and the tensor's rows. Source and
 * destination are offsets into the node's input and output tensors (rows and
 * columns in whole C2 pixels); the destination's row is the tile's width plus
 * OPERATION_MODE_CFG's notch (pixels to the end of the line) in C2 bytes. The
 * input and output must share their quantization (max pooling does not
 * requantize). Only the register words yolov8n's MaxPools write are taken. */
static int run_pool(const rknn_model *m, int ti, const emu_task *t, const regstate *rs, int grp,
                    int node, emu_mem *mem, int *rows, char *err, size_t errlen)
{
    const rknn_node *nd = &m->nodes[node];
    const char *nn = node_name(m, node);
    int rc = 0;
    act in, out;
#define R(a) reg_or0(rs, grp, (a))
    uint32_t mode = R(0x6024), pad1 = R(0x6044);
    int notch = (int)(mode >> 16 & 0x1fff);
    if (strcmp(nd->type, "MaxPool") || nd->n_in != 1 || nd->n_out != 1 ||
        act_of(&m->tensors[nd->in[0]], mem, nd->in[0], &in) ||
        act_of(&m->tensors[nd->out[0]], mem, nd->out[0], &out) || in.c2 != out.c2)
        STOP("task %d (node %s): a PPU task whose node is not a MaxPool of one 4-D activation", ti, nn);
    /* method 1 (max), flying mode 1 (PPU_RDMA source), no index output; the pad
     * value -128 in all four words, PPU_RDMA 0x7018 = 1 (unnamed), int8 */
    if ((mode & 0xe000ffffu) != 0x11 || t->pool_method != 1 || pad1 != 0x7ff80 ||
        R(0x6048) != pad1 || R(0x604c) != pad1 || R(0x6050) != pad1 || R(0x7018) != 1 ||
        R(0x7030) != 0 || (R(0x6084) & 0xf) || R(0x60dc) != 3 || R(0x6038) || R(0x603c))
        STOP("task %d (node %s): PPU task (OPERATION_MODE 0x%x, pad value 0x%x, DATA_FORMAT 0x%x, "
             "MISC 0x%x, PPU_RDMA 0x7018 0x%x / DATA_FORMAT 0x%x): not a max pooling as emulated",
             ti, nn, mode, pad1, R(0x6084), R(0x60dc), R(0x7018), R(0x7030));
    int64_t line = (int64_t)in.w * in.c2, surf = line * in.h;
    int64_t oline = (int64_t)out.w * out.c2, osurf = oline * out.h;
    if (R(0x7024) != line || R(0x7028) != surf || R(0x607c) != osurf || R(0x6084) != osurf ||
        (t->pool_out_w + notch) * (int64_t)out.c2 != oline)
        STOP("task %d (node %s): strides (source line %u surface %u, destination surface %u, "
             "notch %d) are not the tensors' (%lld, %lld, %lld)", ti, nn, R(0x7024), R(0x7028),
             R(0x607c), notch, (long long)line, (long long)surf, (long long)osurf);
#undef R
    const rknn_tensor *ti_ = &m->tensors[nd->in[0]], *to = &m->tensors[nd->out[0]];
    if (!ti_->has_quant || !to->has_quant || ti_->scale != to->scale ||
        ti_->zero_point != to->zero_point)
        STOP("task %d (node %s): input and output quantization differ: a requantizing pool is "
             "not emulated", ti, nn);
    int64_t src = t->pool_src_addr, dst = t->pool_dst_addr;
    int x0 = (int)(src % line / in.c2), y0 = (int)(src / line);
    int ox0 = (int)(dst % oline / out.c2), oy0 = (int)(dst / oline);
    int kw = t->pool_kw, kh = t->pool_kh, sx = t->pool_sx, sy = t->pool_sy;
    int pt = t->pool_pad[0], pb = t->pool_pad[1], pl = t->pool_pad[2], pr = t->pool_pad[3];
    if (kw < 1 || kh < 1 || sx < 1 || sy < 1 || pt < 0 || pb < 0 || pl < 0 || pr < 0 ||
        in.c != out.c || src < 0 || dst < 0 || src % in.c2 || dst % out.c2 || src >= surf ||
        dst >= osurf ||
        t->pool_in_c != in.c || t->pool_out_c != out.c || x0 + t->pool_in_w > in.w ||
        y0 + t->pool_in_h > in.h || ox0 + t->pool_out_w > out.w || oy0 + t->pool_out_h > out.h ||
        (t->pool_in_w + pl + pr - kw) / sx + 1 != t->pool_out_w ||
        (t->pool_in_h + pt + pb - kh) / sy + 1 != t->pool_out_h)
        STOP("task %d (node %s): pooling tile (source 0x%llx %dx%dx%d, destination 0x%llx "
             "%dx%dx%d, kernel %dx%d, pads %d %d %d %d) does not fit the tensors", ti, nn,
             (long long)src, t->pool_in_w, t->pool_in_h, t->pool_in_c, (long long)dst,
             t->pool_out_w, t->pool_out_h, t->pool_out_c, kw, kh, pt, pb, pl, pr);
    if (!mem->written[nd->in[0]])
        STOP("task %d (node %s): its input was not computed", ti, nn);
    int padv = (int16_t)(pad1 & 0xffff);
    for (int c = 0; c < out.c; c++)
        for (int oy = 0; oy < t->pool_out_h; oy++)
            for (int ox = 0; ox < t->pool_out_w; ox++) {
                int best = INT32_MIN;
                for (int ky = 0; ky < kh; ky++)
                    for (int kx = 0; kx < kw; kx++) {
                        int iy = oy * sy - pt + ky, ix = ox * sx - pl + kx;
                        int v = iy >= 0 && iy < t->pool_in_h && ix >= 0 && ix < t->pool_in_w
                                    ? in.p[act_off(&in, c, y0 + iy, x0 + ix)]
                                    : padv;
                        best = v > best ? v : best;
                    }
                out.p[act_off(&out, c, oy0 + oy, ox0 + ox)] = sat8(best);
            }
    mem->written[nd->out[0]] = 1;
    rows[0] = oy0;
    rows[1] = oy0 + t->pool_out_h;
out:
    return rc;
}

/* A DPU-only task of a Resize node (yolov8n's nearest 2x upsamples, one task
 * per C2 surface): the DPU_RDMA reads one input surface (cube W x H x 4 at
 * input precision int16: each 8-byte pixel as 4 int16), unpools it 2x (SRC_DMA_CFG
 * 0x1249, as on RV110x), the DPU writes W' = 2W columns per row with
 * DST_SURF_STRIDE one output row and SURFACE_ADD one output surface, each
 * source row twice. The bytes pass unchanged (every stage bypassed, OUT_CVT
 * scale 1, shift 0, offset 0): out[c][y][x] = in[c][y / 2][x / 2]. The source
 * and destination offsets pick the same surface of the node's input and
 * output. Only the register words yolov8n's Resizes write are taken. */
static int run_resize(const rknn_model *m, int ti, const emu_task *t, const regstate *rs, int grp,
                      int node, emu_mem *mem, int *rows, char *err, size_t errlen)
{
    const rknn_node *nd = &m->nodes[node];
    const char *nn = node_name(m, node);
    int rc = 0;
    act in, out;
#define R(a) reg_or0(rs, grp, (a))
    uint32_t sw = (R(0x500c) & 0x1fff) + 1, sh = (R(0x5010) & 0x1fff) + 1, sc = (R(0x5014) & 0x1fff) + 1;
    uint32_t dw = (R(0x4030) & 0x1fff) + 1, dh = (R(0x4034) & 0x1fff) + 1, dc = (R(0x403c) & 0x1fff) + 1;
    int64_t src = R(0x5018), dst = R(0x4020), dsurf = R(0x4024), sadd = R(0x40c0);
    if (R(0x400c) != 0x109 || R(0x4010) != 0x4000000 || R(0x5044) != 0xc001 || R(0x5048) != 0x1249 ||
        R(0x4040) != 0x53 || R(0x4060) != 0x53 || R(0x4070) != 0x383 || R(0x4080) != 0 ||
        R(0x4084) != 1 || R(0x4088) != 0 || R(0x5034) != 1 || R(0x4038) != dw * 0x10001u ||
        R(0x4050) != 0x126)
        STOP("task %d (node %s): DPU-only task (FEATURE_MODE 0x%x, DATA_FORMAT 0x%x, RDMA mode 0x%x, "
             "DMA 0x%x, BS 0x%x, BN 0x%x, EW 0x%x, OUT_CVT 0x%x/0x%x/%u, notch 0x%x): not a 2x "
             "nearest upsample as emulated", ti, nn, R(0x400c), R(0x4010), R(0x5044), R(0x5048),
             R(0x4040), R(0x4060), R(0x4070), R(0x4084), R(0x4080), R(0x4088), R(0x4038));
#undef R
    if (nd->n_out != 1 || nd->n_in < 1 || act_of(&m->tensors[nd->in[0]], mem, nd->in[0], &in) ||
        act_of(&m->tensors[nd->out[0]], mem, nd->out[0], &out))
        STOP("task %d (node %s): input or output not a 4-D activation", ti, nn);
    const rknn_tensor *a = &m->tensors[nd->in[0]], *b = &m->tensors[nd->out[0]];
    int64_t isurf = (int64_t)in.w * in.h * in.c2, osurf = (int64_t)out.w * out.h * out.c2;
    if (sw != (uint32_t)in.w || sh != (uint32_t)in.h || 2 * sc != (uint32_t)in.c2 ||
        dw != 2 * sw || dh != sh || out.w != 2 * in.w || out.h != 2 * in.h || out.c != in.c ||
        dc != (uint32_t)out.c2 || in.c2 != out.c2 || dsurf != (int64_t)dw * out.c2 ||
        sadd != osurf || src % isurf || dst % osurf || src / isurf != dst / osurf ||
        (src / isurf + 1) * in.c2 > in.c + in.c2 - 1)
        STOP("task %d (node %s): source %ux%ux%u at 0x%llx, destination %ux%ux%u at 0x%llx "
             "(surface stride %lld, add %lld) do not make a 2x upsample of one surface of "
             "%dx%dx%d", ti, nn, sw, sh, sc, (long long)src, dw, dh, dc, (long long)dst,
             (long long)dsurf, (long long)sadd, in.w, in.h, in.c);
    if (!a->has_quant || !b->has_quant || a->scale != b->scale || a->zero_point != b->zero_point)
        STOP("task %d (node %s): input and output quantization differ", ti, nn);
    if (!mem->written[nd->in[0]])
        STOP("task %d (node %s): its input was not computed", ti, nn);
    const int8_t *s = in.p + src;
    int8_t *d = out.p + dst;
    for (int y = 0; y < out.h; y++)
        for (int x = 0; x < out.w; x++)
            memcpy(d + ((int64_t)y * out.w + x) * out.c2, s + ((int64_t)(y / 2) * in.w + x / 2) * in.c2,
                   (size_t)out.c2);
    mem->written[nd->out[0]] = 1;
    rows[0] = 0;
    rows[1] = out.h;
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

/* DIR/task_NNNN_<tensor>.npy (the rows task ti wrote, dequantized) and its
 * DIR/tasks.json entry */
static int index_task(const rknn_model *m, emu_mem *mem, int ti, const emu_task *t, int node,
                      int out_t, const int *rows, const char *dump_dir, json_t *index, char *err,
                      size_t errlen)
{
    const rknn_tensor *ot = &m->tensors[out_t];
    const char *tn = ot->name ? ot->name : "tensor";
    char name[512], path[4096];
    act a;
    snprintf(name, sizeof(name), "task_%04d_%s", ti, tn);
    dump_name(path, sizeof(path), dump_dir, name);
    if (act_of(ot, mem, out_t, &a) == 0 && ot->has_quant) {
        int h = rows[1] - rows[0];
        float *f = malloc(sizeof(float) * (size_t)a.c * (size_t)(h > 0 ? h : 1) * a.w);
        int64_t dims[4] = {1, a.c, h, a.w};
        if (!f)
            return rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
        for (int c = 0; c < a.c; c++)
            for (int y = 0; y < h; y++)
                for (int x = 0; x < a.w; x++)
                    f[((int64_t)c * h + y) * a.w + x] =
                        (float)((a.p[act_off(&a, c, rows[0] + y, x)] - ot->zero_point) * ot->scale);
        int rc = npy_write(path, DT_FLOAT, 4, dims, f, err, errlen);
        free(f);
        if (rc)
            return rc;
    }
    /* names are the file's bytes: json_text keeps an entry whose name is not UTF-8 */
    json_array_append_new(index, json_pack("{s:i, s:o, s:s, s:o, s:[i,i], s:o}", "task", ti, "node",
                                           json_text(node_name(m, node)), "op",
                                           emu_op_name(t->op), "tensor", json_text(tn), "rows",
                                           rows[0], rows[1], "file",
                                           json_text(strrchr(path, '/') + 1)));
    return RT_OK;
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

/* Every tensor a task or the input wrote, dequantized, as DIR/<name>.npy, and
 * DIR/tasks.json (which rows each computed task wrote). */
static int dump_computed(const rknn_model *m, emu_mem *mem, const char *dump_dir, json_t *index,
                         char *err, size_t errlen)
{
    int rc;
    for (int i = 0; i < m->n_tensors; i++) {
        const rknn_tensor *t = &m->tensors[i];
        act a;
        char path[4096];
        if (!mem->written[i] || act_of(t, mem, i, &a) || !t->has_quant)
            continue;
        float *f = dequant(t, &a);
        int64_t dims[4] = {1, a.c, a.h, a.w};
        if (!f)
            return rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
        dump_name(path, sizeof(path), dump_dir, t->name ? t->name : "tensor");
        rc = npy_write(path, DT_FLOAT, 4, dims, f, err, errlen);
        free(f);
        if (rc)
            return rc;
    }
    return emu_write_json(dump_dir, "tasks.json", index, JSON_COMPACT, err, errlen);
}

int emu_fb_exec(const rknn_model *m, const uint8_t *file, size_t len, const emu_program *prog,
                const float *const *inputs, int n_inputs, const char *dump_dir, emu_result *res,
                char *err, size_t errlen)
{
    emu_task *tasks = NULL;
    regstate *rs = NULL;
    emu_mem mem = {0};
    int rc = 0, k = 0, cur = -1; /* cur: the task being run */
    /* DIR/tasks.json: which rows of which tensor each computed task wrote, so that a
     * tensor differing from the source model points at its tasks */
    json_t *index = dump_dir ? json_array() : NULL;

    memset(res, 0, sizeof(*res));
    int unbound = prog->source != EMU_SRC_FB_TASKS && prog->source != EMU_SRC_FB_BLOBS;
    for (int i = 0; !unbound && i < prog->n_tasks; i++)
        unbound = prog->tasks[i].node < 0; /* a model-1 blob no node's task list names */
    if (unbound) {
        rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                    "not emulated: %s: tasks without graph node indices cannot be bound to tensors",
                    emu_source_name(prog->source));
        goto out;
    }
    tasks = calloc((size_t)prog->n_tasks + 1, sizeof(*tasks));
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
    emu_program_decode(prog, tasks);
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
    for (int i = 0; i < prog->n_tasks; i++) {
        const emu_stream *s = &prog->tasks[i];
        const emu_task *t = &tasks[i];
        int g = i & 1;
        cur = i;
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
            if (nd->type && !strcmp(nd->type, "MaxPool")) {
                int prow[2] = {0, 0};
                if ((rc = run_pool(m, i, t, rs, g, s->node, &mem, prow, err, errlen)))
                    goto out;
                res->tasks_run++;
                if (index && (rc = index_task(m, &mem, i, t, s->node, nd->out[0], prow, dump_dir,
                                              index, err, errlen)))
                    goto out;
                continue;
            }
            rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                        "task %d (node %s): pooling (method %d kernel %dx%d stride %dx%d in %dx%dx%d) "
                        "is not emulated", i, node_name(m, s->node), t->pool_method, t->pool_kw,
                        t->pool_kh, t->pool_sx, t->pool_sy, t->pool_in_w, t->pool_in_h, t->pool_in_c);
            goto out;
        }
        if (emu_layout_known(prog->map)) {
            /* the register state the task runs with (its writes and what earlier
             * tasks of its group left): each decoded, left aside or a sample's value */
            for (int r = 0; r < 0x10000 / 4; r++) {
                uint16_t a = (uint16_t)(4 * r);
                if (!rs->set[g][r] || emu_layout_check(prog->map, a, rs->val[g][r]))
                    continue;
                rc = rt_err(err, errlen, RT_EUNSUPPORTED, "task %d (node %s): register 0x%04x = 0x%08x: %s",
                            i, node_name(m, s->node), a, rs->val[g][r],
                            emu_reg_name(prog->map, a) ? "a value the sample files do not write (not decoded)"
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
                if (t->unknown_val[u] != 0 && !ignored_raw(prog->map, t->unknown_addr[u])) {
                    rc = rt_err(err, errlen, RT_EUNSUPPORTED,
                                "task %d (node %s): register 0x%04x = 0x%08x has no known meaning",
                                i, node_name(m, s->node), t->unknown_addr[u], t->unknown_val[u]);
                    goto out;
                }
        }
        int rows[2] = {0, 0}, out_t = nd->n_out ? nd->out[0] : -1;
        if (t->op == EMU_OP_ELTWISE && (!strcmp(nd->type, "Split") || !strcmp(nd->type, "Concat"))) {
            if ((rc = run_copy(m, i, t, rs, g, s->node, &mem, rows, err, errlen)))
                goto out;
            out_t = mem.copy_out;
        } else if (t->op == EMU_OP_ELTWISE && !strcmp(nd->type, "Resize")) {
            if ((rc = run_resize(m, i, t, rs, g, s->node, &mem, rows, err, errlen)))
                goto out;
        } else if (t->op == EMU_OP_ELTWISE && !strcmp(nd->type, "Add")) {
            if ((rc = run_add(m, i, t, rs, g, s->node, &mem, rows, err, errlen)))
                goto out;
        } else if ((rc = run_conv(m, file, len, i, t, rs, g, s->node, s->lut, &mem, rows, err,
                                  errlen))) {
            goto out;
        }
        res->tasks_run++;
        if (index && (rc = index_task(m, &mem, i, t, s->node, out_t, rows, dump_dir, index, err,
                                      errlen)))
            goto out;
    }
    cur = -1;
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
    if (dump_dir && (rc = dump_computed(m, &mem, dump_dir, index, err, errlen)))
        goto out;
out:
    if (rc == RT_EUNSUPPORTED && cur >= 0) {
        /* a task stopped the run: what ran before it is dumped, with the task's registers */
        char msg[1024];
        const emu_stream *s = &prog->tasks[cur];
        snprintf(msg, sizeof msg, "%s", err);
        if (dump_dir) {
            char e2[512];
            int g = cur & 1;
            const char *lut = s->lut >= 0 ? m->tensors[s->lut].name : NULL;
            if (emu_write_stopped(dump_dir, prog->map, rs->val[g], rs->set[g], cur, s->node,
                                  node_name(m, s->node), lut, msg, e2, sizeof e2) ||
                dump_computed(m, &mem, dump_dir, index, e2, sizeof e2))
                rc = rt_err(err, errlen, RT_EIO, "%s", e2);
            else
                rt_err(err, errlen, RT_EUNSUPPORTED, "%s (%d of %d tasks ran; their tensors and "
                       "stopped_task.json are dumped)", msg, cur, prog->n_tasks);
        } else {
            rt_err(err, errlen, RT_EUNSUPPORTED, "%s (%d of %d tasks ran)", msg, cur, prog->n_tasks);
        }
    }
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
    return rc;
}

int emu_exec(const rknn_model *m, const uint8_t *file, size_t len, const float *const *inputs,
             int n_inputs, const char *dump_dir, emu_result *res, char *err, size_t errlen)
{
    emu_program prog = {0};
    const char *why;
    int rc;

    memset(res, 0, sizeof(*res));
    if (!emu_exec_supported(m, &why))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "not emulated: %s", why);
    if ((rc = emu_program_load(m, file, len, &prog, err, errlen)))
        return rc;
    if (prog.source == EMU_SRC_LITE) {
        emu_task *tasks = calloc((size_t)prog.n_tasks + 1, sizeof(*tasks));
        if (!tasks) {
            rc = rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
        } else {
            emu_program_decode(&prog, tasks);
            rc = emu_lite_exec(m, file, len, &prog, tasks, inputs, n_inputs, dump_dir, res, err,
                               errlen);
        }
        free(tasks);
    } else {
        rc = emu_fb_exec(m, file, len, &prog, inputs, n_inputs, dump_dir, res, err, errlen);
    }
    emu_program_free(&prog);
    return rc;
}
