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

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/IR.h>

#include "passes.h"
#include "pruner/ir.h"
#include "pruner/compile.h"
#include "pruner/target.h"
#include "schedule_passes.h"

#define ANCHOR "builtin.module("

/* What pruner-apply-config leaves to "the ordinary way": ops without a config (untuned,
 * dynamic shapes, unsupported kinds) and a module with no configured op at all are still
 * on tensors, or linalg ops on memrefs outside any gpu.launch, and the NVVM lowering
 * below has no pattern for them (convert-arith-to-llvm rewrites the body of a host
 * linalg.matmul and its verifier fails with "expected add/mul op"). So: bufferize what is
 * left (a no-op on what pruner-apply-config bufferized), turn every remaining linalg op
 * into loops, and map their parallel loops to a gpu.launch with MLIR's own passes, the
 * same lowering upstream's GPU examples use (loops of an op with no parallel loop, a
 * full reduction, stay host loops). */
#define LEFTOVERS                                                                                  \
  "one-shot-bufferize{bufferize-function-boundaries=1 allow-return-allocs-from-loops=1 "           \
  "function-boundary-type-conversion=identity-layout-map},"                                        \
  "func.func(convert-linalg-to-parallel-loops,gpu-map-parallel-loops,"                             \
  "convert-parallel-loops-to-gpu),"

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
  if (!s.ok || target.kind != PRUNER_TARGET_GPU) {
    /* The GPUs of the table alone: the lookup's own list names host and IREE targets,
     * which this pipeline refuses. */
    char gpus[1024] = "", archs[256] = "";
    for (size_t i = 0; i < prunerTargetTableSize(); ++i) {
      const PrunerTargetDesc *t = prunerTargetTableEntry(i);
      if (t->kind != PRUNER_TARGET_GPU)
        continue;
      size_t len = strlen(gpus);
      snprintf(gpus + len, sizeof gpus - len, "%s%s (%s)", len ? ", " : "", t->name, t->arch);
      PrunerTargetDesc by_arch; /* the architectures the lookup takes, each once */
      len = strlen(archs);
      if (!strstr(archs, t->arch) && prunerTargetLookup(t->arch, &by_arch).ok)
        snprintf(archs + len, sizeof archs - len, "%s%s", len ? ", " : "", t->arch);
    }
    return prunerStatusError("pruner-gpu-pipeline: chip '%s' is %s; accepted: %s, or an "
                             "architecture: %s",
                             chip, s.ok ? "not a GPU" : "not a GPU of the table", gpus, archs);
  }
  char full[4096];
  int n = prunerCompileLoweringPipeline(&target, binary, full, sizeof full);
  size_t anchor = strlen(ANCHOR);
  if (n < 0 || (size_t)n >= sizeof full || (size_t)n < anchor + 1 ||
      strncmp(full, ANCHOR, anchor) != 0 || full[n - 1] != ')')
    return prunerStatusError("pruner-gpu-pipeline: unexpected lowering pipeline text '%.80s'",
                             full);
  size_t inner = (size_t)n - anchor - 1;
  size_t lead = strlen(LEFTOVERS);
  if (lead + inner + 1 > size)
    return prunerStatusError("pruner-gpu-pipeline: pipeline text needs %zu bytes",
                             lead + inner + 1);
  memcpy(buf, LEFTOVERS, lead);
  memcpy(buf + lead, full + anchor, inner);
  buf[lead + inner] = '\0';
  return prunerStatusOk();
}

static bool nameIs(MlirOperation op, const char *name) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  return s.length == strlen(name) && memcmp(s.data, name, s.length) == 0;
}

static bool namePrefix(MlirOperation op, const char *prefix) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  return s.length >= strlen(prefix) && memcmp(s.data, prefix, strlen(prefix)) == 0;
}

