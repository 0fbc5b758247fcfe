/* cli/inspect_tasks.c — `rknn-trace inspect FILE --tasks`: the file's compiled
 * NPU tasks decoded (runtime/emu), each checked against the graph node it
 * belongs to (kernel, stride, channels, output width). Decode only. */
#include "cli/cli.h"
#include "runtime/emu/emu.h"
#include "runtime/model/rknn_file.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the graph says about a conv node. -1: not known. */
typedef struct graph_conv {
    int kw, kh, sx, sy, ic, oc, ow, oh;
} graph_conv;

static int is_conv_node(const rknn_node *n)
{
    return !strncmp(n->type, "Conv", 4) || strstr(n->type, "DepthwiseConv") != NULL;
}

static void node_geometry(const rknn_model *m, const rknn_node *n, graph_conv *g)
{
    const rknn_tensor *in = NULL, *w = NULL, *out = NULL;
    memset(g, 0xff, sizeof *g);
    for (int k = 0; k < n->n_in; k++) {
        const rknn_tensor *t = &m->tensors[n->in[k]];
        if (!in && (t->kind == RKNN_TK_INPUT || t->kind == RKNN_TK_ACT) && t->nd == 4)
            in = t;
        else if (!w && rknn_kind_is_const(t->kind) && t->nd == 4)
            w = t;
    }
    if (n->n_out > 0 && m->tensors[n->out[0]].nd == 4)
        out = &m->tensors[n->out[0]];
    if (n->n_kernel == 2) {
        g->kh = (int)n->kernel[0];
        g->kw = (int)n->kernel[1];
    } else if (w) { /* [OC, IC/groups, kh, kw] */
        g->kh = (int)w->shape[2];
        g->kw = (int)w->shape[3];
    }
    if (in)
        g->ic = (int)in->shape[1];
    if (out) {
        g->oc = (int)out->shape[1];
        g->oh = (int)out->shape[2];
        g->ow = (int)out->shape[3];
    }
    if (n->n_stride == 2) {
        g->sy = (int)n->stride[0];
        g->sx = (int)n->stride[1];
    } else if (in && out && out->shape[3] > 0 && out->shape[2] > 0 &&
               in->shape[3] % out->shape[3] == 0 && in->shape[2] % out->shape[2] == 0) {
        /* no parameters (RV110x graphs): the ratio of the planes */
        g->sx = (int)(in->shape[3] / out->shape[3]);
        g->sy = (int)(in->shape[2] / out->shape[2]);
    }
}

/* Compares a conv task with one conv node: 1 agrees, 0 differs (why in buf). */
static int check_node(const rknn_model *m, int node, const emu_task *t, char *buf, size_t len)
{
    graph_conv g;
    size_t l = 0;
    int bad = 0;
    node_geometry(m, &m->nodes[node], &g);
    buf[0] = 0;
#define CMP(what, a, b)                                                                        \
    do {                                                                                       \
        if ((b) >= 0 && (a) != (b)) {                                                          \
            l += (size_t)snprintf(buf + l, l < len ? len - l : 0, "%s%s task %d graph %d",     \
                                  bad ? ", " : "", what, a, b);                                \
            bad = 1;                                                                           \
        }                                                                                      \
    } while (0)
    CMP("kernel w", t->kw, g.kw);
    CMP("kernel h", t->kh, g.kh);
    CMP("stride x", t->stride_x, g.sx);
    CMP("stride y", t->stride_y, g.sy);
    CMP("in channels", t->in_c_real, g.ic);
    /* fewer output channels: a tile of them (yolov8n's 256 as 4 x 64, 128 as 80 + 48) */
    int oc_tile = t->out_c_orig > 0 && g.oc > t->out_c_orig;
    if (!oc_tile)
        CMP("out channels", t->out_c_orig, g.oc);
    CMP("out width", t->out_w, g.ow);
#undef CMP
    if (!bad && t->out_h > g.oh && g.oh >= 0) {
        snprintf(buf, len, "out height task %d > graph %d", t->out_h, g.oh);
        bad = 1;
    }
    if (!bad && oc_tile)
        snprintf(buf, len, "%d of the node's %d output channels", t->out_c_orig, g.oc);
    return !bad;
}

/* 1 agrees with its node, 0 differs (why in buf), 2 no node index in the file
 * but some conv node has its geometry (node in *match), -1 nothing to check. */
