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
