#!/usr/bin/env python3
"""Writes the seeds of tests/fuzz/fuzz_emu_fb.c into this folder.

Usage: make_seeds.py BUILD_DIR SAMPLES_DIR [ROCKET_USERSPACE_CAPTURES or "" [MOBILENET_V2_RK3588 or ""
       [PP_HUMAN_SEGV2_RK3588]]]
Real task streams from the model zoo's yolov8n.rk3566.rknn (Apache-2.0),
located with `rknn-trace inspect --tasks --json` (file_offset, writes): each
task's own writes (model-1 tasks write their whole configuration; task 140
only what differs from task 110, two tasks before it), for the target's graph,
which has these tasks' shapes: the plain 1x1 Conv of task 221 (64 -> 64 channels, 20 x 20),
the two MaxPool column tiles of tasks 95 and 96, the Resize surfaces of tasks
109 and 110 and task 140's own writes (the last surface, inheriting the rest),
all of them in one stream; then broken streams (the conv with its weight size
word changed, empty tasks, all ones). Input format: 8 bytes, byte i % 8 the
node of task i (0 Conv, 1 MaxPool, 2 Resize), then model-1 entries (zero,
address, value), eight 0xff bytes between tasks."""
import json, os, struct, subprocess, sys

build, samples = sys.argv[1:3]
out = os.path.dirname(os.path.abspath(__file__))
SPLIT = b'\xff' * 8


def inspect_tasks(path):
    """A vendor file's NPU tasks (`rknn-trace inspect --tasks --json`) and its bytes."""
    tasks = json.loads(subprocess.check_output([os.path.join(build, 'rknn-trace'), 'inspect', path,
                                                '--tasks', '--json']))['npu_tasks']['tasks']
    return tasks, open(path, 'rb').read()


def entries(data, t):
    """Task t's Toolkit2 register writes in data, as [address, value] lists."""
    return [[e & 0xffff, e >> 16 & 0xffffffff]
            for e in struct.unpack_from('<%dQ' % t['writes'], data, t['file_offset'])]


path = os.path.join(samples, 'yolov8n.rk3566.rknn')
meta, raw = inspect_tasks(path)


def own(i):
    t = meta[i]
    return [struct.unpack_from('<HHI', raw, t['file_offset'] + 8 * k)[1:] for k in range(t['writes'])]


def blob(regs):
    items = sorted(regs.items()) if isinstance(regs, dict) else regs
    return b''.join(struct.pack('<HHI', 0, a, v) for a, v in items)


def write(name, nodes, tasks):
    open(os.path.join(out, name), 'wb').write(bytes((nodes * 8)[:8]) + SPLIT.join(tasks))


write('real_conv.bin', [0], [blob(own(221))])
write('real_pool.bin', [1], [blob(own(95)), blob(own(96))])
write('real_resize.bin', [2], [blob(own(109)), blob(own(110)), blob(own(140))])
write('real_all.bin', [0, 1, 1, 2, 2, 2, 0, 0],
      [blob(own(221)), blob(own(95)), blob(own(96)), blob(own(109)), blob(own(110)),
       blob(own(140))])
bad = dict(own(221))
bad[0x1030] ^= 0x40   # CNA_WEIGHT_SIZE0
write('broken_conv_weight_size.bin', [0], [blob(bad)])
write('broken_empty_tasks.bin', [0, 1, 2], [b'', b'', b''])
open(os.path.join(out, 'broken_all_ones.bin'), 'wb').write(b'\xff' * 8 + b'\x00\x00\xff\xff\xff\xff\xff\xff' * 40)

