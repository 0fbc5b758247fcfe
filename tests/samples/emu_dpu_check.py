#!/usr/bin/env python3
"""tests/samples/emu_dpu_check.py DUMP INSPECT.json — the DPU-only results of a
`run FILE.rknn --emulate --dump DUMP` against what their ONNX ops mean, from the
dequantized tensors the run wrote (numpy is the oracle): every Add's output is the
sum of its inputs (an AddRelu's the sum's ReLU), every Concat's the concatenation of its inputs along the
channels and every Split's output its slice of the input's channels (each image
of a batch alike), each within one step of the output's grid (the NPU rounds each input's
rescaled term and then their sum: yolov8n's rk3566 Adds and Concats, whose tensors
tests/cli/emulate.sh checks against the source model, reach 0.74 of a step); every
NPU Reshape's output is numpy's reshape of its input, value for value (the
emulator takes one only when input and output share their quantization); an
exSDPAttention computed under RKNN_TRACE_EMU_ATTN=float (q, k, v [N,d,1,L]) is
softmax(q^T k / sqrt(d)) v^T per image, in float64 on the dumped q, k, v, within one
output step; every linear half_pixel Resize's output is numpy's bilinear resize
of its input (edges clamped), within one output step (rk3588's pp_human_segv2,
whose Resizes are copies and depthwise convs). Nodes whose tensors were not all computed (the run may stop
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


def bilinear(x, shape):
    """ONNX Resize, mode linear, half_pixel: source coordinate (o + 0.5) / scale - 0.5,
    clamped to the edge, the two nearest pixels weighted by distance, per axis"""
    for ax, n in ((2, shape[2]), (3, shape[3])):
        m = x.shape[ax]
        src = np.clip((np.arange(n) + 0.5) * m / n - 0.5, 0, m - 1)
        i0 = np.floor(src).astype(int)
        i1 = np.minimum(i0 + 1, m - 1)
        f = src - i0
        a, b = np.take(x, i0, axis=ax), np.take(x, i1, axis=ax)
        sh = [1, 1, 1, 1]
        sh[ax] = n
        x = a * (1 - f.reshape(sh)) + b * f.reshape(sh)
    return x


passed = failed = skipped = 0
for nd in info["nodes"]:
    if nd["op"] not in ("Add", "AddRelu", "Concat", "Split", "Reshape", "exSDPAttention", "Resize"):
        continue
    if nd["op"] == "Resize" and (nd.get("mode"), nd.get("coord_mode")) != ("linear", "half_pixel"):
        continue
    acts = [x for x in nd["inputs"] if "scale" in x and not x["name"].endswith("_exSecondary")]
    names = [x["name"] for x in acts] + [x["name"] for x in nd["outputs"]]
    if nd["target"] != "NPU" or not all(os.path.exists(path(n)) for n in names):
        skipped += 1
        continue
    xs = [np.load(path(x["name"])).astype(np.float64) for x in acts]
    ys = [np.load(path(x["name"])).astype(np.float64) for x in nd["outputs"]]
    if nd["op"] == "Split":
        cut = np.cumsum([x["shape"][1] for x in nd["outputs"]])[:-1]
        refs = np.split(xs[0], cut, axis=1)
    elif nd["op"] == "exSDPAttention":
        q, k, v = (a.reshape(a.shape[0], a.shape[1], -1) for a in xs[:3])
        a = np.einsum("ndi,ndj->nij", q, k) / np.sqrt(q.shape[1])
        a = np.exp(a - a.max(axis=2, keepdims=True))
        a /= a.sum(axis=2, keepdims=True)
        refs = [np.einsum("ncj,nij->nci", v, a).reshape(ys[0].shape)]
    elif nd["op"] == "Resize":
        refs = [bilinear(xs[0], nd["outputs"][0]["shape"])]
    elif nd["op"] == "Reshape":
        refs = [xs[0].reshape(nd["outputs"][0]["shape"])]
    else:
        refs = [xs[0] + xs[1] if nd["op"] == "Add" else np.maximum(xs[0] + xs[1], 0)
                if nd["op"] == "AddRelu" else np.concatenate(xs, axis=1)]
    worst = 0.0
    for y, ref, o in zip(ys, refs, nd["outputs"]):
        # the output's int8 range bounds the reference: a requantizing copy saturates
        # (yolov10n's /model.22/Split narrows 0.035 to 0.0226 a step)
        ref = np.clip(ref, o["scale"] * (-128 - o["zero_point"]), o["scale"] * (127 - o["zero_point"]))
        err = np.abs(y - ref).max() if ref.shape == y.shape else np.inf
        st = step(y) if nd["op"] != "Reshape" else np.inf
        worst = max(worst, err / st if nd["op"] != "Reshape" else (0 if err == 0 else np.inf))
        if nd["op"] == "Reshape" and err != 0:
            print("FAIL Reshape %s: max |error| %.4g (not numpy's reshape)" % (nd["name"], err))
    if worst <= 1.01:
        passed += 1
        print("ok   %s %s: %.2f output steps" % (nd["op"], nd["name"], worst))
    else:
        failed += 1
        print("FAIL %s %s: %.2f output steps" % (nd["op"], nd["name"], worst))
print("%d %s nodes not all computed" % (skipped, "Add/Concat/Split/Reshape/attention/Resize"))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
