#!/bin/bash
# bench/npu_fp16.sh [BUILD_DIR] — how far the frame model, whose constants are
# fitted on int8 timings only (bench/npu_models.sh), is from the board on
# float16 models: the rknn_model_zoo's FP16 CLIP ViT-B/32 encoders
# (npu-benchmarks.md table A, clip rows; built by bench/npu_fp16_models.py
# from the published architecture) predicted in fp16 on each chip of the table
# against its board time. A report, no target: it is why the level-4 table
# calls the frame time of float16 layers an estimate.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-build}}
[ -d "$BUILD" ] || BUILD=$ROOT/$BUILD
R=$BUILD/rknn-trace
[ -x "$R" ] || { echo "npu_fp16: $R not built (make)" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
/usr/bin/python3 "$ROOT/bench/npu_fp16_models.py" "$T" || { echo "npu_fp16: models not built" >&2; exit 2; }
# board ms = 1000 / FPS of table A (rknn_model_zoo v2.3.2 README), one core
printf '| model | chip | board ms | predicted ms | error |\n|---|---|---|---|---|\n'
while read -r model chip board; do
    pred=$("$R" run "$T/$model.onnx" -q fp16 -t "$chip" --no-db --no-progress --json -n 1 \
               --warmup 0 2>"$T/err" |
           /usr/bin/python3 -c 'import json, sys; print("%.2f" % (json.load(sys.stdin)["npu"]["predicted_us"] / 1e3))') ||
        { echo "npu_fp16: $model on $chip: $(tail -1 "$T/err")" >&2; continue; }
    /usr/bin/python3 -c "import sys; b, p = float(sys.argv[3]), float(sys.argv[4]); print(f'| {sys.argv[1]} | {sys.argv[2]} | {b:.2f} | {p:.2f} | {100 * (p / b - 1):+.0f} % |')" \
        "$model" "$chip" "$board" "$pred"
done <<'TABLE'
clip_text rk3588 10.42
clip_text rk3576 15.70
clip_text rk3562 15.02
clip_text rk3566 33.67
clip_image rk3588 153.85
clip_image rk3576 149.25
clip_image rk3562 294.12
clip_image rk3566 434.78
TABLE
