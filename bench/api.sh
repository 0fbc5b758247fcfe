#!/bin/bash
# bench/api.sh [BUILD_DIR] — cost of the RKNN C API over the fp32 executor (issue 3
# item 8), on every model of tests/e2e/models.txt, with BUILD_DIR/tests/bench_api.
#
# Per model, medians of BENCH_API_RUNS (default 20) interleaved frames, in µs:
# exec_run alone; rknn_inputs_set / rknn_run's own share (wall - PERF_RUN) /
# rknn_outputs_get + release of the general flow; the API overhead (their sum) in %
# of exec_run, gated at <= 5 % (BENCH_NO_GATE=1 never fails); the uint8 NHWC image
# rknn_inputs_set of a camera app; and zero-copy: the app's copy into the bound
# memory, rknn_run's own share, and the copy time zero-copy saves per frame on a
# board (its NPU reads/writes the bound memory) and as measured on the simulator.
# Column meanings: tests/tools/bench_api.c. Table also in BUILD_DIR/bench/api.md.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-build}}
[ -d "$BUILD" ] || [ "${BUILD#/}" != "$BUILD" ] || BUILD=$ROOT/$BUILD
[ -d "$BUILD" ] || { echo "bench api: no build folder $BUILD" >&2; exit 2; }
BUILD=$(cd "$BUILD" && pwd)
BIN=$BUILD/tests/bench_api
RUNS=${BENCH_API_RUNS:-20}
LIMIT=5
[ -x "$BIN" ] || { echo "bench api: $BIN not built (make)" >&2; exit 2; }
mkdir -p "$BUILD/bench"
OUT=$BUILD/bench/api.md

rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
rc=0
"$BIN" --header -n 1 "$ROOT/tests/data/models/mnist.onnx" | head -1 > "$rows"
while read -r file shapes _rest; do
    case $file in ''|'#'*) continue ;; esac
    # SHAPES is NAME=D0,...[;NAME=...]
    IFS=';' read -r -a specs <<< "$shapes"
    if ! "$BIN" -n "$RUNS" "$ROOT/tests/data/models/$file" "${specs[@]}" >> "$rows"; then
        echo "bench api: $file failed" >&2
        rc=1
    fi
done < "$ROOT/tests/e2e/models.txt"

{
    echo "## RKNN C API overhead over the fp32 executor ($(nproc) CPUs, $RUNS frames, medians in µs)"
    echo
    echo '```'
    cat "$rows"
    echo '```'
    echo
    echo "api_ovh = inputs_set (float32 NCHW) + rknn_run's own share + outputs_get/release;"
    echo "target: <= $LIMIT % of exec_run. saved_board: copies a board's zero-copy flow does not"
    echo "make; saved_sim: measured here (the simulator converts bound memory inside rknn_run)."
    echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT"

over=$(awk -v lim=$LIMIT 'NR > 1 { p = $8; sub(/%/, "", p); if (p + 0 > lim) print $1 " " $8 }' "$rows")
if [ -n "$over" ]; then
    echo "bench api: API overhead above $LIMIT %: $over" >&2
    [ "${BENCH_NO_GATE:-0}" = 1 ] || rc=1
fi
exit $rc
