#!/usr/bin/env bash
# tests/samples/vendor.sh [BUILD] — a vendor-compiled .rknn through the C API
# (runtime/api/api_vendor.c): sample_vendor, the SDK guide's call sequence (init
# from bytes, query, uint8 NHWC rknn_inputs_set, run, rknn_outputs_get), against
# `rknn-trace run FILE --emulate --dump` on the same pixels given as float32 NCHW.
# Checks, per file (multiple_input_demo.rk3588 and its compressed-weight
# toolkit 1.3.4 build, yolov8n.rk3566):
#  - the app exits 0 with no E line;
#  - INPUT_ATTR: NHWC dims [n,h,w,c], INT8 AFFINE; OUTPUT_ATTR: NCHW dims, INT8
#    AFFINE; zp and scale equal the file's FlatBuffer (tests/oracle/rknn_fb.py);
#  - want_float outputs byte-identical to the CLI's dumped outputs (numpy);
#  - want_float = 0 outputs equal round(x / scale) + zp of the dump (numpy), and
#    (q - zp) * scale gives the floats back;
#  - the model zoo's zero-copy flow (yolov8_zero_copy.cc; the app's second context):
#    every query the SDK's demos make succeeds, NATIVE_OUTPUT_ATTR's dims are the
#    file's own native_shape (what the vendor compiler wrote), the NC1HWC2 int8
#    outputs give the same bytes as rknn_outputs_get's, and PERF_RUN and MEM_SIZE
#    are the figures `rknn-trace run FILE` predicts (one story for both);
#  - at RKNN_LOG_LEVEL=5 every tensor the CLI dumps is in RKNN_DUMP_DIR under the
#    vendor's level-5 name (NNN_<OpType>_<tensor>_shape_<dims>_float.npy), the same
#    values, and nothing else is left there.
# The files: multiple_input_demo for every chip and toolkit stored (rk3588, rk3562,
# rk3566, rk3576, rv1126b; toolkit 1.3.4 for rk3588 and rk3566: other native
# layouts) and yolov8n.rk3566.
# Refusals: the Toolkit1 rk1808 file fails rknn_init with -6 and one E line
# naming the emulator's reason; a tk134 copy with one compressed-weight header
# byte changed initialises, and its rknn_run fails with one E line naming the
# task and the block where the emulator stopped.
# Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-${BUILD:-build}}
PY=/usr/bin/python3
RT=$B/rknn-trace
APP=$B/samples/sample_vendor
SHARED=${RT_SHARED:-../shared}
D=$SHARED/data/models/rknn
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

if [ ! -x "$APP" ] || [ ! -f "$D/yolov8n.rk3566.rknn" ]; then
    bad "$APP not built or vendor samples missing under $D"
    echo "$pass passed, $fail failed"; exit 1
fi

for f in multiple_input_demo.rk3588 multiple_input_demo.rk3588.tk134 multiple_input_demo.rk3562 \
         multiple_input_demo.rk3566 multiple_input_demo.rk3566.tk134 multiple_input_demo.rk3576 \
         multiple_input_demo.rv1126b yolov8n.rk3566; do
    m=$D/$f.rknn
    w=$T/$f
    mkdir -p "$w/app"
    if ! "$RT" inspect "$m" --json >"$w/meta.json" 2>"$w/inspect.err"; then
        bad "$f: inspect --json: $(head -2 "$w/inspect.err")"; continue
    fi
    # every node tensor's scale and zero point in inspect --json: the file's own, as the
    # independent FlatBuffer reader (tests/oracle/rknn_fb.py) reads them
    $PY - "$w/meta.json" "$m" <<'EOF' && ok || bad "$f: inspect --json tensor quantization"
import json, sys
sys.path.insert(0, 'tests/oracle')
from rknn_fb import FB
fb = FB(sys.argv[2])
q = {fb.string(t, 5): (fb.first(t, 10, '<f'), fb.first(t, 11, '<i')) for t in fb.tables(fb.graph(), 0)}
n = 0
for nd in json.load(open(sys.argv[1]))['nodes']:
    for t in nd['inputs'] + nd['outputs']:
        if 'scale' in t:
            s, z = q[t['name']]
            assert abs(t['scale'] - s) <= 1e-6 * abs(s) and t['zero_point'] == z, (t, s, z)
            n += 1
