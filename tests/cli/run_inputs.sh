# tests/cli/run_inputs.sh — sourced by tests/cli/run.sh (uses its expect/ok/bad,
# $RT, $T, $PY, $MNIST): bad input data, images, mean/std, build's output,
# suggestions, colour and version.

$PY tests/cli/make_models.py "$T" || bad "make_models.py"

# A model whose weights are in an external data file (onnx's
# save_as_external_data, as exporters write models near 2 GB): read from the
# model's folder, the same outputs as the model saved whole, from any working
# folder; build's container holds it whole (it runs with the data file gone).
# A location that leaves the folder (relative, absolute, through a symbolic
# link), a missing or a short data file: one line, in run and in build.
# (mnist, its weights made raw data first: onnx moves only raw data out)
$PY -c "
import onnx
from onnx import numpy_helper
m = onnx.load('$MNIST')
for t in m.graph.initializer:
    t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t), t.name))
onnx.save_model(m, '$T/ext2.onnx', save_as_external_data=True, location='ext2.onnx.data', size_threshold=0)
onnx.save(onnx.load('$T/ext2.onnx'), '$T/ext2_whole.onnx')
" || bad "writing an external-data model"
expect 0 "" -- "$RT" run "$T/ext2.onnx" --no-db -n 1 --seed 3 --dump "$T/ext_d"
expect 0 "" -- "$RT" run "$T/ext2_whole.onnx" --no-db -n 1 --seed 3 --dump "$T/whole_d"
RTA=$(realpath "$RT")
(cd "$(dirname "$T")" && "$RTA" run "$(basename "$T")/ext2.onnx" --no-db -n 1 --seed 3 \
    --dump "$T/ext_rel" >/dev/null 2>"$T/err") || bad "external data by a relative path: $(cat "$T/err")"
$PY - "$T" <<'PYEOF' && ok || bad "external data: other outputs than the model saved whole"
import json, sys, numpy as np
t = sys.argv[1]
def dumps(d):
    return {e['name']: np.load(f"{d}/{e['file']}") for e in json.load(open(f"{d}/index.json"))}
w = dumps(f"{t}/whole_d")
for d in ('ext_d', 'ext_rel'):
    e = dumps(f"{t}/{d}")
    assert e.keys() == w.keys() and len(w) > 10, (d, len(e), len(w))
    for k in w:
        assert np.array_equal(e[k], w[k]), (d, k)
PYEOF
mkdir -p "$T/extb"
expect 0 "" -- "$RT" build "$T/ext2.onnx" -q fp16 -o "$T/extb/ext2.rknn"
mv "$T/ext2.onnx.data" "$T/ext2.onnx.data.away"
expect 0 "" -- "$RT" run "$T/extb/ext2.rknn" --no-db -n 1
expect 2 "ext2.onnx: initializer '[^']+': external data file ext2.onnx.data: No such file" -- \
    "$RT" run "$T/ext2.onnx" --no-db
mv "$T/ext2.onnx.data.away" "$T/ext2.onnx.data"
mkdir -p "$T/extsub" && ln -sfn /etc "$T/extsub/etc_link"
head -c 1000 "$T/ext2.onnx.data" >"$T/extsub/short.data"
$PY - "$T" <<'PYEOF' || bad "writing the hostile external-data models"
import sys, onnx
t = sys.argv[1]
for name, loc in (('up', '../ext2.onnx.data'), ('abs', '/etc/passwd'),
                  ('link', 'etc_link/passwd'), ('short', 'short.data')):
    m = onnx.load(f"{t}/ext2.onnx", load_external_data=False)
    for e in m.graph.initializer[0].external_data:
        if e.key == 'location':
            e.value = loc
    onnx.save(m, f"{t}/extsub/{name}.onnx")
PYEOF
expect 2 "external data location '\.\./ext2\.onnx\.data' is not a path inside the model's folder" -- \
    "$RT" run "$T/extsub/up.onnx" --no-db
expect 2 "external data location '/etc/passwd' is not a path inside the model's folder" -- \
    "$RT" run "$T/extsub/abs.onnx" --no-db
expect 2 "external data file etc_link/passwd leads out of the model's folder" -- \
    "$RT" run "$T/extsub/link.onnx" --no-db
expect 2 "external data file short.data has 1000 bytes, the tensor needs [0-9]+ at offset 0" -- \
    "$RT" run "$T/extsub/short.onnx" --no-db
expect 2 "up.onnx: initializer '[^']+': external data location '\.\./ext2\.onnx\.data' is not a path" -- \
    "$RT" build "$T/extsub/up.onnx" -q fp16 -o "$T/extb/up.rknn"
[ ! -e "$T/extb/up.rknn" ] && ok || bad "build wrote a container for a model it refused"

# A data error inside a kernel: exit 2, the node named once.
$PY -c "import numpy as np; np.save('$T/idx_bad.npy', np.array([1, 7], np.int64)); np.save('$T/idx_ok.npy', np.array([3, 0], np.int64))"
expect 2 "^rknn-trace: node 'Gather_0' \(Gather\): index 7 out of range \[0, 4\)$" -- \
    "$RT" run "$T/gather.onnx" -i idx="$T/idx_bad.npy" --no-db
