#!/usr/bin/env python3
"""The machine code of the bundles' cubins, per config kind (docs/gpu-session.md).

The build host has ptxas but no cuobjdump, so its checks stop at the PTX (mma.sync,
ldmatrix, cp.async). The GPU host has cuobjdump: this reads the SASS that ptxas made of
every cubin of the given bundles and counts the cubins holding each instruction family,
per config kind, and names the candidates whose machine code lacks what their kind needs:

  HMMA    tensor-core multiply-accumulate   needed by every "mma" config
  LDSM    ldmatrix (shared -> fragments)    needed by staged mma configs (any stages; the
                                            pipelined ones' since 2026-12-04, before which
                                            their fragments were plain shared loads)
  LDGSTS  cp.async (global -> shared)       needed by pipelined mma configs (stages >= 2)
  BAR     barrier                           needed by promoted and cross-thread configs
  SHFL    warp shuffle                      (none expected: docs/schedule.md)
  RED/ATOM  atomics                         (none expected: split-K uses a second kernel)
  LDL/STL local memory (spills, stack)      reported, not an error
  and the kernels in the cubin: two for split-K (the partial sums, then their sum), else one

Usage: sass_census.py [--cuobjdump=PATH] [--jobs=N] [--per-kind=N] [--dump=DIR] BUNDLE_DIR...
  --per-kind=N  at most N cubins per bundle and kind (the first in pick order)
  --dump=DIR    also write each read cubin's SASS to DIR/<bundle>-<id>.sass
One line per cubin is printed as it is read (a run cut short keeps what it read).
Exit status 0 when every cubin was read and none lacks what its kind needs, 1 otherwise,
2 for bad usage or a bundle whose manifest cannot be read (the message names it).
"""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

FAMILIES = {
    "HMMA": re.compile(r"\bHMMA\b"),
    "LDSM": re.compile(r"\bLDSM\b"),
    "LDGSTS": re.compile(r"\bLDGSTS\b"),
    "BAR": re.compile(r"\bBAR\b"),
    "SHFL": re.compile(r"\bSHFL\b"),
    "RED/ATOM": re.compile(r"\b(RED|ATOM|ATOMG)\b"),
    "LDL/STL": re.compile(r"\b(LDL|STL)\b"),
}


def kind_of(config):
    """The schedule kind of a config, as docs/config.md names its knobs."""
    if config.get("mma"):
        if not config.get("promote_operands"):
            return "mma-global"
        return "mma-pipelined" if config.get("stages", 0) > 1 else "mma-staged"
    if config.get("split_k", 0) > 1:
        return "split-k"
    if config.get("reduction_threads", 0) > 1:
        return "cross-thread"
    return "fma-promoted" if config.get("promote_operands") else "fma"


def needs(kind):
    return {
        "mma-global": ["HMMA"],
        "mma-staged": ["HMMA", "LDSM", "BAR"],
        "mma-pipelined": ["HMMA", "LDGSTS", "LDSM", "BAR"],
        "fma-promoted": ["BAR"],
        "cross-thread": ["BAR"],
    }.get(kind, [])


def forbids(kind):
    return ["HMMA"] if not kind.startswith("mma") else []


def census(cuobjdump, path, dump=None):
    try:
        sass = subprocess.run([cuobjdump, "--dump-sass", path], capture_output=True,
                              text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired) as err:
        return None, str(err)
    if "Function" not in sass:
        return None, "no SASS in the cuobjdump output"
    if dump:
        with open(dump, "w") as f:
            f.write(sass)
    found = {f: len(rx.findall(sass)) for f, rx in FAMILIES.items()}
    found["kernels"] = len(re.findall(r"^\s*Function : ", sass, re.M))
    return found, None


def positive(option, value):
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise ValueError(f"{option}: '{value}' is not a positive integer")
    return n


