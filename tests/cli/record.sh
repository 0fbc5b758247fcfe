#!/usr/bin/env bash
# `run` never throws results away and never aborts: the database and the label are
# checked before the computation, a failure to record after it still prints the
# results; a reused --dump folder is refused and a changed dump is detected by
# `analyze`; memory limits and iteration counts are errors, not aborts; the timing
# loop (warm-ups, budget, statistics). Oracles: sqlite3 CLI, Python (json, hashlib,
# numpy), wall-clock time.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RT=$B/rknn-trace
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
MNIST=tests/data/models/mnist.onnx
SR=tests/data/models/super_resolution_224.onnx

source tests/cli/expect.sh
now_ms() { date +%s%3N; }

# --- checked before the computation ------------------------------------------------
DB=$T/runs.db
expect 0 "" -- "$RT" run "$MNIST" --db "$DB" --label taken -n 1 --warmup 0
t0=$(now_ms)
expect 2 "label 'taken' is already used by run 1" -- "$RT" run "$SR" --db "$DB" --label taken
ms=$(( $(now_ms) - t0 ))
[ "$ms" -lt 1000 ] && [ ! -s "$T/out" ] && ok || bad "duplicate label: ${ms} ms (want < 1000, no computation), stdout '$(head -c 100 "$T/out")'"
expect 1 "bad label" -- "$RT" run "$MNIST" --db "$DB" --label 123
# a database whose folder is a regular file, and a database that is a folder
: >"$T/file"
t0=$(now_ms)
expect 2 "$T/file/x.db" -- "$RT" run "$SR" --db "$T/file/x.db"
ms=$(( $(now_ms) - t0 ))
[ "$ms" -lt 1000 ] && [ ! -s "$T/out" ] && ok || bad "unwritable database: ${ms} ms, stdout '$(head -c 100 "$T/out")'"
mkdir "$T/dir.db"
expect 2 "is a directory" -- "$RT" run "$SR" --db "$T/dir.db"
# a read-only database file (root ignores mode bits: an immutable file when possible)
cp "$DB" "$T/ro.db"
if chattr +i "$T/ro.db" 2>/dev/null; then
    expect 2 "ro.db: the database file is read-only" -- "$RT" run "$MNIST" --db "$T/ro.db" -n 1
    chattr -i "$T/ro.db"
    # a writable file in a folder where the journal cannot be created
    mkdir "$T/rodir" && cp "$DB" "$T/rodir/" && chattr +i "$T/rodir"
    expect 2 "rodir/runs.db: cannot write to the database: .*journal" -- "$RT" run "$MNIST" --db "$T/rodir/runs.db" -n 1
    chattr -i "$T/rodir"
elif [ "$(id -u)" -ne 0 ]; then
    chmod 444 "$T/ro.db"
    expect 2 "ro.db" -- "$RT" run "$MNIST" --db "$T/ro.db" -n 1
fi
# the dump folder: under a regular file
expect 2 "$T/file" -- "$RT" run "$SR" --no-db --dump "$T/file/d"
[ ! -s "$T/out" ] && ok || bad "unwritable dump folder: output printed"

# --- recording fails after the computation: results printed, exit non-zero --------
DB2=$T/late.db
# the input comes through a FIFO, which the run opens only after its up-front check
# of the database: while the run waits for it, the database gives way to a folder
mkfifo "$T/late.npy"
$PY -c "import numpy as np; np.save('$T/late-in.npy', np.random.default_rng(5).random((1,1,28,28), dtype=np.float32))"
"$RT" run "$MNIST" -i Input3="$T/late.npy" --db "$DB2" --label late --json >"$T/late.out" 2>"$T/late.err" &
pid=$!
exec 3>"$T/late.npy"
rm -f "$DB2" "$DB2-journal" && mkdir "$DB2"
cat "$T/late-in.npy" >&3
exec 3>&-
wait $pid
rc=$?
[ "$rc" -eq 5 ] && grep -q "the run was NOT recorded: .*late.db" "$T/late.err" && ok ||
    bad "late failure: exit $rc, stderr $(cat "$T/late.err")"
$PY - "$T/late.out" <<'PYEOF' && ok || bad "late failure: the results are not printed"
import json, sys
run = json.load(open(sys.argv[1]))
assert run["layers"] and run["host"]["median_us"] > 0 and run["label"] == "late", run.keys()
PYEOF

# a vendor .rknn's predicted run: the label is checked before it is computed (exit 2,
# nothing printed), as `run` of a model does
RKNN=${RT_SHARED:-../shared}/data/models/rknn/multiple_input_demo.rk3588.rknn
if [ -f "$RKNN" ]; then
    expect 2 "label 'taken' is already used by run 1" -- "$RT" run "$RKNN" --db "$DB" --label taken
    [ ! -s "$T/out" ] && ok || bad "rknn, taken label: printed '$(head -c 100 "$T/out")'"
