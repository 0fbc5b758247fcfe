#!/usr/bin/env bash
# tests/quant/analyze.sh [BUILD] — `rknn-trace analyze RUN|DIR --golden DIR` on
# golden folders in the three layouts, made here from a real run's dump:
# by tensor name (onnxruntime style), a board's level-5 names, ours. Each golden
# is a known transformation of the run's values (identity, x2, + noise), and
# every printed metric is re-computed with numpy (1e-6). Bad input: exit 2.
source "$(dirname "$0")/harness.sh" "$@"
"$R" run tests/data/models/mnist.onnx --db "$T/r.db" --label dumped --dump "$T/D" >/dev/null 2>&1 || bad "run"
"$R" run tests/data/models/mnist.onnx --db "$T/r.db" --label nodump >/dev/null 2>&1 || bad "run 2"
$PY - "$T/D" "$T" <<'PYEOF' || bad "fixtures"
import json, os, re, sys
import numpy as np
d, t = sys.argv[1], sys.argv[2]
idx = json.load(open(os.path.join(d, "index.json")))
rng = np.random.default_rng(1)
for sub in ("byname", "level5", "shape"):
    os.makedirs(os.path.join(t, sub))
expect = {}
for i, e in enumerate(idx):
    x = np.load(os.path.join(d, e["file"]))
    # golden: identity for the input, x/2 for the first conv (cos 1, euc |x|/2), noise elsewhere
    if e["layer"] < 0:
        g = x.copy()
    elif i == 1:
        g = x / 2
    else:
        g = (x + rng.normal(0, 0.05, x.shape)).astype(np.float32)
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", e["name"])
    np.save(os.path.join(t, "byname", safe + ".npy"), g)
    dims = "_".join(str(v) for v in g.shape)
    op = "InputOperator" if e["layer"] < 0 else e["op"]
    np.save(os.path.join(t, "level5", "%03d_%s_%s_shape_%s_float.npy" % (e["layer"] + 1, op, e["name"], dims)), g)
    if e["layer"] < 0:  # the board dumps its input again, as uint8, under the next op
        np.save(os.path.join(t, "level5", "001_Conv_%s_shape_%s_uint8.npy" % (e["name"], dims)),
                (g * 255).astype(np.uint8))
    np.save(os.path.join(t, "shape", safe + ".npy"), g if i != 3 else g.reshape(-1)[:-1])
    expect[e["name"]] = (os.path.join(d, e["file"]), g)
np.save(os.path.join(t, "level5", "999_Extra_unrelated_shape_2_float.npy"), np.zeros(2, np.float32))
np.save(os.path.join(t, "expect.npy"), np.array([0]))
json.dump({k: v[0] for k, v in expect.items()}, open(os.path.join(t, "map.json"), "w"))
PYEOF
check_json() { # json, golden dir
    $PY - "$1" "$2" "$T/map.json" <<'PYEOF'
import json, math, os, re, sys
import numpy as np
doc, gdir, mp = json.load(open(sys.argv[1])), sys.argv[2], json.load(open(sys.argv[3]))
files = {}
for f in os.listdir(gdir):
    m = re.match(r"^(\d{3})_([^_]+)_(.*)_shape_[0-9_]*_([a-z0-9]+)\.npy$", f)
    if m and not f.endswith("_uint8.npy"):
        files[m.group(3)] = os.path.join(gdir, f)
    elif not m:
        files[f[:-4]] = os.path.join(gdir, f)
bad = 0
assert doc["matched"] == len(mp) == doc["tensors"], (doc["matched"], len(mp))
for row in doc["layers"]:
    x = np.load(mp[row["name"]]).astype(np.float64).ravel()
    key = row["name"] if row["name"] in files else re.sub(r"[^A-Za-z0-9._-]", "_", row["name"])
    g = np.load(files[key]).astype(np.float64).ravel()
    d = g - x
    want = {"cos": float(g @ x / (np.linalg.norm(g) * np.linalg.norm(x))), "euc": math.sqrt(d @ d),
            "max_abs": float(np.abs(d).max()), "mean_abs": float(np.abs(d).mean())}
    want["sqnr_db"] = 10 * math.log10((g @ g) / (d @ d)) if d @ d > 0 else "inf"
    for k, v in want.items():
        a = row[k]
        okk = (a == v) if isinstance(v, str) else abs(a - v) <= 1e-6 * max(1.0, abs(v))
        if not okk:
            bad += 1
            print("FAIL %s %s: tool %r numpy %r" % (row["name"], k, a, v), file=sys.stderr)
print("%d passed, %d failed" % (5 * len(doc["layers"]) - bad, bad))
sys.exit(1 if bad else 0)
PYEOF
}
sum_line() { local l; l=$(cat); passed=$((passed + $(echo "$l" | awk '{print $1}'))); failed=$((failed + $(echo "$l" | awk '{print $3}'))); }
for layout in byname level5; do
    expect_rc 0 "analyze dir vs $layout" "$R" analyze "$T/D" --golden "$T/$layout" --json
    sum_line < <(check_json "$T/out" "$T/$layout")
