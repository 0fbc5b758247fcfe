#!/usr/bin/python3
"""tests/reports/check_trace.py TRACE DB RUN_ID — checks a `report -f trace` file
against the trace-event rules Perfetto and chrome://tracing apply, and against the
run's rows read with Python's sqlite3:
  * a JSON object with a "traceEvents" list; every event has ph, pid, name; "X"
    events have numeric ts >= 0, dur >= 0 and tid; "C" events numeric args; "M"
    events args.name;
  * complete events on one track (pid, tid) never overlap;
  * one event per layer with a time on the tracks of the cores its workload uses,
    (the CPU track for CPU layers); durations are the predicted frame shares, or
    the measured table times of a board run; the timeline ends at their sum;
  * a prediction's own level-4 rows (npu_rows: Input/OutputOperator, conversions)
    as events with layer null and their table_id, so that the timeline of a
    prediction ends at its predicted frame;
  * a counter per stored load sample; a DDR traffic counter."""
import json, math, sqlite3, sys

path, db, run_id = sys.argv[1], sys.argv[2], int(sys.argv[3])
doc = json.load(open(path))
assert isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list), "no traceEvents list"
ev = doc["traceEvents"]
tracks = {}
names = {}
for e in ev:
    assert isinstance(e, dict) and "ph" in e and "pid" in e and "name" in e, e
    if e["ph"] == "X":
        for k in ("ts", "dur", "tid"):
            assert k in e, (k, e)
        assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
        assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0, e
        tracks.setdefault((e["pid"], e["tid"]), []).append(e)
    elif e["ph"] == "C":
        assert isinstance(e["ts"], (int, float)) and e["args"], e
        assert all(isinstance(v, (int, float)) for v in e["args"].values()), e
    elif e["ph"] == "M":
        assert e["args"]["name"], e
        if e["name"] == "thread_name":
            names[e["tid"]] = e["args"]["name"]
    else:
        raise AssertionError("unexpected ph %r" % e["ph"])
for key, xs in tracks.items():
    xs.sort(key=lambda e: e["ts"])
    for a, b in zip(xs, xs[1:]):
        assert a["ts"] + a["dur"] <= b["ts"] + 1e-9, ("overlap on", key, a["name"], b["name"])
    assert key[1] in names, ("track without a name", key)

con = sqlite3.connect(db)
backend, = con.execute("select backend from runs where id=?", (run_id,)).fetchone()
board = backend == "board"
rows = con.execute("select idx, target, bound, workload, time_us, frame_us from layers "
                   "where run_id=? order by idx", (run_id,)).fetchall()
want = []
for idx, target, bound, workload, time_us, frame_us in rows:
    t = time_us if board and time_us is not None else frame_us if frame_us is not None else time_us
    if t is None:
        continue
    cpu = target == "CPU" or bound == "CPU"
    if cpu:
        cores = ["CPU"]
    elif workload:
        cores = ["NPU core %d" % i for i, p in enumerate(workload.split("/")) if float(p.rstrip("%")) > 0]
    else:
        cores = ["NPU core 0"]
    for c in cores:
        want.append((("layer", idx), c, t))
# a prediction's own level-4 rows (Input/OutputOperator, conversions): events
# with layer null, named by their table ID, on the CPU track or core 0
for rid, target, time_us, frame_us in con.execute(
        "select id, target, time_us, frame_us from npu_rows where run_id=? and skip=0", (run_id,)):
    t = time_us if board else frame_us  # the figure the layers are timed by
    if t is not None:
        want.append((("npu", rid), "CPU" if target == "CPU" else "NPU core 0", t))
def key(e):
    a = e["args"]
    return ("layer", a["layer"]) if a["layer"] is not None else ("npu", a["table_id"])
got = sorted((key(e), names[e["tid"]], e["dur"]) for xs in tracks.values() for e in xs)
assert len(got) == len(want), (len(got), len(want))
for (gi, gc, gd), (wi, wc, wd) in zip(got, sorted(want)):
    assert gi == wi and gc == wc, ((gi, gc), (wi, wc))
    assert abs(gd - wd) <= 2e-3, (gi, gd, wd)  # timestamps are rounded to 1 ns
end = max(e["ts"] + e["dur"] for xs in tracks.values() for e in xs)
total = sum(t for _, t in {(i, t) for i, _, t in want})
assert abs(end - total) <= 2e-3, (end, total)
# a prediction whose rows cover its frame: the timeline ends at the frame
npu_us, = con.execute("select npu_us from runs where id=?", (run_id,)).fetchone()
n_npu, = con.execute("select count(*) from npu_rows where run_id=? and frame_us is not null", (run_id,)).fetchone()
if not board and npu_us is not None and n_npu:
    assert abs(end - npu_us) <= 2e-3 * len(want), (end, npu_us)
n_load, = con.execute("select count(*) from load_samples where run_id=? and t_us is not null "
                      "and load_pct is not null", (run_id,)).fetchone()
if not n_load:  # a prediction's load, stored once (npu_load), reads as one sample per core
    n_load, = con.execute("select count(*) from npu_load where run_id=?", (run_id,)).fetchone()
counters = [e for e in ev if e["ph"] == "C"]
assert sum(1 for e in counters if "(sampled)" in e["name"]) == n_load, n_load
assert any(e["name"].startswith("DDR traffic") for e in counters)
print("trace ok: %d events, %d tracks, %d load samples, frame %.3f us" % (len(ev), len(tracks), n_load, end))
