#!/usr/bin/env bash
# One run of each source, told the same way everywhere: sim (ONNX fp32 and i8),
# predict (a vendor .rknn), board (through a stand-in of the vendor runtime),
# attach (an application on this project's librknnrt.so) and import (a board's
# level-4 log). For each, a Python reader of run's and show's text, show --json,
# ls --json and report md/html/csv/json checks that the frame figure, the level-4
# total, the layer count and the provenance words are identical on every surface,
# and that the words are the ones the source deserves (docs/json.md).
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RT=$B/rknn-trace
PY=/usr/bin/python3
export RT_SHARED=${RT_SHARED:-../shared}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export RKNN_TRACE_SYSFS=$T/sim
unset RKNN_LOG_LEVEL RKNN_TRACE_PERF RKNN_TRACE_JOURNAL RKNN_TRACE_RUNTIME
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0"
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
M=tests/data/models/mnist.onnx
Y=tests/data/models/yolox_nano.onnx
RK=$RT_SHARED/data/models/rknn/multiple_input_demo.rk3588.rknn
LOG=$RT_SHARED/data/logs/perf-rows-2x-int8-cpu-gather-yolo-rk3588-yolov10-115-08.txt
P=tests/fuzz/corpus/perflog/perf-perfdetail-yolov8n1920-rk3588-channy-01.txt
DB=$T/db

# label, words each figure deserves ("-": no such figure): frame, table, timing
runs=()
"$RT" run "$M" --db "$DB" --label fp -n 2 --no-progress >"$T/fp.run" 2>"$T/err" && ok || bad "sim fp32: $(cat "$T/err")"
runs+=("fp|predicted|predicted|host")
"$RT" run "$M" --db "$DB" --label i8 -q i8 -n 2 --no-progress >"$T/i8.run" 2>"$T/err" && ok || bad "sim i8: $(cat "$T/err")"
runs+=("i8|predicted|predicted|host")
if [ -f "$RK" ]; then
    "$RT" run "$RK" --db "$DB" --label pred >"$T/pred.run" 2>"$T/err" && ok || bad "predict: $(cat "$T/err")"
    runs+=("pred|predicted|predicted|-")
    mkdir -p "$T/stub"
    cc -std=c11 -shared -fPIC -Iinclude -o "$T/stub/librknnrt.so" tests/board/stub_runtime.c || bad "stub build"
    STUB_PERF=$P "$RT" run "$RK" --backend board --runtime "$T/stub/librknnrt.so" -n 3 --label brd --db "$DB" \
        >"$T/brd.run" 2>"$T/err" && ok || bad "board on the stub: $(cat "$T/err")"
    runs+=("brd|-|board|board")
fi
$PY -c "open('$T/img.ppm','wb').write(b'P6\n416 416\n255\n'+bytes((i*7)%256 for i in range(416*416*3)))"
"$RT" attach --db "$DB" --perf 1 --label att -- "$B/samples/sample_general" "$Y" "$T/img.ppm" "$T/o.f32" 2 \
    >/dev/null 2>"$T/err" && ok || bad "attach: $(cat "$T/err")"
runs+=("att|-|predicted|simlib")
if [ -f "$LOG" ]; then
    "$RT" import "$LOG" --db "$DB" --label imp >/dev/null 2>"$T/err" && ok || bad "import: $(cat "$T/err")"
    runs+=("imp|-|board|-")
fi
"$RT" ls --json --db "$DB" >"$T/ls.json" 2>"$T/err" || bad "ls --json: $(cat "$T/err")"

for spec in "${runs[@]}"; do
    l=${spec%%|*}
    "$RT" show "$l" --db "$DB" >"$T/$l.show" 2>"$T/err" || bad "show $l: $(cat "$T/err")"
    "$RT" show "$l" --db "$DB" --json >"$T/$l.sjson" 2>"$T/err" || bad "show --json $l: $(cat "$T/err")"
    for f in md html csv json; do
        "$RT" report "$l" --db "$DB" -f $f -o "$T/$l.$f" 2>"$T/err" || bad "report $f $l: $(cat "$T/err")"
    done
    $PY - "$T" "$spec" <<'PYEOF' && ok || bad "surfaces disagree: $spec"
import csv, html, json, re, sys
T, spec = sys.argv[1], sys.argv[2]
label, *want = spec.split("|")
WORDS = {"predicted": "predicted by the NPU model", "board": "measured on the board",
         "host": "this PC's CPU, not the board",
         "simlib": "this project's simulated librknnrt.so on this PC, not the board"}
