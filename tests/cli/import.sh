#!/usr/bin/env bash
# `rknn-trace import` on every real sample of the kinds it reads
# ($RT_SHARED/data/logs): per sample, the rows stored equal the rows the sample
# holds (counted here with awk, not with our parser), the totals equal the
# sample's own, no line is left unexplained, and a few values read by hand from
# the sample are pinned. Bad input (truncated table, missing column, binary
# data) fails with one line, exit 2, and leaves the database as it was.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RT=$B/rknn-trace
LOGS=${RT_SHARED:-../shared}/data/logs
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
eq()  { if [ "$2" == "$3" ]; then ok; else bad "$1: got '$2', want '$3'"; fi; }
q()   { sqlite3 "$DB" "$1"; }
DB=$T/imp.db

# import FILE: stores the JSON answer in $T/out; "bad" lines must be 0
imp() {
    "$RT" import --db "$DB" --json "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ $rc -ne 0 ]; then bad "import $* -> exit $rc: $(cat "$T/err")"; return 1; fi
    if grep -q "AddressSanitizer\|runtime error" "$T/err"; then bad "import $*: sanitizer"; return 1; fi
    return 0
}
jget() { python3 -c "import json,sys; d=json.load(open('$T/out')); print(eval(sys.argv[1]))" "$1"; }
last_id() { q "SELECT max(id) FROM runs"; }
# sample rows: ID OpType DataType ... (prefix stripped), counted without our parser
rows_in() {
    sed -E 's/^[EWIDT] RKNN: (\[[^]]*\] )?//' "$1" |
        awk '$1 ~ /^[0-9]+$/ && $3 ~ /^(INT8|UINT8|INT16|FLOAT16|FLOAT)$/ && $4 ~ /^(NPU|CPU|GPU)$/' | wc -l
}
total_in() { grep -oE 'Total Operator Elapsed (Per Frame )?Time\(us\): [0-9]+' "$1" | head -1 | awk '{print $NF}'; }

# --- per-layer tables --------------------------------------------------------
for f in "$LOGS"/perf-*.txt; do
    n=$(basename "$f")
    imp "$f" || continue
    eq "$n: bad lines" "$(jget "d['lines']['bad']")" 0
    want=$(rows_in "$f")
    got=$(q "SELECT count(*) FROM layers WHERE run_id IN (SELECT id FROM runs WHERE env_json LIKE '%$n%')")
    eq "$n: layer rows" "$got" "$want"
    tot=$(total_in "$f")
    if [ -n "$tot" ]; then
        eq "$n: total" "$(q "SELECT CAST(total_us AS INT) FROM runs WHERE id=$(last_id)")" "$tot"
    fi
    # full tables: the rows' Time(us) add up to the printed total (log-formats.md §3.1)
    case "$n" in *unet256-rk3588-tk2.3.0-triority-05*|*perfdetail-yolov8n1920*|*oldfmt-full-yolov5s*)
        eq "$n: sum of Time(us)" "$(q "SELECT CAST(sum(time_us) AS INT) FROM layers WHERE run_id=$(last_id)")" "$tot";;
    esac
done
# pinned by hand
R=$(q "SELECT id FROM runs WHERE env_json LIKE '%triority-05%'")
eq "unet layer 4 cycles" "$(q "SELECT ddr_cycles||'/'||npu_cycles||'/'||total_cycles||' '||time_us||' '||npu_op||' '||npu_dtype||' '||target FROM layers WHERE run_id=$R AND idx=4")" "400064/2359296/2359296 2514.0 ConvLeakyRelu FLOAT16 NPU"
eq "unet layer 3 blank MacUsage is NULL" "$(q "SELECT quote(mac_usage)||' '||workload FROM layers WHERE run_id=$R AND idx=3")" "NULL 100.0%/0.0%/0.0%"
eq "unet env clocks" "$(q "SELECT json_extract(env_json,'\$.npu_freq_hz[0]')||' '||json_extract(env_json,'\$.cpu_freq_khz[1]')||' '||quote(json_extract(env_json,'\$.ddr_freq_hz[0]'))FROM runs WHERE id=$R")" "1000000000 2400000 NULL"
eq "unet backend, platform from its 3-core columns, unknown fields NULL" "$(q "SELECT backend||' '||quote(platform)||' '||quote(npu_us)||' '||quote(host_us) FROM runs r JOIN layers l ON l.run_id=r.id WHERE r.id=$R AND l.idx=1")" "board 'rk3588' NULL NULL"
R=$(q "SELECT id FROM runs WHERE env_json LIKE '%oldfmt-full-yolov5s%'")
eq "yolov5s wrapped row 41" "$(q "SELECT ddr_cycles||' '||time_us||' '||tasks||' '||rw_kb||' '||name FROM layers WHERE run_id=$R AND idx=41")" "281551 203.0 29 1626.06 Concat:Concat_78"
eq "yolov5s runtime version" "$(q "SELECT json_extract(env_json,'\$.runtime_version')||' '||json_extract(env_json,'\$.server_version') FROM runs WHERE id=$R")" "1.5.0 1.5.0"
eq "yolov5s eval_memory weight" "$(q "SELECT weight_bytes FROM runs WHERE id=$R")" "$(python3 -c 'print(round(6.99*1048576))')"
R=$(q "SELECT id FROM runs WHERE env_json LIKE '%perfdetail-yolov8n1920%'")
eq "yolov8n mac usage, rw" "$(q "SELECT mac_usage||' '||rw_kb||' '||bound FROM layers WHERE run_id=$R AND idx=2")" \
   "$(sed -E 's/^---> //' "$LOGS/perf-perfdetail-yolov8n1920-rk3588-channy-01.txt" | awk '$1=="2" && $4=="NPU" {split($7,c,"/"); split($9,m,"/"); print m[1]+0 " " sprintf("%.1f", $11) " " (c[2]>=c[1]?"compute":"DDR")}')"
R=$(q "SELECT id FROM runs WHERE env_json LIKE '%optable-total-row%'")
eq "ranking-only total" "$(q "SELECT CAST(total_us AS INT)||' '||json_array_length(extra_json,'\$.perf.ops') FROM runs WHERE id=$R")" "183003 16"

# --- init lines, SRAM, eval_memory, benchmark, dumps ------------------------------
imp "$LOGS/rtlog-init-info-rknnlite-rk3588-rt2.3.0-triority-01.txt" && {
    R=$(last_id)
    eq "init 2.3.0" "$(q "SELECT platform||' '||json_extract(env_json,'\$.runtime_version')||' '||json_extract(env_json,'\$.driver_version')||' '||json_extract(env_json,'\$.toolkit_version')||' '||json_extract(env_json,'\$.compiler_version') FROM runs WHERE id=$R")" "rk3588 2.3.0 0.9.8 1.5.2+b642f30c 1.5.2"
    eq "init 2.3.0 bad" "$(jget "d['lines']['bad']")" 0
    # the user's prints and the shell prompt: every line without 'X RKNN:' and not '#'
    eq "init 2.3.0 app lines" "$(jget "d['lines']['app']")" "$(grep -Evc '^(I RKNN:|#)' "$LOGS/rtlog-init-info-rknnlite-rk3588-rt2.3.0-triority-01.txt")"
}
imp "$LOGS/rtlog-init-info-oldfmt-rt1.3.0-failed-submit-rk3588-03.txt" &&
    eq "init 1.3.0" "$(q "SELECT json_extract(env_json,'\$.runtime_version')||' '||json_extract(env_json,'\$.driver_version')||' '||json_extract(env_json,'\$.toolkit_version')||' '||json_extract(env_json,'\$.runtime_build') FROM runs WHERE id=$(last_id)")" "1.3.0 0.6.4 1.3.0-11912b58 c193be371@2022-05-04T20:16:33"
imp "$LOGS/rtlog-init-info-driverwarn-rk3588-rt2.0.0b0-02.txt" &&
    eq "init 2.0.0b0" "$(q "SELECT json_extract(env_json,'\$.inference_type')||' '||json_extract(env_json,'\$.framework') FROM runs WHERE id=$(last_id)")" "dynamic_shape Caffe"
imp "$LOGS/evalperf-freqlist-rk3588-sdk2.3.0-rkguide-01.txt" &&
    eq "freq list" "$(q "SELECT json_extract(env_json,'\$.cpu_freq_khz')||' '||json_extract(env_json,'\$.ddr_freq_hz') FROM runs WHERE id=$(last_id)")" "[1800000,2256000,2304000] [2112000000]"
# get_sdk_version()'s box: versions as printed (read here with awk), nothing unread
for f in "$LOGS"/tkver-get_sdk_version-*.txt; do
    imp "$f" || continue
    eq "$(basename "$f"): versions" "$(q "SELECT json_extract(env_json,'\$.api_version')||' '||json_extract(env_json,'\$.server_version')||' '||json_extract(env_json,'\$.runtime_version') FROM runs WHERE id=$(last_id)")" \
       "$(awk '$1=="API:" {a=$4} $2=="rknn_server:" {s=$3} $1=="rknnrt:" {r=$2} END {print a, s, r}' "$f")"
    eq "$(basename "$f"): unread lines" "$(jget "d['lines']['app'] + d['lines']['runtime'] + d['lines']['toolkit'] + d['lines']['bad']")" 0
done
f=$LOGS/sram-level3-mobilenetv1-rk3588-rkdoc-01.txt
imp "$f" && {
    R=$(last_id)
    eq "sram tensors" "$(q "SELECT json_extract(extra_json,'\$.sram.tensors') FROM runs WHERE id=$R")" "$(grep -Ec '^[0-9]+ .*\|' "$f")"
    eq "sram sizes" "$(q "SELECT weight_bytes||' '||internal_bytes||' '||json_extract(extra_json,'\$.sram.size') FROM runs WHERE id=$R")" "4260864 2157568 524288"
}
for f in "$LOGS"/memory-*.txt; do
    imp "$f" || continue
    w=$(grep -oE 'Weight Memory: [0-9.]+ MiB' "$f" | awk '{printf "%d", $3*1048576 + 0.5}')
    eq "$(basename "$f") weight" "$(q "SELECT weight_bytes FROM runs WHERE id=$(last_id)")" "$w"
    eq "$(basename "$f") bad/app" "$(jget "d['lines']['bad']+d['lines']['app']")" 0
done
eq "eval_memory 2.x other" "$(q "SELECT json_extract(extra_json,'\$.memory.other_bytes') FROM runs WHERE id=$(q "SELECT id FROM runs WHERE env_json LIKE '%memory-evalmemory-2xfmt-mobilenet%'")")" "$(python3 -c 'print(377.19*1024)')"
f=$LOGS/benchmark-npu_stress_test-mobilenet-rt1.4.0-vendor-04.txt
imp "$f" && {
    R=$(last_id)
    eq "bench iterations, median" "$(q "SELECT iterations||' '||total_us||' '||host_min_us FROM runs WHERE id=$R")" "$(grep -c 'Elapse Time' "$f") 4820.0 4790.0"
    eq "bench version" "$(q "SELECT json_extract(env_json,'\$.runtime_version')||' '||json_extract(env_json,'\$.driver_version') FROM runs WHERE id=$R")" "1.4.0 0.8.2"
    eq "bench output tensor" "$(q "SELECT name||' '||shape||' '||dtype FROM outputs WHERE run_id=$R")" "MobilenetV1/Predictions/Reshape_1 [1,1001] int8"  # n_dims=2: the two 0s pad the runtime's fixed dims array
}
f=$LOGS/benchmark-rknn_benchmark-yolov5s-rk3588-core1-rt2.1.0-129-02.txt
imp "$f" &&
    eq "bench warmup only" "$(q "SELECT warmup||' '||quote(total_us)||' '||weight_bytes||' '||internal_bytes||' '||(SELECT count(*) FROM outputs WHERE run_id=runs.id) FROM runs WHERE id=$(last_id)")" "5 NULL 7315840 6144000 3"
imp "$LOGS/benchmark-rknn_benchmark-yolov5s-rk3588-v1.5.0-jashacks-01.txt" &&
    eq "bench avg line" "$(q "SELECT total_us FROM runs WHERE id=$(last_id)")" "18840.0"
f=$LOGS/rtlog-level5-dumps-mobilenet-accuracy-analysis-01.txt
imp "$f" && {
    R=$(last_id)
    eq "dump lines" "$(q "SELECT count(*) FROM outputs WHERE run_id=$R")" "$(grep -c 'dump npy tensor to:' "$f")"
    eq "dump row" "$(q "SELECT name||' '||shape||' '||dtype||' '||dump_file FROM outputs WHERE run_id=$R AND idx=1")" "317 [1,32,112,112] float32 /userdata/dumps/001_ConvClip_317_shape_1_32_112_112_float.npy"
    eq "dump clocks" "$(q "SELECT json_extract(env_json,'\$.npu_clock_mhz')||' '||json_extract(env_json,'\$.ddr_clock_mhz')||' '||dump_dir FROM runs WHERE id=$R")" "900 1056 /userdata/dumps"
    eq "dump bad" "$(jget "d['lines']['bad']")" 0
}