grep -c "node 'Gather_0'" "$T/err" | grep -qx 1 && ok || bad "kernel error repeats its prefix: $(cat "$T/err")"
expect 0 "" -- "$RT" run "$T/gather.onnx" -i idx="$T/idx_ok.npy" --no-db --dump "$T/gdump"
$PY -c "
import numpy as np, json, os
idx = json.load(open('$T/gdump/index.json'))
y = [e for e in idx if e['name'] == 'y'][0]
got = np.load(os.path.join('$T/gdump', y['file']))
assert np.array_equal(got, np.arange(12, dtype=np.float32).reshape(4, 3)[[3, 0]]), got
" && ok || bad "Gather with valid indices"
# Without -i, an index input gets seeded integers under its table's 4 rows
# (not the [0, 10) of other integer inputs, which would stop the run here),
# floor(4 u) of the seed's uniform draws (splitmix64 computed here); the
# recorded source says so.
expect 0 "" -- "$RT" run "$T/gather.onnx" --seed 5 --dump "$T/gseed" --db "$T/gseed.db" --label gs
$PY - "$T" "$(sqlite3 "$T/gseed.db" "select inputs_json from runs where label='gs'")" <<'PYEOF' && ok || bad "seeded index input"
import json, sys
import numpy as np
t, ins = sys.argv[1], json.loads(sys.argv[2])
idx = json.load(open(f"{t}/gseed/index.json"))
x = np.load(f"{t}/gseed/" + [e for e in idx if e["name"] == "idx"][0]["file"])
M64, st, want = (1 << 64) - 1, 5, []
for _ in range(2):
    st = (st + 0x9e3779b97f4a7c15) & M64
    z = ((st ^ (st >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    z ^= z >> 31
    want.append(int((z >> 11) / 2.0**53 * 4))
assert x.dtype == np.int64 and list(x) == want, (x, want)
assert ins[0]["source"] == "random:uniform01:splitmix64:seed=5:below=4", ins
PYEOF

# Quantized simulation of a model fed token ids and a mask (int64 inputs):
# they reach the quantized graph as given, never quantized, and get no
# accuracy row; calibration and --eval read them from .npy files of their type.
TK=$T/tokens
mkdir -p "$TK"
$PY - "$TK" <<'PYEOF' || bad "making the token samples"
import os, sys
import numpy as np
d, rng = sys.argv[1], np.random.default_rng(7)
lines = []
for k in range(6):
    n = 3 + k % 6
    np.save(f"{d}/ids{k}.npy", rng.integers(0, 16, (1, 8)).astype(np.int64))
    np.save(f"{d}/mask{k}.npy", (np.arange(8) < n).astype(np.int64)[None])
    lines.append(f"{d}/ids{k}.npy {d}/mask{k}.npy")
open(f"{d}/calib.txt", "w").write("\n".join(lines[:4]) + "\n")
open(f"{d}/eval.txt", "w").write("\n".join(lines[4:]) + "\n")
np.save(f"{d}/ids_f32.npy", np.zeros((1, 8), np.float32))
open(f"{d}/f32.txt", "w").write(f"{d}/ids_f32.npy {d}/mask0.npy\n")
open(f"{d}/img.txt", "w").write(f"{d}/ids0.npy {os.path.abspath('tests/data/images/bus.jpg')}\n")
PYEOF
expect 0 "" -- "$RT" run "$T/tokens.onnx" -q i8 --dataset "$TK/calib.txt" -i ids="$TK/ids4.npy" \
    -i mask="$TK/mask4.npy" --json --no-db --dump-golden "$TK/G" --dump-quant "$TK/Q"
cp "$T/out" "$TK/run.json"
line=$($PY tests/quant/check_dumps.py "$TK/run.json" "$TK/G" "$TK/Q" 2>"$TK/cerr")
case "$line" in "0 passed"*|*" 0 failed") ;; *) false ;; esac && [ "${line%% *}" -gt 0 ] && ok ||
    bad "token model: metrics against numpy: $line $(head -3 "$TK/cerr")"
$PY - "$TK" "$T/tokens.onnx" <<'PYEOF' && ok || bad "token model: golden, inputs and rows"
import json, os, sys
import numpy as np
d = sys.argv[1]
doc = json.load(open(f"{d}/run.json"))["accuracy"]
rows = [r["name"] for r in doc["layers"]]
assert "ids" not in rows and "mask" not in rows, rows          # no row for an integer input
def load(sub, name):
    idx = json.load(open(f"{d}/{sub}/index.json"))
    return np.load(os.path.join(d, sub, [e for e in idx if e["name"] == name][0]["file"]))
for name in ("ids", "mask"):                                   # fed as given to both graphs
    for sub in ("G", "Q"):
        got, want = load(sub, name), np.load(f"{d}/{name}4.npy")
        assert got.dtype == np.int64 and np.array_equal(got, want), (sub, name, got)
# the golden, recomputed: the model's weights are make_models.py's (seed 3,
# after gap.onnx's two draws)
rng = np.random.default_rng(3)
rng.standard_normal((8, 3, 3, 3))
emb = rng.standard_normal((16, 8)).astype(np.float32)
wq = rng.standard_normal((8, 8)).astype(np.float32) * np.float32(0.5)
ids, mask = np.load(f"{d}/ids4.npy"), np.load(f"{d}/mask4.npy")
s = (emb[ids] @ wq).astype(np.float64) + (1 - mask[:, None, :]) * -30.0
e = np.exp(s - s.max(-1, keepdims=True))
want = e / e.sum(-1, keepdims=True)
assert np.abs(load("G", "y") - want).max() < 1e-5, np.abs(load("G", "y") - want).max()
out = doc["outputs"][0]["entire"]["cos"]
assert 0.99 < out < 1.0, out                                   # quantized, and close
PYEOF
# --eval: the per-sample figures are those of a run on that sample alone
expect 0 "" -- "$RT" run "$T/tokens.onnx" -q i8 --dataset "$TK/calib.txt" --eval "$TK/eval.txt" \
    --json --no-db
cp "$T/out" "$TK/eval.json"
for k in 4 5; do
    expect 0 "" -- "$RT" run "$T/tokens.onnx" -q i8 --dataset "$TK/calib.txt" \
        -i ids="$TK/ids$k.npy" -i mask="$TK/mask$k.npy" --json --no-db
    cp "$T/out" "$TK/one$k.json"
done
$PY - "$TK" <<'PYEOF' && ok || bad "token model: --eval figures"
import json, sys
d = sys.argv[1]
ev = json.load(open(f"{d}/eval.json"))["eval"]
one = [json.load(open(f"{d}/one{k}.json"))["accuracy"]["outputs"][0]["entire"]["cos"] for k in (4, 5)]
o = ev["outputs"][0]
assert ev["samples"] == 2 and abs(o["cos_min"] - min(one)) < 1e-8, (o, one)
assert abs(o["cos_mean"] - sum(one) / 2) < 1e-8, (o, one)
assert ev["worst_file"].endswith("ids%d.npy" % (4 + one.index(min(one)))), (ev, one)
PYEOF
# a sample of the wrong type, an image for an index input: one clear line
expect 2 "ids_f32.npy: dtype float32, but input 'ids' is int64 \(convert it" -- \
    "$RT" run "$T/tokens.onnx" -q i8 --dataset "$TK/f32.txt" --no-db
expect 2 "bus.jpg: an image fills a float32 input; 'mask' is int64 \(give it as .npy\)" -- \
    "$RT" run "$T/tokens.onnx" -q i8 --dataset "$TK/img.txt" --no-db
expect 2 "sample 1: .*bus.jpg: input 'mask' is int64: give it as a .npy of that type, not an image" -- \
    "$RT" tune "$T/tokens.onnx" --dataset "$TK/img.txt" -o "$TK/img.cfg" --no-db
# fp16, and an index input left to the seed (ids under the table's 4 rows)
expect 0 "" -- "$RT" run "$T/tokens.onnx" -q fp16 -i ids="$TK/ids4.npy" -i mask="$TK/mask4.npy" --no-db
grep -q "^accuracy  vs the fp32 golden: output 'y' cos 1.00000" "$T/out" && ok || bad "token model fp16: $(grep -A1 '^accuracy' "$T/out")"
expect 0 "" -- "$RT" run "$T/gather.onnx" -q i8 --no-db
# tune searches it, and build --hybrid takes what tune wrote
expect 0 "" -- "$RT" tune "$T/tokens.onnx" --dataset "$TK/calib.txt" --eval "$TK/eval.txt" \
    --target-cos 0.99999 -o "$TK/t.cfg" --db "$TK/tune.db" --no-progress
grep -q "^answer: [1-9][0-9]* layers in fp16" "$T/out" && ok || bad "token model tune: $(grep '^answer' "$T/out")"
expect 0 "" -- "$RT" build "$T/tokens.onnx" -q i8 --dataset "$TK/calib.txt" --hybrid "$TK/t.cfg" \
    -o "$TK/t.rknn"

# A float16 model (exported after .half()) is computed in float32: outputs
# against numpy in float64 on the same float16 weights; a float16 .npy input is
# widened exactly, a float32 one taken as it is. The Linear's BatchNorm1d and
# ELU become one ConvElu on the NPU, as in the vendor's compile of such a model.
$PY -c "
import numpy as np
x = np.random.default_rng(5).standard_normal((1, 45)).astype(np.float16)
np.save('$TK/x16.npy', x); np.save('$TK/x32.npy', x.astype(np.float32))"
expect 0 "" -- "$RT" run "$T/half.onnx" -i x="$TK/x16.npy" --no-db --dump "$TK/h16"
expect 0 "" -- "$RT" run "$T/half.onnx" -i x="$TK/x32.npy" --no-db --dump "$TK/h32"
expect 0 "" -- "$RT" run "$T/half_io.onnx" -i x="$TK/x32.npy" --no-db --dump "$TK/hio"
$PY - "$TK" <<'PYEOF' && ok || bad "float16 models against numpy"
import json, os, sys
import numpy as np
d = sys.argv[1]
def out(sub):
    idx = json.load(open(f"{d}/{sub}/index.json"))
    e = [e for e in idx if e["name"] == "y"][0]
    assert e["dtype"] == "float32", e
    return np.load(os.path.join(d, sub, e["file"])).astype(np.float64)
h = lambda a: a.astype(np.float16).astype(np.float64)  # make_models.py's float16 weights
r = np.random.default_rng(11)
w1, b1 = h(r.standard_normal((128, 45)) * 0.2), h(r.standard_normal(128) * 0.1)
bg, bb, bm, bv = (h(r.standard_normal(128)), h(r.standard_normal(128)), h(r.standard_normal(128)),
                  h(r.random(128) + 0.5))
w2, b2 = h(r.standard_normal((12, 128)) * 0.1), h(r.standard_normal(12) * 0.1)
w, b = h(r.standard_normal((12, 45)) * 0.2), h(r.standard_normal(12) * 0.1)
x = np.load(f"{d}/x16.npy").astype(np.float64)
n = (x @ w1.T + b1 - bm) / np.sqrt(bv + 1e-5) * bg + bb
want = np.where(n > 0, n, np.expm1(n)) @ w2.T + b2
for sub, ref in (("h16", want), ("h32", want), ("hio", x @ w.T + b)):
    got = out(sub)
    assert np.abs(got - ref).max() <= 1e-5 * max(1.0, np.abs(ref).max()), (sub, got, ref)
PYEOF
expect 0 "" -- "$RT" run "$T/half.onnx" -t rk3576 -q i8 --json --no-db -n 1
$PY -c "
import json, sys
ls = [l['npu_op'] for l in json.load(open(sys.argv[1]))['layers'] if l['time_us'] is not None and l['target'] == 'NPU']
assert ls == ['ConvElu', 'Conv'], ls" "$T/out" && ok || bad "float16 MLP layers on rk3576"
# Its int8 simulation quantizes the widened weights: the float32 model of the
# same values (half32.onnx) gives the same int8 layers and the same bytes
for m in half half32; do
    x=x16; [ $m = half32 ] && x=x32
    expect 0 "" -- "$RT" run "$T/$m.onnx" -q i8 -i x="$TK/$x.npy" --no-db -n 1 --json \
        --dump-quant "$TK/q$m"
    cp "$T/out" "$TK/q$m.json"
done
$PY - "$TK" <<'PYEOF' && ok || bad "float16 model's int8 simulation against its float32 twin"
import json, sys
import numpy as np
d = sys.argv[1]
n = [json.load(open(f"{d}/q{m}.json"))["accuracy"]["int8_layers"] for m in ("half", "half32")]
assert n == [2, 2], n
for e in json.load(open(f"{d}/qhalf32/index.json")):
    a, b = np.load(f"{d}/qhalf/{e['file']}"), np.load(f"{d}/qhalf32/{e['file']}")
    assert a.dtype == b.dtype and np.array_equal(a, b), e["name"]
PYEOF
# a cos target past 0.99999 that fp16 everywhere misses: the best found is
# printed with the digits that show it short of the target, never as 1.00000
printf '%s\n' "$TK/x16.npy" >"$TK/h.txt"
expect 3 "target cos >= 0.999999 is not reached.*best found \(cos 0\.[0-9]{7}\)" -- \
    "$RT" tune "$T/half.onnx" --dataset "$TK/h.txt" --target-cos 0.999999 -o "$TK/h.cfg" --no-db
best=$(sed -n 's/.*best found (cos \(0\.[0-9]*\)).*/\1/p' "$T/err")
$PY -c "import sys; assert float(sys.argv[1]) < 0.999999" "$best" && ok ||
    bad "tune's best found ($best) printed as meeting 0.999999"

# analyze against a NaN golden: counted, named, never passing.
expect 0 "" -- "$RT" run "$MNIST" --no-db --dump "$T/ad"
$PY - "$T" <<'PYEOF' || bad "making the NaN goldens"
import json, os, shutil, sys
import numpy as np
t = sys.argv[1]
idx = json.load(open(f"{t}/ad/index.json"))
for sub in ("nan", "nan1"):
    os.makedirs(f"{t}/{sub}", exist_ok=True)
    shutil.copy(f"{t}/ad/index.json", f"{t}/{sub}/index.json")
for i, e in enumerate(idx):
    a = np.load(os.path.join(f"{t}/ad", e["file"]))
    np.save(os.path.join(f"{t}/nan", e["file"]), np.full(a.shape, np.nan, a.dtype))
    if e["name"] == "Convolution28_Output_0":   # five values spoilt in one layer
        a = a.copy(); a.flat[[0, 3, 9, 27, 81]] = [np.nan, np.inf, -np.inf, np.nan, np.nan]
    np.save(os.path.join(f"{t}/nan1", e["file"]), a)
PYEOF
NL=$($PY -c "import json; print(len(json.load(open('$T/ad/index.json'))))")
expect 2 "none of the $NL matched layers could be compared \($NL with NaN/inf in the golden" -- \
    "$RT" analyze "$T/ad" --golden "$T/nan"
grep -q "every .*keeps cos" "$T/out" && bad "all-NaN golden reported as passing" || ok
grep -q "^$NL matched layers not comparable (cos nan): $NL with NaN/inf in the golden" "$T/out" && ok ||
    bad "all-NaN golden: $(tail -3 "$T/out")"
expect 0 "1 tensor holds NaN/inf \(first: 'Convolution28_Output_0', 5 of 6272 values\)" -- \
    "$RT" analyze "$T/ad" --golden "$T/nan1"
grep -q "^every comparable layer ($((NL - 1)) of $NL matched) keeps cos >= 0.99" "$T/out" && ok ||
    bad "one NaN layer: $(tail -3 "$T/out")"
expect 0 "" -- "$RT" analyze "$T/ad" --golden "$T/nan1" --json
$PY - "$T/out" "$NL" <<'PYEOF' && ok || bad "analyze --json not_comparable"
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert d["comparable"] == n - 1 and d["not_comparable"] == 1, d
bad = [l for l in d["layers"] if l["nan_reason"]]
assert [(l["name"], l["nan_reason"], l["golden_nonfinite"]) for l in bad] == \
    [("Convolution28_Output_0", "golden not finite", 5)], bad
PYEOF

# a folder of reference outputs with another tool's own index.json (onnxruntime
# or Polygraphy dumps write an object): its .npy files are read by tensor name
$PY - "$T" <<'PYEOF' || bad "making the by-name golden"
import json, os, re, sys
import numpy as np
t = sys.argv[1]
os.makedirs(f"{t}/ort", exist_ok=True)
idx = json.load(open(f"{t}/ad/index.json"))
for e in idx:
    a = np.load(os.path.join(f"{t}/ad", e["file"])).astype(np.float32)
    np.save(os.path.join(f"{t}/ort", re.sub(r"[^A-Za-z0-9._-]", "_", e["name"]) + ".npy"), a)
json.dump({"producer": "onnxruntime", "outputs": [e["name"] for e in idx]}, open(f"{t}/ort/index.json", "w"))
PYEOF
expect 0 "" -- "$RT" analyze "$T/ad" --golden "$T/ort" --json
$PY - "$T/out" "$T/ad/index.json" <<'PYEOF' && ok || bad "golden folder with a foreign index.json: $(head -c 300 "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))
names = {e["name"] for e in json.load(open(sys.argv[2]))}
assert d["matched"] == len(names) and d["comparable"] == len(names), (d["matched"], len(names))
assert all(l["matched"] and l["cos"] is not None and l["cos"] > 0.999999 for l in d["layers"]), d["layers"][:2]
PYEOF

