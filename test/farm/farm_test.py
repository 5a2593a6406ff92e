#!/usr/bin/env python3
"""ctest driver for `mpirun -n N pruner-tune` (lib/farm, docs/distributed.md).

usage: farm_test.py SCENARIO PRUNER_TUNE MPIEXEC INPUT.mlir WORKDIR

Scenarios:
  same         the host target tuned plainly and with N = 1, 2, 3 ranks: the same records
               (measured values masked, same_records.py); a GPU bundle (compile only) with
               N = 1, 2, 3 byte for byte the plain one.
  kill-worker  kill -9 of rank 1 in the middle of a 3-rank run (Open MPI told to survive
               it): the run ends with 0, names the lost rank, and its records are those of
               a plain run.
  kill-rank0   kill -9 of rank 0 in the middle: the records left are whole lines, and a
               rerun resumes them to the full budget without measuring a config twice.
  faults       SIGTERM to worker rank 1 alone: the run ends (it livelocked: the worker
               answered every chunk with nothing), names the rank as interrupted, and its
               records are a plain run's; a worker whose --target describes another CPU
               (host:sse) is lost at its hello and measures nothing (its results were
               recorded under rank 0's key).
  embed        farm-embed (test/farm/farm_embed.c), the farm used as a library: a
               program's own MPI is left started and its error handler unchanged, and the
               process outlives prunerFarmDestroy by more than the finalize watchdog's 10 s;
               a program's MPI of thread level SERIALIZED is refused.
  roles        3 ranks with rank 1 compile-only and rank 2 measure-only: host measure work
               goes to rank 2 (rank 1 gets none), GPU build work to rank 1 (rank 2 gets
               none), and a compile-only rank 0 leaves all measuring to rank 2.

Exit 77 (ctest: skipped) when the launcher is missing. Runs as root too (CI)."""
import json
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import same_records  # noqa: E402

ENV = dict(os.environ,
           OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
# Survive a dead rank (Open MPI 4.1): keep the job going and do not abort it for the
# killed process's status.
RECOVER = {"OMPI_MCA_orte_enable_recovery": "1", "OMPI_MCA_orte_abort_on_non_zero_status": "0"}
HOST = ["--target=host", "--batch=4", "--strategy=draft-only", "--scheduler=round-robin",
        "--final=0", "--seed=7"]
TIMEOUT = 300
PTXAS = os.environ.get("PRUNER_FARM_PTXAS", "ptxas")  # the GPU bundle parts need it


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def launcher(mpiexec, n, extra=()):
    # --bind-to none: a host measure rank describes its whole machine (bound to one core
    # it would see one, and key its records so).
    return [mpiexec, "-n", str(n), "--oversubscribe", "--bind-to", "none", *extra]


def run(cmd, env=ENV, log=None):
    with open(log, "w") if log else open(os.devnull, "w") as err:
        p = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err,
                           timeout=TIMEOUT)
    return p.returncode


def same(a, b):
    old = sys.argv
    sys.argv = ["same_records", a, b]
    try:
        return same_records.main() == 0
    finally:
        sys.argv = old


def tree_bytes(d):
    """A bundle folder's files by relative path; the manifest's compile times (compile_s,
    a wall-clock measurement like the records' masked values) masked."""
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                data = fh.read()
            if f == "manifest.json":
                data = re.sub(rb'"compile_s":\s*[-0-9.eE+]+', b'"compile_s": 0', data)
            out[os.path.relpath(p, d)] = data
    return out


