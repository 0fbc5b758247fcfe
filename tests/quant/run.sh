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
while read -r file shapes range source; do
    case "$file" in ''|'#'*) continue ;; esac
    case " $models " in *" $file "*) ;; *) continue ;; esac
    name=${shapes%%=*}; dims=${shapes#*=}
    [ "$source" = random ] && source=camera
    $PY tests/quant/make_calib.py "$T/calib_$file" "$dims" "$range" 20 || { failed=$((failed+1)); continue; }
    $PY tests/e2e/make_input.py "$T/in.npy" "$dims" "$range" "$source" 0 || { failed=$((failed+1)); continue; }
    for setting in "i8 normal channel" "i8 normal layer" "i8 kl_divergence channel" \
                   "i8 mmse channel" "i8 kl_divergence layer" "i8 mmse layer" "fp16 - -" \
                   "hybrid - -"; do
        set -- $setting
        args=(-q "$1")
        [ "$1" = i8 ] && args+=(--quant-algo "$2" --quant-method "$3" --dataset "$T/calib_$file/dataset.txt")
        [ "$setting" = "i8 normal channel" ] && args+=(--write-quant-cfg "$T/normal.cfg")
        if [ "$1" = hybrid ]; then
            # the normal/channel parameters, with the layer of worst single error kept in fp16
            worst=$($PY -c "import json,sys; r=[x for x in json.load(open(sys.argv[1]))['accuracy']['layers'] if x['single']['cos'] is not None]; print(min(r, key=lambda x: x['single']['cos'])['name'])" "$T/normal.json")
            sed "s/^custom_quantize_layers: {}\$/custom_quantize_layers:\n    $worst: float16/" "$T/normal.cfg" >"$T/hybrid.cfg"
            args=(-q i8 --hybrid "$T/hybrid.cfg")
            setting="hybrid ($worst fp16)"
        fi
        rm -rf "$T/G" "$T/Q" "$T/R" "$T/r.db"
        t0=$(date +%s.%N)
        if ! "$B/rknn-trace" run "tests/data/models/$file" -i "$name=$T/in.npy" "${args[@]}" --db "$T/r.db" \
                -n 1 --warmup 0 --json --no-progress --dump-golden "$T/G" --dump-quant "$T/Q" --dump "$T/R" >"$T/out.json" 2>"$T/err"; then
            echo "FAIL $file $setting: $(tail -1 "$T/err")"; failed=$((failed+1)); continue
        fi
        t1=$(date +%s.%N)
        [ "$setting" = "i8 normal channel" ] && cp "$T/out.json" "$T/normal.json"
        line=$($PY tests/quant/check_dumps.py "$T/out.json" "$T/G" "$T/Q" 2>"$T/cerr")
        passed=$((passed + $(echo "$line" | awk '{print $1}')))
        failed=$((failed + $(echo "$line" | awk '{print $3}')))
        [ -s "$T/cerr" ] && head -5 "$T/cerr"
        # the run (its dump, its stored rows) is the quantized graph's
        "$B/rknn-trace" show 1 --db "$T/r.db" --json >"$T/show.json" 2>"$T/err" || echo "FAIL show: $(tail -1 "$T/err")"
        line=$($PY tests/quant/check_run.py "$T/out.json" "$T/show.json" "$T/R" "$T/Q" 2>"$T/cerr")
        passed=$((passed + $(echo "$line" | awk '{print $1}')))
        failed=$((failed + $(echo "$line" | awk '{print $3}')))
        [ -s "$T/cerr" ] && head -5 "$T/cerr"
        cos=$($PY -c "import json,sys; d=json.load(open(sys.argv[1]))['accuracy']['outputs']; print(' '.join('%.5f' % o['entire']['cos'] if o['entire']['cos'] is not None else 'nan' for o in d))" "$T/out.json")
        printf '%-32s %-26s %-10s %.1f\n' "$file" "$setting" "$cos" "$(echo "$t1 - $t0" | bc)"
    done
done < tests/e2e/models.txt
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
