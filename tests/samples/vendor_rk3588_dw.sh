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
# 3 of the zoo's top-5 in ours. mobilenet_v2 must run whole (its last layer, a
# Reshape of the logits [1,1000,1,1] to [1,1000], runs on the CPU: built in): its
# output is the run's (the output line and DIR/output.npy, the file's [1,1000]),
# the Reshape's input unchanged, on the output's int8 grid (the file's scale and
# zero point); the same image through librknnrt (build/samples/sample_vendor) gives
# the same values. Every file's dumped Adds, Concats, Splits, Reshapes
# and attention nodes against numpy too (tests/samples/emu_dpu_check.py).
# A file named yolov10n.rknn must stop at task 148 naming its exSDPAttention node
# (the attention's tasks are not decoded); then it runs with RKNN_TRACE_EMU_ATTN=float
# (that node from its meaning in float64) on the model zoo's
# examples/yolov10/model/bus.jpg (640 x 640, RGB): whole, every layer checked as
# above, and its detections (tests/oracle/yolov10_post.py) against the zoo's README
# "Expected Results" for yolov10: bus (88 137 556 438) 0.940, person (210 240 284 512)
# 0.903, (109 234 226 537) 0.891, (478 233 560 519) 0.796, (79 339 113 517) 0.365;
# each matched by one of ours of its class at IoU >= 0.9 and a score within 0.05, and
# no other. Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: vendor_rk3588_dw.sh FILE.rknn..." >&2; exit 2; }
B=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
ZOO=${ZOO:-/work/.mirror/airockchip+rknn_model_zoo/repo}
source tests/samples/checks.sh

for F in "$@"; do
    n=$(basename "$F"); d="$T/$n.d"; in=(); attn=
    if [ "$n" = yolov10n.rknn ]; then
        "$B/rknn-trace" run "$F" --emulate --no-db --seed 1 > "$T/run0.log" 2>&1
        if [ $? -eq 2 ] && grep -q "task 148 (node exSDPAttention:/model.10/attn/MatMul_1_exsdpa): an exSDPAttention's tasks are not decoded" "$T/run0.log"; then
            ok "$n: stops at its attention's first task (148) without RKNN_TRACE_EMU_ATTN"
        else
            bad "$n: without RKNN_TRACE_EMU_ATTN: $(tail -1 "$T/run0.log")"
        fi
        attn=float
        if git --git-dir="$ZOO" show HEAD:examples/yolov10/model/bus.jpg > "$T/bus.jpg" 2>/dev/null; then
            $PY -c '
import sys, numpy as np
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
assert im.size == (640, 640), im.size
np.save(sys.argv[2], np.asarray(im, np.float32).transpose(2, 0, 1)[None])
' "$T/bus.jpg" "$T/bus.npy" && in=(-i images="$T/bus.npy")
        else
            echo "note $n: no model zoo mirror at $ZOO: random input, no detection check"
        fi
    fi
    if [ "$n" = mobilenet_v2.rknn ]; then
        if git --git-dir="$ZOO" show HEAD:examples/mobilenet/model/bell.jpg > "$T/bell.jpg" 2>/dev/null; then
            # RGB, 224 x 224 (bilinear), 0..255: the file applies its mean and std
            $PY -c '