# SRAM rows joined to the layers of the same run (no real sample holds both a
# level-3 SRAM table and a level-4 table: a fixture in the documented layouts,
# log-formats.md §3.1/§4). A row is a tensor read by its User; its SramHit goes
# to the layer that wrote it: output2 (1,4,8,8), read by ConvRelu c2, written
# by c1 -> 0x400; output4 (1,4,4,4), read by Conv c3, written by c2 -> 0x100.
cat >"$T/sramjoin.txt" <<'LOG'
D RKNN: [10:00:00.001] ---------------------------------------------------------------------------
D RKNN: [10:00:00.001] Total allocated Internal SRAM Size: 524288, Addr: [0xff3e0000, 0xff460000)
D RKNN: [10:00:00.001] ---------------------------------------------------------------------------
D RKNN: [10:00:00.001] ---------------------------------------------------------------------+----------------------------------+-----------
D RKNN: [10:00:00.001] ID  User           Tensor   DataType OrigShape      NativeShape      |     [Start       End)       Size |    SramHit
D RKNN: [10:00:00.001] ---------------------------------------------------------------------+----------------------------------+-----------
D RKNN: [10:00:00.001] 1   ConvRelu       input0   INT8     (1,3,8,8)      (1,1,8,8,3)      | 0xff3b0000 0xff3b0c00 0x00000c00 | \
D RKNN: [10:00:00.001] 2   ConvRelu       output2  INT8     (1,4,8,8)      (1,1,8,8,16)     | 0xff3e0000 0xff3e0400 0x00000400 | 0x00000400
D RKNN: [10:00:00.001] 3   Conv           output4  INT8     (1,4,4,4)      (1,1,4,4,16)     | 0xff3e0400 0xff3e0500 0x00000100 | 0x00000100
D RKNN: [10:00:00.001] 4   OutputOperator output5  FLOAT    (1,2,4,4)      (1,2,4,4)        | 0xff3ae000 0xff3ae080 0x00000080 | \
D RKNN: [10:00:00.001] ---------------------------------------------------------------------+----------------------------------+-----------
D RKNN: [10:00:00.002] ----------------------------------------
D RKNN: [10:00:00.002] Total Weight Memory Size: 1024
D RKNN: [10:00:00.002] Total Internal Memory Size: 2048
D RKNN: [10:00:00.002] ----------------------------------------
I RKNN: [10:00:01.000] ------------------------------------------------------------------------------------------------------------------------------------------------
I RKNN: [10:00:01.000] ID   OpType           DataType Target InputShape                               OutputShape            Cycles(DDR/NPU/Total)    Time(us)     MacUsage(%)          WorkLoad(0/1/2)      RW(KB)       FullName
I RKNN: [10:00:01.000] ------------------------------------------------------------------------------------------------------------------------------------------------
I RKNN: [10:00:01.000] 1    InputOperator    UINT8    CPU    \                                        (1,3,8,8)              0/0/0                    5            \                    0.0%/0.0%/0.0%       0            InputOperator:in
I RKNN: [10:00:01.000] 2    ConvRelu         UINT8    NPU    (1,3,8,8),(4,3,3,3),(4)                  (1,4,8,8)              100/200/200              3            1.00/0.00/0.00       100.0%/0.0%/0.0%     1            Conv:c1
I RKNN: [10:00:01.000] 3    ConvRelu         INT8     NPU    (1,4,8,8),(4,4,3,3),(4)                  (1,4,4,4)              100/200/200              3            1.00/0.00/0.00       100.0%/0.0%/0.0%     1            Conv:c2
I RKNN: [10:00:01.000] 4    Conv             INT8     NPU    (1,4,4,4),(2,4,1,1),(2)                  (1,2,4,4)              50/20/50                 2            0.50/0.00/0.00       100.0%/0.0%/0.0%     1            Conv:c3
I RKNN: [10:00:01.000] 5    OutputOperator   INT8     CPU    (1,2,4,4)                                \                      0/0/0                    4            \                    0.0%/0.0%/0.0%       0            OutputOperator:out
I RKNN: [10:00:01.000] ------------------------------------------------------------------------------------------------------------------------------------------------
I RKNN: [10:00:01.000] Total Operator Elapsed Per Frame Time(us): 17
LOG
imp "$T/sramjoin.txt" && {
    R=$(last_id)
    eq "sram join: one run" "$(jget "len(d['runs'])") $(jget "d['lines']['bad']")" "1 0"
    eq "sram join: hits" "$(q "SELECT group_concat(idx||'='||quote(sram_hit), ' ') FROM (SELECT idx, sram_hit FROM layers WHERE run_id=$R ORDER BY idx)")" \
       "1=NULL 2=1024.0 3=256.0 4=NULL 5=NULL"
    eq "sram join: joined rows" "$(q "SELECT json_extract(extra_json,'\$.sram.joined') FROM runs WHERE id=$R")" 2
}

# --- accuracy_analysis -------------------------------------------------------
for f in "$LOGS"/accuracy-*.txt; do
    n=$(basename "$f")
    imp "$f" || continue
    eq "$n: bad" "$(jget "d['lines']['bad']")" 0
    nrows=$(sed -E 's/^ +//' "$f" | grep -Ec '^\[[A-Za-z]')
    halves=$(grep -Ec '^ *layer_name.*(simulator_error|runtime_error)' "$f")
    both=$(grep -Ec '^ *layer_name.*simulator_error.*runtime_error' "$f")
    eq "$n: runs" "$(jget "len(d['runs'])")" $((halves + both))
    eq "$n: rows" "$(jget "sum(r['accuracy'] for r in d['runs'])")" $((nrows * (1 + (both > 0))))
done
R=$(q "SELECT id FROM runs WHERE backend='toolkit' AND env_json LIKE '%cos-euc-mobilenetv2%'")
eq "cos|euc sim relu1" "$(q "SELECT entire_cos||' '||entire_euc||' '||single_cos||' '||single_euc FROM accuracy WHERE run_id=$R AND name='relu1'")" "0.99997 4.7572 0.99997 4.7572"
eq "cos|euc fused row NULL" "$(q "SELECT quote(entire_cos)||' '||fused FROM accuracy WHERE run_id=$R AND name='conv1/scale'")" "NULL 1"
R=$(q "SELECT id FROM runs WHERE backend='board' AND env_json LIKE '%cos-euc-mobilenetv2%'")
eq "cos|euc runtime relu1" "$(q "SELECT entire_cos||' '||entire_euc||' '||single_cos||' '||single_euc FROM accuracy WHERE run_id=$R AND name='relu1'")" "0.99996 5.2593 0.99994 6.3273"
R=$(q "SELECT id FROM runs WHERE backend='board' AND env_json LIKE '%oldfmt-cosonly%'")
eq "cos-only runtime prob" "$(q "SELECT entire_cos||' '||quote(entire_euc)||' '||single_cos FROM accuracy WHERE run_id=$R AND name='prob'")" "0.999999 NULL 1.0"

# --- accuracy_analysis snapshot folder ---------------------------------------
# No real ./snapshot folder is among the samples (log-formats.md §12): a fixture
# in the documented layout (§8): error_analysis.txt (a real table), the name map,
# golden/, simulator/ and runtime/npy/ (the newer toolkits' subfolder).
S=$T/snapshot
mkdir -p "$S/golden" "$S/simulator" "$S/runtime/npy"
f=$LOGS/accuracy-cos-euc-mobilenetv2-rk3588-tk1.6.0-rkdoc-02.txt
grep -v '^#' "$f" >"$S/error_analysis.txt"
printf 'data  data.npy\nrelu1 -> 0001_relu1.npy\nprob: 0065_prob.npy\n\n' >"$S/map_name_to_file.txt"
python3 - "$S" <<'PY'
import struct, sys
def npy(path, shape):
    h = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (",".join(map(str, shape)) + ("," if len(shape) == 1 else ""))
    h += " " * (63 - (10 + len(h)) % 64) + "\n"
    n = 1
    for d in shape: n *= d
    open(path, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + b"\0" * (4 * n))
d = sys.argv[1]
npy(d + "/golden/data.npy", (1, 3, 2, 2))
npy(d + "/simulator/data.npy", (1, 3, 2, 2))
npy(d + "/simulator/0001_relu1.npy", (1, 4, 2, 2))
npy(d + "/simulator/0065_prob.npy", (1, 10))
npy(d + "/runtime/npy/0001_relu1.npy", (1, 4, 2, 2))
npy(d + "/runtime/npy/extra_tensor.npy", (2,))
PY
imp "$S" && {
    eq "snapshot: runs, unread lines" "$(jget "[r['backend'] for r in d['runs']], d['lines']['bad'], d['lines']['app']")" "(['toolkit', 'board'], 0, 0)"
    eq "snapshot: accuracy rows as the table's" "$(jget "[r['accuracy'] for r in d['runs']]")" "[$(sed -E 's/^ +//' "$f" | grep -Ec '^\[[A-Za-z]'), $(sed -E 's/^ +//' "$f" | grep -Ec '^\[[A-Za-z]')]"
    R=$(q "SELECT max(id) - 1 FROM runs")
    eq "snapshot: simulator tensors" "$(q "SELECT group_concat(name||':'||shape||':'||dtype, ' ') FROM outputs WHERE run_id=$R")" "relu1:[1,4,2,2]:float32 prob:[1,10]:float32 data:[1,3,2,2]:float32"
    eq "snapshot: runtime tensors" "$(q "SELECT group_concat(name||':'||shape, ' ') FROM outputs WHERE run_id=$R + 1")" "relu1:[1,4,2,2] extra_tensor:[2]"
    eq "snapshot: folders" "$(q "SELECT dump_dir||' '||json_extract(extra_json,'\$.golden_dir') FROM runs WHERE id=$R")" "$(realpath "$S/simulator") $(realpath "$S/golden")"
    eq "snapshot: runtime folder" "$(q "SELECT dump_dir FROM runs WHERE id=$R + 1")" "$(realpath "$S/runtime/npy")"
    eq "snapshot: relu1 entire cos" "$(q "SELECT entire_cos FROM accuracy WHERE run_id=$R AND name='relu1'")" "0.99997"
}

# --- several runs in one log, dump folders ------------------------------------
cat "$LOGS/perf-evalperf-fp16-unet256-rk3588-tk2.3.0-triority-05.txt" \
    "$LOGS/perf-perfdetail-yolov8n1920-rk3588-channy-01.txt" "$LOGS/sram-level3-mobilenetv1-rk3588-rkdoc-01.txt" >"$T/multi.txt"
imp "$T/multi.txt" --label multi && {
    eq "multi: runs" "$(jget "[r['layers'] for r in d['runs']]")" "[95, 108, 0]"
    eq "multi: labels" "$(q "SELECT group_concat(label) FROM runs WHERE label LIKE 'multi%'")" "multi,multi-2,multi-3"
}
mkdir -p "$T/dumps"
python3 - "$T/dumps" <<'PY'
import struct, sys
def npy(path, descr, shape, data):
    h = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, ",".join(map(str, shape)) + ("," if len(shape) == 1 else ""))
    h += " " * (63 - (10 + len(h)) % 64) + "\n"
    open(path, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + data)
npy(sys.argv[1] + "/000_InputOperator_input_shape_1_3_2_2_uint8.npy", "|u1", (1, 3, 2, 2), bytes(range(12)))
npy(sys.argv[1] + "/001_ConvClip_317_shape_1_2_2_2_float.npy", "<f4", (1, 2, 2, 2), struct.pack("<8f", *range(8)))
PY
imp "$T/dumps" && {
    R=$(last_id)
    eq "folder rows" "$(q "SELECT group_concat(name||':'||shape||':'||dtype, ' ') FROM outputs WHERE run_id=$R")" "input:[1,3,2,2]:uint8 317:[1,2,2,2]:float32"
    eq "folder refs" "$(q "SELECT count(*) FROM outputs WHERE run_id=$R AND dump_file LIKE '$T/dumps/%'")" 2
}
imp "$T/dumps" --copy && {
    R=$(last_id)
    eq "copied files" "$(q "SELECT count(*) FROM outputs WHERE run_id=$R AND dump_file LIKE '$DB.dumps/run-$R/%'")" 2
    cmp -s "$T/dumps/001_ConvClip_317_shape_1_2_2_2_float.npy" "$DB.dumps/run-$R/001_ConvClip_317_shape_1_2_2_2_float.npy" && ok || bad "copied file differs"
}

# a log through a pipe: every line read, as from the file
cat "$LOGS/perf-level4-multicore-improvetherical-lenet-rk3588-rkguide-11.txt" |
    "$RT" import --db "$T/pipe.db" --json /dev/stdin >"$T/pipe.json" 2>"$T/err"
eq "a log on a pipe: exit" "$?" 0
"$RT" import --db "$T/file.db" --json "$LOGS/perf-level4-multicore-improvetherical-lenet-rk3588-rkguide-11.txt" >"$T/file.json" 2>&1
eq "a log on a pipe: the file's layers and line counts" \
   "$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([r['layers'] for r in d['runs']], d['lines'])" "$T/pipe.json")" \
   "$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([r['layers'] for r in d['runs']], d['lines'])" "$T/file.json")"

# --- bad input: one line, exit 2, database unchanged -----------------------------
before=$(sha256sum "$DB")
bad_input() { # name file regex
    "$RT" import --db "$DB" "$2" >"$T/out" 2>"$T/err"
    local rc=$?
    eq "$1: exit" "$rc" 2
    eq "$1: one line" "$(grep -c . "$T/err")" 1
    grep -Eq -- "$3" "$T/err" && ok || bad "$1: stderr '$(cat "$T/err")' lacks /$3/"
    eq "$1: db unchanged" "$(sha256sum "$DB")" "$before"
}
f=$LOGS/perf-evalperf-fp16-unet256-rk3588-tk2.3.0-triority-05.txt
head -c $(( $(grep -n '^40 ' "$f" | cut -d: -f1 | xargs -I{} sh -c "head -n {} '$f' | wc -c") - 60 )) "$f" >"$T/trunc.txt"
bad_input truncated "$T/trunc.txt" "trunc.txt:[0-9]+: a table line that cannot be read"
sed 's/Time(us)     //' "$f" >"$T/nocol.txt"
bad_input "missing column" "$T/nocol.txt" "nocol.txt:[0-9]+: a table line"
{ head -c 300 "$f"; printf '\0\1\2\377garbage'; head -c 2048 /dev/urandom; } >"$T/bin.txt"
bad_input binary "$T/bin.txt" "not a text log"
bad_input "missing file" "$T/nope.txt" "^rknn-trace: import: [^ ]*/nope.txt: No such file or directory$"
printf 'hello\nworld\n' >"$T/none.txt"
bad_input "no vendor output" "$T/none.txt" "no vendor output"
# the bad line after 80 good runs, which the writer thread has already written
for _ in $(seq 80); do cat "$LOGS/perf-level4-multicore-improvetherical-lenet-rk3588-rkguide-11.txt"; done >"$T/late.txt"
cat "$T/trunc.txt" >>"$T/late.txt"
bad_input "bad line after 80 runs" "$T/late.txt" "late.txt:[0-9]+: a table line that cannot be read"
"$RT" import --db "$T/new.db" "$T/late.txt" >/dev/null 2>&1
eq "a new database: exit" "$?" 2
[ ! -e "$T/new.db" ] && [ ! -e "$T/new.db-journal" ] && ok || bad "a failed import left the database it created: $(ls $T/new.db*)"
# a snapshot folder with a tensor that is not a .npy file
mkdir -p "$T/snapbad/simulator"
cp "$S/error_analysis.txt" "$T/snapbad/"
printf 'not numpy' >"$T/snapbad/simulator/0001_relu1.npy"
bad_input "snapshot: bad tensor" "$T/snapbad" "0001_relu1.npy"
# a map line that names no file: counted as unread, an error with --strict
cp -r "$S" "$T/snapmap"
echo 'this line names no tensor file' >>"$T/snapmap/map_name_to_file.txt"
"$RT" import --db "$DB" --strict "$T/snapmap" >/dev/null 2>"$T/err"
eq "snapshot: --strict on an unread map line" "$?/$(grep -c . "$T/err")" "2/1"
eq "snapshot: --strict db unchanged" "$(sha256sum "$DB")" "$before"
"$RT" import --db "$DB" --strict "$LOGS/rtlog-init-info-rknnlite-rk3588-rt2.3.0-triority-01.txt" >/dev/null 2>"$T/err"
eq "strict: exit" "$?" 2
eq "strict: db unchanged" "$(sha256sum "$DB")" "$before"
"$RT" import --db "$DB" --strict "$LOGS/perf-level4-multicore-improvetherical-lenet-rk3588-rkguide-11.txt" >/dev/null 2>&1
eq "strict on a clean table" "$?" 0
"$RT" import --db "$DB" --format bogus x >/dev/null 2>&1
eq "bad --format" "$?" 1

