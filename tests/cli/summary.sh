#!/usr/bin/env bash
# tests/cli/summary.sh [BUILD] — the one run summary and its JSON schema
# (docs/json.md): run and show print the same text and the same document,
# show --npu-table rebuilds the level-4 table `run --npu-table` printed, ls
# filters and sorts (checked against Python over ls --json), compare over three
# runs with a collapsed output, unknown runs exit 2, and JSON output stays valid
# for invalid UTF-8 labels and corrupted stored JSON (Python's strict parser).
source "$(dirname "$0")/../quant/harness.sh" "$@"
M=tests/data/models/mnist.onnx
DB=$T/s.db

# --- run and show: one text, one document --------------------------------------
expect_rc 0 "run fp32" "$R" run "$M" --db "$DB" --label f32 --dump "$T/d32" --npu-table
cp "$T/out" "$T/run.txt"
expect_rc 0 "show f32" "$R" show f32 --db "$DB"
# run printed the level-4 table first; the summary after it is show's text, byte for byte
$PY - "$T/run.txt" "$T/out" <<'PYEOF' && ok || bad "run text == show text"
import sys
run, show = open(sys.argv[1]).read(), open(sys.argv[2]).read()
assert show.startswith("run       #1 f32"), show[:200]
assert run.endswith(show) and len(show) > 500, (len(run), len(show))
assert "predicted " in show and "this PC's CPU, not the board" in show and "n/a" not in show.split("host")[0]
PYEOF
expect_rc 0 "run --json" "$R" run "$M" --db "$DB" --label f32j --json
cp "$T/out" "$T/run.json"
expect_rc 0 "show --json" "$R" show f32j --db "$DB" --json
$PY - "$T/run.json" "$T/out" <<'PYEOF' && ok || bad "run --json == show --json"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a == b, [k for k in a if a[k] != b.get(k)]
assert a["schema_version"] == 1 and a["kind"] == "run" and a["id"] == a["run_id"] == 2
# missing is null, never 0: an fp32 run has no accuracy; every NPU figure is a number
assert a["accuracy"] is None and a["npu"]["predicted_us"] > 0 and a["npu"]["clock_mhz"] == 1000
assert abs(a["npu"]["fps"] * a["npu"]["predicted_us"] - 1e6) < 1e-2
assert a["npu"]["weight_bytes"] > 0 and a["npu"]["internal_bytes"] > 0
frame = sum(l["frame_us"] for l in a["layers"] if l["frame_us"] is not None)
# the rows hold every layer but Input/OutputOperator and exDataConvert (not graph nodes)
assert 0 < frame <= a["npu"]["predicted_us"], (frame, a["npu"]["predicted_us"])
assert abs(frame + a["npu"]["io_us"] - a["npu"]["predicted_us"]) < 1e-6 * frame, (frame, a["npu"]["io_us"])
share = a["npu"]["share"]
ddr = sum(l["frame_us"] for l in a["layers"] if l["frame_us"] is not None and l["bound"] == "DDR")
assert abs(share["DDR"] - 100 * ddr / frame) < 1e-6, (share, ddr, frame)
top = [t["frame_us"] for t in a["npu"]["top"]]
assert top == sorted(top, reverse=True) and top[0] == max(l["frame_us"] or 0 for l in a["layers"])
assert a["npu"]["error_band"]["source"]
assert a["host"]["median_us"] > 0 and "not the board" in a["host"]["note"]
PYEOF
# the error band the summary quotes is what bench/npu_models.sh measures now
# (with ppocrv4_rec; without npm or network the bench skips it and so does this)
bash bench/npu_models.sh "$B" > "$T/band.txt" 2>&1
$PY - "$T/run.json" "$T/band.txt" <<'PYEOF' && ok || bad "error band == bench/npu_models.sh"
import json, re, sys
band = json.load(open(sys.argv[1]))["npu"]["error_band"]
bench = open(sys.argv[2]).read()
if "ppocrv4_rec " in bench:
    pairs = int(re.search(r"^(\d+) model/chip pairs;", bench, re.M).group(1))
    within, mean = re.search(r"^left out of the fit: (\d+) \(mean \|err\| ([\d.]+)%\)", bench, re.M).groups()
    assert (band["pairs"], band["pairs_within"]) == (pairs, int(within)), (band, pairs, within)
    assert abs(band["mean_abs_pct"] - float(mean)) < 0.05, (band, mean)
