#!/bin/bash
# tests/e2e/run.sh [BUILD_DIR] — real-model end-to-end test.
#
# For every model in tests/e2e/models.txt: an input in the model's realistic
# range (a real photo or seeded noise, tests/e2e/make_input.py), the reference
# outputs from onnxruntime-node (tests/oracle/ort_run.js), our outputs from `rknn-trace run ... --dump DIR`, and
# tests/e2e/compare.py on every graph output. Prints a table and the closing line
# "N passed, N failed"; exits 1 on any failure.
#
# Environment: E2E_SEED (default 0), E2E_INPUT=random (noise for every model,
# not the photos of models.txt), E2E_MODELS (space-separated file names to run
# a subset), E2E_KEEP=1 keeps the work folder.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-${BUILD:-build}}
# a relative folder: from the cwd, else from the repository
[ -d "$BUILD" ] || [ "${BUILD#/}" != "$BUILD" ] || BUILD=$ROOT/$BUILD
[ -d "$BUILD" ] || { echo "e2e: no build folder $BUILD" >&2; exit 2; }
BUILD=$(cd "$BUILD" && pwd)
PY=/usr/bin/python3
MODELS_DIR=$ROOT/tests/data/models
ORACLE=$ROOT/tests/oracle/ort_run.js
SEED=${E2E_SEED:-0}

if [ ! -d "$ROOT/tests/oracle/node_modules/onnxruntime-node" ]; then
    echo "e2e: onnxruntime-node is not installed; run 'make deps'" >&2
    exit 2
fi
CLI=$BUILD/rknn-trace
[ -x "$CLI" ] || { echo "e2e: $CLI not built (make)" >&2; exit 2; }

WORK=$(mktemp -d /tmp/rknn-e2e.XXXXXX)
[ "${E2E_KEEP:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT
echo "e2e: cli=$CLI seed=$SEED work=$WORK"

ROWS=$WORK/rows.txt
: > "$ROWS"
$PY "$ROOT/tests/e2e/compare.py" --header

while read -r file shapes range source rest; do
    case $file in ''|'#'*) continue ;; esac
    if [ -n "${E2E_MODELS:-}" ] && ! [[ " $E2E_MODELS " == *" $file "* ]]; then
        continue
    fi
    model=$MODELS_DIR/$file
    w=$WORK/${file%.onnx}
    mkdir -p "$w/ref" "$w/in"

    # inputs: NAME=D0,D1,..[;NAME=...] -> one .npy each
    inputs=() shape_args=()
    IFS=';' read -r -a specs <<< "$shapes"
    k=0
    for s in "${specs[@]}"; do
        name=${s%%=*} dims=${s#*=}
        f=$w/in/input$k.npy
        src=$source
        [ "${E2E_INPUT:-}" = random ] && src=random
        if ! $PY "$ROOT/tests/e2e/make_input.py" "$f" "$dims" "$range" "$src" "$((SEED + k))"
        then
            $PY "$ROOT/tests/e2e/compare.py" --fail "$file" "cannot make input" | tee -a "$ROWS"
            continue 2
        fi
        inputs+=("$name=$f")
        shape_args+=(--shape "$name=$dims")
        k=$((k + 1))
    done

    if ! node "$ORACLE" "$model" "$w/ref" "${inputs[@]}" 2> "$w/oracle.err"; then
        $PY "$ROOT/tests/e2e/compare.py" --fail "$file" \
            "oracle: $(head -c 200 "$w/oracle.err" | tr '\n' ' ')" | tee -a "$ROWS"
        continue
    fi

    iargs=()
    for i in "${inputs[@]}"; do iargs+=(-i "$i"); done
    cmd=("$CLI" run "$model" "${iargs[@]}" "${shape_args[@]}"
         --dump "$w/ours" --db "$w/run.db" --json)
    t0=$(date +%s%N)
    timeout 600 "${cmd[@]}" > "$w/ours.out" 2> "$w/ours.err"
    rc=$?
    t1=$(date +%s%N)
    if [ $rc -ne 0 ]; then
        msg=$(grep -v '^\s*$' "$w/ours.err" | tail -n 1 | head -c 160)
        $PY "$ROOT/tests/e2e/compare.py" --fail "$file" "run exit $rc: $msg" | tee -a "$ROWS"
        continue
    fi
    $PY "$ROOT/tests/e2e/compare.py" "$file" "$w/ref" "$w/ours" | tee -a "$ROWS"
    echo "    ($file: our run $(( (t1 - t0) / 1000000 )) ms)" >&2
done < "$ROOT/tests/e2e/models.txt"

passed=$(grep -cE '  PASS$' "$ROWS")
failed=$(grep -cE '  FAIL( |$)' "$ROWS")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
