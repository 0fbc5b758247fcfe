#!/usr/bin/env bash
# tests/reports/run.sh [BUILD] — `rknn-trace report`, checked as a person would:
# the Markdown renders as tables (python3-markdown) within 120 columns, with names
# cut the same way everywhere; the HTML loads in headless Chromium with no console
# message, shows its tables, applies a shared link's filter and sort, and
# screenshots; CSV reads back (Python's csv) to the values sqlite3 holds; JSON is
# `show --json`'s document; the trace obeys the trace-event rules
# (check_trace.py); the gnuplot scripts run and draw PNGs; the project's PNGs
# decode (PIL) with the expected size and content (SRAM cells counted). Runs: two
# real models (mnist fp32, UltraFace fp32 and i8 with SRAM) and synthetic ones
# (tests/tools/report_fixture: missing fields, a board run, another model).
source "$(dirname "$0")/../quant/harness.sh" "$@"
F="$B/tests/report_fixture"
M=tests/data/models
DB=$T/r.db
CHROME=${CHROME:-chromium}
export DB T

# --- the runs -----------------------------------------------------------------
expect_rc 0 "run mnist" "$R" run $M/mnist.onnx --db "$DB" --label mnist -n 1
expect_rc 0 "run uf32" "$R" run $M/ultraface_version-RFB-320.onnx --db "$DB" --label uf32 -n 1 --sram
expect_rc 0 "run uf8" "$R" run $M/ultraface_version-RFB-320.onnx --db "$DB" --label uf8 -q i8 -n 1 --sram
expect_rc 0 "fixture miss" "$F" "$DB" miss 60 --missing
expect_rc 0 "fixture board" "$F" "$DB" board 40 --board --no-acc
expect_rc 0 "fixture wide" "$F" "$DB" wide 300
expect_rc 0 "fixture variant" "$F" "$DB" variant 300 --variant

rep() { # label(s)... -f FMT -o OUT
    "$R" report "$@" --db "$DB" >"$T/out" 2>"$T/err"
}
for f in md html csv json trace; do
    for r in uf8 miss board mnist; do
        rep $r -f $f -o "$T/$r.$f" && ok || bad "report $r -f $f: $(cat "$T/err")"
    done
done
for f in md html csv json; do
    rep uf32 uf8 -f $f -o "$T/cmp.$f" && ok || bad "report uf32 uf8 -f $f: $(cat "$T/err")"
    rep wide variant mnist -f $f -o "$T/cmp3.$f" && ok || bad "report 3 runs -f $f: $(cat "$T/err")"
done
rep uf32 uf8 -f md -o "$T/cmp2.md"
# both predictions have their Input/OutputOperator and output Reshape rows
# (npu_rows); the i8 run also has the two exDataConverts around its float op
grep -q '^verdict: B #3 uf8 vs A #2 uf32: predicted NPU frame [+-][0-9.]*% (\(slower\|faster\|same\)), output cos 0\.9[0-9]*, layers 133 matched, 0 only in A, 2 only in B$' "$T/out" \
    && ok || bad "verdict line on stdout: $(cat "$T/out")"

# --- Markdown: tables, 120 columns, names cut consistently, missing is — ------------
/usr/bin/python3 - "$T" <<'PYEOF' && ok || bad "markdown"
import markdown, re, sqlite3, sys, os
T = sys.argv[1]
con = sqlite3.connect(os.environ["DB"])
def short(name, w=30):  # the documented rule: head third, "…", tail
    if name is None: return "—"
    if len(name) <= w: return name
    head = (w - 1) // 3
    return name[:head] + "…" + name[len(name) - (w - 1 - head):]
for f in ("uf8.md", "miss.md", "board.md", "mnist.md", "cmp.md", "cmp3.md"):
    text = open(os.path.join(T, f), encoding="utf-8").read()
    for line in text.splitlines():      # tables; a verdict line stays one line
        assert not line.startswith("|") or len(line) <= 120, (f, len(line), line)
    blocks = len(re.findall(r"^\|.*\|\n\|(?:---:?\|)+$", text, re.M))
    html = markdown.markdown(text, extensions=["tables"])
    assert blocks >= 4 and html.count("<table>") == blocks, (f, blocks, html.count("<table>"))
