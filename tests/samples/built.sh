#!/usr/bin/env bash
# tests/samples/built.sh [BUILD] — sample applications on `rknn-trace build` containers:
# the build options (int8, mean/std, shape set, target) as rknn_init honours them.
#
# sample_int8_detect: UltraFace RFB-320 built -q i8 with --mean 127 --std 128 (calibrated
# on four scikit-image photos), fed a photo as uint8 NHWC. Checks: INT8/AFFINE input of
# size n_elems, INT8/AFFINE outputs; its outputs (dequantized by the app with zp/scale,
# and want_float = 1) are bit-identical to `rknn-trace run` of the same file on the same
# input (numpy's (x - 127) / 128 in float32 NCHW), read from its --dump; pass_through
# input quantized by the app gives identical outputs; RKNN_QUERY_PERF_RUN equals run's
# predicted frame of the int8 model; faces over 0.7 as onnxruntime finds them on the
# same normalised pixels (count within 2, best box IoU >= 0.7).
# sample_dynamic: PP-OCR cls built -q fp16 with --mean/--std 127.5 and the shape set
# {48x192, 48x160}: general and zero-copy (internal memory from the init-time MEM_SIZE)
# at both shapes and back; a shape outside the set gives -5 and one E line listing the
# set; outputs byte-identical between the flows and within 1e-2 of onnxruntime (fp16 through the network) with
# the same top class.
# The fuzz corpus' containers with inconsistent options (broken_meta_*): rknn_init
# returns -6 with one E line and no crash.
# Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-${BUILD:-build}}
PY=/usr/bin/python3
R=$B/rknn-trace
S=$B/samples
M=tests/data/models
SK=$($PY -c 'import os, skimage; print(os.path.join(os.path.dirname(skimage.__file__), "data"))')
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { # description, command...
    local what=$1; shift
    if "$@" >"$T/check.out" 2>&1; then ok; else bad "$what: $(head -c 400 "$T/check.out")"; fi
}

