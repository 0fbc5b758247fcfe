/* runtime/emu/emu_program.c — where a vendor file keeps its tasks' register
 * writes, and copying them out (layouts: docs/rknn-format.md, "Compiled NPU
 * tasks"). Task records are the kernel's 40-byte `struct rknpu_task`:
 * op_idx at +4, enable_mask +8, int_mask +12, regcfg_amount +24,
 * regcmd_addr (u64) +32, an offset into the register commands. */
#include <stdlib.h>
#include <string.h>
#include "runtime/emu/emu.h"
#include "runtime/model/rknn_file.h"
#include "util/util.h"

#define TASK_REC 40
#define LITE_HDR 64
#define MAX_TASKS (1 << 20)

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

const char *emu_source_name(int source)
{
    switch (source) {
    case EMU_SRC_LITE: return "RV110x task table";
    case EMU_SRC_FB_TASKS: return "task table + regcmd blob";
    case EMU_SRC_FB_BLOBS: return "one regcmd blob per task";
    default: return "none";
    }
}

void emu_program_free(emu_program *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n_tasks; i++)
        free(p->tasks[i].regs);
    free(p->tasks);
    memset(p, 0, sizeof *p);
}

static void add_stream(emu_program *p, const uint8_t *file, size_t off, uint32_t n, int node,
                       uint32_t en, uint32_t im)
{
    emu_stream *s = &p->tasks[p->n_tasks++];
    s->node = node;
    s->lut = -1;
    s->enable_mask = en;
    s->int_mask = im;
    s->file_off = (int64_t)off;
    s->entry0 = -1;
    s->n_regs = (int)n;
    s->regs = xcalloc(n ? n : 1, sizeof *s->regs);
    emu_regs_parse(file + off, n, p->fmt, s->regs);
    p->n_regs += n;
}

/* A task table of n records at tab and register commands [cmd, cmd + cmd_len). */
static int from_table(emu_program *p, const uint8_t *file, size_t tab, uint32_t n, size_t cmd,
                      size_t cmd_len, int n_nodes, char *err, size_t errlen)
{
    p->tasks = xcalloc(n ? n : 1, sizeof *p->tasks);
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *r = file + tab + (size_t)i * TASK_REC;
        uint32_t op = rd32(r + 4), amount = rd32(r + 24);
        uint64_t at = (uint64_t)rd32(r + 32) | (uint64_t)rd32(r + 36) << 32;
        if (at > cmd_len || amount > (cmd_len - at) / 8)
            return rt_err(err, errlen, RT_EFORMAT,
                          "task %u: %u register writes at %llu, the register commands have %zu bytes",
                          i, amount, (unsigned long long)at, cmd_len);
        add_stream(p, file, cmd + (size_t)at, amount, op < (uint32_t)n_nodes ? (int)op : -1,
                   rd32(r + 8), rd32(r + 12));
        if (at % 8 == 0)
            p->tasks[p->n_tasks - 1].entry0 = (int64_t)(at / 8);
    }
    return 0;
}

/* The regcmd (kind 9) and task (kind 10) blobs, each checked inside the
 * file; returns the number of model-1 per-task blobs (kind 7) or RT_EFORMAT. */
static int fb_blobs(const rknn_model *m, size_t len, const rknn_tensor **reg,
                    const rknn_tensor **task, char *err, size_t errlen)
{
    int n7 = 0;
    *reg = *task = NULL;
    for (int i = 0; i < m->n_tensors; i++) {
        const rknn_tensor *t = &m->tensors[i];
        if (t->kind != 7 && t->kind != 9 && t->kind != 10)
            continue;
        if (t->data_off < 0 || t->data_len < 0 || (uint64_t)t->data_off > len ||
            (uint64_t)t->data_len > len - (uint64_t)t->data_off)
            return rt_err(err, errlen, RT_EFORMAT, "tensor %d (%s): blob outside the file", i,
                          t->name);
        if (t->kind == 9)
            *reg = t;
        else if (t->kind == 10)
            *task = t;
        else
            n7++;
    }
    return n7;
}