# every layer row of uf8: its name cut by the rule, its frame time, "—" when not stored
text = open(os.path.join(T, "uf8.md"), encoding="utf-8").read().split("## Layers")[1]
rows = [l.split(" | ") for l in text.splitlines() if l.startswith("| ") and l[2].isdigit()]
db = con.execute("select l.idx, l.name, l.frame_us from layers l join runs r on r.id=l.run_id "
                 "where r.label='uf8' order by idx").fetchall()
assert len(rows) == len(db), (len(rows), len(db))
import csv
ids = {r["idx"]: r["table_id"] or "—" for r in csv.DictReader(open(os.path.join(T, "uf8.csv"), newline="", encoding="utf-8"))}
for cells, (idx, name, frame) in zip(rows, db):
    assert cells[0] == "| %d" % idx and cells[2] == short(name), (cells, name)
    assert cells[5] == ("—" if frame is None else "%.1f" % frame), (cells, frame)
    assert cells[-1] == ids[str(idx)] + " |", (cells, ids[str(idx)])   # the level-4 ID, as the csv has it
# a run with missing fields: — and never 0 for what is not stored
miss = open(os.path.join(T, "miss.md"), encoding="utf-8").read()
assert "| predicted frame | — (no NPU prediction recorded) |" in miss
assert "| host (this PC's CPU, not the board) | median —, p90 —, min — |" in miss
lay = [l.split(" | ") for l in miss.split("## Layers")[1].splitlines() if l.startswith("| ") and l[2].isdigit()]
db = con.execute("select l.idx, l.time_us, l.total_cycles, l.target from layers l join runs r on "
                 "r.id=l.run_id where r.label='miss' order by idx").fetchall()
nulls = 0
for cells, (idx, t, cyc, target) in zip(lay, db):
    if t is None:
        nulls += 1
        assert cells[3] == "—" and cells[5] == "—" and cells[6] == "—", cells
assert nulls == 20, nulls
# same name, same cut, in every table of a document
cmp3 = open(os.path.join(T, "cmp3.md"), encoding="utf-8").read()
assert "Unmatched layers" in cmp3 and "different models" in cmp3
PYEOF

# --- CSV: Python's csv reader gets what sqlite3 holds ----------------------------------
/usr/bin/python3 - "$T" <<'PYEOF' && ok || bad "csv vs sqlite3"
import csv, math, os, sqlite3, sys
T = sys.argv[1]
con = sqlite3.connect(os.environ["DB"])
cols = ("idx,node,op,name,in_shapes,out_shapes,dtype,host_us,npu_cycles,ddr_cycles,total_cycles,time_us,"
        "mac_usage,target,cpu_reason,sram_hit,rw_kb,bound,workload,tasks,npu_op,frame_us,npu_dtype").split(",")
mcols = [p + m for p in ("entire_", "single_") for m in ("cos", "euc", "max_abs", "mean_abs", "sqnr_db")]
qcols = "out_scale,out_zp,out_qtype,out_min,out_max,out_mean,out_std".split(",")
pcols = ["time_provenance", "frame_provenance", "table_id"]
# docs/json.md: a sim or predict run's table is the NPU model's, a board's measured; no backend: none
prov = {"sim": "predicted", "predict": "predicted", "board": "board", None: ""}
def table_ids(rid, backend):
    """docs/store.md: a printed table's rows (a board's) keep their IDs, idx; our
    model's rows with total_cycles take, in order, the positions of the level-4
    table its npu_rows leave free (ID = position + 1); a row an npu_row stands
    for (skip) takes that row's id"""
    extra = con.execute("select at, skip, id from npu_rows where run_id=? order by at", (rid,)).fetchall()
    out, pos, e = {}, 0, 0
    for idx, cyc in con.execute("select idx, total_cycles from layers where run_id=? order by idx", (rid,)):
        if backend not in ("sim", "predict", "emulate"):
            out[idx] = idx
            continue
        if cyc is None:
            continue
        while e < len(extra) and extra[e][0] == pos and not extra[e][1]:
            pos, e = pos + 1, e + 1
        if e < len(extra) and extra[e][0] == pos:
            out[idx] = extra[e][2]
            e += 1
        else:
            out[idx] = pos + 1
        pos += 1
    return out