else:
    assert 0 < band["pairs_within"] <= band["pairs"], band
PYEOF
# --no-db prints the same document with no id and the time of the run
expect_rc 0 "run --no-db --json" "$R" run "$M" --no-db --json
$PY - "$T/run.json" "$T/out" <<'PYEOF' && ok || bad "--no-db document"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert b["id"] is None and b["run_id"] is None and b["label"] is None
for k in ("time", "id", "run_id", "label", "host", "layers"):
    a.pop(k); b.pop(k)
assert a == b, [k for k in a if a[k] != b.get(k)]
PYEOF

# --- show --npu-table: the vendor table rebuilt from the rows ------------------------
# Byte for byte the table `run --npu-table` printed (the timestamp prefix of a
# vendor .rknn's table removed), Input/OutputOperator rows and the three convs a
# GlobalAveragePool is lowered to included; the summary's "level-4 table total"
# is the table's Total line, and the Total is the sum of the rows' Time column.
npu_table_same() { # what, run output, show --npu-table output
    $PY - "$2" "$3" <<'PYEOF' && ok || bad "$1: show --npu-table == run --npu-table"
import re, sys
run, show = open(sys.argv[1]).read(), open(sys.argv[2]).read()
run = re.sub(r"(?m)^I RKNN: \[[0-9:.]+\] ", "", run)
body, note = show.rsplit("\n", 2)[0] + "\n", show.rsplit("\n", 2)[1]
assert re.fullmatch(r"\(rebuilt from the stored rows of run #\d+\)", note), note
assert run.startswith(body), (run[:3000], body)
tot = int(re.search(r"Total Operator Elapsed Per Frame Time\(us\): (\d+)", body).group(1))
rows = [l.split() for l in body.splitlines() if re.match(r"\d+ +\S+ +\S+ +(NPU|CPU) ", l)]
assert rows and tot == sum(int(r[7]) for r in rows), (tot, rows)
m = re.search(r"level-4 table total ([0-9.]+) ms", run)
assert m and abs(float(m.group(1)) * 1000 - tot) < 0.5, (m and m.group(1), tot)
print(len(rows), "rows", file=sys.stderr)
PYEOF
}
expect_rc 0 "show --npu-table" "$R" show f32 --db "$DB" --npu-table
npu_table_same "mnist fp32" "$T/run.txt" "$T/out"
grep -q "^1 *InputOperator" "$T/out" && ok || bad "mnist: InputOperator row rebuilt"
$PY tests/cli/make_models.py "$T" || bad "make_models.py"
expect_rc 0 "run gap fp16" "$R" run "$T/gap.onnx" -t rk3588 -q fp16 --npu-table --db "$T/npu.db" --label gap -n 2 --no-progress
cp "$T/out" "$T/gap.txt"
expect_rc 0 "show gap --npu-table" "$R" show gap --db "$T/npu.db" --npu-table
npu_table_same "GlobalAveragePool split into convs" "$T/gap.txt" "$T/out"
[ "$(grep -c "Conv:GlobalAveragePool_2_2conv[012]" "$T/out")" = 3 ] && ok || bad "gap: three convs rebuilt"
expect_rc 0 "run gap 3 cores" "$R" run "$T/gap.onnx" -t rk3588 -q i8 --core-mask 7 --npu-table --db "$T/npu.db" --label gap3 -n 2 --no-progress
cp "$T/out" "$T/gap3.txt"
expect_rc 0 "show gap3 --npu-table" "$R" show gap3 --db "$T/npu.db" --npu-table
npu_table_same "three cores" "$T/gap3.txt" "$T/out"
RK=${RT_SHARED:-../shared}/data/models/rknn/multiple_input_demo.rk3588.rknn
if [ -f "$RK" ]; then
    expect_rc 0 "run .rknn" "$R" run "$RK" --npu-table --db "$T/npu.db" --label vend
    cp "$T/out" "$T/vend.txt"
    expect_rc 0 "show .rknn --npu-table" "$R" show vend --db "$T/npu.db" --npu-table
    npu_table_same "vendor .rknn" "$T/vend.txt" "$T/out"
