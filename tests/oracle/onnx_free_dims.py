#!/usr/bin/env python3
"""tests/oracle/onnx_free_dims.py IN.onnx OUT.onnx AXIS=NAME... — the same model with
the given axes of every graph input and output made symbolic (dim_param NAME), so that
onnxruntime runs a static model at the other shapes of a build's shape set. Edits the
protobuf wire format directly (no onnx package): ModelProto.graph = 7, GraphProto
input = 11 / output = 12, ValueInfoProto.type = 2, TypeProto.tensor_type = 1,
Tensor.shape = 2, TensorShapeProto.dim = 1, Dimension.dim_param = 2."""
import sys


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def enc(v):
    o = bytearray()
    while True:
        c, v = v & 0x7F, v >> 7
        o.append(c | 0x80 if v else c)
        if not v:
            return bytes(o)


def fields(b):
    i = 0
    while i < len(b):
        k, i = varint(b, i)
        f, t = k >> 3, k & 7
        if t == 0:
            _, j = varint(b, i)
        elif t == 2:
            n, i = varint(b, i)
            j = i + n
        elif t in (1, 5):
            j = i + (8 if t == 1 else 4)
        else:
            raise ValueError("wire type %d" % t)
        yield f, t, b[i:j]
        i = j


def build(fs):
    o = bytearray()
    for f, t, v in fs:
        o += enc(f << 3 | t) + ((enc(len(v)) + v) if t == 2 else v)
    return bytes(o)


def sub(b, path, fn):
    if not path:
        return fn(b)
    return build([(f, t, sub(v, path[1:], fn) if t == 2 and f == path[0] else v)
                  for f, t, v in fields(b)])


def main():
    src, dst = sys.argv[1:3]
    axes = {int(a.split("=")[0]): a.split("=")[1].encode() for a in sys.argv[3:]}

    def free(shape):
        dims = [v for f, t, v in fields(shape) if f == 1]
        return build([(1, 2, build([(2, 2, axes[k])]) if k in axes else d)
                      for k, d in enumerate(dims)])

    m = open(src, "rb").read()
    for io in (11, 12):
        m = sub(m, [7, io, 2, 1, 2], free)
    open(dst, "wb").write(m)


main()
