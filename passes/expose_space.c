/* passes/expose_space.c: pruner-expose-space, in C over the MLIR C API.
 *
 * Walks the IR, describes each linalg op as a workload (lib/ir), builds its space on the
 * chosen target (lib/space) and attaches the space as `pruner.space`. Nothing else in
 * the IR changes. */
#include <stdio.h>
#include <string.h>

#include "passes.h"
#include "pruner/ir.h"
#include "pruner/space.h"
#include "pruner/target.h"

typedef struct ExposeState {
  PrunerTargetDesc target;
} ExposeState;

static void remarkNotTunable(MlirOperation op, const char *reason) {
  char msg[PRUNER_STATUS_MESSAGE_SIZE + 32];
  snprintf(msg, sizeof msg, "pruner: not tunable: %s", reason);
  prunerEmitRemark(op, msg);
}

static void exposeOne(MlirOperation op, const PrunerWorkload *w, const ExposeState *state) {
  PrunerSpace space;
  PrunerStatus s = prunerSpaceCreate(w, &state->target, NULL, &space);
  if (!s.ok) {
    remarkNotTunable(op, s.message);
    return;
  }
  MlirAttribute attr = prunerSpaceToAttribute(mlirOperationGetContext(op), space);
  prunerSpaceDestroy(space);
  if (mlirAttributeIsNull(attr)) {
    remarkNotTunable(op, "out of memory while building pruner.space");
    return;
  }
  mlirOperationSetDiscardableAttributeByName(op, mlirStringRefCreateFromCString(PRUNER_SPACE_ATTR),
                                             attr);
}

static MlirWalkResult visit(MlirOperation op, const PrunerWorkload *w, const PrunerStatus *why,
                            void *user) {
  if (w)
    exposeOne(op, w, user);
  else
    remarkNotTunable(op, why->message);
  return MlirWalkResultAdvance;
}

static PrunerStatus lookupTarget(const char *target, PrunerTargetDesc *out) {
  PrunerStatus s = prunerTargetLookup(target, out);
  if (s.ok)
    return s;
  if (strncmp(s.message, "unknown target", 14) != 0) /* e.g. a host ISA this CPU lacks */
    return prunerStatusError("pruner-expose-space: %s", s.message);
  char names[PRUNER_STATUS_MESSAGE_SIZE];
  prunerTargetListNames(names, sizeof names);
  return prunerStatusError("pruner-expose-space: unknown target '%s'; valid values: %s", target,
                           names);
}

PrunerStatus prunerExposeSpaceCheckTarget(const char *target) {
  PrunerTargetDesc desc;
  return lookupTarget(target, &desc);
}

PrunerStatus prunerExposeSpaceRun(MlirOperation root, const char *target) {
  ExposeState state;
  PrunerStatus s = lookupTarget(target, &state.target);
  if (!s.ok)
    return s;
  prunerWalkTunableOps(root, visit, &state);
  return prunerStatusOk();
}
