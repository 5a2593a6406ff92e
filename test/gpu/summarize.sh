#!/usr/bin/env bash
# Summary table of pruner-run records (docs/records.md), independent of pruner-run's own
# end-of-run table: that one is only printed when a run finishes, and the session stops
# dataset runs at a time limit (docs/gpu-session.md).
#
#   test/gpu/summarize.sh [--bundle=DIR]... RECORDS.jsonl...
#
# Per workload key: candidates by status, best median us and GFLOP/s, the cuBLAS record's
# median and ratio (cuBLAS us / best us; > 1: the candidate is faster). With --bundle (one
# or more), also how many of the bundles' distinct configs have no record yet ("left": not
# reached; a config two bundles share is measured once, pruner-run skips it the second time).
# GFLOP/s counts 2 * prod(bounds) (one multiply-add per point of the iteration space),
# right for the contractions and convolutions measured here; other kinds print "-".
# Needs only bash and awk (POSIX awk: mawk or gawk): the GPU host has no MLIR, no Python
# is assumed, and records are one unformatted JSON object per line (cJSON).
set -euo pipefail
bundles=()
files=()
for a in "$@"; do
  case $a in
    --bundle=*) bundles+=("${a#--bundle=}") ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "summarize.sh: unknown option '$a'" >&2; exit 2 ;;
    *) files+=("$a") ;;
  esac
done
[[ ${#files[@]} -gt 0 ]] || { echo "usage: summarize.sh [--bundle=DIR]... RECORDS..." >&2; exit 2; }

planned=/dev/null
if [[ ${#bundles[@]} -gt 0 ]]; then
  planned=$(mktemp)
  trap 'rm -f "$planned"' EXIT
  for b in "${bundles[@]}"; do
    [[ -f $b/manifest.json ]] || { echo "summarize.sh: no $b/manifest.json" >&2; exit 2; }
    # One "workload_key" and "config" per candidate in a manifest (workloads carry "key"
    # instead), whitespace removed so that the config reads as the records write it.
    tr -d ' \t\n\r' < "$b/manifest.json" |
      grep -o '"workload_key":"[^"]*","config":{[^}]*}'
  done | sort -u > "$planned" # a config in two bundles of one records file is measured once
fi

existing=()
for f in "${files[@]}"; do [[ -f $f ]] && existing+=("$f"); done
if [[ ${#existing[@]} -eq 0 ]]; then
  echo "(no records: ${files[*]})"
  existing=(/dev/null)
fi

awk -v planned="$planned" '
function field(line, key,    m) {  # string value of "key":"..." (first occurrence)
  if (match(line, "\"" key "\":\"[^\"]*\"")) {
    m = substr(line, RSTART, RLENGTH)
    sub("^\"" key "\":\"", "", m); sub("\"$", "", m)
    return m
  }
  return ""
}
function num(line, key,    m) {  # numeric value of "key":N (first occurrence)
  if (match(line, "\"" key "\":-?[0-9.eE+-]+")) {
    m = substr(line, RSTART, RLENGTH)
    sub("^\"" key "\":", "", m)
    return m + 0
  }
  return -1
}
function flops(line,    m, n, i, parts, p) {
  if (!match(line, "\"bounds\":\\[[0-9,]*\\]")) return 0
  m = substr(line, RSTART + 10, RLENGTH - 11)
  n = split(m, parts, ",")
  p = 2
  for (i = 1; i <= n; i++) p *= parts[i]
  return p
}
BEGIN {
  split("ok wrong_result launch_error timeout invalid compile_error", names, " ")
  while ((getline l < planned) > 0) {
    w = field(l, "workload_key")
    match(l, /"config":\{[^}]*\}/); pc[++np] = w SUBSEP substr(l, RSTART, RLENGTH)
    plan[w]++
    if (!(w in seen)) { order[++nk] = w; seen[w] = 1 }
  }
}
{
  wk = field($0, "workload_key"); if (wk == "") next
  if (match($0, /"config":\{[^}]*\}/)) measured[wk, substr($0, RSTART, RLENGTH)] = 1
  if (!(wk in seen)) { seen[wk] = 1; order[++nk] = wk }
  kind = field($0, "kind")
  st = field($0, "status")
  med = num($0, "median_us")
  if (field($0, "baseline") != "") {
    if (st == "ok" && med > 0 && (!(wk in base) || med < base[wk])) base[wk] = med
    next
  }
  cnt[wk, st]++; total[wk]++
  if (kind == "matmul" || kind == "batch_matmul" || kind ~ /^conv/) fl[wk] = flops($0)
  if (st == "ok" && med > 0 && (!(wk in best) || med < best[wk])) best[wk] = med
}
END {
  for (i = 1; i <= np; i++) if (!(pc[i] in measured)) { split(pc[i], f, SUBSEP); miss[f[1]]++ }
  printf "%-58s %5s %5s %6s %5s %5s %5s %5s %10s %9s %10s %7s\n", "workload", "ok", "wrong",
         "launch", "tmout", "inval", "comp", "left", "best_us", "GFLOP/s", "cublas_us", "ratio"
  for (i = 1; i <= nk; i++) {
    wk = order[i]
    left = (wk in plan) ? miss[wk] + 0 : "-"
    b = (wk in best) ? sprintf("%.2f", best[wk]) : "-"
    g = ((wk in best) && fl[wk] > 0) ? sprintf("%.0f", fl[wk] / (best[wk] * 1e3)) : "-"
    c = (wk in base) ? sprintf("%.2f", base[wk]) : "-"
    r = ((wk in base) && (wk in best)) ? sprintf("%.3f", base[wk] / best[wk]) : "-"
    printf "%-58.58s %5d %5d %6d %5d %5d %5d %5s %10s %9s %10s %7s\n", wk, cnt[wk, "ok"],
           cnt[wk, "wrong_result"], cnt[wk, "launch_error"], cnt[wk, "timeout"],
           cnt[wk, "invalid"], cnt[wk, "compile_error"], left, b, g, c, r
  }
  print "(ratio = cuBLAS us / best us, > 1: the candidate is faster;" \
        " left = bundle configs without a record)"
}' "${existing[@]}"
