#!/bin/sh
# bench/npu_fidelity.sh — simulated NPU vs real RK3588 per-layer logs: every conv
# and depthwise row of the runtime 2.x tables rebuilt as a one-layer model; NPU
# cycles must match exactly, DDR cycles are reported with their error.
# usage: bench/npu_fidelity.sh [BUILD_DIR] [LOG_DIR]
set -e
BUILD=${1:-build}
LOGS=${2:-$(dirname "$0")/../tests/fuzz/corpus/perflog}
exec "$BUILD/tests/npu_fidelity" "$LOGS"/perf-*.txt
