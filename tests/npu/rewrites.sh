#!/usr/bin/env bash
# tests/npu/rewrites.sh [BUILD] — the vendor compiler's graph rewrites
# (runtime/npu/npu_fuse.c, docs/vendor-rewrites.md): a model written out op by
# op and the same model with the fused ONNX op predict the same layers
# (vendor OpType, CPU/NPU placement and NPU cycles) on every chip family
# (rk3588, rk3576, rk3566, rk3562 in float16; rv1106 in int8, its only
# dtype), and the expected placement per chip, from the op list
# (shared/research/rknn-oplist.md): exNorm is an NPU op on all but RV1106,
# whose CPU runs exLayerNorm; exSDPAttention is on all NPUs but RK356X's.
# GELU's reference is Tanh (the executor has no Gelu op; both are lookup-table
# activations costed alike): its layers with Tanh read as exGelu must match.
# A Linear's BatchNorm1d and ELU go into its conv (ConvElu); a conv of 2
# groups is split in two; 9x9 and 13x13 stride-1 MaxPools become chains of
# small pools; a Pad of zero pads is dropped; a ReduceMean over H alone is an
# AveragePool (and a CPU Reshape without keepdims). Also: a patch-embedding conv (kernel = stride = 16) costs the NPU cycles of
# the 1x1 conv over its space-to-depth input; exSDPAttention the cycles of
# its two exMatMuls (the same block kept unfused by exposing the softmax); a
# PyTorch BERT layer makes the layers of the vendor's own compile of one
# (tests/samples/vendor_bert.sh checks that file and its ONNX); an output of
# rank < 4 made on the NPU is reshaped there, and a Flatten before a Linear
# is no layer.
source "$(dirname "$0")/../quant/harness.sh" "$@"
$PY - "$T" <<'PYEOF' || { bad "models not built"; finish; exit; }
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
T = sys.argv[1]
F = TensorProto.FLOAT
N = helper.make_node
rng = np.random.default_rng(7)
def c(name, a):
    return numpy_helper.from_array(np.asarray(a, dtype=np.float32), name)
def ci(name, a):
    return numpy_helper.from_array(np.asarray(a, dtype=np.int64), name)
def save(name, nodes, inits, shape, outs=("y",), opset=17):
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", F, shape)],
                          [helper.make_tensor_value_info(o, F, None) for o in outs], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.save(m, f"{T}/{name}.onnx")
C = 32
g, b = rng.standard_normal(C), rng.standard_normal(C)
# the input goes through a 1x1 conv first, so every pattern reads an activation
def pre(shape_c):
    return [N("Conv", ["x", "w0"], ["h"])], [c("w0", rng.standard_normal((shape_c, shape_c, 1, 1)) * 0.1)]
# ---- LayerNorm over the last axis of [1,T,C]: ONNX op, PyTorch/Paddle form, TF form
ln_pre = [N("Reshape", ["x", "s3"], ["h"])]
ln_init = [ci("s3", [1, 16, C]), c("g", g), c("b", b), c("eps", 1e-5), c("two", 2.0), c("half", 0.5)]
save("ln_op", ln_pre + [N("LayerNormalization", ["h", "g", "b"], ["y"], axis=-1, epsilon=1e-5)],
     ln_init, [1, 16, 1, C])
save("ln_torch", ln_pre + [
    N("ReduceMean", ["h"], ["m"], axes=[-1]), N("Sub", ["h", "m"], ["d"]),
    N("Pow", ["d", "two"], ["d2"]), N("ReduceMean", ["d2"], ["v"], axes=[-1]),
    N("Add", ["v", "eps"], ["ve"]), N("Sqrt", ["ve"], ["s"]), N("Div", ["d", "s"], ["n"]),
    N("Mul", ["n", "g"], ["ng"]), N("Add", ["ng", "b"], ["y"])], ln_init, [1, 16, 1, C])
save("ln_tf", ln_pre + [
    N("ReduceMean", ["h"], ["m"], axes=[2]), N("Sub", ["h", "m"], ["d"]),
    N("Sub", ["h", "m"], ["d1"]), N("Mul", ["d1", "d1"], ["d2"]),
    N("ReduceMean", ["d2"], ["v"], axes=[2]), N("Add", ["v", "eps"], ["ve"]),
    N("Sqrt", ["ve"], ["s"]), N("Reciprocal", ["s"], ["r"]), N("Mul", ["d", "r"], ["n"]),
    N("Mul", ["n", "g"], ["ng"]), N("Add", ["ng", "b"], ["y"])], ln_init, [1, 16, 1, C])
# RMSNorm (no mean subtraction), with Pow(-0.5): the same exNorm (rms mode)
save("rms_form", ln_pre + [
    N("Pow", ["h", "two"], ["h2"]), N("ReduceMean", ["h2"], ["v"], axes=[-1]),
    N("Add", ["v", "eps"], ["ve"]), N("Sqrt", ["ve"], ["s"]), N("Div", ["h", "s"], ["n"]),
    N("Mul", ["n", "g"], ["ng"]), N("Add", ["ng", "b"], ["y"])], ln_init, [1, 16, 1, C])
