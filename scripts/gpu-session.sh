#!/usr/bin/env bash
# Build-host side of a lent GPU session (docs/gpu-session.md).
#
#   scripts/gpu-session.sh prepare [DIR]    build the tools, compile the bundles, pack them
#                                           with cJSON/cmocka into DIR (default out/gpu-session),
#                                           check DIR fits the run tool's 64 MiB carry limit
#   scripts/gpu-session.sh simulate [DIR]   copy the repository as the run tool does (a fresh
#                                           git clone + the working tree's untracked, not
#                                           ignored files + DIR) into /tmp and run
#                                           test/gpu/session.sh there, as on the GPU host
#   scripts/gpu-session.sh check [DIR]      is DIR complete, and does it fit?
#
# The GPU host then runs one command, `bash test/gpu/session.sh`, with DIR carried.
#
# Bundles (compiled with the real pipeline: pruner-tune --measure=bundle:..., i.e.
# prunerCompileMany -> MLIR -> PTX -> ptxas -> cubin, target h200 = sm_90), one workload
# each, so that the GPU session can give each its share of the time:
#   check-matmul     test/gpu/Inputs/matmul.mlir (f32 1024^3), CHECK_PER_OP picks: the
#                    draft's ranking with each pick replaced by a uniformly random valid
#                    config with probability CHECK_EPSILON (pruner-tune's ε-greedy), seed 1
#   check-bmm        test/gpu/Inputs/batch-matmul.mlir (12x128x64 . 12x64x128), likewise
#   check-conv       test/gpu/Inputs/conv.mlir (ResNet-50 3x3, NHWC 1x58x58x64 * 3x3x64x64)
#   check-igemm      the same conv, implicit-GEMM configs only (pruner-tune
#                    --schedules=implicit-gemm: draft ranking and ε picks inside them)
#   check-tc         test/gpu/Inputs/tc-gemm.mlir (GPT-2 QKV, f16 1024x768 * 768x2304 -> f32):
#                    tensor-core (mma) configs from the draft, FMA ones from the ε picks
#   check-tcs        the same GEMM, staged tensor-core configs only (pruner-tune
#                    --schedules=tensor-core-staged: one stage, or a 2-3 stage cp.async
#                    pipeline; fragments by ldmatrix in both), so that a session compares
#                    them with check-tc's
#   check-gemv       test/gpu/Inputs/gemv.mlir (GPT-2 decode QKV GEMV 1x768 . 768x2304,
#                    f16 in, f32 accumulation; cuBLAS baseline: GemmEx, f16 in, f32 compute)
#   check-rowred     test/gpu/Inputs/row-reduction.mlir (row sum 128x4096 f32; no cuBLAS)
#   check-splitk     test/gpu/Inputs/gemv-down.mlir (GPT-2 decode MLP down GEMV 1x3072 .
#                    3072x768, f16 in, f32 accumulation), split-K and cross-thread configs
#                    only (--schedules=split-k,cross-thread; cuBLAS GemmEx baseline)
#   check-act        test/gpu/Inputs/activations.mlir: four elementwise 128x768 f32 ops,
#                    GELU (erf), tanh, an rsqrt scale, log(sqrt(|x|)): CHECK_PER_OP picks
#                    among the four (no cuBLAS); the first run of these math kernels
#   check-conv1x1    test/gpu/Inputs/conv1x1.mlir (ResNet-50 1x1 64 -> 256 over 56x56, f16 in,
#                    f32 out) compiled with --conv1x1-as-matmul: the GEMM 3136x256x64 it is,
#                    tensor-core configs from the draft; cuBLAS GemmEx baseline of that GEMM
#   dataset-matmul   matmul.mlir, DATASET_SIZE picks, ε = DATASET_EPSILON, seed 2: about
#                    (1-ε)·N of the draft's top configs and ε·N uniformly random valid ones.
#                    NOT the complete space (39,166 valid configs).
#   dataset-conv     conv.mlir, likewise, seed 3 (118,699 valid configs)
#   dataset-tc-*     the COMPLETE tensor-core spaces (--schedules=tensor-core,
#                    tensor-core-staged: fragments from global memory, one-stage staged,
#                    2-3 stage pipelines) of four f16 -> f32 GEMMs, in the draft's order
#                    (--pretrained=none, ε = 0): qkv (tc-gemm.mlir, GPT-2 QKV 1024x2304x768,
#                    1,316 configs), mlpup (unseen/mlp-up-f16.mlir, 1024x3072x768, 1,316),
#                    qkv128 (unseen/qkv-128-f16.mlir, 128x2304x768, 1,135), conv1x1
#                    (conv1x1.mlir as its GEMM 3136x256x64, 495). Measured on 2026-12-04
#                    (twice); kept by name (BUNDLES=...), as are dataset-matmul and
#                    dataset-conv.
#   dataset-tc-mlpdown, dataset-tc-proj4096
#                    the same for two f16 GEMMs HELD OUT from the draft's L1 term and the
#                    prior (heldout/: GPT-2 MLP down 1024x768x3072, a 512x4096x4096
#                    projection): the test of a model whose form was written on the four
#                    above. In the default set.
#   dataset-all-*    the COMPLETE spaces, all kinds, of the decode GEMVs (gemv: 1x2304x768,
#                    gemvdown: 1x768x3072, both f16 -> f32) and the row sum 128x4096
#                    (rowred), in the draft's order; by name only (BUNDLES=...).
# Configs that fail to compile are left out of a bundle (PREPARED says how many made it).
#
# Environment: BUILD (default build-gpuprep), JOBS (compile workers, default 2),
# CHECK_PER_OP (100), CHECK_EPSILON (0.2), DATASET_SIZE (3000), DATASET_EPSILON (0.3333),
# FORCE=1 (recompile bundles that exist), BUNDLES (default: the ten check bundles and the
# two held-out tensor-core spaces), WORK (unpacked
# bundles and logs, default out/gpu-bundles; not carried).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
cmd=${1:-}
dir=${2:-out/gpu-session}
build=${BUILD:-build-gpuprep}
work=${WORK:-out/gpu-bundles}
jobs=${JOBS:-2}
carry_limit=$((64 * 1024 * 1024)) # the run tool's limit on carried paths, all together
target=h200
default_bundles="check-matmul check-bmm check-conv check-igemm check-tc check-tcs check-gemv
  check-rowred check-splitk check-conv1x1 check-act dataset-tc-mlpdown dataset-tc-proj4096"
