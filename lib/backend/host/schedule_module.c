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
#include "pruner/schedule.h"
#include "pruner/text.h"

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

/* ---- an NCHW conv's kernel: transposes around its channels-last twin ---------------- */

static void appendTensor(PrunerText *t, const PrunerOperand *o) {
  prunerScheduleAppendTensorType(t, o);
}

/* `%init = tensor.empty() : to` and `%dst = linalg.transpose ins(%src : from) outs(%init :
 * to) permutation = perm`. */
static void appendTranspose(PrunerText *t, const char *dst, const char *src,
                            const PrunerOperand *from, const char *init,
                            const PrunerOperand *to, const char *perm) {
  prunerTextAppend(t, "  %%%s = tensor.empty() : ", init);
  appendTensor(t, to);
  prunerTextAppend(t, "\n  %%%s = linalg.transpose ins(%%%s : ", dst, src);
  appendTensor(t, from);
  prunerTextAppend(t, ") outs(%%%s : ", init);
  appendTensor(t, to);
  prunerTextAppend(t, ") permutation = [%s]\n", perm);
}

/* The kernel of an NCHW conv as a function of the op's operands (docs/host.md, "NCHW
 * convolutions run channels-last"): input and filter transposed to NHWC and HWCF, the
 * twin's conv_2d_nhwc_hwcf into a zero-filled NHWC buffer, and that buffer transposed and
 * added into the output (a linalg.generic: each output element is read and written by the
 * same iteration, so a task's tile bufferizes in place). */
static PrunerStatus channelsLastBody(const PrunerWorkload *w, const PrunerWorkload *twin,
                                     char **text) {
  const PrunerOperand *in = &w->operands[0], *fil = &w->operands[1], *out = &w->operands[2];
  const PrunerOperand *tin = &twin->operands[0], *tfil = &twin->operands[1],
                      *tout = &twin->operands[2];
  for (int o = 0; o < 3; ++o)
    if (!prunerScheduleMlirType(w->operands[o].dtype))
      return prunerStatusError("%s: operand %d has no MLIR element type", w->key, o);
  const char *acc = prunerScheduleMlirType(out->dtype);
  const bool fp = prunerScheduleIsFloat(out->dtype);
  PrunerText t;
  prunerTextInit(&t);
  prunerTextAppend(&t, "func.func private @__pruner_channels_last(%%in: ");
  appendTensor(&t, in);
  prunerTextAppend(&t, ", %%fil: ");
  appendTensor(&t, fil);
  prunerTextAppend(&t, ", %%out: ");
  appendTensor(&t, out);
  prunerTextAppend(&t, ") -> ");
  appendTensor(&t, out);
  prunerTextAppend(&t, " {\n");
  appendTranspose(&t, "tin", "in", in, "e0", tin, "0, 2, 3, 1");
  appendTranspose(&t, "tfil", "fil", fil, "e1", tfil, "2, 3, 1, 0");
  prunerTextAppend(&t, "  %%e2 = tensor.empty() : ");
  appendTensor(&t, tout);
  prunerTextAppend(&t, "\n  %%zero = arith.constant %s : %s\n  %%z = linalg.fill ins(%%zero : %s) "
                       "outs(%%e2 : ", fp ? "0.0" : "0", acc, acc);
  appendTensor(&t, tout);
  prunerTextAppend(&t, ") -> ");
  appendTensor(&t, tout);
  prunerTextAppend(&t,
                   "\n  %%conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<[%lld, %lld]> : "
                   "tensor<2xi64>, strides = dense<[%lld, %lld]> : tensor<2xi64>}\n"
                   "      ins(%%tin, %%tfil : ",
                   (long long)w->dilations[0], (long long)w->dilations[1],
                   (long long)w->strides[0], (long long)w->strides[1]);
  appendTensor(&t, tin);
  prunerTextAppend(&t, ", ");
  appendTensor(&t, tfil);
  prunerTextAppend(&t, ") outs(%%z : ");
  appendTensor(&t, tout);
  prunerTextAppend(&t, ") -> ");
  appendTensor(&t, tout);
  prunerTextAppend(&t,
                   "\n  %%r = linalg.generic {indexing_maps = [affine_map<(n, f, h, w) -> (n, h, "
                   "w, f)>, affine_map<(n, f, h, w) -> (n, f, h, w)>], iterator_types = "
                   "[\"parallel\", \"parallel\", \"parallel\", \"parallel\"]}\n"
                   "      ins(%%conv : ");
  appendTensor(&t, tout);
  prunerTextAppend(&t, ") outs(%%out : ");
  appendTensor(&t, out);
  prunerTextAppend(&t,
                   ") {\n  ^bb0(%%a: %s, %%o: %s):\n    %%s = %s %%o, %%a : %s\n"
                   "    linalg.yield %%s : %s\n  } -> ",
                   acc, acc, fp ? "arith.addf" : "arith.addi", acc, acc);
  appendTensor(&t, out);
  prunerTextAppend(&t, "\n  return %%r : ");
  appendTensor(&t, out);
  prunerTextAppend(&t, "\n}\n");
  return prunerTextFinish(&t, "channels-last kernel", text);
}

/* Replaces the NCHW conv of `m` by the ops of channelsLastBody, cloned in place with the
 * conv's operands for the function's arguments (no call + inline: the inliner would also
 * erase a private kernel function that nothing in its module calls). */