else
    bad "missing $RK"
fi

# --- ls: columns, filters, sort, limit (oracle: Python over ls --json) ---------------
expect_rc 0 "run i8 mmse" "$R" run "$M" --db "$DB" --label q-mmse -q i8 --quant-algo mmse --json
cp "$T/out" "$T/q.json"
expect_rc 0 "show i8 --json" "$R" show q-mmse --db "$DB" --json
$PY - "$T/q.json" "$T/out" <<'PYEOF' && ok || bad "quantized run: run --json == show --json"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a == b, [k for k in a if a[k] != b.get(k)]
acc = a["accuracy"]
assert acc["quant_algo"] == "mmse" and acc["calibration_samples"] == 1 and acc["int8_layers"] > 0, acc
out = [r for r in acc["layers"] if r["output"]]
assert len(out) == 1 and acc["output_cos"] == out[0]["entire"]["cos"] == a["outputs"][0]["cos"]
assert a["outputs"][0]["state"] == "ok" and a["outputs"][0]["problem"] is None
PYEOF
expect_rc 0 "run i8 layer" "$R" run "$M" --db "$DB" --label q-layer -q i8 --quant-method layer -t rk3566
expect_rc 0 "run fp16 rk3566" "$R" run "$M" --db "$DB" --label h16 -q fp16 -t rk3566
expect_rc 0 "ls --json" "$R" ls --db "$DB" --json
cp "$T/out" "$T/all.json"
lsq() { # expected-ids-python-expr, ls options...
    local want=$1; shift
    "$R" ls --db "$DB" --json "$@" >"$T/ls.json" 2>"$T/err" || { bad "ls $*: $(cat "$T/err")"; return; }
    $PY - "$T/all.json" "$T/ls.json" "$want" <<'PYEOF' && ok || bad "ls $*"
import json, sys
runs, got = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
want = eval(sys.argv[3])
assert [r["id"] for r in got] == want, ([r["id"] for r in got], want)
assert all(r["schema_version"] == 1 for r in got)
PYEOF
}
lsq '[r["id"] for r in runs if r["platform"] == "rk3566"]' --platform rk3566
lsq '[r["id"] for r in runs if r["quant"] == "i8"]' --quant i8
lsq '[r["id"] for r in runs if r["quant"] == "i8" and r["quant_algo"] == "mmse"]' --quant i8/mmse
lsq '[r["id"] for r in runs if r["quant_method"] == "layer"]' --quant i8/normal/layer
lsq '[r["id"] for r in runs if r["label"].startswith("q-")]' --label 'q-*'
lsq '[r["id"] for r in runs]' --model mnist.onnx
lsq '[]' --model 'yolo*'
lsq '[r["id"] for r in runs]' --since 2020-01-01
lsq '[]' --since 2999-12-31T00:00
lsq '[r["id"] for r in sorted(runs, key=lambda r: -r["id"])][:2]' --sort -id --limit 2
lsq '[r["id"] for r in sorted(runs, key=lambda r: (r["npu_us"], r["id"]))]' --sort npu
lsq '[r["id"] for r in sorted(runs, key=lambda r: (r["output_cos"] is None, -(r["output_cos"] or 0), r["id"]))]' --sort -cos
$PY - "$T/all.json" <<'PYEOF' && ok || bad "ls --json figures"
import json, sys
runs = {r["label"]: r for r in json.load(open(sys.argv[1]))}
assert runs["f32"]["output_cos"] is None and runs["f32"]["output_sqnr_db"] is None
q = runs["q-mmse"]
assert 0.99 < q["output_cos"] <= 1 and q["output_sqnr_db"] > 10 and q["collapsed_outputs"] == 0, q
assert all(r["npu_us"] > 0 and r["host_median_us"] > 0 for r in runs.values())
PYEOF
expect_rc 0 "ls text" "$R" ls --db "$DB" --quant i8/mmse
grep -q "q-mmse .* i8/mmse/channel " "$T/out" && grep -q "NPU pred ms board ms host PC ms" "$T/out" &&
    [ "$(grep -c mnist "$T/out")" = 1 ] && ok || bad "ls text: $(cat "$T/out")"

