#!/usr/bin/env bash
# One story per run: one run of every source, told the same way on every surface.
# Sources: sim (ONNX fp32 with a CPU fallback, int8, fp16, hybrid int8/fp16, a
# container written by `build`), predict (a vendor .rknn), board (the project's
# librknnrt.so standing in for the vendor's, and a stub runtime returning a real
# board's table), attach (an application on the project's librknnrt.so) and
# import (every log of ../shared/data/logs that holds runs, and the public logs of
# tests/data/logs but RKNPU1's: level-4 tables, eval_perf,
# rknn_common_test, accuracy sessions, eval_memory, runtime errors ...). Surfaces:
# run's text, run --json, show, show --json, show --npu-table, ls --json, report
# md/html/csv/json and the TUI (its summary view and runs list, captured under tmux).
# tests/tools/story_surfaces.py reads each and checks that the frame figure, the
# level-4 total, the layer count, the CPU-fallback layers with their costs and the
# provenance words agree, and are the words the source deserves (docs/json.md).
# Then: a malformed log (a real one cut or mutated) is one line, exit 2, nothing stored.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RT=$PWD/$B/rknn-trace
LIB=$B/librknnrt.so
PY=/usr/bin/python3
export RT_SHARED=${RT_SHARED:-../shared}
T=$(mktemp -d)
SOCK=rt-story-$$
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; [ -n "${STORY_KEEP:-}" ] || rm -rf "$T"' EXIT
export RKNN_TRACE_SYSFS=$T/sim
unset RKNN_LOG_LEVEL RKNN_TRACE_PERF RKNN_TRACE_JOURNAL RKNN_TRACE_RUNTIME NO_COLOR
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0"
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
M=tests/data/models/mnist.onnx
C=tests/data/models/ppocr_mobile_v2.0_cls.onnx
Y=tests/data/models/yolox_nano.onnx
RK=$RT_SHARED/data/models/rknn/multiple_input_demo.rk3588.rknn
LOGS=$RT_SHARED/data/logs
P=tests/fuzz/corpus/perflog/perf-perfdetail-yolov8n1920-rk3588-channy-01.txt
DB=$T/db
SPECS=$T/specs
: >"$SPECS"

# run LABEL FRAME TABLE TIMING -- ARGS: one recorded run (its text in LABEL.run),
# then the same with --json --no-db (LABEL.rjson: the figures that do not depend
# on this PC's timing must be the recorded run's)
run() {
    local l=$1 spec="$1 $2 $3 $4"; shift 5
    "$RT" run "$@" --db "$DB" --label "$l" >"$T/$l.run" 2>"$T/err" && ok || bad "run $l: $(tail -3 "$T/err")"
    "$RT" run "$@" --no-db --json >"$T/$l.rjson" 2>"$T/err" && ok || bad "run --json $l: $(tail -3 "$T/err")"
    echo "$spec" >>"$SPECS"
}
S=(--no-progress -n 2)
run fp32 predicted predicted host -- "$C" --shape x=1,3,48,192 -t rk3566 "${S[@]}"
# YOLOX on rk3566: its head's layers run in another order than its rows (the
# class convs fused with Sigmoids far below them), and its decode Transpose falls back
run yolox predicted predicted host -- "$Y" -t rk3566 --no-progress -n 1
run i8 predicted predicted host -- "$M" -q i8 "${S[@]}" --write-quant-cfg "$T/m.cfg"
run fp16 predicted predicted host -- "$M" -q fp16 "${S[@]}"
sed 's/^custom_quantize_layers: {}$/custom_quantize_layers:\n    Convolution110_Output_0: float16/' "$T/m.cfg" >"$T/h.cfg"
run hybrid predicted predicted host -- "$M" -q i8 --hybrid "$T/h.cfg" "${S[@]}"
"$RT" build "$M" -q i8 --hybrid "$T/m.cfg" -t rk3588 -o "$T/m.rknn" >/dev/null 2>"$T/err" && ok || bad "build: $(cat "$T/err")"
run container predicted predicted host -- "$T/m.rknn" "${S[@]}"
run board - board board -- "$M" --backend board --runtime "$LIB" -n 3
if [ -f "$RK" ]; then
    run predict predicted predicted - -- "$RK"
    mkdir -p "$T/stub"
    cc -std=c11 -shared -fPIC -Iinclude -o "$T/stub/librknnrt.so" tests/board/stub_runtime.c || bad "stub build"
    STUB_PERF=$P run stub - board board -- "$RK" --backend board --runtime "$T/stub/librknnrt.so" -n 3
