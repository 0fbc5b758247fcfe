#!/usr/bin/env python3
"""Writes the seeds of tests/fuzz/fuzz_emu_fb.c into this folder.

Usage: make_seeds.py BUILD_DIR SAMPLES_DIR
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
path = os.path.join(samples, 'yolov8n.rk3566.rknn')
meta = json.loads(subprocess.check_output([os.path.join(build, 'rknn-trace'), 'inspect', path,
                                           '--tasks', '--json']))['npu_tasks']['tasks']
raw = open(path, 'rb').read()


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
