#!/usr/bin/env bash
# tests/quant/qdq.sh [BUILD] — pre-quantized ONNX models run as they are: a QDQ
# model (Q/DQ pairs, per-channel and per-tensor int8 weights) and a QOperator
# model (QLinearConv, QLinearMatMul, com.microsoft QLinearAdd/Mul/LeakyRelu/
# Sigmoid/GlobalAveragePool), both made by make_qdq.py. Oracle: onnxruntime-node
# on the same input — the quantized outputs must be bit-identical — and numpy for
# the first QuantizeLinear (round half to even, saturation) from the dumps.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=/usr/bin/python3
R="$B/rknn-trace"
passed=0; failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
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
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
