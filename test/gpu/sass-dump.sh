#!/usr/bin/env bash
# A short GPU-host call after a session (docs/gpu-session.md, "Machine code"): the SASS
# census of the check bundles (test/gpu/sass_census.py, at most PER_KIND cubins per bundle
# and kind) and the full SASS of the census' cubins plus each check bundle's best candidate
# (BEST: bundle:id pairs from the session's summary), packed into $OUT/sass.tar.gz.
set -u
out=${OUT:-$PWD/out/sass-results}
prep=${GPU_SESSION_DIR:-out/gpu-session}
b=/tmp/sass-bundles
mkdir -p "$b" "$out/sass"
cu=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
echo "cuobjdump: $cu"
names=$(tar -tJf "$prep/bundles.tar.xz" | grep -o '^check-[a-z0-9]*/$' | sort -u | tr -d / | tr '\n' ' ')
tar -xJf "$prep/bundles.tar.xz" -C "$b" $names
echo "one cubin:"; time (timeout 30 "$cu" --dump-sass "$b/check-tc/c000000.cubin" | grep -c HMMA)
timeout "${CENSUS_LIMIT:-150}" python3 test/gpu/sass_census.py --cuobjdump="$cu" \
  --per-kind="${PER_KIND:-12}" --dump="$out/sass" "$b"/check-*/ 2>&1 | tee "$out/census.txt"
for pair in ${BEST:-}; do
  name=${pair%%:*} id=${pair##*:}
  f=$(printf '%s/%s/c%06d.cubin' "$b" "$name" "$id")
  [[ -f $out/sass/$name-$id.sass ]] || timeout 30 "$cu" --dump-sass "$f" > "$out/sass/$name-$id.sass"
done
tar -C "$out" -czf "$out/sass.tar.gz" sass && rm -rf "$out/sass"
ls -la "$out"
