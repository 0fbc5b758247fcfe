#!/bin/bash
# bench/compare.sh [BUILD_DIR] — `rknn-trace compare BOARD SIM` of two ~300-layer
# runs: a predicted run of ppocrv4_det (480x480, rk3588: 328 layer rows) and
# its own level-4 table imported as a board run (267 layers). Reports the best
# of 10 wall-clock times of the whole command (open, read both runs, align,
# print), text and --json. Target: <= 50 ms. Exit 1 when missed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-build}}
[ -d "$BUILD" ] || [ "${BUILD#/}" != "$BUILD" ] || BUILD=$ROOT/$BUILD
RT=$BUILD/rknn-trace
[ -x "$RT" ] || { echo "bench compare: $RT not built (make)" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$ROOT"
"$RT" run tests/data/models/ppocrv4_det.onnx --shape x=1,3,480,480 -t rk3588 --npu-table -n 1 \
    --db "$T/c.db" --label sim >"$T/run.txt" 2>/dev/null || { echo "bench compare: run failed" >&2; exit 2; }
sed -n '1,/^Total Operator Elapsed/p' "$T/run.txt" >"$T/table.txt"
"$RT" import --db "$T/c.db" --label board "$T/table.txt" >/dev/null || { echo "bench compare: import failed" >&2; exit 2; }
rows=$(sqlite3 "$T/c.db" "SELECT group_concat(n_layers, ' and ') FROM runs")
worst=0
for mode in "" --json; do
    best=
    for _ in $(seq 10); do
        s=$(date +%s%N)
        "$RT" compare --db "$T/c.db" board sim $mode >"$T/out" || { echo "bench compare: compare failed" >&2; exit 1; }
        e=$(date +%s%N)
        t=$(( (e - s) / 1000 ))
        [ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
    done
    printf 'compare BOARD SIM%s of runs of %s layer rows: %.1f ms (best of 10; target <= 50)\n' \
        "${mode:+ $mode}" "$rows" "$(echo "$best / 1000" | bc -l)"
    [ "$best" -gt "$worst" ] && worst=$best
done
[ "$worst" -le 50000 ]
