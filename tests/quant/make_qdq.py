#!/usr/bin/python3
"""tests/quant/make_qdq.py OUTDIR

Writes two small pre-quantized ONNX models (no onnx package here: ModelProto
is encoded by hand, field numbers from onnx.proto) and an input:
  qdq.onnx  QDQ format as onnxruntime's quantizer / QAT export write it:
            QuantizeLinear/DequantizeLinear pairs on activations (uint8),
            int8 weights through DequantizeLinear (per channel, axis 0, and per
            tensor), fp32 Conv/Relu/GlobalAveragePool/Flatten/MatMul/Add.
  qdq_float.onnx  the same graph dequantized: no Q/DQ pair, the weights as
            fp32 constants (q - zp) * scale (float32, as DequantizeLinear).
  qop.onnx  QOperator format: QuantizeLinear, QLinearConv (per-channel int8
            weights, int32 bias), com.microsoft QLinearAdd, QLinearLeakyRelu,
            QLinearSigmoid, QLinearGlobalAveragePool, QLinearMul, Flatten,
            QLinearMatMul, DequantizeLinear.
  qop_float.onnx  its float equivalent: Conv/Add/LeakyRelu/Sigmoid/Mul/
            GlobalAveragePool/Flatten/MatMul on the dequantized weights, the
            int32 bias as B * (x_scale * w_scale) in float32.
  x.npy     the input, float32 [1,3,8,8] (seeded).
Weights and scales are seeded random values, written as raw data."""
import os
import struct
import sys

import numpy as np

FLOAT, UINT8, INT8, INT32, INT64, FLOAT16 = 1, 2, 3, 6, 7, 10
NP = {FLOAT: np.float32, UINT8: np.uint8, INT8: np.int8, INT32: np.int32, INT64: np.int64,
      FLOAT16: np.float16}


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def f_int(field, v):
    return key(field, 0) + varint(v)


def f_bytes(field, b):
    if isinstance(b, str):
        b = b.encode()
    return key(field, 2) + varint(len(b)) + b


def f_float(field, v):
    return key(field, 5) + struct.pack("<f", v)


def tensor(name, arr, dt):
    arr = np.asarray(arr, dtype=NP[dt])  # keeps 0-d (scalar) parameters 0-d
    b = b"".join(f_int(1, d) for d in arr.shape)
    return b + f_int(2, dt) + f_bytes(8, name) + f_bytes(9, arr.tobytes())


def attr(name, v):
    if isinstance(v, float):
        return f_bytes(1, name) + f_float(2, v) + f_int(20, 1)
    if isinstance(v, int):
        return f_bytes(1, name) + f_int(3, v) + f_int(20, 2)
    return f_bytes(1, name) + b"".join(f_int(8, x) for x in v) + f_int(20, 7)


def node(op, ins, outs, name, domain="", **attrs):
    b = b"".join(f_bytes(1, i) for i in ins) + b"".join(f_bytes(2, o) for o in outs)
    b += f_bytes(3, name) + f_bytes(4, op)
    b += b"".join(f_bytes(5, attr(k, v)) for k, v in attrs.items())
    if domain:
        b += f_bytes(7, domain)
    return b


def value_info(name, dt, dims):
    shape = b"".join(f_bytes(1, f_int(1, d)) for d in dims)
    return f_bytes(1, name) + f_bytes(2, f_bytes(1, f_int(1, dt) + f_bytes(2, shape)))


class Graph:
    def __init__(self):
        self.nodes, self.inits = [], []
        self.alias = {}  # tensor names replaced by others (the float twin)

    def init(self, name, arr, dt):
        self.inits.append(tensor(name, arr, dt))
        return name

    def add(self, op, ins, outs, domain="", **attrs):
        ins = [self.alias.get(i, i) for i in ins]
        self.nodes.append(node(op, ins, outs, "%s_%d" % (op, len(self.nodes)), domain, **attrs))
        return outs[0]

    def write(self, path, inp, out, ms=False):
        g = b"".join(f_bytes(1, n) for n in self.nodes) + f_bytes(2, "g")
        g += b"".join(f_bytes(5, t) for t in self.inits)
        ins = inp if isinstance(inp, list) else [inp]  # one (name, type, dims) or a list
        g += b"".join(f_bytes(11, value_info(*i)) for i in ins) + f_bytes(12, value_info(*out))
        m = f_int(1, 8) + f_bytes(2, "rknn-trace make_qdq.py")
        m += f_bytes(8, f_bytes(1, "") + f_int(2, 13))
        if ms:
            m += f_bytes(8, f_bytes(1, "com.microsoft") + f_int(2, 1))
        m += f_bytes(7, g)
        with open(path, "wb") as f:
            f.write(m)


