"""tests/samples/custom_op_models.py DIR — writes the custom-op test models with
python3-onnx: DIR/custom.onnx (Conv -> cstSigmoid in domain "rknn.custom", attribute
alpha -> Add), DIR/dynamic.onnx (x: [n, 4] -> cstSigmoid alpha=2 -> y, a free
batch dim) and DIR/reference.onnx (the same with Mul(alpha) + Sigmoid, which
onnxruntime runs), and a seeded input DIR/x.npy / x.f32 (float32 NCHW 1x3x8x8)."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

d = sys.argv[1]
rng = np.random.default_rng(3)
W = rng.normal(0, 0.5, (4, 3, 3, 3)).astype(np.float32)
B = rng.normal(0, 0.1, (1, 4, 1, 1)).astype(np.float32)
ALPHA = 1.5
inits = [numpy_helper.from_array(W, "W"), numpy_helper.from_array(B, "B"),
         numpy_helper.from_array(np.array(ALPHA, np.float32), "alpha_c")]
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])
conv = helper.make_node("Conv", ["x", "W"], ["c"], name="conv", pads=[1, 1, 1, 1])
add = helper.make_node("Add", ["s", "B"], ["y"], name="add")
custom = helper.make_graph(
    [conv, helper.make_node("cstSigmoid", ["c"], ["s"], name="sig", domain="rknn.custom",
                            alpha=ALPHA), add], "custom", [x], [y], inits)
ref = helper.make_graph(
    [conv, helper.make_node("Mul", ["c", "alpha_c"], ["m"], name="mul"),
     helper.make_node("Sigmoid", ["m"], ["s"], name="sig"), add], "reference", [x], [y], inits)
opsets = [helper.make_opsetid("", 13), helper.make_opsetid("rknn.custom", 1)]
save(helper.make_model(custom, opset_imports=opsets), os.path.join(d, "custom.onnx"))
save(helper.make_model(ref, opset_imports=opsets[:1]), os.path.join(d, "reference.onnx"))
dx = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])
dy = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4])
dyn = helper.make_graph([helper.make_node("cstSigmoid", ["x"], ["y"], name="sig",
                                          domain="rknn.custom", alpha=2.0)], "dynamic", [dx], [dy])
save(helper.make_model(dyn, opset_imports=opsets), os.path.join(d, "dynamic.onnx"))
rng.uniform(-2, 2, (3, 4)).astype(np.float32).tofile(os.path.join(d, "x34.f32"))
xv = rng.uniform(-1, 1, (1, 3, 8, 8)).astype(np.float32)
np.save(os.path.join(d, "x.npy"), xv)
xv.tofile(os.path.join(d, "x.f32"))
