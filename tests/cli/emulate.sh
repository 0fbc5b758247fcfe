#!/usr/bin/env bash
# `rknn-trace run FILE.rknn --emulate`: the vendor file's NPU tasks executed in
# the NPU's integer arithmetic (runtime/emu/emu_exec.c), checked against the
# source model run by our ONNX runtime on the same input (every tensor both
# sides name, numpy cosine and quantization steps), the store read by the
# sqlite3 CLI, and refusals: files or tasks it does not understand stop with
# one line naming the task (a register patched here into a copy).
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

if [ ! -f "$D/multiple_input_demo.onnx" ]; then
    echo "no $D/multiple_input_demo.onnx: vendor samples missing"
    echo "0 passed, 1 failed"
    exit 1
fi

# one image per input, integer pixels 0..255 (the files' inputs: scale 1, zp -128)
$PY - "$T" <<'EOF'
import sys, numpy as np
r = np.random.default_rng(7)
np.save(sys.argv[1] + '/a.npy', r.integers(0, 256, (1, 1, 128, 128)).astype(np.float32))
np.save(sys.argv[1] + '/b.npy', r.integers(0, 256, (1, 3, 128, 128)).astype(np.float32))
EOF
IN=(-i "input.1=$T/a.npy" -i "input=$T/b.npy")
expect 0 "" -- "$RT" run "$D/multiple_input_demo.onnx" --backend sim "${IN[@]}" --dump "$T/onnx" --no-db
# rv1126b (toolkit 2.3.2) quantizes input.1 with scale 0.949 (range [0, 242]):
# its reference is the source model on the input as the file's scale and zero
# point round and saturate it (numpy here, from the file's FlatBuffer)
$PY - "$T" "$D/multiple_input_demo.rv1126b.rknn" <<'EOF'
import sys, numpy as np
sys.path.insert(0, 'tests/oracle')
from rknn_fb import FB
f = FB(sys.argv[2])
q = {f.string(t, 5): (f.first(t, 10, '<f'), f.first(t, 11, '<i')) for t in f.tables(f.graph(), 0)}
s, z = q['input.1']
a = np.load(sys.argv[1] + '/a.npy').astype(np.float64)
a = (np.clip(np.round(a / s) + z, -128, 127) - z) * s
np.save(sys.argv[1] + '/a_rv1126b.npy', a.astype(np.float32))
EOF
expect 0 "" -- "$RT" run "$D/multiple_input_demo.onnx" --backend sim -i "input.1=$T/a_rv1126b.npy" \
    -i "input=$T/b.npy" --dump "$T/onnx_rv1126b" --no-db

# --- emulated against the ONNX run, every tensor both name ---------------------
for chip in rk3588 rk3588.tk134 rk3566 rk3566.tk134 rk3562 rk3576 rv1126b; do
    f=$D/multiple_input_demo.$chip.rknn
    ref=$T/onnx; [ "$chip" = rv1126b ] && ref=$T/onnx_rv1126b
    # every tiling (1, 2 and 3 cores on rk3588), one after the other: each task's
    # rows are checked below; then the default, the one-core tiling only, must
    # give the same bytes
    expect 0 "" -- env RKNN_TRACE_EMU_TILINGS=all "$RT" run "$f" --emulate "${IN[@]}" --dump "$T/$chip" --no-db
    grep -q "^output 8 \[1,8,128,128\] float32" "$T/out" && ok || bad "$chip: output line: $(head -3 "$T/out")"
    expect 0 "" -- "$RT" run "$f" --emulate "${IN[@]}" --dump "$T/$chip.one" --no-db
    cmp -s "$T/$chip/8.npy" "$T/$chip.one/8.npy" && cmp -s "$T/$chip/7.npy" "$T/$chip.one/7.npy" \
        && ok || bad "$chip: the one-core tiling's tensors differ from every tiling's"
    "$RT" inspect "$f" --json >"$T/$chip.json" 2>/dev/null || bad "$chip: inspect --json"
    # the tiling starts as the tests' own FlatBuffer reader finds them (graph slot 10)
    $PY -c '
import json, sys
sys.path.insert(0, "tests/oracle")
from rknn_fb import FB
f = FB(sys.argv[1])
got = json.load(open(sys.argv[2]))["tiling_starts"]
sys.exit(0 if got == f.u32s(f.graph(), 10) else 1)
' "$f" "$T/$chip.json" && ok || bad "$chip: tiling_starts differ from graph slot 10"
    # inspect --tasks names the one-core tiling the run took (its "X of its Y
    # tasks" line; every task when the file has one tiling)
    "$RT" inspect "$f" --tasks --json >"$T/$chip.tasks.json" 2>/dev/null
    "$RT" run "$f" --emulate "${IN[@]}" --no-db >"$T/$chip.one.out" 2>&1
    $PY -c '
import json, re, sys
d = json.load(open(sys.argv[1]))["npu_tasks"]
m = re.search(r"one-core tiling, (\d+) of its (\d+) tasks", open(sys.argv[2]).read())
want = int(m.group(1)) if m else len(d["tasks"])
got = d["one_core_tasks"]
sys.exit(0 if got == want else f"one_core_tasks {got}, want {want}")
' "$T/$chip.tasks.json" "$T/$chip.one.out" && ok || bad "$chip: one_core_tasks vs the run"
    if out=$($PY - "$ref" "$T/$chip" "$T/$chip.json" "$f" <<'EOF'
import json, sys, numpy as np
sys.path.insert(0, 'tests/oracle')
from rknn_fb import FB
onnx, emu, meta, rknn = sys.argv[1:5]
idx = json.load(open(onnx + '/index.json'))
q = {o['name']: (o['scale'], o['zero_point']) for o in json.load(open(meta))['outputs']}
fb = FB(rknn)   # every tensor's scale and zero point, the file's own
fq = {fb.string(t, 5): (fb.first(t, 10, '<f'), fb.first(t, 11, '<i')) for t in fb.tables(fb.graph(), 0)}
ref = {e['name']: np.load(f"{onnx}/{e['file']}").astype(np.float64) for e in idx}
# 8 = 6 + 7, with 7 held to its int8 range as the file quantizes it (rv1126b's
# calibration clips 0.2 % of 7's values; the other files' ranges hold them all)
s7, z7 = fq['7']
ref['8'] = ref['6'] + np.clip(ref['7'], (-128 - z7) * s7, (127 - z7) * s7)
msgs, seen = [], 0
for e in idx:
    try:
        a = np.load(f"{emu}/{e['name']}.npy")
    except FileNotFoundError:
        continue                      # fused away in the file (Conv_0's own output 6)
    b = ref[e['name']]
    seen += 1
    if a.shape != b.shape:
        msgs.append(f"{e['name']}: shape {a.shape} vs {b.shape}"); continue
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    cos = a @ b / (np.linalg.norm(a) * np.linalg.norm(b))
    if e['layer'] < 0:                # an input: the same values (a cosine of them
        if not np.array_equal(a, b):  # rounds below 1 with some BLAS kernels)
            msgs.append(f"{e['name']} (input): {int((a != b).sum())} values differ")
    elif not cos >= 0.9999:           # NaN (a non-finite dump) fails too
        msgs.append(f"{e['name']} (layer {e['layer']}): cosine {cos:.6f} < 0.9999")
    if e['name'] in q:                # an output: within one step of the rounded float
        s, z = q[e['name']]
        d = np.abs(np.round(a / s) - (np.clip(np.round(b / s) + z, -128, 127) - z))
        if d.max() > 1:
            msgs.append(f"{e['name']}: {int((d > 1).sum())} values more than one step off")
if seen != 4:
    msgs.append(f"{seen} tensors compared, want 4 (2 inputs, 7, 8)")
# every task's own rows (the 1-, 2- and 3-core tilings overwrite each other's)
byname = ref
tasks = json.load(open(emu + '/tasks.json'))
for t in tasks:
    a = np.load(f"{emu}/{t['file']}").astype(np.float64)
    r0, r1 = t['rows']
    b = byname[t['tensor']][:, :, r0:r1, :].astype(np.float64)
    cos = (a * b).sum() / (np.linalg.norm(a) * np.linalg.norm(b))
    if a.shape != b.shape or not np.isfinite(a).all() or not cos >= 0.9999:
        msgs.append(f"task {t['task']} ({t['node']}, {t['tensor']} rows {r0}..{r1}): cosine {cos:.6f}")
print(len(tasks), end=' ')
print('; '.join(msgs)); sys.exit(1 if msgs else 0)
EOF
    ); then ok; else bad "$chip emulated vs ONNX: $out"; fi
    want=$(case $chip in rk3588|rk3588.tk134) echo 12;; rk3562) echo 4;; rk3576) echo 8;; *) echo 2;; esac)
    [ "${out%% *}" = "$want" ] && ok || bad "$chip: ${out%% *} task dumps, want $want"
done
# the same quantization on both chips: the same integers
cmp -s "$T/rk3588/8.npy" "$T/rk3566/8.npy" && ok || bad "rk3588 and rk3566 outputs differ"
# toolkit 1.3.4's model-1 file, its tasks bound by the nodes' task lists: the same
# integers as toolkit 1.6.2's, whose task table names the nodes
cmp -s "$T/rk3566/8.npy" "$T/rk3566.tk134/8.npy" && cmp -s "$T/rk3566/7.npy" "$T/rk3566.tk134/7.npy" \
    && ok || bad "rk3566 tk134 and v6 tensors differ"
# toolkit 1.3.4's rk3588 file: its weights through the CNA's decompressor
# (runtime/emu/emu_dcomp.c), tiled otherwise: the same integers as 1.6.2's
cmp -s "$T/rk3588/8.npy" "$T/rk3588.tk134/8.npy" && cmp -s "$T/rk3588/7.npy" "$T/rk3588.tk134/7.npy" \
    && ok || bad "rk3588 tk134 and v6 tensors differ"
