#!/usr/bin/env bash
# tests/samples/run.sh [BUILD] — the vendor-style sample applications (issue 3 item 6;
# the matmul app: see the matmul section at the end).
#
# sample_general (rknn_inputs_set / rknn_outputs_get) and sample_zero_copy
# (rknn_create_mem / rknn_set_io_mem, default: the yolov5 sample's OUTPUT_ATTR + FLOAT32
# binding; --native: NATIVE_NHWC_OUTPUT_ATTR) are built against include/rknn_api.h only
# and linked with -lrknnrt. They run on the bundled YOLOX-Nano with a real photo fed as
# a camera would (uint8 NHWC 416x416, no normalisation: the model takes 0..255).
# Checks: only rknn_api.h is included, the binaries load $BUILD/librknnrt.so, every
# flow exits 0 with no E line, all flows give byte-identical outputs, and those equal
# onnxruntime's (tests/oracle/ort_run.js on the same pixels as float NCHW): per output
# column max |ours - ref| <= 1e-4 x (max - min of ref) and cosine >= 0.99999.
# At RKNN_LOG_LEVEL=5 the same app gives the same outputs, the level-4 table, the
# vendor-named .npy dumps (checked with numpy) and the NPU load file.
# Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-${BUILD:-build}}
PY=/usr/bin/python3
MODEL=tests/data/models/yolox_nano.onnx
S=$B/samples
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# -- the programs are applications: rknn_api.h and their own helper only ---------------
incs=$(grep -h '^#include' tests/samples/*.c tests/samples/*.h | sort -u |
       grep -v -E '^#include (<[a-z]+\.h>|"rknn_(api|matmul_api|custom_op)\.h"|"sample_util\.h")$')
[ -z "$incs" ] && ok || bad "samples include more than the SDK headers: $incs"
for p in sample_general sample_zero_copy sample_matmul sample_custom_op sample_custom_op_shapes; do
    if [ ! -x "$S/$p" ]; then bad "$S/$p not built (make BUILD=$B)"; continue; fi
    lib=$(ldd "$S/$p" | awk '/librknnrt\.so/ {print $3}')
    [ "$(readlink -f "$lib")" = "$(readlink -f "$B/librknnrt.so")" ] && ok ||
        bad "$p loads librknnrt.so from '$lib', not $B"
done

# -- the exports of the matmul and custom-op headers (runtime/api/librknnrt.map)
for f in rknn_matmul_create rknn_matmul_create_dynamic_shape rknn_matmul_set_io_mem \
         rknn_matmul_set_core_mask rknn_matmul_set_quant_params rknn_matmul_get_quant_params \
         rknn_matmul_set_dynamic_shape rknn_matmul_run rknn_matmul_destroy \
         rknn_B_normal_layout_to_native_layout rknn_register_custom_ops rknn_custom_op_get_op_attr; do
    nm -D --defined-only "$B/librknnrt.so" | grep -q " T $f\$" && ok || bad "librknnrt.so does not export $f"
done
nm -D --defined-only "$B/librknnrt.so" | grep -q " api_matmul_known\$" && bad "internal symbol exported" || ok
# the library links only what the C API needs: none of the tracer's log parsers
# (the functions their objects define) is in it
parsers=$(nm -g --defined-only "$B"/obj/tracer/*_parse.o | awk 'NF == 3 && $2 == "T" {print $3}')
[ -n "$parsers" ] || bad "no functions found in the tracer's parser objects"
carried=$(nm --defined-only "$B/librknnrt.so" | awk 'NF == 3 {print $3}' | grep -Fxf <(echo "$parsers") | head -3)
[ -z "$carried" ] && ok || bad "librknnrt.so carries the tracer's log parsers: $carried"

# -- input: a photo, 416x416 RGB; the same pixels as float NCHW for onnxruntime ---------
if ! $PY - "$T" <<'EOF'
import os, sys
import numpy as np
import skimage
from PIL import Image
out = sys.argv[1]
img = Image.open(os.path.join(os.path.dirname(skimage.__file__), "data", "coffee.png"))
a = np.asarray(img.convert("RGB").resize((416, 416), Image.BILINEAR), dtype=np.uint8)
with open(os.path.join(out, "img.ppm"), "wb") as f:
    f.write(b"P6\n# coffee.png (scikit-image) 416x416\n416 416\n255\n" + a.tobytes())
np.save(os.path.join(out, "img.npy"),
        np.ascontiguousarray(a.transpose(2, 0, 1)[None].astype(np.float32)))
EOF
then
    bad "cannot make the input image (python3-skimage, python3-pil)"
fi
if NODE_PATH=tests/oracle/node_modules node tests/oracle/ort_run.js "$MODEL" "$T/ref" \
        images="$T/img.npy" 2>"$T/ort.err"; then
    ok
else
    bad "onnxruntime reference: $(head -c 300 "$T/ort.err") (make deps)"
fi

# -- the flows ---------------------------------------------------------------------------
run_flow() { # name, program, args...
    local name=$1 prog=$2; shift 2
    "$S/$prog" "$MODEL" "$T/img.ppm" "$T/$name.f32" "$@" >"$T/$name.out" 2>"$T/$name.err"
    local rc=$?
    if [ $rc -ne 0 ]; then
        bad "$name exit $rc: $(tail -n 5 "$T/$name.out") $(head -c 400 "$T/$name.err")"
    elif grep -q "E RKNN\|AddressSanitizer\|runtime error" "$T/$name.err"; then
        bad "$name: $(head -c 400 "$T/$name.err")"
    else
        ok
    fi
}
run_flow general sample_general 2         # two frames: inputs persist, release per frame
run_flow zero_copy sample_zero_copy 2
run_flow zero_copy_native sample_zero_copy --native
# the yolov5 binding of this model needs no conversion, so no W line at level 1
RKNN_LOG_LEVEL=1 run_flow zero_copy_log1 sample_zero_copy
grep -q "W RKNN" "$T/zero_copy_log1.err" && bad "zero_copy warns: $(cat "$T/zero_copy_log1.err")" || ok
# the host threads of the simulation: one thread gives the same outputs; a bad value warns
RKNN_TRACE_THREADS=1 run_flow general_1thread sample_general
RKNN_TRACE_THREADS=abc RKNN_LOG_LEVEL=1 run_flow general_badthreads sample_general
grep -q "W RKNN.*RKNN_TRACE_THREADS='abc'" "$T/general_badthreads.err" && ok ||
    bad "RKNN_TRACE_THREADS=abc: no warning in $(head -c 300 "$T/general_badthreads.err")"

# OpenBLAS is loaded on the first BLAS call (runtime/exec/blas_lazy.c), not with the
# runtime: YOLOX-Nano runs on the runtime's own kernels and never loads it
readelf -d "$B/librknnrt.so" | grep -q "NEEDED.*openblas" && bad "librknnrt.so needs OpenBLAS at load" || ok
LD_DEBUG=files run_flow general_nolib sample_general
grep -q "file=libopenblas" "$T/general_nolib.err" && bad "the general flow loaded OpenBLAS" || ok
grep -q "file=librknnrt" "$T/general_nolib.err" && ok || bad "LD_DEBUG=files said nothing of the libraries"

grep -q "fmt=NHWC, type=FP32" "$T/general.out" && grep -q "dims=\[1, 3549, 8\]" "$T/general.out" &&
    ok || bad "general flow attrs: $(grep index= "$T/general.out")"
grep -q "w_stride=416" "$T/zero_copy.out" && ok || bad "zero-copy input w_stride not 416"

for f in zero_copy zero_copy_native zero_copy_log1 general_1thread general_badthreads general_nolib; do
    cmp -s "$T/general.f32" "$T/$f.f32" && ok || bad "general and $f outputs differ"
done

# -- the same app at RKNN_LOG_LEVEL=5 (docs/runtime-log-levels.md): same outputs, the
# level-4 table, the vendor-named .npy dumps (the InputOperator dump is the image as
# float NCHW, the OutputOperator dump the output), the NPU load file in the driver format
RKNN_LOG_LEVEL=5 RKNN_DUMP_DIR=$T/dumps RKNN_TRACE_SYSFS=$T/sys run_flow general_log5 sample_general
# a per-layer hook runs the layers unfused (no conv+activation epilogue): SiLU is then
# Sigmoid and Mul, not the epilogue's formula, each within a few ulp, and over YOLOX's
# hundred layers the outputs differ by up to about 1e-6 of their range (5e-6 of 3.7
# seen); the bound is test_fuse's for the same comparison, 1e-5 of the range
$PY -c '
import sys, numpy as np
a, b = (np.fromfile(f, np.float32).astype(np.float64) for f in sys.argv[1:3])
sys.exit(0 if a.size == b.size and np.abs(a - b).max() <= 1e-5 * np.abs(a).max() + 1e-7 else 1)
' "$T/general.f32" "$T/general_log5.f32" && ok || bad "level-5 outputs differ from level 0"
grep -q "^I RKNN: \[[0-9:.]*\] RKNN Model Information, .*target platform: rk3588" "$T/general_log5.err" &&
    grep -q "^I RKNN: \[[0-9:.]*\] *Network Layer Information Table" "$T/general_log5.err" &&
    ok || bad "level 5: no init lines or level-4 table in $(head -c 300 "$T/general_log5.err")"
grep -Eq '^NPU load:  Core0: +[0-9]+%, Core1: +[0-9]+%, Core2: +[0-9]+%,$' "$T/sys/rknpu/load" &&
    ok || bad "load file: $(cat "$T/sys/rknpu/load" 2>&1)"
if $PY - "$T/dumps" "$T/img.npy" "$T/general_log5.f32" "$T/general_log5.err" <<'EOF'
import os, re, sys
import numpy as np
d, img, outs, log = sys.argv[1:5]
files = sorted(os.listdir(d))
lines = re.findall(r"^D RKNN: \[[0-9:.]+\] dump npy tensor to: (.*)$", open(log).read(), re.M)
assert sorted(os.path.basename(p) for p in lines) == files, "dump lines vs files"
inp = [f for f in files if re.match(r"000_InputOperator_images_shape_1_3_416_416_float\.npy$", f)]
assert len(inp) == 1, files[:3]
assert np.array_equal(np.load(os.path.join(d, inp[0])), np.load(img)), "input dump"
out = [f for f in files if re.match(r"\d{3}_OutputOperator_output_shape_1_3549_8_float\.npy$", f)]
assert len(out) == 1, [f for f in files if "Output" in f]
ref = np.fromfile(outs, np.float32)
assert np.array_equal(np.load(os.path.join(d, out[0])).ravel(), ref), "output dump"
for f in files:
    x = np.load(os.path.join(d, f))
    assert x.shape == tuple(int(v) for v in f.rsplit("_shape_", 1)[1].split("_")[:-1]), f
print(len(files), "dumps")
EOF
then ok; else bad "level-5 dumps"; fi

# -- vs onnxruntime ------------------------------------------------------------------------
if [ -f "$T/ref/output.npy" ] && [ -f "$T/general.f32" ]; then
    if $PY - "$T/ref/output.npy" "$T/general.f32" <<'EOF'
import sys
import numpy as np
ref = np.load(sys.argv[1]).astype(np.float64)
ours = np.fromfile(sys.argv[2], np.float32).astype(np.float64)
if ours.size != ref.size:
    print("size %d, want %d" % (ours.size, ref.size)); sys.exit(1)
ours = ours.reshape(ref.shape)
cos = float(np.dot(ours.ravel(), ref.ravel()) /
            (np.linalg.norm(ours) * np.linalg.norm(ref)))
okay = cos >= 0.99999
worst = 0.0
for c in range(ref.shape[-1]):  # box coordinates and scores have their own scales
    r, o = ref[..., c], ours[..., c]
    lim = 1e-4 * (r.max() - r.min())
    err = np.abs(o - r).max()
    worst = max(worst, err / lim if lim > 0 else (0 if err == 0 else np.inf))
    if err > lim:
        okay = False
        print("column %d: max |err| %.3g > %.3g" % (c, err, lim))
print("cosine %.9f, worst column error %.3f of the 1e-4 x range limit" % (cos, worst))
sys.exit(0 if okay else 1)
EOF
    then ok; else bad "outputs differ from onnxruntime's"; fi
else
    bad "no outputs to compare with onnxruntime"
fi

# -- matmul (rknn_matmul_api.h): every type, layout and B quantization per chip vs numpy
# (tests/samples/matmul_check.py), then the guide's int8 and fp16 flows at level 4: one
# exMatMul row whose NPU cycles are the hand-computed figure of the cost model for a
# MatMul of two activations on rk3588: ceil16(M) x max(ceil(K/ic) x ceil(N/oc), N/8),
# MAC array ic x oc = 32x32 (int8), 32x16 (fp16): 64 x max(8x8, 32) = 4096 and
# 64 x max(8x16, 32) = 8192 for M=64, K=N=256.
if out=$($PY tests/samples/matmul_check.py "$S/sample_matmul" "$T" 2>&1); then :; fi
echo "$out" | grep FAIL >&2
np_=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
if [ -n "$np_" ]; then
    pass=$((pass + ${np_% *})); fail=$((fail + ${np_#* }))
else
    bad "matmul_check.py: $(echo "$out" | tail -n 3)"
fi
mkdir -p "$T/mm_l4"
$PY -c '
import sys, numpy as np
r = np.random.default_rng(1); d = sys.argv[1]
r.integers(-128, 128, (64, 256)).astype(np.int8).tofile(d + "/A.bin")
r.integers(-128, 128, (256, 256)).astype(np.int8).tofile(d + "/B.bin")
' "$T/mm_l4"
for tc in "3 INT8 4096" "1 FLOAT16 8192"; do
    set -- $tc
    [ "$1" = 1 ] && $PY -c '
import sys, numpy as np
r = np.random.default_rng(2); d = sys.argv[1]
r.uniform(-1, 1, (64, 256)).astype(np.float16).tofile(d + "/A.bin")
r.uniform(-1, 1, (256, 256)).astype(np.float16).tofile(d + "/B.bin")
' "$T/mm_l4"
    rm -f "$T/mm_l4"/*.f32 "$T/mm_l4"/*.i32 "$T/mm_l4"/q.txt
    RKNN_LOG_LEVEL=4 RKNN_TARGET=rk3588 "$S/sample_matmul" "$1" 64 256 256 1 1 0 0 "$T/mm_l4" \
        >"$T/mm_l4.out" 2>"$T/mm_l4.err" || bad "sample_matmul type $1 at level 4: $(head -c 300 "$T/mm_l4.err")"
    row=$(grep -E "^I RKNN: \[[0-9:.]+\] 1 +exMatMul +$2 +NPU +\(64,256\),\(256,256\) +\(64,256\) " "$T/mm_l4.err")
    [ "$(echo "$row" | awk '{print $10}' | cut -d/ -f2)" = "$3" ] && ok ||
        bad "matmul type $1 level-4 row: NPU cycles not $3: '$row'"
    [ "$(grep -c 'exMatMul' "$T/mm_l4.err")" = 2 ] && ok || bad "matmul level 4: not one row + one ranking line"
done

# -- custom op (rknn_custom_op.h): a model with a cstSigmoid node (ONNX in the domain
# rknn.custom, and its `rknn-trace build` container) runs through the app's callbacks;
# outputs equal onnxruntime's on the same graph written with Mul + Sigmoid; the level-4
# table shows the node as a CPU layer; unregistered -> rknn_run refuses, registered
# twice -> the second call refuses, each with one E line naming problem and fix.
C=$T/custom
mkdir -p "$C"
if $PY tests/samples/custom_op_models.py "$C" 2>"$C/gen.err" &&
   "$B/rknn-trace" build "$C/custom.onnx" -q fp32 -o "$C/custom.rknn" >/dev/null 2>"$C/build.err"; then
    ok
else
    bad "custom-op models: $(head -c 300 "$C/gen.err" "$C/build.err") (python3-onnx)"
fi
custom_flow() { # name, model, exit code wanted, args...
    local name=$1 model=$2 want=$3; shift 3
    RKNN_LOG_LEVEL=4 "$S/sample_custom_op" "$model" "$C/x.f32" "$C/$name.f32" "$@" \
        >"$C/$name.out" 2>"$C/$name.err"
    local rc=$?
    [ $rc -eq "$want" ] && ! grep -q "AddressSanitizer\|runtime error" "$C/$name.err" && ok ||
        bad "custom op $name: exit $rc (want $want): $(grep -v '^I RKNN' "$C/$name.err" | head -c 300)"
}
custom_flow onnx "$C/custom.onnx" 0
custom_flow container "$C/custom.rknn" 0
custom_flow unregistered "$C/custom.onnx" 2 --no-register
custom_flow twice "$C/custom.onnx" 0 --twice
custom_flow misuse "$C/custom.onnx" 0 --misuse
grep -q '^misuse: -5 -5 -5 -5 -5 -7$' "$C/misuse.out" && [ "$(grep -c '^E RKNN' "$C/misuse.err")" = 6 ] &&
    grep -q 'GPU/OpenCL' "$C/misuse.err" && grep -q 'no compute callback' "$C/misuse.err" &&
    grep -q 'appears twice' "$C/misuse.err" && cmp -s "$C/onnx.f32" "$C/misuse.f32" && ok ||
    bad "custom op misuse: $(grep misuse "$C/misuse.out") $(grep '^E' "$C/misuse.err")"
for f in onnx container twice; do
    [ "$(grep -c '^init: alpha=1.5' "$C/$f.out")" = 1 ] && [ "$(grep -c '^destroy$' "$C/$f.out")" = 1 ] &&
        ! grep -q "^E RKNN" <(grep -v "already registered" "$C/$f.err") && ok ||
        bad "custom op $f: callbacks or E lines: $(cat "$C/$f.out") $(grep '^E' "$C/$f.err")"
    grep -Eq '^I RKNN: \[[0-9:.]+\] [0-9]+ +cstSigmoid +[A-Z0-9]+ +CPU +\(1,4,8,8\) +\(1,4,8,8\) .*cstSigmoid:sig' "$C/$f.err" &&
        ok || bad "custom op $f: no CPU cstSigmoid row in the level-4 table"
done
# RKNN_QUERY_PERF_DETAIL on the flag-0 context, as the SDK demo asks it: success with an
# empty detail (a board's answer) and one W line naming the flag it needs
grep -q '^perf detail length: 0$' "$C/onnx.out" &&
    [ "$(grep -c '^W RKNN.*RKNN_QUERY_PERF_DETAIL.*RKNN_FLAG_COLLECT_PERF_MASK' "$C/onnx.err")" = 1 ] && ok ||
    bad "custom op PERF_DETAIL without the flag: $(grep -i perf "$C/onnx.out") $(grep PERF "$C/onnx.err")"
cmp -s "$C/onnx.f32" "$C/container.f32" && cmp -s "$C/onnx.f32" "$C/twice.f32" && ok ||
    bad "custom op: ONNX, container and twice-registered outputs differ"
e=$(grep '^E RKNN' "$C/unregistered.err")
[ "$(echo "$e" | wc -l)" = 1 ] && echo "$e" | grep -q 'cstSigmoid.*rknn_register_custom_ops' && ok ||
    bad "custom op unregistered: want one E line naming the op and rknn_register_custom_ops: $e"
e=$(grep '^E RKNN' "$C/twice.err")
[ "$(echo "$e" | wc -l)" = 1 ] && echo "$e" | grep -q 'cstSigmoid is already registered' &&
    grep -q '^second registration: -5$' "$C/twice.out" && ok ||
    bad "custom op twice: want RKNN_ERR_PARAM_INVALID and one E line: $e"
# a free batch dim: registered at init's shape, then rknn_set_input_shapes to 3x4
"$S/sample_custom_op_shapes" "$C/dynamic.onnx" 3 "$C/x34.f32" "$C/y34.f32" >"$C/shapes.out" 2>"$C/shapes.err" &&
    [ "$(tr '\n' ' ' <"$C/shapes.out")" = "prepare: 4 elements prepare: 12 elements " ] &&
    ! grep -q "^E RKNN" "$C/shapes.err" && $PY -c '
import sys, numpy as np
x = np.fromfile(sys.argv[1], np.float32).astype(np.float64)
y = np.fromfile(sys.argv[2], np.float32).astype(np.float64)
sys.exit(0 if y.size == 12 and np.abs(y - 1 / (1 + np.exp(-2 * x))).max() <= 1e-6 else 1)
' "$C/x34.f32" "$C/y34.f32" && ok ||
    bad "custom op after rknn_set_input_shapes: $(cat "$C/shapes.out") $(head -c 300 "$C/shapes.err")"
if NODE_PATH=tests/oracle/node_modules node tests/oracle/ort_run.js "$C/reference.onnx" "$C/ref" \
        x="$C/x.npy" 2>"$C/ort.err" &&
   $PY -c '
import sys, numpy as np
r = np.load(sys.argv[1]).astype(np.float64).ravel()
y = np.fromfile(sys.argv[2], np.float32).astype(np.float64)
d = np.abs(r - y).max() if r.size == y.size else np.inf
print("custom op vs onnxruntime: max |diff| %.3g" % d)
sys.exit(0 if d <= 1e-5 else 1)
' "$C/ref/y.npy" "$C/onnx.f32"; then ok; else bad "custom op outputs differ from onnxruntime's"; fi

# -- an int8 container of the custom-op model: `build -q i8` calibrates through the
# application's callbacks in a plugin library (tests/samples/plugins/cst_sigmoid.c,
# exporting get_rknn_custom_op as rknn_server's plugins do; its init reads alpha with
# rknn_custom_op_get_op_attr and fails without it). Without --custom-op the build is
# refused with a line naming the node and the option. sample_custom_op runs the int8
# container with its own registration. Oracles: the same network written with stock
# ops (reference.onnx: Mul + Sigmoid) built -q i8 on the same data gives the same
# outputs (within one step of the output's grid), and onnxruntime's float outputs.
echo "$C/x.npy" >"$C/ds.txt"
"$B/rknn-trace" build "$C/custom.onnx" -q i8 --dataset "$C/ds.txt" --no-progress \
    -o "$C/none8.rknn" >/dev/null 2>"$C/none8.err"
[ $? = 2 ] && [ "$(grep -c . "$C/none8.err")" = 1 ] &&
    grep -q "node 'sig' is custom op cstSigmoid: give --custom-op LIB.so" "$C/none8.err" && ok ||
    bad "build -q i8 of a custom op without --custom-op: $(cat "$C/none8.err")"
if ${CC:-cc} -shared -fPIC -Wall -Wextra -Werror -Wno-unused-parameter -Iinclude \
        -o "$C/libcst_sigmoid.so" tests/samples/plugins/cst_sigmoid.c -lm 2>"$C/cc.err" &&
    "$B/rknn-trace" build "$C/custom.onnx" -q i8 --dataset "$C/ds.txt" --no-progress \
        --custom-op "$C/libcst_sigmoid.so" -o "$C/custom8.rknn" >/dev/null 2>"$C/b8.err" &&
    "$B/rknn-trace" build "$C/reference.onnx" -q i8 --dataset "$C/ds.txt" --no-progress \
        -o "$C/reference8.rknn" >/dev/null 2>>"$C/b8.err"; then ok
else bad "build -q i8 --custom-op: $(head -c 400 "$C/cc.err" "$C/b8.err")"; fi
# `run` takes the same plugin (--custom-op): without it the run is refused naming the
# node and the option; with it the fp32 outputs are onnxruntime's (the same oracle)
"$B/rknn-trace" run "$C/custom.onnx" -i x="$C/x.npy" --no-db >/dev/null 2>"$C/run0.err"
[ $? = 2 ] && [ "$(grep -c . "$C/run0.err")" = 1 ] &&
    grep -q "node 'sig' is custom op cstSigmoid: give --custom-op LIB.so" "$C/run0.err" && ok ||
    bad "run of a custom op without --custom-op: $(cat "$C/run0.err")"
if "$B/rknn-trace" run "$C/custom.onnx" -i x="$C/x.npy" --no-db --custom-op "$C/libcst_sigmoid.so" \
        --dump "$C/rundump" >/dev/null 2>"$C/run1.err" &&
   $PY -c '
import sys, glob, numpy as np
r = np.load(sys.argv[1]).astype(np.float64).ravel()
y = np.load(glob.glob(sys.argv[2] + "/*_y.npy")[0]).astype(np.float64).ravel()
d = np.abs(r - y).max() if r.size == y.size else np.inf
print("run --custom-op vs onnxruntime: max |diff| %.3g" % d)
sys.exit(0 if d <= 1e-5 else 1)
' "$C/ref/y.npy" "$C/rundump"; then ok; else bad "run --custom-op: $(head -c 300 "$C/run1.err")"; fi
custom_flow int8 "$C/custom8.rknn" 0
RKNN_LOG_LEVEL=0 "$S/sample_custom_op" "$C/reference8.rknn" "$C/x.f32" "$C/ref8.f32" >/dev/null 2>&1 ||
    bad "the stock-op int8 container does not run"
[ "$(grep -c '^init: alpha=1.5' "$C/int8.out")" = 1 ] && ! grep -q "^E RKNN" "$C/int8.err" && ok ||
    bad "custom op int8: callbacks or E lines: $(cat "$C/int8.out") $(grep '^E' "$C/int8.err")"
$PY -c '
import sys, numpy as np
r = np.load(sys.argv[1]).astype(np.float64).ravel()
y = np.fromfile(sys.argv[2], np.float32).astype(np.float64)
s = np.fromfile(sys.argv[3], np.float32).astype(np.float64)
assert y.size == r.size == s.size, (y.size, r.size, s.size)
step = (r.max() - r.min()) / 255  # one step of an int8 grid over the output range
d_stock, d_ort = np.abs(y - s).max(), np.abs(y - r).max()
print("int8 custom op vs stock ops: %.3g, vs onnxruntime: %.3g (step %.3g)" % (d_stock, d_ort, step))
sys.exit(0 if d_stock <= step * 1.01 and d_ort <= 4 * step else 1)
' "$C/ref/y.npy" "$C/int8.f32" "$C/ref8.f32" && ok || bad "int8 custom-op outputs"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
