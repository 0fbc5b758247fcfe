#!/usr/bin/env bash
# tests/quant/run.sh [BUILD] — quantized simulation on the bundled real models:
# a calibration set of 20 real photos (scikit-image data) per model, an input
# photo, then int8 normal / kl_divergence / mmse x channel / layer and fp16.
# Every metric printed for every layer is re-computed with numpy from the dumps
# (check_dumps.py). Prints the final-output cosine table and "N passed, N failed".
#   QUANT_MODELS="mnist.onnx ..." restricts the models.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=/usr/bin/python3
passed=0; failed=0
models=${QUANT_MODELS:-"mnist.onnx ultraface_version-RFB-320.onnx ppocr_mobile_v2.0_cls.onnx super_resolution_224.onnx yolox_nano.onnx"}
printf '%-32s %-26s %-10s %s\n' model setting output_cos seconds
# One model's settings in its own folder D; its table lines go to D/table and its
# counts to D/counts. Two models run at a time (the checks are single-threaded
# Python), then the tables are printed in the models' order.
one_model() {
    local file=$1 shapes=$2 range=$3 source=$4 D=$5 passed=0 failed=0 name dims setting worst t0 t1 line cos
    name=${shapes%%=*}; dims=${shapes#*=}
    [ "$source" = random ] && source=camera
    {
    if ! $PY tests/quant/make_calib.py "$D/calib" "$dims" "$range" 20 ||
       ! $PY tests/e2e/make_input.py "$D/in.npy" "$dims" "$range" "$source" 0; then
        echo "FAIL $file: calibration or input data"; echo "0 1" >"$D/counts"; return
    fi
    for setting in "i8 normal channel" "i8 normal layer" "i8 kl_divergence channel" \
                   "i8 mmse channel" "i8 kl_divergence layer" "i8 mmse layer" "fp16 - -" \
                   "hybrid - -"; do
        set -- $setting
        args=(-q "$1")
        [ "$1" = i8 ] && args+=(--quant-algo "$2" --quant-method "$3" --dataset "$D/calib/dataset.txt")
        [ "$setting" = "i8 normal channel" ] && args+=(--write-quant-cfg "$D/normal.cfg")
        if [ "$1" = hybrid ]; then
            # the normal/channel parameters, with the layer of worst single error kept in fp16
            worst=$($PY -c "import json,sys; r=[x for x in json.load(open(sys.argv[1]))['accuracy']['layers'] if x['single']['cos'] is not None]; print(min(r, key=lambda x: x['single']['cos'])['name'])" "$D/normal.json")
            sed "s/^custom_quantize_layers: {}\$/custom_quantize_layers:\n    $worst: float16/" "$D/normal.cfg" >"$D/hybrid.cfg"
            args=(-q i8 --hybrid "$D/hybrid.cfg")
            setting="hybrid ($worst fp16)"
        fi
        rm -rf "$D/G" "$D/Q" "$D/R" "$D/r.db"
        t0=$(date +%s.%N)
        if ! "$B/rknn-trace" run "tests/data/models/$file" -i "$name=$D/in.npy" "${args[@]}" --db "$D/r.db" \
                -n 1 --warmup 0 --json --no-progress --dump-golden "$D/G" --dump-quant "$D/Q" --dump "$D/R" >"$D/out.json" 2>"$D/err"; then
            echo "FAIL $file $setting: $(tail -1 "$D/err")"; failed=$((failed+1)); continue
        fi
        t1=$(date +%s.%N)
        [ "$setting" = "i8 normal channel" ] && cp "$D/out.json" "$D/normal.json"
        line=$($PY tests/quant/check_dumps.py "$D/out.json" "$D/G" "$D/Q" 2>"$D/cerr")
        passed=$((passed + $(echo "$line" | awk '{print $1}')))
        failed=$((failed + $(echo "$line" | awk '{print $3}')))
        [ -s "$D/cerr" ] && head -5 "$D/cerr"
        # the run (its dump, its stored rows) is the quantized graph's
        "$B/rknn-trace" show 1 --db "$D/r.db" --json >"$D/show.json" 2>"$D/err" || echo "FAIL show: $(tail -1 "$D/err")"
        line=$($PY tests/quant/check_run.py "$D/out.json" "$D/show.json" "$D/R" "$D/Q" 2>"$D/cerr")
        passed=$((passed + $(echo "$line" | awk '{print $1}')))
        failed=$((failed + $(echo "$line" | awk '{print $3}')))
        [ -s "$D/cerr" ] && head -5 "$D/cerr"
        cos=$($PY -c "import json,sys; d=json.load(open(sys.argv[1]))['accuracy']['outputs']; print(' '.join('%.5f' % o['entire']['cos'] if o['entire']['cos'] is not None else 'nan' for o in d))" "$D/out.json")
        printf '%-32s %-26s %-10s %.1f\n' "$file" "$setting" "$cos" "$(echo "$t1 - $t0" | bc)"
    done
    } >"$D/table"
    echo "$passed $failed" >"$D/counts"
}
i=0
while read -r file shapes range source; do
    case "$file" in ''|'#'*) continue ;; esac
    case " $models " in *" $file "*) ;; *) continue ;; esac
    i=$((i + 1))
    mkdir -p "$T/$i"
    [ "$(jobs -rp | wc -l)" -ge 2 ] && wait -n
    one_model "$file" "$shapes" "$range" "$source" "$T/$i" &
done < tests/e2e/models.txt
wait
for k in $(seq "$i"); do
    cat "$T/$k/table" 2>/dev/null
    read -r p f <"$T/$k/counts" 2>/dev/null || { p=0; f=1; echo "FAIL: model $k gave no counts"; }
    passed=$((passed + p)); failed=$((failed + f))
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