fi
$PY -c "open('$T/img.ppm','wb').write(b'P6\n416 416\n255\n'+bytes((i*7)%256 for i in range(416*416*3)))"
"$RT" attach --db "$DB" --perf 1 --label attach -- "$B/samples/sample_general" "$Y" "$T/img.ppm" "$T/o.f32" 2 \
    >/dev/null 2>"$T/err" && ok || bad "attach: $(cat "$T/err")"
echo "attach - predicted simlib" >>"$SPECS"

# every log of the kinds that hold runs, in one import (one transaction): each of its
# runs must agree; a log of another kind (debugfs, dmesg, a server's start) is
# refused alone with one line
# and every public log of tests/data/logs (a row whose FullName the log cut, an op
# type too long for a narrow column, error runs of every runtime) but RKNPU1's,
# which import refuses by name
"$RT" import "$LOGS"/{accuracy,benchmark,buildlog,evalperf,memory,perf,rterr,rtlog,sram,tkerr,tkver}-*.txt \
    $(ls tests/data/logs/*.txt | grep -v /issue-tk1-) \
    --db "$DB" --json >"$T/imp.json" 2>"$T/err" && ok || bad "import of every log: $(cat "$T/err")"
$PY - "$T/imp.json" "$SPECS" "$T/kinds" <<'PYEOF' && ok || bad "import: runs of every log"
import json, os, sys
runs = json.load(open(sys.argv[1]))["runs"]
with open(sys.argv[2], "a") as s, open(sys.argv[3], "w") as k, open(sys.argv[3] + ".src", "w") as src:
    for r in runs:   # imported runs go by id; the kind of log is its name's first two words
        s.write("%d ? ? ?\n" % r["run_id"])
        k.write("%d %s\n" % (r["run_id"], "-".join(os.path.basename(r["source"]).split("-")[:2])))
        src.write("%d %s\n" % (r["run_id"], r["source"]))   # the log each run came from
kinds = {"-".join(os.path.basename(r["source"]).split("-")[:1]) for r in runs}
need = {"accuracy", "benchmark", "memory", "perf", "rterr", "tkerr", "rtlog", "sram"}
assert need <= kinds and len(runs) >= 40, (sorted(kinds), len(runs))
PYEOF
for f in "$LOGS"/{debugfs,dmesg,npuload}-*.txt; do
    "$RT" import "$f" --db "$DB" >/dev/null 2>"$T/err"; rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "^rknn-trace: import: " "$T/err" && ok \
        || bad "import $(basename "$f"): exit $rc, not one line: $(cat "$T/err")"
done

# rknn_server's version line alone: a run with that version (nothing else to tell)
"$RT" import "$LOGS"/rknnserver-start-rk3588-2.3.0-triority-01.txt --db "$T/srv.db" >/dev/null 2>"$T/err" \
    && [ "$(sqlite3 "$T/srv.db" "SELECT json_extract(env_json,'\$.server_version') FROM runs")" = 2.3.0 ] && ok \
    || bad "rknn_server version line: $(cat "$T/err")"

# ---- every surface of every run ---------------------------------------------------
"$RT" ls --json --db "$DB" >"$T/ls.json" 2>"$T/err" || bad "ls --json: $(cat "$T/err")"
while read -r l _; do
    "$RT" show "$l" --db "$DB" >"$T/$l.show" 2>"$T/err" || bad "show $l: $(cat "$T/err")"
    "$RT" show "$l" --db "$DB" --json >"$T/$l.sjson" 2>"$T/err" || bad "show --json $l: $(cat "$T/err")"
    # the level-4 table rebuilt (a run of no known platform or without layers has none)
    "$RT" show "$l" --db "$DB" --npu-table >"$T/$l.npu" 2>"$T/err" || { grep -qE "unknown platform|no platform recorded|has no predicted NPU layers|has no per-layer table" "$T/err" \
        && rm "$T/$l.npu" || bad "show --npu-table $l: $(cat "$T/err")"; }
    for f in md html csv json; do
        "$RT" report "$l" --db "$DB" -f $f -o "$T/$l.$f" 2>"$T/err" || bad "report $f $l: $(cat "$T/err")"
    done
done <"$SPECS"

# the TUI under tmux (a private server, a window tall enough for every run and a summary)
screen() { tmux -L "$SOCK" capture-pane -p -t story 2>/dev/null; }
keys() { tmux -L "$SOCK" send-keys -t story "$@"; }
wait_for() { # TEXT: the screen shows it (5 s at most); the screen in $T/screen
    for _ in $(seq 100); do
        screen >"$T/screen"
        grep -qF -- "$1" "$T/screen" && return 0
        sleep 0.05
    done
    return 1
}
tmux -L "$SOCK" -f /dev/null new-session -d -s story -x 200 -y 150 \
    "env LANG=C.UTF-8 TERM=xterm-256color NO_COLOR=1 $RT tui --db $DB; sleep 30"
wait_for "pred ms" && sleep 0.2 && screen >"$T/tui-runs" && ok || bad "tui runs list: $(cat "$T/screen")"
# the summary view of one run of each source (an import: the first run of each kind of
# log), opened with i on its row of the runs list (reached from the nearer end)
n_rows=$(awk 'h && $1 ~ /^[0-9]+$/ { n++ } /pred ms/ { h = 1 } END { print n }' "$T/tui-runs")
for l in fp32 yolox i8 fp16 hybrid container board predict stub attach $(sort -u -k2,2 "$T/kinds" | cut -d' ' -f1); do
    [ -f "$T/$l.sjson" ] || continue
    id=$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))['id'])" "$T/$l.sjson")
    row=$(awk -v id="$id" 'h && $1 ~ /^[0-9]+$/ { if ($1 == id) print n + 0; n++ } /pred ms/ { h = 1 }' "$T/tui-runs")
    [ -n "$row" ] || { bad "tui: run #$id not in the list"; continue; }
    if [ $((2 * row)) -lt "$n_rows" ]; then keys g; [ "$row" -gt 0 ] && keys -N "$row" Down
    else keys G; up=$((n_rows - 1 - row)); [ "$up" -gt 0 ] && keys -N "$up" Up; fi
    keys i
    if wait_for "run       #$id "; then sleep 0.05; screen >"$T/$l.tui"; ok; else bad "tui $l: no summary: $(cat "$T/screen")"; fi
    keys q
    wait_for "pred ms" || bad "tui $l: not back to the runs"
done
tmux -L "$SOCK" kill-server 2>/dev/null

$PY tests/tools/story_surfaces.py "$T" "$SPECS" >"$T/dis" && ok || { bad "surfaces disagree:"; cat "$T/dis" >&2; }

# ---- a malformed log: one line, exit 2, nothing stored -------------------------------
before=$("$RT" ls --json --db "$DB" | $PY -c "import json,sys; print(len(json.load(sys.stdin)))")
$PY - "$LOGS" "$T/bad" <<'PYEOF' || bad "making malformed logs"
import os, re, sys
logs, out = sys.argv[1], sys.argv[2]
os.makedirs(out)
def w(name, data):
    open(os.path.join(out, name), "wb").write(data)
def bounds(stem, b):
    w(stem + ".nul", b[: len(b) // 2] + b"\0" + b[len(b) // 2:])          # a binary byte inside
    w(stem + ".long", b[: len(b) // 3] + b"x" * 70000 + b"\n" + b[len(b) // 3:])  # a line over 64 KiB
    w(stem + ".head", b[:40].split(b"\n")[0][:20])                        # cut before any table
    w(stem + ".ctl", b.replace(b"\n", b"\n\x01", 1))                      # a control byte
seen = set()
for f in sorted(os.listdir(logs)):
    kind = f.split("-")[0]
    if kind not in ("perf", "rterr", "accuracy", "memory", "benchmark"):
        continue
    b = open(os.path.join(logs, f), "rb").read()
    stem = f[:-4]
    if kind not in seen:  # the bounds of every log: on the first log of each kind
        seen.add(kind)
        bounds(stem, b)
    # a layer row of a table cut in the middle (a log cut short, a mangled copy): every table
    lines = b.split(b"\n")
    rows = [i for i, x in enumerate(lines) if re.match(rb"\s*(\[?\S+\]?\s+)?\d+\s+\S+\s+\S+", x) and len(x) > 30]
    if f.startswith(("perf-", "accuracy-board")) and rows:
        i = rows[len(rows) // 2]
        lines[i] = lines[i][: len(lines[i]) // 2] + b" 12x"
        w(stem + ".row", b"\n".join(lines))
        open(os.path.join(out, "..", "cut-lines"), "a").write("%s.row %d\n" % (stem, i + 1))
    # an operator ranking table cut at a line boundary, after its middle row
    lines = b.split(b"\n")
    rank = [i for i, x in enumerate(lines) if re.match(rb"\s*OpType\s+Call ?Number", x)]
    if f.startswith("perf-") and rank:
        rows = [i for i in range(rank[0] + 1, len(lines)) if re.match(rb"\s*[A-Za-z]\S*\s+\d+\s", lines[i])]
        w(stem + ".rank", b"\n".join(lines[: rows[len(rows) // 2] + 1]) + b"\n")
PYEOF
# an operator ranking table cut after a row (an excerpt) is kept with one warning line;
# --strict refuses it (below, with the malformed ones)
for f in "$T"/bad/*.rank; do
    "$RT" import "$f" --db "$T/rank.db" >/dev/null 2>"$T/err"; rc=$?
    [ $rc = 0 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "^rknn-trace: warning: import: .*may be cut" "$T/err" && ok \
        || bad "cut ranking table $(basename "$f"): exit $rc, stderr: $(head -c 300 "$T/err")"
done
for f in "$T"/bad/*; do
    strict=; case "$f" in *.rank) strict=--strict ;; esac
    "$RT" import "$f" $strict --db "$DB" >"$T/out" 2>"$T/err"; rc=$?
    if [ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "^rknn-trace: import: " "$T/err" && [ ! -s "$T/out" ]; then ok
    else bad "malformed $(basename "$f"): exit $rc, stderr: $(head -c 400 "$T/err")"; fi
    # a cut row is named by its own line, not one after it
    cut=$(awk -v n="${f##*/}" '$1 == n { print $2 }' "$T/cut-lines" 2>/dev/null)
    if [ -n "$cut" ]; then grep -q "^rknn-trace: import: $f:$cut: " "$T/err" && ok || bad "${f##*/}: the error does not name line $cut: $(head -c 300 "$T/err")"; fi
done
after=$("$RT" ls --json --db "$DB" | $PY -c "import json,sys; print(len(json.load(sys.stdin)))")
[ "$before" = "$after" ] && ok || bad "malformed logs stored runs: $before -> $after"

[ -n "${STORY_KEEP:-}" ] && echo "surfaces kept in $T"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