all_bundles=${BUNDLES:-$default_bundles}

die() { echo "gpu-session: $*" >&2; exit 1; }

# Candidates per workload key in a manifest.
manifest_counts() {
  grep -o '"workload_key":[[:space:]]*"[^"]*"' "$1" | sed 's/.*"\([^"]*\)"$/\1/' | sort | uniq -c
}

compile_bundle() { # NAME MODULE TRIALS BATCH EPSILON SEED [pruner-tune options...]
  local name=$1 module=$2 trials=$3 batch=$4 eps=$5 seed=$6
  shift 6
  local out="$work/$name"
  if [[ -f $out/manifest.json && "${FORCE:-0}" != 1 ]]; then
    echo "== $name: kept ($out/manifest.json exists; FORCE=1 recompiles)"
    return 0
  fi
  rm -rf "$out" "$out.tmp"
  echo "== $name: compiling $trials picks of $module (batch $batch, epsilon $eps, seed $seed, $jobs jobs)"
  local t0; t0=$(date +%s)
  # ulimit: the compile workers set their own RLIMIT_AS (6000 MB); this caps the driver.
  ( ulimit -v 16000000
    nice timeout 10800 "$build/bin/pruner-tune" "$module" -o "$work/$name.tuned.mlir" \
      --target=$target --measure=bundle:"$out.tmp" --trials="$trials" --batch="$batch" \
      --epsilon="$eps" --seed="$seed" --jobs="$jobs" --records="$work/$name.compile.jsonl" \
      --quiet "$@" ) > "$work/$name.log" 2>&1 || { tail -20 "$work/$name.log"; die "$name: pruner-tune failed"; }
  local t1; t1=$(date +%s)
  mv "$out.tmp" "$out"
  local n; n=$(grep -o '"cubin":[[:space:]]*"' "$out/manifest.json" | wc -l)
  # The commit compiled from (+wt: lib/include/passes/tools had uncommitted changes).
  local rev; rev=$(git rev-parse --short HEAD)
  git diff --quiet HEAD -- lib include passes tools 2>/dev/null || rev="$rev+wt"
  echo "$trials $((t1 - t0)) $rev" > "$work/$name.time"
  bundle_stats "$name"
}