def scenario_same(tune, mpiexec, inp, w):
    args = [inp, *HOST, "--trials=14"]
    if run([tune, *args, "-o", f"{w}/plain.mlir", f"--records={w}/plain.jsonl"]) != 0:
        fail("plain host run failed")
    gpu = [inp, "--target=sm_90", "--trials=16", "--batch=8", "--seed=3"]
    if PTXAS:
        if run([tune, *gpu, "-o", f"{w}/bplain.mlir", f"--measure=bundle:{w}/bplain"]) != 0:
            fail("plain bundle run failed")
        want = tree_bytes(f"{w}/bplain")
    else:
        print("no ptxas: the bundle half is skipped")
    for n in (1, 2, 3):
        log = f"{w}/n{n}.log"
        rc = run(launcher(mpiexec, n) + [tune, *args, "-o", f"{w}/n{n}.mlir",
                                         f"--records={w}/n{n}.jsonl"], log=log)
        if rc != 0:
            fail(f"host run with {n} rank(s) exited {rc}; see {log}")
        if not same(f"{w}/plain.jsonl", f"{w}/n{n}.jsonl"):
            fail(f"host records of {n} rank(s) differ from the plain run's")
        text = open(log).read()
        if n > 1 and f"farm: rank {n - 1} " not in text:
            fail(f"no farm summary line of rank {n - 1} in {log}")
        if not PTXAS:
            continue
        blog = f"{w}/b{n}.log"
        rc = run(launcher(mpiexec, n) + [tune, *gpu, "-o", f"{w}/b{n}.mlir",
                                         f"--measure=bundle:{w}/b{n}"], log=blog)
        if rc != 0:
            fail(f"bundle run with {n} rank(s) exited {rc}; see {blog}")
        if tree_bytes(f"{w}/b{n}") != want:
            fail(f"bundle of {n} rank(s) differs from the plain one")
        print(f"N={n}: same host records, same bundle")
    # Rank 0 checks its input in a forked child before MPI starts (a child forked from an
    # MPI process can hang): a module that crashes MLIR's parser ends the job with the
    # same message as a plain run.
    crash = f"{w}/dense-index.mlir"
    with open(crash, "w") as f:
        f.write("module attributes {x = array<index: 1>} {}\n")
    log = f"{w}/crash.log"
    rc = run(launcher(mpiexec, 2) + [tune, crash, "--target=host", "--measure=none",
                                     "-o", f"{w}/crash.out.mlir"], log=log)
    if rc == 0 or "MLIR's parser crashed on this input" not in open(log).read():
        fail(f"a parser-crashing input under mpirun: exit {rc}, see {log}")
    print("parser-crashing input under mpirun: refused before MPI starts")


def rank_pid(rank, mark):
    """The pid of MPI rank `rank` (not one of its forked children) of the run whose
    command line holds `mark` (its records path: other runs may be going on)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() != "pruner-tune":
                    continue
            with open(f"/proc/{pid}/stat") as f:
                ppid = f.read().rsplit(")", 1)[1].split()[1]
            with open(f"/proc/{ppid}/comm") as f:
                if f.read().strip() == "pruner-tune":
                    continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if mark.encode() not in f.read():
                    continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if f"OMPI_COMM_WORLD_RANK={rank}".encode() in env:
            return int(pid)
    return None


def count_lines(path):
    try:
        with open(path) as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def start_and_kill(cmd, env, log, records, rank, after_lines, sig=signal.SIGKILL):
    with open(log, "w") as err:
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.time() + TIMEOUT
        while count_lines(records) < after_lines:
            if p.poll() is not None or time.time() > deadline:
                fail(f"the run ended before {after_lines} records; see {log}")
            time.sleep(0.05)
        pid = rank_pid(rank, records)
        if pid is None:
            p.kill()
            fail(f"rank {rank} not found")
        os.kill(pid, sig)
        try:
            return p.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            p.kill()
            fail(f"the run did not end after rank {rank} was killed; see {log}")


def lose_worker(tune, mpiexec, args, w, name, sig, what):
    """A 3-rank run under the recovery settings whose rank 1 gets `sig` after 6 records:
    it must end with 0, name the lost rank, and leave a plain run's records."""
    log = f"{w}/{name}.log"
    rc = start_and_kill(launcher(mpiexec, 3) + [tune, *args, "-o", f"{w}/{name}.mlir",
                                                f"--records={w}/{name}.jsonl",
                                                "--rank-timeout=3"],
                        dict(ENV, **RECOVER), log, f"{w}/{name}.jsonl", 1, 6, sig)
    text = open(log).read()
    if rc != 0:
        fail(f"the run exited {rc} after {what}; see {log}")
    if "farm: rank 1 (" not in text or "lost" not in text:
        fail(f"the log does not name the lost rank; see {log}")
    if not same(f"{w}/plain.jsonl", f"{w}/{name}.jsonl"):
        fail(f"records after {what} differ from the plain run's")


