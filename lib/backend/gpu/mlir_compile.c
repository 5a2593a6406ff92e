/* The MLIR half of a compile: payload text + transform schedule text -> PTX and the
 * launch description (kernel name, grid, block, dynamic shared memory, parameters),
 * in-process through the MLIR C API.
 *
 * Steps: one MLIRContext (threading off: workers fork, and a single kernel gains nothing
 * from MLIR's thread pool) with all dialects and LLVM translations registered; parse the
 * payload and the schedule; apply @__transform_main with the transform interpreter; run
 * cleanups and kernel outlining; merge the outlined modules into one; read the
 * gpu.launch_func ops (launch descriptions, workspaces); run the
 * shared NVVM lowering pipeline (prunerCompileLoweringPipeline) with format=isa; take
 * the PTX from the gpu.binary's #gpu.object. MLIR diagnostics are captured so that a
 * rejected config returns the compiler's own message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/Dialect/GPU.h>
#include <mlir-c/Dialect/Transform/Interpreter.h>
#include <mlir-c/IR.h>
#include <mlir-c/Pass.h>
#include <mlir-c/Support.h>

#include "compile_internal.h"
#include "pruner/schedule_ir.h"

/* Runs before the lowering pipeline so that the launch can be read while the kernel
 * operands are still memrefs (after outlining, before descriptors are expanded). The
 * lowering pipeline repeats these passes; on this IR they are then no-ops. */
#define PRE_LOWERING_PIPELINE                                                                      \
  "builtin.module(canonicalize,cse,canonicalize,gpu-launch-sink-index-computations,"               \
  "gpu-kernel-outlining)"

/* gpu.launch_func operand segments (GPUOps.td, MLIR 22): async deps, grid x/y/z, block
 * x/y/z, cluster x/y/z, dynamic shared memory, kernel operands, async object. */
enum {
  SEG_GRID_X = 1,
  SEG_BLOCK_X = 4,
  SEG_DYNAMIC_SMEM = 10,
  SEG_KERNEL_OPERANDS = 11,
  SEG_COUNT = 13,
};

/* ---- diagnostics ------------------------------------------------------------------ */

typedef struct Diagnostics {
  char text[PRUNER_STATUS_MESSAGE_SIZE];
  size_t len;
  int errors;
} Diagnostics;

static void appendText(Diagnostics *d, const char *s, size_t n) {
  for (size_t i = 0; i < n && d->len + 1 < sizeof(d->text); ++i)
    d->text[d->len++] = (s[i] == '\n' || s[i] == '\t') ? ' ' : s[i];
  d->text[d->len] = '\0';
}

static void appendStringRef(MlirStringRef s, void *userData) {
  appendText((Diagnostics *)userData, s.data, s.length);
}

static MlirLogicalResult onDiagnostic(MlirDiagnostic diagnostic, void *userData) {
  Diagnostics *d = userData;
  if (mlirDiagnosticGetSeverity(diagnostic) != MlirDiagnosticError)
    return mlirLogicalResultSuccess();
  if (d->errors++ > 0)
    appendText(d, "; ", 2);
  mlirDiagnosticPrint(diagnostic, appendStringRef, d);
  /* Notes often carry the op that failed ("see current operation: ..."): keep the first. */
  if (mlirDiagnosticGetNumNotes(diagnostic) > 0) {
    appendText(d, " (", 2);
    mlirDiagnosticPrint(mlirDiagnosticGetNote(diagnostic, 0), appendStringRef, d);
    appendText(d, ")", 1);
  }
  return mlirLogicalResultSuccess();
}

static PrunerStatus diagError(const Diagnostics *d, const char *what) {
  return prunerStatusError("%s: %s", what, d->errors ? d->text : "(no diagnostic)");
}

/* ---- small IR helpers -------------------------------------------------------------- */

static bool opNameIs(MlirOperation op, const char *name) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  return strlen(name) == s.length && memcmp(s.data, name, s.length) == 0;
}

