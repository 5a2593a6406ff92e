#!/usr/bin/env python3
"""The generated-modules campaign (docs/hardening.md, "Generated modules").

For each case: a random module (gen_module.py), tuned by `pruner-tune --measure=none` for a
GPU target, then pushed through `pruner-apply-config` and `pruner-gpu-pipeline` in the
stock mlir-opt with the plugin (format=bin when ptxas exists, else isa), and the pipeline's
output through `mlir-translate --mlir-to-llvmir` (what a runtime would need). Some cases
nest the passes on func.func instead of the module.

Every step's outcome is one of
  ok          exit 0
  error       a clean failure: exit 1 and every `error:` diagnostic has a location
  dirty       exit != 0 with no error, or an error without a location (`<unknown>`)
  crash       killed by a signal, or `LLVM ERROR` / a stack dump
  hang        ran past --timeout
The campaign fails (exit 1) on any dirty, crash or hang, and with --expect-success also
on any `error` where success is required: the tuner's output through the module-level
passes must build and translate (the tuner never writes a config the passes cannot
build). Deterministic for a given --seed and --cases.

  campaign.py --build BUILD_DIR [--cases N] [--seed S] [--jobs J] [--keep DIR]
"""
import argparse
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_module  # noqa: E402

LLVM_BIN = "/usr/lib/llvm-22/bin"
OUTCOMES = ["ok", "error", "dirty", "crash", "hang"]
# mlir-opt prints located diagnostics as `file:line:col: error: ...`; an unlocated one as
# `<unknown>:0: error: ...` or `error: ...` at the start of the line.
LOCATED = re.compile(r"^[^\s<][^:]*:\d+:\d+: error: ")
ANY_ERROR = re.compile(r"(^|: )error: ", re.M)


def classify(rc, stderr, timed_out, tool):
    if timed_out:
        return "hang"
    if rc < 0 or rc >= 128 or "LLVM ERROR" in stderr or "Stack dump" in stderr \
            or "PLEASE submit a bug report" in stderr or "AddressSanitizer" in stderr:
        return "crash"
    if rc == 0:
        return "ok"
    lines = [l for l in stderr.splitlines() if ANY_ERROR.search(l)]
    if not lines:
        return "dirty"
    if tool == "pruner-tune":
        return "error" if all(l.startswith("pruner-tune: error: ") for l in lines) else "dirty"
    # Diagnostics of mlir-opt: the first line of each must carry a location.
    return "error" if all(LOCATED.match(l) for l in lines) else "dirty"


def run(cmd, timeout, env=None):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, errors="replace", env=env)
        return p.returncode, p.stdout, p.stderr, False
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return -1, out, err, True


def plan_case(seed, base_seed, have_ptxas):
    """The options of one case, drawn from its own seed."""
    rng = random.Random(seed * 7919 + base_seed)
    return {
        "chip": rng.choice(["sm_80", "sm_90"]),
        "strategy": rng.choice(["random", "random", "draft+verifier"]),
        "tune_seed": rng.randrange(1, 1 << 20),
        "format": "bin" if have_ptxas and rng.random() < 0.5 else "isa",
        "nest_apply": rng.random() < 0.1,
        "nest_pipeline": rng.random() < 0.1,
    }