# --- bounded input (cli/import_read.c): endless or binary input ends with one line,
# exit 2, quickly, also under a 2 GiB address-space limit; nothing stored ----------
before=$(sha256sum "$DB")
# (a sanitizer build reserves terabytes of shadow memory: no address-space limit there)
VLIM=2097152
# (no pipe into grep -q: under pipefail, ldd killed by SIGPIPE when grep stops early
# reads as no match)
[[ $(ldd "$RT" 2>/dev/null) == *libasan* ]] && VLIM=unlimited
bounded() { # name regex max_seconds -- import arguments
    local name=$1 re=$2 max=$3; shift 4
    local t0=$(date +%s%N)
    ( ulimit -v $VLIM; exec "$RT" import --db "$DB" "$@" ) >"$T/out" 2>"$T/err"
    local rc=$? ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    eq "$name: exit" "$rc" 2
    eq "$name: one line" "$(grep -c . "$T/err")" 1
    grep -Eq -- "$re" "$T/err" && ok || bad "$name: stderr '$(cat "$T/err")' lacks /$re/"
    [ "$ms" -lt $((max * 1000)) ] && ok || bad "$name: ${ms} ms (want < ${max} s)"
    eq "$name: db unchanged" "$(sha256sum "$DB")" "$before"
}
bounded "/dev/zero" "^rknn-trace: import: /dev/zero: not a text log: binary byte 0x00 at offset 0$" 5 -- /dev/zero
bounded "/dev/urandom" "^rknn-trace: import: /dev/urandom: not a text log" 5 -- /dev/urandom
# a FIFO whose writer never stops (a writer still waiting to open it is let through
# afterwards: a reader comes and goes): plain text lines, until the import's bound (1 GiB of
# text and line index; "y" lines cost 2 + 16 bytes each)
mkfifo "$T/fifo"
yes >"$T/fifo" 2>/dev/null & wp=$!
bounded "endless FIFO" "fifo: more than the 1024 MiB left of what one import may hold \(1024 MiB" 60 -- "$T/fifo"
kill $wp 2>/dev/null; exec 3<>"$T/fifo"; exec 3<&-; wait $wp 2>/dev/null
# a FIFO of one endless line
{ tr '\0' 'a' </dev/zero >"$T/fifo"; } 2>/dev/null & wp=$!
bounded "endless line" "fifo:1: a line longer than 64 KiB" 10 -- "$T/fifo"
kill $wp 2>/dev/null; exec 3<>"$T/fifo"; exec 3<&-; wait $wp 2>/dev/null
# over-long line: a 70,000-byte line after line 40 of a real log (the longest real line
# is 465 bytes); its number is the one Python counts
f=$LOGS/perf-perfdetail-yolov8n1920-rk3588-channy-01.txt
python3 -c "import sys; l=open(sys.argv[1]).read().split('\n'); l.insert(40, 'app: ' + 'x' * 70000); open(sys.argv[2], 'w').write('\n'.join(l))" "$f" "$T/long.txt"
bad_input "over-long line" "$T/long.txt" "long.txt:41: a line longer than 64 KiB"
# a 60,000-byte application line (before the table) is under the limit: one app line
python3 -c "import sys; l=open(sys.argv[1]).read().split('\n'); l.insert(0, 'app: ' + 'x' * 60000); open(sys.argv[2], 'w').write('\n'.join(l))" "$f" "$T/long60.txt"
imp "$f" && app0=$(jget "d['lines']['app']") && rows0=$(jget "d['runs'][0]['layers']")
imp "$T/long60.txt" && eq "a 60 KB line: one more app line, same rows" \
    "$(jget "d['lines']['app'] - $app0, d['runs'][0]['layers']")" "(1, $rows0)"
# the limit to the byte, in a file and through a pipe (read in chunks): a 65,536-byte
# line passes, a 65,537-byte one fails naming its line (after 11,587 short lines)
for n in 65536 65537; do
    python3 -c "import sys; n = int(sys.argv[1]); open(sys.argv[2], 'w').write(''.join('p%d\\n' % i for i in range(11587)) + 'a' * n + '\\n' + open(sys.argv[3]).read())" $n "$T/edge.txt" "$f"
    "$RT" import --db "$T/edge.db" "$T/edge.txt" >/dev/null 2>"$T/err"; r1=$?
    "$RT" import --db "$T/edge.db" /dev/stdin <"$T/edge.txt" >/dev/null 2>"$T/err2"; r2=$?
    if [ $n = 65536 ]; then eq "a line of 64 KiB: file, pipe" "$r1 $r2" "0 0"
    else eq "a line of 64 KiB + 1: file, pipe" "$r1 $r2 $(grep -c 'edge.txt:11588: a line longer' "$T/err") $(grep -c 'stdin:11588: a line longer' "$T/err2")" "2 2 1 1"; fi
done
before=$(sha256sum "$DB")
# mostly not UTF-8: Latin-1 text past the first 64 KiB
python3 -c "open('$T/latin1.txt', 'wb').write(('caf\xe9 \xe0 ' * 1000 + '\n').encode('latin-1') * 20 + b'\xe9\xe8\xff' * 30000)"
bad_input "not UTF-8" "$T/latin1.txt" "not a text log: [0-9]+ of its first 65536 bytes are not UTF-8 text"
# real-log variants still read: CRLF line ends, ANSI colours on the app's lines, UTF-8
sed 's/$/\r/' "$f" >"$T/crlf.txt"
imp "$T/crlf.txt" && eq "CRLF: layers, bad" "$(jget "d['runs'][0]['layers'], d['lines']['bad']")" "($rows0, 0)"
# (coloured lines are read as their plain text: the same lines of each kind)
{ printf 'I app: start \342\234\223 mod\303\250le\n'; cat "$f"; printf 'done\n'; } >"$T/plain.txt"
imp "$T/plain.txt" && kinds0=$(jget "d['lines']")
{ printf '\033[0;32mI app: start \342\234\223 mod\303\250le\033[0m\n'; cat "$f"; printf '\033[1;31mdone\033[0m\n'; } >"$T/ansi.txt"
imp "$T/ansi.txt" && eq "ANSI colours, UTF-8: layers, lines by kind" "$(jget "d['runs'][0]['layers'], d['lines']")" "($rows0, $kinds0)"
# every line coloured, as `adb logcat -v color` (256-colour CSI) or a session saved
# with script(1) prints it: the same rows, the same lines of each kind
imp "$f" && kinds0=$(jget "d['lines']")
sed 's/^.*$/\x1b[38;5;75m&\x1b[0m/' "$f" >"$T/ansi_all.txt"
imp "$T/ansi_all.txt" && eq "ANSI colours on every line: layers, lines by kind" \
    "$(jget "d['runs'][0]['layers'], d['lines']")" "($rows0, $kinds0)"
# a text editor's UTF-8 byte-order mark, and UTF-16 with its mark (what Windows
# PowerShell's `adb logcat > log.txt` writes), LE and BE, from a file and a pipe:
# read as the UTF-8 log (iconv, not our code, writes the variants)
{ printf '\357\273\277'; cat "$f"; } >"$T/bom8.txt"
iconv -f UTF-8 -t UTF-16LE "$f" | { printf '\377\376'; cat; } >"$T/u16le.txt"
iconv -f UTF-8 -t UTF-16BE "$f" | { printf '\376\377'; cat; } >"$T/u16be.txt"
for v in bom8 u16le u16be; do
    imp "$T/$v.txt" && eq "$v: layers, lines by kind" "$(jget "d['runs'][0]['layers'], d['lines']")" "($rows0, $kinds0)"
done
"$RT" import --db "$DB" --json /dev/stdin <"$T/u16le.txt" >"$T/out" 2>"$T/err" &&
    eq "UTF-16 through a pipe: layers, lines by kind" "$(jget "d['runs'][0]['layers'], d['lines']")" "($rows0, $kinds0)" ||
    bad "UTF-16 through a pipe: $(cat "$T/err")"
# like_bare NAME FILE: FILE, a variant of the bare log, imports as one run with
# the bare log's rows (show --json: the same layers and npu block), no bad line
like_bare() {
    imp "$2" || return
    eq "$1: runs, layers, bad lines" "$(jget "len(d['runs']), d['runs'][0]['layers'], d['lines']['bad']")" "(1, $rows0, 0)"
    "$RT" show "$(last_id)" --db "$DB" --json >"$T/variant.json"
    python3 -c "
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a['layers'] == b['layers'] and a['npu'] == b['npu'], 'layers differ'" "$T/bare.json" "$T/variant.json" &&
        ok || bad "$1: show's layers and npu block differ from the bare log's"
}
grep -v '^#' "$f" >"$T/bare.txt"
imp "$T/bare.txt" && "$RT" show "$(last_id)" --db "$DB" --json >"$T/bare.json"
# the same log captured through Android's logcat (the runtime logs under the tag
# RKNN): -v threadtime, -v time and -v brief prefixes on every line, the tables too
sed 's/^/12-07 10:00:00.123  1234  1234 D RKNN    : /' "$T/bare.txt" >"$T/lc_threadtime.txt"
sed 's|^|12-07 10:00:00.123 D/RKNN    ( 1234): |' "$T/bare.txt" >"$T/lc_time.txt"
sed 's|^|D/RKNN    ( 1234): |' "$T/bare.txt" >"$T/lc_brief.txt"
for v in threadtime time brief; do like_bare "logcat -v $v" "$T/lc_$v.txt"; done
# from a system log (an app run as a systemd service): journalctl's default and
# -o short-iso / short-precise prefixes, syslog's "Dec  7", or piped through
# moreutils' ts (blank lines stamped too)
sed 's/^/Dec 07 10:00:00 rock5b yolo_app[1234]: /' "$T/bare.txt" >"$T/j_short.txt"
sed 's/^/2026-12-07T10:00:00+0000 rock5b yolo_app[1234]: /' "$T/bare.txt" >"$T/j_iso.txt"
sed 's/^/Dec 07 10:00:00.123456 rock5b yolo_app[1234]: /' "$T/bare.txt" >"$T/j_precise.txt"
sed 's/^/Dec  7 10:00:00 rock5b yolo_app: /' "$T/bare.txt" >"$T/j_syslog.txt"
sed 's/^/Dec 07 10:00:00 /' "$T/bare.txt" >"$T/j_ts.txt"
for v in short iso precise syslog ts; do like_bare "system log ($v)" "$T/j_$v.txt"; done
# wrapped between words (fold -s, as a web page or a narrow terminal shows it): at
# 200 and 150 columns the header's and every row's FullName on a line of their own,
# at 120 each row in three lines, at 90 in four (the header in three, the ranking
# table's header and rows in two), at 70 and 50 in up to six; at 40 (rows in more
# than seven) refused, naming a line
for w in 200 150 120 90 70 50; do
    fold -s -w $w "$T/bare.txt" >"$T/wrapped.txt"
    [ "$(awk -v w=$w 'length > w' "$T/wrapped.txt" | wc -l)" = 0 ] && [ "$(wc -l <"$T/wrapped.txt")" -gt 200 ] && ok ||
        bad "fold did not wrap the log at $w"
    like_bare "wrapped at $w columns" "$T/wrapped.txt"
done
# a logcat capture copied from a console that breaks its lines (Windows' console
# at 120 or 200 columns): the rows' ends without the prefix, the prefix alone on
# the line before a ruler
for w in 200 120; do
    fold -s -w $w "$T/lc_threadtime.txt" >"$T/lc_wrapped.txt"
    like_bare "logcat -v threadtime wrapped at $w columns" "$T/lc_wrapped.txt"
done
# an application's line printed between two rows (another thread's "rknn_run"): the
# table stays one, the line an application line
awk 'NR == 20 { print "rknn_run" } { print }' "$T/bare.txt" >"$T/interleaved.txt"
like_bare "a line between two rows" "$T/interleaved.txt"
imp "$T/bare.txt" && app_bare=$(jget "d['lines']['app']")
imp "$T/interleaved.txt" && eq "a line between two rows: one more app line" "$(jget "d['lines']['app']")" "$((app_bare + 1))"
before=$(sha256sum "$DB")
fold -s -w 40 "$T/bare.txt" >"$T/wrapped40.txt"
bad_input "wrapped at 40 columns" "$T/wrapped40.txt" "wrapped40.txt:[0-9]+: a table line that cannot be read"
# a prefixed log pasted indented (a Markdown code block's 4 spaces, a tab): read as
# the log itself
for g in buildlog-debug-layertable-fp16-unet256-rk3588-tk2.3.0-triority-08 rtlog-level5-dumps-mobilenet-accuracy-analysis-01; do
    grep -v '^#' "$LOGS/$g.txt" >"$T/flush.txt"
    imp "$T/flush.txt" && want=$(jget "[r['layers'] for r in d['runs']], d['lines']")
    for ind in '    ' $'\t'; do
        sed "s/^/$ind/" "$T/flush.txt" >"$T/indented.txt"
        imp "$T/indented.txt" && eq "$g indented: layers, lines by kind" "$(jget "[r['layers'] for r in d['runs']], d['lines']")" "$want"
    done
done
# the kernel driver's job errors in the journal ("kernel: RKNPU: ..."): a failed run
printf 'Dec 07 10:00:01 rock5b kernel: RKNPU: failed to wait job, task counter: 74, flags: 0x1, ret = -512, elapsed time: 13624us\n' >"$T/j_kernel.txt"
imp "$T/j_kernel.txt" && eq "journal kernel line: a failed run" "$(jget "[r['status'] for r in d['runs']]")" "['failed']"
before=$(sha256sum "$DB")
head -c 1001 "$T/u16le.txt" >"$T/u16odd.txt"
bad_input "UTF-16 cut in a code unit" "$T/u16odd.txt" "u16odd.txt: not a text log: a UTF-16LE text \(its byte-order mark\) with an invalid sequence at offset 1000"
# compressed with gzip (`adb logcat | gzip`, a rotated log.1.gz): a file, a pipe,
# a UTF-16 text compressed, trailing zeros after the data (gunzip ignores them)
gzip -c "$T/bare.txt" >"$T/bare.gz"
like_bare "gzip" "$T/bare.gz"
cat "$T/bare.gz" | like_bare "gzip through a pipe" /dev/stdin
gzip -c "$T/u16le.txt" >"$T/u16.gz"
like_bare "gzip of UTF-16" "$T/u16.gz"
{ cat "$T/bare.gz"; printf '\0\0\0\0'; } >"$T/padded.gz"
like_bare "gzip and trailing zeros" "$T/padded.gz"
# two members (gzip a >x; gzip b >>x): both logs, as gunzip gives them
cat "$T/bare.gz" "$T/bare.gz" >"$T/two.gz"
imp "$T/two.gz" && eq "gzip of two members: runs" "$(jget "[r['layers'] for r in d['runs']]")" "[$rows0, $rows0]"
before=$(sha256sum "$DB")
head -c 3000 "$T/bare.gz" >"$T/cut.gz"
bad_input "gzip cut short" "$T/cut.gz" "cut.gz: a gzip file cut short \(its data ends after [0-9]+ bytes of text\)"
printf '\037\213\010garbage' >"$T/corrupt.gz"
bad_input "gzip corrupt" "$T/corrupt.gz" "corrupt.gz: a gzip file with corrupt data \(zlib: "
# 1.2 GB of zeros in 1.2 MB (1,200 members of 1 MiB each): refused at its head,
# not inflated to the bound
head -c 1M /dev/zero | gzip -c >"$T/z1.gz"
python3 -c "import sys; d = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(d * 1200)" "$T/z1.gz" "$T/bomb.gz"
bounded "gzip of zeros" "bomb.gz: not a text log: binary byte 0x00 at offset 0" 2 -- "$T/bomb.gz"
rm -f "$T/bomb.gz"
before=$(sha256sum "$DB")
# the scanner's share of the bound: 600,000 dump lines of one run hold 776 bytes each
python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    for i in range(600000): f.write('dump npy tensor to: /d/%06d_Conv_t%d_shape_1_2_float.npy\n' % (i % 1000000, i))" "$T/dumps.txt"
bounded "rows past the bound" "dumps.txt: line [0-9]+: the line index, runs and rows read so far pass the [0-9]+ MiB left for them \(one import holds at most 1024 MiB" 30 -- "$T/dumps.txt"
rm -f "$T/dumps.txt"
# an export file over 128 MiB is refused by its size before it is read
{ printf '{"format":"rknn-trace-export","version":1,"runs":[\n'; } >"$T/huge.json"
truncate -s 200M "$T/huge.json"
bounded "export over 128 MiB" "huge.json: an export of 200 MiB, over the 128 MiB one import reads" 5 -- "$T/huge.json"
# a snapshot folder's table goes through the same reader
cp -r "$S" "$T/snapbin" && head -c 4096 /dev/urandom >>"$T/snapbin/error_analysis.txt"
bad_input "snapshot: binary table" "$T/snapbin" "error_analysis.txt: not a text log"

