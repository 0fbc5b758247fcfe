#!/usr/bin/env bash
# Runs every test suite, then the sanitizer build of the fast ones; sums the
# "N passed, N failed" lines of each suite into one closing line. The suites run
# side by side, the slowest first; the sanitizer build starts with them and its
# suites join when it is done. Each suite's output is printed whole, under its
# "== name" line, when it ends (with its wall and CPU seconds).
#   RT_JOBS=N       suites at a time (default: the number of cores); 1 runs them
#                   one after another in the listed order, the build in between
#   RT_SKIP_ASAN=1  skip the AddressSanitizer + UBSan pass
#   --only PATTERN  run only the suites whose name contains PATTERN (a glob:
#                   '*' and '?' work, e.g. 'unit test_kernels_*'); repeat for
#                   several; a name matching any one runs
#   --list          print the suite names (of both passes) and run nothing
set -uo pipefail
cd "$(dirname "$0")/.."
only=(); list=0
while [ $# -gt 0 ]; do
    case $1 in
        --only) [ $# -ge 2 ] || { echo "run.sh: --only needs a pattern" >&2; exit 2; }
                only+=("$2"); shift 2 ;;
        --only=*) only+=("${1#--only=}"); shift ;;
        --list) list=1; shift ;;
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
        *) echo "run.sh: unknown argument '$1' (--only PATTERN, --list)" >&2; exit 2 ;;
    esac
done
B=${BUILD:-build}
BA=${BUILD_ASAN:-build-asan}
export RT_SHARED=${RT_SHARED:-../shared}
JOBS=${RT_JOBS:-$(nproc)}
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: RT_JOBS must be a positive number, not '$JOBS'" >&2; exit 2; }

passed=0; failed=0; suites_failed=(); cpu_tenths=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
mode=run     # run (queue the suite), list (print names) or count (count matching names into $matched)
matched=0
# the queue: name, command (quoted for eval), kind (plain, asan, build), alone
q_name=(); q_cmd=(); q_kind=(); q_alone=(); q_pid=(); t_start=()
kind=plain

selected() { # name: does it match one of the --only patterns (all when none)?
    [ ${#only[@]} -eq 0 ] && return 0
    local p
    for p in "${only[@]}"; do
        # shellcheck disable=SC2053  # the pattern is a glob on purpose
        [[ $1 == *$p* ]] && return 0
    done
    return 1
}

suite() { # [--alone] name, command...   (--alone: nothing else runs beside it)
    local alone=0
    # (a sanitizer pass checks no timing: its suites need no room of their own)
    [ "$1" = --alone ] && { [ "$kind" = plain ] && alone=1; shift; }
    local name=$1; shift
    selected "$name" || return 0
    case $mode in
        list) printf '%s\n' "$name"; return 0 ;;
        count) matched=$((matched + 1)); return 0 ;;
    esac
    q_name+=("$name"); q_cmd+=("$(printf '%q ' "$@")"); q_kind+=("$kind"); q_alone+=("$alone")
}

# Seconds the slow suites take (2 cores, loaded; from a timed CI run of
# 5ebb393): they start first, so that no long one starts last and runs on
# alone. The rest count 1.
cost() { # name
    local n=${1% \[*}
    case $1 in
        "sanitizer build") echo 290 ;;
        *"[$BA]")
            case $n in
                "vendor .rknn emulated vs the source ONNX") echo 131 ;;
                "api samples, vendor .rknn through the NPU emulator") echo 72 ;;
                cli) echo 37 ;;
                "import of real logs") echo 33 ;;
                "quant tune") echo 28 ;;
                "api samples"|"one run of each source told alike"*|"api samples, built containers") echo 22 ;;
                "npu: the compiler's graph rewrites"*|"onnx conformance"|"cli summary, ls, compare") echo 15 ;;
                *) echo 1 ;;
            esac ;;
        *)
            case $n in
                "quant real models") echo 118 ;;
                "vendor .rknn emulated vs the source ONNX") echo 54 ;;
                cli) echo 36 ;;
                "crash during recording") echo 29 ;;
                "quant i8_hash") echo 23 ;;
                "api samples, vendor .rknn through the NPU emulator") echo 21 ;;
                "quant tune") echo 17 ;;
                "npu prediction determinism"|"real models vs onnxruntime"|"cli recording, dumps"*) echo 14 ;;
                "cli summary, ls, compare"|"import of real logs"|"api samples, built containers") echo 10 ;;
                "npu: the compiler's graph rewrites"*) echo 8 ;;
                *) echo 1 ;;
            esac ;;
    esac
}

