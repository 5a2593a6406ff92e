/* pruner/kernel.h: the ground floor shared by compile, measure, draft and verifier: how a
 * compiled kernel is launched (its parameters, grid, block, dynamic shared memory), the
 * resources ptxas reports for it, and one compile result. Plain data, no functions: the
 * models (pruner/draft.h, pruner/verifier.h) read resources from here without seeing the
 * compile or measure stages, and a bundle (pruner/measure.h) takes a compile result
 * without linking the compiler. */
#ifndef PRUNER_KERNEL_H
#define PRUNER_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pruner/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PRUNER_MAX_KERNEL_ARGS 64

/* The version of the GPU kernels lib/schedule and lib/compile generate from a config.
 * Bundles and records carry it (docs/records.md, "Code-generator version") so that a
 * measurement of an older kernel is never reused as one of today's. Raise it with any
 * change that alters the kernel an existing config compiles to (its schedule, lowering
 * or launch): 2 since the pipelined tensor-core tiles load with ldmatrix from padded rows
 * (2026-12-04). */
#define PRUNER_GPU_CODEGEN_VERSION 2

typedef enum PrunerKernelArgKind {
  PRUNER_ARG_BUFFER_ALLOCATED = 0, /* pointer: memref allocated pointer          */
  PRUNER_ARG_BUFFER_ALIGNED,       /* pointer: memref aligned pointer            */
  PRUNER_ARG_INDEX,                /* i64 scalar (memref offset, size or stride) */
} PrunerKernelArgKind;

/* One kernel parameter. Buffers are passed as expanded memref descriptors: allocated
 * pointer, aligned pointer, offset, sizes..., strides...; `operand` says which operand of
 * the workload the descriptor belongs to (-1 for scalars that are not part of one); an
 * operand at or past the workload's operand count n is workspace `operand - n`
 * (PrunerKernelExtras). */
typedef struct PrunerKernelArg {
  PrunerKernelArgKind kind;
  int operand;
  int64_t value; /* for PRUNER_ARG_INDEX */
} PrunerKernelArg;

typedef struct PrunerKernelResources {
  int registers;
  int spill_store_bytes;
  int spill_load_bytes;
  int stack_bytes;
  int shared_bytes; /* static shared memory */
  int constant_bytes;
} PrunerKernelResources;

/* How one compiled kernel is launched and what ptxas reports for it: the part a compile
 * result and a bundle's candidate (pruner/measure.h) share, kept once so that the two
 * cannot drift apart. */
typedef struct PrunerKernelLaunch {
  char kernel_name[128];
  int64_t grid[3];
  int64_t block[3];
  int64_t dynamic_smem_bytes;
  int num_args;
  PrunerKernelArg args[PRUNER_MAX_KERNEL_ARGS];
  PrunerKernelResources resources;
} PrunerKernelLaunch;

/* Most kernels one candidate launches, and most device workspaces they share. */
#define PRUNER_MAX_LAUNCHES 2
#define PRUNER_MAX_WORKSPACES 2

/* What a candidate needs beyond its main kernel: the kernels launched after it, in order
 * on the same stream, and the device buffers its kernels share besides the workload's
 * operands. Split-K (docs/schedule.md) has one of each: the combining kernel and the
 * partials' workspace. Zeroed for every other candidate. */
typedef struct PrunerKernelExtras {
  int num_next;
  PrunerKernelLaunch next[PRUNER_MAX_LAUNCHES - 1];
  int num_workspaces;
  int64_t workspace_bytes[PRUNER_MAX_WORKSPACES];
} PrunerKernelExtras;

/* One candidate as the compiler left it (prunerCompileOne/Many in pruner/compile.h fill
 * it; a bundle takes it, pruner/measure.h). `binary` is owned by the result: release it
 * with prunerCompileResultRelease. */
typedef struct PrunerCompileResult {
  PrunerStatus status; /* !ok: the message is the compiler's (first lines)     */
  PrunerKernelLaunch launch; /* the main kernel (the one the models' resources describe) */
  PrunerKernelExtras extras;
  unsigned char *binary; /* cubin (or PTX text when format is PTX); owned, free with
                            prunerCompileResultRelease */
  size_t binary_size;
  double mlir_seconds;   /* time spent in MLIR (schedule, lowering, PTX)  */
  double ptxas_seconds;  /* time spent in ptxas                           */
  bool interrupted;      /* stopped by the caller's stop flag: no result at all, neither
                            a success nor a compile error (status says "interrupted") */
} PrunerCompileResult;

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_KERNEL_H */
