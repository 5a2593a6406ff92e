#!/usr/bin/env bash
# Spills of a 2-D NHWC conv's register tiles in the compiled code, beside their measured
# time: the data behind the host draft's register demand (docs/quality.md, "Spills in
# the host draft"; lib/backend/host/draft_host.c, CONV2D_REGISTER_SLACK).
#
#   scripts/conv-spill-census.sh DATASET WORKLOAD.mlir [BUILD]
#
# For each register tile (output columns x filter vectors) of DATASET, takes its fastest
# measured config, compiles it with pruner-host-tool --print=object at the dataset's ISA
# (host:avx512 or host:avx2, on this CPU) and counts, in llvm-objdump's listing from the
# first to the last FMA (the inner loop and its unrolled copies), the instructions that
# address the stack (spills and reloads). Prints one row per tile: rows, vectors,
# accumulators, demand over the register file (accumulators + rows + vectors - registers),
# stack accesses, FMAs, and the tile's best time over the dataset's best.
# Needs python3 and llvm-objdump (LLVM 22); host:avx512 needs an AVX-512 CPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { sed -n 2,16p "$0"; exit 2; }
dataset=$1 workload=$2 build=${3:-$root/build}
objdump=${OBJDUMP:-$(command -v llvm-objdump-22 || echo /usr/lib/llvm-22/bin/llvm-objdump)}
python3 - "$dataset" "$workload" "$build/bin/pruner-host-tool" "$objdump" <<'PY'
import json, statistics, subprocess, sys, tempfile, os
dataset, workload, tool, objdump = sys.argv[1:5]
best, target_key = {}, None
for line in open(dataset):
    r = json.loads(line)
    c = r.get('config')
    if r.get('status') != 'ok' or not c or c['vector_width'] <= 1:
        continue
    target_key = r['target']['key']
    t = statistics.median(r['samples_us'])
    tile = (c['thread'][2], c['thread'][3] // c['vector_width'])
    if tile not in best or t < best[tile][0]:
        best[tile] = (t, c)
if not best:
    sys.exit('no vectorized ok records in %s' % dataset)
isa = 'avx512' if target_key.endswith('avx512') else 'avx2'
registers = 32 if isa == 'avx512' else 16
fastest = min(t for t, _ in best.values())
print('# %s at host:%s (%d SIMD registers)' % (target_key, isa, registers))
print('rows vectors accumulators over stack_accesses fmas time')
obj = os.path.join(tempfile.mkdtemp(), 'tile.o')
for (rows, vectors) in sorted(best):
    t, c = best[(rows, vectors)]
    lst = lambda v: '[' + ','.join(map(str, v)) + ']'
    cfg = ('{workgroup = %s, reduction = %s, thread = %s, promote_operands = [], '
           'vector_width = %d}') % (lst(c['workgroup']), lst(c['reduction']),
                                    lst(c['thread']), c['vector_width'])
    subprocess.run([tool, workload, '--target=host:' + isa, '--print=object', '-o', obj,
                    '--config=' + cfg], check=True, stdout=subprocess.DEVNULL)
    asm = subprocess.run([objdump, '-d', '--no-show-raw-insn', obj], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    fma = [i for i, l in enumerate(asm) if 'vfmadd' in l]
    body = asm[fma[0]:fma[-1] + 1] if fma else []
    stack = sum(1 for l in body if '(%rsp)' in l)
    acc = rows * vectors
    print(rows, vectors, acc, acc + rows + vectors - registers, stack, len(fma),
          '%.3f' % (t / fastest))
PY
