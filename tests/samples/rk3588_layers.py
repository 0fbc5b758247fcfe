"""tests/samples/rk3588_layers.py FILE.rknn INSPECT.json DUMP_DIR [MAX_STEPS]

Per-layer oracle for an rk3588 Toolkit2 file run by `run --emulate --dump`:
every Conv, ConvAdd, ConvAddRelu, ConvRelu and ConvClip node (dense or depthwise) whose input and
output the emulator dumped is recomputed in float64 from the dumped input and
the file's own weights and quantization, then compared with the dumped output
in output steps.

Read here, not through the emulator: the int8 weights at the weight's
data_offset in their native blocks (dense: per output block of OC1 x OC2
kernels, each OC1 block's input blocks [IC1][kh][kw][OC2][IC2] in turn;
depthwise: blocks [1, IC1, kh, kw, 1, IC2] laid out [IC1][kh][kw][IC2], IC1 0
allowed), the per-channel words (per 8 channels: 8 int32 bias with
-zp_in * sum(q - zp_w) folded in, 8 int16 -zp_w, 8 int16 multipliers
s_w / max(s_w) in Q14), the tensors' scales and zero points (inspect's JSON,
the graph's own). Per output channel c, in real units:

    w   = (q - zp_w) * s_w             s_w = M * mul_c / 2^14
    b   = (bias32 + zp_in * sum(q - zp_w)) * s_in * s_w
    z   = conv(x, w) + b,   x the dequantized dumped input (pads: real 0)
    y   = z, z + e, max(z + e, 0), max(z, 0) or min(max(z, 0), 6) (Conv, ConvAdd
          with its second input e dequantized, ConvAddRelu, ConvRelu, ConvClip)
    q   = sat8(round(y / s_out) + zp_out)

The file keeps no weight scale, so M = max(s_w) is fitted per layer (least
squares over the values neither clamp nor saturation reaches; a single scalar,
which no decoding error of a tap, channel, tile or pad can absorb). A layer
fails when a value is more than MAX_STEPS (default 1) output steps off.
Prints one line per layer; exit 1 when one fails or none was checked."""
import json
import os
import re
import struct
import sys

import numpy as np

G = 8  # channels per group of per-channel words on rk3588


def blocks6(ns):
    return [ns[i: i + 6] for i in range(0, len(ns), 6)]


def dense_weights(raw, w, oc, ic, kh, kw):
    """[OC][IC][kh][kw] int8 from the native blocks."""
    bl = blocks6(w['native_shape'])
    n = 1
    while n < len(bl) and bl[n][0] == bl[0][0] and bl[n][4] == bl[0][4]:
        n += 1
    ins = bl[:n]
    outs = [bl[j] for j in range(0, len(bl), n)]
    out = np.zeros((sum(o[0] * o[4] for o in outs), sum(b[1] * b[5] for b in ins), kh, kw), np.int64)
    at, k0 = w['data_offset'], 0
    for o in outs:
        ob, ocp = o[0], o[4]
        for o1 in range(ob):
            c0 = 0
            for b in ins:
                ib, icp = b[1], b[5]
                cnt = ib * kh * kw * ocp * icp
                a = np.frombuffer(raw, np.int8, cnt, at).reshape(ib, kh, kw, ocp, icp)
                out[k0 + o1 * ocp: k0 + (o1 + 1) * ocp, c0: c0 + ib * icp] = \
                    a.transpose(3, 0, 4, 1, 2).reshape(ocp, ib * icp, kh, kw)
                at += cnt
                c0 += ib * icp
        k0 += ob * ocp
    return out[:oc, :ic]


def dw_weights(raw, w, c, kh, kw):
    """[C][kh][kw] int8 of a depthwise weight."""
    out, at = [], w['data_offset']
    for b in blocks6(w['native_shape']):
        ib, icp = b[1], b[5]
        if b[0] != 1 or b[4] != 1 or b[2] != kh or b[3] != kw:
            raise ValueError(f"depthwise block {b}")
        cnt = ib * kh * kw * icp
        a = np.frombuffer(raw, np.int8, cnt, at).reshape(ib, kh, kw, icp)
        out.append(a.transpose(0, 3, 1, 2).reshape(ib * icp, kh, kw).astype(np.int64))
        at += cnt
    return np.concatenate(out)[:c]


