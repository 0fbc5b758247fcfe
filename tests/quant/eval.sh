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
grep -q "^eval: 5 samples of .*worst sample [1-5] (.*e[0-4].npy): lowest output cos" "$T/out" && ok ||
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
# errors: a sample of another shape names it; --eval of an fp32 run is a usage error
$PY -c "import numpy as np; np.save('$T/ev/bad.npy', np.zeros((1,1,32,32), np.float32))"
printf 'e0.npy\nbad.npy\n' >"$T/ev/bad.txt"
expect_rc 2 "mismatched eval sample" "$R" run "$M" -q i8 --dataset "$T/cal/dataset.txt" --eval "$T/ev/bad.txt" --no-db --no-progress -n 1
grep -q "sample 2: .*bad.npy: float32 with 1024 values, input 'Input3' needs float32 1x1x28x28" "$T/err" && ok ||
    bad "mismatch message: $(cat "$T/err")"
expect_rc 1 "--eval without -q" "$R" run "$M" --eval "$T/ev/eval.txt" --no-db
finish
