#!/usr/bin/python3
"""tests/reports/make_hostile.py OUTDIR

Writes what tests/reports/hostile.sh feeds through every output:
  hostile.onnx  x float32 [1,4] through a chain of Relu nodes whose node and
                tensor names are the hostile names below (the last one is the
                graph output);
  names.json    those names, for the checks;
  perf.txt      a level-4 per-layer table (rows of tests/data/logs' YOLOv10
                table) whose FullNames are hostile too;
  fullnames.json  those FullNames;
  err.txt       a runtime log whose error lines hold a run of backquotes longer
                than a Markdown fence, markup, $(...) and a pipe."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "quant"))
from make_qdq import FLOAT, f_bytes, f_int, node, value_info  # noqa: E402

# every byte class an output format must neutralise: gnuplot's backquote
# substitution and macros, a shell's $(...), quotes, spreadsheet formulas,
# HTML and Markdown markup, a newline, terminal escapes
NAMES = [
    "bq`touch SENT_bq`x",
    "sh$(touch SENT_sh)'q\"d",
    "=cmd|' /C calc'!A0",
    "+1+2",
    "-3-4",
    "@SUM(A1)",
    "<script>alert(1)</script>|p",
    "nl\nline",
    "esc\x1b[2J\x07bel",
    "c1\xc2\x9b31m_\\*#[x](y)",
]


def main():
    out = sys.argv[1]
    nodes, prev = [], "x"
    for i, n in enumerate(NAMES):
        t = n if i + 1 < len(NAMES) else "y" + n
        nodes.append(node("Relu", [prev], [t], "node:" + n))
        prev = t
    g = b"".join(f_bytes(1, n) for n in nodes) + f_bytes(2, "g")
    g += f_bytes(11, value_info("x", FLOAT, [1, 4])) + f_bytes(12, value_info(prev, FLOAT, [1, 4]))
    m = f_int(1, 8) + f_bytes(2, "rknn-trace make_hostile.py")
    m += f_bytes(8, f_bytes(1, "") + f_int(2, 13)) + f_bytes(7, g)
    with open(os.path.join(out, "hostile.onnx"), "wb") as f:
        f.write(m)
    tensors = NAMES[:-1] + ["y" + NAMES[-1]]
    with open(os.path.join(out, "names.json"), "w") as f:
        json.dump({"nodes": ["node:" + n for n in NAMES], "tensors": tensors}, f)

    # a level-4 table: import takes no control byte in a text log (an export
    # can carry them), so names with one are left out
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "logs",
                       "perf-level4-int8-yolov10-rk3588-800mhz-yolov10issue115-zhouzq-02.txt")
    rows = [l for l in open(src, encoding="utf-8") if not l.startswith("#")]
    full = [n for n in NAMES if not any(ord(c) < 0x20 for c in n)]
    lines, k = [rows[0]], 0
    for l in rows[1:]:
        if k < len(full) and l[:1].isdigit():
            cut = l.rstrip("\n").rsplit(None, 1)
            l = cut[0] + " " * 10 + "Conv:" + full[k] + "\n"
            k += 1
        lines.append(l)
    with open(os.path.join(out, "perf.txt"), "w", encoding="utf-8") as f:
        f.writelines(lines)
    with open(os.path.join(out, "fullnames.json"), "w") as f:
        json.dump(["Conv:" + n for n in full], f)

    # error lines `show` and the reports print as the log has them
    with open(os.path.join(out, "err.txt"), "w", encoding="utf-8") as f:
        f.write("I RKNN: [10:00:00.000] RKNN Runtime Information, librknnrt version: 2.3.2\n"
                "E RKNN: [10:00:00.001] op ```` <script>alert(1)</script> $(touch SENT_e) "
                "`touch SENT_e2` | **x** [a](b)\n"
                "E RKNN: [10:00:00.002] failed to submit!, op id: 1, op name: <b>bold</b>\n")


if __name__ == "__main__":
    main()
