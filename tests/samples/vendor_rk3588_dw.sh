#!/usr/bin/env bash
# tests/samples/vendor_rk3588_dw.sh FILE.rknn... — third-party rk3588 files with
# depthwise convs and ReLU6 (ConvClip) through the emulator, layer by layer:
# mobilenet_v2.rknn of github.com/boundarybitlabs/rknpu2-rs (crates/rknpu2/tests/
# fixtures, Apache-2.0, toolkit 2.3.2) and yolov10n.rknn of
# github.com/kaylorchen/ai_framework_demo (toolkit 2.0.0b12). The files are not in
# this tree; this check runs where copies are, not in `make test`. Per file: `run
# --emulate --dump` (a file that stops further on is reported with its stop line and
# checked up to it), then every dumped Conv / ConvAdd / ConvRelu / ConvClip layer,
# dense or depthwise, against float64 on its dumped input with the file's own
# weights and quantization (tests/samples/rk3588_layers.py: within 1 output step).
# A file named mobilenet_v2.rknn also runs the model zoo's bell.jpg
# (examples/mobilenet/model, from the zoo's git mirror in $ZOO) and its top-5 is
# compared with the zoo's README "Expected Results" for rk3588: [494] chime, bell,
# gong 0.990035, then 469, 653, 747, 442; top-1 must be 494 at >= 0.98 and at least
# 3 of the zoo's top-5 in ours. Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: vendor_rk3588_dw.sh FILE.rknn..." >&2; exit 2; }
B=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
ZOO=${ZOO:-/work/.mirror/airockchip+rknn_model_zoo/repo}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

for F in "$@"; do
    n=$(basename "$F"); d="$T/$n.d"; in=()
    if [ "$n" = mobilenet_v2.rknn ]; then
        if git --git-dir="$ZOO" show HEAD:examples/mobilenet/model/bell.jpg > "$T/bell.jpg" 2>/dev/null; then
            # RGB, 224 x 224 (bilinear), 0..255: the file applies its mean and std
            $PY -c '
import sys, numpy as np
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB").resize((224, 224), Image.BILINEAR)
np.save(sys.argv[2], np.asarray(im, np.float32).transpose(2, 0, 1)[None])
' "$T/bell.jpg" "$T/bell.npy" && in=(-i input="$T/bell.npy")
        else
            echo "note $n: no model zoo mirror at $ZOO: random input, no top-5 check"
        fi
    fi
    "$B/rknn-trace" run "$F" --emulate --no-db --seed 1 "${in[@]}" --dump "$d" > "$T/run.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] && ok "$n: runs whole" || echo "note $n: stops: $(tail -1 "$T/run.log" | sed 's/.*--emulate: //')"
    "$B/rknn-trace" inspect "$F" --json > "$T/i.json" || { bad "$n: inspect --json"; continue; }
    if $PY tests/samples/rk3588_layers.py "$F" "$T/i.json" "$d" > "$T/layers.log" 2>&1; then
        ok "$n: $(tail -1 "$T/layers.log")"
    else
        bad "$n: layers: $(grep FAIL "$T/layers.log" | head -3) $(tail -1 "$T/layers.log")"
    fi
    if [ ${#in[@]} -gt 0 ]; then
        if r=$($PY - "$d/output_mm.npy" <<'PYEOF'
import sys, numpy as np
o = np.load(sys.argv[1]).astype(np.float64).ravel()   # the Reshape's input: the logits
p = np.exp(o - o.max()); p /= p.sum()
top = [int(k) for k in np.argsort(-p)[:5]]
zoo = [494, 469, 653, 747, 442]
common = len(set(top) & set(zoo))
print(f"top-5 {top} p {[round(float(p[k]), 6) for k in top]}, {common} of the zoo's top-5")
sys.exit(0 if top[0] == 494 and p[494] >= 0.98 and common >= 3 else 1)
PYEOF
        ); then ok "$n bell.jpg: $r"; else bad "$n bell.jpg: $r"; fi
    fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
