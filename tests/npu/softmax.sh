#!/usr/bin/env bash
# tests/npu/softmax.sh [BUILD] — the row cost of an NPU Softmax on rk3588
# (npu_platform.c SOFTMAX_ROW_CYCLES_RK3588, 552 cycles a row of the
# reduction axis; docs/npu-model.md), int8, one Softmax over the last axis:
#   (4,80,80,17): the real row of xuefei4545's yolov10 table (tests/data/logs,
#     1 GHz): its level-4 Time(us) is the logged one within 0.5 % and its DDR
#     cycles within 10 of the logged ones (the constant is fitted on this row)
#   (1,4200,2), RetinaFace's class scores: 4200 rows, worked out by hand from
#     the row's own DDR cycles: 34.99 + (ddr * 2.0405 + 4200 * 552) / 1000 us
#   (1,40,6625), PP-OCRv4 rec's: 40 rows, 34.99 + (ddr * 2.0405 + 40 * 552) / 1000
#   axis 1 of (1,2,70,60): opset 13 reduces over the 2 channels, 4200 rows;
#     opset 11 coerces the input to 2-D at axis 1, one row of 8400
#   rk3576: no row cost, 34.99 + ddr * 2.0405 / 950 (its clock)
#   an attention's softmax, RF-DETR's encoder as R16 rows 130/190 log it
#     (tests/data/logs: 24 heads, 257 tokens, d 64, float16), written out:
#     one exSDPAttention of 24 x 257 query rows, 34.99 + (npu * 0.9163 +
#     ddr * 2.0405 + 6168 * 552) / 1000 us, below the real row's 5971 us by
#     less than 35 % (without the row cost: 725 us, 88 % below)
# and the frame: RetinaFace's (1,4200,2) Softmax adds 4200 * 552 cycles =
# 2318.4 us (+ its DDR time; the frame is printed to the us) to rk3588's
# predicted frame against a Relu of the same shape, and about nothing on rk3576.
source "$(dirname "$0")/../quant/harness.sh" "$@"
LOG=tests/data/logs/perf-level4-int8-yolov10-dfl-rk3588-yolov10issue115-xuefei-03.txt
$PY - "$T" <<'PYEOF' || { bad "models not built"; finish; exit; }
import sys
import onnx
from onnx import TensorProto, helper
T = sys.argv[1]
def save(name, shape, axis=-1, opset=13, softmax=True):
    nodes = [helper.make_node("Softmax", ["x"], ["y"], axis=axis)] if softmax else \
            [helper.make_node("Relu", ["x"], ["y"])]
    g = helper.make_graph(nodes, name,
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]), f"{T}/{name}.onnx")
save("dfl", [4, 80, 80, 17])
save("rf", [1, 4200, 2])
save("rec", [1, 40, 6625])
save("ch13", [1, 2, 70, 60], axis=1)
save("ch11", [1, 2, 70, 60], axis=1, opset=11)
save("relu", [1, 4200, 2], softmax=False)
import numpy as np
from onnx import numpy_helper
H, L, D = 24, 257, 64
io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in
      (("q", [1, H, L, D]), ("k", [1, H, D, L]), ("v", [1, H, L, D]), ("y", [1, H, L, D]))]
nodes = [helper.make_node("MatMul", ["q", "k"], ["s"]), helper.make_node("Mul", ["s", "sc"], ["t"]),
         helper.make_node("Softmax", ["t"], ["p"], axis=-1), helper.make_node("MatMul", ["p", "v"], ["y"])]