# GroupNorm, 4 groups of [1,32,4,4]: PyTorch's Reshape-InstanceNormalization-Reshape-Mul-Add
# and the same with the normalization written out
gn_init = [ci("sg", [1, 4, -1]), ci("sb", [1, C, 4, 4]), c("eps", 1e-5), c("two", 2.0),
           c("gg", g.reshape(C, 1, 1)), c("bb", b.reshape(C, 1, 1)), c("one4", np.ones(4)),
           c("zero4", np.zeros(4))]
save("gn_op", [N("Reshape", ["x", "sg"], ["r"]),
               N("InstanceNormalization", ["r", "one4", "zero4"], ["n"], epsilon=1e-5),
               N("Reshape", ["n", "sb"], ["nb"]), N("Mul", ["nb", "gg"], ["ng"]),
               N("Add", ["ng", "bb"], ["y"])], gn_init, [1, C, 4, 4])
save("gn_form", [N("Reshape", ["x", "sg"], ["r"]),
                 N("ReduceMean", ["r"], ["m"], axes=[-1]), N("Sub", ["r", "m"], ["d"]),
                 N("Pow", ["d", "two"], ["d2"]), N("ReduceMean", ["d2"], ["v"], axes=[-1]),
                 N("Add", ["v", "eps"], ["ve"]), N("Sqrt", ["ve"], ["s"]),
                 N("Div", ["d", "s"], ["n"]),
                 N("Reshape", ["n", "sb"], ["nb"]), N("Mul", ["nb", "gg"], ["ng"]),
                 N("Add", ["ng", "bb"], ["y"])], gn_init, [1, C, 4, 4])
# ---- activations after a conv (fused into it) and standalone (after a Relu)
act_init = [c("w0", rng.standard_normal((C, C, 1, 1)) * 0.1), c("half", 0.5), c("one", 1.0),
            c("sq2", np.sqrt(2.0)), c("k", np.sqrt(2 / np.pi)), c("a", 0.044715), c("three", 3.0)]
def act(name, body, lead):
    # lead "conv": Conv then the activation; "relu": Conv, Relu, then the activation
    nodes = [N("Conv", ["x", "w0"], ["c0"])]
    if lead == "relu":
        nodes.append(N("Relu", ["c0"], ["h"]))
    else:
        nodes[0] = N("Conv", ["x", "w0"], ["h"])
    save(name, nodes + body, act_init, [1, C, 8, 8])
for lead in ("conv", "relu"):
    # the executor has no Gelu op: the reference is Tanh, the same kind of
    # lookup-table activation on every chip (exGelu <-> Tanh in the comparison)
    act(f"gelu_op_{lead}", [N("Tanh", ["h"], ["y"])], lead)
    act(f"gelu_erf_{lead}", [N("Div", ["h", "sq2"], ["t"]), N("Erf", ["t"], ["e"]),
                             N("Add", ["e", "one"], ["e1"]), N("Mul", ["h", "e1"], ["p"]),
                             N("Mul", ["p", "half"], ["y"])], lead)
    act(f"gelu_erf2_{lead}", [N("Mul", ["h", "half"], ["hh"]), N("Div", ["h", "sq2"], ["t"]),
                              N("Erf", ["t"], ["e"]), N("Add", ["one", "e"], ["e1"]),
                              N("Mul", ["hh", "e1"], ["y"])], lead)
    act(f"gelu_tanh_{lead}", [N("Pow", ["h", "three"], ["h3"]), N("Mul", ["h3", "a"], ["ah3"]),
                              N("Add", ["h", "ah3"], ["in"]), N("Mul", ["in", "k"], ["kin"]),
                              N("Tanh", ["kin"], ["th"]), N("Add", ["th", "one"], ["t1"]),
                              N("Mul", ["h", "t1"], ["p"]), N("Mul", ["p", "half"], ["y"])], lead)
    act(f"hswish_op_{lead}", [N("HardSwish", ["h"], ["y"])], lead)
    act(f"hswish_hsig_{lead}", [N("HardSigmoid", ["h"], ["s"], alpha=1 / 6, beta=0.5),
                                N("Mul", ["h", "s"], ["y"])], lead)
    act(f"mish_op_{lead}", [N("Mish", ["h"], ["y"])], lead)
    act(f"mish_form_{lead}", [N("Softplus", ["h"], ["sp"]), N("Tanh", ["sp"], ["t"]),
                              N("Mul", ["h", "t"], ["y"])], lead)
    act(f"swish_form_{lead}", [N("Sigmoid", ["h"], ["s"]), N("Mul", ["h", "s"], ["y"])], lead)
    act(f"swish_paddle_{lead}", [N("Mul", ["h", "one"], ["h1"]), N("Sigmoid", ["h1"], ["s"]),
                                 N("Mul", ["h", "s"], ["y"])], lead)
