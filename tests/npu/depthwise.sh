#!/usr/bin/env bash
# tests/npu/depthwise.sh [BUILD] — fp16 depthwise 7x7 layers over a
# [1,32,128,128] plane on rk3588, the cycles worked out by hand from the rule
# of runtime/npu/npu_cost.c (ceil16(OH*OW) * Kh*Kw * ceil(C/64); docs/npu-model.md,
# "The depthwise rule"):
#   GlobalAveragePool: the vendor's 7x7/7 cascade, out = ceil(in/7)
#     (1,32,128,128) -> 19x19: ceil16(361) = 368 px * 49        = 18032
#     (1,32,19,19)   -> 3x3:   ceil16(9)   =  16 px * 49        =   784
#     (1,32,3,3)     -> 1x1, a 3x3 kernel:   16 px * 9          =   144
#   the same pool written as ReduceMean over H,W: the same three rows
#   ConvNeXt-style depthwise 7x7, stride 1, pad 3 -> 128x128:
#                               16384 px * 49                   = 802816
#   (the same kernel with stride 6, no pad -> 21x21: 448 px * 49 = 21952)
# 18032 is the NPU cycles of a real board row of this input (fp16 table kept
# for independent checks); only the cascade's 19x19 plane gives it.
# rk3566 and rk3562 bill fp16 depthwise at their int8 width, 32 channels a
# tap-cycle (as rk3588's real fp16 rows run at its int8 64; npu_platform.c):
#   depthwise 3x3, stride 1, pad 1 -> 128x128: 16384 px * 9 * ceil(32/32) = 147456
#   (the alignment table's fp16 DW 16 would give 294912)
source "$(dirname "$0")/../quant/harness.sh" "$@"
$PY - "$T" <<'PYEOF' || { bad "models not built"; finish; exit; }
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
T = sys.argv[1]
rng = np.random.default_rng(0)
def save(name, nodes, y_shape, inits):
    g = helper.make_graph(nodes, name,
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 32, 128, 128])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)],
                          [numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(m, f"{T}/{name}.onnx")
w = (rng.standard_normal((32, 1, 7, 7)) * 0.1).astype(np.float32)
save("gap", [helper.make_node("GlobalAveragePool", ["x"], ["y"])], [1, 32, 1, 1], [])
save("mean", [helper.make_node("ReduceMean", ["x"], ["y"], axes=[2, 3], keepdims=1)],
     [1, 32, 1, 1], [])
save("dw_s1", [helper.make_node("Conv", ["x", "w"], ["y"], group=32, kernel_shape=[7, 7],
                                pads=[3, 3, 3, 3])], [1, 32, 128, 128], [("w", w)])
w3 = (rng.standard_normal((32, 1, 3, 3)) * 0.1).astype(np.float32)
save("dw3", [helper.make_node("Conv", ["x", "w"], ["y"], group=32, kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1])], [1, 32, 128, 128], [("w", w3)])
save("dw_s6", [helper.make_node("Conv", ["x", "w"], ["y"], group=32, kernel_shape=[7, 7],
                                strides=[6, 6])], [1, 32, 21, 21], [("w", w)])
PYEOF
# "OutputShape NPU-cycles" of each Conv row of the predicted level-4 table
rows() { # model [chip]
    "$R" run "$T/$1.onnx" -q fp16 -t "${2:-rk3588}" --no-db --no-progress -n 1 --npu-table >"$T/t" 2>"$T/e" ||
        { echo "run failed: $(tail -1 "$T/e")"; return; }
    awk '$2 == "Conv" && $4 == "NPU" { split($7, c, "/"); printf "%s %s;", $6, c[2] }' "$T/t"
}
check() { # model, want [chip]
    local got; got=$(rows "$1" "${3:-}")
    if [ "$got" = "$2" ]; then ok; else bad "$1 ${3:-rk3588}: rows '$got', want '$2'"; fi
}
check gap "(1,32,19,19) 18032;(1,32,3,3) 784;(1,32,1,1) 144;"
check mean "(1,32,19,19) 18032;(1,32,3,3) 784;(1,32,1,1) 144;"
check dw_s1 "(1,32,128,128) 802816;"
check dw_s6 "(1,32,21,21) 21952;"
check dw3 "(1,32,128,128) 147456;" rk3566
check dw3 "(1,32,128,128) 147456;" rk3562
finish
