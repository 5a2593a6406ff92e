/* passes/cpu_pipeline.c: the plugin's side of pruner-cpu-pipeline (docs/plugin.md,
 * docs/host.md "From a tuned module to an object"): its first pass applies the host
 * configs with prunerApplyConfig (lib/apply), then the host lowering runs. */
#include <stdio.h>
#include <string.h>

#include <mlir-c/IR.h>

#include "pruner/apply.h"
#include "pruner/backend/host.h"
#include "pruner/ir.h"
#include "pruner/target.h"
#include "schedule_passes.h"

#define ANCHOR "builtin.module("

PrunerStatus prunerCpuApplyConfigRun(MlirOperation module, const char *target_name,
                                     bool c_interface) {
  PrunerTargetDesc target;
  PrunerStatus s = prunerTargetLookup(target_name, &target);
  if (s.ok && target.kind != PRUNER_TARGET_HOST)
    s = prunerStatusError("'%s' is not a host target (pruner-gpu-pipeline lowers GPU configs)",
                          target_name);
  if (!s.ok) {
    s = prunerStatusError("pruner-cpu-pipeline: target: %s", s.message);
    prunerEmitError(module, s.message);
    return s;
  }
  PrunerApplyOptions opts = prunerApplyDefaultOptions();
  opts.c_interface = c_interface;
  return prunerApplyConfig(module, target_name, &opts);
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
