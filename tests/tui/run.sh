#!/usr/bin/env bash
# tests/tui/run.sh [BUILD] — `rknn-trace tui` driven under tmux (a private
# server): keys in with send-keys, screens out with capture-pane, checked
# against what `ls --json`, `show`, `show --json` and `compare` say about the
# same database (the oracle), built here from simulated runs (mnist i8 as a
# quantization pair, channel vs layer; ppocr's classifier on rk3566 whose
# Softmax falls back to the CPU), a real board table imported from a log, and
# synthetic runs with load samples (tests/tools/tui_fixture.c); a vendor file's
# prediction, whose Input/OutputOperator run on the CPU and are no fallback.
source "$(dirname "$0")/../quant/harness.sh" "$@"
RT=$PWD/$R
SOCK=rt-tui-$$-0
S=tui
n_start=0
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$T"' EXIT
DB=$T/tui.db
LOGS=${RT_SHARED:-../shared}/data/logs
M=tests/data/models

# ---- the fixture database ---------------------------------------------------------
expect_rc 0 "run mnist i8" "$R" run $M/mnist.onnx -q i8 -n 1 --db "$DB" --label mnist-i8 --no-progress \
    --write-quant-cfg "$T/mnist-i8.cfg"
expect_rc 0 "run mnist i8 layer" "$R" run $M/mnist.onnx -q i8 --quant-method layer -n 1 --db "$DB" \
    --label mnist-i8-layer --no-progress
expect_rc 0 "run cls rk3566" "$R" run $M/ppocr_mobile_v2.0_cls.onnx --shape x=1,3,48,192 -t rk3566 -n 1 \
    --db "$DB" --label cls-rk3566 --no-progress
expect_rc 0 "import board table" "$R" import --db "$DB" "$LOGS/perf-rows-2x-int8-cpu-gather-yolo-rk3588-yolov10-115-08.txt"
expect_rc 0 "fixture runs" "$B/tests/tui_fixture" "$DB" 2 40
expect_rc 0 "ls --json" "$R" ls --db "$DB" --json
cp "$T/out" "$T/ls.json"
for r in mnist-i8 cls-rk3566; do
    "$R" show "$r" --db "$DB" --json >"$T/$r.json"
    "$R" show "$r" --db "$DB" >"$T/$r.txt"
done
"$R" show 4 --db "$DB" --json >"$T/board.json"
"$R" compare mnist-i8 mnist-i8-layer --db "$DB" --json >"$T/cmp.json"
"$R" compare mnist-i8 mnist-i8-layer --db "$DB" >"$T/cmp.txt"

# ---- helpers ----------------------------------------------------------------------
# start [ENV=V ...] -- ARGS: the TUI in a 100x30 window; the shell says how it ended
start() {
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    tmux -L "$SOCK" kill-server 2>/dev/null
    n_start=$((n_start + 1))
    SOCK=rt-tui-$$-$n_start   # a fresh server: the last one may still be exiting
    tmux -L "$SOCK" -f /dev/null new-session -d -s $S -x 100 -y 30 \
        "env LANG=C.UTF-8 TERM=xterm-256color ${envs[*]} $RT tui --db $DB $*; echo \"EXITED \$?\"; sleep 60"
}
screen() { tmux -L "$SOCK" capture-pane -p -t $S "$@"; }
keys() { tmux -L "$SOCK" send-keys -t $S "$@"; }
# wait_for TEXT: polls the screen (5 s at most); the screen is in $T/screen
wait_for() {
    for _ in $(seq 100); do
        screen >"$T/screen"
        grep -qF -- "$1" "$T/screen" && return 0
        sleep 0.05
    done
    echo "--- screen while waiting for '$1':"; cat "$T/screen"
    return 1
}
check() { # description, TEXT: the screen shows TEXT
    if wait_for "$2"; then ok; else bad "$1: no '$2' on the screen"; fi
}
py() { $PY - "$T" "$@"; }
# pycheck DESCRIPTION <<'PYEOF': a Python check of $T/screen, retried on a fresh
# capture while the screen settles (1 s at most)
pycheck() {
    local what=$1 code
    code=$(cat)
    for _ in $(seq 20); do
        screen >"$T/screen"
        if printf '%s\n' "$code" | $PY - "$T" >"$T/py.out" 2>&1; then ok; return; fi
        sleep 0.05
    done
    cat "$T/py.out"; bad "$what"
}
# gone TEXT: the screen stops showing TEXT (1 s at most)
gone() {
    for _ in $(seq 20); do
        screen >"$T/screen"
        grep -qF -- "$1" "$T/screen" || return 0
        sleep 0.05
    done
    return 1
}

