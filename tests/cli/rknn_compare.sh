#!/usr/bin/env bash
# `rknn-trace compare` of a vendor .rknn's predicted run with the run of its
# source network on the same target: our lowering against Rockchip's compiler.
# Oracles: the file's own node list (`inspect --json`), the source ONNX read by
# a protobuf wire decoder written here, our stored rows read by the sqlite3
# CLI, and the differences worked out by hand from those (listed below).
#
# multiple_input_demo (7 files: rk3562, rk3566 x2, rk3576, rk3588 x2, rv1126b): the
# file's node list is the spec. Add_2(6, 7) is fused by the compiler into the
# producer of its FIRST operand (Conv_0), which it runs after Conv_1, on every
# chip and toolkit; the OutputOperator runs on the NPU on rk3562 and rk3566
# (both toolkits), on the CPU on the others. Our lowering of the ONNX must make
# both choices: its level-4 table (`run --npu-table`) lists the file's nodes
# one for one (OpType, Target, source node), and `compare` pairs 2 of 2 equal.
# On rk3562 and rk3566 (toolkit 1.6.2) our DDR cycles are the file's, layer
# for layer (the output's channel padding and rk3562's staged output, which
# the file's native shapes give: 1 C2 group on rk3562, 2 on rk3566).
#
# yolov8n.rk3566 (model zoo, toolkit 1.5.0) against the YOLOv8n the NPU bench
# builds (tests/tools/zoo, written as ONNX by zoo_onnx): no tensor name is
# shared, so layers pair by op type and output shape. All 95 of the file's
# compute layers pair with ours, equal in op type, placement, dtype and
# shapes; ours has 3 more: the clipped class-score sum per scale
# (ReduceSum+Clip, lowered to a 1x1 ConvClip) of the newer zoo export the
# bench models, which this older file's export (6 outputs) does not have.
#
# retinaface.rv1103 against retinaface.onnx (rv1103, i8): 73 layers equal,
# among them the 2 FPN Adds, whose Resize operand comes after the conv in the
# ONNX: the compiler runs the conv after the Resize and fuses the Add into it
# (ConvLeakyReluAdd named by the conv, the Add's first operand), and so does
# our lowering. One difference: the three head Concats of 3 Reshapes each: the
# compiler reshapes each input to [1,1,N,C], concatenates in 4-D and reshapes
# back (nodes it names "_swap_concat_reshape_iK_out", "_0_unsqueeze1"); ours
# keeps the ONNX ops. No placement or dtype differs. Its 13 depthwise convs
# cost what ours cost (the file's weight (1,C,3,3) read as (C,1,3,3), group C).
#
# Every conv of every file has the weight shape (kernel, channels per group)
# of the ONNX conv it names, as our run stores it (kernels_pair).
#
# Predicted frames, file against its ONNX on the same chip, within 5 %
# (measured: multiple_input_demo 0.0 % on every file, retinaface.rv1103 +0.1 %,
# +1.2 % before the outputs of rank < 4 had the compiler's Reshape).
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
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
DB=$T/c.db

if [ ! -f "$D/multiple_input_demo.onnx" ] || [ ! -f "$D/yolov8n.rk3566.rknn" ]; then
    echo "vendor samples missing under $D"
    echo "0 passed, 1 failed"
    exit 1
fi

# our rows of a run, as "idx|node|name|npu_op|target|npu_dtype|out_shapes|has_figures"
rows() {
    sqlite3 "$DB" "SELECT idx, node, name, npu_op, target, npu_dtype, out_shapes,
        (total_cycles IS NOT NULL OR frame_us IS NOT NULL) FROM layers
        WHERE run_id = (SELECT id FROM runs WHERE label = '$1') ORDER BY idx"
}

