#!/usr/bin/env bash
# tests/samples/built.sh [BUILD] — sample applications on `rknn-trace build` containers:
# the build options (int8, mean/std, shape set, target) as rknn_init honours them.
#
# sample_int8_detect: UltraFace RFB-320 built -q i8 with --mean 127 --std 128 (calibrated
# on four scikit-image photos), fed a photo as uint8 NHWC. Checks: INT8/AFFINE input of
# size n_elems, INT8/AFFINE outputs; its outputs (dequantized by the app with zp/scale,
# and want_float = 1) are bit-identical to `rknn-trace run` of the same file on the same
# input (numpy's (x - 127) / 128 in float32 NCHW), read from its --dump; pass_through
# input quantized by the app gives identical outputs, and so does the zero-copy flow of
# rknn_create_mem_demo (NATIVE_INPUT_ATTR INT8 set to UINT8 by the app, pixels at w_stride); RKNN_QUERY_PERF_RUN equals run's
# predicted frame of the int8 model; faces over 0.7 as onnxruntime finds them on the
# same normalised pixels (count within 2, best box IoU >= 0.7).
# sample_dynamic: PP-OCR cls built -q fp16 with --mean/--std 127.5 and the shape set
# {48x192, 48x160}: general and zero-copy (internal memory from the init-time MEM_SIZE)
# at both shapes and back; a shape outside the set gives RKNN_ERR_FAIL (-1) and the
# board's E lines listing the input's shapes; outputs byte-identical between the flows and within 1e-2 of onnxruntime (fp16 through the network) with
# the same top class.
# YOLOX-Nano and PP-OCR cls built -q i8: sample_general's outputs at level 0 (activation
# chains fused) and level 4 (node by node) are bit-identical.
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
coffee = Image.open(os.path.join(sk, "coffee.png")).convert("RGB")
save("coffee", np.asarray(coffee.resize((416, 416), Image.BILINEAR), dtype=np.uint8), 0, 1)
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
check "the same with the smaller shape first" "$R" build \
    "$M/ppocr_mobile_v2.0_cls.onnx" -q fp16 --mean 127.5 --std 127.5 \
    --dynamic-input x=1,3,48,160 --dynamic-input x=1,3,48,192 -o "$T/cls-rev.rknn"

# -- int8 activation chains run fused (a conv's SiLU, PP-LCNet's decomposed HardSwish,
# block by block after the conv, node_t.chain) at level 0 and node by node at level 4
# (the per-layer table's hook): the outputs are bit-identical
check "build yolox_nano -q i8" "$R" build "$M/yolox_nano.onnx" -q i8 --dataset "$T/ds.txt" \
    --no-progress -o "$T/yolox8.rknn"
check "build ppocr cls -q i8" "$R" build "$M/ppocr_mobile_v2.0_cls.onnx" -q i8 \
    --dataset "$T/ds.txt" --mean 127.5 --std 127.5 --shape x=1,3,48,192 --no-progress \
    -o "$T/cls8.rknn"
for c in "yolox8 coffee" "cls8 t192"; do
    set -- $c
    if "$S/sample_general" "$T/$1.rknn" "$T/$2.ppm" "$T/$1.l0.f32" >"$T/$1.l0.out" 2>&1 &&
        RKNN_LOG_LEVEL=4 "$S/sample_general" "$T/$1.rknn" "$T/$2.ppm" "$T/$1.l4.f32" \
            >"$T/$1.l4.out" 2>&1 && cmp -s "$T/$1.l0.f32" "$T/$1.l4.f32"; then ok
    else bad "$1: int8 outputs at level 0 (fused chains) differ from level 4: $(tail -n 2 "$T/$1.l0.out")"; fi
done

