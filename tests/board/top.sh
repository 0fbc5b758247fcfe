#!/usr/bin/env bash
# `rknn-trace top` on fixture trees made from real captures (make_fixture.sh):
# every figure checked against the capture itself, read here by Python regular
# expressions; absent, root-only and garbled nodes shown as such (null, never 0);
# the simulator's published load read the same way; the live view under tmux;
# libdrm's no-device path on this machine.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RT=$B/rknn-trace
PY=/usr/bin/python3
export RT_SHARED=${RT_SHARED:-../shared}
L=$RT_SHARED/data/logs
T=$(mktemp -d)
chmod 755 "$T"
trap 'tmux -L rt-top-$$ kill-server 2>/dev/null; rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# check NAME JSON-FILE PYTHON-EXPR (d = the document; true = pass)
check() {
    if $PY -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($3) else 1)" "$2" 2>"$T/pyerr"; then
        ok
    else
        bad "$1: ($3) is false for $(head -c 400 "$2") $(cat "$T/pyerr")"
    fi
}
snap() { # ROOT OUT [extra options]
    local r=$1 o=$2; shift 2
    "$RT" top --snapshot --json --root "$r" "$@" >"$o" 2>"$T/err" || bad "top --root $r exit $?: $(cat "$T/err")"
    grep -q "AddressSanitizer\|runtime error" "$T/err" && bad "sanitizer report: $(cat "$T/err")"
}

# --- every load capture: per-core figures as the capture prints them ------------------
for f in "$L"/npuload-debugfs-*.txt; do
    R=$T/load-$(basename "$f" .txt)
    bash tests/board/make_fixture.sh "$R" "$f"
    snap "$R" "$T/l.json"
    want=$($PY -c "import re,sys; t=[l for l in open(sys.argv[1]) if 'NPU load:' in l and 'cat ' not in l][0]; print([int(x) for x in re.findall(r'Core\d+:\s*(\d+)%', t)])" "$f")
    check "$(basename "$f") load" "$T/l.json" "d['load']['state']=='ok' and d['load']['pct']==$want and d['load']['cores']==len($want)"
done

