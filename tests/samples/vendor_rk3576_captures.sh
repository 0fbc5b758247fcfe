#!/usr/bin/env bash
# tests/samples/vendor_rk3576_captures.sh DIR [BUILD] — RK3576 vendor files of single
# ops through the emulator: DIR is tests/data/rk3576-vendor-capture of
# github.com/gregordinary/rocket-userspace (GPL-3.0-or-later: the files stay out of
# this tree, so this check runs where a checkout is, not in `make test`). Each file
# was compiled by RKNN-Toolkit2 for rk3576 from an ONNX its mk*.py writes with
# weights from a formula; that formula, in numpy, is the oracle:
#   float/f16_*    (mkfloat.py) a float16 Conv, weights (i % 7 - 3) / 8, bias (oc + 1) / 4
#   argb/argbf_*   (mkargb.py)  a float16 first Conv over a 1..4-channel image, weights
#                  i - n/2 (0 replaced by n), bias (oc + 1) / 4, k 1..7, stride 1 or 2
#   lut/ctl_conv_f16 (mklut.py) a float16 3x3 Conv, weights (i % 11 - 5) / 16, bias (oc + 1) / 8
#   lut/ctl_conv_i8, pool/ctl_conv_c32_16: the same Conv, int8; lut/conv_<act>_i8 and
#                  _f16 with an activation after it (Relu, Clip(0, 6), LeakyRelu 0.1,
#                  Sigmoid, Tanh, x Sigmoid(x), HardSigmoid, x HardSigmoid(x), Elu,
#                  Softplus, x Tanh(Softplus(x)); Sqrt(Abs(x)): its Abs, then a stop)
#   dw/dw_* (mkdw.py): an int8 depthwise Conv, weights (i % 7 - 3) / 8, bias (c + 1) / 4
#   pool/max_*, gmp_*, bare_max_*, gap_*, bare_gap_*, avg_*, bare_avg_* (mkpool.py): MaxPool,
#                  GlobalMaxPool, GlobalAveragePool, AveragePool after the 3x3 conv carrier
#                  above (of C channels), or alone
#   add/ctl_conv_c32_16, res_*, add2_*, bcast_add_* (mkadd.py): an int8 3x3 Conv
#                  (weights ((i + seed) % 11 - 5) / 16, bias ((oc + seed) % 7 + 1) / 8,
#                  seed the length of its tag), alone, + its input, + a second Conv,
#                  + a per-channel constant
# Float files: every output within two float16 steps of the float64 result on the same
# float16 input. Int8 files, on inputs over their calibration range: against the
# float64 ONNX on the input as the NPU saw it (the run's dequantized input dump) with
# the weights rounded as Toolkit2 rounds them to int8, held to the output's int8
# range, within two output steps and a cosine >= 0.9995. The LUT activations are held
# to that inside the window their tables cover; outside it an output must lie between
# the function and its value at the window's end (below).
# The activations alone (lut/bare_*_i8) and the Add and Sub of two inputs (add/bare_add,
# asym_add, sub, subrev): DPU-only tasks, held as the others (below).
# The Mul and the Add of a constant after a conv, the inverted residual block: each
# tensor against its formula on the tensors before it. Files of other families (gelu,
# exp) must stop with one line, as they are not emulated yet. Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
DIR=${1:?usage: vendor_rk3576_captures.sh ROCKET_USERSPACE/tests/data/rk3576-vendor-capture [BUILD]}
B=${2:-${BUILD:-build}}
PY=${PYTHON:-/usr/bin/python3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
$PY - "$DIR" "$B/rknn-trace" "$T" <<'EOF'
import json, os, re, subprocess, sys
import numpy as np
src, rt, tmp = sys.argv[1:4]
passed = failed = 0


def conv(x, w, b, stride=1):
    k = w.shape[2]
    p = k // 2
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    oh = (x.shape[2] + 2 * p - k) // stride + 1
    ow = (x.shape[3] + 2 * p - k) // stride + 1
    y = np.zeros((1, w.shape[0], oh, ow)) + b.reshape(1, -1, 1, 1)
    for ky in range(k):
        for kx in range(k):
            win = xp[:, :, ky:ky + stride * (oh - 1) + 1:stride, kx:kx + stride * (ow - 1) + 1:stride]
            y += np.einsum('oc,nchw->nohw', w[:, :, ky, kx], win)
    return y


def run(path, x, name='x'):
    """x: the input name's array, or a dict of them by input name"""
    args = []
    for k, v in (x.items() if isinstance(x, dict) else ((name, x),)):
        np.save(f'{tmp}/in_{k}.npy', v)
        args += ['-i', f'{k}={tmp}/in_{k}.npy']
    d = f'{tmp}/d_{os.path.basename(path)}'
    r = subprocess.run([rt, 'run', path, '--emulate', '--no-db'] + args + ['--dump', d],
                       capture_output=True, text=True)
    return r, d


def report(ok, f, msg):
    global passed, failed
    passed += ok
    failed += not ok
    print(('ok   ' if ok else 'FAIL ') + f + ': ' + msg)


def check_float(f, x, ref):
    r, d = run(f'{src}/{f}', x)
    if r.returncode:
        return report(False, f, r.stderr.strip()[-240:])
    y = np.load(f'{d}/y.npy').astype(np.float64)
    step = np.abs(ref).max() * 2.0 ** -10          # a float16 step at the largest output
    err = np.abs(y - ref).max() if y.shape == ref.shape else np.inf
    report(err <= 2 * step, f, f'max |err| {err:.5g} (a float16 step {step:.5g})')


def check_int8(f, x, model):
    r, d = run(f'{src}/{f}', x)
    if r.returncode:
        return report(False, f, r.stderr.strip()[-240:])
    # the input(s) as quantized for the NPU
    xq = {k: np.load(f'{d}/{k}.npy').astype(np.float64) for k in x} if isinstance(x, dict) \
        else np.load(f'{d}/x.npy').astype(np.float64)
    y = np.load(f'{d}/y.npy').astype(np.float64)
    info = json.loads(subprocess.run([rt, 'inspect', f'{src}/{f}', '--json'], capture_output=True,
                                     text=True).stdout)
    q = next(o for o in info['outputs'] if o['name'] == 'y')
    step = q['scale']
    # held to the output's int8 range, as the file's calibration set it
    ref = np.clip(model(xq), (-128 - q['zero_point']) * step, (127 - q['zero_point']) * step)
    err = np.abs(y - ref).max() if y.shape == ref.shape else np.inf
    cos = (y * ref).sum() / np.linalg.norm(y) / np.linalg.norm(ref) if y.shape == ref.shape else 0
    report(err <= 2 * step and cos >= 0.9995, f,
           f'max |err| {err / step:.2f} output steps, cosine {cos:.6f}')


rng = np.random.default_rng(7)
f16 = lambda a: a.astype(np.float16).astype(np.float32)

for f in sorted(os.listdir(f'{src}/float')):
    m = re.fullmatch(r'f16_ic(\d+)_oc(\d+)_k(\d+)_(\d+)\.rknn', f)
    if m:
        ic, oc, k, hw = map(int, m.groups())
        x = f16(rng.uniform(-1, 1, (1, ic, hw, hw)))
        w = ((np.arange(oc * ic * k * k) % 7 - 3) / 8.0).reshape(oc, ic, k, k)
        check_float('float/' + f, x, conv(x.astype(np.float64), w, (np.arange(oc) + 1) / 4.0))

ARGB = {  # mkargb.py's CASES: ic, oc, k, ih, iw, stride
    'argbf_ic3_oc16_k3_32': (3, 16, 3, 32, 32, 1), 'argbf_ic3_oc32_k3_32': (3, 32, 3, 32, 32, 1),
    'argbf_ic3_oc16_k1_32': (3, 16, 1, 32, 32, 1), 'argbf_ic3_oc16_k5_32': (3, 16, 5, 32, 32, 1),
    'argbf_ic4_oc16_k3_32': (4, 16, 3, 32, 32, 1), 'argbf_ic3_oc16_k3_16w': (3, 16, 3, 32, 16, 1),
    'argbf_ic3_oc16_k3_64w': (3, 16, 3, 32, 64, 1), 'argbf_ic3_oc16_k3_r48': (3, 16, 3, 48, 32, 1),
    'argbf_ic3_oc16_k3_r16': (3, 16, 3, 16, 32, 1), 'argbf_ic3_oc16_k3_s2': (3, 16, 3, 32, 32, 2),
    'argbf_ic3_oc16_k1_s2': (3, 16, 1, 32, 32, 2), 'argbf_ic3_oc64_k3_32': (3, 64, 3, 32, 32, 1),
    'argbf_ic3_oc48_k3_32': (3, 48, 3, 32, 32, 1), 'argbf_ic3_oc16_k7_32': (3, 16, 7, 32, 32, 1),
    'argbf_ic1_oc16_k3_32': (1, 16, 3, 32, 32, 1)}
for tag, (ic, oc, k, ih, iw, s) in ARGB.items():
    if not os.path.exists(f'{src}/argb/{tag}.rknn'):
        continue
    n = oc * ic * k * k
    w = np.arange(n, dtype=np.float64) - n // 2
    w[w == 0] = n
    x = f16(rng.uniform(-1, 1, (1, ic, ih, iw)))
    check_float(f'argb/{tag}.rknn', x, conv(x.astype(np.float64), w.reshape(oc, ic, k, k),
                                            (np.arange(oc) + 1) / 4.0, s))

def wq(w):
    """Weights as Toolkit2 quantizes them for int8 (per output channel, asymmetric, the
    range widened to 0: tests/oracle/npu_requant.py), so that the int8 checks measure
    the NPU's arithmetic and not the weights' rounding."""
    r = w.reshape(w.shape[0], -1)
    lo, hi = np.minimum(r.min(1), 0), np.maximum(r.max(1), 0)
    s = np.where(hi > lo, ((hi - lo) / 255).astype(np.float32).astype(np.float64), 1.0)
    z = np.clip(np.floor(-128 - lo / s + 0.5), -128, 127)
    q = np.clip(np.round((r / s[:, None]).astype(np.float32)) + z[:, None], -128, 127)
    return ((q - z[:, None]) * s[:, None]).reshape(w.shape)


C = 32
w_lut = ((np.arange(C * C * 9) % 11 - 5) / 16.0).reshape(C, C, 3, 3)
w_lut_q = wq(w_lut)
b_lut = (np.arange(C) + 1) / 8.0
x = f16(rng.uniform(-1, 1, (1, C, 16, 16)))
check_float('lut/ctl_conv_f16.rknn', x, conv(x.astype(np.float64), w_lut, b_lut))
# each over its calibration range (mklut.py: uniform -8..8; mkpool.py, mkadd.py: -1..1);
# mklut.py's Relu and Clip(0, 6) after the same conv
for f, amp, act in (('lut/ctl_conv_i8.rknn', 8, lambda v: v), ('pool/ctl_conv_c32_16.rknn', 1, lambda v: v),
                    ('lut/conv_relu_i8.rknn', 8, lambda v: np.maximum(v, 0)),
                    ('lut/conv_relu6_i8.rknn', 8, lambda v: np.clip(v, 0, 6))):
    check_int8(f, rng.uniform(-amp, amp, (1, C, 16, 16)).astype(np.float32),
               lambda xq: act(conv(xq, w_lut_q, b_lut)))


def wa(c, seed):  # mkadd.py's _w and _b
    return wq((((np.arange(c * c * 9) + seed) % 11 - 5) / 16.0).reshape(c, c, 3, 3)), \
           ((np.arange(c) + seed) % 7 + 1) / 8.0


ADD = {'ctl_conv_c32_16': (32, (16, 16), 'none'), 'res_c32_16': (32, (16, 16), 'res'),
       'add2_c32_16': (32, (16, 16), 'add2'), 'res_c16_16': (16, (16, 16), 'res'),
       'res_c24_16': (24, (16, 16), 'res'), 'res_c64_16': (64, (16, 16), 'res'),
       'res_c96_16': (96, (16, 16), 'res'), 'res_c32_28': (32, (28, 28), 'res'),
       'res_c32_15x18': (32, (15, 18), 'res'), 'bcast_add_c32_16': (32, (16, 16), 'addbcast')}
for tag, (c, (ih, iw), mode) in ADD.items():
    if not os.path.exists(f'{src}/add/{tag}.rknn'):
        continue
    wA, bA = wa(c, 1)
    wB, bB = wa(c, 2)
    kb = np.linspace(-0.5, 0.5, c, dtype=np.float32).astype(np.float64).reshape(1, c, 1, 1)
    model = {'none': lambda xq: conv(xq, wA, bA),
             'res': lambda xq: conv(xq, wA, bA) + xq,
             'add2': lambda xq: conv(xq, wA, bA) + conv(xq, wB, bB),
             'addbcast': lambda xq: conv(xq, wA, bA) + kb}[mode]
    check_int8(f'add/{tag}.rknn', rng.uniform(-1, 1, (1, c, ih, iw)).astype(np.float32), model)

# mkdw.py: depthwise Conv (group C), weights (i % 7 - 3) / 8 per (channel, tap), bias
# (c + 1) / 4, int8 per channel, calibrated on -1..1
DW = {'dw_c8_k3_s1_16': (8, 3, 1, (16, 16)), 'dw_c16_k3_s1_16': (16, 3, 1, (16, 16)),
      'dw_c24_k3_s1_16': (24, 3, 1, (16, 16)), 'dw_c32_k3_s1_16': (32, 3, 1, (16, 16)),
      'dw_c32_k3_s2_16': (32, 3, 2, (16, 16)), 'dw_c32_k1_s1_16': (32, 1, 1, (16, 16)),
      'dw_c32_k5_s1_16': (32, 5, 1, (16, 16)), 'dw_c32_k7_s1_16': (32, 7, 1, (16, 16)),
      'dw_c32_k3_s1_19': (32, 3, 1, (19, 19)), 'dw_c32_k3_s1_17x19': (32, 3, 1, (17, 19)),
      'dw_c32_k3_s1_15x18': (32, 3, 1, (15, 18)), 'dw_c48_k3_s1_16': (48, 3, 1, (16, 16)),
      'dw_c64_k3_s1_16': (64, 3, 1, (16, 16)), 'dw_c80_k3_s1_16': (80, 3, 1, (16, 16)),
      'dw_c112_k3_s1_16': (112, 3, 1, (16, 16)), 'dw_c176_k3_s1_16': (176, 3, 1, (16, 16)),
      'dw_c256_k3_s1_16': (256, 3, 1, (16, 16))}


def dwconv(x, w, b, stride):
    c, k = w.shape[0], w.shape[2]
    p = k // 2
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    oh = (x.shape[2] + 2 * p - k) // stride + 1
    ow = (x.shape[3] + 2 * p - k) // stride + 1
    y = np.zeros((1, c, oh, ow)) + b.reshape(1, -1, 1, 1)
    for ky in range(k):
        for kx in range(k):
            win = xp[:, :, ky:ky + stride * (oh - 1) + 1:stride, kx:kx + stride * (ow - 1) + 1:stride]
            y += w[:, 0, ky, kx].reshape(1, -1, 1, 1) * win
    return y


for tag, (c, k, st, (ih, iw)) in DW.items():
    if not os.path.exists(f'{src}/dw/{tag}.rknn'):
        continue
    w = wq(((np.arange(c * k * k) % 7 - 3) / 8.0).reshape(c, 1, k, k))
    check_int8(f'dw/{tag}.rknn', rng.uniform(-1, 1, (1, c, ih, iw)).astype(np.float32),
               lambda xq: dwconv(xq, w, (np.arange(c) + 1) / 4.0, st))

# mkpool.py's GlobalAveragePool, alone and after the 3x3 conv above, which the
# compiler lowers to two depthwise convs (7x7 stride 7 with pads 2 and 3, then 3x3):
# the bare one's input at half its calibration range, so that the partial sums stay
# inside the range the calibration gave the tensor between them (at the full range
# they saturate there, as they would on a board)
for f, amp, model in (('pool/bare_gap_c32_16.rknn', 0.5, lambda xq: xq.mean(axis=(2, 3), keepdims=True)),
                      ('pool/gap_c32_16.rknn', 1,
                       lambda xq: conv(xq, w_lut_q, b_lut).mean(axis=(2, 3), keepdims=True))):
    check_int8(f, rng.uniform(-amp, amp, (1, C, 16, 16)).astype(np.float32), model)
GAP = ('bare_gap_c32_16.rknn', 'gap_c32_16.rknn')


def maxpool(x, k, st, pad):
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=-np.inf)
    oh = (x.shape[2] + 2 * pad - k) // st + 1
    ow = (x.shape[3] + 2 * pad - k) // st + 1
    return np.max([xp[:, :, ky:ky + st * (oh - 1) + 1:st, kx:kx + st * (ow - 1) + 1:st]
                   for ky in range(k) for kx in range(k)], axis=0)


