#!/usr/bin/env bash
# tests/quant/qdq.sh [BUILD] — pre-quantized ONNX models run as they are: a QDQ
# model (Q/DQ pairs, per-channel and per-tensor int8 weights) and a QOperator
# model (QLinearConv, QLinearMatMul, com.microsoft QLinearAdd/Mul/LeakyRelu/
# Sigmoid/GlobalAveragePool), both made by make_qdq.py. Oracle: onnxruntime-node
# on the same input — the quantized outputs must be bit-identical — and numpy for
# the first QuantizeLinear (round half to even, saturation) from the dumps.
# Then -q i8 on both with their own parameters (runtime/quant/prequant.c; the
# QOperator model rewritten into QDQ first).
source "$(dirname "$0")/harness.sh" "$@"
$PY tests/quant/make_qdq.py "$T" || { echo "FAIL make_qdq.py"; exit 1; }
have_ort=0
[ -d "${ORT_MODULES:-/tmp/ort/node_modules}/onnxruntime-node" ] && have_ort=1
for m in qdq qop; do
    if "$R" run "$T/$m.onnx" -i x="$T/x.npy" --dump "$T/our_$m" --db "$T/r.db" >"$T/out" 2>"$T/err"; then
        ok
    else
        bad "$m: run failed: $(tail -1 "$T/err")"; continue
    fi
    if [ $have_ort = 1 ]; then
        NODE_PATH=${ORT_MODULES:-/tmp/ort/node_modules} node tests/oracle/ort_run.js "$T/$m.onnx" \
            "$T/ort_$m" x="$T/x.npy" >/dev/null 2>"$T/err" || bad "$m: onnxruntime: $(tail -1 "$T/err")"
        $PY - "$T/ort_$m/y.npy" "$T/our_$m" <<'PYEOF' && ok || bad "$m: output == onnxruntime"
import json, os, sys
import numpy as np
ref = np.load(sys.argv[1])
idx = json.load(open(os.path.join(sys.argv[2], "index.json")))
y = np.load(os.path.join(sys.argv[2], [e["file"] for e in idx if e["name"] == "y"][0]))
assert y.shape == ref.shape and y.dtype == ref.dtype, (y.shape, ref.shape, y.dtype)
assert np.array_equal(y, ref), (y, ref)
assert np.ptp(ref) > 0, "a constant output would prove nothing"
PYEOF
    else
        echo "skip: onnxruntime-node not found (ORT_MODULES)"
    fi
done
# QuantizeLinear of the input, from the dump: saturate(rint(x / s) + zp), uint8
$PY - "$T/our_qop" "$T/x.npy" <<'PYEOF' && ok || bad "QuantizeLinear vs numpy"
import json, os, sys
import numpy as np
idx = json.load(open(os.path.join(sys.argv[1], "index.json")))
q = np.load(os.path.join(sys.argv[1], [e["file"] for e in idx if e["name"] == "xq"][0]))
x = np.load(sys.argv[2])
want = np.clip(np.rint(x / np.float32(2.0 / 255)) + 128, 0, 255).astype(np.uint8)
assert q.dtype == np.uint8 and np.array_equal(q, want), np.argwhere(q != want)[:5]
PYEOF
# a per-axis scale that does not fit its axis: one line, exit 2
$PY - "$T/qdq.onnx" "$T/bad.onnx" <<'PYEOF'
import sys
b = open(sys.argv[1], "rb").read()
# axis=1 of the MatMul weight's DequantizeLinear -> axis=0 (8 rows, 4 scales)
i = b.find(b"\x0a\x04axis\x18\x01")
assert i >= 0
open(sys.argv[2], "wb").write(b[:i] + b"\x0a\x04axis\x18\x00" + b[i + 8:])
PYEOF
"$R" run "$T/bad.onnx" --db "$T/r.db" >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 2 ] && ok || bad "bad per-axis scale: exit $rc, want 2"
grep -q "per-axis scale of 4 values does not match axis 0" "$T/err" && [ "$(wc -l <"$T/err")" = 1 ] && ok \
    || bad "bad per-axis message: $(cat "$T/err")"
# -q i8 on the QDQ model: its own parameters, no --dataset. The quantized output
# must be onnxruntime's on the QDQ model (same integer grid: within one step of
# the output scale 0.01, counted exact); the golden that of onnxruntime on the
# dequantized float twin (qdq_float.onnx); the stored run has the accuracy rows;
# the NPU lowering sees no Q/DQ layer.
if "$R" run "$T/qdq.onnx" -q i8 -i x="$T/x.npy" --dump-golden "$T/G" --dump-quant "$T/Q" \
        --db "$T/q.db" --no-progress >"$T/out" 2>"$T/err"; then
    ok
