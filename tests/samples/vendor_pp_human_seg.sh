#!/usr/bin/env bash
# tests/samples/vendor_pp_human_seg.sh FILE.rknn [BUILD] — the SDK's custom-op sample
# pp_human_segv2_custom_argmax.rknn for rk3588 (airockchip/rknn-toolkit2,
# rknpu2/examples/rknn_custom_op_demo/rknn_custom_gpu_op_demo/model/RK3588/; toolkit
# 2.x, int8; PaddleSeg's PP-HumanSegV2-Mobile converted by Rockchip: the file is
# under the SDK's own licence terms, so it is not in this tree and this check runs
# where a copy of the demo folder is, not in `make test`) through the emulator end
# to end, on the demo's model/test_image.jpg (resized to 192x192 as the demo's
# convert/test.py does, RGB, 0..255: the file's mean/std 127.5 normalize it).
# Oracles: every conv layer against numpy (tests/samples/rk3588_layers.py), every
# Resize (bilinear, half_pixel: copies and depthwise phases on the NPU), Add,
# AddRelu and Concat against numpy (tests/samples/emu_dpu_check.py), the CPU
# ArgMax equal to numpy's argmax of its dumped input, and the person mask against
# the demo's model/convert/result_truth.jpg (its "segmentation map" panel, the
# toolkit's simulator result of the same network for rk3576): IoU >= 0.7 of the
# person pixels. Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
F=${1:?usage: vendor_pp_human_seg.sh PP_HUMAN_SEGV2_CUSTOM_ARGMAX.rknn [BUILD]}
B=${2:-${BUILD:-build}}
PY=${PYTHON:-/usr/bin/python3}
M=$(dirname "$F")/..
source tests/samples/checks.sh

[ -f "$M/test_image.jpg" ] && [ -f "$M/convert/result_truth.jpg" ] || {
    echo "FAIL $M: no test_image.jpg and convert/result_truth.jpg beside the file's folder"; exit 1; }
$PY -c '
import sys, numpy as np
from PIL import Image
x = Image.open(sys.argv[1]).convert("RGB").resize((192, 192), Image.BILINEAR)
np.save(sys.argv[2], np.asarray(x, np.float32).transpose(2, 0, 1)[None])
' "$M/test_image.jpg" "$T/x.npy"
if "$B/rknn-trace" run "$F" --emulate -i x="$T/x.npy" --dump "$T/d" --no-db > "$T/run.log" 2>&1; then
    ok "emulated: $(grep -m1 'NPU tasks computed' "$T/run.log" | sed "s/^.*emulated: //" | cut -c1-90)"
else
    bad "run --emulate: $(tail -1 "$T/run.log")"; finish; exit 1
fi
"$B/rknn-trace" inspect "$F" --json > "$T/info.json"
r=$($PY tests/samples/rk3588_layers.py "$F" "$T/info.json" "$T/d" | tail -1)
[ "$r" = "73 of 73 layers within 1 output step" ] && ok "convs vs numpy: $r" || bad "convs vs numpy: $r"
r=$($PY tests/samples/emu_dpu_check.py "$T/d" "$T/info.json" | tail -1)
[ "$r" = "25 passed, 0 failed" ] && ok "Resize/Add/AddRelu/Concat vs numpy: $r" \
    || bad "Resize/Add/AddRelu/Concat vs numpy: $r"

if out=$($PY - "$T/d" "$M/convert/result_truth.jpg" <<'PYEOF'
import sys, numpy as np
from PIL import Image
d, truth = sys.argv[1:]
x = np.load(f"{d}/bilinear_interp_v2_13.tmp_0.npy")
m = np.load(f"{d}/argmax_0.tmp_0.npy").reshape(192, 192)
if not np.array_equal(np.argmax(x, axis=1).reshape(192, 192), m):
    print("the ArgMax output is not numpy's argmax of its input"); sys.exit(1)
# the figure's second panel: the first run of columns right of the input image
# that is almost all non-white, its rows the panel's
a = np.asarray(Image.open(truth).convert("RGB")).astype(int)
ink = np.abs(a - 255).sum(2) > 60
cols = np.where(ink.mean(0) > 0.5)[0]
runs = np.split(cols, np.where(np.diff(cols) > 1)[0] + 1)
p = a[:, runs[1][0]:runs[1][-1] + 1]
rows = np.where((np.abs(p - 255).sum(2) > 60).mean(1) > 0.9)[0]
p = p[rows[0]:rows[-1] + 1]
yy = ((np.arange(192) + 0.5) * p.shape[0] / 192).astype(int)
xx = ((np.arange(192) + 0.5) * p.shape[1] / 192).astype(int)
t = p[yy][:, xx][..., 0] > 64          # the colormap's person (128, 0, 0)
us = m == 1
iou = (t & us).sum() / max((t | us).sum(), 1)
print("argmax = numpy's; person %.2f %% of pixels (demo's result %.2f %%), IoU %.3f"
      % (100 * us.mean(), 100 * t.mean(), iou))
sys.exit(0 if iou >= 0.7 else 1)
PYEOF
); then ok "segmentation: $out"; else bad "segmentation: $out"; fi
finish