# --atol/--rtol (Polygraphy's element check |run - golden| <= atol + rtol*|golden|):
# a golden with known perturbations in the graph output (the last layer) and in
# one inner layer; counts, worst index and values checked against numpy.
$PY - "$T" <<'PYEOF' || bad "making the perturbed golden"
import json, os, shutil, sys
import numpy as np
t = sys.argv[1]
os.makedirs(f"{t}/tolg", exist_ok=True)
shutil.copy(f"{t}/ad/index.json", f"{t}/tolg/index.json")
idx = json.load(open(f"{t}/ad/index.json"))
last = max(e["layer"] for e in idx)
inner = [e for e in idx if 0 <= e["layer"] < last and np.load(os.path.join(f"{t}/ad", e["file"])).size > 20][0]
for e in idx:
    a = np.load(os.path.join(f"{t}/ad", e["file"])).copy()
    if e["layer"] == last:
        a.flat[0] += np.float32(2e-6)        # inside the default tolerance
        a.flat[3] += np.float32(1e-3)
        a.flat[7] -= np.float32(0.5)         # the worst
    elif e is inner:
        a.flat[5] += np.float32(2.0)
        a.flat[11] += np.float32(3.0)        # the worst
        a.flat[19] += np.float32(0.25)
    np.save(os.path.join(f"{t}/tolg", e["file"]), a)
