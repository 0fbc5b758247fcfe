#!/bin/sh
# bench/npu_overhead.sh — the cost of RKNN_LOG_LEVEL=4 (npu_cost, which takes
# no host time, + the per-layer table) on the bundled models, as a share
# of a plain fp32 run (shapes and input ranges from tests/e2e/models.txt).
# Target: <= 5 % per run. Exit status 1 when a model misses it.
# usage: bench/npu_overhead.sh [BUILD_DIR] [RUNS]   (or BUILD=... in the environment)
set -e
cd "$(dirname "$0")/.."
BUILD=${1:-${BUILD:-build}}
[ -x "$BUILD/tests/npu_overhead" ] || { echo "npu_overhead: $BUILD/tests/npu_overhead not built (make BUILD=$BUILD)" >&2; exit 1; }
exec "$BUILD/tests/npu_overhead" tests/data/models tests/e2e/models.txt "${2:-20}"
