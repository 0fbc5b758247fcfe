#!/usr/bin/env bash
# `rknn-trace compare BOARD SIM`: predicted vs measured, layer by layer, on the
# real tables ($RT_SHARED/data/logs) of networks the NPU bench builds
# (tests/tools/zoo: yolov5s_relu, toolkit 1.5.0 table; yolov8n 1920x1920 with 3
# classes, runtime 2.0 table), and on a run's own predicted table imported back
# (every layer paired by FullName, cycles equal). Every figure of the JSON is
# checked against the log (read with awk) and the sim run's stored rows (read
# with sqlite3); the medians, worst errors and ranking are recomputed in Python.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RT=$B/rknn-trace
ZP=$B/tests/zoo_predict
LOGS=${RT_SHARED:-../shared}/data/logs
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
eq()  { if [ "$2" == "$3" ]; then ok; else bad "$1: got '$2', want '$3'"; fi; }
DB=$T/c.db
[ -x "$ZP" ] || { echo "compare_perf: $ZP not built"; echo "0 passed, 1 failed"; exit 1; }

# the log's rows as "FullName DDR NPU Time" (compact 2.x cycle triples split;
# rows a document broke over several lines joined until they have every field)
log_rows() {
    sed -E 's/^(---> |[EWIDT] RKNN: (\[[^]]*\] )?)//' "$1" | awk '
        function emit(   n, f, c) {
            n = split(row, f)
            if (f[7] ~ /\//) { split(f[7], c, "/"); print f[n], c[1], c[2], f[8] }
            else print f[n], f[7], f[8], f[10]
            row = "" }
        row != "" && NF { row = row " " $0; if (split(row, x) >= need) emit(); next }
        $1 ~ /^[0-9]+$/ && $3 ~ /^(INT8|UINT8|INT16|FLOAT16|FLOAT)$/ && $4 ~ /^(NPU|CPU|GPU)$/ {
            row = $0; need = $7 ~ /\// ? 11 : 19
            if (NF >= need) emit() }'
}

# check.py JSON LOGROWS SIMROWS: every row against the log and the store, and
# the summary recomputed; prints "ok N" or the first difference
cat >"$T/check.py" <<'PY'
import json, sys, statistics
d = json.load(open(sys.argv[1]))
log = {}
for line in open(sys.argv[2]):
    f = line.split()
    log.setdefault(f[0], []).append([float(f[3]), float(f[2]), float(f[1])])  # time, npu, ddr
sim = {}
for line in open(sys.argv[3]):
    f = line.rstrip("\n").split("|")
    sim[int(f[0])] = [float(x) if x != "" else None for x in f[1:4]]
keys = ["time_us", "npu_cycles", "ddr_cycles"]
n = 0
used = {}
errs = {k: [] for k in keys}
for r in d["layers"]:
    b, m = r["board"], r["model"]
    if b:
        k = used.get(r["fullname"], 0); used[r["fullname"]] = k + 1
        want = log[r["fullname"]][k]
        got = [b[x] for x in keys]
        if got != want: print("board row", r["fullname"], got, want); sys.exit(1)
    if m:
        want = sim[m["row"]]
        got = [m[x] for x in keys]
        # the JSON prints 9 significant digits
        if any(w is not None and abs(g - w) > 1e-6 + 1e-8 * abs(w) for g, w in zip(got, want)):
            print("model row", m["row"], got, want); sys.exit(1)
    for k in keys:
        e = r["err_pct"][k]
        if b and m and b[k] not in (None, 0) and m[k] is not None:
            want = (m[k] - b[k]) / b[k] * 100
            if abs(e - want) > 1e-6 * max(1, abs(want)): print("err", r["fullname"], k, e, want); sys.exit(1)
            errs[k].append((abs(want), r["fullname"]))
        elif e is not None: print("err not null", r["fullname"], k); sys.exit(1)
    n += 1
s = d["summary"]
for k in keys:
    v = [e for e, _ in errs[k]]
    if s[k]["layers"] != len(v): print("count", k); sys.exit(1)
    if v and abs(s[k]["median_abs_err_pct"] - statistics.median(v)) > 1e-6 * max(1, statistics.median(v)): print("median", k); sys.exit(1)
    if v and abs(abs(s[k]["worst_err_pct"]) - max(v)) > 1e-6 * max(1, max(v)): print("worst", k); sys.exit(1)
wrong = sorted((abs(r["err_us"]), -i) for i, r in enumerate(d["layers"]) if r["err_us"] is not None)
if [-i for _, i in wrong[::-1][:10]] != s["most_wrong"]: print("most_wrong"); sys.exit(1)
if s["paired_by_name"] + s["paired_by_shape"] + s["board_only"] != s["board_layers"]: print("pairs"); sys.exit(1)
print("ok", n)
PY

# pair NAME TABLE ZOO_ARGS...: sim run + imported table, compared both ways
pair() {
    local name=$1 log=$2; shift 2
    sim=$("$ZP" "$1" "$2" "$DB" "${@:3}") || { bad "$name: zoo_predict"; return 1; }
    "$RT" import --db "$DB" --json "$log" >"$T/imp.json" || { bad "$name: import"; return 1; }
    board=$(sqlite3 "$DB" "SELECT max(id) FROM runs")
    "$RT" compare --db "$DB" --json "$board" "$sim" >"$T/$name.json" 2>"$T/err"
    eq "$name: exit" "$?" 0
    "$RT" compare --db "$DB" --json "$sim" "$board" >"$T/$name.rev.json"
    eq "$name: either order" "$(cmp -s "$T/$name.json" "$T/$name.rev.json" && echo same)" same
    eq "$name: kind, sides" "$(python3 -c "import json; d=json.load(open('$T/$name.json')); print(d['kind'], d['board']['id'], d['model']['id'], d['model']['backend'])")" \
       "compare_perf $board $sim sim"
    log_rows "$log" >"$T/$name.log"
    sqlite3 "$DB" "SELECT row_number() OVER (ORDER BY idx) - 1, time_us, npu_cycles, ddr_cycles FROM layers WHERE run_id=$sim ORDER BY idx" >"$T/$name.sim"
    eq "$name: board layers = log rows" "$(python3 -c "import json; print(json.load(open('$T/$name.json'))['summary']['board_layers'])")" "$(wc -l <"$T/$name.log")"
    eq "$name: model layers = stored rows" "$(python3 -c "import json; print(json.load(open('$T/$name.json'))['summary']['model_layers'])")" \
       "$(sqlite3 "$DB" "SELECT count(*) FROM layers WHERE run_id=$sim AND total_cycles IS NOT NULL")"
    eq "$name: rows vs log and store" "$(python3 "$T/check.py" "$T/$name.json" "$T/$name.log" "$T/$name.sim" | cut -d" " -f1)" ok
    "$RT" compare --db "$DB" "$board" "$sim" >"$T/$name.txt"
    grep -q "^layers the model gets most wrong" "$T/$name.txt" && ok || bad "$name: text lacks the ranking"
}

pair yolov5s "$LOGS/perf-evalperf-oldfmt-full-yolov5s-rk3588-tk1.5.0-vendordoc-06.txt" yolov5s_relu rk3588
# toolkit 1.5.0's table: the zoo network has the table's 77 NPU/CPU layers in OpType and shape
eq "yolov5s: paired" "$(python3 -c "import json; s=json.load(open('$T/yolov5s.json'))['summary']; print(s['paired_by_name'], s['paired_by_shape'])")" "0 77"
pair yolov8n "$LOGS/perf-perfdetail-yolov8n1920-rk3588-channy-01.txt" yolov8n rk3588 --yolov8 n 1920 3
# the network's NPU cycles equal the board's (bench/npu_models.sh checks the same lowering)
eq "yolov8n: NPU cycles of the network" "$(python3 -c "import json; s=json.load(open('$T/yolov8n.json'))['summary']['npu_cycles']; print(int(s['board_sum']), int(s['model_sum']))")" \
   "$(awk '{s += $3} END {print s, s}' "$T/yolov8n.log")"

# a sim run against its own predicted table: every layer by FullName, cycles equal
M=tests/data/models/ultraface_version-RFB-320.onnx
"$RT" run "$M" -t rk3588 -q i8 --npu-table --db "$DB" --label self -n 1 >"$T/self.out" 2>/dev/null
sed -n '1,/^Total Operator Elapsed/p' "$T/self.out" >"$T/self.txt"
"$RT" import --db "$DB" "$T/self.txt" >/dev/null
board=$(sqlite3 "$DB" "SELECT max(id) FROM runs")
"$RT" compare --db "$DB" --json self "$board" >"$T/self.json"
eq "self: pairs, cycle errors" "$(python3 -c "
import json; d = json.load(open('$T/self.json')); s = d['summary']
io = sum(1 for r in d['layers'] if r['op'] in ('InputOperator', 'OutputOperator', 'exDataConvert')
         or r['fullname'].endswith('-rs'))  # layers of no node: the outputs' Reshapes
print(s['paired_by_name'] + io == s['board_layers'], s['paired_by_shape'], s['model_only'],
      float(s['npu_cycles']['worst_err_pct']), float(s['ddr_cycles']['worst_err_pct']), s['bound_agree'] == s['bound_known'])")" \
   "True 0 0 0.0 0.0 True"
log_rows "$T/self.txt" >"$T/self.log"
sim=$(sqlite3 "$DB" "SELECT id FROM runs WHERE label='self'")
sqlite3 "$DB" "SELECT row_number() OVER (ORDER BY idx) - 1, time_us, npu_cycles, ddr_cycles FROM layers WHERE run_id=$sim ORDER BY idx" >"$T/self.sim"
eq "self: rows vs log and store" "$(python3 "$T/check.py" "$T/self.json" "$T/self.log" "$T/self.sim" | cut -d" " -f1)" ok

# a vendor .rknn's predicted run (backend predict: rows named "<op>:<name>" by the
# compiler) against its own table imported: every layer by FullName, cycles equal
R=${RT_SHARED:-../shared}/data/models/rknn/yolov8n.rk3566.rknn
"$RT" run "$R" --npu-table --db "$DB" --label pred >"$T/pred.out" 2>/dev/null
sed -n '1,/Total Operator Elapsed/p' "$T/pred.out" >"$T/pred.txt"
"$RT" import --db "$DB" --label pred-board "$T/pred.txt" >/dev/null
"$RT" compare --db "$DB" --json pred pred-board >"$T/pred.json"
eq "predict: pairs, cycle errors" "$(python3 -c "
import json; s = json.load(open('$T/pred.json'))['summary']
print(s['paired_by_name'] == s['board_layers'] == s['model_layers'] == $(log_rows "$T/pred.txt" | wc -l),
      float(s['npu_cycles']['worst_err_pct']), float(s['ddr_cycles']['worst_err_pct']))")" "True 0.0 0.0"

# not a board/sim pair: the usual compare; gates refused; nothing to compare
"$RT" compare --db "$DB" --json self self >"$T/out" 2>/dev/null
eq "sim vs sim: usual compare" "$(python3 -c "import json; print(json.load(open('$T/out'))['kind'])")" comparison
"$RT" compare --db "$DB" --json self "$board" --fail-if-cos-below 0.5 >"$T/out" 2>/dev/null
eq "gates on board/sim: the usual compare" "$?/$(python3 -c "import json; print(json.load(open('$T/out'))['kind'])")" "0/comparison"
"$RT" import --db "$DB" "$LOGS/accuracy-cos-euc-mobilenetv2-rk3588-tk1.6.0-rkdoc-02.txt" >/dev/null
acc=$(sqlite3 "$DB" "SELECT max(id) FROM runs WHERE backend='board'")
"$RT" compare --db "$DB" --json self "$acc" >"$T/out" 2>/dev/null
eq "board run without layer figures: the usual compare" "$?/$(python3 -c "import json; print(json.load(open('$T/out'))['kind'])")" "0/comparison"
"$RT" compare --db "$DB" self 999 >/dev/null 2>"$T/err"
eq "unknown run: exit, one line" "$?/$(grep -c . "$T/err")" "2/1"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