def words(raw, bias, oc):
    b32, nzp, mul = [], [], []
    for c in range(oc):
        g0 = bias['data_offset'] + (c // G) * G * 8
        j = c % G
        b32.append(struct.unpack_from('<i', raw, g0 + 4 * j)[0])
        nzp.append(struct.unpack_from('<h', raw, g0 + 4 * G + 2 * j)[0])
        mul.append(struct.unpack_from('<h', raw, g0 + 6 * G + 2 * j)[0])
    return np.array(b32, np.float64), np.array(nzp, np.int64), np.array(mul, np.float64)


def npy(dump, name):
    """A dumped tensor's file: the name with all but [A-Za-z0-9._-] as '_'."""
    return os.path.join(dump, re.sub(r'[^A-Za-z0-9._-]', '_', name) + '.npy')


LUT_ACTS = {'ConvExSwish': lambda z: z / (1 + np.exp(-np.clip(z, -700, 700))),
            'ConvSigmoid': lambda z: 1 / (1 + np.exp(-np.clip(z, -700, 700)))}


def reduce_sum(raw, node, dump):
    """The compiler's ReduceSum over the channels as a ConvClip of one kernel whose
    weights are all 127 (read with DPU_BS_OW_OP's +128 as 255, docs/rknn-format.md),
    then Clip(0, 1) (the model zoo's yolov10 export: its score_sum output): the
    channel sum of the dequantized dumped input, clipped, quantized."""
    xin, w = node['inputs'][:2]
    out = node['outputs'][0]
    x = np.load(npy(dump, xin['name'])).astype(np.float64)[0]
    got = np.load(npy(dump, out['name'])).astype(np.float64)[0]
    C = x.shape[0]
    q = dense_weights(raw, w, 1, C, 1, 1)
    if not (q[0] == 127).all():
        return None
    s_out, z_out = out['scale'], out['zero_point']
    y = np.clip(x.sum(0, keepdims=True), 0, 1)
    ymin, ymax = s_out * (-128 - z_out), s_out * (127 - z_out)
    qg = np.round(got / s_out) + z_out
    return finish(y, got, qg, s_out, z_out, ymin, ymax, 1.0, False, got.shape)


def layer(raw, node, dump):
    if 'ReduceSum' in node['name'] and node['op'] == 'ConvClip':
        r = reduce_sum(raw, node, dump)
        if r is not None:
            return r
    xin, w, bias = node['inputs'][:3]
    out = node['outputs'][0]
    x = np.load(npy(dump, xin['name'])).astype(np.float64)[0]
    got = np.load(npy(dump, out['name'])).astype(np.float64)[0]
    s_in, z_in = xin['scale'], xin['zero_point']
    s_out, z_out = out['scale'], out['zero_point']
    C, H, Wd = x.shape
    OC, OH, OW = got.shape
    kh, kw = node['kernel']
    sy, sx = node['stride']
    pt, pl = node['pad'][:2]
    ws = w['shape']
    dw = ws[0] == 1 and ws[1] == C and OC == C and C > 1
    b32, nzp, mul = words(raw, bias, OC)
    q = dw_weights(raw, w, C, kh, kw) if dw else dense_weights(raw, w, OC, C, kh, kw)
    qw = q + (nzp[:, None, None] if dw else nzp[:, None, None, None])     # q - zp_w
    B = b32 + z_in * qw.reshape(OC, -1).sum(1)
    P = np.zeros((C, H + kh + pt, Wd + kw + pl))                         # real 0 outside
    P[:, pt: pt + H, pl: pl + Wd] = x
    acc = np.zeros((OC, OH, OW))
    for ky in range(kh):
        for kx in range(kw):
            patch = P[:, ky: ky + sy * OH: sy, kx: kx + sx * OW: sx][:, :OH, :OW]
            if dw:
                acc += qw[:, ky, kx, None, None] * patch
            else:
                acc += np.einsum('oc,chw->ohw', qw[:, :, ky, kx].astype(np.float64), patch)
    u = (acc + B[:, None, None] * s_in) * (mul / 2 ** 14)[:, None, None]   # z / M
    op = node['op']
    # ConvAdd: the second activation input (dequantized dump) added to z
    e = np.load(npy(dump, node['inputs'][3]['name'])).astype(np.float64)[0] \
        if op in ('ConvAdd', 'ConvAddRelu') else 0.0
    ymin, ymax = s_out * (-128 - z_out), s_out * (127 - z_out)
    qg = np.round(got / s_out) + z_out
    if op in LUT_ACTS:
        # the DPU LUT's activation: M fitted by a log-spaced search, then refined, on
        # the values saturation does not reach
        f = LUT_ACTS[op]
        # a sigmoid's table ends at its first entry (the underflow slope 0): the values
        # at the output's minimum are that floor, checked only for not lying below the
        # float (as tests/oracle/emu_lut.py does for yolov8n)
        floor = (got == got.min()) if op == 'ConvSigmoid' else np.zeros(got.shape, bool)
        inner = (qg > -128) & (qg < 127) & ~floor
        ui, gi = u[inner], got[inner]
        if ui.size > 20000:  # the fit on a fixed sample of them
            pick = np.random.default_rng(0).choice(ui.size, 20000, replace=False)
            ui, gi = ui[pick], gi[pick]
        err2 = lambda M: float(((f(ui * M) - gi) ** 2).sum())
        grid = np.exp(np.linspace(np.log(1e-6), np.log(10.0), 400))
        M = float(grid[np.argmin([err2(g) for g in grid])])
        for r in (1.02, 1.002, 1.0002, 1.00002):
            for _ in range(40):
                M = min((M / r, M, M * r), key=err2)
        y = f(u * M)
        if floor.any():
            y = np.where(floor & (y < got), got, y)
        return finish(y, got, qg, s_out, z_out, ymin, ymax, M, dw, (OC, OH, OW))
    lo_hi = {'Conv': (-np.inf, np.inf), 'ConvAdd': (-np.inf, np.inf), 'ConvRelu': (0, np.inf),
             'ConvAddRelu': (0, np.inf), 'ConvClip': (0, 6.0)}[op]
    inner = (qg > -128) & (qg < 127) & (got > lo_hi[0] + s_out) & (got < lo_hi[1] - s_out)
    ge = (got - e)[inner] if op in ('ConvAdd', 'ConvAddRelu') else got[inner]
    M = float((u[inner] * ge).sum() / (u[inner] ** 2).sum()) if inner.any() else 0.0
    y = np.clip(u * M + e, lo_hi[0], lo_hi[1])
    return finish(y, got, qg, s_out, z_out, ymin, ymax, M, dw, (OC, OH, OW))


def finish(y, got, qg, s_out, z_out, ymin, ymax, M, dw, shape):
    qr = np.clip(np.round(y / s_out) + z_out, -128, 127)
    err = np.abs(qr - qg)
    cos = float((np.clip(y, ymin, ymax) * got).sum() /
                (np.linalg.norm(np.clip(y, ymin, ymax)) * np.linalg.norm(got) + 1e-30))
    return dw, M, cos, float(err.max()), float((err > 0).mean()), shape


def main():
    rknn, meta, dump = sys.argv[1:4]
    bound = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
    raw = open(rknn, 'rb').read()
    d = json.load(open(meta))
    done = {t['tensor'] for t in json.load(open(os.path.join(dump, 'tasks.json')))}
    n = bad = 0
    for node in d['nodes']:
        if node['op'] not in ('Conv', 'ConvAdd', 'ConvAddRelu', 'ConvRelu', 'ConvClip', *LUT_ACTS) or \
                node['target'] != 'NPU' or \
                len(node['inputs']) < 3 or node['outputs'][0]['name'] not in done or \
                not os.path.exists(npy(dump, node['inputs'][0]['name'])):
            continue
        dw, M, cos, worst, share, shape = layer(raw, node, dump)
        n += 1
        ok = worst <= bound and M > 0
        bad += not ok
        print(f"node {node['id']} {node['op']}{' depthwise' if dw else ''} {node['name']} "
              f"{'x'.join(map(str, shape))}: max(s_w) {M:.4g}, cosine {cos:.6f}, at most "
              f"{worst:.0f} output steps off ({100 * share:.2f} % not equal){'' if ok else '  FAIL'}")
    print(f"{n - bad} of {n} layers within {bound:g} output step")
    sys.exit(0 if n and not bad else 1)


if __name__ == '__main__':
    main()