# --- every real log that imports: what the log prints equals what is stored --
# The expected values are read from the log text here, by python3 with its own
# patterns (not our parsers): FPS and times of every iteration, the Avg line,
# warm-up (none when the log has no "Warmup ..." section), totals, the target
# the log names, versions, output dims (n_dims of them), memory as printed.
# Error logs (rterr-*, tkerr-*, buildlog-error-*) are failed runs with their
# error lines and the diagnosis of the known error.
cat >"$T/oracle.py" <<'PY'
import json, re, sqlite3, subprocess, sys
rt, db, path = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path, encoding='utf-8', errors='replace').read()
lines = [l.rstrip('\r\n') for l in text.split('\n')]
body = [l for l in lines if not l.lstrip().startswith('#')]
p = subprocess.run([rt, 'import', '--db', db, '--json', path], capture_output=True, text=True)
fails = []
def eq(what, got, want):
    if got != want:
        fails.append('%s: got %r, want %r' % (what, got, want))
errs = [l for l in body if re.search(r'(^|\s)E RKNN\s*:', l) or re.match(r'E \S+:', l) or
        re.match(r'[A-Za-z_.]*(Error|Exception): ', l.strip()) or 'Fatal signal ' in l or
        # the shell's report of the process's death (bash's strsignal words)
        re.fullmatch(r'(Aborted|Segmentation fault|Bus error|Illegal instruction)( \(core dumped\))?', l.strip())]
# a runtime line glued after other text ("rknn_run E RKNN: failed to submit!"): the line
# the runtime printed starts at its prefix
errs = [re.sub(r'^[A-Za-z_][^\s:]*\s+(?=E RKNN:)', '', l) for l in errs]
if p.returncode != 0:
    # a log with no vendor output: one line, exit 2, nothing stored; never one with errors
    eq('refused: exit, stderr lines, no vendor output', (p.returncode, len(p.stderr.strip().split('\n')),
       'no vendor output found' in p.stderr), (2, 1, True))
    eq('refused log has no error line', errs, [])
    print('\n'.join(fails)); sys.exit(0)
d = json.loads(p.stdout)
con = sqlite3.connect(db)
runs = {r['run_id']: r for r in d['runs']}
rows = {i: con.execute('SELECT platform, status, warmup, iterations, env_json, extra_json, log_total_us FROM runs WHERE id=?',
                       (i,)).fetchone() for i in runs}
board = [i for i in runs if runs[i]['backend'] == 'board'] or list(runs)
last = rows[board[-1]]
env = json.loads(last[4] or '{}')
extra = json.loads(last[5] or '{}')
# target: the run's init line, the toolkit's "target set by user", else the one chip name
names = ['rk3588', 'rk3576', 'rk3566', 'rk3568', 'rk3562', 'rv1106', 'rv1103', 'rv1126b',
         'rv1106b', 'rv1103b', 'rk2118']
m = [re.search(r'target platform: (\w+)', l) or re.search(r'target set by user is: (\w+)', l) for l in body]
m = [x.group(1).lower() for x in m if x]
if m:
    want = m[-1]
else:
    seen = set(n for l in body for n in names if re.search(r'(?<![A-Za-z0-9])' + n + r'(?![A-Za-z0-9])', l, re.I))
    want = seen.pop() if len(seen) == 1 else None
    # else rows printed per core (WorkLoad cells a%/b%/c%): three cores are rk3588's alone
    if want is None and any(re.search(r'\s[0-9.]+%/[0-9.]+%/[0-9.]+%\s', l) for l in body):
        want = 'rk3588'
eq('platform', last[0], want)
# versions
m = [re.search(r'(?:librknnrt version:|rknn_api/rknnrt version:|sdk version:) ([^ ,]+)', l) for l in body]
m = [x.group(1) for x in m if x]
if m and not any('sdk version:' in l for l in body):
    eq('runtime version', env.get('runtime_version'), m[-1])
m = [re.search(r'(?:Driver Information[,:] version:|driver version:) ([^ ,]+)', l) for l in body]
m = [x.group(1) for x in m if x]
if m and not any('sdk version:' in l for l in body):
    eq('driver version', env.get('driver_version'), m[-1])
m = [re.search(r'toolkit version: ([^ (,]+)', l) or re.search(r'rknn-toolkit2 version: (\S+)', l) for l in body]
m = [x.group(1) for x in m if x]
if m:
    eq('toolkit version', env.get('toolkit_version'), m[-1])
# benchmark: iterations after "Begin perf", warm-up after "Warmup", the Avg line
it = re.compile(r'^\s*(\d+): Elapse Time = ([\d.]+)ms, FPS = ([\d.]+)$')
sec, timed, warm, has_warm, avg = None, [], [], False, None
for l in body:
    s = l.strip()
    if s == 'Warmup ...': sec, has_warm = 'w', True
    elif s == 'Begin perf ...': sec = 'p'
    elif it.match(l):
        g = it.match(l)
        (timed if sec == 'p' else warm).append((float(g.group(2)), float(g.group(3))))
    elif re.match(r'Avg Time ([\d.]+)ms, Avg FPS = ([\d.]+)$', s):
        g = re.match(r'Avg Time ([\d.]+)ms, Avg FPS = ([\d.]+)$', s)
        avg = (float(g.group(1)), float(g.group(2)))
if timed or warm or 'output tensors:' in text:
    b = extra.get('benchmark', {})
    eq('iteration FPS', b.get('iteration_fps'), [f for _, f in timed])
    eq('iteration ms', b.get('iteration_ms'), [t for t, _ in timed])
    eq('warm-up FPS', b.get('warmup_fps'), [f for _, f in warm])
    eq('warm-up (column)', last[2], len(warm) if has_warm else None)
    eq('avg', (b.get('avg_ms'), b.get('avg_fps')), avg if avg else (None, None))
    eq('iterations (column)', last[3], len(timed) if timed else None)
    outs, sec = [], None
    for l in body:
        s = l.strip()
        if s in ('input tensors:', 'output tensors:'): sec = s
        elif sec == 'output tensors:' and s.startswith('index='):
            nd = int(re.search(r'n_dims=(\d+)', s).group(1))
            dims = [int(x) for x in re.search(r'dims=\[([^\]]*)\]', s).group(1).split(',')][:nd]
            outs.append('[' + ','.join(map(str, dims)) + ']')
        elif not s.startswith('index='): sec = None if sec == 'output tensors:' and outs else sec
    got = [r[0] for r in con.execute('SELECT shape FROM outputs WHERE run_id=? ORDER BY idx', (board[-1],))]
    eq('output dims', got, outs)
# totals of the per-layer table
m = [re.search(r'Total Operator Elapsed (?:Per Frame )?Time\(us\): (\d+)', l) for l in body]
m = [int(x.group(1)) for x in m if x]
if m:
    eq('total time (us)', last[6], m[-1])
m = [re.search(r'Total Memory Read/Write (?:Per Frame )?Size\(KB\): ([\d.]+)', l) for l in body]
m = [float(x.group(1)) for x in m if x]
if m:
    eq('total RW (KB)', extra.get('perf', {}).get('total_rw_kb'), m[-1])
# eval_memory as printed, unit and all; show prints the same figures in MiB
mem = {}
for key, pat in (('weight', r'(?:Total )?Weight Memory: (.+)$'), ('internal', r'(?:Total )?Internal Tensor Memory: (.+)$'),
                 ('other', r'Other Memory: (.+)$'), ('total', r'^\s*Total Memory: (.+)$'),
                 ('model', r'current model size is: (.+)$')):
    for l in body:
        g = re.search(pat, l)
        if g: mem[key] = g.group(1).strip()
if mem:
    pr = extra.get('memory', {}).get('printed', {})
    eq('memory as printed', {k: v for k, v in pr.items() if v}, mem)
    show = subprocess.run([rt, 'show', str(board[-1]), '--db', db], capture_output=True, text=True).stdout
    eq('show memory', re.search(r'memory    weights (.*?), internal (.*?);', show).groups(),
       (mem['weight'], mem['internal']))
# error lines: a failed run, its lines, the diagnosis of the known error
known = [('failed to submit', 'NPU job did not complete'), ('failed open dump path', None),
         ('failed to allocate handle', 'NPU memory could not be allocated'),
         ('REGTASK', "register value exceeds its field width"),
         ('Connect to Device Failure', 'could not connect to the board'),
         ('/sys/class/devfreq/', 'frequency node')]
if errs:
    e = extra.get('errors', {})
    eq('error count', e.get('count'), len(errs))
    eq('error lines', e.get('lines'), [x.rstrip() for x in errs][:8])
    fatal = any('failed open dump path' not in x for x in errs)  # the dump's own error is not the run's
    eq('status', last[1], 'failed' if fatal else 'ok')
    for k, dx in known:
        if dx and any(k in x for x in errs):
            eq('diagnosis of ' + k, dx in (e.get('diagnosis') or ''), True)
            break
    if fatal:
        show = subprocess.run([rt, 'show', str(board[-1]), '--db', db], capture_output=True, text=True).stdout
        eq('show: status line', 'status    failed' in show and 'diagnosis ' in show, True)
else:
    eq('status', last[1], 'ok')
# the run document (`show --json`) carries what `show` prints of the log (docs/json.md "log")
sj = subprocess.run([rt, 'show', str(board[-1]), '--db', db, '--json'], capture_output=True, text=True)
lg = json.loads(sj.stdout).get('log') or {}
kind = con.execute('SELECT import_kind FROM runs WHERE id=?', (board[-1],)).fetchone()[0]
eq('log kind', lg.get('kind'), kind)
for k in ('runtime_version', 'driver_version', 'toolkit_version', 'compiler_version'):
    eq('log ' + k, lg.get('versions', {}).get(k), env.get(k) or None)
if errs:
    le = lg.get('errors') or {}
    eq('log errors', (le.get('count'), le.get('lines')), (len(errs), [x.rstrip() for x in errs][:8]))
    eq('log diagnosis', le.get('diagnosis'), extra.get('errors', {}).get('diagnosis'))
if timed:
    lb = lg.get('benchmark') or {}
    eq('log benchmark', (lb.get('iterations'), lb.get('fps_min'), lb.get('fps_max')),
       (len(timed), min(f for _, f in timed), max(f for _, f in timed)))
    if avg:
        eq('log benchmark avg', (lb.get('avg_ms'), lb.get('avg_fps')), avg)
