#!/bin/bash
# bench/top.sh BUILD_DIR — CPU used by `rknn-trace top` refreshing at 10 Hz for
# SECONDS (default 10) under tmux: on this machine's / (its whole /proc walked
# once a second) and on a board fixture (tests/board/make_fixture.sh).
# Target: < 1 % of one CPU. CPU = the process's time on a CPU (/proc/PID/schedstat,
# nanoseconds; utime+stime in clock ticks are too coarse for 10 s) / wall time.
set -u
cd "$(dirname "$0")/.."
B=$(cd "${1:-build}" && pwd)
SECS=${SECONDS_TOP:-10}
export RT_SHARED=${RT_SHARED:-../shared}
T=$(mktemp -d)
# one tmux server per root: a new session on the socket of a server being
# killed could find it gone ("server exited unexpectedly")
S0="tmux -L rt-bench-top-$$-0" S1="tmux -L rt-bench-top-$$-1"
trap '$S0 kill-server 2>/dev/null; $S1 kill-server 2>/dev/null; rm -rf "$T"' EXIT
bash tests/board/make_fixture.sh "$T/r"
status=0
i=0
for root in / "$T/r"; do
    S="tmux -L rt-bench-top-$$-$i"; i=$((i + 1))
    n=$((SECS * 10 + 30))
    $S new-session -d -x 120 -y 40 "echo \$\$ >$T/pid; exec $B/rknn-trace top --root $root --interval 100 --count $n"
    for _ in $(seq 50); do [ -s "$T/pid" ] && break; sleep 0.1; done
    pid=$(cat "$T/pid" 2>/dev/null); rm -f "$T/pid"
    c0= c1=
    [ -n "$pid" ] && read -r c0 _ <"/proc/$pid/schedstat"; t0=$(date +%s.%N)
    sleep "$SECS"
    [ -n "$pid" ] && read -r c1 _ <"/proc/$pid/schedstat"; t1=$(date +%s.%N)
    if [ -z "$c0" ] || [ -z "$c1" ]; then
        echo "top --root $root: could not measure (no process or it ended early)"
        status=1
        $S kill-server 2>/dev/null
        continue
    fi
    pct=$(awk -v a="$c0" -v b="$c1" -v s="$t0" -v e="$t1" 'BEGIN{printf "%.2f", (b-a)/1e9/(e-s)*100}')
    echo "top --root $root at 10 Hz for ${SECS} s: ${pct} % of one CPU (target < 1 %)"
    awk -v p="$pct" 'BEGIN{exit !(p < 1.0)}' || status=1
    $S kill-server 2>/dev/null
done
exit $status
