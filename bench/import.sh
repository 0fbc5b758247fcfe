#!/bin/bash
# bench/import.sh [BUILD_DIR] — `rknn-trace import` of a ~100 MB log made by
# concatenating the real samples it reads ($RT_SHARED/data/logs: per-layer
# tables, ranking tables, SRAM, eval_memory, benchmark, accuracy, init lines),
# into a fresh database. Reports MB/s of the whole import (read, scan, all its
# runs written in one transaction; the scan and the writing overlap on two
# threads, cli/import_stream.c) and the run count.
# Best of 3 imports. Target: >= 100 MB/s. Exit 1 when missed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-build}}
[ -d "$BUILD" ] || [ "${BUILD#/}" != "$BUILD" ] || BUILD=$ROOT/$BUILD
RT=$BUILD/rknn-trace
LOGS=${RT_SHARED:-$ROOT/../shared}/data/logs
MB=${BENCH_IMPORT_MB:-100}
[ -x "$RT" ] || { echo "bench import: $RT not built (make)" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cat "$LOGS"/perf-*.txt "$LOGS"/sram-*.txt "$LOGS"/memory-*.txt "$LOGS"/benchmark-*.txt \
    "$LOGS"/accuracy-*.txt "$LOGS"/rtlog-init-*.txt "$LOGS"/evalperf-freqlist-*.txt >"$T/one.txt"
one=$(stat -c %s "$T/one.txt")
n=$(( MB * 1000000 / one + 1 ))
for _ in $(seq "$n"); do cat "$T/one.txt"; done >"$T/big.txt"
size=$(stat -c %s "$T/big.txt")
best=
cpu=
for _ in 1 2 3; do
    rm -f "$T/b.db"*
    s=$(date +%s.%N)
    /usr/bin/time -f "%U %S" -o "$T/cpu" "$RT" import --db "$T/b.db" --json "$T/big.txt" >"$T/out" ||
        { echo "bench import: import failed" >&2; exit 1; }
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc)
    c=$(awk '{print $1 + $2}' "$T/cpu")
    [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ] && best=$t
    [ -z "$cpu" ] || [ "$(echo "$c < $cpu" | bc)" = 1 ] && cpu=$c
done
runs=$(python3 -c "import json; print(len(json.load(open('$T/out'))['runs']))")
mbs=$(echo "scale=1; $size / 1000000 / $best" | bc)
# the CPU time too: on a machine shared with other jobs the wall clock also
# counts the time the process waited for a core
printf 'import of %.1f MB (%d copies of the samples, %d runs): %.2f s, %s MB/s; CPU %.2f s, %s MB/s (target >= 100)\n' \
    "$(echo "$size / 1000000" | bc -l)" "$n" "$runs" "$best" "$mbs" "$cpu" "$(echo "scale=1; $size / 1000000 / $cpu" | bc)"
[ "$(echo "$mbs >= 100" | bc)" = 1 ]
