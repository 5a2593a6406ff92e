#!/bin/sh
# ctest install.package: install the build into a fresh prefix, then use it as a user
# would, with nothing of the build or source tree on any path: a CMake project links the
# installed libraries (test/install/CMakeLists.txt) and runs the embedding tests; the
# installed pruner-tune tunes a module with its shipped prior; the installed plugin runs
# in the stock mlir-opt.
# usage: check_install.sh BUILD_DIR SOURCE_DIR LLVM_BIN WORK_DIR
set -eu
build=$1 src=$2 llvm_bin=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >"$work/install.log"
for f in bin/pruner-tune lib/PrunerPlugin.so include/pruner/tune.h \
    lib/cmake/pruner-mlir/pruner-mlir-config.cmake; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f was not installed"; exit 1; }
done

# Out of the build tree: the installed headers and package only.
cmake -S "$src/test/install" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DPRUNER_EMBED_SOURCES="$src/test/unit/embed" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; echo "FAIL: the consumer does not configure"; exit 1; }
grep -q "^pruner-mlir_DIR:PATH=$prefix/lib/cmake/pruner-mlir\$" "$work/consumer/CMakeCache.txt" ||
  { echo "FAIL: the consumer did not find the installed package"; exit 1; }
cmake --build "$work/consumer" -- VERBOSE=1 >"$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log"; echo "FAIL: the consumer does not build"; exit 1; }
# Its compile and link lines name the installed headers and archives, never the trees'.
if grep -E -- "$build/lib|$src/include" "$work/build.log"; then
  echo "FAIL: the consumer was built from the build or source tree"; exit 1
fi
"$work/consumer/embed"
"$work/consumer/apply_alone"

# The installed tools find the shipped priors beside their bin folder.
"$prefix/bin/pruner-tune" --target=host --measure=none --trials=4 \
  "$src/test/lit/tune/Inputs/small.mlir" -o "$work/tuned.mlir" >"$work/tune.out" 2>"$work/tune.log"
grep -q "verifier prior: $prefix/share/pruner-mlir/models/" "$work/tune.log" ||
  { cat "$work/tune.log"; echo "FAIL: the installed pruner-tune used no shipped prior"; exit 1; }
grep -q 'pruner.config' "$work/tuned.mlir" || { echo "FAIL: no pruner.config written"; exit 1; }

# The installed plugin in the stock mlir-opt.
"$llvm_bin/mlir-opt" --load-pass-plugin="$prefix/lib/PrunerPlugin.so" \
  -p 'builtin.module(pruner-apply-config{target=host})' "$work/tuned.mlir" -o "$work/applied.mlir"
if grep -q 'linalg\.' "$work/applied.mlir"; then
  echo "FAIL: linalg ops left after the installed plugin's pruner-apply-config"; exit 1
fi
echo "install.package: ok ($prefix)"