def scenario_kill_worker(tune, mpiexec, inp, w):
    args = [inp, *HOST, "--trials=30"]
    if run([tune, *args, "-o", f"{w}/plain.mlir", f"--records={w}/plain.jsonl"]) != 0:
        fail("plain run failed")
    lose_worker(tune, mpiexec, args, w, "k", signal.SIGKILL, "losing rank 1")
    print("killed rank 1: run completed, records as a plain run's")
    # Two ranks: after losing its one helper rank 0 measures alone, and the closing
    # per-rank counts still add up to what was measured (they missed rank 0's own batches).
    log2 = f"{w}/k2.log"
    rc = start_and_kill(launcher(mpiexec, 2) + [tune, *args, "-o", f"{w}/k2.mlir",
                                                f"--records={w}/k2.jsonl", "--rank-timeout=3"],
                        dict(ENV, **RECOVER), log2, f"{w}/k2.jsonl", 1, 6)
    if rc != 0:
        fail(f"the 2-rank run exited {rc} after losing rank 1; see {log2}")
    counted = sum(int(m) for m in re.findall(r"farm: rank \d+ \([^)]*\): (\d+) candidate",
                                              open(log2).read()))
    measured = sum(1 for line in open(f"{w}/k2.jsonl")
                   if line.strip() and "baseline" not in json.loads(line))
    if counted != measured:
        fail(f"per-rank counts add up to {counted}, {measured} measured; see {log2}")
    print(f"killed the only helper: rank 0 went on alone, per-rank counts add up ({counted})")


def scenario_kill_rank0(tune, mpiexec, inp, w):
    args = [inp, *HOST, "--trials=30"]
    records = f"{w}/r.jsonl"
    # Open MPI's default: the job ends with its rank 0.
    start_and_kill(launcher(mpiexec, 2) + [tune, *args, "-o", f"{w}/r.mlir",
                                           f"--records={records}"],
                   ENV, f"{w}/r0.log", records, 0, 6)
    left = count_lines(records)
    if left >= 31:
        fail("rank 0 finished before it was killed")
    log = f"{w}/resume.log"
    rc = run(launcher(mpiexec, 2) + [tune, *args, "-o", f"{w}/r.mlir", f"--records={records}"],
             log=log)
    if rc != 0:
        fail(f"the resumed run exited {rc}; see {log}")
    if "resuming" not in open(log).read():
        fail(f"the rerun did not resume; see {log}")
    seen = set()
    trials = 0
    with open(records) as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a torn line of the killed run, skipped by the reader too
            if rec.get("is_baseline") or "config" not in rec:  # the OpenBLAS line
                continue
            key = (rec["workload_key"], json.dumps(rec["config"], sort_keys=True))
            if key in seen:
                fail(f"config measured twice: {key}")
            seen.add(key)
            trials += 1
    if trials != 30:
        fail(f"{trials} trials after the resume, want the budget of 30")
    print(f"killed rank 0 after {left} records; the rerun resumed to 30 trials, none twice")


def scenario_faults(tune, mpiexec, inp, w):
    args = [inp, *HOST, "--trials=30"]
    if run([tune, *args, "-o", f"{w}/plain.mlir", f"--records={w}/plain.jsonl"]) != 0:
        fail("plain run failed")
    start = time.time()
    lose_worker(tune, mpiexec, args, w, "t", signal.SIGTERM, "SIGTERM to rank 1")
    print(f"SIGTERM to rank 1: run completed ({time.time() - start:.1f} s in all), records as "
          "a plain run's")
    # Rank 1 of another CPU description: lost at its hello, nothing recorded from it.
    log = f"{w}/sse.log"
    common = [*args, "-o", f"{w}/s.mlir", f"--records={w}/s.jsonl"]
    cmd = [mpiexec, "--oversubscribe", "--bind-to", "none", "-n", "1", tune, *common, ":",
           "-n", "1", tune, *common[1:], inp, "--target=host:sse"]
    # (the worker's --target comes last: it overrides HOST's)
    if run(cmd, env=dict(ENV, **RECOVER), log=log) != 0:
        fail(f"the run with a host:sse worker failed; see {log}")
    text = open(log).read()
    if "its --target describes host:" not in text or "-sse" not in text:
        fail(f"the worker of another target was not refused at its hello; see {log}")
    if not same(f"{w}/plain.jsonl", f"{w}/s.jsonl"):
        fail("records with a refused worker differ from the plain run's")
    print("a worker of another --target is lost at its hello; records as a plain run's")


def summary(log):
    """rank -> (role, candidates) from the farm summary lines."""
    out = {}
    for line in open(log):
        if line.startswith("farm: rank "):
            head, tail = line.split("): ", 1)
            rank = int(head.split()[2])
            role = head.rsplit(", ", 1)[1]
            out[rank] = (role, int(tail.split()[0]))
    return out


