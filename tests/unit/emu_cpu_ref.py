"""tests/unit/emu_cpu_ref.py DIR — numpy's values for the cases test_emu_cpu.c wrote
to DIR: DIR/cases.txt, one line per case "name|type|axis|inputs|output shapes"
(axis: the reference's, the node may give none; inputs: how many DIR/NAME_inK.npy;
shapes "2,3,4;2,3" per output), the inputs as DIR/NAME_inK.npy. Writes
DIR/NAME_outK.npy (float64). An input named in the case's "skip" field (its index
after a '!' in the inputs field) is an alias the layer does not read.

"e2e" is the end-to-end case: the input quantized to int8 (scale 0.05, zero point 3,
rounded half away from zero, as rknn_inputs_set does), dequantized, Softmax over
the channels, stored as int8 (scale 1/255, zero point -128), then Reshape to [1,12]
stored as int8 (scale 1/200, zero point -100)."""
import sys

import numpy as np

D = sys.argv[1]


def q8(x, s, zp):
    q = np.sign(x / s) * np.floor(np.abs(x / s) + 0.5) + zp
    return (np.clip(q, -128, 127) - zp) * s


def softmax(x, a):
    e = np.exp(x - x.max(axis=a, keepdims=True))
    return e / e.sum(axis=a, keepdims=True)


for line in open(f"{D}/cases.txt"):
    name, op, axis, ins, outs = line.strip().split("|")
    skip = set()
    if "!" in ins:
        ins, sk = ins.split("!")
        skip = {int(k) for k in sk.split(",")}
    xs = [np.load(f"{D}/{name}_in{k}.npy").astype(np.float64) for k in range(int(ins))]
    shapes = [tuple(int(v) for v in s.split(",")) for s in outs.split(";")]
    a = int(axis) if axis != "none" else None
    x = xs[0]
    if op in ("Reshape", "Flatten", "Squeeze", "Unsqueeze"):
        ys = [x.reshape(shapes[0])]
    elif op == "ArgMax":
        ys = [np.argmax(x, axis=a).reshape(shapes[0]).astype(np.float64)]
    elif op == "ArgMin":
        ys = [np.argmin(x, axis=a).reshape(shapes[0]).astype(np.float64)]
    elif op == "Softmax":
        ys = [softmax(x, a)]
    elif op == "Sigmoid":
        with np.errstate(over="ignore"):
            ys = [1 / (1 + np.exp(-x))]
    elif op == "Concat":
        ys = [np.concatenate([v for k, v in enumerate(xs) if k not in skip], axis=a)]
    elif op == "Split":
        cut = np.cumsum([s[a] for s in shapes])[:-1]
        ys = np.split(x, cut, axis=a)
    elif op == "e2e":
        m = softmax(q8(x, 0.05, 3), 1)
        ys = [q8(q8(m, 1 / 255, -128).reshape(shapes[0]), 1 / 200, -100)]
    else:
        sys.exit(f"{name}: no reference for {op}")
    for k, y in enumerate(ys):
        assert y.shape == shapes[k], (name, y.shape, shapes[k])
        np.save(f"{D}/{name}_out{k}.npy", np.asarray(y, np.float64))
