/* lib/schedule/async_waits.c: the pipelined K loop's async waits counted in groups, not
 * steps (prunerSchedulePipelineWaits, pruner/schedule_ir.h).
 *
 * `nvgpu.pipeline_shared_memory_copies` sets each `nvgpu.device_async_wait` to let
 * `depth - 1` groups stay pending, which is right when a K step commits one cp.async
 * group. Our staged tensor-core steps commit one group per operand (A's copies, a
 * barrier, B's copies: `create_async_groups` does not group across the barrier), so the
 * count is in steps, not groups: a 3-stage loop waited until one step's copies were in
 * flight instead of two, and overlapped like a 2-stage one. `cp.async.wait_group N`
 * waits until at most N of the most recent groups are pending (PTX ISA,
 * "cp.async.wait_group"), so the count that keeps `depth - 1` steps in flight is
 * N x (groups per step). The transform dialect has no arithmetic on attributes, so this
 * C walk scales them. */
#include <stdbool.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/IR.h>

#include "ir_util.h"
#include "pruner/schedule_ir.h"

#define SCALED_ATTR "pruner.groups_per_step"

static bool isOp(MlirOperation op, const char *name) { return prunerScheduleIrIsOp(op, name); }

/* cp.async groups one iteration of `loop` commits (create_group ops directly in its
 * body) and whether its body waits with a count (the pipeliner's mark). */
static int groupsPerIteration(MlirOperation loop, bool *counted_wait) {
  int groups = 0;
  *counted_wait = false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (isOp(op, "nvgpu.device_async_create_group"))
      ++groups;
    else if (isOp(op, "nvgpu.device_async_wait") &&
             !mlirAttributeIsNull(mlirOperationGetAttributeByName(
                 op, mlirStringRefCreateFromCString("numGroups"))))
      *counted_wait = true;
  }
  return groups;
}

typedef struct Scan {
  int loops;  /* pipelined loops found (body commits groups and waits with a count) */
  int groups; /* groups per iteration of the last one */
  int changed;
} Scan;

static MlirWalkResult findPipelinedLoop(MlirOperation op, void *user) {
  Scan *s = user;
  if (!isOp(op, "scf.for"))
    return MlirWalkResultAdvance;
  bool counted = false;
  int g = groupsPerIteration(op, &counted);
  if (counted && g > 0) {
    s->loops++;
    s->groups = g;
  }
  return MlirWalkResultAdvance;
}

static MlirWalkResult scaleWait(MlirOperation op, void *user) {
  Scan *s = user;
  if (!isOp(op, "nvgpu.device_async_wait") ||
      !mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
          op, mlirStringRefCreateFromCString(SCALED_ATTR))))
    return MlirWalkResultAdvance;
  MlirAttribute n = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("numGroups"));
  if (mlirAttributeIsNull(n) || !mlirAttributeIsAInteger(n))
    return MlirWalkResultAdvance;
  MlirContext ctx = mlirOperationGetContext(op);
  int64_t scaled = mlirIntegerAttrGetValueInt(n) * s->groups;
  mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString("numGroups"),
                                  mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 32), scaled));
  /* Marked so that a second run leaves it alone. */
  mlirOperationSetDiscardableAttributeByName(op, mlirStringRefCreateFromCString(SCALED_ATTR),
                                             mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64),
                                                                s->groups));
  s->changed++;
  return MlirWalkResultAdvance;
}

/* Per function: its waits are scaled by the groups per step of its one pipelined loop
 * (its peeled epilogue's waits follow the loop in the same function). A function with
 * several such loops, whose waits could not be told apart, is left as the pipeliner made
 * it: waiting for more than needed is slow, never wrong. */
static MlirWalkResult visitFunction(MlirOperation op, void *user) {
  int *changed = user;
  if (!isOp(op, "func.func"))
    return MlirWalkResultAdvance;
  Scan s = {0, 0, 0};
  mlirOperationWalk(op, findPipelinedLoop, &s, MlirWalkPreOrder);
  if (s.loops == 1 && s.groups > 1) {
    mlirOperationWalk(op, scaleWait, &s, MlirWalkPreOrder);
    *changed += s.changed;
  }
  return MlirWalkResultSkip;
}

PrunerStatus prunerSchedulePipelineWaits(MlirOperation module, int *num_scaled) {
  int changed = 0;
  mlirOperationWalk(module, visitFunction, &changed, MlirWalkPreOrder);
  if (num_scaled)
    *num_scaled = changed;
  return prunerStatusOk();
}
