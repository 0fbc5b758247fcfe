#!/usr/bin/env bash
# tests/npu/determinism.sh [BUILD] — the NPU prediction never reads a host
# timing: five runs of the same model, target and settings print a
# bit-identical `npu` section of `run --json` (ultraface int8 with its CPU
# Exp, and fp16), also while a busy loop loads the host; the CPU Exp costs its
# chip's CPU speed (rk3566's A55 at 1.8 GHz x 0.45 against rk3588's A76 at
# 2.256 GHz: 2.785x the time, by hand). (A model with an op that neither the
# NPU nor the CPU of rv1106 runs is refused, naming the op: tests/npu/transpose.sh.)
source "$(dirname "$0")/../quant/harness.sh" "$@"
M=tests/data/models/ultraface_version-RFB-320.onnx
busy=
stop_busy() { [ -n "$busy" ] && kill "$busy" 2>/dev/null; wait "$busy" 2>/dev/null; busy=; }
trap 'stop_busy; rm -rf "$T"' EXIT
# the predicted part of the run document (docs/json.md): the npu section and the
# per-layer predicted figures
npu_of() { $PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
keys = ("node", "op", "target", "npu_op", "npu_dtype", "bound", "npu_cycles", "ddr_cycles", "total_cycles", "time_us", "frame_us", "mac_usage", "rw_kb")
print(json.dumps({"npu": d["npu"], "layers": [{k: l[k] for k in keys} for l in d["layers"]]}, sort_keys=True))' "$1"; }
for q in i8 fp16; do
    for i in 1 2 3 4 5; do
        if [ "$i" = 4 ]; then (while :; do :; done) & busy=$!; fi
        expect_rc 0 "$q run $i" "$R" run "$M" -q "$q" --no-db --no-progress --json
        npu_of "$T/out" >"$T/npu-$q-$i.json" || bad "$q run $i: no npu section"
    done
    stop_busy
    same=1
    for i in 2 3 4 5; do cmp -s "$T/npu-$q-1.json" "$T/npu-$q-$i.json" || same=0; done
    [ "$same" = 1 ] && ok || bad "$q: npu sections differ between runs: $(diff "$T/npu-$q-1.json" "$T/npu-$q-5.json" | head -c 300)"
done
$PY - "$T/npu-i8-1.json" "$T/npu-fp16-1.json" <<'PYEOF' && ok || bad "int8 faster than fp16 in the frame and in the level-4 sum"
import json, sys
(a, la), (b, lb) = ((d["npu"], d["layers"]) for d in (json.load(open(p)) for p in sys.argv[1:3]))
conv = lambda ls: {l["npu_dtype"] for l in ls if l["op"] == "Conv" and l["npu_dtype"]}
assert conv(la) == {"INT8"} and conv(lb) == {"FLOAT16"}, (conv(la), conv(lb))
assert a["predicted_us"] < b["predicted_us"] and a["perf_table_us"] < b["perf_table_us"], \
    (a["predicted_us"], b["predicted_us"], a["perf_table_us"], b["perf_table_us"])
PYEOF
for chip in rk3588 rk3566; do
    expect_rc 0 "$chip run" "$R" run "$M" -q i8 -t "$chip" --no-db --no-progress --json
    npu_of "$T/out" >"$T/chip-$chip.json"
done
$PY - "$T/chip-rk3588.json" "$T/chip-rk3566.json" <<'PYEOF' && ok || bad "CPU Exp scales with the chip's CPU"
import json, sys
def exp(p):
    ls = [l for l in json.load(open(p))["layers"] if l["op"] == "Exp" and l["time_us"] is not None]
    assert len(ls) == 1 and ls[0]["target"] == "CPU", ls
    return ls[0]["time_us"]
a, b = exp(sys.argv[1]), exp(sys.argv[2])
want = 2256 * 1.0 / (1800 * 0.45)
assert abs(b / a - want) < 1e-6 * want, (a, b, b / a, want)
PYEOF
finish
