#!/usr/bin/env bash
# tests/samples/vendor_rk3576_captures.sh DIR [BUILD] — RK3576 vendor files of single
# ops through the emulator: DIR is tests/data/rk3576-vendor-capture of
# github.com/gregordinary/rocket-userspace (GPL-3.0-or-later: the files stay out of
# this tree, so this check runs where a checkout is, not in `make test`). Each file
# was compiled by RKNN-Toolkit2 for rk3576 from an ONNX its mk*.py writes with
# weights from a formula; that formula, in numpy, is the oracle.
#   float/f16_ic*_oc*_k*_*.rknn (mkfloat.py): one float16 Conv with a float32 bias,
#   weights (i % 7 - 3) / 8, bias (oc + 1) / 4, same padding; every output within
#   two float16 steps of the float64 conv on the same (float16) input.
# Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
DIR=${1:?usage: vendor_rk3576_captures.sh ROCKET_USERSPACE/tests/data/rk3576-vendor-capture [BUILD]}
B=${2:-${BUILD:-build}}
PY=${PYTHON:-/usr/bin/python3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
$PY - "$DIR/float" "$B/rknn-trace" "$T" <<'EOF'
import os, re, subprocess, sys
import numpy as np
src, rt, tmp = sys.argv[1:4]
passed = failed = 0
for f in sorted(os.listdir(src)):
    m = re.fullmatch(r'f16_ic(\d+)_oc(\d+)_k(\d+)_(\d+)\.rknn', f)
    if not m:
        continue
    ic, oc, k, hw = map(int, m.groups())
    x = np.random.default_rng(ic * 1000 + oc).uniform(-1, 1, (1, ic, hw, hw))
    x = x.astype(np.float16).astype(np.float32)     # the file's input is float16
    np.save(f'{tmp}/x.npy', x)
    d = f'{tmp}/{f}'
    r = subprocess.run([rt, 'run', f'{src}/{f}', '--emulate', '--no-db', '-i', f'x={tmp}/x.npy',
                        '--dump', d], capture_output=True, text=True)
    if r.returncode:
        print(f'FAIL {f}: {r.stderr.strip()[-240:]}')
        failed += 1
        continue
    w = ((np.arange(oc * ic * k * k) % 7 - 3) / 8.0).reshape(oc, ic, k, k)
    b = (np.arange(oc) + 1) / 4.0
    p = k // 2
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (p, p), (p, p)))
    ref = b.reshape(1, oc, 1, 1) + sum(
        np.einsum('oc,nchw->nohw', w[:, :, ky, kx], xp[:, :, ky:ky + hw, kx:kx + hw])
        for ky in range(k) for kx in range(k))
    y = np.load(f'{d}/y.npy').astype(np.float64)
    step = np.abs(ref).max() * 2.0 ** -10       # a float16 step at the largest output
    err = np.abs(y - ref).max() if y.shape == ref.shape else np.inf
    if err <= 2 * step:
        passed += 1
        print(f'ok   {f}: max |err| {err:.5f} (a float16 step {step:.5f})')
    else:
        failed += 1
        print(f'FAIL {f}: shape {y.shape}, max |err| {err:.5f}, two float16 steps {2 * step:.5f}')
print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
EOF