# ls text: each time in the column its provenance names, marked when it is not
# the column's plain meaning (a simulated-library or Toolkit2 time), with a legend.
# A board run through the stand-in runtime; two sim runs relabelled simlib and
# toolkit in the database (the backend alone decides the timing's provenance).
PDB=$T/prov.db
for l in ps pl pt; do
    expect_rc 0 "sim run $l" "$R" run "$M" --backend sim -n 2 --no-progress --db "$PDB" --label $l
done
expect_rc 0 "board run" env RKNN_TRACE_SYSFS="$T/sysfs" "$R" run "$M" --backend board \
    --runtime "$B/librknnrt.so" -t rk3588 -n 2 --label pb --db "$PDB"
sqlite3 "$PDB" "update runs set backend='simlib' where label='pl'; update runs set backend='toolkit' where label='pt'"
expect_rc 0 "ls --json prov" "$R" ls --db "$PDB" --json
cp "$T/out" "$T/prov.json"
expect_rc 0 "ls text prov" "$R" ls --db "$PDB"
$PY - "$T/prov.json" "$T/out" <<'PYEOF' && ok || bad "ls provenance columns: $(cat "$T/out")"
import json, sys
runs = {r["label"]: r for r in json.load(open(sys.argv[1]))}
lines = open(sys.argv[2]).read().splitlines()
head = lines[0]
# right-aligned columns: a cell ends where its title ends
end = {t: head.index(t) + len(t) for t in ("NPU pred ms", "board ms", "host PC ms")}
cell = lambda ln, t: ln[:end[t]].split()[-1]
rows = {ln.split()[1]: ln for ln in lines[1:] if ln[:5].strip().isdigit()}
want_tim = {"ps": "host", "pl": "simlib", "pt": "toolkit", "pb": "board"}
mark = {"host": "", "simlib": "*", "toolkit": "^"}
for lab, tim in want_tim.items():
    r, ln = runs[lab], rows[lab]
    assert r["provenance"]["timing"] == tim, (lab, r["provenance"])
    ms = lambda us: "%.3f" % (us / 1e3)
    if tim == "board":
        assert cell(ln, "board ms") == ms(r["board_us"]) and cell(ln, "host PC ms") == "n/a", ln
    else:
        assert cell(ln, "host PC ms") == ms(r["host_median_us"]) + mark[tim], ln
        assert cell(ln, "board ms") == "n/a", ln
    if r["npu_us"] is not None:
        assert cell(ln, "NPU pred ms") == ms(r["npu_us"]), ln
legend = [ln for ln in lines if not ln[:5].strip().isdigit()][1:]
assert legend == [
    "* host PC ms: this project's simulated librknnrt.so on this PC, not the board (simlib)",
    "^ host PC ms: Toolkit2's simulator on a PC, not the board (toolkit)"], legend
PYEOF
# no legend when no time is marked
expect_rc 0 "ls text sim only" "$R" ls --db "$PDB" --label ps
[ "$(wc -l <"$T/out")" = 2 ] && ! grep -q "host PC ms:" "$T/out" && ok || bad "ls legend without marks: $(cat "$T/out")"
expect_rc 1 "ls bad --since" "$R" ls --db "$DB" --since yesterday
expect_rc 1 "ls bad --sort" "$R" ls --db "$DB" --sort speed
expect_rc 1 "ls stray argument" "$R" ls --db "$DB" f32