static bool constantIndex(MlirValue v, int64_t *out) {
  if (!mlirValueIsAOpResult(v))
    return false;
  MlirOperation def = mlirOpResultGetOwner(v);
  if (!opNameIs(def, "arith.constant"))
    return false;
  MlirAttribute value =
      mlirOperationGetAttributeByName(def, mlirStringRefCreateFromCString("value"));
  if (mlirAttributeIsNull(value) || !mlirAttributeIsAInteger(value))
    return false;
  *out = mlirIntegerAttrGetValueInt(value);
  return true;
}

static void printType(MlirType type, char *buf, size_t size) {
  Diagnostics tmp = {.len = 0};
  mlirTypePrint(type, appendStringRef, &tmp);
  snprintf(buf, size, "%.*s", (int)(size - 1), tmp.text);
}

typedef struct Found {
  MlirOperation launches[4];
  int num_launches;
  MlirOperation binary;
} Found;

static MlirWalkResult collect(MlirOperation op, void *userData) {
  Found *f = userData;
  if (opNameIs(op, "gpu.launch_func")) {
    if (f->num_launches < 4)
      f->launches[f->num_launches] = op;
    f->num_launches++;
  } else if (opNameIs(op, "gpu.binary") && mlirOperationIsNull(f->binary)) {
    f->binary = op;
  }
  return MlirWalkResultAdvance;
}

static Found findGpuOps(MlirModule module) {
  Found f = {.num_launches = 0, .binary = {NULL}};
  mlirOperationWalk(mlirModuleGetOperation(module), collect, &f, MlirWalkPreOrder);
  return f;
}

/* [start, length) of segment `seg` of a gpu.launch_func's operands. */
static bool operandSegment(MlirOperation launch, int seg, intptr_t *start, intptr_t *length) {
  MlirAttribute sizes = mlirOperationGetAttributeByName(
      launch, mlirStringRefCreateFromCString("operandSegmentSizes"));
  if (mlirAttributeIsNull(sizes) || !mlirAttributeIsADenseI32Array(sizes) ||
      mlirDenseArrayGetNumElements(sizes) != SEG_COUNT)
    return false;
  intptr_t s = 0;
  for (int i = 0; i < seg; ++i)
    s += mlirDenseI32ArrayGetElement(sizes, i);
  *start = s;
  *length = mlirDenseI32ArrayGetElement(sizes, seg);
  return true;
}

/* The device workspaces found so far: the host-level allocations kernels take (split-K's
 * partials, a gpu.alloc after prunerScheduleDeviceWorkspaces), numbered in order of first
 * use. */
typedef struct Workspaces {
  MlirOperation allocs[PRUNER_MAX_WORKSPACES];
  PrunerKernelExtras *extras;
} Workspaces;

/* Workspace number of a static `memref.alloc` feeding a kernel (registered on first use),
 * or -1 when it is not one or there are too many. */
static int workspaceOf(MlirOperation alloc, Workspaces *ws) {
  /* gpu.alloc's operands are async tokens (prunerScheduleDeviceWorkspaces); its sizes
   * are static, as the type check below requires. */
  bool device = opNameIs(alloc, "gpu.alloc");
  if (!(device || opNameIs(alloc, "memref.alloc")) ||
      (!device && mlirOperationGetNumOperands(alloc) != 0))
    return -1;
  PrunerKernelExtras *x = ws->extras;
  for (int i = 0; i < x->num_workspaces; ++i)
    if (mlirOperationEqual(ws->allocs[i], alloc))
      return i;
  MlirType type = mlirValueGetType(mlirOperationGetResult(alloc, 0));
  if (x->num_workspaces == PRUNER_MAX_WORKSPACES || !mlirTypeIsAMemRef(type) ||
      !mlirShapedTypeHasStaticShape(type))
    return -1;
  MlirType elem = mlirShapedTypeGetElementType(type);
  int64_t bits = mlirTypeIsAFloat(elem)     ? (int64_t)mlirFloatTypeGetWidth(elem)
                 : mlirTypeIsAInteger(elem) ? (int64_t)mlirIntegerTypeGetWidth(elem)
                                            : 64; /* index */
  int64_t bytes = (bits + 7) / 8;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(type); ++d)
    bytes *= mlirShapedTypeGetDimSize(type, d);
  ws->allocs[x->num_workspaces] = alloc;
  x->workspace_bytes[x->num_workspaces] = bytes;
  return x->num_workspaces++;
}

