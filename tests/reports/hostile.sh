#!/usr/bin/env bash
# tests/reports/hostile.sh [BUILD] — the same hostile names through every
# output (util/escape.h): a model whose node and tensor names hold backquotes,
# $(...), quotes, spreadsheet formulas, markup, a newline and terminal escapes
# (make_hostile.py), runs labelled likewise, a tag, an imported level-4 table
# with such FullNames, an export imported and merged elsewhere. Each output
# is read by what reads it for real:
#   gnuplot  runs every script in its folder: exit 0, no file made by a
#            backquoted `touch`; every .dat row has its columns
#   CSV      Python's csv: no text cell starting = + - @ tab CR unprefixed,
#            the names read back (one leading ' stripped) as sqlite3 holds them
#   HTML     Python's html.parser: only the report's own elements, one script
#   Markdown one-line heading, table lines within 120 columns, python3-markdown
#            renders no injected element
#   JSON     parses, the label and names exactly as given
#   terminal ls, show, compare, report, import, merge, tag, label, rm and
#            an error message: no control byte, no C1, only UTF-8; the TUI
#            (tmux) shows a run's label visibly on its one line
source "$(dirname "$0")/../quant/harness.sh" "$@"
DB=$T/h.db
DB2=$T/h2.db
export DB DB2 T
$PY tests/reports/make_hostile.py "$T" || { bad "make_hostile.py"; finish; exit; }

L1=$(printf 'L`touch SENT_label`$(touch SENT_l2)\x1b[2J\x07=1+2|<b>x</b>\nnext')
L2=$(printf '=q`touch SENT_q`\x1b]0;title\x07-i8')
L3=$(printf '@b`touch SENT_b`\x1b[2J')
L4=$(printf '+n\x1b[31m<i>')
export L1 L2 L3 L4
n=0
term() { # description, command...: stdout and stderr kept for the control-byte check
    local what=$1; shift
    n=$((n + 1))
    "$@" >"$T/term$n.out" 2>"$T/term$n.err"
    echo "$what" >"$T/term$n.what"
}

# --- runs, a tag, an imported table, export / import / merge --------------------
term "run" "$R" run "$T/hostile.onnx" --db "$DB" --label "$L1" -n 1
expect_rc 0 "run i8" "$R" run "$T/hostile.onnx" --db "$DB" --label "$L2" -q i8 -n 1
term "tag" "$R" tag 1 '=1+2@x' --db "$DB"
term "import perf.txt" "$R" import "$T/perf.txt" --db "$DB" --label "$L3"
"$R" ls --db "$DB" --json >"$T/ls.json" 2>/dev/null
$PY -c 'import json,os,sys; r=json.load(open(sys.argv[1])); sys.exit(sorted(x["label"] for x in r) != sorted([os.environ["L1"], os.environ["L2"], os.environ["L3"]]))' "$T/ls.json" \
    && ok || bad "three runs with their labels: $(cat "$T/ls.json" | head -c 300)"
expect_rc 0 "export" "$R" export --all -o "$T/e.json" --db "$DB"
# elsewhere the first label is taken: the import gives it a suffix, one line
expect_rc 0 "run elsewhere" "$R" run "$T/hostile.onnx" --db "$DB2" --label "$L1" -n 1
term "import export" "$R" import "$T/e.json" --db "$DB2"
grep -q ', 1 relabelled$' "$T/term$n.out" && ok || bad "import relabels: $(cat "$T/term$n.out")"
term "merge" "$R" merge "$DB" --db "$DB2"
grep -q ': 0 runs added, 3 already here' "$T/term$n.out" && ok || bad "merge skips: $(cat "$T/term$n.out")"

# --- terminal surfaces ------------------------------------------------------------
term "ls" "$R" ls --db "$DB"
term "ls merged" "$R" ls --db "$DB2"
term "show 1" "$R" show 1 --db "$DB"
grep -qF 'L`touch SENT_label`$(touch SENT_l2)\x1b[2J\x07=1+2|<b>x</b>\x0anext' "$T/term$n.out" \
    && ok || bad "show 1 names the label visibly: $(head -1 "$T/term$n.out")"