def read_candidates(d):
    """The manifest's candidates of bundle `d`, or ValueError naming what is wrong."""
    path = os.path.join(d, "manifest.json")
    try:
        with open(path) as f:
            manifest = json.load(f)
        cands = manifest["candidates"]
        return [(c["id"], c["config"], c["cubin"]) for c in cands]
    except OSError as err:
        raise ValueError(f"{path}: cannot read: {err.strerror}")
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not JSON: {err.msg} at line {err.lineno}")
    except (KeyError, TypeError) as err:
        raise ValueError(f"{path}: not a bundle manifest (missing {err})")


def main(argv):
    try:
        return run(argv)
    except ValueError as err:
        print(f"sass census: error: {err}", file=sys.stderr)
        return 2


def run(argv):
    cuobjdump = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    jobs = os.cpu_count() or 4
    per_kind = 0
    dump_dir = None
    dirs = []
    for a in argv:
        if a.startswith("--cuobjdump="):
            cuobjdump = a.split("=", 1)[1]
        elif a.startswith("--jobs="):
            jobs = positive("--jobs", a.split("=", 1)[1])
        elif a.startswith("--per-kind="):
            per_kind = positive("--per-kind", a.split("=", 1)[1])
        elif a.startswith("--dump="):
            dump_dir = a.split("=", 1)[1]
            os.makedirs(dump_dir, exist_ok=True)
        elif a.startswith("-"):
            raise ValueError(f"unknown option '{a}' (see the usage at the top of {sys.argv[0]})")
        else:
            dirs.append(a)
    if not dirs:
        raise ValueError("no bundle folder given")
    if not os.access(cuobjdump, os.X_OK):
        print(f"sass census: no cuobjdump ({cuobjdump})")
        return 1
    work = []
    taken = {}
    for d in dirs:
        bundle = os.path.basename(d.rstrip("/"))
        for cid, config, cubin in read_candidates(d):
            kind = kind_of(config)
            taken[(bundle, kind)] = taken.get((bundle, kind), 0) + 1
            if per_kind and taken[(bundle, kind)] > per_kind:
                continue
            work.append((bundle, cid, kind, os.path.join(d, cubin)))

    def one(w):
        dump = os.path.join(dump_dir, f"{w[0]}-{w[1]}.sass") if dump_dir else None
        found, err = census(cuobjdump, w[3], dump)
        have = " ".join(f"{f}={n}" for f, n in found.items() if n) if found else err
        print(f"{w[0]} #{w[1]} {w[2]}: {have}", flush=True)
        return found, err

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(one, work))
    rows = {}
    problems = []
    for (bundle, cid, kind, path), (found, err) in zip(work, results):
        row = rows.setdefault((bundle, kind), {"n": 0, **{f: 0 for f in FAMILIES}})
        row["n"] += 1
        if found is None:
            problems.append(f"{bundle} #{cid} ({kind}): unreadable: {err}")
            continue
        for f in FAMILIES:
            row[f] += found[f] > 0
        missing = [f for f in needs(kind) if not found[f]]
        kernels = 2 if kind == "split-k" else 1
        if found["kernels"] != kernels:
            missing.append(f"{kernels} kernel(s), found {found['kernels']}")
        extra = [f for f in forbids(kind) if found[f]]
        if missing or extra:
            problems.append(f"{bundle} #{cid} ({kind}): lacks {missing or '-'}, has {extra or '-'}")
    print(f"{'bundle':14} {'kind':14} {'cubins':>6} " + " ".join(f"{f:>8}" for f in FAMILIES))
    for (bundle, kind), row in sorted(rows.items()):
        print(f"{bundle:14} {kind:14} {row['n']:6} " + " ".join(f"{row[f]:8}" for f in FAMILIES))
    print("(cubins whose SASS holds at least one instruction of the family)")
    for p in problems[:40]:
        print("MISMATCH", p)
    print(f"sass census: {len(work)} cubins, {len(problems)} mismatch(es)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
