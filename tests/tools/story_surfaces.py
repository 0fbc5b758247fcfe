#!/usr/bin/env python3
"""tests/tools/story_surfaces.py T SPECS — one story per run, checked on every surface.

T holds, per RUN (a label, or an id), what each surface printed: RUN.run (run's
text), RUN.rjson (run --json), RUN.show, RUN.sjson (show --json), RUN.md,
RUN.html, RUN.csv, RUN.json (report -f md/html/csv/json), RUN.npu (show
--npu-table, where the run's platform is known) and RUN.tui
(the TUI's summary view, a tmux capture); T/ls.json and T/tui-runs (the TUI's
runs list) hold every run. A file that is absent is a surface the run does not
have (an import has no run text). SPECS has one line per run:

    RUN FRAME TABLE TIMING

each the tag the figure deserves from its source (predicted, board, host,
simlib, toolkit), "-" for no such figure, "?" for "read from the log: board,
toolkit or none, never predicted/host/simlib". The words of each tag are
written here, not read from the program (docs/json.md's table). Every number
is read independently from each surface's text and compared with show --json's.
Prints one line per disagreement; exit 1 if any."""
import csv
import html
import json
import os
import re
import sys

WORDS = {"predicted": "predicted by the NPU model", "board": "measured on the board",
         "host": "this PC's CPU, not the board",
         "simlib": "this project's simulated librknnrt.so on this PC, not the board",
         "toolkit": "Toolkit2's simulator on a PC, not the board",
         "build": "Toolkit2's compiler while building on a PC: no timing, not the board"}
LOGGED = {"board", "toolkit", "build", None}   # what a log can tell

T, SPECS = sys.argv[1], sys.argv[2]
errs = []
# an imported run's id -> the log it came from (story.sh writes them beside the kinds)
SOURCES = dict(l.split(None, 1) for l in open(T + "/kinds.src").read().splitlines()) \
    if os.path.exists(T + "/kinds.src") else {}


def table_rows(text):
    """The rows of a level-4 table, printed by us or in a runtime's log (its "I RKNN:
    [time]" prefix or none): ID -> (OpType, FullName); a row whose line ends before
    its FullName ("Op:name"; a log cut it) has None."""
    return {int(m.group(1)): (m.group(2), m.group(3) if ":" in m.group(3) else None) for m in
            re.finditer(r"^(?:[IWDE] RKNN: \[[^]]*\] )?(\d+) +(\S+) +\S+ +(?:NPU|CPU) .* (\S+) *$", text, re.M)}


def rd(label, ext):
    p = "%s/%s.%s" % (T, label, ext)
    return open(p, encoding="utf-8").read() if os.path.exists(p) else None


def strip_html(s):
    return html.unescape(re.sub(r"<[^>]+>", "", s))


def ms(us):
    return "n/a" if us is None else "%.3f" % (us / 1e3)


def ms_any(us):
    """The ms texts a surface may print for us: the JSON carries it to 9
    significant digits, so a value within that of a rounding boundary (a
    median of two timings ending in .5 us) may round either way in the
    surfaces, which print the full double."""
    return {ms(us * (1 - 1e-9)), ms(us), ms(us * (1 + 1e-9))}