def qdq_model(rng, path, fpath):
    g, fg = Graph(), Graph()  # the QDQ model and its dequantized float twin

    def add(op, ins, outs, **attrs):
        fg.add(op, ins, outs, **attrs)
        return g.add(op, ins, outs, **attrs)

    def init(name, arr, dt):
        fg.init(name, arr, dt)
        return g.init(name, arr, dt)

    def qdq(x, s, zp):  # activation pair, uint8
        fg.alias[x + "_dq"] = x
        sn = g.init(x + "_scale", np.float32(s), FLOAT)
        zn = g.init(x + "_zp", np.uint8(zp), UINT8)
        q = g.add("QuantizeLinear", [x, sn, zn], [x + "_q"])
        return g.add("DequantizeLinear", [q, sn, zn], [x + "_dq"])

    def wdq(name, w, axis):  # int8 weights, symmetric, per channel (axis 0) or per tensor
        if axis is None:
            s, sb = np.float32(np.abs(w).max() / 127), None
        else:
            red = tuple(i for i in range(w.ndim) if i != axis)
            s = (np.abs(w).max(axis=red) / 127).astype(np.float32)
            sb = s.reshape([-1 if i == axis else 1 for i in range(w.ndim)])
        q = np.clip(np.rint(w / (s if sb is None else sb)), -127, 127).astype(np.int8)
        fg.init(name, q.astype(np.float32) * (s if sb is None else sb), FLOAT)
        g.init(name + "_q", q, INT8)
        g.init(name + "_s", s, FLOAT)
        g.init(name + "_z", np.zeros(np.shape(s), np.int8), INT8)
        kw = {} if axis is None else {"axis": axis}
        return g.add("DequantizeLinear", [name + "_q", name + "_s", name + "_z"], [name], **kw)

    x = qdq("x", 2.0 / 255, 128)
    w1 = wdq("w1", rng.normal(0, 0.3, (8, 3, 3, 3)).astype(np.float32), 0)
    b1 = init("b1", rng.normal(0, 0.1, 8), FLOAT)
    c1 = add("Conv", [x, w1, b1], ["c1"], pads=[1, 1, 1, 1])
    r1 = qdq(add("Relu", [c1], ["r1"]), 0.02, 0)
    w2 = wdq("w2", rng.normal(0, 0.2, (8, 8, 3, 3)).astype(np.float32), None)
    c2 = qdq(add("Conv", [r1, w2], ["c2"], strides=[2, 2], pads=[1, 1, 1, 1]), 0.03, 120)
    p = qdq(add("GlobalAveragePool", [c2], ["gap"]), 0.01, 100)
    f = add("Flatten", [p], ["flat"])
    w3 = wdq("w3", rng.normal(0, 0.5, (8, 4)).astype(np.float32), 1)
    mm = add("MatMul", [f, w3], ["mm"])
    b3 = init("b3", rng.normal(0, 0.1, 4), FLOAT)
    y = qdq(add("Add", [mm, b3], ["logits"]), 0.01, 128)
    add("Identity", [y], ["y"])
    g.write(path, ("x", FLOAT, [1, 3, 8, 8]), ("y", FLOAT, [1, 4]))
    fg.write(fpath, ("x", FLOAT, [1, 3, 8, 8]), ("y", FLOAT, [1, 4]))


