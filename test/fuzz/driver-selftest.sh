#!/bin/sh
# The plain driver catches what it must (ctest fuzz.driver_selftest):
#   driver-selftest.sh FUZZ_SELFTEST SCRATCH_DIR
# a clean corpus passes with mutations; a planted crash (a broken check, a memory error)
# fails the run and its input is written where the driver says; a hang is cut by -timeout and written too; the same
# -seed gives the same cases.
set -eu
exe=$1 dir=$2
rm -rf "$dir"
mkdir -p "$dir/ok" "$dir/bad" "$dir/hang" "$dir/art"
printf 'hello' > "$dir/ok/a"
printf 'world' > "$dir/ok/b"
"$exe" -mutations=2000 "$dir/ok" > "$dir/ok.log"
grep -q '2002 case(s)' "$dir/ok.log"

printf 'boom!' > "$dir/bad/c"
if "$exe" -artifact_prefix="$dir/art/" "$dir/ok" "$dir/bad/c" 2> "$dir/bad.log"; then
  echo "driver-selftest: the planted crash went unnoticed"; exit 1
fi
grep -q 'planted bug' "$dir/bad.log"
cmp "$dir/bad/c" "$dir/art/crash-2"   # cases 0, 1: ok/a, ok/b; case 2: bad/c

printf 'oob!' > "$dir/bad/e"
if "$exe" -artifact_prefix="$dir/art/" "$dir/bad/e" 2> "$dir/oob.log"; then
  echo "driver-selftest: the planted memory error went unnoticed"; exit 1
fi
cmp "$dir/bad/e" "$dir/art/crash-0"

printf 'hang' > "$dir/hang/d"
if "$exe" -timeout=1 -artifact_prefix="$dir/art/" "$dir/hang" 2> "$dir/hang.log"; then
  echo "driver-selftest: the hang went unnoticed"; exit 1
fi
cmp "$dir/hang/d" "$dir/art/timeout-0"

# Deterministic: -only=K replays case K of the same sequence, as the message says.
"$exe" -mutations=50 -seed=3 "$dir/ok" > /dev/null
"$exe" -seed=3 -only=40 "$dir/ok" > "$dir/only.log"
grep -q '1 case(s)' "$dir/only.log"
echo "driver-selftest: ok"