# --- multiple_input_demo on six files -------------------------------------------
for f in rk3562 rk3566 rk3566.tk134 rk3576 rk3588 rk3588.tk134 rv1126b; do
    chip=${f%%.*}
    "$RT" run "$D/multiple_input_demo.onnx" -t "$chip" -q i8 -n 1 --warmup 0 --no-progress \
        --db "$DB" --label "o-$f" >/dev/null 2>"$T/err" || { bad "run onnx $f: $(cat "$T/err")"; continue; }
    "$RT" run "$D/multiple_input_demo.$f.rknn" --db "$DB" --label "r-$f" >/dev/null 2>"$T/err" ||
        { bad "run rknn $f: $(cat "$T/err")"; continue; }
    "$RT" inspect --json "$D/multiple_input_demo.$f.rknn" >"$T/ins.json" || { bad "inspect $f"; continue; }
    rows "o-$f" >"$T/rows.txt"
    "$RT" compare "o-$f" "r-$f" --db "$DB" --json >"$T/cmp.json" 2>"$T/err" ||
        { bad "compare $f --json: $(cat "$T/err")"; continue; }
    "$RT" compare "o-$f" "r-$f" --db "$DB" >"$T/cmp.txt" 2>"$T/err" || { bad "compare $f"; continue; }
    "$RT" run "$D/multiple_input_demo.onnx" -t "$chip" -q i8 -n 1 --warmup 0 --no-progress \
        --no-db --npu-table >"$T/tab.txt" 2>"$T/err" || { bad "npu-table onnx $f: $(cat "$T/err")"; continue; }
    "$RT" run "$D/multiple_input_demo.$f.rknn" --no-db --npu-table >"$T/ftab.txt" 2>"$T/err" ||
        { bad "npu-table rknn $f: $(cat "$T/err")"; continue; }
    if out=$($PY - "$D/multiple_input_demo.onnx" "$T/ins.json" "$T/rows.txt" "$T/cmp.json" "$T/cmp.txt" "$f" \
             "$T/tab.txt" "$T/ftab.txt" <<'EOF'
import json, re, sys
onnx, ins, rows, cmp_json, cmp_txt, name, tab, ftab = sys.argv[1:9]
errs = []
def check(what, got, want):
    if got != want:
        errs.append(f"{name}: {what}: got {got!r}, want {want!r}")

sys.path.insert(0, 'tests/cli')
from onnx_wire import nodes as onnx_nodes
nodes = onnx_nodes(onnx)
producer = {o: n['name'] for n in nodes for o in n['out']}
add = [n for n in nodes if n['op'] == 'Add'][0]
first_conv, last_conv = producer[add['in'][0]], producer[add['in'][1]]

d = json.load(open(ins))
io = [n for n in d['nodes'] if n['op'] in ('InputOperator', 'OutputOperator')]
comp = [n for n in d['nodes'] if n['op'] not in ('InputOperator', 'OutputOperator')]
# the file's node list: (OpType, Target, source node); toolkit 2.x appends the
# fused op type to the name ("Conv:Conv_0_ConvAdd")
def strip(full, op):
    return full[:-len('_' + op)] if full.endswith('_' + op) else full
spec = [(n['op'], n['target'], strip(n['name'], n['op'])) for n in d['nodes']]
vadd = [n for n in comp if n['op'] == 'ConvAdd']
check("file: one ConvAdd", len(vadd), 1)
check("file: ConvAdd fuses the Add's first operand's conv", strip(vadd[0]['name'], 'ConvAdd'),
      'Conv:' + first_conv)
check("file: the other conv runs first", [strip(n['name'], n['op']) for n in comp],
      ['Conv:' + last_conv, 'Conv:' + first_conv])
out_tgt = [n['target'] for n in io if n['op'] == 'OutputOperator']
check("file: OutputOperator on the NPU on rk3562/rk3566 only", out_tgt,
      ['NPU' if name.split('.')[0] in ('rk3562', 'rk3566') else 'CPU'])

# a level-4 table: ID OpType DataType Target ... Cycles(DDR/NPU/Total) ... FullName
def table(path):
    out = []
    for line in open(path).read().splitlines():
        line = re.sub(r'^I RKNN: \[[^]]*\] ', '', line)
        m = re.match(r'^(\d+)\s+(\S+)\s+(\S+)\s+(NPU|CPU)\s.*?\s(\d+)/(\d+)/(\d+)\s.*\s(\S+:\S+)\s*$', line)
        if m:
            out.append((m.group(2), m.group(4), m.group(8), int(m.group(5))))
    return out
ours = table(tab)
check("our table: the file's nodes (OpType, Target, node)", [r[:3] for r in ours], spec)
if name in ('rk3562', 'rk3566'):
    check("our DDR cycles: the file's, layer for layer", [r[3] for r in ours], [r[3] for r in table(ftab)])

# ours, from the store: groups of rows closed by a row with figures
groups, cur = [], []
for line in open(rows).read().splitlines():
    idx, node, tname, npu_op, target, dt, outs, fig = line.split('|')
    cur.append((node, tname, npu_op, target, dt, outs))
    if fig == '1':
        groups.append(cur); cur = []
check("ours: Conv of the second operand, then ConvAdd of the first operand's conv and the Add",
      [([r[0] for r in g], g[-1][2]) for g in groups],
      [([last_conv], 'Conv'), ([first_conv, add['name']], 'ConvAdd')])

c = json.load(open(cmp_json))['graph']
check("aligned by", c['aligned_by'], 'name')
check("layers", c['layers'], [len(comp), len(comp)])
check("I/O operators", c['io_operators'], [len(io), len(io)])
check("equal/differ/only", (c['equal'], c['differ'], c['only']), (len(comp), 0, [0, 0]))
def sig(l): return (l['op'], l['out_shapes'])
check("B's output shapes are the file's", sorted(sig(p['b']) for p in c['pairs'] if p['b']),
      sorted((n['op'], json.dumps([o['shape'] for o in n['outputs']], separators=(',', ':'))) for n in comp))
# the layer rows: A's Input/OutputOperator (table rows of a prediction that no
# layer row carries) at the file's frame shares, and each run's column adding
# up to its predicted frame
cj = json.load(open(cmp_json))
io_rows = [r for r in cj['layers'] if r['op'] in ('Input', 'InputOperator', 'OutputOperator')]
check("compare rows: A's I/O operators, B's", len([r for r in io_rows if r['runs'][0]]), 3)
check("compare rows: A's I/O operators at the file's frame shares",
      [round(r['runs'][0]['us'], 6) for r in io_rows if r['runs'][0]],
      [round(r['runs'][1]['us'], 6) for r in io_rows if r['runs'][1]])
for k in (0, 1):
    col = sum(r['runs'][k]['us'] for r in cj['layers'] if r['runs'][k] and r['runs'][k]['us'] is not None)
    check(f"compare rows: run {'AB'[k]}'s column adds up to its frame", round(col, 3),
          round(cj['runs'][k]['npu_us'], 3))
# show's slowest layers: A's Input/OutputOperator ranked among its layers, as
# the file's run ranks them, at the same frame shares (before, A's list held
# its two convs alone)
tops = [cj['runs'][k]['document']['npu']['top'] for k in (0, 1)]
check("slowest: A's rows (OpType, ID) are the file's",
      sorted((t['op_type'], t['table_id']) for t in tops[0]),
      sorted((t['op_type'], t['table_id']) for t in tops[1]))
check("slowest: A's I/O operators at the file's times",
      sorted((t['op_type'], round(t['us'], 6)) for t in tops[0] if 'Operator' in t['op_type']),
      sorted((t['op_type'], round(t['us'], 6)) for t in tops[1] if 'Operator' in t['op_type']))
check("slowest: A's I/O operators are no layer row",
      [t['layer'] for t in tops[0] if 'Operator' in t['op_type']], [None] * 3)
# the file's run lists the file's outputs (no values: a prediction), as its
# source ONNX's run lists them
outs = [[(o['name'], o['shape']) for o in cj['runs'][k]['document']['outputs']] for k in (0, 1)]
check("outputs: the file's run lists the file's", outs[1],
      [(o['name'], o['shape']) for o in json.load(open(ins))['outputs']])
check("outputs: the file's are its ONNX's", outs[1], outs[0])
txt = open(cmp_txt).read()
for want in ("aligned by output tensor name", "paired 2: 2 equal, 0 differ",
             "vs A: n/a (not computed: a predicted vendor file; --emulate computes its outputs)",
             "op types (A/B): Conv 1/1 ConvAdd 1/1\n"):
    if want not in txt:
        errs.append(f"{name}: text lacks {want!r}")
print("\n".join(errs))
sys.exit(1 if errs else 0)
EOF
    ); then ok; else bad "$out"; fi
