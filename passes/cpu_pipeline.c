/* passes/cpu_pipeline.c: the plugin's side of pruner-cpu-pipeline (docs/plugin.md,
 * docs/host.md "From a tuned module to an object"): its first pass applies the host
 * configs with prunerApplyConfig (lib/apply), then the host lowering runs. */
#include <stdio.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/IR.h>

#include "pruner/apply.h"
#include "pruner/backend/host.h"
#include "pruner/backend/host_ir.h"
#include "pruner/ir.h"
#include "pruner/target.h"
#include "schedule_passes.h"

#define ANCHOR "builtin.module("

/* The ISA is the key's last dash-separated word ("host:amd-epyc-2c-avx2" -> "avx2"), or
 * the name after "host:" in a short one ("host:avx2"). */
static const char *isaOf(const char *key) {
  const char *dash = strrchr(key, '-');
  if (dash)
    return dash + 1;
  const char *colon = strrchr(key, ':');
  return colon ? colon + 1 : key;
}

typedef struct IsaCheck {
  char key[96]; /* the pipeline target's key */
  bool ok;
} IsaCheck;

/* A config tuned for host:avx2 lowered for the native AVX-512 target would get AVX-512
 * code the tuner never timed (and a CPU without it could not run): each tuned op's
 * `target` key (pruner.tuning) must name the pipeline target's ISA. Cores and model may differ (a
 * module tuned under taskset is still this CPU's). */
static MlirWalkResult checkIsa(MlirOperation op, void *user) {
  IsaCheck *c = user;
  /* The tuner records the key in pruner.tuning beside the config. */
  MlirAttribute cfg =
      mlirOperationGetDiscardableAttributeByName(op, mlirStringRefCreateFromCString("pruner.tuning"));
  if (mlirAttributeIsNull(cfg) || !mlirAttributeIsADictionary(cfg))
    return MlirWalkResultAdvance;
  MlirAttribute t = mlirDictionaryAttrGetElementByName(cfg, mlirStringRefCreateFromCString("target"));
  if (mlirAttributeIsNull(t) || !mlirAttributeIsAString(t))
    return MlirWalkResultAdvance;
  MlirStringRef v = mlirStringAttrGetValue(t);
  char key[96];
  snprintf(key, sizeof key, "%.*s", (int)v.length, v.data);
  char msg[1024];
  if (prunerTargetKeyKind(key) != PRUNER_TARGET_HOST) { /* a GPU's or IREE's: other rules */
    snprintf(msg, sizeof msg,
             "pruner-cpu-pipeline: this config was tuned for %s, not a host target; tune the "
             "module with --target=host (or lower it with the pipeline of its target)",
             key);
    prunerEmitError(op, msg);
    c->ok = false;
    return MlirWalkResultAdvance;
  }
  if (strcmp(isaOf(key), isaOf(c->key)) == 0)
    return MlirWalkResultAdvance;
  snprintf(msg, sizeof msg,
           "pruner-cpu-pipeline: this config was tuned for %s (ISA %s) but the pipeline "
           "target is %s (ISA %s); use pruner-cpu-pipeline{target=host:%s}",
           key, isaOf(key), c->key, isaOf(c->key), isaOf(key));
  prunerEmitError(op, msg);
  c->ok = false;
  return MlirWalkResultAdvance;
}

PrunerStatus prunerCpuPipelineCheckTarget(const char *target_name, PrunerTargetDesc *target) {
  PrunerStatus s = prunerTargetLookup(target_name, target);
  if (s.ok && target->kind == PRUNER_TARGET_GPU)
    s = prunerStatusError("'%s' is not a host target (pruner-gpu-pipeline lowers GPU configs)",
                          target_name);
  else if (s.ok && target->kind != PRUNER_TARGET_HOST)
    s = prunerStatusError("'%s' is not a host target (an IREE target's configs are compiled "
                          "by IREE with the tuning spec: docs/iree.md)",
                          target_name);
  return s.ok ? s : prunerStatusError("pruner-cpu-pipeline: target: %s", s.message);
}

PrunerStatus prunerCpuApplyConfigRun(MlirOperation module, const char *target_name,
                                     bool c_interface) {
  PrunerTargetDesc target;
  PrunerStatus s = prunerCpuPipelineCheckTarget(target_name, &target);
  if (!s.ok) {
    prunerEmitError(module, s.message);
    return s;
  }
  IsaCheck check = {{0}, true};
  prunerTargetKey(&target, check.key, sizeof check.key);
  mlirOperationWalk(module, checkIsa, &check, MlirWalkPreOrder);
  if (!check.ok)
    return prunerStatusError("pruner-cpu-pipeline: configs tuned for another target or ISA");
  PrunerApplyOptions opts = prunerApplyDefaultOptions();
  opts.c_interface = c_interface;
  return prunerApplyConfig(module, target_name, &opts);
}

PrunerStatus prunerCpuTargetFeaturesRun(MlirOperation module, const char *target_name) {
  PrunerTargetDesc target;
  PrunerStatus s = prunerTargetLookup(target_name, &target);
  if (s.ok)
    s = prunerHostSetTargetFeatures(module, &target);
  if (!s.ok) {
    s = prunerStatusError("pruner-cpu-pipeline: target features: %s", s.message);
    prunerEmitError(module, s.message);
  }
  return s;
}

PrunerStatus prunerCpuPipelineText(char *buf, size_t size) {
  const char *full = prunerHostLoweringPipeline();
  size_t n = strlen(full), anchor = strlen(ANCHOR);
  if (n < anchor + 1 || strncmp(full, ANCHOR, anchor) != 0 || full[n - 1] != ')')
    return prunerStatusError("pruner-cpu-pipeline: unexpected lowering pipeline text '%.80s'",
                             full);
  size_t inner = n - anchor - 1;
  if (inner + 1 > size)
    return prunerStatusError("pruner-cpu-pipeline: pipeline text needs %zu bytes", inner + 1);
  memcpy(buf, full + anchor, inner);
  buf[inner] = '\0';
  return prunerStatusOk();
}