int emu_one_core_end(const emu_program *p, const rknn_model *m)
{
    int end = p->n_tasks;
    /* a start outside the table says nothing of it */
    for (int k = 0; p->source == EMU_SRC_FB_TASKS && k < m->n_tilings; k++)
        if (m->tiling_start[k] > 0 && m->tiling_start[k] < (uint32_t)end)
            end = (int)m->tiling_start[k];
    return end;
}

int emu_program_one_core(emu_program *p, const rknn_model *m)
{
    const char *all = getenv("RKNN_TRACE_EMU_TILINGS");
    if (all && !strcmp(all, "all"))
        return 0;
    int end = emu_one_core_end(p, m);
    int dropped = p->n_tasks - end;
    for (int i = end; i < p->n_tasks; i++)
        free(p->tasks[i].regs);
    p->n_tasks = end;
    return dropped;
}

int emu_program_load(const rknn_model *m, const uint8_t *file, size_t len, emu_program *out,
                     char *err, size_t errlen)
{
    int r = 0;
    memset(out, 0, sizeof *out);
    out->file_base = -1;
    out->map = emu_map_for_target(m->target ? m->target : m->fb_target);
    if (m->container == RKNN_C_LITE) {
        size_t d = m->data_off, dn = (size_t)m->data_size;
        uint32_t n = m->lite_tasks;
        if (d > len || dn > len - d || dn < LITE_HDR)
            return rt_err(err, errlen, RT_EFORMAT, "lite model data outside the file");
        size_t tab = LITE_HDR, cmd = LITE_HDR + (size_t)m->lite_words[1],
               cmd_len = m->lite_words[3];
        if (n > MAX_TASKS || (uint64_t)n * TASK_REC > dn - tab || cmd > dn || cmd_len > dn - cmd)
            return rt_err(err, errlen, RT_EFORMAT,
                          "lite task table (%u tasks) or register commands (%zu bytes at %zu) "
                          "outside the model data",
                          n, cmd_len, cmd);
        out->source = EMU_SRC_LITE;
        out->fmt = EMU_FMT_TVR;
        /* NPU addresses count from the register commands; the weights follow them */
        out->file_base = (int64_t)(d + cmd);
        out->file_limit = (int64_t)(dn - cmd);
        r = from_table(out, file, d + tab, n, d + cmd, cmd_len, m->n_nodes, err, errlen);
    } else if (m->container == RKNN_C_TK2_FB) {
        const rknn_tensor *reg, *task;
        int n7 = fb_blobs(m, len, &reg, &task, err, errlen);
        if (n7 < 0)
            return n7;
        if (reg && task) {
            uint64_t n = (uint64_t)task->data_len / TASK_REC;
            if (n > MAX_TASKS)
                return rt_err(err, errlen, RT_EFORMAT, "task blob of %lld bytes: too many tasks",
                              (long long)task->data_len);
            out->source = EMU_SRC_FB_TASKS;
            out->fmt = EMU_FMT_TVR;
            r = from_table(out, file, (size_t)task->data_off, (uint32_t)n, (size_t)reg->data_off,
                           (size_t)reg->data_len, m->n_nodes, err, errlen);
        } else if (n7 > 0) {
            /* model version 1: the blobs in tensor order are the tasks in order
             * (checked against the same network's model-6 file); the node whose
             * task list names a blob is its node, with its masks */
            out->source = EMU_SRC_FB_BLOBS;
            out->fmt = EMU_FMT_VR;
            out->tasks = xcalloc((size_t)n7, sizeof *out->tasks);
            for (int i = 0; i < m->n_tensors; i++) {
                const rknn_tensor *t = &m->tensors[i];
                if (t->kind == 7) {
                    add_stream(out, file, (size_t)t->data_off, (uint32_t)(t->data_len / 8),
                               t->task_node < m->n_nodes ? t->task_node : -1, t->task_enable,
                               t->task_int_mask);
                    out->tasks[out->n_tasks - 1].lut = t->task_lut < m->n_tensors ? t->task_lut : -1;
                }
            }
        }
    }
    if (r)
        emu_program_free(out);
    else
        out->n_file_tasks = out->n_tasks;
    return r;
}