# x * Relu6(x + 3) / 6 (Paddle's export) is one HardSwish, as the compiler
# makes it (toolkit 2.3.2's compiled ppocrv4_det: ConvHardSwish)
for lead in ("conv", "relu"):
    act(f"hswish_relu6_{lead}", [N("Add", ["h", "three"], ["h3"]), N("Clip", ["h3", "z", "six"], ["r6"]),
                                 N("Mul", ["h", "r6"], ["p"]), N("Div", ["p", "six"], ["y"])], lead)
    m = onnx.load(f"{T}/hswish_relu6_{lead}.onnx")
    m.graph.initializer.extend([c("z", 0.0), c("six", 6.0)])
    onnx.save(m, f"{T}/hswish_relu6_{lead}.onnx")
# ---- ReduceMean over H,W = GlobalAveragePool (cascade of depthwise convs)
save("gap_op", [N("Relu", ["x"], ["h"]), N("GlobalAveragePool", ["h"], ["y"])], [], [1, C, 20, 20])
save("gap_mean", [N("Relu", ["x"], ["h"]), N("ReduceMean", ["h"], ["y"], axes=[2, 3])], [],
     [1, C, 20, 20])
# ---- Softmax written out, over the last axis
save("sm_op", [N("Relu", ["x"], ["h"]), N("Softmax", ["h"], ["y"], axis=-1)], [], [1, 4, 16, 16])
save("sm_form", [N("Relu", ["x"], ["h"]), N("ReduceMax", ["h"], ["mx"], axes=[-1]),
                 N("Sub", ["h", "mx"], ["d"]), N("Exp", ["d"], ["e"]),
                 N("ReduceSum", ["e", "ax"], ["s"]), N("Div", ["e", "s"], ["y"])],
     [ci("ax", [-1])], [1, 4, 16, 16])
# ---- attention: MatMul(Softmax(MatMul(Q, K^T) * scale), V) over [1,4,64,32]
att = [N("Relu", ["x"], ["q"]), N("Transpose", ["q"], ["kt"], perm=[0, 1, 3, 2]),
       N("MatMul", ["q", "kt"], ["s"]), N("Mul", ["s", "sc"], ["ss"]),
       N("Softmax", ["ss"], ["p"], axis=-1), N("MatMul", ["p", "q"], ["y"])]
save("att_form", att, [c("sc", 0.17)], [1, 4, 64, 32])
save("att_open", att, [c("sc", 0.17)], [1, 4, 64, 32], outs=("y", "p"))
# ---- a BERT encoder layer as PyTorch exports it ([1,T,C], H heads of d): Linear =
# MatMul by a constant + bias Add; the heads split by Reshape + Transpose (K's to
# [0,2,3,1]) and each of Q, K scaled by a constant Mul; the mask Added; the heads
# merged by Transpose + Reshape; output dense + residual, LayerNorm, Erf-GELU MLP.
# bert_att: the attention as exSDPAttention's two products (Q [1,H,T,d] given).
Tq, Cb, H = 16, 32, 4
db = Cb // H
def lin(name, src, dst, cin, cout):
    return ([N("MatMul", [src, name + "_w"], [name + "_m"]), N("Add", [name + "_b", name + "_m"], [dst])],
            [c(name + "_w", rng.standard_normal((cin, cout)) * 0.1), c(name + "_b", rng.standard_normal(cout))])
nodes, inits = [], [ci("split", [1, Tq, H, db]), ci("merge", [1, Tq, Cb]), c("qs", db ** -0.25),
                    c("mask", np.where(rng.random((1, 1, Tq, Tq)) < 0.2, -1e4, 0.0)),
                    c("lg", g), c("lb", b), c("lg2", g), c("lb2", b)]
for nm in ("q", "k", "v"):
    ns, it = lin(nm, "x", nm + "l", Cb, Cb); nodes += ns; inits += it
    nodes.append(N("Reshape", [nm + "l", "split"], [nm + "r"]))
nodes += [N("Transpose", ["qr"], ["qt"], perm=[0, 2, 1, 3]), N("Mul", ["qt", "qs"], ["qm"]),
          N("Transpose", ["kr"], ["kt"], perm=[0, 2, 3, 1]), N("Mul", ["kt", "qs"], ["km"]),
          N("Transpose", ["vr"], ["vt"], perm=[0, 2, 1, 3]),
          N("MatMul", ["qm", "km"], ["sc"]), N("Add", ["sc", "mask"], ["sm"]),
          N("Softmax", ["sm"], ["p"], axis=-1), N("MatMul", ["p", "vt"], ["o"]),
          N("Transpose", ["o"], ["ot"], perm=[0, 2, 1, 3]), N("Reshape", ["ot", "merge"], ["om"])]
ns, it = lin("od", "om", "odb", Cb, Cb); nodes += ns; inits += it
nodes += [N("Add", ["odb", "x"], ["r1"]), N("LayerNormalization", ["r1", "lg", "lb"], ["n1"], axis=-1)]
ns, it = lin("i", "n1", "ib", Cb, 4 * Cb); nodes += ns; inits += it
nodes += [N("Div", ["ib", "sq2"], ["it"]), N("Erf", ["it"], ["ie"]), N("Add", ["ie", "one"], ["ie1"]),
          N("Mul", ["ib", "ie1"], ["ip"]), N("Mul", ["ip", "half"], ["ig"])]