open(f"{t}/tol_inner", "w").write(inner["name"])
PYEOF
cat >"$T/tolcheck.py" <<'PYEOF'
import json, os, sys
import numpy as np
out, t, atol, rtol = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
d = json.load(open(out))
assert d["atol"] == atol and d["rtol"] == rtol, (d["atol"], d["rtol"])
idx = {e["name"]: e for e in json.load(open(f"{t}/ad/index.json"))}
last = max(e["layer"] for e in idx.values())
nfail = nout = 0
for l in d["layers"]:
    e = idx[l["name"]]
    a = np.load(os.path.join(f"{t}/ad", e["file"])).astype(np.float64)
    g = np.load(os.path.join(f"{t}/tolg", e["file"])).astype(np.float64)
    diff = np.abs(a - g)
    fail = int(np.count_nonzero(~(diff <= atol + rtol * np.abs(g))))
    w = int(np.argmax(diff))
    assert l["is_output"] == (e["layer"] == last), l
    assert l["tol_fail_count"] == fail and l["tol_pass"] == (fail == 0), (l["name"], l["tol_fail_count"], fail)
    assert l["worst_index"] == w, (l["name"], l["worst_index"], w)
    assert l["worst_coords"] == list(np.unravel_index(w, a.shape)), (l["worst_coords"], a.shape)
    assert np.float32(l["worst_run"]) == a.flat[w] and np.float32(l["worst_golden"]) == g.flat[w], \
        (l["worst_run"], a.flat[w], l["worst_golden"], g.flat[w])
    nfail += fail > 0
    nout += fail > 0 and l["is_output"]
