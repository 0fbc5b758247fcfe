#!/bin/bash
# bench/level4.sh [BUILD_DIR] — what RKNN_LOG_LEVEL=4 costs an application: the
# per-frame C API flow (rknn_inputs_set + rknn_run + rknn_outputs_get + release,
# tests/tools/bench_capi --level4) at level 4 (per-layer times, the NPU model
# costed, the vendor table printed to stderr, here /dev/null) over level 0, on every
# bundled model. The two levels alternate frame by frame in one process (the runtime
# reads the level at every call), so that a slow spell of this shared machine falls on
# both alike; about 2 s of frames per level and model (at least 20 frames each),
# medians. The runtime computes on one host thread (RKNN_TRACE_THREADS=1): the cost
# measured is the instrumentation's, not the scheduling noise of a two-thread pool.
# Target: <= 5 %. Exit 1 when a model misses it.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-build}}
[ -d "$BUILD" ] || [ "${BUILD#/}" != "$BUILD" ] || BUILD=$ROOT/$BUILD
BIN=$BUILD/tests/bench_capi
[ -x "$BIN" ] || { echo "bench level4: $BIN not built (make)" >&2; exit 2; }
PY=/usr/bin/python3
rc=0
printf '%-32s %7s %12s %12s %9s  %s\n' model frames "level0 us" "level4 us" "cost" "<= 5 %"
while read -r file shapes range _rest; do
    case $file in ''|'#'*) continue ;; esac
    IFS=';' read -r -a specs <<< "$shapes"
    model=$ROOT/tests/data/models/$file
    # one probe frame sets the count: about 2 s per level
    ms=$("$BIN" "$model" 1 1 "${specs[@]}" --warmup 1 --range "$range" 2>/dev/null |
         $PY -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])')
    [ -n "$ms" ] || { echo "bench level4: $file does not run" >&2; rc=1; continue; }
    n=$($PY -c "print(max(20, min(20000, int(2000 / max($ms, 1e-3)))))")
    row=$("$BIN" "$model" 1 "$n" "${specs[@]}" --range "$range" --level4 2>/dev/null |
          $PY -c 'import json,sys; r=json.load(sys.stdin); a,b=r["level0_ms"]*1e3,r["level4_ms"]*1e3
print("%.1f %.1f %.2f" % (a, b, 100 * (b - a) / a))')
    [ -n "$row" ] || { echo "bench level4: $file failed" >&2; rc=1; continue; }
    read -r l0 l4 cost <<< "$row"
    ok=ok
    [ "$($PY -c "print(int($cost > 5))")" = 1 ] && { ok=MISS; rc=1; }
    printf '%-32s %7d %12s %12s %8s%%  %s\n' "$file" "$n" "$l0" "$l4" "$cost" "$ok"
done < "$ROOT/tests/e2e/models.txt"
echo "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
