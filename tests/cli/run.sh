#!/usr/bin/env bash
# Command-line tests: exit codes and one-line errors on bad input, the dump
# folder, the store (ls/show, --json) checked with Python's json and numpy.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RT=$B/rknn-trace
PY=/usr/bin/python3
SHARED=${RT_SHARED:-../shared}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
MNIST=tests/data/models/mnist.onnx

source tests/cli/expect.sh

# --- usage and bad input -------------------------------------------------------
EXPECT_LINES=any expect 1 "usage" -- "$RT"
expect 1 "unknown command" -- "$RT" frobnicate
expect 1 "unknown option" -- "$RT" run "$MNIST" --bogus
expect 1 "unknown platform 'rk9999'" -- "$RT" run "$MNIST" -t rk9999 --no-db
expect 2 "nope.onnx" -- "$RT" run "$T/nope.onnx" --no-db
head -c 2000 "$MNIST" >"$T/trunc.onnx"
expect 2 "trunc.onnx" -- "$RT" run "$T/trunc.onnx" --no-db
head -c 4096 /dev/urandom >"$T/noise.onnx"
expect 2 "noise.onnx" -- "$RT" run "$T/noise.onnx" --no-db
: >"$T/empty.onnx"
expect 2 "empty.onnx" -- "$RT" run "$T/empty.onnx" --no-db
if [ -f "$SHARED/data/models/rknn/retinaface.rv1103.rknn" ]; then
    # the lite container's graph decodes (docs/rknn-format.md): a predicted profile
    expect 0 "" -- "$RT" run "$SHARED/data/models/rknn/retinaface.rv1103.rknn" --no-db
    grep -q "92 compiled layers" "$T/out" && ok || bad "rv1103 lite file: no predicted profile of its 92 layers"
fi
# An op outside the supported set names the op and the node.
NZ=/usr/share/libonnx-testdata/data/node/test_nonzero_example/model.onnx
[ -f "$NZ" ] && expect 2 "unsupported op 'NonZero'" -- "$RT" run "$NZ" --no-db
expect 1 "got 'x=1,3,0'" -- "$RT" run tests/data/models/ppocr_mobile_v2.0_cls.onnx --shape x=1,3,0 --no-db
# Dynamic dims need --shape; the message says so.
expect 2 "--shape" -- "$RT" run tests/data/models/ppocr_mobile_v2.0_cls.onnx --no-db
# Inputs of the wrong shape, dtype or name.
$PY -c "import numpy as np; np.save('$T/in_bad_shape.npy', np.zeros((1,1,27,28), np.float32)); np.save('$T/in_f64.npy', np.zeros((1,1,28,28))); np.save('$T/in.npy', np.random.default_rng(1).random((1,1,28,28), dtype=np.float32))"
expect 2 "Input3" -- "$RT" run "$MNIST" -i Input3="$T/in_bad_shape.npy" --no-db
expect 2 "float64" -- "$RT" run "$MNIST" -i Input3="$T/in_f64.npy" --no-db
expect 1 "no input named 'nosuch'" -- "$RT" run "$MNIST" -i nosuch="$T/in.npy" --no-db
printf 'not an npy' >"$T/junk.npy"
expect 2 "junk.npy" -- "$RT" run "$MNIST" -i Input3="$T/junk.npy" --no-db

# --- a run with dumps, recorded in the store -------------------------------------
DB=$T/runs.db
expect 0 "" -- "$RT" run "$MNIST" -i Input3="$T/in.npy" --dump "$T/dump" --db "$DB" --label first --json
cp "$T/out" "$T/run.json"
$PY - "$T" "$MNIST" <<'PYEOF' && ok || bad "dump folder / run json"
import hashlib, json, os, sys
import numpy as np
t, model = sys.argv[1], sys.argv[2]
run = json.load(open(f"{t}/run.json"))
for k in ("schema_version", "run_id", "model", "platform", "backend", "layers", "npu", "host"):
    assert k in run, k
assert run["schema_version"] == 1 and run["kind"] == "run" and run["host"]["median_us"] > 0
assert run["platform"] == "rk3588" and run["backend"] == "sim"
assert run["model_sha256"] == hashlib.sha256(open(model, "rb").read()).hexdigest()
idx = json.load(open(f"{t}/dump/index.json"))
for e in idx:
    for k in ("layer", "node", "op", "name", "file", "shape", "dtype"):
        assert k in e, (k, e)
    a = np.load(os.path.join(f"{t}/dump", e["file"]))
    assert list(a.shape) == e["shape"] and str(a.dtype) == e["dtype"], e
