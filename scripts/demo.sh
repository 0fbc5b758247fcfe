#!/usr/bin/env bash
# The main job on a bundled real model: UltraFace (face detection) on a real
# photo, run layer by layer, every layer dumped, the run recorded and listed.
# Run again, it replaces its own dump folder and adds a run to its database.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
OUT=$B/demo
mkdir -p "$OUT"
/usr/bin/python3 scripts/demo_input.py "$OUT/astronaut.npy"
set -x
"$B/rknn-trace" run tests/data/models/ultraface_version-RFB-320.onnx \
    -i input="$OUT/astronaut.npy" -n 5 --dump "$OUT/dump" --dump-overwrite --db "$OUT/demo.db"
"$B/rknn-trace" ls --db "$OUT/demo.db"
/usr/bin/python3 scripts/demo_faces.py "$OUT/dump"