term "show 2" "$R" show 2 --db "$DB"
term "show 3" "$R" show 3 --db "$DB"
term "show 1 --npu-table" "$R" show 1 --npu-table --db "$DB"
term "show 3 --npu-table" "$R" show 3 --npu-table --db "$DB"
# an imported error log: its lines in show's log block and in the reports' (run 4)
term "import err.txt" "$R" import "$T/err.txt" --db "$DB"
term "show 4" "$R" show 4 --db "$DB"
SHOW4=$n
term "compare" "$R" compare 1 2 --db "$DB"
term "report md verdict" "$R" report 1 2 -f md -o "$T/cmp.md" --db "$DB"
grep -q '^verdict: B #2 ' "$T/term$n.out" && ok || bad "verdict line: $(cat "$T/term$n.out")"
term "unknown run" "$R" show "$L4" --db "$DB"
term "label" "$R" label 2 "$L4" --db "$DB"
term "rm" "$R" rm 4 -y --db "$DB2"
$PY - "$T" "$n" <<'PYEOF' && ok || bad "terminal output holds raw control bytes"
import sys, unicodedata
T, n = sys.argv[1], int(sys.argv[2])
bad = []
for i in range(1, n + 1):
    what = open("%s/term%d.what" % (T, i)).read().strip()
    for ext in ("out", "err"):
        raw = open("%s/term%d.%s" % (T, i, ext), "rb").read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            bad.append((what, ext, "not UTF-8", str(e)))
            continue
        for j, c in enumerate(text):
            o = ord(c)
            if (o < 0x20 and c not in "\n\t") or 0x7f <= o <= 0x9f or c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069":
                bad.append((what, ext, hex(o), text[max(0, j - 30):j + 10]))
                break
for b in bad:
    print("  ", b)
sys.exit(1 if bad else 0)
PYEOF
[ "$n" -ge 17 ] && ok || bad "only $n terminal outputs checked"
grep -qF '+n\x1b[31m<i>' "$T/term$((n - 2)).err" && ok \
    || bad "error message shows the label visibly: $(cat "$T/term$((n - 2)).err")"

# the TUI (under a private tmux server): the run's heading shows the label on
# its one line, in the terminal's escapes
if command -v tmux >/dev/null; then
    SOCK=rt-hostile-$$
    tmux -L "$SOCK" -f /dev/null new-session -d -s h -x 200 -y 20 \
        "env LANG=C.UTF-8 TERM=xterm-256color $(cd "$(dirname "$R")" && pwd)/rknn-trace tui --db $DB 1; sleep 30"
    want='run #1 L`touch SENT_label`$(touch SENT_l2)\x1b[2J\x07=1+2|<b>x</b>\x0anext  '
    for _ in $(seq 100); do
        tmux -L "$SOCK" capture-pane -p -t h >"$T/screen"
        grep -qF -- "$want" "$T/screen" && break
        sleep 0.05
    done
    tmux -L "$SOCK" kill-server 2>/dev/null
    grep -qF -- "$want" "$T/screen" && ok || { bad "tui heading"; head -3 "$T/screen"; }
else
    bad "tmux not installed: the TUI is not checked"
fi

