#!/usr/bin/env bash
# `rknn-trace attach`: the SDK-style samples (tests/samples, linked with -lrknnrt)
# and small API applications (attach_app.c) run under librknntrace.so. Checks
# against independent oracles: outputs byte-identical to the direct run (cmp),
# the model's SHA-256 (sha256sum), the count of rknn_run calls the app makes,
# the layer rows vs the rows of the level-4 table the same runtime prints (read
# by a Python regex), a crash keeping the runs flushed before it, misuse
# warnings, an app without rknn_* calls, an unwritable journal.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RT=$B/rknn-trace
PY=/usr/bin/python3
export RT_SHARED=${RT_SHARED:-../shared}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export RKNN_TRACE_SYSFS=$T/sim
unset RKNN_LOG_LEVEL RKNN_TRACE_PERF RKNN_TRACE_JOURNAL
# the sanitizer build's librknntrace.so is preloaded ahead of the ASan runtime
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0"
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
q() { sqlite3 "$T/db" "$1"; }
M=tests/data/models/mnist.onnx
Y=tests/data/models/yolox_nano.onnx
$PY -c "open('$T/img.ppm','wb').write(b'P6\n416 416\n255\n'+bytes((i*7)%256 for i in range(416*416*3)))"
cc -std=c11 -Wall -Wextra -Werror -O1 $([ "$B" != build ] && echo "-fsanitize=address,undefined") -Iinclude \
    -o "$T/app" tests/board/attach_app.c -L"$B" -lrknnrt -Wl,-rpath,"$(cd "$B" && pwd)" || bad "build attach_app"

# -- sample_general: same outputs, one run of 3 iterations, layers from --perf -------
"$B/samples/sample_general" "$Y" "$T/img.ppm" "$T/a.f32" 3 >"$T/a.out" 2>&1 || bad "direct sample"
"$RT" attach --db "$T/db" --perf 3 --label g -- "$B/samples/sample_general" "$Y" "$T/img.ppm" "$T/b.f32" 3 \
    >"$T/b.out" 2>"$T/b.err"; rc=$?
[ $rc = 0 ] && ok || bad "attach exit $rc: $(cat "$T/b.err")"
cmp -s "$T/a.f32" "$T/b.f32" && ok || bad "outputs differ under attach"
diff <(grep -v -E "ms$" "$T/a.out") <(grep -v -E "ms$" "$T/b.out") >/dev/null && ok || bad "app text differs"
grep -Eq "^rknn-trace: attach: context [0-9]+: (.*: )?3 runs, rknn_run median .*, run [0-9]+$" "$T/b.err" && ok ||
    bad "the summary is not on stderr: $(cat "$T/b.err")"
# the app ran on this project's librknnrt.so: backend simlib (it exports
# rknn_trace_simulated_runtime, which nm sees), never board
nm -D --defined-only "$B/librknnrt.so" | grep -q " rknn_trace_simulated_runtime$" && ok || bad "no self-identifying symbol"
[ "$(q "select iterations||','||backend||','||model_sha256 from runs where label='g'")" = "3,simlib,$(sha256sum "$Y" | cut -d' ' -f1)" ] \
    && ok || bad "run row: $(q "select iterations, backend, model_sha256 from runs")"
