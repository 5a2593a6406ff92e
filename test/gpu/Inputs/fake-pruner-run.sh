#!/usr/bin/env bash
# A stand-in for pruner-run to test test/gpu/session.sh's time limits and tables where no
# GPU exists: `fake-pruner-run.sh BUNDLE -o RECORDS [options]` appends one minimal record
# per candidate of BUNDLE's manifest (status ok, a made-up median; every 10th "timeout";
# a config already in RECORDS for the same workload skipped, as pruner-run does),
# sleeping FAKE_SLEEP seconds (default 0.01) per candidate, plus one cuBLAS baseline line.
# FAKE_NO_DEVICE=1: answers like pruner-run without a device (exit 3).
# Not measurements: only the plumbing is under test.
set -euo pipefail
bundle=$1 out=$3
if [[ -n ${FAKE_NO_DEVICE:-} ]]; then
  echo "no CUDA device: fake runner asked to have none"
  exit 3
fi
echo "device: FAKE (no GPU)"
echo "target key: sm_90:h200:132sm"
i=0
# One line per candidate: its workload key and config (whitespace removed, as records
# write them), so that the session's "left" column can match records to candidates.
tr -d ' \t\n\r' < "$bundle/manifest.json" | grep -o '"workload_key":"[^"]*","config":{[^}]*}' |
while read -r line; do
  wk=${line#\"workload_key\":\"}; wk=${wk%%\"*}
  cfg=${line#*\"config\":}
  kind=${wk%%:*}
  if (( i == 0 )); then
    echo "{\"workload_key\":\"$wk\",\"workload\":{\"kind\":\"$kind\",\"bounds\":[64,64,64]},\"baseline\":\"cublas\",\"status\":\"ok\",\"median_us\":50}" >> "$out"
  fi
  # As pruner-run: a config the records file already holds for this workload is skipped.
  head="\"workload_key\":\"$wk\",\"workload\":{\"kind\":\"$kind\",\"bounds\":[64,64,64]}"
  if [[ -f $out ]] && grep -qF "$head,\"config\":$cfg" "$out"; then
    continue
  fi
  status=ok; (( i % 10 == 9 )) && status=timeout
  echo "{$head,\"config\":$cfg,\"status\":\"$status\",\"median_us\":$((100 + i % 37))}" >> "$out"
  i=$((i + 1))
  sleep "${FAKE_SLEEP:-0.01}"
done
echo "fake run done"