layers = [e for e in idx if e["layer"] >= 0]
assert len({e["layer"] for e in layers}) == len(run["layers"]), (len(layers), len(run["layers"]))
names = {e["name"] for e in idx}
assert "Plus214_Output_0" in names  # the graph output
inp = [e for e in idx if e["layer"] < 0]
assert len(inp) == 1 and np.array_equal(np.load(os.path.join(f"{t}/dump", inp[0]["file"])), np.load(f"{t}/in.npy"))
PYEOF

# The same label twice is refused, and the first run is kept.
expect 2 "label .first. is already used by run 1" -- "$RT" run "$MNIST" --db "$DB" --label first
RKNN_TRACE_DB=$DB expect 0 "" -- "$RT" run "$MNIST" --seed 7 --label second
expect 0 "" -- "$RT" ls --db "$DB" --json
$PY - "$T/out" <<'PYEOF' && ok || bad "ls --json"
import json, sys
runs = json.load(open(sys.argv[1]))
assert [r["label"] for r in runs] == ["first", "second"] or sorted(r["label"] for r in runs) == ["first", "second"], runs
for r in runs:
    for k in ("id", "label", "time", "model", "platform", "backend"):
        assert k in r, k
PYEOF
expect 0 "" -- "$RT" show first --db "$DB" --json
$PY - "$T/out" "$T/run.json" <<'PYEOF' && ok || bad "show --json"
import json, sys
show, run = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert show["id"] == run["run_id"] and show["label"] == "first"
assert [l["op"] for l in show["layers"]] == [l["op"] for l in run["layers"]]
assert [l["node"] for l in show["layers"]] == [l["node"] for l in run["layers"]]
# a layer fused into its conv (MNIST's bias Add and Relu) has no time of its own
assert all(l["host_us"] is None or l["host_us"] >= 0 for l in show["layers"])
assert all(l["host_us"] >= 0 for l in show["layers"] if l["op"] in ("Conv", "MaxPool", "MatMul"))
assert [l["op"] for l in show["layers"] if l["host_us"] is None] == ["Add", "Relu"] * 2
PYEOF
RUNID=$($PY -c "import json;print(json.load(open('$T/run.json'))['run_id'])")
expect 0 "" -- "$RT" show "$RUNID" --db "$DB"
grep -q "Plus214_Output_0" "$T/out" && ok || bad "show text lacks the output"
expect 2 "no run" -- "$RT" show nosuchrun --db "$DB"
# -q aliases run, are costed and are stored under the canonical name; others are refused
expect 0 "" -- "$RT" run "$MNIST" -q int8 --db "$DB" --label alias-int8 --json
cp "$T/out" "$T/int8.json"
expect 0 "" -- "$RT" run "$MNIST" -q i8 --no-db --json
cp "$T/out" "$T/i8.json"
expect 0 "" -- "$RT" run "$MNIST" -q float16 --no-db --json
cp "$T/out" "$T/float16.json"
expect 0 "" -- "$RT" run "$MNIST" -q fp16 --no-db --json
$PY - "$T/int8.json" "$T/i8.json" "$T/float16.json" "$T/out" <<'PYEOF' && ok || bad "-q aliases"
import json, sys
a, b, c, d = (json.load(open(p)) for p in sys.argv[1:])
assert a["quant"] == b["quant"] == "i8" and c["quant"] == d["quant"] == "fp16", (a["quant"], c["quant"])
assert a["npu"]["predicted_us"] == b["npu"]["predicted_us"] != d["npu"]["predicted_us"]
assert c["npu"]["predicted_us"] == d["npu"]["predicted_us"]
PYEOF
expect 0 "" -- "$RT" ls --db "$DB" --quant i8
grep -q "alias-int8" "$T/out" && ok || bad "ls --quant i8 finds a -q int8 run"
expect 0 "" -- "$RT" ls --db "$DB" --quant int8
grep -q "alias-int8" "$T/out" && ok || bad "ls --quant int8 finds it too"
expect 1 "-q takes fp32, fp16 or i8" -- "$RT" run "$MNIST" -q uint8 --no-db
# A database that is not ours, and a text file, are refused; neither is modified.
$PY -c "import sqlite3; c=sqlite3.connect('$T/other.db'); c.execute('create table t(x)'); c.commit()"
cp "$T/other.db" "$T/other.orig"
expect 2 "not an rknn-trace database" -- "$RT" run "$MNIST" --db "$T/other.db"
cmp -s "$T/other.db" "$T/other.orig" && ok || bad "foreign database was modified"
echo "hello" >"$T/text.db"
expect 2 "text.db" -- "$RT" ls --db "$T/text.db"