def check_run(label, want, ls, tui_rows):
    E = []

    def eq(what, a, b):
        if a != b:
            E.append("%s: %s: %r != %r" % (label, what, a, b))

    sj = json.loads(rd(label, "sjson"))
    p = sj["provenance"]
    tags = [p["frame"], p["table"], p["timing"]]
    for k, (w, t) in enumerate(zip(want, tags)):
        what = ("frame", "table", "timing")[k]
        if w == "?":
            eq(what + " tag from a log", t in LOGGED, True)
        else:
            eq(what + " tag", t, None if w == "-" else w)
    line = "; ".join("%s %s" % (k, WORDS[t]) for k, t in zip(("frame", "table", "timing"), tags) if t) or "n/a"
    eq("show --json words", p["words"], line)
    eq("npu.provenance", sj["npu"]["provenance"], tags[0])
    eq("npu.perf_table_provenance", sj["npu"]["perf_table_provenance"], tags[1])
    eq("host.provenance", sj["host"]["provenance"], tags[2])
    if tags[2] is None:
        eq("no timing, no median", sj["host"]["median_us"], None)

    fr, tot, n = sj["npu"]["predicted_us"], sj["npu"]["perf_table_us"], sj["layer_count"]
    fb = sj["npu"]["fallback"]
    # the cost of a CPU layer as every surface prints it, in the words of its source,
    # under its level-4 table ID; fb_rows: those layers' row indices (the csv's idx)
    fb_list = [(r["table_id"], r["op_type"], r["us"]) for r in fb["layers"]]
    fb_rows = [r["layer"] for r in fb["layers"]]
    top_list = [(r["table_id"], r["op_type"], r["full_name"]) for r in sj["npu"]["top"]]
    refs = [(r["table_id"], r["op_type"], r["full_name"]) for r in fb["layers"]] + top_list
    # a run without layer rows whose log kept its ranking table: op types, their CPU time
    # (with layer rows the table is listed, and the layers are the fallback)
    ops = sj["npu"].get("op_ranking") or []
    ops_cpu = [(o["op"], "%.0f" % o["cpu_us"], "%.0f" % o["calls"]) for o in ops
               if o["cpu_us"] and o["op"] not in ("InputOperator", "OutputOperator")]
    eq("fallback op types", fb.get("op_types"), len(ops_cpu) if ops and not n else None)
    fb_words = WORDS.get(fb.get("provenance"))
    # the share is of what the costs are part of: the frame, or the table's total
    whole = "level-4 table total" if sj["npu"]["top_by"] == "time_us" else "frame"
    eq("fallback count", fb["count"], len(fb["layers"]))
    if fb["count"]:
        eq("fallback cost words", fb_words is not None or all(u is None for _, _, u in fb_list), True)
        eq("fallback sum", fb["us"] is None or abs(sum(u or 0 for _, _, u in fb_list) - fb["us"]) < 1e-6 * max(1, fb["us"]), True)

    # ---- the JSON documents: show --json, report -f json, run --json, ls --json
    for ext in ("json", "rjson"):
        t = rd(label, ext)
        if t is None:
            continue
        d = json.loads(t)
        eq(ext + " words", d["provenance"]["words"], line)
        eq(ext + " frame", d["npu"]["predicted_us"], fr)
        eq(ext + " table", d["npu"]["perf_table_us"], tot)
        eq(ext + " layers", d["layer_count"], n)
        eq(ext + " fallback", [(r["table_id"], r["op_type"], r["us"]) for r in d["npu"]["fallback"]["layers"]], fb_list)
        eq(ext + " top", [(r["table_id"], r["op_type"], r["full_name"]) for r in d["npu"]["top"]], top_list)
        eq(ext + " fallback provenance", d["npu"]["fallback"].get("provenance"), fb.get("provenance"))
    eq("ls frame", ls["npu_us"], fr)
    eq("ls layers", ls["layer_count"], n)
    eq("ls tags", [ls["provenance"]["frame"], ls["provenance"]["timing"]], [tags[0], tags[2]])

    # the slowest layers: measured ones are called measured, predicted ones predicted
    title = None
    if sj["npu"]["top"]:
        tp = sj["provenance"]["top"]
        eq("top provenance", tp, tags[1] if sj["npu"]["top_by"] == "time_us" else tags[0])
        title = "lowest %s layers (%s%s)" % ({"board": "measured", "predicted": "predicted"}.get(tp, ""),
                                             "level-4 table time, " if sj["npu"]["top_by"] == "time_us" else "",
                                             WORDS[tp])
        title = title.replace("lowest  layers", "lowest layers")

    # the level-4 table show --npu-table rebuilds: its total line is the summary's total
    npu = rd(label, "npu")
    if npu is not None:
        m = re.search(r"^Total Operator Elapsed Per Frame Time\(us\): (\d+)$", npu, re.M)
        eq("npu-table total", m and int(m.group(1)), None if tot is None else int(round(tot)))
        # a listed layer's ID is its row's in that table: the same OpType and FullName
        table = table_rows(npu)
        eq("listed layers in the level-4 table", [(i, o, f) for i, o, f in refs if table.get(i) != (o, f)], [])
        # every layer row with figures: an ID of its own, a row of its OpType there
        ids = [l["table_id"] for l in sj["layers"] if l["table_id"] is not None]
        eq("layer IDs unique", len(ids), len(set(ids)))
        eq("layer rows of another OpType than their ID's", [
            (l["index"], l["table_id"]) for l in sj["layers"] if l["total_cycles"] is not None and
            (l["table_id"] is None or table.get(l["table_id"], ("",))[0] != (l["npu_op"] or l["op"]))], [])
    # an imported run lists its layers under the IDs its log printed (an excerpt's too)
    if label in SOURCES:
        table = table_rows(open(SOURCES[label], encoding="utf-8", errors="replace").read())
        if table:
            eq("listed layers in the log's table", [(i, o, f) for i, o, f in refs if table.get(i) != (o, f)], [])

    # ---- the summary text: show, run's own text, the TUI's summary view
    def text_checks(what, s):
        m = re.search(r"^figures   (.*)$", s, re.M)
        eq(what + " figures", m and m.group(1).rstrip(), line)
        m = re.search(r"^\s*predicted ([0-9.]+) ms per frame", s, re.M)
        eq(what + " frame", m and m.group(1), None if fr is None else ms(fr))
        if fr is None:
            eq(what + " no frame", re.search(r"^(frame     n/a|predicted n/a)", s, re.M) is not None, True)
        note = ", the sum of the rows the log kept: it printed no total" if sj["npu"]["perf_table_is_sum"] else ""
        m = re.search(r"level-4 table total (\S+) ms \(layer by layer, ([^)]*)\)" + re.escape(note) + "$", s, re.M)
        if tot is None and fr is None:
            eq(what + " no table line", m, None)
        else:
            eq(what + " table", m and m.group(1), ms(tot))
            eq(what + " table words", m and m.group(2), WORDS.get(tags[1] or tags[0]))
        m = re.search(r"^CPU fallback: (\d+) layers?, (\S+)(?: %)? of the " + whole +
                      r" \((?:(\S+) ms, ([^)]*)|n/a)\)", s, re.M)
        if fb.get("op_types"):  # no layer rows: the ranking table's op types, its CPU times
            m = re.search(r"^CPU fallback: (\d+) op types?, (\S+ %) of the level-4 table total "
                          r"\((\S+) ms, (.*); the log's ranking table\)$", s, re.M)
            eq(what + " fallback op types", m and (int(m.group(1)), m.group(3), m.group(4)),
               (fb["op_types"], ms(fb["us"]), fb_words))
            got = re.findall(r"^  (\S+) +(\d+) us on the CPU, (\S+) calls$", s, re.M)
            eq(what + " fallback op rows", got, ops_cpu)
        elif not fb["count"]:
            eq(what + " no fallback", re.search(r"^CPU fallback: none", s, re.M) is not None, True)
        else:
            eq(what + " fallback head", m and (int(m.group(1)), m.group(3), m.group(4)),
               (fb["count"], None if fb["us"] is None else ms(fb["us"]), fb_words))
            got = re.findall(r"^\s+(\d+) (\S+)\s+(\S+) us  ", s.split("CPU fallback:")[1].split("\n\n")[0], re.M)
            eq(what + " fallback rows", [(int(i), o, c) for i, o, c in got],
               [(i, o, "n/a" if u is None else "%.1f" % u) for i, o, u in fb_list])
        if title:
            eq(what + " slowest", re.search(r"^s%s$" % re.escape(title), s, re.M) is not None, True)
            sec = s.split("s" + title + "\n")[-1].split("\n\n")[0].splitlines()[1:]
            got = [(l.split()[0], l.split()[1], l.split()[-1]) for l in sec if l.strip()]
            eq(what + " slowest rows", got, [("-" if i is None else str(i), o, "-" if f is None else f)
                                             for i, o, f in top_list])
        med = sj["host"]["median_us"]
        if med is not None:
            eq(what + " timing words", ("%s: median " % WORDS[tags[2]]) in s, True)
        elif tags[2] is None:  # never a median where nothing was timed
            eq(what + " no median", re.search(r"median [0-9]", s), None)

    text_checks("show", rd(label, "show"))
    run = rd(label, "run")
    if run is not None:
        run = run[run.index("run       #"):]
        text_checks("run", run)
        # a recorded run says what show will say (but its own times)
        # (and its own board line, after the summary)
        strip = lambda s: re.sub(r"^(run       #\d+.*|\s+\d+ timed run.*|.*median [0-9.]+ ms.*|board: .*)$", "", s,
                                 flags=re.M).rstrip()
        eq("run text is show's", strip(run.split("\noutputs")[0]), strip(rd(label, "show").split("\noutputs")[0]))
    tui = rd(label, "tui")
    if tui is not None:
        text_checks("tui", tui)
        # the view is show's text, line for line (up to the window's width)
        sh = [l.rstrip() for l in rd(label, "show").split("\noutputs")[0].splitlines()]
        tl = [l.rstrip() for l in tui.splitlines()]
        i = next((k for k, l in enumerate(tl) if l.startswith("run       #")), None)
        eq("tui is show's text", i is not None and all(a[:98] == b[:98] for a, b in zip(sh, tl[i:i + len(sh)])), True)

    # ---- the reports: md, html (their summary rows and tables), csv
    md = rd(label, "md")
    ht = html.unescape(rd(label, "html"))
    eq("md figures", "| figures | %s |" % line in md, True)
    eq("html figures", "<tr><th>figures</th><td>%s</td></tr>" % line in ht, True)
    tw = "" if not tags[1] else " (%s)%s" % (WORDS[tags[1]], ", the sum of the rows the log kept: it printed no total"
                                             if sj["npu"]["perf_table_is_sum"] else "")
    eq("md table", "| level-4 table total | %s%s |" % ("—" if tot is None else ms(tot) + " ms", tw) in md, True)
    eq("html table", "<tr><th>level-4 table total</th><td>%s%s</td></tr>" % ("—" if tot is None else ms(tot) + " ms", tw) in ht, True)
    if fr is not None:
        eq("md frame", "| predicted frame | %s ms," % ms(fr) in md, True)
        eq("html frame", "<tr><th>predicted frame</th><td>%s ms," % ms(fr) in ht, True)
    if sj["host"]["median_us"] is not None:
        lab = "%s (%s)" % ("host" if tags[2] == "host" else "rknn_run" if tags[2] in ("board", "simlib") else "timing",
                           WORDS[tags[2]])
        alts = ms_any(sj["host"]["median_us"])
        eq("md timing row", any("| %s | median %s ms," % (lab, a) in md for a in alts), True)
        eq("html timing row", any("<tr><th>%s</th><td>median %s ms," % (lab, a) in ht for a in alts), True)
    if title:
        eq("md slowest", "## S%s\n" % title in md, True)
        eq("html slowest", "<h2>S%s</h2>" % title in ht, True)
    # no timed runs: the reports give show's reason, in show's words
    m = re.search(r"^(host|timing) +((?:none|not executed).*)$", rd(label, "show"), re.M)
    if sj["host"]["median_us"] is None and tags[2] is None and sj["backend"] != "sim":
        eq("show: why no timing", m is not None, True)
        if m:
            eq("md: why no timing", "| %s | %s |" % (m.group(1), m.group(2)) in md.replace("\\", ""), True)
            eq("html: why no timing", "<tr><th>%s</th><td>%s</td></tr>" % (m.group(1), m.group(2)) in ht, True)
    if fb["count"]:
        head = "%d layer%s, %s of the %s (%s)" % (
            fb["count"], "s" if fb["count"] > 1 else "", "—" if fb["pct"] is None else "%.1f %%" % fb["pct"], whole,
            "—" if fb["us"] is None else "%s ms, %s" % (ms(fb["us"]), fb_words))
        eq("md fallback head", (head + ".") in md, True)
        eq("html fallback head", "<tr><th>CPU fallback</th><td>%s</td></tr>" % head in ht, True)
        sec = md.split("## CPU fallback")[1].split("\n## ")[0]
        got = [tuple(c.strip() for c in r.strip("|").split("|")) for r in sec.splitlines() if re.match(r"\| \d", r)]
        eq("md fallback rows", [(int(g[0]), g[1].replace("\\", ""), g[3]) for g in got],
           [(i, o, "—" if u is None else "%.1f" % u) for i, o, u in fb_list])
        sec = ht.split('id="fallback"')[1].split("</table>")[0]
        got = [[strip_html(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)] for r in re.findall(r"<tr>(.*?)</tr>", sec, re.S)]
        got = [g for g in got if g]
        eq("html fallback rows", [(int(g[0]), g[1], g[3]) for g in got],
           [(i, o, "—" if u is None else "%.1f" % u) for i, o, u in fb_list])
    elif fb.get("op_types"):
        head = "%d op type%s, %.1f %% of the level-4 table total (%s ms, %s; the log's ranking table)" % (
            fb["op_types"], "s" if fb["op_types"] > 1 else "", fb["pct"], ms(fb["us"]), fb_words)
        eq("md fallback head", (head + ".") in md.replace("\\", ""), True)
        eq("html fallback head", "<tr><th>CPU fallback</th><td>%s</td></tr>" % head in ht, True)
    else:
        eq("md no fallback", "No layer falls back to the CPU." in md, True)
    if ops:  # the op ranking, as the JSON lists it, in show, md and html
        want = [(o["op"], "%.0f" % o["calls"], "%.0f" % o["total_us"]) for o in ops]
        sh = rd(label, "show").split("op ranking")[1].split("\n\n")[0]
        eq("show op ranking", re.findall(r"^  (\S+) +(\d+) +\d+ +\d+ +(\d+) ", sh, re.M), want)
        sec = md.split("## Op ranking")[1].split("\n## ")[0]
        got = [tuple(c.strip() for c in r.strip("|").split("|")) for r in sec.splitlines() if r.startswith("| ") and "---" not in r][1:]
        eq("md op ranking", [(g[0].replace("\\", ""), g[1], g[4]) for g in got], want)
        sec = ht.split('id="ops"')[1].split("</table>")[0]
        got = [[strip_html(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)] for r in re.findall(r"<tr>(.*?)</tr>", sec, re.S)]
        eq("html op ranking", [(g[0], g[1], g[4]) for g in got if g], want)
    rows = list(csv.DictReader(open("%s/%s.csv" % (T, label), newline="", encoding="utf-8")))
    eq("csv layers", len(rows), n)
    eq("csv time provenance", {r["time_provenance"] for r in rows if r["time_us"]} <= {tags[1]}, True)
    eq("csv frame provenance", {r["frame_provenance"] for r in rows if r["frame_us"]} <= {tags[0] or "predicted"}, True)
    col = "time_us" if sj["npu"]["top_by"] == "time_us" else "frame_us"
    byidx = {int(r["idx"]): r for r in rows}
    eq("csv fallback costs", [(i, round(float(byidx[i][col]), 1) if byidx[i][col] else None) for i in fb_rows],
       [(i, None if u is None else round(u, 1)) for i, (_, _, u) in zip(fb_rows, fb_list)])
    eq("csv fallback targets", all(byidx[i]["target"] == "CPU" for i in fb_rows), True)
    eq("csv fallback IDs", [int(byidx[i]["table_id"]) if byidx[i]["table_id"] else None for i in fb_rows],
       [i for i, _, _ in fb_list])

    # ---- the TUI's runs list: the predicted frame and where the timing came from
    if tui_rows is not None:
        r = tui_rows.get(sj["id"])
        eq("tui runs row", r is not None, True)
        if r:
            eq("tui pred", r["pred"], "-" if fr is None else "%.3f" % (fr / 1e3))
            eq("tui from", r["from"], "-" if sj["host"]["median_us"] is None else tags[2])
            med = sj["host"]["median_us"]
            eq("tui meas", r["meas"] in ({"-"} if med is None else ms_any(med)), True)
    return E