inits += [c("sq2", np.sqrt(2.0)), c("one", 1.0), c("half", 0.5)]
ns, it = lin("o2", "ig", "o2b", 4 * Cb, Cb); nodes += ns; inits += it
nodes += [N("Add", ["o2b", "n1"], ["r2"]), N("LayerNormalization", ["r2", "lg2", "lb2"], ["y"], axis=-1)]
save("bert_layer", nodes, inits, [1, Tq, Cb])
save("bert_att", [N("Relu", ["x"], ["q"]), N("Transpose", ["q"], ["kq"], perm=[0, 1, 3, 2]),
                  N("MatMul", ["q", "kq"], ["s"]), N("Softmax", ["s"], ["p"], axis=-1),
                  N("MatMul", ["p", "q"], ["y"])], [], [1, H, Tq, db])
# ---- not rewrites: what only looks like a pattern
pos = rng.standard_normal((1, 16, C))
save("ln_pos_op", ln_pre + [N("LayerNormalization", ["h", "g", "b"], ["n"], axis=-1, epsilon=1e-5),
                            N("Add", ["n", "pe"], ["y"])], ln_init + [c("pe", pos)], [1, 16, 1, C])
save("ln_pos_form", ln_pre + [
    N("ReduceMean", ["h"], ["m"], axes=[-1]), N("Sub", ["h", "m"], ["d"]),
    N("Pow", ["d", "two"], ["d2"]), N("ReduceMean", ["d2"], ["v"], axes=[-1]),
    N("Add", ["v", "eps"], ["ve"]), N("Sqrt", ["ve"], ["s"]), N("Div", ["d", "s"], ["n0"]),
    N("Mul", ["n0", "g"], ["ng"]), N("Add", ["ng", "b"], ["n"]), N("Add", ["n", "pe"], ["y"])],
    ln_init + [c("pe", pos)], [1, 16, 1, C])
# the variance's intermediate is also a model output: nothing may go away
save("ln_open", ln_pre + [
    N("ReduceMean", ["h"], ["m"], axes=[-1]), N("Sub", ["h", "m"], ["d"]),
    N("Pow", ["d", "two"], ["d2"]), N("ReduceMean", ["d2"], ["v"], axes=[-1]),
    N("Add", ["v", "eps"], ["ve"]), N("Sqrt", ["ve"], ["s"]), N("Div", ["d", "s"], ["y"])],
    ln_init, [1, 16, 1, C], outs=("y", "v"))
# gating x * Sigmoid(g(x)), and x * HardSigmoid(x) with ONNX's default alpha 0.2
act("gate_form_relu", [N("Conv", ["h", "w0"], ["g1"]), N("Sigmoid", ["g1"], ["s"]),
                       N("Mul", ["h", "s"], ["y"])], "relu")
act("hsig02_relu", [N("HardSigmoid", ["h"], ["s"]), N("Mul", ["h", "s"], ["y"])], "relu")
# Exp(x - max over another axis) / sum: the softmax of x - max, the max kept
save("sm_wrongmax", [N("Relu", ["x"], ["h"]), N("ReduceMax", ["h"], ["mx"], axes=[2]),
                     N("Sub", ["h", "mx"], ["d"]), N("Exp", ["d"], ["e"]),
                     N("ReduceSum", ["e", "ax"], ["s"]), N("Div", ["e", "s"], ["y"])],
     [ci("ax", [-1])], [1, 4, 16, 16])
# ---- patch embedding: 16x16 stride 16 conv, and the 1x1 conv of its space-to-depth input
# a Linear + BatchNorm1d + ELU (an MLP policy's block) and the same Linear with
# the BN folded: toolkit 2.3.2's rk3576 file of such a policy (qin-yuhao/
# mit_deploy's model.rknn, beside its model.onnx) has one ConvElu per block
K, NL = 45, 128
wl, bl = rng.standard_normal((NL, K)) * 0.2, rng.standard_normal(NL) * 0.1
bg, bb, bm, bv = (rng.standard_normal(NL), rng.standard_normal(NL), rng.standard_normal(NL),
                  rng.random(NL) + 0.5)
bs = bg / np.sqrt(bv + 1e-5)
save("linear_bn_elu", [N("Gemm", ["x", "wl", "bl"], ["h"], transB=1),
                       N("BatchNormalization", ["h", "bg", "bb", "bm", "bv"], ["n"], epsilon=1e-5),
                       N("Elu", ["n"], ["y"])],
     [c("wl", wl), c("bl", bl), c("bg", bg), c("bb", bb), c("bm", bm), c("bv", bv)], [1, K])
save("linear_elu", [N("Gemm", ["x", "wf", "bf"], ["h"], transB=1), N("Elu", ["h"], ["y"])],
     [c("wf", wl * bs[:, None]), c("bf", (bl - bm) * bs + bb)], [1, K])