def scenario_roles(tune, mpiexec, inp, w):
    def mpmd(args, role0=None):
        cmd = [mpiexec, "--oversubscribe", "--bind-to", "none"]
        for i, role in enumerate([role0, "compile", "measure"]):
            if i:
                cmd.append(":")
            cmd += ["-n", "1", tune, *args] + ([f"--rank-role={role}"] if role else [])
        return cmd

    host = [inp, *HOST, "--trials=12", "-o", f"{w}/h.mlir", f"--records={w}/h.jsonl"]
    if run(mpmd(host), log=f"{w}/h.log") != 0:
        fail(f"host run with roles failed; see {w}/h.log")
    s = summary(f"{w}/h.log")
    if s.get(1) != ("compile", 0) or s.get(2, ("", 0))[0] != "measure" or s[2][1] == 0:
        fail(f"host: measure work must go to the measure rank only: {s}")
    gpu = [inp, "--target=sm_90", "--trials=16", "--batch=8", "-o", f"{w}/g.mlir",
           f"--measure=bundle:{w}/g"]
    if not PTXAS:
        print("no ptxas: the bundle half is skipped")
    elif run(mpmd(gpu), log=f"{w}/g.log") != 0:
        fail(f"bundle run with roles failed; see {w}/g.log")
    s = summary(f"{w}/g.log") if PTXAS else {2: ("measure", 0), 1: ("compile", 1)}
    if s.get(2) != ("measure", 0) or s.get(1, ("", 0))[0] != "compile" or s[1][1] == 0:
        fail(f"bundle: build work must go to compiling ranks only: {s}")
    host0 = [inp, *HOST, "--trials=8", "-o", f"{w}/c.mlir", f"--records={w}/c.jsonl"]
    if run(mpmd(host0, role0="compile"), log=f"{w}/c.log") != 0:
        fail(f"host run with a compile-only rank 0 failed; see {w}/c.log")
    s = summary(f"{w}/c.log")
    if s.get(0) != ("compile", 0) or s.get(2, ("", 0))[1] != 8:
        fail(f"a compile-only rank 0 must leave all 8 measurements to rank 2: {s}")
    print("roles: measure work to measure ranks, build work to compile ranks")
    # A worker whose command line is wrong fails before MPI starts: it ends the job at once
    # with its message, also under the recovery settings, where rank 0 used to wait in
    # MPI's start-up for it until killed.
    bad = [mpiexec, "--oversubscribe", "--bind-to", "none", "-n", "1", tune, *host, ":",
           "-n", "1", tune, *host, "--rank-role=bogus"]
    start = time.time()
    try:
        with open(f"{w}/bad.log", "w") as err:
            subprocess.run(bad, env=dict(ENV, **RECOVER), stdout=subprocess.DEVNULL,
                           stderr=err, timeout=60)
    except subprocess.TimeoutExpired:
        fail(f"a worker's bad flag left the job running for 60 s; see {w}/bad.log")
    if "invalid value 'bogus' for --rank-role" not in open(f"{w}/bad.log").read():
        fail(f"a worker's bad flag: its message is missing; see {w}/bad.log")
    print(f"a worker's bad flag ends the job ({time.time() - start:.1f} s) with its message")


