#!/usr/bin/env bash
# make_fixture.sh ROOT [LOAD_SAMPLE] [MM_SAMPLE]: a copy of an RK3588 board's
# /sys, /proc and /sys/kernel/debug under ROOT, its driver nodes made from the
# real captures in $RT_SHARED/data/logs (the '#' notes and the shell prompt
# line of each capture dropped, the rest kept byte for byte). What no capture
# gives is built from the documented facts (shared/research/npu-hw.md §4):
# devfreq fdab0000.npu with the RK3588 OPPs, the DRM class with DRIVER=RKNPU
# on card1/renderD129 next to a display card0, a process holding renderD129.
set -euo pipefail
R=$1
L=${RT_SHARED:-../shared}/data/logs
LOAD=${2:-$L/npuload-debugfs-rk3588-triority-02.txt}
MM=${3:-$L/debugfs-mm-sram-bitmap-512k-used-rk3588-rkdoc-02.txt}

capture() { grep -v '^#' "$1" | grep -v -E '(\$|#) .*(cat|watch) ' ; }

D=$R/sys/kernel/debug/rknpu
mkdir -p "$D"
capture "$LOAD" | grep -v '^$' >"$D/load"
capture "$MM" >"$D/mm"
# version, freq, volt: the note gives the three answers one per line in that order
V=$L/debugfs-version-freq-volt-rk3588-rock5b-01.txt
capture "$V" | sed -n 1p >"$D/version"
capture "$V" | sed -n 2p >"$D/freq"
capture "$V" | sed -n 3p >"$D/volt"
echo on >"$D/power"

F=$R/sys/class/devfreq/fdab0000.npu
mkdir -p "$F" "$R/sys/class/devfreq/dmc"
echo userspace >"$F/governor"
cp "$D/freq" "$F/cur_freq"
echo "300000000 400000000 500000000 600000000 700000000 800000000 900000000 1000000000" \
    >"$F/available_frequencies"
echo dmc_ondemand >"$R/sys/class/devfreq/dmc/governor"
echo 2112000000 >"$R/sys/class/devfreq/dmc/cur_freq"
for p in 0 4 6; do
    mkdir -p "$R/sys/devices/system/cpu/cpufreq/policy$p"
    echo performance >"$R/sys/devices/system/cpu/cpufreq/policy$p/scaling_governor"
done
echo 1800000 >"$R/sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq"
echo 2256000 >"$R/sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq"
echo 2304000 >"$R/sys/devices/system/cpu/cpufreq/policy6/scaling_cur_freq"

for n in card1 renderD129; do
    mkdir -p "$R/sys/class/drm/$n/device"
    printf 'DRIVER=RKNPU\nOF_NAME=npu\nOF_COMPATIBLE_0=rockchip,rk3588-rknpu\nOF_COMPATIBLE_N=1\n' \
        >"$R/sys/class/drm/$n/device/uevent"
done
for n in card0 renderD128 card0-HDMI-A-1; do
    mkdir -p "$R/sys/class/drm/$n/device"
    printf 'DRIVER=rockchip-drm\nOF_COMPATIBLE_0=rockchip,display-subsystem\n' \
        >"$R/sys/class/drm/$n/device/uevent"
done

P=$R/proc
mkdir -p "$P/sys/kernel" "$P/device-tree"
echo 6.1.115 >"$P/sys/kernel/osrelease"
printf 'radxa,rock-5b\0rockchip,rk3588\0' >"$P/device-tree/compatible"
printf 'Radxa ROCK 5B\0' >"$P/device-tree/model"
proc() { # PID COMM FD TARGET [FDINFO-DRIVER]
    mkdir -p "$P/$1/fd" "$P/$1/fdinfo"
    echo "$2" >"$P/$1/comm"
    ln -s "$4" "$P/$1/fd/$3"
    printf 'pos:\t0\nflags:\t02100002\n' >"$P/$1/fdinfo/$3"
    [ -z "${5:-}" ] || printf 'drm-driver:\t%s\ndrm-client-id:\t7\n' "$5" >>"$P/$1/fdinfo/$3"
}
proc 1234 yolov5_demo 3 /dev/dri/renderD129 rknpu
proc 1240 bash 0 /dev/pts/0
proc 1250 glmark2 4 /dev/dri/renderD128 panfrost