assert d["tol_failed_layers"] == nfail and d["tol_failed_outputs"] == nout, (d["tol_failed_layers"], nfail, nout)
print(nfail, nout)
PYEOF
# defaults, no flag: reported, but not a gate
expect 0 "" -- "$RT" analyze "$T/ad" --golden "$T/tolg" --json
R=$($PY "$T/tolcheck.py" "$T/out" "$T" 1e-5 1e-5) && [ "$R" = "2 1" ] && ok || bad "tolerance, defaults: $R"
# given: the failing output is a gate failure
expect 3 "1 graph output outside atol 0.0001 rtol 0.001" -- "$RT" analyze "$T/ad" --golden "$T/tolg" --atol 1e-4 --rtol 1e-3 --json
R=$($PY "$T/tolcheck.py" "$T/out" "$T" 1e-4 1e-3) && [ "$R" = "2 1" ] && ok || bad "tolerance, given: $R"
# atol 1 lets the output's -0.5 pass; the inner layer still fails, no gate
expect 0 "" -- "$RT" analyze "$T/ad" --golden "$T/tolg" --atol 1 --json
R=$($PY "$T/tolcheck.py" "$T/out" "$T" 1 1e-5) && [ "$R" = "1 0" ] && ok || bad "tolerance, atol 1: $R"
# the text report: the inner layer's FAIL line with count, worst index, coords and values
expect 0 "" -- "$RT" analyze "$T/ad" --golden "$T/tolg" --atol 1
L=$(grep -F "$(cat "$T/tol_inner")" "$T/out")
$PY - "$T" "$L" <<'PYEOF' && ok || bad "tolerance text line: $L"
import json, os, sys
import numpy as np
t, line = sys.argv[1], sys.argv[2]
e = [e for e in json.load(open(f"{t}/ad/index.json")) if e["name"] == open(f"{t}/tol_inner").read()][0]
a = np.load(os.path.join(f"{t}/ad", e["file"])); g = np.load(os.path.join(f"{t}/tolg", e["file"]))
c = ",".join(str(int(i)) for i in np.unravel_index(11, a.shape))
a64, g64 = a.astype(np.float64), g.astype(np.float64)
n = np.count_nonzero(~(np.abs(a64 - g64) <= 1 + 1e-5 * np.abs(g64)))
want = "FAIL %d, worst at 11 [%s]: %.9g %.9g" % (n, c, a.flat[11], g.flat[11])
assert line.rstrip().endswith(want), (line, want)
PYEOF
grep -q "^tolerance atol 1 rtol 1e-05: 1 matched layer fails (0 graph outputs)$" "$T/out" && ok ||
    bad "tolerance summary: $(grep '^tolerance' "$T/out")"
