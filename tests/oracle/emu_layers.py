"""Per-layer oracle for `run FILE.rknn --emulate --dump DIR`: every Conv of the
source ONNX whose input and output tensors the emulator dumped is recomputed
here in float64 from the emulated input (numpy, the ONNX file's weights read by
a protobuf wire decoder written here), followed by the LeakyRelu/Relu/Add the
file fuses into it, and compared with the emulated output clipped to the same
range (values beyond a tensor's int8 range saturate on the NPU). One layer's
quantization error stays far below a decoding error, so a layer under the
bound points at its tasks (DIR/tasks.json).

usage: emu_layers.py MODEL.onnx DUMPDIR MIN_COSINE MAX_STEPS
prints one line per layer: cosine, the share of values more than one
quantization step from the float result, the largest distance in steps, the
tensor and its tasks. A layer fails when its cosine is below MIN_COSINE and a
value is more than MAX_STEPS steps off: a coarse output scale alone lowers the
cosine (rounding stays within half a step, the file's int8 weights add a
little), a decoding error moves values by many steps."""
import json
import os
import struct
import sys

import numpy as np


def fields(buf):
    """(field number, wire type, value) of one protobuf message."""
    i, out = 0, []
    while i < len(buf):
        key, i = varint(buf, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 1:
            v, i = buf[i:i + 8], i + 8
        elif wt == 2:
            n, i = varint(buf, i)
            v, i = buf[i:i + n], i + n
        elif wt == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {wt}")
        out.append((f, wt, v))
    return out


def varint(buf, i):
    r = s = 0
    while True:
        b = buf[i]
        i += 1
        r |= (b & 0x7f) << s
        s += 7
        if not b & 0x80:
            return r, i


def tensor(buf):
    dims, raw, floats, name = [], None, [], ''
    for f, wt, v in fields(buf):
        if f == 1:
            if wt == 0:
                dims.append(v)
            else:
                j = 0
                while j < len(v):
                    d, j = varint(v, j)
                    dims.append(d)
        elif f == 8:
            name = v.decode()
        elif f == 9:
            raw = v
        elif f == 4 and wt == 2:
            floats += list(struct.unpack(f'<{len(v) // 4}f', v))
        elif f == 4 and wt == 5:
            floats.append(struct.unpack('<f', v)[0])
    a = np.frombuffer(raw, '<f4') if raw is not None else np.array(floats, np.float32)
    return name, a.reshape(dims).astype(np.float64)


def attr(buf):
    name, ints, fl, one = '', [], None, None
    for f, wt, v in fields(buf):
        if f == 1:
            name = v.decode()
        elif f == 2:
            fl = struct.unpack('<f', v)[0]
        elif f == 3:
            one = v
        elif f == 8:
            if wt == 0:
                ints.append(v)
            else:
                j = 0
                while j < len(v):
                    d, j = varint(v, j)
                    ints.append(d)
    return name, (fl if fl is not None else one if one is not None else ints)


def load(path):
    model = fields(open(path, 'rb').read())
    graph = fields(next(v for f, wt, v in model if f == 7))
    inits = dict(tensor(v) for f, wt, v in graph if f == 5)
    nodes = []
    for f, wt, v in graph:
        if f != 1:
            continue
        n = {'in': [], 'out': [], 'op': '', 'attr': {}}
        for g, _, x in fields(v):
            if g == 1:
                n['in'].append(x.decode())
            elif g == 2:
                n['out'].append(x.decode())
            elif g == 4:
                n['op'] = x.decode()
            elif g == 5:
                k, a = attr(x)
                n['attr'][k] = a
        nodes.append(n)
    return inits, nodes


def conv(x, w, b, a):
    s = a.get('strides', [1, 1])
    p = a.get('pads', [0, 0, 0, 0])
    d = a.get('dilations', [1, 1])
    grp = a.get('group', 1)
    x = np.pad(x, ((0, 0), (p[0], p[2]), (p[1], p[3])))
    oc, icg, kh, kw = w.shape
    oh = (x.shape[1] - d[0] * (kh - 1) - 1) // s[0] + 1
    ow = (x.shape[2] - d[1] * (kw - 1) - 1) // s[1] + 1
    y = np.zeros((oc, oh, ow))
    ocg = oc // grp
    for g in range(grp):
        xs = x[g * icg:(g + 1) * icg]
        for ky in range(kh):
            for kx in range(kw):
                patch = xs[:, ky * d[0]:ky * d[0] + s[0] * oh:s[0], kx * d[1]:kx * d[1] + s[1] * ow:s[1]]
                y[g * ocg:(g + 1) * ocg] += np.einsum('chw,oc->ohw', patch, w[g * ocg:(g + 1) * ocg, :, ky, kx])
    return y + b.reshape(-1, 1, 1)


def main():
    onnx, dump, bound, max_steps = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    inits, nodes = load(onnx)
    tasks = json.load(open(os.path.join(dump, 'tasks.json')))
    users = {}
    for n in nodes:
        for i in n['in']:
            users.setdefault(i, []).append(n)

    def npy(name):
        p = os.path.join(dump, name.replace('/', '_').replace(':', '_') + '.npy')
        return np.load(p)[0].astype(np.float64) if os.path.exists(p) else None

    producer = {o: n for n in nodes for o in n['out']}

    def rows(name, c):
        """a Concat input: dumped, or a Reshape of a dumped tensor to rows of c values
        (the head's [1, -1, c], c the Concat output's last dimension)"""
        x = npy(name)
        if x is not None:
            return x
        r = producer.get(name)
        if r is None or r['op'] != 'Reshape':
            return None
        x = npy(r['in'][0])
        return None if x is None else x.reshape(-1, c)

    stats = [0, 0]  # layers compared, failing
    compare = compare_with(npy, tasks, bound, max_steps, stats)
    for n in nodes:
        if n['op'] == 'Transpose':
            # a layout change: the emulated input's values, permuted (batch dropped by npy)
            x, out = npy(n['in'][0]), n['out'][0]
            perm = n['attr'].get('perm')
            if x is None or npy(out) is None or not perm or perm[0] != 0:
                continue
            compare(np.transpose(x, [q - 1 for q in perm[1:]]), out)
            continue
        if n['op'] == 'Concat' and npy(n['out'][0]) is not None:
            e = npy(n['out'][0])
            xs = [rows(i, e.shape[-1]) for i in n['in']]
            ax = n['attr'].get('axis', 0)
            if ax <= 0 or any(x is None or x.ndim != e.ndim for x in xs):
                continue
            compare(np.concatenate(xs, axis=ax - 1), n['out'][0])
            continue
        if n['op'] != 'Conv':
            continue
        x = npy(n['in'][0])
        if x is None:
            continue
        w = inits[n['in'][1]]
        b = inits[n['in'][2]] if len(n['in']) > 2 else np.zeros(w.shape[0])
        y, out = conv(x, w, b, n['attr']), n['out'][0]
        # the activation and the Add the compiler fuses into the conv
        for _ in range(2):
            nxt = users.get(out, [])
            if len(nxt) != 1:
                break
            m = nxt[0]
            if m['op'] == 'LeakyRelu':
                y = np.where(y < 0, y * m['attr'].get('alpha', 0.01), y)
            elif m['op'] == 'Add':
                other = npy(next(i for i in m['in'] if i != out))
                if other is None or npy(m['out'][0]) is None:
                    break
                y = y + other
            else:
                break
            out = m['out'][0]
        compare(y, out)
    print(f"{stats[0]} layers, {stats[1]} failing (cosine below {bound} with values {max_steps} steps off)")
    sys.exit(1 if stats[1] or not stats[0] else 0)


def compare_with(npy, tasks, bound, max_steps, stats):
    def compare(y, out):
        e = npy(out)
        if e is None:
            return
        if e.shape != y.shape:
            print(f"shape {e.shape} vs {y.shape} {out}")
            stats[0] += 1
            stats[1] += 1
            return
        stats[0] += 1
        yc = np.clip(y, e.min(), e.max()).ravel()
        c = float(e.ravel() @ yc / (np.linalg.norm(e) * np.linalg.norm(yc)))
        # in quantization steps of the output (its scale: the smallest gap between values)
        u = np.unique(e)
        step = float(np.min(np.diff(u))) if len(u) > 1 else 1.0
        d = np.abs(e.ravel() - yc) / step
        far = float(np.mean(d > 1.0))
        ts = ','.join(str(t['task']) for t in tasks if t['tensor'] == out)
        print(f"{c:.6f} {far:.5f} {d.max():.2f} {out} tasks {ts}")
        stats[1] += c < bound and d.max() > max_steps
    return compare


if __name__ == '__main__':
    main()
