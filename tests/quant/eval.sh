#!/usr/bin/env bash
# tests/quant/eval.sh [BUILD] — `run -q i8 --eval FILE` and `analyze RUN --eval
# FILE`: every layer's and output's error over each sample of an evaluation
# list (min, mean, max, worst sample), stored in the run's extra_json "eval".
# Oracle: one separate run per sample with --dump-golden/--dump-quant (the
# same calibration), the metrics recomputed with numpy from those dumps. A
# sample of another shape and --eval without -q are refused.
source "$(dirname "$0")/harness.sh" "$@"
M=tests/data/models/mnist.onnx
$PY tests/quant/make_calib.py "$T/cal" 1,1,28,28 0,1 12 >/dev/null || bad "calib set"
mkdir -p "$T/ev"
$PY - "$T/ev" <<'PYEOF' || bad "eval set"
import sys
import numpy as np
d = sys.argv[1]
for i in range(5):
    x = np.random.RandomState(100 + i).rand(1, 1, 28, 28).astype(np.float32)
    x[0, 0, 4 + i:20, 6:22] = 1.0 - 0.1 * i   # a stroke: the samples differ in kind
    np.save("%s/e%d.npy" % (d, i), x)
open(d + "/eval.txt", "w").write("# five samples\n" + "".join("e%d.npy\n" % i for i in range(5)))
PYEOF
DB="$T/t.db"
expect_rc 0 "run --eval" "$R" run "$M" -q i8 --dataset "$T/cal/dataset.txt" --eval "$T/ev/eval.txt" \
    --db "$DB" --label ev --no-progress -n 1
cp "$T/out" "$T/run.txt"
grep -q "^eval      5 samples of .*worst sample [1-5] (.*e[0-4].npy): lowest output cos" "$T/out" && ok ||
    bad "headline names the worst sample: $(grep ^eval "$T/out")"
for i in 0 1 2 3 4; do
    expect_rc 0 "oracle run $i" "$R" run "$M" -q i8 --dataset "$T/cal/dataset.txt" \
        -i "Input3=$T/ev/e$i.npy" --dump-golden "$T/g$i" --dump-quant "$T/q$i" --no-db --no-progress -n 1
done
expect_rc 0 "analyze --eval" "$R" analyze ev --eval "$T/ev/eval.txt" --dataset "$T/cal/dataset.txt" \
    --db "$DB" --json --no-progress
cp "$T/out" "$T/an.json"
$PY - "$T" "$DB" <<'PYEOF' && ok || bad "eval metrics vs numpy over the samples"
import json, os, sqlite3, sys
import numpy as np
T, db = sys.argv[1:3]
ev = json.loads(sqlite3.connect(db).execute("SELECT extra_json FROM runs WHERE label='ev'").fetchone()[0])["eval"]
an = json.load(open(T + "/an.json"))["eval"]
def load(d):
    idx = json.load(open(os.path.join(d, "index.json")))
    return {e["name"]: np.load(os.path.join(d, e["file"])).astype(np.float64).ravel() for e in idx}
G = [load("%s/g%d" % (T, i)) for i in range(5)]
Q = [load("%s/q%d" % (T, i)) for i in range(5)]
def metrics(r, x):
    d = r - x
    const = np.ptp(r) == 0 or np.ptp(x) == 0
    cos = np.nan if const else r.dot(x) / (np.linalg.norm(r) * np.linalg.norm(x))
    sq = np.nan if const else (np.inf if not d.any() else 10 * np.log10(r.dot(r) / d.dot(d)))
    return cos, np.linalg.norm(d), sq
def check(st, vals, lower_worse, what):
    v = np.array(vals, dtype=np.float64)
    ok = ~np.isnan(v)
    assert st["n"] == ok.sum(), (what, st["n"], ok.sum())
    if not ok.any():
        return
    f = lambda a: None if a is None else (np.inf if a == "inf" else a)
    for k, want in (("min", v[ok].min()), ("mean", v[ok].mean()), ("max", v[ok].max())):
        got = f(st[k])
        assert (got == want) if np.isinf(want) else abs(got - want) <= 2e-6 * max(1, abs(want)), (what, k, got, want)
    worst = int(np.nanargmin(v) if lower_worse else np.nanargmax(v))
    assert v[st["worst_sample"]] == v[worst], (what, st["worst_sample"], worst)
