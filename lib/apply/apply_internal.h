/* lib/apply/apply_internal.h: the two halves behind prunerApplyConfig (pruner/apply.h).
 * Both take a builtin.module and a looked-up target of their kind; prunerApplyConfig
 * checks both before calling them. */
#ifndef PRUNER_APPLY_INTERNAL_H
#define PRUNER_APPLY_INTERNAL_H

#include <stdbool.h>

#include <mlir-c/IR.h>

#include "pruner/status.h"
#include "pruner/target.h"

/* apply_gpu.c: tile every configured op, bufferize once, map to gpu.launch. */
PrunerStatus prunerApplyGpu(MlirOperation module, const PrunerTargetDesc *target, bool gpu_mapping);

/* apply_host.c: outline every configured op into a scheduled private function,
 * bufferize the module. */
PrunerStatus prunerApplyHost(MlirOperation module, const PrunerTargetDesc *target,
                             bool c_interface);

/* For the halves' walks: true when `op` is a module nested in `root` (skip it); a
 * warning on it when it holds configured ops, which this run leaves alone. */
bool prunerApplySkipNested(MlirOperation op, MlirOperation root);

/* The func.func that holds `op`, or null: both halves transform a configured op inside
 * its function (the GPU schedule cleans up that function; the host outlines the op next
 * to it and calls it), so an op in a gpu.func or at module level is an error on it. */
MlirOperation prunerApplyEnclosingFunc(MlirOperation op);
/* True when `op` is a func.func. */
bool prunerApplyIsFunc(MlirOperation op);

#endif /* PRUNER_APPLY_INTERNAL_H */
