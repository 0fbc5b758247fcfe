#!/usr/bin/env bash
# `run MODEL --backend board|auto --runtime PATH`: the project's own
# librknnrt.so stands in for the vendor's. The board run's profiled layers are
# checked against a simulator run of the same model (NPU cycles row by row, times
# within the table's 1 us rounding) read by the sqlite3 CLI; the environment and
# the load samples against a board fixture (make_fixture.sh); auto's choice;
# a runtime without a symbol, a missing runtime.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RT=$B/rknn-trace
LIB=$B/librknnrt.so
PY=/usr/bin/python3
export RT_SHARED=${RT_SHARED:-../shared}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export RKNN_TRACE_SYSFS=$T/sim
unset RKNN_TRACE_RUNTIME
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
q() { sqlite3 "$T/db" "$1"; }
M=tests/data/models/mnist.onnx

"$RT" run "$M" --backend sim -t rk3588 -n 3 --no-progress --db "$T/db" >/dev/null 2>"$T/err" || bad "sim run: $(cat "$T/err")"
"$RT" run "$M" --backend board --runtime "$LIB" -t rk3588 -n 5 --label b1 --db "$T/db" >"$T/out" 2>"$T/err" \
    || bad "board run: $(cat "$T/err")"
[ "$(q "select backend||','||iterations||','||warmup from runs where label='b1'")" = "board,5,2" ] && ok || bad "board run row"
# the level-4 tables show rebuilds: the simulator's has the layers of no
# node (the output's Reshape) from its npu_rows, the board's printed them
npu_col() { "$RT" show "$1" --npu-table --db "$T/db" 2>/dev/null |
    awk '$1 ~ /^[0-9]+$/ && $4 == "NPU" { split($7, c, "/"); printf "%s%s", s, c[2]; s = "," }'; }
sim=$(npu_col 1)
brd=$(npu_col "$(q "select id from runs where label='b1'")")
[ -n "$sim" ] && [ "$sim" = "$brd" ] && ok || bad "NPU cycles: sim $sim, board $brd"
dt=$(q "select max(abs(a.t-b.t)) from
  (select row_number() over (order by idx) k, time_us t from layers where run_id=1 and target='NPU' and time_us is not null) a join
  (select row_number() over (order by idx) k, l.time_us t from layers l join runs r on r.id=l.run_id where r.label='b1' and target='NPU') b using (k)")
$PY -c "import sys; sys.exit(0 if float('$dt') < 1.0 else 1)" && ok || bad "layer times differ by $dt us"
[ "$(q "select count(*) from layers l join runs r on r.id=l.run_id where r.label='b1' and l.op='InputOperator' and l.target='CPU'")" = 1 ] && \
    [ "$(q "select op||':'||node from layers l join runs r on r.id=l.run_id where r.label='b1' and npu_op='ConvRelu' order by idx limit 1")" = "Conv:Convolution28" ] \
    && ok || bad "FullName split into op and node"
q "select env_json from runs where label='b1'" >"$T/env.json"
$PY -c "
import json,sys; e=json.load(open(sys.argv[1]))
assert e['source']=='board' and e['runtime_path'].endswith('librknnrt.so'), e
assert 'rknn-trace' in e['runtime_version'] and e['kernel']==open('/proc/sys/kernel/osrelease').read().strip(), e" "$T/env.json" \
    && ok || bad "env: $(cat "$T/env.json")"
# load samples during the run: the simulator's published file, read as the board's
n=$(q "select count(*) from load_samples s join runs r on r.id=s.run_id where r.label='b1'")
[ "$n" -gt 0 ] && [ "$(q "select count(*) from load_samples where load_pct<0 or load_pct>100 or core not in (0,1,2)")" = 0 ] \
    && ok || bad "load samples: $n"
grep -q "^board: .*5 runs: rknn_run median" "$T/out" && ok || bad "text: $(tail -2 "$T/out")"

# --json: the run document of show
"$RT" run "$M" --backend board --runtime "$LIB" -n 2 --json --db "$T/db" >"$T/j" 2>"$T/err"
$PY -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['backend']=='board' and d['layer_count']==8 else 1)" "$T/j" \
    && ok || bad "json: $(head -c 300 "$T/j") $(cat "$T/err")"

