# tests/cli/expect.sh — sourced by the CLI suites that check one command's exit
# code and stderr: ok/bad counters, `check` and `expect`. The caller sets T (a
# temp dir) and pass=0 fail=0 before sourcing.
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
# check 'SHELL TEST' 'what failed': one check counted from a test eval'd here
check() { if eval "$1"; then ok; else bad "$2"; fi; }

# expect EXIT_CODE STDERR_REGEX -- command...
# Runs the command with stdin from /dev/null (nothing waits on a terminal),
# stdout to $T/out and stderr to $T/err. It passes with that exit code, no
# sanitizer report, stderr matching the regex (when not ""), and for a refusal
# (any exit but 0) exactly one stderr line: bad input is one clear line with
# exit 2 (a write error too), a usage error one line with exit 1. A call whose
# stderr is meant to hold more says so with EXPECT_LINES=N (that many lines,
# e.g. a warning before the error) or EXPECT_LINES=any (a usage text), as a
# prefix of that call only. Returns 1 after a failure.
expect() {
    local code=$1 re=$2 lines=${EXPECT_LINES:-1}
    if [ "$#" -lt 4 ] || [ "$3" != -- ]; then bad "expect $* -> not: expect CODE REGEX -- command..."; return 1; fi
    shift 3
    "$@" >"$T/out" 2>"$T/err" </dev/null
    local rc=$?
    if grep -q "Sanitizer\|runtime error" "$T/err"; then bad "$* -> sanitizer report: $(head -c 600 "$T/err")"; return 1; fi
    if [ "$rc" -ne "$code" ]; then bad "$* -> exit $rc, want $code ($(head -c 300 "$T/err"))"; return 1; fi
    if [ -n "$re" ] && ! grep -Eq -- "$re" "$T/err"; then bad "$* -> stderr '$(head -c 300 "$T/err")' lacks /$re/"; return 1; fi
    if [ "$code" -ne 0 ] && [ "$lines" != any ] && [ "$(grep -c . "$T/err")" -ne "$lines" ]; then
        bad "$* -> stderr is not $lines line(s): $(head -c 600 "$T/err")"; return 1
    fi
    ok
}
