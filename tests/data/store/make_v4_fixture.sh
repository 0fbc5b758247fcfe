#!/usr/bin/env bash
# make_v4_fixture.sh BUILD OUT_DIR: writes OUT_DIR/v4-release.db with the CLI of
# the release whose store schema was 4 (BUILD holds its rknn-trace and
# librknnrt.so), and in OUT_DIR/v4-release/ what that release printed for each
# run N: show-N.txt, show-N.json (show --json), report-N.json (report -f json),
# npu-table-N.txt (show --npu-table, runs that have one), report-N.FORMAT (md,
# html, csv, trace, gnuplot: a folder), ls.txt, compare-A-B.txt and
# report-A-B.md for a few pairs; export-v1.json: every run exported (export
# version 1).
# tests/cli/store_upgrade.sh upgrades a copy with this version and compares.
# Run from the repository root.
set -euo pipefail
B=$(cd "$1" && pwd)
O=$2
RT=$B/rknn-trace
L=${RT_SHARED:-../shared}/data
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
DB=$O/v4-release.db
rm -rf "$DB" "$O/v4-release"
mkdir -p "$O/v4-release"
export RKNN_TRACE_SYSFS=$T/sim
unset RKNN_LOG_LEVEL RKNN_TRACE_PERF RKNN_TRACE_JOURNAL RKNN_TRACE_RUNTIME RKNN_TRACE_DB
bash tests/board/make_fixture.sh "$T/sim"
M=tests/data/models/mnist.onnx
# 1. fp32 prediction + host run, the level-4 table's extra rows; 2. int8 (quant facts)
"$RT" run $M --db "$DB" --label mnist-fp32 -n 2 --no-progress >/dev/null
"$RT" run $M --db "$DB" --label mnist-i8 -q i8 -n 2 --no-progress >/dev/null
"$RT" tag mnist-i8 quantized int8 --db "$DB"
# 3. a chip with nbuf at a board's clocks
"$RT" run $M --db "$DB" -q fp16 -t rk3576 --npu-mhz 800 --ddr-mhz 1066 -n 1 --no-progress >/dev/null
# 4. a vendor .rknn predicted (Input/OutputOperator rows)
"$RT" run "$L/models/rknn/multiple_input_demo.rk3588.rknn" --db "$DB" --label mid-predict >/dev/null
# 5. an imported board log (perf table, memory, totals); 6, 7: a toolkit log
"$RT" import "$L/logs/perf-evalperf-2xfmt-abridged-mobilenet-rk3588-sdk2.3.0-rkguide-10.txt" --db "$DB" >/dev/null
"$RT" import "$L/logs/accuracy-cos-euc-mobilenetv2-rk3588-tk1.6.0-rkdoc-02.txt" --db "$DB" >/dev/null
# 8. this project's librknnrt.so as a board's runtime (sampled load, PERF_RUN)
"$RT" run $M --db "$DB" --backend board --runtime "$B/librknnrt.so" -t rk3588 -n 3 --label board >/dev/null
# 9. an imported benchmark log with errors
"$RT" import "$L/logs/rterr-failed-submit-rt1.4.0-rk3588-rknpu2-59-02.txt" --db "$DB" >/dev/null
n=$(sqlite3 "$DB" "select count(*) from runs")
O=$O/v4-release
for i in $(seq 1 "$n"); do
    "$RT" show "$i" --db "$DB" >"$O/show-$i.txt"
    "$RT" show "$i" --db "$DB" --json >"$O/show-$i.json"
    "$RT" report "$i" --db "$DB" -f json -o "$O/report-$i.json" >/dev/null
    "$RT" show "$i" --db "$DB" --npu-table >"$O/npu-table-$i.txt" 2>/dev/null || rm -f "$O/npu-table-$i.txt"
    for f in md html csv trace gnuplot; do
        "$RT" report "$i" --db "$DB" -f $f -o "$O/report-$i.$f" >/dev/null
    done
done
"$RT" ls --db "$DB" >"$O/ls.txt"
"$RT" export $(seq 1 "$n") --db "$DB" -o "$O/export-v1.json" 2>/dev/null
# comparisons: quantized vs fp32, a chip at other clocks, the board vs the prediction
for p in "1 2" "1 3" "1 8" "5 1"; do
    set -- $p
    "$RT" compare "$1" "$2" --db "$DB" >"$O/compare-$1-$2.txt" || true
    "$RT" report "$1" "$2" --db "$DB" -f md -o "$O/report-$1-$2.md" >/dev/null
done
