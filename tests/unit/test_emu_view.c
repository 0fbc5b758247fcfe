/* tests/unit/test_emu_view.c — the rk3588 forms of yolov10n's attention block in the
 * Toolkit2 executor (emu_fb_exec), on a small graph built here:
 *   a [1,64,1,8] --Reshape, no task--> r [2,32,1,8] --Split--> s0, s1 [2,16,1,8]
 *   s1 --Reshape, one DPU copy task--> v [1,32,1,8]
 * The task-less Reshape must give r as numpy's reshape of a (the same native bytes,
 * emu_view.c); the Split's four tasks copy channels 0..15 / 16..31 of each image of
 * the batch (the source and destination offsets name image 1: r's channel 32, s0's
 * 16), s0 requantized (BS add -3, OUT_CVT 8192 / 2^14 - 5), s1 unchanged; v is s1's
 * bytes through the copy task (cube 8 x 1 x 32, surfaces 128 bytes apart). The
 * oracle is the ONNX meaning on the quantized input, computed here: r = reshape(a),
 * s0 / s1 the channel halves of each image (s0 within one of its steps), v =
 * reshape(s1). A Reshape whose output layout differs (r as [1,32,2,8]) or whose
 * quantization differs must stop naming the node. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/emu/emu.h"
#include "runtime/model/rknn_file.h"
#include "tests/test.h"

#define NR 22

/* the DPU-only copy words of yolov10n's attention Split (task 140) */
static int copy_task(emu_reg *r, uint32_t src, uint32_t dst, int c, int add, int scale,
                     int shift, int off, uint32_t surf)
{
    emu_reg w[NR] = {
        {0, 0x400c, 0x1e5}, {0, 0x4010, 0}, {0, 0x5044, 0x7801}, {0, 0x4070, 0x383},
        {0, 0x4060, 0x53}, {0, 0x4040, add ? 0x20050 : 0x53}, {0, 0x4044, (uint32_t)add},
        {0, 0x4080, (uint32_t)off}, {0, 0x4084, (uint32_t)scale}, {0, 0x4088, (uint32_t)shift},
        {0, 0x4030, 7}, {0, 0x4034, 0}, {0, 0x403c, (uint32_t)((c - 1) | (c - 1) << 16)},
        {0, 0x5018, src}, {0, 0x4020, dst}, {0, 0x500c, 7}, {0, 0x5010, 0},
        {0, 0x5014, (uint32_t)(c - 1)}, {0, 0x4024, surf}, {0, 0x40c0, surf},
        {0, 0x4078, 1}, {0, 0x5034, 1},
    };
    memcpy(r, w, sizeof w);
    return NR;
}

typedef struct graph {
    int64_t s_a[4], n_a[5], s_r[4], n_r[5], s_s[4], n_s[5], s_v[4], n_v[5];
    rknn_tensor t[5];
    int in_a, out_r, out_s[2], in_s1, out_v;
    rknn_node nd[3];
    rknn_io io[4];
    rknn_model m;
    emu_reg regs[5][NR];
    emu_stream st[5];
    emu_program p;
} graph;

static void build(graph *g)
{
    memset(g, 0, sizeof *g);
    int64_t sa[4] = {1, 64, 1, 8}, na[5] = {1, 4, 1, 8, 16}, sr[4] = {2, 32, 1, 8},
            nr[5] = {2, 2, 1, 8, 16}, ss[4] = {2, 16, 1, 8}, ns[5] = {2, 1, 1, 8, 16},
            sv[4] = {1, 32, 1, 8}, nv[5] = {1, 2, 1, 8, 16};
    memcpy(g->s_a, sa, sizeof sa), memcpy(g->n_a, na, sizeof na);
    memcpy(g->s_r, sr, sizeof sr), memcpy(g->n_r, nr, sizeof nr);
    memcpy(g->s_s, ss, sizeof ss), memcpy(g->n_s, ns, sizeof ns);
    memcpy(g->s_v, sv, sizeof sv), memcpy(g->n_v, nv, sizeof nv);
#define ACT(nm, s, n, sc, zp) (rknn_tensor){.name = nm, .dtype = 3, .nd = 4, .nnd = 5, .shape = s, \
        .native = n, .has_quant = 1, .scale = sc, .zero_point = zp, .buffer = -1, .data_off = -1, \
        .data_len = -1, .size = -1, .task_node = -1, .task_lut = -1}
    g->t[0] = ACT("a", g->s_a, g->n_a, 0.1, 3);
    g->t[1] = ACT("r", g->s_r, g->n_r, 0.1, 3);
    g->t[2] = ACT("s0", g->s_s, g->n_s, 0.2, -5);
    g->t[3] = ACT("s1", g->s_s, g->n_s, 0.1, 3);
    g->t[4] = ACT("v", g->s_v, g->n_v, 0.1, 3);