# No database yet: an empty list, not an error.
expect 0 "" -- "$RT" ls --db "$T/none.db" --json
[ "$(cat "$T/out")" = "[]" ] && [ ! -e "$T/none.db" ] && ok || bad "ls on a missing database"

# --- the NPU model in a run -------------------------------------------------------
# a planted link where the load node's folder should be: a warning, the run goes on
mkdir -p "$T/sysbad" "$T/away"; ln -s "$T/away" "$T/sysbad/rknpu"
RKNN_TRACE_SYSFS=$T/sysbad expect 0 "warning: NPU load not published: .*symbolic link" -- \
    "$RT" run "$MNIST" --no-db
[ ! -e "$T/away/load" ] && ok || bad "load written through a planted link"
expect 1 "core" -- "$RT" run "$MNIST" --core-mask 8 --no-db
expect 1 "core" -- "$RT" run "$MNIST" -t rk3566 --core-mask 2 --no-db
RKNN_TRACE_SYSFS=$T/sysfs expect 0 "" -- "$RT" run "$MNIST" -t rk3588 --core-mask 7 --no-db --json
$PY - "$T/out" "$T/sysfs/rknpu/load" <<'PYEOF' && ok || bad "npu summary in run --json / published load"
import json, re, sys
run = json.load(open(sys.argv[1]))
npu = run["npu"]
assert run["platform"] == "rk3588" and npu["predicted_us"] > 0 and npu["clock_mhz"] == 1000
assert abs(sum(npu["share"][k] for k in ("compute", "DDR", "CPU")) - 100) < 0.01, npu["share"]
assert npu["share"]["uncounted"] is None, npu["share"]  # a prediction costs every layer
assert all(l["target"] in ("NPU", "CPU") for l in run["layers"])
# Every layer row carries its NPU layer's OpType; the output's node carries figures.
assert all(l["npu_op"] for l in run["layers"])
out = [l for l in run["layers"] if l["name"] == "Plus214_Output_0"]
assert out and out[0]["frame_us"] > 0 and out[0]["npu_dtype"] == "FLOAT16", out
text = open(sys.argv[2]).read()
m = re.fullmatch(r"NPU load:  Core0: *(\d+)%, Core1: *(\d+)%, Core2: *(\d+)%,\n", text)
assert m and len(npu["load"]) == 3 and [int(g) for g in m.groups()] == npu["load"], (text, npu["load"])
PYEOF
expect 1 "no NPU SRAM" -- "$RT" run "$MNIST" -t rk3566 --sram --no-db
UF=tests/data/models/ultraface_version-RFB-320.onnx
expect 0 "" -- "$RT" run "$UF" --no-db --json
cp "$T/out" "$T/nosram.json"
expect 0 "" -- "$RT" run "$UF" --no-db --json --sram
$PY - "$T/nosram.json" "$T/out" <<'PYEOF' && ok || bad "--sram: SRAM used, less DDR traffic, no slower"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
na, nb = a["npu"], b["npu"]
assert na["sram_saved_kb"] == 0 and nb["sram_saved_kb"] > 0, (na["sram_saved_kb"], nb["sram_saved_kb"])
ddr = [sum(l["ddr_cycles"] or 0 for l in x["layers"]) for x in (a, b)]
assert ddr[1] < ddr[0] and nb["predicted_us"] <= na["predicted_us"], (ddr, na["predicted_us"], nb["predicted_us"])
assert sum(l["npu_cycles"] or 0 for l in a["layers"]) == sum(l["npu_cycles"] or 0 for l in b["layers"])
PYEOF
# the on-chip buffer is named for what the chip has: SRAM (rk3588), nbuf (rk3562), neither (rk3566)
for t in rk3588 rk3562 rk3566; do
    expect 0 "" -- "$RT" run "$MNIST" -t $t --no-db --json
    cp "$T/out" "$T/onchip-$t.json"
    expect 0 "" -- "$RT" run "$MNIST" -t $t --no-db
    cp "$T/out" "$T/onchip-$t.txt"