import sys, numpy as np
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB").resize((224, 224), Image.BILINEAR)
np.save(sys.argv[2], np.asarray(im, np.float32).transpose(2, 0, 1)[None])
np.asarray(im, np.uint8).tofile(sys.argv[3])   # NHWC bytes for librknnrt
' "$T/bell.jpg" "$T/bell.npy" "$T/bell.u8" && in=(-i input="$T/bell.npy")
        else
            echo "note $n: no model zoo mirror at $ZOO: random input, no top-5 check"
        fi
    fi
    RKNN_TRACE_EMU_ATTN=$attn "$B/rknn-trace" run "$F" --emulate --no-db --seed 1 "${in[@]}" --dump "$d" > "$T/run.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
        ok "$n: runs whole"
    elif [ "$n" = mobilenet_v2.rknn ]; then
        bad "$n: stops: $(tail -1 "$T/run.log" | sed 's/.*--emulate: //')"
    else
        echo "note $n: stops: $(tail -1 "$T/run.log" | sed 's/.*--emulate: //')"
    fi
    "$B/rknn-trace" inspect "$F" --json > "$T/i.json" || { bad "$n: inspect --json"; continue; }
    if $PY tests/samples/rk3588_layers.py "$F" "$T/i.json" "$d" > "$T/layers.log" 2>&1; then
        ok "$n: $(tail -1 "$T/layers.log")"
    else
        bad "$n: layers: $(grep FAIL "$T/layers.log" | head -3) $(tail -1 "$T/layers.log")"
    fi
    if [ "$n" = mobilenet_v2.rknn ] && [ $rc -eq 0 ]; then
        # the run's output: the printed line and its dump, against the Reshape's input
        if r=$($PY - "$d/output.npy" "$d/output_mm.npy" "$T/i.json" "$T/run.log" <<'PYEOF'
import json, re, sys, numpy as np
o, mm = np.load(sys.argv[1]), np.load(sys.argv[2])
q = [x for x in json.load(open(sys.argv[3]))['outputs'] if x['name'] == 'output'][0]
line = [l for l in open(sys.argv[4]) if l.strip().startswith('output output ')]
err = []
if o.shape != (1, 1000) or mm.size != 1000:
    err.append(f"shapes {o.shape} {mm.shape}")
elif not np.array_equal(o.ravel(), mm.ravel()):
    err.append(f"{int((o.ravel() != mm.ravel()).sum())} values differ from the Reshape's input")
k = (o.astype(np.float64) / q['scale']) + q['zero_point']
if np.abs(k - np.round(k)).max() > 1e-3 or k.min() < -128.001 or k.max() > 127.001:
    err.append("values off the output's int8 grid")
m = re.search(r'min (\S+) max (\S+) mean (\S+)', line[0]) if len(line) == 1 else None
if not m or abs(float(m[1]) - o.min()) > 1e-4 or abs(float(m[2]) - o.max()) > 1e-4 \
        or abs(float(m[3]) - o.mean()) > 1e-4:
    err.append(f"printed {line}, dump min {o.min()} max {o.max()} mean {o.mean()}")
print(f"output {list(o.shape)} = the Reshape's input, int8 grid of scale {q['scale']} zp {q['zero_point']}"
      if not err else "; ".join(err))
sys.exit(1 if err else 0)
PYEOF
        ); then ok "$n output: $r"; else bad "$n output: $r"; fi
    fi
    if [ "$n" = mobilenet_v2.rknn ] && [ $rc -eq 0 ] && [ ${#in[@]} -gt 0 ]; then
        # the same image through librknnrt (sample_vendor: rknn_outputs_get as floats and
        # int8, and the zero-copy flow's int8 memory): the run's output, value for value
        mkdir -p "$T/app"; r=""
        if "$B/samples/sample_vendor" "$F" "$T/app" "$T/bell.u8" > "$T/app.out" 2> "$T/app.err" &&
            r=$($PY - "$d/output.npy" "$T/app" "$T/i.json" <<'PYEOF'
import json, sys, numpy as np
o = np.load(sys.argv[1]).astype(np.float32).ravel()
f = np.fromfile(f"{sys.argv[2]}/out0.f32", np.float32)
i8 = np.fromfile(f"{sys.argv[2]}/out0.i8", np.int8).astype(np.float64)
zc = np.fromfile(f"{sys.argv[2]}/out0.zc.i8", np.int8).astype(np.float64)
q = [x for x in json.load(open(sys.argv[3]))['outputs'] if x['name'] == 'output'][0]
deq = lambda b: ((b - q['zero_point']) * q['scale']).astype(np.float32)
err = [w for w, v in (("want_float", f), ("int8", deq(i8)), ("zero-copy int8", deq(zc)))
       if v.size != 1000 or np.abs(v - o).max() > 1e-5 * max(1.0, np.abs(o).max())]
print(f"1000 values, top-1 {int(np.argmax(f))}" if not err else "differ from the run's: " + ", ".join(err))
sys.exit(1 if err else 0)
PYEOF
        ); then ok "$n librknnrt: $r"; else bad "$n librknnrt: ${r:-$(tail -2 "$T/app.out") $(head -2 "$T/app.err")}"; fi
    fi
    if r=$($PY tests/samples/emu_dpu_check.py "$d" "$T/i.json" 2>&1 | tail -1) && [[ $r == "0 passed, 0 failed" ]]; then
        echo "note $n: no Add, Concat, Split, Reshape or attention node to check"
    elif [[ $r == *", 0 failed" ]]; then
        ok "$n: Add/Concat/Split/Reshape/attention vs numpy: $r"
    else
        bad "$n: Add/Concat/Split/Reshape/attention vs numpy: $r"
    fi
    if [ "$n" = yolov10n.rknn ] && [ ${#in[@]} -gt 0 ]; then
        if r=$($PY tests/oracle/yolov10_post.py "$d" | $PY -c '
import sys
zoo = [(5, 88, 137, 556, 438, 0.940), (0, 210, 240, 284, 512, 0.903), (0, 109, 234, 226, 537, 0.891),
       (0, 478, 233, 560, 519, 0.796), (0, 79, 339, 113, 517, 0.365)]
ours = [tuple(float(v) for v in l.split()) for l in sys.stdin if l.strip()]
def iou(a, b):
    w = max(0, min(a[2], b[2]) - max(a[0], b[0])); h = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return w * h / u
used, msg = set(), []
for z in zoo:
    m = [i for i, o in enumerate(ours) if i not in used and int(o[0]) == z[0] and
         iou(o[1:5], z[1:5]) >= 0.9 and abs(o[5] - z[5]) <= 0.05]
    if m:
        used.add(m[0])
    else:
        msg.append("zoo %s unmatched" % (z,))
msg += ["extra %s" % (o,) for i, o in enumerate(ours) if i not in used]
print("; ".join(" ".join("%g" % v for v in o) for o in ours), *msg)
sys.exit(1 if msg else 0)
'); then ok "$n bus.jpg: the zoo's 5 detections: $r"; else bad "$n bus.jpg: $r"; fi
    fi
    if [ ${#in[@]} -gt 0 ] && [ "$n" = mobilenet_v2.rknn ]; then
        if r=$($PY - "$d/output.npy" <<'PYEOF'
import sys, numpy as np
o = np.load(sys.argv[1]).astype(np.float64).ravel()   # the run's output: the logits
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
finish