done

# --- predicted frames: each file against its ONNX on the same chip, within 5 % ---
frame_pair() { # LABEL_ONNX LABEL_RKNN NAME
    local o r
    o=$(sqlite3 "$DB" "select npu_us from runs where label='$1'")
    r=$(sqlite3 "$DB" "select npu_us from runs where label='$2'")
    if $PY -c "import sys; o, r = map(float, sys.argv[1:3]); sys.exit(0 if o > 0 and abs(r / o - 1) <= 0.05 else 1)" "$o" "$r"; then
        ok
    else
        bad "$3: predicted frame of the file $r us, of its ONNX $o us: more than 5 % apart"
    fi
}
# kernels: every conv of the file has the weight shape of the ONNX conv it
# names (its FullName's node; toolkit 2.x appends the fused op), as ours stores it
kernels_pair() { # LABEL_ONNX LABEL_RKNN NAME
    local out
    if out=$($PY - "$DB" "$1" "$2" <<'EOF'
import json, sqlite3, sys
db, lo, lr = sys.argv[1:4]
c = sqlite3.connect(db)
def rows(label):
    return c.execute("select node, npu_op, in_shapes from layers where run_id = "
                     "(select id from runs where label = ?)", (label,)).fetchall()
ours = {n: json.loads(s) for n, op, s in rows(lo) if s}
errs, n = [], 0
for node, op, s in rows(lr):
    if not op.startswith('Conv'):
        continue
    src = node.split(':', 1)[1]
    src = src[:-len('_' + op)] if src.endswith('_' + op) else src
    w = json.loads(s)[1]
    n += 1
    if src not in ours or len(ours[src]) < 2 or ours[src][1] != w:
        errs.append(f"{node}: weight {w}, ours {ours.get(src)}")
print("; ".join(errs) if errs else n)
sys.exit(1 if errs or not n else 0)
EOF
    ); then ok; else bad "$3 kernels: $out"; fi
}
for f in rk3562 rk3566 rk3566.tk134 rk3576 rk3588 rk3588.tk134 rv1126b; do
    frame_pair "o-$f" "r-$f" "multiple_input_demo.$f"
    kernels_pair "o-$f" "r-$f" "multiple_input_demo.$f"