# ---- runs view ---------------------------------------------------------------------
start --
check "runs header" "out cos"
check "runs count" "6 runs, 6 shown, 0 marked"
pycheck "runs: newest first, out cos of mnist-i8 as ls --json" <<'PYEOF'
import json, sys
t = sys.argv[1]
ls = json.load(open(t + "/ls.json"))
rows = [l for l in open(t + "/screen").read().splitlines()[3:] if l.strip()]
ids = [int(l.split()[0]) for l in rows if l.split()[0].isdigit()]
assert ids == sorted((r["id"] for r in ls), reverse=True), ids
i8 = next(r for r in ls if r["label"] == "mnist-i8")
line = next(l for l in rows if " mnist-i8 " in l)
assert "%.5f" % i8["output_cos"] in line, (line, i8["output_cos"])
assert "%.3f" % (i8["npu_us"] / 1e3) in line, line
PYEOF
# search
keys / c l s Enter
check "search" "1 shown"
check "search keeps cls" "cls-rk3566"
keys F
check "filters cleared" "6 shown"
# filter by platform, then by backend
keys f C-u "platform=rk3566" Enter
check "filter platform" "platform=rk3566"
screen >"$T/screen"
if grep -q "mnist-i8" "$T/screen" || ! grep -q "cls-rk3566" "$T/screen" || ! grep -q " fx0 " "$T/screen"; then
    bad "filter platform=rk3566 keeps cls-rk3566 and fx0 (rk3566) only"; else ok; fi
keys f C-u "tag=odd" Enter
check "filter tag" "1 shown"
check "filter tag: fx1" " fx1 "
keys f C-u "model=fixture_*" Enter
check "filter model glob" "2 shown"
keys f C-u "quant=i8/normal/layer" Enter
check "filter quant" "1 shown"
check "filter quant: the layer run" "mnist-i8-lay"
keys f C-u "backend=board" Enter
check "filter backend" "1 shown"
check "filter backend: the imported run" "board"
# a run without a model: the model column names the log it came from
check "the imported run's model column: its log" "perf-rows-2x-"
keys F
# sort: s cycles the columns; the first press sorts by id, numbers largest first
keys s
check "sort by id" "id▼"
keys S
check "sort reversed" "id▲"
pycheck "sort by id ascending" <<'PYEOF'
import sys
rows = [l for l in open(sys.argv[1] + "/screen").read().splitlines()[3:] if l.strip() and l.split()[0].isdigit()]
ids = [int(l.split()[0]) for l in rows]
assert ids == sorted(ids) and len(ids) == 6, ids
PYEOF
keys s s s s s s s s s s s s s s
check "natural order again" "sorted by natural order"
# help overlay
keys '?'
check "help overlay" "keys of the runs view"
check "help lists delete" "delete the run (asks to confirm)"
check "help lists global keys" "back to the previous view"
check "help lists the table keys" "sort by the next column"
keys x
if gone "keys of the runs view"; then ok; else bad "help closes on any key"; fi

