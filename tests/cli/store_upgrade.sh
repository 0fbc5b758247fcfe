#!/usr/bin/env bash
# The schema 4 -> 6 upgrade on a database written by the schema-4 CLI
# (tests/data/store/v4-release.db, made by make_v4_fixture.sh): every surface
# prints, byte for byte, what the schema-4 CLI printed for it (show, show
# --json, --npu-table, ls, report in every format, compare), but for two
# changes made since, whose files were refreshed then: `compare` (and the
# comparison reports) list a prediction's Input/OutputOperator rows, kept in
# npu_rows, with their time (compare-1-2/1-3.txt, report-1-2/1-3/1-8.md), and a
# vendor file's prediction says `--emulate` computes its outputs (run 4's
# show, show --json and reports); the facts moved
# into the typed columns equal the values Python's json module reads from the
# schema-4 texts before the upgrade (the oracle), and what stays of those texts
# is the rest of them; the load samples that only repeated a prediction's load
# are gone and still read back (gnuplot, trace); a version-1 export of the same
# runs imports into what the upgrade made (every run a duplicate); a failed
# upgrade leaves the schema-4 file as it was.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RT=$B/rknn-trace
PY=/usr/bin/python3
F=tests/data/store
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

cp "$F/v4-release.db" "$T/db"
[ "$(sqlite3 "$T/db" "pragma user_version")" = 4 ] && ok || bad "fixture is not schema 4"
# the oracle, read before the upgrade: every run's texts as Python objects
$PY - "$T/db" "$T/before.json" <<'EOF'
import json, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
runs = {}
for i, extra, env in con.execute("SELECT id, extra_json, env_json FROM runs"):
    runs[i] = {"extra": json.loads(extra) if extra else None, "env": json.loads(env) if env else None}
runs["samples"] = {str(r): [list(x) for x in con.execute(
    "SELECT t_us, core, load_pct FROM load_samples WHERE run_id=? ORDER BY idx", (r,))]
    for (r,) in con.execute("SELECT id FROM runs")}
json.dump(runs, open(sys.argv[2], "w"))
EOF
n=$(sqlite3 "$T/db" "select count(*) from runs")

# -- every surface prints what the schema-4 CLI printed ----------------------------
# STORE_UPGRADE_REFRESH=1: a renderer changed on purpose; write what this build
# prints as the expected texts (review `git diff tests/data/store/v4-release`:
# it must show only the renderer's change, README.md there says so)
same() { # name, file printed now
    if [ -n "${STORE_UPGRADE_REFRESH:-}" ]; then cp "$2" "$F/v4-release/$1"; ok; return; fi
    if cmp -s "$F/v4-release/$1" "$2"; then ok; else bad "$1 differs after the upgrade: $(diff "$F/v4-release/$1" "$2" | head -5)"; fi
}
# printed NAME CMD...: what CMD prints is NAME's; written NAME CMD...: the file
# $T/o that CMD writes is. A command that fails (or crashes) fails the check.
printed() {
    local name=$1; shift
    if "$@" >"$T/o" 2>"$T/err"; then same "$name" "$T/o"; else bad "$name: $* exited $? ($(tail -c 300 "$T/err"))"; fi
}
written() {
    local name=$1; shift
    if "$@" >/dev/null 2>"$T/err"; then same "$name" "$T/o"; else bad "$name: $* exited $? ($(tail -c 300 "$T/err"))"; fi
}
"$RT" ls --db "$T/db" >"$T/ls.txt" 2>"$T/err" && same ls.txt "$T/ls.txt" || bad "ls: $(cat "$T/err")"
[ "$(sqlite3 "$T/db" "pragma user_version")" = 6 ] && ok || bad "not upgraded to 6"
for i in $(seq 1 "$n"); do
    printed "show-$i.txt" "$RT" show "$i" --db "$T/db"
    printed "show-$i.json" "$RT" show "$i" --db "$T/db" --json
    written "report-$i.json" "$RT" report "$i" --db "$T/db" -f json -o "$T/o"
    if [ -f "$F/v4-release/npu-table-$i.txt" ]; then
        printed "npu-table-$i.txt" "$RT" show "$i" --db "$T/db" --npu-table
    fi
    for f in md html csv trace; do
        written "report-$i.$f" "$RT" report "$i" --db "$T/db" -f $f -o "$T/o"
    done
    rm -rf "$T/gp"
    "$RT" report "$i" --db "$T/db" -f gnuplot -o "$T/gp" >/dev/null 2>"$T/err" ||
        bad "report $i -f gnuplot exited $? ($(tail -c 300 "$T/err"))"
    if diff -r "$F/v4-release/report-$i.gnuplot" "$T/gp" >/dev/null; then ok; else bad "report-$i.gnuplot differs"; fi
