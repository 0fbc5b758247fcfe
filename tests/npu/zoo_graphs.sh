#!/usr/bin/env bash
# The networks bench/npu_models.sh builds from their published architectures
# (tests/tools/zoo/graphs.c, shapes only) against ONNX's own shape inference:
# zoo_onnx writes each with the shape the builder declared for every tensor;
# those are dropped and onnx.shape_inference (strict) infers them again from
# the ops and attributes alone; every tensor must come out as declared. For
# RetinaFace_resnet50_320 the layer counts are also worked out by hand from
# biubug6/Pytorch_Retinaface (models/retinaface.py, net.py, cfg_re50):
#   Conv 82 = ResNet-50 to layer4 (1 stem + 16 blocks x 3 + 4 shortcuts = 53)
#             + FPN (3 laterals + 2 merges) + SSH (3 x 5) + heads (3 levels x 3)
#   Relu 52 = stem 1 + 16 blocks x 3 + SSH 3;  LeakyRelu 11 = FPN 5 + SSH 3 x 2
#   Add 18 = 16 residuals + 2 FPN;  Transpose 9, Reshape 9 (heads), Concat 6
#   (3 SSH + 3 outputs), Resize 2, MaxPool 1, Softmax 1 (phase 'test')
# and its outputs are (1,4200,4), (1,4200,2), (1,4200,10): 2 anchors on the
# 40x40, 20x20 and 10x10 levels of a 320x320 input.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

if ! $PY -c "import onnx" 2>/dev/null; then
    echo "python3 onnx missing"
    echo "0 passed, 1 failed"
    exit 1
fi
for name in mobilenetv2-12 resnet50-v2-7 yolov5s_relu yolov5n yolov5s yolov5m \
            yolov8n yolov8s yolov8m retinaface_r50; do
    if ! "$B/tests/zoo_onnx" "$name" "$T/$name.onnx" --shapes 2>"$T/err"; then
        bad "$name: zoo_onnx: $(cat "$T/err")"
        continue
    fi
    if out=$($PY - "$T/$name.onnx" <<'PYEOF' 2>&1
import sys
import onnx
from onnx import shape_inference

m = onnx.load(sys.argv[1])
g = m.graph
def dims(v):
    return [d.dim_value for d in v.type.tensor_type.shape.dim]
declared = {v.name: dims(v) for v in list(g.value_info) + list(g.output)}
assert len(declared) >= len(g.node), (len(declared), len(g.node))
del g.value_info[:]
for o in g.output:
    o.type.tensor_type.ClearField("shape")
inf = shape_inference.infer_shapes(m, strict_mode=True).graph
got = {v.name: dims(v) for v in list(inf.value_info) + list(inf.output)}
wrong = [(k, v, got.get(k)) for k, v in declared.items() if got.get(k) != v]
assert not wrong, "%d of %d tensors differ, first %s" % (len(wrong), len(declared), wrong[:3])
print(len(declared))
PYEOF
    ); then ok; else bad "$name: shapes vs onnx inference: $out"; fi
done

# RetinaFace_resnet50_320: layer counts and outputs worked out by hand (above)
if [ -f "$T/retinaface_r50.onnx" ]; then
    $PY - "$T/retinaface_r50.onnx" <<'PYEOF' && ok || bad "retinaface_r50: layer counts or outputs"
import collections, sys
import onnx
g = onnx.load(sys.argv[1]).graph
ops = collections.Counter(n.op_type for n in g.node)
want = {"Conv": 82, "Relu": 52, "LeakyRelu": 11, "Add": 18, "Transpose": 9, "Reshape": 9,
        "Concat": 6, "Resize": 2, "MaxPool": 1, "Softmax": 1}
assert dict(ops) == want, dict(ops)
outs = [[d.dim_value for d in o.type.tensor_type.shape.dim] for o in g.output]
assert outs == [[1, 4200, 4], [1, 4200, 2], [1, 4200, 10]], outs
sm = [n for n in g.node if n.op_type == "Softmax"][0]
assert sm.output[0] == g.output[1].name, "the Softmax makes the class output"
assert [a.i for a in sm.attribute if a.name == "axis"] == [-1]
PYEOF
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
