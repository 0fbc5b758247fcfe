#!/usr/bin/python3
"""tests/quant/check_run.py RUN.json SHOW.json RUN_DUMP QUANT_DUMP

The quantized run is the run: every layer output dumped by `run --dump` must be
bit-identical to the quantized (entire) dump of the accuracy analysis, and the
per-layer errors that `show --json` reads back from the store must equal the ones
`run --json` printed (NaN stored as NULL, read back as null). Prints
"N passed, N failed"."""
import json
import os
import sys

import numpy as np


def load(d):
    idx = json.load(open(os.path.join(d, "index.json")))
    return {e["name"]: os.path.join(d, e["file"]) for e in idx}


def main(argv):
    run, show = json.load(open(argv[1])), json.load(open(argv[2]))
    r, q = load(argv[3]), load(argv[4])
    passed = failed = 0

    def check(ok, msg):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL " + msg, file=sys.stderr)

    check(set(r) == set(q), "run dump and quantized dump name different tensors")
    for name in sorted(set(r) & set(q)):
        a, b = np.load(r[name]), np.load(q[name])
        check(a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b),
              "%s: run dump differs from the quantized dump" % name)
    acc, stored = run["accuracy"]["layers"], (show["accuracy"] or {}).get("layers", [])
    check(len(acc) == len(stored), "%d rows printed, %d stored" % (len(acc), len(stored)))
    for a, s in zip(acc, stored):
        same = all(a[k] == s[k] for k in ("layer", "node", "op", "name", "fused"))
        for part in ("entire", "single"):
            for k, v in a[part].items():
                w = s[part][k]
                same &= (v is None and w is None) or (v == w) or (
                    isinstance(v, float) and isinstance(w, float) and abs(v - w) <= 1e-9 * max(1, abs(v)))
        check(same, "stored row differs: %r vs %r" % (a, s))
    check(show["quant"] == run["accuracy"]["quant"], "stored quant type")
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