done
for p in "1 2" "1 3" "1 8" "5 1"; do
    set -- $p
    printed "compare-$1-$2.txt" "$RT" compare "$1" "$2" --db "$T/db"
    written "report-$1-$2.md" "$RT" report "$1" "$2" --db "$T/db" -f md -o "$T/o"
done

# -- the typed columns hold the facts the texts held ---------------------------------
$PY - "$T/db" "$T/before.json" <<'EOF' && ok || bad "typed facts vs the schema-4 texts"
import json, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.row_factory = sqlite3.Row
before = json.load(open(sys.argv[2]))
moved_extra = ["npu_load", "perf_table_us", "npu_clock_mhz", "ddr_clock_mhz", "npu_table",
               "quant", "import", "perf_run_us"]
bad = []
def want(run, what, got, exp):
    if got != exp:
        bad.append(f"run {run}: {what} {got!r}, want {exp!r}")
for r in con.execute("SELECT * FROM runs ORDER BY id"):
    i = str(r["id"])
    x = before[i]["extra"] or {}
    e = before[i]["env"] or {}
    want(i, "perf_table_us", r["perf_table_us"], x.get("perf_table_us"))
    want(i, "npu_clock_mhz", r["npu_clock_mhz"], x.get("npu_clock_mhz"))
    want(i, "ddr_clock_mhz", r["ddr_clock_mhz"], x.get("ddr_clock_mhz"))
    want(i, "perf_run_us", r["perf_run_us"], x.get("perf_run_us"))
    want(i, "import_kind", r["import_kind"], x.get("import"))
    q = x.get("quant", {})
    for col, key in [("calib_samples", "calibration_samples"), ("int8_layers", "int8_layers"),
                     ("fp16_layers", "fp16_layers"), ("cfg_params", "cfg_parameters")]:
        want(i, col, r[col], q.get(key))
    perf = x.get("perf", {})
    want(i, "log_total_us", r["log_total_us"], perf.get("total_time_us") if "import" in x else None)
    t = x.get("npu_table")
    want(i, "npu_table_layers", r["npu_table_layers"], t["layers"] if t else None)
    got = []
    for n in con.execute("SELECT * FROM npu_rows WHERE run_id=? ORDER BY at", (r["id"],)):
        row = {"at": n["at"], "skip": n["skip"], "id": n["id"], "op": n["op"], "datatype": n["datatype"],
               "dtype": n["dtype"], "target": n["target"], "n_in": n["n_in"], "in": json.loads(n["in_shapes"]),
               "n_out": n["n_out"], "out": json.loads(n["out_shapes"]),
               "cycles": [n["ddr_cycles"], n["npu_cycles"], n["total_cycles"]], "time_us": n["time_us"],
               "macs": bool(n["macs"]), "mac_usage": [n[f"mac_usage{c}"] for c in range(n["n_cores"])],
               "workload": [n[f"workload{c}"] for c in range(n["n_cores"])], "tasks": n["tasks"],
               "rw_kb": n["rw_kb"], "fullname": n["fullname"]}
        if n["note"] is not None:
            row["note"] = n["note"]
        got.append(row)
    want(i, "npu_rows", got, t["rows"] if t else [])
    cm = e.get("npu_cost_model", {})
    want(i, "cost_model_version", r["cost_model_version"], cm.get("version"))
    want(i, "cost_model_fingerprint", r["cost_model_fingerprint"], cm.get("fingerprint"))
    load = [v for (v,) in con.execute("SELECT load_pct FROM npu_load WHERE run_id=? ORDER BY core", (r["id"],))]
    want(i, "npu_load", load, x.get("npu_load", []))
    # what stays of the texts: the rest, nothing moved left in them
    rest = {k: v for k, v in x.items() if k not in moved_extra}
    if "perf" in rest:
        rest["perf"] = {k: v for k, v in rest["perf"].items() if k != "total_time_us"}
    want(i, "extra_json", json.loads(r["extra_json"]) if r["extra_json"] else {}, rest)
    env_rest = {k: v for k, v in e.items() if k != "npu_cost_model"}
    want(i, "env_json", json.loads(r["env_json"]) if r["env_json"] else {}, env_rest)
    # samples that only repeated the load are gone, the board's sampled ones kept
    smp = [list(s) for s in con.execute("SELECT t_us, core, load_pct FROM load_samples WHERE run_id=? ORDER BY idx", (r["id"],))]
    old = before["samples"][i]
    repeat = len(old) == len(load) and all(s == [0.0, c, float(load[c])] for c, s in enumerate(old))
    want(i, "load samples", smp, [] if repeat and load else old)
