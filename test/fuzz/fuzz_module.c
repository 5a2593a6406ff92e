/* test/fuzz/fuzz_module.c: module input on hostile text, as pruner-tune and
 * pruner-expose-space take it.
 *
 * The input is parsed as an MLIR module (with every dialect registered, as in
 * pruner-tune); each linalg op the walk reports becomes a workload, and each workload gets
 * its space on a GPU target (sm_90) and on the host, as pruner-expose-space{target=...}
 * builds it. Invariants: a reported workload verifies; a space's first and last configs
 * pass the space's own check; an op's pruner.config, when it reads, can be checked. */
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

enum { NUM_TARGETS = 2, CONTEXT_USES = 1024 };

static PrunerTargetDesc g_targets[NUM_TARGETS];
static MlirContext g_ctx;
static int g_uses;

static MlirLogicalResult ignoreDiagnostic(MlirDiagnostic d, void *user) {
  (void)d, (void)user;
  return mlirLogicalResultSuccess();
}

/* One context for many inputs, renewed now and then (see fuzz_config_attr.c). */
static MlirContext context(void) {
  if (!mlirContextIsNull(g_ctx) && g_uses++ < CONTEXT_USES)
    return g_ctx;
  if (!mlirContextIsNull(g_ctx)) {
    mlirContextDestroy(g_ctx);
  } else {
    FUZZ_CHECK(prunerTargetLookup("sm_90", &g_targets[0]).ok, "no sm_90 target");
    FUZZ_CHECK(prunerTargetLookup("host", &g_targets[1]).ok, "no host target");
  }
  g_ctx = prunerIrContextCreate();
  mlirContextAttachDiagnosticHandler(g_ctx, ignoreDiagnostic, NULL, NULL);
  g_uses = 0;
  return g_ctx;
}

static void exposeSpace(MlirOperation op, const PrunerWorkload *w, const PrunerTargetDesc *t) {
  PrunerSpace space;
  PrunerStatus st = prunerSpaceCreate(w, t, NULL, &space);
  FUZZ_CHECK_STATUS(st);
  if (!st.ok)
    return;
  PrunerSpaceOptions opts = prunerSpaceGetOptions(space);
  uint64_t count = prunerSpaceCount(space);
  uint64_t probe[2] = {0, count ? count - 1 : 0};
  for (int i = 0; i < (count ? 2 : 0); i++) {
    PrunerConfig c;
    st = prunerSpaceGetConfig(space, probe[i], &c);
    FUZZ_CHECK(st.ok, "%s on %s: config %llu of %llu: %s", w->key, t->name,
               (unsigned long long)probe[i], (unsigned long long)count, st.message);
    st = prunerConfigCheckWithOptions(w, t, &opts, &c);
    FUZZ_CHECK(st.ok, "%s on %s: the space's config %llu fails its check: %s", w->key, t->name,
               (unsigned long long)probe[i], st.message);
    uint64_t index = 0;
    st = prunerSpaceGetIndex(space, &c, &index);
    FUZZ_CHECK(st.ok && index == probe[i], "%s on %s: config %llu indexes back as %llu", w->key,
               t->name, (unsigned long long)probe[i], (unsigned long long)index);
  }
  MlirAttribute attr = prunerSpaceToAttribute(mlirOperationGetContext(op), space);
  (void)attr;
  prunerSpaceDestroy(space);
}

static void readConfig(MlirOperation op, const PrunerWorkload *w) {
  MlirAttribute attr = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString(PRUNER_CONFIG_ATTR));
  if (mlirAttributeIsNull(attr))
    return;
  PrunerConfig c;
  PrunerStatus st = prunerConfigFromAttribute(w, attr, &c);
  FUZZ_CHECK_STATUS(st);
  for (int t = 0; st.ok && t < NUM_TARGETS; t++)
    FUZZ_CHECK_STATUS(prunerConfigCheck(w, &g_targets[t], &c));
}

static MlirWalkResult visit(MlirOperation op, const PrunerWorkload *w, const PrunerStatus *why,
                            void *user) {
  (void)user;
  char loc[256];
  prunerOperationLocationString(op, loc, sizeof loc);
  if (!w) {
    FUZZ_CHECK(why && why->message[0], "an op skipped without a reason at %s", loc);
    return MlirWalkResultAdvance;
  }
  PrunerStatus st = prunerWorkloadVerify(w);
  FUZZ_CHECK(st.ok, "the workload of the op at %s does not verify: %s", loc, st.message);
  (void)prunerWorkloadFlops(w);
  (void)prunerWorkloadBytes(w);
  (void)prunerFusibleConsumer(op, w);
  readConfig(op, w);
  for (int t = 0; t < NUM_TARGETS; t++)
    exposeSpace(op, w, &g_targets[t]);
  return MlirWalkResultAdvance;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzzText(data, size);
  if (!text || fuzzKnownMlirCrash(text)) {
    free(text);
    return 0;
  }
  MlirContext ctx = context();
  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  free(text);
  if (mlirModuleIsNull(module))
    return 0;
  prunerWalkTunableOps(mlirModuleGetOperation(module), visit, NULL);
  mlirModuleDestroy(module);
  return 0;
}
