#!/usr/bin/env bash
# Unknown is JSON null on every JSON surface (docs/json.md "Missing is null"):
# never a crash, never the text "(null)", never NaN/Infinity, never a sentinel
# number. Fed the unknown cases: every real log of $RT_SHARED/data/logs that
# `import` reads (each lacks most run facts: model, platform, seed, timings),
# a run with no board facts (a board run on an empty root, --no-db), `top` on an empty
# root, a .rknn whose version holds a quote or whose node name is not UTF-8
# (the emulator's dump index), a model path that is not UTF-8.
# Oracles: Python's json module with parse_constant refusing NaN/Infinity, and
# the store read by Python's sqlite3 (a NULL column is null in the document, a
# value the same value).
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RT=$B/rknn-trace
PY=/usr/bin/python3
SHARED=${RT_SHARED:-../shared}
LOGS=$SHARED/data/logs
MNIST=tests/data/models/mnist.onnx
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
source tests/cli/expect.sh

# strict FILE...: each file one UTF-8 JSON document that json.loads takes with
# NaN/Infinity refused, no string holding "(null)", no integer beyond 2^53
# (STORE_NULL_INT is INT64_MIN); prints what is wrong
cat >"$T/strict.py" <<'EOF'
import json, sys
def refuse(c):
    raise ValueError("non-finite number " + c)
def walk(x, path, errs):
    if isinstance(x, dict):
        for k, y in x.items():
            walk(y, path + "." + k, errs)
    elif isinstance(x, list):
        for i, y in enumerate(x):
            walk(y, f"{path}[{i}]", errs)
    elif isinstance(x, str) and "(null)" in x:
        errs.append(f"{path}: {x[:60]!r}")
    elif isinstance(x, int) and not isinstance(x, bool) and abs(x) >= 2**53:
        errs.append(f"{path}: sentinel-like {x}")
for p in sys.argv[1:]:
    errs = []
    try:
        text = open(p, encoding="utf-8", errors="strict").read()
        walk(json.loads(text, parse_constant=refuse), "$", errs)
    except ValueError as e:   # UnicodeDecodeError and JSONDecodeError too
        errs.append(str(e)[:200])
    for e in errs[:3]:
        print(f"{p}: {e}")
EOF
strict() {
    local out
    out=$($PY "$T/strict.py" "$@" 2>&1)
    if [ -z "$out" ]; then ok; else bad "not strict JSON: $(echo "$out" | head -5)"; fi
}

