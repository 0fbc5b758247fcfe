#!/bin/bash
# tests/numpy/run.sh BUILD — .npy cross-check against numpy (/usr/bin/python3):
# files written by the C code are loaded by numpy, files written by numpy (C and
# Fortran order, big-endian, format 1.0/2.0/3.0, broken ones) are read by the C code.
set -u
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
TOOL=$BUILD/tests/npy_tool
PY=/usr/bin/python3
pass=0
fail=0

if [ ! -x "$TOOL" ]; then
    echo "numpy: $TOOL not built" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
if ! $PY -c 'import numpy' 2>/dev/null; then
    echo "numpy: $PY has no numpy (apt-get install python3-numpy)" >&2
    echo "0 passed, 1 failed"
    exit 1
fi

tmp=$(mktemp -d /tmp/npy-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# adds the counts of a "N passed, N failed" line (a step without one is one failure)
count() {
    local out=$1 rc=$2 line
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n1)
    if [ -z "$line" ]; then
        fail=$((fail + 1))
        return
    fi
    pass=$((pass + $(echo "$line" | cut -d' ' -f1)))
    fail=$((fail + $(echo "$line" | cut -d' ' -f3)))
    if [ "$rc" -ne 0 ] && [ "$(echo "$line" | cut -d' ' -f3)" -eq 0 ]; then
        fail=$((fail + 1))
    fi
}

# 1. C writes, numpy reads
mkdir -p "$tmp/c"
if "$TOOL" write "$tmp/c"; then
    out=$($PY "$HERE/check_npy.py" check "$tmp/c"); rc=$?
    count "$out" $rc
    echo "numpy reads C files: $(printf '%s\n' "$out" | tail -n1)"
else
    echo "numpy: npy_tool write failed" >&2
    fail=$((fail + 1))
fi

# 2. numpy writes, C reads
out=$($PY "$HERE/check_npy.py" write "$tmp/np"); rc=$?
count "$out" $rc
out=$("$TOOL" read "$tmp/np"); rc=$?
count "$out" $rc
echo "C reads numpy files: $(printf '%s\n' "$out" | tail -n1)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