/* The payload function argument a kernel buffer is a view of, num_operands + i for a view
 * of workspace i, or -1. Views (cast, subview, reinterpret_cast, expand/collapse_shape)
 * share the base and aligned pointers of their source; their offset, sizes and strides are
 * in the view's type. */
static int bufferOperand(MlirValue v, int num_operands, Workspaces *ws) {
  for (int depth = 0; depth < 16; ++depth) {
    if (mlirValueIsABlockArgument(v)) {
      MlirOperation parent = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
      return opNameIs(parent, "func.func") ? (int)mlirBlockArgumentGetArgNumber(v) : -1;
    }
    MlirOperation def = mlirOpResultGetOwner(v);
    if (opNameIs(def, "gpu.alloc") || opNameIs(def, "memref.alloc")) {
      int i = workspaceOf(def, ws);
      return i < 0 ? -1 : num_operands + i;
    }
    if (!(opNameIs(def, "memref.cast") || opNameIs(def, "memref.subview") ||
          opNameIs(def, "memref.reinterpret_cast") || opNameIs(def, "memref.expand_shape") ||
          opNameIs(def, "memref.collapse_shape")))
      return -1;
    v = mlirOperationGetOperand(def, 0);
  }
  return -1;
}

static bool pushArg(PrunerKernelLaunch *out, PrunerKernelArgKind kind, int operand, int64_t value) {
  if (out->num_args >= PRUNER_MAX_KERNEL_ARGS)
    return false;
  out->args[out->num_args++] = (PrunerKernelArg){.kind = kind, .operand = operand, .value = value};
  return true;
}

/* Expands one kernel operand into parameters: a memref as its descriptor (allocated
 * pointer, aligned pointer, offset, sizes..., strides...), an index/i64 as a scalar. */
static PrunerStatus describeKernelOperand(MlirValue v, int position, int num_operands,
                                          Workspaces *ws, PrunerKernelLaunch *out) {
  MlirType type = mlirValueGetType(v);
  char typeText[160];
  if (mlirTypeIsAMemRef(type)) {
    int operand = bufferOperand(v, num_operands, ws);
    printType(type, typeText, sizeof(typeText));
    if (operand < 0)
      return prunerStatusError("kernel operand %d (%s) is neither a view of a workload operand "
                               "nor a static host-level allocation (a temporary buffer the "
                               "runner cannot provide)",
                               position, typeText);
    intptr_t rank = mlirShapedTypeGetRank(type);
    int64_t strides[PRUNER_MAX_RANK + 2], offset = 0;
    if (rank > PRUNER_MAX_RANK + 2 ||
        mlirLogicalResultIsFailure(mlirMemRefTypeGetStridesAndOffset(type, strides, &offset)))
      return prunerStatusError("kernel operand %d (%s): layout is not strided", position, typeText);
    bool ok = pushArg(out, PRUNER_ARG_BUFFER_ALLOCATED, operand, 0) &&
              pushArg(out, PRUNER_ARG_BUFFER_ALIGNED, operand, 0);
    if (mlirShapedTypeIsDynamicStrideOrOffset(offset))
      return prunerStatusError("kernel operand %d (%s): dynamic offset", position, typeText);
    ok = ok && pushArg(out, PRUNER_ARG_INDEX, operand, offset);
    for (intptr_t d = 0; d < rank; ++d) {
      int64_t size = mlirShapedTypeGetDimSize(type, d);
      if (mlirShapedTypeIsDynamicSize(size))
        return prunerStatusError("kernel operand %d (%s): dynamic size", position, typeText);
      ok = ok && pushArg(out, PRUNER_ARG_INDEX, operand, size);
    }
    for (intptr_t d = 0; d < rank; ++d) {
      if (mlirShapedTypeIsDynamicStrideOrOffset(strides[d]))
        return prunerStatusError("kernel operand %d (%s): dynamic stride", position, typeText);
      ok = ok && pushArg(out, PRUNER_ARG_INDEX, operand, strides[d]);
    }
    if (!ok)
      return prunerStatusError("kernel has more than %d parameters", PRUNER_MAX_KERNEL_ARGS);
    return prunerStatusOk();
  }
  int64_t value;
  bool scalar64 =
      mlirTypeIsAIndex(type) || (mlirTypeIsAInteger(type) && mlirIntegerTypeGetWidth(type) == 64);
  if (scalar64 && constantIndex(v, &value)) {
    if (!pushArg(out, PRUNER_ARG_INDEX, -1, value))
      return prunerStatusError("kernel has more than %d parameters", PRUNER_MAX_KERNEL_ARGS);
    return prunerStatusOk();
  }
  printType(type, typeText, sizeof(typeText));
  return prunerStatusError("kernel operand %d has type %s%s, which a launch description "
                           "cannot express",
                           position, typeText, scalar64 ? " and is not a constant" : "");
}

