#!/usr/bin/python3
"""tests/ops/make_models.py OUTDIR — ONNX models for the ops suite (tests/ops/run.sh).

Two kinds, each with a seeded random input (OUTDIR/NAME.in.npy) and a line in
OUTDIR/models.txt ("NAME INPUT_NAME"):

* op models: one op with the attributes the conformance data leaves out
  (LayerNormalization without bias and with Mean/InvStdDev outputs,
  InstanceNormalization at opset 17, LpNormalization p=1 and 2, MVN over custom
  axes, LRN with non-default alpha, beta and bias, If with a constant condition (nested, using outer
  names), RoiAlign in max mode, MaxRoiPool, ScatterND with reductions, a
  bidirectional LSTM with clip, sequence lengths, peepholes and custom
  activations (onnxruntime has no layout 1; test_lstm_batchwise covers it), GRU with
  linear_before_reset, ReverseSequence, EyeLike);
* real-architecture models built from their published designs with random
  weights: a ViT-Tiny encoder (patch embedding, class token, 2 pre-norm blocks
  of 3-head attention and a GELU (Erf) MLP), a DETR decoder layer (self- and
  cross-attention over a memory, FFN, post-norm), a CRNN (conv stack, then a
  bidirectional LSTM over the width, per-step classifier) and a GRU keyword
  spotter (MFCC frames -> 2-layer GRU -> classes).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
rng = np.random.default_rng(1234)
F = TensorProto.FLOAT
lines = []


def w(name, *shape, scale=None):
    fan = shape[-1] if len(shape) > 1 else shape[0]
    s = scale if scale is not None else 1.0 / np.sqrt(fan)
    return numpy_helper.from_array((rng.standard_normal(shape) * s).astype(np.float32), name)


def const(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def save(name, nodes, inits, inp_name, inp_shape, outs, opset=17, extra_inputs=()):
    inputs = [helper.make_tensor_value_info(inp_name, F, inp_shape)]
    outputs = [helper.make_tensor_value_info(o, F, None) for o in outs]
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="rknn-trace-tests")
    m.ir_version = 8
    onnx.save(m, os.path.join(OUT, name + ".onnx"))
    x = rng.standard_normal(inp_shape).astype(np.float32)
    np.save(os.path.join(OUT, name + ".in.npy"), x)
    lines.append("%s %s" % (name, inp_name))


N = helper.make_node

# ---- op models --------------------------------------------------------------
save("layernorm_nobias_stats",
     [N("LayerNormalization", ["x", "s"], ["y", "mean", "inv"], axis=-2, epsilon=1e-3)],
     [w("s", 5, 7, scale=1.0)], "x", [2, 3, 5, 7], ["y", "mean", "inv"])
save("instancenorm", [N("InstanceNormalization", ["x", "s", "b"], ["y"], epsilon=1e-4)],
     [w("s", 4, scale=1.0), w("b", 4, scale=1.0)], "x", [2, 4, 6, 5], ["y"])
save("lpnorm", [N("LpNormalization", ["x"], ["a"], axis=1, p=1),
                N("LpNormalization", ["a"], ["y"], axis=-1, p=2)],
     [], "x", [2, 6, 5], ["y"])
save("mvn_axes", [N("MeanVarianceNormalization", ["x"], ["y"], axes=[1, 3])],
     [], "x", [2, 3, 4, 5], ["y"])
save("lrn_size5", [N("LRN", ["x"], ["y"], size=5, alpha=2e-3, beta=0.6, bias=1.5)],
     [], "x", [2, 7, 4, 4], ["y"])

# If with constant conditions: the outer one takes else, the nested one then;
# the branches use outer-scope tensors and initializers of their own.
inner_then = helper.make_graph([N("Mul", ["x", "k2"], ["t2"])], "inner_then", [],
                               [helper.make_tensor_value_info("t2", F, None)], [const("k2", np.float32(3.0))])
inner_else = helper.make_graph([N("Neg", ["x"], ["e2"])], "inner_else", [],
                               [helper.make_tensor_value_info("e2", F, None)])
outer_then = helper.make_graph([N("Relu", ["x"], ["t1"])], "outer_then", [],
                               [helper.make_tensor_value_info("t1", F, None)])
outer_else = helper.make_graph(
    [N("Constant", [], ["c2"], value=helper.make_tensor("c2v", TensorProto.BOOL, [], [True])),
     N("If", ["c2"], ["r2"], then_branch=inner_then, else_branch=inner_else),
     N("Add", ["r2", "bias"], ["e1"])], "outer_else", [],
    [helper.make_tensor_value_info("e1", F, None)])
save("if_const", [N("If", ["c1"], ["y0"], then_branch=outer_then, else_branch=outer_else),
                  N("Sigmoid", ["y0"], ["y"])],
     [const("c1", np.array(False)), w("bias", 6, scale=1.0)], "x", [2, 6], ["y"])

rois = np.array([[0, 0, 5, 5], [1.5, 2.2, 7.9, 6.1], [-1, -2, 3, 4], [2, 2, 2.5, 9]], np.float32)
save("roialign_max",
     [N("RoiAlign", ["x", "rois", "bi"], ["y"], mode="max", output_height=3, output_width=2,
        sampling_ratio=2, spatial_scale=0.9, coordinate_transformation_mode="half_pixel")],
     [const("rois", rois), const("bi", np.array([0, 1, 1, 0], np.int64))], "x", [2, 3, 8, 10], ["y"],
     opset=16)
save("roialign_avg_adaptive",
     [N("RoiAlign", ["x", "rois", "bi"], ["y"], output_height=2, output_width=4,
        coordinate_transformation_mode="output_half_pixel")],
     [const("rois", rois), const("bi", np.array([1, 0, 1, 0], np.int64))], "x", [2, 3, 8, 10], ["y"],
     opset=16)
save("maxroipool",
     [N("MaxRoiPool", ["x", "rois"], ["y"], pooled_shape=[2, 3], spatial_scale=0.5)],
     [const("rois", np.array([[0, 0, 0, 9, 7], [1, 2, 4, 19, 15], [1, 6, 6, 7, 7]], np.float32))],
     "x", [2, 3, 8, 10], ["y"])
save("scatternd_mul",
     [N("ScatterND", ["x", "idx", "upd"], ["y"], reduction="mul"),
      N("ScatterND", ["y", "idx2", "upd2"], ["z"])],
     [const("idx", np.array([[1], [3], [1]], np.int64)), w("upd", 3, 4, 5, scale=1.0),
      const("idx2", np.array([[0, 2], [2, -1]], np.int64)), w("upd2", 2, 5, scale=1.0)],
     "x", [4, 4, 5], ["z"])
save("reversesequence",
     [N("ReverseSequence", ["x", "lens"], ["y"], batch_axis=0, time_axis=1)],
     [const("lens", np.array([4, 1, 3], np.int64))], "x", [3, 4, 2], ["y"], opset=17)
save("eyelike", [N("EyeLike", ["x"], ["e"], k=-1), N("Add", ["x", "e"], ["y"])],
     [], "x", [4, 5], ["y"])

H = 8
save("lstm_bidir_clip",
     [N("LSTM", ["x", "W", "R", "B", "sl", "", "", "P"], ["Y", "Yh", "Yc"], direction="bidirectional",
        hidden_size=H, clip=1.5,
        activations=["HardSigmoid", "Tanh", "Softsign", "Sigmoid", "LeakyRelu", "Tanh"],
        activation_alpha=[0.3, 0.05], activation_beta=[0.45]),
      N("Concat", ["Yh", "Yc"], ["hc"], axis=2),
      N("ReduceSum", ["Y", "ax"], ["ys"], keepdims=0)],
     [w("W", 2, 4 * H, 5), w("R", 2, 4 * H, H), w("B", 2, 8 * H), w("P", 2, 3 * H),
      const("sl", np.array([3, 6, 5], np.int32)), const("ax", np.array([1], np.int64))],
     "x", [6, 3, 5], ["ys", "hc"], opset=14)
save("gru_lbr_reverse",
     [N("GRU", ["x", "W", "R", "B", "", "h0"], ["Y", "Yh"], direction="reverse", hidden_size=H,
        linear_before_reset=1)],
     [w("W", 1, 3 * H, 5), w("R", 1, 3 * H, H), w("B", 1, 6 * H), w("h0", 1, 2, H, scale=0.5)],
     "x", [7, 2, 5], ["Y", "Yh"], opset=14)


# ---- real architectures ----------------------------------------------------
def ln(nodes, inits, x, d, tag):
    inits += [w(tag + "_g", d, scale=0.1), w(tag + "_b", d, scale=0.1)]
    nodes.append(N("Add", [tag + "_g", "one"], [tag + "_g1"]))
    nodes.append(N("LayerNormalization", [x, tag + "_g1", tag + "_b"], [tag + "_y"], axis=-1))
    return tag + "_y"


def linear(nodes, inits, x, din, dout, tag):
    inits += [w(tag + "_w", din, dout), w(tag + "_bias", dout, scale=0.02)]
    nodes.append(N("MatMul", [x, tag + "_w"], [tag + "_m"]))
    nodes.append(N("Add", [tag + "_m", tag + "_bias"], [tag + "_o"]))
    return tag + "_o"


def gelu(nodes, x, tag):
    nodes += [N("Div", [x, "sqrt2"], [tag + "_d"]), N("Erf", [tag + "_d"], [tag + "_e"]),
              N("Add", [tag + "_e", "one"], [tag + "_p"]), N("Mul", [x, tag + "_p"], [tag + "_xp"]),
              N("Mul", [tag + "_xp", "half"], [tag + "_o"])]
    return tag + "_o"


def attention(nodes, inits, q_in, kv_in, d, heads, nq, nkv, tag):
    dh = d // heads
    q = linear(nodes, inits, q_in, d, d, tag + "_q")
    k = linear(nodes, inits, kv_in, d, d, tag + "_k")
    v = linear(nodes, inits, kv_in, d, d, tag + "_v")
    inits += [const(tag + "_sq", np.array([1, nq, heads, dh], np.int64)),
              const(tag + "_skv", np.array([1, nkv, heads, dh], np.int64)),
              const(tag + "_so", np.array([1, nq, d], np.int64)),
              const(tag + "_scale", np.float32(1.0 / np.sqrt(dh)))]
    nodes += [N("Reshape", [q, tag + "_sq"], [tag + "_qr"]), N("Transpose", [tag + "_qr"], [tag + "_qt"], perm=[0, 2, 1, 3]),
              N("Reshape", [k, tag + "_skv"], [tag + "_kr"]), N("Transpose", [tag + "_kr"], [tag + "_kt"], perm=[0, 2, 3, 1]),
              N("Reshape", [v, tag + "_skv"], [tag + "_vr"]), N("Transpose", [tag + "_vr"], [tag + "_vt"], perm=[0, 2, 1, 3]),
              N("MatMul", [tag + "_qt", tag + "_kt"], [tag + "_s"]),
              N("Mul", [tag + "_s", tag + "_scale"], [tag + "_ss"]),
              N("Softmax", [tag + "_ss"], [tag + "_a"], axis=-1),
              N("MatMul", [tag + "_a", tag + "_vt"], [tag + "_c"]),
              N("Transpose", [tag + "_c"], [tag + "_ct"], perm=[0, 2, 1, 3]),
              N("Reshape", [tag + "_ct", tag + "_so"], [tag + "_cr"])]
    return linear(nodes, inits, tag + "_cr", d, d, tag + "_proj")


def common_consts():
    return [const("one", np.float32(1.0)), const("half", np.float32(0.5)),
            const("sqrt2", np.float32(np.sqrt(2.0)))]


# ViT-Tiny: 224x224, patch 16 -> 196 tokens + class token, d=192, 3 heads, MLP 768
D, T = 192, 197
nodes, inits = [], common_consts()
inits += [w("patch_w", D, 3, 16, 16, scale=1.0 / np.sqrt(3 * 256)), w("patch_b", D, scale=0.02),
          w("cls", 1, 1, D, scale=0.02), w("pos", 1, T, D, scale=0.02),
          const("tok_shape", np.array([1, D, 196], np.int64))]
nodes += [N("Conv", ["image", "patch_w", "patch_b"], ["pe"], kernel_shape=[16, 16], strides=[16, 16]),
          N("Reshape", ["pe", "tok_shape"], ["pf"]), N("Transpose", ["pf"], ["pt"], perm=[0, 2, 1]),
          N("Concat", ["cls", "pt"], ["tok"], axis=1), N("Add", ["tok", "pos"], ["h0"])]
h = "h0"
for b in range(2):
    t = "blk%d" % b
    n1 = ln(nodes, inits, h, D, t + "_ln1")
    a = attention(nodes, inits, n1, n1, D, 3, T, T, t + "_att")
    nodes.append(N("Add", [h, a], [t + "_r1"]))
    n2 = ln(nodes, inits, t + "_r1", D, t + "_ln2")
    m = linear(nodes, inits, gelu(nodes, linear(nodes, inits, n2, D, 4 * D, t + "_fc1"), t + "_gelu"),
               4 * D, D, t + "_fc2")
    nodes.append(N("Add", [t + "_r1", m], [t + "_out"]))
    h = t + "_out"
hn = ln(nodes, inits, h, D, "final_ln")
inits += [const("cls_start", np.array([0], np.int64)), const("cls_end", np.array([1], np.int64)),
          const("cls_axis", np.array([1], np.int64))]
nodes.append(N("Slice", [hn, "cls_start", "cls_end", "cls_axis"], ["cls_tok"]))
logits = linear(nodes, inits, "cls_tok", D, 1000, "head")
nodes.append(N("Identity", [logits], ["logits"]))
save("vit_tiny_2blocks", nodes, inits, "image", [1, 3, 224, 224], ["logits"])

# DETR decoder layer: 100 queries, memory of 20x15 = 300 positions, d=256, 8 heads, FFN 2048
D, Q, M = 256, 100, 300
nodes, inits = [], common_consts()
inits += [w("query_pos", 1, Q, D, scale=1.0), w("memory", 1, M, D, scale=1.0), w("mem_pos", 1, M, D, scale=1.0)]
nodes += [N("Add", ["tgt", "query_pos"], ["q0"])]
sa = attention(nodes, inits, "q0", "q0", D, 8, Q, Q, "self")
nodes.append(N("Add", ["tgt", sa], ["r1"]))
n1 = ln(nodes, inits, "r1", D, "ln1")
nodes += [N("Add", [n1, "query_pos"], ["q1"]), N("Add", ["memory", "mem_pos"], ["mk"])]
ca = attention(nodes, inits, "q1", "mk", D, 8, Q, M, "cross")
nodes.append(N("Add", [n1, ca], ["r2"]))
n2 = ln(nodes, inits, "r2", D, "ln2")
f1 = linear(nodes, inits, n2, D, 2048, "ffn1")
nodes.append(N("Relu", [f1], ["ffn_act"]))
f2 = linear(nodes, inits, "ffn_act", 2048, D, "ffn2")
nodes.append(N("Add", [n2, f2], ["r3"]))
out = ln(nodes, inits, "r3", D, "ln3")
nodes.append(N("Identity", [out], ["hs"]))
save("detr_decoder_layer", nodes, inits, "tgt", [1, Q, D], ["hs"])

# CRNN: 1x32x128 text line -> conv/pool to 256 x 1 x 32 -> BiLSTM(128) -> 37 classes per step
nodes, inits = [], common_consts()
cin, chans = 1, [64, 128, 256, 256]
x = "line"
for i, c in enumerate(chans):
    inits += [w("c%d_w" % i, c, cin, 3, 3, scale=np.sqrt(2.0 / (cin * 9))), w("c%d_b" % i, c, scale=0.02)]
    nodes += [N("Conv", [x, "c%d_w" % i, "c%d_b" % i], ["c%d" % i], pads=[1, 1, 1, 1]),
              N("Relu", ["c%d" % i], ["r%d" % i])]
    pool = [2, 2] if i < 2 else [2, 1]
    nodes.append(N("MaxPool", ["r%d" % i], ["p%d" % i], kernel_shape=pool, strides=pool))
    x, cin = "p%d" % i, c
# 32x128 -> 16x64 -> 8x32 -> 4x32 -> 2x32; average the height away
nodes += [N("ReduceMean", [x], ["feat"], axes=[2], keepdims=0),         # [1, 256, 32]
          N("Transpose", ["feat"], ["seq"], perm=[2, 0, 1])]               # [32, 1, 256]
Hh = 128
inits += [w("lstm_W", 2, 4 * Hh, 256), w("lstm_R", 2, 4 * Hh, Hh), w("lstm_B", 2, 8 * Hh, scale=0.05),
          const("seq_shape", np.array([32, 1, 2 * Hh], np.int64))]
nodes += [N("LSTM", ["seq", "lstm_W", "lstm_R", "lstm_B"], ["lstm_Y"], direction="bidirectional", hidden_size=Hh),
          N("Transpose", ["lstm_Y"], ["lstm_T"], perm=[0, 2, 1, 3]),         # [32, 1, 2, 128]
          N("Reshape", ["lstm_T", "seq_shape"], ["lstm_out"])]
cls = linear(nodes, inits, "lstm_out", 2 * Hh, 37, "ctc")
nodes.append(N("Softmax", [cls], ["probs"], axis=-1))
save("crnn_bilstm", nodes, inits, "line", [1, 1, 32, 128], ["probs"])

# GRU keyword spotter: 49 MFCC frames x 40 -> 2 stacked GRU(64) -> last state -> 12 classes
nodes, inits = [], common_consts()
G = 64
inits += [w("g1_W", 1, 3 * G, 40), w("g1_R", 1, 3 * G, G), w("g1_B", 1, 6 * G, scale=0.05),
          w("g2_W", 1, 3 * G, G), w("g2_R", 1, 3 * G, G), w("g2_B", 1, 6 * G, scale=0.05),
          const("sq_axes", np.array([1], np.int64)), const("h_shape", np.array([1, G], np.int64))]
nodes += [N("Transpose", ["mfcc"], ["frames"], perm=[1, 0, 2]),            # [49, 1, 40]
          N("GRU", ["frames", "g1_W", "g1_R", "g1_B"], ["g1_Y"], hidden_size=G),
          N("Squeeze", ["g1_Y", "sq_axes"], ["g1_s"]),
          N("GRU", ["g1_s", "g2_W", "g2_R", "g2_B"], ["", "g2_h"], hidden_size=G),
          N("Reshape", ["g2_h", "h_shape"], ["last"])]
kl = linear(nodes, inits, "last", G, 12, "kws")
nodes.append(N("Softmax", [kl], ["scores"], axis=-1))
save("gru_kws", nodes, inits, "mfcc", [1, 49, 40], ["scores"])

with open(os.path.join(OUT, "models.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
