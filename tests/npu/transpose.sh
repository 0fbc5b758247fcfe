#!/usr/bin/env bash
# tests/npu/transpose.sh [BUILD] — the NPU's Transpose limits (op list 2.3.2,
# "Transpose" of each chip: one set of conditions per perm over the input
# [n1,c1,h1,w1], p = 8192, q = 2048 on RK3588, p = 268435456, q = 65536 on
# RK3576/RK3562; runtime/npu/npu_transpose.c): where each one-Transpose model
# runs, worked out by hand from the list's formulas:
#   int8 (1,8,10,10) perm [0,2,3,1]: the list also asks h1*w1 % 8 == 0
#       (100 % 8 = 4), which the compiler does not apply: toolkit 2.3.2's
#       RetinaFace_mobile320 for rk3562 and rk3576 (swdee/go-rknnlite-data)
#       keeps its (1,4,10,10) of this perm on the NPU; c1 8 < 8192, w1*c1 80
#       < 16p -> NPU on all three (RetinaFace's 10x10 heads at 320)
#   int8 (1,8,20,20) perm [0,2,3,1]: 400 % 8 = 0, c1 8 < 8192, w1*c1 160 < 16p
#       -> NPU on all three
#   fp16 (1,120,40) perm [0,2,1], as (1,1,120,40) perm [0,1,3,2]: needs
#       h1 % 8 == 0 (120: yes), h1*w1 < 2q: 4800 < 4096 no on rk3588 -> CPU,
#       4800 < 131072 on rk3576/rk3562 -> NPU (PP-OCRv4 rec's two)
#   fp16 (1,1,40,120) perm [0,3,1,2]: h1*w1 4800 < p, w1 < 8192, h1*c1 < p -> NPU
#   fp16 (1,2,3,4) perm [0,1,3,2]: h1 = 3 not a multiple of 8 -> CPU on all
#       three, as a real toolkit build log has it (shared/data/logs
#       buildlog-debug-layertable-2x-transpose-cpu-fp16-01: "Transpose FLOAT16
#       CPU (1,2,3,4) (1,2,4,3)"; its chip is not stated, the rule is the same
#       formula everywhere)
#   fp16 (1,2,3,4,5) perm [0,2,1,3,4]: rank 5, no limit in the list -> NPU
source "$(dirname "$0")/../quant/harness.sh" "$@"
$PY - "$T" <<'PYEOF' || { bad "models not built"; finish; exit; }
import sys
import onnx
from onnx import TensorProto, helper
T = sys.argv[1]
def save(name, shape, perm):
    out = [shape[p] for p in perm]
    g = helper.make_graph([helper.make_node("Transpose", ["x"], ["y"], perm=perm)], name,
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, out)])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{T}/{name}.onnx")
save("t10", [1, 8, 10, 10], [0, 2, 3, 1])
save("t20", [1, 8, 20, 20], [0, 2, 3, 1])
save("t3d", [1, 120, 40], [0, 2, 1])
save("t312", [1, 1, 40, 120], [0, 3, 1, 2])
save("tlog", [1, 2, 3, 4], [0, 1, 3, 2])
save("t5d", [1, 2, 3, 4, 5], [0, 2, 1, 3, 4])
PYEOF
# the Transpose layer's target and, on the CPU, its reason
where() { # model, quant, chip
    "$R" run "$T/$1.onnx" -q "$2" -t "$3" --no-db --no-progress -n 1 --warmup 0 --json \
        >"$T/j" 2>"$T/e" || { echo "run failed: $(tail -1 "$T/e")"; return; }
    $PY - "$T/j" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
l = [l for l in d["layers"] if l["op"] == "Transpose"]
print(l[0]["target"] + (" " + l[0]["cpu_reason"] if l[0]["target"] == "CPU" else "") if len(l) == 1 else "%d Transposes" % len(l))
PYEOF
}
check() { # model, quant, chip, want (prefix of the answer)
    local got; got=$(where "$1" "$2" "$3")
    if [[ $got == "$4"* ]]; then ok; else bad "$1 $2 on $3: '$got', want '$4...'"; fi
}
for c in rk3588 rk3576 rk3562; do
    check t10 i8 $c NPU
    check t20 i8 $c NPU
    check t312 fp16 $c NPU
    check tlog fp16 $c "CPU transpose perm [0,1,3,2] of (1,2,3,4) fails the $c limit h1 % a == 0 (a = 8, 16-bit)"
    check t5d fp16 $c NPU
done
check t3d fp16 rk3588 "CPU transpose perm [0,1,3,2] of (1,1,120,40) fails the rk3588 limit h1 * w1 < 2 * q"
check t3d fp16 rk3576 NPU
check t3d fp16 rk3562 NPU
finish