static int check_task(const rknn_model *m, const emu_stream *s, const emu_task *t, char *buf,
                      size_t len, int *match)
{
    *match = -1;
    if (t->op != EMU_OP_CONV && t->op != EMU_OP_DEPTHWISE)
        return -1;
    if (s->node < 0) {
        for (int i = 0; i < m->n_nodes; i++)
            if (is_conv_node(&m->nodes[i]) && check_node(m, i, t, buf, len) == 1) {
                *match = i;
                return 2;
            }
        snprintf(buf, len, "no node index, and no conv node of this geometry");
        return -1;
    }
    if (s->node >= m->n_nodes || !is_conv_node(&m->nodes[s->node])) {
        snprintf(buf, len, "no conv node to check against");
        return -1;
    }
    return check_node(m, s->node, t, buf, len);
}

static void addr(FILE *f, const char *what, int64_t a)
{
    if (a >= 0)
        fprintf(f, " %s 0x%llx", what, (unsigned long long)a);
}

static void stage_text(FILE *f, const char *name, const emu_dpu_stage *s)
{
    if (!s->present)
        return;
    if (s->bypass) {
        fprintf(f, " %s bypass;", name);
        return;
    }
    fprintf(f, " %s", name);
    if (!s->alu_bypass) {
        if (s->alu_src)
            fprintf(f, " alu algo %d per-channel", s->alu_algo);
        else
            fprintf(f, " alu algo %d operand %d", s->alu_algo, s->alu_operand);
    }
    if (!s->mul_bypass) {
        if (s->mul_src)
            fprintf(f, " mul per-channel shift %d", s->mul_shift);
        else
            fprintf(f, " mul %d shift %d", s->mul_operand, s->mul_shift);
        if (s->mul_prelu)
            fprintf(f, " (prelu)");
    }
    fprintf(f, " relu %s;", s->relu_bypass ? "bypass" : s->relux_en ? "relux" : "on");
}

