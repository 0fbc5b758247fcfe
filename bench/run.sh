#!/bin/bash
# bench/run.sh [BUILD_DIR] — our runtime vs onnxruntime-node on every bundled model.
#
# For each model of tests/e2e/models.txt, at 1 and 2 threads: the median of RUNS
# timed runs (default 20) after a few warm-ups, and the peak RSS, for
# BUILD_DIR/tests/bench_model (ours) and tests/oracle/ort_bench.js (onnxruntime).
# Prints a markdown table with verdicts against the targets (time ratio <= 2.0,
# RSS ratio <= 1.5) and writes it to BUILD_DIR/bench/results.md. Exits 1 when a
# model fails to run or a target is missed (BENCH_NO_GATE=1: always 0 when all ran).
#
# Environment: BENCH_RUNS (default 20), BENCH_WARMUP (default 3; models whose first
# run takes over a second get 1), BENCH_THREADS (default "1 2"), BENCH_MODELS
# (space-separated file names), BENCH_PROFILE=1 (per-op breakdown of ours and of
# onnxruntime, 1 thread, into BUILD_DIR/bench/profile_<model>.txt).
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-build}}
# a relative folder: from the cwd, else from the repository
[ -d "$BUILD" ] || [ "${BUILD#/}" != "$BUILD" ] || BUILD=$ROOT/$BUILD
[ -d "$BUILD" ] || { echo "bench: no build folder $BUILD" >&2; exit 2; }
BUILD=$(cd "$BUILD" && pwd)
PY=/usr/bin/python3
OURS=$BUILD/tests/bench_model
ORT=$ROOT/tests/oracle/ort_bench.js
RUNS=${BENCH_RUNS:-20}
WARMUP=${BENCH_WARMUP:-3}
THREADS=${BENCH_THREADS:-1 2}
OUT=$BUILD/bench
mkdir -p "$OUT"

[ -x "$OURS" ] || { echo "bench: $OURS not built (make)" >&2; exit 2; }
if [ ! -d "$ROOT/tests/oracle/node_modules/onnxruntime-node" ]; then
    echo "bench: onnxruntime-node is not installed; run 'make deps'" >&2
    exit 2
fi

RES=$OUT/raw.jsonl
: > "$RES"
start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
echo "bench: $RUNS timed runs per case, threads: $THREADS" >&2

while read -r file shapes range rest; do
    case $file in ''|'#'*) continue ;; esac
    if [ -n "${BENCH_MODELS:-}" ] && ! [[ " $BENCH_MODELS " == *" $file "* ]]; then
        continue
    fi
    model=$ROOT/tests/data/models/$file
    ours_shapes=() ort_shapes=()
    IFS=';' read -r -a specs <<< "$shapes"
    for s in "${specs[@]}"; do
        ours_shapes+=(--shape "$s")
        ort_shapes+=("$s")
    done

    # One probe run picks the warm-up count and catches models we cannot run.
    warm=$WARMUP
    t0=$(date +%s%N)
    if ! "$OURS" "$model" 1 1 "${ours_shapes[@]}" --warmup 0 --range "$range" \
            > /dev/null 2> "$OUT/probe.err"; then
        msg=$(grep -v '^\s*$' "$OUT/probe.err" | tail -n 1 | head -c 160)
        echo "  $file: ours failed: $msg" >&2
        $PY -c 'import json,sys; print(json.dumps({"model": sys.argv[1], "error": sys.argv[2]}))' \
            "$file" "$msg" >> "$RES"
        continue
    fi
    probe_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    [ "$probe_ms" -gt 1000 ] && warm=1

    for t in $THREADS; do
        o=$("$OURS" "$model" "$t" "$RUNS" "${ours_shapes[@]}" --warmup "$warm" \
                --range "$range" 2> "$OUT/ours.err") || o='{"error": "ours failed"}'
        r=$(node "$ORT" "$model" "$t" "$RUNS" "${ort_shapes[@]}" --warmup "$warm" \
                --range "$range" 2> "$OUT/ort.err") || r='{"error": "ort failed"}'
        echo "  $file threads=$t ours=$o ort=$r" >&2
        $PY -c 'import json,sys; print(json.dumps({"model": sys.argv[1], "threads": int(sys.argv[2]),
