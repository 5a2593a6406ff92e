/* lib/apply/apply.c: prunerApplyConfig (pruner/apply.h): the checks every caller gets,
 * then the GPU or the host half by the target's kind. */
#include <stdio.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/IR.h>

#include "apply_internal.h"
#include "pruner/apply.h"
#include "pruner/ir.h"
#include "pruner/target.h"

PrunerApplyOptions prunerApplyDefaultOptions(void) {
  PrunerApplyOptions o = {.gpu_mapping = true, .c_interface = false};
  return o;
}

static bool isModule(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  return name.length == strlen("builtin.module") &&
         memcmp(name.data, "builtin.module", name.length) == 0;
}

/* A configured op inside a module nested in the one the call runs on is not this run's:
 * both halves bufferize (and the host half outlines) per module; one-shot bufferization
 * does not enter nested modules, and a kernel outlined into the outer module is out of
 * the nested one's symbol scope. It is left alone with a warning saying how to reach it. */
static void warnNested(MlirOperation module) {
  MlirAttribute sym =
      mlirOperationGetAttributeByName(module, mlirStringRefCreateFromCString("sym_name"));
  char name[80] = "";
  if (!mlirAttributeIsNull(sym) && mlirAttributeIsAString(sym)) {
    MlirStringRef v = mlirStringAttrGetValue(sym);
    snprintf(name, sizeof name, " @%.*s", (int)(v.length < 64 ? v.length : 64), v.data);
  }
  char msg[256];
  snprintf(msg, sizeof msg,
           "pruner: the pruner.config attributes inside nested module%s are not applied: the "
           "passes transform the module they run on; nest them to reach it, e.g. "
           "builtin.module(builtin.module(pruner-apply-config))",
           name);
  prunerEmitWarning(module, msg);
}

static MlirWalkResult findConfiguredInNested(MlirOperation op, void *user) {
  bool *found = user;
  if (prunerIsLinalgOp(op) && !mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
                                  op, mlirStringRefCreateFromCString(PRUNER_CONFIG_ATTR)))) {
    *found = true;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

bool prunerApplyIsFunc(MlirOperation op) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == 9 && memcmp(n.data, "func.func", 9) == 0;
}

MlirOperation prunerApplyEnclosingFunc(MlirOperation op) {
  MlirOperation p = mlirOperationGetParentOperation(op);
  while (!mlirOperationIsNull(p) && !prunerApplyIsFunc(p))
    p = mlirOperationGetParentOperation(p);
  return p;
}

bool prunerApplySkipNested(MlirOperation op, MlirOperation root) {
  if (!isModule(op) || mlirOperationEqual(op, root))
    return false;
  bool found = false;
  mlirOperationWalk(op, findConfiguredInNested, &found, MlirWalkPreOrder);
  if (found)
    warnNested(op);
  return true;
}

/* A pruner.config on an op that is not a structured linalg op (a typo'd target op, a
 * linalg.softmax) configures nothing: a warning says so instead of silence. Nested
 * modules are their own run's. */
static MlirWalkResult warnUnconfigurable(MlirOperation op, void *user) {
  MlirOperation root = *(MlirOperation *)user;
  if (isModule(op) && !mlirOperationEqual(op, root))
    return MlirWalkResultSkip;
  if (!prunerIsLinalgOp(op) && !mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
                                   op, mlirStringRefCreateFromCString(PRUNER_CONFIG_ATTR)))) {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
    char msg[200];
    snprintf(msg, sizeof msg,
             "pruner: the pruner.config on %.*s is ignored: only structured linalg ops "
             "(with indexing maps to tile) are configured",
             (int)(name.length < 64 ? name.length : 64), name.data);
    prunerEmitWarning(op, msg);
  }
  return MlirWalkResultAdvance;
}

static const char *kindWords(PrunerTargetKind k) {
  return k == PRUNER_TARGET_HOST ? "a host CPU" : k == PRUNER_TARGET_GPU ? "a GPU" : "IREE";
}

typedef struct TuningCheck {
  MlirOperation root;
  const PrunerTargetDesc *target;
  const char *target_name;
  bool ok;
} TuningCheck;

/* A config follows the space rules of the target it was tuned for: one tuned for a host
 * CPU often passes a GPU's rules too (and would become a kernel nobody timed), so the
 * pruner.tuning the tuner writes beside it must name a target of the kind applied. */
