"""Reads UltraFace's outputs from a dump folder and prints the faces found
(score > 0.7, greedy non-maximum suppression at IoU 0.3), boxes in pixels of the
original 512x512 photo."""
import json
import os
import sys

import numpy as np

d = sys.argv[1]
files = {e["name"]: e["file"] for e in json.load(open(os.path.join(d, "index.json")))}
scores = np.load(os.path.join(d, files["scores"]))[0, :, 1]
boxes = np.load(os.path.join(d, files["boxes"]))[0]
keep = []
for i in np.argsort(-scores):
    if scores[i] < 0.7:
        break
    b = boxes[i]
    if all(
        (max(0, min(b[2], k[2]) - max(b[0], k[0])) * max(0, min(b[3], k[3]) - max(b[1], k[1])))
        / ((b[2] - b[0]) * (b[3] - b[1]) + (k[2] - k[0]) * (k[3] - k[1]) + 1e-9) < 0.3 / 1.3
        for k in (boxes[j] for j in keep)
    ):
        keep.append(i)
print(f"faces found: {len(keep)}")
for i in keep:
    x0, y0, x1, y1 = (boxes[i] * 512).round().astype(int)
    print(f"  score {scores[i]:.3f}  box ({x0},{y0})-({x1},{y1})")
