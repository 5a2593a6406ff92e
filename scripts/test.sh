#!/usr/bin/env bash
# Runs every test: installs what is missing (IREE's pinned wheels too: the IREE backend's
# tests run in CI), configures, builds, then ctest (lit suite and C unit tests).
# Usage: scripts/test.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
PRUNER_WITH_IREE=${PRUNER_WITH_IREE:-1} scripts/setup.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
