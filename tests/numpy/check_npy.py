#!/usr/bin/python3
"""numpy side of the .npy cross-check (tests/numpy/run.sh).

  check_npy.py check DIR   load what tests/tools/npy_tool wrote into DIR with numpy
                           and check dtype, shape and every byte
  check_npy.py write DIR   write files with numpy (C and Fortran order, big-endian,
                           format 1.0/2.0/3.0, and some that must be refused) plus
                           DIR/manifest.txt for `npy_tool read DIR`
  check_npy.py corpus DIR  (re)write the fuzz seed corpus tests/fuzz/corpus/npy:
                           small numpy-written files and broken variants of them

Contents follow the rule of npy_tool.c: element i (C order) holds the low bytes of
mix(i); bool holds mix(i) >> 63. Prints "N passed, N failed"."""
import json
import os
import sys

import numpy as np

DTYPES = ["float32", "float16", "float64", "int8", "int16", "int32", "int64",
          "uint8", "uint16", "uint32", "uint64", "bool"]
SHAPES = [(), (0,), (7,), (2, 3, 4), (1, 1, 5, 1, 2), (3, 0, 2)]
MASK = (1 << 64) - 1

passed = 0
failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what, file=sys.stderr)


def mix(i):
    h = ((i + 1) * 0x9E3779B97F4A7C15) & MASK
    return h ^ (h >> 29)