static MlirWalkResult findUnlowerable(MlirOperation op, void *user) {
  bool *found = user;
  if (namePrefix(op, "linalg.") || namePrefix(op, "tensor.")) {
    *found = true;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

typedef struct NestedCheck {
  MlirOperation root;
  const char *pipeline;
  PrunerStatus status;
} NestedCheck;

static MlirWalkResult checkNested(MlirOperation op, void *user) {
  NestedCheck *c = user;
  if (!nameIs(op, "builtin.module") || mlirOperationEqual(op, c->root))
    return MlirWalkResultAdvance;
  bool found = false;
  mlirOperationWalk(op, findUnlowerable, &found, MlirWalkPreOrder);
  if (found && c->status.ok) {
    MlirAttribute sym =
        mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
    MlirStringRef name = !mlirAttributeIsNull(sym) && mlirAttributeIsAString(sym)
                             ? mlirStringAttrGetValue(sym)
                             : mlirStringRefCreateFromCString("");
    c->status = prunerStatusError(
        "%s: nested module%s%.*s holds linalg/tensor ops, which this run does not lower "
        "(bufferization and kernel outlining are per module); lower it on its own: "
        "builtin.module(builtin.module(%s{...}))",
        c->pipeline, name.length ? " @" : "", (int)(name.length < 64 ? name.length : 64),
        name.data, c->pipeline);
    prunerEmitError(op, c->status.message);
  }
  return MlirWalkResultSkip;
}

PrunerStatus prunerPipelineCheckNestedModules(MlirOperation module, const char *pipeline) {
  NestedCheck c = {module, pipeline, prunerStatusOk()};
  mlirOperationWalk(module, checkNested, &c, MlirWalkPreOrder);
  return c.status;
}

static MlirWalkResult findLinalg(MlirOperation op, void *user) {
  MlirOperation *found = user;
  if (namePrefix(op, "linalg.")) {
    *found = op;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

/* The first op a lowering left outside the dialects it lowers to (`allowed`, name
 * prefixes; builtin.module always): found[0] one of another dialect (complex.mul,
 * arith.mulf on f8: the cause), found[1] the first of the casts (builtin.*) a partial
 * conversion leaves around it. */
typedef struct LeftOp {
  const char *const *allowed;
  MlirOperation found[2];
} LeftOp;

static MlirWalkResult findLeft(MlirOperation op, void *user) {
  LeftOp *l = user;
  if (nameIs(op, "builtin.module") || nameIs(op, "gpu.module"))
    return MlirWalkResultAdvance;
  for (const char *const *a = l->allowed; *a; ++a)
    if (namePrefix(op, *a))
      return MlirWalkResultAdvance;
  int slot = namePrefix(op, "builtin.") ? 1 : 0;
  if (mlirOperationIsNull(l->found[slot]))
    l->found[slot] = op;
  return slot == 0 ? MlirWalkResultInterrupt : MlirWalkResultAdvance;
}

/* The op left (NULL when none), and in *at where to report it: ops a lowering creates may
 * have no location; the casts around them, else the nearest enclosing op with one. */
static MlirOperation leftOp(const LeftOp *l, MlirOperation *at) {
  MlirOperation left = mlirOperationIsNull(l->found[0]) ? l->found[1] : l->found[0];
  if (mlirOperationIsNull(left))
    return left;
  MlirLocation unknown = mlirLocationUnknownGet(mlirOperationGetContext(left));
  *at = left;
  if (!mlirOperationIsNull(l->found[1]) &&
      mlirLocationEqual(mlirOperationGetLocation(*at), unknown))
    *at = l->found[1];
  while (mlirLocationEqual(mlirOperationGetLocation(*at), unknown) &&
         !mlirOperationIsNull(mlirOperationGetParentOperation(*at)))
    *at = mlirOperationGetParentOperation(*at);
  return left;
}

/* Walks the kernels (gpu.module bodies) only. */
static MlirWalkResult findLeftInKernels(MlirOperation op, void *user) {
  LeftOp *l = user;
  if (!nameIs(op, "gpu.module"))
    return MlirWalkResultAdvance;
  if (mlirOperationIsNull(l->found[0]))
    mlirOperationWalk(op, findLeft, l, MlirWalkPreOrder);
  return MlirWalkResultSkip;
}

PrunerStatus prunerPipelineCheckGpuModulesLowered(MlirOperation module, const char *pipeline) {
  static const char *const kKernelDialects[] = {"llvm.", "nvvm.", "gpu.", NULL};
  LeftOp l = {kKernelDialects, {{NULL}, {NULL}}};
  mlirOperationWalk(module, findLeftInKernels, &l, MlirWalkPreOrder);
  MlirOperation at;
  MlirOperation left = leftOp(&l, &at);
  if (mlirOperationIsNull(left))
    return prunerStatusOk();
  /* The kernel's name (the function's, with _kernel) says where, when no location does. */
  char kernel[80] = "";
  for (MlirOperation p = left; !mlirOperationIsNull(p); p = mlirOperationGetParentOperation(p)) {
    if (!nameIs(p, "gpu.module"))
      continue;
    MlirAttribute sym =
        mlirOperationGetAttributeByName(p, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirAttributeIsNull(sym) && mlirAttributeIsAString(sym)) {
      MlirStringRef v = mlirStringAttrGetValue(sym);
      snprintf(kernel, sizeof kernel, " of @%.*s", (int)(v.length < 64 ? v.length : 64), v.data);
    }
    break;
  }
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(left));
  PrunerStatus s = prunerStatusError(
      "%s: %.*s is left in the kernel%s unlowered: the NVVM lowering has no conversion of it "
      "(an element type NVVM does not compute in, such as f8), so no binary can be made; "
      "convert such ops to a supported type first",
      pipeline, (int)(name.length < 64 ? name.length : 64), name.data, kernel);
  prunerEmitError(at, s.message);
  return s;
}

PrunerStatus prunerPipelineCheckLoweredToLLVM(MlirOperation module, const char *pipeline) {
  PrunerStatus s = prunerPipelineCheckLowered(module, pipeline);
  if (!s.ok)
    return s;
  /* mlir-translate translates omp.* on LLVM types. */
  static const char *const kHostDialects[] = {"llvm.", "omp.", NULL};
  LeftOp l = {kHostDialects, {{NULL}, {NULL}}};
  mlirOperationWalk(module, findLeft, &l, MlirWalkPreOrder);
  MlirOperation at;
  MlirOperation left = leftOp(&l, &at);
  if (mlirOperationIsNull(left))
    return prunerStatusOk();
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(left));
  s = prunerStatusError("%s: %.*s is left unlowered: the host lowering has no conversion of it "
                        "to the LLVM dialect (complex numbers; math functions without an LLVM "
                        "intrinsic, such as math.erf), so the module cannot be translated to "
                        "LLVM IR; rewrite such ops first (math: convert-math-to-libm, or a "
                        "polynomial expansion)",
                        pipeline, (int)(name.length < 64 ? name.length : 64), name.data);
  prunerEmitError(at, s.message);
  return s;
}

PrunerStatus prunerPipelineCheckLowered(MlirOperation module, const char *pipeline) {
  MlirOperation left = {NULL};
  mlirOperationWalk(module, findLinalg, &left, MlirWalkPreOrder);
  if (mlirOperationIsNull(left))
    return prunerStatusOk();
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(left));
  PrunerStatus s = prunerStatusError(
      "%s: %.*s is left unlowered: no pass of the pipeline lowers it (an aggregate op such as "
      "linalg.softmax: decompose it first, e.g. with transform.structured.decompose_interface)",
      pipeline, (int)(name.length < 64 ? name.length : 64), name.data);
  prunerEmitError(left, s.message);
  return s;
}
