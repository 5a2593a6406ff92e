#!/usr/bin/env bash
# Compile-only throughput of the GPU backend farmed out over MPI ranks (docs/distributed.md,
# "Speed"): `pruner-tune --measure=bundle:DIR` on examples/matmul.mlir for sm_90 with N
# ranks, each compiling one candidate at a time (--jobs=1), repeated RUNS times per N;
# prints cubins per second (cubins in the bundle / wall time of the whole mpirun) as
# min / median / max per N and the median's speedup over N=1. Oversubscribed ranks share
# the machine's cores: on a 2-core machine N=4 shows the cost of oversubscription.
# Usage: scripts/mpi-bench.sh [BUILD_DIR] [RUNS] [N...]   (default: build 5 1 2 4)
# Env: TRIALS (default 48), BATCH (default 16), JOBS (default 1).
set -euo pipefail
build=${1:-build}
runs=${2:-5}
shift $(( $# > 2 ? 2 : $# ))
ns=("$@")
[ ${#ns[@]} -gt 0 ] || ns=(1 2 4)
root=$(cd "$(dirname "$0")/.." && pwd)
tune="$build/bin/pruner-tune"
command -v mpirun > /dev/null || { echo "mpi-bench: no mpirun (scripts/setup.sh installs Open MPI)"; exit 1; }
[ -x "$tune" ] || { echo "mpi-bench: no $tune (build first)"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
args=("$root/examples/matmul.mlir" --target=sm_90 --trials="${TRIALS:-48}" --batch="${BATCH:-16}"
      --jobs="${JOBS:-1}" --seed=1 -q -o "$work/out.mlir")
base=""
for n in "${ns[@]}"; do
  rates=()
  for ((i = 0; i <= runs; ++i)); do   # run 0: warm-up, not counted
    rm -rf "$work/b"
    t0=$(date +%s.%N)
    if ! mpirun -n "$n" --oversubscribe --bind-to none "$tune" "${args[@]}" \
      --measure=bundle:"$work/b" > /dev/null 2> "$work/log"; then
      echo "mpi-bench: N=$n, run $i failed:"
      tail -n 20 "$work/log"
      exit 1
    fi
    t1=$(date +%s.%N)
    cubins=$(ls "$work/b" | grep -c '\.cubin$' || true)
    [ "$i" -gt 0 ] && rates+=("$(python3 -c "print($cubins / ($t1 - $t0))")")
  done
  read -r mn md mx < <(printf '%s\n' "${rates[@]}" | python3 -c '
import statistics, sys
v = sorted(float(x) for x in sys.stdin)
print(v[0], statistics.median(v), v[-1])')
  [ -n "$base" ] || base=$md
  printf 'N=%d: %s cubins per run, cubins/s min %.1f median %.1f max %.1f, median speedup %.2fx\n' \
    "$n" "$cubins" "$mn" "$md" "$mx" "$(python3 -c "print($md / $base)")"
done
