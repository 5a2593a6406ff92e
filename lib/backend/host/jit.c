/* lib/backend/host/jit.c: workload + host config -> JIT-compiled kernel (ExecutionEngine C API).
 *
 * payload (prunerSchedulePayload, tensors, no fill) -> one-shot bufferize with identity
 * layouts at the function boundary, dropping results equal to an argument (the kernel
 * then writes its output argument in place) -> host transform schedule -> OpenMP + LLVM
 * lowering -> mlirExecutionEngineCreate with libomp and the C runner utils. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/Dialect/Transform/Interpreter.h>
#include <mlir-c/ExecutionEngine.h>
#include <mlir-c/IR.h>
#include <mlir-c/Pass.h>

#include "host_internal.h"
#include "pruner/ir_context.h"
#include "pruner/schedule.h"

#define BUFFERIZE_PIPELINE                                                                 \
  "builtin.module(one-shot-bufferize{bufferize-function-boundaries "                      \
  "function-boundary-type-conversion=identity-layout-map},drop-equivalent-buffer-results," \
  "canonicalize,cse)"

typedef struct Diag {
  char text[PRUNER_STATUS_MESSAGE_SIZE];
} Diag;

static void appendDiag(MlirStringRef s, void *user) {
  Diag *d = user;
  size_t len = strlen(d->text);
  size_t room = sizeof d->text - 1 - len;
  size_t n = s.length < room ? s.length : room;
  memcpy(d->text + len, s.data, n);
  d->text[len + n] = '\0';
}

static MlirLogicalResult onDiagnostic(MlirDiagnostic diag, void *user) {
  Diag *d = user;
  if (mlirDiagnosticGetSeverity(diag) == MlirDiagnosticError && d->text[0] == '\0') {
    mlirDiagnosticPrint(diag, appendDiag, d);
    for (char *p = d->text; *p; ++p)
      if (*p == '\n')
        *p = ' ';
  }
  return mlirLogicalResultSuccess();
}

MlirContext hostContextCreate(void) {
  MlirContext ctx = prunerIrContextCreate();
  mlirContextLoadAllAvailableDialects(ctx);
  return ctx;
}

static bool runPipeline(MlirContext ctx, MlirModule m, const char *pipeline) {
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirLogicalResult r = mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                                              mlirStringRefCreateFromCString(pipeline), NULL,
                                              NULL);
  if (mlirLogicalResultIsSuccess(r))
    r = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(m));
  mlirPassManagerDestroy(pm);
  return mlirLogicalResultIsSuccess(r);
}

/* Applies the schedule's @__transform_main to `m`. */
static bool applySchedule(MlirContext ctx, MlirModule m, const char *schedule) {
  MlirModule sm = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(schedule));
  if (mlirModuleIsNull(sm))
    return false;
  MlirOperation main = prunerIrLookupSymbol(sm, "__transform_main");
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

