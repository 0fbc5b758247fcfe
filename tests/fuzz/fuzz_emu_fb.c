/* tests/fuzz/fuzz_emu_fb.c — fuzz target: bytes -> the Toolkit2 task executor
 * (runtime/emu/emu_exec.c, emu_fb_exec) over a small graph of yolov8n's shapes: a
 * 1x1 Conv (64 -> 64 channels, 20 x 20, weight [4,2,1,1,16,32] and 64 x 8
 * per-channel bytes from the "file"), a MaxPool (128 channels, 20 x 20) and a
 * Resize (256 channels, 20 x 20 -> 40 x 40), on rk3566's register map; with the
 * first byte at 0x80 or above, on rk3576's (layout f2) with a 3x3 depthwise Conv of the 64
 * input channels as node 0 before them (its weight [1,1,3,3,1,64] in two bytes an
 * element, 96 words of per-channel data: emu_dw.c), with bit 6 set as well the
 * pool an AveragePool (emu_pool.c's rk3576 average), and a 64-byte configuration
 * buffer (emu_act.c): the tensor "cfg" at file offset 4612, which the address
 * patches put at entries RELOC_0 to RELOC_0 + RELOC_N - 1 (past the seeds' short
 * tasks), so that a task's 0x5024 and 0x5030 there read it; its four 16-byte slots
 * start at the value words of entries 575, 577, 579 and 581 of an input longer than
 * the file.
 * With the first byte below 0x80 and bit 5 set, on rk3588's map with the depthwise conv
 * (emu_dw_rk3588.c: one byte an element, 64 x 8 per-channel bytes; its LUT form) and
 * the conv (its DPU_BS_OW_OP form) before the others. With bit 4 set as well, the
 * Resize is pp_human_segv2's bilinear one (emu_resize_rk3588.c: mode linear,
 * half_pixel; r [1,16,24,24] -> s [1,16,48,48], C2 16) and every entry's address patch
 * names a tensor by the entry's index mod 8 (LINEAR_T: r, the scratch e [1,16,26,26],
 * s, the 2x2 weight lw, its bias lb, then e three times) instead of the cfg buffer.
 * After them on every map, the attention forms of yolov10n (emu_view.c): a Reshape
 * of the Conv's output to a batch of two, "cv" [2,32,20,20] (the same bytes: a view
 * when no task names it, else its DPU copy task), and a Split of cv into two
 * [2,16,20,20] halves (a copy per image), and an exSDPAttention of them (q = h0,
 * k = v = h1, emu_attn.c), computed in float64 (RKNN_TRACE_EMU_ATTN=float) when a node
 * byte is 0xd8..0xdf, else stopping at its first task.
 * On rk3576 an Add of the pool's input to itself into "u" (128 x 20 x 20) after them all,
 * the node of a task byte 0xc0..0xcf (emu_dpu.c's DPU-only add; a DPU-only task of the
 * MaxPool node is emu_act.c's activation alone); with bit 4 of the first byte set as
 * well, its second operand the constant "k" of the pool's shape, the file's bytes from
 * offset 6400 (the file then 57600 bytes).
 * Input: 8 bytes, byte i % 8 the node of task i (0xe0..0xef the Reshape, 0xf0 and up
 * the Split, 0xd0..0xdf the attention, 0xc0..0xcf rk3576's Add, else mod 3, or 4 on
 * rk3576 and rk3588: the nodes above), then 8-byte
 * model-1 entries (bits 32..63 value, 16..31 address, 0..15 zero), eight 0xff bytes
 * between tasks. The file: 6144 bytes, the input repeated. The inputs: the
 * input's bytes as floats. Any status is fine; a crash, a sanitizer report, a
 * leak, an output of the wrong size or a failure without a message is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/emu/emu.h"
#include "runtime/model/model.h"
#include "runtime/model/rknn_file.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILE_BYTES 6400 /* 4096 weight bytes, 512 per-channel bytes; the depthwise
                           conv's 1152 and 384 (rk3588: 576 and 512) */
