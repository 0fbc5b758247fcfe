#!/usr/bin/python3
"""tests/compare/make_variant.py IN.onnx OUT.onnx

A second variant of a model for comparisons across surfaces: IN with a Softmax
(axis 1) appended to its first graph output, which becomes the graph output
"<output>_softmax". The file is edited on the protobuf wire (field numbers
from onnx.proto: ModelProto.graph 7, GraphProto.node 1 and output 12,
ValueInfoProto.name 1), so every other byte of IN is kept."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "quant"))
from make_qdq import f_bytes, node  # noqa: E402


def fields(b):
    """(field, wire type, raw bytes of the whole field, payload) of one message"""
    i, out = 0, []

    def varint():
        nonlocal i
        v = s = 0
        while True:
            c = b[i]
            i += 1
            v |= (c & 0x7f) << s
            s += 7
            if c < 0x80:
                return v
    while i < len(b):
        start = i
        k = varint()
        f, wt = k >> 3, k & 7
        if wt == 0:
            v = varint()
        elif wt == 2:
            n = varint()
            v = b[i:i + n]
            i += n
        elif wt == 5:
            v = b[i:i + 4]
            i += 4
        elif wt == 1:
            v = b[i:i + 8]
            i += 8
        else:
            raise ValueError("wire type %d" % wt)
        out.append((f, wt, b[start:i], v))
    return out


def main():
    src, dst = sys.argv[1:3]
    model = open(src, "rb").read()
    out_model = b""
    for f, _, raw, v in fields(model):
        if f != 7:
            out_model += raw
            continue
        graph, first = b"", None
        for gf, _, graw, gv in fields(v):
            if gf == 12 and first is None:
                vi = fields(gv)
                first = next(x[3] for x in vi if x[0] == 1).decode()
                new = first + "_softmax"
                gv = f_bytes(1, new) + b"".join(x[2] for x in vi if x[0] != 1)
                graw = f_bytes(12, gv)
            graph += graw
        graph += f_bytes(1, node("Softmax", [first], [first + "_softmax"], "variant_softmax", axis=1))
        out_model += f_bytes(7, graph)
    open(dst, "wb").write(out_model)


if __name__ == "__main__":
    main()
