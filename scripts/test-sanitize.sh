#!/usr/bin/env bash
# The sanitizer checks of CI (docs/hardening.md), runnable by hand:
#   1. build-asan: the whole project with AddressSanitizer + UBSan (-fno-sanitize-recover),
#      every ctest entry (unit, lit, fuzz harnesses through the plain driver).
#   2. build-fuzz: when clang with libFuzzer is installed (scripts/setup.sh --fuzz), the
#      fuzz harnesses as coverage-guided fuzzers, each run for PRUNER_FUZZ_SECONDS.
# Usage: scripts/test-sanitize.sh [asan-build-dir] [fuzz-build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
asan=${1:-build-asan}
fuzz=${2:-build-fuzz}
jobs=$(nproc)
seconds=${PRUNER_FUZZ_SECONDS:-20}

# Sanitizer findings fail a test by its exit status (and, in lit, by a signal, so that
# `not` cannot hide them: test/lit.cfg.py). UBSan's stack says where.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

stamp() { date +%s; }
t0=$(stamp)
cmake -S . -B "$asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPRUNER_SANITIZE=ON >/dev/null
cmake --build "$asan" -j "$jobs"
t1=$(stamp)
ctest --test-dir "$asan" --output-on-failure -j "$jobs"
t2=$(stamp)
echo "test-sanitize: ASan+UBSan build $((t1 - t0)) s, ctest $((t2 - t1)) s"

cc=$(command -v clang || true)
if [ -z "$cc" ] || ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
  "$cc" -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null; then
  echo "test-sanitize: no clang with libFuzzer (scripts/setup.sh --fuzz installs it);" \
       "the fuzz harnesses ran through the plain driver above"
  exit 0
fi
CC=$cc CXX=$(command -v clang++) cmake -S . -B "$fuzz" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPRUNER_FUZZ=ON -DPRUNER_FUZZ_SECONDS="$seconds" >/dev/null
cmake --build "$fuzz" -j "$jobs" --target pruner_fuzzers
t3=$(stamp)
ctest --test-dir "$fuzz" -L fuzz --output-on-failure -j "$jobs"
t4=$(stamp)
echo "test-sanitize: libFuzzer build $((t3 - t2)) s, fuzzing $((t4 - t3)) s" \
     "(${seconds} s per harness)"
