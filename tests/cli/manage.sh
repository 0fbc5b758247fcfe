#!/usr/bin/env bash
# Managing runs: rm, tag/untag, label, ls --tag, export / import FILE.json (round
# trip exact: byte-equal re-export, and every row and value equal as the sqlite3
# shell reads them), merge (deduplicated, ids remapped, labels suffixed), bad
# input refused with one line and the database unchanged; the environment a run
# records (tool, host, cost model) and compare's note on cost-model versions.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RT=$B/rknn-trace
FILL=$B/tests/store_fill
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
MNIST=tests/data/models/mnist.onnx

source tests/cli/expect.sh

# Every row of every table as the sqlite3 shell quotes it (reals to 20 digits,
# NULL as NULL), run ids replaced by the run's rank in id order, so that two
# databases holding the same runs under other ids print the same.
dump() {
    local db=$1
    sqlite3 "$db" <<'EOF'
.mode quote
CREATE TEMP VIEW rk AS SELECT id, (SELECT COUNT(*) FROM runs r2 WHERE r2.id <= runs.id) AS n FROM runs;
SELECT label, time, model_path, model_sha256, model_format, platform, backend, quant, quant_algo,
  quant_method, threads, iterations, seed, inputs_json, total_us, status, tool_version, extra_json,
  n_layers, npu_us, host_min_us, host_p90_us, host_stddev_us, warmup, dump_dir, dump_sha256,
  weight_bytes, internal_bytes, env_json, perf_table_us, npu_clock_mhz, ddr_clock_mhz,
  npu_table_layers, calib_samples, int8_layers, fp16_layers, cfg_params, import_kind, log_total_us,
  perf_run_us, share_compute_pct, share_ddr_pct, share_cpu_pct, cost_model_version,
  cost_model_fingerprint FROM runs ORDER BY id;
SELECT rk.n, p.core, p.load_pct FROM npu_load p JOIN rk ON rk.id = p.run_id ORDER BY rk.n, p.core;
SELECT rk.n, x.* FROM npu_rows x JOIN rk ON rk.id = x.run_id ORDER BY rk.n, x.at;
SELECT rk.n, l.run_id, l.idx, l.node, l.op, l.name, l.in_shapes, l.out_shapes, l.dtype, l.host_us,
  l.npu_cycles, l.ddr_cycles, l.total_cycles, l.time_us, l.mac_usage, l.target, l.cpu_reason,
  l.sram_hit, l.rw_kb, l.bound, l.workload, l.tasks, l.npu_op, l.frame_us, l.npu_dtype,
  l.out_scale, l.out_zp, l.out_qtype, l.out_min, l.out_max, l.out_mean, l.out_std
  FROM layers l JOIN rk ON rk.id = l.run_id ORDER BY rk.n, l.idx;
SELECT rk.n, o.* FROM outputs o JOIN rk ON rk.id = o.run_id ORDER BY rk.n, o.idx;
SELECT rk.n, a.* FROM accuracy a JOIN rk ON rk.id = a.run_id ORDER BY rk.n, a.source, a.idx;
SELECT rk.n, t.tag FROM tags t JOIN rk ON rk.id = t.run_id ORDER BY rk.n, t.tag;
SELECT rk.n, s.* FROM load_samples s JOIN rk ON rk.id = s.run_id ORDER BY rk.n, s.idx;
EOF
}
# the run_id column of each row is printed too: drop it (second field)
rows() { dump "$1" | sed -E 's/^([0-9]+),[0-9]+,/\1,/'; }

# --- a source database: synthetic runs with every kind of value, real runs ---------
A=$T/a.db
"$FILL" "$A" 12 40 >/dev/null || bad "store_fill"
"$RT" run "$MNIST" --db "$A" --label mnist-fp32 >/dev/null || bad "run mnist"
"$RT" run "$MNIST" --db "$A" --quant i8 --label mnist-i8 >/dev/null 2>&1 || bad "run mnist i8"
# a hole in the ids, so that an import has to renumber
gone=$(sqlite3 "$A" "select id from runs where label='run-2'")
expect 0 "" -- "$RT" rm run-2 -y --db "$A"
check "grep -q \"deleted run $gone 'run-2'\" $T/out" "rm -y names the run it deleted: $(cat $T/out)"
check "[ \$(sqlite3 $A 'select count(*) from runs where id=$gone') = 0 ] && [ \$(sqlite3 $A 'select count(*) from layers where run_id=$gone') = 0 ]" \
      "rm deleted the run and its layers"

