/* lib/schedule/shared_space.c: the module's workgroup memrefs get NVVM's number for the
 * shared space (prunerScheduleSharedSpaceAsNumber, pruner/schedule_ir.h); and the one
 * sequence of post-schedule rewrites every GPU module gets (prunerScheduleFinishGpuModule),
 * which ends with it.
 *
 * The pipelined tensor-core schedule allocates its stage buffers in the GPU dialect's
 * workgroup space, because convert-vector-to-gpu reads mma fragments with ldmatrix only
 * from memrefs it knows are workgroup memory, and the buffers reach the outlined K-step
 * function as arguments. The NVVM lowering runs convert-func-to-llvm over the kernel's
 * module before convert-gpu-to-nvvm, and its type converter has no mapping for the GPU
 * dialect's address spaces: it reports "conversion of memref memory space
 * #gpu.address_space<workgroup> to integer address space failed" on such a signature.
 * NVVM numbers the shared space 3 (NVPTX address spaces, LLVM's NVPTXUsage guide), which
 * is what convert-gpu-to-nvvm maps workgroup to and what every nvgpu op also accepts, so
 * after the schedules (the fragments are ldmatrix by then) every workgroup memref of the
 * module is rewritten to the number: all of them, not only the signatures', because a
 * call's operands must match its callee's types, and so that a kernel's IR does not
 * depend on which other kernels share its module. The transform dialect has no op that
 * retypes values. */
#include <stdbool.h>
#include <stdlib.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/IR.h>

#include "ir_util.h"
#include "pruner/schedule_ir.h"

#define SHARED_SPACE 3
#define PRUNER_MAX_SHARED_RANK 16

/* `type` with its workgroup memory space replaced by NVVM's number, or null when it has
 * none. */
static MlirType numbered(MlirType type) {
  if (!mlirTypeIsAMemRef(type) ||
      !prunerScheduleIrIsWorkgroupSpace(mlirMemRefTypeGetMemorySpace(type)))
    return (MlirType){NULL};
  int64_t rank = mlirShapedTypeGetRank(type);
  int64_t shape[PRUNER_MAX_SHARED_RANK];
  if (rank > PRUNER_MAX_SHARED_RANK) /* none of ours; left for the lowering to report */
    return (MlirType){NULL};
  for (int64_t d = 0; d < rank; ++d)
    shape[d] = mlirShapedTypeGetDimSize(type, (intptr_t)d);
  MlirContext ctx = mlirTypeGetContext(type);
  return mlirMemRefTypeGet(mlirShapedTypeGetElementType(type), (intptr_t)rank, shape,
                           mlirMemRefTypeGetLayout(type),
                           mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), SHARED_SPACE));
}

static MlirAttribute attr(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

static void setAttr(MlirOperation op, const char *name, MlirAttribute value) {
  mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString(name), value);
}

static int retype(MlirValue v) {
  MlirType t = numbered(mlirValueGetType(v));
  if (mlirTypeIsNull(t))
    return 0;
  mlirValueSetType(v, t);
  return 1;
}

/* A function type with every workgroup memref numbered; null when out of memory. */
static MlirType numberedFunction(MlirType fn) {
  intptr_t ni = mlirFunctionTypeGetNumInputs(fn), nr = mlirFunctionTypeGetNumResults(fn);
  MlirType *types = malloc(sizeof(MlirType) * (size_t)(ni + nr + 1));
  if (!types)
    return (MlirType){NULL};
  for (intptr_t i = 0; i < ni + nr; ++i) {
    MlirType was = i < ni ? mlirFunctionTypeGetInput(fn, i) : mlirFunctionTypeGetResult(fn, i - ni);
    MlirType t = numbered(was);
    types[i] = mlirTypeIsNull(t) ? was : t;
  }
  MlirType now = mlirFunctionTypeGet(mlirTypeGetContext(fn), ni, types, nr, types + ni);
  free(types);
  return now;
}

typedef struct Retyping {
  int changed;
  bool out_of_memory;
} Retyping;

static MlirWalkResult retypeOp(MlirOperation op, void *user) {
  Retyping *r = user;
  int *changed = &r->changed;
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); ++i)
    *changed += retype(mlirOperationGetResult(op, i));
  for (intptr_t g = 0; g < mlirOperationGetNumRegions(op); ++g)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, g)); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      for (intptr_t a = 0; a < mlirBlockGetNumArguments(b); ++a)
        *changed += retype(mlirBlockGetArgument(b, a));
  /* Types held in attributes: a function's signature, a global's type. */
  MlirAttribute fn = attr(op, "function_type");
  if (prunerScheduleIrIsOp(op, "func.func") && !mlirAttributeIsNull(fn) &&
      mlirAttributeIsAType(fn)) {
    MlirType now = numberedFunction(mlirTypeAttrGetValue(fn));
    if (mlirTypeIsNull(now)) {
      r->out_of_memory = true;
      return MlirWalkResultInterrupt;
    }
    if (!mlirTypeEqual(now, mlirTypeAttrGetValue(fn))) {
      setAttr(op, "function_type", mlirTypeAttrGet(now));
      ++*changed;
    }
  }
  MlirAttribute global = attr(op, "type");
  if (prunerScheduleIrIsOp(op, "memref.global") && !mlirAttributeIsNull(global) &&
      mlirAttributeIsAType(global)) {
    MlirType t = numbered(mlirTypeAttrGetValue(global));
    if (!mlirTypeIsNull(t)) {
      setAttr(op, "type", mlirTypeAttrGet(t));
      ++*changed;
    }
  }
  return MlirWalkResultAdvance;
}

PrunerStatus prunerScheduleSharedSpaceAsNumber(MlirOperation module, int *num_retyped) {
  Retyping r = {0, false};
  mlirOperationWalk(module, retypeOp, &r, MlirWalkPreOrder);
  if (num_retyped)
    *num_retyped = r.changed;
  if (r.out_of_memory)
    return prunerStatusError("out of memory retyping shared-memory buffers");
  return prunerStatusOk();
}

PrunerStatus prunerScheduleFinishGpuModule(MlirOperation module) {
  /* Bundles' and users' buffers are cudaMalloc'd (PRUNER_ARG_ALIGNMENT). */
  PrunerStatus s = prunerScheduleAlignVectorAccesses(module, PRUNER_ARG_ALIGNMENT, NULL);
  if (s.ok) /* after the alignment walk, which reads memref.alloc's alignment */
    s = prunerScheduleDeviceWorkspaces(module, NULL);
  if (s.ok)
    s = prunerSchedulePipelineWaits(module, NULL);
  if (s.ok)
    s = prunerScheduleSharedSpaceAsNumber(module, NULL);
  return s;
}