done

# --- yolov8n.rk3566 against the bench's YOLOv8n -----------------------------------
if "$B/tests/zoo_onnx" yolov8n "$T/yolov8n.onnx" 2>"$T/err" &&
   "$RT" run "$T/yolov8n.onnx" -t rk3566 -q i8 -n 1 --warmup 0 --no-progress --db "$DB" --label o-y8 \
       >/dev/null 2>"$T/err" &&
   "$RT" run "$D/yolov8n.rk3566.rknn" --db "$DB" --label r-y8 >/dev/null 2>"$T/err" &&
   "$RT" inspect --json "$D/yolov8n.rk3566.rknn" >"$T/ins.json" 2>"$T/err" &&
   "$RT" compare o-y8 r-y8 --db "$DB" --json >"$T/cmp.json" 2>"$T/err" &&
   "$RT" compare o-y8 r-y8 --db "$DB" >"$T/cmp.txt" 2>"$T/err"; then
    rows o-y8 >"$T/rows.txt"
    if out=$($PY - "$T/ins.json" "$T/rows.txt" "$T/cmp.json" "$T/cmp.txt" <<'EOF'
import json, sys
from collections import Counter
ins, rows, cmp_json, cmp_txt = sys.argv[1:5]
errs = []
def check(what, got, want):
    if got != want:
        errs.append(f"yolov8n: {what}: got {got!r}, want {want!r}")
d = json.load(open(ins))
io = [n for n in d['nodes'] if n['op'] in ('InputOperator', 'OutputOperator')]
comp = [n for n in d['nodes'] if n['op'] not in ('InputOperator', 'OutputOperator')]
shape = lambda n: json.dumps([o['shape'] for o in n['outputs']], separators=(',', ':'))
ours = [l.split('|') for l in open(rows).read().splitlines()]
ours = [r for r in ours if r[7] == '1']
c = json.load(open(cmp_json))['graph']
check("aligned by", c['aligned_by'], 'op_shape')
check("layers", c['layers'], [len(ours), len(comp)])
# ours: the input and 9 outputs (the 3 class-score sums are outputs too)
check("I/O operators", c['io_operators'], [len(io) + 3, len(io)])
check("file: 95 compute layers", len(comp), 95)
check("equal/differ/only", (c['equal'], c['differ'], c['only']), (95, 0, [3, 0]))
pairs = c['pairs']
both = [p for p in pairs if p['a'] and p['b']]
check("paired layers: same op type and output shape",
      [p for p in both if (p['a']['op'], p['a']['out_shapes']) != (p['b']['op'], p['b']['out_shapes'])], [])
check("B: the file's layers (op type, output shapes)",
      Counter((p['b']['op'], p['b']['out_shapes']) for p in pairs if p['b']),
      Counter((n['op'], shape(n)) for n in comp))
check("B: the file's placement", Counter(p['b']['target'] for p in pairs if p['b']),
      Counter(n['target'] for n in comp))
check("A: our stored layers (op type, output shapes)",
      Counter((p['a']['op'], p['a']['out_shapes']) for p in pairs if p['a']),
      Counter((r[3], r[6]) for r in ours))
extra = sorted((p['a']['op'], p['a']['full_name'].split(':')[0], p['a']['out_shapes'])
               for p in pairs if not p['b'])
check("only ours: the clipped class-score sum per scale", extra,
      sorted(('ConvClip', 'ReduceSum', f'[[1,1,{h},{h}]]') for h in (80, 40, 20)))
txt = open(cmp_txt).read()
for want in ("aligned by op type and output shape", "paired 95: 95 equal, 0 differ", "ConvClip 3/0*"):
    if want not in txt:
        errs.append(f"yolov8n: text lacks {want!r}")
print("\n".join(errs))
sys.exit(1 if errs else 0)
EOF
    ); then ok; else bad "$out"; fi