static PrunerStatus rewriteChannelsLast(MlirModule m, const PrunerWorkload *w) {
  PrunerWorkload twin;
  int twin_loop[PRUNER_MAX_LOOPS];
  if (!prunerHostChannelsLastWorkload(w, &twin, twin_loop))
    return prunerStatusError("%s: not an NCHW conv with a channels-last twin", w->key);
  MlirOperation conv;
  const char *name = prunerSchedulePayloadOpName(w);
  if (prunerIrOpsNamed(mlirModuleGetOperation(m), name, &conv, 1) != 1)
    return prunerStatusError("%s: not one %s in the kernel's module", w->key, name);
  char *text = NULL;
  PrunerStatus st = channelsLastBody(w, &twin, &text);
  if (!st.ok)
    return st;
  MlirModule helper =
      mlirModuleCreateParse(mlirModuleGetContext(m), mlirStringRefCreateFromCString(text));
  free(text);
  if (mlirModuleIsNull(helper))
    return prunerStatusError("%s: the channels-last kernel does not parse", w->key);
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(helper));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  /* Values of the helper and their counterparts in `m`: 3 arguments, then one result per
   * cloned op (each op here has one). */
  enum { MAX_VALUES = 16 };
  MlirValue from[MAX_VALUES], to[MAX_VALUES];
  int mapped = 0;
  for (int a = 0; a < 3; ++a) {
    from[mapped] = mlirBlockGetArgument(body, a);
    to[mapped++] = mlirOperationGetOperand(conv, a);
  }
  MlirValue result = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
    bool ret = n.length == 11 && memcmp(n.data, "func.return", 11) == 0;
    MlirOperation copy = ret ? op : mlirOperationClone(op);
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(copy); ++i)
      for (int v = 0; v < mapped; ++v)
        if (mlirValueEqual(mlirOperationGetOperand(copy, i), from[v])) {
          if (ret)
            result = to[v];
          else
            mlirOperationSetOperand(copy, i, to[v]);
          break;
        }
    if (ret)
      break;
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(conv), conv, copy);
    if (mlirOperationGetNumResults(op) == 1 && mapped < MAX_VALUES) {
      from[mapped] = mlirOperationGetResult(op, 0);
      to[mapped++] = mlirOperationGetResult(copy, 0);
    }
  }
  if (mlirValueIsNull(result)) {
    mlirModuleDestroy(helper);
    return prunerStatusError("%s: the channels-last kernel returns nothing", w->key);
  }
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(conv, 0), result);
  mlirOperationDestroy(conv);
  mlirModuleDestroy(helper);
  return prunerStatusOk();
}

/* The channels-last kernel's buffers (the transposed input and filter, the NHWC result or
 * each task's tile of it) are the only ones a host schedule allocates without freeing them:
 * one-shot bufferization inserts no deallocation, and the deallocation pipeline would also
 * copy the output the kernel returns. Each is freed before the terminator of its block
 * (none escapes it: the kernel returns its output argument; a buffer the terminator uses
 * fails the kernel, one already freed is left alone); left alone, every call leaks them
 * and pays fresh pages. */
static bool freeLocalBuffers(MlirModule m) {
  enum { MAX_ALLOCS = 64 };
  MlirOperation allocs[MAX_ALLOCS];
  int n = prunerIrOpsNamed(mlirModuleGetOperation(m), "memref.alloc", allocs, MAX_ALLOCS);
  if (n > MAX_ALLOCS)
    return false;
  for (int i = 0; i < n; ++i) {
    MlirOperation alloc = allocs[i];
    MlirBlock block = mlirOperationGetBlock(alloc);
    MlirOperation term = mlirBlockGetTerminator(block);
    MlirValue buffer = mlirOperationGetResult(alloc, 0);
    if (mlirOperationIsNull(term))
      return false;
    bool freed = false; /* a buffer the schedule frees itself (a packed panel) */
    for (MlirOpOperand u = mlirValueGetFirstUse(buffer); !mlirOpOperandIsNull(u);
         u = mlirOpOperandGetNextUse(u)) {
      MlirOperation user = mlirOpOperandGetOwner(u);
      freed |= mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(user)),
                                  mlirStringRefCreateFromCString("memref.dealloc"));
    }
    if (freed)
      continue;
    for (intptr_t o = 0; o < mlirOperationGetNumOperands(term); ++o)
      if (mlirValueEqual(mlirOperationGetOperand(term, o), buffer))
        return false; /* escapes: not the kernel built here */
    MlirOperationState st = mlirOperationStateGet(mlirStringRefCreateFromCString("memref.dealloc"),
                                                  mlirOperationGetLocation(alloc));
    mlirOperationStateAddOperands(&st, 1, &buffer);
    mlirBlockInsertOwnedOperationBefore(block, term, mlirOperationCreate(&st));
  }
  return true;
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
  /* The kernel this build makes: the test the schedule makes (hostScheduleBuildChecked). */
  const bool channels_last = c && schedule && prunerHostRunsChannelsLast(w, NULL);
  if (channels_last) {
    st = rewriteChannelsLast(m, w);
    if (!st.ok) {
      free(text);
      return st;
    }
  }
  const char *phase = "bufferize";
  bool ok = tensors || runPipeline(m, BUFFERIZE_PIPELINE);
  if (ok && schedule) {
    phase = "schedule";
    ok = applySchedule(m, text);
    if (ok && tensors)
      ok = runPipeline(m, "builtin.module(drop-equivalent-buffer-results,canonicalize,cse)");
    if (ok && channels_last)
      ok = freeLocalBuffers(m);
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
