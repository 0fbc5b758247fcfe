#!/usr/bin/env bash
# tests/quant/golden_sources.sh [BUILD] — `analyze --golden DIR` reads the
# .npy files of a tensor by its name whatever else DIR holds, on folders built
# here by onnxruntime and numpy: onnxruntime's outputs under file names of its
# own with an index.json object naming them (and a model, a note beside them);
# tensors with path-like names written as nested folders; a Toolkit2
# accuracy_analysis snapshot (golden/npy/ with the float tensors beside
# simulator/npy/ with the quantized ones, error_analysis.txt,
# map_name_to_file.txt): the golden is golden/, never simulator/. Every metric
# is recomputed with numpy from the two files it names.
source "$(dirname "$0")/harness.sh" "$@"
M=tests/data/models/mnist.onnx
DB=$T/r.db
$PY tests/e2e/make_input.py "$T/in.npy" 1,1,28,28 0,1 camera 0 || bad "input"
expect_rc 0 "run fp32" "$R" run $M -i "Input3=$T/in.npy" -n 1 --db "$DB" --label f32 --no-progress --dump "$T/d32"
expect_rc 0 "run i8" "$R" run $M -i "Input3=$T/in.npy" -q i8 -n 1 --db "$DB" --label i8 --no-progress --dump "$T/d8"
node tests/oracle/ort_run.js $M "$T/ort" "Input3=$T/in.npy" 2>"$T/err" && ok || bad "onnxruntime: $(cat "$T/err")"
$PY - "$T" <<'PYEOF' && ok || bad "golden folders"
import json, os, re, shutil, sys
import numpy as np
T = sys.argv[1]
safe = lambda n: re.sub(r"[^A-Za-z0-9._-]", "_", n)
# onnxruntime's folder: its output renamed, named by an index.json object
o = os.path.join(T, "ort")
m = json.load(open(os.path.join(o, "outputs.json")))
for i, (name, f) in enumerate(sorted(m.items())):
    os.rename(os.path.join(o, f), os.path.join(o, "t%d.npy" % i))
    m[name] = "t%d.npy" % i
json.dump(m, open(os.path.join(o, "index.json"), "w"))
shutil.copy("tests/data/models/mnist.onnx", os.path.join(o, "model.onnx"))
open(os.path.join(o, "README.txt"), "w").write("onnxruntime outputs\n")
# path-like names: a dump folder of ours whose tensors are "/net/<name>/out",
# its golden as nested folders net/<name>/out.npy (the run's values + noise)
run, nest = os.path.join(T, "pathrun"), os.path.join(T, "nested")
shutil.copytree(os.path.join(T, "d32"), run)
idx = json.load(open(os.path.join(run, "index.json")))
rng = np.random.default_rng(5)
for e in idx:
    e["name"] = "/net/%s/out" % e["name"]
    d = os.path.join(nest, "net", e["name"].split("/")[2])
    os.makedirs(d)
    x = np.load(os.path.join(run, e["file"]))
    np.save(os.path.join(d, "out.npy"), (x + rng.normal(0, 0.05, x.shape)).astype(np.float32))
    open(os.path.join(d, "notes.txt"), "w").write("not a tensor\n")
json.dump(idx, open(os.path.join(run, "index.json"), "w"))
json.dump({"producer": "numpy"}, open(os.path.join(nest, "meta.json"), "w"))
# a Toolkit2 snapshot: golden/npy (fp32) beside simulator/npy (the int8 run)
for sub, src in (("golden", "d32"), ("simulator", "d8")):
    for e in json.load(open(os.path.join(T, src, "index.json"))):
        for snap, leaf in (("snapshot", "npy"), ("snapshot_flat", "")):
            d = os.path.join(T, snap, sub, leaf)
            os.makedirs(d, exist_ok=True)
            shutil.copy(os.path.join(T, src, e["file"]), os.path.join(d, safe(e["name"]) + ".npy"))
for snap in ("snapshot", "snapshot_flat"):
    open(os.path.join(T, snap, "error_analysis.txt"), "w").write("layer_name  simulator_error\n")
    open(os.path.join(T, snap, "map_name_to_file.txt"), "w").write("Input3 Input3.npy\n")
shutil.rmtree(os.path.join(T, "snapshot_flat", "simulator"))
PYEOF
# check DOC RUN_DIR GOLDEN_FILE_OF_NAME(py expr of n) LAYOUT MATCHED: every row against numpy
check() {
    $PY - "$@" <<'PYEOF'
import json, math, os, re, sys
import numpy as np
doc, rundir, gfile, layout, matched = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
d = json.load(open(doc))
assert d["golden_layout"] == layout, d["golden_layout"]
assert d["matched"] == matched, (d["matched"], matched)
files = {e["name"]: e["file"] for e in json.load(open(os.path.join(rundir, "index.json")))}
safe = lambda n: re.sub(r"[^A-Za-z0-9._-]", "_", n)
n_cmp = 0
for r in d["layers"]:
    if not r["matched"]:
        continue
    x = np.load(os.path.join(rundir, files[r["name"]])).astype(np.float64).ravel()
    g = np.load(eval(gfile, {"n": r["name"], "safe": safe, "os": os, "json": json})).astype(np.float64).ravel()
    cos = float(g @ x / (np.linalg.norm(g) * np.linalg.norm(x)))
    mx = float(np.abs(g - x).max())
    assert abs(r["cos"] - cos) <= 1e-6 and abs(r["max_abs"] - mx) <= 1e-6 * max(1, mx), (r["name"], r["cos"], cos)
    n_cmp += 1
assert n_cmp == matched
print("%d rows as numpy" % n_cmp)
PYEOF
}
expect_rc 0 "onnxruntime folder" "$R" analyze f32 --db "$DB" --golden "$T/ort" --json
check "$T/out" "$T/d32" "os.path.join('$T/ort', json.load(open('$T/ort/index.json'))[n])" by-name 1 >"$T/c" 2>&1 &&
    ok || bad "onnxruntime folder: $(cat "$T/c")"
$PY -c "import json,sys; r=[l for l in json.load(open(sys.argv[1]))['layers'] if l['matched']]; \
assert [l['name'] for l in r]==['Plus214_Output_0'] and r[0]['cos']>0.99999, r" "$T/out" && ok ||
    bad "fp32 vs onnxruntime: the output, cos 1"
expect_rc 0 "nested folders" "$R" analyze "$T/pathrun" --golden "$T/nested" --json
n=$($PY -c "import json; print(len(json.load(open('$T/pathrun/index.json'))))")
check "$T/out" "$T/pathrun" "'$T/nested' + n + '.npy'" by-name "$n" >"$T/c" 2>&1 && ok || bad "nested: $(cat "$T/c")"
for snap in snapshot snapshot_flat; do
    expect_rc 0 "toolkit2 $snap" "$R" analyze i8 --db "$DB" --golden "$T/$snap" --json
    sub=$([ $snap = snapshot ] && echo golden/npy || echo golden)
    check "$T/out" "$T/d8" "'$T/$snap/$sub/' + safe(n) + '.npy'" toolkit2-snapshot "$n" >"$T/c" 2>&1 &&
        ok || bad "$snap: $(cat "$T/c")"
    # the int8 run against the float golden, not against its own values in simulator/
    $PY -c "import json,sys; c=[l['cos'] for l in json.load(open(sys.argv[1]))['layers'] if l['layer']>=0]; \
assert c and max(c)<1 and min(c)>0.99, c" "$T/out" && ok || bad "$snap: the golden is golden/"
done
finish