else
    bad "yolov8n: $(cat "$T/err")"
fi

# --- retinaface.rv1103 (its graph read from the RV1103 FlatBuffer) against its ONNX ---
if "$RT" run "$D/retinaface.onnx" -t rv1103 -q i8 -n 1 --warmup 0 --no-progress --db "$DB" --label o-rf \
       >/dev/null 2>"$T/err" &&
   "$RT" run "$D/retinaface.rv1103.rknn" --db "$DB" --label r-rf >/dev/null 2>"$T/err" &&
   "$RT" inspect --json "$D/retinaface.rv1103.rknn" >"$T/ins.json" 2>"$T/err" &&
   "$RT" compare o-rf r-rf --db "$DB" --json >"$T/cmp.json" 2>"$T/err"; then
    rows o-rf >"$T/rows.txt"
    if out=$($PY - "$D/retinaface.onnx" "$T/ins.json" "$T/rows.txt" "$T/cmp.json" <<'EOF'
import json, sys
from collections import Counter
sys.path.insert(0, 'tests/cli')
from onnx_wire import nodes as onnx_nodes
onnx, ins, rows, cmp_json = sys.argv[1:5]
errs = []
def check(what, got, want):
    if got != want:
        errs.append(f"retinaface: {what}: got {got!r}, want {want!r}")
on = onnx_nodes(onnx)
names = {n['name'] for n in on}
order = {o: i for i, n in enumerate(on) for o in n['out']}
prod = {o: n for n in on for o in n['out']}
d = json.load(open(ins))
comp = [n for n in d['nodes'] if n['op'] not in ('InputOperator', 'OutputOperator')]
node_of = lambda full: full.split(':', 1)[1]
# the compiler's own nodes: per head Concat of Reshapes, a Reshape of each input
# to [1,1,N,C] ("_swap_concat_reshape_iK_out") and one back ("_0_unsqueeze1")
cats = [n['name'] for n in on if n['op'] == 'Concat' and all(prod[x]['op'] == 'Reshape' for x in n['in'])]
made = sorted(node_of(n['name']) for n in comp if node_of(n['name']) not in names)
check("file: compiler-made nodes", made, sorted([f"{c}_swap_concat_reshape_i{k}_out" for c in cats for k in range(3)]
                                                + [f"{c}_0_unsqueeze1" for c in cats]))
# the Adds whose second operand (a Resize) comes after the conv in the ONNX
adds = [n for n in on if n['op'] == 'Add' and prod[n['in'][1]]['op'] == 'Resize'
        and order[n['in'][1]] > order[n['in'][0]]]
check("onnx: 2 FPN Adds after their Resize", len(adds), 2)
c = json.load(open(cmp_json))['graph']
ours = [l.split('|') for l in open(rows).read().splitlines()]
check("layers", c['layers'], [sum(r[7] == '1' for r in ours), len(comp)])
pairs = c['pairs']
differ = Counter((p['a']['op'], p['b']['op']) for p in pairs if p['a'] and p['b'] and p['differ'])
check("differ: the Concats rebuilt", differ, Counter({('Concat', 'Reshape'): len(cats)}))
only_a = Counter(p['a']['op'] for p in pairs if not p['b'])
check("only ours: the head Reshapes", only_a, Counter({'Reshape': 3 * len(cats)}))
only_b = Counter(p['b']['op'] for p in pairs if not p['a'])
check("only the file's: its Reshapes to 4-D and Concats", only_b,
      Counter({'Reshape': 3 * len(cats), 'Concat': len(cats)}))
# the file's fused Adds: ConvLeakyReluAdd named by the conv making the Add's first operand
fused = sorted(n['name'] for n in comp if n['op'] == 'ConvLeakyReluAdd')
check("file: the FPN Adds fused into their first operand's conv", fused,
      sorted('Conv:' + prod[prod[a['in'][0]]['in'][0]]['name'] for a in adds))
eq_add = sorted(p['b']['full_name'] for p in pairs if p['a'] and p['b'] and not p['differ']
                and p['a']['op'] == p['b']['op'] == 'ConvLeakyReluAdd')
check("ours: the same ConvLeakyReluAdd layers, equal", eq_add, fused)
check("equal: every other layer of ours (73)", c['equal'],
      sum(r[7] == '1' for r in ours) - 3 * len(cats) - len(cats))
check("no placement or dtype difference", [p for p in pairs if {'target', 'dtype'} & set(p['differ'])], [])
print("\n".join(errs))
sys.exit(1 if errs else 0)
EOF
    ); then ok; else bad "$out"; fi
    frame_pair o-rf r-rf retinaface.rv1103
    kernels_pair o-rf r-rf retinaface.rv1103
    # a depthwise conv (stage2.1.0: 3x3, 128 channels, 40x40) costs the same
    # both sides: 1600 px * 9 taps * ceil(128/32) = 57600 cycles on rv1103 (DW 32 ch/cycle)
    a=$(sqlite3 "$DB" "select npu_cycles||','||round(mac_usage,2) from layers where node='/stage2/stage2.1/stage2.1.2/LeakyRelu'")
    b=$(sqlite3 "$DB" "select npu_cycles||','||round(mac_usage,2) from layers where node='Conv:/stage2/stage2.1/stage2.1.0/Conv'")
    [ "$a" = "$b" ] && [ "${b%%,*}" = 57600 ] && ok || bad "retinaface depthwise stage2.1.0: ours $a, the file's $b"
else
    bad "retinaface: $(cat "$T/err")"
fi

# --- two simulated runs: no graph section unless --graph; a run against itself ----
"$RT" compare o-rk3588 o-rk3566 --db "$DB" >"$T/cmp.txt" 2>&1
grep -q "compiled graphs" "$T/cmp.txt" && bad "two simulated runs: graph section without --graph" || ok
"$RT" compare o-rk3588 o-rk3588 --graph --db "$DB" >"$T/cmp.txt" 2>&1
grep -q "paired 2: 2 equal, 0 differ .*only in A 0, only in B 0" "$T/cmp.txt" && ok ||
    bad "a run against itself: $(grep paired "$T/cmp.txt")"
"$RT" compare r-rk3588 r-rk3588 --db "$DB" --json | $PY -c "
import json, sys
g = json.load(sys.stdin)['graph']
sys.exit(0 if (g['equal'], g['differ'], g['only'], g['io_operators']) == (2, 0, [0, 0], [3, 3]) else 1)" &&
    ok || bad "a predicted run against itself (--json)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
