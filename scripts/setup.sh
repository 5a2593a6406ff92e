#!/usr/bin/env bash
# Installs the Debian packages pruner-mlir needs to build and test. Idempotent: when
# everything is present it only checks and returns (well under a second).
# CUDA is not installed from here: it is expected in /usr/local/cuda (optional; without
# it the CUDA parts are left out and their tests skip).
# With PRUNER_WITH_IREE=1 (scripts/test.sh sets it) it also installs IREE's pinned
# compiler and runtime wheels into a venv in the cache folder (docs/iree.md, "Set-up"):
# $XDG_CACHE_HOME/pruner-mlir/iree-3.13.0 (default ~/.cache/...); present: no work.
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
  libblis-dev         # second host baseline (tools/pruner-bench; dlopen'ed, optional at run time)
  libdnnl-dev         # oneDNN: the conv library baseline (tools/pruner-bench; dlopen'ed)
  libomp-22-dev       # host target: OpenMP runtime for parallel loops
  libclang-rt-22-dev  # compiler-rt builtins: __truncsfbf2 for host objects that round to bf16
  python3-venv        # the IREE backend's venv (PRUNER_WITH_IREE=1)
  openmpi-bin libopenmpi-dev   # mpirun and MPI: tuning farmed out over ranks (docs/distributed.md)
)
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang libclang-rt-dev)   # libFuzzer (-fsanitize=fuzzer) for test/fuzz
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -ne 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # libomp-22-dev takes over libomp-dev's files; apt removes the older packages itself.
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# IREE (optional): the pinned wheels in a venv; tools/ links the real binaries (the
# wheels' bin/ entries are Python wrappers that cost ~0.2 s per call).
if [ "${PRUNER_WITH_IREE:-0}" = "1" ]; then
  iree_version=3.13.0
  venv="${XDG_CACHE_HOME:-$HOME/.cache}/pruner-mlir/iree-$iree_version"
  if [ ! -x "$venv/tools/iree-benchmark-module" ]; then
    echo "setup: installing IREE $iree_version into $venv"
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "iree-base-compiler==$iree_version" \
      "iree-base-runtime==$iree_version"
    site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    mkdir -p "$venv/tools"
    for tool in compiler/_mlir_libs/iree-compile compiler/_mlir_libs/iree-opt \
        _runtime_libs/iree-run-module _runtime_libs/iree-benchmark-module; do
      ln -sf "$site/iree/$tool" "$venv/tools/$(basename "$tool")"
    done
  fi
fi
