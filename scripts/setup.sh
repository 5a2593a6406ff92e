#!/usr/bin/env bash
# Installs the Debian packages pruner-mlir needs to build and test. Idempotent: when
# everything is present it only checks and returns (well under a second).
# CUDA is not installed from here: it is expected in /usr/local/cuda (optional; without
# it the CUDA parts are left out and their tests skip).
# Usage: scripts/setup.sh [--fuzz]   (--fuzz adds clang and its libFuzzer runtime, for the
# coverage-guided fuzzers of test/fuzz; docs/hardening.md)
set -euo pipefail

packages=(
  build-essential cmake python3
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools   # MLIR C API, mlir-opt, lit, FileCheck
  libcjson-dev        # records, bundle manifests
  libxgboost-dev      # the learned verifier
  libbenchmark-dev    # tools/pruner-bench
  libcmocka-dev       # C unit tests
  libopenblas-dev     # host baseline
  libomp-22-dev       # host target: OpenMP runtime for parallel loops
)
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang libclang-rt-dev)   # libFuzzer (-fsanitize=fuzzer) for test/fuzz
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# libomp-22-dev takes over libomp-dev's files; apt removes the older packages itself.
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