# mkpool.py's MaxPools (SAME pads k // 2, else none), after its conv carrier of C
# channels, and one alone; GlobalMaxPool after the carrier (two tiles of max pools).
# 48 channels: the carrier's weight in two blocks of kernels (32 and 16), each with
# both input blocks (docs/rknn-format.md "Weights in several input-channel blocks").
# 8 channels: the PPU pools 16 lanes, the 8 past the tensor's channels padding
MAXP = {'max_c32_k2s2_16': (32, 16, 16, 2, 2, 0), 'max_c32_k3s1_16': (32, 16, 16, 3, 1, 1),
        'max_c32_k5s1_16': (32, 16, 16, 5, 1, 2), 'max_c32_k7s1_16': (32, 16, 16, 7, 1, 3),
        'max_c32_k3s3_15': (32, 15, 15, 3, 3, 0), 'max_c32_k2s2_15x18': (32, 15, 18, 2, 2, 0),
        'max_c32_k2s2_17x19': (32, 17, 19, 2, 2, 0), 'max_c32_k3s2_19': (32, 19, 19, 3, 2, 1),
        'max_c16_k2s2_16': (16, 16, 16, 2, 2, 0), 'max_c64_k2s2_16': (64, 16, 16, 2, 2, 0),
        'max_c48_k2s2_16': (48, 16, 16, 2, 2, 0), 'max_c8_k2s2_16': (8, 16, 16, 2, 2, 0),
        'max_c32_k3s2_16_same': (32, 16, 16, 3, 2, 1), 'max_c32_k3s2_16_vld': (32, 16, 16, 3, 2, 0),
        'gmp_c32_16': (32, 16, 16, 16, 1, 0)}
