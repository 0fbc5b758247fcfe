"""Writes UltraFace's input from a real photo: skimage's astronaut (NASA, public
domain), resized to 320x240, RGB, (x - 127) / 128, NCHW float32."""
import sys

import numpy as np
from skimage import data, transform

img = data.astronaut()  # 512x512x3 uint8
img = transform.resize(img, (240, 320), preserve_range=True, anti_aliasing=True)
x = ((img.astype(np.float32) - 127.0) / 128.0).transpose(2, 0, 1)[None]
np.save(sys.argv[1], np.ascontiguousarray(x, dtype=np.float32))