# every layer's WorkLoad text as numbers (Python's float() of each share)
import re
n_wl = 0
for node, wl, n, *pct in con.execute("SELECT node, workload, workload_cores, workload0, workload1, "
                                     "workload2 FROM layers"):
    shares = [float(x) for x in re.findall(r"([0-9.]+)%", wl)] if wl else []
    if n != (len(shares) or None) or pct[:len(shares)] != shares:
        bad.append(f"layer {node}: workload {wl!r} read as {n} {pct}")
    n_wl += bool(shares)
if n_wl < 30:
    bad.append(f"only {n_wl} layers with a workload")
if not any(before[str(k)]["extra"] and "npu_load" in before[str(k)]["extra"] for k in (1, 2, 3, 8)):
    bad.append("fixture lacks npu_load")
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
[ "$(sqlite3 "$T/db" "select count(*) from load_samples where run_id in (1,2,3)")" = 0 ] && \
    [ "$(sqlite3 "$T/db" "select count(*) from load_samples where run_id = 8")" -gt 0 ] && ok || bad "samples kept"

# -- a version-1 export of the same runs: the same facts, every run a duplicate ------
"$RT" import "$F/v4-release/export-v1.json" --db "$T/db" >"$T/o" 2>"$T/err"
[ "$(grep -c "already here as run" "$T/err" "$T/o" | awk -F: '{s += $NF} END {print s}')" = "$n" ] && \
    [ "$(sqlite3 "$T/db" "select count(*) from runs")" = "$n" ] && ok || bad "v1 export not all duplicates: $(cat "$T/o" "$T/err" | head -5)"
"$RT" import "$F/v4-release/export-v1.json" --db "$T/fresh.db" >/dev/null 2>&1
for i in $(seq 1 "$n"); do
    printed "show-$i.json" "$RT" show "$i" --db "$T/fresh.db" --json
done
"$RT" export $(seq 1 "$n") --db "$T/db" -o "$T/a.json" >/dev/null 2>&1
"$RT" export $(seq 1 "$n") --db "$T/fresh.db" -o "$T/b.json" >/dev/null 2>&1
$PY -c "
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a['version'] == 3 and a['store_schema'] == 6, (a['version'], a['store_schema'])
assert a['runs'] == b['runs'], 'upgraded and imported runs differ'
" "$T/a.json" "$T/b.json" && ok || bad "export of the upgraded vs the imported version-1 runs"