# rk3562's and rk3576's own layouts, the same per-channel words: the same integers too
for chip in rk3562 rk3576; do
    for n in 7 8; do
        cmp -s "$T/rk3566/$n.npy" "$T/$chip/$n.npy" && ok || bad "rk3566 and $chip tensor $n differ"
    done
done
grep -q "12 NPU tasks computed, 5 one-pixel in-place copies" <(RKNN_TRACE_EMU_TILINGS=all "$RT" run \
    "$D/multiple_input_demo.rk3588.rknn" --emulate "${IN[@]}" --no-db 2>&1) && ok || bad "rk3588: task counts"
# by default the one-core tiling: tasks 0..1 of the 17 ([0,0,0,2,8]), what the
# board runs under RKNN_NPU_CORE_AUTO
"$RT" run "$D/multiple_input_demo.rk3588.rknn" --emulate "${IN[@]}" --no-db >"$T/one.out" 2>&1
grep -q "^emulated: 2 NPU tasks computed, 0 one-pixel" "$T/one.out" &&
    grep -q "the file's one-core tiling, 2 of its 17 tasks" "$T/one.out" && ok \
    || bad "rk3588 one-core tiling: $(grep -A1 '^emulated' "$T/one.out")"

# --- the store: backend emulate, the output with its dump ------------------------
DB=$T/db
expect 0 "" -- "$RT" run "$D/multiple_input_demo.rk3588.rknn" --emulate "${IN[@]}" --dump "$T/st" --db "$DB" --label emu
[ "$(sqlite3 "$DB" "select backend||','||platform||','||model_format from runs where label='emu'")" = "emulate,rk3588,rknn" ] \
    && ok || bad "stored run: $(sqlite3 "$DB" 'select backend, platform, model_format from runs')"
[ "$(sqlite3 "$DB" "select name||','||shape||','||dtype||','||dump_file from outputs")" = "8,[1,8,128,128],float32,$T/st/8.npy" ] \
    && ok || bad "stored outputs: $(sqlite3 "$DB" 'select * from outputs')"
[ "$(sqlite3 "$DB" "select count(*) from layers l join runs r on r.id = l.run_id where r.label='emu'")" = 5 ] \
    && ok || bad "stored layers: $(sqlite3 "$DB" 'select count(*) from layers')"
# one story: run's summary (from "run" on) is show's, the output line included
sed -n '/^run /,$p' "$T/out" >"$T/run_summary"
"$RT" show emu --db "$DB" >"$T/show_summary" 2>&1
grep -q '^  8 float32 \[1,8,128,128\]' "$T/run_summary" && cmp -s "$T/run_summary" "$T/show_summary" \
    && ok || bad "run and show differ: $(diff "$T/run_summary" "$T/show_summary" | head -5)"
# what computed the outputs is stored with them: run's "emulated:" count is show's host
# line and the run document's host.missing, and the run's extra JSON says numeric outputs
n=$(sed -n 's/^emulated: \([0-9]*\) NPU tasks computed.*/\1/p' "$T/out")
h=$(sed -n 's/^host  *//p' "$T/show_summary")
j=$("$RT" show emu --db "$DB" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["host"]["missing"])')
[ -n "$n" ] && [ "$h" = "not executed on this PC: the outputs are the NPU emulator's, $n of the file's NPU tasks computed" ] &&
    [ "$j" = "$h" ] && [ "$(sqlite3 "$DB" "select json_extract(extra_json,'\$.numeric_outputs')||','||json_extract(extra_json,'\$.emulation.tasks_computed') from runs where label='emu'")" = "1,$n" ] \
    && ok || bad "emulated tasks: run '$n', show '$h', json '$j'"

# compare of the ONNX run and the emulated one, both stored with their dumps
expect 0 "" -- "$RT" run "$D/multiple_input_demo.onnx" --backend sim -t rk3588 "${IN[@]}" --dump "$T/od" --db "$DB" --label onnx
expect 0 "" -- "$RT" compare onnx emu --db "$DB"
grep -Eq "B  vs golden: .*vs A: cos 0\.999[89]" "$T/out" && ok || bad "compare onnx emu: $(grep 'vs A' "$T/out")"

# --- what it does not run: one line each, exit 2 -------------------------------
# --- retinaface.rv1103: the backbone's convs and depthwise convs, layer by layer ---
# a real photo (skimage's astronaut, as scripts/demo_input.py), BGR as the model
# was trained, raw pixels for the NPU's input converter, minus the file's mean for ONNX
if $PY -c 'import skimage' 2>/dev/null; then
    $PY - "$T" <<'EOF'
import sys, numpy as np
from skimage import data, transform
im = transform.resize(data.astronaut(), (640, 640), order=1, preserve_range=True)
x = np.ascontiguousarray(np.round(im).astype(np.float32).transpose(2, 0, 1)[None][:, ::-1])
np.save(sys.argv[1] + '/face.npy', x)
np.save(sys.argv[1] + '/face_onnx.npy', x - np.array([104, 117, 123], np.float32).reshape(1, 3, 1, 1))
EOF
    expect 0 "" -- "$RT" run "$D/retinaface.onnx" --backend sim -i "input.1=$T/face_onnx.npy" --dump "$T/rf_onnx" --no-db
    mkdir -p "$T/rf_emu"
    expect 0 "" -- "$RT" run "$D/retinaface.rv1103.rknn" --emulate -i "input.1=$T/face.npy" --dump "$T/rf_emu" --no-db
    grep -q "^emulated: 155 NPU tasks computed" "$T/out" && ok || bad "retinaface: emulated line: $(grep emulated "$T/out")"
    # the three outputs: the head's rows of the three scales, each against
    #  - the emulated Transposes concatenated and requantized to the output's scale
    #    (numpy; the layout tasks must not move a value: within rounding, half a step)
    #  - our fp32 ONNX run, as is and clipped to the output's int8 range (end to end:
    #    the errors of 60 int8 layers carried on; reported, bounded loosely)
    "$RT" inspect "$D/retinaface.rv1103.rknn" --json >"$T/rf.json" 2>/dev/null || bad "retinaface inspect --json"
    cp "$T/out" "$T/rf_stdout"
    if out=$($PY - "$T/rf_onnx" "$T/rf_emu" "$T/rf.json" "$T/rf_stdout" <<'EOF'
import json, sys, numpy as np
onnx, emu, meta, stdout = sys.argv[1:5]
q = {o['name']: (o['scale'], o['zero_point']) for o in json.load(open(meta))['outputs']}
oi = {e['name']: e for e in json.load(open(onnx + '/index.json'))}
lines = open(stdout).read()
L = lambda n: np.load(emu + '/' + n.replace('/', '_') + '.npy').astype(np.float64)
cos = lambda a, b: float(a.ravel() @ b.ravel() / (np.linalg.norm(a) * np.linalg.norm(b)))
msgs, rep = [], []
for out, head, c in [('515', 'BboxHead', 4), ('553', 'ClassHead', 2), ('592', 'LandmarkHead', 10)]:
    s, z = q[out]
    got = L(out)
    if got.shape != (1, 16800, c) or f"output {out} [1,16800,{c}] float32" not in lines:
        msgs.append(f"{out}: shape {got.shape}"); continue
    got = got.reshape(-1, c)
    x = np.concatenate([L(f'/{head}.{i}/Transpose_output_0').reshape(-1, c) for i in range(3)])
    want = (np.clip(np.round(x / s) + z, -128, 127) - z) * s
    if np.abs(got - want).max() > 0.5 * s + 1e-4:
        msgs.append(f"{out}: {int((np.abs(got - want) > 0.5 * s).sum())} values moved by the layout tasks")
    f = np.load(f"{onnx}/{oi[out]['file']}").astype(np.float64).reshape(-1, c)
    fc = (np.clip(np.round(f / s) + z, -128, 127) - z) * s
    rep.append(f"{out} {cos(got, f):.4f}/{cos(got, fc):.4f}")
    if cos(got, fc) < 0.9:
        msgs.append(f"{out}: cosine {cos(got, fc):.4f} against the clipped fp32 result")
print(' '.join(rep), '; '.join(msgs)); sys.exit(1 if msgs else 0)
EOF
    ); then ok; echo "retinaface outputs vs ONNX fp32 (as is/int8-clipped): $out"; else bad "retinaface outputs: $out"; fi
    # the fair end-to-end check of the head: each output against the source model's
    # head (1x1 convs, Transpose, Reshape, Concat in float64, tests/oracle/emu_layers.py)
    # applied to the emulated ssh outputs, rounded to the output's int8 grid and clipped
    if out=$($PY - "$D/retinaface.onnx" "$T/rf_emu" "$T/rf.json" <<'EOF'
import json, sys, numpy as np
sys.path.insert(0, 'tests/oracle')
import emu_layers
model, emu, meta = sys.argv[1:4]
inits, nodes = emu_layers.load(model)
q = {o['name']: (o['scale'], o['zero_point']) for o in json.load(open(meta))['outputs']}
L = lambda n: np.load(emu + '/' + n.replace('/', '_') + '.npy').astype(np.float64)
cos = lambda a, b: float(a.ravel() @ b.ravel() / (np.linalg.norm(a) * np.linalg.norm(b)))
rep, msgs = [], []
for out, head, c in [('515', 'BboxHead', 4), ('553', 'ClassHead', 2), ('592', 'LandmarkHead', 10)]:
    ys = []
    for i in range(3):
        n = next(n for n in nodes if n['op'] == 'Conv' and n['out'][0] == f'/{head}.{i}/conv1x1/Conv_output_0')
        y = emu_layers.conv(L(n['in'][0])[0], inits[n['in'][1]], inits[n['in'][2]], n['attr'])
        ys.append(y.transpose(1, 2, 0).reshape(-1, c))
    s, z = q[out]
    f = np.concatenate(ys)
    fc = (np.clip(np.round(f / s) + z, -128, 127) - z) * s
    got = L(out).reshape(-1, c)
    rep.append(f"{out} {cos(got, fc):.5f} ({np.abs(got - fc).max() / s:.0f} steps)")
    if cos(got, fc) < 0.998:
        msgs.append(f"{out}: cosine {cos(got, fc):.5f}")
print(' '.join(rep), '; '.join(msgs)); sys.exit(1 if msgs else 0)
EOF
    ); then ok; echo "retinaface outputs vs the fp32 head on the emulated ssh outputs: $out"; else bad "retinaface head: $out"; fi
    # the source model through our ONNX runtime on the same input: the int8
    # simulation on the vendor file's own grid (every tensor's scale and zero point
    # from its lite graph, tests/oracle/rknn_qcfg.py, --hybrid) with --quant-method
    # npu (the compiler's weights, multipliers and ConvLeakyReluAdd,
    # docs/rknn-format.md "Execution on RV110x"), the input quantized as the
    # chip's input converter does it (numpy, below): outputs at cosine >= 0.999
    $PY tests/oracle/rknn_qcfg.py "$D/retinaface.rv1103.rknn" "$D/retinaface.onnx" "$T/rf.cfg" >"$T/rf_cfg_n" \
        && [ "$(cat "$T/rf_cfg_n")" = "77 35" ] && ok || bad "rknn_qcfg.py: $(cat "$T/rf_cfg_n")"
    $PY - "$T" <<'EOF'