print('\n'.join(fails))
PY
n_checked=0
for f in "$LOGS"/*.txt; do
    n=$(basename "$f")
    rm -f "$T/o.db"
    out=$(python3 "$T/oracle.py" "$RT" "$T/o.db" "$f" 2>&1)
    if [ -n "$out" ]; then bad "$n: $out"; else ok; fi
    n_checked=$((n_checked + 1))
done
eq "real logs checked against their text" "$n_checked" "$(ls "$LOGS"/*.txt | wc -l)"
# the error logs are failed runs: counted here so that a log kind cannot drop out
rm -f "$T/e.db"
"$RT" import --db "$T/e.db" "$LOGS"/rterr-*.txt "$LOGS"/tkerr-*.txt "$LOGS"/buildlog-error-*.txt >/dev/null 2>"$T/err"
eq "error logs: failed runs" "$(sqlite3 "$T/e.db" "SELECT count(*) FROM runs WHERE status='failed'")" "$(ls "$LOGS"/rterr-*.txt "$LOGS"/tkerr-*.txt "$LOGS"/buildlog-error-*.txt | wc -l)"
# --target: validated; stored; an imported table then has its --npu-table
rm -f "$T/t.db"
"$RT" import --db "$T/t.db" --target rk9999 "$LOGS"/perf-optable-yolov8n1920x1088-rk3588-channy-02.txt >/dev/null 2>"$T/err"
eq "--target unknown: exit, one line, no database" "$? $(wc -l <"$T/err") $([ -e "$T/t.db" ] && echo db)" "1 1 "
"$RT" import --db "$T/t.db" --target RK3566 "$LOGS"/perf-perfdetail-yolov8n1920-rk3588-channy-01.txt >/dev/null
eq "--target wins, table name" "$(sqlite3 "$T/t.db" "SELECT platform FROM runs")" "rk3566"
"$RT" show 1 --db "$T/t.db" --npu-table >"$T/npu" 2>"$T/err"
eq "show --npu-table of an imported table: exit, rows" "$? $(grep -cE '^[0-9]+ +[A-Za-z]' "$T/npu")" "0 $(rows_in "$LOGS"/perf-perfdetail-yolov8n1920-rk3588-channy-01.txt)"
# an accuracy session's own lines: both halves keep the target and the toolkit version
f=$LOGS/accuracy-cos-euc-mobilenetv2-rk3588-tk1.6.0-rkdoc-02.txt
{ printf 'I rknn-toolkit2 version: 1.6.0+81f21f4d\nI target set by user is: rk3588\n'; grep -v '^#' "$f"; } >"$T/accsession.txt"
rm -f "$T/a.db"
"$RT" import --db "$T/a.db" "$T/accsession.txt" >/dev/null
eq "accuracy session: platform, toolkit of both halves" "$(sqlite3 "$T/a.db" "SELECT group_concat(x, '; ') FROM (SELECT backend||' '||platform||' '||json_extract(env_json,'\$.toolkit_version') AS x FROM runs ORDER BY backend)")" "board rk3588 1.6.0+81f21f4d; toolkit rk3588 1.6.0+81f21f4d"
# nothing recognisable: one line, exit 2, nothing stored
printf 'hello\nworld\n' >"$T/none.txt"
rm -f "$T/n.db"
"$RT" import --db "$T/n.db" "$T/none.txt" >/dev/null 2>"$T/err"
eq "no vendor output: exit, lines, no database" "$? $(wc -l <"$T/err") $([ -e "$T/n.db" ] && echo db)" "2 1 "

# --- public excerpts pasted in issues (tests/data/logs/issue-*, sources in their
# first lines): the values read by hand from each paste
P=tests/data/logs
pub() { # name file: one run, its env_json and its errors' diagnosis in $T/pub.*
    rm -f "$T/p.db"
    "$RT" import --db "$T/p.db" --json "$2" >"$T/out" 2>"$T/err"
    echo $? >"$T/pub.rc"
}
pq() { sqlite3 "$T/p.db" "$1"; }
diag() { "$RT" show 1 --db "$T/p.db" | sed -n 's/^diagnosis *//p'; }
pub issue-557 "$P"/issue-rterr-mrt2.3.2-info-alloc-argmax-rv1106-557.txt
eq "librknnmrt version line (rv1106)" "$(pq "SELECT json_extract(env_json,'\$.runtime_version')||' '||json_extract(env_json,'\$.driver_version') FROM runs")" "2.3.2 0.9.2"
case "$(diag)" in *"no CPU kernel"*) ok ;; *) bad "unsupport cpu ArgMax: diagnosis '$(diag)'" ;; esac
pub issue-482 "$P"/issue-rterr-mrt-unsupport-cpu-min-rv1106-482.txt
case "$(diag)" in *"no CPU kernel"*) ok ;; *) bad "unsupport cpu Min: diagnosis '$(diag)'" ;; esac
pub issue-454 "$P"/issue-rterr-open-rknpu-module-lite2-454.txt
case "$(diag)" in *"driver is not loaded"*) ok ;; *) bad "insmod rknpu: diagnosis '$(diag)'" ;; esac
# the first line names the cause; "load model failed" after it is its consequence
pub rknpu2-25 "$P"/issue-android-logcat-model-mismatch-rk3568-rknpu2-25.txt
case "$(diag)" in *"compiled for another chip"*) ok ;; *) bad "model/hardware mismatch: diagnosis '$(diag)'" ;; esac
pub issue-447 "$P"/issue-rterr-failed-submit-rt2.3.2-three-runs-447.txt
eq "a demo's 'sdk version: ... driver version:' line" "$(pq "SELECT json_extract(env_json,'\$.runtime_version')||' '||json_extract(env_json,'\$.driver_version') FROM runs")" "2.3.2 0.7.2"
pub issue-254 "$P"/issue-rterr-invalid-model-version-lite2-2.3.0-rt1.3.0-254.txt
"$RT" show 1 --db "$T/p.db" >"$T/show"
eq "show: the versions the log printed" "$(grep '^versions' "$T/show")" "versions  runtime 1.3.0, driver 0.7.2, toolkit 2.3.0"
eq "W rknn-toolkit-lite2 version line" "$(pq "SELECT json_extract(env_json,'\$.toolkit_version')||' '||json_extract(env_json,'\$.runtime_version') FROM runs")" "2.3.0 1.3.0"
# "E rknn-toolkit2 version:" in the toolkit's error block: its version, not an error
pub issue-437 "$P"/issue-tkerr-evalperf-empty-rv1106-tk2.3.2-437.txt
eq "E rknn-toolkit2 version line: version, errors" "$(pq "SELECT json_extract(env_json,'\$.toolkit_version') FROM runs") $(grep -c '^E ' "$P"/issue-tkerr-evalperf-empty-rv1106-tk2.3.2-437.txt)" "2.3.2 5"
"$RT" show 1 --db "$T/p.db" >"$T/show"
eq "the version line is not among the error lines" "$(grep -c 'E rknn-toolkit2 version' "$T/show")" 0
case "$(diag)" in *"no per-layer table"*) ok ;; *) bad "empty perf detail: diagnosis '$(diag)'" ;; esac
# Android logcat: rknn_server's own lines (tag SERVER), the kernel driver's (RKNPU)
pub issue-403 "$P"/issue-android-logcat-rknn-server-2.3.2-403.txt
eq "logcat rknn_server: server and runtime versions" "$(cat "$T/pub.rc") $(pq "SELECT json_extract(env_json,'\$.server_version')||' '||json_extract(env_json,'\$.runtime_version') FROM runs")" "0 2.3.2 2.3.2"
pub sherpa-2721 "$P"/issue-android-logcat-failed-submit-kernel-timeout-rk3568-sherpa-2721.txt
"$RT" show 1 --db "$T/p.db" >"$T/show"
eq "logcat: the kernel's job timeout among the error lines" "$(grep -c 'E RKNPU *: job timeout' "$T/show")" 1
# the toolkit's memory statistics alone (a build log): weight and internal bytes
pub issue-203 "$P"/issue-buildlog-memstats-KB-hiera-203.txt
eq "build memory totals in KB (KiB): weight, internal" "$(pq "SELECT weight_bytes||' '||internal_bytes FROM runs")" "34004890 $((243712 * 1024))"  # 33207.9 x 1024, rounded
pub issue-217 "$P"/issue-buildlog-memstats-bytes-vit-rk3566-217.txt
eq "build memory totals in bytes: weight, internal" "$(pq "SELECT weight_bytes||' '||internal_bytes FROM runs")" "19588032 755712"
# RKNN-Toolkit 1.x eval_perf (RKNPU1): not read, said so with its line, nothing stored
rm -f "$T/p.db"
"$RT" import --db "$T/p.db" "$P"/issue-tk1-evalperf-wrapped-names-rv1126-388.txt >/dev/null 2>"$T/err"
eq "toolkit 1.x eval_perf: exit, one line naming it, no database" "$? $(wc -l <"$T/err") $(grep -c 'line 11: an RKNN-Toolkit 1.x eval_perf table' "$T/err") $([ -e "$T/p.db" ] && echo db)" "2 1 1 "
# Android Studio's logcat ("... 12848-12876 E/RKNN: ...") and logcat -v brief ("E/RKNN    (12848): ...")
pub issue-tk2-44 "$P"/issue-android-studio-logcat-alloc-fail-rk3568-44.txt
eq "Android Studio logcat: exit, status, error lines" "$(cat "$T/pub.rc") $(pq "SELECT status FROM runs") $(pq "SELECT json_extract(extra_json,'\$.errors.count') FROM runs")" "0 failed 3"
case "$(diag)" in *"NPU memory could not be allocated"*) ok ;; *) bad "E/RKNN alloc: diagnosis '$(diag)'" ;; esac
printf 'E/RKNN    (12848): failed to allocate handle, ret: -1\n' >"$T/brief.txt"
pub brief "$T/brief.txt"
eq "logcat -v brief: exit, status" "$(cat "$T/pub.rc") $(pq "SELECT status FROM runs")" "0 failed"
# RKNN-Toolkit 1.x prints its version box at level E: versions, not errors (the 4 error
# lines, by hand: Traceback, Exception, "check github issues:", "Current device id is:")
pub tk1-443 "$P"/issue-tk1-init-runtime-model-invalid-rv1126-E-versionbox-443.txt
eq "E-level version box: versions, error lines" "$(pq "SELECT json_extract(env_json,'\$.api_version')||' '||json_extract(env_json,'\$.driver_version')||' '||json_extract(extra_json,'\$.errors.count') FROM runs")" "1.7.5 1.7.5 4"
pub tk2-112 "$P"/issue-tkerr-accuracy-adb-dumps-rk3566-2.0.0b0-112.txt
case "$(diag)" in *"/userdata/dumps"*) ok ;; *) bad "adb dumps: diagnosis '$(diag)'" ;; esac
pub tk2-475 "$P"/issue-tkerr-accuracy-crash-corrupted-size-rk3576-475.txt
eq "glibc abort: exit, status" "$(cat "$T/pub.rc") $(pq "SELECT status FROM runs")" "0 failed"
pub mz-219 "$P"/issue-tkerr-invalid-target-platform-rv1126-tk2.2.0-modelzoo-219.txt
case "$(diag)" in *"RKNN-Toolkit 1.x"*) ok ;; *) bad "invalid target_platform: diagnosis '$(diag)'" ;; esac
# eval_perf without perf_debug: "Total Time(us): N" and "FPS: f", the board's whole-model time
printf 'NPU Current Frequency List:\n    - 1000000000\nTotal Time(us): 17219\nFPS: 58.08\n' >"$T/evalperf.txt"
pub evalperf "$T/evalperf.txt"
eq "eval_perf total: stored, --json, avg FPS" "$(pq "SELECT total_us FROM runs") $(jget "d['runs'][0]['total_us']") $(pq "SELECT json_extract(extra_json,'\$.benchmark.avg_fps') FROM runs")" "17219.0 17219 58.08"
# a benchmark pasted without its header: "Begin perf ..." and its timed lines
printf '...\nBegin perf ...\n   0: Elapse Time = 2.32ms, FPS = 431.97\n   1: Elapse Time = 2.08ms, FPS = 481.70\n   2: Elapse Time = 2.16ms, FPS = 462.96\n' >"$T/bench.txt"
pub bench "$T/bench.txt"
eq "benchmark without its header: median, iterations" "$(pq "SELECT total_us||' '||iterations FROM runs")" "2160.0 3"
# an accuracy table's two halves: the board's (runtime_error) legend says so
pub acc2 "$LOGS"/accuracy-cos-euc-mobilenetv2-rk3588-tk1.6.0-rkdoc-02.txt
b_id=$(pq "SELECT id FROM runs WHERE backend='board'"); s_id=$(pq "SELECT id FROM runs WHERE backend='toolkit'")
eq "accuracy legends: board half, simulator half" "$("$RT" show "$b_id" --db "$T/p.db" | grep -c "and the board's runtime") $("$RT" show "$s_id" --db "$T/p.db" | grep -c 'and the quantized simulation')" "1 1"
# a root shell's prompt ('# ./app ...') is the board's output, not a comment: its path
# names the chip; the '# source:' lines of these files stay comments
printf '# source: a pasted session\n# ./rknn_yolov5_demo model/RV1106/yolov5s-640-640.rknn model/bus.jpg\nloop count = 10 , average run  120.09 ms\n' >"$T/prompt.txt"
pub prompt "$T/prompt.txt"
eq "root prompt line: platform, comments, total" "$(pq "SELECT platform FROM runs") $(jget "d['lines']['comment']") $(jget "d['runs'][0]['total_us']")" "rv1106 1 120090"
# a log wrapped line by line in backticks (inline code): read as the lines inside
pub issue-tk2-2 "$P"/issue-tkerr-errorpipe-tk2-1.x-backticks-rk3568-2.txt
eq "backtick-wrapped lines: exit, status" "$(cat "$T/pub.rc") $(pq "SELECT status FROM runs")" "0 failed"
case "$(diag)" in *"rknn_server"*|*"board's NPU is not available"*) ok ;; *) bad "ERROR_PIPE in backticks: diagnosis '$(diag)'" ;; esac
# Markdown code fences around a paste are layout: --strict still passes
rm -f "$T/p.db"
"$RT" import --db "$T/p.db" --strict "$P"/issue-rterr-alloc-handle-enomem-rk3566-rt2.3.0-immich-15241.txt >/dev/null 2>"$T/err"
eq "code fences under --strict: exit" "$?" 0
# the SDK's older demo: "once run use" and "loop count = 10 , average run  26.577900 ms"
pub khadas "$P"/issue-demo-yolov5-avg-run-rk3588-rt1.3.0-khadas-edge2.txt
eq "demo's average run: stored, --json, versions" "$(pq "SELECT total_us FROM runs") $(jget "d['runs'][0]['total_us']") $(pq "SELECT json_extract(env_json,'\$.runtime_version')||'/'||json_extract(env_json,'\$.driver_version') FROM runs")" "26577.9 26577.9 1.3.0/0.7.2"
# a ranking table cut after a row (the paste ends there): its 7 whole rows kept, with a
# warning; --strict refuses it
pub mz-357 "$P"/issue-optable-padded-rk3588-modelzoo-357.txt
eq "cut ranking table: exit, warning" "$(cat "$T/pub.rc") $(grep -c 'ranking table ends at the end of the log' "$T/err")" "0 1"
eq "cut ranking table: its rows (ops) kept" "$(pq "SELECT json_array_length(json_extract(extra_json,'\$.perf.ops'))||' '||json_extract(extra_json,'\$.perf.ops[2].cpu_us')||' '||json_extract(extra_json,'\$.perf.ops[2].npu_us') FROM runs" 2>&1)" "7 12618 6833"
rm -f "$T/p.db"
"$RT" import --db "$T/p.db" --strict "$P"/issue-optable-padded-rk3588-modelzoo-357.txt >/dev/null 2>"$T/err"
eq "cut ranking table under --strict: exit, no database" "$? $([ -e "$T/p.db" ] && echo db)" "2 "
# a ranking table alone: show's op ranking and CPU fallback from it; its total is the
# TotalTime column's sum (awk) when the table has no Total row
f=$LOGS/perf-optable-yolov8n1920x1088-rk3588-channy-02.txt
pub optable "$f"
"$RT" show 1 --db "$T/p.db" --json >"$T/out"
eq "ranking table alone: ops, total, fallback op types" "$(jget "len(d['npu']['op_ranking'])") $(jget "d['npu']['perf_table_us']") $(jget "d['npu']['fallback']['op_types']")" "$(grep -cE '^[A-Za-z]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+%' "$f") $(awk '$1 ~ /^[A-Za-z]+$/ && $NF ~ /%$/ {s += $6} END {print s}' "$f") 0"
pub mz-357b "$P"/issue-optable-padded-rk3588-modelzoo-357.txt
"$RT" show 1 --db "$T/p.db" --json >"$T/out"
eq "cut ranking table: CPU fallback op types, CPU us (Transpose 12618)" "$(jget "d['npu']['fallback']['op_types']") $(jget "d['npu']['fallback']['us']")" "1 12618"
"$RT" show 1 --db "$T/p.db" >"$T/show"
eq "show: the Transpose's CPU time under CPU fallback" "$(grep -cE '^  Transpose +12618 us on the CPU, 15 calls' "$T/show")" 1
# the totals lines printed above a ranking table (an excerpt that starts there)
{ printf 'Total Operator Elapsed Per Frame Time(us): 131201\nTotal Memory Read/Write Per Frame Size(KB): 235155.92\n'; grep -v '^#' "$P"/issue-optable-padded-rk3588-modelzoo-357.txt | grep -v '^[^D]'; printf 'D RKNN: [19:41:05.496] -----------------------------------------------------------------------------------------------------\n'; } >"$T/tot.txt"
pub totals "$T/tot.txt"
eq "totals above a ranking table: exit, total, unread lines" "$(cat "$T/pub.rc") $(jget "d['runs'][0]['total_us']") $(jget "d['lines']['app']")" "0 131201 0"
# a toolkit build's layer table (every time 0): the compiler's, not a board measurement
pub build "$LOGS"/buildlog-debug-layertable-fp16-unet256-rk3588-tk2.3.0-triority-08.txt
"$RT" show 1 --db "$T/p.db" --json >"$T/out"
eq "build table: backend, kind, provenance, table total" "$(pq "SELECT backend||' '||import_kind FROM runs") $(jget "d['provenance']['table']") $(jget "d['npu']['perf_table_us']")" "toolkit toolkit build build None"
# ... yet it says where each layer runs: its CPU layers (awk) are the fallback, at no cost
f=$LOGS/buildlog-debug-layertable-fp16-unet256-rk3588-tk2.3.0-triority-08.txt
# a table with no platform: --npu-table asks for --target (the table is laid out per core)
"$RT" show 1 --db "$T/p.db" --npu-table >/dev/null 2>"$T/err"
eq "--npu-table of a table without platform: asks for --target" "$(grep -c 'import the log again with --target CHIP' "$T/err")" 1
eq "build table: CPU layers listed, cost unknown" "$(jget "d['npu']['fallback']['count']") $(jget "d['npu']['fallback']['us']")" "$(sed -E 's/^D RKNN: \[[^]]*\] //' "$f" | awk '$1 ~ /^[0-9]+$/ && $4 == "CPU" && $2 !~ /^(Input|Output)Operator$/' | wc -l) None"