# ---- layers view of the CPU-fallback run --------------------------------------------
keys / c l s Enter
check "search cls" "1 shown"
keys Enter
check "layers header" "pred us"
check "layers title" "run #3 cls-rk3566"
keys C
check "CPU only" "[CPU fallbacks only]"
reason=$(py <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1] + "/cls-rk3566.json"))
cpu = [l for l in d["layers"] if l["target"] == "CPU" and l["cpu_reason"]]
print(cpu[0]["op"] + "|" + cpu[0]["cpu_reason"])
PYEOF
)
check "CPU row's reason in the info line" "CPU fallback [${reason%%|*}]"
check "CPU reason as show --json has it" "${reason#*|}"
screen -e >"$T/screen.e"
# the CPU row is highlighted: black on yellow (SGR 30;43 or 43 then 30)
if grep -a "${reason%%|*}" "$T/screen.e" | grep -aq $'\e\[[0-9;]*43m'; then ok; else
    bad "CPU row not highlighted: $(grep -a "${reason%%|*}" "$T/screen.e" | head -2 | cat -v)"; fi
keys Enter
check "CPU layer detail" "CPU fallback reason"
check "CPU layer detail: its reason" "${reason#*|}"
check "CPU layer detail: its cost" "% of the frame"
keys G
pycheck "CPU layer detail of an fp32 run: no quantization (—), statistics as show --json" <<'PYEOF'
import json, sys
t = sys.argv[1]
scr = open(t + "/screen").read().splitlines()
def field(k):
    return next(x for x in scr if x.startswith("  " + k + " "))[24:].strip()
assert field("output qtype") == field("output scale") == field("output zero point") == "—", scr
d = json.load(open(t + "/cls-rk3566.json"))
cpu = [l for l in d["layers"] if l["target"] == "CPU" and l["cpu_reason"]][0]
assert float(field("mean")) == cpu["out_mean"] and float(field("std")) == cpu["out_std"], (field("mean"), cpu)
PYEOF
keys q
check "back from the detail" "[CPU fallbacks only]"
keys C
check "CPU filter off" "180 of 180 rows"
# summary view: the text show prints
keys i
check "summary view" "runs › layers › summary"
pycheck "summary view shows show's text" <<'PYEOF'
import sys
t = sys.argv[1]
show = [l.rstrip() for l in open(t + "/cls-rk3566.txt").read().splitlines()]
scr = [l.rstrip() for l in open(t + "/screen").read().splitlines()[1:12]]
assert scr[:8] == [l[:100].rstrip() for l in show[:8]], (scr[:8], show[:8])
PYEOF
keys q
check "back to layers" "pred us"
keys Escape
check "Esc back to runs" "6 runs"
keys F

# ---- the imported board table: its CPU rows as the log printed them ---------------
keys f C-u "backend=board" Enter
check "board run" "1 shown"
keys Enter
check "board layers: measured times" "board us"
keys C
check "board: CPU only" "[CPU fallbacks only]"
pycheck "board table: CPU rows with the log's times" <<'PYEOF'
import json, subprocess, sys
t = sys.argv[1]
scr = open(t + "/screen").read().splitlines()
rows = [r for r in scr[4:] if r[:4].strip().lstrip("-").isdigit()]
d = json.load(open(t + "/board.json"))
cpu = [l for l in d["layers"] if l["target"] == "CPU"]
assert len(rows) == min(len(cpu), 30) and cpu, (len(rows), len(cpu))
for l, r in zip(cpu, rows):
    f = r.split()  # #, the log's ID (a board table's rows keep it), op, target
    assert f[0] == str(l["index"]) and f[1] == str(l["table_id"]) and f[2] == l["op"] and f[3] == "CPU", (f, l)
    assert ("%.1f" % l["time_us"] if l["time_us"] >= 100 else "%.2f" % l["time_us"]) in f, (f, l["time_us"])
PYEOF
check "board CPU row without a reason says so" "no reason recorded"
keys q F