import sys, numpy as np
# CNA_CVT: q = round(p * 0x7e83 / 2^15) + offset_c, offsets -115 -128 -134
# (round(-mean_c / s_in + zp_in)); fed as s_in (q - zp_in) so that the
# simulation's quantization of it gives q back
x = np.load(sys.argv[1] + '/face.npy').astype(np.float64)
s_in, z_in = 1.0117647647857666, -12
off = np.floor(-np.array([104, 117, 123.0]) / s_in + z_in + 0.5).reshape(1, 3, 1, 1)
q = np.clip(np.floor(x * 0x7e83 / 2 ** 15 + 0.5) + off, -128, 127)
np.save(sys.argv[1] + '/face_chip.npy', (s_in * (q - z_in)).astype(np.float32))
EOF
    mkdir -p "$T/rf_q8"
    expect 0 "" -- "$RT" run "$D/retinaface.onnx" --backend sim -q i8 --quant-method npu --hybrid "$T/rf.cfg" \
        -i "input.1=$T/face_chip.npy" --dump-quant "$T/rf_q8" --no-db
    if out=$($PY - "$T/rf_q8" "$T/rf_emu" "$T/rf.json" <<'EOF'
import glob, json, sys, numpy as np
q8, emu, meta = sys.argv[1:4]
q = {o['name']: (o['scale'], o['zero_point']) for o in json.load(open(meta))['outputs']}
Q = lambda n: np.load(glob.glob(f'{q8}/[0-9][0-9][0-9][0-9]_*_{n.replace("/", "_")}.npy')[0]).astype(np.float64)
L = lambda n: np.load(emu + '/' + n.replace('/', '_') + '.npy').astype(np.float64)
cos = lambda a, b: float(a.ravel() @ b.ravel() / (np.linalg.norm(a) * np.linalg.norm(b)))
rep, msgs = [], []
first = '/stage1/stage1.0/stage1.0.2/LeakyRelu_output_0'
c = cos(Q(first), L(first))
rep.append(f"first layer {c:.6f}")
if c < 0.99999:
    msgs.append(f"first layer: cosine {c:.6f}")
for out in ['515', '553', '592']:
    s, z = q[out]
    a, b = Q(out), L(out)
    k = a / s + z
    if np.abs(k - np.round(k)).max() > 1e-3 or k.min() < -128.001 or k.max() > 127.001:
        msgs.append(f"{out}: not on the file's grid (scale {s}, zero point {z})")
    c = cos(a.reshape(b.shape), b)
    rep.append(f"{out} {c:.5f} ({np.mean(a.reshape(b.shape) == b):.5f} equal)")
    if c < 0.999:
        msgs.append(f"{out}: cosine {c:.5f}")
print(' '.join(rep), '; '.join(msgs)); sys.exit(1 if msgs else 0)
EOF
    ); then ok; echo "retinaface: ONNX int8 (--quant-method npu, the file's grid) vs emulated: $out"; else bad "retinaface int8 on the file's grid: $out"; fi
    # the NPU's conv arithmetic in numpy (tests/oracle/npu_requant.py), each layer
    # from its dumped input, as integers: the emulated layers (decoded from the
    # registers) and the simulated ones (from the ONNX and the cfg) both give it
    for run in rf_emu:0.9999 rf_q8:0.9999; do
        dir=${run%:*}
        if out=$($PY tests/oracle/npu_requant.py "$D/retinaface.onnx" "$T/$dir" "$T/rf.cfg" npu "${run#*:}"); then
            [ "$(tail -1 <<<"$out" | cut -d' ' -f1)" = 53 ] && ok || bad "npu_requant $dir: $(tail -1 <<<"$out")"
            echo "retinaface $dir vs the NPU's arithmetic in numpy: $(tail -1 <<<"$out")"
        else
            bad "npu_requant $dir: $(grep -v '^1.000000' <<<"$out" | head -5)"
        fi
    done
    # a cfg's weight entries (rknn_qcfg.py --weights: the compiler's per-channel
    # grid with zero points) put the weights on that grid: exact rounding then
    $PY tests/oracle/rknn_qcfg.py "$D/retinaface.rv1103.rknn" "$D/retinaface.onnx" "$T/rfw.cfg" --weights \
        >"$T/rfw_n" && [ "$(cat "$T/rfw_n")" = "77 35 56" ] && ok || bad "rknn_qcfg.py --weights: $(cat "$T/rfw_n")"
    mkdir -p "$T/rf_q8w"
    expect 0 "" -- "$RT" run "$D/retinaface.onnx" --backend sim -q i8 --hybrid "$T/rfw.cfg" \
        -i "input.1=$T/face_chip.npy" --dump-quant "$T/rf_q8w" --no-db
    if out=$($PY tests/oracle/npu_requant.py "$D/retinaface.onnx" "$T/rf_q8w" "$T/rf.cfg" exact 0.995); then
        ok; echo "retinaface, cfg weights vs exact rounding in numpy: $(tail -1 <<<"$out")"
    else
        bad "cfg weights: $(grep -v '^1.000000' <<<"$out" | head -5)"
    fi
    # a copy whose task 125 (the first head Transpose) has another DATA_FORMAT: the run
    # stops there with one line and DIR/stopped_task.json, the reason and every register
    $PY tests/cli/rknn_lite_patch.py "$D/retinaface.rv1103.rknn" "$T/rf_fmt.rknn" 125 0x4010 0x81000005 \
        || bad "patch task 125"
    mkdir -p "$T/rf_stop"
    expect 2 "task 125 \(node Transpose:/BboxHead.2/Transpose\): DPU-only task: .*DATA_FORMAT 0x81000005.*not a copy, 2x upsample or transpose pass as emulated on RV110x \(125 of 155 tasks ran; their layers and stopped_task.json are dumped\)" -- \
        "$RT" run "$T/rf_fmt.rknn" --emulate -i "input.1=$T/face.npy" --dump "$T/rf_stop" --no-db
    $PY - "$T/rf_stop/stopped_task.json" <<'EOF' && ok || bad "retinaface stopped_task.json"
import json, sys
d = json.load(open(sys.argv[1]))
r = {x['addr']: x for x in d['registers']}
assert d['task'] == 125 and d['node_name'] == 'Transpose:/BboxHead.2/Transpose', d
assert d['reason'].startswith('task 125 (node Transpose:/BboxHead.2/Transpose): DPU-only task'), d['reason']
assert r['0x4010']['value'] == 0x81000005 and r['0x4010']['name'] == 'DPU_DATA_FORMAT', r['0x4010']
assert r['0x5018']['value'] == 0x123000 and r['0x4018']['name'] is None, (r['0x5018'], r['0x4018'])
EOF
    if out=$($PY - "$T/rf_onnx" "$T/rf_emu" <<'EOF'
import json, os, sys, numpy as np
onnx, emu = sys.argv[1:3]
tasks = json.load(open(emu + '/tasks.json'))
ran = {t['tensor'] for t in tasks}
msgs, cs = [], []
for e in json.load(open(onnx + '/index.json')):
    p = emu + '/' + e['name'].replace('/', '_').replace(':', '_') + '.npy'
    if not os.path.exists(p):
        continue
    if e['name'] not in ran:
        msgs.append(f"{e['name']}: dumped but no task wrote it")
    a = np.load(p).astype(np.float64).ravel()
    b = np.load(f"{onnx}/{e['file']}").astype(np.float64).ravel()
    if a.min() == 0 and b.min() < 0:
        b = np.maximum(b, 0)  # range [0, ..] (zero point -128): the ReLU after the Concat folded in
    c = a @ b / (np.linalg.norm(a) * np.linalg.norm(b))
    cs.append(c)
    if c < 0.9:    # drift: coarse int8 scales (ssh1: 0.13 a step) and saturated bright values
        msgs.append(f"{e['name']} (layer {e['layer']}, tasks " +
                    ','.join(str(t['task']) for t in tasks if t['tensor'] == e['name']) +
                    f"): cosine {c:.4f}")
if len(cs) != 76:
    msgs.append(f"{len(cs)} layers compared, want 76 (nodes 2..65, the two Adds, 9 Transposes, 3 outputs)")
if len(tasks) != 155:
    msgs.append(f"{len(tasks)} tasks in tasks.json, want 155")
print(f"{min(cs):.4f} {np.mean(cs):.4f}", '; '.join(msgs)); sys.exit(1 if msgs else 0)
EOF
    ); then ok; echo "retinaface layers vs ONNX: min/mean cosine $out"; else bad "retinaface emulated vs ONNX: $out"; fi
    # each conv, Transpose and Concat recomputed in float from its emulated inputs
    # (tests/oracle/emu_layers.py)
    if out=$($PY tests/oracle/emu_layers.py "$D/retinaface.onnx" "$T/rf_emu" 0.999 1.5); then
        [ "$(tail -1 <<<"$out")" = "70 layers, 0 failing (cosine below 0.999 with values 1.5 steps off)" ] \
            && ok || bad "retinaface per-layer oracle: $(tail -1 <<<"$out")"
    else
        bad "retinaface per-layer oracle: $(grep -v '^0\.9999' <<<"$out" | head -5)"
    fi
    # a copy whose first task writes far outside the NPU memory: one line, no crash
    $PY tests/cli/rknn_lite_patch.py "$D/retinaface.rv1103.rknn" "$T/rf_patched.rknn" 0 0x4020 0x7ffff000 \
        || bad "patch task 0"
    expect 2 "task 0 \(node Conv:/stage1/stage1.0/stage1.0.0/Conv\): .*destination 0x7ffff000 outside the 6787574-byte NPU memory \(0 of 155 tasks ran\)" -- \
        "$RT" run "$T/rf_patched.rknn" --emulate -i "input.1=$T/face.npy" --no-db
