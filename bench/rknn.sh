#!/bin/bash
# bench/rknn.sh [BUILD_DIR] — vendor .rknn files: `rknn-trace inspect` of the
# largest sample in $RT_SHARED/data/models/rknn (target <= 50 ms) and
# `rknn-trace run FILE.rknn` (predicted profile, recorded in a database) of
# a synthetic 300-layer file written by bench/make_rknn.py (target <= 200 ms),
# also as an RV1103/RV1106 file. Each command runs 11 times; printed:
# median and best wall time of the whole process (start included: see the
# --version line: library loading; OpenBLAS is loaded by the first matrix
# product, not at start) and its CPU time. The target
# is judged on the best wall time (the cost when CPUs and disk are not shared
# with other jobs; the median on a loaded machine is mostly waiting for
# fdatasync and a CPU). The in-process read is timed by tests/tools/bench_rknn.
# Exit 1 when a target is missed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-build}}
[ -d "$BUILD" ] || [ "${BUILD#/}" != "$BUILD" ] || BUILD=$ROOT/$BUILD
RT=$BUILD/rknn-trace
SHARED=${RT_SHARED:-$ROOT/../shared}
[ -x "$RT" ] || { echo "bench rknn: $RT not built (make)" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
BIG=$(ls -S "$SHARED"/data/models/rknn/*.rknn 2>/dev/null | head -1)
[ -n "$BIG" ] || { echo "bench rknn: no .rknn sample under $SHARED/data/models/rknn" >&2; exit 2; }
python3 "$ROOT/bench/make_rknn.py" "$T/syn300.rknn" 300 rk3588 || exit 2
python3 "$ROOT/bench/make_rknn.py" "$T/lite300.rknn" 300 rv1106 lite || exit 2
python3 - "$RT" "$BIG" "$T" <<'PYEND'
import os, resource, statistics, subprocess, sys, time
rt, big, tmp = sys.argv[1:4]
def measure(args):
    """median and best wall ms, median CPU ms (user+sys) over 11 runs"""
    wall, cpu = [], []
    for i in range(11):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        r = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall.append((time.perf_counter() - t0) * 1e3)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3)
        if r.returncode:
            sys.exit(f"bench rknn: {' '.join(args)} failed: {r.stderr.decode()}")
    return statistics.median(wall), min(wall), statistics.median(cpu)
start = measure([rt, "--version"])
dec = subprocess.run([os.path.join(os.path.dirname(rt), "tests", "bench_rknn"), big],
                     capture_output=True, text=True)
if dec.returncode:
    sys.exit(f"bench rknn: bench_rknn failed: {dec.stderr}")
decode_ms = float(dec.stdout.split()[1])
print(f"process start of rknn-trace (--version): median {start[0]:.1f} ms, best {start[1]:.1f} ms, "
      f"CPU {start[2]:.1f} ms (library loading)")
print(f"in-process read of {os.path.basename(big)} (tests/tools/bench_rknn): {decode_ms:.2f} ms")
rows = [("inspect " + os.path.basename(big), [rt, "inspect", big], 50),
        ("inspect --json " + os.path.basename(big), [rt, "inspect", "--json", big], 50),
        ("run syn300.rknn (302 layers, stored)", [rt, "run", f"{tmp}/syn300.rknn", "--db", f"{tmp}/b.db"], 200),
        ("run syn300.rknn --npu-table --no-db", [rt, "run", f"{tmp}/syn300.rknn", "--npu-table", "--no-db"], 200),
        ("run lite300.rknn (RV1106, stored)", [rt, "run", f"{tmp}/lite300.rknn", "--db", f"{tmp}/b.db"], 200)]
bad = 0
print(f"{'command (whole process)':40s} {'median ms':>10s} {'best ms':>8s} {'CPU ms':>7s} {'target':>8s}")
for what, args, target in rows:
    med, best, cpu = measure(args)
    ok = best <= target and decode_ms <= 50
    bad += not ok
    print(f"{what:40s} {med:10.1f} {best:8.1f} {cpu:7.1f} {'<= %d' % target:>8s} {'ok' if ok else 'MISSED'}")
sys.exit(1 if bad else 0)
PYEND