else
    bad "qdq -q i8 without --dataset: $(tail -1 "$T/err")"
fi
grep -q "is pre-quantized: its own scales" "$T/err" && ok || bad "qdq -q i8: no pre-quantized note: $(cat "$T/err")"
grep -q "CPU fallback: none" "$T/out" && ! grep -qE "QuantizeLinear|DequantizeLinear" "$T/out" && ok \
    || bad "qdq -q i8: Q/DQ layers or CPU fallbacks in the NPU summary"
grep -q "0 calibration samples, 3 int8 layers" "$T/out" && ok || bad "qdq -q i8: $(grep '# quant' "$T/out")"
"$R" show 1 --db "$T/q.db" --json >"$T/show.json" 2>"$T/err" || bad "show: $(tail -1 "$T/err")"
$PY - "$T/show.json" <<'PYEOF' && ok || bad "qdq -q i8: stored accuracy rows"
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["name"]: r for r in d["accuracy"]["layers"]}
assert set(rows) == {"x", "c1", "r1", "c2", "gap", "flat", "mm", "logits", "y"}, sorted(rows)
assert rows["y"]["output"] and rows["c1"]["fused"]
assert all(0.999 < r["entire"]["cos"] <= 1 for r in d["accuracy"]["layers"]), d["accuracy"]
assert not any("Quantize" in l["op"] for l in d["layers"])
PYEOF
if [ $have_ort = 1 ]; then
    NODE_PATH=${ORT_MODULES:-/tmp/ort/node_modules} node tests/oracle/ort_run.js "$T/qdq_float.onnx" \
        "$T/ort_float" x="$T/x.npy" >/dev/null 2>"$T/err" || bad "float twin: onnxruntime: $(tail -1 "$T/err")"
    $PY - "$T/ort_qdq/y.npy" "$T/ort_float/y.npy" "$T/G" "$T/Q" <<'PYEOF' && ok || bad "qdq -q i8 vs onnxruntime"
import json, os, sys
import numpy as np
def dumped(d, name):
    idx = json.load(open(os.path.join(d, "index.json")))
    return np.load(os.path.join(d, [e["file"] for e in idx if e["name"] == name][0]))
ref_q, ref_f = np.load(sys.argv[1]), np.load(sys.argv[2])
gold, quant = dumped(sys.argv[3], "y"), dumped(sys.argv[4], "y")
steps = np.abs(quant.astype(np.float64) - ref_q) / 0.01
assert steps.max() <= 1 + 1e-3, (quant, ref_q)
print("qdq -q i8: %d of %d outputs equal to onnxruntime, max %.3g steps" %
      ((quant == ref_q).sum(), quant.size, steps.max()))
assert np.allclose(gold, ref_f, rtol=1e-5, atol=1e-6), (gold, ref_f)
assert not np.array_equal(gold, quant), "golden and quantized runs should differ"
PYEOF
fi
# build without --dataset: the container reproduces the same quantized output
if "$R" build "$T/qdq.onnx" -q i8 -o "$T/qdq.rknn" >"$T/out" 2>"$T/err" &&
        "$R" run "$T/qdq.rknn" -i x="$T/x.npy" --dump-quant "$T/Q2" --db "$T/q.db" --no-progress \
            >"$T/out" 2>"$T/err"; then
    $PY - "$T/Q" "$T/Q2" <<'PYEOF' && ok || bad "built qdq container: output != run -q i8"
import json, os, sys
import numpy as np
def dumped(d, name):
    idx = json.load(open(os.path.join(d, "index.json")))
    return np.load(os.path.join(d, [e["file"] for e in idx if e["name"] == name][0]))
assert np.array_equal(dumped(sys.argv[1], "y"), dumped(sys.argv[2], "y"))
PYEOF
else
    bad "build/run qdq container: $(tail -1 "$T/err")"
fi
# -q i8 on the QOperator model: prequant.c rewrites each QLinear* node into
# DequantizeLinear -> float op -> QuantizeLinear with its own parameters, then
# the QDQ path applies: no --dataset, golden = onnxruntime on the float
# equivalent (qop_float.onnx), stored rows, no Q/DQ/QLinear layer left.
if "$R" run "$T/qop.onnx" -q i8 -i x="$T/x.npy" --dump-golden "$T/QG" --dump-quant "$T/QQ" \
        --db "$T/qop.db" --no-progress >"$T/out" 2>"$T/err"; then
    ok
else
    bad "qop -q i8 without --dataset: $(tail -1 "$T/err")"
