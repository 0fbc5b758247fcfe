"""tests/oracle/rknn_qcfg.py: writes a Toolkit2-layout quantization.cfg
(docs/sim-model-format.md, runtime/quant/quant.h) holding the activation
scale and zero point of every tensor of an RV1103/RV1106 ("lite") .rknn,
by tensor name, so our ONNX int8 simulation of the source model runs on the
vendor file's own grid (`run -q i8 --hybrid CFG`).

The lite graph is a FlatBuffer at the end of the model data (model data at
byte 64, its size the u64 at byte 16; the graph its last header-word-0
bytes); tensor slot 5 the name, 6 the scale, 7 the zero point
(docs/rknn-format.md "RV1103/RV1106 model data"). The compiler's own
tensors (names the source ONNX lacks, e.g. "*_exSecondary") are left out,
which the runtime would refuse.

The graph holds no weight scales. With --weights every Conv weight of the
source gets the compiler's grid, computed here with numpy from the float
weights: per output channel, range widened to 0, scale = (max - min) / 255,
zero point = round(-128 - min / scale) (docs/rknn-format.md "Weights",
checked byte for byte against five vendor files' weights).

usage: rknn_qcfg.py FILE.rknn SOURCE.onnx OUT.cfg [--weights]
prints the number of tensors written, of those left out and of weights"""
import struct
import sys

import numpy as np

from emu_layers import load
from rknn_fb import FB


def lite_quant(path):
    f = FB(path)
    size = struct.unpack_from('<Q', f.file, 16)[0]
    word0 = struct.unpack_from('<I', f.file, 64)[0]
    f.fb = f.file[64 + size - word0: 64 + size]
    if f.fb[4:8] != b'RKNN':
        raise SystemExit(f'{path}: no lite graph (identifier {f.fb[4:8]!r})')
    out = {}
    for t in f.tables(f.graph(), 0):
        name, s, z = f.string(t, 5), f.first(t, 6, '<f'), f.first(t, 7, '<i')
        if name and s is not None and z is not None:
            out[name] = (s, z)
    return out


def weight_grid(w):
    """per output channel: (min, max, scale, zero point) as the vendor's compiler"""
    rows = []
    for c in w.reshape(w.shape[0], -1).astype(np.float64):
        lo, hi = min(0.0, c.min()), max(0.0, c.max())
        s = float(np.float32((hi - lo) / 255)) if hi > lo else 1.0
        z = int(np.clip(np.floor(-128 - lo / s + 0.5), -128, 127))
        rows.append((lo, hi, s, z))
    return rows


def put_list(o, key, vals):
    o.write(f"        {key}:\n" + ''.join(f"        - {v!r}\n" for v in vals))


def main():
    src, onnx, dst = sys.argv[1:4]
    weights = '--weights' in sys.argv[4:]
    q = lite_quant(src)
    inits, nodes = load(onnx)
    names = {t for n in nodes for t in n['in'] + n['out']} - set(inits)
    skipped = [k for k in q if k not in names]
    q = {k: v for k, v in q.items() if k in names}
    with open(dst, 'w') as o:
        o.write('custom_quantize_layers: {}\nquantize_parameters:\n')
        for name, (s, z) in q.items():
            o.write(f"    '{name}':\n        qtype: asymmetric_quantized\n"
                    f"        qmethod: layer\n        dtype: int8\n"
                    f"        scale:\n        - {s!r}\n        zero_point:\n        - {z}\n")
        convs = [n['in'][1] for n in nodes if n['op'] == 'Conv' and n['in'][1] in inits] \
            if weights else []
        for name in convs:
            g = weight_grid(inits[name])
            o.write(f"    '{name}':\n        qtype: asymmetric_quantized\n"
                    f"        qmethod: channel\n        dtype: int8\n")
            for k, key in enumerate(['min', 'max', 'scale', 'zero_point']):
                put_list(o, key, [r[k] for r in g])
    print(len(q), len(skipped), *([len(convs)] if weights else []))


if __name__ == '__main__':
    main()
