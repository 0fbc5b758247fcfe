#!/usr/bin/env bash
# tests/quant/build.sh [BUILD] — `rknn-trace build`: the container's layout read
# back independently (Python: magic, table, sections, META JSON, QCFG YAML, ONNX
# bytes equal to the source), `run` on it reproduces the dataset-calibrated run
# exactly with the build's target, and broken containers or options fail cleanly.
source "$(dirname "$0")/harness.sh" "$@"
M=tests/data/models/mnist.onnx
$PY tests/quant/make_calib.py "$T/cal" 1,1,28,28 0,1 20 >/dev/null || bad "calib set"
$PY tests/e2e/make_input.py "$T/in.npy" 1,1,28,28 0,1 camera 0 || bad "input"
expect_rc 0 "build i8" "$R" build "$M" -t rk3566 --quant-algo kl_divergence --quant-method layer \
    --dataset "$T/cal/dataset.txt" --no-progress -o "$T/m.rknn"
grep -q "^wrote .*m.rknn: i8 for rk3566 (kl_divergence, layer, 20 calibration samples" "$T/out" && ok || bad "summary: $(cat "$T/out")"
$PY - "$T/m.rknn" "$M" <<'PYEOF' && ok || bad "container layout"
import json, struct, sys, yaml
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"RKTRSIM\0"
ver, n = struct.unpack_from("<II", b, 8)
assert ver == 1 and n == 3, (ver, n)
sec = {}
for i in range(n):
    tag, off, ln = struct.unpack_from("<8sQQ", b, 16 + 24 * i)
    assert off % 8 == 0 and off + ln <= len(b)
    sec[tag.rstrip(b"\0").decode()] = b[off:off + ln]
assert set(sec) == {"META", "ONNX", "QCFG"}, sec.keys()
assert sec["ONNX"] == open(sys.argv[2], "rb").read()
meta = json.loads(sec["META"])
assert meta["format"] == "rknn-trace-sim" and meta["target"] == "rk3566" and meta["quant"] == "i8"
assert meta["quant_algo"] == "kl_divergence" and meta["quant_method"] == "layer"
assert meta["calibration_samples"] == 20 and meta["quant_dtype"] == "asymmetric_quantized-8"
cfg = yaml.safe_load(sec["QCFG"])
assert "Input3" in cfg["quantize_parameters"] and cfg["custom_quantize_layers"] == {}
# per-layer weights: one scale per weight tensor
assert all(len(v["scale"]) == 1 for v in cfg["quantize_parameters"].values())
PYEOF
expect_rc 0 "run the container" "$R" run "$T/m.rknn" -i "Input3=$T/in.npy" --no-db --no-progress --json
cp "$T/out" "$T/c.json"
expect_rc 0 "run the source" "$R" run "$M" -i "Input3=$T/in.npy" -q i8 --quant-algo kl_divergence \
    --quant-method layer --dataset "$T/cal/dataset.txt" --no-db --no-progress --json
$PY - "$T/c.json" "$T/out" <<'PYEOF' && ok || bad "the container reproduces the calibrated run"
import json, sys
c, d = (json.load(open(f)) for f in sys.argv[1:3])
assert c["platform"] == "rk3566", c["platform"]
a, b = c["accuracy"], d["accuracy"]
assert a["quant_algo"] == "kl_divergence" and a["quant_method"] == "layer"
assert [r["entire"] for r in a["layers"]] == [r["entire"] for r in b["layers"]]
PYEOF
expect_rc 0 "fp32 run of the container" "$R" run "$T/m.rknn" -q fp32 --no-db
expect_rc 0 "-t overrides" "$R" run "$T/m.rknn" -t rk3588 --no-db --no-progress --json
$PY -c "import json,sys; assert json.load(open(sys.argv[1]))['platform']=='rk3588'" "$T/out" && ok || bad "-t wins"
expect_rc 0 "build fp16" "$R" build "$M" -q fp16 -o "$T/h.rknn"
expect_rc 0 "run fp16 container" "$R" run "$T/h.rknn" --no-db --no-progress --json
$PY -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['accuracy']['quant']=='fp16'" "$T/out" && ok || bad "fp16 container runs fp16"
# bad input
expect_rc 1 "i8 without dataset" "$R" build "$M" -o "$T/x.rknn"
# one line that says i8 is the default and what builds without calibration
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "the default" "$T/err" && grep -q -- "--dataset FILE" "$T/err" &&
    grep -q -- "-q fp16 or -q fp32 needs neither" "$T/err" && ok || bad "i8 without dataset: $(cat "$T/err")"
expect_rc 1 "no -o" "$R" build "$M" -q fp16
expect_rc 1 "bad target" "$R" build "$M" -q fp16 -t rk9999 -o "$T/x.rknn"
expect_rc 1 "container as source" "$R" build "$T/m.rknn" -q fp16 -o "$T/x.rknn"
head -c 100 "$T/m.rknn" >"$T/trunc.rknn"
expect_rc 2 "truncated container" "$R" run "$T/trunc.rknn" --no-db
grep -q "lies outside the file" "$T/err" && [ "$(wc -l <"$T/err")" = 1 ] && ok || bad "truncated message: $(cat "$T/err")"
$PY -c "
import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[8]=9; open(sys.argv[2],'wb').write(b)" "$T/m.rknn" "$T/v9.rknn"
expect_rc 2 "future version" "$R" run "$T/v9.rknn" --no-db
grep -q "version 9" "$T/err" && ok || bad "version message: $(cat "$T/err")"
# build options as model options (Toolkit2's config): mean/std without a dataset, a
# shape set, one shape; META read back by Python
DYN=tests/api/dyn_relu4d.onnx
expect_rc 0 "fp32 with --mean/--std, no dataset" "$R" build "$M" -q fp32 --mean 0 --std 255 -o "$T/ms.rknn"
expect_rc 0 "fp16 shape set, reorder" "$R" build "$DYN" -q fp16 --mean 10,20 --std 2,4 --reorder 1,0 \
    --dynamic-input X=1,2,4,6 --dynamic-input "X=1,2,8,10" -o "$T/set.rknn"