#define CFG_OFF 4612    /* the configuration buffer: 12 + 8 x entry 575 */
#define RELOC_0 512     /* the first entry the address patches name */
#define RELOC_N 2048    /* and how many */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    int64_t s_a[4] = {1, 64, 20, 20}, n_a[5] = {1, 8, 20, 20, 8};
    int64_t s_w[4] = {64, 64, 1, 1}, n_w[6] = {4, 2, 1, 1, 16, 32};
    int64_t s_b[1] = {64}, n_b[1] = {128};
    int64_t s_p[4] = {1, 128, 20, 20}, n_p[5] = {1, 16, 20, 20, 8};
    int64_t s_r[4] = {1, 256, 20, 20}, n_r[5] = {1, 32, 20, 20, 8};
    int64_t s_o[4] = {1, 256, 40, 40}, n_o[5] = {1, 32, 40, 40, 8};
    int64_t s_dw[4] = {1, 64, 3, 3}, n_dw[6] = {1, 1, 3, 3, 1, 64}, n_db[1] = {96};
    int64_t s_v[4] = {2, 32, 20, 20}, n_v[5] = {2, 4, 20, 20, 8};
    int64_t s_h[4] = {2, 16, 20, 20}, n_h[5] = {2, 2, 20, 20, 8};
#define ACT(nm, s, n, sc, zp) {.name = nm, .dtype = 3, .nd = 4, .nnd = 5, .shape = s, .native = n, \
        .has_quant = 1, .scale = sc, .zero_point = zp, .buffer = -1, .data_off = -1, .data_len = -1, \
        .task_node = -1, .task_lut = -1}
    int f2 = data[0] >> 7, r88 = !f2 && (data[0] & 0x20), lin = r88 && (data[0] & 0x10);
    int64_t s_lr[4] = {1, 16, 24, 24}, n_lr[5] = {1, 1, 24, 24, 16};
    int64_t s_ls[4] = {1, 16, 48, 48}, n_ls[5] = {1, 1, 48, 48, 16};
    int64_t s_le[4] = {1, 16, 26, 26}, n_le[5] = {1, 1, 26, 26, 16};
    int64_t s_lw[4] = {16, 1, 2, 2}, n_lw[12] = {1, 0, 2, 2, 1, 64, 1, 1, 2, 2, 1, 16};
    int64_t s_lb[1] = {16}, n_lb[1] = {16};
    int kconst = f2 && (data[0] & 0x10);
    size_t file_bytes = kconst ? FILE_BYTES + 51200 : FILE_BYTES;
    rknn_tensor tens[21] = {
        ACT("a", s_a, n_a, 0.05, -3),
        {.name = "w", .dtype = 3, .nd = 4, .nnd = 6, .shape = s_w, .native = n_w, .buffer = 0,
         .data_off = 0, .data_len = 4096, .task_node = -1, .task_lut = -1},
        {.name = "b", .dtype = DT_INT32, .nd = 1, .nnd = 1, .shape = s_b, .native = n_b,
         .buffer = 0, .data_off = 4096, .data_len = 512, .task_node = -1, .task_lut = -1},
        ACT("c", s_a, n_a, 0.1, 5),
        ACT("p", s_p, n_p, 0.03, -119),
        ACT("q", s_p, n_p, 0.03, -119),
        ACT("r", s_r, n_r, 0.04, -120),
        ACT("s", s_o, n_o, 0.04, -120),
        {.name = "dw", .dtype = 3, .nd = 4, .nnd = 6, .shape = s_dw, .native = n_dw, .buffer = 0,
         .data_off = 4608, .data_len = 1152, .task_node = -1, .task_lut = -1},
        {.name = "db", .dtype = DT_INT32, .nd = 1, .nnd = 1, .shape = s_b, .native = n_db,
         .buffer = 0, .data_off = 5760, .data_len = r88 ? 512 : 384, .task_node = -1,
         .task_lut = -1},
        ACT("d", s_a, n_a, 0.07, 2),
        {.name = "cfg", .dtype = 5, .nd = 1, .nnd = 1, .shape = s_b, .native = n_b, .buffer = 0,
         .data_off = CFG_OFF, .data_len = 64, .task_node = -1, .task_lut = -1},
        ACT("cv", s_v, n_v, 0.1, 5),
        ACT("h0", s_h, n_h, 0.2, -5),
        ACT("h1", s_h, n_h, 0.1, 5),
        ACT("at", s_h, n_h, 0.05, 1),
        ACT("u", s_p, n_p, 0.05, -3),
        {.name = "k", .dtype = 3, .nd = 4, .nnd = 5, .shape = s_p, .native = n_p, .has_quant = 1,
         .scale = 0.01f, .zero_point = 0, .buffer = 0, .data_off = FILE_BYTES, .data_len = 51200,
         .task_node = -1, .task_lut = -1},
        ACT("e", s_le, n_le, 0.04, -120),
        {.name = "lw", .dtype = 3, .nd = 4, .nnd = 12, .shape = s_lw, .native = n_lw, .buffer = 0,
         .data_off = 0, .data_len = 64, .task_node = -1, .task_lut = -1},
        {.name = "lb", .dtype = DT_INT32, .nd = 1, .nnd = 1, .shape = s_lb, .native = n_lb,
         .buffer = 0, .data_off = 64, .data_len = 64, .task_node = -1, .task_lut = -1},
    };
    if (lin) {
        tens[6].shape = s_lr;
        tens[6].native = n_lr;
        tens[7].shape = s_ls;
        tens[7].native = n_ls;
    }
