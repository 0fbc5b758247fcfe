#!/usr/bin/env bash
# tests/quant/hybrid.sh [BUILD] — hybrid quantization with a Toolkit2-layout
# *.quantization.cfg: --write-quant-cfg writes valid YAML holding every
# parameter used; reading it back with --hybrid (calibrating on another input)
# reproduces the run exactly; a layer listed under custom_quantize_layers runs
# in fp16 (its values on the fp16 grid, fewer int8 layers); bad files: exit 2.
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
g = [e["file"] for e in idx if e["name"] == "ReLU114_Output_0"][0]
y = np.load(os.path.join(sys.argv[3], g))
assert len(np.unique(y)) <= 256, "the next int8 layer is back on a 256-level grid"
PYEOF
grep -q '"Convolution110_Output_0"' "$T/out" && ok || bad "row present"
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
