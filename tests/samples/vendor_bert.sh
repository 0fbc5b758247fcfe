#!/usr/bin/env bash
# tests/samples/vendor_bert.sh DIR — a vendor-compiled transformer and its own ONNX:
# DIR is github.com/emapco/rk-transformers' tests/data/random_bert (Apache-2.0; not
# in this tree for its 6 MB): model.onnx, a 2-layer BERT (hidden 32, 4 heads,
# sequence 32), and rknn/model_b1_s32_o3.rknn, toolkit 2.3.2's float16 rk3588
# compile of it. Checks:
#   - the reader takes the file (three int64 inputs, exSDPAttention, exNorm);
#   - our prediction from the ONNX and the vendor file's agree within 5 % a frame,
#     with the same count of Conv, ConvAdd, ConvExGelu, exSDPAttention and exNorm
#     layers and the same attention NPU cycles (the vendor's graph is the oracle:
#     docs/vendor-rewrites.md);
#   - both embedding Gathers on the CPU in both;
#   - `run` of the ONNX without -i (token ids seeded below each table's size),
#     and with -q i8 (the integer inputs fed as given);
#   - the emulator and rknn_init refuse the file naming input_ids and why.
# Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
source tests/samples/checks.sh
dir_arg "rk-transformers/tests/data/random_bert" "$@"
F=$D/rknn/model_b1_s32_o3.rknn
O=$D/model.onnx
SH="--shape input_ids=1,32 --shape attention_mask=1,32 --shape token_type_ids=1,32"

"$R" inspect "$F" >"$T/insp" 2>&1 && grep -q "exSDPAttention" "$T/insp" &&
    [ "$(grep -c "int64" "$T/insp")" -ge 3 ] && ok "inspect reads the file" ||
    bad "inspect: $(tail -2 "$T/insp")"

"$R" run "$F" --no-db --json >"$T/v.json" 2>"$T/v.err" || bad "run FILE: $(tail -1 "$T/v.err")"
# shellcheck disable=SC2086
"$R" run "$O" -t rk3588 $SH --no-db --json -n 1 --no-progress >"$T/o.json" 2>"$T/o.err" &&
    ok "run ONNX without -i (seeded token ids)" || bad "run ONNX: $(tail -1 "$T/o.err")"

$PY - "$T" >"$T/py.out" 2>&1 <<'PY'
import collections, sys
sys.path.insert(0, "tests/samples")
from pairs import frame, load, verdict
t = sys.argv[1]
v, o = load(t, "v"), load(t, "o")
def ops(d):
    c = collections.Counter()
    for l in d["layers"]:
        if l.get("time_us") is not None:
            c[(l["npu_op"], l["target"])] += 1
    return c
def attn(d):
    return sorted(l["npu_cycles"] for l in d["layers"]
                  if l.get("npu_op") == "exSDPAttention" and l.get("time_us") is not None)
frame(v, o)
cv, co = ops(v), ops(o)
for op in ("Conv", "ConvAdd", "ConvExGelu", "exSDPAttention", "exNorm"):
    a, b = cv[(op, "NPU")], co[(op, "NPU")]
    verdict(a == b and a > 0, f"{op} on the NPU: vendor {a}, ours {b}")
a, b = cv[("Gather", "CPU")], co[("Gather", "CPU")]
verdict(a == b == 2, f"Gather on the CPU: vendor {a}, ours {b}")
av, ao = attn(v), attn(o)
verdict(bool(av) and av == ao, f"exSDPAttention NPU cycles: vendor {av}, ours {ao}")
PY
verdicts "$T/py.out"

# int8 simulation of the ONNX: the token ids and mask fed as seeded, never
# quantized; the golden's output reproduced (its JSON's cos is the tool's own)
# shellcheck disable=SC2086
"$R" run "$O" -q i8 $SH --no-db --json -n 1 --no-progress >"$T/q.json" 2>"$T/q.err" &&
    $PY -c "
import json, sys
a = json.load(open(sys.argv[1]))['accuracy']
rows = [r['name'] for r in a['layers']]
assert not {'input_ids', 'attention_mask', 'token_type_ids'} & set(rows), rows
c = a['outputs'][0]['entire']['cos']
assert 0.9 < c < 1, c" "$T/q.json" && ok "run ONNX -q i8 (integer inputs as given)" ||
    bad "run ONNX -q i8: $(tail -1 "$T/q.err")"

if "$R" run "$F" --emulate --no-db >"$T/e.out" 2>&1; then
    bad "run --emulate took a file with int64 token ids"
else
    grep -q "input 'input_ids' (int64 \[1,32\]) is neither int8 nor float16" "$T/e.out" &&
        ok "run --emulate refuses naming input_ids" || bad "run --emulate: $(tail -1 "$T/e.out")"
fi
head -c 256 /dev/zero >"$T/z.bin"
"$B/samples/sample_vendor" --pass-through "$F" "$T/so" "$T/z.bin" "$T/z.bin" "$T/z.bin" 2>"$T/s.err" >"$T/s.out"
grep -q "rknn_init.*input 'input_ids'" "$T/s.err" "$T/s.out" && ok "rknn_init refuses naming input_ids" ||
    bad "rknn_init: $(tail -2 "$T/s.err")"
finish
