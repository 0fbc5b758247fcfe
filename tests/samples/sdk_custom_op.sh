#!/usr/bin/env bash
# tests/samples/sdk_custom_op.sh SDK [BUILD] — Rockchip's own custom-op demo,
# unmodified, on its own vendor-compiled models through this librknnrt: SDK is a
# checkout of airockchip/rknn-toolkit2 (its model files are under the RKNN SDK
# licence and are not in this tree, so this check runs where such a checkout is,
# not in `make test`). It compiles
# rknpu2/examples/rknn_custom_op_demo/rknn_custom_pytorch_op_demo (and its cnpy)
# with g++ against include/ and BUILD/librknnrt.so, runs it on
# model/<CHIP>/dual_residual_custom.rknn with the demo's own inputs, as its README
# says, and expects its own verdict: "Results are correct" (cosine > 0.999 against
# the demo's golden outputs); then the same files through `run --emulate
# --custom-op` against the same goldens. Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
SDK=${1:?usage: sdk_custom_op.sh RKNN_TOOLKIT2_CHECKOUT [BUILD]}
B=${2:-${BUILD:-build}}
E=$SDK/rknpu2/examples
D=$E/rknn_custom_op_demo/rknn_custom_pytorch_op_demo
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
g++ -O1 -std=c++11 "$D/src/rknn_api_test_custom_pytorch_op.cpp" "$E/3rdparty/cnpy/cnpy.cpp" \
    -I"$E/3rdparty/cnpy" -I"$E/3rdparty" -Iinclude -L"$B" -lrknnrt -Wl,-rpath,"$PWD/$B" -o "$T/demo" \
    > "$T/build.log" 2>&1 || { echo "FAIL: the demo does not build:"; head -5 "$T/build.log"; echo "0 passed, 1 failed"; exit 1; }
for chip in RK3588 RK3566_RK3568 RK3562 RK3576 RV1126B; do
    m=$D/model/$chip/dual_residual_custom.rknn
    [ -f "$m" ] || continue
    (cd "$D" && "$T/demo" "model/$chip/dual_residual_custom.rknn" \
        "model/dual_residual_input_0_nhwc.npy#model/dual_residual_input_1_nhwc.npy" 1) > "$T/$chip.log" 2>&1
    if grep -q "^Results are correct" "$T/$chip.log"; then
        pass=$((pass + 1)); echo "ok   $chip"
    else
        fail=$((fail + 1)); echo "FAIL $chip: $(grep -m1 -E 'E RKNN|fail' "$T/$chip.log" | cut -c1-240)"
    fi
done
# the same files through `run --emulate`, the custom op from a plugin library
# (tests/samples/plugins/cst_dual_residual.c): each chip's two outputs against the
# demo's golden outputs (model/dual_residual_output_N.bin, float32 NCHW), cosine > 0.999
# as the demo's own check
PY=${PYTHON:-/usr/bin/python3}
cc -shared -fPIC -Wall -Wextra -Werror -Iinclude -o "$T/libcst_dual_residual.so" \
    tests/samples/plugins/cst_dual_residual.c 2>"$T/cc.log" || { echo "FAIL: the plugin does not build"; fail=$((fail + 1)); }
$PY -c '
import sys, numpy as np
for i in (0, 1):  # the demo feeds NHWC float32; run -i takes the framework layout, NCHW
    a = np.load(sys.argv[1] + "/model/dual_residual_input_%d_nhwc.npy" % i)
    np.save(sys.argv[2] + "/in%d.npy" % i, np.ascontiguousarray(a.transpose(0, 3, 1, 2), np.float32))
' "$D" "$T"
for chip in RK3588 RK3566_RK3568 RK3562 RK3576 RV1126B; do
    m=$D/model/$chip/dual_residual_custom.rknn
    [ -f "$m" ] || continue
    rm -rf "$T/d"
    if "$B/rknn-trace" run "$m" --emulate --custom-op "$T/libcst_dual_residual.so" -i 0="$T/in0.npy" \
            -i 1="$T/in1.npy" --dump "$T/d" --no-db >"$T/run.log" 2>&1 &&
       $PY -c '
import sys, numpy as np
for k in (0, 1):
    g = np.fromfile(sys.argv[1] + "/model/dual_residual_output_%d.bin" % k, np.float32).astype(np.float64)
    y = np.load(sys.argv[2] + "/%d.npy" % (k + 2)).astype(np.float64).ravel()
    if y.size != g.size or np.dot(g, y) / np.linalg.norm(g) / np.linalg.norm(y) <= 0.999:
        sys.exit(1)
' "$D" "$T/d"; then
        pass=$((pass + 1)); echo "ok   $chip run --emulate --custom-op"
    else
        fail=$((fail + 1)); echo "FAIL $chip run --emulate --custom-op: $(grep -m1 -E 'rknn-trace' "$T/run.log" | cut -c1-240)"
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
