/* lib/backend/host/jit.c: workload + host config -> JIT-compiled kernel (ExecutionEngine C API).
 *
 * payload (prunerSchedulePayload, tensors, no fill) -> prunerHostPrepareModule (one-shot
 * bufferize with identity layouts at the function boundary, dropping results equal to an
 * argument, so the kernel writes its output argument in place; then the host transform
 * schedule: the code pruner-cpu-pipeline runs too) -> OpenMP + LLVM lowering ->
 * mlirExecutionEngineCreate with libomp and the C runner utils. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/ExecutionEngine.h>
#include <mlir-c/IR.h>
#include <mlir-c/Pass.h>

#include "host_internal.h"
#include "pruner/backend/host_ir.h"
#include "pruner/file.h"
#include "pruner/ir.h"
#include "pruner/ir_context.h"
#include "pruner/schedule.h"

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
  MlirLogicalResult r = prunerIrParsePipeline(mlirPassManagerGetAsOpPassManager(pm), pipeline,
                                              mlirOperationGetLocation(mlirModuleGetOperation(m)));
  if (mlirLogicalResultIsSuccess(r))
    r = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(m));
  mlirPassManagerDestroy(pm);
  return mlirLogicalResultIsSuccess(r);
}

PrunerStatus hostLowerModule(MlirContext ctx, const PrunerWorkload *w, const PrunerConfig *c,
                             const PrunerTargetDesc *t, bool checked, HostStage stop,
                             MlirModule *out, int *num_results) {
  *out = (MlirModule){NULL};
  Diag diag = {{0}};
  MlirDiagnosticHandlerID id = mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, &diag, NULL);
  char *payload = NULL;
  PrunerStatus st = prunerSchedulePayload(w, "kernel", false, &payload);
  MlirModule m = {NULL};
  if (st.ok) {
    m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(payload));
    MlirOperation f =
        mlirModuleIsNull(m) ? (MlirOperation){NULL} : prunerIrLookupSymbol(m, "kernel");
    if (mlirOperationIsNull(f)) {
      st = prunerStatusError("host parse of %s failed: %s", w->key,
                             diag.text[0] ? diag.text : "no diagnostic");
    } else {
      mlirOperationSetDiscardableAttributeByName(
          f, mlirStringRefCreateFromCString("llvm.emit_c_interface"), mlirUnitAttrGet(ctx));
      /* The same bufferization and schedule as pruner-cpu-pipeline (pruner/host_ir.h). */
      bool schedule = stop >= HOST_STAGE_SCHEDULED;
      st = checked && schedule ? prunerHostScheduleModuleChecked(m, w, c, t)
                               : prunerHostPrepareModule(m, w, c, t, schedule);
    }
    if (st.ok && num_results) {
      f = prunerIrLookupSymbol(m, "kernel");
      MlirAttribute ft =
          mlirOperationGetAttributeByName(f, mlirStringRefCreateFromCString("function_type"));
      *num_results = (int)mlirFunctionTypeGetNumResults(mlirTypeAttrGetValue(ft));
    }
    if (st.ok && stop >= HOST_STAGE_LLVM &&
        !(runPipeline(ctx, m, prunerHostLoweringPipeline()) &&
          prunerHostSetTargetFeatures(mlirModuleGetOperation(m), t).ok)) {
      char cfg[256] = "untiled";
      if (c)
        prunerConfigFormatShort(w, c, cfg, sizeof cfg);
      st = prunerStatusError("host lowering of %s (%s) failed", w->key, cfg);
    }
    if (!st.ok) {
      /* MLIR's first error says why (a rejected config has its own message). */
      if (diag.text[0] || strstr(st.message, " failed"))
        st = prunerStatusError("%.200s: %.300s", st.message,
                               diag.text[0] ? diag.text : "no diagnostic");
      if (!mlirModuleIsNull(m))
        mlirModuleDestroy(m);
      m = (MlirModule){NULL};
    }
  }
  mlirContextDetachDiagnosticHandler(ctx, id);
  free(payload);
  *out = m;
  return st;
}

/* hostJit, optionally keeping the object code for mlirExecutionEngineDumpToObjectFile. */
static PrunerStatus jitModule(MlirContext ctx, const PrunerWorkload *w, const PrunerConfig *c,
                              const PrunerTargetDesc *t, bool checked, int opt_level,
                              bool keep_object, HostKernel *out) {
  memset(out, 0, sizeof *out);
  MlirModule m;
  PrunerStatus st = hostLowerModule(ctx, w, c, t, checked, HOST_STAGE_LLVM, &m, &out->num_results);
  if (!st.ok)
    return st;
  MlirStringRef libs[2] = {mlirStringRefCreateFromCString(PRUNER_HOST_LIBOMP),
                           mlirStringRefCreateFromCString(PRUNER_HOST_RUNNER_UTILS)};
  Diag diag = {{0}};
  MlirDiagnosticHandlerID id = mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, &diag, NULL);
  MlirExecutionEngine jit = mlirExecutionEngineCreate(m, opt_level, 2, libs, keep_object, false);
  mlirContextDetachDiagnosticHandler(ctx, id);
  mlirModuleDestroy(m);
  if (mlirExecutionEngineIsNull(jit))
    return prunerStatusError("host JIT of %s failed: %s", w->key,
                             diag.text[0] ? diag.text : "mlirExecutionEngineCreate returned null");
  MlirStringRef entry = mlirStringRefCreateFromCString("_mlir_ciface_kernel");
  if (!mlirExecutionEngineLookupPacked(jit, entry)) {
    mlirExecutionEngineDestroy(jit);
    return prunerStatusError("host JIT of %s: no _mlir_ciface_kernel entry point", w->key);
  }
  out->jit = jit;
  return prunerStatusOk();
}

PrunerStatus hostJit(MlirContext ctx, const PrunerWorkload *w, const PrunerConfig *c,
                     const PrunerTargetDesc *t, bool checked, int opt_level, HostKernel *out) {
  return jitModule(ctx, w, c, t, checked, opt_level, false, out);
}

PrunerStatus prunerHostWriteObject(const PrunerWorkload *w, const PrunerConfig *config,
                                   const PrunerTargetDesc *t, int opt_level, const char *path) {
  /* A directory or a device is refused before anything is compiled; an old file is
   * removed first, so that the check below sees what this call wrote (the engine only
   * prints its own failure). */
  PrunerStatus st = prunerCheckOutputPath("-o", path);
  if (!st.ok)
    return st;
  if (unlink(path) != 0 && errno != ENOENT)
    return prunerStatusError("-o %s: cannot replace it: %s", path, strerror(errno));
  MlirContext ctx = hostContextCreate();
  HostKernel k;
  st = jitModule(ctx, w, config, t, false, opt_level, true, &k);
  if (st.ok) {
    /* The lookup above compiled the module; its object is in the engine's cache. */
    mlirExecutionEngineDumpToObjectFile(k.jit, mlirStringRefCreateFromCString(path));
    hostKernelDestroy(&k);
    struct stat written;
    if (stat(path, &written) != 0 || !S_ISREG(written.st_mode) || written.st_size == 0)
      st = prunerStatusError("host JIT of %s: no object file written to %s", w->key, path);
  }
  mlirContextDestroy(ctx);
  return st;
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
