#!/usr/bin/env bash
# tests/quant/shared.sh [BUILD] — MaxPool and nearest-Resize outputs carry their
# input's quantization parameters, as Toolkit2 gives them (real RK3566 and
# RV1103 files: yolov8n's SPPF MaxPools and Resizes, RetinaFace's Resizes,
# checked here from ../shared/data through the .rknn reader when present).
# On YOLOX-Nano (3 MaxPools, 2 nearest Resizes) the cfg `run --write-quant-cfg`
# writes must give each such output exactly its input's scale and zero point,
# read by python3-yaml with the graph from python3-onnx; other outputs keep
# their own (a Conv output differs from its input's).
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

M=tests/data/models/yolox_nano.onnx
if "$B/rknn-trace" run "$M" -q i8 --no-db --no-progress --write-quant-cfg "$T/y.cfg" \
        >/dev/null 2>"$T/err"; then ok; else bad "run --write-quant-cfg: $(cat "$T/err")"; fi
/usr/bin/python3 - "$M" "$T/y.cfg" >"$T/py" 2>&1 <<'PY'
import sys, onnx, yaml
m = onnx.load(sys.argv[1])
q = yaml.safe_load(open(sys.argv[2]))["quantize_parameters"]
def par(t):
    e = q.get(t)
    return None if e is None else (e["scale"][0], e["zero_point"][0])
shared = differ = 0
for n in m.graph.node:
    mode = next((a.s.decode() for a in n.attribute if a.name == "mode"), "nearest")
    if n.op_type == "MaxPool" or (n.op_type == "Resize" and mode == "nearest"):
        a, b = par(n.input[0]), par(n.output[0])
        if a is None or a != b:
            print("MISMATCH %s %s: in %s out %s" % (n.op_type, n.name, a, b))
        else:
            shared += 1
    elif n.op_type == "Conv" and par(n.input[0]) and par(n.output[0]) != par(n.input[0]):
        differ += 1
print("shared %d differ %d" % (shared, differ))
PY
if grep -q MISMATCH "$T/py" || ! grep -q "shared 5 differ [1-9]" "$T/py"; then
    bad "yolox cfg: $(cat "$T/py")"
else ok; fi

# The vendor's own parameters, where the real files are beside the repository.
R=${RT_SHARED:-../shared}/data/models/rknn
for f in "$R/yolov8n.rk3566.rknn" "$R/retinaface.rv1103.rknn"; do
    [ -f "$f" ] || continue
    "$B/tests/rknn_quant_pairs" "$f" >"$T/pairs" 2>&1 || { bad "$f: $(cat "$T/pairs")"; continue; }
    if grep -q "^differ" "$T/pairs" || ! grep -q "^same" "$T/pairs"; then
        bad "$f: $(cat "$T/pairs")"
    else ok; fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