# a recorded run: its graph outputs come from the store (same seeded input, same values)
expect 0 "" -- "$RT" run "$MNIST" --db "$T/tol.db" --dump "$T/tolrun" --label tolrun -n 1 --warmup 0
expect 3 "1 graph output outside atol" -- "$RT" analyze tolrun --db "$T/tol.db" --golden "$T/tolg" --atol 1e-4 --rtol 1e-3 --json
R=$($PY "$T/tolcheck.py" "$T/out" "$T" 1e-4 1e-3) && [ "$R" = "2 1" ] && ok || bad "tolerance, recorded run: $R"
expect 1 "--rtol takes a number >= 0, got '-1'" -- "$RT" analyze "$T/ad" --golden "$T/tolg" --rtol -1

# --mean/--std: 1 value or one per channel of the image input.
$PY -c "
from PIL import Image
Image.open('/usr/lib/python3/dist-packages/skimage/data/camera.png').resize((40, 30)).save('$T/cam.png')"
echo "cam.png" >"$T/ds1.txt"
expect 1 "^rknn-trace: --mean has 4 values, input 'Input3' .* has 1 channel: give one value$" -- \
    "$RT" run "$MNIST" -q i8 --dataset "$T/ds1.txt" --mean 1,2,3,4 --no-db
expect 1 "--std has 3 values, input 'Input3' .* 1 channel" -- \
    "$RT" run "$MNIST" -q i8 --dataset "$T/ds1.txt" --std 1,2,3 --no-db
expect 0 "" -- "$RT" run "$MNIST" -q i8 --dataset "$T/ds1.txt" --mean 3 --std 2 --no-db --no-progress
UFM=tests/data/models/ultraface_version-RFB-320.onnx
expect 1 "--mean has 2 values, input 'input' .* 3 channels: give 1 or 3 values" -- \
    "$RT" run "$UFM" -q i8 --dataset "$T/ds1.txt" --mean 1,2 --no-db
