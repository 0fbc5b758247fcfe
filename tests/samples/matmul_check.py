"""tests/samples/matmul_check.py SAMPLE TMPDIR — runs sample_matmul (the matmul app) for
every matmul type each chip offers, every layout of B (normal, native, transposed where
the chip has it) and of A/C (normal, native), every B quantization granularity of the
quantized types, B split in K segments, and a dynamic-shape set, and checks C against
numpy. The oracle is written from the SDK header's description, not from the runtime:
  C = sum over K groups g of sB(g,n) * sum_k (A - zpA)(B - zpB(g,n)), times sA;
  an int8 C is that / sC + zpC rounded half away from zero and saturated; int32/int16 C
  is the raw accumulator; float C is compared with a tolerance of its precision.
The native B the app bound (rknn_B_normal_layout_to_native_layout) is also compared
with the header's blocked layout (N/subN, K/subK, subN, subK), cut in K segments.
Prints one line per failure and "N passed, N failed"."""
import os
import subprocess
import sys

import numpy as np

SAMPLE, TMP = sys.argv[1], sys.argv[2]
I8, I4, F16 = "i8", "i4", "f16"
# type: (A, B, C)
TYPES = {1: (F16, F16, "f32"), 2: (I8, I8, "i32"), 3: (I8, I8, "i8"), 4: (F16, F16, "f16"),
         5: (F16, I8, "f32"), 6: (F16, I8, "f16"), 7: (F16, I4, "f32"), 8: (F16, I4, "f16"),
         9: (I8, I8, "f32"), 10: (I4, I4, "i16"), 11: (I8, I4, "i32"), 12: (F16, I4, "bf16"),
         15: (I8, I4, "f16")}
# chip: B blocks (subN, subK) per B type, K segment of a native B, types, TP_NORM
CHIPS = {
    "rk3588": ({I8: (32, 32), F16: (16, 32), I4: (64, 32)}, 8192, sorted(TYPES), True),
    "rk3576": ({I8: (32, 32), F16: (16, 32), I4: (64, 32)}, 4096, sorted(TYPES), True),
    "rk3562": ({I8: (16, 32), F16: (8, 32)}, 0, [1, 2, 3, 4], True),
    "rk3566": ({I8: (16, 32), F16: (8, 16)}, 0, [1, 2, 3, 4], False),
}
passed = failed = 0
rng = np.random.default_rng(7)


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def gen(kind, shape):
    if kind == F16:
        return rng.uniform(-1, 1, shape).astype(np.float16)
    lo = -8 if kind == I4 else -128
    return rng.integers(lo, -lo, shape).astype(np.int8)


def write(a, kind, path):
    (a.view(np.uint16) if kind == F16 else a).tofile(path)


def read_c(path, ck, M, N):
    dt = {"f32": np.float32, "i32": np.int32, "i8": np.int8, "f16": np.float16,
          "i16": np.int16, "bf16": np.uint16}[ck]
    c = np.fromfile(path, dt)
    if ck == "bf16":
        c = (c.astype(np.uint32) << 16).view(np.float32)
    return c.reshape(M, N).astype(np.float64)


def oracle(A, B, ak, bk, ck, q, groups):
    K, N = B.shape
    sa, zpa, sc, zpc, sb, zb = q
    a = A.astype(np.float64) - (zpa if ak != F16 else 0)
    ng = max(groups, 1)
    gk = K // ng
    sb2 = np.broadcast_to(np.asarray(sb, np.float64).reshape(-1, N) if np.size(sb) > 1
                          else np.float64(sb[0]), (ng if groups > 0 else 1, N))
    zb2 = np.broadcast_to(np.asarray(zb, np.float64).reshape(-1, N) if np.size(zb) > 1
                          else np.float64(zb[0]), (ng if groups > 0 else 1, N))
    v = np.zeros((A.shape[0], N))
    for g in range(ng):
        zrow = zb2[g if groups > 0 else 0] if bk != F16 else 0
        s = a[:, g * gk:(g + 1) * gk] @ (B[g * gk:(g + 1) * gk].astype(np.float64) - zrow)
        if ck in ("i32", "i16"):
            v += s
        elif groups > 0:
            v += s * sb2[g]
        else:
            v = s
    if ck in ("i32", "i16"):
        return np.clip(v, -32768, 32767) if ck == "i16" else v
    sav = np.float64(sa) if ak != F16 else 1.0
    sbv = (sb2[0] if bk != F16 else 1.0)
    if ck == "i8":
        v = (v * sav if groups > 0 else v * (sav * sbv)) / np.float64(sc) + zpc
        return np.clip(np.sign(v) * np.floor(np.abs(v) + 0.5), -128, 127)
    return v * sav if groups > 0 else v * (sav * sbv)