# --- rm: never silent, never without a confirmation ---------------------------------
before=$(sha256sum <"$A")
expect 1 "without a confirmation.*-y" -- "$RT" rm mnist-fp32 --db "$A"
expect 2 "no run 'nosuch'" -- "$RT" rm mnist-fp32 nosuch -y --db "$A"
check "[ \"$before\" = \"\$(sha256sum <$A)\" ]" "a refused or failed rm leaves the database as it was"
n_runs=$(sqlite3 "$A" 'select count(*) from runs')
check "[ $n_runs = 13 ]" "13 runs in the source database, got $n_runs"

# --- tag, untag, label, ls --tag ----------------------------------------------------
expect 0 "" -- "$RT" tag mnist-fp32 baseline x86 --db "$A"
check "grep -q 'tags baseline,x86' $T/out" "tag prints the run's tags: $(cat $T/out)"
expect 0 "" -- "$RT" tag mnist-i8 x86 --db "$A"
expect 0 "" -- "$RT" untag mnist-i8 nosuchtag --db "$A"
expect 1 "bad tag" -- "$RT" tag mnist-i8 'no spaces' --db "$A"
"$RT" ls --db "$A" --tag x86 >"$T/ls"
check "[ \$(grep -c 'mnist-' $T/ls) = 2 ]" "ls --tag x86 lists the two mnist runs"
"$RT" ls --db "$A" --tag x86 --tag baseline >"$T/ls"
check "grep -q mnist-fp32 $T/ls && ! grep -q mnist-i8 $T/ls" "ls with two --tag wants both"
oracle=$(sqlite3 "$A" "select count(*) from tags where tag='even'")
"$RT" ls --db "$A" --tag even --json >"$T/ls.json"
check "[ \$(python3 -c 'import json,sys;print(len(json.load(open(sys.argv[1]))))' $T/ls.json) = $oracle ]" \
      "ls --tag even lists the $oracle runs sqlite3 finds tagged"
"$RT" ls --db "$A" --json >"$T/ls.json"
check "[ \"\$(python3 -c 'import json,sys;print([r[\"tags\"] for r in json.load(open(sys.argv[1])) if r[\"label\"]==\"mnist-fp32\"][0])' $T/ls.json)\" = \"['baseline', 'x86']\" ]" \
      "ls --json lists a run's tags"
expect 0 "" -- "$RT" label mnist-i8 quantized --db "$A"
check "grep -q \"label 'mnist-i8' -> 'quantized'\" $T/out" "label says old and new"
expect 2 "already used by run" -- "$RT" label quantized mnist-fp32 --db "$A"
expect 1 "not be empty or a number" -- "$RT" label quantized 123 --db "$A"
check "[ \"\$(sqlite3 $A \"select label from runs where label='quantized'\")\" = quantized ]" "relabelled in the file"

# --- the environment of a run made here ---------------------------------------------
env=$(sqlite3 "$A" "select env_json from runs where label='mnist-fp32'")
ver=$("$RT" --version | awk '{print $2}')
check "[ \"\$(sqlite3 $A \"select tool_version from runs where label='mnist-fp32'\")\" = $ver ]" "tool_version is the program's"
check "[ \"\$(echo '$env' | python3 -c 'import json,sys;print(json.load(sys.stdin)[\"tool\"])')\" = 'rknn-trace $ver' ]" "env tool"
check "[ \"\$(echo '$env' | python3 -c 'import json,sys;print(json.load(sys.stdin)[\"host\"][\"cores\"])')\" = $(nproc) ]" "env host cores = nproc"
os=$(. /etc/os-release; echo "$PRETTY_NAME")
check "[ \"\$(echo '$env' | python3 -c 'import json,sys;print(json.load(sys.stdin)[\"host\"][\"os\"])')\" = \"$os\" ]" "env host os = os-release"
cm=$(sed -n 's/^#define NPU_COST_MODEL_VERSION \([0-9]*\)/\1/p' runtime/npu/npu_platform.h)
check "[ \"\$(sqlite3 $A \"select cost_model_version from runs where label='mnist-fp32'\")\" = $cm ]" "cost model version"
check "[ \"\$(sqlite3 $A \"select length(cost_model_fingerprint) from runs where label='mnist-fp32'\")\" = 16 ]" "cost model fingerprint"