# --- the reports ------------------------------------------------------------------
for r in 1 2 3 4 "1 2"; do
    tag=${r// /_}
    for f in md html csv json; do
        "$R" report $r -f $f -o "$T/r$tag.$f" --db "$DB" >/dev/null 2>"$T/err" && ok || bad "report $r -f $f: $(cat "$T/err")"
    done
    for f in gnuplot png; do
        "$R" report $r -f $f -o "$T/$f$tag" --db "$DB" >/dev/null 2>"$T/err" && ok || bad "report $r -f $f: $(cat "$T/err")"
    done
done

# gnuplot: every script in its folder, as the report tells the user
for d in "$T"/gnuplot*; do
    for g in "$d"/*.gp; do
        (cd "$d" && gnuplot "$(basename "$g")") >/dev/null 2>"$T/gperr" && ok || bad "gnuplot $g: $(tail -2 "$T/gperr")"
    done
    ls "$d"/layers*.png >/dev/null 2>&1 && ok || bad "gnuplot drew no layers png in $d"
done
found=$(find "$T" -name 'SENT*'; find . -maxdepth 1 -name 'SENT*')
[ -z "$found" ] && ok || bad "a backquoted command ran: $found"
cat "$T"/gnuplot*/*.gp | grep -v '^#' | grep -q '[`@]' && bad "a backquote or @ in a gnuplot command" || ok
$PY - "$T" <<'PYEOF' && ok || bad "gnuplot data files"
import glob, sqlite3, os, sys
T = sys.argv[1]
con = sqlite3.connect(os.environ["DB"])
for f in glob.glob(T + "/gnuplot*/layers*.dat"):
    rows = [l.split() for l in open(f, encoding="utf-8") if not l.startswith("#")]
    # run 4, an imported error log, has no layer rows
    assert (rows or f.endswith("gnuplot4/layers.dat")) and all(len(r) == 7 for r in rows), \
        (f, [r for r in rows if len(r) != 7][:3])
# run 1's names, one field each, in its order, by the documented rule
def field(n):
    hidden = lambda o: o < 0x20 or 0x7f <= o <= 0x9f or o in (0x61c, 0x200e, 0x200f, 0x2028, 0x2029) \
        or 0x202a <= o <= 0x202e or 0x2066 <= o <= 0x2069
    return "".join("_" if c <= " " or c in "#\"'`@\\?" or hidden(ord(c)) else c for c in n) or "_"
rows = [l.split() for l in open(T + "/gnuplot1/layers.dat", encoding="utf-8") if not l.startswith("#")]
names = [n for (n,) in con.execute("select name from layers where run_id=1 order by idx")]
assert [r[6] for r in rows] == [field(n) for n in names], ([r[6] for r in rows], names)
PYEOF
# gnuplot itself reads one record per layer from that file
recs=$(cd "$T/gnuplot1" && gnuplot -e 'stats "layers.dat" using 1 nooutput; print STATS_records' 2>&1 | tail -1)
want=$(sqlite3 "$DB" "select count(*) from layers where run_id=1")
[ "$recs" = "$want" ] && ok || bad "gnuplot reads $recs records of layers.dat, want $want"

# CSV: no formula, names read back
$PY - "$T" <<'PYEOF' && ok || bad "csv"
import csv, glob, json, os, sqlite3, sys
T = sys.argv[1]
con = sqlite3.connect(os.environ["DB"])
def unprefix(c):
    return c[1:] if c.startswith("'") else c
for f in glob.glob(T + "/r*.csv"):
    rows = list(csv.reader(open(f, newline="", encoding="utf-8")))
    for row in rows:
        for c in row:
            if c[:1] in ("=", "+", "-", "@", "\t", "\r"):
                float(c)   # only a number may start so
    head = rows[0]
    if "node" in head:
        run = int(os.path.basename(f)[1:-4])
        got = [(unprefix(r[head.index("node")]), unprefix(r[head.index("name")]), unprefix(r[head.index("op")]))
               for r in rows[1:]]
        want = [tuple("" if v is None else v for v in w) for w in
                con.execute("select node, name, op from layers where run_id=? order by idx", (run,))]
        assert got == want, (f, got[:3], want[:3])
    else:
        got = {unprefix(r[0]) for r in rows[1:]}
        want = {n for (n,) in con.execute("select name from layers where run_id in (1, 2)")}
        assert want <= got, (f, want - got)
text = open(T + "/r1.csv", encoding="utf-8").read()
assert ",'=cmd|' /C calc'!A0," in text and ",'@SUM(A1)," in text, "the prefixed names"
PYEOF

# HTML: the report's own elements only
$PY - "$T" <<'PYEOF' && ok || bad "html"
import glob, sys
from html.parser import HTMLParser
T = sys.argv[1]
own = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "table", "thead", "tbody", "tr", "th",
       "td", "input", "svg", "text", "line", "rect", "polyline", "div", "span", "pre", "script"}
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text, self.in_title, self.title = [], [], 0, ""
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.in_title += tag == "title"
        for k, v in attrs:
            assert not k.startswith("on"), (tag, k, v)
    def handle_endtag(self, tag):
        self.in_title -= tag == "title"
    def handle_data(self, d):
        self.text.append(d)
        if self.in_title:
            self.title += d
for f in glob.glob(T + "/r*.html"):
    p = P()
    p.feed(open(f, encoding="utf-8").read())
    assert set(p.tags) <= own, (f, set(p.tags) - own)
    assert p.tags.count("script") == 1, (f, p.tags.count("script"))
    assert "\n" not in p.title, (f, p.title)
    if "r1." in f:
        body = "".join(p.text)
        assert "<script>alert(1)</script>|p" in body and "<b>x</b>" in body, "names shown as text"
