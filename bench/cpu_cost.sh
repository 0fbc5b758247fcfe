#!/bin/sh
# bench/cpu_cost.sh — the CPU-fallback cost model (runtime/npu/npu_cpu.c)
# against the CPU rows (InputOperator, OutputOperator, Reshape, Resize, Gather)
# of the real rk3588 per-layer tables: the fit of its constants, and per row
# the logged time, the model's, the fit's and the fit made without that row
# (left out). Target: the fitted groups' median |error| <= 25 % in-sample, and
# npu_cpu.c holding the fit's constants.
# usage: bench/cpu_cost.sh [BUILD_DIR]   (or BUILD=... in the environment)
set -e
cd "$(dirname "$0")/.."
BUILD=${1:-${BUILD:-build}}
[ -x "$BUILD/tests/npu_cpu_cost" ] || { echo "cpu_cost: $BUILD/tests/npu_cpu_cost not built (make BUILD=$BUILD)" >&2; exit 1; }
exec "$BUILD/tests/npu_cpu_cost" tests/fuzz/corpus/perflog --check