static MlirWalkResult checkTuning(MlirOperation op, void *user) {
  TuningCheck *c = user;
  if (isModule(op) && !mlirOperationEqual(op, c->root))
    return MlirWalkResultSkip;
  if (!prunerIsLinalgOp(op) || mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
                                   op, mlirStringRefCreateFromCString(PRUNER_CONFIG_ATTR))))
    return MlirWalkResultAdvance;
  MlirAttribute tuning = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString("pruner.tuning"));
  if (mlirAttributeIsNull(tuning))
    return MlirWalkResultAdvance; /* a config written by hand */
  MlirAttribute key = mlirAttributeIsADictionary(tuning)
                          ? mlirDictionaryAttrGetElementByName(
                                tuning, mlirStringRefCreateFromCString("target"))
                          : (MlirAttribute){NULL};
  char msg[512];
  if (!mlirAttributeIsADictionary(tuning) ||
      (!mlirAttributeIsNull(key) && !mlirAttributeIsAString(key))) {
    snprintf(msg, sizeof msg,
             "pruner.tuning on this op is not a dictionary whose target is a string (what "
             "pruner-tune writes, docs/tune.md \"Write-back\"); fix or remove it");
    prunerEmitError(op, msg);
    c->ok = false;
    return MlirWalkResultAdvance;
  }
  if (mlirAttributeIsNull(key))
    return MlirWalkResultAdvance;
  MlirStringRef v = mlirStringAttrGetValue(key);
  char text[96];
  snprintf(text, sizeof text, "%.*s", (int)(v.length < 90 ? v.length : 90), v.data);
  PrunerTargetKind kind = prunerTargetKeyKind(text);
  if (kind == c->target->kind)
    return MlirWalkResultAdvance;
  snprintf(msg, sizeof msg,
           "pruner.config tuned for %s (%s) cannot be applied for %s (%s): it follows another "
           "target's rules; %s",
           text, kindWords(kind), c->target_name, kindWords(c->target->kind),
           kind == PRUNER_TARGET_HOST  ? "lower it with pruner-cpu-pipeline"
           : kind == PRUNER_TARGET_GPU ? "lower it with pruner-gpu-pipeline"
                                       : "IREE applies it (docs/iree.md)");
  prunerEmitError(op, msg);
  c->ok = false;
  return MlirWalkResultAdvance;
}

PrunerStatus prunerApplyConfig(MlirOperation module, const char *target_name,
                               const PrunerApplyOptions *opts) {
  /* Nothing to report a diagnostic on: the status alone says it. */
  if (mlirOperationIsNull(module))
    return prunerStatusError("pruner-apply-config: no module (a null MlirOperation)");
  PrunerApplyOptions o = opts ? *opts : prunerApplyDefaultOptions();
  if (!isModule(module)) {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(module));
    PrunerStatus s = prunerStatusError(
        "pruner-apply-config runs on builtin.module, not %.*s: it bufferizes the module's "
        "functions together; use builtin.module(pruner-apply-config)",
        (int)(name.length < 64 ? name.length : 64), name.data);
    prunerEmitError(module, s.message);
    return s;
  }
  PrunerTargetDesc target;
  PrunerStatus s =
      target_name ? prunerTargetLookup(target_name, &target) : prunerStatusError("no target given");
  if (!s.ok) {
    s = prunerStatusError("pruner-apply-config: target: %s", s.message);
    prunerEmitError(module, s.message);
    return s;
  }
  mlirOperationWalk(module, warnUnconfigurable, &module, MlirWalkPreOrder);
  if (target.kind == PRUNER_TARGET_HOST || target.kind == PRUNER_TARGET_GPU) {
    TuningCheck check = {module, &target, target_name, true};
    mlirOperationWalk(module, checkTuning, &check, MlirWalkPreOrder);
    if (!check.ok)
      return prunerStatusError("pruner-apply-config: configs tuned for another kind of target, "
                               "or a malformed pruner.tuning (see the errors on the ops)");
  }
  /* Host configs get the host schedule, op by op as the tuner measured them. */
  if (target.kind == PRUNER_TARGET_HOST)
    return prunerApplyHost(module, &target, o.c_interface);
  if (target.kind != PRUNER_TARGET_GPU) {
    s = prunerStatusError("pruner-apply-config: target '%s' has no schedule here: IREE applies "
                          "its own configs (iree-compile --iree-codegen-tuning-spec-path, "
                          "docs/iree.md)",
                          target_name);
    prunerEmitError(module, s.message);
    return s;
  }
  return prunerApplyGpu(module, &target, o.gpu_mapping);
}