done
$PY - "$T" <<'PYEOF' && ok || bad "SRAM figures only for chips with SRAM"
import json, sys
d = sys.argv[1]
j = {t: json.load(open(f"{d}/onchip-{t}.json"))["npu"] for t in ("rk3588", "rk3562", "rk3566")}
txt = {t: open(f"{d}/onchip-{t}.txt").read() for t in j}
assert j["rk3588"]["sram_saved_kb"] == 0 and j["rk3588"]["nbuf_saved_kb"] is None
assert j["rk3562"]["sram_saved_kb"] is None and j["rk3562"]["nbuf_saved_kb"] > 0
assert j["rk3566"]["sram_saved_kb"] is None and j["rk3566"]["nbuf_saved_kb"] is None
assert "SRAM saves 0.0 KB" in txt["rk3588"]
assert "nbuf saves %.1f KB" % j["rk3562"]["nbuf_saved_kb"] in txt["rk3562"] and "SRAM saves" not in txt["rk3562"]
assert "no SRAM or nbuf on rk3566" in txt["rk3566"] and "SRAM saves" not in txt["rk3566"]
PYEOF
expect 0 "" -- "$RT" run "$MNIST" --npu-table --no-db
grep -q "Total Operator Elapsed Per Frame Time(us)" "$T/out" && ok || bad "--npu-table prints the level-4 table"

# --- input validation, images, suggestions, colour (tests/cli/run_inputs.sh) ------
. tests/cli/run_inputs.sh

# --- info -------------------------------------------------------------------------
expect 0 "" -- "$RT" info
grep -q "Conv" "$T/out" && grep -q "LD_LIBRARY_PATH" "$T/out" && ok || bad "info output"
# installed layout (make install): the runtime under PREFIX/lib/rknn-trace/, never on
# the default library path, and info points there with the LD_LIBRARY_PATH line
make -s -n install PREFIX=/opt/rt BUILD="$B" 2>/dev/null | grep '^install.*librknnrt\.so' >"$T/install.txt"
grep -q " /opt/rt/lib/rknn-trace/$" "$T/install.txt" && [ "$(wc -l <"$T/install.txt")" -eq 1 ] && ok ||
    bad "make install must put librknnrt.so in PREFIX/lib/rknn-trace/ only: $(cat "$T/install.txt")"
mkdir -p "$T/inst/bin" "$T/inst/lib/rknn-trace"
cp "$RT" "$T/inst/bin/" && cp "$B/librknnrt.so" "$T/inst/lib/rknn-trace/"
expect 0 "" -- "$T/inst/bin/rknn-trace" info
grep -q "runtime    $(cd "$T/inst/lib/rknn-trace" && pwd -P)/librknnrt.so" "$T/out" &&
    grep -q "LD_LIBRARY_PATH=$(cd "$T/inst/lib/rknn-trace" && pwd -P)\${LD_LIBRARY_PATH" "$T/out" && ok ||
    bad "installed info: $(grep -A1 runtime "$T/out")"

# Which librknnrt.so a process would load: ours when selected, another one
# (a stand-in built here with the vendor's entry point) when that comes first.
LD_LIBRARY_PATH=$(cd "$B" && pwd) expect 0 "" -- "$RT" info
grep -q "would load .*librknnrt.so (this simulated runtime)" "$T/out" && ok || bad "info: ours selected"
mkdir -p "$T/vendor"
printf 'int rknn_init(void *c, void *m, unsigned s, unsigned f, void *e) { return -1; }\n' >"$T/vendor/v.c"
if cc -shared -fPIC -o "$T/vendor/librknnrt.so" "$T/vendor/v.c" 2>/dev/null; then
    LD_LIBRARY_PATH=$T/vendor expect 0 "" -- "$RT" info
    grep -q "would load $T/vendor/librknnrt.so (another runtime" "$T/out" && ok || bad "info: another runtime first"
fi

# --- --npu-mhz / --ddr-mhz: the prediction at other clocks -----------------------
# time = (npu_cycles * t_npu + ddr_cycles * t_ddr) * share / npu_mhz + t_layer
# (docs/npu-model.md) with ddr_cycles counted in NPU clocks: at half the NPU
# clock the NPU cycles stay and the DDR cycles halve, and the clock-dependent
# part of a compute-bound layer's time doubles, so t(250) - t(500) is twice
# t(500) - t(1000). At half the DDR clock a DDR-bound layer's DDR cycles double.
for c in 1000 500 250; do
    expect 0 "" -- "$RT" run "$MNIST" --no-db --json -n 1 --warmup 0 --npu-mhz $c
    cp "$T/out" "$T/clk$c.json"
