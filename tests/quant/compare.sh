#!/usr/bin/env bash
# tests/quant/compare.sh [BUILD] — `rknn-trace compare` on two hand-made runs
# whose every figure is chosen here, so that each expectation can be checked by
# hand: alignment by tensor name (a fused layer renamed in B, a layer only in B),
# the summary lines, the gates (exit 3) and the JSON document.
source "$(dirname "$0")/harness.sh" "$@"
DB=$T/c.db
# An empty store of ours (schema from the tool itself), then two runs by hand.
"$B/rknn-trace" run tests/data/models/mnist.onnx --db "$DB" >/dev/null 2>&1 || bad "seed run"
$PY - "$DB" <<'PYEOF' || bad "fixture"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA foreign_keys = ON")
db.execute("DELETE FROM runs")
def run(i, label, quant, total, npu):
    db.execute("INSERT INTO runs (id, label, time, model_path, quant, quant_algo, quant_method, total_us, status, npu_us)"
               " VALUES (?,?,?,?,?,?,?,?,?,?)", (i, label, "2026-01-01T00:00:00Z", "m.onnx", quant,
               "normal" if quant == "i8" else None, "channel" if quant == "i8" else None, total, "ok", npu))
def layer(r, idx, op, name, host, npu):
    db.execute("INSERT INTO layers (key, run_id, idx, node, op, name, host_us, time_us) VALUES (?,?,?,?,?,?,?,?)",
               (r * 1048576 + idx, r, idx, "n" + name, op, name, host, npu))
def acc(r, idx, layer, op, name, cos, euc, out=0):
    db.execute("INSERT INTO accuracy (run_id, idx, layer, name, op, fused, is_output, entire_cos, entire_euc,"
               " single_cos, single_euc) VALUES (?,?,?,?,?,0,?,?,?,?,?)", (r, idx, layer, name, op, out, cos, euc, cos, euc))