/* Reads kernel name, grid, block, dynamic shared memory and parameters of one
 * gpu.launch_func of the outlined module. */
static PrunerStatus describeOneLaunch(MlirOperation launch, int num_operands, Workspaces *ws,
                                      PrunerKernelLaunch *out) {
  MlirAttribute kernel =
      mlirOperationGetAttributeByName(launch, mlirStringRefCreateFromCString("kernel"));
  if (mlirAttributeIsNull(kernel) || !mlirAttributeIsASymbolRef(kernel))
    return prunerStatusError("gpu.launch_func without a kernel symbol");
  MlirStringRef leaf = mlirSymbolRefAttrGetLeafReference(kernel);
  snprintf(out->kernel_name, sizeof(out->kernel_name), "%.*s", (int)leaf.length, leaf.data);

  intptr_t start, length;
  for (int i = 0; i < 3; ++i) {
    if (!operandSegment(launch, SEG_GRID_X + i, &start, &length) || length != 1 ||
        !constantIndex(mlirOperationGetOperand(launch, start), &out->grid[i]))
      return prunerStatusError("grid size %c of %s is not a constant", "xyz"[i],
                               out -> kernel_name);
    if (!operandSegment(launch, SEG_BLOCK_X + i, &start, &length) || length != 1 ||
        !constantIndex(mlirOperationGetOperand(launch, start), &out->block[i]))
      return prunerStatusError("block size %c of %s is not a constant", "xyz"[i],
                               out -> kernel_name);
  }
  out->dynamic_smem_bytes = 0;
  if (operandSegment(launch, SEG_DYNAMIC_SMEM, &start, &length) && length == 1 &&
      !constantIndex(mlirOperationGetOperand(launch, start), &out->dynamic_smem_bytes))
    return prunerStatusError("dynamic shared memory size of %s is not a constant",
                             out->kernel_name);
  if (!operandSegment(launch, SEG_KERNEL_OPERANDS, &start, &length))
    return prunerStatusError("gpu.launch_func of %s has no operand segments", out->kernel_name);
  out->num_args = 0;
  for (intptr_t i = 0; i < length; ++i) {
    PrunerStatus s = describeKernelOperand(mlirOperationGetOperand(launch, start + i), (int)i,
                                           num_operands, ws, out);
    if (!s.ok)
      return s;
  }
  return prunerStatusOk();
}

/* The launches of the outlined module in program order: the first is the main kernel,
 * the others (split-K's combine) go to out->extras with the workspaces they share. */