PYEOF

# Markdown: a one-line heading, nothing injected when rendered
$PY - "$T" <<'PYEOF' && ok || bad "markdown"
import glob, sys, markdown
from html.parser import HTMLParser
T = sys.argv[1]
own = {"h1", "h2", "p", "table", "thead", "tbody", "tr", "th", "td", "strong", "pre", "code"}
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
for f in glob.glob(T + "/r*.md") + [T + "/cmp.md"]:
    text = open(f, encoding="utf-8").read()
    lines = text.split("\n")
    assert lines[0].startswith("# rknn-trace ") and lines[1] == "", (f, lines[:2])
    assert all(len(l) <= 120 for l in lines if l.startswith("|")), (f, max(map(len, lines)))
    assert not any(ord(c) < 0x20 and c != "\n" or 0x7f <= ord(c) <= 0x9f for c in text), f
    p = P()
    p.feed(markdown.markdown(text, extensions=["tables"]))
    assert set(p.tags) <= own, (f, set(p.tags) - own)
head = open(T + "/r1.md", encoding="utf-8").read().split("\n")[0]
assert head == r"# rknn-trace run \#1 L\`touch SENT_label\`$(touch SENT_l2)\x1b\[2J\x07=1+2\|\<b\>x\</b\> next", head
PYEOF
# the log block: the same lines in show, the Markdown fence and the HTML <pre>,
# each error line of err.txt whole in each
$PY - "$T" "$T/term$SHOW4.out" <<'PYEOF' && ok || bad "the log block differs between show, md and html"
import html, re, sys
from html.parser import HTMLParser
T, show = sys.argv[1], open(sys.argv[2], encoding="utf-8").read()
errs = [l.rstrip("\n") for l in open(T + "/err.txt", encoding="utf-8") if l.startswith("E RKNN")]
blk = show[show.index("\nstatus "):].strip("\n").split("\n")
md = open(T + "/r4.md", encoding="utf-8").read()
m = re.search(r"## The log\n\n((?:(?:    .*)?\n)+)", md)
assert m, "an indented code block after the heading"
mdlines = [l[4:] for l in m.group(1).split("\n")]
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.on, self.text = False, ""
    def handle_starttag(self, tag, attrs):
        self.on = self.on or (tag == "pre" and ("id", "log") in attrs)
    def handle_endtag(self, tag):
        self.on = self.on and tag != "pre"
    def handle_data(self, d):
        if self.on:
            self.text += d
p = P()
p.feed(open(T + "/r4.html", encoding="utf-8").read())
for name, lines in (("md", mdlines), ("html", p.text.strip("\n").split("\n"))):
    got = [l for l in lines if l]
    assert got[-len(blk):] == [l for l in blk if l], (name, got, blk)
    for e in errs:
        assert "  " + e in got, (name, e)
PYEOF

# JSON: the exact names
$PY - "$T" <<'PYEOF' && ok || bad "json"
import json, os, sys
T = sys.argv[1]
names = json.load(open(T + "/names.json"))
d = json.load(open(T + "/r1.json", encoding="utf-8"))
assert d["label"] == os.environ["L1"], d["label"]
assert [l["node"] for l in d["layers"]] == names["nodes"], [l["node"] for l in d["layers"]]
assert [l["name"] for l in d["layers"]] == names["tensors"], [l["name"] for l in d["layers"]]
full = json.load(open(T + "/fullnames.json"))
d3 = json.load(open(T + "/r3.json", encoding="utf-8"))
got = [l["op"] + ":" + l["node"] for l in d3["layers"]][:len(full)]
assert got == full and d3["label"] == os.environ["L3"], (got, d3["label"])
for f in ("r2.json", "r1_2.json"):
    json.load(open(T + "/" + f, encoding="utf-8"))
PYEOF
# the export read back elsewhere keeps every byte of the labels
$PY -c '
import os, sqlite3, sys
a = sorted(r for (r,) in sqlite3.connect(os.environ["DB2"]).execute("select label from runs"))
assert a == sorted([os.environ["L1"], os.environ["L1"] + "-2", os.environ["L2"]]), a
' && ok || bad "labels through export, import and merge"
finish
