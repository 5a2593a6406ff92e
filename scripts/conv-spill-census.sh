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
for f in "$dataset" "$workload" "$build/bin/pruner-host-tool" "$build/bin/pruner-draft"; do
  [ -e "$f" ] || { echo "conv-spill-census.sh: $f: no such file" >&2; exit 2; }
done
# The census compiles the module's conv with each tile of the records: they must be of it.
key=$("$build/bin/pruner-draft" "$workload" --target=host --top=1 2>/dev/null |
      sed -n 's/^op 0: [^ ]* //p')
[ -n "$key" ] || { echo "conv-spill-census.sh: $workload: no tunable op" >&2; exit 2; }
python3 - "$dataset" "$workload" "$build/bin/pruner-host-tool" "$objdump" "$key" <<'PY'
import json, statistics, subprocess, sys, tempfile, os
dataset, workload, tool, objdump, module_key = sys.argv[1:6]
best, target_key = {}, None
for n, line in enumerate(open(dataset), 1):
    try:
        r = json.loads(line)
    except ValueError as e:
        sys.exit('%s:%d: not a JSON record: %s' % (dataset, n, e))
    c = r.get('config')
    if r.get('status') != 'ok' or not c or c.get('vector_width', 1) <= 1:
        continue
    if r.get('workload_key') != module_key:
        sys.exit('%s:%d: records of %s, but %s holds %s: give the module the records '
                 'measured' % (dataset, n, r.get('workload_key'), workload, module_key))
    kind = r.get('workload', {}).get('kind')
    if kind != 'conv_2d_nhwc_hwcf':
        sys.exit('%s:%d: workload kind %r; the census reads conv_2d_nhwc_hwcf register '
                 'tiles (ow x f)' % (dataset, n, kind))
    key = r.get('target', {}).get('key', '')
    if target_key is not None and key != target_key:
        sys.exit('%s:%d: target %r after %r; one machine per census' % (dataset, n, key,
                                                                         target_key))
    target_key = key
    t = statistics.median(r['samples_us'])
    tile = (c['thread'][2], c['thread'][3] // c['vector_width'])
    if tile not in best or t < best[tile][0]:
        best[tile] = (t, c)
if not best:
    sys.exit('no vectorized ok records in %s' % dataset)
isa = target_key.rsplit('-', 1)[-1]
if isa not in ('avx512', 'avx2'):
    sys.exit('target %r: the census knows host:avx512 (32 registers) and host:avx2 (16)'
             % target_key)
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
    built = subprocess.run([tool, workload, '--target=host:' + isa, '--print=object', '-o',
                            obj, '--config=' + cfg], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    if built.returncode != 0:
        sys.exit('tile %d x %d: pruner-host-tool failed on %s:\n%s' % (rows, vectors, cfg,
                                                                       built.stderr))
    asm = subprocess.run([objdump, '-d', '--no-show-raw-insn', obj], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    fma = [i for i, l in enumerate(asm) if 'vfmadd' in l]
    body = asm[fma[0]:fma[-1] + 1] if fma else []
    stack = sum(1 for l in body if '(%rsp)' in l)
    acc = rows * vectors
    print(rows, vectors, acc, acc + rows + vectors - registers, stack, len(fma),
          '%.3f' % (t / fastest))
PY
