#!/usr/bin/env python3
"""tests/samples/emu_dpu_check.py DUMP INSPECT.json — the DPU-only results of a
`run FILE.rknn --emulate --dump DUMP` against what their ONNX ops mean, from the
dequantized tensors the run wrote (numpy is the oracle): every Add's output is the
sum of its inputs and every Concat's the concatenation of its inputs along the
channels, each within one step of the output's grid (the NPU rounds each input's
rescaled term and then their sum: yolov8n's rk3566 Adds and Concats, whose tensors
tests/cli/emulate.sh checks against the source model, reach 0.74 of a step). Nodes whose tensors were not all computed (the run may stop
at a task it does not take) are counted apart. Prints "N passed, N failed"."""
import json
import os
import sys

import numpy as np

dump, info = sys.argv[1], json.load(open(sys.argv[2]))


def path(name):
    return os.path.join(dump, name.replace("/", "_").replace("\\", "_").replace(":", "_") + ".npy")


def step(y):
    v = np.unique(y.ravel())
    d = np.diff(v)
    d = d[d > 1e-9]
    return d.min() if d.size else np.inf


passed = failed = skipped = 0
for nd in info["nodes"]:
    if nd["op"] not in ("Add", "Concat"):
        continue
    names = [x["name"] for x in nd["inputs"]] + [x["name"] for x in nd["outputs"]]
    if nd["target"] != "NPU" or not all(os.path.exists(path(n)) for n in names):
        skipped += 1
        continue
    xs = [np.load(path(x["name"])).astype(np.float64) for x in nd["inputs"]]
    y = np.load(path(nd["outputs"][0]["name"])).astype(np.float64)
    ref = xs[0] + xs[1] if nd["op"] == "Add" else np.concatenate(xs, axis=1)
    err = np.abs(y - ref).max() if ref.shape == y.shape else np.inf
    st = step(y)
    if err <= st * 1.01:
        passed += 1
    else:
        failed += 1
        print("FAIL %s %s: max |error| %.4g, %.2f output steps" % (nd["op"], nd["name"], err, err / st))
print("%d %s nodes not all computed" % (skipped, "Add/Concat"))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
