#!/bin/bash
# bench/attach.sh BUILD_DIR — the interposer's cost per rknn_run (perf collection
# off): an application of the C API (tests/board/attach_app.c `bench`) calls
# rknn_run N times on a one-node model, directly on BUILD's librknnrt.so and
# under librknntrace.so writing its journal. Each way runs R times, alternating;
# the minimum of each way's mean per call is kept (host noise only adds), and the
# overhead is their difference. Target: <= 2 us per rknn_run.
set -u
cd "$(dirname "$0")/.."
B=$(cd "${1:-build}" && pwd)
N=${N:-20000}
R=${R:-9}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc -std=c11 -O2 -Iinclude -o "$T/app" tests/board/attach_app.c -L"$B" -lrknnrt -Wl,-rpath,"$B" || exit 1
M=tests/api/dyn_add.onnx
direct=(); traced=()
for _ in $(seq "$R"); do
    direct+=("$("$T/app" bench "$M" "$N")")
    traced+=("$(RKNN_TRACE_JOURNAL=$T/j LD_PRELOAD=$B/librknntrace.so "$T/app" bench "$M" "$N")")
    rm -f "$T/j"
done
d=$(printf '%s\n' "${direct[@]}" | sort -g | head -1)
t=$(printf '%s\n' "${traced[@]}" | sort -g | head -1)
o=$(awk -v a="$t" -v b="$d" 'BEGIN{printf "%.3f", a-b}')
echo "rknn_run on $M, $N calls x $R: direct min $d us, traced min $t us: overhead $o us per call (target <= 2 us)"
awk -v o="$o" 'BEGIN{exit !(o <= 2.0)}'
