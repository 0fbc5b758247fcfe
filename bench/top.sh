#!/bin/bash
# bench/top.sh BUILD_DIR — CPU used by `rknn-trace top` refreshing at 10 Hz for
# SECONDS (default 10) under tmux: on this machine's / (its whole /proc walked
# once a second) and on a board fixture (tests/board/make_fixture.sh).
# Target: < 1 % of one CPU. CPU = (utime + stime) of the process / wall time.
set -u
cd "$(dirname "$0")/.."
B=$(cd "${1:-build}" && pwd)
SECS=${SECONDS_TOP:-10}
export RT_SHARED=${RT_SHARED:-../shared}
T=$(mktemp -d)
S="tmux -L rt-bench-top-$$"
trap '$S kill-server 2>/dev/null; rm -rf "$T"' EXIT
bash tests/board/make_fixture.sh "$T/r"
status=0
for root in / "$T/r"; do
    n=$((SECS * 10 + 30))
    $S new-session -d -x 120 -y 40 "echo \$\$ >$T/pid; exec $B/rknn-trace top --root $root --interval 100 --count $n"
    for _ in $(seq 50); do [ -s "$T/pid" ] && break; sleep 0.1; done
    pid=$(cat "$T/pid"); rm -f "$T/pid"
    t0=$(date +%s.%N); sleep "$SECS"
    read -r ut st < <(awk '{print $14, $15}' "/proc/$pid/stat")
    t1=$(date +%s.%N)
    tck=$(getconf CLK_TCK)
    pct=$(awk -v u="$ut" -v s="$st" -v k="$tck" -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", (u+s)/k/(b-a)*100}')
    echo "top --root $root at 10 Hz for ${SECS} s: ${pct} % of one CPU (target < 1 %)"
    awk -v p="$pct" 'BEGIN{exit !(p < 1.0)}' || status=1
    $S kill-server 2>/dev/null
done
exit $status
