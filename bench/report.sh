#!/bin/bash
# bench/report.sh [BUILD_DIR] — `rknn-trace report` of a 2,000-layer run in every
# format, and of a comparison of two 2,000-layer runs (of different models: 1,800
# layers aligned, the others listed) in every format that compares; target <= 1 s
# each. The runs are synthetic (tests/tools/report_fixture: every field, per-layer
# errors, load samples). Each command runs 5 times; printed: median and best wall
# time of the whole process (start and store reads included) and its CPU time
# (user + sys). The target is judged on the CPU time: the process neither sleeps
# nor syncs, so on an idle machine its wall time is its CPU time, while on a
# machine shared with other jobs the wall time is mostly waiting for a CPU
# (the load average is printed). Exit 1 when a target is missed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-build}}
[ -d "$BUILD" ] || [ "${BUILD#/}" != "$BUILD" ] || BUILD=$ROOT/$BUILD
RT=$BUILD/rknn-trace
FIX=$BUILD/tests/report_fixture
[ -x "$RT" ] && [ -x "$FIX" ] || { echo "bench report: $RT or $FIX not built (make)" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$FIX" "$T/b.db" big 2000 && "$FIX" "$T/b.db" other 2000 --variant || exit 2
python3 - "$RT" "$T" <<'PYEND'
import os, resource, statistics, subprocess, sys, time
rt, tmp = sys.argv[1:3]
def measure(args):
    """median and best wall ms, median CPU ms (user+sys) over 5 runs"""
    wall, cpu = [], []
    for i in range(5):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        r = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall.append((time.perf_counter() - t0) * 1e3)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3)
        if r.returncode:
            sys.exit(f"bench report: {' '.join(args)} failed: {r.stderr.decode()}")
    return statistics.median(wall), min(wall), statistics.median(cpu)
missed = []
print("load average %.1f %.1f %.1f on %d CPUs" % (*os.getloadavg(), os.cpu_count()))
print(f"{'report':<34} {'median ms':>10} {'best ms':>9} {'cpu ms':>8}  target: cpu <= 1000 ms")
for runs in (["big"], ["big", "other"]):
    for fmt in ("md", "html", "csv", "json", "trace", "gnuplot", "png"):
        if fmt == "trace" and len(runs) > 1:
            continue
        out = os.path.join(tmp, "-".join(runs) + "." + fmt)
        med, best, cpu = measure([rt, "report", *runs, "-f", fmt, "-o", out, "--db", os.path.join(tmp, "b.db")])
        name = f"{' '.join(runs)} -f {fmt} (2,000 layers)"
        ok = cpu <= 1000
        print(f"{name:<34} {med:10.0f} {best:9.0f} {cpu:8.0f}  {'ok' if ok else 'MISSED'}")
        if not ok:
            missed.append(name)
if missed:
    sys.exit("bench report: over 1 s: " + ", ".join(missed))
print("every report of a 2,000-layer run within 1 s")
PYEND