# The queued suites not yet started, in the order to start them: the order they
# were listed (RT_JOBS=1), else the suites that run alone first, then the costly.
pending=()
order() { # indices: append them to pending, re-sorted
    local i
    if [ "$JOBS" = 1 ]; then pending+=("$@"); return; fi
    mapfile -t pending < <(for i in "${pending[@]}" "$@"; do
        printf '%d %d %d\n' "${q_alone[i]}" "$(cost "${q_name[i]}")" "$i"; done |
        sort -k1,1nr -k2,2nr -k3,3n | awk '{print $3}')
}

start_job() { # index: runs it in the background; $log/I.rc holds its exit status at the end
    local i=$1
    t_start[i]=$SECONDS
    [ "${q_kind[i]}" = build ] &&
        echo "== building with AddressSanitizer + UndefinedBehaviorSanitizer into $BA"
    (
        if [ "${q_kind[i]}" = asan ]; then
            export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
            # latency bounds hold for the plain build; under a sanitizer's slowdown
            # they measure the sanitizer (test_api_threads keeps its other checks)
            export RT_TEST_NO_TIMING=1
        fi
        eval "${q_cmd[i]}" >"$log/$i.out" 2>"$log/$i.err" </dev/null
        rc=$?
        # the CPU seconds of the suite's processes, user + system (times: in this
        # shell, not a pipeline's, to see its children)
        times >"$log/$i.times"
        awk 'NR == 2 { t = 0; for (f = 1; f <= 2; f++) { split($f, a, /[ms]/); t += a[1] * 60 + a[2] }
                       printf "%.1f\n", t }' "$log/$i.times" >"$log/$i.cpu"
        echo "$rc" >"$log/$i.rc"
    ) &
    q_pid[i]=$!
}