def expected(dtype, shape):
    """The array (native byte order, C order) that the shared rule defines."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if dt == np.bool_:
        raw = bytes((mix(i) >> 63) & 1 for i in range(n))
    else:
        raw = b"".join(mix(i).to_bytes(8, "little")[:dt.itemsize] for i in range(n))
    return np.frombuffer(raw, dtype=dt.newbyteorder("<")).reshape(shape)


def same(a, want):
    return (a.dtype == want.dtype and a.shape == want.shape
            and np.ascontiguousarray(a).tobytes() == want.tobytes())


def check_c(d):
    for dt in DTYPES:
        for s, shape in enumerate(SHAPES):
            f = os.path.join(d, "bits_%s_%d.npy" % (dt, s))
            try:
                a = np.load(f)
            except Exception as e:  # noqa: BLE001 - any failure is a failed check
                check(False, "%s: numpy cannot load it: %s" % (f, e))
                continue
            want = expected(dt, shape)
            check(a.dtype == np.dtype(dt), "%s: dtype %s" % (f, a.dtype))
            check(a.shape == shape, "%s: shape %s want %s" % (f, a.shape, shape))
            check(same(a, want), "%s: contents" % f)
            with open(f, "rb") as fh:
                head = fh.read(10)
                hlen = head[8] | head[9] << 8
            check(head[6:8] == b"\x01\x00" and (10 + hlen) % 64 == 0,
                  "%s: version 1.0, 64-byte aligned data" % f)

    for name, dt, ver in (("v2_long_int32", "int32", 2), ("v3_float64", "float64", 3),
                          ("v2_uint16", "uint16", 2)):
        f = os.path.join(d, name + ".npy")
        with open(f, "rb") as fh:
            check(fh.read(8)[6] == ver, "%s: version %d" % (f, ver))
            fh.seek(0)
            major, minor = np.lib.format.read_magic(fh)
            check((major, minor) == (ver, 0), "%s: read_magic %s" % (f, (major, minor)))
        # numpy refuses headers above 10000 bytes unless told
        a = np.load(f, max_header_size=1 << 20)
        check(same(a, expected(dt, (3, 5))), "%s: contents" % f)

    dd = os.path.join(d, "dump")
    with open(os.path.join(dd, "index.json")) as fh:
        index = json.load(fh)
    check(isinstance(index, list) and len(index) == 4, "index: 4 entries")
    want = [(-1, None, None, "input:0", "float32"), (0, "node", "Op", "conv/out", "float16"),
            (1, "node", "Op", "conv/out", "int64"), (2, "node", "Op", "weird name!*", "bool")]
    files = set()
    for e, (layer, node, op, name, dt) in zip(index, want):
        check(set(e) == {"layer", "node", "op", "name", "file", "shape", "dtype"},
              "index keys %s" % sorted(e))
        check((e["layer"], e["node"], e["op"], e["name"], e["dtype"]) ==
              (layer, node, op, name, dt), "index entry %s" % e)
        check(e["shape"] == [3, 5], "index shape %s" % e["shape"])
        check("/" not in e["file"] and e["file"].endswith(".npy"), "file %s" % e["file"])
        files.add(e["file"])
        a = np.load(os.path.join(dd, e["file"]))
        check(same(a, expected(dt, (3, 5))), "dump %s contents" % e["file"])
    check(len(files) == 4, "dump file names are unique")


def write_np(d):
    os.makedirs(d, exist_ok=True)
    lines = []

    def add(name, arr, logical):
        path = os.path.join(d, name)
        np.save(path, arr)
        lines.append("%s %s %d %s" % (name, logical.dtype.name, logical.ndim,
                                      " ".join(str(x) for x in logical.shape)))

    for dt in DTYPES:
        for s, shape in enumerate(SHAPES):
            a = expected(dt, shape)
            add("c_%s_%d.npy" % (dt, s), a, a)
            if len(shape) >= 2:
                f = np.asfortranarray(a)
                assert f.flags.f_contiguous and not f.flags.c_contiguous or 0 in shape \
                    or sum(x > 1 for x in shape) <= 1
                add("f_%s_%d.npy" % (dt, s), f, a)
            if np.dtype(dt).itemsize > 1:
                be = a.byteswap().view(a.dtype.newbyteorder(">"))
                assert be.dtype.byteorder == ">"
                add("be_%s_%d.npy" % (dt, s), be, a)
                if len(shape) >= 2:
                    add("bef_%s_%d.npy" % (dt, s), np.asfortranarray(be), a)

    for ver in ((1, 0), (2, 0), (3, 0)):
        a = expected("int16", (4, 6))
        name = "ver_%d_%d.npy" % ver
        with open(os.path.join(d, name), "wb") as fh:
            np.lib.format.write_array(fh, a, version=ver)
        lines.append("%s int16 2 4 6" % name)

    # valid .npy files that hold what the project does not handle
    np.save(os.path.join(d, "refuse_complex.npy"), np.zeros(3, np.complex64))
    np.save(os.path.join(d, "refuse_struct.npy"), np.zeros(3, dtype=[("a", "<f4"), ("b", "<i2")]))
    np.save(os.path.join(d, "refuse_str.npy"), np.array(["ab", "c"]))
    np.save(os.path.join(d, "refuse_object.npy"), np.array([1, None], dtype=object),
            allow_pickle=True)
    np.save(os.path.join(d, "refuse_datetime.npy"), np.array(["2020-01-01"], dtype="M8[D]"))
    for name in ("complex", "struct", "str", "object", "datetime"):
        lines.append("refuse_%s.npy REFUSE" % name)
    # broken copies of a good file
    with open(os.path.join(d, "c_float32_3.npy"), "rb") as fh:
        good = fh.read()
    for name, data in (("cut_data.npy", good[:-1]), ("cut_header.npy", good[:40]),
                       ("extra_data.npy", good + b"\0"), ("bad_magic.npy", b"\x93NUMPX" + good[6:]),
                       ("empty.npy", b"")):
        with open(os.path.join(d, name), "wb") as fh:
            fh.write(data)
        lines.append("%s REFUSE" % name)

    with open(os.path.join(d, "manifest.txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    check(len(lines) > 100, "manifest has %d entries" % len(lines))


def write_corpus(d):
    os.makedirs(d, exist_ok=True)
    good = {}

    def save(name, arr, **kw):
        path = os.path.join(d, name)
        with open(path, "wb") as fh:
            np.lib.format.write_array(fh, arr, **kw)
        with open(path, "rb") as fh:
            good[name] = fh.read()

    save("f32_2x3.npy", expected("float32", (2, 3)))
    save("f16_7.npy", expected("float16", (7,)))
    save("f64_scalar.npy", expected("float64", ()))
    save("i8_1x1x5x1x2.npy", expected("int8", (1, 1, 5, 1, 2)))
    save("i64_empty_3x0x2.npy", expected("int64", (3, 0, 2)))
    save("u16_fortran_3x4.npy", np.asfortranarray(expected("uint16", (3, 4))))
    save("i32_bigendian_4.npy", expected("int32", (4,)).astype(">i4"))
    save("u64_bigendian_fortran_2x2x2.npy",
         np.asfortranarray(expected("uint64", (2, 2, 2)).astype(">u8")))
    save("bool_9.npy", expected("bool", (9,)))
    save("u8_v2_2x2.npy", expected("uint8", (2, 2)), version=(2, 0))
    save("u32_v3_3.npy", expected("uint32", (3,)), version=(3, 0))
    save("c64_refused.npy", np.zeros(2, np.complex64))
    save("struct_refused.npy", np.zeros(2, dtype=[("a", "<f4")]))
    src = good["f32_2x3.npy"]
    hdr_end = src.index(b"\n") + 1
    header = src[10:hdr_end].decode("latin1")

    def broken(name, data):
        with open(os.path.join(d, "broken_" + name + ".npy"), "wb") as fh:
            fh.write(data)

    def with_header(text, data=src[hdr_end:], major=1):
        text = text.encode("latin1")
        ln = len(text).to_bytes(2 if major == 1 else 4, "little")
        return b"\x93NUMPY" + bytes([major, 0]) + ln + text + data

    broken("empty", b"")
    broken("magic_only", src[:6])
    broken("cut_header", src[:50])
    broken("cut_data", src[:-3])
    broken("extra_data", src + b"\0\0\0\0")
    broken("bad_magic", b"\x93NUMPZ" + src[6:])
    broken("version_9", src[:6] + b"\x09\x00" + src[8:])
    broken("hlen_huge", src[:8] + b"\xff\xff" + src[10:])
    broken("v2_hlen_huge", b"\x93NUMPY\x02\x00\xff\xff\xff\x7f" + src[10:])
    broken("shape_list", with_header(header.replace("(2, 3)", "[2, 3]")))
    broken("shape_negative", with_header(header.replace("(2, 3)", "(-2, 3)")))
    broken("shape_overflow", with_header(header.replace("(2, 3)", "(4294967296, 4294967296, 4)")))
    broken("shape_int", with_header(header.replace("(2, 3)", "(6)")))
    broken("shape_33dims", with_header(header.replace("(2, 3)", "(" + "1, " * 32 + "6)")))
    broken("descr_bad", with_header(header.replace("<f4", "<f3")))
    broken("descr_pipe_f4", with_header(header.replace("<f4", "|f4")))
    broken("fortran_int", with_header(header.replace("False", "0")))
    broken("missing_key", with_header(header.replace("'fortran_order': False, ", "")))
    broken("extra_key", with_header(header.replace("}", "'x': 1, }")))
    broken("dup_key", with_header(header.replace("{", "{'descr': '<f4', ")))
    broken("unterminated", with_header(header.replace("}", " ")))
    broken("nul_in_header", with_header(header.replace("'descr'", "'de\0cr'")))
    broken("fortran_cut", good["u16_fortran_3x4.npy"][:-1])
    broken("bigendian_cut", good["i32_bigendian_4.npy"][:-2])
    broken("v2_cut", good["u8_v2_2x2.npy"][:11])

    # the same target parses dump-folder indexes (index.json)
    entries = [{"layer": -1, "node": None, "op": None, "name": "input:0",
                "file": "input_input_0.npy", "shape": [1, 3, 8, 8], "dtype": "float32"},
               {"layer": 0, "node": "conv/1", "op": "Conv", "name": "conv/out\u00e9\n",
                "file": "0000_Conv_conv_out.npy", "shape": [1, 4, 8, 8], "dtype": "float16"},
               {"layer": 1, "node": "r", "op": "Relu", "name": "y", "file": "0001_Relu_y.npy",
                "shape": [], "dtype": "bool", "extra": {"a": [1, 2.5, None, True]}}]
    text = json.dumps(entries)
    for name, data in (("index_dump", text), ("index_pretty", json.dumps(entries, indent=1)),
                       ("index_ascii", json.dumps(entries, ensure_ascii=True)),
                       ("index_empty", "[]"), ("broken_index_cut", text[:100]),
                       ("broken_index_dotdot", text.replace("0001_Relu_y", "../y")),
                       ("broken_index_dtype", text.replace("float16", "complex64")),
                       ("broken_index_nested", "[" * 100 + "]" * 100)):
        with open(os.path.join(d, name + ".json"), "w") as fh:
            fh.write(data)
    check(len(os.listdir(d)) >= 30, "corpus files")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "corpus":
        write_corpus(sys.argv[2])
        print("%d passed, %d failed" % (passed, failed))
        return 1 if failed else 0
    if len(sys.argv) != 3 or sys.argv[1] not in ("check", "write"):
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "check":
        check_c(sys.argv[2])
    else:
        write_np(sys.argv[2])
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
