#!/bin/bash
# tests/ops/run.sh [BUILD_DIR] — the ops of transformer, recurrent and detector
# models, and real architectures built from them, against onnxruntime.
#
# tests/ops/make_models.py writes single-op models with the attributes the ONNX
# conformance data leaves out, and four real architectures (ViT-Tiny encoder,
# DETR decoder layer, CRNN with a bidirectional LSTM, GRU keyword spotter) with
# random weights. Each runs in onnxruntime-node (tests/oracle/ort_run.js) and in
# `rknn-trace run --dump`; tests/e2e/compare.py checks every graph output
# (cosine >= 0.99999, max error <= 1e-4 of the range). The architectures then
# run as int8 and fp16 on rk3588: each must give per-layer errors and an NPU
# profile whose layers cover the new ops (LayerNorm on the NPU as exNorm, LSTM
# and GRU on the CPU for rk3588 with their reason).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
[ -d "$BUILD" ] || BUILD=$ROOT/$BUILD
CLI=$(cd "$BUILD" && pwd)/rknn-trace
PY=/usr/bin/python3
W=$(mktemp -d /tmp/rknn-ops.XXXXXX)
trap 'rm -rf "$W"' EXIT
pass=0 fail=0
ok() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }

$PY "$ROOT/tests/ops/make_models.py" "$W" || { echo "cannot build the models"; echo "0 passed, 1 failed"; exit 1; }
$PY "$ROOT/tests/e2e/compare.py" --header
while read -r name input; do
    m=$W/$name.onnx
    mkdir -p "$W/$name.ref"
    if ! node "$ROOT/tests/oracle/ort_run.js" "$m" "$W/$name.ref" "$input=$W/$name.in.npy" 2>"$W/$name.oerr"; then
        ok 1 "$name: onnxruntime: $(head -c 200 "$W/$name.oerr")"
        continue
    fi
    if ! "$CLI" run "$m" -i "$input=$W/$name.in.npy" --dump "$W/$name.ours" --db "$W/f32.db" \
            --no-progress >"$W/$name.out" 2>"$W/$name.err"; then
        ok 1 "$name: rknn-trace run: $(tail -1 "$W/$name.err")"
        continue
    fi
    $PY "$ROOT/tests/e2e/compare.py" "$name" "$W/$name.ref" "$W/$name.ours"
    ok $? "$name: outputs differ from onnxruntime"
done < "$W/models.txt"

# quantized runs of the architectures: per-layer errors, an NPU profile
for name in vit_tiny_2blocks detr_decoder_layer crnn_bilstm gru_kws; do
    input=$(awk -v n="$name" '$1 == n {print $2}' "$W/models.txt")
    for q in i8 fp16; do
        db=$W/$name.$q.db
        "$CLI" run "$W/$name.onnx" -i "$input=$W/$name.in.npy" -q $q -t rk3588 --db "$db" \
            --label q --no-progress --npu-table >"$W/$name.$q.out" 2>"$W/$name.$q.err"
        ok $? "$name -q $q: $(tail -1 "$W/$name.$q.err")"
        # every executed layer has an accuracy row (sqlite3 is the oracle)
        n_acc=$(sqlite3 "$db" "SELECT COUNT(*) FROM accuracy a JOIN runs r ON r.id = a.run_id WHERE r.label = 'q' AND a.entire_cos IS NOT NULL")
        [ "${n_acc:-0}" -ge 5 ]
        ok $? "$name -q $q: $n_acc layers with an error"
        # the final output stays close to the float run
        cos=$(sqlite3 "$db" "SELECT MIN(entire_cos) FROM accuracy a JOIN runs r ON r.id = a.run_id WHERE r.label = 'q' AND a.is_output = 1")
        $PY -c "import sys; c=float('${cos:-nan}'); sys.exit(0 if c >= ${COS_MIN:-0.9} else 1)"
        ok $? "$name -q $q: output cosine $cos"
    done
done
# NPU placement of the new ops as the op list gives it for rk3588
grep -q "exNorm\|LayerNorm" "$W/vit_tiny_2blocks.i8.out"
ok $? "vit: the NPU table shows the LayerNorm layers"
n_cpu=$(sqlite3 "$W/crnn_bilstm.i8.db" "SELECT COUNT(*) FROM layers WHERE op = 'LSTM' AND target IS NOT NULL")
[ "${n_cpu:-0}" -eq 1 ]
ok $? "crnn: the LSTM layer has an NPU-model placement ($n_cpu)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
