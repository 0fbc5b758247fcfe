#!/bin/bash
# bench/tune.sh [BUILD_DIR] — `rknn-trace tune` of YOLOX-Nano (416x416) over 20
# calibration and 20 evaluation samples (the real photos of python3-skimage,
# tests/quant/make_calib.py, on the model's 0..255 input range), at the
# default target (cos 0.99) and every core: the whole process's wall time,
# target <= 180 s on a 2-core machine (TUNE_MAX_S). Prints the answer line and
# how many configurations were evaluated. Exits 1 when the time is missed or
# tune fails (BENCH_NO_GATE=1: 0 whenever it ran).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-build}}
[ -d "$BUILD" ] || [ "${BUILD#/}" != "$BUILD" ] || BUILD=$ROOT/$BUILD
PY=/usr/bin/python3
BUILD=$(cd "$BUILD" && pwd)
R=$BUILD/rknn-trace
MAX=${TUNE_MAX_S:-180}
[ -x "$R" ] || { echo "bench: $R not built (make)" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
$PY "$ROOT/tests/quant/make_calib.py" "$T/d" 1,3,416,416 0,255 40 >/dev/null ||
    { echo "bench: could not make the samples (python3-skimage, python3-pil)" >&2; exit 2; }
head -20 "$T/d/dataset.txt" >"$T/d/calib.txt"
tail -20 "$T/d/dataset.txt" >"$T/d/eval.txt"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
start=$(date +%s.%N)
(cd "$T/d" && "$R" tune "$ROOT/tests/data/models/yolox_nano.onnx" --dataset calib.txt \
    --eval eval.txt -o "$T/y.quantization.cfg" --no-db --no-progress) >"$T/out" 2>&1
rc=$?
end=$(date +%s.%N)
s=$($PY -c "print('%.1f' % ($end - $start))")
grep -E "^answer|^wrote" "$T/out"
echo
echo "| model | samples (calibration + evaluation) | tune wall s | <= ${MAX} s |"
echo "|---|---|---:|:---:|"
# rc 3: the target was not reached, still a whole search (timed as one)
if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
    echo "| yolox_nano.onnx | 20 + 20 | failed (rc $rc): $(tail -n 1 "$T/out" | head -c 120) | FAIL |"
    exit 1
fi
v=$($PY -c "print('ok' if $s <= $MAX else 'MISSED')")
echo "| yolox_nano.onnx | 20 + 20 | $s | $v |"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$v" = ok ] || [ "${BENCH_NO_GATE:-0}" = 1 ]
