"""Writes the seeds of tests/fuzz/fuzz_emu_lite.c: small task streams of the
DPU-only forms the RV110x executor understands, built from the register
values docs/rknn-format.md ("Execution on RV110x") describes, on tensors
that fit the target's memory (the file part is the input repeated, the
internal buffer starts at 4096): the two Transpose passes for 1 and 2
surfaces of a 4 x 4 image, a row Concat copy into one surface with the
requantization, a plain copy and a 2x upsample; then broken inputs (empty,
only task separators, all ones, a pass with one word changed).
Input format: byte 0 the enable masks (bit i % 8 set: DPU-only task), then
8-byte RV110x register commands (bits 48..63 target, 16..47 value, 0..15
address), eight 0xff bytes between tasks.

usage: make_seeds.py OUTDIR"""
import os
import struct
import sys

out = sys.argv[1]
SPLIT = b'\xff' * 8


def entry(addr, val):
    target = 0x2001 if addr >= 0x5000 else 0x1001
    return struct.pack('<Q', target << 48 | (val & 0xffffffff) << 16 | addr)


# what every DPU-only task of the file writes alike: BS/BN/EW bypassed,
# identity output conversion, the saturation bounds left open
COMMON = {0x4040: 0x53, 0x4060: 0x13, 0x4070: 0x10041c1, 0x4084: 0x10001, 0x4088: 0,
          0x4080: 0, 0x4018: 0, 0x401c: 0x7fffffff, 0x4028: 0x7fffffff, 0x402c: 0x7fffffff,
          0x400c: 0x1e5, 0x5048: 0, 0x504c: 0, 0x4038: 0}


def task(**regs):
    r = dict(COMMON)
    r.update({int(k[1:], 16): v for k, v in regs.items()})
    return b''.join(entry(a, v) for a, v in sorted(r.items()))


def cube(prefix_src, w, h, c):
    return {0x500c: w - 1, 0x5010: h - 1, 0x5014: c - 1,
            0x4030: (0x100000 if prefix_src else 0) | (w - 1), 0x4034: h - 1,
            0x403c: (c - 1) * 0x10001}


def pass1(src, dst, pixels, c1):
    r = cube(True, 8, c1, pixels // 2)
    r.update({0x4010: 0x81000004, 0x5044: 0x927889, 0x5048: (pixels // 8 - 1) << 22,
              0x504c: (-(pixels * 16)) & 0xffffffff if c1 > 1 else 0, 0x4024: 16 * c1,
              0x40c0: 128 * c1, 0x4038: 7 * c1 * 0x10001, 0x5018: src, 0x4020: dst})
    return task(**{f'r{a:x}': v for a, v in r.items()})


def pass2(src, dst, width, height, c1, cout):
    r = cube(True, c1, width, 16 * height)
    gran = 2 if cout % 8 == 0 else 1
    r.update({0x4010: 0x800000, 0x5044: 0x907809, 0x400c: 0x1e5 | (width * height * cout // 16) << 9
              | 1 << 25 | gran << 28, 0x4024: 0, 0x40c0: 0, 0x5018: src, 0x4020: dst})
    return task(**{f'r{a:x}': v for a, v in r.items()})


def copy(src, dst, w, h, c, dsurf, notch=0, in_off=0, scale=1, shift=0, zp=0):
    r = cube(False, w, h, c)
    r.update({0x4010: 0x800000, 0x5044: 0x907809, 0x4024: dsurf, 0x40c0: dsurf, 0x4038: notch,
              0x4018: in_off, 0x4084: 0x10000 | scale, 0x4088: shift, 0x4080: zp,
              0x5018: src, 0x4020: dst})
    return task(**{f'r{a:x}': v for a, v in r.items()})


def upsample(src, dst, w, h):
    r = cube(False, 2 * w, h, 16)
    r.update({0x500c: w - 1, 0x4010: 0x1000000, 0x5044: 0x927809, 0x5048: 0x1249,
              0x4024: 2 * w * 16, 0x40c0: 4 * w * h * 16, 0x4040: 0x100012, 0x5018: src, 0x4020: dst})
    return task(**{f'r{a:x}': v for a, v in r.items()})


def write(name, mask, tasks):
    open(os.path.join(out, name), 'wb').write(bytes([mask]) + SPLIT.join(tasks))


B = 4096  # the internal buffer
write('transpose_c8.bin', 0xff, [pass1(0, B, 16, 1), pass2(B, B + 4096, 4, 4, 1, 8)])
write('transpose_c4.bin', 0xff, [pass1(0, B, 16, 1), pass2(B, B + 4096, 4, 4, 1, 4)])
write('transpose_c20.bin', 0xff, [pass1(0, B, 16, 2), pass2(B, B + 4096, 4, 4, 2, 20)])
write('concat_rows.bin', 0xff, [copy(0, B, 8, 1, 16, 16 * 20, notch=12 * 0x10001, in_off=-6,
                                      scale=0x7f15, shift=15, zp=-123),
                                 copy(128, B + 128, 4, 1, 16, 16 * 20, notch=16 * 0x10001)])
write('copy_native.bin', 0xff, [copy(0, B, 4, 4, 32, 4 * 4 * 16), copy(B, B + 1024, 4, 4, 16, 256)])
write('upsample.bin', 0xff, [upsample(0, B, 4, 4), copy(B, B + 2048, 4, 4, 16, 256)])
bad = bytearray(open(os.path.join(out, 'transpose_c8.bin'), 'rb').read())
bad[1 + 8 * 3 + 2] ^= 0x01  # one value bit of one word
open(os.path.join(out, 'broken_one_bit.bin'), 'wb').write(bad)
open(os.path.join(out, 'broken_empty.bin'), 'wb').write(b'')
open(os.path.join(out, 'broken_splits_only.bin'), 'wb').write(b'\xff' + SPLIT * 4)
open(os.path.join(out, 'broken_all_ones.bin'), 'wb').write(b'\xff' * 257)