# ---- a known layer row and its detail: mnist-i8 ------------------------------------
keys / m n i s t Enter f C-u "quant=i8/normal/channel" Enter
check "search mnist-i8" "1 shown"
keys Enter
check "mnist layers" "run #1 mnist-i8"
pycheck "mnist-i8: the first layer with NPU figures as show --json" <<'PYEOF'
import json, sys
t = sys.argv[1]
d = json.load(open(t + "/mnist-i8.json"))
l0 = next(l for l in d["layers"] if l["npu_cycles"] is not None)
rows = open(t + "/screen").read().splitlines()
line = next(r for r in rows if r.split()[:3] == [str(l0["index"]), str(l0["table_id"]), l0["op"]])
f = line.split()  # #, the level-4 table's ID (as show --json's table_id), op, target
assert f[3] == l0["target"], f
pred = l0["frame_us"] if l0["frame_us"] is not None else l0["time_us"]
assert ("%.2f" % pred) in f, (pred, f)
assert ("%d" % l0["npu_cycles"]) in f and ("%d" % l0["ddr_cycles"]) in f, f
PYEOF
keys Right Right Right Right Right Right Right Right Right Right Right
check "scrolled to the error columns" "e.cos"
pycheck "mnist-i8 first layer entire cos as show --json" <<'PYEOF'
import json, sys
t = sys.argv[1]
d = json.load(open(t + "/mnist-i8.json"))
l0 = d["layers"][0]
a = next(a for a in d["accuracy"]["layers"] if a["name"] == l0["name"])
rows = open(t + "/screen").read().splitlines()
line = next(r for r in rows if r.split()[0] == str(l0["index"]) and r.split()[2] == l0["op"])
assert "%.5f" % a["entire"]["cos"] in line or "%.6f" % a["entire"]["cos"] in line, (line, a["entire"]["cos"])
PYEOF
name=$(py <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1] + "/mnist-i8.json"))
print(next(l for l in d["layers"] if l["npu_cycles"] is not None)["name"])
PYEOF
)
keys / "$name" Enter
check "search the layer" "1 of 12 rows"
keys Enter
check "detail view" "error curve"
check "detail: NPU cycles" "NPU cycles"
pycheck "detail fields as show --json" <<'PYEOF'
import json, sys
t = sys.argv[1]
d = json.load(open(t + "/mnist-i8.json"))
l = next(l for l in d["layers"] if l["npu_cycles"] is not None)
scr = open(t + "/screen").read()
def field(k):
    line = next(x for x in scr.splitlines() if x.strip().startswith(k))
    return line[len("  ") + 22:].strip()
assert field("NPU cycles") == str(l["npu_cycles"]), field("NPU cycles")
assert field("output shapes") == str(l["out_shapes"]).replace(" ", ""), field("output shapes")
assert field("node") == l["node"], field("node")
PYEOF
keys G
pycheck "detail: output quantization as the --write-quant-cfg file, statistics as show --json" <<'PYEOF'
import json, sys
t = sys.argv[1]
d = json.load(open(t + "/mnist-i8.json"))
l = next(l for l in d["layers"] if l["npu_cycles"] is not None)
scr = open(t + "/screen").read().splitlines()
def field(k):
    return next(x for x in scr if x.startswith("  " + k + " "))[24:].strip()
cfg = open(t + "/mnist-i8.cfg").read().split("\n    " + l["name"] + ":\n")[1].split("\n")
val = lambda k: cfg[cfg.index("        " + k + ":") + 1].strip()[2:]
assert field("output qtype") == l["out_qtype"] == "asymmetric_quantized-8", field("output qtype")
assert field("output scale") == val("scale") and field("output zero point") == val("zero_point"), \
    (field("output scale"), val("scale"), field("output zero point"), val("zero_point"))
for k in ("min", "max", "mean", "std"):
    assert float(field(k)) == l["out_" + k], (k, field(k), l["out_" + k])
PYEOF
keys q q

# ---- compare: the quantization pair ------------------------------------------------
keys F / m n i s t Enter
check "two mnist runs" "2 shown"
keys G Space g Space c
check "compare view" "A = run #1 mnist-i8 (baseline)"
verdict=$(grep "^verdict: B " "$T/cmp.txt")
check "compare verdict as compare prints it (as far as 100 columns show)" "${verdict:0:99}"
pycheck "compare: largest cos regression first, delta as compare --json" <<'PYEOF'
import json, sys
t = sys.argv[1]
c = json.load(open(t + "/cmp.json"))
d = []
for l in c["layers"]:
    a, b = l["runs"]
    if a and b and a["entire_cos"] is not None and b["entire_cos"] is not None:
        d.append((b["entire_cos"] - a["entire_cos"], l["name"]))
