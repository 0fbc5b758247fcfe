#!/bin/bash
# tests/fuzz/run_libfuzzer.sh — builds every tests/fuzz/fuzz_*.c with clang's
# libFuzzer + ASan + UBSan (straight from the sources, not the gcc archive) and
# runs each for $FUZZ_SECONDS (default 60) over its seed corpus.
#   FUZZ_SECONDS=300 bash tests/fuzz/run_libfuzzer.sh [target...]
# FUZZ_RUNS=N runs N inputs per target instead, from seed FUZZ_SEED (default 1):
# the same build then explores the same inputs every time (what CI uses, so
# that CI cannot fail by luck; open-ended fuzzing is for developers).
# FUZZ_RUNS_<target>=N sets the count of one target (a slow one: whole models or
# databases per input), and FUZZ_MAX_SECONDS caps each target's time in that mode,
# so that CI's time stays bounded.
# FUZZ_EXTRA_SEEDS_<target>=DIR adds a seed folder read at run time (vendor
# files whose license keeps them out of the repository).
# FUZZ_EXTRA_CFLAGS is appended to the compile flags (e.g.
# -fno-sanitize=signed-integer-overflow to look past a known report).
# New inputs go to $FUZZ_OUT/<target>/ (default build-fuzz/corpus), crashes to
# $FUZZ_OUT/<target>-crashes/; the seed corpus in the repository is not modified.
set -euo pipefail
cd "$(dirname "$0")/../.."

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
FUZZ_OUT=${FUZZ_OUT:-$FUZZ_BUILD/corpus}
CLANG=${CLANG:-clang}
PROTO=${PROTO:-/usr/include/onnx/onnx.proto}

command -v "$CLANG" >/dev/null || { echo "run_libfuzzer: $CLANG not found" >&2; exit 1; }
mkdir -p "$FUZZ_BUILD/gen"
if [ ! -f "$FUZZ_BUILD/gen/onnx/onnx.pb-c.c" ] || [ "$PROTO" -nt "$FUZZ_BUILD/gen/onnx/onnx.pb-c.c" ]; then
    protoc-c --c_out="$FUZZ_BUILD/gen" -I"$(dirname "$PROTO")/.." onnx/onnx.proto
fi

# The sources the Makefile links fuzz targets with (CORE_SRC + RECORD_SRC +
# ANALYZE_SRC + BOARD_SRC + FUZZ_CLI_SRC), asked from the Makefile itself so
# that the lists cannot drift apart.
SRC=$(make --no-print-directory -f Makefile \
          -f <(printf 'fuzz-print-src:\n\t@echo $(CORE_SRC) $(RECORD_SRC) $(ANALYZE_SRC) $(BOARD_SRC) $(FUZZ_CLI_SRC)\n') fuzz-print-src)
[ -n "$SRC" ] || { echo "run_libfuzzer: cannot read the source list from the Makefile" >&2; exit 1; }
LIBS=$(make --no-print-directory -f Makefile \
           -f <(printf 'fuzz-print-libs:\n\t@echo $(LIBS) $(DBLIBS) $(BOARDLIBS) $(ZLIB)\n') fuzz-print-libs)
CFLAGS="-std=c11 -g -O1 -fno-omit-frame-pointer -D_GNU_SOURCE -pthread -I. -Iinclude -I$FUZZ_BUILD/gen -I/usr/include/libdrm -I/usr/include/libbson-1.0
        -fno-sanitize-recover=undefined -Wno-unknown-attributes ${FUZZ_EXTRA_CFLAGS:-}"

# The code under test is compiled once (instrumented, without libFuzzer's main),
# then linked into every target.
OBJ=()
echo "== compiling the sources for libFuzzer into $FUZZ_BUILD/obj"
for f in $SRC "$FUZZ_BUILD/gen/onnx/onnx.pb-c.c"; do
    o="$FUZZ_BUILD/obj/${f//\//_}.o"
    if [ ! -f "$o" ] || [ "$f" -nt "$o" ] || [ $(find . -name '*.h' -newer "$o" -not -path './build*' | head -1 | wc -l) -gt 0 ]; then
        mkdir -p "$FUZZ_BUILD/obj"
        # shellcheck disable=SC2086
        "$CLANG" $CFLAGS -fsanitize=fuzzer-no-link,address,undefined -c "$f" -o "$o" &
        [ "$(jobs -r | wc -l)" -lt "$(nproc)" ] || wait -n
    fi
    OBJ+=("$o")
