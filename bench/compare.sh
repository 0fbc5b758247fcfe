#!/bin/bash
# bench/compare.sh [BUILD_DIR] — `rknn-trace compare BOARD SIM` of two ~300-layer
# runs: a predicted run of ppocrv4_det (480x480, rk3588: 328 layer rows) and
# its own level-4 table imported as a board run (267 layers). Reports the best
# of 10 wall-clock times of the whole command (open, read both runs, align,
# print), text and --json. Target: <= 50 ms.
# Then the comparison document of three 2,000-layer runs (tests/tools/report_fixture:
# a run, another model's with renamed and dropped layers, a board run) rendered by
# `compare`, `compare --json`, every `report` format that compares (md, html, csv,
# json, gnuplot, png; trace shows one run) and the TUI compare view (timed by the
# TUI's key log: the `c` key that loads the three runs, builds the document and
# draws it); target: CPU time <= 1 s each (median of 5; wall time printed too).
# Exit 1 when missed.
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
status=0
[ "$worst" -le 50000 ] || status=1

FIX=$BUILD/tests/report_fixture
[ -x "$FIX" ] || { echo "bench compare: $FIX not built (make)" >&2; exit 2; }
"$FIX" "$T/n.db" big 2000 && "$FIX" "$T/n.db" other 2000 --variant &&
    "$FIX" "$T/n.db" board 2000 --board >/dev/null || exit 2
python3 - "$RT" "$T" <<'PYEND' || status=1
import os, resource, statistics, subprocess, sys, time
rt, tmp = sys.argv[1:3]
db = os.path.join(tmp, "n.db")
def measure(args):
    wall, cpu = [], []
    for _ in range(5):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        r = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall.append((time.perf_counter() - t0) * 1e3)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3)
        if r.returncode:
            sys.exit(f"bench compare: {' '.join(args)} failed: {r.stderr.decode()}")
    return statistics.median(wall), statistics.median(cpu)
runs = ["big", "other", "board"]
cmds = [("compare", [rt, "compare", *runs, "--db", db]),
        ("compare --json", [rt, "compare", *runs, "--db", db, "--json"])]
for fmt in ("md", "html", "csv", "json", "gnuplot", "png"):
    cmds.append((f"report -f {fmt}", [rt, "report", *runs, "-f", fmt, "-o", os.path.join(tmp, "r3." + fmt), "--db", db]))
print("load average %.1f %.1f %.1f on %d CPUs" % (*os.getloadavg(), os.cpu_count()))
missed = []
for name, args in cmds:
    wall, cpu = measure(args)
    ok = cpu <= 1000
    print(f"3 x 2,000-layer runs: {name:<16} wall {wall:6.0f} ms, cpu {cpu:6.0f} ms (target cpu <= 1000) {'ok' if ok else 'MISSED'}")
    if not ok:
        missed.append(name)
if missed:
    sys.exit("bench compare: over 1 s: " + ", ".join(missed))
PYEND
# the TUI compare view: mark the three runs (listed newest first) and press c
SOCK=rt-bench-cmp-$$
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$T"' EXIT
: >"$T/tui"
for i in 1 2 3 4 5; do
    tmux -L "$SOCK" kill-server 2>/dev/null
    SOCK=rt-bench-cmp-$$-$i
    rm -f "$T/keys.log"
    tmux -L "$SOCK" -f /dev/null new-session -d -s b -x 160 -y 50 \
        "env LANG=C.UTF-8 TERM=xterm-256color RKNN_TRACE_TUI_KEYLOG=$T/keys.log $RT tui --db $T/n.db; sleep 60"
    for _ in $(seq 200); do grep -q '^open' "$T/keys.log" 2>/dev/null && break; sleep 0.05; done
    tmux -L "$SOCK" send-keys -t b G Space k Space k k Space c
    for _ in $(seq 600); do grep -q '^key c ' "$T/keys.log" 2>/dev/null && break; sleep 0.05; done
    # "key c VIEW WALL_MS out OUT_MS cpu CPU_MS" (VIEW: the one that took the key)
    shown=no
    for _ in $(seq 100); do
        tmux -L "$SOCK" capture-pane -p -t b | grep -q '^verdict: C ' && { shown=yes; break; }
        sleep 0.05
    done
    awk -v s=$shown '/^key c / {print $4, $8, s}' "$T/keys.log" >>"$T/tui"
done
tmux -L "$SOCK" kill-server 2>/dev/null
if [ "$(wc -l <"$T/tui")" -ne 5 ] || grep -qv ' yes$' "$T/tui"; then
    echo "bench compare: the TUI did not open the compare view: $(cat "$T/tui")" >&2; status=1
else
    read -r wall cpu < <(sort -n -k2 "$T/tui" | awk 'NR == 3 {print $1, $2}')
    ok=$(awk -v c="$cpu" 'BEGIN {print (c <= 1000) ? "ok" : "MISSED"}')
    printf '3 x 2,000-layer runs: %-16s wall %6.0f ms, cpu %6.0f ms (target cpu <= 1000) %s\n' \
        "tui compare view" "$wall" "$cpu" "$ok"
    [ "$ok" = ok ] || status=1
fi
exit $status
