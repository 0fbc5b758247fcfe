#!/usr/bin/env bash
# tests/quant/hybrid.sh [BUILD] — hybrid quantization with a Toolkit2-layout
# *.quantization.cfg: --write-quant-cfg writes valid YAML holding every
# parameter used; reading it back with --hybrid (calibrating on another input)
# reproduces the run exactly; a layer listed under custom_quantize_layers runs
# in fp16 (its values on the fp16 grid, fewer int8 layers), and so does the
# whole conv + bias + activation chain the NPU runs as one layer, whichever of
# them the file names: the NPU table shows that layer FLOAT16, says why, and
# costs it in fp16 (its DDR cycles from the fp16 bytes, by hand); bad files:
# exit 2.
source "$(dirname "$0")/harness.sh" "$@"
M=tests/data/models/mnist.onnx
$PY tests/quant/make_calib.py "$T/cal" 1,1,28,28 0,1 20 >/dev/null || bad "calib set"
$PY tests/e2e/make_input.py "$T/in.npy" 1,1,28,28 0,1 camera 0 || bad "input"
Q=(-i "Input3=$T/in.npy" -q i8 --no-db --no-progress --json)
expect_rc 0 "write cfg" "$R" run "$M" "${Q[@]}" --dataset "$T/cal/dataset.txt" --write-quant-cfg "$T/m.cfg"
cp "$T/out" "$T/a.json"
$PY - "$T/m.cfg" "$T/a.json" <<'PYEOF' && ok || bad "written cfg is Toolkit2-layout YAML"
import json, sys, yaml
cfg = yaml.safe_load(open(sys.argv[1]))
assert cfg["custom_quantize_layers"] == {}, cfg["custom_quantize_layers"]
qp = cfg["quantize_parameters"]
acc = json.load(open(sys.argv[2]))["accuracy"]
names = {r["name"] for r in acc["layers"]}
assert "Input3" in qp and "Plus214_Output_0" in qp, list(qp)[:5]
for k, v in qp.items():
    assert v["qtype"] == "asymmetric_quantized" and v["dtype"] == "int8"
    n = len(v["scale"])
    assert len(v["min"]) == len(v["max"]) == len(v["zero_point"]) == n
    assert all(s > 0 for s in v["scale"]) and all(-128 <= z <= 127 for z in v["zero_point"])
    assert (v["qmethod"] == "layer") == (n == 1) or k in ("Parameter193",), (k, v["qmethod"], n)
    # the SDK formula: scale = (max - min) / 255 for activations
    if n == 1 and k in names:
        assert abs(v["scale"][0] - (v["max"][0] - v["min"][0]) / 255) <= 1e-6 * v["scale"][0], k
# weights per channel: Parameter5 is the first conv's [8,1,5,5] weight
assert qp["Parameter5"]["qmethod"] == "channel" and len(qp["Parameter5"]["scale"]) == 8
PYEOF
# read back: no dataset (calibration on the input only), the file fixes every activation
expect_rc 0 "hybrid round trip" "$R" run "$M" "${Q[@]}" --hybrid "$T/m.cfg"
$PY - "$T/a.json" "$T/out" <<'PYEOF' && ok || bad "the file reproduces the dataset-calibrated run"
import json, sys
a, b = (json.load(open(f))["accuracy"] for f in sys.argv[1:3])
assert b["cfg_parameters"] > 10 and b["fp16_layers"] == 0, (b["cfg_parameters"], b["fp16_layers"])
assert [r["entire"] for r in a["layers"]] == [r["entire"] for r in b["layers"]]
assert [r["single"] for r in a["layers"]] == [r["single"] for r in b["layers"]]
PYEOF
# the second conv in fp16
sed 's/^custom_quantize_layers: {}$/custom_quantize_layers:\n    Convolution110_Output_0: float16/' "$T/m.cfg" >"$T/h.cfg"
expect_rc 0 "hybrid fp16 layer" "$R" run "$M" "${Q[@]}" --hybrid "$T/h.cfg" --dump "$T/D"
$PY - "$T/a.json" "$T/out" "$T/D" <<'PYEOF' && ok || bad "the fp16 layer"
import json, os, sys
import numpy as np
a, b = (json.load(open(f))["accuracy"] for f in sys.argv[1:3])
assert b["fp16_layers"] == 1 and b["int8_layers"] == a["int8_layers"] - 1, (b["fp16_layers"], b["int8_layers"])
row = {r["name"]: r for r in b["layers"]}["Convolution110_Output_0"]
arow = {r["name"]: r for r in a["layers"]}["Convolution110_Output_0"]
assert row["single"]["cos"] > 0.99999 and row["single"]["cos"] > arow["single"]["cos"], (row, arow)
idx = json.load(open(os.path.join(sys.argv[3], "index.json")))
f = [e["file"] for e in idx if e["name"] == "Convolution110_Output_0"][0]
x = np.load(os.path.join(sys.argv[3], f))
assert np.array_equal(x, x.astype(np.float16).astype(np.float32)), "not on the fp16 grid"
def grid(name):
    g = [e["file"] for e in idx if e["name"] == name][0]
    return np.load(os.path.join(sys.argv[3], g))