d.sort()
worst = d[0]
rows = open(t + "/screen").read().splitlines()
hdr = next(i for i, r in enumerate(rows) if r.split()[:3] == ["op", "tensor", "d"])
first = rows[hdr + 1]
assert worst[1][:20] in first, (worst, first)
assert "%+.5f" % worst[0] in first, (worst, first)
PYEOF
# on a wider screen the last column, a number, keeps its 8 cells beside its
# neighbour, not pushed to the right edge
tmux -L "$SOCK" resize-window -t $S -x 160
pycheck "compare: the last column beside its neighbour on a wide screen" <<'PYEOF'
import sys
rows = open(sys.argv[1] + "/screen").read().splitlines()
h = next(r for r in rows if r.split()[:3] == ["op", "tensor", "d"])
first = rows[rows.index(h) + 1]
assert h.rstrip().endswith("us B") and h.index("us B") + 4 - (h.index("cos B") + 5) == 9, h
assert len(first.rstrip()) == len(h.rstrip()) < 150, (first, h)
PYEOF
# each run's legend says where its layer times come from, in compare's words
words=$(sed -n 's/^layer times: //p' "$T/cmp.txt")
check "compare: the runs' layer times named as compare names them" "; layer times $words"
tmux -L "$SOCK" resize-window -t $S -x 100
keys q

# ---- load view ----------------------------------------------------------------------
keys F / f x 1 Enter
check "fixture run" "1 shown"
keys l
check "load view" "NPU load of run"
check "core 0 mean" "mean  80%"
check "core 1 mean" "mean  20%"
keys q

# ---- the error start: the fixture's error starts at layer LAYERS/2 = 20 -----------
keys Enter
check "fixture layers" "error starts at t20"
keys e
check "e jumps" "the error starts here"
check "e: cursor on t20" "[Conv] t20"
# filters: DDR-bound only (every 3rd non-CPU layer of the fixture), cos below 0.99
keys D
check "DDR only" "[DDR-bound only]"
pycheck "DDR-bound filter keeps the fixture's DDR layers" <<'PYEOF'
import sys
scr = open(sys.argv[1] + "/screen").read()
n = int(scr.split(" of 40 rows")[0].split()[-1])
want = len([i for i in range(40) if i % 5 != 4 and i % 3 == 0])
assert n == want, (n, want)
PYEOF
keys D '<' Enter
check "cos below" "20 of 40 rows"
keys '<'
# mouse: a wheel turn down moves the cursor 3 rows, a click on the header sorts
keys g
keys -l $'\e[<65;10;10M'
check "wheel moves the cursor" "[Conv] t3"
keys -l $'\e[<0;2;4M' && keys -l $'\e[<0;2;4m'
check "header click sorts" "#▼"
keys q

# ---- resize ---------------------------------------------------------------------------
tmux -L "$SOCK" resize-window -t $S -x 80 -y 24
check "resize 80x24: redrawn" "6 runs"
pycheck "after resize the screen is 80x24 with the status line last" <<'PYEOF'
import sys
rows = open(sys.argv[1] + "/screen").read().split("\n")
rows = [r for r in rows]
assert max(len(r) for r in rows) <= 80
assert len([r for r in rows if r.strip()]) <= 24
assert rows[23].startswith("? help"), rows[23]
PYEOF
tmux -L "$SOCK" resize-window -t $S -x 140 -y 40
check "resize 140x40: more columns" "SQNR"

