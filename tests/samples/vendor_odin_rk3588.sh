#!/usr/bin/env bash
# tests/samples/vendor_odin_rk3588.sh DIR — a vendor-compiled detector and its own
# ONNX: DIR is github.com/SumedhP/Odin-CV's CV/models (not in this tree: its
# repository states no licence), with model.onnx (a YOLOX-style network: a
# spatial pyramid of 5x5, 9x9 and 13x13 stride-1 MaxPools, head convs of 2
# groups) and model.rknn, toolkit 2.3.0's rk3588 int8 compile of it. Checks, on
# the level-4 tables (`run --npu-table`) of both:
#   - the 9x9 and 13x13 pools as the file's chains of 3x3 and 4x4 pools (the
#     same rows: shapes, cycles, names);
#   - each grouped conv as the file's Split, <conv>_group_<i> convs and Concat,
#     its Relu a row of its own (the same rows);
#   - the two predicted frames within 5 % (docs/vendor-rewrites.md).
# Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
source tests/samples/checks.sh
dir_arg "Odin-CV/CV/models" "$@"

"$R" run "$D/model.rknn" --no-db --npu-table >"$T/v.tab" 2>"$T/v.err" &&
    "$R" run "$D/model.rknn" --no-db --json >"$T/v.json" 2>>"$T/v.err" || bad "run FILE: $(tail -1 "$T/v.err")"
"$R" run "$D/model.onnx" -t rk3588 -q i8 --no-db --npu-table -n 1 --no-progress >"$T/o.tab" 2>"$T/o.err" &&
    "$R" run "$D/model.onnx" -t rk3588 -q i8 --no-db --json -n 1 --no-progress >"$T/o.json" 2>>"$T/o.err" ||
    bad "run ONNX: $(tail -1 "$T/o.err")"

$PY - "$T" >"$T/py.out" 2>&1 <<'PY'
import sys
sys.path.insert(0, "tests/samples")
from pairs import frame, load, rows, verdict
t = sys.argv[1]
v, o = rows(f"{t}/v.tab"), rows(f"{t}/o.tab")
def pick(rs, pred):
    return sorted(r for r in rs if pred(r))
pools = lambda r: r[0] == "MaxPool"
groups = lambda r: "/pconv/" in r[5] and "group_convs" in r[5] and r[0] in ("Split", "Conv", "Concat", "Relu")
for what, pred, n in (("MaxPool rows", pools, 9), ("grouped conv rows", groups, 30)):
    a, b = pick(v, pred), pick(o, pred)
    verdict(a == b and len(a) == n, f"{what}: {len(a)} in the file, {len(b)} ours" +
            ("" if a == b else f"; only in the file {sorted(set(a) - set(b))[:3]}, only ours {sorted(set(b) - set(a))[:3]}"))
frame(load(t, "v"), load(t, "o"))
PY
verdicts "$T/py.out"
finish
