#!/usr/bin/python3
"""tests/compare/check_surfaces.py DIR — one comparison of three runs read back
from every surface that shows it, each with its own parser, and diffed:

  DIR/compare.txt   `compare A B C`            rows "[op] name ...", "verdict: " lines
  DIR/compare.json  `compare A B C --json`     layers[].name, verdicts[].line
  DIR/report.md     `report A B C -f md`       the "Aligned layers" table, the verdict block
  DIR/report.html   `report A B C -f html`     <table id="aligned">, <pre id="verdicts">
  DIR/report.json   `report A B C -f json`     as compare --json
  DIR/tui.txt       the TUI compare view       tmux capture: table rows, verdict lines

Every surface must list the same layers (the same names; the text surfaces in
the same order as the JSON) and the same verdict lines; the layers only some
runs have must be the same in the JSON (in_runs), the Markdown and the HTML
("Unmatched layers"). Exit 1 with the differences."""
import html.parser
import json
import os
import sys

D = sys.argv[1]
errors = []


def read(name):
    with open(os.path.join(D, name), encoding="utf-8") as f:
        return f.read()


def text_surface():
    lines = read("compare.txt").splitlines()
    names = [l.split()[1] for l in lines if l.startswith("[")]
    return names, [l for l in lines if l.startswith("verdict: ")], None


def json_surface(name):
    d = json.loads(read(name))
    assert d["kind"] == "comparison", d["kind"]
    names = [l["name"] for l in d["layers"]]
    unmatched = {l["name"]: ", ".join(l["in_runs"]) for l in d["layers"]
                 if len(l["in_runs"]) != len(d["runs"])}
    return names, [v["line"] for v in d["verdicts"]], unmatched


def md_cells(line):
    """cells of a Markdown table row; '\\|' and '\\x' escapes undone"""
    cells, cur, i = [], "", 1
    while i < len(line):
        c = line[i]
        if c == "\\" and i + 1 < len(line):
            cur += line[i + 1]
            i += 2
            continue
        if c == "|":
            cells.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    return cells


def md_table(lines, heading):
    i = next(k for k, l in enumerate(lines) if l.startswith(heading))
    rows, k = [], i + 1
    while k < len(lines) and not lines[k].startswith("|"):
        k += 1
    k += 2   # header and ruler
    while k < len(lines) and lines[k].startswith("|"):
        rows.append(md_cells(lines[k]))
        k += 1
    return rows


def md_surface():
    lines = read("report.md").splitlines()
    names = [r[0] for r in md_table(lines, "## Aligned layers")]
    unmatched = {r[0]: r[2] for r in md_table(lines, "## Unmatched layers")}
    return names, [l for l in lines if l.startswith("verdict: ")], unmatched


class Html(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.table, self.row, self.cell = {}, None, None, None
        self.pre, self.verdicts, self.h2, self.last_h2 = False, "", False, ""
        self.row_is_header = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.table = a.get("id") or self.last_h2
            self.tables[self.table] = []
        elif tag == "tr" and self.table is not None:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""
        elif tag == "pre" and a.get("id") == "verdicts":
            self.pre = True
        elif tag == "h2":
            self.h2, self.last_h2 = True, ""

    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None
        elif tag == "tr" and self.row is not None:
            if self.table is not None and self.row and not self.row_is_header:
                self.tables[self.table].append(self.row)
            self.row = None
        elif tag in ("td", "th") and self.cell is not None:
            self.row.append(self.cell)
            self.row_is_header = tag == "th"
            self.cell = None
        elif tag == "pre":
            self.pre = False
        elif tag == "h2":
            self.h2 = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
        if self.pre:
            self.verdicts += data
        if self.h2:
            self.last_h2 += data


def html_surface():
    p = Html()
    p.feed(read("report.html"))
    names = [r[0] for r in p.tables["aligned"]]
    um = p.tables.get("unmatched", [])
    return names, [l for l in p.verdicts.splitlines() if l.startswith("verdict: ")], \
        {r[0]: r[2] for r in um}


def tui_surface():
    lines = read("tui.txt").splitlines()
    h = next(k for k, l in enumerate(lines) if l.split()[:2] == ["op", "tensor"])
    x = lines[h].index("tensor")
    names = []
    for l in lines[h + 1:]:
        if l.startswith("verdict: ") or not l.strip():
            break
        names.append(l[x:].split()[0])
    return names, [l.rstrip() for l in lines if l.startswith("verdict: ")], None


surfaces = {
    "compare": text_surface(),
    "compare --json": json_surface("compare.json"),
    "report md": md_surface(),
    "report html": html_surface(),
    "report json": json_surface("report.json"),
    "tui": tui_surface(),
}
ref_names, ref_verdicts, ref_unmatched = surfaces["compare --json"]
if len(ref_verdicts) != 2 or len(set(ref_names)) != len(ref_names):
    errors.append("compare --json: %d verdicts, %d names (%d distinct)"
                  % (len(ref_verdicts), len(ref_names), len(set(ref_names))))
for what, (names, verdicts, unmatched) in surfaces.items():
    if what == "tui":
        # sorted by regression, not in document order: the same set
        if sorted(names) != sorted(ref_names):
            errors.append("%s: layers differ: only there %s, missing %s" % (
                what, sorted(set(names) - set(ref_names)), sorted(set(ref_names) - set(names))))
    elif names != ref_names:
        errors.append("%s: layers differ from compare --json: %s vs %s" % (what, names, ref_names))
    if verdicts != ref_verdicts:
        errors.append("%s: verdicts differ:\n  %s\nvs\n  %s" % (what, "\n  ".join(verdicts),
                                                             "\n  ".join(ref_verdicts)))
    if unmatched is not None and unmatched != ref_unmatched:
        errors.append("%s: unmatched layers differ: %s vs %s" % (what, unmatched, ref_unmatched))
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("%d layers (%d in some runs only), %d verdicts alike on %d surfaces"
      % (len(ref_names), len(ref_unmatched), len(ref_verdicts), len(surfaces)))