def qop_model(rng, path, fpath):
    g, fg = Graph(), Graph()  # the QOperator model and its dequantized float twin
    MS = "com.microsoft"

    def sc(name, s, zp, dt=UINT8):
        return g.init(name + "_s", np.float32(s), FLOAT), g.init(name + "_z", NP[dt](zp), dt)

    def wq(name, q, s, zp=0, shape=None):  # int8 weights, their float (q - zp) * s
        s = np.asarray(s, np.float32)
        fg.init(name, (q.astype(np.float32) - np.float32(zp)) *
                (s if shape is None else s.reshape(shape)), FLOAT)
        return g.init(name, q, INT8)

    xs, xz = sc("x", 2.0 / 255, 128)
    xq = g.add("QuantizeLinear", ["x", xs, xz], ["xq"])
    w = rng.integers(-127, 128, (8, 3, 3, 3)).astype(np.int8)
    wsv = rng.uniform(0.002, 0.004, 8).astype(np.float32)
    ws = g.init("w_s", wsv, FLOAT)
    wz = g.init("w_z", np.zeros(8, np.int8), INT8)
    wq("w", w, wsv, shape=(8, 1, 1, 1))
    bv = rng.integers(-2000, 2000, 8)
    b = g.init("b", bv, INT32)
    # the int32 bias in float: B * (x_scale * w_scale), float32 as DequantizeLinear
    fg.init("b", bv.astype(np.float32) * (np.float32(2.0 / 255) * wsv), FLOAT)
    ys, yz = sc("c1", 0.05, 110)
    c1 = g.add("QLinearConv", [xq, xs, xz, "w", ws, wz, ys, yz, b], ["c1"], pads=[1, 1, 1, 1])
    fg.add("Conv", ["x", "w", "b"], ["c1"], pads=[1, 1, 1, 1])
    w2 = wq("w2", rng.integers(-127, 128, (8, 1, 3, 3)).astype(np.int8), 0.003)
    w2s, w2z = sc("w2", 0.003, 0, INT8)
    c2s, c2z = sc("c2", 0.04, 130)
    c2 = g.add("QLinearConv", [c1, ys, yz, w2, w2s, w2z, c2s, c2z], ["c2"], pads=[1, 1, 1, 1],
               group=8)
    fg.add("Conv", ["c1", "w2"], ["c2"], pads=[1, 1, 1, 1], group=8)
    as_, az = sc("add", 0.06, 120)
    a = g.add("QLinearAdd", [c1, ys, yz, c2, c2s, c2z, as_, az], ["add"], MS)
    fg.add("Add", ["c1", "c2"], ["add"])
    ls, lz = sc("lrelu", 0.05, 60)
    lr = g.add("QLinearLeakyRelu", [a, as_, az, ls, lz], ["lrelu"], MS, alpha=0.1)
    fg.add("LeakyRelu", ["add"], ["lrelu"], alpha=0.1)
    ss, sz = sc("sig", 1.0 / 255, 0)
    sg = g.add("QLinearSigmoid", [lr, ls, lz, ss, sz], ["sig"], MS)
    fg.add("Sigmoid", ["lrelu"], ["sig"])
    ms, mz = sc("mul", 0.02, 5)
    mu = g.add("QLinearMul", [lr, ls, lz, sg, ss, sz, ms, mz], ["mul"], MS)
    fg.add("Mul", ["lrelu", "sig"], ["mul"])
    ps, pz = sc("gap", 0.01, 3)
    p = g.add("QLinearGlobalAveragePool", [mu, ms, mz, ps, pz], ["gap"], MS)
    fg.add("GlobalAveragePool", ["mul"], ["gap"])
    f = g.add("Flatten", [p], ["flat"])
    fg.add("Flatten", ["gap"], ["flat"])
    w3 = wq("w3", rng.integers(-127, 128, (8, 4)).astype(np.int8), 0.004)
    w3s, w3z = sc("w3", 0.004, 0, INT8)
    os_, oz = sc("mm", 0.002, 128)
    mm = g.add("QLinearMatMul", [f, ps, pz, w3, w3s, w3z, os_, oz], ["mm"])
    fg.add("MatMul", ["flat", "w3"], ["y"])
    g.add("DequantizeLinear", [mm, os_, oz], ["y"])
    g.write(path, ("x", FLOAT, [1, 3, 8, 8]), ("y", FLOAT, [1, 4]), ms=True)
    fg.write(fpath, ("x", FLOAT, [1, 3, 8, 8]), ("y", FLOAT, [1, 4]))


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    os.makedirs(argv[1], exist_ok=True)
    rng = np.random.default_rng(7)
    qdq_model(rng, os.path.join(argv[1], "qdq.onnx"), os.path.join(argv[1], "qdq_float.onnx"))
    qop_model(rng, os.path.join(argv[1], "qop.onnx"), os.path.join(argv[1], "qop_float.onnx"))
    np.save(os.path.join(argv[1], "x.npy"), rng.uniform(-1, 1, (1, 3, 8, 8)).astype(np.float32))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