# A bundle meant to hold a complete space is complete only if the trials outnumbered the
# configs (the tuner ran out of configs, not of trials) and none failed to compile.
check_complete() { # NAME TRIALS
  local n; n=$(grep -o '"cubin":[[:space:]]*"' "$work/$1/manifest.json" | wc -l)
  ((n < $2)) || die "$1: $n configs for $2 trials: the space may hold more; raise the trials"
  local bad; bad=$(grep -c '"status":"compile_error"' "$work/$1.compile.jsonl" 2> /dev/null || true)
  ((${bad:-0} == 0)) || die "$1: $bad configs failed to compile: the bundle is not the complete space"
}

tc_dataset() { # NAME MODULE [pruner-tune options...]: a complete tensor-core space
  local name=$1 module=$2 trials=${TC_DATASET_TRIALS:-2000}
  shift 2
  compile_bundle "$name" "$module" "$trials" "$trials" 0 4 \
    --pretrained=none --schedules=tensor-core,tensor-core-staged "$@"
  check_complete "$name" "$trials"
}

all_dataset() { # NAME MODULE: every valid config of the module's one op, in the draft's order
  local trials=${ALL_DATASET_TRIALS:-6000}
  compile_bundle "$1" "$2" "$trials" "$trials" 0 4 --pretrained=none
  check_complete "$1" "$trials"
}

# One line per bundle for PREPARED: candidates, compile time, size; then per workload.
bundle_stats() {
  local name=$1 out="$work/$1"
  local n; n=$(grep -o '"cubin":[[:space:]]*"' "$out/manifest.json" | wc -l)
  local bytes; bytes=$(du -sb "$out" | cut -f1)
  local trials=? secs=? rev=?
  [[ -f $work/$name.time ]] && read -r trials secs rev < "$work/$name.time"
  echo "$name: $n of $trials picks compiled in ${secs}s ($(awk -v n="$trials" -v s="$secs" 'BEGIN{printf "%.2f", (s > 0) ? n / s : 0}') picks/s on $jobs jobs) at ${rev:-?}, $((bytes / 1024)) KiB of cubins + manifest"
  manifest_counts "$out/manifest.json"
}