expect 1 "--mean has 4 values" -- "$RT" run "$UFM" -q i8 --dataset "$T/ds1.txt" --mean 1,2,3,4 --no-db

# build never overwrites its own source, and writes through a temporary file.
mkdir -p "$T/b"
cp "$MNIST" "$T/b/m.onnx"
ln -s m.onnx "$T/b/link.onnx"
ln "$T/b/m.onnx" "$T/b/hard.onnx"
for o in "$T/b/m.onnx" "$T/b/./m.onnx" "$T/b/link.onnx" "$T/b/hard.onnx"; do
    expect 1 "build: the output .* is the model .* itself" -- "$RT" build "$T/b/m.onnx" -o "$o"
done
expect 1 "is the model" -- "$RT" build "$T/b/link.onnx" -o "$T/b/m.onnx"
cmp -s "$MNIST" "$T/b/m.onnx" && ok || bad "build overwrote its source"
expect 0 "" -- "$RT" build "$T/b/m.onnx" -q fp16 -o "$T/b/m.rknn"
cp "$T/b/m.rknn" "$T/b/m.rknn.orig"
# a write that fails half way (file size limit): the old container stays whole
(trap '' XFSZ; ulimit -f 8; exec "$RT" build "$T/b/m.onnx" -q fp16 -t rk3566 -o "$T/b/m.rknn") >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && grep -q "m.rknn.*failed: file size limit exceeded" "$T/err" && ok || bad "build past the size limit: $(cat "$T/err")"
cmp -s "$T/b/m.rknn" "$T/b/m.rknn.orig" && ok || bad "a failed build changed the old output"
[ -z "$(find "$T/b" -name '*.tmp*')" ] && ok || bad "a failed build left $(ls "$T/b")"
expect 0 "" -- "$RT" build "$T/b/m.onnx" -q fp16 -t rk3566 -o "$T/b/m.rknn"
cmp -s "$T/b/m.rknn" "$T/b/m.rknn.orig" && bad "a second build did not replace the output" || ok

# -i NAME=IMAGE: decoded, resized to the input, (pixel - mean) / std, as dataset images.
$PY -c "
from PIL import Image
Image.open('/usr/lib/python3/dist-packages/skimage/data/chelsea.png').convert('RGB').resize((50, 40)).save('$T/cat.jpg', quality=90)"
for img in cam.png cat.jpg; do
    expect 0 "" -- "$RT" run "$MNIST" -i Input3="$T/$img" --mean 127 --std 128 --no-db --dump "$T/id_$img"
    $PY - "$T/$img" "$T/id_$img" <<'PYEOF' && ok || bad "-i $img: values"
import json, os, sys
import numpy as np
from PIL import Image
path, d = sys.argv[1:3]
a = np.asarray(Image.open(path).convert("RGB"), dtype=np.float64)
def axis(n_in, n_out):  # bilinear, half-pixel centres, clamped (the documented rule)
    s = np.clip((np.arange(n_out) + 0.5) * n_in / n_out - 0.5, 0, n_in - 1)
    i0 = np.floor(s).astype(int)
    return i0, np.minimum(i0 + 1, n_in - 1), s - i0
y0, y1, fy = axis(a.shape[0], 28)
x0, x1, fx = axis(a.shape[1], 28)
top = a[y0][:, x0] + fx[None, :, None] * (a[y0][:, x1] - a[y0][:, x0])
bot = a[y1][:, x0] + fx[None, :, None] * (a[y1][:, x1] - a[y1][:, x0])
r = top + fy[:, None, None] * (bot - top)
want = ((0.299 * r[..., 0] + 0.587 * r[..., 1] + 0.114 * r[..., 2]) - 127) / 128
e = [e for e in json.load(open(f"{d}/index.json")) if e["layer"] < 0][0]
got = np.load(os.path.join(d, e["file"]))
assert got.shape == (1, 1, 28, 28) and got.dtype == np.float32, (got.shape, got.dtype)
assert np.abs(got[0, 0] - want).max() < 1e-4, np.abs(got[0, 0] - want).max()
PYEOF
done
expect 1 "--mean has 3 values, input 'Input3'" -- "$RT" run "$MNIST" -i Input3="$T/cam.png" --mean 1,2,3 --no-db
expect 1 "--mean/--std apply to the images of --dataset or -i" -- "$RT" run "$MNIST" -q fp16 -i Input3="$T/in.npy" --mean 1 --no-db
expect 1 "need -q i8 or -q fp16" -- "$RT" run "$MNIST" -i Input3="$T/in.npy" --mean 1 --no-db
head -c 300 "$T/cam.png" >"$T/cut.png"
expect 2 "cut.png: corrupt PNG" -- "$RT" run "$MNIST" -i Input3="$T/cut.png" --no-db
expect 2 "an image fills a float32 input; 'idx' is int64" -- "$RT" run "$T/gather.onnx" -i idx="$T/cam.png" --no-db

# -q i8 without --dataset says that one sample is not a calibration.
expect 0 "warning: -q i8 without --dataset calibrates on this run's one input \(random data\)" -- \
    "$RT" run "$MNIST" -q i8 --no-db --no-progress
