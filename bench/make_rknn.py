#!/usr/bin/env python3
"""bench/make_rknn.py OUT N [TARGET [lite]] [native=K] [tasks=T] [dims=D] [relocs=P] — writes a synthetic Toolkit2 .rknn
(container version 6, FlatBuffer model data, JSON trailer), or with `lite` an
RV1103/RV1106 one (container 0x1004: header, task table, then the graph as
the lite FlatBuffer with its slot numbers), whose graph is
InputOperator, N ConvRelu/Add/Conv layers on a 1x32x80x80 int8 tensor
chain, and OutputOperator: the layout of docs/rknn-format.md, for timing the
reader and the prediction on a model of a given size (real samples stop at
102 layers). native=K gives each conv weight a native shape of K values (blocks
of 6 as the compiler writes them; Toolkit2 2.3.x writes 24 for some weights);
tasks=T sets every lite node's task number to T; dims=D writes the activations
with D dims (trailing 1s); relocs=P writes graph slot 7, the address patches: P {offset,
entry} pairs for each conv's weight and bias and for a name no tensor has (relocs=broken:
one vector's count past the end of the buffer) (the fuzz corpus and tests use these)."""
import json, struct, sys

opts = dict(a.split('=', 1) for a in sys.argv[1:] if '=' in a)
args = [a for a in sys.argv[1:] if '=' not in a]
out, n = args[0], int(args[1])
target = args[2] if len(args) > 2 else 'rk3588'
lite = len(args) > 3 and args[3] == 'lite'
native_len = int(opts.get('native', 0))
task_no = int(opts.get('tasks', 1))
act_dims = int(opts.get('dims', 4))
relocs = opts.get('relocs')
buf = bytearray()

# A table is a list of (slot, kind, value): kind 'u8', 'i32', 'str', 'ivec',
# 'table', 'tvec', 'svec' (a vector of (u32, u32) structs; a value of None: a count
# past the end). Vtable first, then the table, then its children (uoffsets
# point forward), patched when the children are placed.
def emit(fields):
    nslots = max([s for s, _, _ in fields] + [-1]) + 1
    layout, size = {}, 4
    for s, k, _ in fields:
        layout[s] = size
        size += 1 if k == 'u8' else 4
    vt = len(buf)
    buf.extend(struct.pack('<HH', 4 + 2 * nslots, size))
    for s in range(nslots):
        buf.extend(struct.pack('<H', layout.get(s, 0)))
    pos = len(buf)
    buf.extend(struct.pack('<i', pos - vt))
    buf.extend(bytes(size - 4))
    for s, k, v in fields:
        at = pos + layout[s]
        if k == 'u8':
            buf[at] = v
        elif k == 'i32':
            struct.pack_into('<i', buf, at, v)
        else:
            child = len(buf)
            if k == 'str':
                b = v.encode()
                buf.extend(struct.pack('<I', len(b)) + b + b'\0')
            elif k == 'ivec':
                buf.extend(struct.pack(f'<I{len(v)}i', len(v), *v))
            elif k == 'svec':
                buf.extend(struct.pack('<I', 0x7fffffff if v is None else len(v)))
                for a, b in v or []:
                    buf.extend(struct.pack('<II', a, b))
            elif k == 'table':
                child = emit(v)
            elif k == 'tvec':
                buf.extend(struct.pack('<I', len(v)))
                slots = len(buf)
                buf.extend(bytes(4 * len(v)))
                for i, t in enumerate(v):
                    p = emit(t)
                    struct.pack_into('<I', buf, slots + 4 * i, p - (slots + 4 * i))
            struct.pack_into('<I', buf, at, child - at)
    return pos

C, H = 32, 80
tensors, nodes = [[(0, 'u8', 0)]], []
def tensor(name, kind, shape, dtype=3, native=None):
    q = 6 if lite else 10  # scale, zero point
    tensors.append([(0, 'u8', dtype), (2, 'u8', kind)] + ([(3, 'ivec', native)] if native else []) +
                   [(4, 'ivec', shape), (5, 'str', name), (q, 'ivec', [0x3c23d70a]), (q + 1, 'ivec', [0])])
    return len(tensors) - 1