RKNN_LOG_LEVEL=4 "$B/samples/sample_general" "$Y" "$T/img.ppm" "$T/c.f32" 1 >"$T/l4.out" 2>&1
want=$($PY -c "
import re,sys; t=open(sys.argv[1]).read().split('Network Layer Information Table')[1]
print(sum(1 for l in t.splitlines() if re.match(r'^(\S+ RKNN: (\[[^]]*\] )?)?\d+\s+\S+\s+\S+\s+(NPU|CPU)\s', l)))" "$T/l4.out")
got=$(q "select count(*) from layers l join runs r on r.id=l.run_id where r.label='g'")
[ "$want" -gt 0 ] && [ "$got" = "$want" ] && ok || bad "layers: $got, the level-4 table has $want"
$PY -c "
import json,sys; e=json.loads(sys.argv[1])
assert e['perf_every']==3 and e['perf_tables']==1 and e['n_inputs']==1 and e['warnings']==[], e
assert e['tensors'][0]['dims']=='1x416x416x3' and e['inputs_set_median_us']>0 and e['exit_status']==0, e" \
    "$(q "select extra_json from runs where label='g'")" && ok || bad "extra: $(q "select extra_json from runs where label='g'")"
[ "$(q "select count(*) from load_samples s join runs r on r.id=s.run_id where r.label='g'")" -gt 0 ] && ok || bad "no load samples"
# every call counted: the sample makes 1 init, 3 runs, 3 inputs_set/outputs_get/release, 1 destroy,
# 1 + 1 + 1 (SDK_VERSION, IN_OUT_NUM, one INPUT_ATTR) + 1 (its one OUTPUT_ATTR) queries
$PY -c "
import json,sys; e=json.loads(sys.argv[1]); c=e['process_calls']
want={'rknn_init':1,'rknn_run':3,'rknn_inputs_set':3,'rknn_outputs_get':3,'rknn_outputs_release':3,'rknn_destroy':1,'rknn_query':4}
got={k:v['calls'] for k,v in c.items()}
assert got==want, got
assert len(e['run_us'])==3 and all(x>0 for x in e['run_us']) and c['rknn_run']['total_us']>=sum(e['run_us'])*0.999, e['run_us']" \
    "$(q "select extra_json from runs where label='g'")" && ok || bad "calls: $(q "select json_extract(extra_json,'$.process_calls') from runs where label='g'")"
[ "$(q "select json_extract(env_json,'$.runtime_version') like '%rknn-trace%' from runs where label='g'")" = 1 ] && ok || bad "env"
# the timing statistics of every source (record/timing.c): median, sample stddev
$PY -c "
import json,sys,statistics as st; e=json.loads(sys.argv[1]); r=e['run_us']
assert abs(float(sys.argv[2])-st.median(r)) < 1e-3 and abs(float(sys.argv[3])-st.stdev(r)) < 1e-3*max(1,st.stdev(r)), (r, sys.argv[2:])" \
    "$(q "select extra_json from runs where label='g'")" "$(q "select total_us from runs where label='g'")" \
    "$(q "select host_stddev_us from runs where label='g'")" && ok || bad "attach: median/sample stddev of run_us"

# -- zero-copy sample: runs recorded, no false warning ---------------------------------
"$RT" attach --db "$T/db" --label z -- "$B/samples/sample_zero_copy" "$Y" "$T/img.ppm" "$T/z.f32" 2 >"$T/z.out" 2>"$T/z.err"
[ $? = 0 ] && [ "$(q "select iterations from runs where label='z'")" = 2 ] && ! grep -q warning "$T/z.err" && ok \
    || bad "zero-copy: $(cat "$T/z.err")"

# -- RKNN_LOG_LEVEL: the runtime's lines captured, still shown ---------------------------
RKNN_LOG_LEVEL=4 "$RT" attach --db "$T/db" --label lg -- "$B/samples/sample_general" "$Y" "$T/img.ppm" "$T/d.f32" 1 \
    >"$T/lg.out" 2>"$T/lg.err"
n=$(q "select json_extract(extra_json,'$.log_lines') from runs where label='lg'")
shown=$(grep -c " RKNN: " "$T/lg.out" "$T/lg.err" | awk -F: '{s+=$2} END{print s}')
[ "${n:-0}" -gt 0 ] && [ "$n" = "$shown" ] && ok || bad "log lines captured $n, shown $shown"
[ "$(q "select count(*) from layers l join runs r on r.id=l.run_id where r.label='lg'")" = "$want" ] && ok || bad "layers from the log"

# -- a crash: the runs flushed before it stay ------------------------------------------
"$RT" attach --db "$T/db" --label cr -- "$T/app" crash "$M" >"$T/cr.out" 2>"$T/cr.err"; rc=$?
[ $rc = 134 ] && grep -q "signal 6" "$T/cr.err" && ok || bad "crash: exit $rc $(cat "$T/cr.err")"
[ "$(q "select iterations||','||json_extract(extra_json,'$.signal') from runs where label='cr'")" = "4,6" ] && ok \
    || bad "crash run: $(q "select iterations, extra_json from runs where label='cr'")"
# killed outright: the 3 runs of the periodic flush (the 4th came after it)
"$RT" attach --db "$T/db" --label kl -- "$T/app" kill "$M" >/dev/null 2>"$T/kl.err"; rc=$?
[ $rc = 137 ] && [ "$(q "select iterations from runs where label='kl'")" = 3 ] && ok \
    || bad "kill: exit $rc, $(q "select iterations from runs where label='kl'") runs $(cat "$T/kl.err")"

# -- misuse: warnings, the app goes on -------------------------------------------------
"$RT" attach --db "$T/db" --label mu -- "$T/app" misuse "$M" >"$T/mu.out" 2>"$T/mu.err"; rc=$?
[ $rc = 0 ] && grep -q "rknn_run before any rknn_inputs_set" "$T/mu.err" && grep -q "before rknn_outputs_release" "$T/mu.err" \
    && grep -q "context 57005: rknn_run on a context rknn_init did not return" "$T/mu.err" \
    && grep -q "input 0 has size 3140, its 784 elements of type 0 take 3136 bytes" "$T/mu.err" && ok || bad "misuse: $(cat "$T/mu.err")"
[ "$(q "select json_array_length(extra_json,'$.warnings') from runs where label='mu'")" = 3 ] && ok || bad "misuse stored"
grep -q "^rknn-trace: attach: context 57005: not made by rknn_init" "$T/mu.err" && ok || bad "misuse text: $(cat "$T/mu.err")"

# -- the application's stdout is its own: byte-identical with and without attach -----
"$T/app" print "$M" >"$T/p1.out" 2>/dev/null; rc1=$?
"$RT" attach --db "$T/db" --label pr -- "$T/app" print "$M" >"$T/p2.out" 2>"$T/p2.err"; rc2=$?
[ "$rc1/$rc2" = 0/0 ] && [ -s "$T/p1.out" ] && cmp -s "$T/p1.out" "$T/p2.out" && ok ||
    bad "app stdout under attach: exit $rc1/$rc2, $(cmp "$T/p1.out" "$T/p2.out" 2>&1) $(cat "$T/p2.err")"
[ "$(q "select iterations from runs where label='pr'")" = 2 ] && grep -q "context .*2 runs.*, run [0-9]" "$T/p2.err" &&
    ok || bad "print run not recorded: $(cat "$T/p2.err")"
# the database goes away while the application runs (after attach's up-front check):
# the summary still printed, "NOT recorded", exit 5 (computed, not recorded)
"$RT" attach --db "$T/gone.db" --label gone -- sh -c 'rm -f "$1" && mkdir "$1" && exec "$2" print "$3"' sh \
    "$T/gone.db" "$T/app" "$M" >"$T/g.out" 2>"$T/g.err"; rc=$?
[ $rc = 5 ] && grep -q "the run was NOT recorded: .*gone.db" "$T/g.err" && grep -q "context .*: 2 runs" "$T/g.err" &&
    cmp -s "$T/p1.out" "$T/g.out" && ok || bad "attach, not recorded: exit $rc, $(cat "$T/g.err")"

# -- two contexts (rknn_dup_context): one run each, labelled L and L-2, same model ------
"$RT" attach --db "$T/db" --label two -- "$T/app" two "$M" >"$T/two.out" 2>"$T/two.err"
[ "$(q "select group_concat(label||':'||iterations||':'||(model_sha256='$(sha256sum "$M" | cut -d' ' -f1)'), ' ') from runs where label like 'two%'")" = \
  "two:2:1 two-2:3:1" ] && ok || bad "two contexts: $(q "select label, iterations, model_sha256 from runs where label like 'two%'") $(cat "$T/two.err")"

# -- a vendor .rknn given as bytes, on a stand-in of the vendor runtime: its facts come
# from the copy the interposer saves (target and toolkit as the MANIFEST states them)
RK=$RT_SHARED/data/models/rknn/multiple_input_demo.rk3588.rknn
if [ -f "$RK" ]; then
    mkdir -p "$T/stub"
    cc -std=c11 -shared -fPIC -Iinclude -o "$T/stub/librknnrt.so" tests/board/stub_runtime.c
    LD_LIBRARY_PATH=$T/stub STUB_PERF=tests/fuzz/corpus/perflog/perf-perfdetail-yolov8n1920-rk3588-channy-01.txt \
        "$RT" attach --db "$T/db" --perf 1 --label vend -- "$B/samples/sample_general" "$RK" "$T/img.ppm" "$T/v.f32" 2 \
        >"$T/v.out" 2>"$T/v.err" || bad "vendor attach: $(cat "$T/v.err")"
    [ "$(q "select platform||' '||json_extract(env_json,'$.toolkit_version')||' '||model_format||' '||iterations from runs where label='vend'")" = \
      "rk3588 1.6.2-source_code rknn 2" ] && ok || bad "vendor facts: $(q "select platform, model_format, env_json from runs where label='vend'")"
    # the stand-in exports no rknn_trace_simulated_runtime: a board's runtime, measured times
    [ "$(q "select backend from runs where label='vend'")" = board ] && ok || bad "vendor backend: $(q "select backend from runs where label='vend'")"
    "$RT" show vend --db "$T/db" | grep -q "^figures   table measured on the board; timing measured on the board$" && ok \
        || bad "vendor provenance: $("$RT" show vend --db "$T/db" | grep figures)"
    "$RT" show g --db "$T/db" | grep -q "timing this project's simulated librknnrt.so on this PC, not the board$" && ok \
        || bad "simlib provenance: $("$RT" show g --db "$T/db" | grep figures)"
    [ "$(q "select count(*) from layers l join runs r on r.id=l.run_id where r.label='vend'")" -gt 100 ] && ok || bad "vendor table under attach"
fi

# -- no rknn_* call; an app that cannot start; usage -------------------------------------
"$RT" attach --db "$T/db" -- true >/dev/null 2>"$T/e"; rc=$?
[ $rc = 0 ] && grep -q "made no rknn_\* call" "$T/e" && ok || bad "no calls: $rc $(cat "$T/e")"
"$RT" attach --db "$T/db" -- false >/dev/null 2>&1; [ $? = 1 ] && ok || bad "app's exit status"
"$RT" attach --db "$T/db" -- "$T/nowhere" >/dev/null 2>"$T/e"; rc=$?
[ $rc = 127 ] && grep -q "cannot run" "$T/e" && ok || bad "missing app: $rc $(cat "$T/e")"
"$RT" attach --perf 0 -- true >/dev/null 2>&1; [ $? = 1 ] && ok || bad "--perf 0"
"$RT" attach >/dev/null 2>&1; [ $? = 1 ] && ok || bad "no app"

# -- the matmul API (rknn_matmul_api.h) forwarded: same C, its calls counted -----------
mkdir -p "$T/mma" "$T/mmb"
/usr/bin/python3 -c '
import sys, numpy as np
for d in sys.argv[1:]:
    r = np.random.default_rng(2)
    r.uniform(-1, 1, (64, 256)).astype(np.float16).tofile(d + "/A.bin")
    r.uniform(-1, 1, (256, 256)).astype(np.float16).tofile(d + "/B.bin")
' "$T/mma" "$T/mmb"
RKNN_TARGET=rk3588 "$B/samples/sample_matmul" 1 64 256 256 1 1 0 0 "$T/mma" >/dev/null 2>&1 || bad "direct matmul"
RKNN_TARGET=rk3588 "$RT" attach --db "$T/db" -- "$B/samples/sample_matmul" 1 64 256 256 1 1 0 0 "$T/mmb" \
    >/dev/null 2>"$T/mm.err" && ok || bad "attach matmul: $(cat "$T/mm.err")"
cmp -s "$T/mma/C.bin" "$T/mmb/C.bin" && ok || bad "matmul C differs under attach"
grep -Eq "rknn_matmul_run +1 calls" "$T/mm.err" && grep -q "no run is recorded" "$T/mm.err" && ok ||
    bad "matmul calls not counted: $(cat "$T/mm.err")"

# -- the interposer's own failure: one warning, same results ---------------------------
RKNN_TRACE_JOURNAL=$T/no/such/dir/j LD_PRELOAD=$(cd "$B" && pwd)/librknntrace.so \
    "$B/samples/sample_general" "$Y" "$T/img.ppm" "$T/e.f32" 2 >/dev/null 2>"$T/e"
cmp -s "$T/a.f32" "$T/e.f32" && [ "$(grep -c "tracing disabled" "$T/e")" = 1 ] && ok || bad "disabled: $(cat "$T/e")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
