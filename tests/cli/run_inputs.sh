# tests/cli/run_inputs.sh — sourced by tests/cli/run.sh (uses its expect/ok/bad,
# $RT, $T, $PY, $MNIST): bad input data, images, mean/std, build's output,
# suggestions, colour and version.

$PY tests/cli/make_models.py "$T" || bad "make_models.py"

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
[ $? -eq 2 ] && grep -q "m.rknn: write error" "$T/err" && ok || bad "build past the size limit: $(cat "$T/err")"
cmp -s "$T/b/m.rknn" "$T/b/m.rknn.orig" && ok || bad "a failed build changed the old output"
[ -z "$(find "$T/b" -name '*.tmp*')" ] && ok || bad "a failed build left $(ls "$T/b")"
expect 0 "" -- "$RT" build "$T/b/m.onnx" -q fp16 -t rk3566 -o "$T/b/m.rknn"
cmp -s "$T/b/m.rknn" "$T/b/m.rknn.orig" && bad "a second build did not replace the output" || ok