static void task_text(FILE *f, const rknn_model *m, const emu_program *p, int i, const emu_task *t,
                      int chk, int match, const char *why)
{
    int group = emu_channel_group(m->target ? m->target : m->fb_target);
    const emu_stream *s = &p->tasks[i];
    fprintf(f, "task %d  %-9s", i, emu_op_name(t->op));
    if (s->node >= 0)
        fprintf(f, " node %d %s", s->node + 1, m->nodes[s->node].name);
    fprintf(f, "  (%d writes, enable 0x%x)\n", s->n_regs, s->enable_mask);
    if (s->lut >= 0) /* model 1: the table's own register stream uploads it */
        fprintf(f, "  lut     tensor %d %s\n", s->lut, m->tensors[s->lut].name);
    if (t->op == EMU_OP_UNDECODED) {
        fprintf(f, "  not decoded: %s\n  raw    ", t->notes);
        for (int k = 0; k < t->n_unknown && k < EMU_MAX_UNKNOWN; k++)
            fprintf(f, " %04x=%08x", t->unknown_addr[k], t->unknown_val[k]);
        fprintf(f, "%s\n", t->n_unknown > EMU_MAX_UNKNOWN ? " ..." : "");
        return;
    }
    if (t->in_w >= 0) {
        fprintf(f, "  input   %dx%dx%d (%d aligned) %s", t->in_w, t->in_h, t->in_c_real, t->in_c,
                emu_prec_name(t->in_prec));
        addr(f, "at", t->feature_addr);
        if (t->line_stride >= 0)
            fprintf(f, " line %lld surf %lld", (long long)t->line_stride, (long long)t->surf_stride);
        fputc('\n', f);
    }
    if (t->kw >= 0) {
        fprintf(f, "  kernel  %dx%d x%d  stride %dx%d  dilation %dx%d  pad t%d l%d", t->kw, t->kh,
                t->kernels, t->stride_x, t->stride_y, t->dil_x, t->dil_y, t->pad_top, t->pad_left);
        if (t->has_pad_bottom && t->has_pad_right)
            fprintf(f, " b%d r%d", t->pad_bottom, t->pad_right);
        fprintf(f, "  weights %lld B (%lld/kernel)", (long long)t->weight_bytes,
                (long long)t->weight_bytes_per_kernel);
        addr(f, "at", t->weight_addr);
        fprintf(f, "  proc %s\n", emu_prec_name(t->proc_prec));
    }
    if (t->pool_method >= 0)
        fprintf(f, "  pool    method %d kernel %dx%d stride %dx%d  in %dx%dx%d out %dx%dx%d\n",
                t->pool_method, t->pool_kw, t->pool_kh, t->pool_sx, t->pool_sy, t->pool_in_w,
                t->pool_in_h, t->pool_in_c, t->pool_out_w, t->pool_out_h, t->pool_out_c);
    if (t->out_w >= 0) {
        fprintf(f, "  output  %dx%dx%d (%d) %s", t->out_w, t->out_h, t->out_c_orig, t->out_c,
                emu_prec_name(t->out_prec));
        addr(f, "at", t->dst_addr);
        fputc('\n', f);
    }
    if (t->bs.present || t->bn.present || t->ew_present || t->out_cvt_scale >= 0) {
        fprintf(f, "  post   ");
        stage_text(f, "bs", &t->bs);
        stage_text(f, "bn", &t->bn);
        if (t->ew_present)
            fprintf(f, " ew %s%s;", t->ew_bypass ? "bypass" : "on", t->lut_used ? " lut" : "");
        if (t->out_cvt_scale >= 0)
            fprintf(f, " out cvt offset %lld scale %d shift %d", (long long)t->out_cvt_offset,
                    t->out_cvt_scale, t->out_cvt_shift);
        fputc('\n', f);
    }
    if (t->brdma_use > 0 || t->nrdma_use > 0 || t->erdma_disable == 0) {
        fprintf(f, "  per-channel data:");
        if (t->brdma_use > 0) {
            fprintf(f, " bs (use 0x%x) at 0x%llx", t->brdma_use, (unsigned long long)t->bs_addr);
            if (p->file_base >= 0 && t->bs_addr >= 0 && t->bs_addr < p->file_limit)
                fprintf(f, " (file offset %lld)", (long long)(p->file_base + t->bs_addr));
            if (group > 0 && t->bs.present && !t->bs.bypass && t->bs.mul_src)
                fprintf(f, ": per %d channels %d int32 bias, %d int16 -zp_w, %d int16 "
                           "multipliers (BS shift %d)",
                        group, group, group, group, t->bs.mul_shift);
        }
        if (t->nrdma_use > 0)
            fprintf(f, " bn (use 0x%x) at 0x%llx", t->nrdma_use, (unsigned long long)t->bn_addr);
        if (t->erdma_disable == 0)
            fprintf(f, " ew operand at 0x%llx", (unsigned long long)t->ew_addr);
        fputc('\n', f);
    }
    /* model 6: the buffers the runtime's address patches put into its registers */
    int np = 0;
    for (int r = 0; s->entry0 >= 0 && r < s->n_regs; r++) {
        uint32_t off = 0;
        int ti = rknn_reloc_at(m, s->entry0 + r, &off);
        if (ti < 0)
            continue;
        fprintf(f, "%s 0x%04x %s", np++ ? "," : "  buffers", s->regs[r].addr, m->tensors[ti].name);
        if (off)
            fprintf(f, " + 0x%x", off);
    }
    if (np)
        fputc('\n', f);
    if (chk == 2)
        fprintf(f, "  graph   no node index in the file; geometry of node %d %s\n", match + 1,
                m->nodes[match].name);
    else if (chk >= 0)
        fprintf(f, "  graph   %s%s%s%s\n", chk ? "agrees" : "DIFFERS: ", chk && why[0] ? " (" : "",
                why, chk && why[0] ? ")" : "");
    if (t->n_unknown) {
        fprintf(f, "  unknown");
        for (int k = 0; k < t->n_unknown && k < EMU_MAX_UNKNOWN; k++)
            fprintf(f, " %04x=%08x", t->unknown_addr[k], t->unknown_val[k]);
        fputc('\n', f);
    }
    if (t->notes[0])
        fprintf(f, "  notes   %s\n", t->notes);
}

int inspect_tasks_load(const char *path, const rknn_model *m, emu_program *p, char *err,
                       size_t errlen)
{
    void *buf = NULL;
    size_t len = 0;
    int r = rt_read_file(path, &buf, &len, err, errlen);
    if (r)
        return r;
    r = emu_program_load(m, buf, len, p, err, errlen);
    free(buf);
    return r;
}