# --- the full fixture: driver, clock, SRAM, DRM, processes, kernel, SoC -----------------
R=$T/r
bash tests/board/make_fixture.sh "$R"
snap "$R" "$T/s.json"
V=$L/debugfs-version-freq-volt-rk3588-rock5b-01.txt
MM=$L/debugfs-mm-sram-bitmap-512k-used-rk3588-rkdoc-02.txt
read -r ver freq volt < <($PY -c "
import re,sys; L=[l.strip() for l in open(sys.argv[1]) if l.strip() and not l.startswith('#')]
print(re.search(r'v(\d+\.\d+\.\d+)', L[0]).group(1), L[1], L[2])" "$V")
check version "$T/s.json" "d['driver_version']=={'state':'ok','value':'$ver'}"
check freq "$T/s.json" "d['freq']['hz']==$freq and d['devfreq']['cur_freq']['hz']==$freq"
check volt "$T/s.json" "d['volt']['uv']==$volt"
read -r total used free stars pages < <($PY -c "
import re,sys; t=open(sys.argv[1]).read(); m=re.search(r'total size: (\d+), used: (\d+), free: (\d+)', t)
rows=re.findall(r'^\[\d{3}\] \[([*.]*)\]', t, re.M); s=''.join(rows)
print(m.group(1), m.group(2), m.group(3), s.count('*'), len(s))" "$MM")
check "sram totals" "$T/s.json" "d['sram']['total_bytes']==$total and d['sram']['used_bytes']==$used and d['sram']['free_bytes']==$free"
check "sram map" "$T/s.json" "d['sram']['map'].count('*')==$stars and d['sram']['pages']==$pages and $stars*4096==$used"
# the boot log's SRAM region is the bitmap's total (dmesg capture, independent of mm)
region=$($PY -c "import re,sys; print(int(re.search(r'sram size: (0x[0-9a-f]+)', open(sys.argv[1]).read()).group(1),16))" \
    "$L/dmesg-rknpu-sram-region-rk3588-rkdoc-01.txt")
check "sram = dmesg region" "$T/s.json" "d['sram']['total_bytes']==$region"
check devfreq "$T/s.json" "d['devfreq']['name']=='fdab0000.npu' and d['devfreq']['governor']['value']=='userspace' and len(d['devfreq']['available']['hz'])==8"
check drm "$T/s.json" "d['drm']['state']=='ok' and d['drm']['node']=='/dev/dri/renderD129' and d['drm']['devices']==2 and d['drm']['compatible']=='rockchip,rk3588-rknpu'"
check holders "$T/s.json" "d['processes']['state']=='ok' and d['processes']['list']==[{'pid':1234,'comm':'yolov5_demo','node':'/dev/dri/renderD129'}]"
check env "$T/s.json" "d['kernel']['value']=='6.1.115' and d['soc']['value']=='rk3588' and d['dt_model']=='Radxa ROCK 5B' and not d['simulated']"

# --- absent, garbled, unreadable nodes: a state, never 0 -------------------------------
R2=$T/r2
bash tests/board/make_fixture.sh "$R2" "$L/npuload-debugfs-rk3588-idle-goRknnlite-05.txt" \
    "$L/debugfs-mm-sram-bitmap-empty-rk3588-rkdoc-01.txt"
snap "$R2" "$T/idle.json"
check "idle load is 0, measured" "$T/idle.json" "d['load']['pct']==[0,0,0] and d['sram']['used_bytes']==0"
rm "$R2/sys/kernel/debug/rknpu/mm"
echo "garbage" >"$R2/sys/kernel/debug/rknpu/freq"
printf 'NPU load:  Core0: lots, Core1: 50%%,\n' >"$R2/sys/kernel/debug/rknpu/load"
printf 'RKNPU driver v0.9\n' >"$R2/sys/kernel/debug/rknpu/version"
mkdir "$R2/sys/kernel/debug/rknpu/volt.d" && rm "$R2/sys/kernel/debug/rknpu/volt" && \
    mv "$R2/sys/kernel/debug/rknpu/volt.d" "$R2/sys/kernel/debug/rknpu/volt"
rm -r "$R2/sys/class/devfreq" "$R2/sys/class/drm"
snap "$R2" "$T/b.json"
check "mm absent" "$T/b.json" "d['sram']['state']=='absent' and d['sram']['used_bytes'] is None"
check "freq garbled" "$T/b.json" "d['freq']=={'state':'unexpected text','hz':None}"
check "load garbled" "$T/b.json" "d['load']=={'state':'unexpected text','cores':None,'pct':None}"
check "version garbled" "$T/b.json" "d['driver_version']['state']=='unexpected text'"
check "volt unreadable" "$T/b.json" "d['volt']['state']=='unreadable'"
check "no devfreq, no drm" "$T/b.json" "d['devfreq']['governor']['state']=='absent' and d['drm']['state']=='absent' and d['drm']['devices']==0"
"$RT" top --snapshot --root "$R2" >"$T/b.txt" 2>&1
grep -q "^load     unexpected text" "$T/b.txt" && grep -q "^sram     absent" "$T/b.txt" && ok || bad "text snapshot: $(cat "$T/b.txt")"

# root-only debugfs (mode 0700 as on a board) read by an unprivileged user
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    chmod -R a+rX "$R"; chmod 700 "$R/sys/kernel/debug"
    setpriv --reuid=65534 --regid=65534 --clear-groups "$RT" top --snapshot --json --root "$R" >"$T/u.json" 2>"$T/err"
    check "needs root" "$T/u.json" "d['load']['state']=='needs root' and d['load']['pct'] is None and d['sram']['state']=='needs root' and d['freq']['hz'] is None"
    check "devfreq still readable" "$T/u.json" "d['devfreq']['governor']['value']=='userspace'"
    chmod 755 "$R/sys/kernel/debug"
else
    echo "skip: needs root to drop to an unprivileged user"
fi

# RV1106-style procfs nodes, one core ("NPU load: %2d%%" of the driver's format)
R3=$T/r3
mkdir -p "$R3/proc/rknpu"
printf 'NPU load: 37%%\n' >"$R3/proc/rknpu/load"
snap "$R3" "$T/p.json"
check "procfs one core" "$T/p.json" "d['load']['pct']==[37] and d['source'].endswith('/proc/rknpu') and d['freq']['state']=='absent'"

# --- the simulator's published load reads the same way -------------------------------
export RKNN_TRACE_SYSFS=$T/sim
"$RT" run tests/data/models/mnist.onnx -n 3 --no-db --no-progress >/dev/null 2>"$T/err" || bad "sim run: $(cat "$T/err")"
want=$($PY -c "import re,sys; print([int(x) for x in re.findall(r'Core\d+:\s*(\d+)%', open(sys.argv[1]).read())])" "$T/sim/rknpu/load")
# the run has exited: its load has expired, the simulated NPU reads idle
snap / "$T/sim.json" --sim
check "sim load expired" "$T/sim.json" "d['simulated'] and d['load']['pct']==[0, 0, 0] and sum($want) > 0"
# the same text owned by a live process (this shell: pid and start time from /proc) reads as published
$PY -c "import sys; f=open('/proc/%s/stat' % sys.argv[1]).read(); print(sys.argv[1], f[f.rindex(')') + 2:].split()[19])" $$ >"$T/sim/rknpu/owner"
snap / "$T/sim.json" --sim
check "sim load" "$T/sim.json" "d['simulated'] and d['load']['pct']==$want and len($want)==3"
unset RKNN_TRACE_SYSFS

# --- libdrm on this machine: the no-device path --------------------------------------
if [ ! -e /dev/dri ]; then
    snap / "$T/host.json"
    check "no DRM device" "$T/host.json" "d['drm']['state']=='absent' and d['drm']['devices']==0 and d['drm']['node'] is None"
    "$RT" info | grep -q "^npu        none (libdrm: 0 DRM devices" && ok || bad "info: $("$RT" info | tail -3)"
fi

# --- usage and bad input --------------------------------------------------------------
"$RT" top --root "$T/nowhere" --snapshot >/dev/null 2>"$T/err"; [ $? = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && ok || bad "missing root: $(cat "$T/err")"
"$RT" top --json >/dev/null 2>&1; [ $? = 1 ] && ok || bad "--json without --snapshot"
"$RT" top --interval 5 >/dev/null 2>&1; [ $? = 1 ] && ok || bad "--interval 5"
"$RT" top --snapshto >/dev/null 2>"$T/err"; [ $? = 1 ] && grep -q -- "--snapshot" "$T/err" && ok || bad "suggestion: $(cat "$T/err")"

# --- the live view under tmux -------------------------------------------------------
if command -v tmux >/dev/null; then
    S="tmux -L rt-top-$$"
    $S new-session -d -x 120 -y 40 "env LANG=C.UTF-8 $RT top --root $R --interval 50; sleep 5"
    for _ in $(seq 40); do sleep 0.1; $S capture-pane -p >"$T/pane" 2>/dev/null; grep -q "yolov5_demo" "$T/pane" && break; done
    grep -q "core0  61%" "$T/pane" && grep -q "512 of 956 KiB" "$T/pane" && grep -q "1234  yolov5_demo" "$T/pane" \
        && grep -q "driver   0.9.8" "$T/pane" && ok || bad "live view: $(cat "$T/pane")"
    $S send-keys q; sleep 0.3
    $S capture-pane -p >"$T/pane2" 2>/dev/null
    grep -q "core0" "$T/pane2" && bad "q did not quit" || ok
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