# a weight's native shape: [OC1, IC1, kh, kw, OC2, IC2] blocks, one per output-channel group
def weight_native(k):
    blocks = max(1, k // 6)
    return ([C // 16 // blocks or 1, 1, 3, 3, 16, 32] * blocks + [1] * (k % 6)) if k else None
act = [1, C, H, H] + [1] * (act_dims - 4)
x = tensor('input', 1, act)
nodes.append([(1, 'str', 'InputOperator'), (2, 'str', 'InputOperator:input'), (3, 'u8', 0),
              (5, 'ivec', [x])])
prev2 = x
for i in range(n):
    op = ('ConvRelu', 'Add', 'Conv')[i % 3]
    if op.startswith('Conv'):
        w = tensor(f'w{i}', 4, [C, C, 3, 3], native=weight_native(native_len))
        b = tensor(f'b{i}', 4, [C], 6)
        y = tensor(f't{i}', 3, act)
        params = [(1, 'ivec', [1, 1]), (3, 'ivec', [3, 3]), (4, 'ivec', [1, 1, 1, 1]),
                  (5, 'ivec', [1, 1])]
        nodes.append([(1, 'str', op), (2, 'str', f'Conv:Conv_{i}'), (3, 'u8', 2),
                      (4, 'ivec', [x, w, b]), (5, 'ivec', [y])] +
                     ([(9, 'ivec', [task_no])] if lite else [(7, 'u8', 1), (8, 'table', params)]))
    else:
        y = tensor(f't{i}', 3, act)
        nodes.append([(1, 'str', op), (2, 'str', f'{op}:{op}_{i}'), (3, 'u8', 2),
                      (4, 'ivec', [x, prev2]), (5, 'ivec', [y])] + ([(9, 'ivec', [task_no])] if lite else []))
    prev2, x = x, y
tensors[x][1] = (2, 'u8', 2)
nodes.append([(1, 'str', 'OutputOperator'), (2, 'str', f'OutputOperator:t{n - 1}'), (3, 'u8', 2),
              (4, 'ivec', [x])])
graph = [(0, 'tvec', tensors), (1, 'tvec', nodes), (2, 'ivec', [1]), (3, 'ivec', [x])]
if relocs is not None and not lite:
    k = 0 if relocs == 'broken' else int(relocs)
    names = [f'{c}{i}' for i in range(n) if i % 3 != 1 for c in 'wb'] + ['no_such_tensor']
    graph.append((7, 'tvec', [[(0, 'str', nm), (1, 'svec', [(16 * j, 3 * e + j) for j in range(k)])]
                              for e, nm in enumerate(names)]))
    if relocs == 'broken':
        graph[-1][2][0][1] = (1, 'svec', None)
sh = 2 if lite else 0  # the lite root lacks slots 4 and 5
root = [(0, 'i32', 6), (1, 'str', 'RKNPU t3' if lite else 'RKNPU v2'), (2, 'tvec', [graph]),
        (6 - sh, 'i32', 20302), (7 - sh, 'str', 'bench(compiler version: synthetic)'),
        (8 - sh, 'str', target), (9 - sh, 'str', 'ONNX')]
buf.extend(bytes(8))                      # root offset + file identifier
struct.pack_into('<I', buf, 0, emit(root))
buf[4:8] = b'RKNN'
buf.extend(bytes(-len(buf) % 64))
js = json.dumps({'version': '2.3.2-bench', 'target_platform': [target], 'network_platform': 'ONNX',
                 'input_num': 1, 'output_num': 1, 'norm_tensor': [], 'graph': []}).encode()
version = 6
if lite:  # header words: config size, task table size, tasks; one task per NPU node
    ntask = n
    table = b''.join(struct.pack('<8IQ', 0, k + 1, 0x1d, 0x300, 0x1ffff, 0, 8, 0, 64 * k)
                     for k in range(ntask))
    table += bytes(-len(table) % 64)
    buf = struct.pack('<6I', len(buf), len(table), ntask, 64 * ntask, 0, 0) + bytes(40) + table + buf
    version = 0x1004
with open(out, 'wb') as f:
    f.write(b'RKNN\0\0\0\0' + struct.pack('<QQ', version, len(buf)) + bytes(40) + buf +
            struct.pack('<Q', len(js)) + js)