#undef ACT
    int conv_in[3] = {0, 1, 2}, conv_out = 3, pool_in = 4, pool_out = 5, rs_in = 6, rs_out = 7;
    int dw_in[3] = {0, 8, 9}, dw_out = 10, view_out = 12, split_out[2] = {13, 14};
    int attn_in[3] = {13, 14, 14}, attn_out = 15, add_in[2] = {4, kconst ? 17 : 4}, add_out = 16;
    /* NPU nodes (a node of no target is a CPU layer the run would stop at); the
     * depthwise conv first (it reads the input): rk3576's and rk3588's graphs are all four,
     * rk3566's the other three */
    rknn_node nodes[8] = {
        {.type = "Conv", .name = "Conv:d", .in = dw_in, .n_in = 3, .out = &dw_out, .n_out = 1, .target = RKNN_TGT_NPU},
        {.type = "Conv", .name = "Conv:c", .in = conv_in, .n_in = 3, .out = &conv_out, .n_out = 1, .target = RKNN_TGT_NPU},
        {.type = "MaxPool", .name = "MaxPool:q", .in = &pool_in, .n_in = 1, .out = &pool_out,
         .n_out = 1, .target = RKNN_TGT_NPU},
        {.type = "Resize", .name = "Resize:s", .in = &rs_in, .n_in = 1, .out = &rs_out, .n_out = 1, .target = RKNN_TGT_NPU},
        {.type = "Reshape", .name = "Reshape:cv", .in = &conv_out, .n_in = 1, .out = &view_out,
         .n_out = 1, .target = RKNN_TGT_NPU},
        {.type = "Split", .name = "Split:h", .in = &view_out, .n_in = 1, .out = split_out,
         .n_out = 2, .target = RKNN_TGT_NPU},
        {.type = "exSDPAttention", .name = "exSDPAttention:at", .in = attn_in, .n_in = 3,
         .out = &attn_out, .n_out = 1, .target = RKNN_TGT_NPU},
        {.type = "Add", .name = "Add:u", .in = add_in, .n_in = 2, .out = &add_out, .n_out = 1,
         .target = RKNN_TGT_NPU},
    };
    if (lin) {
        nodes[3].mode = "linear";
        nodes[3].coord_mode = "half_pixel";
    }
    if (f2 && (data[0] & 0x40)) {
        nodes[2].type = "AveragePool";
        nodes[2].name = "AveragePool:q";
    }
    rknn_io io[7] = {
        {.name = "a", .tensor = 0}, {.name = "p", .tensor = 4}, {.name = "r", .tensor = 6},
        {.name = "c", .tensor = 3, .is_output = 1}, {.name = "q", .tensor = 5, .is_output = 1},
        {.name = "s", .tensor = 7, .is_output = 1}, {.name = "cv", .tensor = 12, .is_output = 1},
    };
    rknn_model m = {0};
    m.container = RKNN_C_TK2_FB;
    m.target = f2 ? "rk3576" : r88 ? "rk3588" : "rk3566";
    m.tensors = tens;
    m.n_tensors = lin ? 21 : 18;
    static rknn_reloc relocs[RELOC_N];
    static const int LINEAR_T[8] = {6, 18, 7, 19, 20, 18, 18, 18};
    for (int e = 0; e < RELOC_N; e++)
        relocs[e] = lin ? (rknn_reloc){LINEAR_T[e % 8], 0, (uint32_t)e}
                        : (rknn_reloc){11, 0, (uint32_t)(RELOC_0 + e)};
    m.relocs = relocs;
    m.n_relocs = RELOC_N;
    m.nodes = f2 || r88 ? nodes : nodes + 1;
    int nn = f2 || r88 ? 7 : 6; /* the nodes the task bytes below pick by position */
    m.n_nodes = nn + f2;
    m.io = io;
    m.n_io = 7;

    uint8_t *file = xcalloc(file_bytes, 1);
    for (size_t i = 0; i < file_bytes; i++)
        file[i] = data[i % size];
    /* the inputs: the input's bytes as pixel values 0..255 */
    static const int64_t in_n[3] = {64 * 400, 128 * 400, 256 * 400};
    float *in[3];
    for (int k = 0; k < 3; k++) {
        in[k] = xcalloc((size_t)in_n[k], sizeof(float));
        for (int64_t i = 0; i < in_n[k]; i++)
            in[k][i] = data[(size_t)(i * 7 + k) % size];
    }
    size_t n = (size - 8) / 8;
    emu_program p = {0};
    p.map = f2 ? EMU_MAP_F2 : r88 ? EMU_MAP_RK3588 : EMU_MAP_RK356X;
    p.fmt = EMU_FMT_VR;
    p.source = EMU_SRC_FB_BLOBS;
    p.file_base = -1;
    p.file_limit = (int64_t)file_bytes;
    p.tasks = xcalloc(n + 1, sizeof *p.tasks);
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        static const uint8_t split[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
        if (i < n && memcmp(data + 8 + 8 * i, split, 8))
            continue;
        emu_stream *s = &p.tasks[p.n_tasks];
        uint8_t nb = data[p.n_tasks % 8];
        s->node = nb >= 0xf0 ? nn - 2 : nb >= 0xe0 ? nn - 3 : nb >= 0xd0 ? nn - 1
                  : f2 && nb >= 0xc0 ? nn : nb % (nn - 3);
        s->lut = -1;
        s->entry0 = (int64_t)start;
        s->n_regs = (int)(i - start);
        s->regs = xcalloc((size_t)s->n_regs + 1, sizeof *s->regs);
        emu_regs_parse(data + 8 + 8 * start, (size_t)s->n_regs, p.fmt, s->regs);
        p.n_regs += s->n_regs;
        p.n_tasks++;
        start = i + 1;
    }
    int attn = 0;
    for (int k = 0; k < 8; k++)
        attn |= data[k] >= 0xd8 && data[k] < 0xe0;
    if (attn)
        setenv("RKNN_TRACE_EMU_ATTN", "float", 1);
    else
        unsetenv("RKNN_TRACE_EMU_ATTN");
    emu_result res;
    memset(&res, 0, sizeof res);
    char err[1024] = "";
    const float *const ins[3] = {in[0], in[1], in[2]};
    int rc = emu_fb_exec(&m, file, file_bytes, &p, ins, 3, NULL, NULL, &res, err, sizeof err);
    if (rc == 0) {
        const int64_t want[4] = {64 * 400, 128 * 400, lin ? 16 * 2304 : 256 * 1600, 64 * 400};
        if (res.n_out != 4)
            abort();
        for (int k = 0; k < 4; k++)
            if (!res.out[k] || res.out_dims[k][0] * res.out_dims[k][1] * res.out_dims[k][2] *
                                   res.out_dims[k][3] != want[k])
                abort();
    } else if (!err[0] || res.n_out || res.out) {
        abort();
    }
    emu_result_free(&res);
    for (int k = 0; k < 3; k++)
        free(in[k]);
    free(file);
    emu_program_free(&p);
    return 0;
}
