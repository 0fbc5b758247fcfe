#!/usr/bin/env bash
# Runs C API thread tests built with -fsanitize=thread (make tsan): any data race or
# lock-order report fails the test. Prints the closing "N passed, N failed" line.
#   tests/tsan.sh BUILD_DIR TEST...
set -uo pipefail
cd "$(dirname "$0")/.."
B=$1; shift
export RT_SHARED=${RT_SHARED:-../shared}
# OpenBLAS runs single-threaded as the runtime asks; timing bounds do not hold at
# TSan's speed, the races are what this run is for
export OPENBLAS_NUM_THREADS=1 RT_TEST_NO_TIMING=1
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 suppressions=$PWD/tests/tsan.supp"
passed=0; failed=0
for t in "$@"; do
    log=$(mktemp)
    start=$(date +%s)
    "$B/tests/$t" >"$log" 2>&1
    rc=$?
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
    if [ $rc -eq 0 ] && [ -n "$line" ] && ! grep -q 'WARNING: ThreadSanitizer' "$log"; then
        passed=$((passed + 1))
        echo "ok   $t under ThreadSanitizer ($line, $(( $(date +%s) - start )) s)"
    else
        failed=$((failed + 1))
        echo "FAIL $t under ThreadSanitizer (exit $rc)"
        grep -A30 -m1 'WARNING: ThreadSanitizer' "$log" || tail -n 30 "$log"
    fi
    rm -f "$log"
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
