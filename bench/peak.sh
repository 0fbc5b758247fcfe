#!/bin/bash
# bench/peak.sh [BUILD_DIR] — this machine's fp32 peak and each conv-heavy
# bundled model's share of it.
#
# 1. tests/tools/bench_fma: independent FMA chains in the widest vector ISA,
#    1 and 2 threads; the peak used below is its GFLOP per CPU-second of a
#    thread times the threads (what the cores do while they run, so that other
#    jobs on the machine do not lower the peak).
# 2. per model of tests/e2e/models.txt with convolutions (all but mnist): its
#    FLOPs (2 per multiply-add of Conv, ConvTranspose, MatMul and Gemm layers,
#    from the shapes of `rknn-trace run --json`; yolox_nano gives 1.01 GFLOP)
#    over the best frame of `run` (fp32, BENCH_RUNS frames, default 10, or
#    as many as last a second), at 1 and 2 threads; and over the CPU seconds a
#    frame takes (the difference of an N+2 and a 2 frame run), the share of one
#    core's peak — the measure a
#    machine loaded by other jobs does not distort much (the wall time is
#    mostly waiting there). Prints a markdown table.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-build}}
[ -d "$BUILD" ] || BUILD=$ROOT/$BUILD
R=$BUILD/rknn-trace
FMA=$BUILD/tests/bench_fma
RUNS=${BENCH_RUNS:-10}
for x in "$R" "$FMA"; do
    [ -x "$x" ] || { echo "peak: $x not built (make)" >&2; exit 2; }
done
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$FMA" 2 5 | tee "$T/fma"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo

/usr/bin/python3 - "$T" "$R" "$ROOT" "$RUNS" <<'EOF'
import json, os, re, resource, subprocess, sys
T, R, ROOT, RUNS = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def run(path, shapes, th, n):
    """run's JSON and the CPU seconds the process used"""
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([R, "run", path, *shapes, "--threads", str(th), "-n", str(n),
                          "--no-db", "--json", "--no-progress"],
                         capture_output=True, text=True)
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode:
        raise RuntimeError(out.stderr.strip().splitlines()[0] if out.stderr else "failed")
    return json.loads(out.stdout), (c1.ru_utime + c1.ru_stime) - (c0.ru_utime + c0.ru_stime)
fma = open(os.path.join(T, "fma")).read()
per_cpu = {int(m.group(1)): float(m.group(2)) for m in
           re.finditer(r"threads (\d+): .*?; ([\d.]+) GFLOP/s per CPU-second", fma)}
peak = {t: per_cpu[t] * t for t in per_cpu}
per_cpu_1 = per_cpu[1]

def flops(layers):
    f = 0
    for l in layers:
        op, ins, outs = l["op"], l.get("in_shapes") or [], l.get("out_shapes") or []
        if not outs or not outs[0]:
            continue
        out = 1
        for d in outs[0]:
            out *= max(d, 0)
        if op in ("Conv", "ConvTranspose") and len(ins) > 1 and len(ins[1]) >= 3:
            w = ins[1]
            k = 1
            for d in w[2:]:
                k *= d
            if op == "Conv":
                f += 2 * out * w[1] * k          # w[1] = IC / group
            else:
                inp = 1
                for d in ins[0]:
                    inp *= d
                f += 2 * inp * w[1] * k          # per input element: OC/group * k
        elif op in ("MatMul", "Gemm") and ins and ins[0]:
            f += 2 * out * ins[0][-1]
    return f

# CPU per frame: the CPU seconds of an N+2 frame run minus those of a 2 frame
# run, over N (load, warm-up and start cancel out). N is RUNS, or more frames
# for small models: the kernel counts CPU time in scheduler ticks (4 ms at
# 250 Hz), so the N frames must last a second or more
CPU_SPAN_S = 1.0
print("| model | GFLOP | threads | best ms | median ms | GFLOP/s (best frame) | CPU ms/frame | GFLOP per CPU-s | share of peak | peak GFLOP/s |")
print("|---|---|---|---|---|---|---|---|---|---|")
for line in open(os.path.join(ROOT, "tests/e2e/models.txt")):
    f = line.split()
    if not f or f[0].startswith("#") or f[0] == "mnist.onnx":
        continue
    shapes = [a for s in f[1].split(";") for a in ("--shape", s)]
    path = os.path.join(ROOT, "tests/data/models", f[0])
    for th in (1, 2):
        try:
            probe, cpu_short = run(path, shapes, th, 2)
            n = max(RUNS, int(CPU_SPAN_S / max(probe["host"]["min_us"] / 1e6, 1e-6)) + 1)
            d, cpu_long = run(path, shapes, th, n + 2)
        except RuntimeError as e:
            print(f"peak: {f[0]}: {e}", file=sys.stderr)
            continue
        g = flops(d["layers"]) / 1e9
        best, med = d["host"]["min_us"] / 1e3, d["host"]["median_us"] / 1e3
        cpu_frame = max(cpu_long - cpu_short, 1e-9) / n
        per_cpu = g / cpu_frame
        pk = peak.get(th, float("nan"))
        # the threads of a frame share its CPU seconds: per CPU-second is
        # compared with one core's peak
        print(f"| {f[0]} | {g:.3f} | {th} | {best:.2f} | {med:.2f} | {g / (best / 1e3):.1f} | "
              f"{1e3 * cpu_frame:.1f} | {per_cpu:.1f} | {100 * per_cpu / per_cpu_1:.1f} % | {per_cpu_1:.0f} per core |")
print("\nGFLOP counts the multiply-adds of a direct convolution: most dense 3x3 stride-1 convs run as "
      "Winograd F(2x2, 3x3), 2.25x fewer multiplies (planar from 16 input channels, over the direct "
      "conv's rows below: yolox_nano's stem), so a model made of them (super_resolution_224) can "
      "show more than 100 % of the peak.")
EOF
