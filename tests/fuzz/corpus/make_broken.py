#!/usr/bin/python3
"""Writes the hand-made broken ONNX models of the fuzz seed corpus into onnx/.

A tiny protobuf encoder (field numbers from onnx.proto) so that each file is
malformed in exactly one chosen way; plus truncations and bit flips of mnist.onnx.
Run from this folder: /usr/bin/python3 make_broken.py"""
import os
import random
import struct


def varint(n):
    n &= (1 << 64) - 1  # negative ints are 10-byte two's complement varints
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def f_int(num, v):
    return varint(num << 3) + varint(v)


def f_bytes(num, b):
    if isinstance(b, str):
        b = b.encode()
    return varint(num << 3 | 2) + varint(len(b)) + b


def tensor(name, dt, dims, raw=None, int64s=None, floats=None):
    m = b"".join(f_int(1, d) for d in dims) + f_int(2, dt) + f_bytes(8, name)
    if raw is not None:
        m += f_bytes(9, raw)
    if int64s is not None:
        m += f_bytes(7, b"".join(varint(v) for v in int64s))
    if floats is not None:
        m += f_bytes(4, b"".join(struct.pack("<f", v) for v in floats))
    return m


def vi(name, dt, dims):
    shape = b"".join(f_bytes(1, f_int(1, d) if isinstance(d, int) else f_bytes(2, d))
                     for d in dims)
    tt = f_int(1, dt) + f_bytes(2, shape)
    return f_bytes(1, name) + f_bytes(2, f_bytes(1, tt))


def node(op, ins, outs, name="", attrs=()):
    m = b"".join(f_bytes(1, i) for i in ins) + b"".join(f_bytes(2, o) for o in outs)
    if name:
        m += f_bytes(3, name)
    m += f_bytes(4, op)
    for a in attrs:
        m += f_bytes(5, a)
    return m


def attr_ints(name, vals):
    return f_bytes(1, name) + f_int(20, 7) + b"".join(f_int(8, v) for v in vals)


def attr_tensor(name, t):
    return f_bytes(1, name) + f_int(20, 4) + f_bytes(5, t)


def model(nodes, inits=(), inputs=(), outputs=(), opset=13):
    g = b"".join(f_bytes(1, n) for n in nodes) + f_bytes(2, "g")
    g += b"".join(f_bytes(5, t) for t in inits)
    g += b"".join(f_bytes(11, v) for v in inputs)
    g += b"".join(f_bytes(12, v) for v in outputs)
    return f_int(1, 8) + f_bytes(2, "make_broken") + f_bytes(7, g) + \
        f_bytes(8, f_bytes(1, "") + f_int(2, opset))


FLOAT, INT64 = 1, 7
X = vi("x", FLOAT, [1, 4])
Y = vi("y", FLOAT, [1, 4])
w4 = struct.pack("<4f", 1, 2, 3, 4)

cases = {
    # a valid base model: y = x + w
    "ok_add": model([node("Add", ["x", "w"], ["y"])], [tensor("w", FLOAT, [4], raw=w4)], [X], [Y]),
    # dims far beyond memory, data absent
    "huge_dims": model([node("Add", ["x", "w"], ["y"])],
                       [tensor("w", FLOAT, [1 << 40, 1 << 40, 1 << 40], raw=w4)], [X], [Y]),
    "negative_dims": model([node("Add", ["x", "w"], ["y"])],
                           [tensor("w", FLOAT, [-4], raw=w4)], [X], [Y]),
    "raw_too_short": model([node("Add", ["x", "w"], ["y"])],
                           [tensor("w", FLOAT, [4], raw=w4[:7])], [X], [Y]),
    "typed_too_short": model([node("Add", ["x", "w"], ["y"])],
                             [tensor("w", FLOAT, [4], floats=[1.0, 2.0])], [X], [Y]),
    "dangling_input": model([node("Add", ["x", "nowhere"], ["y"])], [], [X], [Y]),
    "cyclic": model([node("Relu", ["b"], ["a"], "n1"), node("Relu", ["a"], ["b"], "n2"),
                     node("Add", ["x", "a"], ["y"])], [], [X], [Y]),
    "double_producer": model([node("Relu", ["x"], ["y"]), node("Abs", ["x"], ["y"])],
                             [], [X], [Y]),
    "unknown_output": model([node("Relu", ["x"], ["y"])], [], [X], [vi("zz", FLOAT, [1])]),
    "unknown_op": model([node("NoSuchOp", ["x"], ["y"], "weird")], [], [X], [Y]),
    "input_huge_dim": model([node("Relu", ["x"], ["y"])], [], [vi("x", FLOAT, [1 << 33, 1 << 33])],
                            [Y]),
    "input_dynamic": model([node("Relu", ["x"], ["y"])], [], [vi("x", FLOAT, ["N", 3, "H", "W"])],
                           [Y]),
    "reshape_huge": model([node("Reshape", ["x", "s"], ["y"])],
                          [tensor("s", INT64, [3], int64s=[1 << 30, 1 << 30, 1 << 30])], [X], [Y]),
    "reshape_negative": model([node("Reshape", ["x", "s"], ["y"])],
                              [tensor("s", INT64, [2], int64s=[-7, -9])], [X], [Y]),
    "constant_bad": model([node("Constant", [], ["c"], "k", [attr_ints("value_ints", [1, 2])]),
                           node("Constant", [], ["d"], "k2",
                                [attr_tensor("value", tensor("v", FLOAT, [9], raw=w4))]),
                           node("Add", ["x", "c"], ["y"])], [], [X], [Y]),
    "opset_old": model([node("Relu", ["x"], ["y"])], [], [X], [Y], opset=1),
    "many_dims": model([node("Relu", ["x"], ["y"])], [], [vi("x", FLOAT, [1] * 12)], [Y]),
    "wrong_dtype": model([node("Add", ["x", "w"], ["y"])], [tensor("w", 99, [4], raw=w4)],
                         [X], [Y]),
}


def deep_types(depth):
    """A graph input whose type is a sequence of sequences ... depth levels deep."""
    t = f_bytes(1, f_int(1, FLOAT))
    for _ in range(depth):
        t = f_bytes(4, f_bytes(1, t))
    return f_bytes(1, "x") + f_bytes(2, t)


# protobuf-c recurses per nesting level: this overflowed the stack at 200k levels
cases["deep_nesting"] = model([node("Relu", ["x"], ["y"])], [], [deep_types(3000)], [Y])

os.makedirs("onnx", exist_ok=True)
for name, data in cases.items():
    with open(f"onnx/broken_{name}.onnx", "wb") as f:
        f.write(data)

mnist = open("onnx/mnist.onnx", "rb").read()
for cut in (1, 17, 100, 1000, 10000, len(mnist) - 1):
    with open(f"onnx/broken_mnist_trunc_{cut}.onnx", "wb") as f:
        f.write(mnist[:cut])
rng = random.Random(7)
for k in range(6):
    b = bytearray(mnist)
    for _ in range(1 + k):
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
    with open(f"onnx/broken_mnist_flip_{k}.onnx", "wb") as f:
        f.write(bytes(b))