g = helper.make_graph(nodes, "att", io[:3], io[3:],
                      [numpy_helper.from_array(np.array(0.125, dtype=np.float32), "sc")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{T}/att.onnx")
PYEOF
# "DDR Time" of the Softmax row of the predicted level-4 table
row() { # model chip
    "$R" run "$T/$1.onnx" -q i8 -t "$2" --no-db --no-progress -n 1 --npu-table >"$T/t" 2>"$T/e" ||
        { echo "run failed: $(tail -1 "$T/e")"; return; }
    awk '$2 ~ /Softmax/ && $4 == "NPU" { split($7, c, "/"); print c[1], $8 }' "$T/t"
}
frame() { # model chip: predicted frame, us
    "$R" run "$T/$1.onnx" -q i8 -t "$2" --no-db --no-progress -n 1 2>/dev/null |
        awk '/^predicted .* ms per frame/ { print $2 * 1000 }'
}
check() { # model chip rows mhz
    local got ddr t want
    got=$(row "$1" "$2"); read -r ddr t <<<"$got"
    if [ -z "$t" ]; then bad "$1 $2: no Softmax row ($got)"; return; fi
    want=$(awk -v d="$ddr" -v r="$3" -v m="$4" 'BEGIN { printf "%d", 34.99 + (d * 2.0405 + r * 552) / m }')
    if [ "$t" = "$want" ]; then ok; else bad "$1 $2: Time(us) $t, want $want (ddr $ddr)"; fi
}
# the real row
read -r lddr lt < <(awk '$2 == "exSoftmax13" { split($7, c, "/"); print c[1], $8 }' "$LOG")
read -r ddr t <<<"$(row dfl rk3588)"
if [ -n "$lt" ] && [ -n "$t" ] && awk -v a="$t" -v b="$lt" -v d="$ddr" -v e="$lddr" \
    'BEGIN { exit !((a - b) / b < 0.005 && (b - a) / b < 0.005 && d - e < 10 && e - d < 10) }'; then
    ok
else
    bad "dfl rk3588: Time(us) $t DDR $ddr, the logged row $lt / $lddr"
fi
check rf rk3588 4200 1000
check rec rk3588 40 1000
check ch13 rk3588 4200 1000
check ch11 rk3588 1 1000
check rf rk3576 0 950
# the attention: its row, its cycles, the real row
R16=tests/data/logs/perf-level4-fp16-batched-rfdetr-small-rk3588-rt2.3.2-modelzoo366-01.txt
real=$(awk '$1 == 130 && $2 == "exSDPAttention" { print $8 }' "$R16")
"$R" run "$T/att.onnx" -q fp16 -t rk3588 --no-db --no-progress -n 1 --npu-table >"$T/t" 2>"$T/e"
read -r ddr npu t < <(awk '$2 == "exSDPAttention" { split($7, c, "/"); print c[1], c[2], $8 }' "$T/t")
want=$(awk -v d="${ddr:-0}" -v n="${npu:-0}" 'BEGIN { printf "%d", 34.99 + (n * 0.9163 + d * 2.0405 + 24 * 257 * 552) / 1000 }')
if [ -n "$t" ] && [ "$t" = "$want" ]; then ok; else bad "attention rk3588: Time(us) '$t', want $want"; fi
if [ -n "$real" ] && [ -n "$t" ] && awk -v a="$t" -v b="$real" 'BEGIN { exit !(a < b && a > 0.65 * b) }'; then ok
else bad "attention rk3588: Time(us) '$t' against the real row's '$real'"; fi
# the frame: the Softmax graph against a Relu of the same shape, rk3588 and rk3576
d88=$(awk -v a="$(frame rf rk3588)" -v b="$(frame relu rk3588)" 'BEGIN { print a - b }')
d76=$(awk -v a="$(frame rf rk3576)" -v b="$(frame relu rk3576)" 'BEGIN { print a - b }')
if awk -v d="$d88" 'BEGIN { exit !(d > 2318.4 - 2 && d < 2318.4 + 20) }'; then ok
else bad "rf rk3588: frame grows by $d88 us over the Relu graph, want 2318.4 us + its DDR"; fi
if awk -v d="$d76" 'BEGIN { exit !(d > -20 && d < 20) }'; then ok
else bad "rf rk3576: frame grows by $d76 us over the Relu graph, want about 0"; fi
finish
