#!/usr/bin/python3
"""tests/cli/make_big.py OUTDIR

Writes tiny ONNX models whose tensors are huge (the encoder of
tests/quant/make_qdq.py, no onnx package needed):
  relu_2g.onnx    Relu on a float input of 2^31 elements (8 GiB in, 8 GiB out)
  expand_big.onnx Expand of a [1,1] float input to [50000,50000] (10 GB out)
  expand_max.onnx the same Expand, then ReduceMax to a scalar (10 GB inside)
  relu_dyn.onnx   Relu on a float input [N, M] with symbolic dims (for --shape)"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "quant"))
from make_qdq import FLOAT, INT64, Graph, f_bytes, f_int  # noqa: E402

import numpy as np  # noqa: E402


def sym_value_info(name, dt, dims):
    """value_info whose dims are ints (dim_value) or strings (dim_param)."""
    shape = b"".join(f_bytes(1, f_bytes(2, d) if isinstance(d, str) else f_int(1, d))
                     for d in dims)
    return f_bytes(1, name) + f_bytes(2, f_bytes(1, f_int(1, dt) + f_bytes(2, shape)))


def write(path, g, inp, out):
    body = b"".join(f_bytes(1, n) for n in g.nodes) + f_bytes(2, "g")
    body += b"".join(f_bytes(5, t) for t in g.inits)
    body += f_bytes(11, sym_value_info(*inp)) + f_bytes(12, sym_value_info(*out))
    m = f_int(1, 8) + f_bytes(8, f_bytes(1, "") + f_int(2, 13)) + f_bytes(7, body)
    with open(path, "wb") as f:
        f.write(m)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    d = argv[1]
    os.makedirs(d, exist_ok=True)
    g = Graph()
    g.add("Relu", ["x"], ["y"])
    write(os.path.join(d, "relu_2g.onnx"), g, ("x", FLOAT, [1 << 31]), ("y", FLOAT, [1 << 31]))
    g = Graph()
    g.init("shape", np.array([50000, 50000], np.int64), INT64)
    g.add("Expand", ["x", "shape"], ["y"])
    write(os.path.join(d, "expand_big.onnx"), g, ("x", FLOAT, [1, 1]), ("y", FLOAT, [50000, 50000]))
    g = Graph()
    g.init("shape", np.array([50000, 50000], np.int64), INT64)
    g.add("Expand", ["x", "shape"], ["big"])
    g.add("ReduceMax", ["big"], ["y"], keepdims=0)
    write(os.path.join(d, "expand_max.onnx"), g, ("x", FLOAT, [1, 1]), ("y", FLOAT, []))
    g = Graph()
    g.add("Relu", ["x"], ["y"])
    write(os.path.join(d, "relu_dyn.onnx"), g, ("x", FLOAT, ["N", "M"]), ("y", FLOAT, ["N", "M"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
