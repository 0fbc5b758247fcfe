#!/usr/bin/env bash
# tests/samples/vendor_mlp_rk3576.sh DIR — a vendor-compiled MLP policy and its own
# ONNX: DIR holds model.onnx and model.rknn of github.com/qin-yuhao/mit_deploy (not
# in this tree: its repository states no licence). model.onnx is float16
# throughout (exported after .half(): nine Gemms, three BatchNorm1d, six Elu, the
# observation normalisers, Slices and Concats); model.rknn is toolkit 2.3.2's
# rk3576 int8 compile of it. Checks:
#   - the reader takes the file (two int8 inputs, [1,45] and [1,10,45]);
#   - the float16 ONNX runs (computed in float32) and predicts on rk3576 in int8;
#   - its prediction and the file's agree within 5 % a frame, with the same
#     Conv and ConvElu layers at the same NPU cycles (each Gemm a conv, BN and
#     Elu in it: docs/vendor-rewrites.md) and no BatchNormalization or Elu row;
#   - compare --graph pairs the nine convs with the file's (shapes in the
#     compiler's 4-D view), equal;
#   - the emulator refuses the file's 3-D input with one line naming it.
# Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
source tests/samples/checks.sh
dir_arg "mit_deploy_DIR" "$@"
F=$D/model.rknn
O=$D/model.onnx

"$R" inspect "$F" >"$T/insp" 2>&1 && grep -q "^  obs_hist .*shape \[1,10,45\]" "$T/insp" &&
    grep -q "^target: rk3576" "$T/insp" && ok "inspect reads the file" ||
    bad "inspect: $(tail -2 "$T/insp")"

"$R" run "$F" --no-db --json >"$T/v.json" 2>"$T/v.err" || bad "run FILE: $(tail -1 "$T/v.err")"
"$R" run "$O" -t rk3576 -q i8 --no-db --json -n 1 --no-progress >"$T/o.json" 2>"$T/o.err" &&
    ok "run the float16 ONNX, int8 on rk3576" || bad "run ONNX: $(tail -1 "$T/o.err")"

$PY - "$T" >"$T/py.out" 2>&1 <<'PY'
import sys
sys.path.insert(0, "tests/samples")
from pairs import frame, load, verdict
t = sys.argv[1]
v, o = load(t, "v"), load(t, "o")
frame(v, o)
def convs(d):
    return sorted((l["npu_op"], l["npu_cycles"]) for l in d["layers"]
                  if l.get("time_us") is not None and l["npu_op"] in ("Conv", "ConvElu"))
cv, co = convs(v), convs(o)
verdict(cv == co and len(cv) == 9, f"Conv/ConvElu layers and cycles: vendor {cv}, ours {co}")
left = [l["npu_op"] for l in o["layers"] if l["npu_op"] in ("BatchNormalization", "Elu")]
verdict(not left, f"no BatchNormalization or Elu row: {left}")
PY
verdicts "$T/py.out"

# compare --graph: no tensor name is shared, so layers pair by OpType and output
# shape, ours (1,128) against the file's (1,128,1,1): every Linear's conv with
# the one of its Gemm, equal
"$R" run "$O" -t rk3576 -q i8 -n 1 --no-progress --db "$T/db" --label o >/dev/null 2>&1 &&
    "$R" run "$F" --db "$T/db" --label r >/dev/null 2>&1 &&
    "$R" compare o r --graph --json --db "$T/db" >"$T/g.json" 2>"$T/g.err" ||
    bad "compare --graph: $(tail -1 "$T/g.err")"
$PY - "$T/g.json" >"$T/py.out" 2>&1 <<'PY'
import json, sys
sys.path.insert(0, "tests/samples")
from pairs import verdict
g = json.load(open(sys.argv[1]))["graph"]
convs = [(p["a"]["full_name"], p["b"]["full_name"], p["differ"]) for p in g["pairs"]
         if p["a"] and p["b"] and p["a"]["op"] in ("Conv", "ConvElu")]
ok = len(convs) == 9 and all(b == "Conv:" + a.split(":", 1)[1] + "#2" and not d for a, b, d in convs)
verdict(ok, f"compare --graph: the nine Linear convs paired with the file's, equal: {convs}")
PY
verdicts "$T/py.out"

if "$R" run "$F" --emulate --no-db >"$T/e.out" 2>&1; then
    bad "run --emulate took the file's 3-D input"
else
    [ "$(grep -c . "$T/e.out")" = 1 ] && grep -q "obs_hist" "$T/e.out" &&
        ok "run --emulate refuses naming obs_hist" || bad "run --emulate: $(cat "$T/e.out")"
fi
finish