assert n > 0
EOF
    # one seeded uint8 image per input: NHWC bytes for the app, float32 NCHW for the CLI
    args=()
    while read -r name npy u8; do
        args+=(-i "$name=$npy"); echo "$u8" >>"$w/u8.list"
    done < <($PY - "$w" <<'EOF'
import json, sys, numpy as np
w = sys.argv[1]
r = np.random.default_rng(11)
for i, io in enumerate(json.load(open(w + '/meta.json'))['inputs']):
    n, c, h, wd = io['shape']
    x = r.integers(0, 256, (n, h, wd, c), dtype=np.uint8)
    x.tofile(f'{w}/in{i}.u8')
    np.save(f'{w}/in{i}.npy', x.transpose(0, 3, 1, 2).astype(np.float32))
    print(io['name'], f'{w}/in{i}.npy', f'{w}/in{i}.u8')
EOF
)
    mapfile -t u8s <"$w/u8.list"
    if "$RT" run "$m" --emulate "${args[@]}" --dump "$w/cli" --no-db >"$w/cli.out" 2>"$w/cli.err" &&
       "$RT" run "$m" --no-db --json >"$w/pred.json" 2>>"$w/cli.err"; then
        ok
    else
        bad "$f: rknn-trace run --emulate: $(head -3 "$w/cli.err")"; continue
    fi
    if RKNN_LOG_LEVEL=5 RKNN_DUMP_DIR="$w/d5" "$APP" "$m" "$w/app" "${u8s[@]}" >"$w/app.out" \
            2>"$w/app.err"; then ok; else
        bad "$f: sample_vendor failed: $(tail -3 "$w/app.out") $(head -3 "$w/app.err")"; continue
    fi
    ! grep -q '^E RKNN' "$w/app.err" && ok || bad "$f: E lines: $(grep '^E RKNN' "$w/app.err" | head -3)"
    if out=$($PY - "$w" "$m" <<'EOF'
import json, re, sys, numpy as np
sys.path.insert(0, 'tests/oracle')
from rknn_fb import FB
w, rknn = sys.argv[1:3]
fb = FB(rknn)   # the file's own scale and zero point per tensor name
q = {fb.string(t, 5): (fb.first(t, 10, '<f'), fb.first(t, 11, '<i')) for t in fb.tables(fb.graph(), 0)}
meta = json.load(open(w + '/meta.json'))
text = open(w + '/app.out').read()
sec = text.split('output tensors:')
attrs = [re.findall(r'index=(\d+), name=(\S+), n_dims=\d+, dims=\[([^\]]*)\].*?fmt=(\w+), '
                    r'type=(\w+), qnt_type=(\w+), zp=(-?\d+), scale=([\d.]+)', s) for s in sec]
msgs = []
for kind, want, lst in (('input', meta['inputs'], attrs[0]), ('output', meta['outputs'], attrs[1])):
    if len(lst) != len(want):
        msgs.append(f'{kind}: {len(lst)} attrs for {len(want)} tensors')
        continue
    for a, io in zip(lst, want):
        idx, name, dims, fmt, typ, qnt, zp, sc = a
        dims = [int(x) for x in dims.split(',')]
        n, c, h, wd = io['shape']
        exp = [n, h, wd, c] if kind == 'input' else [n, c, h, wd]
        s, z = q[name]
        if (name != io['name'] or dims != exp or fmt != ('NHWC' if kind == 'input' else 'NCHW')
                or typ != 'INT8' or qnt != 'AFFINE' or int(zp) != z
                or abs(float(sc) - s) > 5e-7 + 1e-6 * s):
            msgs.append(f'{kind} {idx}: {a} vs {name} {exp} zp {z} scale {s}')
for i, io in enumerate(meta['outputs']):
    ref = np.load(f"{w}/cli/{io['name']}.npy")
    got = np.fromfile(f'{w}/app/out{i}.f32', dtype=np.float32)
    if got.size != ref.size or got.tobytes() != ref.astype(np.float32).ravel().tobytes():
        d = np.abs(got - ref.ravel()).max() if got.size == ref.size else 'size'
        msgs.append(f"output {io['name']}: float differs from the CLI dump (max abs {d})")
    s, z = q[io['name']]
    qi = np.fromfile(f'{w}/app/out{i}.i8', dtype=np.int8).astype(np.int64)
    qr = np.clip(np.round(ref.ravel().astype(np.float64) / s) + z, -128, 127)
    if qi.size != qr.size or (qi != qr).any():
        msgs.append(f"output {io['name']}: int8 differs from round(x/scale)+zp")
    elif (((qi - z) * np.float32(s)).astype(np.float32) != ref.ravel()).any():
        msgs.append(f"output {io['name']}: (q - zp) * scale is not the float output")
    zc = np.fromfile(f'{w}/app/out{i}.zc.i8', dtype=np.int8).astype(np.int64)
    if zc.size != qi.size or (zc != qi).any():
        msgs.append(f"output {io['name']}: the zero-copy NC1HWC2 bytes differ from rknn_outputs_get's")
    nat = re.search(rf'^native output {i}: dims=\[([\d,]*)\]', text, re.M)
    if not nat or [int(x) for x in nat.group(1).split(',')] != io['native_shape']:
        msgs.append(f"output {io['name']}: NATIVE_OUTPUT_ATTR {nat and nat.group(1)} is not the "
                    f"file's native_shape {io['native_shape']}")
pred = json.load(open(w + '/pred.json'))['npu']
run = re.search(r'^perf run: (\d+) us$', text, re.M)
if not run or abs(int(run.group(1)) - pred['predicted_us']) > 0.5:
    msgs.append(f"PERF_RUN {run and run.group(1)} us is not the CLI's prediction {pred['predicted_us']}")
mem = re.search(r'^total weight size: (\d+), total internal size: (\d+)$', text, re.M)
if not mem or (int(mem.group(1)), int(mem.group(2))) != (pred['weight_bytes'], pred['internal_bytes']):
    msgs.append(f"MEM_SIZE {mem and mem.groups()} is not the CLI's {pred['weight_bytes']}, "
                f"{pred['internal_bytes']}")
if not re.search(r'^perf detail: 0 bytes$', text, re.M):
    msgs.append('PERF_DETAIL without RKNN_FLAG_COLLECT_PERF_MASK: not an empty detail')
# level 5: every tensor the CLI dumped, under the vendor's name, the same values
import os
d5 = os.listdir(w + '/d5')
if any(f.startswith('.') for f in d5):
    msgs.append('level 5 left the emulator folder behind')
# the layer that writes a tensor: its row in `run FILE --json` (index, vendor OpType;
# a row names its first output: a Split's others are checked by the form alone)
rows = {l['name']: '%03d_%s_' % (l['index'], l['npu_op']) for l in
        json.load(open(w + '/pred.json'))['layers'] if l.get('name')}
for f in os.listdir(w + '/cli'):
    if not f.endswith('.npy') or f.startswith('task_'):
        continue
    got = [g for g in d5 if re.match(r'^\d{3}_[A-Za-z0-9]+_' + re.escape(f[:-4]) +
                                     r'_shape(_\d+)+_float\.npy$', g)]
    if len(got) != 1 or not got[0].startswith(rows.get(f[:-4], got[0][:4])):
        msgs.append(f'level 5: {f[:-4]} dumped as {got}, its row {rows.get(f[:-4])}')
    elif not np.array_equal(np.load(f'{w}/cli/{f}'), np.load(f'{w}/d5/{got[0]}')):
        msgs.append(f'level 5: {got[0]} differs from the CLI dump')
print('; '.join(msgs) if msgs else 'ok')
EOF
    ) && [ "$out" = ok ]; then ok; else bad "$f: $out"; fi
    # pass_through = 1: the model's own int8 values, computed here from the same
    # pixels with the file's mean, std (inspect) and scale, zero point (the FlatBuffer
    # oracle); the CLI given the floats they stand for, (q - zp) scale std + mean,
    # must compute the same outputs
    pargs=()
    while read -r name npy i8; do
        pargs+=(-i "$name=$npy"); echo "$i8" >>"$w/i8.list"
    done < <($PY - "$w" "$m" <<'EOF'
import json, sys, numpy as np
sys.path.insert(0, 'tests/oracle')
from rknn_fb import FB
w, rknn = sys.argv[1:3]
fb = FB(rknn)
q = {fb.string(t, 5): (fb.first(t, 10, '<f'), fb.first(t, 11, '<i')) for t in fb.tables(fb.graph(), 0)}
for i, io in enumerate(json.load(open(w + '/meta.json'))['inputs']):
    n, c, h, wd = io['shape']
    s, z = q[io['name']]
    mean = np.array(io['mean'][:c], np.float64).reshape(1, 1, 1, c)
    std = np.array(io['std'][:c], np.float64).reshape(1, 1, 1, c)
    u = np.fromfile(f'{w}/in{i}.u8', dtype=np.uint8).reshape(n, h, wd, c).astype(np.float64)
    qi = np.clip(np.round((u - mean) / std / s) + z, -128, 127).astype(np.int8)
    qi.tofile(f'{w}/in{i}.i8')
    x = ((qi.astype(np.float64) - z) * s) * std + mean
    np.save(f'{w}/pin{i}.npy', x.transpose(0, 3, 1, 2).astype(np.float32))
    print(io['name'], f'{w}/pin{i}.npy', f'{w}/in{i}.i8')
EOF
)
    mapfile -t i8s <"$w/i8.list"
    mkdir -p "$w/pt"
    if "$RT" run "$m" --emulate "${pargs[@]}" --dump "$w/pcli" --no-db >/dev/null 2>"$w/pcli.err" &&
       "$APP" --pass-through "$m" "$w/pt" "${i8s[@]}" >"$w/pt.out" 2>"$w/pt.err" &&
       ! grep -q '^E RKNN' "$w/pt.err"; then
        $PY - "$w" <<'EOF' && ok || bad "$f: pass_through outputs differ from the CLI's on the same values"
