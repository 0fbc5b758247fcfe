#!/usr/bin/env bash
# Option tables (cli/opt.h): every option a command's --help lists on an option
# line is what "did you mean" offers for a one-letter slip of it (the help is
# read here by a python parser of its own, so a table and its help cannot
# drift unseen); the parser's forms (--opt VALUE, --opt=VALUE, -x VALUE) and
# its refusals, each one line on stderr with exit 1.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RT=$B/rknn-trace
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0

source tests/cli/expect.sh

# The commands, from the top-level help.
cmds=$("$RT" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}')
[ "$(echo "$cmds" | wc -w)" -ge 19 ] && ok || bad "top-level help lists $(echo "$cmds" | wc -w) commands"

for c in $cmds; do
    "$RT" "$c" --help >"$T/help" 2>&1 || { bad "$c --help exits $?"; continue; }
    # the long options that start an option line: "  -t, --target P", "      --db PATH"
    opts=$(python3 - "$T/help" <<'PY'
import re, sys
seen = []
for line in open(sys.argv[1]):
    m = re.match(r'^\s+(?:-[A-Za-z](?:,| )\s*)?(--[a-z][a-z0-9-]+)', line)
    if m and m.group(1) not in seen:
        seen.append(m.group(1))
print(' '.join(seen))
PY
)
    for o in $opts; do
        # one letter more: only the option itself is that near
        "$RT" "$c" "${o}q" >"$T/out" 2>"$T/err" </dev/null
        if grep -q "unknown option '${o}q'; did you mean '$o'?" "$T/err"; then ok
        else bad "$c ${o}q: $(head -c 300 "$T/err")"; fi
    done
done

# The parser's forms, on commands whose tables parse them.
DB=$T/r.db
expect 0 "" -- "$RT" ls --db "$DB" --limit 2
expect 0 "" -- "$RT" ls --db="$DB" --limit=2 --json
expect 1 "ls: --json takes no value" -- "$RT" ls --db "$DB" --json=1
expect 1 "option '--limit' needs a value" -- "$RT" ls --db "$DB" --limit
expect 1 "--limit takes a count, got 'x'" -- "$RT" ls --db "$DB" --limit x
expect 1 "top: unknown option '--snapshto'; did you mean '--snapshot'\?" -- "$RT" top --snapshto
expect 1 "tui: unknown option '--dbb'; did you mean '--db'\?" -- "$RT" tui --dbb=x
expect 1 "unknown option '-Q' \(see rknn-trace ls --help\)" -- "$RT" ls -Q
expect 1 "show: --json takes no value" -- "$RT" show 1 --db "$DB" --json=1
expect 1 "compare: unknown option '--gaph'; did you mean '--graph'\?" -- "$RT" compare 1 2 --gaph
expect 1 "--by takes npu or host, got 'gpu'" -- "$RT" compare 1 2 --db "$DB" --by=gpu
expect 1 "--fail-if-slower takes a number in \[0, 1e\+06\], got 'x'" -- "$RT" compare 1 2 --fail-if-slower x%
expect 1 "option '-o' needs a value" -- "$RT" report 1 -f md -o
expect 1 "report: unknown format 'doc'" -- "$RT" report 1 --format=doc
expect 1 "attach: --perf wants a count from 1, not '0'" -- "$RT" attach --perf=0 -- true
expect 1 "attach: --no-db takes no value" -- "$RT" attach --no-db=1 -- true
# after APP (or --) every word is the application's: its own -h is not attach's
expect 1 "attach: unknown option '-x'" -- "$RT" attach -x -- true -h

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
