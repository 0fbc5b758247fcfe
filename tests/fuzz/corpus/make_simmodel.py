#!/usr/bin/python3
"""tests/fuzz/corpus/make_simmodel.py — broken simulator containers for the
fuzz_simmodel seed corpus, derived from the real ones in corpus/simmodel/
(made by `rknn-trace build`, see corpus/simmodel/README.md). Layout:
docs/sim-model-format.md. Deterministic (fixed seed); rerun to regenerate."""
import os
import random
import struct

D = os.path.join(os.path.dirname(os.path.abspath(__file__)), "simmodel")
HEADER, ENTRY = 16, 24


def table(buf):
    n = struct.unpack_from("<I", buf, 12)[0]
    return [(HEADER + i * ENTRY,) + struct.unpack_from("<8sQQ", buf, HEADER + i * ENTRY)
            for i in range(n)]


def entry(buf, tag):
    for pos, t, off, ln in table(buf):
        if t.rstrip(b"\0") == tag:
            return pos, off, ln
    raise KeyError(tag)


def put(name, data):
    with open(os.path.join(D, "broken_" + name + ".rknn"), "wb") as f:
        f.write(bytes(data))


def main():
    src = open(os.path.join(D, "mnist_i8.rknn"), "rb").read()
    rnd = random.Random(4)
    put("cut_header", src[:12])
    put("cut_table", src[:HEADER + ENTRY + 5])
    put("cut_payload", src[:len(src) // 2])
    put("magic_only", src[:8])
    for name, n in (("zero_sections", 0), ("65_sections", 65), ("many_sections", 1 << 30)):
        b = bytearray(src); struct.pack_into("<I", b, 12, n); put(name, b)
    b = bytearray(src); struct.pack_into("<I", b, 8, 2); put("version_2", b)
    b = bytearray(src); struct.pack_into("<I", b, 8, 0); put("version_0", b)
    pos, off, ln = entry(src, b"ONNX")
    b = bytearray(src); struct.pack_into("<Q", b, pos + 8, len(src) + 8); put("onnx_past_end", b)
    b = bytearray(src); struct.pack_into("<Q", b, pos + 16, (1 << 64) - 1); put("onnx_huge_len", b)
    b = bytearray(src); struct.pack_into("<Q", b, pos + 8, 4); put("onnx_in_table", b)
    b = bytearray(src); b[pos:pos + 8] = b"ONNY\0\0\0\0"; put("no_onnx", b)
    b = bytearray(src); b[pos:pos + 8] = b"\0" * 8; put("empty_tag", b)
    b = bytearray(src); b[pos:pos + 8] = b"ONNX\0ab\0"; put("tag_garbage", b)
    b = bytearray(src); struct.pack_into("<Q", b, pos + 16, ln // 3); put("onnx_short", b)
    for i in range(40):  # bytes of the ONNX payload scrambled
        b[off + rnd.randrange(ln // 3)] ^= 1 << rnd.randrange(8)
    put("onnx_flipped", b)
    mpos, moff, mln = entry(src, b"META")
    b = bytearray(src); b[mpos:mpos + 8] = b"ONNX\0\0\0\0"; put("duplicate_tag", b)
    meta = src[moff:moff + mln]
    cut = meta.find(b'"target":"') + 12
    b = bytearray(src); struct.pack_into("<Q", b, mpos + 16, cut); put("meta_cut_string", b)
    qpos, qoff, qln = entry(src, b"QCFG")
    b = bytearray(src)
    for i in range(60):
        b[qoff + rnd.randrange(qln)] = rnd.choice(b" :\n-'\"#[]{}0123456789.e")
    put("qcfg_scrambled", b)
    for k in range(3):  # random bit flips anywhere
        b = bytearray(src)
        for i in range(8):
            b[rnd.randrange(len(b))] ^= 1 << rnd.randrange(8)
        put("bitflip_%d" % k, b)
    b = bytearray(src); b[HEADER:HEADER] = bytes(ENTRY); put("table_shifted", b)


if __name__ == "__main__":
    main()