# compare notes a cost-model difference, and only then
"$RT" compare mnist-fp32 quantized --db "$A" >"$T/cmp" 2>&1
check "! grep -q 'different NPU cost models' $T/cmp" "no note for the same cost model"
cp "$A" "$T/cm.db"
sqlite3 "$T/cm.db" "update runs set cost_model_version = $((cm + 1)) where label='quantized'"
"$RT" compare mnist-fp32 quantized --db "$T/cm.db" >"$T/cmp" 2>&1
check "grep -q \"A: version $cm, B: version $((cm + 1))\" $T/cmp" "compare notes different cost models: $(head -5 $T/cmp)"

# --- export, import into a fresh database, export again ----------------------------
expect 0 "" -- "$RT" export --all -o "$T/e1.json" --db "$A"
check "grep -q 'exported 13 runs' $T/out" "export says how many"
check "python3 -c 'import json,sys;d=json.load(open(sys.argv[1]));assert d[\"format\"]==\"rknn-trace-export\" and len(d[\"runs\"])==13' $T/e1.json" \
      "the export is JSON python reads, 13 runs"
expect 0 "" -- "$RT" import "$T/e1.json" --db "$T/b.db"
check "grep -q '13 runs added (ids 1-13)' $T/out" "import renumbers: $(cat $T/out)"
expect 0 "" -- "$RT" export --all -o "$T/e2.json" --db "$T/b.db"
check "cmp -s $T/e1.json $T/e2.json" "export -> import -> export is byte-equal"
rows "$A" >"$T/a.rows"; rows "$T/b.db" >"$T/b.rows"
check "[ \$(wc -l <$T/a.rows) -gt 600 ] && cmp -s $T/a.rows $T/b.rows" \
      "every row and value of the import equals the source's as sqlite3 reads them ($(diff $T/a.rows $T/b.rows | head -3))"
check "[ \"\$(sqlite3 $T/b.db \"select count(*) from accuracy where source like 'golden:%'\")\" = \"\$(sqlite3 $A \"select count(*) from accuracy where source like 'golden:%'\")\" ]" \
      "external-golden error rows travel too"
check "[ \"\$(sqlite3 $T/b.db \"select quote(entire_sqnr_db) from accuracy where source like 'golden:%' limit 1\")\" = '-Inf' ]" \
      "an infinite SQNR stays infinite"
qs="select group_concat(quote(out_scale)||quote(out_zp)||quote(out_qtype)||quote(out_min)||quote(out_max)||quote(out_mean)||quote(out_std), ';') from layers l join runs r on r.id = l.run_id where r.label = 'quantized'"
qa=$(sqlite3 "$A" "$qs"); qb=$(sqlite3 "$T/b.db" "$qs")
[ "$qa" = "$qb" ] && [[ "$qa" == *"'asymmetric_quantized-8'-"* ]] && ok ||
    bad "a layer's output quantization and statistics travel exactly: $qa / $qb"
# a subset by tag, and a run given by label
expect 0 "" -- "$RT" export --tag even mnist-fp32 -o "$T/e3.json" --db "$A"
n_even=$(sqlite3 "$A" "select count(*) from tags where tag='even' and run_id <> (select id from runs where label='mnist-fp32')")
check "[ \$(python3 -c 'import json,sys;print(len(json.load(open(sys.argv[1]))[\"runs\"]))' $T/e3.json) = $((n_even + 1)) ]" "export --tag selects"

# the same file again: every run is here already, nothing changes
before=$(rows "$T/b.db")
expect 0 "" -- "$RT" import "$T/e1.json" --db "$T/b.db"
check "grep -q '0 runs added, 13 already here' $T/out && [ \"\$(rows $T/b.db)\" = \"\$before\" ]" "re-import adds nothing: $(head -1 $T/out)"

