"""tests/oracle/emu_lut.py FILE.rknn INSPECT.json DUMP_DIR NODE_ID

Checks an emulated conv layer whose activation is the DPU's LUT (yolov8n's
ConvExSwish / ConvSigmoid, model-1 files) against float64 swish / sigmoid.

What is taken from the file, read here with its own FlatBuffer walk: the
conv's int8 weights (at the weight's data_offset: per block of OC2 kernels,
each input-channel block's [IC1][kh][kw][OC2][IC2] bytes, weights() below),
its per-channel words (per 4 channels: 4 int32 bias with the zero-point terms
folded in, 4 int16 -zp_w, 4 int16 multipliers s_w / max(s_w) in Q14), the
input's and output's scale and zero point (tensor slots 10, 11). The input
is the emulated dump (dequantized, quantized back here). Then, per output
channel c, the accumulator acc_c (exact integers) is the conv in real units
up to one scalar: z_c = S * acc_c * mul_c / 2^14, S = s_in * max(s_w), which
the file does not store (docs/rknn-format.md). S is fitted (log-spaced search,
then refined) so that swish(z) (sigmoid(z)) matches the dequantized emulated
output; a LUT read wrongly (tables swapped, a wrong index shift or offset)
is a function no single S makes swish. The float result is clipped to the
range the output's int8 holds (the saturated largest values). Prints the fitted S, the cosine and
the largest difference in output steps over every value; exit 1 when one is
more than MAX_STEPS (argv[5], default 1.5) off or a dumped value is not finite.
"""
import json
import struct
import sys

import numpy as np

from rknn_fb import FB


def flatbuffer(path):
    """The file's bytes and {tensor name: (scale, zero point)}."""
    f = FB(path)
    quant = {f.string(t, 5): (f.first(t, 10, '<f'), f.first(t, 11, '<i'))
             for t in f.tables(f.graph(), 0)}
    return f.file, quant


def weights(raw, w):
    """[kh][kw][OC'][IC] int8 of a conv weight from its native blocks: each block
    of 6 values [OC1, IC1, kh, kw, OC2, IC2] holds IC1 x IC2 input channels
    (48 = 1 x 32 + 1 x 16); per OC1 block of OC2 kernels, every block's
    [IC1][kh][kw][OC2][IC2] bytes follow one another."""
    ns = w['native_shape']
    blocks = [ns[i: i + 6] for i in range(0, len(ns), 6)]
    ob, _, kh, kw, ocp, _ = blocks[0]
    per = sum(b[1] * kh * kw * ocp * b[5] for b in blocks)
    raw = np.frombuffer(raw, np.int8, ob * per, w['data_offset']).reshape(ob, per)
    parts, at = [], 0
    for _, ib, _, _, _, icp in blocks:
        n = ib * kh * kw * ocp * icp
        p = raw[:, at: at + n].reshape(ob, ib, kh, kw, ocp, icp)
        parts.append(p.transpose(2, 3, 0, 4, 1, 5).reshape(kh, kw, ob * ocp, ib * icp))
        at += n
    return np.concatenate(parts, axis=3)