grep -q ", 2 input shape sets$" "$T/out" && ok || bad "summary: $(cat "$T/out")"
expect_rc 0 "one --shape" "$R" build "$DYN" -q fp32 --shape X=1,2,3,5 -o "$T/one.rknn"
$PY - "$T/ms.rknn" "$T/set.rknn" "$T/one.rknn" <<'PYEOF' && ok || bad "META build options"
import json, struct, sys
def meta(path):
    b = open(path, "rb").read()
    for i in range(struct.unpack_from("<I", b, 12)[0]):
        tag, off, ln = struct.unpack_from("<8sQQ", b, 16 + 24 * i)
        if tag.rstrip(b"\0") == b"META":
            return json.loads(b[off:off + ln])
a, b, c = (meta(p) for p in sys.argv[1:4])
assert a["inputs"] == [{"name": "Input3", "mean": [0], "std": [255], "reorder": None}], a["inputs"]
assert a["dynamic_input"] is None and a["quant"] == "fp32"
assert b["inputs"] == [{"name": "X", "mean": [10, 20], "std": [2, 4], "reorder": [1, 0]}], b["inputs"]
assert b["dynamic_input"] == [[[1, 2, 4, 6]], [[1, 2, 8, 10]]], b["dynamic_input"]
assert c["dynamic_input"] == [[[1, 2, 3, 5]]] and c["inputs"][0]["mean"] is None, c
PYEOF
expect_rc 1 "--shape with --dynamic-input" "$R" build "$DYN" -q fp32 --shape X=1,2,4,4 \
    --dynamic-input X=1,2,4,6 -o "$T/x.rknn"
expect_rc 1 "--reorder not a permutation" "$R" build "$DYN" -q fp32 --reorder 0,0 -o "$T/x.rknn"
grep -q "permutation" "$T/err" && ok || bad "reorder message: $(cat "$T/err")"
expect_rc 1 "a set without the input" "$R" build "$DYN" -q fp32 --dynamic-input Y=1,2,4,6 -o "$T/x.rknn"
grep -q "does not give input 'X'" "$T/err" && ok || bad "set message: $(cat "$T/err")"
expect_rc 2 "a set the model cannot take" "$R" build "$M" -q fp32 --dynamic-input Input3=1,1,28,28 \
    --dynamic-input Input3=1,1,20,20 -o "$T/x.rknn"
grep -q "^rknn-trace: --dynamic-input set 1 (Input3=1,1,20,20): node .*(Reshape): 1x16x3x3 (144 elements) cannot become 256 elements" "$T/err" &&
    [ "$(wc -l <"$T/err")" = 1 ] && ok || bad "set 1 message: $(cat "$T/err")"
expect_rc 1 "--reorder of other channels" "$R" build "$DYN" -q fp32 --reorder 2,1,0 \
    --shape X=1,2,4,4 -o "$T/x.rknn"
grep -q "reorder gives 3 channels, input 'X' has 2" "$T/err" && ok || bad "reorder channels: $(cat "$T/err")"
# an NHWC (channels-last) ONNX input: Toolkit2 reads dim 1 as the channels and refuses
# mean_values of another length (mmdeploy issue 2271); never a silent skip
NHWC=tests/api/nhwc_relu.onnx
expect_rc 1 "--mean on an NHWC input" "$R" build "$NHWC" -q fp16 --mean 127.5 --std 127.5 -o "$T/x.rknn"
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "^rknn-trace: --mean/--std/--reorder: input 'X' is 1x8x8x3 and an ONNX input's channels are dim 1 (8 here" "$T/err" &&
    [ ! -e "$T/x.rknn" ] && ok || bad "NHWC mean message: $(cat "$T/err")"
expect_rc 1 "--reorder on an NHWC input" "$R" build "$NHWC" -q fp16 --reorder 2,1,0 -o "$T/x.rknn"
grep -q "input 'X' is 1x8x8x3" "$T/err" && ok || bad "NHWC reorder message: $(cat "$T/err")"
expect_rc 0 "an NHWC input without mean/std" "$R" build "$NHWC" -q fp16 -o "$T/nhwc.rknn"
# an op the target runs on neither its NPU nor its CPU (ArgMax on rv1106, rknn-oplist.md):
# the board's rknn_init would refuse it ("unsupport cpu ArgMax op", rknn-toolkit2 #557)
AM=tests/api/argmax_c.onnx
for q in fp32 fp16; do
    expect_rc 2 "ArgMax for rv1106 ($q)" "$R" build "$AM" -t rv1106 -q $q -o "$T/am.rknn"
    [ "$(wc -l <"$T/err")" = 1 ] &&
        grep -q "^rknn-trace: unsupport cpu ArgMax op, op name: ArgMax:argmax0 in current: rv1106 runs ArgMax neither on its NPU nor on its runtime's CPU" "$T/err" &&
        [ ! -e "$T/am.rknn" ] && ok || bad "rv1106 ArgMax message ($q): $(cat "$T/err")"
done
expect_rc 0 "ArgMax for rk3588 (its CPU has it)" "$R" build "$AM" -t rk3588 -q fp16 -o "$T/am.rknn"
finish
