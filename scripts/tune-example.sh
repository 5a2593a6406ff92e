#!/usr/bin/env bash
# The README's main command: install what is missing, build, and tune the bundled model
# (examples/model.mlir) end to end, then print the summary table and where the tuned
# module and the tuning spec went.
#
# Measurement backend, best available first (the "tune-example: backend:" line says which ran):
#   1. a local GPU (nvidia-smi answers): --target=$TARGET --measure=gpu, real timings
#      against cuBLAS;
#   2. real measurements of the model's spaces under data/ (a records file named
#      data/<target>-model-replay.jsonl, e.g. written by pruner-run on a GPU host):
#      --measure=replay, latencies replayed from those measurements;
#   3. the host CPU (--target=host): the same tuner measures for real on this machine's
#      CPU, JIT-compiled kernels against OpenBLAS (docs/host.md). No GPU numbers, but
#      every number is a real measurement;
#   4. only when the host backend is not built: --measure=none, the draft and verifier
#      models alone choose and the output says "unmeasured" everywhere.
# On the host backend the tuned module is also compiled to an object file (out/model.o).
# Environment: TARGET (GPU target, default sm_90), TRIALS (default 200), BATCH (default 16
# on a GPU, 5 on the host, where a trial costs a JIT compile and timed runs on the CPU the
# tuner itself uses), WARMUP (host: round-robin rounds per workload before the gradient
# scheduler, default 3, so every workload gets several rounds: 8 x 3 x 5 = 120 trials, the
# other 80 where the gradient says), TIME (host: stop between rounds after this many
# seconds, default 240; ~2.5 minutes on 2 loaded cores), BUILD (default build), OUT
# (default out/), JOBS (default: cores), BACKEND (gpu, replay, host or none: skip the
# detection).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target="${TARGET:-sm_90}"
build="${BUILD:-build}"
out="${OUT:-out}"
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"

scripts/setup.sh
cmake -S . -B "$build"
cmake --build "$build" -j "$jobs"

mkdir -p "$out"
replay="data/${target}-model-replay.jsonl"
backend="${BACKEND:-}"
if [ -z "$backend" ]; then
  if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1; then
    backend=gpu
  elif [ -s "$replay" ]; then
    backend=replay
  elif [ -x "$build/bin/pruner-host-tool" ]; then
    backend=host # built with lib/backend/host: the host CPU target is available
  else
    backend=none
  fi
fi

args=()
case "$backend" in
  gpu)
    echo "tune-example: backend: the local GPU (--target=$target --measure=gpu): real timings against cuBLAS"
    args=(--target="$target" --measure=gpu --trials="${TRIALS:-200}" --batch="${BATCH:-16}")
    ;;
  replay)
    echo "tune-example: backend: no GPU here: replaying real $target measurements from $replay"
    args=(--target="$target" --measure="replay:$replay" --trials="${TRIALS:-200}"
          --batch="${BATCH:-16}")
    ;;
  host)
    echo "tune-example: backend: no GPU here and no measured GPU data under data/: tuning for"
    echo "tune-example: THIS MACHINE'S CPU instead (--target=host --measure=host): every"
    echo "tune-example: candidate is JIT-compiled, checked and timed here against OpenBLAS."
    echo "tune-example: These are real CPU measurements, not GPU numbers."
    args=(--target=host --measure=host --trials="${TRIALS:-200}" --batch="${BATCH:-5}"
          --warmup-rounds="${WARMUP:-3}" --time="${TIME:-240}")
    records_note="host"
    ;;
  none)
    echo "tune-example: backend: no GPU, no measured data under data/ and no host backend in"
    echo "tune-example: this build: ranking by the models alone (--measure=none)."
    echo "tune-example: Results are UNMEASURED predictions."
    args=(--target="$target" --measure=none)
    ;;
  *)
    echo "tune-example: unknown BACKEND=$backend (gpu, replay, host or none)" >&2
    exit 2
    ;;
esac

# Records are per target; one file per backend keeps a rerun resuming its own log.
records="$out/records-${records_note:-$target}.jsonl"
"$build/bin/pruner-tune" examples/model.mlir -o "$out/tuned.mlir" "${args[@]}" \
  --records="$records" --spec="$out/spec.mlir"

# A host-tuned module becomes an object file with the plugin's CPU pipeline (the kernels the
# tuner measured; docs/host.md, "From a tuned module to an object"): link it with
# -L/usr/lib/llvm-22/lib -lomp -lmlir_c_runner_utils -lm and call _mlir_ciface_<function>.
object=""
if [ "$backend" = host ]; then
  llvm=/usr/lib/llvm-22/bin
  "$llvm/mlir-opt" --load-pass-plugin="$build/lib/PrunerPlugin.so" \
    -p 'builtin.module(pruner-cpu-pipeline)' "$out/tuned.mlir" -o "$out/model.llvm.mlir"
  "$llvm/mlir-translate" --mlir-to-llvmir "$out/model.llvm.mlir" -o "$out/model.ll"
  "$llvm/llc" -O2 -relocation-model=pic -filetype=obj "$out/model.ll" \
    -o "$out/model.o"
  object="$out/model.o"
fi

echo
echo "tune-example: backend that ran: $backend"
echo "tune-example: tuned module:  $out/tuned.mlir  (pruner.config + pruner.tuning per op)"
echo "tune-example: tuning spec:   $out/spec.mlir   (apply with mlir-opt"
echo "              --transform-preload-library=transform-library-paths=$out/spec.mlir"
echo "              --transform-interpreter examples/model.mlir)"
echo "tune-example: records:       $records (rerun to resume; raise TRIALS to tune further)"
if [ -n "$object" ]; then
  echo "tune-example: object file:   $object (pruner-cpu-pipeline; entry points"
  echo "              _mlir_ciface_<function>; link with -L/usr/lib/llvm-22/lib -lomp"
  echo "              -lmlir_c_runner_utils -lm -Wl,-rpath,/usr/lib/llvm-22/lib)"
fi
case "$backend" in
  host) echo "tune-example: measured on this CPU (--target=host); nothing ran on a GPU." ;;
  none) echo "tune-example: measure=none: nothing ran anywhere; the table shows model predictions." ;;
esac
