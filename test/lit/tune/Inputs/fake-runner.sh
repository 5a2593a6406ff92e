#!/bin/sh
# A stand-in for pruner-run, for testing --measure=gpu's plumbing where no GPU exists:
# called as `fake-runner.sh BUNDLE -o RECORDS [options]`, it checks that the bundle holds a
# manifest and one cubin per candidate, then answers with $FAKE_RESULTS (records written by
# pruner-tune-replaygen: latencies are the helper's known function, not measurements).
set -e
bundle="$1"
out="$3"
test -s "$bundle/manifest.json"
ls "$bundle"/*.cubin > /dev/null
echo "fake-runner: $(ls "$bundle"/*.cubin | wc -l) cubin(s) in the bundle" >&2
cp "$FAKE_RESULTS" "$out"