def same(text, v):
    if v is None: return text == ""
    if isinstance(v, str): return text == v
    return float(text) == v or (math.isinf(v) and float(text) == v)
for label in ("uf8", "miss", "board", "mnist"):
    raw = open(os.path.join(T, label + ".csv"), "rb").read()
    assert raw.endswith(b"\r\n") and b"\r\n" in raw.split(b"\r\n")[0] + b"\r\n"
    rows = list(csv.reader(open(os.path.join(T, label + ".csv"), newline="", encoding="utf-8")))
    assert rows[0] == cols + mcols + qcols + pcols, rows[0]
    rid, backend = con.execute("select id, backend from runs where label=?", (label,)).fetchone()
    db = con.execute("select %s from layers where run_id=? order by idx" % ",".join(cols + qcols), (rid,)).fetchall()
    acc = {r[0]: r[1:] for r in con.execute("select name, %s from accuracy where run_id=? order by idx desc"
                                            % ",".join(mcols), (rid,))}
    assert len(rows) - 1 == len(db), (label, len(rows), len(db))
    ids = table_ids(rid, backend)
    assert label == "miss" or ids, label
    for got, want in zip(rows[1:], db):
        assert len(got) == len(cols) + len(mcols) + len(qcols) + len(pcols)
        # the provenance of time_us and frame_us: empty exactly when the figure is
        tp, fp, tid = got[-3:]
        assert tid == str(ids.get(want[0], "")), (label, want[0], tid, ids.get(want[0]))
        assert tp == ("" if want[cols.index("time_us")] is None else prov[backend]), (label, tp)
        assert fp == ("" if want[cols.index("frame_us")] is None else "predicted"), (label, fp)
        for c, g, w in zip(cols, got, want):
            assert same(g, w), (label, c, g, w)
        for c, g, w in zip(qcols, got[len(cols) + len(mcols):], want[len(cols):]):
            assert same(g, w), (label, c, g, w)
        a = acc.get(want[3], (None,) * len(mcols))
        for c, g, w in zip(mcols, got[len(cols):], a):
            assert same(g, w), (label, c, g, w)
# a comparison: one row per aligned layer, deltas against the baseline
rows = list(csv.DictReader(open(os.path.join(T, "cmp3.csv"), newline="", encoding="utf-8")))
def names(l):
    """the run's tensors, and its level-4 rows of their own named as compare
    names them (docs/json.md): an InputOperator or the rest by their FullName's
    tensor, an OutputOperator as OutputOperator#<n>"""
    out = {r[0] for r in con.execute("select name from layers l join runs r on r.id=l.run_id "
                                     "where r.label=? union select name from accuracy a join runs r "
                                     "on r.id=a.run_id where r.label=?", (l, l))}
    outs = 0
    for op, full in con.execute("select n.op, n.fullname from npu_rows n join runs r on r.id=n.run_id "
                                "where r.label=? and n.skip=0 order by n.at", (l,)):
        if op == "OutputOperator":
            out.add("OutputOperator#%d" % outs)
            outs += 1
        else:
            out.add(full.split(":", 1)[1])
    return out
assert len(rows) == len(names("wide") | names("variant") | names("mnist")), len(rows)
for r in rows:
    if r["A_us"] and r["B_us"]:
        assert abs(float(r["B_delta_us"]) - (float(r["B_us"]) - float(r["A_us"]))) < 1e-9, r
PYEOF

# --- JSON: show --json's document; a comparison holds each run's document ---------------
for r in uf8 miss board; do
    "$R" show $r --db "$DB" --json >"$T/show.json"
    /usr/bin/python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a==b and a['kind']=='run'" \
        "$T/$r.json" "$T/show.json" && ok || bad "report -f json == show --json ($r)"