fi

# --- dump folders: no silent reuse, a hash per run ----------------------------------
DB3=$T/dumps.db
$PY -c "import numpy as np; np.save('$T/in.npy', np.random.default_rng(3).random((1,1,28,28), dtype=np.float32))"
expect 0 "" -- "$RT" run "$MNIST" -i Input3="$T/in.npy" --db "$DB3" --label a --dump "$T/d" --json
cp "$T/out" "$T/a.json"
# the stored hash is the documented one (dump/dump.h), computed here independently
$PY - "$T/d" "$(sqlite3 "$DB3" "select dump_sha256 from runs where label='a'")" \
    "$(sqlite3 "$DB3" "select dump_dir from runs where label='a'")" <<'PYEOF' && ok || bad "dump hash"
import hashlib, json, os, sys
d, stored, ddir = sys.argv[1:4]
h = lambda b: hashlib.sha256(b).hexdigest()
idx = open(os.path.join(d, "index.json"), "rb").read()
lines = "index.json %s\n" % h(idx)
for e in json.loads(idx):
    lines += "%s %s\n" % (e["file"], h(open(os.path.join(d, e["file"]), "rb").read()))
assert stored == h(lines.encode()), (stored, h(lines.encode()))
assert os.path.realpath(d) == ddir, ddir
PYEOF
cp -r "$T/d" "$T/d.orig"
expect 2 "holds another run's dumps" -- "$RT" run "$MNIST" --db "$DB3" --label b --dump "$T/d"
diff -r "$T/d" "$T/d.orig" >/dev/null && [ ! -s "$T/out" ] && ok || bad "a refused dump folder was modified"
[ "$(sqlite3 "$DB3" "select count(*) from runs where label='b'")" = 0 ] && ok || bad "refused run was recorded"
expect 0 "" -- "$RT" analyze a --golden "$T/d.orig" --db "$DB3"
# one changed byte in one dump, then a later run into the folder: both detected
f=$(ls "$T/d"/0000_*.npy | head -1)
$PY -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[-1]^=1; open(p,'wb').write(bytes(b))" "$f"
expect 2 "dumps of run 1 in .* changed since it was recorded" -- "$RT" analyze a --golden "$T/d.orig" --db "$DB3"
cp "$T/d.orig"/* "$T/d/"
expect 0 "" -- "$RT" analyze a --golden "$T/d.orig" --db "$DB3"
rm "$f"
expect 2 "no longer complete" -- "$RT" analyze a --golden "$T/d.orig" --db "$DB3"
cp "$T/d.orig"/* "$T/d/"
expect 0 "" -- "$RT" run "$MNIST" --seed 9 --db "$DB3" --label b --dump "$T/d" --dump-overwrite -n 1 --warmup 0
expect 2 "changed since" -- "$RT" analyze a --golden "$T/d.orig" --db "$DB3"
expect 0 "" -- "$RT" analyze b --golden "$T/d.orig" --db "$DB3"
# --dump-overwrite removed the earlier run's files (none of a's left beside b's)
$PY - "$T/d" <<'PYEOF' && ok || bad "overwrite left stale files"
import json, os, sys
d = sys.argv[1]
listed = {e["file"] for e in json.load(open(os.path.join(d, "index.json")))} | {"index.json"}
assert set(os.listdir(d)) == listed, set(os.listdir(d)) ^ listed
PYEOF
# the dumps come from an untimed pass: the same layers and values whatever the timing
expect 0 "" -- "$RT" run "$MNIST" -i Input3="$T/in.npy" --no-db --json
cp "$T/out" "$T/nodump.json"
expect 0 "" -- "$RT" run "$MNIST" -i Input3="$T/in.npy" --no-db --dump "$T/d2" -n 1 --warmup 0
$PY - "$T/a.json" "$T/nodump.json" "$T/d.orig" "$T/d2" <<'PYEOF' && ok || bad "--dump changes the run"
import json, os, sys
import numpy as np
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["layer_count"] == b["layer_count"] and [l["node"] for l in a["layers"]] == [l["node"] for l in b["layers"]]
nodump = lambda outs: [{k: v for k, v in o.items() if k != "dump_file"} for o in outs]
assert nodump(a["outputs"]) == nodump(b["outputs"])
d1, d2 = sys.argv[3:5]
i1, i2 = (json.load(open(os.path.join(d, "index.json"))) for d in (d1, d2))
assert [e["name"] for e in i1] == [e["name"] for e in i2]
for e, f in zip(i1, i2):
    assert np.array_equal(np.load(os.path.join(d1, e["file"])), np.load(os.path.join(d2, f["file"]))), e
PYEOF

# --- timing: warm-ups, budget, statistics --------------------------------------------
DB4=$T/timing.db
expect 0 "" -- "$RT" run "$MNIST" --db "$DB4" --label exact -n 3 --warmup 0 --json
[ "$($PY -c "import json;print(json.load(open('$T/out'))['host']['iterations'])")" = 3 ] &&
    [ "$(sqlite3 "$DB4" "select iterations, warmup from runs where label='exact'")" = "3|0" ] && ok ||
    bad "-n 3 --warmup 0: $(sqlite3 "$DB4" "select iterations, warmup from runs")"
t0=$(now_ms)
expect 0 "" -- "$RT" run "$MNIST" --db "$DB4" --label auto --json
ms=$(( $(now_ms) - t0 ))
cp "$T/out" "$T/auto.json"
row=$(sqlite3 "$DB4" "select iterations, warmup, total_us, host_min_us, host_p90_us, host_stddev_us from runs where label='auto'")
$PY - "$row" "$ms" "$T/auto.json" <<'PYEOF' && ok || bad "default timing: $row, ${ms} ms"
import json, sys
n, warm, med, mn, p90, sd = (float(v) for v in sys.argv[1].split("|"))
ms = int(sys.argv[2])
run = json.load(open(sys.argv[3]))
assert n >= 10 and warm == 2 and ms >= 1000, (n, warm, ms)  # >= 10 runs and >= 1 s
assert mn <= med <= p90 and sd >= 0, (mn, med, p90, sd)
h = run["host"]
assert h["iterations"] == n and h["warmup"] == warm and abs(h["median_us"] - med) < 1e-6 * med
assert all(abs(x - y) <= 1e-6 * max(y, 1) for x, y in ((h["min_us"], mn), (h["p90_us"], p90), (h["stddev_us"], sd)))
# per-layer host times come from the timed runs: their sum is the frame time
s = sum(l["host_us"] for l in run["layers"] if l["host_us"] is not None)  # fused: null
assert abs(s - med) <= 0.25 * med, (s, med)
PYEOF

# --- aborts become errors --------------------------------------------------------------
expect 1 "more than the 1000000 allowed" -- "$RT" run "$MNIST" -n 10000000000 --no-db
expect 1 "more than the 1000000 allowed" -- "$RT" run "$MNIST" --warmup 1000001 --no-db
expect 1 "max-memory" -- "$RT" run "$MNIST" --max-memory 12X --no-db
$PY tests/cli/make_big.py "$T/big"
# Relu on 2^31 floats: 8 GiB in (and our copy), 8 GiB out; refused before allocating
t0=$(now_ms)
expect 2 "needs at least 8.0 GiB of inputs .* 8.0 GiB of outputs, limit 4.0 GiB" -- \
    "$RT" run "$T/big/relu_2g.onnx" --no-db --max-memory 4G
[ $(( $(now_ms) - t0 )) -lt 2000 ] && ok || bad "relu_2g was not refused up front"
expect 2 "needs at least" -- "$RT" run "$T/big/relu_2g.onnx" --no-db
# Expand to 50000x50000: 9.3 GiB of outputs; then reduced: 9.3 GiB inside the plan
expect 2 "needs at least 4 B of inputs .* 9.3 GiB of outputs" -- \
    "$RT" run "$T/big/expand_big.onnx" --no-db --max-memory 4096M
expect 2 "needs 9.3 GiB of activations plus 4 B of inputs, limit 4.0 GiB \(--max-memory" -- \
    "$RT" run "$T/big/expand_max.onnx" --no-db --max-memory 4096M
# the quantization analysis' executors are held to the same limit (mnist needs 76.6 KiB:
# the tensors of its conv, bias Add and Relu are live together, as the fused chain's are);
# the warning that -q i8 without --dataset calibrates on random data comes first
EXPECT_LINES=2 expect 2 "needs 76.6 KiB of activations.*limit 8.0 KiB" -- \
    "$RT" run "$MNIST" -q i8 --no-db --max-memory 8K -n 1 --warmup 0
expect 2 "limit 512.0 MiB" -- "$RT" run "$T/big/relu_dyn.onnx" --shape x=20000,20000 --no-db --max-memory 512MiB
expect 0 "" -- "$RT" run "$T/big/relu_dyn.onnx" --shape x=100,100 --no-db --max-memory 1M -n 1
# under `ulimit -v` the process limit is the default (not with ASan: it maps terabytes)
if ! grep -qa __asan_init "$RT"; then
    (ulimit -v 4000000; exec "$RT" run "$T/big/expand_max.onnx" --no-db) >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc -eq 2 ] && grep -q "needs 9.3 GiB of activations.*limit 3.8 GiB" "$T/err" && ok ||
        bad "under ulimit -v: exit $rc, $(cat "$T/err")"
fi

# --- per layer: the output's quantization and statistics (oracles: numpy over the
# --dump files, the --write-quant-cfg file, sqlite3)
DB5=$T/q.db
expect 0 "" -- "$RT" run "$MNIST" -q i8 --db "$DB5" --label q --dump "$T/qd" --write-quant-cfg "$T/q.cfg" \
    -n 1 --warmup 0 --no-progress
expect 0 "" -- "$RT" run "$MNIST" --db "$DB5" --label plain -n 1 --warmup 0 --no-progress
expect 0 "" -- "$RT" run "$MNIST" -q fp16 --db "$DB5" --label half -n 1 --no-progress
"$RT" show q --db "$DB5" --json >"$T/q.json" 2>/dev/null || bad "show q --json"
$PY - "$DB5" "$T/qd" "$T/q.cfg" "$T/q.json" <<'PYEOF' && ok || bad "layer quantization and statistics"
import json, math, os, sqlite3, sys
import numpy as np
db, dump, cfg, js = sys.argv[1:]
con = sqlite3.connect(db)
q = dict(con.execute("select label, id from runs"))
cols = "idx, name, out_scale, out_zp, out_qtype, out_min, out_max, out_mean, out_std"
rows = con.execute("select %s from layers where run_id=? order by idx" % cols, (q["q"],)).fetchall()
# the cfg: per tensor its scale and zero point (one per layer: activations)
par, cur, key = {}, None, None
for line in open(cfg):
    if line.startswith("    ") and not line.startswith("     ") and line.rstrip().endswith(":"):
        cur = line.strip()[:-1]; par[cur] = {}
    elif cur and line.strip().endswith(":"):
        key = line.strip()[:-1]; par[cur][key] = []
    elif cur and line.strip().startswith("- "):
        par[cur][key].append(float(line.strip()[2:]))
files = {e["name"]: e["file"] for e in json.load(open(os.path.join(dump, "index.json"))) if e["layer"] >= 0}
n_q = n_stats = 0
for idx, name, scale, zp, qtype, mn, mx, mean, std in rows:
    v = np.load(os.path.join(dump, files[name])).astype(np.float64)
    assert mn == v.min() and mx == v.max(), (name, mn, mx, v.min(), v.max())
    assert math.isclose(mean, v.mean(), rel_tol=1e-9, abs_tol=1e-12), (name, mean, v.mean())
    assert math.isclose(std, v.std(), rel_tol=1e-9, abs_tol=1e-12), (name, std, v.std())
    n_stats += 1
    p = par.get(name)
    # on the int8 grid of its parameters, or not (left float: fused into its activation)
    grid = p is not None and np.allclose(v / p["scale"][0], np.round(v / p["scale"][0]), atol=1e-3)
    if qtype is not None:
        assert qtype == "asymmetric_quantized-8" and grid, (name, qtype)
        assert "%.9g" % scale == "%.9g" % p["scale"][0], (name, scale, p["scale"])
        assert zp == p["zero_point"][0], (name, zp, p["zero_point"])
        n_q += 1
    else:
        assert not grid and scale is None and zp is None, (name, qtype, scale, zp)
assert n_stats == len(rows) == 11 and n_q >= 8, (n_stats, n_q)
# show --json carries the same values (reals to the 9 significant digits it prints)
nine = lambda x: float("%.9g" % x) if isinstance(x, float) else x
for l, r in zip(json.load(open(js))["layers"], rows):
    assert [l[k] for k in ("out_scale", "out_zp", "out_qtype", "out_min", "out_max", "out_mean", "out_std")] \
        == [nine(x) for x in r[2:]], (l, r)
# an fp32 run with no untimed pass: neither; fp16: every output float16, statistics
# from the warm-up
assert con.execute("select count(*) from layers where run_id=? and coalesce(out_qtype, out_scale, out_zp, "
                   "out_min, out_max, out_mean, out_std) is not null", (q["plain"],)).fetchone() == (0,)
assert con.execute("select count(*), sum(out_qtype='float16'), sum(out_std >= 0 and out_min <= out_mean "
                   "and out_mean <= out_max), sum(out_scale is null) from layers where run_id=?",
                   (q["half"],)).fetchone() == (11, 11, 11, 11)
PYEOF

# --- progress: a plain line every 5 s when stderr is not a terminal, none with
# --no-progress (about 10 s of mnist runs; the sanitizer build would take minutes)
if ! grep -qa __asan_init "$RT"; then
    "$RT" run "$MNIST" --no-db --json -n 350000 --warmup 0 >/dev/null 2>"$T/prog.err"
    grep -qE '^rknn-trace: run [0-9]+/350000$' "$T/prog.err" && ! grep -q $'\r' "$T/prog.err" &&
        ok || bad "plain progress lines: $(cat "$T/prog.err")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
