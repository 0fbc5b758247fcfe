/* tests/fuzz/fuzz_emu_lite.c — fuzz target: bytes -> the RV1103/RV1106 task
 * executor (runtime/emu/emu_lite.c) over a small flat NPU address space.
 * Input: byte 0 selects per task (bit i % 8) the enable mask 0x18 (DPU only)
 * or 0x0d (CNA + CORE + DPU); then 8-byte register commands (RV110x format:
 * address, value, target), an entry of eight 0xff bytes ending a task. The
 * tasks alternate between two graph nodes: one writes a native NC1HWC2
 * tensor [1, 16, 4, 4], the other a row-major [1, 4, 4, 16] that is also the
 * graph's output. NPU memory: 4096 "file" bytes (the input repeated: the
 * weights and per-channel words a conv reads) and a 520192-byte internal
 * buffer (room for the seeds: real head tasks, their addresses moved into
 * it). Any status is fine; a crash, a sanitizer report, a leak or an output
 * of the wrong size is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/emu/emu.h"
#include "runtime/model/rknn_file.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILE_BYTES 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int64_t shape0[4] = {1, 16, 4, 4}, native0[5] = {1, 1, 4, 4, 16};
    int64_t shape1[4] = {1, 4, 4, 16};
    rknn_tensor tens[2] = {
        {.name = "native", .nd = 4, .nnd = 5, .shape = shape0, .native = native0, .has_quant = 1,
         .scale = 0.5, .zero_point = -3, .buffer = -1},
        {.name = "rows", .nd = 4, .nnd = 4, .shape = shape1, .native = shape1, .has_quant = 1,
         .scale = 0.25, .zero_point = 5, .buffer = -1},
    };
    int out0 = 0, out1 = 1, in1 = 0;
    rknn_node nodes[2] = {
        {.type = "Conv", .name = "Conv:a", .out = &out0, .n_out = 1},
        {.type = "Transpose", .name = "Transpose:b", .in = &in1, .n_in = 1, .out = &out1, .n_out = 1},
    };
    rknn_io io = {.name = "rows", .tensor = 1, .is_output = 1};
    rknn_model m = {0};
    m.tensors = tens;
    m.n_tensors = 2;
    m.nodes = nodes;
    m.n_nodes = 2;
    m.io = &io;
    m.n_io = 1;
    m.lite_words[4] = 520192;

    uint8_t *file = xcalloc(FILE_BYTES, 1);
    for (size_t i = 0; i < FILE_BYTES; i++)
        file[i] = data[i % size];
    size_t n = (size - 1) / 8;
    emu_program p = {0};
    p.map = EMU_MAP_RV110X;
    p.fmt = EMU_FMT_TVR;
    p.source = EMU_SRC_LITE;
    p.file_base = 0;
    p.file_limit = FILE_BYTES;
    p.tasks = xcalloc(n + 1, sizeof *p.tasks);
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        static const uint8_t split[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
        if (i < n && memcmp(data + 1 + 8 * i, split, 8))
            continue;
        emu_stream *s = &p.tasks[p.n_tasks];
        s->node = p.n_tasks % 2;
        s->enable_mask = data[0] >> (p.n_tasks % 8) & 1 ? 0x18 : 0x0d;
        s->n_regs = (int)(i - start);
        s->regs = xcalloc((size_t)s->n_regs + 1, sizeof *s->regs);
        emu_regs_parse(data + 1 + 8 * start, (size_t)s->n_regs, p.fmt, s->regs);
        p.n_regs += s->n_regs;
        p.n_tasks++;
        start = i + 1;
    }
    emu_task *tasks = xcalloc((size_t)p.n_tasks + 1, sizeof *tasks);
    emu_program_decode(&p, tasks);
    emu_result res;
    memset(&res, 0, sizeof res);
    char err[1024];
    int rc = emu_lite_exec(&m, file, FILE_BYTES, &p, tasks, NULL, 0, NULL, &res, err, sizeof err);
    if (rc == 0) {
        if (res.n_out != 1 || !res.out || !res.out[0] || res.out_dims[0][0] * res.out_dims[0][1] *
                                                            res.out_dims[0][2] * res.out_dims[0][3] != 256)
            abort();
    } else if (!err[0] || res.n_out || res.out) {
        abort();
    }
    emu_result_free(&res);
    free(tasks);
    free(file);
    emu_program_free(&p);
    return 0;
}
