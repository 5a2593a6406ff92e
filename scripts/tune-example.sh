#!/usr/bin/env bash
# The README's main command: install what is missing, build, and tune the bundled model
# (examples/model.mlir) end to end, then print the summary table and where the tuned
# module and the tuning spec went.
#
# Measurement backend, best available first:
#   1. a local GPU (nvidia-smi answers): --measure=gpu, real timings against cuBLAS;
#   2. real measurements of the model's spaces under data/ (a records file named
#      data/<target>-model-replay.jsonl, e.g. written by pruner-run on a GPU host):
#      --measure=replay, latencies replayed from those measurements;
#   3. otherwise --measure=none: the draft and verifier models alone choose, and the
#      output says "unmeasured" everywhere.
# Environment: TARGET (default sm_90), TRIALS (default 200), BUILD (default build),
# OUT (default out/), JOBS (default: cores).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target="${TARGET:-sm_90}"
trials="${TRIALS:-200}"
build="${BUILD:-build}"
out="${OUT:-out}"
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"

scripts/setup.sh
cmake -S . -B "$build"
cmake --build "$build" -j "$jobs"

mkdir -p "$out"
replay="data/${target}-model-replay.jsonl"
if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1; then
  measure="gpu"
  echo "tune-example: a GPU answers: measuring on it (--measure=gpu)"
elif [ -s "$replay" ]; then
  measure="replay:$replay"
  echo "tune-example: no GPU here: replaying real measurements from $replay"
else
  measure="none"
  echo "tune-example: no GPU here and no measured data under data/: ranking by the models"
  echo "tune-example: alone (--measure=none). Results are UNMEASURED predictions."
fi

"$build/bin/pruner-tune" examples/model.mlir -o "$out/tuned.mlir" --target="$target" \
  --trials="$trials" --measure="$measure" --records="$out/records.jsonl" \
  --spec="$out/spec.mlir"

echo
echo "tune-example: tuned module:  $out/tuned.mlir  (pruner.config + pruner.tuning per op)"
echo "tune-example: tuning spec:   $out/spec.mlir   (apply with mlir-opt"
echo "              --transform-preload-library=transform-library-paths=$out/spec.mlir"
echo "              --transform-interpreter examples/model.mlir)"
echo "tune-example: records:       $out/records.jsonl"
if [ "$measure" = "none" ]; then
  echo "tune-example: measure=none: nothing ran on a GPU; the table shows model predictions."
fi