done
"$R" show uf32 --db "$DB" --json >"$T/a.json"; "$R" show uf8 --db "$DB" --json >"$T/b.json"
/usr/bin/python3 - "$T" <<'PYEOF' && ok || bad "comparison json"
import json, os, sys
T = sys.argv[1]
c = json.load(open(os.path.join(T, "cmp.json")))
assert c["kind"] == "comparison" and c["schema_version"] == 1
assert [r["document"] for r in c["runs"]] == [json.load(open(os.path.join(T, f))) for f in ("a.json", "b.json")]
v = c["verdicts"][0]
assert v["only_in_baseline"] == 0 and v["only_in_run"] == 2 and v["line"].startswith("verdict: B #3 uf8")
for l in c["layers"]:
    a, b = l["runs"]
    if a and b and a["us"] is not None and b["us"] is not None:
        assert abs(b["delta_us"] - (b["us"] - a["us"])) < 1e-9
c3 = json.load(open(os.path.join(T, "cmp3.json")))
v = c3["verdicts"]
# of variant's 295 layers 29 are renamed (every tenth: 5, 15, ..., 285), 5 dropped (295..299)
assert v[0]["only_in_baseline"] == 34 and v[0]["only_in_run"] == 29, v[0]
assert "layers 266 matched" in v[0]["line"], v[0]
m = json.load(open(os.path.join(T, "cmp3.json")))["runs"][2]
assert "layers 0 matched, 300 only in A" in v[1]["line"], v[1]
assert "different models" in v[0]["line"] and v[1]["only_in_run"] > 0
PYEOF

# one comparison on every surface: three runs (one a board run, one of another
# model) list the same layers in the same order, each marked with the same
# runs, and the same verdict lines in compare, compare --json and report md/html/json
"$R" compare wide variant board --db "$DB" >"$T/c3.txt" 2>"$T/err" && ok || bad "compare 3 runs: $(cat "$T/err")"
"$R" compare wide variant board --db "$DB" --json >"$T/c3.json" 2>"$T/err" && ok || bad "compare 3 runs --json"
for f in md html json; do
    rep wide variant board -f $f -o "$T/c3r.$f" && ok || bad "report wide variant board -f $f: $(cat "$T/err")"
done
# one writer: the same document, byte for byte
cmp -s "$T/c3.json" "$T/c3r.json" && ok || bad "compare --json and report -f json of the same runs differ"
$PY - "$T" <<'PYEOF' && ok || bad "compare and report: different layers or verdicts"
import html, json, os, re, sys
T = sys.argv[1]
txt = open(os.path.join(T, "c3.txt")).read().splitlines()
verdicts = [l for l in txt if l.startswith("verdict: ")]
assert len(verdicts) == 2 and verdicts[0].startswith("verdict: B #") and verdicts[1].startswith("verdict: C #"), verdicts
# the board run against a prediction: the board's level-4 table total vs the predicted one, named
assert "board level-4 table total" in verdicts[1] and "predicted level-4 table total" in verdicts[1], verdicts[1]
md = [l for l in open(os.path.join(T, "c3r.md")).read().splitlines() if l.startswith("verdict: ")]
assert md == verdicts, (md, verdicts)
rj = json.load(open(os.path.join(T, "c3r.json")))
assert [v["line"] for v in rj["verdicts"]] == verdicts, rj["verdicts"]
# where each run's per-layer times come from: two predictions and the board's table,
# in the same words on every surface
assert [r["layer_us_provenance"] for r in rj["runs"]] == ["predicted", "predicted", "board"], rj["runs"]
words = "A predicted by the NPU model, B predicted by the NPU model, C measured on the board"
assert "layer times: " + words in txt, [l for l in txt if l.startswith("layer times")]
assert ("Layer times: %s." % words) in open(os.path.join(T, "c3r.md")).read()
h = open(os.path.join(T, "c3r.html")).read()
assert ('<div id="layer-times">Layer times: %s.</div>' % html.escape(words)) in h
for v in verdicts:
    assert html.escape(v, quote=False) in h or html.escape(v) in h, v
cj = json.load(open(os.path.join(T, "c3.json")))
names = [l["name"] for l in cj["layers"]]
assert names == [l["name"] for l in rj["layers"]], "layer order differs"
has = lambda l: [r is not None for r in l["runs"]]
assert [has(l) for l in cj["layers"]] == [has(l) for l in rj["layers"]], "runs per layer differ"
assert len(names) == len(set(names)) and len(names) > 300, len(names)
# text table rows: the same names in the same order (each row is "[op] name ...")
rows = [l.split()[1] for l in txt if l.startswith("[")]
assert rows == names, (rows[:3], names[:3])
PYEOF

