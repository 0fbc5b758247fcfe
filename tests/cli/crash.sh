#!/usr/bin/env bash
# Crash test of the store: a writer is killed (SIGKILL) at random moments while
# it records, and after EACH kill the read-only commands must work (`ls`, `show`)
# and every listed run must be complete, checked with the sqlite3 CLI (layer
# counts, PRAGMA integrity_check). The readers run before sqlite3 touches the
# file, so that they meet whatever journal the writer left.
#   1. `rknn-trace run mnist.onnx` killed 100 times (a kill inside the commit
#      leaves a hot journal now and then);
#   2. tests/tools/store_writer (runs of 400 layers of 16 KiB, three times
#      SQLite's page cache) killed 30 times: about half of the kills leave one.
# The kill points come from a fixed seed, so that runs repeat.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RT=$B/rknn-trace
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0; hot=0
MNIST=tests/data/models/mnist.onnx
# mnist.onnx holds 12 nodes; one reshapes a weight (Parameter193_reshape1) and
# is folded at load, so a complete run has 11 layers (counted from the model).
MNIST_LAYERS=11
WRITER_LAYERS=400

ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# A journal whose header starts with SQLite's magic was synced by a writer that
# did not finish: hot (a journal of zeros is not).
is_hot() { [ -f "$1-journal" ] && [ "$(head -c 8 "$1-journal" | od -An -tx1 | tr -d ' \n')" = d9d505f920a163d7 ]; }

# check DB LAYERS WHAT: read-only commands first, then sqlite3 as the oracle.
check() {
    local db=$1 layers=$2 what=$3 n last
    if ! "$RT" ls --db "$db" >"$T/ls" 2>"$T/err"; then
        bad "$what: ls: $(head -c 300 "$T/err")"; return
    fi
    n=$(sqlite3 "$db" "SELECT COUNT(*) FROM runs") || { bad "$what: sqlite3 cannot read"; return; }
    [ "$(tail -n +2 "$T/ls" | grep -c .)" = "$n" ] || { bad "$what: ls lists $(tail -n +2 "$T/ls" | grep -c .) runs, sqlite3 $n"; return; }
    last=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
    if [ -n "$last" ] && ! "$RT" show "$last" --db "$db" >/dev/null 2>"$T/err"; then
        bad "$what: show $last: $(head -c 300 "$T/err")"; return
    fi
    local partial
    partial=$(sqlite3 "$db" "SELECT COUNT(*) FROM runs WHERE (SELECT COUNT(*) FROM layers WHERE run_id = runs.id) <> $layers")
    [ "$partial" = 0 ] || { bad "$what: $partial runs without $layers layers"; return; }
    [ "$(sqlite3 "$db" "PRAGMA integrity_check")" = ok ] || { bad "$what: integrity_check fails"; return; }
    ok
}

# kill_loop N DB LAYERS MAX_MS command...: N kills after a random wait
kill_loop() {
    local n=$1 db=$2 layers=$3 max_ms=$4; shift 4
    for i in $(seq "$n"); do
        "$@" >/dev/null 2>&1 &
        local pid=$!
        local ms=$((RANDOM % max_ms))
        sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        is_hot "$db" && hot=$((hot + 1))
        check "$db" "$layers" "kill $i of $* after $ms ms"
    done
}

RANDOM=20240610
D1=$T/cli.db
"$RT" run "$MNIST" --db "$D1" --label first >/dev/null 2>&1 || bad "first run"
start=$(date +%s%N)
# one timed run, no warm-up: the kills land in the recording, not in the timing loop
"$RT" run "$MNIST" --db "$D1" -n 1 --warmup 0 >/dev/null 2>&1 || bad "second run"
run_ms=$(( ($(date +%s%N) - start) / 1000000 + 5 ))
hot_before=$hot
kill_loop 100 "$D1" $MNIST_LAYERS $((run_ms * 6 / 5)) "$RT" run "$MNIST" --db "$D1" -n 1 --warmup 0
echo "rknn-trace run (${run_ms} ms) killed 100 times: $((hot - hot_before)) hot journals"

D2=$T/writer.db
"$B/tests/store_writer" "$D2" $WRITER_LAYERS 1 || bad "store_writer"
hot_before=$hot
kill_loop 30 "$D2" $WRITER_LAYERS 400 "$B/tests/store_writer" "$D2" $WRITER_LAYERS
echo "store_writer killed 30 times: $((hot - hot_before)) hot journals"
# the readers above must have met hot journals, else this test proves nothing
[ $((hot - hot_before)) -ge 10 ] && ok || bad "store_writer left only $((hot - hot_before)) hot journals"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
