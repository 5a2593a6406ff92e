# Reads llvm-objdump's listing of a kernel; prints how many instructions between its
# first and last FMA (the register step's loop and its unrolled copies) address the
# stack: spills and reloads (test/lit/host/conv-spill.test).
/vfmadd/ { if (!first) first = NR; last = NR }
{ line[NR] = $0 }
END {
  n = 0
  for (i = first; i <= last; i++)
    if (line[i] ~ /\(%rsp\)/) n++
  print "fmas from line", first, "stack accesses", n
}
