#!/usr/bin/env bash
# tests/samples/vendor_yolov5_seg.sh FILE.rknn [BUILD] — a third-party vendor file
# through the emulator end to end: yolov5n-seg-quantify.rknn of
# github.com/BlueBrightWind/rknn-framework (weights/, rk3588, toolkit 2.3.0, int8;
# the repository states no licence, so the file is not in this tree and this check
# runs where a copy is, not in `make test`). Its 979 tasks are three tilings (one,
# two and three cores; graph slot 10 [0,0,0,247,580]); the emulator runs the
# one-core tiling. Oracles: the bundled bus.jpg decoded as YOLOv5 (sigmoid
# outputs, the standard anchors) against the model zoo's yolov5_seg "Expected
# Results" for this image (yolov5s-seg: four persons and a bus; each of our
# detections must match one of theirs at IoU >= 0.7 and the four largest must be
# found); every Add and Concat against numpy (tests/samples/emu_dpu_check.py);
# every MaxPool equal to numpy's over the dumped input (padded cells never win).
# Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
F=${1:?usage: vendor_yolov5_seg.sh YOLOV5N_SEG_QUANTIFY.rknn [BUILD]}
B=${2:-${BUILD:-build}}
PY=${PYTHON:-/usr/bin/python3}
source tests/samples/checks.sh

$PY -c '
import sys, numpy as np
from PIL import Image
x = np.asarray(Image.open("tests/data/images/bus.jpg").convert("RGB"), np.float32)
np.save(sys.argv[1], x.transpose(2, 0, 1)[None])   # 0..255: the file divides by its std 255
' "$T/bus.npy"
if "$B/rknn-trace" run "$F" --emulate -i images="$T/bus.npy" --dump "$T/d" --no-db > "$T/run.log" 2>&1; then
    ok "emulated: $(grep -m1 'NPU tasks computed' "$T/run.log" | cut -c1-80)"
else
    bad "run --emulate: $(tail -1 "$T/run.log")"; finish; exit 1
fi
grep -q "the file's one-core tiling, 247 of its 979 tasks" "$T/run.log" && ok "one-core tiling" \
    || bad "tiling line: $(grep -m1 tiling "$T/run.log")"

if out=$($PY - "$T/d" <<'EOF'
import sys, numpy as np
d = sys.argv[1]
# the zoo's examples/yolov5_seg/README.md, "Expected Results" (yolov5s-seg, this image)
zoo = [(0, 213, 238, 284, 515), (0, 109, 241, 224, 536), (0, 474, 230, 560, 522),
       (5, 98, 133, 547, 461), (0, 79, 326, 124, 520)]
anchors = [[(10, 13), (16, 30), (33, 23)], [(30, 61), (62, 45), (59, 119)],
           [(116, 90), (156, 198), (373, 326)]]
found = []
for level, (name, stride) in enumerate(zip(["output0", "376", "379"], (8, 16, 32))):
    a = np.load(f"{d}/{name}.npy")[0]
    a = a.reshape(3, 85, a.shape[1], a.shape[2])
    for k in range(3):
        p = a[k]
        score = p[4] * p[5:].max(0)
        for y, x in zip(*np.where(score > 0.4)):
            cx = (p[0, y, x] * 2 - 0.5 + x) * stride
            cy = (p[1, y, x] * 2 - 0.5 + y) * stride
            w = (p[2, y, x] * 2) ** 2 * anchors[level][k][0]
            h = (p[3, y, x] * 2) ** 2 * anchors[level][k][1]
            found.append((score[y, x], int(p[5:, y, x].argmax()), cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2))
def iou(a, b):
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    i = ix * iy
    return i / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - i)
keep = []
for f in sorted(found, reverse=True):
    if all(f[1] != k[1] or iou(f[2:], k[2:]) < 0.45 for k in keep):
        keep.append(f)
msgs = []
for f in keep:
    best = max((iou(f[2:], z[1:]) for z in zoo if z[0] == f[1]), default=0)
    if best < 0.7:
        msgs.append(f"class {f[1]} score {f[0]:.3f} box {[round(v) for v in f[2:]]}: no zoo box (IoU {best:.2f})")
for z in zoo[:4]:
    if not any(f[1] == z[0] and iou(f[2:], z[1:]) >= 0.7 for f in keep):
        msgs.append(f"zoo's class {z[0]} {z[1:]} not found")
print(len(keep), "; ".join(msgs))
sys.exit(1 if msgs else 0)
EOF
); then ok "detections on bus.jpg: $out"; else bad "detections: $out"; fi

"$B/rknn-trace" inspect "$F" --json > "$T/info.json"
r=$($PY tests/samples/emu_dpu_check.py "$T/d" "$T/info.json" | tail -1)
[ "$r" = "20 passed, 0 failed" ] && ok "Add/Concat vs numpy: $r" || bad "Add/Concat vs numpy: $r"

if out=$($PY - "$T/d" "$T/info.json" <<'EOF'
import json, os, sys, numpy as np
d, info = sys.argv[1], json.load(open(sys.argv[2]))
path = lambda n: os.path.join(d, n.replace("/", "_").replace(":", "_") + ".npy")
n_pool, msgs = 0, []
for n in info["nodes"]:
    if n["op"] != "MaxPool":
        continue
    x, y = np.load(path(n["inputs"][0]["name"])), np.load(path(n["outputs"][0]["name"]))
    k, p = n["kernel"][0], n["pad"][0]
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    h, w = x.shape[2:]
    r = np.max([xp[:, :, i:i + h, j:j + w] for i in range(k) for j in range(k)], axis=0)
    n_pool += 1
    if r.shape != y.shape or np.abs(r - y).max() != 0:
        msgs.append(n["name"])
print(n_pool, "; ".join(msgs))
sys.exit(1 if msgs or n_pool != 6 else 0)
EOF
); then ok "MaxPools vs numpy: $out"; else bad "MaxPools vs numpy: $out"; fi
finish