for tag, (c, ih, iw, k, st, pad) in MAXP.items():
    if not os.path.exists(f'{src}/pool/{tag}.rknn'):
        continue
    w = wq(((np.arange(c * c * 9) % 11 - 5) / 16.0).reshape(c, c, 3, 3))
    b = (np.arange(c) + 1) / 8.0
    check_int8(f'pool/{tag}.rknn', rng.uniform(-1, 1, (1, c, ih, iw)).astype(np.float32),
               lambda xq: maxpool(conv(xq, w, b), k, st, pad))
check_int8('pool/bare_max_c32_k2s2_16.rknn', rng.uniform(-1, 1, (1, C, 16, 16)).astype(np.float32),
           lambda xq: maxpool(xq, 2, 2, 0))


def avgpool(x, k, st, pad):
    """ONNX AveragePool with count_include_pad=0 (mkpool.py): the mean of the cells
    inside the plane"""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    ones = np.pad(np.ones_like(x), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (x.shape[2] + 2 * pad - k) // st + 1
    ow = (x.shape[3] + 2 * pad - k) // st + 1
    win = lambda a: sum(a[:, :, ky:ky + st * (oh - 1) + 1:st, kx:kx + st * (ow - 1) + 1:st]
                        for ky in range(k) for kx in range(k))
    return win(xp), win(ones)


def quantized(d, f, name):
    """tensor name of a run's dump as the int8 bytes the NPU held"""
    info = json.loads(subprocess.run([rt, 'inspect', f'{src}/{f}', '--json'], capture_output=True,
                                     text=True).stdout)
    q = next(t for n in info['nodes'] for t in n.get('outputs') or [] if t['name'] == name)
    return np.round(np.load(f'{d}/{name}.npy').astype(np.float64) / q['scale']) + q['zero_point']


# mkpool.py's AveragePools (count_include_pad=0; SAME pads k // 2), after the conv carrier
# and one alone: against the formula as the other pools (two output steps: the carrier's
# rounding and the pool's, each at most half a step, with the cosine); then the pool
# alone on the bytes the run gave its input, each output the window's mean over its
# cells inside the plane rounded to the nearest: within 0.5 + 1/64 of a step (the Q16
# reciprocals 0x5555 of 3 are truncated: 1152 x (1/9 - 0x5555^2 / 2^32) < 1/64 at most),
# and a mean that falls on a half goes to the even neighbour when both axes' counts are
# powers of two (their reciprocals exact), else toward zero (rocket-userspace e0677862,
# src/rocket_pool_rk3576.c: rounding measured on a board). Truncating, rounding a tie
# up, dividing a border window by the kernel's cells or misreading the lanes fails.
AVGP = {'avg_c32_k2s2_16': (32, 16, 16, 2, 2, 0, 'c'), 'avg_c32_k3s1_16': (32, 16, 16, 3, 1, 1, 'c'),
        'avg_c32_k3s3_15': (32, 15, 15, 3, 3, 0, 'c'), 'bare_avg_c32_k2s2_16': (32, 16, 16, 2, 2, 0, 'x')}
for tag, (c, ih, iw, k, st, pad, srcn) in AVGP.items():
    f = f'pool/{tag}.rknn'
    if not os.path.exists(f'{src}/{f}'):
        continue
    w = wq(((np.arange(c * c * 9) % 11 - 5) / 16.0).reshape(c, c, 3, 3))
    b = (np.arange(c) + 1) / 8.0
    pre = (lambda xq: xq) if srcn == 'x' else (lambda xq: conv(xq, w, b))
    check_int8(f, rng.uniform(-1, 1, (1, c, ih, iw)).astype(np.float32),
               lambda xq: np.divide(*avgpool(pre(xq), k, st, pad)))
    d = f'{tmp}/d_{tag}.rknn'
    if not os.path.exists(f'{d}/y.npy'):
        continue
    ssum, cnt = avgpool(quantized(d, f, srcn), k, st, pad)
    y, mean = quantized(d, f, 'y'), ssum / cnt
    err = np.abs(y - mean).max()
    tie = np.abs(ssum % cnt * 2 - cnt) == 0          # the mean on a half
    exact = np.isin(cnt, (1, 2, 4, 8, 16))            # a power of two: so both axes' counts
    want = np.where(exact, np.where(np.floor(mean) % 2 == 0, np.floor(mean), np.ceil(mean)),
                    np.trunc(mean))
    bad = int((y != want)[tie].sum())
    report(err <= 0.5 + 1 / 64 and bad == 0, f + ' (pool alone)',
           f'max |err| {err:.3f} steps from the exact mean; {int(tie.sum())} halves, {bad} '
           'rounded otherwise')


# mklut.py's activations after its 3x3 conv (the carrier above), int8 over the calibration
# range (-8..8) and float16 over -1..1. The LUT ones are compiled to tables over a window
# of the pre-activation (the LUT's 512 steps either side of 0 over the BN multiplier,
# shifted by its ALU; the values the files' words give: docs/rknn-format.md "Activations
# on f2"); inside it every output is held to its tolerance against the function in
# float64, so that a wrong table, index or scale fails; outside it the program
# extrapolates as its words say (flat ends, an overflow slope), and an output there must
# lie between the function at the window's end and the function itself (within the same
# tolerance). Int8: two output steps and a cosine >= 0.9995; float16: two float16 steps
# at the largest output.
sig = lambda v: 1 / (1 + np.exp(-v))
hsig = lambda v: np.clip(v / 6 + 0.5, 0, 1)
splus = lambda v: np.logaddexp(0, v)
ACT = {'relu': lambda v: np.maximum(v, 0), 'relu6': lambda v: np.clip(v, 0, 6),
       'leakyrelu': lambda v: np.where(v >= 0, v, 0.1 * v), 'sigmoid': sig, 'tanh': np.tanh,
       'swish': lambda v: v * sig(v), 'hardsigmoid': hsig, 'hardswish': lambda v: v * hsig(v),
       'elu': lambda v: np.where(v >= 0, v, np.expm1(np.minimum(v, 0))), 'softplus': splus,
       'mish': lambda v: v * np.tanh(splus(v))}
WIN = {'sigmoid': (-6.31, 6.31), 'tanh': (-3.02, 3.02), 'swish': (-5.8, 5.8),
       'hardsigmoid': (-3, 3), 'hardswish': (-3, 3), 'softplus': (-4, 4), 'mish': (-6, 4),
       'elu': (-10, 0)}


def check_act(f, x, act, name='y', stop=None, bare=False):
    """f computes act(conv) (bare: act(x)) into tensor name (its dump), or stops after it
    at stop."""
    r, d = run(f'{src}/{f}', x)
    lines = r.stderr.strip().splitlines()
    if (r.returncode != 0) != (stop is not None) or \
            (stop and not (r.returncode == 2 and len(lines) == 1 and stop in lines[0])):
        return report(False, f, r.stderr.strip()[-240:] or f'exit {r.returncode}')
    fp16 = f.endswith('_f16.rknn')
    xin = x.astype(np.float64) if fp16 else np.load(f'{d}/x.npy').astype(np.float64)
    y = np.load(f'{d}/{name}.npy').astype(np.float64)
    pre = xin if bare else conv(xin, w_lut if fp16 else w_lut_q, b_lut)
    fn = ACT[act]
    ref = fn(pre)
    lo, hi = WIN.get(act, (-np.inf, np.inf))
    edge = np.where(pre < lo, fn(np.float64(lo)), np.where(pre > hi, fn(np.float64(hi)), ref))
    if fp16:
        tol = 2 * np.abs(ref).max() * 2.0 ** -10
        unit, what = tol / 2, 'float16 steps'
        rlo, rhi = -np.inf, np.inf
    else:
        info = json.loads(subprocess.run([rt, 'inspect', f'{src}/{f}', '--json'],
                                         capture_output=True, text=True).stdout)
        q = next(o for n in info['nodes'] for o in n['outputs'] if o['name'] == name)
        unit, what = q['scale'], 'output steps'
        tol = 2 * unit
        rlo, rhi = (-128 - q['zero_point']) * unit, (127 - q['zero_point']) * unit
    ref, edge = np.clip(ref, rlo, rhi), np.clip(edge, rlo, rhi)
    inside = (pre > lo) & (pre < hi)
    if y.shape != ref.shape:
        return report(False, f, f'output shape {y.shape}, {ref.shape} expected')
    err = np.abs(y - ref)[inside].max()
    tail = np.maximum(np.minimum(edge, ref) - y, y - np.maximum(edge, ref))[~inside]
    tail = max(tail.max(), 0) if tail.size else 0
    cos = (y * ref).sum() / np.linalg.norm(y) / np.linalg.norm(ref)
    ok = err <= tol and tail <= tol and (fp16 or cos >= 0.9995)
    report(ok, f, f'max |err| {err / unit:.2f} {what} inside the table window ({inside.mean():.0%} '
                  f'of the outputs), outside {tail / unit:.2f} beyond [f(end), f(x)], '
                  f'cosine {cos:.6f}' + (', then stops at ' + stop if stop else ''))


for act in ('relu', 'relu6', 'leakyrelu', 'sigmoid', 'tanh', 'swish', 'hardsigmoid',
            'hardswish', 'elu', 'softplus', 'mish'):
    for prec in ('i8', 'f16'):
        f = f'lut/conv_{act}_{prec}.rknn'
        if os.path.exists(f'{src}/{f}') and f not in ('lut/conv_relu_i8.rknn', 'lut/conv_relu6_i8.rknn'):
            check_act(f, rng.uniform(-8, 8, (1, C, 16, 16)).astype(np.float32) if prec == 'i8'
                      else f16(rng.uniform(-1, 1, (1, C, 16, 16))), act)
# mklut.py's Sqrt(Abs(conv)): the Abs fused into the conv as a PReLU of slope -1, its
# tensor 'ab' checked; the Sqrt after it (a CPU layer of the int8 file, DPU-only tasks of
# the float16 one) stops the run
ACT['abs'] = np.abs
check_act('lut/conv_sqrt_i8.rknn', rng.uniform(-8, 8, (1, C, 16, 16)).astype(np.float32), 'abs',
          'ab', 'node 3 (Sqrt Sqrt:y) runs on the CPU')
check_act('lut/conv_sqrt_f16.rknn', f16(rng.uniform(-1, 1, (1, C, 16, 16))), 'abs', 'ab',
          'task 1 (node Sqrt:y): register 0x4010')
# mklut.py's activations alone, int8 over the same range: DPU-only tasks (FEATURE_MODE 5,
# docs/rknn-format.md "Activations alone on f2"), each held as after the conv. The input's
# calibration range is the activation's where the function is monotone and non-negative
# (Relu's, Clip's: [0, 8], [0, 6]), so the input's quantization already does part of it.
# Without BS's ALU (the input's zero point) or its clamp pair, without BN's PReLU or the
# LUT's output clamp at 0, the files fail.
for act in ('relu', 'relu6', 'leakyrelu', 'sigmoid', 'tanh', 'swish', 'hardsigmoid',
            'hardswish', 'elu', 'softplus', 'mish'):
    f = f'lut/bare_{act}_i8.rknn'
    if os.path.exists(f'{src}/{f}'):
        check_act(f, rng.uniform(-8, 8, (1, C, 16, 16)).astype(np.float32), act, bare=True)
if os.path.exists(f'{src}/lut/bare_sqrt_i8.rknn'):
    check_act('lut/bare_sqrt_i8.rknn', rng.uniform(-8, 8, (1, C, 16, 16)).astype(np.float32), 'abs',
              'ab', 'node 3 (Sqrt Sqrt:y) runs on the CPU', bare=True)
# mklut.py's Exp after the conv: the Exp CPU layer (runtime/emu/emu_cpu.c). int8: as the
# activations above; float16: y against exp of the conv's output c as the run held it
# (float16: exp magnifies c's rounding, 2^-7 at 8, past two float16 steps of the float64
# formula), within two float16 steps at the largest output
ACT['exp'] = np.exp
if os.path.exists(f'{src}/lut/conv_exp_i8.rknn'):
    check_act('lut/conv_exp_i8.rknn', rng.uniform(-8, 8, (1, C, 16, 16)).astype(np.float32), 'exp')
if os.path.exists(f'{src}/lut/conv_exp_f16.rknn'):
    f = 'lut/conv_exp_f16.rknn'
    x = f16(rng.uniform(-1, 1, (1, C, 16, 16)))
    r, d = run(f'{src}/{f}', x)
    if r.returncode:
        report(False, f, r.stderr.strip()[-240:])
    else:
        c = np.load(f'{d}/c.npy').astype(np.float64)
        y = np.load(f'{d}/y.npy').astype(np.float64)
        ref, cref = np.exp(c), conv(x.astype(np.float64), w_lut, b_lut)
        step = np.abs(ref).max() * 2.0 ** -10
        ec, ey = np.abs(c - cref).max() / (np.abs(cref).max() * 2.0 ** -10), np.abs(y - ref).max() / step
        report(ec <= 2 and ey <= 2, f, f'c {ec:.2f} float16 steps of the conv, y {ey:.2f} of exp(c)')
LUT_DONE = {f'{k}_{a}_{p}.rknn' for k in ('conv', 'bare') for a in list(ACT) + ['sqrt']
            for p in ('i8', 'f16')} - {'bare_exp_i8.rknn'}

# mkadd.py's Add and Sub of two inputs alone (DPU-only tasks, docs/rknn-format.md
# "Elementwise tasks on f2"), each input over its calibration range (-1..1; asym_add's
# x2 -64..64): the float64 sum or difference of the inputs as the NPU saw them. The
# operands' rescaled terms are rounded before the sum, as the fused Adds above
# (within 1.75 steps there): the same two steps and cosine.
for tag, amp2, model in (('bare_add_c32_16', 1, lambda q: q['x'] + q['x2']),
                         ('asym_add_c32_16', 64, lambda q: q['x'] + q['x2']),
                         ('sub_c32_16', 1, lambda q: q['x'] - q['x2']),
                         ('subrev_c32_16', 1, lambda q: q['x2'] - q['x'])):
    if os.path.exists(f'{src}/add/{tag}.rknn'):
        check_int8(f'add/{tag}.rknn',
                   {'x': rng.uniform(-1, 1, (1, C, 16, 16)).astype(np.float32),
                    'x2': rng.uniform(-amp2, amp2, (1, C, 16, 16)).astype(np.float32)}, model)
        ADD[tag] = None

# mkadd.py's MobileNetV2 inverted residual (expansion 6, stride 1): a 1x1 Conv to 6C
# channels with its Clip(0, 6) (er), a 3x3 depthwise Conv with its Clip (dr: the depthwise
# task's BN_CFG 0x902), a 1x1 Conv back to C (p), + the input (y: a DPU-only Add); weights
# of the tags exp, dw, prj (seeds 3, 2, 3), each rounded as Toolkit2 rounds them. Each
# tensor against its formula on the tensor before it as the run held it (the dump), held
# to its own int8 range (er and dr are calibrated below 6: [0, 3.15], [0, 2.35] in
# btl_c32_16): two of its steps and a cosine >= 0.9995.
def check_stages(f, x, stages):
    r, d = run(f'{src}/{f}', x)
    if r.returncode:
        return report(False, f, r.stderr.strip()[-240:])
    info = json.loads(subprocess.run([rt, 'inspect', f'{src}/{f}', '--json'], capture_output=True,
                                     text=True).stdout)
    q = {t['name']: t for n in info['nodes'] for t in n.get('outputs') or []}
    t = {k[:-4]: np.load(f'{d}/{k}').astype(np.float64) for k in os.listdir(d)
         if k.endswith('.npy') and not k.startswith('task_')}
    msg, ok = [], True
    for name, fn in stages:
        st, zp = q[name]['scale'], q[name]['zero_point']
        ref = np.clip(fn(t), (-128 - zp) * st, (127 - zp) * st)
        y = t[name]
        err = np.abs(y - ref).max() if y.shape == ref.shape else np.inf
        cos = (y * ref).sum() / np.linalg.norm(y) / np.linalg.norm(ref) if y.shape == ref.shape else 0
        ok &= err <= 2 * st and cos >= 0.9995
        msg.append(f'{name} {err / st:.2f} steps, cosine {cos:.6f}')
    report(ok, f, '; '.join(msg))


def btl_stages(c):
    e = 6 * c
    b = lambda n, sd: ((np.arange(n) + sd) % 7 + 1) / 8.0
    wx = wq((((np.arange(e * c) + 3) % 11 - 5) / 16.0).reshape(e, c, 1, 1))
    wd = wq((((np.arange(e * 9) + 2) % 11 - 5) / 16.0).reshape(e, 1, 3, 3))
    wp = wq((((np.arange(c * e) + 3) % 11 - 5) / 16.0).reshape(c, e, 1, 1))
    return (('er', lambda t: np.clip(conv(t['x'], wx, b(e, 3)), 0, 6)),
            ('dr', lambda t: np.clip(dwconv(t['er'], wd, b(e, 2), 1), 0, 6)),
            ('p', lambda t: conv(t['dr'], wp, b(c, 3))),
            ('y', lambda t: t['p'] + t['x']))


for tag, c, hw in (('btl_c32_16', 32, 16), ('btl_c24_28', 24, 28)):
    if os.path.exists(f'{src}/add/{tag}.rknn'):
        check_stages(f'add/{tag}.rknn', rng.uniform(-1, 1, (1, c, hw, hw)).astype(np.float32),
                     btl_stages(c))
        ADD[tag] = None

# mkadd.py's resmul: its conv carrier (tag a) then Mul(c, x), a DPU-only multiply
# (EW_CFG 0x810f4094): c against the conv, y against c * x as the run held them
if os.path.exists(f'{src}/add/mul_c32_16.rknn'):
    wA, bA = wa(C, 1)
    check_stages('add/mul_c32_16.rknn', rng.uniform(-1, 1, (1, C, 16, 16)).astype(np.float32),
                 (('c', lambda t: conv(t['x'], wA, bA)), ('y', lambda t: t['c'] * t['x'])))
    ADD['mul_c32_16'] = None

# mkadd.py's addconst: the conv carrier then Add(c, k), k a constant [1, C, 16, 16] of
# linspace(-0.5, 0.5) (every element its own value, so that a misread layout fails),
# stored int8 in the file and read by the DPU-only add's EW stage
if os.path.exists(f'{src}/add/addconst_c32_16.rknn'):
    wA, bA = wa(C, 1)
    kc = np.linspace(-0.5, 0.5, C * 256, dtype=np.float32).astype(np.float64).reshape(1, C, 16, 16)
    check_stages('add/addconst_c32_16.rknn', rng.uniform(-1, 1, (1, C, 16, 16)).astype(np.float32),
                 (('c', lambda t: conv(t['x'], wA, bA)), ('y', lambda t: t['c'] + kc)))
    ADD['addconst_c32_16'] = None

# every other file stops with one line naming its task
for fam in ('dw', 'pool', 'lut', 'add'):
    for f in sorted(os.listdir(f'{src}/{fam}')):
        if not f.endswith('.rknn') or f.startswith('ctl_conv') or f[:-5] in DW or f in GAP or \
                f[:-5] in MAXP or f == 'bare_max_c32_k2s2_16.rknn' or f[:-5] in AVGP or \
                (fam == 'lut' and f in LUT_DONE) or (fam == 'add' and f[:-5] in ADD):
            continue
        r = subprocess.run([rt, 'run', f'{src}/{fam}/{f}', '--emulate', '--no-db'],
                           capture_output=True, text=True)
        lines = r.stderr.strip().splitlines()
        report(r.returncode == 2 and len(lines) == 1 and '--emulate:' in lines[0],
               f'{fam}/{f}', 'stops: ' + (lines[-1].split('--emulate: ')[-1][:110] if lines
                                          else f'exit {r.returncode}, no message'))
print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
EOF
