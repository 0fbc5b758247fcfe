#!/usr/bin/python3
"""tests/e2e/make_input.py OUT.npy D0,D1,... LO,HI SOURCE SEED

Makes one float32 model input of shape D0,D1,... with values in [LO,HI]:
  SOURCE = random        seeded uniform noise (numpy default_rng(SEED))
  SOURCE = <photo name>  a real photo from scikit-image's bundled data
                         (skimage/data/<name>.png, Debian python3-skimage), resized
                         to the input's H x W (bilinear), as RGB for 3 channels or
                         luminance for 1, and mapped linearly from [0,255] to [LO,HI].
Noise makes many detectors output a flat map (a weak test); photos give the model
something it was trained to see. NCHW layout; the batch is the photo repeated.
"""
import os
import sys

import numpy as np


def photo(name, shape, lo, hi):
    import skimage
    from PIL import Image

    path = os.path.join(os.path.dirname(skimage.__file__), "data", name + ".png")
    if len(shape) != 4 or shape[1] not in (1, 3):
        raise ValueError("a photo needs an N,C,H,W input with C = 1 or 3, not %s" % (shape,))
    n, c, h, w = shape
    img = Image.open(path).convert("RGB" if c == 3 else "L")
    img = img.resize((w, h), Image.BILINEAR)
    a = np.asarray(img, dtype=np.float32)
    if c == 1:
        a = a[None, :, :]
    else:
        a = a.transpose(2, 0, 1)
    a = lo + (hi - lo) * a / 255.0
    return np.broadcast_to(a[None], (n, c, h, w)).astype(np.float32)


def main(argv):
    if len(argv) != 6:
        sys.stderr.write(__doc__)
        return 2
    out, dims, rng, source, seed = argv[1:]
    shape = tuple(int(d) for d in dims.split(","))
    lo, hi = (float(v) for v in rng.split(","))
    if source == "random":
        x = np.random.default_rng(int(seed)).uniform(lo, hi, shape).astype(np.float32)
    else:
        x = photo(source, shape, lo, hi)
    np.save(out, np.ascontiguousarray(x))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
