"""Seeds of tests/fuzz/fuzz_emu_cpu.c (its header gives the byte layout): the CPU
layers of the sample files in small shapes (mobilenet_v2's Reshape [1,C,1,1] ->
[1,C]; pp_human_segv2's ArgMax [1,2,H,W] -> [1,1,H,W] over axis 1, then Reshape to
[1,H,W]), a Softmax, a Sigmoid, a Concat beside an "_exSecondary" input, a Split,
and broken ones (an axis outside the rank, counts that do not add up, a zero
dimension, Gather). Run: python3 make_seeds.py (writes *.bin here)."""
import os

T = ["Reshape", "Flatten", "Squeeze", "Unsqueeze", "ArgMax", "ArgMin", "Softmax",
     "Sigmoid", "Concat", "Split", "Gather"]


def seed(name, op, axis, ins, outs, alias=0, vals=bytes(range(0, 250, 7))):
    b = bytes([0xf0 if op == "Exp" else T.index(op), (0x80 | (axis + 64)) if axis is not None else 0,
               (len(ins) - 1) | (len(outs) - 1) << 2, alias])
    for s in ins + outs:
        b += bytes([len(s)] + list(s))
    open(os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".bin"), "wb").write(b + vals)


seed("reshape_logits", "Reshape", None, [[1, 6, 1, 1], [1]], [[1, 6]])
seed("argmax_segv2", "ArgMax", 1, [[1, 2, 3, 4]], [[1, 1, 3, 4]], vals=bytes([1, 1, 2, 0] * 8))
seed("argmax_shapes", "ArgMax", None, [[1, 2, 3, 4]], [[1, 1, 3, 4]])
seed("argmin_last", "ArgMin", -1, [[2, 3, 5]], [[2, 3]])
seed("reshape_segv2", "Reshape", None, [[1, 1, 3, 4], [1]], [[1, 3, 4]])
seed("softmax_mid", "Softmax", 1, [[2, 5, 3]], [[2, 5, 3]], vals=bytes([127, 128, 0, 1]))
seed("sigmoid", "Sigmoid", None, [[3, 6]], [[3, 6]])
seed("exp", "Exp", None, [[3, 6]], [[3, 6]])  # first byte 0xf0
seed("concat_alias", "Concat", 1, [[2, 1, 3], [2, 2, 3], [2, 1, 3]], [[2, 3, 3]], alias=0b100)
seed("split_three", "Split", 2, [[2, 3, 6]], [[2, 3, 2], [2, 3, 3], [2, 3, 1]])
seed("broken_axis", "Softmax", 9, [[2, 3]], [[2, 3]])
seed("broken_concat_sum", "Concat", 0, [[1, 2], [1, 2]], [[3, 2]])
seed("broken_zero_dim", "Split", 0, [[0, 3]], [[0, 3]])
seed("broken_argmax_rank", "ArgMax", 0, [[2, 3]], [[1, 1, 1, 2, 3]])
seed("gather", "Gather", 0, [[4]], [[4]])