void inspect_tasks_text(FILE *f, const rknn_model *m, const emu_program *p)
{
    int n_conv = 0, n_ok = 0, n_nonode = 0, n_undec = 0, n_unk = 0, n_geo = 0, match;
    char why[256];
    fprintf(f, "npu tasks: %d (%s), %lld register writes, register map %s; decoded only, not "
               "executed\n",
            p->n_tasks, emu_source_name(p->source), (long long)p->n_regs, emu_map_name(p->map));
    int one = emu_one_core_end(p, m);
    if (one < p->n_tasks)
        fprintf(f, "tilings: tasks 0..%d run on one core (what --emulate runs), %d..%d on two or "
                   "more cores\n", one - 1, one, p->n_tasks - 1);
    emu_task *all = xcalloc(p->n_tasks ? (size_t)p->n_tasks : 1, sizeof *all);
    emu_program_decode(p, all);
    for (int i = 0; i < p->n_tasks; i++) {
        emu_task t = all[i];
        int c = check_task(m, &p->tasks[i], &t, why, sizeof why, &match);
        if (t.op == EMU_OP_CONV || t.op == EMU_OP_DEPTHWISE) {
            n_conv++;
            n_ok += c == 1;
            n_geo += c == 2;
            n_nonode += c < 0 || c == 2;
        }
        n_undec += t.op == EMU_OP_UNDECODED;
        n_unk += t.op == EMU_OP_UNKNOWN;
        task_text(f, m, p, i, &t, c, match, why);
    }
    fprintf(f, "geometry check: %d of %d conv tasks agree with the graph, %d differ, %d without a "
               "conv node (%d of them have the geometry of one); %d tasks of unknown kind, %d not "
               "decoded\n",
            n_ok, n_conv - n_nonode, n_conv - n_nonode - n_ok, n_nonode, n_geo, n_unk, n_undec);
    free(all);
}

static void stage_json(json_writer *w, const char *k, const emu_dpu_stage *s)
{
    json_key(w, k);
    if (!s->present) {
        json_write_null(w);
        return;
    }
    json_obj_open(w);
    json_key(w, "bypass"); json_bool(w, s->bypass);
    json_key(w, "alu_bypass"); json_bool(w, s->alu_bypass);
    json_key(w, "alu_algo"); json_int(w, s->alu_algo);
    json_key(w, "alu_per_channel"); json_bool(w, s->alu_src);
    json_key(w, "alu_operand"); json_int(w, s->alu_operand);
    json_key(w, "mul_bypass"); json_bool(w, s->mul_bypass);
    json_key(w, "mul_per_channel"); json_bool(w, s->mul_src);
    json_key(w, "mul_operand"); json_int(w, s->mul_operand);
    json_key(w, "mul_shift"); json_int(w, s->mul_shift);
    json_key(w, "relu_bypass"); json_bool(w, s->relu_bypass);
    json_key(w, "relux"); json_bool(w, s->relux_en);
    json_obj_close(w);
}