# --- imported logs: every run document against the store ----------------------
DB=$T/imp.db
n_imp=0
for f in "$LOGS"/*.txt; do
    n=$(basename "$f" .txt)
    "$RT" import --db "$DB" --json "$f" >"$T/imp_$n.json" 2>"$T/err"
    rc=$?
    if [ $rc -eq 0 ]; then
        n_imp=$((n_imp + 1))
        strict "$T/imp_$n.json"
    elif [ $rc -ne 2 ] || [ "$(grep -c . "$T/err")" -ne 1 ] || grep -q "Sanitizer\|runtime error" "$T/err"; then
        bad "import $n: exit $rc, $(head -c 300 "$T/err")"     # a kind it does not read: one line, exit 2
    fi
done
[ "$n_imp" -ge 30 ] && ok || bad "only $n_imp logs imported"

ids=$(sqlite3 "$DB" "SELECT id FROM runs ORDER BY id")
for id in $ids; do
    "$RT" show "$id" --db "$DB" --json >"$T/show_$id.json" 2>"$T/err" || bad "show $id: $(head -c 200 "$T/err")"
    "$RT" report "$id" --db "$DB" --format json -o "$T/rep_$id.json" >/dev/null 2>"$T/err" ||
        bad "report json $id: $(head -c 200 "$T/err")"
    "$RT" report "$id" --db "$DB" --format trace -o "$T/trace_$id.json" >/dev/null 2>"$T/err" ||
        bad "report trace $id: $(head -c 200 "$T/err")"
done
"$RT" ls --db "$DB" --json >"$T/ls.json" 2>"$T/err" || bad "ls --json: $(head -c 200 "$T/err")"
prev=
for id in $ids; do
    if [ -n "$prev" ]; then
        "$RT" compare "$prev" "$id" --db "$DB" --json >"$T/cmp_$id.json" 2>"$T/err"
        [ $? -le 3 ] || bad "compare $prev $id: $(head -c 200 "$T/err")"   # 3: a gate, not a crash
    fi
    prev=$id
done
strict "$T"/show_*.json "$T"/rep_*.json "$T"/trace_*.json "$T/ls.json" "$T"/cmp_*.json

# vs_store DB DIR N: a NULL column is null in `show --json` (DIR/show_ID.json) and
# `ls --json` (DIR/ls.json), a value the same value; at least N of each compared
cat >"$T/vs_store.py" <<'EOF'
import json, math, sqlite3, sys
db, tdir = sys.argv[1:3]
con = sqlite3.connect(db)
con.row_factory = sqlite3.Row
errs, n_null, n_val = [], 0, 0
def same(what, doc, col):
    global n_null, n_val
    if col is None:
        n_null += 1
        if doc is not None:
            errs.append(f"{what}: store NULL, document {doc!r}")
    else:
        n_val += 1
        if isinstance(col, float) or isinstance(doc, float):
            good = isinstance(doc, (int, float)) and math.isclose(doc, col, rel_tol=1e-6, abs_tol=1e-9)
        else:
            good = doc == col
        if not good:
            errs.append(f"{what}: store {col!r}, document {doc!r}")
RUN = {"model": "model_path", "model_sha256": "model_sha256", "model_format": "model_format",
       "platform": "platform", "quant": "quant", "quant_algo": "quant_algo",
       "quant_method": "quant_method", "seed": "seed", "tool_version": "tool_version",
       "label": "label", "dump_dir": "dump_dir", "dump_sha256": "dump_sha256"}
LAYER = ["node", "op", "host_us", "npu_cycles", "ddr_cycles", "total_cycles", "time_us",
         "mac_usage", "target", "cpu_reason", "sram_hit", "rw_kb", "bound", "workload", "tasks",
         "npu_op", "frame_us", "npu_dtype", "out_scale", "out_zp", "out_qtype", "out_min",
         "out_max", "out_mean", "out_std"]
ls = {e["id"]: e for e in json.load(open(f"{tdir}/ls.json"))}
for r in con.execute("SELECT * FROM runs ORDER BY id"):
    d = json.load(open(f"{tdir}/show_{r['id']}.json"))
    for key, col in RUN.items():
        same(f"run {r['id']} {key}", d[key], r[col])
    for key in ("label", "platform", "model_sha256"):
        same(f"ls {r['id']} {key}", ls[r["id"]][key], r[key])
    same(f"ls {r['id']} model", ls[r["id"]]["model"], r["model_path"])
    layers = {l["index"]: l for l in d["layers"]}
    rows = con.execute("SELECT * FROM layers WHERE run_id = ? ORDER BY idx", (r["id"],)).fetchall()
    if len(rows) != len(layers):
        errs.append(f"run {r['id']}: {len(rows)} layer rows, document {len(layers)}")
    for row in rows:
        for c in LAYER:
            same(f"run {r['id']} layer {row['idx']} {c}", layers[row["idx"]][c], row[c])
# the comparison must have met both kinds (the logs: thousands of each)
if n_null < int(sys.argv[3]) or n_val < int(sys.argv[3]):
    errs.append(f"only {n_null} NULL and {n_val} known values compared")
print("\n".join(errs[:8]))
EOF
vs_store() {
    local out
    out=$($PY "$T/vs_store.py" "$@" 2>&1)
    if [ -z "$out" ]; then ok; else bad "documents vs store $1: $out"; fi
}
vs_store "$DB" "$T" 500

# --- a run with no board facts ----------------------------------------------------
# a board run on an empty root (no device tree, debugfs, devfreq: no platform,
# clock, cores or load known) from an .onnx without -t; a run not recorded; top
mkdir -p "$T/nosys" "$T/root" "$T/board"
BD=$T/board/b.db
RKNN_TRACE_SYSFS=$T/nosys expect 0 "" -- "$RT" run "$MNIST" --backend board --runtime "$B/librknnrt.so" \
    --root "$T/root" --db "$BD" --label b --json -n 2 --warmup 0
cp "$T/out" "$T/board/run.json"
expect 0 "" -- "$RT" show b --db "$BD" --json
cp "$T/out" "$T/board/show_1.json"
expect 0 "" -- "$RT" ls --db "$BD" --json
cp "$T/out" "$T/board/ls.json"
RKNN_TRACE_SYSFS=$T/nosys expect 0 "" -- "$RT" run "$MNIST" --no-db --json -n 1 --warmup 0
cp "$T/out" "$T/nodb.json"
expect 0 "" -- "$RT" top --root "$T/root" --snapshot --json
cp "$T/out" "$T/top.json"
strict "$T"/board/*.json "$T/nodb.json" "$T/top.json"
vs_store "$BD" "$T/board" 5
if out=$($PY - "$T" 2>&1 <<'EOF'
import json, sys
t = sys.argv[1]
errs = []
run, show = (json.load(open(f"{t}/board/{n}.json")) for n in ("run", "show_1"))
nodb = json.load(open(f"{t}/nodb.json"))
# nothing named the platform, nothing published a clock, cores or load
for name, d in (("run", run), ("show", show)):
    for path in (("platform",), ("npu", "clock_mhz"), ("npu", "cores"), ("npu", "load")):
        v = d
        for k in path:
            v = v[k]
        if v is not None:
            errs.append(f"board {name} {'.'.join(path)}: {v!r}, want null")
# --no-db: nothing stored, so no id
for k in ("id", "run_id"):
    if nodb.get(k, "absent") is not None:
        errs.append(f"--no-db {k}: {nodb.get(k, 'absent')!r}, want null")
# an empty root: every reading absent, every value null, nothing counted
top = json.load(open(f"{t}/top.json"))
def walk(x, path):
    if "state" in x and x["state"] != "absent":
        errs.append(f"top {path}.state: {x['state']}")
    for k, y in x.items():
        if k in ("state", "kind", "root", "source", "simulated", "schema_version", "list"):
            continue
        if k in ("devices", "not_readable"):
            if y != 0:
                errs.append(f"top {path}.{k}: {y!r}, want 0")
        elif isinstance(y, dict):
            walk(y, f"{path}.{k}")
        elif y is not None:
            errs.append(f"top {path}.{k}: {y!r}, want null")
walk(top, "$")
print("\n".join(errs[:8]))
EOF
); [ -z "$out" ]; then ok; else bad "no board facts: $out"; fi

# --- a .rknn version with a quote: extra_json stays JSON, versions whole ----------
RK=$SHARED/data/models/rknn/multiple_input_demo.rk3588.rknn
if [ -f "$RK" ]; then
    $PY - "$RK" "$T/quote.rknn" <<'EOF'
import sys
b = open(sys.argv[1], "rb").read()
old, new = b'"version":"1.6.2-source_code"', b'"version":"1.6.2\\"ource_code"'   # same length
assert len(old) == len(new) and b.count(old) == 1
open(sys.argv[2], "wb").write(b.replace(old, new))
EOF
    expect 0 "" -- "$RT" run "$T/quote.rknn" --db "$T/q.db" --label q
    expect 0 "" -- "$RT" inspect "$T/quote.rknn" --json
    cp "$T/out" "$T/quote_inspect.json"
    sqlite3 "$T/q.db" "SELECT extra_json FROM runs" >"$T/extra.json"
    if out=$($PY - "$T/extra.json" "$T/quote_inspect.json" 2>&1 <<'EOF'
import json, sys
e = json.loads(open(sys.argv[1]).read(), parse_constant=float)
i = json.load(open(sys.argv[2]))
errs = []
if e.get("toolkit") != '1.6.2"ource_code':
    errs.append(f"toolkit {e.get('toolkit')!r}")
if e.get("compiler") != i["compiler"] or len(e["compiler"]) <= 60:
    errs.append(f"compiler {e.get('compiler')!r}, inspect says {i['compiler']!r}")
if e.get("numeric_outputs") is not False:
    errs.append(f"numeric_outputs {e.get('numeric_outputs')!r}")
print("; ".join(errs))
EOF
    ); [ -z "$out" ]; then ok; else bad "extra_json of a quoted version: $out ($(head -c 300 "$T/extra.json"))"; fi
else
    bad "no $RK: vendor samples missing"
fi

# --- a node name that is not UTF-8: the emulator's tasks.json keeps its task ------
if [ -f "$RK" ]; then
    $PY - "$RK" "$T/ff.rknn" <<'EOF'
import sys
b = open(sys.argv[1], "rb").read()
old = b"\x00Conv:Conv_1\x00"       # the FlatBuffer string of node Conv_1, once in the file
assert b.count(old) == 1
open(sys.argv[2], "wb").write(b.replace(old, b"\x00Conv:Conv\xff1\x00"))
EOF
    expect 0 "" -- "$RT" run "$RK" --emulate --dump "$T/emu_ok" --no-db
    expect 0 "" -- "$RT" run "$T/ff.rknn" --emulate --dump "$T/emu_ff" --no-db
    strict "$T/emu_ok/tasks.json" "$T/emu_ff/tasks.json"
    if out=$($PY - "$T/emu_ok/tasks.json" "$T/emu_ff/tasks.json" 2>&1 <<'EOF'
import json, sys
ok, ff = (json.load(open(p)) for p in sys.argv[1:3])
nodes = [t["node"] for t in ff]
if len(ff) != len(ok) or "Conv:Conv\ufffd1" not in nodes:
    print(f"{len(ff)} tasks (unpatched {len(ok)}), nodes {nodes}")
EOF
    ); [ -z "$out" ]; then ok; else bad "tasks.json of a non-UTF-8 node name: $out"; fi
fi

# --- a model path that is not UTF-8: exported with U+FFFD, never dropped ----------
LAT=$T/caf$(printf '\351').onnx
cp "$MNIST" "$LAT"
expect 0 "" -- "$RT" run "$LAT" --db "$T/lat.db" --label lat -n 1 --warmup 0
expect 0 "" -- "$RT" export --all --db "$T/lat.db" -o "$T/lat.json"
strict "$T/lat.json"
expect 0 "" -- "$RT" import "$T/lat.json" --db "$T/lat2.db"
expect 0 "" -- "$RT" import "$T/lat.json" --db "$T/lat2.db"
grep -q "1 already here" "$T/out" && ok || bad "re-import of the export not skipped as the same content: $(cat "$T/out")"
if out=$($PY - "$T/lat.json" "$T/lat2.db" "$LAT" 2>&1 <<'EOF'
import json, sqlite3, sys, os
d = json.load(open(sys.argv[1]))
want = os.fsencode(sys.argv[3]).decode("utf-8", "replace")
r = d["runs"][0]
errs = []
if r.get("model_path", "absent") != want:
    errs.append(f"export model_path {r.get('model_path', 'absent')!r}, want {want!r}")
got = sqlite3.connect(sys.argv[2]).execute("SELECT model_path FROM runs").fetchall()
if got != [(want,)]:
    errs.append(f"imported model_path {got!r}")
print("; ".join(errs))
EOF
); [ -z "$out" ]; then ok; else bad "Latin-1 path: $out"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