# -i and --dump: the runtime's level-5 dumps of the profiled run; its dump of the
# graph input is the given file (numpy), stdout stays one JSON document
$PY -c "import numpy as np; np.save('$T/x.npy', np.random.default_rng(7).random((1,1,28,28), dtype=np.float32))"
"$RT" run "$M" --backend board --runtime "$LIB" -n 2 -i Input3="$T/x.npy" --dump "$T/dumps" --label dmp --json \
    --db "$T/db" >"$T/dj" 2>"$T/err" || bad "dump run: $(tail -3 "$T/err")"
$PY -c "
import json,sys,glob,numpy as np
d=json.load(open(sys.argv[1])); assert d['backend']=='board' and d['dump_dir']==sys.argv[2], d['dump_dir']
x=np.load(sys.argv[3]); i=np.load(glob.glob(sys.argv[2]+'/000_InputOperator_*.npy')[0])
assert np.array_equal(x, i), 'input dump differs'" "$T/dj" "$(cd "$T" && pwd -P)/dumps" "$T/x.npy" && ok || bad "dumps / -i: $(head -c 300 "$T/dj")"
[ "$(q "select count(*) from outputs o join runs r on r.id=o.run_id where r.label='dmp' and dump_file is not null")" = \
  "$(ls "$T/dumps"/*.npy | wc -l)" ] && ok || bad "dump rows"
"$RT" run "$M" --backend board --runtime "$LIB" -i nope="$T/x.npy" --no-db >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -q "no input of that name" "$T/err" && ok || bad "-i bad name: $(cat "$T/err")"
$PY -c "import numpy as np; np.save('$T/y.npy', np.zeros((1,3), dtype=np.float32))"
"$RT" run "$M" --backend board --runtime "$LIB" -i Input3="$T/y.npy" --no-db >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -q "takes 784 elements" "$T/err" && ok || bad "-i bad size: $(cat "$T/err")"

# on a board (fixture tree): its environment and its load
bash tests/board/make_fixture.sh "$T/r"
"$RT" run "$M" --backend board --runtime "$LIB" --root "$T/r" -n 3 --label fx --db "$T/db" >/dev/null 2>"$T/err" || bad "fixture run: $(cat "$T/err")"
q "select env_json from runs where label='fx'" >"$T/env2.json"
$PY -c "
import json,sys; e=json.load(open(sys.argv[1]))
assert e['soc']=='rk3588' and e['driver_version']=='0.9.8' and e['npu_freq_hz']==1000000000 and e['npu_governor']=='userspace', e
assert e['ddr_freq_hz']==2112000000 and [c['cur_khz'] for c in e['cpu']]==[1800000,2256000,2304000] and e['kernel']=='6.1.115', e" "$T/env2.json" \
    && ok || bad "fixture env: $(cat "$T/env2.json")"
[ "$(q "select group_concat(distinct cast(load_pct as int)) from (select load_pct from load_samples s join runs r on r.id=s.run_id where r.label='fx' order by core)")" = "61,50" ] \
    && ok || bad "fixture load: $(q "select core, load_pct from load_samples s join runs r on r.id=s.run_id where r.label='fx' limit 6")"

[ "$(q "select platform from runs where label='fx'")" = rk3588 ] && ok || bad "platform from the device tree"
"$RT" show fx --db "$T/db" | grep -q "^NPU load  Core0 61%, Core1 50%, Core2 50%" && ok || bad "summary load: $("$RT" show fx --db "$T/db" | grep load)"
# a simulator run's predicted load is stored once (npu_load, no samples): its summary's figures
load1=$("$RT" show 1 --db "$T/db" | sed -n 's/^NPU load  *//p' | sed 's/Core[0-9] //g; s/%//g; s/ //g')
[ "$(q "select count(*) from load_samples where run_id=1")" = 0 ] && [ -n "$load1" ] && \
  [ "$(q "select group_concat(load_pct) from (select load_pct from npu_load where run_id=1 order by core)")" = "$load1" ] \
  && ok || bad "sim load stored once: $load1"