done
expect 0 "" -- "$RT" run "$MNIST" --no-db --json -n 1 --warmup 0
cp "$T/out" "$T/clkdef.json"
expect 0 "" -- "$RT" run "$MNIST" --json -n 1 --warmup 0 --ddr-mhz 1056 --db "$T/clk.db" --label ddrhalf
cp "$T/out" "$T/ddr1056.json"
$PY - "$T" <<'PYEOF' && ok || bad "--npu-mhz / --ddr-mhz predictions"
import json, sys
t = sys.argv[1]
ld = lambda n: json.load(open(f"{t}/{n}.json"))
d, a, b, c, h = ld("clkdef"), ld("clk1000"), ld("clk500"), ld("clk250"), ld("ddr1056")
key = lambda r: [(l["npu_cycles"], l["ddr_cycles"], l["time_us"]) for l in r["layers"]]
assert key(d) == key(a), "--npu-mhz 1000 is the rk3588 default"
assert (d["npu"]["clock_mhz"], b["npu"]["clock_mhz"]) == (1000, 500), (d["npu"]["clock_mhz"], b["npu"]["clock_mhz"])
n_comp = n_ddr = 0
for la, lb, lc, lh in zip(a["layers"], b["layers"], c["layers"], h["layers"]):
    if la["npu_cycles"] is None:
        continue
    assert la["npu_cycles"] == lb["npu_cycles"] == lc["npu_cycles"] == lh["npu_cycles"], la
    assert abs(lb["ddr_cycles"] - la["ddr_cycles"] / 2) <= 1, (la, lb)
    if la["bound"] == "compute":
        n_comp += 1
        d1, d2 = lb["time_us"] - la["time_us"], lc["time_us"] - lb["time_us"]
        assert d1 > 0 and abs(d2 / d1 - 2) < 0.02, (la["time_us"], lb["time_us"], lc["time_us"])
    if la["bound"] == "DDR":
        n_ddr += 1
        assert abs(lh["ddr_cycles"] - 2 * la["ddr_cycles"]) <= 2, (la, lh)
        assert lh["time_us"] > la["time_us"], (la, lh)
assert n_comp >= 2 and n_ddr >= 2, (n_comp, n_ddr)
import sqlite3
clk = sqlite3.connect(f"{t}/clk.db").execute(
    "SELECT npu_clock_mhz, ddr_clock_mhz FROM runs WHERE label = 'ddrhalf'").fetchone()
assert clk == (1000, 1056), clk
PYEOF
for bad_clk in 0 -5 abc 1.5 20000 ""; do
    expect 1 "bad clock" -- "$RT" run "$MNIST" --no-db --npu-mhz "$bad_clk"
done
expect 1 "bad clock" -- "$RT" run "$MNIST" --no-db --ddr-mhz 5
expect 1 "set the clocks of a prediction" -- "$RT" run "$MNIST" --no-db --backend board --npu-mhz 500
# the help read whole first: grep -q would close the pipe early (SIGPIPE under pipefail)
run_help=$("$RT" run --help)
grep -q -- "--npu-mhz N .*NPU clock" <<<"$run_help" && grep -q -- "--ddr-mhz N .*DDR clock" <<<"$run_help" \
    && ok || bad "run --help lacks --npu-mhz/--ddr-mhz"

# the same on a vendor .rknn (cli/run_rknn.c)
RKC="$SHARED/data/models/rknn/multiple_input_demo.rk3588.rknn"
if [ -f "$RKC" ]; then
    for c in 1000 500 250; do
        expect 0 "" -- "$RT" run "$RKC" --no-db --json --npu-mhz $c
        cp "$T/out" "$T/rk$c.json"
    done
    expect 0 "" -- "$RT" run "$RKC" --no-db --json --ddr-mhz 1056
    cp "$T/out" "$T/rkddr.json"
    $PY - "$T" <<'PYEOF' && ok || bad ".rknn --npu-mhz / --ddr-mhz predictions"
import json, sys
t = sys.argv[1]
a, b, c, h = (json.load(open(f"{t}/{n}.json")) for n in ("rk1000", "rk500", "rk250", "rkddr"))
assert b["npu"]["clock_mhz"] == 500, b["npu"]["clock_mhz"]
n = 0
for la, lb, lc, lh in zip(a["layers"], b["layers"], c["layers"], h["layers"]):
    if la["bound"] != "compute":
        continue
    n += 1
    assert la["npu_cycles"] == lb["npu_cycles"] == lc["npu_cycles"] == lh["npu_cycles"] > 0, la
    assert abs(lb["ddr_cycles"] - la["ddr_cycles"] / 2) <= 1, (la, lb)
    assert abs(lh["ddr_cycles"] - 2 * la["ddr_cycles"]) <= 2, (la, lh)
    d1, d2 = lb["time_us"] - la["time_us"], lc["time_us"] - lb["time_us"]
    assert d1 > 0 and abs(d2 / d1 - 2) < 0.02, (la["time_us"], lb["time_us"], lc["time_us"])
assert n >= 2, n
PYEOF
    expect 1 "bad clock" -- "$RT" run "$RKC" --no-db --ddr-mhz 99999
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
