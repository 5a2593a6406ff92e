/* lib/host/schedule_module.c: bufferize + host schedule on a module (pruner/host_ir.h).
 *
 * Shared by the JIT path (jit.c) and the plugin's pruner-cpu-pipeline, so that the kernel
 * of an object file is scheduled by the same code as the one the tuner measured. Uses
 * only the MLIR C API pieces the plugin has too (IR, passes, transform interpreter). */
#include <stdlib.h>

#include <mlir-c/Dialect/Transform/Interpreter.h>
#include <mlir-c/IR.h>
#include <mlir-c/Pass.h>

#include "host_internal.h"
#include "pruner/backend/host.h"
#include "pruner/backend/host_ir.h"

/* One-shot bufferization with identity layouts at the function boundary; results equal
 * to an argument are dropped (the kernel writes its output argument in place); the
 * canonicalize removes the alloc + copy per tile that would otherwise need memrefCopy
 * (docs/host.md, H2). */
#define BUFFERIZE_PIPELINE                                                                         \
  "builtin.module(one-shot-bufferize{bufferize-function-boundaries "                               \
  "function-boundary-type-conversion=identity-layout-map},drop-equivalent-buffer-results,"         \
  "canonicalize,cse)"

const char *prunerHostBufferizePipeline(void) { return BUFFERIZE_PIPELINE; }

static bool runPipeline(MlirModule m, const char *pipeline) {
  MlirPassManager pm = mlirPassManagerCreate(mlirModuleGetContext(m));
  MlirLogicalResult r = mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                                              mlirStringRefCreateFromCString(pipeline), NULL, NULL);
  if (mlirLogicalResultIsSuccess(r))
    r = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(m));
  mlirPassManagerDestroy(pm);
  return mlirLogicalResultIsSuccess(r);
}

/* The schedule's @__transform_main applied to `m`. */
static bool applySchedule(MlirModule m, const char *schedule) {
  MlirContext ctx = mlirModuleGetContext(m);
  MlirModule sm = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(schedule));
  if (mlirModuleIsNull(sm))
    return false;
  MlirOperation main = mlirBlockGetFirstOperation(mlirModuleGetBody(sm));
  bool ok = false;
  if (!mlirOperationIsNull(main)) {
    MlirTransformOptions to = mlirTransformOptionsCreate();
    ok = mlirLogicalResultIsSuccess(mlirTransformApplyNamedSequence(
        mlirModuleGetOperation(m), main, mlirModuleGetOperation(sm), to));
    mlirTransformOptionsDestroy(to);
  }
  mlirModuleDestroy(sm);
  return ok;
}

/* `checked`: the caller ran prunerHostConfigCheck already (the config is checked once
 * per path). */
static PrunerStatus prepareModule(MlirModule m, const PrunerWorkload *w, const PrunerConfig *c,
                                  const PrunerTargetDesc *t, bool schedule, bool checked) {
  char *text = NULL;
  PrunerStatus st =
      checked ? hostScheduleBuildChecked(w, c, &text) : prunerHostScheduleBuild(w, c, t, &text);
  if (!st.ok)
    return st;
  /* Schedules that start on tensors bufferize themselves (untiled: bufferize here). */
  const bool tensors = c && hostScheduleOnTensors(w);
  const char *phase = "bufferize";
  bool ok = tensors || runPipeline(m, BUFFERIZE_PIPELINE);
  if (ok && schedule) {
    phase = "schedule";
    ok = applySchedule(m, text);
    if (ok && tensors)
      ok = runPipeline(m, "builtin.module(drop-equivalent-buffer-results,canonicalize,cse)");
  }
  free(text);
  if (ok)
    return prunerStatusOk();
  char cfg[256] = "untiled";
  if (c)
    prunerConfigFormatShort(w, c, cfg, sizeof cfg);
  return prunerStatusError("host %s of %s (%s) failed", phase, w->key, cfg);
}

PrunerStatus prunerHostPrepareModule(MlirModule m, const PrunerWorkload *w, const PrunerConfig *c,
                                     const PrunerTargetDesc *t, bool schedule) {
  return prepareModule(m, w, c, t, schedule, false);
}

PrunerStatus prunerHostScheduleModuleChecked(MlirModule m, const PrunerWorkload *w,
                                             const PrunerConfig *c, const PrunerTargetDesc *t) {
  return prepareModule(m, w, c, t, true, true);
}