# rk3576's activation stage (runtime/emu/emu_act.c), with a third argument: the
# tests/data/rk3576-vendor-capture folder of github.com/gregordinary/rocket-userspace.
# Its lut/conv_sigmoid_i8.rknn's conv task words (a Toolkit2 compile of mklut.py's
# Conv -> Sigmoid), their plane words changed to the graph's 1x1 conv over 64 x 20 x 20,
# after a LUT upload task whose tables are a sigmoid computed here; the configuration
# buffer the harness patches in (the tensor at file offset 4612: the value words of
# entries 575, 577, 579 and 581, table entries of the upload) holds the slots
# 0x0e0e (the BS shift word, and BN's ALU twice), 16384 and 0x0e0e. f2_prelu.bin: the
# same with BN_CFG 0x402 (a PReLU, its multiplier slot 0x0e0e and shift slot 0).
if len(sys.argv) > 3 and sys.argv[3]:
    import math
    cap = os.path.join(sys.argv[3], 'lut', 'conv_sigmoid_i8.rknn')
    ts, craw = inspect_tasks(cap)
    up, conv = entries(craw, ts[0]), entries(craw, ts[1])
    plane = {0x1024: 0x3f, 0x1028: 0x0080003f, 0x102c: 0x00130013, 0x1080: 0, 0x301c: 0x00130013,
             0x3020: 0x3f, 0x4020: 19, 0x4024: 19, 0x402c: 63, 0x4030: 0x003f0710}
    for w in conv:
        w[1] = plane.get(w[0], w[1])
    sig = lambda x: 1 / (1 + math.exp(-x))
    le = [round(32768 * sig(-6.3 + 6.3 * i / 512)) for i in range(513)]
    lo = [round(32768 * sig(6.3 * i / 512)) for i in range(513)]
    # the upload task's own words, its table data replaced: 0x4100 selects a table
    # (0x20000 low, 0x30000 high), each 0x4104 after it is the next entry
    tab, cur, i = {0x20000: le, 0x30000: lo}, None, 0
    for w in up:
        if w[0] == 0x4100:
            cur, i = tab.get(w[1]), 0
        elif w[0] == 0x4104 and cur is not None:
            w[1] = cur[i] & 0xffffffff
            i += 1
    upload = [tuple(w) for w in up]
    for e, v in zip((575, 577, 579, 581), (0x0e0e, 0x0e0e, 16384, 0x0e0e)):
        assert upload[e][0] == 0x4104
        upload[e] = (0x4104, v)
    write('f2_lut_sigmoid.bin', [0x81, 1], [blob(upload), blob([tuple(w) for w in conv])])
    prelu = {0x4060: 0x402, 0x5028: 0x18, 0x407c: 0x010041c1, 0x4108: 0, 0x410c: 0, 0x4110: 0,
             0x4114: 0, 0x4118: 0, 0x411c: 0, 0x4140: 0, 0x4144: 0, 0x4148: 0, 0x414c: 0,
             0x4170: 0, 0x4174: 0, 0x4184: 0, 0x4188: 0, 0x418c: 0, 0x4190: 0, 0x4194: 0}
    upload[577] = (0x4104, 0)
    write('f2_prelu.bin', [0x81, 1], [blob(upload), blob([(a, prelu.get(a, v)) for a, v in conv])])

    # an activation alone and an Add alone (DPU-only tasks, FEATURE_MODE 5: emu_act.c's
    # emu_run_f2_dpu_act, emu_dpu.c's emu_run_f2_ew): lut/bare_sigmoid_i8.rknn's task 1 on
    # the MaxPool node (its input and output 128 x 20 x 20) after the upload above, its BN
    # buffer the same slots; add/bare_add_c32_16.rknn's task on the harness's Add of the
    # pool's input to itself (node byte 0xc0), its BS buffer those slots, after the upload
    # and the LUT conv above (the graph's later nodes read the conv's output)
    def cap_task(rel, k):
        tt, r = inspect_tasks(os.path.join(sys.argv[3], rel))
        return entries(r, tt[k])
    cube = {0x4020: 19, 0x4024: 19, 0x402c: 127, 0x500c: 19, 0x5010: 19, 0x5014: 127,
            0x4030: 0x007f0f00}
    upload[577] = (0x4104, 0x0e0e)
    sg = [(a, cube.get(a, v)) for a, v in cap_task('lut/bare_sigmoid_i8.rknn', 1)]
    write('f2_dpu_sigmoid.bin', [0x81, 2], [blob(upload), blob(sg)])
    ad = [(a, cube.get(a, v)) for a, v in cap_task('add/bare_add_c32_16.rknn', 0)]
    write('f2_dpu_add.bin', [0x81, 1, 0xc0], [blob(upload), blob([tuple(w) for w in conv]), blob(ad)])
    # the same with the Add's second operand the harness's constant k (first byte bit 4)
    write('f2_dpu_addconst.bin', [0x91, 1, 0xc0],
          [blob(upload), blob([tuple(w) for w in conv]), blob(ad)])

