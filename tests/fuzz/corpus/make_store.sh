#!/usr/bin/env bash
# Writes the seed corpus of tests/fuzz/fuzz_store.c into tests/fuzz/corpus/store/:
# databases recorded by the command line (an fp32 run, an i8 run with per-layer
# errors, a dumped run, a vendor .rknn's predicted run beside its ONNX's), then each broken in one way: truncated, one page of
# noise, a schema from the future, another application's file, a user's own
# table and view, WAL mode, an empty file and a text file. Every file is
# VACUUMed and kept under 64 KiB.   bash tests/fuzz/corpus/make_store.sh [BUILD]
set -euo pipefail
cd "$(dirname "$0")/../../.."
B=${1:-build}
RT=$B/rknn-trace
OUT=tests/fuzz/corpus/store
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
MNIST=tests/data/models/mnist.onnx
mkdir -p "$OUT"
rm -f "$OUT"/*

"$RT" run "$MNIST" --db "$T/fp32.db" --label base >/dev/null
"$RT" run "$MNIST" --db "$T/i8.db" -q i8 --label i8 >/dev/null
"$RT" run "$MNIST" --db "$T/two.db" --label first --dump "$T/dump" >/dev/null
"$RT" run "$MNIST" --db "$T/two.db" -q fp16 >/dev/null
# a vendor .rknn's predicted run and its source ONNX's run (compare --graph)
RK=${RT_SHARED:-../shared}/data/models/rknn
"$RT" run "$RK/multiple_input_demo.onnx" -t rk3588 -q i8 -n 1 --no-progress --db "$T/rknn.db" >/dev/null 2>&1
"$RT" run "$RK/multiple_input_demo.rk3588.rknn" --db "$T/rknn.db" >/dev/null
for f in fp32 i8 two rknn; do
    sqlite3 "$T/$f.db" "VACUUM"
    cp "$T/$f.db" "$OUT/run_$f.db"
done
SRC=$OUT/run_i8.db
size=$(stat -c %s "$SRC")
head -c 4096 "$SRC" >"$OUT/trunc_page1.db"
head -c $((size / 2)) "$SRC" >"$OUT/trunc_half.db"
head -c $((size - 100)) "$SRC" >"$OUT/trunc_tail.db"
# page 3 (4 KiB pages) overwritten by noise from a fixed seed
cp "$SRC" "$OUT/flipped_page.db"
python3 -c "
import random, sys
random.seed(3)
b = bytearray(open(sys.argv[1], 'rb').read())
for i in range(8192, 12288):
    b[i] ^= random.randrange(256)
open(sys.argv[1], 'wb').write(b)" "$OUT/flipped_page.db"
cp "$T/fp32.db" "$T/future.db"
sqlite3 "$T/future.db" "PRAGMA user_version = 7"
cp "$T/future.db" "$OUT/future_schema.db"
sqlite3 "$T/foreign.db" "CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT); INSERT INTO photos (path) VALUES ('a.jpg'); VACUUM"
cp "$T/foreign.db" "$OUT/foreign_app.db"
cp "$T/fp32.db" "$T/user.db"
sqlite3 "$T/user.db" "CREATE TABLE notes (run_id INTEGER, text TEXT); CREATE VIEW slow AS SELECT id FROM runs WHERE total_us > 1; VACUUM"
cp "$T/user.db" "$OUT/user_table.db"
cp "$T/fp32.db" "$T/wal.db"
sqlite3 "$T/wal.db" "PRAGMA journal_mode = WAL" >/dev/null
cp "$T/wal.db" "$OUT/wal_mode.db"
: >"$OUT/empty.db"
printf 'id,label\n1,base\n' >"$OUT/text.csv"
for f in "$OUT"/*; do
    [ "$(stat -c %s "$f")" -lt 65536 ] || { echo "make_store: $f is 64 KiB or more" >&2; exit 1; }
done
ls -l "$OUT"