def native_b(Bp, subn, subk, seg):
    """the header's blocked B, in K segments; Bp is K x N of any dtype"""
    K, N = Bp.shape
    seg = seg if seg and K > seg else K
    parts = []
    for k0 in range(0, K, seg):
        Bt = Bp[k0:k0 + seg]
        kt = Bt.shape[0]
        parts.append(Bt.reshape(kt // subk, subk, N // subn, subn).transpose(2, 0, 3, 1).ravel())
    return np.concatenate(parts)


def unpack4(raw, n):
    lo = (raw & 0xf).astype(np.int8)
    hi = (raw >> 4).astype(np.int8)
    v = np.empty(raw.size * 2, np.int8)
    v[0::2], v[1::2] = lo, hi
    v[v >= 8] -= 16
    return v[:n]


def run(chip, t, M, K, N, bl, acl, bq=0, gs=0, extra_m=(), label=""):
    ak, bk, ck = TYPES[t]
    d = os.path.join(TMP, "mm_%s_%d_%d_%d_%d_%d" % (chip, t, bl, acl, bq, K))
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    Ms = [M] + list(extra_m)
    A = gen(ak, (max(Ms), K))
    B = gen(bk, (K, N))
    write(A, ak, os.path.join(d, "A.bin"))
    write(B, bk, os.path.join(d, "B.bin"))
    groups = -1 if bq in (2, 3) else (K // gs if bq in (4, 5) else 0)
    nsb = N if groups < 0 else (groups * N if groups > 0 else 1)
    sa, zpa, sc, zpc = 0.02, 0, 1.0, 0
    sb, zb = np.full(nsb, 1.0, np.float32), np.zeros(nsb, np.int32)
    if bk != F16:
        sb = rng.uniform(0.005, 0.02, nsb).astype(np.float32)
        if bq % 2 == 1:  # asymmetric
            zb = rng.integers(-3, 4, nsb).astype(np.int32)
        sb.tofile(os.path.join(d, "sb.f32"))
        zb.tofile(os.path.join(d, "zb.i32"))
    if ak != F16:
        zpa = 0 if ak == I4 else 3
        sc, zpc = (0.5, -2) if ck == "i8" else (1.0, 0)
        with open(os.path.join(d, "q.txt"), "w") as f:
            f.write("%r %d %r %d\n" % (sa, zpa, sc, zpc))
    sa, sc = float(np.float32(sa)), float(np.float32(sc))
    args = [SAMPLE, str(t), str(M), str(K), str(N), str(bl), str(acl), str(bq), str(gs), d]
    args += [str(m) for m in extra_m]
    p = subprocess.run(args, env=dict(os.environ, RKNN_TARGET=chip), capture_output=True, text=True)
    what = "%s type %d M=%d K=%d N=%d B_layout %d AC_layout %d B_quant %d %s" % (
        chip, t, M, K, N, bl, acl, bq, label)
    if p.returncode != 0 or "E RKNN" in p.stderr:
        check(False, "%s: exit %d: %s" % (what, p.returncode, p.stderr.strip()[:300]))
        return
    q = (sa, zpa, sc, zpc, sb, zb)
    for m in Ms:
        name = "C_%d.bin" % m if extra_m else "C.bin"
        got = read_c(os.path.join(d, name), ck, m, N)
        ref = oracle(A[:m], B, ak, bk, ck, q, groups)
        if ck in ("i32", "i16", "i8"):
            ok = np.array_equal(got, ref)
        else:
            tol = {"f32": 1e-5, "f16": 2e-3, "bf16": 8e-3}[ck] * max(np.abs(ref).max(), 1e-3)
            ok = np.abs(got - ref).max() <= tol
        check(ok, "%s M=%d: C differs from numpy (max |diff| %g)" % (what, m, np.abs(got - ref).max()))
    if bl == 1:
        subn, subk = CHIPS[chip][0][bk]
        raw = np.fromfile(os.path.join(d, "B_bound.bin"), np.uint8)
        bound = unpack4(raw, K * N) if bk == I4 else (raw.view(np.uint16) if bk == F16 else raw.view(np.int8))
        want = native_b(B.view(np.uint16) if bk == F16 else B, subn, subk, CHIPS[chip][1])
        check(np.array_equal(bound, want), "%s: native B is not the header's blocked layout" % what)


for chip, (blocks, seg, types, tp) in CHIPS.items():
    for t in types:
        ak, bk, ck = TYPES[t]
        for bl in ([0, 1, 2] if tp else [0, 1]):
            for acl in (0, 1):
                run(chip, t, 5, 64, 64, bl, acl, bq=1 if t == 3 else 0)
        if bk != F16:  # per-channel and per-group B, both symmetric and asymmetric
            for bq, gs in ((2, 0), (3, 0), (4, 32), (5, 32)):
                if chip in ("rk3588", "rk3576") or t == 3 or t == 2:
                    run(chip, t, 3, 64, 64, 1, 1, bq, gs)
# B cut in K segments (RK3588: 8192 rows, RK3576: 4096), and the SDK demo's dynamic set
run("rk3588", 2, 2, 10240, 32, 1, 0, label="K segments")
run("rk3576", 1, 2, 6144, 32, 1, 1, label="K segments")
run("rk3588", 2, 1, 64, 32, 1, 1, extra_m=(4, 8), label="dynamic")
run("rk3566", 4, 1, 64, 32, 0, 1, extra_m=(4, 8), label="dynamic")
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
