"""tests/cli/onnx_wire.py — the nodes of an ONNX file read with a protobuf wire
decoder written here (no onnx package): an oracle independent of the C
importer. nodes(path) -> [{'name', 'op', 'in', 'out'}] in file order."""


def fields(b):
    """(field number, value) pairs of one message: varints as int, the rest as bytes"""
    i, out = 0, []

    def varint():
        nonlocal i
        v = s = 0
        while True:
            c = b[i]
            i += 1
            v |= (c & 0x7f) << s
            s += 7
            if c < 0x80:
                return v
    while i < len(b):
        key = varint()
        f, wt = key >> 3, key & 7
        if wt == 0:
            v = varint()
        elif wt == 2:
            n = varint()
            v = b[i:i + n]
            i += n
        elif wt == 5:
            v = b[i:i + 4]
            i += 4
        elif wt == 1:
            v = b[i:i + 8]
            i += 8
        else:
            raise ValueError(f"wire type {wt}")
        out.append((f, v))
    return out


def nodes(path):
    graph = [v for f, v in fields(open(path, 'rb').read()) if f == 7][0]
    out = []
    for f, v in fields(graph):
        if f == 1:
            nf = fields(v)
            out.append({'in': [x.decode() for k, x in nf if k == 1],
                        'out': [x.decode() for k, x in nf if k == 2],
                        'name': ([x.decode() for k, x in nf if k == 3] or [''])[0],
                        'op': [x.decode() for k, x in nf if k == 4][0]})
    return out