def scenario_pipeline(tool, mpiexec, inp, w):
    """farm-pipeline (a closed-form backend): compile-only ranks build, the measuring rank
    measures what they built, the records equal a plain run's; a measuring rank lost
    mid-run leaves its built chunks to rank 0, with the same records."""
    del inp

    def mpmd(roles, extra=()):
        cmd = [mpiexec, "--oversubscribe", "--bind-to", "none", *extra]
        for i, role in enumerate(roles):
            if i:
                cmd.append(":")
            cmd += ["-n", "1", tool, role[0], f"{w}/{roles[0][1]}.txt", *role[2:]]
        return cmd

    def records(path):
        return [ln for ln in open(path) if not ln.startswith("by ")]

    def by(path):
        out = {}
        for ln in open(path):
            if ln.startswith("by "):
                _, k, i, rest = ln.split(" ", 3)
                built, measured = rest.replace(",", "").split()[2::3][:2]
                out[(int(k), int(i))] = (int(built), int(measured))
        return out

    if run([tool, "both", f"{w}/plain.txt"]) != 0:
        fail("plain run failed")
    want = records(f"{w}/plain.txt")
    if not any("compile_error" in ln for ln in want) or not any(" ok " in ln for ln in want):
        fail(f"the plain run should have ok and compile_error records: {want}")
    # The last batch's workload cannot be measured: said once, no record of it.
    if [ln for ln in want if ln.startswith("unmeasurable ")] != [
            f"unmeasurable {3} fake: no reference build of matmul 32x32x32\n"] or any(
            ln.startswith("3 ") for ln in want):
        fail(f"the plain run should say once that batch 3 is unmeasurable: {want}")
    log = f"{w}/mixed.log"
    if run(mpmd([("compile", "mixed"), ("compile",), ("measure",)]), log=log) != 0:
        fail(f"mixed run failed; see {log}")
    if records(f"{w}/mixed.txt") != want:
        fail(f"mixed run: records differ from the plain run's ({w}/mixed.txt, {w}/plain.txt)")
    b = by(f"{w}/mixed.txt")
    if not b or any(m != 2 for _, m in b.values()):
        fail(f"mixed run: every candidate must be measured on the measuring rank 2: {b}")
    if not any(bl in (0, 1) for bl, _ in b.values()):
        fail(f"mixed run: compile-only ranks 0 and 1 built nothing: {b}")
    if "compile-only ranks build candidates" not in open(log).read():
        fail(f"mixed run: no note of the pipeline in {log}")
    print(f"pipeline: {sum(bl != 2 for bl, _ in b.values())} of {len(b)} ok candidates "
          "built on compile-only ranks, all measured on rank 2, records as a plain run's")
    log = f"{w}/lost.log"
    env = dict(ENV, **RECOVER)
    if run(mpmd([("compile", "lost"), ("compile",), ("measure", "", "1")]), env=env,
           log=log) != 0:
        fail(f"run with a lost measuring rank failed; see {log}")
    if records(f"{w}/lost.txt") != want:
        fail(f"lost measuring rank: records differ from the plain run's ({w}/lost.txt)")
    text = open(log).read()
    if "rank 2" not in text or "lost" not in text:
        fail(f"lost measuring rank: the log does not name it; see {log}")
    if not any(m == 0 for _, m in by(f"{w}/lost.txt").values()):
        fail("lost measuring rank: rank 0 measured none of its chunks")
    print("pipeline: a lost measuring rank's chunks measured by rank 0, same records")


def scenario_embed(tool, mpiexec, inp, w):
    """farm-embed (the farm as a library): with MPI started by the program, the farm
    leaves it started and its error handler alone; either way the process lives on after
    prunerFarmDestroy (the finalize watchdog ended it 10 s later, with Destroy's status)."""
    del inp
    for mode in ("own", "farm"):
        p = subprocess.run([*launcher(mpiexec, 2), tool, mode], env=ENV, timeout=TIMEOUT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        rc, out = p.returncode, p.stdout
        if rc != 0 or out.count(": alive") != 2:
            fail(f"farm-embed {mode}: exit {rc}, expected two ranks alive:\n{out}")
        if mode == "own" and out.count("MPI usable after the farm, 2 ranks") != 2:
            fail(f"farm-embed own: MPI not usable after the farm:\n{out}")
    p = subprocess.run([*launcher(mpiexec, 2), tool, "serialized"], env=ENV, timeout=TIMEOUT,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0 or p.stdout.count(": refused") != 2:
        fail(f"farm-embed serialized: exit {p.returncode}, expected two refusals:\n{p.stdout}")
    print("embed: ok")


def main():
    if len(sys.argv) != 6:
        print(__doc__)
        return 2
    scenario, tune, mpiexec, inp, w = sys.argv[1:]
    if not mpiexec or not os.path.exists(mpiexec):
        print("SKIP: no MPI launcher")
        return 77
    os.makedirs(w, exist_ok=True)
    for f in os.listdir(w):
        p = os.path.join(w, f)
        if os.path.isfile(p):
            os.remove(p)
        else:
            subprocess.run(["rm", "-rf", p])
    {"same": scenario_same, "kill-worker": scenario_kill_worker,
     "kill-rank0": scenario_kill_rank0, "roles": scenario_roles, "faults": scenario_faults,
     "pipeline": scenario_pipeline, "embed": scenario_embed}[scenario](tune, mpiexec, inp, w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