else
    echo "skimage missing: retinaface layer check skipped"
fi
# yolov8n (model 1): every task bound, all 245 run (ConvExSwish layers with swish
# through the DPU's LUT, ConvSigmoid, plain Conv; weights in one or two
# input-channel blocks, row and output-channel tiles; Splits, Adds, Concats, the
# SPPF's MaxPools, the 2x Resizes) to the six outputs
$PY -c "import numpy as np; np.save('$T/y8.npy', np.random.default_rng(5).integers(0, 256, (1, 3, 640, 640)).astype(np.float32))"
mkdir -p "$T/y8"
"$RT" run "$D/yolov8n.rk3566.rknn" --emulate -i "x.1=$T/y8.npy" --dump "$T/y8" --no-db >"$T/y8.out" 2>&1
grep -q "emulated: 245 NPU tasks computed, 0 one-pixel in-place copies skipped, 0 OutputOperator tasks" "$T/y8.out" \
    && ok || bad "yolov8n: whole run: $(tail -1 "$T/y8.out")"
# what it leaves: the input as the NPU got it (x / 255 quantized with scale 1/255, zp
# -128: exact), every task's rows finite and shaped, in the file's order, the outputs
"$RT" inspect "$D/yolov8n.rk3566.rknn" --tasks --json >"$T/y8.json" 2>/dev/null || bad "yolov8n inspect --tasks"
$PY - "$T/y8" "$T/y8.npy" "$T/y8.json" <<'EOF' && ok || bad "yolov8n run: dumps"
import json, sys, numpy as np
dump, inp, meta = sys.argv[1:4]
x = np.load(dump + '/x.1.npy')
assert x.shape == (1, 3, 640, 640) and np.isfinite(x).all(), x.shape
assert np.abs(x - np.load(inp) / 255).max() < 1e-6
tasks = json.load(open(dump + '/tasks.json'))
nodes = {n['name']: n for n in json.load(open(meta))['nodes']}
assert [t['task'] for t in tasks] == list(range(245)), [t['task'] for t in tasks]
for t in tasks:
    a = np.load(dump + '/' + t['file'])
    _, c, h, w = nodes[t['node']]['outputs'][0]['shape']
    assert a.shape == (1, c, t['rows'][1] - t['rows'][0], w) and np.isfinite(a).all(), (t, a.shape)
for name, shape in [('189', (1, 64, 80, 80)), ('190', (1, 80, 80, 80)), ('191', (1, 64, 40, 40)),
                    ('192', (1, 80, 40, 40)), ('193', (1, 64, 20, 20)), ('194', (1, 80, 20, 20))]:
    o = np.load(f"{dump}/{name}.npy")
    assert o.shape == shape and np.isfinite(o).all(), (name, o.shape)
EOF
# a copy whose MaxPool tasks write 0 in the four pad value words (rk3588's
# yolov5n-seg writes 0 where this file writes -128): padded cells never win, so
# the three pools give the same bytes; a pad of 0 taken as a value would not
# (the numpy line below counts the outputs it would change)
$PY - "$D/yolov8n.rk3566.rknn" "$T/y8.json" "$T/y8_pad0.rknn" <<'EOF' || bad "patch yolov8n pad words"
import json, struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
n = 0
for t in json.load(open(sys.argv[2]))['npu_tasks']['tasks']:
    if t['op'] != 'pool':
        continue
    for k in range(t['writes']):   # model-1 entries: 0, address, value
        o = t['file_offset'] + 8 * k
        if 0x6044 <= struct.unpack_from('<H', b, o + 2)[0] <= 0x6050:
            struct.pack_into('<I', b, o + 4, 0)
            n += 1
open(sys.argv[3], 'wb').write(b)
sys.exit(0 if n == 24 else f'{n} pad words patched, want 24')
EOF
expect 0 "" -- "$RT" run "$T/y8_pad0.rknn" --emulate -i "x.1=$T/y8.npy" --dump "$T/y8_pad0" --no-db
for n in input.44 input.42 660; do
    cmp -s "$T/y8/$n.npy" "$T/y8_pad0/$n.npy" && ok || bad "yolov8n MaxPool $n with pad words 0 differs"
done
$PY - "$T/y8" "$D/yolov8n.rk3566.rknn" <<'EOF' && ok || bad "yolov8n pad words 0: the check cannot fail"
import sys
sys.path.insert(0, 'tests/oracle')
import numpy as np, emu_lut
_, quant = emu_lut.flatbuffer(sys.argv[2])
x = np.load(sys.argv[1] + '/633.npy')[0].astype(np.float64)
s, z = quant['633']
C, H, W = x.shape
P = np.full((C, H + 4, W + 4), -z * s)      # the int8 byte 0 as a value
P[:, 2: 2 + H, 2: 2 + W] = x
as_value = np.max([P[:, ky: ky + H, kx: kx + W] for ky in range(5) for kx in range(5)], axis=0)
changed = int((as_value != np.load(sys.argv[1] + '/input.44.npy')[0]).sum())
print(f"yolov8n pad words 0: {changed} of the first pool's outputs would change were 0 a value")
sys.exit(0 if changed > 0 else 1)
EOF
# a copy whose task 109 (the first Resize) writes another DPU_RDMA SRC_DMA_CFG
# (0x1248): the run stops there, stopped_task.json holds the task's own register
# writes, compared with its blob's entries parsed here
$PY - "$D/yolov8n.rk3566.rknn" "$T/y8.json" "$T/y8_dma.rknn" <<'EOF' || bad "patch yolov8n task 109"
import json, struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
t = json.load(open(sys.argv[2]))['npu_tasks']['tasks'][109]
for k in range(t['writes']):   # model-1 entries: 0, address, value
    o = t['file_offset'] + 8 * k
    if struct.unpack_from('<H', b, o + 2)[0] == 0x5048:
        struct.pack_into('<I', b, o + 4, 0x1248)
        break
else:
    sys.exit('no 0x5048 write')
open(sys.argv[3], 'wb').write(b)
EOF
mkdir -p "$T/y8_stop"
expect 2 "y8_dma.rknn: --emulate: task 109 \(node Resize:679_Resize\): DPU-only task \(.*DMA 0x1248.*\): not a 2x nearest upsample as emulated \(109 of 245 tasks ran; their tensors and stopped_task.json are dumped\)" -- \
    "$RT" run "$T/y8_dma.rknn" --emulate -i "x.1=$T/y8.npy" --dump "$T/y8_stop" --no-db
$PY - "$T/y8_stop" "$T/y8.json" "$T/y8_dma.rknn" <<'EOF' && ok || bad "yolov8n stopped run: stopped_task.json"
import json, struct, sys
dump, meta, rknn = sys.argv[1:4]
tasks = json.load(open(dump + '/tasks.json'))
assert [t['task'] for t in tasks] == list(range(109)), [t['task'] for t in tasks]
d = json.load(open(dump + '/stopped_task.json'))
t = json.load(open(meta))['npu_tasks']['tasks'][109]
assert (d['task'], d['node_name'], d['lut']) == (109, 'Resize:679_Resize', t['lut_tensor']), d
b = open(rknn, 'rb').read()
got = {int(r['addr'], 16): r['value'] for r in d['registers']}
assert got[0x5048] == 0x1248
for k in range(t['writes']):
    zero, addr, val = struct.unpack_from('<HHI', b, t['file_offset'] + 8 * k)
    assert zero == 0 and got.get(addr) == val, (hex(addr), val, got.get(addr))
