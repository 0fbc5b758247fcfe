#!/usr/bin/env bash
# tests/quant/i8_hash.sh [BUILD] [--write FILE] — the int8 simulation's results
# must not change when its kernels do: every bundled model (tests/e2e/models.txt)
# runs `run -q i8` on its seeded random input (--seed 0, calibrated on it), with
# per-channel and per-layer weights, and every quantized layer dump (.npy, the
# graph outputs among them) is hashed (sha256 of the file) and compared with
# tests/quant/i8_hashes.txt, which holds the hashes of the build before the
# VNNI/AVX2 integer kernels (see that file's header for how it was made); on a
# CPU without AVX-512, with the hashes of the float path (RT_QISA=float).
# QHASH_THREADS (default 2) sets --threads; QHASH_MODELS restricts the models;
# --write FILE writes the hashes instead of comparing. Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
OUTF=
[ "${2:-}" = --write ] && OUTF=${3:?--write FILE}
REF=tests/quant/i8_hashes.txt
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
passed=0; failed=0
# hashes OUT: every model's dumps, hashed, to OUT (RT_QISA from the caller)
hashes() {
: >"$1"
while read -r file shapes range rest; do
    case "$file" in ''|'#'*) continue ;; esac
    if [ -n "${QHASH_MODELS:-}" ] && ! [[ " $QHASH_MODELS " == *" $file "* ]]; then continue; fi
    sh=()
    IFS=';' read -r -a specs <<< "$shapes"
    for s in "${specs[@]}"; do sh+=(--shape "$s"); done
    for method in channel layer; do
        rm -rf "$T/Q"
        if ! "$B/rknn-trace" run "tests/data/models/$file" "${sh[@]}" -q i8 --quant-method "$method" \
                --seed 0 --threads "${QHASH_THREADS:-2}" -n 1 --warmup 0 --no-db --no-progress \
                --dump-quant "$T/Q" >/dev/null 2>"$T/err"; then
            echo "FAIL $file $method: $(tail -1 "$T/err")"; failed=$((failed + 1)); continue
        fi
        (cd "$T/Q" && find . -name '*.npy' -printf '%P\n' | LC_ALL=C sort | xargs -r sha256sum) |
            awk -v m="$file" -v q="$method" '{print m, q, $2, $1}' >>"$1"
    done
done < tests/e2e/models.txt
}
hashes "$T/got"
if [ -n "$OUTF" ]; then
    cp "$T/got" "$OUTF"
    echo "$(wc -l <"$OUTF") hashes written to $OUTF"
    exit 0
fi
# one check per (model, method, file): present in both, same hash
grep -v '^#' "$REF" | LC_ALL=C sort >"$T/ref"
# The reference is the int8 results on the golden of the fp32 AVX-512 kernels
# (gemm_avx512.c: AVX512F and DQ); elsewhere the fp32 convs run on OpenBLAS,
# whose other sums give other grids. There the integer paths are checked
# against the float path (RT_QISA=float) of the same build instead.
if ! { grep -qw avx512f /proc/cpuinfo && grep -qw avx512dq /proc/cpuinfo; }; then
    echo "no AVX-512 on this CPU: the int8 paths against the float path, not the reference"
    RT_QISA=float hashes "$T/ref.float"
    LC_ALL=C sort "$T/ref.float" >"$T/ref"
fi
LC_ALL=C sort "$T/got" >"$T/got.s"
if [ -n "${QHASH_MODELS:-}" ]; then
    awk -v ms=" $QHASH_MODELS " 'index(ms, " " $1 " ")' "$T/ref" >"$T/ref2" && mv "$T/ref2" "$T/ref"
fi
while read -r m q f h; do
    r=$(awk -v m="$m" -v q="$q" -v f="$f" '$1 == m && $2 == q && $3 == f {print $4}' "$T/ref")
    if [ "$r" = "$h" ]; then passed=$((passed + 1)); else
        echo "FAIL $m $q $f: ${r:-no reference} vs $h"; failed=$((failed + 1)); fi
done <"$T/got.s"
# files in the reference that the run did not write
missing=$(LC_ALL=C join -v1 <(awk '{print $1"|"$2"|"$3}' "$T/ref" | LC_ALL=C sort) \
                   <(awk '{print $1"|"$2"|"$3}' "$T/got.s" | LC_ALL=C sort) | wc -l)
[ "$missing" -gt 0 ] && { echo "FAIL $missing reference files not written"; failed=$((failed + 1)); }
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
