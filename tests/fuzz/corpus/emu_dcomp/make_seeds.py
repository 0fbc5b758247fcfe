#!/usr/bin/env python3
"""Seeds for tests/fuzz/fuzz_emu_dcomp.c, written by an encoder of the format
docs/rknn-format.md "Weights" describes (this project's own random weights, no
vendor bytes): 9 kernel positions, 3 and 1 input channels, both header kinds,
and broken copies (one bit flipped, truncated, an amount one too small)."""
import os, random

CODE = {0: '00', 1: '10', 2: '111', 3: '110', 4: '011', 5: '0101', 6: '01001', 7: '01000'}
WIDTHS = [7, 6, 0, 5, 4, 3, 2, 1]      # t[0..7], eight distinct of 0..8


def bits_of(v, n):
    return ''.join(str((v >> k) & 1) for k in range(n))


def block(values, base, kind, in_c, lane0):
    s = ''
    k = 0
    while k < len(values):
        d = ((values[k] - base + 128) % 256) - 128
        lane = lane0 + k % 4
        if kind == 0x00 and d < 0:
            mag = -d - 1
        else:
            mag = abs(d)
        t = mag.bit_length() if not (kind == 0x00 and d == -1) else 0
        if d == 0 or (kind == 0x00 and d == -1):
            s += CODE[WIDTHS.index(0)] + ('1' if d else '0')
            k += 1
            if d == 0 and lane >= in_c:          # the rest of the row is base too
                while k % 4:
                    k += 1
            continue
        if kind == 0x11 and d == -128:
            t, mag = 7, 0
        s += CODE[WIDTHS.index(t)] + ('1' if d < 0 else '0')
        if kind == 0x11 and t == 7:
            s += bits_of(mag, 7)
        else:
            s += bits_of(mag - (1 << (t - 1)), t - 1)
        k += 1
    lines = (len(s) + 127) // 128
    s = s.ljust(lines * 128, '0')
    payload = bytes(int(s[i:i + 8][::-1], 2) for i in range(0, len(s), 8))
    w = sum(t << (4 * i) for i, t in enumerate(WIDTHS))
    head = bytes([kind]) + (base & 0xffff).to_bytes(2, 'little') + b'\0' + w.to_bytes(4, 'little')
    head += b'\1\0\2\0\3\0\4\0' if kind == 0x11 else bytes(8)
    body = head + payload
    return body.ljust((len(body) + 63) // 64 * 64, b'\0'), lines


def buffer(rng, positions, in_c, kinds):
    native = [[[0] * 16 for _ in range(8)] for _ in range(positions)]
    for p in range(positions):
        for oc in range(8):
            for ln in range(in_c):
                native[p][oc][ln] = rng.randint(-128, 127)
    out, amounts = b'', []
    for i in range(16):
        g, lane0 = i // 4, 4 * (i % 4)
        vals = [native[p][oc][lane0 + r] for p in range(positions) for oc in (g, g + 4)
                for r in range(4)]
        b, lines = block(vals, 0, kinds[i], in_c, lane0)
        out += b
        amounts.append(lines)
    return out, amounts


def seed(positions, in_c, amounts, buf):
    return bytes([positions - 1, in_c - 1]) + bytes(amounts) + buf


here = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(3)
for name, pos, ic, kinds in [('ic3_sign_magnitude', 9, 3, [0x11] * 16),
                             ('ic1_mixed_kinds', 9, 1, [0x11, 0x00] * 8)]:
    buf, am = buffer(rng, pos, ic, kinds)
    s = seed(pos, ic, am, buf)
    open(os.path.join(here, name + '.bin'), 'wb').write(s)
    if ic == 3:
        flip = bytearray(s)
        flip[18 + 20] ^= 4
        open(os.path.join(here, 'broken_one_bit.bin'), 'wb').write(bytes(flip))
        open(os.path.join(here, 'broken_truncated.bin'), 'wb').write(s[:-40])
        short = bytearray(s)
        short[2] -= 1
        open(os.path.join(here, 'broken_amount.bin'), 'wb').write(bytes(short))