# -- inputs: a face photo 320x240, a text crop at 192x48 and 160x48 ------------------------
$PY - "$T" "$SK" <<'EOF' || bad "cannot make the inputs (python3-numpy, python3-pil, skimage)"
import os, sys
import numpy as np
from PIL import Image
out, sk = sys.argv[1:3]
def save(name, a, mean, std):
    h, w = a.shape[:2]
    with open(os.path.join(out, name + ".ppm"), "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h) + a.tobytes())
    x = a.transpose(2, 0, 1)[None].astype(np.float32)
    np.save(os.path.join(out, name + ".npy"),
            np.ascontiguousarray((x - np.float32(mean)) / np.float32(std)))
face = Image.open(os.path.join(sk, "astronaut.png")).convert("RGB")
save("face", np.asarray(face.resize((320, 240), Image.BILINEAR), dtype=np.uint8), 127, 128)
text = Image.open(os.path.join(sk, "text.png")).convert("RGB")
for w in (192, 160):
    a = np.asarray(text.crop((0, 0, 4 * w, 4 * 48)).resize((w, 48), Image.BILINEAR), dtype=np.uint8)
    save("t%d" % w, a, 127.5, 127.5)
EOF
printf '%s\n' "$SK/astronaut.png" "$SK/coffee.png" "$SK/chelsea.png" "$SK/motorcycle_left.png" \
    >"$T/ds.txt"
check "build -q i8 --mean --std" "$R" build "$M/ultraface_version-RFB-320.onnx" -q i8 \
    --dataset "$T/ds.txt" --mean 127 --std 128 --no-progress -o "$T/face.rknn"
check "build -q fp16 --mean --std --dynamic-input (no dataset)" "$R" build \
    "$M/ppocr_mobile_v2.0_cls.onnx" -q fp16 --mean 127.5 --std 127.5 \
    --dynamic-input x=1,3,48,192 --dynamic-input x=1,3,48,160 -o "$T/cls.rknn"

# -- the int8 detector -------------------------------------------------------------------
if "$S/sample_int8_detect" "$T/face.rknn" "$T/face.ppm" "$T/face" >"$T/det.out" 2>"$T/det.err" &&
    ! grep -q "E RKNN\|AddressSanitizer\|runtime error" "$T/det.err"; then ok
else bad "sample_int8_detect: $(tail -n 3 "$T/det.out") $(head -c 400 "$T/det.err")"; fi
grep -q "name=input, n_dims=4, dims=\[1, 240, 320, 3\], n_elems=230400, size=230400,.*fmt=NHWC, type=INT8, qnt_type=AFFINE" \
    "$T/det.out" && ok || bad "int8 input attr: $(grep name=input "$T/det.out")"
[ "$(grep -c "fmt=UNDEFINED, type=INT8, qnt_type=AFFINE" "$T/det.out")" = 2 ] && ok ||
    bad "int8 output attrs: $(grep name= "$T/det.out")"
grep -q "^pass_through: identical$" "$T/det.out" && ok || bad "pass_through: $(grep pass_through "$T/det.out")"
"$R" run "$T/face.rknn" -i input="$T/face.npy" --dump "$T/dump" -n 1 --db "$T/t.db" --no-progress \
    --json >"$T/run.json" 2>"$T/run.err" && ok || bad "run of the container: $(head -c 300 "$T/run.err")"
check "outputs bit-identical to rknn-trace run (want_float=1 and dequantized by the app)" \
    $PY - "$T/dump" "$T/face.float.f32" "$T/face.deq.f32" <<'EOF'
import json, os, sys
import numpy as np
d, fl, dq = sys.argv[1:4]
files = {e["name"]: e["file"] for e in json.load(open(os.path.join(d, "index.json")))}
ref = np.concatenate([np.load(os.path.join(d, files[n])).ravel() for n in ("scores", "boxes")])
for f in (fl, dq):
    ours = np.fromfile(f, np.float32)
    assert ref.dtype == np.float32 and ours.size == ref.size, (f, ours.size, ref.size)
    n = int(np.count_nonzero(ours.view(np.uint32) != ref.view(np.uint32)))
    assert n == 0, "%s: %d of %d values differ" % (f, n, ref.size)
print("identical", ref.size)
EOF
check "PERF_RUN is run's predicted int8 frame" $PY - "$T/run.json" "$T/det.out" <<'EOF'
import json, re, sys
run = json.load(open(sys.argv[1]))
assert run["quant"] == "i8" and run["platform"] == "rk3588", (run["quant"], run["platform"])
us = int(re.search(r"^perf run: (\d+) us$", open(sys.argv[2]).read(), re.M).group(1))
assert us == int(run["npu"]["predicted_us"] + 0.5), (us, run["npu"]["predicted_us"])
EOF
if NODE_PATH=tests/oracle/node_modules node tests/oracle/ort_run.js "$M/ultraface_version-RFB-320.onnx" \
        "$T/ref" input="$T/face.npy" 2>"$T/ort.err"; then
    check "faces as onnxruntime finds them" $PY - "$T/ref" "$T/face.deq.f32" "$T/det.out" <<'EOF'
import re, sys
import numpy as np
ref, deq, log = sys.argv[1:4]
s_ref = np.load(ref + "/scores.npy").reshape(-1, 2)[:, 1]
b_ref = np.load(ref + "/boxes.npy").reshape(-1, 4)
ours = np.fromfile(deq, np.float32)
s, b = ours[:s_ref.size * 2].reshape(-1, 2)[:, 1], ours[s_ref.size * 2:].reshape(-1, 4)
n_ref, n = int((s_ref > 0.7).sum()), int((s > 0.7).sum())
assert int(re.search(r"faces .*: (\d+)", open(log).read()).group(1)) == n
assert n >= 1 and abs(n - n_ref) <= 2, (n, n_ref)
def iou(p, q):
    w = max(0.0, min(p[2], q[2]) - max(p[0], q[0])); h = max(0.0, min(p[3], q[3]) - max(p[1], q[1]))
    a = (p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - w * h
    return w * h / a
v = iou(b[int(np.argmax(s))], b_ref[int(np.argmax(s_ref))])
assert v >= 0.7, v
print("faces", n, "onnxruntime", n_ref, "iou", v)
EOF
else
    bad "onnxruntime reference: $(head -c 300 "$T/ort.err")"
fi

# -- the dynamic-shape classifier ---------------------------------------------------------
for flow in general zero-copy; do
    arg=; [ $flow = zero-copy ] && arg=--zero-copy
    if "$S/sample_dynamic" $arg "$T/cls.rknn" "$T/$flow" "$T/t192.ppm" "$T/t160.ppm" "$T/t192.ppm" \
            >"$T/$flow.out" 2>"$T/$flow.err"; then ok
    else bad "sample_dynamic $flow: $(tail -n 3 "$T/$flow.out") $(head -c 400 "$T/$flow.err")"; fi
    grep -q "^input x: 2 shapes (NHWC): \[1,48,192,3\] \[1,48,160,3\]$" "$T/$flow.out" && ok ||
        bad "$flow: dynamic range: $(head -n 1 "$T/$flow.out")"
    grep -q "^shape outside the set: ret=-5$" "$T/$flow.out" && ok || bad "$flow: bad shape not refused"
    [ "$(grep -c "E RKNN" "$T/$flow.err")" = 1 ] &&
        grep -q "^E RKNN: \[[0-9:.]*\] rknn_set_input_shapes, input shape \[1,48,193,3\] is not in the model's shape set; valid (NHWC): \[1,48,192,3\] | \[1,48,160,3\]" \
            "$T/$flow.err" && ok || bad "$flow: E lines: $(head -c 400 "$T/$flow.err")"
    grep -q "AddressSanitizer\|runtime error" "$T/$flow.err" && bad "$flow: sanitizer" || ok
done
for k in 0 1 2; do
    cmp -s "$T/general.$k.f32" "$T/zero-copy.$k.f32" && ok || bad "image $k: general and zero-copy differ"
done
cmp -s "$T/general.0.f32" "$T/general.2.f32" && ok || bad "192 wide, before and after 160, differ"
for w in 192 160; do
    NODE_PATH=tests/oracle/node_modules node tests/oracle/ort_run.js "$M/ppocr_mobile_v2.0_cls.onnx" \
        "$T/ref$w" x="$T/t$w.npy" 2>"$T/ort$w.err" || bad "onnxruntime at $w: $(head -c 300 "$T/ort$w.err")"
done
check "classifier vs onnxruntime at both shapes" $PY - "$T" <<'EOF'
import glob, sys
import numpy as np
t = sys.argv[1]
for k, w in ((0, 192), (1, 160)):
    ref = np.load(glob.glob("%s/ref%d/*.npy" % (t, w))[0]).ravel()
    ours = np.fromfile("%s/general.%d.f32" % (t, k), np.float32)
    assert ours.size == ref.size and np.abs(ours - ref).max() <= 1e-2, (w, ours, ref)
    assert int(np.argmax(ours)) == int(np.argmax(ref)), (w, ours, ref)
    print(w, ours, ref)
EOF

# -- containers whose build options are inconsistent (the fuzz corpus' broken_meta_*):
# rknn_init returns RKNN_ERR_MODEL_INVALID (-6), prints one E line, does not crash
for f in tests/fuzz/corpus/simmodel/broken_meta_*.rknn; do
    "$S/sample_int8_detect" "$f" "$T/face.ppm" "$T/bad" >"$T/bad.out" 2>"$T/bad.err"
    rc=$?
    if [ $rc -ne 1 ] || ! grep -q "^rknn_init fail! ret=-6$" "$T/bad.out" ||
        [ "$(grep -c . "$T/bad.err")" != 1 ] || ! grep -q "^E RKNN: \[" "$T/bad.err"; then
        bad "$(basename "$f"): exit $rc, $(cat "$T/bad.out"), stderr: $(head -c 300 "$T/bad.err")"
    else ok; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