static PrunerStatus describeLaunches(MlirModule module, int num_operands,
                                     PrunerCompileResult *out) {
  Found f = findGpuOps(module);
  if (f.num_launches < 1 || f.num_launches > PRUNER_MAX_LAUNCHES)
    return prunerStatusError("the scheduled module has %d gpu.launch_func ops; 1 to %d kernels "
                             "per candidate are expected",
                             f.num_launches, PRUNER_MAX_LAUNCHES);
  memset(&out->extras, 0, sizeof out->extras);
  Workspaces ws = {.extras = &out->extras};
  PrunerStatus s = describeOneLaunch(f.launches[0], num_operands, &ws, &out->launch);
  for (int i = 1; s.ok && i < f.num_launches; ++i) {
    s = describeOneLaunch(f.launches[i], num_operands, &ws, &out->extras.next[i - 1]);
    out->extras.num_next = i;
  }
  return s;
}

/* Outlining gives every launch a gpu.module of its own, and each module becomes a binary;
 * a candidate is one cubin. Moves the kernels of the later modules into the first one
 * (each renamed after its module, whose name is unique), points their launches there and
 * erases the emptied modules. Only kernels without module-level globals are merged
 * (split-K's: no shared memory); others are refused rather than half moved. */
static PrunerStatus mergeGpuModules(MlirContext ctx, MlirModule module) {
  MlirBlock body = mlirModuleGetBody(module);
  MlirOperation first = {NULL};
  MlirStringRef first_name = {NULL, 0};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    if (!opNameIs(op, "gpu.module")) {
      op = next;
      continue;
    }
    MlirAttribute name =
        mlirOperationGetAttributeByName(op, mlirSymbolTableGetSymbolAttributeName());
    if (mlirOperationIsNull(first)) {
      first = op;
      first_name = mlirStringAttrGetValue(name);
      op = next;
      continue;
    }
    MlirStringRef moved = mlirStringAttrGetValue(name);
    MlirBlock kernels = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
    MlirOperation k = mlirBlockGetFirstOperation(kernels);
    if (mlirOperationIsNull(k) || !opNameIs(k, "gpu.func") ||
        !mlirOperationIsNull(mlirOperationGetNextInBlock(k)))
      return prunerStatusError("gpu.module @%.*s holds more than its kernel; kernels with "
                               "module-level globals are not merged into one binary",
                               (int)moved.length, moved.data);
    MlirAttribute kernel_name = mlirStringAttrGet(ctx, moved);
    mlirOperationSetAttributeByName(k, mlirSymbolTableGetSymbolAttributeName(), kernel_name);
    mlirOperationRemoveFromParent(k);
    mlirBlockAppendOwnedOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(first, 0)), k);
    /* Launches into the moved module now name @first::@moved. */
    Found f = findGpuOps(module);
    MlirAttribute leaf = mlirFlatSymbolRefAttrGet(ctx, moved);
    MlirAttribute ref = mlirSymbolRefAttrGet(ctx, first_name, 1, &leaf);
    for (int i = 0; i < f.num_launches && i < 4; ++i) {
      MlirAttribute old =
          mlirOperationGetAttributeByName(f.launches[i], mlirStringRefCreateFromCString("kernel"));
      if (!mlirAttributeIsNull(old) && mlirAttributeIsASymbolRef(old) &&
          mlirStringRefEqual(mlirSymbolRefAttrGetRootReference(old), moved))
        mlirOperationSetAttributeByName(f.launches[i], mlirStringRefCreateFromCString("kernel"),
                                        ref);
    }
    mlirOperationRemoveFromParent(op);
    mlirOperationDestroy(op);
    op = next;
  }
  return prunerStatusOk();
}

/* After lowering, the launch passes the expanded parameters themselves: their number
 * must match the description, or the runner would build a wrong parameter buffer. */
