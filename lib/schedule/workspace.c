/* lib/schedule/workspace.c: split-K's partials buffer made device memory
 * (prunerScheduleDeviceWorkspaces, pruner/schedule_ir.h).
 *
 * Bufferization turns the partials tensor of a split-K schedule into a `memref.alloc` in
 * the host function, between the two gpu.launch ops that use it: host memory (malloc, and
 * never freed) that the kernels would dereference. The transform dialect has no op that
 * moves an allocation to the device, so this rewrite, over the MLIR C API, replaces each
 * static host-level `memref.alloc` whose uses are all on the device (inside gpu.launch
 * bodies or gpu.launch_func operands, directly or through host-level views) with
 * `gpu.alloc` and frees it with `gpu.dealloc` before its block ends (the GPU dialect
 * reference, https://mlir.llvm.org/docs/Dialects/GPU/, "gpu.alloc": "it is an error to use
 * the buffer on the host"; gpu-to-llvm lowers both to the GPU runtime wrappers). */
#include <string.h>

#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/IR.h>

#include "ir_util.h"
#include "pruner/schedule_ir.h"

static bool isView(MlirOperation op) {
  return prunerScheduleIrIsOp(op, "memref.subview") ||
         prunerScheduleIrIsOp(op, "memref.expand_shape") ||
         prunerScheduleIrIsOp(op, "memref.collapse_shape") ||
         prunerScheduleIrIsOp(op, "memref.cast") ||
         prunerScheduleIrIsOp(op, "memref.reinterpret_cast");
}

/* Whether `op` runs on the device: inside a gpu.launch body, or a gpu.launch_func. */
static bool onDevice(MlirOperation op) {
  if (prunerScheduleIrIsOp(op, "gpu.launch_func"))
    return true;
  for (MlirOperation p = mlirOperationGetParentOperation(op);
       !mlirOperationIsNull(p) && !prunerScheduleIrIsOp(p, "func.func");
       p = mlirOperationGetParentOperation(p))
    if (prunerScheduleIrIsOp(p, "gpu.launch"))
      return true;
  return false;
}

/* Whether every use of `v` is on the device, or a host-level view whose uses are
 * (depth-bounded); and there is at least one. */
static bool onlyDeviceUses(MlirValue v, int depth) {
  if (depth > 8)
    return false;
  bool any = false;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    if (onDevice(user))
      any = true;
    else if (isView(user) && mlirOpOperandGetOperandNumber(u) == 0 &&
             onlyDeviceUses(mlirOperationGetResult(user, 0), depth + 1))
      any = true;
    else
      return false;
  }
  return any;
}

/* One walk's worth; the caller walks again while a walk fills it. */
#define FOUND_PER_WALK 16

typedef struct Found {
  MlirOperation allocs[FOUND_PER_WALK];
  int count;
} Found;

static MlirWalkResult collect(MlirOperation op, void *user) {
  Found *f = user;
  if (!prunerScheduleIrIsOp(op, "memref.alloc") || f->count == FOUND_PER_WALK ||
      mlirOperationGetNumOperands(op) != 0)
    return MlirWalkResultAdvance;
  if (onDevice(op))
    return MlirWalkResultAdvance; /* host level only: not inside a kernel */
  MlirValue v = mlirOperationGetResult(op, 0);
  MlirType t = mlirValueGetType(v);
  if (mlirTypeIsAMemRef(t) && mlirShapedTypeHasStaticShape(t) &&
      mlirAttributeIsNull(mlirMemRefTypeGetMemorySpace(t)) && onlyDeviceUses(v, 0))
    f->allocs[f->count++] = op;
  return MlirWalkResultAdvance;
}

/* One op named `name` at `loc`, inserted before `before`; NULL on failure. */
static MlirOperation insertOp(const char *name, MlirLocation loc, intptr_t num_operands,
                              const MlirValue *operands, intptr_t num_results,
                              const MlirType *results, MlirNamedAttribute *attr,
                              MlirOperation before) {
  MlirOperationState st = mlirOperationStateGet(mlirStringRefCreateFromCString(name), loc);
  mlirOperationStateAddOperands(&st, num_operands, operands);
  mlirOperationStateAddResults(&st, num_results, results);
  if (attr)
    mlirOperationStateAddAttributes(&st, 1, attr);
  MlirOperation op = mlirOperationCreate(&st);
  if (!mlirOperationIsNull(op))
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, op);
  return op;
}