def main():
    rknn, meta, dump, node_id = sys.argv[1:5]
    max_steps = float(sys.argv[5]) if len(sys.argv) > 5 else 1.5
    raw, quant = flatbuffer(rknn)
    d = json.load(open(meta))
    node = d['nodes'][int(node_id) - 1]
    sig = lambda z: 0.5 * (1 + np.tanh(0.5 * z))       # no overflow for large |z|
    act = {'ConvExSwish': lambda z: z * sig(z), 'ConvSigmoid': sig, 'Conv': lambda z: z}[node['op']]
    xin, w, bias = node['inputs'][:3]
    out = node['outputs'][0]
    s_in, z_in = quant[xin['name']]
    s_out, z_out = quant[out['name']]
    x = np.load(f"{dump}/{xin['name']}.npy").astype(np.float64)[0]
    q = np.clip(np.round(x / s_in) + z_in, -128, 127)                # C, H, W
    W = weights(raw, w)                                  # kh, kw, OC', IC
    kh, kw = W.shape[:2]
    oc, ic = w['shape'][0], w['shape'][1]
    words = raw[bias['data_offset']: bias['data_offset'] + bias['data_bytes']]
    G = 4
    b32, nzp, mul = [], [], []
    for c in range(oc):
        g0 = (c // G) * G * 8
        j = c % G
        b32.append(struct.unpack_from('<i', words, g0 + 4 * j)[0])
        nzp.append(struct.unpack_from('<h', words, g0 + 4 * G + 2 * j)[0])
        mul.append(struct.unpack_from('<h', words, g0 + 6 * G + 2 * j)[0])
    sy, sx = node['stride']
    pt, pl = node['pad'][:2]          # ONNX order: top, left, bottom, right
    C, H, Wd = q.shape
    _, OC, OH, OW = out['shape']
    # padding with the input's zero point (real 0), the kernel's taps gathered
    P = np.full((C, H + kh + pt, Wd + kw + pl), z_in, np.float64)
    P[:, pt: pt + H, pl: pl + Wd] = q
    acc = np.zeros((OC, OH, OW), np.float64)
    for ky in range(kh):
        for kx in range(kw):
            patch = P[:, ky: ky + sy * OH: sy, kx: kx + sx * OW: sx][:, :OH, :OW]   # C, OH, OW
            wk = W[ky, kx, :OC, :ic].astype(np.float64) + np.array(nzp, np.float64)[:, None]
            acc += np.einsum('oc,chw->ohw', wk, patch)
    acc += np.array(b32, np.float64)[:, None, None]
    pre = acc * (np.array(mul, np.float64) / 2 ** 14)[:, None, None]
    got = np.load(f"{dump}/{out['name']}.npy").astype(np.float64)[0]
    # Below its table the LUT holds its first entry (the underflow slope is 0):
    # a sigmoid's smallest outputs sit at sigmoid(table start), not at the
    # float's ~0. Those floor values (ConvSigmoid: the output's minimum) only
    # have to lie above the float result (checked below), and S is fitted on a
    # sample of the others (yolov8n's class scores on a photo: mostly floor)
    floor = (got == got.min()) if node['op'] == 'ConvSigmoid' else np.zeros(got.shape, bool)
    cand_idx = np.flatnonzero(~floor.ravel())
    idx = np.random.default_rng(0).choice(cand_idx, min(cand_idx.size, 20000), replace=False)
    ps, gs = pre.ravel()[idx], got.ravel()[idx]
    lo, hi = s_out * (-128 - z_out), s_out * (127 - z_out)   # what int8 can hold
    fq = lambda z: np.clip(act(z), lo, hi)
    steps = lambda S: np.abs(fq(ps * S) - gs).max() / s_out
    # S: coarse log search, then a finer one around the best
    cand = np.exp(np.linspace(np.log(1e-7), np.log(1e-1), 600))
    best = min(cand, key=steps)
    for _ in range(3):
        cand = np.linspace(best * 0.97, best * 1.03, 301)
        best = min(cand, key=steps)
    f = fq(pre * best)
    cos = float((f * got)[~floor].sum() / (np.linalg.norm(f[~floor]) * np.linalg.norm(got[~floor])))
    err = np.where(floor, np.maximum(f - got, 0), np.abs(f - got)) / s_out
    worst = err.max()
    if len(sys.argv) > 6:   # debugging: where the largest differences are
        k = np.argsort(err.ravel())[-5:]
        print(np.c_[(pre * best).ravel()[k], f.ravel()[k], got.ravel()[k], err.ravel()[k]], (err > 1).sum())
    print(f"node {node_id} {node['op']} {node['name']}: S {best:.6g}, cosine {cos:.6f}, "
          f"at most {worst:.2f} output steps off ({OC}x{OH}x{OW}"
          + (f", {floor.sum()} at the LUT's floor)" if floor.any() else ")"))
    sys.exit(0 if worst <= max_steps and np.isfinite(got).all() else 1)


if __name__ == '__main__':
    main()