# --sort on text: the model column as ls shows it (an imported log's path when
# there is no model), runs without the value last in both directions
SDB=$T/sort.db
expect_rc 0 "sort run b" "$R" run "$M" -n 1 --no-progress --db "$SDB" --label b
expect_rc 0 "sort run unlabelled" "$R" run "$M" -n 1 --no-progress --db "$SDB"
expect_rc 0 "sort run a" "$R" run "$M" -n 1 --no-progress --db "$SDB" --label a
expect_rc 0 "sort import" "$R" import --db "$SDB" tests/data/logs/perf-level4-int8-yolov10-rk3588-800mhz-yolov10issue115-zhouzq-02.txt
for s in label -label model -model; do
    "$R" ls --db "$SDB" --json --sort $s >"$T/ls.json" 2>"$T/err" || bad "ls --sort $s: $(cat "$T/err")"
    $PY - "$T/ls.json" "$s" <<'PYEOF' && ok || bad "ls --sort $s"
import json, sys
got, s = json.load(open(sys.argv[1])), sys.argv[2]
field = s.lstrip("-")
key = (lambda r: r["label"]) if field == "label" else (lambda r: r["model"] or r["log_file"])
# ties by id, ascending either way (a stable sort keeps them so when reversed)
known = sorted(sorted((r for r in got if key(r)), key=lambda r: r["id"]), key=key, reverse=s[0] == "-")
unknown = sorted((r for r in got if not key(r)), key=lambda r: r["id"])
assert len(got) == 4 and len(unknown) == (2 if field == "label" else 0), got
assert [r["id"] for r in got] == [r["id"] for r in known + unknown], ([r["id"] for r in got], s)
PYEOF
done

# --- compare over three runs, one with a collapsed output -----------------------------
"$R" run "$M" -q i8 --no-db --write-quant-cfg "$T/q.cfg" >/dev/null 2>&1
$PY - "$T/q.cfg" "$T/bad.cfg" <<'PYEOF' || bad "collapsing cfg"
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
v = c["quantize_parameters"]["Plus214_Output_0"]
# one int8 step wider than any logit: every output quantizes to the zero point
v.update(scale=[1e6], zero_point=[0], min=[-1.28e8], max=[1.27e8])
yaml.safe_dump(c, open(sys.argv[2], "w"))
PYEOF
expect_rc 0 "run i8 --dump" "$R" run "$M" --db "$DB" --label q8 -q i8 --dump "$T/d8"
expect_rc 0 "run collapsed" "$R" run "$M" --db "$DB" --label dead -q i8 --hybrid "$T/bad.cfg" --dump "$T/dd"
grep -q "output 'Plus214_Output_0' is constant (collapsed)" "$T/out" && ok || bad "run names the collapse"
expect_rc 3 "compare 3 runs, cos gate" "$R" compare f32 q8 dead --db "$DB" --fail-if-cos-below 0.9
cp "$T/out" "$T/cmp.txt"
grep -q "GATE FAILED: run #.* dead: output 'Plus214_Output_0' is constant (collapsed)" "$T/cmp.txt" &&
    ! grep -qw nan "$T/cmp.txt" && ! grep -q "GATE FAILED: run #.* q8" "$T/cmp.txt" && ok ||
    bad "collapsed output named: $(grep -E 'GATE|nan' "$T/cmp.txt")"
grep -q "^    A  vs golden: n/a (an fp32 run: its outputs are the golden)$" "$T/cmp.txt" && ok ||
    bad "an fp32 baseline's outputs are the golden: $(grep 'vs golden' "$T/cmp.txt")"
