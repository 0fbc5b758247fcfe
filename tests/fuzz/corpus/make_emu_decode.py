#!/usr/bin/env python3
"""Writes the seed corpus of tests/fuzz/fuzz_emu_decode.c into emu_decode/.

Usage: make_emu_decode.py BUILD_DIR SAMPLES_DIR
Real task streams come from the redistributable sample files only (BSD:
the rknpu2 *.tk134 files; Apache-2.0: the model-zoo yolov8n), located with
`rknn-trace inspect --tasks --json` (file_offset, writes). Input format of the
target: byte 0 register map (0 none, 1 rk3588, 2 rk356x, 3 rv110x), byte 1
entry format (0 target/value/address, 1 value/address), then 8-byte entries;
eight 0xff bytes end a task."""
import json, os, struct, subprocess, sys

build, samples = sys.argv[1:3]
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'emu_decode')
os.makedirs(out, exist_ok=True)
SPLIT = b'\xff' * 8

def tasks(name):
    path = os.path.join(samples, name)
    d = json.loads(subprocess.check_output([os.path.join(build, 'rknn-trace'), 'inspect', path,
                                            '--tasks', '--json']))
    raw = open(path, 'rb').read()
    return [raw[t['file_offset']: t['file_offset'] + 8 * t['writes']] for t in d['npu_tasks']['tasks']]

def vr_to_tvr(blob, target=0x0201):
    res = b''
    for i in range(0, len(blob) - 7, 8):
        e, = struct.unpack_from('<Q', blob, i)
        reg, val = (e >> 16) & 0xffff, e >> 32
        tgt = {1: 0x0201, 3: 0x0801, 4: 0x1001, 5: 0x2001, 6: 0x4001, 7: 0x8001}.get(reg >> 12, 0x0101)
        res += struct.pack('<Q', tgt << 48 | val << 16 | reg)
    return res

def write(name, data):
    open(os.path.join(out, name), 'wb').write(data)

rk3566 = tasks('multiple_input_demo.rk3566.tk134.rknn')
rk3588 = tasks('multiple_input_demo.rk3588.tk134.rknn')
yolo = tasks('yolov8n.rk3566.rknn')
write('real_rk3566_tk134.bin', bytes([2, 1]) + SPLIT.join(rk3566))
write('real_rk3588_tk134.bin', bytes([1, 1]) + SPLIT.join(rk3588))
write('real_yolov8n_first40.bin', bytes([2, 1]) + SPLIT.join(yolo[:40]))
# the same writes in the target/value/address entries of model-6 and RV110x files
write('tvr_rk3588.bin', bytes([1, 0]) + SPLIT.join(vr_to_tvr(b) for b in rk3588))
write('tvr_rv110x.bin', bytes([3, 0]) + SPLIT.join(vr_to_tvr(b) for b in rk3566[:4]))
write('tvr_unverified_map.bin', bytes([0, 0]) + SPLIT.join(vr_to_tvr(b) for b in rk3566[:2]))
# layout f3 (rv1126b, map 6): rk3566's first two tasks with the pixel conv's
# CNA words of docs/rknn-format.md on the first (mode code 6, channel word,
# kernel bytes, pad pixel, pixel offsets); no rv1126b bytes (its licence)
pixel = b''.join(struct.pack('<Q', 0x0201 << 48 | v << 16 | r) for r, v in (
    (0x100c, 0x2000a006), (0x1020, 0x30), (0x1028, 0x0480000b), (0x1070, 0), (0x1084, 0x00808080)))
f3 = [vr_to_tvr(b) for b in rk3566[:2]]
write('tvr_f3_pixel.bin', bytes([6, 0]) + SPLIT.join([f3[0] + pixel, f3[1]]))
# broken: a task cut inside an entry, every field all ones, registers outside
# every block, only partial tiles (nothing to inherit), empty tasks
write('broken_truncated.bin', bytes([1, 1]) + rk3588[0][:8 * 20 + 3])
allones = b''.join(struct.pack('<Q', 0x0201 << 48 | 0xffffffff << 16 | r)
                   for lo, hi in ((0x1000, 0x1190), (0x3000, 0x3040), (0x4000, 0x4130),
                                  (0x5000, 0x5070), (0x6000, 0x60e0), (0x7000, 0x7040))
                   for r in range(lo, hi, 4))
write('broken_all_ones.bin', bytes([1, 0]) + allones)
write('broken_all_ones_rk356x.bin', bytes([2, 0]) + allones)
write('broken_odd_regs.bin', bytes([1, 0]) + b''.join(
    struct.pack('<Q', 0xffff << 48 | 0xdeadbeef << 16 | r) for r in (0x0001, 0x3333, 0xf008, 0xfffe)))
write('broken_tiles_only.bin', bytes([2, 1]) + SPLIT.join(b for b in rk3566 if len(b) < 400))
write('broken_empty_tasks.bin', bytes([1, 0]) + SPLIT * 5)
write('real_tk2_v2_rk3566.rknn', open(os.path.join(samples, 'multiple_input_demo.rk3566.tk134.rknn'), 'rb').read())
