"""tests/samples/pairs.py — the pieces the checks of a vendor .rknn against its own
ONNX share (tests/samples/vendor_*.sh, imported from the repository's root): the
two runs' JSON, the rows of their level-4 tables, the frame comparison, and the
"ok   ..." / "FAIL ..." lines that checks.sh's `verdicts` counts."""
import json
import re
import sys

# a level-4 row, with or without the vendor log's "I RKNN: [time] " prefix:
# id OpType DataType Target InShapes OutShape DDR/NPU/Total ... FullName
ROW = re.compile(r"(?:^|\] )(\d+)\s+(\S+)\s+\S+\s+(NPU|CPU)\s+(\S+)\s+(\S+)\s+(\S+/\S+/\S+)\s.*\s(\S+:\S+)$")


def verdict(good, text):
    print(("ok   " if good else "FAIL ") + text)


def load(t, name):
    """T/name.json, or a FAIL line and the end of the comparison."""
    try:
        return json.load(open(f"{t}/{name}.json"))
    except (OSError, ValueError) as e:
        verdict(False, f"{name}.json: {e}")
        sys.exit()


def rows(path):
    """(OpType, target, in shapes, out shape, cycles, FullName) of every row."""
    out = []
    for line in open(path):
        m = ROW.search(line)
        if m:
            out.append(m.group(2, 3, 4, 5, 6, 7))
    return out


def frame(v, o, limit=5):
    """The ONNX's predicted frame against the vendor file's, within limit %."""
    fv, fo = v["npu"]["predicted_us"], o["npu"]["predicted_us"]
    err = (fo - fv) / fv * 100
    verdict(abs(err) <= limit, f"frame: ONNX {fo:.1f} us, vendor file {fv:.1f} us "
            f"({err:+.1f} %, within {limit} %)")