report_job() { # index: prints the ended suite's result, adds up its counts
    local i=$1 name=${q_name[$1]} rc line cpu
    rc=$(cat "$log/$i.rc"); cpu=$(cat "$log/$i.cpu" 2>/dev/null || echo 0.0)
    cpu_tenths=$((cpu_tenths + 10#${cpu//./}))
    if [ "${q_kind[i]}" = build ]; then
        if [ "$rc" = 0 ]; then
            printf '== %s done (%d s, %s s CPU)\n' "$name" $((SECONDS - t_start[i])) "$cpu"
            local first=${#q_name[@]}
            kind=asan; run_suites "$BA" 0; kind=plain
            order $(seq "$first" $((${#q_name[@]} - 1)))
        else
            printf '== %s\n' "$name"
            tail -n 40 "$log/$i.out"; tail -n 40 "$log/$i.err"
            suites_failed+=("asan build"); failed=$((failed + 1))
        fi
        return
    fi
    printf '== %s\n' "$name"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log/$i.out" | tail -1)
    if [ -n "$line" ]; then
        passed=$((passed + $(echo "$line" | awk '{print $1}')))
        failed=$((failed + $(echo "$line" | awk '{print $3}')))
    fi
    if [ "$rc" -ne 0 ] || [ -z "$line" ]; then
        suites_failed+=("$name")
        [ -z "$line" ] && failed=$((failed + 1))
        tail -n 40 "$log/$i.out"; tail -n 40 "$log/$i.err"
        printf '   FAILED (exit %d)\n' "$rc"
    else
        printf '   %s (%d s, %s s CPU)\n' "$line" $((SECONDS - t_start[i])) "$cpu"
    fi
    rm -f "$log/$i".*
}

# Runs the queue, JOBS at a time; a suite marked alone starts when nothing
# runs and nothing starts beside it. The ASan suites are queued when the
# sanitizer build ends.
run_queue() {
    local running=() still i next
    while [ ${#pending[@]} -gt 0 ] || [ ${#running[@]} -gt 0 ]; do
        while [ ${#pending[@]} -gt 0 ] && [ ${#running[@]} -lt "$JOBS" ]; do
            next=${pending[0]}
            if [ ${#running[@]} -gt 0 ]; then
                [ "${q_alone[next]}" = 1 ] && break
                [ "${q_alone[${running[0]}]}" = 1 ] && break
            fi
            pending=("${pending[@]:1}")
            start_job "$next"; running+=("$next")
        done
        wait -n
        still=()
        for i in "${running[@]}"; do
            # (a job killed before it wrote its status counts as failed)
            [ -e "$log/$i.rc" ] || kill -0 "${q_pid[i]}" 2>/dev/null || echo 255 >"$log/$i.rc"
            if [ -e "$log/$i.rc" ]; then report_job "$i"; else still+=("$i"); fi
        done
        running=("${still[@]}")
    done
    wait
}

run_suites() { # build dir, full (1) or fast (0)
    local b=$1 full=$2 t n alone
    # the sources, not a build: once
    [ "$full" = 1 ] && suite "include graph: no cycle between folders, one-way layers" \
        python3 tests/tools/include_cycles.py
    # the unit programs are named from the plain build, so that the sanitizer
    # pass can be listed and selected before it is built
    for t in "$B"/tests/test_*; do
        n=$(basename "$t")
        # its latency bound compares with a solo baseline taken a moment before
        alone=(); [ "$n" = test_api_threads ] && alone=(--alone)
        [ -x "$t" ] && [[ $n != *.* ]] && suite "${alone[@]}" "unit $n [$b]" "$b/tests/$n"
    done
    [ -x "$b/tests/conformance" ] && suite "onnx conformance [$b]" "$b/tests/conformance"
    for f in "$b"/tests/fuzz_*; do
        local n=${f##*/fuzz_}
        [ -d "tests/fuzz/corpus/$n" ] && suite "fuzz corpus $n [$b]" "$f" "tests/fuzz/corpus/$n"
    done
    suite "cli [$b]" bash tests/cli/run.sh "$b"
    suite "cli summary, ls, compare [$b]" bash tests/cli/summary.sh "$b"
    suite "cli option tables: help, parsing, suggestions [$b]" bash tests/cli/opts.sh "$b"
    suite "reports: md html csv json trace gnuplot png [$b]" bash tests/reports/run.sh "$b"
    suite "reports and terminal: hostile names escaped per format [$b]" bash tests/reports/hostile.sh "$b"
    suite "vendor .rknn inspect and prediction [$b]" bash tests/cli/inspect.sh "$b"
    suite "vendor .rknn vs our lowering (compare) [$b]" bash tests/cli/rknn_compare.sh "$b"
    suite "import of real logs [$b]" bash tests/cli/import.sh "$b"
    suite "unknown is null on every JSON surface [$b]" bash tests/cli/json_unknown.sh "$b"
    suite "managing runs: rm, tags, labels, export/import, merge [$b]" bash tests/cli/manage.sh "$b"
    suite "store upgrade 4 -> 5: schema-4 runs print the same, typed facts [$b]" bash tests/cli/store_upgrade.sh "$b"
    suite "output files: whole or not at all, devices, full disk, --db kinds [$b]" bash tests/cli/outfile.sh "$b"
    suite "predicted vs measured per layer [$b]" bash tests/cli/compare_perf.sh "$b"
    suite "cli recording, dumps, limits, timing [$b]" bash tests/cli/record.sh "$b"
    suite "tui under tmux [$b]" bash tests/tui/run.sh "$b"
    suite "one comparison on every surface (compare, report, tui) [$b]" bash tests/compare/surfaces.sh "$b"
    suite "npu lowering vs vendor tables [$b]" "$b/tests/npu_models" tests/data/models \
        tests/fuzz/corpus/perflog --check
    suite "npu Time(us) model vs real tables [$b]" sh bench/npu_time.sh "$b" --check
    suite "npu cycles and fusion vs real conv rows [$b]" sh bench/npu_fidelity.sh "$b" --check
    suite "npu CPU-fallback cost vs real CPU rows [$b]" "$b/tests/npu_cpu_cost" \
        tests/fuzz/corpus/perflog --check
    suite "npu cycles of batched convs and matmuls [$b]" bash tests/npu/batched.sh "$b"
    suite "npu cycles of fp16 depthwise 7x7 layers and the pool cascade [$b]" \
        bash tests/npu/depthwise.sh "$b"
    suite "npu: the compiler's graph rewrites, fused vs written-out [$b]" \
        bash tests/npu/rewrites.sh "$b"
    suite "npu: the zoo networks the bench builds vs ONNX shape inference [$b]" \
        bash tests/npu/zoo_graphs.sh "$b"
    suite "npu: Transpose limits per perm and chip (op list) [$b]" bash tests/npu/transpose.sh "$b"
    suite "npu: the row cost of a Softmax vs a real row [$b]" bash tests/npu/softmax.sh "$b"
    suite "api samples [$b]" bash tests/samples/run.sh "$b"
    suite "quantization.cfg read by libyaml vs python3-yaml [$b]" bash tests/quant/cfg_yaml.sh "$b"
    suite "api samples, built containers [$b]" bash tests/samples/built.sh "$b"
    suite "api samples, vendor .rknn through the NPU emulator [$b]" bash tests/samples/vendor.sh "$b"
    suite "board probe, top [$b]" bash tests/board/top.sh "$b"
    suite "run --backend board [$b]" bash tests/board/run_board.sh "$b"
    suite "attach (LD_PRELOAD) [$b]" bash tests/board/attach.sh "$b"
    suite "one run of each source told alike on every surface [$b]" bash tests/cli/story.sh "$b"
    for q in compare analyze golden_sources hybrid build images qdq shared eval tune; do
        suite "quant $q [$b]" bash tests/quant/$q.sh "$b"
    done
    suite "vendor .rknn emulated vs the source ONNX [$b]" bash tests/cli/emulate.sh "$b"
    if [ "$full" = 1 ]; then
        # slow and about the process, not its memory: killed writers, repeated runs
        suite "crash during recording [$b]" bash tests/cli/crash.sh "$b"
        suite "npu prediction determinism [$b]" bash tests/npu/determinism.sh "$b"
        suite "quant real models [$b]" bash tests/quant/run.sh "$b"
        # every dump of the six models in int8: the byte kernels against the reference hashes
        suite "quant i8_hash [$b]" bash tests/quant/i8_hash.sh "$b"
        [ -f tests/numpy/run.sh ] && suite "npy vs numpy [$b]" bash tests/numpy/run.sh "$b"
        suite "real models vs onnxruntime [$b]" bash tests/e2e/run.sh "$b"
        suite "transformer, recurrent and ROI ops vs onnxruntime [$b]" bash tests/ops/run.sh "$b"
    fi
}

if [ $list = 1 ]; then
    mode=list; run_suites "$B" 1
    [ "${RT_SKIP_ASAN:-0}" != 1 ] && run_suites "$BA" 0
    exit 0
fi
asan_matched=0
if [ "${RT_SKIP_ASAN:-0}" != 1 ]; then
    mode=count; run_suites "$BA" 0; asan_matched=$matched
fi
mode=count; run_suites "$B" 1
if [ $matched -eq 0 ]; then
    printf 'no suite matches %s (bash tests/run.sh --list prints the names)\n' "${only[*]}" >&2
    exit 1
fi
mode=run
run_suites "$B" 1
if [ "${RT_SKIP_ASAN:-0}" != 1 ] && [ $asan_matched -gt 0 ]; then
    q_name+=("sanitizer build"); q_kind+=(build); q_alone+=(0)
    q_cmd+=("$(printf '%q ' make -s -j"$(nproc)" BUILD="$BA" SAN=1 OPT=-O1 all)")
fi
order $(seq 0 $((${#q_name[@]} - 1)))
run_queue
echo
printf '%d s, %d.%d s CPU (%d at a time)\n' "$SECONDS" $((cpu_tenths / 10)) $((cpu_tenths % 10)) "$JOBS"
if [ ${#suites_failed[@]} -gt 0 ]; then
    printf 'failed suites:\n'; printf '  %s\n' "${suites_failed[@]}"
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && [ ${#suites_failed[@]} -eq 0 ]