static PrunerStatus checkLoweredLaunch(const Found *f, const PrunerCompileResult *out) {
  intptr_t start, length;
  if (f->num_launches != 1 + out->extras.num_next)
    return prunerStatusError("lowered module has %d gpu.launch_func ops", f->num_launches);
  for (int i = 0; i < f->num_launches; ++i) {
    const PrunerKernelLaunch *l = i ? &out->extras.next[i - 1] : &out->launch;
    if (!operandSegment(f->launches[i], SEG_KERNEL_OPERANDS, &start, &length))
      return prunerStatusError("lowered launch of %s has no operand segments", l->kernel_name);
    if (length != l->num_args)
      return prunerStatusError("kernel %s takes %d parameters after lowering; the launch "
                               "description has %d",
                               l->kernel_name, (int)length, l->num_args);
  }
  return prunerStatusOk();
}

static PrunerStatus extractPtx(const Found *f, char **ptx) {
  if (mlirOperationIsNull(f->binary))
    return prunerStatusError("lowering produced no gpu.binary");
  MlirAttribute objects =
      mlirOperationGetAttributeByName(f->binary, mlirStringRefCreateFromCString("objects"));
  if (mlirAttributeIsNull(objects) || !mlirAttributeIsAArray(objects) ||
      mlirArrayAttrGetNumElements(objects) < 1 ||
      !mlirAttributeIsAGPUObjectAttr(mlirArrayAttrGetElement(objects, 0)))
    return prunerStatusError("gpu.binary has no #gpu.object");
  MlirStringRef bytes = mlirGPUObjectAttrGetObject(mlirArrayAttrGetElement(objects, 0));
  *ptx = malloc(bytes.length + 1);
  if (!*ptx)
    return prunerStatusError("out of memory for %zu bytes of PTX", bytes.length);
  memcpy(*ptx, bytes.data, bytes.length);
  (*ptx)[bytes.length] = '\0';
  return prunerStatusOk();
}

/* ---- passes ------------------------------------------------------------------------ */

static void appendPipelineError(MlirStringRef s, void *userData) {
  appendText((Diagnostics *)userData, s.data, s.length);
}

static PrunerStatus runPipeline(MlirContext ctx, MlirModule module, const char *text,
                                Diagnostics *diag, const char *what) {
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  Diagnostics parseErrors = {.len = 0};
  MlirLogicalResult parsed = mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                                                   mlirStringRefCreateFromCString(text),
                                                   appendPipelineError, &parseErrors);
  PrunerStatus status = prunerStatusOk();
  if (mlirLogicalResultIsFailure(parsed))
    status = prunerStatusError("%s: pipeline does not parse: %s", what, parseErrors.text);
  else if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))))
    status = diagError(diag, what);
  mlirPassManagerDestroy(pm);
  return status;
}