# a whole eval_perf output whose NPU rows include 0/0/0 cycles (Concat, Split, Add,
# exSoftmax13): the shares are of every row's time (awk: CPU rows, rows with cycles
# by NPU >= DDR, rows with none), not of the rows with cycles alone
f=$P/issue-evalperf-whole-yolov8-rk3588-tk2.3.2-nhat092005.txt
pub nhat "$f"
"$RT" show 1 --db "$T/p.db" --json >"$T/out"
eq "shares of every row: compute, DDR, CPU, uncounted" "$(jget "' '.join('%.2f' % d['npu']['share'][k] for k in ('compute', 'DDR', 'CPU', 'uncounted'))")" \
   "$(awk '$1 ~ /^[0-9]+$/ && ($4 == "NPU" || $4 == "CPU") { split($7, c, "/"); t = $8; s += t
        if ($4 == "CPU") b["c"] += t; else if (c[1] + c[2] == 0) b["u"] += t; else if (c[2] >= c[1]) b["n"] += t; else b["d"] += t }
        END { printf "%.2f %.2f %.2f %.2f", 100*b["n"]/s, 100*b["d"]/s, 100*b["c"]/s, 100*b["u"]/s }' "$f")"
# no chip named anywhere, but WorkLoad(0/1/2) and MacUsage print three cores: only
# rk3588 has three (npu-hw.md); --npu-table then rebuilds it, with the log's own totals
eq "a 3-core table names its chip: platform" "$(pq "SELECT platform FROM runs")" rk3588
"$RT" show 1 --db "$T/p.db" --npu-table >"$T/npt" 2>"$T/err"
eq "rebuilt table: exit, the log's two total lines" "$? $(grep -c -F -x -f <(grep '^Total .*Per Frame' "$f") "$T/npt")" "0 2"
"$RT" show 1 --db "$T/p.db" >"$T/show"
eq "show: the uncounted share after the shares" "$(grep -c "CPU 2.9 % of the layers' time (33.1 % in rows with no cycle counts);" "$T/show")" 1
# its ranking table with the CPU and GPU columns cut out, as a copied table may
# print it ("CallNumber ... NPUTime(us)"): each op type's CPU time is its total less
# NPU, which must give back the column that was cut (GPU 0 in every row)
{ echo "OpType CallNumber ... NPUTime(us) TotalTime(us) TimeRatio(%)"
  awk '/Ranking Table/ {r = 1} r && $1 ~ /^[A-Za-z0-9]+$/ && $NF ~ /%$/ && $2 ~ /^[0-9]+$/ {print $1, $2, $5, $6, $7}' "$f"; } >"$T/cut.txt"
pub cutcols "$T/cut.txt"
"$RT" show 1 --db "$T/p.db" --json >"$T/out"
eq "ranking table without its CPU column: CPU us per op, the flag" "$(jget "' '.join('%s=%g' % (o['op'], o['cpu_us']) for o in d['npu']['op_ranking'])") $(jget "d['npu']['op_ranking_cpu_is_rest']")" \
   "$(awk '/Ranking Table/ {r = 1} r && $1 ~ /^[A-Za-z0-9]+$/ && $NF ~ /%$/ && $2 ~ /^[0-9]+$/ {printf "%s%s=%d", n++ ? " " : "", $1, $3}' "$f") True"
eq "ranking table without its CPU column: fallback op types, us" "$(jget "d['npu']['fallback']['op_types']") $(jget "d['npu']['fallback']['us']")" "1 590"
"$RT" show 1 --db "$T/p.db" >"$T/show"
eq "show: the heading says CPU us is total less NPU" "$(grep -c "^op ranking (.*; CPU us is total less NPU: the log left its CPU column out)$" "$T/show")" 1

# a second runtime context (the library replaced): its versions are its own, the
# first one's build stamp and driver are not inherited (the bare line names neither)
f=$P/issue-rtinfo-rt1.4.0-drv0.8.8-then-noprefix-2.3.0-ultralytics-18928.txt
pub ul-18928 "$f"
eq "second runtime line: runs, its version, build, driver" "$(pq "SELECT count(*) FROM runs") $(pq "SELECT json_extract(env_json,'\$.runtime_version')||' '||quote(json_extract(env_json,'\$.runtime_build'))||' '||quote(json_extract(env_json,'\$.driver_version')) FROM runs WHERE id=2")" \
   "2 $(sed -n 's/^RKNN Runtime Information, librknnrt version: \([0-9.]*\)$/\1/p' "$f") NULL NULL"
eq "first runtime line: its build and driver" "$(pq "SELECT json_extract(env_json,'\$.runtime_build')||' '||json_extract(env_json,'\$.driver_version') FROM runs WHERE id=1")" \
   "$(grep -o '1.4.0 ([^)]*)' "$f" | sed 's/.*(\(.*\))/\1/') $(grep -o 'Driver Information: version: [0-9.]*' "$f" | awk '{print $NF}')"

# the newer wording of a model built for another chip names the board's chip: that
# is the run's platform
f=$P/issue-rterr-model-for-rk3588-on-rk3576-videopipe-17.txt
pub vp-17 "$f"
eq "model for another chip (newer wording): platform" "$(pq "SELECT platform FROM runs")" "$(grep -o 'current platform is [A-Z0-9]*' "$f" | awk '{print tolower($NF)}')"
case "$(diag)" in *"compiled for another chip"*) ok ;; *) bad "model for RK3588 on RK3576: diagnosis '$(diag)'" ;; esac
"$RT" show 1 --db "$T/p.db" --npu-table >/dev/null 2>"$T/err"
eq "--npu-table of a run with a platform and no table: says there is no table" "$? $(grep -c 'has no per-layer table' "$T/err")" "2 1"

# the toolkit's API and the board's rknn_server of other versions: a message of another
# size ("msg_ioctl_ack fail, data_len = X, expect Y"), not an NPU that is unavailable
f=$P/issue-tkerr-rknnapi-api1.2.0-vs-server1.3.0-ioctl-ack-rk3588-75.txt
pub tk2-75 "$f"
eq "API/server versions the box printed" "$(pq "SELECT json_extract(env_json,'\$.api_version')||' '||json_extract(env_json,'\$.server_version') FROM runs")" "$(grep -o ' API: [0-9][0-9.]*' "$f" | awk '{print $2}') $(grep -o 'rknn_server: [0-9.]*' "$f" | awk '{print $2}')"
case "$(diag)" in *"different versions"*) ok ;; *) bad "msg_ioctl_ack: diagnosis '$(diag)'" ;; esac

# a toolkit build on a PC (rknn.build()): the compiler's runs, not failed board runs;
# "Unkown op target: 0" at level E is an op moved to the CPU (a finished build)
f=$P/issue-buildlog-unknown-op-target-benign-tk2.3.2-modelzoo331.txt
pub mz-331 "$f"
eq "build log: runs, backend, kind, status" "$(pq "SELECT group_concat(backend||'/'||import_kind||'/'||coalesce(status,'ok'), ' ') FROM runs")" "toolkit/toolkit build/ok toolkit/toolkit build/ok"
eq "build log: E lines per build (before and after 'I rknn building ...')" "$(pq "SELECT group_concat(json_extract(extra_json,'\$.errors.count'), ' ') FROM runs")" \
   "$(awk '/^I rknn building \.\.\./ {print n; n = 0; next} /Unkown op target/ {n++} END {print n}' "$f" | paste -sd' ')"
f=$P/issue-buildlog-buffer-overflow-librknnc1.1.0b0-progress-glued-118.txt
pub tk2-118 "$f"
eq "build crash: backend, status, compiler version" "$(pq "SELECT backend||' '||status||' '||json_extract(env_json,'\$.compiler_version') FROM runs")" "toolkit failed $(grep -o 'librknnc version: [0-9a-z.]*' "$f" | awk '{print $NF}')"


# runtime and toolkit errors whose line says what is wrong
pub tk2-59 "$P"/issue-rterr-parseRKNN-exportDataSize-lite2-rt2.0.0b0-drv0.7.2-59.txt
case "$(diag)" in *"truncated or corrupted copy"*) ok ;; *) bad "exportDataSize: diagnosis '$(diag)'" ;; esac
pub tk-440 "$P"/issue-demo-rknn_query-info_len-rt1.6.0-drv0.8.2-rk3588-firefly-440.txt
case "$(diag)" in *"rknn_api.h that does not match"*) ok ;; *) bad "info_len < sizeof: diagnosis '$(diag)'" ;; esac
pub tk2-229 "$P"/issue-tkerr-rknn_server-too-old-accuracy-rk3568-android-tk2.3.x-229.txt
eq "build then accuracy_analysis: the build's run, the board's failed run" "$(pq "SELECT group_concat(backend||'/'||coalesce(status,'ok'), ' ') FROM runs")" "toolkit/ok board/failed"
eq "the build's memory statistics on the build's run (KB)" "$(pq "SELECT weight_bytes FROM runs WHERE backend='toolkit'")" "$(grep -o 'Total Weight Memory Size: [0-9.]*' "$P"/issue-tkerr-rknn_server-too-old-accuracy-rk3568-android-tk2.3.x-229.txt | awk '{printf "%.0f", $NF * 1024}')"
"$RT" show 2 --db "$T/p.db" | sed -n 's/^diagnosis *//p' >"$T/dx"
case "$(cat "$T/dx")" in *"update rknn_server"*) ok ;; *) bad "rknn_server too old: diagnosis '$(cat "$T/dx")'" ;; esac
# RKNN-Toolkit 1.x: two sessions (each opens with "W rknn-toolkit version:"), two runs; the
# first one's eval_perf summary "Average inference Time(us): 2956.56" / "FPS: 338.23" is its
# whole-model time, the second one's ERROR_PIPE its failure
f=$P/issue-tk1-evalperf-average-inference-time-tk1.7.5-drv1.7.3-errorpipe-511.txt
pub tk1-511 "$f"
api=$(grep -o ' API: [0-9][0-9.]*' "$f" | awk '{print $2}')
eq "1.x sessions: runs, status, versions" "$(pq "SELECT group_concat(coalesce(status,'ok')||'/'||json_extract(env_json,'\$.toolkit_version')||'/'||coalesce(json_extract(env_json,'\$.api_version'),'-'), ' ') FROM runs")" \
   "$(grep -o '^W rknn-toolkit version: [0-9.]*' "$f" | awk -v api="$api" 'NR == 1 {printf "ok/%s/%s", $NF, api} NR == 2 {printf " failed/%s/-", $NF}')"
eq "1.x eval_perf summary: total us (--json and stored), FPS" "$(jget "d['runs'][0]['total_us']") $(pq "SELECT total_us||' '||json_extract(extra_json,'\$.benchmark.avg_fps') FROM runs WHERE id=1")" \
   "$(sed -n 's/^Average inference Time(us): //p' "$f") $(sed -n 's/^Average inference Time(us): //p' "$f") $(sed -n 's/^FPS: //p' "$f")"
# --npu-table of a run with no per-layer table says so, and asks for no --target
"$RT" show 1 --db "$T/p.db" --npu-table >/dev/null 2>"$T/err"
eq "--npu-table without a per-layer table: exit, says so, no --target" "$? $(grep -c 'has no per-layer table: the log it was imported from printed none' "$T/err") $(grep -c -- '--target' "$T/err")" "2 1 0"
"$RT" show 2 --db "$T/p.db" | sed -n 's/^diagnosis *//p' >"$T/dx"
case "$(cat "$T/dx")" in *"could not reach rknn_server"*) ok ;; *) bad "recv(MsgLoadAck) ERROR_PIPE: diagnosis '$(cat "$T/dx")'" ;; esac
# the application's calls, the toolkit's target and RKLLM's checks, in their own words
dx() { # name file words: the diagnosis names the cause
    pub "$1" "$2"
    case "$(diag)" in *"$3"*) ok ;; *) bad "$1: diagnosis '$(diag)', want '$3'" ;; esac
}
dx tk2-558 "$P"/issue-rterr-inputs-set-size-x4-rt2.3.2-rk3568-558.txt "smaller than the model's input"
dx superres-3 "$P"/issue-rterr-set-input-shapes-nchw-lite2-superres-3.txt "not one of the model's shape sets"
dx tk2-7 "$P"/issue-rterr-matmul-core-mask-3-rk3588-7.txt "core mask asked for is not available"
dx mz-408 "$P"/issue-tkerr-target-rv1106-hw-rv1103-modelzoo-408.txt "is not the board's chip"
dx sherpa-2880 "$P"/issue-buildlog-failed-pass-sherpa-2880.txt "failed one of its passes"
dx llm-271 "$P"/issue-rkllm-enabled-cpus-rknn-llm-271.txt "fewer enabled CPUs than the NPU cores"
dx rkllama-60 "$P"/issue-rkllm-max-context-rkllama-60.txt "max_context is above the limit"
# -13: the code rknn_api.h gives RKNN_ERR_TARGET_PLATFORM_UNMATCH
code=$(sed -n 's/^#define RKNN_ERR_TARGET_PLATFORM_UNMATCH *\(-[0-9]*\).*/\1/p' include/rknn_api.h)
dx ez-rknn-1 "$P"/issue-wrapper-core-mask-minus13-rk3566-ez-rknn-async-1.txt "$code is RKNN_ERR_TARGET_PLATFORM_UNMATCH"




# RKLLM's version line and its driver warning: the versions, and the driver it asks for
f=$P/issue-rkllm-driver-warn-alloc-badaddr-rk3588-rkllm1.1.4-2.txt
pub rkllm-api-2 "$f"
eq "rkllm line: rkllm runtime, driver, platform, driver asked for" "$(pq "SELECT json_extract(env_json,'\$.rkllm_runtime_version')||' '||json_extract(env_json,'\$.driver_version')||' '||platform||' '||json_extract(env_json,'\$.driver_required') FROM runs")" \
   "$(sed -n 's/^I rkllm: rkllm-runtime version: \([0-9.]*\), rknpu driver version: \([0-9.]*\), platform: \(.*\)$/\1 \2 \L\3/p' "$f") $(grep -o 'please upgrade to [0-9.]*[0-9]' "$f" | awk '{print $NF}')"
"$RT" show 1 --db "$T/p.db" >"$T/show"
eq "show: the driver warning kept beside the driver" "$(grep -c '^versions .*driver 0.8.2 (the runtime asks for 0.9.7 or later)' "$T/show")" 1
f=$P/issue-rkllm-opencl-missing-rk3582-rkllm1.0.1-drv0.9.6-59.txt
pub rkllm-59 "$f"
eq "two rkllm sessions: runs, versions" "$(pq "SELECT group_concat(json_extract(env_json,'\$.rkllm_runtime_version')||'/'||coalesce(json_extract(env_json,'\$.driver_version'),'-'), ' ') FROM runs")" \
   "$(grep -o 'rkllm-runtime version: [0-9.]*[0-9]\(, rknpu driver version: [0-9.]*\)\?' "$f" | awk -F'[:,] *' '{printf "%s%s/%s", (n++ ? " " : ""), $2, (NF > 2 ? $4 : "-")}')"
"$RT" show 2 --db "$T/p.db" | sed -n 's/^diagnosis *//p' >"$T/dx"
case "$(cat "$T/dx")" in *"OpenCL"*) ok ;; *) bad "clGetPlatformIDs: diagnosis '$(cat "$T/dx")'" ;; esac
# RKNNLite and RKLLM in one process: the RKLLM run has RKLLM's versions, none of RKNNLite's
f=$P/issue-rkllm-rknnlite-mixed-app-rk3576-rt2.3.2-llmlib2.3.3b0.txt
pub rkllm-mixed "$f"
R=$(pq "SELECT id FROM runs WHERE env_json LIKE '%rkllm_runtime_version%'")
eq "RKLLM run: rkllm, rkllm-toolkit, llm lib, driver; no librknnrt, toolkit or compiler" "$(pq "SELECT json_extract(env_json,'\$.rkllm_runtime_version')||' '||json_extract(env_json,'\$.rkllm_toolkit_version')||' '||json_extract(env_json,'\$.rknn_llm_lib_version')||' '||json_extract(env_json,'\$.driver_version')||' '||quote(json_extract(env_json,'\$.runtime_version'))||' '||quote(json_extract(env_json,'\$.toolkit_version'))||' '||quote(json_extract(env_json,'\$.compiler_version')) FROM runs WHERE id=$R")" \
   "$(grep -o 'rkllm-runtime version: [0-9.]*[0-9]' "$f" | awk '{print $NF}') $(grep -o 'rkllm-toolkit version: [0-9.]*[0-9]' "$f" | awk '{print $NF}') $(grep -o 'rknn llm lib version: [0-9a-z.]*' "$f" | awk '{print $NF}') $(grep -o 'RKNN Driver Information, version: [0-9.]*' "$f" | tail -1 | awk '{print $NF}') NULL NULL NULL"



