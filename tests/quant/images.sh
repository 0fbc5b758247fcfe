#!/usr/bin/env bash
# tests/quant/images.sh [BUILD] — .png/.jpg calibration images: the loader's
# tensor (decode, bilinear resize to the input, RGB or luma, (x - mean) / std,
# NCHW or NHWC) against PIL + numpy doing the documented rule on real photos
# (scikit-image data); a calibration run from an image dataset; bad input.
source "$(dirname "$0")/harness.sh" "$@"
SK=/usr/lib/python3/dist-packages/skimage/data
# photos: RGB png, gray png, RGBA png, a real jpg, and PIL-made jpgs (RGB, gray)
$PY - "$SK" "$T" <<'PYEOF' || bad "fixtures"
import sys
from PIL import Image
sk, t = sys.argv[1], sys.argv[2]
Image.open(sk + "/chelsea.png").convert("RGB").save(t + "/chelsea.jpg", quality=90)
Image.open(sk + "/camera.png").convert("L").save(t + "/camera.jpg", quality=85)
Image.open(sk + "/astronaut.png").convert("RGBA").save(t + "/astro_rgba.png")
Image.open(sk + "/coffee.png").convert("RGB").resize((40, 30)).save(t + "/small.png")
PYEOF
cases=(
  "$SK/astronaut.png 1,3,224,224 127.5 127.5"
  "$SK/coffee.png 1,3,240,320 123.675,116.28,103.53 58.395,57.12,57.375"
  "$SK/camera.png 1,1,28,28 - -"
  "$SK/chelsea.png 1,1,64,48 0 255"
  "$T/astro_rgba.png 1,3,100,100 - -"
  "$T/small.png 1,3,96,128 - -"
  "$T/small.png 1,96,128,3 10 2"
  "$SK/rocket.jpg 1,3,416,416 - -"
  "$T/chelsea.jpg 1,3,48,192 127.5 128"
  "$T/camera.jpg 1,3,64,64 - -"
)
i=0
for c in "${cases[@]}"; do
    set -- $c
    i=$((i + 1))
    if ! "$B/tests/quant_image" "$1" "$2" "$3" "$4" "$T/c$i.npy" 2>"$T/err"; then
        bad "load $c: $(cat "$T/err")"; continue
    fi
    $PY - "$1" "$2" "$3" "$4" "$T/c$i.npy" <<'PYEOF' && ok || bad "values $c"
import sys
import numpy as np
from PIL import Image
path, dims, mean, std, got = sys.argv[1:6]
dims = [int(v) for v in dims.split(",")]
im = Image.open(path)
if im.mode in ("RGBA", "LA") or (im.mode == "P" and "transparency" in im.info):
    rgba = np.asarray(im.convert("RGBA"), dtype=np.float64)
    # libpng composites in linear light; the photo here is opaque, so alpha = 255
    assert (rgba[..., 3] == 255).all()
    a = rgba[..., :3]
else:
    a = np.asarray(im.convert("RGB"), dtype=np.float64)
nhwc = dims[1] not in (1, 3)
C, H, W = (dims[3], dims[1], dims[2]) if nhwc else (dims[1], dims[2], dims[3])
h, w = a.shape[:2]
def axis(n_in, n_out):
    s = np.clip((np.arange(n_out) + 0.5) * n_in / n_out - 0.5, 0, n_in - 1)
    i0 = np.floor(s).astype(int)
    return i0, np.minimum(i0 + 1, n_in - 1), s - i0
y0, y1, fy = axis(h, H)
x0, x1, fx = axis(w, W)
top = a[y0][:, x0] + fx[None, :, None] * (a[y0][:, x1] - a[y0][:, x0])
bot = a[y1][:, x0] + fx[None, :, None] * (a[y1][:, x1] - a[y1][:, x0])
r = top + fy[:, None, None] * (bot - top)
if C == 1:
    r = (0.299 * r[..., 0] + 0.587 * r[..., 1] + 0.114 * r[..., 2])[..., None]
