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
#       h1 % 8 == 0 (120: yes), h1*w1 < 2q: 4800 < 4096 no on rk3588,
#       4800 < 131072 on rk3576/rk3562 -> NPU (PP-OCRv4 rec's two); on rk3588
#       in the (a,b,1,c) view, (1,120,1,40) perm [0,3,2,1] (h1 % 8: 1, no)
#       or the same move [2,3,0,1] (axes 0 and 2 are 1): h1*w1 40 < 8192,
#       n1*c1 120 < p -> NPU there too
#   int8 (1,25,3549) perm [0,2,1], the Odin-CV head that toolkit 2.3.0's
#       rk3588 file runs on the NPU as (1,25,1,3549) -> (1,3549,1,25):
#       front view h1 = 25 no multiple of 16; [2,3,0,1]: 3549 < 8192, 25 < p
#       -> NPU on rk3588 and rv1106 (the same p, q)
#   int8 (1,8200,3) perm [0,2,1]: front view [0,1,3,2] or [1,0,3,2]: h1 % 16
#       (8200 % 16 = 8) no; (1,8200,1,3): [0,3,2,1] h1 % 16 no, [2,3,0,1]
#       n1*c1 8200 < p = 8192 no -> CPU on rk3588; rv1106 has no CPU
#       Transpose: the model is refused, naming it
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
save("todin", [1, 25, 3549], [0, 2, 1])
save("tlong", [1, 8200, 3], [0, 2, 1])
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
check t3d fp16 rk3588 NPU
check todin i8 rk3588 NPU
check todin i8 rv1106 NPU
check tlong i8 rk3588 "CPU transpose perm [0,1,3,2] of (1,1,8200,3) fails the rk3588 limit h1 % a == 0 (a = 16, int8)"
if "$R" run "$T/tlong.onnx" -q i8 -t rv1106 --no-db --no-progress -n 1 >/dev/null 2>"$T/e"; then
    bad "tlong on rv1106: ran, want refused"
else
    grep -q "cannot run on rv1106: Transpose" "$T/e" && grep -q "no CPU Transpose" "$T/e" && ok ||
        bad "tlong on rv1106: $(grep -v warning "$T/e")"
fi
check t3d fp16 rk3576 NPU
check t3d fp16 rk3562 NPU
finish