# a conv of 2 groups (not depthwise) and the same conv written out as the
# compiler splits it (Split, a conv per group, Concat; the Relu after it a layer
# of its own), and a spatial pyramid's 9x9 / 13x13 stride-1 MaxPools beside
# the chains of 3x3 / 4x4 pools the compiler makes of them (SumedhP/Odin-CV's
# rk3588 file)
wg = rng.standard_normal((64, 16, 1, 1)) * 0.3
save("group_conv", [N("Relu", ["x"], ["h"]), N("Conv", ["h", "wg"], ["c"], group=2),
                    N("Relu", ["c"], ["y"])], [c("wg", wg)], [1, 32, 20, 20])
save("group_split", [N("Relu", ["x"], ["h"]), N("Split", ["h"], ["h0", "h1"], axis=1),
                     N("Conv", ["h0", "wg0"], ["c0"]), N("Conv", ["h1", "wg1"], ["c1"]),
                     N("Concat", ["c0", "c1"], ["c"], axis=1), N("Relu", ["c"], ["y"])],
     [c("wg0", wg[:32]), c("wg1", wg[32:])], [1, 32, 20, 20])
spp = [N("Relu", ["x"], ["h"])]
for k in (9, 13):
    spp.append(N("MaxPool", ["h"], [f"m{k}"], kernel_shape=[k, k], pads=[k // 2] * 4))
save("spp_pools", spp + [N("Concat", ["h", "m9", "m13"], ["y"], axis=1)], [], [1, 32, 13, 13])
chain = [N("Relu", ["x"], ["h"])]
for i in range(4):
    chain.append(N("MaxPool", [f"a{i - 1}" if i else "h"], [f"a{i}" if i < 3 else "m9"],
                   kernel_shape=[3, 3], pads=[1] * 4))
for i in range(4):
    chain.append(N("MaxPool", [f"b{i - 1}" if i else "h"], [f"b{i}" if i < 3 else "m13"],
                   kernel_shape=[4, 4], pads=[2 - i % 2] * 4))
save("spp_chains", chain + [N("Concat", ["h", "m9", "m13"], ["y"], axis=1)], [],
     [1, 32, 13, 13])
# a Pad of zero pads before a pool, and the pool alone (LPRNet's, rk3568 file)
save("pad_zero", [N("Relu", ["x"], ["h"]), N("Pad", ["h", "p0"], ["p"]),
                  N("AveragePool", ["p"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
     [ci("p0", [0] * 8)], [1, 16, 8, 8])
save("pad_none", [N("Relu", ["x"], ["h"]),
                  N("AveragePool", ["h"], ["y"], kernel_shape=[2, 2], strides=[2, 2])], [],
     [1, 16, 8, 8])
# a ReduceMean over H (4 rows) as the compiler pools it, beside the pool; without
# keepdims its CPU Reshape after (LPRNet's rk3568 file)
save("mean_h", [N("Relu", ["x"], ["h"]), N("ReduceMean", ["h"], ["y"], axes=[2])], [],
     [1, 16, 4, 18])
save("pool_h", [N("Relu", ["x"], ["h"]), N("AveragePool", ["h"], ["y"], kernel_shape=[4, 1])],
     [], [1, 16, 4, 18])
save("mean_h0", [N("Relu", ["x"], ["h"]), N("ReduceMean", ["h"], ["y"], axes=[2], keepdims=0)],
     [], [1, 16, 4, 18])
save("patch16", [N("Conv", ["x", "wp"], ["y"], kernel_shape=[16, 16], strides=[16, 16])],
     [c("wp", rng.standard_normal((64, 3, 16, 16)) * 0.05)], [1, 3, 64, 64])
save("patch_s2d", [N("Conv", ["x", "w1"], ["y"])],
     [c("w1", rng.standard_normal((64, 768, 1, 1)) * 0.05)], [1, 768, 4, 4])
# outputs of rank < 4: a classifier (pool, Flatten, Linear), a Reshape that is
# the output, and a Transpose after it (the detectors' decode)
save("cls_head", [N("Relu", ["x"], ["h"]), N("GlobalAveragePool", ["h"], ["g"]),
                  N("Flatten", ["g"], ["f"]), N("Gemm", ["f", "wc", "bc"], ["y"], transB=1)],
     [c("wc", rng.standard_normal((10, 64)) * 0.1), c("bc", rng.standard_normal(10))], [1, 64, 7, 7])
save("out_reshape", [N("Relu", ["x"], ["h"]), N("Reshape", ["h", "s3"], ["y"])], [ci("s3", [1, 8, 16])],
     [1, 8, 4, 4])
save("out_transpose", [N("Relu", ["x"], ["h"]), N("Reshape", ["h", "s3"], ["r"]),
                       N("Transpose", ["r"], ["y"], perm=[0, 2, 1])], [ci("s3", [1, 8, 16])], [1, 8, 4, 4])
PYEOF
# "OpType/target/npu_cycles" of every layer of a run, one line
layers() { # model chip quant
    "$R" run "$T/$1.onnx" -q "$3" -t "$2" --no-db --no-progress --json -n 1 >"$T/j" 2>"$T/e" || { echo "run failed: $(tail -1 "$T/e")"; return; }
    $PY -c '
import json, sys
ls = [l for l in json.load(open(sys.argv[1]))["layers"] if l["time_us"] is not None]
print(" ".join("%s/%s/%s" % (l["npu_op"], l["target"], l["npu_cycles"]) for l in ls))' "$T/j"
}
SUBST=""  # sed script applied to the second model's layers
CHIPS="rk3588:fp16 rk3576:fp16 rk3566:fp16 rk3562:fp16 rv1106:i8"
same() { # model_a model_b [what must appear in every chip's layers: chip=pattern ...]
    local a=$1 b=$2; shift 2
    for cq in $CHIPS; do
        local chip=${cq%%:*} q=${cq#*:} la lb
        la=$(layers "$a" "$chip" "$q"); lb=$(layers "$b" "$chip" "$q" | sed "$SUBST")
        if [ "$chip" = "${SKIP:-}" ]; then lb=$la; fi
        if [ "$la" = "$lb" ] && [ -n "$la" ] && [ "${la#run failed}" = "$la" ]; then ok
        else bad "$a vs $b on $chip: [$la] vs [$lb]"; fi
        for want in "$@"; do
            local wc=${want%%=*} wp=${want#*=}
            [ "$wc" = "$chip" ] || [ "$wc" = all ] || continue
            case " $la" in *" $wp"*) ok ;; *) bad "$a on $chip: no $wp in [$la]" ;; esac
        done
    done
}
# exNorm: NPU layer where the chip has it; RV1106: exLayerNorm on the CPU
NORM="rk3588=exNorm/NPU/0 rk3576=exNorm/NPU/0 rk3566=exNorm/NPU/0 rk3562=exNorm/NPU/0 rv1106=exLayerNorm/CPU/0"
same ln_torch ln_op $NORM
same ln_tf ln_op $NORM
# int8 on a chip with a float16 NPU: exNorm stays on the NPU in float16
# between two exDataConverts (rknn-toolkit2 issue 217's int8 ViT table)
# (the level-4 table: the converts are layers of no ONNX node)
table() { # model chip quant: "OpType/DataType/Target" of every row
    "$R" run "$T/$1.onnx" -q "$3" -t "$2" --no-db --no-progress --npu-table -n 1 2>/dev/null |
        awk '$1 ~ /^[0-9]+$/ && NF > 4 { printf "%s/%s/%s ", $2, $3, $4 }'
}
for chip in rk3588 rk3566; do
    la=$(table ln_torch $chip i8); lb=$(table ln_op $chip i8)
    case "$la" in *"exDataConvert/INT8/NPU exNorm/FLOAT16/NPU exDataConvert/FLOAT16/NPU "*) ok ;; *) bad "ln_torch $chip i8: $la" ;; esac
    [ "$la" = "$lb" ] && ok || bad "ln_torch vs ln_op $chip i8: [$la] vs [$lb]"
done
same rms_form ln_op $NORM
# InstanceNormalization is no op of RV1106 at all (op list: converter x);
# written out it is exLayerNorm there
SKIP=rv1106 same gn_form gn_op $NORM
for lead in conv relu; do
    SUBST='s/ConvTanh/ConvExGelu/g; s/\bTanh\//exGelu\//g' same gelu_erf_$lead gelu_op_$lead
    SUBST='s/ConvTanh/ConvExGelu/g; s/\bTanh\//exGelu\//g' same gelu_erf2_$lead gelu_op_$lead
    SUBST='s/ConvTanh/ConvExGelu/g; s/\bTanh\//exGelu\//g' same gelu_tanh_$lead gelu_op_$lead
    same hswish_hsig_$lead hswish_op_$lead
    same hswish_relu6_$lead hswish_op_$lead
    same mish_form_$lead mish_op_$lead
    same swish_paddle_$lead swish_form_$lead
done
# the names of the fused layers, as the vendor prints them (RF-DETR's ConvExGelu
# and standalone exSwish rows; exGelu, HardSwish, exMish: the op list)
l=$(layers gelu_erf_conv rk3588 fp16); case "$l" in *ConvExGelu/NPU/*) ok ;; *) bad "gelu after conv: $l" ;; esac
l=$(layers gelu_erf_relu rk3588 fp16); case "$l" in *" exGelu/NPU/"*) ok ;; *) bad "gelu: $l" ;; esac
l=$(layers swish_form_relu rk3588 fp16); case "$l" in *" exSwish/NPU/"*) ok ;; *) bad "swish: $l" ;; esac
l=$(layers swish_paddle_conv rk3566 fp16); case "$l" in *ConvExSwish/NPU/*) ok ;; *) bad "paddle swish after conv: $l" ;; esac
l=$(layers mish_form_relu rv1106 i8); case "$l" in *" exMish/NPU/"*) ok ;; *) bad "mish: $l" ;; esac
l=$(layers hswish_relu6_conv rk3588 i8); case "$l" in *ConvHardSwish/NPU/*) ok ;; *) bad "relu6 hardswish after conv: $l" ;; esac
l=$(layers hswish_relu6_relu rk3588 fp16)
case "$l" in *CPU/*|*Clip/*|*Mul/*) bad "relu6 hardswish not fused: $l" ;; *" HardSwish/NPU/"*) ok ;; *) bad "relu6 hardswish: $l" ;; esac
# no CPU Erf, ReduceMean, Sqrt left anywhere
for m in gelu_erf_relu ln_torch gap_mean sm_form; do
    l=$(layers $m rk3588 fp16)
    case "$l" in *CPU/*) case "$l" in *InputOperator/CPU*OutputOperator/CPU*) [ "$(echo "$l" | grep -o 'CPU' | wc -l)" = 2 ] && ok || bad "$m: CPU layers left: $l" ;; *) bad "$m: $l" ;; esac ;; *) ok ;; esac
done
same gap_mean gap_op "all=Conv/NPU/"
same linear_bn_elu linear_elu "all=ConvElu/NPU/"
same pad_zero pad_none "all=AveragePool/NPU/"
# layers of no ONNX node (the split's convs, the chains' inner pools) are rows
# of the level-4 table, not of the run's layer list: compared there, with
# their cycles (DDR/NPU/total)
ntable() { # model chip quant
    "$R" run "$T/$1.onnx" -q "$3" -t "$2" --no-db --no-progress --npu-table -n 1 2>/dev/null |
        awk '$1 ~ /^[0-9]+$/ && ($4 == "NPU" || $4 == "CPU") && NF > 8 { printf "%s/%s/%s ", $2, $4, $7 }'
}
for cq in $CHIPS; do
    chip=${cq%%:*}; q=${cq#*:}
    la=$(ntable mean_h0 "$chip" "$q")
    case "$la" in *"AveragePool/NPU/"*"Reshape/CPU/"*) case "$la" in *ReduceMean*) bad "mean_h0 on $chip: $la" ;; *) ok ;; esac ;;
        *) bad "mean_h0 on $chip: no NPU AveragePool then CPU Reshape in [$la]" ;; esac
done
for pair in "mean_h pool_h AveragePool/NPU/" "group_conv group_split Split/NPU/" "spp_pools spp_chains MaxPool/NPU/"; do
    set -- $pair
    for cq in $CHIPS; do
        chip=${cq%%:*}; q=${cq#*:}
        la=$(ntable "$1" "$chip" "$q"); lb=$(ntable "$2" "$chip" "$q")
        [ -n "$la" ] && [ "$la" = "$lb" ] && ok || bad "$1 vs $2 on $chip: [$la] vs [$lb]"
        case "$la" in *"$3"*) ok ;; *) bad "$1 on $chip: no $3 in [$la]" ;; esac
    done
done
# Softmax: an NPU op but on RK356X (CPU there, the same for both forms)
same sm_form sm_op "rk3588=exSoftmax13/NPU/0" "rk3566=exSoftmax13/CPU/0" "rv1106=exSoftmax13/NPU/0"
# attention: exSDPAttention on rk3588/rk3576/rk3562/rv1106, the unfused block on rk3566
for cq in $CHIPS; do
    chip=${cq%%:*}; q=${cq#*:}
    lf=$(layers att_form "$chip" "$q"); lo=$(layers att_open "$chip" "$q")
    if [ "$chip" = rk3566 ]; then
        case "$lf" in *exSDPAttention*) bad "rk3566 has no exSDPAttention: $lf" ;; *"exMatMul/NPU/"*"CPU"*"exMatMul/NPU/"*) ok ;; *) bad "rk3566 attention: $lf" ;; esac
        continue
    fi
    got=$(echo "$lf" | tr ' ' '\n' | awk -F/ '$1 == "exSDPAttention" && $2 == "NPU" { print $3 }')
    want=$(echo "$lo" | tr ' ' '\n' | awk -F/ '$1 == "exMatMul" { s += $3 } END { print s + 0 }')
    if [ -n "$got" ] && [ "$got" = "$want" ] && [ "$want" -gt 0 ]; then ok
    else bad "$chip exSDPAttention cycles '$got', the two exMatMuls' $want ($lf | $lo)"; fi
done
# a BERT layer: the layers of toolkit 2.3.2's own rk3588 file of one
# (emapco/rk-transformers' random_bert, its nodes 17-31): the head split, the
# scales and the merge fold into exSDPAttention, whose cycles are its two
# products' (bert_att); each Linear's bias goes into its Conv, the residual Adds
# make ConvAdd, the GELU ConvExGelu; nothing on the CPU. RK356X: no
# exSDPAttention, the block stays open.
want_bert="Conv Conv Conv ConvAdd ConvAdd ConvExGelu Reshape Reshape Reshape Reshape exNorm exNorm exSDPAttention"
for chip in rk3588 rk3576 rk3562 rk3566; do
    lb=$(layers bert_layer "$chip" fp16)
    ops=$(echo "$lb" | tr ' ' '\n' | cut -d/ -f1 | LC_ALL=C sort | tr '\n' ' ')
    if [ "$chip" = rk3566 ]; then
        case "$lb" in *exSDPAttention*) bad "rk3566 bert_layer: $lb" ;; *"Transpose/CPU/"*"exMatMul/NPU/"*) ok ;; *) bad "rk3566 bert_layer: $lb" ;; esac
        continue
    fi
    [ "$ops" = "$want_bert " ] && ok || bad "bert_layer on $chip: [$ops] want [$want_bert] ($lb)"
    got=$(echo "$lb" | tr ' ' '\n' | awk -F/ '$1 == "exSDPAttention" { print $3 }')
    want=$(layers bert_att "$chip" fp16 | tr ' ' '\n' | awk -F/ '$1 == "exSDPAttention" { print $3 }')
    [ -n "$got" ] && [ "$got" = "$want" ] && ok || bad "bert_layer $chip attention cycles '$got', bert_att's '$want'"
    case "$lb" in *Transpose*|*Mul/*|*"/CPU/"*) bad "bert_layer on $chip keeps a piece: $lb" ;; *) ok ;; esac
done
# not rewritten: a position embedding stays an Add after exNorm; an exposed
# intermediate, a gate and HardSigmoid(alpha 0.2) keep their pieces
same ln_pos_form ln_pos_op "rk3588=exNorm/NPU/0 Add/NPU/"
l=$(layers ln_open rk3588 fp16); case "$l" in *exNorm*) bad "ln_open fused: $l" ;; *ReduceMean/CPU/*Sqrt/CPU/*) ok ;; *) bad "ln_open: $l" ;; esac
l=$(layers gate_form_relu rk3588 fp16); case "$l" in *[Ss]wish*) bad "gate fused: $l" ;; *) ok ;; esac
l=$(layers hsig02_relu rk3588 fp16); case "$l" in *HardSwish*) bad "HardSigmoid(0.2) fused: $l" ;; *"HardSigmoid/NPU/"*" Mul/NPU/"*) ok ;; *) bad "hsig02: $l" ;; esac
# (exp(d) / sum exp(d) is still the softmax of d = x - max: only the max stays out)
l=$(layers sm_wrongmax rk3588 fp16); case "$l" in *"ReduceMax/CPU/0 Sub/NPU/0 exSoftmax13/NPU/0") ok ;; *) bad "sm_wrongmax: $l" ;; esac
# an output of rank < 4 made on the NPU: the compiler's Reshape "<output>-rs"
# from its 4-D view before the OutputOperator (toolkit 2.3.2's BERT and MLP
# files, retinaface.rv1103); a Flatten of (1,C,1,1) before a Linear is no
# layer, its conv reads the pool's output (the SDK guide's mobilenet table);
# a Reshape that is the output needs none
fulltable() { # model chip quant: "OpType/Target/InputShape/FullName" of every row
    "$R" run "$T/$1.onnx" -q "$3" -t "$2" --no-db --no-progress --npu-table -n 1 2>/dev/null |
        awk '/^slowest/ { exit } $1 ~ /^[0-9]+$/ && NF > 8 { printf "%s/%s/%s/%s ", $2, $4, $5, $NF }'
}
for cq in rk3588:fp16 rk3576:i8 rv1106:i8; do
    chip=${cq%%:*}; q=${cq#*:}
    l=$(fulltable cls_head "$chip" "$q")
    case "$l" in *"Conv/NPU/(1,64,1,1),(10,64),(10)/Gemm:"*" Reshape/NPU/(1,10,1,1),(2)/Reshape:y-rs OutputOperator/CPU/(1,10)/OutputOperator:y ")
        [ "$(echo "$l" | grep -o 'Reshape/' | wc -l)" = 1 ] && ok || bad "cls_head on $chip: a Reshape besides the output's: $l" ;;
        *) bad "cls_head on $chip: $l" ;; esac
done
l=$(fulltable out_reshape rk3588 fp16)
[ "$(echo "$l" | grep -o 'Reshape/' | wc -l)" = 1 ] && ok || bad "out_reshape: $l"
l=$(fulltable out_transpose rk3588 fp16)
case "$l" in *"Transpose/NPU/(1,8,16)/Transpose:"*" Reshape/NPU/(1,16,1,8),(3)/Reshape:y-rs OutputOperator/CPU/"*) ok ;; *) bad "out_transpose: $l" ;; esac
# patch embedding: on the NPU, with the cycles of the 1x1 conv over 768 channels
for cq in $CHIPS; do
    chip=${cq%%:*}; q=${cq#*:}
    a=$(layers patch16 "$chip" "$q" | tr ' ' '\n' | grep '^Conv/'); b=$(layers patch_s2d "$chip" "$q" | tr ' ' '\n' | grep '^Conv/')
    if [ -n "$a" ] && [ "$a" = "$b" ] && [ "${a#Conv/NPU/}" != "$a" ]; then ok; else bad "patch16 on $chip: $a vs $b"; fi
done
finish