# the bias Add and the ReLU are fused with the conv: the same fp16 layer
for name in ("Plus112_Output_0", "ReLU114_Output_0"):
    y = grid(name)
    assert np.array_equal(y, y.astype(np.float16).astype(np.float32)), name + " not fp16"
    assert len(np.unique(y)) > 256, name
assert len(np.unique(grid("Pooling160_Output_0"))) <= 256, "the next int8 layer is back on a 256-level grid"
PYEOF
grep -q '"Convolution110_Output_0"' "$T/out" && ok || bad "row present"
# the NPU table: the fused ConvRelu of Convolution110 in INT8, then in FLOAT16
# whether the file names the conv or its activation; DDR cycles = bytes /
# 23.6544 (rk3588) with int8 C2 16, fp16 C2 8, 8 B (int8) / 4 B (fp16) per
# output channel: int8 3136 + 6528 + 3136 = 12800 B, fp16 3136 + 6464 + 6272
sed 's/^custom_quantize_layers: {}$/custom_quantize_layers:\n    ReLU114_Output_0: float16/' "$T/m.cfg" >"$T/r.cfg"
N=(-i "Input3=$T/in.npy" -q i8 --no-db --no-progress --npu-table)
expect_rc 0 "int8 table" "$R" run "$M" "${N[@]}" --dataset "$T/cal/dataset.txt"
cp "$T/out" "$T/t8.txt"
expect_rc 0 "hybrid table (conv named)" "$R" run "$M" "${N[@]}" --hybrid "$T/h.cfg"
cp "$T/out" "$T/tc.txt"
expect_rc 0 "hybrid table (activation named)" "$R" run "$M" "${N[@]}" --hybrid "$T/r.cfg"
cp "$T/out" "$T/tr.txt"
$PY - "$T/t8.txt" "$T/tc.txt" "$T/tr.txt" <<'PYEOF' && ok || bad "the fused layer's dtype and cost"
import math, sys
def row(path):
    text = open(path).read()
    for line in text.splitlines():
        f = line.split()
        if len(f) > 8 and f[-1] == "Conv:Convolution110":
            ddr, npu, tot = map(int, f[6].split("/"))
            return f[1], f[2], ddr, int(f[7]), text
    raise SystemExit("no Convolution110 row in " + path)
op8, dt8, ddr8, t8, x8 = row(sys.argv[1])
assert (op8, dt8) == ("ConvRelu", "INT8"), (op8, dt8)
assert ddr8 == math.ceil(12800 / 23.6544), ddr8
assert "hybrid:" not in x8
for p, named in ((sys.argv[2], "Convolution110_Output_0"), (sys.argv[3], "ReLU114_Output_0")):
    op, dt, ddr, t, x = row(p)
    assert (op, dt) == ("ConvRelu", "FLOAT16"), (p, op, dt)
    assert ddr == math.ceil(15872 / 23.6544) and ddr != ddr8, (ddr, ddr8)
    assert t != t8, ("level-4 time unchanged", t, t8)
    note = "hybrid: layer 4 ConvRelu runs in FLOAT16 (the hybrid file names %s" % named
    assert note in x, x[-600:]
    # the other conv stays int8
    assert any(l.split()[-1:] == ["Conv:Convolution28"] and " UINT8 " in l for l in x.splitlines())
PYEOF
# bad files: one line, exit 2
printf 'custom_quantize_layers:\n    nosuch_tensor: float16\n' >"$T/bad1.cfg"
printf 'quantize_parameters:\n    nosuch:\n        min: [0]\n        max: [1]\n' >"$T/bad2.cfg"
printf 'custom_quantize_layers:\n    x: int4\n' >"$T/bad3.cfg"
for c in bad1:"nosuch_tensor" bad2:"quantize_parameters names 'nosuch'" bad3:"line 2: layer 'x': only float16"; do
    f=${c%%:*}; want=${c#*:}
    expect_rc 2 "$f" "$R" run "$M" "${Q[@]}" --hybrid "$T/$f.cfg"
    grep -qF "$want" "$T/err" && grep -qF "$f.cfg" "$T/err" && [ "$(wc -l <"$T/err")" = 1 ] && ok || bad "$f message: $(cat "$T/err")"
done
expect_rc 2 "missing file" "$R" run "$M" "${Q[@]}" --hybrid "$T/nosuch.cfg"
expect_rc 1 "hybrid needs i8" "$R" run "$M" -q fp16 --no-db --hybrid "$T/m.cfg"
finish
