# bench/npu_fp16_models.py OUT_DIR — CLIP ViT-B/32 encoders as the rknn_model_zoo
# clip demo uses them (openai CLIP: text 12 layers, width 512, 8 heads, MLP 2048,
# 20 tokens, causal mask, QuickGELU; image 224x224, patch 32 -> 49 + class token,
# 12 layers, width 768, 12 heads, MLP 3072), random weights: only shapes matter
# to the NPU prediction. The text model takes the token embeddings (its Gather
# of the ids is left out).
import sys, numpy as np, onnx
from onnx import TensorProto, helper as h, numpy_helper as nh
def build(name, L, d, heads, mlp, T, path, patch=None):
    nodes, inits = [], []
    rng = np.random.default_rng(0)
    def c(n, a): inits.append(nh.from_array(np.asarray(a, np.float32), n)); return n
    def w(n, *s): return c(n, rng.standard_normal(s).astype(np.float32) * 0.02)
    def node(op, ins, out, **kw): nodes.append(h.make_node(op, ins, [out], **kw)); return out
    if patch:
        img, ps = patch
        x = node("Conv", ["image", w("pw", d, 3, ps, ps)], "pe", strides=[ps, ps])
        x = node("Reshape", [x, c("s0", np.array([1, d, -1]).astype(np.int64))], "pr")
        x = node("Transpose", [x], "pt", perm=[0, 2, 1])
        x = node("Concat", [w("cls", 1, 1, d), x], "tok", axis=1)
        inp = h.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, img, img])
    else:
        x = "emb"
        inp = h.make_tensor_value_info("emb", TensorProto.FLOAT, [1, T, d])
    x = node("Add", [x, w("pos", 1, T, d)], "x0")
    if patch:
        x = node("LayerNormalization", [x, c("lp_g", np.ones(d)), c("lp_b", np.zeros(d))], "x0n", axis=-1)
    dh = d // heads
    for i in range(L):
        p = f"l{i}_"
        y = node("LayerNormalization", [x, c(p+"g1", np.ones(d)), c(p+"b1", np.zeros(d))], p+"n1", axis=-1)
        def proj(tag):
            t = node("MatMul", [y, w(p+tag, d, d)], p+tag+"m")
            t = node("Add", [t, w(p+tag+"b", d)], p+tag+"a")
            t = node("Reshape", [t, c(p+tag+"s", np.array([1, T, heads, dh]).astype(np.int64))], p+tag+"r")
            return node("Transpose", [t], p+tag+"t", perm=[0, 2, 1, 3] if tag != "k" else [0, 2, 3, 1])
        q, k, v = proj("q"), proj("k"), proj("v")
        s = node("MatMul", [q, k], p+"qk")
        s = node("Mul", [s, c(p+"sc", np.float32(1/np.sqrt(dh)))], p+"qks")
        if not patch:
            s = node("Add", [s, c(p+"mask", np.triu(np.full((T, T), -1e4), 1))], p+"qkm")
        s = node("Softmax", [s], p+"sm", axis=-1)
        o = node("MatMul", [s, v], p+"av")
        o = node("Transpose", [o], p+"ot", perm=[0, 2, 1, 3])
        o = node("Reshape", [o, c(p+"os", np.array([1, T, d]).astype(np.int64))], p+"or")
        o = node("MatMul", [o, w(p+"o", d, d)], p+"om")
        o = node("Add", [o, w(p+"ob", d)], p+"oa")
        x = node("Add", [x, o], p+"r1")
        y = node("LayerNormalization", [x, c(p+"g2", np.ones(d)), c(p+"b2", np.zeros(d))], p+"n2", axis=-1)
        y = node("MatMul", [y, w(p+"f1", d, mlp)], p+"f1m")
        y = node("Add", [y, w(p+"f1b", mlp)], p+"f1a")
        sg = node("Mul", [y, c(p+"qg", np.float32(1.702))], p+"qg1")
        sg = node("Sigmoid", [sg], p+"qg2")
        y = node("Mul", [y, sg], p+"qg3")
        y = node("MatMul", [y, w(p+"f2", mlp, d)], p+"f2m")
        y = node("Add", [y, w(p+"f2b", d)], p+"f2a")
        x = node("Add", [x, y], p+"r2")
    x = node("LayerNormalization", [x, c("gf", np.ones(d)), c("bf", np.zeros(d))], "out", axis=-1)
    g = h.make_graph(nodes, name, [inp], [h.make_tensor_value_info("out", TensorProto.FLOAT, [1, T, d])], inits)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
out = sys.argv[1]
build("clip_text", 12, 512, 8, 2048, 20, f"{out}/clip_text.onnx")
build("clip_image", 12, 768, 12, 3072, 50, f"{out}/clip_image.onnx", patch=(224, 32))
