#!/usr/bin/env bash
# tests/samples/vendor_lprnet_rk3568.sh DIR — a vendor-compiled LPRNet and its own
# ONNX: DIR holds lprnet.onnx and lprnet.rknn of github.com/Kori-Sama/
# license-recognize's lprnet/model (not in this tree: its repository states no
# licence); the .rknn is toolkit 1.6.0's rk3568 int8 compile. Checks, on the
# level-4 tables (`run --npu-table`) of both (docs/vendor-rewrites.md):
#   - no Pad row: the three Pads of zero pads are dropped, as in the file;
#   - the last ReduceMean (over H = 4) as the file's NPU AveragePool
#     "ReduceMean_62_2avgpool" and CPU Reshape "ReduceMean_62_2avgpool_after",
#     the same rows (shapes, cycles, names).
# The frames are not compared: the file (toolkit 1.6.0) puts its four Pow on the
# CPU, the op list of 2.3.2 on rk3568's NPU. Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
source tests/samples/checks.sh
dir_arg "license-recognize/lprnet/model" "$@"

"$R" run "$D/lprnet.rknn" --no-db --npu-table >"$T/v.tab" 2>"$T/v.err" || bad "run FILE: $(tail -1 "$T/v.err")"
"$R" run "$D/lprnet.onnx" -t rk3568 -q i8 --no-db --npu-table -n 1 --no-progress >"$T/o.tab" 2>"$T/o.err" ||
    bad "run ONNX: $(tail -1 "$T/o.err")"

$PY - "$T" >"$T/py.out" 2>&1 <<'PY'
import sys
sys.path.insert(0, "tests/samples")
from pairs import rows, verdict
t = sys.argv[1]
v, o = rows(f"{t}/v.tab"), rows(f"{t}/o.tab")
pads = [r for r in o if r[0] == "Pad"]
verdict(not pads and not [r for r in v if r[0] == "Pad"], f"no Pad row: ours {pads}")
pick = lambda rs: sorted(r for r in rs if "2avgpool" in r[5])
a, b = pick(v), pick(o)
verdict(a == b and len(a) == 2, f"ReduceMean_62 as the file's pool and CPU Reshape: file {a}, ours {b}")
PY
verdicts "$T/py.out"
finish