# a 3-core table whose runtime printed each row's MacUsage on every core (0.77/0.77/0.77
# under 100%/0%/0%): --npu-table prints it so, and its footnote says so
f=$P/issue-perfdetail-3core-macusage-repeated-rk3588-channy4-appx2.txt
pub channy4 "$f"
"$RT" show 1 --db "$T/p.db" --npu-table >"$T/npt"
eq "rebuilt MacUsage of every NPU row with figures, as the log printed it" \
   "$(awk '$1 ~ /^[0-9]+$/ && $4 == "NPU" && $9 ~ /^[0-9.]+\/[0-9.]+\/[0-9.]+$/ {print $1, $9}' "$T/npt" | md5sum)" \
   "$(awk '$1 ~ /^[0-9]+$/ && $4 == "NPU" && $9 ~ /^[0-9.]+\/[0-9.]+\/[0-9.]+$/ {print $1, $9}' "$f" | md5sum)"
eq "the footnote says how MacUsage is printed" "$(grep -c 'printed on every core as the log did' "$T/npt")" 1
# its ranking table after the per-layer table is kept (npu.op_ranking, as printed), and
# the I/O operators' time is the Time column of its Input/OutputOperator rows, which the
# ranking table's Input/OutputOperator totals give too
"$RT" show 1 --db "$T/p.db" --json >"$T/out"
eq "ranking table after a per-layer table: its rows (op=CPU/NPU/total)" "$(jget "' '.join('%s=%g/%g/%g' % (o['op'], o['cpu_us'], o['npu_us'], o['total_us']) for o in d['npu']['op_ranking'])")" \
   "$(awk '/Ranking Table/ {r = 1} r && $1 ~ /^[A-Za-z]+$/ && $NF ~ /%$/ {printf "%s%s=%d/%d/%d", n++ ? " " : "", $1, $3, $5, $6}' "$f")"
eq "I/O operators us: the rows' Time column, the ranking's totals" "$(jget "'%.1f %.1f' % (d['npu']['io_us'], d['npu']['io_us'])")" \
   "$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^(Input|Output)Operator$/ {s += $8} END {printf "%.1f", s}' "$f") $(awk '/Ranking Table/ {r = 1} r && $1 ~ /^(Input|Output)Operator$/ {s += $6} END {printf "%.1f", s}' "$f")"
"$RT" show 1 --db "$T/p.db" >"$T/show"
eq "show: the op ranking under the layers' figures, the I/O operators" "$(grep -c '^op ranking (the log' "$T/show") $(grep -c "I/O operators $(jget "'%.1f' % d['npu']['io_us']") us" "$T/show")" "1 1"

# show lists the first error lines the store keeps, and says how many more the log had
f=$LOGS/rtlog-level5-dumps-mobilenet-accuracy-analysis-01.txt
pub dumps-errors "$f"
"$RT" show 1 --db "$T/p.db" >"$T/show"
n=$(grep -c 'E RKNN' "$f")
eq "show: error lines listed and the rest counted" "$(grep -c '^  E RKNN' "$T/show") $(sed -n 's/^  \.\.\. \([0-9]*\) more$/\1/p' "$T/show")" "8 $((n - 8))"

# the runtime's known warnings (W RKNN: ... size_with_stride larger than model origin size):
# kept with the run, which they do not fail; --strict passes
f=$P/issue-rtwarn-size-with-stride-x6-rknnlite-multithread-15.txt
rm -f "$T/p.db"
"$RT" import --db "$T/p.db" --strict "$f" >/dev/null 2>"$T/err"
eq "known warnings under --strict: exit" "$?" 0
eq "known warnings: status, count, first line" "$(pq "SELECT coalesce(status,'ok')||' '||json_extract(extra_json,'\$.warnings.count')||' '||json_extract(extra_json,'\$.warnings.lines[0]') FROM runs")" \
   "ok $(grep -c '^W RKNN: .*size_with_stride larger than model origin size' "$f") $(grep -m1 '^W RKNN:' "$f")"
"$RT" show 1 --db "$T/p.db" >"$T/show"
eq "show: the warnings and what they mean" "$(grep -c '^  W RKNN: .*size_with_stride' "$T/show") $(grep -c '^note .*rknn_create_mem' "$T/show")" "$(grep -c '^W RKNN:' "$f") 1"
# RKNNLite's query of a static-shape model's dynamic range: a known warning of each run
f=$P/issue-rkllm-rknnlite-mixed-app-rk3576-rt2.3.2-llmlib2.3.3b0.txt
pub rkllm-mixed-w "$f"
eq "dynamic range warnings of the runs" "$(pq "SELECT sum(json_extract(extra_json,'\$.warnings.count')) FROM runs")" "$(grep -c '^W RKNN: .*RKNN_QUERY_INPUT_DYNAMIC_RANGE error' "$f")"

# lines a paste glued together (the app's prints and three 'I RKNN:' lines on one line):
# the same runs and versions as the log with its line breaks restored (cut here with sed
# before every '-->' and 'I RKNN:'), every physical line counted once
f=$P/issue-sim-then-rknnlite-glued-lines-rk3576-rt2.3.0-tk2.3.2-386.txt
sed -E 's/(-->|I RKNN:)/\n\1/g' "$f" | sed '/^$/d' >"$T/split.txt"
rm -f "$T/p.db" "$T/q.db"
"$RT" import --db "$T/p.db" --json "$f" >"$T/out" 2>"$T/err"
"$RT" import --db "$T/q.db" "$T/split.txt" >/dev/null 2>&1
eq "glued lines: the runs of the log with its breaks restored" "$(pq "SELECT group_concat(platform||' '||json_remove(env_json,'\$.source'), ';') FROM runs")" \
   "$(sqlite3 "$T/q.db" "SELECT group_concat(platform||' '||json_remove(env_json,'\$.source'), ';') FROM runs")"
eq "glued lines: runtime, build, driver, NPU target as printed" "$(pq "SELECT json_extract(env_json,'\$.runtime_version')||' '||json_extract(env_json,'\$.runtime_build')||' '||json_extract(env_json,'\$.driver_version')||' '||json_extract(env_json,'\$.npu_target') FROM runs")" \
   "$(grep -o 'librknnrt version: [^ ]* ([^)]*)' "$f" | tr -d '()' | awk '{print $3, $4}') $(grep -o 'Driver Information, version: [0-9.]*' "$f" | awk '{print $NF}') $(grep -o 'target: RKNPU [a-z0-9]*' "$f" | cut -d' ' -f2-)"
eq "glued lines: every physical line counted once" "$(jget "sum(d['lines'].values())")" "$(wc -l <"$f")"
# a browser's Chinese translation, glued on one line, with full-width colons ('I RKNN：
# [01：19：04.510] RKNN 运行时信息：librknnrt 版本：1.4.0 ... E RKNN：...'): the versions and the
# error lines inside it; --strict names the line where the paste is
f=$P/issue-rterr-machine-translated-fullwidth-colons-rt1.4.0-212.txt
pub tk2-212 "$f"
eq "translated paste: exit, status, runtime, driver" "$(cat "$T/pub.rc") $(pq "SELECT status||' '||json_extract(env_json,'\$.runtime_version')||' '||json_extract(env_json,'\$.driver_version') FROM runs")" \
   "0 failed $(grep -o 'librknnrt 版本：[0-9.]*' "$f" | sed 's/.*：//') $(grep -o '驱动程序信息：版本：[0-9.]*' "$f" | sed 's/.*：//')"
eq "translated paste: error lines (its E RKNN：), the second as printed after its prefix" "$(pq "SELECT json_extract(extra_json,'\$.errors.count')||'|'||json_extract(extra_json,'\$.errors.lines[1]') FROM runs")" \
   "$(grep -v '^#' "$f" | grep -o 'E RKNN：' | wc -l)|E RKNN: [01:19:04.510] $(grep -v '^#' "$f" | grep -o 'E RKNN：[^ ]* [^E]*' | sed -n 2p | sed 's/^E RKNN：[^ ]* //; s/ *$//')"
case "$(diag)" in *"does not match the runtime version"*) ok ;; *) bad "translated 'Invalid RKNN model version': diagnosis '$(diag)'" ;; esac
rm -f "$T/p.db"
"$RT" import --db "$T/p.db" --strict "$f" >/dev/null 2>"$T/err"
eq "translated paste under --strict: the physical line" "$(grep -o 'first at line [0-9]*' "$T/err")" "first at line $(grep -vn '^#' "$f" | head -1 | cut -d: -f1)"

# dmesg alone: the kernel driver's lines (stamp, dmesg -T's stamp, "RKNPU: ", "RKNPU
# fdab0000.npu: ", the tab of a timeout's per-core line) are a run with the driver's
# version and its job errors, diagnosed by what the lines say
f=$P/issue-dmesg-T-failed-wait-job-abort-rt1.5.2-536.txt
pub dmesg-536 "$f"
eq "dmesg -T: exit, runs, status, error lines, the first as printed, library version" \
   "$(cat "$T/pub.rc") $(pq "SELECT count(*)||' '||status||' '||json_extract(extra_json,'\$.errors.count')||'|'||json_extract(extra_json,'\$.errors.lines[0]')||'|'||json_extract(env_json,'\$.runtime_version') FROM runs")" \
   "0 1 failed $(grep -cE 'RKNPU: (failed to wait job|job abort)' "$f")|$(grep -m1 'RKNPU: failed to wait job' "$f")|$(sed -n 's/^librknnrt version: \([0-9.]*\) .*/\1/p' "$f")"
case "$(diag)" in *"interrupted by a signal (ret -512"*) ok ;; *) bad "failed to wait job, ret = -512: diagnosis '$(diag)'" ;; esac
f=$P/issue-dmesg-job-timeout-core-irq-rk3568-matmul-rk3588npu-3.txt
pub dmesg-3 "$f"
eq "dmesg job timeout: status, error lines (every RKNPU line: the driver's LOG_ERRORs of a timeout), the tab line as printed" \
   "$(pq "SELECT status||' '||json_extract(extra_json,'\$.errors.count')||'|'||json_extract(extra_json,'\$.errors.lines[3]') FROM runs")" \
   "failed $(grep -c '^RKNPU: ' "$f")|$(grep -P '^RKNPU: \tcore' "$f")"
case "$(diag)" in *"did not finish within the kernel driver's timeout"*) ok ;; *) bad "failed to wait job, ret = 0: diagnosis '$(diag)'" ;; esac
for f in "$P"/issue-dmesg-rknpu-0.9.8-ff300000-nbuf-kernel-371.txt "$P"/issue-rkllm-dmesg-driver-0.9.8-platform-unknown-rock5c-530.txt; do
    pub dmesg-init "$f"
    eq "$(basename "$f"): the driver's init line: exit, status, driver version, no error line" \
       "$(cat "$T/pub.rc") $(pq "SELECT status||' '||json_extract(env_json,'\$.driver_version')||' '||quote(json_extract(extra_json,'\$.errors')) FROM runs")" \
       "0 ok $(grep -o 'Initialized rknpu [0-9.]*' "$f" | awk '{print $NF}') NULL"
done
# the DMA-heap build's init line, as shared/research/log-formats.md section 7 quotes it
printf '[    2.1] RKNPU: Initialized RKNPU driver: v0.9.8 for 20240828\n' >"$T/dmaheap.txt"
pub dmaheap "$T/dmaheap.txt"
eq "DMA-heap build's init line: driver version" "$(pq "SELECT json_extract(env_json,'\$.driver_version') FROM runs")" 0.9.8

# RKLLM 1.0.1 prints its driver warning after its version line (1.1.x before it):
# one start, one run, the versions of the line before the warning
f=$P/issue-rkllm-1.0.1-noprefix-warning-after-version-drv0.8.2-enomem-emfile-62.txt
pub rkllm-62 "$f"
eq "rkllm 1.0.1 warning after the version line: runs, status, rkllm, driver, asked for, error lines" \
   "$(pq "SELECT count(*)||' '||status||' '||json_extract(env_json,'\$.rkllm_runtime_version')||' '||json_extract(env_json,'\$.driver_version')||' '||json_extract(env_json,'\$.driver_required')||' '||json_extract(extra_json,'\$.errors.count') FROM runs")" \
   "1 failed $(sed -n 's/^rkllm-runtime version: \([0-9.]*\), rknpu driver version: \([0-9.]*\),.*/\1 \2/p' "$f") $(sed -n 's/^Warning: .*upgrade to \([0-9.]*[0-9]\)\.*$/\1/p' "$f") $(grep -c '^E RKNN: ' "$f")"
# its errno 12 lines, then errno 24 ("Too many open files") ones: the diagnosis says both,
# in that order, each once
case "$(diag)" in
    "NPU memory could not be allocated"*"; then the process ran out of file descriptors"*"ulimit -n"*)
        case "$(diag)" in *"; then NPU memory"*) bad "ENOMEM then EMFILE: a meaning twice: '$(diag)'" ;; *) ok ;; esac ;;
    *) bad "ENOMEM then EMFILE: diagnosis '$(diag)'" ;;
esac

# a process that dies in RKLLM's init (ggml's allocation failure and fatal error, gdb's
# backtrace, the shell's "Aborted"): a failed run whose error lines are those lines and
# the frame inside rkllm_init; the frames are the log's own lines, not comments
f=$P/issue-rkllm-1.1.4-rk3576-ggml-calloc-fatal-gdb-backtrace-aborted-183.txt
pub rkllm-183 "$f"
eq "death in rkllm_init: status, platform, error lines" \
   "$(pq "SELECT status||' '||platform||'|'||json_extract(extra_json,'\$.errors.lines') FROM runs")" \
   "failed $(sed -n 's/.*platform: RK\([0-9]*\)$/rk\1/p' "$f")|$(grep -E '^(ggml_calloc: |:0: fatal error|#[0-9]+ .* in rkllm_init |Aborted$)' "$f" | python3 -c 'import json,sys; print(json.dumps([l.rstrip("\n") for l in sys.stdin], separators=(",", ":")))')"
case "$(diag)" in *"died inside rkllm_init"*) ok ;; *) bad "ggml fatal error and Aborted in rkllm_init: diagnosis '$(diag)'" ;; esac
eq "gdb frames are not comments: only the '# ' header lines are" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["lines"]["comment"])' "$T/out")" "$(grep -c '^# ' "$f")"