EOF
# conv layers against float64 of their own integer conv, one scale S fitted per
# layer (tests/oracle/emu_lut.py), swish through the LUT: the first five, weights
# in two input-channel blocks (10: 48 = 32 + 16; 84, 100: 80 = 2 x 32 + 16), IC1 > 1
# (12, 21, 40; 33 with 3 x 3 taps), output-channel tiles (46: 4 x 64 kernels; 49:
# 80 + 48 under each row tile); plain Conv (81, 89, 97: no activation)
"$RT" inspect "$D/yolov8n.rk3566.rknn" --json >"$T/y8n.json" 2>/dev/null || bad "yolov8n inspect --json"
for node in 2 3 4 6 7 10 12 21 33 40 46 49 84 100 81 89 97; do
    if out=$($PY tests/oracle/emu_lut.py "$D/yolov8n.rk3566.rknn" "$T/y8n.json" "$T/y8" $node 1.0); then
        ok; echo "yolov8n conv layer: $out"
    else
        bad "yolov8n conv layer: $out"
    fi
done
# a real photo (the model zoo's bus.jpg, tests/data/images/README.md): the objects
# found by the zoo's post-processing (tests/oracle/yolov8_post.py, our numpy) on the
# emulated outputs are the zoo's published ones for this model (examples/yolov8
# README "Expected Results": person 211 241 283 507 0.873, person 109 235 225 536
# 0.866, person 476 222 560 521 0.863, bus 99 136 550 456 0.859, person 80 326 116
# 513 0.311): the same classes, each box within 3 pixels and its score within 0.02
mkdir -p "$T/bus"
$PY tests/oracle/yolov8_post.py prep tests/data/images/bus.jpg "$T/bus.npy" || bad "bus.jpg"
expect 0 "" -- "$RT" run "$D/yolov8n.rk3566.rknn" --emulate -i "x.1=$T/bus.npy" --dump "$T/bus" --no-db
if out=$($PY tests/oracle/yolov8_post.py detect tests/data/images/bus.jpg "$T/bus"); then
    if $PY - "$out" <<'EOF'; then ok; echo "yolov8n on bus.jpg (class x1 y1 x2 y2 score):"; echo "$out"; else bad "yolov8n detections on bus.jpg: $out"; fi
import sys
got = [list(map(float, l.split())) for l in sys.argv[1].splitlines()]
want = [(0, 211, 241, 283, 507, 0.873), (0, 109, 235, 225, 536, 0.866), (0, 476, 222, 560, 521, 0.863),
        (5, 99, 136, 550, 456, 0.859), (0, 80, 326, 116, 513, 0.311)]
assert len(got) == len(want), got
for w in want:
    assert any(g[0] == w[0] and max(abs(g[k] - w[k]) for k in range(1, 5)) <= 3 and
               abs(g[5] - w[5]) <= 0.02 for g in got), (w, got)
EOF
else
    bad "yolov8n post-processing: $out"
fi
# the three ConvSigmoid heads (class scores) on the photo: most scores sit at the
# LUT's floor (sigmoid at the table's start, the underflow slope 0), the others
# within rounding of float64 sigmoid
for node in 85 93 101; do
    if out=$($PY tests/oracle/emu_lut.py "$D/yolov8n.rk3566.rknn" "$T/y8n.json" "$T/bus" $node 1.0); then
        ok; echo "yolov8n ConvSigmoid on bus.jpg: $out"
    else
        bad "yolov8n ConvSigmoid on bus.jpg: $out"
    fi
done
# the weights' block layout, without the source model: each output channel's int8
# weights are quantized over their own range (min -> -128, max -> 127,
# "Weights"), so every kernel holds both ends exactly when its bytes are the ones
# read as its own. Every conv weight of the file, read as the oracle reads it
# (blocks interleaved per OC1), passes but one channel of node 68; read as whole
# blocks one after the other, the 7 two-block weights do not (22 of 32, 37 to 53 of
# 80 kernels pass)
$PY - "$D/yolov8n.rk3566.rknn" "$T/y8n.json" <<'EOF' && ok || bad "yolov8n weight blocks: per-kernel range"
import json, sys
sys.path.insert(0, 'tests/oracle')
import numpy as np, emu_lut
raw = open(sys.argv[1], 'rb').read()
def concatenated(w):   # the other reading: block after block, each [OC1][IC1][kh][kw][OC2][IC2]
    ns = w['native_shape']; parts, at = [], w['data_offset']
    for k in range(0, len(ns), 6):
        ob, ib, kh, kw, ocp, icp = ns[k: k + 6]
        n = ob * ib * kh * kw * ocp * icp
        p = np.frombuffer(raw, np.int8, n, at).reshape(ob, ib, kh, kw, ocp, icp)
        parts.append(p.transpose(2, 3, 0, 4, 1, 5).reshape(kh, kw, ob * ocp, ib * icp))
        at += n
    return np.concatenate(parts, axis=3)
full = lambda W, oc, ic: sum(int(W[:, :, c, :ic].min() == -128 and W[:, :, c, :ic].max() == 127)
                             for c in range(oc))
bad, n2 = [], 0
for nd in json.load(open(sys.argv[2]))['nodes']:
    if not nd['op'].startswith('Conv'):
        continue
    w = nd['inputs'][1]
    oc, ic = w['shape'][:2]
    got = full(emu_lut.weights(raw, w), oc, ic)
    if got < oc - (nd['id'] == 68):
        bad.append(f"node {nd['id']}: {got} of {oc} kernels span -128..127")
    if len(w['native_shape']) > 6:
        n2 += 1
        if full(concatenated(w), oc, ic) > oc - 10:
            bad.append(f"node {nd['id']}: the concatenated reading passes too")
assert n2 == 7 and not bad, (n2, bad)
EOF
# the Split (each output its channel slice of the input), the Adds and the Concat,
# each in float64 from its emulated inputs, requantized to the output's own scale
# (the file's quantization, read by the oracle's FlatBuffer walk): within half a step
$PY - "$D/yolov8n.rk3566.rknn" "$T/y8" <<'EOF' && ok || bad "yolov8n Split, Add, Concat, MaxPool, Resize"
import sys
sys.path.insert(0, 'tests/oracle')
import numpy as np, emu_lut
_, quant = emu_lut.flatbuffer(sys.argv[1])
L = lambda n: np.load(f"{sys.argv[2]}/{n}.npy").astype(np.float64)
a = L('257')
for name, want in [('260', a[:, :16]), ('input.10', a[:, 16:]), ('291', L('input.10') + L('290')),
                   ('519', L('489') + L('518')),   # DATA_FORMAT 0x20: negative-product shift 2
                   ('input0.8', np.concatenate([L('260'), L('input.10'), L('291')], 1))]:
    o = L(name)
    s, z = quant[name]
    assert o.shape == want.shape and np.isfinite(o).all(), (name, o.shape)
    d = np.abs(o - np.clip(want, s * (-128 - z), s * (127 - z))).max() / s
    assert d <= 0.51, (name, d)
# the SPPF's three MaxPools (5 x 5, stride 1, pad 2; two column tiles each):
# numpy's window maximum of the emulated input, exactly (no requantization)
for src, dst in [('633', 'input.44'), ('input.44', 'input.42'), ('input.42', '660')]:
    x = L(src)[0]
    C, H, W = x.shape
    P = np.full((C, H + 4, W + 4), -np.inf)
    P[:, 2: 2 + H, 2: 2 + W] = x
    want = np.max([P[:, ky: ky + H, kx: kx + W] for ky in range(5) for kx in range(5)], axis=0)
    assert np.array_equal(L(dst)[0], want), (dst, np.abs(L(dst)[0] - want).max())
# the two nearest 2x Resizes (one task per 8-channel surface): each input value
# repeated 2 x 2, exactly
for src, dst in [('675', '679'), ('748', '752')]:
    assert np.array_equal(L(dst), L(src).repeat(2, 2).repeat(2, 3)), dst
