#!/usr/bin/env bash
# tests/samples/vendor_linear_fp16.sh FILE.rknn — a third-party rk3588 float16 Linear
# through the emulator and librknnrt: linear_128_to_4.rknn of
# github.com/kaylorchen/ai_framework_demo (inference_without_preprocess_postprocess/,
# toolkit 2.3.2; not in this tree, its repository states no licence). Its model.py
# is Linear(128, 4) with every weight 1 and bias 128, so each output is
# 128 + sum(x): the oracle, in float64 on the float16 input the runtime makes.
# Checks: `run --emulate` on seeded floats (the [1, 128] input, the output's [1, 4]
# and each value within one float16 step of the oracle), then the SDK guide's call
# sequence (build/samples/sample_vendor, uint8 input bytes): want_float = 1,
# want_float = 0 (the file's float16) and the zero-copy memory give the same four
# values, each within one float16 step of 128 + sum of the bytes. Prints
# "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -eq 1 ] || { echo "usage: vendor_linear_fp16.sh linear_128_to_4.rknn" >&2; exit 2; }
F=$1
B=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
source tests/samples/checks.sh

$PY -c '
import numpy as np, sys
rng = np.random.default_rng(11)
np.save(sys.argv[1] + "/x.npy", rng.uniform(-1, 3, (1, 128)).astype(np.float32))
rng.integers(0, 256, 128, dtype=np.uint8).tofile(sys.argv[1] + "/x.u8")' "$T"

if "$B/rknn-trace" run "$F" --emulate --no-db -i input="$T/x.npy" --dump "$T/d" > "$T/run.out" 2>&1; then
    ok "run --emulate: both NPU tasks and the CPU Reshape ran"
else
    bad "run --emulate: $(tail -1 "$T/run.out")"
fi
msg=$($PY - "$T" <<'PY'
import sys, numpy as np
t = sys.argv[1]
try:
    x = np.load(t + "/d/input.npy"); y = np.load(t + "/d/output.npy")
except OSError as e:
    print("no dump: %s" % e); sys.exit()
want = 128 + np.load(t + "/x.npy").astype(np.float16).astype(np.float64).sum()
step = float(np.spacing(np.float16(want)))
if x.shape != (1, 128) or y.shape != (1, 4):
    print("shapes %s %s, not (1, 128) (1, 4)" % (x.shape, y.shape))
elif np.abs(y - want).max() > step:
    print("output %s, want %.4f within %g" % (y.ravel(), want, step))
else:
    print("ok %s against %.4f" % (y.ravel()[0], want))
PY
)
case "$msg" in ok*) ok "emulated output = 128 + sum(x): ${msg#ok }" ;; *) bad "emulated output: $msg" ;; esac

mkdir -p "$T/app"
if "$B/samples/sample_vendor" "$F" "$T/app" "$T/x.u8" > "$T/app.out" 2>&1; then
    ok "sample_vendor: the SDK guide's calls and the zero-copy flow return 0"
else
    bad "sample_vendor: $(grep -v '^ ' "$T/app.out" | tail -1)"
fi
msg=$($PY - "$T" <<'PY'
import sys, numpy as np
t = sys.argv[1] + "/"
want = 128 + np.fromfile(t + "x.u8", np.uint8).astype(np.float64).sum()
step = float(np.spacing(np.float16(want)))
try:
    got = [np.fromfile(t + "app/out0.f32", np.float32).astype(np.float64),
           np.fromfile(t + "app/out0.f16", np.float16).astype(np.float64),
           np.fromfile(t + "app/out0.zc.f16", np.float16).astype(np.float64)]
except OSError as e:
    print("missing: %s" % e); sys.exit()
if any(g.shape != (4,) for g in got) or not all((g == got[0]).all() for g in got):
    print("float, float16 and zero-copy outputs differ: %s" % got)
elif np.abs(got[0] - want).max() > step:
    print("outputs %s, want %.1f within %g" % (got[0], want, step))
else:
    print("ok %s against %.1f" % (got[0][0], want))
PY
)
case "$msg" in ok*) ok "librknnrt: want_float 1 and 0 and zero-copy agree, = 128 + sum: ${msg#ok }" ;; *) bad "librknnrt: $msg" ;; esac

finish