# yolov10n's attention forms on rk3566's words (runtime/emu/emu_view.c): the conv of
# task 221, then the Split of its output viewed as a batch of two (cv [2,32,20,20],
# the task-less Reshape): one DPU-only copy per image and half, h0 requantized (BS add
# of -5, OUT_CVT 8192 / 2^14 - 5), h1 unchanged, each words of yolov8n's Split copies
# (FEATURE_MODE 0x109, RDMA mode 0x4001, EW 0x383, BN 0x53, BS 0x58 or 0x53) with a
# cube of 20 x 20 x 16 and surfaces of 3200 bytes; view_copy.bin: the Reshape's own
# copy task (cube 20 x 20 x 64), its input's bytes whole.
def copy(src, dst, c, add=None, cvt=(1, 0, 0)):
    w = {0x400c: 0x109, 0x4010: 0, 0x5044: 0x4001, 0x4070: 0x383, 0x4060: 0x53,
         0x4040: 0x58 if add is not None else 0x53, 0x4044: (add or 0) & 0xffffffff,
         0x4084: cvt[0], 0x4088: cvt[1], 0x4080: cvt[2] & 0xffffffff, 0x4030: 19, 0x4034: 19,
         0x403c: (c - 1) | (c - 1) << 16, 0x5018: src, 0x4020: dst, 0x500c: 19, 0x5010: 19,
         0x5014: c - 1, 0x4024: 3200, 0x40c0: 3200, 0x4078: 1, 0x5034: 1}
    return blob(w)


rq = dict(add=-5, cvt=(8192, 14, -5))
write('view_split.bin', [0, 0xf0, 0xf0, 0xf0, 0xf0, 0, 0, 0],
      [blob(own(221)), copy(0, 0, 16, **rq), copy(12800, 6400, 16, **rq),
       copy(6400, 0, 16), copy(19200, 6400, 16)])
write('view_copy.bin', [0, 0xe0, 0, 0, 0, 0, 0, 0], [blob(own(221)), copy(0, 0, 64)])

# rk3588's depthwise LUT conv and DPU_BS_OW_OP conv (emu_dw_rk3588.c, emu_conv.c), with
# a fourth argument: boundarybitlabs/rknpu2-rs's mobilenet_v2.rknn (Apache-2.0,
# crates/rknpu2/tests/fixtures). Its first 3x3 depthwise task and first 1x1 conv task,
# their plane words changed to the graph's 64 channels of 20 x 20 (first byte 0x20:
# rk3588's map, nodes 0 depthwise, 1 conv); the depthwise one turned into the LUT form
# (BN 0x20040 with multiplier 22214 / 2^16, EW 0x302, DATA_FORMAT 0x40e0, the LUT
# registers of docs/rknn-format.md) after an upload task of a swish table computed here;
# the conv into the OW_OP form (BS_OW_CFG 0x124, OW_OP 0x80, BS 0x20150, BRDMA 2).
if len(sys.argv) > 4 and sys.argv[4]:
    import math
    mb = sys.argv[4]
    mts, mraw = inspect_tasks(mb)
    dwt = next(t for t in mts if t['op'] == 'depthwise' and t['stride_x'] == 1)
    cvt = next(t for t in mts if t['op'] == 'conv' and t['kernel_w'] == 1)
    plane = {0x1020: 0x140014, 0x1024: 0x3f0040, 0x1028: 20, 0x102c: 400, 0x1084: 0x140014,
             0x1088: 0x40, 0x3014: 0x130013, 0x3018: 0x3f, 0x4030: 19, 0x4034: 19,
             0x403c: 0x3f003f, 0x4058: 0x3f, 0x405c: 0x130013, 0x500c: 19, 0x5010: 19,
             0x5014: 0x3f, 0x1070: 0, 0x4020: 0, 0x1110: 0, 0x5020: 0}
    lut = {0x4060: 0x20040, 0x4064: 0, 0x4068: 0x56c61000, 0x406c: 0, 0x4070: 0x302,
           0x4010: 0x40e0, 0x4108: 0x68, 0x410c: 0x50500, 0x4110: 0xffffc000, 0x4114: 0,
           0x4118: 0, 0x411c: 0x4000, 0x4120: 0, 0x4124: 0, 0x4128: 0x40320000, 0x412c: 0x1a0}
    dw = [(a, lut.get(a, plane.get(a, v))) for a, v in entries(mraw, dwt)]
    dw = [(a, {0x1030: 576, 0x1034: 576}.get(a, v)) for a, v in dw]
    swish = lambda x: x / (1 + math.exp(-x))
    up = [(0x400c, 0x1e5), (0x4030, 0), (0x4034, 0), (0x403c, 0xf000f), (0x4100, 0x20000)]
    up += [(0x4104, round(4096 * swish(-8 + 8 * i / 512)) & 0xffffffff) for i in range(513)]
    up += [(0x4100, 0x30000)] + [(0x4104, round(4096 * swish(8 * i / 512))) for i in range(513)]
    ow = {0x4050: 0x124, 0x4054: 0x80, 0x4040: 0x20150, 0x4048: 0, 0x4010: 0, 0x501c: 2,
          0x1030: 4096, 0x1034: 64, 0x1038: 0x1010040}
    cv = [(a, ow.get(a, plane.get(a, v))) for a, v in entries(mraw, cvt)]
    write('r88_dw_lut.bin', [0x20, 0, 1, 1, 1, 1, 1, 1], [blob(up), blob(dw)])
    write('r88_conv_owop.bin', [0x21, 1, 1, 1, 1, 1, 1, 1], [blob(cv)])

