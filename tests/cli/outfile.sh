#!/usr/bin/env bash
# tests/cli/outfile.sh [BUILD] — every file the CLI writes appears whole or not
# at all (util/outfile.h): a link planted at the old OUT.tmp name is not
# followed; a character device given to -o stays a device (a private null
# device made with mknod, when root); --db naming a FIFO, device or folder is
# refused and leaves no PATH-journal; on a full disk (a 256 KiB tmpfs when root
# may mount one, else `ulimit -f 0`; OUTFILE_ULIMIT=1 forces the latter) every report format and export fails with
# exit 2 and a plain "no space" message, the previous files byte-identical and
# no temporary left; --dump on a full disk says so (no leak under ASan); two
# exports to one -o at once both succeed and leave valid JSON.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RT=$B/rknn-trace
MNIST=tests/data/models/mnist.onnx
T=$(mktemp -d)
M=$T/small
mounted=0
cleanup() {
    [ $mounted = 1 ] && umount "$M" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
pass=0; fail=0

source tests/cli/expect.sh
# no name ending in .tmp under a folder
no_tmp() { [ -z "$(find "$1" -name '*.tmp' ! -name 'OUT.tmp' 2>/dev/null)" ]; }
valid_json() { python3 -m json.tool "$1" >/dev/null 2>&1; }

DB=$T/a.db
expect 0 "" -- "$RT" run "$MNIST" --db "$DB" --label one -n 2
expect 0 "" -- "$RT" run "$MNIST" --db "$DB" --label two -n 2

# --- a link planted at the name the old code wrote through ---------------------
echo victim >"$T/victim"
ln -s victim "$T/OUT.tmp"
expect 0 "" -- "$RT" export --all --db "$DB" -o "$T/OUT"
check '[ "$(cat "$T/victim")" = victim ] && [ -L "$T/OUT.tmp" ]' "export followed the link planted at OUT.tmp"
check 'valid_json "$T/OUT" && [ -f "$T/OUT" ] && [ ! -L "$T/OUT" ]' "export -o OUT is not one valid JSON file"
check 'no_tmp "$T"' "export left a temporary"
# a link at the target itself is replaced as a link, its target never written
ln -s victim "$T/link.md"
expect 0 "" -- "$RT" report one --db "$DB" -f md -o "$T/link.md"
check '[ "$(cat "$T/victim")" = victim ] && [ -f "$T/link.md" ] && [ ! -L "$T/link.md" ] && grep -q "#" "$T/link.md"' \
    "report -o LINK wrote through the link"

# -o - is stdout, as for export: no file named "-"
RTA=$(cd "$(dirname "$RT")" && pwd)/rknn-trace
(cd "$T" && "$RTA" report one --db "$DB" -f csv -o - >"$T/stdout.csv" 2>"$T/err")
check '[ ! -e "$T/-" ] && head -1 "$T/stdout.csv" | grep -q "^idx,"' "report -o - did not write stdout"

# a standard stream named as a file (a pipe behind /dev/stdout, process substitution)
check '"$RT" report one --db "$DB" -f csv -o /dev/stdout 2>/dev/null | head -1 | grep -q "^idx,"' \
    "report -o /dev/stdout into a pipe"
"$RT" report one --db "$DB" -f md -o >(cat >"$T/subst.md") 2>/dev/null; sleep 0.2
check 'grep -q "^# " "$T/subst.md"' "report -o >(cat) (a /dev/fd/N pipe)"

# --- refused targets: a folder and a FIFO, one line, exit 2, nothing made ------
mkdir "$T/folder"; mkfifo "$T/fifo"
expect 2 "folder" -- "$RT" export --all --db "$DB" -o "$T/folder"
expect 2 "FIFO" -- timeout 20 "$RT" report one --db "$DB" -f csv -o "$T/fifo"
check '[ -p "$T/fifo" ] && [ -z "$(ls -A "$T/folder")" ]' "refused targets changed"

# --- a character device given to -o is written, never replaced ------------------
if mknod "$T/null" c 1 3 2>/dev/null; then
    expect 0 "" -- "$RT" export --all --db "$DB" -o "$T/null"
    check '[ -c "$T/null" ]' "export -o CHARDEV replaced the device"
    expect 0 "" -- "$RT" build "$MNIST" -q fp16 -o "$T/null"
    check '[ -c "$T/null" ]' "build -o CHARDEV replaced the device"
    expect 0 "" -- "$RT" report one --db "$DB" -f html -o "$T/null"
    check '[ -c "$T/null" ]' "report -o CHARDEV replaced the device"
    check 'no_tmp "$T"' "a temporary was left beside the device"
    # --db naming the device: refused before SQLite, no journal beside it
    expect 2 "character device" -- "$RT" run "$MNIST" --db "$T/null"
    check '[ -c "$T/null" ] && [ ! -e "$T/null-journal" ]' "run --db CHARDEV left a journal"
else
    echo "skipped: mknod (not root); -o /dev/null still checked"
    expect 0 "" -- "$RT" report one --db "$DB" -f md -o /dev/null
    check '[ -c /dev/null ]' "report -o /dev/null"
fi

# --- --db naming a FIFO or a folder ----------------------------------------------
expect 2 "FIFO" -- timeout 20 "$RT" run "$MNIST" --db "$T/fifo"
check '[ -p "$T/fifo" ] && [ ! -e "$T/fifo-journal" ]' "run --db FIFO left a journal"
expect 2 "FIFO" -- timeout 20 "$RT" ls --db "$T/fifo"
expect 2 "directory" -- "$RT" run "$MNIST" --db "$T/folder"
check '[ -z "$(ls -A "$T/folder")" ] && [ ! -e "$T/folder-journal" ]' "run --db FOLDER left files"

# --- full disk ------------------------------------------------------------------
mkdir "$M"
if [ "${OUTFILE_ULIMIT:-0}" != 1 ] && [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=256k tmpfs "$M" 2>/dev/null; then
    mounted=1
    full() { dd if=/dev/zero of="$M/fill" bs=4k >/dev/null 2>&1; }
    NOSPACE="no space left on device"
    limited() { "$@"; }
else
    echo "tmpfs not mountable: ulimit -f instead"
    full() { :; }
    NOSPACE="file size limit"
    # SIGXFSZ ignored: write returns EFBIG instead of killing the process; the
    # limit holds for every file the process writes, so stderr goes by a pipe
    limited() {
        (trap '' XFSZ; ulimit -f 0; exec "$@" 2>&1 >/dev/null) | cat >&2
        return "${PIPESTATUS[0]}"
    }
fi
for f in md html csv json trace; do
    expect 0 "" -- "$RT" report one --db "$DB" -f $f -o "$M/r.$f"
done
expect 0 "" -- "$RT" report one --db "$DB" -f gnuplot -o "$M/gp"
expect 0 "" -- "$RT" report one --db "$DB" -f png -o "$M/png"
expect 0 "" -- "$RT" export --all --db "$DB" -o "$M/e.json"
(cd "$M" && find . -type f -exec sha256sum {} + | sort) >"$T/before"
check '[ "$(wc -l <"$T/before")" -ge 10 ]' "too few files to compare: $(cat "$T/before")"
full
for f in md html csv json trace; do
    expect 2 "$NOSPACE" -- limited "$RT" report two --db "$DB" -f $f -o "$M/r.$f"
done
expect 2 "$NOSPACE" -- limited "$RT" report two --db "$DB" -f gnuplot -o "$M/gp"
expect 2 "$NOSPACE" -- limited "$RT" report two --db "$DB" -f png -o "$M/png"
expect 2 "export: .*$NOSPACE" -- limited "$RT" export one --db "$DB" -o "$M/e.json"
check '! grep -q "out of memory" "$T/err"' "export on a full disk says out of memory"
(cd "$M" && find . -type f ! -name fill -exec sha256sum {} + | sort) >"$T/after"
check 'diff "$T/before" "$T/after" >/dev/null' "a previous file changed: $(diff "$T/before" "$T/after" | head -5)"
check 'no_tmp "$M"' "a temporary was left on the full disk: $(find "$M" -name '*.tmp')"
# --dump: the first .npy cannot be written (under ASan: no leak either)
expect 2 "$NOSPACE" -- limited "$RT" run "$MNIST" --no-db --dump "$M/dumps"
check 'no_tmp "$M"' "--dump left a temporary"
if [ $mounted = 1 ]; then umount "$M" && mounted=0; fi

# --- two exports to one file at once ---------------------------------------------
for round in 1 2 3; do
    "$RT" export one --db "$DB" -o "$T/both.json" >/dev/null 2>"$T/e1" & p1=$!
    "$RT" export --all --db "$DB" -o "$T/both.json" >/dev/null 2>"$T/e2" & p2=$!
    wait $p1; r1=$?; wait $p2; r2=$?
    check '[ $r1 = 0 ] && [ $r2 = 0 ]' "concurrent exports (round $round): exit $r1 $r2: $(cat "$T/e1" "$T/e2")"
    check 'valid_json "$T/both.json"' "concurrent exports (round $round): invalid JSON"
done
check 'no_tmp "$T"' "concurrent exports left a temporary"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
