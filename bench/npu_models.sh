#!/bin/sh
# bench/npu_models.sh — whole-model frame time of the simulated NPU (int8
# lowering, one core) against the rknn_model_zoo board timings of
# shared/research/npu-benchmarks.md, for the models we can reproduce in ONNX
# (ppocrv4_det bundled; mobilenetv2-12, resnet50-v2-7, YOLOv5 n/s/m/s_relu and
# YOLOv8 n/s/m built from their architectures). The frame model's constants
# are fitted on this table: the fit, each model's error when left out of it,
# and our lowering checked on the vendor's yolov5s_relu, mobilenet and yolov8n
# per-layer tables are printed. Target: within +-20 %.
# usage: bench/npu_models.sh [BUILD_DIR]   (or BUILD=... in the environment)
set -e
cd "$(dirname "$0")/.."
BUILD=${1:-${BUILD:-build}}
[ -x "$BUILD/tests/npu_models" ] || { echo "npu_models: $BUILD/tests/npu_models not built (make BUILD=$BUILD)" >&2; exit 1; }
exec "$BUILD/tests/npu_models" tests/data/models tests/fuzz/corpus/perflog