expect_rc 3 "compare --json" "$R" compare f32 q8 dead --db "$DB" --fail-if-cos-below 0.9 --json
$PY - "$T/out" "$T/d32" "$T/d8" <<'PYEOF' && ok || bad "compare json: outputs vs baseline (numpy)"
import json, os, sys
import numpy as np
d = json.load(open(sys.argv[1]))
assert [r["label"] for r in d["runs"]] == ["f32", "q8", "dead"] and d["runs"][0]["baseline"]
o = d["outputs"][0]
assert o["name"] == "Plus214_Output_0"
base, q8, dead = o["runs"]
assert base["vs_baseline"] is None and base["problem"] is None
def load(dir):
    idx = json.load(open(os.path.join(dir, "index.json")))
    e = [e for e in idx if e["name"] == "Plus214_Output_0" and e["layer"] >= 0][0]
    return np.load(os.path.join(dir, e["file"])).astype(np.float64).ravel()
a, b = load(sys.argv[2]), load(sys.argv[3])
cos = a @ b / np.linalg.norm(a) / np.linalg.norm(b)
sqnr = 10 * np.log10((a @ a) / ((a - b) @ (a - b)))
v = q8["vs_baseline"]
assert abs(v["cos"] - cos) < 1e-9 and abs(v["sqnr_db"] - sqnr) < 1e-6 and abs(v["max_abs"] - np.abs(a - b).max()) < 1e-6, (v, cos, sqnr)
assert "constant (collapsed)" in dead["problem"] and dead["vs_golden"]["cos"] is None
g = {x["run"]: x["failed"] for x in d["gates"] if x["gate"] == "cos"}
assert [g[r["id"]] for r in d["runs"]] == [False, False, True], g
PYEOF
# speed: rk3566 (one core at 900 MHz... slower NPU) vs rk3588, predicted
expect_rc 3 "slower by prediction" "$R" compare f32 h16 --db "$DB" --fail-if-slower 5
grep -q "GATE FAILED: run #.* h16 is .* slower than the baseline by predicted NPU frame" "$T/out" && ok || bad "predicted gate: $(cat "$T/out" | tail -3)"

# --- unknown runs: exit 2 in every command ---------------------------------------------
expect_rc 2 "show unknown" "$R" show nosuch --db "$DB"
expect_rc 2 "show unknown id" "$R" show 999 --db "$DB"
expect_rc 2 "compare unknown" "$R" compare f32 nosuch --db "$DB"
expect_rc 2 "analyze unknown" "$R" analyze nosuch --golden "$T/d32" --db "$DB"
grep -c . "$T/err" | grep -qx 1 && ok || bad "one-line error: $(cat "$T/err")"

# --- JSON stays valid: invalid UTF-8 labels, corrupted stored JSON ----------------------
expect_rc 0 "latin-1 label" "$R" run "$M" --db "$DB" --label "$(printf 'caf\xe9\x01')"
$PY - "$DB" <<'PYEOF' || bad "corrupt stored json"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE runs SET inputs_json = '[{\"name\": \"x\", ' , extra_json = '{\"npu_load\":[1,2' WHERE label = 'f32'")
db.commit()
PYEOF
expect_rc 0 "ls --json" "$R" ls --db "$DB" --json
$PY - "$T/out" <<'PYEOF' && ok || bad "ls --json valid: $(head -c 300 "$T/out")"
import json, sys
raw = open(sys.argv[1], "rb").read()
runs = json.loads(raw.decode("utf-8"))   # strict: invalid UTF-8 would raise
lab = [r["label"] for r in runs if r["label"].startswith("caf")]
assert lab == ["caf\ufffd\x01"], lab
f = [r for r in runs if r["label"] == "f32"][0]
assert f["inputs"] is None and f["extra"] is None, f
PYEOF
expect_rc 0 "show --json of the corrupted run" "$R" show f32 --db "$DB" --json
$PY -c "import json,sys; d=json.loads(open(sys.argv[1],'rb').read().decode()); assert d['inputs'] is None and d['npu']['load'] is not None" "$T/out" && ok || bad "show --json corrupted (the load is its own column)"

