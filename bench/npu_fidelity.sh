#!/bin/sh
# bench/npu_fidelity.sh — simulated NPU vs real RK3588 per-layer logs: every conv
# and depthwise row of the runtime 2.x tables rebuilt as a one-layer model; NPU
# cycles must match exactly, DDR cycles are reported with their error.
# Logs: the shared ones (tests/fuzz/corpus/perflog) and those kept only here
# (tests/data/logs: RF-DETR fp16, runtime 2.3.2, batched rows).
# --check: exit 3 unless every row's NPU cycles and OpType are reproduced
# (also a `make test` suite).
# usage: bench/npu_fidelity.sh [BUILD_DIR] [--check | LOG_DIR]
set -e
BUILD=${1:-build}
D=$(dirname "$0")/..
case "$2" in
"") exec "$BUILD/tests/npu_fidelity" "$D"/tests/fuzz/corpus/perflog/perf-*.txt "$D"/tests/data/logs/perf-*.txt ;;
--check) exec "$BUILD/tests/npu_fidelity" --check "$D"/tests/fuzz/corpus/perflog/perf-*.txt "$D"/tests/data/logs/perf-*.txt ;;
*) exec "$BUILD/tests/npu_fidelity" "$2"/perf-*.txt ;;
esac
