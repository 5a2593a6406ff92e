/* lib/ir/walk.c: prunerWalkTunableOps (pruner/ir.h), the walk over a module's linalg ops
 * that the passes, the tools and lib/tune share. */
#include "pruner/ir.h"

typedef struct TunableWalk {
  PrunerTunableOpCallback fn;
  void *user;
} TunableWalk;

static MlirWalkResult visit(MlirOperation op, void *user) {
  const TunableWalk *walk = user;
  if (!prunerIsLinalgOp(op) || prunerIsFusedLinalgOp(op))
    return MlirWalkResultAdvance;
  PrunerWorkload w;
  PrunerStatus st = prunerWorkloadFromOperation(op, &w);
  return st.ok ? walk->fn(op, &w, NULL, walk->user) : walk->fn(op, NULL, &st, walk->user);
}

void prunerWalkTunableOps(MlirOperation root, PrunerTunableOpCallback fn, void *user) {
  TunableWalk walk = {fn, user};
  mlirOperationWalk(root, visit, &walk, MlirWalkPreOrder);
}
