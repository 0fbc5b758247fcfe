#!/usr/bin/python3
"""tests/e2e/compare.py — compares our graph outputs with onnxruntime's.

usage: compare.py MODEL REFDIR OURDIR        rows for one model (exit 1 on a failure)
       compare.py --header                   the table header
       compare.py --fail MODEL REASON        one failure row (our run or the oracle failed)

REFDIR holds the oracle's outputs.json ({name: file}) and .npy files (ort_run.js).
OURDIR is our --dump folder: index.json lists every layer output as
{"layer", "node", "op", "name", "file", "shape", "dtype"}; graph outputs are in it,
found by their ONNX tensor name.

Criteria per graph output: same shape, cosine similarity >= 0.99999 and
max |ours - ref| <= 1e-4 x (max - min of ref). Integer outputs must match exactly.
"""
import json
import os
import sys

import numpy as np

COS_MIN = 0.99999
REL_TOL = 1e-4
FMT = "%-32s %-22s %12s %12s %12s  %s"


def header():
    print(FMT % ("model", "output", "cosine", "max_abs_err", "limit", "verdict"))
    print("-" * 110)


def row(model, out, cos, err, limit, verdict):
    def num(v, f):
        return "-" if v is None else f % v
    out = out if len(out) <= 22 else out[:19] + "..."
    print(FMT % (model, out, num(cos, "%.7f"), num(err, "%.3g"), num(limit, "%.3g"), verdict))


def load_index(ourdir):
    with open(os.path.join(ourdir, "index.json")) as f:
        entries = json.load(f)
    by_name = {}
    for e in entries:
        by_name[e["name"]] = e  # the last writer of a name is its final value
    return by_name


def cosine(a, b):
    na = np.linalg.norm(a)
    nb = np.linalg.norm(b)
    if na == 0 and nb == 0:
        return 1.0
    if na == 0 or nb == 0:
        return 0.0
    return float(np.dot(a, b) / (na * nb))


def compare_one(model, name, ref, ours):
    """Prints one row; returns True when the output passes."""
    if ours.shape != ref.shape:
        row(model, name, None, None, None,
            "FAIL shape %s vs ref %s" % (list(ours.shape), list(ref.shape)))
        return False
    if ref.dtype.kind in "iub":
        bad = int(np.count_nonzero(ours.astype(np.int64) != ref.astype(np.int64)))
        verdict = "PASS" if bad == 0 else "FAIL %d elements differ" % bad
        row(model, name, None, 0.0 if bad == 0 else None, 0.0, verdict)
        return bad == 0
    a = ours.astype(np.float64).ravel()
    b = ref.astype(np.float64).ravel()
    if not np.all(np.isfinite(b)):
        row(model, name, None, None, None, "FAIL reference has non-finite values")
        return False
    if not np.all(np.isfinite(a)):
        row(model, name, None, None, None,
            "FAIL %d non-finite values" % int(np.count_nonzero(~np.isfinite(a))))
        return False
    cos = cosine(a, b)
    err = float(np.max(np.abs(a - b))) if a.size else 0.0
    span = float(b.max() - b.min()) if b.size else 0.0
    if span == 0.0:  # a constant output: scale by its magnitude instead
        span = max(float(np.max(np.abs(b))) if b.size else 0.0, 1.0)
    limit = REL_TOL * span
    ok = cos >= COS_MIN and err <= limit
    why = []
    if cos < COS_MIN:
        why.append("cosine")
    if err > limit:
        why.append("max error")
    row(model, name, cos, err, limit, "PASS" if ok else "FAIL " + ", ".join(why))
    return ok


def main(argv):
    if len(argv) == 2 and argv[1] == "--header":
        header()
        return 0
    if len(argv) == 4 and argv[1] == "--fail":
        row(argv[2], "-", None, None, None, "FAIL " + argv[3])
        return 1
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    model, refdir, ourdir = argv[1:]
    with open(os.path.join(refdir, "outputs.json")) as f:
        refs = json.load(f)
    try:
        index = load_index(ourdir)
    except (OSError, ValueError) as e:
        row(model, "-", None, None, None, "FAIL no usable index.json (%s)" % e)
        return 1
    failed = 0
    for name, file in refs.items():
        ref = np.load(os.path.join(refdir, file))
        e = index.get(name)
        if e is None:
            row(model, name, None, None, None, "FAIL output missing from index.json")
            failed += 1
            continue
        try:
            ours = np.load(os.path.join(ourdir, e["file"]))
        except (OSError, ValueError) as ex:
            row(model, name, None, None, None, "FAIL cannot read %s (%s)" % (e["file"], ex))
            failed += 1
            continue
        if list(e.get("shape", ours.shape)) != list(ours.shape):
            row(model, name, None, None, None, "FAIL index.json shape %s != file %s"
                % (e.get("shape"), list(ours.shape)))
            failed += 1
            continue
        if not compare_one(model, name, ref, ours):
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