# The prepared folder is whole and fits the run tool; "tree-warns": a working tree too
# large to travel is a note, not a failure (prepare, on a branch with data/).
check_dir() {
  [[ -f $dir/PREPARED ]] || die "$dir/PREPARED missing (run: scripts/gpu-session.sh prepare $dir)"
  [[ -f $dir/bundles.tar.xz ]] || die "$dir/bundles.tar.xz missing"
  [[ -f $dir/deps/include/cjson/cJSON.h && -f $dir/deps/include/cmocka.h ]] || die "$dir/deps incomplete"
  ls "$dir"/deps/lib/libcjson.so* "$dir"/deps/lib/libcmocka.so* > /dev/null || die "$dir/deps/lib incomplete"
  xz -t "$dir/bundles.tar.xz" || die "$dir/bundles.tar.xz is corrupt"
  # The limit covers everything that travels: tracked and untracked-not-ignored files too.
  local bytes tree
  bytes=$(du -sb "$dir" | cut -f1)
  tree=$(git ls-files -co --exclude-standard -z | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
  echo "$dir: $((bytes / 1024)) KiB carried + $((tree / 1024)) KiB working tree = $(((bytes + tree) / 1024)) KiB of the $((carry_limit / 1024)) KiB limit"
  if ((bytes + tree >= carry_limit)); then
    # The committed host datasets (data/*.jsonl, about 100 MB since the wide spaces) are
    # the usual cause; the GPU host needs none of them (docs/gpu-session.md, "The tree").
    echo "largest tracked folders:"
    git ls-files -z | du -cb --files0-from=- 2>/dev/null | grep -v 'total$' |
      awk -F'\t' '{ d = $2; sub(/\/[^\/]*$/, "", d); s[d] += $1 } END { for (d in s) printf "%8d KiB  %s\n", s[d] / 1024, d }' |
      sort -rn | head -5
    local why="too large to travel ($((bytes + tree)) >= $carry_limit bytes): run the session from a branch without data/*.jsonl (docs/gpu-session.md, \"The tree\")"
    # prepare: the folder is ready, only this tree is not; check and simulate refuse.
    [[ ${1:-fatal} == fatal ]] && die "$why"
    echo "gpu-session: note: the folder is prepared, but this working tree is $why"
  fi
  case $dir in /*|../*) die "$dir must be a path inside the repository (the run tool's carry list)";; esac
  if git check-ignore -q "$dir"; then :; else die "$dir is not git-ignored: it would travel as untracked files and could be committed"; fi
}

prepare() {
  command -v xz > /dev/null || die "xz is needed to pack the bundles"
  [[ -x /usr/local/cuda/bin/ptxas ]] || die "ptxas (CUDA) is needed to compile cubins"
  echo "== build ($build: pruner-tune)"
  [[ -f $build/CMakeCache.txt ]] || nice cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null
  nice cmake --build "$build" --target pruner-tune -j 2 > "$build/gpu-session-build.log" 2>&1 ||
    { tail -20 "$build/gpu-session-build.log"; die "build failed"; }
  mkdir -p "$work" "$dir"
  local per_op=${CHECK_PER_OP:-100} size=${DATASET_SIZE:-3000}
  local ce=${CHECK_EPSILON:-0.2} de=${DATASET_EPSILON:-0.3333} in=test/gpu/Inputs
  for b in $all_bundles; do
    case $b in
      check-matmul) compile_bundle "$b" $in/matmul.mlir "$per_op" "$per_op" "$ce" 1 ;;
      check-bmm) compile_bundle "$b" $in/batch-matmul.mlir "$per_op" "$per_op" "$ce" 1 ;;
      check-conv) compile_bundle "$b" $in/conv.mlir "$per_op" "$per_op" "$ce" 1 ;;
      check-igemm) compile_bundle "$b" $in/conv.mlir "$per_op" "$per_op" "$ce" 1 \
        --schedules=implicit-gemm ;;
      check-tc) compile_bundle "$b" $in/tc-gemm.mlir "$per_op" "$per_op" "$ce" 1 ;;
      check-tcs) compile_bundle "$b" $in/tc-gemm.mlir "$per_op" "$per_op" "$ce" 1 \
        --schedules=tensor-core-staged ;;
      check-gemv) compile_bundle "$b" $in/gemv.mlir "$per_op" "$per_op" "$ce" 1 ;;
      check-rowred) compile_bundle "$b" $in/row-reduction.mlir "$per_op" "$per_op" "$ce" 1 ;;
      check-splitk) compile_bundle "$b" $in/gemv-down.mlir "$per_op" "$per_op" "$ce" 1 \
        --schedules=split-k,cross-thread ;;
      check-conv1x1) compile_bundle "$b" $in/conv1x1.mlir "$per_op" "$per_op" "$ce" 1 \
        --conv1x1-as-matmul ;;
      check-act) compile_bundle "$b" $in/activations.mlir "$per_op" "$per_op" "$ce" 1 ;;
      # Datasets rank by the draft alone (--pretrained=none: no shipped prior), so that they
      # stay the draft's top plus uniform picks whatever models ship (docs/gpu-session.md).
      dataset-matmul) compile_bundle "$b" $in/matmul.mlir "$size" "$size" "$de" 2 --pretrained=none ;;
      dataset-conv) compile_bundle "$b" $in/conv.mlir "$size" "$size" "$de" 3 --pretrained=none ;;
      # Complete tensor-core spaces: more trials than configs, no random share, so every
      # config is compiled once, in the draft's order (a cut on the GPU keeps its best).
      dataset-tc-qkv) tc_dataset "$b" $in/tc-gemm.mlir ;;
      dataset-tc-mlpup) tc_dataset "$b" $in/unseen/mlp-up-f16.mlir ;;
      dataset-tc-qkv128) tc_dataset "$b" $in/unseen/qkv-128-f16.mlir ;;
      dataset-tc-conv1x1) tc_dataset "$b" $in/conv1x1.mlir --conv1x1-as-matmul ;;
      dataset-tc-mlpdown) tc_dataset "$b" $in/heldout/mlp-down-f16.mlir ;;
      dataset-tc-proj4096) tc_dataset "$b" $in/heldout/proj-512x4096-f16.mlir ;;
      # Complete spaces of every kind (FMA, cross-thread, split-K) of the bandwidth-bound
      # shapes, where the draft ranks worst (docs/quality.md): by name only.
      dataset-all-gemv) all_dataset "$b" $in/gemv.mlir ;;
      dataset-all-gemvdown) all_dataset "$b" $in/gemv-down.mlir ;;
      dataset-all-rowred) all_dataset "$b" $in/row-reduction.mlir ;;
      *) die "unknown bundle '$b'" ;;
    esac
  done
  echo "== deps prefix (cJSON, cmocka)"
  rm -rf "$dir/deps"
  test/gpu/make-prefix.sh "$dir/deps" > /dev/null
  echo "== pack"
  local names=()
  for b in $all_bundles; do names+=("$b"); done
  local t0 stale=0 b; t0=$(date +%s)
  [[ -f $dir/bundles.tar.xz && -f $dir/bundles.list ]] || stale=1
  [[ "$(cat "$dir/bundles.list" 2>/dev/null)" == "${names[*]}" ]] || stale=1
  for b in "${names[@]}"; do
    [[ $work/$b/manifest.json -nt $dir/bundles.tar.xz ]] && stale=1
  done
  if ((stale)); then
    # xz: cubins of one space are alike and compress 13-30x (gzip: 3x, too big to carry).
    tar -C "$work" -cf - "${names[@]}" | xz -6 -T1 > "$dir/bundles.tar.xz.tmp"
    mv "$dir/bundles.tar.xz.tmp" "$dir/bundles.tar.xz"
    echo "${names[*]}" > "$dir/bundles.list"
    echo "packed in $(( $(date +%s) - t0 ))s: $(du -sh "$work" | cut -f1) -> $(du -sh "$dir/bundles.tar.xz" | cut -f1)"
  else
    echo "kept $dir/bundles.tar.xz (newer than every bundle's manifest)"
  fi
  {
    echo "prepared: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname 2>/dev/null || echo ?)"
    echo "packed at commit: $(git rev-parse --short HEAD) (per bundle below: the commit it was compiled at; +wt: with uncommitted changes in lib/include/passes/tools)"
    echo "target: $target; compiler: $(/usr/local/cuda/bin/ptxas --version | tail -1)"
    for b in "${names[@]}"; do bundle_stats "$b"; done
  } > "$dir/PREPARED"
  rm -rf "$dir/bundles" # a stale unpacked copy must not travel
  cat "$dir/PREPARED"
  check_dir tree-warns
}

simulate() {
  check_dir
  local sim=/tmp/gpu-session-sim.$$
  rm -rf "$sim"
  echo "== simulate in $sim: git clone + untracked files + carried $dir"
  git clone -q --no-hardlinks "$root" "$sim/repo"
  # The run tool copies the working tree, not HEAD: modified tracked files and untracked,
  # not ignored ones travel too.
  git ls-files -m -o --exclude-standard -z | while IFS= read -r -d '' f; do
    mkdir -p "$sim/repo/$(dirname "$f")"
    [[ -e $f ]] && cp -p "$f" "$sim/repo/$f"
  done
  mkdir -p "$sim/repo/$(dirname "$dir")"
  cp -r "$dir" "$sim/repo/$dir"
  rm -rf "$sim/repo/.git" # the device copy has no git metadata either
  echo "copy: $(du -sh "$sim/repo" | cut -f1)"
  local code=0
  (cd "$sim/repo" && OUT="$sim/OUT" GPU_SESSION_DIR="$dir" BUDGET="${BUDGET:-480}" bash test/gpu/session.sh) || code=$?
  echo "== session.sh exit status $code; \$OUT:"
  ls -la "$sim/OUT"
  # The run tool brings back at most 8 files of at most 16 MiB each, 64 MiB in all.
  local nfiles; nfiles=$(find "$sim/OUT" -type f | wc -l)
  ((nfiles <= 8)) || echo "WARNING: $nfiles files under \$OUT; only 8 come back"
  find "$sim/OUT" -type f -size +16M -exec echo "WARNING: over 16 MiB, would not come back:" {} \;
  echo "(left in $sim; remove with rm -rf $sim)"
  return $code
}

case $cmd in
  prepare) prepare ;;
  check) check_dir ;;
  simulate) simulate ;;
  *) sed -n '2,30p' "$0"; exit 2 ;;
esac