# --- merge ---------------------------------------------------------------------------
"$RT" run "$MNIST" --db "$T/c.db" --label mnist-fp32 >/dev/null || bad "run into c.db"
expect 0 "" -- "$RT" merge "$A" --db "$T/c.db"
check "grep -q '13 runs added (ids 2-14), 0 already here (skipped), 1 relabelled' $T/out" "merge report: $(cat $T/out)"
check "grep -q \"label 'mnist-fp32' is taken by run 1 here: added as run .* 'mnist-fp32-2'\" $T/out" "merge names the relabelled run"
check "[ \$(sqlite3 $T/c.db 'select count(*) from runs') = 14 ]" "14 runs after the merge"
# what was merged equals the source, row by row, but the one label
rows "$A" >"$T/a.rows"
sqlite3 "$T/c.db" "delete from runs where id = 1; update runs set label='mnist-fp32' where label='mnist-fp32-2'" 2>/dev/null
rows "$T/c.db" >"$T/c.rows"
check "cmp -s $T/a.rows $T/c.rows" "merged rows equal the source's ($(diff $T/a.rows $T/c.rows | head -3))"
expect 0 "" -- "$RT" merge "$A" --db "$T/c.db"
check "grep -q '0 runs added, 13 already here' $T/out" "merging again adds nothing"
expect 0 "" -- "$RT" merge "$T/b.db" --db "$T/c.db"
check "grep -q '0 runs added, 13 already here' $T/out" "the imported copy has the same content hashes"

# --- bad input: one line, non-zero exit, the database unchanged ----------------------
D=$T/c.db
sum0=$(sha256sum <"$D")
unchanged() { check "[ \"\$(sha256sum <$D)\" = \"$sum0\" ]" "$1 left the database unchanged"; }
head -c $(($(stat -c %s "$T/e1.json") / 2)) "$T/e1.json" >"$T/trunc.json"
expect 2 "trunc.json: not a complete JSON document" -- "$RT" import "$T/trunc.json" --db "$D"; unchanged "truncated export"
sed 's/"version":3,/"version":99,/' "$T/e1.json" >"$T/newer.json"
expect 2 "newer rknn-trace \(export version 99 > 3\)" -- "$RT" import "$T/newer.json" --db "$D"; unchanged "newer export"
sed 's/"rknn-trace-export"/"something-else"/' "$T/e1.json" >"$T/other.json"
expect 2 "" -- "$RT" import "$T/other.json" --db "$D"; unchanged "a JSON file that is not an export"
# the last run has a field of the wrong type: the good runs before it are not written either
python3 - "$T/e1.json" "$T/badfield.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["runs"][0]["time"] = "2030-01-01T00:00:00Z"   # new content: would be added
d["runs"][-1]["layers"][0]["npu_cycles"] = "many"
open(sys.argv[2], "w").write(json.dumps(d))
EOF
expect 2 "run 13: layers row 0: field 'npu_cycles' has the wrong type" -- "$RT" import "$T/badfield.json" --db "$D"; unchanged "a bad field in the last run"
cp tests/fuzz/corpus/export/broken_label_number.json "$T/label.json"
expect 2 "label.json: run 1: bad label '7'" -- "$RT" import "$T/label.json" --db "$D"; unchanged "a label that is a number"
printf 'SQLite format 3\0garbage' >"$T/garbage.db"
expect 2 "not an rknn-trace database" -- "$RT" merge "$T/garbage.db" --db "$D"; unchanged "merge of garbage"
sqlite3 "$T/foreign.db" "create table t(x); insert into t values (1)"
expect 2 "foreign.db: not an rknn-trace database" -- "$RT" merge "$T/foreign.db" --db "$D"; unchanged "merge of another application's database"
cp "$A" "$T/newer.db"; sqlite3 "$T/newer.db" "pragma user_version = 99"
expect 2 "created by a newer rknn-trace" -- "$RT" merge "$T/newer.db" --db "$D"; unchanged "merge of a newer database"
expect 2 "nope.db" -- "$RT" merge "$T/nope.db" --db "$D"; unchanged "merge of a missing file"
# reading commands on a database that is not there: what to do, not errno's words
for cmd in "show 1" "compare 1 2" "report 1 -f md" "tag 1 x" "untag 1 x" "label 1 x" "rm 1 -y" \
           "export 1 -o $T/nodb.json"; do
    expect 2 "nodb.db: no such database: no run recorded there yet \\(rknn-trace run MODEL records one" -- "$RT" $cmd --db "$T/nodb.db"
    check "[ ! -e $T/nodb.db ]" "$cmd created the missing database"
done
expect 1 "import it alone" -- "$RT" import "$T/e1.json" --label x --db "$D"; unchanged "import of an export with log options"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