# -- a version-2 export (the schema-5 CLI's, of the runs it upgraded to schema 5):
# its level-4 rows have no frame_us; imported, every run is a duplicate of the
# upgraded one, and a fresh import prints the same show --json and compare
"$RT" import "$F/v4-release/export-v2.json" --db "$T/db" >"$T/o" 2>"$T/err"
[ "$(grep -c "already here as run" "$T/err" "$T/o" | awk -F: '{s += $NF} END {print s}')" = "$n" ] &&
    ok || bad "v2 export not all duplicates: $(cat "$T/o" "$T/err" | head -5)"
"$RT" import "$F/v4-release/export-v2.json" --db "$T/fresh2.db" >/dev/null 2>&1
for i in $(seq 1 "$n"); do
    printed "show-$i.json" "$RT" show "$i" --db "$T/fresh2.db" --json
done
for p in "1 2" "1 3" "1 8"; do
    set -- $p
    printed "compare-$1-$2.txt" "$RT" compare "$1" "$2" --db "$T/fresh2.db"
done

# a version-1 file holding a field of version 2 is refused, nothing added
$PY - "$F/v4-release/export-v1.json" "$T/mixed.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["runs"][0]["npu_clock_mhz"] = 1000
json.dump(d, open(sys.argv[2], "w"))
EOF
"$RT" import "$T/mixed.json" --db "$T/mixed.db" >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && grep -q "version-1 export with fields of version 2" "$T/err" && \
    [ "$(sqlite3 "$T/mixed.db" "select count(*) from runs" 2>/dev/null || echo 0)" = 0 ] && ok || bad "mixed export: exit $rc, $(cat "$T/err")"

# values that are not of their column's type stay in their text, the rest moves
# (tests/fuzz/corpus/store/legacy_v4_odd.db: run 1's load, quant counts, a table row
# and cost model version mangled by hand, run 5's import mark and total)
cp tests/fuzz/corpus/store/legacy_v4_odd.db "$T/odd.db"
"$RT" ls --db "$T/odd.db" >/dev/null 2>&1
[ "$(sqlite3 "$T/odd.db" "select cost_model_fingerprint || ' ' || json_extract(env_json, '\$.npu_cost_model') ||
    ' ' || json_extract(extra_json, '\$.npu_load') || ' ' || json_extract(extra_json, '\$.quant') ||
    ' ' || json_type(extra_json, '\$.npu_table') || ' ' || quote(npu_table_layers) || ' ' || npu_clock_mhz
    from runs where id = 1")" = '6de66a0ad26ec7aa {"version":-3} [50,101] {"int8_layers":"x","fp16_layers":1.5} object NULL 1000' ] && \
  [ "$(sqlite3 "$T/odd.db" "select quote(import_kind) || ' ' || json_extract(extra_json, '\$.import') || ' ' ||
    json_extract(extra_json, '\$.perf.total_time_us') from runs where id = 5")" = 'NULL 7 n/a' ] && \
  [ "$(sqlite3 "$T/odd.db" "select count(*) from npu_load")" = 0 ] && ok || bad "mangled values kept in their texts"

# -- a failed upgrade leaves the schema-4 file as it was ------------------------------
cp "$F/v4-release.db" "$T/u.db"
sqlite3 "$T/u.db" "CREATE TABLE npu_load (mine TEXT)" # a user's table in the step's way
sqlite3 "$T/u.db" .dump >"$T/u.before"
"$RT" ls --db "$T/u.db" >/dev/null 2>"$T/err"; rc=$?
sqlite3 "$T/u.db" .dump >"$T/u.after"
[ $rc -ne 0 ] && [ "$(sqlite3 "$T/u.db" "pragma user_version")" = 4 ] && cmp -s "$T/u.before" "$T/u.after" \
    && [ ! -e "$T/u.db-journal" ] && ok || bad "failed upgrade: exit $rc, $(cat "$T/err"), version $(sqlite3 "$T/u.db" "pragma user_version")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
