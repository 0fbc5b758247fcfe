#!/usr/bin/env bash
# Installs every build and test dependency: Debian packages, then the npm
# onnxruntime-node oracle under tests/oracle. Safe to run again: it installs
# only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

PKGS="build-essential pkg-config protobuf-c-compiler libprotobuf-c-dev libonnx-dev
      libonnx-testdata libsqlite3-dev sqlite3 libopenblas-dev python3 python3-numpy python3-onnx python3-yaml python3-pil
      python3-skimage libpng-dev libjpeg-dev libjansson-dev libyaml-dev libbson-dev clang libclang-rt-14-dev
      chromium gnuplot-nox python3-markdown
      libncurses-dev tmux libdrm-dev zlib1g-dev"

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# Node.js with npm: any install that provides both will do (Debian's or another).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    missing="$missing nodejs npm"
fi
if [ -n "$missing" ]; then
    echo "deps: installing$missing"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
else
    echo "deps: Debian packages already installed"
fi

# onnxruntime-node: the reference runtime of the tests and the benchmark peer.
# Its post-install step would download GPU files; the CPU runtime is in the package.
if [ ! -f tests/oracle/node_modules/onnxruntime-node/package.json ]; then
    echo "deps: installing onnxruntime-node (npm)"
    (cd tests/oracle && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error)
else
    echo "deps: onnxruntime-node already installed"
fi
