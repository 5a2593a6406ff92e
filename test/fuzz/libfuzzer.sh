#!/bin/sh
# Runs one libFuzzer harness for a bounded time (the fuzz.<kind> ctest entries of a
# PRUNER_FUZZ=ON build; docs/hardening.md):
#   libfuzzer.sh FUZZER WORK_DIR SEED_CORPUS SECONDS [DICT]
# WORK_DIR is emptied and receives the inputs found this run (the committed seed corpus
# is only read); a crash, leak, sanitizer report or hang (-timeout) fails the test and is
# kept as WORK_DIR-artifacts/crash-<sha1> (or timeout-, leak-, oom-) for reproduction:
# FUZZER FILE.
set -eu
fuzzer=$1 work=$2 corpus=$3 seconds=$4
dict=""
if [ $# -ge 5 ] && [ -f "$5" ]; then dict="-dict=$5"; fi
rm -rf "$work"
mkdir -p "$work" "$work-artifacts"
# -timeout: one input running this long is a hang. -rss_limit_mb: well above what a
# context with every dialect needs, below what would hurt a 2-core CI machine.
# -seed: PRUNER_FUZZ_SEED (default 1), so that a run, CI's included, is reproducible
# rather than a draw; give other seeds by hand to explore new inputs.
exec "$fuzzer" -seed="${PRUNER_FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=3072 -max_len=16384 \
  -print_final_stats=1 -artifact_prefix="$work-artifacts/" $dict "$work" "$corpus"
