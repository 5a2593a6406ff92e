/* passes/strip.c: pruner-strip, in C over the MLIR C API: removes every "pruner.*"
 * discardable attribute (pruner.space, pruner.config, markers), leaving plain IR. */
#include <string.h>

#include "passes.h"

static MlirWalkResult stripOne(MlirOperation op, void *user) {
  int *removed = user;
  /* Backwards, so removing entry i does not shift the ones still to visit. */
  for (intptr_t i = mlirOperationGetNumDiscardableAttributes(op) - 1; i >= 0; --i) {
    MlirNamedAttribute a = mlirOperationGetDiscardableAttribute(op, i);
    MlirStringRef name = mlirIdentifierStr(a.name);
    if (name.length >= 7 && strncmp(name.data, "pruner.", 7) == 0 &&
        mlirOperationRemoveDiscardableAttributeByName(op, name))
      ++*removed;
  }
  return MlirWalkResultAdvance;
}

int prunerStripRun(MlirOperation root) {
  int removed = 0;
  mlirOperationWalk(root, stripOne, &removed, MlirWalkPreOrder);
  return removed;
}