m = np.array([float(v) for v in mean.split(",")]) if mean != "-" else np.zeros(1)
s = np.array([float(v) for v in std.split(",")]) if std != "-" else np.ones(1)
r = (r - m[:C] if m.size > 1 else r - m[0]) / (s[:C] if s.size > 1 else s[0])
want = r[None] if nhwc else r.transpose(2, 0, 1)[None]
g = np.load(got)
assert g.shape == tuple(dims), (g.shape, dims)
err = np.abs(g - want).max()
# float32 arithmetic in C vs float64 here; JPEG decoded by the same libjpeg-turbo
assert err <= 2e-4 * max(1.0, np.abs(want).max()), err
PYEOF
done
# the same photo as .png and as a lossless-equal .npy calibrate to the same ranges
$PY - "$SK" "$T" <<'PYEOF' || bad "dataset fixtures"
import sys, os
import numpy as np
from PIL import Image
sk, t = sys.argv[1], sys.argv[2]
photos = ["astronaut.png", "coffee.png", "chelsea.png", "motorcycle_left.png", "rocket.jpg"]
os.makedirs(t + "/ds")
with open(t + "/ds/images.txt", "w") as f:
    for p in photos:
        f.write(os.path.join(sk, p) + "\n")
with open(t + "/ds/mixed.txt", "w") as f:
    f.write("# a comment, then an image and an npy\n" + os.path.join(sk, photos[0]) + "\n")
    np.save(t + "/ds/x.npy", np.zeros((1, 3, 240, 320), np.float32))
    f.write("x.npy\n")
