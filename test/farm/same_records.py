#!/usr/bin/env python3
"""Compares two records files line by line with the measured values masked.

The search chooses the same configs in the same order whatever the number of ranks; what
a measurement reads off the clock (samples, median, spread, clock, error, timestamp, the
compile and measure seconds)
differs from run to run even in one process, so those fields are left out. Every other
field (workload, target, config, status, scores, baseline lines) must match exactly.
Exit 0 when they do; 1 with the first difference otherwise."""
import json
import sys

MEASURED = {"samples_us", "median_us", "spread_us", "max_abs_error", "sm_clock_mhz",
            "timestamp", "compile_s", "measure_s"}


def load(path):
    out = []
    with open(path) as f:
        for line in f:
            if line.strip():
                rec = json.loads(line)
                out.append({k: v for k, v in rec.items() if k not in MEASURED})
    return out


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            keys = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
            print(f"line {i + 1} differs in {keys}: {[x.get(k) for k in keys]} vs "
                  f"{[y.get(k) for k in keys]}")
            return 1
    if len(a) != len(b):
        print(f"{sys.argv[1]} has {len(a)} records, {sys.argv[2]} has {len(b)}")
        return 1
    if not a:
        print("no records to compare")
        return 1
    print(f"same {len(a)} records (measured values masked)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
