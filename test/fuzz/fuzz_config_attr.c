/* test/fuzz/fuzz_config_attr.c: the `pruner.config` attribute reader on hostile text.
 *
 * The input is the text of an attribute, as it would follow `pruner.config = ` in a
 * module. MLIR parses it (most inputs end here, as they would in mlir-opt); whatever
 * parses is read by prunerConfigFromAttribute for five workloads of different loop counts
 * and operand counts. A config that reads must write back to an attribute that reads as
 * the same config, and must be checkable against a GPU target and the host (the checks
 * multiply tiles and bounds: huge values must be refused, not wrapped). */
#include <stdbool.h>
#include <string.h>

#include <mlir-c/Diagnostics.h>
#include <mlir-c/IR.h>

#include "fuzz.h"
#include "pruner/ir.h"
#include "pruner/ir_context.h"
#include "pruner/space.h"
#include "pruner/target.h"
#include "pruner/workload.h"

enum { NUM_WORKLOADS = 5, NUM_TARGETS = 2, CONTEXT_USES = 4096 };

static PrunerWorkload g_workloads[NUM_WORKLOADS];
static PrunerTargetDesc g_targets[NUM_TARGETS];
static MlirContext g_ctx;
static int g_uses;

/* Parse errors are the expected outcome for most inputs: keep them off stderr. */
static MlirLogicalResult ignoreDiagnostic(MlirDiagnostic d, void *user) {
  (void)d, (void)user;
  return mlirLogicalResultSuccess();
}

static void setUp(void) {
  prunerWorkloadMatmul(&g_workloads[0], 64, 128, 32, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  prunerWorkloadBatchMatmul(&g_workloads[1], 4, 96, 128, 64, PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
  prunerWorkloadConv2dNhwcHwcf(&g_workloads[2], 1, 30, 30, 16, 3, 3, 32, 1, 1, PRUNER_DTYPE_F32);
  int64_t reduce[2] = {256, 1024}, add[3] = {4, 16, 64};
  prunerWorkloadReduceSum(&g_workloads[3], reduce, 2, PRUNER_DTYPE_F32);
  prunerWorkloadElementwiseAdd(&g_workloads[4], add, 3, PRUNER_DTYPE_F16);
  FUZZ_CHECK(prunerTargetLookup("sm_90", &g_targets[0]).ok, "no sm_90 target");
  FUZZ_CHECK(prunerTargetLookup("host", &g_targets[1]).ok, "no host target");
}

/* One context for many inputs (creating one registers every dialect); renewed now and
 * then so that the attributes it uniques do not pile up over a long campaign. */
static MlirContext context(void) {
  if (!mlirContextIsNull(g_ctx) && g_uses++ < CONTEXT_USES)
    return g_ctx;
  if (!mlirContextIsNull(g_ctx))
    mlirContextDestroy(g_ctx);
  else
    setUp();
  g_ctx = prunerIrContextCreate();
  mlirContextAttachDiagnosticHandler(g_ctx, ignoreDiagnostic, NULL, NULL);
  g_uses = 0;
  return g_ctx;
}

static void readFor(MlirContext ctx, const PrunerWorkload *w, MlirAttribute attr) {
  PrunerConfig config;
  PrunerStatus st = prunerConfigFromAttribute(w, attr, &config);
  FUZZ_CHECK_STATUS(st);
  if (!st.ok)
    return;
  MlirAttribute back = prunerConfigToAttribute(ctx, w, &config);
  FUZZ_CHECK(!mlirAttributeIsNull(back), "an accepted config does not write back");
  PrunerConfig again;
  st = prunerConfigFromAttribute(w, back, &again);
  FUZZ_CHECK(st.ok && prunerConfigEqual(&config, &again),
             "a config changes when written and read back (%s): %s", w->key, st.message);
  char text[1024];
  prunerConfigFormat(w, &config, text, sizeof text);
  prunerConfigFormatShort(w, &config, text, sizeof text);
  for (int t = 0; t < NUM_TARGETS; t++) {
    st = prunerConfigCheck(w, &g_targets[t], &config);
    FUZZ_CHECK_STATUS(st);
    FUZZ_CHECK(st.ok == prunerConfigIsValid(w, &g_targets[t], &config),
               "prunerConfigCheck and prunerConfigIsValid disagree on %s for %s (%s)", text, w->key,
               g_targets[t].name);
    if (st.ok) {
      PrunerLaunchShape shape;
      prunerConfigLaunchShape(w, &config, &shape);
      (void)prunerConfigSharedBytes(w, &config);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzzText(data, size);
  if (!text || fuzzKnownMlirCrash(text)) {
    free(text);
    return 0;
  }
  MlirContext ctx = context();
  MlirAttribute attr = mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString(text));
  free(text);
  if (mlirAttributeIsNull(attr))
    return 0;
  for (int i = 0; i < NUM_WORKLOADS; i++)
    readFor(ctx, &g_workloads[i], attr);
  return 0;
}
