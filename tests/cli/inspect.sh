#!/usr/bin/env bash
# `rknn-trace inspect` and `rknn-trace run FILE.rknn` (predicted profile) on
# every vendor file of $RT_SHARED/data/models/rknn, checked against
# independent oracles: the MANIFEST's stated facts (written with a separate
# reader), the container and JSON trailer read by Python's struct/json, the
# source ONNX read by a protobuf wire decoder written here, hand-computed
# cycles, the RV1103 graph walked by a FlatBuffer reader written here, and the
# store read by the sqlite3 CLI. Broken copies must give
# exit 2 and one line naming the file and the field.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RT=$B/rknn-trace
PY=/usr/bin/python3
SHARED=${RT_SHARED:-../shared}
D=$SHARED/data/models/rknn
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0

source tests/cli/expect.sh

if [ ! -f "$D/MANIFEST.md" ]; then
    echo "no $D/MANIFEST.md: vendor samples missing"
    echo "0 passed, 1 failed"
    exit 1
fi

# --- every file: inspect --json vs MANIFEST and the JSON trailer ------------------
for f in "$D"/*.rknn; do
    n=$(basename "$f")
    if ! "$RT" inspect "$f" --json >"$T/$n.json" 2>"$T/err"; then
        bad "inspect $n failed: $(cat "$T/err")"; continue
    fi
    "$RT" inspect "$f" >"$T/$n.txt" 2>>"$T/err" || bad "inspect $n (text) failed"
    if out=$($PY - "$f" "$T/$n.json" "$D/MANIFEST.md" <<'EOF'
import json, re, struct, sys, ast
path, ours, manifest = sys.argv[1:4]
name = path.rsplit('/', 1)[1]
d = json.load(open(ours))
b = open(path, 'rb').read()
errs = []
def check(what, got, want):
    if got != want:
        errs.append(f"{name}: {what}: inspect says {got!r}, oracle {want!r}")
# container (format notes section 8), read independently
version, dsize = struct.unpack_from('<QQ', b, 8)
doff = 64 if (version & 0xff) > 1 and dsize > 0 else 24
jsize, = struct.unpack_from('<Q', b, doff + dsize)
trailer = json.loads(b[doff + dsize + 8: doff + dsize + 8 + jsize])
check('container_version', d['container_version'], version)
tp = trailer.get('target_platform')
check('target', d['target'], tp[0].lower() if tp else None)
check('toolkit', d['toolkit'], trailer['version'])
check('inputs', len(d['inputs']), trailer['input_num'])
check('outputs', len(d['outputs']), trailer['output_num'])
# I/O names and shapes: the trailer's graph list -> norm_tensor url/size
norm = {t['tensor_id']: t for t in trailer['norm_tensor']}
for role in ('input', 'output'):
    want = [norm[g['right_tensor_id']] for g in trailer['graph'] if g['left'] == role]
    got = d[role + 's']
    check(role + ' names', [x['name'] for x in got], [w.get('url', '') for w in want])
    check(role + ' shapes', [x['shape'] for x in got], [w['size'] for w in want])
# MANIFEST summary row: | file | bytes | target | version | data kind | toolkit | repo |
text = open(manifest).read()
row = next(l for l in text.splitlines() if l.startswith(f"| `{name}`"))
cells = [c.strip() for c in row.strip('|').split('|')]
check('manifest version', d['container_version'], int(cells[3], 16))
kind = {'FB': 'Toolkit2 FlatBuffer', 'VPMN': 'Toolkit1 OpenVX NBG',
        'none': 'Toolkit1 JSON-only', 'lite': 'RV1103/RV1106 lite'}[cells[4].split()[0]]
check('manifest data kind', d['container'], kind)
check('manifest toolkit', d['toolkit'], cells[5])
# MANIFEST per-file FlatBuffer facts
sec = text.split(f"### `{name}`", 1)[1].split('\n### ', 1)[0]
m = re.search(r'field0 \(model version\) = (\d+)', sec)
if kind != 'RV1103/RV1106 lite':
    check('model version', d['model_version'], int(m.group(1)) if m else None)
    m = re.search(r'field6 \(compiler version code\) = (\d+)', sec)
    check('compiler code', d['compiler_code'], int(m.group(1)) if m else None)
    m = re.search(r'field1 \(target NPU\) = `([^`]*)`', sec)
    check('npu', d['npu'], m.group(1) if m else None)
m = re.search(r'FlatBuffer graph: (\d+) tensors .*?, (\d+) nodes: (\{[^}]*\})', sec)
if m:
    check('tensors', d['tensors'], int(m.group(1)))
    check('nodes', len(d['nodes']), int(m.group(2)))
    check('op counts', d['op_counts'], ast.literal_eval(m.group(3)))
    check('target counts', sum(d['target_counts'].values()), int(m.group(2)))
    m = re.search(r'input_json: `(\{.*?\})`', sec)
    ij = json.loads(m.group(1))
    for x in d['inputs']:
        check('native dtype ' + x['name'], x['dtype'], ij[x['name']]['dtype'])
        check('native layout ' + x['name'], x['layout'], ij[x['name']]['layout'])
elif kind == 'RV1103/RV1106 lite':
    # the graph after the weights (header word 0: its size), walked here
    fbb = b[doff + dsize - struct.unpack_from('<I', b, doff)[0]: doff + dsize]
    u32 = lambda o: struct.unpack_from('<I', fbb, o)[0]
    def slot(t, k):
        vt = t - struct.unpack_from('<i', fbb, t)[0]
        n = (struct.unpack_from('<H', fbb, vt)[0] - 4) // 2
        f = struct.unpack_from('<H', fbb, vt + 4 + 2 * k)[0] if k < n else 0
        return t + f if f else None
    def vec(o):
        o += u32(o); return [o + 4 + 4 * i for i in range(u32(o))]
    def string(o):
        o += u32(o); return fbb[o + 4: o + 4 + u32(o)].decode()
    root = u32(0)
    check('lite model version', d['model_version'], u32(slot(root, 0)))
    check('lite compiler code', d['compiler_code'], u32(slot(root, 4)))
    check('lite npu', d['npu'], string(slot(root, 1)))
    g = vec(slot(root, 2))[0]; g += u32(g)
    nodes = [o + u32(o) for o in vec(slot(g, 1))]
    check('lite node ops', [n['op'] for n in d['nodes']], [string(slot(n, 1)) for n in nodes])
    check('lite node names', [n['name'] for n in d['nodes']], [string(slot(n, 2)) for n in nodes])
    check('lite tasks per node sum to the header task count', sum(n.get('tasks', 0) for n in d['nodes']),
          struct.unpack_from('<I', b, doff + 8)[0])
else:
    check('nodes (no FlatBuffer)', len(d['nodes']), 0)
print('\n'.join(errs))
sys.exit(1 if errs else 0)
EOF
    ); then ok; else bad "$out"; fi
done

# --- the generator strings: our Python-literal parser vs Python's ast ----------
PJ=$B/tests/pylit_json
# same.py LITERAL JSON: Python's reading of the literal (tuples as lists, keys
# as strings) equals the JSON pylit_json printed
cat >"$T/same.py" <<'EOF'
import ast, json, sys
def norm(x):
    if isinstance(x, (list, tuple)): return [norm(e) for e in x]
    if isinstance(x, dict): return {str(k): norm(v) for k, v in x.items()}
    return x
want = norm(ast.literal_eval(open(sys.argv[1]).read()))
sys.exit(0 if json.load(open(sys.argv[2])) == want else 1)
EOF
if [ -x "$PJ" ]; then
    for f in "$D"/*.rknn; do
        $PY - "$f" "$T/gen.txt" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
i = b.find(b"{'attrs'")
if i < 4: sys.exit(3)   # no generator string (RV110x, Toolkit1)
n = struct.unpack_from('<I', b, i - 4)[0]
open(sys.argv[2], 'wb').write(b[i:i + n])
EOF
        [ $? -eq 3 ] && continue
        "$PJ" "$T/gen.txt" >"$T/gen.json" 2>"$T/err" || { bad "pylit_json $(basename "$f"): $(cat "$T/err")"; continue; }
        $PY "$T/same.py" "$T/gen.txt" "$T/gen.json" \
            && ok || bad "generator of $(basename "$f"): pylit differs from ast.literal_eval"
    done
    cat >"$T/lit.txt" <<'EOF'
{'a': [1, (2, 'x\'y', "q\"\x41\u00e9"), None, True, -1.5e-3, {3: 'z'}]}
EOF
    "$PJ" "$T/lit.txt" >"$T/lit.json" && $PY "$T/same.py" "$T/lit.txt" "$T/lit.json" \
        && ok || bad "pylit on a hand-written literal: $(cat "$T/lit.json")"
    printf "{'a': [1, 2" >"$T/lit_bad.txt"
    "$PJ" "$T/lit_bad.txt" >/dev/null 2>"$T/err"; rc=$?
    [ $rc -eq 2 ] && grep -q "byte" "$T/err" && ok || bad "pylit: truncated literal: exit $rc $(cat "$T/err")"
else
    bad "$PJ not built"
fi

# --- the source ONNX vs the compiled files: I/O names and shapes -----------------
ONNX=$D/multiple_input_demo.onnx
if out=$($PY - "$ONNX" "$T" <<'EOF'
import glob, json, sys
onnx, tmp = sys.argv[1:3]
def fields(buf):
    i = 0
    while i < len(buf):
        key = 0; s = 0
        while True:
            c = buf[i]; i += 1; key |= (c & 0x7f) << s; s += 7
            if c < 0x80: break
        f, wt = key >> 3, key & 7
        if wt == 0:
            v = 0; s = 0
            while True:
                c = buf[i]; i += 1; v |= (c & 0x7f) << s; s += 7
                if c < 0x80: break
            yield f, v
        elif wt == 2:
            n = 0; s = 0
            while True:
                c = buf[i]; i += 1; n |= (c & 0x7f) << s; s += 7
                if c < 0x80: break
            yield f, buf[i:i + n]; i += n
        elif wt == 5: yield f, buf[i:i + 4]; i += 4
        elif wt == 1: yield f, buf[i:i + 8]; i += 8
        else: raise SystemExit('bad wire type')
def value_info(vi):
    name, dims = None, []
    for f, v in fields(vi):
        if f == 1: name = v.decode()
        if f == 2:
            for f2, tt in fields(v):
                if f2 == 1:
                    for f3, sh in fields(tt):
                        if f3 == 2:
                            for f4, dim in fields(sh):
                                dims.append(dict(fields(dim)).get(1, -1))
    return name, dims
graph = dict(fields(open(onnx, 'rb').read()))[7]
inits = {dict(fields(v)).get(8, b'').decode() for f, v in fields(graph) if f == 5}
ins = [value_info(v) for f, v in fields(graph) if f == 11]
ins = [x for x in ins if x[0] not in inits]
outs = [value_info(v) for f, v in fields(graph) if f == 12]
errs = []
files = sorted(glob.glob(tmp + '/multiple_input_demo.*.rknn.json'))
for p in files:
    d = json.load(open(p))
    got_in = [(x['name'], x['shape']) for x in d['inputs']]
    got_out = [(x['name'], x['shape']) for x in d['outputs']]
    if got_in != ins or got_out != outs:
        errs.append(f"{p}: {got_in} {got_out} vs ONNX {ins} {outs}")
    # the compiled Conv layers name the source nodes: Conv:Conv_0 / Conv:Conv_1
    # (2.x toolkits append the fused type: Conv:Conv_0_ConvAdd)
    convs = sorted(n['name'].split('_Conv')[0] for n in d['nodes'] if n['op'].startswith('Conv'))
    if convs != ['Conv:Conv_0', 'Conv:Conv_1']:
        errs.append(f"{p}: conv FullNames {convs}")
if len(files) != 7: errs.append(f"{len(files)} multiple_input_demo files, 7 expected")
print('\n'.join(errs)); sys.exit(1 if errs else 0)
EOF
); then ok; else bad "$out"; fi

# --- text output: the facts a reader looks for ---------------------------------
grep -q "^target: rk3588 (RKNPU v2)" "$T/multiple_input_demo.rk3588.rknn.txt" && ok || bad "text target line"
grep -Eq "4 +ConvAdd +NPU +Conv:Conv_0 .*kernel \[3,3\] stride \[1,1\] pad \[1,1,1,1\] dilation \[1,1\]" \
    "$T/multiple_input_demo.rk3588.rknn.txt" && ok || bad "text node line with conv parameters"
# output '8': min -612.12, max 444.18 -> scale (max-min)/255 = 4.1424 (MANIFEST)
grep -Eq "^  8 +int8 +layout NCHW .* scale 4\.1423" "$T/multiple_input_demo.rk3588.rknn.txt" && ok || bad "text output quantization"
grep -q "task table: 155 NPU tasks" "$T/retinaface.rv1103.rknn.txt" && ok || bad "lite task count (MANIFEST: 155)"
grep -q "^nodes (92, 242 tensors)" "$T/retinaface.rv1103.rknn.txt" && ok || bad "lite: graph decoded (92 nodes)"
grep -q "OpenVX NBG v11" "$T/tk1_multi_input.rk1808.rknn.txt" && ok || bad "NBG major 11 (format notes 6.3)"
grep -q "graph (JSON, 1 node): RESIZEAREA" "$T/tk1_resize_area.nonprecompiled.rknn.txt" && ok || bad "TK1 JSON graph"

# --- encrypted: recognised, reported, exit 0 -------------------------------------
printf 'CYPTRKNN\001\000\000\000' >"$T/enc.rknn"; head -c 200 /dev/urandom >>"$T/enc.rknn"
expect 0 "" -- "$RT" inspect "$T/enc.rknn"
grep -q "encrypted" "$T/out" && ok || bad "encrypted file not reported as such"
expect 2 "enc.rknn: encrypted" -- "$RT" run "$T/enc.rknn" --no-db

# --- broken copies: exit 2, one line naming the file and the field --------------
SRC=$D/multiple_input_demo.rk3588.rknn
$PY - "$SRC" "$T" <<'EOF'
import struct, sys
src, t = sys.argv[1:3]
b = bytearray(open(src, 'rb').read())
def w(name, data): open(f"{t}/{name}.rknn", 'wb').write(bytes(data))
w('trunc_header', b[:20])
w('trunc_data', b[:5000])
w('magic', b'RKNM' + b[4:])
v = bytearray(b); struct.pack_into('<Q', v, 8, 0x2006); w('version', v)
v = bytearray(b); struct.pack_into('<Q', v, 16, 1 << 40); w('data_size', v)
dsize, = struct.unpack_from('<Q', b, 16)
v = bytearray(b); struct.pack_into('<Q', v, 64 + dsize, 1 << 33); w('json_size', v)
v = bytearray(b); v[64 + dsize + 8] = ord('['); w('json', v)          # broken trailer
v = bytearray(b); struct.pack_into('<I', v, 64, 0x7ffffff0); w('root', v)  # FlatBuffer root offset
# the root table's vtable offset pointing outside the blob
root, = struct.unpack_from('<I', b, 64)
v = bytearray(b); struct.pack_into('<i', v, 64 + root, -0x100000); w('vtable', v)
# vtable "loop": the table is its own vtable (soffset 0) -> sizes from the table bytes
v = bytearray(b); struct.pack_into('<i', v, 64 + root, 0); w('vtable_self', v)
EOF
expect 2 "trunc_header.rknn: header" -- "$RT" inspect "$T/trunc_header.rknn"
expect 2 "trunc_data.rknn: data_size" -- "$RT" inspect "$T/trunc_data.rknn"
expect 2 "magic.rknn: magic" -- "$RT" inspect "$T/magic.rknn"
expect 2 "version.rknn: version" -- "$RT" inspect "$T/version.rknn"
expect 2 "data_size.rknn: data_size" -- "$RT" inspect "$T/data_size.rknn"
expect 2 "json_size.rknn: json_size" -- "$RT" inspect "$T/json_size.rknn"
expect 2 "json.rknn: JSON trailer" -- "$RT" inspect "$T/json.rknn"
expect 2 "root.rknn: FlatBuffer model" -- "$RT" inspect "$T/root.rknn"
expect 2 "vtable.rknn: FlatBuffer model" -- "$RT" inspect "$T/vtable.rknn"
# model-1 task lists (node slot 6) naming a tensor that is no task blob, or a
# blob another node's list has (tests/fuzz/corpus/make_rknn.py)
C=tests/fuzz/corpus/rknn
expect 2 "broken_task_blob.rknn: FlatBuffer node\[2\].tasks: task 0: tensor 0 is not a task blob of the 22 tensors" -- \
    "$RT" inspect "$C/broken_task_blob.rknn"
expect 2 "broken_task_twice.rknn: FlatBuffer node\[3\].tasks: task 0: tensor 12 is node 2's task already" -- \
    "$RT" inspect "$C/broken_task_twice.rknn"
"$RT" inspect "$T/vtable_self.rknn" >/dev/null 2>"$T/err"; rc=$?
{ [ $rc -eq 0 ] || [ $rc -eq 2 ]; } && ! grep -q "Sanitizer\|runtime error" "$T/err" && ok || bad "vtable_self: exit $rc"
expect 2 "trunc_data.rknn" -- "$RT" run "$T/trunc_data.rknn" --no-db
expect 2 "nope.rknn" -- "$RT" inspect "$T/nope.rknn"
EXPECT_LINES=any expect 1 "usage" -- "$RT" inspect

# --- run FILE.rknn: predicted profile, stored with backend predict --------------
DB=$T/p.db
expect 0 "" -- "$RT" run "$SRC" --db "$DB" --label demo-pred
grep -q "^host *not executed: .*no numeric outputs were computed.*source ONNX.*board" "$T/out" && ok || bad "run: the no-numeric-outputs line"
[ "$(sqlite3 "$DB" "select backend||','||platform||','||model_format||','||n from runs, (select count(*) n from layers) where label='demo-pred'")" = "predict,rk3588,rknn,5" ] \
    && ok || bad "stored run: $(sqlite3 "$DB" 'select backend, platform, model_format from runs')"
# Conv_1: 1x8x128x128 output, 3x3 kernel, 3 input channels: ceil16(128*128) px *
# 3*3 * ceil(3/ic_atom) * ceil(8/oc_atom) = 16384 * 9 = 147456 NPU cycles (rk3588 int8 atoms 32x32)
[ "$(sqlite3 "$DB" "select npu_cycles||','||npu_op||','||target from layers where node='Conv:Conv_1'")" = "147456,Conv,NPU" ] \
    && ok || bad "Conv_1 cycles: $(sqlite3 "$DB" "select npu_cycles, npu_op from layers where node='Conv:Conv_1'")"
# the run's predicted frame is the sum of its layers' shares
$PY -c "
import sys; r, s = map(float, sys.argv[1:3]); sys.exit(0 if abs(r - s) < 1e-6 * max(1, r) else 1)" \
    "$(sqlite3 "$DB" "select npu_us from runs where label='demo-pred'")" \
    "$(sqlite3 "$DB" "select sum(frame_us) from layers")" && ok || bad "npu_us != sum(frame_us)"
# --npu-table: the level-4 table with one row per compiled node of yolov8n (102),
# printed as `run MODEL.onnx --npu-table` and `show --npu-table` print theirs
expect 0 "" -- "$RT" run "$D/yolov8n.rk3566.rknn" --no-db --npu-table
[ "$(grep -cE '^[0-9]+ +[A-Za-z]' "$T/out")" -eq 102 ] && ! grep -q '^I RKNN' "$T/out" && ok \
    || bad "npu table rows: $(grep -cE '^[0-9]+ +[A-Za-z]' "$T/out")"
expect 0 "" -- "$RT" run "$D/yolov8n.rk3566.rknn" --no-db --json
$PY -c "
import json, sys; d = json.load(open(sys.argv[1]))
assert d['schema_version'] == 1 and d['kind'] == 'run'          # the shared schema (docs/json.md)
assert d['backend'] == 'predict' and d['platform'] == 'rk3566' and d['host']['median_us'] is None
n = d['npu']
# the frame: its layer rows plus io_us, which holds the Input/OutputOperator rows' time
io = ('InputOperator', 'OutputOperator')
assert len(d['layers']) == 102 and abs(sum(l['frame_us'] for l in d['layers'] if l['npu_op'] not in io) + n['io_us'] - n['predicted_us']) < 1e-3
assert abs(n['io_us'] - sum(l['frame_us'] for l in d['layers'] if l['npu_op'] in io)) < 1e-3
assert sum(l['npu_op'] == 'ConvExSwish' for l in d['layers']) == 57   # MANIFEST op counts
" "$T/out" && ok || bad "run --json of yolov8n"
# refusals: unknown chip, undecoded graph, Toolkit1, wrong -t
# rv1126b (toolkit 2.3.2) is in the platform table: 950 MHz, RK3576's arrays;
# Conv_1 3x3, IC 3, OC 8 on 128x128: 16384 px * 9 * ceil(3/32) * ceil(8/32) = 147456 cycles
expect 0 "" -- "$RT" run "$D/multiple_input_demo.rv1126b.rknn" --db "$T/v.db" --label v
grep -q "on rv1126b NPU at 950 MHz" "$T/out" && grep -q "5 compiled layers" "$T/out" && ok \
    || bad "rv1126b file predicted: $(grep predicted "$T/out")"
[ "$(sqlite3 "$T/v.db" "select npu_cycles||','||target from layers where node='Conv:Conv_1'")" = "147456,NPU" ] \
    && ok || bad "rv1126b Conv_1 cycles: $(sqlite3 "$T/v.db" "select npu_cycles from layers where node='Conv:Conv_1'")"
# a chip name the table does not have (the JSON's target renamed, same length): refused
$PY -c "
import sys; b = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(b.replace(b'\"rv1126b\"', b'\"rx1126b\"'))" \
    "$D/multiple_input_demo.rv1126b.rknn" "$T/rx.rknn"
expect 2 "rx1126b, a chip the NPU model does not know [(]known: .*rv1126b, rv1106b, rv1103b, rk2118[)]" -- \
    "$RT" run "$T/rx.rknn" --no-db
# info: the new chips, each value measured or estimated with its source
expect 0 "" -- "$RT" info
for c in rv1126b rv1106b rv1103b rk2118; do grep -q "^  $c " "$T/out" || bad "info: no $c"; done
grep -A20 "^  rv1126b " "$T/out" | grep -qE "npu clock +950 MHz +measured +API scaling_frequency.sh" && ok \
    || bad "info: rv1126b clock provenance"
grep -qE "^  rk2118 +1 core +1000 MHz, float16 +128 MACs/cycle" "$T/out" && ok || bad "info: rk2118 line"
expect 0 "" -- "$RT" run "$D/retinaface.rv1103.rknn" --no-db
# header word 0 (the graph's size) pointing elsewhere: the task table is read, no graph
$PY -c "
import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[64] ^= 0x10; open(sys.argv[2], 'wb').write(b)" \
    "$D/retinaface.rv1103.rknn" "$T/nograph.rknn"
expect 0 "" -- "$RT" inspect "$T/nograph.rknn"
grep -q "graph: not decoded" "$T/out" && ok || bad "lite without a graph: says so"
expect 2 "no FlatBuffer graph found" -- "$RT" run "$T/nograph.rknn" --no-db
expect 2 "not predicted" -- "$RT" run "$D/tk1_multi_input.rk1808.rknn" --no-db
expect 1 "compiled for rk3588; it cannot run on rk3566" -- "$RT" run "$SRC" -t rk3566 --no-db
expect 1 "does not apply" -- "$RT" run "$SRC" -q fp16 --no-db

# a weight naming a data buffer the file does not have (fuzz seed): one line, exit 2
expect 2 "broken_buffer_index.rknn: FlatBuffer tensor.buffer: buffer 32767 of" -- \
    "$RT" inspect tests/fuzz/corpus/rknn/broken_buffer_index.rknn
# no fixed limits: Toolkit2 2.3.x native shapes of 24 values (4 blocks of 6) read
# whole (fuzz seeds written by bench/make_rknn.py native=24, tests/fuzz/corpus/make_rknn.py)
for f in native24 lite_native24; do
    expect 0 "" -- "$RT" inspect --json "tests/fuzz/corpus/rknn/$f.rknn"
    $PY -c "
import json, sys; d = json.load(open(sys.argv[1]))
w = [i for n in d['nodes'] for i in n['inputs'] if i['name'] == 'w0']
assert w and w[0]['native_shape'] == [1, 1, 3, 3, 16, 32] * 4, w" "$T/out" && ok || bad "$f: 24-value native shape"
done
# ... and the bounds that replace them, from the file's own sizes: vectors that
# overlap (more 4-byte values than the model data holds), a lite node naming
# more NPU tasks than the task table has
expect 2 "broken_overlap.rknn: FlatBuffer tensor\[6\]\.shape: 1188 values, more than the 20416-byte model data holds besides the values read before \(at most 592 left\): vectors overlap" -- \
    "$RT" inspect tests/fuzz/corpus/rknn/broken_overlap.rknn
expect 2 "FlatBuffer node\[1\]\.task_number: 9 tasks, the task table has 3" -- \
    "$RT" inspect tests/fuzz/corpus/rknn/broken_lite_task_number.rknn
# the address patches (graph slot 7) of synthetic files (fuzz seeds written by
# bench/make_rknn.py relocs=): read whole, a name no tensor has included; a vector
# that runs past the model data is refused with one line
expect 0 "" -- "$RT" inspect tests/fuzz/corpus/rknn/relocs.rknn
expect 2 "broken_relocs.rknn: FlatBuffer relocation\[0\]\.table: offset or length outside the model data" -- \
    "$RT" inspect tests/fuzz/corpus/rknn/broken_relocs.rknn
# a layer tensor of more dims than an NPU layer holds (6): refused by name, not cut
$PY bench/make_rknn.py "$T/d7.rknn" 3 rk3588 dims=7
expect 0 "" -- "$RT" inspect "$T/d7.rknn"
grep -q "\[1,32,80,80,1,1,1\]" "$T/out" && ok || bad "7-dim activations read whole"
expect 2 "node 1 \(InputOperator:input\): tensor 'input' has 7 dims, the NPU model's layers take at most 6" -- \
    "$RT" run "$T/d7.rknn" --no-db
# a tensor beyond the NPU model's bounds (a dimension of 2^24, 2^32 elements):
# refused by name and bound, where the cost's products overflowed before (fuzz
# finds); dims of 0 or less are no elements (no negative byte counts)
expect 2 "node 4 \(Conv:Conv_2\): tensor 't2' dim 0 is 1767047169, beyond 16777216" -- \
    "$RT" run tests/fuzz/corpus/rknn/broken_shape_huge_dim.rknn --no-db
expect 0 "" -- "$RT" run tests/fuzz/corpus/rknn/broken_shape_negative_dim.rknn --no-db
# RV1103 depthwise convs: weight (1,C,kh,kw) in the file, read as (C,1,kh,kw)
# (the ONNX's shape, onnx::Conv_633 of stage2.1.0 is [128,1,3,3] there)
expect 0 "" -- "$RT" inspect --json "$D/retinaface.rv1103.rknn"
$PY -c "
import json, sys; d = json.load(open(sys.argv[1]))
sh = {n['name']: [i['shape'] for i in n['inputs']][1] for n in d['nodes'] if n['op'].startswith('Conv')}
assert sh['Conv:/stage2/stage2.1/stage2.1.0/Conv'] == [128, 1, 3, 3], sh
assert sh['Conv:/stage1/stage1.1/stage1.1.0/Conv'] == [8, 1, 3, 3]
assert sh['Conv:/stage2/stage2.1/stage2.1.3/Conv'] == [128, 128, 1, 1]   # pointwise: as it is
assert sum(s[1] == 1 and s[0] > 1 for s in sh.values()) == 13, sum(s[1] == 1 for s in sh.values())
" "$T/out" && ok || bad "retinaface depthwise weight shapes"

# --- weights: the bytes a conv weight's buffer holds (inspect --json data_offset)
# are the ONNX weights quantized per output channel, asymmetric int8 (scale
# (max-min)/255, zero point -128 - min/scale), laid out [kh][kw][OC'][IC'] as the
# native shape [1,1,kh,kw,OC',IC'] says (numpy here; docs/rknn-format.md)
if out=$($PY - "$D/multiple_input_demo.onnx" "$T" "$D" <<'EOF'
import json, sys, numpy as np
sys.path.insert(0, 'tests/cli')
from onnx_wire import fields
onnx, tmp, d_dir = sys.argv[1:4]
graph = [v for f, v in fields(open(onnx, 'rb').read()) if f == 7][0]
inits = {}
for f, v in fields(graph):
    if f == 5:
        tf = fields(v)
        inits[[x for k, x in tf if k == 8][0].decode()] = np.frombuffer(
            [x for k, x in tf if k == 9][0], np.float32).reshape([x for k, x in tf if k == 1])
errs, checked = [], 0
for chip in ('rk3562', 'rk3566', 'rk3566.tk134', 'rk3576', 'rk3588', 'rv1126b'):
    name = f'multiple_input_demo.{chip}.rknn'
    d = json.load(open(f'{tmp}/{name}.json'))
    raw = np.frombuffer(open(f'{d_dir}/{name}', 'rb').read(), np.int8).astype(np.int32)
    for n in d['nodes']:
        for t in n['inputs']:
            if not t['name'].endswith('weight'):
                continue
            if 'data_offset' not in t:
                errs.append(f"{name}: {t['name']}: no data_offset"); continue
            w = inits[t['name']]; oc, ic, kh, kw = w.shape
            f = w.reshape(oc, -1); mn, mx = f.min(1), f.max(1)
            s = (mx - mn) / 255; z = np.round(-128 - mn / s)
            q = np.clip(np.round(f / s[:, None]) + z[:, None], -128, 127).reshape(w.shape)
            _, _, nkh, nkw, ocp, icp = t['native_shape']
            if (chip, t['name']) == ('rv1126b', 'conv2.weight'):
                # the pixel conv (CNA mode code 6): per kernel row 16 bytes, its kw
                # taps of icp lanes (the last lane the weight zero point), then
                # zeros; rows [kh][OC']; the buffer's second half zero
                blob = raw[t['data_offset']: t['data_offset'] + t['data_bytes']]
                rows = blob[:nkh * ocp * 16].reshape(nkh, ocp, 16)
                got = rows[:, :oc, :kw * icp].reshape(kh, oc, kw, icp)
                ok_ = (np.array_equal(got[..., :ic].transpose(1, 3, 0, 2), q) and
                       (got[..., ic:] == z[None, :, None, None]).all() and
                       not rows[:, :, kw * icp:].any() and not rows[:, oc:].any() and
                       not blob[nkh * ocp * 16:].any() and t['data_bytes'] == 2 * nkh * ocp * 16)
                if not ok_:
                    errs.append(f"{name}: {t['name']}: not the pixel conv's rows")
                checked += 1
                continue
            if t['data_bytes'] != nkh * nkw * ocp * icp:
                errs.append(f"{name}: {t['name']}: {t['data_bytes']} bytes for native {t['native_shape']}")
                continue
            blob = raw[t['data_offset']: t['data_offset'] + t['data_bytes']]
            got = blob.reshape(nkh, nkw, ocp, icp)[:, :, :oc, :ic].transpose(2, 3, 0, 1)
            if not np.array_equal(got, q):
                errs.append(f"{name}: {t['name']}: {int((got != q).sum())} of {q.size} weights differ")
            checked += 1
if checked != 12:
    errs.append(f"{checked} weights checked, 12 expected")
print('\n'.join(errs)); sys.exit(1 if errs else 0)
EOF
); then ok; else bad "weights in the file: $out"; fi

# --- inspect --tasks: the address patches (graph slot 7) ---------------------------
# Walked here with the tests' own FlatBuffer reader: every {offset, entry} pair of the
# file's patch table must be one inspect reports in the task that writes that entry;
# and each conv task's feature, weight, destination and per-channel registers must be
# patched with its node's input, weight, output and bias tensors (the graph's node
# list), at the offset the task's decoded address holds.
for c in rk3588 rk3566 rk3562 rk3576 rv1126b; do
    f=$D/multiple_input_demo.$c.rknn
    "$RT" inspect "$f" --tasks --json >"$T/patch.json" 2>/dev/null || { bad "inspect --tasks $c"; continue; }
    if out=$($PY - "$c" "$f" "$T/patch.json" <<'EOF'
import json, struct, sys
sys.path.insert(0, 'tests/oracle')
from rknn_fb import FB
chip, path, js = sys.argv[1:4]
F = FB(path)
g = F.tables(F.u32(0), 2)[0]
pairs = []
for e in F.tables(g, 7):
    o = F.slot(e, 1)
    o += F.u32(o)
    pairs += [(F.string(e, 0),) + struct.unpack_from('<II', F.fb, o + 4 + 8 * k) for k in range(F.u32(o))]
d = json.load(open(js))
tasks = d['npu_tasks']['tasks']
got = sorted((p['tensor'], p['offset']) for t in tasks for p in t['patches'])
errs = []
if not pairs or got != sorted((n, off) for n, off, _ in pairs):
    errs.append(f'{chip}: {len(got)} patches reported, the table has {len(pairs)}')
feat, dst = (0x1070, 0x4020) if chip in ('rk3588', 'rk3566') else (0x1088, 0x4018)
nodes = {n['id']: n for n in d['nodes']}
convs = 0
for t in tasks:
    n = nodes.get(t['node'])
    if t['op'] != 'conv' or not n or not n['op'].startswith('Conv'):
        continue
    convs += 1
    at = {p['register']: (p['tensor'], p['offset']) for p in t['patches']}
    w = [i['name'] for i in n['inputs'] if 'data_offset' in i and len(i['shape']) == 4]
    b = [i['name'] for i in n['inputs'] if i['dtype'] == 'int32']
    want = {feat: (n['inputs'][0]['name'], t['feature_addr']), 0x1110: (w[0], t['weight_addr']),
            dst: (n['outputs'][0]['name'], t['dst_addr']), 0x5020: (b[0], t['bs_addr'])}
    for r, v in want.items():
        if at.get(r) != v:
            errs.append(f'{chip} task {t["index"]}: register {r:#x} patched {at.get(r)}, {v} expected')
if convs == 0:
    errs.append(f'{chip}: no conv task checked')
print('\n'.join(errs) or f'{chip}: {len(pairs)} patches, {convs} conv tasks'); sys.exit(1 if errs else 0)
EOF
); then ok; else bad "address patches: $out"; fi
done

# --- inspect --tasks: decoded conv geometry against the graph ----------------------
# The oracle is the file's own graph (kernel, stride, channels, output width of
# the node a task names), recomputed here from `inspect --json`'s node list,
# not from the decoder. A depthwise layer may be split by channels: its tasks'
# channels must then add up to the graph's. Files whose register layout is not
# verified must say "not decoded" for every task.
for f in "$D"/*.rknn; do
    n=$(basename "$f")
    if ! "$RT" inspect "$f" --tasks --json >"$T/$n.tasks.json" 2>"$T/err"; then
        bad "inspect --tasks $n failed: $(cat "$T/err")"; continue
    fi
    "$RT" inspect "$f" --tasks >"$T/$n.tasks.txt" 2>>"$T/err" || bad "inspect --tasks $n (text) failed"
    if out=$($PY - "$n" "$T/$n.tasks.json" "$T/$n.tasks.txt" "$f" <<'EOF'
import json, os, struct, sys
name, path, txt, rknn = sys.argv[1:5]
d = json.load(open(path))
nt = d['npu_tasks']
errs = []
if d.get('model_version') == 1:
    # model-1 files: task i is the i-th kind-7 tensor; the node whose task list
    # (node slot 6: tables, slot 0 the tensor) names it is its node. Walked here.
    sys.path.insert(0, 'tests/oracle')
    from rknn_fb import FB
    F = FB(rknn)
    fb, u32, slot, tables = F.fb, F.u32, F.slot, F.tables
    g = tables(u32(0), 2)[0]
    blobs = [i for i, t in enumerate(tables(g, 0)) if slot(t, 2) and fb[slot(t, 2)] == 7]
    owner = {u32(slot(e, 0)): ni + 1 for ni, nd in enumerate(tables(g, 1)) for e in tables(nd, 6)}
    got = [t['node'] for t in nt['tasks']]
    want_nodes = [owner.get(x) for x in blobs]
    if got != want_nodes:
        errs.append(f"{name}: task nodes {got[:8]}... differ from the node task lists {want_nodes[:8]}...")
    if None in want_nodes:
        errs.append(f"{name}: a task blob no node lists")
    # slot 1 of a task's entry: the LUT table tensor (kind 6), by name
    tens = tables(g, 0)
    tname = lambda i: F.string(tens[i], 5)
    lut = {u32(slot(e, 0)): (tname(u32(slot(e, 1))) if slot(e, 1) else None)
           for nd in tables(g, 1) for e in tables(nd, 6)}
    got_lut = [t['lut_tensor'] for t in nt['tasks']]
    if got_lut != [lut.get(x) for x in blobs]:
        errs.append(f"{name}: LUT tensors differ from the node task lists")
    # and they follow the op: exSwish for ConvExSwish, Sigmoid for ConvSigmoid
    for t in nt['tasks']:
        op = d['nodes'][t['node'] - 1]['op'] if t['node'] else None
        if t['lut_tensor'] != {'ConvExSwish': 'exSwish', 'ConvSigmoid': 'Sigmoid'}.get(op):
            errs.append(f"{name}: task {t['index']} ({op}): LUT {t['lut_tensor']}")
    if name == 'yolov8n.rk3566.rknn' and sum(x is not None for x in got_lut) != 127:
        errs.append(f"{name}: {sum(x is not None for x in got_lut)} LUT tasks, want 127 (122 exSwish, 5 Sigmoid)")
nodes = {x['id']: x for x in d['nodes']}
# per file: (conv tasks that must agree, register map, tasks)
want = {'multiple_input_demo.rk3588.rknn': (12, 'rk3588', 17),
        'multiple_input_demo.rk3566.rknn': (2, 'rk356x', 10),
        'retinaface.rv1103.rknn': (105, 'rv110x', 155),
        'multiple_input_demo.rk3562.rknn': (4, 't4', 41),
        'multiple_input_demo.rk3576.rknn': (8, 'f2', 8),
        'multiple_input_demo.rv1126b.rknn': (2, 'f3', 2),
        'multiple_input_demo.rk3566.tk134.rknn': (2, 'rk356x', 10),
        'multiple_input_demo.rk3588.tk134.rknn': (12, 'rk3588', 17),
        'yolov8n.rk3566.rknn': (131, 'rk356x', 245)}
# model-1 files carry no node index in a task record; each node lists its tasks
# (node slot 6). A file that would still have a task without a node: conv tasks
# whose geometry some conv node has (then the rest must be output-channel tiles)
want_geo = {}
def geom(node):
    four = [i for i in node['inputs'] if len(i['shape']) == 4]
    ins, ws = four[:1], four[1:2]   # the feature first, then the weight [OC, IC/g, kh, kw]
    o = node['outputs'][0]['shape']
    k = node.get('kernel') or (ws[0]['shape'][2:] if ws else None)
    s = node.get('stride')
    if not s and ins and ins[0]['shape'][3] % o[3] == 0:
        s = [ins[0]['shape'][2] // o[2], ins[0]['shape'][3] // o[3]]
    return dict(kh=k[0], kw=k[1], sy=s[0], sx=s[1], ic=ins[0]['shape'][1] if ins else None,
                oc=o[1], ow=o[3],
                # depthwise: [C, 1, kh, kw]; RV110x graphs store [1, C, kh, kw]
                dw=bool(ws and 1 in ws[0]['shape'][:2] and max(ws[0]['shape'][:2]) == o[1] > 1))
agree = 0
split = {}
octile = {}
convs = [geom(x) for x in d['nodes'] if x['op'].startswith('Conv')]
geo = 0
# a model-1 file and the model-6 file of the same network and chip: on rk3566
# the same tasks in the same order, decoded to the same geometry (the model-6
# file's task table names each task's node). The rk3588 pair's compilers
# (1.4.2, 1.6.2) tile the convs differently.
sib = sib_nodes = None
if name == 'multiple_input_demo.rk3566.tk134.rknn':
    other = os.path.join(os.path.dirname(path), name.replace('.tk134', '') + '.tasks.json')
    o = json.load(open(other))
    a, b = nt['tasks'], o['npu_tasks']['tasks']
    keys = ('op', 'in_w', 'in_h', 'in_c', 'kernel_w', 'kernel_h', 'stride_x', 'stride_y',
            'out_w', 'out_h', 'out_c', 'pad_top', 'pad_left')
    if len(a) != len(b):
        errs.append(f"{name}: {len(a)} tasks, the model-6 file {len(b)}")
    else:
        for x, y in zip(a, b):
            dk = [k for k in keys if x[k] != y[k]]
            if dk:
                errs.append(f"{name}: task {x['index']}: {dk} differ from the model-6 file's")
            # the node its node's task list binds it to, against the task table's op_idx
            xn = x['node'] and d['nodes'][x['node'] - 1]['name']
            yn = y['node'] and o['nodes'][y['node'] - 1]['name']
            if xn != yn:
                errs.append(f"{name}: task {x['index']}: node {xn}, the model-6 file's {yn}")
        sib = [y for y in b]
        sib = {y['index']: y for y in b}
        sib_nodes = {x['id']: x for x in o['nodes']}
for t in nt['tasks']:
    if t['op'] in ('conv', 'depthwise') and t['node'] is None and name in want_geo:
        got = dict(kh=t['kernel_h'], kw=t['kernel_w'], sy=t['stride_y'], sx=t['stride_x'],
                   ic=t['in_c'], oc=t['out_c'], ow=t['out_w'])
        same = [g for g in convs if all(g[k] == got[k] for k in got)]
        part = [g for g in convs if all(g[k] == got[k] for k in got if k != 'oc') and g['oc'] > got['oc']]
        if same:
            geo += 1
            if t['graph_check'] != 'no node index':
                errs.append(f"{name}: task {t['index']}: a node has its geometry, inspect says {t['graph_check']}")
        elif not part and not (sib and sib[t['index']]['node'] and sib_nodes[sib[t['index']]['node']]['op'] == 'OutputOperator'):
            errs.append(f"{name}: task {t['index']}: no conv node has its geometry {got}")
        continue
    if nt['register_map'] == 'none' and t['op'] != 'undecoded':
        errs.append(f"{name}: task {t['index']}: op {t['op']} on an unverified map")
    if t['op'] not in ('conv', 'depthwise') or t['node'] is None:
        continue
    node = nodes[t['node']]
    if not node['op'].startswith('Conv'):
        continue
    g = geom(node)
    got = dict(kh=t['kernel_h'], kw=t['kernel_w'], sy=t['stride_y'], sx=t['stride_x'],
               ic=t['in_c'], oc=t['out_c'], ow=t['out_w'])
    diff = [k for k in got if g[k] is not None and got[k] != g[k]]
    if diff == ['oc'] and got['oc'] < g['oc']:   # a tile of the output channels
        octile.setdefault((t['node'], t['feature_addr']), []).append(got['oc'])
        if t['graph_check'] != 'agrees':
            errs.append(f"{name}: task {t['index']}: output-channel tile, inspect says {t['graph_check']}")
        continue
    if diff == ['ic', 'oc'] and t['op'] == 'depthwise' and g['dw']:
        split.setdefault(t['node'], set()).add((t['feature_addr'], t['in_c']))
        continue
    if diff:
        errs.append(f"{name}: task {t['index']} node {t['node']}: " +
                    ", ".join(f"{k} decoded {got[k]} graph {g[k]}" for k in diff))
    else:
        agree += 1
for (nid, fa), parts in octile.items():   # per row tile, the output-channel tiles add up
    if sum(parts) != geom(nodes[nid])['oc']:
        errs.append(f"{name}: node {nid} input at {fa}: output-channel tiles {parts} do not add up to {geom(nodes[nid])['oc']}")
    else:
        agree += len(parts)
for nid, parts in split.items():
    g = geom(nodes[nid])
    if sum(c for _, c in parts) != g['ic']:
        errs.append(f"{name}: node {nid}: depthwise parts {sorted(parts)} do not add up to {g['ic']}")
    else:
        agree += len(parts)
# pooling (PPU) tasks: some pool node has their kernel and stride
pools = [x for x in d['nodes'] if 'Pool' in x['op']]
npool = 0
for t in nt['tasks']:
    if t['op'] != 'pool':
        continue
    npool += 1
    k = [t['pool_kernel_h'], t['pool_kernel_w']]; st = [t['pool_stride_y'], t['pool_stride_x']]
    if k == [1, 1] and st == [1, 1]:  # a 1x1 pooling moves data (rk3588's ConvAdd)
        if 'copy' not in t['notes']:
            errs.append(f"{name}: pool task {t['index']}: 1x1 pooling not called a copy")
        continue
    if not any(x.get('kernel') == k and x.get('stride') == st for x in pools):
        errs.append(f"{name}: pool task {t['index']}: kernel {k} stride {st}, no such pool node")
if name == 'yolov8n.rk3566.rknn' and npool != 6:
    errs.append(f"{name}: {npool} pool tasks, want 6 (3 MaxPool 5x5, 2 tasks each)")
if geo != want_geo.get(name, 0):
    errs.append(f"{name}: {geo} conv tasks with a node's geometry, {want_geo.get(name, 0)} expected")
w = want.get(name)
if w:
    if agree != w[0]:
        errs.append(f"{name}: {agree} conv tasks agree with the graph, {w[0]} expected")
    if nt['register_map'] != w[1] or len(nt['tasks']) != w[2]:
        errs.append(f"{name}: map {nt['register_map']} with {len(nt['tasks'])} tasks, want {w[1]} / {w[2]}")
elif nt['tasks']:
    errs.append(f"{name}: {len(nt['tasks'])} tasks in a file without register writes")
text = open(txt).read()
if nt['tasks'] and 'geometry check:' not in text:
    errs.append(f"{name}: no geometry summary in the text output")
if nt['register_map'] == 'none' and nt['tasks'] and text.count('not decoded:') != len(nt['tasks']):
    errs.append(f"{name}: undecoded tasks not marked in the text")
print('\n'.join(errs)); sys.exit(1 if errs else 0)
EOF
); then ok; else bad "inspect --tasks $n: $out"; fi
done

# info lists per chip what is decoded: it must agree with what inspect --tasks did
"$RT" info >"$T/info" 2>&1 || bad "info failed"
for f in "$D"/*.rknn; do
    n=$(basename "$f")
    [ -f "$T/$n.tasks.json" ] || continue
    if out=$($PY - "$T/$n.tasks.json" "$T/info" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); info = open(sys.argv[2]).read()
if not d['npu_tasks']['tasks']:
    sys.exit(0)
chip = d['target']
line = next((l for l in info.splitlines() if ':' in l and chip in l.split(':')[0].split()), None)
if line is None:
    print(f"info names no line for {chip}"); sys.exit(1)
decoded = d['npu_tasks']['register_map'] != 'none'
if decoded != ('tasks decoded' in line) or 'executed' not in line:
    print(f"{chip}: info says '{line.strip()}', inspect decoded={decoded}"); sys.exit(1)
EOF
); then ok; else bad "info vs inspect --tasks ($n): $out"; fi
done

# --- per-channel words of a conv (the DPU's BS operands): the ONNX weights and
# biases quantized here (numpy) against the bias tensor's bytes. Groups of G
# output channels (G = 8 on rk3588/rk3576/rv1126b, 4 on rk3566/rk3562):
# G int32 bias = round(b / (s_in * s_w)) - zp_in * sum(q - zp_w), G int16 -zp_w,
# G int16 multiplier = round(s_w / max(s_w) * 2^14); the DPU's output converter
# takes s_in * max(s_w) / s_out as OUT_CVT_SCALE / 2^OUT_CVT_SHIFT and the
# output zero point as OUT_CVT_OFFSET (docs/rknn-format.md)
if out=$($PY - "$D" "$T" <<'EOF'
import json, subprocess, sys, numpy as np
sys.path.insert(0, 'tests/cli')
sys.path.insert(0, 'tests/oracle')
from onnx_wire import fields
from rknn_fb import FB
d_dir, tmp = sys.argv[1:3]
graph = [v for f, v in fields(open(f'{d_dir}/multiple_input_demo.onnx', 'rb').read()) if f == 7][0]
inits = {}
for f, v in fields(graph):
    if f == 5:
        tf = fields(v)
        inits[[x for k, x in tf if k == 8][0].decode()] = np.frombuffer(
            [x for k, x in tf if k == 9][0], np.float32).reshape([x for k, x in tf if k == 1])
errs, checked, cvt = [], 0, 0
group = {'rk3588': 8, 'rk3588.tk134': 8, 'rk3576': 8, 'rv1126b': 8, 'rk3566': 4,
         'rk3566.tk134': 4, 'rk3562': 4}
for chip, g in group.items():
    name = f'multiple_input_demo.{chip}.rknn'
    d = json.load(open(f'{tmp}/{name}.tasks.json'))
    raw = open(f'{d_dir}/{name}', 'rb').read()
    fb = FB(f'{d_dir}/{name}')   # each tensor's scale and zero point (slots 10, 11)
    quant = {fb.string(t, 5): (fb.first(t, 10, '<f'), fb.first(t, 11, '<i'))
             for t in fb.tables(fb.graph(), 0)}
    tensors = {}
    for n in d['nodes']:
        for t in n['inputs'] + n['outputs']:
            tensors[t['name']] = t
    for n in d['nodes']:
        bt = [t for t in n['inputs'] if t['name'].endswith('.bias')]
        if not bt:
            continue
        bt = bt[0]; conv = bt['name'][:-5]
        w, b = inits[conv + '.weight'], inits[conv + '.bias']
        f = w.reshape(w.shape[0], -1); mn, mx = f.min(1), f.max(1)
        s = (mx - mn) / 255; z = np.round(-128 - mn / s)
        q = np.clip(np.round(f / s[:, None]) + z[:, None], -128, 127)
        # the conv's input as the file quantizes it: scale 1, zero point -128,
        # except input.1 on rv1126b (toolkit 2.3.2): scale 0.949 (range [0, 242])
        sin, zin = quant[n['inputs'][0]['name']]
        bias = np.round(b / (sin * s)) - zin * (q.sum(1) - f.shape[1] * z)
        blob = raw[bt['data_offset']: bt['data_offset'] + bt['data_bytes']]
        oc = w.shape[0]
        gb, gz, gm = [], [], []
        for k in range(0, oc, g):
            o = k * 8  # 2 words per channel
            gb += np.frombuffer(blob, np.int32, g, o).tolist()
            gz += np.frombuffer(blob, np.int16, g, o + 4 * g).tolist()
            gm += np.frombuffer(blob, np.int16, g, o + 6 * g).tolist()
        if gz[:oc] != (-z).astype(int).tolist() or gm[:oc] != np.round(s / s.max() * 16384).astype(int).tolist():
            errs.append(f"{name} {conv}: -zp_w {gz[:oc]} / multipliers {gm[:oc]} differ")
        if np.abs(np.array(gb[:oc]) - bias).max() > 0:
            errs.append(f"{name} {conv}: bias words {gb[:oc]}, want {bias.astype(int).tolist()}")
        checked += 1
        # the output converter of the plain Conv's tasks (not the ConvAdd)
        if n['op'] != 'Conv' or d['npu_tasks']['register_map'] == 'none':
            continue
        outt = n['outputs'][0]['name']
        sout, zout = quant[outt]
        for t in d['npu_tasks']['tasks']:
            if t['node'] != n['id'] or t['op'] != 'conv':
                continue
            got = t['out_cvt_scale'] / 2 ** t['out_cvt_shift']
            want = sin * s.max() / sout
            if abs(got - want) > 2 ** -t['out_cvt_shift'] or t['out_cvt_offset'] != zout or \
               t['bs']['mul_shift'] != 14 or not t['bs']['alu_per_channel'] or not t['bs']['mul_per_channel']:
                errs.append(f"{name} task {t['index']}: out cvt {t['out_cvt_scale']}>>{t['out_cvt_shift']} "
                            f"offset {t['out_cvt_offset']} bs {t['bs']}, want {want} offset {zout}")
            cvt += 1
if checked != 14 or cvt < 3:
    errs.append(f"{checked} convs' per-channel words checked (14 expected), {cvt} output converters")
print('\n'.join(errs)); sys.exit(1 if errs else 0)
EOF
); then ok; else bad "per-channel words: $out"; fi

# RV110x: the same per-channel words in the weight section (NPU addresses are
# offsets from the register commands, which the weights follow): in every conv
# node whose BS multiplier is per channel the largest is 2^14, none is above.
# (Depthwise tasks bypass BS; their words are laid out otherwise: not checked.)
if out=$($PY - "$D/retinaface.rv1103.rknn" "$T/retinaface.rv1103.rknn.tasks.json" <<'EOF'
import json, struct, sys, numpy as np
path, js = sys.argv[1:3]
raw = open(path, 'rb').read(); d = json.load(open(js))
w = struct.unpack_from('<6I', raw, 64)
base = 64 + 64 + w[1]
per, errs = {}, []
if d['npu_tasks']['channel_group'] != 4:
    errs.append(f"channel group {d['npu_tasks']['channel_group']}, want 4")
for t in d['npu_tasks']['tasks']:
    if t['op'] != 'conv' or t['bs_addr'] is None or not t['bs']['mul_per_channel']:
        continue
    c = t['out_c']; a = base + t['bs_addr']
    if t['bs_file_offset'] != a:
        errs.append(f"task {t['index']}: bs_file_offset {t['bs_file_offset']}, want {a}")
    for k in range(0, c, 4):
        per.setdefault(t['node'], set()).update(np.frombuffer(raw, np.int16, min(4, c - k), a + k * 8 + 24).tolist())
bad = [n for n, m in per.items() if max(m) != 16384 or min(m) <= 0]
errs += [f"node {n}: multipliers {sorted(per[n])[:6]}... max {max(per[n])}" for n in bad[:5]]
if len(per) != 43:
    errs.append(f"{len(per)} conv nodes with per-channel multipliers, 43 expected")
print('\n'.join(errs)); sys.exit(1 if errs else 0)
EOF
); then ok; else bad "rv1103 per-channel words: $out"; fi

# --- the decoded conv tasks against the source ONNX (its own protobuf reader):
# kernel_shape, strides, dilations, the left pad of every task and the top
# pad of a node's first task, group (depthwise iff group = channels), for the
# files compiled from multiple_input_demo.onnx / retinaface.onnx that name
# each task's node
if out=$($PY - "$D" "$T" <<'EOF'
import json, sys
sys.path.insert(0, 'tests/cli')
from onnx_wire import fields
d_dir, tmp = sys.argv[1:3]
def onnx_convs(path):
    graph = [v for f, v in fields(open(path, 'rb').read()) if f == 7][0]
    out = {}
    for f, v in fields(graph):
        if f != 1:
            continue
        nf = fields(v)
        if [x.decode() for k, x in nf if k == 4][0] != 'Conv':
            continue
        attrs = {}
        for k, a in nf:
            if k != 5:
                continue
            af = fields(a)
            name = [x.decode() for kk, x in af if kk == 1][0]
            ints = []
            for kk, x in af:
                if kk == 8 and isinstance(x, int):
                    ints.append(x)
                elif kk == 8:  # packed varints
                    j = 0
                    while j < len(x):
                        vv = s = 0
                        while True:
                            c = x[j]; j += 1; vv |= (c & 0x7f) << s; s += 7
                            if c < 0x80:
                                break
                        ints.append(vv)
            one = [x for kk, x in af if kk == 3]
            attrs[name] = ints if ints else (one[0] if one else None)
        out[([x.decode() for k, x in nf if k == 3] or [''])[0]] = attrs
    return out
errs, checked = [], 0
cases = [('multiple_input_demo.onnx', f'multiple_input_demo.{c}.rknn') for c in ('rk3588', 'rk3566')]
cases.append(('retinaface.onnx', 'retinaface.rv1103.rknn'))
for src, name in cases:
    convs = onnx_convs(f'{d_dir}/{src}')
    d = json.load(open(f'{tmp}/{name}.tasks.json'))
    nodes = {x['id']: x for x in d['nodes']}
    first = {}
    for t in d['npu_tasks']['tasks']:
        if t['op'] not in ('conv', 'depthwise') or t['node'] is None:
            continue
        full = nodes[t['node']]['name']
        if not full.startswith('Conv:') or full[5:] not in convs:
            continue
        a = convs[full[5:]]
        pads = a.get('pads') or [0, 0, 0, 0]
        want = dict(k=a['kernel_shape'], s=a.get('strides') or [1, 1], dil=a.get('dilations') or [1, 1],
                    left=pads[1], dw=(a.get('group') or 1) > 1)
        got = dict(k=[t['kernel_h'], t['kernel_w']], s=[t['stride_y'], t['stride_x']],
                   dil=[t['dilation_y'], t['dilation_x']], left=t['pad_left'], dw=t['op'] == 'depthwise')
        diff = [k for k in want if want[k] != got[k]]
        if t['node'] not in first:
            first[t['node']] = t
            if t['pad_top'] != pads[0]:
                diff.append('top')
        if diff:
            errs.append(f"{name} task {t['index']} ({full}): {diff}: decoded {got} top {t['pad_top']}, ONNX {want} pads {pads}")
        checked += 1
if checked != 12 + 2 + 105:
    errs.append(f"{checked} conv tasks checked against the ONNX, {12 + 2 + 105} expected")
print('\n'.join(errs[:12])); sys.exit(1 if errs else 0)
EOF
); then ok; else bad "conv tasks vs source ONNX: $out"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
