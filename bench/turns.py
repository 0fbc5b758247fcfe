#!/usr/bin/python3
"""bench/turns.py RAW MODEL THREADS ROUNDS GAP_MS -- TOOL CMD... [-- TOOL CMD...]...

Runs several runtimes on one model in turns (bench/run.sh). Each CMD is a bench
program started with --serve: it loads the model, warms up, then for every line on
its stdin runs untimed frames for 5 ms and a batch of timed frames and prints
their JSON line. All of them are started at once; a first turn each, not recorded,
waits for their loading and warm-up. Then ROUNDS rounds give every runtime one
turn, in an order that rotates from round to round. After each turn the driver
waits until the program that had it is idle (its threads used under a tenth of a
GAP_MS window, checked up to a second): onnxruntime's worker threads spin for
about 45 ms after a run, and that spinning would otherwise take a core from the
next runtime's turn at 2 threads. A change of load on this shared machine, which
lasts a second or so, falls on every runtime alike, not on the one whose whole
batch it happened to meet.

Appends one line per recorded turn to RAW, as bench/run.sh reads it:
{"model", "threads", "tool", "res": the program's JSON line or {"error": ...}}.
A runtime that fails gets one error line and no more turns; stderr of TOOL goes to
RAW's folder as TOOL.err.
"""
import json
import os
import subprocess
import sys
import time


def split_tools(argv):
    groups, cur = [], None
    for a in argv:
        if a == "--":
            cur = []
            groups.append(cur)
        elif cur is not None:
            cur.append(a)
    return [(g[0], g[1:]) for g in groups if len(g) > 1]


def cpu_ns(pid):
    """CPU time of every thread of pid so far (ns), from schedstat."""
    total = 0
    try:
        for t in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
                total += int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    return total


def rest(pid, gap):
    """Waits until pid's threads stay (nearly) idle for a window of gap s."""
    end = time.monotonic() + 1.0
    while True:
        a = cpu_ns(pid)
        time.sleep(gap)
        if cpu_ns(pid) - a < gap * 1e8 or time.monotonic() > end:
            return


def last_line(path):
    try:
        with open(path, errors="replace") as f:
            lines = [l.strip() for l in f if l.strip()]
        return lines[-1][:160] if lines else ""
    except OSError:
        return ""


def main():
    if len(sys.argv) < 7 or "--" not in sys.argv:
        sys.exit(__doc__.splitlines()[0])
    raw, model, threads, rounds, gap_ms = sys.argv[1:6]
    threads, rounds, gap = int(threads), int(rounds), float(gap_ms) / 1000
    tools = split_tools(sys.argv[6:])
    folder = os.path.dirname(os.path.abspath(raw))
    procs, errs = {}, {}
    for name, cmd in tools:
        errs[name] = os.path.join(folder, name + ".err")
        procs[name] = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=open(errs[name], "w"), text=True, bufsize=1)
    failed = {}

    def turn(name):
        p = procs[name]
        try:
            p.stdin.write("\n")
            p.stdin.flush()
            line = p.stdout.readline()
            res = json.loads(line)
        except (OSError, ValueError):
            res = None
        if not isinstance(res, dict):
            p.kill()
            failed[name] = "%s failed: %s" % (name, last_line(errs[name]) or "no output")
            return None
        return res

    with open(raw, "a") as out:
        def record(name, res):
            out.write(json.dumps({"model": model, "threads": threads, "tool": name,
                                  "res": res}) + "\n")

        for name, _ in tools:
            turn(name)
            rest(procs[name].pid, gap)
        for r in range(rounds):
            for k in range(len(tools)):
                name = tools[(k + r) % len(tools)][0]
                if name in failed:
                    continue
                res = turn(name)
                if res is not None:
                    record(name, res)
                rest(procs[name].pid, gap)
        for name, msg in failed.items():
            record(name, {"error": msg})
    for p in procs.values():
        try:
            p.stdin.close()  # the end of input ends the program
        except OSError:
            pass
        p.wait()
        p.stdout.close()


if __name__ == "__main__":
    main()
