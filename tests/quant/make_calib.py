#!/usr/bin/python3
"""tests/quant/make_calib.py OUTDIR D0,D1,... LO,HI [N]

Builds a calibration set from the real photos bundled with scikit-image
(Debian python3-skimage): each photo is resized to H x W (bilinear), taken as
RGB (3 channels) or luminance (1), mapped linearly from [0,255] to [LO,HI] and
saved as OUTDIR/calib_NN.npy (float32, NCHW). Photos are also used as random
crops (left/right halves, flipped) when N exceeds the photo count.
Writes OUTDIR/dataset.txt (one file per line, paths relative to OUTDIR).
"""
import os
import sys

import numpy as np

PHOTOS = ["astronaut.png", "camera.png", "chelsea.png", "coffee.png", "coins.png",
          "horse.png", "moon.png", "page.png", "text.png", "motorcycle_left.png",
          "motorcycle_right.png", "rocket.jpg", "retina.jpg", "hubble_deep_field.jpg",
          "immunohistochemistry.png", "ihc.png", "brick.png", "grass.png", "gravel.png",
          "cell.png", "clock_motion.png", "color.png", "microaneurysms.png", "logo.png"]


def main(argv):
    if len(argv) not in (4, 5):
        sys.stderr.write(__doc__)
        return 2
    out, dims, rng = argv[1:4]
    n_want = int(argv[4]) if len(argv) == 5 else 20
    import skimage
    from PIL import Image
    d = os.path.join(os.path.dirname(skimage.__file__), "data")
    n, c, h, w = (int(v) for v in dims.split(","))
    lo, hi = (float(v) for v in rng.split(","))
    os.makedirs(out, exist_ok=True)
    photos = [p for p in PHOTOS if os.path.exists(os.path.join(d, p))]
    lines = []
    k = 0
    variant = 0
    while k < n_want:
        for p in photos:
            if k >= n_want:
                break
            img = Image.open(os.path.join(d, p)).convert("RGB" if c == 3 else "L")
            if variant == 1:
                img = img.transpose(Image.FLIP_LEFT_RIGHT)
            elif variant >= 2:
                W, H = img.size
                img = img.crop((0, 0, max(1, W // 2), H) if variant % 2 == 0 else (W // 2, 0, W, H))
            img = img.resize((w, h), Image.BILINEAR)
            a = np.asarray(img, dtype=np.float32)
            a = a[None] if c == 1 else a.transpose(2, 0, 1)
            a = lo + (hi - lo) * a / 255.0
            x = np.ascontiguousarray(np.broadcast_to(a[None], (n, c, h, w)).astype(np.float32))
            name = "calib_%02d.npy" % k
            np.save(os.path.join(out, name), x)
            lines.append(name)
            k += 1
        variant += 1
    with open(os.path.join(out, "dataset.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