done
wait

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for f in tests/fuzz/fuzz_*.c; do
        t=$(basename "$f" .c)
        targets+=("${t#fuzz_}")
    done
fi

status=0
# every target linked first, as many at a time as there are cores (a link is one
# process, and so is a fuzzing run); a link that fails leaves no binary
for t in "${targets[@]}"; do
    bin="$FUZZ_BUILD/fuzz_$t"
    echo "== building $bin"
    rm -f "$bin"
    # shellcheck disable=SC2086
    "$CLANG" $CFLAGS -fsanitize=fuzzer,address,undefined -o "$bin" "tests/fuzz/fuzz_$t.c" \
        "${OBJ[@]}" $LIBS &
    [ "$(jobs -r | wc -l)" -lt "$(nproc)" ] || wait -n || true
done
wait
# each target a process of its own, as many at a time as there are cores (a
# fixed count of runs from a fixed seed explores the same inputs however many
# run beside it); each one's output goes to its log, printed in order at the end
fuzz_one() { # target: its run, its exit status in $FUZZ_BUILD/log/<target>.rc
    local t=$1 bin="$FUZZ_BUILD/fuzz_$1"
    seeds="tests/fuzz/corpus/$t"
    # extra seed folders read at run time (files that may not be committed),
    # e.g. FUZZ_EXTRA_SEEDS_rknn=$RT_SHARED/data/models/rknn
    extra_var="FUZZ_EXTRA_SEEDS_$t"
    extra=()
    [ -n "${!extra_var:-}" ] && [ -d "${!extra_var}" ] && extra=("${!extra_var}")
    out="$FUZZ_OUT/$t"
    crashes="$FUZZ_OUT/$t-crashes"
    mkdir -p "$out" "$crashes"
    # rss_limit: folding is capped well below it; a bigger RSS means a real bug
    if [ -n "${FUZZ_RUNS:-}" ]; then
        runs_var="FUZZ_RUNS_$t"
        budget=(-runs="${!runs_var:-$FUZZ_RUNS}" -seed="${FUZZ_SEED:-1}")
        [ -n "${FUZZ_MAX_SECONDS:-}" ] && budget+=(-max_total_time="$FUZZ_MAX_SECONDS")
    else
        budget=(-max_total_time="$FUZZ_SECONDS")
    fi
    echo "== fuzzing $t (${budget[*]:-}) (seeds: $seeds, new inputs: $out)"
    local rc=0
    "$bin" "${budget[@]}" -rss_limit_mb=2048 -timeout=20 \
        -max_len=65536 -artifact_prefix="$crashes/" -print_final_stats=1 \
        "$out" "$seeds" "${extra[@]}" || rc=$?
    echo "$rc" >"$FUZZ_BUILD/log/$t.rc"
}
mkdir -p "$FUZZ_BUILD/log"
for t in "${targets[@]}"; do
    rm -f "$FUZZ_BUILD/log/$t.rc" "$FUZZ_BUILD/log/$t.log"
    if [ ! -x "$FUZZ_BUILD/fuzz_$t" ]; then
        echo "run_libfuzzer: $t FAILED to build" >&2
        status=1
        continue
    fi
    fuzz_one "$t" >"$FUZZ_BUILD/log/$t.log" 2>&1 &
    [ "$(jobs -r | wc -l)" -lt "$(nproc)" ] || wait -n || true
done
wait
for t in "${targets[@]}"; do
    [ -f "$FUZZ_BUILD/log/$t.log" ] || continue
    cat "$FUZZ_BUILD/log/$t.log"
    if [ "$(cat "$FUZZ_BUILD/log/$t.rc" 2>/dev/null)" != 0 ]; then
        echo "run_libfuzzer: $t FAILED; reproducers in $FUZZ_OUT/$t-crashes/" >&2
        status=1
    fi
done
exit $status
