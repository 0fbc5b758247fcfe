# tests/samples/checks.sh — sourced by the checks of vendor files kept out of the
# tree (tests/samples/vendor_*.sh), from the repository's root: a scratch dir T
# removed on exit, ok/bad counting and printing one line each, verdicts (the
# "ok   ..." / "FAIL ..." lines of a comparison, tests/samples/pairs.py, counted)
# and finish, the closing "N passed, N failed" line with its exit status.
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
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