def tui_runs():
    """The runs list as captured: id -> its pred ms, meas ms and from cells. The
    numbers are right-aligned under their heading: a cell runs from the end of
    the heading before it to the end of its own ("pred ms"); "from" is text,
    left-aligned under its heading."""
    p = T + "/tui-runs"
    if not os.path.exists(p):
        return None
    lines = open(p, encoding="utf-8").read().splitlines()
    head = next(l for l in lines if "pred ms" in l)
    words = [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"\S+", head)]
    def span(name, numeric):
        k = next(i for i, w in enumerate(words) if w[2] == name)
        if numeric:  # "pred" "ms": from the end of the word before "pred" to the end of "ms"
            return words[k - 1][1], words[k + 1][1]
        return words[k][0], words[k + 1][0] if k + 1 < len(words) else None
    spans = {"pred": span("pred", 1), "meas": span("meas", 1), "from": span("from", 0)}
    out = {}
    for l in lines[lines.index(head) + 1:]:
        f = l.split()
        if not f or not f[0].isdigit():
            continue
        # a text cell before a number may fill its column: the number is the span's last word
        out[int(f[0])] = {k: (l[a:b].split() or [""])[-1 if k != "from" else 0] for k, (a, b) in spans.items()}
    return out


def main():
    ls = {}
    for r in json.load(open(T + "/ls.json")):  # a run goes by its label, or its id
        ls[str(r["id"])] = r
        if r["label"]:
            ls[r["label"]] = r
    tr = tui_runs()
    n = 0
    for spec in open(SPECS):
        if not spec.strip():
            continue
        label, *want = spec.split()
        try:
            errs.extend(check_run(label, want, ls[label], tr))
        except Exception as e:  # a surface that cannot be read is a disagreement too
            errs.append("%s: %s: %r" % (label, type(e).__name__, e))
        n += 1
    for e in errs:
        print(e)
    print("%d runs, %d disagreements" % (n, len(errs)), file=sys.stderr)
    return 1 if errs else 0


sys.exit(main())
