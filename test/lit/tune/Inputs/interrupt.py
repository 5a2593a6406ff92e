#!/usr/bin/env python3
"""Interrupts a running `pruner-tune --target=host` from outside, as a user would.

usage: interrupt.py MODE PRUNER_TUNE MODULE WORKDIR [pruner-tune options...]

Starts pruner-tune on MODULE with a records file, output and spec in WORKDIR, waits until
the records file holds MIN_RECORDS complete lines, then:
  hang-int   stops the measuring worker (SIGSTOP: a candidate that hangs) and sends SIGINT
  hang-term  the same with SIGTERM
  twice      a second signal while the first is handled: stops pruner-tune itself, sends
             SIGINT then SIGTERM and resumes it, so that both arrive together (two SIGINTs
             would merge into one pending signal); the second must end it at once
  same-twice stops the worker as hang-term, then SIGTERM twice from this process 2 ms
             apart, as `timeout` sends it (to the child, then to its process group),
             while the first is still being handled: one interrupt, the orderly shutdown
and prints what a FileCheck test checks: the exit status, whether the process ended
within END_SECONDS of the signal (the candidate watchdog is 60 s, so a run that waits
for it fails), the records (complete JSON lines, torn ones, baselines) and whether the
output and spec were written. Only the standard library; Linux (/proc)."""
import json
import os
import signal
import subprocess
import sys
import time

MIN_RECORDS = 2
WAIT_RECORDS_SECONDS = 300  # JIT start-up on a loaded machine
END_SECONDS = 20


def complete_lines(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return []
    return data.split(b"\n")[:-1]  # the part after the last newline is not complete


def children(pid):
    """Direct children of pid (the worker processes), from /proc/*/stat."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if int(fields[1]) == pid:  # fields[0] is the state, fields[1] the parent
            out.append(int(entry))
    return out


def main():
    mode, tool, module, work = sys.argv[1:5]
    extra = sys.argv[5:]
    records = os.path.join(work, "records.jsonl")
    cmd = [tool, module, "-o", os.path.join(work, "out.mlir"), "--spec",
           os.path.join(work, "spec.mlir"), "--target=host", "--records=" + records,
           "-q"] + extra
    with open(os.path.join(work, "stderr.txt"), "wb") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.monotonic() + WAIT_RECORDS_SECONDS
        while len(complete_lines(records)) < MIN_RECORDS and proc.poll() is None:
            if time.monotonic() > deadline:
                proc.kill()
                print("error: no records after %d s" % WAIT_RECORDS_SECONDS)
                return 1
            time.sleep(0.02)
        if proc.poll() is not None:
            print("error: pruner-tune ended before it was interrupted (exit %d)" % proc.returncode)
            return 1
        if mode.startswith("hang") or mode == "same-twice":
            stopped = children(proc.pid)
            for child in stopped:
                os.kill(child, signal.SIGSTOP)
            print("stopped %s worker(s)" % ("some" if stopped else "no"))
        sig = signal.SIGTERM if mode == "hang-term" else signal.SIGINT
        start = time.monotonic()
        if mode == "twice":
            os.kill(proc.pid, signal.SIGSTOP)
            os.kill(proc.pid, signal.SIGINT)
            os.kill(proc.pid, signal.SIGTERM)
            os.kill(proc.pid, signal.SIGCONT)
        elif mode == "same-twice":
            os.kill(proc.pid, signal.SIGTERM)
            time.sleep(0.002)
            os.kill(proc.pid, signal.SIGTERM)
        else:
            os.kill(proc.pid, sig)
        try:
            code = proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        elapsed = time.monotonic() - start
    print("exit %d" % code)
    print("ended within %d s: %s" % (END_SECONDS, "yes" if elapsed < END_SECONDS else "no"))
    lines = complete_lines(records)
    parsed = []
    for line in lines:
        try:
            parsed.append(json.loads(line))
        except ValueError:
            pass
    with open(records, "rb") as f:
        torn = not f.read().endswith(b"\n") and os.path.getsize(records) > 0
    print("records: %s complete, %d corrupt, %d baseline" % (
        "some" if len(parsed) >= MIN_RECORDS else "too few", len(lines) - len(parsed),
        sum(1 for r in parsed if r.get("baseline"))))
    print("torn last line: %s" % ("yes" if torn else "no"))
    with open(os.path.join(work, "count.txt"), "w") as f:
        f.write("%d\n" % len(parsed))
    for name in ("out.mlir", "spec.mlir"):
        path = os.path.join(work, name)
        print("%s: %s" % (name, "written" if os.path.exists(path) else "missing"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
