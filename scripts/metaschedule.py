#!/usr/bin/env python3
"""scripts/metaschedule.py M N K CORES TRIALS: TVM MetaSchedule's pick for an f32 matmul
C[M,N] = A[M,K] B[K,N] on this CPU, for the comparison in docs/host.md ("Against TVM
MetaSchedule"). Tunes with TRIALS measured trials (batches of 16, MetaSchedule's default
evolutionary search and XGBoost cost model), then times the best schedule (median of 15
repeats of 5 runs) and checks it against numpy. Needs TVM in the Python that runs it, e.g.
a venv with apache-tvm==0.27.0.post1 apache-tvm-ffi==0.1.14.post1 cloudpickle psutil
xgboost scipy tornado (scripts/metaschedule-compare.sh says how); it is not part of the
build or the tests. Prints one line: median ms, tuning wall seconds, max error."""
import os
import sys
import tempfile
import time

import numpy as np
import tvm
from tvm import te
from tvm.s_tir import meta_schedule as ms


def main():
    m, n, k, cores, trials = (int(x) for x in sys.argv[1:6])
    a = te.placeholder((m, k), name="A")
    b = te.placeholder((k, n), name="B")
    r = te.reduce_axis((0, k), name="k")
    c = te.compute((m, n), lambda i, j: te.sum(a[i, r] * b[r, j], axis=r), name="C")
    mod = tvm.IRModule({"main": te.create_prim_func([a, b, c])})
    # The host CPU as LLVM names it (llc -mcpu=help); MCPU overrides.
    target = tvm.target.Target({"kind": "llvm", "mcpu": os.environ.get("MCPU", "znver4"),
                                "num-cores": cores})
    start = time.time()
    with tempfile.TemporaryDirectory() as work_dir:
        db = ms.tune_tir(mod=mod, target=target, work_dir=work_dir, max_trials_global=trials,
                         num_trials_per_iter=16, num_tuning_cores=1, database="memory")
        sch = ms.tir_integration.compile_tir(db, mod, target)
    tune_s = time.time() - start
    lib = tvm.compile(sch.mod, target=target).jit()
    dev = tvm.cpu()
    rng = np.random.default_rng(1)
    ta = tvm.runtime.tensor(rng.uniform(-1, 1, (m, k)).astype("float32"), dev)
    tb = tvm.runtime.tensor(rng.uniform(-1, 1, (k, n)).astype("float32"), dev)
    tc = tvm.runtime.tensor(np.zeros((m, n), "float32"), dev)
    timer = lib.time_evaluator("main", dev, number=5, repeat=15)
    res = timer(ta, tb, tc)
    err = float(np.abs(tc.numpy() - ta.numpy() @ tb.numpy()).max())
    med = float(np.median(res.results)) * 1e3
    print(f"metaschedule {m}x{n}x{k} cores {cores} trials {trials}: median {med:.3f} ms, "
          f"tuning {tune_s:.1f} s, max err {err:.2e}")


if __name__ == "__main__":
    main()
