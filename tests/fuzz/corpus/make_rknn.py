#!/usr/bin/env python3
"""Writes the seed corpus of tests/fuzz/fuzz_rknn.c into rknn/:

* real_*.rknn: BSD-3-Clause-style Rockchip sample files (see README.md),
  copied from $RT_SHARED/data/models/rknn when that folder is there;
* broken_*.rknn: copies of them broken in one way each (truncated, bad
  offsets, vtable outside/self, wrong magic/version, broken JSON trailer,
  huge counts, unknown dtype code);
* lite/encrypted/nbg headers built here, and Python-literal snippets.
Usage: python3 tests/fuzz/corpus/make_rknn.py [SHARED]"""
import os, struct, sys

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, 'rknn')
shared = sys.argv[1] if len(sys.argv) > 1 else os.environ.get('RT_SHARED', '../shared')
src_dir = os.path.join(shared, 'data', 'models', 'rknn')
os.makedirs(out, exist_ok=True)

def w(name, data):
    with open(os.path.join(out, name), 'wb') as f:
        f.write(bytes(data))

# BSD-3-Clause-style files (rockchip-linux/rknpu2, rockchip-linux/rknpu)
real = {'real_tk2_v2_rk3566.rknn': 'multiple_input_demo.rk3566.tk134.rknn',
        'real_tk1_nbg_rk1808.rknn': 'tk1_multi_input.rk1808.rknn'}
for dst, src in real.items():
    p = os.path.join(src_dir, src)
    if os.path.exists(p):
        w(dst, open(p, 'rb').read())