# rk3588's bilinear Resize (emu_resize_rk3588.c), with a fifth argument: the SDK's
# pp_human_segv2_custom_argmax.rknn for RK3588 (airockchip/rknn-toolkit2,
# rknpu2/examples/rknn_custom_op_demo/rknn_custom_gpu_op_demo/model/RK3588). Its
# Resize.0 tasks 32 to 40 as they are (five copies, four depthwise phases; first byte
# 0x33: rk3588's map, the linear Resize, node 3), each address register moved to an
# entry whose index mod 8 the harness's address patches give its tensor (LINEAR_T),
# repeated writes of DPU 0x4004 (its value in every task) filling the gaps; the last
# two phases (17 writes each, the rest left by tasks 37 and 38 of their register
# group) after those tasks' words, as the harness decodes a task from its own writes;
# r88_resize_linear_owcfg.bin: the phases' BS_OW_CFG that of a depthwise conv (0x36d).
if len(sys.argv) > 5:
    pp = sys.argv[5]
    pts, praw = inspect_tasks(pp)
    R, E, S, LW, LB = 0, (1, 5, 6, 7), 2, 3, 4

    def place(tasks, owcfg=None):
        out, pos = [], 0
        for words, want in tasks:
            ent = []
            for a, v in words:
                if a == 0x4050 and owcfg is not None:
                    v = owcfg
                if a in want:
                    slots = want[a] if isinstance(want[a], tuple) else (want[a],)
                    while (pos + len(ent)) % 8 not in slots:
                        ent.append((0x4004, 0xe))
                ent.append((a, v))
            out.append(blob(ent))
            pos += len(ent) + 1   # the separator is an entry too
        return out
    rs = [entries(praw, pts[i]) for i in range(32, 41)]
    rs[7], rs[8] = rs[5] + rs[7], rs[6] + rs[8]
    plan = [(rs[0], {0x5018: R, 0x4020: E})] + [(w, {0x5018: E, 0x4020: E}) for w in rs[1:5]] + \
           [(w, {0x1070: E, 0x1110: LW, 0x4020: S, 0x5020: LB}) for w in rs[5:]]
    write('r88_resize_linear.bin', [0x33] * 8, place(plan))
    write('r88_resize_linear_owcfg.bin', [0x33] * 8, place(plan, 0x36d))

# the attention of the Split's halves (node byte 0xd8: computed in float64), its one
# task's words any (they are not decoded)
write('view_attn.bin', [0, 0xf0, 0xf0, 0xf0, 0xf0, 0xd8, 0, 0],
      [blob(own(221)), copy(0, 0, 16, **rq), copy(12800, 6400, 16, **rq),
       copy(6400, 0, 16), copy(19200, 6400, 16), copy(0, 0, 16)])