static PrunerStatus lowerInContext(MlirContext ctx, Diagnostics *diag, const char *payloadText,
                                   const char *scheduleText, int num_operands,
                                   const PrunerTargetDesc *t, const char *pad_step_tag,
                                   PrunerCompileResult *out, char **ptx) {
  MlirModule payload = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(payloadText));
  if (mlirModuleIsNull(payload))
    return diagError(diag, "payload does not parse");
  MlirModule schedule = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(scheduleText));
  if (mlirModuleIsNull(schedule)) {
    mlirModuleDestroy(payload);
    return diagError(diag, "schedule does not parse");
  }
  /* Scalar multiply-adds become FMAs, as pruner-apply-config makes them (schedule_ir.h);
   * the payload is the candidate's alone. */
  PrunerStatus status = prunerScheduleContractMulAdd(mlirModuleGetOperation(payload), NULL);
  /* lib/schedule's sequences, which @__transform_main runs in order, one at a time as
   * pruner-apply-config applies them, so that a pipelined config's tiles get padded rows
   * between @pruner_bufferize and @pruner_promote as there (pruner/schedule_ir.h). A
   * schedule without them (a caller's own) runs through its @__transform_main. */
  static const char *const kSequences[] = {"pruner_tile", "pruner_bufferize", "pruner_promote",
                                           "pruner_map", "pruner_cleanup"};
  enum { kNumSequences = sizeof kSequences / sizeof *kSequences };
  MlirOperation seqs[kNumSequences];
  bool ours = true; /* lib/schedule's five sequences; else only @__transform_main */
  for (int i = 0; i < kNumSequences; ++i) {
    seqs[i] = prunerIrLookupSymbol(schedule, kSequences[i]);
    ours = ours && !mlirOperationIsNull(seqs[i]);
  }
  MlirOperation entry = prunerIrLookupSymbol(schedule, "__transform_main");
  MlirTransformOptions options = mlirTransformOptionsCreate();
  if (status.ok && !ours && mlirOperationIsNull(entry))
    status = prunerStatusError("schedule has no @__transform_main");
  if (status.ok && !ours && pad_step_tag)
    status = prunerStatusError("padded staged rows need lib/schedule's named sequences");
  for (int i = 0; status.ok && i < (ours ? kNumSequences : 1); ++i) {
    if (mlirLogicalResultIsFailure(mlirTransformApplyNamedSequence(
            mlirModuleGetOperation(payload), ours ? seqs[i] : entry,
            mlirModuleGetOperation(schedule), options)))
      status = diagError(diag, "schedule failed");
    else if (ours && pad_step_tag && !strcmp(kSequences[i], "pruner_bufferize"))
      status = prunerSchedulePadStagedRows(mlirModuleGetOperation(payload), pad_step_tag, NULL);
  }
  mlirTransformOptionsDestroy(options);
  mlirModuleDestroy(schedule);
  /* What pruner-apply-config does after the schedule (pruner/schedule_ir.h): aligned
   * vector accesses (ld.global.v4), split-K's device workspaces, pipelined waits counted
   * in groups, the shared space as a number. */
  if (status.ok)
    status = prunerScheduleFinishGpuModule(mlirModuleGetOperation(payload));
  if (status.ok)
    status = runPipeline(ctx, payload, PRE_LOWERING_PIPELINE, diag, "cleanup failed");
  if (status.ok)
    status = mergeGpuModules(ctx, payload);
  if (status.ok)
    status = describeLaunches(payload, num_operands, out);
  char pipeline[4096];
  if (status.ok) {
    int n = prunerCompileLoweringPipeline(t, PRUNER_BINARY_PTX, pipeline, sizeof(pipeline));
    status = n > 0 && (size_t)n < sizeof pipeline
                 ? runPipeline(ctx, payload, pipeline, diag, "NVVM lowering failed")
                 : prunerStatusError("the NVVM lowering pipeline text does not fit");
  }
  if (status.ok) {
    Found lowered = findGpuOps(payload);
    status = checkLoweredLaunch(&lowered, out);
    if (status.ok)
      status = extractPtx(&lowered, ptx);
  }
  mlirModuleDestroy(payload);
  return status;
}

PrunerStatus prunerCompileMlirToPtx(MlirContext ctx, const char *payload, const char *schedule,
                                    int num_operands, const PrunerTargetDesc *t,
                                    const char *pad_step_tag, PrunerCompileResult *out,
                                    char **ptx) {
  double start = prunerNowSeconds();
  *ptx = NULL;
  bool own = mlirContextIsNull(ctx);
  if (own)
    ctx = prunerIrContextCreate();
  Diagnostics diag = {.len = 0, .errors = 0};
  MlirDiagnosticHandlerID handler =
      mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, &diag, NULL);
  PrunerStatus status =
      lowerInContext(ctx, &diag, payload, schedule, num_operands, t, pad_step_tag, out, ptx);
  mlirContextDetachDiagnosticHandler(ctx, handler);
  if (own)
    mlirContextDestroy(ctx);
  out->mlir_seconds = prunerNowSeconds() - start;
  return status;
}