"ours": json.loads(sys.argv[3]), "ort": json.loads(sys.argv[4])}))' "$file" "$t" "$o" "$r" >> "$RES"
    done
    if [ "${BENCH_PROFILE:-0}" = 1 ]; then
        pf=$OUT/profile_${file%.onnx}.txt
        "$OURS" "$model" 1 "$RUNS" "${ours_shapes[@]}" --warmup "$warm" --range "$range" \
            --profile > /dev/null 2> "$pf"
        echo >> "$pf"
        node "$ORT" "$model" 1 "$RUNS" "${ort_shapes[@]}" --warmup "$warm" --range "$range" \
            --profile > /dev/null 2>> "$pf"
    fi
done < "$ROOT/tests/e2e/models.txt"

node_rss=$(node -e "require('$ROOT/tests/oracle/node_modules/onnxruntime-node');
console.log(process.resourceUsage().maxRSS)" 2>/dev/null || echo 0)
elapsed=$(( $(date +%s) - start ))

load1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
$PY - "$RES" "$OUT/results.md" "$node_rss" "$elapsed" "$RUNS" "$(nproc) CPUs, load average $load0 at start, $load1 at end" <<'EOF'
import json, sys
res, out, node_rss, elapsed, runs, load = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
TIME_MAX, RSS_MAX = 2.0, 1.5
lines = [
    "| model | threads | ours ms | ort ms | ratio | ours RSS MB | ort RSS MB | RSS ratio | time <= %.1fx | RSS <= %.1fx |"
    % (TIME_MAX, RSS_MAX),
    "|---|---:|---:|---:|---:|---:|---:|---:|:---:|:---:|",
]
fails = 0
for l in open(res):
    r = json.loads(l)
    if "error" in r:
        fails += 1
        lines.append("| %s | - | error | - | - | - | - | - | FAIL | FAIL |" % r["model"])
        lines.append("|   | | %s | | | | | | | |" % r["error"].replace("|", "/"))
        continue
    o, t = r["ours"], r["ort"]
    if "error" in o or "error" in t:
        fails += 1
        lines.append("| %s | %d | %s | %s | - | - | - | - | FAIL | FAIL |" % (
            r["model"], r["threads"], o.get("error", "ok"), t.get("error", "ok")))
        continue
    tr = o["median_ms"] / t["median_ms"] if t["median_ms"] > 0 else float("inf")
    rr = o["peak_rss_kb"] / t["peak_rss_kb"] if t["peak_rss_kb"] > 0 else float("inf")
    tv = "ok" if tr <= TIME_MAX else "FAIL"
    rv = "ok" if rr <= RSS_MAX else "FAIL"
    fails += (tv != "ok") + (rv != "ok")
    lines.append("| %s | %d | %.2f | %.2f | %.2f | %.1f | %.1f | %.2f | %s | %s |" % (
        r["model"], r["threads"], o["median_ms"], t["median_ms"], tr,
        o["peak_rss_kb"] / 1024, t["peak_rss_kb"] / 1024, rr, tv, rv))
lines.append("")
lines.append("Median of %s timed runs each. ort RSS is the whole node process; node with "
             "onnxruntime-node loaded and no model peaks at %.1f MB. Bench took %s s; %s."
             % (runs, node_rss / 1024, elapsed, load))
text = "\n".join(lines) + "\n"
open(out, "w").write(text)
sys.stdout.write(text)
sys.exit(1 if fails else 0)
EOF
rc=$?
echo "bench: table written to $OUT/results.md" >&2
if [ "${BENCH_NO_GATE:-0}" = 1 ] && ! grep -q '| error |' "$OUT/results.md"; then
    exit 0
fi
exit $rc