p = os.path.join(out, 'real_tk2_v2_rk3566.rknn')
b = bytearray(open(p, 'rb').read()) if os.path.exists(p) else None
if b:
    dsize, = struct.unpack_from('<Q', b, 16)
    root, = struct.unpack_from('<I', b, 64)
    fb = 64
    def patched(fn):
        v = bytearray(b); fn(v); return v
    w('broken_trunc_20.rknn', b[:20])
    w('broken_trunc_data.rknn', b[:3000])
    w('broken_trunc_json.rknn', b[:-100])
    w('broken_magic.rknn', b'RKNM' + b[4:])
    w('broken_version.rknn', patched(lambda v: struct.pack_into('<Q', v, 8, 0x3306)))
    w('broken_data_size.rknn', patched(lambda v: struct.pack_into('<Q', v, 16, 1 << 62)))
    w('broken_json_size.rknn', patched(lambda v: struct.pack_into('<Q', v, 64 + dsize, (1 << 64) - 1)))
    w('broken_json.rknn', patched(lambda v: v.__setitem__(64 + dsize + 8, ord(']'))))
    w('broken_root.rknn', patched(lambda v: struct.pack_into('<I', v, fb, 0xfffffff0)))
    w('broken_vtable_out.rknn', patched(lambda v: struct.pack_into('<i', v, fb + root, -(1 << 30))))
    w('broken_vtable_self.rknn', patched(lambda v: struct.pack_into('<i', v, fb + root, 0)))
    w('broken_vtable_len.rknn', patched(lambda v: struct.pack_into('<H', v, fb + root - struct.unpack_from('<i', b, fb + root)[0], 0xfffe)))
    # a tensor naming a data buffer the model does not have (tensor slot 18)
    def tensor_slot(v, i, k):
        u = lambda o: struct.unpack_from('<I', v, fb + o)[0]
        def field(t, k):
            vt = t - struct.unpack_from('<i', v, fb + t)[0]
            return t + struct.unpack_from('<H', v, fb + vt + 4 + 2 * k)[0]
        g = field(root, 2); g += u(g); g += 4; g += u(g)
        tv = field(g, 0); tv += u(tv)
        t = tv + 4 + 4 * i; t += u(t)
        return fb + field(t, k)
    w('broken_buffer_index.rknn', patched(lambda v: struct.pack_into('<i', v, tensor_slot(v, 2, 18), 0x7fff)))
    # model-1 task lists (node slot 6: tables, slot 0 the task's register blob):
    # node 2's first task naming tensor 0 (not a blob), node 3's naming node 2's blob
    def node_task(v, ni, k):
        u = lambda o: struct.unpack_from('<I', v, fb + o)[0]
        def field(t, k):
            vt = t - struct.unpack_from('<i', v, fb + t)[0]
            return t + struct.unpack_from('<H', v, fb + vt + 4 + 2 * k)[0]
        g = field(root, 2); g += u(g); g += 4; g += u(g)
        nv = field(g, 1); nv += u(nv)
        n = nv + 4 + 4 * ni; n += u(n)
        tl = field(n, 6); tl += u(tl)
        e = tl + 4 + 4 * k; e += u(e)
        return fb + field(e, 0)
    w('broken_task_blob.rknn', patched(lambda v: struct.pack_into('<i', v, node_task(v, 2, 0), 0)))
    w('broken_task_twice.rknn', patched(lambda v: struct.pack_into('<i', v, node_task(v, 3, 0), 12)))
    # the shape vectors of tensors 1..21 each stretched to every 4-byte value
    # after it (legal for one vector alone): together they overlap, more
    # values than the model data holds (the reader's budget, len / 4)
    def stretch(v):
        for i in range(1, 22):
            at = tensor_slot(v, i, 4)
            vec = at + struct.unpack_from('<I', v, at)[0]
            if fb < vec < fb + dsize - 4:
                struct.pack_into('<I', v, vec, (fb + dsize - vec - 4) // 4)
    w('broken_overlap.rknn', patched(stretch))
    # bit flips spread over the FlatBuffer
    for k, off in enumerate(range(fb + 8, fb + dsize, dsize // 3)):
        w(f'broken_flip_{k}.rknn', patched(lambda v, o=off: v.__setitem__(o, v[o] ^ 0x80)))
# RV1103/RV1106 header: version 0x1004, a task table of 2 records
lite = bytearray(64) + struct.pack('<6I', 1000, 128, 2, 64, 4096, 512) + bytes(40) + bytes(80)
js = b'{"target_platform": ["rv1106"], "version": "2.1.0", "input_num": 0, "output_num": 0}'
w('lite_small.rknn', b'RKNN\0\0\0\0' + struct.pack('<QQ', 0x1004, len(lite) - 64) + bytes(40) + lite[64:] +
  struct.pack('<Q', len(js)) + js)
bad_lite = bytearray(lite); struct.pack_into('<I', bad_lite, 64 + 8, 0x7fffffff)
w('broken_lite_tasks.rknn', b'RKNN\0\0\0\0' + struct.pack('<QQ', 0x1004, len(lite) - 64) + bytes(40) + bad_lite[64:] +
  struct.pack('<Q', len(js)) + js)
# RV1103/RV1106 with its graph: the lite FlatBuffer after the task table
# (bench/make_rknn.py), then that graph cut short, and word 0 (its size) wrong
import subprocess, tempfile
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([sys.executable, os.path.join(here, '..', '..', '..', 'bench', 'make_rknn.py'),
                    os.path.join(tmp, 'g.rknn'), '3', 'rv1106', 'lite'], check=True)
    g = bytearray(open(os.path.join(tmp, 'g.rknn'), 'rb').read())
w('lite_graph.rknn', g)
gsize, = struct.unpack_from('<Q', g, 16)
cut = bytearray(g); struct.pack_into('<I', cut, 64, struct.unpack_from('<I', g, 64)[0] - 40)
w('broken_lite_graph_size.rknn', cut)
flip = bytearray(g); o = 64 + gsize - struct.unpack_from('<I', g, 64)[0]; flip[o] ^= 0x40
w('broken_lite_graph_root.rknn', flip)
# Toolkit2 2.3.x writes native shapes of 24 values (4 blocks of 6) for some
# weights, which a reader with a fixed limit refused ("tensor[71].native_shape:
# 24 values"); no such real file is redistributable, so bench/make_rknn.py
# writes one (native=24), as a Toolkit2 and as a lite graph. tasks=9: lite
# nodes naming more tasks than the task table's 3.
with tempfile.TemporaryDirectory() as tmp:
    mk = os.path.join(here, '..', '..', '..', 'bench', 'make_rknn.py')
    for name, extra in (('native24.rknn', ['rv1126b', 'native=24']),
                        ('lite_native24.rknn', ['rv1106', 'lite', 'native=24']),
                        ('broken_lite_task_number.rknn', ['rv1106', 'lite', 'tasks=9']),
                        # graph slot 7, the address patches: two per buffer, one naming no
                        # tensor; one vector's count past the end of the model data
                        ('relocs.rknn', ['rk3576', 'relocs=2']),
                        ('broken_relocs.rknn', ['rk3576', 'relocs=broken'])):
        subprocess.run([sys.executable, mk, os.path.join(tmp, name), '3'] + extra, check=True)
        w(name, open(os.path.join(tmp, name), 'rb').read())
w('encrypted.rknn', b'CYPTRKNN' + bytes(range(64)))
w('rknx.rknn', b'RKNX' + bytes(60))
w('nbg_short.rknn', b'RKNN\0\0\0\0' + struct.pack('<QQ', 1, 8) + b'VPMN\x0b\0\1\0' + struct.pack('<Q', 2) + b'{}')
w('json_only.rknn', b'RKNN\0\0\0\0' + struct.pack('<QQ', 2, 0) + struct.pack('<Q', len(js)) + js)
# generator strings (Python literals), good and broken
w('py_dict.txt', b"{'attrs': {'x': {'idx': 0, 'shape': [1, 3, 4, 4], 'mean': [0.5, -1e-3], 'rgb2bgr': False, 't': (1, 2), 'n': None}}, 'dynamic_shapes': {}}")
w('py_escapes.txt', b"['a\\'b', \"c\\\"d\", '\\x41\\u00e9\\n', -3, +4.5e+2, True]")
w('py_broken.txt', b"{'a': [1, 2, (3, {'b': ")
w('py_deep.txt', b'[' * 200 + b']' * 200)
