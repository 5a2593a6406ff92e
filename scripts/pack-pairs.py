#!/usr/bin/env python3
"""scripts/pack-pairs.py [BUILD_DIR]: the draft against the measured packed/unpacked twins
(docs/host.md, "Packing B"). data/host-pack-pairs-amd.jsonl holds 30 unpacked configs of
each of four matmuls and their packed twins as records (the second pass);
data/host-pack-pairs-amd-pass1.tsv the first pass of the same 240 configs, on which the
draft's DTLB_MISS_EXPOSED was chosen. For each pass this prints the draft's Spearman per
workload (pruner-draft --eval --dataset-target=records: the records' own machine) and how
often it orders a twin pair as measured; and how far the two passes agree with each other.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
RECORDS = os.path.join(ROOT, "data", "host-pack-pairs-amd.jsonl")
PASS1 = os.path.join(ROOT, "data", "host-pack-pairs-amd-pass1.tsv")


def config_key(c):
    """The pruner.config attribute text pruner-host-tool --configs read, from a record."""
    par = [i for i, k in enumerate(c["workgroup"]) if k]
    red = [i for i, k in enumerate(c["reduction"]) if k]
    return (tuple(c["workgroup"]), tuple(c["reduction"]), tuple(c["thread"]),
            tuple(c.get("promote_operands", [])), c["vector_width"], len(par), len(red))


def attr_key(text):
    """The same key from the TSV's attribute text."""
    fields = {}
    body = text.strip()[1:-1]
    for part in body.split("], "):
        name, _, value = part.partition(" = ")
        fields[name.strip()] = value.strip().strip("[]")
    def ints(name):
        v = fields.get(name, "")
        return tuple(int(x) for x in v.split(",") if x.strip()) if v else ()
    wg, red, th = ints("workgroup"), ints("reduction"), ints("thread")
    vw = int(fields["vector_width"].rstrip("}").strip())
    par = [i for i, k in enumerate(wg) if k]
    rl = [i for i, k in enumerate(red) if k]
    return (wg, red, th, ints("promote_operands"), vw, len(par), len(rl))


def rank(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0] * len(xs)
    for k, i in enumerate(order):
        r[i] = k
    return r


def spearman(a, b):
    ra, rb = rank(a), rank(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    return cov / math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))


def evaluate(path, label):
    out = subprocess.run([os.path.join(BUILD, "bin", "pruner-draft"), "--eval", path,
                          "--dataset-target=records", "--top=8"],
                         capture_output=True, text=True, check=True).stdout
    print(f"== {label}: the draft's Spearman (pruner-draft --eval)")
    for line in out.splitlines():
        if line.startswith("matmul") or line.startswith("workload") or line.startswith("mean"):
            print("  " + line)


def main():
    records = [json.loads(line) for line in open(RECORDS) if line.strip()]
    tuned = [r for r in records if not r.get("baseline")]
    pass1 = {}
    with open(PASS1) as f:
        next(f)
        for line in f:
            workload, attr, us = line.rstrip("\n").split("\t")
            pass1[(workload.split(":f32")[0], attr_key(attr))] = float(us)
    evaluate(RECORDS, "pass 2 (data/host-pack-pairs-amd.jsonl)")
    # Pass 1 as records: pass 2's records with pass 1's medians.
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as tmp:
        for r in records:
            if not r.get("baseline"):
                key = (r["workload_key"].split(":f32")[0], config_key(r["config"]))
                r = dict(r, median_us=pass1[key], samples_us=[pass1[key]])
            tmp.write(json.dumps(r) + "\n")
    try:
        evaluate(tmp.name, "pass 1 (data/host-pack-pairs-amd-pass1.tsv, the choice's data)")
    finally:
        os.unlink(tmp.name)
    print("== pass 1 against pass 2 (the measurements' own agreement)")
    by_workload = {}
    for r in tuned:
        w = r["workload_key"].split(":f32")[0]
        by_workload.setdefault(w, []).append((pass1[(w, config_key(r["config"]))], r["median_us"]))
    for w, pairs in sorted(by_workload.items()):
        a, b = [p[0] for p in pairs], [p[1] for p in pairs]
        ratios = sorted(max(x, y) / min(x, y) for x, y in pairs)
        print(f"  {w:28s} n={len(pairs)} Spearman {spearman(a, b):.3f}, "
              f"slower/faster pass median {ratios[len(ratios) // 2]:.3f}")


if __name__ == "__main__":
    main()