# the figures line, built from what the source deserves
line = "; ".join("%s %s" % (k, WORDS[w]) for k, w in zip(("frame", "table", "timing"), want) if w != "-")
rd = lambda ext: open("%s/%s.%s" % (T, label, ext), encoding="utf-8").read()
show, sj, rj = rd("show"), json.loads(rd("sjson")), json.loads(rd("json"))
md, ht = rd("md"), html.unescape(rd("html"))
rows = list(csv.DictReader(open("%s/%s.csv" % (T, label), newline="", encoding="utf-8")))
ls = [r for r in json.load(open(T + "/ls.json")) if r["label"] == label][0]
errs = []
def eq(what, a, b):
    if a != b: errs.append("%s: %r != %r" % (what, a, b))
# provenance words: show's line, the JSON documents, md's and html's figures row
m = re.search(r"^figures   (.*)$", show, re.M)
eq("show figures", m and m.group(1), line)
eq("show --json words", sj["provenance"]["words"], line)
eq("report json words", rj["provenance"]["words"], line)
eq("md figures", "| figures | %s |" % line in md, True)
eq("html figures", "<tr><th>figures</th><td>%s</td></tr>" % line in ht, True)
tags = [None if w == "-" else w for w in want]
eq("json tags", [sj["provenance"][k] for k in ("frame", "table", "timing")], tags)
eq("ls tags", [ls["provenance"][k] for k in ("frame", "timing")], [tags[0], tags[2]])
eq("host tag", sj["host"]["provenance"], tags[2])
# the frame figure: ms in show, md, html; us in JSON (the same on both)
fr = sj["npu"]["predicted_us"]
eq("frame json", rj["npu"]["predicted_us"], fr)
eq("frame ls", ls["npu_us"], fr)
m = re.search(r"^predicted ([0-9.]+) ms per frame", show, re.M)
eq("frame show", m and m.group(1), None if fr is None else "%.3f" % (fr / 1e3))
if fr is None:
    eq("show: no frame", re.search(r"^(frame     n/a|predicted n/a)", show, re.M) is not None, True)
else:
    eq("frame md", "| predicted frame | %.3f ms," % (fr / 1e3) in md, True)
    eq("frame html", "<tr><th>predicted frame</th><td>%.3f ms," % (fr / 1e3) in ht, True)
# the level-4 table total, with its provenance words
tot = sj["npu"]["perf_table_us"]
eq("table json", rj["npu"]["perf_table_us"], tot)
if tot is not None:
    t = "%.3f ms" % (tot / 1e3)
    w = WORDS[want[1]]
    eq("table show", "level-4 table total %s (layer by layer, %s)" % (t, w) in show, True)
    eq("table md", "| level-4 table total | %s (%s) |" % (t, w) in md, True)
    eq("table html", "<tr><th>level-4 table total</th><td>%s (%s)</td></tr>" % (t, w) in ht, True)
# the layer count: the JSON documents, ls, the CSV's rows
n = sj["layer_count"]
eq("layers json", rj["layer_count"], n)
eq("layers ls", ls["layer_count"], n)
eq("layers csv", len(rows), n)
eq("csv time provenance", {r["time_provenance"] for r in rows if r["time_us"]} <= {tags[1]}, True)
# the timed runs: never a median of rknn_run where none was timed
med = sj["host"]["median_us"]
if tags[2] is None:
    eq("no median", med, None)
    eq("show: no median", re.search(r"median [0-9]", show), None)
else:
    eq("show median", "%s: median %.3f ms" % (WORDS[tags[2]], med / 1e3) in show, True)
# measured layers are called measured, predicted ones predicted
if sj["npu"]["top"]:
    kind = "measured" if tags[1] == "board" and fr is None else "predicted"
    title = "lowest %s layers (%s%s)" % (kind, "level-4 table time, " if sj["npu"]["top_by"] == "time_us" else "",
                                         WORDS["board" if kind == "measured" else "predicted"])
    eq("show slowest", re.search(r"^s%s$" % re.escape(title), show, re.M) is not None, True)
    eq("md slowest", "## S%s\n" % title in md, True)
    eq("html slowest", "<h2>S%s</h2>" % title in ht, True)
    eq("json top", sj["provenance"]["top"], "board" if kind == "measured" else "predicted")
# CPU layers a measured table timed show their time
if tags[1] == "board":
    for f in sj["npu"]["fallback"]["layers"]:
        eq("fallback time", f["frame_us"] is not None or any(
            r["time_us"] for r in rows if r["idx"] == str(f["layer"])), True)
    eq("show fallback times", re.search(r"^\s+\d+ \S+\s+n/a us", show, re.M), None)
# run's own text is show's (a recorded run says what show will say)
try:
    run = rd("run")
    # from the run line on (a vendor file's run says what it read first); the times differ
    run = run[run.index("run       #"):]
    strip = lambda s: re.sub(r"^(run       #\d+.*|\s+\d+ timed run.*)$", "", s, flags=re.M)
    eq("run text", strip(run.split("\noutputs")[0]), strip(show.split("\noutputs")[0]))
except FileNotFoundError:
    pass
if errs:
    print("\n".join(errs), file=sys.stderr)
    sys.exit(1)
PYEOF
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
