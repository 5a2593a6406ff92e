/* lib/apply/apply.c: prunerApplyConfig (pruner/apply.h): the checks every caller gets,
 * then the GPU or the host half by the target's kind. */
#include <stdio.h>
#include <string.h>

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
