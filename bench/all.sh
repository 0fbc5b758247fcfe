#!/bin/bash
# bench/all.sh BUILD_DIR — every benchmark, each against its target; runs them
# all even when one misses, then lists the ones that did.
set -u
cd "$(dirname "$0")/.."
B=${1:-build}
missed=()
for b in "run.sh:runtime and C API vs onnxruntime-node (median time <= 0.8x, RSS <= 1.5x)" \
         "api.sh:C API overhead (<= 5 % of a run) and zero-copy" \
         "quant.sh:int8 simulation (<= 0.5x fp32) and analysis (>= 3x numpy)" \
         "tune.sh:tune of YOLOX-Nano over 20 calibration and 20 evaluation samples (<= 180 s)" \
         "npu_fidelity.sh:NPU cycles vs real RK3588 logs (exact), DDR cycles (+-15 %)" \
         "npu_models.sh:predicted frame time vs board timings (+-20 %)" \
         "npu_fp16.sh:frame model (int8-fitted) on the zoo's FP16 CLIP encoders (report)" \
         "npu_time.sh:level-4 Time(us) model vs real tables (int8, fp16 median <= 10 % in-sample; left-out reported)" \
         "cpu_cost.sh:CPU-fallback cost vs the real CPU rows (fit, left-out errors)" \
         "npu_overhead.sh:the NPU model's per-run cost at level 4 (<= 5 % of a run)" \
         "level4.sh:a C API frame at RKNN_LOG_LEVEL=4 over level 0 (<= 5 %)" \
         "rknn.sh:vendor .rknn: inspect (<= 50 ms), predicted run of 300 layers (<= 200 ms)" \
         "emulate.sh:vendor .rknn emulation (run --emulate) vs our int8 simulation of its source (<= 3x CPU)" \
         "import.sh:import of a ~100 MB log of real samples (>= 100 MB/s)" \
         "store.sh:ls over 10,000 runs x 300 layers (<= 100 ms), show of one run (<= 20 ms)" \
         "tui.sh:tui: open 10,000 runs (<= 200 ms), scroll 2,000 layers (<= 16 ms a key)" \
         "compare.sh:compare BOARD SIM of two ~300-layer runs (<= 50 ms)" \
         "attach.sh:interposer overhead per rknn_run (<= 2 us)" \
         "top.sh:rknn-trace top at 10 Hz (< 1 % of one CPU)" \
         "peak.sh:fp32 FMA peak of this machine and each conv model's GFLOP/s and share of it (report)" \
         "run_spread.sh:run-to-run spread of run's host median at its defaults (<= 10 %)" \
         "report.sh:report of a 2,000-layer run and of a comparison, every format (<= 1 s)"; do
    script=${b%%:*}
    echo "=== bench/$script — ${b#*:}"
    bash "bench/$script" "$B" || missed+=("$script")
    echo
done
if [ ${#missed[@]} -gt 0 ]; then
    echo "benchmarks that missed a target or failed: ${missed[*]}"
    exit 1
fi
echo "every benchmark met its target"