# a vendor .rknn through a stand-in of the vendor runtime (stub_runtime.c) that answers
# PERF_DETAIL with a real board's table: the platform and toolkit from the file (as the
# MANIFEST states them), the layer rows and times as the table has them (Python regex)
mkdir -p "$T/stub"
cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -Iinclude -o "$T/stub/librknnrt.so" tests/board/stub_runtime.c || bad "stub build"
RK=$RT_SHARED/data/models/rknn/multiple_input_demo.rk3566.rknn
P=tests/fuzz/corpus/perflog/perf-perfdetail-yolov8n1920-rk3588-channy-01.txt
if [ -f "$RK" ]; then
    STUB_PERF=$P "$RT" run "$RK" --backend board --runtime "$T/stub/librknnrt.so" -n 3 --label vend --db "$T/db" >/dev/null 2>"$T/err" \
        || bad "vendor .rknn on the stub: $(cat "$T/err")"
    read -r mt mtk < <($PY -c "
import sys
for l in open(sys.argv[1]):
    c=[x.strip().strip('\`') for x in l.split('|')]
    if len(c)>6 and c[1]=='multiple_input_demo.rk3566.rknn': print(c[3], c[6])" "$RT_SHARED/data/models/rknn/MANIFEST.md")
    [ "$(q "select platform||' '||json_extract(env_json,'$.toolkit_version')||' '||json_extract(env_json,'$.runtime_version') from runs where label='vend'")" = \
      "$mt $mtk 1.5.2 (c6b7b351a@2023-08-23T15:28:22)" ] && ok || bad "vendor facts: $(q "select platform, env_json from runs where label='vend'") want $mt $mtk"
    read -r nrows tsum < <($PY -c "
import re,sys; n=s=0
for l in open(sys.argv[1]):
    l=re.sub(r'^---> ','',l); m=re.match(r'^(\d+)\s+\S+\s+\S+\s+(NPU|CPU)\s.*?\s(\d+/\d+/\d+)\s+(\d+)\s', l)
    if m: n+=1; s+=int(m.group(4))
print(n, s)" "$P")
    [ "$(q "select count(*)||' '||cast(sum(time_us) as int) from layers l join runs r on r.id=l.run_id where r.label='vend'")" = "$nrows $tsum" ] \
        && ok || bad "vendor table rows: $(q "select count(*), sum(time_us) from layers l join runs r on r.id=l.run_id where r.label='vend'") want $nrows $tsum"
    [ "$(q "select perf_run_us from runs where label='vend'")" = 1234 ] && ok || bad "perf_run_us"
fi

# --seed: one generator for both backends (record/seed_input.c). A 3-channel
# input (its NHWC/NCHW order matters): the sha256 both record of the bytes fed,
# the input each dumps, and the first values against splitmix64 computed here.
$PY tests/cli/make_models.py "$T" || bad "make_models.py"
"$RT" run "$T/gap.onnx" --backend sim -n 1 --seed 11 --dump "$T/sd" --label s11 --db "$T/db" --no-progress >/dev/null 2>"$T/err" \
    || bad "seeded sim run: $(cat "$T/err")"
"$RT" run "$T/gap.onnx" --backend board --runtime "$LIB" -n 1 --seed 11 --dump "$T/bd" --label b11 --db "$T/db" >/dev/null 2>"$T/err" \
    || bad "seeded board run: $(tail -1 "$T/err")"
$PY - "$(q "select inputs_json from runs where label='s11'")" "$(q "select inputs_json from runs where label='b11'")" "$T" <<'PYEOF' && ok || bad "--seed: same input on sim and board"
import glob, hashlib, json, sys
import numpy as np
s, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert s[0]["sha256"] == b[0]["sha256"] and s[0]["source"] == b[0]["source"] == "random:uniform01:splitmix64:seed=11", (s, b)
assert s[0]["shape"] == b[0]["shape"] == [1, 3, 64, 64], (s, b)
x = np.load(sys.argv[3] + "/sd/input_x.npy")
y = np.load(glob.glob(sys.argv[3] + "/bd/000_InputOperator_x_*.npy")[0])
assert x.shape == y.shape == (1, 3, 64, 64) and np.array_equal(x, y)
assert hashlib.sha256(x.tobytes()).hexdigest() == s[0]["sha256"]
M64 = (1 << 64) - 1
st, want = 11, []
for _ in range(3):
    st = (st + 0x9e3779b97f4a7c15) & M64
    z = ((st ^ (st >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    z ^= z >> 31
    want.append(np.float32((z >> 11) / 2.0**53))
assert list(x.reshape(-1)[:3]) == want, (x.reshape(-1)[:3], want)
PYEOF

# auto: the board only with an rknpu device and a runtime
"$RT" run "$M" -n 2 --label a1 --db "$T/db" --no-progress >/dev/null 2>&1
[ "$(q "select backend from runs where label='a1'")" = sim ] && ok || bad "auto without a device"
RKNN_TRACE_RUNTIME=$LIB "$RT" run "$M" -n 2 --root "$T/r" --label a2 --db "$T/db" --no-progress >/dev/null 2>&1
[ "$(q "select backend from runs where label='a2'")" = board ] && ok || bad "auto with device + runtime"
RKNN_TRACE_RUNTIME=$LIB "$RT" run "$M" -n 2 --label a3 --db "$T/db" --no-progress >/dev/null 2>&1
[ "$(q "select backend from runs where label='a3'")" = sim ] && ok || bad "auto with a runtime but no device"

# bad runtimes: one line, exit 2
printf 'int rknn_init(void){return -1;}\nint rknn_query(void){return -1;}\n__attribute__((used)) const char tag[] = "librknnrt version: 1.5.2 (c6b7b351a@2023-08-23T15:28:22)";\n' \
    | cc -shared -fPIC -x c -o "$T/old.so" -
# the version a runtime carries, read from the file: the vendor's literal, and ours (= its SDK_VERSION answer)
RKNN_TRACE_RUNTIME=$T/old.so "$RT" info | grep -q "^board run  $T/old.so, version 1.5.2 (c6b7b351a@2023-08-23T15:28:22)" && ok || bad "info: vendor version"
RKNN_TRACE_RUNTIME=$T/old.so "$RT" top --snapshot --json | $PY -c "import json,sys; d=json.load(sys.stdin); sys.exit(0 if d['runtime']['version']=='1.5.2 (c6b7b351a@2023-08-23T15:28:22)' else 1)" && ok || bad "top: runtime version"
[ "$(RKNN_TRACE_RUNTIME=$LIB "$RT" info | sed -n 's/^board run  .*, version \(.*\) (--backend board, attach)$/\1/p')" = \
  "$(q "select json_extract(env_json,'$.runtime_version') from runs where label='b1'")" ] && ok || bad "info: our version vs SDK_VERSION"
"$RT" run "$M" --backend board --runtime "$T/old.so" --no-db >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -q "has no rknn_destroy" "$T/err" && [ "$(wc -l <"$T/err")" = 1 ] && ok || bad "old runtime: $(cat "$T/err")"
"$RT" run "$M" --backend board --runtime "$T/none.so" --no-db >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -q "cannot load the runtime" "$T/err" && ok || bad "missing runtime: $(cat "$T/err")"
"$RT" run "$M" --backend board --runtime "$LIB" -q i8 --no-db >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -q "does not apply" "$T/err" && ok || bad "-q on the board: $(cat "$T/err")"

# the database goes away after the up-front check while the board run measures (the
# stand-in runtime replaces it by a folder at its first rknn_run): the figures are still
# printed, stderr says "NOT recorded", exit 5 (computed, not recorded)
if [ -f "$RK" ]; then
    STUB_PERF=$P STUB_REPLACE_AT_RUN=$T/late.db "$RT" run "$RK" --backend board --runtime "$T/stub/librknnrt.so" \
        -n 5 --db "$T/late.db" >"$T/late.out" 2>"$T/late.err"
    rc=$?
    [ $rc = 5 ] && [ -d "$T/late.db" ] && grep -q "the run was NOT recorded: .*late.db" "$T/late.err" &&
        grep -q "^board: .*, 5 runs: rknn_run median" "$T/late.out" &&
        ok || bad "board run, not recorded: exit $rc, $(cat "$T/late.out" "$T/late.err")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
