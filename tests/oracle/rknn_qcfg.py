"""tests/oracle/rknn_qcfg.py: writes a Toolkit2-layout quantization.cfg
(docs/sim-model-format.md, runtime/quant/quant.h) holding the activation
scale and zero point of every tensor of an RV1103/RV1106 ("lite") .rknn,
by tensor name, so our ONNX int8 simulation of the source model runs on the
vendor file's own grid (`run -q i8 --hybrid CFG`).

The lite graph is a FlatBuffer at the end of the model data (model data at
byte 64, its size the u64 at byte 16; the graph its last header-word-0
bytes); tensor slot 5 the name, 6 the scale, 7 the zero point
(docs/rknn-format.md "RV1103/RV1106 model data"). Weights (no scale in the
graph) are left out; so are the compiler's own tensors (names the source
ONNX lacks, e.g. "*_exSecondary"), which the runtime would refuse.

usage: rknn_qcfg.py FILE.rknn SOURCE.onnx OUT.cfg
prints the number of tensors written and of those left out"""
import struct
import sys

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


def main():
    src, onnx, dst = sys.argv[1:4]
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
    print(len(q), len(skipped))


if __name__ == '__main__':
    main()