# --- a schema v1 run (figures in extra_json) in an older file is summarised after its
# upgrade: added to a copy of the schema-2 release's database, whose upgrade moves them
cp tests/data/store/v2-release.db "$T/v2.db"
$PY - "$T/v2.db" <<'PYEOF' || bad "v1-style row"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO runs (label, time, model_path, platform, quant, total_us, status, extra_json) VALUES "
           "('old', '2026-01-01T00:00:00Z', 'm.onnx', 'rk3588', 'fp32', 2000, 'ok', "
           "'{\"npu_predicted_us\":1234.5,\"npu_share\":{\"compute\":60.00,\"DDR\":30.00,\"CPU\":10.00},\"npu_load\":[40,0,0],\"dump_dir\":\"/x\"}')")
db.commit()
PYEOF
expect_rc 0 "show v1 --json" "$R" show old --db "$T/v2.db" --json
$PY - "$T/out" <<'PYEOF' && ok || bad "v1 run summary"
import json, sys
d = json.load(open(sys.argv[1]))
n = d["npu"]
assert n["predicted_us"] == 1234.5 and n["share"] == {"compute": 60.0, "DDR": 30.0, "CPU": 10.0, "uncounted": None}, n
assert n["load"] == [40, 0, 0] and n["weight_bytes"] is None and d["host"]["p90_us"] is None
PYEOF
expect_rc 0 "show v1 text" "$R" show old --db "$T/v2.db"
grep -q "predicted 1.234 ms per frame" "$T/out" && grep -q "memory    weights n/a, internal n/a" "$T/out" && ok ||
    bad "v1 text: $(head -12 "$T/out")"

# --- a vendor .rknn's predicted run: no host time, its I/O operators are not fallbacks ---
RK=${RT_SHARED:-../shared}/data/models/rknn/multiple_input_demo.rk3566.tk134.rknn
if [ -f "$RK" ]; then
    expect_rc 0 "run .rknn" "$R" run "$RK" --db "$DB" --label pred
    expect_rc 0 "show pred --json" "$R" show pred --db "$DB" --json
    $PY - "$T/out" <<'PYEOF' && ok || bad "predicted run summary"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["backend"] == "predict" and d["host"]["median_us"] is None, d["host"]
assert d["npu"]["predicted_us"] > 0 and d["npu"]["fallback"]["count"] == 0, d["npu"]["fallback"]
assert any(l["op"] == "InputOperator" and l["target"] == "CPU" for l in d["layers"])
PYEOF
fi

# --- the build a run was made by: recorded, and compare notes another build ---------
expect_rc 0 "run b1" "$R" run "$M" --db "$DB" --label b1 -n 1 --no-progress
expect_rc 0 "run b2" "$R" run "$M" --db "$DB" --label b2 -n 1 --no-progress
# the build's own id (build/gen/build_id.h, from git when it was built): a commit
# of this repository
build=$(sqlite3 "$DB" "select json_extract(env_json, '$.build') from runs where label='b1'")
made=$(sed -n 's/^#define RKNN_TRACE_BUILD "\(.*\)"$/\1/p' "$B/gen/build_id.h" 2>/dev/null)
if [ -n "$made" ]; then
    [ "$build" = "$made" ] && git cat-file -e "${build%-dirty}^{commit}" 2>/dev/null && ok ||
        bad "env_json build '$build', the build's '$made'"
fi
expect_rc 0 "compare b1 b2" "$R" compare b1 b2 --db "$DB"
grep -q "different builds" "$T/out" && bad "same build, yet a build note: $(grep note "$T/out")" || ok
sqlite3 "$DB" "update runs set env_json = json_set(env_json, '$.build', '0123456789ab') where label='b1'"
expect_rc 0 "compare b1 b2, another build" "$R" compare b1 b2 --db "$DB"
grep -q "^note: A and B were predicted by different builds of rknn-trace (A: 0123456789ab, B: " "$T/out" && ok ||
    bad "build note: $(head -4 "$T/out")"
finish