PrunerStatus hostLowerModule(MlirContext ctx, const PrunerWorkload *w, const PrunerConfig *c,
                             const PrunerTargetDesc *t, HostStage stop, MlirModule *out,
                             int *num_results) {
  *out = (MlirModule){NULL};
  Diag diag = {{0}};
  MlirDiagnosticHandlerID id = mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, &diag, NULL);
  char *payload = NULL, *schedule = NULL;
  PrunerStatus st = prunerSchedulePayload(w, "kernel", false, &payload);
  if (st.ok)
    st = prunerHostScheduleBuild(w, c, t, &schedule);
  MlirModule m = {NULL};
  const char *phase = "parse";
  if (st.ok) {
    m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(payload));
    bool ok = !mlirModuleIsNull(m);
    MlirOperation f = ok ? prunerIrLookupSymbol(m, "kernel") : (MlirOperation){NULL};
    ok = ok && !mlirOperationIsNull(f);
    if (ok)
      mlirOperationSetDiscardableAttributeByName(
          f, mlirStringRefCreateFromCString("llvm.emit_c_interface"), mlirUnitAttrGet(ctx));
    /* Schedules that start on tensors bufferize themselves (untiled: bufferize here). */
    bool tensors = c && hostScheduleOnTensors(w);
    if (ok && !tensors) {
      phase = "bufferize";
      ok = runPipeline(ctx, m, BUFFERIZE_PIPELINE);
    }
    if (ok && stop >= HOST_STAGE_SCHEDULED) {
      phase = "schedule";
      ok = applySchedule(ctx, m, schedule);
      if (ok && tensors)
        ok = runPipeline(ctx, m, "builtin.module(drop-equivalent-buffer-results,canonicalize,cse)");
    }
    if (ok && num_results) {
      f = prunerIrLookupSymbol(m, "kernel");
      MlirAttribute ft =
          mlirOperationGetAttributeByName(f, mlirStringRefCreateFromCString("function_type"));
      *num_results = (int)mlirFunctionTypeGetNumResults(mlirTypeAttrGetValue(ft));
    }
    if (ok && stop >= HOST_STAGE_LLVM) {
      phase = "lowering";
      ok = runPipeline(ctx, m, prunerHostLoweringPipeline());
    }
    if (!ok) {
      char cfg[256] = "untiled";
      if (c)
        prunerConfigFormatShort(w, c, cfg, sizeof cfg);
      st = prunerStatusError("host %s of %s (%s) failed: %s", phase, w->key, cfg,
                             diag.text[0] ? diag.text : "no diagnostic");
      if (!mlirModuleIsNull(m))
        mlirModuleDestroy(m);
      m = (MlirModule){NULL};
    }
  }
  mlirContextDetachDiagnosticHandler(ctx, id);
  free(payload);
  free(schedule);
  *out = m;
  return st;
}

PrunerStatus hostJit(MlirContext ctx, const PrunerWorkload *w, const PrunerConfig *c,
                     const PrunerTargetDesc *t, int opt_level, HostKernel *out) {
  memset(out, 0, sizeof *out);
  MlirModule m;
  PrunerStatus st = hostLowerModule(ctx, w, c, t, HOST_STAGE_LLVM, &m, &out->num_results);
  if (!st.ok)
    return st;
  MlirStringRef libs[2] = {mlirStringRefCreateFromCString(PRUNER_HOST_LIBOMP),
                           mlirStringRefCreateFromCString(PRUNER_HOST_RUNNER_UTILS)};
  Diag diag = {{0}};
  MlirDiagnosticHandlerID id = mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, &diag, NULL);
  MlirExecutionEngine jit = mlirExecutionEngineCreate(m, opt_level, 2, libs, false, false);
  mlirContextDetachDiagnosticHandler(ctx, id);
  mlirModuleDestroy(m);
  if (mlirExecutionEngineIsNull(jit))
    return prunerStatusError("host JIT of %s failed: %s", w->key,
                             diag.text[0] ? diag.text : "mlirExecutionEngineCreate returned null");
  if (!mlirExecutionEngineLookupPacked(jit, mlirStringRefCreateFromCString("_mlir_ciface_kernel"))) {
    mlirExecutionEngineDestroy(jit);
    return prunerStatusError("host JIT of %s: no _mlir_ciface_kernel entry point", w->key);
  }
  out->jit = jit;
  return prunerStatusOk();
}

bool hostKernelInvoke(HostKernel *k, void **descriptors, int n) {
  /* The packed wrapper of the C interface takes one pointer per argument: a pointer to
   * each descriptor pointer, the result descriptor first when the function has one. */
  void *ptrs[PRUNER_MAX_OPERANDS + 1];
  void *args[PRUNER_MAX_OPERANDS + 1];
  for (int i = 0; i < n; ++i) {
    ptrs[i] = descriptors[i];
    args[i] = &ptrs[i];
  }
  /* The C API prefixes "_mlir_ciface_" itself and calls that function's packed wrapper. */
  return mlirLogicalResultIsSuccess(
      mlirExecutionEngineInvokePacked(k->jit, mlirStringRefCreateFromCString("kernel"), args));
}

void hostKernelDestroy(HostKernel *k) {
  if (k->jit.ptr)
    mlirExecutionEngineDestroy(k->jit);
  k->jit.ptr = NULL;
}