assert ev["samples"] and len(ev["samples"]) == 5 and ev["samples"][3].endswith("e3.npy")
names = [r["name"] for r in ev["layers"]]
assert len(names) >= 8, names
for doc in (ev, an):
    for row in doc["layers"]:
        n = row["name"]
        m = [metrics(G[i][n], Q[i][n]) for i in range(5)]
        check(row["entire"]["cos"], [a[0] for a in m], True, n + " cos")
        check(row["entire"]["euc"], [a[1] for a in m], False, n + " euc")
        check(row["entire"]["sqnr_db"], [a[2] for a in m], True, n + " sqnr")
    outs = [r["name"] for r in doc["outputs"]]
    assert outs == ["Plus214_Output_0"], outs
    low = [metrics(G[i][outs[0]], Q[i][outs[0]])[0] for i in range(5)]
    assert doc["worst_sample"] == int(np.argmin(low)), (doc["worst_sample"], low)
    assert np.allclose(doc["sample_min_output_cos"], low, rtol=0, atol=2e-6)
PYEOF
# --- every surface of the run summary: the same worst sample and min cos --------------
# (the oracle: numpy's per-sample output cosines from the dumps above)
expect_rc 0 "show ev" "$R" show ev --db "$DB"
cp "$T/out" "$T/show.txt"
expect_rc 0 "show ev --json" "$R" show ev --db "$DB" --json
cp "$T/out" "$T/show.json"
expect_rc 0 "run --eval --json" "$R" run "$M" -q i8 --dataset "$T/cal/dataset.txt" --eval "$T/ev/eval.txt" \
    --no-db --no-progress -n 1 --json
cp "$T/out" "$T/run.json"
for f in md html json; do
    expect_rc 0 "report -f $f" "$R" report ev --db "$DB" -f $f -o "$T/rep.$f"
done
expect_rc 0 "analyze --eval (text)" "$R" analyze ev --eval "$T/ev/eval.txt" --dataset "$T/cal/dataset.txt" \
    --db "$DB" --no-progress
cp "$T/out" "$T/an.txt"
# the TUI's summary view (i) of the run, in a tall window so the eval lines are on it
SOCK=rt-eval-$$
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$T"' EXIT
tmux -L "$SOCK" -f /dev/null new-session -d -s ev -x 160 -y 70 \
    "env LANG=C.UTF-8 TERM=xterm-256color $PWD/$R tui --db $DB ev; sleep 60"
for _ in $(seq 100); do
    tmux -L "$SOCK" capture-pane -p -t ev >"$T/tui.txt"
    grep -q "pred us" "$T/tui.txt" && break
    sleep 0.05
done
tmux -L "$SOCK" send-keys -t ev i
for _ in $(seq 100); do
    tmux -L "$SOCK" capture-pane -p -t ev >"$T/tui.txt"
    grep -q "^ *eval " "$T/tui.txt" && break
    sleep 0.05
done
tmux -L "$SOCK" send-keys -t ev q q
tmux -L "$SOCK" kill-server 2>/dev/null
$PY - "$T" <<'PYEOF' && ok || bad "run, show, analyze, --json, reports and the TUI: one worst sample and min cos, numpy's"
import html, json, os, re, sys
import numpy as np
T = sys.argv[1]
def load(d):
    idx = json.load(open(os.path.join(d, "index.json")))
    return {e["name"]: np.load(os.path.join(d, e["file"])).astype(np.float64).ravel() for e in idx}
out = "Plus214_Output_0"
cos = []
for i in range(5):
    r, x = load("%s/g%d" % (T, i))[out], load("%s/q%d" % (T, i))[out]
    cos.append(r.dot(x) / (np.linalg.norm(r) * np.linalg.norm(x)))