EOF
# rk3588 toolkit 1.3.4, its compressed weights (CNA_DCOMP_CTRL 1): copies with
# one byte of conv2.weight's stream changed stop at the first conv task naming
# the block and what is wrong, never misread: block 0's header kind, a bit
# after block 1's stream, a padding byte of block 0
W2=$("$RT" inspect "$D/multiple_input_demo.rk3588.tk134.rknn" --json | $PY -c '
import json, sys
for n in json.load(sys.stdin)["nodes"]:
    for i in n.get("inputs", []):
        if i.get("name") == "conv2.weight": print(i["data_offset"])')
dcomp_copy() {   # offset within conv2.weight, new byte, copy
    $PY -c 'import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[int(sys.argv[3])] = int(sys.argv[4], 0)
open(sys.argv[2], "wb").write(b)' "$D/multiple_input_demo.rk3588.tk134.rknn" "$3" "$((W2 + $1))" "$2"
}
DC="task 0 \(node Conv:Conv_1\): CNA weight decompression \(DCOMP_AMOUNT0..15 5 2 2 2 5 2 2 2 5 3 3 3 5 3 3 3\), weight conv2.weight \(1280 bytes\)"
dcomp_copy 0 0x22 "$T/dc_kind.rknn"
expect 2 "$DC: block 0: header bytes 0x22 .. 0x00 not seen \(0x11 or 0x00, then a 16-bit base, then 0\): not emulated" -- \
    "$RT" run "$T/dc_kind.rknn" --emulate "${IN[@]}" --no-db
dcomp_copy $((128 + 16 + 31)) 0x80 "$T/dc_tail.rknn"
expect 2 "$DC: block 1: nonzero bits after the stream's end \(bit 255\): not emulated" -- \
    "$RT" run "$T/dc_tail.rknn" --emulate "${IN[@]}" --no-db
dcomp_copy 127 1 "$T/dc_pad.rknn"
expect 2 "$DC: block 0: padding byte 127 is not zero: not emulated" -- \
    "$RT" run "$T/dc_pad.rknn" --emulate "${IN[@]}" --no-db
# a model-1 copy without the nodes' task lists (node slot 6 dropped from every
# node vtable): nothing binds its tasks, the run is refused
$PY - "$D/multiple_input_demo.rk3566.tk134.rknn" "$T/unbound.rknn" <<'EOF' || bad "unbound copy"
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
u32 = lambda o: struct.unpack_from('<I', b, 64 + o)[0]
def vt(t):
    return t - struct.unpack_from('<i', b, 64 + t)[0]
def field(t, k):
    v = vt(t); n = (struct.unpack_from('<H', b, 64 + v)[0] - 4) // 2
    f = struct.unpack_from('<H', b, 64 + v + 4 + 2 * k)[0] if k < n else 0
    return t + f if f else None
def tables(t, k):
    o = field(t, k); o += u32(o)
    return [o + 4 + 4 * i + u32(o + 4 + 4 * i) for i in range(u32(o))]
g = tables(u32(0), 2)[0]
vts = {vt(nd) for nd in tables(g, 1)}
for v in vts:   # FlatBuffers share vtables between tables
    if (struct.unpack_from('<H', b, 64 + v)[0] - 4) // 2 > 6:
        struct.pack_into('<H', b, 64 + v + 4 + 12, 0)
assert all(field(nd, 6) is None for nd in tables(g, 1))
open(sys.argv[2], 'wb').write(b)
EOF
expect 2 "unbound.rknn: --emulate: not emulated: one regcmd blob per task: tasks without graph node indices cannot be bound to tensors" -- \
    "$RT" run "$T/unbound.rknn" --emulate --no-db
grep -q "4 NPU tasks computed, 0 one-pixel in-place copies skipped, 37 OutputOperator tasks" \
    <("$RT" run "$D/multiple_input_demo.rk3562.rknn" --emulate "${IN[@]}" --no-db 2>&1) \
    && ok || bad "rk3562: task counts"
# rk3576: the whole image once per conv (twice), then two row tiles of 64 (two cores);
# by default only the first two, its one-core tiling (graph slot 10 [0,2,4])
grep -q "8 NPU tasks computed, 0 one-pixel in-place copies skipped, 0 OutputOperator tasks" \
    <(RKNN_TRACE_EMU_TILINGS=all "$RT" run "$D/multiple_input_demo.rk3576.rknn" --emulate "${IN[@]}" \
      --no-db 2>&1) && ok || bad "rk3576: task counts"
grep -q "the file's one-core tiling, 2 of its 8 tasks" \
    <("$RT" run "$D/multiple_input_demo.rk3576.rknn" --emulate "${IN[@]}" --no-db 2>&1) \
    && ok || bad "rk3576: one-core tiling"
# rv1126b: Conv_1 over the 8-bit pixels (CNA mode code 6), then the ConvAdd
grep -q "2 NPU tasks computed, 0 one-pixel in-place copies skipped, 0 OutputOperator tasks" \
    <("$RT" run "$D/multiple_input_demo.rv1126b.rknn" --emulate "${IN[@]}" --no-db 2>&1) \
    && ok || bad "rv1126b: task counts"
# the pixel conv takes only the sample's words: another pixel offset (0x1084),
# another channel word (0x1028) or a non-zero byte in the weight buffer's
# unread second half stop it at its task
"$RT" inspect "$D/multiple_input_demo.rv1126b.rknn" --tasks --json >"$T/f3.json" 2>/dev/null
# patch_task FILE TASKS_JSON TASK ADDR VALUE OUT: a copy of FILE with the
# value of one register write of task TASK changed (inspect --tasks --json
# gives each task's writes and file offset)
patch_task() {
    $PY - "$@" <<'EOF'
import json, struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
t = json.load(open(sys.argv[2]))['npu_tasks']['tasks'][int(sys.argv[3])]
addr, val = int(sys.argv[4], 0), int(sys.argv[5], 0)
for k in range(t['writes']):
    o = t['file_offset'] + 8 * k
    e, = struct.unpack_from('<Q', b, o)
    if e & 0xffff == addr:
        struct.pack_into('<Q', b, o, (e & ~(0xffffffff << 16)) | (val << 16))
        break
else:
    sys.exit('no write of %#x' % addr)
open(sys.argv[6], 'wb').write(b)
EOF
}
patch_f3() { patch_task "$D/multiple_input_demo.rv1126b.rknn" "$T/f3.json" "$@"; }
patch_f3 0 0x1084 0x00808081 "$T/f3_off.rknn" || bad "patch rv1126b 0x1084"
expect 2 "task 0 \(node Conv:Conv_1\): register 0x1084 = 0x00808081: a value the sample files do not write" -- \
    "$RT" run "$T/f3_off.rknn" --emulate "${IN[@]}" --no-db
patch_f3 0 0x1028 0x0480000f "$T/f3_ch.rknn" || bad "patch rv1126b 0x1028"
expect 2 "task 0 \(node Conv:Conv_1\): pixel input \(CNA mode code 6\) with CNA 0x1028 / 0x1084 words the sample file does not write" -- \
    "$RT" run "$T/f3_ch.rknn" --emulate "${IN[@]}" --no-db
$PY - "$D/multiple_input_demo.rv1126b.rknn" "$T/rv1126b.json" "$T/f3_w.rknn" <<'EOF' || bad "patch rv1126b weights"
import json, sys
b = bytearray(open(sys.argv[1], 'rb').read())
w = [i for n in json.load(open(sys.argv[2]))['nodes'] for i in n['inputs'] if i['name'] == 'conv2.weight'][0]
assert w['data_bytes'] == 1536 and not any(b[w['data_offset'] + 768: w['data_offset'] + 1536])
b[w['data_offset'] + 1000] = 1
open(sys.argv[3], 'wb').write(b)
EOF
expect 2 "task 0 \(node Conv:Conv_1\): weight tensor conv2.weight: byte 1000 beyond the 768 bytes the pixel conv's rows hold is not zero" -- \
    "$RT" run "$T/f3_w.rknn" --emulate "${IN[@]}" --no-db
expect 1 "is not one" -- "$RT" run "$D/multiple_input_demo.onnx" --emulate --no-db
expect 2 "$T/nosuch.rknn: No such file or directory" -- "$RT" run "$T/nosuch.rknn" --emulate --no-db
expect 2 "input.1 needs 16384 float32 values" -- \
    "$RT" run "$D/multiple_input_demo.rk3588.rknn" --emulate -i "input.1=$T/b.npy" --no-db
expect 2 "-i nope=.*: the file has no input of that name" -- \
    "$RT" run "$D/multiple_input_demo.rk3588.rknn" --emulate -i "nope=$T/a.npy" --no-db
expect 1 "need --emulate" -- "$RT" run "$D/multiple_input_demo.rk3588.rknn" -i "input=$T/b.npy" --no-db
# --emulate goes through run's option table: its suggestions, and a refusal
# that names the first option it does not take, as typed
expect 1 "run: unknown option '--seeed'; did you mean '--seed'\?" -- \
    "$RT" run "$D/multiple_input_demo.rk3588.rknn" --emulate --seeed 3 --no-db
expect 1 "run: -n does not apply to a vendor .rknn on a PC" -- \
    "$RT" run "$D/multiple_input_demo.rk3588.rknn" --no-db --emulate -n 3 -q fp16
"$RT" run --help | grep -qE "^ +--emulate +also compute the outputs" && ok || bad "run --help: no --emulate"
# a copy whose first task writes 1 into DPU 0x40c4 (unnamed, 0 in every file seen)
"$RT" inspect "$D/multiple_input_demo.rk3588.rknn" --tasks --json >"$T/tasks.json" 2>/dev/null
$PY - "$D/multiple_input_demo.rk3588.rknn" "$T/tasks.json" "$T/patched.rknn" <<'EOF'
import json, struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
t = json.load(open(sys.argv[2]))['npu_tasks']['tasks'][1]
for k in range(t['writes']):
    o = t['file_offset'] + 8 * k
    e, = struct.unpack_from('<Q', b, o)
    if e & 0xffff == 0x40c4:
        struct.pack_into('<Q', b, o, (e & ~(0xffffffff << 16)) | (1 << 16))
        break
else:
    sys.exit('no 0x40c4 write')
open(sys.argv[3], 'wb').write(b)
EOF
expect 2 "task 1 \(node Conv:Conv_0\): register 0x40c4 = 0x00000001 has no known meaning" -- \
    "$RT" run "$T/patched.rknn" --emulate "${IN[@]}" --no-db

# a later tile that writes no CORE register (toolkit 2.3.0's row tiles do so) runs
# with its register group's: multiple_input_demo.rk3588's task 5 (Conv_1's second
# tile, group 1) with its five CORE writes turned into repeats of its first write;
# task 3 left the same CORE values in the group, so every output is unchanged
$PY - "$D/multiple_input_demo.rk3588.rknn" "$T/tasks.json" "$T/nocore.rknn" <<'EOF' || bad "patch task 5"
import json, struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
t = json.load(open(sys.argv[2]))['npu_tasks']['tasks'][5]
first, = struct.unpack_from('<Q', b, t['file_offset'])
n = 0
for k in range(t['writes']):
    o = t['file_offset'] + 8 * k
    e, = struct.unpack_from('<Q', b, o)
    if 0x3000 <= e & 0xffff < 0x4000:
        struct.pack_into('<Q', b, o, first)
        n += 1
assert n == 5, n
open(sys.argv[3], 'wb').write(b)
EOF
rm -rf "$T/nc0" "$T/nc1"
"$RT" run "$D/multiple_input_demo.rk3588.rknn" --emulate "${IN[@]}" --no-db --dump "$T/nc0" >/dev/null 2>&1
"$RT" run "$T/nocore.rknn" --emulate "${IN[@]}" --no-db --dump "$T/nc1" >"$T/nc.out" 2>&1 &&
    cmp -s "$T/nc0/7.npy" "$T/nc1/7.npy" && cmp -s "$T/nc0/8.npy" "$T/nc1/8.npy" && ok ||
    bad "a tile without CORE writes: $(tail -2 "$T/nc.out")"
"$RT" inspect "$T/nocore.rknn" --tasks --json 2>/dev/null | $PY -c '
import json, sys
t = json.load(sys.stdin)["npu_tasks"]["tasks"][5]
assert t["op"] == "conv" and t["graph_check"] == "agrees" and "earlier tasks of its register group" in t["notes"], t["op"]
' && ok || bad "inspect: the tile without CORE writes is not a conv from its group's registers"

# the DPU-only Adds, Concats and Splits of yolov8n.rk3566 (19 Adds and Concats, 8 Splits)
# against numpy on the dequantized tensors the whole run above dumped
# (tests/samples/emu_dpu_check.py: within one output step)
"$RT" inspect "$D/yolov8n.rk3566.rknn" --json >"$T/y8i.json" 2>/dev/null
$PY tests/samples/emu_dpu_check.py "$T/y8" "$T/y8i.json" >"$T/dpu.out" 2>&1 &&
    grep -q "^27 passed, 0 failed" "$T/dpu.out" && ok || bad "yolov8n Adds/Concats/Splits: $(tail -3 "$T/dpu.out")"

# rk3562 (a table layout): a word the sample files do not write stops the run at
# its task, in a register left undecoded (0x40b8: 0x4000 in every conv task) and
# in the undecoded bits of a decoded one (0x40b0: bit 16 set on the ConvAdd only)
"$RT" inspect "$D/multiple_input_demo.rk3562.rknn" --tasks --json >"$T/t4.json" 2>/dev/null
patch_t4() { patch_task "$D/multiple_input_demo.rk3562.rknn" "$T/t4.json" "$@"; }
patch_t4 2 0x40b8 0x4001 "$T/t4_word.rknn" || bad "patch rk3562 0x40b8"
expect 2 "task 2 \(node Conv:Conv_0\): register 0x40b8 = 0x00004001: a value the sample files do not write \(not decoded\)" -- \
    "$RT" run "$T/t4_word.rknn" --emulate "${IN[@]}" --no-db
patch_t4 1 0x40b0 0x249eb "$T/t4_part.rknn" || bad "patch rk3562 0x40b0"
expect 2 "task 1 \(node Conv:Conv_1\): register 0x40b0 = 0x000249eb: a value the sample files do not write" -- \
    "$RT" run "$T/t4_part.rknn" --emulate "${IN[@]}" --no-db

# rk3576: the float16 conv words (its converter bypassed, 0x1048 = 0xe38e9; BS word
# 0x4050 with bit 31 clear) are taken in a float16 task only: in an int8 one they stop it
"$RT" inspect "$D/multiple_input_demo.rk3576.rknn" --tasks --json >"$T/f2.json" 2>/dev/null
patch_f2() { patch_task "$D/multiple_input_demo.rk3576.rknn" "$T/f2.json" "$@"; }
patch_f2 0 0x1048 0xe38e9 "$T/f2_cvt.rknn" || bad "patch rk3576 0x1048"
expect 2 "task 0 \(node Conv:Conv_1\): register 0x1048 = 0x000e38e9: a value the sample files do not write" -- \
    "$RT" run "$T/f2_cvt.rknn" --emulate "${IN[@]}" --no-db
patch_f2 0 0x4050 0x21011 "$T/f2_bs.rknn" || bad "patch rk3576 0x4050"
expect 2 "task 0 \(node Conv:Conv_1\): register 0x4050 = 0x00021011: a value the sample files do not write" -- \
    "$RT" run "$T/f2_bs.rknn" --emulate "${IN[@]}" --no-db

# rk3576's activation stage (runtime/emu/emu_act.c), the words this file has: the BS
# shift is the word of the buffer the file patches in at 0x5024 (7_BScfgTensor for
# Conv_1: 0x0e0e, 14 for a product of either sign). At 0x0d0d every value of Conv_1
# doubles before OUT_CVT: tensor 7 must be the unpatched run's 2 (q - zp) + zp, within
# one step, wherever that stays inside int8 (numpy); a word with other bits set stops
$PY - "$D/multiple_input_demo.rk3576.rknn" "$T" <<'EOF' || bad "patch rk3576 7_BScfgTensor"
import struct, sys
sys.path.insert(0, 'tests/oracle')
from rknn_fb import FB
path, tmp = sys.argv[1:3]
F = FB(path)
t = [t for t in F.tables(F.graph(), 0) if F.string(t, 5) == '7_BScfgTensor'][0]
b = F.tables(F.u32(0), 20)[struct.unpack_from('<i', F.fb, F.slot(t, 18))[0]]
o = F.slot(b, 0)
o += F.u32(o)
at = 64 + o + 4
assert F.file[at:at + 4] == b'\x0e\x0e\0\0', F.file[at:at + 4]
for name, word in (('f2_shift', 0x0d0d), ('f2_shiftbad', 0x4e0e)):
    v = bytearray(F.file)
    struct.pack_into('<I', v, at, word)
    open(f'{tmp}/{name}.rknn', 'wb').write(v)
EOF
rm -rf "$T/f2s"
"$RT" run "$T/f2_shift.rknn" --emulate "${IN[@]}" --no-db --dump "$T/f2s" >/dev/null 2>&1
"$RT" inspect "$D/multiple_input_demo.rk3576.rknn" --json >"$T/f2i.json" 2>/dev/null
$PY - "$T/rk3576/7.npy" "$T/f2s/7.npy" "$T/f2i.json" <<'EOF' && ok || bad "rk3576: the BS shift word of 7_BScfgTensor"
import json, sys
import numpy as np
a, b = np.load(sys.argv[1]).astype(np.float64), np.load(sys.argv[2]).astype(np.float64)
q = [o for n in json.load(open(sys.argv[3]))['nodes'] for o in n['outputs'] if o['name'] == '7'][0]
s, zp = q['scale'], q['zero_point']
want = 2 * np.round(a / s)               # 2 (q - zp), in steps
inside = (want + zp >= -128) & (want + zp <= 127)
err = np.abs(np.round(b / s) - want)[inside].max()
assert inside.mean() > 0.5 and err <= 1, (inside.mean(), err)
EOF
expect 2 "task 0 \(node Conv:Conv_1\): BS configuration buffer 7_BScfgTensor \(patched at 0x5024\): not a shift word" -- \
    "$RT" run "$T/f2_shiftbad.rknn" --emulate "${IN[@]}" --no-db
# BN in use where its words are not the forms taken: BN_CFG 0x20 (BN into the LUT)
# without the BN reader, a BN reader (NRDMA_CFG 0x1a) under BN_CFG 0x903
patch_f2 0 0x4060 0x20 "$T/f2_bn.rknn" || bad "patch rk3576 0x4060"
expect 2 "task 0 \(node Conv:Conv_1\): int8 BN_CFG 0x20, NRDMA_CFG 0x0, EW_CFG 0x10041c1: only a BN PReLU" -- \
    "$RT" run "$T/f2_bn.rknn" --emulate "${IN[@]}" --no-db
patch_f2 0 0x5028 0x1a "$T/f2_nrdma.rknn" || bad "patch rk3576 0x5028"
expect 2 "task 0 \(node Conv:Conv_1\): BN_CFG 0x903 with NRDMA_CFG 0x1a, EW_CFG 0x10041c1, LUT word 0x0000 = 0x0: a BN reader or the LUT without BN in use is not emulated" -- \
    "$RT" run "$T/f2_nrdma.rknn" --emulate "${IN[@]}" --no-db

# --- info says what is executed per chip -----------------------------------------
"$RT" info >"$T/info" 2>&1
grep -q "rk3588: .*executed by run --emulate" "$T/info" && ok || bad "info: rk3588 line"
grep -q "rk3566 rk3568: .*yolov8n: all 245 tasks, its outputs" "$T/info" && ok || bad "info: rk3566 line"
grep -q "rk3562: tasks decoded (layout t4.*executed by run --emulate" "$T/info" && ok || bad "info: rk3562 line"
grep -q "rk3576: tasks decoded (layout f2.*executed by run --emulate" "$T/info" && ok || bad "info: rk3576 line"
grep -q "rv1126b: tasks decoded (layout f3.*executed by run --emulate" "$T/info" && ok || bad "info: rv1126b line"
grep -q "rv1103 rv1106: .*executed by run --emulate over one flat NPU address space.*Transpose (two passes), row Concats and Reshapes (retinaface: all 155 tasks, its outputs); other DPU-only forms stop it" "$T/info" && ok || bad "info: rv1103 line"

# --- a ReLU in the BN stage (ConvRelu on rk3588: DPU_BN_CFG 0x12, as the SDK's
# pp_human_segv2 writes it): the Conv_0 tasks of multiple_input_demo.rk3588 patched from
# BN bypass (0x53) to 0x12; tensor 7 must be the unpatched one clamped below at the
# value OUT_CVT gives an accumulator of 0 (its offset, saturated, dequantized: numpy)
$PY - "$RT" "$D/multiple_input_demo.rk3588.rknn" "$T/relu.rknn" "$T/relu.json" <<'EOF' || bad "relu: patching"
import json, struct, subprocess, sys
rt, src, dst, info = sys.argv[1:5]
d = json.loads(subprocess.check_output([rt, "inspect", src, "--tasks", "--json"]))
b = bytearray(open(src, "rb").read())
node = next(n["id"] for n in d["nodes"] if n["outputs"] and n["outputs"][0]["name"] == "7")
done, offs = 0, set()
for t in d["npu_tasks"]["tasks"]:
    if t["node"] != node or t["op"] != "conv":
        continue
    offs.add(t["out_cvt_offset"])
    for k in range(t["writes"]):
        o = t["file_offset"] + 8 * k
        e, = struct.unpack_from("<Q", b, o)
        if e & 0xFFFF == 0x4060:
            struct.pack_into("<Q", b, o, (e & ~(0xFFFFFFFF << 16)) | (0x12 << 16))
            done += 1
assert done >= 3 and len(offs) == 1, (done, offs)
open(dst, "wb").write(b)
sys.path.insert(0, "tests/oracle")
from rknn_fb import FB
f = FB(src)
q = {f.string(t, 5): (f.first(t, 10, "<f"), f.first(t, 11, "<i")) for t in f.tables(f.graph(), 0)}
json.dump({"offset": offs.pop(), "scale": q["7"][0], "zp": q["7"][1], "tasks": done}, open(info, "w"))
EOF
expect 0 "" -- "$RT" run "$T/relu.rknn" --emulate "${IN[@]}" --dump "$T/relu" --no-db
$PY - "$T/rk3588/7.npy" "$T/relu/7.npy" "$T/relu.json" <<'EOF' && ok || bad "relu: tensor 7 is not the clamped one"
import json, sys, numpy as np
a, r, i = np.load(sys.argv[1]), np.load(sys.argv[2]), json.load(open(sys.argv[3]))
floor = (min(127, max(-128, i["offset"])) - i["zp"]) * i["scale"]
want = np.maximum(a, np.float32(floor))
assert (r < a).sum() == 0 and (r > a).sum() > 100, "no value clamped"
assert np.array_equal(r, want), np.abs(r - want).max()
print("relu: %d of %d values clamped at %g" % ((r > a).sum(), r.size, floor))
EOF

# --- ReLUX in the BN stage (a ConvClip's ReLU6 on rk3588: DPU_BN_CFG 0x92, the clamp's
# upper bound in DPU_BN_RELUX_CMP_VALUE, in the BS stage's units as mobilenet_v2.rk3588
# writes it, docs/rknn-format.md): the Conv_0 tasks patched to 0x92 with a bound whose
# OUT_CVT image is 40 steps above the output's offset; tensor 7 must be the unpatched
# one clamped to [OUT_CVT(0), OUT_CVT(bound)] (numpy)
$PY - "$RT" "$D/multiple_input_demo.rk3588.rknn" "$T/relux.rknn" "$T/relux.json" <<'EOF' || bad "relux: patching"
import json, struct, subprocess, sys
rt, src, dst, info = sys.argv[1:5]
d = json.loads(subprocess.check_output([rt, "inspect", src, "--tasks", "--json"]))
b = bytearray(open(src, "rb").read())
node = next(n["id"] for n in d["nodes"] if n["outputs"] and n["outputs"][0]["name"] == "7")
cvt, done = set(), {0x4060: 0, 0x406c: 0}
for t in d["npu_tasks"]["tasks"]:
    if t["node"] == node and t["op"] == "conv":
        cvt.add((t["out_cvt_offset"], t["out_cvt_scale"], t["out_cvt_shift"]))
assert len(cvt) == 1, cvt
off, sc, sh = cvt.pop()
cmp = (40 << sh) // sc
for t in d["npu_tasks"]["tasks"]:
    if t["node"] != node or t["op"] != "conv":
        continue
    for k in range(t["writes"]):
        o = t["file_offset"] + 8 * k
        e, = struct.unpack_from("<Q", b, o)
        v = {0x4060: 0x92, 0x406c: cmp}.get(e & 0xFFFF)
        if v is not None:
            struct.pack_into("<Q", b, o, (e & ~(0xFFFFFFFF << 16)) | (v << 16))
            done[e & 0xFFFF] += 1
assert done[0x4060] >= 3 and done[0x406c] == done[0x4060], done
open(dst, "wb").write(b)
sys.path.insert(0, "tests/oracle")
from rknn_fb import FB
f = FB(src)
q = {f.string(t, 5): (f.first(t, 10, "<f"), f.first(t, 11, "<i")) for t in f.tables(f.graph(), 0)}
hi = min(127, max(-128, ((cmp * sc + (1 << (sh - 1))) >> sh) + off))
json.dump({"lo": min(127, max(-128, off)), "hi": hi, "scale": q["7"][0], "zp": q["7"][1]},
          open(info, "w"))
EOF
expect 0 "" -- "$RT" run "$T/relux.rknn" --emulate "${IN[@]}" --dump "$T/relux" --no-db
$PY - "$T/rk3588/7.npy" "$T/relux/7.npy" "$T/relux.json" <<'EOF' && ok || bad "relux: tensor 7 is not the clamped one"
import json, sys, numpy as np
a, r, i = np.load(sys.argv[1]), np.load(sys.argv[2]), json.load(open(sys.argv[3]))
lo, hi = (np.float32((i[k] - i["zp"]) * i["scale"]) for k in ("lo", "hi"))
want = np.clip(a, lo, hi)
assert (a > hi).sum() > 100 and (a < lo).sum() > 100, "no value clamped"
assert np.array_equal(r, want), np.abs(r - want).max()
print("relux: %d below, %d above of %d values clamped to [%g, %g]" %
      ((a < lo).sum(), (a > hi).sum(), r.size, lo, hi))
EOF

# --- a weight offset from DPU_BS_OW_OP (rk3588: yolov10n's ReduceSum convs write
# BS_OW_CFG 0x124, OW_OP 0x80, BS_CFG 0x20150, BRDMA data use 1; docs/rknn-format.md):
# Conv_1's task patched to that form with OW_OP -3; tensor 7 must then be, integer for
# integer, numpy's conv of the dumped input with the file's weights plus -3 each, each
# channel's bias word alone (its 8 channels: one group, the words unmoved) and no
# multiplier, then OUT_CVT (18923 / 2^25 + 16); the same form with OW_OP beside the
# per-channel offsets (BS_OW_CFG 0x125) stops
$PY - "$RT" "$D/multiple_input_demo.rk3588.rknn" "$T/owop.rknn" "$T/owop_bad.rknn" <<'EOF' || bad "owop: patching"
import json, struct, subprocess, sys
rt, src, dst, dst_bad = sys.argv[1:5]
d = json.loads(subprocess.check_output([rt, "inspect", src, "--tasks", "--json"]))
b = bytearray(open(src, "rb").read())
t = d["npu_tasks"]["tasks"][0]
assert t["node"] == next(n["id"] for n in d["nodes"] if n["outputs"] and n["outputs"][0]["name"] == "7")
want = {0x4050: 0x124, 0x4054: 0xfffd, 0x4040: 0x20150, 0x4048: 0, 0x4010: 0, 0x501c: 2}
done = {}
for k in range(t["writes"]):
    o = t["file_offset"] + 8 * k
    e, = struct.unpack_from("<Q", b, o)
    if (e & 0xFFFF) in want:
        struct.pack_into("<Q", b, o, (e & ~(0xFFFFFFFF << 16)) | (want[e & 0xFFFF] << 16))
        done[e & 0xFFFF] = done.get(e & 0xFFFF, 0) + 1
assert set(done) == set(want), done
open(dst, "wb").write(b)
for k in range(t["writes"]):
    o = t["file_offset"] + 8 * k
    e, = struct.unpack_from("<Q", b, o)
    if e & 0xFFFF == 0x4050:
        struct.pack_into("<Q", b, o, (e & ~(0xFFFFFFFF << 16)) | (0x125 << 16))
open(dst_bad, "wb").write(b)
EOF
expect 0 "" -- "$RT" run "$T/owop.rknn" --emulate "${IN[@]}" --dump "$T/owop" --no-db
"$RT" inspect "$D/multiple_input_demo.rk3588.rknn" --json >"$T/mid.json" 2>/dev/null
$PY - "$D/multiple_input_demo.rk3588.rknn" "$T/mid.json" "$T/owop" <<'EOF' && ok || bad "owop: tensor 7 is not the conv with OW_OP"
import json, sys, numpy as np
sys.path.insert(0, "tests/samples")
from rk3588_layers import dense_weights, npy
raw, info, dump = open(sys.argv[1], "rb").read(), json.load(open(sys.argv[2])), sys.argv[3]
node = next(n for n in info["nodes"] if n["outputs"] and n["outputs"][0]["name"] == "7")
xin, w, bias = node["inputs"][:3]
out = node["outputs"][0]
x = np.load(npy(dump, xin["name"])).astype(np.float64)[0]
q = np.round(x / xin["scale"]) + xin["zero_point"]                # the int8 input
C, H, W = q.shape
wq = dense_weights(raw, w, 8, C, 3, 3) - 3                        # every weight + OW_OP
b32 = np.frombuffer(raw, "<i4", 8, bias["data_offset"]).astype(np.int64)
P = np.full((C, H + 2, W + 2), xin["zero_point"], np.int64)      # the pad value: zp_in
P[:, 1:-1, 1:-1] = q
acc = np.zeros((8, H, W), np.int64) + b32[:, None, None]
for ky in range(3):
    for kx in range(3):
        acc += np.einsum("oc,chw->ohw", wq[:, :, ky, kx], P[:, ky:ky + H, kx:kx + W])
want = np.clip(((acc * 18923 + (1 << 24)) >> 25) + 16, -128, 127)
got = np.round(np.load(npy(dump, "7"))[0].astype(np.float64) / out["scale"]) + out["zero_point"]
assert np.array_equal(got, want), (np.abs(got - want).max(), (got != want).sum())
print("owop: %d values of 7 equal numpy's (%d distinct)" % (got.size, len(np.unique(got))))
EOF
expect 2 "DPU_BS_OW_OP 0xfffd beside per-channel weight offsets" -- "$RT" run "$T/owop_bad.rknn" --emulate "${IN[@]}" --no-db

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
