#!/usr/bin/env bash
# tests/compare/surfaces.sh [BUILD] — one comparison on every surface. Three
# runs of the bundled MNIST (fp32, int8) and of a variant of it with a Softmax
# appended (fp16, made by tests/compare/make_variant.py; onnxruntime checks the
# variant is a valid model): the variant's run has layers the first two lack.
# `compare`, `compare --json`, `report -f md|html|json` and the TUI compare view
# (tmux capture) must list the same layers and the same verdict lines
# (tests/compare/check_surfaces.py parses each; the predictions' output Reshapes
# and OutputOperator are rows too). Then the TUI compare view of
# synthetic runs with long, path-like names (tests/tools/report_fixture): each
# name shown by its distinguishing tail, `d cos` against the golden of an fp32
# baseline, the worst regression on top however the column is sorted.
source "$(dirname "$0")/../quant/harness.sh" "$@"
RT=$PWD/$R
M=tests/data/models/mnist.onnx
DB=$T/c.db
SOCK=rt-cmp-$$-0
n_start=0
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$T"' EXIT

# tui DB COLS ROWS KEYS...: the compare view's screen into $T/screen (waits for
# the verdict lines)
tui() {
    local db=$1 cols=$2 rows=$3; shift 3
    tmux -L "$SOCK" kill-server 2>/dev/null
    n_start=$((n_start + 1))
    SOCK=rt-cmp-$$-$n_start   # a fresh server: the last one may still be exiting
    tmux -L "$SOCK" -f /dev/null new-session -d -s s -x "$cols" -y "$rows" \
        "env LANG=C.UTF-8 TERM=xterm-256color $RT tui --db $db; sleep 60"
    for _ in $(seq 100); do
        tmux -L "$SOCK" capture-pane -p -t s | grep -q " runs, " && break; sleep 0.05
    done
    for k in "$@"; do tmux -L "$SOCK" send-keys -t s "$k"; sleep 0.05; done
    for _ in $(seq 100); do
        tmux -L "$SOCK" capture-pane -p -t s >"$T/screen"
        grep -q "^verdict: " "$T/screen" && return 0; sleep 0.05
    done
    cat "$T/screen"; return 1
}

# ---- the three runs -----------------------------------------------------------------
$PY tests/compare/make_variant.py $M "$T/variant.onnx" && ok || bad "make variant"
$PY tests/e2e/make_input.py "$T/in.npy" 1,1,28,28 0,1 camera 0 || bad "input"
node tests/oracle/ort_run.js "$T/variant.onnx" "$T/ort" "Input3=$T/in.npy" 2>"$T/err" && ok || bad "onnxruntime runs the variant: $(cat "$T/err")"
expect_rc 0 "run fp32" "$R" run $M -i "Input3=$T/in.npy" -n 1 --db "$DB" --label f32 --no-progress --dump "$T/d32"
expect_rc 0 "run i8" "$R" run $M -i "Input3=$T/in.npy" -q i8 -n 1 --db "$DB" --label i8 --no-progress --dump "$T/d8"
expect_rc 0 "run variant fp16" "$R" run "$T/variant.onnx" -i "Input3=$T/in.npy" -q fp16 -n 1 --db "$DB" \
    --label v16 --no-progress --dump "$T/d16"
# the variant's output is the softmax of MNIST's logits: ours against onnxruntime's
$PY - "$T" <<'PYEOF' && ok || bad "variant output vs onnxruntime"
import json, os, sys
import numpy as np
T = sys.argv[1]
ort = np.load(os.path.join(T, "ort", json.load(open(os.path.join(T, "ort", "outputs.json")))["Plus214_Output_0_softmax"]))
idx = json.load(open(os.path.join(T, "d16", "index.json")))
f = [e["file"] for e in idx if e["name"] == "Plus214_Output_0_softmax"][0]
ours = np.load(os.path.join(T, "d16", f)).astype(np.float64)
assert ours.shape == ort.shape and np.allclose(ours, ort, atol=2e-3), (ours, ort)
PYEOF