worst, low, mean = int(np.argmin(cos)), min(cos), float(np.mean(cos))
head = "5 samples of %s/ev/eval.txt; worst sample %d (%s/ev/e%d.npy): lowest output cos %.5f" % (
    T, worst + 1, T, worst, low)
line = "output '%s': cos min %.5f (sample %d) mean %.5f," % (out, low, worst + 1, mean)
def eval_lines(text):
    ls = text.splitlines()
    i = next(k for k, l in enumerate(ls) if l.lstrip().startswith("eval "))
    return [l.rstrip() for l in ls[i:i + 2]]
run, show, an = (open(T + f).read() for f in ("/run.txt", "/show.txt", "/an.txt"))
# run prints show's text byte for byte, the eval lines once
assert run.endswith(show) and len(show) > 500, (len(run), len(show))
assert run.count("eval      5 samples") == 1 and an.count("eval      5 samples") == 1, (run, an)
ev = eval_lines(show)
assert ev[0] == "eval      " + head, (ev[0], head)
assert ev[1].startswith("          " + line), (ev[1], line)
assert eval_lines(an) == ev, (eval_lines(an), ev)
tui = [l.strip() for l in open(T + "/tui.txt").read().splitlines()]
i = next(k for k, l in enumerate(tui) if l.startswith("eval "))
assert tui[i:i + 2] == [l.strip() for l in ev], (tui[i:i + 2], ev)
# the run document: show --json, run --json, report -f json
docs = [json.load(open(T + f))["eval"] for f in ("/show.json", "/run.json", "/rep.json")]
for d in docs:
    assert d["samples"] == 5 and d["worst_sample"] == worst, (d, worst)
    assert d["worst_file"].endswith("e%d.npy" % worst) and d["file"].endswith("eval.txt"), d
    assert abs(d["worst_min_output_cos"] - low) <= 2e-6, (d, low)
    o, = d["outputs"]
    assert o["name"] == out and o["cos_worst_sample"] == worst, o
    assert abs(o["cos_min"] - low) <= 2e-6 and abs(o["cos_mean"] - mean) <= 2e-6, (o, low, mean)
    assert o["sqnr_min_db"] <= o["sqnr_mean_db"] and o["euc_max"] > 0, o
assert docs[0] == docs[2] and docs[0]["outputs"] == docs[1]["outputs"], docs
# the reports: the headline sentence and the output's row
md = open(T + "/rep.md").read()
assert "\n" + head.replace("_", "\\_") + ".\n" in md or "\n" + head + ".\n" in md, md[-3000:]
row = [l for l in md.splitlines() if l.startswith("| Plus214") and "%.5f | %d | %.5f |" % (low, worst + 1, mean) in l]
assert len(row) == 1, md[-2000:]
page = html.unescape(re.sub(r"<[^>]+>", " ", open(T + "/rep.html").read()))
assert head in page, head
cells = re.findall(r'<table[^>]*id="eval".*?</table>', open(T + "/rep.html").read(), re.S)
assert len(cells) == 1 and ">%.5f<" % low in cells[0] and ">%d<" % (worst + 1) in cells[0], cells
PYEOF
# errors: a sample of another shape names it; --eval of an fp32 run is a usage error
$PY -c "import numpy as np; np.save('$T/ev/bad.npy', np.zeros((1,1,32,32), np.float32))"
printf 'e0.npy\nbad.npy\n' >"$T/ev/bad.txt"
expect_rc 2 "mismatched eval sample" "$R" run "$M" -q i8 --dataset "$T/cal/dataset.txt" --eval "$T/ev/bad.txt" --no-db --no-progress -n 1
grep -q "sample 2: .*bad.npy: float32 with 1024 values, input 'Input3' needs float32 1x1x28x28" "$T/err" && ok ||
    bad "mismatch message: $(cat "$T/err")"
expect_rc 1 "--eval without -q" "$R" run "$M" --eval "$T/ev/eval.txt" --no-db
finish