import json, sys, numpy as np
w = sys.argv[1]
for i, io in enumerate(json.load(open(w + '/meta.json'))['outputs']):
    ref = np.load(f"{w}/pcli/{io['name']}.npy").astype(np.float32).ravel()
    got = np.fromfile(f'{w}/pt/out{i}.f32', dtype=np.float32)
    assert got.tobytes() == ref.tobytes(), (io['name'], got.size, ref.size)
EOF
    else
        bad "$f: pass_through run: $(tail -2 "$w/pt.out") $(grep '^E RKNN' "$w/pt.err" "$w/pcli.err" | head -2)"
    fi
done

# files the emulator does not run: refused at rknn_init with its reason, one E line
for case in "tk1_multi_input.rk1808|no compiled NPU tasks of a known kind"; do
    f=${case%%|*}; why=${case#*|}
    "$APP" "$D/$f.rknn" "$T" /dev/null >"$T/r.out" 2>"$T/r.err"
    rc=$?
    [ $rc = 1 ] && grep -qx 'rknn_init error ret=-6' "$T/r.out" && ok ||
        bad "$f: rc $rc, $(head -2 "$T/r.out")"
    [ "$(grep -c '^E RKNN' "$T/r.err")" = 1 ] && grep '^E RKNN' "$T/r.err" | grep -qF "$why" && ok ||
        bad "$f: expected one E line naming '$why': $(head -3 "$T/r.err")"
done

# a task the emulator does not understand: rknn_init succeeds, rknn_run fails
# with the emulator's reason (block 0's header kind byte of conv2.weight
# changed; tests/cli/emulate.sh checks the CLI's message for the same copy)
src=$D/multiple_input_demo.rk3588.tk134.rknn
off=$("$RT" inspect "$src" --json | $PY -c '
import json, sys
for n in json.load(sys.stdin)["nodes"]:
    for i in n.get("inputs", []):
        if i.get("name") == "conv2.weight": print(i["data_offset"])')
$PY -c 'import sys
b = bytearray(open(sys.argv[1], "rb").read()); b[int(sys.argv[3])] = 0x22
open(sys.argv[2], "wb").write(b)' "$src" "$T/dc_kind.rknn" "$off"
w=$T/multiple_input_demo.rk3588.tk134
"$APP" "$T/dc_kind.rknn" "$T" "$w"/in*.u8 >"$T/r.out" 2>"$T/r.err"
rc=$?
[ $rc != 0 ] && grep -qx 'rknn_run fail! ret=-1' "$T/r.out" && ok ||
    bad "corrupted tk134: rc $rc, $(tail -2 "$T/r.out")"
[ "$(grep -c '^E RKNN' "$T/r.err")" = 1 ] &&
    grep '^E RKNN' "$T/r.err" | grep -q 'rknn_run, the NPU emulator stopped: task 0 .*block 0: header bytes 0x22' && ok ||
    bad "corrupted tk134: expected one E line naming task 0 and block 0: $(head -3 "$T/r.err")"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
