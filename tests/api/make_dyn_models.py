#!/usr/bin/python3
"""tests/api/make_dyn_models.py — writes tiny ONNX models for the RKNN API and build
tests (dynamic input dimensions for rknn_set_input_shapes, an NHWC image input, an op
RV1106 lacks), encoding the protobuf by hand so that nothing beyond the standard
library is needed.

  dyn_add.onnx    X float [batch, 3]      -> Y = Relu(X + [1, -2, 3])       [batch, 3]
  dyn_relu4d.onnx X float [1, 2, H, W]    -> Y = Relu(X) * [[2]], [[-1]] per channel
  nhwc_relu.onnx  X float [1, 8, 8, 3]    -> Y = Relu(X)  (channels last, as tf2onnx)
  argmax_c.onnx   X float [1, 3, 4, 4]    -> Y = ArgMax(Relu(X), axis 1, keepdims) int64

Run: /usr/bin/python3 tests/api/make_dyn_models.py (writes next to this script)."""
import os
import struct


def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def key(field, wire):
    return varint(field << 3 | wire)


def f_int(field, v):
    return key(field, 0) + varint(v)


def f_bytes(field, b):
    if isinstance(b, str):
        b = b.encode()
    return key(field, 2) + varint(len(b)) + b


def dim(v):
    # TensorShapeProto.Dimension: dim_value = 1, dim_param = 2
    return f_bytes(1, f_int(1, v) if isinstance(v, int) else f_bytes(2, v))


def value_info(name, dims, elem_type=1):
    shape = b"".join(dim(d) for d in dims)
    tensor_type = f_int(1, elem_type) + f_bytes(2, shape)  # elem_type (FLOAT 1, INT64 7)
    return f_bytes(1, name) + f_bytes(2, f_bytes(1, tensor_type))


def tensor(name, dims, values):
    body = b"".join(f_int(1, d) for d in dims) + f_int(2, 1)
    body += f_bytes(4, struct.pack("<%df" % len(values), *values))  # packed float_data
    return body + f_bytes(8, name)


def node(op, inputs, outputs, name, attrs=b""):
    body = b"".join(f_bytes(1, i) for i in inputs) + b"".join(f_bytes(2, o) for o in outputs)
    return body + f_bytes(3, name) + f_bytes(4, op) + attrs


def attr_int(name, v):
    # NodeProto.attribute = 5: AttributeProto name = 1, i = 3, type = 20 (INT = 2)
    return f_bytes(5, f_bytes(1, name) + f_int(3, v) + f_int(20, 2))


def model(graph):
    opset = f_bytes(1, "") + f_int(2, 13)
    return f_int(1, 7) + f_bytes(2, "rknn-trace tests") + f_bytes(7, graph) + f_bytes(8, opset)


def write(name, data):
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), name), "wb") as f:
        f.write(data)


g = f_bytes(1, node("Add", ["X", "B"], ["S"], "add0"))
g += f_bytes(1, node("Relu", ["S"], ["Y"], "relu0"))
g += f_bytes(2, "dyn_add")
g += f_bytes(5, tensor("B", [3], [1.0, -2.0, 3.0]))
g += f_bytes(11, value_info("X", ["batch", 3]))
g += f_bytes(12, value_info("Y", ["batch", 3]))
write("dyn_add.onnx", model(g))

g = f_bytes(1, node("Relu", ["X"], ["R"], "relu0"))
g += f_bytes(1, node("Mul", ["R", "K"], ["Y"], "mul0"))
g += f_bytes(2, "dyn_relu4d")
g += f_bytes(5, tensor("K", [2, 1, 1], [2.0, -1.0]))
g += f_bytes(11, value_info("X", [1, 2, "H", "W"]))
g += f_bytes(12, value_info("Y", [1, 2, "H", "W"]))
write("dyn_relu4d.onnx", model(g))

g = f_bytes(1, node("Relu", ["X"], ["Y"], "relu0"))
g += f_bytes(2, "nhwc_relu")
g += f_bytes(11, value_info("X", [1, 8, 8, 3]))
g += f_bytes(12, value_info("Y", [1, 8, 8, 3]))
write("nhwc_relu.onnx", model(g))

g = f_bytes(1, node("Relu", ["X"], ["R"], "relu0"))
g += f_bytes(1, node("ArgMax", ["R"], ["Y"], "argmax0", attr_int("axis", 1) + attr_int("keepdims", 1)))
g += f_bytes(2, "argmax_c")
g += f_bytes(11, value_info("X", [1, 3, 4, 4]))
g += f_bytes(12, value_info("Y", [1, 1, 4, 4], 7))
write("argmax_c.onnx", model(g))