done
expect_rc 0 "analyze RUN (its recorded dump folder)" "$R" analyze dumped --golden "$T/level5" --db "$T/r.db" --json
$PY -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['golden_layout']=='rknpu-level5'; r=d['layers']; \
assert r[0]['cos']==1.0 and r[0]['euc']==0.0, r[0]; assert abs(r[1]['cos']-1)<1e-12, r[1]" "$T/out" && ok || bad "level5: float input wins, x/2 gives cos 1"
# the run keeps the result: show and compare read the stored rows (== the JSON printed)
cp "$T/out" "$T/analyzed.json"
expect_rc 0 "show RUN after analyze" "$R" show dumped --db "$T/r.db" --json
$PY - "$T/analyzed.json" "$T/out" <<'PYEOF' && ok || bad "stored rows == analyze JSON"
import json, sys
a, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
rows, acc = [r for r in a["layers"] if r["matched"]], s["accuracy"]["layers"]
assert len(rows) == len(acc) == 12, (len(rows), len(acc))
for r, t in zip(rows, acc):
    assert r["name"] == t["name"], (r["name"], t["name"])
    for k in ("cos", "euc", "max_abs", "mean_abs", "sqnr_db"):
        tv, rv = t["entire"][k], r[k]
        assert tv == rv or abs(tv - rv) <= 1e-12 * max(1, abs(rv)), (r["name"], k, tv, rv)
assert [t["output"] for t in acc].count(True) == 1 and acc[-1]["output"], "graph output marked"
PYEOF
expect_rc 0 "compare RUN RUN after analyze" "$R" compare dumped dumped --db "$T/r.db" --json
$PY -c "import json,sys; d=json.load(open(sys.argv[1])); a=d['runs'][0]; assert a['has_errors'] and a['worst_output'] == 'Plus214_Output_0', a" "$T/out" && ok || bad "compare sees the rows"
"$R" analyze dumped --golden "$T/byname" --db "$T/r.db" >/dev/null 2>&1 || bad "re-analyze"
[ "$(sqlite3 "$T/r.db" "SELECT COUNT(*) || ' ' || COUNT(DISTINCT source) FROM accuracy")" = "12 1" ] && ok || bad "re-analysis replaces the rows"
expect_rc 0 "analyze vs ours" "$R" analyze "$T/D" --golden "$T/D"
grep -q "12 of 12 tensors matched by name" "$T/out" && ok || bad "12 matched"
grep -q "every matched layer keeps cos >= 0.99" "$T/out" && ok || bad "identical dumps: cos 1"
expect_rc 0 "text" "$R" analyze "$T/D" --golden "$T/byname" --cos-threshold 0.999
grep -q "^first layer with cos < 0.999: \[Add\] Plus30_Output_0 " "$T/out" && ok || bad "first below names the first noisy layer: $(grep first "$T/out")"
# bad input: a shape that differs, no common tensor, no dump, unknown run, missing folder
expect_rc 2 "shape mismatch" "$R" analyze "$T/D" --golden "$T/shape"
grep -q "tensor 'ReLU32_Output_0': 6272 values in .*\[1,8,28,28\], 6271 in golden .*\[6271\]$" "$T/err" && ok || bad "shape message: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" = 1 ] && ok || bad "one line"
mkdir -p "$T/empty"
expect_rc 2 "nothing in common" "$R" analyze "$T/D" --golden "$T/empty"
# a missing golden folder says why (stat's error), a file is not a folder
expect_rc 2 "missing golden" "$R" analyze "$T/D" --golden "$T/no-such-dir"
grep -q "no-such-dir: No such file or directory" "$T/err" && ok || bad "missing golden: $(cat "$T/err")"
: >"$T/golden-file"
expect_rc 2 "golden is a file" "$R" analyze "$T/D" --golden "$T/golden-file"
grep -q "golden-file: not a folder" "$T/err" && ok || bad "file as golden: $(cat "$T/err")"
expect_rc 2 "run without dump" "$R" analyze nodump --golden "$T/byname" --db "$T/r.db"
grep -q "recorded without --dump" "$T/err" && ok || bad "no-dump message"
# a vendor file's prediction computed no tensor: the message says what would
expect_rc 0 "predict a vendor file" "$R" run "${RT_SHARED:-../shared}/data/models/rknn/multiple_input_demo.rk3588.rknn" \
    --db "$T/r.db" --label vpred
expect_rc 2 "analyze a prediction" "$R" analyze vpred --golden "$T/byname" --db "$T/r.db"
grep -q "run vpred is a vendor file's prediction: it computed no tensors (run the file with --emulate --dump DIR" "$T/err" &&
    ok || bad "prediction message: $(cat "$T/err")"
expect_rc 2 "unknown run" "$R" analyze nosuch --golden "$T/byname" --db "$T/r.db"
expect_rc 2 "missing golden" "$R" analyze "$T/D" --golden "$T/nosuch"
expect_rc 1 "no golden option" "$R" analyze "$T/D"
printf 'not numpy' >"$T/byname/Input3.npy"
expect_rc 2 "broken npy" "$R" analyze "$T/D" --golden "$T/byname"
finish
