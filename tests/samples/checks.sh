# tests/samples/checks.sh — sourced by the checks of vendor files kept out of the
# tree (tests/samples/vendor_*.sh), from the repository's root: a scratch dir T
# removed on exit, ok/bad counting and printing one line each, verdicts (the
# "ok   ..." / "FAIL ..." lines of a comparison, tests/samples/pairs.py, counted)
# dir_arg, the one-folder argument of most checks, and finish, the closing
# "N passed, N failed" line with its exit status.
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
verdicts() { # FILE
    while IFS= read -r line; do
        case "$line" in "ok   "*) ok "${line#ok   }" ;; "FAIL "*) bad "${line#FAIL }" ;; *) bad "comparison: $line" ;; esac
    done <"$1"
}
dir_arg() { # USAGE ARGS...: D, the folder of vendor files a check takes as its one
    # argument (else the usage line, exit 2), with the build B, its rknn-trace R, python PY
    [ $# -eq 2 ] || { echo "usage: $(basename "$0") $1" >&2; exit 2; }
    D=$2 B=${BUILD:-build} PY=${PYTHON:-/usr/bin/python3}
    R=$B/rknn-trace
}
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
