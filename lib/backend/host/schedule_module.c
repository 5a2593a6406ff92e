/* lib/host/schedule_module.c: bufferize + host schedule on a module (pruner/host_ir.h).
 *
 * Shared by the JIT path (jit.c) and the plugin's pruner-cpu-pipeline, so that the kernel
 * of an object file is scheduled by the same code as the one the tuner measured. Uses
 * only the MLIR C API pieces the plugin has too (IR, passes, transform interpreter). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mlir-c/Dialect/Transform/Interpreter.h>
#include <mlir-c/IR.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/Pass.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "host_internal.h"
#include "pruner/backend/host.h"
#include "pruner/backend/host_ir.h"
#include "pruner/ir.h"

/* One-shot bufferization with identity layouts at the function boundary; results equal
 * to an argument are dropped (the kernel writes its output argument in place); the
 * canonicalize removes the alloc + copy per tile that would otherwise need memrefCopy
 * (docs/host.md, H2). The second drop: a caller whose result is equal to an argument only
 * once the first drop took a kernel's result and canonicalize folded what is left (a 1x1
 * conv tuned as a matmul returns expand_shape(collapse_shape(%out)) around the kernel's
 * call); its result was kept, the deallocation pipeline copied it into a new buffer, and
 * its C entry point took a result descriptor the untuned module's did not. A loop that
 * yields a new tensor (an op filling a fresh buffer each iteration from the last one's
 * result) gets an allocation per iteration instead of the error "Yield operand #0 is not
 * equivalent to the corresponding iter bbArg"; IR that bufferized before is bufferized as
 * before. */
#define BUFFERIZE_PIPELINE                                                                 \
  "builtin.module(one-shot-bufferize{bufferize-function-boundaries "                       \
  "function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops}," \
  "drop-equivalent-buffer-results,canonicalize,drop-equivalent-buffer-results,"            \
  "canonicalize,cse)"

const char *prunerHostBufferizePipeline(void) { return BUFFERIZE_PIPELINE; }

static bool runPipeline(MlirModule m, const char *pipeline) {
  MlirPassManager pm = mlirPassManagerCreate(mlirModuleGetContext(m));
  MlirLogicalResult r =
      prunerIrParsePipeline(mlirPassManagerGetAsOpPassManager(pm), pipeline,
                            mlirOperationGetLocation(mlirModuleGetOperation(m)));
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

/* Appends `list` (comma-separated LLVM feature names) to `text` as quoted array items
 * (each takes at most its length + 4 bytes; the caller sized `text` for that). */
static size_t appendFeatures(char *text, size_t n, size_t size, const char *list) {
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    if (len > 0)
      n += (size_t)snprintf(text + n, size - n, "%s\"%.*s\"", text[n - 1] == '[' ? "" : ", ",
                            (int)len, p);
    p += len + (p[len] == ',');
  }
  return n;
}

/* LLVM picks each function's subtarget from its "target-cpu" and "target-features"
 * attributes; llc appends its own -mcpu/-mattr features after the function's (so
 * `-mcpu=native` would turn AVX-512 back on). The module therefore names its CPU and its
 * whole feature set itself: this CPU (LLVM's host detection, what -mcpu=native means),
 * then the features that switch off what the description lacks. The OpenMP outlining
 * copies a function's attributes into the outlined body (docs/host.md, "Narrower ISAs"). */
PrunerStatus prunerHostSetTargetFeatures(MlirOperation module, const PrunerTargetDesc *target) {
  char *cpu = LLVMGetHostCPUName();
  char *host = LLVMGetHostCPUFeatures();
  const char *narrow = prunerHostTargetFeatures(target);
  /* A feature of length L takes at most L + 4 bytes quoted ("", ", "): 5x is enough. */
  size_t size = 5 * (strlen(host ? host : "") + strlen(narrow)) + 64;
  char *text = malloc(size);
  PrunerStatus st = prunerStatusOk();
  if (!text) {
    st = prunerStatusError("host target features: out of memory");
  } else {
    size_t n = (size_t)snprintf(text, size, "#llvm.target_features<[");
    n = appendFeatures(text, n, size, host ? host : "");
    n = appendFeatures(text, n, size, narrow);
    snprintf(text + n, size - n, "]>");
    MlirContext ctx = mlirOperationGetContext(module);
    MlirAttribute attr = mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString(text));
    MlirAttribute cpu_attr = mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(cpu ? cpu : ""));
    if (mlirAttributeIsNull(attr)) {
      st = prunerStatusError("host target features: cannot build %.200s", text);
    } else {
      MlirStringRef func = mlirStringRefCreateFromCString("llvm.func");
      MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
      for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
           op = mlirOperationGetNextInBlock(op)) {
        if (!mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)), func))
          continue;
        if (cpu && cpu[0])
          mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString("target_cpu"),
                                          cpu_attr);
        mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString("target_features"),
                                        attr);
      }
    }
  }
  free(text);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(host);
  return st;
}
