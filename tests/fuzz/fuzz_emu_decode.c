/* tests/fuzz/fuzz_emu_decode.c — fuzz target: bytes -> the NPU task decoder
 * (runtime/emu). Two inputs:
 *  - a whole vendor file ("RKNN..."): parsed, its tasks found
 *    (emu_program_load) and decoded (emu_program_decode);
 *  - anything else: byte 0 picks the register map, byte 1 the entry format,
 *    then 8-byte entries; an entry of eight 0xff bytes ends a task. The tasks
 *    are decoded one by one and as a program (ping-pong groups).
 * Any status is fine; a crash, a sanitizer report or a leak is a bug, and a
 * decoded task must stay consistent (counts, known op, sizes in range). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/emu/emu.h"
#include "runtime/model/rknn_file.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const emu_task *t, int n_regs)
{
    if (t->n_regs != n_regs || t->n_unknown < 0 || t->n_unknown > n_regs)
        abort();
    if (t->op < EMU_OP_UNDECODED || t->op > EMU_OP_MATMUL || !emu_op_name(t->op))
        abort();
    if (strlen(t->notes) >= sizeof t->notes)
        abort();
    /* fields are bit fields of 32-bit registers: never beyond their width (+1
     * where a layout stores N-1: f2's kernel and input sizes) */
    if (t->kw > 32 || t->kh > 32 || t->stride_x > 7 || t->stride_y > 7 || t->in_w > 2048 ||
        t->out_w > 8192 || t->pool_kw > 16)
        abort();
}

static void program(const emu_program *p)
{
    emu_task *all = xcalloc(p->n_tasks ? (size_t)p->n_tasks : 1, sizeof *all);
    emu_program_decode(p, all);
    for (int i = 0; i < p->n_tasks; i++)
        check(&all[i], p->tasks[i].n_regs);
    free(all);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    if (size >= 8 && !memcmp(data, "RKNN", 4)) {
        rknn_model *m = NULL;
        if (rknn_model_parse(data, size, "fuzz input", &m, err, sizeof err) == 0) {
            emu_program p;
            err[0] = 0;
            if (emu_program_load(m, data, size, &p, err, sizeof err) == 0) {
                program(&p);
                /* the one-core tiling: a prefix of the tasks, whatever graph slot 10 says */
                int n = p.n_tasks, dropped = emu_program_one_core(&p, m);
                if (dropped < 0 || p.n_tasks + dropped != n || p.n_file_tasks != n)
                    abort();
                program(&p);
                emu_program_free(&p);
            } else if (!err[0] || p.n_tasks || p.tasks) {
                abort();
            }
            rknn_model_free(m);
        }
        return 0;
    }
    if (size < 2)
        return 0;
    int map = data[0] % EMU_MAP_COUNT, fmt = data[1] % 2;
    size_t n = (size - 2) / 8;
    emu_program p = {0};
    p.map = map;
    p.fmt = fmt;
    p.tasks = xcalloc(n + 1, sizeof *p.tasks);
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        static const uint8_t split[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
        if (i < n && memcmp(data + 2 + 8 * i, split, 8))
            continue;
        emu_stream *s = &p.tasks[p.n_tasks++];
        s->node = -1;
        s->n_regs = (int)(i - start);
        s->regs = xcalloc((size_t)s->n_regs + 1, sizeof *s->regs);
        emu_regs_parse(data + 2 + 8 * start, (size_t)s->n_regs, fmt, s->regs);
        emu_task t;
        emu_decode(map, s->regs, s->n_regs, &t);
        check(&t, s->n_regs);
        for (int k = 0; k < s->n_regs; k++)
            (void)emu_reg_name(map, s->regs[k].addr), (void)emu_block_name(s->regs[k].addr);
        start = i + 1;
    }
    program(&p);
    emu_program_free(&p);
    return 0;
}