/* Replaces `alloc` by a device allocation freed before its block's terminator (the block
 * is its region's only one: the caller checks). The async
 * forms with a wait after each, because gpu-to-llvm lowers only those (the synchronous
 * gpu.alloc and gpu.dealloc stay unconverted): `%t0 = gpu.wait async`,
 * `%m, %t1 = gpu.alloc async [%t0] ()`, `gpu.wait [%t1]`; before the return
 * `%t2 = gpu.wait async`, `%t3 = gpu.dealloc async [%t2] %m`, `gpu.wait [%t3]`. The
 * kernels in between are synchronous launches, finished when the dealloc runs. */
static bool moveToDevice(MlirContext ctx, MlirOperation alloc, MlirType token,
                         MlirAttribute segments) {
  MlirValue old = mlirOperationGetResult(alloc, 0);
  MlirLocation loc = mlirOperationGetLocation(alloc);
  MlirOperation ret = mlirBlockGetTerminator(mlirOperationGetBlock(alloc));
  if (mlirOperationIsNull(ret))
    return false;
  MlirOperation w0 = insertOp("gpu.wait", loc, 0, NULL, 1, &token, NULL, alloc);
  if (mlirOperationIsNull(w0))
    return false;
  MlirValue t0 = mlirOperationGetResult(w0, 0);
  MlirType types[2] = {mlirValueGetType(old), token};
  MlirNamedAttribute seg = mlirNamedAttributeGet(
      mlirIdentifierGet(ctx, mlirStringRefCreateFromCString("operandSegmentSizes")), segments);
  MlirOperation device = insertOp("gpu.alloc", loc, 1, &t0, 2, types, &seg, alloc);
  if (mlirOperationIsNull(device))
    return false;
  MlirValue mem = mlirOperationGetResult(device, 0), t1 = mlirOperationGetResult(device, 1);
  if (mlirOperationIsNull(insertOp("gpu.wait", loc, 1, &t1, 0, NULL, NULL, alloc)))
    return false;
  mlirValueReplaceAllUsesOfWith(old, mem);
  mlirOperationDestroy(alloc);
  MlirOperation w2 = insertOp("gpu.wait", loc, 0, NULL, 1, &token, NULL, ret);
  if (mlirOperationIsNull(w2))
    return false;
  MlirValue dealloc_operands[2] = {mlirOperationGetResult(w2, 0), mem};
  MlirOperation dealloc = insertOp("gpu.dealloc", loc, 2, dealloc_operands, 1, &token, NULL, ret);
  if (mlirOperationIsNull(dealloc))
    return false;
  MlirValue t3 = mlirOperationGetResult(dealloc, 0);
  return !mlirOperationIsNull(insertOp("gpu.wait", loc, 1, &t3, 0, NULL, NULL, ret));
}

PrunerStatus prunerScheduleDeviceWorkspaces(MlirOperation module, int *num_moved) {
  if (num_moved)
    *num_moved = 0;
  MlirContext ctx = mlirOperationGetContext(module);
  MlirAttribute segments = {NULL};
  MlirType token = {NULL};
  for (;;) { /* rewritten allocs are gpu.alloc: a new walk finds only the rest */
    Found f = {.count = 0};
    mlirOperationWalk(module, collect, &f, MlirWalkPreOrder);
    if (f.count == 0)
      return prunerStatusOk();
    if (mlirAttributeIsNull(segments)) {
      segments = mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString("array<i32: 1, 0, 0>"));
      token = mlirTypeParseGet(ctx, mlirStringRefCreateFromCString("!gpu.async.token"));
      if (mlirAttributeIsNull(segments) || mlirTypeIsNull(token))
        return prunerStatusError("device workspaces: the GPU dialect is not loaded");
    }
    for (int i = 0; i < f.count; ++i) {
      /* The free goes before the block's terminator: after every use when the block is
       * its region's only one (uses are dominated by the alloc, so they sit in this block
       * or in regions nested in it); with successors a use may lie past it. */
      MlirBlock block = mlirOperationGetBlock(f.allocs[i]);
      MlirRegion region = mlirBlockGetParentRegion(block);
      if (!mlirBlockIsNull(mlirBlockGetNextInRegion(mlirRegionGetFirstBlock(region)))) {
        MlirStringRef name =
            mlirIdentifierStr(mlirOperationGetName(mlirBlockGetParentOperation(block)));
        return prunerStatusError("device workspaces: a buffer only kernels use (split-K's "
                                 "partials) is allocated in a region of %.*s with several "
                                 "blocks; control flow around such a buffer is not supported",
                                 (int)name.length, name.data);
      }
      if (!moveToDevice(ctx, f.allocs[i], token, segments))
        return prunerStatusError("device workspaces: gpu.alloc / gpu.dealloc could not be built");
      if (num_moved)
        ++*num_moved;
    }
    if (f.count < FOUND_PER_WALK)
      return prunerStatusOk();
  }
}
