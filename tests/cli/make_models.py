#!/usr/bin/python3
"""tests/cli/make_models.py OUTDIR

Writes the tiny ONNX models the CLI tests need (encoded with the hand-written
protobuf helpers of tests/quant/make_qdq.py; no onnx package here):
  gather.onnx  y = Gather(table, idx): table float32 [4,3] (constant),
               idx an int64 [2] model input, so the indices come from the data.
  sym.onnx     y = Relu(x) with x float32 [batch, 3] (a symbolic dimension).
  gap.onnx     y = GlobalAveragePool(Relu(Conv(x))), x float32 [1,3,64,64]: the NPU
               runs the pool as three depthwise convs (64 -> 10 -> 2 -> 1).
  tokens.onnx  a transformer's inputs: token ids and an attention mask, both
               int64 [1,8]; y = Softmax(Gather(emb, ids) W + (1 - mask) -30)
               over the last axis, float32 [1,8,8].
  half.onnx    a float16 model (exported after .half()): x [1,45] -> Gemm 128 ->
               BatchNormalization -> Elu -> Gemm 12 -> y, every tensor float16.
  half32.onnx  the same model in float32, its constants the float16 values.
  half_io.onnx float32 in and out around a float16 Gemm 45 -> 12 (Casts)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "quant"))
from make_qdq import FLOAT, FLOAT16, INT64, Graph, f_bytes, f_int  # noqa: E402


def write_sym(path):
    """Relu over [batch, 3]; value_info with a dim_param instead of a dim_value."""
    node = f_bytes(1, "x") + f_bytes(2, "y") + f_bytes(3, "relu") + f_bytes(4, "Relu")

    def vi(name):
        dims = f_bytes(1, f_bytes(2, "batch")) + f_bytes(1, f_int(1, 3))
        return f_bytes(1, name) + f_bytes(2, f_bytes(1, f_int(1, FLOAT) + f_bytes(2, dims)))
    g = f_bytes(1, node) + f_bytes(2, "g") + f_bytes(11, vi("x")) + f_bytes(12, vi("y"))
    m = f_int(1, 8) + f_bytes(2, "rknn-trace make_models.py")
    m += f_bytes(8, f_bytes(1, "") + f_int(2, 13)) + f_bytes(7, g)
    with open(path, "wb") as f:
        f.write(m)


def main():
    out = sys.argv[1]
    g = Graph()
    g.init("table", np.arange(12, dtype=np.float32).reshape(4, 3), FLOAT)
    g.add("Gather", ["table", "idx"], ["y"], axis=0)
    g.write(os.path.join(out, "gather.onnx"), ("idx", INT64, [2]), ("y", FLOAT, [2, 3]))
    write_sym(os.path.join(out, "sym.onnx"))
    g = Graph()
    rng = np.random.default_rng(3)
    g.init("w", rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.3, FLOAT)
    g.init("b", np.linspace(-0.1, 0.1, 8, dtype=np.float32), FLOAT)
    c = g.add("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1])
    r = g.add("Relu", [c], ["r"])
    g.add("GlobalAveragePool", [r], ["y"])
    g.write(os.path.join(out, "gap.onnx"), ("x", FLOAT, [1, 3, 64, 64]), ("y", FLOAT, [1, 8, 1, 1]))
    g = Graph()
    g.init("emb", rng.standard_normal((16, 8)).astype(np.float32), FLOAT)
    g.init("wq", rng.standard_normal((8, 8)).astype(np.float32) * 0.5, FLOAT)
    g.init("one", np.float32(1), FLOAT)
    g.init("neg", np.float32(-30), FLOAT)
    g.init("ax1", np.array([1], np.int64), INT64)
    e = g.add("Gather", ["emb", "ids"], ["e"], axis=0)
    h = g.add("MatMul", [e, "wq"], ["h"])
    m = g.add("Cast", ["mask"], ["m"], to=FLOAT)
    u = g.add("Unsqueeze", [m, "ax1"], ["u"])
    b = g.add("Mul", [g.add("Sub", ["one", u], ["inv"]), "neg"], ["bias"])
    g.add("Softmax", [g.add("Add", [h, b], ["s"])], ["y"], axis=-1)
    g.write(os.path.join(out, "tokens.onnx"), [("ids", INT64, [1, 8]), ("mask", INT64, [1, 8])],
            ("y", FLOAT, [1, 8, 8]))
    hr = np.random.default_rng(11)
    mlp = [("w1", hr.standard_normal((128, 45)) * 0.2), ("b1", hr.standard_normal(128) * 0.1)]
    mlp += [("bg", hr.standard_normal(128)), ("bb", hr.standard_normal(128)),
            ("bm", hr.standard_normal(128)), ("bv", hr.random(128) + 0.5)]
    mlp += [("w2", hr.standard_normal((12, 128)) * 0.1), ("b2", hr.standard_normal(12) * 0.1)]
    for name, dt in (("half.onnx", FLOAT16), ("half32.onnx", FLOAT)):
        g = Graph()
        for n, v in mlp:  # half32: the same float16 values, stored as float32
            g.init(n, v.astype(np.float16).astype(np.float32) if dt == FLOAT else v, dt)
        h = g.add("Gemm", ["x", "w1", "b1"], ["h"], transB=1)
        n = g.add("BatchNormalization", [h, "bg", "bb", "bm", "bv"], ["n"], epsilon=1e-5)
        g.add("Gemm", [g.add("Elu", [n], ["e"], alpha=1.0), "w2", "b2"], ["y"], transB=1)
        g.write(os.path.join(out, name), ("x", dt, [1, 45]), ("y", dt, [1, 12]))
    g = Graph()
    g.init("w", hr.standard_normal((12, 45)) * 0.2, FLOAT16)
    g.init("b", hr.standard_normal(12) * 0.1, FLOAT16)
    x16 = g.add("Cast", ["x"], ["x16"], to=FLOAT16)
    g.add("Cast", [g.add("Gemm", [x16, "w", "b"], ["h"], transB=1)], ["y"], to=FLOAT)
    g.write(os.path.join(out, "half_io.onnx"), ("x", FLOAT, [1, 45]), ("y", FLOAT, [1, 12]))


if __name__ == "__main__":
    main()