# the bottleneck line: the same words and figures in show and the HTML report
# (a sim run, a run with missing fields, a board run, fp32); a report writes
# a missing figure as "—" where show writes "n/a"
for r in uf8 miss board mnist; do
    "$R" show $r --db "$DB" >"$T/show.txt" 2>/dev/null
    $PY - "$T/show.txt" "$T/$r.html" <<'PYEOF' && ok || bad "bottleneck line of $r: show vs html"
import html, re, sys
line = [l for l in open(sys.argv[1]).read().splitlines() if l.startswith("bottleneck ")][0]
cell = re.search(r"<th>bottleneck</th><td>([^<]*)</td>", open(sys.argv[2]).read()).group(1)
assert html.unescape(cell).replace("\u2014", "n/a") == line[len("bottleneck "):].strip(), (cell, line)
PYEOF
done

# --- trace-event rules, times vs the rows ---------------------------------------------------
for r in uf8 miss board mnist; do
    id=$(/usr/bin/python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select id from runs where label=?',(sys.argv[2],)).fetchone()[0])" "$DB" $r)
    /usr/bin/python3 tests/reports/check_trace.py "$T/$r.trace" "$DB" "$id" >"$T/chk" 2>&1 && ok || bad "trace $r: $(tail -3 "$T/chk")"
done

# --- gnuplot: the scripts run and draw -----------------------------------------------------
rep uf8 -f gnuplot -o "$T/gp" && ok || bad "gnuplot uf8: $(cat "$T/err")"
rep uf32 uf8 -f gnuplot -o "$T/gpc" && ok || bad "gnuplot compare: $(cat "$T/err")"
for d in gp gpc; do
    for s in "$T/$d"/*.gp; do
        (cd "$T/$d" && gnuplot "$(basename "$s")") >"$T/gperr" 2>&1 && ok || bad "gnuplot $s: $(head -3 "$T/gperr")"
    done
done
ls "$T/gp" "$T/gpc" >"$T/gpls"
/usr/bin/python3 - "$T" <<'PYEOF' && ok || bad "gnuplot PNGs"
import os, sys
from PIL import Image
T = sys.argv[1]
want = {"gp": ["error.png", "layers.png", "load.png"],
        "gpc": ["compare.png", "error.png", "layers_A.png", "layers_B.png", "load.png"]}
for d, files in want.items():
    got = sorted(f for f in os.listdir(os.path.join(T, d)) if f.endswith(".png"))
    assert got == files, (d, got)
    for f in files:
        im = Image.open(os.path.join(T, d, f)).convert("RGB")
        assert im.size in ((1200, 500), (1200, 400)), (f, im.size)
        assert len(im.getcolors(1 << 20)) > 8, (f, "blank chart")
PYEOF

# --- PNG charts drawn by the project -------------------------------------------------------
rep uf8 -f png -o "$T/png" && ok || bad "png uf8: $(cat "$T/err")"
rep miss -f png -o "$T/pngm" && ok || bad "png miss: $(cat "$T/err")"
rep wide variant -f png -o "$T/pngc" && ok || bad "png compare: $(cat "$T/err")"
/usr/bin/python3 - "$T" <<'PYEOF' && ok || bad "project PNGs"
import math, os, sqlite3, sys
from PIL import Image
T = sys.argv[1]
con = sqlite3.connect(os.environ["DB"])
def img(d, f):
    im = Image.open(os.path.join(T, d, f))
    im.load()                                   # decodes every row (CRC, zlib)
    return im.convert("RGB")
for d, f in (("png", "layers.png"), ("png", "error.png"), ("pngc", "compare.png"), ("pngc", "layers_B.png")):
    im = img(d, f)
    assert im.size == (1200, 400), (f, im.size)
    colors = dict((c, n) for n, c in im.getcolors(1 << 20))
    assert len(colors) >= 4 and colors[(255, 255, 255)] < 0.99 * 1200 * 400, (f, len(colors))
# bars coloured by bound: the layers chart holds each bound colour the rows have
im = img("png", "layers.png")
cols = {c for _, c in im.getcolors(1 << 20)}
bounds = {b for b, in con.execute("select distinct bound from layers l join runs r on r.id=l.run_id "
                                  "where r.label='uf8' and bound is not null")}
rgb = {"compute": (0x3b, 0x78, 0xc4), "DDR": (0xe8, 0x91, 0x2d), "CPU": (0xc8, 0x38, 0x2e)}
assert all(rgb[b] in cols for b in bounds), bounds
# SRAM map: one row per layer, one 4 KiB cell per hit, green (plus the legend's square)
for d, label in (("png", "uf8"), ("pngm", "miss")):
    hits = [h for h, in con.execute("select sram_hit from layers l join runs r on r.id=l.run_id "
                                    "where r.label=? order by idx", (label,))]
    im = img(d, "sram.png")
    n = len(hits)
    rh = 6 if n <= 150 else 2 if n <= 600 else 1
    assert im.size == (80 + 956 + 20, 50 + n * rh + 50), (im.size, n)
    cells = sum(math.ceil(h / 4096) for h in hits if h)
    green = sum(c for c, p in im.getcolors(1 << 20) if p == (0x2e, 0x9e, 0x4a))
    assert cells > 0 and green == cells * 3 * (rh - (rh > 2)) + 144, (label, cells, green)
PYEOF

# --- HTML in headless Chromium: two browser starts ---------------------------------------------
chrome() { # url, extra args... -> $T/dom, $T/chrome.err
    local url=$1; shift
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
        --user-data-dir="$T/chrome-profile" "$@" "$url" >"$T/dom" 2>"$T/chrome.err"
}
chrome "file://$T/uf8.html#filter=Exp&sort=layers:5:desc" --dump-dom && ok || bad "chromium dump-dom"
/usr/bin/python3 - "$T" <<'PYEOF' && ok || bad "HTML in chromium"
import os, re, sqlite3, sys
from html.parser import HTMLParser
T = sys.argv[1]
err = open(os.path.join(T, "chrome.err"), errors="replace").read()
assert not re.search(r":CONSOLE", err), [l for l in err.splitlines() if ":CONSOLE" in l]
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.tables = {}; s.cur = None; s.row = None; s.cell = None
    def handle_starttag(s, tag, a):
        a = dict(a)
        if tag == "table": s.cur = s.tables.setdefault(a.get("id"), [])
        elif tag == "tr" and s.cur is not None: s.row = [a.get("style") or "", []]; s.cur.append(s.row)
        elif tag in ("td", "th") and s.row is not None: s.cell = ""
        elif tag in ("script", "link", "img", "iframe") and (a.get("src") or a.get("href")):
            raise AssertionError("external resource: %r" % a)
    def handle_data(s, d):
        if s.cell is not None: s.cell += d
    def handle_endtag(s, tag):
        if tag in ("td", "th") and s.cell is not None: s.row[1].append(s.cell); s.cell = None
        elif tag == "table": s.cur = None
p = P(); p.feed(open(os.path.join(T, "dom")).read())
for t in ("summary", "top", "fallback", "accuracy", "layers"):
    assert t in p.tables, (t, list(p.tables))
con = sqlite3.connect(os.environ["DB"])
db = con.execute("select op, frame_us from layers l join runs r on r.id=l.run_id where r.label='uf8'").fetchall()
rows = p.tables["layers"][1:]
assert len(rows) == len(db), (len(rows), len(db))
# the link's filter hid every row without "exp"; its sort put the slowest first
shown = [r[1] for r in rows if "display: none" not in r[0]]
assert shown and all("exp" in "".join(c).lower() for c in shown), shown[:3]
hidden = [r for r in rows if "display: none" in r[0]]
assert len(hidden) + len(shown) == len(rows) and hidden
times = [float(r[1][5]) for r in rows if r[1][5] != "—"]
assert p.tables["layers"][0][1][-1] == "ID", p.tables["layers"][0]
assert times == sorted(times, reverse=True), times[:5]
assert p.tables["summary"] and len(p.tables["accuracy"]) == 1 + con.execute(
    "select count(*) from accuracy a join runs r on r.id=a.run_id where r.label='uf8'").fetchone()[0]
PYEOF
# missing stays missing in the HTML too: the layers table of a run with NULL fields
/usr/bin/python3 - "$T" <<'PYEOF' && ok || bad "HTML missing fields"
import os, re, sqlite3, sys
T = sys.argv[1]
html = open(os.path.join(T, "miss.html"), encoding="utf-8").read()
body = html.split('id="layers"')[1].split("</table>")[0]
rows = re.findall(r"<tr>(.*?)</tr>", body)[1:]
cells = [re.findall(r"<td[^>]*>(.*?)</td>", r) for r in rows]
con = sqlite3.connect(os.environ["DB"])
db = con.execute("select time_us, npu_cycles, ddr_cycles, mac_usage, rw_kb from layers l join runs r "
                 "on r.id=l.run_id where r.label='miss' order by idx").fetchall()
assert len(cells) == len(db) == 60
for c, (t, npu, ddr, mac, rw) in zip(cells, db):
    for got, want in ((c[5], t), (c[6], npu), (c[7], ddr), (c[8], mac), (c[9], rw)):
        assert (got == "—") == (want is None), (c, want)
PYEOF
chrome "file://$T/cmp3.html" --screenshot="$T/shot.png" --window-size=1280,1600 && ok || bad "chromium screenshot"
/usr/bin/python3 - "$T" <<'PYEOF' && ok || bad "HTML screenshot"
import os, re, sys
from PIL import Image
T = sys.argv[1]
err = open(os.path.join(T, "chrome.err"), errors="replace").read()
assert not re.search(r":CONSOLE", err), [l for l in err.splitlines() if ":CONSOLE" in l]
im = Image.open(os.path.join(T, "shot.png")).convert("RGB")
assert im.size == (1280, 1600), im.size
colors = im.getcolors(1 << 20)
white = sum(n for n, c in colors if c == (255, 255, 255))
assert len(colors) > 50 and white < 0.9 * 1280 * 1600, (len(colors), white)
# the delta chart's colours are on screen
assert any(c in ((0xc8, 0x38, 0x2e), (0x2e, 0x9e, 0x4a)) for _, c in colors)
PYEOF

# --- bad input ------------------------------------------------------------------------------
expect_rc 2 "unknown run" "$R" report nope -f md --db "$DB"
grep -q "no run 'nope'" "$T/err" && ok || bad "unknown run message: $(cat "$T/err")"
expect_rc 2 "unwritable file" "$R" report uf8 -f md -o "$T/no/such/dir/r.md" --db "$DB"
grep -q "cannot write '$T/no/such/dir/r.md': No such file or directory" "$T/err" && ok || bad "unwritable: $(cat "$T/err")"
expect_rc 2 "full disk" "$R" report uf8 -f html -o /dev/full --db "$DB"
grep -q "writing '/dev/full' failed" "$T/err" && ok || bad "full disk: $(cat "$T/err")"
: >"$T/afile"
expect_rc 2 "folder is a file" "$R" report uf8 -f png -o "$T/afile" --db "$DB"
grep -q "exists and is not a folder" "$T/err" && ok || bad "folder is a file: $(cat "$T/err")"
expect_rc 1 "unknown format" "$R" report uf8 -f pdf --db "$DB"
grep -q "unknown format 'pdf' (md, html, csv, json, trace, gnuplot, png)" "$T/err" && ok || bad "$(cat "$T/err")"
expect_rc 1 "folder format without -o" "$R" report uf8 -f png --db "$DB"
expect_rc 1 "trace of two runs" "$R" report uf8 uf32 -f trace --db "$DB"
expect_rc 1 "no format" "$R" report uf8 --db "$DB"
expect_rc 2 "no database" "$R" report uf8 -f md --db "$T/none.db"
# a comparison of different models is allowed: the unmatched layers are listed
expect_rc 0 "different models" "$R" report mnist uf8 -f md -o "$T/diff.md" --db "$DB"
grep -q "different models" "$T/out" && grep -q "^## Unmatched layers" "$T/diff.md" && ok || bad "different models listed"
finish