def run_case(index, args, tools, workdir):
    seed = args.seed * 1000003 + index
    text = gen_module.generate(seed)
    opts = plan_case(seed, args.seed, tools["ptxas"] is not None)
    case_dir = os.path.join(workdir, "case%d" % index)
    os.makedirs(case_dir, exist_ok=True)
    src = os.path.join(case_dir, "in.mlir")
    tuned = os.path.join(case_dir, "tuned.mlir")
    with open(src, "w") as f:
        f.write(text)
    steps = {}
    logs = []

    def step(name, cmd, tool):
        # A sanitized plugin needs the ASan runtime first in the stock mlir-opt's library
        # list; a finding then aborts, which counts as a crash (docs/hardening.md).
        env = None
        if tool == "mlir-opt" and args.asan_runtime:
            env = dict(os.environ, LD_PRELOAD=args.asan_runtime,
                       ASAN_OPTIONS="detect_leaks=0:abort_on_error=1")
        rc, out, err, timed_out = run(cmd, args.timeout, env)
        outcome = classify(rc, err, timed_out, tool)
        steps[name] = outcome
        logs.append("$ %s\n[%s rc=%d]\n%s" % (" ".join(cmd), outcome, rc, err[-4000:]))
        return outcome, out

    outcome, _ = step("tune", [tools["tune"], src, "-o", tuned, "--target=" + opts["chip"],
                               "--measure=none", "--trials=%d" % args.trials,
                               "--seed=%d" % opts["tune_seed"], "--strategy=" + opts["strategy"],
                               "-q"], "pruner-tune")
    if outcome == "ok":
        apply = "pruner-apply-config{target=%s}" % opts["chip"]
        if opts["nest_apply"]:
            apply = "func.func(%s)" % apply
        step("apply", [tools["opt"], "--load-pass-plugin=" + tools["plugin"],
                       "-p", "builtin.module(%s)" % apply, tuned], "mlir-opt")
        pipe = "pruner-gpu-pipeline{chip=%s format=%s}" % (opts["chip"], opts["format"])
        if opts["nest_pipeline"]:
            pipe = "func.func(%s)" % pipe
        outcome, lowered = step("pipeline", [tools["opt"], "--load-pass-plugin=" + tools["plugin"],
                                             "-p", "builtin.module(%s)" % pipe, tuned],
                                "mlir-opt")
        if outcome == "ok":
            out_path = os.path.join(case_dir, "lowered.mlir")
            with open(out_path, "w") as f:
                f.write(lowered)
            step("translate", [tools["translate"], "--mlir-to-llvmir", out_path, "-o",
                               os.devnull], "mlir-opt")
    bad = [s for s, o in steps.items() if o in ("dirty", "crash", "hang")]
    if args.expect_success:
        # Refusals that are the documented behaviour, not failures: the passes nested on
        # func.func, and pruner-gpu-pipeline on a module whose nested module holds linalg
        # ops (docs/plugin.md). Everything else must build and translate.
        inner = "module @inner" in text
        for s in ("apply", "pipeline", "translate"):
            refused = (s == "apply" and opts["nest_apply"]) or \
                      (s != "apply" and (opts["nest_pipeline"] or inner))
            if steps.get(s) == "error" and not refused:
                bad.append(s)
    if bad and args.keep:
        keep = os.path.join(args.keep, "case%d" % index)
        shutil.copytree(case_dir, keep, dirs_exist_ok=True)
        with open(os.path.join(keep, "log.txt"), "w") as f:
            f.write("seed %d options %s\n\n%s" % (seed, opts, "\n".join(logs)))
    shutil.rmtree(case_dir, ignore_errors=True)
    return index, seed, opts, steps, bad, logs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="pruner build directory")
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per step")
    ap.add_argument("--trials", type=int, default=16, help="pruner-tune --trials")
    ap.add_argument("--llvm-bin", default=LLVM_BIN, help="where mlir-opt and mlir-translate are")
    ap.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas",
                    help="ptxas for format=bin cases ('' for PTX only)")
    ap.add_argument("--asan-runtime", default="",
                    help="preload this ASan runtime into mlir-opt (sanitizer builds)")
    ap.add_argument("--keep", help="copy failing cases (module, tuned module, log) here")
    ap.add_argument("--expect-success", action="store_true",
                    help="module-level apply-config / gpu-pipeline / translation must succeed")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    tools = {
        "tune": os.path.join(args.build, "bin", "pruner-tune"),
        "plugin": os.path.join(args.build, "lib", "PrunerPlugin.so"),
        "opt": os.path.join(args.llvm_bin, "mlir-opt"),
        "translate": os.path.join(args.llvm_bin, "mlir-translate"),
        "ptxas": args.ptxas if args.ptxas and os.access(args.ptxas, os.X_OK) else None,
    }
    for k in ("tune", "plugin", "opt", "translate"):
        if not os.path.exists(tools[k]):
            sys.exit("campaign: missing %s: %s" % (k, tools[k]))
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)

    counts = {s: {o: 0 for o in OUTCOMES} for s in ("tune", "apply", "pipeline", "translate")}
    failed = []
    with tempfile.TemporaryDirectory(prefix="pruner-campaign-") as workdir, \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_case, i, args, tools, workdir) for i in range(args.cases)]
        for fut in concurrent.futures.as_completed(futures):
            index, seed, opts, steps, bad, logs = fut.result()
            for s, o in steps.items():
                counts[s][o] += 1
            if bad:
                failed.append((index, seed, opts, bad, logs))
            if args.verbose:
                print("case %d seed %d %s %s" % (index, seed, opts, steps), flush=True)

    print("campaign: %d cases, seed %d, ptxas %s" % (args.cases, args.seed,
                                                      "yes" if tools["ptxas"] else "no"))
    print("%-10s %s" % ("step", " ".join("%7s" % o for o in OUTCOMES)))
    for s, c in counts.items():
        print("%-10s %s" % (s, " ".join("%7d" % c[o] for o in OUTCOMES)))
    for index, seed, opts, bad, logs in sorted(failed)[:20]:
        print("\nFAILED case %d (seed %d, %s): %s" % (index, seed, opts, ", ".join(bad)))
        print("  reproduce: gen_module.py %d > in.mlir, then:" % seed)
        for log in logs:
            print("  " + log.replace("\n", "\n  ")[:3000])
    if len(failed) > 20:
        print("\n... and %d more failed cases" % (len(failed) - 20))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