expect 0 "one input \(the -i data\)" -- "$RT" run "$MNIST" -q i8 -i Input3="$T/in.npy" --no-db --no-progress
expect 0 "" -- "$RT" run "$MNIST" -q i8 --dataset "$T/ds1.txt" --no-db --no-progress
grep -q "not a calibration" "$T/err" && bad "warning with --dataset" || ok

# "did you mean": commands, options, input names (-i and --shape, listing the inputs).
expect 1 "unknown command 'rn'; did you mean 'run'\?" -- "$RT" rn "$MNIST"
expect 1 "unknown command 'frobnicate' \(rknn-trace --help" -- "$RT" frobnicate
expect 1 "run: unknown option '--taget'; did you mean '--target'\?" -- "$RT" run "$MNIST" --taget=rk3566
expect 1 "run: unknown option '--dumpp'; did you mean '--dump'\?" -- "$RT" run "$MNIST" --dumpp "$T/x"
expect 1 "build: unknown option '--outptu'; did you mean '--output'\?" -- "$RT" build "$MNIST" --outptu x
expect 1 "analyze: unknown option '--gloden'; did you mean '--golden'\?" -- "$RT" analyze "$T/ad" --gloden x
expect 1 "unknown option '--zzzzzz' \(see" -- "$RT" run "$MNIST" --zzzzzz
expect 1 "-i Inptu3: the model has no input named 'Inptu3'; did you mean 'Input3'\? \(inputs: 'Input3'\)" -- \
    "$RT" run "$MNIST" -i Inptu3="$T/in.npy" --no-db
expect 1 "--shape X: the model has no input named 'X'; did you mean 'x'\? \(inputs: 'x'\)" -- \
    "$RT" run "$T/sym.onnx" --shape X=2,3 --no-db

# The --shape hint pastes into a shell and runs.
expect 2 "dynamic dims \[batch,3\]; give e.g. --shape x=1,3$" -- "$RT" run "$T/sym.onnx" --no-db
PPOCR=tests/data/models/ppocr_mobile_v2.0_cls.onnx
expect 2 "give e.g. --shape x=1,3,224,224 \(your sizes for p2o.DynamicDimension.1, p2o.DynamicDimension.2\)" -- \
    "$RT" run "$PPOCR" --no-db
HINT=$(sed -n 's/.*give e\.g\. \(--shape [^ ]*\).*/\1/p' "$T/err")
# shellcheck disable=SC2086
expect 0 "" -- "$RT" run "$PPOCR" $HINT --no-db

# rv1106/rv1103 float models: the chip runs int8 only, -q i8 suggested.
expect 2 "rv1106 runs int8 models only .*: add -q i8 --dataset FILE" -- "$RT" run "$MNIST" -t rv1106 --no-db
expect 2 "rv1103 runs int8 models only" -- "$RT" run "$MNIST" -t rv1103 -q fp16 --no-db
expect 2 "rv1106b runs int8 models only" -- "$RT" run "$MNIST" -t rv1106b -q fp16 --no-db
expect 2 "rk2118 runs float16 models only \(its NPU has no int8\): use -q fp16" -- \
    "$RT" run "$MNIST" -t rk2118 -q i8 --dataset "$T/ds1.txt" --no-db
expect 0 "" -- "$RT" run "$MNIST" -t rv1106 -q i8 --dataset "$T/ds1.txt" --no-db --no-progress

# Colour only on a terminal without NO_COLOR (script(1) gives a terminal).
if command -v script >/dev/null; then
    script -qec "$RT analyze $T/ad --golden $T/ad" /dev/null >"$T/tty.txt" 2>&1
    grep -q $'\033\[' "$T/tty.txt" && ok || bad "no colour on a terminal"
    NO_COLOR=1 script -qec "$RT analyze $T/ad --golden $T/ad" /dev/null >"$T/tty.txt" 2>&1
    grep -q $'\033\[' "$T/tty.txt" && bad "colour despite NO_COLOR" || ok
    script -qec "$RT run $MNIST -q i8 --dataset $T/ds1.txt --no-db --no-progress" /dev/null >"$T/tty.txt" 2>&1
    grep -q $'\033\[3' "$T/tty.txt" && ok || bad "no colour in run -q i8 on a terminal"
    NO_COLOR=1 script -qec "$RT run $MNIST -q i8 --dataset $T/ds1.txt --no-db --no-progress" /dev/null >"$T/tty.txt" 2>&1
    grep -q $'\033\[' "$T/tty.txt" && bad "run -q i8: colour despite NO_COLOR" || ok
fi
expect 0 "" -- "$RT" analyze "$T/ad" --golden "$T/ad"
grep -q $'\033\[' "$T/out" && bad "colour into a pipe" || ok

# The version: --version and info.
expect 0 "" -- "$RT" --version
V=$(cat "$T/out")
[[ "$V" =~ ^rknn-trace\ [0-9]+\.[0-9]+\.[0-9]+$ ]] && ok || bad "--version: $V"
expect 0 "" -- "$RT" info
grep -qx "version    $V" "$T/out" && ok || bad "info lacks the version: $(head -2 "$T/out")"
