"""Per-layer oracle of the int8 arithmetic of an RV1103/RV1106 conv task, in
numpy, from the source ONNX and a Toolkit2-layout cfg of activation scales
(tests/oracle/rknn_qcfg.py): each Conv [+ LeakyRelu/Relu] of the ONNX is
recomputed from the dumped input of a run (its int8 values) and compared, as
integers, with the dumped output.

The arithmetic (docs/rknn-format.md "Execution on RV110x"):
  weights  per output channel, range widened to 0, s_w = (max - min) / 255,
           zp_w = round(-128 - min / s_w), q_w = clip(round(w / s_w) + zp_w),
           w / s_w in float32 rounded half to even
  acc      = sum (x - zp_in)(q_w - zp_w) + round(b / (s_in s_w))   exact
  mode npu:   mul = round(s_w / max s_w * 2^14) (float32, halves to even),
              OUT in [2^14, 2^15) with
              OUT / 2^shift = s_in max s_w / s_out / 2^14;
              v = acc * mul, LeakyRelu slope round(alpha 2^14) / 2^14,
              y = round(v * OUT / 2^shift) (a plain Conv rounds v / 2^14 first)
  mode exact: y = round(acc * s_in s_w / s_out), the activation in float
  q = clip(y + zp_out)

usage: npu_requant.py MODEL.onnx DUMPDIR CFG npu|exact MIN_EXACT
DUMPDIR: a `run --dump` of an emulated .rknn (TENSOR.npy) or a `--dump-quant`
of a simulation (NNNN_OP__TENSOR.npy). A layer fails when less than MIN_EXACT
of its values are equal or one is more than one step off; prints one line per
layer and the smallest share."""
import glob
import math
import os
import re
import sys

import numpy as np

from emu_layers import conv, load


def cfg_scales(path):
    pat = re.compile(r"    '([^']+)':\n(?:        .*\n)*?        scale:\n        - ([^\n]+)\n"
                     r"        zero_point:\n        - ([^\n]+)\n")
    return {m.group(1): (float(m.group(2)), int(m.group(3)))
            for m in pat.finditer(open(path).read())}


def finder(dump):
    files = {}
    for p in glob.glob(os.path.join(dump, '*.npy')):
        b = os.path.basename(p)[:-4]
        if re.match(r'[0-9]{4}_[A-Za-z]+_', b):  # NNNN_OP_TENSOR
            b = b.split('_', 2)[2]
        files[b] = p
    return lambda name: files.get(name.replace('/', '_').replace(':', '_'))


def weight_grid(w):
    rows = w.reshape(w.shape[0], -1)
    lo = np.minimum(rows.min(axis=1), 0)
    hi = np.maximum(rows.max(axis=1), 0)
    sw = np.where(hi > lo, ((hi - lo) / 255).astype(np.float32).astype(np.float64), 1.0)
    zw = np.clip(np.floor(-128 - lo / sw + 0.5), -128, 127)
    shape = (-1,) + (1,) * (w.ndim - 1)
    # w / s in float32, halves to even (16.5 -> 16: stage3.1.0 channel 81)
    r = (w.astype(np.float32) / sw.astype(np.float32).reshape(shape)).astype(np.float64)
    q = np.clip(np.round(r) + zw.reshape(shape), -128, 127)
    return q - zw.reshape(shape), sw


def layer(n, act, x, s_in, z_in, w, b, s_out, mode):
    qw, sw = weight_grid(w)
    acc = conv(np.round(x / s_in), qw, np.floor(b / (s_in * sw) + 0.5), n['attr'])
    if mode == 'exact':
        v = acc * (s_in * sw / s_out).reshape(-1, 1, 1)
        if act is not None:
            v = np.where(v < 0, v * act, v)
        return np.floor(v + 0.5)
    mmax = s_in * sw.max() / s_out
    # in float32, halves to even: 8858.5 -> 8858 (stage3.1.3, channel 245)
    f = np.float32
    mul = np.round(sw.astype(f) / f(sw.max()) * f(2 ** 14)).astype(np.float64).reshape(-1, 1, 1)
    shift = 0
    while mmax / 2 ** 14 * 2 ** shift < 2 ** 14:
        shift += 1
    out = math.floor(mmax / 2 ** 14 * 2 ** shift + 0.5)
    if act is None:
        v = np.floor(acc * mul / 2 ** 14 + 0.5)
        return np.floor(v * out / 2 ** (shift - 14) + 0.5)
    v = acc * mul
    v = np.where(v < 0, np.floor(v * math.floor(act * 2 ** 14 + 0.5) / 2 ** 14 + 0.5), v)
    return np.floor(v * out / 2 ** shift + 0.5)


def main():
    onnx, dump, cfg, mode, min_exact = sys.argv[1:6]
    min_exact = float(min_exact)
    inits, nodes = load(onnx)
    sc, path = cfg_scales(cfg), finder(dump)
    users = {}
    for n in nodes:
        for i in n['in']:
            users.setdefault(i, []).append(n)
    worst, bad, layers = 1.0, [], 0
    for n in nodes:
        if n['op'] != 'Conv' or path(n['in'][0]) is None or n['in'][0] not in sc:
            continue
        out, act = n['out'][0], None
        nxt = users.get(out, [])
        if len(nxt) == 1 and nxt[0]['op'] in ('LeakyRelu', 'Relu'):
            act = nxt[0]['attr'].get('alpha', 0.01) if nxt[0]['op'] == 'LeakyRelu' else 0.0
            out = nxt[0]['out'][0]
        if path(out) is None or out not in sc:
            continue
        (s_in, z_in), (s_out, z_out) = sc[n['in'][0]], sc[out]
        x = np.load(path(n['in'][0]))[0].astype(np.float64)
        w = inits[n['in'][1]]
        b = inits[n['in'][2]] if len(n['in']) > 2 else np.zeros(w.shape[0])
        want = np.clip(layer(n, act, x, s_in, z_in, w, b, s_out, mode) + z_out, -128, 127)
        got = np.round(np.load(path(out))[0].astype(np.float64) / s_out) + z_out
        d = np.abs(got.reshape(want.shape) - want)
        share = float(np.mean(d == 0))
        worst = min(worst, share)
        layers += 1
        print(f"{share:.6f} max {d.max():.0f} {out}")
        if share < min_exact or d.max() > 1:
            bad.append(out)
    print(f"{layers} layers, smallest share {worst:.6f}" + (f"; below {min_exact}: {' '.join(bad)}" if bad else ''))
    sys.exit(1 if bad or not layers else 0)


if __name__ == '__main__':
    main()
