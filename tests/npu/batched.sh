#!/usr/bin/env bash
# tests/npu/batched.sh [BUILD] — NPU cycles of batched convs and matmuls: each
# image of a batch is its own data cube, its output pixels rounded up to 16
# (runtime/npu/npu_cost.c), against cycle counts worked out by hand from the
# rk3588 MAC array (int8 32x32, fp16 32x16; depthwise 64 channels a tap):
#   1x1 conv [4,384,1,257] fp16: 4*ceil16(257)=1088 px * 12*24  = 313344
#                          int8: 1088 px * 12*12                = 156672
#   the same with N = 1 (fp16):  272 px * 288                   =  78336
#   7x7/7 depthwise [3,64,35,35] fp16 -> 5x5: 3*ceil16(25)=96 px * 49 = 4704
#   MatMul [4,257,384] x [384,384] fp16: 4 images of 257 rows   = 313344
# and against the real RK3588 table (fp16, runtime 2.3.2) in tests/data/logs:
# RF-DETR rows 30 (1x1 conv 384->384 over [4,384,1,257]) and 72 (1536->384),
# whose logged NPU cycles are read from the log here.
source "$(dirname "$0")/../quant/harness.sh" "$@"
$PY - "$T" <<'PYEOF' || { bad "models not built"; finish; exit; }
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
T = sys.argv[1]
rng = np.random.default_rng(0)
def save(name, node, x_shape, y_shape, inits):
    g = helper.make_graph([node], name,
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)],
                          [numpy_helper.from_array(a.astype(np.float32), n) for n, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(m, f"{T}/{name}.onnx")
w = rng.standard_normal((384, 384, 1, 1)) * 0.05
for n in (1, 4):
    save(f"conv1x1_n{n}", helper.make_node("Conv", ["x", "w"], ["y"]),
         [n, 384, 1, 257], [n, 384, 1, 257], [("w", w)])
save("conv1x1_n4_ic1536", helper.make_node("Conv", ["x", "w"], ["y"]),
     [4, 1536, 1, 257], [4, 384, 1, 257], [("w", rng.standard_normal((384, 1536, 1, 1)) * 0.02)])
save("dw7_n3", helper.make_node("Conv", ["x", "w"], ["y"], group=64, kernel_shape=[7, 7],
                                strides=[7, 7]),
     [3, 64, 35, 35], [3, 64, 5, 5], [("w", rng.standard_normal((64, 1, 7, 7)) * 0.1)])
save("matmul_b4", helper.make_node("MatMul", ["x", "w"], ["y"]), [4, 257, 384], [4, 257, 384],
     [("w", rng.standard_normal((384, 384)) * 0.05)])
PYEOF
# cycles of the model's one NPU conv/matmul layer, from run --json
cycles() { # model, quant
    "$R" run "$T/$1.onnx" -q "$2" -t rk3588 --no-db --no-progress --json -n 1 >"$T/j" 2>"$T/e" || { echo "run failed: $(tail -1 "$T/e")"; return; }
    $PY -c '
import json, sys
ls = [l for l in json.load(open(sys.argv[1]))["layers"] if l["op"] in ("Conv", "MatMul") and l["npu_cycles"]]
print(ls[0]["npu_cycles"] if len(ls) == 1 else "layers: %d" % len(ls))' "$T/j"
}
check() { # model, quant, want
    local got; got=$(cycles "$1" "$2")
    if [ "$got" = "$3" ]; then ok; else bad "$1 $2: NPU cycles $got, want $3"; fi
}
check conv1x1_n4 fp16 313344
check conv1x1_n4 i8 156672
check conv1x1_n1 fp16 78336
check dw7_n3 fp16 4704
check matmul_b4 fp16 313344
# NPU cycles of a row of the real log (its ID), the middle number of the Cycles cell
LOG="$(dirname "$0")/../data/logs/perf-level4-fp16-batched-rfdetr-small-rk3588-rt2.3.2-modelzoo366-01.txt"
logged() { awk -v id="$1" '$1 == id && $4 == "NPU" { split($7, c, "/"); print c[2] }' "$LOG"; }
check conv1x1_n4 fp16 "$(logged 30)"
check conv1x1_n4_ic1536 fp16 "$(logged 72)"
finish
