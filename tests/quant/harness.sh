# tests/quant/harness.sh — sourced by the tests/quant/*.sh suites: the build
# dir (first argument), a scratch dir removed on exit, the pass/fail counters
# and the closing "N passed, N failed" line with its exit status.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
B=${1:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=/usr/bin/python3
R="$B/rknn-trace"
passed=0; failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
expect_rc() { # want, description, command...
    local want=$1 what=$2; shift 2
    "$@" >"$T/out" 2>"$T/err"; local rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "$what: exit $rc, want $want ($(tail -1 "$T/err"))"; fi
}
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" = 0 ]
}
