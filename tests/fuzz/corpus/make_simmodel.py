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
    meta_variants()


def rebuild(src, new):
    """The container src with some sections' payloads replaced ({tag: bytes})."""
    secs = [(t.rstrip(b"\0"), src[off:off + ln]) for _, t, off, ln in table(src)]
    secs = [(t, new.get(t, p)) for t, p in secs]
    hdr = HEADER + ENTRY * len(secs)
    at = (hdr + 7) & ~7
    out = bytearray(src[:8]) + struct.pack("<II", 1, len(secs))
    body = bytearray()
    for t, p in secs:
        out += struct.pack("<8sQQ", t, at + len(body), len(p))
        body += p + bytes(((len(p) + 7) & ~7) - len(p))
    return out + bytes(at - hdr) + body


def meta_variants():
    """Build options that rknn_init must refuse (relu4d_sets.rknn: input X [1,2,H,W],
    sets [1,2,4,6] and [1,2,8,10], mean/std/reorder of two channels)."""
    src = open(os.path.join(D, "relu4d_sets.rknn"), "rb").read()
    _, off, ln = entry(src, b"META")
    meta = src[off:off + ln]
    sets = meta[meta.index(b'"dynamic_input":'):]
    sets = sets[:sets.index(b"]]]") + 3]
    ins = meta[meta.index(b'"inputs":'):]
    ins = ins[:ins.index(b"}]") + 2]
    def put_meta(name, m):
        put("meta_" + name, rebuild(src, {b"META": m}))
    def put_sets(name, text):
        put_meta(name, meta.replace(sets, b'"dynamic_input":' + text))
    put_sets("set_count", b"[[[1,2,4,6]],[[1,2,8,10],[1,2,8,10]]]")
    put_sets("set_rank", b"[[[1,2,4,6]],[[1,2,8]]]")
    put_sets("set_zero", b"[[[1,2,0,6]]]")
    put_sets("set_huge", b"[[[1,2,4,99999999999]]]")
    put_sets("set_float", b"[[[1,2,4.5,6]]]")
    put_sets("set_empty", b"[]")
    put_sets("set_not_list", b'"1,2,4,6"')
    put_sets("set_rank9", b"[[[1,2,3,4,5,6,7,8,9]]]")
    put_sets("set_many", b"[" + b",".join([b"[[1,2,4,6]]"] * 513) + b"]")
    put_sets("set_fixed_dim", b"[[[1,3,4,6]]]")
    put_sets("set_two_inputs", b"[[[1,2,4,6],[1,2,4,6]]]")
    put_meta("std_zero", meta.replace(b'"std":[2,4]', b'"std":[0,4]'))
    put_meta("reorder_dup", meta.replace(b'"reorder":[1,0]', b'"reorder":[1,1]'))
    put_meta("reorder_big", meta.replace(b'"reorder":[1,0]', b'"reorder":[4,0]'))
    put_meta("mean_long", meta.replace(b'"mean":[10,20]', b'"mean":[1,2,3,4,5]'))
    put_meta("input_name", meta.replace(b'"name":"X"', b'"name":"Y"'))
    put_meta("inputs_obj", meta.replace(ins, b'"inputs":{"X":1}'))
    put_meta("not_json", meta[:len(meta) // 2])
    put_meta("deep", b"[" * 5000 + b"]" * 5000)


if __name__ == "__main__":
    main()