# ---- relabel and delete, each confirmed --------------------------------------------
keys F / f x 0 Enter
check "fx0" "1 shown"
keys d n
check "delete declined" "nothing deleted"
n_before=$(sqlite3 "$DB" "select count(*) from runs")
keys L C-u "renamed" Enter y
check "relabelled" "is now renamed"
if [ "$(sqlite3 "$DB" "select label from runs where label='renamed'")" = renamed ]; then ok; else bad "label in the database"; fi
keys F / r e n a m e d Enter d y
check "deleted" "deleted run"
n_after=$(sqlite3 "$DB" "select count(*) from runs")
if [ "$n_after" = $((n_before - 1)) ]; then ok; else bad "delete: $n_before -> $n_after runs"; fi
keys F q
check "q quits from the runs view" "EXITED 0"

# ---- monochrome, 8 colours, ASCII ----------------------------------------------------
start NO_COLOR=1 -- cls-rk3566
check "opens RUN directly" "run #3 cls-rk3566"
keys C
check "mono CPU row" "[CPU fallbacks only]"
screen -e >"$T/screen.e"
if grep -a "Softmax" "$T/screen.e" | grep -aq $'\e\[[0-9;]*3[0-7]m\|\e\[[0-9;]*4[0-7]m'; then
    bad "NO_COLOR: colours on the screen"; else ok; fi
if grep -a "Softmax" "$T/screen.e" | grep -aq $'\e\[[0-9;]*[14]m\|\e\[[0-9;]*4;'; then ok; else
    bad "NO_COLOR: the CPU row is not bold/underlined"; fi
start TERM=xterm -- cls-rk3566
check "8 colours" "pred us"
screen -e >"$T/screen.e"
if grep -aq $'\e\[[0-9;]*4[0-7]m' "$T/screen.e"; then ok; else bad "8 colours: no colour"; fi
start LANG=C LC_ALL=C -- mnist-i8
check "ASCII" "pred us"
if grep -q "█\|▏\|▼\|›" "$T/screen"; then bad "ASCII fallback: UTF-8 blocks on a C locale"; else ok; fi
if grep -q "#" <(screen | sed -n '5,20p' | cut -c60-69); then ok; else bad "ASCII bar"; fi

# ---- errors: no terminal, missing and foreign databases, unknown run -----------------
"$R" tui --db "$DB" >"$T/out" 2>"$T/err" </dev/null
rc=$?
if [ $rc = 1 ] && grep -q "needs a terminal" "$T/err" && [ ! -s "$T/out" ]; then ok; else
    bad "no terminal: exit $rc, $(cat "$T/err")"; fi
DB0=$DB
DB=$T/missing.db; start --
check "missing database: one line" "no database '$T/missing.db'"
check "missing database: exit 2" "EXITED 2"
sqlite3 "$T/foreign.db" "create table t(a); insert into t values (1);"
DB=$T/foreign.db; start --
check "foreign database: exit 2" "EXITED 2"
if grep -q "rknn-trace tui " "$T/screen" || [ "$(grep -c . "$T/screen")" -gt 3 ]; then
    bad "foreign database: garbled screen: $(cat "$T/screen")"; else ok; fi
DB=$DB0; start TERM=dumb --
check "TERM=dumb: one line" "cannot place the cursor"
check "TERM=dumb: exit 1" "EXITED 1"
start -- no-such-run
check "unknown run" "no run 'no-such-run'"

# ---- key log --------------------------------------------------------------------------
start RKNN_TRACE_TUI_KEYLOG=$T/keys.log --
check "keylog run" "runs"
keys j j k q
check "keylog quit" "EXITED 0"
if grep -q "^open [0-9.]* list [0-9.]* cpu [0-9.]*$" "$T/keys.log" && [ "$(grep -c '^key ' "$T/keys.log")" = 3 ]; then ok; else
    bad "key log: $(cat "$T/keys.log")"; fi
# ---- read-only: browsing leaves the database file as it was -------------------------
sum0=$(sha256sum "$DB" | cut -d' ' -f1)
start --
check "browse" "runs"
keys Enter
check "browse layers" "pred us"
keys i
check "browse summary" "summary"
keys q q / m n i s t Enter Space j Space c
check "browse compare" "A = run"
keys Q
check "Q quits from any view" "EXITED 0"
if [ "$(sha256sum "$DB" | cut -d' ' -f1)" = "$sum0" ] && ! ls "$DB"-* >/dev/null 2>&1; then ok; else
    bad "browsing changed the database or left a journal"; fi