#undef ACT
    g->in_a = 0, g->out_r = 1, g->out_s[0] = 2, g->out_s[1] = 3, g->in_s1 = 3, g->out_v = 4;
    g->nd[0] = (rknn_node){.type = "Reshape", .name = "Reshape:r", .in = &g->in_a, .n_in = 1,
                           .out = &g->out_r, .n_out = 1, .target = RKNN_TGT_NPU};
    g->nd[1] = (rknn_node){.type = "Split", .name = "Split:s", .in = &g->out_r, .n_in = 1,
                           .out = g->out_s, .n_out = 2, .target = RKNN_TGT_NPU};
    g->nd[2] = (rknn_node){.type = "Reshape", .name = "Reshape:v", .in = &g->in_s1, .n_in = 1,
                           .out = &g->out_v, .n_out = 1, .target = RKNN_TGT_NPU};
    g->io[0] = (rknn_io){.name = "a", .tensor = 0};
    g->io[1] = (rknn_io){.name = "r", .tensor = 1, .is_output = 1};
    g->io[2] = (rknn_io){.name = "s0", .tensor = 2, .is_output = 1};
    g->io[3] = (rknn_io){.name = "v", .tensor = 4, .is_output = 1};
    g->m = (rknn_model){.container = RKNN_C_TK2_FB, .target = "rk3588", .tensors = g->t,
                        .n_tensors = 5, .nodes = g->nd, .n_nodes = 3, .io = g->io, .n_io = 4};
    /* one surface: 8 x 1 x 16 = 128 bytes; image 1 of r starts at channel 32 (256) */
    int n = 0;
    g->st[n].n_regs = copy_task(g->regs[n], 0, 0, 16, -3, 8192, 14, -5, 128), n++;
    g->st[n].n_regs = copy_task(g->regs[n], 256, 128, 16, -3, 8192, 14, -5, 128), n++;
    g->st[n].n_regs = copy_task(g->regs[n], 128, 0, 16, 0, 1, 0, 0, 128), n++;
    g->st[n].n_regs = copy_task(g->regs[n], 384, 128, 16, 0, 1, 0, 0, 128), n++;
    g->st[n].n_regs = copy_task(g->regs[n], 0, 0, 32, 0, 1, 0, 0, 128), n++;
    for (int i = 0; i < n; i++) {
        g->st[i].node = i < 4 ? 1 : 2;
        g->st[i].lut = -1;
        g->st[i].entry0 = -1;
        g->st[i].enable_mask = 0x18;
        g->st[i].regs = g->regs[i];
    }
    g->p = (emu_program){.map = EMU_MAP_RK3588, .file_base = -1, .source = EMU_SRC_FB_TASKS,
                         .tasks = g->st, .n_tasks = n, .n_file_tasks = n};
}

int main(void)
{
    graph g;
    float x[64 * 8];
    double q[64 * 8]; /* a's quantized values, dequantized */
    for (int i = 0; i < 64 * 8; i++) {
        x[i] = (float)((i * 37 % 251) * 0.05 - 6.0 + 0.013);
        double v = fmax(-128, fmin(127, round(x[i] / 0.1) + 3));
        q[i] = (v - 3) * 0.1;
    }
    const float *in[1] = {x};
    emu_result res;
    char err[512] = "";

    build(&g);
    int rc = emu_fb_exec(&g.m, NULL, 0, &g.p, in, 1, NULL, NULL, &res, err, sizeof err);
    CHECK(rc == 0, "run: %s", err);
    if (rc == 0) {
        CHECK(res.n_out == 3 && res.out_dims[0][0] == 2 && res.out_dims[0][1] == 32 &&
                  res.out_dims[1][0] == 2 && res.out_dims[2][0] == 1 && res.out_dims[2][1] == 32,
              "output dims");
        int bad_r = 0, bad_s0 = 0, bad_v = 0;
        /* r = reshape(a): the same NCHW order */
        for (int i = 0; i < 64 * 8; i++)
            bad_r += fabs(res.out[0][i] - q[i]) > 1e-6;
        /* s0[n][c] = r[n][c] for c < 16 (one 0.2 step); v = reshape(s1), s1[n][c] = r[n][16 + c] */
        for (int n = 0; n < 2; n++)
            for (int c = 0; c < 16; c++)
                for (int k = 0; k < 8; k++) {
                    double rv = q[(n * 32 + c) * 8 + k], r1 = q[(n * 32 + 16 + c) * 8 + k];
                    double want0 = fmax(-128, fmin(127, round(rv / 0.2) - 5));
                    bad_s0 += fabs(res.out[1][(n * 16 + c) * 8 + k] - rv) > 0.2 + 1e-6 ||
                              want0 == 127 || want0 == -128;
                    bad_v += fabs(res.out[2][(n * 16 + c) * 8 + k] - r1) > 1e-6;
                }
        CHECK(bad_r == 0, "r is not numpy's reshape of a: %d values differ", bad_r);
        CHECK(bad_s0 == 0, "s0 is not r's first 16 channels of each image: %d values", bad_s0);
        CHECK(bad_v == 0, "v is not s1 = r's last 16 channels of each image: %d values", bad_v);
        emu_result_free(&res);
    }

    /* r as [1,32,2,8]: its elements are not a's bytes, so the view is refused */
    build(&g);
    int64_t s_r2[4] = {1, 32, 2, 8}, n_r2[5] = {1, 2, 2, 8, 16};
    g.t[1].shape = s_r2;
    g.t[1].native = n_r2;
    rc = emu_fb_exec(&g.m, NULL, 0, &g.p, in, 1, NULL, NULL, &res, err, sizeof err);
    CHECK(rc != 0 && strstr(err, "Reshape:r") && strstr(err, "not its input's"),
          "a layout that moves bytes: %s", rc ? err : "taken");

    /* the same bytes under another quantization: refused too */
    build(&g);
    g.t[1].scale = 0.2;
    rc = emu_fb_exec(&g.m, NULL, 0, &g.p, in, 1, NULL, NULL, &res, err, sizeof err);
    CHECK(rc != 0 && strstr(err, "Reshape:r") && strstr(err, "quantization"),
          "another quantization: %s", rc ? err : "taken");

    /* the copy task of Reshape:v reading half the tensor: refused */
    build(&g);
    g.regs[4][12].value = 15 | 15 << 16;
    g.regs[4][17].value = 15;
    rc = emu_fb_exec(&g.m, NULL, 0, &g.p, in, 1, NULL, NULL, &res, err, sizeof err);
    CHECK(rc != 0 && strstr(err, "Reshape:v") && strstr(err, "whole tensor"),
          "a copy of half the tensor: %s", rc ? err : "taken");
    TEST_END();
}