# -- RKNN_QUERY_MEM_SIZE follows the container's dtype: YOLOX-Nano as ONNX (fp32, which
# the NPU runs in fp16), built -q fp16 and -q i8, sample_multi_dynamic (its one shape:
# the init-time MEM_SIZE as rknn_dynshape_inference.cc prints it) at level 3. Oracles: the
# model's parameter count (python3-onnx): fp16 weights take 2..4 bytes a parameter
# (fp16 values, wider biases), int8 1..2; `rknn-trace run --json`'s weight_bytes /
# internal_bytes (the CLI's own lowering of the container); and the level-3
# "allocated internal size" line, which must say what MEM_SIZE says.
check "build yolox_nano -q fp16" "$R" build "$M/yolox_nano.onnx" -q fp16 -o "$T/yolox16.rknn"
$PY -c 'import sys, numpy as np; np.random.default_rng(5).uniform(0, 255, (1, 3, 416, 416)).astype(np.float32).tofile(sys.argv[1])' "$T/yolox_in.f32"
for c in "$M/yolox_nano.onnx:onnx" "$T/yolox16.rknn:fp16" "$T/yolox8.rknn:i8"; do
    f=${c%:*} q=${c##*:}
    RKNN_LOG_LEVEL=3 "$S/sample_multi_dynamic" "$f" 0 "$T/mem.$q.f32" "$T/yolox_in.f32" >"$T/mem.$q.out" 2>"$T/mem.$q.err" ||
        bad "sample_multi_dynamic $q at level 3: $(tail -n 2 "$T/mem.$q.out")"
    "$R" run "$f" --json >"$T/mem.$q.json" 2>/dev/null || bad "rknn-trace run --json $q"
done
check "MEM_SIZE in the container's dtype, as the level-3 line and run --json say" \
    $PY - "$T" "$M/yolox_nano.onnx" <<'EOF'
import json, re, sys
import numpy as np
import onnx
t, model = sys.argv[1:3]
params = sum(int(np.prod(i.dims)) for i in onnx.load(model).graph.initializer if i.data_type == 1)
got = {}
for q in ("onnx", "fp16", "i8"):
    out = open("%s/mem.%s.out" % (t, q)).read()
    i = int(re.search(r"^mem size at init: internal (\d+)$", out, re.M).group(1))
    w = int(re.search(r"^weight size at init: (\d+)$", out, re.M).group(1))
    d = [int(x) for x in re.findall(r"allocated internal size: (\d+) with", open("%s/mem.%s.err" % (t, q)).read())]
    assert d == [i], (q, d, i)
    npu = json.load(open("%s/mem.%s.json" % (t, q)))["npu"]
    assert (npu["weight_bytes"], npu["internal_bytes"]) == (w, i), (q, npu["weight_bytes"], npu["internal_bytes"], w, i)
    got[q] = (w, i)
assert got["onnx"] == got["fp16"], got
assert 2 * params <= got["fp16"][0] < 4 * params, (params, got)
assert params <= got["i8"][0] < 2 * params, (params, got)
assert got["i8"][1] <= got["fp16"][1], got
print("params", params, got)
EOF

# -- the int8 detector -------------------------------------------------------------------
if "$S/sample_int8_detect" "$T/face.rknn" "$T/face.ppm" "$T/face" >"$T/det.out" 2>"$T/det.err" &&
    ! grep -q "E RKNN\|AddressSanitizer\|runtime error" "$T/det.err"; then ok
else bad "sample_int8_detect: $(tail -n 3 "$T/det.out") $(head -c 400 "$T/det.err")"; fi
grep -q "name=input, n_dims=4, dims=\[1, 240, 320, 3\], n_elems=230400, size=230400,.*fmt=NHWC, type=INT8, qnt_type=AFFINE" \
    "$T/det.out" && ok || bad "int8 input attr: $(grep name=input "$T/det.out")"
# NATIVE_INPUT_ATTR as a board reports it for an int8 model with mean/std inside: INT8
# NHWC AFFINE in the normalised domain, n_elems bytes (real boards: yolov5s
# "fmt=NHWC, type=INT8, qnt_type=AFFINE, zp=-128, scale=0.003922", rknn-toolkit2#129),
# rows aligned for zero-copy; the app chooses UINT8 (rknn_create_mem_demo)
grep -A1 "^native input:" "$T/det.out" | grep -q "name=input, n_dims=4, dims=\[1, 240, 320, 3\], n_elems=230400, size=230400, w_stride=320, size_with_stride=230400, fmt=NHWC, type=INT8, qnt_type=AFFINE" &&
    [ "$(grep -A1 "^native input:" "$T/det.out" | sed -n 's/.*zp=\([-0-9]*\), scale=\([0-9.]*\).*/\1 \2/p')" = \
      "$(grep "^  index=0, name=input" "$T/det.out" | head -n 1 | sed -n 's/.*zp=\([-0-9]*\), scale=\([0-9.]*\).*/\1 \2/p')" ] &&
    ok || bad "native int8 input attr: $(grep -A1 "^native input:" "$T/det.out")"
[ "$(grep -c "fmt=UNDEFINED, type=INT8, qnt_type=AFFINE" "$T/det.out")" = 2 ] && ok ||
    bad "int8 output attrs: $(grep name= "$T/det.out")"
grep -q "^pass_through: identical$" "$T/det.out" && ok || bad "pass_through: $(grep pass_through "$T/det.out")"
grep -q "^zero-copy uint8: identical$" "$T/det.out" && ok || bad "zero-copy UINT8 on the native attr: $(grep zero-copy "$T/det.out")"
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
    # RKNN_ERR_FAIL and the board's lines (rknn-superresolution#3: librknnrt's
    # "rknn_set_input_shapes error, input name = ..." and rknnlite's RKNN_ERR_FAIL)
    grep -q "^shape outside the set: ret=-1$" "$T/$flow.out" && ok || bad "$flow: bad shape not refused"
    sed 's/^E RKNN: \[[0-9:.]*\] /E RKNN: /' "$T/$flow.err" >"$T/$flow.e"
    printf '%s\n' "E RKNN: rknn_set_input_shapes error, input name = x supported input shapes are as follows:" \
        "E RKNN:  shape = [1,48,192,3], layout = NHWC" "E RKNN:  shape = [1,48,160,3], layout = NHWC" \
        "E RKNN: while get rknn_tensor_attr[0].name = x, dims = [1, 48, 193, 3], fmt = NHWC" >"$T/want.e"
    cmp -s "$T/$flow.e" "$T/want.e" && ok || bad "$flow: E lines: $(head -c 600 "$T/$flow.err")"
    grep -q "AddressSanitizer\|runtime error" "$T/$flow.err" && bad "$flow: sanitizer" || ok
done
for k in 0 1 2; do
    cmp -s "$T/general.$k.f32" "$T/zero-copy.$k.f32" && ok || bad "image $k: general and zero-copy differ"
done
# the largest shape second: INPUT_ATTR/OUTPUT_ATTR before rknn_set_input_shapes still
# give it (the SDK guide), so the zero-copy memory sized from them fits both shapes
if "$S/sample_dynamic" --zero-copy "$T/cls-rev.rknn" "$T/rev" "$T/t160.ppm" "$T/t192.ppm" \
        >"$T/rev.out" 2>"$T/rev.err"; then ok
else bad "sample_dynamic zero-copy, smaller set first: $(tail -n 3 "$T/rev.out") $(head -c 400 "$T/rev.err")"; fi
grep -q "^input x: 2 shapes (NHWC): \[1,48,160,3\] \[1,48,192,3\]$" "$T/rev.out" &&
    grep -q "dims=\[1, 48, 192, 3\], n_elems=27648," "$T/rev.out" && ok ||
    bad "smaller set first: range or INPUT_ATTR: $(head -n 3 "$T/rev.out")"
cmp -s "$T/rev.0.f32" "$T/general.1.f32" && cmp -s "$T/rev.1.f32" "$T/general.0.f32" && ok ||
    bad "smaller set first: outputs differ from the other container's"
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

# -- two inputs, three shape sets (rknn_dynshape_inference.cc's flow) -------------------------
# multiple_input_demo.onnx declares [1,1,128,128] and [1,3,128,128]; as Toolkit2's
# config(dynamic_input) resizes a static model, the sets are 128x128, 96x64, 160x192.
# Oracles: onnxruntime on the same ONNX with H and W made symbolic (weights untouched),
# and the init-time MEM_SIZE of one-set containers of each shape.
MI=${RT_SHARED:-/work/shared}/data/models/rknn/multiple_input_demo.onnx
mi_set() { echo "input.1=1,1,$1,$2;input=1,3,$1,$2"; }
check "build two inputs, three shape sets" "$R" build "$MI" -q fp16 --dynamic-input "$(mi_set 128 128)" \
    --dynamic-input "$(mi_set 96 64)" --dynamic-input "$(mi_set 160 192)" -o "$T/mi.rknn"
"$R" build "$MI" -q fp16 --dynamic-input "$(mi_set 128 128)" \
    --dynamic-input "input.1=1,1,96,64;input=1,3,96,96" -o "$T/mi-bad.rknn" >/dev/null 2>"$T/mi-bad.err"
[ $? = 2 ] && [ "$(grep -c . "$T/mi-bad.err")" = 1 ] &&
    grep -q "^rknn-trace: --dynamic-input set 1 (.*): node 'Add_2' (Add): shapes 1x8x96x64 and 1x8x96x96 do not broadcast" \
    "$T/mi-bad.err" && ok || bad "a set the model cannot take: $(cat "$T/mi-bad.err")"
$PY - "$T" <<'EOF'
import sys
import numpy as np
r = np.random.default_rng(7)
for h, w in ((128, 128), (96, 64), (160, 192)):
    for name, c in (("a", 1), ("b", 3)):
        x = r.standard_normal((1, c, h, w)).astype(np.float32)
        x.tofile("%s/%s%d.f32" % (sys.argv[1], name, h))
        np.save("%s/%s%d.npy" % (sys.argv[1], name, h), x)
EOF
$PY tests/oracle/onnx_free_dims.py "$MI" "$T/mi-free.onnx" 2=h 3=w || bad "onnx_free_dims"
for hw in 128:128 96:64 160:192; do
    h=${hw%:*} w=${hw#*:}
    "$R" build "$MI" -q fp16 --dynamic-input "$(mi_set "$h" "$w")" -o "$T/mi$h.rknn" >/dev/null 2>&1 &&
        "$S/sample_multi_dynamic" "$T/mi$h.rknn" 0 "$T/one$h.f32" "$T/a$h.f32" "$T/b$h.f32" \
            >"$T/one$h.out" 2>&1 || bad "one-set container $h x $w: $(tail -n 2 "$T/one$h.out")"
    NODE_PATH=tests/oracle/node_modules node tests/oracle/ort_run.js "$T/mi-free.onnx" "$T/mref$h" \
        input.1="$T/a$h.npy" input="$T/b$h.npy" 2>"$T/mort.err" ||
        bad "onnxruntime $h x $w: $(head -c 300 "$T/mort.err")"
done
for k in 1 2; do
    h=96; [ $k = 2 ] && h=160
    if "$S/sample_multi_dynamic" "$T/mi.rknn" $k "$T/mi.$k.f32" "$T/a$h.f32" "$T/b$h.f32" \
            >"$T/mi.$k.out" 2>"$T/mi.$k.err" && [ ! -s "$T/mi.$k.err" ]; then ok
    else bad "sample_multi_dynamic set $k: $(tail -n 2 "$T/mi.$k.out") $(head -c 300 "$T/mi.$k.err")"; fi
done
check "two inputs: ranges, largest-set attrs, MEM_SIZE of the largest, set attrs, outputs" \
    $PY - "$T" <<'EOF'
import glob, re, sys
import numpy as np
t = sys.argv[1]
def mem(path, what="at init"):
    return int(re.search(r"^mem size %s: internal (\d+)$" % what, open(path).read(), re.M).group(1))
single = {h: mem("%s/one%d.out" % (t, h)) for h in (128, 96, 160)}
ref128 = np.load(glob.glob("%s/mref128/*.npy" % t)[0]).ravel()
for k, (h, w) in ((1, (96, 64)), (2, (160, 192))):
    out = open("%s/mi.%d.out" % (t, k)).read()
    for name, c in (("input.1", 1), ("input", 3)):
        want = "input %s: 3 shapes (NHWC): [1,128,128,%d] [1,96,64,%d] [1,160,192,%d]" % (name, c, c, c)
        assert want in out.splitlines(), (want, out[:400])
    before, after = out.split("current input tensors:")
    # before rknn_set_input_shapes: the largest set (160x192, the third), FP16 (the
    # container's dtype)
    assert "name=input.1, n_dims=4, dims=[1, 160, 192, 1], n_elems=30720, size=61440," in before
    assert "name=input, n_dims=4, dims=[1, 160, 192, 3], n_elems=92160, size=184320," in before
    assert "name=8, n_dims=4, dims=[1, 8, 160, 192], n_elems=245760, size=491520," in before
    n = h * w
    assert "name=input.1, n_dims=4, dims=[1, %d, %d, 1], n_elems=%d," % (h, w, n) in after, after
    assert "name=input, n_dims=4, dims=[1, %d, %d, 3], n_elems=%d," % (h, w, 3 * n) in after
    assert "name=8, n_dims=4, dims=[1, 8, %d, %d], n_elems=%d," % (h, w, 8 * n) in after
    # MEM_SIZE at init is the largest set's, and does not change
    p = "%s/mi.%d.out" % (t, k)
    assert mem(p) == max(single.values()) == single[160] > single[128], (mem(p), single)
    assert mem(p, "after set") == mem(p), (mem(p, "after set"), mem(p))
    ref = np.load(glob.glob("%s/mref%d/*.npy" % (t, h))[0]).ravel()
    ours = np.fromfile("%s/mi.%d.f32" % (t, k), np.float32)
    assert ours.size == ref.size == 8 * n, (ours.size, ref.size)
    err = float(np.abs(ours - ref).max())
    assert err <= 1e-2, (k, err)
    # the same as a one-set container of that shape
    assert np.array_equal(ours, np.fromfile("%s/one%d.f32" % (t, h), np.float32)), k
    print("set", k, h, w, "max |err|", err, "mem", mem(p), single)
one = np.fromfile("%s/one128.f32" % t, np.float32)
assert one.size == ref128.size and float(np.abs(one - ref128).max()) <= 1e-2
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
