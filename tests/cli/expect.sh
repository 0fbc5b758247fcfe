# tests/cli/expect.sh — sourced by the CLI suites that check one command's exit
# code and stderr: ok/bad counters and `expect`. The caller sets T (a temp dir)
# and pass=0 fail=0 before sourcing.
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# expect EXIT_CODE STDERR_REGEX -- command...: that exit code, stderr matching
# the regex, one stderr line for an error (exit >= 2), no sanitizer report
expect() {
    local code=$1 re=$2; shift 3
    "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ "$rc" -ne "$code" ]; then bad "$* -> exit $rc, want $code ($(head -c 300 "$T/err"))"; return; fi
    if [ -n "$re" ] && ! grep -Eq -- "$re" "$T/err"; then bad "$* -> stderr '$(head -c 300 "$T/err")' lacks /$re/"; return; fi
    if [ "$code" -ge 2 ] && [ "$(grep -c . "$T/err")" -ne 1 ]; then bad "$* -> stderr is not one line: $(cat "$T/err")"; return; fi
    if grep -q "AddressSanitizer\|runtime error" "$T/err"; then bad "$* -> sanitizer report"; return; fi
    ok
}
