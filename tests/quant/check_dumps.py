#!/usr/bin/python3
"""tests/quant/check_dumps.py RUN.json GOLDEN_DIR QUANT_DIR

Independent oracle for `rknn-trace run -q ... --json --dump-golden G --dump-quant Q`:
re-computes with numpy, from the two dump folders, the entire-error metrics the
tool printed (cos, euc, max_abs, mean_abs, sqnr_db) for every layer and checks
them to 1e-6 (relative for euc/sqnr). Prints "N passed, N failed".
"""
import json
import math
import os
import sys

import numpy as np


def load(d):
    idx = json.load(open(os.path.join(d, "index.json")))
    return {e["name"]: os.path.join(d, e["file"]) for e in idx}


def metrics(r, x):
    r = r.astype(np.float64).ravel()
    x = x.astype(np.float64).ravel()
    d = r - x
    m = {"euc": math.sqrt((d * d).sum()), "max_abs": np.abs(d).max(),
         "mean_abs": np.abs(d).mean()}
    if np.all(r == r[0]) or np.all(x == x[0]):
        m["cos"] = m["sqnr_db"] = None
    else:
        m["cos"] = float(r @ x / (np.linalg.norm(r) * np.linalg.norm(x)))
        e = (d * d).sum()
        m["sqnr_db"] = float(10 * math.log10((r * r).sum() / e)) if e > 0 else "inf"
    return m


def main(argv):
    doc = json.load(open(argv[1]))
    g, q = load(argv[2]), load(argv[3])
    acc = doc["accuracy"]
    passed = failed = 0
    outs = {o["name"] for o in acc["outputs"]}
    checked_out = 0
    for row in acc["layers"]:
        name = row["name"]
        if name not in g or name not in q:
            continue
        m = metrics(np.load(g[name]), np.load(q[name]))
        for k in ("cos", "euc", "max_abs", "mean_abs", "sqnr_db"):
            a, b = row["entire"][k], m[k]
            if isinstance(a, str) or isinstance(b, str):
                ok = a == b  # "inf": identical tensors (JSON has no infinity)
            elif b is None or a is None:
                ok = a is None and b is None
            else:
                tol = 1e-6 * max(1.0, abs(b)) if k in ("euc", "sqnr_db", "max_abs", "mean_abs") else 1e-6
                ok = abs(a - b) <= tol
            if ok:
                passed += 1
            else:
                failed += 1
                print("FAIL %s %s: tool %r numpy %r" % (name, k, a, b), file=sys.stderr)
        checked_out += name in outs
    if checked_out != len(outs):
        failed += 1
        print("FAIL: %d of %d outputs found in the dumps" % (checked_out, len(outs)), file=sys.stderr)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