# ---- every surface --------------------------------------------------------------------
expect_rc 0 "compare" "$R" compare f32 i8 v16 --db "$DB"
cp "$T/out" "$T/compare.txt"
expect_rc 0 "compare --json" "$R" compare f32 i8 v16 --db "$DB" --json
cp "$T/out" "$T/compare.json"
for f in md html json; do
    expect_rc 0 "report -f $f" "$R" report f32 i8 v16 --db "$DB" -f $f -o "$T/report.$f"
done
# the runs view lists the newest first: mark f32 (the baseline), i8, then v16
if tui "$DB" 240 60 G Space k Space k k Space c; then ok; else bad "tui compare view"; fi
cp "$T/screen" "$T/tui.txt"
grep -q "A = run #1 f32 (baseline)" "$T/tui.txt" && grep -q "C = run #3 v16" "$T/tui.txt" && ok ||
    bad "tui: A is f32, C is v16"
$PY tests/compare/check_surfaces.py "$T" >"$T/check" 2>&1 && ok || bad "surfaces differ: $(cat "$T/check")"
grep -q "16 layers (3 in some runs only), 2 verdicts alike on 6 surfaces" "$T/check" && ok ||
    bad "the union: $(cat "$T/check")"

# ---- TUI: long names, d cos vs an fp32 golden, worst first ------------------------------
FIX=$B/tests/report_fixture
"$FIX" "$T/f.db" base 30 --no-acc >/dev/null && "$FIX" "$T/f.db" q8 30 >/dev/null &&
    "$FIX" "$T/f.db" q8v 30 --variant >/dev/null && ok || bad "fixture runs"
"$R" compare base q8 q8v --db "$T/f.db" --json >"$T/f.json" || bad "fixture compare --json"
# sorted as it opens (by d cos), then s round every column (11 of them, and
# the natural order) back to d cos
if tui "$T/f.db" 160 60 G Space k Space k k Space c; then ok; else bad "tui fixture compare"; fi
cp "$T/screen" "$T/f0.txt"
keys=(s s s s s s s s s s s s)
tmux -L "$SOCK" send-keys -t s "${keys[@]}"
sleep 0.3
for _ in $(seq 40); do
    tmux -L "$SOCK" capture-pane -p -t s >"$T/f1.txt"
    grep -q "sorted by d cos" "$T/f1.txt" && break; sleep 0.05
done
$PY - "$T" <<'PYEOF' && ok || bad "tui: tails, d cos vs the golden, worst first"
import json, sys
T = sys.argv[1]
c = json.load(open(T + "/f.json"))
names = [l["name"] for l in c["layers"]]
# d cos per row: the worst run's entire cos minus the fp32 baseline's (1: it is the golden)
dcos = {}
for l in c["layers"]:
    v = [r["entire_cos"] - 1.0 for r in l["runs"][1:] if r and r["entire_cos"] is not None]
    if v:
        dcos[l["name"]] = min(v)
worst = min(dcos.values())
for f in ("f0", "f1"):
    lines = open("%s/%s.txt" % (T, f)).read().splitlines()
    h = next(k for k, l in enumerate(lines) if l.split()[:2] == ["op", "tensor"])
    x = lines[h].index("tensor")
    rows = []
    for l in lines[h + 1:]:
        if l.startswith("verdict: ") or not l.strip():
            break
        rows.append(l[x:].split())
    shown = [r[0] for r in rows]
    # a tail: "…" and the name's last characters, one name each, never a common head
    assert all(s.startswith("\u2026") for s in shown), shown[:3]
    full = [[n for n in names if n.endswith(s[1:])] for s in shown]
    assert all(len(m) == 1 for m in full), [s for s, m in zip(shown, full) if len(m) != 1]
    assert len(set(shown)) == len(shown), "two rows look alike"
    # d cos is a number wherever a quantized run has an error row, and as by hand
    for r, m in zip(rows, full):
        if m[0] in dcos:
            assert r[1] == "%+.5f" % dcos[m[0]], (f, m[0], r[1], dcos[m[0]])
    assert rows[0][1] == "%+.5f" % worst, (f, rows[0], worst)
    assert lines[h].split()[2:4] == ["d", "cos\u25bc"] or "cos\u25bc" in lines[h], (f, lines[h])
PYEOF
finish
