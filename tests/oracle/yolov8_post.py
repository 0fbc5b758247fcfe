"""tests/oracle/yolov8_post.py prep IMAGE OUT.npy
   tests/oracle/yolov8_post.py detect IMAGE DUMP_DIR

The model zoo's YOLOv8 pre- and post-processing (airockchip/rknn_model_zoo,
examples/yolov8: python/yolov8.py and py_utils/coco_utils.py, read for what
they compute; this is our own numpy), for the six-output RKNN form of the
model (per stride 8, 16, 32: a [64, H, W] box tensor and [80, H, W] class
probabilities, the sigmoid inside the model).

prep: the image letterboxed to 640 x 640 (scale min(640 / h, 640 / w), a
bilinear resize to round(w * r) x round(h * r), centred on black: the zoo pads
with (0, 0, 0)), RGB, pixels 0..255 as float32 NCHW [1, 3, 640, 640].

detect: from DUMP_DIR/<output>.npy (the dequantized outputs): per cell, each of
the box's 4 sides is the expectation of a softmax over 16 bins (DFL), the box
(cell + 0.5 -+ distances) x stride; its score the largest class probability;
kept at >= 0.25, then per class greedy NMS at IoU > 0.45; boxes mapped back
to the image (minus the letterbox pad, divided by the scale). Prints one line
per detection: class index, x1 y1 x2 y2 (rounded), score.
"""
import sys

import numpy as np
from PIL import Image

SIZE = 640
OBJ_THRESH, NMS_THRESH = 0.25, 0.45
# (box output, class output, stride) of yolov8n.rk3566.rknn
HEADS = [('189', '190', 8), ('191', '192', 16), ('193', '194', 32)]


def letterbox(path):
    im = Image.open(path).convert('RGB')
    w, h = im.size
    r = min(SIZE / h, SIZE / w)
    nw, nh = int(round(w * r)), int(round(h * r))
    dw, dh = (SIZE - nw) / 2, (SIZE - nh) / 2
    top, left = int(round(dh - 0.1)), int(round(dw - 0.1))
    canvas = np.zeros((SIZE, SIZE, 3), np.float32)
    canvas[top: top + nh, left: left + nw] = np.asarray(im.resize((nw, nh), Image.BILINEAR), np.float32)
    return canvas.transpose(2, 0, 1)[None], r, dw, dh


def boxes_of(box, stride):
    _, c, gh, gw = box.shape
    x = box[0].reshape(4, c // 4, gh, gw).astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    d = (e / e.sum(axis=1, keepdims=True) * np.arange(c // 4).reshape(1, -1, 1, 1)).sum(axis=1)
    col, row = np.meshgrid(np.arange(gw), np.arange(gh))
    cx, cy = col + 0.5, row + 0.5
    xyxy = np.stack([cx - d[0], cy - d[1], cx + d[2], cy + d[3]]) * stride
    return xyxy.reshape(4, -1).T


def nms(b, s):
    order, keep = np.argsort(-s, kind='stable'), []
    while order.size:
        i = order[0]
        keep.append(i)
        rest = order[1:]
        iw = np.maximum(0, np.minimum(b[i, 2], b[rest, 2]) - np.maximum(b[i, 0], b[rest, 0]))
        ih = np.maximum(0, np.minimum(b[i, 3], b[rest, 3]) - np.maximum(b[i, 1], b[rest, 1]))
        inter = iw * ih
        area = lambda k: (b[k, 2] - b[k, 0]) * (b[k, 3] - b[k, 1])
        iou = inter / (area(i) + area(rest) - inter)
        order = rest[iou <= NMS_THRESH]
    return keep


def detect(dump, r, dw, dh):
    bs, cs = [], []
    for box, cls, stride in HEADS:
        bs.append(boxes_of(np.load(f"{dump}/{box}.npy"), stride))
        c = np.load(f"{dump}/{cls}.npy")[0].astype(np.float64)
        cs.append(c.reshape(c.shape[0], -1).T)
    b, c = np.concatenate(bs), np.concatenate(cs)
    score, cls = c.max(axis=1), c.argmax(axis=1)
    ok = score >= OBJ_THRESH
    b, score, cls = b[ok], score[ok], cls[ok]
    out = []
    for k in sorted(set(cls.tolist())):
        i = np.where(cls == k)[0]
        for j in nms(b[i], score[i]):
            x1, y1, x2, y2 = b[i][j]
            out.append((int(k), (x1 - dw) / r, (y1 - dh) / r, (x2 - dw) / r, (y2 - dh) / r,
                        float(score[i][j])))
    return sorted(out, key=lambda d: -d[5])


def main():
    mode, image, path = sys.argv[1:4]
    x, r, dw, dh = letterbox(image)
    if mode == 'prep':
        np.save(path, x)
        return
    for k, x1, y1, x2, y2, s in detect(path, r, dw, dh):
        print(f"{k} {x1:.0f} {y1:.0f} {x2:.0f} {y2:.0f} {s:.3f}")


if __name__ == '__main__':
    main()