# ---- compare of more runs than the view takes: the first 8 marked ------------------
"$B/tests/tui_fixture" "$T/many.db" 9 5 || bad "many.db"
DB=$T/many.db; start --
check "nine runs" "9 runs"
keys Space Space Space Space Space Space Space Space Space c
check "compare of 8" "H = run #2 fx1"
check "compare says which" "comparing the first 8 marked runs"
keys Q
DB=$DB0

# ---- measured times say where they came from: a board's and this PC's apart ------------
PDB=$T/prov.db
for l in ps pl; do
    "$R" run $M/mnist.onnx --backend sim -n 2 --no-progress --db "$PDB" --label $l >/dev/null 2>&1 || bad "sim run $l"
done
RKNN_TRACE_SYSFS=$T/sysfs "$R" run $M/mnist.onnx --backend board --runtime "$B/librknnrt.so" -t rk3588 -n 2 \
    --label pb --db "$PDB" >/dev/null 2>&1 || bad "board run"
sqlite3 "$PDB" "update runs set backend='simlib' where label='pl'"
"$R" ls --db "$PDB" --json >"$T/prov.json"
DB=$PDB; start --
check "prov runs" "3 runs"
pycheck "runs: meas ms and its provenance tag as ls --json" <<'PYEOF'
import json, sys
t = sys.argv[1]
ls = {r["label"]: r for r in json.load(open(t + "/prov.json"))}
lines = open(t + "/screen").read().splitlines()
head = next(l for l in lines if "meas ms" in l)
assert "meas ms" in head and "from" in head and head.index("from") > head.index("meas ms"), head
for lab, tag in (("ps", "host"), ("pl", "simlib"), ("pb", "board")):
    r = ls[lab]
    assert r["provenance"]["timing"] == tag, r["provenance"]
    us = r["board_us"] if tag == "board" else r["host_median_us"]
    line = next(l for l in lines if (" %s " % lab) in l)
    cells = line[head.index("meas ms") - 1:].split()
    assert cells[:2] == ["%.3f" % (us / 1e3), tag], (line, cells)
PYEOF
keys Q
DB=$DB0

# ---- a vendor file's Input/OutputOperator run on the CPU by design: no fallback ------------
VDB=$T/vendor.db
"$R" run "${RT_SHARED:-../shared}/data/models/rknn/multiple_input_demo.rk3566.rknn" --db "$VDB" >/dev/null 2>&1 ||
    bad "run the rk3566 file"
"$R" show 1 --db "$VDB" --json >"$T/vendor.json"
DB=$VDB; start -- 1
check "vendor file layers" "InputOperator"
pycheck "vendor file: an InputOperator on the CPU, none of show's fallbacks" <<'PYEOF'
import json, sys
t = sys.argv[1]
d = json.load(open(t + "/vendor.json"))
assert d["npu"]["fallback"]["count"] == 0, d["npu"]["fallback"]
io = [l for l in d["layers"] if l["op"] == "InputOperator" and l["target"] == "CPU"]
assert io, d["layers"]
info = open(t + "/screen").read().splitlines()[-2]
assert info.startswith(" [InputOperator] "), info
PYEOF
keys C
check "vendor file: the CPU filter finds no fallback, as show" "no CPU-fallback layer in this run"
keys Q
DB=$DB0

# ---- usage errors ------------------------------------------------------------------------
expect_rc 1 "unknown option" "$R" tui --dbb x
grep -q "did you mean '--db'" "$T/err" && ok || bad "unknown option: $(cat "$T/err")"
expect_rc 1 "two runs" "$R" tui a b
expect_rc 0 "help" "$R" tui --help
grep -q "RKNN_TRACE_TUI_KEYLOG" "$T/out" && ok || bad "help names the key log"
finish