# A: x -> Conv c1 -> Relu r1 -> Add out
run(1, "base", "i8", 1000.0, 500.0)
layer(1, 0, "Conv", "c1", 100.0, 50.0); layer(1, 1, "Relu", "r1", 10.0, 5.0); layer(1, 2, "Add", "out", 5.0, 2.5)
acc(1, 0, -1, "Input", "x", 1.0, 0.0); acc(1, 1, 0, "Conv", "c1", 0.995, 0.5)
acc(1, 2, 1, "Relu", "r1", 0.98, 0.75); acc(1, 3, 2, "Add", "out", 0.97, 1.25, 1)
# B: Conv+Relu fused into one layer named r1, then out, then a layer only B has
run(2, "cand", "fp16", 1150.0, 400.0)
layer(2, 0, "ConvRelu", "r1", 80.0, 40.0); layer(2, 1, "Add", "out", 4.0, 2.0); layer(2, 2, "Softmax", "extra", 3.0, 1.0)
acc(2, 0, -1, "Input", "x", 1.0, 0.0); acc(2, 1, 0, "ConvRelu", "r1", 0.999, 0.125)
acc(2, 2, 1, "Add", "out", 0.996, 0.25, 1)
# C: an fp32 run without per-layer errors
run(3, "plain", "fp32", 900.0, 450.0)
layer(3, 0, "Conv", "c1", 90.0, 45.0)
db.commit()
PYEOF
expect_rc 0 "compare text" "$R" compare base cand --db "$DB"
cp "$T/out" "$T/text"
# rows: x, c1, r1, out (A's order), then extra (B only); '-' where a run lacks the tensor;
# columns: cos A, npu us A, cos B, npu us B (the predicted time: these rows have table times only)
$PY - "$T/text" <<'PYEOF' && ok || bad "text table"
import sys
lines = open(sys.argv[1]).read().splitlines()
rows = [l.split() for l in lines if l.startswith("[")]
assert [r[1] for r in rows] == ["x", "c1", "r1", "out", "extra"], rows
c1 = rows[1]; assert c1[2:6] == ["0.99500", "50.0", "-", "-"], c1
r1 = rows[2]; assert r1[0] == "[Relu]" and r1[2:6] == ["0.98000", "5.0", "0.99900", "40.0"], r1
ex = rows[4]; assert ex[0] == "[Softmax]" and ex[2:6] == ["-", "-", "-", "1.0"], ex
text = "\n".join(lines)
assert "A #1 base: i8 normal channel, 3 layers, predicted NPU 0.500 ms, host (this PC's CPU, not the board) 1.000 ms, first cos < 0.99: r1" in text, text
assert "B #2 cand: fp16, 3 layers, predicted NPU 0.400 ms, host (this PC's CPU, not the board) 1.150 ms, every layer cos >= 0.99" in text, text
assert "verdict: B #2 cand vs A #1 base: predicted NPU frame -20.0% (faster)" in text, text
assert "A  vs golden: cos 0.97000" in text and "B  vs golden: cos 0.99600" in text, text
assert "GATE" not in text
PYEOF
expect_rc 0 "threshold 0.999" "$R" compare base cand --db "$DB" --cos-threshold 0.999
grep -q "A #1 base.*first cos < 0.999: c1$" "$T/out" && ok || bad "A first below 0.999 is c1"
grep -q "B #2 cand.*first cos < 0.999: out$" "$T/out" && ok || bad "B first below 0.999 is out"
# gates: A's output cos 0.97 < 0.99 -> 3; 0.95 passes
expect_rc 3 "cos gate 0.99" "$R" compare base cand --db "$DB" --fail-if-cos-below 0.99
grep -q "GATE FAILED: run #1 base output cos 0.97000 < 0.99" "$T/out" && ok || bad "cos gate line"
expect_rc 0 "cos gate 0.95" "$R" compare base cand --db "$DB" --fail-if-cos-below 0.95
# speed: B is 20 % faster predicted (500 -> 400 us) but 15 % slower on this PC (1000 -> 1150 us):
# the gate follows the prediction unless --by host
expect_rc 0 "slower gate 10% (predicted)" "$R" compare base cand --db "$DB" --fail-if-slower 10%
expect_rc 3 "slower gate 10% --by host" "$R" compare base cand --db "$DB" --fail-if-slower 10% --by host
grep -q "GATE FAILED: run #2 cand is 15.0% slower than the baseline by host median (limit 10%)" "$T/out" && ok || bad "slower gate line"
grep -q "verdict: B #2 cand vs A #1 base: host median (this PC) +15.0% (slower)" "$T/out" && ok || bad "host verdict line"
expect_rc 0 "slower gate 20 --by host" "$R" compare base cand --db "$DB" --fail-if-slower 20 --by host
expect_rc 3 "A slower than B (predicted)" "$R" compare cand base --db "$DB" --fail-if-slower 10
grep -q "GATE FAILED: run #1 base is 25.0% slower than the baseline by predicted NPU frame (limit 10%)" "$T/out" && ok || bad "predicted gate line"
expect_rc 1 "bad --by" "$R" compare base cand --db "$DB" --by board
# the cos gate needs a run with per-layer errors; unknown runs and bad options
expect_rc 2 "cos gate without data" "$R" compare plain plain --db "$DB" --fail-if-cos-below 0.9
expect_rc 0 "cos gate on the quantized side only" "$R" compare plain cand --db "$DB" --fail-if-cos-below 0.99
expect_rc 2 "unknown run" "$R" compare base nosuch --db "$DB"
expect_rc 1 "one run" "$R" compare base --db "$DB"
expect_rc 1 "bad number" "$R" compare base cand --db "$DB" --fail-if-cos-below high
expect_rc 2 "not a database" "$R" compare base cand --db tests/quant/compare.sh
# JSON: the same figures
expect_rc 3 "json" "$R" compare base cand --db "$DB" --json --fail-if-cos-below 0.99 --fail-if-slower 20
$PY - "$T/out" <<'PYEOF' && ok || bad "json document"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 1 and d["kind"] == "comparison" and d["by"] == "npu"
a, b = d["runs"]
assert a["id"] == 1 and a["baseline"] and b["label"] == "cand" and a["output_cos"] == 0.97
assert a["first_below"] == "r1" and b["first_below"] is None
assert a["slower_pct"] is None and abs(b["slower_pct"] + 20.0) < 1e-9, b
# the speed pair by hand: predicted frames 500 -> 400 us
s = b["speed"]
assert a["speed"] is None and s["kind"] == s["baseline_kind"] == "predicted_frame", s
assert (s["baseline_us"], s["us"]) == (500.0, 400.0) and s["slower_pct"] == b["slower_pct"], s
assert [v["tag"] for v in d["verdicts"]] == ["B"] and d["verdicts"][0]["line"].startswith("verdict: B #2 cand vs A #1 base: " + s["text"])
names = [l["name"] for l in d["layers"]]
assert names == ["x", "c1", "r1", "out", "extra"], names
assert d["layers"][1]["runs"][1] is None and d["layers"][4]["runs"][0] is None
assert d["layers"][2]["runs"][0]["entire_cos"] == 0.98 and d["layers"][2]["runs"][1]["host_us"] == 80.0
assert d["layers"][2]["runs"][1]["layer"] == 0 and d["layers"][2]["runs"][0]["layer"] == 1
o = {x["name"]: x for x in d["outputs"]}
assert o["out"]["runs"][0]["vs_golden"]["cos"] == 0.97 and o["out"]["runs"][1]["vs_golden"]["cos"] == 0.996
g = {(x["gate"], x["run"]): x for x in d["gates"]}
assert g[("cos", 1)]["failed"] and not g[("cos", 2)]["failed"] and not g[("slower", 2)]["failed"]
assert d["failed"] is True
PYEOF
finish
