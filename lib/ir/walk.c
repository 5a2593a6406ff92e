/* lib/ir/walk.c: prunerWalkTunableOps (pruner/ir.h), the walk over a module's linalg ops
 * that the passes, the tools and lib/tune share. */
#include <stdio.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>

#include "ir_internal.h"
#include "pruner/ir.h"

typedef struct TunableWalk {
  MlirOperation root;
  PrunerTunableOpCallback fn;
  void *user;
  PrunerStatus nested; /* set while inside a nested module: why its ops are not tuned */
  bool interrupted;
} TunableWalk;

static bool isModule(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  return name.length == strlen("builtin.module") &&
         memcmp(name.data, "builtin.module", name.length) == 0;
}

static MlirWalkResult report(MlirOperation op, const TunableWalk *walk, const PrunerWorkload *w,
                             const PrunerStatus *why) {
  return walk->fn(op, w, why, walk->user);
}

static MlirWalkResult visitNested(MlirOperation op, void *user) {
  TunableWalk *walk = user;
  if (!prunerIsLinalgOp(op) || prunerIsFusedLinalgOp(op))
    return MlirWalkResultAdvance;
  char name[48];
  prunerIrStringRefCopy(mlirIdentifierStr(mlirOperationGetName(op)), name, sizeof name);
  PrunerStatus why = prunerStatusError("%s %s", name, walk->nested.message);
  MlirWalkResult r = report(op, walk, NULL, &why);
  if (r == MlirWalkResultInterrupt)
    walk->interrupted = true;
  return r;
}

static MlirWalkResult visit(MlirOperation op, void *user) {
  TunableWalk *walk = user;
  if (isModule(op) && !mlirOperationEqual(op, walk->root)) {
    /* The passes transform the module they run on (bufferization and kernel outlining
     * are per module), so ops of a nested module are that module's to tune. */
    MlirAttribute sym =
        mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
    MlirStringRef s = !mlirAttributeIsNull(sym) && mlirAttributeIsAString(sym)
                          ? mlirStringAttrGetValue(sym)
                          : mlirStringRefCreateFromCString("");
    walk->nested = prunerStatusError(
        "is inside nested module%s%.*s: the passes transform the module they run on; tune and "
        "lower that module on its own",
        s.length ? " @" : "", (int)(s.length < 64 ? s.length : 64), s.data);
    mlirOperationWalk(op, visitNested, walk, MlirWalkPreOrder);
    return walk->interrupted ? MlirWalkResultInterrupt : MlirWalkResultSkip;
  }
  if (!prunerIsLinalgOp(op)) {
    /* Other linalg ops (softmax, winograd, pack) have no indexing maps to tile: they get
     * the remark every refused op gets rather than silence; the region ops of a generic
     * (yield, index) are its body, not ops. */
    char name[48];
    prunerIrStringRefCopy(mlirIdentifierStr(mlirOperationGetName(op)), name, sizeof name);
    if (strncmp(name, "linalg.", 7) != 0 || !strcmp(name, "linalg.yield") ||
        !strcmp(name, "linalg.index"))
      return MlirWalkResultAdvance;
    PrunerStatus why =
        prunerStatusError("%s is not a structured linalg op (no indexing maps to tile)", name);
    return report(op, walk, NULL, &why);
  }
  if (prunerIsFusedLinalgOp(op))
    return MlirWalkResultAdvance;
  if (prunerIrResultsDead(op)) {
    char name[48];
    prunerIrStringRefCopy(mlirIdentifierStr(mlirOperationGetName(op)), name, sizeof name);
    PrunerStatus why = prunerStatusError(
        "%s: its results are unused (dead code, which canonicalization erases)", name);
    return report(op, walk, NULL, &why);
  }
  PrunerWorkload w;
  PrunerStatus st = prunerWorkloadFromOperation(op, &w);
  return st.ok ? report(op, walk, &w, NULL) : report(op, walk, NULL, &st);
}

void prunerWalkTunableOps(MlirOperation root, PrunerTunableOpCallback fn, void *user) {
  TunableWalk walk = {root, fn, user, {true, ""}, false};
  mlirOperationWalk(root, visit, &walk, MlirWalkPreOrder);
}