# vendor lines behind other text: a Markdown quote on every line, a Chinese label before
# the runtime's prefix, the runtime's message pasted with no prefix after a label
f=$P/issue-rkllm-1.1.4-drv0.9.6-markdown-quote-prefix-badaddr-232.txt
pub quote-232 "$f"
eq "Markdown quote: runs, status, rkllm, driver, asked for, error lines without '> '" \
   "$(pq "SELECT count(*)||' '||status||' '||json_extract(env_json,'\$.rkllm_runtime_version')||' '||json_extract(env_json,'\$.driver_version')||' '||json_extract(env_json,'\$.driver_required')||'|'||json_extract(extra_json,'\$.errors.lines') FROM runs")" \
   "1 failed $(sed -n 's/^> I rkllm: rkllm-runtime version: \([0-9.]*\), rknpu driver version: \([0-9.]*\),.*/\1 \2/p' "$f") $(sed -n 's/^> W rkllm: .*upgrade to \([0-9.]*[0-9]\)\.*$/\1/p' "$f")|$(sed -n 's/^> \(E RKNN: .*\)/\1/p' "$f" | python3 -c 'import json,sys; print(json.dumps([l.rstrip("\n") for l in sys.stdin], separators=(",", ":"), ensure_ascii=False))')"
f=$P/issue-rterr-failed-submit-chinese-label-glued-rk3566-sherpa-2583.txt
pub sherpa-2583 "$f"
eq "label glued before E RKNN: exit, status, platform (the model folder's chip), first error line" \
   "$(cat "$T/pub.rc") $(pq "SELECT status||' '||platform||'|'||json_extract(extra_json,'\$.errors.lines[0]') FROM runs")" \
   "0 failed $(grep -o 'sherpa-onnx-rk[0-9]*' "$f" | sort -u | sed 's/sherpa-onnx-//')|$(grep -o 'E RKNN: .*' "$f")"
case "$(diag)" in *"NPU job did not complete"*) ok ;; *) bad "glued failed to submit: diagnosis '$(diag)'" ;; esac
f=$P/issue-rterr-core-mask-7-bare-after-chinese-label-rknpu2-105.txt
pub core-mask-105 "$f"
eq "bare 'Not support core mask' after a label: exit, runs, status (the runtime goes on with one core), the line from the message" \
   "$(cat "$T/pub.rc") $(pq "SELECT count(*)||' '||status||'|'||json_extract(extra_json,'\$.errors.lines[0]') FROM runs")" \
   "0 1 ok|$(grep -o 'Not support core mask: .*' "$f")"
case "$(diag)" in *"core mask asked for is not available"*) ok ;; *) bad "bare core mask: diagnosis '$(diag)'" ;; esac

# init_runtime's "Get hardware info: target_platform = X" is the board's chip: it wins
# over the user's "target set by user is: Y" (model zoo issue 408: rv1106 set, rv1103 board)
f=$P/issue-tkerr-target-rv1106-hw-rv1103-modelzoo-408.txt
pub hw-408 "$f"
eq "the board's hardware line names the platform, not the user's target" "$(pq "SELECT platform FROM runs")" \
   "$(sed -n 's/^I Get hardware info: target_platform = \([a-z0-9]*\),.*/\1/p' "$f")"

# the compiler's failed pass (rknn.build() on a PC) is a build: the toolkit's run, not a board's
f=$P/issue-buildlog-failed-pass-channel-too-large-unknown-type-10-sherpa-2880.txt
pub pass-2880 "$f"
eq "failed compiler pass: runs, backend, kind, status, error lines" \
   "$(pq "SELECT count(*)||' '||backend||'/'||import_kind||'/'||status||' '||json_extract(extra_json,'\$.errors.count') FROM runs")" \
   "1 toolkit/toolkit build/failed $(grep -c '^E RKNN: ' "$f")"
case "$(diag)" in *"compiler failed one of its passes"*) ok ;; *) bad "failed to run pass: diagnosis '$(diag)'" ;; esac

# versions in the shapes a demo or a report prints them: the SDK query on two lines,
# go-rknnlite's "driver version: X, API version: Y (build)", a Markdown table's row
ver() { pq "SELECT count(*)||' '||status||' '||json_extract(env_json,'\$.runtime_version')||' '||coalesce(json_extract(env_json,'\$.runtime_build'),'-')||' '||coalesce(json_extract(env_json,'\$.driver_version'),'-') FROM runs"; }
f=$P/issue-rterr-inputs-set-fp16-sdk-driver-two-lines-rt2.3.2-357.txt
pub sdk-357 "$f"
eq "sdk version and driver version on two lines" "$(ver)" \
   "1 failed $(sed -n 's/^sdk version: \([0-9.]*\) (\(.*\))$/\1 \2/p' "$f") $(sed -n 's/^driver version: //p' "$f")"
f=$P/issue-rterr-failed-submit-go-rknnlite-driver-api-version-rock5b-38.txt
pub gorknn-38 "$f"
eq "go-rknnlite's driver/API version line: the last one before the run" "$(ver)" \
   "1 failed $(sed -n 's/^driver version: \([0-9.]*\), API version: \([0-9.]*\) (\(.*\))$/\2 \3 \1/p' "$f" | tail -1)"
f=$P/issue-rterr-inputs-set-size-md-table-runtime-row-rk3568-558.txt
pub mdtable-558 "$f"
eq "a Markdown table's RKNN Runtime row, its Platform row" "$(ver) $(pq "SELECT platform FROM runs")" \
   "1 failed $(sed -n 's/^ *| RKNN Runtime | librknnrt.so v\([0-9.]*\) (\(.*\)) |$/\1 \2/p' "$f") - $(sed -n 's/^ *| Platform | RK\([0-9]*\) .*/rk\1/p' "$f")"

# lines not read, by whose they are: RKLLM's "I rkllm:" lines are a runtime's, a demo's
# Top-5 the application's; neither is the toolkit's
kinds() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["lines"]; print(d["toolkit"], d["runtime"], d["app"])' "$T/out"; }
f=$P/issue-rkllm-1.2.1b1-info-lines-enabled-cpus-error-271.txt
pub rkllm-271 "$f"
eq "I rkllm: lines not read are runtime lines (toolkit, runtime)" "$(kinds | cut -d' ' -f1-2)" \
   "0 $(( $(grep -c '^I rkllm: ' "$f") - $(grep -cE '^I rkllm: rkllm-(runtime|toolkit) version:' "$f") ))"
f=$P/issue-common-test-top5-ok3568-rt2.3.2-drv0.9.8-forlinx.txt
pub top5 "$f"
eq "rknn_common_test's Top-5: no toolkit line, the Top-5 lines among the app's" \
   "$(kinds | awk '{print $1, ($3 >= n)}' n="$(grep -cE '^(---- Top5 ----|[0-9.]+ - [0-9]+)$' "$f")") $(grep -cE '^[0-9.]+ - [0-9]+$' "$f")" "0 1 5"
# logs that name what they are: RKNPU1's galcore driver is refused by name; RKLLM's chip
# check is a failed run
f=$P/issue-tk1-rv1126-galcore-dmesg-6.4.6.5-482.txt
pub galcore "$f"
eq "galcore (RKNPU1): exit, the refusal names it and its first line" "$(cat "$T/pub.rc") $(grep -o "line [0-9]*: RKNPU1's kernel driver galcore" "$T/err")" \
   "2 line $(grep -v '^#' "$f" >/dev/null; grep -n 'galcore: ' "$f" | head -1 | cut -d: -f1): RKNPU1's kernel driver galcore"
f=$P/issue-rkllm-platform-error-platform-lite-rk3566-416.txt
pub rkllm-416 "$f"
eq "RKLLM platform error: exit, runs, status, the error line" \
   "$(cat "$T/pub.rc") $(pq "SELECT count(*)||' '||status||'|'||json_extract(extra_json,'\$.errors.lines[0]') FROM runs")" \
   "0 1 failed|$(grep -o '^Platform error: .*[^ ]' "$f")"
case "$(diag)" in *"RKLLM does not run on this board's chip"*) ok ;; *) bad "RKLLM Platform error: diagnosis '$(diag)'" ;; esac

# the process's death after a run's timings (a crash in the application's post-processing
# or at release): the line is the run's error, the timings stand and the run is not failed;
# before any timing it fails the run (rkllm-183 above). The real logs with the shell's
# line appended; their figures are the logs' own
f=$LOGS/perf-level4-multicore-improvetherical-lenet-rk3588-rkguide-11.txt
{ cat "$f"; echo 'Segmentation fault (core dumped)'; } >"$T/death-l4.txt"
pub death-l4 "$T/death-l4.txt"
eq "death after a level-4 table: status, table total, error lines" \
   "$(pq "SELECT status||' '||CAST(log_total_us AS INTEGER)||'|'||json_extract(extra_json,'\$.errors.lines') FROM runs")" \
   "ok $(sed -n 's/.*Total Operator Elapsed.*Time(us): *\([0-9]*\).*/\1/p' "$f" | head -1)|[\"Segmentation fault (core dumped)\"]"
f=$LOGS/benchmark-rknn_benchmark-yolov5s-rk3588-v1.5.0-jashacks-01.txt
{ cat "$f"; echo 'Aborted'; } >"$T/death-bench.txt"
pub death-bench "$T/death-bench.txt"
eq "death after a benchmark's Avg line: status, the Avg" \
   "$(pq "SELECT status||' '||json_extract(extra_json,'\$.benchmark.avg_ms') FROM runs")" \
   "ok $(sed -n 's/^Avg Time \([0-9.]*\)ms.*/\1/p' "$f")"
f=$LOGS/benchmark-rknn_benchmark-yolov5s-rk3588-core1-rt2.1.0-129-02.txt
{ cat "$f"; echo 'Segmentation fault'; } >"$T/death-warmup.txt"
pub death-warmup "$T/death-warmup.txt"
eq "death after warm-ups only: the benchmark did not finish, the run failed" \
   "$(pq "SELECT status FROM runs")" "failed"

# --- the log a run came from: every surface names it (a run without a model) ---
# imported by a relative path from the logs' folder; read from another folder
f=benchmark-rknn_benchmark-yolov5s-rk3588-v1.5.0-jashacks-01.txt
abs=$(cd "$LOGS" && pwd -P)/$f  # import keeps the real path, symlinks resolved
RTA=$(cd "$(dirname "$RT")" && pwd)/$(basename "$RT")
(cd "$LOGS" && "$RTA" import "$f" --db "$T/src.db" >/dev/null 2>"$T/err")
eq "import by a relative path: exit" "$?" 0
eq "show: the log's whole path and kind" "$(cd "$T" && "$RTA" show 1 --db src.db | grep '^imported')" \
   "imported  $abs (board log)"
eq "ls: the log in the model column" "$("$RT" ls --db "$T/src.db" | awk 'NR == 2 {print $(NF - 1), $NF}')" "log $abs"
eq "ls --json: log_file; show --json: log.file" \
   "$("$RT" ls --db "$T/src.db" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["log_file"])') $("$RT" show 1 --db "$T/src.db" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["log"]["file"])')" \
   "$abs $abs"
"$RT" report 1 --db "$T/src.db" -f md -o "$T/src.md" >/dev/null 2>&1
eq "report -f md: the log block names it" "$(grep -c "^    imported  $abs (board log)$" "$T/src.md")" 1
# a run made here names its model, no log
"$RT" run tests/data/models/mnist.onnx --db "$T/src.db" -n 1 --warmup 0 --no-progress >/dev/null 2>&1
eq "a run not imported: no log in ls --json or show --json" \
   "$("$RT" ls --db "$T/src.db" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[1]["log_file"])') $("$RT" show 2 --db "$T/src.db" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["log"])') $("$RT" show 2 --db "$T/src.db" | grep -c '^imported')" \
   "None None 0"
eq "ls --model: a glob of the log's name selects the imported run, the model's the other" \
   "$(for m in 'benchmark-*' mnist.onnx; do "$RT" ls --db "$T/src.db" --model "$m" --json | python3 -c 'import json,sys; print([r["id"] for r in json.load(sys.stdin)])'; done | tr '\n' ' ')" "[1] [2] "

# a table whose rows have no times, its total printed (lenet): compare's board
# figure is the total show prints, the log's own
f=$LOGS/perf-level4-multicore-improvetherical-lenet-rk3588-rkguide-11.txt
tot=$(sed -n 's/^Total Operator Elapsed Time(us): *\([0-9]*\).*/\1/p' "$f")
"$RT" import "$f" --db "$T/src.db" --label lenet-log >/dev/null 2>&1
eq "show: the table total the log printed" "$("$RT" show lenet-log --db "$T/src.db" | grep -o 'level-4 table total [0-9.]* ms')" \
   "level-4 table total $(awk -v t="$tot" 'BEGIN {printf "%.3f", t / 1000}') ms"
eq "compare: the same total against a prediction" \
   "$("$RT" compare lenet-log 2 --db "$T/src.db" | grep -o 'board level-4 table total [0-9.]* ms')" \
   "board level-4 table total $(awk -v t="$tot" 'BEGIN {printf "%.3f", t / 1000}') ms"

# an excerpt ("...." for rows 5-54): the table total is the Total line the log
# printed, not the sum of the rows it kept, on show, --npu-table and compare
f=$LOGS/perf-evalperf-2xfmt-abridged-mobilenet-rk3588-sdk2.3.0-rkguide-10.txt
tot=$(sed -n 's/^Total Operator Elapsed Per Frame Time(us): *\([0-9]*\).*/\1/p' "$f")
kept=$(sed -E 's/^[EWIDT] RKNN: //' "$f" | awk '$1 ~ /^[0-9]+$/ && $4 ~ /^(NPU|CPU)$/ {s += $5} END {print s}')
"$RT" import "$f" --db "$T/src.db" --label excerpt --target rk3588 >/dev/null 2>&1
ms=$(awk -v t="$tot" 'BEGIN {printf "%.3f", t / 1000}')
eq "an excerpt: its rows add up to less than its Total line" "$([ "$kept" -lt "$tot" ] && echo less)" less
eq "an excerpt: show's table total is the log's Total line" \
   "$("$RT" show excerpt --db "$T/src.db" | grep -o 'level-4 table total [0-9.]* ms')" "level-4 table total $ms ms"
# board_test's README (toolkit 1.5.2): two of its rows kept, its Total line 20274
f=$LOGS/perf-evalperf-oldfmt-tasksize-mobilenetv2-rk3588-tk1.5.2-rkdoc-01.txt
tot=$(sed -n 's/^ *Total Operator Elapsed Time(us): *\([0-9]*\).*/\1/p' "$f")
kept=$(awk '$1 ~ /^[0-9]+$/ && $4 ~ /^(NPU|CPU)$/ {s += $10} END {print s}' "$f")  # Time(us), the 10th column
"$RT" import "$f" --db "$T/src.db" --label excerpt2 >/dev/null 2>&1
"$RT" show excerpt2 --db "$T/src.db" --npu-table >"$T/npt" 2>&1
eq "an excerpt: show --npu-table's Total line is the log's, a note names the rows' sum" \
   "$(grep -o 'Total Operator Elapsed Per Frame Time(us): [0-9]*' "$T/npt") $(grep -c "rows it kept add up to $kept us" "$T/npt")" \
   "Total Operator Elapsed Per Frame Time(us): $tot 1"
"$RT" report excerpt 2 --db "$T/src.db" -f md -o "$T/excerpt.md" >/dev/null 2>&1
eq "an excerpt: the comparison's verdict against a prediction takes the same total" \
   "$(grep -o 'board level-4 table total [0-9.]* ms' "$T/excerpt.md" | head -1)" "board level-4 table total $ms ms"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
