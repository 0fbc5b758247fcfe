"""tests/oracle/yolov10_post.py DUMP_DIR [LETTERBOX_JSON] — detections of a YOLOv10 run's
dumped outputs (the model zoo's yolov10 head: per stride 8, 16, 32 a 64-channel box
tensor, 4 sides x 16 bins, and an 80-channel class score tensor), decoded as the zoo's
examples/yolov10 describes (airockchip/rknn_model_zoo bad6c733, python/yolov10.py): each
side's distance is the expectation of a softmax over its 16 bins, the box (cell + 0.5 -
left/top, cell + 0.5 + right/bottom) x stride; no NMS (YOLOv10's one-to-one head): the
anchors ranked by their best class score, kept from 0.25. Written here from that
description. Prints one line per detection: class, x0 y0 x1 y1 in the input's pixels
(undoing the letterbox {"scale", "dx", "dy"} when given), score."""
import json
import os
import sys

import numpy as np

dump = sys.argv[1]
lb = json.load(open(sys.argv[2])) if len(sys.argv) > 2 else {"scale": 1.0, "dx": 0, "dy": 0}


def load(name):
    return np.load(os.path.join(dump, name + ".npy")).astype(np.float64)[0]


boxes, scores = [], []
for k in range(3):
    # the file's outputs per stride: the 64-channel box and the 80-channel scores
    # (yolov10n.rknn names its stride-16 score tensor ..._class_sum)
    outs = [load("yolov10_output%d_%s" % (k, n)) for n in ("box", "class", "class_sum")]
    box = next(o for o in outs if o.shape[0] == 64)
    cls = next(o for o in outs if o.shape[0] == 80)
    _, gh, gw = box.shape
    stride = 640 // gh
    b = box.reshape(4, 16, gh, gw)
    e = np.exp(b - b.max(axis=1, keepdims=True))
    dist = (e / e.sum(axis=1, keepdims=True) * np.arange(16)[None, :, None, None]).sum(axis=1)
    gx, gy = np.meshgrid(np.arange(gw) + 0.5, np.arange(gh) + 0.5)
    xyxy = np.stack([gx - dist[0], gy - dist[1], gx + dist[2], gy + dist[3]]) * stride
    boxes.append(xyxy.reshape(4, -1).T)
    scores.append(cls.reshape(80, -1).T)
boxes, scores = np.concatenate(boxes), np.concatenate(scores)
best = scores.max(axis=1)
for i in np.argsort(-best)[:300]:
    if best[i] < 0.25:
        break
    x0, y0, x1, y1 = boxes[i]
    s, dx, dy = lb["scale"], lb["dx"], lb["dy"]
    print("%d %.0f %.0f %.0f %.0f %.3f" % (int(scores[i].argmax()), (x0 - dx) / s, (y0 - dy) / s,
                                         (x1 - dx) / s, (y1 - dy) / s, best[i]))