open(t + "/ds/missing.txt", "w").write(os.path.join(sk, photos[0]) + "\nnosuch.png\n")
open(t + "/ds/twofiles.txt", "w").write(os.path.join(sk, photos[0]) + " x.npy\n")
open(t + "/ds/badext.txt", "w").write("photo.bmp\n")
open(t + "/ds/notpng.png", "w").write("this is not a png")
open(t + "/ds/corrupt.txt", "w").write("notpng.png\n")
open(t + "/ds/truncjpg.jpg", "wb").write(open(os.path.join(sk, "rocket.jpg"), "rb").read()[:200])
open(t + "/ds/trunc.txt", "w").write("truncjpg.jpg\n")
# cut after two thirds: the header decodes, the scan data ends early
for src, name in (("rocket.jpg", "cutjpg.jpg"), ("coffee.png", "cutpng.png")):
    b = open(os.path.join(sk, src), "rb").read()
    open(t + "/ds/" + name, "wb").write(b[:len(b) * 2 // 3])
    open(t + "/ds/" + name.split(".")[0] + ".txt", "w").write(os.path.join(sk, photos[0]) + "\n" + name + "\n")
# calibration data with NaN/inf: every value, or 7 of them
np.save(t + "/ds/allnan.npy", np.full((1, 3, 240, 320), np.nan, np.float32))
x = np.random.default_rng(3).random((1, 3, 240, 320), dtype=np.float32)
x.flat[[5, 50, 500, 5000, 50000, 100000, 200000]] = [np.inf, -np.inf, np.nan, np.nan, np.inf, np.nan, np.nan]
np.save(t + "/ds/someinf.npy", x)
np.save(t + "/ds/fine.npy", np.zeros((1, 3, 240, 320), np.float32))
open(t + "/ds/allnan.txt", "w").write("fine.npy\nallnan.npy\n")
open(t + "/ds/someinf.txt", "w").write("someinf.npy\n")
PYEOF
M=tests/data/models/ultraface_version-RFB-320.onnx
$PY tests/e2e/make_input.py "$T/in.npy" 1,3,240,320 -1,1 astronaut 0 || bad "input"
expect_rc 0 "calibrate from images" "$R" run "$M" -i "input=$T/in.npy" -q i8 --dataset "$T/ds/images.txt" \
    --mean 127 --std 128 --no-db --no-progress --json
$PY -c "import json,sys; a=json.load(open(sys.argv[1]))['accuracy']; assert a['calibration_samples']==5, a['calibration_samples']; \
c=min(o['entire']['cos'] for o in a['outputs']); assert c > 0.99, c" "$T/out" && ok || bad "5 images calibrate ultraface to output cos > 0.99"
expect_rc 0 "calibrate, progress on" "$R" run "$M" -i "input=$T/in.npy" -q i8 --dataset "$T/ds/images.txt" \
    --mean 127 --std 128 --no-db -n 1 --warmup 0
! grep -q $'\r' "$T/err" && ok || bad "no progress bar when stderr is not a terminal"
expect_rc 0 "images and npy mixed" "$R" run "$M" -i "input=$T/in.npy" -q i8 --dataset "$T/ds/mixed.txt" --no-db --no-progress
# the list as a Windows editor saves it (a UTF-8 byte-order mark, CRLF line ends):
# the same calibration as the plain list
expect_rc 0 "calibrate, plain list" "$R" run "$M" -i "input=$T/in.npy" -q i8 --dataset "$T/ds/images.txt" \
    --mean 127 --std 128 --no-db --no-progress --json -n 1 --warmup 0
cp "$T/out" "$T/plain_ds.json"
{ printf '\357\273\277'; sed 's/$/\r/' "$T/ds/images.txt"; } >"$T/ds/images_win.txt"
expect_rc 0 "calibrate, BOM and CRLF list" "$R" run "$M" -i "input=$T/in.npy" -q i8 --dataset "$T/ds/images_win.txt" \
    --mean 127 --std 128 --no-db --no-progress --json -n 1 --warmup 0
$PY - "$T/plain_ds.json" "$T/out" <<'PYEOF' && ok || bad "a BOM and CRLF list calibrates as the plain one"
import json, sys
a, b = (json.load(open(p))["accuracy"] for p in sys.argv[1:3])
assert a["calibration_samples"] == b["calibration_samples"] == 5, (a["calibration_samples"], b["calibration_samples"])
assert [o["entire"]["cos"] for o in a["outputs"]] == [o["entire"]["cos"] for o in b["outputs"]]
PYEOF
# without -i the run (and its accuracy check) feeds the dataset's first sample, and
# says so: the same figures as giving that image with -i, the source recorded
first=$(grep -v '^#' "$T/ds/images.txt" | head -1)
case $first in /*) ;; *) first="$T/ds/$first" ;; esac
expect_rc 0 "dataset, no -i" "$R" run "$M" -q i8 --dataset "$T/ds/images.txt" --mean 127 --std 128 \
    --no-db --no-progress --json -n 1 --warmup 0
cp "$T/out" "$T/ds_first.json"
grep -q "input: the first --dataset sample ($first)" "$T/err" && ok || bad "says which input: $(cat "$T/err")"
expect_rc 0 "same image with -i" "$R" run "$M" -i "input=$first" -q i8 --dataset "$T/ds/images.txt" \
    --mean 127 --std 128 --no-db --no-progress --json -n 1 --warmup 0
$PY - "$T/ds_first.json" "$T/out" "$first" <<'PYEOF' && ok || bad "dataset's first sample = -i that file"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["inputs"][0]["source"] == sys.argv[3], a["inputs"]
ca = [o["entire"]["cos"] for o in a["accuracy"]["outputs"]]
cb = [o["entire"]["cos"] for o in b["accuracy"]["outputs"]]
assert ca == cb, (ca, cb)
PYEOF
# bad input: one line on stderr, exit 2; bad options: exit 1
for c in missing:"nosuch.png" twofiles:"dataset line 1: 2 files, the model has 1 input" \
         badext:"dataset line 1: 'photo.bmp' is not a .npy, .png or .jpg file" corrupt:"notpng.png" \
         trunc:"truncjpg.jpg" cutjpg:"cutjpg.jpg: corrupt JPEG: Premature end of JPEG file" \
         cutpng:"cutpng.png: corrupt PNG" \
         allnan:"allnan.npy: 230400 of 230400 values are NaN or inf" \
         someinf:"someinf.npy: 7 of 230400 values are NaN or inf"; do
    f=${c%%:*}; want=${c#*:}
    expect_rc 2 "dataset $f" "$R" run "$M" -q i8 --dataset "$T/ds/$f.txt" --no-db --no-progress
    grep -qF "$want" "$T/err" && [ "$(wc -l <"$T/err")" = 1 ] && ok || bad "$f message: $(cat "$T/err")"
done
expect_rc 2 "image into a 2-D input" "$B/tests/quant_image" "$SK/camera.png" 1,784 - - "$T/x.npy"
grep -q "an image fills a 4-D input" "$T/err" && ok || bad "2-D message"
expect_rc 1 "bad --mean" "$R" run "$M" -q i8 --dataset "$T/ds/images.txt" --mean 1,x --no-db
expect_rc 1 "zero --std" "$R" run "$M" -q i8 --dataset "$T/ds/images.txt" --std 0 --no-db
expect_rc 1 "--mean without dataset" "$R" run "$M" -q i8 --mean 1 --no-db
finish