void inspect_tasks_json(json_writer *w, const rknn_model *m, const emu_program *p)
{
    char why[256];
    int n_conv = 0, n_ok = 0, n_nonode = 0, n_geo = 0, match;
    json_key(w, "npu_tasks");
    json_obj_open(w);
    json_key(w, "source"); json_str(w, emu_source_name(p->source));
    json_key(w, "register_map"); json_str(w, emu_map_name(p->map));
    json_key(w, "register_writes"); json_int(w, p->n_regs);
    json_key(w, "executed"); json_bool(w, 0);
    /* the tasks --emulate runs: the one-core tiling, tasks 0 up to this */
    json_key(w, "one_core_tasks");
    json_int(w, emu_one_core_end(p, m));
    json_key_int(w, "channel_group", emu_channel_group(m->target ? m->target : m->fb_target), -1);
    json_key(w, "tasks");
    json_arr_open(w);
    emu_task *all = xcalloc(p->n_tasks ? (size_t)p->n_tasks : 1, sizeof *all);
    emu_program_decode(p, all);
    for (int i = 0; i < p->n_tasks; i++) {
        const emu_stream *s = &p->tasks[i];
        emu_task t = all[i];
        int c = check_task(m, s, &t, why, sizeof why, &match);
        if (t.op == EMU_OP_CONV || t.op == EMU_OP_DEPTHWISE) {
            n_conv++;
            n_ok += c == 1;
            n_geo += c == 2;
            n_nonode += c < 0 || c == 2;
        }
        json_obj_open(w);
        json_key(w, "index"); json_int(w, i);
        json_key_int(w, "node", s->node >= 0 ? s->node + 1 : -1, -1);
        json_key(w, "op"); json_str(w, emu_op_name(t.op));
        json_key(w, "writes"); json_int(w, s->n_regs);
        json_key(w, "file_offset"); json_int(w, s->file_off);
        json_key(w, "enable_mask"); json_int(w, s->enable_mask);
        json_key(w, "lut_tensor");
        if (s->lut >= 0) json_str(w, m->tensors[s->lut].name); else json_write_null(w);
        json_key_int(w, "in_w", t.in_w, -1);
        json_key_int(w, "in_h", t.in_h, -1);
        json_key_int(w, "in_c", t.in_c_real, -1);
        json_key_int(w, "in_c_aligned", t.in_c, -1);
        json_key_int(w, "kernel_w", t.kw, -1);
        json_key_int(w, "kernel_h", t.kh, -1);
        json_key_int(w, "kernels", t.kernels, -1);
        json_key_int(w, "stride_x", t.stride_x, -1); json_key_int(w, "stride_y", t.stride_y, -1);
        json_key_int(w, "dilation_x", t.dil_x, -1); json_key_int(w, "dilation_y", t.dil_y, -1);
        json_key_int(w, "pad_top", t.pad_top, -1); json_key_int(w, "pad_left", t.pad_left, -1);
        json_key(w, "pad_bottom");
        t.has_pad_bottom ? json_int(w, t.pad_bottom) : json_write_null(w);
        json_key(w, "pad_right");
        t.has_pad_right ? json_int(w, t.pad_right) : json_write_null(w);
        json_key_int(w, "out_w", t.out_w, -1);
        json_key_int(w, "out_h", t.out_h, -1);
        json_key_int(w, "out_c", t.out_c_orig, -1);
        json_key_int(w, "out_c_aligned", t.out_c, -1);
        json_key(w, "in_precision"); t.in_prec >= 0 ? json_str(w, emu_prec_name(t.in_prec)) : json_write_null(w);
        json_key(w, "proc_precision"); t.proc_prec >= 0 ? json_str(w, emu_prec_name(t.proc_prec)) : json_write_null(w);
        json_key(w, "out_precision"); t.out_prec >= 0 ? json_str(w, emu_prec_name(t.out_prec)) : json_write_null(w);
        json_key_int(w, "feature_addr", t.feature_addr, -1);
        json_key_int(w, "weight_addr", t.weight_addr, -1);
        json_key_int(w, "weight_bytes", t.weight_bytes, -1);
        json_key_int(w, "dst_addr", t.dst_addr, -1);
        json_key_int(w, "bs_addr", t.bs_addr, -1); json_key_int(w, "bn_addr", t.bn_addr, -1);
        json_key_int(w, "bs_file_offset", p->file_base >= 0 && t.bs_addr >= 0 &&
                     t.bs_addr < p->file_limit ? p->file_base + t.bs_addr : -1, -1);
        json_key_int(w, "ew_addr", t.ew_addr, -1);
        stage_json(w, "bs", &t.bs);
        stage_json(w, "bn", &t.bn);
        json_key(w, "out_cvt_offset");
        t.out_cvt_scale >= 0 ? json_int(w, t.out_cvt_offset) : json_write_null(w);
        json_key_int(w, "out_cvt_scale", t.out_cvt_scale, -1);
        json_key_int(w, "out_cvt_shift", t.out_cvt_shift, -1);
        json_key_int(w, "pool_method", t.pool_method, -1);
        json_key_int(w, "pool_kernel_w", t.pool_kw, -1);
        json_key_int(w, "pool_kernel_h", t.pool_kh, -1);
        json_key_int(w, "pool_stride_x", t.pool_sx, -1);
        json_key_int(w, "pool_stride_y", t.pool_sy, -1);
        /* model 6: register, tensor and offset of each address patch in its writes */
        json_key(w, "patches");
        json_arr_open(w);
        for (int r = 0; s->entry0 >= 0 && r < s->n_regs; r++) {
            uint32_t off = 0;
            int ti = rknn_reloc_at(m, s->entry0 + r, &off);
            if (ti < 0)
                continue;
            json_obj_open(w);
            json_key(w, "register"); json_int(w, s->regs[r].addr);
            json_key(w, "tensor"); json_str(w, m->tensors[ti].name);
            json_key(w, "offset"); json_int(w, off);
            json_obj_close(w);
        }
        json_arr_close(w);
        json_key(w, "graph_check");
        if (c < 0) json_write_null(w); else json_str(w, c == 2 ? "no node index" : c ? "agrees" : why);
        json_key_int(w, "geometry_of_node", c == 2 ? match + 1 : -1, -1);
        json_key(w, "unknown_registers");
        json_arr_open(w);
        for (int k = 0; k < t.n_unknown && k < EMU_MAX_UNKNOWN; k++) {
            json_arr_open(w);
            json_int(w, t.unknown_addr[k]);
            json_int(w, t.unknown_val[k]);
            json_arr_close(w);
        }
        json_arr_close(w);
        json_key(w, "notes"); json_str(w, t.notes);
        json_obj_close(w);
    }
    json_arr_close(w);
    json_key(w, "conv_checked"); json_int(w, n_conv - n_nonode);
    json_key(w, "conv_agree"); json_int(w, n_ok);
    json_key(w, "conv_without_node"); json_int(w, n_nonode);
    json_key(w, "conv_geometry_found"); json_int(w, n_geo);
    json_obj_close(w);
    free(all);
}
