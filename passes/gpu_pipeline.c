/* passes/gpu_pipeline.c: the passes `pruner-gpu-pipeline{chip=... format=...}` runs after
 * pruner-apply-config.
 *
 * The NVVM lowering itself is lib/backend/gpu's prunerCompileLoweringPipeline (the one
 * definition, so what the tuner measures is what this pipeline produces): the stock
 * gpu-lower-to-nvvm-pipeline spelled out with convert-vector-to-llvm inside gpu.module
 * before convert-gpu-to-nvvm, nvvm-attach-target with the chip's PTX features (+ptx80
 * for sm_75 .. sm_90; MLIR's default +ptx60 aborts LLVM for sm_90), and
 * gpu-module-to-binary. This file maps the pipeline's options onto it and strips the
 * `builtin.module(...)` anchor, because the shim parses the text into the pipeline's own
 * (module-anchored) pass manager. */
#include <stdio.h>
#include <string.h>

#include "pruner/compile.h"
#include "pruner/target.h"
#include "schedule_passes.h"

#define ANCHOR "builtin.module("

PrunerStatus prunerGpuPipelineText(const char *chip, const char *format, char *buf,
                                   size_t size) {
  PrunerBinaryFormat binary;
  if (strcmp(format, "bin") == 0)
    binary = PRUNER_BINARY_CUBIN;
  else if (strcmp(format, "isa") == 0)
    binary = PRUNER_BINARY_PTX;
  else
    return prunerStatusError("pruner-gpu-pipeline: format '%s' is not one of bin, isa", format);
  PrunerTargetDesc target;
  PrunerStatus s = prunerTargetLookup(chip, &target);
  if (!s.ok)
    return prunerStatusError("pruner-gpu-pipeline: chip: %s", s.message);
  if (target.kind != PRUNER_TARGET_GPU)
    return prunerStatusError("pruner-gpu-pipeline: chip '%s' is not a GPU", chip);
  char full[4096];
  int n = prunerCompileLoweringPipeline(&target, binary, full, sizeof full);
  size_t anchor = strlen(ANCHOR);
  if (n < 0 || (size_t)n >= sizeof full || (size_t)n < anchor + 1 ||
      strncmp(full, ANCHOR, anchor) != 0 || full[n - 1] != ')')
    return prunerStatusError("pruner-gpu-pipeline: unexpected lowering pipeline text '%.80s'",
                             full);
  size_t inner = (size_t)n - anchor - 1;
  if (inner + 1 > size)
    return prunerStatusError("pruner-gpu-pipeline: pipeline text needs %zu bytes", inner + 1);
  memcpy(buf, full + anchor, inner);
  buf[inner] = '\0';
  return prunerStatusOk();
}
