#!/usr/bin/env bash
# tests/quant/cfg_yaml.sh [BUILD] — *.quantization.cfg as the reader (libyaml)
# sees it against python3-yaml (yaml.safe_load) on the same files: the fuzz seed
# corpus, YAML forms Toolkit2 or a hand may write (flow and block lists, quoted
# keys, anchors, comments, CRLF, a trailing comma in a flow list), and a file
# `run --write-quant-cfg` wrote. Where python reads valid content, the values
# must be equal; where python refuses the YAML, the reader must refuse it too.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
DUMP=$B/tests/qcfg_dump
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

mkdir -p "$T/in"
cp tests/fuzz/corpus/quantcfg/* "$T/in/"
printf 'custom_quantize_layers:\n  "a: b": float16\n  c: fp16\nquantize_parameters:\n  x:\n    scale: &s [0.5]\n    zero_point: [0]\n  y:\n    scale: *s\n    zero_point: [-3]\n' >"$T/in/anchor.cfg"
printf 'quantize_parameters:\n  t:\n    min: [-1, ]\n    max: [1.5e0]\n' >"$T/in/trailing_comma.cfg"
printf 'quantize_parameters: {t: {min: [-2], max: [2], qtype: asymmetric_quantized}}\n' >"$T/in/flow.cfg"
printf 'quantize_parameters:\r\n    t:\r\n        min:\r\n        - -0.25  # lo\r\n        max:\r\n        - 0.75\r\n' >"$T/in/block_crlf.cfg"
printf 'custom_quantize_layers:\n  x: float16\n   y: float16\n' >"$T/in/bad_indent.cfg"
printf 'custom_quantize_layers: [x\n' >"$T/in/unclosed.cfg"
M=tests/data/models/mnist.onnx
if "$B/rknn-trace" run "$M" --quant i8 --no-db --write-quant-cfg "$T/in/written.cfg" >/dev/null 2>&1; then ok
else bad "run --write-quant-cfg"; fi

for f in "$T"/in/*; do
    n=$(basename "$f")
    "$DUMP" "$f" >"$T/ours.json" 2>"$T/err"; rc=$?
    python3 - "$f" "$T/ours.json" "$rc" >"$T/py" 2>&1 <<'PY'
import json, math, sys, yaml
path, ours_path, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    with open(path, newline="") as fh:
        doc = yaml.safe_load(fh)
except yaml.YAMLError as e:
    # not YAML: the reader must refuse it as well
    print("yaml-error" if rc == 2 else "MISMATCH: python refuses the YAML, the reader took it")
    sys.exit(0)
if rc != 0:
    # valid YAML the reader refuses: its content must break a rule python sees too
    print("refused-valid-yaml")
    sys.exit(0)
ours = json.load(open(ours_path))
want_fp16 = list((doc or {}).get("custom_quantize_layers") or {})
want = {}
for name, e in ((doc or {}).get("quantize_parameters") or {}).items():
    want[str(name)] = {k: [float(x) for x in (v if isinstance(v, list) else [v])]
                       for k, v in e.items() if k in ("min", "max", "scale", "zero_point")}
if [str(x) for x in want_fp16] != ours["fp16"] or want != ours["params"]:
    print("MISMATCH", json.dumps({"python": [want_fp16, want], "ours": ours}))
else:
    print("equal")
PY
    r=$(cat "$T/py")
    case "$r" in
        equal|yaml-error) ok ;;
        refused-valid-yaml)
            # refused for its content (a rule of the layout), with one line naming why
            if [ "$(grep -c . "$T/err")" = 1 ]; then ok; else bad "$n: refused without one clear line"; fi ;;
        *) bad "$n: $r $(cat "$T/err")" ;;
    esac
done
# the forms above that python reads must be read, not refused
for n in anchor.cfg trailing_comma.cfg flow.cfg block_crlf.cfg written.cfg; do
    if "$DUMP" "$T/in/$n" >/dev/null 2>&1; then ok; else bad "$n refused: $("$DUMP" "$T/in/$n" 2>&1)"; fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
