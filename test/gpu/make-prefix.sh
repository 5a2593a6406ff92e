#!/usr/bin/env bash
# Copies cJSON and cmocka (headers and shared libraries) from this Debian machine into a
# prefix that check.sh can use on a GPU host without them: PRUNER_DEPS_PREFIX=OUT.
set -euo pipefail
out=${1:?usage: make-prefix.sh OUT_DIR}
mkdir -p "$out/include" "$out/lib"
cp -r /usr/include/cjson "$out/include/"
cp /usr/include/cmocka.h "$out/include/"
for lib in libcjson libcmocka; do
  cp -P /usr/lib/x86_64-linux-gnu/$lib.so* "$out/lib/"
done
echo "prefix ready: $out (use PRUNER_DEPS_PREFIX=$out test/gpu/check.sh BUNDLE)"
