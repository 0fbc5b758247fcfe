#!/bin/bash
# bench/run_spread.sh [BUILD_DIR] — how much `rknn-trace run`'s host median moves from
# one run to the next at its default timing (warm-ups, >= 10 runs and >= 1 s).
#
# For each bundled model (tests/data/models, shapes from tests/e2e/models.txt): RUNS
# (default 5) separate `run --no-db --json` processes; spread = (max - min) / median
# of their medians. Target: <= 10 % per model on a quiet machine (the load average
# is printed: a busy machine widens the spread). Exits 1 when a model misses it
# (BENCH_NO_GATE=1: always 0 when every run worked).
#
# Environment: BENCH_RUNS (default 5), BENCH_MODELS (space-separated file names),
# BENCH_SPREAD_MAX (default 10, percent), BENCH_RUN_ARGS (more `run` options, e.g.
# "--threads 1").
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-build}}
[ -d "$BUILD" ] || [ "${BUILD#/}" != "$BUILD" ] || BUILD=$ROOT/$BUILD
RT=$BUILD/rknn-trace
PY=/usr/bin/python3
RUNS=${BENCH_RUNS:-5}
MAX=${BENCH_SPREAD_MAX:-10}
[ -x "$RT" ] || { echo "bench: $RT not built (make)" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs${BENCH_RUN_ARGS:+, run $BENCH_RUN_ARGS}"
printf '| model | runs | timed runs each | medians (ms) | spread | spread of min | target |\n|---|---|---|---|---|---|---|\n'
missed=0; broken=0
while read -r file shapes range rest; do
    case $file in ''|'#'*) continue ;; esac
    if [ -n "${BENCH_MODELS:-}" ] && ! [[ " $BENCH_MODELS " == *" $file "* ]]; then
        continue
    fi
    args=()
    IFS=';' read -r -a specs <<< "$shapes"
    for s in "${specs[@]}"; do args+=(--shape "$s"); done
    read -r -a extra <<< "${BENCH_RUN_ARGS:-}"
    args+=("${extra[@]}")
    : > "$T/res"
    for _ in $(seq "$RUNS"); do
        if ! "$RT" run "$ROOT/tests/data/models/$file" "${args[@]}" --no-db --json \
                > "$T/out" 2> "$T/err"; then
            echo "| $file | failed: $(tail -n 1 "$T/err" | head -c 120) ||||||"
            broken=1
            continue 2
        fi
        $PY -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["host"]["median_us"], r["host"]["iterations"], r["host"]["min_us"])' \
            "$T/out" >> "$T/res"
    done
    $PY - "$T/res" "$file" "$MAX" <<'PYEOF' || missed=1
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
med = [float(r[0]) for r in rows]
its = sorted({int(r[1]) for r in rows})
spread = (max(med) - min(med)) / statistics.median(med) * 100
# the spread of the per-process minimum: when it is small and the medians' is
# not, the machine (other tenants, steal time) moved, not the program
mins = [float(r[2]) for r in rows]
mspread = (max(mins) - min(mins)) / statistics.median(mins) * 100
ok = spread <= float(sys.argv[3])
print("| %s | %d | %s | %s | %.1f %% | %.1f %% | %s |" % (
    sys.argv[2], len(med), "-".join(map(str, (its[0], its[-1]))) if len(its) > 1 else its[0],
    " ".join("%.3f" % (m / 1e3) for m in med), spread, mspread,
    "ok" if ok else "MISSED (<= %s %%)" % sys.argv[3]))
sys.exit(0 if ok else 1)
PYEOF
done < "$ROOT/tests/e2e/models.txt"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ $broken -eq 0 ] || exit 1
[ $missed -eq 0 ] || [ "${BENCH_NO_GATE:-0}" = 1 ] || exit 1
exit 0