fi
grep -q "is pre-quantized" "$T/err" && ok || bad "qop -q i8: no pre-quantized note: $(cat "$T/err")"
# node names keep their QLinear* origin ("QLinearConv_1"): look for op names only
grep -q "CPU fallback: none" "$T/out" && \
    ! grep -qE "(^| )(QuantizeLinear|DequantizeLinear|QLinear[A-Za-z]+)( |$)" "$T/out" && ok \
    || bad "qop -q i8: Q/DQ/QLinear layers or CPU fallbacks in the NPU summary"
grep -q "0 calibration samples, 3 int8 layers" "$T/out" && ok || bad "qop -q i8: $(grep '# quant' "$T/out")"
"$R" show 1 --db "$T/qop.db" --json >"$T/show.json" 2>"$T/err" || bad "qop show: $(tail -1 "$T/err")"
$PY - "$T/show.json" <<'PYEOF' && ok || bad "qop -q i8: stored accuracy rows"
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["name"]: r for r in d["accuracy"]["layers"]}
want = {"x", "c1", "c2", "add", "lrelu", "sig", "mul", "gap", "flat", "y"}
assert set(rows) == want, sorted(rows)
assert rows["y"]["output"]
assert all(0.99 < r["entire"]["cos"] <= 1 for r in d["accuracy"]["layers"]), d["accuracy"]
assert not any("Quantize" in l["op"] or "QLinear" in l["op"] for l in d["layers"]), d["layers"]
PYEOF
if [ $have_ort = 1 ]; then
    NODE_PATH=${ORT_MODULES:-/tmp/ort/node_modules} node tests/oracle/ort_run.js "$T/qop_float.onnx" \
        "$T/ort_qfloat" x="$T/x.npy" >/dev/null 2>"$T/err" || bad "qop float: onnxruntime: $(tail -1 "$T/err")"
    # Per layer, the fp32 run of qop.onnx (bit-identical to onnxruntime, checked
    # above) dequantized is the oracle of the quantized simulation. The first
    # QLinearConv (int8 x per-channel int8 weights + int32 bias) must be exact;
    # the final output within 1 step of its scale 0.002: every tensor the model
    # gives a grid is requantized where the model does it (no fusion over it);
    # the simulator rounds half away from zero where onnxruntime rounds half to
    # even, which can only move a tie.
    $PY - "$T/our_qop" "$T/ort_qop/y.npy" "$T/ort_qfloat/y.npy" "$T/QG" "$T/QQ" <<'PYEOF' && ok || bad "qop -q i8 vs onnxruntime"
import json, os, sys
import numpy as np
def dumped(d, name):
    idx = json.load(open(os.path.join(d, "index.json")))
    return np.load(os.path.join(d, [e["file"] for e in idx if e["name"] == name][0]))
fp32, ref_q, ref_f = sys.argv[1], np.load(sys.argv[2]), np.load(sys.argv[3])
gold, quant = dumped(sys.argv[4], "y"), dumped(sys.argv[5], "y")
c1 = (dumped(fp32, "c1").astype(np.float64) - 110) * np.float32(0.05)
assert np.abs(dumped(sys.argv[5], "c1") - c1).max() < 1e-6, "QLinearConv c1 not exact"
steps = np.abs(quant.astype(np.float64) - ref_q) / 0.002
print("qop -q i8: c1 exact; %d of %d outputs equal to onnxruntime, max %.3g steps" %
      ((steps < 1e-3).sum(), quant.size, steps.max()))
assert steps.max() <= 1 + 1e-3, (quant, ref_q)
assert np.allclose(gold, ref_f, rtol=1e-5, atol=1e-6), (gold, ref_f)
assert not np.array_equal(gold, quant), "golden and quantized runs should differ"
PYEOF
fi
# build without --dataset: the container reproduces the same quantized output
if "$R" build "$T/qop.onnx" -q i8 -o "$T/qop.rknn" >"$T/out" 2>"$T/err" &&
        "$R" run "$T/qop.rknn" -i x="$T/x.npy" --dump-quant "$T/QQ2" --db "$T/qop.db" --no-progress \
            >"$T/out" 2>"$T/err"; then
    $PY - "$T/QQ" "$T/QQ2" <<'PYEOF' && ok || bad "built qop container: output != run -q i8"
import json, os, sys
import numpy as np
def dumped(d, name):
    idx = json.load(open(os.path.join(d, "index.json")))
    return np.load(os.path.join(d, [e["file"] for e in idx if e["name"] == name][0]))
assert np.array_equal(dumped(sys.argv[1], "y"), dumped(sys.argv[2], "y"))
PYEOF
else
    bad "build/run qop container: $(tail -1 "$T/err")"
fi
finish
